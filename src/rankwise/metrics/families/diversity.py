"""Diversity and intent-aware measures, exact to TREC's ndeval: α-DCG, α-nDCG, ERR-IA, nERR-IA,
NRBP, nNRBP, AP-IA, P-IA and subtopic recall, over subtopic judgments."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankwise.metrics.families.shared import JUDGED_ONLY, REL, ideal_ideal, threshold
from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe
from rankwise.metrics.spec import CutoffRule, MetricSpec, Param

if TYPE_CHECKING:
    from rankwise.primitives import Node

# -- parameters ----------------------------------------------------------------------------------
ALPHA = Param(
    "alpha",
    float,
    0.5,
    "redundancy intolerance: a document's gain for a subtopic already covered c times is (1 - alpha)^c (ndeval -alpha)",
    minimum=0.0,
    maximum=1.0,
    bounds="(1 - alpha)^c is a probability of novelty: alpha > 1 makes it negative or alternating, "
    "alpha < 0 makes a covered subtopic worth more than a new one; ndeval refuses both",
)
NRBP_BETA = Param(
    "beta",
    float,
    0.5,
    "patience: the user goes on from each rank to the next with probability beta (ndeval -beta)",
    minimum=0.0,
    maximum=1.0,
    bounds="beta^(rank - 1) is the probability of reaching a rank: outside [0, 1] it is no "
    "probability (negative, or growing with the rank); ndeval refuses both",
)
_NDEVAL = (
    "ndeval (TREC Web 2009-2014); subtopic qrels (query_id, subtopic, doc_id, relevance), a "
    "judgment relevant when relevance >= rel; subtopics never judged relevant are ignored"
)


def _diversity(
    name: str, aliases: tuple[str, ...], params: tuple[Param, ...], cutoff: CutoffRule,
    description: str, formula: str, citation: str,
) -> MetricSpec:
    return MetricSpec(
        name=name, aliases=aliases, params=params, cutoff=cutoff, description=description,
        formula=formula, citation=f"{citation}; exact to {_NDEVAL}", empty_value=0.0,
    )


SPECS: tuple[MetricSpec, ...] = (
    _diversity(
        "alpha_DCG", ("alpha-DCG", "α_DCG", "α-DCG"), (REL, ALPHA, JUDGED_ONLY), "required",
        "α-DCG@k divided by ndeval's 'ideal ideal' (every subtopic covered at every rank)",
        "α-DCG@k = Σ_{i≤k} Σ_s rel_{i,s} (1−α)^{c_s(i)} / log2(i+1) / (S · Σ_{i≤k} (1−α)^{i−1} / log2(i+1)), "
        "c_s(i) the documents above i covering subtopic s, S the subtopics judged relevant "
        "(k = 1: not divided, as ndeval)",
        "Clarke et al., SIGIR 2008",
    ),
    _diversity(
        "alpha_nDCG", ("alpha-nDCG", "α_nDCG", "α-nDCG"), (REL, ALPHA, JUDGED_ONLY), "required",
        "α-nDCG@k: α-DCG@k over that of ndeval's greedy ideal ranking",
        "α-nDCG@k = α-DCG@k / α-DCG@k of the greedy ideal (each rank: the document of largest "
        "Σ_s (1−α)^{c_s}, ties to the larger doc id); 0 when α-DCG@k = 0",
        "Clarke et al., SIGIR 2008",
    ),
    _diversity(
        "ERR_IA", ("ERR-IA",), (REL, ALPHA, JUDGED_ONLY), "required",
        "intent-aware ERR@k (ndeval's: novelty (1−α)^c, divided by the 'ideal ideal')",
        "ERR-IA@k = Σ_{i≤k} Σ_s rel_{i,s} (1−α)^{c_s(i)} / i / (S · Σ_{i≤k} (1−α)^{i−1} / i) (k = 1: not divided)",
        "Chapelle et al., CIKM 2009",
    ),
    _diversity(
        "nERR_IA", ("nERR-IA",), (REL, ALPHA, JUDGED_ONLY), "required",
        "intent-aware ERR@k over that of ndeval's greedy ideal ranking",
        "nERR-IA@k = ERR-IA@k / ERR-IA@k of the greedy ideal; 0 when ERR-IA@k = 0",
        "Chapelle et al., CIKM 2009",
    ),
    _diversity(
        "NRBP", (), (REL, ALPHA, NRBP_BETA), "none",
        "novelty- and rank-biased precision over the whole ranking",
        "NRBP = (1 − (1−α)β) / S · Σ_i β^{i−1} Σ_s rel_{i,s} (1−α)^{c_s(i)}",
        "Clarke, Kolla & Vechtomova, ICTIR 2009",
    ),
    _diversity(
        "nNRBP", (), (REL, ALPHA, NRBP_BETA), "none",
        "NRBP over that of ndeval's greedy ideal ranking",
        "nNRBP = NRBP / NRBP of the greedy ideal (0 when no subtopic is judged relevant; ndeval: NaN)",
        "Clarke, Kolla & Vechtomova, ICTIR 2009",
    ),
    _diversity(
        "AP_IA", ("MAP-IA", "MAP_IA"), (REL, JUDGED_ONLY), "none",
        "intent-aware average precision: the mean over subtopics of each subtopic's AP",
        "AP-IA = (1/S) Σ_s (1/R_s) Σ_{i: rel_{i,s}} |{j ≤ i: rel_{j,s}}| / i, R_s the relevant documents of s",
        "Agrawal et al., WSDM 2009",
    ),
    _diversity(
        "P_IA", ("P-IA",), (REL, JUDGED_ONLY), "required",
        "intent-aware precision@k: the mean over subtopics of P@k",
        "P-IA@k = Σ_{i≤k} Σ_s rel_{i,s} / (k · S)",
        "Agrawal et al., WSDM 2009",
    ),
    _diversity(
        "StRecall", ("strec", "st_recall"), (REL,), "required",
        "subtopic recall@k: the share of the subtopics covered by the top k",
        "StRecall@k = |{s: ∃ i ≤ k, rel_{i,s}}| / S",
        "Zhai, Cohen & Lafferty, SIGIR 2003",
    ),
)


# -- recipes -------------------------------------------------------------------------------------


def _ndeval_raw(m: Measured, p: Params, weight: str) -> Node:
    """α-DCG@k or ERR-IA@k divided by ndeval's 'ideal ideal' (at k = 1 ndeval does not divide)."""
    from rankwise.primitives import Const, Div0, IntentGain, Mul, Subtopics

    alpha = float(p["alpha"])
    k = m.cutoff
    gain = IntentGain(threshold(p), k, alpha, weight, 0.0)
    if k is None or k == 1:
        return gain
    return Div0(gain, Mul(Subtopics(threshold(p)), Const(ideal_ideal(alpha, k, weight))))


