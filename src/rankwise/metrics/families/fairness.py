"""The fair-exposure family (beyond accuracy): how a query's ranking shares its exposure among the
document groups (``groups=``: each document's group, or its weights over several groups) against
a target distribution (``target=``: one, one per query, ``'uniform'``, or by default
``'relevant'``: the groups' shares of the query's relevant documents). Per-query values:

- ``AWRF(definition=...)@k``, TREC Fair Ranking's attention-weighted rank fairness (Task 1, 2021
  and 2022): 1 − JS(a, t)², JS the Jensen-Shannon distance (natural log) between the groups'
  shares a of the top k's exposure (rank i weighs 1 / log2(max(i, 2))) and the target t;
- ``nDCG_AWRF(definition=...)@k``, TREC's Task 1 score: nDCG (binary gain, the same discount,
  the ideal over every relevant document) times AWRF;
- ``GroupEE_L``, ``GroupEE_D``, ``GroupEE_R``, TREC 2021 Task 2's expected exposure of the groups
  against their target exposure (share × Σ_{i ≤ 50} 1 / log2(max(i, 2))), a deterministic run
  (one sequence), unnormalised; ``definition='trec2022'``: TREC 2022's EEL (``EELMetric``), where
  only the relevant documents (relevance ≥ the ``rel`` convention) give their groups exposure and
  the target is share × Σ_{i ≤ 20} 1 / log2(max(i, 2)). TREC 2022's script raises a TypeError on a
  topic with a single relevant page (``qrels.loc[qid]`` gives a row there, not a frame); rankwise
  gives that topic its value by the same formula.

A document without a weight in the target's groups adds no exposure to any group (its rank's
discount is left out of the shares, which are normalised); where no document of the top k has
one, TREC 2021's code gives the uniform distribution's value and 2022's NaN (NULL here). A query
without a target (no relevant document with a group, under ``'relevant'``; none in a per-query
``target=``) or with no list has no value (NULL)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankwise.metrics.families.shared import REL
from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe
from rankwise.metrics.spec import Better, MetricSpec, Param

if TYPE_CHECKING:
    from rankwise.primitives import Node

DEFINITION = Param(
    "definition", str, "trec2021",
    "TREC Fair Ranking's year: 'trec2021' (a top k without a known group scores as the uniform distribution, "
    "metrics.py of fair-trec/trec2021-fair-public) or 'trec2022' (it has no value: wptrec's NaN)",
    choices=("trec2021", "trec2022"),
)

TASK2 = Param(
    "definition", str, "trec2021",
    "TREC Fair Ranking's year: 'trec2021' (Task 2: every document's weight, the target exposure over 50 ranks) or "
    "'trec2022' (its EEL: the relevant documents' weights alone, relevance ≥ the rel convention, the target exposure over 20 "
    "ranks)",
    choices=("trec2021", "trec2022"),
)

GROUP_EE: tuple[tuple[str, str, str, Better], ...] = (
    ("L", "the squared distance", "Σ_g (A_g − t_g)²", "lower"),
    ("D", "the disparity", "Σ_g A_g²", "lower"),
    ("R", "the relevance", "Σ_g A_g t_g", "higher"),
)
"""TREC 2021 Task 2's three measures: name, what, formula, which way is better."""

