"""The primitives of the popularity family (beyond accuracy): per-query sums over the ranked rows
of values of each row's item in the training interactions (``train=``): how many distinct users
and rows it has there (``iusers``, ``irows``; 0 for an item never in training), whether the
query's user has it (``seen``), and the training's totals (``nusers``, ``nrows``, ``npairs``,
``minusers``), which every row carries. Their SQL macros are ``sql/50_popularity.sql``.

Each sum runs over the ranks ≤ k (k = None: every rank); a query with no ranked row sums to 0
(NULL where a primitive says so)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from rankwise.primitives.core import Column, Primitive

Popularity = Literal["interactions", "users"]
"""An item's popularity: its training rows (rectools, RecBole) or its distinct training users
(Elliot)."""


@dataclass(frozen=True, repr=False, eq=False)
class InvUserFreqSum(Primitive):
    """Σ_{rnk ≤ k} −log2(max(iusers, 1) / nusers): each item's self-information by its share of
    the training users, an item never in training counted as one user's (rectools'
    MeanInvUserFreq)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "iusers", "nusers")
    k: int | None


@dataclass(frozen=True, repr=False, eq=False)
class SurprisalSum(Primitive):
    """Σ_{rnk ≤ k} w(item), w = log2(nusers / iusers) / log2(nusers) for an item in training, 1
    for one never in training (RePlay's Surprisal); NULL when a training item is listed and
    nusers = 1 (0 / 0: RePlay's NaN), and for a query with no ranked row."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "iusers", "nusers")
    empty: ClassVar[float | str | None] = None
    k: int | None


@dataclass(frozen=True, repr=False, eq=False)
class PopularitySum(Primitive):
    """Σ_{rnk ≤ k} pop(item): the training rows (``interactions``) or distinct training users
    (``users``) of each item, 0 for an item never in training."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "irows", "iusers")
    k: int | None
    popularity: Popularity


@dataclass(frozen=True, repr=False, eq=False)
class UnseenSum(Primitive):
    """Σ_{rnk ≤ k} [the query's user has no training row of the item]."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "seen")
    k: int | None


@dataclass(frozen=True, repr=False, eq=False)
class LongTailSum(Primitive):
    """Σ_{rnk ≤ k} [the item is in the long tail]: a training item outside the short head, the
    most popular items (by distinct users, ties by item id) whose users before them stay below
    ``head`` of the training's (user, item) pairs (the item that crosses the line is in the head;
    Elliot's 80% rule). An item never in training is in neither."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "iusers", "ibefore", "npairs")
    empty: ClassVar[float | str | None] = None
    k: int | None
    head: float


@dataclass(frozen=True, repr=False, eq=False)
class GroupTailSum(Primitive):
    """Σ_{rnk ≤ k} [the item is in the long tail the user gives]: ``groups=`` puts it in the group
    ``tail`` with a weight above 0 (compared as text). An item ``groups=`` does not hold is in
    neither."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "fgroups")
    empty: ClassVar[float | str | None] = None
    k: int | None
    tail: str


@dataclass(frozen=True, repr=False, eq=False)
class TailRatioSum(Primitive):
    """Σ_{rnk ≤ k} [the item is in RecBole's long tail]: with ``tail_ratio`` ≤ 1, the first
    max(⌊nitems · tail_ratio⌋, 1) training items by training rows ascending (ties by item id);
    above 1, the training items with at most ``tail_ratio`` training rows. An item never in
    training is not in it."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "irows", "iasc", "nitems")
    empty: ClassVar[float | str | None] = None
    k: int | None
    tail_ratio: float


@dataclass(frozen=True, repr=False, eq=False)
class PopQuantileSum(Primitive):
    """Σ_{rnk ≤ k} q(item): the item's popularity quantile among the training items, its average
    ascending rank by distinct users (``users``) or training rows (``interactions``) over their
    number (1 for the most popular), 0 for an item never in training (LensKit's MeanPopRank)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "iqusers", "iqrows")
    k: int | None
    popularity: Popularity


@dataclass(frozen=True, repr=False, eq=False)
class DiscountSum(Primitive):
    """Σ_{rnk ≤ k} 1 / log2(rnk + 1): the ranked list's own discounts (Elliot's EPC and EFD
    normalise by them)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    k: int | None


@dataclass(frozen=True, repr=False, eq=False)
class EpcSum(Primitive):
    """Σ_{rnk ≤ k, relevance ≥ t} (1 − iusers / nusers) / log2(rnk + 1): the relevant items'
    novelty as the share of training users who have not seen them, discounted by rank
    (Vargas & Castells 2011, Elliot's EPC)."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "iusers", "nusers")
    t: float
    k: int | None


@dataclass(frozen=True, repr=False, eq=False)
class EfdSum(Primitive):
    """Σ_{rnk ≤ k, relevance ≥ t} −log2(max(iusers, minusers) / npairs) / log2(rnk + 1): the
    relevant items' self-information by their share of the training's (user, item) pairs, an
    item never in training taking the rarest training item's (Vargas & Castells 2011, Elliot's
    EFD)."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "iusers", "npairs", "minusers")
    t: float
    k: int | None


@dataclass(frozen=True, repr=False, eq=False)
class TrainRows(Primitive):
    """The training interactions' rows (the same on every row); NULL for a query with no ranked
    row."""

    reads: ClassVar[tuple[Column, ...]] = ("nrows",)
    empty: ClassVar[float | str | None] = None
    order_free: ClassVar[bool] = True
