"""annotate4rl: behavioural-cloning annotations become offline-RL lines, each point paired
with its seat's next point, each seat's last point of a game a terminal line with the game
rank and score; games must not come back; bad lines name file:line; compressed files;
flat memory."""

from __future__ import annotations

import gzip
import io
import os
import sys
import tracemalloc
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from referee.core.compressed import DataFileError
from referee.games.riichi.kanachan import annotate4rl as module
from referee.games.riichi.kanachan.annotate4rl import (
    GameOrderError,
    RLResult,
    annotate4rl,
    iter_rl_lines,
)
from referee.games.riichi.kanachan.dataset import detect_format, parse_transition
from referee.training.datafiles import TrainingDataError, read_lines
from textfiles import read, write

HAND = (354, 358, 362, 390, 394, 398, 426, 430, 434, 461, 462, 465, 466)
SCORES = (25000, 32000, 18000, -1200)
GAME_RANK = (1, 0, 2, 3)  # by seat
GAME_SCORE = (31000, 45000, 20000, -1500)  # by seat: one below zero


def ints(values: Sequence[int]) -> str:
    return ",".join(map(str, values))


def bc_line(game: str, seat: int, step: int, *, choice: int | None = None,
            results: Sequence[int] | None = None) -> str:
    """A realistic BC line: point ``step`` of ``game``, seat ``seat`` to play (its
    progression has ``step`` discards, so every point of a game is told apart)."""
    ranks = (289, 309, 329, 349)
    sparse = [3, 6, 7 + seat, 11, 14, 18 + 5, 203 + max(0, 69 - step)]
    for other in range(4):  # grade and rank of the player and of the others
        who = (seat + other) % 4
        sparse += [273 + 20 * other + 9 + who, ranks[other] + GAME_RANK[who]]
    sparse += [*HAND, 489 + step % 37]
    numeric = [step % 3, 1, *(SCORES[(seat + k) % 4] for k in range(4))]
    progression = [0] + [5 + (i % 4) * 148 + (i % 37) * 4 for i in range(step)]
    candidates = [8, 12, 57, 140, 146, 221]
    if results is None:
        results = [3, 8000, -2000, -4000, -2000, 0, 1, 2, 3, GAME_RANK[seat], GAME_SCORE[seat],
                   -45 + seat]
    return "\t".join([game, ints(sparse), ints(numeric), ints(progression), ints(candidates),
                      str(step % len(candidates) if choice is None else choice),
                      ints(results)])


def game_lines(game: str, seats: Sequence[int]) -> list[str]:
    return [bc_line(game, seat, step) for step, seat in enumerate(seats)]


# An irregular order, as calls make it: seat 2 pons and plays out of turn, seat 0 kans.
SEATS_A = (0, 1, 2, 3, 0, 2, 3, 0, 0, 1, 2, 3, 1)
SEATS_B = (0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2)




def expected_rl(lines: Sequence[str]) -> list[str]:
    """The RL lines of a stream of BC lines, computed naively (whole games in memory)."""
    out: list[str] = []
    games: dict[str, list[list[str]]] = {}
    for line in lines:
        fields = line.split("\t")
        games.setdefault(fields[0], []).append(fields)
    for points in games.values():
        for i, fields in enumerate(points):
            seat = next(s for s in range(4) if str(7 + s) in fields[1].split(","))
            later = [p for p in points[i + 1:] if str(7 + seat) in p[1].split(",")]
            if later:
                out.append("\t".join(fields[1:6] + later[0][1:5]))
            else:
                results = fields[6].split(",")
                out.append("\t".join([*fields[1:6], results[9], results[10]]))
    return out


@pytest.fixture
def two_games(tmp_path: Path) -> Path:
    """A 2-game annotation file, the 4 seats interleaved."""
    return write(tmp_path / "games.txt",
                 game_lines("230101-aaaa", SEATS_A) + game_lines("230101-bbbb", SEATS_B))


# --- the conversion --------------------------------------------------------------------------

