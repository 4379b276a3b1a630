"""Riichi mahjong referee speed: in-process self-play and a game over pipes.

- the engine alone: east-south games of four tsumogiri players choosing from the engine's
  legal actions, one core;
- in-process: east-south games of four tsumogiri policies, then four greedy ones, each
  seat over its own masked view (:func:`referee.games.riichi.match.self_play`), one core.
- over pipes: :func:`play_riichi` with four built-in bot processes (``--bots``, default
  tsumogiri): games per second and the referee's share of the CPU (its own user+system
  seconds over the wall time; the bots' time is theirs).

Run: ``.venv/bin/python benchmarks/bench_riichi.py`` (``--json`` for one JSON line).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import tempfile
import time
from pathlib import Path

from referee.core.players import PlayerSpec, builtin_command
from referee.games.riichi.match import (
    BUILTIN_PLAYERS,
    POLICIES,
    RiichiMatchSettings,
    play_riichi,
    self_play,
)
from referee.games.riichi.rules import RiichiGame, RiichiRules


def in_process(policy: str, games: int) -> dict[str, float]:
    """Games and hands per second of four in-process policies (east-south)."""
    hands = 0
    start = time.perf_counter()
    for seed in range(games):
        result = self_play([POLICIES[policy]] * 4, RiichiRules(), seed=seed)
        hands += len(result.game.results)
    wall = time.perf_counter() - start
    return {"games_per_s": games / wall, "hands_per_s": hands / wall}


def engine_only(games: int) -> dict[str, float]:
    """Games and hands per second of the engine alone with four tsumogiri players that
    decide from the engine's own legal actions (no seat views): what the engine costs."""
    hands = 0
    start = time.perf_counter()
    for seed in range(games):
        game = RiichiGame(RiichiRules(), seed=seed)
        while not game.over:
            for seat in sorted(game.pending()):
                legal = game.legal_actions(seat)
                pick = next((a for a in legal if a.type == "dahai" and a.tsumogiri), None)
                if pick is None:
                    pick = next((a for a in legal if a.type in ("none", "dahai")), legal[0])
                game.apply(seat, pick)
                if game.over:
                    break
        hands += len(game.results)
    wall = time.perf_counter() - start
    return {"games_per_s": games / wall, "hands_per_s": hands / wall}


def over_pipes(bot: str, games: int, game_length: str) -> dict[str, float]:
    """Games per second through four bot processes, and the referee's CPU share."""
    players = [PlayerSpec(f"{bot}{s}", builtin_command(BUILTIN_PLAYERS[bot]), True)
               for s in range(4)]
    own = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(games):
            play_riichi(players, RiichiMatchSettings(RiichiRules(game_length=game_length),
                                                     seed=seed), Path(tmp) / str(seed))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - own.ru_utime) + (after.ru_stime - own.ru_stime)
    return {"games_per_s": games / wall, "referee_cpu_share": cpu / wall,
            "seconds_per_game": wall / games}


def main() -> None:
    """Run the benchmarks and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="in-process tsumogiri games")
    parser.add_argument("--greedy-games", type=int, default=3, help="in-process greedy games")
    parser.add_argument("--pipe-games", type=int, default=2, help="games over pipes")
    parser.add_argument("--bots", choices=sorted(BUILTIN_PLAYERS), default="tsumogiri")
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    args = parser.parse_args()
    figures = {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
                   f"load {os.getloadavg()[0]:.2f}",
        "tsumogiri_engine_only": engine_only(args.games),
        "tsumogiri_in_process": in_process("tsumogiri", args.games),
        "greedy_in_process": in_process("greedy", args.greedy_games),
        f"{args.bots}_over_pipes_south": over_pipes(args.bots, args.pipe_games, "south"),
    }
    if args.json:
        print(json.dumps(figures))
        return
    for name, value in figures.items():
        if isinstance(value, dict):
            print(f"{name}: " + ", ".join(f"{k} {v:.3g}" for k, v in value.items()))
        else:
            print(f"{name}: {value}")


if __name__ == "__main__":
    main()
