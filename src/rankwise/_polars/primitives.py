"""Polars implementations of the shared pieces (gain, discount, relevance test, cutoff) and of
every primitive, input and scalar operation declared in :mod:`rankwise.primitives`: one
function each, named by its binding name, with the parameter names of its SQL macro
(``tests/house/test_primitives.py`` checks both).

Every function takes its row columns (``rel``, ``rnk``) and inputs as expressions, so the same
code serves the evaluation plan (explicit rank columns), the ranked lists (inside
``list.eval``) and the public expression API (ranks made inside a ``group_by().agg()``).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from contextvars import ContextVar

import polars as pl

from rankwise.errors import EmptyQueryError, InvalidValueError, LabelError
from rankwise.primitives import EPSILON, IFT_UNDEFINED_RATE, LABEL_BITS, QUERY_AUC_LABELS, Gain

_HOIST: ContextVar[Callable[[pl.Expr], pl.Expr] | None] = ContextVar("rankwise_hoist", default=None)


def row(term: pl.Expr) -> pl.Expr:
    """An elementwise term of an aggregate, which other aggregates over the same rows may share
    (the gain, relevant or not, g / discount(rank), precision at the rank): inside
    :func:`hoisting`, the engine computes each distinct term once, as a column of the rows,
    before it aggregates (Polars does not share common subexpressions between the
    aggregations of a group-by: ``all_trec`` computes g / log2(rank + 1) for 10 cutoffs);
    elsewhere (the lists, the expression API) the term itself."""
    hoist = _HOIST.get()
    return term if hoist is None else hoist(term)


@contextlib.contextmanager
def hoisting(hoist: Callable[[pl.Expr], pl.Expr] | None) -> Iterator[None]:
    """:func:`row` calls ``hoist(term)`` inside (``None``: the term itself)."""
    token = _HOIST.set(hoist)
    try:
        yield
    finally:
        _HOIST.reset(token)


def gain(rel: pl.Expr, how: Gain | str) -> pl.Expr:
    """Gain of a relevance value: linear max(rel, 0), exponential 2^rel − 1 (0 for rel ≤ 0) or
    binary (1 for rel > 0),
    levels of ``how.table`` taking their listed gain, relevance below ``how.min_rel`` gaining 0.

    Unjudged documents (NULL relevance) gain 0. Negative relevance gains 0, as in trec_eval;
    with ``how.negative`` it keeps its gain, rel or 2^rel − 1 (below 0), and ``min_rel`` zeroes
    the relevances in [0, min_rel) only.
    """
    g = Gain(how) if isinstance(how, str) else how
    r = rel.cast(pl.Float64).fill_null(0.0)
    base = {
        "linear": r, "exponential": pl.lit(2.0).pow(r) - 1.0, "binary": (r > 0).cast(pl.Float64),
    }[g.kind]
    value = base if g.negative else pl.when(r > 0).then(base).otherwise(0.0)
    for level, level_gain in reversed(g.table):
        value = pl.when(r == level).then(pl.lit(level_gain)).otherwise(value)
    if g.min_rel > 0 or g.table:
        # unjudged documents gain 0 even when the table gives level 0 a gain (trec_eval's
        # get_gain: a document outside the qrels has no level)
        below = (r >= 0) & (r < g.min_rel) if g.negative else (r < 0) | (r < g.min_rel)
        value = pl.when(rel.is_null() | below).then(0.0).otherwise(value)
    return value


def ideal_rank(rel: pl.Expr, how: Gain | str) -> pl.Expr:
    """Rank in the ideal order: by gain, best first (by relevance when gains are monotone)."""
    g = Gain(how) if isinstance(how, str) else how
    key = rel.cast(pl.Float64).fill_null(0.0) if g.monotone else gain(rel, g)
    return key.rank("ordinal", descending=True)


def discount_of(rank: pl.Expr, kind: str, base: float) -> pl.Expr:
    """Rank discount: log2(i + 1) ('log2'), Järvelin's max(1, log_b(i)) ('jarvelin'), or the
    rank itself ('reciprocal': the gain divided by i)."""
    i = rank.cast(pl.Float64)
    if kind == "log2":
        return (i + 1.0).log(2)
    if kind == "reciprocal":
        return i
    return pl.max_horizontal(pl.lit(1.0), i.log() / pl.lit(base).log())


def is_rel(rel: pl.Expr, threshold: float) -> pl.Expr:
    """True where relevance ≥ threshold (unjudged: False)."""
    return (rel.cast(pl.Float64) >= threshold).fill_null(False)


def within(rank: pl.Expr, k: int | None) -> pl.Expr:
    """True where rank ≤ k (always True without a cutoff)."""
    return pl.lit(True) if k is None else rank <= k


# -- inputs ----------------------------------------------------------------------------------


def rel_step(rel: pl.Expr, t: float) -> pl.Expr:
    """1 where relevance ≥ t."""
    return is_rel(rel, t).cast(pl.Int64)


def is_judged_nonrel(rel: pl.Expr, threshold: float) -> pl.Expr:
    """Judged (relevance ≥ 0) but below the threshold."""
    r = rel.cast(pl.Float64)
    return ((r >= 0) & (r < threshold)).fill_null(False)


def nonrel_step(rel: pl.Expr, t: float) -> pl.Expr:
    """1 where 0 ≤ relevance < t."""
    return is_judged_nonrel(rel, t).cast(pl.Int64)


def pooled_step(rel: pl.Expr) -> pl.Expr:
    """1 where the relevance is negative ("in the pool but unjudged")."""
    return (rel < 0).fill_null(False).cast(pl.Int64)


def err_stop(rel: pl.Expr, max_rel: float) -> pl.Expr:
    """Stop probability of the cascade model: (2^g − 1) / 2^max_rel, g clipped to [0, max_rel]."""
    g = rel.cast(pl.Float64).fill_null(0.0).clip(0.0, max_rel)
    return (pl.lit(2.0).pow(g) - 1.0) / math.pow(2.0, max_rel)


def log_continue_step(rel: pl.Expr, max_rel: float) -> pl.Expr:
    """ln(1 − stop probability)."""
    return (1.0 - err_stop(rel, max_rel)).log()


def gain_step(g: pl.Expr) -> pl.Expr:
    """The gain."""
    return g


def log2_discount(rank: pl.Expr) -> pl.Expr:
    """log2(i + 1)."""
    return (rank.cast(pl.Float64) + 1.0).log(2)


def dcg_step(g: pl.Expr, rnk: pl.Expr) -> pl.Expr:
    """g / log2(rnk + 1)."""
    return g / log2_discount(rnk)


def rbo_weight(rnk: pl.Expr, p: float) -> pl.Expr:
    """RBO's weight of depth d = ``rnk``: p^(d − 1) / d (Webber, Moffat & Zobel 2010: the
    agreement |A_{:d} ∩ B_{:d}| / d is weighed p^(d − 1))."""
    d = rnk.cast(pl.Float64)
    return pl.lit(p, dtype=pl.Float64).pow(d - 1.0) / d


def rbo_step(rnk: pl.Expr, p: float) -> pl.Expr:
    """p^(rnk − 1) / rnk (summed: Σ_{d≤rnk} p^(d − 1) / d)."""
    return rbo_weight(rnk, p)


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


def positive_gain(rel: pl.Expr, how: Gain) -> pl.Expr:
    """max(gain, 0): the gain a document contributes to the ideal list."""
    return _positive(gain(rel, how))


def _positive(g: pl.Expr) -> pl.Expr:
    return pl.max_horizontal(g, pl.lit(0.0))


def excess(g: pl.Expr) -> pl.Expr:
    """max(g − 1, 0) of the positive gain: G's cost of a rank beyond one."""
    return (_positive(g) - 1.0).clip(lower_bound=0.0)


def ideal_boundary(ideal_gain: pl.Expr) -> pl.Expr:
    """True at the last rank of each run of equal positive gains, in the ideal order (the next
    rank's gain differs; beyond the list it is 0)."""
    return (ideal_gain > 0) & (ideal_gain != ideal_gain.shift(-1, fill_value=0.0))


def ideal_dcg_at(g: pl.Expr, qid: pl.Expr, irank: pl.Expr) -> pl.Expr:
    """IDCG_i down the ideal order of each query (positive gains, log2 discount)."""
    return dcg_step(_positive(g), irank).cum_sum().over(qid, order_by=irank)


def ideal_excess_at(g: pl.Expr, qid: pl.Expr, irank: pl.Expr) -> pl.Expr:
    """Σ_{j≤i} max(g*_j − 1, 0) down the ideal order of each query."""
    return excess(g).cum_sum().over(qid, order_by=irank)


def ideal_boundary_at(g: pl.Expr, qid: pl.Expr, irank: pl.Expr) -> pl.Expr:
    """True at the last ideal rank of each run of equal positive gains."""
    return ideal_boundary(_positive(g)).over(qid, order_by=irank)


def ideal_gain_at(g: pl.Expr, qid: pl.Expr, irank: pl.Expr) -> pl.Expr:
    """The gain at each ideal rank (a row value: ``qid`` and ``irank`` place it)."""
    return _positive(g)


def ideal_boundary_inv_from(qid: pl.Expr, irank: pl.Expr, igd: pl.Expr, igb: pl.Expr) -> pl.Expr:
    """Σ over the ideal boundaries at ideal rank ≥ ``irank`` of 1 / IDCG there (``igd``, ``igb``:
    windows themselves): Rndcg's weight of a DCG step at that rank."""
    return pl.when(igb).then(1.0 / igd).otherwise(0.0).cum_sum(reverse=True).over(qid, order_by=irank)


def rbo_weight_before(qid: pl.Expr, irank: pl.Expr, p: float) -> pl.Expr:
    """Σ_{j<i} p^(j − 1) / j at each rank i = ``irank`` of the run-ordered ideal of each query."""
    return (rbo_weight(irank, p).cum_sum() - rbo_weight(irank, p)).over(qid, order_by=irank)


# -- run primitives --------------------------------------------------------------------------


def count(rnk: pl.Expr) -> pl.Expr:
    """Number of ranked documents: the deepest rank (ranks run 1, 2, ...), which the judged-rows
    plan keeps (:func:`~rankwise._polars.ranking.ranked`), as SQL reads it."""
    return rnk.max().cast(pl.Float64)


def relret(rel: pl.Expr, rnk: pl.Expr, t: float, k: int | None) -> pl.Expr:
    """Number of relevant documents at rank ≤ k."""
    return (row(is_rel(rel, t)) & within(rnk, k)).sum().cast(pl.Float64)


def dcg_gain(g: pl.Expr, rnk: pl.Expr, k: int | None, discount: str, base: float) -> pl.Expr:
    """Σ_{rnk ≤ k} g / discount(rnk): DCG when ``rnk`` is the retrieval rank, IDCG when it is
    the rank in the ideal order."""
    term = row(g / discount_of(rnk, discount, base))
    return pl.when(within(rnk, k)).then(term).otherwise(0.0).sum()


def tie_discount(rnk: pl.Expr, qid: pl.Expr, score: pl.Expr, k: int | None, discount: str, base: float) -> pl.Expr:
    """The mean of [rnk ≤ k] / discount(rnk) over the row's tie group (equal scores)."""
    share = pl.when(within(rnk, k)).then(1.0 / discount_of(rnk, discount, base)).otherwise(0.0)
    return share.mean().over(qid, score)


def tie_dcg(g: pl.Expr, tdisc: pl.Expr) -> pl.Expr:
    """Σ g · the tie group's mean discount."""
    return (g * tdisc).sum()


# -- expected values over the orders of tied documents (ties='expected') -----------------------

LN_SQRT_2PI = 0.9189385332046727
"""ln √(2π), as in ``rw_ln_gamma_series``."""


