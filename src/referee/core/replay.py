"""A game's replay as pure data: a board picture in SVG, built up one step at a time.

A game slice turns a record into a ``ReplayView`` (``GameAdapter.replay``); whoever shows
it (the tournament site) knows nothing of the game. The picture after ``k`` steps is the
``base``, the ``background``, then the ``svg`` fragments of steps ``1..k`` in order, then
the ``mark`` of step ``k`` alone (what only the current step shows: the last move, a
winning line). The ``base`` is what many games draw alike (a Gomoku board of one size,
without its stones), and ``style`` is the same for every game of its kind, so a viewer
showing many games may keep one copy of each (the site links them as shared files).

Fragments are SVG markup that goes inside one ``<svg>`` element whose ``viewBox`` is
``0 0 width height``; the classes they use are styled by ``style`` (CSS). The game slice
writes them and escapes anything textual it puts in; labels (``text``) are plain text that
the viewer escapes.

Tile games (Riichi, ICGA Mahjong) may also give ``frames``: one small JSON-able dict per
step, plus the start (``frames[k]`` is the table after ``k`` steps, ``len(steps) + 1`` of
them), drawn in the page by the viewer named ``renderer`` (``"tiles"``: the site's
static/tiles.js). The SVG fragments then only serve pages read without JavaScript.
``frame_info`` holds what every frame shares. The ``tiles`` schema, game-neutral:

Tile codes (:data:`TILE_CODE`): ``1m``..``9m`` characters (man, wan), ``1p``..``9p`` dots
(pin, tong), ``1s``..``9s`` bamboo (sou, tiao), ``0m 0p 0s`` the red fives; the honors one
capital letter each, ``E S W N`` the winds, ``P`` the white dragon, ``F`` the green one,
``C`` the red one (mjai's letters); ``f1``..``f8`` the flowers (spring, summer, autumn,
winter, plum, orchid, chrysanthemum, bamboo). A row of tiles is its codes written one
after the other, ``"1m2m0mEEC"`` (:func:`tile_row`, :func:`split_tiles`); a pond's codes
may each be followed by flags: ``*`` the riichi declaration tile (drawn turned), ``^``
taken by a call, ``.`` discarded just as drawn (tsumogiri), ``!`` the latest discard.

``frame_info``: ``{"names": [seat names], "info": [labels of a frame's "i" values]}``.

A frame: ``{"i": [values under the info labels], "g": [[label, row], ...] table tiles
(dora indicators), "a": the seat that just moved or -1, "s": [seat, seat, seat, seat],
"x": result}``, ``"g"`` and ``"x"`` only when there is something to show. A seat is a
list: ``[wind, points, hand, drawn, melds, pond, riichi, flowers]``: its seat wind
(``"E"``...), its points, its concealed tiles (a row, without ``drawn``), the tile it has
just drawn (or won on) or ``""``, its melds ``[[kind, row, claimed, from], ...]``
(``claimed`` the index in the row of the tile taken from seat ``from``, -1 for none),
its pond (a row with flags), 1 if it is in riichi else 0, its flowers (a row). A result
(the end of a hand) is ``{"h": headline, "l": [lines: yaku with their han, fu, tai,
points], "d": [each seat's gain or loss]}``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

SEAT_WINDS = ("East", "South", "West", "North")
"""What the four seats of a tile game play, for people (``ReplayView.roles``): their winds
in its first hand (the first seat deals first), whatever wind they sit in later."""
TILE_CODE = re.compile(r"[0-9][mps]|f[1-8]|[ESWNPFC]")
"""One tile code of the ``tiles`` frames (see the module docstring)."""
_POND = re.compile(r"([0-9][mps]|f[1-8]|[ESWNPFC])([*^.!]*)")

Frame = Mapping[str, Any]
"""One step's table for a frame renderer (JSON-able)."""


@dataclass(frozen=True)
class Picture:
    """A small drawing with its caption, as a game shows an item of a list (a Gomoku
    opening on a small board): ``svg`` is one ``<svg>`` element the game wrote, anything
    textual in it escaped; ``caption`` is plain text, which the viewer escapes."""

    svg: str
    caption: str


@dataclass(frozen=True)
class Setting:
    """One setting (or recorded fact) as people read it: its label, and its value as text
    or as a list of items (text, or ``Picture``). A game writes those it knows better
    (``GameAdapter``'s ``shown_setting``); everything in it is plain text, which the
    viewer escapes. An empty ``label`` means the usual one."""

    label: str
    text: str = ""
    items: list[str | Picture] = field(default_factory=list)


