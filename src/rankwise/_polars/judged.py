"""The judged frame: a run's rows with their relevance, and each query's judged documents the
run did not retrieve, flagged, so that an expression over one query's rows sees everything
:func:`rankwise.evaluate` reads (the ranking, and all the judgments: the ideal, R).

Layout, one row per (query, document), sorted by query, then retrieved rows first by score:

- the column names given (``query_id``, ``doc_id``, ``score``, ``relevance``; and ``cost``
  with a cost column), ids as :func:`rankwise.evaluate` compares them (both as text when run
  and qrels disagree on their type);
- ``relevance`` (Float64): NULL for a retrieved document that is not judged;
- ``score`` (Float64): NULL for a judged document that was not retrieved;
- ``retrieved`` (Boolean; the name is the ``retrieved=`` option): whether the run ranks it.

Queries: the run's queries with at least one judgment (a run query without any is left out,
as :func:`rankwise.evaluate` leaves it out, with the same :class:`~rankwise.RankwiseWarning`);
with ``missing='zero'`` (trec_eval ``-c``) also the queries judged but absent from the run, by
their judgments alone (every row ``retrieved = false``), which every expression then scores as
``evaluate`` does (0 for the run-dependent metrics).

>>> import polars as pl, rankwise as rw
>>> run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"],
...                     "score": [2.0, 1.0, 1.0]})
>>> qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["b", "z", "c"],
...                       "relevance": [1, 2, 2]})
>>> rw.judged_frame(qrels, run)
shape: (4, 5)
┌──────────┬────────┬───────┬───────────┬───────────┐
│ query_id ┆ doc_id ┆ score ┆ relevance ┆ retrieved │
│ ---      ┆ ---    ┆ ---   ┆ ---       ┆ ---       │
│ str      ┆ str    ┆ f64   ┆ f64       ┆ bool      │
╞══════════╪════════╪═══════╪═══════════╪═══════════╡
│ q1       ┆ a      ┆ 2.0   ┆ null      ┆ true      │
│ q1       ┆ b      ┆ 1.0   ┆ 1.0       ┆ true      │
│ q1       ┆ z      ┆ null  ┆ 2.0       ┆ false     │
│ q2       ┆ c      ┆ 1.0   ┆ 2.0       ┆ true      │
└──────────┴────────┴───────┴───────────┴───────────┘
"""

from __future__ import annotations

from typing import Any

import polars as pl

from rankwise._polars.columns import REL, C, D, Q, S
from rankwise._polars.prepare import prepare
from rankwise.conventions import (
    CONVENTION_KEYWORDS,
    READ_KEYWORDS,
    Columns,
    Conventions,
    ReadOptions,
    Unpack,
    check_identifier,
    check_options,
    checked,
)
from rankwise.errors import InvalidParameterError, hint_style
from rankwise.inputs.checks import warn_unjudged
from rankwise.inputs.columns import Reading
from rankwise.inputs.faults import engine_faults
from rankwise.inputs.read import FileFormat

RETRIEVED = "retrieved"
"""The default name of the judged frame's flag column (``retrieved=``)."""


@checked
def judged_frame(
    qrels: Any,
    run: Any,
    *,
    run_format: FileFormat | None = None,
    qrels_format: FileFormat | None = None,
    retrieved: str = RETRIEVED,
    **options: Unpack[ReadOptions],
) -> pl.DataFrame:
    """The run's rows with their relevance, plus each query's judged documents that the run did
    not retrieve (``retrieved = false``): the frame every metric expression (:func:`rankwise.expr`)
    evaluates exactly as :func:`rankwise.evaluate` does.

    ``qrels`` and ``run`` are anything :func:`rankwise.evaluate` takes (frames, tables, dicts
    of dicts, records, paths to Parquet, CSV, TREC or JSON files; ``run_format``/
    ``qrels_format`` as there), with the same column-name options (``query_id=``, ...,
    ``run_columns=``, ``qrels_columns=``, ``run_names=``, ``qrels_names=``, ``cost=``) and
    the same data checks and errors (NULL ids or values, NaN, duplicated documents). Of the
    conventions only ``missing`` shapes the frame (which queries it holds, see the module);
    the others are the expressions' (each takes them as keywords) and are refused here, as
    they would change nothing (:class:`~rankwise.errors.InvalidParameterError`). With
    ``cost=`` the frame keeps the run's cost column: pass the same ``cost=`` to the
    expressions. The module's docstring
    shows the layout.
    """
    check_options("judged_frame", options, READ_KEYWORDS)
    ignored = [k for k in CONVENTION_KEYWORDS if k != "missing" and k in options]
    if ignored:
        raise InvalidParameterError(
            f"judged_frame does not take {', '.join(ignored)}: of the conventions it takes only 'missing' (which "
            f"queries the frame holds); pass {ignored[0]}= to the expressions, rw.expr(..., {ignored[0]}=...)"
        )
    conv = Conventions.from_options(options)
    columns = Columns.from_options(options)
    reading = Reading.from_options(options)
    check_identifier(retrieved, "retrieved column")
    taken = {columns.query_id, columns.doc_id, columns.score, columns.relevance, columns.cost}
    if retrieved in taken:
        raise InvalidParameterError(
            f"the retrieved column's name {retrieved!r} is one of the input columns: pass another, retrieved='...'"
        )
    with hint_style("file_keywords"), engine_faults({"run": run, "qrels": qrels}):
        prep = prepare(
            reading.read(run, "run", columns, run_format), reading.read(qrels, "qrels", columns, qrels_format), columns
        )
        judged_queries = prep.qrels.select(Q).unique()
        run_queries = prep.run.select(Q).unique()
        ranked = (
            prep.run.join(prep.qrels, on=[Q, D], how="left")
            .join(judged_queries, on=Q, how="semi")
            .with_columns(pl.lit(True).alias(retrieved))
        )
        rest = prep.qrels.join(prep.run.select(Q, D), on=[Q, D], how="anti")
        if conv.missing == "ignore":
            rest = rest.join(run_queries, on=Q, how="semi")
        rest = rest.with_columns(
            pl.lit(None, pl.Float64).alias(S),
            *([] if columns.cost is None else [pl.lit(None, pl.Float64).alias(C)]),
            pl.lit(False).alias(retrieved),
        )
        names = [Q, D, S, REL, *([] if columns.cost is None else [C]), retrieved]
        frame, unjudged = pl.collect_all([
            pl.concat([ranked.select(names), rest.select(names)])
            .sort([Q, retrieved, S, D], descending=[False, True, True, False], nulls_last=True),
            run_queries.join(judged_queries, on=Q, how="anti").select(pl.len()),
        ])
    warn_unjudged(int(unjudged.item()))
    rename = {Q: columns.query_id, D: columns.doc_id, S: columns.score, REL: columns.relevance}
    if columns.cost is not None:
        rename[C] = columns.cost
    return frame.rename(rename)


__all__ = ["RETRIEVED", "judged_frame"]
