"""A Planowanie record as a replay: the table in SVG, one step per recorded move.

The deals are not in the record: they follow from its seed and settings, so the moves are
replayed through ``PlanowanieGame`` (which also checks them). The picture has a row per
seat (name and seat number, remaining hand, declaration, tricks taken in the deal, total
points), a header (deal, cards per player, trump suit, what is going on) and the current
trick in the middle. Hands list the trumps first (suit colours, trumps bold and
underlined). A declaration shows as ``?`` until every seat has declared.

The names and the row lines are the background; every step's fragment draws an opaque
panel over the rest with the whole state after that step, so the picture after ``k``
steps is the state after move ``k``. After the last card of a deal the panel shows the
finished deal (its last trick, the tricks taken, bids made in green, the points gained);
the next deal appears with its first declaration. The step's mark rings the card just
played or the declaration just made; an illegal move (not applied) shows struck out in
red, and the last step's mark shows how the game ended when the record says.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.core.errors import ConfigError
from referee.core.record import GameRecord, MoveRecord
from referee.core.replay import ReplayStep, ReplayView
from referee.games.planowanie.rules import (
    Action,
    Deck,
    Declare,
    PlanowanieGame,
    Rules,
)

WIDTH = 760
"""Width of the picture, in SVG units."""
PANEL_X = 176
"""Left edge of the state panel (the player names are left of it)."""
HEAD_H = 30
"""Height of the header strip (deal, cards, trumps, status)."""
ROW_TOP = 54
"""Top of the first seat row."""
ROW_H = 38
HAND_X = 184
HAND_W = 380
"""Room for a hand; a longer one is squeezed into it."""
CHAR_W = 8.4
"""Estimated width of one character of a hand (14px monospace)."""
GROUP_GAP = 6
"""Extra space between the suits of a hand."""
BID_X, TRICKS_X, POINTS_X = 604, 662, 724
"""Centres of the declaration, tricks and points columns."""
TRICK_H = 78
"""Height of the trick area under the rows."""
BOX_W, BOX_H, BOX_GAP = 54, 36, 12
FOOT_H = 24
MAX_NAME = 20
MAX_TEXT = 80
MAX_FOOT = 110
SUIT_COLOURS = 8
"""Suit colours: the trumps' (``pw-tr``), then ``pw-s1``...``pw-s7`` for the other suits,
reused in turn when there are more."""

STYLE = (
    ".pw-bg,.pw-p{fill:#f6f3ea}"
    ".pw-sep{stroke:#d8d0bc;stroke-width:1}"
    ".pw-ti{font:bold 15px sans-serif;fill:#333;dominant-baseline:central}"
    ".pw-nm{font:bold 14px sans-serif;fill:#222}"
    ".pw-se{font:11px sans-serif;fill:#777}"
    ".pw-ch{font:12px sans-serif;fill:#777;text-anchor:middle}"
    ".pw-hd{font:13px sans-serif;fill:#333;dominant-baseline:central}"
    ".pw-h{font:14px monospace;dominant-baseline:central}"
    ".pw-r{font:bold 14px sans-serif;fill:#222;text-anchor:middle;dominant-baseline:central}"
    ".pw-s1{fill:#1f5fbf}.pw-s2{fill:#c62828}.pw-s3{fill:#222}"
    ".pw-s4{fill:#8e44ad}.pw-s5{fill:#b26a00}.pw-s6{fill:#00838f}.pw-s7{fill:#6d4c41}"
    ".pw-tr{fill:#1b7a33;font-weight:bold;text-decoration:underline}"
    ".pw-dim{fill:#aaa}.pw-ok{fill:#1b7a33}.pw-no{fill:#c62828}"
    ".pw-g{font-size:11px;fill:#1b7a33}"
    ".pw-nx{fill:#fff0b8}"
    ".pw-c{fill:#fff;stroke:#999}"
    ".pw-w{fill:#fff8d8;stroke:#d4a017;stroke-width:2.5}"
    ".pw-k{font:bold 15px monospace;text-anchor:middle;dominant-baseline:central}"
    ".pw-q{font:11px sans-serif;fill:#666;text-anchor:middle}"
    ".pw-wn{font:12px sans-serif;fill:#8a6a00;text-anchor:end;dominant-baseline:central}"
    ".pw-m{fill:none;stroke:#e0202a;stroke-width:2.5}"
    ".pw-x{fill:#fde8e8;stroke:#e0202a;stroke-dasharray:4 3}"
    ".pw-xt{fill:#e0202a;text-decoration:line-through}"
    ".pw-xl{stroke:#e0202a;stroke-width:2}"
    ".pw-ft{font:12px sans-serif;fill:#b00020;dominant-baseline:central}"
)
"""The CSS of the classes the fragments use (all prefixed ``pw-``)."""


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


@dataclass
class _State:
    """What the picture shows after a step (the finished deal until the next one starts)."""

    deal: int
    cards: int
    hands: list[int]
    points: list[int]
    bids: list[int | None] = field(default_factory=list)
    revealed: bool = False
    tricks: list[int] = field(default_factory=list)
    trick: list[tuple[int, int]] = field(default_factory=list)
    """The cards on the table: (seat, card) in play order."""
    winner: int | None = None
    """Who took ``trick`` once it is complete."""
    deal_over: bool = False
    gains: list[int] | None = None
    to_act: int | None = None

    @classmethod
    def new_deal(cls, game: PlanowanieGame) -> _State:
        """The start of the engine's current deal."""
        table = game.table
        n = game.rules.players
        return cls(table.deal, table.cards, game.hands[:], table.points[:], [None] * n,
                   tricks=[0] * n, to_act=game.to_play())


