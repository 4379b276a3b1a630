"""Parse a GOHR rule-set file into immutable data: description, orders, rule rows and atoms.

Pure parsing, no game logic. The grammar follows the reference server's README (its
behaviour) and the Rule Game's documents on the syntax of rule files and on arithmetic
(docs/gohr.md describes it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from referee.games.gohr.board import BUCKET_POS, NCELLS, N, cell_of
from referee.games.gohr.expr import (
    ALL_BUCKETS,
    Cursor,
    Expr,
    RuleSyntaxError,
    SetLit,
    Str,
    Token,
    Var,
    parse_expr,
    tokenize,
)

__all__ = [
    "BUILTIN_ORDERS",
    "Atom",
    "Order",
    "PositionSet",
    "RuleRow",
    "RuleSet",
    "RuleSyntaxError",
    "ValueSpec",
    "parse_ruleset",
    "read_ruleset",
]

@dataclass(frozen=True, slots=True)
class Order:
    """A total preorder of the cells 1..36: groups of tied cells, best group first."""

    name: str
    groups: tuple[frozenset[int], ...]


def _singletons(name: str, cells: list[int]) -> Order:
    return Order(name, tuple(frozenset({c}) for c in cells))


def _builtin_orders() -> dict[str, Order]:
    top_down, bottom_up = range(N, 0, -1), range(1, N + 1)
    left_right, right_left = range(1, N + 1), range(N, 0, -1)
    orders = [
        _singletons("L1", [cell_of(x, y) for y in top_down for x in left_right]),
        _singletons("L2", [cell_of(x, y) for y in top_down for x in right_left]),
        _singletons("L3", [cell_of(x, y) for x in right_left for y in top_down]),
        _singletons("L4", [cell_of(x, y) for x in left_right for y in top_down]),
        Order("T", tuple(frozenset(cell_of(x, y) for x in left_right) for y in top_down)),
        Order("B", tuple(frozenset(cell_of(x, y) for x in left_right) for y in bottom_up)),
        Order("L", tuple(frozenset(cell_of(x, y) for y in top_down) for x in left_right)),
        Order("R", tuple(frozenset(cell_of(x, y) for y in top_down) for x in right_left)),
    ]
    buckets = list(BUCKET_POS.values())  # (row, col)
    by_distance: dict[int, set[int]] = {}
    for y in bottom_up:
        for x in left_right:
            d = min((y - r) ** 2 + (x - c) ** 2 for r, c in buckets)
            by_distance.setdefault(d, set()).add(cell_of(x, y))
    nearest = tuple(frozenset(by_distance[d]) for d in sorted(by_distance))
    orders.append(Order("NearestObject", nearest))
    orders.append(Order("Farthest", nearest[::-1]))
    return {o.name: o for o in orders}


BUILTIN_ORDERS: Mapping[str, Order] = MappingProxyType(_builtin_orders())
"""The built-in orders L1, L2, L3, L4, T, B, L, R, NearestObject and Farthest."""


@dataclass(frozen=True, slots=True)
class PositionSet:
    """A positions clause: the union of literal cells and order names (``*`` is an empty tuple
    of clauses on the atom, never a PositionSet)."""

    cells: frozenset[int] = frozenset()
    orders: tuple[str, ...] = ()


ValueSpec = frozenset[str] | Expr
"""A shape/colour/property clause: constant names (lower-cased) or a GS5 expression."""


@dataclass(frozen=True, slots=True)
class Atom:
    """One atom ``(count, shapes, colors, positions, buckets)`` or its ``key:value`` form.

    ``None`` means ``*`` (any) for count, shapes, colors, postpos and code; ``positions`` is the
    tuple of ``pos`` clauses that must all allow the pick (empty = anywhere); ``buckets`` is
    :data:`~referee.games.gohr.expr.ALL_BUCKETS` for ``*``.
    """

    count: int | None
    shapes: ValueSpec | None
    colors: ValueSpec | None
    positions: tuple[PositionSet, ...]
    buckets: Expr
    properties: tuple[tuple[str, ValueSpec], ...] = ()
    code: Expr | None = None
    postpos: PositionSet | None = None
    property_based: bool = False
    line: int = 0
    column: int = 0


@dataclass(frozen=True, slots=True)
class RuleRow:
    """One rule line: its global counter (``None`` = ``*``/omitted) and its OR-ed atoms."""

    count: int | None
    atoms: tuple[Atom, ...]
    line: int = 0


@dataclass(frozen=True, slots=True)
class RuleSet:
    """A parsed rule-set file. ``orders`` holds every order in force (built-ins, then custom
    definitions, which may override a built-in of the same name)."""

    name: str
    display: str | None
    description: tuple[str, ...]
    orders: Mapping[str, Order]
    rows: tuple[RuleRow, ...]
    custom_orders: tuple[str, ...] = field(default=())


# --------------------------------------------------------------------------------------------
# Parser


def _rule_name(source: str) -> str:
    name = Path(source).name
    return name[:-4] if name.lower().endswith(".txt") else name


def read_ruleset(path: str | Path, what: str = "rule file") -> RuleSet:
    """Read and parse a rule-set file; errors name the file (by its path as given when it
    cannot be read, by its base name for what is in it) and say what it is for (``what``:
    a condition file is written in the same language)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        reason = "no such file" if isinstance(exc, FileNotFoundError) else exc.strerror
        raise RuleSyntaxError(str(path), 0, 0, f"cannot read the {what}: {reason or exc}") \
            from None
    except UnicodeDecodeError:
        raise RuleSyntaxError(p.name, 0, 0, f"the {what} is not UTF-8 text") from None
    return parse_ruleset(text, p.name)


