"""Planowanie tables on a real server: a person plays a whole game against built-in bots
over the page's WebSocket while someone watches, and no state either receives shows a
card it may not see (another seat's hand, a declaration not yet revealed); refused
clicks say why and cost nothing; a person's program plays for them from the position
reached; a program joins with ``referee connect planowanie``; bad settings are refused
naming the field; the records read back and ``referee replay planowanie`` says OK. The
driver's views are also checked on an engine of a known seed (follow suit, every hand)."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from typing import Any

from table_server import (
    Server,
    beside,
    connect,
    form_offers,
    join_url,
    module_server,
    next_message,
    next_state,
    raw_states,
    record_file,
    replay_ok,
    settings_refused,
    sit_invited,
    together,
)

from referee.core.record import GameRecord
from referee.games.planowanie.replay import record_rules
from referee.games.planowanie.rules import Declare, PlanowanieGame, Rules, cards_of, deal_hands
from referee.games.planowanie.web_table import DRIVER

CLOCKS = {"person_turn": "60", "program_turn": "5", "pace": "0"}
SHORT = {"deals": "3 2 0 3 1 1 2", **CLOCKS}
"""Three deals (2, 3 and 1 cards), started by seats 0, 1 and 2."""
QUOTED = re.compile(r'"([^"\\]{2})"')
RANDOM_PLAYER = [sys.executable, "-m", "referee.games.planowanie.bots.random_player"]


server = module_server("web")
"""The module's server."""


def record_of(server: Server, table: str) -> GameRecord:
    return GameRecord.read(record_file(server, "planowanie", table))


def choice(view: dict[str, Any]) -> dict[str, Any]:
    """A legal move of the view's choices: declare 1 (or 0), else the first legal card."""
    legal = view["legal"]
    if "declare" in legal:
        return {"declare": 1 if 1 in legal["declare"] else 0}
    return {"card": legal["cards"][0]}


async def collect(ws: Any, into: list[str], me: int | None,
                  act: bool) -> dict[str, Any]:
    """Every state (raw) into ``into``; with ``act``, a legal move whenever asked; the
    last state (the game over)."""
    return await raw_states(ws, into, me, choice if act else None)


def public_cards(view: dict[str, Any]) -> set[str]:
    """The cards every seat may see in a view: on the table, the last trick, the last
    trick of the last deal."""
    seen = set(view["trick"]["cards"])
    for trick in (view["last_trick"], (view["last_deal"] or {}).get("last_trick")):
        if trick:
            seen |= set(trick["cards"])
    return seen


def check_hidden(raws: list[str], seat: int | None, rules: Rules, seed: int) -> int:
    """No state shows a card outside the seat's own hand and the table's public cards,
    its hand is its own, no declaration shows before all are revealed but its own, and
    the seed (which makes every hand) is never told: how many states were checked."""
    names = set(rules.deck.names)
    dealt = deal_hands(rules, seed)
    for raw in raws:
        state = json.loads(raw)
        view = state["view"]
        assert state["you"] == seat
        assert "seed" not in raw
        if "hands" in view:  # shown to spectators once the game is over
            assert seat is None and view["phase"] == "over"
        hand = set(view["hand"])
        if seat is None:
            assert not hand
        else:
            mine = {rules.deck.name(c) for c in cards_of(dealt[view["deal"] - 1][seat])}
            assert hand <= mine, (hand, mine)
        shown = {text for text in QUOTED.findall(raw) if text in names} - {
            card for hand in view.get("hands", ()) for card in hand}
        assert shown <= hand | public_cards(view), (shown, hand, view)
        if view["phase"] == "declare":
            for other, said in enumerate(view["declared"]):
                assert said is None or other == seat, view["declared"]
        if "legal" in view:
            assert seat is not None and view["to_play"] == seat
    return len(raws)


def test_a_person_plays_a_whole_game_against_bots_and_sees_only_their_cards(
        server: Server) -> None:
    alice = server.person("alice")
    bob = server.person("bob")
    table = alice.open_table("planowanie", seat0="me", seat1="bot:heuristic",
                             seat2="bot:random", seat3="bot:heuristic", **SHORT)
    mine: list[str] = []
    watched: list[str] = []
    last, seen = together(alice, bob, table, lambda ws: collect(ws, mine, 0, True),
                          lambda ws: collect(ws, watched, None, False))
    assert last["table"]["status"] == seen["table"]["status"] == "finished"
    record = record_of(server, table)
    assert [p.name for p in record.players] == ["alice", "heuristic", "random", "heuristic"]
    assert record.finished and record.outcome is not None and record.outcome.value == "normal"
    assert len(record.moves) == 4 * (3 + 4 + 2)  # every declaration and card
    assert record.scores == last["view"]["points"] == record.settings["points"]
    assert record.settings["deals"] == [[2, 0], [3, 1], [1, 2]]
    assert last["view"]["phase"] == "over" and last["view"]["last_deal"]["deal"] == 3
    rules = record_rules(record.settings)
    assert isinstance(record.seed, int)
    assert check_hidden(mine, 0, rules, record.seed) > 9
    assert check_hidden(watched, None, rules, record.seed) >= 2  # (spectators: the newest
    # state every SPECTATOR_EVERY seconds, not every state of a quick game)
    alice_moves = [m.move for m in record.moves if m.seat == 0]
    assert alice_moves[0].startswith("declare ") and len(alice_moves) == 9
    replay_ok("planowanie", record_file(server, "planowanie", table))
    replay_ok("planowanie", server.data / "stores" / "planowanie")
    assert table in alice.client.get("/lobby").text.split('id="finished"')[1]


