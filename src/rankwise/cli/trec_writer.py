r"""Write results as ``trec_eval -q`` prints them: ``measure<TAB>query<TAB>value`` lines.

Per-query lines come first (query by query, in trec_eval's order: sorted by the id's text,
``"10"`` before ``"9"``; measures in the order given; geometric-mean
measures and NumQ have no per-query line, as in trec_eval; relstring, text, is quoted and
has only per-query lines), then the ``all`` lines: ``runid``
(when known), ``num_q`` (with ``num_q="asked"``, only when the NumQ measure, trec_eval's
``num_q``, is among the columns: what trec_eval does with ``-m``), and each measure's summary (means; sums for counts; geometric means
for GMAP/gm_bpref). Counts print as integers, everything else with 4 decimals. With
trec_eval's measure names (``map``, ``P_10``, ``official``, ...) the text is trec_eval's.

>>> import polars as pl
>>> per_query = pl.DataFrame({"query_id": ["q1", "q2"], "map": [0.5, 0.25], "num_ret": [10.0, 7.0]})
>>> text = to_trec(per_query, runid="myrun")
>>> text.splitlines()[0]
'map                   \tq1\t0.5000'
>>> [line.split() for line in text.splitlines()]  # doctest: +NORMALIZE_WHITESPACE
[['map', 'q1', '0.5000'], ['num_ret', 'q1', '10'], ['map', 'q2', '0.2500'], ['num_ret', 'q2', '7'],
 ['runid', 'all', 'myrun'], ['num_q', 'all', '2'], ['map', 'all', '0.3750'], ['num_ret', 'all', '17']]
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any, Literal

import polars as pl

from rankwise.conventions import checked
from rankwise.errors import InvalidParameterError, InvalidValueError
from rankwise.evaluation.evaluate import metric_of_column, summarize
from rankwise.metrics.metric import Metric


def _line(measure: str, query: object, value: str) -> str:
    return f"{measure:<22}\t{query}\t{value}"


def format_value(metric: Metric | None, value: float | str | None) -> str:
    """A value as trec_eval prints it: 4 decimals, sums as integers, text quoted, an undefined
    value (NULL) as ``nan`` (trec_eval prints nan where it divides 0 by 0)."""
    if isinstance(value, str):
        return f"'{value}'"
    if value is None or math.isnan(value):
        return "nan"
    if metric is not None and metric.spec.aggregate == "sum" and value == int(value):
        return str(int(value))
    return f"{value:.4f}"


_WHITESPACE = r"[\s\x1c-\x1f]"
"""Whitespace as any reader splits on it (Unicode's, and the separators Python's str.split
takes): a TREC line's fields are separated by whitespace, so no field may hold any."""


def _refuse_whitespace(what: str, value: str) -> None:
    if value == "" or re.search(_WHITESPACE, value):
        problem = "is empty" if value == "" else "holds whitespace"
        raise InvalidValueError(
            f"TREC output cannot hold the {what} {value!r}: it {problem}, and TREC lines are "
            "whitespace-separated fields; use another format (csv, json, parquet) or other ids"
        )


def _check_query_ids(ids: pl.Series, query_id: str) -> None:
    """Refuse the ids a TREC line cannot hold: NULL, empty, or holding whitespace."""
    if ids.null_count():
        raise InvalidValueError(f"TREC output cannot hold a NULL query id (column {query_id!r})")
    bad = ids.filter((ids == "") | ids.str.contains(_WHITESPACE))
    if bad.len():
        more = f" ({bad.len() - 1} more such ids)" if bad.len() > 1 else ""
        try:
            _refuse_whitespace("query id", bad[0])
        except InvalidValueError as exc:
            raise InvalidValueError(f"{exc}{more}") from None


NumQLine = Literal["always", "asked"]
"""When the ``num_q`` line is written: always, or when the NumQ measure is asked for."""


def trec_lines(
    per_query: pl.DataFrame,
    *,
    query_id: str = "query_id",
    runid: str | None = None,
    per_query_lines: bool = True,
    num_q: NumQLine = "always",
    run_values: pl.DataFrame | None = None,
) -> Iterator[str]:
    """The lines (without line ends) of :func:`to_trec`, produced one by one. Every check
    (columns, ids, run id) is done before the first line is produced. ``run_values``: one row of
    set-level metrics (one value per run), written after the summary lines."""
    if query_id not in per_query.columns:
        raise InvalidParameterError(
            f"the result has no query column {query_id!r}; columns: {per_query.columns}"
        )
    metrics = [
        (column, metric)
        for column in per_query.columns
        if column != query_id and (metric := metric_of_column(column)) is not None
    ]
    for column, _metric in metrics:
        _refuse_whitespace("measure name", column)
    if runid is not None:
        _refuse_whitespace("run id", runid)
    # trec_eval's order: queries sorted by the id's text (strcmp: "10" before "9")
    ids = per_query.get_column(query_id).cast(pl.String)
    _check_query_ids(ids, query_id)
    ordered = per_query.with_columns(ids.alias(query_id)).sort(query_id, maintain_order=True)
    numeric = [column for column, metric in metrics if metric.spec.aggregate != "none"]
    summary = summarize(per_query.select(numeric)).row(0, named=True) if numeric else {}
    shows_num_q = num_q == "always" or any(metric.spec.name == "NumQ" for _column, metric in metrics)
    if run_values is not None:
        for column in run_values.columns:
            _refuse_whitespace("measure name", column)
            found = metric_of_column(column)
            if found is not None:  # no per-query lines: only its value over the run
                metrics.append((column, found))
        summary.update(run_values.row(0, named=True))
    return _lines(ordered, query_id, metrics, summary, runid, per_query_lines, shows_num_q)


def _lines(
    ordered: pl.DataFrame,
    query_id: str,
    metrics: list[tuple[str, Metric]],
    summary: dict[str, Any],
    runid: str | None,
    per_query_lines: bool,
    num_q: bool,
) -> Iterator[str]:
    if per_query_lines:
        shown = [
            (column, metric) for column, metric in metrics
            if metric.spec.aggregate != "gmean" and metric.spec.name != "NumQ"
        ]
        for row in ordered.iter_rows(named=True):
            for column, metric in shown:
                if column in row:  # a set-level metric has no per-query value
                    yield _line(column, row[query_id], format_value(metric, row[column]))
    if runid is not None:
        yield _line("runid", "all", runid)
    if num_q:
        yield _line("num_q", "all", str(ordered.height))
    for column, metric in metrics:
        if metric.spec.name == "NumQ" or column not in summary:
            continue
        yield _line(column, "all", format_value(metric, summary[column]))


@checked
def to_trec(
    per_query: pl.DataFrame,
    *,
    query_id: str = "query_id",
    runid: str | None = None,
    per_query_lines: bool = True,
    num_q: NumQLine = "always",
) -> str:
    """The ``trec_eval -q`` text of a per-query result (the output of :func:`rankwise.evaluate`).

    Queries come in trec_eval's order, sorted by the id's text (``"10"`` before ``"9"``),
    whatever the id column's type. ``num_q="asked"`` writes the ``num_q`` line only when
    the NumQ measure is among the columns (as trec_eval, given ``-m`` options). Ids (and a run id, and measure names) holding whitespace
    (or empty, or NULL) cannot be written as TREC lines: they raise
    :class:`~rankwise.errors.InvalidValueError` naming the value."""
    return "\n".join(
        trec_lines(per_query, query_id=query_id, runid=runid, per_query_lines=per_query_lines, num_q=num_q)
    )
