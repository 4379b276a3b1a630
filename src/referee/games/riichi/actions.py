"""A seat's answers in the Riichi engine: :class:`Action`, mjai-shaped and unchangeable,
its conversion from and to mjai messages (:func:`action_from_mjai`,
:func:`action_to_mjai`), and the tables the engine's hot path shares.

Tiles are named as mjai names them (``"5mr"`` the red five), so two copies of a tile that
mjai cannot tell apart are the same action, while a red and a plain five are different
options. The engine makes its most frequent actions once, here: every seat's discard of
every tile id (:data:`RED_DAHAI` with red fives, :data:`PLAIN_DAHAI` without), each
seat's pass (:data:`NONE_ACTIONS`), riichi (:data:`REACH_ACTIONS`) and kyuushu kyuuhai
(:data:`KYUUSHU_ACTIONS`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from referee.games.riichi.settings import SEATS
from referee.games.riichi.tiles import KINDS, TILES, kind_name, mjai_name, parse_mjai

__all__ = ["Action", "action_from_mjai", "action_to_mjai"]

RED_NAMES: Final = tuple(mjai_name(t) for t in range(TILES))
"""The mjai name of each tile id, the red fives ``5mr 5pr 5sr``."""
PLAIN_NAMES: Final = tuple(kind_name(t >> 2) for t in range(TILES))
"""The mjai name of each tile id without red fives (a game played without them)."""
_ACTION_TYPES: Final = frozenset({"dahai", "reach", "chi", "pon", "daiminkan", "kakan",
                                  "ankan", "hora", "ryukyoku", "none"})


def name_key(name: str) -> tuple[int, bool]:
    """Sort key of an mjai tile name: kind, then the red five after the plain ones."""
    return parse_mjai(name)


class Action:
    """A seat's answer, shaped like the mjai message that carries it.

    ``type``: ``dahai`` (``pai``, ``tsumogiri``), ``reach``, ``chi`` / ``pon`` /
    ``daiminkan`` (``target``, ``pai`` the called tile, ``consumed`` the tiles from the
    hand), ``kakan`` (``pai`` the added tile, ``consumed`` the pon's three), ``ankan``
    (``consumed`` the four), ``hora`` (``target`` the discarder, the actor itself on a
    tsumo, ``pai`` the winning tile), ``ryukyoku`` (kyuushu kyuuhai), ``none`` (pass).
    Tiles are mjai names; ``consumed`` is sorted (kind, then the red five last).
    ``tsumogiri`` None (only from :func:`action_from_mjai` without the field) means
    "whichever is legal", the tsumogiri discard when both are.

    A value: equal and hashed by its fields, and not to be changed (the attributes are
    ``Final``, which mypy enforces). Written out rather than a frozen dataclass because
    the engine makes and compares actions on its hot path, where a frozen dataclass's
    ``__init__`` and ``__eq__`` cost several times more (and far more compiled).
    """

    __slots__ = ("actor", "consumed", "pai", "target", "tsumogiri", "type")

    def __init__(self, type: str, actor: int, pai: str | None = None,
                 target: int | None = None, consumed: tuple[str, ...] = (),
                 tsumogiri: bool | None = False) -> None:
        self.type: Final = type
        self.actor: Final = actor
        self.pai: Final = pai
        self.target: Final = target
        self.consumed: Final = consumed
        self.tsumogiri: Final = tsumogiri

    def _key(self) -> tuple[str, int, str | None, int | None, tuple[str, ...], bool | None]:
        return (self.type, self.actor, self.pai, self.target, self.consumed, self.tsumogiri)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Action):
            return NotImplemented
        return (self.type == other.type and self.actor == other.actor
                and self.pai == other.pai and self.target == other.target
                and self.consumed == other.consumed and self.tsumogiri == other.tsumogiri)

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"Action(type={self.type!r}, actor={self.actor!r}, pai={self.pai!r}, "
                f"target={self.target!r}, consumed={self.consumed!r}, "
                f"tsumogiri={self.tsumogiri!r})")

    def __reduce__(self) -> tuple[type[Action], tuple[Any, ...]]:
        return (Action, self._key())

    def with_tsumogiri(self, flag: bool) -> Action:
        """The same action with ``tsumogiri`` set to ``flag``."""
        return Action(self.type, self.actor, self.pai, self.target, self.consumed, flag)


def action_to_mjai(action: Action) -> dict[str, Any]:
    """The mjai message of an action (``{"type": "none"}`` for a pass)."""
    kind = action.type
    if kind == "none":
        return {"type": "none"}
    out: dict[str, Any] = {"type": kind, "actor": action.actor}
    if kind == "dahai":
        out["pai"] = action.pai
        out["tsumogiri"] = bool(action.tsumogiri)
    elif kind in ("chi", "pon", "daiminkan"):
        out.update(target=action.target, pai=action.pai, consumed=list(action.consumed))
    elif kind == "kakan":
        out.update(pai=action.pai, consumed=list(action.consumed))
    elif kind == "ankan":
        out["consumed"] = list(action.consumed)
    elif kind == "hora":
        out.update(target=action.target, pai=action.pai)
    return out


def action_from_mjai(obj: Mapping[str, Any], actor: int | None = None) -> Action:
    """An action from an mjai message; ``actor`` fills a missing ``actor`` (``none`` and
    Mortal's ``ryukyoku`` carry none). ``ValueError`` says what is malformed."""
    if not isinstance(obj, dict) and not isinstance(obj, Mapping):  # dict: no ABC check
        raise ValueError("an action is a JSON object")
    kind = obj.get("type")
    if kind not in _ACTION_TYPES:
        raise ValueError(f"unknown action type {kind!r}")
    who = obj.get("actor", actor)
    if isinstance(who, bool) or not isinstance(who, int) or not 0 <= who < SEATS:
        raise ValueError(f"actor must be a seat 0..3, not {who!r}")
    if kind == "none":
        return NONE_ACTIONS[who]
    if kind == "dahai":
        flag = obj.get("tsumogiri")
        if flag is not None and not isinstance(flag, bool):
            raise ValueError(f"tsumogiri must be true or false, not {flag!r}")
        return Action("dahai", who, pai=_tile_field(obj, kind, "pai"), tsumogiri=flag)
    if kind in ("chi", "pon", "daiminkan"):
        return Action(kind, who, pai=_tile_field(obj, kind, "pai"),
                      target=_seat_field(obj, kind, "target"),
                      consumed=_consumed_field(obj, kind, 3 if kind == "daiminkan" else 2))
    if kind == "kakan":
        return Action(kind, who, pai=_tile_field(obj, kind, "pai"),
                      consumed=_consumed_field(obj, kind, 3))
    if kind == "ankan":
        return Action(kind, who, consumed=_consumed_field(obj, kind, 4))
    if kind == "hora":
        return Action(kind, who, pai=_tile_field(obj, kind, "pai"),
                      target=_seat_field(obj, kind, "target"))
    return Action(kind, who)


_TILE_NAMES: Final = frozenset(kind_name(k) for k in range(KINDS)) | {"5mr", "5pr", "5sr"}


def _tile_field(obj: Mapping[str, Any], kind: str, key: str) -> str:
    """The mjai tile name in ``obj[key]``; ``ValueError`` if it is missing or bad."""
    name = obj.get(key)
    if name in _TILE_NAMES:
        return name  # type: ignore[no-any-return]
    if not isinstance(name, str):
        raise ValueError(f"{kind} needs a tile name in {key!r}")
    parse_mjai(name)  # raises, naming the bad name
    return name


def _seat_field(obj: Mapping[str, Any], kind: str, key: str) -> int:
    """The seat in ``obj[key]``; ``ValueError`` if it is not 0..3."""
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < SEATS:
        raise ValueError(f"{kind} needs a seat 0..3 in {key!r}, not {value!r}")
    return value


def _consumed_field(obj: Mapping[str, Any], kind: str, count: int) -> tuple[str, ...]:
    """The ``consumed`` tile names, sorted; ``ValueError`` unless ``count`` good names."""
    names = obj.get("consumed")
    if not isinstance(names, (list, tuple)) or len(names) != count or \
            not all(isinstance(n, str) for n in names):
        raise ValueError(f"{kind} needs {count} tile names in 'consumed'")
    for n in names:
        parse_mjai(n)
    return tuple(sorted(names, key=name_key))


def _action_tables(names: tuple[str, ...]) -> tuple[tuple[tuple[tuple[Action, Action], ...],
                                                         ...], tuple[int, ...]]:
    """The dahai actions of every seat and tile id (not tsumogiri, tsumogiri), shared to
    spare the hot path their construction, and a small id per tile name."""
    table = tuple(tuple((Action("dahai", seat, pai=names[t], tsumogiri=False),
                         Action("dahai", seat, pai=names[t], tsumogiri=True))
                        for t in range(TILES)) for seat in range(SEATS))
    ids = {n: i for i, n in enumerate(sorted(set(names), key=name_key))}
    return table, tuple(ids[names[t]] for t in range(TILES))


RED_DAHAI, RED_NAME_IDS = _action_tables(RED_NAMES)
"""Per seat and tile id, its discard (not tsumogiri, tsumogiri); a small id per name."""
PLAIN_DAHAI, PLAIN_NAME_IDS = _action_tables(PLAIN_NAMES)
"""The same without red fives."""
NONE_ACTIONS: Final = tuple(Action("none", seat) for seat in range(SEATS))
"""Each seat's pass."""
REACH_ACTIONS: Final = tuple(Action("reach", seat) for seat in range(SEATS))
"""Each seat's riichi declaration."""
KYUUSHU_ACTIONS: Final = tuple(Action("ryukyoku", seat) for seat in range(SEATS))
"""Each seat's kyuushu kyuuhai."""
