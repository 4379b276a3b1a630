"""Riichi games turned into kanachan's behavioral-cloning annotations.

A game (an mjai event stream: our own records, Mortal/mjai logs, Tenhou mjlog or JSON read
by :func:`~referee.games.riichi.replay.load_log`) is replayed through the rules engine
(:func:`~referee.games.riichi.replay.verify_log`: every action must be legal and every event
the engine's), and every decision-making point becomes one line of the format in
kanachan's training data format (docs/training.md): game id, sparse features, numeric features,
progression, candidates, the index of the action taken and the 12 result values
(encodings in :mod:`referee.games.riichi.kanachan.encoding`).

A decision-making point is a moment where a player chooses among two or more options:

- after its own draw (a discard, a riichi discard, a closed or added kan, a tsumo win,
  nine terminals): one point, riichi discards (bit ``b``) listed beside the plain ones;
  the drawn tile is the sparse "drawn tile" feature and not in the hand;
- after a chi or pon: the discard;
- after another player's discard (skip, chi, pon, open kan, ron) or kan (a robbing ron or
  skip).

Candidates are sorted ascending, without repeats; the chosen index points at the action the
log recorded (a riichi: the declaration discard, with ``b`` set).

By default (``Context.kanachan_exact``) the points and results are exactly those of
kanachan's annotate (``src/annotation`` of Cryolite/kanachan), which reads Mahjong Soul's
records: a chance pre-empted by another's claim of higher priority (ron over pon and open
kan over chi) is a point whose choice is the skip (the log cannot show what the player
chose; kanachan takes it as skipped); the discard after a call is a point even with one
legal tile; the answers to a discard that an abortive draw then ends (three rons, the
fourth riichi or kan passing) are no points; the dealer's first discard, its 14 tiles
being dealt at once on Mahjong Soul, has no tsumogiri: its options, its choice and the
progression code it from the hand; and each point of a hand won by several players (a
double ron, nagashi mangan of several) is written once per winner, the result seen from
each winner in the order paid. Without it: only the real choices (no pre-empted chance,
no one-tile discard, the aborted answers kept), the dealer's first discard as played, one
line per point (a winner of a double ron sees its own win, the others the first winner's;
a nagashi mangan counts as a tsumo of the first such player). Either way the lines come
in the order of the points (kanachan groups each hand's lines by seat).

Features follow kanachan's annotator: the hand in ascending slots; tiles left to draw
counted down by every draw (69 at the dealer's first); ranks by the current score, ties to
the seat nearer the first dealer; riichi sticks and scores as they stand (a riichi is paid
when accepted, so not at the points on its own declaration tile); the progression holds the
round's discards, calls and kans before the point. Results: the round's outcome from the
seat's view, each score's change over the round (riichi sticks paid and received
included), the end-of-round ranks, the seat's final rank and final points, and the
grading delta.

What a log does not record comes from :class:`Context`: the room (Tenhou's rooms map onto
Mahjong Soul's, top to top: houou Throne 4, tokujou Jade 3, joukyuu Gold 2, ippan Silver 1;
other sources Gold, 2), the players' grades (Tenhou dan mapped by :func:`grade_of_dan`;
otherwise Expert 1, grade 6, the lowest of the Gold room) and the grading delta (by
default Mahjong Soul's for that room, grade, game length, final rank and points:
:func:`~referee.games.riichi.kanachan.grading.grading_delta`). A game must end
(``end_game``, or the engine's end of the game) for its final ranks; a log that stops
earlier is refused.

Games without red fives cannot be annotated (the format has three slots for the plain
fives of a suit), nor a round in the North wind (no feature for it).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from referee.games.riichi.kanachan.encoding import (
    DORA,
    DRAWN,
    GRADE,
    LEFT,
    MAX_LEFT,
    O_ANKAN,
    O_TSUMO,
    PROGRESSION_PADDING,
    RANK,
    ROUND,
    SEAT,
    STYLE,
    WIND,
    EncodingError,
    encode_hand,
    encode_tile,
    option_value,
    outcome_code,
    progression_value,
    relseat,
)
from referee.games.riichi.kanachan.grading import grading_delta
from referee.games.riichi.mjai import Event
from referee.games.riichi.replay import verify_log
from referee.games.riichi.rules import Action, RiichiGame, RiichiRules
from referee.games.riichi.tiles import RED_FIVES, mjai_name

__all__ = [
    "DEFAULT_GRADE",
    "DEFAULT_ROOM",
    "TENHOU_ROOMS",
    "AnnotationError",
    "Context",
    "annotate_game",
    "grade_of_dan",
]

DEFAULT_ROOM: Final = 2
"""Gold room: for sources with no Mahjong Soul room."""
DEFAULT_GRADE: Final = 6
"""Expert 1: for players with no grade."""
TENHOU_ROOMS: Final = {"ippan": 1, "joukyuu": 2, "tokujou": 3, "houou": 4}
"""Tenhou's rooms as Mahjong Soul rooms, top to top."""

