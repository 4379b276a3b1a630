"""Riichi's training data (``referee dataset riichi``): games replayed through the engine
and the environment (``env.py``), one row per decision the environment asks for.

A decision is what the environment asks a seat: its own turn (discard, riichi, kans,
tsumo, nine terminals), the discard after a call, and an answer to a discard or a kan
(ron, calls or pass) for each seat with such an option, lowest seat first. Its row holds
the seat's observation (every cell a whole number 0..255: one byte each), the mask of
its legal actions and the number of the action it took.

Sources:

- The referee's own records (``game-NNN.json`` of ``referee match riichi``, a tournament
  store's games): the walls come from the seed and every answer from the record, which
  holds each bot's answers, a claim that lost to another one included; a seat that did
  not answer passed. Moves the safe default played (a bot's failure, a forfeited seat:
  ``"default": true``) are the referee's, not the player's: no row; nor any decision of a
  seat from its forfeit on, nor a pass where the record counts a failure of the seat
  (its own turn's failure is marked; a pass just before it, with no move between, is
  left out too). The replay's results must be the record's.
- Logs (:func:`~referee.games.riichi.replay.load_log`: mjai logs, Tenhou mjlog XML and
  Tenhou JSON, plain or gzip), replayed as ``referee replay riichi`` replays them, with
  the rules they record (else Tenhou's, the length guessed). A log shows the claims that
  stood, not those they outranked, so an answer the log cannot tell (a seat that could
  chi when another seat's pon or ron stood, a seat that could pon when a ron stood) has no
  row; every other seat asked passed. The result is the engine's final scores: a log
  that does not end its game is skipped. A log beside its record (``game-NNN.mjson.gz``
  next to ``game-NNN.json``) or inside a tournament's folder is one game with its record,
  which gives it when it is read too (``training.dataset_sources``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from referee.core.decisions import Decision, Position, position_at
from referee.core.json_read import json_value
from referee.core.outcome import Outcome
from referee.core.record import GameRecord, PlayerInfo, is_record_file
from referee.games.riichi.actions import NONE_ACTIONS, Action, action_from_mjai
from referee.games.riichi.adapter import record_rules
from referee.games.riichi.env import ACTIONS, HIGH, OBSERVATION_SIZE, RiichiEnvEngine, RiichiEnvGame
from referee.games.riichi.game import RiichiGame
from referee.games.riichi.rulesets import PRESETS
from referee.games.riichi.settings import SEATS, RiichiRules

__all__ = ["DATA", "LogGame", "RiichiData", "variant"]

_QUESTIONS: Final = frozenset({"respond", "chankan"})
_LOG_NAMES: Final = (".mjson", ".mjlog", ".xml", ".jsonl", ".json")
"""Names of the log files a folder may hold (each may end in ``.gz`` too)."""


def variant(rules: RiichiRules) -> str:
    """The rules in words: the rule set they are (``tenhou``, ``mahjong_soul``,
    ``mjai_app``; ``custom`` for any other) and the game length: ``tenhou south``."""
    for name, make in PRESETS.items():
        if replace(make(), game_length=rules.game_length) == rules:
            return f"{name} {rules.game_length}"
    return f"custom {rules.game_length}"


@dataclass
class LogGame(GameRecord):
    """A log's game as a record: its players, rules and result, and its decisions (made
    as it was read: the log is replayed once)."""

    decisions: list[Decision] = field(default_factory=list)
    rules: RiichiRules = field(default_factory=RiichiRules)


class RiichiData:
    """Riichi for ``training.dataset``."""

    name = "riichi"

    def __init__(self) -> None:
        self._games: dict[RiichiRules, RiichiEnvGame] = {}

    def _env_game(self, rules: RiichiRules) -> RiichiEnvGame:
        game = self._games.get(rules)
        if game is None:
            game = self._games[rules] = RiichiEnvGame(rules)  # ValueError: no red fives
        return game

    def _rules(self, record: GameRecord) -> RiichiRules:
        return record.rules if isinstance(record, LogGame) else record_rules(record)

    def layout(self, record: GameRecord) -> tuple[tuple[int, ...], int, float, str]:
        """The environment's layout (the same for every rule set) and the rules in words."""
        rules = self._rules(record)
        self._env_game(rules)
        return (OBSERVATION_SIZE,), ACTIONS, HIGH, variant(rules)

    def decisions(self, record: GameRecord) -> Iterator[Decision]:
        """The record's decisions as the environment asks them (see the module);
        ``ValueError`` for a record the engine does not replay."""
        if isinstance(record, LogGame):
            yield from record.decisions
            return
        for decision, _, _ in _record_steps(record, self._env_game(record_rules(record))):
            yield decision

    def position(self, record: GameRecord, ply: int) -> Position:
        """Where decision ``ply`` was taken: a record replayed on the walls of its seed,
        a log replayed again, up to it."""
        if isinstance(record, LogGame):
            return self._log_position(record, ply)
        game = self._env_game(record_rules(record))
        return position_at(_record_steps(record, game), game, ply, game.copy_engine)

    def foreign_records(self, path: Path) -> Iterator[GameRecord] | None:
        """The game of a log file (``None`` for a file that is not one: a record, or a
        name no log has). (A log beside its record, or in a tournament's folder, is not
        asked for when its record or store is read: ``training.dataset_sources``.)"""
        name = path.name.lower()
        stem = name[:-3] if name.endswith(".gz") else name
        if not stem.endswith(_LOG_NAMES) or is_record_file(path):
            return None
        from referee.games.riichi.replay import is_tenhou_json

        if stem.endswith(".json") and not is_tenhou_json(path):
            return None  # (other JSON a folder may hold: settings, a site's data)
        return iter([self.log_game(path)])

    def log_game(self, path: Path) -> LogGame:
        """A log file's game, replayed (``ValueError`` says why it cannot be)."""
        from referee.games.riichi.replay import chosen_rules, load_log, verify_log

        loaded = load_log(path)
        first = loaded.events[0] if loaded.events else None
        names = getattr(first, "names", None) or ("",) * 4
        collector = _LogDecisions(self)
        report = verify_log(loaded.events, chosen_rules(loaded),  # (the label names it)
                            final_results=loaded.final_results, observer=collector)
        collector.flush()
        if report.final is None:
            raise ValueError("the log does not end the game: no result")
        game = LogGame("riichi", [PlayerInfo(n) for n in names],
                       settings={"source": loaded.path, "format": loaded.format},
                       decisions=collector.rows, rules=report.rules)
        game.finish([f.score for f in report.final], Outcome.NORMAL, report.summary())
        return game

    def _log_position(self, record: LogGame, ply: int) -> Position:
        """A log's decision ``ply``, replayed again up to it (its answers to a question
        taken in the environment's order: those of the lower seats played first)."""
        from referee.games.riichi.replay import chosen_rules, load_log, verify_log

        if not 0 < ply <= len(record.decisions):
            raise ValueError(f"no decision {ply}: the game has {len(record.decisions)}")
        loaded = load_log(str(record.settings["source"]))
        collector = _LogDecisions(self, target=ply)
        verify_log(loaded.events, chosen_rules(loaded), final_results=loaded.final_results,
                   observer=collector)
        collector.flush()
        if collector.found is None:  # pragma: no cover - the same log gives the same rows
            raise ValueError(f"decision {ply} is not where the log's replay was")
        return collector.found


