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
from rankwise.metrics.families.shared import PATIENCE
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
BASE = Param(
    "base", float, 2.0, "the logarithm's base: 2 (bits; recommenders' distributional_coverage) or 'e' (nats; RecBole)",
    choices=("e",), minimum=1.0, exclusive_min=True, maximum=LIMIT,
    bounds="a logarithm that grows (base above 1); no natural ceiling",
)
GINI_DEFINITION = Param(
    "definition", str, "gini",
    "the Gini index itself ('gini'; RecBole, LensKit) or Elliot's GiniIndex ('elliot': 1 − Gini·n/(n − 1), 1 when "
    "every item is shown equally; Elliot's n is the training items, catalog='train')",
    choices=("gini", "elliot"),
)
ENTROPY_DEFINITION = Param(
    "definition", str, "shannon",
    "the entropy of the items' shares of the rows ('shannon'; recommenders, RecBole) or Elliot's ShannonEntropy "
    "('elliot': each list weighs 1, its rows 1/n each, and the sum is over the users scored, a user without a list "
    "among them with missing='zero'; equal to 'shannon' when every list has the same length)",
    choices=("shannon", "elliot"),
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
        params=(WEIGHT, PATIENCE, GINI_CATALOG, GINI_DEFINITION),
        cutoff="optional",
        description="the Gini index of the items' exposure in the lists within k: 0 when every item is shown "
        "equally, towards 1 when a few take it all (one value per run)",
        formula="Gini@k = Σ_{i=1..n} (2i − n − 1) x_(i) / (n Σ_i x_i), x_(1) ≤ ... ≤ x_(n) the exposures of the n "
        "items of the catalog (a catalog item never listed: 0; a listed item outside it counted too; catalog="
        "'listed': the listed items only), x_d = Σ over the lists holding d at a rank r ≤ k of 1 (weight='count') "
        "or patience^(r − 1) ('geometric'); NULL when nothing is listed. definition='elliot': 1 − Σ_{j=1..m} (2(j + n − "
        "m) − n − 1) x_(j) / ((n − 1) Σ x) over the m listed items, n the catalog's items only (= 1 − Gini·n/(n − 1) "
        "when the lists stay in the catalog; above 1 when they leave it much); NULL when n ≤ 1",
        citation="RecBole GiniIndex (num_items = the catalog); LensKit ListGini and ExposureGini (items= the "
        "catalog); Elliot GiniIndex: definition='elliot', catalog='train' (elliot/evaluation/metrics/diversity/"
        "gini_index/gini_index.py)",
        empty_value=None,
        aggregate="set",
        better="lower",
    ),
    MetricSpec(
        name="Entropy",
        aliases=("ShannonEntropy",),
        params=(BASE, PER_ITEM, ENTROPY_DEFINITION),
        cutoff="optional",
        description="the Shannon entropy of the items' shares of the lists' rows within k (one value per run)",
        formula="Entropy@k = −Σ_d p_d log_base p_d, p_d = x_d / Σ x, x_d the lists holding item d at a rank ≤ k; "
        "per_item=True: divided by the number of distinct items listed; NULL when nothing is listed. definition="
        "'elliot': Σ_d w_d · −log_base(x_d / Σ x) / U, w_d = Σ over the lists holding d of 1/n_u (n_u the rows of "
        "u's list within k), U the users scored",
        citation="recommenders distributional_coverage (base 2, the whole lists: no k); RecBole ShannonEntropy "
        "(base='e', per_item=True); Elliot ShannonEntropy: definition='elliot' (elliot/evaluation/metrics/"
        "diversity/shannon_entropy/shannon_entropy.py)",
        empty_value=None,
        aggregate="set",
    ),
    MetricSpec(
        name="Personalization",
        aliases=(),
        params=(),
        cutoff="optional",
        description="how different the users' lists are: 1 minus the mean cosine similarity of two users' lists "
        "within k (one value per run)",
        formula="Personalization@k = 1 − Σ_{u ≠ v} cos(L_u, L_v) / (U (U − 1)), cos(L_u, L_v) = |L_u ∩ L_v| / "
        "√(n_u n_v) over the sets of items listed at a rank ≤ k (n_u of them; an empty list: 0 with every list), U "
        "the users scored (a user without a list among them with missing='zero') = 1 − (Σ_d a_d² − L) / (U (U − "
        "1)), a_d = Σ_{u listing d} n_u^(−1/2), L the users with a list; NULL for fewer than two users",
        citation="rexmex personalization (rexmex/metrics/ranking.py; it subtracts U for the diagonal, so an empty "
        "list, whose similarity to itself is 0, raises its value by 1/(U (U − 1))); Zhou et al., Solving the "
        "apparent diversity-accuracy dilemma of recommender systems, PNAS 2010",
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
    from rankwise.primitives import (
        Const,
        DivNull,
        ElliotEntropySum,
        ExposureEntropy,
        ItemsListed,
        Mul,
        UsersScored,
    )

    value: Node
    if p["definition"] == "elliot":  # in bits: Elliot's
        value = DivNull(ElliotEntropySum(m.cutoff), UsersScored(m.cutoff))
        value = value if _base(p) == 2.0 else Mul(value, Const(1.0 / math.log2(_base(p))))
    else:
        value = ExposureEntropy(m.cutoff, _base(p))
    return DivNull(value, ItemsListed(m.cutoff, "listed")) if p["per_item"] else value


def _gini(m: Measured, p: Params) -> Node:
    from rankwise.primitives import ElliotGini, ExposureGini

    gini = ElliotGini if p["definition"] == "elliot" else ExposureGini
    return gini(m.cutoff, p["weight"], float(p["patience"]), p["catalog"])  # type: ignore[arg-type]


def _personalization(m: Measured, p: Params) -> Node:
    from rankwise.primitives import (
        Const,
        DivNull,
        ExposureSquares,
        ExposureTotal,
        Mul,
        Sub,
        UsersScored,
    )

    users = UsersScored(m.cutoff)
    pairs = Mul(users, Sub(users, Const(1.0)))  # the ordered pairs of users
    return Sub(Const(1.0), DivNull(Sub(ExposureSquares(m.cutoff, "root"), ExposureTotal(m.cutoff, "share")), pairs))


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas over the set-level primitives (:mod:`rankwise.primitives.sets`)."""
    from rankwise.primitives import DivNull, ExposureTotal, SelfInformationSum

    return {
        "CatalogCoverage": _coverage,
        "Gini": _gini,
        "Entropy": _entropy,
        "Personalization": _personalization,
        "SelfInformation": lambda m, p: DivNull(SelfInformationSum(m.cutoff), ExposureTotal(m.cutoff)),
    }


FAMILY = MetricFamily(
    name="catalog coverage and concentration (one value per run)", specs=SPECS, recipes=recipes,
    reads=("catalog", "train"), beyond_accuracy=True,
    reads_by_spec={"Entropy": (), "Personalization": (), "SelfInformation": ("train",)},
)
