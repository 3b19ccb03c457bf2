"""Polars implementations of the shared pieces: gain, discount, relevance test, cutoff, and the
per-query primitives of :mod:`rankwise.recipes`.

Every function takes the relevance and rank as expressions, so the same code serves the
evaluation plan (explicit rank columns) and the public expression API (ranks made inside a
``group_by().agg()``).
"""

from __future__ import annotations

import math

import polars as pl

from rankwise.recipes import Gain


def gain(rel: pl.Expr, how: Gain | str) -> pl.Expr:
    """Gain of a relevance value: linear max(rel, 0) or exponential 2^rel − 1 (0 for rel ≤ 0),
    levels of ``how.table`` taking their listed gain, relevance below ``how.min_rel`` gaining 0.

    Unjudged documents (NULL relevance) gain 0. Negative relevance gains 0, as in trec_eval.
    """
    g = Gain(how) if isinstance(how, str) else how
    r = rel.cast(pl.Float64).fill_null(0.0)
    base = r if g.kind == "linear" else pl.lit(2.0).pow(r) - 1.0
    value = pl.when(r > 0).then(base).otherwise(0.0)
    for level, level_gain in reversed(g.table):
        value = pl.when(r == level).then(pl.lit(level_gain)).otherwise(value)
    if g.min_rel > 0 or g.table:
        # unjudged documents gain 0 even when the table gives level 0 a gain (trec_eval's
        # get_gain: a document outside the qrels has no level)
        value = pl.when(rel.is_null() | (r < 0) | (r < g.min_rel)).then(0.0).otherwise(value)
    return value


def ideal_rank(rel: pl.Expr, how: Gain | str) -> pl.Expr:
    """Rank in the ideal order: by gain, best first (by relevance when gains are monotone)."""
    g = Gain(how) if isinstance(how, str) else how
    key = rel.cast(pl.Float64).fill_null(0.0) if g.monotone else gain(rel, g)
    return key.rank("ordinal", descending=True)


def discount(rank: pl.Expr, kind: str, base: float) -> pl.Expr:
    """Rank discount: log2(i + 1), or Järvelin's max(1, log_b(i))."""
    i = rank.cast(pl.Float64)
    if kind == "log2":
        return (i + 1.0).log(2)
    return pl.max_horizontal(pl.lit(1.0), i.log() / pl.lit(base).log())


def is_rel(rel: pl.Expr, threshold: float) -> pl.Expr:
    """True where relevance ≥ threshold (unjudged: False)."""
    return (rel.cast(pl.Float64) >= threshold).fill_null(False)


def within(rank: pl.Expr, k: int | None) -> pl.Expr:
    """True where rank ≤ k (always True without a cutoff)."""
    return pl.lit(True) if k is None else rank <= k


def dcg_sum(rel: pl.Expr, rank: pl.Expr, k: int | None, gain_kind: Gain | str, discount_kind: str, base: float) -> pl.Expr:
    """Σ_{rank ≤ k} gain(rel) / discount(rank): DCG when ``rank`` is the retrieval rank, IDCG
    when it is the rank in the ideal (relevance-sorted) order."""
    term = gain(rel, gain_kind) / discount(rank, discount_kind, base)
    return pl.when(within(rank, k)).then(term).otherwise(0.0).sum()


def cg_sum(rel: pl.Expr, rank: pl.Expr, k: int | None, gain_kind: Gain | str) -> pl.Expr:
    """Σ_{rank ≤ k} gain(rel)."""
    return pl.when(within(rank, k)).then(gain(rel, gain_kind)).otherwise(0.0).sum()


def relret(rel: pl.Expr, rank: pl.Expr, threshold: float, k: int | None) -> pl.Expr:
    """Number of relevant documents at rank ≤ k."""
    return (is_rel(rel, threshold) & within(rank, k)).sum().cast(pl.Float64)


def cum_rel(rel: pl.Expr, threshold: float) -> pl.Expr:
    """Running count of relevant documents, in the expression's current order."""
    return is_rel(rel, threshold).cast(pl.Int64).cum_sum()


def ap_sum(rel: pl.Expr, rank: pl.Expr, running: pl.Expr, threshold: float, k: int | None) -> pl.Expr:
    """Σ_{rank ≤ k, relevant} running / rank, with ``running`` the relevant count so far."""
    hit = is_rel(rel, threshold) & within(rank, k)
    return pl.when(hit).then(running.cast(pl.Float64) / rank.cast(pl.Float64)).otherwise(0.0).sum()


def first_rel(rel: pl.Expr, rank: pl.Expr, threshold: float, k: int | None) -> pl.Expr:
    """Smallest rank ≤ k holding a relevant document (NULL when none)."""
    return rank.filter(is_rel(rel, threshold) & within(rank, k)).min().cast(pl.Float64)


