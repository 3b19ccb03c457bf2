"""rankwise on Spark: the same metrics, from the same SQL definitions (inlined, see
:mod:`rankwise.to_sql`), on Spark DataFrames. Nothing is collected to the driver: the result
is a lazy Spark DataFrame, one row per query. Needs ``pip install 'rankwise[spark]'``.

Spark-side input checks are limited to the schema (missing columns); NULL scores and
duplicate documents are not looked for, which would need a pass over the data.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from rankwise.conventions import MissingPolicy, TiePolicy
from rankwise.errors import MissingColumnError, closest
from rankwise.evaluate import metric_of_column
from rankwise.metric import Metric
from rankwise.to_sql import to_sql


def _check(df: Any, kind: str, needed: list[str]) -> None:
    for name in needed:
        if name not in df.columns:
            near = closest(name, df.columns)
            hint = f" Did you mean {near[0]!r}?" if near else ""
            raise MissingColumnError(f"the {kind} has no column {name!r}.{hint} Columns found: {list(df.columns)}")


def evaluate(
    run: Any,
    qrels: Any,
    metrics: str | Metric | Iterable[str | Metric],
    *,
    ties: TiePolicy = "trec_eval",
    missing: MissingPolicy = "ignore",
    max_rank: int | None = None,
    rel: float = 1,
    judged_only: bool = False,
    query_id: str = "query_id",
    doc_id: str = "doc_id",
    score: str = "score",
    relevance: str = "relevance",
) -> Any:
    """Per-query metric values of Spark DataFrames ``run`` and ``qrels`` as a Spark DataFrame
    (columns named by the metric strings, sorted by query), like :func:`rankwise.evaluate`."""
    _check(run, "run", [query_id, doc_id, score])
    _check(qrels, "qrels", [query_id, doc_id, relevance])
    suffix = uuid.uuid4().hex[:12]
    run_view, qrels_view = f"rw_run_{suffix}", f"rw_qrels_{suffix}"
    run.createOrReplaceTempView(run_view)
    qrels.createOrReplaceTempView(qrels_view)
    sql = to_sql(
        metrics, dialect="spark", run=run_view, qrels=qrels_view, ties=ties, missing=missing,
        max_rank=max_rank, rel=rel, judged_only=judged_only, query_id=query_id, doc_id=doc_id,
        score=score, relevance=relevance,
    )
    return run.sparkSession.sql(sql)


def summarize(per_query: Any) -> Any:
    """The aggregate row of a per-query Spark result: means, sums for counts, geometric means
    for GMAP/gm_bpref (as :func:`rankwise.summarize`)."""
    from pyspark.sql import functions as sf

    aggs = []
    for column in per_query.columns:
        metric = metric_of_column(column)
        if metric is None:
            continue
        c = sf.col(f"`{column}`")
        if metric.spec.aggregate == "none":
            continue
        if metric.spec.aggregate == "sum":
            aggs.append(sf.sum(c).cast("double").alias(column))
        elif metric.spec.aggregate == "gmean":
            p = metric.resolve()
            eps = float(p["eps"])
            if p["form"] == "trec_eval":
                aggs.append(sf.exp(sf.avg(sf.log(sf.greatest(c, sf.lit(eps))))).alias(column))
            else:
                aggs.append((sf.exp(sf.avg(sf.log(c + sf.lit(eps)))) - sf.lit(eps)).alias(column))
        else:
            aggs.append(sf.avg(c).alias(column))
    return per_query.agg(*aggs)
