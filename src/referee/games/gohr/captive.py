"""The captive game server's conversation: one command line in, the reference's lines out.

``CaptiveSession`` knows nothing of pipes or sockets: the pipe server (``referee gohr``)
and the socket server feed it lines and write what it returns. Output follows the
reference server: a status line ``code finish_code attempts``, the board as one JSON line
(not after a MOVE in brief mode), ``#`` comment lines (the ASCII board in full mode).
"""

from __future__ import annotations

import json
import logging
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO, Protocol, TextIO

from referee.core.errors import ConfigError, RefereeError
from referee.games.gohr.board import Board, N, Piece, bucket_at, render_ascii, render_ascii_8
from referee.games.gohr.conditions import draw_board
from referee.games.gohr.engine import Code, Episode, Finish
from referee.games.gohr.results_log import EpisodeResult, ResultsLog
from referee.games.gohr.setup import GameSetup

log = logging.getLogger(__name__)

VERSION = "7.007-referee"
"""The version this server reports (the reference protocol it follows is CGS 7.x)."""
VERSION_8 = "8.060-referee"
"""The version it reports with ``version=8`` (the answers of CGS 8.060)."""

HELP = """\
# Commands:
#   NEW                       start a new episode (give up the current one)
#   MOVE id bucket            move piece id to bucket 0..3 (0 top-left, clockwise)
#   MOVE row col brow bcol    the same by the piece's cell and the bucket's (0 or 7, 0 or 7)
#   DISPLAY                   the board as JSON; DISPLAYFULL: as ASCII art
#   FEATURES                  the properties of pieces and their values
#   MODE brief|standard|full  the output mode
#   COND [train|test]         show or set the board conditions mode
#   VERSION, HELP, EXIT"""


NUMBER, WORD, STRING, OTHER = "number", "word", "string", "other"
"""Kinds of command tokens (the reference's NUMBER, ID, STRING and the signs)."""
Args = list[tuple[str, str]]
"""A command's arguments: its tokens after the command word."""

_WORD_START = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Sc", "Pc"})
_WORD_PART = _WORD_START | {"Nd", "Mn", "Mc", "Cf"}
_SIGNS = frozenset("=<>!*,.:+-/%()[]")
_PAIRS = frozenset({"==", "<=", ">=", "!=", ".."})
_NOT_SPACE = frozenset("\u00a0\u2007\u202f")


def _category(c: str) -> str:
    """The Unicode category of ``c`` as Java's 16-bit ``char`` sees it (a character
    beyond the BMP arrives as surrogates)."""
    return "Cs" if ord(c) > 0xFFFF else unicodedata.category(c)


def _java_space(c: str) -> bool:
    """Java's ``Character.isWhitespace``: separators but the no-break spaces, and the
    controls TAB..CR and FS..US."""
    code = ord(c)
    if 0x09 <= code <= 0x0D or 0x1C <= code <= 0x1F:
        return True
    return _category(c) in ("Zs", "Zl", "Zp") and c not in _NOT_SPACE


def _word_part(c: str) -> bool:
    """Java's ``Character.isJavaIdentifierPart`` (ignorable controls included)."""
    code = ord(c)
    return (_category(c) in _WORD_PART or code <= 0x08 or 0x0E <= code <= 0x1B
            or 0x7F <= code <= 0x9F)


def java_trim(line: str) -> str:
    """``String.trim``: the line without the characters up to U+0020 at either end."""
    return line.strip("".join(map(chr, range(0x21))))


def command_tokens(line: str) -> list[tuple[str, str]] | None:
    """A command line as the reference's tokenizer reads it (Token.Tokenizer): (kind,
    text) pairs, or None when it holds a character no token may start with (the
    reference's "cannot parse").

    A run of decimal digits is a number; a word starts with a letter, ``_``, ``$`` (a
    Java identifier) and goes on with letters and digits; ``"..."`` is a string (its
    quotes dropped; an open one runs to the end), never a word; ``= < > ! * , . : + - /
    % ( ) [ ]`` are signs (``==``, ``<=``, ``>=``, ``!=``, ``..`` one sign each); Java's
    white space separates; ``#`` outside a string ends the line. So ``-1`` is two
    tokens, ``1a`` two, and ``;`` or ``?`` makes the line unreadable.
    """
    tokens: list[tuple[str, str]] = []
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c == "#":
            break
        if _java_space(c):
            i += 1
            continue
        j = i + 1
        category = _category(c)
        if category == "Nd":
            while j < n and _category(line[j]) == "Nd":
                j += 1
            tokens.append((NUMBER, line[i:j]))
        elif category in _WORD_START:
            while j < n and _word_part(line[j]):
                j += 1
            tokens.append((WORD, line[i:j]))
        elif c == '"':
            end = line.find('"', j)
            j = n if end < 0 else end + 1
            tokens.append((STRING, line[i + 1:end if end >= 0 else n]))
        elif c in _SIGNS:
            if line[i:i + 2] in _PAIRS:
                j += 1
            tokens.append((OTHER, line[i:j]))
        else:
            return None
        i = j
    return tokens


