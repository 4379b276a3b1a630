"""Games over pipes against the engine in-process: the referee's own CPU (issue 25).

For each game, whole games between four instant bot programs over real pipes, one game
at a time, with the bots' sandbox as the referee's default (``--sandbox auto``:
bubblewrap where it works) or off:

- Riichi: four ``tsumogiri`` mjai bots (they win when they can, otherwise discard the
  tile drawn; ``--riichi-bot native``: the same bot in C, ``brains/tsumogiri_mjai.c``,
  which wins on its own draws only: a game where the Python bot wins on a discard is not
  the same), east-south games (``--riichi-length east`` for east only), the wall seeded
  with the game's number; the exchanges of the timed games are counted (the CPU per
  exchange); each bot told every event as it happens, or with
  ``--riichi-batched`` in mjai.app's style (the events since its last answer, only when
  it decides: the floor then counts no write to the bots that do not decide);
- Planowanie: four ``random`` player programs, tournament games (13 deals);
- ICGA Mahjong: four ``random`` AIs, games of ``--mahjong-hands`` hands (each hand a
  session of its own: four programs started and stopped per hand, as the spec has it).

Figures per game, from the CPU times of the processes themselves (user + system):

- the referee: ``getrusage(RUSAGE_SELF)`` of this process around the games (all its
  threads: the pipes' stderr drains and the memory watchdog included);
- the bots: each bot runs under ``bash -c 'trap "times >> bot-cpu.txt" EXIT; "$@"'``,
  which appends the bot's user and system time (and the shell's own) to a file in its
  working folder when it exits; summed over the games. ``RUSAGE_CHILDREN`` cannot count
  them: bubblewrap's outer process exits before reaping the processes of its namespace.
  (Planowanie's programs are asked to ``quit`` at the end, ``quit_at_end``, instead of
  being killed: a killed shell writes nothing.)
- the engine in-process, in the same run: the same number of games played by the rules
  engine alone with the same kind of player choosing among its legal actions (Riichi:
  the discard of the tile drawn; Planowanie and Mahjong: random), on one core.

Reported: games per second of wall time, **games per second per core of referee CPU**
(games / referee CPU seconds), the referee's share of the match's CPU (referee / (referee
+ bots)), and the ratio of the referee's games/s/core to the engine's games/s (1 would
be a referee that costs no more than the engine; the Riichi target is 10 games/s/core and
a share of at most 15 %, the others' ratio at least 0.3).

``--against SRC`` runs every part also with the ``referee`` package from another source
tree (``SRC`` is its ``src`` folder: ``git archive COMMIT src`` unpacked somewhere the
sandboxed bots may read, not under ``/tmp``), alternating the two builds ``--repeat``
times in fresh interpreters; the bots run from the tree of the referee that starts them.
Medians are reported. The floors (``floors``): a raw pipe round trip per answered
message and a program start and stop per program, the least any referee of the protocol
spends, and the best ratio to the engine they allow. For Riichi, per exchange a round
trip (the bot that decides) and three writes that each wake a bot (``write_wake_us``,
``bench_pipe_wakeup``: the others are told; their ``none`` answers, read in bulk, are not
counted), plus the engine's own time and four program starts and stops: the best games/s
per core and the least share of the match's CPU (with the bots' CPU measured) an mjai
referee could reach here.

``--pin CPU`` plays every game with the thread playing it and the bots on that CPU, as a
tournament's game slot does with ``affinity = true`` when its players share its CPU (a
write then wakes a bot on the writer's CPU).

Run: ``.venv/bin/python benchmarks/bench_pipes.py`` (``--only riichi``, ``--pin 0``,
``--riichi-bot native``, ``--json``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from figures import alternate_builds, machine, print_figures
from native import native

import referee
from referee.core.players import PlayerSpec
from referee.core.sandbox import OFF, SandboxConfig
from referee.tournament.affinity import pinned_thread

GAMES = ("riichi", "planowanie", "mahjong")
CPU_FILE = "bot-cpu.txt"


def timed(module: str) -> list[str]:
    """The command of the bot ``module`` (with this interpreter, from the source tree of
    the ``referee`` package imported here, which a sandboxed bot can read whatever its
    ``PYTHONPATH``) under a shell that appends its CPU times to ``bot-cpu.txt`` at exit."""
    root = str(Path(referee.__file__).resolve().parents[1])
    start = (f"import sys, runpy; sys.path.insert(0, {root!r}); "
             f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)")
    return timed_command([sys.executable, "-c", start])


def timed_command(argv: list[str]) -> list[str]:
    """``argv`` under a shell that appends its CPU times to ``bot-cpu.txt`` at exit."""
    return ["/bin/bash", "-c", f'trap "times >> {CPU_FILE}" EXIT; "$@"', "bash", *argv]


RIICHI_BOTS = ("python", "native")
"""The Riichi bots: the built-in ``tsumogiri`` (Python), or ``tsumogiri_mjai.c`` (a native
program that wins on its own draws only: a game where the Python bot wins on a discard
is not the same)."""


def riichi_bot(kind: str) -> list[str]:
    """The timed command of the Riichi bot ``kind`` (:data:`RIICHI_BOTS`)."""
    from referee.games.riichi.match import BUILTIN_PLAYERS

    if kind == "native":
        return timed_command([str(native("tsumogiri_mjai"))])
    return timed(BUILTIN_PLAYERS["tsumogiri"])


def bots_cpu(folder: Path) -> float:
    """The CPU seconds in every ``bot-cpu.txt`` under ``folder`` (``times`` lines:
    ``0m0.102s 0m0.008s``, the shell's then its children's)."""
    total = 0.0
    for path in folder.rglob(CPU_FILE):
        for word in path.read_text().split():
            minutes, _, seconds = word.rstrip("s").partition("m")
            total += int(minutes) * 60 + float(seconds)
    return total


def own_cpu() -> float:
    """CPU seconds of this process so far (user + system, all threads)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(play: Callable[[Path, int], None], games: int) -> dict[str, float]:
    """Play ``games`` games with ``play(folder, number)``; wall, referee and bots' CPU."""
    with tempfile.TemporaryDirectory() as tmp:
        cpu = own_cpu()
        start = time.perf_counter()
        for number in range(games):
            play(Path(tmp) / f"game-{number}", number)
        wall = time.perf_counter() - start
        referee = own_cpu() - cpu
        bots = bots_cpu(Path(tmp))
    return {"wall_s": wall, "referee_cpu_s": referee, "bots_cpu_s": bots}


