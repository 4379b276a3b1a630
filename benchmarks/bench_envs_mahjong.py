"""ICGA Mahjong's PettingZoo environment: the cost of a step against the bare engine's,
and 1,000 random legal games without error (issue 23).

For the icga and taiwan tai tables: the mean time of one env step (``env.step`` +
``env.last()``) and of one bare engine step (``to_play`` + ``legal_actions`` + ``apply``)
over the same random legal games, and their ratio (the issue's target: at most 2); then
1,000 random legal games of ``--hands`` hands through ``agent_iter`` (the tables
alternating). ``env_steps.py`` says what is timed.

Run: ``.venv/bin/python benchmarks/bench_envs_mahjong.py [--games N] [--rollout N]
[--hands N] [--json]``
"""

from __future__ import annotations

import argparse
import json
import platform

from env_steps import compare, rollout

from referee.envs import make
from referee.games.mahjong.game import MahjongGame

TABLES = ("icga", "taiwan")


def main() -> None:
    """Measure and print (or ``--json``: one JSON line)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="games per timing run")
    parser.add_argument("--rollout", type=int, default=1000, help="games of the rollout")
    parser.add_argument("--hands", type=int, default=16, help="hands per game")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result: dict[str, object] = {"machine": platform.machine(),
                                 "python": platform.python_version(), "hands": args.hands}
    for scoring in TABLES:
        env = make("mahjong", hands=args.hands, scoring=scoring)
        rules = env.game.rules
        times = compare(lambda seed, r=rules: MahjongGame(seed, r),
                        lambda engine: engine.hand.legal_actions(), env, args.games)
        result[scoring] = {"bare_us": round(times.bare * 1e6, 2),
                           "env_us": round(times.env * 1e6, 2),
                           "ratio": round(times.ratio, 2), "steps": times.env_steps}
    steps = 0
    seconds = 0.0
    for k, scoring in enumerate(TABLES):
        games = args.rollout // 2 + (k < args.rollout % 2)
        played, spent = rollout(make("mahjong", hands=args.hands, scoring=scoring), games)
        steps, seconds = steps + played, seconds + spent
    result["rollout"] = {"games": args.rollout, "steps": steps, "seconds": round(seconds, 1),
                         "errors": 0}
    if args.json:
        print(json.dumps(result))
        return
    print(f"machine: {result['machine']}, Python {result['python']}; {args.hands} hands a "
          "game; best of 3 runs")
    for scoring in TABLES:
        row = result[scoring]
        assert isinstance(row, dict)
        print(f"{scoring:>6} table: env step {row['env_us']:>6} us, bare engine step "
              f"{row['bare_us']:>6} us, ratio {row['ratio']:>5}")
    print(f"rollout: {args.rollout} random legal games, {steps} steps in {seconds:.1f} s, "
          "no error")


if __name__ == "__main__":
    main()