_SAME_KIND: Final = {"none": "skip", "ryukyoku": "kyuushu", "ankan": "ankan",
                     "kakan": "kakan"}
"""Engine action types whose option needs no other seat, by the spec's name."""
_PRIORITY: Final = {"hora": 3, "pon": 2, "daiminkan": 2, "chi": 1, "none": 0}
_ABORTS: Final = frozenset({"sanchaho", "suchareach", "sukaikan", "sufonrenta"})
"""Abortive draws that can end a hand while seats answer a discard."""
_MOQI: Final = 2
"""The tsumogiri bit of a discard's option (``a`` of ``tile * 4 + a * 2 + b``)."""


_ID_TILE: Final = tuple(encode_tile(mjai_name(t)) for t in range(136))
"""The spec's tile number of each tile id (red fives played)."""
_HAND_SLOT: Final = tuple(encode_hand([mjai_name(t)])[0] for t in range(136))
"""Per tile id, the hand feature of the first tile of its name (a red five: its own)."""
_SLOT_ORDER: Final = tuple(encode_hand([mjai_name(t)])[0] * 4 + t % 4 for t in range(136))
"""Per tile id, a number putting tile ids in the order of their hand features (sorting
these numbers sorts the hand)."""
_ORDER_TILE = [_SLOT_ORDER.index(n) if n in _SLOT_ORDER else -1
               for n in range(max(_SLOT_ORDER) + 1)]
_ORDER_SLOT: Final = tuple(_HAND_SLOT[t] if t >= 0 else -1 for t in _ORDER_TILE)
"""The hand feature of the first tile of the name of each number of ``_SLOT_ORDER``."""
_ORDER_KIND: Final = tuple(-1 if t < 0 or t in RED_FIVES else t >> 2 for t in _ORDER_TILE)
"""The kind of the tile of each number of ``_SLOT_ORDER``, -1 for a red five."""
_STR: Final = tuple(str(v) for v in range(PROGRESSION_PADDING))
_DAHAI_OPTION: Final = {mjai_name(t): (option_value("dahai", mjai_name(t)),
                                        option_value("dahai", mjai_name(t), tsumogiri=True))
                        for t in range(136)}
"""Per tile name, the option feature of its discard, then of its tsumogiri (no riichi)."""


class AnnotationError(ValueError):
    """A game that cannot be annotated: names the game and the reason."""


def grade_of_dan(dan: int) -> int:
    """A Mahjong Soul grade (0..15) for a Tenhou dan (0 new, 1-9 the kyu 9..1, 10-19 the
    dan 1..10, 20 tenhoui), the top aligned: tenhoui Celestial 15, 10-8 dan Saint 14-12,
    7-5 dan Master 11-9, 4-2 dan Expert 8-6, 1 dan, 1 kyu, 2 kyu Adept 5-3, 3 and 4 kyu
    Novice 2-1, lower Novice 1 (0)."""
    if not 0 <= dan <= 20:
        raise ValueError(f"Tenhou dan {dan} is not 0..20")
    return max(0, dan - 5)


