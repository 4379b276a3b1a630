"""ABOUT is optional: a brain that never answers it gets a note after a few seconds of
its own and plays the match, instead of waiting out the start-up limit and losing."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

SILENT_ABOUT = textwrap.dedent("""
    import sys
    taken = set()
    def move():
        for y in range(10):
            for x in range(10):
                if (x, y) not in taken:
                    taken.add((x, y))
                    print(f"{x},{y}", flush=True)
                    return
    for line in sys.stdin:
        word, _, rest = line.strip().partition(" ")
        word = word.upper()
        if word in ("START", "RESTART"):
            taken.clear()
            print("OK", flush=True)
        elif word == "TURN":
            taken.add(tuple(int(v) for v in rest.split(",")))
            move()
        elif word == "BEGIN":
            move()
        elif word == "END":
            break
        # ABOUT, INFO: no answer at all
""")


def test_a_brain_silent_to_about_plays_with_a_note(tmp_path: Path) -> None:
    brain = tmp_path / "silent.py"
    brain.write_text(SILENT_ABOUT)
    out = tmp_path / "out"
    began = time.monotonic()
    run = subprocess.run(
        [sys.executable, "-m", "referee.cli", "match", "gomoku", f"{sys.executable} {brain}",
         "random", "--size", "10", "--games", "2", "--startup", "30s", "--out", str(out)],
        capture_output=True, text=True, timeout=120)
    elapsed = time.monotonic() - began
    assert run.returncode == 0, run.stderr
    assert elapsed < 25, elapsed  # not the 30 s start-up limit
    records = [json.loads(p.read_text()) for p in sorted(out.glob("game-*.json"))]
    assert len(records) == 2
    assert all(r["outcome"] != "timeout" for r in records), [r["reason"] for r in records]
    notes = [n for r in records for n in r.get("notes", [])]
    assert any("no answer within 3 s" in n["text"] for n in notes), notes
