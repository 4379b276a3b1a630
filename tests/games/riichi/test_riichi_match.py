"""The mjai referee with real bot processes over pipes: a whole game with its record and
mjai log (replayed through the engine), masking, each fault replaced by the safe default
and counted, forfeits, batched mode, the built-in policies in-process, the CLI."""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.core.players import PlayerSpec, builtin_command
from referee.games.riichi.logrules import start_game_event
from referee.games.riichi.match import (
    BUILTIN_PLAYERS,
    POLICIES,
    RiichiMatchSettings,
    encode_event,
    mask_event,
    play_riichi,
    run_match,
    self_play,
)
from referee.games.riichi.mjai import read_mjai
from referee.games.riichi.replay import verify_file
from referee.games.riichi.rules import RiichiRules

BRAIN = Path(__file__).resolve().parents[2] / "brains" / "riichi_faulty.py"
EAST = RiichiRules(game_length="east")


def builtin(name: str, tag: str = "") -> PlayerSpec:
    return PlayerSpec(name + tag, builtin_command(BUILTIN_PLAYERS[name]), True)


def faulty(mode: str, times: int = 1) -> PlayerSpec:
    return PlayerSpec(f"faulty-{mode}",
                      [sys.executable, str(BRAIN), "--mode", mode, "--times", str(times)])


def received(folder: Path, seat: int, name: str) -> list[object]:
    path = folder / "work" / f"seat{seat + 1}-{name}" / "received.txt"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_full_east_game_over_pipes_writes_a_replayable_log(tmp_path: Path) -> None:
    players = [builtin("greedy", "-a"), builtin("tsumogiri", "-b"),
               builtin("greedy", "-c"), builtin("tsumogiri", "-d")]
    records = run_match(players, RiichiMatchSettings(EAST, seed=11), 1, tmp_path)
    record = records[0]
    assert record.notes == [] and record.scores is not None
    assert sum(record.settings["points"]) == 100000
    assert (tmp_path / "game-001.json").exists()
    log = tmp_path / "game-001.mjson.gz"
    events = [e.to_dict() for e in read_mjai(log)]
    assert events[0]["type"] == "start_game" and events[-1]["type"] == "end_game"
    assert all(e["pai"] != "?" for e in events if e["type"] == "tsumo")  # unmasked
    report = verify_file(log, EAST)  # every event is the engine's, scores to the end
    assert report.ended and report.final is not None
    assert [f.points for f in report.final] == record.settings["points"]
    assert [f.score for f in report.final] == record.scores


def test_bots_never_see_another_seats_draws(tmp_path: Path) -> None:
    players = [builtin("tsumogiri", "-a"), faulty("ok"), builtin("greedy"),
               builtin("tsumogiri", "-b")]
    record = play_riichi(players, RiichiMatchSettings(EAST, seed=2), tmp_path)
    assert record.notes == []
    seen = received(tmp_path, 1, "faulty-ok")
    assert seen[0] == {**start_game_event([p.name for p in players], EAST), "id": 1}
    events = [e for e in seen if isinstance(e, dict)]
    draws = [e for e in events if e["type"] == "tsumo"]
    assert {e["pai"] for e in draws if e["actor"] != 1} == {"?"}
    assert all(e["pai"] != "?" for e in draws if e["actor"] == 1)
    for start in (e for e in events if e["type"] == "start_kyoku"):
        for seat, hand in enumerate(start["tehais"]):
            assert (set(hand) == {"?"}) == (seat != 1)
    assert events[-1]["type"] == "end_game"


def test_masking_hides_only_what_it_must() -> None:
    tsumo = {"type": "tsumo", "actor": 2, "pai": "5mr"}
    assert mask_event(tsumo, 2) == tsumo and mask_event(tsumo, 0)["pai"] == "?"
    dahai = {"type": "dahai", "actor": 2, "pai": "5mr", "tsumogiri": True}
    assert mask_event(dahai, 0) == dahai


