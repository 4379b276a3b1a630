"""The greedy bot: wins when it can, discards toward the lowest shanten and the most
tile acceptance, declares riichi when tenpai and closed, calls pon and chi only for
yakuhai or a tanyao hand that gets closer, and folds (genbutsu, then honors) against a
riichi when it is two or more steps away.

Run as ``python -m referee.games.riichi.bots.greedy`` (mjai on standard input/output).
"""

from __future__ import annotations

from typing import Any

from referee.games.riichi.bots.player import NONE, View, kind, run, shanten, ukeire
from referee.games.riichi.tiles import parse_mjai

__all__ = ["main", "policy"]

_DRAGONS = frozenset({31, 32, 33})


def _simple(k: int) -> bool:
    return k < 27 and 0 < k % 9 < 8


def _rank(view: View, names: list[str], counts: list[int], melds: int
          ) -> list[tuple[int, int, int, str]]:
    """Each candidate discard as (shanten, -acceptance, keep-value, name), best first."""
    out = []
    levels: dict[int, int] = {}
    for name in names:
        k = kind(name)
        if k not in levels:
            counts[k] -= 1
            levels[k] = shanten(counts, melds)
            counts[k] += 1
    lowest = min(levels.values())
    accept: dict[int, int] = {}
    for k, sh in levels.items():  # acceptance only decides among the lowest shanten
        if sh == lowest:
            counts[k] -= 1
            accept[k] = ukeire(counts, melds, view.seen)
            counts[k] += 1
    for name in names:
        k = kind(name)
        sh, acc = levels[k], accept.get(k, 0)
        value = (1 if name.endswith("r") else 0) + (0 if k >= 27 else 1)
        out.append((sh, -acc, value, name))
    out.sort(key=lambda x: (x[0], x[1], x[2], parse_mjai(x[3])))
    return out


def _safe(view: View, names: list[str]) -> list[str]:
    """Genbutsu against every riichi player, then honors."""
    threats = [s for s in range(4) if s != view.seat and view.riichi[s]]
    genbutsu = [n for n in names
                if all(kind(n) in view.discards[s] for s in threats)]
    return genbutsu or [n for n in names if kind(n) >= 27]


def _discard(view: View) -> dict[str, Any]:
    names = view.discardable()
    counts = view.counts
    melds = len(view.melds)
    ranked = _rank(view, names, counts, melds)
    best = ranked[0]
    if best[0] >= 2 and any(view.riichi[s] for s in range(4) if s != view.seat):
        safe = _safe(view, names)
        if safe:
            pick = next(r for r in ranked if r[3] in safe)
            return view.dahai(pick[3])
    name = best[3]
    if view.drawn is not None and kind(view.drawn) == kind(name) and \
            view.drawn in names and view.decision != "call":
        name = view.drawn
    return view.dahai(name)


def _yakuhai(view: View, k: int) -> bool:
    return k in _DRAGONS or k == 27 + view.bakaze or k == 27 + (view.seat - view.oya) % 4


def _call_gain(view: View, call: dict[str, Any]) -> bool:
    """Whether the call is worth it: yakuhai pon, or tanyao kept and shanten lowered."""
    counts = view.counts
    melds = len(view.melds)
    before = shanten(counts, melds)
    k = kind(call["pai"])
    if call["type"] == "pon" and _yakuhai(view, k):
        return True
    kinds = [k, *(kind(n) for n in call["consumed"])]
    if not all(_simple(x) for x in kinds):
        return False
    if not all(_simple(kind(n)) for _, tiles in view.melds for n in tiles):
        return False
    if sum(1 for n in view.hand if not _simple(kind(n))) > 1:
        return False
    for n in call["consumed"]:
        counts[kind(n)] -= 1
    after = min((shanten([c - (i == d) for i, c in enumerate(counts)], melds + 1)
                 for d in range(34) if counts[d] and d != k), default=99)
    return after < before


def policy(view: View) -> dict[str, Any]:
    """The greedy decision for the view's decision."""
    if view.decision == "tsumo":
        if view.can_tsumo():
            return view.hora()
        if view.riichi[view.seat]:
            assert view.drawn is not None
            return view.dahai(view.drawn)
        if view.can_reach():
            counts = view.counts
            if min(shanten([c - (i == d) for i, c in enumerate(counts)], 0)
                   for d in range(34) if counts[d]) == 0:
                threat = any(view.riichi[s] for s in range(4) if s != view.seat)
                if not threat or view.live > 20:
                    return {"type": "reach", "actor": view.seat}
        return _discard(view)
    if view.decision in ("reach", "call"):
        return _discard(view)
    if view.decision == "respond":
        if view.can_ron():
            return view.hora()
        for call in view.pon_options() + view.chi_options():
            if _call_gain(view, call):
                return call
    return dict(NONE)


def main() -> int:
    """The bot as a program (mjai on standard input and output); its exit status."""
    return run(policy)


if __name__ == "__main__":
    raise SystemExit(main())
