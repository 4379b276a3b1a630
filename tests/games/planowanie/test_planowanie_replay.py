"""The Planowanie replay view: one step per move, the whole table after each step (hands,
hidden then revealed declarations, tricks, points, the trick on the table), illegal moves
struck out, text escaped, records that do not replay refused."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET

import pytest

from referee.core.outcome import Outcome
from referee.core.record import GameRecord, PlayerInfo
from referee.core.replay import ReplayView
from referee.games.planowanie.bots.player import play_local
from referee.games.planowanie.bots.random_player import RandomStrategy
from referee.games.planowanie.match import PlanowanieSettings
from referee.games.planowanie.replay import planowanie_replay
from referee.games.planowanie.rules import (
    Deck,
    Declare,
    PlanowanieGame,
    Rules,
    tournament_deals,
)

SVG = "{http://www.w3.org/2000/svg}"
BUDGET = 2500
"""Bytes per step (fragment and mark)."""


def play(rules: Rules, seed: int, names: list[str], moves: int | None = None,
         rng_seed: int = 1) -> tuple[GameRecord, PlanowanieGame]:
    """A record of a random game (stopped after ``moves`` moves if given) and its engine."""
    game = PlanowanieGame(rules, seed)
    record = GameRecord("planowanie", [PlayerInfo(n) for n in names],
                        settings=PlanowanieSettings(rules).describe(), seed=seed)
    rng = random.Random(rng_seed)
    while (seat := game.to_play()) is not None and (moves is None or len(record.moves) < moves):
        action = rng.choice(game.legal_actions())
        game.apply(seat, action)
        record.add_move(seat, game.notation(action), 0.01)
    if game.to_play() is None:
        record.finish(game.scores(), Outcome.NORMAL, game.end_reason())
    record.settings["points"] = list(game.table.points)
    return record, game


def parse(view: ReplayView, k: int | None = None) -> ET.Element:
    return ET.fromstring(view.svg(k))


def texts(element: ET.Element, css: str) -> list[str]:
    """The text (tspans included) of each element of class ``css``, in document order."""
    return ["".join(e.itertext()) for e in element.iter()
            if css in e.get("class", "").split()]


def last_panel(view: ReplayView, k: int) -> ET.Element:
    """The state drawn after ``k`` steps: the last fragment (or the background at 0)."""
    fragment = view.steps[k - 1].svg if k else view.background
    return ET.fromstring(f'<g xmlns="http://www.w3.org/2000/svg">{fragment}</g>')


def rows(panel: ET.Element) -> list[list[str]]:
    """[bid, tricks, points] per seat."""
    found = []
    for text in panel.iter(f"{SVG}text"):
        if text.get("class") == "pw-r":
            found.append(["".join(t.itertext()) for t in text if t.tag == f"{SVG}tspan"])
    return found


def test_a_whole_tournament_game() -> None:
    names = ["alice", "bob", "carol", "dave"]
    record, game = play(Rules(), 42, names)
    view = planowanie_replay(record)
    assert len(view.steps) == len(record.moves) == Rules().total_actions
    assert [s.seat for s in view.steps] == [m.seat for m in record.moves]
    assert [s.text for s in view.steps] == [m.move for m in record.moves]
    assert view.roles == ("seat 0", "seat 1", "seat 2", "seat 3")
    assert all(s.note == "" for s in view.steps)
    final = rows(last_panel(view, len(view.steps)))
    points = [int(r[2].split()[0]) for r in final]
    assert points == game.table.points == record.settings["points"]
    root = parse(view)
    assert root.tag == f"{SVG}svg"
    assert all(name in "".join(root.itertext()) for name in names)
    assert "game over" in "".join(last_panel(view, len(view.steps)).itertext())
    sizes = [len(s.svg) + len(s.mark) for s in view.steps]
    assert max(sizes) <= BUDGET, max(sizes)


def test_same_deals_as_play_local() -> None:
    """The deals come from the seed: a game played by the bots replays to its points."""
    rules = Rules(players=3, deals=tournament_deals(3, 5))
    final = play_local(rules, 9, [RandomStrategy(s) for s in range(3)])
    record, game = play(rules, 9, ["a", "b", "c"])
    assert game.deals == final.deals
    view = planowanie_replay(record)
    assert [int(r[2].split()[0]) for r in rows(last_panel(view, len(view.steps)))] \
        == game.table.points


def test_declarations_hidden_until_all_declared() -> None:
    record, _ = play(Rules(), 5, ["a", "b", "c", "d"], moves=12)
    view = planowanie_replay(record)
    # deal 1: seat 0 starts, one card each; deal 2: seat 1 starts, two cards each
    assert [m.move.startswith("declare") for m in record.moves[:4]] == [True] * 4
    assert rows(last_panel(view, 0)) == [["\u00b7", "0", "0"]] * 4
    for k in (1, 2, 3):
        bids = [r[0] for r in rows(last_panel(view, k))]
        assert bids == ["?"] * k + ["\u00b7"] * (4 - k)
        assert not any(b.isdigit() for b in bids)
    revealed = [r[0] for r in rows(last_panel(view, 4))]
    assert revealed == [m.move.split()[1] for m in record.moves[:4]]
    # the deal ends with the 8th move: the panel still shows it, bids and points gained
    end = last_panel(view, 8)
    assert "deal over" in "".join(end.itertext())
    assert all(r[0].isdigit() and "+" in r[2] for r in rows(end))
    # the next deal's first declaration: new hands, the bids hidden again
    nine = last_panel(view, 9)
    assert "Deal 2 / 13" in "".join(nine.itertext())
    assert [r[0] for r in rows(nine)][1] == "?"
    assert sum(1 for r in rows(nine) if r[0] == "?") == 1


def test_hands_shrink_and_trick_shows_cards() -> None:
    rules = Rules(Deck("9TJQKA", "SHDC"), 2, ((6, 0), (3, 1)))
    record, game = play(rules, 3, ["x", "y"])
    view = planowanie_replay(record)
    assert len(view.steps) == rules.total_actions
    start = last_panel(view, 2)
    hands = texts(start, "pw-h")
    assert [len(h.split()) for h in hands] == [6, 6]
    # each card step rings the card on the table and drops it from the hand
    third = last_panel(view, 3)
    played = record.moves[2].move
    assert played not in " ".join(texts(third, "pw-h"))
    assert played in texts(third, "pw-k")[0]
    assert "pw-m" in view.steps[2].mark
    # trumps (the first suit, S) are marked, and only they
    spans = [e for e in start.iter(f"{SVG}tspan") if e.get("class", "").startswith("pw-")]
    trumps = " ".join("".join(e.itertext()) for e in spans if e.get("class") == "pw-tr")
    others = " ".join("".join(e.itertext()) for e in spans if e.get("class") != "pw-tr")
    dealt = [game.rules.deck.name(c) for hand in game.deals[0] for c in range(24)
             if hand >> c & 1]
    assert sorted(trumps.split()[1:]) == sorted(c for c in dealt if c.endswith("S"))
    assert not [c for c in others.split() if c.endswith("S")]
    assert "trumps" in "".join(start.itertext())
    # a complete trick shows its winner
    fourth = "".join(last_panel(view, 4).itertext())
    assert "taken by seat" in fourth
    assert view.height > 0 and view.width > 0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_other_decks_and_player_counts(players: int) -> None:
    rules = Rules(Deck("6789TJQKA", "HSDCX"), players, tournament_deals(players, 6))
    names = [f"p{k}" for k in range(players)]
    record, game = play(rules, 11, names, rng_seed=players)
    view = planowanie_replay(record)
    assert len(view.steps) == rules.total_actions
    assert view.roles == tuple(f"seat {k}" for k in range(players))
    assert len(rows(last_panel(view, len(view.steps)))) == players
    assert [int(r[2].split()[0]) for r in rows(last_panel(view, len(view.steps)))] \
        == game.table.points
    for k in range(0, len(view.steps) + 1, 7):
        parse(view, k)


def test_text_is_escaped() -> None:
    nasty = ['<b>al&ce</b> "q"', "bob's <script>", "c", "d"]
    rules = Rules(Deck("23456789TJQKA", "<&\"'"), 4, tournament_deals(4, 3))
    record, _ = play(rules, 1, nasty)
    record.reason = 'it said "<no>" & left'
    record.offender = 1
    view = planowanie_replay(record)
    for k in (0, 1, 5, len(view.steps)):
        root = parse(view, k)  # well-formed XML
        assert not [e for e in root.iter() if e.tag in (f"{SVG}b", f"{SVG}script")]
    text = "".join(parse(view).itertext())
    assert nasty[0][:18] in text and "bob's <script>" in text
    assert 'it said "<no>" & left' in "".join(ET.fromstring(
        f'<g xmlns="http://www.w3.org/2000/svg">{view.steps[-1].mark}</g>').itertext())


def test_illegal_last_move_is_struck_out() -> None:
    record, game = play(Rules(), 8, ["a", "b", "c", "d"], moves=6)
    seat = game.to_play()
    assert seat is not None
    hand = game.hands[(seat + 1) % 4]
    foreign = next(c for c in range(52) if hand >> c & 1)
    reason = game.illegal_reason(seat, foreign)
    assert reason is not None
    record.add_move(seat, game.notation(foreign), 0.01, illegal=True)
    record.finish(game.forfeit_scores(seat), Outcome.ILLEGAL_MOVE, reason, seat)
    view = planowanie_replay(record)
    assert len(view.steps) == 7
    last = view.steps[-1]
    assert last.note == "illegal" and last.text == game.notation(foreign)
    mark = ET.fromstring(f'<g xmlns="http://www.w3.org/2000/svg">{last.mark}</g>')
    assert texts(mark, "pw-xt") == [game.notation(foreign)]
    assert reason in "".join(mark.itertext())
    # the illegal card was not played: the hands are the same as before it
    assert texts(last_panel(view, 7), "pw-h") == texts(last_panel(view, 6), "pw-h")
    parse(view)


def test_illegal_declaration_is_struck_out() -> None:
    record, game = play(Rules(), 8, ["a", "b", "c", "d"], moves=1)
    seat = game.to_play()
    assert seat == 1
    record.add_move(1, game.notation(Declare(7)), 0.01, illegal=True)
    view = planowanie_replay(record)
    last = view.steps[-1]
    assert last.note == "illegal"
    assert "pw-xt" in last.mark and ">7<" in last.mark
    assert "illegal move" in last.mark
    parse(view)


def test_ending_reason_on_last_mark() -> None:
    record, _ = play(Rules(), 8, ["a", "b", "c", "d"], moves=10)
    record.finish([1.0, 1.0, 0.0, 1.0], Outcome.TIMEOUT, "game clock ran out", 2)
    view = planowanie_replay(record)
    assert "game clock ran out" in view.steps[-1].mark
    assert all("game clock" not in s.mark for s in view.steps[:-1])


def test_not_planowanie_or_broken_records_are_refused() -> None:
    record, game = play(Rules(), 4, ["a", "b", "c", "d"], moves=10)
    seat = game.to_play()
    assert seat is not None
    other = GameRecord("gomoku", record.players, settings=record.settings, seed=4)
    with pytest.raises(ValueError, match="not a planowanie record"):
        planowanie_replay(other)
    garbage = GameRecord("planowanie", record.players, settings=record.settings, seed=4,
                         moves=list(record.moves))
    garbage.add_move(seat, "bid 3", 0.01)
    with pytest.raises(ValueError, match=re.escape("move 11 ('bid 3') is neither")):
        planowanie_replay(garbage)
    for settings in ({}, {**record.settings, "values": ""}, {**record.settings, "deals": []},
                     {**record.settings, "deals": [[1, 7]]}, {**record.settings, "players": 9},
                     {**record.settings, "deals": "13"}):
        bad = GameRecord("planowanie", record.players, settings=settings, seed=4)
        with pytest.raises(ValueError, match="planowanie record"):
            planowanie_replay(bad)
    unseeded = GameRecord("planowanie", record.players, settings=record.settings)
    with pytest.raises(ValueError, match="seed"):
        planowanie_replay(unseeded)
    few = GameRecord("planowanie", record.players[:3], settings=record.settings, seed=4)
    with pytest.raises(ValueError, match="3 players"):
        planowanie_replay(few)


def test_moves_that_do_not_replay_are_refused() -> None:
    record, game = play(Rules(), 4, ["a", "b", "c", "d"], moves=4)  # deal 1 declared
    seat = game.to_play()
    assert seat is not None
    foreign = next(c for c in range(52) if game.hands[(seat + 1) % 4] >> c & 1)
    wrong = GameRecord("planowanie", record.players, settings=record.settings, seed=4,
                       moves=list(record.moves))
    wrong.add_move(seat, game.notation(foreign), 0.01)
    with pytest.raises(ValueError, match="does not replay: .* not in the player's hand"):
        planowanie_replay(wrong)
    turn = GameRecord("planowanie", record.players, settings=record.settings, seed=4,
                      moves=list(record.moves[:1]))
    turn.add_move(3, "declare 0", 0.01)
    with pytest.raises(ValueError, match="seat 1 was to play"):
        planowanie_replay(turn)
    full, _ = play(Rules(players=2, deals=((1, 0),)), 4, ["a", "b"])
    full.add_move(0, "declare 0", 0.01)
    with pytest.raises(ValueError, match="after the end of the game"):
        planowanie_replay(full)


def test_no_moves_shows_the_first_deal() -> None:
    record, _ = play(Rules(), 4, ["a", "b", "c", "d"], moves=0)
    view = planowanie_replay(record)
    assert view.steps == ()
    hands = texts(last_panel(view, 0), "pw-h")
    assert [len(h.split()) for h in hands] == [1, 1, 1, 1]
    assert view.frame(0) == view.background
