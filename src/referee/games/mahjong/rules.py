"""Taiwanese 16-tile Mahjong as the ICGA framework plays it, the rules engine of one hand
and of a game of hands: its public face.

Pure and deterministic: a hand is played from a wall made from a seed, and the engine
only asks questions and applies answers. This module only gathers the engine's public
names, for code outside the engine (``from referee.games.mahjong.rules import
MahjongGame, Rules``); each lives in a module with one job:

- :mod:`~referee.games.mahjong.actions`: what a seat is asked and may answer: :class:`Ask`,
  the answers (``Action``: :class:`Throw`, :class:`Eat`, :class:`Pong`, :class:`Kong`,
  :class:`ConcealedKong`, :class:`PromotedKong`, :class:`Hu`, :class:`Pass`),
  :func:`notation` (an answer in the client's words), :func:`tiles_of`,
  :func:`options`, :func:`chows`, :func:`self_kongs` (the answers to a question) and
  :class:`SeatView` (one seat's knowledge, the bots' input).
- :mod:`~referee.games.mahjong.engine`: one hand: :class:`MahjongHand` (deal, questions,
  claims, kongs, draws, the end; its docstring tells how a hand goes), :class:`Rules`,
  :class:`Event`, :class:`Question`, :class:`HandResult`.
- :mod:`~referee.games.mahjong.game`: :class:`MahjongGame` (hands, dealer, totals) and
  :func:`hand_seed` (each hand's wall seed).
"""

from __future__ import annotations

from referee.games.mahjong.actions import (
    Action,
    Ask,
    ConcealedKong,
    Eat,
    Hu,
    Kong,
    Pass,
    Pong,
    PromotedKong,
    SeatView,
    Throw,
    chows,
    notation,
    options,
    self_kongs,
    tiles_of,
)
from referee.games.mahjong.engine import Event, HandResult, MahjongHand, Question, Rules
from referee.games.mahjong.game import MahjongGame, hand_seed

__all__ = [
    "Action",
    "Ask",
    "ConcealedKong",
    "Eat",
    "Event",
    "HandResult",
    "Hu",
    "Kong",
    "MahjongGame",
    "MahjongHand",
    "Pass",
    "Pong",
    "PromotedKong",
    "Question",
    "Rules",
    "SeatView",
    "Throw",
    "chows",
    "hand_seed",
    "notation",
    "options",
    "self_kongs",
    "tiles_of",
]
