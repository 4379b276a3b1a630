"""Training data from any game's records: one row per decision, in Apache Parquet shards.

``referee dataset GAME SOURCES -o OUT`` reads tournament stores (a tournament's folder or
its ``tournament.sqlite``), match folders and record files (``game-*.json``), and the
foreign formats the game reads (``.psq`` for Gomoku...), each game once (a record's own
export beside it, and the logs in a tournament's folder, are its record's game:
``dataset_sources``). Each game is replayed through
the rules engine and its environment (``referee.envs``), and every decision becomes a
row:

============  =================================  =============================================
column        type                               what
============  =================================  =============================================
game          string                             where the game comes from (file, store key)
ply           int32                              the decision's number in the game (from 1)
seat          int8                               the record's seat that decided (its slot)
agent         int8                               the environment's seat (``player_N``)
player        string                             the program in that seat
observation   fixed_size_binary[n]               the environment's observation, a byte a value
action_mask   fixed_size_binary[actions]         a byte per action: 1 if legal
action        int32                              the action number taken
result        float32                            the seat's final score in that game
variant       string                             the rules (e.g. ``renju 15x15``)
============  =================================  =============================================

Observations are whole numbers from 0 to ``observation_high`` (planes of 0/1, counts), so
one byte each, flattened in C order: ``np.frombuffer(row, np.uint8).reshape(shape)`` gives
the environment's array back (as float32 with ``.astype``), the file's metadata
(``referee`` key, JSON) giving ``observation_shape``, with the game, ``actions`` and the
referee's version. (Bytes, not lists of numbers: Parquet writes them 3x faster.)

``OUT`` is a folder of ``part-NNNNN.parquet`` files of at most ``rows_per_shard`` rows,
written in a temporary folder renamed to ``OUT`` once complete; it reads as one table
with ``pyarrow.dataset``, pandas (``pd.read_parquet(OUT)``) and Hugging Face ``datasets``
(``load_dataset("parquet", data_dir=OUT)``). Memory stays flat: rows go out a batch at a
time.

A record that cannot be replayed is skipped with its reason and counted.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from referee import __version__
from referee.core.decisions import Decision, GameData
from referee.core.errors import ConfigError
from referee.core.interrupts import raise_if_asked
from referee.core.record import GameRecord

__all__ = ["DatasetSummary", "Filters", "write_dataset"]


@dataclass(frozen=True)
class Filters:
    """Which decisions to keep: of these players only, with these results (``win``,
    ``draw``, ``loss`` by the seat's score against the best other), under these variants."""

    players: frozenset[str] = frozenset()
    results: frozenset[str] = frozenset()
    variants: frozenset[str] = frozenset()

    def result_kind(self, scores: list[float], seat: int) -> str:
        """``win``, ``draw`` or ``loss`` of ``seat``."""
        best_other = max(s for k, s in enumerate(scores) if k != seat)
        own = scores[seat]
        return "win" if own > best_other else "draw" if own == best_other else "loss"


@dataclass
class DatasetSummary:
    """What was written."""

    games: int = 0
    rows: int = 0
    shards: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)


BATCH_ROWS = 16_384
"""Rows buffered before they go out as a Parquet row group..."""
BATCH_BYTES = 16 << 20
"""... or fewer, when their observations and masks would pass this many bytes (Riichi's
rows are 6.5 KB each: a row group of 2,562)."""


class _ShardWriter:
    """Rows into ``part-NNNNN.parquet`` files of a folder, a batch at a time."""

    def __init__(self, folder: Path, game: str, rows_per_shard: int) -> None:
        self.folder = folder
        self.game = game
        self.rows_per_shard = rows_per_shard
        self.layout: tuple[tuple[int, ...], int, float, str] | None = None
        self.batch_rows = BATCH_ROWS
        self.writer: Any = None
        self.in_shard = 0
        self.shards = 0
        self.columns: dict[str, list[Any]] = {k: [] for k in (
            "game", "ply", "seat", "agent", "player", "observation", "action_mask",
            "action", "result", "variant")}

    def add(self, game: str, ply: int, decision: Decision, player: str, result: float,
            variant: str) -> None:
        columns = self.columns
        columns["game"].append(game)
        columns["ply"].append(ply)
        columns["seat"].append(decision.seat)
        columns["agent"].append(decision.env_seat)
        columns["player"].append(player)
        columns["observation"].append(decision.observation)
        columns["action_mask"].append(decision.action_mask)
        columns["action"].append(decision.action)
        columns["result"].append(result)
        columns["variant"].append(variant)
        if len(columns["game"]) >= self.batch_rows:
            self.flush()

    def set_layout(self, layout: tuple[tuple[int, ...], int, float, str]) -> None:
        """The layout of every row (the first game's), and so the rows a batch holds
        (:data:`BATCH_ROWS`, fewer for large rows: worked out once, not at every row)."""
        self.layout = layout
        shape, actions, _, _ = layout
        self.batch_rows = max(1, min(BATCH_ROWS, BATCH_BYTES // (int(np.prod(shape))
                                                                 + actions)))

    def flush(self) -> None:
        import pyarrow as pa

        count = len(self.columns["game"])
        if count == 0 or self.layout is None:
            return
        shape, actions, _, _ = self.layout
        size = int(np.prod(shape))

        def fixed(rows: list[Any], width: int) -> Any:  # one byte per value, a row each
            flat = np.ascontiguousarray(np.asarray(rows, dtype=np.uint8).reshape(-1))
            return pa.FixedSizeBinaryArray.from_buffers(pa.binary(width), count,
                                                        [None, pa.py_buffer(flat)])

        columns = self.columns
        table = pa.table({
            "game": _strings(pa, columns["game"]),
            "ply": _numbers(pa, columns["ply"], pa.int32(), np.int32),
            "seat": _numbers(pa, columns["seat"], pa.int8(), np.int8),
            "agent": _numbers(pa, columns["agent"], pa.int8(), np.int8),
            "player": _strings(pa, columns["player"]),
            "observation": fixed(columns["observation"], size),
            "action_mask": fixed(columns["action_mask"], actions),
            "action": _numbers(pa, columns["action"], pa.int32(), np.int32),
            "result": _numbers(pa, columns["result"], pa.float32(), np.float32),
            "variant": _strings(pa, columns["variant"]),
        })
        for column in self.columns.values():
            column.clear()
        start = 0
        while start < count:
            if self.writer is None:
                self._open(table.schema)
            take = min(count - start, self.rows_per_shard - self.in_shard)
            self.writer.write_table(table.slice(start, take))
            start += take
            self.in_shard += take
            if self.in_shard >= self.rows_per_shard:
                self.close()

    def _open(self, schema: Any) -> None:
        import pyarrow.parquet as pq

        assert self.layout is not None
        shape, actions, high, _ = self.layout
        meta = {"game": self.game, "observation_shape": list(shape), "actions": actions,
                "observation_high": high, "referee": __version__}
        schema = schema.with_metadata({"referee": json.dumps(meta)})
        path = self.folder / f"part-{self.shards:05d}.parquet"
        self.writer = pq.ParquetWriter(path, schema, compression="zstd",
                                       use_dictionary=["game", "player", "variant"])
        self.shards += 1
        self.in_shard = 0

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


