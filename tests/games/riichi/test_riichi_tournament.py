"""Duplicate Riichi tournaments: ITPW groups play every seat rotation on the same walls
with real bot processes, rated with pairwise BayesElo; the ``[settings]`` table; the
player check; resuming an interrupted tournament; the replay from a record."""

from __future__ import annotations

import dataclasses
import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from referee.core.adapter import GameTask
from referee.core.errors import ConfigError
from referee.core.players import PlayerSpec, builtin_command
from referee.core.record import GameRecord, MoveRecord
from referee.games.registry import game_adapters
from referee.games.riichi.adapter import (
    CHECK_SEED,
    RiichiAdapter,
    RiichiSettings,
    riichi_replay,
)
from referee.games.riichi.match import BUILTIN_PLAYERS
from referee.games.riichi.mjai import read_mjai
from referee.games.riichi.rules import RiichiGame, RiichiRules
from referee.tournament.config import Tournament, load_tournament
from referee.tournament.results import pairwise, rate_results
from referee.tournament.runner import TournamentRunner, slot_folder
from referee.tournament.session import run_tournament
from referee.tournament.store import GameRow, Store

BRAIN = Path(__file__).resolve().parents[2] / "brains" / "riichi_faulty.py"


EAST = 'game = "east"\ndecision_time = 10.0'


def riichi_file(folder: Path, players: list[tuple[str, str]], *, name: str = "rm",
                settings: str = EAST, schedule: str = 'kind = "itpw"') -> Path:
    """A Riichi tournament of one ITPW round (by default of east games); ``players`` are
    (name, builtin); ``settings`` is the ``[settings]`` table's text."""
    lines = [f'name = "{name}"', 'game = "riichi"', "seed = 21",
             "[schedule]", schedule, "rounds = 1", "random_rounds = 1",
             "[settings]", settings]
    for player, builtin in players:
        lines += ["[[players]]", f'name = "{player}"', f'builtin = "{builtin}"']
    path = folder / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def done_rows(out: Path) -> list[GameRow]:
    """The finished games of a store, in schedule order."""
    store = Store.open_existing(out)
    try:
        return store.games(status="done")
    finally:
        store.close()


def stored_records(out: Path) -> dict[str, GameRecord]:
    """Every committed record of a store by game key."""
    store = Store.open_existing(out)
    try:
        return {r.settings["game_key"]: r for r in store.records()}
    finally:
        store.close()


def first_deal(out: Path, record: GameRecord) -> list[list[str]]:
    """The starting hands (by seat) of a game's first hand, from the mjai log it wrote."""
    [log] = (out / "slots").glob(f"*/mjai/{record.settings['mjai_log']}")
    events = (e.to_dict() for e in read_mjai(log))
    start = next(e for e in events if e["type"] == "start_kyoku")
    return [list(hand) for hand in start["tehais"]]


