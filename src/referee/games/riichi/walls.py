"""Where a Riichi hand's tiles come from, and how a hand is dealt.

Tiles come from a :class:`TileSource`: the engine only ever asks it for the next tile, the
next replacement tile and the indicators, so a log replay can supply the recorded tiles.
:class:`SeededWall` is the source of a shuffled wall (its seed per hand of a game:
:func:`hand_seed`); :class:`ScriptedWall` plays given lists. A :class:`Deal` is how a hand
starts: the four starting hands, the first dora indicator and where the game stands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from referee.core.shuffle import splitmix64, splitmix_shuffle
from referee.games.riichi.settings import SEATS
from referee.games.riichi.tiles import TILES

__all__ = ["Deal", "ScriptedWall", "SeededWall", "TileSource", "hand_seed"]


class TileSource(Protocol):
    """Where a hand's tiles come from. The engine asks only this, never a wall list."""

    def draw(self) -> int:
        """The next tile of the live wall."""
        ...

    def draw_rinshan(self) -> int:
        """The next replacement (rinshan) tile after a kan; it shortens the live wall by
        one (the live wall's last tile joins the dead wall)."""
        ...

    def dora_indicator(self, n: int) -> int:
        """The ``n``-th dora indicator, 0-based (0 is the one shown at the start)."""
        ...

    def ura_indicator(self, n: int) -> int:
        """The ``n``-th ura dora indicator, 0-based (under the ``n``-th dora indicator)."""
        ...

    def live_left(self) -> int:
        """Tiles the live wall still holds (0: the last tile has been drawn)."""
        ...

    def copy(self) -> TileSource:
        """An independent copy, at the same point."""
        ...


class SeededWall:
    """A wall of the 136 tiles shuffled from ``seed`` (:func:`splitmix_shuffle` of 0..135).

    Layout of ``tiles`` (the shuffled order):

    - ``tiles[0:52]``: the four starting hands, 13 each: :meth:`haipai` ``(i)`` is
      ``tiles[13 * i: 13 * i + 13]``, hand 0 the dealer's, then the dealer's right
      (shimocha), across (toimen), left (kamicha);
    - ``tiles[52:56]``: the four rinshan (replacement) tiles, drawn in that order;
    - ``tiles[56:61]``: the dora indicators 0..4; ``tiles[61:66]``: the ura indicators 0..4
      (ura ``n`` lies under dora indicator ``n``);
    - ``tiles[66:136]``: the live wall, 70 tiles, drawn in that order. Every rinshan draw
      shortens it by one from the end, so ``live_left`` is 70 minus draws and rinshan draws.
    """

    DEAD_WALL: Final = 14
    LIVE: Final = 70

    def __init__(self, seed: int, *, tiles: tuple[int, ...] | None = None) -> None:
        self.seed = seed
        self.tiles: tuple[int, ...] = tuple(splitmix_shuffle(range(TILES), seed)) \
            if tiles is None else tiles
        """The shuffled tiles (``tiles`` when given: those of this seed, known already)."""
        self._drawn = 0
        self._rinshan = 0

    def copy(self) -> SeededWall:
        """An independent copy, at the same point."""
        new = SeededWall(self.seed, tiles=self.tiles)
        new._drawn = self._drawn
        new._rinshan = self._rinshan
        return new

    def haipai(self, i: int) -> tuple[int, ...]:
        """The ``i``-th starting hand (0: the dealer's, then in turn order)."""
        return self.tiles[13 * i: 13 * i + 13]

    def draw(self) -> int:
        """The next live-wall tile."""
        if self.live_left() <= 0:
            raise IndexError("the live wall is empty")
        tile = self.tiles[66 + self._drawn]
        self._drawn += 1
        return tile

    def draw_rinshan(self) -> int:
        """The next rinshan tile."""
        if self._rinshan >= 4 or self.live_left() <= 0:
            raise IndexError("no rinshan tile is left")
        tile = self.tiles[52 + self._rinshan]
        self._rinshan += 1
        return tile

    def dora_indicator(self, n: int) -> int:
        """Dora indicator ``n`` (0..4)."""
        if not 0 <= n < 5:
            raise IndexError(f"dora indicator {n}: there are five (0..4)")
        return self.tiles[56 + n]

    def ura_indicator(self, n: int) -> int:
        """Ura indicator ``n`` (0..4)."""
        if not 0 <= n < 5:
            raise IndexError(f"ura indicator {n}: there are five (0..4)")
        return self.tiles[61 + n]

    def live_left(self) -> int:
        """Live-wall tiles not drawn yet."""
        return self.LIVE - self._drawn - self._rinshan