def parse_ruleset(text: str, source: str = "<rules>") -> RuleSet:
    """Parse rule-set text. ``source`` names the file in error messages and gives the name."""
    description: list[str] = []
    display: str | None = None
    orders: dict[str, Order] = dict(BUILTIN_ORDERS)
    custom: list[str] = []
    rows: list[RuleRow] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip().lstrip("\ufeff")
        if not stripped:
            continue
        if stripped.startswith("#"):
            comment = stripped[1:].strip()
            if comment.lower().startswith("display:"):
                display = comment[len("display:"):].strip()
            elif not rows:
                description.append(comment)
            continue
        cur = Cursor(tokenize(raw, source, lineno), source, lineno)
        if cur.at("ID") and cur.tok.text.lower() == "order" and cur.peek().kind == "ID":
            if rows:
                raise RuleSyntaxError(source, lineno, cur.tok.column,
                                      "order definitions must come before the first rule row")
            order = _parse_order(cur)
            if order.name in custom:
                raise RuleSyntaxError(source, lineno, cur.tokens[1].column,
                                      f"order '{order.name}' is defined twice")
            custom.append(order.name)
            orders[order.name] = order
            continue
        start = cur.tok.column
        try:
            rows.append(_parse_row(cur, orders))
        except RecursionError:  # (brackets or signs nested thousands deep)
            raise RuleSyntaxError(source, lineno, start,
                                  "a rule row nested too deeply") from None
    if not rows:
        raise RuleSyntaxError(source, 0, 0, "expected at least one rule row, found none")
    return RuleSet(
        name=_rule_name(source),
        display=display,
        description=tuple(description),
        orders=MappingProxyType(orders),
        rows=tuple(rows),
        custom_orders=tuple(custom),
    )


def _parse_cell(cur: Cursor, seen: set[int]) -> int:
    tok = cur.tok
    if tok.kind != "NUM":
        raise cur.error("a cell number 1..36 or '['")
    value = int(tok.text)
    if not 1 <= value <= NCELLS:
        raise RuleSyntaxError(cur.source, cur.line, tok.column,
                              f"expected a cell number 1..{NCELLS}, found {value}")
    if value in seen:
        raise RuleSyntaxError(cur.source, cur.line, tok.column,
                              f"cell {value} appears twice in the order")
    seen.add(value)
    cur.advance()
    return value


