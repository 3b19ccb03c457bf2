"""Why did a query score what it did? :func:`explain` lays a query's ranking out rank by rank.

For the DCG family (nDCG, DCG, IDCG, CG) each row shows the document, its relevance, gain,
discount, contribution and running DCG, and beside it the ideal ranking (document,
relevance, gain, contribution, running IDCG); ``value`` is the metric after that rank. For
AP, RR, P and R each row shows whether the document is relevant, the relevant count so far,
the contribution and the running value. The last row's ``value`` is the metric's value, as
:func:`rankwise.evaluate` computes it — an off-by-one discount is visible at a glance.

>>> import polars as pl, rankwise as rw
>>> run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
>>> qrels = pl.DataFrame({"query_id": ["q"] * 2, "doc_id": ["b", "c"], "relevance": [1, 2]})
>>> table = rw.explain(run, qrels, "nDCG@3", "q")
>>> table.select("rank", "doc_id", "gain", pl.col("discount").round(4), "ideal_doc_id").rows()
[(1, 'a', 0.0, 1.0, 'c'), (2, 'b', 1.0, 1.585, 'b'), (3, 'c', 2.0, 2.0, None)]
>>> round(table["value"][-1], 6)
0.619906
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from rankwise._polars import primitives as prim
from rankwise._polars.engine import RANK, REL, D, Q, prepare, ranked
from rankwise.conventions import Columns, Conventions, check_options
from rankwise.errors import InvalidParameterError
from rankwise.faults import engine_faults
from rankwise.io import to_lazyframe
from rankwise.metric import Metric
from rankwise.names import parse_metrics
from rankwise.recipes import gain_of

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from rankwise.conventions import EvaluationOptions

EXPLAINED = ("nDCG", "DCG", "IDCG", "CG", "AP", "RR", "P", "R")


def explain(
    run: Any,
    qrels: Any,
    metric: str | Metric,
    query: Any,
    **options: Unpack[EvaluationOptions],
) -> pl.DataFrame:
    """The rank-by-rank table of one metric for one query (see the module docstring); the
    keyword ``options`` are those of :func:`rankwise.evaluate`
    (:class:`~rankwise.conventions.EvaluationOptions`)."""
    check_options("explain", options)
    found = parse_metrics([metric])
    if len(found) != 1:
        raise InvalidParameterError(
            f"explain takes one metric; {metric!r} names {len(found)} "
            f"({', '.join(f.label for f in found[:5])}{', ...' if len(found) > 5 else ''})"
        )
    (m,) = found
    if m.spec.name not in EXPLAINED:
        raise InvalidParameterError(
            f"explain supports {list(EXPLAINED)}; {m.spec.name} is not among them yet"
        )
    conv = Conventions.from_options(options)
    columns = Columns.from_options(options)
    p = m.resolve(conv.as_params())
    with engine_faults({"run": run, "qrels": qrels}):
        prep = prepare(to_lazyframe(run, "run", columns), to_lazyframe(qrels, "qrels", columns), columns)
        rows = (
            ranked(prep, conv, bool(p.get("judged_only", False)), docs=True)
            .filter(_is_query(query)).sort(RANK).collect()
        )
        judged = prep.qrels.filter(_is_query(query)).collect()
    if rows.is_empty() and judged.is_empty():
        raise InvalidParameterError(f"query {query!r} is neither in the run nor in the qrels")
    k = m.cutoff
    if m.spec.name in ("nDCG", "DCG", "IDCG", "CG"):
        return _dcg_table(m, p, rows, judged, k)
    return _binary_table(m, float(p["rel"]), rows, judged, k)


def _is_query(query: Any) -> pl.Expr:
    """Rows of the query: ids compared as text, so that "7" (from the command line) finds
    the integer query 7."""
    return pl.col(Q).cast(pl.String) == str(query)


def _dcg_table(m: Metric, p: dict[str, Any], rows: pl.DataFrame, judged: pl.DataFrame, k: int | None) -> pl.DataFrame:
    gain = gain_of(p)
    is_cg = m.spec.name == "CG"
    discount_kind, base = ("log2", 2.0) if is_cg else (str(p["discount"]), float(p["base"]))
    ideal_source = rows if p.get("ideal") == "run" else judged
    ideal = (
        ideal_source.select(pl.col(D).alias("ideal_doc_id"), pl.col(REL).alias("ideal_relevance"))
        .with_columns(prim.gain(pl.col("ideal_relevance"), gain).alias("ideal_gain"))
        .sort(["ideal_gain", "ideal_doc_id"], descending=[True, False])
        .with_row_index("rank", offset=1)
        .with_columns(pl.col("rank").cast(pl.Int64))
    )
    run_side = rows.select(
        pl.col(RANK).alias("rank"), pl.col(D).alias("doc_id"), pl.col(REL).alias("relevance"),
        prim.gain(pl.col(REL), gain).alias("gain"),
    )
    depth = max(run_side.height, ideal.height)
    if k is not None:
        depth = min(depth, k)
    table = (
        pl.DataFrame({"rank": pl.int_range(1, depth + 1, eager=True, dtype=pl.Int64)})
        .join(run_side, on="rank", how="left")
        .join(ideal, on="rank", how="left")
        .sort("rank")
    )
    disc = pl.lit(1.0) if is_cg else prim.discount_of(pl.col("rank"), discount_kind, base)
    table = table.with_columns(disc.alias("discount")).with_columns(
        (pl.col("gain").fill_null(0.0) / pl.col("discount")).alias("contribution"),
        (pl.col("ideal_gain").fill_null(0.0) / pl.col("discount")).alias("ideal_contribution"),
    ).with_columns(
        pl.col("contribution").cum_sum().alias("dcg"),
        pl.col("ideal_contribution").cum_sum().alias("idcg"),
    )
    value = {
        "nDCG": prim.div0(pl.col("dcg"), pl.col("idcg")),
        "DCG": pl.col("dcg"), "CG": pl.col("dcg"), "IDCG": pl.col("idcg"),
    }[m.spec.name]
    return table.with_columns(value.alias("value"))


def _binary_table(m: Metric, t: float, rows: pl.DataFrame, judged: pl.DataFrame, k: int | None) -> pl.DataFrame:
    n_rel = float(judged.select(prim.nrel(pl.col(REL), t)).item())
    table = rows.select(
        pl.col(RANK).alias("rank"), pl.col(D).alias("doc_id"), pl.col(REL).alias("relevance"),
        prim.is_rel(pl.col(REL), t).alias("relevant"),
    )
    if k is not None:
        table = table.filter(pl.col("rank") <= k)
    table = table.with_columns(pl.col("relevant").cast(pl.Int64).cum_sum().alias("relevant_so_far"))
    hit, so_far, rank = pl.col("relevant"), pl.col("relevant_so_far").cast(pl.Float64), pl.col("rank").cast(pl.Float64)
    contribution = {
        "AP": pl.when(hit).then(so_far / rank / n_rel if n_rel else 0.0).otherwise(0.0),
        "RR": pl.when(hit & (so_far == 1)).then(1.0 / rank).otherwise(0.0),
        "P": pl.when(hit).then(1.0 / float(k or 1)).otherwise(0.0),
        "R": pl.when(hit).then(1.0 / n_rel if n_rel else 0.0).otherwise(0.0),
    }[m.spec.name]
    return table.with_columns(contribution.alias("contribution")).with_columns(
        pl.col("contribution").cum_sum().alias("value")
    )
