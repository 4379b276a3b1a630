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

from referee.core.errors import ConfigError
from referee.core.players import PlayerSpec
from referee.games.riichi.adapter import RiichiAdapter

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


@pytest.mark.slow
def test_mjai_apps_bot_plays_a_tournament_as_a_batched_player(mjai_python: Path,
                                                             tmp_path: Path) -> None:
    """mjai.app's bot in a tournament: ``options = { batched = true }`` gives it the
    batched style in the player check (it failed it: it answered none to its tsumo as the
    dealer, the events coming one a line) and in every game of the group."""
    command = f'command = [{str(mjai_python)!r}, {str(BOT)!r}, "{{seat}}"]'
    players = "".join(f'[[players]]\nname = "mjai{k}"\n{command}\noptions = {{ batched = '
                      f'true }}\n' for k in (1, 2))
    players += '[[players]]\nname = "g"\nbuiltin = "greedy"\n'
    players += '[[players]]\nname = "t"\nbuiltin = "tsumogiri"\n'
    toml = tmp_path / "apps.toml"
    toml.write_text('name = "apps"\ngame = "riichi"\nseed = 5\nsandbox = "off"\n'
                    '[schedule]\nkind = "itpw"\nrounds = 1\nrandom_rounds = 1\n'
                    '[settings]\ngame = "east"\ndecision_time = 10.0\n' + players)
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "referee.cli", "tournament", str(toml),
                          "--out", str(out), "-j", "2"],
                         capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert len(records) == 4
    for record in records:
        assert record["outcome"] == "normal", record["reason"]
        names = [p["name"] for p in record["players"]]
        assert record["settings"]["batched"] == [n.startswith("mjai") for n in names]
        assert not record["settings"].get("failures"), record["settings"]["failures"]
    for log in out.rglob("*.stderr.log"):
        assert "Exception" not in log.read_text(), log.read_text()[-2000:]
    adapter = RiichiAdapter()  # without the option, the check it failed
    settings = adapter.parse_settings({"game": "east"}, tmp_path, "t.toml")
    plain = PlayerSpec("plain", [str(mjai_python), str(BOT), "{seat}"])
    with pytest.raises(ConfigError, match=r"player plain answered '\{\"type\":\s?\"none\"\}' "
                                          "to its tsumo as the dealer"):
        adapter.check_player(settings, plain, tmp_path / "check")