def test_a_small_game_line_by_line(tmp_path: Path) -> None:
    seats = (0, 1, 0, 2, 3, 1)
    bc = game_lines("g", seats)
    state = ["\t".join(line.split("\t")[1:5]) for line in bc]
    choice = [line.split("\t")[5] for line in bc]
    result = annotate4rl([write(tmp_path / "in.txt", bc)], tmp_path / "out.txt")
    assert read(tmp_path / "out.txt") == [
        f"{state[0]}\t{choice[0]}\t{state[2]}",  # seat 0 -> its next point, 2
        f"{state[1]}\t{choice[1]}\t{state[5]}",  # seat 1 -> 5
        f"{state[2]}\t{choice[2]}\t1\t31000",  # seat 0's last: rank 1, score 31000
        f"{state[3]}\t{choice[3]}\t2\t20000",
        f"{state[4]}\t{choice[4]}\t3\t-1500",  # a negative score
        f"{state[5]}\t{choice[5]}\t0\t45000",
    ]
    assert result == RLResult(games=1, points=6, transitions=2, terminals=4)
    assert result.lines == 6


def test_transitions_pair_the_points_of_a_seat(two_games: Path, tmp_path: Path) -> None:
    result = annotate4rl([two_games], tmp_path / "rl.txt")
    out = read(tmp_path / "rl.txt")
    assert out == expected_rl(read(two_games))
    points = len(SEATS_A) + len(SEATS_B)
    assert result == RLResult(games=2, points=points, transitions=points - 8, terminals=8)
    transitions = [parse_transition(line) for line in out if line.count("\t") == 8]
    assert len(transitions) == points - 8
    for transition in transitions:
        assert transition.next_state is not None and not transition.terminal
        assert transition.next_state.seat == transition.state.seat
        # the next point of the seat comes later: its progression is longer
        assert len(transition.next_state.progression) > len(transition.state.progression)


def test_the_last_point_of_each_seat_is_terminal(two_games: Path, tmp_path: Path) -> None:
    annotate4rl([two_games], tmp_path / "rl.txt")
    out = [parse_transition(line) for line in read(tmp_path / "rl.txt")]
    first, second = out[:len(SEATS_A)], out[len(SEATS_A):]
    for game, seats in ((first, SEATS_A), (second, SEATS_B)):
        terminals = [t for t in game if t.terminal]
        assert len(terminals) == 4  # one per seat in a full game
        assert sorted(t.state.seat for t in terminals) == [0, 1, 2, 3]
        for t in terminals:
            assert (t.game_rank, t.game_score) == (GAME_RANK[t.state.seat],
                                                   GAME_SCORE[t.state.seat])
            last = max(i for i, seat in enumerate(seats) if seat == t.state.seat)
            assert len(t.state.progression) == last + 1  # the seat's last point
        # lines in the order of their first point
        assert [len(t.state.progression) for t in game] == list(range(1, len(seats) + 1))
    assert all(detect_format(line) == "rl" for line in read(tmp_path / "rl.txt"))


def test_rank_and_score_are_results_9_and_10(tmp_path: Path) -> None:
    results = [17, 0, 0, 0, 0, 3, 2, 1, 0, 2, -7800, 13]
    line = bc_line("solo", 1, 0, choice=5, results=results)
    annotate4rl([write(tmp_path / "in.txt", [line])], tmp_path / "out.txt")
    (out,) = read(tmp_path / "out.txt")
    assert out.split("\t")[4:] == ["5", "2", "-7800"]


def test_a_game_may_go_on_in_the_next_file(tmp_path: Path) -> None:
    lines = game_lines("g1", SEATS_A) + game_lines("g2", SEATS_B)
    one = write(tmp_path / "one.txt", lines[:5])
    two = write(tmp_path / "two.gz", lines[5:])
    result = annotate4rl([one, two], tmp_path / "out.txt")
    assert read(tmp_path / "out.txt") == expected_rl(lines)
    assert result.games == 2


def test_empty_input(tmp_path: Path) -> None:
    result = annotate4rl([write(tmp_path / "empty.txt", [])], tmp_path / "out.gz")
    assert result == RLResult(games=0, points=0, transitions=0, terminals=0)
    assert read(tmp_path / "out.gz") == []


