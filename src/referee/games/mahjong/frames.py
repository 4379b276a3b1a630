"""The tile-table frames of an ICGA Mahjong replay (:mod:`referee.core.replay`'s
``tiles`` schema), read from the engine's state as the replay plays the record
(:func:`referee.games.mahjong.adapter.mahjong_replay`): each seat's hand, drawn tile,
melds, discards and flowers, its wind and points, the hand number, round wind and the
tiles left, and each hand's win with its tai and payments.

Tile codes: Wan (characters) ``1m``..``9m``, Tong (dots) ``1p``..``9p``, Tiao (bamboo)
``1s``..``9s``, the winds ``E S W N``, the dragons red ``C``, green ``F``, white ``P``,
the flowers ``f1``..``f8`` (spring .. bamboo, the TIDs 10 .. 80).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from referee.core.replay import tile_row
from referee.games.mahjong.engine import SEATS, MahjongHand
from referee.games.mahjong.game import MahjongGame
from referee.games.mahjong.tiles import ALL_TILES, tile_name

__all__ = ["INFO_LABELS", "game_frame", "tile_code"]

INFO_LABELS = ("Hand", "Round wind", "Wall")
"""What a frame's ``"i"`` values are."""
_WINDS = "ESWN"
_ROUNDS = ("East", "South", "West", "North")
_SUITS = "msp"
"""Suit letters by the engine's kinds: Wan, Tiao, Tong."""
_HONORS = ("E", "S", "W", "N", "C", "F", "P")
"""Honor kinds 27..33 (East, South, West, North, Red, Green, White) as codes."""


_CODES = {tid: tile_name(tid, _SUITS, _HONORS, "f") for tid in ALL_TILES}


def tile_code(tid: int) -> str:
    """The neutral tile code of a TID (``150`` -> ``5m``, ``410`` -> ``E``, ``30`` ->
    ``f3``)."""
    return _CODES[tid]


def _row(tiles: Iterable[int]) -> str:
    return tile_row(_CODES[t] for t in tiles)


def _won_on(hand: MahjongHand) -> int | None:
    """The winning tile of a hand won on a tile (None: not won, or won on flowers)."""
    for event in reversed(hand.events):
        if event.kind == "hu":
            return event.claimed
    return None


def frame_info(names: Sequence[str]) -> dict[str, Any]:
    """The ``frame_info`` of a replay."""
    return {"names": list(names), "info": list(INFO_LABELS)}


def game_frame(game: MahjongGame, names: Sequence[str], actor: int = -1) -> dict[str, Any]:
    """The table of the game's hand in play (or just over) now; ``actor`` the seat that
    just answered (-1: none). Points are the game's totals, the hand's payments included
    once it is over."""
    hand = game.hand
    result = hand.result
    totals = list(game.totals)
    if result is not None and len(game.results) <= game.number:  # not counted yet
        totals = [t + p for t, p in zip(totals, result.payments, strict=True)]
    win_tile = _won_on(hand) if result is not None else None
    seats = []
    for s in range(SEATS):
        tiles = list(hand.hands[s])
        drawn: int | None = None
        if result is not None:
            if s == result.winner and win_tile is not None and win_tile in tiles:
                drawn = win_tile
        elif s == hand.turn and hand.drawn is not None and hand.drawn in tiles:
            drawn = hand.drawn
        if drawn is not None:
            tiles.remove(drawn)
        melds = [[m.kind.value, _row(m.tiles),
                  m.tiles.index(m.claimed) if m.claimed in m.tiles else -1,
                  -1 if m.source is None else m.source] for m in hand.melds[s]]
        pond = _row(hand.discards[s])
        if hand.discard is not None and hand.discard[0] == s:  # open to claims
            pond += "!"
        seats.append([_WINDS[(s - hand.dealer) % SEATS], totals[s], _row(sorted(tiles)),
                      "" if drawn is None else _CODES[drawn], melds, pond, 0,
                      _row(hand.flowers[s])])
    frame: dict[str, Any] = {
        "i": [f"{game.number + 1}/{game.rules.hands}", _ROUNDS[hand.round_wind % 4],
              max(hand.live, 0)],
        "a": actor, "s": seats}
    if result is not None:
        if result.winner is None:
            head = "Draw: " + result.reason.removeprefix("drawn: ")
        else:
            how = (f"on {names[result.discarder]}'s tile" if result.discarder is not None
                   else "self-drawn")
            if "flower" in result.reason:
                how = ("on all eight flowers" if result.discarder is None else
                       f"on seven flowers, robbing {names[result.discarder]}'s eighth")
            head = f"{names[result.winner]} wins ({how})"
        lines = []
        if result.score is not None:
            lines = [f"{name.replace('_', ' ')} {tai} tai" for name, tai in
                     result.score.patterns]
            gain = "" if result.winner is None else f": {result.payments[result.winner]} points"
            lines.append(f"{result.score.total_tai} tai{gain}")
        frame["x"] = {"h": head, "l": lines, "d": list(result.payments)}
    return frame
