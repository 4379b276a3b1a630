"""The heuristic Planowanie player: strength against random play, legality, determinism, pipes."""

from __future__ import annotations

import io
import itertools
import statistics
import subprocess
import sys
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.planowanie.bots.heuristic_player import (
    HeuristicStrategy,
    main,
    most_likely_count,
    one_card_chance,
    trick_chances,
)
from referee.games.planowanie.bots.player import Strategy, play_local
from referee.games.planowanie.bots.random_player import RandomStrategy
from referee.games.planowanie.rules import Deck, Rules, SeatView, tournament_deals

MODULE = "referee.games.planowanie.bots.heuristic_player"
GAMES = 100
SYMBOLS = "23456789TJQKAabcdefghijklmnopqrstuvwxyz"

# Measured over seeds 0..99 (heuristic in seat seed % 4, three RandomStrategy opponents):
# 72.6 points on average against 32.1..34.5 for each random seat, strictly first in 98 of
# 100 games (seeds 100..599 in blocks of 100: 72.2..73.6 points, first in 96..98). Its
# declarations with random play only reach 56 points, a 23-point lead and 83 firsts, so
# the thresholds fail a player that cannot play to its declaration, and keep a margin of
# several standard deviations below the measured strength.
MIN_MEAN = 62.0
MIN_LEAD = 30.0
MIN_FIRST = 0.88


@dataclass
class Recorder:
    """Wraps a strategy, noting every declaration (with the cards held) and every card."""

    inner: Strategy
    declared: list[tuple[int, int]] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)

    def declare(self, view: SeatView) -> int:
        tricks = self.inner.declare(view)
        self.declared.append((tricks, view.table.cards))
        self.actions.append(-1 - tricks)
        return tricks

    def move(self, view: SeatView) -> int:
        card = self.inner.move(view)
        assert card in view.legal_cards()
        self.actions.append(card)
        return card


def tournament_game(seed: int) -> tuple[int, list[float]]:
    """One tournament game: the heuristic's seat and the scores (it sits in seat seed % 4)."""
    seat = seed % 4
    strategies: list[Strategy] = [RandomStrategy(1000 * seed + k) for k in range(4)]
    strategies[seat] = HeuristicStrategy(seed)
    return seat, play_local(Rules(), seed, strategies).scores()


# -- strength ---------------------------------------------------------------------------
def test_beats_random_players_clearly() -> None:
    mine: list[float] = []
    theirs: list[list[float]] = [[], [], []]   # the random players, by seat after the heuristic
    first = 0
    for seed in range(GAMES):
        seat, scores = tournament_game(seed)
        mine.append(scores[seat])
        others = [scores[(seat + k) % 4] for k in (1, 2, 3)]
        for k, points in enumerate(others):
            theirs[k].append(points)
        first += all(scores[seat] > points for points in others)
    mean = statistics.mean(mine)
    assert mean >= MIN_MEAN, mean
    for seat_points in theirs:
        lead = mean - statistics.mean(seat_points)
        assert lead >= MIN_LEAD, (mean, lead)
    assert first >= MIN_FIRST * GAMES, first


def test_hits_one_card_deals() -> None:
    # Clear cases of the one-card deal: the ace of trumps always takes the trick, a two led
    # to by someone else never does, and the declarations follow.
    rules = Rules()
    view = SeatView(rules, 0)
    ace_of_trumps = rules.deck.card("AC")
    two = rules.deck.card("2D")
    assert ace_of_trumps is not None and two is not None
    view.new_deal([ace_of_trumps])
    assert one_card_chance(view) == 1.0
    assert HeuristicStrategy(0).declare(view) == 1
    other = SeatView(rules, 2)
    other.new_deal([two])
    assert one_card_chance(other) == 0.0
    assert HeuristicStrategy(0).declare(other) == 0


def test_declares_from_hand_strength() -> None:
    rules = Rules(deals=((13, 0),))
    deck = rules.deck

    def declared(names: str) -> int:
        view = SeatView(rules, 1)
        view.new_deal([c for c in map(deck.card, names.split()) if c is not None])
        assert view.hand.bit_count() == 13
        return HeuristicStrategy(0).declare(view)

    strong = declared("AC KC QC JC TC 9C AD KD AH KH AS KS QS")
    weak = declared("2D 3D 4D 5D 6D 2H 3H 4H 5H 2S 3S 4S 5S")
    middling = declared("AC 7C 3C AD 9D 5D KH 8H 4H 2H QS 6S 3S")
    assert weak == 0
    assert strong >= 10
    assert 2 <= middling <= 5
    assert most_likely_count([0.9, 0.9, 0.1]) == 2
    assert most_likely_count([]) == 0


# -- legality on any configuration ------------------------------------------------------
@st.composite
def configurations(draw: st.DrawFn) -> tuple[Rules, int]:
    """A random deck (2..13 values, 1..5 suits), 2..4 players, a valid schedule, a seed."""
    values = "".join(draw(st.lists(st.sampled_from(SYMBOLS), min_size=2, max_size=13,
                                   unique=True)))
    suits = "".join(draw(st.lists(st.sampled_from(SYMBOLS), min_size=1, max_size=5,
                                  unique=True)))
    deck = Deck(values, suits)
    players = draw(st.integers(2, min(4, deck.size)))
    most = deck.size // players
    deals = draw(st.lists(st.tuples(st.integers(1, most), st.integers(0, players - 1)),
                          min_size=1, max_size=6))
    return Rules(deck, players, tuple(deals)), draw(st.integers(0, 2**32 - 1))


