"""How the benchmark scripts print their figures (``key: value`` lines, or one JSON line)
and measure the machine's other load.

The scripts import it as ``figures`` (they run as ``python benchmarks/bench_*.py``, which
puts this folder first on the path).
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import psutil


def print_figures(result: Mapping[str, object], as_json: bool) -> None:
    """Print ``result`` as one JSON line (``as_json``) or as ``key: value`` lines."""
    if as_json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key}: {value}")


def machine() -> str:
    """The machine a figure was measured on: ``x86_64, 2 cores, Python 3.11.7``."""
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def children_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes (the brains)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def busy_cpu() -> float:
    """CPU seconds the whole machine spent busy (all processes, and time stolen by the host)."""
    t = psutil.cpu_times()
    return t.user + t.nice + t.system + t.irq + t.softirq + getattr(t, "steal", 0.0)


def alternate_builds(script: Path, argv: Sequence[str], against: str, repeat: int
                     ) -> dict[str, list[dict[str, Any]]]:
    """Run ``script`` with ``argv`` and ``--json`` in fresh interpreters, with the ``src``
    folder of this checkout ("new") and the ``against`` one ("old") first on the path, in
    turn, ``repeat`` times each; every run's JSON result, by build. Both trees are compiled
    to bytecode first (sandboxed bots cannot write it there: a run without it charges a
    build's bots its compilation)."""
    builds = {"old": against, "new": str(Path(__file__).resolve().parents[1] / "src")}
    for src in builds.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", src], check=True)
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in builds}
    for _ in range(repeat):
        for name, src in builds.items():
            env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, str(script.parent)])}
            done = subprocess.run([sys.executable, str(script), *argv, "--json"], env=env,
                                  capture_output=True, text=True, check=True)
            runs[name].append(json.loads(done.stdout.splitlines()[-1]))
    return runs
