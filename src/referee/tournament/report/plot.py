"""Ratings over time: BayesElo recomputed every ``k`` finished games, drawn as an SVG chart.

``rating_history`` streams the finished games once, in the order they finished, into one
``ResultTable`` and rates it (the ratings alone: the intervals and LOS are only the final
list's) after every ``k`` games, ``k`` chosen so that there are at most ``max_points``
points. ``rating_chart`` draws one line per player, with axes, grid and a legend, by hand.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from referee.tournament.ratings import BayesEloParams, ResultTable, rate_elo
from referee.tournament.report.markup import Html, h, join
from referee.tournament.results import pairwise
from referee.tournament.store import GameRow

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#17becf", "#7f7f7f", "#bcbd22")
DASHES = ("", "6 3", "2 3", "8 3 2 3")


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


def rating_chart(history: RatingHistory, order: Sequence[str]) -> Html:
    """The history as an inline SVG line chart: one ``polyline.rating-line`` per player.

    Players are drawn (and listed in the legend) in ``order``, then any others.
    """
    names = [n for n in order if n in history.elo]
    names += [n for n in history.elo if n not in names]
    if not history.games or not names:
        return Html('<p class="empty">Not enough finished games for a rating plot yet.</p>')
    values = [v for n in names for v in history.elo[n] if v is not None]
    y_ticks = nice_ticks(min(values), max(values))
    x_ticks = [t for t in nice_ticks(0, max(history.games), 8) if t >= 0]
    x_max = max(x_ticks[-1], 1.0)
    y_low, y_high = y_ticks[0], y_ticks[-1]

    left, top, plot_w = 64, 16, 640
    legend_x = left + plot_w + 24
    plot_h = max(300, 18 * len(names))
    width, height = legend_x + 170, top + plot_h + 52

    def px(games: float) -> float:
        return left + plot_w * games / x_max

    def py(elo: float) -> float:
        return top + plot_h * (y_high - elo) / (y_high - y_low)

    parts: list[Html] = [h(
        '<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        'viewBox="0 0 {w} {h}" role="img" aria-labelledby="rating-plot-title">'
        '<title id="rating-plot-title">BayesElo rating after each number of finished games'
        "</title>", w=width, h=height)]
    for tick in y_ticks:
        y = f"{py(tick):.1f}"
        parts.append(h('<line class="grid" x1="{}" y1="{y}" x2="{}" y2="{y}"/>'
                       '<text class="tick" x="{}" y="{y}" text-anchor="end" '
                       'dominant-baseline="central">{}</text>',
                       left, left + plot_w, left - 8, _number(tick), y=y))
    for tick in x_ticks:
        x = f"{px(tick):.1f}"
        parts.append(h('<line class="grid" x1="{x}" y1="{}" x2="{x}" y2="{}"/>'
                       '<text class="tick" x="{x}" y="{}" text-anchor="middle">{}</text>',
                       top, top + plot_h, top + plot_h + 18, _number(tick), x=x))
    parts.append(h('<path class="axis" d="M{l},{t}V{b}H{r}"/>', l=left, t=top,
                   b=top + plot_h, r=left + plot_w))
    parts.append(h('<text class="label" x="{}" y="{}" text-anchor="middle">'
                   "games finished</text>", left + plot_w // 2, height - 8))
    parts.append(h('<text class="label" transform="translate(16 {}) rotate(-90)" '
                   'text-anchor="middle">Elo (BayesElo)</text>', top + plot_h // 2))
    for index, name in enumerate(names):
        colour = PALETTE[index % len(PALETTE)]
        dash = DASHES[(index // len(PALETTE)) % len(DASHES)]
        dash_attr = h(' stroke-dasharray="{}"', dash) if dash else ""
        points = [(px(g), py(v)) for g, v in zip(history.games, history.elo[name], strict=True)
                  if v is not None]
        coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        last = history.elo[name][-1]
        label = f"{name}: {last:.0f}" if last is not None else name
        parts.append(h('<polyline class="rating-line" data-player="{}" stroke="{}"{} '
                       'points="{}"><title>{}</title></polyline>',
                       name, colour, dash_attr, coords, label))
        if points:
            parts.append(h('<circle class="rating-end" cx="{}" cy="{}" r="3" '
                           'fill="{}"><title>{}</title></circle>',
                           f"{points[-1][0]:.1f}", f"{points[-1][1]:.1f}", colour, label))
        row_y = top + 8 + 18 * index
        shown = name if len(name) <= 18 else name[:17] + "\u2026"
        parts.append(h('<g class="legend"><line x1="{}" y1="{y}" x2="{}" y2="{y}" '
                       'stroke="{}" stroke-width="2.5"{}/><text x="{}" y="{y}" '
                       'dominant-baseline="central">{}<title>{}</title></text></g>',
                       legend_x, legend_x + 22, colour, dash_attr, legend_x + 28, shown,
                       label, y=row_y))
    parts.append(Html("</svg>"))
    return join(parts)