def relret_at(rel: pl.Expr, rank: pl.Expr, threshold: float, depth: pl.Expr) -> pl.Expr:
    """Number of relevant documents at rank ≤ depth (an expression, e.g. the number relevant)."""
    return (is_rel(rel, threshold) & (rank <= depth)).sum().cast(pl.Float64)


def nrel(rel: pl.Expr, threshold: float) -> pl.Expr:
    """Number of relevant documents."""
    return is_rel(rel, threshold).sum().cast(pl.Float64)


def div0(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    """a / b, and 0 where b = 0 (trec_eval's rule for IDCG = 0, R = 0, ...)."""
    return pl.when(b == 0).then(0.0).otherwise(a.cast(pl.Float64) / b.cast(pl.Float64))


def recip0(a: pl.Expr) -> pl.Expr:
    """1 / a, and 0 where a is NULL."""
    return pl.when(a.is_null()).then(0.0).otherwise(1.0 / a.cast(pl.Float64))


def positive(a: pl.Expr) -> pl.Expr:
    """1.0 where a > 0, else 0.0."""
    return (a > 0).cast(pl.Float64)


def is_judged_nonrel(rel: pl.Expr, threshold: float) -> pl.Expr:
    """Judged (relevance ≥ 0) but below the threshold."""
    r = rel.cast(pl.Float64)
    return ((r >= 0) & (r < threshold)).fill_null(False)


def is_unjudged(rel: pl.Expr) -> pl.Expr:
    """Unjudged, or judged negative (trec_eval: "in the pool but unjudged")."""
    return rel.is_null() | (rel.cast(pl.Float64) < 0).fill_null(True)


def nonrel_judged(rel: pl.Expr, threshold: float) -> pl.Expr:
    """Number of judged non-relevant documents."""
    return is_judged_nonrel(rel, threshold).sum().cast(pl.Float64)


def unjudged(rel: pl.Expr, rank: pl.Expr, k: int | None) -> pl.Expr:
    """Number of unjudged documents at rank ≤ k."""
    return (is_unjudged(rel) & within(rank, k)).sum().cast(pl.Float64)


def cum_nonrel(rel: pl.Expr, threshold: float) -> pl.Expr:
    """Running count of judged non-relevant documents, in the expression's current order."""
    return is_judged_nonrel(rel, threshold).cast(pl.Int64).cum_sum()


def bpref_sum(rel: pl.Expr, running_nonrel: pl.Expr, threshold: float, n_rel: pl.Expr, n_nonrel: pl.Expr) -> pl.Expr:
    """Σ over relevant documents of 1 − min(n, R) / min(N, R) (1 when n = 0), n = judged
    non-relevant ranked above, N = all judged non-relevant, R = all relevant."""
    n = running_nonrel.cast(pl.Float64)
    term = pl.when(n == 0).then(1.0).otherwise(
        1.0 - pl.min_horizontal(n, n_rel) / pl.min_horizontal(n_nonrel, n_rel)
    )
    return pl.when(is_rel(rel, threshold)).then(term).otherwise(0.0).sum()


def iprec(rank: pl.Expr, running: pl.Expr, n_rel: pl.Expr, level: float) -> pl.Expr:
    """Interpolated precision at recall ``level``: max of running / rank over the ranks where
    running ≥ lround(level · R) (trec_eval 10's rounding), 0 when there is none."""
    needed = (pl.lit(level) * n_rel.cast(pl.Float64) + 0.5).floor()
    precision = running.cast(pl.Float64) / rank.cast(pl.Float64)
    return precision.filter(running.cast(pl.Float64) >= needed).max().fill_null(0.0)


def bing_sum(rel: pl.Expr, rank: pl.Expr, running: pl.Expr, threshold: float) -> pl.Expr:
    """Σ over relevant documents of 1 / log2(2 + rank − running), running = relevant so far."""
    nonrel_above = rank.cast(pl.Float64) - running.cast(pl.Float64)
    return pl.when(is_rel(rel, threshold)).then(1.0 / (2.0 + nonrel_above).log(2)).otherwise(0.0).sum()


def rankeff_sum(rel: pl.Expr, running_nonrel: pl.Expr, threshold: float, n_nonrel: pl.Expr) -> pl.Expr:
    """Σ over relevant documents of 1 − n / N (1 when N = 0)."""
    term = pl.when(n_nonrel == 0).then(1.0).otherwise(1.0 - running_nonrel.cast(pl.Float64) / n_nonrel)
    return pl.when(is_rel(rel, threshold)).then(term).otherwise(0.0).sum()


def geometric_sum(hit: pl.Expr, rank: pl.Expr, p: float) -> pl.Expr:
    """Σ over rows where ``hit`` of p^(rank − 1)."""
    return pl.when(hit).then(pl.lit(p).pow(rank.cast(pl.Float64) - 1.0)).otherwise(0.0).sum()


def err_stop(rel: pl.Expr, max_rel: float) -> pl.Expr:
    """Stop probability of the cascade model: (2^g − 1) / 2^max_rel, g clipped to [0, max_rel]."""
    g = rel.cast(pl.Float64).fill_null(0.0).clip(0.0, max_rel)
    return (pl.lit(2.0).pow(g) - 1.0) / math.pow(2.0, max_rel)


def err_sum(rel: pl.Expr, rank: pl.Expr, cum_log_continue: pl.Expr, k: int | None, max_rel: float) -> pl.Expr:
    """Σ_{rank ≤ k} R / rank · Π_{earlier} (1 − R), the product from a running Σ ln(1 − R)."""
    stop = err_stop(rel, max_rel)
    reach = (cum_log_continue - (1.0 - stop).log()).exp()
    return pl.when(within(rank, k)).then(stop / rank.cast(pl.Float64) * reach).otherwise(0.0).sum()


INFAP_EPSILON = 1e-5


def infap_sum(rel: pl.Expr, rank: pl.Expr, running: pl.Expr, running_nonrel: pl.Expr, running_pooled: pl.Expr, threshold: float) -> pl.Expr:
    """Σ over relevant documents of (1 + X·(a + ε)/(a + n + 2ε)) / rank, a = relevant above
    (running − 1), n = judged non-relevant above, u = pooled-unjudged above, X = a + n + u."""
    a = running.cast(pl.Float64) - 1.0
    n = running_nonrel.cast(pl.Float64)
    x = a + n + running_pooled.cast(pl.Float64)
    term = (1.0 + x * (a + INFAP_EPSILON) / (a + n + 2 * INFAP_EPSILON)) / rank.cast(pl.Float64)
    return pl.when(is_rel(rel, threshold)).then(term).otherwise(0.0).sum()


def positive_gain(rel: pl.Expr, how: Gain) -> pl.Expr:
    """max(gain, 0): the gain a document contributes to the ideal list."""
    return pl.max_horizontal(gain(rel, how), pl.lit(0.0))


def log2_discount(rank: pl.Expr) -> pl.Expr:
    """log2(i + 1)."""
    return (rank.cast(pl.Float64) + 1.0).log(2)


def ideal_boundary(ideal_gain: pl.Expr) -> pl.Expr:
    """True at the last rank of each run of equal positive gains, in the ideal order (the next
    rank's gain differs; beyond the list it is 0)."""
    return (ideal_gain > 0) & (ideal_gain != ideal_gain.shift(-1, fill_value=0.0))


def ndcg_rel_sum(g: pl.Expr, cum_dcg: pl.Expr, ideal_dcg: pl.Expr, ideal_total: pl.Expr) -> pl.Expr:
    """Σ over documents of positive gain of DCG_i / IDCG_{min(i, npos)} (``ideal_dcg`` NULL
    beyond npos, where the whole ideal DCG ``ideal_total`` applies)."""
    return pl.when(g > 0).then(cum_dcg / ideal_dcg.fill_null(ideal_total)).otherwise(0.0).sum()


def boundary_sum(value: pl.Expr, boundary: pl.Expr) -> pl.Expr:
    """Σ of ``value`` at ideal boundaries (NULL boundary: none)."""
    return pl.when(boundary.fill_null(False)).then(value).otherwise(0.0).sum()


def g_sum(g: pl.Expr, rank: pl.Expr, cum_gain: pl.Expr, ideal_excess: pl.Expr, excess_total: pl.Expr) -> pl.Expr:
    """Σ_i g_i / log2(2 + i + X_{min(i, npos)} − S_i): trec_eval's G, X the running Σ of
    max(g* − 1, 0) over the ideal gains (NULL beyond npos: ``excess_total``), S the running gain."""
    cost = rank.cast(pl.Float64) + ideal_excess.fill_null(excess_total)
    return pl.when(g != 0).then(g / (2.0 + cost - cum_gain).log(2)).otherwise(0.0).sum()


def rel_char(rel: pl.Expr) -> pl.Expr:
    """One character for a relevance value (trec_eval relstring): the level's digit (floor),
    '>' above 9, '-' unjudged, '.' judged negative ("in the pool but unjudged")."""
    r = rel.cast(pl.Float64)
    digit = r.floor().cast(pl.Int64).cast(pl.String)
    return (
        pl.when(r.is_null()).then(pl.lit("-"))
        .when(r < 0).then(pl.lit("."))
        .when(r >= 10).then(pl.lit(">"))
        .otherwise(digit)
    )


def rel_string(rel: pl.Expr, rank: pl.Expr, k: int | None) -> pl.Expr:
    """The characters of the documents at rank ≤ k, in rank order."""
    return rel_char(rel).filter(within(rank, k)).sort_by(rank.filter(within(rank, k))).str.join("")