@settings(max_examples=150)
@given(configurations())
def test_plays_only_legal_actions(configuration: tuple[Rules, int]) -> None:
    rules, seed = configuration
    seats = [Recorder(HeuristicStrategy(seed + seat)) for seat in range(rules.players)]
    game = play_local(rules, seed, seats)   # ValueError on any illegal declaration or card
    assert game.to_play() is None
    for recorder in seats:
        assert [cards for _, cards in recorder.declared] == [c for c, _ in rules.deals]
        assert all(0 <= tricks <= cards for tricks, cards in recorder.declared)
    assert sum(len(r.actions) for r in seats) == rules.total_actions


# -- declarations and determinism -------------------------------------------------------
def test_declarations_in_range_and_varied() -> None:
    seen: set[int] = set()
    for seed in range(20):
        seat = seed % 4
        recorder = Recorder(HeuristicStrategy(seed))
        strategies: list[Strategy] = [RandomStrategy(seed + k) for k in range(4)]
        strategies[seat] = recorder
        play_local(Rules(), seed, strategies)
        assert [cards for _, cards in recorder.declared] == [c for c, _ in tournament_deals()]
        for tricks, cards in recorder.declared:
            assert 0 <= tricks <= cards
            seen.add(tricks)
    assert {0, 1, 2, 3} <= seen   # it reads its hands, it does not declare a constant


def test_chances_are_probabilities() -> None:
    rules = Rules(Deck("23456789", "CDH"), 3, ((8, 0),))
    view = SeatView(rules, 1)
    view.new_deal(list(range(0, 24, 3)))
    chances = trick_chances(view)
    assert len(chances) == 8
    assert all(0.0 <= p <= 1.0 for p in chances)


def heuristic_game(seed: int, strategy_seed: int) -> list[list[int]]:
    """Every seat's actions in a game of four heuristic players."""
    seats = [Recorder(HeuristicStrategy(strategy_seed + k)) for k in range(4)]
    play_local(Rules(), seed, seats)
    return [recorder.actions for recorder in seats]


def test_deterministic_for_a_seed() -> None:
    for seed in range(5):
        assert heuristic_game(seed, 7) == heuristic_game(seed, 7)


def test_another_seed_plays_another_game() -> None:
    # the strategy's seed breaks ties between equally good actions: over five deals, any
    # two of eight seeds play differently somewhere, and every deal is played in more than
    # one way; the deal's seed, of course, changes every game
    games = {(deal, seed): heuristic_game(deal, seed) for deal in range(5) for seed in range(8)}
    for a, b in itertools.combinations(range(8), 2):
        assert any(games[deal, a] != games[deal, b] for deal in range(5)), (a, b)
    for deal in range(5):
        assert len({repr(games[deal, seed]) for seed in range(8)}) > 1, deal
    assert len({repr(games[deal, 7]) for deal in range(5)}) == 5


def test_one_strategy_over_several_games_plays_as_fresh() -> None:
    # The strategy keeps notes per deal (who showed out of which suit); they must not leak
    # from one game into the next.
    reused = HeuristicStrategy(3)
    for seed in range(3):
        fresh = Recorder(HeuristicStrategy(3))
        again = Recorder(reused)
        reused.rng.seed(3)
        others: list[Strategy] = [HeuristicStrategy(10 + k) for k in range(3)]
        play_local(Rules(), seed, [fresh, *others])
        others = [HeuristicStrategy(10 + k) for k in range(3)]
        play_local(Rules(), seed, [again, *others])
        assert fresh.actions == again.actions


# -- the program over pipes -------------------------------------------------------------
def answers(output: str) -> list[str]:
    """The answers of a player's output: each ends with an empty line."""
    assert output.endswith("\n\n"), output
    return output[:-2].split("\n\n")


def test_program_over_pipes() -> None:
    commands = [
        "set_deck 23456789TJQKA CDHS",
        "set_players 4 0",
        "set_game 13 1 0 2 1 3 2 4 3 5 0 6 1 7 2 8 3 9 0 10 1 11 2 12 3 13 0",
        "set_cards 1 AC",
        "time_left 180000",
        "gen_declare",
        "declare 0 1", "declare 1 0", "declare 2 0", "declare 3 1",
        "time_left 179000",
        "gen_move",
        "play 0 AC", "play 1 2D", "play 2 3D", "play 3 4D",
        "set_cards 2 2D 3H",
        "time_left 178000",
        "gen_declare",
        "quit",
    ]
    run = subprocess.run([sys.executable, "-m", MODULE, "--seed", "1"],
                         input="\n".join(commands) + "\n", capture_output=True, text=True,
                         timeout=30)
    assert run.returncode == 0, run.stderr
    got = answers(run.stdout)
    assert len(got) == len(commands), got
    expected = ["="] * len(commands)
    expected[commands.index("gen_declare")] = "= 1"        # the ace of trumps, leading
    expected[commands.index("gen_move")] = "= AC"
    expected[len(commands) - 2] = "= 0"                    # two low side cards, not leading
    assert got == expected


def test_main_answers_on_stdin(monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("name\nquit\n"))
    assert main(["--seed", "5"]) == 0
    assert answers(capsys.readouterr().out) == ["= planowanie-heuristic", "="]