AWRF_FORMULA = (
    "AWRF@k = 1 − JSD(a, t), JSD the Jensen-Shannon divergence (natural log: the squared JS distance of "
    "scipy.spatial.distance.jensenshannon), a_g ∝ Σ_{i ≤ k} w_g(d_i) / log2(max(i, 2)) over the target's groups g "
    "(w_g(d) the document's weight in g, groups=), t the query's target (target=; default: the groups' shares of "
    "its relevant documents)"
)
CITATION = (
    "TREC Fair Ranking 2021 (fair-trec/trec2021-fair-public metrics.py) and 2022 (trec2022-fair-public "
    "wptrec/metrics/awrf.py); Sapiezynski et al., Quantifying the impact of user attention on fair group "
    "representation in ranked lists, WWW 2019 Companion"
)

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="AWRF",
        aliases=(),
        params=(DEFINITION,),
        cutoff="required",
        description="attention-weighted rank fairness: how close the groups' shares of the top k's exposure come "
        "to the target distribution (TREC Fair Ranking 2021/2022, Task 1)",
        formula=AWRF_FORMULA + "; no document of the top k in a target group: 1 − JSD(uniform, t) (trec2021) or "
        "NULL (trec2022); NULL for a query without a target or a list",
        citation=CITATION,
        empty_value=None,
    ),
    MetricSpec(
        name="nDCG_AWRF",
        aliases=(),
        params=(DEFINITION, REL),
        cutoff="required",
        description="TREC Fair Ranking's Task 1 score: nDCG with TREC's discount times AWRF",
        formula="nDCG_AWRF@k = nDCG@k × AWRF@k, nDCG@k = Σ_{i ≤ k} [rel_i ≥ rel] / log2(max(i, 2)) over "
        "Σ_{i ≤ min(k, R)} 1 / log2(max(i, 2)), R every relevant document (TREC's tgt_n: k = 1000 in 2021, 500 in "
        "2022); NULL for a query without a relevant document (TREC: NaN); " + AWRF_FORMULA,
        citation=CITATION,
        empty_value=None,
    ),
    *(
        MetricSpec(
            name=f"GroupEE_{measure}",
            aliases=(),
            params=(TASK2,),
            cutoff="optional",
            description=f"{what} of the groups' expected exposure against their target exposure (TREC Fair Ranking "
            "2021 Task 2's EE-" + measure + ", or 2022's EEL with definition='trec2022'; a deterministic run: one "
            "sequence)",
            formula=f"GroupEE_{measure} = {formula}, A_g = Σ_{{i ≤ k}} w_g(d_i) / log2(max(i, 2)) the exposure of the "
            "target's group g (groups=; a document without a weight in g adds none; definition='trec2022': the "
            "relevant documents', relevance ≥ the rel convention, alone), t_g = share_g × Σ_{i ≤ 50} 1 / log2(max(i, 2)) "
            "(trec2022: i ≤ 20; target=, default: the groups' shares of the relevant documents); NULL for a query "
            "without a target or a list",
            citation="TREC Fair Ranking 2021 Task 2 (fair-trec/trec2021-fair-public metrics.py Task2Metric) and 2022 "
            "(trec2022-fair-public wptrec/metrics/eel.py EELMetric); Diaz et al., Evaluating stochastic rankings with "
            "expected exposure, CIKM 2020",
            empty_value=None,
            better=better,
        )
        for measure, what, formula, better in GROUP_EE
    ),
)


def _awrf(m: Measured, p: Params) -> Node:
    from rankwise.primitives import Awrf

    return Awrf(m.cutoff, str(p["definition"]))  # type: ignore[arg-type]


def _ndcg_awrf(m: Measured, p: Params) -> Node:
    """TREC's nDCG (binary gain, discount max(1, log2 i): 'jarvelin' of base 2) times AWRF; NULL
    without a relevant document."""
    from rankwise.primitives import Count, DcgGain, Div0, Gain, Idcg, Mul, WhenEmpty

    gain = Gain("binary", float(p["rel"]))
    ideal = Idcg(m.cutoff, gain, "jarvelin", 2.0)
    ndcg = WhenEmpty(ideal, Count(), Div0(DcgGain(m.cutoff, gain, "jarvelin", 2.0), ideal), None, None)
    return Mul(ndcg, _awrf(m, p))


def _group_ee(measure: str) -> Recipe:
    def recipe(m: Measured, p: Params) -> Node:
        """TREC 2021 Task 2's measure (every document's exposure, 50 ranks), or 2022's EEL's
        (``definition='trec2022'``: the relevant documents', 20 ranks)."""
        from rankwise.primitives import (
            TREC_2022_TARGET_LENGTH,
            TrecExposure,
            TrecRelevantExposure,
            trec_available,
        )

        if p["definition"] == "trec2022":
            return TrecRelevantExposure(m.cutoff, measure, trec_available(TREC_2022_TARGET_LENGTH))  # type: ignore[arg-type]
        return TrecExposure(m.cutoff, measure, trec_available())  # type: ignore[arg-type]

    return recipe


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas over the primitives."""
    return {"AWRF": _awrf, "nDCG_AWRF": _ndcg_awrf, **{f"GroupEE_{m}": _group_ee(m) for m in "LDR"}}


FAMILY = MetricFamily(
    name="fair exposure (from the document groups)", specs=SPECS, recipes=recipes, reads=("groups",),
    beyond_accuracy=True,
)
