"""Time and size of the results site of a large tournament: 200 players, 20,000 finished
Gomoku games (15x15, 20 to 80 moves each, some lost by a timeout).

The store is made directly (records built in Python and committed, the disk syncs of the
store skipped: they are the tournament's cost, not the site's), then ``build_site`` is
timed on it. Figures: the build's wall time and games per second, the sizes of index.html,
crosstable.html, games.html and of the whole site, the number of files, the peak RSS of
the process; then the build again into the same folder by the same process (as a running
tournament's refresh does: only changed game pages are written). With ``--old REF`` the
same store is also built by the site code of git revision ``REF`` (a temporary detached
worktree, run in a child process on the same interpreter), for a ratio.

Run: ``.venv/bin/python benchmarks/bench_site.py [--games N] [--players N] [--old main]
[--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from unittest import mock

from figures import print_figures

from referee.core.outcome import Outcome
from referee.core.record import GameRecord, PlayerInfo
from referee.tournament.ratings import BayesEloParams
from referee.tournament.schedule import ScheduledGame
from referee.tournament.store import Store

SIZE = 15
REPO = Path(__file__).resolve().parent.parent


def make_record(key: str, seats: tuple[str, str], rng: random.Random) -> GameRecord:
    """A finished 15x15 game of distinct random stones (a replay can draw it)."""
    record = GameRecord("gomoku", [PlayerInfo(n, ["bot"], {"name": n}) for n in seats],
                        settings={"width": SIZE, "height": SIZE, "rule": "freestyle",
                                  "timeout_turn_ms": 5000, "timeout_match_ms": None,
                                  "tolerance_ms": 500, "max_memory": 256 * 2**20,
                                  "swap2": False, "black": 0, "colors": ["black", "white"],
                                  "game_key": key}, seed=rng.getrandbits(63),
                        opening=[[7, 7]])
    points = rng.sample([(x, y) for x in range(SIZE) for y in range(SIZE) if (x, y) != (7, 7)],
                        rng.randint(20, 80))
    for k, (x, y) in enumerate(points):
        record.add_move((k + 1) % 2, f"{x},{y}", rng.uniform(0.001, 0.3))
    if rng.random() < 0.03:
        loser = rng.randint(0, 1)
        scores = [0.0, 1.0] if loser == 0 else [1.0, 0.0]
        record.finish(scores, Outcome.TIMEOUT, f"{seats[loser]} took 5.2 s for a move",
                      loser)
    else:
        scores = rng.choice([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
        record.finish(scores, Outcome.NORMAL, "five in a row" if scores[0] != 0.5
                      else "the board is full")
    return record


def make_store(folder: Path, players: int, games: int, seed: int) -> float:
    """A store of ``games`` finished games between ``players`` players; returns seconds."""
    start = time.perf_counter()
    rng = random.Random(seed)
    names = [f"player-{k:03d}" for k in range(1, players + 1)]
    scheduled = []
    for n in range(games):
        a, b = rng.sample(names, 2)
        scheduled.append(ScheduledGame(f"r{n // 1000 + 1}:{a}:{b}:{n}", n // 1000 + 1,
                                       (a, b), rng.getrandbits(63)))
    store = Store(folder).open("bench", "site-bench")
    store.db.execute("PRAGMA synchronous=OFF")
    store.add_games(scheduled)
    store.set_meta("tournament", json.dumps({
        "name": "site-bench", "game": "gomoku", "players": names, "schedule": "random",
        "rounds": games // 1000, "total_games": games, "seed": seed,
        "settings": {"width": SIZE, "height": SIZE, "rule": "freestyle",
                     "timeout_turn_ms": 5000, "timeout_match_ms": None, "tolerance_ms": 500,
                     "max_memory": 256 * 2**20, "swap2": False, "openings": [[[0, 0]]]},
        "ratings": asdict(BayesEloParams.gomocup())}))
    with mock.patch("os.fsync"):
        for game in scheduled:
            store.commit(game.key, make_record(game.key, (game.seats[0], game.seats[1]), rng))
    store.close()
    return time.perf_counter() - start


BUILD = """
import json, resource, sys, time
from pathlib import Path
import referee.tournament.report as report
start = time.perf_counter()
kwargs = {"workers": int(sys.argv[3])} if len(sys.argv) > 3 and sys.argv[3] else {}
report.build_site(Path(sys.argv[1]), Path(sys.argv[2]), **kwargs)
took = time.perf_counter() - start
again = time.perf_counter()
report.build_site(Path(sys.argv[1]), Path(sys.argv[2]), **kwargs)
print(json.dumps({"seconds": took, "again": time.perf_counter() - again,
                  "module": report.__file__,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def build(store: Path, out: Path, src: Path, workers: int | None = None
          ) -> dict[str, float | str]:
    """Build the site with the package under ``src`` in a child process (``workers``
    processes for the game pages; the old code takes no such argument)."""
    env = dict(os.environ, PYTHONPATH=str(src), PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-c", BUILD, str(store), str(out),
                           "" if workers is None else str(workers)], env=env,
                          check=False, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"the build with {src} failed:\n{done.stderr[-2000:]}")
    result: dict[str, float | str] = json.loads(done.stdout.splitlines()[-1])
    if not str(result["module"]).startswith(str(src)):
        raise RuntimeError(f"the build ran {result['module']}, not the code in {src}")
    return result


def sizes(site: Path) -> dict[str, object]:
    """Sizes of the main pages and of the whole site."""
    files = [p for p in site.rglob("*") if p.is_file()]
    return {
        "index_kb": round((site / "index.html").stat().st_size / 1024, 1),
        "crosstable_kb": round((site / "crosstable.html").stat().st_size / 1024, 1)
        if (site / "crosstable.html").exists() else 0,
        "games_list_kb": round((site / "games.html").stat().st_size / 1024, 1),
        "site_mb": round(sum(p.stat().st_size for p in files) / 2**20, 1),
        "files": len(files),
    }


def main() -> None:
    """Make the store, build the site (and the old one), print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, help="processes for game pages [default: "
                        "the site's choice]; --workers 1 also times one process")
    parser.add_argument("--old", metavar="REF", help="also build with the site code of REF")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-site-") as tmp:
        root = Path(tmp)
        result: dict[str, object] = {"players": args.players, "games": args.games}
        result["store_s"] = round(make_store(root / "store", args.players, args.games,
                                             args.seed), 1)
        if args.workers is not None and args.workers > 1:
            one = build(root / "store", root / "site-1", REPO / "src", 1)
            result["build_one_process_s"] = round(float(one["seconds"]), 2)
        new = build(root / "store", root / "site", REPO / "src", args.workers)
        result["build_s"] = round(float(new["seconds"]), 2)
        result["build_again_s"] = round(float(new["again"]), 2)
        result["games_per_s"] = round(args.games / float(new["seconds"]))
        result["build_rss_mb"] = round(float(new["rss_mb"]))
        result.update(sizes(root / "site"))
        if args.old:
            old_tree = root / "old"
            subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-q",
                            str(old_tree), args.old], check=True)
            try:
                old = build(root / "store", root / "old-site", old_tree / "src")
            finally:
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force",
                                str(old_tree)], check=True)
            result["old_build_s"] = round(float(old["seconds"]), 2)
            result["old_build_again_s"] = round(float(old["again"]), 2)
            result["old_build_rss_mb"] = round(float(old["rss_mb"]))
            result["old_index_kb"] = sizes(root / "old-site")["index_kb"]
            result["new_over_old"] = round(float(new["seconds"]) / float(old["seconds"]), 2)
        result["bench_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    print_figures(result, args.json)


if __name__ == "__main__":
    main()
