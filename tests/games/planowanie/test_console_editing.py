"""The Planowanie console's line editing: ``:step N``, Tab completion of commands and
cards, the prompt_toolkit editor with its history file, and the CLI on a real terminal
(a pseudo-terminal)."""

from __future__ import annotations

import io
import sys
import threading
import time
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.output.plain_text import PlainTextOutput

from referee.cli.line_input import Interrupted, LineEditor
from referee.core.players import PlayerSpec
from referee.games.planowanie.console import COMMANDS, ConsoleConfig, ConsoleSession
from referee.games.planowanie.rules import Deck, Phase, Rules, cards_of
from terminal import Terminal

RANDOM = PlayerSpec("random", [sys.executable, "-m",
                               "referee.games.planowanie.bots.random_player", "--seed", "1"])
SMALL = Rules(Deck(), 2, ((3, 0), (2, 1)))
"""Two deals (3 cards, then 2): the program decides 1 + 3 + 1 + 2 = 7 times."""


def console(tmp_path: Path, seat: int = 1) -> tuple[ConsoleSession, io.StringIO]:
    out = io.StringIO()
    return ConsoleSession(RANDOM, tmp_path / "out", ConsoleConfig(SMALL, seat=seat, seed=3),
                          stdin=io.StringIO(""), stdout=out), out


def asked(out: io.StringIO) -> int:
    return sum(1 for line in out.getvalue().splitlines() if line.startswith("> gen_"))


def test_step_n_asks_the_program_n_times_then_stops_at_the_end(tmp_path: Path) -> None:
    session, out = console(tmp_path)
    assert session.start()
    try:
        session.execute(":new")
        session.execute(":step 3")
        assert asked(out) == 3
        session.execute(":step")
        assert asked(out) == 4
        for bad in (":step 0", ":step x", ":step 1 2"):
            session.execute(bad)
            assert out.getvalue().splitlines()[-1] == (
                "! :step takes one count of decisions, 1 or more, e.g. :step 3")
        assert asked(out) == 4
        session.execute(":step 9")
        assert asked(out) == 7
        assert out.getvalue().splitlines()[-1].startswith("# the game is over: final points")
    finally:
        session.close()


def test_completion_offers_commands_and_the_cards_that_may_be_played(tmp_path: Path) -> None:
    session, _ = console(tmp_path, seat=0)
    deck = SMALL.deck
    assert set(session.completions("")) >= {*COMMANDS, "set_deck", "gen_move", "play"}
    assert session.completions(":st") == [":step", ":state", ":stderr"]
    assert session.completions(":ST") == [":step", ":state", ":stderr"]
    assert session.completions("gen_") == ["gen_declare", "gen_move"]
    every = [deck.name(c) for c in range(deck.size)]
    assert session.completions(":play ") == every  # no game yet: any card
    assert session.completions(":play A") == [n for n in every if n.startswith("A")]
    assert session.completions(":quit ") == [] and session.completions(":step ")[0] == "1"
    assert session.start()
    try:
        session.execute(":new")
        engine = session.game.engine  # type: ignore[union-attr]
        assert session.completions(":declare ") == [str(n) for n in range(4)]
        while engine.table.phase is Phase.DECLARE or not engine.table.trick:
            session.execute(":step")
        seat = engine.to_play()
        assert seat is not None
        legal = [deck.name(c) for c in cards_of(engine.table.legal_mask(engine.hands[seat]))]
        assert session.completions(":play ") == legal
        assert session.completions("play 1 ") == legal
    finally:
        session.close()


def editor(history: Path | None, typed: list[str], notes: list[str] | None = None,
           lines: int = 1) -> list[str | None]:
    """What a LineEditor reads, ``lines`` times, when the keys ``typed`` are typed, with a
    pause after each (as a person makes: completion and history load in the
    background)."""
    with create_pipe_input() as keys:
        edit = LineEditor("> ", lambda before: [w for w in (":help", ":step", ":state")
                                               if w.startswith(before.split()[-1]
                                                               if before.strip() else "")],
                          history, notes=None if notes is None else notes.append,
                          input=keys, output=DummyOutput())

        def type_keys() -> None:
            for key in typed:
                time.sleep(0.1)
                keys.send_text(key)
                if key in ("\t", "\x1b[A"):  # (Tab and Up finish in the background)
                    time.sleep(0.5)

        typist = threading.Thread(target=type_keys)
        typist.start()
        try:
            return [edit() for _ in range(lines)]
        finally:
            typist.join()


