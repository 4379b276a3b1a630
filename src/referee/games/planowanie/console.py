"""A debug console for Planowanie player programs, like the contest's testing applet.

``ConsoleSession`` starts one player program and reads console lines from a stream:

- a line that does not start with ``:`` is sent to the program as it is, and its answer
  is shown (every line up to the empty line that ends it, or a clear note when none came
  within the timeout);
- ``:new`` starts a game the console referees (``set_deck``, ``set_players``,
  ``set_game``, ``set_cards``); the other seats are played in-process by a built-in
  strategy; ``:step`` and ``:auto`` drive the game with exactly the commands the referee
  sends; ``:declare`` and ``:play`` act by hand for the seat whose turn it is, which makes
  it the person's seat (as ``:take`` does): ``:step`` and ``:auto`` stop at its turn and
  wait for the person's move, until ``:release`` gives it back;
- ``:quit`` (or the end of the input) sends ``quit`` and lets the program exit by itself.

Everything sent is shown as ``> command``, everything received as ``< line``; the
console's own notes start with ``#``, problems with ``!``. No error in a command ends the
console: it reports it and reads the next line.
"""

from __future__ import annotations

import logging
import shlex
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from referee.core.errors import BotFault, ConfigError
from referee.core.outcome import Outcome
from referee.core.players import PlayerSpec, start_player
from referee.core.process import BotProcess
from referee.core.sandbox import SandboxConfig, plan_sandbox
from referee.core.text import parse_int
from referee.games.planowanie.bots.player import Strategy
from referee.games.planowanie.console_game import (
    DECIDED,
    OPPONENTS,
    OVER,
    YOURS,
    ConsoleGame,
    make_opponent,
)
from referee.games.planowanie.rules import (
    Action,
    Declare,
    Phase,
    Rules,
    cards_of,
    deal_views,
    seat_summary,
    show_action,
    trick_summary,
)

log = logging.getLogger(__name__)

COMMANDS = (":new", ":step", ":auto", ":state", ":declare", ":play", ":take", ":release",
            ":stderr", ":help", ":quit")
"""The console's own commands, as completion offers them."""

PROTOCOL = ("set_deck", "set_players", "set_game", "set_cards", "time_left", "gen_declare",
            "gen_move", "declare", "play", "quit")
"""The commands of the protocol a person may send by hand, as completion offers them."""

LATE_WAIT = 0.2
"""Seconds to wait for a late answer before the next command, after a timeout."""

STDERR_TAIL = 40
"""Lines of the program's stderr shown when it exits."""

HELP = """\
# Console commands (any other line is sent to the program as it is):
#   :new [SEED]   start a game: set_deck, set_players, set_game, set_cards
#                 (SEED: other deals than the configured seed)
#   :step [N]     play the other seats up to the program's next decision, and that one
#                 (N times: its next N decisions); it stops at a turn of yours
#   :auto         play to the end of the game and show the final points (or up to a
#                 turn of yours)
#   :state        the deal, the hands, declarations, the trick, tricks and points
#   :declare N    declare N tricks for the seat whose turn it is (by hand)
#   :play CARD    play CARD (e.g. TD) for the seat whose turn it is (by hand)
#                 A seat whose move you typed is yours from then on: :step and :auto
#                 stop at its turn and wait for your :declare or :play.
#   :take SEAT    play SEAT by hand from now on (its turns wait for you)
#   :release [SEAT]  give SEAT (without SEAT: every seat of yours) back to the program
#                 or to its strategy
#   :stderr       the program's stderr output not shown yet
#   :help         this list
#   :quit         send quit, let the program exit, end the console (also: end of input)
# Sent lines show as '> line', the program's lines as '< line'. Game commands typed
# as raw lines (e.g. 'play 1 AS') reach the program but not the console's game:
# :declare and :play move the game on."""