def test_each_event_is_serialised_once_per_view() -> None:
    game = self_play([POLICIES["greedy"]] * 4, EAST, seed=4).game
    events = [start_game_event(["a", "b", "c", "d"], EAST), *game.events]
    kinds = set()
    for event in events:
        lines = encode_event(event)
        assert [json.loads(line) for line in lines] == [mask_event(event, s) for s in range(4)]
        assert all(line.endswith("}\n") and line.count("\n") == 1 for line in lines)
        distinct = len({id(line) for line in lines})
        kinds.add(event["type"])
        assert distinct == {"tsumo": 2, "start_kyoku": 4, "start_game": 4}.get(event["type"], 1)
    assert {"tsumo", "dahai", "hora", "end_game"} <= kinds


@pytest.mark.parametrize(("mode", "kind", "detail"), [
    ("garbage", "garbage", "Expecting value"),
    ("unknown", "garbage", "unknown action type 'tsumogiri_please'"),
    ("badtile", "garbage", "'0m' is not an mjai tile name"),
    ("illegal", "illegal", "not in the hand"),
    ("late", "late", ""),
    # answers to lines that ask nothing are read when the bot is next needed: still checked
    ("unasked", "unasked", "an answer where nothing was asked"),
    ("late-none", "late", ""),
])
def test_a_fault_is_replaced_by_the_safe_default_and_counted(tmp_path: Path, mode: str,
                                                              kind: str, detail: str) -> None:
    players = [builtin("tsumogiri", "-a"), faulty(mode), builtin("tsumogiri", "-b"),
               builtin("tsumogiri", "-c")]
    # every decision has 2 s; the late bot answers at 5 s
    settings = RiichiMatchSettings(EAST, seed=3, decision_time=2.0)
    record = play_riichi(players, settings, tmp_path)
    failures = [n for n in record.notes if n.kind == "failure"]
    assert len(failures) == 1 and failures[0].seat == 1
    assert failures[0].text.startswith(kind) and "hand " in failures[0].text
    assert detail in failures[0].text
    assert not [n for n in record.notes if n.kind == "forfeit"]
    assert record.settings["failure_counts"] == [0, 1, 0, 0]
    assert record.outcome is not None and record.outcome.value == "normal"
    report = verify_file(tmp_path / "game.mjson.gz", EAST)  # the game went on to its end
    assert report.ended and report.final is not None
    assert [f.points for f in report.final] == record.settings["points"]


def test_a_decision_is_timed_without_the_bots_start_up(tmp_path: Path) -> None:
    # the start-up (here 0.8 s of CPU before reading anything) is start_game's answer;
    # a decision's seconds and CPU count from the events that lead to it
    # (seat 0 deals first: its first decision is the game's first question)
    players = [faulty("slow-start"), builtin("tsumogiri", "-a"), builtin("tsumogiri", "-b"),
               builtin("tsumogiri", "-c")]
    record = play_riichi(players, RiichiMatchSettings(EAST, seed=3), tmp_path)
    assert record.notes == []
    first = record.moves[0]
    assert first.seat == 0 and first.info["cpu_ms"] < 400 and first.ms < 700, first
    assert all("cpu_ms" in m.info for m in record.moves)


@pytest.mark.parametrize("mode", ["busy", "busy-after"])
def test_a_moves_cpu_is_what_its_bot_spent_from_the_question_to_its_answer(
        tmp_path: Path, mode: str) -> None:
    # seat 0's bot spends 50 ms of CPU on each of its first 3 decisions: before its
    # answer (counted), or just after it (not the move's: the figure ends at the answer)
    players = [faulty(mode, times=3), builtin("tsumogiri", "-a"),
               builtin("tsumogiri", "-b"), builtin("tsumogiri", "-c")]
    record = play_riichi(players, RiichiMatchSettings(EAST, seed=3), tmp_path)
    assert record.notes == []
    own = [m for m in record.moves if m.seat == 0 and "cpu_ms" in m.info]
    assert len(own) > 6
    if mode == "busy":
        assert all(m.info["cpu_ms"] >= 45 and m.ms >= 45 for m in own[:3]), own[:3]
    else:
        assert all(m.info["cpu_ms"] < 45 for m in own[:3]), own[:3]
    assert all(m.info["cpu_ms"] < 45 for m in own[3:]), own[3:]
    others = [m for m in record.moves if m.seat != 0]
    assert others and all(0 <= m.info["cpu_ms"] < 45 for m in others)