@dataclass(frozen=True)
class _Layout:
    """Where things go for a number of players."""

    players: int

    def row_top(self, seat: int) -> int:
        """Top of a seat's row."""
        return ROW_TOP + seat * ROW_H

    def row_mid(self, seat: int) -> int:
        """Middle of a seat's row (where its texts go)."""
        return self.row_top(seat) + ROW_H // 2

    @property
    def trick_top(self) -> int:
        """Top of the trick area."""
        return ROW_TOP + self.players * ROW_H

    @property
    def box_y(self) -> int:
        """Top of the cards on the table."""
        return self.trick_top + 12

    @property
    def height(self) -> int:
        """Height of the picture."""
        return self.trick_top + TRICK_H + FOOT_H

    def box_x(self, slot: int) -> int:
        """Left edge of the ``slot``-th card of a trick (the trick centred in the panel)."""
        n = self.players
        span = n * BOX_W + (n - 1) * BOX_GAP
        return (PANEL_X + WIDTH) // 2 - span // 2 + slot * (BOX_W + BOX_GAP)


def _rules(settings: dict[str, Any]) -> Rules:
    """The rules the record's settings describe; ``ValueError`` if they are missing or bad."""
    values, suits = settings.get("values"), settings.get("suits")
    players, deals = settings.get("players"), settings.get("deals")
    if not isinstance(values, str) or not isinstance(suits, str):
        raise ValueError("planowanie record: settings need the deck's values and suits")
    if isinstance(players, bool) or not isinstance(players, int):
        raise ValueError(f"planowanie record: bad players {players!r}")
    if not isinstance(deals, list) or not deals:
        raise ValueError(f"planowanie record: bad deals {deals!r}")
    schedule = []
    for deal in deals:
        if (not isinstance(deal, list | tuple) or len(deal) != 2
                or any(isinstance(v, bool) or not isinstance(v, int) for v in deal)):
            raise ValueError(f"planowanie record: bad deal {deal!r} (expected [cards, starter])")
        schedule.append((deal[0], deal[1]))
    try:
        return Rules(Deck(values, suits), players, tuple(schedule))
    except ConfigError as exc:
        raise ValueError(f"planowanie record: bad settings: {exc}") from None


def _parse(text: str, deck: Deck) -> Action | None:
    """``declare N`` or a card of the deck as an action, ``None`` if it is neither."""
    words = text.split()
    if len(words) == 2 and words[0] == "declare":
        word = words[1]
        if len(word) <= 18 and (word.isdecimal()
                                or (word[:1] in "+-" and word[1:].isdecimal())):
            return Declare(int(word))
        return None
    return deck.card(text.strip())


