"""``referee bot mahjong --policy module:callable``: a Python policy plays real matches as
an ICGA AI, seeing at every question exactly what the environment shows that seat; its
faults are the referee's to judge (the dummy AI takes the seat over, a fault recorded)."""

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
from referee.core.players import PlayerSpec
from referee.core.policy import PolicyError
from referee.core.record import GameRecord
from referee.envs import make
from referee.games.mahjong.bots.policies import greedy_policy
from referee.games.mahjong.env import EnvMahjongGame, MahjongEnvGame
from referee.games.mahjong.match import ClientSeat, MahjongSettings, new_record
from referee.games.mahjong.policy_bot import (
    PolicyAI,
    hand_number,
    run_policy_ai,
)
from referee.games.mahjong.rules import Rules
from referee.games.mahjong.scoring import preset

POLICIES = Path(__file__).resolve().parents[1] / "policies"


def bot(policy: str, hands: int = 2) -> str:
    return (f"{sys.executable} -m referee.cli bot mahjong --hands {hands} --policy "
            f"first_legal:{policy} --path {POLICIES}")


def match(tmp_path: Path, *players: str, hands: int = 2) -> dict[str, Any]:
    run = subprocess.run([sys.executable, "-m", "referee.cli", "match", "mahjong", *players,
                          "--hands", str(hands), "--seed", "5", "--out",
                          str(tmp_path / "out"), "--json"],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    return dict(json.loads(run.stdout))


def test_a_policy_plays_a_real_match_as_the_environment_numbers_it(tmp_path: Path) -> None:
    result = match(tmp_path, bot("policy"), "greedy", "random", "random")
    game = result["games"][0]
    assert game["outcome"] == "normal" and not game["faults"], game
    record = GameRecord.read(tmp_path / "out" / "game-001.json")
    env_game: MahjongEnvGame = make("mahjong", hands=2).game  # type: ignore[assignment]
    engine = env_game.new_engine(5)
    mine = 0
    for move in record.moves:  # the policy's answers: always the first legal action
        seat = engine.to_play()
        assert seat == move.seat
        legal = engine.hand.legal_actions()
        action = next(a for a in legal if engine.notation(a) == move.move)
        if seat == 0:
            first = int(np.flatnonzero(env_game.legal_mask(engine, seat))[0])
            assert env_game.index(engine, seat, action) == first
            mine += 1
        engine.apply(seat, action)
    assert engine.to_play() is None and mine > 10


@pytest.mark.parametrize(("policy", "outcome", "said"), [
    ("raises", "crash", "the policy failed: ZeroDivisionError: my bug"),
    ("not_a_number", "crash", "the policy returned 'e5', not an action number"),
    ("illegal", "illegal-move", ""),
])
def test_a_faulty_policy_is_a_faulty_ai(tmp_path: Path, policy: str, outcome: str,
                                        said: str) -> None:
    result = match(tmp_path, "random", "random", bot(policy), "random", hands=1)
    game = result["games"][0]
    assert game["outcome"] == "normal"  # a Mahjong game goes on: the dummy AI takes over
    assert [(f["seat"], f["outcome"]) for f in game["faults"]] == [(2, outcome)], game
    assert said in game["faults"][0]["reason"]
    record = GameRecord.read(tmp_path / "out" / "game-001.json")
    if policy == "illegal":  # the answer the mask forbids went to the referee as it was
        illegal = [m.move for m in record.moves if m.info.get("illegal")]
        assert len(illegal) == 1 and illegal[0].startswith("/throw 11"), illegal  # a 1-Wan


class Wire:
    """An AI in-process: one ``PolicyAI`` per hand, as the referee starts a program per
    hand; its working folder (the hand file) is ``folder``."""

    def __init__(self, policy: Any, rules: Rules, folder: Path) -> None:
        self.name = self.command = "policy"
        self.policy, self.rules, self.folder = policy, rules, folder
        self.ai: PolicyAI | None = None
        self.answers: list[str] = []
        self.gone = False
        self.move_time: float | None = None  # (the game's)

    def open(self, hand: int) -> None:
        self.ai = PolicyAI(self.policy, self.rules, self.folder / "hand")

    def send(self, text: str, deadline: float) -> None:
        assert self.ai is not None
        for line in text.splitlines():
            answer = self.ai.hear(line)
            if answer is not None:
                self.answers.append(answer)

    def read_line(self, deadline: float) -> str:
        return self.answers.pop(0)

    def stray_line(self) -> str | None:
        """An answer given while asked nothing (none: the AI answers questions only)."""
        return self.answers.pop(0) if self.answers else None

    def close(self, grace: float) -> None:
        self.ai = None

    def cpu_time(self) -> float | None:
        return None

    def end_turn(self) -> None:
        """Nothing to check."""


OPTION_SETS = [
    {"hands": 4},
    {"hands": 2, "scoring": "taiwan", "kong_from_previous": True, "reserve": 0},
    {"hands": 19},  # more than the wire tells apart: the hand file counts them
]


def checked(game: MahjongEnvGame, engine: EnvMahjongGame, seat: int, rng: random.Random,
            asked: list[int]) -> Any:
    """A policy for ``seat`` that checks what it is shown against the environment's view
    of the referee's engine, then answers mostly as the greedy AI (it claims, kongs and
    wins), else at random."""
    def policy(observation: dict[str, Any]) -> int:
        assert engine.to_play() == seat
        assert np.array_equal(observation["observation"], game.observe(engine, seat))
        mask = game.legal_mask(engine, seat)
        assert np.array_equal(observation["action_mask"], mask)
        asked.append(seat)
        if rng.random() < 0.7:
            return game.index(engine, seat, greedy_policy(engine.hand.view(seat), rng))
        return int(rng.choice(np.flatnonzero(mask)))
    return policy


def play_checked(game: MahjongEnvGame, seed: int, folder: Path
                 ) -> tuple[EnvMahjongGame, GameRecord, list[int]]:
    """A game of policy AIs over the referee's seats, every one checking its view."""
    rules = game.rules
    engine = game.new_engine(seed)
    rng = random.Random(seed)
    asked: list[int] = []
    settings = MahjongSettings(rules=rules, seed=seed)
    channels = [Wire(checked(game, engine, s, rng, asked), rules, folder / f"{seed}-{s}")
                for s in range(4)]
    for channel in channels:
        channel.folder.mkdir()
    clients: list[Any] = [ClientSeat(c, s, settings) for s, c in enumerate(channels)]
    record = new_record([PlayerSpec(f"p{s}", ("p",)) for s in range(4)], settings)
    play_game(engine, clients, record)
    for client in clients:
        client.finish(engine)
    return engine, record, asked


@pytest.mark.parametrize("options", OPTION_SETS)
def test_the_bot_sees_what_the_environment_shows_the_seat(options: dict[str, Any],
                                                           tmp_path: Path) -> None:
    game: MahjongEnvGame = make("mahjong", **options).game  # type: ignore[assignment]
    for seed in range(3 if game.rules.hands > 4 else 6):
        engine, record, asked = play_checked(game, seed, tmp_path)
        assert record.outcome is not None and record.outcome.value == "normal"
        assert not record.faults and len(asked) == len(record.moves) > 0
        assert len(engine.results) == game.rules.hands


def test_hand_numbers_past_sixteen_come_from_the_hand_file(tmp_path: Path) -> None:
    memory = tmp_path / "hand"
    assert hand_number(5, 16, memory) == 5 and not memory.exists()  # the wire says it all
    numbers = [hand_number(n % 16, 20, memory) for n in range(20)]
    assert numbers == list(range(20)) and memory.read_text() == "19\n"
    assert hand_number(0, 20, memory) == 0  # a new game (20 is past its end)
    memory.write_text("7\n")
    assert hand_number(2, 20, memory) == 2  # the file does not fit: the wire's number
    memory.write_text("garbage")
    assert hand_number(3, 40, memory) == 3


def test_one_hand_per_run_and_a_failing_policy_stops_it() -> None:
    lines = ["/start MJ 2 ai\n", "/initGame EAST SOUTH 1 2 0\n",
             "/initCard 110 111 112 113 120 121 122 123 130 131 132 133 140 141 142 143 "
             "150\n", "/ask throw\n", "/exit 0 0 0 0\n", "/ask throw\n"]
    out = io.StringIO()
    assert run_policy_ai(lambda observation: 4, Rules(hands=2), lines, out) == 0
    assert out.getvalue() == "/throw 150\n"  # kind 4 (5-Wan), once: the run ends at /exit
    with pytest.raises(PolicyError, match="the policy failed: KeyError"):
        run_policy_ai(lambda observation: {}["x"], Rules(table=preset("icga")), lines,
                      io.StringIO())


def test_before_its_question_a_seat_may_do_nothing() -> None:
    ai = PolicyAI(lambda observation: 0, Rules())
    for line in ("/start MJ 1 ai", "/initGame EAST EAST 1 1 0", "/initCard 110 111 150"):
        ai.hear(line)
    assert ai.wire is not None and isinstance(ai.wire.engine, EnvMahjongGame)
    seen = ai.observation()
    assert seen["observation"][0].sum() == 3 and not seen["action_mask"].any()
