"""The decision points and results kanachan writes (its annotate, the default) against the
real choices only (``kanachan_exact=False``): a game played through the engine on scripted
walls (a triple ron, the dealer's first discards, a discard after a call with one legal
tile), a real double ron, and Mahjong Soul's grading points."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.games.riichi.kanachan.annotate import Context, annotate_game
from referee.games.riichi.kanachan.encoding import decode_option, decode_progression, decode_sparse
from referee.games.riichi.kanachan.grading import grading_delta
from referee.games.riichi.logrules import start_game_event
from referee.games.riichi.match import apply_logged
from referee.games.riichi.replay import load_log, verify_log
from referee.games.riichi.rules import Deal, RiichiGame, RiichiRules, ScriptedWall, action_from_mjai
from referee.games.riichi.tiles import tile_of

DATA = Path(__file__).resolve().parents[2] / "data" / "riichi"
SCORES = (100, 33300, 33300, 33300)
"""The dealer (seat 0) has 100 points: any payment of its own ends the game."""


def deal(hands: list[str], dora: str, honba: int) -> tuple[Deal, set[int]]:
    taken: set[int] = set()

    def take(name: str) -> int:
        tile = tile_of(name, taken)
        taken.add(tile)
        return tile

    tehais = tuple(tuple(take(n) for n in hand.split()) for hand in hands)
    return Deal(tehais, take(dora), 0, 0, 1, honba, 0, SCORES), taken


def wall(names: str, taken: set[int]) -> ScriptedWall:
    draws = []
    for name in names.split():
        tile = tile_of(name, taken)
        taken.add(tile)
        draws.append(tile)
    return ScriptedWall(draws, live_total=70)


def play(game: RiichiGame, *moves: dict[str, Any]) -> None:
    for move in moves:
        apply_logged(game, move["actor"], action_from_mjai(move))


def dahai(seat: int, pai: str, tsumogiri: bool = False) -> dict[str, Any]:
    return {"type": "dahai", "actor": seat, "pai": pai, "tsumogiri": tsumogiri}


def pon(seat: int, target: int, pai: str) -> dict[str, Any]:
    return {"type": "pon", "actor": seat, "target": target, "pai": pai,
            "consumed": [pai, pai]}


@pytest.fixture(scope="module")
def scripted() -> list[dict[str, Any]]:
    """East 1: the dealer throws its drawn 4p and the three others, each waiting on 4p
    alone (all simples), ron: a triple ron, an abortive draw (Tenhou's rules). East 1, 1
    honba: the dealer throws its drawn 1m; seat 1 pons 1m, 9m, 1p and 9p (the last three
    from seat 2) and has two 1s left: one legal discard; seat 2 then wins by tsumo and the
    dealer, paying, falls below zero: the game ends."""
    rules = RiichiRules()
    game = RiichiGame(rules, seed=None)
    waiting = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6s 7s 8s 4p"
    first, taken = deal(["1m 1m 1m 9m 9m 9m 1p 1p 1p 9p 9p 9p E", waiting, waiting, waiting],
                        "5p", 0)
    game.start_kyoku(first, wall("4p", taken))
    play(game, dahai(0, "4p", tsumogiri=True))
    for seat in (1, 2, 3):
        play(game, {"type": "hora", "actor": seat, "target": 0, "pai": "4p"})
    assert game.results[-1].reason == "sanchaho"
    second, taken = deal(["4m 5m 6m 7m 2p 3p 5p 6p 7p 3s 4s 5s 6s",
                          "1m 1m 9m 9m 1p 1p 9p 9p 1s 1s 5s 7p 3m",
                          "2p 3p 4p 4p 5p 6p 6s 7s 8s 2s 3s 4s 8p",
                          "S W N P F C 2m 4m 6m 8m 3s 6p 7s"], "9s", 1)
    game.start_kyoku(second, wall("1m 9m 1p 9p 8p", taken))
    play(game, dahai(0, "1m", tsumogiri=True), pon(1, 0, "1m"), dahai(1, "5s"),
         dahai(2, "9m", tsumogiri=True), pon(1, 2, "9m"), dahai(1, "7p"),
         dahai(2, "1p", tsumogiri=True), pon(1, 2, "1p"), dahai(1, "3m"),
         dahai(2, "9p", tsumogiri=True), pon(1, 2, "9p"), dahai(1, "1s"),
         {"type": "hora", "actor": 2, "target": 2, "pai": "8p"})
    assert game.over and game.final_scores()[0].points < 0
    return [start_game_event(["a", "b", "c", "d"], rules), *game.events]


def parsed(lines: list[str]) -> list[list[list[int]]]:
    return [[[int(x) for x in part.split(",")] for part in line.split("\t")[1:]]
            for line in lines]


def test_a_triple_ron_abort_writes_no_ron_lines(scripted: list[dict[str, Any]]) -> None:
    kanachan = parsed(annotate_game(scripted, "g", Context()))
    real = parsed(annotate_game(scripted, "g", Context(kanachan_exact=False)))
    rons = [f for f in real if f[3][f[4][0]] in (543, 544, 545)]
    assert [decode_sparse(f[0]).seat for f in rons] == [1, 2, 3]
    assert all(f[5][0] == 18 for f in rons)  # the round's result: an abortive draw
    first_hand = [f for f in kanachan if f[1][0] == 0]  # no honba: East 1's lines
    assert first_hand and not any(o in (543, 544, 545) for f in first_hand for o in f[3])
    assert len(kanachan) - len(first_hand) == len([f for f in real if f[1][0] == 1]) + 1


def test_the_dealers_first_discard_is_from_the_hand(scripted: list[dict[str, Any]]) -> None:
    """4p, then 1m: the dealer's drawn tile, thrown at once; kanachan codes the option,
    the choice and the progression as from the hand (a = 0), Mahjong Soul dealing 14."""
    for exact, moqi in ((True, 0), (False, 2)):
        lines = parsed(annotate_game(scripted, "g", Context(kanachan_exact=exact)))
        dealer = [f for f in lines if decode_sparse(f[0]).seat == 0 and f[2] == [0]]
        assert len(dealer) == 2
        for f, tile in zip(dealer, (14, 1), strict=True):  # 4p, 1m
            assert f[3][f[4][0]] == tile * 4 + moqi
            assert decode_sparse(f[0]).left == 69
        later = next(f for f in lines if len(f[2]) > 1 and f[1][0] == 1)  # East 1-1
        assert later[2][1] == 5 + 1 * 4 + moqi  # the progression: seat 0 threw 1m
        assert decode_progression(later[2][1]).tsumogiri is (not exact)


def test_a_discard_after_a_call_with_one_legal_tile_is_a_point(
        scripted: list[dict[str, Any]]) -> None:
    kanachan = parsed(annotate_game(scripted, "g", Context()))
    real = parsed(annotate_game(scripted, "g", Context(kanachan_exact=False)))
    single = [f for f in kanachan if len(f[3]) == 1]
    assert len(single) == 1
    sparse, _numeric, progression, options, chosen, _results = single[0]
    assert decode_sparse(sparse).seat == 1 and decode_sparse(sparse).hand == ("1s", "1s")
    assert decode_progression(progression[-1]).kind == "pon"
    assert decode_option(options[0]).tile == "1s" and chosen == [0]
    assert not any(len(f[3]) == 1 for f in real)
    assert len(kanachan) == len(real) + 1 - 3  # that discard; no three rons


def test_a_double_ron_writes_each_point_once_per_winner(tmp_path: Path) -> None:
    """A real double ron (South 4: seat 0 from seat 3, then seat 2 from seat 3) that ends
    the game, its final points and results added (Tenhou's ``sc``)."""
    game = json.loads((DATA / "tenhou6" / "double_ron.json").read_text(encoding="utf-8"))
    game["sc"] = [538, 44.0, 263, -14.0, 394, 19.0, 5, -49.0]
    path = tmp_path / "double_ron.json"
    path.write_text(json.dumps(game, ensure_ascii=False), encoding="utf-8")
    loaded = load_log(path)
    assert verify_log(loaded.events, loaded.rules, final_results=loaded.final_results).ended
    kanachan = annotate_game(loaded.events, "d", Context(), loaded.rules)
    real = annotate_game(loaded.events, "d", Context(kanachan_exact=False), loaded.rules)
    heads = [line.rsplit("\t", 1)[0] for line in kanachan]
    assert len(kanachan) % 2 == 0 and heads[0::2] == heads[1::2]
    assert len(set(heads)) >= len(real)  # (kanachan also writes the pre-empted chances)
    for first, second in zip(kanachan[0::2], kanachan[1::2], strict=True):
        one, two = (parsed([x])[0] for x in (first, second))
        assert one[5][1:] == two[5][1:]  # the same changes, ranks and game result
        seat = decode_sparse(one[0]).seat
        # each seat sees both wins, seat 0's from seat 3 first, then seat 2's from seat 3,
        # as kanachan codes them: seat 0 its ron from the left (6), then the one across
        # winning from the left (13); seat 1 the left winning from across (15), the right
        # from across (10); seat 2 across from the right (12), its ron from the right (4);
        # seat 3 its deal-in to the right (7), to the left (9)
        assert (one[5][0], two[5][0]) == {0: (6, 13), 1: (15, 10), 2: (12, 4),
                                          3: (7, 9)}[seat]


@pytest.mark.parametrize(("room", "east", "grade", "rank", "points", "delta"), [
    (2, False, 6, 1, 55000, 125),    # Gold, east-south: +30 + 15 + 80
    (2, False, 6, 3, 21100, -8),     # -3.9 - 5 + 0 = -8.9, rounded up
    (2, False, 6, 4, -4900, -124),   # -29.9 - 15 - 80 (Expert 1's penalty) = -124.9
    (4, True, 14, 2, 31800, 42),     # Throne, east: +6.8 + 5 + 30 = 41.8
    (0, True, 0, 4, 10000, -30),     # Novice: no penalty
    (3, False, 11, 4, 12000, -223),  # Master 3: -195
    (3, False, 15, 4, 12000, -268),  # Celestial, counted as Saint 3 (-240)
    (1, True, 3, 1, 40000, 50),      # Silver, east: +15 + 15 + 20
])
def test_grading_points(room: int, east: bool, grade: int, rank: int, points: int,
                        delta: int) -> None:
    assert grading_delta(room, east, grade, rank, points) == delta


def test_the_grading_delta_of_the_annotations(scripted: list[dict[str, Any]]) -> None:
    lines = parsed(annotate_game(scripted, "g", Context(room=3, grades=(9, 10, 11, 12))))
    for f in lines:
        seat = decode_sparse(f[0]).seat
        rank, points = f[5][9] + 1, f[5][10]
        assert f[5][11] == grading_delta(3, False, (9, 10, 11, 12)[seat], rank, points)
    given = parsed(annotate_game(scripted, "g", Context(grading=(1, 2, 3, 4))))
    assert {(decode_sparse(f[0]).seat, f[5][11]) for f in given} <= {(0, 1), (1, 2), (2, 3),
                                                                    (3, 4)}
