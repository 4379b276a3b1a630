"""A game's journal: the game loop writes each applied action; a game stopped mid-way is
played on from its journal (the actions applied again without asking anyone, the seats
handed to ``caught_up`` there); a torn or foreign journal is never half-used."""

from __future__ import annotations

import contextlib
from collections.abc import MutableSequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.core import interrupts
from referee.core.errors import JournalMismatch
from referee.core.journal import Journal
from referee.core.match import Decision, play_game
from referee.core.players import PlayerSpec
from referee.core.record import GameRecord


@dataclass(frozen=True)
class Add:
    """An action of the counting game: add 1 or 2."""

    amount: int


class Counting:
    """Two seats in turn add 1 or 2 to a total; whoever reaches 10 wins."""

    def __init__(self) -> None:
        self.total = 0
        self.turn = 0

    def to_play(self) -> int | None:
        return None if self.total >= 10 else self.turn

    def illegal_reason(self, seat: int, action: Any) -> str | None:
        return None if isinstance(action, Add) and action.amount in (1, 2) else "not 1 or 2"

    def apply(self, seat: int, action: Add) -> None:
        self.total += action.amount
        self.turn = 1 - self.turn

    def notation(self, action: Add) -> str:
        return f"+{action.amount}"

    def scores(self) -> list[float]:
        return [1.0, 0.0] if self.turn == 1 else [0.0, 1.0]

    def end_reason(self) -> str:
        return "reached 10"

    def forfeit_scores(self, seat: int) -> list[float]:
        return [0.0, 1.0] if seat == 0 else [1.0, 0.0]


class Crash(Exception):
    """The process playing the game stops (in the test: an exception out of the loop)."""


class Scripted:
    """A seat that plays its amounts in order, each in ``seconds``; asked past them, the
    game's process "crashes"."""

    def __init__(self, name: str, amounts: list[int], seconds: float = 0.25) -> None:
        self.name = name
        self.amounts = list(amounts)
        self.seconds = seconds
        self.asked = 0
        self.observed: list[int] = []

    def request(self, engine: Any) -> Decision:
        if not self.amounts:
            raise Crash
        self.asked += 1
        return Decision(Add(self.amounts.pop(0)), self.seconds)

    def end_turn(self) -> None:
        pass

    def observe(self, engine: Any, seat: int, action: Any) -> None:
        self.observed.append(action.amount)


def record() -> GameRecord:
    return GameRecord(game="counting", players=[], settings={}, seed=7)


def test_a_stopped_game_goes_on_from_its_journal(tmp_path: Path) -> None:
    path = tmp_path / "journals" / "game.jsonl"
    journal = Journal.create(path, seed=7)
    journal.noted(1, "a pinch-hitter plays seat 2")
    journal.took(1, PlayerSpec("random (pinch-hitter)", ["python3", "-m", "bot"], builtin=True))
    first = [Scripted("a", [2, 1]), Scripted("b", [2])]
    with journal.activated(), pytest.raises(Crash):
        play_game(Counting(), first, record())
    journal.close()
    back = Journal.read(path)
    assert back is not None and back.seed == 7 and back.resuming and back.applied() == 3
    assert back.notes == [(1, "a pinch-hitter plays seat 2")]
    assert back.players == {1: PlayerSpec("random (pinch-hitter)", ["python3", "-m", "bot"],
                                          builtin=True)}
    handed: list[int] = []

    def caught_up(engine: Any, seats: MutableSequence[Any]) -> list[tuple[int, Any]]:
        handed.append(engine.total)
        return []

    back.caught_up = caught_up
    again: list[Any] = [Scripted("a", [1, 1], 1.0), Scripted("b", [1, 2], 1.0)]
    with back.activated():
        played = play_game(Counting(), again, record())
    back.close()
    assert handed == [5]  # (2 + 2 + 1, then the seats were handed over)
    # Nobody was asked for the journal's moves; the seats were told only the new ones.
    assert [s.asked for s in again] == [2, 2] and again[0].observed == [1, 1, 2, 1]
    assert [m.move for m in played.moves] == ["+2", "+2", "+1", "+1", "+1", "+2", "+1"]
    assert [m.ms for m in played.moves] == [250.0] * 3 + [1000.0] * 4  # (their own times)
    assert played.finished and played.scores == [1.0, 0.0]
    # The journal now holds the whole game (a second crash would replay it all).
    whole = Journal.read(path)
    assert whole is not None and whole.applied() == 7


