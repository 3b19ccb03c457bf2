"""Why did a query score what it did? :func:`explain` lays a query's ranking out rank by rank,
for any metric.

Each row is a rank of the query's ranking (as the metric ranks it: ties, ``max_rank`` and
``judged_only`` applied) with the document and its relevance, and then, for each primitive of
the metric's recipe (:mod:`rankwise.recipes`), its value over the ranking cut at that rank
(e.g. ``relret``, the relevant documents so far; ``dcg_gain``, the DCG so far; the values over
the judgments, such as ``nrel`` or ``idcg``, are the same on every row). ``value`` is the
metric's value had the ranking ended at that rank, and ``contribution`` what that rank added
to it. Where a primitive has a gain or a discount, the row's ``gain`` and ``discount`` are
shown; where it reads the ideal order, the ideal ranking stands beside the ranking
(``ideal_doc_id``, ``ideal_relevance``, ``ideal_gain``). The rows stop at the metric's cutoff.
The last row's ``value`` is the metric's value, as :func:`rankwise.evaluate` computes it, by
the same engine: an off-by-one discount is visible at a glance.

>>> import polars as pl, rankwise as rw
>>> run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
>>> qrels = pl.DataFrame({"query_id": ["q"] * 2, "doc_id": ["b", "c"], "relevance": [1, 2]})
>>> table = rw.explain(run, qrels, "nDCG@3", "q")
>>> table.select("rank", "doc_id", "gain", pl.col("discount").round(4), "ideal_doc_id").rows()
[(1, 'a', 0.0, 1.0, 'c'), (2, 'b', 1.0, 1.585, 'b'), (3, 'c', 2.0, 2.0, None)]
>>> round(table["value"][-1], 6)
0.619906
>>> rw.explain(run, qrels, "bpref", "q").select("rank", "relevance", "bpref_sum", "nrel", "value").rows()
[(1, None, 0.0, 2.0, 0.0), (2, 1.0, 1.0, 2.0, 0.5), (3, 2.0, 2.0, 2.0, 1.0)]
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import polars as pl

from rankwise._polars import primitives as prim
from rankwise._polars.engine import RANK, REL, D, Prepared, Q, S, output_plans, prepare, ranked
from rankwise.conventions import Columns, Conventions, check_options
from rankwise.errors import InvalidParameterError
from rankwise.faults import engine_faults
from rankwise.io import to_lazyframe
from rankwise.metric import Metric
from rankwise.names import parse_metrics
from rankwise.primitives import Gain, IdealRank, Primitive, leaves
from rankwise.recipes import Output, outputs

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from rankwise.conventions import EvaluationOptions

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
    conv = Conventions.from_options(options)
    columns = Columns.from_options(options)
    (out,) = outputs([m], conv)
    with engine_faults({"run": run, "qrels": qrels}):
        prep = prepare(to_lazyframe(run, "run", columns), to_lazyframe(qrels, "qrels", columns), columns)
        rows = ranked(prep, conv, out.judged_only, docs=True).filter(_is_query(query)).sort(RANK).collect()
        judged = prep.qrels.filter(_is_query(query)).collect()
        if rows.is_empty() and judged.is_empty():
            raise InvalidParameterError(f"query {query!r} is neither in the run nor in the qrels")
        depth = rows.height if m.cutoff is None else min(rows.height, m.cutoff)
        parts = _parts(out)
        values = _values_by_depth(out, parts, rows.head(depth), judged, conv, prep)
    table = rows.head(depth).select(
        pl.col(RANK).alias("rank"), pl.col(D).alias("doc_id"), pl.col(REL).alias("relevance")
    )
    if rows.is_empty():
        table = pl.concat([table, pl.DataFrame({"rank": [0]})], how="diagonal_relaxed")
    first = _first_with(parts, "g")
    if first is not None:
        g = first.values()["g"]
        assert isinstance(g, Gain)
        table = table.with_columns(prim.gain(pl.col("relevance"), g).alias("gain"))
    first = _first_with(parts, "discount")
    if first is not None:
        v = first.values()
        table = table.with_columns(
            prim.discount_of(pl.col("rank"), str(v["discount"]), float(v["base"])).alias("discount")  # type: ignore[arg-type]
        )
    table = table.join(values, on="rank", how="left")
    ideal = _ideal_table(parts, rows, judged)
    if ideal is not None:
        k = m.cutoff
        extra = max(0, min(ideal.height, k if k is not None else ideal.height) - table.height)
        if extra:  # the ideal list is longer than the ranking: its ranks follow, the value stays
            more = pl.DataFrame({"rank": pl.int_range(table.height + 1, table.height + extra + 1, eager=True, dtype=pl.Int64)})
            table = pl.concat([table, more], how="diagonal_relaxed").with_columns(
                pl.exclude("rank", "doc_id", "relevance", "gain", "discount").forward_fill()
            )
            if "discount" in table.columns and first is not None:
                v = first.values()
                table = table.with_columns(
                    prim.discount_of(pl.col("rank"), str(v["discount"]), float(v["base"])).alias("discount")  # type: ignore[arg-type]
                )
        table = table.join(ideal, on="rank", how="left")
    value = pl.col("value")
    if out.value_type == "float":
        table = table.with_columns((value - value.shift(1, fill_value=0.0)).alias("contribution"))
    return table.select(pl.exclude("contribution", "value"), pl.col("^contribution$"), value)


def _is_query(query: Any) -> pl.Expr:
    """Rows of the query: ids compared as text, so that "7" (from the command line) finds
    the integer query 7."""
    return pl.col(Q).cast(pl.String) == str(query)


def _parts(out: Output) -> dict[str, Primitive]:
    """The distinct primitives of the recipe, each under a column name: its binding name, or
    with its fields when two share one."""
    distinct = list(dict.fromkeys(leaves(out.tree)))
    by_name: dict[str, list[Primitive]] = {}
    for leaf in distinct:
        by_name.setdefault(leaf.binding(), []).append(leaf)
    named: dict[str, Primitive] = {}
    for leaf in distinct:
        name, same = leaf.binding(), by_name[leaf.binding()]
        if len(same) > 1:  # named by the fields that tell them apart
            differ = [k for k, v in leaf.values().items() if any(o.values()[k] != v for o in same)]
            name = f"{name}({', '.join(f'{k}={leaf.values()[k]!r}' for k in differ)})"
        named[name] = leaf
    return named


def _values_by_depth(
    out: Output, parts: dict[str, Primitive], rows: pl.DataFrame, judged: pl.DataFrame, conv: Conventions,
    prep: Prepared,
) -> pl.DataFrame:
    """The metric and each primitive over the ranking cut at each rank 1..n: one evaluation by
    the Polars engine of n queries, the i-th holding the top i documents and all the query's
    judgments."""
    n = rows.height
    # an empty ranking (e.g. judged-only, nothing judged) is shown as rank 0
    cut = pl.int_range(0 if n == 0 else 1, n + 1, eager=True, dtype=pl.Int64).alias("rank")
    docs = rows.select(pl.col(D), pl.col(RANK)).join(cut.to_frame(), how="cross").filter(pl.col(RANK) <= pl.col("rank"))
    run = docs.select(pl.col("rank").alias(Q), pl.col(D), (-pl.col(RANK)).cast(pl.Float64).alias(S))
    qrels = judged.select(D, REL).join(cut.to_frame(), how="cross").select(pl.col("rank").alias(Q), D, REL)
    cuts = replace(prep, run=run.lazy(), qrels=qrels.lazy(), query_dtype=pl.Int64())
    # the rows are ranked already (judged-only rankings too): no second cut, no tie to break
    by_depth = replace(conv, max_rank=None, missing="zero" if n == 0 else "ignore")
    columns = [
        Output(name, leaf, out.judged_only, leaf.value_type) for name, leaf in parts.items()
    ] + [replace(out, label="value")]
    plans = output_plans(cuts, columns, by_depth, Columns(query_id="rank"))
    return plans.result.collect()


def _first_with(parts: dict[str, Primitive], name: str) -> Primitive | None:
    """The first primitive with a field ``name``."""
    return next((leaf for leaf in parts.values() if name in leaf.values()), None)


def _ideal_table(parts: dict[str, Primitive], rows: pl.DataFrame, judged: pl.DataFrame) -> pl.DataFrame | None:
    """The ideal ranking beside the ranking, when a primitive reads the ideal order: of the
    judgments, or of the retrieved documents (``ideal='run'``)."""
    leaf = next(
        (p for p in parts.values() if any(isinstance(i, IdealRank) for i in p.inputs().values())), None
    )
    if leaf is None:
        return None
    gain = leaf.values()["g"]
    assert isinstance(gain, Gain)
    source = judged if leaf.side == "qrels" else rows
    return (
        source.select(pl.col(D).alias("ideal_doc_id"), pl.col(REL).alias("ideal_relevance"))
        .with_columns(prim.gain(pl.col("ideal_relevance"), gain).alias("ideal_gain"))
        .sort(["ideal_gain", "ideal_doc_id"], descending=[True, False])
        .with_row_index("rank", offset=1)
        .with_columns(pl.col("rank").cast(pl.Int64))
    )