def ln_factorial(n: pl.Expr) -> pl.Expr:
    """ln(n!) of a whole n ≥ 0 (n < 0 read as 0): Stirling's series of ln Γ(z) at z = n + 17
    (its error below 1e-14 there) less ln((n + 1)(n + 2) ⋯ (n + 16)); relative error about
    1e-15 (``rw_ln_factorial``, the same in SQL, whose engines lack ln Γ)."""
    x = pl.max_horizontal(n.cast(pl.Float64), pl.lit(0.0))
    z = x + 17.0
    series = (z - 0.5) * z.log() - z + LN_SQRT_2PI + 1.0 / (12.0 * z) - 1.0 / (360.0 * z.pow(3)) + (
        1.0 / (1260.0 * z.pow(5))
    ) - 1.0 / (1680.0 * z.pow(7))
    product = x + 1.0
    for j in range(2, 17):
        product = product * (x + float(j))
    return series - product.log()


def ln_choose(n: pl.Expr, k: pl.Expr) -> pl.Expr:
    """ln C(n, k) for whole 0 ≤ k ≤ n."""
    return ln_factorial(n) - ln_factorial(k) - ln_factorial(n - k)


def tie_size(qid: pl.Expr, score: pl.Expr) -> pl.Expr:
    """m: the rows of the row's tie group (its query's rows of equal score)."""
    return pl.len().cast(pl.Float64).over(qid, score)


def tie_start(rnk: pl.Expr, qid: pl.Expr, score: pl.Expr) -> pl.Expr:
    """The first rank the row's tie group holds."""
    return rnk.cast(pl.Float64).min().over(qid, score)


def tie_rel(rel: pl.Expr, qid: pl.Expr, score: pl.Expr, t: float) -> pl.Expr:
    """r: the rows of the row's tie group with relevance ≥ t."""
    return is_rel(rel, t).cast(pl.Float64).sum().over(qid, score)


def tie_rel_above(rel: pl.Expr, rnk: pl.Expr, qid: pl.Expr, score: pl.Expr, t: float) -> pl.Expr:
    """The rows with relevance ≥ t ranked above the row's tie group: the running count of
    relevant rows down the query's ranking less that down the group's (two windows side by
    side: a window nested in another would run over the outer one's rows)."""
    hit = is_rel(rel, t).cast(pl.Float64)
    return hit.cum_sum().over(qid, order_by=rnk) - hit.cum_sum().over(qid, score, order_by=rnk)


def _tie_first_group(trel: pl.Expr, tabove: pl.Expr) -> pl.Expr:
    """The row is in the first tie group that holds a relevant document."""
    return (tabove == 0.0) & (trel > 0.0)


def tie_relret(rnk: pl.Expr, tsize: pl.Expr, trel: pl.Expr, k: int | None) -> pl.Expr:
    """E[relevant at rank ≤ k] = Σ_{rank ≤ k} r / m."""
    return pl.when(within(rnk, k)).then(trel / tsize).otherwise(0.0).sum()


def tie_cg(g: pl.Expr, tsize: pl.Expr, tstart: pl.Expr, k: int | None) -> pl.Expr:
    """E[Σ_{i≤k} g_i] = Σ g · (the share of the group's ranks within k)."""
    if k is None:
        return g.sum()
    share = (pl.lit(float(k)) - tstart + 1.0).clip(0.0, tsize) / tsize
    return (g * share).sum()


def tie_ap_sum(
    rnk: pl.Expr, tsize: pl.Expr, trel: pl.Expr, tstart: pl.Expr, tabove: pl.Expr, k: int | None
) -> pl.Expr:
    """E[AP's sum at k] = Σ_{rank i ≤ k} (r / m)(R_above + 1 + (i − s − 1)(r − 1)/(m − 1)) / i."""
    i = rnk.cast(pl.Float64)
    inside = pl.when(tsize > 1.0).then((i - tstart) * (trel - 1.0) / (tsize - 1.0)).otherwise(0.0)
    term = trel / tsize * (tabove + 1.0 + inside) / i
    return pl.when(within(rnk, k) & (trel > 0.0)).then(term).otherwise(0.0).sum()


def tie_rr(rnk: pl.Expr, tsize: pl.Expr, trel: pl.Expr, tstart: pl.Expr, tabove: pl.Expr, k: int | None) -> pl.Expr:
    """E[RR@k] = Σ over the ranks i ≤ k of the first group holding a relevant document of
    C(m − x, r − 1) / C(m, r) / i, x = i − s (0 where m − x < r − 1)."""
    i = rnk.cast(pl.Float64)
    x = i - tstart + 1.0
    chance = (ln_choose(tsize - x, trel - 1.0) - ln_choose(tsize, trel)).exp()
    first = _tie_first_group(trel, tabove) & within(rnk, k) & (tsize - x >= trel - 1.0)
    return pl.when(first).then(chance / i).otherwise(0.0).sum()


def tie_success(tsize: pl.Expr, trel: pl.Expr, tstart: pl.Expr, tabove: pl.Expr, k: int | None) -> pl.Expr:
    """E[Success@k] = 1 − C(m − c, r) / C(m, r) over the first group holding a relevant
    document, c = min(k − s, m) its ranks within k (1 when m − c < r; 0 when c ≤ 0)."""
    c = tsize if k is None else (pl.lit(float(k)) - tstart + 1.0).clip(upper_bound=tsize)
    none_within = pl.when(tsize - c >= trel).then((ln_choose(tsize - c, trel) - ln_choose(tsize, trel)).exp()).otherwise(0.0)
    first = _tie_first_group(trel, tabove) & (c > 0.0)
    return pl.when(first).then(1.0 - none_within).otherwise(0.0).max().fill_null(0.0)


# -- the AUC family and PFound (sql/25_auc.sql) -------------------------------------------------


def tie_rank(rnk: pl.Expr, qid: pl.Expr, score: pl.Expr, k: int | None) -> pl.Expr:
    """The mean rank ≤ k of the row's tie group (equal scores): its midrank in the ranking cut
    at k (NULL beyond k)."""
    return pl.when(within(rnk, k)).then(rnk.cast(pl.Float64)).otherwise(None).mean().over(qid, score)


def auc_rank_sum(rel: pl.Expr, rnk: pl.Expr, trank: pl.Expr, t: float, k: int | None) -> pl.Expr:
    """Σ over relevant rows at rank ≤ k of their tie group's mean rank."""
    return pl.when(row(is_rel(rel, t)) & within(rnk, k)).then(trank).otherwise(0.0).sum().cast(pl.Float64)


def partial_auc_sum(rel: pl.Expr, rnk: pl.Expr, cumrel: pl.Expr, t: float, k: int, top: bool) -> pl.Expr:
    """Σ over relevant rows with n = rnk − cumrel < k non-relevant rows above of k − n (with
    ``top``, only where cumrel ≤ k)."""
    above = row(rnk.cast(pl.Float64) - cumrel.cast(pl.Float64))
    keep = row(is_rel(rel, t)) & (above < k)
    if top:
        keep = keep & (cumrel <= k)
    return pl.when(keep).then(float(k) - above).otherwise(0.0).sum()


def label(rel: pl.Expr) -> pl.Expr:
    """A document's label (PFound's, QueryAUC's): the relevance, 0 when unjudged or negative
    (not clipped above 1)."""
    return pl.max_horizontal(rel.cast(pl.Float64).fill_null(0.0), pl.lit(0.0))


def _each_within(rnk: pl.Expr, k: int | None) -> pl.Expr:
    """:func:`within` as a value of every row (a column, never a literal: a partition key, a count)."""
    return rnk.is_not_null() if k is None else rnk <= k


def label_midrank(rel: pl.Expr, rnk: pl.Expr, qid: pl.Expr, score: pl.Expr, k: int | None, level: int) -> pl.Expr:
    """The mean ascending rank of the score among the rows at rank ≤ k of the same
    ⌊label / 2^level⌋ (NULL beyond k)."""
    inside = _each_within(rnk, k)
    part = (label(rel) / float(2**level)).floor()
    ranks = score.rank("average").over(qid, part, inside)
    return pl.when(inside).then(ranks).otherwise(None)


def label_pairs(rnk: pl.Expr, r0: pl.Expr, k: int | None) -> pl.Expr:
    """(n² + n)/2 − Σ r0 over the rows at rank ≤ k: the pairs of different labels."""
    n = _each_within(rnk, k).sum().cast(pl.Float64)
    return (n * n + n) / 2.0 - r0.sum().cast(pl.Float64)


def _refuse_labels(s: pl.Series) -> pl.Series:
    bad = s.filter((s != s.floor()) | (s >= 2**LABEL_BITS))
    if len(bad):
        raise InvalidValueError(f"{QUERY_AUC_LABELS}{bad.max()}")
    return s


def label_pairs_ordered(
    rel: pl.Expr, rnk: pl.Expr, r0: pl.Expr, r1: pl.Expr, r2: pl.Expr, r3: pl.Expr, r4: pl.Expr, r5: pl.Expr,
    k: int | None,
) -> pl.Expr:
    """Σ_i Σ_{b<5} bit_b(l_i) · (r_{b+1} − r_b) over the rows at rank ≤ k (a label that is not
    an integer 0..31: :data:`~rankwise.primitives.QUERY_AUC_LABELS`)."""
    inside = pl.when(within(rnk, k)).then(label(rel)).otherwise(0.0)
    lab = inside.map_batches(_refuse_labels, return_dtype=pl.Float64, is_elementwise=True)
    ranks = [r0, r1, r2, r3, r4, r5]
    term = pl.lit(0.0)
    for b in range(LABEL_BITS):
        bit = (lab / float(2**b)).floor() % 2
        term = term + bit * (ranks[b + 1] - ranks[b]).fill_null(0.0)
    return pl.when(within(rnk, k)).then(term).otherwise(0.0).sum()


def look_log_step(rel: pl.Expr) -> pl.Expr:
    """ln|1 − l|, 0 where l = 1."""
    one_minus = 1.0 - label(rel)
    return pl.when(one_minus == 0.0).then(0.0).otherwise(one_minus.abs().log())


def look_stop_step(rel: pl.Expr) -> pl.Expr:
    """1 where l = 1."""
    return (label(rel) == 1.0).cast(pl.Int64)


def look_flip_step(rel: pl.Expr) -> pl.Expr:
    """1 where l > 1."""
    return (label(rel) > 1.0).cast(pl.Int64)


def pfound_sum(
    rel: pl.Expr, rnk: pl.Expr, cumlog: pl.Expr, cumstop: pl.Expr, cumflip: pl.Expr, k: int | None, decay: float,
) -> pl.Expr:
    """Σ_{rnk ≤ k} l · decay^(rnk − 1) · Π_{earlier} (1 − l): the product 0 once an earlier
    label is 1, else exp(Σ ln|1 − l|) with the sign of the earlier labels above 1 (the running
    sums are inclusive: the row's own step is taken back out)."""
    stops = cumstop - look_stop_step(rel)
    flips = cumflip - look_flip_step(rel)
    sign = pl.when(flips % 2 == 1).then(-1.0).otherwise(1.0)
    reach = pl.when(stops > 0).then(0.0).otherwise(sign * (cumlog - look_log_step(rel)).exp())
    term = label(rel) * pl.lit(decay).pow(rnk.cast(pl.Float64) - 1.0) * reach
    return pl.when(within(rnk, k)).then(term).otherwise(0.0).sum()


def cg_gain(g: pl.Expr, rnk: pl.Expr, k: int | None) -> pl.Expr:
    """Σ_{rnk ≤ k} g."""
    return pl.when(within(rnk, k)).then(g).otherwise(0.0).sum()


def idcg_list(rnk: pl.Expr, igain: pl.Expr, k: int | None, discount: str, base: float) -> pl.Expr:
    """Σ_{rnk ≤ k} g*_rnk / discount(rnk) over the ranked rows: the ideal DCG cut at the list's
    length (``igain`` NULL beyond the ideal list)."""
    return dcg_gain(igain.fill_null(0.0), rnk, k, discount, base)


def ideal_dcg_run(g: pl.Expr, irank: pl.Expr, k: int | None, discount: str, base: float) -> pl.Expr:
    """DCG@k of the retrieved documents in their ideal order."""
    return dcg_gain(g, irank, k, discount, base)