def test_the_editor_completes_keeps_history_and_knows_ctrl_c_and_ctrl_d(tmp_path: Path
                                                                      ) -> None:
    history = tmp_path / "state" / "referee" / "console.history"
    assert editor(history, [":he", "\t", "\r"]) == [":help"]  # Tab: the only offer
    assert editor(history, ["set_deck 23 CD", "\r"]) == ["set_deck 23 CD"]
    assert history.is_file() and ":help" in history.read_text()
    # a new session: Up recalls the last line; then Up, Up the one before
    up = "\x1b[A"
    assert editor(history, [up, "\r", up, up, "\r"], lines=2) == ["set_deck 23 CD", ":help"]
    assert editor(history, ["half typed", "\x03"]) == [""]  # Ctrl-C clears the line
    assert editor(history, ["\x04"]) == [None]  # Ctrl-D ends


def test_another_thread_ends_the_line_being_read(tmp_path: Path) -> None:
    """LineEditor.interrupt (from another thread: the Mahjong console's server thread)
    ends the line being read with Interrupted, the prompt given for that line; one made
    just before the editor runs ends it at once; the next line is read as usual."""
    with create_pipe_input() as keys:
        output = io.StringIO()
        edit = LineEditor("> ", lambda before: [], None, input=keys,
                          output=PlainTextOutput(output))
        timer = threading.Timer(0.5, edit.interrupt)
        timer.start()
        start = time.monotonic()
        with pytest.raises(Interrupted):
            edit("choose: ")
        assert 0.4 < time.monotonic() - start < 10
        assert "choose:" in output.getvalue()  # (the prompt given for this line)
        edit.interrupt()  # before the editor runs: it ends as soon as it does
        with pytest.raises(Interrupted):
            edit()
        threading.Timer(0.3, keys.send_text, ["typed\r"]).start()
        assert edit() == "typed"


def test_a_history_that_cannot_be_kept_lasts_the_session(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    notes: list[str] = []
    assert editor(blocker / "console.history", [":sta", "\t", "\r"], notes) == [":state"]
    assert len(notes) == 1 and "cannot be kept in" in notes[0]
    assert "this session only" in notes[0]


def console_on_a_terminal(tmp_path: Path, history: Path) -> Terminal:
    """``referee console planowanie random`` (two players, deals of 3 and 2 cards) on a
    pseudo-terminal."""
    return Terminal([sys.executable, "-m", "referee.cli", "console", "planowanie", "random",
                     "--players", "2", "--deals", "2 3 0 2 1", "--seed", "4",
                     "--history", str(history), "--out", str(tmp_path / "out")], tmp_path)


def test_the_cli_on_a_terminal_edits_lines_and_keeps_them(tmp_path: Path) -> None:
    history = tmp_path / "history"
    terminal = console_on_a_terminal(tmp_path, history)
    try:
        terminal.wait_for(b"planowanie>")
        terminal.type(b":ne\t")  # Tab completes :new
        terminal.wait_for(rb":ne.*w")  # (drawn a piece at a time)
        terminal.type(b"\r")
        terminal.wait_for(b"# new game")
        terminal.type(b":step 2\r")
        terminal.wait_for(b"gen_move")
        terminal.wait_for(b"planowanie>(?!.*gen_move)")
        terminal.type(b"\x1b[A\x1b[A\r")  # Up, Up: ":new" again
        terminal.wait_for(b"# new game.*# new game")
        terminal.type(b":quit\r")
        assert terminal.process.wait(timeout=60) == 0
    finally:
        terminal.close()
    assert terminal.seen.count(b"# new game") >= 2, terminal.seen[-3000:]
    kept = history.read_text()
    assert [line for line in kept.splitlines() if line.startswith("+")] == [
        "+:new", "+:step 2", "+:new", "+:quit"]


def test_on_a_terminal_step_waits_for_the_person_s_seat(tmp_path: Path) -> None:
    """The CLI on a pseudo-terminal: a move typed by hand for the program's seat makes it
    the person's; :step plays the other seat, then stops at that seat's turn and waits
    (it asked the program for the card), until :release gives it back."""
    terminal = console_on_a_terminal(tmp_path, tmp_path / "history")
    try:
        terminal.wait_for(b"planowanie>")
        terminal.type(b":new\r")
        terminal.wait_for(b"# new game.*planowanie>")
        terminal.type(b":declare 1\r")
        terminal.wait_for(b"is yours now.*declares 1 by hand.*planowanie>")
        terminal.type(b":step\r")
        terminal.wait_for(b"seat 0 \\(program\\) to play: your turn.*planowanie>")
        assert b"gen_move" not in terminal.seen and b"gen_declare" not in terminal.seen
        terminal.type(b":release 0\r")
        terminal.wait_for(b"the program plays it again.*planowanie>")
        terminal.type(b":step\r")
        terminal.wait_for(b"> gen_move")
        terminal.type(b":quit\r")
        assert terminal.process.wait(timeout=60) == 0
    finally:
        terminal.close()