def _ndeval_normalised(m: Measured, p: Params, weight: str, beta: float = 0.0) -> Node:
    from rankwise.primitives import Div0, IdealIntentGain, IntentGain

    t, alpha = threshold(p), float(p["alpha"])
    return Div0(
        IntentGain(t, m.cutoff, alpha, weight, beta), IdealIntentGain(t, m.cutoff, alpha, weight, beta)
    )


def _nrbp(m: Measured, p: Params) -> Node:
    from rankwise.primitives import Const, Div0, IntentGain, Mul, Subtopics

    alpha, beta = float(p["alpha"]), float(p["beta"])
    gain = IntentGain(threshold(p), None, alpha, "geometric", beta)
    return Mul(Const(1.0 - (1.0 - alpha) * beta), Div0(gain, Subtopics(threshold(p))))


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas over the primitives (the subtopic judgments, the greedy ideal)."""
    from rankwise.primitives import Const, Div0, IntentApSum, IntentHits, IntentNew, Mul, Subtopics

    return {
        "alpha_DCG": lambda m, p: _ndeval_raw(m, p, "log2"),
        "alpha_nDCG": lambda m, p: _ndeval_normalised(m, p, "log2"),
        "ERR_IA": lambda m, p: _ndeval_raw(m, p, "rank"),
        "nERR_IA": lambda m, p: _ndeval_normalised(m, p, "rank"),
        "NRBP": _nrbp,
        "nNRBP": lambda m, p: _ndeval_normalised(m, p, "geometric", float(p["beta"])),
        "AP_IA": lambda m, p: Div0(IntentApSum(threshold(p)), Subtopics(threshold(p))),
        "P_IA": lambda m, p: Div0(
            IntentHits(threshold(p), m.cutoff), Mul(Subtopics(threshold(p)), Const(float(m.cutoff or 1)))
        ),
        "StRecall": lambda m, p: Div0(IntentNew(threshold(p), m.cutoff), Subtopics(threshold(p))),
    }


FAMILY = MetricFamily(
    name="diversity (ndeval)",
    specs=SPECS,
    recipes=recipes,
    ir_measures={spec.name: spec.name for spec in SPECS},
    ndeval={
        "alpha_DCG": "alpha-DCG@k", "alpha_nDCG": "alpha-nDCG@k", "ERR_IA": "ERR-IA@k", "nERR_IA": "nERR-IA@k",
        "NRBP": "NRBP", "nNRBP": "nNRBP", "AP_IA": "MAP-IA", "P_IA": "P-IA@k", "StRecall": "strec@k",
    },
)
