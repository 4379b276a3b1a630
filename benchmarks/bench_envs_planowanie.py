"""Planowanie's PettingZoo environment: the cost of a step against the bare engine's, and
1,000 random legal games without error (issue 23).

For 2, 3 and 4 players with the tournament deck and deals: the mean time of one env step
(``env.step`` + ``env.last()``) and of one bare engine step (``to_play`` +
``legal_actions`` + ``apply``) over the same random legal games, and their ratio (the
issue's target: at most 2); then 1,000 random legal games through ``agent_iter`` (the
players cycling 2, 3, 4). ``env_steps.py`` says what is timed.

Run: ``.venv/bin/python benchmarks/bench_envs_planowanie.py [--games N] [--rollout N]
[--json]``
"""

from __future__ import annotations

import argparse
import json
import platform

from env_steps import compare, rollout

from referee.envs import make
from referee.games.planowanie.rules import PlanowanieGame


def main() -> None:
    """Measure and print (or ``--json``: one JSON line)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30, help="games per timing run")
    parser.add_argument("--rollout", type=int, default=1000, help="games of the rollout")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result: dict[str, object] = {"machine": platform.machine(),
                                 "python": platform.python_version()}
    for players in (2, 3, 4):
        env = make("planowanie", players=players)
        rules = env.game.rules
        times = compare(lambda seed, r=rules: PlanowanieGame(r, seed),
                        lambda engine: engine.legal_actions(), env, args.games)
        result[f"players_{players}"] = {"bare_us": round(times.bare * 1e6, 2),
                                        "env_us": round(times.env * 1e6, 2),
                                        "ratio": round(times.ratio, 2),
                                        "steps": times.env_steps}
    steps = 0
    seconds = 0.0
    for players in (2, 3, 4):
        games = args.rollout // 3 + (players - 2 < args.rollout % 3)
        played, spent = rollout(make("planowanie", players=players), games)
        steps, seconds = steps + played, seconds + spent
    result["rollout"] = {"games": args.rollout, "steps": steps, "seconds": round(seconds, 1),
                         "errors": 0}
    if args.json:
        print(json.dumps(result))
        return
    print(f"machine: {result['machine']}, Python {result['python']}; best of 3 runs")
    for players in (2, 3, 4):
        row = result[f"players_{players}"]
        assert isinstance(row, dict)
        print(f"{players} players: env step {row['env_us']:>6} us, bare engine step "
              f"{row['bare_us']:>5} us, ratio {row['ratio']:>5}")
    print(f"rollout: {args.rollout} random legal games, {steps} steps in {seconds:.1f} s, "
          "no error")


if __name__ == "__main__":
    main()