def test_refused_clicks_say_why_and_cost_nothing(server: Server) -> None:
    carol = server.person("carol")
    grace = server.person("grace")
    table = carol.open_table("planowanie", players="3", seat0="me", seat1="open",
                             seat2="bot:random", deals="2 2 0 2 1", **CLOCKS)
    sit_invited(carol, grace, table, 1)  # a person next: carol's turn is surely over

    async def game() -> list[str]:
        reasons = []
        async with carol.socket(table) as ws, grace.socket(table) as other:
            state = await next_state(ws)
            while state["table"]["asking"] != 0:
                state = await next_state(ws)
            view = state["view"]
            assert view["legal"] == {"declare": [0, 1, 2]} and len(view["hand"]) == 2
            for bad in ({"declare": 3}, {"declare": -1}, {"card": view["hand"][0]},
                        {"card": "ZZ"}, {"declare": "1"}, {"declare": True}, {"nothing": 1}):
                await ws.send(json.dumps({"type": "move", "move": bad}))
                reasons.append((await next_message(ws, "refused"))["reason"])
            await ws.send(json.dumps({"type": "move", "move": {"declare": 2}}))
            await ws.send(json.dumps({"type": "move", "move": {"declare": 0}}))
            reasons.append((await next_message(ws, "refused"))["reason"])
            theirs = await next_state(other)
            while theirs["table"]["asking"] != 1:
                theirs = await next_state(other)
            await other.send(json.dumps({"type": "move", "move": choice(theirs["view"])}))
            while True:  # seat 0 leads the first trick once the bot has declared too
                state = await next_state(ws)
                if state["table"]["asking"] == 0:
                    break
            view = state["view"]
            assert view["phase"] == "play" and view["declared"][0] == 2
            assert all(n is not None for n in view["declared"])
            others = [n for n in view["values"][:3]]
            stranger = next(v + view["suits"][0] for v in others
                            if v + view["suits"][0] not in view["hand"])
            await ws.send(json.dumps({"type": "move", "move": {"card": stranger}}))
            reasons.append((await next_message(ws, "refused"))["reason"])
            await ws.send(json.dumps({"type": "move", "move": {"declare": 1}}))
            reasons.append((await next_message(ws, "refused"))["reason"])
            played = view["legal"]["cards"][0]
            await ws.send(json.dumps({"type": "move", "move": {"card": played}}))
            after = await next_state(ws)
            assert played not in after["view"]["hand"]
            assert played in public_cards(after["view"])
            await asyncio.gather(collect(ws, [], 0, True), collect(other, [], 1, True))
        return reasons

    reasons = asyncio.run(game())
    assert reasons[0] == "declared 3, not in 0..2"
    assert reasons[1] == "declared -1, not in 0..2"
    assert reasons[2] == "a card was played during the declarations"
    assert reasons[3] == "ZZ is not a card of the deck"
    assert reasons[4] == "1 is not a number of tricks"
    assert reasons[5] == "True is not a number of tricks"
    assert reasons[6] == "expected a declaration or a card"
    assert reasons[7] == "it is not your turn"
    assert reasons[8].endswith("is not in the player's hand")
    assert reasons[9] == "a declaration during the play"
    record = record_of(server, table)
    assert record.outcome is not None and record.outcome.value == "normal"
    moves = list(record.moves)
    assert not any(m.info.get("illegal") for m in moves)  # the refusals cost nothing
    mine = [m.move for m in moves if m.seat == 0]
    assert mine[0] == "declare 2" and not mine[1].startswith("declare")


def test_my_program_plays_for_me_from_the_position_reached(server: Server) -> None:
    dave = server.person("dave")
    table = dave.open_table("planowanie", players="2", seat0="me", seat1="bot:heuristic",
                            deals="3 3 0 2 1 3 0", **CLOCKS)

    async def game() -> dict[str, Any]:
        async with dave.socket(table) as ws:
            while True:  # play the first deal and the next's declaration by hand
                state = await next_state(ws)
                view = state["view"]
                if state["table"]["asking"] == 0 and "legal" in view:
                    if view["deal"] == 2 and view["phase"] == "play":
                        break
                    await ws.send(json.dumps({"type": "move", "move": choice(view)}))
            await ws.send(json.dumps({"type": "deputy", "program": "random"}))
            while True:
                state = await next_state(ws)
                if state["table"]["status"] != "playing":
                    return state
                assert state["table"]["seats"][0]["deputy"]

    last = asyncio.run(game())
    assert last["table"]["status"] == "finished"
    record = record_of(server, table)
    assert record.outcome is not None and record.outcome.value == "normal", record.reason
    assert len(record.moves) == 2 * (4 + 3 + 4)
    notes = [n.text for n in record.notes if n.kind == "table"]
    assert notes == ["dave lets random play: random plays seat 1"]
    replay_ok("planowanie", record_file(server, "planowanie", table))