@dataclass(frozen=True)
class ConsoleConfig:
    """The game the console referees and how patiently it waits for the program."""

    rules: Rules = field(default_factory=Rules)
    seat: int = 0
    """The program's seat."""
    seed: int = 0
    """Seed of the deals and of the opponents' strategies."""
    opponents: str = "random"
    """The built-in strategy of the other seats (one of ``OPPONENTS``)."""
    timeout_ms: int = 10_000
    """How long to wait for each answer."""
    time_ms: int = 180_000
    """The game clock told with ``time_left`` (reported, not enforced)."""
    grace: float = 3.0
    """Seconds the program has to exit after ``quit`` before it is killed."""
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    """The program's sandbox, as in a match (never suspended: a person drives it)."""

    def __post_init__(self) -> None:
        if not 0 <= self.seat < self.rules.players:
            raise ConfigError(f"seat {self.seat} is not one of 0..{self.rules.players - 1}")
        if self.opponents not in OPPONENTS:
            raise ConfigError(f"opponents must be one of {', '.join(OPPONENTS)}, "
                              f"got {self.opponents!r}")
        if self.timeout_ms <= 0:
            raise ConfigError(f"the answer timeout must be positive, got {self.timeout_ms}")
        if self.time_ms < 0:
            raise ConfigError(f"the game time must not be negative, got {self.time_ms}")


@dataclass
class Answer:
    """What the program sent back to one command."""

    lines: list[str]
    complete: bool
    """Whether an empty line ended it in time."""

    @property
    def sign(self) -> str:
        """``=``, ``?``, or whatever the first line starts with (``""`` if nothing)."""
        return self.lines[0][:1] if self.lines else ""

    @property
    def text(self) -> str:
        """The first line after its sign."""
        return self.lines[0][1:].strip() if self.lines else ""


class DriveStop(Exception):
    """The console stops driving the game; the message says why."""


class Refused(Exception):
    """An action typed by hand that the rules do not allow (nothing is sent)."""


class ProgramGone(Exception):
    """The program is not running any more (already reported)."""


