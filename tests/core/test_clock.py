"""The clock at its exact limits, on injected times (no sleeping, no real clock).

Every time here is a sum of binary fractions (0.25, 0.125, ...), so the sums are exact and a
move "just inside" lands on the limit itself. "Just outside" is over the limit by less than
the tolerance, so a doubled tolerance, or a limit compared without it, fails a test.
"""

from __future__ import annotations

import math

import pytest

from referee.core.clock import MAX_LIMIT, UNLIMITED_MS, Clock, TimeControl, time_control
from referee.core.errors import BotFault, ConfigError
from referee.core.outcome import Outcome

T0 = 1000.0
"""The injected time at which each test starts."""

TOL = 0.25
"""The tolerance of the clocks below; ``EPS`` is well under it."""

EPS = 1 / 1024


def move(clock: Clock, at: float, took: float) -> float:
    """Time one move started at ``at`` that took ``took`` seconds; returns ``stop``'s value."""
    clock.start(at)
    return clock.stop(at + took)


def fault_of(clock: Clock, at: float, took: float) -> BotFault:
    """The fault of a move started at ``at`` that took ``took`` seconds (it must fault)."""
    clock.start(at)
    with pytest.raises(BotFault) as info:
        clock.stop(at + took)
    return info.value


# ------------------------------------------------------------------------------ per move


def test_move_exactly_at_limit_plus_tolerance_is_on_time() -> None:
    clock = Clock(TimeControl(turn=1.0, tolerance=TOL))
    assert move(clock, T0, 1.0 + TOL) == 1.0 + TOL
    assert (clock.moves, clock.used) == (1, 1.0 + TOL)


def test_move_just_over_limit_plus_tolerance_times_out() -> None:
    clock = Clock(TimeControl(turn=1.0, tolerance=TOL))
    fault = fault_of(clock, T0, 1.0 + TOL + EPS)
    assert fault.outcome is Outcome.TIMEOUT
    assert fault.reason == "move took 1251 ms, over the 1000 ms limit"
    # the late move is still charged and counted
    assert (clock.moves, clock.used) == (1, 1.0 + TOL + EPS)


@pytest.mark.parametrize("late", [1.25, 1.5, 1.75])
def test_move_late_by_between_one_and_two_tolerances_times_out(late: float) -> None:
    # over the limit by 1.25 to 1.75 tolerances: a tolerance counted twice would let it pass
    clock = Clock(TimeControl(turn=1.0, tolerance=TOL))
    assert fault_of(clock, T0, 1.0 + late * TOL).outcome is Outcome.TIMEOUT


def test_move_within_tolerance_but_over_the_bare_limit_is_on_time() -> None:
    clock = Clock(TimeControl(turn=1.0, tolerance=TOL))
    assert move(clock, T0, 1.0 + TOL / 2) == 1.0 + TOL / 2


def test_zero_tolerance_is_exact() -> None:
    clock = Clock(TimeControl(turn=1.0, tolerance=0.0))
    assert move(clock, T0, 1.0) == 1.0
    assert fault_of(clock, T0 + 2, 1.0 + EPS).outcome is Outcome.TIMEOUT


def test_no_turn_limit_takes_any_time() -> None:
    clock = Clock(TimeControl(turn=None, tolerance=TOL))
    assert move(clock, T0, 3600.0) == 3600.0
    assert clock.time_left() is None


def test_each_move_is_timed_from_its_own_start() -> None:
    clock = Clock(TimeControl(turn=1.0, tolerance=TOL))
    at = T0
    for _ in range(5):
        assert move(clock, at, 1.0 + TOL) == 1.0 + TOL
        at += 10.0  # the time between moves (the opponent's) is not charged
    assert (clock.moves, clock.used) == (5, 5 * (1.0 + TOL))


def test_deadline_is_limit_plus_tolerance() -> None:
    clock = Clock(TimeControl(turn=1.0, tolerance=TOL))
    assert clock.start(T0) == T0 + 1.0 + TOL
    assert Clock(TimeControl(turn=None, tolerance=TOL)).start(T0) == math.inf


# ------------------------------------------------------------------------------ game clock


