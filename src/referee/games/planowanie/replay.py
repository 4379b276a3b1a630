"""A Planowanie record as a replay: the table in SVG, one step per recorded move.

The deals are not in the record: they follow from its seed and settings, so the moves are
replayed through ``PlanowanieGame`` (which also checks them). The picture has a row per
seat (name and seat as people number them, ``seat 1`` for the wire's seat 0, then its
declaration, tricks taken in the deal and total points, then its remaining hand: a page
narrower than the picture scrolls it and shows those first), a header (deal, cards per
player, trump suit, what is going on) and the current trick under the rows. Hands list
the trumps first (suit colours, trumps bold and underlined). A declaration shows as ``?``
until every seat has declared.

The fragments are incremental, so that a game's page stays small. The background is the
frame, the names and the whole table at the start; the first step of the game and the
first step of every later deal redraw the whole table (an opaque panel over everything
right of the names, with the deal's hands). A deal's cards keep their places in a hand
for the whole deal, so every other step only draws what it changes, over small opaque
covers: the slot of the card just played, the card on the table (the first card of a
trick clears the table first), the winner's box, the tricks and points cells, the bid
cells, and the header whenever its text changes. After the last card of a deal the table
shows the finished deal (its last trick, the tricks taken, bids made in green, the points
gained); the next deal appears with its first declaration.

The step's mark (shown only while the step is current) tints the row of the seat to act
next and rings the card just played or the declaration just made; an illegal move (not
applied) shows struck out in red, and the last step's mark shows how the game ended when
the record says.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.core.checking import record_seed
from referee.core.errors import ConfigError
from referee.core.record import GameRecord, MoveRecord
from referee.core.replay import ReplayStep, ReplayView
from referee.core.text import clip, seat_name
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
PANEL_W = WIDTH - PANEL_X
HEAD_H = 30
"""Height of the header strip (deal, cards, trumps, status)."""
ROW_TOP = 54
"""Top of the first seat row."""
ROW_H = 38
HAND_X = 362
HAND_W = 388
"""Room for a hand (right of the declaration, tricks and points columns); a longer one
is squeezed into it."""
CHAR_W = 8.4
"""Estimated width of one character of a hand (14px monospace)."""
GLYPH_W = 2 * CHAR_W
"""Width of a card's name in a hand (every name is a value and a suit character)."""
GROUP_GAP = 6
"""Extra space between the suits of a hand."""
BID_X, TRICKS_X, POINTS_X = 206, 266, 325
"""Centres of the declaration, tricks and points columns, next to the names (so that a
narrow page, which scrolls the picture, shows them first)."""
COLUMN_X = (BID_X, TRICKS_X, POINTS_X)
COLUMN_EDGES = (PANEL_X, 236, 296, 356)
"""Where the declaration, tricks and points cells start and end (their opaque covers)."""
BID, TRICKS, POINTS = 0, 1, 2
"""The columns, as indexes of ``COLUMN_X``."""
TRICK_H = 78
"""Height of the trick area under the rows."""
BOX_W, BOX_H, BOX_GAP = 54, 36, 12
FOOT_H = 24
MAX_NAME = 20
MAX_TEXT = 80
MAX_FOOT = 110
MIN_WIDTH = 620
"""The narrowest the picture is drawn (its 12px labels at 10px; a narrower page scrolls it)."""
SUIT_COLOURS = 8
"""Suit colours: the trumps' (``pw-tr``), then ``pw-s1``...``pw-s7`` for the other suits,
reused in turn when there are more."""

