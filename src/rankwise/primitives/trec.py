"""The primitives of trec_eval's measures and their kin (ERR, RBP, RBO, graded and rank-biased
measures): per-query aggregates over the ranked rows and over the judgments. Their SQL macros are
``sql/20_primitives.sql``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from rankwise.primitives.core import (
    Bound,
    Column,
    DcgStep,
    Gain,
    GainStep,
    IdealBoundaryAt,
    IdealBoundaryInvFrom,
    IdealDcgAt,
    IdealExcessAt,
    IdealGainAt,
    IdealRank,
    Input,
    LogContinueStep,
    NonrelStep,
    PooledStep,
    Primitive,
    QrelsPrimitive,
    RboStep,
    RboWeightBefore,
    RelChar,
    RelStep,
    TieDiscount,
    TieRel,
    TieRelAbove,
    TieSize,
    TieStart,
)


@dataclass(frozen=True, repr=False, eq=False)
class Count(Primitive):
    """Number of ranked documents: the deepest rank (ranks run 1, 2, ... down each query), read
    from the query's last ranked row, which the SQL's judged rows keep (``judged_rows``)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    order_free: ClassVar[bool] = True
    judged_rows: ClassVar[bool] = True


@dataclass(frozen=True, repr=False, eq=False)
class Relret(Primitive):
    """Number of documents with relevance ≥ t at rank ≤ k (k = None: all)."""

    judged_rows: ClassVar[bool] = True
    t: float
    k: int | None

    def expected(self) -> Primitive:
        return self if self.k is None else TieRelret(self.t, self.k)

    def expected_under(self, op: type[Bound]) -> Primitive | None:
        from rankwise.primitives.operations import Positive

        return TieSuccess(self.t, self.k) if op is Positive else None


@dataclass(frozen=True, repr=False, eq=False)
class DcgGain(Primitive):
    """Σ_{i≤k} g_i / discount(i) (DCG)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    judged_rows: ClassVar[bool] = True
    k: int | None
    g: Gain
    discount: str
    base: float

    def expected(self) -> Primitive:
        return TieDcg(self.k, self.g, self.discount, self.base)


@dataclass(frozen=True, repr=False, eq=False)
class TieDcg(Primitive):
    """Σ_i g_i · TieDiscount_i: DCG@k where tied documents share the mean discount of the
    ranks their group holds within k (a group across the cutoff counts in part)."""

    reads: ClassVar[tuple[Column, ...]] = ()
    order_free: ClassVar[bool] = True
    k: int | None
    g: Gain
    discount: str
    base: float

    def inputs(self) -> dict[str, Input]:
        return {"tdisc": TieDiscount(self.k, self.discount, self.base)}


# -- expected values over all orders of the tied documents (ties='expected') -------------------
# A tie group of m rows (r of them relevant, R_above relevant rows ranked above it) holds the
# ranks s + 1 .. s + m whatever order breaks the tie; each order equally likely, every row of
# the group is at each of those ranks with probability 1/m (McSherry & Najork 2008). A sum of
# w(rank) · f(document) therefore has the expected value Σ_rows w(rank) · mean over the group
# of f, a sum over the rows at their own ranks; the first relevant rank is hypergeometric.
# Per row they read its group's m (TieSize), r (TieRel), s + 1 (TieStart) and R_above (TieRelAbove).


@dataclass(frozen=True, repr=False, eq=False)
class TieRelret(Primitive):
    """E[relevant documents at rank ≤ k] = Σ_{rank ≤ k} r / m (TRM's E[Hits@k], Yang et al.
    2026, eq. 9)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    order_free: ClassVar[bool] = True
    t: float
    k: int | None

    def inputs(self) -> dict[str, Input]:
        return {"tsize": TieSize(), "trel": TieRel(self.t)}


@dataclass(frozen=True, repr=False, eq=False)
class TieCg(Primitive):
    """E[Σ_{i≤k} g_i] = Σ_rows g · (the share of its group's ranks within k)."""

    reads: ClassVar[tuple[Column, ...]] = ()
    order_free: ClassVar[bool] = True
    k: int | None
    g: Gain

    def inputs(self) -> dict[str, Input]:
        return {"tsize": TieSize(), "tstart": TieStart()}


