"""Local mode: the referee runs four AI programs over pipes for a game of hands.

Each hand (the spec's "game") is a session of its own: the four programs are started,
told ``/start`` and ``/initGame``, play, get ``/exit <scores>`` and are stopped; the next
hand starts them again. A program that answers with a wrong instruction, a move the hand
does not allow, nothing in time, or that crashes, gets ``/exit`` at once and is stopped;
the default dummy AI plays its seat for the rest of the hand, as the framework says ("wake
up default dummy AI to continue the game", its game being our hand), and the program is
started again for the next hand (``takeover="game"``: the dummy keeps the seat to the end
of the game). Every takeover is a fault of the seat in the record (``record.faults``) and
in the standings, with a note of the hand and the move. Nothing else ends a game early.
"""

from __future__ import annotations

import contextlib
import logging
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from referee.core.errors import BotFault, ConfigError
from referee.core.line_link import LineLink
from referee.core.match import Decision, FaultPolicy, Seat, Watcher, play_game
from referee.core.outcome import Outcome
from referee.core.players import PlayerSpec, play_rotations, program_path, start_player
from referee.core.process import BotProcess
from referee.core.record import GameRecord, PlayerInfo
from referee.core.sandbox import SandboxConfig, SandboxPlan, plan_sandbox
from referee.core.text import clip
from referee.games.mahjong.bots.policies import dummy_policy
from referee.games.mahjong.defaults import MEMORY_MB
from referee.games.mahjong.protocol import event_lines, hand_start_lines, parse_action
from referee.games.mahjong.rules import Action, HandResult, MahjongGame, MahjongHand, Rules

log = logging.getLogger(__name__)

__all__ = ["BUILTIN_PLAYERS", "START_PATHS", "TAKEOVERS", "Channel", "ClientGame",
           "ClientSeat", "DummySeat", "HandTakeover", "LinkChannel", "MahjongSettings",
           "ProcessChannel", "new_record", "play_clients", "play_mahjong", "run_match",
           "start_path"]

BUILTIN_PLAYERS = {
    "greedy": "referee.games.mahjong.bots.greedy_ai",
    "random": "referee.games.mahjong.bots.random_ai",
}
"""The reference AIs by name (the first is the default house player)."""


@dataclass(frozen=True)
class MahjongSettings:
    """How a game is played: the rules, the seed of the walls, the time per decision."""

    rules: Rules = field(default_factory=Rules)
    seed: int = 1
    move_time: float = 10.0
    """Seconds a program has for each answer."""
    first_dealer: int = 0
    takeover: str = "hand"
    """How long the dummy AI plays a faulty program's seat: ``hand`` (the rest of the hand,
    the framework) or ``game`` (the rest of the game)."""
    start_path: str = "program"
    """What ``/start`` names as the AI's path: ``program`` (the program a command runs, the
    framework's AIPath) or ``command`` (the whole command line)."""
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    """The AI programs' sandbox in local mode (suspended off-turn unless it says
    otherwise)."""
    memory_limit: int | None = MEMORY_MB << 20
    """Bytes of memory each AI's process tree may use (``None``: no limit)."""

    def __post_init__(self) -> None:
        if self.takeover not in TAKEOVERS:
            raise ConfigError(f"takeover = {self.takeover!r}: expected hand or game")
        if self.start_path not in START_PATHS:
            raise ConfigError(f"start_path = {self.start_path!r}: expected program or command")


TAKEOVERS = ("hand", "game")
"""How long a dummy takeover lasts (``MahjongSettings.takeover``)."""
START_PATHS = ("program", "command")
"""What ``/start`` names (``MahjongSettings.start_path``)."""


def _opener(seed: int, hand: int, dealer: int) -> int:
    """The seat whose wall is opened (two dice from the hand's seed; shown, not used)."""
    dice = random.Random(seed * 100_003 + hand)
    return (dealer + dice.randint(1, 6) + dice.randint(1, 6) - 1) % 4