# Arrays are made from their buffers: pyarrow.array() imports pandas when it is
# installed (to ask whether its input is a pandas object), which costs a second or more
# of every run that does not use it.

def _numbers(pa: Any, values: list[Any], kind: Any, dtype: Any) -> Any:
    """``values`` as a pyarrow array of type ``kind`` (numpy's ``dtype``)."""
    data = np.asarray(values, dtype=dtype)
    return pa.Array.from_buffers(kind, len(data), [None, pa.py_buffer(data)])


def _strings(pa: Any, values: list[str]) -> Any:
    """``values`` as a pyarrow string array (each distinct text encoded once: a column
    repeats a few names; a file name that is no UTF-8 keeps its bytes as ``\\xNN``)."""
    encoded: dict[str, bytes] = {}
    parts = []
    for value in values:
        text = encoded.get(value)
        if text is None:
            try:
                text = value.encode()
            except UnicodeEncodeError:  # a name of bytes that are no UTF-8 (surrogates)
                raw = value.encode("utf-8", "surrogateescape")
                text = raw.decode("utf-8", "backslashreplace").encode()
            encoded[value] = text
        parts.append(text)
    offsets = np.zeros(len(parts) + 1, dtype=np.int32)  # (a batch is far below 2 GB)
    np.cumsum([len(p) for p in parts], out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), len(parts),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(parts))])


def write_dataset(data: GameData, records: Iterable[tuple[str, GameRecord | Exception]],
                  out: Path, *, filters: Filters = Filters(), rows_per_shard: int = 1_000_000,
                  overwrite: bool = False,
                  progress: Callable[[DatasetSummary], None] | None = None) -> DatasetSummary:
    """Replay ``records`` (labelled; an exception in place of a record is one that could
    not be read) and write their decisions to the folder ``out`` (see the module)."""
    if out.exists() and not overwrite:
        raise ConfigError(f"{out}: already exists; choose another -o or add --overwrite")
    if rows_per_shard < 1:
        raise ConfigError(f"rows per shard must be at least 1, got {rows_per_shard}")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        temporary = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(out)) from None
    summary = DatasetSummary()
    writer = _ShardWriter(temporary, data.name, rows_per_shard)
    try:
        for label, record in records:
            raise_if_asked()  # (an interrupt whose raise a finalizer swallowed)
            if isinstance(record, Exception):
                summary.skipped.append((label, str(record)))
                continue
            _add_game(data, writer, label, record, filters, summary)
            if progress is not None:
                progress(summary)
        writer.flush()
        writer.close()
        summary.shards = writer.shards
        if out.exists():
            shutil.rmtree(out)
        temporary.rename(out)
    except BaseException:
        writer.close()
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    return summary


def _add_game(data: GameData, writer: _ShardWriter, label: str, record: GameRecord,
              filters: Filters, summary: DatasetSummary) -> None:
    try:
        layout = data.layout(record)
        if writer.layout is None:
            writer.set_layout(layout)
        elif layout[:3] != writer.layout[:3]:
            raise ValueError(f"its observations ({layout[3]}) do not fit those of the "
                             f"first game ({writer.layout[3]}): one dataset per layout")
        if filters.variants and layout[3] not in filters.variants:
            return
        scores = record.scores
        if scores is None:
            raise ValueError("the game has no result")
        names = [p.name for p in record.players]
        decisions = list(data.decisions(record))
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        summary.skipped.append((label, str(exc)))
        return
    kept = 0
    for ply, decision in enumerate(decisions, start=1):
        seat = decision.seat
        if filters.players and names[seat] not in filters.players:
            continue
        if filters.results and filters.result_kind(scores, seat) not in filters.results:
            continue
        writer.add(label, ply, decision, names[seat], float(scores[seat]), layout[3])
        kept += 1
    summary.games += 1
    summary.rows += kept