def ap_sum(rel: pl.Expr, rnk: pl.Expr, cumrel: pl.Expr, t: float, k: int | None) -> pl.Expr:
    """Σ_{rnk ≤ k, relevant} cumrel / rnk, with ``cumrel`` the relevant count so far."""
    hit = row(is_rel(rel, t)) & within(rnk, k)
    return pl.when(hit).then(row(cumrel.cast(pl.Float64) / rnk.cast(pl.Float64))).otherwise(0.0).sum()


def first_rel(rel: pl.Expr, rnk: pl.Expr, t: float, k: int | None) -> pl.Expr:
    """Smallest rank ≤ k holding a relevant document (NULL when none)."""
    return rnk.filter(row(is_rel(rel, t)) & within(rnk, k)).min().cast(pl.Float64)


def relret_at_nrel(rel: pl.Expr, rnk: pl.Expr, nrel: pl.Expr, t: float, x: float) -> pl.Expr:
    """Number of relevant documents at rank ≤ floor(x · nrel + 0.9)."""
    return (row(is_rel(rel, t)) & (rnk <= (x * nrel + 0.9).floor())).sum().cast(pl.Float64)


def nonrel_judged(rel: pl.Expr, t: float) -> pl.Expr:
    """Number of judged non-relevant documents."""
    return is_judged_nonrel(rel, t).sum().cast(pl.Float64)


def is_unjudged(rel: pl.Expr) -> pl.Expr:
    """Unjudged, or judged negative (trec_eval: "in the pool but unjudged")."""
    return rel.is_null() | (rel.cast(pl.Float64) < 0).fill_null(True)


def unjudged(rel: pl.Expr, rnk: pl.Expr, k: int | None) -> pl.Expr:
    """Number of unjudged documents at rank ≤ k."""
    return (row(is_unjudged(rel)) & within(rnk, k)).sum().cast(pl.Float64)


def not_judged(rel: pl.Expr, rnk: pl.Expr, k: int | None) -> pl.Expr:
    """Number of documents at rank ≤ k absent from the qrels."""
    return (rel.is_null() & within(rnk, k)).sum().cast(pl.Float64)


def bpref_sum(rel: pl.Expr, t: float, cumnonrel: pl.Expr, nrel: pl.Expr, nnonrel: pl.Expr) -> pl.Expr:
    """Σ over relevant documents of 1 − min(n, R) / min(N, R) (1 when n = 0), n = judged
    non-relevant ranked above, N = all judged non-relevant, R = all relevant."""
    n = cumnonrel.cast(pl.Float64)
    term = pl.when(n == 0).then(1.0).otherwise(
        1.0 - pl.min_horizontal(n, nrel) / pl.min_horizontal(nnonrel, nrel)
    )
    return pl.when(row(is_rel(rel, t))).then(term).otherwise(0.0).sum()


def iprec(rnk: pl.Expr, cumrel: pl.Expr, nrel: pl.Expr, level: float, shift: float) -> pl.Expr:
    """Interpolated precision at recall ``level``: max of cumrel / rnk over the ranks where
    cumrel ≥ floor(level · R + shift) (shift 0.5: trec_eval 10's lround; 0.9: trec_eval 9),
    0 when there is none."""
    needed = (pl.lit(level) * nrel.cast(pl.Float64) + shift).floor()
    precision = row(cumrel.cast(pl.Float64) / rnk.cast(pl.Float64))
    # a masked max, not a filter's (the precisions are >= 0): no filtered copy of the rows
    return pl.when(row(cumrel.cast(pl.Float64)) >= needed).then(precision).otherwise(0.0).max().fill_null(0.0)


def nonrel_above_sum(rel: pl.Expr, rnk: pl.Expr, cumrel: pl.Expr, t: float, k: int | None) -> pl.Expr:
    """Σ over relevant documents at rank ≤ k of rnk − cumrel (the non-relevant ranked above)."""
    above = row(rnk.cast(pl.Float64) - cumrel.cast(pl.Float64))
    return pl.when(row(is_rel(rel, t)) & within(rnk, k)).then(above).otherwise(0.0).sum()


def bing_sum(rel: pl.Expr, rnk: pl.Expr, cumrel: pl.Expr, t: float) -> pl.Expr:
    """Σ over relevant documents of 1 / log2(2 + rnk − cumrel)."""
    nonrel_above = row(rnk.cast(pl.Float64) - cumrel.cast(pl.Float64))
    return pl.when(row(is_rel(rel, t))).then(1.0 / (2.0 + nonrel_above).log(2)).otherwise(0.0).sum()


INFAP_EPSILON = 1e-5


def infap_sum(rel: pl.Expr, rnk: pl.Expr, cumrel: pl.Expr, cumnonrel: pl.Expr, cumpooled: pl.Expr, t: float) -> pl.Expr:
    """Σ over relevant documents of (1 + X·(a + ε)/(a + n + 2ε)) / rnk, a = relevant above
    (cumrel − 1), n = judged non-relevant above, u = pooled-unjudged above, X = a + n + u."""
    a = cumrel.cast(pl.Float64) - 1.0
    n = cumnonrel.cast(pl.Float64)
    x = a + n + cumpooled.cast(pl.Float64)
    term = (1.0 + x * (a + INFAP_EPSILON) / (a + n + 2 * INFAP_EPSILON)) / rnk.cast(pl.Float64)
    return pl.when(row(is_rel(rel, t))).then(term).otherwise(0.0).sum()


def rankeff_sum(rel: pl.Expr, t: float, cumnonrel: pl.Expr, nnonrel: pl.Expr) -> pl.Expr:
    """Σ over relevant documents of 1 − n / N (1 when N = 0)."""
    term = pl.when(nnonrel == 0).then(1.0).otherwise(1.0 - cumnonrel.cast(pl.Float64) / nnonrel)
    return pl.when(row(is_rel(rel, t))).then(term).otherwise(0.0).sum()


def _geometric_sum(hit: pl.Expr, rnk: pl.Expr, p: float, weight: pl.Expr | None = None) -> pl.Expr:
    """Σ over rows where ``hit`` of w · p^(rnk − 1) (w = 1 without a ``weight``)."""
    term = row(pl.lit(p).pow(rnk.cast(pl.Float64) - 1.0))
    return pl.when(hit).then(term if weight is None else weight * term).otherwise(0.0).sum()


def rbp_sum(rel: pl.Expr, rnk: pl.Expr, t: float, p: float, k: int | None, graded: bool) -> pl.Expr:
    """Σ_{rnk ≤ k} over relevant documents of w · p^(rnk − 1), w = 1 or (``graded``) the relevance."""
    return _geometric_sum(row(is_rel(rel, t)) & within(rnk, k), rnk, p, rel.cast(pl.Float64) if graded else None)


def rbo_overlap_before(g: pl.Expr, rnk: pl.Expr, crun: pl.Expr, cideal: pl.Expr, p: float) -> pl.Expr:
    """Σ over rows of positive gain of max(C(rnk − 1), C(i* − 1)), C(m) = Σ_{d≤m} p^(d − 1) / d:
    ``crun`` the running C(rnk), ``cideal`` C(i* − 1) at the document's rank i* in the
    run-ordered ideal (C increases, so that is C(max(rnk, i*) − 1))."""
    before = pl.max_horizontal(crun - rbo_weight(rnk, p), cideal)
    return pl.when(g > 0).then(before).otherwise(0.0).sum()


def rbo_weights(rnk: pl.Expr, p: float) -> pl.Expr:
    """Σ over the ranked rows of p^(rnk − 1) / rnk."""
    return rbo_weight(rnk, p).sum()


def err_sum(rel: pl.Expr, rnk: pl.Expr, cumlog: pl.Expr, k: int | None, max_rel: float) -> pl.Expr:
    """Σ_{rnk ≤ k} R / rnk · Π_{earlier} (1 − R), the product from a running Σ ln(1 − R)."""
    stop = err_stop(rel, max_rel)
    reach = (cumlog - (1.0 - stop).log()).exp()
    return pl.when(within(rnk, k)).then(stop / rnk.cast(pl.Float64) * reach).otherwise(0.0).sum()


def npos_ret(g: pl.Expr) -> pl.Expr:
    """Number of retrieved documents of positive gain."""
    return (g > 0).sum().cast(pl.Float64)


def ndcg_rel_sum(g: pl.Expr, cumdcg: pl.Expr, igd: pl.Expr, idcg_total: pl.Expr) -> pl.Expr:
    """Σ over documents of positive gain of DCG_i / IDCG_{min(i, npos)} (``igd`` NULL beyond
    npos, where the whole ideal DCG ``idcg_total`` applies)."""
    return pl.when(g > 0).then(cumdcg / igd.fill_null(idcg_total)).otherwise(0.0).sum()


def rndcg_sum(g: pl.Expr, rnk: pl.Expr, igs: pl.Expr) -> pl.Expr:
    """Σ over the ideal boundaries b of DCG_min(b, n) / IDCG_b: over the documents of nonzero
    gain, the DCG step times ``igs``, the Σ of 1 / IDCG_b over the boundaries b ≥ the rank (NULL
    beyond the ideal list: none)."""
    return pl.when(g != 0).then(dcg_step(g, rnk) * igs.fill_null(0.0)).otherwise(0.0).sum()


def g_sum(g: pl.Expr, rnk: pl.Expr, cumgain: pl.Expr, igx: pl.Expr, excess_total: pl.Expr) -> pl.Expr:
    """Σ_i g_i / log2(2 + i + X_{min(i, npos)} − S_i): trec_eval's G, X the running Σ of
    max(g* − 1, 0) over the ideal gains (NULL beyond npos: ``excess_total``), S the running gain."""
    cost = rnk.cast(pl.Float64) + igx.fill_null(excess_total)
    return pl.when(g != 0).then(g / (2.0 + cost - cumgain).log(2)).otherwise(0.0).sum()


def relstring(relchar: pl.Expr, rnk: pl.Expr, k: int | None) -> pl.Expr:
    """The characters of the documents at rank ≤ k, in rank order."""
    return relchar.filter(within(rnk, k)).sort_by(rnk.filter(within(rnk, k))).str.join("")


# -- the popularity family (sql/50_popularity.sql) ---------------------------------------------


def _listed_sum(term: pl.Expr, rnk: pl.Expr, k: int | None) -> pl.Expr:
    """Σ over the ranks ≤ k of a row term (0 over no row)."""
    return pl.when(within(rnk, k)).then(row(term)).otherwise(0.0).sum().cast(pl.Float64)


def _rank_discount(rnk: pl.Expr) -> pl.Expr:
    return 1.0 / (rnk.cast(pl.Float64) + 1.0).log(2)


def inv_user_freq_sum(rnk: pl.Expr, iusers: pl.Expr, nusers: pl.Expr, k: int | None) -> pl.Expr:
    """Σ_{rnk ≤ k} −log2(max(iusers, 1) / nusers)."""
    return _listed_sum(-(pl.max_horizontal(iusers, 1).cast(pl.Float64) / nusers).log(2), rnk, k)


def surprisal_sum(rnk: pl.Expr, iusers: pl.Expr, nusers: pl.Expr, k: int | None) -> pl.Expr:
    """Σ_{rnk ≤ k} (1 for an item never in training, else log2(nusers / iusers) / log2(nusers));
    NULL when nusers = 1 and a training item is listed within k."""
    n = nusers.cast(pl.Float64)
    weight = pl.when(iusers == 0).then(1.0).otherwise((n / iusers.cast(pl.Float64)).log(2) / n.log(2))
    undefined = (within(rnk, k) & (iusers > 0) & (nusers == 1)).any()
    return pl.when(undefined).then(None).otherwise(_listed_sum(weight.fill_nan(0.0), rnk, k))