# -- a whole tournament of real programs ----------------------------------------------------
def test_a_duplicate_tournament_plays_every_rotation_on_the_same_walls(tmp_path: Path) -> None:
    players = [("g1", "greedy"), ("g2", "greedy"), ("t1", "tsumogiri"), ("t2", "tsumogiri"),
               ("t3", "tsumogiri"), ("t4", "tsumogiri")]  # + house-1, house-2: two groups
    path = riichi_file(tmp_path, players)
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "referee.cli", "tournament", str(path),
                          "--out", str(out), "-j", "2"], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Ratings (BayesElo)" in run.stdout
    names = [p for p, _ in players] + ["house-1", "house-2"]

    rows = done_rows(out)
    assert len(rows) == 8 and all(r.outcome == "normal" for r in rows)
    assert len({r.seed for r in rows}) == 1  # one round: every game on the same walls
    records = stored_records(out)
    deals = {key: first_deal(out, record) for key, record in records.items()}
    assert len({json.dumps(deal) for deal in deals.values()}) == 1
    groups: dict[str, dict[int, GameRow]] = {}
    for row in rows:
        group, shift = row.key.rsplit(":s", 1)
        groups.setdefault(group, {})[int(shift)] = row
    assert sorted(groups) == ["r1:g1", "r1:g2"]
    assert sorted(p for g in groups.values() for p in g[0].seats) == sorted(names)
    for games in groups.values():
        assert sorted(games) == [0, 1, 2, 3]
        base = games[0].seats
        for shift, row in games.items():
            assert row.seats == base[shift:] + base[:shift]  # every cyclic rotation
            assert [p.name for p in records[row.key].players] == list(row.seats)
            deal = deals[row.key]
            for i, player in enumerate(base):  # each player gets each seat's hand once
                assert deal[row.seats.index(player)] == deal[(i - shift) % 4]
        for player in base:
            hands = {json.dumps(deals[row.key][row.seats.index(player)])
                     for row in games.values()}
            assert len(hands) == 4

    for record in records.values():
        assert record.scores is not None and len(record.scores) == 4
        assert record.settings["room"] == "tenhou" and record.settings["game_length"] == "east"
        assert abs(sum(record.scores)) < 0.01  # final scores sum to zero (uma and oka)
    results = list(pairwise(rows))
    assert len(results) == 8 * 6  # every pair of a game's four players
    tournament = load_tournament(path, game_adapters())
    ratings = rate_results(results, tournament.rating_params())
    assert ratings is not None
    assert sorted(p.name for p in ratings.players) == sorted(names)
    assert all(name in run.stdout for name in names)
    assert (out / "report" / "games" / "g00008.html").is_file()

    record = records["r1:g1:s0"]
    view = riichi_replay(record)  # the replay rebuilds the game from the recorded moves
    assert len(view.steps) == len(record.moves)
    assert [s.seat for s in view.steps] == [m.seat for m in record.moves]
    assert f"end: points {record.settings['points']}" in view.steps[-1].mark
    assert sum("E1-0" in s.mark for s in view.steps) > 4 and view.svg().startswith("<svg")


def test_the_replay_refuses_records_that_are_not_this_game_s(tmp_path: Path) -> None:
    adapter = RiichiAdapter()
    settings = adapter.parse_settings({"game": "east"}, tmp_path, "t.toml")
    seats = tuple(PlayerSpec(f"t{k}", builtin_command(BUILTIN_PLAYERS["tsumogiri"]), True)
                  for k in range(4))
    record = adapter.play(settings, GameTask("r1:g1:s0", seats, 4), tmp_path)
    assert (tmp_path / "mjai" / "r1_g1_s0.mjson.gz").is_file()
    assert len(adapter.replay(record).steps) == len(record.moves)
    with pytest.raises(ValueError, match="not a riichi record"):
        riichi_replay(dataclasses.replace(record, game="mahjong"))
    assert record.moves[0].seat == 0  # the dealer's first discard
    for seat, move, message in (
            (0, '{"type": "dahai", "actor": 0, "pai": "9z"}', "is not an mjai action"),
            (0, "hello", "is not an mjai action"),
            (1, '{"type": "dahai", "actor": 1, "pai": "1m", "tsumogiri": false}',
             "does not fit the game")):
        broken = dataclasses.replace(record, moves=[MoveRecord(seat, move, 1.0),
                                                    *record.moves[1:]])
        with pytest.raises(ValueError, match=f"move 1 .*{message}"):
            riichi_replay(broken)
    with pytest.raises(ValueError, match="end before the game does"):
        riichi_replay(dataclasses.replace(record, moves=record.moves[:40]))


# -- the settings -------------------------------------------------------------------------
def test_the_settings_choose_the_room_and_the_length(tmp_path: Path) -> None:
    table = "\n".join([EAST, 'room = "mahjong_soul"', "max_failures = 2", "startup_time = 3"])
    path = riichi_file(tmp_path, [("a", "tsumogiri"), ("b", "greedy")], settings=table)
    tournament = load_tournament(path, game_adapters())
    settings = tournament.settings
    assert isinstance(settings, RiichiSettings)
    assert settings.match.rules == dataclasses.replace(RiichiRules.mahjong_soul(),
                                                       game_length="east")
    assert tournament.adapter.describe(settings) == {
        "game": "east", "room": "mahjong_soul", "decision_time": 10.0, "startup_time": 3.0,
        "max_failures": 2}
    assert [p.name for p in tournament.players] == ["a", "b", "house-1", "house-2"]
    assert tournament.players[-1].command == builtin_command(BUILTIN_PLAYERS["tsumogiri"])
    assert tournament.rating_params().advantage == 0.0  # the itpw preset
    plain = RiichiAdapter().parse_settings({}, tmp_path, "t.toml")
    assert plain.room == "tenhou" and plain.match.rules == RiichiRules.tenhou()
    assert plain.match.rules.game_length == "south"


