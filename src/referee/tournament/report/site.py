"""The tournament results site: static HTML pages built from a tournament's store.

``build_site(store_folder, out_dir)`` writes::

    index.html            name, game, settings, progress, downloads, standings (BayesElo),
                          faults with their reasons, rating plot, links
    crosstable.html       points of each player against each opponent
    games.html            every scheduled game, links to the finished ones
    games/g<seq>.html     one page per finished game: players, result, reason, replay,
                          downloads (its record as JSON, and .psq / .mjson.gz where the
                          game has one: in the page as data: URLs up to 64 KB, else
                          files beside it, g<seq>.json...)
    players/<name>.html   one page per player: results per opponent, its games, its logs
    logs/                 the bots' stderr logs the tournament kept (their last 64 KB)
    results.csv           one line per scheduled game; results.pgn: the pairwise results
    static/               site.css and replay.js (copied from this package); shared/: what
                          many game pages show alike (a Gomoku board without its stones:
                          an SVG image and its style sheet, named by their content)

Pages are Jinja2 templates (``templates/``, one per kind of page), loaded from this package
with autoescaping on and ``StrictUndefined``, compiled once per build. Every value from
users and bots (names, reasons, messages, settings) reaches a page through the templates'
escaping; the only markup inserted as it is is what this package writes (``Markup``): the
replay (``replay_markup``) and the rating plot. Nothing is loaded from the
network: the CSS and the one script are files of the site and every link is relative, so
the site works from ``file://`` URLs and from any web server. Only the replay needs
JavaScript; without it a game page shows the final position.

A game page does not say when it was built, so that building the site again writes only
the game pages that changed: the first build of a process writes them all, the next ones
only those whose game, neighbours or logs changed (``written_pages``).

Memory stays flat in the number of games: records are read from the store one at a time
and each game page is written and dropped at once; what is kept per game is its store row
and a few words (the seats' roles, its duration) for the game lists.

The replay comes from the game slice (``GameAdapter.replay`` -> ``ReplayView``); a game
without one gets the plain list of moves.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import os
import re
from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from referee import __version__
from referee.core.adapter import GameAdapter
from referee.core.files import write_bytes_atomic, write_text_atomic
from referee.core.outcome import Outcome
from referee.core.players import folder_name
from referee.core.record import GameRecord, result_text
from referee.core.replay import Picture, ReplayView
from referee.core.standings import Standing, game_result
from referee.core.text import seat_name
from referee.games.registry import game_adapter
from referee.tournament.report.downloads import (
    Download,
    copy_tail,
    cut_note,
    game_download,
    game_logs,
    mjai_logs,
    native_file,
    results_csv,
    stderr_logs,
)
from referee.tournament.report.plot import (
    rating_chart,
    rating_history,
    sprt_chart,
    sprt_history,
)
from referee.tournament.report.public import Public
from referee.tournament.report.readable import (
    SHOWN_ITEMS,
    Setting,
    about_text,
    duration,
    percent,
    points,
    readable_settings,
    short_name,
    visible_settings,
    when,
)
from referee.tournament.report.readable import ms as _ms
from referee.tournament.report.replay_markup import move_list, replay_section
from referee.tournament.report.rows import Links, SeatLine, game_page
from referee.tournament.report.standing_tables import (
    column_heads,
    crosstable_legend,
    crosstable_table,
    opponents_table,
    player_facts,
    standings_table,
)
from referee.tournament.report.summary import Summary, TournamentInfo, summarize
from referee.tournament.report.workers import GameFacts, PageJob, PageWorkers
from referee.tournament.report.written_pages import PageKey, written_pages
from referee.tournament.results import (
    write_results_pgn,
)
from referee.tournament.store import GameRow, Store

log = logging.getLogger(__name__)

STATIC_FILES = ("site.css", "replay.js", "tiles.js", "tiles.css")
FAULTS = tuple(o.value for o in Outcome if o is not Outcome.NORMAL)
"""Outcome columns of the fault table: every outcome but ``normal``."""
MAX_NOTES = 500
"""Bot messages shown per game page (the rest are counted)."""
MAX_FAULT_GAMES = 200
"""Games lost by a fault listed on the index (the rest are on the games page)."""
CELL_TITLES = 40
"""Crosstables of up to this many players get a hover text per cell."""
PARALLEL_FROM = 1000
"""Finished games from which game pages are written by several processes."""
MAX_WORKERS = 8
SETTINGS_KEPT = 256
"""Distinct game settings whose markup a build remembers (``settings_markup``)."""


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

    game = staticmethod(game_page)




def public_of(info: TournamentInfo, store_folder: Path) -> Public:
    """How the site writes the organiser's folders for this tournament (``public``)."""
    adapter = game_adapter(info.game)
    return Public(info.folder, store_folder, adapter.builtins if adapter is not None else {})


