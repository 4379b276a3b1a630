"""The results site and the terminal's tables count in one set of units, said in legends:
whole games (games, the game's own points, won / drawn / lost) and pairwise results (how
many, the score the ratings count), the same on the index, the player pages and the
crosstable, for a real four-player tournament; seats numbered from 1 wherever a person
reads them; and one rule for a whole game's result, whatever the number of players."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from test_report import PageParser, check_links, pages, parse_page

from referee.core.standings import Standing, count_game, game_result
from referee.tournament.report import build_site
from referee.tournament.report.site import Paths
from referee.tournament.report.standing_tables import column_heads
from referee.tournament.session import run_tournament
from referee.tournament.store import Store

TOURNAMENT = """
name = "units"
game = "planowanie"
seed = 11
output = "out"

[schedule]
kind = "itpw"
rounds = 1
random_rounds = 1
house = "random"

[settings]
deals = "3 3 0 2 1 1 2"

[[players]]
name = "heuristic-1"
builtin = "heuristic"

[[players]]
name = "heuristic-2"
builtin = "heuristic"

[[players]]
name = "random-1"
builtin = "random"

[[players]]
name = "random-2"
builtin = "random"

[[players]]
name = "random-3"
builtin = "random"
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """A real ITPW tournament of five players and three house bots (8 games), the site
    built from its store, and what the run printed."""
    folder = tmp_path_factory.mktemp("units")
    (folder / "t.toml").write_text(TOURNAMENT, encoding="utf-8")
    out = io.StringIO()
    run_tournament(folder / "t.toml", Console(file=out, width=400))
    return folder / "out", build_site(folder / "out", folder / "site"), out.getvalue()


def table(parser: PageParser, name: str) -> list[dict[str, str]]:
    """A table's rows by its column heads."""
    head, *rows = parser.tables[name]
    return [dict(zip(head, row, strict=True)) for row in rows]


