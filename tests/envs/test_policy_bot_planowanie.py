"""``referee bot planowanie --policy module:callable``: a Python policy plays real matches
over the Planowanie protocol, seeing at every decision exactly what the environment shows
that seat; its faults are the referee's to judge."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from referee.core.match import play_game
from referee.core.policy import PolicyError
from referee.core.record import GameRecord, PlayerInfo
from referee.envs import make
from referee.games.planowanie.env import EnvPlanowanieGame, PlanowanieEnvGame
from referee.games.planowanie.policy_bot import PolicyPlayer, run_policy
from referee.games.planowanie.protocol import PlanowanieSeat

POLICIES = Path(__file__).resolve().parents[1] / "policies"
OPTION_SETS = [
    {"players": 2, "deals": "3 2 0 3 1 1 0"},
    {"players": 3, "values": "9TJQKA", "suits": "SHD", "deals": "4 1 0 3 1 6 2 2 0"},
    {"players": 4, "values": "789TJQKA", "suits": "HSDC"},
    {"players": 4},
]


def bot(policy: str) -> str:
    return (f"{sys.executable} -m referee.cli bot planowanie --policy first_legal:{policy} "
            f"--path {POLICIES}")


def match(tmp_path: Path, *players: str) -> dict[str, Any]:
    run = subprocess.run([sys.executable, "-m", "referee.cli", "match", "planowanie",
                          *players, "--games", "2", "--deals", "3 2 0 3 1 1 0",
                          "--out", str(tmp_path / "out"), "--json"],
                         capture_output=True, text=True, timeout=180, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    return dict(json.loads(run.stdout))


def test_a_policy_plays_a_real_match_as_the_environment_numbers_it(tmp_path: Path) -> None:
    result = match(tmp_path, bot("policy"), "random", "random")
    for game in result["games"]:
        assert game["outcome"] == "normal", game
    record = GameRecord.read(tmp_path / "out" / "game-001.json")
    env = make("planowanie", players=3, deals="3 2 0 3 1 1 0")
    engine = EnvPlanowanieGame(env.game.layout, record.seed)  # type: ignore[arg-type]
    moves = 0
    for move in record.moves:  # the policy's: always the first legal action
        seat = engine.to_play()
        assert seat == move.seat
        first = int(np.flatnonzero(env.game.legal_mask(engine, seat))[0])
        action = env.game.action(engine, seat, first)
        if seat == 0:
            assert move.move == engine.notation(action)
            moves += 1
        else:
            action = next(a for a in engine.legal_actions()
                          if engine.notation(a) == move.move)
        engine.apply(seat, action)
    assert moves == 3 + 2 + 3 + 1  # three declarations, then one card a trick


@pytest.mark.parametrize(("policy", "outcome", "said"), [
    ("raises", "crash", "the policy failed: ZeroDivisionError: my bug"),
    ("not_a_number", "crash", "the policy returned 'e5', not an action number"),
    ("illegal", "illegal-move", "played 'declare_0', not a card of the deck"),
])
def test_a_faulty_policy_is_a_faulty_player(tmp_path: Path, policy: str, outcome: str,
                                            said: str) -> None:
    result = match(tmp_path, "random", bot(policy))
    for game in result["games"]:  # (declaring 0 is legal: the cards are not)
        assert game["outcome"] == outcome and said in game["reason"], game
        assert game["offender"] == game["players"].index(result["players"][1])


class Wire:
    """A player program in-process: the referee's commands go to a ``PolicyPlayer``
    (``PlanowanieSeat`` speaks to it as to a process)."""

    def __init__(self, loop: PolicyPlayer) -> None:
        self.loop = loop
        self.name = "policy"
        self.process = self

    def tell(self, *commands: str) -> None:
        for command in commands:
            self.loop.handle(command.split())

    def decide(self, command: str) -> tuple[str, float]:
        return self.loop.handle(command.split()), 0.0

    def cpu_time(self) -> float:
        return 0.0

    def end_turn(self) -> None:
        """Nothing to check."""


def checked(game: PlanowanieEnvGame, engine: EnvPlanowanieGame, seat: int,
            rng: random.Random, asked: list[int]) -> Any:
    """A policy for ``seat`` that checks what it is shown against the environment's view
    of the referee's engine, then plays a random legal action."""
    def policy(observation: dict[str, Any]) -> int:
        assert engine.to_play() == seat
        assert np.array_equal(observation["observation"], game.observe(engine, seat))
        mask = game.legal_mask(engine, seat)
        assert np.array_equal(observation["action_mask"], mask)
        asked.append(seat)
        return int(rng.choice(np.flatnonzero(mask)))
    return policy


def play_checked(game: PlanowanieEnvGame, seed: int) -> tuple[GameRecord, list[int]]:
    """A game of policy players over the referee's seats, every one checking its view."""
    rules = game.rules
    engine = game.new_engine(seed)
    rng = random.Random(seed)
    asked: list[int] = []
    seats: list[Any] = []
    for seat in range(rules.players):
        loop = PolicyPlayer(checked(game, engine, seat, rng, asked))
        for command in (f"set_deck {rules.deck.values} {rules.deck.suits}",
                        f"set_players {rules.players} {seat}",
                        f"set_game {rules.set_game_args()}"):
            loop.handle(command.split())
        seats.append(PlanowanieSeat(Wire(loop), seat))  # type: ignore[arg-type]
    record = GameRecord("planowanie", [PlayerInfo(f"p{s}") for s in range(rules.players)])
    return play_game(engine, seats, record), asked


@pytest.mark.parametrize("options", OPTION_SETS)
def test_the_bot_sees_what_the_environment_shows_the_seat(options: dict[str, Any]) -> None:
    game: PlanowanieEnvGame = make("planowanie", **options).game  # type: ignore[assignment]
    for seed in range(6):
        record, asked = play_checked(game, seed)
        assert record.outcome is not None and record.outcome.value == "normal"
        assert len(asked) == len(record.moves) == game.rules.total_actions


def test_the_protocol_loop_answers_and_a_failing_policy_stops_it() -> None:
    commands = ("set_deck 9TJQKA SHD\nset_players 2 1\nset_game 1 2 1\n"
                "set_cards 2 AS 9D\ntime_left 100\ngen_declare\n")
    out = io.StringIO()
    assert run_policy(lambda observation: 2, stdin=io.StringIO(commands), stdout=out) == 0
    assert out.getvalue() == "=\n\n" * 5 + "= 2\n\n"
    out = io.StringIO()
    with pytest.raises(PolicyError, match="not an action number from 0 to 20"):
        run_policy(lambda observation: 21, stdin=io.StringIO(commands), stdout=out)
    out = io.StringIO()  # a card while declaring: no number of tricks
    run_policy(lambda observation: 3 + 5, stdin=io.StringIO(commands), stdout=out)
    assert out.getvalue().endswith("= card_AS\n\n")
