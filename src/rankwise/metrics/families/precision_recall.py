"""Precision and recall: at a cutoff (P, R, Success, Hits, RelP, F1, Accuracy), at R (Rprec,
RprecMult), the first relevant document (RR), and over the whole retrieved set (SetP, SetF,
SetAP, SetRelP)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankwise.conventions import LIMIT
from rankwise.metrics.families.shared import (
    EMPTY,
    EMPTY_BINARY,
    EXPECTED_TIES,
    JUDGED_ONLY,
    LABELS,
    REL,
    TREC_CUTS,
    add,
    at_k,
    nrel,
    relret,
    shown,
    threshold,
    when_empty,
)
from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe, TrecName
from rankwise.metrics.spec import MetricSpec, Param

if TYPE_CHECKING:
    from rankwise.primitives import Node

# -- parameters ----------------------------------------------------------------------------------
MULT = Param(
    "mult", float, 1.0, "depth as a multiple of R: floor(mult · R + 0.9) (trec_eval Rprec_mult)",
    minimum=0.0, exclusive_min=True, maximum=LIMIT,
    bounds="the depth floor(mult·R + 0.9) is 0 for every query when mult <= 0 (and negative "
    "below); no natural ceiling, capped at 2**62 so that mult·R stays finite",
)
P_DENOMINATOR = Param(
    "denominator",
    str,
    "k",
    "what P@k divides by: 'k', even when fewer were retrieved (trec_eval P, ir-measures, ranx, "
    "Spark MLlib precisionAt); or 'retrieved', min(k, documents retrieved) (XGBoost pre@n, "
    "CatBoost PrecisionAt, torchmetrics RetrievalPrecision(adaptive_k=True), Elasticsearch "
    "precision); a query that retrieved nothing scores 0 either way",
    choices=("k", "retrieved"),
)
BETA = Param(
    "beta", float, 1.0,
    "weight w of recall in (w + 1)·P·R / (w·P + R) (trec_eval set_F's parameter; w = 1 is F1)",
    minimum=0.0, maximum=LIMIT,
    bounds="a negative weight can zero or flip the sign of the denominator w·P + R (F outside "
    "[0, 1]); w = 0 is set precision; no natural ceiling, capped at 2**62",
)


SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="P",
        aliases=("precision",),
        params=(REL, JUDGED_ONLY, P_DENOMINATOR, EXPECTED_TIES, EMPTY, LABELS),
        cutoff="required",
        description="precision at k",
        formula="P@k = |relevant in top k| / k (k even when fewer were retrieved); "
        "denominator='retrieved': / min(k, |retrieved|) (0 when nothing was retrieved; XGBoost pre@n, "
        "CatBoost PrecisionAt, torchmetrics adaptive_k); " + EMPTY_BINARY,
        citation="trec_eval P; XGBoost pre; CatBoost PrecisionAt",
        empty_value=0.0,
        trec_eval="P",
    ),
    MetricSpec(
        name="R",
        aliases=("recall", "set_recall", "SetR"),
        params=(REL, JUDGED_ONLY, EXPECTED_TIES, EMPTY),
        cutoff="optional",
        description="recall at k",
        formula="R@k = |relevant in top k| / |relevant in qrels| (0 when none is relevant); " + EMPTY_BINARY,
        citation="trec_eval recall",
        empty_value=0.0,
        trec_eval="recall",
    ),
    MetricSpec(
        name="Success",
        aliases=("hit_rate",),
        params=(REL, JUDGED_ONLY, EXPECTED_TIES, EMPTY),
        cutoff="required",
        description="1 if a relevant document is in the top k, else 0",
        formula="Success@k = [∃ i ≤ k: rel_i ≥ rel]; " + EMPTY_BINARY,
        citation="trec_eval success",
        empty_value=0.0,
        trec_eval="success",
    ),
    MetricSpec(
        name="Hits",
        aliases=(),
        params=(REL, JUDGED_ONLY, EXPECTED_TIES),
        cutoff="optional",
        description="number of relevant documents in the top k, averaged over queries (ranx hits)",
        formula="Hits@k = |relevant in top k| (without a cutoff: in the whole ranking)",
        citation="ranx hits",
        empty_value=0.0,
    ),
    MetricSpec(
        name="RR",
        aliases=("mrr", "recip_rank"),
        params=(REL, JUDGED_ONLY, EXPECTED_TIES, EMPTY),
        cutoff="optional",
        description="reciprocal rank of the first relevant document (its mean is MRR)",
        formula="RR@k = 1 / min{i ≤ k: rel_i ≥ rel} (0 when none); " + EMPTY_BINARY,
        citation="Voorhees, TREC-8 QA track, 1999; trec_eval recip_rank",
        empty_value=0.0,
        trec_eval="recip_rank",
    ),
    MetricSpec(
        name="Rprec",
        aliases=("r_precision",),
        params=(REL, JUDGED_ONLY, EMPTY),
        cutoff="none",
        description="precision at R, the number of relevant documents",
        formula="Rprec = |relevant in top R| / R (0 when R = 0); " + EMPTY_BINARY,
        citation="trec_eval Rprec",
        empty_value=0.0,
        trec_eval="Rprec",
    ),
    MetricSpec(
        name="RprecMult",
        aliases=("Rprec_mult",),
        params=(MULT, REL, JUDGED_ONLY),
        cutoff="none",
        description="precision at a multiple of R",
        formula="RprecMult = |relevant in top d| / d, d = floor(mult · R + 0.9) (0 when d = 0)",
        citation="trec_eval Rprec_mult",
        empty_value=0.0,
        trec_eval="Rprec_mult",
    ),
    MetricSpec(
        name="RelP",
        aliases=("relative_P",),
        params=(REL, JUDGED_ONLY, EXPECTED_TIES, EMPTY),
        cutoff="required",
        description="precision at k relative to the best possible at k",
        formula="RelP@k = |relevant in top k| / min(k, R) (0 when R = 0); " + EMPTY_BINARY,
        citation="trec_eval relative_P",
        empty_value=0.0,
        trec_eval="relative_P",
    ),
    MetricSpec(
        name="F1",
        aliases=(),
        params=(REL, JUDGED_ONLY),
        cutoff="required",
        description="harmonic mean of P@k and R@k",
        formula="F1@k = 2·P@k·R@k / (P@k + R@k) (0 when both are 0)",
        citation="van Rijsbergen 1979; ranx f1",
        empty_value=0.0,
    ),
    MetricSpec(
        name="Accuracy",
        aliases=(),
        params=(REL, JUDGED_ONLY),
        cutoff="optional",
        description="share of the (relevant, non-relevant) pairs of the top k ranked right: the chance that a "
        "relevant document ranks above a non-relevant one (a diagnostic)",
        formula="Accuracy@k = 1 − Σ_{relevant r in top k} n_r / (N · Rret), n_r = non-relevant (or unjudged) above r, "
        "N and Rret = non-relevant and relevant documents in the top k; NULL (undefined, left out of means and "
        "comparisons) when N · Rret = 0",
        citation="ir-measures Accuracy (MacAvaney et al.; it counts unjudged documents as relevant when rel <= 0, rankwise never does)",
        empty_value=None,
    ),
    MetricSpec(
        name="SetP",
        aliases=("set_P",),
        params=(REL, JUDGED_ONLY),
        cutoff="none",
        description="precision of the whole retrieved set",
        formula="SetP = |relevant retrieved| / |retrieved|",
        citation="trec_eval set_P",
        empty_value=0.0,
        trec_eval="set_P",
    ),
    MetricSpec(
        name="SetF",
        aliases=("set_F",),
        params=(BETA, REL, JUDGED_ONLY),
        cutoff="none",
        description="F measure of the whole retrieved set",
        formula="SetF = (beta + 1)·SetP·SetR / (beta·SetP + SetR) (0 when nothing relevant is retrieved)",
        citation="van Rijsbergen 1979; trec_eval set_F",
        empty_value=0.0,
        trec_eval="set_F",
    ),
    MetricSpec(
        name="SetAP",
        aliases=("set_map",),
        params=(REL, JUDGED_ONLY),
        cutoff="none",
        description="unranked average precision: SetP · SetR",
        formula="SetAP = |relevant retrieved|² / (|retrieved| · R)",
        citation="trec_eval set_map",
        empty_value=0.0,
        trec_eval="set_map",
    ),
    MetricSpec(
        name="SetRelP",
        aliases=("set_relative_P",),
        params=(REL, JUDGED_ONLY),
        cutoff="none",
        description="set precision relative to the best possible for the set's size",
        formula="SetRelP = |relevant retrieved| / min(|retrieved|, R)",
        citation="trec_eval set_relative_P",
        empty_value=0.0,
        trec_eval="set_relative_P",
    ),
)


# -- recipes -------------------------------------------------------------------------------------
def _fscore(precision: Node, recall: Node, weight: float) -> Node:
    """(w + 1)·P·R / (w·P + R), 0 when P = R = 0 (trec_eval set_F's form; w = 1: F1)."""
    from rankwise.primitives import Const, Div0, Mul

    num = Mul(Const(weight + 1.0), Mul(precision, recall))
    return Div0(num, add(Mul(Const(weight), precision), recall))


def _precision(m: Measured, p: Params) -> Node:
    """Relevant in the top k over k, or with ``denominator='retrieved'`` over min(k, documents
    retrieved) (0 when nothing was retrieved)."""
    from rankwise.primitives import Const, Count, Div0, Least

    value: Node
    if p.get("denominator", "k") == "retrieved":
        value = Div0(relret(p, m.cutoff), Least(Const(float(m.cutoff or 1)), Count()))
    else:
        value = at_k(m, relret(p, m.cutoff))
    return when_empty(m, p, nrel(p), value)


def _set_p(m: Measured, p: Params) -> Node:
    from rankwise.primitives import Count, Div0

    return Div0(relret(p), Count())


def _set_r(m: Measured, p: Params) -> Node:
    from rankwise.primitives import Div0

    return Div0(relret(p), nrel(p))


def _accuracy(m: Measured, p: Params) -> Node:
    """1 − Σ n_r / (N · Rret) over the top k; NULL when N · Rret = 0 (ir-measures leaves out a
    query without a relevant document retrieved, and fails on one without a non-relevant)."""
    from rankwise.primitives import Const, DivNull, Mul, NonrelAboveSum, Sub

    rr = relret(p, m.cutoff)
    pairs = Mul(Sub(shown(m), rr), rr)
    return Sub(Const(1.0), DivNull(NonrelAboveSum(threshold(p), m.cutoff), pairs))


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas over the primitives."""
    from rankwise.primitives import (
        Const,
        Count,
        Div0,
        FirstRel,
        Floor,
        Least,
        Mul,
        Positive,
        Recip0,
        RelretAtNrel,
    )

    return {
        "P": _precision,
        "R": lambda m, p: when_empty(m, p, nrel(p), Div0(relret(p, m.cutoff), nrel(p))),
        "Success": lambda m, p: when_empty(m, p, nrel(p), Positive(relret(p, m.cutoff))),
        "Hits": lambda m, p: relret(p, m.cutoff),
        "RR": lambda m, p: when_empty(m, p, nrel(p), Recip0(FirstRel(threshold(p), m.cutoff))),
        "Rprec": lambda m, p: when_empty(m, p, nrel(p), Div0(RelretAtNrel(threshold(p), 1.0), nrel(p))),
        "RprecMult": lambda m, p: Div0(
            RelretAtNrel(threshold(p), float(p["mult"])),
            Floor(add(Mul(Const(float(p["mult"])), nrel(p)), Const(0.9))),
        ),
        "RelP": lambda m, p: when_empty(
            m, p, nrel(p), Div0(relret(p, m.cutoff), Least(Const(float(m.cutoff or 0)), nrel(p)))
        ),
        "F1": lambda m, p: _fscore(at_k(m, relret(p, m.cutoff)), Div0(relret(p, m.cutoff), nrel(p)), 1.0),
        "Accuracy": _accuracy,
        "SetP": _set_p,
        "SetF": lambda m, p: _fscore(_set_p(m, p), _set_r(m, p), float(p["beta"])),
        "SetAP": lambda m, p: Mul(_set_p(m, p), _set_r(m, p)),
        "SetRelP": lambda m, p: Div0(relret(p), Least(Count(), nrel(p))),
    }


FAMILY = MetricFamily(
    name="precision and recall",
    specs=SPECS,
    recipes=recipes,
    trec_eval={
        "Rprec": TrecName("Rprec", place=6, official=True),
        "recip_rank": TrecName("RR", place=8, official=True),
        "set_P": TrecName("SetP", place=27),
        "set_recall": TrecName("R", place=29),
        "set_map": TrecName("SetAP", place=30),
        "set_relative_P": TrecName("SetRelP", place=28),
        "set_F": TrecName("SetF", "param", "beta", (1.0,), printed=False, place=31),
        "P": TrecName("P", "cutoff", defaults=TREC_CUTS, place=10, official=True),
        "recall": TrecName("R", "cutoff", defaults=TREC_CUTS, place=12),
        "relative_P": TrecName("RelP", "cutoff", defaults=TREC_CUTS, place=25),
        "success": TrecName("Success", "cutoff", defaults=(1.0, 5.0, 10.0), place=26),
        "Rprec_mult": TrecName(
            "RprecMult", "param", "mult", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0), "{:.2f}", place=15
        ),
    },
    ranx={
        "RR": "mrr, mrr@k", "P": "precision@k", "SetP": "precision", "R": "recall, recall@k",
        "Success": "hit_rate@k", "Hits": "hits, hits@k", "Rprec": "r-precision", "F1": "f1@k", "SetF": "f1",
    },
    ranx_special={"r-precision": ("Rprec", {}), "r_precision": ("Rprec", {})},
    ranx_whole_list={"precision": "SetP", "f1": "SetF"},
    ir_measures={
        name: name
        for name in ("P", "R", "Success", "RR", "Accuracy", "Rprec", "SetP", "SetF", "SetAP", "SetRelP")
    },
    ir_measures_flags={("SetP", "relative"): "SetRelP"},
)
