"""The item categories (``categories=``): the categories of each item (genres, topics), which the
category family reads (:mod:`rankwise.metrics.families.categories`: CategoryDiversity,
CategoryEntropy). An item may have several categories, or none. The item is in the run's doc
column's id space; a category is any string or integer (compared as text).

Accepted as

- a table of (item, category) rows, an item on as many rows as it has categories: a Polars
  DataFrame or LazyFrame, a pyarrow Table, a pandas DataFrame, a DuckDB relation, or a path to
  Parquet or CSV/TSV files. Its columns, named by ``categories_columns={'doc_id': ...,
  'category': ...}``: by default the item in the run's doc column (``doc_id``) and the category
  in ``category``, else in the single other column. A category column of lists gives each item
  the categories of its list;
- a dict ``{item: category}`` or ``{item: [category, ...]}`` (an empty list: no category);
- an iterable of (item, category) pairs.

Checked as read: no row at all, a NULL item, a NULL category (an error naming the item), an id
neither text nor integer (naming the column). A pair given twice counts once. An item of the
run without a category is no error: it adds no category to its list (each metric says what it
then counts).

Read into the long form the engines join: one row per (item, category), the item under the
run's doc column name, the category, as text, in :data:`CATEGORY`.

>>> from rankwise.conventions import Columns
>>> read_categories({"a": ["x", "y"], "b": 3, "c": []}, Columns()).rows()
[('a', 'x'), ('a', 'y'), ('b', '3')]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import polars as pl

from rankwise.conventions import Columns
from rankwise.errors import (
    ColumnTypeError,
    EmptyInputError,
    InvalidValueError,
    MissingColumnError,
    UnsupportedInputError,
)
from rankwise.inputs.interactions import read_table

WHAT = "the item categories (categories=)"
CATEGORY = "__category"
"""The long form's category column (text)."""
DEFAULT_CATEGORY = "category"
"""The category column's name when ``categories_columns`` names none."""


def read_categories(obj: Any, columns: Columns, rename: Mapping[str, str] | None = None) -> pl.DataFrame:
    """The item categories, checked, in the long form (the item under ``columns.doc_id``,
    :data:`CATEGORY`), one row per distinct (item, category), sorted; ``rename``:
    ``categories_columns``, the table's own names of the item and category columns."""
    item = columns.doc_id
    own = dict(rename or {})
    if isinstance(obj, Mapping):
        pairs = [(key, c) for key, value in obj.items() for c in _categories(key, value)]
        if not obj:
            raise EmptyInputError(f"{WHAT} are empty: the dict holds no item")
        frame = _pairs(pairs, item)
    else:
        table = read_table(
            obj, WHAT, {"doc_id": own.get("doc_id", item), "category": own.get("category", DEFAULT_CATEGORY)},
            keys=("doc_id", "category"),
        )
        if table is not None:
            frame = _columns(table.lazy().collect(), item, own)
        elif isinstance(obj, Iterable) and not isinstance(obj, (str, bytes)):
            rows = list(obj)
            if not all(isinstance(r, (tuple, list)) and len(r) == 2 for r in rows):
                raise UnsupportedInputError(
                    f"cannot read {WHAT} from an iterable of {type(rows[0]).__name__ if rows else 'nothing'}: "
                    "pass (item, category) pairs"
                )
            frame = _pairs([(r[0], r[1]) for r in rows], item)
        else:
            raise UnsupportedInputError(
                f"cannot read {WHAT} from {type(obj).__module__}.{type(obj).__name__}: pass a Polars DataFrame/"
                "LazyFrame, a pyarrow Table, a pandas DataFrame, a DuckDB relation, a dict {item: category or "
                "[category, ...]}, (item, category) pairs, or a path to Parquet or CSV/TSV files"
            )
    return _checked(frame, item)


