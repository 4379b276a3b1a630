"""What a results site is made of, computed from a tournament's store before any page is
written: the tournament as its meta table describes it, and the standings, ratings and
head-to-head counts of its finished games, with the units they are counted in."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.core.json_read import json_value
from referee.core.standings import Standing, Units
from referee.games.registry import game_adapter
from referee.tournament.ratings import BayesEloParams, Ratings
from referee.tournament.results import PairRecord, crosstable, pairwise, rate_results, standings
from referee.tournament.store import GameRow, Store

__all__ = ["Summary", "TournamentInfo", "summarize"]

log = logging.getLogger(__name__)


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
    sprt: Any = None
    """The ``[sprt]`` table of a two-player tournament (``SprtEntry`` as a dict), if any."""
    folder: str = ""
    """The tournament file's folder (its programs' commands are relative to it); ``""``
    in stores of earlier releases."""


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
    units: Units = field(default_factory=Units)
    """What the standings count: players in a game (each game gives a player ``seats -
    1`` pairwise results) and the game's points."""

    def pairs(self, name: str) -> PairRecord:
        """All of a player's pairwise results (those the ratings count), summed."""
        total = PairRecord()
        for head in self.heads.get(name, {}).values():
            total.games += head.games
            total.wins += head.wins
            total.draws += head.draws
            total.losses += head.losses
        return total


def _read_info(store: Store, rows: Sequence[GameRow]) -> TournamentInfo:
    try:
        meta = json_value(store.meta("tournament") or "{}")
    except ValueError:
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
        sprt=meta.get("sprt"),
        folder=str(meta.get("folder") or ""),
    )


def summarize(store: Store) -> Summary:
    """Standings, ratings and head-to-head counts of the store's finished games."""
    rows = store.games()
    # the same row objects, in the order they finished (as ``games(by_finish=True)``)
    done = sorted((r for r in rows if r.status == "done"),
                  key=lambda r: (r.finished_seq or 0, r.seq))
    info = _read_info(store, rows)
    adapter = game_adapter(info.game)
    table = standings(done, info.players, adapter is not None and adapter.scores_are_points)
    try:
        ratings = rate_results(pairwise(done), info.params)
    except ValueError as exc:
        log.warning("no ratings: %s", exc)
        ratings = None
    order = [p.name for p in ratings.players] if ratings else []
    order += [s.name for s in table if s.name not in order]
    heads = crosstable(done, order)
    units = Units(max((len(row.seats) for row in rows), default=2))
    if adapter is not None:
        units = Units(units.seats, adapter.points_unit, adapter.scores_are_points)
    return Summary(info, rows, done, table, ratings, order, heads, units)
