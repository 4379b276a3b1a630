"""Replaying recorded Gomoku games through the engine: the referee's own records (JSON) and
Piskvork ``.psq`` files, each checked move by move (``referee replay gomoku``).

A record must replay exactly: every move by the seat whose turn it was, legal, the one
recorded as illegal illegal (and the last), and the result the engine's (a five, a full
board, an early draw) or, after a fault, the offender's loss. A ``.psq`` file holds only
the stones (1-based, black first) and the players: each stone must be on an empty point
(not a forbidden point for black under renju), no stone may follow a five.
"""

from __future__ import annotations

from pathlib import Path

from referee.core.checking import record_checker, replay_record
from referee.core.record import GameRecord
from referee.games.gomoku.board import BLACK, MAX_SIZE, MIN_SIZE, Board, Rule
from referee.games.gomoku.game import Action, GomokuGame, Move, Stones, Swap
from referee.games.gomoku.protocol import parse_point
from referee.games.gomoku.psq import read_psq
from referee.games.gomoku.renju import RenjuJudge, forbidden

__all__ = ["check_file", "check_psq", "check_record"]



def check_file(path: Path, rule: Rule = Rule.FREESTYLE,
               judge: RenjuJudge = RenjuJudge.RIF) -> tuple[str, str]:
    """Check a record (``.json``) or a ``.psq`` file (the rule and judge are for ``.psq``,
    which does not say them): its format and a summary, or ``ValueError`` saying what is
    wrong."""
    if path.suffix.lower() == ".psq":
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise ValueError(f"cannot read: {exc.strerror or exc}") from None
        return "psq", check_psq(text, rule, judge)
    return record_checker(check_record)(path)


def parse_action(text: str) -> Action:
    """A recorded move (``x,y``, several points, ``SWAP``) as the engine's action."""
    text = text.strip()
    if text.upper() == "SWAP":
        return Swap()
    points = [parse_point(part) for part in text.split()]
    if not points or None in points:
        raise ValueError(f"{text!r} is not a move")
    clean = tuple(p for p in points if p is not None)
    return Move(*clean[0]) if len(clean) == 1 else Stones(clean)


def record_engine(record: GameRecord) -> GomokuGame:
    """A new engine set as ``record``'s game began (board, rule, opening, colours);
    ``ValueError`` if its settings do not describe a game."""
    settings = record.settings
    try:
        width = int(settings["width"])
        height = int(settings.get("height", width))
        rule = Rule.parse(str(settings.get("rule", "freestyle")))
        judge = RenjuJudge.parse(str(settings.get("renju_judge", "rif")))
        draw_at = int(settings.get("draw_at_empty", 0))
        swap2 = bool(settings.get("swap2", False))
        first = settings.get("swap2_first") if swap2 else settings.get("black")
        first = 0 if first is None else int(first)
        opening = [(int(p[0]), int(p[1])) for p in record.opening]
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ValueError(f"the settings do not describe a game: {exc}") from None
    if not (MIN_SIZE <= width <= MAX_SIZE and MIN_SIZE <= height <= MAX_SIZE):
        raise ValueError(f"the board {width}x{height} is outside {MIN_SIZE}..{MAX_SIZE}")
    return GomokuGame(width, height, rule, black_seat=first, opening=opening, swap2=swap2,
                      swap2_first=first, renju_judge=judge, draw_at_empty=draw_at)


def check_record(record: GameRecord) -> str:
    """Replay a Gomoku record (``core.checking.replay_record``): a summary, or
    ``ValueError`` naming the first move (or the result) the engine disagrees with."""
    if record.game != "gomoku":
        raise ValueError(f"a {record.game} record, not a gomoku one")
    return replay_record(record_engine(record), record, parse_action)


def check_psq(text: str, rule: Rule = Rule.FREESTYLE,
              judge: RenjuJudge = RenjuJudge.RIF) -> str:
    """Replay the stones of a ``.psq`` file under ``rule``: a summary, or ``ValueError``
    naming the first stone that cannot be played."""
    game = read_psq(text)
    board = Board(game.width, game.height, rule)
    five = None
    count = 0
    for stone in game.stones:
        number, x, y = stone.line, stone.x, stone.y
        count += 1
        color = board.to_move
        if five is not None:
            raise ValueError(f"line {number}: stone {count} follows the five of stone {five}")
        if not board.is_empty(x, y):
            where = "off the board" if not board.on_board(x, y) else "on a stone"
            raise ValueError(f"line {number}: stone {count} at {x + 1},{y + 1} is {where}")
        if rule is Rule.RENJU and color == BLACK:
            why = forbidden(board, x, y, judge)
            if why is not None:
                raise ValueError(f"line {number}: stone {count} at {x + 1},{y + 1} is a "
                                 f"forbidden point for black ({why.value})")
        if board.makes_win(x, y, color):
            five = count
        board.place(x, y, color)
    if count == 0:
        raise ValueError("no stones")
    if five is not None:
        return f"{count} stones, {'black' if five % 2 else 'white'} made five with stone {five}"
    return f"{count} stones, no five{' (the board is full)' if board.is_full() else ''}"
