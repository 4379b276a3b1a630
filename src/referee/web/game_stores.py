"""The server's games in ordinary stores: one tournament store per game
(``DATA/stores/<game>/``), each finished game of a table committed to it as a tournament
commits its games, so that ``referee report``, ``ratings``, ``replay`` and ``dataset``
read the games people and programs played on the server as they read a tournament's.

The store's description (its meta ``tournament``) grows with the players who have played.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from pathlib import Path
from typing import Any

from referee.core.record import GameRecord
from referee.games.registry import game_adapter
from referee.tournament.ratings import BayesEloParams
from referee.tournament.schedule import ScheduledGame
from referee.tournament.store import Store

__all__ = ["GameStores", "store_folder"]


def store_folder(data: Path, game: str) -> Path:
    """Where game ``game``'s store lives in the server's folder."""
    return data / "stores" / game


class GameStores:
    """The stores of the server's games, opened when first needed (thread-safe)."""

    def __init__(self, data: Path) -> None:
        self.data = data
        self.stores: dict[str, Store] = {}
        self.lock = threading.Lock()

    def commit(self, game: str, key: str, record: GameRecord) -> None:
        """Put the finished game ``key`` (a table's id) with its record in its game's
        store (once: a second commit of the same game changes nothing)."""
        with self.lock:
            store = self._store(game)
            names = tuple(player.name for player in record.players)
            store.add_games([ScheduledGame(key, 1, names, record.seed or 0)])
            store.mark_running(key)
            store.commit(key, record)
            self._describe(store, game, names)

    def close(self) -> None:
        """Close every store."""
        with self.lock:
            for store in self.stores.values():
                store.close()
            self.stores.clear()

    def _store(self, game: str) -> Store:
        store = self.stores.get(game)
        if store is None:
            store = Store(store_folder(self.data, game)).open(f"web:{game}",
                                                              f"{game} on the web server")
            self.stores[game] = store
        return store

    def _describe(self, store: Store, game: str, names: tuple[str, ...]) -> None:
        """The store's description as a tournament's, its players and games counted."""
        try:
            meta: dict[str, Any] = json.loads(store.meta("tournament") or "{}")
        except ValueError:
            meta = {}
        players = list(meta.get("players", []))
        players += [name for name in names if name not in players]
        adapter = game_adapter(game)
        preset = adapter.rating_preset if adapter is not None else "bayeselo"
        meta.update({
            "name": f"{game} on the web server", "game": game, "players": players,
            "schedule": "web", "rounds": 1, "total_games": store.count(), "seed": 0,
            "settings": meta.get("settings", {}),
            "ratings": dataclasses.asdict(BayesEloParams.preset(preset)),
            "sandbox": meta.get("sandbox", ""), "folder": str(self.data.resolve()),
            "sprt": None})
        store.set_meta("tournament", json.dumps(meta))
