"""What a game gives a table where people and programs play: its table driver.

Each game's ``games/<game>/web_table.py`` has one (the web server's tables use it).

The server knows games only through the registry, whose entry names each game's
``TableDriver``. A driver says which settings a table of its game takes (the form's
fields, checked as its command line checks them), how many seats, what each seat may see
(``view``: plain data for the browser's board, only what that seat is allowed to know)
and how a click becomes the engine's action; and it plays one game (``play``) with the
seats the server hands it: programs it starts as its command line does (the same
sandbox), and seats the server drives (people, programs joining over the network).

Nothing here knows a game; the drivers know no web.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from referee.core.clock import Clock, TimeControl
from referee.core.errors import ConfigError
from referee.core.line_link import LineLink
from referee.core.match import Seat
from referee.core.players import PlayerSpec
from referee.core.record import GameRecord
from referee.core.sandbox import SandboxConfig

__all__ = ["Field", "FixedSeats", "LinkedSeat", "OutsideSeat", "ProgramSeat", "SeatPlan",
           "TableDriver", "TableGame", "answer_seconds", "read_fields"]


LONGEST = 2000
"""The longest value of a field (characters) unless the field says otherwise."""


@dataclass(frozen=True)
class Field:
    """One setting of a table's form: ``kind`` is ``int``, ``choice``, ``bool``, ``text``
    (one line) or ``lines`` (text of several lines, a textarea: its line breaks, CRLF as
    browsers send them or LF, read as LF). ``longest``: the most characters its value
    may have (a line break counts one), checked by the server whatever the page allows."""

    name: str
    label: str
    kind: str
    default: Any
    choices: tuple[str, ...] = ()
    low: int | None = None
    high: int | None = None
    help: str = ""
    longest: int = LONGEST


@dataclass(frozen=True)
class ProgramSeat:
    """A seat played by a program the driver starts (a built-in bot, or a program
    registered on the server), in the server's sandbox."""

    player: PlayerSpec


@dataclass(frozen=True)
class OutsideSeat:
    """A seat the server drives: ``make(seat, clock)`` gives its driver (a person's, or a
    program's over the network), for the game loop to ask."""

    name: str
    make: Callable[[int, Clock], Seat]


@dataclass(frozen=True)
class LinkedSeat:
    """A seat played by a program elsewhere over the network, speaking the game's own
    protocol over ``link()`` (a ``core.line_link.LineLink``), as over pipes."""

    name: str
    link: Callable[[], LineLink]


SeatPlan = ProgramSeat | OutsideSeat | LinkedSeat


@dataclass
class TableGame:
    """One game of a table as the server hands it to the driver's ``play``."""

    settings: Mapping[str, Any]
    """The table's settings, as the driver's ``settings`` checked them."""
    seats: Sequence[SeatPlan]
    times: Sequence[TimeControl]
    """Each seat's limits (a person's may differ from a program's)."""
    seed: int
    work: Path
    """The folder its programs run and log in."""
    sandbox: SandboxConfig
    """The sandbox of its programs (the server's: as in tournaments)."""
    watch: Callable[[Any], None]
    """To be shown the engine whenever the game changes (``core.match.Watcher``)."""
    on_fault: Callable[[Any, int, Any], Seat | None] | None = None
    """The table's fault policy (``core.match.FaultPolicy``), if it has one."""
    record_path: Path | None = None
    """Where the record will be written (a game whose records have companion files, as
    Riichi's mjai log, writes them beside it)."""
    take_over: Callable[[int, PlayerSpec, TimeControl], Seat] | None = None
    """Set by the driver before the game starts: how a program takes a seat over from the
    position reached (a pinch-hitter; a person's own program playing for them);
    ``BotFault`` if it cannot get ready."""
    record: Callable[[], GameRecord | None] | None = None
    """Set by the driver: the record of the game being played (for the table's notes)."""
    release: Callable[[int], None] | None = None
    """Set by the driver with ``take_over``: ends the program playing a seat for its
    person (they play again)."""


    def players(self) -> list[PlayerSpec]:
        """A player per seat, as a match takes them: a program's own, else the seat's
        name (the server drives it: a person, a program over the network)."""
        return [plan.player if isinstance(plan, ProgramSeat) else PlayerSpec(plan.name)
                for plan in self.seats]

    def outside(self) -> dict[int, Callable[[int, Clock], Seat]]:
        """The seats the server drives, by number: their drivers' makers."""
        return {seat: plan.make for seat, plan in enumerate(self.seats)
                if isinstance(plan, OutsideSeat)}

    def links(self) -> dict[int, Callable[[], LineLink]]:
        """The seats of programs over the network, by number: their links."""
        return {seat: plan.link for seat, plan in enumerate(self.seats)
                if isinstance(plan, LinkedSeat)}

    def program_seconds(self, default: float) -> float:
        """A program's seconds per answer (``answer_seconds``) at the first seat the
        server does not drive; ``default`` if it drives them all."""
        return next((answer_seconds(time) for time, plan in zip(self.times, self.seats,
                                                                 strict=True)
                     if not isinstance(plan, OutsideSeat)), default)


