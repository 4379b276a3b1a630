"""The tile-table frames of a Riichi replay (:mod:`referee.core.replay`'s ``tiles``
schema): each seat's hand, drawn tile, melds and pond, the dora indicators, the round,
honba, sticks and live wall, and how each hand ended.

:class:`RiichiFrames` reads a :class:`~referee.games.riichi.rules.RiichiGame` that the
replay plays move by move (:func:`referee.games.riichi.adapter.riichi_replay`): the
table is the engine's state, and what the state does not keep (which discard declared
riichi, which went out as drawn, the wins' yaku) comes from the engine's own mjai events.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.core.replay import tile_row
from referee.games.riichi.rules import SEATS, WIND_NAMES, RiichiGame, RiichiKyoku

__all__ = ["INFO_LABELS", "RiichiFrames", "tile_code"]

INFO_LABELS = ("Round", "Honba", "Riichi sticks", "Wall")
"""What a frame's ``"i"`` values are."""
ROUNDS = ("East", "South", "West", "North")
DRAWS = {"fanpai": "exhaustive draw", "nagashimangan": "nagashi mangan",
         "kyushukyuhai": "nine terminals (abortive draw)",
         "sufonrenta": "four winds (abortive draw)", "sukaikan": "four kans (abortive draw)",
         "suchareach": "four riichi (abortive draw)", "sanchaho": "triple ron (abortive draw)"}
"""How a ``ryukyoku`` reason reads."""


def tile_code(name: str) -> str:
    """The neutral tile code of an mjai tile name (``5mr`` -> ``0m``, ``E`` -> ``E``)."""
    return "0" + name[1] if name.endswith("r") else name


@dataclass
class _HandMarks:
    """What one hand's events tell beyond the engine's state."""

    riichi_at: list[int] = field(default_factory=lambda: [-1] * SEATS)
    """Per seat, the index in its river of its riichi declaration tile (-1: none)."""
    declaring: set[int] = field(default_factory=set)
    tsumogiri: list[list[bool]] = field(default_factory=lambda: [[] for _ in range(SEATS)])
    ends: list[Mapping[str, Any]] = field(default_factory=list)
    """The ``hora`` and ``ryukyoku`` events that ended the hand."""


