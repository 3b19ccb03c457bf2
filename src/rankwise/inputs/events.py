"""Gains from interaction events: an event log (query_id, doc_id, event) becomes qrels.

>>> import polars as pl, rankwise as rw
>>> log = pl.DataFrame({"query_id": ["q", "q", "q", "q"], "doc_id": ["a", "a", "b", "c"],
...                     "event": ["view", "purchase", "view", "cart"]})
>>> rw.gains_from_events(log, {"view": 1, "wishlist": 3, "cart": 5, "purchase": 10}).rows()
[('q', 'a', 10.0), ('q', 'b', 1.0), ('q', 'c', 5.0)]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import polars as pl

from rankwise.conventions import Columns, check_identifier, checked
from rankwise.errors import InvalidParameterError, InvalidValueError, MissingColumnError
from rankwise.inputs.read import to_lazyframe

EventAggregate = Literal["max", "sum"]


@checked
def gains_from_events(
    events: Any,
    mapping: Mapping[str, float],
    *,
    agg: EventAggregate = "max",
    default: float | None = None,
    query_id: str = "query_id",
    doc_id: str = "doc_id",
    event: str = "event",
) -> pl.DataFrame:
    """Qrels (query_id, doc_id, relevance) from an event log and a gain per event name.

    A (query, doc) pair takes the largest gain among its events (``agg='max'``, default) or
    their sum (``agg='sum'``). An event name missing from ``mapping`` is an error naming it,
    unless ``default`` gives its gain. The SQL macro ``rw_gains_from_events`` does the same.
    """
    if agg not in ("max", "sum"):
        raise InvalidParameterError(f"agg must be one of ['max', 'sum'], got {agg!r}")
    if not mapping:
        raise InvalidParameterError("mapping is empty: give a gain per event name, e.g. {'click': 1}")
    for name, value in mapping.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidParameterError(f"the gain of event {name!r} must be a number, got {value!r}")
    check_identifier(event, "event column")
    lf = to_lazyframe(events, "qrels", Columns(query_id=query_id, doc_id=doc_id))
    names = lf.collect_schema().names()
    for col in (query_id, doc_id, event):
        if col not in names:
            raise MissingColumnError.from_missing("the event log", col, names)
    frame = lf.select(query_id, doc_id, pl.col(event).cast(pl.String)).collect()
    unknown = sorted(set(frame[event].drop_nulls().unique().to_list()) - set(mapping))
    if unknown and default is None:
        raise InvalidValueError(
            f"event name(s) {unknown[:10]} have no gain in the mapping {sorted(mapping)}; "
            "add them or pass default="
        )
    gain_expr = pl.col(event).replace_strict(
        list(mapping), [float(v) for v in mapping.values()], default=default, return_dtype=pl.Float64
    )
    aggregate = gain_expr.max() if agg == "max" else gain_expr.sum()
    return (
        frame.group_by(query_id, doc_id)
        .agg(aggregate.alias("relevance"))
        .sort(query_id, doc_id)
    )
