"""One hand of Taiwanese 16-tile Mahjong as the ICGA framework plays it: the hand's state
machine :class:`MahjongHand` (the spec's "game"), its :class:`Rules`, the events it tells
(:class:`Event`), the question it waits for (:class:`Question`) and how it ended
(:class:`HandResult`).

Pure and deterministic: a hand is played from a wall made from a seed, and the engine
only asks questions and applies answers (:mod:`referee.games.mahjong.actions`);
:class:`~referee.games.mahjong.game.MahjongGame` chains hands into the referee's match.
Seats are 0..3 here (the protocol's client ids are 1..4).

How a hand goes (docs/mahjong.md has the whole rule set):

- Deal: four tiles at a time to each seat from the dealer on, four times, then one more
  to the dealer: 17 tiles for the dealer, 16 for the others. Flowers are set aside at
  once, seat by seat from the dealer, each replaced from the back of the wall (again if
  the replacement is a flower). A flower drawn later is replaced the same way. Players
  are not told of flowers: no flower is ever in a hand, ``/initCard`` and ``/mo`` carry
  only the tiles that replace them; the record and the scores count them.
- A seat that has drawn is asked, in this order, ``HU`` (if its hand wins), ``GONG`` (if
  it holds four of a kind, or the fourth tile of one of its pungs, and a tile is left to
  draw), ``THROW``. After a
  concealed or promoted kong it draws a replacement from the back of the wall and is
  asked again. A promoted kong may be robbed: the seats whose hand wins with that tile
  are asked ``HU`` first.
- After a discard the other seats are asked, in priority order: ``HU`` (every seat that
  wins with it, from the discarder's right), then ``GONG`` and ``PONG`` (the seat that
  holds three or two of that kind; not ``GONG`` for the next seat, whose previous player
  threw it, as the framework says, unless ``Rules.kong_from_previous``; not ``GONG`` once
  the wall is down to its last tile either), then ``EAT`` (only the next seat, if it can
  chow).
  The first seat to accept takes the tile: hu > pong/kong > chow, and between two hus
  the first seat after the discarder. A pong or chow is followed by ``THROW``; a melded
  kong by a replacement draw.
- No kong once the last tile before the reserve is drawn (``live`` 0): a kong takes a
  replacement tile and none may be drawn. The framework is silent; this is how the common
  Taiwanese tables play the last tile (海底: no kong from it).
- The hand is drawn when a draw would take the wall down to its reserved tiles (16 by
  default). The dealer passes every hand (no continuation).
- With a tai table that has flower wins (``taiwan``), the hand also ends as soon as a
  seat sets aside its eighth flower (八仙過海), or sets aside the eighth while another
  seat holds the seven others (七搶一: that seat takes it and wins, the first one pays).
"""


from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from referee.core.errors import ConfigError
from referee.games.mahjong.actions import (
    Action,
    Ask,
    ConcealedKong,
    Eat,
    Hu,
    Kong,
    Pass,
    Pong,
    PromotedKong,
    SeatView,
    Throw,
    chows,
    self_kongs,
    tiles_of,
)
from referee.games.mahjong.hand import decompositions, is_winning
from referee.games.mahjong.melds import Meld, MeldKind
from referee.games.mahjong.scoring import (
    ScoreResult,
    Stakes,
    Table,
    TaiTable,
    WinContext,
    flower_score,
    flower_win,
    payments,
    score,
)
from referee.games.mahjong.tiles import counts_of, is_flower, kind_of, tid_name

__all__ = ["SEATS", "Event", "HandResult", "MahjongHand", "Question", "Rules"]

SEATS = 4


