"""GOHR rule-line tokens and the set-valued expression language (GS4 arithmetic + GS5 additions).

The lexer and the expression parser are shared with the rule-set parser in ``ruleset.py``; every
syntax error is a :class:`RuleSyntaxError` naming ``source:line:column`` and what was expected.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import product

from referee.core.errors import ConfigError

Value = int | str
"""One element of an evaluated set: GS arithmetic is on sets of integers and strings."""

Env = Mapping[str, AbstractSet[Value]]
"""Variable values by (dotted) name, e.g. ``p``, ``Nearby``, ``last.color``, ``q.body.seq``.

A name missing from the mapping is undefined and evaluates to the empty set."""


class RuleSyntaxError(ConfigError):
    """A rule file (or expression) does not parse; the message is ``source:line:col: ...``."""

    def __init__(self, source: str, line: int, column: int, detail: str) -> None:
        super().__init__(f"{source}:{line}:{column}: {detail}")
        self.source = source
        self.line = line
        self.column = column
        self.detail = detail


# --------------------------------------------------------------------------------------------
# Lexer


@dataclass(frozen=True, slots=True)
class Token:
    """One lexical token: kind is NUM, ID, STR, EOL or the punctuation text itself."""

    kind: str
    text: str
    column: int

    def describe(self) -> str:
        """How the token is named in an error message."""
        if self.kind == "EOL":
            return "end of line"
        if self.kind == "STR":
            return f'"{self.text}"'
        return f"'{self.text}'"


_PUNCT = ("==", "!=", "<=", ">=", "..", "(", ")", "[", "]", ",", ":", "*", "+", "-", "/",
          "%", "!", "<", ">", "=", ".")
_NUM = re.compile(r"[0-9]+")
_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def tokenize(text: str, source: str, line: int) -> list[Token]:
    """Split one line (comments already allowed: ``#`` ends the line) into tokens, ending in EOL."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in " \t\r\n\f\v\ufeff":
            i += 1
            continue
        if ch == "#":
            break
        col = i + 1
        if ch == '"':
            end = text.find('"', i + 1)
            if end < 0:
                raise RuleSyntaxError(source, line, col,
                                      "unterminated string: expected a closing '\"'")
            tokens.append(Token("STR", text[i + 1:end], col))
            i = end + 1
            continue
        m = _NUM.match(text, i)
        if m:
            tokens.append(Token("NUM", m.group(), col))
            i = m.end()
            continue
        m = _ID.match(text, i)
        if m:
            tokens.append(Token("ID", m.group(), col))
            i = m.end()
            continue
        for p in _PUNCT:
            if text.startswith(p, i):
                tokens.append(Token(p, p, col))
                i += len(p)
                break
        else:
            raise RuleSyntaxError(source, line, col, f"unexpected character {ch!r}")
    tokens.append(Token("EOL", "", len(text.rstrip("\r\n")) + 1))
    return tokens


class Cursor:
    """A position in one line's tokens, with helpers that raise located syntax errors."""

    def __init__(self, tokens: list[Token], source: str, line: int) -> None:
        self.tokens = tokens
        self.source = source
        self.line = line
        self.pos = 0

    @property
    def tok(self) -> Token:
        """The current token."""
        return self.tokens[self.pos]

    def peek(self, offset: int = 1) -> Token:
        """The token ``offset`` places ahead (EOL past the end)."""
        return self.tokens[min(self.pos + offset, len(self.tokens) - 1)]

    def at(self, *kinds: str) -> bool:
        """Whether the current token is of one of these kinds."""
        return self.tok.kind in kinds

    def advance(self) -> Token:
        """Consume and return the current token."""
        tok = self.tok
        if tok.kind != "EOL":
            self.pos += 1
        return tok

    def error(self, expected: str, tok: Token | None = None) -> RuleSyntaxError:
        """An 'expected X, found Y' error at ``tok`` (default: the current token)."""
        tok = tok or self.tok
        return RuleSyntaxError(self.source, self.line, tok.column,
                               f"expected {expected}, found {tok.describe()}")

    def expect(self, kind: str, expected: str) -> Token:
        """Consume a token of ``kind`` or raise 'expected ``expected``'."""
        if self.tok.kind != kind:
            raise self.error(expected)
        return self.advance()


# --------------------------------------------------------------------------------------------
# AST


@dataclass(frozen=True, slots=True)
class Num:
    """An integer literal."""

    value: int


@dataclass(frozen=True, slots=True)
class Str:
    """A string literal (quoted, or a bare name used as a constant)."""

    value: str


@dataclass(frozen=True, slots=True)
class Var:
    """A variable or dotted path: ``p``, ``Nearby``, ``last.color``, ``q.body.seq``, a bare name."""

    name: str


@dataclass(frozen=True, slots=True)
class SetLit:
    """A bracket list ``[e, ...]``: the union of its elements."""

    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Range:
    """An integer range ``[lo..hi]`` (both ends included)."""

    low: int
    high: int


@dataclass(frozen=True, slots=True)
class Unary:
    """``!e`` (empty -> {1}, else {}) or ``-e`` (elementwise negation)."""

    op: str
    operand: Expr


@dataclass(frozen=True, slots=True)
class BinOp:
    """A binary operator over the cross product of its operands' sets."""

    op: str
    left: Expr
    right: Expr


Expr = Num | Str | Var | SetLit | Range | Unary | BinOp
"""A node of the expression AST."""

ALL_BUCKETS: Expr = SetLit((Num(0), Num(1), Num(2), Num(3)))
"""The meaning of ``*`` in a bucket field."""

_COMPARE = ("==", "!=", "<", ">", "<=", ">=")


# --------------------------------------------------------------------------------------------
# Parser


def parse_expr(cur: Cursor) -> Expr:
    """Parse one expression at the cursor: comparison < additive < multiplicative < unary."""
    left = _additive(cur)
    while cur.at(*_COMPARE):
        op = cur.advance().kind
        left = BinOp(op, left, _additive(cur))
    return left


def _additive(cur: Cursor) -> Expr:
    left = _multiplicative(cur)
    while cur.at("+", "-"):
        op = cur.advance().kind
        left = BinOp(op, left, _multiplicative(cur))
    return left


def _multiplicative(cur: Cursor) -> Expr:
    left = _unary(cur)
    while cur.at("*", "/", "%"):
        op = cur.advance().kind
        left = BinOp(op, left, _unary(cur))
    return left


def _unary(cur: Cursor) -> Expr:
    if cur.at("!", "-"):
        op = cur.advance().kind
        return Unary(op, _unary(cur))
    return _primary(cur)


def _primary(cur: Cursor) -> Expr:
    tok = cur.tok
    if tok.kind == "NUM":
        cur.advance()
        return Num(int(tok.text))
    if tok.kind == "STR":
        cur.advance()
        return Str(tok.text)
    if tok.kind == "ID":
        cur.advance()
        name = tok.text
        while cur.at("."):
            cur.advance()
            name += "." + cur.expect("ID", "a property name after '.'").text
        return Var(name)
    if tok.kind == "(":
        cur.advance()
        inner = parse_expr(cur)
        cur.expect(")", "')' to close the parenthesis")
        return inner
    if tok.kind == "[":
        cur.advance()
        if cur.at("NUM") and cur.peek().kind == "..":
            low = int(cur.advance().text)
            cur.advance()
            high = int(cur.expect("NUM", "an integer after '..'").text)
            cur.expect("]", "']' to close the range")
            return Range(low, high)
        items: list[Expr] = []
        if not cur.at("]"):
            items.append(parse_expr(cur))
            while cur.at(","):
                cur.advance()
                items.append(parse_expr(cur))
        cur.expect("]", "',' or ']' in the bracket list")
        return SetLit(tuple(items))
    raise cur.error("an expression (number, name, string, '(' or '[')")


def parse_expression(text: str, source: str = "<expr>", line: int = 1) -> Expr:
    """Parse a whole string as one expression (handy for tests and tools)."""
    cur = Cursor(tokenize(text, source, line), source, line)
    expr = parse_expr(cur)
    if not cur.at("EOL"):
        raise cur.error("an operator or end of expression")
    return expr


# --------------------------------------------------------------------------------------------
# Evaluator


def java_div(a: int, b: int) -> int:
    """Java/C integer division: the quotient truncated toward zero (``b`` must not be 0)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def java_rem(a: int, b: int) -> int:
    """Java/C remainder: has the sign of ``a``; ``a == b*java_div(a, b) + java_rem(a, b)``."""
    return a - b * java_div(a, b)


def bucket_mod(n: int) -> int:
    """The final bucket reduction ``((n % 4) + 4) % 4`` (with Java ``%``)."""
    return java_rem(java_rem(n, 4) + 4, 4)


def _as_int(v: Value) -> int | None:
    if isinstance(v, int):
        return v
    text = v.strip()
    if re.fullmatch(r"-?[0-9]+", text):
        return int(text)
    return None


def normalize(v: Value) -> Value:
    """A value as compared for equality: integer-like strings become ints, other strings
    lose surrounding blanks and case."""
    as_int = _as_int(v)
    return as_int if as_int is not None else str(v).strip().lower()


def _ints(values: Iterable[Value]) -> list[int]:
    return [i for i in (_as_int(v) for v in values) if i is not None]


_TRUE: frozenset[Value] = frozenset({1})
_FALSE: frozenset[Value] = frozenset()


def evaluate_values(expr: Expr, env: Env) -> frozenset[Value]:
    """Evaluate ``expr`` to a set of integers and strings (no bucket reduction)."""
    if isinstance(expr, Num):
        return frozenset({expr.value})
    if isinstance(expr, Str):
        return frozenset({expr.value})
    if isinstance(expr, Var):
        return frozenset(env.get(expr.name, _FALSE))
    if isinstance(expr, SetLit):
        out: set[Value] = set()
        for item in expr.items:
            out |= evaluate_values(item, env)
        return frozenset(out)
    if isinstance(expr, Range):
        return frozenset(range(expr.low, expr.high + 1))
    if isinstance(expr, Unary):
        inner = evaluate_values(expr.operand, env)
        if expr.op == "!":
            return _FALSE if inner else _TRUE
        return frozenset(-i for i in _ints(inner))
    left = evaluate_values(expr.left, env)
    right = evaluate_values(expr.right, env)
    return _binop(expr.op, left, right)


def _binop(op: str, left: frozenset[Value], right: frozenset[Value]) -> frozenset[Value]:
    if op in ("==", "!="):
        want = op == "=="
        lnorm = {normalize(v) for v in left}
        rnorm = {normalize(v) for v in right}
        hit = any((a == b) == want for a, b in product(lnorm, rnorm))
        return _TRUE if hit else _FALSE
    lints, rints = _ints(left), _ints(right)
    if op in ("<", ">", "<=", ">="):
        tests = {"<": int.__lt__, ">": int.__gt__, "<=": int.__le__, ">=": int.__ge__}
        test = tests[op]
        return _TRUE if any(test(a, b) for a, b in product(lints, rints)) else _FALSE
    out: set[Value] = set()
    for a, b in product(lints, rints):
        if op == "+":
            out.add(a + b)
        elif op == "-":
            out.add(a - b)
        elif op == "*":
            out.add(a * b)
        elif b == 0:
            continue  # division by zero: no result for this pair
        elif op == "/":
            out.add(java_div(a, b))
        else:
            out.add(java_rem(a, b))
    return frozenset(out)


def evaluate(expr: Expr, env: Env) -> frozenset[int]:
    """Evaluate ``expr`` with the set semantics of arithmetic.txt; only the integers are kept."""
    return frozenset(_ints(evaluate_values(expr, env)))


def evaluate_buckets(expr: Expr, env: Env) -> frozenset[int]:
    """Evaluate a bucket expression: :func:`evaluate`, then each value reduced to 0..3."""
    return frozenset(bucket_mod(n) for n in evaluate(expr, env))
