"""Average precision and the precision-recall curve: AP (MAP; map_cut's AP@k), its geometric
mean GMAP, and interpolated precision at a recall level (IPrec) and averaged over levels
(IPrec11)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankwise.metrics.families.shared import (
    EMPTY,
    EXPECTED_TIES,
    GMAP_EPS,
    GMAP_FORM,
    JUDGED_ONLY,
    LABELS,
    REL,
    TREC_CUTS,
    add,
    nrel,
    threshold,
    when_empty,
)
from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe, TrecName
from rankwise.metrics.spec import MetricSpec, Param

if TYPE_CHECKING:
    from rankwise.primitives import Node

ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
"""The recall levels of trec_eval's 11-point interpolated precision (IPrec11's default)."""

# -- parameters ----------------------------------------------------------------------------------
TREC_EVAL = Param(
    "trec_eval",
    str,
    "10",
    "the trec_eval whose rounding to reproduce: '10', the recall cutoff lround(x · R); '9' "
    "(trec_eval 9.0.8, pytrec_eval), floor(x · R + 0.9)",
    choices=("10", "9"),
    convention="trec_eval",
)
AP_DENOMINATOR = Param(
    "denominator",
    str,
    "R",
    "what AP@k divides by: 'R', the relevant documents in the qrels (trec_eval map_cut, "
    "ir-measures, ranx); 'min_R_k', min(R, k) (Spark MLlib's meanAveragePrecisionAt, "
    "recommender libraries' MAP@k; without a cutoff: R); or 'relret', the relevant documents "
    "retrieved in the top k (cwl_eval, torchmetrics, scikit-learn's average_precision_score "
    "over the retrieved list); or 'k', the cutoff itself (rectools' MAP with divide_by_k; needs @k)",
    choices=("R", "min_R_k", "relret", "k"),
    needs_cutoff=("k",),
)
RECALL_LEVEL = Param(
    "recall", float, 0.0, "recall level in [0, 1]", minimum=0.0, maximum=1.0,
    bounds="a recall level is a fraction of the relevant documents",
)
LEVELS = Param(
    "levels", str, "",
    "recall levels to average, e.g. '0.25,0.5,0.75' (trec_eval 11pt_avg..25,.5,.75); empty: 0, 0.1, ..., 1",
    pattern=r"(\d*\.?\d+(,\d*\.?\d+)*)?",
    numbers="numbers", minimum=0.0, maximum=1.0,
    bounds="each level is a recall level, a fraction of the relevant documents",
)

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="AP",
        aliases=("map", "map_cut"),
        params=(REL, JUDGED_ONLY, AP_DENOMINATOR, EMPTY, LABELS),
        cutoff="optional",
        description="average precision (its mean over queries is MAP)",
        formula="AP@k = (1/R) Σ_{i≤k, rel_i ≥ rel} P@i, R = |relevant in qrels| (trec_eval map_cut); "
        "denominator='min_R_k': 1/min(R, k) (Spark MLlib meanAveragePrecisionAt); "
        "denominator='relret': 1/|relevant in top k| (0 when none; cwl_eval, torchmetrics); "
        "denominator='k': 1/k (rectools MAP divide_by_k); empty: the value of a query with nothing "
        "relevant (R = 0) that ranked something, 0 (the default), 1 (LightGBM's and XGBoost's map), "
        "'skip' (NULL, out of the mean) or 'error'",
        citation="Harman, TREC-2 overview, 1993; trec_eval map; Spark MLlib RankingMetrics",
        empty_value=0.0,
        trec_eval="map / map_cut",
    ),
    MetricSpec(
        name="GMAP",
        aliases=("gm_map",),
        params=(REL, JUDGED_ONLY, GMAP_FORM, GMAP_EPS, EXPECTED_TIES),
        cutoff="none",
        description="geometric mean of AP; per query the value is AP, the summary is the geometric mean",
        formula="GMAP = exp(mean(log(max(AP, eps)))) (trec_eval), or (Π (AP + eps))^(1/n) − eps (form='shifted')",
        citation="Robertson, On GMAP, CIKM 2006; trec_eval gm_map",
        empty_value=0.0,
        aggregate="gmean",
        trec_eval="gm_map",
    ),
    MetricSpec(
        name="IPrec",
        aliases=("iprec_at_recall",),
        params=(RECALL_LEVEL, REL, JUDGED_ONLY, TREC_EVAL),
        cutoff="none",
        description="interpolated precision at a recall level",
        formula="IPrec(recall=x) = max{P@i : relret@i ≥ lround(x · R)} (0 when none; trec_eval 10 rounding; "
        "trec_eval='9': floor(x · R + 0.9))",
        citation="trec_eval iprec_at_recall",
        empty_value=0.0,
        trec_eval="iprec_at_recall",
    ),
    MetricSpec(
        name="IPrec11",
        aliases=("eleven_pt_avg",),
        params=(LEVELS, REL, JUDGED_ONLY, TREC_EVAL),
        cutoff="none",
        description="11-point average interpolated precision",
        formula="IPrec11 = (1/11) Σ_{x ∈ 0, 0.1, …, 1} IPrec(recall=x) (or the mean over the given levels)",
        citation="trec_eval 11pt_avg",
        empty_value=0.0,
        trec_eval="11pt_avg",
    ),
)


# -- recipes -------------------------------------------------------------------------------------
def _ap(m: Measured, p: Params) -> Node:
    from rankwise.primitives import ApSum, Const, Div0, Least, Relret

    t = threshold(p)
    denominator: Node = nrel(p)
    if p.get("denominator", "R") == "min_R_k" and m.cutoff is not None:
        denominator = Least(denominator, Const(float(m.cutoff)))
    elif p.get("denominator", "R") == "relret":
        denominator = Relret(t, m.cutoff)
    elif p.get("denominator", "R") == "k" and m.cutoff is not None:  # refused without @k
        denominator = Const(float(m.cutoff))
    return when_empty(m, p, nrel(p), Div0(ApSum(t, m.cutoff), denominator))


def _levels(p: Params) -> tuple[float, ...]:
    text = str(p["levels"]).strip()
    return tuple(float(x) for x in text.split(",")) if text else ELEVEN_POINTS


def _recall_shift(p: Params) -> float:
    """Interpolated precision's recall cutoff is floor(x · R + shift): trec_eval 10's lround
    (0.5), trec_eval 9's (long)(x · R + 0.9)."""
    return 0.9 if p["trec_eval"] == "9" else 0.5


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas over the primitives."""
    from rankwise.primitives import Const, Div, Iprec

    return {
        "AP": _ap,
        "GMAP": _ap,
        "IPrec": lambda m, p: Iprec(threshold(p), float(p["recall"]), _recall_shift(p)),
        "IPrec11": lambda m, p: Div(
            add(*(Iprec(threshold(p), r, _recall_shift(p)) for r in _levels(p))), Const(float(len(_levels(p))))
        ),
    }


FAMILY = MetricFamily(
    name="average precision",
    specs=SPECS,
    recipes=recipes,
    trec_eval={
        "map": TrecName("AP", place=4, official=True),
        "gm_map": TrecName("GMAP", place=5, official=True),
        "11pt_avg": TrecName("IPrec11", place=17),
        "map_cut": TrecName("AP", "cutoff", defaults=TREC_CUTS, place=24),
        "iprec_at_recall": TrecName("IPrec", "param", "recall", ELEVEN_POINTS, "{:.2f}", place=9, official=True),
    },
    ranx={"AP": "map, map@k"},
    ir_measures={"AP": "AP", "IPrec": "IPrec"},
)
