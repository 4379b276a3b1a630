"""The ITPW tournament format with Planowanie: the file, house bots, groups and rotations,
rounds on one deal, variance-minimising groups, and long runs that survive interruption.

The 100-round field runs in-process (the runner's ``play`` hook plays each game with the
built-in strategies and no processes) so that scheduling, rating, the store and resume are
proven at full length quickly; the same runner with real programs over pipes, a real
``kill -9`` and resume is proven on a shorter tournament.
"""

from __future__ import annotations

import io
import itertools
import sys
import time
import zlib
from collections import Counter
from pathlib import Path

import pytest
from rich.console import Console
from test_runner import done_count, played, referee_cli

from proctags import kill_tagged
from referee.core.adapter import GameTask
from referee.core.errors import ConfigError
from referee.core.outcome import Outcome
from referee.core.record import GameRecord, PlayerInfo
from referee.games.planowanie.bots.heuristic_player import HeuristicStrategy
from referee.games.planowanie.bots.player import Strategy, play_local
from referee.games.planowanie.bots.random_player import RandomStrategy
from referee.games.registry import game_adapters
from referee.tournament.config import Tournament, load_tournament
from referee.tournament.itpw import variance_groups
from referee.tournament.ratings import BayesEloParams
from referee.tournament.results import pairwise, rate_results, standings
from referee.tournament.runner import Tally, TournamentRunner
from referee.tournament.schedule import Itpw, derive_seed
from referee.tournament.session import run_tournament
from referee.tournament.store import GameRow, Store


def itpw_file(folder: Path, players: list[tuple[str, str]], *, rounds: int = 3,
              random_rounds: int = 1, extra: str = "", settings: str = "",
              name: str = "cards") -> Path:
    """A Planowanie ITPW tournament of built-in players ``(name, builtin)``."""
    lines = [f'name = "{name}"', 'game = "planowanie"', "seed = 5", extra,
             "[schedule]", 'kind = "itpw"', f"rounds = {rounds}",
             f"random_rounds = {random_rounds}", "[settings]", "time = 60000", settings]
    for player, builtin in players:
        lines += ["[[players]]", f'name = "{player}"', f'builtin = "{builtin}"']
    path = folder / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def field(count: int, strong: int) -> list[tuple[str, str]]:
    """``strong`` heuristic players (h1...) and random ones (r1...), ``count`` in all."""
    return [(f"h{i}", "heuristic") for i in range(1, strong + 1)] + [
        (f"r{i}", "random") for i in range(1, count - strong + 1)]


# -- the file -------------------------------------------------------------------------------
def test_house_bots_fill_the_field_to_a_multiple_of_four(tmp_path: Path) -> None:
    tournament = load_tournament(itpw_file(tmp_path, field(5, 1)), game_adapters())
    names = [p.name for p in tournament.players]
    assert names == ["h1", "r1", "r2", "r3", "r4", "house-1", "house-2", "house-3"]
    house = tournament.players[-1]
    assert house.builtin and house.command[-1].endswith("heuristic_player")
    params = tournament.rating_params()
    assert params == BayesEloParams.itpw() and params.advantage == 0.0
    tournament = load_tournament(itpw_file(tmp_path, field(2, 0), extra="",
                                           settings="players = 3"), game_adapters())
    assert len(tournament.players) == 3  # games of three: one house bot joins the two
    tournament = load_tournament(itpw_file(tmp_path, field(8, 2)), game_adapters())
    assert len(tournament.players) == 8  # already a multiple: no house bot
    taken = [("house-2", "random"), ("a", "random"), ("b", "random")]
    tournament = load_tournament(itpw_file(tmp_path, taken), game_adapters())
    assert [p.name for p in tournament.players] == ["house-2", "a", "b", "house-1"]
    taken = [("house-1", "random"), ("house-2", "random")]
    tournament = load_tournament(itpw_file(tmp_path, taken), game_adapters())
    assert [p.name for p in tournament.players] == ["house-1", "house-2", "house-3", "house-4"]


