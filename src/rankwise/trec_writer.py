r"""Write results as ``trec_eval -q`` prints them: ``measure<TAB>query<TAB>value`` lines.

Per-query lines come first (query by query, measures in the order given; geometric-mean
measures and NumQ have no per-query line, as in trec_eval; relstring, text, is quoted and
has only per-query lines), then the ``all`` lines: ``runid``
(when known), ``num_q``, and each measure's summary (means; sums for counts; geometric means
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

import polars as pl

from rankwise.errors import InvalidParameterError
from rankwise.evaluate import metric_of_column, summarize
from rankwise.metric import Metric


def _line(measure: str, query: object, value: str) -> str:
    return f"{measure:<22}\t{query}\t{value}"


def _value(metric: Metric, value: float | str) -> str:
    if isinstance(value, str):
        return f"'{value}'"
    if metric.spec.aggregate == "sum" and value == int(value):
        return str(int(value))
    return f"{value:.4f}"


def to_trec(
    per_query: pl.DataFrame,
    *,
    query_id: str = "query_id",
    runid: str | None = None,
    per_query_lines: bool = True,
) -> str:
    """The ``trec_eval -q`` text of a per-query result (the output of :func:`rankwise.evaluate`)."""
    if query_id not in per_query.columns:
        raise InvalidParameterError(
            f"the result has no query column {query_id!r}; columns: {per_query.columns}"
        )
    metrics = [
        (column, metric)
        for column in per_query.columns
        if column != query_id and (metric := metric_of_column(column)) is not None
    ]
    lines: list[str] = []
    if per_query_lines:
        for row in per_query.iter_rows(named=True):
            for column, metric in metrics:
                if metric.spec.aggregate == "gmean" or metric.spec.name == "NumQ":
                    continue
                lines.append(_line(column, row[query_id], _value(metric, row[column])))
    numeric = [column for column, metric in metrics if metric.spec.aggregate != "none"]
    summary = summarize(per_query.select(numeric)).row(0, named=True) if numeric else {}
    if runid is not None:
        lines.append(_line("runid", "all", runid))
    lines.append(_line("num_q", "all", str(per_query.height)))
    for column, metric in metrics:
        if metric.spec.name == "NumQ" or column not in summary:
            continue
        lines.append(_line(column, "all", _value(metric, summary[column])))
    return "\n".join(lines)
