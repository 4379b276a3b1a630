"""Schedules: which games a tournament plays, with whom in which seat, on which opening.

A schedule produces ``ScheduledGame``s round by round. Every game has a stable key and a
seed derived from the tournament seed and that key, so the same tournament gives the same
games (and the same seeds) however many run at once and however often it is resumed.

Two-seat games are played in pairs on the same opening with the seats (colours) swapped,
as fastchess does; ``pair`` links the two games of a pair (for pentanomial statistics).
Static schedules (round-robin, gauntlet) know all their rounds at once; Swiss pairs each
round from the standings after the previous one. The ITPW format (``Itpw``) splits the
field into groups of a game's seat count each round, plays every cyclic seat rotation in
each group, and gives every game of a round the same seed (the same deals); its groups are
drawn at random for the first rounds, then chosen from the ratings (``itpw``).
"""

from __future__ import annotations

import hashlib
import itertools
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from referee.tournament.itpw import random_groups, variance_groups
from referee.tournament.ratings import BayesEloParams, Result


@dataclass(frozen=True)
class ScheduledGame:
    """One game of the schedule."""

    key: str
    round: int
    seats: tuple[str, ...]
    seed: int
    opening: int | None = None
    pair: str | None = None


def derive_seed(seed: int, *parts: object) -> int:
    """A stable 63-bit seed from the tournament seed and any identifying parts."""
    text = "/".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


class Schedule(ABC):
    """The games of a tournament, round by round."""

    def __init__(self, players: Sequence[str], rounds: int, seed: int, openings: int) -> None:
        self.players = list(players)
        self.rounds = rounds
        self.seed = seed
        self.openings = openings

    @property
    def static(self) -> bool:
        """Whether every round is known in advance (no dependence on results)."""
        return True

    def openings_used(self) -> int:
        """How many of the openings the games play (every one, unless said otherwise)."""
        return self.openings

    uses_results = False
    """Whether ``round_games`` needs the pairwise results so far (ITPW's ratings)."""

    @abstractmethod
    def round_games(self, number: int, scores: Mapping[str, float],
                    met: Mapping[frozenset[str], int],
                    results: Sequence[Result] = ()) -> list[ScheduledGame]:
        """The games of round ``number`` (1-based), given the standings so far: points,
        how often each pair met, the pairwise results."""

    @abstractmethod
    def total_games(self) -> int:
        """How many games the whole schedule has."""

    def _pair_games(self, number: int, first: str, second: str,
                    opening: int | None) -> list[ScheduledGame]:
        """Two games on one opening with the seats swapped."""
        tag = f"o{opening}" if opening is not None else "o-"
        pair = f"r{number}:{first}:{second}:{tag}"
        games = []
        for side, seats in (("a", (first, second)), ("b", (second, first))):
            key = f"{pair}:{side}"
            games.append(ScheduledGame(key, number, seats, derive_seed(self.seed, key),
                                       opening, pair))
        return games

    def _openings(self) -> list[int | None]:
        return list(range(self.openings)) if self.openings else [None]


class RoundRobin(Schedule):
    """Every pair of players plays every opening with both colours, each round."""

    def encounters(self) -> list[tuple[str, str]]:
        """The pairs that meet each round."""
        return list(itertools.combinations(self.players, 2))

    def round_games(self, number: int, scores: Mapping[str, float],
                    met: Mapping[frozenset[str], int],
                    results: Sequence[Result] = ()) -> list[ScheduledGame]:
        """All encounters of the round, every opening, both colours."""
        games = []
        for first, second in self.encounters():
            for opening in self._openings():
                games.extend(self._pair_games(number, first, second, opening))
        return games

    def total_games(self) -> int:
        """Pairs x openings x 2 x rounds."""
        return len(self.encounters()) * len(self._openings()) * 2 * self.rounds


class Gauntlet(RoundRobin):
    """One player meets every other one; the others do not meet each other."""

    def __init__(self, players: Sequence[str], rounds: int, seed: int, openings: int,
                 champion: str | None = None) -> None:
        super().__init__(players, rounds, seed, openings)
        self.champion = champion or self.players[0]

    def encounters(self) -> list[tuple[str, str]]:
        """The champion against each other player."""
        return [(self.champion, p) for p in self.players if p != self.champion]