def test_the_output_may_be_the_input(two_games: Path) -> None:
    expected = expected_rl(read(two_games))
    annotate4rl([two_games], two_games)
    assert read(two_games) == expected


def test_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no input files"):
        annotate4rl([], tmp_path / "out.txt")
    with pytest.raises(ValueError, match="only be read once"):
        annotate4rl(["-", "-"], tmp_path / "out.txt")
    with pytest.raises(DataFileError, match="cannot open"):
        annotate4rl([tmp_path / "missing.txt"], tmp_path / "out.txt")
    assert not (tmp_path / "out.txt").exists() and leftovers(tmp_path) == []
    source = write(tmp_path / "in.txt", [bc_line("g", 0, 0)])
    with pytest.raises(DataFileError, match="it is a folder"):
        annotate4rl([source], tmp_path)


def test_the_generator_returns_the_counts(two_games: Path) -> None:
    converted = iter_rl_lines(read_lines([two_games]))
    lines: list[str] = []
    with pytest.raises(StopIteration) as stop:
        while True:
            lines.append(next(converted))
    assert stop.value.value == RLResult(games=2, points=len(lines),
                                        transitions=len(lines) - 8, terminals=8)


# --- games out of order ----------------------------------------------------------------------

def leftovers(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.startswith("."))


def test_a_game_that_comes_back_is_an_error(tmp_path: Path) -> None:
    lines = game_lines("g1", SEATS_A[:6]) + game_lines("g2", SEATS_B) + \
        [bc_line("g1", 0, 6)]  # line 6 + 11 + 1 = 18
    source = write(tmp_path / "mixed.txt", lines)
    with pytest.raises(GameOrderError) as caught:
        annotate4rl([source], tmp_path / "out.txt")
    error = caught.value
    assert isinstance(error, TrainingDataError) and isinstance(error, DataFileError)
    assert str(error).startswith(f"{source}:18: game 'g1' appears again after other games")
    assert (error.path, error.line) == (str(source), 18)
    assert not (tmp_path / "out.txt").exists() and leftovers(tmp_path) == []


def test_shuffled_lines_are_an_error(two_games: Path, tmp_path: Path) -> None:
    lines = read(two_games)
    shuffled = [lines[0], lines[-1], lines[1]]  # g-a, g-b, g-a again: line 3
    source = write(tmp_path / "shuffled.gz", shuffled)
    with pytest.raises(GameOrderError, match=r"shuffled\.gz:3: game '230101-aaaa'"):
        annotate4rl([source], tmp_path / "out.txt")


def test_a_file_given_twice_is_an_error(two_games: Path, tmp_path: Path) -> None:
    with pytest.raises(GameOrderError, match=r"games\.txt:1: game '230101-aaaa'"):
        annotate4rl([two_games, two_games], tmp_path / "out.txt")


def test_games_seen_long_ago_are_remembered(tmp_path: Path) -> None:
    # Few games held in the set: the first ones go to the sorted array.
    lines = [bc_line(f"game{g}", seat, step) for g in range(40) for step, seat in
             enumerate((0, 1, 2, 3))]
    source = write(tmp_path / "many.txt", [*lines, bc_line("game3", 0, 4)])
    with mock.patch.object(module, "_RECENT", 4):
        assert annotate4rl([write(tmp_path / "ok.txt", lines)], tmp_path / "ok.out").games == 40
        with pytest.raises(GameOrderError, match=r"many\.txt:161: game 'game3'"):
            annotate4rl([source], tmp_path / "out.txt")
        seen = module._SeenGames()
        for g in range(40):
            seen.add(f"game{g}")
        assert all(f"game{g}" in seen for g in range(40))
        assert not any(f"other{g}" in seen for g in range(200))


# --- malformed lines -------------------------------------------------------------------------

def replace_field(line: str, index: int, value: str) -> str:
    fields = line.split("\t")
    fields[index] = value
    return "\t".join(fields)


