"""The replay section of a game page: the SVG board (its final position without JavaScript),
the step controls and the clickable list of moves; and the plain move list of a game
without a replay.

Step ``k``'s fragment is ``<g data-step="k">``, its mark ``<g data-mark="k">`` (hidden but
for the last step); static/replay.js shows and hides them. A game page is mostly this
section, written 20,000 times for a large tournament, so it is built as one list of string
pieces joined once: the opening tags of each step number are made once per process
(``_Tags``), every text value goes through the caller's ``esc``, and the markup of the
game slice (``ReplayView``: background, style, fragments; escaped by the game) goes in as
it is.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

from referee.core.record import GameRecord
from referee.core.replay import ReplayView
from referee.tournament.report.frames_markup import frames_board
from referee.tournament.report.markup import Html
from referee.tournament.report.readable import ms

__all__ = ["move_list", "replay_section"]

Escape = Callable[[object], str]
"""Text to HTML text (``Links.esc``; a ``Markup`` value as it is)."""
SharedFile = Callable[[str, str], str]
"""Keeps a file the pages share (suffix, text) and gives its link from a game page."""

_CONTROLS = (
    '<div class="replay-controls" hidden>'
    '<button type="button" data-go="first" title="First (Home)">\u00ab First</button>'
    '<button type="button" data-go="prev" title="Previous (\u2190)">\u2039 Prev</button>'
    '<button type="button" data-go="next" title="Next (\u2192)">Next \u203a</button>'
    '<button type="button" data-go="last" title="Last (End)">Last \u00bb</button>'
    "</div>")
_HINT = ('<p class="hint">Keys: \u2190 \u2192 step, Home / End first / last; '
         "click a move to go there.</p>")
_NO_MOVES = '<p class="empty">No moves.</p>'


class _Tags:
    """The opening tags of each step number, the same on every page: made once per number
    (``upto``), then only looked up."""

    def __init__(self) -> None:
        self.step = [""]
        """``<g data-step="k">``."""
        self.mark = [""]
        """``<g data-mark="k" display="none">``."""
        self.item = [""]
        """A move's ``<li>`` up to its text."""

    def upto(self, count: int) -> _Tags:
        """Make sure the tags of numbers ``1..count`` are made; returns ``self``."""
        for k in range(len(self.step), count + 1):
            self.step.append(f'<g data-step="{k}">')
            self.mark.append(f'<g data-mark="{k}" display="none">')
            self.item.append(f'<li id="m{k}"><a href="#m{k}" data-step="{k}">'
                             f'<span class="mv-no">{k}.</span> <b>')
        return self


_TAGS = _Tags()


def _move_items(parts: list[str], record: GameRecord,
                steps: Iterable[tuple[int | None, str, str]], current: int,
                esc: Escape) -> None:
    """Append the ``<li>`` of each move to ``parts``: number, text, player, note, time;
    the one numbered ``current`` has the class ``current``."""
    names = {seat: esc(p.name) for seat, p in enumerate(record.players)}
    moves = record.moves
    count = len(moves)
    items = _TAGS.item
    for k, (seat, text, note) in enumerate(steps, start=1):
        if k >= len(items):
            items = _TAGS.upto(k).item
        head = items[k]
        if k == current:
            head = head.replace('">', '" class="current">', 1)
        shown = text if text.isalnum() else esc(text)  # letters and digits: nothing to escape
        extra = f' <em class="mv-note">{esc(note)}</em>' if note else ""
        if k <= count:
            extra += f" <small>{ms(moves[k - 1].ms)}</small>"
        parts.append(f"{head}{shown}</b> {names.get(seat, '') if seat is not None else ''}"
                     f"{extra}</a></li>")


@functools.lru_cache(maxsize=64)
def _base_image(width: int, height: int, style: str, base: str) -> str:
    """A view's base as a standalone SVG document with its style (the same string for the
    same view parts: a shared file is looked up by its text)."""
    styled = f"<style>{style}</style>" if style else ""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">{styled}{base}</svg>')


def replay_section(record: GameRecord, view: ReplayView, esc: Escape,
                   shared: SharedFile | None = None, root: str = "../") -> Html:
    """The replay of ``record`` as ``view`` shows it: board, controls, counter, moves.
    When the caller keeps ``shared`` files, the view's base (with its style) is linked as
    an SVG image and its style as a style sheet, rather than written into each page.
    ``root``: the way from the page to the site's root (its scripts and styles). A view's
    ``min_width`` keeps the board that wide at least (its box scrolls on a narrower
    page); its ``start`` is the move list's first line, step 0."""
    steps = view.steps
    total = len(steps)
    tags = _TAGS.upto(total)
    parts = [f'<section class="replay" data-steps="{total}">{_CONTROLS}'
             f'<p class="replay-counter">Move <span class="replay-pos">{total}</span> / '
             f'<span class="replay-total">{total}</span></p>'
             '<div class="replay-body"><div class="replay-board">']
    frames = frames_board(view, root)  # a tile table drawn from its frames
    if frames is not None:
        parts.append(str(frames))
    else:
        size = f'width="{view.width}" height="{view.height}"'
        narrowest = f' style="min-width:{view.min_width}px"' if view.min_width else ""
        svg = (f'<svg class="board" xmlns="http://www.w3.org/2000/svg" {size}{narrowest} '
               f'viewBox="0 0 {view.width} {view.height}" role="img" aria-label="board">')
        if shared is not None:
            if view.style:
                parts.append(f'<link rel="stylesheet" href="{shared(".css", view.style)}">')
            parts += (svg, '<g class="replay-bg">')
            if view.base:
                image = shared(".svg", _base_image(view.width, view.height, view.style,
                                                   view.base))
                parts.append(f'<image href="{image}" {size}/>')
        else:
            parts.append(svg)
            if view.style:
                parts += ("<style>", view.style, "</style>")
            parts += ('<g class="replay-bg">', view.base)
        parts += (view.background, "</g>")
        step_tags = tags.step[1:total + 1]
        parts += [f"{tag}{step.svg}</g>" for tag, step in zip(step_tags, steps, strict=True)
                  if step.svg]
        mark_tags = tags.mark[1:total]  # all but the last step's: hidden
        parts += [f"{tag}{step.mark}</g>" for tag, step in zip(mark_tags, steps, strict=False)
                  if step.mark]
        if total and steps[-1].mark:  # the last step's mark is shown
            parts.append(f'<g data-mark="{total}">{steps[-1].mark}</g>')
        parts.append("</svg>")
    parts.append("</div>")
    if total or view.start:
        parts.append('<ol class="replay-moves">')
        if view.start:
            parts.append('<li id="m0"><a href="#m0" data-step="0"><span class="mv-no">'
                         f'</span> <b>{esc(view.start)}</b></a></li>')
        _move_items(parts, record, ((s.seat, s.text, s.note) for s in steps), total, esc)
        parts.append("</ol>")
    else:
        parts.append(_NO_MOVES)
    parts += ("</div>", _HINT, "</section>")
    return Html("".join(parts))


def move_list(record: GameRecord, esc: Escape) -> Html:
    """The moves of a game without a replay, as a plain list."""
    if not record.moves:
        return Html(_NO_MOVES)
    parts = ['<ol class="moves">']
    _move_items(parts, record, ((m.seat, m.move, "illegal" if m.info.get("illegal") else "")
                                for m in record.moves), 0, esc)
    parts.append("</ol>")
    return Html("".join(parts))
