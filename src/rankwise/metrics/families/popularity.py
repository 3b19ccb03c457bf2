"""Beyond accuracy, from the training interactions: how novel, how unseen and how popular each
user's recommendations are. Every metric here reads ``train=`` (the (user, item) rows a
recommender learnt from: the run's queries are its users, its documents the items), given to
:func:`rankwise.evaluate` and every other entry point beside the qrels and the run.

Each library computes these under its own name and with its own choices; each choice is a metric
or a parameter here, never a silent one:

- an item's popularity counts its training rows (rectools, RecBole: a user who interacted twice
  counts twice) or its distinct training users (Elliot; ``popularity='users'``);
- an item never in training counts as one user's (rectools' MIUF), 0 users (Elliot's EPC: novelty 1),
  the rarest training item's (Elliot's EFD), or 0 (ARP);
- the mean runs over the present items of the top k (rectools: min(k, n)) or over k (RePlay's
  Surprisal: a short list scores less).

A user the run lists nothing for (``missing='zero'``) has no value (NULL): the libraries score only
the users they recommended to."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankwise.conventions import LIMIT
from rankwise.metrics.families.shared import EMPTY, HEAD, REL, nrel, shown, threshold, when_empty
from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe
from rankwise.metrics.spec import MetricSpec, Param

if TYPE_CHECKING:
    from rankwise.primitives import Node

POPULARITY = Param(
    "popularity", str, "interactions",
    "an item's popularity: its training rows ('interactions': rectools AvgRecPopularity, RecBole "
    "AveragePopularity) or its distinct training users ('users': Elliot ARP)",
    choices=("interactions", "users"),
)
QUANTILE_POPULARITY = Param(
    "popularity", str, "users",
    "an item's popularity: its distinct training users ('users', LensKit's default count) or its training rows "
    "('interactions')",
    choices=("users", "interactions"),
)
NORMALIZE = Param(
    "normalize", bool, False,
    "divide by the training's rows (rectools AvgRecPopularity(normalize=True): each item's share of "
    "the interactions)",
)

TAIL_RATIO = Param(
    "tail_ratio", float, 0.1,
    "RecBole's long tail: at most 1, that share of the training items, the least interacted first (ties by item "
    "id; at least one item); above 1, the training items with at most that many training rows",
    minimum=0.0, exclusive_min=True, maximum=LIMIT,
    bounds="a share of the items (0 < r <= 1) or a number of rows (r > 1, no natural ceiling: LIMIT); 0 would hold "
    "no item",
)

SPLIT = Param(
    "split", str, "rule",
    "where the short head ends: 'rule' (Elliot's: the most popular training items by distinct users up to the "
    "share head of the training's (user, item) pairs; reads train=) or 'groups' (a split the user gives: the long "
    "tail is the items groups= puts in the group named by tail; reads groups=, not train=)",
    choices=("rule", "groups"),
)
TAIL = Param(
    "tail", str, "tail",
    "with split='groups', the group of groups= that is the long tail (compared as text: a group 1 is tail='1'); "
    "an item in it with a weight above 0 is in the long tail, one groups= does not hold in neither",
)
GIVEN_SPLIT = (
    "; split='groups': the long tail is the items groups= puts in the group tail (head and train= unused; Elliot's "
    "APLT/ACLT over a given long tail)"
)

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="MIUF",
        aliases=("MeanInvUserFreq",),
        params=(),
        cutoff="optional",
        description="mean inverse user frequency: how rare among the training users the recommended items are "
        "(rectools MeanInvUserFreq)",
        formula="MIUF@k = Σ_{i ≤ min(k, n)} −log2(max(users(d_i), 1) / N) / min(k, n), users(d) the distinct "
        "training users of item d (an item never in training counts as one user's), N the training's distinct "
        "users, n the items listed; NULL for a user with no list",
        citation="rectools MeanInvUserFreq; Zhou et al., Solving the apparent diversity-accuracy dilemma of "
        "recommender systems, PNAS 2010",
        empty_value=None,
    ),
    MetricSpec(
        name="Surprisal",
        aliases=(),
        params=(),
        cutoff="required",
        description="RePlay's Surprisal: MIUF scaled to [0, 1] by log2 N and averaged over k (a list shorter "
        "than k scores less)",
        formula="Surprisal@k = Σ_{i ≤ min(k, n)} w(d_i) / k, w(d) = log2(N / users(d)) / log2 N, 1 for an item "
        "never in training (= MIUF's term / log2 N); NULL when N = 1 and a training item is listed (0 / 0; "
        "RePlay's NaN) or the user has no list",
        citation="RePlay Surprisal (replay.metrics.Surprisal); Zhou et al., PNAS 2010",
        empty_value=None,
    ),
    MetricSpec(
        name="ARP",
        aliases=("AvgRecPopularity", "AveragePopularity"),
        params=(POPULARITY, NORMALIZE),
        cutoff="optional",
        description="average recommendation popularity: the mean training popularity of the items listed "
        "(rectools AvgRecPopularity, RecBole AveragePopularity, Elliot ARP)",
        formula="ARP@k = Σ_{i ≤ min(k, n)} pop(d_i) / min(k, n), pop(d) the training rows of item d "
        "(popularity='users': its distinct training users; 0 for an item never in training), divided by the "
        "training's rows with normalize=True; NULL for a user with no list",
        citation="rectools AvgRecPopularity; RecBole AveragePopularity; Elliot ARP; Abdollahpouri et al., "
        "Managing popularity bias in recommender systems with personalized re-ranking, FLAIRS 2019",
        empty_value=None,
        better="neither",
    ),
    MetricSpec(
        name="APLT",
        aliases=(),
        params=(HEAD, SPLIT, TAIL),
        cutoff="optional",
        description="average percentage of long tail items: the share of the items listed that are in the "
        "training's long tail (Elliot APLT)",
        formula="APLT@k = |{i ≤ min(k, n): d_i in the long tail}| / min(k, n); the short head: the training items "
        "by distinct users descending (ties by item id ascending; Elliot's follow its item order) while the users "
        "of the items before each stay below head · P (P the training's (user, item) pairs; the item that "
        "crosses is in the head), the long tail the other training items (an item never in training is in "
        "neither)" + GIVEN_SPLIT + "; NULL for a user with no list",
        citation="Elliot APLT; Abdollahpouri, Burke & Mobasher, Managing popularity bias in recommender systems "
        "with personalized re-ranking, FLAIRS 2019",
        empty_value=None,
    ),
    MetricSpec(
        name="ACLT",
        aliases=(),
        params=(HEAD, SPLIT, TAIL),
        cutoff="optional",
        description="average coverage of long tail items: how many of the items listed are in the training's "
        "long tail (Elliot ACLT)",
        formula="ACLT@k = |{i ≤ min(k, n): d_i in the long tail}| (the long tail as APLT's)" + GIVEN_SPLIT + "; "
        "NULL for a user with no list",
        citation="Elliot ACLT; Abdollahpouri, Burke & Mobasher, FLAIRS 2019",
        empty_value=None,
    ),
    MetricSpec(
        name="TailPercentage",
        aliases=(),
        params=(TAIL_RATIO,),
        cutoff="optional",
        description="RecBole's TailPercentage: the share of the items listed in its long tail, the least "
        "interacted training items",
        formula="TailPercentage@k = |{i ≤ min(k, n): d_i in T}| / min(k, n); T (tail_ratio = r ≤ 1): the first "
        "max(⌊r · m⌋, 1) of the m training items by training rows ascending, ties by item id (RecBole's by its "
        "internal id); r > 1: the training items with at most r rows; an item never in training is not in T; NULL "
        "for a user with no list",
        citation="RecBole TailPercentage (recbole/evaluator/metrics.py); Abdollahpouri et al., Managing popularity "
        "bias in recommender systems with personalized re-ranking, FLAIRS 2019",
        empty_value=None,
    ),
    MetricSpec(
        name="MeanPopRank",
        aliases=("obscurity",),
        params=(QUANTILE_POPULARITY,),
        cutoff="optional",
        description="LensKit's MeanPopRank (obscurity): the mean popularity quantile of the items listed, 1 for the "
        "most popular training item",
        formula="MeanPopRank@k = Σ_{i ≤ min(k, n)} q(d_i) / min(k, n), q(d) = the average ascending rank of "
        "pop(d) among the m training items / m (pop: distinct users, popularity='interactions': training rows; "
        "tied items share their average rank), 0 for an item never in training; NULL for a user with no list",
        citation="LensKit MeanPopRank (lenskit.metrics); Ekstrand & Mahant, Sturgeon and the Cool Kids, FLAIRS 2017; "
        "Vargas & Castells, RecSys 2011",
        empty_value=None,
        better="neither",
    ),
    MetricSpec(
        name="UnseenShare",
        aliases=(),
        params=(),
        cutoff="optional",
        description="the share of the items listed that the user has no training interaction with (RePlay's "
        "Novelty)",
        formula="UnseenShare@k = |{i ≤ min(k, n): (u, d_i) not in train}| / min(k, n); a user without training "
        "rows scores 1 (RePlay scores only the training users); NULL for a user with no list",
        citation="RePlay Novelty (replay.metrics.Novelty); Castells, Hurley & Vargas, Novelty and diversity in "
        "recommender systems, Recommender Systems Handbook 2015",
        empty_value=None,
    ),
    MetricSpec(
        name="EPC",
        aliases=(),
        params=(REL, EMPTY),
        cutoff="optional",
        description="expected popularity complement: the rank-discounted novelty (share of training users who "
        "have not seen the item) of the relevant items listed (Elliot EPC)",
        formula="EPC@k = Σ_{i ≤ min(k, n), rel(d_i) ≥ rel} (1 − users(d_i) / N) / log2(i + 1) / Σ_{i ≤ min(k, "
        "n)} 1 / log2(i + 1), users(d) the distinct training users of item d (0 for an item never in training), "
        "N the training's distinct users; 0 when nothing is relevant (empty=; Elliot leaves such a user out: "
        "empty='skip'); NULL for a user with no list",
        citation="Elliot EPC; Vargas & Castells, Rank and relevance in novelty and diversity metrics for "
        "recommender systems, RecSys 2011",
        empty_value=None,
    ),
    MetricSpec(
        name="EFD",
        aliases=(),
        params=(REL, EMPTY),
        cutoff="optional",
        description="expected free discovery: the rank-discounted self-information of the relevant items listed "
        "(Elliot EFD)",
        formula="EFD@k = Σ_{i ≤ min(k, n), rel(d_i) ≥ rel} −log2(max(users(d_i), m) / P) / log2(i + 1) / Σ_{i ≤ "
        "min(k, n)} 1 / log2(i + 1), users(d) the distinct training users of item d, P = Σ_d users(d) (the "
        "training's distinct (user, item) pairs), m the fewest users of a training item (an item never in "
        "training takes the rarest one's novelty); 0 when nothing is relevant (empty=; Elliot: empty='skip'); "
        "NULL for a user with no list",
        citation="Elliot EFD; Vargas & Castells, RecSys 2011",
        empty_value=None,
    ),
)


def _mean(m: Measured, total: Node) -> Node:
    """``total`` over the items listed within the cutoff, NULL for a user with no list."""
    from rankwise.primitives import DivNull

    return DivNull(total, shown(m))


def _arp(m: Measured, p: Params) -> Node:
    from rankwise.primitives import DivNull, PopularitySum, TrainRows

    value = _mean(m, PopularitySum(m.cutoff, str(p["popularity"])))  # type: ignore[arg-type]
    return DivNull(value, TrainRows()) if p["normalize"] else value


def _surprisal(m: Measured, p: Params) -> Node:
    """Σ w over k (NULL for a user with no list: the sum's own empty value)."""
    from rankwise.primitives import Const, DivNull, SurprisalSum

    return DivNull(SurprisalSum(m.cutoff), Const(float(m.cutoff or 0)))


def _discounted(m: Measured, p: Params, total: Node) -> Node:
    """Elliot's rank-discounted relevant novelty ``total`` over the list's own discounts."""
    from rankwise.primitives import DiscountSum, DivNull

    return when_empty(m, p, nrel(p), DivNull(total, DiscountSum(m.cutoff)))


def _long_tail(m: Measured, p: Params) -> Node:
    """The items listed within the cutoff that are in the long tail: by Elliot's rule from the
    training (``split='rule'``) or in the group ``tail`` of ``groups=`` (``split='groups'``)."""
    from rankwise.primitives import GroupTailSum, LongTailSum

    if p["split"] == "groups":
        return GroupTailSum(m.cutoff, str(p["tail"]))
    return LongTailSum(m.cutoff, float(p["head"]))


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas over the primitives."""
    from rankwise.primitives import (
        EfdSum,
        EpcSum,
        InvUserFreqSum,
        PopQuantileSum,
        TailRatioSum,
        UnseenSum,
    )

    return {
        "MIUF": lambda m, p: _mean(m, InvUserFreqSum(m.cutoff)),
        "Surprisal": _surprisal,
        "ARP": _arp,
        "APLT": lambda m, p: _mean(m, _long_tail(m, p)),
        "ACLT": _long_tail,
        "TailPercentage": lambda m, p: _mean(m, TailRatioSum(m.cutoff, float(p["tail_ratio"]))),
        "MeanPopRank": lambda m, p: _mean(m, PopQuantileSum(m.cutoff, str(p["popularity"]))),  # type: ignore[arg-type]
        "UnseenShare": lambda m, p: _mean(m, UnseenSum(m.cutoff)),
        "EPC": lambda m, p: _discounted(m, p, EpcSum(threshold(p), m.cutoff)),
        "EFD": lambda m, p: _discounted(m, p, EfdSum(threshold(p), m.cutoff)),
    }


FAMILY = MetricFamily(
    name="popularity and novelty (from the training interactions)", specs=SPECS, recipes=recipes, reads=("train",),
    reads_by_spec={"APLT": ("train", "groups"), "ACLT": ("train", "groups")},
    beyond_accuracy=True,
)