# ------------------------------------------------------------------------------ Riichi


EXCHANGES = "exchanges_per_game"
"""The key of a Riichi game's exchanges (each tells the four bots, reads what it needs)."""


def riichi_pipes(games: int, length: str, sandbox: SandboxConfig,
                 batched: bool = False, bot: str = "python") -> dict[str, float]:
    """Four tsumogiri mjai bots over pipes (``batched``: all four in mjai.app's style;
    ``bot``: which, :data:`RIICHI_BOTS`)."""
    from referee.games.riichi import match
    from referee.games.riichi.rules import RiichiRules

    command = riichi_bot(bot)
    players = [PlayerSpec(f"tsumogiri{s}", command) for s in range(4)]

    def play(folder: Path, number: int) -> None:
        settings = match.RiichiMatchSettings(RiichiRules(game_length=length), seed=number,
                                             sandbox=sandbox, batched=(batched,) * 4)
        record = match.play_riichi(players, settings, folder)
        if record.notes:
            raise AssertionError(f"game {number}: {record.notes[0].text}")

    count = [0]  # the exchanges (each tells the four bots, reads what it needs)
    exchange = match._Referee.exchange

    def counting(self: match._Referee, *args: Any) -> Any:
        count[0] += 1
        return exchange(self, *args)

    match._Referee.exchange = counting  # type: ignore[method-assign]
    try:
        figures = measure(play, games)
    finally:
        match._Referee.exchange = exchange  # type: ignore[method-assign]
    return {**figures, EXCHANGES: count[0] / games}