class DummySeat:
    """The default dummy AI in a seat (in-process)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._rng = random.Random(0)

    def request(self, engine: MahjongGame) -> Decision:
        """The dummy's answer to the seat's question."""
        seat = engine.to_play()
        assert seat is not None
        return Decision(dummy_policy(engine.hand.view(seat), self._rng), 0.0)

    def end_turn(self) -> None:
        """Nothing to check: the dummy is no process."""

    def observe(self, engine: MahjongGame, seat: int, action: object) -> None:
        """The dummy needs no news."""


class Channel(Protocol):
    """The line conversation with one client, hand after hand: a program on pipes (local
    mode) or a wrapper on a socket (network mode)."""

    name: str
    command: str
    """What ``/start`` names as the AI's path."""
    move_time: float | None
    """Seconds the client has for each answer, when not the game's ``move_time`` (a seat
    a person plays in network mode); ``None``: the game's."""

    def open(self, hand: int) -> None:
        """Get ready for hand number ``hand`` (local mode starts the program)."""

    def send(self, text: str, deadline: float) -> None:
        """Write lines; ``BotFault`` if the client is gone or stuck."""

    def read_line(self, deadline: float) -> str:
        """The client's next line; ``BotFault`` on a timeout, crash or disconnection."""

    def stray_line(self) -> str | None:
        """A line the client has sent already, read without waiting (asked nothing, a
        client sends nothing: such a line is stray); ``None`` if there is none."""

    def close(self, grace: float) -> None:
        """The hand's session is over (local mode stops the program)."""

    def cpu_time(self) -> float | None:
        """The CPU seconds the program has used (``None`` when it is not ours to see)."""

    def end_turn(self) -> None:
        """The client has answered: check its program's folders (local mode)."""

    @property
    def gone(self) -> bool:
        """Whether the client can never be reached again (a lost connection), so that a
        dummy takeover lasts the rest of the game whatever ``takeover`` says."""


def start_path(command: Sequence[str], names: str) -> str:
    """What ``/start`` names for a program run by ``command``: the program (``names`` is
    ``program``) or the whole command line (``command``)."""
    return program_path(command) if names == "program" else " ".join(command)


class ProcessChannel:
    """An AI program started afresh for every hand (local mode)."""

    def __init__(self, player: PlayerSpec, folder: Path, seed: int, tag: str,
                 names: str = "program", sandbox: SandboxPlan | None = None,
                 suspend: bool = False, seat: int | None = None,
                 memory_limit: int | None = None) -> None:
        self.player = player
        self.seat = seat
        """The seat its programs play (their stderr is that seat's in the record)."""
        self.name = player.name
        self.command = start_path(player.command, names)
        self.move_time: float | None = None
        self.folder = folder
        self.seed = seed
        self.tag = tag
        self.sandbox = sandbox
        self.suspend = suspend
        self.memory_limit = memory_limit
        self.process: BotProcess | None = None

    def open(self, hand: int) -> None:
        """Start the program for this hand."""
        self.close(1.0)
        self.process = start_player(self.player, self.folder, seed=self.seed + hand,
                                    tag=self.tag, sandbox=self.sandbox, suspend=self.suspend,
                                    seat=self.seat, memory_limit=self.memory_limit)

    def cpu_time(self) -> float | None:
        """The CPU seconds of this hand's program."""
        return self.process.cpu_time() if self.process is not None else None

    def end_turn(self) -> None:
        """Check the program's folders against the sandbox's limit."""
        if self.process is not None:
            self.process.end_turn()

    def send(self, text: str, deadline: float) -> None:
        """Write to the program's standard input."""
        if self.process is not None:
            self.process.send(text, deadline)

    def read_line(self, deadline: float) -> str:
        """A line of the program's standard output."""
        if self.process is None:
            raise BotFault(Outcome.CRASH, "the program is not running")
        return self.process.read_line(deadline)

    def stray_line(self) -> str | None:
        """A line the program has written already (read without waiting), if any."""
        return None if self.process is None else self.process.pending_line(read=True)

    def close(self, grace: float) -> None:
        """Stop the program (it has had /exit)."""
        process, self.process = self.process, None
        if process is not None:
            process.stop(grace)

    @property
    def gone(self) -> bool:
        """Never: the program is started afresh for every hand."""
        return False


class LinkChannel:
    """A program elsewhere (joined to a web table over the network, ``referee connect
    mahjong URL``), its lines over a ``core.line_link.LineLink``: one connection for the
    whole game, its wrapper starting the program afresh on every ``/start``, as in
    network mode. A timeout, a closed connection or a flood is the link's ``BotFault``."""

    def __init__(self, link: LineLink, move_time: float | None = None) -> None:
        self.link = link
        self.name = link.name
        self.command = link.name
        self.move_time = move_time

    def open(self, hand: int) -> None:
        """A new session: what the program sent since the last one is stale."""
        self.link.pending_lines()

    def send(self, text: str, deadline: float) -> None:
        """Send lines over the link."""
        self.link.send(text, deadline)

    def read_line(self, deadline: float) -> str:
        """The program's next line."""
        return self.link.read_line(deadline)

    def stray_line(self) -> str | None:
        """A line already received, if any."""
        return self.link.pending_line(read=True)

    def close(self, grace: float) -> None:
        """The hand's session is over: the connection stays for the next one."""

    def cpu_time(self) -> float | None:
        """Not ours to see."""
        return None

    def end_turn(self) -> None:
        """Its folders are its own."""

    def hang_up(self) -> None:
        """The game is over: close the connection (the program's wrapper ends)."""
        self.link.kill()

    @property
    def gone(self) -> bool:
        """Whether the connection is lost (the dummy AI then plays to the end)."""
        return not self.link.running


