"""Metric expressions for ``group_by(...).agg(...)`` on a frame that already holds, per row, a
document's relevance and its score.

Within each group the rows are ranked by ``by`` (descending by default; pass several columns,
e.g. ``["score", "doc_id"]``, to break ties as trec_eval does). The group is the whole list:
ideal DCG, the number of relevant documents (recall, AP, R-precision) are computed from the
group's rows, i.e. the ideal comes from the list (``ideal='run'``). To use all judgments, use
:func:`rankwise.evaluate`. Each function compiles the metric's recipe (:mod:`rankwise.recipes`)
with the Polars engine's primitives: no formula is written here. Unjudged rows may hold NULL relevance (gain 0, not relevant).

>>> import polars as pl, rankwise as rw
>>> df = pl.DataFrame({"q": [1, 1, 1, 2, 2], "relevance": [0, 1, 2, 1, 0],
...                    "score": [0.9, 0.8, 0.1, 0.5, 0.7]})
>>> df.group_by("q", maintain_order=True).agg(
...     rw.ndcg("relevance", by="score", k=3).alias("ndcg@3"),
...     rw.precision("relevance", by="score", k=2).alias("P@2"),
...     rw.reciprocal_rank("relevance", by="score").alias("RR"),
... )
shape: (2, 4)
┌─────┬──────────┬─────┬─────┐
│ q   ┆ ndcg@3   ┆ P@2 ┆ RR  │
│ --- ┆ ---      ┆ --- ┆ --- │
│ i64 ┆ f64      ┆ f64 ┆ f64 │
╞═════╪══════════╪═════╪═════╡
│ 1   ┆ 0.619906 ┆ 0.5 ┆ 0.5 │
│ 2   ┆ 0.63093  ┆ 0.5 ┆ 0.5 │
└─────┴──────────┴─────┴─────┘
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import polars as pl

from rankwise._polars import primitives as prim
from rankwise._polars.engine import bind
from rankwise.errors import InvalidParameterError
from rankwise.metric import make_metric
from rankwise.primitives import (
    Const,
    IdealRank,
    Input,
    Node,
    Primitive,
    QrelsPrimitive,
    RowValue,
    Step,
    children,
)
from rankwise.recipes import recipe
from rankwise.registry import get_spec
from rankwise.spec import ParamValue

GainKind = Literal["linear", "exponential"]
DiscountKind = Literal["log2", "jarvelin"]
By = str | pl.Expr | Sequence[str | pl.Expr]


def _col(c: str | pl.Expr) -> pl.Expr:
    return pl.col(c) if isinstance(c, str) else c


def _check(k: int | None, gain: str | None = None, discount: str | None = None, base: float = 2.0) -> None:
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k <= 0):
        raise InvalidParameterError(f"parameter 'k' must be a positive integer or None, got {k!r}")
    if gain is not None and gain not in ("linear", "exponential"):
        raise InvalidParameterError(f"parameter 'gain' must be one of ['linear', 'exponential'], got {gain!r}")
    if discount is not None and discount not in ("log2", "jarvelin"):
        raise InvalidParameterError(f"parameter 'discount' must be one of ['log2', 'jarvelin'], got {discount!r}")
    if not isinstance(base, (int, float)) or isinstance(base, bool) or base <= 1:
        raise InvalidParameterError(f"parameter 'base' must be a number > 1, got {base!r}")


def group_expr(node: Node, rel: pl.Expr, rnk: pl.Expr, judged: pl.Expr) -> pl.Expr:
    """A recipe's tree as one aggregation over a group: ``rel`` the group's relevance in ranked
    order, ``rnk`` its ranks, ``judged`` the relevance values the qrels-side primitives read
    (here the group's own rows, in any order)."""
    if isinstance(node, Const):
        return pl.lit(node.value, dtype=pl.Float64)
    if isinstance(node, QrelsPrimitive):
        return bind(node, judged, pl.lit(None), lambda name, given: _group_input(given, judged, rnk, judged))
    if isinstance(node, Primitive):
        return bind(node, rel, rnk, lambda name, given: _group_input(given, rel, rnk, judged))
    fn = getattr(prim, node.binding())
    return fn(*(group_expr(a, rel, rnk, judged) for a in children(node)))  # type: ignore[no-any-return]


def _group_input(given: Input, rel: pl.Expr, rnk: pl.Expr, judged: pl.Expr) -> pl.Expr:
    if isinstance(given, Step):
        # a step may read other running sums (summed first)
        return bind(given, rel, rnk, lambda n, g: _group_input(g, rel, rnk, judged)).cum_sum()
    if isinstance(given, RowValue):
        return bind(given, rel, rnk, _unsupported)
    if isinstance(given, IdealRank):
        return prim.ideal_rank(rel, given.g)
    if isinstance(given, QrelsPrimitive):
        return group_expr(given, rel, rnk, judged)
    return _unsupported("", given)


def _unsupported(name: str, given: Input) -> pl.Expr:
    raise InvalidParameterError(f"{given!r} is not available in a group expression")


def _metric_expr(
    name: str, relevance: str | pl.Expr, by: By | None, descending: bool, cutoff: int | None,
    params: Mapping[str, ParamValue] | None = None,
) -> pl.Expr:
    """The registered metric ``name`` as an aggregation over a group ranked by ``by``."""
    tree = recipe(make_metric(get_spec(name), dict(params or {}), cutoff), {})
    # the judgments in the ideal order (best first; unjudged last): the ideal DCG sums in it
    judged = _col(relevance).sort(descending=True, nulls_last=True)
    rank = pl.int_range(1, pl.len() + 1, dtype=pl.Int64)
    if by is None:
        return group_expr(tree, judged, rank, judged)
    keys = [by] if isinstance(by, (str, pl.Expr)) else list(by)
    ranked = _col(relevance).sort_by([_col(k) for k in keys], descending=descending, maintain_order=True)
    return group_expr(tree, ranked, rank, judged)


def dcg(
    relevance: str | pl.Expr, *, by: By, k: int | None = None, gain: GainKind = "linear",
    discount: DiscountKind = "log2", base: float = 2.0, descending: bool = True,
) -> pl.Expr:
    """DCG@k = Σ_{i≤k} gain(rel_i) / discount(i) (Järvelin & Kekäläinen 2002).

    gain: 'linear' max(rel, 0) or 'exponential' 2^rel − 1; discount: 'log2' log2(i + 1) or
    'jarvelin' max(1, log_base(i)).
    """
    _check(k, gain, discount, base)
    return _metric_expr("DCG", relevance, by, descending, k, {"gain": gain, "discount": discount, "base": float(base)})


def idcg(
    relevance: str | pl.Expr, *, k: int | None = None, gain: GainKind = "linear",
    discount: DiscountKind = "log2", base: float = 2.0,
) -> pl.Expr:
    """IDCG@k: DCG@k of the group's rows sorted by relevance, best first."""
    _check(k, gain, discount, base)
    return _metric_expr("IDCG", relevance, None, True, k, {"gain": gain, "discount": discount, "base": float(base)})


def ndcg(
    relevance: str | pl.Expr, *, by: By, k: int | None = None, gain: GainKind = "linear",
    discount: DiscountKind = "log2", base: float = 2.0, descending: bool = True,
) -> pl.Expr:
    """nDCG@k = DCG@k / IDCG@k, 0 when IDCG@k = 0; ideal from the group's rows."""
    _check(k, gain, discount, base)
    return _metric_expr("nDCG", relevance, by, descending, k, {"gain": gain, "discount": discount, "base": float(base)})


def cg(relevance: str | pl.Expr, *, by: By, k: int | None = None, gain: GainKind = "linear", descending: bool = True) -> pl.Expr:
    """CG@k = Σ_{i≤k} gain(rel_i)."""
    _check(k, gain)
    return _metric_expr("CG", relevance, by, descending, k, {"gain": gain})


def precision(relevance: str | pl.Expr, *, by: By, k: int, rel: float = 1, descending: bool = True) -> pl.Expr:
    """P@k = |relevant in top k| / k (rel_i ≥ rel is relevant)."""
    if k is None:
        raise InvalidParameterError("parameter 'k' is required for precision")
    _check(k)
    return _metric_expr("P", relevance, by, descending, k, {"rel": float(rel)})


def recall(relevance: str | pl.Expr, *, by: By, k: int | None = None, rel: float = 1, descending: bool = True) -> pl.Expr:
    """R@k = |relevant in top k| / |relevant in the group| (0 when none)."""
    _check(k)
    return _metric_expr("R", relevance, by, descending, k, {"rel": float(rel)})


def success(relevance: str | pl.Expr, *, by: By, k: int, rel: float = 1, descending: bool = True) -> pl.Expr:
    """Success@k = 1 if a relevant document is in the top k, else 0."""
    _check(k)
    return _metric_expr("Success", relevance, by, descending, k, {"rel": float(rel)})


def average_precision(relevance: str | pl.Expr, *, by: By, k: int | None = None, rel: float = 1, descending: bool = True) -> pl.Expr:
    """AP@k = (1/R) Σ_{i≤k, relevant} P@i, R = relevant rows in the group."""
    _check(k)
    return _metric_expr("AP", relevance, by, descending, k, {"rel": float(rel)})


def reciprocal_rank(relevance: str | pl.Expr, *, by: By, k: int | None = None, rel: float = 1, descending: bool = True) -> pl.Expr:
    """RR@k = 1 / rank of the first relevant document within k (0 when none)."""
    _check(k)
    return _metric_expr("RR", relevance, by, descending, k, {"rel": float(rel)})


def r_precision(relevance: str | pl.Expr, *, by: By, rel: float = 1, descending: bool = True) -> pl.Expr:
    """Rprec = |relevant in top R| / R, R = relevant rows in the group (0 when R = 0)."""
    return _metric_expr("Rprec", relevance, by, descending, None, {"rel": float(rel)})
