"""The tile-table frames of an ICGA Mahjong replay: a real game of the reference AIs,
replayed; each frame shows the engine's table at its step (hands, drawn tile, melds,
discards, flowers, points), keeps all 144 tiles, and tells each hand's end as the
record's own summary of the hands does."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from referee.core.checking import record_seed
from referee.core.players import PlayerSpec, builtin_command
from referee.core.record import GameRecord
from referee.core.replay import split_pond, split_tiles
from referee.games.mahjong.adapter import mahjong_replay, record_rules
from referee.games.mahjong.frames import tile_code
from referee.games.mahjong.game import MahjongGame
from referee.games.mahjong.match import BUILTIN_PLAYERS, MahjongSettings, play_mahjong
from referee.games.mahjong.protocol import parse_action
from referee.games.mahjong.rules import Rules
from referee.games.mahjong.tiles import ALL_TILES


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> GameRecord:
    """Four hands of two greedy and two random AIs (real processes)."""
    folder = tmp_path_factory.mktemp("mahjong-frames")
    players = [PlayerSpec(f"m{k}", builtin_command(BUILTIN_PLAYERS[ai]), True)
               for k, ai in enumerate(["greedy", "random", "greedy", "random"])]
    return play_mahjong(players, MahjongSettings(Rules(hands=4), seed=3), folder)


def codes(tiles: list[int]) -> list[str]:
    return sorted(tile_code(t) for t in tiles)


def test_tile_codes_are_the_neutral_notation() -> None:
    assert {tile_code(t) for t in ALL_TILES} == {
        *(f"{r}{s}" for r in range(1, 10) for s in "mps"), *"ESWNPFC",
        *(f"f{n}" for n in range(1, 9))}
    assert (tile_code(150), tile_code(250), tile_code(350)) == ("5m", "5s", "5p")
    assert (tile_code(410), tile_code(420), tile_code(430)) == ("E", "W", "S")
    assert (tile_code(450), tile_code(460), tile_code(470), tile_code(30)) == \
        ("C", "F", "P", "f3")


def test_each_frame_is_the_engine_s_table_at_its_step(record: GameRecord) -> None:
    view = mahjong_replay(record)
    assert view.renderer == "tiles" and len(view.frames) == len(record.moves) + 1
    game = MahjongGame(record_seed(record), record_rules(record.settings))
    for k, move in enumerate(record.moves, 1):
        seat = game.to_play()
        assert seat == move.seat
        question = game.hand.question
        assert question is not None
        game.apply(seat, parse_action(move.move, question.ask))
        hand = game.hand
        frame = view.frames[k]
        assert frame["a"] == seat
        assert frame["i"] == [f"{game.number + 1}/4", "East", max(hand.live, 0)]
        for s, shown in enumerate(frame["s"]):
            assert sorted(split_tiles(shown[2] + shown[3])) == codes(hand.hands[s]), (k, s)
            pond = split_pond(shown[5])
            assert [c for c, _ in pond] == [tile_code(t) for t in hand.discards[s]]
            latest = hand.discard is not None and hand.discard[0] == s
            assert [f for _, f in pond] == [""] * (len(pond) - latest) + ["!"] * latest
            assert split_tiles(shown[7]) == [tile_code(t) for t in hand.flowers[s]]
            assert [sorted(split_tiles(m[1])) for m in shown[4]] == \
                [codes(list(m.tiles)) for m in hand.melds[s]]
            assert shown[0] == "ESWN"[(s - hand.dealer) % 4]
            if hand.result is None:
                assert shown[1] == game.totals[s]
                drawn = hand.drawn if s == hand.turn else None
                assert shown[3] == ("" if drawn is None else tile_code(drawn))
        assert ("x" in frame) == (hand.result is not None)


def test_frames_keep_every_tile_and_the_hands_end_as_recorded(record: GameRecord) -> None:
    view = mahjong_replay(record)
    reserve = record.settings["reserve"]
    for k, frame in enumerate(view.frames):
        shown = Counter[str]()
        for seat in frame["s"]:
            shown.update(split_tiles(seat[2] + seat[3] + seat[7]))
            shown.update(code for code, _ in split_pond(seat[5]))
            for meld in seat[4]:
                shown.update(split_tiles(meld[1]))
        assert all(n <= 4 for n in shown.values()) and all(shown[f"f{n}"] <= 1
                                                           for n in range(1, 9))
        if "x" not in frame:  # in play: every tile is on the table or in the wall
            assert sum(shown.values()) + frame["i"][2] + reserve == 144, k
    ends = [f["x"] for f in view.frames if "x" in f]
    played = record.settings["hands_played"]
    assert len(ends) == len(played) == 4
    for end, hand in zip(ends, played, strict=True):
        assert end["d"] == hand["payments"]
        for name, tai in hand["patterns"]:
            assert f"{name.replace('_', ' ')} {tai} tai" in end["l"]
        if hand["winner"] is not None:
            assert end["h"].startswith(f"m{hand['winner']} wins")
    assert "Game over:" in ends[-1]["l"]
    assert record.scores is not None
    for s, total in enumerate(record.scores):
        assert f"m{s}: {int(total)} points" in ends[-1]["l"]
    assert [seat[1] for seat in view.frames[-1]["s"]] == [int(t) for t in record.scores]


def test_the_frames_of_a_short_record_stop_where_it_does(record: GameRecord) -> None:
    short = dataclasses.replace(record, moves=record.moves[:30])
    view = mahjong_replay(short)
    assert len(view.frames) == 31
    assert "Game over:" not in (view.frames[-1].get("x") or {"l": []})["l"]


def test_answers_are_written_in_words() -> None:
    from referee.games.mahjong.adapter import move_words
    from referee.games.mahjong.frames import tile_code

    assert tile_code(150) == "5m"
    assert move_words("/throw 150") == "discard 5m"
    assert move_words("/pong 291 293") == f"pung {tile_code(291)} {tile_code(293)}"
    assert move_words("/throw 410") == "discard East"
    assert move_words("/hu") == "win" and move_words("/pass") == "pass"
    assert move_words("/throw 9999") == "discard 9999"  # not a tile: as written
    assert move_words("hello there") == "hello there"
