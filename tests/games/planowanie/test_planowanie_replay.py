"""The Planowanie replay view: one step per move, the whole table after each step (hands,
hidden then revealed declarations, tricks, points, the trick on the table), illegal moves
struck out, text escaped, records that do not replay refused, small incremental fragments.

The fragments draw changes over opaque covers, so what a frame shows is worked out from
the picture: ``shown`` keeps the texts that no later opaque shape hides (by where they are
drawn) and reads the table from them."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import pytest

from referee.core.outcome import Outcome
from referee.core.record import GameRecord, PlayerInfo
from referee.core.replay import ReplayView
from referee.games.planowanie.bots.player import play_local
from referee.games.planowanie.bots.random_player import RandomStrategy
from referee.games.planowanie.match import PlanowanieSettings
from referee.games.planowanie.replay import (
    COLUMN_X,
    FOOT_H,
    ROW_H,
    ROW_TOP,
    TRICK_H,
    planowanie_replay,
)
from referee.games.planowanie.rules import (
    Action,
    Deck,
    Declare,
    PlanowanieGame,
    Rules,
    tournament_deals,
)

SVG = "{http://www.w3.org/2000/svg}"
BUDGET = 2500
"""Bytes per step (fragment and mark)."""
MEAN_FRAGMENT = 450
"""Mean size of a step's fragment over a whole tournament game."""
GAME_BUDGET = 350_000
"""Size of all the fragments and marks of a whole tournament game."""
OPAQUE = {"pw-bg", "pw-p", "pw-c", "pw-w", "pw-x"}
"""The classes of the shapes that hide what is under them."""
BOX = re.compile(r"M(-?[\d.]+) (-?[\d.]+)h([\d.]+)v([\d.]+)h-[\d.]+z")


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


@dataclass
class Piece:
    """A text as drawn: where it is in the document, the points it covers, its classes."""

    order: int
    points: list[tuple[float, float]]
    text: str
    css: set[str]


@dataclass
class Shown:
    """What a frame shows, read from its visible texts."""

    header: str
    hands: list[list[tuple[str, str]]]
    """Per seat, the cards in the hand left to right: (name, suit class)."""
    cells: list[list[str]]
    """Per seat: [bid, tricks, points]."""
    table: list[str] = field(default_factory=list)
    """The cards on the table, left to right (an illegal one struck out is not)."""
    taken: str = ""


def pieces(root: ET.Element) -> tuple[list[Piece], list[tuple[int, float, float, float, float]]]:
    """The texts (a hand's cards one by one) and the opaque rectangles (document order,
    left, top, right, bottom) of a picture."""
    texts: list[Piece] = []
    covers: list[tuple[int, float, float, float, float]] = []
    for order, e in enumerate(root.iter()):
        tag, css = e.tag.removeprefix(SVG), set(e.get("class", "").split())
        if tag == "rect" and css & OPAQUE:
            x, y = float(e.get("x", 0)), float(e.get("y", 0))
            covers.append((order, x, y, x + float(e.get("width", 0)),
                           y + float(e.get("height", 0))))
        elif tag == "path" and css & OPAQUE:
            d = e.get("d", "")
            boxes = [tuple(float(v) for v in m.groups()) for m in BOX.finditer(d)]
            assert "".join(m.group(0) for m in BOX.finditer(d)) == d, d
            covers.extend((order, x, y, x + w, y + h) for x, y, w, h in boxes)
        elif tag == "text":
            y = float(e.get("y", 0))
            placed = [t for t in e if t.tag == f"{SVG}tspan" and t.get("x") is not None]
            if "pw-h" in css:  # a tspan per suit, every character placed
                for suit in e:
                    xs = [float(v) for v in suit.get("x", "").split()]
                    chars = "".join(suit.itertext())
                    assert len(xs) == len(chars) and len(chars) % 2 == 0, (xs, chars)
                    texts.extend(Piece(order, [(xs[i], y), (xs[i + 1], y)], chars[i:i + 2],
                                       css | set(suit.get("class", "").split()))
                                 for i in range(0, len(chars), 2))
            elif placed:
                assert not (e.text or "").strip()
                texts.extend(Piece(order, [(float(t.get("x", 0)), y)], "".join(t.itertext()),
                                   css | set(t.get("class", "").split())) for t in placed)
            else:
                texts.append(Piece(order, [(float(e.get("x", 0)), y)], "".join(e.itertext()),
                                   css))
    return texts, covers


