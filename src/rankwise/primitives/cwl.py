"""The primitives of the C/W/L user models (cwl_eval): a user reads down the ranking with a
continuation probability; each model a discount, a survival and its running inputs. Their SQL
macros are ``sql/45_cwl.sql``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rankwise.primitives.core import Column, Input, Primitive, RowValue, Step

# -- C/W/L user models (cwl_eval; Moffat et al.; Azzopardi, Thomas & Moffat 2019) --------------
# A user reads rank 1 and goes on from rank i to i + 1 with probability C_i. The chance of
# reading rank i is P_i = Π_{j<i} C_j; every model here has P_i = d(i) · S_i: a discount d of
# the rank alone (``shape``, parameter ``a``, zero beyond ``depth``) times a survival S_i
# of the gains above rank i (``survival``: 'none' 1; 'product' Π_{j<i} (1 − g_j)). Gains are
# cwl's: g = (clip(max(rel, 0), min_rel, max_rel) − min_rel) / (max_rel − min_rel), and
# ``unjudged`` when unjudged: 0, or 1 in cwl_eval's best case (its residuals, -r). Beyond the
# ranking cwl_eval pads to ``depth`` with documents of gain ``unjudged``: with gain 0, S stays
# constant there and the tail of Σ P_i is S_m · Σ_{m<i≤depth} d(i); with gain 1 a 'product'
# survival ends at the first padded rank.


@dataclass(frozen=True, repr=False, eq=False)
class CwlGainStep(Step):
    """cwl's gain g of the row (the running gain)."""

    min_rel: float
    max_rel: float
    unjudged: float


@dataclass(frozen=True, repr=False, eq=False)
class CwlLogStep(Step):
    """ln(1 − g), 0 where g = 1 (the running log of Π (1 − g) over the factors that are not 0)."""

    min_rel: float
    max_rel: float
    unjudged: float


@dataclass(frozen=True, repr=False, eq=False)
class CwlZeroStep(Step):
    """1 where g = 1 (the running count of factors 1 − g that are 0)."""

    min_rel: float
    max_rel: float
    unjudged: float


@dataclass(frozen=True, repr=False, eq=False)
class _CwlRows(Primitive):
    abstract: ClassVar[bool] = True
    shape: str
    a: float
    survival: str
    min_rel: float
    max_rel: float
    unjudged: float
    depth: int

    def inputs(self) -> dict[str, Input]:
        return {
            "cumlog": CwlLogStep(self.min_rel, self.max_rel, self.unjudged),
            "cumzero": CwlZeroStep(self.min_rel, self.max_rel, self.unjudged),
        }


@dataclass(frozen=True, repr=False, eq=False)
class CwlUtility(_CwlRows):
    """Σ_{i≤depth} d(i) · S_i · g_i (the expected utility before normalisation)."""


@dataclass(frozen=True, repr=False, eq=False)
class CwlExamined(_CwlRows):
    """Σ_{i≤depth} d(i) · S_i over the ranked rows (their part of the expected depth)."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "cost")
    costed: bool
    """Σ P_i · c_i instead (c_i the row's cost: cwl_eval's expected cost before normalisation)."""


# U-measure and TBG (cwl_eval) place a document by the text read before it, the costs of the
# documents above (each costs 1 without a cost column): d is read at position 1 + K_{i−1}, K the
# running cost, but cut by rank at depth (U-measure: before the last rank); no survival.


@dataclass(frozen=True, repr=False, eq=False)
class CostAbove(RowValue):
    """K_{i−1}: the costs of the rows ranked above the row."""

    reads: ClassVar[tuple[Column, ...]] = ("cost", "rnk", "qid")
    window: ClassVar[bool] = True


@dataclass(frozen=True, repr=False, eq=False)
class _CwlCostRows(Primitive):
    abstract: ClassVar[bool] = True
    shape: str
    a: float
    min_rel: float
    max_rel: float
    unjudged: float
    depth: int

    def inputs(self) -> dict[str, Input]:
        return {"above": CostAbove()}


@dataclass(frozen=True, repr=False, eq=False)
class CwlCostUtility(_CwlCostRows):
    """Σ_{i≤depth} d(1 + K_{i−1}) · g_i ('geometric' and 'linear' shapes)."""


@dataclass(frozen=True, repr=False, eq=False)
class CwlCostExamined(_CwlCostRows):
    """Σ_{i≤depth} d(1 + K_{i−1}) over the ranked rows."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "cost")
    costed: bool
    """Σ P_i · c_i instead (c_i the row's cost: cwl_eval's expected cost before normalisation)."""


