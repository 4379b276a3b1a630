"""Game results in PGN: stream (White, Black, Result) out of a file, write result-only PGN.

Reading looks at tag pairs only; movetext is skipped, as are ``{...}`` comments (over any
number of lines), ``;`` comments, ``%`` escape lines and ``(...)`` variations. Real-world
files are accepted: a UTF-8 byte order mark, CRLF or CR line ends, bytes that are not UTF-8
(replaced), games without movetext, games not separated by blank lines (a new game starts
at a tag after movetext or at a tag the current game already has). Games whose result is
unknown (``*``, ``?`` or empty) are skipped and counted. A game without a White, Black or
Result tag, an unreadable tag line, an unknown result or the same player as White and Black
raises :class:`PgnError` naming the file and line. The file is read in blocks of about a
megabyte: memory does not grow with the number of games.

Files of results only (what :func:`write_pgn_results`, BayesElo and most tournament
managers write: one ``[Name "value"]`` tag per line, no escapes, each game ended by a line
holding only its result) are read a block of whole games at a time by a few passes of
regular expressions and no Python code per line (``_plain_block``): a block qualifies when
every line is such a tag, a result or empty, no game repeats a tag, and every game has one
White, Black and Result tag, in the same order in every game; it then gives the very results
the line-by-line reader would. Any other block, or one with a game that would raise an
error, is read line by line from its first line to the end of the file, so that messages
name the same lines.

Writing gives each game the tags Event, Site, Date, Round, White, Black, Result and the
result alone as movetext, which BayesElo, Ordo and other PGN tools read.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date as Date
from pathlib import Path
from typing import IO, NamedTuple

from referee.core.files import atomic_text

__all__ = [
    "GameResult",
    "PgnError",
    "PgnReader",
    "format_game",
    "read_pgn_results",
    "result_token",
    "write_pgn_results",
]

_TAG = re.compile(r'\[\s*([A-Za-z0-9_+#=:-]+)\s*"((?:[^"\\]|\\.)*)"\s*\]')
_TOKEN = re.compile(r'[{;()\[]|[^\s{;()\[]+')
_UNESCAPE = re.compile(r"\\(.)")
_SCORES = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5, "½-½": 0.5, "=-=": 0.5, "0.5-0.5": 0.5}
_UNKNOWN = {"*", "?", ""}
_MARKERS = {"1-0", "0-1", "1/2-1/2", "*"}
_TAG_VALUE = re.compile(r' "[^"\\\n]*"\]\n')
"""What a plain tag line holds after its name (removed to see the shape of the games)."""
_RESULT_LINE = re.compile(r"\n(?:1-0|0-1|1/2-1/2|\*)\n")
_NAME_LINE = re.compile(r"\[[A-Za-z0-9_+#=:-]+")
_KEY_VALUES = re.compile(r'\[(?:White|Black|Result) "([^"\\\n]*)"\]')
_KEYS = ("White", "Black", "Result")
_ENDS = tuple(f"\n{marker}\n" for marker in sorted(_MARKERS))
_BLOCK = 1 << 20


class PgnError(ValueError):
    """A PGN file that cannot be read as results; the message names the file and line."""


class GameResult(NamedTuple):
    """One game's result: ``score`` is White's (1, 0.5 or 0)."""

    white: str
    black: str
    score: float


@dataclass
class _Game:
    line: int
    tags: dict[str, str] = field(default_factory=dict)
    moves: bool = False


def _last_game_end(text: str) -> int:
    """Where the last line holding only a result ends in ``text`` (0 if none does)."""
    ends = [at + len(end) for end in _ENDS if (at := text.rfind(end)) >= 0]
    ends += [len(end) - 1 for end in _ENDS if text.startswith(end[1:])]
    return max(ends, default=0)


def _plain_order(shape: str) -> tuple[str, ...] | None:
    """The order of White, Black and Result in one game of a plain block, given its lines
    with the tag values removed; None unless every line is a tag name or empty, no name
    repeats and the three are there."""
    names = [line[1:] for line in shape.split("\n") if line]
    if len(set(names)) != len(names) or not all(_NAME_LINE.fullmatch("[" + n) for n in names):
        return None
    order = tuple(name for name in names if name in _KEYS)
    return order if len(order) == 3 else None


def _plain_score(result: str) -> float | None:
    """White's score for a Result tag as ``PgnReader._finish`` reads it (-1 for an unknown
    result, a skipped game), None where ``_finish`` would raise."""
    result = result.strip()
    return -1.0 if result in _UNKNOWN else _SCORES.get(result.replace(" ", ""))


class PgnReader:
    """Iterate over the results of a PGN file, one game at a time.

    After (or during) the iteration, ``games`` counts the results yielded and ``skipped`` the
    games with an unknown result.
    """

    def __init__(self, path: str | Path, *, encoding: str = "utf-8") -> None:
        """Prepare to read ``path`` (nothing is opened before iterating)."""
        self.path = Path(path)
        self.encoding = encoding
        self.games = 0
        self.skipped = 0

    def __iter__(self) -> Iterator[GameResult]:
        """Open the file and yield its results in order."""
        self.games = 0
        self.skipped = 0
        encoding = "utf-8-sig" if self.encoding.lower().replace("_", "-") in (
            "utf-8", "utf8") else self.encoding
        with open(self.path, encoding=encoding, errors="replace", newline=None) as handle:
            yield from self._read(handle)

    def _read(self, handle: IO[str]) -> Iterator[GameResult]:
        """Blocks of whole games through ``_plain_block`` while they qualify, then the rest
        line by line (``_parse``)."""
        number = 1  # the line the next block starts at
        rest = ""  # the start of a game the last block cut off
        while True:
            chunk = handle.read(_BLOCK)
            if chunk and not chunk.endswith("\n"):
                chunk += handle.readline()
            text = rest + chunk
            if chunk:
                cut = _last_game_end(text)
                block, rest = text[:cut], text[cut:]
            else:
                block, rest = text, ""
            found = self._plain_block(block, last=not chunk) if block or not chunk else None
            if found is None:
                lines: Iterator[str] = (line + "\n" for line in text.split("\n"))
                if text.endswith("\n"):
                    lines = itertools.islice(lines, text.count("\n"))
                yield from self._parse(itertools.chain(lines, handle), number)
                return
            results, skipped = found
            self.games += len(results)
            self.skipped += skipped
            yield from results
            if not chunk:
                return
            number += block.count("\n")

    def _plain_block(self, block: str, last: bool) -> tuple[list[GameResult], int] | None:
        """The results of a block of whole games and the number of games skipped, or None
        unless the block is plain (the module's docstring). ``last``: the block ends the
        file (its last game may have no result line)."""
        if not block.endswith("\n"):
            block += "\n"
        games = _RESULT_LINE.split("\n" + _TAG_VALUE.sub("\n", block))
        if not games[-1].strip():
            games.pop()  # nothing after the last result line
        elif not last:
            return None
        orders = {_plain_order(shape) for shape in set(games)}
        if len(orders) != 1 or None in orders:
            return None
        order = orders.pop()
        assert order is not None
        values = _KEY_VALUES.findall(block)
        if len(values) != 3 * len(games):
            return None
        columns = [values[order.index(key)::3] for key in _KEYS]
        whites, blacks = (list(map(str.strip, column)) for column in columns[:2])
        if not (all(whites) and all(blacks)) or any(map(str.__eq__, whites, blacks)):
            return None
        scores: dict[str, float] = {}
        for result in set(columns[2]):
            score = _plain_score(result)
            if score is None:
                return None
            scores[result] = score
        found = [scores[result] for result in columns[2]]
        rows: Iterable[tuple[str, str, float]] = zip(whites, blacks, found, strict=True)
        if -1.0 in scores.values():
            rows = [row for row in rows if row[2] >= 0]
        # tuple.__new__ makes the named tuples without a Python call per game
        results = list(map(tuple.__new__, itertools.repeat(GameResult), rows))
        return results, len(found) - len(results)

    def _error(self, line: int, message: str) -> PgnError:
        return PgnError(f"{self.path}:{line}: {message}")

    def _finish(self, game: _Game) -> GameResult | None:
        tags = game.tags
        for name in ("White", "Black", "Result"):
            if name not in tags:
                raise self._error(game.line, f"game has no {name} tag")
        white, black, result = tags["White"].strip(), tags["Black"].strip(), tags["Result"]
        result = result.strip()
        if result in _UNKNOWN:
            self.skipped += 1
            return None
        score = _SCORES.get(result.replace(" ", ""))
        if score is None:
            raise self._error(game.line, f"unknown result {result!r}")
        if not white or not black:
            raise self._error(game.line, "game has an empty White or Black tag")
        if white == black:
            raise self._error(game.line, f"White and Black are the same player ({white!r}): "
                              "a player cannot play itself")
        self.games += 1
        return GameResult(white, black, score)

    def _tag(self, game: _Game | None, number: int,
             match: re.Match[str]) -> tuple[GameResult | None, _Game]:
        """Add a tag pair; a tag after movetext, or one the game has, starts a new game.

        Returns the result of the game this ended (if any) and the game the tag is in.
        """
        name, value = match.group(1), _UNESCAPE.sub(r"\1", match.group(2))
        finished = None
        if game is not None and (game.moves or name in game.tags):
            finished = self._finish(game)
            game = None
        if game is None:
            game = _Game(number)
        game.tags[name] = value
        return finished, game

    def _parse(self, lines: Iterable[str], first: int = 1) -> Iterator[GameResult]:
        """Line by line, the first of ``lines`` being line ``first`` of the file."""
        game: _Game | None = None
        in_comment = False
        depth = 0
        for number, raw in enumerate(lines, first):
            line = raw.rstrip("\n")
            start = 0
            if in_comment:
                close = line.find("}")
                if close < 0:
                    continue
                in_comment = False
                start = close + 1
            elif line.startswith("%"):
                continue
            # fast path: a line holding one tag pair
            stripped = line.strip()
            if start == 0 and stripped.startswith("[") and stripped.endswith("]") and depth == 0:
                match = _TAG.fullmatch(stripped)
                if match is not None:
                    finished, game = self._tag(game, number, match)
                    if finished is not None:
                        yield finished
                    continue
            pos = start
            while True:
                token = _TOKEN.search(line, pos)
                if token is None:
                    break
                text = token.group()
                pos = token.end()
                if text == "{":
                    close = line.find("}", pos)
                    if close < 0:
                        in_comment = True
                        break
                    pos = close + 1
                elif text == ";":
                    break
                elif text == "(":
                    depth += 1
                elif text == ")":
                    depth = max(0, depth - 1)
                elif text == "[" and depth == 0:
                    match = _TAG.match(line, token.start())
                    if match is None:
                        raise self._error(number, "unreadable tag pair")
                    pos = match.end()
                    finished, game = self._tag(game, number, match)
                    if finished is not None:
                        yield finished
                elif depth == 0 and text in _MARKERS:
                    if game is not None:
                        finished = self._finish(game)
                        if finished is not None:
                            yield finished
                        game = None
                elif game is not None and depth == 0:
                    game.moves = True
        if game is not None:
            finished = self._finish(game)
            if finished is not None:
                yield finished


def read_pgn_results(path: str | Path, *, encoding: str = "utf-8") -> Iterator[GameResult]:
    """Stream ``(white, black, score of white)`` from a PGN file (a generator)."""
    yield from PgnReader(path, encoding=encoding)


# -- writing ---------------------------------------------------------------------------------
def result_token(score: float) -> str:
    """PGN result of White's score: ``1-0``, ``1/2-1/2`` or ``0-1``."""
    if score == 1:
        return "1-0"
    if score == 0:
        return "0-1"
    if score == 0.5:
        return "1/2-1/2"
    raise ValueError(f"score must be 1, 0.5 or 0, not {score!r}")


def _quote(value: str) -> str:
    value = " ".join(str(value).split())  # no line breaks inside a tag
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def format_game(white: str, black: str, score: float, *, event: str = "?", site: str = "?",
                date: str | Date | None = None, round_label: str | int = "?") -> str:
    """One result-only PGN game (tags, a blank line, the result, a blank line)."""
    token = result_token(score)
    if isinstance(date, Date):
        date = date.strftime("%Y.%m.%d")
    tags = (("Event", event), ("Site", site), ("Date", date or "????.??.??"),
            ("Round", str(round_label)), ("White", white), ("Black", black), ("Result", token))
    lines = [f"[{name} {_quote(value)}]" for name, value in tags]
    return "\n".join(lines) + f"\n\n{token}\n\n"


def write_pgn_results(target: str | Path | IO[str],
                      results: Iterable[tuple[str, str, float]], *, event: str = "?",
                      site: str = "?", date: str | Date | None = None,
                      number_rounds: bool = True,
                      rounds: Iterable[str | int] | None = None) -> int:
    """Write results as PGN (streaming) to a path or an open text file; returns the count.

    Round labels: one from ``rounds`` per game when given (``?`` once it runs out), else
    1, 2, 3... with ``number_rounds``, else ``?``.
    """
    labels = iter(rounds) if rounds is not None else None

    def write(out: IO[str]) -> int:
        count = 0
        for white, black, score in results:
            count += 1
            if labels is not None:
                label: str | int = next(labels, "?")
            else:
                label = count if number_rounds else "?"
            out.write(format_game(white, black, score, event=event, site=site, date=date,
                                  round_label=label))
        return count

    if isinstance(target, str | Path):
        with atomic_text(target) as handle:
            return write(handle)
    return write(target)
