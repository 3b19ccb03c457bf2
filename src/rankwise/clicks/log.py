"""A click log read and checked: one row per shown document of an impression — the impression
id (or the query id, when each query was shown once), the query id, the doc id, the rank it was
shown at (1 = top) and the click (0/1, or a boolean). Every check names the column and a value:
a missing column, a NULL, a click other than 0/1, a rank below 1 or not a whole number, a rank
or a document shown twice in one impression, an impression whose rows name two queries."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from rankwise.conventions import Columns
from rankwise.errors import (
    ColumnTypeError,
    DuplicateDocumentError,
    InvalidValueError,
    MissingColumnError,
)
from rankwise.inputs.read import to_frame

IMPRESSION, QUERY, RANK, DOC, CLICK = "__i", "__q", "__r", "__d", "__c"
"""The checked log's columns: impression, query, rank shown, doc, click (0/1, Int64)."""


def read_click_log(
    log: Any, columns: Columns, *, impression: str | None = None, rank: str = "rank", click: str = "click",
    extra: Mapping[str, str] | None = None, query: bool = True, unshown: bool = False, what: str = "the click log",
) -> pl.DataFrame:
    """``log`` (any input :func:`rankwise.evaluate` reads) with the columns :data:`IMPRESSION`,
    :data:`QUERY`, :data:`RANK`, :data:`DOC`, :data:`CLICK` and ``extra``'s (new name to the
    log's column), checked. ``impression=None``: each query id is one impression;
    ``query=False``: the query column may be absent (the impression stands for it);
    ``unshown=True``: a row without a doc id is a position where nothing was shown (left out;
    clicked, an error). The query and doc ids keep their types (as the run's are read), the
    rank and click become Int64.

    >>> import polars as pl
    >>> log = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "rank": [1, 2], "click": [0, 1]})
    >>> read_click_log(log, Columns()).columns
    ['__i', '__q', '__r', '__d', '__c']
    """
    frame = to_frame(log, "run", columns)
    lf = frame.lazy() if isinstance(frame, pl.DataFrame) else frame
    found = lf.collect_schema().names()
    wanted = {
        IMPRESSION: (impression or columns.query_id, "impression" if impression else "query_id"),
        QUERY: (columns.query_id, "query_id"), RANK: (rank, "rank"), DOC: (columns.doc_id, "doc_id"),
        CLICK: (click, "click"), **{key: (name, key) for key, name in (extra or {}).items()},
    }
    if not query and columns.query_id not in found:
        del wanted[QUERY]
    for name, keyword in wanted.values():
        if name not in found:
            raise MissingColumnError.from_missing(what, name, found, keyword)
    out = lf.select(**{key: pl.col(name) for key, (name, _) in wanted.items()}).collect()
    if QUERY not in out.columns:
        out = out.with_columns(pl.col(IMPRESSION).alias(QUERY))
    schema = out.schema
    if not (schema[CLICK] == pl.Boolean or schema[CLICK].is_integer()):
        raise ColumnTypeError(f"{what}'s click column {click!r} must be 0/1 or boolean, found type {schema[CLICK]}")
    if not schema[RANK].is_integer():
        raise ColumnTypeError(f"{what}'s rank column {rank!r} must be whole numbers (1 = top), found type {schema[RANK]}")
    out = out.with_columns(pl.col(CLICK).cast(pl.Int64), pl.col(RANK).cast(pl.Int64))
    if out.height == 0:
        raise InvalidValueError(f"{what} has no rows")
    for key, (name, _) in wanted.items():
        nulls = out.filter(pl.col(key).is_null())
        if key == DOC and unshown:
            nulls = nulls.filter(pl.col(CLICK) == 1)
            if nulls.height:
                raise InvalidValueError(
                    f"a click on a doc not shown: {what}'s impression {nulls[IMPRESSION][0]!r}, rank "
                    f"{nulls[RANK][0]} has a click but no {name!r}"
                )
        elif nulls.height:
            where = "" if key in (IMPRESSION, RANK) else f" at impression {nulls[IMPRESSION][0]!r}, rank {nulls[RANK][0]}"
            raise InvalidValueError(f"{what}'s column {name!r} has {nulls.height} NULL value(s){where}")
    bad = out.filter(~pl.col(CLICK).is_in([0, 1]))
    if bad.height:
        raise InvalidValueError(f"{what}'s click column {click!r} must hold 0 or 1, found {bad[CLICK][0]}")
    bad = out.filter(pl.col(RANK) < 1)
    if bad.height:
        raise InvalidValueError(f"{what}'s rank column {rank!r} must be at least 1 (1 = top), found {bad[RANK][0]}")
    for key, name in ((RANK, rank), (DOC, columns.doc_id)):
        dup = out.filter(pl.col(key).is_not_null() & pl.struct(IMPRESSION, key).is_duplicated())
        if dup.height:
            raise DuplicateDocumentError(
                f"{what}'s impression {dup[IMPRESSION][0]!r} shows {name} {dup[key][0]!r} twice: one row per shown document"
            )
    # one query per impression: its smallest and largest query id equal (the ids of the first
    # impression that has several listed only then: a list per impression is slow on large logs)
    mixed = out.group_by(IMPRESSION).agg(pl.col(QUERY).min().alias("a"), pl.col(QUERY).max().alias("b")).filter(
        pl.col("a") != pl.col("b")
    )
    if mixed.height:
        first = mixed[IMPRESSION][0]
        queries = out.filter(pl.col(IMPRESSION) == first)[QUERY].unique().sort().to_list()
        raise InvalidValueError(
            f"{what}'s impression {first!r} shows the results of several queries {queries}: one query per impression"
        )
    return out.filter(pl.col(DOC).is_not_null()) if unshown else out
