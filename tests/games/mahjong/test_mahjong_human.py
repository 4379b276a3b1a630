"""The person's console: each answer said in words, with the tiles it uses; on a terminal,
its line editor, and the dummy AI's takeover told (a real server, wrappers and a
pseudo-terminal)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from referee.games.mahjong import rules
from referee.games.mahjong.human import describe, tile_text
from terminal import Terminal


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


def test_on_a_terminal_the_person_edits_lines_and_is_told_of_the_takeover(
        tmp_path: Path) -> None:
    """`connect mahjong --human` on a pseudo-terminal reads with the line editor: the
    arrows move in the line (they typed ^[[D); when the person's time runs out while the
    editor waits, the editor is cut short and the person told that the dummy AI took the
    seat, and why."""
    server = subprocess.Popen([sys.executable, "-m", "referee.cli", "serve", "mahjong",
                               "--port", "0", "--seed", "7", "--hands", "1", "--human-time",
                               "3s", "--out", str(tmp_path / "server")],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    terminal: Terminal | None = None
    try:
        assert server.stderr is not None
        port = int(server.stderr.readline().rsplit(":", 1)[1])
        ais = [subprocess.Popen([sys.executable, "-m", "referee.cli", "connect", "mahjong",
                                 "--port", str(port), "--id", str(seat), "--out",
                                 str(tmp_path / f"w{seat}"), "--", "greedy"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
               for seat in (1, 2, 3)]
        terminal = Terminal([sys.executable, "-m", "referee.cli", "connect", "mahjong",
                             "--port", str(port), "--id", "4", "--out",
                             str(tmp_path / "human"), "--human"], tmp_path, columns=200)
        terminal.wait_for(rb"You have 3 s for each answer.*Your choice \(1-\d+")
        terminal.type(b"1x\x1b[D\x1b[3~\r")  # 1, x, Left, Delete: "1"
        terminal.wait_for(rb"Your choice.*Your choice \(1-\d+", seconds=30)
        assert b"Type a number" not in terminal.seen  # the line was "1", not its keys
        # no answer now: after 3 s the server's dummy AI takes the seat, the editor is
        # cut short and the person told
        terminal.wait_for(rb"\*\*\* The server's dummy AI has taken your seat for the rest "
                          rb"of this hand: no answer of yours reached it within the 3 s it "
                          rb"gives you", seconds=30)
        assert terminal.process.wait(timeout=60) == 0  # the server closed: the game is over
        assert b"Hand over" not in terminal.seen
        assert server.wait(timeout=60) == 0
        for ai in ais:
            assert ai.wait(timeout=10) == 0
    finally:
        if terminal is not None:
            terminal.close()
        if server.poll() is None:
            server.kill()
            server.wait()
    record = json.loads((tmp_path / "server" / "game-001.json").read_text())
    answers = [m for m in record["moves"] if m["seat"] == 3]
    assert answers[0]["move"] in terminal.seen.decode(errors="replace").split(" 1. ")[1]
    assert [(f["seat"], f["outcome"]) for f in record["faults"]] == [(3, "timeout")]
