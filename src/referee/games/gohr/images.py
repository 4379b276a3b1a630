"""Image-and-property-based objects (GS 3): images under the shapes folder, each described
by a line of its folder's ``properties.csv``, and composite objects named by their parts.

Follows the CGS document on object properties and the reference: an image is named by its
path under ``inputDir/shapes`` (``.svg`` added when there is no extension); its folder's
``properties.csv`` has the column ``image`` (or ``#image``) first, then one column per
property; an empty cell means the object lacks that property. The ``images`` column of a
trial list is a ``;``-separated list of such paths, where ``*`` and ``?`` match in any
part and ``**`` as the last part takes a whole tree, or of composite names (families).
"""

from __future__ import annotations

import csv
import random
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from referee.core.errors import ConfigError
from referee.games.gohr.composite import (
    Composite,
    composite_properties,
    is_composite,
    parse_composite,
)

PROPERTIES = "properties.csv"
"""The properties file of a folder of images."""
_NOT_IMAGES = frozenset({"csv", "sh", "bat"})
_MAX_FILES = 1000
FEATURE_SAMPLE = 10_000
"""Composite objects drawn to list feature values when a family is larger than this."""

Properties = Mapping[str, str]


def _with_extension(name: str) -> str:
    return name if re.search(r"\.[A-Za-z0-9]+$", name) else name + ".svg"


def _read_properties(folder: Path) -> dict[str, dict[str, str]]:
    """File name to properties, from ``folder/properties.csv``."""
    path = folder / PROPERTIES
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            rows = [row for row in csv.reader(fh) if any(cell.strip() for cell in row)]
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the properties file "
                          f"({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: the properties file is not UTF-8 text") from None
    if len(rows) < 2:
        raise ConfigError(f"{path}: a properties file needs a header and a line per image")
    header = [cell.strip().lstrip("#") for cell in rows[0]]
    if header[0] != "image":
        raise ConfigError(f"{path}: the first column must be named 'image', not "
                          f"{header[0]!r}")
    table: dict[str, dict[str, str]] = {}
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise ConfigError(f"{path}: line {number} has {len(row)} columns, the header "
                              f"{len(header)}")
        image = row[0].strip()
        if not image or "/" in image or image.startswith("."):
            raise ConfigError(f"{path}: line {number}: {image!r} is not a file name")
        table[_with_extension(image)] = {key: value.strip() for key, value in
                                         zip(header[1:], row[1:], strict=True)
                                         if value.strip()}
    return table