@pytest.mark.parametrize(("edit", "message"), [
    (('kind = "itpw"', 'kind = "round-robin"'), "planowanie is played with itpw"),
    (('random_rounds = 1', 'random_rounds = 1\nhouse = "nobody"'),
     "schedule.house: unknown built-in 'nobody'"),
    (("time = 60000", "time = 60000\nplayers = 5"), "settings.players"),
    (("time = 60000", 'time = 60000\ndeals = "1 14 0"'), "settings: deal 1: 14 cards"),
    (("time = 60000", 'time = 60000\nvalues = "2233"'), "repeat a character"),
    (("time = 60000", "time = -1"), "settings.time"),
])
def test_mistakes_in_the_file_are_named(tmp_path: Path, edit: tuple[str, str],
                                        message: str) -> None:
    path = itpw_file(tmp_path, field(4, 1))
    path.write_text(path.read_text().replace(*edit))
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        load_tournament(path, game_adapters())


# -- the schedule ---------------------------------------------------------------------------
def test_each_round_groups_everyone_and_plays_every_rotation_on_one_deal() -> None:
    players = [f"p{i}" for i in range(12)]
    schedule = Itpw(players, rounds=3, seed=9, size=4, random_rounds=2,
                    params=BayesEloParams.itpw())
    rounds = [schedule.round_games(n, {}, {}) for n in (1, 2)]
    assert [len(games) for games in rounds] == [12, 12] == [len(players)] * 2
    assert schedule.total_games() == 36
    for games in rounds:
        assert len({g.seed for g in games}) == 1  # the same deals in every match
        for seat in range(4):  # everyone once in every seat
            assert sorted(g.seats[seat] for g in games) == sorted(players)
        for _tag, group in itertools.groupby(games, key=lambda g: g.pair):
            seatings = [g.seats for g in group]
            assert len(seatings) == 4 and len({frozenset(s) for s in seatings}) == 1
            first = seatings[0]
            assert seatings == [first[k:] + first[:k] for k in range(4)]
    assert rounds[0][0].seed != rounds[1][0].seed
    assert rounds[0] == Itpw(players, 3, 9, 4, 2, BayesEloParams.itpw()).round_games(1, {}, {})
    assert [g.seats for g in rounds[0]] != [g.seats for g in rounds[1]]
    with pytest.raises(ValueError, match="groups of 4"):
        Itpw(players[:10], 1, 1, 4, 1, BayesEloParams.itpw())


def test_later_rounds_group_by_rating() -> None:
    """After the random rounds, the best player's group holds the players nearest it."""
    players = [f"p{i}" for i in range(8)]
    results = []
    for a, b in itertools.combinations(range(8), 2):  # p0 > p1 > ... > p7, clearly
        results += [(players[a], players[b], 1.0)] * 6 + [(players[a], players[b], 0.0)]
    schedule = Itpw(players, rounds=5, seed=1, size=4, random_rounds=1,
                    params=BayesEloParams.itpw())
    games = schedule.round_games(2, {}, {}, results)
    groups = {frozenset(g.seats) for g in games}
    assert frozenset(players[:4]) in groups and frozenset(players[4:]) in groups


# -- 100 rounds of a 12-program field, in-process, interrupted and resumed ------------------
class LocalPlay:
    """The runner's ``play`` hook: each game in-process with the built-in strategies."""

    def __init__(self, tournament: Tournament, stop_after: int | None = None) -> None:
        self.tournament = tournament
        self.stop_after = stop_after
        self.calls = 0

    def __call__(self, task: GameTask) -> GameRecord:
        self.calls += 1
        if self.stop_after is not None and self.calls > self.stop_after:
            raise KeyboardInterrupt  # as Ctrl-C in the middle of the tournament
        bot_seed = zlib.crc32(task.key.encode())
        strategies: list[Strategy] = [
            HeuristicStrategy(bot_seed + k) if p.name.startswith("h")
            else RandomStrategy(bot_seed + k) for k, p in enumerate(task.seats)]
        rules = self.tournament.settings.rules
        game = play_local(rules, task.seed, strategies)
        record = GameRecord("planowanie", [PlayerInfo(p.name) for p in task.seats],
                            settings={"game_key": task.key}, seed=task.seed,
                            round=task.round)
        record.finish(game.scores(), Outcome.NORMAL, game.end_reason())
        return record


