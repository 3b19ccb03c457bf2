"""The training interactions (``train=``): the (user, item) rows a recommender learnt from, which
the popularity family's metrics read (:mod:`rankwise.metrics.families.popularity`). The user is in
the run's query column, the item in its doc column (``train_columns={'query_id': 'user_id'}``
names them where the training rows call them otherwise); every other column is ignored, and a
row is one interaction (a user who interacted twice with an item has two rows).

Accepted as the run is: a Polars DataFrame or LazyFrame, a pyarrow Table, a pandas DataFrame, a
DuckDB relation, a path (file, folder or glob) to Parquet or CSV/TSV files (optionally gzipped),
a dict ``{user: [item, ...]}`` (or ``{user: {item: ...}}``: its keys), or an iterable of
``(user, item)`` pairs or records.

>>> import rankwise.inputs.interactions as interactions
>>> from rankwise.conventions import Columns
>>> interactions.read_train({"u1": ["a", "b"], "u2": ["a"]}, Columns()).rows.collect().rows()
[('u1', 'a'), ('u1', 'b'), ('u2', 'a')]
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl

from rankwise.conventions import Columns
from rankwise.errors import EmptyInputError, InputReadError, UnsupportedInputError
from rankwise.inputs.read import (
    apply_rename,
    check_not_empty,
    check_parquet,
    duckdb_arrow,
    expand_path,
    is_gzip,
    read_bytes,
)

WHAT = "the training interactions (train=)"


@dataclass(frozen=True)
class Training:
    """The training interactions as read: ``rows`` holds (at least) the user and item columns;
    ``seen``, where the engine's queries are not the users (``by=`` segments key each (segment,
    user) pair), the (query, item) pairs whose user has the item among its training rows, in the
    same columns (None: those of ``rows``)."""

    rows: pl.LazyFrame
    seen: pl.LazyFrame | None = None


def read_train(obj: Any, columns: Columns, rename: Mapping[str, str] | None = None) -> Training:
    """The training interactions, their rows as a LazyFrame holding (at least)
    ``columns.query_id`` (the user) and ``columns.doc_id`` (the item); ``rename``:
    ``train_columns``, the training rows' own names of those columns, by keyword. A
    :class:`Training` is itself."""
    if isinstance(obj, Training):
        return obj
    frame = _read(obj, columns, rename)
    return Training((apply_rename(frame, "train", columns, rename) if rename else frame).lazy())


def read_table(
    obj: Any, what: str, ids: Mapping[str, str], keys: tuple[str, ...] = ("query_id", "doc_id")
) -> pl.DataFrame | pl.LazyFrame | None:
    """``obj`` as a Polars frame when it is a table: a Polars DataFrame or LazyFrame, a pyarrow
    Table, a pandas DataFrame, a DuckDB relation, or a path (file, folder or glob) to Parquet or
    CSV/TSV files (optionally gzipped; ``ids``: the id columns' names by keyword, read as text
    from CSV, those of ``keys``); None when it is none of these. ``what`` names the input in
    errors. The training interactions and the item features (:mod:`rankwise.inputs.features`)
    are read by it."""
    if isinstance(obj, (pl.DataFrame, pl.LazyFrame)):
        return obj
    if isinstance(obj, (str, os.PathLike)):
        return _scan(obj, what, {ids[key]: pl.String() for key in keys})
    module = type(obj).__module__.split(".")[0]
    if module == "pyarrow":
        return pl.DataFrame(pl.from_arrow(obj))
    if module == "pandas":
        return pl.from_pandas(obj)
    if module in ("duckdb", "_duckdb"):
        return pl.DataFrame(pl.from_arrow(duckdb_arrow(obj)))
    return None


def _read(obj: Any, columns: Columns, rename: Mapping[str, str] | None) -> pl.DataFrame | pl.LazyFrame:
    own = rename or {}
    table = read_table(obj, WHAT, {key: own.get(key, str(getattr(columns, key))) for key in ("query_id", "doc_id")})
    if table is not None:
        return table
    user, item = columns.query_id, columns.doc_id
    if isinstance(obj, Mapping):
        pairs = [(u, i) for u, items in obj.items() for i in _items(u, items)]
        if not pairs:
            raise EmptyInputError(f"{WHAT} are empty: the dict holds no item")
        return pl.DataFrame(pairs, schema=[user, item], orient="row")
    if isinstance(obj, Iterable):
        rows = list(obj)
        if not rows:
            raise EmptyInputError(f"{WHAT} are empty: the iterable holds no interaction")
        if all(isinstance(r, Mapping) for r in rows):
            return pl.DataFrame(rows)
        if all(isinstance(r, (tuple, list)) and len(r) == 2 for r in rows):
            return pl.DataFrame(rows, schema=[user, item], orient="row")
        raise UnsupportedInputError(
            f"cannot read {WHAT} from an iterable of {type(rows[0]).__name__}: pass (user, item) pairs or dicts "
            f"with keys {user!r} and {item!r}"
        )
    raise UnsupportedInputError(
        f"cannot read {WHAT} from {type(obj).__module__}.{type(obj).__name__}: pass a Polars DataFrame/LazyFrame, "
        "a pyarrow Table, a pandas DataFrame, a DuckDB relation, a dict {user: [item, ...]}, (user, item) pairs, "
        "or a path to Parquet or CSV/TSV files"
    )


def _items(user: object, items: object) -> Iterable[object]:
    if isinstance(items, Mapping):
        return list(items)
    if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
        raise UnsupportedInputError(
            f"cannot read {WHAT} from a dict whose values are not lists of items (user {user!r} maps to "
            f"{type(items).__name__}): pass {{user: [item, ...]}}"
        )
    return items


def _scan(obj: str | os.PathLike[str], what: str, ids: Mapping[str, pl.DataType]) -> pl.LazyFrame:
    """Parquet (with hive partitions in a folder) or CSV/TSV files, ids read as text."""
    files, many = expand_path(obj)
    names = {f.name.lower().removesuffix(".gz") for f in files}
    if all(n.endswith(".parquet") for n in names):
        check_parquet(files)
        if many:
            return pl.scan_parquet(files, hive_partitioning=True, hive_schema=None, glob=False)
        return pl.scan_parquet(files[0], glob=False)
    if all(n.endswith((".csv", ".tsv", ".txt")) for n in names):
        check_not_empty(files)
        frames = [
            pl.read_csv(read_bytes(f), separator="\t" if f.name.lower().removesuffix(".gz").endswith(".tsv") else ",",
                        schema_overrides=ids).lazy()
            if is_gzip(f) else
            pl.scan_csv(f, separator="\t" if f.name.lower().endswith(".tsv") else ",", schema_overrides=ids, glob=False)
            for f in files
        ]
        return frames[0] if len(frames) == 1 else pl.concat(frames, how="diagonal_relaxed")
    raise InputReadError(
        f"{what}: {os.fspath(obj)!r} is not Parquet or CSV/TSV (read by the name's extension: .parquet, .csv, .tsv, "
        ".txt, optionally .gz)"
    )