def facts(path: Path) -> dict[str, str]:
    """The facts (``<dl class="facts">``) of a page, by label."""
    text = path.read_text(encoding="utf-8")
    block = re.search(r'<dl class="facts">(.*?)</dl>', text, re.S)
    assert block is not None
    return {dt: re.sub(r"<[^>]+>", "", dd) for dt, dd in
            re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", block.group(1), re.S)}


def legend(path: Path) -> list[dict[str, str]]:
    """The legends (``<dl class="legend">``) of a page, each by label."""
    text = path.read_text(encoding="utf-8")
    return [dict(re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", block, re.S))
            for block in re.findall(r'<dl class="legend">(.*?)</dl>', text, re.S)]


def test_the_player_pages_and_the_index_agree(site: tuple[Path, Path, str]) -> None:
    store_folder, index, _ = site
    store = Store.open_existing(store_folder)
    try:
        rows = store.games(status="done")
    finally:
        store.close()
    standings = table(parse_page(index), "standings-table")
    assert len(standings) == 8 and len(rows) == 8
    paths = Paths([line["Player"] for line in standings])
    for line in standings:
        name = line["Player"]
        mine = [row for row in rows if name in row.seats]
        assert line["Games"] == str(len(mine))  # whole games, not pairwise results (24)
        assert line["Results"] == str(3 * len(mine))  # three pairwise results a game
        score = float(line["Score"].removesuffix("%"))
        assert 0 <= score <= 100  # (it read 100 x card points / games: 6895.8%)
        wins, draws, losses = (int(line[k]) for k in "WDL")
        assert wins + draws + losses == len(mine)
        page = facts(index.parent / paths.player(name))
        assert page["Games"] == line["Games"] and page["Points"] == line["Points"]
        assert page["Results"] == line["Results"] and page["Score"] == line["Score"]
        assert page["W / D / L"] == f"{wins} / {draws} / {losses}"
        opponents = table(parse_page(index.parent / paths.player(name)), "opponents-table")
        assert sum(int(o["Results"]) for o in opponents) == 3 * len(mine)
        total = sum(float(o["Points"].replace("\u00bd", ".5")) for o in opponents)
        assert f"{100 * total / (3 * len(mine)):.1f}%" == line["Score"]


def test_every_unit_is_said(site: tuple[Path, Path, str]) -> None:
    _, index, printed = site
    [said] = legend(index)
    assert said["Points"].startswith("card points")
    assert "3 a game" in said["Results"] and "ratings" in said["Score"]
    assert said["W / D / L"].startswith("games won, drawn and lost: the best score alone wins")
    assert [c for c in table(parse_page(index), "standings-table")[0]][2:] == [
        "Elo", "+", "\u2212", "Games", "Points", "W", "D", "L", "Results", "Score", "Oppo.",
        "LOS next"]
    name = table(parse_page(index), "standings-table")[0]["Player"]
    player = index.parent / Paths([name]).player(name)
    mine, opponents = legend(player)
    assert mine["Points"] == said["Points"] and mine["Results"] == said["Results"]
    assert "played together" in opponents["Results"]
    cross = (index.parent / "crosstable.html").read_text(encoding="utf-8")
    assert "Pairwise results of each player" in cross
    # the terminal's tables say the same: whole games, card points, pairwise results
    assert "points: card points, added up (a game a fault ended adds none); games: whole " \
           "games" in printed
    assert re.search(r"\bresults\b.*\bscore\b", printed.split("Ratings (BayesElo)")[1])
    assert "results: pairwise results, 3 a game" in printed


def test_seats_are_numbered_from_one(site: tuple[Path, Path, str]) -> None:
    store_folder, index, _ = site
    site_folder = index.parent
    check_links(site_folder)
    for page in pages(site_folder):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"\bseat 0\b", text), page  # (the replay, plays, logs said it)
    store = Store.open_existing(store_folder)
    try:
        row = min(store.games(status="done"), key=lambda r: r.seq)
    finally:
        store.close()
    game = parse_page(site_folder / Paths.game(row))
    head, *seats = game.tables["seats"]
    assert head[:2] == ["Seat", "Player"] and "Plays" not in head  # seats play alike
    assert [s[0] for s in seats] == ["1", "2", "3", "4"]
    name = row.seats[2]
    player = parse_page(site_folder / Paths(row.seats).player(name))
    line = next(r for r in table(player, "player-games") if r["Game"] == f"#{row.seq}")
    assert line["Seat (plays)"] == "3"
    logs = (site_folder / Paths(row.seats).player(name)).read_text(encoding="utf-8")
    assert re.findall(r"game slot \d+, (seat \d)", logs)  # (``0-name`` files read "0")


def test_crosstable_heads_tell_the_players_apart() -> None:
    assert column_heads(["heuristic-1", "heuristic-2"]) == ["heuristic-1", "heuristic-2"]
    names = [f"a-rather-long-player-name-{k}" for k in range(8)]
    heads = column_heads(names)
    assert len(set(heads)) == 8 and all(len(h) <= 15 for h in heads)
    assert heads[0].startswith("a-rather") and heads[0].endswith("0")


# -- one rule for a whole game's result -------------------------------------------------
def test_a_shared_best_score_is_a_draw_with_any_number_of_players() -> None:
    table: dict[str, Standing] = {}
    count_game(table, ["a", "b"], [5.0, 5.0], None, "normal", True)
    count_game(table, ["a", "b", "c"], [5.0, 5.0, 1.0], None, "normal", True)
    count_game(table, ["a", "b", "c", "d"], [3.0, 7.0, 7.0, 2.0], None, "normal", True)
    count_game(table, ["a", "b", "c", "d"], [0.0, 1.0, 1.0, 1.0], 0, "timeout", True)
    got = {name: (s.wins, s.draws, s.losses) for name, s in table.items()}
    assert got == {"a": (0, 2, 2), "b": (1, 3, 0), "c": (1, 1, 1), "d": (1, 0, 1)}


@given(st.lists(st.integers(-3, 3), min_size=2, max_size=4),
       st.one_of(st.none(), st.integers(0, 3)))
def test_a_game_is_won_when_every_pairwise_result_is(scores: list[int],
                                                      offender: int | None) -> None:
    """A seat wins a game when it wins every pairwise result of it that counts, draws when
    it loses none but does not win them all, and loses otherwise (a fault's game: only the
    offender's results count, as the ratings count them)."""
    if offender is not None:
        offender %= len(scores)
        scores = [0 if seat == offender else 1 for seat in range(len(scores))]
    for seat, mine in enumerate(scores):
        pairs = [(mine > theirs) - (mine < theirs) for other, theirs in enumerate(scores)
                 if other != seat and (offender is None or offender in (seat, other))]
        want = ("win" if all(p > 0 for p in pairs) else
                "draw" if all(p >= 0 for p in pairs) else "loss")
        assert game_result(scores, offender, seat) == want
    if len(scores) == 2 and offender is None:  # two players: the pairwise result itself
        a, b = scores
        assert [game_result(scores, None, s) for s in (0, 1)] == (
            ["win", "loss"] if a > b else ["loss", "win"] if a < b else ["draw", "draw"])
    assert sum(game_result(scores, offender, s) == "win" for s in range(len(scores))) <= (
        1 if offender is None else len(scores) - 1)
