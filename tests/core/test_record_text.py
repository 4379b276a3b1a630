"""How a record writes its result in one line, two seats or more, negative totals too."""

from __future__ import annotations

import pytest

from referee.core.record import GameRecord


@pytest.mark.parametrize(("scores", "text"), [
    (None, "*"),
    ([1.0, 0.0], "1-0"),
    ([0.0, 1.0], "0-1"),
    ([0.5, 0.5], "1/2-1/2"),
    ([73.0, 33.0, 20.0, 10.0], "73-33-20-10"),
    ([220.0, 0.0, -220.0, 0.0], "220 / 0 / -220 / 0"),
])
def test_result_text(scores: list[float] | None, text: str) -> None:
    record = GameRecord("any", [])
    record.scores = scores
    assert record.result_text() == text
