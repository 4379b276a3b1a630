"""A game's replay as pure data: a board picture in SVG, built up one step at a time.

A game slice turns a record into a ``ReplayView`` (``GameAdapter.replay``); whoever shows
it (the tournament site) knows nothing of the game. The picture after ``k`` steps is the
``background``, then the ``svg`` fragments of steps ``1..k`` in order, then the ``mark`` of
step ``k`` alone (what only the current step shows: the last move, a winning line).

Fragments are SVG markup that goes inside one ``<svg>`` element whose ``viewBox`` is
``0 0 width height``; the classes they use are styled by ``style`` (CSS). The game slice
writes them and escapes anything textual it puts in; labels (``text``) are plain text that
the viewer escapes.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ReplayStep:
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
    """A whole game as an SVG board: background, then one fragment per step.

    ``roles`` says what each seat played, in seat order (``("black", "white")``), for
    labels; it may be empty.
    """

    width: int
    height: int
    background: str
    steps: tuple[ReplayStep, ...] = ()
    style: str = ""
    roles: tuple[str, ...] = field(default=())

    def frame(self, k: int) -> str:
        """The SVG markup (inside ``<svg>``) of the board after ``k`` steps (0: the start)."""
        k = max(0, min(k, len(self.steps)))
        parts = [self.background]
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