def test_a_hung_bot_costs_its_failures_decision_times_not_one_per_line(
        tmp_path: Path) -> None:
    """A bot that stops answering is waited for at its decisions (each a failure, up to
    the forfeit) and, once silent through two waits in a row, not for the answers it owes
    to what it is told meanwhile (each of those cost a decision time: about 35 of them)."""
    players = [builtin("tsumogiri", "-a"), faulty("hang"), builtin("tsumogiri", "-b"),
               builtin("tsumogiri", "-c")]
    settings = RiichiMatchSettings(EAST, seed=3, decision_time=1.0)
    began = time.monotonic()
    record = play_riichi(players, settings, tmp_path)
    took = time.monotonic() - began
    assert record.settings["failure_counts"] == [0, 5, 0, 0]
    forfeits = [n for n in record.notes if n.kind == "forfeit"]
    assert len(forfeits) == 1 and forfeits[0].seat == 1 and "5 failures" in forfeits[0].text
    assert took < 6 * settings.decision_time + 4, took  # five decisions, one more wait


def test_repeated_faults_forfeit(tmp_path: Path) -> None:
    players = [builtin("tsumogiri", "-a"), faulty("garbage", times=50),
               builtin("tsumogiri", "-b"), builtin("tsumogiri", "-c")]
    record = play_riichi(players, RiichiMatchSettings(EAST, seed=3, max_failures=3), tmp_path)
    assert len([n for n in record.notes if n.kind == "failure"]) == 3
    forfeits = [n for n in record.notes if n.kind == "forfeit"]
    assert len(forfeits) == 1 and forfeits[0].seat == 1 and "3 failures" in forfeits[0].text
    assert record.scores is not None and len(record.scores) == 4
    assert "forfeited: faulty-garbage" in record.reason
    # counted as the seat's fault (the standings' faults column)
    assert [(f.seat, f.outcome) for f in record.faults] == [(1, "illegal-move")]


def test_a_crash_forfeits_at_once(tmp_path: Path) -> None:
    players = [builtin("tsumogiri", "-a"), builtin("tsumogiri", "-b"), faulty("crash"),
               builtin("tsumogiri", "-c")]
    record = play_riichi(players, RiichiMatchSettings(EAST, seed=5), tmp_path)
    forfeits = [n for n in record.notes if n.kind == "forfeit"]
    assert len(forfeits) == 1 and forfeits[0].seat == 2 and "crash" in forfeits[0].text
    assert record.settings["hands"] >= 4 and record.scores is not None
    assert [(f.seat, f.outcome) for f in record.faults] == [(2, "crash")]


def test_batched_bots_get_arrays_and_play_the_same_game(tmp_path: Path) -> None:
    players = [builtin("greedy", "-a"), faulty("ok"), builtin("tsumogiri", "-b"),
               builtin("greedy", "-c")]
    plain = play_riichi(players, RiichiMatchSettings(EAST, seed=8), tmp_path / "plain")
    batched = play_riichi(players, RiichiMatchSettings(EAST, seed=8,
                                                       batched=(True, True, False, True)),
                          tmp_path / "batched")
    assert batched.notes == [] and batched.settings["points"] == plain.settings["points"]
    lines = received(tmp_path / "batched", 1, "faulty-ok")
    assert all(isinstance(line, list) for line in lines)
    assert lines[0][0]["type"] == "start_game"  # type: ignore[index]
    assert lines[-1][-1]["type"] == "end_game"  # type: ignore[index]