class ClientSeat:
    """One client in one seat for the match loop: tells it the news, reads its answers;
    every hand is a session (``/start`` .. ``/exit``)."""

    def __init__(self, channel: Channel, seat: int, settings: MahjongSettings) -> None:
        self.channel = channel
        self.name = channel.name
        self.seat = seat
        self.settings = settings
        self.move_time = channel.move_time or settings.move_time
        """Seconds for each answer: the client's own (a person's seat), else the game's."""
        self.hand: MahjongHand | None = None
        self.number = -1
        """The number of the hand the client was last told of (-1: none yet)."""
        self.told = 0
        """How many of the hand's events this client has been told about."""
        self.open = False
        self.answered: tuple[str, str] | None = None
        """The client's last answer in this session and the question it answered."""
        self.joined: tuple[int, int] | None = None
        """(hand, event) where a client joined mid-hand: that hand's questions before
        that event were answered by another, so they are not told (their answers are)."""

    def _begin(self, hand: MahjongHand, number: int) -> None:
        self.end()
        self.hand, self.number, self.told = hand, number, 0
        self.answered = None
        self.channel.open(number)
        self.open = True
        self._send(hand_start_lines(self.seat, self.channel.command, hand.round_wind,
                                    number % 4,
                                    _opener(self.settings.seed, number, hand.dealer),
                                    hand.dealer))

    def _send(self, lines: Sequence[str]) -> None:
        if lines and self.open:
            self.channel.send("".join(line + "\n" for line in lines),
                              time.monotonic() + self.move_time)

    def _catch_up(self) -> None:
        """Tell the client what happened since it was last told."""
        hand = self.hand
        if hand is None:
            return
        news = hand.events[self.told:]
        if self.open and any(e.kind == "ask" and e.seat == self.seat for e in news):
            self._check_stray()  # (before its next question: every one before is answered)
        quiet = self.joined[1] if self.joined and self.joined[0] == self.number else 0
        lines = [line for index, event in enumerate(news, self.told)
                 if not (event.kind == "ask" and index < quiet)
                 for line in event_lines(event, self.seat)]
        self.told = len(hand.events)
        self._send(lines)
        if hand.result is not None:  # /exit was among them: the session is over
            self.end()

    def _sync(self, game: MahjongGame) -> None:
        if self.hand is not game.hand:
            self._catch_up()
            self._missed(game, game.number)
            self._begin(game.hand, game.number)
        self._catch_up()

    def _missed(self, game: MahjongGame, until: int) -> None:
        """A session for each hand before ``until`` the client never heard of: hands that
        ended before anyone was asked anything (a flower win in the deal)."""
        for number in range(self.number + 1, min(until, len(game.finished))):
            self._begin(game.finished[number], number)
            self._catch_up()

    def finish(self, game: MahjongGame) -> None:
        """At the game's end: the rest of the hand told, and any hand that ended unasked
        after the client's last one."""
        self._catch_up()
        self._missed(game, len(game.finished))
        self.end()

    def end(self, grace: float = 1.0) -> None:
        """Close the hand's session."""
        if self.open:
            self.open = False
            self.channel.close(grace)

    def abandon(self) -> None:
        """Send ``/exit`` (early termination, as the spec says) and close the session."""
        if self.open:
            with contextlib.suppress(BotFault):
                self.channel.send("/exit\n", time.monotonic() + 1.0)
        self.end(grace=0.5)

    # -- the loop's driver ----------------------------------------------------------------
    def request(self, engine: MahjongGame) -> Decision:
        """Tell the news, read the answer to ``/ask``; ``BotFault`` if it is no instruction,
        or if the client sent a line while it was asked nothing (checked as its next
        question goes out: a stray line is its fault, not that question's answer)."""
        self._sync(engine)
        question = engine.hand.question
        assert question is not None
        cpu = self.channel.cpu_time()
        start = time.monotonic()
        line = self.channel.read_line(start + self.move_time)
        self.answered = (line, question.ask.value)
        action: Action = parse_action(line, question.ask)
        seconds = time.monotonic() - start
        after = self.channel.cpu_time()
        return Decision(action, seconds, None if cpu is None or after is None else after - cpu)

    def _check_stray(self) -> None:
        """``BotFault`` naming a line the client sent while it was asked nothing."""
        stray = self.channel.stray_line()
        if stray is None:
            return
        after = ("before its first question" if self.answered is None else
                 f"after its answer {clip(self.answered[0], 60)!r} to /ask "
                 f"{self.answered[1]}")
        raise BotFault(Outcome.PROTOCOL_ERROR,
                       f"sent {clip(stray, 80)!r} when it was asked nothing ({after})")

    def end_turn(self) -> None:
        """The client's folders are checked (local mode)."""
        self.channel.end_turn()

    def observe(self, engine: MahjongGame, seat: int, action: object) -> None:
        """Tell the client what the action changed (``/exit`` at a hand's end; a new
        hand opens a new session)."""
        self._sync(engine)


