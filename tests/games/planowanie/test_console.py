"""The Planowanie debug console, driven in-process and as the CLI, with real programs."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from referee.core.players import PlayerSpec
from referee.games.planowanie.console import ConsoleConfig, ConsoleSession
from referee.games.planowanie.rules import (
    Deck,
    Declare,
    PlanowanieGame,
    Rules,
    cards_of,
    tournament_deals,
)

RANDOM = PlayerSpec("random", [sys.executable, "-m",
                               "referee.games.planowanie.bots.random_player", "--seed", "1"])
SMALL = Rules(Deck(), 2, ((3, 0), (2, 1)))

# A scripted player: answers "= ok" to anything, except as its mode says. It answers
# "slow" after 2.5 s, then says "slow.late" on its stderr (its log) to say so (its working
# folder is its sandbox's own until it ends: docs/sandbox.md, "Its folders").
FAKE = textwrap.dedent("""\
    import sys, time
    mode = sys.argv[1]
    count = 0
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        count += 1
        if words[0] == "hang":
            continue
        if words[0] == "slow":
            time.sleep(2.5)
        if mode == "die" and count == 2:
            print("dying on purpose", file=sys.stderr, flush=True)
            sys.exit(3)
        if words[0] == "gen_declare" and mode in ("nan", "big"):
            answer = "= many" if mode == "nan" else "= 99"
        elif words[0] == "gen_move" and mode == "nan":
            answer = "= ZZ"
        else:
            answer = "= " + words[0]
        sys.stdout.write(answer + "\\n\\n")
        sys.stdout.flush()
        if words[0] == "slow":
            print("slow.late", file=sys.stderr, flush=True)
        if words[0] == "quit":
            break
