"""The public entry points: :func:`evaluate` (per-query values) and :func:`summarize`."""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any, Literal

import polars as pl

from rankwise.conventions import Columns, Conventions, MissingPolicy, TiePolicy
from rankwise.errors import (
    InvalidParameterError,
    MetricSyntaxError,
    RankwiseWarning,
    UnknownMetricError,
)
from rankwise.io import to_lazyframe
from rankwise.metric import Metric, parse_metrics

Engine = Literal["polars", "duckdb"]
ENGINES: tuple[str, ...] = ("polars", "duckdb")


def _warn_unjudged(count: int) -> None:
    if count:
        warnings.warn(
            f"{count} run quer{'y has' if count == 1 else 'ies have'} no judgments in the qrels "
            f"and {'was' if count == 1 else 'were'} not scored (as in trec_eval)",
            RankwiseWarning,
            stacklevel=3,
        )


def evaluate(
    run: Any,
    qrels: Any,
    metrics: str | Metric | Iterable[str | Metric],
    *,
    engine: Engine = "polars",
    ties: TiePolicy = "trec_eval",
    missing: MissingPolicy = "ignore",
    max_rank: int | None = None,
    rel: float = 1,
    judged_only: bool = False,
    query_id: str = "query_id",
    doc_id: str = "doc_id",
    score: str = "score",
    relevance: str = "relevance",
) -> pl.DataFrame:
    """Per-query metric values: one row per query, one Float64 column per metric.

    ``run`` (query_id, doc_id, score) and ``qrels`` (query_id, doc_id, relevance) may be Polars
    DataFrames/LazyFrames, pyarrow Tables, pandas DataFrames, DuckDB relations or paths to
    Parquet, CSV or TREC files. Metric columns are named by the strings passed. Rows are
    sorted by query id. ``engine="duckdb"`` computes through the SQL macros of ``sql/``.

    Conventions (defaults reproduce trec_eval): ``ties`` (score desc, then doc_id desc),
    ``missing`` ('ignore' queries absent from the run, or score them 'zero' as ``-c``),
    ``max_rank`` (``-M``), ``rel`` (``-l``), ``judged_only`` (``-J``). Run queries without any
    judgment are not scored; a :class:`~rankwise.errors.RankwiseWarning` says how many.

    >>> import polars as pl, rankwise as rw
    >>> run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"],
    ...                     "score": [2.0, 1.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "c"], "relevance": [1, 2]})
    >>> result = rw.evaluate(run, qrels, ["nDCG@10", "RR"])
    >>> result.columns
    ['query_id', 'nDCG@10', 'RR']
    >>> result["query_id"].to_list(), result["nDCG@10"].round(6).to_list(), result["RR"].to_list()
    (['q1', 'q2'], [0.63093, 1.0], [0.5, 1.0])
    """
    parsed = parse_metrics(metrics)
    conv = Conventions(ties=ties, missing=missing, max_rank=max_rank, rel=rel, judged_only=judged_only)
    columns = Columns(query_id=query_id, doc_id=doc_id, score=score, relevance=relevance)
    if engine == "polars":
        from rankwise._polars.engine import evaluate_lazy, prepare, unjudged_queries

        prep = prepare(to_lazyframe(run, "run", columns), to_lazyframe(qrels, "qrels", columns), columns)
        result, unjudged = pl.collect_all([evaluate_lazy(prep, parsed, conv, columns), unjudged_queries(prep)])
        _warn_unjudged(unjudged.height)
        return result
    if engine == "duckdb":
        from rankwise._duckdb.engine import evaluate_duckdb

        result, n_unjudged = evaluate_duckdb(run, qrels, parsed, conv, columns)
        _warn_unjudged(n_unjudged)
        return result
    raise InvalidParameterError(f"engine must be one of {list(ENGINES)}, got {engine!r}")


def metric_of_column(column: str) -> Metric | None:
    """The metric a result column holds, recognised from its name (any naming scheme)."""
    try:
        found = parse_metrics([column])
    except (UnknownMetricError, MetricSyntaxError, InvalidParameterError):
        return None
    return found[0] if len(found) == 1 else None


def summarize(per_query: pl.DataFrame, *, by: str | Iterable[str] | None = None) -> pl.DataFrame:
    """Aggregate per-query values (the output of :func:`evaluate`) over queries.

    Each metric column is aggregated as its spec says: the mean (MAP, MRR, mean nDCG, ...),
    the sum (NumQ, NumRet, NumRel, NumRelRet) or, for GMAP, the geometric mean
    (trec_eval: exp(mean(log(max(AP, eps)))); form='shifted': (Π (AP + eps))^(1/n) − eps).
    Columns that are not metric strings (query ids, ``by`` columns) are left out.

    >>> import polars as pl, rankwise as rw
    >>> per_query = pl.DataFrame({"query_id": ["a", "b"], "AP": [0.5, 0.0], "GMAP": [0.5, 0.0],
    ...                           "NumQ": [1.0, 1.0]})
    >>> rw.summarize(per_query).to_dicts()
    [{'AP': 0.25, 'GMAP': 0.0022360679774997894, 'NumQ': 2.0}]
    """
    keys = [by] if isinstance(by, str) else list(by or [])
    aggs: list[pl.Expr] = []
    for column in per_query.columns:
        if column in keys:
            continue
        metric = metric_of_column(column)
        if metric is None:
            continue
        c = pl.col(column)
        if metric.spec.aggregate == "sum":
            aggs.append(c.sum().cast(pl.Float64).alias(column))
        elif metric.spec.aggregate == "gmean":
            p = metric.resolve()
            eps = float(p["eps"])
            if p["form"] == "trec_eval":
                aggs.append(c.clip(lower_bound=eps).log().mean().exp().alias(column))
            else:
                aggs.append(((c + eps).log().mean().exp() - eps).alias(column))
        else:
            aggs.append(c.mean().alias(column))
    if not aggs:
        raise InvalidParameterError(
            f"no metric columns to summarize among {per_query.columns}; pass the output of evaluate()"
        )
    if keys:
        return per_query.group_by(keys, maintain_order=True).agg(aggs).sort(keys)
    return per_query.select(aggs)


__all__ = ["ENGINES", "Engine", "evaluate", "summarize"]
