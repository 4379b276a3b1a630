"""Building a site again from the same process (a running tournament's refresh, ``report
--serve``) writes only the game pages that changed: a new game's page and the pages of
its neighbours (their previous / next links), or a page that is gone; the others stay
the very files they were, and are what a fresh build would write."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict
from pathlib import Path

import pytest

from referee.core.outcome import Outcome
from referee.core.record import GameRecord, PlayerInfo
from referee.tournament.ratings import BayesEloParams
from referee.tournament.report import build_site
from referee.tournament.report import written_pages as memo
from referee.tournament.report.site import Paths
from referee.tournament.schedule import RoundRobin, ScheduledGame
from referee.tournament.store import Store

PLAYERS = ["ann", "bob", "cid", "dee"]


def record(game: ScheduledGame, k: int) -> GameRecord:
    r = GameRecord("gomoku", [PlayerInfo(n, ["bot"]) for n in game.seats],
                   settings={"width": 9, "height": 9, "black": 0, "game_key": game.key,
                             "colors": ["black", "white"]})
    for n, move in enumerate(["4,4", "3,3", f"{k % 9},8"]):
        r.add_move(n % 2, move, 1.5)
    r.finish([1.0, 0.0], Outcome.NORMAL, "five in a row")
    return r


def make_store(folder: Path) -> tuple[Path, list[ScheduledGame]]:
    store = Store(folder).open("fingerprint", "rebuild")
    games = RoundRobin(PLAYERS, 1, 1, 0).round_games(1, {}, {})
    store.add_games(games)
    store.set_meta("tournament", json.dumps({
        "name": "rebuild", "game": "gomoku", "players": PLAYERS, "schedule": "round-robin",
        "rounds": 1, "total_games": len(games), "seed": 1, "settings": {"width": 9},
        "ratings": asdict(BayesEloParams.gomocup())}))
    store.close()
    return folder, games


def commit(folder: Path, games: list[ScheduledGame], places: list[int]) -> None:
    store = Store(folder).open("fingerprint", "rebuild")
    try:
        for k in places:
            store.commit(games[k].key, record(games[k], k))
    finally:
        store.close()


def game_pages(site: Path) -> dict[str, int]:
    """Each game page's inode: a page written again (renamed into place) gets a new one."""
    return {p.name: p.stat().st_ino for p in (site / "games").glob("*.html")}


def page_name(folder: Path, key: str) -> str:
    store = Store.open_existing(folder)
    try:
        row = next(r for r in store.games() if r.key == key)
    finally:
        store.close()
    return Path(Paths.game(row)).name


@pytest.mark.parametrize("workers", [1, 2])
def test_a_rebuild_writes_only_the_new_game_and_its_neighbours(tmp_path: Path,
                                                               workers: int) -> None:
    folder, games = make_store(tmp_path / "store")
    assert len(games) == 12  # each pairing with both colours
    commit(folder, games, [0, 1, 2, 4, 5])
    site = tmp_path / "site"
    build_site(folder, site, workers=workers)
    first = game_pages(site)
    assert len(first) == 5

    build_site(folder, site, workers=workers)  # nothing new: no game page written again
    assert game_pages(site) == first
    assert "Made by referee" in (site / "index.html").read_text(encoding="utf-8")

    commit(folder, games, [3])  # between games 2 and 4 in the schedule
    build_site(folder, site, workers=workers)
    second = game_pages(site)
    changed = {name for name in second if second[name] != first.get(name)}
    assert changed == {page_name(folder, games[k].key) for k in (2, 3, 4)}

    gone = site / "games" / page_name(folder, games[0].key)
    with gone.open("rb"):  # held open, its inode cannot be reused by the page written again
        gone.unlink()
        build_site(folder, site, workers=workers)
    assert gone.is_file()
    third = game_pages(site)
    assert {name for name in third if third[name] != second[name]} == {gone.name}

    shutil.rmtree(site / "static")  # what the pages link: every page is written again
    build_site(folder, site, workers=workers)
    fourth = game_pages(site)
    assert all(fourth[name] != third[name] for name in third)
    assert len(list((site / "static" / "shared").iterdir())) == 2

    fresh = tmp_path / "fresh"  # what another build writes is what was kept
    build_site(folder, fresh, workers=workers)
    for name in fourth:
        assert (site / "games" / name).read_bytes() == (fresh / "games" / name).read_bytes()


def test_another_process_writes_every_page_again(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the pages this process wrote are trusted: a new process (here, a process
    forgetting what it wrote) writes them all, whatever is in the folder."""
    folder, games = make_store(tmp_path / "store")
    commit(folder, games, [0, 1, 2])
    site = tmp_path / "site"
    build_site(folder, site)
    first = game_pages(site)
    page = site / "games" / next(iter(first))
    page.write_text("edited by hand", encoding="utf-8")
    os.utime(page, (0, 0))
    monkeypatch.setattr(memo, "_SITES", {})
    build_site(folder, site)
    again = game_pages(site)
    assert all(again[name] != first[name] for name in first)
    assert "edited by hand" not in page.read_text(encoding="utf-8")


def test_a_process_remembers_a_bounded_number_of_sites(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memo, "_SITES", {})
    kept = [memo.written_pages(tmp_path / f"site{k}", tmp_path) for k in range(memo.SITES_KEPT + 3)]
    assert len(memo._SITES) == memo.SITES_KEPT
    assert memo.written_pages(tmp_path / "site0", tmp_path) is not kept[0]  # forgotten
    last = memo.SITES_KEPT + 2
    assert memo.written_pages(tmp_path / f"site{last}", tmp_path) is kept[last]
