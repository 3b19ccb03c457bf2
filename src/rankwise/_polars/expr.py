"""Metric expressions for ``group_by(...).agg(...)`` on a frame that already holds, per row, a
document's relevance and its score.

Within each group the rows are ranked by ``by`` (descending by default; pass several columns,
e.g. ``["score", "doc_id"]``, to break ties as trec_eval does). The group is the whole list:
ideal DCG, the number of relevant documents (recall, AP, R-precision) are computed from the
group's rows, i.e. the ideal comes from the list (``ideal='run'``). To use all judgments, use
:func:`rankwise.evaluate`. Unjudged rows may hold NULL relevance (gain 0, not relevant).

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

from collections.abc import Sequence
from typing import Literal

import polars as pl

from rankwise._polars import primitives as prim
from rankwise.errors import InvalidParameterError

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


def _ranked(relevance: str | pl.Expr, by: By, descending: bool) -> tuple[pl.Expr, pl.Expr]:
    keys = [by] if isinstance(by, (str, pl.Expr)) else list(by)
    rel = _col(relevance).sort_by([_col(k) for k in keys], descending=descending, maintain_order=True)
    return rel, pl.int_range(1, pl.len() + 1, dtype=pl.Int64)


def _ideal(relevance: str | pl.Expr) -> pl.Expr:
    return _col(relevance).cast(pl.Float64).fill_null(0.0).sort(descending=True)


def dcg(
    relevance: str | pl.Expr, *, by: By, k: int | None = None, gain: GainKind = "linear",
    discount: DiscountKind = "log2", base: float = 2.0, descending: bool = True,
) -> pl.Expr:
    """DCG@k = Σ_{i≤k} gain(rel_i) / discount(i) (Järvelin & Kekäläinen 2002).

    gain: 'linear' max(rel, 0) or 'exponential' 2^rel − 1; discount: 'log2' log2(i + 1) or
    'jarvelin' max(1, log_base(i)).
    """
    _check(k, gain, discount, base)
    rel, rank = _ranked(relevance, by, descending)
    return prim.dcg_sum(rel, rank, k, gain, discount, float(base))


def idcg(
    relevance: str | pl.Expr, *, k: int | None = None, gain: GainKind = "linear",
    discount: DiscountKind = "log2", base: float = 2.0,
) -> pl.Expr:
    """IDCG@k: DCG@k of the group's rows sorted by relevance, best first."""
    _check(k, gain, discount, base)
    return prim.dcg_sum(_ideal(relevance), pl.int_range(1, pl.len() + 1, dtype=pl.Int64), k, gain, discount, float(base))


def ndcg(
    relevance: str | pl.Expr, *, by: By, k: int | None = None, gain: GainKind = "linear",
    discount: DiscountKind = "log2", base: float = 2.0, descending: bool = True,
) -> pl.Expr:
    """nDCG@k = DCG@k / IDCG@k, 0 when IDCG@k = 0; ideal from the group's rows."""
    return prim.div0(
        dcg(relevance, by=by, k=k, gain=gain, discount=discount, base=base, descending=descending),
        idcg(relevance, k=k, gain=gain, discount=discount, base=base),
    )


def cg(relevance: str | pl.Expr, *, by: By, k: int | None = None, gain: GainKind = "linear", descending: bool = True) -> pl.Expr:
    """CG@k = Σ_{i≤k} gain(rel_i)."""
    _check(k, gain)
    rel, rank = _ranked(relevance, by, descending)
    return prim.cg_sum(rel, rank, k, gain)


def precision(relevance: str | pl.Expr, *, by: By, k: int, rel: float = 1, descending: bool = True) -> pl.Expr:
    """P@k = |relevant in top k| / k (rel_i ≥ rel is relevant)."""
    if k is None:
        raise InvalidParameterError("parameter 'k' is required for precision")
    _check(k)
    r, rank = _ranked(relevance, by, descending)
    return prim.relret(r, rank, float(rel), k) / float(k)


def recall(relevance: str | pl.Expr, *, by: By, k: int | None = None, rel: float = 1, descending: bool = True) -> pl.Expr:
    """R@k = |relevant in top k| / |relevant in the group| (0 when none)."""
    _check(k)
    r, rank = _ranked(relevance, by, descending)
    return prim.div0(prim.relret(r, rank, float(rel), k), prim.nrel(_col(relevance), float(rel)))


def success(relevance: str | pl.Expr, *, by: By, k: int, rel: float = 1, descending: bool = True) -> pl.Expr:
    """Success@k = 1 if a relevant document is in the top k, else 0."""
    _check(k)
    r, rank = _ranked(relevance, by, descending)
    return prim.positive(prim.relret(r, rank, float(rel), k))


def average_precision(relevance: str | pl.Expr, *, by: By, k: int | None = None, rel: float = 1, descending: bool = True) -> pl.Expr:
    """AP@k = (1/R) Σ_{i≤k, relevant} P@i, R = relevant rows in the group."""
    _check(k)
    r, rank = _ranked(relevance, by, descending)
    return prim.div0(prim.ap_sum(r, rank, prim.cum_rel(r, float(rel)), float(rel), k), prim.nrel(_col(relevance), float(rel)))


def reciprocal_rank(relevance: str | pl.Expr, *, by: By, k: int | None = None, rel: float = 1, descending: bool = True) -> pl.Expr:
    """RR@k = 1 / rank of the first relevant document within k (0 when none)."""
    _check(k)
    r, rank = _ranked(relevance, by, descending)
    return prim.recip0(prim.first_rel(r, rank, float(rel), k))


def r_precision(relevance: str | pl.Expr, *, by: By, rel: float = 1, descending: bool = True) -> pl.Expr:
    """Rprec = |relevant in top R| / R, R = relevant rows in the group (0 when R = 0)."""
    r, rank = _ranked(relevance, by, descending)
    n = prim.nrel(_col(relevance), float(rel))
    return prim.div0(prim.relret_at(r, rank, float(rel), n), n)