GOOD = bc_line("g", 2, 3)
BAD_LINES = {
    "6 fields": ("\t".join(GOOD.split("\t")[:6]), "6 fields, a behavioural-cloning line has 7"),
    "9 fields": (GOOD + "\t1\t2", "9 fields"),
    "empty line": ("", "empty line"),
    "empty game id": (replace_field(GOOD, 0, ""), "field 0 (game id): empty"),
    "not an integer": (replace_field(GOOD, 1, "3,6,x,11"), "field 1 (sparse)"),
    "a float": (replace_field(GOOD, 2, "0,1,25000.5,0,0,0"), "not a list of integers"),
    "a space": (replace_field(GOOD, 4, "8, 12"), "not a list of non-negative integers"),
    "negative sparse": (replace_field(GOOD, 1, "3,6,9,-11"), "non-negative"),
    "sparse 526": (replace_field(GOOD, 1, "3,6,9,526"), "526 is out of range (0..525)"),
    "no seat": (replace_field(GOOD, 1, "3,6,11,14"), "no seat features (7..10)"),
    "two seats": (replace_field(GOOD, 1, "3,6,7,9,11"), "2 seat features"),
    "5 numeric": (replace_field(GOOD, 2, "0,1,2,3,4"), "5 integers, expected 6"),
    "huge numeric": (replace_field(GOOD, 2, "0,1,2,3,4,9999999999"), "9 digits at most"),
    "leading zero": (replace_field(GOOD, 4, "8,012"), "not a list of non-negative integers"),
    "progression 2165": (replace_field(GOOD, 3, "0,5,2165"), "2165 is out of range"),
    "progression start": (replace_field(GOOD, 3, "5,9"), "starts with 5, not 0"),
    "candidate 546": (replace_field(GOOD, 4, "8,546"), "546 is out of range (0..545)"),
    "candidate 547": (replace_field(GOOD, 4, "8,547"), "547 is out of range"),
    "no candidates": (replace_field(GOOD, 4, ""), "field 4 (candidates): empty"),
    "choice too big": (replace_field(GOOD, 5, "6"), "6 is not an index into the 6 candidates"),
    "two choices": (replace_field(GOOD, 5, "1,2"), "not a single integer"),
    "11 results": (replace_field(GOOD, 6, ints(range(11))), "11 integers, expected 12"),
    "round result 19": (replace_field(GOOD, 6, ints([19, *[0] * 11])), "not 0..18"),
    "game rank 4": (replace_field(GOOD, 6, ints([0] * 9 + [4, 0, 0])), "element 9"),
}


@pytest.mark.parametrize("name", sorted(BAD_LINES))
def test_a_malformed_line_names_file_and_line(tmp_path: Path, name: str) -> None:
    bad, problem = BAD_LINES[name]
    lines = [*game_lines("g0", SEATS_B), bc_line("g", 0, 0), bc_line("g", 1, 1), bad,
             bc_line("g", 3, 4)]
    source = write(tmp_path / "bad.txt.gz", lines)
    with pytest.raises(TrainingDataError) as caught:
        annotate4rl([source], tmp_path / "out.txt")
    line = len(SEATS_B) + 3
    assert str(caught.value).startswith(f"{source}:{line}: "), str(caught.value)
    assert problem in str(caught.value)
    assert caught.value.line == line and caught.value.path == str(source)
    assert not isinstance(caught.value, GameOrderError)
    assert not (tmp_path / "out.txt").exists() and leftovers(tmp_path) == []


def test_crlf_line_ends_are_accepted(two_games: Path, tmp_path: Path) -> None:
    lines = read(two_games)
    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes("".join(line + "\r\n" for line in lines).encode())
    annotate4rl([crlf], tmp_path / "out.txt")
    assert read(tmp_path / "out.txt") == expected_rl(lines)


# --- compressed files, standard input and output ---------------------------------------------

