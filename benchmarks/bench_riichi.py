"""Riichi mahjong referee speed: in-process self-play and a game over pipes.

- the baseline, measured in the same run: the least any simulator does for a hand, a
  seeded wall dealt to four hands and its 70 live tiles drawn and discarded as mjai-shaped
  event dicts, no rules; the engine's figures are also given as hands per baseline hand
  (a ratio, steadier than games per second on a shared machine);

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
import os
import platform
import resource
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from figures import print_figures

from referee.core.players import PlayerSpec, builtin_command
from referee.core.shuffle import splitmix_shuffle
from referee.games.riichi.match import (
    BUILTIN_PLAYERS,
    POLICIES,
    RiichiMatchSettings,
    play_riichi,
    self_play,
)
from referee.games.riichi.rules import RiichiGame, RiichiRules


def baseline(hands: int) -> float:
    """Hands per second of the bare loop: deal a seeded wall, draw and discard the live
    wall's 70 tiles as event dicts (no rules)."""
    names = [f"{k % 9 + 1}{'mpsz'[k // 9]}" for k in range(34)]
    start = time.perf_counter()
    for seed in range(hands):
        tiles = splitmix_shuffle(range(136), seed)
        held = [tiles[13 * s:13 * s + 13] for s in range(4)]
        events: list[dict[str, object]] = [{"type": "start_kyoku", "tehais": held}]
        for i, tile in enumerate(tiles[66:136]):
            seat = i % 4
            held[seat].append(tile)
            events.append({"type": "tsumo", "actor": seat, "pai": names[tile >> 2]})
            held[seat].remove(tile)
            events.append({"type": "dahai", "actor": seat, "pai": names[tile >> 2],
                           "tsumogiri": True})
    return hands / (time.perf_counter() - start)


def best_of(rounds: int, run: Callable[[], dict[str, float]]) -> dict[str, float]:
    """The fastest of ``rounds`` runs (a shared machine only ever slows a run down)."""
    return max((run() for _ in range(rounds)), key=lambda r: r["games_per_s"])


def in_process(policy: str, games: int) -> dict[str, float]:
    """Games and hands per second of four in-process policies (east-south)."""
    hands = 0
    start = time.perf_counter()
    for seed in range(games):
        result = self_play([POLICIES[policy]] * 4, RiichiRules(), seed=seed)
        hands += len(result.game.results)
    wall = time.perf_counter() - start
    return {"games_per_s": games / wall, "hands_per_s": hands / wall}


def tsumogiri_game(rules: RiichiRules, seed: int) -> RiichiGame:
    """One game on the engine alone, four tsumogiri players choosing among its legal
    actions (the discard of the tile drawn, else a pass or the first discard)."""
    game = RiichiGame(rules, seed=seed)
    while not game.over:
        for seat in sorted(game.pending()):
            legal = game.legal_actions(seat)
            pick = next((a for a in legal if a.type == "dahai" and a.tsumogiri), None)
            if pick is None:
                pick = next((a for a in legal if a.type in ("none", "dahai")), legal[0])
            game.apply(seat, pick)
            if game.over:
                break
    return game


def engine_only(games: int) -> dict[str, float]:
    """Games and hands per second of the engine alone with four tsumogiri players that
    decide from the engine's own legal actions (no seat views): what the engine costs."""
    hands = 0
    start = time.perf_counter()
    for seed in range(games):
        hands += len(tsumogiri_game(RiichiRules(), seed).results)
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
    parser.add_argument("--games", type=int, default=30, help="tsumogiri games a round")
    parser.add_argument("--greedy-games", type=int, default=4, help="in-process greedy games")
    parser.add_argument("--pipe-games", type=int, default=2, help="games over pipes")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; the best is kept")
    parser.add_argument("--bots", choices=sorted(BUILTIN_PLAYERS), default="tsumogiri")
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    args = parser.parse_args()
    in_process("tsumogiri", 3)  # fill the shape tables a long run would have warm
    base = max(baseline(args.games * 12) for _ in range(args.rounds))
    engine = best_of(args.rounds, lambda: engine_only(args.games))
    tsumogiri = best_of(args.rounds, lambda: in_process("tsumogiri", args.games))
    greedy = in_process("greedy", args.greedy_games)
    for part in (engine, tsumogiri, greedy):
        part["hands_per_baseline_hand"] = part["hands_per_s"] / base
    figures = {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
                   f"load {os.getloadavg()[0]:.2f}",
        "baseline_hands_per_s": round(base),
        "tsumogiri_engine_only": engine,
        "tsumogiri_in_process": tsumogiri,
        "greedy_in_process": greedy,
        f"{args.bots}_over_pipes_south": over_pipes(args.bots, args.pipe_games, "south"),
    }
    print_figures({k: {n: round(v, 3) for n, v in value.items()}
                   if isinstance(value, dict) else value for k, value in figures.items()},
                  args.json)


if __name__ == "__main__":
    main()
