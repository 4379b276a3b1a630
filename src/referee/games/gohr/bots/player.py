"""The loop of a built-in GOHR player: the captive server's answers in, commands out.

The server (a web table's referee, or ``referee play gohr ... output=standard`` on a
pipe) sends a status line ``code finish attempts``, ``#`` comments and the board as one
JSON line; the player answers ``MOVE id bucket`` or, once the board is over (a finish
code, or ``-4``: no game on), ``NEW``. It stops at the end of its input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, Protocol, TextIO

from referee.core.botseed import seed_from

__all__ = ["Answer", "Strategy", "player_main", "run"]


class Answer:
    """One answer of the server: its status and, if it sent one, the board's pieces."""

    def __init__(self, code: int, finish: int, attempts: int,
                 pieces: list[dict[str, Any]] | None) -> None:
        self.code = code
        self.finish = finish
        self.attempts = attempts
        self.pieces = pieces


class Strategy(Protocol):
    """What a player decides."""

    def new_board(self, pieces: list[dict[str, Any]]) -> None:
        """A new board begins."""

    def choose(self, pieces: list[dict[str, Any]]) -> tuple[int, int]:
        """The piece id and the bucket of the next attempt."""

    def learn(self, piece: int, bucket: int, code: int) -> None:
        """The answer to the last attempt (0 accepted, 4 denied, 7 immovable)."""


def _read_answer(source: TextIO) -> Answer | None:
    """The next status line and, in standard mode, the board after it (None at the end)."""
    status: tuple[int, int, int] | None = None
    while True:
        line = source.readline()
        if not line:
            return None if status is None else Answer(*status, None)
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if text.startswith("{"):
            pieces = json.loads(text).get("value", [])
            if status is None:
                continue
            return Answer(*status, pieces)
        words = text.split()
        if len(words) == 3 and all(w.lstrip("-").isdigit() for w in words):
            status = (int(words[0]), int(words[1]), int(words[2]))


def run(strategy: Strategy, source: TextIO, sink: TextIO) -> int:
    """Play until the input ends."""
    answer = _read_answer(source)
    pieces: list[dict[str, Any]] = []
    if answer is not None and answer.pieces is not None:
        pieces = answer.pieces
        strategy.new_board(pieces)
    while answer is not None:
        if answer.finish != 0 or answer.code == -4 or not pieces:
            sink.write("NEW\n")
            sink.flush()
            answer = _read_answer(source)
            if answer is not None and answer.pieces is not None:
                pieces = answer.pieces
                strategy.new_board(pieces)
            continue
        piece, bucket = strategy.choose(pieces)
        sink.write(f"MOVE {piece} {bucket}\n")
        sink.flush()
        answer = _read_answer(source)
        if answer is None:
            break
        strategy.learn(piece, bucket, answer.code)
        if answer.pieces is not None:
            pieces = answer.pieces
        elif answer.code == 0:
            pieces = [p for p in pieces if int(p["id"]) != piece]
    return 0


def player_main(argv: Sequence[str] | None, name: str, description: str,
                make: type[Any]) -> int:
    """A player's command line: ``--seed N`` (else ``REFEREE_BRAIN_SEED``, else random)."""
    parser = argparse.ArgumentParser(prog=name, description=description)
    parser.add_argument("--seed", type=int, default=None, help="seed of its choices")
    args = parser.parse_args(argv)
    try:
        return run(make(seed_from(args.seed)), sys.stdin, sys.stdout)
    except (BrokenPipeError, KeyboardInterrupt):
        return 0