def run_local(tournament: Tournament, out: Path, stop_after: int | None = None) -> int:
    """Run (or resume) in-process; returns the games played now."""
    store = Store(out)
    store.check(tournament.fingerprint())
    store.open(tournament.fingerprint(), tournament.name)
    try:
        runner = TournamentRunner(tournament, store, 3, play=LocalPlay(tournament, stop_after))
        try:
            return runner.run()
        except KeyboardInterrupt:
            return -1
    finally:
        store.close()


def schedule_of(out: Path) -> dict[str, tuple[tuple[str, ...], int, list[float] | None]]:
    """Every game of a store: key -> (seats, seed, scores)."""
    store = Store.open_existing(out)
    try:
        return {row.key: (row.seats, row.seed, row.scores) for row in store.games()}
    finally:
        store.close()


@pytest.mark.slow
def test_a_hundred_rounds_of_twelve_programs_survive_an_interruption(tmp_path: Path) -> None:
    path = itpw_file(tmp_path, field(12, 4), rounds=100, random_rounds=10)
    tournament = load_tournament(path, game_adapters())
    out = tmp_path / "out"
    assert run_local(tournament, out, stop_after=530) == -1
    store = Store.open_existing(out)
    done_before = store.count("done")
    store.close()
    assert 500 <= done_before < 1200
    assert run_local(tournament, out) == 1200 - done_before
    games = schedule_of(out)
    assert len(games) == 1200 and all(scores is not None for _, _, scores in games.values())
    rounds: dict[int, list[tuple[str, ...]]] = {}
    for key, (seats, _, _) in games.items():
        rounds.setdefault(int(key.split(":")[0][1:]), []).append(seats)
    assert sorted(rounds) == list(range(1, 101))
    for seatings in rounds.values():
        assert len(seatings) == 12
        for seat in range(4):
            assert len({s[seat] for s in seatings}) == 12
    store = Store.open_existing(out)
    try:
        rows = store.games(status="done")
    finally:
        store.close()
    ratings = rate_results(pairwise(rows), tournament.rating_params())
    assert ratings is not None
    top = [p.name for p in ratings.players[:4]]
    assert sorted(top) == ["h1", "h2", "h3", "h4"]  # the heuristic players lead clearly
    # the rounds after the random ones are grouped from everything played before them
    names = [p.name for p in tournament.players]
    for number in (11, 57, 100):
        before = [r for r in rows if r.round < number]
        met = Counter(frozenset(pair) for r in before
                      for pair in itertools.combinations(r.seats, 2))
        expected = variance_groups(names, 4, list(pairwise(before)),
                                   tournament.rating_params(), met)
        groups = sorted(sorted(seats) for key, (seats, _, _) in games.items()
                        if key.startswith(f"r{number}:") and key.endswith(":s0"))
        assert groups == sorted(sorted(g) for g in expected)


def test_an_interrupted_run_schedules_the_same_games_as_an_uninterrupted_one(
        tmp_path: Path) -> None:
    path = itpw_file(tmp_path, field(8, 2), rounds=12, random_rounds=3)
    tournament = load_tournament(path, game_adapters())
    run_local(tournament, tmp_path / "straight")
    assert run_local(tournament, tmp_path / "broken", stop_after=37) == -1
    run_local(tournament, tmp_path / "broken")
    assert schedule_of(tmp_path / "broken") == schedule_of(tmp_path / "straight")
    seeds = {derive_seed(5, "round", n) for n in range(1, 13)}
    assert {seed for _, seed, _ in schedule_of(tmp_path / "straight").values()} == seeds


