"""The feature-diversity family (beyond accuracy): how unlike each other the items of a user's
top k are, by the item features (``features=``: a vector of one fixed dimension per item,
:mod:`rankwise.inputs.features`). Each is a per-query (per-user) value, the mean over the
unordered pairs of the top k's items:

- ``ILD(distance=...)@k``, intra-list diversity: the mean distance, cosine (1 − cosine similarity;
  recommenders' ``user_diversity`` with item features, 1 − rexmex's ``intra_list_similarity``),
  Hamming (the count of the features that differ, not normalised: rectools'
  ``IntraListDiversity`` with ``PairwiseHammingDistanceCalculator``) or Jaccard (1 − |A ∩ B| /
  |A ∪ B| over the nonzero features; no library has it) or, from the training interactions instead
  of the features (``train=``), co-occurrence (1 − the co-occurrence cosine of the two items,
  Σ_u n_u(i) n_u(j) / sqrt(rows(i) rows(j)), 0 for items that never co-occur: recommenders'
  ``user_diversity`` with its default similarity, under pandas 2);
- ``ILS@k``, intra-list similarity: rexmex's mean cosine similarity, which is 1 − ILD(cosine)
  wherever the list has a pair, and NULL (rexmex's NaN) where it has none.

A list of fewer than 2 items has no pair: ILD scores it 0 (rectools); rexmex gives NaN (``ILS``
gives NULL), recommenders leaves the user out. A cosine against a vector of zeros is a similarity
of 0 (sklearn's ``cosine_similarity``: distance 1); two items without a nonzero feature are at
Jaccard distance 0. The pairs grow as k², so a cutoff is required. A user the run lists nothing
for (``missing='zero'``) has no value (NULL)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankwise.metrics.families.shared import shown
from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe
from rankwise.metrics.spec import MetricSpec, Param

if TYPE_CHECKING:
    from rankwise.primitives import Node

DISTANCE = Param(
    "distance", str, "cosine",
    "the distance between two items' feature vectors: 'cosine' (1 − cosine similarity: recommenders "
    "user_diversity, 1 − rexmex intra_list_similarity), 'hamming' (the count of the features that differ: "
    "rectools IntraListDiversity) or 'jaccard' (1 − |A ∩ B| / |A ∪ B| of the nonzero features); 'cooccurrence' "
    "reads no feature: 1 − the items' co-occurrence cosine in the training interactions (train=: recommenders "
    "user_diversity's default)",
    choices=("cosine", "hamming", "jaccard", "cooccurrence"),
)

PAIRS = "P = n(n − 1)/2 the unordered pairs of the n = min(k, listed) items of the top k"

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="ILD",
        aliases=(),
        params=(DISTANCE,),
        cutoff="required",
        description="intra-list diversity: the mean distance between the feature vectors of the pairs of items "
        "listed (rectools IntraListDiversity, recommenders user_diversity with item features)",
        formula=f"ILD@k = Σ_{{i < j ≤ n}} dist(f(d_i), f(d_j)) / P, {PAIRS}, f(d) item d's features "
        "(features=), dist the distance= (cosine against a zero vector: 1; Jaccard of two empty sets: 0; "
        "cooccurrence: 1 − Σ_u n_u(a) n_u(b) / sqrt(rows(a) rows(b)) over the training users, n_u(a) u's training rows "
        "of item a, 0 for items that never co-occur); 0 for a list of one item (rectools; rexmex NaN, recommenders "
        "leaves the user out); NULL for a user with no list",
        citation="rectools IntraListDiversity; recommenders user_diversity; Ziegler et al., Improving "
        "recommendation lists through topic diversification, WWW 2005",
        empty_value=None,
    ),
    MetricSpec(
        name="ILS",
        aliases=("IntraListSimilarity",),
        params=(),
        cutoff="required",
        description="intra-list similarity: the mean cosine similarity of the feature vectors of the pairs of "
        "items listed (rexmex intra_list_similarity; 1 − ILD where the list has a pair)",
        formula=f"ILS@k = Σ_{{i < j ≤ n}} cos(f(d_i), f(d_j)) / P, {PAIRS}, cos 0 against a zero vector; NULL "
        "for a list of fewer than 2 items (rexmex NaN) or a user with no list",
        citation="rexmex intra_list_similarity; Ziegler et al., WWW 2005",
        empty_value=None,
        better="lower",
    ),
)


def _pairs(m: Measured) -> Node:
    """n(n − 1)/2, n the items listed within the cutoff."""
    from rankwise.primitives import Const, Div, Mul, Sub

    n = shown(m)
    return Div(Mul(n, Sub(n, Const(1.0))), Const(2.0))


def _ild(m: Measured, p: Params) -> Node:
    from rankwise.primitives import (
        Count,
        Div0,
        DivNull,
        PairCooccurrenceSum,
        PairDistanceSum,
        Positive,
        Sub,
    )

    if p["distance"] == "cooccurrence":  # Σ (1 − co) over the pairs
        distances: Node = Sub(_pairs(m), PairCooccurrenceSum(m.cutoff))
    else:
        distances = PairDistanceSum(m.cutoff, str(p["distance"]))  # type: ignore[arg-type]
    mean = Div0(distances, _pairs(m))
    # 0 for a list of one item, NULL for a user with no list
    return DivNull(mean, Positive(Count()))


def _ils(m: Measured, p: Params) -> Node:
    from rankwise.primitives import DivNull, PairDistanceSum, Sub

    pairs = _pairs(m)
    return DivNull(Sub(pairs, PairDistanceSum(m.cutoff, "cosine")), pairs)


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas over the primitives."""
    return {"ILD": _ild, "ILS": _ils}


FAMILY = MetricFamily(
    name="feature diversity (from the item features)", specs=SPECS, recipes=recipes, reads=("features",),
    reads_by_spec={"ILD": ("features", "train")}, beyond_accuracy=True,
)
