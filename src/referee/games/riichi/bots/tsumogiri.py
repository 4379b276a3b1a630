"""The tsumogiri bot: wins when it can, otherwise discards the tile it drew; never calls.

Run as ``python -m referee.games.riichi.bots.tsumogiri`` (mjai on standard input/output).
"""

from __future__ import annotations

from typing import Any

from referee.games.riichi.bots.player import NONE, View, run

__all__ = ["main", "policy"]


def policy(view: View) -> dict[str, Any]:
    """Hora when possible; after its draw the drawn tile (a legal one when it must);
    ``none`` to every claim."""
    if view.decision == "tsumo":
        if view.can_tsumo():
            return view.hora()
        assert view.drawn is not None
        return view.dahai(view.drawn)
    if view.decision == "respond":
        return view.hora() if view.can_ron() else dict(NONE)
    allowed = view.discardable()
    if view.drawn is not None and view.drawn in allowed:
        return view.dahai(view.drawn)
    return view.dahai(allowed[0])


def main() -> int:
    """The bot as a program (mjai on standard input and output); its exit status."""
    return run(policy)


if __name__ == "__main__":
    raise SystemExit(main())
