"""Catalog coverage and concentration (beyond accuracy): **set-level** metrics, one value per run
(per ``by=`` segment) computed from every scored user's list at once, never a mean of per-user
values (:attr:`~rankwise.metrics.spec.MetricSpec.aggregate` ``'set'``): how much of the catalog
the lists reach, how evenly their exposure spreads over the items, how unfamiliar the listed
items are. Each is a library's definition under its name, the variants named (the libraries
disagree on the denominator and on which items count).

The users are those the per-query metrics score: the judged users the run lists (a user only in
the qrels lists nothing and adds nothing). ``evaluate(..., per_query=False)`` gives these values
beside the means of the per-query metrics; ``compare`` gives their differences with a bootstrap
interval over the users."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankwise.conventions import LIMIT
from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe
from rankwise.metrics.spec import MetricSpec, Param

if TYPE_CHECKING:
    from rankwise.primitives import Node

CATALOG = Param(
    "catalog", str, "catalog",
    "the items a share runs over: the catalog= input's ('catalog'; rectools, RecBole, rexmex) or the training "
    "items of train= ('train'; RePlay)",
    choices=("catalog", "train"),
)
GINI_CATALOG = Param(
    "catalog", str, "catalog",
    "the items the exposure spreads over, each never listed at 0: the catalog= input's ('catalog'; RecBole "
    "GiniIndex, LensKit with items=), the training items ('train'), or the listed items only ('listed'; LensKit "
    "without items=)",
    choices=("catalog", "train", "listed"),
)
COUNT = Param(
    "count", bool, False,
    "the number of distinct items listed rather than their share of the catalog (rectools CatalogCoverage's "
    "default, Elliot ItemCoverage); reads no catalog",
)
WEIGHT = Param(
    "weight", str, "count",
    "a listed row's exposure: 1 ('count': the lists holding the item; RecBole GiniIndex, LensKit ListGini) or "
    "patience^(rank − 1) ('geometric': LensKit ExposureGini)",
    choices=("count", "geometric"),
)
PATIENCE = Param(
    "patience", float, 0.85, "the geometric weight's ratio (LensKit GeometricRankWeight's default 0.85)",
    minimum=0.0, maximum=1.0, exclusive_min=True, exclusive_max=True,
    bounds="a weight patience^(rank − 1) that decreases down the list and stays positive",
)
BASE = Param(
    "base", float, 2.0, "the logarithm's base: 2 (bits; recommenders' distributional_coverage) or 'e' (nats; RecBole)",
    choices=("e",), minimum=1.0, exclusive_min=True, maximum=LIMIT,
    bounds="a logarithm that grows (base above 1); no natural ceiling",
)
PER_ITEM = Param(
    "per_item", bool, False, "divided by the number of distinct items listed (RecBole ShannonEntropy)",
)

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="CatalogCoverage",
        aliases=("ItemCoverage",),
        params=(CATALOG, COUNT),
        cutoff="optional",
        description="the share of the catalog that some user's list holds within k (one value per run)",
        formula="CatalogCoverage@k = |{d listed at a rank ≤ k by some user} ∩ C| / |C|, C the catalog (catalog="
        "'catalog': the catalog= input's items; 'train': the training items); count=True: |{d listed ≤ k}| (items "
        "outside any catalog counted); NULL when nothing is listed",
        citation="rexmex item_coverage (unrounded); rectools CatalogCoverage (normalize=True when the lists stay in "
        "the catalog; count=True: its default); RecBole ItemCoverage; RePlay Coverage (catalog='train'); Elliot "
        "ItemCoverage (count=True); Ge, Delgado-Battenfeld & Jannach, Beyond accuracy, RecSys 2010",
        empty_value=None,
        aggregate="set",
    ),
    MetricSpec(
        name="Gini",
        aliases=("GiniIndex", "ListGini", "ExposureGini"),
        params=(WEIGHT, PATIENCE, GINI_CATALOG),
        cutoff="optional",
        description="the Gini index of the items' exposure in the lists within k: 0 when every item is shown "
        "equally, towards 1 when a few take it all (one value per run)",
        formula="Gini@k = Σ_{i=1..n} (2i − n − 1) x_(i) / (n Σ_i x_i), x_(1) ≤ ... ≤ x_(n) the exposures of the n "
        "items of the catalog (a catalog item never listed: 0; a listed item outside it counted too; catalog="
        "'listed': the listed items only), x_d = Σ over the lists holding d at a rank r ≤ k of 1 (weight='count') "
        "or patience^(r − 1) ('geometric'); NULL when nothing is listed",
        citation="RecBole GiniIndex (num_items = the catalog); LensKit ListGini and ExposureGini (items= the "
        "catalog); Elliot's GiniIndex is 1 − Gini·n/(n − 1) over the training items (not this form)",
        empty_value=None,
        aggregate="set",
        better="lower",
    ),
    MetricSpec(
        name="Entropy",
        aliases=("ShannonEntropy",),
        params=(BASE, PER_ITEM),
        cutoff="optional",
        description="the Shannon entropy of the items' shares of the lists' rows within k (one value per run)",
        formula="Entropy@k = −Σ_d p_d log_base p_d, p_d = x_d / Σ x, x_d the lists holding item d at a rank ≤ k; "
        "per_item=True: divided by the number of distinct items listed; NULL when nothing is listed",
        citation="recommenders distributional_coverage (base 2, the whole lists: no k); RecBole ShannonEntropy "
        "(base='e', per_item=True); Elliot ShannonEntropy equals it when every list has k items",
        empty_value=None,
        aggregate="set",
    ),
    MetricSpec(
        name="SelfInformation",
        aliases=(),
        params=(),
        cutoff="optional",
        description="the mean self-information of the listed rows' items by their share of the training rows "
        "(recommenders' novelty; one value per run, every listed row weighing the same)",
        formula="SelfInformation@k = Σ_{(u, d) listed at a rank ≤ k} −log2(rows(d) / |T|) [d in training] / "
        "|{(u, d) listed at a rank ≤ k}|, rows(d) the training rows of item d, |T| the training's rows (an item "
        "never in training adds 0 and counts in the rows); NULL when nothing is listed",
        citation="recommenders novelty (recommenders.evaluation.python_evaluation; the whole lists: no k); "
        "Castells, Hurley & Vargas, Novelty and diversity in recommender systems, 2015",
        empty_value=None,
        aggregate="set",
    ),
)


def _base(p: Params) -> float:
    return math.e if p["base"] == "e" else float(p["base"])


def _coverage(m: Measured, p: Params) -> Node:
    from rankwise.primitives import CatalogItems, DivNull, ItemsListed

    if p["count"]:
        return ItemsListed(m.cutoff, "listed")
    within = str(p["catalog"])
    return DivNull(ItemsListed(m.cutoff, within), CatalogItems(m.cutoff, within))  # type: ignore[arg-type]


def _entropy(m: Measured, p: Params) -> Node:
    from rankwise.primitives import DivNull, ExposureEntropy, ItemsListed

    value = ExposureEntropy(m.cutoff, _base(p))
    return DivNull(value, ItemsListed(m.cutoff, "listed")) if p["per_item"] else value


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas over the set-level primitives (:mod:`rankwise.primitives.sets`)."""
    from rankwise.primitives import DivNull, ExposureGini, ExposureTotal, SelfInformationSum

    return {
        "CatalogCoverage": _coverage,
        "Gini": lambda m, p: ExposureGini(m.cutoff, p["weight"], float(p["patience"]), p["catalog"]),  # type: ignore[arg-type]
        "Entropy": _entropy,
        "SelfInformation": lambda m, p: DivNull(SelfInformationSum(m.cutoff), ExposureTotal(m.cutoff)),
    }


FAMILY = MetricFamily(
    name="catalog coverage and concentration (one value per run)", specs=SPECS, recipes=recipes,
    reads=("catalog", "train"), beyond_accuracy=True,
    reads_by_spec={"Entropy": (), "SelfInformation": ("train",)},
)