class _Replayer:
    """Replays the moves of a record through the engine, drawing the state as it goes."""

    def __init__(self, rules: Rules, seed: int, names: Sequence[str]) -> None:
        self.rules = rules
        self.deck = rules.deck
        self.width = len(rules.deck.values)
        self.names = list(names)
        self.game = PlanowanieGame(rules, seed)
        self.layout = _Layout(rules.players)
        self.state = _State.new_deal(self.game)

    # -- drawing ------------------------------------------------------------------------
    def suit_class(self, card: int) -> str:
        """The CSS class of a card's suit (``pw-tr`` for trumps)."""
        suit = self.deck.suit(card)
        return "pw-tr" if suit == 0 else f"pw-s{1 + (suit - 1) % (SUIT_COLOURS - 1)}"

    def background(self) -> str:
        """The frame, the title, the column heads and the player names."""
        lay = self.layout
        height = lay.height
        seps = "".join(f"M0 {lay.row_top(s)}H{WIDTH}" for s in range(self.rules.players))
        seps += f"M0 {lay.trick_top}H{WIDTH}"
        parts = [
            f'<rect class="pw-bg" width="{WIDTH}" height="{height}" rx="4"/>',
            f'<path class="pw-sep" d="{seps}"/>',
            f'<text class="pw-ti" x="12" y="{HEAD_H // 2 + 1}">Planowanie</text>',
            f'<text class="pw-ch" x="{HAND_X + HAND_W // 2}" y="{HEAD_H + 16}">hand</text>',
            f'<text class="pw-ch" x="{BID_X}" y="{HEAD_H + 16}">bid</text>',
            f'<text class="pw-ch" x="{TRICKS_X}" y="{HEAD_H + 16}">tricks</text>',
            f'<text class="pw-ch" x="{POINTS_X}" y="{HEAD_H + 16}">points</text>',
            f'<text class="pw-se" x="12" y="{lay.box_y + BOX_H // 2 + 4}">on the table</text>',
        ]
        for seat in range(self.rules.players):
            name = self.names[seat]
            top = lay.row_top(seat)
            parts.append(f'<text class="pw-nm" x="12" y="{top + 17}"><title>{_esc(name)}'
                         f"</title>{_esc(_short(name, MAX_NAME))}</text>"
                         f'<text class="pw-se" x="12" y="{top + 31}">seat {seat}</text>')
        return "".join(parts)

    def panel(self) -> str:
        """The whole state after the current step, over an opaque panel."""
        st, lay, n = self.state, self.layout, self.rules.players
        right = WIDTH - PANEL_X
        boxes = [f"M{PANEL_X} 0h{right}v{HEAD_H}h-{right}z"]
        boxes.extend(f"M{PANEL_X} {lay.row_top(s) + 1}h{right}v{ROW_H - 2}h-{right}z"
                     for s in range(n))
        boxes.append(f"M{PANEL_X} {lay.trick_top + 1}h{right}v{TRICK_H - 1}h-{right}z")
        parts = [f'<path class="pw-p" d="{"".join(boxes)}"/>']
        if st.to_act is not None and not st.deal_over:
            parts.append(f'<rect class="pw-nx" x="{PANEL_X}" y="{lay.row_top(st.to_act) + 1}"'
                         f' width="{right}" height="{ROW_H - 2}"/>')
        parts.append(self.header())
        for seat in range(n):
            parts.append(self.hand(seat))
            parts.append(self.row(seat))
        parts.append(self.trick())
        return "".join(parts)

    def header(self) -> str:
        """Deal, cards per player, trumps and what is going on."""
        st = self.state
        trumps = self.deck.suits[0]
        if st.deal_over:
            status = "game over" if self.game.to_play() is None else "deal over"
        elif not st.revealed:
            status = "declaring"
        else:
            done = sum(st.tricks)
            number = done + (0 if st.winner is not None else 1)
            status = f"trick {min(number, st.cards)} of {st.cards}"
        return (f'<text class="pw-hd" x="{HAND_X}" y="{HEAD_H // 2 + 1}">Deal {st.deal + 1} / '
                f"{len(self.rules.deals)} \u00b7 {st.cards} card{'s' if st.cards != 1 else ''}"
                f' each \u00b7 trumps <tspan class="pw-tr">{_esc(trumps)}</tspan>'
                f" \u00b7 {status}</text>")

    def hand(self, seat: int) -> str:
        """A seat's remaining cards, trumps first, each suit high to low."""
        mask = self.state.hands[seat]
        if not mask:
            return ""
        groups: list[list[int]] = []
        for suit in range(len(self.deck.suits)):
            cards = [c for c in range(suit * self.width, (suit + 1) * self.width)
                     if mask >> c & 1]
            if cards:
                groups.append(cards[::-1])
        chars = 0
        spans = []
        for k, cards in enumerate(groups):
            names = " ".join(_esc(self.deck.name(c)) for c in cards)
            chars += sum(len(self.deck.name(c)) + 1 for c in cards)
            gap = f' dx="{GROUP_GAP}"' if k else ""
            spans.append(f'<tspan class="{self.suit_class(cards[0])}"{gap}>{names}</tspan>')
        estimate = chars * CHAR_W + GROUP_GAP * (len(groups) - 1)
        squeeze = (f' textLength="{HAND_W}" lengthAdjust="spacingAndGlyphs"'
                   if estimate > HAND_W else "")
        return (f'<text class="pw-h" x="{HAND_X}" y="{self.layout.row_mid(seat)}"{squeeze}>'
                f'{" ".join(spans)}</text>')

    def row(self, seat: int) -> str:
        """A seat's declaration, tricks taken and points."""
        st = self.state
        bid = st.bids[seat]
        if bid is None:
            shown = '<tspan class="pw-dim">\u00b7</tspan>'
        elif not st.revealed:
            shown = "?"
        elif st.deal_over:
            made = "ok" if st.tricks[seat] == bid else "no"
            shown = f'<tspan class="pw-{made}">{bid}</tspan>'
        else:
            shown = str(bid)
        gain = ""
        if st.gains is not None:
            gain = f'<tspan class="pw-g"> +{st.gains[seat]}</tspan>'
        return (f'<text class="pw-r" y="{self.layout.row_mid(seat)}"><tspan x="{BID_X}">'
                f'{shown}</tspan><tspan x="{TRICKS_X}">{st.tricks[seat]}</tspan>'
                f'<tspan x="{POINTS_X}">{st.points[seat]}{gain}</tspan></text>')

    def trick(self) -> str:
        """The cards on the table in play order (who played each under it), the winner's
        box gold once the trick is complete."""
        st, lay = self.state, self.layout
        if not st.trick:
            return ""
        y = lay.box_y
        boxes, cards, seats, won = [], [], [], ""
        for slot, (seat, card) in enumerate(st.trick):
            x = lay.box_x(slot)
            mid = x + BOX_W // 2
            if seat == st.winner:
                won = (f'<rect class="pw-w" x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" '
                       'rx="4"/>')
            else:
                boxes.append(f"M{x} {y}h{BOX_W}v{BOX_H}h-{BOX_W}z")
            cards.append(f'<tspan class="{self.suit_class(card)}" x="{mid}">'
                         f"{_esc(self.deck.name(card))}</tspan>")
            seats.append(f'<tspan x="{mid}">seat {seat}</tspan>')
        parts = [f'<path class="pw-c" d="{"".join(boxes)}"/>' if boxes else "", won,
                 f'<text class="pw-k" y="{y + BOX_H // 2}">{"".join(cards)}</text>',
                 f'<text class="pw-q" y="{y + BOX_H + 14}">{"".join(seats)}</text>']
        if st.winner is not None:
            parts.append(f'<text class="pw-wn" x="{WIDTH - 10}" y="{y + BOX_H // 2}">'
                         f"taken by seat {st.winner}</text>")
        return "".join(parts)

    def ring_bid(self, seat: int) -> str:
        """The mark of a declaration: a ring around the seat's bid."""
        return (f'<rect class="pw-m" x="{BID_X - 18}" y="{self.layout.row_top(seat) + 5}" '
                f'width="36" height="{ROW_H - 10}" rx="5"/>')

    def ring_slot(self, slot: int) -> str:
        """The mark of a card: a ring around it on the table."""
        lay = self.layout
        return (f'<rect class="pw-m" x="{lay.box_x(slot) - 3}" y="{lay.box_y - 3}" '
                f'width="{BOX_W + 6}" height="{BOX_H + 6}" rx="6"/>')

    def struck(self, text: str, seat: int, action: Action | None) -> str:
        """An illegal move, struck out in red where it would have gone."""
        lay = self.layout
        if isinstance(action, Declare) or (action is None and text.startswith("declare")):
            x, y, w, h = BID_X - 34, lay.row_top(seat) + 5, 68, ROW_H - 10
            shown = _short(text.split()[-1], 8)
        else:
            slot = min(len(self.state.trick), self.rules.players - 1)
            x, y, w, h = lay.box_x(slot), lay.box_y, BOX_W, BOX_H
            shown = _short(text, 6)
        cx, cy = x + w // 2, y + h // 2
        return (f'<rect class="pw-x" x="{x}" y="{y}" width="{w}" height="{h}" rx="4"/>'
                f'<text class="pw-k pw-xt" x="{cx}" y="{cy}">{_esc(shown)}</text>'
                f'<path class="pw-xl" d="M{x + 6} {y + h - 6}L{x + w - 6} {y + 6}"/>')

    def footer(self, text: str) -> str:
        """A line of text under the table (how the game ended)."""
        y = self.layout.height - FOOT_H // 2 - 2
        return f'<text class="pw-ft" x="12" y="{y}">{_esc(_short(text, MAX_FOOT))}</text>'

    # -- replaying ----------------------------------------------------------------------
    def step(self, number: int, move: MoveRecord) -> ReplayStep:
        """Replay one move (``number`` counts from 1) and draw the state after it."""
        game = self.game
        text = move.move if len(move.move) <= MAX_TEXT else move.move[: MAX_TEXT - 3] + "..."
        seat = game.to_play()
        if seat is None:
            raise ValueError(f"planowanie record: move {number} ({move.move!r}) comes after "
                             "the end of the game")
        if move.seat != seat:
            raise ValueError(f"planowanie record: move {number} ({move.move!r}) is by seat "
                             f"{move.seat}, seat {seat} was to play")
        if self.state.deal_over:
            self.state = _State.new_deal(game)
        st = self.state
        action = _parse(move.move, self.deck)
        if move.info.get("illegal"):
            if not isinstance(action, Declare) and st.winner is not None:
                st.trick, st.winner = [], None
            mark = self.struck(move.move, seat, action)
            return ReplayStep(seat, text, svg=self.panel(), mark=mark, note="illegal")
        if action is None:
            raise ValueError(f"planowanie record: move {number} ({move.move!r}) is neither "
                             "'declare N' nor a card of the deck")
        reason = game.illegal_reason(seat, action)
        if reason is not None:
            raise ValueError(f"planowanie record: move {number} ({move.move!r}) does not "
                             f"replay: {reason}")
        if isinstance(action, Declare):
            game.apply(seat, action)
            st.bids[seat] = action.tricks
            st.revealed = None not in st.bids
            mark = self.ring_bid(seat)
        else:
            self.play(seat, action)
            mark = self.ring_slot(len(st.trick) - 1)
        st.to_act = game.to_play()
        return ReplayStep(seat, text, svg=self.panel(), mark=mark)

    def play(self, seat: int, card: int) -> None:
        """Put a legal card on the trick, in the engine and in the picture."""
        st, game = self.state, self.game
        if st.winner is not None:
            st.trick, st.winner = [], None
        st.trick.append((seat, card))
        st.hands[seat] &= ~(1 << card)
        if len(st.trick) == self.rules.players:
            cards = [c for _, c in st.trick]
            st.winner = (st.trick[0][0] + game.table.trick_winner_index(cards)) % len(cards)
            st.tricks[st.winner] += 1
        game.apply(seat, card)
        if sum(st.tricks) == st.cards:
            points = game.table.points[:]
            st.gains = [new - old for new, old in zip(points, st.points, strict=True)]
            st.points = points
            st.deal_over = True