@dataclass(frozen=True, repr=False, eq=False)
class CwlCostTail(Primitive):
    """Σ_{m<i≤depth} d(1 + K_m + i − 1 − m) over the padding (each padded document costs 1; m the
    ranked rows at rank ≤ depth, K_m their costs): 'geometric' a^K_m (1 − a^(depth − m)) / (1 − a);
    'linear' Σ_{j<J} (1 − (K_m + j) / a) over the ranks before the last, J of them positive."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "cost")
    shape: str
    a: float
    depth: int


@dataclass(frozen=True, repr=False, eq=False)
class CwlDiscounted(Primitive):
    """Σ_{i≤depth} d(i) over the ranked rows."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    shape: str
    a: float
    depth: int


@dataclass(frozen=True, repr=False, eq=False)
class CwlNextDiscount(Primitive):
    """d(m + 1), m the ranked rows at rank ≤ depth (the first padded rank's discount; 0 when
    m = depth)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    shape: str
    a: float
    depth: int


@dataclass(frozen=True, repr=False, eq=False)
class CwlSurvival(Primitive):
    """S after the ranked rows at rank ≤ depth (0 for a query missing from the run, so that
    its every value is 0)."""

    survival: str
    min_rel: float
    max_rel: float
    unjudged: float
    depth: int


@dataclass(frozen=True, repr=False, eq=False)
class CwlCostTotal(Primitive):
    """Σ_{i≤depth} c_i, the costs of the ranked rows (cwl_eval's total cost before padding)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "cost")
    depth: int


@dataclass(frozen=True, repr=False, eq=False)
class CwlGainTotal(Primitive):
    """Σ_{i≤depth} g_i over the ranked rows."""

    min_rel: float
    max_rel: float
    unjudged: float
    depth: int


# INST (Moffat, Bailey, Scholer & Thomas 2015): C_i = ((i + 2T − G_i − 1) / (i + 2T − G_i))², G_i
# the running gain: a continuation that reads a running sum, so its own running log (and count
# of zero factors) sums a step of the running gain.


@dataclass(frozen=True, repr=False, eq=False)
class InstLogStep(Step):
    """ln C_i of INST, 0 where C_i = 0."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    target: float
    min_rel: float
    max_rel: float
    unjudged: float

    def inputs(self) -> dict[str, Input]:
        return {"cumgain": CwlGainStep(self.min_rel, self.max_rel, self.unjudged)}


@dataclass(frozen=True, repr=False, eq=False)
class InstZeroStep(Step):
    """1 where INST's C_i = 0."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    target: float
    min_rel: float
    max_rel: float
    unjudged: float

    def inputs(self) -> dict[str, Input]:
        return {"cumgain": CwlGainStep(self.min_rel, self.max_rel, self.unjudged)}


@dataclass(frozen=True, repr=False, eq=False)
class _InstRows(Primitive):
    abstract: ClassVar[bool] = True
    target: float
    min_rel: float
    max_rel: float
    unjudged: float
    depth: int

    def inputs(self) -> dict[str, Input]:
        args = (self.target, self.min_rel, self.max_rel, self.unjudged)
        return {
            "cumgain": CwlGainStep(self.min_rel, self.max_rel, self.unjudged),
            "cumlog": InstLogStep(*args),
            "cumzero": InstZeroStep(*args),
        }


@dataclass(frozen=True, repr=False, eq=False)
class InstUtility(_InstRows):
    """Σ_{i≤depth} P_i · g_i, P_i = Π_{j<i} C_j."""


@dataclass(frozen=True, repr=False, eq=False)
class InstExamined(_InstRows):
    """Σ_{i≤depth} P_i over the ranked rows."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "cost")
    costed: bool
    """Σ P_i · c_i instead (c_i the row's cost: cwl_eval's expected cost before normalisation)."""


@dataclass(frozen=True, repr=False, eq=False)
class _InstAfter(Primitive):
    abstract: ClassVar[bool] = True
    target: float
    min_rel: float
    max_rel: float
    unjudged: float
    depth: int

    def inputs(self) -> dict[str, Input]:
        return {"cumgain": CwlGainStep(self.min_rel, self.max_rel, self.unjudged)}


@dataclass(frozen=True, repr=False, eq=False)
class InstTail(_InstAfter):
    """Σ_{m<i≤depth} P_i over the padding (m the ranked rows at rank ≤ depth), a = 2T − G_m:
    gain 0 there, P_{m+1} · (m + a)² · (ψ1(m + a) − ψ1(depth + a)), ψ1 the trigamma function;
    gain 1 (``unjudged`` = 1), C = ((m + a − 1) / (m + a))² at every padded rank, a geometric sum."""


@dataclass(frozen=True, repr=False, eq=False)
class InstEnd(_InstAfter):
    """P_{depth+1}: P_{m+1} · ((m + a) / (depth + a))² (padding of gain 0), P_{m+1} · C^(depth − m)
    (gain 1)."""


# BPM (Zhang et al. 2017), as cwl_eval: the user goes on from rank i while G_i < T_i and K_i < k
# (K the running cost: i with every document costing 1; a padded document costs 1),
# T_i = T + hb · (G_{i−1} − (i − 1) · gain_med) (hb = 0: the static model), G the running gain;
# P_i = [K_{i−1} < k] · [no rank j < i failed]. The failures are a step of the running gain.


@dataclass(frozen=True, repr=False, eq=False)
class BpmFailStep(Step):
    """1 where G_i ≥ T_i (the user has the gain wanted at rank i)."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk")
    target: float
    hb: float
    gain_med: float
    min_rel: float
    max_rel: float
    unjudged: float

    def inputs(self) -> dict[str, Input]:
        return {"cumgain": CwlGainStep(self.min_rel, self.max_rel, self.unjudged)}


