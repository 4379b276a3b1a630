"""Planowanie at a web table: the settings a table takes, what a seat sees, a click as an
action.

A seat sees the table (the deal, the trick, the last trick and the last deal's result,
declarations once all are revealed, tricks taken, points) and its own hand, never
another's; while seats declare, only its own declaration. The seat to decide is told
what it may do: the numbers it may declare, or the cards of its hand it may play. The
game is played by ``PlanowanieTableGame`` as in a match, its outside seats driven by the
server.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from referee.core.errors import ConfigError
from referee.core.limits import megabytes
from referee.core.record import GameRecord
from referee.core.table import (
    Field,
    TableGame,
    read_fields,
)
from referee.games.planowanie.defaults import MEMORY_MB
from referee.games.planowanie.match import (
    BUILTIN_PLAYERS,
    PlanowanieSettings,
    PlanowanieTableGame,
    SeatMaker,
)
from referee.games.planowanie.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    TOURNAMENT_SUITS,
    TOURNAMENT_VALUES,
    Deck,
    Declare,
    Phase,
    PlanowanieGame,
    cards_of,
)

__all__ = ["DRIVER", "PlanowanieDriver"]

MAX_VALUES = 26
"""The most card values a web table's deck may have (its board shows every hand)."""
MAX_SUITS = 8
"""The most suits a web table's deck may have."""


class PlanowanieDriver:
    """Planowanie's table driver (``core.table.TableDriver``)."""

    game = "planowanie"
    title = "Planowanie"
    builtins: Mapping[str, str] = {"heuristic": BUILTIN_PLAYERS["heuristic"],
                                   "random": BUILTIN_PLAYERS["random"]}
    board_module = "board.js"
    fields = (
        Field("players", "Players", "int", 4, low=MIN_PLAYERS, high=MAX_PLAYERS,
              help="seats at the table (the first seats of the list below)"),
        Field("values", "Card values", "text", TOURNAMENT_VALUES,
              help="one character per value, lowest first (set_deck)"),
        Field("suits", "Suits", "text", TOURNAMENT_SUITS,
              help="one character per suit; the first is trumps (set_deck)"),
        Field("deals", "Deals", "text", "",
              help="set_game's arguments 'd c1 s1 ... cd sd' (cards per player and the "
                   "starting seat, 0-based, of each deal); empty: 13 deals of 1..13 cards, "
                   "the starter moving one seat each deal"),
    )

    def settings(self, form: Mapping[str, str]) -> dict[str, Any]:
        """The table's settings from its form; ``ConfigError`` naming the field."""
        values = read_fields(self.fields, form)
        for name, label, longest in (("values", "Card values", MAX_VALUES),
                                     ("suits", "Suits", MAX_SUITS)):
            if len(values[name]) > longest:
                raise ConfigError(f"{label}: at most {longest} characters at a web table, "
                                  f"got {len(values[name])}")
        try:
            Deck(values["values"], values["suits"])
        except ConfigError as exc:
            raise ConfigError(f"Card values/Suits: {exc}") from None
        values["deals"] = " ".join(values["deals"].split())
        try:
            _settings(values)
        except ConfigError as exc:
            raise ConfigError(f"Deals: {exc}") from None
        return values

    def seat_count(self, settings: Mapping[str, Any]) -> int:
        """The number of players."""
        return int(settings["players"])

    def seat_names(self, settings: Mapping[str, Any]) -> list[str]:
        """``Seat 1`` .. ``Seat n`` (the protocol's seats 0 .. n-1)."""
        return [f"Seat {seat + 1}" for seat in range(int(settings["players"]))]

    def play(self, game: TableGame) -> GameRecord:
        """Play the table's game with ``PlanowanieTableGame`` on the table's seed."""
        settings = dataclasses.replace(_settings(game.settings), sandbox=game.sandbox,
                                       memory_limit=megabytes(MEMORY_MB))
        players = game.players()
        outside: dict[int, SeatMaker] = game.outside()
        links = game.links()
        run = PlanowanieTableGame(players, settings, game.seed, game.work, times=game.times,
                                  links=links)
        game.take_over = run.take_over
        game.release = run.drop
        game.record = run.current_record
        return run.play(outside=outside, watch=game.watch, on_fault=game.on_fault)

    def view(self, engine: PlanowanieGame, seat: int | None, reveal: bool) -> dict[str, Any]:
        """The table as ``seat`` sees it (its own hand only), with its choices if it is to
        decide; ``reveal``: every hand."""
        table, rules = engine.table, engine.rules
        deck = rules.deck
        names = deck.names
        declaring = table.phase is Phase.DECLARE
        to_play = engine.to_play()
        players = range(rules.players)
        if declaring:
            declared: list[int | None] = [
                table.said(s) if s == seat else None for s in players]
        else:
            declared = list(table.declared)
        view: dict[str, Any] = {
            "players": rules.players, "values": deck.values, "suits": deck.suits,
            "deal": table.deal + 1, "deals": len(rules.deals), "cards": table.cards,
            "starter": table.starter, "phase": table.phase.value, "to_play": to_play,
            "declared": declared,
            "has_declared": [table.said(s) is not None for s in players],
            "tricks": list(table.tricks), "points": list(table.points),
            "trick": {"leader": table.trick_leader,
                      "cards": [names[c] for c in table.trick]},
            "last_trick": _trick(table.last_trick, deck),
            "last_deal": None,
            "hand": [] if seat is None else [names[c] for c in cards_of(engine.hands[seat])],
        }
        done = table.last_deal
        if done is not None:
            view["last_deal"] = {"deal": done.deal + 1, "cards": done.cards,
                                 "declared": list(done.declared), "tricks": list(done.tricks),
                                 "gained": list(done.gained),
                                 "last_trick": _trick(done.last_trick, deck)}
        if reveal:
            view["hands"] = [[names[c] for c in cards_of(hand)] for hand in engine.hands]
        if seat is not None and seat == to_play:
            if declaring:
                view["legal"] = {"declare": list(range(table.cards + 1))}
            else:
                view["legal"] = {"cards": [names[c] for c in cards_of(
                    table.legal_mask(engine.hands[seat]))]}
        return view

    def action(self, engine: PlanowanieGame, seat: int, move: Mapping[str, Any]) -> Any:
        """``{"declare": N}`` or ``{"card": "TH"}`` (a card's name: value then suit)."""
        if "declare" in move:
            tricks = move["declare"]
            if type(tricks) is not int or not -1000 < tricks < 1000:
                raise ValueError(f"{str(tricks)[:40]} is not a number of tricks")
            return Declare(tricks)
        if "card" in move:
            name = move["card"]
            card = engine.rules.deck.card(name) if isinstance(name, str) else None
            if card is None:
                raise ValueError(f"{str(name)[:40]} is not a card of the deck")
            return card
        raise ValueError("expected a declaration or a card")


def _settings(values: Mapping[str, Any]) -> PlanowanieSettings:
    """The game's settings from a table's (``ConfigError`` if they do not fit)."""
    deals = values.get("deals") or None
    return PlanowanieSettings.from_options(values=values["values"], suits=values["suits"],
                                           players=int(values["players"]), deals=deals)


def _trick(trick: tuple[int, tuple[int, ...], int] | None,
           deck: Deck) -> dict[str, Any] | None:
    """A completed trick as the board shows it."""
    if trick is None:
        return None
    leader, cards, winner = trick
    return {"leader": leader, "cards": [deck.name(c) for c in cards], "winner": winner}


DRIVER = PlanowanieDriver()
"""The driver the registry names."""