@pytest.mark.parametrize("source", ["in.txt", "in.gz", "in.bz2", "in.dat"])
@pytest.mark.parametrize("target", ["out.txt", "out.gz", "out.bz2"])
def test_compressed_round_trip(two_games: Path, tmp_path: Path, source: str,
                               target: str) -> None:
    lines = read(two_games)
    data = two_games.read_bytes()
    if source == "in.dat":  # gzip under any name: told by its first bytes
        (tmp_path / source).write_bytes(gzip.compress(data))
    else:
        write(tmp_path / source, lines)
    annotate4rl([tmp_path / source], tmp_path / target)
    raw = (tmp_path / target).read_bytes()
    magic = {"out.txt": raw[:2] == b"3,", "out.gz": raw[:2] == b"\x1f\x8b",
             "out.bz2": raw[:3] == b"BZh"}
    assert magic[target]
    assert read(tmp_path / target) == expected_rl(lines)


def test_standard_input_and_output(two_games: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(gzip.compress(two_games.read_bytes())))
    stdout = io.TextIOWrapper(io.BytesIO())
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "stdout", stdout)
    result = annotate4rl(["-"], "-")
    stdout.flush()
    written = stdout.buffer.getvalue().decode()  # type: ignore[attr-defined]
    assert written.split("\n")[:-1] == expected_rl(read(two_games))
    assert result.games == 2


# --- memory ----------------------------------------------------------------------------------

