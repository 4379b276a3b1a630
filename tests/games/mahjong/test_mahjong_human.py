"""The person's console: each answer said in words, with the tiles it uses."""

from __future__ import annotations

from referee.games.mahjong import rules
from referee.games.mahjong.human import describe, tile_text


def test_every_answer_is_said_in_words_with_its_tiles() -> None:
    one, two, three = tile_text(110), tile_text(120), tile_text(130)
    assert describe(rules.Throw(130)) == f"throw {three}"
    assert describe(rules.Eat(120, 110), 130) == f"chow {three} with {one} {two}"
    assert describe(rules.Pong(111, 110), 112) == \
        f"pung {tile_text(112)} with {one} {tile_text(111)}"
    assert describe(rules.Kong(110, 111, 112), 113).startswith(f"kong {tile_text(113)} with")
    assert describe(rules.ConcealedKong(110, 111, 112, 113)) == \
        "concealed kong of " + " ".join(tile_text(t) for t in (110, 111, 112, 113))
    assert describe(rules.PromotedKong(113)) == f"add {tile_text(113)} to your pung"
    assert describe(rules.Hu()) == "win (hu)"
    assert describe(rules.Pass()) == "pass"
    assert describe(rules.Eat(110, 120)) == f"chow with {one} {two}"  # no discard named