def seat_tag(tag: str) -> str:
    """The seat a log file's tag names, as people number seats (``seat1`` and the bare
    ``0`` of earlier files: ``seat 1``), else the tag as it is."""
    if tag.isdecimal():
        return seat_name(int(tag))
    found = re.fullmatch(r"seat(\d+)", tag)
    return f"seat {int(found.group(1))}" if found else tag


def _result_of(row: GameRow, seat: int) -> tuple[str, float]:
    """``win``, ``draw`` or ``loss`` for one seat (as the standings count them) and its score."""
    scores = row.scores or ()
    return game_result(scores, row.offender, seat, {s for s, _ in row.faults}), scores[seat]


# -- templates --------------------------------------------------------------------------
def template_environment() -> jinja2.Environment:
    """The site's templates (this package's ``templates/``): HTML autoescaped, undefined
    names an error, and the few filters the pages use."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("referee.tournament.report", "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )
    env.filters.update(points=points, percent=percent, ms=_ms, short_name=short_name,
                       result=result_text, when=when)
    env.globals["shown_items"] = SHOWN_ITEMS
    env.tests["picture"] = lambda value: isinstance(value, Picture)
    return env


# -- the site ---------------------------------------------------------------------------
class SiteBuilder:
    """Writes the pages of one store's site (see the module docstring)."""

    def __init__(self, store: Store, out_dir: Path, workers: int | None = None) -> None:
        summary = summarize(store)
        public = public_of(summary.info, store.folder)
        rows = {id(row): public.row(row) for row in summary.rows}  # (their reasons)
        summary.rows = [rows[id(row)] for row in summary.rows]
        summary.done = [rows[id(row)] for row in summary.done]
        self._games_of: dict[str, list[GameRow]] = {}
        for row in sorted(summary.done, key=lambda r: r.seq):
            for name in dict.fromkeys(row.seats):
                self._games_of.setdefault(name, []).append(row)
        self.workers = workers
        """Processes writing the game pages (``None``: one per CPU for large stores)."""
        self._setup(store, out_dir, summary,
                    dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"))

    def _setup(self, store: Store, out_dir: Path, summary: Summary, generated: str) -> None:
        """What the pages of a build share (in the main process and in each worker)."""
        self.store = store
        self.out = out_dir
        self.summary = summary
        self.info = summary.info
        self.public = public_of(summary.info, store.folder)
        """The organiser's folders, as the site writes them (``public``)."""
        self.paths = Paths(summary.order)
        self.generated = generated
        self.done = sorted(summary.done, key=lambda r: r.seq)
        """The finished games in schedule order (the game pages' order)."""
        self.roles: dict[str, tuple[str, ...]] = {}
        self._role_tuples: dict[tuple[str, ...], tuple[str, ...]] = {}
        self.about: dict[str, dict[str, str]] = {}
        self.programs: dict[str, str] = {}
        """Each player's program as the site shows it (its first game's)."""
        self.durations: dict[str, str] = {}
        """Seconds each finished game took (``12.345``), by store key."""
        self.logs: dict[str, list[Download]] = {}
        self._adapters: dict[str, GameAdapter | None] = {}
        self._mjai = mjai_logs(store.folder)
        self.player_pages = {name: self.paths.player(name) for name in summary.order}
        self.links = Links(self.player_pages)
        env = template_environment()
        env.globals.update(self.links.globals())
        self.templates = {name: env.get_template(f"{name}.html")
                          for name in ("index", "crosstable", "games", "game", "player")}
        macros = vars(env.get_template("macros.html").module)  # the macros by name
        self._settings_list: Callable[[list[Setting]], Markup] = macros["settings_list"]
        self._settings_markup: dict[tuple[str, str], Markup] = {}
        self._shared: dict[tuple[str, str], str] = {}
        """The files of static/shared/ this process has written: their links by content."""

    @classmethod
    def for_pages(cls, job: PageJob) -> SiteBuilder:
        """A builder of game pages only, in a worker process (see ``start_game_pages``)."""
        builder = cls.__new__(cls)
        summary = Summary(job.info, [], [GameRow(*v) for v in job.done], [], None, job.order)
        builder._setup(Store.open_existing(job.store_folder), job.out, summary, job.generated)
        builder.logs = job.logs
        return builder

    # -- writing ---------------------------------------------------------------------
    def build(self) -> Path:
        """Write every page and file; returns the path of index.html."""
        for folder in ("static", "games", "players"):
            (self.out / folder).mkdir(parents=True, exist_ok=True)
        package = resources.files("referee.tournament.report") / "static"
        for name in STATIC_FILES:
            write_bytes_atomic(self.out / "static" / name, (package / name).read_bytes())
        self.write_logs()
        workers = self.start_game_pages()
        # what needs nothing of the game pages, while the workers write them
        self._render("crosstable.html", "crosstable", 0, **self.crosstable_context())
        charts = self.chart_context()
        files = self.write_tournament_files()
        self.finish_game_pages(workers)
        s = self.summary
        self._render("games.html", "games", 0, title=f"{self.info.name}: games",
                     rows=s.rows, done_count=len(s.done),
                     game_rows=self.links.games_rows(s.rows, self.roles, ""))
        for name in s.order:
            self._render(self.paths.player(name), "player", 1,
                         **self.player_context(name))
        files.insert(0, self.write_results_csv())
        return self._render("index.html", "index", 0, **self.index_context(files), **charts)

    def _render(self, path: str, template: str, depth: int, scripts: Sequence[str] = (),
                stamped: bool = True, **context: Any) -> Path:
        """Write page ``path`` from ``template``; ``stamped``: its footer says when (game
        pages do not, so that a page written again would be the same)."""
        text = self.templates[template].render(
            root="../" * depth, site_name=self.info.name,
            generated=self.generated if stamped else "", version=__version__,
            scripts=scripts, **context)
        return write_text_atomic(self.out / path, text)

    # -- downloads -------------------------------------------------------------------
    def write_logs(self) -> None:
        """Copy the end of each player's stderr logs to ``logs/<player>/<n>.stderr.log``."""
        for name, sources in stderr_logs(self.store.folder, self.summary.order).items():
            folder = "logs/" + Path(self.paths.player(name)).stem
            (self.out / folder).mkdir(parents=True, exist_ok=True)
            mine = self.logs.setdefault(name, [])
            for number, source in enumerate(sources, start=1):
                path = f"{folder}/{number}.stderr.log"
                try:
                    cut = copy_tail(source, self.out / path, transform=self.public.data)
                except OSError as exc:
                    log.warning("log %s not copied: %s", source, exc)
                    continue
                slot = source.parent.parent.name
                where = "the readiness check" if slot == "check" else f"game slot {slot}"
                tag = source.name.removesuffix(".stderr.log")[: -len(folder_name(name))]
                if tag.strip("-") and slot != "check":  # a game's own tag (``seat1-``)
                    where += f", {seat_tag(tag.strip('-'))}"
                mine.append(Download(path, f"stderr of {name}, {where}",
                                     "its last 64 KB" if cut else ""))

    def write_results_csv(self) -> Download:
        """Every scheduled game's result as CSV (with the games' durations: after the game
        pages)."""
        results_csv(self.summary.rows, self.durations, self.out / "results.csv")
        return Download("results.csv", "Results (CSV)", "one line per game")

    def write_tournament_files(self) -> list[Download]:
        """The results as PGN, and the tournament's TOML if the store kept it."""
        s = self.summary
        files = []
        if s.done:
            try:
                write_results_pgn(s.done, self.out / "results.pgn", self.info.name)
                files.append(Download("results.pgn", "Results (PGN)",
                                      "pairwise results, for BayesElo or Ordo"))
            except ValueError as exc:
                log.warning("no PGN: %s", exc)
        toml = self.store.meta("toml")
        if toml:
            write_text_atomic(self.out / "tournament.toml", self.public.text(toml))
            files.append(Download("tournament.toml", "Tournament file (TOML)"))
        return files

    # -- game pages ------------------------------------------------------------------
    def adapter(self, game: str) -> GameAdapter | None:
        """The game's adapter, ``None`` for a game the referee does not know."""
        if game not in self._adapters:
            self._adapters[game] = game_adapter(game)
        return self._adapters[game]

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

    def start_game_pages(self) -> PageWorkers | None:
        """Start the worker processes writing the game pages when there are many
        (``workers``; each reads its records one at a time); ``None`` when this process is
        to write them (in ``finish_game_pages``)."""
        self._plan_game_pages()
        todo = self._todo
        count = len(todo)
        workers = self.workers
        if workers is None:
            workers = min(MAX_WORKERS, len(os.sched_getaffinity(0))) if (
                count >= PARALLEL_FROM) else 1
        workers = max(1, min(workers, count))
        if workers == 1:
            return None
        job = PageJob(self.store.folder, self.out, self.info, self.summary.order,
                      self.generated, self.logs, [row.values() for row in self.done])
        return PageWorkers(job, [todo[k::workers] for k in range(workers)])

    def _plan_game_pages(self) -> None:
        """Which game pages to write (``_todo``): those this process has not written as
        they would come out now (``written_pages``); the facts of the others (``_kept``)."""
        memo = written_pages(self.out, self.store.folder)
        if not (self.out / "static" / "shared").is_dir():  # what the kept pages link is gone
            memo.forget()
        done = self.done
        last = len(done) - 1
        logs = self.logs
        self._todo: list[int] = []
        self._kept: list[GameFacts] = []
        self._page_keys: dict[int, PageKey] = {}
        for index, row in enumerate(done):
            page = (self.info.name, row.values(), done[index - 1].seq if index else None,
                    done[index + 1].seq if index < last else None,
                    tuple(tuple(logs.get(name, ())) for name in row.seats))
            kept = memo.kept(row.key, page, self.out / Paths.game(row), index)
            if kept is None:
                self._todo.append(index)
                self._page_keys[index] = page
            else:
                self._kept.append(kept)
        self._memo = memo

    def finish_game_pages(self, workers: PageWorkers | None) -> None:
        """Have every game page written (by ``workers``, or here), and keep what the game
        lists and player pages need of each game."""
        written = self.game_pages(self._todo) if workers is None else workers.collect()
        for fact in written:
            self._memo.remember(self._page_keys[fact.index], fact)
        facts = written + self._kept
        for fact in sorted(facts, key=lambda f: f.index):  # the first game's facts first
            self.roles[fact.key] = self._role_tuples.setdefault(fact.roles, fact.roles)
            for name, about in fact.about.items():
                self.about.setdefault(name, about)
            for name, program in fact.programs.items():
                self.programs.setdefault(name, program)
            if fact.duration:
                self.durations[fact.key] = fact.duration

    def game_pages(self, indices: Iterable[int]) -> list[GameFacts]:
        """Write the pages of the finished games at ``indices`` of ``done`` (schedule
        order) with their downloads; returns what the game lists and player pages need
        of each."""
        done = self.done
        facts = []
        for index in indices:
            row = done[index]
            record = self.public.record(self.store.record(row.key))
            stem = Paths.game(row).removesuffix(".html")
            files = [game_download(self.out, f"{stem}.json",
                                   record.to_compact_json().encode(), "Record (JSON)",
                                   "the referee's game record")]
            native = native_file(record, self._mjai, self.adapter(record.game))
            if native is not None:
                suffix, blob, label = native
                files.append(game_download(self.out, f"{stem}{suffix}", blob, label))
            files.extend(self.game_log_downloads(record, stem))
            view = self.replay(record)
            seconds = duration(record.started_at, record.finished_at)
            facts.append(GameFacts(
                index, row.key, tuple(view.roles) if view is not None and view.roles else (),
                {p.name: dict(p.about) for p in record.players if p.about},
                f"{seconds:.3f}" if seconds is not None else "",
                {p.name: self.public.program(p.command) for p in record.players}))
            before = done[index - 1] if index else None
            after = done[index + 1] if index + 1 < len(done) else None
            self._render(Paths.game(row), "game", 1, stamped=False,
                         scripts=["static/replay.js"] if view is not None else [],
                         **self.game_context(row, record, view, before, after, files))
        return facts

    def game_log_downloads(self, record: GameRecord, stem: str) -> list[Download]:
        """What each seat's program wrote on stderr during this game (the end of it), or
        for a record that does not say (an earlier release's) its players' whole logs."""
        found = game_logs(self.store.folder, record)
        if not found and not any(p.stderr for p in record.players):
            return [d for name in dict.fromkeys(p.name for p in record.players)
                    for d in self.logs.get(name, ())]
        return [game_download(
            self.out, f"{stem}.seat{log.seat + 1}.stderr.log",
            cut_note(log.size, len(log.data)) + self.public.data(log.data),
            f"stderr of {log.name} (seat {log.seat + 1})",
            f"its last {len(log.data) // 1024} KB of {log.size // 1024} KB" if log.cut
            else f"{log.size} bytes") for log in found if log.size]

    def game_context(self, row: GameRow, record: GameRecord, view: ReplayView | None,
                     before: GameRow | None, after: GameRow | None,
                     files: list[Download]) -> dict[str, Any]:
        """What the page of one finished game shows."""
        names = [p.name for p in record.players]
        roles = view.roles if view is not None else ()
        seats = []
        for seat, player in enumerate(record.players):
            times = [m.ms for m in record.moves if m.seat == seat]
            score = record.scores[seat] if record.scores and seat < len(record.scores) else None
            seats.append(SeatLine(
                player.name, roles[seat] if seat < len(roles) else "\u2013",
                points(score) if score is not None else "\u2013", len(times),
                _ms(sum(times)), _ms(max(times)) if times else "\u2013",
                about_text(player.about)))
        notes = [{"ply": note.ply, "kind": note.kind, "text": note.text,
                  "who": names[note.seat] if 0 <= note.seat < len(names) else str(note.seat)}
                 for note in record.notes[:MAX_NOTES]]
        seconds = duration(record.started_at, record.finished_at)
        return {
            "title": f"Game {row.seq}: {' vs '.join(names)}",
            "row": row, "record": record, "before": before, "after": after, "files": files,
            "offender": (names[record.offender] if record.offender is not None
                         and 0 <= record.offender < len(names) else None),
            "duration": f"{seconds:.1f} s" if seconds is not None else "",
            "seat_rows": self.links.seat_rows(seats, "../", bool(roles)),
            "roles": bool(roles),
            "replay": view is not None,
            "board": (replay_section(record, view, self.links.esc, self.shared_file)
                      if view is not None
                      else move_list(record, self.links.esc)),
            "notes": notes,
            "notes_more": len(record.notes) - MAX_NOTES + record.notes_dropped,
            "settings": self.settings_markup(record.game, record.settings),
        }

    def shared_file(self, suffix: str, text: str) -> str:
        """Keep ``text`` as a file of the site that many game pages share (``static/shared/``,
        named by its content: several processes may write it, with the same bytes); its
        link from a game page."""
        link = self._shared.get((suffix, text))
        if link is None:
            name = f"{hashlib.sha256(text.encode()).hexdigest()[:20]}{suffix}"
            folder = self.out / "static" / "shared"
            folder.mkdir(parents=True, exist_ok=True)
            write_text_atomic(folder / name, text)
            link = self._shared[suffix, text] = f"../static/shared/{name}"
        return link

    def settings_markup(self, game: str, settings: dict[str, Any]) -> Markup:
        """A game's settings as its page shows them (the ``settings_list`` macro), made
        once per distinct shown settings: most games of a tournament share theirs."""
        adapter = self.adapter(game)
        visible = visible_settings(settings, adapter)
        key = (game, repr(visible))
        made = self._settings_markup.get(key)
        if made is None:
            if len(self._settings_markup) >= SETTINGS_KEPT:
                self._settings_markup.clear()
            made = self._settings_markup[key] = self._settings_list(
                readable_settings(visible, adapter))
        return made

    # -- player pages ----------------------------------------------------------------
    def player_context(self, name: str) -> dict[str, Any]:
        """One player's rating, results per opponent, games and logs."""
        s = self.summary
        standing = next((x for x in s.standings if x.name == name), Standing(name))
        rated = None
        if s.ratings is not None:
            try:
                rated = s.ratings.player(name)
            except KeyError:
                rated = None
        items, legend = player_facts(s, name, rated)
        items.append(("Faults", ", ".join(f"{k} {v}" for k, v in sorted(
            standing.faults.items())) or "none"))
        program = self.programs.get(name)
        if program:
            items.append(("Program", program))
        about = self.about.get(name)
        if about:
            items.append(("About", about_text(about)))
        rated_names = {p.name for p in s.ratings.players} if s.ratings is not None else set()
        opponents = []
        for other in s.order:
            head = s.heads.get(name, {}).get(other)
            if head is None or not head.games:
                continue
            los = (percent(100 * s.ratings.los_of(name, other))
                   if rated is not None and s.ratings is not None and other in rated_names
                   else "")
            opponents.append({"name": other, "cells": [
                head.games, head.wins, head.draws, head.losses, points(head.points),
                percent(100 * head.points / head.games), los]})
        games = []
        for row in self._games_of.get(name, ()):
            seat = row.seats.index(name)
            result, score = _result_of(row, seat)
            roles = self.roles.get(row.key, ())
            games.append({"row": row, "seat": seat, "role": roles[seat] if seat < len(roles)
                          else "", "others": [o for i, o in enumerate(row.seats) if i != seat],
                          "result": result, "score": score})
        columns, opponents_legend = opponents_table(s)
        return {"title": f"{self.info.name}: {name}", "name": name, "items": items,
                "legend": legend, "opponent_columns": columns, "pairwise": s.units.pairwise,
                "opponents_legend": opponents_legend,
                "opponents": opponents, "opponent_rows": self.links.opponent_rows(opponents, "../"),
                "games": games,
                "game_rows": self.links.player_games_rows(games, "../"),
                "logs": self.logs.get(name, [])}

    # -- index -----------------------------------------------------------------------
    def index_context(self, files: list[Download]) -> dict[str, Any]:
        """The front page: the tournament, its settings, downloads, standings, faults."""
        s = self.summary
        info = self.info
        by_status: dict[str, int] = {}
        for row in s.rows:
            by_status[row.status] = by_status.get(row.status, 0) + 1
        status = ", ".join(f"{v} {k}" for k, v in sorted(by_status.items()) if k != "done")
        played = f"{len(s.done)} / {info.total_games}" + (f" ({status})" if status else "")
        params = info.params
        overview: list[tuple[str, object]] = [
            ("Game", info.game or "\u2013"),
            ("Schedule", (info.schedule or "?").replace("-", " ")
             + (f", {info.rounds} round(s)" if info.rounds is not None else "")),
            ("Players", len(s.order)),
            ("Games played / scheduled", played),
            ("Seed", info.seed if info.seed is not None else "\u2013"),
            ("Ratings", f"BayesElo: advantage {params.advantage:g}, drawelo "
             f"{params.drawelo:g}, prior {params.prior:g}, intervals at "
             f"{100 * params.confidence:g}%"),
        ]
        if info.sandbox:
            overview.append(("Sandbox", self.public.text(info.sandbox.removeprefix("sandbox: "))))
        by_name = {x.name: x for x in s.standings}
        faults = []
        for name in s.order:
            counts = by_name.get(name, Standing(name)).faults
            faults.append({"name": name, "counts": [*(counts.get(f, 0) for f in FAULTS),
                                                    sum(counts.values())]})
        fault_games = [row for row in sorted(s.done, key=lambda r: r.seq)
                       if row.outcome not in (None, Outcome.NORMAL.value)
                       and row.offender is not None and 0 <= row.offender < len(row.seats)]
        return {
            "title": info.name, "info": info, "overview": overview,
            "settings": readable_settings(self.public.settings(info.settings),
                                          self.adapter(info.game)),
            "files": files,
            "standings": standings_table(s), "fault_kinds": FAULTS, "fault_counts": faults,
            "fault_games": fault_games[:MAX_FAULT_GAMES],
            "fault_more": max(0, len(fault_games) - MAX_FAULT_GAMES),
            "order": s.order, "rows_count": len(s.rows),
        }

    def chart_context(self) -> dict[str, Any]:
        """The index's charts: ratings over time, and the SPRT's when there is one."""
        s = self.summary
        return {"chart": rating_chart(rating_history(s.done, len(s.done), self.info.params),
                                      s.order),
                "sprt": self.sprt_context()}

    def sprt_context(self) -> dict[str, Any] | None:
        """The SPRT of a two-player tournament that ran one: its test, where it stands and
        its chart (``None`` for the others)."""
        info = self.info
        if not info.sprt or len(info.players) != 2:
            return None
        found = sprt_history(self.summary.done, len(self.summary.done), info.players[0],
                             info.sprt)
        if found is None:
            return None
        test, llr = found.sprt, found.llr
        verdict = test.verdict(llr).value if llr is not None else "no game yet"
        items: list[tuple[str, object]] = [
            ("Test", f"{found.player} against {info.players[1]}: H0 {test.elo0:g} Elo, "
                     f"H1 {test.elo1:g} Elo ({test.model}), alpha {test.alpha:g}, "
                     f"beta {test.beta:g}"),
            ("LLR", (f"{llr:.2f}" if llr is not None else "\u2013")
             + f" (H0 accepted at {test.lower:.2f}, H1 at {test.upper:.2f})"),
            ("Verdict", "going on" if verdict == "continue" else verdict),
            ("Games", found.counts.summary().replace("\n", "; ")),
        ]
        return {"items": items,
                "chart": sprt_chart(found.points, test.lower, test.upper)}

    def crosstable_context(self) -> dict[str, Any]:
        """Points/results of each player (row) against each opponent (column)."""
        s = self.summary
        return {"title": f"{self.info.name}: crosstable", "order": s.order,
                "heads": column_heads(s.order), "legend": crosstable_legend(s),
                "cross_rows": self.links.crosstable_rows(crosstable_table(s), s.order,
                                                         len(s.order) <= CELL_TITLES, "")}


def build_site(store_folder: Path, out_dir: Path, workers: int | None = None) -> Path:
    """Write the static results site of the tournament stored in ``store_folder``.

    ``store_folder`` is the tournament's output folder (or its ``tournament.sqlite``);
    ``out_dir`` is created if needed and files in it are overwritten. ``workers``: the
    processes writing game pages (default: one per CPU, up to 8, from 1,000 finished
    games). Returns the path of ``out_dir/index.html``. Raises ``ConfigError`` if there
    is no store there.
    """
    store = Store.open_existing(store_folder)
    try:
        return SiteBuilder(store, Path(out_dir), workers).build()
    finally:
        store.close()