STYLE = (
    ".pw-bg,.pw-p{fill:#f6f3ea}"
    ".pw-sep{stroke:#d8d0bc;stroke-width:1}"
    ".pw-ti{font:bold 15px sans-serif;fill:#333;dominant-baseline:central}"
    ".pw-nm{font:bold 14px sans-serif;fill:#222}"
    ".pw-se{font:12px sans-serif;fill:#777}"
    ".pw-ch{font:12px sans-serif;fill:#777;text-anchor:middle}"
    ".pw-hd{font:13px sans-serif;fill:#333;dominant-baseline:central}"
    ".pw-h{font:14px monospace;dominant-baseline:central}"
    ".pw-r{font:bold 14px sans-serif;fill:#222;text-anchor:middle;dominant-baseline:central}"
    ".pw-s1{fill:#1f5fbf}.pw-s2{fill:#c62828}.pw-s3{fill:#222}"
    ".pw-s4{fill:#8e44ad}.pw-s5{fill:#b26a00}.pw-s6{fill:#00838f}.pw-s7{fill:#6d4c41}"
    ".pw-tr{fill:#1b7a33;font-weight:bold;text-decoration:underline}"
    ".pw-dim{fill:#aaa}.pw-ok{fill:#1b7a33}.pw-no{fill:#c62828}"
    ".pw-g{font-size:12px;fill:#1b7a33}"
    ".pw-nx{fill:#ffd200;fill-opacity:.25;pointer-events:none}"
    ".pw-c{fill:#fff;stroke:#999}"
    ".pw-w{fill:#fff8d8;stroke:#d4a017;stroke-width:2.5}"
    ".pw-k{font:bold 15px monospace;text-anchor:middle;dominant-baseline:central}"
    ".pw-q{font:12px sans-serif;fill:#666;text-anchor:middle}"
    ".pw-wn{font:12px sans-serif;fill:#8a6a00;dominant-baseline:central}"
    ".pw-m{fill:none;stroke:#e0202a;stroke-width:2.5}"
    ".pw-x{fill:#fde8e8;stroke:#e0202a;stroke-dasharray:4 3}"
    ".pw-xt{fill:#e0202a;text-decoration:line-through}"
    ".pw-xl{stroke:#e0202a;stroke-width:2}"
    ".pw-ft{font:12px sans-serif;fill:#b00020;dominant-baseline:central}"
)
"""The CSS of the classes the fragments use (all prefixed ``pw-``)."""


def move_notation(move: MoveRecord) -> str:
    """A move as the replay writes it: ``declare 2`` or the card (``QH``), as recorded
    (cut to ``MAX_TEXT`` characters)."""
    return clip(move.move, MAX_TEXT)


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _clip(text: str, limit: int) -> str:
    return clip(text, limit, "\u2026")


def _num(value: float) -> str:
    """A coordinate, to a tenth, as short as it gets (``233``, ``233.4``)."""
    return f"{round(value, 1):g}"


def _box(x: float, y: float, w: float, h: float) -> str:
    """A rectangle as path data (``M x y h w v h h -w z``)."""
    width = _num(w)
    return f"M{_num(x)} {_num(y)}h{width}v{_num(h)}h-{width}z"


def _cover(*boxes: str) -> str:
    """An opaque patch of the table's colour over some rectangles (``_box``)."""
    return f'<path class="pw-p" d="{"".join(boxes)}"/>' if boxes else ""


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

    def cell(self, seat: int, column: int) -> str:
        """The box of a seat's declaration, tricks or points cell (``_box``)."""
        left, right = COLUMN_EDGES[column], COLUMN_EDGES[column + 1]
        return _box(left, self.row_top(seat) + 1, right - left, ROW_H - 2)

    def cells(self, seat: int) -> str:
        """The box of all of a seat's cells (``_box``)."""
        left = COLUMN_EDGES[0]
        return _box(left, self.row_top(seat) + 1, COLUMN_EDGES[-1] - left, ROW_H - 2)

    @property
    def table(self) -> str:
        """The box of the trick area (``_box``)."""
        return _box(PANEL_X, self.trick_top + 1, PANEL_W, TRICK_H - 1)

    @property
    def head(self) -> str:
        """The box of the header's text (``_box``)."""
        return _box(PANEL_X, 0, PANEL_W, HEAD_H)


def record_rules(settings: dict[str, Any]) -> Rules:
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