@dataclass(frozen=True, repr=False, eq=False)
class TieGroupLaw(Primitive):
    """A closed form over the tie groups of relevance >= ``t`` down to rank ``k``
    (``ties='expected'``): it reads each row's group size, relevant count, first rank and the
    relevant documents above the group."""

    abstract: ClassVar[bool] = True
    order_free: ClassVar[bool] = True
    t: float
    k: int | None

    def inputs(self) -> dict[str, Input]:
        return {"tsize": TieSize(), "trel": TieRel(self.t), "tstart": TieStart(), "tabove": TieRelAbove(self.t)}


@dataclass(frozen=True, repr=False, eq=False)
class TieApSum(TieGroupLaw):
    """E[AP's sum at k] = Σ_{rank i ≤ k} (r / m) · (R_above + 1 + (i − s − 1)(r − 1) / (m − 1)) / i:
    the rank holds a relevant document with probability r / m, and then the relevant documents
    at or above it are expected R_above + 1 + (i − s − 1)(r − 1)/(m − 1) (TRM, eq. 22-24)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)


@dataclass(frozen=True, repr=False, eq=False)
class TieRr(TieGroupLaw):
    """E[RR@k]: over the ranks i ≤ k of the first tie group holding a relevant document
    (R_above = 0, r > 0), P(the first relevant is at i) / i, that probability the hypergeometric
    C(m − x, r − 1) / C(m, r), x = i − s (McSherry & Najork 2008; TRM eq. 17-21)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)


@dataclass(frozen=True, repr=False, eq=False)
class TieSuccess(TieGroupLaw):
    """E[Success@k]: 1 − P(no relevant document at rank ≤ k) = 1 − C(m − c, r) / C(m, r) for
    the first tie group holding a relevant document, c = min(k − s, m) of its ranks within k
    (0 when it starts below k)."""

    reads: ClassVar[tuple[Column, ...]] = ()


@dataclass(frozen=True, repr=False, eq=False)
class CgGain(Primitive):
    """Σ_{i≤k} g_i (CG)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    judged_rows: ClassVar[bool] = True
    k: int | None
    g: Gain

    def expected(self) -> Primitive:
        return self if self.k is None else TieCg(self.k, self.g)


@dataclass(frozen=True, repr=False, eq=False)
class IdealDcgRun(Primitive):
    """DCG@k of the retrieved documents re-sorted by gain (the ideal taken from the run)."""

    reads: ClassVar[tuple[Column, ...]] = ()
    order_free: ClassVar[bool] = True
    k: int | None
    g: Gain
    discount: str
    base: float

    def inputs(self) -> dict[str, Input]:
        return {"irank": IdealRank(self.g)}


@dataclass(frozen=True, repr=False, eq=False)
class IdcgList(Primitive):
    """DCG@k of the ideal order cut at the ranked list's length: Σ over ranked rows i ≤ k of
    g*_i / discount(i), g* the ideal gains of all judgments (IDCG@min(k, n))."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    order_free: ClassVar[bool] = True
    k: int | None
    g: Gain
    discount: str
    base: float

    def inputs(self) -> dict[str, Input]:
        return {"igain": IdealGainAt(self.g)}


@dataclass(frozen=True, repr=False, eq=False)
class ApSum(Primitive):
    """Σ_{i≤k, rel_i≥t} relret(t, i) / i (AP's sum)."""

    judged_rows: ClassVar[bool] = True
    t: float
    k: int | None

    def expected(self) -> Primitive:
        return TieApSum(self.t, self.k)

    def inputs(self) -> dict[str, Input]:
        return {"cumrel": RelStep(self.t)}


@dataclass(frozen=True, repr=False, eq=False)
class FirstRel(Primitive):
    """Smallest rank ≤ k holding a document with relevance ≥ t (NULL when none)."""

    judged_rows: ClassVar[bool] = True
    empty: ClassVar[float | str | None] = None
    t: float
    k: int | None

    def expected_under(self, op: type[Bound]) -> Primitive | None:
        from rankwise.primitives.operations import Recip0

        return TieRr(self.t, self.k) if op is Recip0 else None


