"""``referee dataset planowanie|mahjong``: decisions written per second, and memory that
stays flat in the number of games (``bench_dataset.py`` measures Gomoku).

For each game asked (``--game``, both by default), makes ``--games`` games of random
legal moves with the referee's own engine (Planowanie: 4 players, the tournament's 13
deals; ICGA Mahjong: ``--hands`` hands, random answers but half the time the greedy AI's,
so that seats claim and win), writes them as record files in a temporary folder, then
runs ``write_dataset`` on them in a child process, timing it and reading the child's peak
memory (ru_maxrss). The same again with ten times the games: memory should stay within
10 %. There is no speed target for these two games (Gomoku's is 50,000 decisions a
second, Riichi's 10,000).

Run: ``.venv/bin/python benchmarks/bench_dataset_cards.py [--game planowanie]
[--games 200] [--hands 4] [--json]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
from pathlib import Path

from dataset_runs import small_and_large
from figures import print_figures

from referee.core.outcome import Outcome
from referee.core.record import GameRecord, PlayerInfo
from referee.games.mahjong.bots.policies import greedy_policy
from referee.games.mahjong.game import MahjongGame
from referee.games.mahjong.rules import Rules as MahjongRules
from referee.games.planowanie.rules import PlanowanieGame, Rules

GAMES = ("planowanie", "mahjong")

def planowanie_games(folder: Path, count: int, seed: int, hands: int) -> None:
    """``count`` random legal Planowanie games (4 players, 13 deals) as record files."""
    rules = Rules()
    rng = random.Random(seed)
    for index in range(count):
        game = PlanowanieGame(rules, seed * 1_000_003 + index)
        record = GameRecord("planowanie", [PlayerInfo(f"p{s}") for s in range(4)],
                            settings={"values": rules.deck.values, "suits": rules.deck.suits,
                                      "players": 4, "deals": [list(d) for d in rules.deals]},
                            seed=game.seed, index=index + 1)
        while (seat := game.to_play()) is not None:
            action = rng.choice(game.legal_actions())
            record.add_move(seat, game.notation(action), 0.0)
            game.apply(seat, action)
        record.finish(game.scores(), Outcome.NORMAL, game.end_reason())
        record.write(folder / f"game-{index + 1:05d}.json")


def mahjong_games(folder: Path, count: int, seed: int, hands: int) -> None:
    """``count`` ICGA Mahjong games of ``hands`` hands (random or greedy answers) as
    record files."""
    rules = MahjongRules(hands=hands)
    rng = random.Random(seed)
    for index in range(count):
        game = MahjongGame(seed * 1_000_003 + index, rules)
        record = GameRecord("mahjong", [PlayerInfo(f"p{s}") for s in range(4)],
                            settings={"hands": hands, "reserve": rules.reserve,
                                      "base": rules.stakes.base,
                                      "per_tai": rules.stakes.per_tai,
                                      "scoring": rules.table.name,
                                      "kong_from_previous": rules.kong_from_previous,
                                      "takeover": "hand"},
                            seed=game.seed, index=index + 1)
        while (seat := game.to_play()) is not None:
            if rng.random() < 0.5:
                action = greedy_policy(game.hand.view(seat), rng)
            else:
                action = rng.choice(game.hand.legal_actions())
            record.add_move(seat, game.notation(action), 0.0)
            game.apply(seat, action)
        record.finish(game.scores(), Outcome.NORMAL, game.end_reason())
        record.write(folder / f"game-{index + 1:05d}.json")


MAKERS = {"planowanie": planowanie_games, "mahjong": mahjong_games}


def main() -> None:
    """Measure both sizes of each game and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=GAMES, action="append",
                        help="a game to measure (repeatable; default: both)")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--hands", type=int, default=4, help="Mahjong's hands per game")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result: dict[str, object] = {"machine": f"{platform.machine()}, {os.cpu_count()} cores",
                                 "python": platform.python_version()}
    for game in args.game or GAMES:
        def made(folder: Path, count: int, seed: int, game: str = game) -> None:
            MAKERS[game](folder, count, seed, args.hands)

        result.update(small_and_large(game, made, args.games, prefix=f"{game} "))
    print_figures(result, args.json)


if __name__ == "__main__":
    main()
