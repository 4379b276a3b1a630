"""The results site's charts at both ends of their range: the SPRT of a real two-player
match (its LLR, bounds and verdict as the tournament counted them), and the rating chart of
200 players (ten in colour with a legend, the others grey, the chart's size kept)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from referee.tournament.report import build_site
from referee.tournament.report.plot import HIGHLIGHTED
from referee.tournament.stats import SPRT, HeadToHead
from referee.tournament.store import Store
from tournament_runs import run_quietly

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_site import make_store  # the benchmark's store of random games

SPRT_MATCH = """
name = "sprt-site"
game = "gomoku"
seed = 5
output = "out"

[sprt]
elo0 = 0
elo1 = 100

[schedule]
kind = "round-robin"
rounds = 100

[settings]
size = 9
timeout_turn = 5000

[[players]]
name = "threat"
builtin = "threat"

[[players]]
name = "random"
builtin = "random"
"""


def section(text: str, ident: str) -> str:
    """The page's text from the heading ``ident`` to the next ``<h2``."""
    start = text.index(f'<h2 id="{ident}">')
    end = text.find("<h2", start + 1)
    return text[start:end if end >= 0 else None]


def test_the_sprt_of_a_match_is_shown_as_the_tournament_counted_it(tmp_path: Path) -> None:
    out = run_quietly(tmp_path, SPRT_MATCH, concurrency=2)
    store = Store.open_existing(out)
    try:
        assert store.meta("sprt_verdict") == "H1 accepted"
        rows = store.games(status="done", by_finish=True)
    finally:
        store.close()
    counts = HeadToHead("threat")
    for row in rows:
        assert row.scores is not None
        counts.add(row.seats, row.scores, row.pair)
    test = SPRT(0, 100)
    llr = counts.llr(test)
    assert llr is not None and llr >= test.upper

    text = build_site(out, tmp_path / "site").read_text(encoding="utf-8")
    shown = section(text, "sprt")
    assert "<dt>Verdict</dt><dd>H1 accepted</dd>" in shown
    assert (f"<dt>LLR</dt><dd>{llr:.2f} (H0 accepted at {test.lower:.2f}, "
            f"H1 at {test.upper:.2f})</dd>") in shown
    assert "threat against random: H0 0 Elo, H1 100 Elo (normalized)" in shown
    assert f"games {len(rows)}," in shown
    [points] = re.findall(r'<polyline class="sprt-line" points="([^"]+)"', shown)
    assert len(points.split()) == len(rows)  # a point per game (fewer than 300)
    assert 'class="bound-h1"' in shown and 'class="bound-h0"' in shown


def test_a_tournament_without_sprt_has_no_sprt_section(tmp_path: Path) -> None:
    make_store(tmp_path / "store", players=3, games=12, seed=2)
    text = build_site(tmp_path / "store", tmp_path / "site").read_text(encoding="utf-8")
    assert 'id="sprt"' not in text and 'class="sprt-line"' not in text


@pytest.mark.parametrize("players", [2, 200])
def test_the_rating_chart_stays_readable_from_2_to_200_players(tmp_path: Path,
                                                               players: int) -> None:
    make_store(tmp_path / "store", players=players, games=max(40, 3 * players), seed=3)
    store = Store.open_existing(tmp_path / "store")
    try:
        playing = {name for row in store.games(status="done") for name in row.seats}
    finally:
        store.close()
    assert len(playing) >= players - 5
    players = len(playing)
    text = build_site(tmp_path / "store", tmp_path / "site").read_text(encoding="utf-8")
    chart = section(text, "ratings-plot")
    lines = re.findall(r'<polyline class="rating-line( other)?" data-player="([^"]+)"', chart)
    assert sorted(name for _, name in lines) == sorted(playing)  # every player is drawn
    coloured = [name for other, name in lines if not other]
    legend = re.findall(r'<g class="legend">.*?</g>', chart)
    standings = re.findall(r'<a class="player" href="players/[^"]+">([^<]+)</a>',
                           section(text, "standings"))
    assert coloured == standings[:HIGHLIGHTED]  # the best ten in colour
    assert len(legend) == min(players, HIGHLIGHTED) + (players > HIGHLIGHTED)
    if players > HIGHLIGHTED:
        assert f"{players - HIGHLIGHTED} others</text>" in legend[-1]
        # the grey ones come first, so that the coloured ones are drawn over them
        assert [bool(other) for other, _ in lines] == [True] * (players - HIGHLIGHTED) + [
            False] * HIGHLIGHTED
    [height] = re.findall(r'<svg class="chart" [^>]*height="(\d+)"', chart)
    assert int(height) == 16 + max(300, 18 * min(players, HIGHLIGHTED + 1)) + 52  # not more
