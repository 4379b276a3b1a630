"""Ratings over time: BayesElo recomputed every ``k`` finished games, drawn as an SVG chart.

``rating_history`` streams the finished games once, in the order they finished, into one
``ResultTable`` and rates it (the ratings alone: the intervals and LOS are only the final
list's) after every ``k`` games, ``k`` chosen so that there are at most ``max_points``
points. ``rating_chart`` draws one line per player, with axes, grid and a legend, by hand.
``sprt_history`` and ``sprt_chart`` do the same for the log-likelihood ratio of a
two-player tournament's SPRT, with the bounds where the test decides.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.tournament.ratings import BayesEloParams, ResultTable, rate_elo
from referee.tournament.report.markup import Html, h, join
from referee.tournament.results import pairwise
from referee.tournament.stats import SPRT, HeadToHead
from referee.tournament.store import GameRow

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#17becf", "#7f7f7f", "#bcbd22")
DASHES = ("", "6 3", "2 3", "8 3 2 3")
HIGHLIGHTED = 10
"""Players of the rating chart drawn in colour with a line of the legend (the first ones
of the order: the best); the others are thin grey lines."""


@dataclass
class RatingHistory:
    """Ratings after ``games[i]`` finished games: ``elo[name][i]`` (``None`` before the
    player was rated)."""

    games: list[int] = field(default_factory=list)
    elo: dict[str, list[float | None]] = field(default_factory=dict)


def checkpoint_step(finished: int, max_points: int = 50) -> int:
    """``k``: rate after every ``k`` games so that there are at most ``max_points`` points."""
    return max(1, math.ceil(finished / max(1, max_points)))


def rating_history(rows: Iterable[GameRow], finished: int, params: BayesEloParams,
                   max_points: int = 50) -> RatingHistory:
    """Ratings after every ``k`` of the ``finished`` games of ``rows`` (in finish order)."""
    step = checkpoint_step(finished, max_points)
    table = ResultTable()
    history = RatingHistory()
    count = 0
    for row in rows:
        if row.scores is None:
            continue
        table.add_results(pairwise([row]))
        count += 1
        if count % step and count != finished:
            continue
        if len(table.players) < 2:
            continue
        try:
            elo = rate_elo(table, params)
        except ValueError:  # e.g. infinite ratings without a prior
            continue
        for name, value in elo.items():
            history.elo.setdefault(name, [None] * len(history.games)).append(value)
        history.games.append(count)
    return history


@dataclass(frozen=True)
class SprtHistory:
    """An SPRT of a two-player tournament over its finished games: the test, the player
    under test (the first), its counts, and the LLR after every ``k`` games."""

    sprt: SPRT
    player: str
    counts: HeadToHead
    points: list[tuple[int, float]]
    """``(games finished, LLR)``."""

    @property
    def llr(self) -> float | None:
        """The LLR after the last finished game (``None`` before any)."""
        return self.points[-1][1] if self.points else None


def sprt_history(rows: Iterable[GameRow], finished: int, player: str, settings: Any,
                 max_points: int = 300) -> SprtHistory | None:
    """The SPRT of the tournament's ``[sprt]`` table (``settings``, as its store keeps it)
    over ``rows`` in the order they finished, counted for ``player`` as the tournament
    counts it (pairs of games as pentanomial ones); ``None`` without a readable table."""
    if not isinstance(settings, dict):
        return None
    try:
        sprt = SPRT(float(settings["elo0"]), float(settings["elo1"]),
                    float(settings.get("alpha", 0.05)), float(settings.get("beta", 0.05)),
                    settings.get("model", "normalized"))
    except (KeyError, TypeError, ValueError):
        return None
    step = checkpoint_step(finished, max_points)
    counts = HeadToHead(player)
    points: list[tuple[int, float]] = []
    count = 0
    for row in rows:
        if row.scores is None:
            continue
        counts.add(row.seats, row.scores, row.pair)
        count += 1
        if count % step and count != finished:
            continue
        llr = counts.llr(sprt)
        if llr is not None:
            points.append((count, llr))
    return SprtHistory(sprt, player, counts, points)


def nice_ticks(low: float, high: float, count: int = 6) -> list[float]:
    """Round tick values covering ``[low, high]`` (about ``count`` of them)."""
    if not high > low:
        low, high = low - 1.0, high + 1.0
    raw = (high - low) / max(1, count - 1)
    magnitude = 10.0 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.floor(low / step) * step
    last = math.ceil(high / step) * step
    n = round((last - first) / step)
    return [first + i * step for i in range(n + 1)]


def _number(value: float) -> str:
    return f"{value:.0f}" if abs(value - round(value)) < 1e-9 else f"{value:g}"


@dataclass(frozen=True)
class _Frame:
    """The axes of a line chart: plot area, ticks and the mapping from values to pixels."""

    x_max: float
    y_low: float
    y_high: float
    plot_h: int
    left: int = 64
    top: int = 16
    plot_w: int = 640

    def px(self, x: float) -> float:
        """The x pixel of a value."""
        return self.left + self.plot_w * x / self.x_max

    def py(self, y: float) -> float:
        """The y pixel of a value."""
        return self.top + self.plot_h * (self.y_high - y) / (self.y_high - self.y_low)


def _axes(x_values: Sequence[float], y_values: Sequence[float], plot_h: int, width_extra: int,
          title: str, title_id: str, x_label: str, y_label: str) -> tuple[_Frame, list[Html]]:
    """The frame fitting the values and the chart's opening: ``<svg>``, its title, the
    grid with its ticks, the axes and their labels (``width_extra``: room on the right)."""
    y_ticks = nice_ticks(min(y_values), max(y_values))
    x_ticks = [t for t in nice_ticks(0, max(x_values), 8) if t >= 0]
    frame = _Frame(max(x_ticks[-1], 1.0), y_ticks[0], y_ticks[-1], plot_h)
    left, top, plot_w = frame.left, frame.top, frame.plot_w
    width, height = left + plot_w + width_extra, top + plot_h + 52
    parts: list[Html] = [h(
        '<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        'viewBox="0 0 {w} {h}" role="img" aria-labelledby="{}"><title id="{}">{}</title>',
        title_id, title_id, title, w=width, h=height)]
    for tick in y_ticks:
        y = f"{frame.py(tick):.1f}"
        parts.append(h('<line class="grid" x1="{}" y1="{y}" x2="{}" y2="{y}"/>'
                       '<text class="tick" x="{}" y="{y}" text-anchor="end" '
                       'dominant-baseline="central">{}</text>',
                       left, left + plot_w, left - 8, _number(tick), y=y))
    for tick in x_ticks:
        x = f"{frame.px(tick):.1f}"
        parts.append(h('<line class="grid" x1="{x}" y1="{}" x2="{x}" y2="{}"/>'
                       '<text class="tick" x="{x}" y="{}" text-anchor="middle">{}</text>',
                       top, top + plot_h, top + plot_h + 18, _number(tick), x=x))
    parts.append(h('<path class="axis" d="M{l},{t}V{b}H{r}"/>', l=left, t=top,
                   b=top + plot_h, r=left + plot_w))
    parts.append(h('<text class="label" x="{}" y="{}" text-anchor="middle">{}</text>',
                   left + plot_w // 2, height - 8, x_label))
    parts.append(h('<text class="label" transform="translate(16 {}) rotate(-90)" '
                   'text-anchor="middle">{}</text>', top + plot_h // 2, y_label))
    return frame, parts


def rating_chart(history: RatingHistory, order: Sequence[str]) -> Html:
    """The history as an inline SVG line chart: one ``polyline.rating-line`` per player.

    Players are drawn in ``order``, then any others. The first ``HIGHLIGHTED`` get a
    colour and a line of the legend; with more players the others are thin grey lines
    (named on hover) under them, and the legend counts them, so that the chart keeps its
    size and stays readable from 2 to hundreds of players.
    """
    names = [n for n in order if n in history.elo]
    names += [n for n in history.elo if n not in names]
    if not history.games or not names:
        return Html('<p class="empty">Not enough finished games for a rating plot yet.</p>')
    values = [v for n in names for v in history.elo[n] if v is not None]
    coloured = names[:HIGHLIGHTED]
    others = names[HIGHLIGHTED:]
    rows = len(coloured) + (1 if others else 0)
    frame, parts = _axes(history.games, values, max(300, 18 * rows), 194,
                         "BayesElo rating after each number of finished games",
                         "rating-plot-title", "games finished", "Elo (BayesElo)")
    legend_x = frame.left + frame.plot_w + 24
    # the others first, so that the coloured lines are drawn over them
    for index, name in [*((k, n) for k, n in enumerate(names) if k >= HIGHLIGHTED),
                        *enumerate(coloured)]:
        last = history.elo[name][-1]
        label = f"{name}: {last:.0f}" if last is not None else name
        points = [(frame.px(g), frame.py(v))
                  for g, v in zip(history.games, history.elo[name], strict=True)
                  if v is not None]
        coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        if index >= HIGHLIGHTED:
            parts.append(h('<polyline class="rating-line other" data-player="{}" '
                           'points="{}"><title>{}</title></polyline>', name, coords, label))
            continue
        colour = PALETTE[index % len(PALETTE)]
        dash = DASHES[(index // len(PALETTE)) % len(DASHES)]
        dash_attr = h(' stroke-dasharray="{}"', dash) if dash else ""
        parts.append(h('<polyline class="rating-line" data-player="{}" stroke="{}"{} '
                       'points="{}"><title>{}</title></polyline>',
                       name, colour, dash_attr, coords, label))
        if points:
            parts.append(h('<circle class="rating-end" cx="{}" cy="{}" r="3" '
                           'fill="{}"><title>{}</title></circle>',
                           f"{points[-1][0]:.1f}", f"{points[-1][1]:.1f}", colour, label))
        shown = name if len(name) <= 18 else name[:17] + "\u2026"
        parts.append(h('<g class="legend"><line x1="{}" y1="{y}" x2="{}" y2="{y}" '
                       'stroke="{}" stroke-width="2.5"{}/><text x="{}" y="{y}" '
                       'dominant-baseline="central">{}<title>{}</title></text></g>',
                       legend_x, legend_x + 22, colour, dash_attr, legend_x + 28, shown,
                       label, y=frame.top + 8 + 18 * index))
    if others:
        parts.append(h('<g class="legend"><line class="other" x1="{}" y1="{y}" x2="{}" '
                       'y2="{y}"/><text x="{}" y="{y}" dominant-baseline="central">'
                       "{} others</text></g>", legend_x, legend_x + 22, legend_x + 28,
                       len(others), y=frame.top + 8 + 18 * len(coloured)))
    parts.append(Html("</svg>"))
    return join(parts)


def sprt_chart(points: Sequence[tuple[int, float]], lower: float, upper: float) -> Html:
    """The SPRT's log-likelihood ratio after each finished game (``points``: games, LLR)
    as an inline SVG line chart, with its two bounds: H0 is accepted at ``lower``, H1 at
    ``upper``."""
    if not points:
        return Html('<p class="empty">No game counted by the test yet.</p>')
    llrs = [llr for _, llr in points]
    frame, parts = _axes([g for g, _ in points], [*llrs, lower * 1.1, upper * 1.1], 300, 150,
                         "SPRT log-likelihood ratio after each number of finished games",
                         "sprt-plot-title", "games finished", "LLR")
    right = frame.left + frame.plot_w
    for value, css, name in ((upper, "bound-h1", "H1 accepted"), (lower, "bound-h0",
                                                                 "H0 accepted")):
        y = f"{frame.py(value):.1f}"
        parts.append(h('<line class="{}" x1="{}" y1="{y}" x2="{}" y2="{y}"/>'
                       '<text class="tick" x="{}" y="{y}" dominant-baseline="central">'
                       "{} ({})</text>", css, frame.left, right, right + 6, name,
                       f"{value:.2f}", y=y))
    coords = " ".join(f"{frame.px(g):.1f},{frame.py(llr):.1f}" for g, llr in points)
    parts.append(h('<polyline class="sprt-line" points="{}"><title>LLR {} after {} '
                   "games</title></polyline>", coords, f"{llrs[-1]:.2f}", points[-1][0]))
    parts.append(Html("</svg>"))
    return join(parts)