# -------------------------------------------------------------------------------- events


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, for the protocol to tell the seats.

    ``kind`` is one of: ``deal`` (``seat`` got ``tiles``), ``flower`` (``seat`` set aside
    ``tiles[0]``), ``draw`` (``seat`` drew ``tiles[0]``), ``ask`` (``seat`` is asked
    ``ask``), ``throw``, ``eat``/``pong`` (``tiles`` the whole set, ``claimed`` the
    discard), ``gong`` (``kong`` 4 melded, 0 concealed, 1 promoted), ``hu`` (``tiles``:
    the winner's concealed tiles, ``claimed`` the winning tile), ``end`` (the hand is
    over: ``scores``).
    """

    kind: str
    seat: int = -1
    tiles: tuple[int, ...] = ()
    claimed: int | None = None
    ask: Ask | None = None
    kong: int | None = None
    scores: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Question:
    """A seat's pending question."""

    seat: int
    ask: Ask


@dataclass(frozen=True)
class HandResult:
    """How a hand ended: the winner (None for a drawn hand), the discarder (None for a
    self-draw), the score and each seat's payment."""

    winner: int | None
    discarder: int | None
    score: ScoreResult | None
    payments: tuple[int, ...]
    reason: str


@dataclass(frozen=True)
class Rules:
    """The configurable rules of a game."""

    hands: int = 16
    """Hands in a game (16: four wind rounds of four)."""
    reserve: int = 16
    """Tiles left in the wall when the hand is drawn."""
    table: Table = field(default_factory=TaiTable)
    """The tai table (``scoring.preset``: ``icga`` by default, or ``taiwan``)."""
    stakes: Stakes = field(default_factory=Stakes)
    kong_from_previous: bool = False
    """Whether a melded kong may take the previous player's discard (the framework: "cannot
    make a Gong by bidding the tile discarded by the previous player")."""

    def __post_init__(self) -> None:
        if self.hands < 1:
            raise ConfigError(f"hands = {self.hands}: a game has at least one hand")
        if not 0 <= self.reserve <= 60:
            raise ConfigError(f"reserve = {self.reserve}: expected 0 to 60 tiles")



# -------------------------------------------------------------------------------- a hand