# -- real programs over pipes ---------------------------------------------------------------
@pytest.mark.slow
def test_a_tournament_of_real_programs_runs_and_resumes_after_kill_9(
        tmp_path: Path) -> None:
    tag = f"itpw-{time.time_ns()}"
    path = itpw_file(tmp_path, field(6, 2), rounds=3, random_rounds=1)  # + 2 house bots
    out = tmp_path / "out"
    proc = referee_cli("tournament", str(path), "--out", str(out), "-j", "2",
                       cwd=tmp_path, tag=tag)
    try:
        limit = time.monotonic() + 120
        while done_count(out) < 5:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < limit, "no game finished in time"
            time.sleep(0.01)
        proc.kill()
        proc.wait()
        killed_at = done_count(out)
        assert killed_at < 24
        text = io.StringIO()
        run_tournament(path, Console(file=text, width=140), concurrency=2, out_dir=out)
    finally:
        kill_tagged(tag)
    report = text.getvalue()
    assert f"24 games ({killed_at} already played)" in report
    assert "Ratings (BayesElo)" in report and "house-1" in report
    games = played(out)
    assert len(games) == 24
    assert all(outcome == "normal" for _, _, outcome in games.values())
    assert all(len(moves) == 416 for moves, _, _ in games.values())
    assert (out / "report" / "index.html").is_file()


def row(seats: tuple[str, ...], scores: tuple[float, ...], offender: int | None = None
        ) -> GameRow:
    """A finished four-seat game as the store gives it."""
    return GameRow("k", 1, 1, seats, 1, None, None, "done", scores,
                   "normal" if offender is None else "crash", "", offender, 416, 1)


def test_each_game_gives_every_pair_a_result_and_a_fault_only_the_offender_s_losses() -> None:
    seats = ("a", "b", "c", "d")
    normal = list(pairwise([row(seats, (30.0, 41.0, 30.0, 12.0))]))
    assert normal == [("a", "b", 0.0), ("a", "c", 0.5), ("a", "d", 1.0),
                      ("b", "c", 1.0), ("b", "d", 1.0), ("c", "d", 1.0)]
    faulted = list(pairwise([row(seats, (1.0, 1.0, 0.0, 1.0), offender=2)]))
    assert faulted == [("a", "c", 1.0), ("b", "c", 1.0), ("c", "d", 0.0)]


def test_a_player_refusing_the_configuration_is_named_before_any_game(tmp_path: Path) -> None:
    faulty = Path(__file__).resolve().parents[1] / "brains" / "planowanie_faulty.py"
    path = itpw_file(tmp_path, field(3, 1))
    path.write_text(path.read_text() + "[[players]]\nname = \"picky\"\n"
                    f"command = [{str(sys.executable)!r}, {str(faulty)!r}, "
                    "\"refuse-setup\"]\n")
    out = tmp_path / "out"
    with pytest.raises(ConfigError, match="player picky cannot get ready for a game: "
                                          "protocol-error: answered \\? to set_deck"):
        run_tournament(path, Console(file=io.StringIO()), out_dir=out)
    assert Store.peek_done(out) == 0


def test_standings_add_card_points_but_no_fault_scores() -> None:
    seats = ("a", "b", "c", "d")
    rows = [row(seats, (30.0, 41.0, 30.0, 12.0)), row(seats, (1.0, 1.0, 0.0, 1.0), offender=2)]
    lines = {s.name: s for s in standings(rows, list(seats), points_game=True)}
    assert {n: s.points for n, s in lines.items()} == {"a": 30, "b": 41, "c": 30, "d": 12}
    assert (lines["c"].losses, lines["c"].faults) == (2, {"crash": 1})
    assert (lines["a"].wins, lines["a"].losses) == (1, 1)
    tally = Tally(list(seats), points_game=True)
    for game in rows:
        tally.add_row(game)
    assert tally.points == {"a": 30, "b": 41, "c": 30, "d": 12}
    # results games (Gomoku) keep counting a forfeit's scores as points
    assert standings(rows[1:], list(seats))[0].points == 1.0