def answer_seconds(time: TimeControl) -> float:
    """A program's seconds per answer under ``time``: its turn and tolerance (no limit
    per turn: a year)."""
    return 365 * 86400.0 if time.turn is None else time.turn + time.tolerance


class TableDriver(Protocol):
    """A game as the web server sees it."""

    game: str
    """The registry's name of the game."""
    title: str
    """How people call it."""
    builtins: Mapping[str, str]
    """Built-in bots by name (the first: the pinch-hitter)."""
    fields: tuple[Field, ...]
    """The settings a table takes, in the order the form shows them."""
    board_module: str
    """The file of its browser board, in the game's ``web/`` folder (``board.js``)."""

    def settings(self, form: Mapping[str, str]) -> dict[str, Any]:
        """The table's settings from the form's values (missing ones: the defaults);
        ``ConfigError`` naming the field and what is wrong."""

    def seat_count(self, settings: Mapping[str, Any]) -> int:
        """How many seats a table with ``settings`` has."""

    def seat_names(self, settings: Mapping[str, Any]) -> list[str]:
        """What people call each seat (``Black``/``White`` once known, ``East``...)."""

    def play(self, game: TableGame) -> GameRecord:
        """Play the game to its end and return its finished record (not written)."""

    def view(self, engine: Any, seat: int | None, reveal: bool) -> dict[str, Any]:
        """The game as ``seat`` may see it (``None``: a spectator; ``reveal``: show what
        is hidden, once the game is over and the table allows it), plain JSON data; with
        the legal choices when ``seat`` is to decide."""

    def action(self, engine: Any, seat: int, move: Mapping[str, Any]) -> Any:
        """The engine's action for what the seat's board sent; ``ValueError`` saying why
        if it is not one (the engine then judges whether it is legal)."""


class FixedSeats:
    """The seats of a driver whose settings never change them (a base of its class):
    as many as ``seat_list`` names, which the class sets."""

    seat_list: tuple[str, ...] = ()
    """What people call each seat."""

    def seat_count(self, settings: Mapping[str, Any]) -> int:
        """As many seats as ``seat_list`` names."""
        return len(self.seat_list)

    def seat_names(self, settings: Mapping[str, Any]) -> list[str]:
        """The seats' names: ``seat_list``."""
        return list(self.seat_list)


def read_fields(fields: Sequence[Field], form: Mapping[str, str]) -> dict[str, Any]:
    """The values of ``fields`` from a form (missing ones: their defaults), typed:
    ``ConfigError`` naming the field's label and what is wrong."""
    values: dict[str, Any] = {}
    for spec in fields:
        raw = form.get(spec.name)
        if spec.kind == "bool":
            values[spec.name] = raw in ("on", "true", "1", "yes") if raw is not None \
                else bool(spec.default)
            continue
        if raw is None or raw.strip() == "":
            values[spec.name] = spec.default
            continue
        text = raw.strip()
        if spec.kind == "lines":  # every line break as LF, the lines' trailing spaces cut
            text = "\n".join(line.rstrip() for line in text.splitlines())
        if len(text) > spec.longest:
            raise ConfigError(f"{spec.label}: too long ({len(text)} characters, at most "
                              f"{spec.longest})")
        if spec.kind == "lines":
            values[spec.name] = _lines(spec, text)
        elif spec.kind == "int":
            values[spec.name] = _whole(spec, text)
        elif spec.kind == "choice":
            if text not in spec.choices:
                raise ConfigError(f"{spec.label}: {text!r} is not one of "
                                  f"{', '.join(spec.choices)}")
            values[spec.name] = text
        else:
            values[spec.name] = text
    return values


def _lines(spec: Field, text: str) -> str:
    """A ``lines`` field's text (its line breaks LF) if no line of it holds a control
    character but a tab; else ``ConfigError`` naming the line."""
    for number, line in enumerate(text.split("\n"), start=1):
        bad = next((ch for ch in line if (ch < " " and ch != "\t") or ch == "\x7f"), None)
        if bad is not None:
            raise ConfigError(f"{spec.label}: line {number} holds a control character "
                              f"(U+{ord(bad):04X})")
    return text


def _whole(spec: Field, text: str) -> int:
    """``text`` as a whole number within the field's bounds."""
    try:
        value = int(text)
    except ValueError:
        raise ConfigError(f"{spec.label}: {text!r} is not a whole number") from None
    low = spec.low if spec.low is not None else value
    high = spec.high if spec.high is not None else value
    if not low <= value <= high:
        raise ConfigError(f"{spec.label}: {value} is outside {low}..{high}")
    return value
