"""The tournament file: validation reports every mistake with its key and reason."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from referee.core.errors import ConfigError
from referee.games.registry import game_adapters
from referee.tournament.config import load_tournament

GOOD = """
name = "demo"
game = "gomoku"
seed = 3
concurrency = 2

[schedule]
kind = "round-robin"
rounds = 2

[settings]
rule = "renju"
size = 12
timeout_turn = 800
openings = "openings.txt"

[[players]]
name = "threat"
builtin = "threat"

[[players]]
name = "rand"
builtin = "random"
cpus = [0]

[[players]]
name = "mine"
command = "python3 brain.py --fast"
"""


def write(tmp_path: Path, text: str, openings: str = "0,0\n1,1, 0,1\n") -> Path:
    (tmp_path / "openings.txt").write_text(openings)
    (tmp_path / "brain.py").write_text("print('hi')\n")
    path = tmp_path / "t.toml"
    path.write_text(text)
    return path


def test_a_good_file(tmp_path: Path) -> None:
    t = load_tournament(write(tmp_path, GOOD), game_adapters())
    assert t.name == "demo" and t.spec.seed == 3 and t.concurrency() == 2
    assert t.concurrency(5) == 5
    assert [p.name for p in t.players] == ["threat", "rand", "mine"]
    assert t.players[0].command[:2] == [sys.executable, "-m"]
    assert t.players[1].cpus == (0,)
    assert t.players[2].command == ["python3", str(tmp_path / "brain.py"), "--fast"]
    assert t.settings.width == 12 and t.settings.rule.value == "renju"
    assert t.settings.time.turn == 0.8
    assert t.adapter.opening_count(t.settings) == 2
    assert t.output == Path("referee-out/demo").resolve()


def test_fingerprint_follows_what_decides_the_games(tmp_path: Path) -> None:
    base = load_tournament(write(tmp_path, GOOD), game_adapters()).fingerprint()
    same = load_tournament(write(tmp_path, GOOD.replace("concurrency = 2", "concurrency = 7")),
                           game_adapters()).fingerprint()
    other_seed = load_tournament(write(tmp_path, GOOD.replace("seed = 3", "seed = 4")),
                                 game_adapters()).fingerprint()
    other_openings = load_tournament(write(tmp_path, GOOD, openings="0,0\n"),
                                     game_adapters()).fingerprint()
    assert base == same
    assert len({base, other_seed, other_openings}) == 3


@pytest.mark.parametrize(
    ("change", "messages"),
    [
        (('kind = "round-robin"', 'kind = "knockout"'),
         ["t.toml: schedule.kind: must be one of 'round-robin', 'gauntlet', 'swiss' or 'itpw', "
          "got 'knockout'"]),
        (("rounds = 2", "rounds = 0"), ["schedule.rounds: must be at least 1, got 0"]),
        (("size = 12", "size = 40"), ["t.toml: settings.size: must be at most 32, got 40"]),
        (('rule = "renju"', 'rule = "chess"'), ["settings.rule: unknown rule 'chess'"]),
        (("timeout_turn = 800", "timeout_turn = 800\ncolour = 1"),
         ["t.toml: settings.colour: unknown key (check its spelling)"]),
        (('builtin = "random"', 'builtin = "rnd"'),
         ["players[1].builtin: unknown built-in 'rnd' (known: random, threat)"]),
        (('name = "mine"', 'name = "threat"'), ["player names must be unique: threat"]),
        (('game = "gomoku"', 'game = "go"'),
         ["game: unknown game 'go' (known: gomoku, mahjong, planowanie, riichi)"]),
        (('command = "python3 brain.py --fast"', ""),
         ["players[2]: give either command or builtin"]),
        (("seed = 3", "seed = -1\nspeed = 2"),
         ["t.toml: seed: must be at least 0, got -1",
          "t.toml: speed: unknown key (check its spelling)"]),
        (('openings = "openings.txt"', 'openings = "nope.txt"'), ["nope.txt: cannot read"]),
        (('[schedule]', '[sprt]\nelo0 = 5\nelo1 = 1\n[schedule]'),
         ["sprt: elo1 must be greater than elo0"]),
    ],
)
def test_mistakes_name_key_and_reason(tmp_path: Path, change: tuple[str, str],
                                      messages: list[str]) -> None:
    assert change[0] in GOOD
    with pytest.raises(ConfigError) as caught:
        load_tournament(write(tmp_path, GOOD.replace(*change)), game_adapters())
    for message in messages:
        assert message in str(caught.value)


def test_sprt_needs_two_players(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="sprt needs exactly 2 players"):
        load_tournament(write(tmp_path, GOOD.replace("[schedule]", "[sprt]\n[schedule]")),
                        game_adapters())


def test_not_toml_and_missing_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("name = \n")
    with pytest.raises(ConfigError, match="bad.toml: not valid TOML"):
        load_tournament(bad, game_adapters())
    with pytest.raises(ConfigError, match="cannot read"):
        load_tournament(tmp_path / "none.toml", game_adapters())
