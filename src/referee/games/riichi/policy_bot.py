"""A trained policy as an mjai bot: ``referee bot riichi --policy module:callable``.

The bot follows the mjai events its seat receives (:class:`~referee.games.riichi.mirror.
SeatGame`: its own tiles, everyone's public actions) and, when the seat has a decision,
asks the policy with exactly what the Riichi environment (``env.py``) would show that seat
at that decision: the observation and the mask of the engine's legal actions. The policy's
action number (of the environment's ``Discrete(547)``) goes back as the mjai action it
stands for. Where the environment does not ask the seat (an event it may only pass), the
bot answers ``none`` without asking the policy, as the referee expects.

The rules come from ``start_game``: the referee sends the rules played (``rules``), and
other servers may tell the game length (``kyoku_first``) and red fives (``aka_flag``);
what it does not tell comes from the bot's own options (``--room``, ``--game``).

A policy bot is not forgiving: a policy that raises or answers something that is not an
action number stops the bot (:class:`~referee.core.policy.PolicyError`), which the referee
records as a crash; an action number the mask forbids is sent as the action it stands
for, and the referee judges it (an illegal answer, a failure). Both lines (JSON objects,
or mjai.app's batched arrays) are read as :func:`referee.games.riichi.bots.player.run`
reads them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, TextIO

from referee.core.policy import Policy, PolicyError, ask
from referee.games.riichi.actions import action_to_mjai
from referee.games.riichi.env import ACTIONS, RiichiEnvEngine, RiichiEnvGame
from referee.games.riichi.logrules import recorded_rules
from referee.games.riichi.mirror import SeatGame
from referee.games.riichi.mjai import MjaiError
from referee.games.riichi.settings import SEATS, RiichiRules

__all__ = ["PolicyBot", "game_rules", "run"]

NONE = {"type": "none"}


def game_rules(start: Mapping[str, Any], fallback: RiichiRules) -> RiichiRules:
    """The rules a ``start_game`` event tells (all of them in ``rules``, else the length
    in ``kyoku_first`` and red fives in ``aka_flag``), the rest from ``fallback``."""
    try:
        recorded = recorded_rules(start, "start_game")
    except MjaiError as exc:
        raise PolicyError(str(exc)) from None
    if recorded is not None:
        return recorded
    changes: dict[str, Any] = {}
    if start.get("kyoku_first") in (0, 4):
        changes["game_length"] = "east" if start["kyoku_first"] == 4 else "south"
    if isinstance(start.get("aka_flag"), bool):
        changes["red_fives"] = start["aka_flag"]
    return replace(fallback, **changes)


class PolicyBot:
    """One game of mjai for ``policy``: :meth:`answer` follows events and answers."""

    def __init__(self, policy: Policy, rules: RiichiRules) -> None:
        self.policy = policy
        self.fallback = rules
        self.game: SeatGame | None = None
        self.env_game: RiichiEnvGame | None = None
        self.engine: RiichiEnvEngine | None = None
        self.seen = 0
        """Events read so far (numbered from 1 in errors)."""

    def see(self, event: Mapping[str, Any]) -> None:
        """Follow one event; ``PolicyError`` when the events cannot be followed."""
        self.seen += 1
        if not isinstance(event, Mapping) or not isinstance(event.get("type"), str):
            raise PolicyError(f"event {self.seen} is not an mjai event: {event!r}")
        if event["type"] == "start_game":
            self._start(event)
            return
        if self.game is None:
            raise PolicyError(f"event {self.seen} ({event['type']}) before start_game")
        try:
            self.game.see(event)
        except (ValueError, KeyError, TypeError, IndexError, AssertionError) as exc:
            raise PolicyError(f"event {self.seen} ({event['type']}) does not fit the game "
                              f"followed so far: {type(exc).__name__}: {exc}") from None
        assert self.engine is not None
        self.engine.moves += 1

    def _start(self, event: Mapping[str, Any]) -> None:
        seat = event.get("id")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < SEATS:
            raise PolicyError(f"start_game gives no seat (id 0..3): {seat!r}")
        rules = game_rules(event, self.fallback)
        try:
            self.env_game = RiichiEnvGame(rules)
        except ValueError as exc:
            raise PolicyError(str(exc)) from None
        self.game = SeatGame(seat, rules)
        self.engine = RiichiEnvEngine(self.game)

    def asked(self) -> bool:
        """Whether the seat has a decision now."""
        game = self.game
        return (game is not None and not game.over and game.hand is not None
                and game.seat in game.hand.pending())

    def observation(self) -> dict[str, Any]:
        """What the environment shows the seat now (``observation``, ``action_mask``)."""
        game, env_game, engine = self.game, self.env_game, self.engine
        assert game is not None and env_game is not None and engine is not None
        return {"observation": env_game.observe(engine, game.seat),
                "action_mask": env_game.legal_mask(engine, game.seat)}

    def decide(self) -> dict[str, Any]:
        """The policy's answer when the seat has a decision, else ``none``."""
        if not self.asked():
            return dict(NONE)
        game, env_game, engine = self.game, self.env_game, self.engine
        assert game is not None and env_game is not None and engine is not None
        number = ask(self.policy, self.observation(), ACTIONS)
        return action_to_mjai(env_game.action(engine, game.seat, number))

    def answer(self, events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """Follow ``events`` (a line's worth) and answer the last one."""
        for event in events:
            self.see(event)
        return self.decide()


def run(policy: Policy, rules: RiichiRules, stdin: TextIO = sys.stdin,
        stdout: TextIO = sys.stdout) -> int:
    """Play one game over mjai (one answer line per line read) until ``end_game``;
    ``PolicyError`` on a fault of the policy or of the events."""
    bot = PolicyBot(policy, rules)
    for line in stdin:
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError:
            raise PolicyError(f"not a JSON line: {line[:200]!r}") from None
        events = data if isinstance(data, list) else [data]
        answer = bot.answer(events)
        stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
        stdout.flush()
        if any(isinstance(e, Mapping) and e.get("type") == "end_game" for e in events):
            return 0
    return 0