MAX_NUMBER = (1 << 31) - 1
"""The largest number a command argument may be (a Java ``int``)."""


class CaptiveSession:
    """One session: episodes one after another under one rule set and board source."""

    def __init__(self, setup: GameSetup, results: ResultsLog | None = None) -> None:
        self.setup = setup
        self.results = results
        self.mode = setup.output
        self.episodes = 0
        self.episode: Episode | None = None
        self.pieces = 0
        self._shown: tuple[Episode, Board, str] | None = None
        self.version = VERSION_8 if setup.version >= 8 else VERSION
        self._marks: tuple[int | None, int | None] = (None, None)
        """8.060's ASCII marks: the piece of the last move attempt, the cell it emptied."""

    # -- episodes -------------------------------------------------------------------------
    def _close_episode(self) -> None:
        episode = self.episode
        if episode is not None and self.results is not None:
            self.results.add(EpisodeResult(self.pieces, episode.attempts, episode.accepted,
                                           episode.finish is Finish.CLEARED))
        self.episode = None

    def new_episode(self) -> list[str]:
        """Start the next episode; its opening lines."""
        self._close_episode()
        board = draw_board(self.setup)
        return self.show_episode(Episode(self.setup.rules, board), self.episodes + 1)

    def show_episode(self, episode: Episode, number: int) -> list[str]:
        """Play ``episode`` (episode number ``number`` of the session) from here on, as
        someone else drives it (a web table's engine): its opening lines, as ``NEW``
        answers them (the status gives the attempts made so far)."""
        self.episode = episode
        self.pieces = len(episode.board) + episode.accepted
        self._marks = (None, None)
        if self.setup.version >= 8:  # 8.060 starts each episode in the session's mode
            self.mode = self.setup.output  # (Captive.main: a new Episode per NEW)
        self.episodes = number
        hello = (f"# Hello. This is Captive Game Server ver. {self.version}. "
                 f"Starting a new episode (no. {self.episodes})")
        if self.episode.finish is Finish.STALEMATE:
            opening = [self._status(Code.STALEMATE),
                       hello + " -- immediate stalemate. Our apologies!"]
        else:
            opening = [self._status(Code.NEW_GAME), hello]
        lines = [*opening, self._json()]
        if self.mode == "full":
            lines.extend(self._ascii())
        return lines

    def close(self) -> None:
        """End the session: the current episode goes to the results file."""
        self._close_episode()
        if self.results is not None:
            self.results.close()
            self.results = None

    # -- output ---------------------------------------------------------------------------
    def _status(self, code: int) -> str:
        episode = self.episode
        if episode is None:
            return f"{code} 0 0"
        return f"{code} {int(episode.finish)} {episode.attempts}"

    def _json(self) -> str:
        episode = self.episode
        if episode is None:
            return '{"id":0,"value":[]}'
        cached = self._shown
        if cached is not None and cached[0] is episode and cached[1] is episode.board:
            return cached[2]  # a refused move changes neither the board nor its buckets
        if self.setup.version >= 8:  # 8.060 shows labels, and id 0 for every board
            line = episode.board.to_json_line(episode.buckets(), board_id=0, labels=True)
        else:
            line = episode.board.to_json_line(episode.buckets())
        self._shown = (episode, episode.board, line)
        return line

    def _ascii(self) -> list[str]:
        episode = self.episode
        if episode is None:
            return ["# no episode"]
        if self.setup.version >= 8:
            return render_ascii_8(episode.board, *self._marks).splitlines()
        movable = [pid for pid, buckets in episode.buckets().items() if buckets]
        return render_ascii(episode.board, movable, episode.last_cell).splitlines()

    # -- commands -------------------------------------------------------------------------
    def handle(self, line: str) -> tuple[list[str], bool]:
        """The answer to one command line, and whether the session ends."""
        if not java_trim(line):
            return [], False
        tokens = command_tokens(line)
        if tokens is None:
            return [self._status(Code.INVALID_COMMAND), "# Invalid input - cannot parse"], False
        if not tokens or tokens[0][0] != WORD:
            return [self._status(Code.INVALID_COMMAND),
                    "# Invalid input: a command is a word (HELP lists them)"], False
        command, args = tokens[0][1].upper(), tokens[1:]
        if command == "EXIT":
            status = self._status(Code.EXIT)
            self.close()
            return [status, "# Goodbye"], True
        handler = {
            "NEW": self._new, "MOVE": self._move, "DISPLAY": self._display,
            "DISPLAYFULL": self._display_full, "FEATURES": self._features,
            "MODE": self._mode, "COND": self._cond, "VERSION": self._version,
            "HELP": self._help,
        }.get(command)
        if handler is None:
            return [self._status(Code.INVALID_COMMAND),
                    f"# unknown command {command[:40]!r}; HELP lists the commands"], False
        return handler(args), False

    def refusal(self, reason: str) -> list[str]:
        """The answer to a line not read as a command: the INVALID_COMMAND status and a
        comment with ``reason``."""
        return [self._status(Code.INVALID_COMMAND), f"# {reason}"]

    def _new(self, args: Args) -> list[str]:
        return self.new_episode()

    def _move(self, args: Args) -> list[str]:
        if len(args) not in (2, 4) or any(kind != NUMBER for kind, _ in args):
            return [self._status(Code.INVALID_ARGUMENTS),
                    "# MOVE takes: piece_id bucket_id, or row col bucket_row bucket_col "
                    "(unsigned numbers)"]
        too_large = [text for _, text in args if len(text.lstrip("0")) > 10
                     or int(text) > MAX_NUMBER]
        if too_large:
            return [self._status(Code.INVALID_ARGUMENTS),
                    f"# MOVE: {too_large[0][:20]} is too large (at most {MAX_NUMBER})"]
        numbers = [int(text) for _, text in args]
        episode = self.episode
        if episode is None:
            return [self._status(Code.NO_GAME), "# no episode: NEW starts one"]
        before = episode.board
        if len(numbers) == 2:
            piece_id, bucket = numbers
            code = episode.move(piece_id, bucket)
            if (code is Code.INVALID_ARGUMENTS and 0 <= bucket <= 3
                    and self.setup.version >= 8):
                code = Code.INVALID_OBJECT_ID  # 8.060's code for an unknown piece id
            piece = before.by_id(piece_id)
            refusal = "# buckets are 0..3" if not 0 <= bucket <= 3 else \
                f"# no piece {piece_id} on the board"
        else:
            row, col, brow, bcol = numbers
            target = bucket_at(brow, bcol)
            code = episode.move_at(col, row, -1 if target is None else target)
            piece = before.at(col, row) if 1 <= col <= N and 1 <= row <= N else None
            refusal = "# cells are row 1..6 col 1..6; buckets at (0|7, 0|7)"
        self._mark(code, piece)
        return self.move_answer(code, refusal)

    def move_answer(self, code: Code, refusal: str = "") -> list[str]:
        """The answer to a ``MOVE`` whose response code was ``code`` (``refusal``: the
        comment of an invalid one), in the session's mode."""
        episode = self.episode
        assert episode is not None
        if code is Code.NO_GAME:
            note = [f"# No game is on right now ({episode.finish.name.lower()}). "
                    "Use NEW to start a new game"]
        elif code in (Code.INVALID_ARGUMENTS, Code.INVALID_OBJECT_ID):
            note = [refusal]
        else:
            note = self._finish_note()
        lines = [self._status(code), *note]
        if self.mode != "brief":
            lines.append(self._json())
        if self.mode == "full":
            lines.extend(self._ascii())
        return lines

    def _mark(self, code: Code, piece: Piece | None) -> None:
        """Keep 8.060's last move for its ASCII board (Episode.accept sets it for every
        attempt that gets past the argument checks): the piece of a refused move, the
        cell an accepted one emptied, nothing after an empty cell or an unknown id."""
        if code is Code.ACCEPT and piece is not None:
            self._marks = (None, piece.cell)
        elif code in (Code.DENY, Code.IMMOVABLE) and piece is not None:
            self._marks = (piece.id, None)
        elif code in (Code.EMPTY_CELL, Code.INVALID_OBJECT_ID):
            self._marks = (None, None)

    def _finish_note(self) -> list[str]:
        """The comment after a move that was tried: the reference's words when the move
        ends the episode (not in brief mode); with ``version=8`` ``# null`` otherwise,
        as 8.060 prints its missing message (Episode.playGame, mkDisplayMsg)."""
        episode = self.episode
        eight = self.setup.version >= 8
        if self.mode == "brief" or episode is None:
            return ["# null"] if eight else []
        if episode.finish is Finish.CLEARED:
            return ["# Game cleared - the board is clear" if eight
                    else "# Game finished - the board is clear"]
        if episode.finish is Finish.STALEMATE:
            return ["# Stalemate - no piece can be moved any more. Apology for these rules!"]
        return ["# null"] if eight else []

    def _display(self, args: Args) -> list[str]:
        lines = [self._json()]
        if self.mode == "full":
            lines.extend(self._ascii())
        return lines

    def _display_full(self, args: Args) -> list[str]:
        return [self._json(), *self._ascii()]

    def _features(self, args: Args) -> list[str]:
        pool = self.setup.pool
        if pool is None:
            features = {"shape": list(self.setup.shapes), "color": list(self.setup.colors)}
            return [json.dumps(features, separators=(",", ":"))]
        values, sampled = pool.features()
        note = [] if sampled is None else [
            f"# the values of {sampled} objects drawn from families too large to list"]
        return [*note, json.dumps(values, separators=(",", ":"))]

    def _mode(self, args: Args) -> list[str]:
        modes = {"BRIEF": "brief", "STANDARD": "standard", "FULL": "full"}
        if len(args) != 1 or args[0][0] != WORD or args[0][1].upper() not in modes:
            return [self._status(Code.INVALID_ARGUMENTS), "# MODE brief|standard|full"]
        self.mode = modes[args[0][1].upper()]  # type: ignore[assignment]
        return [f"# OK, mode={self.mode.upper()}"]

    def _cond(self, args: Args) -> list[str]:
        if args:
            word = args[0][1].lower()
            if len(args) != 1 or args[0][0] != WORD or word not in ("train", "test"):
                return [self._status(Code.INVALID_ARGUMENTS), "# COND [train|test]"]
            self.setup.test_mode = word == "test"
        return [f"# OK, cond={'test' if self.setup.test_mode else 'train'}"]

    def _version(self, args: Args) -> list[str]:
        return [f"# {self.version}"]

    def _help(self, args: Args) -> list[str]:
        return HELP.splitlines()