def test_greedy_clearly_outscores_tsumogiri_over_200_hands() -> None:
    """Duplicate play: one greedy bot and three tsumogiri bots on the same walls, the greedy
    bot in each of the four seats in turn, over 200 hands and more. Every answer is legal;
    the greedy bot's mean score change a hand is above every tsumogiri seat's by more than
    five standard errors, and its mean final result is positive while theirs is not."""
    hand_deltas: dict[str, list[int]] = {"greedy": [], "tsumogiri": []}
    finals: dict[str, list[float]] = {"greedy": [], "tsumogiri": []}
    wins = {"greedy": 0, "tsumogiri": 0}
    for seed in range(5):
        for rotation in range(4):
            seated = ["tsumogiri"] * 4
            seated[rotation] = "greedy"
            result = self_play([POLICIES[name] for name in seated], RiichiRules(),
                               seed=1000 + seed)
            assert result.illegal == [[], [], [], []]
            for outcome in result.game.results:
                for seat, delta in enumerate(outcome.deltas):
                    hand_deltas[seated[seat]].append(delta)
                    wins[seated[seat]] += outcome.reason == "hora" and delta > 0
            for seat, final in enumerate(result.game.final_scores()):
                finals[seated[seat]].append(final.score)
    hands = len(hand_deltas["greedy"])
    assert hands >= 200
    greedy = hand_deltas["greedy"]
    error = statistics.stdev(greedy) / math.sqrt(hands)
    assert statistics.mean(greedy) - 5 * error > statistics.mean(hand_deltas["tsumogiri"])
    assert statistics.mean(finals["greedy"]) > 0 >= statistics.mean(finals["tsumogiri"])
    assert wins["greedy"] > wins["tsumogiri"], wins


def test_cli_plays_and_names_bad_options(tmp_path: Path) -> None:
    referee = [sys.executable, "-m", "referee.cli"]
    run = subprocess.run([*referee, "match", "riichi", "greedy", "tsumogiri", "tsumogiri",
                          "tsumogiri", "--game", "east", "--seed", "1", "--out",
                          str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "Match result" in run.stdout and (tmp_path / "game-001.mjson.gz").exists()
    for bad, word in ((["--game", "west"], "--game"), (["--rotations", "5"], "--rotations"),
                      (["--move-time", "0s"], "--move-time"),
                      (["--batched", "7"], "--batched")):
        run = subprocess.run([*referee, "match", "riichi", "greedy", "tsumogiri",
                              "tsumogiri", "tsumogiri", *bad, "--out", str(tmp_path / "x")],
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 2 and word in run.stderr
        assert "Traceback" not in run.stderr


SEAT_BOT = Path(__file__).resolve().parents[2] / "brains" / "riichi_seat.py"


def test_a_seat_placeholder_gives_each_bot_its_seat_in_every_rotation(tmp_path: Path) -> None:
    """mjai.app bots read their seat from their first argument: ``{seat}`` is replaced by
    the seat each plays, and the bot crashes (forfeits) when ``start_game`` disagrees."""
    command = f"{sys.executable} {SEAT_BOT} {{seat}}"
    run = subprocess.run([sys.executable, "-m", "referee.cli", "match", "riichi",
                          command, command, command, command, "--game", "east",
                          "--rotations", "2", "--seed", "5", "--batched", "3",
                          "--out", str(tmp_path / "out")],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    for number in (1, 2):
        record = json.loads((tmp_path / "out" / f"game-{number:03d}.json").read_text())
        assert "forfeits" not in record["settings"] and "failures" not in record["settings"]
        for seat in range(4):
            name = record["players"][seat]["name"]
            text = (tmp_path / "out" / f"game-{number}" / "work" / f"seat{seat + 1}-{name}"
                    / "seat.txt").read_text()
            assert text.split() == [str(seat), str(seat)]
    fixed = PlayerSpec("fixed", [sys.executable, str(SEAT_BOT), "0"])  # no placeholder
    record = play_riichi([fixed] * 4, RiichiMatchSettings(EAST, seed=5), tmp_path / "fixed")
    assert sorted(f["seat"] for f in record.settings["forfeits"]) == [1, 2, 3]