def test_the_game_loop_ends_on_an_interrupt_whose_raise_was_lost() -> None:
    """Every game's loop checks between moves for an interrupt its signal's handler kept
    (its raise lost in a finalizer: tests/tournament/test_lost_interrupts.py): the game
    stops before the next move is asked for."""
    seats: list[Any] = [Scripted("a", [1] * 5), Scripted("b", [1] * 5)]
    played = record()

    def watch(engine: Any) -> None:
        if engine.total == 3:
            interrupts.note()  # as the handler does, its raise then swallowed

    try:
        with pytest.raises(KeyboardInterrupt):
            play_game(Counting(), seats, played, watch=watch)
    finally:
        interrupts.clear()
    assert len(played.moves) == 3 and [s.asked for s in seats] == [2, 1]


def test_a_seat_taken_over_for_good_or_until_given_back_reads_back_so(
        tmp_path: Path) -> None:
    """A program taken on for a seat until its player takes it back, then given back, is
    no longer there when read back; one taken on for good is, and says so."""
    path = tmp_path / "game.jsonl"
    journal = Journal.create(path, seed=1)
    own, pinch = PlayerSpec("own", ["own"]), PlayerSpec("pinch", ["pinch"], builtin=True)
    journal.took(0, own)
    journal.took(1, own)
    journal.released(0)
    journal.took(2, pinch, for_good=True)
    journal.close()
    back = Journal.read(path)
    assert back is not None
    assert back.players == {1: own, 2: pinch} and back.for_good == {2}
    back.close()


def test_a_torn_last_line_is_left_out(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    journal = Journal.create(path, seed=3)
    with journal.activated(), pytest.raises(Crash):
        play_game(Counting(), [Scripted("a", [1]), Scripted("b", [])], record())
    journal.close()
    with path.open("ab") as torn:
        torn.write(b'{"k":"move","g":0,"s":1,"t":0.1,"a":"gAS')
    back = Journal.read(path)
    assert back is not None and back.applied() == 1


@pytest.mark.parametrize("text", [b"", b"nonsense\n", b'{"k":"move"}\n',
                                  b'{"k":"seed","seed":1}\n{"k":"move","g":0,"s":0,"t":0,'
                                  b'"a":"bm90IGEgcGlja2xl"}\n'])
def test_a_journal_that_cannot_be_read_is_none(tmp_path: Path, text: bytes) -> None:
    path = tmp_path / "game.jsonl"
    path.write_bytes(text)
    assert Journal.read(path) is None
    assert Journal.read(tmp_path / "missing.jsonl") is None


def test_a_journal_of_another_game_is_refused_not_half_applied(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    journal = Journal.create(path, seed=1)
    with journal.activated(), pytest.raises(Crash):
        play_game(Counting(), [Scripted("a", [2, 2]), Scripted("b", [2])], record())
    journal.close()
    back = Journal.read(path)
    assert back is not None
    back.earlier[0][1] = type(back.earlier[0][1])(0, Add(2), 0.0)  # (seat 0 twice in a row)
    with back.activated(), pytest.raises(JournalMismatch, match="move 2"):
        play_game(Counting(), [Scripted("a", []), Scripted("b", [])], record())


@given(st.lists(st.sampled_from([1, 2]), min_size=1, max_size=9), st.integers(0, 9))
def test_any_game_stopped_anywhere_ends_as_if_it_had_not_stopped(
        amounts: list[int], stop: int) -> None:
    """Played in one go, or stopped after ``stop`` moves and resumed: the same moves and
    the same result."""
    import tempfile

    plan = [amounts[i % len(amounts)] for i in range(10)]
    whole = play_game(Counting(), [Scripted("a", plan[0::2]), Scripted("b", plan[1::2])],
                      record())
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.jsonl"
        journal = Journal.create(path, seed=0)
        cut = [plan[0::2][: (stop + 1) // 2], plan[1::2][: stop // 2]]
        with journal.activated(), contextlib.suppress(Crash):
            play_game(Counting(), [Scripted("a", cut[0]), Scripted("b", cut[1])],
                      record())
        journal.close()
        back = Journal.read(path)
        assert back is not None
        done = back.applied()
        seats: list[Any] = [Scripted("a", plan[0::2][(done + 1) // 2:]),
                 Scripted("b", plan[1::2][done // 2:])]
        with back.activated():
            again = play_game(Counting(), seats, record())
        back.close()
    assert [m.move for m in again.moves] == [m.move for m in whole.moves]
    assert again.scores == whole.scores


def test_an_action_that_cannot_be_kept_costs_the_resume_not_the_game(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "game.jsonl"
    journal = Journal.create(path, seed=1)
    journal.next_game()
    journal.moved(0, lambda: None, 0.1, None)  # (a lambda is not pickled)
    journal.moved(1, Add(1), 0.1, None)  # (nothing more is written)
    assert not path.exists() and "cannot be resumed" in caplog.text