MAX_LINE = 65536
"""Longest command line read, in bytes (its end of line not counted)."""


class LineTooLong(RefereeError):
    """A command line longer than ``MAX_LINE`` bytes (it is not read as a command)."""

    def __init__(self) -> None:
        super().__init__(f"the line is longer than {MAX_LINE} bytes")


class LineSource(Protocol):
    """Anything with a byte ``readline`` (a pipe's buffer, a socket file)."""

    def readline(self, size: int = -1, /) -> bytes:
        """One line of at most ``size`` bytes."""


def read_command(stream: LineSource, skip_overlong: bool = True) -> str | None:
    """The next command line of a byte stream (``None`` at its end), decoded leniently
    (bytes that are not UTF-8 become U+FFFD). A line over ``MAX_LINE`` bytes raises
    ``LineTooLong``: with ``skip_overlong`` after reading the rest of it (the next read
    starts on the next line), else at once (the stream is then in the middle of a line)."""
    raw = stream.readline(MAX_LINE + 1)
    if not raw:
        return None
    if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
        while skip_overlong:  # skip the rest of the overlong line
            more = stream.readline(MAX_LINE)
            if not more or more.endswith(b"\n"):
                break
        raise LineTooLong()
    return raw.decode("utf-8", errors="replace")


def open_results(setup: GameSetup) -> ResultsLog | None:
    """The results file the options ask for (``log=``, ``logappend=``, ``log.*``)."""
    options = setup.options
    name = options.get("log")
    append_text = options.get("logappend", "true")
    append = append_text.lower() not in ("false", "no", "0")
    if name is None and append_text.lower() not in ("true", "false", "yes", "no", "1", "0"):
        name = append_text  # logappend=FILE: append to that file
        append = True
    if name is None:
        return None
    fmt = options.get("log.format", "long").lower()
    if fmt not in ("long", "compact"):
        raise ConfigError(f"log.format={options['log.format']}: expected long or compact")
    run_text = options.get("log.run", "0")
    if not run_text.isdecimal():
        raise ConfigError(f"log.run={run_text}: expected a run number")
    return ResultsLog(Path(name), nickname=options.get("log.nickname", "anonymous"),
                      rule_name=setup.rule_name, run=int(run_text),
                      fmt="long" if fmt == "long" else "compact", append=append)


def serve_pipe(setup: GameSetup, stdin: BinaryIO, stdout: TextIO) -> None:
    """The pipe-based server: commands from ``stdin``, each answer flushed to ``stdout``.
    A line over ``MAX_LINE`` bytes is answered INVALID_COMMAND with the limit, its rest
    skipped, and the session goes on (a pipe loses no bytes, so the next line is whole)."""
    session = CaptiveSession(setup, open_results(setup))

    def send(lines: Iterable[str]) -> None:
        stdout.write("".join(line + "\n" for line in lines))
        stdout.flush()

    try:
        send(session.new_episode())
        while True:
            try:
                line = read_command(stdin)
            except LineTooLong as exc:  # a pipe loses nothing: go on with the next line
                send(session.refusal(f"{exc}: ignored"))
                continue
            if line is None:
                return
            answer, done = session.handle(line)
            send(answer)
            if done:
                return
    finally:
        session.close()