def shown(view: ReplayView, k: int) -> Shown:
    """The table after ``k`` steps as the picture shows it: the texts no later opaque shape
    covers (a card partly covered, two values in one cell, a card twice in a hand fail)."""
    texts, covers = pieces(parse(view, k))
    players = (view.height - ROW_TOP - TRICK_H - FOOT_H) // ROW_H
    bands: dict[int, list[tuple[int, float, float, float, float]]] = {}
    for cover in covers:  # by horizontal band, to look at the few that may matter
        for band in range(int(cover[2] // 8), int(cover[4] // 8) + 1):
            bands.setdefault(band, []).append(cover)

    def hidden(piece: Piece) -> bool:
        under = [any(c[0] > piece.order and c[1] <= x <= c[3] and c[2] <= y <= c[4]
                     for c in bands.get(int(y // 8), ())) for x, y in piece.points]
        assert len(set(under)) == 1, f"{piece.text!r} partly covered"
        return under[0]

    def seat(piece: Piece) -> int:
        row = (piece.points[0][1] - ROW_TOP) // ROW_H
        assert 0 <= row < players, piece
        return int(row)

    visible = [p for p in texts if not hidden(p)]
    header = [p.text for p in visible if "pw-hd" in p.css]
    assert len(header) == 1, header
    hands: list[list[tuple[float, str, str]]] = [[] for _ in range(players)]
    cells: list[list[list[str]]] = [[[], [], []] for _ in range(players)]
    for p in visible:
        if "pw-h" in p.css:
            suit = next(c for c in p.css if c.startswith("pw-") and c != "pw-h")
            hands[seat(p)].append((p.points[0][0], p.text, suit))
        elif "pw-r" in p.css:
            cells[seat(p)][COLUMN_X.index(int(p.points[0][0]))].append(p.text)
    for row in hands:
        places = [x for x, _, _ in row]
        assert places == sorted(set(places)), row
    assert all(len(cell) == 1 for row in cells for cell in row), cells
    table = sorted((p.points[0][0], p.text) for p in visible
                   if "pw-k" in p.css and "pw-xt" not in p.css)
    assert len({x for x, _ in table}) == len(table), table
    return Shown(header[0], [[(name, suit) for _, name, suit in row] for row in hands],
                 [[cell[0] for cell in row] for row in cells], [name for _, name in table],
                 " ".join(p.text for p in visible if "pw-wn" in p.css))


def names(hand: list[tuple[str, str]]) -> list[str]:
    """The names of the cards of a hand as shown."""
    return [name for name, _ in hand]


def points(view: ReplayView, k: int) -> list[int]:
    """The points shown after ``k`` steps (without what the last deal gained)."""
    return [int(row[2].split()[0]) for row in shown(view, k).cells]


def test_a_whole_tournament_game() -> None:
    names = ["alice", "bob", "carol", "dave"]
    record, game = play(Rules(), 42, names)
    view = planowanie_replay(record)
    assert len(view.steps) == len(record.moves) == Rules().total_actions
    assert [s.seat for s in view.steps] == [m.seat for m in record.moves]
    assert [s.text for s in view.steps] == [m.move for m in record.moves]
    assert view.roles == ()  # the seats play alike: nothing to say beside their numbers
    assert all(s.note == "" for s in view.steps)
    assert points(view, len(view.steps)) == game.table.points == record.settings["points"]
    root = parse(view)
    assert root.tag == f"{SVG}svg"
    assert all(name in "".join(root.itertext()) for name in names)
    # seats are numbered from 1 for people: beside the names, under the cards, the taker
    labels = [t.text for t in root.iter(f"{SVG}text") if t.get("class") in ("pw-se", "pw-q")]
    assert labels[:5] == ["on the table", "seat 1", "seat 2", "seat 3", "seat 4"]
    assert "seat 0" not in "".join(root.itertext())
    for k in range(1, 40):
        assert "seat 0" not in "".join(parse(view, k).itertext()), k
    assert "game over" in shown(view, len(view.steps)).header
    sizes = [len(s.svg) + len(s.mark) for s in view.steps]
    assert max(sizes) <= BUDGET, max(sizes)


def test_same_deals_as_play_local() -> None:
    """The deals come from the seed: a game played by the bots replays to its points."""
    rules = Rules(players=3, deals=tournament_deals(3, 5))
    final = play_local(rules, 9, [RandomStrategy(s) for s in range(3)])
    record, game = play(rules, 9, ["a", "b", "c"])
    assert game.deals == final.deals
    view = planowanie_replay(record)
    assert points(view, len(view.steps)) == game.table.points


def test_declarations_hidden_until_all_declared() -> None:
    record, _ = play(Rules(), 5, ["a", "b", "c", "d"], moves=12)
    view = planowanie_replay(record)
    # deal 1: seat 0 starts, one card each; deal 2: seat 1 starts, two cards each
    assert [m.move.startswith("declare") for m in record.moves[:4]] == [True] * 4
    assert shown(view, 0).cells == [["\u00b7", "0", "0"]] * 4
    for k in (1, 2, 3):
        bids = [r[0] for r in shown(view, k).cells]
        assert bids == ["?"] * k + ["\u00b7"] * (4 - k)
        assert not any(b.isdigit() for b in bids)
    revealed = [r[0] for r in shown(view, 4).cells]
    assert revealed == [m.move.split()[1] for m in record.moves[:4]]
    # the deal ends with the 8th move: the picture still shows it, bids and points gained
    end = shown(view, 8)
    assert "deal over" in end.header
    assert all(r[0].isdigit() and "+" in r[2] for r in end.cells)
    # the next deal's first declaration: new hands, the bids hidden again
    nine = shown(view, 9)
    assert "Deal 2 / 13" in nine.header
    assert [r[0] for r in nine.cells][1] == "?"
    assert sum(1 for r in nine.cells if r[0] == "?") == 1
    assert [len(hand) for hand in nine.hands] == [2] * 4
    assert nine.table == [] and nine.taken == ""


def test_hands_shrink_and_trick_shows_cards() -> None:
    rules = Rules(Deck("9TJQKA", "SHDC"), 2, ((6, 0), (3, 1)))
    record, game = play(rules, 3, ["x", "y"])
    view = planowanie_replay(record)
    assert len(view.steps) == rules.total_actions
    start = shown(view, 2)
    assert [len(h) for h in start.hands] == [6, 6]
    # each card step rings the card on the table and drops it from the hand
    third = shown(view, 3)
    played = record.moves[2].move
    assert played in names(start.hands[record.moves[2].seat])
    assert played not in [c for hand in third.hands for c in names(hand)]
    assert third.table == [played]
    assert "pw-m" in view.steps[2].mark
    # trumps (the first suit, S) are marked, and only they
    trumps = [name for hand in start.hands for name, suit in hand if suit == "pw-tr"]
    others = [name for hand in start.hands for name, suit in hand if suit != "pw-tr"]
    dealt = [game.rules.deck.name(c) for hand in game.deals[0] for c in range(24)
             if hand >> c & 1]
    assert sorted(trumps) == sorted(c for c in dealt if c.endswith("S"))
    assert not [c for c in others if c.endswith("S")]
    assert "trumps S" in start.header
    # a complete trick shows its winner
    assert "taken by seat" in shown(view, 4).taken
    assert len(shown(view, 4).table) == 2
    assert view.height > 0 and view.width > 0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_other_decks_and_player_counts(players: int) -> None:
    rules = Rules(Deck("6789TJQKA", "HSDCX"), players, tournament_deals(players, 6))
    names = [f"p{k}" for k in range(players)]
    record, game = play(rules, 11, names, rng_seed=players)
    view = planowanie_replay(record)
    assert len(view.steps) == rules.total_actions
    assert view.roles == ()
    assert len(shown(view, len(view.steps)).cells) == players
    assert points(view, len(view.steps)) == game.table.points
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
    assert shown(view, 7).hands == shown(view, 6).hands
    assert shown(view, 7).table == shown(view, 6).table
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
    assert [len(h) for h in shown(view, 0).hands] == [1, 1, 1, 1]
    assert view.frame(0) == view.background


def test_fragments_are_small() -> None:
    """A whole tournament game: small fragments on average, a small page in all."""
    record, _ = play(Rules(), 42, ["alice", "bob", "carol", "dave"])
    view = planowanie_replay(record)
    assert len(view.steps) == 416
    fragments = [len(s.svg) for s in view.steps]
    marks = [len(s.mark) for s in view.steps]
    assert sum(fragments) / len(fragments) <= MEAN_FRAGMENT, sum(fragments) / len(fragments)
    assert sum(fragments) + sum(marks) < GAME_BUDGET, sum(fragments) + sum(marks)
    assert max(marks) < 1000
    assert max(f + m for f, m in zip(fragments, marks, strict=True)) <= BUDGET


def expected_tables(record: GameRecord, rules: Rules) -> list[Shown]:
    """What the picture should show after each number of moves, from the engine: the deal
    being played (or the one just finished, until the next one's first declaration)."""
    game = PlanowanieGame(rules, record.seed or 0)
    deck, n, total = rules.deck, rules.players, len(rules.deals)
    bids: list[int | None] = [None] * n
    tricks, gains = [0] * n, None
    table: list[str] = []
    deal, winner, over = 0, None, False
    found = []

    def now() -> Shown:
        order = sorted(range(deck.size), key=lambda c: (deck.suit(c), -c))  # trumps first
        hands = [[] if over else [(deck.name(c), "pw-tr" if deck.suit(c) == 0 else "")
                                  for c in order if game.hands[s] >> c & 1]
                 for s in range(n)]
        cards = rules.deals[deal][0]
        if over:
            status = "game over" if game.to_play() is None else "deal over"
        elif None in bids:
            status = "declaring"
        else:
            status = f"trick {min(sum(tricks) + (winner is None), cards)} of {cards}"
        shown_bids = ["\u00b7" if b is None else "?" if None in bids else str(b) for b in bids]
        scores = [f"{p} +{g}" if gains else str(p)
                  for p, g in zip(game.table.points, gains or [0] * n, strict=True)]
        return Shown(f"Deal {deal + 1} / {total} \u00b7 {status}", hands,
                     [list(row) for row in zip(shown_bids, map(str, tricks), scores,
                                               strict=True)],
                     list(table), "" if winner is None else f"taken by seat {winner + 1}")

    found.append(now())
    for move in record.moves:
        if over:
            bids, tricks, table, gains = [None] * n, [0] * n, [], None
            deal, winner, over = game.table.deal, None, False
        words = move.move.split()
        action: Action = Declare(int(words[1])) if words[0] == "declare" \
            else deck.card(move.move) or 0
        assert game.illegal_reason(move.seat, action) is None
        if isinstance(action, Declare):
            bids[move.seat] = action.tricks
            game.apply(move.seat, action)
        else:
            if winner is not None:
                table, winner = [], None
            table.append(move.move)
            before = game.table.points[:]
            winner = game.table.copy().play(move.seat, action)
            game.apply(move.seat, action)
            if winner is not None:
                tricks[winner] += 1
            if game.table.deal != deal or game.to_play() is None:
                over = True
                gains = [a - b for a, b in zip(game.table.points, before, strict=True)]
            else:
                assert tricks == game.table.tricks
        found.append(now())
    return found


@pytest.mark.parametrize(("players", "seed"), [(4, 17), (3, 5), (2, 8)])
def test_every_step_shows_the_engines_table(players: int, seed: int) -> None:
    """After every step of the first deals, then every 10th, the cards not covered are the
    engine's hands, and the cells, the table and the header say what the engine says."""
    rules = Rules(players=players, deals=tournament_deals(players, 13))
    record, _ = play(rules, seed, [f"p{k}" for k in range(players)], rng_seed=seed)
    view = planowanie_replay(record)
    expected = expected_tables(record, rules)
    first = sum(players * (cards + 1) for cards, _ in rules.deals[:3])
    sample = sorted({*range(first + 1), *range(0, len(view.steps) + 1, 10), len(view.steps)})
    for k in sample:
        want, got = expected[k], shown(view, k)
        assert [names(h) for h in got.hands] == [names(h) for h in want.hands], k
        assert [[name for name, suit in hand if suit == "pw-tr"] for hand in got.hands] \
            == [[name for name, suit in hand if suit == "pw-tr"] for hand in want.hands], k
        assert got.cells == want.cells, k
        assert got.table == want.table, k
        assert got.taken == want.taken, k
        deal, status = want.header.split(" \u00b7 ")
        assert got.header.startswith(deal) and got.header.endswith(status), (k, got.header)