@dataclass(frozen=True)
class Context:
    """What the log may not say: the room (0..4), each seat's grade (0..15, by seat from
    the first dealer) and the game's grading-score change per seat (None: Mahjong Soul's,
    computed by :func:`~referee.games.riichi.kanachan.grading.grading_delta`); and whether
    the points are kanachan's exactly (``kanachan_exact``, the default; see the module
    notes)."""

    room: int = DEFAULT_ROOM
    grades: tuple[int, ...] = (DEFAULT_GRADE,) * 4
    grading: tuple[int, ...] | None = None
    kanachan_exact: bool = True

    def __post_init__(self) -> None:
        if not 0 <= self.room <= 4:
            raise ValueError(f"room {self.room} is not 0..4")
        if len(self.grades) != 4 or not all(0 <= g <= 15 for g in self.grades):
            raise ValueError(f"grades must be four values 0..15, not {self.grades}")
        if self.grading is not None and len(self.grading) != 4:
            raise ValueError("the grading deltas are four values")

    def __reduce__(self) -> tuple[type[Context], tuple[Any, ...]]:
        """Pickled by its fields (for worker processes; a compiled frozen dataclass cannot
        be restored attribute by attribute)."""
        return (Context, (self.room, self.grades, self.grading, self.kanachan_exact))


class _Point:
    """A decision point waiting for its round's and game's results (a plain class: one is
    made per point, and a dataclass's ``__init__`` costs several times more compiled)."""

    __slots__ = ("best", "chosen", "claim", "head", "kyoku", "options", "seat")

    def __init__(self, kyoku: int, seat: int, head: str, options: list[int],
                 chosen: int) -> None:
        self.kyoku = kyoku
        self.seat = seat
        """The seat counted from the first dealer."""
        self.head = head
        """Fields 1-3 joined: sparse, numeric, progression."""
        self.options = options
        self.chosen = chosen
        self.best = 0
        """The priority of the seat's best claim (answers to a discard or kan)."""
        self.claim = 0
        """The priority of the seat's chosen claim."""


@dataclass
class _Round:
    """One kyoku's facts for the results."""

    start: tuple[int, ...]
    winners: list[int] = field(default_factory=list)
    target: int | None = None
    tsumo: bool = False
    reason: str = ""
    tenpai: tuple[bool, ...] = (False, False, False, False)