def test_a_program_joins_with_referee_connect_planowanie(server: Server) -> None:
    erin = server.person("erin")
    table = erin.open_table("planowanie", players="2", seat0="me", seat1="remote",
                            deals="2 2 0 1 1", **CLOCKS)
    joined = connect("planowanie", join_url(erin, "planowanie", table, 2), 2, RANDOM_PLAYER,
                     "--name", "far-random")

    async def game() -> dict[str, Any]:
        async with erin.socket(table) as ws:
            return await collect(ws, [], 0, True)

    last, err = beside(joined, lambda: asyncio.run(game()))
    assert last["table"]["status"] == "finished", last
    assert joined.returncode == 0 and "the seat's game is over" in err, err
    record = record_of(server, table)
    assert [p.name for p in record.players] == ["erin", "far-random"]
    assert record.outcome is not None and record.outcome.value == "normal", record.reason
    assert len(record.moves) == 2 * (3 + 2)


def test_bad_settings_are_refused_naming_the_field(server: Server) -> None:
    frank = server.person("frank")
    settings_refused(frank, "planowanie", (
            ({"players": "5"}, "Players: 5 is outside 2..4"),
            ({"suits": "CC"}, "Card values/Suits: deck suits 'CC' repeat a character"),
            ({"deals": "1 20 0"}, "Deals: deal 1: 20 cards for 4 players need 80, the deck "
                                  "has 52"),
            ({"deals": "2 1"}, "Deals: set_game needs d, then d pairs of cards and "
                               "starting player"),
            ({"deals": "1 1 x"}, "Deals: set_game arguments must be integers"),
            ({"deals": "1 1 4"}, "Deals: deal 1: starting player 4 is not one of 0..3"),
            ({"values": "A" * 30}, "Card values: at most 26 characters"),
    ), {"seat0": "me", "seat1": "bot:random", "seat2": "bot:random", "seat3": "bot:random"})
    form_offers(frank, "planowanie", ("players", "values", "suits", "deals", "seat3"))


def test_the_driver_shows_a_seat_its_choices_and_hides_the_rest() -> None:
    settings = DRIVER.settings({"players": "3", "values": "2345", "suits": "CD",
                                "deals": "2 2 0 2 1"})
    assert settings == {"players": 3, "values": "2345", "suits": "CD", "deals": "2 2 0 2 1"}
    assert DRIVER.seat_names(settings) == ["Seat 1", "Seat 2", "Seat 3"]
    rules = Rules(players=3, deals=((2, 0), (2, 1)))
    for seed in range(200):  # a deal where seat 1 must follow the suit seat 0 leads
        engine = PlanowanieGame(rules, seed)
        hands = [cards_of(hand) for hand in engine.hands]
        suits = [{rules.deck.suit(c) for c in hand} for hand in hands]
        lead = hands[0][0]
        if rules.deck.suit(lead) in suits[1] and len(suits[1]) == 2:
            break
    else:
        raise AssertionError("no such deal")
    engine.apply(0, Declare(1))
    first = DRIVER.view(engine, 1, False)
    assert first["declared"] == [None, None, None] and first["has_declared"] == [True, False,
                                                                                 False]
    assert first["legal"] == {"declare": [0, 1, 2]}
    assert DRIVER.view(engine, 0, False)["declared"] == [1, None, None]
    assert "legal" not in DRIVER.view(engine, 0, False)
    engine.apply(1, Declare(0))
    engine.apply(2, Declare(2))
    engine.apply(0, lead)
    view = DRIVER.view(engine, 1, False)
    names = rules.deck.names
    assert view["hand"] == [names[c] for c in hands[1]]
    assert view["legal"]["cards"] == [names[c] for c in hands[1]
                                      if rules.deck.suit(c) == rules.deck.suit(lead)]
    off = next(c for c in hands[1] if rules.deck.suit(c) != rules.deck.suit(lead))
    action = DRIVER.action(engine, 1, {"card": names[off]})
    assert engine.illegal_reason(1, action) == \
        f"{names[off]} does not follow suit ({names[lead][1]} was led)"
    spectator = DRIVER.view(engine, None, False)
    assert spectator["hand"] == [] and "legal" not in spectator and "hands" not in spectator
    assert spectator["trick"] == {"leader": 0, "cards": [names[lead]]}
    shown = DRIVER.view(engine, None, True)["hands"]
    assert shown == [[names[c] for c in cards_of(hand)] for hand in engine.hands]
