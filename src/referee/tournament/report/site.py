"""The tournament results site: static HTML pages built from a tournament's store.

``build_site(store_folder, out_dir)`` writes::

    index.html            name, game, settings, progress, standings (BayesElo), faults,
                          crosstable, rating plot, links
    games.html            every scheduled game, links to the finished ones
    games/g<seq>.html     one page per finished game: players, result, reason, replay
    players/<name>.html   one page per player: results per opponent, its games
    static/               site.css and replay.js (copied from this package)

Pages are built by plain Python string building with ``markup.h``, which escapes every
value that is not already markup, rather than with jinja2 templates: no extra dependency,
escaping is on by default in one small place, and it is fast (10,000 game pages in
seconds). Nothing is loaded from the network: the CSS and the one script are files of the
site, and every link is relative, so the site works from ``file://`` URLs and from any web
server. Only the replay needs JavaScript; without it a game page shows the final position.

Memory stays flat in the number of games: records are read from the store one at a time
and each game page is written and dropped at once; what is kept per game is its store row
and a few words (the seats' roles) for the game lists.

The replay comes from the game slice (``GameAdapter.replay`` -> ``ReplayView``); a game
without one gets the plain list of moves.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from referee.core.adapter import GameAdapter
from referee.core.files import write_bytes_atomic, write_text_atomic
from referee.core.outcome import Outcome
from referee.core.record import GameRecord, result_text
from referee.core.replay import ReplayView
from referee.core.standings import Standing
from referee.games.registry import game_adapters
from referee.tournament.ratings import BayesEloParams, Ratings
from referee.tournament.report.frames_markup import frames_board
from referee.tournament.report.markup import Html, esc, facts, h, join, link, page, table
from referee.tournament.report.plot import rating_chart, rating_history
from referee.tournament.results import (
    PairRecord,
    crosstable,
    pairwise,
    rate_results,
    standings,
)
from referee.tournament.store import GameRow, Store

log = logging.getLogger(__name__)

STATIC_FILES = ("site.css", "replay.js", "tiles.js", "tiles.css")
FAULTS = tuple(o.value for o in Outcome if o is not Outcome.NORMAL)
"""Outcome columns of the fault table: every outcome but ``normal``."""
MAX_NOTES = 500
"""Bot messages shown per game page (the rest are counted)."""
MAX_REASON = 160
"""Characters of a reason shown in game lists (game pages show it whole)."""


# -- what the pages are made of -------------------------------------------------------
@dataclass(frozen=True)
class TournamentInfo:
    """The tournament as the store's meta table describes it."""

    name: str
    game: str
    players: list[str]
    schedule: str
    rounds: int | None
    total_games: int
    seed: int | None
    settings: dict[str, Any]
    params: BayesEloParams
    sandbox: str = ""
    """Which protections the programs ran with (``sandbox: ...``)."""


@dataclass
class Summary:
    """Everything computed from the store's rows before any page is written."""

    info: TournamentInfo
    rows: list[GameRow]
    done: list[GameRow]
    standings: list[Standing]
    ratings: Ratings | None
    order: list[str]
    heads: dict[str, dict[str, PairRecord]] = field(default_factory=dict)


def _read_info(store: Store, rows: Sequence[GameRow]) -> TournamentInfo:
    try:
        meta = json.loads(store.meta("tournament") or "{}")
    except json.JSONDecodeError:
        meta = {}
    if not isinstance(meta, dict):
        meta = {}
    players = [str(p) for p in meta.get("players") or []]
    for row in rows:
        players.extend(name for name in row.seats if name not in players)
    try:
        params = BayesEloParams(**meta["ratings"])
    except (KeyError, TypeError, ValueError):
        params = BayesEloParams.gomocup()
    settings = meta.get("settings")
    rounds = meta.get("rounds")
    seed = meta.get("seed")
    total = meta.get("total_games")
    return TournamentInfo(
        name=str(meta.get("name") or store.meta("name") or store.folder.name),
        game=str(meta.get("game") or ""),
        players=players,
        schedule=str(meta.get("schedule") or ""),
        rounds=rounds if isinstance(rounds, int) else None,
        total_games=total if isinstance(total, int) else len(rows),
        seed=seed if isinstance(seed, int) else None,
        settings=settings if isinstance(settings, dict) else {},
        params=params,
        sandbox=str(meta.get("sandbox") or ""),
    )


