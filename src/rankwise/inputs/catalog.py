"""The catalog (``catalog=``): the items that could be recommended, which the set-level metrics read
as the denominator of coverage and the items a Gini index spreads over
(:mod:`rankwise.metrics.families.catalog`). An item is in the run's doc column's id space.

Accepted as: a list, tuple, set or Polars/pandas Series of items; a table (Polars DataFrame or
LazyFrame, pyarrow Table, pandas DataFrame, DuckDB relation, or a path to Parquet or CSV/TSV files)
whose items are in ``catalog_column=``, else in the run's doc column, else in its only column. An
item listed twice counts once; an empty catalog or a NULL item is an error naming the catalog.

>>> from rankwise.conventions import Columns
>>> read_catalog(["a", "b", "a"], Columns()).collect().sort("doc_id").rows()
[('a',), ('b',)]
"""

from __future__ import annotations

from typing import Any

import polars as pl

from rankwise.conventions import Columns
from rankwise.errors import (
    EmptyInputError,
    InvalidValueError,
    MissingColumnError,
    UnsupportedInputError,
)
from rankwise.inputs.interactions import read_table

WHAT = "the catalog (catalog=)"


def read_catalog(obj: Any, columns: Columns, column: str | None = None) -> pl.LazyFrame:
    """The catalog's distinct items, one column named ``columns.doc_id`` (checked: at least one
    item, no NULL)."""
    d = columns.doc_id
    kind = type(obj).__name__
    if isinstance(obj, (list, tuple, set, frozenset, pl.Series)) or kind in ("Series", "ndarray", "Index"):
        values = obj.to_list() if hasattr(obj, "to_list") else obj.tolist() if hasattr(obj, "tolist") else list(obj)
        items = pl.LazyFrame({d: values})
    else:
        table = read_table(obj, WHAT, {"doc_id": column or d}, keys=("doc_id",))
        if table is None:
            raise UnsupportedInputError(f"{WHAT} must be a list of items, a Series, a table or a path; got {kind}")
        frame = table.lazy()
        names = frame.collect_schema().names()
        name = column if column is not None else d if d in names else names[0] if len(names) == 1 else None
        if name is None or name not in names:
            raise MissingColumnError.from_missing(
                "the catalog", column or d, names, "catalog_column", column="item column"
            )
        items = frame.select(pl.col(name).alias(d))
    counts = items.select(pl.len().alias("rows"), pl.col(d).null_count().alias("nulls")).collect().row(0)
    if counts[0] == 0:
        raise EmptyInputError(f"{WHAT} has no items")
    if counts[1]:
        raise InvalidValueError(f"{WHAT} holds {counts[1]} NULL item{'s' if counts[1] > 1 else ''}")
    return items.unique()
