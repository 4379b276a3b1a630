"""How the benchmark scripts print their figures: ``key: value`` lines, or one JSON line.

The scripts import it as ``figures`` (they run as ``python benchmarks/bench_*.py``, which
puts this folder first on the path).
"""

from __future__ import annotations

import json
from collections.abc import Mapping


def print_figures(result: Mapping[str, object], as_json: bool) -> None:
    """Print ``result`` as one JSON line (``as_json``) or as ``key: value`` lines."""
    if as_json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key}: {value}")
