"""Every metric as a DuckDB SQL expression over a judged relation, for ``GROUP BY query_id``:
:func:`sql_expr` (one metric) and :func:`sql_select` (a statement of several).

The relation is a judged frame (:func:`rankwise.judged_frame`, e.g. registered in DuckDB, or
the same rows built in SQL): per (query, document) ``doc_id``, ``score`` (NULL when not
retrieved), ``relevance`` (NULL when unjudged) and the flag ``retrieved``; the inputs checked
(``judged_frame`` runs :func:`rankwise.evaluate`'s checks; the expression runs none).

The expression is an aggregate of the group: it gathers the query's rows into one list
(``list(struct_pack(...))``), and a scalar subquery over them (``unnest``) is the SQL
compiler's own statement (:func:`rankwise._sql.compiler.statement`, unchanged: the same
``rw_*`` macro calls, the ranking window and its running sums, the judgments read through
``rw_ideal_order``, the ideal prefix joined at each rank) for that one query: the run its
retrieved rows, the qrels its judged rows. No formula is written here; the values are those
of ``rw_evaluate`` and of ``rankwise.evaluate(..., engine='duckdb')``
(``tests/engines/test_expr_sql.py``). Its conventions are the keywords of :func:`rankwise.expr`
(``ties``, ``max_rank``, ``rel``, ``judged_only``, ``trec_eval``; ``ideal='run'`` over a
relation of retrieved rows; the columns ``doc_id``, ``score``, ``relevance``, ``retrieved``,
``cost``), with the same refusals (no doc column, the diversity measures, a list of metrics
for :func:`sql_expr`). The connection needs the macros: :func:`rankwise.register`.

>>> import duckdb, polars as pl, rankwise as rw
>>> run = pl.DataFrame({"query_id": ["q1", "q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "d", "e"],
...                     "score": [0.9, 0.8, 0.8, 0.5, 0.7]})
>>> qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["b", "c", "d", "z"],
...                       "relevance": [1, 2, 1, 1]})
>>> con = rw.register(duckdb.connect())
>>> judged = rw.judged_frame(qrels, run)
>>> con.sql(rw.sql_select(["nDCG@3", "AP", "RR"], "judged")).pl()
shape: (2, 4)
┌──────────┬──────────┬──────────┬─────┐
│ query_id ┆ nDCG@3   ┆ AP       ┆ RR  │
│ ---      ┆ ---      ┆ ---      ┆ --- │
│ str      ┆ f64      ┆ f64      ┆ f64 │
╞══════════╪══════════╪══════════╪═════╡
│ q1       ┆ 0.669672 ┆ 0.583333 ┆ 0.5 │
│ q2       ┆ 0.386853 ┆ 0.25     ┆ 0.5 │
└──────────┴──────────┴──────────┴─────┘
>>> print(rw.sql_select(["AP"], "judged"))  # doctest: +ELLIPSIS
SELECT "query_id", (WITH rw_rows AS (SELECT 1 AS query_id, unnest(list(struct_pack(doc_id := "doc_id", ...
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from rankwise._polars.expr import (
    ExprOptions,
    check_doc,
    check_expressible,
    one_metric,
    refuse_missing,
)
from rankwise._polars.judged import RETRIEVED
from rankwise._sql.compiler import literal, statement
from rankwise.conventions import (
    Columns,
    Conventions,
    Unpack,
    check_identifier,
    checked_options,
    quote_identifier,
)
from rankwise.errors import InvalidParameterError
from rankwise.metrics.metric import Metric
from rankwise.metrics.recipes import outputs
from rankwise.names.parse import parse_metrics

_RUN, _QRELS = "rw_run", "rw_qrels"


def _column(options: Mapping[str, object], key: str, default: str) -> str:
    return quote_identifier(check_identifier(options.get(key, default), f"{key} column"))


def _metric_sql(m: Metric, conv: Conventions, options: Mapping[str, object]) -> str:
    check_expressible(m)
    if conv.ties == "input":
        # the group's rows are gathered by an aggregate (list), whose input order SQL does not keep
        raise InvalidParameterError(
            f"the SQL expression of {m.label} cannot break ties by the input order (ties='input'): a group's rows "
            "reach an aggregate in no order SQL keeps; use rw.to_sql(..., ties='input') or "
            "rw.evaluate(..., ties='input', engine='duckdb'), which number the run's rows as it is scanned"
        )
    ideal = options.get("ideal", "judgments")
    if ideal not in ("judgments", "run"):
        raise InvalidParameterError(f"option 'ideal' must be one of ['judgments', 'run'], got {ideal!r}")
    doc = quote_identifier(check_doc(options.get("doc_id", "doc_id"), conv, m.label))
    fields = {
        "doc_id": doc,
        "score": _column(options, "score", "score"),
        "relevance": _column(options, "relevance", "relevance"),
    }
    if ideal == "judgments":
        fields["retrieved"] = _column(options, "retrieved", RETRIEVED)
    cost = options.get("cost")
    if cost is not None:
        fields["cost"] = quote_identifier(check_identifier(cost, "cost column"))
    packed = ", ".join(f"{k} := {v}" for k, v in fields.items())
    # ideal='run': the ranked list is the rows with a score (a judged relation's judged
    # documents the run did not retrieve have none), and so are the judgments
    where = " WHERE retrieved" if ideal == "judgments" else " WHERE score IS NOT NULL"
    run = "query_id, doc_id, CAST(score AS DOUBLE) AS score" + (", CAST(cost AS DOUBLE) AS cost" if cost is not None else "")
    # one query inside: every query of the relation is scored (the relation holds those to score)
    inner = replace(conv, missing="zero")
    body = statement(
        outputs([m], inner), inner, Columns(cost=None if cost is None else "cost"),
        quote_identifier(_RUN), quote_identifier(_QRELS), literal(_QRELS),
    )
    return (
        f"(WITH rw_rows AS (SELECT 1 AS query_id, unnest(list(struct_pack({packed})), recursive := true)), "
        f"{_RUN} AS (SELECT {run} FROM rw_rows{where}), "
        f"{_QRELS} AS (SELECT query_id, doc_id, CAST(relevance AS DOUBLE) AS relevance FROM rw_rows "
        f"WHERE relevance IS NOT NULL{'' if ideal == 'judgments' else ' AND score IS NOT NULL'}) "
        f"SELECT {quote_identifier(m.label)} FROM ({body}))"
    )


@checked_options(refuse_missing)
def sql_expr(metric: str | Metric, **options: Unpack[ExprOptions]) -> str:
    """One metric as a DuckDB aggregate expression over a judged relation's group (a query),
    e.g. ``SELECT query_id, <sql_expr('nDCG@10')> AS ndcg FROM judged GROUP BY query_id``:
    the value of :func:`rankwise.evaluate` (see the module). A string naming several metrics is
    refused: use :func:`sql_select`.

    >>> import rankwise as rw
    >>> rw.sql_expr("bpref").startswith("(WITH rw_rows AS")
    True
    >>> rw.sql_expr("P.5,10")
    Traceback (most recent call last):
    ...
    rankwise.errors.InvalidParameterError: 'P.5,10' names 2 metrics: use rw.sql_select('P.5,10', ...), a list of expressions
    """
    return _metric_sql(one_metric(metric, "sql_select"), Conventions.from_options(options), options)


@checked_options(refuse_missing)
def sql_select(
    metrics: str | Metric | Iterable[str | Metric], relation: str, *, query_id: str = "query_id",
    **options: Unpack[ExprOptions],
) -> str:
    """A statement of every metric of ``metrics`` (lists such as ``all_trec`` expand) per query
    of the judged relation ``relation`` (a table or view name), one column per metric named by
    its string, sorted by the query: :func:`sql_expr` for each, grouped by ``query_id``."""
    conv = Conventions.from_options(options)
    table = quote_identifier(check_identifier(relation, "table"))
    q = quote_identifier(check_identifier(query_id, "query_id column"))
    suffix = "" if options.get("ideal", "judgments") == "judgments" else " (ideal='run')"  # named as rw.expr names it
    columns = ", ".join(
        f"{_metric_sql(m, conv, options)} AS {quote_identifier(m.label + suffix)}" for m in parse_metrics(metrics)
    )
    return f"SELECT {q}, {columns} FROM {table} GROUP BY {q} ORDER BY {q}"


__all__ = ["sql_expr", "sql_select"]
