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
from collections.abc import Mapping

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