class Swiss(Schedule):
    """Each round pairs players of similar scores who have met least; a pair of games each.

    Players are ranked by score (ties by their order in the file); from the top, each takes
    the highest-ranked player it has met the fewest times. With an odd field the lowest
    ranked player that has had the fewest byes sits out (a bye scores nothing).
    """

    @property
    def static(self) -> bool:
        """Swiss rounds depend on the results so far."""
        return False

    def round_games(self, number: int, scores: Mapping[str, float],
                    met: Mapping[frozenset[str], int],
                    results: Sequence[Result] = ()) -> list[ScheduledGame]:
        """Pair the field by score for round ``number``."""
        order = {p: i for i, p in enumerate(self.players)}
        ranked = sorted(self.players, key=lambda p: (-scores.get(p, 0.0), order[p]))
        if len(ranked) % 2:
            byes = {p: met.get(frozenset((p,)), 0) for p in ranked}
            fewest = min(byes.values())
            sitter = next(p for p in reversed(ranked) if byes[p] == fewest)
            ranked.remove(sitter)
        openings = self._openings()
        opening = openings[(number - 1) % len(openings)]
        games: list[ScheduledGame] = []
        left = ranked[:]
        while left:
            top = left.pop(0)
            rival = min(left, key=lambda p: (met.get(frozenset((top, p)), 0), left.index(p)))
            left.remove(rival)
            games.extend(self._pair_games(number, top, rival, opening))
        return games

    def openings_used(self) -> int:
        """Opening *k* in round *k*: only as many openings as rounds."""
        return min(self.openings, self.rounds)

    def sitting_out(self, games: Sequence[ScheduledGame]) -> list[str]:
        """Players with no game in ``games`` (the bye of an odd field)."""
        playing = {p for g in games for p in g.seats}
        return [p for p in self.players if p not in playing]

    def total_games(self) -> int:
        """Half the field (rounded down) x 2 games x rounds."""
        return (len(self.players) // 2) * 2 * self.rounds


class Itpw(Schedule):
    """The ITPW format: each round, groups of ``size`` play every cyclic seat rotation.

    All games of a round share one seed (the same deals everywhere). The groups of the
    first ``random_rounds`` rounds are drawn at random (from the tournament seed and the
    round); later ones minimise the variance of the ratings (``variance_groups``, with
    ``params``). The field must be a multiple of ``size`` (house bots fill it up). Games
    of one group share a ``pair`` tag (for two seats: a colour-swapped pair).
    """

    def __init__(self, players: Sequence[str], rounds: int, seed: int, size: int,
                 random_rounds: int, params: BayesEloParams) -> None:
        super().__init__(players, rounds, seed, 0)
        if size < 2 or len(self.players) % size:
            raise ValueError(f"{len(self.players)} players cannot be split into groups "
                             f"of {size}")
        self.size = size
        self.random_rounds = random_rounds
        self.params = params

    uses_results = True

    @property
    def static(self) -> bool:
        """Later rounds depend on the ratings so far."""
        return False

    def groups(self, number: int, met: Mapping[frozenset[str], int],
               results: Sequence[Result]) -> list[list[str]]:
        """The groups of round ``number``."""
        if number <= self.random_rounds or not results:
            rng = random.Random(derive_seed(self.seed, "groups", number))
            return random_groups(self.players, self.size, rng)
        return variance_groups(self.players, self.size, results, self.params, met)

    def round_games(self, number: int, scores: Mapping[str, float],
                    met: Mapping[frozenset[str], int],
                    results: Sequence[Result] = ()) -> list[ScheduledGame]:
        """Every rotation of every group, all on the round's seed."""
        seed = derive_seed(self.seed, "round", number)
        games = []
        for index, group in enumerate(self.groups(number, met, results), start=1):
            tag = f"r{number}:g{index}"
            for shift in range(self.size):
                seats = tuple(group[shift:] + group[:shift])
                games.append(ScheduledGame(f"{tag}:s{shift}", number, seats, seed, None, tag))
        return games

    def total_games(self) -> int:
        """One game per player per round (groups of n play n rotations)."""
        return len(self.players) * self.rounds


def make_schedule(kind: str, players: Sequence[str], rounds: int, seed: int, openings: int,
                  gauntlet: str | None = None, *, seats: int = 2, random_rounds: int = 10,
                  params: BayesEloParams | None = None) -> Schedule:
    """The schedule named ``kind`` (round-robin, gauntlet, swiss, itpw); ``seats``,
    ``random_rounds`` and ``params`` are the ITPW group size, random rounds and ratings."""
    if kind == "round-robin":
        return RoundRobin(players, rounds, seed, openings)
    if kind == "gauntlet":
        return Gauntlet(players, rounds, seed, openings, gauntlet)
    if kind == "swiss":
        return Swiss(players, rounds, seed, openings)
    if kind == "itpw":
        return Itpw(players, rounds, seed, seats, random_rounds,
                    params or BayesEloParams.itpw())
    raise ValueError(f"unknown schedule {kind!r}")