@dataclass(frozen=True, repr=False, eq=False)
class RelretAtNrel(Primitive):
    """Relevant documents at rank ≤ floor(x · R + 0.9), R = nrel(t) (x = 1: R-precision's
    depth R; trec_eval's Rprec_mult rounding)."""

    judged_rows: ClassVar[bool] = True
    t: float
    x: float

    def inputs(self) -> dict[str, Input]:
        return {"nrel": NRel(self.t)}


@dataclass(frozen=True, repr=False, eq=False)
class NonrelJudged(Primitive):
    """Ranked documents judged (relevance ≥ 0) with relevance < t."""

    reads: ClassVar[tuple[Column, ...]] = ("rel",)
    judged_rows: ClassVar[bool] = True
    t: float


@dataclass(frozen=True, repr=False, eq=False)
class Unjudged(Primitive):
    """Documents at rank ≤ k that are unjudged or judged negative (trec_eval's "in the pool
    but unjudged")."""

    k: int | None

    @property
    def top_rows(self) -> int | None:
        return self.k

    def expected(self) -> Primitive | None:
        return self if self.k is None else None


@dataclass(frozen=True, repr=False, eq=False)
class NotJudged(Primitive):
    """Documents at rank ≤ k with no judgment at all (absent from the qrels; a judgment of any
    value, negative ones included, counts as one: ir-measures' Judged)."""

    k: int | None

    @property
    def top_rows(self) -> int | None:
        return self.k

    def expected(self) -> Primitive | None:
        return self if self.k is None else None


@dataclass(frozen=True, repr=False, eq=False)
class BprefSum(Primitive):
    """Σ over relevant documents of 1 − min(n, R) / min(N, R) (1 when n = 0), n the judged
    non-relevant documents ranked above, N all judged non-relevant, R = nrel(t)."""

    reads: ClassVar[tuple[Column, ...]] = ("rel",)
    judged_rows: ClassVar[bool] = True
    t: float

    def inputs(self) -> dict[str, Input]:
        return {"cumnonrel": NonrelStep(self.t), "nrel": NRel(self.t), "nnonrel": Nonrel(self.t)}