class _Annotator:
    """Collects the decision points of one game as the replay plays it."""

    def __init__(self, context: Context) -> None:
        self.context = context
        self.points: list[_Point] = []
        self.rounds: list[_Round] = []
        self.answers: list[_Point] = []
        self.answers_key: tuple[int, int] | None = None
        self.reaching: _Point | None = None
        self.game: RiichiGame | None = None
        self.progression = ""
        self.prefix_kyoku: object = None
        self.prefixes: dict[tuple[int, int], str] = {}
        self.people: dict[tuple[int, ...], str] = {}
        """Per seat and scores, the grade and rank features."""
        self.read = 0
        """Events of the game turned into progression so far."""
        self.declared = [False] * 4
        self.draws = 0
        """Draws of the kyoku so far (1 at the dealer's first discard)."""
        self.exact = context.kanachan_exact

    # ---------------------------------------------------------------- the replay's hook

    def __call__(self, game: RiichiGame, seat: int, action: Action) -> None:
        self.game = game
        kyoku = game.kyoku
        assert kyoku is not None
        self.follow(game)
        rel = (seat - game.first_oya) % 4
        if kyoku.phase in ("respond", "chankan"):
            key = (len(self.rounds), len(game.events))
            if key != self.answers_key:
                self.flush_answers()
                self.answers_key = key
            legal = kyoku.legal_actions(seat)
            options = sorted({self.option(seat, a) for a in legal})
            if len(options) < 2:
                return
            point = _Point(len(self.rounds) - 1, rel, self.head(game, seat, rel), options,
                           self.option(seat, action))
            point.best = max(_PRIORITY[a.type] for a in legal)
            point.claim = _PRIORITY[action.type]
            self.answers.append(point)
            return
        self.flush_answers()
        exact = self.exact
        dealt = exact and seat == kyoku.oya and kyoku.source.live_left() == MAX_LEFT
        # (the dealer's first 14 tiles: no other draw yet)
        if kyoku.phase == "reach":
            waiting = self.reaching
            self.reaching = None
            assert waiting is not None and action.type == "dahai"
            action = self.normalize(kyoku.legal_actions(seat), action)
            chosen = self.option(seat, action, riichi=True)
            waiting.chosen = chosen & ~_MOQI if dealt else chosen
            self.keep(waiting)
            return
        legal = kyoku.legal_actions(seat)
        action = self.normalize(legal, action)
        own: set[int] = set()
        reach = None
        for a in legal:
            kind = a.type
            if kind == "reach":
                reach = a
            else:
                own.add(self.option(seat, a))
        if reach is not None:
            trial = kyoku.clone()
            trial.apply(seat, reach)
            own.update(self.option(seat, a, riichi=True) for a in trial.legal_actions(seat))
        elif len(own) < (1 if exact and kyoku.phase == "call" else 2):
            return
        if dealt:  # kanachan: the dealer's 14 tiles have no drawn one to give tsumogiri
            own = {o & ~_MOQI if o < O_ANKAN else o for o in own}
        point = _Point(len(self.rounds) - 1, rel, self.head(game, seat, rel), sorted(own), -1)
        if action.type == "reach":
            self.reaching = point
        else:
            chosen = self.option(seat, action)
            point.chosen = chosen & ~_MOQI if dealt and chosen < O_ANKAN else chosen
            self.keep(point, 1 if exact and kyoku.phase == "call" else 2)

    @staticmethod
    def normalize(legal: Sequence[Action], action: Action) -> Action:
        """A discard without its tsumogiri flag as the engine plays it (tsumogiri first)."""
        if action.type != "dahai" or action.tsumogiri is not None:
            return action
        for flag in (True, False):
            for a in legal:
                if a.type == "dahai" and a.pai == action.pai and a.tsumogiri is flag:
                    return a
        return action

    def keep(self, point: _Point, minimum: int = 2) -> None:
        if len(point.options) >= minimum:
            self.points.append(point)

    def flush_answers(self) -> None:
        """Keep the answers to one discard or kan: kanachan's way, all of them (a chance
        pre-empted by another's claim was skipped), none when the hand then ended in an
        abortive draw; else only real choices (no pre-empted chance)."""
        answers = self.answers
        if not answers:
            return
        self.answers = []
        if self.exact:
            if self.rounds[answers[0].kyoku].reason not in _ABORTS:
                self.points.extend(answers)
            return
        for point in answers:
            others = max((p.claim for p in answers if p is not point), default=0)
            if point.claim or not others or point.best >= others:
                self.points.append(point)

    # ---------------------------------------------------------------- features

    def follow(self, game: RiichiGame) -> None:
        """Read the game's new events: the rounds and their progression."""
        events = game.events
        offset = game.first_oya
        for i in range(self.read, len(events)):
            event = events[i]
            kind = event["type"]
            if kind == "start_kyoku":
                self.rounds.append(_Round(tuple(event["scores"])))
                self.progression = "0"
                self.declared = [False] * 4
                self.draws = 0
                continue
            if kind == "tsumo":
                self.draws += 1
                continue
            if kind == "dora" or kind == "reach_accepted":
                continue
            if kind == "dahai":
                actor = event["actor"]
                value = progression_value("dahai", (actor - offset) % 4, event["pai"],
                                          tsumogiri=event["tsumogiri"]
                                          and (self.draws != 1 or not self.exact),
                                          riichi=self.declared[actor])
                self.declared[actor] = False
            elif kind == "reach":
                self.declared[event["actor"]] = True
                continue
            elif kind in ("chi", "pon", "daiminkan"):
                actor = event["actor"]
                value = progression_value(kind, (actor - offset) % 4, event["pai"],
                                          event["consumed"],
                                          rel=relseat(actor, event["target"]))
            elif kind == "ankan":
                value = progression_value(kind, (event["actor"] - offset) % 4,
                                          event["consumed"][0])
            elif kind == "kakan":
                value = progression_value(kind, (event["actor"] - offset) % 4, event["pai"])
            else:
                self.outcome(event)
                continue
            self.progression += "," + _STR[value]
        self.read = len(events)

    def outcome(self, event: Mapping[str, Any]) -> None:
        """Note a round's end (``hora``, ``ryukyoku``) for the results."""
        if not self.rounds:
            return
        current = self.rounds[-1]
        kind = event["type"]
        if kind == "hora":
            current.winners.append(event["actor"])
            current.target = event["target"]
            current.tsumo = event["actor"] == event["target"]
            current.reason = "hora"
        elif kind == "ryukyoku":
            current.reason = event.get("reason", "")
            tenpai = event.get("tenpais")
            if tenpai is not None:
                current.tenpai = tuple(tenpai)
            if current.reason == "nagashimangan":  # counted as a tsumo of its first winner
                deltas = event["deltas"]
                current.winners = [s for s in range(4) if deltas[s] > 0]
                current.tsumo = True
                current.reason = "hora"

    def head(self, game: RiichiGame, seat: int, rel: int) -> str:
        """Fields 1-3 of a point of ``seat`` (``rel`` counted from the first dealer)."""
        kyoku = game.kyoku
        assert kyoku is not None
        key = (seat, len(kyoku.dora))
        if kyoku is not self.prefix_kyoku:
            self.prefix_kyoku = kyoku
            self.prefixes = {}
        prefix = self.prefixes.get(key)
        if prefix is None:
            prefix = self.prefixes[key] = self.prefix(game, rel)
        scores = kyoku.scores
        standing = (seat, *scores)
        people = self.people.get(standing)
        if people is None:
            first = game.first_oya
            rank = _ranks(scores, first)
            grades = self.context.grades
            features = []
            for i in range(4):
                s = (seat + i) % 4
                features.append(_STR[GRADE[i] + grades[(s - first) % 4]])
                features.append(_STR[RANK[i] + rank[s]])
            people = self.people[standing] = ",".join(features)
        drawn = kyoku.drawn if kyoku.phase == "tsumo" and kyoku.actor == seat else None
        drawn_order = _SLOT_ORDER[drawn] if drawn is not None else -1
        hand: list[str] = []
        last = -1
        copy = 0
        for order in sorted([_SLOT_ORDER[t] for t in kyoku.hands[seat]]):
            if order == drawn_order:
                continue
            kind = _ORDER_KIND[order]
            if kind < 0:  # a red five: a slot of its own
                hand.append(_STR[_ORDER_SLOT[order]])
                last = -1
                continue
            if kind == last:
                copy += 1
            else:
                last = kind
                copy = 0
            hand.append(_STR[_ORDER_SLOT[order] + copy])
        if drawn is not None:
            hand.append(_STR[DRAWN + _ID_TILE[drawn]])
        return (f"{prefix}{_STR[LEFT + kyoku.source.live_left()]},{people},{','.join(hand)}\t"
                f"{kyoku.honba},{kyoku.kyotaku},{scores[seat]},{scores[(seat + 1) % 4]},"
                f"{scores[(seat + 2) % 4]},{scores[(seat + 3) % 4]}\t{self.progression}")

    def prefix(self, game: RiichiGame, rel: int) -> str:
        """The sparse features that stay while the dora indicators stay, with a comma."""
        kyoku = game.kyoku
        assert kyoku is not None
        _require_red_fives(game.rules)
        if kyoku.bakaze > 2:
            raise AnnotationError("a round in the North wind: the format has no feature "
                                  "for it")
        sparse = [self.context.room, STYLE + (game.rules.game_length != "east"), SEAT + rel,
                  WIND + kyoku.bakaze, ROUND + kyoku.kyoku - 1]
        sparse.extend(DORA[i] + _ID_TILE[t] for i, t in enumerate(kyoku.dora[:5]))
        return ",".join(map(str, sparse)) + ","

    @staticmethod
    def option(seat: int, action: Action, riichi: bool = False) -> int:
        """The option feature of an engine action of ``seat``."""
        kind = action.type
        pai = action.pai
        target = action.target
        if kind == "dahai":
            if pai is not None and not riichi:
                return _DAHAI_OPTION[pai][1 if action.tsumogiri else 0]
            return option_value(kind, pai, tsumogiri=bool(action.tsumogiri), riichi=riichi)
        if kind == "hora":
            if target == seat:
                return O_TSUMO
            return option_value("ron", rel=None if target is None else relseat(seat, target))
        if kind in _SAME_KIND:
            return option_value(_SAME_KIND[kind], action.consumed[0] if kind == "ankan"
                                else action.pai, action.consumed)
        return option_value(kind, action.pai, action.consumed,
                            rel=None if target is None else relseat(seat, target))

    # ---------------------------------------------------------------- results

    def lines(self, game_id: str, game: RiichiGame) -> Iterator[str]:
        """The annotation lines of the game, in the order of its decision points."""
        self.flush_answers()
        if not game.over:
            raise AnnotationError("the log does not end the game: annotations need the "
                                  "final ranks and points")
        finals = game.final_scores()
        first = game.first_oya
        results = self.round_results(game)
        grading = self.grading(game)
        tails: dict[tuple[int, int], list[str]] = {}
        for point in self.points:
            key = (point.kyoku, point.seat)
            tail = tails.get(key)
            if tail is None:
                absolute = (point.seat + first) % 4
                final = finals[absolute]
                tail = [",".join(map(str, [*row, final.rank - 1, final.points,
                                           grading[point.seat]]))
                        for row in results[point.kyoku][absolute]]
                tails[key] = tail
            line = (f"{game_id}\t{point.head}\t{','.join([_STR[o] for o in point.options])}\t"
                    f"{point.options.index(point.chosen)}\t")
            for result in tail:  # kanachan: once per winner of the round
                yield line + result

    def grading(self, game: RiichiGame) -> tuple[int, ...]:
        """The grading delta of each seat (from the first dealer): the context's, or
        Mahjong Soul's for the room, the length, the seat's grade, rank and points."""
        if self.context.grading is not None:
            return self.context.grading
        finals = game.final_scores()
        rules = game.rules
        context = self.context
        return tuple(grading_delta(context.room, rules.game_length == "east",
                                   context.grades[rel], final.rank, final.points,
                                   rules.start_points)
                     for rel, final in ((r, finals[(r + game.first_oya) % 4])
                                        for r in range(4)))

    def round_results(self, game: RiichiGame) -> list[list[list[list[int]]]]:
        """Per round, per absolute seat, one row per winner (kanachan's way; else one):
        outcome code, the four deltas and the four end-of-round ranks, each seen from
        that seat."""
        first = game.first_oya
        exact = self.exact
        out = []
        for number, r in enumerate(self.rounds):
            end = game.results[number].scores
            rank = _ranks(end, first)
            per_seat = []
            for seat in range(4):
                ring = [(seat + i) % 4 for i in range(4)]
                rest = [*(end[s] - r.start[s] for s in ring), *(rank[s] for s in ring)]
                if exact and r.reason == "hora" and len(r.winners) > 1:
                    codes = [outcome_code(seat, [w], r.target, r.tsumo, r.reason,
                                          r.tenpai[seat]) for w in r.winners]
                else:
                    codes = [outcome_code(seat, r.winners, r.target, r.tsumo, r.reason,
                                          r.tenpai[seat])]
                per_seat.append([[code, *rest] for code in codes])
            out.append(per_seat)
        return out