@dataclass(frozen=True, repr=False, eq=False)
class _BpmRows(Primitive):
    abstract: ClassVar[bool] = True
    target: float
    hb: float
    gain_med: float
    k: int
    min_rel: float
    max_rel: float
    unjudged: float
    depth: int

    def inputs(self) -> dict[str, Input]:
        fail = BpmFailStep(self.target, self.hb, self.gain_med, self.min_rel, self.max_rel, self.unjudged)
        return {
            "cumgain": CwlGainStep(self.min_rel, self.max_rel, self.unjudged), "cumfail": fail, "above": CostAbove(),
        }


@dataclass(frozen=True, repr=False, eq=False)
class BpmUtility(_BpmRows):
    """Σ_{i≤depth} P_i · g_i."""


@dataclass(frozen=True, repr=False, eq=False)
class BpmExamined(_BpmRows):
    """Σ_{i≤depth} P_i over the ranked rows."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "cost")
    costed: bool
    """Σ P_i · c_i instead (c_i the row's cost: cwl_eval's expected cost before normalisation)."""


@dataclass(frozen=True, repr=False, eq=False)
class _BpmAfter(Primitive):
    abstract: ClassVar[bool] = True
    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "cost")
    target: float
    hb: float
    gain_med: float
    k: int
    min_rel: float
    max_rel: float
    unjudged: float
    depth: int

    def inputs(self) -> dict[str, Input]:
        return {"cumgain": CwlGainStep(self.min_rel, self.max_rel, self.unjudged)}


@dataclass(frozen=True, repr=False, eq=False)
class BpmTail(_BpmAfter):
    """Σ_{m<i≤depth} P_i over the padding (gain u = ``unjudged`` there: G_i − T_i changes by
    β = u · (1 − hb) + hb · gain_med a rank, so the first failure there is at a rank found in
    closed form)."""


@dataclass(frozen=True, repr=False, eq=False)
class BpmEnd(_BpmAfter):
    """P_{depth+1}."""


# IFT (Azzopardi, Thomas & Craswell 2018), as cwl_eval: C_i = C1_i · C2_i, the goal C1_i = 1 −
# 1 / (1 + b1 · e^((T − G_i) · R1)) (``goal``) and the rate C2_i = 1 / (1 + b2 · e^((A − G_i / K_i)
# · R2)) (``rate``), G_i the running gain, K_i = Σ_{j≤i} c_j the running cost (i when each document
# costs 1; a padded document costs 1, cwl_eval's max_cost and min_cost). ln C is computed as
# −softplus (no overflow for large R1, R2); no factor is 0 (b1 > 0). A zero running cost (the
# documents from rank 1 down to i all cost 0): G_i > 0 makes the rate +∞ and C2_i = 1 (R2 > 0), as
# cwl_eval; G_i = 0 (0 / 0) or R2 = 0 (∞ · 0) makes cwl_eval's C2 NaN, which the engines refuse
# with an error (:data:`IFT_UNDEFINED_RATE`).

IFT_UNDEFINED_RATE = (
    "the rate of gain G_i / K_i of IFTRate and IFTGoalRate is undefined: the first-ranked document "
    "of a query has cost 0 (the run's cost column) and gain 0 (0 / 0), or cost 0 with R2 = 0 "
    "(inf * 0), where cwl_eval gives NaN; give it a positive cost"
)
"""The message of the error an engine raises where IFT's rate is undefined (the SQL's error()
is ``'rankwise: '`` and this)."""


@dataclass(frozen=True, repr=False, eq=False)
class CostStep(Step):
    """c_i, the row's cost (the running cost K_i = Σ_{j≤i} c_j: i when each document costs 1)."""

    reads: ClassVar[tuple[Column, ...]] = ("cost",)


