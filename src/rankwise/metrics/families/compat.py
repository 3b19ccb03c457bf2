"""Compatibility (Compat): the rank-biased overlap of the run with an ideal ranking, as
ir-measures' compat provider computes it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe
from rankwise.metrics.spec import MetricSpec, Param

if TYPE_CHECKING:
    from rankwise.primitives import Node

COMPAT_PERSISTENCE = Param(
    "p", float, 0.95, "persistence: rank-biased overlap weighs the agreement at depth d by p^(d − 1)",
    minimum=0.0, exclusive_min=True, maximum=1.0,
    bounds="RBO's weights p^(d − 1) must not grow with depth (p ≤ 1; p = 1 weighs every depth "
    "alike, the sums being finite); p = 0 would leave depth 1 alone (and 0^0 to the engines)",
)
COMPAT_NORMALIZE = Param(
    "normalize",
    bool,
    True,
    "divide by the value the ideal ranking itself scores (ir-measures: \"normalization for "
    "finite ideal rankings\"); False: the rank-biased overlap itself",
)

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="Compat",
        aliases=(),
        params=(COMPAT_PERSISTENCE, COMPAT_NORMALIZE),
        cutoff="none",
        description="compatibility: rank-biased overlap between the run and an ideal ranking of the "
        "judged documents (as ir-measures' compat provider)",
        formula="Compat = RBO(run, ideal) / RBO(ideal, ideal) (0 when nothing is relevant; "
        "normalize=False: RBO(run, ideal)), RBO(A, B) = Σ_{d≤D} p^(d − 1) · #(A_{:d} ∩ B_{:d}) / d "
        "/ Σ_{d≤D} p^(d − 1), D = max(n, R); the ideal: the documents of relevance > 0 by "
        "relevance, then in the run's order (one not retrieved as if scored 0)",
        citation="Clarke, Vtyurina & Smucker, Assessing top-k preferences, TOIS 2021 (RBO: Webber, "
        "Moffat & Zobel, TOIS 2010)",
        empty_value=0.0,
    ),
)


def _geometric_weights(p: float, n: Node) -> Node:
    """Σ_{d≤n} p^(d − 1): (1 − p^n) / (1 − p), n when p = 1."""
    from rankwise.primitives import Const, Div, Power, Sub

    if p == 1.0:
        return n
    return Div(Sub(Const(1.0), Power(Const(p), n)), Const(1.0 - p))


def _compat(m: Measured, p: Params) -> Node:
    """Compat (Clarke, Vtyurina & Smucker 2021) as ir-measures' compat provider computes it.

    RBO to depth D = max(n, R) of the run (n documents) and the run-ordered ideal (the R
    documents of relevance > 0): with C(m) = Σ_{d≤m} p^(d − 1) / d, a document at rank i in the
    run and i* in the ideal is in the overlap from depth max(i, i*) on, so
    Σ_{d≤D} p^(d − 1) |run_{:d} ∩ ideal_{:d}| / d = K · C(D) − Σ C(max(i, i*) − 1) over the K
    documents in both, C(D) = max(C(n), C(R)) (C increases). The ideal against itself scores
    Σ_{d≤D} p^(d − 1) min(d, R) / d = R · (C(D) − C(R)) + Σ_{d≤R} p^(d − 1) (normalize=True
    divides by it, 0 when R = 0); RBO itself divides by Σ_{d≤D} p^(d − 1)."""
    from rankwise.primitives import (
        Add,
        Count,
        Div0,
        Gain,
        Greatest,
        IdealRboWeights,
        Mul,
        Npos,
        NposRet,
        RboOverlapBefore,
        RboWeights,
        Sub,
    )

    pr, g = float(p["p"]), Gain()
    c_depth = Greatest(RboWeights(pr), IdealRboWeights(g, pr))
    overlap = Sub(Mul(NposRet(g), c_depth), RboOverlapBefore(g, pr))
    if p["normalize"]:
        nrel = Npos(g)
        best = Add(Mul(nrel, Sub(c_depth, IdealRboWeights(g, pr))), _geometric_weights(pr, nrel))
        return Div0(overlap, best)
    return Div0(overlap, _geometric_weights(pr, Greatest(Count(), Npos(g))))


def recipes() -> Mapping[str, Recipe]:
    """The family's formula over the primitives."""
    return {"Compat": _compat}


FAMILY = MetricFamily(
    name="rank-biased overlap",
    specs=SPECS,
    recipes=recipes,
    ir_measures={"Compat": "Compat"},
)