def _names(record: GameRecord, players: int) -> list[str]:
    """The players' names; ``ValueError`` if there are not as many as seats."""
    if len(record.players) != players:
        raise ValueError(f"planowanie record: {len(record.players)} players for a game of "
                         f"{players}")
    return [str(p.name) for p in record.players]


def _ending(record: GameRecord) -> str:
    """How the game ended, as the record says ("" if it does not)."""
    if not record.reason:
        return ""
    offender = record.offender
    if offender is not None and 0 <= offender < len(record.players):
        return f"{record.players[offender].name} (seat {offender}) lost: {record.reason}"
    return f"Game over: {record.reason}"


def planowanie_replay(record: GameRecord) -> ReplayView:
    """The replay of a Planowanie record (see the module docstring)."""
    if record.game != "planowanie":
        raise ValueError(f"not a planowanie record: {record.game!r}")
    rules = _rules(record.settings)
    seed = record.seed
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"planowanie record: bad seed {seed!r}")
    replayer = _Replayer(rules, seed, _names(record, rules.players))
    background = replayer.background() + replayer.panel()
    steps = [replayer.step(k, move) for k, move in enumerate(record.moves, start=1)]
    if steps:
        last = steps[-1]
        ending = _ending(record)
        if not ending and last.note == "illegal":
            ending = "illegal move"
        if ending:
            steps[-1] = ReplayStep(last.seat, last.text, last.svg,
                                   last.mark + replayer.footer(ending), last.note)
    return ReplayView(
        width=WIDTH,
        height=replayer.layout.height,
        background=background,
        steps=tuple(steps),
        style=STYLE,
        roles=tuple(f"seat {seat}" for seat in range(rules.players)),
    )
