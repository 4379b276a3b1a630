"""The command line, run as a real program: help everywhere, matches, clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BRAINS = Path(__file__).resolve().parent / "brains"
INSTANT = f"{sys.executable} {BRAINS / 'instant.py'}"


def referee(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


@pytest.mark.parametrize("command", [
    [], ["match"], ["match", "gomoku"], ["match", "planowanie"], ["match", "mahjong"],
    ["match", "riichi"], ["replay"], ["replay", "gomoku"], ["replay", "planowanie"],
    ["replay", "mahjong"], ["replay", "riichi"], ["export"], ["export", "gomoku"],
    ["console"], ["console", "planowanie"], ["serve"], ["serve", "mahjong"], ["serve", "gohr"],
    ["connect", "mahjong"], ["play", "gohr"], ["annotate"], ["annotate", "riichi"],
    ["selfplay"], ["selfplay", "riichi"], ["tournament"], ["ratings"], ["report"],
    ["shuffle"], ["annotate4rl"], ["web"], ["web", "admin", "add"], ["web", "user", "add"],
    ["bot"], ["bot", "gomoku"], ["bot", "planowanie"],
    ["bot", "mahjong"], ["bot", "riichi"], ["dataset"], ["dataset", "gomoku"],
    ["dataset", "planowanie"], ["dataset", "mahjong"], ["dataset", "riichi"],
    # the spellings of earlier releases, hidden but kept for one release
    ["psq"], ["gohr"], ["gohr-server"], ["mahjong", "serve"], ["mahjong", "connect"]])
def test_every_command_has_help(command: list[str]) -> None:
    run = referee(*command, "--help")
    assert run.returncode == 0, run.stderr
    assert "Usage:" in run.stdout


HEAVY = ("pandas", "pyarrow", "numpy", "gymnasium", "pettingzoo", "torch", "ray", "datasets")
"""The libraries of the extras and of data work: imported by the commands that use them."""


def test_the_command_line_and_its_help_import_no_data_library() -> None:
    """``import referee.cli`` and the help of every command (each game's too) import none
    of :data:`HEAVY`: pyarrow imported pandas on every dataset run, 1.3 s of start-up on a
    loaded machine (issue 37, item 12); a --help needs none of them."""
    check = ("import sys, contextlib, io\n"
             "import referee.cli\n"
             "heavy = lambda: sorted(m for m in sys.modules if m.split('.')[0] in "
             f"{HEAVY!r})\n"
             "print('import', heavy())\n"
             "for command in sys.argv[1:]:\n"
             "    with contextlib.redirect_stdout(io.StringIO()):\n"
             "        try:\n"
             "            referee.cli.main([*command.split(), '--help'])\n"
             "        except SystemExit:\n"
             "            pass\n"
             "    print(command, heavy())\n")
    commands = [""] + [f"{verb} {game}".strip() for verb, games in (
        ("match", "gomoku planowanie mahjong riichi"), ("replay", "gomoku riichi"),
        ("bot", " gomoku planowanie mahjong riichi"), ("dataset", " gomoku riichi"),
        ("annotate", "riichi"), ("selfplay", "riichi"), ("serve", "gohr mahjong"),
        ("tournament", ""), ("ratings", ""), ("shuffle", ""), ("annotate4rl", ""))
        for game in (games.split(" ") if games else [""])]
    run = subprocess.run([sys.executable, "-c", check, *commands], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines == ["import []"] + [f"{c} []" for c in commands]
    pytest.importorskip("pandas")  # (installed: the check could have seen it)


def test_the_help_says_which_verbs_need_an_extra() -> None:
    """The base install runs every verb but two, and every command across games but the
    game server (``web``): referee --help names their extras, and so does each of their
    commands' help (issue 37, item 30; issue 38)."""
    out = " ".join(referee("--help").stdout.split())
    assert ("bot Run a Python policy (as for the game's environment) as a bot program "
            "(needs the envs extra: pip install 'referee[envs]').") in out
    assert "(needs the data extra: pip install 'referee[data]')" in out
    assert "(needs the web extra: pip install 'referee[web]')" in out  # the game server
    assert out.count("needs the") == 3
    for verb, extra in (("bot", "envs"), ("dataset", "data")):
        for game in ("gomoku", "planowanie", "mahjong", "riichi"):
            text = " ".join(referee(verb, game, "--help").stdout.split())
            assert f"pip install 'referee[{extra}]'" in text, (verb, game)


def test_help_groups_the_commands_by_game() -> None:
    out = referee("--help").stdout
    games = out[out.index("Games (referee VERB GAME ...)"):out.index("Verbs:")]
    for game, verbs in (("gomoku", "match, replay, export"), ("gohr", "play, serve"),
                        ("riichi", "match, replay, annotate, selfplay")):
        assert game in games and verbs in " ".join(games.split())
    for command in ("tournament", "ratings", "report", "shuffle", "annotate4rl", "web"):
        assert command in out[out.index("Across games:"):]
    for hidden in ("psq", "gohr-server"):
        assert hidden not in out
    listed = referee("match", "--help").stdout.split("Commands:")[1].splitlines()
    assert [line.split()[0] for line in listed if line.startswith("  ")] == [
        "gomoku", "planowanie", "mahjong", "riichi"]
    out = referee("match", "gomoku", "--help").stdout
    for option in ("--rule", "--size", "--width", "--openings", "--swap2", "--move-time",
                   "--game-time", "--tolerance", "--memory", "--seed", "--out", "--json"):
        assert option in out
    assert "--timeout-turn" not in out  # the old spelling works, but is not shown


def test_the_same_idea_has_the_same_option_in_every_game() -> None:
    for game in ("gomoku", "planowanie", "mahjong", "riichi"):
        out = " ".join(referee("match", game, "--help").stdout.split())
        for option in ("--seed", "--out DIR", "--json"):
            assert option in out, (game, option)
        assert "--move-time DURATION" in out or "--game-time DURATION" in out, game


@pytest.mark.parametrize(("old", "new"), [
    (["--timeout-turn", "1000"], ["--move-time", "1s"]),
    (["--timeout-match", "60000"], ["--game-time", "60s"]),
])
def test_old_option_spellings_still_work_with_a_warning(tmp_path: Path, old: list[str],
                                                        new: list[str]) -> None:
    runs = [referee("match", "gomoku", INSTANT, INSTANT, "--size", "7", "--games", "1",
                    *args, "--out", str(tmp_path / str(k))) for k, args in enumerate((old, new))]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    assert f"{old[0]} is deprecated and will be removed: use {new[0]}" in runs[0].stderr
    settings = [json.loads((tmp_path / str(k) / "game-001.json").read_text())["settings"]
                for k in (0, 1)]
    assert settings[0] == settings[1]
    both = referee("match", "gomoku", INSTANT, INSTANT, *old, *new)
    assert both.returncode == 2 and "not both" in both.stderr


def test_durations_need_their_unit_and_old_bare_numbers_are_read_as_before(
        tmp_path: Path) -> None:
    run = referee("match", "gomoku", INSTANT, INSTANT, "--move-time", "5")
    assert run.returncode == 2 and "'5' needs its unit: 5s or 5ms" in run.stderr
    run = referee("match", "gomoku", INSTANT, INSTANT, "--size", "7", "--games", "1",
                  "--tolerance", "250", "--out", str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert "--tolerance 250 without a unit is read as 250 ms" in run.stderr
    record = json.loads((tmp_path / "game-001.json").read_text())
    assert record["settings"]["tolerance_ms"] == 250


def test_a_move_time_of_zero_is_refused_where_it_cannot_work() -> None:
    for game, players in (("mahjong", ["random"] * 4), ("riichi", ["tsumogiri"] * 4)):
        run = referee("match", game, *players, "--move-time", "0s")
        assert run.returncode == 2 and "must be more than 0, got '0s'" in run.stderr, run.stderr
    # a Gomocup brain may be told timeout_turn 0: "as fast as it can"
    help_text = referee("match", "gomoku", "--help").stdout
    assert "0: as fast as it" in help_text


def test_match_of_builtin_brains_writes_records(tmp_path: Path) -> None:
    run = referee("match", "gomoku", "threat", "random", "--games", "2", "--seed", "7",
                  "--out", str(tmp_path / "out"), "--rule", "renju", "--size", "12")
    assert run.returncode == 0, run.stderr
    assert "game 2/2" in run.stdout and "Match result" in run.stdout
    assert "\x1b[" not in run.stdout  # plain text when piped
    for n in (1, 2):
        record = json.loads((tmp_path / "out" / f"game-00{n}.json").read_text())
        assert record["settings"]["rule"] == "renju" and record["settings"]["width"] == 12
        assert record["seed"] == 7 and record["outcome"] == "normal"
        assert [p["name"] for p in record["players"]] == ["threat", "random"]
        assert record["players"][0]["about"]["name"] == "pbrain-threat"
        assert all(m["ms"] >= 0 for m in record["moves"])
        psq = (tmp_path / "out" / f"game-00{n}.psq").read_text().splitlines()
        assert psq[0] == "Piskvorky 12x12, 11:11, 0"


def test_rectangular_match_with_command_line_brains(tmp_path: Path) -> None:
    run = referee("match", "gomoku", INSTANT, f"{INSTANT} --order reverse", "--width", "20",
                  "--height", "8", "--games", "1", "--out", str(tmp_path))
    assert run.returncode == 0, run.stderr
    record = json.loads((tmp_path / "game-001.json").read_text())
    assert (record["settings"]["width"], record["settings"]["height"]) == (20, 8)
    assert record["players"][0]["name"] == "instant#1"


def test_export_writes_psq_files_and_the_old_psq_command_still_does(tmp_path: Path) -> None:
    referee("match", "gomoku", "random", "random", "--games", "2", "--no-psq",
            "--out", str(tmp_path))
    assert not (tmp_path / "game-001.psq").exists()
    run = referee("export", "gomoku", "--psq", str(tmp_path / "game-001.json"),
                  str(tmp_path / "game-002.json"))
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == [str(tmp_path / "game-001.psq"), str(tmp_path / "game-002.psq")]
    assert (tmp_path / "game-002.psq").read_text().startswith("Piskvorky 15x15")
    run = referee("psq", str(tmp_path / "game-001.json"), "-o", str(tmp_path / "x.psq"))
    assert run.returncode == 0, run.stderr
    assert "'referee psq' is deprecated and will be removed: use 'referee export gomoku'" \
        in run.stderr
    assert (tmp_path / "x.psq").read_text() == (tmp_path / "game-001.psq").read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rule", "chess"], "--rule: unknown rule 'chess'"),
        (["--size", "40"], "'--size': must be at most 32, got '40'"),
        (["--games", "0"], "'--games': must be at least 1, got '0'"),
        (["--move-time", "-5s"], "'-5s' is not a duration"),
        (["--move-time", "99999h"], "move time 3.59996e+08 s is longer than 31 days"),
        (["--openings", "/nonexistent/op.txt"], "cannot read openings"),
        (["--swap2", "--openings", "OPENINGS"], "either openings or swap2"),
        (["--draw-at-empty", "-1"], "must be at least 0, got '-1'"),
        (["--draw-at-empty", "225"], "draw at empty must be 0..224"),
    ],
)
def test_bad_options_give_one_clear_error(tmp_path: Path, args: list[str], message: str) -> None:
    openings = tmp_path / "op.txt"
    openings.write_text("0,0\n")
    args = [str(openings) if a == "OPENINGS" else a for a in args]
    run = referee("match", "gomoku", "random", "random", *args, "--out", str(tmp_path / "o"))
    assert run.returncode == 2
    assert message in run.stderr
    assert "Traceback" not in run.stderr


