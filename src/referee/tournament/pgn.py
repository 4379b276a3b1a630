"""Game results in PGN: stream (White, Black, Result) out of a file, write result-only PGN.

Reading looks at tag pairs only; movetext is skipped, as are ``{...}`` comments (over any
number of lines), ``;`` comments, ``%`` escape lines and ``(...)`` variations. Real-world
files are accepted: a UTF-8 byte order mark, CRLF or CR line ends, bytes that are not UTF-8
(replaced), games without movetext, games not separated by blank lines (a new game starts
at a tag after movetext or at a tag the current game already has). Games whose result is
unknown (``*``, ``?`` or empty) are skipped and counted. A game without a White, Black or
Result tag, an unreadable tag line or an unknown result raises :class:`PgnError` naming the
file and line. The file is read line by line: memory does not grow with the number of games.

Writing gives each game the tags Event, Site, Date, Round, White, Black, Result and the
result alone as movetext, which BayesElo, Ordo and other PGN tools read.
"""

from __future__ import annotations

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
            yield from self._parse(handle)

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

    def _parse(self, handle: IO[str]) -> Iterator[GameResult]:
        game: _Game | None = None
        in_comment = False
        depth = 0
        for number, raw in enumerate(handle, 1):
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