def summarize(store: Store) -> Summary:
    """Standings, ratings and head-to-head counts of the store's finished games."""
    rows = store.games()
    # the same row objects, in the order they finished (as ``games(by_finish=True)``)
    done = sorted((r for r in rows if r.status == "done"),
                  key=lambda r: (r.finished_seq or 0, r.seq))
    info = _read_info(store, rows)
    adapter = game_adapters().get(info.game)
    table = standings(done, info.players, adapter is not None and adapter.scores_are_points)
    try:
        ratings = rate_results(pairwise(done), info.params)
    except ValueError as exc:
        log.warning("no ratings: %s", exc)
        ratings = None
    order = [p.name for p in ratings.players] if ratings else []
    order += [s.name for s in table if s.name not in order]
    heads = crosstable(done, order)
    return Summary(info, rows, done, table, ratings, order, heads)


# -- file names -----------------------------------------------------------------------
class Paths:
    """Where each page goes (paths relative to the site root, ``/``-separated)."""

    def __init__(self, players: Iterable[str]) -> None:
        self._players: dict[str, str] = {}
        used: set[str] = set()
        for name in players:
            slug = re.sub(r"[^A-Za-z0-9_.+-]", "_", name)[:60].lstrip(".") or "player"
            candidate, n = slug, 1
            while candidate.lower() in used:
                n += 1
                candidate = f"{slug}-{n}"
            used.add(candidate.lower())
            self._players[name] = f"players/{candidate}.html"

    def player(self, name: str) -> str:
        """The page of a player."""
        return self._players[name]

    @staticmethod
    def game(row: GameRow) -> str:
        """The page of a game (by its place in the schedule)."""
        return f"games/g{row.seq:05d}.html"


# -- formatting -------------------------------------------------------------------------
def _points(value: float) -> str:
    whole = math.floor(value)
    if value - whole == 0.5:
        return f"{whole}\u00bd" if whole else "\u00bd"
    return f"{value:g}"


def _percent(value: float) -> str:
    return f"{value:.1f}%"


def _ms(value: float) -> str:
    if value < 10:
        return f"{value:.1f} ms"
    return f"{value:.0f} ms" if value < 1000 else f"{value / 1000:.2f} s"


def _short(text: str | None, limit: int = MAX_REASON) -> Html:
    text = text or ""
    if len(text) <= limit:
        return esc(text)
    return h('<span title="{}">{}\u2026</span>', text, text[: limit - 1])


def _value(value: Any) -> str:
    if value is None or value == []:
        return "\u2013"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list) and len(value) > 6:
        return f"{len(value)} items"
    if isinstance(value, dict | list):
        text = json.dumps(value, ensure_ascii=False)
        return text if len(text) <= 200 else text[:199] + "\u2026"
    return str(value)


def _outcome(row: GameRow) -> Html:
    outcome = row.outcome or ""
    if row.offender is not None and 0 <= row.offender < len(row.seats):
        return h('<span class="fault">{}</span> by {}', outcome, row.seats[row.offender])
    return esc(outcome)


def _result_of(row: GameRow, seat: int) -> tuple[str, float]:
    """``win``, ``draw`` or ``loss`` for one seat (as the standings count them) and its score."""
    scores = row.scores or ()
    best = max(scores)
    score = scores[seat]
    if all(s == best for s in scores):
        return "draw", score
    return ("win" if score == best else "loss"), score


def _result_text(row: GameRow) -> str:
    return result_text(row.scores)