class ImageCatalog:
    """The objects under a shapes folder: each image's properties, read once per folder.

    ``resolve`` turns a path into the file to read (the socket server's fence); absolute
    image paths are allowed as in the reference.
    """

    def __init__(self, shapes_dir: Path, resolve: Callable[[str, Path], Path] | None = None):
        self.shapes_dir = shapes_dir
        self._resolve = resolve or (lambda text, under: under / text)
        self._tables: dict[Path, dict[str, dict[str, str]]] = {}

    def _file(self, key: str) -> Path:
        if key.startswith("/"):
            return self._resolve(key, Path("/"))
        return self._resolve(key, self.shapes_dir)

    def _table(self, folder: Path) -> dict[str, dict[str, str]]:
        table = self._tables.get(folder)
        if table is None:
            table = self._tables[folder] = _read_properties(folder)
        return table

    def properties(self, image: str) -> Properties:
        """The properties of the object ``image`` (a path under the shapes folder, or a
        concrete composite name); ConfigError names what is missing."""
        if is_composite(image):
            return composite_properties(image)
        path = self._file(_with_extension(image))
        if not path.is_file():
            raise ConfigError(f"{image}: no image file {path}")
        props = self._table(path.parent).get(path.name)
        if props is None:
            raise ConfigError(f"{image}: {path.parent / PROPERTIES} has no line for "
                              f"{path.name}")
        return props

    def expand(self, spec: str) -> ImagePool:
        """The objects an ``images`` column names (``;``-separated paths with wildcards, or
        composite names); ConfigError if it names none, or mixes both kinds."""
        plain: list[str] = []
        families: list[Composite] = []
        for part in (p.strip() for p in spec.split(";")):
            if not part:
                continue
            if is_composite(part):
                families.append(parse_composite(part))
            else:
                plain.extend(self._glob(part))
        if plain and families:
            raise ConfigError(f"images {spec!r}: a game cannot mix image files and "
                              "composite objects")
        if not plain and not families:
            raise ConfigError(f"images {spec!r}: names no image")
        return ImagePool(self, sorted(set(plain)), families)

    def _glob(self, pattern: str) -> list[str]:
        """The image keys a wildcard path names (each checked in its properties file)."""
        root = Path("/") if pattern.startswith("/") else self.shapes_dir
        parts = [p for p in pattern.split("/") if p]
        found: list[Path] = []
        self._walk(root, parts, found)
        if not found:
            raise ConfigError(f"images: {pattern!r} matches no image under {root}")
        keys = []
        for path in found:
            key = path.relative_to(self.shapes_dir).as_posix() \
                if path.is_relative_to(self.shapes_dir) else path.as_posix()
            self.properties(key)
            keys.append(key)
        return keys

    def _walk(self, folder: Path, parts: list[str], found: list[Path]) -> None:
        head, rest = parts[0], parts[1:]
        if head == "**" and not rest:
            for path in sorted(self._resolve(".", folder).rglob("*")):
                if path.is_file() and _is_image(path.name) and \
                        path.name in self._table(path.parent):
                    found.append(path)
        elif not re.search(r"[*?\[\]]", head):
            target = self._resolve(head if rest else _with_extension(head), folder)
            if rest:
                self._walk(target, rest, found)
            else:
                found.append(target)
        else:
            regex = re.compile(re.escape(head).replace(r"\*", ".*").replace(r"\?", "."))
            real = self._resolve(".", folder)
            children = sorted(real.iterdir()) if real.is_dir() else []
            for child in children:
                name = child.name
                if rest and child.is_dir() and regex.fullmatch(name):
                    self._walk(child, rest, found)
                elif not rest and child.is_file() and _is_image(name) and (
                        regex.fullmatch(name) or (name.endswith(".svg")
                                                  and regex.fullmatch(name[:-4]))):
                    found.append(child)
        if len(found) > _MAX_FILES:
            raise ConfigError(f"images: more than {_MAX_FILES} files match")


def _is_image(name: str) -> bool:
    return not name.endswith("~") and name.rsplit(".", 1)[-1].lower() not in _NOT_IMAGES


class ImagePool:
    """The objects random boards draw from: image files (uniformly) or composite families
    (a family in proportion to its size, then an object of it uniformly)."""

    def __init__(self, catalog: ImageCatalog, keys: list[str],
                 families: list[Composite]) -> None:
        self.catalog = catalog
        self.keys = tuple(keys)
        self.families = tuple(families)
        self._weights = [f.family_size() for f in families]

    def draw(self, rng: random.Random) -> str:
        """The image key (or concrete composite name) of one random object."""
        if self.keys:
            return self.keys[rng.randrange(len(self.keys))]
        k = rng.randrange(sum(self._weights))
        for family, weight in zip(self.families, self._weights, strict=True):
            if k < weight:
                return family.sample(rng).name
            k -= weight
        raise AssertionError("unreachable: k is below the total weight")

    def features(self) -> tuple[dict[str, list[int | str]], int | None]:
        """Every property the objects have, with all its values (integers as numbers,
        sorted), and, when a composite family is too large to list, how many objects were
        drawn to list them (else None)."""
        sampled: int | None = None
        if self.keys:
            objects: Iterable[Properties] = [self.catalog.properties(k) for k in self.keys]
        elif sum(self._weights) <= FEATURE_SAMPLE:
            objects = [m.properties() for f in self.families for m in f.members()]
        else:
            rng = random.Random(0)
            sampled = FEATURE_SAMPLE
            objects = [composite_properties(self.draw(rng)) for _ in range(sampled)]
        values: dict[str, set[str]] = {}
        for props in objects:
            for key, value in props.items():
                values.setdefault(key, set()).add(value)
        return {key: _sorted_values(vals) for key, vals in values.items()}, sampled


def _sorted_values(values: set[str]) -> list[int | str]:
    numbers = sorted(int(v) for v in values if re.fullmatch(r"-?[0-9]+", v))
    words = sorted(v for v in values if not re.fullmatch(r"-?[0-9]+", v))
    return [*numbers, *words]