@pytest.mark.parametrize(("line", "message"), [
    ('game = "west"', "t.toml: settings.game: must be one of 'east' or 'south', got 'west'"),
    ('room = "osaka"',
     "t.toml: settings.room: must be one of 'tenhou', 'mahjong_soul' or 'mjai_app'"),
    ("decision_time = 0", "t.toml: settings.decision_time: must be more than 0"),
    ("startup_time = -1", "t.toml: settings.startup_time: must be more than 0"),
    ("max_failures = 0", "t.toml: settings.max_failures: must be at least 1, got 0"),
    ("colour = 1", "t.toml: settings.colour: unknown key (check its spelling)"),
])
def test_mistakes_in_the_settings_name_the_key(tmp_path: Path, line: str, message: str) -> None:
    path = riichi_file(tmp_path, [("a", "greedy"), ("b", "greedy")], name="t", settings=line)
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_tournament(path, game_adapters())


def test_riichi_is_played_with_the_itpw_schedule_only(tmp_path: Path) -> None:
    path = riichi_file(tmp_path, [(f"p{k}", "tsumogiri") for k in range(4)], name="t",
                       schedule='kind = "round-robin"')
    with pytest.raises(ConfigError, match="schedule.kind: riichi is played with itpw"):
        load_tournament(path, game_adapters())


# -- the player check -----------------------------------------------------------------------
def test_the_player_check_names_a_program_that_cannot_discard(tmp_path: Path) -> None:
    adapter = RiichiAdapter()
    settings = adapter.parse_settings({"decision_time": 0.5, "startup_time": 10},
                                      tmp_path, "t.toml")
    game = RiichiGame(settings.match.rules, seed=CHECK_SEED)
    assert {a.type for a in game.legal_actions(0)} == {"dahai"}  # a discard is the answer
    for builtin in ("tsumogiri", "greedy"):
        adapter.check_player(settings, PlayerSpec(
            builtin, builtin_command(BUILTIN_PLAYERS[builtin]), True), tmp_path)
    adapter.check_player(settings, PlayerSpec("fine", [sys.executable, str(BRAIN)]), tmp_path)
    received = [json.loads(line) for line in
                (tmp_path / "work" / "check-fine" / "received.txt").read_text().splitlines()]
    assert [e["type"] for e in received] == ["start_game", "start_kyoku", "tsumo", "end_game"]
    assert received[0]["id"] == 0 and received[0]["names"][0] == "fine"
    assert received[2] == {"type": "tsumo", "actor": 0, "pai": game.events[1]["pai"]}
    tehais: list[Any] = received[1]["tehais"]
    assert tehais[0] == game.events[0]["tehais"][0]
    assert tehais[1:] == [["?"] * 13] * 3  # the others' hands are hidden

    for mode, message in (("garbage", "answered 'hello referee' to its tsumo as the dealer: "
                                      "not an mjai action"),
                          ("illegal", "not a legal dahai of one of its tiles"),
                          ("crash", "cannot play a hand: crash"),
                          ("late", "cannot play a hand: timeout")):
        bad = PlayerSpec(f"bad-{mode}", [sys.executable, str(BRAIN), "--mode", mode])
        with pytest.raises(ConfigError, match=f"player bad-{mode} .*{message}"):
            adapter.check_player(settings, bad, tmp_path)


def test_a_tournament_names_a_faulty_player_before_any_game(tmp_path: Path) -> None:
    path = riichi_file(tmp_path, [("g", "greedy")])
    path.write_text(path.read_text() + "[[players]]\nname = \"noisy\"\n"
                    f"command = [{sys.executable!r}, {str(BRAIN)!r}, \"--mode\", "
                    "\"garbage\"]\n")
    out = tmp_path / "out"
    with pytest.raises(ConfigError, match="player noisy answered 'hello referee'"):
        run_tournament(path, Console(file=io.StringIO()), out_dir=out)
    assert not (out / "records.jsonl").exists()