def riichi_engine(games: int, length: str) -> float:
    """Seconds per game of the engine alone, tsumogiri players choosing among its legal
    actions (``bench_riichi.tsumogiri_game``)."""
    from bench_riichi import tsumogiri_game

    from referee.games.riichi.rules import RiichiRules

    rules = RiichiRules(game_length=length)
    start = time.perf_counter()
    for seed in range(games):
        tsumogiri_game(rules, seed)
    return (time.perf_counter() - start) / games


# ------------------------------------------------------------------------------ Planowanie


def planowanie_pipes(games: int, sandbox: SandboxConfig) -> dict[str, float]:
    """Four random player programs over pipes, tournament games."""
    from referee.games.planowanie.match import (
        BUILTIN_PLAYERS,
        PlanowanieSettings,
        play_planowanie,
    )

    command = timed(BUILTIN_PLAYERS["random"])
    players = [PlayerSpec(f"random{s}", command) for s in range(4)]
    settings = PlanowanieSettings(quit_at_end=True, sandbox=sandbox)

    def play(folder: Path, number: int) -> None:
        record = play_planowanie(players, settings, number, folder)
        if record.outcome is None or record.outcome.value != "normal":
            raise AssertionError(f"game {number}: {record.reason}")

    return measure(play, games)


def planowanie_messages(sandbox: SandboxConfig) -> int:
    """The commands of one game (each answered), counted in a game not timed."""
    from bench_planowanie import commands_counted

    from referee.games.planowanie.match import (
        BUILTIN_PLAYERS,
        PlanowanieSettings,
        play_planowanie,
    )

    players = [PlayerSpec(f"random{s}", timed(BUILTIN_PLAYERS["random"])) for s in range(4)]
    with commands_counted() as count, tempfile.TemporaryDirectory() as tmp:
        play_planowanie(players, PlanowanieSettings(quit_at_end=True, sandbox=sandbox),
                        0, Path(tmp))
    return count[0]


def planowanie_engine(games: int) -> float:
    """Seconds per game of the engine alone with random players (each action checked
    with ``illegal_reason``, as the referee does: ``bench_planowanie.engine_random``)."""
    from bench_planowanie import engine_random

    return engine_random(games)


# ------------------------------------------------------------------------------ Mahjong


def mahjong_pipes(games: int, hands: int, sandbox: SandboxConfig) -> dict[str, float]:
    """Four random AIs over pipes (started afresh for every hand)."""
    from referee.games.mahjong.match import BUILTIN_PLAYERS, MahjongSettings, play_mahjong
    from referee.games.mahjong.rules import Rules

    command = timed(BUILTIN_PLAYERS["random"])
    players = [PlayerSpec(f"random{s}", command) for s in range(4)]
    answers = [0]

    def play(folder: Path, number: int) -> None:
        settings = MahjongSettings(Rules(hands=hands), seed=number + 1, sandbox=sandbox)
        record = play_mahjong(players, settings, folder)
        if record.notes:
            raise AssertionError(f"game {number}: {record.notes[0].text}")
        answers[0] += len(record.moves)

    figures = measure(play, games)
    figures["answers_per_game"] = answers[0] / games
    return figures


def mahjong_engine(games: int, hands: int) -> float:
    """Seconds per game of the engine alone with four random AIs (each deciding from its
    own view of the hand)."""
    from referee.games.mahjong.bots.policies import POLICIES
    from referee.games.mahjong.rules import MahjongGame, Rules

    decide = POLICIES["random"]
    start = time.perf_counter()
    for number in range(games):
        game = MahjongGame(number + 1, Rules(hands=hands))
        rngs = [random.Random(number * 4 + s) for s in range(4)]
        while (seat := game.to_play()) is not None:
            game.apply(seat, decide(game.hand.view(seat), rngs[seat]))
    return (time.perf_counter() - start) / games


# ------------------------------------------------------------------------------ floors


