"""Composite image objects (GS 4.009+): pieces made of small elements, named like
``/composite/h/d=313/b=333/rt/bq/gc``, whose properties come from the name.

Follows the CGS document on composite objects and the reference's parser: the layout (``h``,
``v`` with an optional count, default 3; ``gRC`` for a grid; ``?`` for either row or
column), then ``d=`` (sizes 1..3) and ``b=`` (brightness 1..3), ``allShapes=`` and
``allColors=`` (the letters wildcards draw from), then one color-and-shape pair per element
(``rq``; ``x`` or ``xx`` for a blank; ``*`` for ``??``; ``rq^5`` for five). ``?`` stands for
any allowed value and a trailing ``*`` in ``d=``/``b=`` for any values: such a name is a
family, from which ``sample`` draws a concrete object.

Pure: no I/O; randomness only from the generator handed in.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from referee.core.errors import ConfigError

PREFIX = "/composite/"
"""What every composite name starts with."""
LEVELS = 3
"""Sizes and brightness levels run 1..LEVELS; LEVELS is the default."""
SHAPES = ("q", "s", "c", "t")
"""Element shapes: square, star, circle, triangle (``x``: blank)."""
COLORS = ("r", "g", "b")
"""Element colors: red, green, blue."""
ANY = "?"
_OPACITY = (0.0, 0.15, 0.4, 1.0)
_SCALE = (0.0, 0.6, 0.8, 1.0)
_LAYOUT = re.compile(r"([hvg?])([0-9]*)")


def is_composite(name: str) -> bool:
    """Whether ``name`` names a composite object (or family)."""
    return name.startswith(PREFIX)


@dataclass(frozen=True)
class Composite:
    """A parsed composite name: a concrete object or, with wildcards, a family."""

    name: str
    rows: int
    cols: int
    either: bool
    """``?`` layout: a row or a column of ``cols`` elements."""
    sizes: tuple[int | None, ...]
    brights: tuple[int | None, ...]
    colors: tuple[str, ...]
    shapes: tuple[str, ...]
    all_colors: tuple[str, ...] = COLORS
    all_shapes: tuple[str, ...] = SHAPES

    @property
    def count(self) -> int:
        """The number of elements."""
        return self.rows * self.cols

    @property
    def wild(self) -> bool:
        """Whether the name describes a family rather than one object."""
        return (self.either or None in self.sizes or None in self.brights
                or ANY in self.colors or ANY in self.shapes)

    def family_size(self) -> int:
        """How many concrete objects the name describes."""
        n = 2 if self.either else 1
        n *= LEVELS ** (self.sizes.count(None) + self.brights.count(None))
        n *= len(self.all_colors) ** self.colors.count(ANY)
        return int(n * len(self.all_shapes) ** self.shapes.count(ANY))

    def sample(self, rng: random.Random) -> Composite:
        """A concrete object of the family, drawn uniformly (itself if concrete)."""
        if not self.wild:
            return self
        rows, cols = (self.rows, self.cols)
        if self.either and rng.random() < 0.5:
            rows, cols = cols, rows
        sizes = tuple(rng.randint(1, LEVELS) if s is None else s for s in self.sizes)
        brights = tuple(rng.randint(1, LEVELS) if b is None else b for b in self.brights)
        colors = tuple(rng.choice(self.all_colors) if c == ANY else c for c in self.colors)
        shapes = tuple(rng.choice(self.all_shapes) if s == ANY else s for s in self.shapes)
        return _concrete(rows, cols, sizes, brights, colors, shapes)

    def members(self) -> Iterator[Composite]:
        """Every concrete object of the family (as many as ``family_size``)."""
        layouts = [(self.rows, self.cols)] + ([(self.cols, self.rows)] if self.either else [])
        levels = range(1, LEVELS + 1)
        for (rows, cols), sizes, brights, colors, shapes in itertools.product(
                layouts,
                itertools.product(*((levels if s is None else (s,)) for s in self.sizes)),
                itertools.product(*((levels if b is None else (b,)) for b in self.brights)),
                itertools.product(*((self.all_colors if c == ANY else (c,))
                                    for c in self.colors)),
                itertools.product(*((self.all_shapes if s == ANY else (s,))
                                    for s in self.shapes))):
            yield _concrete(rows, cols, sizes, brights, colors, shapes)

    def properties(self) -> dict[str, str]:
        """The properties of a concrete object, as the reference computes them."""
        if self.wild:
            raise ValueError(f"{self.name}: a family of composite objects has no properties")
        sizes = [s or LEVELS for s in self.sizes]
        brights = [b or LEVELS for b in self.brights]
        filled = [k for k in range(self.count) if self.shapes[k] != "x"]
        total = 0.0  # summed and truncated as the reference does (computeProperties)
        for k in filled:
            total += _OPACITY[brights[k]] * _SCALE[sizes[k]] * _SCALE[sizes[k]]
        props = {
            "name": self.name,
            "orientation": "h" if self.rows == 1 else "v" if self.cols == 1 else "g",
            "d": "".join(map(str, sizes)), "d_order": str(_order(sizes)),
            "b": "".join(map(str, brights)), "b_order": str(_order(brights)),
            "s": "".join(self.shapes), "c": "".join(self.colors),
            "sameshape": "1" if len(set(self.shapes)) == 1 else "0",
            "samecolor": "1" if len(set(self.colors)) == 1 else "0",
            "occupied": str(len(filled)),
            "opacity": str(int(100 * total / self.count)),
        }
        for key, (dr, dc) in (("trans_h", (0, 1)), ("trans_v", (1, 0)),
                              ("trans_asc", (1, -1)), ("trans_desc", (1, 1))):
            props[key] = "1" if self._invariant(dr, dc, sizes, brights) else "0"
        return props

    def _invariant(self, dr: int, dc: int, sizes: list[int], brights: list[int]) -> bool:
        """Whether every element equals its neighbour at (+dr, +dc) (blanks equal blanks)."""
        for row in range(self.rows):
            for col in range(self.cols):
                r, c = row + dr, col + dc
                if not (0 <= r < self.rows and 0 <= c < self.cols):
                    continue
                j, k = row * self.cols + col, r * self.cols + c
                if self.shapes[j] == "x" and self.shapes[k] == "x":
                    continue
                if (self.shapes[j], self.colors[j], sizes[j], brights[j]) != \
                        (self.shapes[k], self.colors[k], sizes[k], brights[k]):
                    return False
        return True


def _order(values: list[int]) -> int:
    """0 all equal, 1 non-decreasing, -1 non-increasing, 2 neither."""
    up = all(a <= b for a, b in itertools.pairwise(values))
    down = all(a >= b for a, b in itertools.pairwise(values))
    return 0 if up and down else 1 if up else -1 if down else 2


def _concrete(rows: int, cols: int, sizes: tuple[int | None, ...],
              brights: tuple[int | None, ...], colors: tuple[str, ...],
              shapes: tuple[str, ...]) -> Composite:
    """A concrete object, named as the reference names the objects it draws."""
    layout = f"h{cols}" if rows == 1 else f"v{rows}" if cols == 1 else f"g{rows}{cols}"
    name = PREFIX + layout
    for key, values in (("d", sizes), ("b", brights)):
        text = "".join(str(v) for v in values)
        if text != str(LEVELS) * len(values):
            name += f"/{key}={text}"
    name += "".join(f"/{c}{s}" for c, s in zip(colors, shapes, strict=True))
    return Composite(name, rows, cols, False, sizes, brights, colors, shapes)


def _levels(text: str, count: int, name: str) -> tuple[int | None, ...]:
    out: list[int | None] = []
    for k, ch in enumerate(text):
        if ch == "*" and k == len(text) - 1:
            out.extend([None] * (count - len(out)))
        elif ch == ANY:
            out.append(None)
        elif ch.isdigit() and 1 <= int(ch) <= LEVELS:
            out.append(int(ch))
        else:
            raise ConfigError(f"{name}: {ch!r} in {text!r} is not a level 1..{LEVELS}, '?' "
                              "or a final '*'")
    if len(out) != count:
        raise ConfigError(f"{name}: {text!r} gives {len(out)} levels for {count} elements")
    return tuple(out)


def parse_composite(name: str) -> Composite:
    """Parse a composite name (concrete or a family); ConfigError says what is wrong."""
    if not is_composite(name):
        raise ConfigError(f"{name}: a composite name starts with {PREFIX}")
    parts = name[len(PREFIX):].split("/")
    if any(not p.strip() for p in parts):
        raise ConfigError(f"{name}: an empty part (two slashes in a row?)")
    layout = _LAYOUT.fullmatch(parts[0].strip())
    if layout is None:
        raise ConfigError(f"{name}: expected h, v, g or ? (and a number) after {PREFIX}")
    kind, digits = layout.groups()
    rows, cols = 1, 3
    if kind == "v":
        rows, cols = int(digits or 3), 1
    elif kind == "g":
        if len(digits) != 2:
            raise ConfigError(f"{name}: /g takes exactly two digits (rows, columns)")
        rows, cols = int(digits[0]), int(digits[1])
    elif digits:
        cols = int(digits)
    if rows * cols < 1:
        raise ConfigError(f"{name}: a composite object has at least one element")
    count = rows * cols
    sizes: tuple[int | None, ...] = (LEVELS,) * count
    brights: tuple[int | None, ...] = (LEVELS,) * count
    all_colors: tuple[str, ...] = COLORS
    all_shapes: tuple[str, ...] = SHAPES
    elements: list[str] = []
    for part in (p.strip() for p in parts[1:]):
        key, equals, value = part.partition("=")
        if equals:
            if key == "d":
                sizes = _levels(value, count, name)
            elif key == "b":
                brights = _levels(value, count, name)
            elif key in ("allShapes", "allColors") and value:
                letters = tuple(value)
                # x (a blank) may be drawn or defaulted as a shape, as the reference's
                # Composite(name) takes any letter and draws blanks without a color
                known = (*SHAPES, "x") if key == "allShapes" else COLORS
                if any(ch not in known for ch in letters):
                    raise ConfigError(f"{name}: {key}={value}: letters of {''.join(known)}")
                if key == "allShapes":
                    all_shapes = letters
                else:
                    all_colors = letters
            else:
                raise ConfigError(f"{name}: unknown part {part!r}")
            continue
        element, caret, times = part.partition("^")
        if caret and not times.isdecimal():
            raise ConfigError(f"{name}: {part!r}: a count after '^' must be a number")
        element = {"x": "xx", "*": "??"}.get(element, element)
        if len(element) != 2:
            raise ConfigError(f"{name}: {part!r} is not an element (a color and a shape, "
                              "e.g. rq)")
        elements.extend([element] * (int(times) if caret else 1))
    if len(elements) > count:
        raise ConfigError(f"{name}: {len(elements)} elements for {count} places")
    elements += [all_colors[0] + all_shapes[0]] * (count - len(elements))
    colors = tuple(e[0] for e in elements)
    shapes = tuple(e[1] for e in elements)
    for c, s in zip(colors, shapes, strict=True):
        if c not in (*all_colors, ANY, "x") or s not in (*all_shapes, ANY, "x"):
            raise ConfigError(f"{name}: {c}{s} is not a color of {''.join(all_colors)} and "
                              f"a shape of {''.join(all_shapes)} ('?' any, 'x' blank)")
        if c == "x" and s != "x":
            raise ConfigError(f"{name}: color x only goes with shape x (a blank)")
    return Composite(name, rows, cols, kind == "?", sizes, brights, colors, shapes,
                     all_colors, all_shapes)


def composite_properties(name: str) -> Mapping[str, str]:
    """The properties of the concrete composite object ``name``."""
    parsed = parse_composite(name)
    if parsed.wild:
        raise ConfigError(f"{name}: a piece needs a concrete composite name, without "
                          "wildcards")
    return parsed.properties()
