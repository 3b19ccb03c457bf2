"""The item features (``features=``): each item's feature vector, of one fixed dimension, which
the feature-diversity family reads (:mod:`rankwise.metrics.families.feature_diversity`: ILD, ILS).
The item is in the run's doc column (named as the run names it); its vector is

- the column ``features_column`` names, a list or array of numbers per item; by default
- the single other column, when it holds lists or arrays; or
- every other column, each a number: one dimension each, in the frame's column order.

Accepted as a table (a Polars DataFrame or LazyFrame, a pyarrow Table, a pandas DataFrame, a
DuckDB relation, a path to Parquet or CSV/TSV files) or a dict ``{item: [number, ...]}``.

Checked as read: no item at all, a NULL item, an item given twice, a NULL or NaN value, vectors
of different lengths or of none are errors naming the item; so is an item the run lists without
features (:func:`check_featured`).

Read into the long form the engines join: one row per (item, dimension), the item under the
run's doc column name, the dimension (0 first) in :data:`FEATURE` and its value in :data:`VALUE`.

>>> from rankwise.conventions import Columns
>>> read_features({"a": [1, 0], "b": [0.5, 2]}, Columns()).rows()
[('a', 0, 1.0), ('a', 1, 0.0), ('b', 0, 0.5), ('b', 1, 2.0)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from rankwise.conventions import Columns
from rankwise.errors import (
    ColumnTypeError,
    DuplicateDocumentError,
    EmptyInputError,
    InvalidParameterError,
    InvalidValueError,
    MissingColumnError,
    UnsupportedInputError,
)
from rankwise.inputs.interactions import read_table

WHAT = "the item features (features=)"
FEATURE = "__feature"
"""The long form's dimension column (0 first)."""
VALUE = "__value"
"""The long form's value column (a float)."""
_VECTOR = "__vector"


def read_features(obj: Any, columns: Columns, column: str | None = None) -> pl.DataFrame:
    """The item features, checked, in the long form (the item under ``columns.doc_id``,
    :data:`FEATURE`, :data:`VALUE`), sorted by item and dimension; ``column``:
    ``features_column``, the column of the vectors (default: see the module)."""
    item = columns.doc_id
    if isinstance(obj, Mapping):
        if not obj:
            raise EmptyInputError(f"{WHAT} are empty: the dict holds no item")
        for key, vector in obj.items():
            if isinstance(vector, (str, bytes)) or (not isinstance(vector, Sequence) and not hasattr(vector, "tolist")):
                raise UnsupportedInputError(
                    f"cannot read {WHAT} from a dict whose values are not vectors (item {key!r} maps to "
                    f"{type(vector).__name__}): pass {{item: [number, ...]}}"
                )
        vectors = [list(v.tolist() if hasattr(v, "tolist") else v) for v in obj.values()]
        wide = pl.DataFrame(
            {item: list(obj), _VECTOR: [[None if x is None else float(x) for x in v] for v in vectors]},
            schema_overrides={_VECTOR: pl.List(pl.Float64)}, strict=False,
        )
    else:
        table = read_table(obj, WHAT, {"doc_id": item}, keys=("doc_id",))
        if table is None:
            raise UnsupportedInputError(
                f"cannot read {WHAT} from {type(obj).__module__}.{type(obj).__name__}: pass a Polars DataFrame/"
                "LazyFrame, a pyarrow Table, a pandas DataFrame, a DuckDB relation, a dict {item: [number, ...]}, "
                "or a path to Parquet or CSV/TSV files"
            )
        wide = _vectors(table.lazy().collect(), item, column)
    return _long(wide, item)