def many_games(games: int, points: int) -> Iterator[str]:
    for game in range(games):
        for step in range(points):
            yield bc_line(f"{game:06d}-game", (step * 7 // 5) % 4, step)


@pytest.mark.slow
def test_memory_stays_flat_on_a_large_input(tmp_path: Path) -> None:
    games, points = 200, 100  # 20,000 lines, about 8 MB of text
    source = tmp_path / "big.txt.gz"
    with gzip.open(source, "wt", compresslevel=1) as stream:
        for line in many_games(games, points):
            stream.write(line + "\n")
    tracemalloc.start()
    try:
        result = annotate4rl([source], tmp_path / "out.gz")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result == RLResult(games=games, points=games * points,
                              transitions=games * (points - 4), terminals=games * 4)
    # one game of 100 points is about 40 KB of text; the input is 200 times that
    assert peak < 3 * 1024 * 1024, peak
    with gzip.open(tmp_path / "out.gz", "rt") as stream:
        assert sum(1 for _ in stream) == games * points


# --- kanachan's options ------------------------------------------------------------------------

def kanachan_reference(lines: Sequence[str], room_filter: int, grade_filter: int,
                       curriculum: bool, td_aware: bool = False) -> list[list[str]]:
    """kanachan's annotate4rl (bin/annotate4rl, the 7-field format), written again from
    its description: the lines of the rooms and grades kept, sorted (a stable sort) by
    game, seat, round, honba, progression length and draws; chunks of a game and seat; an
    (s, a, s') line to the seat's next point, an (s, a, rank, score) line for its last;
    with ``td_aware`` each chunk's lines sorted again by their point's key, from the
    greatest (Python's stable ``reverse=True``: equal keys keep their order); ``n - i - 1``
    before each line with ``curriculum``. The chunks, in kanachan's order (games by id;
    with ``td_aware`` kanachan shuffles them)."""
    kept = []
    for line in lines:
        fields = line.split("\t")
        sparse = [int(x) for x in fields[1].split(",")]
        grade = next(v - 273 for v in sparse if 273 <= v < 289)
        if sparse[0] < room_filter or grade < grade_filter:
            continue
        left = next(v - 203 for v in sparse if 203 <= v <= 272)
        key = (fields[0], sparse[2] - 7, sparse[3] - 11, sparse[4] - 14,
               int(fields[2].split(",")[0]), len(fields[3].split(",")), 69 - left)
        kept.append((key, fields))
    kept.sort(key=lambda k: k[0])
    keyed: list[list[tuple[Any, str]]] = []
    for i, (key, fields) in enumerate(kept):
        if i == 0 or kept[i - 1][0][:2] != key[:2]:
            keyed.append([])
        after = kept[i + 1] if i + 1 < len(kept) else None
        if after is not None and after[0][:2] == key[:2]:
            keyed[-1].append((key, "\t".join(fields[1:6] + after[1][1:5])))
        else:
            results = fields[6].split(",")
            keyed[-1].append((key, "\t".join([*fields[1:6], results[9], results[10]])))
    if td_aware:
        keyed = [sorted(c, key=lambda k: k[0], reverse=True) for c in keyed]
    chunks = [[line for _, line in c] for c in keyed]
    if curriculum:
        chunks = [[f"{len(c) - i - 1}\t{line}" for i, line in enumerate(c)] for c in chunks]
    return chunks


REAL = Path(__file__).resolve().parents[2] / "data" / "riichi"


@pytest.fixture(scope="module")
def rooms(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Real annotations of three games: a houou game (the Throne room, grades 11, 11, 13,
    13), a Tenhou game put in the Silver room (1) and one in the Gold room (2), grade 6."""
    from referee.games.riichi.kanachan.annotate import Context, annotate_game
    from referee.games.riichi.replay import load_log

    lines: list[str] = []
    for name, context in (("2010091009gm-00a9-0000-83af2648.mjlog",
                           Context(room=4, grades=(11, 11, 13, 13))),
                          ("tenhou6/ranked_game.json", Context(room=1)),
                          ("nm.mjlog", Context(room=2))):
        loaded = load_log(REAL / name)
        lines += annotate_game(loaded.events, Path(name).stem, context, loaded.rules)
    return write(tmp_path_factory.mktemp("rooms") / "rooms.txt", lines)


def count(lines: list[str], room: int | None = None, grade: int | None = None) -> int:
    """The BC lines of a room, or of players of a grade or above."""
    out = 0
    for line in lines:
        sparse = [int(x) for x in line.split("\t")[1].split(",")]
        own = next(v - 273 for v in sparse if 273 <= v < 289)
        out += (room is None or sparse[0] == room) and (grade is None or own >= grade)
    return out


def test_the_room_and_grade_filters(rooms: Path, tmp_path: Path) -> None:
    bc = read(rooms)
    everything = annotate4rl([rooms], tmp_path / "all.txt")
    assert everything.points == len(bc) and not everything.filtered
    gold = annotate4rl([rooms], tmp_path / "gold.txt", min_room=2)
    assert gold.filtered == count(bc, room=1) > 0 and gold.games == 2
    assert sorted(read(tmp_path / "gold.txt")) == sorted(
        line for chunk in kanachan_reference(bc, 2, 0, False) for line in chunk)
    saint1 = annotate4rl([rooms], tmp_path / "s1.txt", min_grade=12)
    assert saint1.points == count(bc, grade=12) > 0 and saint1.games == 1
    assert sorted(read(tmp_path / "s1.txt")) == sorted(
        line for chunk in kanachan_reference(bc, 0, 12, False) for line in chunk)


def test_curriculum_and_td_aware_chunks(rooms: Path, tmp_path: Path) -> None:
    reference = kanachan_reference(read(rooms), 0, 0, True)
    annotate4rl([rooms], tmp_path / "cur.txt", curriculum=True)
    ours = read(tmp_path / "cur.txt")
    # kanachan's chunks, each whole and in its order; the games in the input's order
    # (kanachan sorts them by id)
    assert sorted(ours) == sorted(line for chunk in reference for line in chunk)
    assert len(split_chunks(ours, reference)) == len(reference) == 12
    for seed in (1, 2):
        annotate4rl([rooms], tmp_path / f"td{seed}.txt", td_aware=True, seed=seed)
    td = read(tmp_path / "td1.txt")
    plain = kanachan_reference(read(rooms), 0, 0, False)
    backwards = kanachan_reference(read(rooms), 0, 0, False, td_aware=True)
    assert sorted(td) == sorted(line for chunk in plain for line in chunk)
    runs = split_chunks(td, backwards)
    assert len(runs) == len(plain)  # each chunk whole, from its last point to its first
    assert runs != backwards  # in a random order
    # the houou game's double ron: each seat's points of that hand come twice, one copy
    # per winner, which kanachan's stable sort keeps in their order (not reversed)
    assert sum(c != list(reversed(p)) for c, p in zip(backwards, plain, strict=True)) >= 4
    assert td != read(tmp_path / "td2.txt")
    again = annotate4rl([rooms], tmp_path / "td1b.txt", td_aware=True, seed=1)
    assert read(tmp_path / "td1b.txt") == td and again.points == len(td)
    both = annotate4rl([rooms], tmp_path / "both.txt", td_aware=True, curriculum=True,
                       seed=1)
    numbered = read(tmp_path / "both.txt")
    assert [line.split("\t", 1)[1] for line in numbered] == td
    assert both.lines == len(td)
    assert sorted(split_chunks(numbered, kanachan_reference(read(rooms), 0, 0, True,
                                                            td_aware=True))) == \
        sorted(kanachan_reference(read(rooms), 0, 0, True, td_aware=True))


def test_td_aware_keeps_the_copies_of_a_multi_winner_point_in_order(tmp_path: Path) -> None:
    """Golden: a point of a hand two players won is written once per winner (the same
    state, the results' outcome seen from each winner); kanachan's --td-aware sorts a
    seat's lines from the last point to the first with a stable sort, so the two copies
    keep their order and --curriculum numbers them so (a reversal swapped them)."""
    first = [4, 8000, -8000, 0, 0, 0, 3, 1, 2, GAME_RANK[0], GAME_SCORE[0], -45]
    second = [5, 8000, -8000, 0, 0, 0, 3, 1, 2, GAME_RANK[0], GAME_SCORE[0], -45]
    # seat 0's points at steps 0, 3 (twice) and 6: one hand, one honba (step % 3)
    lines = [bc_line("g", 0, 0), bc_line("g", 1, 1),
             bc_line("g", 0, 3, results=first), bc_line("g", 0, 3, results=second),
             bc_line("g", 1, 4), bc_line("g", 0, 6)]
    source = write(tmp_path / "bc.txt", lines)
    annotate4rl([source], tmp_path / "rl.txt", td_aware=True, curriculum=True, seed=7)
    state = {step: "\t".join(bc_line("g", 0, step).split("\t")[1:5]) for step in (0, 3, 6)}
    choice = {step: bc_line("g", 0, step).split("\t")[5] for step in (0, 3, 6)}
    seat0 = [
        f"3\t{state[6]}\t{choice[6]}\t{GAME_RANK[0]}\t{GAME_SCORE[0]}",
        f"2\t{state[3]}\t{choice[3]}\t{state[3]}",  # the first copy, to the second
        f"1\t{state[3]}\t{choice[3]}\t{state[6]}",  # the second copy, to the next point
        f"0\t{state[0]}\t{choice[0]}\t{state[3]}",
    ]
    out = read(tmp_path / "rl.txt")
    assert len(out) == 6
    at = out.index(seat0[0])
    assert out[at:at + 4] == seat0


def split_chunks(lines: list[str], chunks: list[list[str]]) -> list[list[str]]:
    """``lines`` cut into the given chunks (each must come whole and in order)."""
    runs = []
    i = 0
    while i < len(lines):
        chunk = next(c for c in chunks if c[0] == lines[i])
        assert lines[i:i + len(chunk)] == chunk
        runs.append(chunk)
        i += len(chunk)
    return runs


def test_the_command_s_kanachan_options(rooms: Path, tmp_path: Path) -> None:
    import subprocess

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "referee.cli", "annotate4rl", str(rooms),
                               *args], capture_output=True, text=True, timeout=120)

    bc = read(rooms)
    done = run("-o", str(tmp_path / "default.txt"))  # kanachan's default: gold and above
    assert done.returncode == 0, done.stderr
    assert f"{count(bc, room=1)} below the room or grade filter left out" in done.stderr
    assert len(read(tmp_path / "default.txt")) == len(bc) - count(bc, room=1)
    done = run("-o", str(tmp_path / "all.txt"), "--filter-by-room", "bronze",
               "--filter-by-grade", "saint1", "--td-aware", "--curriculum", "--seed", "3")
    assert done.returncode == 0, done.stderr
    kept = read(tmp_path / "all.txt")
    assert len(kept) == count(bc, grade=12)
    assert all(line.split("\t")[0].isdigit() for line in kept)
    bad = run("-o", str(tmp_path / "x.txt"), "--filter-by-room", "palace")
    assert bad.returncode == 2 and "--filter-by-room" in bad.stderr
