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
    the catalog's size (rectools' Serendipity)."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "idense", "ncatalog")
    t: float
    k: int | None
