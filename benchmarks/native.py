"""Native benchmark bots: the C programs of ``benchmarks/brains/``, compiled on demand.

Gomocup's brains are native programs; an instant brain in Python runs an interpreter
between the referee's steps, which costs the referee's own CPU figures too (its caches).
``--brain native`` in ``bench_tournament_cpu.py`` and ``--riichi-bot native`` in
``bench_pipes.py`` play these instead. Each is built with the system's C compiler
(``$CC``, else ``cc``) into ``benchmarks/brains/build/`` (a folder bubblewrap's bots may
read, unlike ``/tmp``) when its source is newer than its program.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

BRAINS = Path(__file__).resolve().parent / "brains"
BUILD = BRAINS / "build"


class NoCompiler(SystemExit):
    """No C compiler to build a native bot: one line saying what to do."""


def native(name: str, build: Path = BUILD) -> Path:
    """The program built from ``brains/NAME.c`` in ``build`` (built first if missing or
    older than its source); ``NoCompiler`` without a C compiler or when the build fails."""
    source = BRAINS / f"{name}.c"
    program = build / name
    if program.exists() and program.stat().st_mtime >= source.stat().st_mtime:
        return program
    asked = os.environ.get("CC", "cc")
    compiler = shutil.which(asked)
    if compiler is None:
        raise NoCompiler(f"{name}: no C compiler ({asked}) to build {source}: install one "
                         "(Debian: apt install gcc) or set CC")
    build.mkdir(parents=True, exist_ok=True)
    partial = program.with_suffix(".partial")
    run = subprocess.run([compiler, "-O2", "-o", str(partial), str(source)],
                         capture_output=True, text=True)
    if run.returncode != 0:
        partial.unlink(missing_ok=True)
        raise NoCompiler(f"{name}: {compiler} failed on {source}: "
                         f"{(run.stderr.strip().splitlines() or ['no message'])[-1]}")
    partial.replace(program)
    return program