def _vectors(frame: pl.DataFrame, item: str, column: str | None) -> pl.DataFrame:
    """The frame as (item, vector: List[Float64])."""
    schema = frame.schema
    if item not in schema:
        raise MissingColumnError.from_missing(WHAT, item, list(schema), "doc_id", kind="features")
    if not (schema[item].is_integer() or schema[item] in (pl.String, pl.Categorical)):
        raise ColumnTypeError(f"{WHAT}: the item column {item!r} must hold strings or integers, found type {schema[item]}")
    others = [c for c in schema if c != item]
    vectors = [c for c in others if isinstance(schema[c], (pl.List, pl.Array))]
    if column is None and len(others) == 1 and vectors:
        column = others[0]
    elif column is None and vectors:
        raise InvalidParameterError(
            f"{WHAT} hold the columns {others} besides the item column {item!r}: name the column of the vectors, "
            f"e.g. features_column={vectors[0]!r}"
        )
    if column is not None:
        if column not in schema:
            raise MissingColumnError(
                f"{WHAT} have no column {column!r} (features_column=): the columns are {list(schema)}"
            )
        dtype = schema[column]
        if not isinstance(dtype, (pl.List, pl.Array)) or not dtype.inner.is_numeric():
            raise ColumnTypeError(
                f"{WHAT}: the column {column!r} (features_column=) must hold lists or arrays of numbers, found type {dtype}"
            )
        vector = pl.col(column).cast(pl.List(pl.Float64))
    else:
        if not others:
            raise MissingColumnError(f"{WHAT} hold no feature column besides the item column {item!r}")
        wrong = [c for c in others if not schema[c].is_numeric()]
        if wrong:
            raise ColumnTypeError(
                f"{WHAT}: the column {wrong[0]!r} holds {schema[wrong[0]]}, not numbers: give the vectors as one "
                "list or array column (features_column='...') or as one numeric column per dimension"
            )
        vector = pl.concat_list([pl.col(c).cast(pl.Float64) for c in others])
    out = frame.select(pl.col(item).cast(pl.String) if schema[item] == pl.Categorical else pl.col(item), vector.alias(_VECTOR))
    return out


def _long(wide: pl.DataFrame, item: str) -> pl.DataFrame:
    """Check the vectors (see the module) and give them in the long form."""
    if wide.height == 0:
        raise EmptyInputError(f"{WHAT} are empty: no item")
    nulls = wide.filter(pl.col(item).is_null()).height
    if nulls:
        raise InvalidValueError(f"{WHAT} hold {nulls} NULL value(s) in their item column {item!r}")
    twice = wide.filter(pl.col(item).is_duplicated())
    if twice.height:
        raise DuplicateDocumentError(f"{WHAT} give item {twice[item][0]!r} more than once; each item has one vector")
    lengths = wide.with_columns(pl.col(_VECTOR).list.len().fill_null(0).alias("__n"))
    empty = lengths.filter(pl.col("__n") == 0)
    if empty.height:
        raise InvalidValueError(f"{WHAT}: item {empty[item][0]!r} has no features (an empty or NULL vector)")
    sizes = lengths["__n"].unique().sort()
    if len(sizes) > 1:
        first = lengths.row(0, named=True)
        other = lengths.filter(pl.col("__n") != first["__n"]).row(0, named=True)
        raise InvalidValueError(
            f"{WHAT} must all have one length: item {first[item]!r} has {first['__n']} features, item "
            f"{other[item]!r} has {other['__n']}"
        )
    long = wide.select(
        pl.col(item), pl.int_ranges(0, pl.col(_VECTOR).list.len()).alias(FEATURE), pl.col(_VECTOR).alias(VALUE)
    ).explode(FEATURE, VALUE)
    bad = long.filter(pl.col(VALUE).is_null() | pl.col(VALUE).is_nan())
    if bad.height:
        row = bad.row(0, named=True)
        value = "NULL" if row[VALUE] is None else "NaN"
        raise InvalidValueError(
            f"{WHAT}: item {row[item]!r} has a {value} value at feature "
            f"{row[FEATURE]} (0 first); every value must be a number"
        )
    return long.with_columns(pl.col(FEATURE).cast(pl.Int64)).sort(item, FEATURE)


def check_featured(missing: Sequence[object], count: int) -> None:
    """The items the run lists without features (``missing``: some of them, ``count``: how
    many) are an error naming them."""
    if count:
        shown = ", ".join(repr(m) for m in list(missing)[:3])
        raise InvalidValueError(
            f"the run lists {count} item(s) that have no features in {WHAT}: {shown}{', ...' if count > 3 else ''}; "
            "every item the run lists needs a feature vector"
        )