def popularity_sum(rnk: pl.Expr, irows: pl.Expr, iusers: pl.Expr, k: int | None, popularity: str) -> pl.Expr:
    """Σ_{rnk ≤ k} the item's training rows (``interactions``) or distinct users (``users``)."""
    return _listed_sum((irows if popularity == "interactions" else iusers).cast(pl.Float64), rnk, k)


def unseen_sum(rnk: pl.Expr, seen: pl.Expr, k: int | None) -> pl.Expr:
    """Σ_{rnk ≤ k} [the user has no training row of the item]."""
    return _listed_sum((~seen).cast(pl.Float64), rnk, k)


def long_tail_sum(rnk: pl.Expr, iusers: pl.Expr, ibefore: pl.Expr, npairs: pl.Expr, k: int | None, head: float) -> pl.Expr:
    """Σ_{rnk ≤ k} [a training item whose more popular items' users reach ``head`` of the pairs]."""
    return _listed_sum(((iusers > 0) & (ibefore >= head * npairs)).cast(pl.Float64), rnk, k)


def group_tail_sum(rnk: pl.Expr, fgroups: pl.Expr, k: int | None, tail: str) -> pl.Expr:
    """Σ_{rnk ≤ k} [the item's groups hold ``tail``: the long tail the user gives]."""
    return _listed_sum(fgroups.list.contains(pl.lit(tail)).fill_null(False).cast(pl.Float64), rnk, k)


def tail_ratio_sum(rnk: pl.Expr, irows: pl.Expr, iasc: pl.Expr, nitems: pl.Expr, k: int | None, tail_ratio: float) -> pl.Expr:
    """Σ_{rnk ≤ k} [a training item in RecBole's long tail]."""
    if tail_ratio > 1:
        tail = irows <= tail_ratio
    else:
        tail = iasc <= pl.max_horizontal((nitems * tail_ratio).floor(), 1.0)
    return _listed_sum(((irows > 0) & tail).cast(pl.Float64), rnk, k)


def pop_quantile_sum(rnk: pl.Expr, iqusers: pl.Expr, iqrows: pl.Expr, k: int | None, popularity: str) -> pl.Expr:
    """Σ_{rnk ≤ k} the item's popularity quantile by distinct users or by training rows."""
    return _listed_sum(iqrows if popularity == "interactions" else iqusers, rnk, k)


def discount_sum(rnk: pl.Expr, k: int | None) -> pl.Expr:
    """Σ_{rnk ≤ k} 1 / log2(rnk + 1)."""
    return _listed_sum(_rank_discount(rnk), rnk, k)


def epc_sum(rel: pl.Expr, rnk: pl.Expr, iusers: pl.Expr, nusers: pl.Expr, t: float, k: int | None) -> pl.Expr:
    """Σ_{rnk ≤ k, relevant} (1 − iusers / nusers) / log2(rnk + 1)."""
    novelty = 1.0 - iusers.cast(pl.Float64) / nusers
    return _listed_sum(pl.when(is_rel(rel, t)).then(novelty * _rank_discount(rnk)).otherwise(0.0), rnk, k)


def _history_serendipity(rel: pl.Expr, rnk: pl.Expr, hlen: pl.Expr, sim: pl.Expr, t: float, k: int | None,
                         every: bool) -> pl.Expr:
    """Σ_{rnk ≤ k} (1 − sim) · r (r = [rel ≥ t], 1 with ``every``); NULL without training rows."""
    relevant = pl.lit(1.0) if every else pl.when(is_rel(rel, t)).then(1.0).otherwise(0.0)
    total = _listed_sum(((1.0 - sim) * relevant).fill_null(0.0), rnk, k)
    return pl.when((hlen.max() > 0).fill_null(False)).then(total).otherwise(None)


def cooccurrence_serendipity_sum(rel: pl.Expr, rnk: pl.Expr, hlen: pl.Expr, hco: pl.Expr, t: float, k: int | None,
                                 every: bool) -> pl.Expr:
    """Σ_{rnk ≤ k} (1 − hco) · r; NULL for a user without training rows."""
    return _history_serendipity(rel, rnk, hlen, hco, t, k, every)


def cosine_serendipity_sum(rel: pl.Expr, rnk: pl.Expr, hlen: pl.Expr, hcos: pl.Expr, t: float, k: int | None,
                           every: bool) -> pl.Expr:
    """Σ_{rnk ≤ k} (1 − hcos) · r; NULL for a user without training rows."""
    return _history_serendipity(rel, rnk, hlen, hcos, t, k, every)


def pair_cooccurrence_sum(rnk: pl.Expr, pco: pl.Expr, k: int | None) -> pl.Expr:
    """Σ_{rnk ≤ k} pco: the co-occurrence similarity summed over the top k's pairs."""
    return _listed_sum(pco.cast(pl.Float64), rnk, k)


def efd_sum(
    rel: pl.Expr, rnk: pl.Expr, iusers: pl.Expr, npairs: pl.Expr, minusers: pl.Expr, t: float, k: int | None
) -> pl.Expr:
    """Σ_{rnk ≤ k, relevant} −log2(max(iusers, minusers) / npairs) / log2(rnk + 1)."""
    novelty = -(pl.max_horizontal(iusers, minusers).cast(pl.Float64) / npairs).log(2)
    return _listed_sum(pl.when(is_rel(rel, t)).then(novelty * _rank_discount(rnk)).otherwise(0.0), rnk, k)


def serendipity_sum(
    rel: pl.Expr, rnk: pl.Expr, idense: pl.Expr, ncatalog: pl.Expr, t: float, k: int | None, every: bool
) -> pl.Expr:
    """Σ_{rnk ≤ k, relevant} max((n + 1 − rnk) / n − pu, 0), pu = (n + 1 − idense) / n (0 for an
    item never in training, idense = 0), n = ncatalog; ``every``: every row relevant."""
    n = ncatalog.cast(pl.Float64)
    user = (n + 1.0 - rnk.cast(pl.Float64)) / n
    anyone = pl.when(idense > 0).then((n + 1.0 - idense.cast(pl.Float64)) / n).otherwise(0.0)
    term = pl.max_horizontal(user - anyone, pl.lit(0.0))
    return _listed_sum(term if every else pl.when(is_rel(rel, t)).then(term).otherwise(0.0), rnk, k)


def train_rows(nrows: pl.Expr) -> pl.Expr:
    """The training's rows (the same on every row)."""
    return nrows.first().cast(pl.Float64)


# -- the feature-diversity family (sql/55_feature_diversity.sql) -----------------------------------


def pair_distance_sum(
    rnk: pl.Expr, dcosine: pl.Expr, dhamming: pl.Expr, djaccard: pl.Expr, k: int | None, distance: str
) -> pl.Expr:
    """Σ_{rnk ≤ k} the row's summed ``distance`` to the items ranked above it."""
    return _listed_sum({"cosine": dcosine, "hamming": dhamming}.get(distance, djaccard).cast(pl.Float64), rnk, k)


# -- the base-run family (sql/60_base_run.sql) -----------------------------------------------


def base_overlap_sum(rnk: pl.Expr, brank: pl.Expr, blisted: pl.Expr, k: int) -> pl.Expr:
    """Σ_{rnk ≤ k} [brank ≤ k]; k when the user has no list in the base run."""
    shared = _listed_sum((brank <= k).fill_null(False).cast(pl.Float64), rnk, k)
    return pl.when(blisted.any()).then(shared).otherwise(pl.lit(float(k))).cast(pl.Float64)


# -- the category family (sql/65_categories.sql) ---------------------------------------------


def category_count(rnk: pl.Expr, catnew: pl.Expr, k: int) -> pl.Expr:
    """Σ_{rnk ≤ k} catnew: the distinct categories of the top k."""
    return _listed_sum(catnew, rnk, k)


def category_entropy(
    rnk: pl.Expr, catcount: pl.Expr, catent: pl.Expr, catcountg: pl.Expr, catentg: pl.Expr, catall: pl.Expr,
    k: int | None, geometric: bool,
) -> pl.Expr:
    """log2 Z − (A + G ε log2 ε) / Z, Z = Σ_{rnk ≤ k} count + Gε, A = Σ_{rnk ≤ k} ent, G = catall
    (count, ent: catcountg, catentg with ``geometric``, else catcount, catent)."""
    count, ent = (catcountg, catentg) if geometric else (catcount, catent)
    g = catall.first().cast(pl.Float64)
    z = _listed_sum(count, rnk, k) + g * EPSILON
    h0 = EPSILON * math.log2(EPSILON)
    return (z.log(2) - (_listed_sum(ent, rnk, k) + g * h0) / z).cast(pl.Float64)


def miscalibration(rnk: pl.Expr, miscal: pl.Expr, k: int | None) -> pl.Expr:
    """miscal on the deepest row ranked ≤ k (NULL where the user has no history)."""
    top = within(rnk, k)
    return miscal.filter(top).sort_by(rnk.filter(top)).last().cast(pl.Float64)


# -- the fair-exposure family (sql/70_fairness.sql) -------------------------------------------


def awrf(rnk: pl.Expr, fjsd: pl.Expr, fjsd0: pl.Expr, k: int | None, definition: str) -> pl.Expr:
    """1 − the divergence at the deepest rank ≤ k; without a known group there, 1 − ``fjsd0``
    (``'trec2021'``) or NULL (``'trec2022'``)."""
    deepest = rnk.filter(within(rnk, k)).max()
    at = fjsd.filter(rnk == deepest).first().cast(pl.Float64)
    if definition == "trec2021":
        at = pl.coalesce(at, fjsd0.first().cast(pl.Float64))
    return 1.0 - at


def trec_exposure(
    rnk: pl.Expr, fa2: pl.Expr, faq: pl.Expr, fq2: pl.Expr, k: int | None, measure: str, available: float
) -> pl.Expr:
    """‖A − t‖², ‖A‖² or A·t at the deepest rank ≤ k (t = shares × ``available``)."""
    deepest = rnk.filter(within(rnk, k)).max()
    a2, aq = fa2.filter(rnk == deepest).first(), faq.filter(rnk == deepest).first()
    if measure == "D":
        return a2.cast(pl.Float64)
    if measure == "R":
        return (aq * available).cast(pl.Float64)
    return (a2 - 2.0 * available * aq + available * available * fq2.first()).cast(pl.Float64)


def trec_relevant_exposure(
    rnk: pl.Expr, fa2r: pl.Expr, faqr: pl.Expr, fq2: pl.Expr, k: int | None, measure: str, available: float
) -> pl.Expr:
    """:func:`trec_exposure` of the relevant rows' group exposures (TREC 2022's EEL)."""
    return trec_exposure(rnk, fa2r, faqr, fq2, k, measure, available)


# expected exposure (Diaz et al. 2020; expeval)


def positive_step(rel: pl.Expr) -> pl.Expr:
    """1 where relevance > 0."""
    return (rel > 0).fill_null(False).cast(pl.Int64)


def _level_start(qid: pl.Expr, g: pl.Expr, irank: pl.Expr) -> pl.Expr:
    return (irank.min().over(qid, g) - 1).cast(pl.Float64)


def _level_size(qid: pl.Expr, g: pl.Expr, irank: pl.Expr) -> pl.Expr:
    return irank.count().over(qid, g).cast(pl.Float64)


def run_level_start(qid: pl.Expr, g: pl.Expr, irank: pl.Expr) -> pl.Expr:
    """b: the documents of higher gain in the run-ordered ideal of each query."""
    return _level_start(qid, g, irank)


def run_level_size(qid: pl.Expr, g: pl.Expr, irank: pl.Expr) -> pl.Expr:
    """m: the documents of the row's gain in the run-ordered ideal of each query."""
    return _level_size(qid, g, irank)


def ideal_level_start(g: pl.Expr, qid: pl.Expr, irank: pl.Expr) -> pl.Expr:
    """b: the judgments of higher gain in the ideal order of each query."""
    return _level_start(qid, g, irank)


def ideal_level_size(g: pl.Expr, qid: pl.Expr, irank: pl.Expr) -> pl.Expr:
    """m: the judgments of the row's gain in the ideal order of each query."""
    return _level_size(qid, g, irank)


