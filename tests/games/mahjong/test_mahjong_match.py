"""Local mode with real AI processes over pipes: whole games, the dummy AI taking over a
seat that misbehaves (with the takeover in the record), duplicate rotations, the CLI."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from referee.core.players import PlayerSpec, builtin_command
from referee.games.mahjong.match import MahjongSettings, play_mahjong, run_match
from referee.games.mahjong.rules import Rules

BRAIN = Path(__file__).resolve().parents[2] / "brains" / "mahjong_faulty.py"


def builtin(name: str) -> PlayerSpec:
    return PlayerSpec(name, builtin_command(f"referee.games.mahjong.bots.{name}_ai"), True)


def faulty(mode: str) -> PlayerSpec:
    return PlayerSpec(f"faulty-{mode}", [sys.executable, str(BRAIN), "--mode", mode])


def test_a_game_of_reference_ais_over_pipes(tmp_path: Path) -> None:
    players = [builtin("greedy"), builtin("random"), faulty("ok"), builtin("random")]
    record = play_mahjong(players, MahjongSettings(Rules(hands=4), seed=5, move_time=10),
                          tmp_path)
    assert record.scores is not None and sum(record.scores) == 0
    assert record.notes == []  # nobody was taken over
    hands = record.settings["hands_played"]
    assert len(hands) == 4
    for hand in hands:
        assert sum(hand["payments"]) == 0
    # the "ok" AI logged everything the referee told it over the four hands
    received = (tmp_path / "work" / "seat3-faulty-ok" / "received.txt").read_text().splitlines()
    starts = [line for line in received if line.startswith("/start")]
    assert starts == [f"/start MJ 3 {BRAIN}"] * 4  # the program, the framework's AIPath
    assert [line.split()[:3] for line in received if line.startswith("/initGame")] == [
        ["/initGame", "EAST", "EAST"], ["/initGame", "EAST", "SOUTH"],
        ["/initGame", "EAST", "WEST"], ["/initGame", "EAST", "NORTH"]]
    assert sum(1 for line in received if line.startswith("/exit")) == 4
    init = [line.split() for line in received if line.startswith("/initCard")]
    assert [len(words) - 1 for words in init] == [16, 16, 17, 16]  # seat 3 deals hand 3


@pytest.mark.parametrize("mode", ["garbage", "not-held", "unasked", "silent", "crash"])
def test_a_misbehaving_ai_is_replaced_by_the_dummy_for_the_rest_of_the_hand(
        tmp_path: Path, mode: str) -> None:
    """As the framework says: /exit at once, the dummy AI plays the rest of the hand; the
    program is started again for the next hand (and misbehaves again). Each takeover is a
    fault of the seat."""
    players = [builtin("random"), faulty(mode), builtin("random"), builtin("random")]
    record = play_mahjong(players, MahjongSettings(Rules(hands=2), seed=2, move_time=1.5),
                          tmp_path)
    takeovers = [n for n in record.notes if n.kind == "takeover-at"]
    assert [(n.seat, n.text.split(":")[0]) for n in takeovers] == [(1, "hand 1"),
                                                                   (1, "hand 2")]
    assert "to the end of the hand" in takeovers[0].text
    assert record.outcome is not None and record.outcome.value == "normal"
    assert len(record.settings["hands_played"]) == 2  # the game went on to its end
    assert [f.seat for f in record.faults] == [1, 1]
    assert {f.outcome for f in record.faults} == {
        "crash" if mode == "crash" else "timeout" if mode == "silent" else
        "illegal-move" if mode in ("not-held", "unasked") else "protocol-error"}
    received = (tmp_path / "work" / "seat2-faulty-" f"{mode}" / "received.txt").read_text()
    if mode in ("garbage", "not-held", "unasked"):
        assert received.splitlines()[-1] == "/exit"  # told to stop at once, as the spec says
    assert received.count("/start") == 2  # started again for the second hand


def test_a_stray_line_is_the_fault_named(tmp_path: Path) -> None:
    """An AI that writes one line more than it was asked for: the stray line is the fault
    (it was read as its answer to the next question, and blamed on it: "there is no
    discard to claim")."""
    players = [builtin("random"), faulty("extra"), builtin("random"), builtin("random")]
    record = play_mahjong(players, MahjongSettings(Rules(hands=1), seed=2, move_time=5),
                          tmp_path)
    assert [(f.seat, f.outcome) for f in record.faults] == [(1, "protocol-error")]
    reason = record.faults[0].reason
    assert re.fullmatch(r"faulty-extra: sent '/pass' when it was asked nothing \(after its answer "
                        r"'/throw \d+' to /ask throw\)", reason), reason
    thrown = reason.split("'")[3]
    before = [m.move for m in record.moves[:record.faults[0].ply] if m.seat == 1]
    assert before[-1] == thrown  # its last answer was its throw: the /pass was none
    received = (tmp_path / "work" / "seat2-faulty-extra" / "received.txt").read_text()
    assert received.splitlines()[-1] == "/exit"


def test_the_dummy_keeps_the_seat_for_the_game_when_asked(tmp_path: Path) -> None:
    players = [builtin("random"), faulty("garbage"), builtin("random"), builtin("random")]
    settings = MahjongSettings(Rules(hands=2), seed=2, move_time=1.5, takeover="game",
                               start_path="command")
    record = play_mahjong(players, settings, tmp_path)
    takeovers = [n for n in record.notes if n.kind == "takeover-at"]
    assert len(takeovers) == 1 and "to the end of the game" in takeovers[0].text
    assert [f.seat for f in record.faults] == [1]
    received = (tmp_path / "work" / "seat2-faulty-garbage" / "received.txt").read_text()
    assert received.count("/start") == 1  # the dummy plays the second hand
    assert received.splitlines()[0] == f"/start MJ 2 {' '.join(players[1].command)}"
    assert record.settings["takeover"] == "game"


def test_faults_of_a_takeover_reach_the_match_summary(tmp_path: Path) -> None:
    import io

    from rich.console import Console

    from referee.output import results_table

    players = [builtin("random"), faulty("crash"), builtin("random"), builtin("random")]
    record = play_mahjong(players, MahjongSettings(Rules(hands=2), seed=2, move_time=1.5),
                          tmp_path)
    out = io.StringIO()
    Console(file=out, width=120).print(results_table(players, [record], points_game=True))
    row = next(line for line in out.getvalue().splitlines() if "faulty-crash" in line)
    assert row.rstrip(" │").endswith("crash 2")


def test_duplicate_rotations_play_the_same_walls(tmp_path: Path) -> None:
    players = [builtin("greedy"), builtin("random"), builtin("random"), builtin("random")]
    records = run_match(players, MahjongSettings(Rules(hands=1), seed=9), 4, tmp_path)
    assert [r.players[(4 - k) % 4].name for k, r in enumerate(records)] == ["greedy"] * 4
    first_deal = [json.loads(p.read_text())["seed"] for p in sorted(tmp_path.glob("*.json"))]
    assert first_deal == [9, 9, 9, 9]


def test_the_cli_plays_a_match_and_names_bad_options(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "referee.cli", "match", "mahjong", "greedy",
                          "random", "random", "random", "--hands", "2", "--seed", "4",
                          "--out", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "greedy" in run.stdout and (tmp_path / "game-001.json").exists()
    assert json.loads((tmp_path / "game-001.json").read_text())["settings"][
        "kong_from_previous"] is False
    chosen = subprocess.run([sys.executable, "-m", "referee.cli", "match", "mahjong",
                             "greedy", "random", "random", "random", "--hands", "1",
                             "--kong-from-previous", "--takeover", "game", "--start-path",
                             "command", "--out", str(tmp_path / "chosen")],
                            capture_output=True, text=True, timeout=120)
    assert chosen.returncode == 0, chosen.stderr
    settings = json.loads((tmp_path / "chosen" / "game-001.json").read_text())["settings"]
    assert (settings["kong_from_previous"], settings["takeover"]) == (True, "game")
    bad = subprocess.run([sys.executable, "-m", "referee.cli", "match", "mahjong", "greedy",
                          "random", "random", "random", "--hands", "0"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "'--hands': must be at least 1, got '0'" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_the_cli_chooses_the_tai_table(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "referee.cli", "match", "mahjong", "greedy",
                          "random", "random", "random", "--hands", "1", "--seed", "4",
                          "--scoring", "taiwan", "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "taiwan tai table" in run.stdout
    assert json.loads((tmp_path / "game-001.json").read_text())["settings"]["scoring"] == \
        "taiwan"
    for command in (["match", "mahjong", "greedy", "random", "random", "random"],
                    ["serve", "mahjong", "--port", "0", "--seed", "1"]):
        bad = subprocess.run([sys.executable, "-m", "referee.cli", *command,
                              "--scoring", "hk"], capture_output=True, text=True, timeout=60)
        assert bad.returncode == 2 and "Invalid value for '--scoring'" in bad.stderr
        assert "'icga'" in bad.stderr and "'taiwan'" in bad.stderr


def test_the_cli_offers_every_table() -> None:
    from referee.games.mahjong.cli import SCORINGS as MAHJONG_SCORINGS
    from referee.games.mahjong.scoring import PRESETS

    assert sorted(PRESETS) == MAHJONG_SCORINGS


def test_where_the_table_is_chosen_icga_is_said_to_be_the_referee_s_own() -> None:
    """The table named icga is the referee's, not ICGA's (its framework defines none): the
    help of both modes and the results site's words for a tournament's setting say so."""
    from referee.games.mahjong.adapter import MahjongAdapter

    for command in (["match", "mahjong"], ["serve", "mahjong"]):
        shown = subprocess.run([sys.executable, "-m", "referee.cli", *command, "--help"],
                               capture_output=True, text=True, timeout=60,
                               env={**os.environ, "COLUMNS": "200"})
        assert "icga (the referee's own table, not ICGA's: the ICGA framework defines " \
               "none)" in " ".join(shown.stdout.split()), shown.stdout
    setting = MahjongAdapter().shown_setting("scoring", "icga", {})
    assert setting is not None and "not ICGA's" in setting.text


@pytest.mark.parametrize("won_at_deal", [0, 1])
def test_a_hand_won_in_the_deal_is_still_a_session_for_every_ai(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, won_at_deal: int) -> None:
    """With the taiwan table a hand can end while flowers are replaced in the deal (eight
    flowers to one seat), before anyone is asked anything: every AI still gets that hand's
    /start .. /exit with its scores, the first hand of the game as much as the last."""
    from test_mahjong_rules import DEALER_PLACES, flower_wall

    import referee.games.mahjong.game as game_module
    from referee.games.mahjong.scoring import preset

    walls = game_module.make_wall
    first_wall = walls(game_module.hand_seed(3, won_at_deal))

    def crafted(seed: int) -> list[int]:
        wall = walls(seed)
        if wall == first_wall:  # the hand that ends in the deal: all flowers to its dealer
            return flower_wall(DEALER_PLACES, seed=0)
        return wall

    monkeypatch.setattr(game_module, "make_wall", crafted)
    players = [faulty("ok")] + [PlayerSpec(f"ok{k}", faulty("ok").command) for k in (2, 3, 4)]
    record = play_mahjong(players, MahjongSettings(Rules(hands=2, table=preset("taiwan")),
                                                   seed=3), tmp_path)
    hands = record.settings["hands_played"]
    assert hands[won_at_deal]["reason"] == "won on all eight flowers"
    for seat, player in enumerate(players):
        folder = tmp_path / "work" / f"seat{seat + 1}-{player.name}"
        received = (folder / "received.txt").read_text().splitlines()
        assert sum(line.startswith("/start") for line in received) == 2
        exits = [line for line in received if line.startswith("/exit")]
        assert exits[won_at_deal] == "/exit " + " ".join(
            str(p) for p in hands[won_at_deal]["payments"])