# -- interrupted and resumed ----------------------------------------------------------------
class StopAfter:
    """The runner's ``play`` hook: real games, then Ctrl-C instead of game ``limit + 1``."""

    def __init__(self, tournament: Tournament, limit: int) -> None:
        self.tournament = tournament
        self.limit = limit
        self.played: list[str] = []

    def __call__(self, task: GameTask) -> GameRecord:
        if len(self.played) >= self.limit:
            raise KeyboardInterrupt
        self.played.append(task.key)
        work = slot_folder(self.tournament.output, task.slot)
        return self.tournament.adapter.play(self.tournament.settings, task, work)


def test_an_interrupted_tournament_resumes_without_repeating_a_game(tmp_path: Path) -> None:
    players = [("g", "greedy"), ("t1", "tsumogiri"), ("t2", "tsumogiri"), ("t3", "tsumogiri")]
    path = riichi_file(tmp_path, players)
    out = tmp_path / "out"
    tournament = dataclasses.replace(load_tournament(path, game_adapters()), output=out)
    store = Store(out)
    store.check(tournament.fingerprint())
    store.open(tournament.fingerprint(), tournament.name)
    hook = StopAfter(tournament, 2)
    try:
        with pytest.raises(KeyboardInterrupt):
            TournamentRunner(tournament, store, 1, play=hook).run()
    finally:
        store.close()
    before = stored_records(out)
    assert sorted(before) == sorted(hook.played) and len(before) == 2

    text = io.StringIO()
    run_tournament(path, Console(file=text, width=140), concurrency=2, out_dir=out)
    assert "4 games (2 already played)" in text.getvalue()
    lines = (out / "records.jsonl").read_text().splitlines()
    keys = [json.loads(line)["settings"]["game_key"] for line in lines]
    assert sorted(keys) == ["r1:g1:s0", "r1:g1:s1", "r1:g1:s2", "r1:g1:s3"]  # none twice
    after = stored_records(out)
    for key, record in before.items():  # the games played before the stop were kept
        assert after[key].to_json() == record.to_json()
    assert len(done_rows(out)) == 4


def test_the_example_tournament_file_loads() -> None:
    example = Path(__file__).resolve().parents[3] / "examples" / "riichi.toml"
    tournament = load_tournament(example, game_adapters())
    assert tournament.adapter.name == "riichi"
    names = [p.name for p in tournament.players]
    assert names == ["greedy", "tsumogiri-1", "tsumogiri-2", "tsumogiri-3"]
    assert tournament.adapter.describe(tournament.settings)["game"] == "east"


SEAT_BOT = Path(__file__).resolve().parents[2] / "brains" / "riichi_seat.py"


def test_a_tournament_gives_seat_placeholders_each_bot_s_seat(tmp_path: Path) -> None:
    """Bots that take their seat as an argument (``{seat}``) pass the player check (seat
    0) and play every rotation of a duplicate group in the seat they are told."""
    path = riichi_file(tmp_path, [], name="seats")
    players = "".join(f'[[players]]\nname = "s{k}"\n'
                      f'command = [{sys.executable!r}, {str(SEAT_BOT)!r}, "{{seat}}"]\n'
                      for k in range(4))
    path.write_text(path.read_text() + players)
    out = tmp_path / "out"
    run_tournament(path, Console(file=io.StringIO()), out_dir=out, concurrency=2)
    rows = done_rows(out)
    assert len(rows) == 4 and all(r.outcome == "normal" for r in rows)
    for record in stored_records(out).values():
        assert "forfeits" not in record.settings and "failures" not in record.settings
    seats = sorted(p.read_text() for p in out.glob("slots/*/work/*/seat.txt"))
    assert seats and all(text.split()[0] == text.split()[1] for text in seats)
    assert len({text for text in seats}) == 4  # every seat was played


def batched_players(options: str | None) -> str:
    """Two mjai.app-style bots (batched arrays only, ``{seat}`` their argument) with the
    ``options`` line given, and two built-in bots."""
    command = f'command = [{sys.executable!r}, {str(SEAT_BOT)!r}, "{{seat}}", "--arrays"]\n'
    extra = f"{options}\n" if options is not None else ""
    return ("".join(f'[[players]]\nname = "app{k}"\n{command}{extra}' for k in (1, 2))
            + '[[players]]\nname = "g"\nbuiltin = "greedy"\n'
            + '[[players]]\nname = "t"\nbuiltin = "tsumogiri"\n')