def _parse_order(cur: Cursor) -> Order:
    cur.advance()  # 'Order'
    name = cur.expect("ID", "an order name").text
    cur.expect("=", "'=' after the order name")
    cur.expect("[", "'[' to start the order")
    groups: list[frozenset[int]] = []
    seen: set[int] = set()
    while True:
        if cur.at("["):
            cur.advance()
            group = {_parse_cell(cur, seen)}
            while cur.at(","):
                cur.advance()
                group.add(_parse_cell(cur, seen))
            cur.expect("]", "',' or ']' to close the tied group")
            groups.append(frozenset(group))
        else:
            groups.append(frozenset({_parse_cell(cur, seen)}))
        if cur.at(","):
            cur.advance()
            continue
        cur.expect("]", "',' or ']' to close the order")
        break
    if not cur.at("EOL"):
        raise cur.error("end of line after the order")
    rest = frozenset(range(1, NCELLS + 1)) - seen
    if rest:
        groups.append(rest)
    return Order(name, tuple(groups))


def _parse_count(cur: Cursor, what: str) -> int | None:
    if cur.at("*"):
        cur.advance()
        return None
    if cur.at("NUM"):
        return int(cur.advance().text)
    raise cur.error(f"{what} ('*' or a non-negative integer)")


def _parse_row(cur: Cursor, orders: Mapping[str, Order]) -> RuleRow:
    count: int | None = None
    if cur.at("*", "NUM"):
        count = _parse_count(cur, "a rule count")
    elif not cur.at("("):
        raise cur.error("a rule count or '(' to start an atom")
    atoms: list[Atom] = []
    while not cur.at("EOL"):
        if not cur.at("("):
            raise cur.error("'(' to start an atom")
        atoms.append(_parse_atom(cur, orders))
    if not atoms:
        raise cur.error("'(' to start an atom")
    return RuleRow(count, tuple(atoms), cur.line)


def _is_key(cur: Cursor) -> bool:
    return cur.at("ID") and cur.peek().kind == ":"


def _field_end(cur: Cursor) -> bool:
    return cur.peek().kind in (",", ")")


def _parse_atom(cur: Cursor, orders: Mapping[str, Order]) -> Atom:
    opening = cur.advance()  # '('
    if cur.at(")") or _is_key(cur):
        return _parse_property_atom(cur, orders, opening)
    return _parse_positional_atom(cur, orders, opening)


def _no_key(cur: Cursor) -> None:
    if _is_key(cur):
        raise RuleSyntaxError(cur.source, cur.line, cur.tok.column,
                              "expected a positional field, found 'key:value' (an atom cannot "
                              "mix positional and property-based fields)")


def _parse_positional_atom(cur: Cursor, orders: Mapping[str, Order], opening: Token) -> Atom:
    fields = ("count", "shapes", "colors", "positions", "buckets")
    count: int | None = None
    shapes: ValueSpec | None = None
    colors: ValueSpec | None = None
    positions: tuple[PositionSet, ...] = ()
    buckets: Expr = ALL_BUCKETS
    for index, name in enumerate(fields):
        if index:
            if not cur.at(","):
                raise cur.error(f"',' before the {name} field (a positional atom has five fields)")
            cur.advance()
        _no_key(cur)
        if name == "count":
            count = _parse_count(cur, "an atom count")
        elif name == "shapes":
            shapes = _parse_value(cur)
        elif name == "colors":
            colors = _parse_value(cur)
        elif name == "positions":
            pos = _parse_positions(cur, orders)
            positions = () if pos is None else (pos,)
        else:
            buckets = _parse_buckets(cur)
    cur.expect(")", "')' to close the atom")
    return Atom(count, shapes, colors, positions, buckets, line=cur.line, column=opening.column)