def _require_red_fives(rules: RiichiRules) -> None:
    """:class:`AnnotationError` for a game without red fives."""
    if not rules.red_fives:
        raise AnnotationError("a game without red fives: the format has three slots for "
                              "the plain fives of a suit")


def _ranks(scores: Sequence[int], first: int) -> list[int]:
    """Each seat's place 0..3 by score, ties to the seat nearer the first dealer ``first``."""
    rank = [0] * 4
    for place, s in enumerate(sorted(range(4), key=lambda s: (-scores[s], (s - first) % 4))):
        rank[s] = place
    return rank


def annotate_game(events: Iterable[Event | Mapping[str, Any]], game_id: str,
                  context: Context | None = None, rules: RiichiRules | None = None,
                  *, source: str | None = None,
                  final_results: Sequence[float] | None = None) -> list[str]:
    """The annotation lines (without line ends) of one whole game given as mjai events;
    the game is replayed and verified first (a :class:`~referee.games.riichi.replay.
    ReplayError` names the event the engine does not reproduce); :class:`AnnotationError`
    for a game the format cannot hold or a log that does not end the game."""
    if "\t" in game_id or "\n" in game_id:
        raise AnnotationError(f"a game id may hold no tab or line end: {game_id!r}")
    annotator = _Annotator(context or Context())
    try:
        report = verify_log(events, rules, source=source, final_results=final_results,
                            observer=annotator)
    except EncodingError as exc:
        raise AnnotationError(str(exc)) from None
    _require_red_fives(report.rules)
    game = annotator.game
    if game is None:
        raise AnnotationError("the log holds no decision")
    annotator.follow(game)
    try:
        return list(annotator.lines(game_id, game))
    except EncodingError as exc:  # pragma: no cover - the replay checked the game
        raise AnnotationError(str(exc)) from None