def _observe(env_game: RiichiEnvGame, engine: RiichiEnvEngine, seat: int) -> Any:
    return env_game.observe_bytes(engine, seat)


class _LogDecisions:
    """A log replay's observer: each decision, as the environment asks it; with a
    ``target``, also the position of that row (``found``)."""

    def __init__(self, data: RiichiData, target: int | None = None) -> None:
        self.data = data
        self.engine: RiichiEnvEngine | None = None
        self.env_game: RiichiEnvGame | None = None
        self.rows: list[Decision] = []
        self.asked: list[tuple[Decision, Action, frozenset[str]]] = []
        """The answers to the question being answered: decision, action, option types."""
        self.target = target
        self.found: Position | None = None
        self.calls = 0
        """The decisions played so far: the environment's actions before the next one."""
        self.question: tuple[RiichiEnvEngine, int] | None = None
        """With a target, a copy of the engine as the question began, and the decisions
        played before it."""

    def __call__(self, game: RiichiGame, seat: int, action: Action) -> None:
        engine = self.engine
        if engine is None or engine.game is not game:
            self.env_game = self.data._env_game(game.rules)
            engine = self.engine = RiichiEnvEngine(game)
        env_game = self.env_game
        assert env_game is not None
        engine.moves += 1
        kyoku = game.kyoku
        question = kyoku is not None and kyoku.phase in _QUESTIONS
        if not question:
            self.flush()
        decision = Decision(seat, _observe(env_game, engine, seat),
                            env_game.asked_mask(engine, seat),
                            env_game.index(engine, seat, action))
        target = self.target
        if question:
            if not self.asked and target is not None and self.found is None \
                    and len(self.rows) < target <= len(self.rows) + SEATS - 1:
                self.question = (env_game.copy_engine(engine), self.calls)
            options = frozenset(a.type for a in game.legal_actions(seat))
            self.asked.append((decision, action, options))
        else:
            self.rows.append(decision)
            if len(self.rows) == target:
                self.found = Position(env_game, env_game.copy_engine(engine), self.calls,
                                      decision)
        self.calls += 1

    def flush(self) -> None:
        """The answers to the last question, lowest seat first, those the log cannot
        tell left out."""
        if not self.asked:
            return
        claims = {a.type for _, a, _ in self.asked if a.type != "none"}
        rules = self.engine.game.rules if self.engine is not None else RiichiRules()
        answers = sorted(self.asked, key=lambda x: x[0].seat)
        for k, (decision, action, options) in enumerate(answers):
            if action.type != "none" or _told(options, claims, rules):
                self.rows.append(decision)
                if len(self.rows) == self.target and self.question is not None:
                    self.found = self._answering(answers[:k], decision)
        self.asked = []
        self.question = None

    def _answering(self, before: list[tuple[Decision, Action, frozenset[str]]],
                   decision: Decision) -> Position:
        """The position of ``decision``, an answer to the question: the engine as the
        question began, the answers of the seats before it played (the environment asks
        the lowest seat first)."""
        assert self.question is not None and self.env_game is not None
        engine, calls = self.question
        for earlier, action, _ in before:
            engine.apply(earlier.seat, action)
        return Position(self.env_game, engine, calls + len(before), decision)