def test_unknown_program_is_a_clear_error(tmp_path: Path) -> None:
    run = referee("match", "gomoku", "random", "./no-such-brain", "--out", str(tmp_path))
    assert run.returncode == 2
    assert "no-such-brain does not exist" in run.stderr
    run = referee("match", "gomoku", "random", "nosuchprogram-xyz", "--out", str(tmp_path))
    assert "not a built-in bot and is not found on PATH" in run.stderr


def test_brain_refusing_the_size_ends_the_match_clearly(tmp_path: Path) -> None:
    run = referee("match", "gomoku", "random", f"{INSTANT} --refuse 9", "--size", "9",
                  "--out", str(tmp_path))
    assert run.returncode == 2
    assert "refuses the 9x9 board (START 9): ERROR unsupported size 9" in run.stderr


def test_export_of_a_bad_record_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text("[]")
    run = referee("export", "gomoku", str(bad))
    assert run.returncode == 2 and "x.json: not a valid game record" in run.stderr


def test_planowanie_match_rotates_seats_and_writes_records(tmp_path: Path) -> None:
    run = referee("match", "planowanie", "heuristic", "random", "random", "--seed", "3",
                  "--out", str(tmp_path / "out"))
    assert run.returncode == 0, run.stderr
    assert "game 3/3" in run.stdout and "Match result" in run.stdout
    seatings = []
    for n in (1, 2, 3):
        record = json.loads((tmp_path / "out" / f"game-00{n}.json").read_text())
        assert record["game"] == "planowanie" and record["outcome"] == "normal"
        assert record["seed"] == 3 and record["settings"]["players"] == 3
        assert record["scores"] == [float(p) for p in record["settings"]["points"]]
        seatings.append([p["name"] for p in record["players"]])
    assert seatings == [["heuristic", "random#1", "random#2"],
                        ["random#1", "random#2", "heuristic"],
                        ["random#2", "heuristic", "random#1"]]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["random"], "planowanie needs 2 to 4 players, got 1"),
        (["random", "random", "--deals", "1 30 0"], "deal 1: 30 cards for 2 players need 60"),
        (["random", "random", "--values", "22"], "deck values '22' repeat a character"),
        (["random", "random", "--game-time", "-1s"], "'-1s' is not a duration"),
        (["random", "random", "--games", "0"], "must be at least 1, got '0'"),
        (["random", "./no-such-player"], "no-such-player does not exist"),
    ],
)
def test_bad_planowanie_options_give_one_clear_error(tmp_path: Path, args: list[str],
                                                     message: str) -> None:
    run = referee("match", "planowanie", *args, "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert run.returncode == 2
    assert message in run.stderr
    assert "Traceback" not in run.stderr


def test_json_summary_of_a_match(tmp_path: Path) -> None:
    run = referee("match", "gomoku", "threat", "random", "--games", "2", "--seed", "3",
                  "--size", "9", "--out", str(tmp_path), "--json")
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)  # standard output holds the JSON alone
    assert (summary["game"], summary["seed"], summary["players"]) == ("gomoku", 3,
                                                                      ["threat", "random"])
    assert [g["index"] for g in summary["games"]] == [1, 2]
    assert {g["outcome"] for g in summary["games"]} == {"normal"}
    points = {s["player"]: s["points"] for s in summary["standings"]}
    assert sum(points.values()) == 2.0
    assert "Match result" in run.stderr  # what people read went to stderr


