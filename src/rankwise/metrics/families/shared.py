"""What several families share: the parameters more than one family declares (the relevance
threshold, ``judged_only``, the geometric mean's form and floor) and the small formulas their
recipes build with.

A formula imports the primitives it builds with in its body, as every recipe does: listing the
metrics (``rankwise metrics``) reads the specs and imports no primitive."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rankwise.metrics.family import Measured, Params
from rankwise.metrics.spec import Param

if TYPE_CHECKING:
    from rankwise.primitives import Node

TREC_CUTS: tuple[float, ...] = (5.0, 10.0, 15.0, 20.0, 30.0, 100.0, 200.0, 500.0, 1000.0)
"""trec_eval's default cutoffs of its measures at k (P, recall, ndcg_cut, map_cut, relative_P)."""

REL = Param(
    "rel",
    float,
    1,
    "relevance threshold: a document is relevant when its relevance >= rel (trec_eval -l)",
    convention="rel",
    bounds="a threshold is only compared with relevance values, never computed with: any finite number",
)
JUDGED_ONLY = Param(
    "judged_only",
    bool,
    False,
    "drop unjudged documents from the ranking before measuring (trec_eval -J)",
    convention="judged_only",
)
GMAP_FORM = Param(
    "form",
    str,
    "trec_eval",
    "'trec_eval' = exp(mean(log(max(AP, eps)))); 'shifted' = (prod(AP + eps))^(1/n) - eps",
    choices=("trec_eval", "shifted"),
)
GMAP_EPS = Param(
    "eps",
    float,
    1e-5,
    "floor (trec_eval form) or shift (shifted form) applied to each AP",
    minimum=0.0,
    exclusive_min=True,
    maximum=1.0,
    bounds="log(max(AP, eps)) and log(AP + eps) need eps > 0: a query with AP = 0 would take "
    "log 0 (-inf in Polars, NULL in Spark, which the mean would skip); AP lies in [0, 1], so a "
    "floor above 1 would replace every AP by eps (a shift of 1, the mean of log(1 + AP), is "
    "the largest allowed)",
)


def threshold(p: Params) -> float:
    """The relevance threshold ``rel`` of resolved parameters."""
    return float(p["rel"])


def relret(p: Params, k: int | None = None) -> Node:
    """The relevant documents retrieved (within the top ``k``)."""
    from rankwise.primitives import Relret

    return Relret(threshold(p), k)


def nrel(p: Params) -> Node:
    """The relevant documents of the query's judgments (R)."""
    from rankwise.primitives import NRel

    return NRel(threshold(p))


def add(*nodes: Node) -> Node:
    """The sum of ``nodes``, left to right."""
    from rankwise.primitives import Add

    out = nodes[0]
    for n in nodes[1:]:
        out = Add(out, n)
    return out


def at_k(m: Measured, node: Node) -> Node:
    """``node`` / k (the cutoff; 1 without one)."""
    from rankwise.primitives import Const, Div

    return Div(node, Const(float(m.cutoff or 1)))