def program_cost(count: int, sandbox: SandboxConfig) -> float:
    """Referee CPU seconds to start a program (``cat``), exchange a line and stop it."""
    from referee.core.players import start_player
    from referee.core.sandbox import plan_sandbox

    plan = plan_sandbox(sandbox)
    with tempfile.TemporaryDirectory() as tmp:
        cpu = own_cpu()
        for number in range(count):
            process = start_player(PlayerSpec("cat", ["/bin/cat"]), Path(tmp), seed=number,
                                   sandbox=plan, tag="floor-")
            process.send("line\n", time.monotonic() + 10)
            process.read_line(time.monotonic() + 10)
            process.close_input()
            process.stop(1.0)
        return (own_cpu() - cpu) / count


def floors(args: argparse.Namespace, sandbox: SandboxConfig) -> dict[str, float]:
    """The least a referee of each protocol costs: its raw pipe round trips (``os.write``,
    ``poll``, ``os.read`` with an echo child, ``bench_referee.baseline``) and its program
    starts and stops (``program_cost``), in referee CPU ms per game."""
    from bench_pipe_wakeup import round_trips
    from bench_referee import baseline

    trip = baseline(3000)
    start_stop = program_cost(10, sandbox)
    return {"round_trip_us": trip * 1e6, "program_start_stop_ms": start_stop * 1000,
            "write_wake_us": round_trips(3000)["write_us"]}


# ------------------------------------------------------------------------------ the run


def run_parts(args: argparse.Namespace) -> dict[str, dict[str, float]]:
    """Every part asked for, once: the figures of each game."""
    sandbox = OFF if args.sandbox == "off" else SandboxConfig()
    out: dict[str, dict[str, float]] = {}
    engines: dict[str, Callable[[], float]] = {
        "riichi": lambda: riichi_engine(args.riichi_engine_games, args.riichi_length),
        "planowanie": lambda: planowanie_engine(args.planowanie_engine_games),
        "mahjong": lambda: mahjong_engine(args.mahjong_engine_games, args.mahjong_hands),
    }
    for game in args.only or GAMES:
        if game == "riichi":
            riichi_engine(2, args.riichi_length)  # warm the shape tables
            pipes = riichi_pipes(args.riichi_games, args.riichi_length, sandbox,
                                 args.riichi_batched, args.riichi_bot)
            games = args.riichi_games
        elif game == "planowanie":
            pipes = planowanie_pipes(args.planowanie_games, sandbox)
            games = args.planowanie_games
        else:
            pipes = mahjong_pipes(args.mahjong_games, args.mahjong_hands, sandbox)
            games = args.mahjong_games
        engine = float("inf") if args.pipes_only else engines[game]()
        out[game] = summary(games, engine, pipes)
    if not args.pipes_only and out:
        least = floors(args, sandbox)
        out["floors"] = least
        trip, start = least["round_trip_us"] / 1000, least["program_start_stop_ms"]
        if "riichi" in out:
            part = out["riichi"]
            exchanges = part[EXCHANGES]
            told = 0 if args.riichi_batched else 3 * least["write_wake_us"] / 1000
            floor = (exchanges * (trip + told) + 1000 / part["engine_games_per_s"]
                     + 4 * start)
            part.update(floor_ms_per_game=floor,
                        best_games_per_s_per_core=1000 / floor,
                        best_share_of_cpu=floor / (floor + part["bots_cpu_ms_per_game"]),
                        best_ratio=1000 / part["engine_games_per_s"] / floor)
        if "planowanie" in out:
            messages = planowanie_messages(sandbox)
            floor = messages * trip + 4 * start
            out["planowanie"].update(messages_per_game=messages, floor_ms_per_game=floor,
                                     best_ratio=1000 / out["planowanie"]["engine_games_per_s"]
                                     / floor)
        if "mahjong" in out:
            answers = out["mahjong"].pop("answers_per_game")
            floor = answers * trip + 4 * args.mahjong_hands * start
            out["mahjong"].update(answers_per_game=answers, floor_ms_per_game=floor,
                                  best_ratio=1000 / out["mahjong"]["engine_games_per_s"]
                                  / floor)
    return out