def parse_move(text: str, deck: Deck) -> Action | None:
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
    """Replays the moves of a record through the engine, drawing the changes as it goes."""

    def __init__(self, rules: Rules, seed: int, names: Sequence[str]) -> None:
        self.rules = rules
        self.deck = rules.deck
        self.width = len(rules.deck.values)
        self.names = list(names)
        self.game = PlanowanieGame(rules, seed)
        self.layout = _Layout(rules.players)
        self.state = _State.new_deal(self.game)
        self.slots: list[dict[int, float]] = []
        """Per seat, the left edge of each card of the deal's hand, in display order."""
        self.pitch = 3 * CHAR_W
        """How far apart the cards of a hand are this deal."""
        self.glyph = GLYPH_W
        """How wide a card's name is drawn in a hand this deal (less when squeezed)."""
        self.digits = 0
        """Decimals of the places in a hand this deal (a tenth when they are tight)."""
        self.drawn_header = ""
        """The header's markup as last drawn (it is redrawn when it changes)."""
        self.fresh = True
        """Whether the next step redraws the whole table (the first step, a new deal)."""
        self.lay_out()

    # -- drawing ------------------------------------------------------------------------
    def suit_class(self, card: int) -> str:
        """The CSS class of a card's suit (``pw-tr`` for trumps)."""
        suit = self.deck.suit(card)
        return "pw-tr" if suit == 0 else f"pw-s{1 + (suit - 1) % (SUIT_COLOURS - 1)}"

    def groups(self, mask: int) -> list[list[int]]:
        """A hand's cards by suit, trumps first, each suit high to low (no empty suit)."""
        groups = []
        for suit in range(len(self.deck.suits)):
            cards = [c for c in range((suit + 1) * self.width - 1, suit * self.width - 1, -1)
                     if mask >> c & 1]
            if cards:
                groups.append(cards)
        return groups

    def lay_out(self) -> None:
        """Fix where every card of the deal goes in its hand, for the whole deal.

        Cards are ``3 * CHAR_W`` apart (a name and a space), the suits a little further;
        a hand that does not fit in ``HAND_W`` has its cards closer and narrower.
        """
        cards = self.state.cards
        groups = min(cards, len(self.deck.suits))
        gap = float(GROUP_GAP)
        if groups > 1 and GROUP_GAP * (groups - 1) > HAND_W / 4:
            gap = HAND_W / 4 / (groups - 1)
        pitch = 3 * CHAR_W
        if cards > 1:
            pitch = min(pitch, (HAND_W - gap * (groups - 1) - GLYPH_W) / (cards - 1))
        self.pitch = pitch
        self.glyph = min(GLYPH_W, 0.85 * pitch) if cards > 1 else GLYPH_W
        self.digits = 0 if pitch >= 10 else 1
        self.slots = []
        for mask in self.state.hands:
            slots: dict[int, float] = {}
            for k, suit in enumerate(self.groups(mask)):
                for card in suit:
                    slots[card] = round(HAND_X + len(slots) * pitch + k * gap, self.digits)
            self.slots.append(slots)

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
                         f"</title>{_esc(_clip(name, MAX_NAME))}</text>"
                         f'<text class="pw-se" x="12" y="{top + 31}">{seat_name(seat)}</text>')
        return "".join(parts)

    def panel(self, highlight: bool = False) -> str:
        """The whole table at the start of a deal, over an opaque panel (the table is
        empty then: no trick is drawn). ``highlight`` tints the row of the seat to act,
        for the background (later, the marks do)."""
        lay, n = self.layout, self.rules.players
        boxes = [lay.head]
        boxes.extend(_box(PANEL_X, lay.row_top(s) + 1, PANEL_W, ROW_H - 2) for s in range(n))
        boxes.append(lay.table)
        parts = [_cover(*boxes)]
        if highlight:
            parts.append(self.highlight())
        self.drawn_header = self.header()
        parts.append(self.drawn_header)
        for seat in range(n):
            parts.append(self.hand(seat))
            parts.append(self.row(seat))
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
        return (f'<text class="pw-hd" x="{PANEL_X + 8}" y="{HEAD_H // 2 + 1}">Deal {st.deal + 1} / '
                f"{len(self.rules.deals)} \u00b7 {st.cards} card{'s' if st.cards != 1 else ''}"
                f' each \u00b7 trumps <tspan class="pw-tr">{_esc(trumps)}</tspan>'
                f" \u00b7 {status}</text>")

    def header_update(self) -> str:
        """The header over its old text if it has changed, else nothing."""
        header = self.header()
        if header == self.drawn_header:
            return ""
        self.drawn_header = header
        return _cover(self.layout.head) + header

    def hand(self, seat: int) -> str:
        """A seat's cards, each in its slot for the deal (see ``lay_out``): a ``tspan`` per
        suit (its colour) placing every character of its cards' names (``x`` lists)."""
        mask = self.state.hands[seat]
        slots, second = self.slots[seat], self.glyph / 2
        suits = []
        for cards in self.groups(mask):
            places = " ".join(f"{_num(slots[c])} {_num(round(slots[c] + second, self.digits))}"
                              for c in cards)
            names = "".join(_esc(self.deck.name(c)) for c in cards)
            suits.append(f'<tspan class="{self.suit_class(cards[0])}" x="{places}">{names}'
                         "</tspan>")
        if not suits:
            return ""
        size = ""
        if self.glyph < GLYPH_W:
            size = f' style="font-size:{_num(14 * self.glyph / GLYPH_W)}px"'
        return (f'<text class="pw-h" y="{self.layout.row_mid(seat)}"{size}>{"".join(suits)}'
                "</text>")

    def unhand(self, seat: int, card: int) -> str:
        """An opaque cover over the slot of a card that has left a seat's hand."""
        x = self.slots[seat][card]
        margin = min(1.0, (self.pitch - self.glyph) / 2)
        top = self.layout.row_top(seat)
        return _cover(_box(x - margin, top + 5, self.glyph + 2 * margin, ROW_H - 10))

    def cell(self, seat: int, column: int) -> tuple[str, str]:
        """The content of a seat's declaration, tricks or points cell: an extra CSS class
        for it (or ``""``) and its markup."""
        st = self.state
        if column == TRICKS:
            return "", str(st.tricks[seat])
        if column == POINTS:
            gain = ""
            if st.gains is not None:
                gain = f'<tspan class="pw-g"> +{st.gains[seat]}</tspan>'
            return "", f"{st.points[seat]}{gain}"
        bid = st.bids[seat]
        if bid is None:
            return "pw-dim", "\u00b7"
        if not st.revealed:
            return "", "?"
        if st.deal_over:
            return ("pw-ok" if st.tricks[seat] == bid else "pw-no"), str(bid)
        return "", str(bid)

    def row(self, seat: int) -> str:
        """A seat's declaration, tricks taken and points (drawn on a clear row)."""
        cells = []
        for column, x in enumerate(COLUMN_X):
            css, markup = self.cell(seat, column)
            css = f' class="{css}"' if css else ""
            cells.append(f'<tspan x="{x}"{css}>{markup}</tspan>')
        return f'<text class="pw-r" y="{self.layout.row_mid(seat)}">{"".join(cells)}</text>'

    def cell_text(self, seat: int, column: int) -> str:
        """One cell of a seat's row as a text of its own."""
        css, markup = self.cell(seat, column)
        css = f" {css}" if css else ""
        return (f'<text class="pw-r{css}" x="{COLUMN_X[column]}" '
                f'y="{self.layout.row_mid(seat)}">{markup}</text>')

    def redraw_cell(self, seat: int, column: int) -> str:
        """One cell of a seat's row, over its old content."""
        return _cover(self.layout.cell(seat, column)) + self.cell_text(seat, column)

    def redraw_column(self, column: int) -> str:
        """One cell of every row, over the old ones."""
        seats = range(self.rules.players)
        return (_cover(*(self.layout.cell(s, column) for s in seats))
                + "".join(self.cell_text(s, column) for s in seats))

    def redraw_rows(self) -> str:
        """Every cell of every row, over the old ones."""
        seats = range(self.rules.players)
        return (_cover(*(self.layout.cells(s) for s in seats))
                + "".join(self.row(s) for s in seats))

    def table_card(self, slot: int, seat: int, card: int, won: bool = False) -> str:
        """A card on the table, in its box (the winner's gold), who played it under it."""
        lay = self.layout
        x, y = lay.box_x(slot), lay.box_y
        mid = x + BOX_W // 2
        if won:
            box = (f'<rect class="pw-w" x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" '
                   'rx="4"/>')
        else:
            box = f'<path class="pw-c" d="{_box(x, y, BOX_W, BOX_H)}"/>'
        return (f'{box}<text class="pw-k {self.suit_class(card)}" x="{mid}" '
                f'y="{y + BOX_H // 2}">{_esc(self.deck.name(card))}</text>'
                + ("" if won else f'<text class="pw-q" x="{mid}" y="{y + BOX_H + 14}">'
                   f"{seat_name(seat)}</text>"))

    def taken(self) -> str:
        """The finished trick: the winner's card in a gold box, who took it on the left."""
        st, lay = self.state, self.layout
        if st.winner is None:
            return ""
        slot = next(k for k, (seat, _) in enumerate(st.trick) if seat == st.winner)
        return (self.table_card(slot, st.winner, st.trick[slot][1], won=True)
                + f'<text class="pw-wn" x="{PANEL_X + 8}" y="{lay.box_y + BOX_H // 2}">'
                f"taken by {seat_name(st.winner)}</text>")

    def highlight(self) -> str:
        """A tint over the row of the seat to act (none once the deal is over)."""
        st = self.state
        if st.to_act is None or st.deal_over:
            return ""
        return (f'<rect class="pw-nx" x="{PANEL_X}" y="{self.layout.row_top(st.to_act) + 1}"'
                f' width="{PANEL_W}" height="{ROW_H - 2}"/>')

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
            x, y, w, h = BID_X - 27, lay.row_top(seat) + 5, 54, ROW_H - 10
            shown = _clip(text.split()[-1], 8)
        else:
            slot = min(len(self.state.trick), self.rules.players - 1)
            x, y, w, h = lay.box_x(slot), lay.box_y, BOX_W, BOX_H
            shown = _clip(text, 6)
        cx, cy = x + w // 2, y + h // 2
        return (f'<rect class="pw-x" x="{x}" y="{y}" width="{w}" height="{h}" rx="4"/>'
                f'<text class="pw-k pw-xt" x="{cx}" y="{cy}">{_esc(shown)}</text>'
                f'<path class="pw-xl" d="M{x + 6} {y + h - 6}L{x + w - 6} {y + 6}"/>')

    def footer(self, text: str) -> str:
        """A line of text under the table (how the game ended)."""
        y = self.layout.height - FOOT_H // 2 - 2
        return f'<text class="pw-ft" x="12" y="{y}">{_esc(_clip(text, MAX_FOOT))}</text>'

    # -- replaying ----------------------------------------------------------------------
    def step(self, number: int, move: MoveRecord) -> ReplayStep:
        """Replay one move (``number`` counts from 1) and draw what it changes."""
        game = self.game
        text = move_notation(move)
        seat = game.to_play()
        if seat is None:
            raise ValueError(f"planowanie record: move {number} ({move.move!r}) comes after "
                             "the end of the game")
        if move.seat != seat:
            raise ValueError(f"planowanie record: move {number} ({move.move!r}) is by seat "
                             f"{move.seat}, seat {seat} was to play")
        if self.state.deal_over:
            self.state = _State.new_deal(game)
            self.lay_out()
            self.fresh = True
        st = self.state
        action = parse_move(move.move, self.deck)
        parts: list[str] = []
        if move.info.get("illegal"):
            if not isinstance(action, Declare) and st.winner is not None:
                st.trick, st.winner = [], None
                parts.append(_cover(self.layout.table))
            mark = self.struck(move.move, seat, action)
            return ReplayStep(seat, text, svg=self.draw(parts), mark=self.highlight() + mark,
                              note="illegal")
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
            parts.append(self.redraw_column(BID) if st.revealed else self.redraw_cell(seat, BID))
            mark = self.ring_bid(seat)
        else:
            parts.extend(self.play(seat, action))
            mark = self.ring_slot(len(st.trick) - 1)
        st.to_act = game.to_play()
        return ReplayStep(seat, text, svg=self.draw(parts), mark=self.highlight() + mark)

    def draw(self, parts: list[str]) -> str:
        """A step's fragment: the whole table on a fresh step, else the changes (``parts``)
        and the header if it changed."""
        if self.fresh:
            self.fresh = False
            return self.panel()
        return "".join(parts) + self.header_update()

    def play(self, seat: int, card: int) -> list[str]:
        """Put a legal card on the trick, in the engine and in the picture; the changes."""
        st, game = self.state, self.game
        parts = [self.unhand(seat, card)]
        if st.winner is not None:
            st.trick, st.winner = [], None
            parts.append(_cover(self.layout.table))
        st.trick.append((seat, card))
        st.hands[seat] &= ~(1 << card)
        parts.append(self.table_card(len(st.trick) - 1, seat, card))
        winner = game.apply(seat, card)
        if winner is not None:
            st.winner = winner
            st.tricks[winner] += 1
            parts.append(self.taken())
        if sum(st.tricks) == st.cards:
            points = game.table.points[:]
            st.gains = [new - old for new, old in zip(points, st.points, strict=True)]
            st.points = points
            st.deal_over = True
            parts.append(self.redraw_rows())
        elif st.winner is not None:
            parts.append(self.redraw_cell(st.winner, TRICKS))
        return parts


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
        return (f"{record.players[offender].name} ({seat_name(offender)}) lost: "
                f"{record.reason}")
    return f"Game over: {record.reason}"


def planowanie_replay(record: GameRecord) -> ReplayView:
    """The replay of a Planowanie record (see the module docstring)."""
    if record.game != "planowanie":
        raise ValueError(f"not a planowanie record: {record.game!r}")
    rules = record_rules(record.settings)
    replayer = _Replayer(rules, record_seed(record), _names(record, rules.players))
    background = replayer.background() + replayer.panel(highlight=True)
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
        min_width=MIN_WIDTH,
    )
