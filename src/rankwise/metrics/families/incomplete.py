"""Measures for incomplete judgments: bpref and its geometric mean, inferred AP, binary G and rank
effectiveness (each counts the judged non-relevant documents ranked above the relevant)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankwise.metrics.families.shared import GMAP_EPS, GMAP_FORM, JUDGED_ONLY, REL, nrel, threshold
from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe, TrecName
from rankwise.metrics.spec import MetricSpec

if TYPE_CHECKING:
    from rankwise.primitives import Node

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="Bpref",
        aliases=(),
        params=(REL, JUDGED_ONLY),
        cutoff="none",
        description="binary preference: how many judged non-relevant documents rank above each relevant one",
        formula="Bpref = (1/R) Σ_{relevant retrieved r} (1 − min(n_r, R) / min(N, R)), n_r = judged non-relevant above r, N = judged non-relevant",
        citation="Buckley & Voorhees, Retrieval evaluation with incomplete information, SIGIR 2004; trec_eval bpref",
        empty_value=0.0,
        trec_eval="bpref",
    ),
    MetricSpec(
        name="GMBpref",
        aliases=("gm_bpref",),
        params=(REL, JUDGED_ONLY, GMAP_FORM, GMAP_EPS),
        cutoff="none",
        description="geometric mean of bpref; per query the value is bpref",
        formula="GMBpref = exp(mean(log(max(Bpref, eps)))) (or the shifted form)",
        citation="trec_eval gm_bpref",
        empty_value=0.0,
        aggregate="gmean",
        trec_eval="gm_bpref",
    ),
    MetricSpec(
        name="InfAP",
        aliases=(),
        params=(REL, JUDGED_ONLY),
        cutoff="none",
        description="inferred AP from sampled judgments (relevance −1 = pooled but unjudged)",
        formula="InfAP = (1/R) Σ_{relevant at rank i} (1 + X·(a + ε)/(a + n + 2ε)) / i, a/n/u = relevant/judged non-relevant/pooled-unjudged above, X = a + n + u, ε = 1e-5",
        citation="Yilmaz & Aslam, Estimating average precision with incomplete and imperfect judgments, CIKM 2006; trec_eval infAP",
        empty_value=0.0,
        trec_eval="infAP",
    ),
    MetricSpec(
        name="BinG",
        aliases=(),
        params=(REL, JUDGED_ONLY),
        cutoff="none",
        description="binary G: relevant documents discounted by the non-relevant ranked above",
        formula="BinG = (1/R) Σ_{relevant retrieved r} 1 / log2(2 + n_r), n_r = non-relevant above r",
        citation="trec_eval binG",
        empty_value=0.0,
        trec_eval="binG",
    ),
    MetricSpec(
        name="RankEff",
        aliases=(),
        params=(REL, JUDGED_ONLY),
        cutoff="none",
        description="rank effectiveness for incomplete judgments",
        formula="RankEff = (1/R) Σ_{relevant retrieved r} (1 − n_r / N), n_r = judged non-relevant above r, N = judged non-relevant (term 1 when N = 0)",
        citation="Büttcher, Clarke, Yeung & Soboroff, Reliable information retrieval evaluation with incomplete and biased judgements, SIGIR 2007",
        empty_value=0.0,
    ),
)


def _bpref(m: Measured, p: Params) -> Node:
    """Bpref per query (GMBpref's too: only the summary over queries differs)."""
    from rankwise.primitives import BprefSum, Div0

    return Div0(BprefSum(threshold(p)), nrel(p))


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas over the primitives."""
    from rankwise.primitives import BingSum, Div0, InfapSum, RankeffSum

    return {
        "Bpref": _bpref,
        "GMBpref": _bpref,
        "InfAP": lambda m, p: Div0(InfapSum(threshold(p)), nrel(p)),
        "BinG": lambda m, p: Div0(BingSum(threshold(p)), nrel(p)),
        "RankEff": lambda m, p: Div0(RankeffSum(threshold(p)), nrel(p)),
    }


FAMILY = MetricFamily(
    name="incomplete judgments",
    specs=SPECS,
    recipes=recipes,
    trec_eval={
        "bpref": TrecName("Bpref", place=7, official=True),
        "gm_bpref": TrecName("GMBpref", place=14),
        "binG": TrecName("BinG", place=18),
        "infAP": TrecName("InfAP", place=13),
    },
    ranx={"Bpref": "bpref"},
    ir_measures={"Bpref": "Bpref", "InfAP": "infAP"},
)
