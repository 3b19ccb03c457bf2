"""Each metric written once, as a formula over per-query primitives.

A *recipe* turns a parsed :class:`~rankwise.metrics.metric.Metric` into a small expression tree whose
leaves are the per-query primitives of :mod:`rankwise.primitives` (typed dataclasses, e.g.
``ApSum(t, k)``) and whose inner nodes are scalar operations (``Div0(a, b)``, ``Add(a, b)``,
...). Each engine implements every primitive and operation once and compiles the tree; the
metric formulas themselves live only here.

>>> import rankwise as rw
>>> recipe(rw.parse_metric("nDCG@10"), {})
Div0(a=DcgGain(k=10, g=Gain(kind='linear', min_rel=0.0, table=()), discount='log2', base=2.0), b=Idcg(k=10, g=Gain(kind='linear', min_rel=0.0, table=()), discount='log2', base=2.0))
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from rankwise.conventions import Conventions
from rankwise.metrics.metric import Metric
from rankwise.metrics.registry import ELEVEN_POINTS
from rankwise.metrics.spec import ParamValue
from rankwise.primitives import (
    Add,
    ApSum,
    BingSum,
    BpmEnd,
    BpmExamined,
    BpmTail,
    BpmUtility,
    BprefSum,
    CgGain,
    Const,
    Count,
    CwlCostExamined,
    CwlCostTail,
    CwlCostTotal,
    CwlCostUtility,
    CwlDiscounted,
    CwlExamined,
    CwlGainTotal,
    CwlNextDiscount,
    CwlSurvival,
    CwlUtility,
    DcgGain,
    Div,
    Div0,
    DivNull,
    ErrSum,
    FirstRel,
    Floor,
    Gain,
    Greatest,
    GSum,
    Idcg,
    IdcgList,
    IdcgPos,
    IdealDcgRun,
    IdealIntentGain,
    IdealRboWeights,
    IftExamined,
    IftTail,
    IftTotal,
    IftUtility,
    InfapSum,
    InstEnd,
    InstExamined,
    InstTail,
    InstUtility,
    IntentApSum,
    IntentGain,
    IntentHits,
    IntentNew,
    Iprec,
    Least,
    Mul,
    NdcgRelSum,
    Node,
    NonrelAboveSum,
    NonrelJudged,
    NotJudged,
    Npos,
    NposRet,
    NRel,
    PosGain,
    Positive,
    Power,
    RankeffSum,
    RboOverlapBefore,
    RboWeights,
    RbpSum,
    Recip0,
    Relret,
    RelretAtNrel,
    Relstring,
    RndcgBounds,
    RndcgBoundsInv,
    RndcgInv,
    RndcgSum,
    Sub,
    Subtopics,
    TieDcg,
    Unjudged,
    UnjudgedRbpSum,
)


def parse_gain_table(text: str) -> tuple[tuple[float, float], ...]:
    """``"1=3,2=9,4=4.5"`` → ((1.0, 3.0), (2.0, 9.0), (4.0, 4.5)); ``""`` → ()."""
    if not text.strip():
        return ()
    pairs = []
    for item in text.split(","):
        level, _, gain = item.partition("=")
        pairs.append((float(level), float(gain)))
    return tuple(pairs)


def _threshold(p: Mapping[str, ParamValue]) -> float:
    return float(p["rel"])


def gain_of(p: Mapping[str, ParamValue]) -> Gain:
    """The :class:`Gain` of resolved DCG-family parameters."""
    return Gain(str(p["gain"]), float(p["rel"]), parse_gain_table(str(p["gains"])))


def _dcg_args(m: Metric, p: Mapping[str, ParamValue]) -> tuple[int | None, Gain, str, float]:
    return (m.cutoff, gain_of(p), str(p["discount"]), float(p["base"]))


def _ideal(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    if p["ideal"] == "run":
        return IdealDcgRun(*_dcg_args(m, p))
    if p["ideal_cutoff"] == "list":
        return IdcgList(*_dcg_args(m, p))
    return Idcg(*_dcg_args(m, p))


def _ap(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    t = _threshold(p)
    denominator: Node = NRel(t)
    if p.get("denominator", "R") == "min_R_k" and m.cutoff is not None:
        denominator = Least(denominator, Const(float(m.cutoff)))
    elif p.get("denominator", "R") == "relret":
        denominator = Relret(t, m.cutoff)
    return Div0(ApSum(t, m.cutoff), denominator)


def _relret(m: Metric, p: Mapping[str, ParamValue], k: int | None = None) -> Node:
    return Relret(_threshold(p), k)


def _nrel(p: Mapping[str, ParamValue]) -> Node:
    return NRel(_threshold(p))


def _add(*nodes: Node) -> Node:
    out = nodes[0]
    for n in nodes[1:]:
        out = Add(out, n)
    return out


def _fscore(precision: Node, recall: Node, weight: float) -> Node:
    """(w + 1)·P·R / (w·P + R), 0 when P = R = 0 (trec_eval set_F's form; w = 1: F1)."""
    num = Mul(Const(weight + 1.0), Mul(precision, recall))
    return Div0(num, _add(Mul(Const(weight), precision), recall))


def _set_p(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    return Div0(_relret(m, p), Count())


def _set_r(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    return Div0(_relret(m, p), _nrel(p))


def _levels(p: Mapping[str, ParamValue]) -> tuple[float, ...]:
    text = str(p["levels"]).strip()
    return tuple(float(x) for x in text.split(",")) if text else ELEVEN_POINTS


def _recall_shift(p: Mapping[str, ParamValue]) -> float:
    """Interpolated precision's recall cutoff is floor(x · R + shift): trec_eval 10's lround
    (0.5), trec_eval 9's (long)(x · R + 0.9)."""
    return 0.9 if p["trec_eval"] == "9" else 0.5


def _utility(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    relret, ret, nrel = _relret(m, p), Count(), _nrel(p)
    nonrel_ret = Sub(ret, relret)
    rel_missed = Sub(nrel, relret)
    rest = Sub(_add(Const(float(p["docs"])), relret), _add(ret, nrel))
    return _add(
        Mul(Const(float(p["a"])), relret),
        Mul(Const(float(p["b"])), nonrel_ret),
        Mul(Const(float(p["c"])), rel_missed),
        Mul(Const(float(p["d"])), rest),
    )


def _table_gain(p: Mapping[str, ParamValue]) -> Gain:
    """trec_eval's gain for G, ndcg_rel, Rndcg: the relevance level, or the table's value."""
    return Gain("linear", 0.0, parse_gain_table(str(p["gains"])))


def _ndcg_rel(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    g = _table_gain(p)
    npos = Npos(g)
    missed = Sub(npos, NposRet(g))
    end = Div0(DcgGain(None, g, "log2", 2.0), IdcgPos(g))
    return Div0(_add(NdcgRelSum(g), Mul(missed, end)), npos)


def _rndcg(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    g = _table_gain(p)
    dcg_n = DcgGain(None, g, "log2", 2.0)
    # trec_eval adds nDCG at the end of the ranking only when two or more documents follow the
    # last ideal boundary (its loop has already consumed one)
    tail = Positive(Sub(Count(), _add(Npos(g), Const(1.0))))
    beyond = Sub(RndcgBoundsInv(g), RndcgInv(g))
    total = _add(RndcgSum(g), Mul(dcg_n, beyond), Mul(tail, Div0(dcg_n, IdcgPos(g))))
    value = Div0(total, _add(RndcgBounds(g), tail))
    return Mul(Positive(_nrel(p)), value)


def _at_k(m: Metric, node: Node) -> Node:
    """``node`` / k (the cutoff; 1 without one)."""
    return Div(node, Const(float(m.cutoff or 1)))


def _accuracy(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    """1 − Σ n_r / (N · Rret) over the top k; NULL when N · Rret = 0 (ir-measures leaves out a
    query without a relevant document retrieved, and fails on one without a non-relevant)."""
    relret = _relret(m, p, m.cutoff)
    shown: Node = Count() if m.cutoff is None else Least(Const(float(m.cutoff)), Count())
    pairs = Mul(Sub(shown, relret), relret)
    return Sub(Const(1.0), DivNull(NonrelAboveSum(_threshold(p), m.cutoff), pairs))


def _judged(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    """Judged@k: 1 − unjudged / k; over the retrieved documents (no cutoff, or
    denominator='retrieved'), judged / min(k, retrieved), 0 for an empty ranking (ir-measures)."""
    unjudged: Node = NotJudged(m.cutoff) if p["negative"] == "judged" else Unjudged(m.cutoff)
    if m.cutoff is not None and p["denominator"] == "k":
        return Sub(Const(1.0), _at_k(m, unjudged))
    shown: Node = Count() if m.cutoff is None else Least(Const(float(m.cutoff)), Count())
    return Div0(Sub(shown, unjudged), shown)



# -- C/W/L user models (cwl_eval) ---------------------------------------------------------------


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


def _cwl_models(m: Metric, p: Mapping[str, ParamValue]) -> CwlModel:
    name = m.spec.name
    if name == "INSQ":
        return CwlModel("insq", float(p["T"]))
    if name == "SDCG":
        return CwlModel("log2", float(m.cutoff or 0))
    if name == "NERR8":
        return CwlModel("cutoff", float(m.cutoff or 0), "product")
    if name == "NERR9":
        return CwlModel("cutoff_recip", float(m.cutoff or 0), "product")
    if name == "NERR10":
        return CwlModel("geometric", float(p["p"]), "product")
    if name == "NERR11":
        return CwlModel("insq", float(p["T"]), "product")
    if name == "U":
        return CwlModel("linear", float(p["L"]), end=False, by_cost=True)
    if name == "TBG":
        return CwlModel("geometric", 2.0 ** (-1.0 / float(p["H"])), end=False, by_cost=True)
    raise KeyError(name)


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


def _cwl(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    """A C/W/L measure: cwl_eval's EU, ETU, EC, ETC or ED of the ranking (unjudged and padded
    documents of gain 0), or its residual (cwl_eval -r: ResX = X of the best case, where every
    unjudged and padded document is fully relevant, gain 1, minus X)."""
    value = str(p["value"])
    if value.startswith("Res"):
        x = value.removeprefix("Res")
        depth = int(p["depth"])
        return Sub(_cwl_value(x, _cwl_parts(m, p, 1.0), depth), _cwl_value(x, _cwl_parts(m, p, 0.0), depth))
    return _cwl_value(value, _cwl_parts(m, p, 0.0), int(p["depth"]))


def _ift_model(p: Mapping[str, ParamValue]) -> tuple[bool, bool, float, float, float, float, float, float]:
    """(goal, rate, T, b1, R1, A, b2, R2) of an IFT measure: it has the goal C1 when its spec has
    T, b1, R1, the rate C2 when it has A, b2, R2 (the parameters of a part it lacks: 1, unread)."""
    goal, rate = "R1" in p, "R2" in p
    t, b1, r1 = (float(p["T"]), float(p["b1"]), float(p["R1"])) if goal else (1.0, 1.0, 1.0)
    a, b2, r2 = (float(p["A"]), float(p["b2"]), float(p["R2"])) if rate else (1.0, 1.0, 1.0)
    return goal, rate, t, b1, r1, a, b2, r2


def _cwl_parts(m: Metric, p: Mapping[str, ParamValue], u: float) -> CwlParts:
    """The sums of :class:`CwlParts` from the sums over the ranked rows (at rank ≤ depth) and
    closed forms (or, for IFT, a walk) over the padding: the padding's part of Σ P_i g_i is u ·
    its Σ P_i, of the total gain u · (depth − m)."""
    lo, hi, depth = float(p["min_rel"]), float(p["max_rel"]), int(p["depth"])
    name = m.spec.name
    rows_u: Node
    rows_e: Node
    rows_c: Node
    tail: Node
    p_end: Node | None = None
    totals: tuple[Node, Node] | None = None
    if name == "INST":
        inst = (float(p["T"]), lo, hi, u, depth)
        rows_u, tail, p_end = InstUtility(*inst), InstTail(*inst), InstEnd(*inst)
        rows_e, rows_c = InstExamined(*inst, False), InstExamined(*inst, True)
    elif name == "BPM":
        bpm = (float(p["T"]), float(p["hb"]), float(p["gain_med"]), int(m.cutoff or 1), lo, hi, u, depth)
        rows_u, tail, p_end = BpmUtility(*bpm), BpmTail(*bpm), BpmEnd(*bpm)
        rows_e, rows_c = BpmExamined(*bpm, False), BpmExamined(*bpm, True)
    elif name in IFT_MEASURES:
        ift = (*_ift_model(p), lo, hi, u, depth)
        rows_u, tail = IftUtility(*ift), IftTail(*ift)
        rows_e, rows_c = IftExamined(*ift, False), IftExamined(*ift, True)
        # Σ L_i G_i directly: its C_i can lie within 1e-9 of 1, where Σ P g − P_end · G cancels
        totals = (IftTotal(*ift, False), IftTotal(*ift, True))
    else:
        model = _cwl_models(m, p)
        d, a, s = model.shape, model.a, model.survival
        total = math.fsum(
            cwl_discount_value(d, a, depth, i) for i in range(1, min(depth, _cwl_reach_limit(d, a, depth)) + 1)
        )
        end = cwl_discount_value(d, a, depth, depth + 1) if model.end else 0.0
        survival = CwlSurvival(s, lo, hi, u, depth)
        rows_u = CwlUtility(d, a, s, lo, hi, u, depth)
        rows_e, rows_c = CwlExamined(d, a, s, lo, hi, u, depth, False), CwlExamined(d, a, s, lo, hi, u, depth, True)
        if model.by_cost:  # no survival: S is 1, or 0 for a query missing from the run
            rows_u = CwlCostUtility(d, a, lo, hi, u, depth)
            rows_e, rows_c = CwlCostExamined(d, a, lo, hi, u, depth, False), CwlCostExamined(d, a, lo, hi, u, depth, True)
            tail = Mul(survival, CwlCostTail(d, a, depth))
            p_end = Mul(Const(end), survival)
        elif s == "product" and u > 0:
            # the first padded rank (gain 1) ends the survival: P_{m+1} = S · d(m + 1), and
            # P_{depth+1} is left only when nothing was padded (m = depth)
            tail = Mul(survival, CwlNextDiscount(d, a, depth))
            p_end = Mul(Mul(Const(end), survival), Positive(Sub(Count(), Const(float(depth - 1)))))
        else:
            tail = Mul(survival, Sub(Const(total), CwlDiscounted(d, a, depth)))
            p_end = Mul(Const(end), survival)
    gain: Node = CwlGainTotal(lo, hi, u, depth)
    utility: Node = rows_u
    padded = Sub(Const(float(depth)), Least(Count(), Const(float(depth))))
    if u > 0:
        utility = Add(rows_u, Mul(Const(u), tail))
        gain = Add(gain, Mul(Const(u), padded))
    cost = _add(rows_c, tail)
    if totals is None:
        # Abel summation: Σ_{i≤depth} (P_i − P_{i+1}) G_i = Σ P_i g_i − P_{depth+1} · G (K likewise)
        assert p_end is not None
        cost_total = Add(CwlCostTotal(depth), padded)
        totals = (Sub(utility, Mul(p_end, gain)), Sub(cost, Mul(p_end, cost_total)))
    return CwlParts(utility, _add(rows_e, tail), cost, *totals)


def _cwl_value(value: str, parts: CwlParts, depth: int) -> Node:
    """One of cwl_eval's numbers from :class:`CwlParts`: EU = Σ P g / ED, ETU, EC = Σ P c / ED (0
    for a query missing from the run, where ED = 0), ETC, ED."""
    if value == "EU":
        return Div0(parts.utility, parts.depth_e)
    if value == "ED":
        return parts.depth_e
    if value == "EC":
        return Div0(parts.cost, parts.depth_e)
    if value == "ETU":
        return parts.total_utility
    return parts.total_cost


def _cwl_reach_limit(shape: str, a: float, depth: int) -> int:
    """The last rank whose discount can be nonzero (the cutoff models stop at k)."""
    if shape in ("cutoff", "cutoff_recip", "log2"):
        return int(min(a, depth))
    return depth

IFT_MEASURES = frozenset({"IFTGoal", "IFTRate", "IFTGoalRate"})
"""cwl_eval's three information-foraging measures (C1, C2, C1 · C2)."""

CWL_MEASURES = frozenset({"INST", "INSQ", "BPM", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11", "U", "TBG", *IFT_MEASURES})
"""The C/W/L user models (cwl_eval's measures): their recipes read the chance of reading each
rank (rankwise.explain shows it)."""

RELSTRING_DEFAULT_K = 10
"""Documents RelString shows without a cutoff (trec_eval's default)."""

Recipe = Callable[[Metric, Mapping[str, ParamValue]], Node]

def _geometric_weights(p: float, n: Node) -> Node:
    """Σ_{d≤n} p^(d − 1): (1 − p^n) / (1 − p), n when p = 1."""
    if p == 1.0:
        return n
    return Div(Sub(Const(1.0), Power(Const(p), n)), Const(1.0 - p))


def _compat(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    """Compat (Clarke, Vtyurina & Smucker 2021) as ir-measures' compat provider computes it.

    RBO to depth D = max(n, R) of the run (n documents) and the run-ordered ideal (the R
    documents of relevance > 0): with C(m) = Σ_{d≤m} p^(d − 1) / d, a document at rank i in the
    run and i* in the ideal is in the overlap from depth max(i, i*) on, so
    Σ_{d≤D} p^(d − 1) |run_{:d} ∩ ideal_{:d}| / d = K · C(D) − Σ C(max(i, i*) − 1) over the K
    documents in both, C(D) = max(C(n), C(R)) (C increases). The ideal against itself scores
    Σ_{d≤D} p^(d − 1) min(d, R) / d = R · (C(D) − C(R)) + Σ_{d≤R} p^(d − 1) (normalize=True
    divides by it, 0 when R = 0); RBO itself divides by Σ_{d≤D} p^(d − 1)."""
    pr, g = float(p["p"]), Gain()
    c_depth = Greatest(RboWeights(pr), IdealRboWeights(g, pr))
    overlap = Sub(Mul(NposRet(g), c_depth), RboOverlapBefore(g, pr))
    if p["normalize"]:
        nrel = Npos(g)
        best = Add(Mul(nrel, Sub(c_depth, IdealRboWeights(g, pr))), _geometric_weights(pr, nrel))
        return Div0(overlap, best)
    return Div0(overlap, _geometric_weights(pr, Greatest(Count(), Npos(g))))


def _dcg(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    if p["ties"] == "average":
        return TieDcg(*_dcg_args(m, p))
    return DcgGain(*_dcg_args(m, p))


# -- diversity / intent-aware measures of TREC's ndeval ----------------------------------------

_EXACT_TERMS = 100_000
"""Ranks of ndeval's 'ideal ideal' summed term by term; beyond, the smooth tail is integrated."""


def ideal_ideal(alpha: float, k: int, weight: str) -> float:
    """Σ_{i=1..k} (1 − alpha)^(i − 1) · w(i), w(i) = 1 / log2(i + 1) or 1 / i: ndeval's
    "ideal ideal" per subtopic (every subtopic covered at every rank). Exact (term by term)
    to rank 100000; beyond, Σ f(i) = ∫ f + (f(a) − f(b)) / 2 (Euler–Maclaurin, the terms being
    smooth and decreasing), integrated on a log scale (ndeval stops at rank 20).

    >>> ideal_ideal(0.5, 2, "rank")
    1.25
    """
    d = 1.0 - alpha

    def f(x: float) -> float:
        w = 1.0 / math.log2(x + 1.0) if weight == "log2" else 1.0 / x
        return (d ** (x - 1.0) if d > 0 else (1.0 if x == 1.0 else 0.0)) * w

    total, term, i = 0.0, 1.0, 1
    while i <= min(k, _EXACT_TERMS):
        w = 1.0 / math.log2(i + 1.0) if weight == "log2" else 1.0 / i
        total += term * w
        term *= d
        if term == 0.0:
            return total
        i += 1
    if k <= _EXACT_TERMS:
        return total
    a, b = float(_EXACT_TERMS + 1), float(k)
    lo, hi, n = math.log(a), math.log(b), 4000  # Simpson on u = ln x
    h = (hi - lo) / n
    integral = sum(
        (1 if j in (0, n) else 4 if j % 2 else 2) * f(math.exp(lo + j * h)) * math.exp(lo + j * h)
        for j in range(n + 1)
    ) * h / 3
    return total + integral + (f(a) + f(b)) / 2


def _ndeval_raw(m: Metric, p: Mapping[str, ParamValue], weight: str) -> Node:
    """α-DCG@k or ERR-IA@k divided by ndeval's 'ideal ideal' (at k = 1 ndeval does not divide)."""
    alpha = float(p["alpha"])
    k = m.cutoff
    gain = IntentGain(_threshold(p), k, alpha, weight, 0.0)
    if k is None or k == 1:
        return gain
    return Div0(gain, Mul(Subtopics(_threshold(p)), Const(ideal_ideal(alpha, k, weight))))


def _ndeval_normalised(m: Metric, p: Mapping[str, ParamValue], weight: str, beta: float = 0.0) -> Node:
    t, alpha = _threshold(p), float(p["alpha"])
    return Div0(
        IntentGain(t, m.cutoff, alpha, weight, beta), IdealIntentGain(t, m.cutoff, alpha, weight, beta)
    )


def _nrbp(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    alpha, beta = float(p["alpha"]), float(p["beta"])
    gain = IntentGain(_threshold(p), None, alpha, "geometric", beta)
    return Mul(Const(1.0 - (1.0 - alpha) * beta), Div0(gain, Subtopics(_threshold(p))))


DIVERSITY_RECIPES: dict[str, Recipe] = {
    "alpha_DCG": lambda m, p: _ndeval_raw(m, p, "log2"),
    "alpha_nDCG": lambda m, p: _ndeval_normalised(m, p, "log2"),
    "ERR_IA": lambda m, p: _ndeval_raw(m, p, "rank"),
    "nERR_IA": lambda m, p: _ndeval_normalised(m, p, "rank"),
    "NRBP": _nrbp,
    "nNRBP": lambda m, p: _ndeval_normalised(m, p, "geometric", float(p["beta"])),
    "AP_IA": lambda m, p: Div0(IntentApSum(_threshold(p)), Subtopics(_threshold(p))),
    "P_IA": lambda m, p: Div0(
        IntentHits(_threshold(p), m.cutoff), Mul(Subtopics(_threshold(p)), Const(float(m.cutoff or 1)))
    ),
    "StRecall": lambda m, p: Div0(IntentNew(_threshold(p), m.cutoff), Subtopics(_threshold(p))),
}


RECIPES: dict[str, Recipe] = {
    "nDCG": lambda m, p: Div0(_dcg(m, p), _ideal(m, p)),
    "DCG": _dcg,
    "IDCG": _ideal,
    "CG": lambda m, p: CgGain(m.cutoff, gain_of(p)),
    "P": lambda m, p: _at_k(m, _relret(m, p, m.cutoff)),
    "R": lambda m, p: Div0(_relret(m, p, m.cutoff), _nrel(p)),
    "Success": lambda m, p: Positive(_relret(m, p, m.cutoff)),
    "Hits": lambda m, p: _relret(m, p, m.cutoff),
    "Accuracy": _accuracy,
    "AP": _ap,
    "GMAP": _ap,
    "RR": lambda m, p: Recip0(FirstRel(_threshold(p), m.cutoff)),
    "Rprec": lambda m, p: Div0(RelretAtNrel(_threshold(p), 1.0), _nrel(p)),
    "RprecMult": lambda m, p: Div0(
        RelretAtNrel(_threshold(p), float(p["mult"])),
        Floor(_add(Mul(Const(float(p["mult"])), _nrel(p)), Const(0.9))),
    ),
    "Bpref": lambda m, p: Div0(BprefSum(_threshold(p)), _nrel(p)),
    "GMBpref": lambda m, p: Div0(BprefSum(_threshold(p)), _nrel(p)),
    "IPrec": lambda m, p: Iprec(_threshold(p), float(p["recall"]), _recall_shift(p)),
    "IPrec11": lambda m, p: Div(
        _add(*(Iprec(_threshold(p), r, _recall_shift(p)) for r in _levels(p))), Const(float(len(_levels(p))))
    ),
    "SetP": _set_p,
    "SetF": lambda m, p: _fscore(_set_p(m, p), _set_r(m, p), float(p["beta"])),
    "SetAP": lambda m, p: Mul(_set_p(m, p), _set_r(m, p)),
    "SetRelP": lambda m, p: Div0(_relret(m, p), Least(Count(), _nrel(p))),
    "RelP": lambda m, p: Div0(_relret(m, p, m.cutoff), Least(Const(float(m.cutoff or 0)), _nrel(p))),
    "F1": lambda m, p: _fscore(
        _at_k(m, _relret(m, p, m.cutoff)), Div0(_relret(m, p, m.cutoff), _nrel(p)), 1.0
    ),
    "Utility": _utility,
    "InfAP": lambda m, p: Div0(InfapSum(_threshold(p)), _nrel(p)),
    "BinG": lambda m, p: Div0(BingSum(_threshold(p)), _nrel(p)),
    "RankEff": lambda m, p: Div0(RankeffSum(_threshold(p)), _nrel(p)),
    "RBP": lambda m, p: Mul(
        Const(1.0 - float(p["p"])), RbpSum(_threshold(p), float(p["p"]), m.cutoff, p["gain"] == "graded")
    ),
    "RBPResid": lambda m, p: _add(
        Mul(Const(1.0 - float(p["p"])), UnjudgedRbpSum(float(p["p"]))),
        Power(Const(float(p["p"])), Count()),
    ),
    "Compat": _compat,
    "ERR": lambda m, p: ErrSum(m.cutoff, float(p["max_rel"])),
    "NumNonRelJudgedRet": lambda m, p: NonrelJudged(_threshold(p)),
    "Unjudged": lambda m, p: _at_k(m, Unjudged(m.cutoff)),
    "Judged": _judged,
    "G": lambda m, p: Div0(GSum(_table_gain(p)), PosGain(_table_gain(p))),
    "nDCGRel": _ndcg_rel,
    "RnDCG": _rndcg,
    "RelString": lambda m, p: Relstring(m.cutoff or RELSTRING_DEFAULT_K),
    "NumQ": lambda m, p: Const(1.0),
    "NumRet": lambda m, p: Count() if math.isinf(float(p["rel"])) else Relret(_threshold(p), None),
    "NumRel": lambda m, p: _nrel(p),
    "NumRelRet": lambda m, p: Relret(_threshold(p), None),
    # C/W/L user models (cwl_eval)
    "INST": _cwl,
    "INSQ": _cwl,
    "BPM": _cwl,
    "SDCG": _cwl,
    "NERR8": _cwl,
    "NERR9": _cwl,
    "NERR10": _cwl,
    "NERR11": _cwl,
    "U": _cwl,
    "TBG": _cwl,
    "IFTGoal": _cwl,
    "IFTRate": _cwl,
    "IFTGoalRate": _cwl,
    # -- diversity / intent-aware measures of TREC's ndeval (issue 18, section 1) --------------
    **DIVERSITY_RECIPES,
}


def recipe(metric: Metric, conventions: Mapping[str, ParamValue]) -> Node:
    """The formula tree of ``metric`` with its parameters resolved against ``conventions``."""
    return RECIPES[metric.spec.name](metric, metric.resolve(conventions))


@dataclass(frozen=True)
class Output:
    """One output column of an evaluation: its label, its formula tree, whether it reads the
    judged-only ranking, its value type."""

    label: str
    tree: Node
    judged_only: bool = False
    value_type: str = "float"


def outputs(metrics: Sequence[Metric], conv: Conventions) -> list[Output]:
    """The output columns of ``metrics`` under ``conv``: the engines compile these."""
    params = conv.as_params()
    return [
        Output(m.label, recipe(m, params), bool(m.resolve(params).get("judged_only", False)), m.spec.value_type)
        for m in metrics
    ]


def reading_subtopics(metrics: Sequence[Metric], conv: Conventions) -> list[str]:
    """The labels of the ``metrics`` that read judgments per subtopic (the diversity measures:
    their trees hold a primitive of :data:`~rankwise.primitives.INTENT_SIDES`)."""
    from rankwise.primitives import INTENT_SIDES, leaves

    return [o.label for o in outputs(metrics, conv) if any(leaf.side in INTENT_SIDES for leaf in leaves(o.tree))]
