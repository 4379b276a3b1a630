"""The benchmarks' native bots (``benchmarks/brains/*.c``) play the games of the Python
bots they stand for, move for move, over real pipes: the figures measured with them are of
the same games (issue 25)."""

from __future__ import annotations

import gzip
import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from referee.core.clock import TimeControl
from referee.core.players import PlayerSpec
from referee.core.sandbox import OFF
from referee.games.gomoku.match import GomokuMatch, GomokuSettings
from referee.games.riichi.bots import tsumogiri
from referee.games.riichi.bots.player import View, decide
from referee.games.riichi.match import BUILTIN_PLAYERS, RiichiMatchSettings, play_riichi
from referee.games.riichi.rules import RiichiRules

ROOT = Path(__file__).resolve().parents[1]
INSTANT = ROOT / "tests" / "brains" / "instant.py"


def _native_module() -> object:
    spec = importlib.util.spec_from_file_location("bench_native",
                                                  ROOT / "benchmarks" / "native.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NATIVE = _native_module()


def build(name: str, folder: Path) -> str:
    """The native bot ``name`` built in ``folder`` (the test skipped without a compiler)."""
    try:
        return str(NATIVE.native(name, folder))  # type: ignore[attr-defined]
    except NATIVE.NoCompiler as exc:  # type: ignore[attr-defined]
        pytest.skip(str(exc))


def gomoku_moves(players: list[list[str]], out: Path) -> list[list[str]]:
    """The moves of two 15x15 games between ``players`` (sandbox off, suspended)."""
    settings = GomokuSettings(width=15, height=15, games=2, psq=False, sandbox=OFF,
                              time=TimeControl(turn=5.0, game=None, tolerance=0.5))
    result = GomokuMatch([PlayerSpec(f"p{i}", argv) for i, argv in enumerate(players)],
                         settings, out).run()
    for record in result.records:
        assert record.outcome is not None and record.outcome.value == "normal", record.reason
    return [[move.move for move in record.moves] for record in result.records]


def test_the_native_instant_brain_plays_the_python_brains_games(tmp_path: Path) -> None:
    native = [build("instant_gomoku", tmp_path / "build")]
    python = [sys.executable, str(INSTANT), "--pattern"]
    expected = gomoku_moves([python, python], tmp_path / "python")
    assert [len(moves) for moves in expected] == [225, 225]  # the board filled, drawn
    assert gomoku_moves([native, native], tmp_path / "native") == expected
    assert gomoku_moves([native, python], tmp_path / "mixed") == expected


def riichi_log(command: list[str], seed: int, out: Path) -> list[str]:
    """The mjai log of a game of four copies of ``command`` (sandbox off), without its
    ``start_game`` line (it names the players); no failure allowed."""
    players = [PlayerSpec(f"t{seat}", command) for seat in range(4)]
    record = play_riichi(players, RiichiMatchSettings(RiichiRules(), seed=seed, sandbox=OFF),
                         out)
    assert not record.notes, [note.text for note in record.notes]
    with gzip.open(out / "game.mjson.gz", "rt", encoding="utf-8") as log:
        return log.read().splitlines()[1:]


def test_the_native_tsumogiri_bot_plays_the_python_bots_game(tmp_path: Path) -> None:
    native = [build("tsumogiri_mjai", tmp_path / "build")]
    python = [sys.executable, "-m", BUILTIN_PLAYERS["tsumogiri"]]
    expected = riichi_log(python, 0, tmp_path / "python")
    assert riichi_log(native, 0, tmp_path / "native") == expected


SUITS = [f"{n}{s}" for s in "mps" for n in range(1, 10)]
HONOURS = list("ESWNPFC")


def complete_hand(rng: random.Random) -> list[str]:
    """Fourteen tiles that make a complete hand: four sets and a pair, seven pairs or
    thirteen orphans (red fives now and then)."""
    shape = rng.random()
    if shape < 0.1:
        orphans = [t for t in SUITS if t[0] in "19"] + HONOURS
        return [*orphans, rng.choice(orphans)]
    if shape < 0.25:
        return [t for t in rng.sample(SUITS + HONOURS, 7) for _ in range(2)]
    while True:
        tiles = []
        for _ in range(4):
            if rng.random() < 0.5:
                tiles += [rng.choice(SUITS + HONOURS)] * 3
            else:
                start = rng.choice([t for t in SUITS if t[0] <= "7"])
                tiles += [f"{int(start[0]) + i}{start[1]}" for i in range(3)]
        tiles += [rng.choice(SUITS + HONOURS)] * 2
        if all(tiles.count(t) <= 4 for t in tiles):
            return tiles


def with_red(tiles: list[str], rng: random.Random) -> list[str]:
    """``tiles`` with one of its fives, if any, red."""
    fives = [i for i, t in enumerate(tiles) if t[0] == "5" and len(t) == 2]
    if fives and rng.random() < 0.3:
        i = rng.choice(fives)
        tiles = [*tiles[:i], tiles[i] + "r", *tiles[i + 1:]]
    return tiles


def test_the_native_tsumogiri_bot_answers_as_the_python_bot(tmp_path: Path) -> None:
    """After its draw, wins (complete hands of every shape) or discards the tile drawn
    (random hands), as the Python bot decides; ``none`` to every other event. (No other
    seat discards here: the Python bot would win on a discard, the native one never
    does.)"""
    program = build("tsumogiri_mjai", tmp_path / "build")
    rng = random.Random(25)
    events: list[dict[str, object]] = [
        {"type": "start_game", "names": ["a", "b", "c", "d"], "id": 2}]
    for case in range(300):
        tiles = complete_hand(rng) if case % 2 == 0 else rng.sample(
            [t for t in SUITS + HONOURS for _ in range(4)], 14)
        tiles = with_red(tiles, rng)
        rng.shuffle(tiles)
        drawn, hand = tiles[0], tiles[1:]
        events += [
            {"type": "start_kyoku", "bakaze": "E", "kyoku": 1, "honba": 0, "kyotaku": 0,
             "oya": 0, "dora_marker": "1p", "scores": [25000] * 4,
             "tehais": [["?"] * 13, ["?"] * 13, hand, ["?"] * 13]},
            {"type": "tsumo", "actor": 1, "pai": "?"},
            {"type": "tsumo", "actor": 2, "pai": drawn},
            {"type": "end_kyoku"}]
    events.append({"type": "end_game"})
    lines = "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events)
    run = subprocess.run([program], input=lines, capture_output=True, text=True, timeout=60,
                         check=True)
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    view = View()
    expected = []
    for event in events:
        view.update(event)
        expected.append(decide(view, tsumogiri.policy))
    assert len(answers) == len(events)
    assert answers == expected
    assert sum(a["type"] == "hora" for a in answers) >= 150  # every complete hand wins