class MahjongHand:
    """One hand: the deal, the turns and claims, the end (win or draw).

    ``question`` is what the engine waits for; ``legal_actions`` lists the answers;
    ``apply`` plays one. ``events`` grows as the hand goes on.
    """

    def __init__(self, wall: Sequence[int], dealer: int = 0, round_wind: int = 0,
                 rules: Rules | None = None) -> None:
        if sorted(wall) != sorted(set(wall)) or len(wall) != 144:
            raise ValueError("a wall is the 144 distinct tiles of a set")
        self.rules = rules or Rules()
        self.dealer = dealer
        self.round_wind = round_wind
        self.wall = list(wall)
        self.front = 0
        self.back = len(self.wall)
        self.hands: list[list[int]] = [[] for _ in range(SEATS)]
        self.melds: list[list[Meld]] = [[] for _ in range(SEATS)]
        self.flowers: list[list[int]] = [[] for _ in range(SEATS)]
        self.discards: list[list[int]] = [[] for _ in range(SEATS)]
        self.events: list[Event] = []
        self.result: HandResult | None = None
        self.question: Question | None = None
        self.turn = dealer
        self.drawn: int | None = None
        """The tile the seat on turn drew last (None after a claim)."""
        self.discard: tuple[int, int] | None = None
        """The (seat, tile) open to claims."""
        self._queue: list[Question] = []
        self._self_stage: list[Ask] = []
        self._replacement = False
        self._robbing: tuple[int, int] | None = None
        """(seat, tile) of a promoted kong waiting for the robbing question."""
        self._calls = 0
        """Claims made so far (heavenly/earthly hands need none)."""
        self._first_turn = [True] * SEATS
        self._deal()

    # ---------------------------------------------------------------- wall

    @property
    def live(self) -> int:
        """Tiles that may still be drawn before the hand is drawn."""
        return self.back - self.front - self.rules.reserve

    def _take_front(self) -> int:
        tile = self.wall[self.front]
        self.front += 1
        return tile

    def _take_back(self) -> int:
        self.back -= 1
        return self.wall[self.back]

    def _replace_flowers(self, seat: int, tile: int) -> int | None:
        """Set ``tile`` aside while it is a flower, drawing from the back; the final tile,
        or None if the wall ran out or a flower win ended the hand."""
        while is_flower(tile):
            self.flowers[seat].append(tile)
            self.events.append(Event("flower", seat, (tile,)))
            if self.rules.table.flower_wins and self._flower_win(seat):
                return None
            if self.live <= 0:
                return None
            tile = self._take_back()
        return tile

    def _receive(self, seat: int, tile: int, reason: str) -> int | None:
        """Put ``tile`` into ``seat``'s hand, a flower replaced (:meth:`_replace_flowers`);
        the tile put there, or None if the hand ended (drawn for ``reason``, or won on
        flowers)."""
        final = self._replace_flowers(seat, tile)
        if final is None:
            self._draw_game(reason)
            return None
        self.hands[seat].append(final)
        return final

    # ---------------------------------------------------------------- deal

    def _deal(self) -> None:
        order = [(self.dealer + k) % SEATS for k in range(SEATS)]
        for _ in range(4):
            for seat in order:
                self.hands[seat].extend(self._take_front() for _ in range(4))
        self.hands[self.dealer].append(self._take_front())
        for seat in order:
            for tile in [t for t in self.hands[seat] if is_flower(t)]:
                self.hands[seat].remove(tile)
                if self._receive(seat, tile, "the wall ran out while replacing flowers") is None:
                    return
            self.hands[seat].sort()
        for seat in order:
            self.events.append(Event("deal", seat, tuple(self.hands[seat])))
        self.drawn = self.hands[self.dealer][-1]
        self._start_self(self.dealer, after_claim=False)

    # ---------------------------------------------------------------- questions

    def _ask(self, seat: int, ask: Ask) -> None:
        self.question = Question(seat, ask)
        self.events.append(Event("ask", seat, ask=ask))

    def _start_self(self, seat: int, after_claim: bool) -> None:
        """The seat on turn decides: hu, gong, throw (only throw after a pong or chow)."""
        self.turn = seat
        stages = [Ask.THROW]
        if not after_claim:
            if self.live > 0 and self_kongs(self.hands[seat], self.melds[seat]):
                stages.insert(0, Ask.GONG)
            if is_winning(counts_of(self.hands[seat])):
                stages.insert(0, Ask.HU)
        self._self_stage = stages
        self._next_self()

    def _next_self(self) -> None:
        self._ask(self.turn, self._self_stage.pop(0))

    # ---------------------------------------------------------------- legal actions

    def legal_actions(self) -> list[Action]:
        """Every answer to the pending question (empty once the hand is over)."""
        q = self.question
        return [] if q is None else self.view(q.seat).options()

    def view(self, seat: int) -> SeatView:
        """What ``seat`` knows: its hand and melds, its last draw, the discard open to
        claims, the pending question if it is this seat's."""
        q = self.question
        return SeatView(seat, tuple(self.hands[seat]), tuple(self.melds[seat]),
                        self.drawn if self.turn == seat else None,
                        None if self.discard is None else self.discard[1],
                        q.ask if q is not None and q.seat == seat else None,
                        self.live)

    def illegal_reason(self, seat: int, action: object) -> str | None:
        """Why ``action`` is not a valid answer of ``seat`` now, or None."""
        q = self.question
        if q is None:
            return "the hand is over"
        if seat != q.seat:
            return f"seat {seat + 1} was not asked anything"
        if isinstance(action, Pass):
            return None if q.ask is not Ask.THROW else "a discard is required (/ask throw)"
        if isinstance(action, Hu):
            return None if q.ask is Ask.HU else f"/hu answers /ask hu, not /ask {q.ask.value}"
        if not isinstance(action, (Throw, Eat, Pong, Kong, ConcealedKong, PromotedKong)):
            return f"{action!r} is no answer to /ask {q.ask.value}"
        hand = self.hands[seat]
        tiles = tiles_of(action)
        missing = [t for t in tiles if t not in hand]
        if missing or len(set(tiles)) != len(tiles):
            return f"tiles {' '.join(map(str, missing or tiles))} are not all in the hand"
        if isinstance(action, Throw):
            return None if q.ask is Ask.THROW else \
                f"/throw answers /ask throw, not /ask {q.ask.value}"
        if isinstance(action, (ConcealedKong, PromotedKong)):
            if q.ask is not Ask.GONG or self.discard is not None:
                return "a concealed or promoted kong answers /ask gong on one's own turn"
            if isinstance(action, ConcealedKong):
                return None if len({kind_of(t) for t in tiles}) == 1 else \
                    "a concealed kong is four of one kind"
            kind = kind_of(action.tile)
            if any(m.kind is MeldKind.PUNG and m.base == kind for m in self.melds[seat]):
                return None
            return f"there is no pung of {tid_name(action.tile)} to promote"
        if self.discard is None:
            return "there is no discard to claim"
        kind = kind_of(self.discard[1])
        if isinstance(action, Kong):
            if q.ask is not Ask.GONG:
                return f"/gong 4 answers /ask gong, not /ask {q.ask.value}"
            return None if all(kind_of(t) == kind for t in tiles) else \
                "a kong needs three tiles of the discard's kind"
        if isinstance(action, Pong):
            if q.ask is not Ask.PONG:
                return f"/pong answers /ask pong, not /ask {q.ask.value}"
            return None if all(kind_of(t) == kind for t in tiles) else \
                "a pong needs two tiles of the discard's kind"
        if q.ask is not Ask.EAT:
            return f"/eat answers /ask eat, not /ask {q.ask.value}"
        kinds = sorted([kind, *(kind_of(t) for t in tiles)])
        if kinds[0] >= 27 or kinds[0] // 9 != kinds[2] // 9 or \
                kinds != list(range(kinds[0], kinds[0] + 3)):
            return "those tiles and the discard are not a chow"
        return None

    # ---------------------------------------------------------------- applying

    def apply(self, seat: int, action: Action) -> None:
        """Play a legal answer (check it with ``illegal_reason`` first)."""
        q = self.question
        assert q is not None and q.seat == seat
        self.question = None
        if q.ask is Ask.HU and self.discard is None and self._robbing is None:
            if isinstance(action, Hu):
                self._win(seat, None, self.drawn)
            else:
                self._next_self()
            return
        if isinstance(action, Throw):
            self._throw(seat, action.tile)
        elif isinstance(action, (ConcealedKong, PromotedKong)):
            self._self_kong(seat, action)
        elif q.ask is Ask.GONG and isinstance(action, Pass) and self.discard is None:
            self._next_self()
        elif self._robbing is not None:
            self._answer_robbing(seat, action)
        else:
            self._answer_claim(seat, action)

    def _throw(self, seat: int, tile: int) -> None:
        self.hands[seat].remove(tile)
        self.discards[seat].append(tile)
        self.events.append(Event("throw", seat, (tile,)))
        self._first_turn[seat] = False
        self.drawn = None
        self._replacement = False
        self.discard = (seat, tile)
        self._queue = self._claim_queue(seat, tile)
        self._next_claim()

    def _claim_queue(self, seat: int, tile: int) -> list[Question]:
        kind = kind_of(tile)
        others = [(seat + k) % SEATS for k in range(1, SEATS)]
        queue = [Question(s, Ask.HU) for s in others
                 if is_winning(_plus(counts_of(self.hands[s]), kind))]
        for s in others:
            held = sum(1 for t in self.hands[s] if kind_of(t) == kind)
            if held == 3 and self.live > 0 and (s != others[0] or self.rules.kong_from_previous):
                queue.append(Question(s, Ask.GONG))
            if held >= 2:
                queue.append(Question(s, Ask.PONG))
        nxt = others[0]
        if chows(self.hands[nxt], kind):
            queue.append(Question(nxt, Ask.EAT))
        return queue

    def _next_claim(self) -> None:
        if self._queue:
            q = self._queue.pop(0)
            self._ask(q.seat, q.ask)
            return
        assert self.discard is not None
        self.discard = None
        self._draw((self.turn + 1) % SEATS)

    def _answer_claim(self, seat: int, action: Action) -> None:
        assert self.discard is not None
        source, tile = self.discard
        if isinstance(action, Pass):
            self._next_claim()
            return
        if isinstance(action, Hu):
            self._win(seat, source, tile)
            return
        self._queue = []
        self.discard = None
        self.discards[source].pop()
        self._calls += 1
        self._first_turn = [False] * SEATS
        if isinstance(action, Eat):
            taken = [action.a, action.b]
            tiles = sorted([action.a, tile, action.b], key=kind_of)
            meld = Meld(MeldKind.CHOW, tuple(tiles), tile, source)
            event = Event("eat", seat, tuple(tiles), claimed=tile)
        elif isinstance(action, Pong):
            taken = [action.a, action.b]
            meld = Meld(MeldKind.PUNG, tuple(sorted([*taken, tile])), tile, source)
            event = Event("pong", seat, meld.tiles, claimed=tile)
        else:
            assert isinstance(action, Kong)
            taken = [action.a, action.b, action.c]
            meld = Meld(MeldKind.KONG, tuple(sorted([*taken, tile])), tile, source)
            event = Event("gong", seat, meld.tiles, claimed=tile, kong=4)
        for t in taken:
            self.hands[seat].remove(t)
        self.melds[seat].append(meld)
        self.events.append(event)
        self.turn = seat
        if meld.kind is MeldKind.KONG:
            self._draw(seat, replacement=True)
        else:
            self.drawn = None
            self._start_self(seat, after_claim=True)

    def _self_kong(self, seat: int, action: ConcealedKong | PromotedKong) -> None:
        self._calls += 1
        if isinstance(action, ConcealedKong):
            tiles = (action.a, action.b, action.c, action.d)
            for t in tiles:
                self.hands[seat].remove(t)
            self.melds[seat].append(Meld(MeldKind.CONCEALED_KONG, tuple(sorted(tiles))))
            self.events.append(Event("gong", seat, tuple(sorted(tiles)), kong=0))
            self._draw(seat, replacement=True)
            return
        tile = action.tile
        robbers = [Question((seat + k) % SEATS, Ask.HU) for k in range(1, SEATS)
                   if is_winning(_plus(counts_of(self.hands[(seat + k) % SEATS]),
                                       kind_of(tile)))]
        self.hands[seat].remove(tile)
        self.events.append(Event("gong", seat, (tile,), kong=1))
        if robbers:
            self._robbing = (seat, tile)
            self._queue = robbers
            q = self._queue.pop(0)
            self._ask(q.seat, q.ask)
            return
        self._promote(seat, tile)

    def _promote(self, seat: int, tile: int) -> None:
        melds = self.melds[seat]
        index = next(i for i, m in enumerate(melds)
                     if m.kind is MeldKind.PUNG and m.base == kind_of(tile))
        old = melds[index]
        melds[index] = Meld(MeldKind.PROMOTED_KONG, tuple(sorted([*old.tiles, tile])),
                            old.claimed, old.source)
        self._draw(seat, replacement=True)

    def _answer_robbing(self, seat: int, action: Action) -> None:
        assert self._robbing is not None
        konger, tile = self._robbing
        if isinstance(action, Hu):
            self._robbing = None
            self._win(seat, konger, tile, robbing=True)
            return
        if self._queue:
            q = self._queue.pop(0)
            self._ask(q.seat, q.ask)
            return
        self._robbing = None
        self._promote(konger, tile)

    def _draw(self, seat: int, replacement: bool = False) -> None:
        if self.live <= 0:
            self._draw_game("the wall is down to its reserved tiles")
            return
        tile = self._take_back() if replacement else self._take_front()
        final = self._receive(seat, tile, "the wall is down to its reserved tiles")
        if final is None:
            return
        self.hands[seat].sort()
        self.drawn = final
        self._replacement = replacement or final != tile
        self.events.append(Event("draw", seat, (final,)))
        self._start_self(seat, after_claim=False)

    # ---------------------------------------------------------------- the end

    def _win(self, seat: int, discarder: int | None, tile: int | None,
             robbing: bool = False) -> None:
        assert tile is not None
        concealed = list(self.hands[seat])
        if discarder is not None:
            concealed.append(tile)
            if not robbing:
                self.discards[discarder].pop()
        counts = counts_of(concealed)
        seat_wind = (seat - self.dealer) % SEATS
        ctx = WinContext(
            concealed=tuple(counts),
            melds=tuple(self.melds[seat]),
            winning_kind=kind_of(tile),
            self_draw=discarder is None,
            seat_wind=seat_wind,
            round_wind=self.round_wind,
            dealer=seat == self.dealer,
            discarder_is_dealer=discarder == self.dealer,
            flowers=tuple(self.flowers[seat]),
            robbing_kong=robbing,
            last_tile=self.live <= 0,
            kong_replacement=discarder is None and self._replacement,
            heavenly=discarder is None and seat == self.dealer and self._calls == 0
            and self._first_turn[seat] and not self.discards[seat],
            earthly=seat != self.dealer and self._calls == 0 and self._first_turn[seat],
        )
        result = score(ctx, decompositions(counts), self.rules.table)
        pays = payments(result, seat, discarder, self.rules.stakes,
                        dealer=self.dealer if seat != self.dealer else None)
        self.hands[seat] = sorted(concealed)
        self.events.append(Event("hu", seat, tuple(sorted(concealed)), claimed=tile))
        self._end(HandResult(seat, discarder, result, tuple(pays),
                             "self-drawn win" if discarder is None else
                             f"won on seat {discarder + 1}'s "
                             f"{'kong tile' if robbing else 'discard'}"))

    def _flower_win(self, seat: int) -> bool:
        """The flower wins of the tables that have them, after ``seat`` set a flower
        aside: all eight flowers (八仙過海, paid as a self-draw), or seven flowers robbing
        the eighth from ``seat`` (七搶一, ``seat`` pays). True if the hand ended."""
        found = flower_win(self.flowers, seat)
        if found is None:
            return False
        winner, payer = found
        if payer is not None:
            self.flowers[winner].append(self.flowers[payer].pop())
        result = flower_score(self.rules.table, payer, winner, self.dealer)
        pays = payments(result, winner, payer, self.rules.stakes,
                        dealer=self.dealer if winner != self.dealer else None)
        self._end(HandResult(winner, payer, result, tuple(pays),
                             "won on all eight flowers" if payer is None else
                             f"won on seven flowers, robbing seat {payer + 1}'s eighth"))
        return True

    def _draw_game(self, reason: str) -> None:
        if self.result is None:  # not after a flower win
            self._end(HandResult(None, None, None, (0,) * SEATS, f"drawn: {reason}"))

    def _end(self, result: HandResult) -> None:
        self.question = None
        self.discard = None
        self._queue = []
        self.result = result
        self.events.append(Event("end", scores=result.payments))

    # ---------------------------------------------------------------- checks

    def tile_count(self) -> int:
        """Every tile accounted for: in hands, melds, flowers, discards and the wall, and
        the tile that promotes a kong while the others are asked whether they rob it."""
        return (sum(map(len, self.hands)) + sum(len(m.tiles) for ms in self.melds for m in ms)
                + sum(map(len, self.flowers)) + sum(map(len, self.discards))
                + (self.back - self.front) + (self._robbing is not None))


def _plus(counts: list[int], kind: int) -> list[int]:
    counts[kind] += 1
    return counts

