"""Mistakes in a file's keys, in the words the command line uses (no pydantic jargon)."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

from referee.core.errors import ConfigError
from referee.core.validation import validate_table


class Table(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    count: int = Field(default=1, ge=1, le=100)
    share: float = Field(default=0.5, gt=0, lt=1)
    kind: Literal["x", "y"] = "x"
    flag: bool = False
    name: str = Field(default="a", min_length=1, pattern=r"^[\w.#+-]+$")
    items: list[int] = Field(default_factory=lambda: [1, 2], min_length=2)


@pytest.mark.parametrize(("table", "line"), [
    ({"count": 0}, "count: must be at least 1, got 0"),
    ({"count": 101}, "count: must be at most 100, got 101"),
    ({"count": 10**30}, "count: must be at most 100, got 1000000000000000000000000000000"),
    ({"count": 1e300}, "count: is too large, got 1e+300"),
    ({"count": 1.5}, "count: must be a whole number, got 1.5"),
    ({"count": "many"}, "count: must be a whole number, got 'many'"),
    ({"share": float("nan")}, "share: must be a finite number, got nan"),
    ({"share": 0}, "share: must be more than 0, got 0"),
    ({"share": 1}, "share: must be less than 1, got 1"),
    ({"kind": "z"}, "kind: must be one of 'x' or 'y', got 'z'"),
    ({"flag": "maybe"}, "flag: must be true or false, got 'maybe'"),
    ({"name": ""}, "name: must not be empty, got ''"),
    ({"name": "a b"}, "name: may hold only letters, digits and _ . # + -, got 'a b'"),
    ({"items": [1]}, "items: must have at least 2 entries"),
    ({"items": "1, 2"}, "items: must be a list ([...]), got '1, 2'"),
    ({"colour": 1}, "colour: unknown key (check its spelling)"),
])
def test_each_mistake_is_one_plain_line(table: dict[str, object], line: str) -> None:
    with pytest.raises(ConfigError) as error:
        validate_table(Table, table, "t.toml")
    assert str(error.value) == f"t.toml: {line}"
    assert "Input should" not in str(error.value)