class HandTakeover:
    """The dummy AI in a client's seat for the rest of one hand; from the next hand on the
    client plays again (its program started afresh, a new session)."""

    def __init__(self, client: ClientSeat, hand: int) -> None:
        self.client = client
        self.hand = hand
        self.dummy = DummySeat(f"dummy for {client.name}")
        self.name = self.dummy.name

    def request(self, engine: MahjongGame) -> Decision:
        """The dummy's answer in the hand taken over, the client's afterwards."""
        if engine.number == self.hand:
            return self.dummy.request(engine)
        self.name = self.client.name
        return self.client.request(engine)

    def end_turn(self) -> None:
        """The client's check, once it plays again."""
        if self.name == self.client.name:
            self.client.end_turn()

    def observe(self, engine: MahjongGame, seat: int, action: object) -> None:
        """The client hears nothing of the hand taken over, then everything again."""
        if engine.number != self.hand:
            self.client.observe(engine, seat, action)


def play_clients(channels: Sequence[Channel], settings: MahjongSettings,
                 record: GameRecord) -> GameRecord:
    """Play a game with four clients (any channels); a faulty client gets ``/exit`` and
    the dummy AI plays its seat for the rest of the hand (``settings.takeover``: or of
    the game)."""
    return ClientGame(channels, settings, record).play()


class ClientGame:
    """A game of four seats, each a client (a ``Channel``) or, at a web table, a seat
    driven from outside (a person's); ``play`` plays it. A faulty client gets ``/exit``
    and the dummy AI plays its seat for the rest of the hand (``settings.takeover``: or
    of the game); an outside seat's fault goes to the table's policy, and if that has no
    seat to offer the dummy AI plays it to the end (nothing ends a game early). A
    program may join a seat mid-game (``join``: a person's own program playing for
    them) and leave it (``drop``)."""

    def __init__(self, channels: Sequence[Channel | None], settings: MahjongSettings,
                 record: GameRecord, outside: Mapping[int, Seat] | None = None) -> None:
        self.settings = settings
        self.record = record
        self.game = MahjongGame(settings.seed, settings.rules, settings.first_dealer)
        self.clients = {s: ClientSeat(c, s, settings) for s, c in enumerate(channels)
                        if c is not None}
        outside = outside or {}
        self.seats: list[Any] = [self.clients[s] if s in self.clients else outside[s]
                                 for s in range(len(channels))]
        self.retired: set[int] = set()
        """Seats the dummy AI plays to the end of the game."""
        self.deputies: dict[int, ClientSeat] = {}
        """Programs that joined a seat mid-game, by seat."""

    def take_over(self, engine: MahjongGame, seat: int,
                  fault: BotFault) -> DummySeat | HandTakeover:
        """The framework's fault policy for client ``seat``: ``/exit``, then the dummy AI
        for the rest of the hand (or game), noted in the record."""
        client = self.clients[seat]
        client.abandon()
        whole_game = self.settings.takeover == "game" or client.channel.gone
        if whole_game:
            self.retired.add(seat)
        until = "the end of the game" if whole_game else "the end of the hand"
        self.record.add_note(seat, "takeover-at",
                             f"hand {engine.number + 1}: the dummy AI plays for "
                             f"{client.name} to {until} ({fault.outcome.value})")
        if whole_game:
            return DummySeat(f"dummy for {client.name}")
        return HandTakeover(client, engine.number)

    def join(self, seat: int, channel: Channel) -> ClientSeat:
        """A client that plays ``seat`` from the question asked now on (its first
        session is the hand in play, told everything the seat has seen of it but the
        questions another answered)."""
        self.drop(seat)
        client = ClientSeat(channel, seat, self.settings)
        client.number = self.game.number - 1
        client.joined = (self.game.number, len(self.game.hand.events) - 1)
        self.deputies[seat] = client
        return client

    def drop(self, seat: int) -> None:
        """End the client that joined ``seat`` mid-game (``/exit``), if one did."""
        client = self.deputies.pop(seat, None)
        if client is not None:
            client.abandon()

    def _fault(self, on_fault: FaultPolicy | None) -> FaultPolicy:
        """The game's fault policy: the framework's for clients, else ``on_fault``'s,
        else the dummy AI to the end of the game."""
        def policy(engine: Any, seat: int, fault: BotFault) -> Seat | None:
            if seat in self.clients:
                return self.take_over(engine, seat, fault)
            self.drop(seat)
            replacement = on_fault(engine, seat, fault) if on_fault is not None else None
            if replacement is not None:
                return replacement
            name = self.seats[seat].name
            self.retired.add(seat)
            self.record.add_note(seat, "takeover-at",
                                 f"hand {engine.number + 1}: the dummy AI plays for {name} "
                                 f"to the end of the game ({fault.outcome.value})")
            return DummySeat(f"dummy for {name}")
        return policy

    def play(self, watch: Watcher | None = None,
             on_fault: FaultPolicy | None = None) -> GameRecord:
        """Play the game to its end (``watch`` shown the engine after every change,
        ``on_fault`` asked about an outside seat's fault); the record, finished."""
        game, record = self.game, self.record
        try:
            play_game(game, self.seats, record, on_fault=self._fault(on_fault), watch=watch)
            for client in [*self.clients.values(), *self.deputies.values()]:
                if client.seat not in self.retired:
                    with contextlib.suppress(BotFault):
                        client.finish(game)
        finally:
            for client in [*self.clients.values(), *self.deputies.values()]:
                client.end()
        record.settings["hands_played"] = [hand_facts(r) for r in game.results]
        if record.outcome is None:
            record.finish(game.scores(), Outcome.NORMAL, game.end_reason())
        return record