def _categories(key: object, value: object) -> list[object]:
    """A dict value as the item's categories: one category, or a list (tuple, set) of them."""
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return [value]
    if isinstance(value, (list, tuple, set, frozenset)):
        return list(value)
    raise UnsupportedInputError(
        f"cannot read {WHAT} from a dict whose value for item {key!r} is {type(value).__name__}: pass "
        "{item: category} or {item: [category, ...]} (categories are strings or integers)"
    )


def _pairs(pairs: list[tuple[object, object]], item: str) -> pl.DataFrame:
    """(item, category) pairs as the frame (item, :data:`CATEGORY` as text)."""
    for key, category in pairs:
        if category is not None and (not isinstance(category, (str, int)) or isinstance(category, bool)):
            raise ColumnTypeError(
                f"{WHAT}: item {key!r} has the category {category!r} ({type(category).__name__}); categories are "
                "strings or integers"
            )
    return pl.DataFrame(
        {item: [p[0] for p in pairs], CATEGORY: [None if p[1] is None else str(p[1]) for p in pairs]},
        schema_overrides={CATEGORY: pl.String}, strict=False,
    )


def _is_id(dtype: pl.DataType) -> bool:
    return dtype.is_integer() or dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum)


def _columns(frame: pl.DataFrame, item: str, own: Mapping[str, str]) -> pl.DataFrame:
    """A table's item and category columns as the frame (item, :data:`CATEGORY` as text)."""
    schema = frame.schema
    name = own.get("doc_id", item)
    if name not in schema:
        raise MissingColumnError.from_missing(WHAT, name, list(schema), "categories_columns", column="item column")
    others = [c for c in schema if c != name]
    category = own.get("category")
    if category is None:
        category = DEFAULT_CATEGORY if DEFAULT_CATEGORY in schema or len(others) != 1 else others[0]
    if category not in schema:
        raise MissingColumnError.from_missing(
            WHAT, category, list(schema), "categories_columns", column="category column"
        )
    if not _is_id(schema[name]):
        raise ColumnTypeError(f"{WHAT}: the item column {name!r} must hold strings or integers, found type {schema[name]}")
    dtype = schema[category]
    inner = dtype.inner if isinstance(dtype, (pl.List, pl.Array)) else dtype
    if not _is_id(inner):  # type: ignore[arg-type]
        raise ColumnTypeError(
            f"{WHAT}: the category column {category!r} must hold strings or integers (or lists of them), found "
            f"type {dtype}"
        )
    out = frame.select(
        (pl.col(name).cast(pl.String) if schema[name] == pl.Categorical else pl.col(name)).alias(item),
        pl.col(category).alias(CATEGORY),
    )
    if isinstance(dtype, (pl.List, pl.Array)):
        if frame.height and out.filter(pl.col(CATEGORY).is_null()).height:
            first = out.filter(pl.col(CATEGORY).is_null())[item][0]
            raise InvalidValueError(f"{WHAT}: item {first!r} has a NULL list of categories")
        # an empty list: the item has no category (no row); a NULL in a list is a NULL category
        return out.with_columns(pl.col(CATEGORY).cast(pl.List(pl.String))).explode(CATEGORY, empty_as_null=False)
    return out.with_columns(pl.col(CATEGORY).cast(pl.String))


def _checked(frame: pl.DataFrame, item: str) -> pl.DataFrame:
    """Check the rows (see the module); their distinct pairs, sorted."""
    if frame.height == 0:
        raise EmptyInputError(f"{WHAT} are empty: no (item, category) row")
    nulls = frame[item].null_count()
    if nulls:
        raise InvalidValueError(f"{WHAT} hold {nulls} NULL value(s) in their item column {item!r}")
    bad = frame.filter(pl.col(CATEGORY).is_null())
    if bad.height:
        raise InvalidValueError(
            f"{WHAT}: item {bad[item][0]!r} has a NULL category; give an item without a category no row"
        )
    return frame.unique().sort(item, CATEGORY)