def summary(games: int, engine: float, pipes: dict[str, float]) -> dict[str, float]:
    """The figures of one game: per game, per core, shares and the ratio to the engine."""
    referee, bots = pipes["referee_cpu_s"], pipes["bots_cpu_s"]
    per_core = games / referee
    extra = {k: v for k, v in pipes.items() if k.endswith("_per_game")}
    return {**extra,
        "games": games,
        "wall_games_per_s": games / pipes["wall_s"],
        "referee_cpu_ms_per_game": 1000 * referee / games,
        "bots_cpu_ms_per_game": 1000 * bots / games,
        "referee_games_per_s_per_core": per_core,
        "referee_share_of_cpu": referee / (referee + bots) if referee + bots else 0.0,
        "engine_games_per_s": 1 / engine,
        "ratio_to_engine": per_core * engine if engine != float("inf") else 0.0,
        **({"referee_cpu_us_per_exchange": 1e6 * referee / games / extra[EXCHANGES],
            "bots_cpu_us_per_exchange": 1e6 * bots / games / extra[EXCHANGES]}
           if extra.get(EXCHANGES) else {}),
    }


def against(args: argparse.Namespace, argv: list[str]) -> dict[str, object]:
    """Alternate this tree's build and ``--against``'s, ``--repeat`` times each, in fresh
    interpreters; the medians of each figure."""
    rest = [a for a in argv if a not in ("--json",)]
    skip = {"--against", "--repeat"}
    clean: list[str] = []
    it = iter(rest)
    for word in it:
        if word in skip:
            next(it, None)
        elif not any(word.startswith(s + "=") for s in skip):
            clean.append(word)
    runs = alternate_builds(Path(__file__).resolve(), clean, args.against, args.repeat)
    medians: dict[str, object] = {}
    for name, results in runs.items():
        parts = [r["parts"] for r in results]
        medians[name] = {game: {key: statistics.median(r[game][key] for r in parts)
                                for key in parts[0][game]} for game in parts[0]}
    return medians


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=GAMES,
                        help="one game (may be repeated); default all three")
    parser.add_argument("--sandbox", choices=("auto", "off"), default="auto")
    parser.add_argument("--riichi-games", type=int, default=10)
    parser.add_argument("--riichi-length", choices=("east", "south"), default="south",
                        help="south: east-south games (the default), east: east only")
    parser.add_argument("--riichi-batched", action="store_true",
                        help="the four bots in mjai.app's batched style: a bot is written "
                        "to only when it decides (and at the game's end)")
    parser.add_argument("--riichi-bot", choices=RIICHI_BOTS, default="python",
                        help="native: the tsumogiri bot in C (built with cc; it wins on "
                        "its own draws only, so its games differ)")
    parser.add_argument("--riichi-engine-games", type=int, default=30)
    parser.add_argument("--planowanie-games", type=int, default=6)
    parser.add_argument("--planowanie-engine-games", type=int, default=200)
    parser.add_argument("--mahjong-games", type=int, default=2)
    parser.add_argument("--mahjong-hands", type=int, default=16)
    parser.add_argument("--mahjong-engine-games", type=int, default=40)
    parser.add_argument("--pipes-only", action="store_true",
                        help="no engine games (to profile the referee alone)")
    parser.add_argument("--against", help="the src folder of another build to compare")
    parser.add_argument("--repeat", type=int, default=3, help="alternations with --against")
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    parser.add_argument("--pin", type=int, metavar="CPU",
                        help="the games' thread and the bots on this CPU (affinity = true)")
    args = parser.parse_args()
    result: dict[str, object] = {
        "machine": machine(),
        "load_before": round(os.getloadavg()[0], 2),
        "sandbox": args.sandbox,
        "riichi_length": "east-south" if args.riichi_length == "south" else "east",
        "riichi_style": "batched (mjai.app)" if args.riichi_batched else "a line an event",
        "riichi_bot": args.riichi_bot,
        "pinned_to_cpu": args.pin,
    }
    if args.against:
        result.update(against(args, sys.argv[1:]))
    else:
        with pinned_thread(None if args.pin is None else {args.pin}):
            result["parts"] = run_parts(args)
    result["load_after"] = round(os.getloadavg()[0], 2)
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        if isinstance(value, dict):
            for game, figures in value.items():
                print_figures({f"{key} {game}": {k: round(v, 4) for k, v in figures.items()}},
                              False)
        else:
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
