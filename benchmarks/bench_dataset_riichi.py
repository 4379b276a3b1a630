"""``referee dataset riichi``: decisions written per second, and memory that stays flat in
the number of games (the Riichi sibling of ``bench_dataset.py``).

Makes ``--games`` east games of random legal actions (Tenhou's rules, through the
environment) and writes them as the referee's match records (``game-NNNNN.json``: the
seed, every answer but the passes) in a temporary folder; then runs ``write_dataset`` on
them in a child process, timing it and reading the child's peak memory (ru_maxrss). The
same again with ten times the games. The issue's targets: at least 10,000 decisions a
second on one core, and the same peak within 10 %. ``--logs`` times the other source, the
games' mjai logs (replayed and checked event by event, as ``referee replay riichi`` does).

Run: ``.venv/bin/python benchmarks/bench_dataset_riichi.py [--games 100] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
from pathlib import Path

import numpy as np
from dataset_runs import play_random, small_and_large
from figures import print_figures

from referee.core.outcome import Outcome
from referee.core.record import GameRecord, PlayerInfo
from referee.envs import make
from referee.games.riichi.actions import action_to_mjai
from referee.games.riichi.logrules import start_game_event
from referee.games.riichi.mjai import event_from_dict, write_mjai
from referee.games.riichi.rulesets import rules_to_dict


def make_games(folder: Path, count: int, seed: int, logs: bool) -> None:
    """``count`` random legal east games as records (or, ``logs``, as mjai logs)."""
    env = make("riichi", game="east")
    rng = np.random.default_rng(seed)
    names = ["a", "b", "c", "d"]
    for index in range(count):
        moves: list[tuple[int, str]] = []

        def played(seat: int, number: int, moves: list[tuple[int, str]] = moves) -> None:
            action = env.game.action(env.engine, seat, number)
            if action.type != "none":
                moves.append((seat, json.dumps(action_to_mjai(action))))

        play_random(env, rng, seed * 1_000_003 + index, played)
        engine = env.engine
        rules = env.game.rules
        record = GameRecord("riichi", [PlayerInfo(n) for n in names],
                            settings={"game_length": rules.game_length,
                                      "rules": rules_to_dict(rules)},
                            seed=engine.game.seed, index=index + 1)
        for seat, move in moves:
            record.add_move(seat, move, 0.0)
        record.finish([float(s) for s in engine.scores()], Outcome.NORMAL, "end")
        if logs:
            write_mjai(folder / f"game-{index + 1:05d}.mjson.gz", (
                event_from_dict(e) for e in [start_game_event(names, rules),
                                             *engine.game.events]))
        else:
            record.write(folder / f"game-{index + 1:05d}.json")


def main() -> None:
    """Measure both sizes and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--logs", action="store_true",
                        help="mjai logs as the source instead of the referee's records")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result: dict[str, object] = {"machine": f"{platform.machine()}, {os.cpu_count()} cores",
                                 "python": platform.python_version(),
                                 "source": "mjai logs" if args.logs else "records"}
    def made(folder: Path, count: int, seed: int) -> None:
        make_games(folder, count, seed, args.logs)

    result.update(small_and_large("riichi", made, args.games))
    print_figures(result, args.json)


if __name__ == "__main__":
    main()
