"""The links and long tables of the results site, written in Python.

A 200-player, 20,000-game site has 20,000 rows on its games page, 40,000 more on its player
pages and 40,000 crosstable cells; a Jinja macro call per cell costs tens of microseconds,
which made these tables most of the build. ``Links`` writes them with plain f-strings
instead, every text value through ``esc`` (MarkupSafe's escaping, remembered per distinct
string: names, results and outcomes repeat on every row), and hands the templates
``Markup``, so the escaping guarantee is the templates' own. The templates call the same
``Links`` methods (Jinja globals ``player_link``, ``game_link``, ``short_text``) for the
links they write themselves, so there is one way to write each.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

from referee.core.record import result_text
from referee.tournament.report.readable import points
from referee.tournament.store import GameRow

__all__ = ["Links", "SeatLine", "game_page"]

ESCAPES_KEPT = 50_000
"""Distinct strings whose escaped form is remembered (then the memory is cleared)."""


@dataclass(frozen=True)
class SeatLine:
    """One seat of a game page's player table (text; ``Links.seat_rows`` escapes it)."""

    name: str
    role: str
    score: str
    moves: int
    time: str
    longest: str
    about: str


def game_page(row: GameRow) -> str:
    """The page of a game (by its place in the schedule), from the site's root."""
    return f"games/g{row.seq:05d}.html"


