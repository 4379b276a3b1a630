"""Clocks: per-move and per-game time limits with a tolerance, and time-left bookkeeping.

Times are seconds as floats (``time.monotonic()``). A limit of ``None`` means no limit. A
move is on time when it takes at most ``turn + tolerance`` and leaves the game total at
most ``game + tolerance``; the tolerance absorbs pipe and scheduling delays so that a
bot that plays exactly to its limit is not forfeited by noise.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from referee.core.errors import BotFault, ConfigError
from referee.core.outcome import Outcome

UNLIMITED_MS = 2147483647
"""What a clock without a game limit reports as milliseconds left (the largest int32)."""


@dataclass(frozen=True)
class TimeControl:
    """The time limits of one seat.

    ``turn``: seconds per move (``None``: no per-move limit). ``game``: seconds for the
    whole game (``None``: no limit). ``tolerance``: grace added to both before a bot is
    forfeited. ``startup``: seconds a bot may take to get ready (start, restart).
    """

    turn: float | None = 5.0
    game: float | None = None
    tolerance: float = 0.5
    startup: float = 30.0

    def __post_init__(self) -> None:
        for name in ("turn", "game"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"time limit {name} must not be negative, got {value}")
        if self.tolerance < 0 or self.startup <= 0:
            raise ValueError("tolerance must be >= 0 and startup > 0")

    @classmethod
    def from_ms(cls, *, turn: int | None, game: int, tolerance: int,
                startup: int) -> TimeControl:
        """Limits as users give them, in milliseconds (``game`` 0: no game limit; ``turn``
        ``None``: no per-move limit). Raises ``ConfigError`` for impossible values."""
        return time_control(turn=None if turn is None else turn / 1000, game=game / 1000,
                            tolerance=tolerance / 1000, startup=startup / 1000)


MAX_LIMIT = 31 * 24 * 3600.0
"""The longest time limit accepted (31 days): longer ones are mistakes."""


def time_control(*, turn: float | None, game: float, tolerance: float,
                 startup: float) -> TimeControl:
    """Limits in seconds as the command line gives them (``game`` 0: no game limit;
    ``turn`` ``None``: no per-move limit). Raises ``ConfigError`` naming an impossible or
    absurdly long one."""
    for name, value in (("move time", turn), ("game time", game), ("tolerance", tolerance),
                        ("startup", startup)):
        if value is not None and value > MAX_LIMIT:
            raise ConfigError(f"{name} {value:g} s is longer than 31 days")
    try:
        return TimeControl(turn=turn, game=game or None, tolerance=tolerance, startup=startup)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


class Clock:
    """One seat's clock for one game: what it used, what is left, when it must answer."""

    __slots__ = ("_started", "control", "moves", "used")

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.used = 0.0
        self.moves = 0
        self._started: float | None = None

    def time_left(self) -> float | None:
        """Seconds left of the game limit (may be negative), ``None`` without one."""
        if self.control.game is None:
            return None
        return self.control.game - self.used

    def time_left_ms(self) -> int:
        """Milliseconds left of the game limit as protocols send it (``time_left``):
        ``UNLIMITED_MS`` without a game limit, never below 0."""
        left = self.time_left()
        if left is None:
            return UNLIMITED_MS
        return max(0, int(left * 1000.0))

    def start(self, now: float | None = None) -> float:
        """Start timing a move; returns the deadline for its answer (``None``: none)."""
        now = time.monotonic() if now is None else now
        self._started = now
        return self._deadline(now, self.control.turn)

    def start_setup(self, now: float | None = None) -> float:
        """Start timing a set-up step (start, restart): ``startup`` limit, charged to the game."""
        now = time.monotonic() if now is None else now
        self._started = now
        return self._deadline(now, self.control.startup)

    def _deadline(self, now: float, limit: float | None) -> float:
        tol = self.control.tolerance
        candidates = []
        if limit is not None:
            candidates.append(limit + tol)
        left = self.time_left()
        if left is not None:
            candidates.append(max(left, 0.0) + tol)
        if not candidates:
            return float("inf")
        return now + min(candidates)

    def stop(self, now: float | None = None, *, counts_as_move: bool = True) -> float:
        """Stop timing; charge the elapsed seconds to the game and return them.

        Raises ``BotFault(TIMEOUT)`` when the move took longer than its limits allow.
        """
        now = time.monotonic() if now is None else now
        if self._started is None:
            return 0.0
        elapsed = now - self._started
        self._started = None
        self.used += elapsed
        tol = self.control.tolerance
        if counts_as_move:
            self.moves += 1
            turn = self.control.turn
            if turn is not None and elapsed > turn + tol:
                raise BotFault(
                    Outcome.TIMEOUT,
                    f"move took {elapsed * 1000:.0f} ms, over the {turn * 1000:.0f} ms limit",
                )
        game = self.control.game
        if game is not None and self.used > game + tol:
            raise BotFault(
                Outcome.TIMEOUT,
                f"game time {self.used * 1000:.0f} ms is over the {game * 1000:.0f} ms limit",
            )
        return elapsed

    def expire(self, now: float | None = None) -> BotFault:
        """Charge the time spent so far on a move that never came and return the fault."""
        now = time.monotonic() if now is None else now
        elapsed = now - self._started if self._started is not None else 0.0
        self._started = None
        self.used += elapsed
        text = f"no answer within {elapsed * 1000:.0f} ms"
        game = self.control.game
        if game is not None and self.used > game:
            text += f" (the game clock of {game * 1000:.0f} ms ran out)"
        return BotFault(Outcome.TIMEOUT, text)
