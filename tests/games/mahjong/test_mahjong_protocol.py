"""The ICGA wire: every client instruction parsed (and the bad ones named), and a golden
transcript of what each seat is told during a hand."""

from __future__ import annotations

import pytest
from test_mahjong_rules import CHOW_DEAL, KONG_DEAL, TWO_WAITERS, build_wall, first

from referee.core.errors import BotFault
from referee.games.mahjong.protocol import event_lines, hand_start_lines, parse_action
from referee.games.mahjong.rules import (
    Ask,
    ConcealedKong,
    Eat,
    Hu,
    Kong,
    MahjongHand,
    Pass,
    Pong,
    PromotedKong,
    Throw,
    notation,
)


@pytest.mark.parametrize(("line", "action"), [
    ("/throw 112", Throw(112)),
    ("/eat 132 143", Eat(132, 143)),
    ("/pong 112 113", Pong(112, 113)),
    ("/gong 4 110 112 113", Kong(110, 112, 113)),
    ("/gong 110 112 113", Kong(110, 112, 113)),  # the spec's own example leaves out the 4
    ("/gong 0 370 371 372 373", ConcealedKong(370, 371, 372, 373)),
    ("/gong 1 410", PromotedKong(410)),
    ("/hu", Hu()),
    ("/pass", Pass()),
    ("  /pass  \r", Pass()),
])
def test_every_client_instruction(line: str, action: object) -> None:
    assert parse_action(line, Ask.THROW) == action
    if not line.startswith("/gong 110"):
        assert parse_action(notation(action), Ask.THROW) == action  # round trip


@pytest.mark.parametrize(("line", "message"), [
    ("", "expected an instruction"),
    ("throw 112", "expected an instruction"),
    ("/throw", "takes 1 tile"),
    ("/throw 112 113", "takes 1 tile"),
    ("/throw 999", "not a tile id"),
    ("/throw abc", "not a tile id"),
    ("/eat 132", "takes 2 tile"),
    ("/gong 2 110", "expected /gong 4"),
    ("/gong 0 370 371", "expected /gong 4"),
    ("/chow 1 2", "unknown instruction"),
    ("/throw " + "1" * 5000, "not a tile id"),
])
def test_bad_instructions_are_protocol_errors_that_say_why(line: str, message: str) -> None:
    with pytest.raises(BotFault, match=message) as caught:
        parse_action(line, Ask.THROW)
    assert caught.value.outcome.value == "protocol-error"
    assert len(str(caught.value)) < 300


def transcript(hand: MahjongHand, seat: int) -> list[str]:
    return [line for event in hand.events for line in event_lines(event, seat)]


def test_golden_transcript_of_a_hand_for_each_seat() -> None:
    wall, _ = build_wall(TWO_WAITERS, draws=["9o"])
    hand = MahjongHand(wall)
    hand.apply(0, Throw(first(hand, 0, 27)))   # the dealer throws East (410)
    hand.apply(1, Throw(first(hand, 1, 4)))    # seat 1 throws 5-Wan (150)
    hand.apply(2, Hu())                        # seat 2 wins on it
    assert hand_start_lines(2, "ai.exe", 0, 0, 3, 0) == [
        "/start MJ 3 ai.exe", "/initGame EAST EAST 4 1 0"]
    hu = "/hu 3 150 110 111 112 140 160 170 180 190 211 212 213 291 292 293 430 431"
    assert transcript(hand, 0) == [
        "/initCard 260 270 280 290 310 311 312 320 321 322 330 331 332 340 341 342 410",
        "/ask throw", "/throw 1 410", "/throw 2 150", hu, "/exit 0 -500 500 0"]
    assert transcript(hand, 1) == [  # its own draw; nobody else hears of it
        "/initCard 150 210 220 230 231 240 250 251 261 271 370 371 380 381 390 440",
        "/throw 1 410", "/mo 391", "/ask throw", "/throw 2 150", hu, "/exit 0 -500 500 0"]
    assert transcript(hand, 2) == [
        "/initCard 110 111 112 140 160 170 180 190 211 212 213 291 292 293 430 431",
        "/throw 1 410", "/throw 2 150", "/ask hu", hu, "/exit 0 -500 500 0"]
    assert transcript(hand, 3) == [  # asked nothing: seat 2 took the tile first
        "/initCard 141 161 221 222 223 281 282 283 323 333 343 420 421 422 450 451",
        "/throw 1 410", "/throw 2 150", hu, "/exit 0 -500 500 0"]
    # 20 tai: concealed 1, three concealed pungs 2, earthly hand 16, closed wait 1
    assert hand.result is not None and hand.result.score is not None
    assert hand.result.score.total_tai == 20


def test_a_concealed_kong_on_the_wire_shows_its_tiles_to_its_owner_only() -> None:
    wall, _ = build_wall(KONG_DEAL)
    hand = MahjongHand(wall)
    kong = next(a for a in hand.legal_actions() if isinstance(a, ConcealedKong))
    hand.apply(0, kong)
    owner = transcript(hand, 0)
    assert "/gong 1 0 110 111 112 113" in owner
    assert "/gong 1 0" in transcript(hand, 2) and "/gong 1 0 110 111 112 113" not in \
        transcript(hand, 2)


def test_a_chow_on_the_wire_has_the_eaten_tile_in_the_middle() -> None:
    wall, _ = build_wall(CHOW_DEAL)
    hand = MahjongHand(wall)
    hand.apply(0, Throw(first(hand, 0, 22)))  # the dealer throws 5-Tong (350)
    hand.apply(2, Pass())                     # seat 2 does not pong
    hand.apply(1, next(a for a in hand.legal_actions() if isinstance(a, Eat)))
    lines = transcript(hand, 3)
    assert lines[-1] == "/eat 2 340 350 360"  # 4-Tong, the eaten 5-Tong, 6-Tong
    assert lines[-2] == "/throw 1 350"