def test_players_that_ask_for_batched_messages_play_a_tournament(tmp_path: Path) -> None:
    """mjai.app's bots read JSON arrays only: without the option they fail the player check
    (they answer none to their own tsumo); with ``options = { batched = true }`` they pass
    it and play every rotation of the group batched, in whatever seat they sit."""
    path = riichi_file(tmp_path, [], name="apps")
    base = path.read_text()
    path.write_text(base + batched_players(None))
    with pytest.raises(ConfigError, match=r"player app1 answered '\{\"type\": \"none\"\}' "
                                          "to its tsumo as the dealer"):
        run_tournament(path, Console(file=io.StringIO()), out_dir=tmp_path / "plain")
    path.write_text(base + batched_players("options = { batched = true }"))
    out = tmp_path / "out"
    run_tournament(path, Console(file=io.StringIO()), out_dir=out, concurrency=2)
    rows = done_rows(out)
    assert len(rows) == 4 and all(r.outcome == "normal" for r in rows)
    for record in stored_records(out).values():
        names = [p.name for p in record.players]
        assert record.settings["batched"] == [name.startswith("app") for name in names]
        assert "forfeits" not in record.settings and "failures" not in record.settings
    folders = {p.parent.name: p.read_text().split()
               for p in out.glob("slots/*/work/*/batches.txt")}
    # the player check: one batch of start_game, start_kyoku and its tsumo, then end_game
    assert {name: b for name, b in folders.items() if name.startswith("check-")} == \
        {"check-app1": ["3", "1"], "check-app2": ["3", "1"]}
    games = [b for name, b in folders.items() if not name.startswith("check-")]
    assert len(games) == 8  # two bots, four games
    assert all("plain" not in b and len(b) > 10 and int(b[0]) >= 3 for b in games)


@pytest.mark.parametrize(("game", "options", "message"), [
    ("riichi", "options = { batched = 1 }", r"players\[0\]\.options\.batched: must be true "
                                            "or false, got 1"),
    ("riichi", "options = { batchd = true }", r"players\[0\]\.options\.batchd: unknown key "
                                              r"\(check its spelling\)"),
    ("gomoku", "options = { batched = true }", r"players\[0\]\.options: gomoku players take "
                                               r"no options \(remove options\)"),
    ("mahjong", "options = { batched = true }", r"players\[0\]\.options: mahjong players "
                                                "take no options"),
])
def test_player_options_are_checked_by_the_game(tmp_path: Path, game: str, options: str,
                                                message: str) -> None:
    builtin = {"riichi": "greedy", "gomoku": "random", "mahjong": "greedy"}[game]
    schedule = "" if game == "gomoku" else '[schedule]\nkind = "itpw"\n'
    players = "".join(f'[[players]]\nname = "p{k}"\nbuiltin = "{builtin}"\n'
                      + (f"{options}\n" if k == 0 else "") for k in range(4))
    path = tmp_path / "t.toml"
    path.write_text(f'game = "{game}"\n{schedule}{players}')
    with pytest.raises(ConfigError, match=message) as info:
        load_tournament(path, game_adapters())
    assert str(info.value).count("\n") == 0  # one mistake, one line


def test_batched_players_change_the_tournament_s_fingerprint(tmp_path: Path) -> None:
    path = riichi_file(tmp_path, [("g", "greedy"), ("t1", "tsumogiri"), ("t2", "tsumogiri"),
                                  ("t3", "tsumogiri")])
    plain = load_tournament(path, game_adapters())
    assert all(not p.options for p in plain.players)
    text = path.read_text().replace('builtin = "greedy"',
                                    'builtin = "greedy"\noptions = { batched = true }')
    path.write_text(text)
    batched = load_tournament(path, game_adapters())
    assert batched.players[0].options == {"batched": True}
    assert batched.fingerprint() != plain.fingerprint()
    path.write_text(text.replace("batched = true", "batched = false"))
    assert load_tournament(path, game_adapters()).players[0].options == {"batched": False}
