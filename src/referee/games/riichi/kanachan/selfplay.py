"""``referee selfplay riichi``: play games of built-in bots and annotate them in one go.

Game ``i`` (0-based) of a run with seed ``S`` is a Riichi game seeded ``S + i`` (the walls
follow from the seed, :class:`~referee.games.riichi.rules.RiichiGame`), played by four
in-process policies (:data:`~referee.games.riichi.match.POLICIES`, each over its own
masked view, as a bot process would see the game), then annotated from its own event log
exactly as a log file would be (:func:`~referee.games.riichi.kanachan.annotate.
annotate_game`), with game id ``selfplay-<seed>``. The same seed, players and rules give
the same games and the same lines, whatever the number of jobs.

Games run in ``jobs`` processes or as Ray tasks (:mod:`referee.training.parallel`); the
lines are written in game order. With ``records`` each game's mjai log is also kept there
as ``selfplay-<seed>.mjson`` (readable by ``referee replay riichi`` and ``referee annotate
riichi``; its ``start_game`` records the rules played).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from referee.core.errors import ConfigError
from referee.games.riichi.kanachan.annotate import Context, annotate_game
from referee.training.corpus import AnnotateSummary, GameLines, write_games
from referee.training.parallel import ordered_map

__all__ = ["SelfPlayTask", "play_and_annotate", "selfplay"]


@dataclass(frozen=True)
class SelfPlayTask:
    """One game to play: its seed, the four policies' names, the rules (a rule set's name
    or a rules file's path, :func:`~referee.games.riichi.rulesets.resolve_rules`), the game
    length (None: the rules') and where to keep its mjai log (or None)."""

    seed: int
    players: tuple[str, ...]
    room: str = "tenhou"
    length: str | None = None
    records: str | None = None
    context: Context = field(default_factory=Context)


def play_and_annotate(task: SelfPlayTask) -> GameLines:
    """Play one game and annotate it; errors come back as data."""
    from referee.games.riichi.logrules import start_game_event
    from referee.games.riichi.match import POLICIES, self_play
    from referee.games.riichi.mjai import event_from_dict, write_mjai
    from referee.games.riichi.rulesets import resolve_rules

    game_id = f"selfplay-{task.seed}"
    try:
        rules = resolve_rules(task.room, task.length)
        played = self_play([POLICIES[name] for name in task.players], rules, task.seed,
                           names=task.players)
        events = [start_game_event(task.players, rules), *played.game.events]
        if task.records is not None:
            write_mjai(Path(task.records) / f"{game_id}.mjson",
                       (event_from_dict(e) for e in events))
        lines = annotate_game(events, game_id, task.context, rules)
    except (ValueError, OSError) as exc:
        return GameLines(game_id, error=str(exc).replace("\n", " "))
    return GameLines(game_id, lines)


def selfplay(games: int, output: str | Path, *, seed: int = 1,
             players: Sequence[str] = ("greedy",) * 4, room: str = "tenhou",
             length: str | None = None, records: str | Path | None = None,
             context: Context | None = None, jobs: int = 1,
             ray: str | None = None) -> AnnotateSummary:
    """Play ``games`` games and write their annotations to ``output``: the rules are the
    rule set or rules file ``room`` names, with the game length ``length`` when given (a
    rules file must be found at the same path by every process, on Ray every node)."""
    from referee.games.riichi.match import POLICIES
    from referee.games.riichi.rulesets import resolve_rules

    if games < 1:
        raise ConfigError(f"--games must be at least 1, not {games}")
    if len(players) != 4:
        raise ConfigError(f"four players are needed, not {len(players)}")
    unknown = [p for p in players if p not in POLICIES]
    if unknown:
        raise ConfigError(f"unknown player {unknown[0]!r} (built-in: "
                          f"{', '.join(sorted(POLICIES))})")
    if length not in (None, "east", "south"):
        raise ConfigError(f"unknown game length {length!r} (east or south)")
    resolve_rules(room, length)  # a ConfigError names a bad rule set or rules file
    folder = None
    if records is not None:
        Path(records).mkdir(parents=True, exist_ok=True)
        folder = str(records)
    tasks = (SelfPlayTask(seed + i, tuple(players), room, length, folder,
                          context or Context()) for i in range(games))
    return write_games(ordered_map(play_and_annotate, tasks, jobs, ray), output)