def _level_target(lstart: pl.Expr, lsize: pl.Expr, um: str, p: float, u: float) -> pl.Expr:
    """(pp^b − pp^(b+m)) / (m (1 − pp)): a relevance level's target exposure per document."""
    pp = p if um == "rbp" else p * (1.0 - u)
    return (pl.lit(pp).pow(lstart) - pl.lit(pp).pow(lstart + lsize)) / (lsize * (1.0 - pp))


def _exposure(rel: pl.Expr, rnk: pl.Expr, cumpos: pl.Expr, um: str, p: float, u: float) -> pl.Expr:
    """p^(rnk − 1), times (1 − u)^(relevant documents ranked above) under gerr."""
    e = pl.lit(p).pow(rnk.cast(pl.Float64) - 1.0)
    if um == "gerr":
        e = e * pl.lit(1.0 - u).pow((cumpos - positive_step(rel)).cast(pl.Float64))
    return e


def exposure_square_sum(
    rel: pl.Expr, rnk: pl.Expr, cumpos: pl.Expr, k: int | None, um: str, p: float, u: float
) -> pl.Expr:
    """Σ_{rnk ≤ k} ε²."""
    e = _exposure(rel, rnk, cumpos, um, p, u)
    return _listed_sum(e * e, rnk, k)


def exposure_target_sum(
    rel: pl.Expr, rnk: pl.Expr, cumpos: pl.Expr, lstart: pl.Expr, lsize: pl.Expr, k: int | None, um: str,
    p: float, u: float,
) -> pl.Expr:
    """Σ_{rnk ≤ k} ε · ε* (ε* 0 for a document not relevant)."""
    target = _level_target(lstart, lsize, um, p, u).fill_null(0.0)
    return _listed_sum(_exposure(rel, rnk, cumpos, um, p, u) * target, rnk, k)


def _sample_key_group(qid: pl.Expr, bits: int) -> pl.Expr:
    """The query whose samples a (query, sample) key's ranking is one of (layout ``bits``:
    :data:`~rankwise.primitives.SAMPLE_BITS`)."""
    return qid.cast(pl.Int64) // (1 << (2 * bits))


def sample_exposure_sum(
    rel: pl.Expr, rnk: pl.Expr, doc: pl.Expr, qid: pl.Expr, cumpos: pl.Expr, k: int | None, um: str, p: float,
    u: float, bits: int,
) -> pl.Expr:
    """W_d: Σ of the row's document's ε (ranks ≤ k) over its query's samples (a window)."""
    e = pl.when(within(rnk, k)).then(_exposure(rel, rnk, cumpos, um, p, u)).otherwise(0.0)
    return e.sum().over(_sample_key_group(qid, bits), doc)


