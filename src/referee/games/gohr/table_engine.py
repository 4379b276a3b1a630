"""A series of GOHR episodes as one game of the generic loop (``core.match.Engine``): the
game a web table plays, a record replays and the table's programs are driven through.

One seat (seat 0) plays ``boards`` one after the other under one rule set, as a captive
server session plays episodes: each is an ``engine.Episode``. The seat's actions are the
captive server's commands that change the game, written in its own notation in the
record: ``MOVE id bucket`` (an attempt: accepted, denied or immovable, all legal: the
player learns the rule by them), ``NEW`` (give up the board, or go on once it is over)
and ``EXIT`` (stop: the boards not played are not). A board is over once it is cleared,
in stalemate, or after ``max_moves`` attempts (the table's limit; 0: none); the next
board then waits for ``NEW``; after the last board the game is over.

The score is the share of the attempts that were accepted, over the whole game (1.0: no
mistake; 0 with no attempt, or when the player forfeits).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.games.gohr.board import BUCKETS, Board
from referee.games.gohr.engine import Code, Episode, Finish
from referee.games.gohr.ruleset import RuleSet

__all__ = ["Attempt", "Exit", "GohrSeries", "NextBoard", "Shown", "parse_action"]


@dataclass(frozen=True)
class Attempt:
    """``MOVE piece bucket``: try to move a piece into a bucket."""

    piece: int
    bucket: int


@dataclass(frozen=True)
class NextBoard:
    """``NEW``: give up the board being played, or start the next once it is over."""


@dataclass(frozen=True)
class Exit:
    """``EXIT``: stop playing (the boards not played yet are not played)."""


Action = Attempt | NextBoard | Exit


@dataclass(frozen=True)
class Shown:
    """The last attempt, as the board shows its answer: the piece (as it was), the bucket,
    the response code."""

    piece: dict[str, Any]
    bucket: int
    code: Code


@dataclass(frozen=True)
class BoardResult:
    """How one board went: its pieces, the attempts, the pieces removed, how it ended
    (``cleared``, ``stalemate``, ``limit``, ``given up``, ``stopped``)."""

    pieces: int
    attempts: int
    accepted: int
    end: str


def parse_action(text: str) -> Action:
    """A recorded action (``MOVE id bucket``, ``NEW``, ``EXIT``); ``ValueError`` if it is
    none of them."""
    words = text.split()
    if words == ["NEW"]:
        return NextBoard()
    if words == ["EXIT"]:
        return Exit()
    if len(words) == 3 and words[0] == "MOVE" and all(w.isdecimal() and len(w) < 10
                                                     for w in words[1:]):
        return Attempt(int(words[1]), int(words[2]))
    raise ValueError(f"{text[:40]!r} is not MOVE id bucket, NEW or EXIT")


class GohrSeries:
    """The boards of one game under one rule set (see the module)."""

    def __init__(self, rules: RuleSet, boards: Sequence[Board], max_moves: int = 0,
                 rules_text: str = "") -> None:
        if not boards:
            raise ValueError("a game needs at least one board")
        self.rules = rules
        self.rules_text = rules_text
        """The rule set as written (shown once the game is over, if the table says so)."""
        self.boards = tuple(boards)
        self.max_moves = max_moves
        self.index = 0
        """The board being played (0-based)."""
        self.episode = Episode(rules, self.boards[0])
        self.results: list[BoardResult] = []
        """The boards that are over."""
        self.stopped = False
        self.exited = False
        self.last: Shown | None = None
        """The last attempt on the board being played."""
        self.dropped: list[tuple[dict[str, Any], int]] = []
        """The pieces removed from the board being played, with their buckets."""
        self.codes: list[int] = []
        """The response code of every action applied (``NEW`` and ``EXIT``: 6 and 5)."""
        self._close_if_over()

    # -- the state ----------------------------------------------------------------------
    @property
    def board_over(self) -> bool:
        """Whether the board being played is over (its result is in ``results``)."""
        return len(self.results) > self.index

    @property
    def end(self) -> str | None:
        """How the board being played ended, ``None`` while it is played."""
        return self.results[self.index].end if self.board_over else None

    def _close_if_over(self) -> None:
        """Note the board's result once it is cleared, in stalemate or at the limit."""
        if self.board_over:
            return
        episode = self.episode
        if episode.finish is Finish.CLEARED:
            self._close("cleared")
        elif episode.finish is Finish.STALEMATE:
            self._close("stalemate")
        elif self.max_moves and episode.attempts >= self.max_moves:
            self._close("limit")

    def _close(self, end: str) -> None:
        episode = self.episode
        self.results.append(BoardResult(len(self.boards[self.index]), episode.attempts,
                                        episode.accepted, end))

    def attempts(self) -> int:
        """Move attempts over the whole game."""
        return sum(r.attempts for r in self.results) + (0 if self.board_over
                                                        else self.episode.attempts)

    def accepted(self) -> int:
        """Pieces removed over the whole game."""
        return sum(r.accepted for r in self.results) + (0 if self.board_over
                                                        else self.episode.accepted)

    def score(self) -> float:
        """The share of the attempts that were accepted (0 with none)."""
        attempts = self.attempts()
        return round(self.accepted() / attempts, 6) if attempts else 0.0

    # -- core.match.Engine --------------------------------------------------------------
    def to_play(self) -> int | None:
        """Seat 0 until the last board is over (or the player stopped)."""
        if self.stopped or (self.board_over and self.index == len(self.boards) - 1):
            return None
        return 0

    def illegal_reason(self, seat: int, action: Any) -> str | None:
        """Why ``action`` cannot be played now (an attempt on a piece that is not on the
        board, a bucket that is not one, a move once the board is over)."""
        if self.to_play() is None:
            return "the game is over"
        if seat != 0:
            return f"the game has one seat, not {seat + 1}"
        if isinstance(action, (NextBoard, Exit)):
            return None
        if not isinstance(action, Attempt):
            return "not a GOHR action"
        if self.board_over:
            return f"the board is over ({self.end}): NEW starts the next one"
        if action.bucket not in BUCKETS:
            return f"bucket {action.bucket} is not one of 0..3"
        if self.episode.board.by_id(action.piece) is None:
            return f"no piece {action.piece} on the board"
        return None

    def apply(self, seat: int, action: Any) -> Code:
        """Play a legal action; the response code of an attempt."""
        if isinstance(action, Attempt):
            piece = self.episode.board.by_id(action.piece)
            assert piece is not None
            code = self.episode.move(action.piece, action.bucket)
            self.last = Shown(piece.to_dict(), action.bucket, code)
            if code is Code.ACCEPT:
                self.dropped.append((piece.to_dict(), action.bucket))
            self._close_if_over()
        elif isinstance(action, NextBoard):
            code = Code.NEW_GAME
            if not self.board_over:
                self._close("given up")
            if self.index == len(self.boards) - 1:
                self.stopped = True
            else:
                self.index += 1
                self.episode = Episode(self.rules, self.boards[self.index])
                self.last = None
                self.dropped = []
                self._close_if_over()
        else:
            code = Code.EXIT
            if not self.board_over:
                self._close("stopped")
            self.stopped = self.exited = True
        self.codes.append(int(code))
        return code

    def notation(self, action: Any) -> str:
        """The action in the captive server's notation."""
        if isinstance(action, Attempt):
            return f"MOVE {action.piece} {action.bucket}"
        return "NEW" if isinstance(action, NextBoard) else "EXIT"

    def scores(self) -> list[float]:
        """The player's score (see the module)."""
        return [self.score()]

    def end_reason(self) -> str:
        """How the game went, in words."""
        cleared = sum(1 for r in self.results if r.end == "cleared")
        played = len(self.results)
        stop = " (stopped by EXIT)" if self.exited else ""
        return (f"{cleared} of {played} board{'s' if played != 1 else ''} cleared{stop}, "
                f"{self.accepted()} pieces in {self.attempts()} move attempts")

    def forfeit_scores(self, seat: int) -> list[float]:
        """A forfeit scores 0."""
        return [0.0]