""")


def fake(tmp_path: Path, mode: str) -> PlayerSpec:
    script = tmp_path / "fake.py"
    script.write_text(FAKE)
    return PlayerSpec("fake", [sys.executable, str(script), mode])


def session(tmp_path: Path, player: PlayerSpec, config: ConsoleConfig,
            lines: str = "") -> tuple[ConsoleSession, io.StringIO]:
    out = io.StringIO()
    return ConsoleSession(player, tmp_path / "out", config, stdin=io.StringIO(lines),
                          stdout=out), out


def run_console(tmp_path: Path, player: PlayerSpec, config: ConsoleConfig,
                lines: str) -> list[str]:
    console, out = session(tmp_path, player, config, lines)
    assert console.run() == 0
    return out.getvalue().splitlines()


def following(lines: list[str], line: str) -> str:
    """The line just after ``line``."""
    return lines[lines.index(line) + 1]


def replay_sent(rules: Rules, seed: int, seat: int, lines: list[str]) -> PlanowanieGame:
    """Check the commands the console sent (and their order, as the protocol gives it)
    and replay the game they tell on a fresh engine."""
    exchanges = [(line[2:], lines[i + 1][2:]) for i, line in enumerate(lines)
                 if line.startswith("> ")]
    start = exchanges.index((f"set_deck {rules.deck.values} {rules.deck.suits}", "="))
    exchanges = exchanges[start:]
    assert [c for c, _ in exchanges[1:3]] == [f"set_players {rules.players} {seat}",
                                              f"set_game {rules.set_game_args()}"]
    engine = PlanowanieGame(rules, seed)
    deck = rules.deck
    declared_by_program: int | None = None
    k = 3
    while exchanges[k][0] != "quit":
        command, answer = exchanges[k]
        words = command.split()
        assert answer.startswith("="), (command, answer)
        table = engine.table
        previous, following_command = exchanges[k - 1][0], exchanges[k + 1][0]
        if words[0] == "set_cards":
            mine = [deck.name(c) for c in cards_of(engine.deals[table.deal][seat])]
            assert words[1:] == [str(len(mine)), *mine]
        elif words[0] == "time_left":
            assert following_command in ("gen_declare", "gen_move")
        elif words[0] == "gen_declare":
            assert previous.startswith("time_left") and table.phase.value == "declare"
            declared_by_program = int(answer[1:])
        elif words[0] == "declare":
            told = [exchanges[k + i][0].split() for i in range(rules.players)]
            assert [w[:2] for w in told] == [["declare", str(i)] for i in range(rules.players)]
            assert int(told[seat][2]) == declared_by_program
            declared_by_program = None
            for i in range(rules.players):
                who = (table.starter + i) % rules.players
                action = Declare(int(told[who][2]))
                assert engine.illegal_reason(who, action) is None
                engine.apply(who, action)
            k += rules.players
            continue
        elif words[0] == "gen_move":
            assert previous.startswith("time_left") and engine.to_play() == seat
            assert following_command == f"play {seat} {answer[1:].strip()}"
        else:
            assert words[0] == "play", command
            who, card = int(words[1]), deck.card(words[2])
            assert card is not None and who == engine.to_play()
            assert (previous == "gen_move") == (who == seat)
            assert engine.illegal_reason(who, card) is None
            engine.apply(who, card)
        k += 1
    return engine


def test_raw_commands_and_a_whole_game(tmp_path: Path) -> None:
    config = ConsoleConfig(Rules(), seat=1, seed=5)
    lines = run_console(tmp_path, RANDOM, config, "name\nfoo bar\n:new\n:auto\n:state\n:quit\n")
    assert following(lines, "> name") == "< = planowanie-random"
    assert following(lines, "> foo bar").startswith("< ? ")
    sent = [line for line in lines if line.startswith("> ")]
    first = {verb: next(i for i, s in enumerate(sent) if s.startswith(f"> {verb} "))
             for verb in ("time_left", "declare", "play")}
    first["gen_declare"] = sent.index("> gen_declare")
    first["gen_move"] = sent.index("> gen_move")
    assert (first["time_left"] < first["gen_declare"] < first["declare"]
            < first["gen_move"]), first
    assert first["declare"] < first["play"]
    assert sum(s == "> gen_declare" for s in sent) == 13
    assert sum(s == "> gen_move" for s in sent) == sum(range(1, 14))
    assert sum(s.startswith("> play ") for s in sent) == 4 * sum(range(1, 14))
    assert sum(s.startswith("> set_cards ") for s in sent) == 13
    engine = replay_sent(Rules(), 5, 1, lines)
    assert engine.to_play() is None
    points = ", ".join(f"seat {s}: {p}" for s, p in enumerate(engine.table.points))
    assert f"# game over: final points {points}" in lines
    assert f"# the game is over (13 deals): final points {points}" in lines
    assert not any(line.startswith("!") for line in lines), lines
    assert lines[-3:] == ["> quit", "< =", "# the program exited with code 0"]


def test_step_stops_at_the_program_decision(tmp_path: Path) -> None:
    console, out = session(tmp_path, RANDOM, ConsoleConfig(SMALL, seat=1, seed=3))
    assert console.start()
    try:
        console.execute(":step")
        assert "! no game: start one with :new" in out.getvalue()
        console.execute(":new")
        console.execute(":step")
        lines = out.getvalue().splitlines()
        # seat 0 starts: it declares, then the program is asked and, the last one to
        # declare, it is told every declaration
        ask = lines.index("> gen_declare")
        assert lines[ask - 3].startswith("# seat 0 (random) declares ")
        assert lines[ask - 2:ask] == ["> time_left 180000", "< ="]
        program = lines[ask + 1].split()[-1]
        assert lines[ask + 2] == f"# seat 1 (program) declares {program} in " \
            f"{lines[ask + 2].split()[-2]} ms"
        assert lines[ask + 3:] == [f"> declare 0 {lines[ask - 3].split()[-1]}", "< =",
                                   f"> declare 1 {program}", "< ="]
        declared_ms = int(lines[ask + 2].split()[-2])
        console.execute(":step")
        lines = out.getvalue().splitlines()[len(lines):]
        assert lines[0].startswith("# seat 0 (random) plays ")
        assert lines[1:3] == [f"> play 0 {lines[0].split()[-1]}", "< ="]
        assert lines[3].startswith("> time_left ")  # what the declaration took is gone
        assert abs(int(lines[3].split()[-1]) - (180000 - declared_ms)) <= 1
        assert lines[4:6] == ["< =", "> gen_move"]
        card = lines[6][4:]
        assert lines[7:] == [f"# seat 1 (program) plays {card} in {lines[7].split()[-2]} ms",
                             f"> play 1 {card}", "< =", lines[-1]]
        assert lines[-1].startswith(f"# trick {lines[0].split()[-1]} {card} to seat ")
    finally:
        console.close()
    assert out.getvalue().splitlines()[-1] == "# the program exited with code 0"


def test_playing_by_hand(tmp_path: Path) -> None:
    seed = 11
    hands = PlanowanieGame(SMALL, seed).deals[0]
    deck = SMALL.deck
    mine = [deck.name(c) for c in cards_of(hands[0])]
    theirs = [deck.name(c) for c in cards_of(hands[1])]
    console, out = session(tmp_path, RANDOM, ConsoleConfig(SMALL, seat=0, seed=seed))
    assert console.start()
    try:
        console.execute(":new")
        console.execute(":declare 2")  # the program's seat, by hand: nothing sent yet
        console.execute(":declare 4")
        assert "! refused: seat 1 (random): declared 4, not in 0..3 (nothing sent)" in \
            out.getvalue()
        before = out.getvalue().count("\n> ")
        console.execute(":declare 1")
        lines = out.getvalue().splitlines()
        assert lines[-4:] == ["> declare 0 2", "< =", "> declare 1 1", "< ="]
        console.execute(":state")
        assert f"#   seat 0 (program): hand {' '.join(mine)} | declared 2 | tricks 0 | " \
               "points 0" in out.getvalue()
        sent = out.getvalue().count("\n> ")
        assert sent == before + 2
        console.execute(f":play {theirs[0]}")
        assert f"! refused: seat 0 (program): {theirs[0]} is not in the player's hand " \
               "(nothing sent)" in out.getvalue()
        console.execute(":play 1X")
        assert "! refused: 1X is not a card of the deck (nothing sent)" in out.getvalue()
        assert out.getvalue().count("\n> ") == sent
        console.execute(f":play {mine[0]}")
        lines = out.getvalue().splitlines()
        assert lines[-2:] == [f"> play 0 {mine[0]}", "< ="]
        assert lines[-3] == f"# seat 0 (program) plays {mine[0]} by hand"
        console.execute("name")  # the program followed: it still answers
        assert out.getvalue().splitlines()[-1] == "< = planowanie-random"
    finally:
        console.close()


def wait_for(path: Path, text: str, within: float = 20.0) -> None:
    """Wait until file ``path`` holds ``text`` (at most ``within`` seconds)."""
    limit = time.monotonic() + within
    while not (path.exists() and text in path.read_text()):
        assert time.monotonic() < limit, f"{text!r} did not appear in {path}"
        time.sleep(0.05)


def test_a_program_that_never_answers(tmp_path: Path) -> None:
    # 1 s for each answer; the slow one comes after 2.5 s
    config = ConsoleConfig(SMALL, timeout_ms=1000, grace=0.5)
    console, out = session(tmp_path, fake(tmp_path, "plain"), config)
    assert console.start()
    try:
        console.execute("hang")
        assert out.getvalue().splitlines()[-2:] == ["> hang", "! no answer within 1000 ms"]
        console.execute("name")  # still usable
        assert out.getvalue().splitlines()[-2:] == ["> name", "< = name"]
        console.execute("slow")
        assert out.getvalue().splitlines()[-1] == "! no answer within 1000 ms"
        wait_for(tmp_path / "out" / "logs" / "fake.stderr.log", "slow.late")  # it was sent
        console.execute("version")  # the late answer is shown as such, not as this one's
        assert out.getvalue().splitlines()[-3:] == [
            "< = slow   (late: sent after its answer was over)", "> version", "< = version"]
        console.execute(":help")
        assert any(line.startswith("#   :quit") for line in out.getvalue().splitlines()[-6:])
    finally:
        console.close()
    assert out.getvalue().splitlines()[-2:] == ["# the program exited with code 0",
                                                "[stderr] slow.late"]


def test_a_program_that_ignores_quit_is_killed_only_then(tmp_path: Path) -> None:
    config = ConsoleConfig(SMALL, timeout_ms=1000, grace=0.5)
    lines = run_console(tmp_path, fake(tmp_path, "plain"), config, "name\n")
    assert "> name" in lines and "> quit" in lines
    # a program that answers quit and ends by itself is never killed
    assert lines[-1] == "# the program exited with code 0"
    script = tmp_path / "deaf.py"
    script.write_text("import sys, time\nfor line in sys.stdin:\n    time.sleep(30)\n")
    lines = run_console(tmp_path, PlayerSpec("deaf", [sys.executable, str(script)]),
                        config, "")
    assert lines[-4:-1] == ["> quit", "! no answer within 1000 ms",
                            "! the program did not exit within 0.5 s after quit: killing it"]
    assert lines[-1].startswith("# killed")


def test_a_program_that_exits_mid_session(tmp_path: Path) -> None:
    config = ConsoleConfig(SMALL, timeout_ms=2000)
    lines = run_console(tmp_path, fake(tmp_path, "die"), config,
                        "name\nversion\n:new\n:state\nname\n:quit\n")
    assert following(lines, "> name") == "< = name"
    gone = next(i for i, line in enumerate(lines) if "the program is gone" in line)
    assert lines[gone - 1] == "> version"
    assert "exit code 3" in lines[gone]
    assert "[stderr] dying on purpose" in lines
    assert lines.count("! the program is not running (exit code 3)") == 2  # :new and name
    assert "! no game: start one with :new" in lines
    assert "> quit" not in lines  # :quit just ends


def test_invalid_answers_stop_driving(tmp_path: Path) -> None:
    config = ConsoleConfig(SMALL, seat=0, timeout_ms=2000)
    lines = run_console(tmp_path, fake(tmp_path, "big"), config,
                        ":new\n:auto\n:declare 1\n:step\n:release 0\n:step\n:quit\n")
    text = "\n".join(lines)
    assert "! the program chose declare 99: declared 99, not in 0..3" in text
    stop = lines.index("! the program chose declare 99: declared 99, not in 0..3")
    assert lines[stop + 1].startswith("! stopped driving the game")
    assert lines[stop + 2] == ("# seat 0 (program) is yours now: :step and :auto wait for "
                               "your moves there (:release 0: the program plays it)")
    assert lines[stop + 3] == "# seat 0 (program) declares 1 by hand"
    # :step goes on: the opponent declares, everything is revealed, and seat 0, the
    # person's now, is to play: the console waits for the person
    assert lines[stop + 4].startswith("# seat 1 (random) declares ")
    assert lines[stop + 5:stop + 8] == ["> declare 0 1", "< = declare",
                                        f"> declare 1 {lines[stop + 4].split()[-1]}"]
    assert lines[stop + 9].startswith("# seat 0 (program) to play: your turn (the seat is "
                                      "yours); :play CARD, one of ")
    # given back, the program is asked again
    assert lines[stop + 10] == "# seat 0 (program): the program plays it again"
    # (its game clock: 180 s less what its answers took, a few ms on a loaded machine)
    assert lines[stop + 11].startswith("> time_left ")
    assert 179_000 <= int(lines[stop + 11].split()[-1]) <= 180_000, lines[stop + 11]
    assert lines[stop + 12:stop + 15] == ["< = time_left", "> gen_move", "< = gen_move"]
    assert lines[stop + 15] == "! the program played 'gen_move': not a card"

    lines = run_console(tmp_path, fake(tmp_path, "nan"), config, ":new\n:step\n:quit\n")
    assert "! the program declared 'many': not a number" in lines


def test_refusals_and_bad_console_input_keep_the_console(tmp_path: Path) -> None:
    lines = run_console(tmp_path, RANDOM, ConsoleConfig(SMALL),
                        ":bogus\n:declare x\n:play\n:new 1 2\n:state\n:new 7\n:auto\n"
                        ":auto\n:play 2C\nname\n")
    assert "! unknown console command :bogus (:help lists them)" in lines
    assert "! :declare needs one number, e.g. :declare 2" in lines
    assert "! :play needs one card, e.g. :play TD" in lines
    assert "! :new takes at most one number, the seed" in lines
    assert lines.count("! no game: start one with :new") == 1
    assert any(line.startswith("# new game, seed 7:") for line in lines)
    assert any(line.startswith("# the game is over: final points") for line in lines)
    assert "! refused: the game is over (nothing sent)" in lines
    assert following(lines, "> name") == "< = planowanie-random"
    assert lines[-1] == "# the program exited with code 0"


def test_heuristic_opponents(tmp_path: Path) -> None:
    pytest.importorskip("referee.games.planowanie.bots.heuristic_player")
    config = ConsoleConfig(Rules(Deck(), 3, tournament_deals(3, 4)), seat=2, seed=4,
                           opponents="heuristic")
    lines = run_console(tmp_path, RANDOM, config, ":new\n:auto\n")
    assert "opponents heuristic" in lines[2]
    assert any(line.startswith("# seat 0 (heuristic) plays") for line in lines)
    assert any(line.startswith("# game over: final points") for line in lines)
    assert not any(line.startswith("!") for line in lines)


def test_the_cli(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "referee.cli", "console", "planowanie",
                          "random", "--seed", "2"], input=":new\n:auto\n:quit\n",
                         capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert any(line.startswith("# game over: final points seat 0: ") for line in lines)
    assert lines[-1] == "# the program exited with code 0"
    assert (tmp_path / "referee-out").is_dir()
    bad = subprocess.run([sys.executable, "-m", "referee.cli", "console", "planowanie",
                          "random", "--players", "2", "--seat", "2"], input="",
                         capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert bad.returncode == 2 and "seat 2 is not one of 0..1" in bad.stderr


def legal_cards(console: ConsoleSession) -> list[str]:
    """The cards the seat to play may play now, in the console's game."""
    game = console.game
    assert game is not None
    engine = game.engine
    return [engine.notation(a) for a in engine.legal_actions() if isinstance(a, int)]


