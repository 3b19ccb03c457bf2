"""C/W/L user models, exact to cwl_eval: INST, INSQ, BPM, SDCG, NERR8-11, U-measure, TBG and the
information-foraging measures (IFTGoal, IFTRate, IFTGoalRate). Each is a chance of going on
from each rank; each gives cwl_eval's five numbers (EU, ETU, EC, ETC, ED) and their residuals."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rankwise.conventions import LIMIT
from rankwise.metrics.families.shared import add
from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe
from rankwise.metrics.spec import MetricSpec, Param

if TYPE_CHECKING:
    from rankwise.primitives import Node

# -- parameters ----------------------------------------------------------------------------------
CWL_VALUES = ("EU", "ETU", "EC", "ETC", "ED")
CWL_VALUE = Param(
    "value",
    str,
    "EU",
    "which of cwl_eval's numbers: 'EU' expected utility per document (the measure), 'ETU' "
    "expected total utility, 'EC' expected cost per document, 'ETC' expected total cost, "
    "'ED' expected depth (documents read); a document costs what the run's cost column says "
    "(cost=, --cost-col: cwl_eval's cost file), 1 without one",
    choices=CWL_VALUES,
)
CWL_RESIDUALS = ("ResEU", "ResETU", "ResEC", "ResETC", "ResED")
CWL_VALUE_RES = Param(
    "value",
    str,
    "EU",
    CWL_VALUE.doc + "; their residuals 'ResEU', 'ResETU', 'ResEC', 'ResETC', 'ResED' (cwl_eval -r: "
    "how much each changes were every unjudged and padded document fully relevant, gain 1: "
    "cwl_eval's best case minus the value; negative where an adaptive user, INST, BPM, NERR, IFT, "
    "then stops sooner)",
    choices=CWL_VALUES + CWL_RESIDUALS,
)
_RELEVANCE_LEVEL = (
    "a relevance level: relevance (negative relevance read as 0) is clipped to [min_rel, max_rel] "
    "and scaled to a gain in [0, 1] by (rel − min_rel) / (max_rel − min_rel), which needs "
    "max_rel > min_rel: min_rel is at most 0 and max_rel above 0, each within ±2**62 like every "
    "number without a natural ceiling"
)
CWL_MIN_REL = Param(
    "min_rel", float, 0.0, "relevance that gains 0 (lower levels are raised to it; negative relevance counts as 0)",
    minimum=-LIMIT, maximum=0.0, bounds=_RELEVANCE_LEVEL,
)
CWL_MAX_REL = Param(
    "max_rel", float, 1.0, "relevance that gains 1 (higher levels are lowered to it; ir-measures requires it, cwl_eval's --max_gain is 1)",
    minimum=2.2250738585072014e-308, maximum=LIMIT,
    bounds=_RELEVANCE_LEVEL + "; at least the smallest normal double, 2.2250738585072014e-308, "
    "since an engine may divide by multiplying with 1 / (max_rel − min_rel), infinite for a subnormal",
)
CWL_DEPTH_MAX = 1_000_000
CWL_DEPTH = Param(
    "depth", int, 1000, "cwl_eval's --max_depth: the ranking is cut there, and padded to it with documents of gain 0",
    minimum=1, maximum=CWL_DEPTH_MAX,
    bounds="a number of ranks (at least one); the normalising sum over the ranks is taken "
    "when the metric is built, so at most a million",
)
_TARGET_BOUNDS = (
    "a total gain the user wants (gains lie in [0, 1]): T = 0 would make the continuation "
    "0/0 at rank 1 (INSQ, NERR11) or stop before rank 1 (BPM); no natural ceiling: at most 2**62"
)
CWL_T = Param(
    "T", float, 1.0, "the total gain the user wants (the target)",
    minimum=0.0, exclusive_min=True, maximum=LIMIT, bounds=_TARGET_BOUNDS,
)
INST_T = Param(
    "T", float, 1.0, "the total gain the user wants (the target)",
    minimum=0.25, maximum=LIMIT,
    bounds="INST goes on with C_i = ((x − 1) / x)², x = i + 2T − G_i ≥ 2T (gains lie in [0, 1]): "
    "a probability for every ranking only when x ≥ 1/2, i.e. T ≥ 1/4 (below it C exceeds 1 "
    "where every document is fully relevant); no natural ceiling: at most 2**62",
)
CWL_PERSISTENCE = Param(
    "p", float, 0.9, "persistence: probability of going on when the document gives nothing",
    minimum=0.0, maximum=1.0,
    bounds="a probability: C_i = p · (1 − g_i) must lie in [0, 1]",
)
_CWL_COMMON_RES = (CWL_MIN_REL, CWL_MAX_REL, CWL_DEPTH, CWL_VALUE_RES)
_CWL_FORMULA = (
    "C/W/L: C_i the chance to go on from rank i, P_i = Π_{j<i} C_j, W_i = P_i / Σ_{i≤depth} P_i; "
    "EU = Σ W_i g_i, ETU = Σ_i L_i Σ_{j≤i} g_j with L_i = P_i (1 − C_i), ED = Σ P_i, "
    "EC = Σ W_i c_i, ETC = Σ_i L_i Σ_{j≤i} c_j, c_i the document's cost (the run's cost column, "
    "cost=; 1 without one and on padded ranks; EC = 1, ETC = Σ_i L_i · i when every cost is 1); "
    "g = (clip(max(rel, 0), min_rel, max_rel) − min_rel) / "
    "(max_rel − min_rel), 0 unjudged; the ranking cut at depth and padded to it with gain 0; "
)
_IFT_CITATION = (
    "Azzopardi, Thomas & Craswell, Measuring the utility of search engine result pages: an "
    "information foraging based measure, SIGIR 2018; cwl_eval (its README's T = 2, b1 = 0.9, "
    "R1 = 10, A = 0.2, b2 = 0.9, R2 = 10: its classes have no defaults)"
)
_IFT_C1 = "C1_i = 1 − 1 / (1 + b1 · e^((T − G_i) · R1)), G_i = Σ_{j≤i} g_j"
_IFT_C2 = (
    "C2_i = 1 / (1 + b2 · e^((A − G_i / K_i) · R2)) (the rate of gain per cost, K_i = Σ_{j≤i} c_j: "
    "per document read, K_i = i, when every cost is 1; K_i = 0 with G_i > 0: C2_i = 1; with G_i = 0 "
    "or R2 = 0: an error, cwl_eval's NaN)"
)
_IFT_RATIONALITY = (
    "a rationality: 0 ignores the {what} (C{n} = {flat}), larger follows it more sharply; negative "
    "would reverse it; no natural ceiling: at most 2**62"
)
IFT_T = Param(
    "T", float, 2.0, "the goal: the total gain the user wants",
    minimum=0.0, maximum=LIMIT,
    bounds="a total gain (gains lie in [0, 1], so the gain seen is never negative); no natural "
    "ceiling: at most 2**62",
)
IFT_B1 = Param(
    "b1", float, 0.9, "the goal's intercept: C1 = b1 / (1 + b1) where the gain seen is T",
    minimum=0.0, exclusive_min=True, maximum=LIMIT,
    bounds="a positive factor: b1 = 0 makes C1 = 0 (the user never goes on; ln C1 is the engines' "
    "running sum), negative makes C1 no probability; no natural ceiling: at most 2**62",
)
IFT_R1 = Param(
    "R1", float, 10.0, "the goal's rationality: how sharply the user stops once near T",
    minimum=0.0, maximum=LIMIT, bounds=_IFT_RATIONALITY.format(what="goal", n=1, flat="b1 / (1 + b1)"),
)
IFT_A = Param(
    "A", float, 0.2, "the rate of gain per document the user expects",
    minimum=0.0, maximum=1.0,
    bounds="a rate of gain per document read, and gains lie in [0, 1]",
)
IFT_B2 = Param(
    "b2", float, 0.9, "the rate's intercept: C2 = 1 / (1 + b2) where the rate is A",
    minimum=0.0, exclusive_min=True, maximum=LIMIT,
    bounds="a positive factor: b2 = 0 makes C2 = 1 whatever the rate (ln b2 is the engines'), "
    "negative makes C2 no probability; no natural ceiling: at most 2**62",
)
IFT_R2 = Param(
    "R2", float, 10.0, "the rate's rationality: how sharply the user stops once the rate falls below A",
    minimum=0.0, maximum=LIMIT, bounds=_IFT_RATIONALITY.format(what="rate", n=2, flat="1 / (1 + b2)"),
)
_NERR_CITATION = (
    "Azzopardi, Mackenzie & Moffat, ERR is not C/W/L: exploring the relationship between "
    "expected reciprocal rank and other metrics, ICTIR 2021; cwl_eval"
)

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="INST",
        aliases=(),
        params=(INST_T, *_CWL_COMMON_RES),
        cutoff="none",
        description="INST: adaptive C/W/L user who wants T gain and is more likely to stop the more gain is seen",
        formula=_CWL_FORMULA + "C_i = ((i + 2T − G_i − 1) / (i + 2T − G_i))², G_i = Σ_{j≤i} g_j",
        citation="Moffat, Bailey, Scholer & Thomas, INST: an adaptive metric for information retrieval evaluation, ADCS 2015; cwl_eval",
        empty_value=0.0,
    ),
    MetricSpec(
        name="INSQ",
        aliases=(),
        params=(CWL_T, *_CWL_COMMON_RES),
        cutoff="none",
        description="INSQ: C/W/L user who wants T gain, continuing with a rank-dependent chance",
        formula=_CWL_FORMULA + "C_i = ((i + 2T − 1) / (i + 2T))²",
        citation="Moffat, Scholer & Thomas, Models and metrics: IR evaluation as a user process, ADCS 2012; cwl_eval",
        empty_value=0.0,
    ),
    MetricSpec(
        name="BPM",
        aliases=(),
        params=(
            CWL_T,
            Param(
                "hb", float, 0.0, "the dynamic model's gain factor: the target moves by hb · (g − gain_med) at "
                "each document read (0: the static model; cwl_eval's BPM-Dynamic takes 1)",
                minimum=0.0, maximum=LIMIT,
                bounds="a factor of the target's change: negative would move the target against the gain "
                "seen; no natural ceiling: at most 2**62",
            ),
            Param(
                "gain_med", float, 0.5, "the dynamic model's median gain: a document of more gain raises the target",
                minimum=0.0, maximum=1.0, bounds="a gain, and gains lie in [0, 1]",
            ),
            *_CWL_COMMON_RES,
        ),
        cutoff="required",
        description="Bejeweled Player Model: the user stops once the target gain is seen or k documents are "
        "read (a cost of k with the run's cost column, cost=; static; dynamic with hb > 0, cwl_eval's BPM-Dynamic)",
        formula=_CWL_FORMULA + "C_i = [G_i < T_i] · [K_i < k], K_i = Σ_{j≤i} c_j (i when each costs 1), "
        "G_i = Σ_{j≤i} g_j, T_i = T + hb · (G_{i−1} − (i − 1) · "
        "gain_med) (cwl_eval 1.0.12's hc changes nothing: its update of K writes T after the gain test)",
        citation="Zhang, Liu, Li, Zhang, Xu & Ma, Evaluating web search with a bejeweled player model, SIGIR 2017; cwl_eval",
        empty_value=0.0,
    ),
    MetricSpec(
        name="SDCG",
        aliases=(),
        params=_CWL_COMMON_RES,
        cutoff="required",
        description="scaled DCG@k: DCG@k divided by the DCG@k of k fully relevant documents (C/W/L)",
        formula=_CWL_FORMULA + "C_i = log2(i + 1) / log2(i + 2) for i < k, 0 from k on",
        citation="Järvelin & Kekäläinen, TOIS 2002; as cwl_eval's NDCG-k",
        empty_value=0.0,
    ),
    MetricSpec(
        name="NERR8",
        aliases=(),
        params=_CWL_COMMON_RES,
        cutoff="required",
        description="not (but nearly) ERR, equation 8: stop at a document with its gain, at the latest at rank k",
        formula=_CWL_FORMULA + "C_i = 1 − g_i for i < k, 0 from k on",
        citation=_NERR_CITATION,
        empty_value=0.0,
    ),
    MetricSpec(
        name="NERR9",
        aliases=(),
        params=_CWL_COMMON_RES,
        cutoff="required",
        description="not (but nearly) ERR, equation 9: NERR8 with a 1/i discount",
        formula=_CWL_FORMULA + "C_i = i / (i + 1) · (1 − g_i) for i < k, 0 from k on",
        citation=_NERR_CITATION,
        empty_value=0.0,
    ),
    MetricSpec(
        name="NERR10",
        aliases=(),
        params=(CWL_PERSISTENCE, *_CWL_COMMON_RES),
        cutoff="none",
        description="not (but nearly) ERR, equation 10: RBP's patience p times 1 − g",
        formula=_CWL_FORMULA + "C_i = p · (1 − g_i)",
        citation=_NERR_CITATION,
        empty_value=0.0,
    ),
    MetricSpec(
        name="NERR11",
        aliases=(),
        params=(CWL_T, *_CWL_COMMON_RES),
        cutoff="none",
        description="not (but nearly) ERR, equation 11: INSQ's continuation times 1 − g",
        formula=_CWL_FORMULA + "C_i = ((i + 2T − 1) / (i + 2T))² · (1 − g_i)",
        citation=_NERR_CITATION,
        empty_value=0.0,
    ),
    MetricSpec(
        name="U",
        aliases=("UMeasure",),
        params=(
            Param(
                "L", float, 1000.0, "the half-life of reading: the weight of a document falls linearly to 0 at rank L + 1",
                minimum=0.0, exclusive_min=True, maximum=LIMIT,
                bounds="weights max(0, 1 − (i − 1) / L): L = 0 divides by 0, L < 0 gives weight only to "
                "rank 1 by a negative slope; no natural ceiling: at most 2**62",
            ),
            CWL_MIN_REL, CWL_MAX_REL,
            Param(
                "depth", int, 1000, "cwl_eval's --max_depth: the ranking is cut there, and padded to it with documents of gain 0",
                minimum=2, maximum=CWL_DEPTH_MAX,
                bounds="a number of ranks: U-measure gives the last rank weight 0, so depth 1 leaves no "
                "weight (cwl_eval divides 0 by 0); the normalising sum is taken when the metric is "
                "built, so at most a million",
            ),
            CWL_VALUE_RES,
        ),
        cutoff="none",
        description=(
            "U-measure: weights falling linearly with the text read (the costs of the documents above: "
            "the run's cost column, cost=, or 1 each)"
        ),
        formula=_CWL_FORMULA + "W_i ∝ max(0, 1 − K_{i−1} / L) for i < depth, 0 at depth, K_{i−1} the costs of "
        "the documents above rank i (i − 1 when each costs 1; a padded document costs 1)",
        citation="Sakai & Dou, Summaries, ranked retrieval and sessions: a unified framework for information access evaluation, SIGIR 2013; cwl_eval",
        empty_value=0.0,
    ),
    MetricSpec(
        name="TBG",
        aliases=(),
        params=(
            Param(
                "H", float, 224.0, "the half-life: the chance of reading on halves every H units of cost (documents)",
                minimum=0.0, exclusive_min=True, maximum=LIMIT,
                bounds="weights 2^(−(i − 1) / H): H = 0 divides by 0, H < 0 weighs deep documents most; "
                "no natural ceiling: at most 2**62",
            ),
            *_CWL_COMMON_RES,
        ),
        cutoff="none",
        description=(
            "time-biased gain (C/W/L): decaying with the time spent before a document (the costs of the "
            "documents above: the run's cost column, cost=, or 1 each, RBP with p = 2^(−1/H)), stopping at depth"
        ),
        formula=_CWL_FORMULA + "W_i ∝ 2^(−K_{i−1} / H), K_{i−1} the costs of the documents above rank i "
        "(i − 1 when each costs 1; a padded document costs 1)",
        citation="Smucker & Clarke, Time-based calibration of effectiveness measures, SIGIR 2012; cwl_eval",
        empty_value=0.0,
    ),
    MetricSpec(
        name="IFTGoal",
        aliases=(),
        params=(IFT_T, IFT_B1, IFT_R1, *_CWL_COMMON_RES),
        cutoff="none",
        description="information foraging, goal (cwl_eval's IFT-C1): the user is less likely to go on "
        "the nearer the gain seen comes to the goal T",
        formula=_CWL_FORMULA + _IFT_C1,
        citation=_IFT_CITATION,
        empty_value=0.0,
    ),
    MetricSpec(
        name="IFTRate",
        aliases=(),
        params=(IFT_A, IFT_B2, IFT_R2, *_CWL_COMMON_RES),
        cutoff="none",
        description="information foraging, rate (cwl_eval's IFT-C2): the user is less likely to go on "
        "the further the rate of gain falls below A",
        formula=_CWL_FORMULA + _IFT_C2,
        citation=_IFT_CITATION,
        empty_value=0.0,
    ),
    MetricSpec(
        name="IFTGoalRate",
        aliases=(),
        params=(IFT_T, IFT_B1, IFT_R1, IFT_A, IFT_B2, IFT_R2, *_CWL_COMMON_RES),
        cutoff="none",
        description="information foraging, goal and rate (cwl_eval's IFT-C1-C2): IFTGoal's and IFTRate's "
        "continuations multiplied",
        formula=_CWL_FORMULA + "C_i = C1_i · C2_i, " + _IFT_C1 + ", " + _IFT_C2,
        citation=_IFT_CITATION,
        empty_value=0.0,
    ),
)

CWL_MEASURES = frozenset(spec.name for spec in SPECS)
"""The C/W/L user models (cwl_eval's measures): their recipes read the chance of reading each
rank (rankwise.explain shows it)."""


# -- recipes -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CwlModel:
    """A C/W/L user model in the form the primitives compute (see rankwise.primitives): the
    chance of reading rank i is d(i) · S_i; ``end`` says whether P_{depth+1} = d(depth + 1) ·
    S (False where cwl_eval closes the model with C_depth = 0: U-measure, TBG); ``by_cost``
    that d is read at the text read before the rank, 1 + the costs above it (U-measure, TBG)."""

    shape: str
    a: float
    survival: str = "none"
    end: bool = True
    by_cost: bool = False


def cwl_discount_value(shape: str, a: float, depth: int, i: int) -> float:
    """d(i) in Python (the engines' ``cwl_discount``), without the cut at ``depth`` but for
    U-measure's last rank."""
    if shape == "geometric":
        return float(a ** (i - 1))
    if shape == "insq":
        return float((2.0 * a / (i - 1.0 + 2.0 * a)) ** 2)
    if shape == "cutoff":
        return 1.0 if i <= a else 0.0
    if shape == "cutoff_recip":
        return 1.0 / i if i <= a else 0.0
    if shape == "log2":
        return 1.0 / math.log2(i + 1.0) if i <= a else 0.0
    if shape == "linear":
        return max(0.0, 1.0 - (i - 1.0) / a) if i < depth else 0.0
    raise ValueError(f"unknown C/W/L discount shape {shape!r}")


def _cwl_reach_limit(shape: str, a: float, depth: int) -> int:
    """The last rank whose discount can be nonzero (the cutoff models stop at k)."""
    if shape in ("cutoff", "cutoff_recip", "log2"):
        return int(min(a, depth))
    return depth


@dataclass(frozen=True)
class CwlParts:
    """A C/W/L model's sums over the ranking padded to depth (gain ``unjudged`` on unjudged and
    padded ranks): Σ P_i g_i, ED = Σ P_i, Σ P_i c_i (c_i the row's cost; 1 on padded ranks,
    cwl_eval's default max_cost and min_cost), and the expected totals ETU = Σ L_i G_i and ETC =
    Σ L_i K_i (L_i = P_i − P_{i+1}, the chance of stopping at rank i; G, K the running gain and
    cost)."""

    utility: Node
    depth_e: Node
    cost: Node
    total_utility: Node
    total_cost: Node


@dataclass(frozen=True)
class _Rows:
    """A model's sums over the ranked rows (at rank ≤ depth) and its part over the padding:
    Σ P_i g_i, Σ P_i, Σ P_i c_i over the rows, the padding's Σ P_i (``tail``), P_{depth+1}
    (``end``), and, where the model gives them directly, the expected totals ETU and ETC."""

    utility: Node
    examined: Node
    cost: Node
    tail: Node
    end: Node | None = None
    totals: tuple[Node, Node] | None = None


RowsOf = Callable[[Measured, Params, float, float, float, int], _Rows]
"""A model's :class:`_Rows` from the metric, its parameters, ``min_rel``, ``max_rel``, the gain
``u`` of unjudged and padded ranks, and ``depth``."""


def _inst_rows(m: Measured, p: Params, lo: float, hi: float, u: float, depth: int) -> _Rows:
    from rankwise.primitives import InstEnd, InstExamined, InstTail, InstUtility

    inst = (float(p["T"]), lo, hi, u, depth)
    return _Rows(
        InstUtility(*inst), InstExamined(*inst, False), InstExamined(*inst, True), InstTail(*inst), InstEnd(*inst)
    )


def _bpm_rows(m: Measured, p: Params, lo: float, hi: float, u: float, depth: int) -> _Rows:
    from rankwise.primitives import BpmEnd, BpmExamined, BpmTail, BpmUtility

    bpm = (float(p["T"]), float(p["hb"]), float(p["gain_med"]), int(m.cutoff or 1), lo, hi, u, depth)
    return _Rows(BpmUtility(*bpm), BpmExamined(*bpm, False), BpmExamined(*bpm, True), BpmTail(*bpm), BpmEnd(*bpm))


def _ift_model(p: Params) -> tuple[bool, bool, float, float, float, float, float, float]:
    """(goal, rate, T, b1, R1, A, b2, R2) of an IFT measure: it has the goal C1 when its spec has
    T, b1, R1, the rate C2 when it has A, b2, R2 (the parameters of a part it lacks: 1, unread)."""
    goal, rate = "R1" in p, "R2" in p
    t, b1, r1 = (float(p["T"]), float(p["b1"]), float(p["R1"])) if goal else (1.0, 1.0, 1.0)
    a, b2, r2 = (float(p["A"]), float(p["b2"]), float(p["R2"])) if rate else (1.0, 1.0, 1.0)
    return goal, rate, t, b1, r1, a, b2, r2


def _ift_rows(m: Measured, p: Params, lo: float, hi: float, u: float, depth: int) -> _Rows:
    from rankwise.primitives import IftExamined, IftTail, IftTotal, IftUtility

    ift = (*_ift_model(p), lo, hi, u, depth)
    # Σ L_i G_i directly: its C_i can lie within 1e-9 of 1, where Σ P g − P_end · G cancels
    return _Rows(
        IftUtility(*ift), IftExamined(*ift, False), IftExamined(*ift, True), IftTail(*ift),
        totals=(IftTotal(*ift, False), IftTotal(*ift, True)),
    )


def _model_rows(model_of: Callable[[Measured, Params], CwlModel]) -> RowsOf:
    """The :class:`_Rows` of a model of :class:`CwlModel`'s form (a discount d and a survival S)."""

    def rows(m: Measured, p: Params, lo: float, hi: float, u: float, depth: int) -> _Rows:
        from rankwise.primitives import (
            Const,
            Count,
            CwlCostExamined,
            CwlCostTail,
            CwlCostUtility,
            CwlDiscounted,
            CwlExamined,
            CwlNextDiscount,
            CwlSurvival,
            CwlUtility,
            Mul,
            Positive,
            Sub,
        )

        model = model_of(m, p)
        d, a, s = model.shape, model.a, model.survival
        total = math.fsum(
            cwl_discount_value(d, a, depth, i) for i in range(1, min(depth, _cwl_reach_limit(d, a, depth)) + 1)
        )
        end = cwl_discount_value(d, a, depth, depth + 1) if model.end else 0.0
        survival = CwlSurvival(s, lo, hi, u, depth)
        if model.by_cost:  # no survival: S is 1, or 0 for a query missing from the run
            return _Rows(
                CwlCostUtility(d, a, lo, hi, u, depth),
                CwlCostExamined(d, a, lo, hi, u, depth, False),
                CwlCostExamined(d, a, lo, hi, u, depth, True),
                Mul(survival, CwlCostTail(d, a, depth)),
                Mul(Const(end), survival),
            )
        rows_u = CwlUtility(d, a, s, lo, hi, u, depth)
        rows_e, rows_c = CwlExamined(d, a, s, lo, hi, u, depth, False), CwlExamined(d, a, s, lo, hi, u, depth, True)
        if s == "product" and u > 0:
            # the first padded rank (gain 1) ends the survival: P_{m+1} = S · d(m + 1), and
            # P_{depth+1} is left only when nothing was padded (m = depth)
            tail = Mul(survival, CwlNextDiscount(d, a, depth))
            p_end = Mul(Mul(Const(end), survival), Positive(Sub(Count(), Const(float(depth - 1)))))
            return _Rows(rows_u, rows_e, rows_c, tail, p_end)
        tail = Mul(survival, Sub(Const(total), CwlDiscounted(d, a, depth)))
        return _Rows(rows_u, rows_e, rows_c, tail, Mul(Const(end), survival))

    return rows


def _cwl_parts(rows_of: RowsOf, m: Measured, p: Params, u: float) -> CwlParts:
    """The sums of :class:`CwlParts` from the sums over the ranked rows (at rank ≤ depth) and
    closed forms (or, for IFT, a walk) over the padding: the padding's part of Σ P_i g_i is u ·
    its Σ P_i, of the total gain u · (depth − m)."""
    from rankwise.primitives import Add, Const, Count, CwlCostTotal, CwlGainTotal, Least, Mul, Sub

    lo, hi, depth = float(p["min_rel"]), float(p["max_rel"]), int(p["depth"])
    rows = rows_of(m, p, lo, hi, u, depth)
    gain: Node = CwlGainTotal(lo, hi, u, depth)
    utility: Node = rows.utility
    padded = Sub(Const(float(depth)), Least(Count(), Const(float(depth))))
    if u > 0:
        utility = Add(rows.utility, Mul(Const(u), rows.tail))
        gain = Add(gain, Mul(Const(u), padded))
    cost = add(rows.cost, rows.tail)
    totals = rows.totals
    if totals is None:
        # Abel summation: Σ_{i≤depth} (P_i − P_{i+1}) G_i = Σ P_i g_i − P_{depth+1} · G (K likewise)
        assert rows.end is not None
        cost_total = Add(CwlCostTotal(depth), padded)
        totals = (Sub(utility, Mul(rows.end, gain)), Sub(cost, Mul(rows.end, cost_total)))
    return CwlParts(utility, add(rows.examined, rows.tail), cost, *totals)


def _cwl_value(value: str, parts: CwlParts, depth: int) -> Node:
    """One of cwl_eval's numbers from :class:`CwlParts`: EU = Σ P g / ED, ETU, EC = Σ P c / ED (0
    for a query missing from the run, where ED = 0), ETC, ED."""
    from rankwise.primitives import Div0

    if value == "EU":
        return Div0(parts.utility, parts.depth_e)
    if value == "ED":
        return parts.depth_e
    if value == "EC":
        return Div0(parts.cost, parts.depth_e)
    if value == "ETU":
        return parts.total_utility
    return parts.total_cost


def _cwl(rows_of: RowsOf) -> Recipe:
    """The recipe of a C/W/L measure: cwl_eval's EU, ETU, EC, ETC or ED of the ranking (unjudged
    and padded documents of gain 0), or its residual (cwl_eval -r: ResX = X of the best case,
    where every unjudged and padded document is fully relevant, gain 1, minus X)."""

    def recipe(m: Measured, p: Params) -> Node:
        from rankwise.primitives import Sub

        value, depth = str(p["value"]), int(p["depth"])
        if value.startswith("Res"):
            x = value.removeprefix("Res")
            return Sub(_cwl_value(x, _cwl_parts(rows_of, m, p, 1.0), depth), _cwl_value(x, _cwl_parts(rows_of, m, p, 0.0), depth))
        return _cwl_value(value, _cwl_parts(rows_of, m, p, 0.0), depth)

    return recipe


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas: each measure's model."""
    return {
        "INST": _cwl(_inst_rows),
        "INSQ": _cwl(_model_rows(lambda m, p: CwlModel("insq", float(p["T"])))),
        "BPM": _cwl(_bpm_rows),
        "SDCG": _cwl(_model_rows(lambda m, p: CwlModel("log2", float(m.cutoff or 0)))),
        "NERR8": _cwl(_model_rows(lambda m, p: CwlModel("cutoff", float(m.cutoff or 0), "product"))),
        "NERR9": _cwl(_model_rows(lambda m, p: CwlModel("cutoff_recip", float(m.cutoff or 0), "product"))),
        "NERR10": _cwl(_model_rows(lambda m, p: CwlModel("geometric", float(p["p"]), "product"))),
        "NERR11": _cwl(_model_rows(lambda m, p: CwlModel("insq", float(p["T"]), "product"))),
        "U": _cwl(_model_rows(lambda m, p: CwlModel("linear", float(p["L"]), end=False, by_cost=True))),
        "TBG": _cwl(
            _model_rows(lambda m, p: CwlModel("geometric", 2.0 ** (-1.0 / float(p["H"])), end=False, by_cost=True))
        ),
        "IFTGoal": _cwl(_ift_rows),
        "IFTRate": _cwl(_ift_rows),
        "IFTGoalRate": _cwl(_ift_rows),
    }


FAMILY = MetricFamily(
    name="C/W/L user models",
    specs=SPECS,
    recipes=recipes,
    ir_measures={name: name for name in ("INST", "INSQ", "BPM", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11")},
)
