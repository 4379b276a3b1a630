"""Build hook: ``REFEREE_COMPILE=1`` compiles the Riichi engine, its mjai referee, the
annotator, and the bot processes' wire and records with mypyc.

Without it (the default) the package is pure Python. With it, the modules of
:data:`COMPILED` become C extensions (the same code, faster: ``docs/benchmarks.md``); see
``docs/training.md``, "A faster build". The build backend in ``build_backend/`` adds mypy to
the build requirements in that case, and sets ``REFEREE_BUILD_PURE`` when nothing may be
compiled (every build step but the wheel itself).
"""

from __future__ import annotations

import os

from setuptools import setup

COMPILED = [
    "src/referee/core/process.py",
    "src/referee/core/record.py",
    "src/referee/games/riichi/actions.py",
    "src/referee/games/riichi/game.py",
    "src/referee/games/riichi/kyoku.py",
    "src/referee/games/riichi/log_files.py",
    "src/referee/games/riichi/logrules.py",
    "src/referee/games/riichi/match.py",
    "src/referee/games/riichi/melds.py",
    "src/referee/games/riichi/mirror.py",
    "src/referee/games/riichi/mjlog.py",
    "src/referee/games/riichi/options.py",
    "src/referee/games/riichi/replay.py",
    "src/referee/games/riichi/rules.py",
    "src/referee/games/riichi/scoring.py",
    "src/referee/games/riichi/settings.py",
    "src/referee/games/riichi/settle.py",
    "src/referee/games/riichi/shape.py",
    "src/referee/games/riichi/state.py",
    "src/referee/games/riichi/tenhou_json.py",
    "src/referee/games/riichi/tenhou_meld.py",
    "src/referee/games/riichi/tiles.py",
    "src/referee/games/riichi/walls.py",
    "src/referee/games/riichi/kanachan/annotate.py",
    "src/referee/games/riichi/kanachan/encoding.py",
]

if os.environ.get("REFEREE_COMPILE", "") == "1" \
        and not os.environ.get("REFEREE_BUILD_PURE"):
    from mypyc.build import mypycify

    # REFEREE_COMPILE_OPT: the C optimisation level, 3 unless a quicker build is wanted
    # (the test of the compiled build uses 0: the same behaviour, built faster).
    setup(ext_modules=mypycify(COMPILED, opt_level=os.environ.get("REFEREE_COMPILE_OPT", "3")))
else:
    setup()
