"""A worker process of the results site: writes the game pages it is given.

``python -m referee.tournament.report.page_worker`` reads a pickled ``PageJob`` and a
pickled list of indices on its standard input, writes the pages of those finished games,
and writes the pickled list of their ``GameFacts`` on its standard output (see
``workers``). No module imports this one, so running it with ``-m`` finds it not yet
imported.
"""

from __future__ import annotations

import pickle
import sys

from referee.tournament.report.site import SiteBuilder


def main() -> None:
    """Read the job, write its game pages, answer with what the lists need of them."""
    job = pickle.load(sys.stdin.buffer)
    indices = pickle.load(sys.stdin.buffer)
    builder = SiteBuilder.for_pages(job)
    try:
        facts = builder.game_pages(indices)
    finally:
        builder.store.close()
    pickle.dump(facts, sys.stdout.buffer, protocol=pickle.HIGHEST_PROTOCOL)
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