@dataclass(frozen=True, repr=False, eq=False)
class IftLogStep(Step):
    """ln C_i of IFT (its rate reads the running cost K_i)."""

    reads: ClassVar[tuple[Column, ...]] = ()
    goal: bool
    rate: bool
    target: float
    b1: float
    r1: float
    rate_a: float
    b2: float
    r2: float
    min_rel: float
    max_rel: float
    unjudged: float

    def inputs(self) -> dict[str, Input]:
        return {"cumgain": CwlGainStep(self.min_rel, self.max_rel, self.unjudged), "cumcost": CostStep()}


@dataclass(frozen=True, repr=False, eq=False)
class _Ift(Primitive):
    abstract: ClassVar[bool] = True
    goal: bool
    rate: bool
    target: float
    b1: float
    r1: float
    rate_a: float
    b2: float
    r2: float
    min_rel: float
    max_rel: float
    unjudged: float
    depth: int

    def inputs(self) -> dict[str, Input]:
        return {"cumgain": CwlGainStep(self.min_rel, self.max_rel, self.unjudged), "cumcost": CostStep()}


@dataclass(frozen=True, repr=False, eq=False)
class _IftRows(_Ift):
    abstract: ClassVar[bool] = True

    def inputs(self) -> dict[str, Input]:
        model = (self.goal, self.rate, self.target, self.b1, self.r1, self.rate_a, self.b2, self.r2)
        return {
            "cumgain": CwlGainStep(self.min_rel, self.max_rel, self.unjudged),
            "cumcost": CostStep(),
            "cumlog": IftLogStep(*model, self.min_rel, self.max_rel, self.unjudged),
        }


@dataclass(frozen=True, repr=False, eq=False)
class IftUtility(_IftRows):
    """Σ_{i≤depth} P_i · g_i, P_i = Π_{j<i} C_j."""


@dataclass(frozen=True, repr=False, eq=False)
class IftExamined(_IftRows):
    """Σ_{i≤depth} P_i over the ranked rows."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "cost")
    costed: bool
    """Σ P_i · c_i instead (c_i the row's cost: cwl_eval's expected cost before normalisation)."""


@dataclass(frozen=True, repr=False, eq=False)
class IftTail(_Ift):
    """Σ_{m<i≤depth} P_i over the padding (m the ranked rows at rank ≤ depth; gain u =
    ``unjudged`` and cost 1 there, G_i = G_m + (i − m) · u, K_i = K_m + i − m, K_m the ranked
    rows' costs): no closed form, a sum over the padded ranks."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "cost")


@dataclass(frozen=True, repr=False, eq=False)
class IftTotal(_IftRows):
    """Σ_{i≤depth} P_i · (1 − C_i) · G_i over the ranked rows and the padding (cwl_eval's expected
    total utility as it sums it, its L_i = P_i · (1 − C_i) the chance of stopping at rank i):
    1 − C_i carried as a sum of nonnegative terms, not subtracted from 1, so that a C_i near 1 keeps
    its digits (Σ P g − P_{depth+1} · G would cancel)."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "cost")
    costed: bool
    """Σ P_i · (1 − C_i) · K_i instead (cwl_eval's expected total cost)."""
