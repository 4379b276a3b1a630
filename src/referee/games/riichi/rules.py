"""Four-player Riichi mahjong, the rules engine of one hand (kyoku) and of a game: its
public face.

Pure and deterministic: no I/O, no clocks. The engine asks questions and applies answers
at the decision points a real mjai client is offered; every action and result is an mjai
event dict. This module only gathers the engine's public names, for code outside the
engine (``from referee.games.riichi.rules import RiichiGame, RiichiRules, Action``); each
lives in a module with one job:

- :mod:`~referee.games.riichi.settings`: :class:`RiichiRules` (the rule settings, Tenhou's
  ranked rules by default, and the room presets :meth:`RiichiRules.tenhou`,
  :meth:`RiichiRules.mahjong_soul`), ``SEATS``, ``WIND_NAMES``.
- :mod:`~referee.games.riichi.actions`: :class:`Action` (a seat's answer, mjai-shaped),
  :func:`action_from_mjai`, :func:`action_to_mjai`.
- :mod:`~referee.games.riichi.walls`: :class:`TileSource`, :class:`SeededWall`,
  :class:`ScriptedWall`, :func:`hand_seed` (where a hand's tiles come from) and
  :class:`Deal` (how a hand starts).
- :mod:`~referee.games.riichi.state`: a hand's state, :class:`KyokuResult` (how a hand
  ended) and ``Evaluator`` (the hand-value function's type).
- :mod:`~referee.games.riichi.options`: what each seat may do (the legal actions).
- :mod:`~referee.games.riichi.settle`: wins, draws and payments, :class:`FinalScore`
  (a game's final result).
- :mod:`~referee.games.riichi.kyoku`: :class:`RiichiKyoku`, one hand's state machine
  (draws, discards, calls, claims); its docstring tells the rule choices.
- :mod:`~referee.games.riichi.game`: :class:`RiichiGame` (hands chained into a game) and
  :class:`Position` (where a game stands between hands).
"""

from __future__ import annotations

from referee.games.riichi.actions import Action, action_from_mjai, action_to_mjai
from referee.games.riichi.game import Position, RiichiGame
from referee.games.riichi.kyoku import RiichiKyoku
from referee.games.riichi.settings import SEATS, WIND_NAMES, RiichiRules
from referee.games.riichi.settle import FinalScore
from referee.games.riichi.state import Evaluator, KyokuResult
from referee.games.riichi.walls import Deal, ScriptedWall, SeededWall, TileSource, hand_seed

__all__ = [
    "SEATS",
    "WIND_NAMES",
    "Action",
    "Deal",
    "Evaluator",
    "FinalScore",
    "KyokuResult",
    "Position",
    "RiichiGame",
    "RiichiKyoku",
    "RiichiRules",
    "ScriptedWall",
    "SeededWall",
    "TileSource",
    "action_from_mjai",
    "action_to_mjai",
    "hand_seed",
]