@dataclass(frozen=True, repr=False, eq=False)
class Iprec(Primitive):
    """Interpolated precision at recall ``level``: the max precision at the ranks where at
    least floor(level · R + shift) relevant documents have been seen (0 when none); shift
    0.5 is trec_eval 10's lround(level · R), 0.9 trec_eval 9's rounding."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    judged_rows: ClassVar[bool] = True
    t: float
    level: float
    shift: float

    def inputs(self) -> dict[str, Input]:
        return {"cumrel": RelStep(self.t), "nrel": NRel(self.t)}


@dataclass(frozen=True, repr=False, eq=False)
class BingSum(Primitive):
    """Σ over relevant documents of 1 / log2(2 + n), n = non-relevant ranked above."""

    judged_rows: ClassVar[bool] = True
    t: float

    def inputs(self) -> dict[str, Input]:
        return {"cumrel": RelStep(self.t)}


@dataclass(frozen=True, repr=False, eq=False)
class NonrelAboveSum(Primitive):
    """Σ over relevant documents at rank i ≤ k of the non-relevant documents (unjudged
    included) ranked above: i − relret(t, i)."""

    judged_rows: ClassVar[bool] = True
    t: float
    k: int | None

    def inputs(self) -> dict[str, Input]:
        return {"cumrel": RelStep(self.t)}


@dataclass(frozen=True, repr=False, eq=False)
class InfapSum(Primitive):
    """Σ over relevant documents at rank i of (1 + X · (a + ε) / (a + n + 2ε)) / i, with a, n,
    u the relevant, judged non-relevant and pooled-but-unjudged (negative) documents above,
    X = a + n + u, ε = 1e-5 (Yilmaz & Aslam 2006, as trec_eval)."""

    judged_rows: ClassVar[bool] = True
    t: float

    def inputs(self) -> dict[str, Input]:
        return {"cumrel": RelStep(self.t), "cumnonrel": NonrelStep(self.t), "cumpooled": PooledStep()}


@dataclass(frozen=True, repr=False, eq=False)
class RankeffSum(Primitive):
    """Σ over relevant documents of 1 − n / N, n = judged non-relevant ranked above, N = all
    judged non-relevant (1 when N = 0)."""

    reads: ClassVar[tuple[Column, ...]] = ("rel",)
    judged_rows: ClassVar[bool] = True
    t: float

    def inputs(self) -> dict[str, Input]:
        return {"cumnonrel": NonrelStep(self.t), "nnonrel": Nonrel(self.t)}


@dataclass(frozen=True, repr=False, eq=False)
class RbpSum(Primitive):
    """Σ_{i≤k} over relevant documents (relevance ≥ t) of w · p^(i − 1), w = 1, or the
    relevance when ``graded``."""

    judged_rows: ClassVar[bool] = True
    t: float
    p: float
    k: int | None
    graded: bool


@dataclass(frozen=True, repr=False, eq=False)
class RboOverlapBefore(Primitive):
    """Σ over ranked documents of positive gain g of Σ_{d < max(i, i*)} p^(d − 1) / d, i the
    document's rank, i* its rank in the run-ordered ideal: for each document in both the run
    and the ideal, RBO's weights of the depths above the one where it joins their overlap
    (Compat's sum is K · Σ_{d≤D} p^(d − 1) / d minus this, K those documents)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    g: Gain
    p: float

    def inputs(self) -> dict[str, Input]:
        return {"crun": RboStep(self.p), "cideal": RboWeightBefore(self.g, self.p)}


@dataclass(frozen=True, repr=False, eq=False)
class RboWeights(Primitive):
    """Σ over ranked rows of p^(rnk − 1) / rnk: Σ_{d≤n} p^(d − 1) / d, n the ranked documents."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    p: float


@dataclass(frozen=True, repr=False, eq=False)
class ErrSum(Primitive):
    """Σ_{i≤k} R_i / i · Π_{j<i} (1 − R_j), R = (2^g − 1) / 2^max_rel, g = min(max(rel, 0),
    max_rel)."""

    judged_rows: ClassVar[bool] = True
    k: int | None
    max_rel: float

    def inputs(self) -> dict[str, Input]:
        return {"cumlog": LogContinueStep(self.max_rel)}


@dataclass(frozen=True, repr=False, eq=False)
class NposRet(Primitive):
    """Number of retrieved documents with gain > 0."""

    reads: ClassVar[tuple[Column, ...]] = ()
    judged_rows: ClassVar[bool] = True
    g: Gain


@dataclass(frozen=True, repr=False, eq=False)
class NdcgRelSum(Primitive):
    """Σ over retrieved documents of positive gain of DCG_i / IDCG_{min(i, npos)} (an unjudged
    document has no gain: it adds nothing, nor a step to the running DCG)."""

    reads: ClassVar[tuple[Column, ...]] = ()
    judged_rows: ClassVar[bool] = True
    g: Gain

    def inputs(self) -> dict[str, Input]:
        return {"cumdcg": DcgStep(self.g), "igd": IdealDcgAt(self.g), "idcg_total": IdcgPos(self.g)}


@dataclass(frozen=True, repr=False, eq=False)
class RndcgSum(Primitive):
    """Σ over the ideal ranks b that end a run of equal positive gains of DCG_min(b, n) / IDCG_b,
    n the ranked documents (trec_eval's Rndcg before its implied final level), summed as
    Σ over the ranked documents of their DCG step g_i / log2(i + 1) times Σ_{b ≥ i} 1 / IDCG_b
    (:class:`~rankwise.primitives.IdealBoundaryInvFrom`): a step at rank i is in DCG_b for every
    boundary b ≥ i (DCG_n, for the boundaries beyond n, holds every step). A document without
    gain (an unjudged one) adds nothing."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    judged_rows: ClassVar[bool] = True
    g: Gain

    def inputs(self) -> dict[str, Input]:
        return {"igs": IdealBoundaryInvFrom(self.g)}


@dataclass(frozen=True, repr=False, eq=False)
class GSum(Primitive):
    """Σ_i g_i / log2(2 + C_i − S_i), S_i = Σ_{j≤i} g_j, C_i = i + Σ_{j≤min(i, npos)}
    max(g*_j − 1, 0) with g* the ideal gains (trec_eval's G): the documents of nonzero gain
    add to it, each at its rank among all rows; an unjudged one adds nothing, nor a step to S."""

    binding_name: ClassVar[str | None] = "g_sum"
    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    judged_rows: ClassVar[bool] = True
    g: Gain

    def inputs(self) -> dict[str, Input]:
        return {"cumgain": GainStep(self.g), "igx": IdealExcessAt(self.g), "excess_total": PosExcess(self.g)}


@dataclass(frozen=True, repr=False, eq=False)
class Relstring(Primitive):
    """The relevance of the documents at rank ≤ k as text, one character each: the level's
    digit (floor), '>' above 9, '-' unjudged, '.' judged negative (trec_eval relstring)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    empty: ClassVar[float | str | None] = ""
    value_type: ClassVar[Literal["float", "string"]] = "string"
    k: int | None

    @property
    def top_rows(self) -> int | None:
        return self.k

    def inputs(self) -> dict[str, Input]:
        return {"relchar": RelChar()}


@dataclass(frozen=True, repr=False, eq=False)
class NRel(QrelsPrimitive):
    """Number of judged documents with relevance ≥ t."""

    binding_name: ClassVar[str | None] = "nrel"
    t: float


@dataclass(frozen=True, repr=False, eq=False)
class LabelOutside(QrelsPrimitive):
    """The largest judged relevance outside a rule of labels, NULL where every one is inside:
    below ``low``, above ``high`` (None: no bound above) or, with ``whole``, not an integer
    (the metrics' ``labels`` parameter, read by :class:`~rankwise.primitives.LabelCheck`)."""

    whole: bool
    low: float
    high: float | None


@dataclass(frozen=True, repr=False, eq=False)
class Nonrel(QrelsPrimitive):
    """Number of judged documents (relevance ≥ 0) with relevance < t."""

    t: float


@dataclass(frozen=True, repr=False, eq=False)
class Idcg(QrelsPrimitive):
    """DCG@k of all judged documents in the ideal order."""

    reads: ClassVar[tuple[Column, ...]] = ()
    k: int | None
    g: Gain
    discount: str
    base: float

    def inputs(self) -> dict[str, Input]:
        return {"irank": IdealRank(self.g)}


@dataclass(frozen=True, repr=False, eq=False)
class IdealRboWeights(QrelsPrimitive):
    """Σ_{i≤R} p^(i − 1) / i, R the judged documents of positive gain g."""

    reads: ClassVar[tuple[Column, ...]] = ()
    g: Gain
    p: float

    def inputs(self) -> dict[str, Input]:
        return {"irank": IdealRank(self.g)}


@dataclass(frozen=True, repr=False, eq=False)
class Npos(QrelsPrimitive):
    """Number of judged documents with gain > 0."""

    reads: ClassVar[tuple[Column, ...]] = ()
    g: Gain


@dataclass(frozen=True, repr=False, eq=False)
class PosGain(QrelsPrimitive):
    """Σ of the positive gains."""

    reads: ClassVar[tuple[Column, ...]] = ()
    g: Gain


@dataclass(frozen=True, repr=False, eq=False)
class PosExcess(QrelsPrimitive):
    """Σ of max(gain − 1, 0) (G's cost of the whole ideal list beyond one per rank)."""

    reads: ClassVar[tuple[Column, ...]] = ()
    g: Gain


@dataclass(frozen=True, repr=False, eq=False)
class IdcgPos(QrelsPrimitive):
    """IDCG_npos: the DCG of the whole ideal list (log2 discount)."""

    reads: ClassVar[tuple[Column, ...]] = ()
    g: Gain

    def inputs(self) -> dict[str, Input]:
        return {"irank": IdealRank(self.g)}


@dataclass(frozen=True, repr=False, eq=False)
class RndcgBounds(QrelsPrimitive):
    """Number of ideal ranks that end a run of equal positive gains."""

    reads: ClassVar[tuple[Column, ...]] = ()
    g: Gain

    def inputs(self) -> dict[str, Input]:
        return {"igb": IdealBoundaryAt(self.g)}
