"""The shared suit check: nine rank counts split into pungs and chows, against a simple
search over every set (hypothesis)."""

from __future__ import annotations

from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core.suits import suit_is_sets


@cache
def _oracle(counts: tuple[int, ...]) -> bool:
    if not any(counts):
        return True
    for rank in range(9):
        if counts[rank] >= 3:
            rest = list(counts)
            rest[rank] -= 3
            if _oracle(tuple(rest)):
                return True
        if rank <= 6 and all(counts[rank + k] for k in range(3)):
            rest = list(counts)
            for k in range(3):
                rest[rank + k] -= 1
            if _oracle(tuple(rest)):
                return True
    return False


def test_examples() -> None:
    assert suit_is_sets([1, 1, 1, 0, 0, 0, 0, 0, 0])
    assert suit_is_sets([3, 3, 3, 0, 0, 0, 0, 0, 0])
    assert suit_is_sets([1, 2, 2, 1, 0, 0, 0, 0, 0])  # 123 + 234
    assert not suit_is_sets([1, 1, 0, 0, 0, 0, 0, 0, 0])
    assert not suit_is_sets([0, 0, 0, 0, 0, 0, 0, 1, 1])
    assert suit_is_sets([0, 0, 0, 0, 0, 0, 1, 1, 1], 5)


@settings(max_examples=400)
@given(st.lists(st.integers(0, 4), min_size=9, max_size=9))
def test_agrees_with_a_plain_search_and_restores_the_counts(counts: list[int]) -> None:
    before = list(counts)
    assert suit_is_sets(counts) == _oracle(tuple(counts))
    assert counts == before