class ScriptedWall:
    """A tile source playing given lists: the live-wall draws in order, the rinshan tiles,
    the dora and ura indicators. ``live_total`` is the live wall's size (default: the
    number of draws given; 70 in a real hand); rinshan draws shorten it as in a real wall.
    For crafted hands in tests and for log replays."""

    def __init__(self, live: Sequence[int], rinshan: Sequence[int] = (),
                 dora: Sequence[int] = (), ura: Sequence[int] = (),
                 live_total: int | None = None) -> None:
        self.live = tuple(live)
        self.rinshan = tuple(rinshan)
        self.dora = tuple(dora)
        self.ura = tuple(ura)
        self.live_total = len(self.live) if live_total is None else live_total
        self._drawn = 0
        self._rinshan = 0

    def copy(self) -> ScriptedWall:
        """An independent copy, at the same point."""
        new = ScriptedWall(self.live, self.rinshan, self.dora, self.ura, self.live_total)
        new._drawn = self._drawn
        new._rinshan = self._rinshan
        return new

    def draw(self) -> int:
        """The next scripted draw."""
        if self.live_left() <= 0 or self._drawn >= len(self.live):
            raise IndexError("no scripted draw is left")
        tile = self.live[self._drawn]
        self._drawn += 1
        return tile

    def draw_rinshan(self) -> int:
        """The next scripted rinshan tile."""
        if self._rinshan >= len(self.rinshan):
            raise IndexError("no scripted rinshan tile is left")
        tile = self.rinshan[self._rinshan]
        self._rinshan += 1
        return tile

    def dora_indicator(self, n: int) -> int:
        """Scripted dora indicator ``n``."""
        return self.dora[n]

    def ura_indicator(self, n: int) -> int:
        """Scripted ura indicator ``n``."""
        return self.ura[n]

    def live_left(self) -> int:
        """The live wall's size minus draws and rinshan draws."""
        return self.live_total - self._drawn - self._rinshan


def hand_seed(seed: int, number: int) -> int:
    """The wall seed of hand ``number`` (0-based, repeats counted) of a game seeded ``seed``."""
    mask = (1 << 64) - 1
    _, first = splitmix64((seed & mask) ^ 0x5EED5EED5EED5EED)
    _, out = splitmix64((first + number * 0x9E3779B97F4A7C15) & mask)
    return out


@dataclass(frozen=True)
class Deal:
    """How a hand starts: the four starting hands by absolute seat (13 tile ids each), the
    first dora indicator, the dealer, the round wind (0 East .. 3 North), the hand number
    within the wind (1..4), honba, riichi sticks on the table and the four scores."""

    tehais: tuple[tuple[int, ...], ...]
    dora_marker: int
    oya: int = 0
    bakaze: int = 0
    kyoku: int = 1
    honba: int = 0
    kyotaku: int = 0
    scores: tuple[int, ...] = (25000, 25000, 25000, 25000)

    def __post_init__(self) -> None:
        if len(self.tehais) != SEATS or any(len(h) != 13 for h in self.tehais):
            raise ValueError("a deal is four hands of 13 tiles")
        every = [t for h in self.tehais for t in h] + [self.dora_marker]
        if len(set(every)) != len(every) or not all(0 <= t < TILES for t in every):
            raise ValueError("the dealt tiles and the dora marker must be distinct ids 0..135")
        if not (0 <= self.oya < SEATS and 0 <= self.bakaze < SEATS and 1 <= self.kyoku <= 4):
            raise ValueError("oya and bakaze are 0..3, kyoku 1..4")
        if len(self.scores) != SEATS:
            raise ValueError("a deal has four scores")