class ReplayStep(NamedTuple):
    """One decision of the game: who made it, how it is written, what it adds to the board.

    ``seat`` is the deciding seat (``None`` for something no seat decided); ``text`` is the
    move as written in the record (plain text); ``note`` qualifies it (``"illegal"``,
    ``"swap"``...). ``svg`` stays on the board from this step on; ``mark`` is shown only
    while this step is the current one.
    """

    seat: int | None
    text: str
    svg: str = ""
    mark: str = ""
    note: str = ""


@dataclass(frozen=True)
class ReplayView:
    """A whole game as an SVG board: base and background, then one fragment per step.

    ``roles`` says what each seat plays, in seat order, where seats play parts of their
    own (``("black", "white")``, the winds of the first hand); empty when they play
    alike. People read the seats themselves as numbered from 1 (``core.text.seat_name``). ``frames``
    (``len(steps) + 1`` of them, or none), drawn by the viewer ``renderer`` with
    ``frame_info``, show the table as data (module docstring). ``base`` is drawn under
    ``background`` and is the same for many games (module docstring). ``start`` says in
    the game's notation what is on the board before the first step (Gomoku's opening
    stones, ``h8 i9 j9``; empty: nothing to say), the move list's first line.
    ``min_width`` is the narrowest, in pixels, the picture may be drawn before its text
    is too small to read (0: any); a narrower page scrolls it sideways.
    """

    width: int
    height: int
    background: str
    steps: tuple[ReplayStep, ...] = ()
    style: str = ""
    roles: tuple[str, ...] = field(default=())
    frames: tuple[Frame, ...] = field(default=())
    renderer: str = ""
    frame_info: Frame = field(default_factory=dict)
    base: str = ""
    start: str = ""
    min_width: int = 0

    def __post_init__(self) -> None:
        if self.frames and len(self.frames) != len(self.steps) + 1:
            raise ValueError(f"{len(self.frames)} frames for {len(self.steps)} steps: "
                             "expected one per step and one for the start")

    def frame(self, k: int) -> str:
        """The SVG markup (inside ``<svg>``) of the board after ``k`` steps (0: the start)."""
        k = max(0, min(k, len(self.steps)))
        parts = [self.base, self.background]
        parts.extend(step.svg for step in self.steps[:k])
        if k:
            parts.append(self.steps[k - 1].mark)
        return "".join(parts)

    def svg(self, k: int | None = None) -> str:
        """A standalone ``<svg>`` document of the board after ``k`` steps (default: all)."""
        k = len(self.steps) if k is None else k
        style = f"<style>{self.style}</style>" if self.style else ""
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" '
                f'height="{self.height}" viewBox="0 0 {self.width} {self.height}">'
                f"{style}{self.frame(k)}</svg>")


def text_lines(lines: Sequence[str], row: int, first: str = "act", rest: str = "who",
               x: int = 10) -> str:
    """Lines of plain text as SVG ``<text>`` fragments, escaped, one every ``row`` pixels
    from the top (line ``k`` at ``y = row * (k + 1)``); the first line has the CSS class
    ``first``, the others ``rest`` (for boards drawn as lines of text)."""
    return "".join(f'<text x="{x}" y="{row * (k + 1)}" class="{first if k == 0 else rest}">'
                   f"{html.escape(text)}</text>" for k, text in enumerate(lines))


def tile_row(codes: Iterable[str]) -> str:
    """Tile codes as one row string (``["1m", "E"]`` -> ``"1mE"``)."""
    return "".join(codes)


def split_tiles(row: str) -> list[str]:
    """The tile codes of a row string (``"1m0pE"`` -> ``["1m", "0p", "E"]``);
    ``ValueError`` if it holds anything else."""
    codes = TILE_CODE.findall(row)
    if "".join(codes) != row:
        raise ValueError(f"{row!r} is not a row of tile codes")
    return codes


def split_pond(row: str) -> list[tuple[str, str]]:
    """The ``(code, flags)`` of a pond row (``"1m*E^"`` -> ``[("1m", "*"), ("E", "^")]``);
    ``ValueError`` if it holds anything else."""
    entries = _POND.findall(row)
    if "".join(code + flags for code, flags in entries) != row:
        raise ValueError(f"{row!r} is not a pond of tile codes")
    return entries
