"""The captive server's results file: one line per episode, long or compact format.

Exactly what the reference server writes, so that existing leaderboard tooling reads it:

Compact (``log.format=compact``, the default since the reference's version 6.002)::

    #.nickname,rule_name,trial_id
    #number_of_moves,number_of_errors,if_clear
    .JohnDoe,colOrd_nearby,0
    47,38,1

Long (``log.format=long``)::

    #nickname,rule_name,trial_id,board_id,number_of_pieces,number_of_moves,move_acc,if_clear
    JohnDoe,colOrd_nearby,0,0,9,3,1.0,0

``number_of_moves`` counts every move attempt of the episode, successful or not;
``move_acc`` is accepted / attempts (0.0 without attempts), written as Java writes a
double; ``if_clear`` is 1 when the board was cleared. The header is written when the file
is new or empty; a compact run line (``.nickname,rule,run``) opens the session's first
episode line. Each line is flushed at once, so the file stays whole if the server dies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Literal, TextIO

from referee.core.errors import ConfigError

Format = Literal["long", "compact"]

LONG_HEADER = ("#nickname,rule_name,trial_id,board_id,number_of_pieces,number_of_moves,"
               "move_acc,if_clear")
COMPACT_HEADER = "#.nickname,rule_name,trial_id\n#number_of_moves,number_of_errors,if_clear"


def java_double(value: float) -> str:
    """``value`` as Java's ``Double.toString`` writes it (``1.0``, ``0.25``, ``5.0E-4``)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    magnitude = abs(value)
    if 1e-3 <= magnitude < 1e7:
        text = repr(value)
        return text if "." in text else text + ".0"
    # scientific: the shortest digits that give the value back (as Java 19+ chooses them)
    _, digit_tuple, exponent = Decimal(repr(magnitude)).as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple))
    power = len(digits) + exponent - 1
    digits = digits.rstrip("0") or "0"
    sign = "-" if value < 0 else ""
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{power}"


@dataclass(frozen=True)
class EpisodeResult:
    """One finished (or abandoned) episode."""

    pieces: int
    """Pieces on the initial board."""
    attempts: int
    """Move attempts, successful or not."""
    accepted: int
    """Successful moves."""
    cleared: bool


class ResultsLog:
    """The results file of one session (one run of one rule set)."""

    def __init__(self, path: Path, *, nickname: str, rule_name: str, run: int,
                 fmt: Format = "compact", append: bool = True) -> None:
        """Open ``path``: appended to with ``append`` (the header only if it is new or
        empty), else started afresh. Raises ``ConfigError`` naming the file if it cannot
        be opened."""
        self.path = path
        self.nickname = nickname
        self.rule_name = rule_name
        self.run = run
        self.fmt = fmt
        self.episodes = 0
        try:
            fresh = not append or not path.exists() or path.stat().st_size == 0
            if path.parent != Path():
                path.parent.mkdir(parents=True, exist_ok=True)
            self._file: TextIO = path.open("a" if append else "w", encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"{path}: cannot write the results file: "
                              f"{exc.strerror or exc}") from None
        if fresh:
            self._write(LONG_HEADER if fmt == "long" else COMPACT_HEADER)

    def _write(self, text: str) -> None:
        self._file.write(text + "\n")
        self._file.flush()

    def add(self, result: EpisodeResult) -> None:
        """Write the line of the session's next episode."""
        clear = 1 if result.cleared else 0
        if self.fmt == "long":
            accuracy = result.accepted / result.attempts if result.attempts else 0.0
            self._write(f"{self.nickname},{self.rule_name},{self.run},{self.episodes},"
                        f"{result.pieces},{result.attempts},{java_double(accuracy)},{clear}")
        else:
            if self.episodes == 0:
                self._write(f".{self.nickname},{self.rule_name},{self.run}")
            errors = result.attempts - result.accepted
            self._write(f"{result.attempts},{errors},{clear}")
        self.episodes += 1

    def close(self) -> None:
        """Close the file."""
        self._file.close()