class Links:
    """Writes links and table rows for one site (``player_pages``: each player's page)."""

    def __init__(self, player_pages: Mapping[str, str]) -> None:
        self.player_pages = player_pages
        self._escaped: dict[str, str] = {}

    def esc(self, value: object) -> str:
        """``value`` as HTML text (escaped; a ``Markup`` value as it is)."""
        if type(value) is int:  # a count: nothing to escape
            return str(value)
        if not isinstance(value, str) or isinstance(value, Markup):
            return str(escape(value))
        done = self._escaped.get(value)
        if done is None:
            if len(self._escaped) >= ESCAPES_KEPT:
                self._escaped.clear()
            done = self._escaped[value] = str(escape(value))
        return done

    # -- links (also the templates' globals) --------------------------------------------
    def player(self, name: str, root: str) -> str:
        """The player's name, linked to its page when it has one."""
        page = self.player_pages.get(name)
        text = self.esc(name)
        return f'<a class="player" href="{root}{page}">{text}</a>' if page else text

    def game(self, row: GameRow, root: str, text: str | None = None) -> str:
        """``#seq`` (or ``text``), linked to the game's page once it is finished."""
        label = self.esc(text) if text is not None else f"#{row.seq}"
        return (f'<a href="{root}{game_page(row)}">{label}</a>'
                if row.status == "done" else label)

    def short(self, text: str | None, limit: int = 160) -> str:
        """``text`` cut to ``limit`` characters, the whole of it on hover when cut."""
        if not text:
            return ""
        if len(text) <= limit:
            return self.esc(text)
        return f'<span title="{self.esc(text)}">{self.esc(text[:limit - 1])}&hellip;</span>'

    def outcome(self, row: GameRow) -> str:
        """The outcome, and who was at fault when it was a fault."""
        if row.offender is not None and 0 <= row.offender < len(row.seats):
            return (f'<span class="fault">{self.esc(row.outcome or "")}</span> by '
                    f"{self.esc(row.seats[row.offender])}")
        return self.esc(row.outcome or "")

    def seats(self, row: GameRow, roles: Sequence[str], root: str) -> str:
        """The players of a game, each with what it played when known."""
        parts = []
        for k, name in enumerate(row.seats):
            role = f' <span class="role">({self.esc(roles[k])})</span>' if k < len(roles) else ""
            parts.append(self.player(name, root) + role)
        return " &ndash; ".join(parts)

    def globals(self) -> dict[str, Any]:
        """The link writers as the templates call them (each returns ``Markup``)."""
        return {
            "player_link": lambda name, root: Markup(self.player(name, root)),
            "game_link": lambda row, root, text=None: Markup(self.game(row, root, text)),
            "short_text": lambda text, limit=160: Markup(self.short(text, limit)),
        }

    # -- tables ---------------------------------------------------------------------------
    def games_rows(self, rows: Iterable[GameRow], roles: Mapping[str, Sequence[str]],
                   root: str) -> Markup:
        """The ``<tr>`` of every scheduled game: link, round, players, result, outcome,
        reason, moves."""
        parts = []
        for row in rows:
            if row.status == "done":
                result = (f"<td>{self.esc(result_text(row.scores))}</td>"
                          f"<td>{self.outcome(row)}</td>")
            else:
                result = f"<td>{self.esc(row.status)}</td><td></td>"
            parts.append(
                f"\n<tr><td>{self.game(row, root)}</td><td class=\"n\">{row.round}</td>"
                f"<td>{self.seats(row, roles.get(row.key, ()), root)}</td>{result}"
                f"<td>{self.short(row.reason)}</td>"
                f"<td class=\"n\">{'' if row.plies is None else row.plies}</td></tr>")
        return Markup("".join(parts))

    def player_games_rows(self, games: Iterable[Mapping[str, Any]], root: str) -> Markup:
        """The ``<tr>`` of each game of a player (``player_context``'s ``games``)."""
        parts = []
        for g in games:
            row: GameRow = g["row"]
            others = ", ".join(self.player(o, root) for o in g["others"])
            role = f' <span class="role">({self.esc(g["role"])})</span>' if g["role"] else ""
            result = self.esc(g["result"])
            parts.append(
                f"\n<tr><td>{self.game(row, root)}</td><td class=\"n\">{row.round}</td>"
                f"<td>{others}</td><td>{g['seat'] + 1}{role}</td>"
                f"<td><span class=\"{result}\">{result} {self.esc(points(g['score']))}"
                f"</span></td><td>{self.esc(result_text(row.scores))}</td>"
                f"<td>{self.outcome(row)}</td><td>{self.short(row.reason)}</td>"
                f"<td class=\"n\">{'' if row.plies is None else row.plies}</td></tr>")
        return Markup("".join(parts))

    def seat_rows(self, seats: Iterable[SeatLine], root: str, roles: bool = True) -> Markup:
        """The ``<tr>`` of each seat of a game page: number, player, role (``roles``: the
        game's seats play parts of their own), score, moves, time, longest move, what the
        bot said of itself."""
        parts = []
        for k, s in enumerate(seats, start=1):
            role = f"<td>{self.esc(s.role)}</td>" if roles else ""
            parts.append(
                f'<tr><td class="n">{k}</td><td>{self.player(s.name, root)}</td>'
                f'{role}\n<td class="n">{self.esc(s.score)}</td>'
                f'<td class="n">{self.esc(s.moves)}</td><td class="n">{self.esc(s.time)}</td>\n'
                f'<td class="n">{self.esc(s.longest)}</td><td>{self.short(s.about, 200)}</td></tr>')
        return Markup("".join(parts))

    def opponent_rows(self, opponents: Iterable[Mapping[str, Any]], root: str) -> Markup:
        """The ``<tr>`` of a player's results against each opponent (``player_context``'s
        ``opponents``): the opponent, then one cell each of its ``cells``."""
        parts = []
        for o in opponents:
            cells = "".join(f'<td class="n">{self.esc(cell)}</td>' for cell in o["cells"])
            parts.append(f"<tr><td>{self.player(o['name'], root)}</td>{cells}</tr>")
        return Markup("".join(parts))

    def crosstable_rows(self, cross: Iterable[Mapping[str, Any]], order: Sequence[str],
                        titles: bool, root: str) -> Markup:
        """The crosstable's ``<tr>``: rank, player, one cell per opponent, points."""
        parts = []
        for rank, r in enumerate(cross, start=1):
            name = r["name"]
            cells = []
            for k, cell in enumerate(r["cells"]):
                if cell is None:
                    cells.append('<td class="self">&mdash;</td>')
                elif cell == "":
                    cells.append('<td class="none">&middot;</td>')
                elif titles:
                    cells.append(f'<td title="{self.esc(name)} against '
                                 f'{self.esc(order[k])}">{self.esc(cell)}</td>')
                else:
                    cells.append(f"<td>{self.esc(cell)}</td>")
            parts.append(f'\n<tr><td class="n">{rank}</td><th scope="row">'
                         f'{self.player(name, root)}</th>{"".join(cells)}'
                         f'<td class="n">{self.esc(r["total"])}</td></tr>')
        return Markup("".join(parts))