def test_json_summary_of_ratings(tmp_path: Path) -> None:
    pgn = tmp_path / "r.pgn"
    pgn.write_text('[White "a"]\n[Black "b"]\n[Result "1-0"]\n\n1-0\n\n'
                   '[White "b"]\n[Black "a"]\n[Result "1/2-1/2"]\n\n1/2-1/2\n')
    run = referee("ratings", str(pgn), "--json")
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    assert summary["games"] == 2 and summary["connected"] is True
    assert [p["player"] for p in summary["players"]] == ["a", "b"]
    assert "Rank Name" in run.stderr


def test_old_command_spellings_still_run_with_a_warning(tmp_path: Path) -> None:
    rules = tmp_path / "rules.txt"
    rules.write_text("(*,*,*,*,[0,1,2,3])\n")
    new = subprocess.run([sys.executable, "-m", "referee.cli", "play", "gohr", str(rules), "2",
                          "seed=1"], input="DISPLAY\nEXIT\n", capture_output=True, text=True,
                         timeout=60)
    old = subprocess.run([sys.executable, "-m", "referee.cli", "gohr", str(rules), "2",
                          "seed=1"], input="DISPLAY\nEXIT\n", capture_output=True, text=True,
                         timeout=60)
    assert new.returncode == old.returncode == 0, old.stderr
    assert old.stdout == new.stdout
    assert old.stderr.startswith("referee: warning: 'referee gohr' is deprecated and will be "
                                 "removed: use 'referee play gohr'")
    run = referee("mahjong", "serve", "--port", "-1", "--seed", "1")
    assert run.returncode == 2 and "--port" in run.stderr


