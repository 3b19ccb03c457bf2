"""The primitive of the serendipity family (beyond accuracy): the per-query sum over the ranked
rows of rectools' serendipity term, from the training interactions (``train=``: the item's dense
popularity rank, :data:`~rankwise.primitives.core.TRAIN_COLUMNS`' ``idense``) and the catalog
(``catalog=``: its size, :data:`~rankwise.primitives.core.CATALOG_COLUMNS`). Its SQL macro is in
``sql/62_serendipity.sql``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rankwise.primitives.core import Column, Primitive


@dataclass(frozen=True, repr=False, eq=False)
class SerendipitySum(Primitive):
    """Σ_{rnk ≤ k, relevance ≥ t} max(p(rnk) − pu(item), 0), p(r) = (n + 1 − r) / n the
    user's probability of the rank, pu(d) = (n + 1 − idense) / n the item's by its dense
    popularity rank among the training items (0 for an item never in training), n = ncatalog,
    the catalog's size (rectools' Serendipity); ``every``: every row counts as relevant."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "idense", "ncatalog")
    t: float
    k: int | None
    every: bool


@dataclass(frozen=True, repr=False, eq=False)
class CooccurrenceSerendipitySum(Primitive):
    """Σ_{rnk ≤ k} (1 − hco) · r, hco the mean co-occurrence similarity of the row's item with its
    user's training rows (:data:`~rankwise.primitives.core.TRAIN_PAIR_COLUMNS`), r = [relevance ≥ t]
    (``every``: 1 on every row, recommenders' default); NULL for a user without training rows
    (``hlen`` = 0: recommenders leaves it out) and for a query with no ranked row
    (recommenders' ``user_serendipity`` with its default similarity)."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "hlen", "hco")
    empty: ClassVar[float | str | None] = None
    t: float
    k: int | None
    every: bool


@dataclass(frozen=True, repr=False, eq=False)
class CosineSerendipitySum(Primitive):
    """Σ_{rnk ≤ k} (1 − hcos) · r, hcos the mean cosine similarity of the row's item's features to
    those of its user's training rows' items (:data:`~rankwise.primitives.core.FEATURE_HISTORY_COLUMNS`);
    otherwise as :class:`CooccurrenceSerendipitySum` (recommenders' ``user_serendipity`` with
    ``item_feature_vector``)."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "hlen", "hcos")
    empty: ClassVar[float | str | None] = None
    t: float
    k: int | None
    every: bool


@dataclass(frozen=True, repr=False, eq=False)
class PairCooccurrenceSum(Primitive):
    """Σ_{rnk ≤ k} pco: the sum over the unordered pairs of the items ranked ≤ k of their
    co-occurrence similarity (:data:`~rankwise.primitives.core.TRAIN_PAIR_COLUMNS`; recommenders'
    ``user_diversity`` with its default similarity)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "pco")
    k: int | None