def hand_facts(result: HandResult) -> dict[str, Any]:
    """A finished hand as records keep it (``hands_played``): winner, discarder, payments,
    tai, patterns and the reason."""
    return {"winner": result.winner, "discarder": result.discarder,
            "payments": list(result.payments),
            "tai": None if result.score is None else result.score.total_tai,
            "patterns": [] if result.score is None else [list(p) for p in result.score.patterns],
            "reason": result.reason}


def play_mahjong(players: Sequence[PlayerSpec], settings: MahjongSettings,
                 folder: Path, record: GameRecord | None = None) -> GameRecord:
    """Local mode: a game of ``settings.rules.hands`` hands with four AI programs; the
    record holds every answer, each hand's result and the takeovers."""
    if len(players) != 4:
        raise ValueError("ICGA Mahjong takes four players")
    if record is None:
        record = new_record(players, settings)
    plan = plan_sandbox(settings.sandbox)
    suspend = settings.sandbox.suspends(True)
    record.sandbox = plan.describe(suspend)
    channels = [ProcessChannel(p, folder, settings.seed * 4 + s, f"seat{s + 1}-",
                               settings.start_path, plan, suspend, seat=s,
                               memory_limit=settings.memory_limit)
                for s, p in enumerate(players)]
    return play_clients(channels, settings, record)


def new_record(players: Sequence[PlayerSpec], settings: MahjongSettings) -> GameRecord:
    """An empty record of a game with these players and settings."""
    return GameRecord("mahjong", [PlayerInfo(p.name, p.command) for p in players],
                      settings={"hands": settings.rules.hands,
                                "reserve": settings.rules.reserve,
                                "base": settings.rules.stakes.base,
                                "per_tai": settings.rules.stakes.per_tai,
                                "scoring": settings.rules.table.name,
                                "move_time": settings.move_time,
                                "kong_from_previous": settings.rules.kong_from_previous,
                                "takeover": settings.takeover,
                                "max_memory": settings.memory_limit},
                      seed=settings.seed)


def run_match(players: Sequence[PlayerSpec], settings: MahjongSettings, rotations: int,
              out_dir: Path, on_game: Callable[[GameRecord], None] | None = None
              ) -> list[GameRecord]:
    """Duplicate play: ``rotations`` games (1 to 4) on the same walls (the same seed), the
    players' seats rotating one place each game. Records go to ``out_dir``."""
    return play_rotations(
        players, rotations,
        lambda seated, game: play_mahjong(seated, settings, out_dir / f"game-{game + 1}"),
        out_dir, on_game)