def test_the_console_waits_at_the_turns_of_a_seat_played_by_hand(tmp_path: Path) -> None:
    """A seat whose move was typed by hand is the person's: :step and :auto stop at its
    turn and wait (they played the other seats, then asked the program for the person's
    card); :release gives it back; :take makes a seat the person's before its turn."""
    console, out = session(tmp_path, RANDOM, ConsoleConfig(SMALL, seat=0, seed=4))
    assert console.start()
    try:
        console.execute(":new")
        console.execute(":declare 1")  # the program's seat, by hand: the person's now
        assert "# seat 0 (program) is yours now" in out.getvalue()
        console.execute(":step")
        lines = out.getvalue().splitlines()
        assert lines[-1].startswith("# seat 0 (program) to play: your turn (the seat is "
                                    "yours); :play CARD, one of ")
        assert lines[-1].split("one of ")[1].split(" (")[0].split() == legal_cards(console)
        assert not any(line.startswith("> gen_") for line in lines)  # the program not asked
        console.execute(":step 3")  # waits again, asking nobody
        assert out.getvalue().splitlines()[len(lines):] == [lines[-1]]
        console.execute(f":play {legal_cards(console)[0]}")
        console.execute(":auto")  # the opponent answers; the next turn of seat 0 stops it
        lines = out.getvalue().splitlines()
        assert lines[-1].startswith("# seat 0 (program) to play: your turn")
        assert not any(line.startswith("> gen_") for line in lines)
        assert console.game is not None and not console.game.over
        console.execute(":release 0")
        console.execute(":auto")  # the program plays its seat again, to the end
        lines = out.getvalue().splitlines()
        assert "> gen_move" in lines and lines[-1].startswith("# game over: final points")
        # an opponent's seat: played by hand once, it waits for the person too; :take
        console.execute(":new")
        start = len(out.getvalue().splitlines())
        console.execute(":take 1")
        for _ in range(3):  # the program declares; then seat 1 is to declare
            console.execute(":step")
        lines = out.getvalue().splitlines()[start:]
        assert lines[0].startswith("# seat 1 (random) is yours: :step and :auto wait")
        assert lines[-1].startswith("# seat 1 (random) to declare: your turn (the seat is "
                                    "yours); :declare N, one of 0 1 2 3")
        assert lines.count(lines[-1]) == 2  # the third :step waited too
        assert not any(line.startswith("# seat 1 (random) declares") for line in lines)
        console.execute(":release 1")
        console.execute(":release 1")
        assert out.getvalue().splitlines()[-1] == "! seat 1 is not yours (yours: none)"
    finally:
        console.close()
