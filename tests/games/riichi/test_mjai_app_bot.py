"""A bot the referee did not write: mjai.app's reference bot (the ``mjai`` package, 0.2.1),
whose game state is Mortal's libriichi, plays whole games over the referee's pipes. It
must accept every event the referee sends (the rules in ``start_game`` included) and
answer legally; libriichi refusing an event shows as an exception in the bot's stderr.

``mjai`` needs ``mahjong`` 1.2, the project ``mahjong`` 2: it gets its own virtual
environment (``.cache/mjai-0.2.1``, made once from PyPI; the test is skipped, saying so,
when PyPI cannot be reached)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
BOT = Path(__file__).with_name("bots") / "mjai_app_bot.py"
MJAI = "mjai==0.2.1"


@pytest.fixture(scope="module")
def mjai_python() -> Path:
    """A Python with mjai.app's ``mjai`` package, made on first use."""
    venv = ROOT / ".cache" / "mjai-0.2.1"
    python = venv / "bin" / "python"
    check = [str(python), "-c", "import mjai.bot.riichibot"]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return python
    made = subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)],
                          capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    try:
        pip = subprocess.run([str(python), "-m", "pip", "install", "-q", MJAI],
                             capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        pytest.skip(f"could not install {MJAI} from PyPI in 300 s")
    if pip.returncode != 0:
        pytest.skip(f"could not install {MJAI} from PyPI: {pip.stderr.strip()[-300:]}")
    assert subprocess.run(check, capture_output=True).returncode == 0
    return python


@pytest.mark.parametrize("room", ["tenhou", "mahjong_soul"])
def test_mjai_apps_bot_plays_whole_games_with_the_referee(mjai_python: Path, tmp_path: Path,
                                                          room: str) -> None:
    bot = f"{mjai_python} {BOT} {{seat}}"
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "referee.cli", "match", "riichi", "--game",
                          "east", "--room", room, "--seed", "3", "--rotations", "2",
                          "--batched", "1", "--batched", "3", "--sandbox", "off",
                          "--out", str(out), bot, "greedy", bot, "tsumogiri"],
                         capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    records = sorted(out.glob("game-*.json"))
    assert len(records) == 2
    for path in records:
        record = json.loads(path.read_text())
        assert record["outcome"] == "normal", record["reason"]
        assert not record.get("faults"), record["faults"]
        mjai_seats = [s for s, p in enumerate(record["players"]) if "mjai_app_bot" in
                      p["name"]]
        assert len(mjai_seats) == 2
        assert sum(1 for m in record["moves"] if m["seat"] in mjai_seats) > 50
        start = json.loads(gzip.decompress(path.with_suffix(".mjson.gz").read_bytes())
                           .split(b"\n", 1)[0])
        assert start["type"] == "start_game" and start["rules"]["game_length"] == "east"
    logs = sorted(out.rglob("*mjai_app_bot*.stderr.log"))
    assert len(logs) == 4  # two seats, two games
    for log in logs:
        assert "Exception" not in log.read_text(), log.read_text()[-2000:]
    replay = subprocess.run([sys.executable, "-m", "referee.cli", "replay", "riichi",
                             *map(str, sorted(out.glob("game-*.mjson.gz")))],
                            capture_output=True, text=True, timeout=300)
    assert replay.returncode == 0, replay.stdout + replay.stderr