def test_game_clock_runs_out_in_the_middle_of_a_move() -> None:
    clock = Clock(TimeControl(turn=5.0, game=2.0, tolerance=TOL))
    assert move(clock, T0, 1.5) == 1.5
    assert clock.time_left() == 0.5
    # the next move is well inside its own limit, but the game has 0.5 s + tolerance left
    assert clock.start(T0 + 10) == T0 + 10 + 0.5 + TOL
    with pytest.raises(BotFault) as info:
        clock.stop(T0 + 10 + 0.5 + TOL + EPS)
    assert info.value.outcome is Outcome.TIMEOUT
    assert info.value.reason == "game time 2251 ms is over the 2000 ms limit"
    assert clock.time_left() == -(TOL + EPS)
    assert clock.time_left_ms() == 0


def test_game_clock_used_exactly_to_limit_plus_tolerance_is_on_time() -> None:
    clock = Clock(TimeControl(turn=5.0, game=2.0, tolerance=TOL))
    assert move(clock, T0, 1.5) == 1.5
    assert move(clock, T0 + 10, 0.5 + TOL) == 0.5 + TOL
    assert clock.used == 2.0 + TOL


@pytest.mark.parametrize("late", [1.25, 1.5, 1.75])
def test_game_clock_over_by_between_one_and_two_tolerances_times_out(late: float) -> None:
    clock = Clock(TimeControl(turn=5.0, game=2.0, tolerance=TOL))
    assert move(clock, T0, 1.0) == 1.0
    fault = fault_of(clock, T0 + 10, 1.0 + late * TOL)
    assert fault.reason.startswith("game time ")


def test_game_deadline_never_before_start_plus_tolerance() -> None:
    clock = Clock(TimeControl(turn=5.0, game=1.0, tolerance=TOL))
    clock.used = 1.5  # already over (a set-up step, say): only the tolerance is left
    assert clock.start(T0) == T0 + TOL


def test_turn_limit_is_the_deadline_while_the_game_has_more() -> None:
    clock = Clock(TimeControl(turn=1.0, game=10.0, tolerance=TOL))
    assert clock.start(T0) == T0 + 1.0 + TOL


def test_time_left_ms() -> None:
    clock = Clock(TimeControl(turn=None, game=2.0, tolerance=TOL))
    assert clock.time_left_ms() == 2000
    assert move(clock, T0, 0.75) == 0.75
    assert clock.time_left_ms() == 1250
    clock.used = 2.0 - 0.0008  # 0.8 ms left: rounded down, not to nearest
    assert clock.time_left_ms() == 0
    assert Clock(TimeControl(game=None)).time_left_ms() == UNLIMITED_MS


# ------------------------------------------------------------------------------ set-up steps


def test_setup_step_has_the_startup_limit_and_is_charged_to_the_game() -> None:
    clock = Clock(TimeControl(turn=1.0, game=20.0, tolerance=TOL, startup=10.0))
    assert clock.start_setup(T0) == T0 + 10.0 + TOL
    # far over the per-move limit, yet no fault and no move: it is not a move
    assert clock.stop(T0 + 8.0, counts_as_move=False) == 8.0
    assert (clock.moves, clock.used) == (0, 8.0)
    assert clock.start_setup(T0 + 50) == T0 + 50 + 10.0 + TOL  # startup < game left


def test_setup_step_still_faults_on_the_game_clock() -> None:
    clock = Clock(TimeControl(turn=1.0, game=2.0, tolerance=TOL, startup=10.0))
    assert clock.start_setup(T0) == T0 + 2.0 + TOL  # the game left is the shorter
    with pytest.raises(BotFault, match="game time"):
        clock.stop(T0 + 2.0 + TOL + EPS, counts_as_move=False)
    assert clock.moves == 0


def test_stop_without_start_charges_nothing() -> None:
    clock = Clock(TimeControl(turn=1.0, game=2.0, tolerance=TOL))
    assert clock.stop(T0) == 0.0
    assert (clock.moves, clock.used) == (0, 0.0)
    assert move(clock, T0, 0.5) == 0.5
    assert clock.stop(T0 + 100) == 0.0  # a second stop: the move was already charged
    assert (clock.moves, clock.used) == (1, 0.5)


