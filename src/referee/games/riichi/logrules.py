"""The rules a Riichi log was played under: recorded in it, given, or guessed from it.

The referee's own logs record their rules in ``start_game`` (:func:`start_game_event`):
``rules``, every field of :class:`~referee.games.riichi.rules.RiichiRules`
(:func:`~referee.games.riichi.rulesets.rules_to_dict`), beside ``kyoku_first`` (0
east-south, 4 east only) and ``aka_flag`` (red fives), the fields Mortal and mjai-reviewer
write. :func:`recorded_rules` reads them back.

:func:`rules_for` decides the rules of a replay: the rules given (a command line's, or
those the log's format records), else those the log records, else Tenhou's with the game
length guessed (:func:`guess_game_length`). In every case red fives follow the log when it
tells: a red five anywhere means red fives, four plain fives of a suit in one kyoku none,
else ``start_game``'s ``aka_flag``.

The guess: ``kyoku_first`` when the log gives it; else a log that does not end the game, or
reaches the West or North wind, is a south game; a game that ends with a player below zero
after its last hand ended by busting, which says nothing of its length: a south game (the
usual length); a game that ends in the East round, or in South 1-3, otherwise is an east
game (an east game's sudden-death extension); one that ends in South 4 is a south game,
unless nobody has the points to end it there (the target, 30,000 on Tenhou): a south game
would go on into the West round, while an east game's extension ends at South 4 whatever
the points.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from referee.games.riichi.mjai import MjaiError
from referee.games.riichi.rules import RiichiRules
from referee.games.riichi.rulesets import RulesError, rules_from_dict, rules_to_dict

__all__ = ["guess_game_length", "kyoku_end", "last_hand_scores", "recorded_rules",
           "rules_for", "start_game_event", "wall_tiles"]

_KANS: Final = frozenset({"daiminkan", "ankan", "kakan"})
_FIVES: Final = ("5m", "5p", "5s")


def start_game_event(names: Sequence[str], rules: RiichiRules) -> dict[str, Any]:
    """The ``start_game`` of a log of ours: the players' names and the rules played."""
    return {"type": "start_game", "names": list(names),
            "kyoku_first": 4 if rules.game_length == "east" else 0,
            "aka_flag": rules.red_fives, "rules": rules_to_dict(rules)}


def recorded_rules(start: Mapping[str, Any], source: str | None = None) -> RiichiRules | None:
    """The rules a ``start_game`` records in ``rules`` (None when it records none); an
    :class:`~referee.games.riichi.mjai.MjaiError` naming the bad setting otherwise."""
    obj = start.get("rules")
    if obj is None:
        return None
    try:
        return rules_from_dict(obj, "the rules recorded")
    except RulesError as exc:
        raise MjaiError(str(exc), source=source, where="start_game") from None


def kyoku_end(log: Sequence[Mapping[str, Any]], start: int) -> int:
    """Where the kyoku of the ``start_kyoku`` at ``start`` ends: at the next kyoku or game
    event, or the end of the log."""
    end = start + 1
    while end < len(log) and log[end]["type"] not in ("start_kyoku", "start_game", "end_game"):
        end += 1
    return end


def wall_tiles(log: Sequence[Mapping[str, Any]], start: int,
               end: int) -> list[tuple[int, str, str]]:
    """Every tile a kyoku takes from the wall, as (event index, role, mjai name); roles:
    ``hand0``..``hand3``, ``dora`` (the first indicator and the kans'), ``draw``,
    ``rinshan``, ``ura``."""
    head = log[start]
    out = [(start, f"hand{seat}", name) for seat, hand in enumerate(head["tehais"])
           for name in hand]
    out.append((start, "dora", head["dora_marker"]))
    kanned: set[int] = set()
    ura = False
    for i in range(start + 1, end):
        event = log[i]
        kind = event["type"]
        if kind == "tsumo":
            actor = event["actor"]
            out.append((i, "rinshan" if actor in kanned else "draw", event["pai"]))
            kanned.discard(actor)
        elif kind in _KANS:
            kanned.add(event["actor"])
        elif kind == "dora":
            out.append((i, "dora", event["dora_marker"]))
        elif kind == "hora" and not ura:
            markers = event.get("ura_markers") or event.get("uradora_markers")
            if markers:
                out.extend((i, "ura", name) for name in markers)
                ura = True
    return out


def rules_for(log: Sequence[Mapping[str, Any]], rules: RiichiRules | None,
              source: str | None = None) -> RiichiRules:
    """The rules to replay ``log`` with (see the module notes)."""
    start = log[0] if log and log[0]["type"] == "start_game" else {}
    recorded = recorded_rules(start, source) if rules is None else None
    base = rules or recorded or RiichiRules()
    red: bool | None = None
    plain_four = False
    for i in (i for i, e in enumerate(log) if e["type"] == "start_kyoku"):
        names = Counter(name for _, _, name in wall_tiles(log, i, kyoku_end(log, i)))
        if any(name.endswith("r") for name in names):
            red = True
            break
        plain_four = plain_four or any(names[f] >= 4 for f in _FIVES)
    if red is None:
        red = False if plain_four else start.get("aka_flag", base.red_fives)
    changes: dict[str, Any] = {}
    if red != base.red_fives:
        changes["red_fives"] = red
    if rules is None and recorded is None:
        length = guess_game_length(log, start.get("kyoku_first"), base.target)
        if length != base.game_length:
            changes["game_length"] = length
    return replace(base, **changes) if changes else base


def last_hand_scores(log: Sequence[Mapping[str, Any]]) -> list[int] | None:
    """The scores after the log's last hand: its ``start_kyoku`` scores, less 1000 for
    each riichi accepted, plus every win's or draw's deltas; else the last scores an event
    of that hand records; None when the log says neither."""
    starts = [i for i, e in enumerate(log) if e["type"] == "start_kyoku"]
    if not starts:
        return None
    first = starts[-1]
    events = log[first + 1:kyoku_end(log, first)]
    scores = log[first].get("scores")
    if scores is not None:
        out = list(scores)
        for event in events:
            kind = event["type"]
            if kind == "reach_accepted":
                out[event["actor"]] -= 1000
            elif kind in ("hora", "ryukyoku") and event.get("deltas") is not None:
                out = [s + d for s, d in zip(out, event["deltas"], strict=True)]
        return out
    recorded = [e["scores"] for e in events if e.get("scores") is not None]
    return list(recorded[-1]) if recorded else None


def guess_game_length(log: Sequence[Mapping[str, Any]], kyoku_first: Any,
                      target: int = 30000) -> str:
    """``east`` or ``south``: ``kyoku_first`` when given, else guessed from the log's last
    kyoku and scores (see the module notes); ``target``: the points first place needs for
    a south game to end after South 4."""
    if kyoku_first in (0, 4):
        return "east" if kyoku_first == 4 else "south"
    winds = [(e["bakaze"], e["kyoku"]) for e in log if e["type"] == "start_kyoku"]
    ended = any(e["type"] == "end_game" for e in log)
    if not winds or not ended or any(w in ("W", "N") for w, _ in winds):
        return "south"
    scores = last_hand_scores(log)
    if scores is not None and min(scores) < 0:
        return "south"  # ended by busting: the length does not show
    wind, number = winds[-1]
    if wind == "E" or (wind == "S" and number < 4):
        return "east"
    if scores is not None and max(scores) < target:
        return "east"  # a south game cannot end in South 4 with nobody at the target
    return "south"