def sampled_exposure_square_sum(
    rel: pl.Expr, rnk: pl.Expr, qid: pl.Expr, cumpos: pl.Expr, wsum: pl.Expr, k: int | None, um: str, p: float,
    u: float, bits: int,
) -> pl.Expr:
    """Σ_{rnk ≤ k} ε · W_d / S, S the query's samples (the key's middle bits)."""
    samples = (qid.first().cast(pl.Int64) // (1 << bits)) % (1 << bits)
    return _listed_sum(_exposure(rel, rnk, cumpos, um, p, u) * wsum, rnk, k) / samples.cast(pl.Float64)


def target_square_sum(rel: pl.Expr, lstart: pl.Expr, lsize: pl.Expr, um: str, p: float, u: float) -> pl.Expr:
    """Σ over the relevant judgments of ε*²."""
    target = _level_target(lstart, lsize, um, p, u)
    return pl.when(rel > 0).then(target * target).otherwise(0.0).sum().cast(pl.Float64)


def relevance_levels(rel: pl.Expr) -> pl.Expr:
    """The distinct relevance values > 0."""
    return rel.filter(rel > 0).n_unique().cast(pl.Float64)


# -- qrels primitives ------------------------------------------------------------------------


def nrel(rel: pl.Expr, t: float) -> pl.Expr:
    """Number of relevant documents."""
    return is_rel(rel, t).sum().cast(pl.Float64)


def label_outside(rel: pl.Expr, whole: bool, low: float, high: float | None) -> pl.Expr:
    """The largest judged relevance below ``low``, above ``high`` (None: no bound) or, with
    ``whole``, not an integer; NULL where none is."""
    r = rel.cast(pl.Float64)
    outside = r < low
    if high is not None:
        outside = outside | (r > high)
    if whole:
        outside = outside | (r != r.floor())
    return r.filter(outside).max()


def nonrel(rel: pl.Expr, t: float) -> pl.Expr:
    """Number of judged non-relevant documents."""
    return nonrel_judged(rel, t)


def idcg(g: pl.Expr, irank: pl.Expr, k: int | None, discount: str, base: float) -> pl.Expr:
    """DCG@k of the judgments in their ideal order."""
    return dcg_gain(g, irank, k, discount, base)


def ideal_rbo_weights(g: pl.Expr, irank: pl.Expr, p: float) -> pl.Expr:
    """Σ over the judgments of positive gain of p^(i − 1) / i, i their ideal rank (1..R)."""
    return pl.when(_positive(g) > 0).then(rbo_weight(irank, p)).otherwise(0.0).sum()


def npos(g: pl.Expr) -> pl.Expr:
    """Number of judged documents of positive gain."""
    return (_positive(g) > 0).sum().cast(pl.Float64)


def pos_gain(g: pl.Expr) -> pl.Expr:
    """Σ of the positive gains."""
    return _positive(g).sum()


def pos_excess(g: pl.Expr) -> pl.Expr:
    """Σ of max(gain − 1, 0)."""
    return excess(g).sum()


def idcg_pos(g: pl.Expr, irank: pl.Expr) -> pl.Expr:
    """DCG of the whole ideal list (positive gains, log2 discount)."""
    return dcg_step(_positive(g), irank).sum()


def rndcg_bounds(igb: pl.Expr) -> pl.Expr:
    """Number of ideal boundaries."""
    return igb.sum().cast(pl.Float64)


# -- scalar operations -----------------------------------------------------------------------


def div0(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    """a / b, and 0 where b = 0 (trec_eval's rule for IDCG = 0, R = 0, ...)."""
    return pl.when(b == 0).then(0.0).otherwise(a.cast(pl.Float64) / b.cast(pl.Float64))


def recip0(a: pl.Expr) -> pl.Expr:
    """1 / a, and 0 where a is NULL."""
    return pl.when(a.is_null()).then(0.0).otherwise(1.0 / a.cast(pl.Float64))


def positive(a: pl.Expr) -> pl.Expr:
    """1.0 where a > 0, else 0.0."""
    return (a > 0).cast(pl.Float64)


def div_null(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    """a / b, NULL where b = 0 (a value that is undefined there)."""
    return pl.when(b != 0).then(a.cast(pl.Float64) / b.cast(pl.Float64))


def when_empty(
    relevant: pl.Expr, ranked: pl.Expr, value: pl.Expr, qid: pl.Expr, fill: float | None, refuse: str | None
) -> pl.Expr:
    """``value``, except where nothing is relevant (``relevant`` <= 0) in a query that ranked
    something (``ranked`` > 0): ``fill`` (None: NULL), or with ``refuse`` (the metric's label)
    :class:`~rankwise.errors.EmptyQueryError` naming the metric and the first such queries."""
    empty = (relevant <= 0) & (ranked > 0)
    if refuse is not None:
        empty = _refused(
            empty, qid, lambda rows: EmptyQueryError.for_queries(refuse, rows["qid"].to_list())
        )
    return pl.when(empty).then(pl.lit(fill, dtype=pl.Float64)).otherwise(value.cast(pl.Float64))


def label_check(label: pl.Expr, value: pl.Expr, qid: pl.Expr, metric: str, rule: str) -> pl.Expr:
    """``value``, except for a query whose ``label`` (the judgment outside the metric's
    ``labels`` rule) is set (neither NULL nor 0): :class:`~rankwise.errors.LabelError` naming
    ``metric``, the first such query, its label and ``rule``."""
    outside = label.is_not_null() & (label != 0)
    refused = _refused(
        outside, qid,
        lambda rows: LabelError.for_query(metric, rows["qid"][0], rows["label"][0], rule),
        label=label.cast(pl.Float64),
    )
    return pl.when(refused).then(pl.lit(None, dtype=pl.Float64)).otherwise(value.cast(pl.Float64))


def _refused(
    flag: pl.Expr, qid: pl.Expr, error: Callable[[pl.DataFrame], Exception], **shown: pl.Expr
) -> pl.Expr:
    """``flag`` (a query's value), or the exception ``error`` gives for the queries where it is
    set, read as a frame of ``qid`` (as text, in order) and the ``shown`` values: a check on the
    data that refuses to score a query (``empty='error'``, ``labels``), run on the query column."""

    def check(s: pl.Series) -> pl.Series:
        flagged = s.struct.field("flag").fill_null(False)
        if flagged.any():
            raise error(s.struct.unnest().filter(flagged).sort("qid", nulls_last=True))
        return flagged

    fields = [flag.alias("flag"), qid.cast(pl.String).alias("qid"), *(e.alias(k) for k, e in shown.items())]
    return pl.struct(fields).map_batches(check, return_dtype=pl.Boolean)


def div(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    return a.cast(pl.Float64) / b


def add(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    return a + b


def sub(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    return a - b


def mul(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    return a * b


def least(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    return pl.min_horizontal(a, b)


def greatest(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    return pl.max_horizontal(a, b)


def floor(a: pl.Expr) -> pl.Expr:
    return a.floor()


def power(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    return a.pow(b)


# -- C/W/L user models (cwl_eval): see rankwise.primitives ------------------------------------


def cwl_gain(rel: pl.Expr, min_rel: float, max_rel: float, unjudged: float = 0.0) -> pl.Expr:
    """cwl_eval's gain: (clip(max(rel, 0), min_rel, max_rel) − min_rel) / (max_rel − min_rel),
    ``unjudged`` when unjudged (0; 1 in cwl_eval's best case)."""
    r = pl.max_horizontal(rel.cast(pl.Float64), pl.lit(0.0))
    clipped = pl.min_horizontal(pl.max_horizontal(r, pl.lit(float(min_rel))), pl.lit(float(max_rel)))
    return pl.when(rel.is_null()).then(float(unjudged)).otherwise((clipped - min_rel) / (max_rel - min_rel))


def cwl_gain_step(rel: pl.Expr, min_rel: float, max_rel: float, unjudged: float) -> pl.Expr:
    """The gain."""
    return cwl_gain(rel, min_rel, max_rel, unjudged)


def _cwl_log(g: pl.Expr) -> pl.Expr:
    return pl.when(g < 1.0).then((1.0 - g).log()).otherwise(0.0)


def cwl_log_step(rel: pl.Expr, min_rel: float, max_rel: float, unjudged: float) -> pl.Expr:
    """ln(1 − g), 0 where g = 1."""
    return _cwl_log(cwl_gain(rel, min_rel, max_rel, unjudged))


def cwl_zero_step(rel: pl.Expr, min_rel: float, max_rel: float, unjudged: float) -> pl.Expr:
    """1 where g = 1."""
    return (cwl_gain(rel, min_rel, max_rel, unjudged) >= 1.0).cast(pl.Int64)


def cwl_discount(rnk: pl.Expr, shape: str, a: float, depth: int) -> pl.Expr:
    """The rank's discount d(i) of a C/W/L model, 0 beyond ``depth``: 'geometric' a^(i − 1);
    'insq' (2a / (i − 1 + 2a))²; 'cutoff' [i ≤ a]; 'cutoff_recip' [i ≤ a] / i; 'log2'
    [i ≤ a] / log2(i + 1); 'linear' max(0, 1 − (i − 1) / a) before the last rank (U-measure)."""
    i = rnk.cast(pl.Float64)
    inside = i <= a
    if shape == "geometric":
        d = pl.lit(a).pow(i - 1.0)
    elif shape == "insq":
        d = (2.0 * a / (i - 1.0 + 2.0 * a)).pow(2.0)
    elif shape == "cutoff":
        d = pl.when(inside).then(1.0).otherwise(0.0)
    elif shape == "cutoff_recip":
        d = pl.when(inside).then(1.0 / i).otherwise(0.0)
    elif shape == "log2":
        d = pl.when(inside).then(1.0 / (i + 1.0).log(2)).otherwise(0.0)
    elif shape == "linear":
        d = pl.when(i < depth).then(pl.max_horizontal(pl.lit(0.0), 1.0 - (i - 1.0) / a)).otherwise(0.0)
    else:
        raise ValueError(f"unknown C/W/L discount shape {shape!r}")
    return pl.when(rnk <= depth).then(d).otherwise(0.0)


def cwl_reach(rel: pl.Expr, cumlog: pl.Expr, cumzero: pl.Expr, survival: str,
              min_rel: float, max_rel: float, unjudged: float) -> pl.Expr:
    """S_i, the survival of the gains above the row: 'none' 1; 'product' Π_{j<i} (1 − g_j)
    (0 once a factor is 0; else from the running log, this row's own step taken out)."""
    g = cwl_gain(rel, min_rel, max_rel, unjudged)
    if survival == "none":
        return pl.lit(1.0)
    if survival == "product":
        zeros_above = cumzero - (g >= 1.0).cast(pl.Int64)
        return pl.when(zeros_above > 0).then(0.0).otherwise((cumlog - _cwl_log(g)).exp())
    raise ValueError(f"unknown C/W/L survival {survival!r}")


def cwl_utility(rel: pl.Expr, rnk: pl.Expr, cumlog: pl.Expr, cumzero: pl.Expr, shape: str,
                a: float, survival: str, min_rel: float, max_rel: float, unjudged: float, depth: int) -> pl.Expr:
    """Σ d(i) · S_i · g_i."""
    reach = cwl_reach(rel, cumlog, cumzero, survival, min_rel, max_rel, unjudged)
    return (cwl_discount(rnk, shape, a, depth) * reach * cwl_gain(rel, min_rel, max_rel, unjudged)).sum()


def cwl_weight(cost: pl.Expr, costed: bool) -> pl.Expr:
    """The weight of an Examined sum's row: its cost (``costed``), else 1."""
    return cost if costed else pl.lit(1.0)


def cwl_examined(rel: pl.Expr, rnk: pl.Expr, cost: pl.Expr, cumlog: pl.Expr, cumzero: pl.Expr, shape: str,
                 a: float, survival: str, min_rel: float, max_rel: float, unjudged: float, depth: int,
                 costed: bool) -> pl.Expr:
    """Σ d(i) · S_i (· c_i, ``costed``)."""
    reach = cwl_reach(rel, cumlog, cumzero, survival, min_rel, max_rel, unjudged)
    return (cwl_discount(rnk, shape, a, depth) * reach * cwl_weight(cost, costed)).sum()


def cost_above(cost: pl.Expr, rnk: pl.Expr, qid: pl.Expr) -> pl.Expr:
    """K_{i−1}, the costs of the rows ranked above (a window over the query's rows)."""
    return cost.cum_sum().shift(1, fill_value=0.0).over(qid, order_by=rnk)


def _cwl_cost_discount(rnk: pl.Expr, above: pl.Expr, shape: str, a: float, depth: int) -> pl.Expr:
    """d(1 + K_{i−1}), 0 beyond depth: 'geometric' a^K; 'linear' max(0, 1 − K / a) before the
    last rank."""
    if shape == "geometric":
        d = pl.lit(a).pow(above)
    elif shape == "linear":
        d = pl.when(rnk < depth).then(pl.max_horizontal(pl.lit(0.0), 1.0 - above / a)).otherwise(0.0)
    else:
        raise ValueError(f"unknown C/W/L cost discount shape {shape!r}")
    return pl.when(rnk <= depth).then(d).otherwise(0.0)


def cwl_cost_utility(rel: pl.Expr, rnk: pl.Expr, above: pl.Expr, shape: str, a: float, min_rel: float,
                     max_rel: float, unjudged: float, depth: int) -> pl.Expr:
    """Σ d(1 + K_{i−1}) · g_i."""
    return (_cwl_cost_discount(rnk, above, shape, a, depth) * cwl_gain(rel, min_rel, max_rel, unjudged)).sum()


def cwl_cost_examined(rel: pl.Expr, rnk: pl.Expr, cost: pl.Expr, above: pl.Expr, shape: str, a: float,
                      min_rel: float, max_rel: float, unjudged: float, depth: int, costed: bool) -> pl.Expr:
    """Σ d(1 + K_{i−1}) (· c_i, ``costed``)."""
    return (_cwl_cost_discount(rnk, above, shape, a, depth) * cwl_weight(cost, costed)).sum()


def cwl_cost_tail(rnk: pl.Expr, cost: pl.Expr, shape: str, a: float, depth: int) -> pl.Expr:
    """Σ over the padded ranks m < i ≤ depth (cost 1 each) of d(1 + K_m + i − 1 − m)."""
    inside = rnk <= depth
    m = inside.sum().cast(pl.Float64)
    k = pl.when(inside).then(cost).otherwise(0.0).sum()
    if shape == "geometric":
        if a == 1.0:
            return depth - m
        return pl.lit(a).pow(k) * (1.0 - pl.lit(a).pow(depth - m)) / (1.0 - a)
    if shape == "linear":
        j = pl.min_horizontal(
            pl.max_horizontal((a - k).ceil(), pl.lit(0.0)), pl.max_horizontal(depth - m - 1.0, pl.lit(0.0))
        )
        # no padded rank (j = 0) sums to 0, also where k / a overflows (a tiny L: 0 · inf)
        return pl.when(j > 0).then(j * (1.0 - k / a) - j * (j - 1.0) / (2.0 * a)).otherwise(0.0)
    raise ValueError(f"unknown C/W/L cost discount shape {shape!r}")


def cwl_discounted(rnk: pl.Expr, shape: str, a: float, depth: int) -> pl.Expr:
    """Σ d(i) over the ranked rows."""
    return cwl_discount(rnk, shape, a, depth).sum()


def cwl_next_discount(rnk: pl.Expr, shape: str, a: float, depth: int) -> pl.Expr:
    """d(m + 1), m the ranked rows at rank ≤ depth."""
    m = (rnk <= depth).sum().cast(pl.Int64)
    return cwl_discount(m + 1, shape, a, depth)


def cwl_survival(rel: pl.Expr, rnk: pl.Expr, survival: str, min_rel: float, max_rel: float,
                 unjudged: float, depth: int) -> pl.Expr:
    """S after the rows at rank ≤ depth."""
    g = pl.when(rnk <= depth).then(cwl_gain(rel, min_rel, max_rel, unjudged)).otherwise(0.0)
    if survival == "none":
        return pl.lit(1.0)
    if survival == "product":
        return pl.when((g >= 1.0).any()).then(0.0).otherwise(_cwl_log(g).sum().exp())
    raise ValueError(f"unknown C/W/L survival {survival!r}")


def cwl_cost_total(rnk: pl.Expr, cost: pl.Expr, depth: int) -> pl.Expr:
    """Σ_{i≤depth} c_i."""
    return pl.when(rnk <= depth).then(cost).otherwise(0.0).sum()


def cwl_gain_total(rel: pl.Expr, rnk: pl.Expr, min_rel: float, max_rel: float, unjudged: float,
                   depth: int) -> pl.Expr:
    """Σ_{i≤depth} g_i."""
    return pl.when(rnk <= depth).then(cwl_gain(rel, min_rel, max_rel, unjudged)).otherwise(0.0).sum()


def _after(rel: pl.Expr, rnk: pl.Expr, min_rel: float, max_rel: float, unjudged: float,
           depth: int) -> tuple[pl.Expr, pl.Expr]:
    """(m, G_m): the ranked rows at rank ≤ depth and their gain."""
    inside = rnk <= depth
    total = pl.when(inside).then(cwl_gain(rel, min_rel, max_rel, unjudged)).otherwise(0.0).sum()
    return inside.sum().cast(pl.Float64), total


# INST: a continuation of the running gain (its running log sums a step of the running gain)


def _inst_continue(rnk: pl.Expr, cumgain: pl.Expr, target: float) -> pl.Expr:
    """C_i = ((i + 2T − G_i − 1) / (i + 2T − G_i))², as cwl_eval writes it."""
    x = rnk.cast(pl.Float64) + target + (target - cumgain)
    return ((x - 1.0) / x).pow(2.0)


def inst_log_step(rnk: pl.Expr, cumgain: pl.Expr, target: float) -> pl.Expr:
    """ln C_i, 0 where C_i = 0."""
    c = _inst_continue(rnk, cumgain, target)
    return pl.when(c > 0.0).then(c.log()).otherwise(0.0)


def inst_zero_step(rnk: pl.Expr, cumgain: pl.Expr, target: float) -> pl.Expr:
    """1 where C_i = 0."""
    return (_inst_continue(rnk, cumgain, target) <= 0.0).cast(pl.Int64)


def _inst_reach(rnk: pl.Expr, cumgain: pl.Expr, cumlog: pl.Expr, cumzero: pl.Expr, target: float) -> pl.Expr:
    """P_i = Π_{j<i} C_j: 0 once a factor is 0, else from the running log without the row's own."""
    zeros_above = cumzero - inst_zero_step(rnk, cumgain, target)
    return pl.when(zeros_above > 0).then(0.0).otherwise((cumlog - inst_log_step(rnk, cumgain, target)).exp())


def inst_utility(rel: pl.Expr, rnk: pl.Expr, cumgain: pl.Expr, cumlog: pl.Expr, cumzero: pl.Expr, target: float,
                 min_rel: float, max_rel: float, unjudged: float, depth: int) -> pl.Expr:
    """Σ_{i≤depth} P_i · g_i."""
    term = _inst_reach(rnk, cumgain, cumlog, cumzero, target) * cwl_gain(rel, min_rel, max_rel, unjudged)
    return pl.when(rnk <= depth).then(term).otherwise(0.0).sum()


def inst_examined(rel: pl.Expr, rnk: pl.Expr, cost: pl.Expr, cumgain: pl.Expr, cumlog: pl.Expr, cumzero: pl.Expr,
                  target: float, min_rel: float, max_rel: float, unjudged: float, depth: int,
                  costed: bool) -> pl.Expr:
    """Σ_{i≤depth} P_i (· c_i, ``costed``)."""
    term = _inst_reach(rnk, cumgain, cumlog, cumzero, target) * cwl_weight(cost, costed)
    return pl.when(rnk <= depth).then(term).otherwise(0.0).sum()


TRIGAMMA_SHIFT = 10
"""ψ1(x) = Σ_{k<10} 1/(x + k)² + ψ1(x + 10), the last by its asymptotic series (x > 0: the
series' first omitted term is below 1e-15 of the value)."""


def trigamma(x: pl.Expr) -> pl.Expr:
    """ψ1(x) = Σ_{t≥0} 1/(x + t)² for x > 0."""
    head = pl.sum_horizontal([1.0 / (x + float(k)).pow(2.0) for k in range(TRIGAMMA_SHIFT)])
    y = x + float(TRIGAMMA_SHIFT)
    z = 1.0 / (y * y)
    # 1/y + 1/(2y²) + 1/(6y³) − 1/(30y⁵) + 1/(42y⁷) − 1/(30y⁹) + 5/(66y¹¹) − 691/(2730y¹³)
    series = 1.0 / 6 + z * (-1.0 / 30 + z * (1.0 / 42 + z * (-1.0 / 30 + z * (5.0 / 66 + z * (-691.0 / 2730)))))
    return head + 1.0 / y + 1.0 / (2.0 * y * y) + series / (y * y * y)


def _inst_after(rel: pl.Expr, rnk: pl.Expr, cumgain: pl.Expr, target: float, min_rel: float, max_rel: float,
                unjudged: float, depth: int) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """(P_{m+1}, m + a, depth + a) over the rows at rank ≤ depth, a = 2T − G_m."""
    inside = rnk <= depth
    zeros = pl.when(inside).then(inst_zero_step(rnk, cumgain, target)).otherwise(0).sum()
    logs = pl.when(inside).then(inst_log_step(rnk, cumgain, target)).otherwise(0.0).sum()
    reach = pl.when(zeros > 0).then(0.0).otherwise(logs.exp())
    m, total = _after(rel, rnk, min_rel, max_rel, unjudged, depth)
    a = 2.0 * target - total
    return reach, m + a, float(depth) + a


def inst_tail(rel: pl.Expr, rnk: pl.Expr, cumgain: pl.Expr, target: float, min_rel: float, max_rel: float,
              unjudged: float, depth: int) -> pl.Expr:
    """Σ_{m<i≤depth} P_i: P_{m+1} · (m + a)² · (ψ1(m + a) − ψ1(depth + a)) (padding of gain 0);
    P_{m+1} · (1 − c^(depth − m)) / (1 − c), c = ((m + a − 1) / (m + a))² (gain 1)."""
    reach, start, stop = _inst_after(rel, rnk, cumgain, target, min_rel, max_rel, unjudged, depth)
    if unjudged == 0.0:
        return reach * start.pow(2.0) * (trigamma(start) - trigamma(stop))
    c = ((start - 1.0) / start).pow(2.0)
    n = stop - start
    return reach * pl.when(c == 1.0).then(n).otherwise((1.0 - c.pow(n)) / (1.0 - c))


def inst_end(rel: pl.Expr, rnk: pl.Expr, cumgain: pl.Expr, target: float, min_rel: float, max_rel: float,
             unjudged: float, depth: int) -> pl.Expr:
    """P_{depth+1}: P_{m+1} · ((m + a) / (depth + a))² (padding of gain 0); P_{m+1} · c^(depth − m)
    (gain 1)."""
    reach, start, stop = _inst_after(rel, rnk, cumgain, target, min_rel, max_rel, unjudged, depth)
    if unjudged == 0.0:
        return reach * (start / stop).pow(2.0)
    return reach * ((start - 1.0) / start).pow(2.0).pow(stop - start)


# BPM: the user goes on while G_i < T_i = T + hb · (G_{i−1} − (i − 1) · gain_med) and i < k


def bpm_fail_step(rel: pl.Expr, rnk: pl.Expr, cumgain: pl.Expr, target: float, hb: float, gain_med: float,
                  min_rel: float, max_rel: float, unjudged: float) -> pl.Expr:
    """1 where G_i ≥ T_i."""
    before = cumgain - cwl_gain(rel, min_rel, max_rel, unjudged)
    wanted = target + hb * (before - (rnk.cast(pl.Float64) - 1.0) * gain_med)
    return (cumgain >= wanted).cast(pl.Int64)


def _bpm_reach(rel: pl.Expr, rnk: pl.Expr, cumgain: pl.Expr, cumfail: pl.Expr, above: pl.Expr, target: float, hb: float,
               gain_med: float, k: int, min_rel: float, max_rel: float, unjudged: float, depth: int) -> pl.Expr:
    """P_i = [K_{i−1} < k] · [no failure above] (0 beyond depth; K_{i−1} the costs above, i − 1
    when each costs 1)."""
    failed_above = cumfail - bpm_fail_step(rel, rnk, cumgain, target, hb, gain_med, min_rel, max_rel, unjudged)
    return pl.when((above < k) & (rnk <= depth) & (failed_above == 0)).then(1.0).otherwise(0.0)


def bpm_utility(rel: pl.Expr, rnk: pl.Expr, cumgain: pl.Expr, cumfail: pl.Expr, above: pl.Expr, target: float, hb: float,
                gain_med: float, k: int, min_rel: float, max_rel: float, unjudged: float, depth: int) -> pl.Expr:
    """Σ_{i≤depth} P_i · g_i."""
    reach = _bpm_reach(rel, rnk, cumgain, cumfail, above, target, hb, gain_med, k, min_rel, max_rel, unjudged, depth)
    return (reach * cwl_gain(rel, min_rel, max_rel, unjudged)).sum()


def bpm_examined(rel: pl.Expr, rnk: pl.Expr, cost: pl.Expr, cumgain: pl.Expr, cumfail: pl.Expr, above: pl.Expr,
                 target: float,
                 hb: float, gain_med: float, k: int, min_rel: float, max_rel: float, unjudged: float, depth: int,
                 costed: bool) -> pl.Expr:
    """Σ_{i≤depth} P_i (· c_i, ``costed``)."""
    reach = _bpm_reach(rel, rnk, cumgain, cumfail, above, target, hb, gain_med, k, min_rel, max_rel, unjudged, depth)
    return (reach * cwl_weight(cost, costed)).sum()


def _bpm_after(rel: pl.Expr, rnk: pl.Expr, cumgain: pl.Expr, target: float, hb: float, gain_med: float,
               min_rel: float, max_rel: float, unjudged: float, depth: int) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """(S, m, j*) over the rows at rank ≤ depth: S = 1 when none failed, m their number, j* the
    first failing rank of the padding (gain u = ``unjudged`` there, G_i = G_m + (i − m) · u:
    fails where β · (i − 1) + α ≥ 0, β = u · (1 − hb) + hb · gain_med, α = (1 − hb) · (G_m − m · u)
    + u − T; when β ≤ 0, at m + 1 if it fails there, else never)."""
    inside = rnk <= depth
    fails = pl.when(inside).then(bpm_fail_step(rel, rnk, cumgain, target, hb, gain_med, min_rel, max_rel, unjudged))
    survive = pl.when(fails.otherwise(0).sum() == 0).then(1.0).otherwise(0.0)
    m, total = _after(rel, rnk, min_rel, max_rel, unjudged, depth)
    first = m + 1.0
    u = float(unjudged)
    # rank m + 1 as cwl_eval tests it: G_{m+1} ≥ T + hb · (G_m − m · gain_med)
    fails_first = total + u >= target + hb * (total - m * gain_med)
    rate = u * (1.0 - hb) + hb * gain_med
    if rate > 0:
        alpha = (1.0 - hb) * (total - m * u) + u - target
        at = (-alpha / rate).ceil() + 1.0
        j = pl.max_horizontal(first, at)
    else:
        j = pl.when(fails_first).then(first).otherwise(pl.lit(math.inf))
    return survive, m, j


def _bpm_last(rnk: pl.Expr, cost: pl.Expr, m: pl.Expr, k: int, depth: int) -> pl.Expr:
    """The last padded rank the budget reaches, m + ⌈k − K_m⌉ (K_m the costs of the rows at rank
    ≤ depth; each padded document costs 1: k when every document costs 1)."""
    spent = pl.when(rnk <= depth).then(cost).otherwise(0.0).sum()
    return m + (k - spent).ceil()


def bpm_tail(rel: pl.Expr, rnk: pl.Expr, cost: pl.Expr, cumgain: pl.Expr, target: float, hb: float,
             gain_med: float, k: int, min_rel: float, max_rel: float, unjudged: float, depth: int) -> pl.Expr:
    """Σ_{m<i≤depth} P_i = S · max(0, min(depth, m + ⌈k − K_m⌉, j*) − m)."""
    survive, m, j = _bpm_after(rel, rnk, cumgain, target, hb, gain_med, min_rel, max_rel, unjudged, depth)
    last = pl.min_horizontal(pl.lit(float(depth)), _bpm_last(rnk, cost, m, k, depth), j)
    return survive * pl.max_horizontal(pl.lit(0.0), last - m)


def bpm_end(rel: pl.Expr, rnk: pl.Expr, cost: pl.Expr, cumgain: pl.Expr, target: float, hb: float,
            gain_med: float, k: int, min_rel: float, max_rel: float, unjudged: float, depth: int) -> pl.Expr:
    """P_{depth+1} = S · [depth < m + ⌈k − K_m⌉] · [depth + 1 ≤ j*]."""
    survive, m, j = _bpm_after(rel, rnk, cumgain, target, hb, gain_med, min_rel, max_rel, unjudged, depth)
    reached = (_bpm_last(rnk, cost, m, k, depth) > depth) & (j >= depth + 1.0)
    return survive * pl.when(reached).then(1.0).otherwise(0.0)


# IFT: C_i = C1_i · C2_i of the running gain G and the running cost K, ln C as −softplus


def cost_step(cost: pl.Expr) -> pl.Expr:
    """c_i, the row's cost (summed: the running cost K_i)."""
    return cost


def _softplus(z: pl.Expr) -> pl.Expr:
    """ln(1 + e^z), without overflow."""
    return pl.max_horizontal(z, pl.lit(0.0)) + (1.0 + (-z.abs()).exp()).log()


def _refuse_undefined(s: pl.Series) -> pl.Series:
    if s.is_nan().any():
        raise InvalidValueError(IFT_UNDEFINED_RATE)
    return s


def _defined(logs: pl.Expr) -> pl.Expr:
    """``logs``, or the error :data:`~rankwise.primitives.IFT_UNDEFINED_RATE` where one is NaN
    (IFT's rate G / K at a zero running cost with G = 0, or with R2 = 0)."""
    return logs.map_batches(_refuse_undefined, return_dtype=pl.Float64, is_elementwise=True)


def _ift_log(cumcost: pl.Expr, cumgain: pl.Expr, goal: bool, rate: bool, target: float, b1: float, r1: float,
             rate_a: float, b2: float, r2: float) -> pl.Expr:
    """ln C: ln C1 = −softplus(−(T − G) · R1 − ln b1), ln C2 = −softplus((A − G / K) · R2 + ln b2)
    (K = 0: G / K = +∞ and ln C2 = 0 when G > 0 and R2 > 0, NaN when G = 0 or R2 = 0)."""
    out = pl.lit(0.0)
    if goal:
        out = out - _softplus(-(target - cumgain) * r1 - math.log(b1))
    if rate:
        out = out - _softplus((rate_a - cumgain / cumcost.cast(pl.Float64)) * r2 + math.log(b2))
    return out


def ift_log_step(cumcost: pl.Expr, cumgain: pl.Expr, goal: bool, rate: bool, target: float, b1: float, r1: float,
                 rate_a: float, b2: float, r2: float) -> pl.Expr:
    """ln C_i."""
    return _ift_log(cumcost, cumgain, goal, rate, target, b1, r1, rate_a, b2, r2)


def _ift_reach(cumcost: pl.Expr, cumgain: pl.Expr, cumlog: pl.Expr, goal: bool, rate: bool, target: float,
               b1: float, r1: float, rate_a: float, b2: float, r2: float) -> pl.Expr:
    """P_i = exp(Σ_{j<i} ln C_j)."""
    return (_defined(cumlog) - _ift_log(cumcost, cumgain, goal, rate, target, b1, r1, rate_a, b2, r2)).exp()


def ift_utility(rel: pl.Expr, rnk: pl.Expr, cumgain: pl.Expr, cumcost: pl.Expr, cumlog: pl.Expr, goal: bool,
                rate: bool, target: float, b1: float, r1: float, rate_a: float, b2: float, r2: float,
                min_rel: float, max_rel: float, unjudged: float, depth: int) -> pl.Expr:
    """Σ_{i≤depth} P_i · g_i."""
    reach = _ift_reach(cumcost, cumgain, cumlog, goal, rate, target, b1, r1, rate_a, b2, r2)
    return pl.when(rnk <= depth).then(reach * cwl_gain(rel, min_rel, max_rel, unjudged)).otherwise(0.0).sum()


def ift_examined(rel: pl.Expr, rnk: pl.Expr, cost: pl.Expr, cumgain: pl.Expr, cumcost: pl.Expr, cumlog: pl.Expr,
                 goal: bool, rate: bool, target: float, b1: float, r1: float, rate_a: float, b2: float, r2: float,
                 min_rel: float, max_rel: float, unjudged: float, depth: int, costed: bool) -> pl.Expr:
    """Σ_{i≤depth} P_i (· c_i, ``costed``)."""
    reach = _ift_reach(cumcost, cumgain, cumlog, goal, rate, target, b1, r1, rate_a, b2, r2)
    return pl.when(rnk <= depth).then(reach * cwl_weight(cost, costed)).otherwise(0.0).sum()


def _ift_stop(cumcost: pl.Expr, cumgain: pl.Expr, goal: bool, rate: bool, target: float, b1: float, r1: float,
              rate_a: float, b2: float, r2: float) -> pl.Expr:
    """1 − C, without subtracting from 1 (C near 1 would lose its digits): 1 − C1 = e^−softplus(z1)
    where ln C1 = −softplus(−z1), 1 − C2 likewise, and 1 − C1 · C2 = (1 − C1) + C1 · (1 − C2), a
    sum of nonnegative terms (K = 0: 1 − C2 = 0 where C2 = 1; where the rate is undefined ln C is
    refused)."""
    stop1, keep1 = pl.lit(0.0), pl.lit(1.0)
    if goal:
        z1 = (target - cumgain) * r1 + math.log(b1)
        stop1, keep1 = (-_softplus(z1)).exp(), (-_softplus(-z1)).exp()
    stop2 = pl.lit(0.0)
    if rate:
        z2 = (rate_a - cumgain / cumcost.cast(pl.Float64)) * r2 + math.log(b2)
        stop2 = pl.when(cumcost > 0.0).then((-_softplus(-z2)).exp()).otherwise(0.0)
    return stop1 + keep1 * stop2


def ift_total(rel: pl.Expr, rnk: pl.Expr, cost: pl.Expr, cumgain: pl.Expr, cumcost: pl.Expr, cumlog: pl.Expr,
              goal: bool, rate: bool, target: float, b1: float, r1: float, rate_a: float, b2: float, r2: float,
              min_rel: float, max_rel: float, unjudged: float, depth: int, costed: bool) -> pl.Expr:
    """Σ_{i≤depth} P_i · (1 − C_i) · G_i (K_i, ``costed``) over the ranked rows and the padding."""
    reach = _ift_reach(cumcost, cumgain, cumlog, goal, rate, target, b1, r1, rate_a, b2, r2)
    stop = _ift_stop(cumcost, cumgain, goal, rate, target, b1, r1, rate_a, b2, r2)
    weight = cumcost.cast(pl.Float64) if costed else cumgain
    rows = pl.when(rnk <= depth).then(reach * stop * weight).otherwise(0.0).sum()
    start, pad, running, spent, total = _ift_padding(rel, rnk, cost, cumgain, cumcost, goal, rate, target, b1,
                                                     r1, rate_a, b2, r2, min_rel, max_rel, unjudged, depth)
    padded = _ift_stop(spent, total, goal, rate, target, b1, r1, rate_a, b2, r2) * (spent if costed else total)
    return rows + start * ((running - pad).exp() * padded).sum()


def _ift_padding(rel: pl.Expr, rnk: pl.Expr, cost: pl.Expr, cumgain: pl.Expr, cumcost: pl.Expr, goal: bool,
                 rate: bool, target: float, b1: float, r1: float, rate_a: float, b2: float, r2: float,
                 min_rel: float, max_rel: float, unjudged: float,
                 depth: int) -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    """(P_{m+1}, then over the padded ranks i = m + 1 .. depth: ln C_i, its running sum, K_i and G_i,
    where G_i = G_m + (i − m) · u, K_i = K_m + i − m, each padded document costing 1)."""
    inside = rnk <= depth
    logs = pl.when(inside).then(_ift_log(cumcost, cumgain, goal, rate, target, b1, r1, rate_a, b2, r2))
    reach = _defined(logs.otherwise(0.0)).sum().exp()
    m, total = _after(rel, rnk, min_rel, max_rel, unjudged, depth)
    spent = pl.when(inside).then(cost.cast(pl.Float64)).otherwise(0.0).sum()
    i = pl.int_range(m.cast(pl.Int64) + 1, depth + 1, dtype=pl.Int64)
    after = i.cast(pl.Float64) - m
    costs, gains = spent + after, total + after * float(unjudged)
    pad = _ift_log(costs, gains, goal, rate, target, b1, r1, rate_a, b2, r2)
    return reach, pad, pad.cum_sum(), costs, gains


def ift_tail(rel: pl.Expr, rnk: pl.Expr, cost: pl.Expr, cumgain: pl.Expr, cumcost: pl.Expr, goal: bool, rate: bool, target: float,
             b1: float, r1: float, rate_a: float, b2: float, r2: float, min_rel: float, max_rel: float,
             unjudged: float, depth: int) -> pl.Expr:
    """Σ_{m<i≤depth} P_i = P_{m+1} · Σ_i exp(Σ_{m<j<i} ln C_j)."""
    reach, pad, running, _, _ = _ift_padding(rel, rnk, cost, cumgain, cumcost, goal, rate, target, b1,
                                             r1, rate_a, b2, r2, min_rel, max_rel, unjudged, depth)
    return reach * (running - pad).exp().sum()


# -- diversity (intent-aware) primitives: aggregates over (document, subtopic) pairs -----------
# ``t`` is the relevance threshold that chose the pairs (the engine's); the functions do not
# read it.


def _intent_weight(rnk: pl.Expr, weight: str, beta: float) -> pl.Expr:
    """The rank weight of an intent gain: 1 / log2(rank + 1), 1 / rank or beta^(rank − 1)."""
    i = rnk.cast(pl.Float64)
    if weight == "log2":
        return 1.0 / (i + 1.0).log(2)
    if weight == "rank":
        return 1.0 / i
    return pl.lit(beta, pl.Float64).pow(i - 1.0)


def intent_gain(
    rnk: pl.Expr, cov: pl.Expr, t: float, k: int | None, alpha: float, weight: str, beta: float
) -> pl.Expr:
    """Σ over pairs at rank ≤ k of (1 − alpha)^cov · w(rank)."""
    novelty = pl.lit(1.0 - alpha, pl.Float64).pow(cov.cast(pl.Float64))
    return pl.when(within(rnk, k)).then(novelty * _intent_weight(rnk, weight, beta)).otherwise(0.0).sum()


def ideal_intent_gain(
    rnk: pl.Expr, cov: pl.Expr, t: float, k: int | None, alpha: float, weight: str, beta: float
) -> pl.Expr:
    """:func:`intent_gain` over the greedy ideal's pairs."""
    return intent_gain(rnk, cov, t, k, alpha, weight, beta)


def intent_hits(rnk: pl.Expr, t: float, k: int | None) -> pl.Expr:
    """Number of pairs at rank ≤ k."""
    return within(rnk, k).cast(pl.Float64).sum()


def intent_new(rnk: pl.Expr, cov: pl.Expr, t: float, k: int | None) -> pl.Expr:
    """Number of subtopics first covered at rank ≤ k."""
    return (within(rnk, k) & (cov == 0)).cast(pl.Float64).sum()


def intent_ap_sum(rnk: pl.Expr, cov: pl.Expr, nsub: pl.Expr, t: float) -> pl.Expr:
    """Σ over pairs of (cov + 1) / (rank · nsub)."""
    return ((cov.cast(pl.Float64) + 1.0) / (rnk.cast(pl.Float64) * nsub.cast(pl.Float64))).sum()


def subtopics(sub: pl.Expr, t: float) -> pl.Expr:
    """Number of distinct subtopics among the relevant judgments."""
    return sub.n_unique().cast(pl.Float64)


# -- the set-level primitives (rankwise.primitives.sets): aggregates over an exposure table ----
def items_listed(expo: pl.Expr, incat: pl.Expr) -> pl.Expr:
    """The listed items in the catalog (every listed item for ``within='listed'``)."""
    return incat.cast(pl.Float64).sum()


def catalog_items(ncat: pl.Expr) -> pl.Expr:
    """The catalog's items."""
    return ncat.first().cast(pl.Float64)


def exposure_gini(expo: pl.Expr, pos: pl.Expr, incat: pl.Expr, ncat: pl.Expr) -> pl.Expr:
    """(2 Σ pos·expo + (n − 2m − 1) Σ expo) / (n Σ expo), n = the catalog's items and the listed
    ones outside it, m the listed items; NULL over no listed item."""
    m = pl.len().cast(pl.Float64)
    n = ncat.first().cast(pl.Float64) + (~incat).cast(pl.Float64).sum()
    total = expo.sum()
    value = (2.0 * (pos.cast(pl.Float64) * expo).sum() + (n - 2.0 * m - 1.0) * total) / (n * total)
    return pl.when(total > 0).then(value).otherwise(None)


def elliot_gini(expo: pl.Expr, pos: pl.Expr, ncat: pl.Expr) -> pl.Expr:
    """1 − (2 Σ pos·expo + (n − 2m − 1) Σ expo) / ((n − 1) Σ expo), n the catalog's items, m the
    listed ones; NULL over no listed item or n ≤ 1."""
    m = pl.len().cast(pl.Float64)
    n = ncat.first().cast(pl.Float64)
    total = expo.sum()
    value = 1.0 - (2.0 * (pos.cast(pl.Float64) * expo).sum() + (n - 2.0 * m - 1.0) * total) / ((n - 1.0) * total)
    return pl.when((total > 0) & (n > 1.0)).then(value).otherwise(None)


def exposure_entropy(expo: pl.Expr, base: float) -> pl.Expr:
    """−Σ p log_base p, p = expo / Σ expo; NULL over no listed item."""
    total = expo.sum()
    value = (total.log() - (expo * expo.log()).sum() / total) / math.log(base)
    return pl.when(total > 0).then(value).otherwise(None)


def exposure_total(expo: pl.Expr) -> pl.Expr:
    """Σ expo."""
    return expo.sum().cast(pl.Float64)


def exposure_squares(expo: pl.Expr) -> pl.Expr:
    """Σ expo²."""
    return (expo * expo).sum().cast(pl.Float64)


def users_scored(nscored: pl.Expr) -> pl.Expr:
    """The users scored."""
    return nscored.first().cast(pl.Float64)


def elliot_entropy_sum(expo: pl.Expr, lists: pl.Expr) -> pl.Expr:
    """Σ expo · log2(Σ lists / lists)."""
    return (expo * (lists.sum().cast(pl.Float64) / lists).log(2)).sum().cast(pl.Float64)


def popularity_group_exposure(expo: pl.Expr, ingroup: pl.Expr) -> pl.Expr:
    """Σ expo over the items of the popularity group."""
    return pl.when(ingroup).then(expo).otherwise(0.0).sum().cast(pl.Float64)


def popularity_group_items(ngroup: pl.Expr) -> pl.Expr:
    """The popularity group's training items."""
    return ngroup.first().cast(pl.Float64)


def group_exposure_spread(expo: pl.Expr, gsize: pl.Expr, gmean: pl.Expr, combo: str) -> pl.Expr:
    """The spread (``combo``) of the groups' values v = expo / gsize."""
    v = expo / gsize
    lowest, highest = v.min(), v.max()
    spread = {
        "MinMaxRatio": pl.when(highest != 0).then(lowest / highest),
        "MaxMinRatio": pl.when(lowest != 0).then(highest / lowest),
        "MaxMinDiff": highest - lowest,
        "MaxAbsDiff": (v - gmean).abs().max(),
        "MeanAbsDev": (v - gmean).abs().mean(),
        "LTwo": (v * v).sum().sqrt(),
        "Variance": ((v - gmean) * (v - gmean)).mean(),
    }[combo]
    return spread.cast(pl.Float64)


def self_information_sum(expo: pl.Expr, irows: pl.Expr, nrows: pl.Expr) -> pl.Expr:
    """Σ expo · −log2(irows / nrows) over the items in training."""
    info = pl.when(irows > 0).then(-(irows.cast(pl.Float64) / nrows).log(2)).otherwise(0.0)
    return (expo * info).sum().cast(pl.Float64)
