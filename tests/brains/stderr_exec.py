"""Runs the program its arguments name, after one line on stderr that names this run:
``TOKEN start seed=SEED`` (``TOKEN`` random for each process, ``SEED`` the seed the referee
gave it, ``-`` if none). The stderr-log tests tell by it which process wrote what."""

import os
import secrets
import sys

sys.stderr.write(f"{secrets.token_hex(8)} start "
                 f"seed={os.environ.get('REFEREE_BRAIN_SEED', '-')}\n")
sys.stderr.flush()
os.execv(sys.argv[1], sys.argv[1:])
