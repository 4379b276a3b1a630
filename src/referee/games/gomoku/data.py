"""Gomoku's training data (``referee dataset gomoku``): records and ``.psq`` games replayed
through the engine and the environment (``env.py``), one row per move.

A ``.psq`` file (Piskvork, Gomocup) has no rule and no result in it: its stones are
replayed under ``freestyle`` and the result is the engine's (a five, or a full board);
a game that stops before either is skipped as having no result.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from referee.core.decisions import Decision, Position, replayed_position
from referee.core.outcome import Outcome
from referee.core.record import GameRecord, PlayerInfo
from referee.games.gomoku.board import BLACK
from referee.games.gomoku.check import parse_action, record_engine
from referee.games.gomoku.env import GomokuEnvGame
from referee.games.gomoku.game import Action, GomokuGame, Move
from referee.games.gomoku.psq import read_psq

__all__ = ["DATA", "GomokuData", "psq_record"]



class GomokuData:
    """Gomoku for ``training.dataset``."""

    name = "gomoku"

    def __init__(self) -> None:
        self._games: dict[tuple[int, int, str, str], GomokuEnvGame] = {}

    def _env_game(self, engine: GomokuGame) -> GomokuEnvGame:
        board = engine.board
        key = (board.width, board.height, engine.rule.name, engine.renju_judge.name)
        game = self._games.get(key)
        if game is None:
            game = GomokuEnvGame(board.width, board.height, engine.rule, engine.renju_judge)
            self._games[key] = game
        return game

    def layout(self, record: GameRecord) -> tuple[tuple[int, ...], int, float, str]:
        """The environment's layout for the record's board, and its rule and size."""
        engine = record_engine(record)
        game = self._env_game(engine)
        variant = f"{engine.rule.name.lower()} {game.width}x{game.height}"
        return game.observation_shape, game.actions, game.observation_high, variant

    def decisions(self, record: GameRecord) -> Iterator[Decision]:
        """Each move after the opening, as the environment saw it, its ``agent`` the
        environment's seat of its colour (``player_0`` plays black; the record's seat 0
        may play white). Swap2 choices (which the environment does not have) and a move
        recorded as illegal end the game's rows; a move the engine finds illegal but the
        record does not is a ``ValueError``."""
        engine = record_engine(record)
        game = self._env_game(engine)
        for k, move in enumerate(record.moves, start=1):
            seat = engine.to_play()
            if seat is None or move.seat != seat:
                raise ValueError(f"move {k} ({move.move}) is not the seat to play's")
            action = _move(move.move)
            if not isinstance(action, Move) or move.info.get("illegal"):
                return  # swap2's choices, or the move that lost the game: no row
            mask = game.legal_mask(engine, seat)
            index = action.y * game.width + action.x
            if not (0 <= action.x < game.width and 0 <= action.y < game.height
                    and mask[index]):
                raise ValueError(f"move {k} ({move.move}) is not legal: "
                                 f"{engine.illegal_reason(seat, action)}")
            agent = 0 if engine.color_of(seat) == BLACK else 1  # the env's: black first
            yield Decision(seat, game.observe_bytes(engine, seat), mask, index, agent)
            engine.apply(seat, action)

    def position(self, record: GameRecord, ply: int) -> Position:
        """Where decision ``ply`` was taken: the record's game on an engine of the
        environment's seats (black is ``player_0``), played up to it."""
        start = record_engine(record)
        board = start.board
        engine = GomokuGame(board.width, board.height, start.rule, opening=list(board.moves),
                            renju_judge=start.renju_judge, draw_at_empty=start.draw_at_empty)
        return replayed_position(self._env_game(start), engine, self.decisions(record), ply)

    def foreign_records(self, path: Path) -> Iterator[GameRecord] | None:
        """The game of a ``.psq`` file (``None`` for other files)."""
        if path.suffix.lower() != ".psq":
            return None
        return iter([psq_record(path.read_text(encoding="utf-8", errors="replace"),
                                str(path))])


def _move(text: str) -> Action:
    """A recorded move: ``x,y`` parsed at once (the common case), else as the replay
    check parses it (swap2 stones, ``SWAP``)."""
    x, comma, y = text.partition(",")
    if comma and x.isdigit() and y.isdigit():
        return Move(int(x), int(y))
    return parse_action(text)


def psq_record(text: str, source: str = "psq") -> GameRecord:
    """A ``.psq`` game as a record (freestyle; the result the engine's); ``ValueError``
    says what is wrong with it."""
    game = read_psq(text)
    engine = GomokuGame(game.width, game.height)
    record = GameRecord("gomoku", [PlayerInfo("black"), PlayerInfo("white")],
                        settings={"width": game.width, "height": game.height,
                                  "rule": "freestyle", "source": source})
    for stone in game.stones:
        seat = engine.to_play()
        if seat is None:
            raise ValueError(f"line {stone.line}: a stone after the end of the game")
        move = Move(stone.x, stone.y)
        why = engine.illegal_reason(seat, move)
        if why is not None:
            raise ValueError(f"line {stone.line}: {why}")
        engine.apply(seat, move)
        record.add_move(seat, f"{stone.x},{stone.y}", stone.ms / 1000)
    names = [line.strip() for line in game.after[:2]  # the brains, then a result code
             if line.strip() and not line.strip().lstrip("-").isdigit()]
    for seat, name in enumerate(names[:2]):
        record.players[seat] = PlayerInfo(name)
    if engine.to_play() is not None:
        raise ValueError("the game has no result (no five, and the board is not full)")
    record.scores = [float(s) for s in engine.scores()]
    record.outcome = Outcome.NORMAL
    record.reason = engine.end_reason()
    return record


DATA = GomokuData()
"""Gomoku's dataset maker (the registry's ``data`` entry)."""
