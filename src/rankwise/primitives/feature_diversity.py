"""The primitive of the feature-diversity family (beyond accuracy): the per-query sum over the
ranked rows of the distances between the items of each pair of the top k, from the item
features (``features=``; :data:`~rankwise.primitives.core.FEATURE_COLUMNS`). Its SQL macro is
in ``sql/55_feature_diversity.sql``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from rankwise.primitives.core import Column, Primitive

Distance = Literal["cosine", "hamming", "jaccard"]
"""A distance between two feature vectors (see :data:`~rankwise.primitives.core.FEATURE_COLUMNS`)."""


@dataclass(frozen=True, repr=False, eq=False)
class PairDistanceSum(Primitive):
    """Σ_{rnk ≤ k} Σ_{rnk' < rnk} distance(item, item'): the sum over the unordered pairs of the
    items ranked ≤ k of their ``distance``."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "dcosine", "dhamming", "djaccard")
    k: int | None
    distance: Distance


def deepest(depth: int | None, k: int | None) -> int | None:
    """The deeper of two cutoffs (None: every rank): the ranked rows whose pairs the
    :class:`PairDistanceSum` of an evaluation read, each cutoff in turn.

    >>> deepest(deepest(0, 5), 10), deepest(10, None)
    (10, None)
    """
    return None if depth is None or k is None else max(depth, k)