def _told(options: frozenset[str], claims: set[str], rules: RiichiRules) -> bool:
    """Whether a pass the log shows is known to be one: no option of the seat's would
    have been outranked by the claims that stood (``claims``)."""
    if not claims:
        return True
    if "chi" in options:
        return False  # any claim outranks a chi
    if "hora" not in claims:
        return True  # a pon or kan stood: the seat would have shown a ron
    return not ({"pon", "daiminkan"} & options or ("hora" in options and not rules.double_ron))


def _record_steps(record: GameRecord, env_game: RiichiEnvGame
                  ) -> Iterator[tuple[Decision, RiichiEnvEngine, int]]:
    """A referee's record replayed on the walls of its seed, as the environment asks:
    each decision, with the engine it is taken on and the actions played before it."""
    if record.game != "riichi":
        raise ValueError(f"not a riichi record: {record.game!r}")
    seed = record.seed
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"riichi record: bad seed {seed!r}")
    if len(record.players) != 4:
        raise ValueError(f"riichi record: {len(record.players)} players, not 4")
    forfeited = {int(f["seat"]): int(f.get("moves", 0))
                 for f in record.settings.get("forfeits", [])}
    failed = {(int(f["seat"]), int(f["moves"])) for f in record.settings.get("failures", [])
              if "moves" in f}
    game = RiichiGame(env_game.rules, seed=seed)
    engine = RiichiEnvEngine(game)
    moves = record.moves
    done = 0
    while True:
        seat = engine.to_play()
        if seat is None:
            break
        kyoku = game.kyoku
        assert kyoku is not None
        move = moves[done] if done < len(moves) else None
        found = None
        if move is not None and move.seat == seat:
            found = _legal_action(env_game, engine, seat, _parsed(done, move.move, seat))
        if kyoku.phase in _QUESTIONS:
            action = NONE_ACTIONS[seat] if found is None else found
            if found is None:  # a pass: the safe default's after a failure here?
                default = (seat, done) in failed
            else:
                default = bool(move and move.info.get("default"))
        elif found is None:
            raise ValueError(_misfit(game, seat, done, move))
        else:
            action, default = found, bool(move and move.info.get("default"))
        after_forfeit = seat in forfeited and done >= forfeited[seat]
        if not default and not after_forfeit:
            yield Decision(seat, _observe(env_game, engine, seat),
                           env_game.legal_mask(engine, seat),
                           env_game.index(engine, seat, action)), engine, engine.moves
        if found is not None:
            done += 1
        engine.apply(seat, action)
    if done < len(moves):
        raise ValueError(f"riichi record: move {done + 1} {moves[done].move[:80]!r} comes "
                         "after the end of the game")
    results = engine.scores()
    if record.scores is not None and [float(s) for s in record.scores] != results:
        raise ValueError(f"riichi record: the replay ends with the results {results}, the "
                         f"record says {record.scores} (other rules?)")


def _legal_action(env_game: RiichiEnvGame, engine: RiichiEnvEngine, seat: int,
                  action: Action) -> Action | None:
    """The engine's own legal action equal to ``action`` (None if it is not legal): by
    its number, the environment's table of legal actions has it at once."""
    try:
        legal = env_game.legal_action(engine, seat, env_game.index(engine, seat, action))
    except ValueError:
        legal = None
    if legal is not None and legal == action:
        return legal
    return engine.game.find_legal(seat, action)


def _parsed(number: int, text: str, seat: int) -> Action:
    """Recorded move ``number`` (0-based) as an action of ``seat``."""
    try:
        data = json_value(text)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        return action_from_mjai(data, seat)
    except ValueError as exc:
        raise ValueError(f"riichi record: move {number + 1} {text[:80]!r} is not an mjai "
                         f"action: {exc}") from None


def _misfit(game: RiichiGame, seat: int, done: int, move: Any) -> str:
    """Why the record's next move does not fit the game where seat ``seat`` acts."""
    if move is None:
        return "riichi record: the moves end before the game does"
    reason = (game.illegal_reason(seat, _parsed(done, move.move, seat))
              if move.seat == seat else f"seat {seat} is to act, not seat {move.seat}")
    return f"riichi record: move {done + 1} {move.move[:80]!r} does not fit the game: {reason}"


DATA = RiichiData()
"""Riichi's dataset maker (the registry's ``data`` entry)."""
