"""``python -m referee``: the ``referee`` command (how a player's command line that starts
with ``referee`` runs the referee being run: ``core.players``)."""

from referee.cli import main

if __name__ == "__main__":
    main()