# -- the site ---------------------------------------------------------------------------
class SiteBuilder:
    """Writes the pages of one store's site (see the module docstring)."""

    def __init__(self, store: Store, out_dir: Path) -> None:
        self.store = store
        self.out = out_dir
        self.summary = summarize(store)
        self.info = self.summary.info
        self.paths = Paths(self.summary.order)
        self.generated = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        self.roles: dict[str, tuple[str, ...]] = {}
        self._role_tuples: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._games_of: dict[str, list[GameRow]] = {}
        for row in sorted(self.summary.done, key=lambda r: r.seq):
            for name in dict.fromkeys(row.seats):
                self._games_of.setdefault(name, []).append(row)
        self.about: dict[str, dict[str, str]] = {}
        self._adapters: dict[str, GameAdapter] | None = None

    # -- writing ---------------------------------------------------------------------
    def build(self) -> Path:
        """Write every page; returns the path of index.html."""
        for folder in ("static", "games", "players"):
            (self.out / folder).mkdir(parents=True, exist_ok=True)
        package = resources.files("referee.tournament.report") / "static"
        for name in STATIC_FILES:
            write_bytes_atomic(self.out / "static" / name, (package / name).read_bytes())
        self.write_game_pages()
        self._write("games.html", self.games_page())
        for name in self.summary.order:
            self._write(self.paths.player(name), self.player_page(name))
        index = self._write("index.html", self.index_page())
        return index

    def _write(self, path: str, text: str) -> Path:
        return write_text_atomic(self.out / path, text)

    def _page(self, title: str, body: Html, depth: int, scripts: Sequence[str] = ()) -> str:
        return page(title, body, root="../" * depth, site_name=self.info.name,
                    generated=self.generated, scripts=scripts)

    # -- links -----------------------------------------------------------------------
    def player_link(self, name: str, depth: int) -> Html:
        """A link to a player's page from a page ``depth`` folders down."""
        try:
            return link("../" * depth + self.paths.player(name), name, "player")
        except KeyError:
            return esc(name)

    def game_link(self, row: GameRow, depth: int, text: object = None) -> Html:
        """A link to a finished game's page (just the number for other games)."""
        label = f"#{row.seq}" if text is None else text
        if row.status != "done":
            return esc(label)
        return link("../" * depth + Paths.game(row), label)

    def seats_text(self, row: GameRow, depth: int) -> Html:
        """The seats of a game as linked names, with each seat's role if known."""
        roles = self.roles.get(row.key, ())
        parts = []
        for seat, name in enumerate(row.seats):
            role = h(' <span class="role">({})</span>', roles[seat]) if seat < len(roles) else ""
            parts.append(h("{}{}", self.player_link(name, depth), role))
        return join(parts, " \u2013 ")

    # -- game pages ------------------------------------------------------------------
    def adapter(self, game: str) -> GameAdapter | None:
        """The game's adapter, ``None`` for a game the referee does not know."""
        if self._adapters is None:
            self._adapters = game_adapters()
        return self._adapters.get(game)

    def replay(self, record: GameRecord) -> ReplayView | None:
        """The game slice's replay of a record, ``None`` if it has none."""
        adapter = self.adapter(record.game)
        if adapter is None:
            log.info("game %s is unknown here: no replay", record.game)
            return None
        try:
            return adapter.replay(record)
        except (TypeError, ValueError) as exc:  # a record the game cannot read
            log.warning("no replay for game %s: %s", record.settings.get("game_key"), exc)
            return None

    def write_game_pages(self) -> None:
        """One page per finished game, records read one at a time (schedule order)."""
        done = sorted(self.summary.done, key=lambda r: r.seq)
        for index, row in enumerate(done):
            record = self.store.record(row.key)
            view = self.replay(record)
            roles = view.roles if view is not None and view.roles else ()
            self.roles[row.key] = self._role_tuples.setdefault(roles, roles)  # shared
            for info in record.players:
                if info.about and info.name not in self.about:
                    self.about[info.name] = dict(info.about)
            before = done[index - 1] if index else None
            after = done[index + 1] if index + 1 < len(done) else None
            self._write(Paths.game(row), self.game_page(row, record, view, before, after))

    def game_page(self, row: GameRow, record: GameRecord, view: ReplayView | None,
                  before: GameRow | None, after: GameRow | None) -> str:
        """The page of one finished game."""
        names = [p.name for p in record.players]
        roles = view.roles if view is not None else ()
        title = f"Game {row.seq}: {' vs '.join(names)}"
        nav = [self.game_link(before, 1, "\u2190 previous game") if before else "",
               link("../games.html", "all games"),
               self.game_link(after, 1, "next game \u2192") if after else ""]
        offender = (h("{} (seat {})", names[record.offender], record.offender + 1)
                    if record.offender is not None and 0 <= record.offender < len(names)
                    else "\u2013")
        info = facts([
            ("Result", h("<strong>{}</strong>", record.result_text())),
            ("Outcome", record.outcome.value if record.outcome else "\u2013"),
            ("Reason", record.reason or "\u2013"),
            ("Fault by", offender),
            ("Moves", len(record.moves)),
            ("Round", row.round),
            ("Game key", row.key),
            ("Seed", record.seed if record.seed is not None else "\u2013"),
            ("Started", record.started_at),
            ("Finished", record.finished_at or "\u2013"),
            *([("Sandbox", record.sandbox.removeprefix("sandbox: "))] if record.sandbox
              else []),
        ])
        seat_rows = []
        for seat, player in enumerate(record.players):
            times = [m.ms for m in record.moves if m.seat == seat]
            about = " ".join(f"{k}={v}" for k, v in sorted(player.about.items()))
            score = record.scores[seat] if record.scores and seat < len(record.scores) else None
            seat_rows.append([
                seat + 1, self.player_link(player.name, 1),
                roles[seat] if seat < len(roles) else "\u2013",
                _points(score) if score is not None else "\u2013",
                len(times), _ms(sum(times)), _ms(max(times)) if times else "\u2013",
                _short(about, 200),
            ])
        players = table(["Seat", "Player", "Plays", "Score", "Moves", "Time", "Longest move",
                         "About"], seat_rows, table_id="seats", right=(0, 3, 4, 5, 6))
        board = (self.replay_markup(record, view) if view is not None
                 else self.move_list(record))
        body = [
            h('<p class="nav">{}</p>', join((n for n in nav if n), " \u00b7 ")),
            h("<h1>{}</h1>", title),
            info,
            h("<h2>Players</h2>{}", players),
            h('<h2 id="moves">{}</h2>{}', "Replay" if view is not None else "Moves", board),
            self.notes_markup(record),
            h("<h2>Settings</h2>{}", facts((k, _value(v)) for k, v in record.settings.items())),
        ]
        scripts = ["static/replay.js"] if view is not None else []
        return self._page(title, join(body), 1, scripts)

    def _move_items(self, record: GameRecord, steps: Iterable[tuple[int | None, str, str]],
                    current: int) -> Html:
        """The ``<li>`` of each move: number, text, player, note, time (the hot loop: plain
        f-strings, every text value through ``esc``)."""
        names = [esc(p.name) for p in record.players]
        moves = record.moves
        parts = []
        for k, (seat, text, note) in enumerate(steps, start=1):
            who = names[seat] if seat is not None and 0 <= seat < len(names) else ""
            extra = f' <em class="mv-note">{esc(note)}</em>' if note else ""
            if k <= len(moves):
                extra += f" <small>{_ms(moves[k - 1].ms)}</small>"
            css = ' class="current"' if k == current else ""
            parts.append(f'<li id="m{k}"{css}><a href="#m{k}" data-step="{k}"><span '
                         f'class="mv-no">{k}.</span> <b>{esc(text)}</b> {who}{extra}</a></li>')
        return Html("".join(parts))

    def replay_markup(self, record: GameRecord, view: ReplayView) -> Html:
        """The board (final position without JS), the controls and the clickable moves.

        Step ``k``'s fragment is ``<g data-step="k">``, its mark ``<g data-mark="k">``
        (hidden but for the last step); static/replay.js shows and hides them.
        """
        total = len(view.steps)
        steps = "".join(f'<g data-step="{k}">{step.svg}</g>'
                        for k, step in enumerate(view.steps, start=1) if step.svg)
        hidden = ' display="none"'
        marks = "".join(f'<g data-mark="{k}"{"" if k == total else hidden}>{step.mark}</g>'
                        for k, step in enumerate(view.steps, start=1) if step.mark)
        style = h("<style>{}</style>", Html(view.style)) if view.style else ""
        svg = h('<svg class="board" xmlns="http://www.w3.org/2000/svg" width="{w}" '
                'height="{h}" viewBox="0 0 {w} {h}" role="img" aria-label="board">'
                '{}<g class="replay-bg">{}</g>{}{}</svg>',
                style, Html(view.background), Html(steps), Html(marks), w=view.width,
                h=view.height)
        svg = frames_board(view, "../") or svg  # a tile table drawn from its frames
        items = self._move_items(record, ((s.seat, s.text, s.note) for s in view.steps),
                                 total)
        controls = Html(
            '<div class="replay-controls" hidden>'
            '<button type="button" data-go="first" title="First (Home)">\u00ab First</button>'
            '<button type="button" data-go="prev" title="Previous (\u2190)">\u2039 Prev</button>'
            '<button type="button" data-go="next" title="Next (\u2192)">Next \u203a</button>'
            '<button type="button" data-go="last" title="Last (End)">Last \u00bb</button>'
            "</div>")
        counter = h('<p class="replay-counter">Move <span class="replay-pos">{}</span> / '
                    '<span class="replay-total">{}</span></p>', total, total)
        moves = (h('<ol class="replay-moves">{}</ol>', items) if total
                 else Html('<p class="empty">No moves.</p>'))
        return h('<section class="replay" data-steps="{}">{}{}<div class="replay-body">'
                 '<div class="replay-board">{}</div>{}</div>'
                 '<p class="hint">Keys: \u2190 \u2192 step, Home / End first / last; '
                 "click a move to go there.</p></section>",
                 total, controls, counter, svg, moves)

    def move_list(self, record: GameRecord) -> Html:
        """The moves as a plain list (games without a replay)."""
        if not record.moves:
            return Html('<p class="empty">No moves.</p>')
        items = self._move_items(record, ((m.seat, m.move, "illegal" if m.info.get("illegal")
                                           else "") for m in record.moves), 0)
        return h('<ol class="moves">{}</ol>', items)

    def notes_markup(self, record: GameRecord) -> Html:
        """What the bots said besides their moves (capped)."""
        if not record.notes:
            return Html("")
        rows = []
        for note in record.notes[:MAX_NOTES]:
            who = (record.players[note.seat].name if 0 <= note.seat < len(record.players)
                   else str(note.seat))
            rows.append([note.ply, who, note.kind, _short(note.text, 500)])
        more = len(record.notes) - MAX_NOTES + record.notes_dropped
        extra = h('<p class="empty">{} more not shown.</p>', more) if more > 0 else ""
        return h('<h2 id="notes">Bot messages</h2>{}{}',
                 table(["After move", "Player", "Kind", "Text"], rows, table_id="notes-table",
                       right=(0,)), extra)

    # -- games list ------------------------------------------------------------------
    def games_page(self) -> str:
        """Every scheduled game, in schedule order."""
        rows = []
        for row in self.summary.rows:
            rows.append([
                self.game_link(row, 0), row.round, self.seats_text(row, 0),
                _result_text(row) if row.status == "done" else row.status,
                _outcome(row) if row.status == "done" else "",
                _short(row.reason), row.plies if row.plies is not None else "",
            ])
        done = len(self.summary.done)
        body = join([
            h("<h1>Games</h1><p>{} of {} scheduled games finished.</p>", done, len(rows)),
            table(["Game", "Round", "Players", "Result", "Outcome", "Reason", "Moves"], rows,
                  table_id="games", right=(1, 6)),
        ])
        return self._page(f"{self.info.name}: games", body, 0)

    # -- player pages ----------------------------------------------------------------
    def player_page(self, name: str) -> str:
        """One player's rating, results per opponent and games."""
        s = self.summary
        standing = next((x for x in s.standings if x.name == name), Standing(name))
        items: list[tuple[str, object]] = []
        rated = None
        if s.ratings is not None:
            try:
                rated = s.ratings.player(name)
            except KeyError:
                rated = None
        if rated is not None and s.ratings is not None:
            items += [("Rank", f"{rated.rank} of {len(s.ratings.players)}"),
                      ("Elo", f"{rated.elo:.0f} (+{rated.plus:.0f} / \u2212{rated.minus:.0f})")]
        items += [("Games", standing.games), ("Points", _points(standing.points)),
                  ("Score", _percent(100 * standing.score)),
                  ("Wins / draws / losses",
                   f"{standing.wins} / {standing.draws} / {standing.losses}"),
                  ("Faults", ", ".join(f"{k} {v}" for k, v in sorted(standing.faults.items()))
                   or "none")]
        about = self.about.get(name)
        if about:
            items.append(("About", " ".join(f"{k}={v}" for k, v in sorted(about.items()))))
        opponents = []
        for other in s.order:
            head = s.heads.get(name, {}).get(other)
            if head is None or not head.games:
                continue
            los = (_percent(100 * s.ratings.los_of(name, other))
                   if rated is not None and s.ratings is not None and other in
                   {p.name for p in s.ratings.players} else "")
            opponents.append([self.player_link(other, 1), head.games, head.wins, head.draws,
                              head.losses, _points(head.points),
                              _percent(100 * head.points / head.games), los])
        games = []
        for row in self._games_of.get(name, ()):
            seat = row.seats.index(name)
            result, score = _result_of(row, seat)
            roles = self.roles.get(row.key, ())
            others = join((self.player_link(o, 1) for i, o in enumerate(row.seats)
                           if i != seat), ", ")
            games.append([
                self.game_link(row, 1), row.round, others,
                h("{} {}", seat + 1, h('<span class="role">({})</span>', roles[seat])
                  if seat < len(roles) else ""),
                h('<span class="{}">{} {}</span>', result, result, _points(score)),
                _result_text(row), _outcome(row), _short(row.reason),
                row.plies if row.plies is not None else "",
            ])
        body = join([
            h("<h1>{}</h1>", name), facts(items),
            h('<h2 id="opponents">Results against each opponent</h2>{}',
              table(["Opponent", "Games", "W", "D", "L", "Points", "Score",
                     "LOS (this player stronger)"], opponents, table_id="opponents-table",
                    right=range(1, 8)) if opponents else Html('<p class="empty">None yet.</p>')),
            h('<h2 id="games">Games</h2>{}',
              table(["Game", "Round", "Opponent", "Seat (plays)", "Result", "Game result",
                     "Outcome", "Reason", "Moves"], games, table_id="player-games", right=(1, 8))
              if games else Html('<p class="empty">No finished game yet.</p>')),
        ])
        return self._page(f"{self.info.name}: {name}", body, 1)

    # -- index -----------------------------------------------------------------------
    def index_page(self) -> str:
        """The front page."""
        s = self.summary
        info = self.info
        by_status: dict[str, int] = {}
        for row in s.rows:
            by_status[row.status] = by_status.get(row.status, 0) + 1
        status = ", ".join(f"{v} {k}" for k, v in sorted(by_status.items()) if k != "done")
        played = f"{len(s.done)} / {info.total_games}" + (f" ({status})" if status else "")
        params = info.params
        overview = facts([
            ("Game", info.game or "\u2013"),
            ("Schedule", f"{info.schedule or '?'}"
             + (f", {info.rounds} round(s)" if info.rounds is not None else "")),
            ("Players", len(s.order)),
            ("Games played / scheduled", played),
            ("Seed", info.seed if info.seed is not None else "\u2013"),
            ("Ratings", f"BayesElo: advantage {params.advantage:g}, drawelo "
             f"{params.drawelo:g}, prior {params.prior:g}, intervals at "
             f"{100 * params.confidence:g}%"),
            *([("Sandbox", info.sandbox.removeprefix("sandbox: "))] if info.sandbox else []),
        ])
        settings = facts((k, _value(v)) for k, v in info.settings.items())
        links = join(h("<li>{}</li>", self.player_link(n, 0)) for n in s.order)
        body = join([
            h("<h1>{}</h1>", info.name),
            overview,
            h("<details open><summary>Settings</summary>{}</details>", settings),
            h('<h2 id="standings">Standings</h2>{}', self.standings_table()),
            h('<h2 id="faults">Faults</h2><p class="hint">Games lost by each player\'s '
              "fault (outcomes other than normal).</p>{}", self.faults_table()),
            h('<h2 id="crosstable">Crosstable</h2><p class="hint">Points each player (row) '
              "took from each opponent (column), out of the games they played.</p>{}",
              self.crosstable()),
            h('<h2 id="ratings-plot">Rating over time</h2>{}',
              rating_chart(rating_history(s.done, len(s.done), info.params), s.order)),
            h('<h2 id="links">Players and games</h2><ul class="players">{}</ul><p>{}</p>',
              links, link("games.html", f"All {len(s.rows)} games")),
        ])
        return self._page(info.name, body, 0)

    def standings_table(self) -> Html:
        """Players best first by BayesElo, with intervals, points and LOS to the next."""
        s = self.summary
        by_name = {x.name: x for x in s.standings}
        rated = list(s.ratings.players) if s.ratings is not None else []
        rows: list[list[object]] = []
        for k, name in enumerate(s.order):
            st = by_name.get(name, Standing(name))
            if k < len(rated):
                p = rated[k]
                los = _percent(100 * float(s.ratings.los[k, k + 1])) if (
                    s.ratings is not None and k + 1 < len(rated)) else ""
                cells: list[object] = [f"{p.elo:.0f}", f"+{p.plus:.0f}", f"\u2212{p.minus:.0f}",
                                       p.games]
                score, oppo = _percent(p.score_percent), f"{p.opponents_elo:.0f}"
            else:
                los, cells = "", ["", "", "", st.games]
                score, oppo = _percent(100 * st.score), ""
            rows.append([k + 1, self.player_link(name, 0), *cells, _points(st.points), score,
                         st.wins, st.draws, st.losses, oppo, los])
        return table(["#", "Player", "Elo", "+", "\u2212", "Games", "Points", "Score", "W",
                      "D", "L", "Oppo.", "LOS next"], rows, table_id="standings-table",
                     right=[0, *range(2, 13)])

    def faults_table(self) -> Html:
        """Per player, how many games it lost by each kind of fault."""
        by_name = {x.name: x for x in self.summary.standings}
        rows = []
        for name in self.summary.order:
            faults = by_name.get(name, Standing(name)).faults
            rows.append([self.player_link(name, 0), *(faults.get(f, 0) for f in FAULTS),
                         sum(faults.values())])
        return table(["Player", *FAULTS, "total"], rows, table_id="faults-table",
                     right=range(1, len(FAULTS) + 2))

    def crosstable(self) -> Html:
        """Points/games of each player (row) against each opponent (column)."""
        s = self.summary
        head = ["#", "Player", *(str(k) for k in range(1, len(s.order) + 1)), "Points"]
        rows = []
        for k, name in enumerate(s.order):
            cells: list[object] = []
            total = 0.0
            for other in s.order:
                if other == name:
                    cells.append(Html('<span class="self">\u2014</span>'))
                    continue
                game = s.heads.get(name, {}).get(other)
                if game is None or not game.games:
                    cells.append(Html('<span class="none">\u00b7</span>'))
                    continue
                total += game.points
                cells.append(h('<span title="{} against {}: {} points in {} games">{}/{}</span>',
                               name, other, _points(game.points), game.games,
                               _points(game.points), game.games))
            rows.append([k + 1, self.player_link(name, 0), *cells, _points(total)])
        return table(head, rows, table_id="crosstable-table", css="cross",
                     right=[0, *range(2, len(head))])


def build_site(store_folder: Path, out_dir: Path) -> Path:
    """Write the static results site of the tournament stored in ``store_folder``.

    ``store_folder`` is the tournament's output folder (or its ``tournament.sqlite``);
    ``out_dir`` is created if needed and files in it are overwritten. Returns the path of
    ``out_dir/index.html``. Raises ``ConfigError`` if there is no store there.
    """
    store = Store.open_existing(store_folder)
    try:
        return SiteBuilder(store, Path(out_dir)).build()
    finally:
        store.close()