class ConsoleSession:
    """One program, a person typing console lines, and the game the console referees.

    ``stdin``/``stdout`` are the person's streams (any text streams: tests drive it with
    ``io.StringIO``). ``run`` starts the program, executes every line, then ends the
    program politely; ``start``, ``execute`` and ``close`` do the same step by step.
    """

    def __init__(self, player: PlayerSpec, work_dir: Path, config: ConsoleConfig, *,
                 stdin: TextIO, stdout: TextIO, prompt: str = "",
                 reader: Callable[[], str | None] | None = None) -> None:
        self.player = player
        self.reader = reader
        """Where lines come from instead of ``stdin`` (a line editor), if given: the
        next line, ``None`` at the end."""
        self.work_dir = work_dir
        self.config = config
        self.stdin = stdin
        self.stdout = stdout
        self.prompt = prompt
        self.process: BotProcess | None = None
        self.game: ConsoleGame | None = None
        self.dead = False
        """The program has exited (and the console has said so)."""
        self.closed = False
        self._stale = False
        self._stderr_pos = 0

    # -- the person's side --------------------------------------------------------------
    def say(self, text: str) -> None:
        """Write one line (or several) to the person."""
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def run(self) -> int:
        """Start the program, execute every input line, end it; 0, or 1 if it cannot start."""
        if not self.start():
            return 1
        try:
            while True:
                line = self._next_input()
                if line is None:
                    break
                try:
                    if not self.execute(line):
                        break
                except KeyboardInterrupt:
                    self.say("! interrupted")
        finally:
            self.close()
        return 0

    def _next_input(self) -> str | None:
        """The next input line, ``None`` at the end of the input (or Ctrl-C while waiting)."""
        if self.reader is not None:
            return self.reader()
        if self.prompt:
            self.stdout.write(self.prompt)
            self.stdout.flush()
        try:
            line = self.stdin.readline()
        except KeyboardInterrupt:
            self.say("")
            return None
        if not line:
            if self.prompt:
                self.say("")
            return None
        return line.rstrip("\r\n")

    def start(self) -> bool:
        """Start the program; ``False`` (and a note) if it cannot run."""
        try:
            self.process = start_player(self.player, self.work_dir, seed=self.config.seed,
                                        sandbox=plan_sandbox(self.config.sandbox))
        except BotFault as fault:
            self.say(f"! cannot start {self.player.name}: {fault.reason}")
            return False
        process = self.process
        log.info("console: started %s (pid %s)", self.player.name, process.pid)
        self.say(f"# started {self.player.name} (pid {process.pid}): "
                 f"{shlex.join(self.player.command)}")
        self.say(f"# its stderr goes to {process.stderr_log}; :help lists the commands")
        return True

    def execute(self, line: str) -> bool:
        """Carry out one console line; ``False`` when the console should end (``:quit``)."""
        text = line.strip()
        if not text:
            return True
        self._check_alive()
        try:
            if text.startswith(":"):
                return self._console_command(text)
            self._raw(text)
        except ProgramGone:
            pass
        except DriveStop as stop:
            self.say(f"! {stop}")
            self.say("! stopped driving the game: act by hand (:declare, :play), "
                     ":step to ask again, or send commands")
        except Refused as refused:
            self.say(f"! refused: {refused} (nothing sent)")
        except (ConfigError, ValueError) as exc:
            self.say(f"! {exc}")
        except Exception as exc:  # the console outlives any bug in a command
            log.exception("console command %r failed", text)
            self.say(f"! the console failed on this line ({type(exc).__name__}: {exc}); "
                     "it goes on, and -v shows the details")
        return True

    def _console_command(self, text: str) -> bool:
        words = text.split()
        name, args = words[0][1:].lower(), words[1:]
        if name in ("quit", "q", "exit"):
            return False
        if name in ("help", "h", "?"):
            self.say(HELP)
        elif name == "new":
            self._new_game(args)
        elif name in ("step", "auto"):
            times = 1
            if name == "step" and args:
                count = parse_int(args[0]) if len(args) == 1 else None
                if count is None or count < 1:
                    raise ConfigError(":step takes one count of decisions, 1 or more, "
                                      "e.g. :step 3")
                times = count
            game = self._need_game()
            self._need_program()
            if game.over:
                self.say(f"# the game is over: final points {game.points_text()}")
            elif name == "step":
                for _ in range(times):
                    stop = self._step()
                    if stop == OVER:
                        self.say(f"# the game is over: final points {game.points_text()}")
                    if stop != DECIDED:
                        break
            else:
                while self._step() == DECIDED:
                    pass
        elif name == "state":
            self._state()
        elif name == "declare":
            tricks = parse_int(args[0]) if len(args) == 1 else None
            if tricks is None:
                raise ConfigError(":declare needs one number, e.g. :declare 2")
            self._by_hand(Declare(tricks))
        elif name == "play":
            if len(args) != 1:
                raise ConfigError(":play needs one card, e.g. :play TD")
            game = self._need_game()
            card = game.engine.rules.deck.card(args[0].upper())
            if card is None:
                raise Refused(f"{args[0]} is not a card of the deck")
            self._by_hand(card)
        elif name == "take":
            self._take(args)
        elif name == "release":
            self._release(args)
        elif name == "stderr":
            if not self._show_stderr():
                self.say("# no new stderr output")
        else:
            self.say(f"! unknown console command :{name} (:help lists them)")
        return True

    def completions(self, before: str) -> list[str]:
        """What may complete the line typed so far (``before``): the console's commands,
        the protocol's, cards for ``:play`` (the legal ones when a game is on), counts
        for ``:declare``, opponents... Each is the whole word that replaces the last."""
        words = before.split()
        starting = not words or before[-1:].isspace()
        typed = "" if starting else words[-1]
        done = words if starting else words[:-1]
        if not done:
            options: Sequence[str] = (*COMMANDS, *PROTOCOL)
        else:
            options = self._arguments(done[0], len(done))
        return [o for o in options if o.lower().startswith(typed.lower())]

    def _arguments(self, command: str, position: int) -> Sequence[str]:
        """The words that may follow ``command`` as its ``position``-th word."""
        game = self.game if self.game is not None and not self.game.over else None
        if (command, position) in ((":play", 1), ("play", 2)):
            deck = self.config.rules.deck
            engine = game.engine if game is not None else None
            seat = engine.to_play() if engine is not None else None
            if engine is not None and seat is not None and engine.table.phase is Phase.PLAY:
                return [deck.name(c)
                        for c in cards_of(engine.table.legal_mask(engine.hands[seat]))]
            return [deck.name(c) for c in range(deck.size)]
        if (command, position) == (":declare", 1) and game is not None:
            return [str(n) for n in range(game.engine.table.cards + 1)]
        if (command, position) == (":step", 1):
            return [str(n) for n in range(1, 10)]
        if (command, position) == (":take", 1):
            return [str(n) for n in range(self.config.rules.players)]
        if (command, position) == (":release", 1) and self.game is not None:
            return [str(n) for n in sorted(self.game.yours)]
        return ()

    # -- the program's side -------------------------------------------------------------
    def _check_alive(self) -> None:
        """Report (once) a program that has exited since the last command."""
        process = self.process
        if process is not None and not self.dead and process.returncode is not None:
            self._gone(f"the program exited with code {process.returncode}")

    def _gone(self, reason: str) -> None:
        self.dead = True
        log.info("console: %s", reason)
        self.say(f"! {reason}")
        if self.process is not None:
            self.process.wait_stderr()
        self._show_stderr(tail=STDERR_TAIL)
        self.say("# only :state, :help and :quit are of use now")

    def _need_program(self) -> BotProcess:
        if self.process is None or self.dead:
            code = self.process.returncode if self.process is not None else None
            self.say(f"! the program is not running (exit code {code})")
            raise ProgramGone
        return self.process

    def _raw(self, command: str) -> Answer:
        """Send a line as typed and show its answer."""
        return self._exchange(command)

    def _exchange(self, command: str) -> Answer:
        """Send one line and read its answer up to the empty line, showing both.

        A missing answer is noted (the answer is then incomplete); a program that exits
        is reported and ``ProgramGone`` raised.
        """
        process = self._need_program()
        self._drain_late(process)
        timeout = self.config.timeout_ms
        self.say(f"> {command}")
        log.debug("console > %s", command)
        deadline = time.monotonic() + timeout / 1000
        lines: list[str] = []
        try:
            process.send(command + "\n", deadline)
            while True:
                line = process.read_line(deadline, keep_empty=True)
                if line == "":
                    if lines:
                        return Answer(lines, True)
                    continue  # an empty line before the answer: not part of it
                lines.append(line)
                log.debug("console < %s", line)
                self.say(f"< {line}")
        except BotFault as fault:
            if fault.outcome is Outcome.TIMEOUT:
                self._stale = True
                if lines:
                    self.say(f"! no empty line ended the answer within {timeout} ms")
                else:
                    self.say(f"! no answer within {timeout} ms")
                return Answer(lines, False)
            self._gone(f"the program is gone: {fault.reason}")
            raise ProgramGone from None

    def _drain_late(self, process: BotProcess) -> None:
        """Show what the program sent after an answer was over (late or extra lines)."""
        wait = LATE_WAIT if self._stale else 0.0
        self._stale = False
        deadline = time.monotonic() + wait
        while True:
            line = process.pending_line()
            if line is None:
                if wait <= 0:
                    return
                try:
                    line = process.read_line(deadline)
                except BotFault:
                    return
            self.say(f"< {line}   (late: sent after its answer was over)")

    def _show_stderr(self, tail: int | None = None) -> bool:
        """Show the program's stderr not shown yet (only the last ``tail`` lines if given)."""
        path = self.process.stderr_log if self.process is not None else None
        if path is None or not path.exists():
            return False
        with path.open("rb") as stream:
            stream.seek(self._stderr_pos)
            data = stream.read()
        self._stderr_pos += len(data)
        lines = data.decode("utf-8", errors="replace").splitlines()
        if not lines:
            return False
        if tail is not None and len(lines) > tail:
            self.say(f"# ... {len(lines) - tail} earlier stderr lines in {path}")
            lines = lines[-tail:]
        for line in lines:
            self.say(f"[stderr] {line}")
        return True

    def _tell(self, command: str, *, may_refuse: bool = False) -> Answer:
        """A game command: its answer must be complete and ``=`` (``?`` if ``may_refuse``)."""
        answer = self._exchange(command)
        verb = command.split()[0]
        if not answer.complete:
            raise DriveStop(f"no complete answer to {verb}")
        if answer.sign not in ("=", "?"):
            raise DriveStop(f"the answer to {verb} does not start with = or ?")
        if answer.sign == "?" and not may_refuse:
            raise DriveStop(f"the program refused {verb}: {answer.text or 'no reason given'}")
        return answer

    # -- the game -----------------------------------------------------------------------
    def _need_game(self) -> ConsoleGame:
        if self.game is None:
            raise ConfigError("no game: start one with :new")
        return self.game

    def _new_game(self, args: Sequence[str]) -> None:
        if len(args) > 1 or (args and parse_int(args[0]) is None):
            raise ConfigError(":new takes at most one number, the seed")
        self._need_program()
        config = self.config
        rules = config.rules
        seed = int(args[0]) if args else config.seed
        strategies: dict[int, Strategy] = {}
        notes: set[str] = set()
        label = config.opponents
        for seat in range(rules.players):
            if seat != config.seat:
                strategies[seat], note = make_opponent(config.opponents, seed * 10 + seat)
                if note is not None:
                    notes.add(note)
                    label = "random"
        for note in sorted(notes):
            self.say(f"! {note}")
        self.game = None
        game = ConsoleGame(rules, seed, config.seat, strategies, label)
        deck = rules.deck
        self.say(f"# new game, seed {seed}: {rules.players} players, the program in seat "
                 f"{config.seat}, {len(rules.deals)} deals, deck {deck.values}/{deck.suits} "
                 f"({deck.suits[0]} trumps), opponents {label}")
        for command in (f"set_deck {deck.values} {deck.suits}",
                        f"set_players {rules.players} {config.seat}",
                        f"set_game {rules.set_game_args()}"):
            try:
                self._tell(command)
            except DriveStop as stop:
                raise DriveStop(f"{stop}; no game") from None
        self.game = game
        self._begin_deal(game)

    def _begin_deal(self, game: ConsoleGame) -> None:
        """A deal begins: the opponents get their cards, the program ``set_cards``."""
        engine = game.engine
        table = engine.table
        deal = table.deal
        game.declared_now = {}
        deal_views(game.views.values(), engine)
        self.say(f"# deal {deal + 1}/{len(engine.rules.deals)}: {table.cards} card(s) each, "
                 f"seat {table.starter} starts")
        game.dealt = deal
        cards = [engine.rules.deck.name(c) for c in cards_of(engine.deals[deal][game.seat])]
        self._tell(f"set_cards {len(cards)} {' '.join(cards)}")

    def _step(self) -> str:
        """Play until the program has made its next decision (:data:`DECIDED`), a seat of
        the person's is to move (:data:`YOURS`: said, and waited for) or the game is over
        (:data:`OVER`)."""
        game = self._need_game()
        engine = game.engine
        while (seat := engine.to_play()) is not None:
            if game.dealt != engine.table.deal:
                self._begin_deal(game)
                continue
            if seat in game.yours:
                self.say(game.your_turn(seat))
                return YOURS
            if seat == game.seat:
                self._program_decides(game)
                return DECIDED
            view = game.views[seat]
            strategy = game.strategies[seat]
            action: Action
            if engine.table.phase is Phase.DECLARE:
                action = Declare(strategy.declare(view))
            else:
                action = strategy.move(view)
            reason = engine.illegal_reason(seat, action)
            if reason is not None:
                raise DriveStop(f"{game.who(seat)} chose {engine.notation(action)}: {reason}")
            self._act(game, seat, action, "")
        return OVER

    def _take(self, args: Sequence[str]) -> None:
        """``:take SEAT``: the person plays SEAT from now on."""
        game = self._need_game()
        seat = parse_int(args[0]) if len(args) == 1 else None
        if seat is None or not 0 <= seat < game.engine.rules.players:
            raise ConfigError(f":take needs one seat, 0 to {game.engine.rules.players - 1}")
        game.yours.add(seat)
        self.say(f"# {game.who(seat)} is yours: :step and :auto wait for your moves there "
                 f"(:release {seat}: {game.player(seat)} plays it)")

    def _release(self, args: Sequence[str]) -> None:
        """``:release [SEAT]``: SEAT (or every seat of the person's) played as before."""
        game = self._need_game()
        if len(args) > 1 or (args and parse_int(args[0]) is None):
            raise ConfigError(":release takes at most one seat, e.g. :release 1")
        seats = sorted(game.yours) if not args else [int(args[0])]
        if args and seats[0] not in game.yours:
            raise ConfigError(f"seat {seats[0]} is not yours (yours: "
                              f"{', '.join(map(str, sorted(game.yours))) or 'none'})")
        for seat in seats:
            game.yours.discard(seat)
            self.say(f"# {game.who(seat)}: {game.player(seat)} plays it again")
        if not seats:
            self.say("# no seat is yours")

    def _program_decides(self, game: ConsoleGame) -> None:
        """``time_left`` and ``gen_declare``/``gen_move``; the answer is checked and played."""
        engine = game.engine
        seat = game.seat
        declaring = engine.table.phase is Phase.DECLARE
        left = max(0, round(self.config.time_ms - game.used_ms))
        self._tell(f"time_left {left}", may_refuse=True)
        verb = "gen_declare" if declaring else "gen_move"
        started = time.monotonic()
        answer = self._tell(verb)
        spent = (time.monotonic() - started) * 1000
        game.used_ms += spent
        word = answer.text
        action: Action
        if answer.sign == "?":
            raise DriveStop(f"the program refused {verb}: {word or 'no reason given'}")
        if declaring:
            tricks = parse_int(word)
            if tricks is None:
                raise DriveStop(f"the program declared {word!r}: not a number")
            action = Declare(tricks)
        else:
            card = engine.rules.deck.card(word)
            if card is None:
                raise DriveStop(f"the program played {word!r}: not a card")
            action = card
        reason = engine.illegal_reason(seat, action)
        if reason is not None:
            raise DriveStop(f"the program chose {engine.notation(action)}: {reason}")
        self._act(game, seat, action, f" in {spent:.0f} ms")

    def _by_hand(self, action: Action) -> None:
        """``:declare``/``:play``: act for the seat whose turn it is, if the rules allow."""
        game = self._need_game()
        self._need_program()
        engine = game.engine
        seat = engine.to_play()
        if seat is None:
            raise Refused("the game is over")
        if game.dealt != engine.table.deal:
            self._begin_deal(game)
        reason = engine.illegal_reason(seat, action)
        if reason is not None:
            raise Refused(f"{game.who(seat)}: {reason}")
        if seat not in game.yours:
            game.yours.add(seat)
            self.say(f"# {game.who(seat)} is yours now: :step and :auto wait for your moves "
                     f"there (:release {seat}: {game.player(seat)} plays it)")
        self._act(game, seat, action, " by hand")

    def _act(self, game: ConsoleGame, seat: int, action: Action, how: str) -> None:
        """Apply a legal action and tell the program what the referee would tell it."""
        engine = game.engine
        table = engine.table
        rules = engine.rules
        if isinstance(action, Declare):
            engine.apply(seat, action)
            game.declared_now[seat] = action.tricks
            self.say(f"# {game.who(seat)} declares {action.tricks}{how}")
            show_action(game.views.values(), engine, seat, action)
            if table.phase is not Phase.DECLARE:  # the last one: all are revealed
                for i, n in enumerate(table.declared):
                    self._tell(f"declare {i} {n}")
            return
        deal = table.deal
        trick = [*table.trick, action]
        tricks = list(table.tricks)
        said = list(table.declared)
        points = list(table.points)
        name = rules.deck.name(action)
        winner = engine.apply(seat, action)
        self.say(f"# {game.who(seat)} plays {name}{how}")
        show_action(game.views.values(), engine, seat, action)
        self._tell(f"play {seat} {name}")
        if winner is None:
            return
        tricks[winner] += 1
        self.say(f"# trick {' '.join(rules.deck.name(c) for c in trick)} to seat {winner}")
        if table.deal == deal and table.phase is not Phase.OVER:
            return
        gained = [after - before for after, before in zip(table.points, points, strict=True)]
        self.say(f"# deal {deal + 1} over: "
                 + "; ".join(f"seat {s} declared {said[s]}, took {tricks[s]}, "
                             f"+{gained[s]}" for s in range(rules.players)))
        if table.phase is Phase.OVER:
            self.say(f"# game over: final points {game.points_text()}")
        else:
            self._begin_deal(game)

    def _state(self) -> None:
        """``:state``: everything about the game the console referees."""
        game = self._need_game()
        engine = game.engine
        table = engine.table
        deck = engine.rules.deck
        if game.over:
            self.say(f"# the game is over ({len(engine.rules.deals)} deals): "
                     f"final points {game.points_text()}")
            return
        seat = engine.to_play()
        phase = "declarations" if table.phase is Phase.DECLARE else "play"
        self.say(f"# game seed {game.seed}, deal {table.deal + 1}/{len(engine.rules.deals)}: "
                 f"{table.cards} card(s) each, seat {table.starter} started; {phase}; "
                 f"trumps {deck.suits[0]}")
        for s in range(engine.rules.players):
            self.say(f"#   {game.who(s)}: "
                     f"{seat_summary(engine, s, game.declared_now.get(s))}")
        if table.phase is Phase.PLAY:
            if table.trick:
                self.say(f"# trick: {trick_summary(engine)}")
            else:
                self.say(f"# trick: empty, seat {table.trick_leader} leads")
            if table.last_trick is not None:
                leader, cards, winner = table.last_trick
                self.say(f"# last trick (led by seat {leader}): "
                         f"{' '.join(deck.name(c) for c in cards)}, to seat {winner}")
        legal = " ".join(engine.notation(a) if isinstance(a, int) else str(a.tricks)
                         for a in engine.legal_actions())
        verb = "declare" if table.phase is Phase.DECLARE else "play"
        if seat is not None:
            self.say(f"# {game.who(seat)} to {verb}: {legal}")

    # -- the end ------------------------------------------------------------------------
    def close(self) -> None:
        """End the program politely: ``quit``, then up to ``grace`` seconds to exit by
        itself (killed only if it does not); report its exit code."""
        if self.closed or self.process is None:
            return
        self.closed = True
        process = self.process
        try:
            self._check_alive()
            if not self.dead:
                try:
                    self._exchange("quit")
                except ProgramGone:
                    return
                deadline = time.monotonic() + self.config.grace
                while process.running and time.monotonic() < deadline:
                    time.sleep(0.02)
                if process.running:
                    self.say(f"! the program did not exit within {self.config.grace:g} s "
                             "after quit: killing it")
                    process.kill()
                    self.say(f"# killed (exit status {process.returncode})")
                else:
                    self.dead = True
                    self.say(f"# the program exited with code {process.returncode}")
                self._show_stderr(tail=STDERR_TAIL)
        finally:
            process.kill()  # by now it has ended: this releases the pipes (and any leftovers)

