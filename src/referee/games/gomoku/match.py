"""A Gomoku match: two brains, several games, colours alternating, records written.

The brains stay running between games (RESTART; when a brain answers UNKNOWN, END and a
fresh process). A brain that faults loses that game and is started afresh for the next.
With openings, each opening is played twice with colours swapped; with swap2, the seat
that opens alternates. Every game is written as JSON (and ``.psq``) in the output folder.

Reusable by tournaments: ``GomokuMatch.play_game`` plays one scheduled game.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.core.clock import Clock, TimeControl
from referee.core.errors import BotFault, ConfigError
from referee.core.limits import megabytes
from referee.core.match import FaultPolicy, Seat, Watcher, forfeit, play_game
from referee.core.outcome import Outcome
from referee.core.players import PlayerSpec, folder_name, start_player
from referee.core.record import GameRecord, PlayerInfo
from referee.core.sandbox import SandboxConfig, plan_sandbox
from referee.games.gomoku.board import MAX_SIZE, MIN_SIZE, Rule
from referee.games.gomoku.defaults import MEMORY_MB, TOLERANCE_MS
from referee.games.gomoku.game import GomokuGame
from referee.games.gomoku.openings import Offsets, place_opening
from referee.games.gomoku.protocol import Brain, GomokuSeat
from referee.games.gomoku.psq import write_psq
from referee.games.gomoku.renju import RenjuJudge

log = logging.getLogger(__name__)

BUILTIN_BRAINS = {
    "random": "referee.games.gomoku.bots.random_brain",
    "threat": "referee.games.gomoku.bots.threat_brain",
}
"""Built-in brains by name -> module (each also a ``pbrain-<name>`` console script)."""


@dataclass
class GomokuSettings:
    """Everything that defines a match except the players."""

    width: int = 15
    height: int = 15
    rule: Rule = Rule.FREESTYLE
    time: TimeControl = field(default_factory=lambda: TimeControl(turn=5.0, game=None))
    memory_limit: int | None = None
    games: int = 2
    openings: list[Offsets] = field(default_factory=list)
    swap2: bool = False
    seed: int = 0
    folder: Path | None = None
    end_grace: float = 1.0
    psq: bool = True
    renju_judge: RenjuJudge = RenjuJudge.RIF
    draw_at_empty: int = 0
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    """The brains' sandbox; they are suspended off-turn unless it says otherwise (as
    Piskvork and GomocupJudge suspend the brain that is not on move)."""

    def __post_init__(self) -> None:
        for name in ("width", "height"):
            value = getattr(self, name)
            if not MIN_SIZE <= value <= MAX_SIZE:
                raise ConfigError(f"board {name} {value} is outside {MIN_SIZE}..{MAX_SIZE}")
        if self.games < 1:
            raise ConfigError(f"games must be at least 1, got {self.games}")
        if self.swap2 and self.openings:
            raise ConfigError("choose either openings or swap2, not both")
        if not 0 <= self.draw_at_empty < self.width * self.height:
            raise ConfigError(f"draw at empty must be 0..{self.width * self.height - 1} "
                              f"(points of the board), got {self.draw_at_empty}")
        for number, opening in enumerate(self.openings, start=1):
            place_opening(opening, self.width, self.height, f"opening {number}")

    @classmethod
    def from_options(cls, *, size: int = 15, width: int | None = None,
                     height: int | None = None, timeout_turn: int = 5000,
                     timeout_match: int = 0, tolerance: int = TOLERANCE_MS,
                     startup: int = 30000, memory: int = MEMORY_MB,
                     **rest: Any) -> GomokuSettings:
        """Settings from the options as users give them (``referee match gomoku`` and a
        tournament's ``[settings]``): a size or width and height, times in milliseconds
        (``timeout_match`` 0: no limit), memory in MB (0: none); ``rest`` as it is."""
        return cls(
            width=width or size,
            height=height or width or size,
            time=TimeControl.from_ms(turn=timeout_turn, game=timeout_match,
                                     tolerance=tolerance, startup=startup),
            memory_limit=megabytes(memory),
            **rest,
        )

    def describe(self) -> dict[str, Any]:
        """The settings as plain data for the game record."""
        tc = self.time
        data: dict[str, Any] = {
            "width": self.width,
            "height": self.height,
            "rule": self.rule.value,
            "timeout_turn_ms": None if tc.turn is None else round(tc.turn * 1000),
            "timeout_match_ms": None if tc.game is None else round(tc.game * 1000),
            "tolerance_ms": round(tc.tolerance * 1000),
            "max_memory": self.memory_limit,
            "swap2": self.swap2,
        }
        # Only when they differ from the default, so that the settings (and a tournament's
        # fingerprint) of games played without them stay as they were.
        if self.renju_judge is not RenjuJudge.RIF:
            data["renju_judge"] = self.renju_judge.value
        if self.draw_at_empty:
            data["draw_at_empty"] = self.draw_at_empty
        return data

    def judged(self) -> str:
        """What the referee judges, in words: the rule with its ``INFO rule`` value, the
        renju judge, an early draw."""
        text = f"INFO rule {self.rule.bitmask} ({self.rule.value}): {self.rule.judged}"
        if self.rule is Rule.RENJU:
            gomocup = self.renju_judge is RenjuJudge.GOMOCUP
            text += f"; threes as {'GomocupJudge' if gomocup else 'RIF'} reads them"
        if self.draw_at_empty:
            text += f"; a draw when {self.draw_at_empty} empty points remain"
        return text

    def info_items(self) -> list[tuple[str, Any]]:
        """The INFO lines sent to each brain before a game."""
        tc = self.time
        items: list[tuple[str, Any]] = []
        if tc.turn is not None:
            items.append(("timeout_turn", round(tc.turn * 1000)))
        items.append(("timeout_match", 0 if tc.game is None else round(tc.game * 1000)))
        items.append(("max_memory", self.memory_limit or 0))
        items.append(("game_type", 1))
        items.append(("rule", self.rule.bitmask))
        if self.folder is not None:
            items.append(("folder", str(self.folder)))
        return items


SeatMaker = Callable[[int, Clock], Seat]
"""A seat played by no program of the match (a person at a web table, a program joining
over the network): its driver made from the seat's number and clock."""


@dataclass
class MatchResult:
    """The games of a match and each player's points."""

    players: list[PlayerSpec]
    records: list[GameRecord]

    def points(self) -> list[float]:
        """Total points per player."""
        totals = [0.0, 0.0]
        for record in self.records:
            for seat, score in enumerate(record.scores or ()):
                totals[seat] += score
        return totals


class GomokuMatch:
    """Runs games between two players; call ``run`` (or ``play_game`` and ``close``)."""

    def __init__(
        self,
        players: Sequence[PlayerSpec],
        settings: GomokuSettings,
        out_dir: Path | str,
        on_game: Callable[[GameRecord], None] | None = None,
        write_files: bool = True,
    ) -> None:
        if len(players) != 2:
            raise ConfigError(f"a gomoku match needs 2 players, got {len(players)}")
        self.players = list(players)
        self.settings = settings
        self.out_dir = Path(out_dir)
        self.on_game = on_game
        self.write_files = write_files
        self._brains: list[Brain | None] = [None, None]
        self._index = 0
        """The game being played (its seeds)."""
        self.links: dict[int, Callable[[], Any]] = {}
        """Seats whose program runs elsewhere (joining a web table over the network): the
        link to it (``core.line_link.LineLink``), used as its process."""
        self._record: GameRecord | None = None
        self.sandbox = plan_sandbox(settings.sandbox)
        self.suspend = settings.sandbox.suspends(True)

    # -- the match ----------------------------------------------------------------------
    def run(self) -> MatchResult:
        """Play every game of the match and return the records."""
        records = []
        try:
            for index in range(self.settings.games):
                records.append(self.play_game(index))
        finally:
            self.close()
        return MatchResult(self.players, records)

    def close(self) -> None:
        """END every brain still running (wait up to the grace time, then kill)."""
        for seat, brain in enumerate(self._brains):
            if brain is not None:
                brain.end(self.settings.end_grace)
                self._brains[seat] = None

    def adopt(self, seat: int, brain: Brain) -> None:
        """Play ``seat`` with ``brain``, a running brain kept from another match (a
        tournament's ``keep_bots``): its next game begins with RESTART, as here between
        games."""
        brain.on_note = self._note(seat)
        brain.process.begin_game(seat)
        self._brains[seat] = brain

    def release(self) -> list[tuple[int, Brain]]:
        """The brains still running, by seat, handed over instead of ended (the match no
        longer has them): a brain that faulted was already stopped."""
        kept = [(seat, brain) for seat, brain in enumerate(self._brains)
                if brain is not None and brain.process.running]
        self._brains = [None, None]
        return kept

    def check_player(self, seat: int) -> dict[str, str]:
        """Start the brain of ``seat`` and set it up as for a first game, then END it.

        Returns its ABOUT answer; raises ``BotFault`` or ``MatchAborted`` (a refused
        board) if it cannot get ready.
        """
        try:
            brain = self._ready(seat, 0, Clock(self.settings.time))
            return dict(brain.about)
        except BaseException:
            self.drop(seat)
            raise
        finally:
            self.close()

    def game_setup(self, index: int) -> tuple[int, list[tuple[int, int]]]:
        """The black (or swap2-opening) seat and the opening points of game ``index``."""
        s = self.settings
        first = index % 2
        opening: list[tuple[int, int]] = []
        if s.openings:
            number = (index // 2) % len(s.openings)
            opening = place_opening(s.openings[number], s.width, s.height)
        return first, opening

    def play_game(self, index: int, first: int | None = None,
                  opening: list[tuple[int, int]] | None = None, *,
                  outside: Mapping[int, SeatMaker] | None = None,
                  times: Sequence[TimeControl] | None = None,
                  watch: Watcher | None = None,
                  on_fault: FaultPolicy | None = None) -> GameRecord:
        """Play game ``index`` (0-based) and write its record.

        ``first`` (the black or swap2-opening seat) and ``opening`` (board points) default
        to the match's alternation (see ``game_setup``). For a web table: ``outside``
        seats are played by the drivers it makes, not by a program of the match;
        ``times`` gives each seat its own limits (a person's clock can differ from a
        program's); ``watch`` and ``on_fault`` go to the game loop (``core.match``).
        """
        s = self.settings
        default_first, default_opening = self.game_setup(index)
        first = default_first if first is None else first
        opening = default_opening if opening is None else opening
        record = GameRecord(
            game="gomoku",
            players=[PlayerInfo(p.name, list(p.command)) for p in self.players],
            settings=s.describe(),
            seed=s.seed,
            opening=[list(p) for p in opening],
            index=index + 1,
            sandbox=self.sandbox.describe(self.suspend),
        )
        record.settings["black"] = None if s.swap2 else first
        record.settings["swap2_first"] = first if s.swap2 else None
        self._record = record
        engine = GomokuGame(
            s.width, s.height, s.rule,
            black_seat=first, opening=opening, swap2=s.swap2, swap2_first=first,
            renju_judge=s.renju_judge, draw_at_empty=s.draw_at_empty,
        )
        clocks = [Clock(control) for control in (times or (s.time, s.time))]
        self._index = index
        seats: list[Any] = []
        for seat in (0, 1):
            if outside and seat in outside:
                seats.append(outside[seat](seat, clocks[seat]))
                continue
            try:
                brain = self._ready(seat, index, clocks[seat])
            except BotFault as fault:
                self.drop(seat)
                forfeit(record, seat, 2, fault, self.players[seat].name)
                return self._finish(record)
            record.players[seat].about = dict(brain.about)
            seats.append(GomokuSeat(brain, seat, clocks[seat]))
        play_game(engine, seats, record, on_fault=on_fault, watch=watch)
        if engine.winner is not None and engine.win_line:
            record.settings["win_line"] = [list(p) for p in engine.win_line]
        record.settings["colors"] = ["black" if engine.color_of(i) == 1 else "white"
                                     for i in (0, 1)]
        if record.offender is not None:
            self.drop(record.offender)
        return self._finish(record)

    def current_record(self) -> GameRecord | None:
        """The record of the game being played (or the last one)."""
        return self._record

    def take_over(self, seat: int, player: PlayerSpec,
                  time: TimeControl | None = None) -> GomokuSeat:
        """``player``'s program started to play ``seat`` from the game's position on (a
        pinch-hitter, or a person's own program playing for them): its clock is new, with
        ``time`` (default: the match's). ``BotFault`` if it cannot get ready."""
        self.players[seat] = player
        self.drop(seat)
        clock = Clock(time or self.settings.time)
        try:
            brain = self._ready(seat, self._index, clock)
        except BotFault:
            self.drop(seat)
            raise
        return GomokuSeat(brain, seat, clock)

    def _finish(self, record: GameRecord) -> GameRecord:
        if self.write_files:
            path = self.out_dir / f"game-{record.index:03d}.json"
            record.write(path)
            if self.settings.psq:
                write_psq(record, path.with_suffix(".psq"))
        if self.on_game is not None:
            self.on_game(record)
        return record

    # -- brains -------------------------------------------------------------------------
    def _note(self, seat: int) -> Callable[[str, str], None]:
        def sink(kind: str, text: str) -> None:
            if self._record is not None:
                self._record.add_note(seat, kind, text)

        return sink

    def _spawn(self, seat: int, index: int) -> Brain:
        player = self.players[seat]
        link = self.links.get(seat)
        if link is not None:  # a program elsewhere, its lines over a link
            return Brain(link(), player.name, on_note=self._note(seat))
        process = start_player(player, self.out_dir,
                               seed=self.settings.seed * 1_000_003 + index * 2 + seat,
                               memory_limit=self.settings.memory_limit,
                               sandbox=self.sandbox, suspend=self.suspend,
                               private=self._own_folder(player), seat=seat)
        return Brain(process, player.name, on_note=self._note(seat))

    def _own_folder(self, player: PlayerSpec) -> list[tuple[Path, Path]]:
        """The INFO folder as an isolated brain has it: its own folder (under the
        announced one, named after the player) seen at the announced path, so that
        brains keep their files across games but never see each other's."""
        folder = self.settings.folder
        if folder is None or not self.sandbox.isolated:
            return []
        own = folder / folder_name(player.name)
        own.mkdir(parents=True, exist_ok=True)
        return [(own, folder)]

    def _ready(self, seat: int, index: int, clock: Clock) -> Brain:
        """A brain with an empty board of the right size and this game's INFO, timed."""
        s = self.settings
        deadline = clock.start_setup()
        try:
            brain = self._brains[seat]
            if brain is not None and brain.process.running and not brain.restart(deadline):
                log.info("%s does not know RESTART: starting it again", brain.name)
                brain.end(s.end_grace)
                brain = None
            if brain is None or not brain.process.running:
                if brain is not None:
                    brain.process.kill()
                brain = self._spawn(seat, index)
                self._brains[seat] = brain
                brain.start(s.width, s.height, deadline)
                brain.ask_about(deadline)
            brain.info(s.info_items(), deadline)
        except BotFault as fault:
            if fault.outcome is Outcome.TIMEOUT:
                raise BotFault(fault.outcome, "not ready in time (start/restart)") from None
            raise
        clock.stop(counts_as_move=False)
        return brain

    def drop(self, seat: int) -> None:
        """Kill the brain of ``seat`` (the next game starts it afresh)."""
        brain = self._brains[seat]
        if brain is not None:
            brain.process.kill()
            self._brains[seat] = None
