"""Group exposure parity (beyond accuracy, fair exposure): **set-level** metrics, one value per run
(per ``by=`` segment), that compare how much attention or exposure each group of the document
groups (``groups=``) receives over every user's list, per item of the group — FairRankTune's
``AWRF`` (Sapiezynski et al.'s attention, unrelated to TREC Fair Ranking's AWRF: rankwise's
``GroupAttention``) and ``EXP`` (demographic parity of exposure, Singh & Joachims: rankwise's
``GroupExposure``), with FairRankTune's aggregations ("combos") of the groups' values.

A group's value is Σ over the listed rows within k of the row's weight, times the item's weight
in the group, divided by the group's items (Σ of their weights: FairRankTune counts the items of
its group dictionary, the whole universe, not the listed ones). A listed item without a group adds
to none (FairRankTune raises a KeyError)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe
from rankwise.metrics.spec import MetricSpec, Param

if TYPE_CHECKING:
    from rankwise.primitives import Node

COMBO = Param(
    "combo", str, "MinMaxRatio",
    "how the groups' values make one (FairRankTune's combos): MinMaxRatio min/max (1 for parity), MaxMinRatio "
    "max/min, MaxMinDiff max − min, MaxAbsDiff max |v − mean|, MeanAbsDev mean |v − mean|, LTwo the Euclidean norm, "
    "Variance the population variance (0 for parity but LTwo)",
    choices=("MinMaxRatio", "MaxMinRatio", "MaxMinDiff", "MaxAbsDiff", "MeanAbsDev", "LTwo", "Variance"),
)
P = Param(
    "p", float, 0.5, "the first rank's share of the attention: rank r gets 100 p (1 − p)^(r − 1) (Sapiezynski et al.)",
    minimum=0.0, maximum=1.0, exclusive_min=True, exclusive_max=True,
    bounds="a share strictly between 0 and 1: at 0 no rank gets attention, at 1 only the first",
)
_COMBOS = (
    "combo: MinMaxRatio min_g v_g / max_g v_g, MaxMinRatio max / min, MaxMinDiff max − min, MaxAbsDiff max_g |v_g − "
    "v̄|, MeanAbsDev mean_g |v_g − v̄|, LTwo √(Σ_g v_g²), Variance mean_g (v_g − v̄)²; NULL where a ratio divides by 0 "
    "or nothing is listed"
)
_VALUE = (
    "Σ over the users' rows d at a rank r ≤ k of w(d, g) · {weight}, divided by the group's items Σ_{{d in groups=}} "
    "w(d, g) (w(d, g): d's weight in g, 1 for a document of one group; a group never listed: 0)"
)

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="GroupAttention",
        aliases=(),
        params=(P, COMBO),
        cutoff="optional",
        description="how evenly the document groups share the users' attention per item, rank r getting 100 p (1 − "
        "p)^(r − 1) (FairRankTune's AWRF, not TREC Fair Ranking's; one value per run)",
        formula=f"GroupAttention@k = combo over the groups g of v_g, v_g = {_VALUE.format(weight='100 p (1 − p)^(r − 1)')}; "
        + _COMBOS,
        citation="FairRankTune AWRF (FairRankTune/Metrics/AWRF.py); Sapiezynski, Zeng, Robertson, Mislove & Wilson, "
        "Quantifying the impact of user attention on fair group representation in ranked lists, WWW 2019 Companion",
        empty_value=None,
        aggregate="set",
        better="neither",
    ),
    MetricSpec(
        name="GroupExposure",
        aliases=(),
        params=(COMBO,),
        cutoff="optional",
        description="how evenly the document groups share the users' exposure per item, rank r getting 1 / log2(1 + "
        "r): demographic parity of exposure (FairRankTune's EXP; one value per run)",
        formula=f"GroupExposure@k = combo over the groups g of v_g, v_g = {_VALUE.format(weight='1 / log2(1 + r)')}; "
        + _COMBOS,
        citation="FairRankTune EXP (FairRankTune/Metrics/EXP.py); Singh & Joachims, Fairness of exposure in rankings, "
        "KDD 2018",
        empty_value=None,
        aggregate="set",
        better="neither",
    ),
)


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas over the set-level primitives (:mod:`rankwise.primitives.sets`)."""

    def attention(m: Measured, p: Params) -> Node:
        from rankwise.primitives import GroupExposureSpread

        return GroupExposureSpread(m.cutoff, "attention", float(p["p"]), p["combo"])  # type: ignore[arg-type]

    def exposure(m: Measured, p: Params) -> Node:
        from rankwise.primitives import GroupExposureSpread

        return GroupExposureSpread(m.cutoff, "log", 1.0, p["combo"])  # type: ignore[arg-type]

    return {"GroupAttention": attention, "GroupExposure": exposure}


FAMILY = MetricFamily(
    name="group exposure parity (one value per run)", specs=SPECS, recipes=recipes, reads=("groups",),
    beyond_accuracy=True,
)