# ------------------------------------------------------------------------------ expire


def test_expire_charges_the_wait_and_names_it() -> None:
    clock = Clock(TimeControl(turn=1.0, game=10.0, tolerance=TOL))
    clock.start(T0)
    fault = clock.expire(T0 + 1.0 + TOL)
    assert fault.outcome is Outcome.TIMEOUT
    assert fault.reason == "no answer within 1250 ms"
    assert clock.used == 1.0 + TOL
    assert clock.stop(T0 + 5) == 0.0  # expired: nothing is being timed any more


def test_expire_says_when_the_game_clock_ran_out() -> None:
    clock = Clock(TimeControl(turn=5.0, game=1.0, tolerance=TOL))
    clock.start(T0)
    fault = clock.expire(T0 + 1.0 + TOL)
    assert fault.reason == "no answer within 1250 ms (the game clock of 1000 ms ran out)"


def test_expire_exactly_at_the_game_limit_does_not_say_it_ran_out() -> None:
    clock = Clock(TimeControl(turn=5.0, game=1.0, tolerance=TOL))
    clock.start(T0)
    assert clock.expire(T0 + 1.0).reason == "no answer within 1000 ms"


def test_expire_without_start() -> None:
    clock = Clock(TimeControl(turn=1.0, tolerance=TOL))
    assert clock.expire(T0).reason == "no answer within 0 ms"
    assert clock.used == 0.0


def test_real_monotonic_clock_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [T0]
    monkeypatch.setattr("referee.core.clock.time.monotonic", lambda: now[0])
    clock = Clock(TimeControl(turn=1.0, game=5.0, tolerance=TOL))
    assert clock.start() == T0 + 1.0 + TOL
    now[0] = T0 + 1.0 + TOL + EPS
    with pytest.raises(BotFault, match="move took"):
        clock.stop()
    clock.start_setup()
    now[0] += 0.5
    assert clock.stop(counts_as_move=False) == 0.5
    clock.start()
    now[0] += 2.0
    assert clock.expire().reason == "no answer within 2000 ms"


# ------------------------------------------------------------------------------ limits


@pytest.mark.parametrize("kwargs", [{"turn": -0.001}, {"game": -1.0}, {"tolerance": -0.001},
                                    {"startup": 0.0}])
def test_time_control_rejects_impossible_limits(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        TimeControl(**kwargs)


def test_time_control_accepts_zero_limits() -> None:
    tc = TimeControl(turn=0.0, game=0.0, tolerance=0.0)
    clock = Clock(tc)
    assert clock.start(T0) == T0
    assert clock.stop(T0) == 0.0
    with pytest.raises(BotFault):
        move(clock, T0, EPS)


def test_from_ms() -> None:
    tc = TimeControl.from_ms(turn=1500, game=0, tolerance=250, startup=2000)
    assert tc == TimeControl(turn=1.5, game=None, tolerance=0.25, startup=2.0)
    tc = TimeControl.from_ms(turn=None, game=60000, tolerance=0, startup=1)
    assert tc == TimeControl(turn=None, game=60.0, tolerance=0.0, startup=0.001)
    with pytest.raises(ConfigError, match="turn must not be negative"):
        TimeControl.from_ms(turn=-1, game=0, tolerance=0, startup=1)
    with pytest.raises(ConfigError, match="startup > 0"):
        TimeControl.from_ms(turn=1, game=0, tolerance=0, startup=0)


def test_time_control_from_seconds() -> None:
    tc = time_control(turn=2.0, game=0.0, tolerance=0.5, startup=3.0)
    assert tc == TimeControl(turn=2.0, game=None, tolerance=0.5, startup=3.0)
    assert time_control(turn=None, game=MAX_LIMIT, tolerance=0, startup=1).game == MAX_LIMIT
    with pytest.raises(ConfigError, match="game time .* is longer than 31 days"):
        time_control(turn=None, game=MAX_LIMIT + 1, tolerance=0, startup=1)
    with pytest.raises(ConfigError, match="tolerance"):
        time_control(turn=None, game=0, tolerance=-1, startup=1)
