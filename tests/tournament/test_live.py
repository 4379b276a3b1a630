"""The live view's sources: the move listener of records (per thread), and the board of
the games in progress that a tournament writes to ``live.json``."""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path

import pytest

from referee.core.record import GameRecord, PlayerInfo, move_listener
from referee.tournament.live import LiveBoard, moves_file
from referee.tournament.report.live_games import LiveGames


def record() -> GameRecord:
    return GameRecord("gomoku", [PlayerInfo("a"), PlayerInfo("b")])


def test_a_move_listener_hears_its_own_thread_only() -> None:
    heard: list[int] = []
    mine = record()
    with move_listener(lambda r: heard.append(len(r.moves))):
        mine.add_move(0, "7,7", 0.1)
        other = threading.Thread(target=lambda: record().add_move(1, "1,1", 0.1))
        other.start()
        other.join()
        with move_listener(lambda r: heard.append(-1)):  # nested: the inner one, then back
            mine.add_move(1, "8,8", 0.1)
        mine.add_move(0, "9,9", 0.1)
    mine.add_move(1, "6,6", 0.1)
    assert heard == [1, -1, 3]


def test_the_board_writes_the_games_in_progress(tmp_path: Path) -> None:
    path = tmp_path / "live.json"
    board = LiveBoard(path, total=4, done=1, every=3600)
    board.start("r1:g2", 1, ["threat", "random"])
    shown = json.loads(path.read_text())
    assert shown["total"] == 4 and shown["done"] == 1
    assert [(g["key"], g["players"], g["moves"], g["last"]) for g in shown["games"]] == [
        ("r1:g2", ["threat", "random"], 0, None)]
    game = record()
    game.add_move(0, "7,7", 0.2)
    board.moved("r1:g2", game)  # not written yet: within `every`
    assert json.loads(path.read_text())["games"][0]["moves"] == 0
    board.every = 0
    game.add_move(1, "x" * 500, 0.2)
    board.moved("r1:g2", game)
    written = json.loads(path.read_text())["games"][0]
    assert written["moves"] == 2 and written["last"] == {"seat": 1, "move": "x" * 200}
    board.moved("r9:g9", game)  # a game it does not know: nothing
    board.every = 3600
    game.add_move(0, "9,9", 0.2)  # the game's thread goes on; another game's start
    board.start("r1:g5", 1, ["c", "d"])  # writes the file: every game as it is now
    assert json.loads(path.read_text())["games"][0]["moves"] == 3
    # the moves so far, in the game's file: its head, then one line a move
    entry = json.loads(path.read_text())["games"][0]
    assert entry["file"] == moves_file("r1:g2") and entry["last_at"] > 0
    head, *moves = [json.loads(line) for line in (tmp_path / entry["file"]).read_text(
        encoding="utf-8").splitlines()]
    assert head == {"game": "gomoku", "players": ["a", "b"], "settings": {}, "seed": None,
                    "opening": [], "round": 1, "key": "r1:g2"}
    assert [(m["seat"], m["move"]) for m in moves] == [(0, "7,7"), (1, "x" * 500), (0, "9,9")]
    assert json.loads(path.read_text())["games"][1]["file"] is None  # no move yet
    assert moves_file("r1:g2") != moves_file("r1_g2")  # (keys alike as file names)
    board.finish("r1:g5", 1)
    board.finish("r1:g2", 2)
    assert json.loads(path.read_text())["games"] == []
    assert not (tmp_path / entry["file"]).exists()  # its record is in the store now
    assert json.loads(path.read_text())["done"] == 2
    board.start("r1:g3", 1, ["a", "b"])
    board.start("r1:g4", 1, ["c", "d"])
    assert len(json.loads(path.read_text())["games"]) == 2
    board.clear(2)  # the run stopped
    assert json.loads(path.read_text())["games"] == []
    assert not [p for p in tmp_path.iterdir() if p.name != "live.json"]  # no temporaries


def test_a_board_that_cannot_write_says_so_once_and_goes_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    board = LiveBoard(blocker / "live.json", every=0)  # (a file as its folder: refused)
    game = record()
    with caplog.at_level(logging.WARNING):
        board.start("k", 1, ["a", "b"])
        board.moved("k", game)  # no move yet: nothing to say
        game.add_move(0, "7,7", 0.1)
        board.moved("k", game)
        board.finish("k", 1)
    assert sum("cannot be written" in r.message for r in caplog.records) == 1
    assert board.done == 1 and not board.games


def test_the_server_reads_the_games_as_they_grow_and_draws_their_boards(
        tmp_path: Path) -> None:
    """What the tournament writes (``LiveBoard``) the server reads as it grows
    (``LiveGames``): the last move in the game's notation, a board of the moves so far (the
    game's replay, made once per move count), a game played again read afresh, and a game
    no longer played said so, with its page once the store has it finished."""
    board = LiveBoard(tmp_path / "live.json", total=2, every=0)
    game = GameRecord("gomoku", [PlayerInfo("a"), PlayerInfo("b")],
                      settings={"width": 9, "height": 9, "rule": "freestyle", "black": 0},
                      seed=4)
    board.start("r1:a:b:o-:a", 1, ["a", "b"])
    games = LiveGames(tmp_path)
    assert json.loads(games.refresh())["games"][0]["last"] is None
    assert games.page("r1:a:b:o-:a")[0] == 200  # (no move yet: the players, no board)
    for k, move in enumerate(["4,4", "5,5", "3,4"]):
        game.add_move(k % 2, move, 0.01)
        board.moved("r1:a:b:o-:a", game)
        shown = json.loads(games.refresh())["games"][0]
        assert shown["moves"] == k + 1 and shown["board"] == "/_live/game/r1%3Aa%3Ab%3Ao-%3Aa"
    assert shown["last"] == {"seat": 0, "who": "a", "move": "3,4", "text": "d5"}
    status, page = games.page("r1:a:b:o-:a")
    assert status == 200 and 'data-live-key="r1:a:b:o-:a" data-moves="3"' in page
    assert page.count('<li id="m') == 3 and ">e5</b>" in page and ">d5</b>" in page
    assert "seat 1 a (black), seat 2 b (white)" in page and 'src="../../static/replay.js"' in page
    assert games.page("r1:a:b:o-:a")[1] is page  # the same board for the same moves
    moves = tmp_path / moves_file("r1:a:b:o-:a")
    with open(moves, "a", encoding="utf-8") as handle:  # a line still being written
        handle.write('{"seat": 1, "move": "6,6"')
    assert json.loads(games.refresh())["games"][0]["moves"] == 3
    with open(moves, "a", encoding="utf-8") as handle:
        handle.write(', "ms": 1.0}\n')
    board.write()  # (the next write of live.json)
    assert json.loads(games.refresh())["games"][0]["last"]["text"] == "g7"
    # the game is played again (a resumed tournament): its new file is read from its start
    board.finish("r1:a:b:o-:a", 0)
    board.start("r1:a:b:o-:a", 1, ["a", "b"])
    again = GameRecord("gomoku", game.players, dict(game.settings), seed=4)
    again.add_move(0, "0,0", 0.01)
    board.moved("r1:a:b:o-:a", again)
    shown = json.loads(games.refresh())["games"][0]
    assert shown["moves"] == 1 and shown["last"]["text"] == "a1"
    board.finish("r1:a:b:o-:a", 1)
    games.refresh()
    status, page = games.page("r1:a:b:o-:a")
    assert status == 404 and "is not being played" in page and "data-live-key" not in page
