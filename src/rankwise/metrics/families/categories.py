"""The category family (beyond accuracy): how many and how evenly spread the categories of each
user's top k are, and how far from the user's history they are, from the item categories (``categories=``: each item's categories, none, one or
several; :mod:`rankwise.inputs.categories`). Each is a per-query (per-user) value:

- ``CategoryDiversity@k`` (RePlay's ``CategoricalDiversity``): the distinct categories of the top
  k's items over k (over k also for a list shorter than k). RePlay takes one category per
  recommendation row: an item with several categories counts each of them here (RePlay's rows
  would each take a place of the k); an item without a category takes its place in the top k and
  adds no category.
- ``CategoryEntropy(rank_weight=...)@k`` (LensKit's ``entropy`` and, with
  ``rank_weight='geometric'``, ``rank_biased_entropy``): the Shannon entropy (log2) of the
  category counts of the top k, each count + 10⁻⁶ as LensKit adds, over every category of the
  input (the columns of LensKit's item × category matrix). An item counts 1 in each of its
  categories (its row of the 0/1 matrix; no share 1/|categories|); an item without a category is
  a row of zeros; ``'geometric'`` weights the item at rank r by patience^(r − 1) (LensKit's
  ``GeometricRankWeight(patience)``, its default 0.85; 0 < patience < 1 as LensKit's bounds; the
  patience weighs nothing without ``'geometric'``).

- ``Miscalibration@k`` (Steck, Calibrated recommendations, RecSys 2018; no library has it): the
  Kullback-Leibler divergence C_KL = Σ_g p(g|u) ln(p(g|u) / q̃(g|u)) of the top k's category
  distribution q from the user's history's p, q̃ = (1 − α) q + α p, ``alpha`` = α (Steck's 0.01 by
  default; 0 < α < 1: α = 0 is the plain KL divergence, infinite where the list lacks a category of
  the history, which is why Steck mixes p in; α = 1 makes q̃ = p, every list 0), in nats. The term of
  a category the list lacks is −p ln α (p ln(p / (α p)) exactly, which α p rounding to 0 would make
  infinite for the tiniest α). The history is the user's training items (``train=``, each item once however often it is
  there); p(g|i) = 1/|categories(i)| for each category of item i, p(g|u) and q(g|u) the uniform means
  of p(g|i) over the history's and the top k's items that have a category (an item without one is
  left out of both); while the top k has no categorised item q is 0 (C_KL = ln(1/α)). A user without
  a categorised training item has no value (NULL). Steck's rank weights for q are not offered.
  ``definition='librec'`` (LibRec's ``CalibrationEvaluator``, that-recsys-lab/librec @ a4bb9ec,
  ``core/src/main/java/net/librec/eval/ranking/CalibrationEvaluator.java:62-170``): the roles
  reversed and another share, KL(p‖(1 − α) q + α p) in bits (its ``Maths.log(x, 2)``, ln x / ln 2)
  with p the top k's distribution and q the user's test set's (the qrels' relevant judgments,
  relevance ≥ the conventions' ``rel``; no training interactions read), each category's share the
  items having it over all the items (an item without a category counts in the denominator; an
  item of several categories counts fully in each: the shares sum above 1), summed over the
  categories the top k has. A user without a relevant judgment has no value (NULL: LibRec leaves
  it out of its mean), a top k without a categorised item 0 (every p is 0).

A user the run lists nothing for (``missing='zero'``) has no value (NULL; LensKit's entropy of an
empty list is NaN)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankwise.metrics.families.shared import PATIENCE
from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe
from rankwise.metrics.spec import MetricSpec, Param

if TYPE_CHECKING:
    from rankwise.primitives import Node

RANK_WEIGHT = Param(
    "rank_weight", str, "none",
    "the weight of the item at rank r in the category counts: 'none' (1: LensKit entropy) or 'geometric' "
    "(patience^(r − 1): LensKit rank_biased_entropy with GeometricRankWeight(patience), its default 0.85)",
    choices=("none", "geometric"),
)

ALPHA = Param(
    "alpha", float, 0.01,
    "the smoothing q̃ = (1 − α) q + α p of the distribution compared with p (Steck's α = 0.01, LibRec's fixed 0.01)",
    minimum=0.0, maximum=1.0, exclusive_min=True, exclusive_max=True,
    bounds="α = 0 is the plain KL divergence, infinite where the list lacks a category the other distribution "
    "has (Steck's reason for α); α = 1 mixes in the whole of it (q̃ = p: every list 0)",
)

CALIBRATION = Param(
    "definition", str, "steck",
    "whose miscalibration: 'steck' (the KL divergence of the top k's category distribution from the user's "
    "history's, each item's share 1/|its categories|, nats; Steck 2018) or 'librec' (LibRec CalibrationEvaluator: "
    "the KL divergence of the user's relevant judgments' distribution (the qrels, relevance ≥ the conventions' "
    "rel: its test set) from the top k's, each category's share the items having it over the items, bits; reads "
    "no training interactions)",
    choices=("steck", "librec"),
)

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="CategoryDiversity",
        aliases=("CategoricalDiversity",),
        params=(),
        cutoff="required",
        description="RePlay's CategoricalDiversity: the distinct categories of the top k's items over k, from the "
        "item categories (categories=)",
        formula="CategoryDiversity@k = |∪_{d ∈ L@k} cat(d)| / k, cat(d) item d's categories (categories=; none for "
        "an item without one), over k also when the list is shorter (above 1 where items have several categories; RePlay "
        "reads one category per row); NULL for a user with no list",
        citation="RePlay CategoricalDiversity (replay.metrics.CategoricalDiversity); Ziegler et al., Improving "
        "recommendation lists through topic diversification, WWW 2005",
        empty_value=None,
    ),
    MetricSpec(
        name="CategoryEntropy",
        aliases=(),
        params=(RANK_WEIGHT, PATIENCE),
        cutoff="optional",
        description="LensKit's entropy (rank_biased_entropy with rank_weight='geometric'): the Shannon entropy "
        "(bits) of the category counts of the top k, from the item categories (categories=)",
        formula="CategoryEntropy@k = −Σ_g p_g log2 p_g over the G categories of categories=, p_g = (c_g + ε) / "
        "Σ_h (c_h + ε), ε = 10⁻⁶ (LensKit), c_g = Σ_{r ≤ k, g ∈ cat(d_r)} w_r, w_r = 1 or patience^(r − 1) "
        "(rank_weight='geometric'; patience 0.85 by default); an item counts fully in each of its categories; NULL for a user with no list "
        "(LensKit NaN)",
        citation="LensKit entropy and rank_biased_entropy (lenskit.metrics.ranking._entropy); Shannon, A "
        "mathematical theory of communication, 1948",
        empty_value=None,
    ),
    MetricSpec(
        name="Miscalibration",
        aliases=("C_KL",),
        params=(ALPHA, CALIBRATION),
        cutoff="optional",
        description="Steck's miscalibration: the KL divergence (nats) of the top k's category distribution from "
        "the user's history's (train=), from the item categories (categories=); 0 when calibrated; "
        "definition='librec': LibRec's CalibrationEvaluator, the top k's against the relevant judgments' (bits)",
        formula="Miscalibration@k = Σ_g p(g|u) ln(p(g|u) / q̃(g|u)), q̃ = (1 − α) q(g|u) + α p(g|u), α = alpha (0.01); "
        "p(g|u) the mean of p(g|i) = 1/|cat(i)| (g ∈ cat(i)) over the user's training items with a category, "
        "q(g|u) the same over the top k's; q = 0 while the top k has none (ln(1/α)); NULL for a user without a "
        "categorised training item or with no list. definition='librec': Σ_{g: p_g > 0} p_g log2(p_g / ((1 − α) q_g "
        "+ α p_g)), p_g the share of the top k's items having g, q_g that of the user's relevant judgments (rel), an "
        "item without a category counted in both denominators; NULL for a user without a relevant judgment",
        citation="Steck, Calibrated recommendations, RecSys 2018 (eq. 1-4); LibRec CalibrationEvaluator "
        "(net.librec.eval.ranking, that-recsys-lab/librec @ a4bb9ec)",
        empty_value=None,
        better="lower",
    ),
)


def _diversity(m: Measured, p: Params) -> Node:
    """The distinct categories over k (NULL for a user with no list: the count's own empty value)."""
    from rankwise.primitives import CategoryCount, Const, Div

    k = int(m.cutoff or 0)
    return Div(CategoryCount(k), Const(float(k)))


def _entropy(m: Measured, p: Params) -> Node:
    from rankwise.primitives import PATIENCE as PATIENCE_DEFAULT
    from rankwise.primitives import CategoryEntropy

    geometric = p["rank_weight"] == "geometric"
    # the patience weighs nothing without the rank weights: one primitive whatever it says then
    return CategoryEntropy(m.cutoff, geometric, float(p["patience"]) if geometric else PATIENCE_DEFAULT)


def _miscalibration(m: Measured, p: Params) -> Node:
    from rankwise.primitives import Miscalibration

    return Miscalibration(m.cutoff, float(p["alpha"]), p["definition"])  # type: ignore[arg-type]


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas over the primitives."""
    return {"CategoryDiversity": _diversity, "CategoryEntropy": _entropy, "Miscalibration": _miscalibration}


FAMILY = MetricFamily(
    name="categories (from the item categories)", specs=SPECS, recipes=recipes, reads=("categories",),
    reads_by_spec={"Miscalibration": ("categories", "train")}, beyond_accuracy=True,
)