class RiichiFrames:
    """The frames of one game, built as the replay plays it: call :meth:`frame` once the
    game stands where a frame is wanted, with the hand that move was played in."""

    def __init__(self, game: RiichiGame, names: Sequence[str]) -> None:
        self.game = game
        self.names = list(names)
        self._seen = 0
        self._hands: list[_HandMarks] = []

    def info(self) -> dict[str, Any]:
        """The ``frame_info`` of the replay."""
        return {"names": self.names, "info": list(INFO_LABELS)}

    def _read_events(self) -> None:
        events = self.game.events
        for event in events[self._seen:]:
            kind = event.get("type")
            if kind == "start_kyoku":
                self._hands.append(_HandMarks())
                continue
            if not self._hands:
                continue
            marks = self._hands[-1]
            if kind == "reach":
                marks.declaring.add(event["actor"])
            elif kind == "dahai":
                seat = event["actor"]
                marks.tsumogiri[seat].append(bool(event.get("tsumogiri")))
                if seat in marks.declaring:
                    marks.declaring.discard(seat)
                    marks.riichi_at[seat] = len(marks.tsumogiri[seat]) - 1
            elif kind in ("hora", "ryukyoku"):
                marks.ends.append(event)
        self._seen = len(events)

    def frame(self, kyoku: RiichiKyoku | None = None, actor: int = -1) -> dict[str, Any]:
        """The table of ``kyoku`` (default: the hand in play) now; ``actor`` the seat that
        just moved (-1: none)."""
        self._read_events()
        game = self.game
        shown = kyoku if kyoku is not None else game.kyoku
        assert shown is not None and self._hands
        index = len(self._hands) - 1 - (shown is not game.kyoku)
        marks = self._hands[index]
        names = shown.names

        def row(tiles: Sequence[int]) -> str:
            return tile_row(tile_code(names[t]) for t in tiles)

        won = {e["actor"]: e for e in marks.ends if e.get("type") == "hora"}
        seats = []
        for s in range(SEATS):
            tiles = list(shown.hands[s])
            drawn = ""
            if s in won:
                win = won[s]
                if win["actor"] == win["target"] and shown.drawn in tiles:  # tsumo
                    tiles.remove(shown.drawn)
                drawn = tile_code(str(win["pai"]))
            elif shown.drawn is not None and s == shown.actor \
                    and shown.phase in ("tsumo", "reach") and shown.drawn in tiles:
                tiles.remove(shown.drawn)
                drawn = tile_code(names[shown.drawn])
            melds = [[m.type.value, row(m.tiles),
                      m.tiles.index(m.taken) if m.taken in m.tiles else -1,
                      -1 if m.target is None else m.target] for m in shown.melds[s]]
            river = shown.rivers[s]
            flags = marks.tsumogiri[s] if len(marks.tsumogiri[s]) == len(river) else []
            latest = len(river) - 1 if river and shown.last_discard == (s, river[-1]) else -1
            pond = "".join(
                tile_code(names[t]) + ("*" if i == marks.riichi_at[s] else "")
                + ("^" if t in shown.called else "") + ("." if flags and flags[i] else "")
                + ("!" if i == latest else "") for i, t in enumerate(river))
            seats.append([WIND_NAMES[(s - shown.oya) % SEATS], shown.scores[s],
                          row(sorted(tiles)), drawn, melds, pond, int(shown.riichi[s]), ""])
        tiles_shown = [["Dora", row(shown.dora)]]
        frame: dict[str, Any] = {
            "i": [f"{ROUNDS[shown.bakaze % 4]} {shown.kyoku}", shown.honba, shown.kyotaku,
                  shown.source.live_left()],
            "a": actor, "s": seats}
        if shown.result is not None:
            ura = [tile_code(str(n)) for e in won.values() for n in e.get("ura_markers", ())]
            if ura:
                tiles_shown.append(["Ura dora", tile_row(ura)])
            frame["x"] = self._result(shown, marks)
        frame["g"] = tiles_shown
        return frame

    def _result(self, kyoku: RiichiKyoku, marks: _HandMarks) -> dict[str, Any]:
        """The result block of a hand that is over."""
        result = kyoku.result
        assert result is not None
        names = self.names
        lines: list[str] = []
        heads: list[str] = []
        for event in marks.ends:
            if event.get("type") == "hora":
                actor, target = event["actor"], event["target"]
                how = "tsumo" if actor == target else f"ron on {names[target]}'s discard"
                heads.append(f"{names[actor]} wins ({how})")
                if len(marks.ends) > 1:
                    lines.append(f"{names[actor]}:")
                lines.extend(f"{name} {han} han" for name, han in event.get("yakus", ()))
                fu = f"{event['fu']} fu " if event.get("fu") else ""
                lines.append(f"{fu}{event.get('fan', 0)} han: {event.get('hora_points', 0)} "
                             "points")
            else:
                reason = str(event.get("reason"))
                tenpai = [names[s] for s, ready in enumerate(event.get("tenpais") or ())
                          if ready]
                heads.append(f"Draw: {DRAWS.get(reason, reason)}")
                if reason in ("fanpai", "nagashimangan"):
                    lines.append("tenpai: " + (", ".join(tenpai) if tenpai else "nobody"))
        return {"h": "; ".join(heads) or result.reason, "l": lines,
                "d": list(result.deltas)}

    def game_end(self, frame: dict[str, Any]) -> dict[str, Any]:
        """``frame`` with the game's final result added to its result block."""
        finals = self.game.final_scores()
        lines = [f"{f.rank}. {self.names[s]}: {f.points} points, final {f.score:+.1f}"
                 for s, f in sorted(enumerate(finals), key=lambda sf: sf[1].rank)]
        old = frame.get("x") or {"h": "Game over", "l": [], "d": [0] * SEATS}
        return {**frame, "x": {**old, "l": [*old["l"], "Game over:", *lines]}}