def _parse_property_atom(cur: Cursor, orders: Mapping[str, Order], opening: Token) -> Atom:
    column = opening.column
    count: int | None = None
    shapes: ValueSpec | None = None
    colors: ValueSpec | None = None
    positions: list[PositionSet] = []
    postpos: PositionSet | None = None
    buckets: Expr = ALL_BUCKETS
    code: Expr | None = None
    properties: dict[str, ValueSpec] = {}
    seen: set[str] = set()
    first = True
    while not cur.at(")"):
        if not first:
            if not cur.at(","):
                raise cur.error("',' or ')' to close the atom")
            cur.advance()
        first = False
        if not _is_key(cur):
            raise cur.error("'key:value' (this atom is property-based; positional fields "
                            "cannot be mixed in)")
        key_tok = cur.advance()
        cur.advance()  # ':'
        key = key_tok.text
        if cur.at("*"):  # the reference parses an expression after 'key:', and '*' is none
            raise cur.error(f"a value after '{key}:' ('*' is not one: leave the clause "
                            "out to allow any)")
        lower = key.lower()
        canonical = lower if lower in ("count", "shape", "color", "pos", "postpos", "bucket",
                                       "code") else key
        if canonical != "pos" and canonical in seen:
            raise RuleSyntaxError(cur.source, cur.line, key_tok.column,
                                  f"key '{key}' appears twice in the atom")
        seen.add(canonical)
        if canonical == "count":
            count = _parse_count(cur, "an atom count")
        elif canonical == "shape":
            shapes = _parse_value(cur)
        elif canonical == "color":
            colors = _parse_value(cur)
        elif canonical == "pos":
            pos = _parse_positions(cur, orders)
            if pos is not None:
                positions.append(pos)
        elif canonical == "postpos":
            postpos = _parse_positions(cur, orders)
        elif canonical == "bucket":
            buckets = _parse_buckets(cur)
        elif canonical == "code":
            code = parse_expr(cur)
        else:
            value = _parse_value(cur)
            if value is not None:
                properties[key] = value
    cur.advance()  # ')'
    return Atom(count, shapes, colors, tuple(positions), buckets,
                properties=tuple(properties.items()), code=code, postpos=postpos,
                property_based=True, line=cur.line, column=column)


def _star(cur: Cursor) -> bool:
    """Consume a lone ``*`` field value (followed by ',' or ')'); report whether it was one."""
    if cur.at("*") and _field_end(cur):
        cur.advance()
        return True
    return False


def _parse_buckets(cur: Cursor) -> Expr:
    return ALL_BUCKETS if _star(cur) else parse_expr(cur)


def _constant_names(expr: Expr) -> frozenset[str] | None:
    if isinstance(expr, Var) and "." not in expr.name:
        return frozenset({expr.name.lower()})
    if isinstance(expr, Str):
        return frozenset({expr.value.lower()})
    if isinstance(expr, SetLit) and expr.items:
        names: set[str] = set()
        for item in expr.items:
            sub = _constant_names(item)
            if sub is None:
                return None
            names |= sub
        return frozenset(names)
    return None


def _parse_value(cur: Cursor) -> ValueSpec | None:
    """A shape/colour/property value: ``*``, names (bare/quoted, lower-cased) or an expression."""
    if _star(cur):
        return None
    expr = parse_expr(cur)
    names = _constant_names(expr)
    return names if names is not None else expr


def _position_item(cur: Cursor, orders: Mapping[str, Order], cells: set[int],
                   names: list[str]) -> None:
    tok = cur.tok
    if tok.kind == "NUM":
        value = int(tok.text)
        if not 1 <= value <= NCELLS:
            raise RuleSyntaxError(cur.source, cur.line, tok.column,
                                  f"expected a cell number 1..{NCELLS}, found {value}")
        cells.add(value)
    elif tok.kind == "ID":
        if tok.text not in orders:
            raise RuleSyntaxError(cur.source, cur.line, tok.column,
                                  f"unknown order '{tok.text}' (expected a cell 1..{NCELLS} or "
                                  "the name of a built-in or defined order)")
        if tok.text not in names:
            names.append(tok.text)
    else:
        raise cur.error(f"a position (a cell 1..{NCELLS} or an order name)")
    cur.advance()


def _parse_positions(cur: Cursor, orders: Mapping[str, Order]) -> PositionSet | None:
    if cur.at("*"):
        cur.advance()
        return None
    cells: set[int] = set()
    names: list[str] = []
    if cur.at("["):
        cur.advance()
        _position_item(cur, orders, cells, names)
        while cur.at(","):
            cur.advance()
            _position_item(cur, orders, cells, names)
        cur.expect("]", "',' or ']' to close the position list")
    else:
        _position_item(cur, orders, cells, names)
    return PositionSet(frozenset(cells), tuple(names))
