"""The set-level primitives (beyond accuracy): one value per run (per ``by=`` segment), each an
aggregate over the run's **exposure table**, one row per item listed within the cutoff by
some scored user:

- ``expo``: the item's exposure, Σ over the users' rows of it at ranks ≤ k of the row's weight
  (``weight='count'``: 1, the number of lists holding it; ``'geometric'``: patience^(rank − 1),
  LensKit's GeometricRankWeight);
- ``pos``: its place 1, 2, ..., m among the m listed items by exposure ascending (ties in any
  order: the sums below do not depend on it);
- ``incat``: whether it is in the catalog the metric reads (``within``: ``'catalog'``, the
  ``catalog=`` input's items; ``'train'``, the training items of ``train=``);
- ``irows``: its training rows (0 for an item never in training, as the popularity family's);
- ``lists``: the lists holding it (Σ over those users of the times each counts);
- ``ncat``, ``nrows``: the catalog's items and the training's rows (the same on every row);
- ``nscored``: the users scored (the same on every row; Σ of the times each counts), a user
  without a list among them where the conventions score it (``missing='zero'``);
- ``ingroup``, ``ngroup``: whether the item is in a popularity group of the training items (the
  short head or the long tail, as the popularity family's APLT) and the group's size.

A table by item group (:meth:`SetPrimitive.by_item_group`) has one row per group of the
document groups (``groups=``) instead: ``expo`` the exposure of its items, each counted by its
weight in the group; ``gsize`` the group's items (Σ of their weights in it); ``gmean`` the mean
over the groups of expo / gsize (the same on every row).

A table aggregates the users' listed rows (:meth:`SetPrimitive.pairs` ``'listed'``), or other
(user, item) pairs of the users scored: their training items (``'history'``), or their relevant
judged items absent from their training (``'relevant_unseen'``; Elliot's PopREO).

Their SQL macros are ``sql/58_sets.sql``; the engines build the exposure table once per
(cutoff, weight) and aggregate it per segment (:mod:`rankwise._polars.sets`,
:mod:`rankwise._sql.sets`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from rankwise.primitives.core import Column, Primitive, Side

Weight = Literal["count", "geometric", "share", "root", "relevant", "attention", "log"]
"""How a listed row adds to its item's exposure: 1 (``count``), patience^(rank − 1)
(``geometric``), 1/n (``share``) or 1/√n (``root``), n the rows of its user's list within k,
1 when it is relevant (``relevant``: relevance ≥ the conventions' ``rel``), else 0,
100 p (1 − p)^(rank − 1) (``attention``: Sapiezynski et al.'s, the patience field holding p, the
first rank's share, so that a p near 0 keeps its digits) or 1 / log2(1 + rank) (``log``)."""
Pairs = Literal["listed", "history", "relevant_unseen"]
"""The (user, item) pairs an exposure table aggregates: the rows listed within k, the training
pairs of the users scored, or their relevant judgments of items absent from their training."""
Within = Literal["listed", "catalog", "train"]
"""The items a set-level value runs over: the listed ones only, or the catalog (``catalog=``) or
the training items (``train=``), each with the listed items outside it."""


@dataclass(frozen=True, repr=False, eq=False)
class SetPrimitive(Primitive):
    """An aggregate over the exposure table of one run or segment (:meth:`exposure` says which
    table: the cutoff and the weight)."""

    abstract: ClassVar[bool] = True
    side: ClassVar[Side] = "set"
    reads: ClassVar[tuple[Column, ...]] = ("expo",)
    empty: ClassVar[float | str | None] = None
    table_fields: ClassVar[tuple[str, ...]] = ("k",)
    """The fields that choose its exposure table (read by :meth:`exposure` and :meth:`catalog`,
    not passed to its functions: ``tests/house/test_primitives.py`` checks that each changes the
    table)."""
    k: int | None

    def exposure(self) -> tuple[int | None, Weight, float]:
        """The exposure table it reads: (cutoff, weight, patience)."""
        return self.k, "count", 1.0

    def catalog(self) -> Within:
        """The catalog whose membership (``incat``) and size (``ncat``) it reads."""
        return "listed"

    def pairs(self) -> Pairs:
        """The (user, item) pairs its table aggregates."""
        return "listed"

    def popularity_group(self) -> tuple[float, bool] | None:
        """The popularity group whose membership (``ingroup``) and size (``ngroup``) it reads:
        (head, tail), the short head of ``head`` of the training pairs or (``tail``) the long
        tail; None: none."""
        return None

    def by_item_group(self) -> bool:
        """Whether its table has a row per group of the document groups (``groups=``) rather
        than per item."""
        return False

    def side_inputs(self) -> tuple[str, ...]:
        """The side inputs it reads besides its row columns: its catalog's (``train=`` for the
        training items, ``catalog=``), the training's for a popularity group or the training pairs,
        the document groups for a table by item group."""
        within = self.catalog()
        trained = self.popularity_group() is not None or self.pairs() != "listed"
        return tuple(dict.fromkeys(
            ([] if within == "listed" else [within]) + (["train"] if trained else [])
            + (["groups"] if self.by_item_group() else [])
        ))


@dataclass(frozen=True, repr=False, eq=False)
class ItemsListed(SetPrimitive):
    """The distinct items listed within k: all of them (``within='listed'``), or those in the
    catalog (``'catalog'``, ``'train'``)."""

    reads: ClassVar[tuple[Column, ...]] = ("expo", "incat")
    table_fields: ClassVar[tuple[str, ...]] = ("k", "within")
    within: Within

    def catalog(self) -> Within:
        return self.within


@dataclass(frozen=True, repr=False, eq=False)
class CatalogItems(SetPrimitive):
    """The catalog's items (``within='catalog'``: the ``catalog=`` input's; ``'train'``: the
    distinct training items)."""

    reads: ClassVar[tuple[Column, ...]] = ("ncat",)
    table_fields: ClassVar[tuple[str, ...]] = ("k", "within")
    within: Within

    def catalog(self) -> Within:
        return self.within


@dataclass(frozen=True, repr=False, eq=False)
class GiniKind(SetPrimitive):
    """A Gini index over the exposures (its ``weight``, with ``patience`` for the geometric one)
    of the items of ``within``."""

    abstract: ClassVar[bool] = True
    reads: ClassVar[tuple[Column, ...]] = ("expo", "pos", "incat", "ncat")
    table_fields: ClassVar[tuple[str, ...]] = ("k", "weight", "patience", "within")
    weight: Weight
    patience: float
    within: Within

    def exposure(self) -> tuple[int | None, Weight, float]:
        return self.k, self.weight, self.patience if self.weight == "geometric" else 1.0

    def catalog(self) -> Within:
        return self.within


@dataclass(frozen=True, repr=False, eq=False)
class ExposureGini(GiniKind):
    """The Gini index of the exposures of the items of ``within`` (an item of the catalog never
    listed: 0; a listed item outside the catalog counted too): Σ_{i=1..n} (2i − n − 1) x_(i) /
    (n Σ x), x ascending, n items; with x_(i) = 0 for i ≤ n − m it is
    (2 Σ pos·expo + (n − 2m − 1) Σ expo) / (n Σ expo). NULL when nothing is listed."""


@dataclass(frozen=True, repr=False, eq=False)
class ExposureEntropy(SetPrimitive):
    """The Shannon entropy of the listed items' shares of the exposure, −Σ p log_base p with
    p = expo / Σ expo (= log Σ expo − Σ expo log expo / Σ expo); NULL when nothing is listed."""

    base: float


@dataclass(frozen=True, repr=False, eq=False)
class ElliotGini(GiniKind):
    """Elliot's GiniIndex, 1 − Σ_{j=1..m} (2(j + n − m) − n − 1) x_(j) / ((n − 1) Σ x), over the
    m listed items' exposures x ascending and the n items of ``within`` (a listed item outside
    them shifts the places but does not add to n) = 1 − (2 Σ pos·expo + (n − 2m − 1) Σ expo) /
    ((n − 1) Σ expo); NULL when nothing is listed or n ≤ 1."""

    reads: ClassVar[tuple[Column, ...]] = ("expo", "pos", "ncat")


@dataclass(frozen=True, repr=False, eq=False)
class WeightedSum(SetPrimitive):
    """A sum over the exposures of one ``weight`` (one without a patience)."""

    abstract: ClassVar[bool] = True
    table_fields: ClassVar[tuple[str, ...]] = ("k", "weight")
    weight: Weight

    def exposure(self) -> tuple[int | None, Weight, float]:
        return self.k, self.weight, 1.0


@dataclass(frozen=True, repr=False, eq=False)
class ExposureTotal(WeightedSum):
    """Σ expo: with ``weight='count'`` the rows listed within k; ``'share'``: the users whose
    list holds an item within k."""

    weight: Weight = "count"


@dataclass(frozen=True, repr=False, eq=False)
class ExposureSquares(WeightedSum):
    """Σ expo²; with ``weight='root'``, Σ_d (Σ_{u listing d} 1/√n_u)² (rexmex's personalization:
    Σ over the ordered pairs of lists, a list with itself included, of their cosine)."""


@dataclass(frozen=True, repr=False, eq=False)
class UsersScored(SetPrimitive):
    """The users scored (``nscored``); NULL when none lists anything."""

    reads: ClassVar[tuple[Column, ...]] = ("nscored",)


@dataclass(frozen=True, repr=False, eq=False)
class ElliotEntropySum(SetPrimitive):
    """Σ_d expo_d · log2(Σ lists / lists_d) with ``weight='share'`` (expo_d = Σ_{u listing d}
    1/n_u): Elliot's ShannonEntropy before its division by the users."""

    reads: ClassVar[tuple[Column, ...]] = ("expo", "lists")

    def exposure(self) -> tuple[int | None, Weight, float]:
        return self.k, "share", 1.0


@dataclass(frozen=True, repr=False, eq=False)
class SelfInformationSum(SetPrimitive):
    """Σ over the listed rows of the item's self-information −log2(irows / nrows) by its share of
    the training rows, 0 for an item never in training (recommenders' ``novelty``)."""

    reads: ClassVar[tuple[Column, ...]] = ("expo", "irows", "nrows")


@dataclass(frozen=True, repr=False, eq=False)
class PopularityGroupExposure(SetPrimitive):
    """Σ expo over the items of a popularity group (the short head of ``head`` of the training's
    (user, item) pairs, or with ``tail`` the long tail, as the popularity family's APLT), over the
    table of ``pairs_of`` (the listed rows within k, each counting 1, or with ``relevant`` 1 when
    relevant; the training pairs of the users scored; their relevant unseen judgments); 0 for a
    group of users without such pairs."""

    reads: ClassVar[tuple[Column, ...]] = ("expo", "ingroup")
    empty: ClassVar[float | str | None] = 0.0
    table_fields: ClassVar[tuple[str, ...]] = ("k", "head", "tail", "pairs_of", "relevant")
    head: float
    tail: bool
    pairs_of: Pairs
    relevant: bool

    def exposure(self) -> tuple[int | None, Weight, float]:
        return self.k, "relevant" if self.relevant else "count", 1.0

    def pairs(self) -> Pairs:
        return self.pairs_of

    def popularity_group(self) -> tuple[float, bool] | None:
        return self.head, self.tail


@dataclass(frozen=True, repr=False, eq=False)
class PopularityGroupItems(SetPrimitive):
    """The training items of a popularity group (``ngroup``; the group as
    :class:`PopularityGroupExposure`'s)."""

    reads: ClassVar[tuple[Column, ...]] = ("ngroup",)
    table_fields: ClassVar[tuple[str, ...]] = ("k", "head", "tail")
    head: float
    tail: bool

    def popularity_group(self) -> tuple[float, bool] | None:
        return self.head, self.tail


Combo = Literal["MinMaxRatio", "MaxMinRatio", "MaxMinDiff", "MaxAbsDiff", "MeanAbsDev", "LTwo", "Variance"]
"""How the groups' values v_g = expo_g / gsize_g make one (FairRankTune's "combos"): min/max,
max/min, max − min, max |v − mean|, mean |v − mean|, √(Σ v²), the population variance."""


@dataclass(frozen=True, repr=False, eq=False)
class GroupExposureSpread(SetPrimitive):
    """The spread (``combo``) over the document groups of their exposure per item, v_g = Σ over
    the listed rows within k of weight(rank) · w(d, g) / Σ_{d in groups=} w(d, g) (a group never
    listed: 0; a listed item without a group adds to none; a group whose documents all weigh 0
    holds no item and is left out); NULL where a ratio divides by 0."""

    reads: ClassVar[tuple[Column, ...]] = ("expo", "gsize", "gmean")
    table_fields: ClassVar[tuple[str, ...]] = ("k", "weight", "patience")
    weight: Weight
    patience: float
    combo: Combo

    def exposure(self) -> tuple[int | None, Weight, float]:
        return self.k, self.weight, self.patience

    def by_item_group(self) -> bool:
        return True


SET_COLUMNS: tuple[Column, ...] = (
    "expo", "pos", "incat", "ncat", "lists", "nscored", "ingroup", "ngroup", "gsize", "gmean",
)
"""The exposure table's own columns (``irows`` and ``nrows`` are the training's, as in
:data:`~rankwise.primitives.core.TRAIN_COLUMNS`)."""