def test_piped_tables_keep_long_names_whole(tmp_path: Path) -> None:
    name = "a-player-whose-name-is-much-longer-than-an-eighty-column-table-x"
    path = tmp_path / "t.toml"
    path.write_text(f'name = "wide"\ngame = "gomoku"\nconcurrency = 1\nsandbox = "off"\n'
                    f'[settings]\nsize = 10\n'
                    f'[[players]]\nname = "{name}"\ncommand = "{INSTANT}"\n'
                    f'[[players]]\nname = "b"\nbuiltin = "random"\n')
    run = referee("tournament", str(path), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    rows = [line for line in run.stdout.splitlines() if line.startswith("│")]
    assert sum(name in row for row in rows) == 2, run.stdout  # standings and ratings


def test_two_matches_started_in_the_same_second_get_folders_of_their_own(
        tmp_path: Path) -> None:
    command = [sys.executable, "-m", "referee.cli", "match", "gomoku", "random", "random",
               "--games", "1", "--size", "9"]
    runs = [subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for run in runs:
        assert run.wait(timeout=120) == 0, run.communicate()
    folders = sorted((tmp_path / "referee-out").iterdir())
    assert len(folders) == 2, folders
    assert all(len(list(f.glob("game-*.json"))) == 1 for f in folders)


@pytest.mark.parametrize("game", [
    ["gomoku", "random", "random", "--games", "1", "--size", "9"],
    ["planowanie", "random", "random", "--games", "1"],
    ["riichi", *["tsumogiri"] * 4, "--game", "east"],
])
def test_out_onto_an_earlier_match_refuses_unless_overwrite(tmp_path: Path,
                                                            game: list[str]) -> None:
    out = tmp_path / "out"
    first = referee("match", *game, "--out", str(out), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    earlier = {p.name: p.read_bytes() for p in out.glob("game-*") if p.is_file()}
    assert earlier
    (out / "notes.txt").write_text("the organiser's own file")

    again = referee("match", *game, "--out", str(out), cwd=tmp_path)
    assert again.returncode == 2
    assert again.stderr.startswith(f"referee: error: --out {out}: the folder is not empty")
    assert "--overwrite" in again.stderr and "Traceback" not in again.stderr
    untouched = {p.name: p.read_bytes() for p in out.glob("game-*") if p.is_file()}
    assert untouched == earlier

    (out / "game-009.json").write_text("{}")  # an earlier, longer match's last game
    replaced = referee("match", *game, "--out", str(out), "--overwrite", cwd=tmp_path)
    assert replaced.returncode == 0, replaced.stderr
    assert not (out / "game-009.json").exists()
    assert sorted(p.name for p in out.glob("game-*") if p.is_file()) == sorted(earlier)
    assert (out / "notes.txt").read_text() == "the organiser's own file"


def test_out_through_a_loop_of_symbolic_links_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    run = referee("match", "gomoku", "random", "random", "--out", "a", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr == ("referee: error: --out a: a loop of symbolic links; "
                          "choose another folder\n")


def test_the_referee_s_warnings_are_lines_like_its_others(tmp_path: Path) -> None:
    # a program over its memory limit is killed with a logged warning: said as the
    # referee's other lines are, not as 'WARNING referee.core.process: ...'
    run = referee("match", "gomoku", "random", "random", "--games", "1", "--size", "9",
                  "--memory", "1M", "--out", "out", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    lines = run.stderr.splitlines()
    assert lines and all(line.startswith("referee: warning: ") for line in lines), lines
    assert any(line.endswith("over the limit of 1.0 MB: killing it") for line in lines), lines
    record = json.loads((tmp_path / "out" / "game-001.json").read_text())
    assert record["outcome"] == "memory-limit"
