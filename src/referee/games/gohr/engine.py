"""The GOHR episode engine: which rule row is in force, which moves it accepts, what a move does.

Pure and deterministic: no I/O, no randomness. The control flow follows the reference
server's README ("Control flow"): a row's counters are reset whenever it becomes active;
its atoms are OR-ed; an accepted move decrements the counters of every accepting atom and the
row's global counter, removes the piece, and the row passes control cyclically to the next one
once it is exhausted or can move nothing. A full cycle without a playable row is a stalemate.

Variables available to expressions (bucket, code and GS5 property fields): ``p``, ``pc``,
``ps``, ``Nearby``, ``Remotest``, ``pos``, ``this``/``this.F``, ``last``/``last.F``,
``q.PROP``/``q.PROP.F``, ``p.PROP``, ``q.bucket``/``q.bucket.F`` and order names (the cells of
the order's first occupied group). ``F`` is ``color``, ``shape``, ``pos``, ``x``, ``y``, ``id``,
``bucket`` or an object property.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from referee.games.gohr.board import BUCKETS, Board, N, Piece, cell_of, nearby, remotest
from referee.games.gohr.compiled import CAtom, CPos, Spec, compile_row
from referee.games.gohr.expr import Value, evaluate_buckets, evaluate_values, normalize
from referee.games.gohr.ruleset import BUILTIN_ORDERS, Order, RuleRow, RuleSet

__all__ = ["Code", "Episode", "Finish", "matches_condition"]


class Code(enum.IntEnum):
    """Response codes of the captive server."""

    ACCEPT = 0
    STALEMATE = 2
    EMPTY_CELL = 3
    DENY = 4
    EXIT = 5
    NEW_GAME = 6
    IMMOVABLE = 7
    INVALID_COMMAND = -1
    INVALID_ARGUMENTS = -2
    INVALID_POS = -3
    NO_GAME = -4
    INVALID_RULES = -5
    INVALID_OBJECT_ID = -10
    """No piece has this id (the Java CGS 8.060's code; 7.x answers INVALID_ARGUMENTS)."""


class Finish(enum.IntEnum):
    """Finish codes: still playing, board cleared, stalemate."""

    PLAYING = 0
    CLEARED = 1
    STALEMATE = 2


Fields = dict[str, frozenset[Value]]
"""The fields of a piece (or of a removed piece, with its ``bucket``) as value sets."""
_Memo = dict[tuple[int, tuple[frozenset[Value] | None, ...]], frozenset[int]]
"""Bucket expression results by atom and the values of its variables."""
_MEMO_MAX = 50_000
_TABLES_PER_ATOM = 16

_ONE: frozenset[Value] = frozenset({1})
_BUCKET_SETS: tuple[frozenset[Value], ...] = tuple(frozenset({b}) for b in BUCKETS)
_EMPTY: frozenset[int] = frozenset()
_ALL: frozenset[int] = frozenset(BUCKETS)


IMAGE_MARK = "@image"
"""The field that marks an image-and-property-based piece (no rule key can name it)."""
_STAR_VALUE = "*"
"""A property value that matches every condition on that property (``properties.csv``)."""
_OWN_FIELDS = ("pos", "x", "y", "id", IMAGE_MARK)


def _piece_fields(piece: Piece) -> Fields:
    """The fields of a piece as value sets.

    A shape-and-color piece has its color and shape only (the extra keys of a board file
    are not properties, as in the reference); an image piece has the properties of its
    ``props`` and the mark ``IMAGE_MARK``. Both have ``pos``, ``x``, ``y`` and ``id``.
    """
    fields: Fields = {}
    if piece.image is None:
        if piece.color:
            fields["color"] = frozenset({piece.color})
        if piece.shape:
            fields["shape"] = frozenset({piece.shape})
    else:
        for key, value in piece.props.items():
            if isinstance(value, bool) or value == "":
                continue
            if isinstance(value, (int, str)):
                fields[key] = frozenset({value})
            elif isinstance(value, float) and value.is_integer():
                fields[key] = frozenset({int(value)})
        fields[IMAGE_MARK] = frozenset({piece.image})
    fields["pos"] = frozenset({piece.cell})
    fields["x"] = frozenset({piece.x})
    fields["y"] = frozenset({piece.y})
    fields["id"] = frozenset({piece.id})
    return fields


def _first_group(order: Order, occupied: frozenset[int]) -> frozenset[int]:
    for group in order.groups:
        if not group.isdisjoint(occupied):
            return group
    return frozenset()


def _pos_ok(pos: CPos, cell: int, occupied: frozenset[int],
            cache: dict[str, frozenset[int]]) -> bool:
    if cell in pos.cells:
        return True
    for order in pos.orders:
        group = cache.get(order.name)
        if group is None:
            group = cache[order.name] = _first_group(order, occupied)
        if cell in group:
            return True
    return False


# --------------------------------------------------------------------------------------------
# History and evaluation context


@dataclass(slots=True)
class _History:
    """What has been removed so far: the last record, the last per field value, per bucket."""

    last: Fields | None
    by_value: dict[tuple[str, Value], Fields]
    by_bucket: dict[int, Fields]

    def copy(self) -> _History:
        return _History(self.last, dict(self.by_value), dict(self.by_bucket))

    def record(self, fields: Fields, value_keys: Sequence[tuple[str, Value]],
               bucket: int) -> None:
        """A piece with these fields went to ``bucket``; ``value_keys`` are its
        (field, normalized value) pairs that ``q.PROP``, ``pc`` and ``ps`` look up."""
        rec: Fields = dict(fields)
        rec["bucket"] = _BUCKET_SETS[bucket]
        self.last = rec
        self.by_bucket[bucket] = rec
        for key in value_keys:
            self.by_value[key] = rec


def _value_keys(fields: Fields) -> tuple[tuple[str, Value], ...]:
    """The (field, normalized value) pairs of a piece under which the history files it."""
    return tuple((key, normalize(v)) for key, values in fields.items()
                 if key not in _OWN_FIELDS for v in values)


class _Context:
    """Evaluates atoms against one board state (pieces on the board, history)."""

    __slots__ = ("fields", "history", "memo", "occupied", "order_cache", "orders", "pieces")

    def __init__(self, pieces: Sequence[Piece], fields: Mapping[int, Fields],
                 history: _History, orders: Mapping[str, Order],
                 memo: _Memo | None = None) -> None:
        self.pieces = pieces
        self.fields = fields
        self.history = history
        self.orders = orders
        self.occupied = frozenset(p.cell for p in pieces)
        self.order_cache: dict[str, frozenset[int]] = {}
        self.memo: _Memo = {} if memo is None else memo

    def first_group(self, name: str) -> frozenset[int]:
        """The cells of order ``name``'s first group holding a piece."""
        group = self.order_cache.get(name)
        if group is None:
            group = self.order_cache[name] = _first_group(self.orders[name], self.occupied)
        return group

    def _eval_buckets(self, atom: CAtom, env: Mapping[str, frozenset[Value]]) -> frozenset[int]:
        """The atom's bucket expression, memoized on the values of its variables (pure, so
        the memo may outlive this context)."""
        key = (id(atom), tuple(env.get(n) for n in atom.names))
        out = self.memo.get(key)
        if out is None:
            if len(self.memo) >= _MEMO_MAX:
                self.memo.clear()
            out = self.memo[key] = evaluate_buckets(atom.bucket_expr, env)
        return out

    def _q(self, prop: str, fields: Fields, bucket: int | None) -> Fields | None:
        if prop == "bucket":
            return None if bucket is None else self.history.by_bucket.get(bucket)
        values = fields.get(prop)
        if not values:
            return None
        for v in values:
            rec = self.history.by_value.get((prop, normalize(v)))
            if rec is not None:
                return rec
        return None

    def resolve(self, name: str, piece: Piece, bucket: int | None) -> frozenset[Value] | None:
        """The value of variable ``name`` for ``piece`` (moved to ``bucket``), None if undefined."""
        fields = self.fields[piece.id]
        hist = self.history
        if name == "p":
            return None if hist.last is None else hist.last["bucket"]
        if name in ("pc", "ps"):
            rec = self._q("color" if name == "pc" else "shape", fields, bucket)
            return None if rec is None else rec["bucket"]
        if name == "Nearby":
            return frozenset({nearby(piece.x, piece.y)})
        if name == "Remotest":
            return frozenset({remotest(piece.x, piece.y)})
        if name == "pos":
            return fields["pos"]
        if name == "this":
            return _ONE
        if name == "last":
            return None if hist.last is None else _ONE
        head, _, rest = name.partition(".")
        if head == "this" and rest:
            if rest == "bucket":
                return None if bucket is None else frozenset({bucket})
            return fields.get(rest)
        if head == "last" and rest:
            return None if hist.last is None else hist.last.get(rest)
        if head in ("q", "p") and rest:
            prop, _, field = rest.partition(".")
            rec = self._q(prop, fields, bucket)
            if rec is None:
                return None
            if head == "p":
                return rec["bucket"] if not field else None
            return _ONE if not field else rec.get(field)
        if name in self.orders:
            return frozenset(self.first_group(name))
        return None

    def env(self, atom: CAtom, piece: Piece, bucket: int | None) -> dict[str, frozenset[Value]]:
        """The environment of the variables this atom uses."""
        env: dict[str, frozenset[Value]] = {}
        for name in atom.names:
            value = self.resolve(name, piece, bucket)
            if value is not None:
                env[name] = value
        return env

    @staticmethod
    def _spec_ok(spec: Spec, values: frozenset[Value] | None,
                 env: Mapping[str, frozenset[Value]]) -> bool:
        if spec is None:
            return True
        if not values:
            return False
        if _STAR_VALUE in values:
            return True
        allowed = spec if isinstance(spec, frozenset) else frozenset(
            normalize(v) for v in evaluate_values(spec, env))
        return any(normalize(v) in allowed for v in values)

    def _fields_ok(self, atom: CAtom, fields: Fields, env: Mapping[str, frozenset[Value]]) -> bool:
        """Whether the piece passes the atom's shape, color, property and code clauses.

        As the reference does: a shape-and-color piece is judged on its shape and color
        only (a clause on any other property is no restriction for it); an image piece on
        its properties, ``shape`` and ``color`` included, and a property it lacks fails.
        """
        if not self._spec_ok(atom.shapes, fields.get("shape"), env):
            return False
        if not self._spec_ok(atom.colors, fields.get("color"), env):
            return False
        if atom.props and IMAGE_MARK in fields:
            for key, spec in atom.props:
                values = fields.get(key)
                if values is None:
                    lower = key.lower()
                    values = next((v for k, v in fields.items() if k.lower() == lower), None)
                if not self._spec_ok(spec, values, env):
                    return False
        return atom.code is None or bool(evaluate_values(atom.code, env))

    def atom_buckets(self, atom: CAtom, piece: Piece) -> frozenset[int]:
        """The buckets this atom accepts ``piece`` into (before ``postpos``)."""
        fields = self.fields[piece.id]
        if not atom.names and not self._fields_ok(atom, fields, {}):
            return _EMPTY
        for pos in atom.positions:
            if not _pos_ok(pos, piece.cell, self.occupied, self.order_cache):
                return _EMPTY
        if not atom.per_bucket:
            env = self.env(atom, piece, None) if atom.names else {}
            if atom.names and not self._fields_ok(atom, fields, env):
                return _EMPTY
            if atom.bucket_const is not None:
                return atom.bucket_const
            return self._eval_buckets(atom, env)
        out: set[int] = set()
        for b in BUCKETS:
            env = self.env(atom, piece, b)
            if not self._fields_ok(atom, fields, env):
                continue
            allowed = atom.bucket_const
            if allowed is None:
                allowed = self._eval_buckets(atom, env)
            if b in allowed:
                out.add(b)
        return frozenset(out)

    def raw_table(self, atom: CAtom, shortcut: bool = True) -> dict[int, frozenset[int]]:
        """Piece id -> non-empty bucket set this atom accepts, before ``postpos``
        (``shortcut``: once for all pieces where the variables allow; False: piece by piece)."""
        table: dict[int, frozenset[int]] = {}
        if shortcut and atom.piece_free and self.pieces:
            env = self.env(atom, self.pieces[0], None) if atom.names else {}
            allowed = atom.bucket_const
            if allowed is None:
                allowed = self._eval_buckets(atom, env)
            if not allowed:
                return table
            for piece in self.pieces:
                if all(_pos_ok(pos, piece.cell, self.occupied, self.order_cache)
                       for pos in atom.positions) and \
                        (not atom.filters or self._fields_ok(atom, self.fields[piece.id], env)):
                    table[piece.id] = allowed
            return table
        for piece in self.pieces:
            bs = self.atom_buckets(atom, piece)
            if bs:
                table[piece.id] = bs
        return table

    def atom_table(self, atom: CAtom) -> dict[int, frozenset[int]]:
        """Piece id -> non-empty bucket set this atom accepts, ``postpos`` applied."""
        return self.postpos(atom, self.raw_table(atom))

    def postpos(self, atom: CAtom, table: dict[int, frozenset[int]]
                ) -> dict[int, frozenset[int]]:
        """``table`` restricted by the atom's ``postpos`` order among the pieces it holds."""
        if atom.postpos is not None and table:
            by_id = {p.id: p for p in self.pieces if p.id in table}
            selected = frozenset(p.cell for p in by_id.values())
            cache: dict[str, frozenset[int]] = {}
            table = {pid: bs for pid, bs in table.items()
                     if _pos_ok(atom.postpos, by_id[pid].cell, selected, cache)}
        return table


# --------------------------------------------------------------------------------------------
# The episode


class _Compiled:
    """A rule set compiled once and shared by all copies of an episode."""

    __slots__ = ("memo", "orders", "rows", "rules")

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.orders = rules.orders
        self.rows = tuple(compile_row(r, rules.orders) for r in rules.rows)
        self.memo: _Memo = {}
        """Bucket expression results, shared by every episode of these rules."""


_COMPILED: dict[int, _Compiled] = {}
_COMPILED_MAX = 64


def _compiled(rules: RuleSet) -> _Compiled:
    """The compiled form of ``rules``, cached by identity (the entry keeps ``rules`` alive)."""
    found = _COMPILED.get(id(rules))
    if found is not None and found.rules is rules:
        return found
    if len(_COMPILED) >= _COMPILED_MAX:
        _COMPILED.clear()
    found = _COMPILED[id(rules)] = _Compiled(rules)
    return found


class Episode:
    """One episode: a board played under a rule set from its first row."""

    board: Board
    finish: Finish
    attempts: int
    accepted: int
    row: int
    last_cell: int | None
    """The cell of the last move attempt (accepted, refused or at an empty cell), as the
    reference's ASCII board marks it ``[..]``."""

    def __init__(self, rules: RuleSet, board: Board, *, reuse: bool = True) -> None:
        """Start with row 0 in force; advance at once if it cannot move anything.

        ``reuse=False`` computes every board from scratch instead of reusing what earlier
        boards of the episode computed: slower, the same results (the tests' yardstick).
        """
        self._c = _compiled(rules)
        self._reuse = reuse
        self.board = board
        self.finish = Finish.PLAYING
        self.attempts = 0
        self.accepted = 0
        self.row = 0
        self.last_cell = None
        self._fields: dict[int, Fields] = {p.id: _piece_fields(p) for p in board}
        self._keys = {pid: _value_keys(fields) for pid, fields in self._fields.items()}
        self._by_id: dict[int, Piece] = {p.id: p for p in board}
        self._history = _History(None, {}, {})
        self._counters: list[int | None] = []
        self._global: int | None = None
        self._tables: tuple[dict[int, frozenset[int]], ...] | None = None
        self._buckets: dict[int, frozenset[int]] | None = None
        self._raw: dict[tuple[int, int], dict[tuple[object, ...], dict[int, frozenset[int]]]] = {}
        self._activate(0)
        self._settle()

    @property
    def rules(self) -> RuleSet:
        """The rule set being played."""
        return self._c.rules

    # ------------------------------------------------------------------ state helpers

    def _activate(self, row: int) -> None:
        self.row = row
        self._counters = [a.count for a in self._c.rows[row]]
        self._global = self._c.rules.rows[row].count
        self._tables = None
        self._buckets = None

    def _exhausted(self) -> bool:
        if self._global == 0:
            return True
        return all(c == 0 for c in self._counters)

    def _table_key(self, atom: CAtom, ctx: _Context) -> tuple[object, ...] | None:
        """What the atom's raw table depends on besides each piece itself, or None when it
        must be computed afresh (it depends on the history piece by piece)."""
        if atom.piece_history:
            return None
        anyone = ctx.pieces[0]  # shared variables do not depend on the piece
        shared = tuple(ctx.resolve(n, anyone, None) for n in atom.shared_names)
        return (shared, tuple(ctx.first_group(n) for n in atom.order_names))

    def _raw_table(self, index: int, atom: CAtom, ctx: _Context) -> dict[int, frozenset[int]]:
        """The atom's raw table, reused from an earlier board of this episode when nothing
        it depends on has changed (a piece's entry only depends on the piece, the shared
        variables and the orders' first groups; removed pieces are dropped)."""
        key = self._table_key(atom, ctx) if ctx.pieces else None
        if key is None:
            return ctx.raw_table(atom)
        slot = (self.row, index)
        known = self._raw.get(slot)
        if known is not None:
            table = known.get(key)
            if table is not None:
                if len(table) > len(ctx.pieces) or any(pid not in self._by_id for pid in table):
                    table = {pid: bs for pid, bs in table.items() if pid in self._by_id}
                    known[key] = table
                return table
        else:
            known = self._raw[slot] = {}
        if len(known) >= _TABLES_PER_ATOM:
            known.clear()
        table = known[key] = ctx.raw_table(atom)
        return table

    def _compute(self) -> dict[int, frozenset[int]]:
        if self._buckets is None:
            self._tables, self._buckets = self._evaluate(fresh=not self._reuse)
        return self._buckets

    def _evaluate(self, fresh: bool) -> tuple[tuple[dict[int, frozenset[int]], ...],
                                              dict[int, frozenset[int]]]:
        """Each atom's table (counters and ``postpos`` applied) and every piece's buckets.
        ``fresh`` computes everything from scratch, piece by piece, bypassing the reuse of
        tables and the shared memo."""
        pieces = self.board.pieces
        ctx = _Context(pieces, self._fields, self._history, self._c.orders,
                       {} if fresh else self._c.memo)
        tables: list[dict[int, frozenset[int]]] = []
        accepting = self._global != 0
        for index, (atom, counter) in enumerate(
                zip(self._c.rows[self.row], self._counters, strict=True)):
            if not accepting or counter == 0:
                tables.append({})
                continue
            raw = ctx.raw_table(atom, shortcut=False) if fresh else \
                self._raw_table(index, atom, ctx)
            tables.append(ctx.postpos(atom, raw))
        if len(tables) == 1:
            only = tables[0]
            return (only,), {p.id: only.get(p.id, _EMPTY) for p in pieces}
        merged: dict[int, frozenset[int]] = {}
        for p in pieces:
            sets = [t[p.id] for t in tables if p.id in t]
            if not sets:
                merged[p.id] = _EMPTY
            elif len(sets) == 1:
                merged[p.id] = sets[0]
            else:
                merged[p.id] = frozenset().union(*sets)
        return tuple(tables), merged

    def _playable(self) -> bool:
        if self._exhausted():
            return False
        return any(self._compute().values())

    def _settle(self) -> None:
        """Finish the episode or pass control on until a row can move something."""
        if not self.board.pieces:
            self.finish = Finish.CLEARED
            return
        if self._playable():
            return
        nrows = len(self._c.rows)
        start = self.row
        for step in range(1, nrows + 1):
            self._activate((start + step) % nrows)
            if self._playable():
                return
        self.finish = Finish.STALEMATE

    # ------------------------------------------------------------------ public API

    def buckets(self) -> dict[int, frozenset[int]]:
        """Piece id -> buckets it may go to now (``postpos`` applied), for every piece."""
        if self.finish is not Finish.PLAYING:
            return {p.id: _EMPTY for p in self.board}
        return dict(self._compute())

    def movable(self) -> frozenset[int]:
        """Ids of the pieces that can go somewhere now."""
        return frozenset(pid for pid, bs in self.buckets().items() if bs)

    def move(self, piece_id: int, bucket: int) -> Code:
        """Try to move piece ``piece_id`` into ``bucket``.

        ACCEPT, DENY or IMMOVABLE, each counted as an attempt. Not counted, as the reference
        server does: NO_GAME once the episode is over (cleared or stalemate), INVALID_ARGUMENTS
        for a bucket outside 0..3 or an id naming no piece on the board.
        """
        if self.finish is not Finish.PLAYING:
            return Code.NO_GAME
        piece = self._by_id.get(piece_id)
        if piece is None or bucket not in _ALL:
            return Code.INVALID_ARGUMENTS
        return self._try(piece, bucket)

    def move_at(self, x: int, y: int, bucket: int) -> Code:
        """Try to move the piece on column ``x``, row ``y`` (the legacy MOVE form).

        As ``move``; a cell off the board is INVALID_ARGUMENTS, an empty cell EMPTY_CELL (not
        counted as an attempt, as in the reference server, but remembered as ``last_cell``).
        """
        if self.finish is not Finish.PLAYING:
            return Code.NO_GAME
        if not (1 <= x <= N and 1 <= y <= N) or bucket not in _ALL:
            return Code.INVALID_ARGUMENTS
        piece = self.board.at(x, y)
        if piece is None:
            self.last_cell = cell_of(x, y)
            return Code.EMPTY_CELL
        return self._try(piece, bucket)

    def _try(self, piece: Piece, bucket: int) -> Code:
        self.attempts += 1
        self.last_cell = piece.cell
        allowed = self._compute().get(piece.id, _EMPTY)
        if bucket not in allowed:
            return Code.DENY if allowed else Code.IMMOVABLE
        tables = self._tables
        assert tables is not None
        for i, table in enumerate(tables):
            bs = table.get(piece.id)
            if bs is not None and bucket in bs:
                c = self._counters[i]
                if c is not None and c > 0:
                    self._counters[i] = c - 1
        if self._global is not None and self._global > 0:
            self._global -= 1
        self._history.record(self._fields[piece.id], self._keys[piece.id], bucket)
        self.accepted += 1
        self.board = self.board.without(piece.id)
        del self._by_id[piece.id]
        self._tables = None
        self._buckets = None
        self._settle()
        return Code.ACCEPT

    def copy(self) -> Episode:
        """An independent copy (the compiled rules are shared; they are immutable)."""
        new = Episode.__new__(Episode)
        new._c = self._c
        new._reuse = self._reuse
        new.board = self.board
        new.finish = self.finish
        new.attempts = self.attempts
        new.accepted = self.accepted
        new.row = self.row
        new.last_cell = self.last_cell
        new._fields = self._fields  # never mutated
        new._keys = self._keys
        new._by_id = dict(self._by_id)
        new._history = self._history.copy()
        new._counters = list(self._counters)
        new._global = self._global
        new._tables = self._tables  # never mutated once computed
        new._buckets = self._buckets
        new._raw = {slot: dict(known) for slot, known in self._raw.items()}
        return new


# --------------------------------------------------------------------------------------------
# Condition files


def matches_condition(row: RuleRow, piece: Piece, board: Board,
                      orders: Mapping[str, Order] | None = None) -> bool:
    """Whether ``piece`` on ``board`` matches a condition line (atoms AND-ed).

    The piece matches if there is a bucket every atom would accept it into, judged at the start
    of an episode (no history; counters ignored; ``postpos`` among the board's pieces).
    ``orders`` are the orders known to the condition file (default: the built-in ones).
    """
    known = BUILTIN_ORDERS if orders is None else orders
    if board.by_id(piece.id) != piece:
        raise ValueError(f"piece {piece.id} is not on the board")
    fields = {p.id: _piece_fields(p) for p in board}
    ctx = _Context(board.pieces, fields, _History(None, {}, {}), known)
    common = _ALL
    for atom in compile_row(row, known):
        common = common & ctx.atom_table(atom).get(piece.id, _EMPTY)
        if not common:
            return False
    return True
