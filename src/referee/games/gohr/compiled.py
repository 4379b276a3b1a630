"""Rule rows compiled for the episode engine: each atom's clauses as constants or
expressions, the variables it reads, and what its acceptance depends on.

Pure: compiled once per rule set and shared by every episode of it (see ``engine``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from referee.games.gohr.expr import (
    BinOp,
    Expr,
    Range,
    SetLit,
    Str,
    Unary,
    Value,
    Var,
    evaluate_buckets,
    evaluate_values,
    normalize,
)
from referee.games.gohr.ruleset import Atom, Order, PositionSet, RuleRow, ValueSpec

__all__ = ["LEGACY_VARS", "CAtom", "CPos", "Spec", "compile_row"]

LEGACY_VARS = frozenset({"p", "pc", "ps", "Nearby", "Remotest", "pos", "this", "last"})


def _var_names(expr: Expr, out: set[str]) -> None:
    if isinstance(expr, Var):
        out.add(expr.name)
    elif isinstance(expr, SetLit):
        for item in expr.items:
            _var_names(item, out)
    elif isinstance(expr, Unary):
        _var_names(expr.operand, out)
    elif isinstance(expr, BinOp):
        _var_names(expr.left, out)
        _var_names(expr.right, out)


def _constants(expr: Expr, known: frozenset[str]) -> Expr:
    """In a property field, bare undotted names that are no variable are string constants."""
    if isinstance(expr, Var):
        if "." not in expr.name and expr.name not in known:
            return Str(expr.name)
        return expr
    if isinstance(expr, SetLit):
        return SetLit(tuple(_constants(i, known) for i in expr.items))
    if isinstance(expr, Unary):
        return Unary(expr.op, _constants(expr.operand, known))
    if isinstance(expr, BinOp):
        return BinOp(expr.op, _constants(expr.left, known), _constants(expr.right, known))
    return expr


def _is_constant(expr: Expr) -> bool:
    names: set[str] = set()
    _var_names(expr, names)
    return not names and not isinstance(expr, Range)


Spec = frozenset[Value] | Expr | None
"""A compiled value clause: normalized constants, an expression, or None for ``*``."""


@dataclass(frozen=True, slots=True)
class CPos:
    """A compiled position set: literal cells and orders."""

    cells: frozenset[int]
    orders: tuple[Order, ...]


@dataclass(frozen=True, slots=True)
class CAtom:
    """A compiled atom."""

    count: int | None
    shapes: Spec
    colors: Spec
    props: tuple[tuple[str, Spec], ...]
    code: Expr | None
    positions: tuple[CPos, ...]
    postpos: CPos | None
    bucket_const: frozenset[int] | None
    bucket_expr: Expr
    names: tuple[str, ...]
    per_bucket: bool
    shared_names: tuple[str, ...]
    """Variables whose value is the same for every piece: ``p``, ``last``, ``last.F``."""
    piece_history: bool
    """Whether a variable depends on both the piece and the history (pc, ps, q.*, p.PROP)."""
    order_names: tuple[str, ...]
    """Orders the atom's positions or variables use (their first occupied group matters)."""
    filters: bool
    """Whether the atom looks at the piece's fields at all (shape, color, properties, code)."""
    piece_free: bool
    """Whether every variable has one value for all pieces (shared names and orders only),
    so the bucket set is computed once per board, not per piece."""


def _compile_pos(ps: PositionSet, orders: Mapping[str, Order]) -> CPos:
    return CPos(ps.cells, tuple(orders[name] for name in ps.orders))


def _compile_spec(spec: ValueSpec | None, known: frozenset[str], names: set[str]) -> Spec:
    if spec is None:
        return None
    if isinstance(spec, frozenset):
        return frozenset(normalize(v) for v in spec)
    expr = _constants(spec, known)
    if _is_constant(expr):
        return frozenset(normalize(v) for v in evaluate_values(expr, {}))
    _var_names(expr, names)
    return expr


def _compile_atom(atom: Atom, orders: Mapping[str, Order]) -> CAtom:
    known = LEGACY_VARS | frozenset(orders)
    names: set[str] = set()
    shapes = _compile_spec(atom.shapes, known, names)
    colors = _compile_spec(atom.colors, known, names)
    props = tuple((k, _compile_spec(v, known, names)) for k, v in atom.properties)
    if atom.code is not None:
        _var_names(atom.code, names)
    bucket_const: frozenset[int] | None = None
    if _is_constant(atom.buckets):
        bucket_const = evaluate_buckets(atom.buckets, {})
    else:
        _var_names(atom.buckets, names)
    per_bucket = any(
        n == "this.bucket" or n == "q.bucket" or n.startswith("q.bucket.") or n == "p.bucket"
        for n in names
    )
    shared = tuple(sorted(n for n in names if n in ("p", "last") or n.startswith("last.")))
    piece_history = any(n in ("pc", "ps") or n.startswith(("q.", "p.")) for n in names)
    used_orders = {n for n in names if n in orders}
    for ps in (*atom.positions, *(() if atom.postpos is None else (atom.postpos,))):
        used_orders.update(ps.orders)
    return CAtom(
        count=atom.count,
        shapes=shapes,
        colors=colors,
        props=props,
        code=atom.code,
        positions=tuple(_compile_pos(p, orders) for p in atom.positions),
        postpos=None if atom.postpos is None else _compile_pos(atom.postpos, orders),
        bucket_const=bucket_const,
        bucket_expr=atom.buckets,
        names=tuple(sorted(names)),
        per_bucket=per_bucket,
        shared_names=shared,
        piece_history=piece_history,
        order_names=tuple(sorted(used_orders)),
        filters=not (shapes is None and colors is None and not props and atom.code is None),
        piece_free=not per_bucket and all(n in shared or n in orders for n in names),
    )


def compile_row(row: RuleRow, orders: Mapping[str, Order]) -> tuple[CAtom, ...]:
    """The atoms of ``row`` compiled against the orders in force."""
    return tuple(_compile_atom(a, orders) for a in row.atoms)
