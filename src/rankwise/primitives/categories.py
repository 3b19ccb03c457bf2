"""The primitives of the category family (beyond accuracy), from the row columns
:data:`~rankwise.primitives.core.CATEGORY_COLUMNS` of the item categories (``categories=``). Their
SQL macros are in ``sql/65_categories.sql``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rankwise.primitives.core import Column, Primitive

EPSILON = 1e-6
"""What LensKit adds to each category's (weighted) count before the entropy
(``lenskit.metrics.ranking._entropy.matrix_column_entropy``)."""
PATIENCE = 0.85
"""The rank weight's patience of the rank-biased entropy: LensKit's ``GeometricRankWeight(0.85)``,
the default of ``rank_biased_entropy`` (row columns ``catcountg``, ``catentg``)."""
ALPHA = 0.01
"""The share of the history's distribution mixed into the list's in Steck's miscalibration,
q̃ = (1 − α) q + α p (Steck, Calibrated recommendations, RecSys 2018: α = 0.01; row column
``miscal``)."""


@dataclass(frozen=True, repr=False, eq=False)
class CategoryCount(Primitive):
    """Σ_{rnk ≤ k} catnew: the distinct categories of the items ranked ≤ k; NULL for a query with
    no ranked row."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "catnew")
    empty: ClassVar[float | str | None] = None
    k: int


@dataclass(frozen=True, repr=False, eq=False)
class CategoryEntropy(Primitive):
    """H₂ of the category counts of the rows ranked ≤ k, each count + ε, over the G = ``catall``
    categories of the input: with Z = Σ_{rnk ≤ k} catcount + Gε and A = Σ_{rnk ≤ k} catent,
    H = log2 Z − (A + G·h(0)) / Z, h(0) = ε log2 ε (= −Σ_g p_g log2 p_g, p_g = (c_g + ε) / Z);
    ``geometric``: the rows weighted by 0.85^(rnk − 1) (catcountg, catentg). NULL for a query
    with no ranked row."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "catcount", "catent", "catcountg", "catentg", "catall")
    empty: ClassVar[float | str | None] = None
    k: int | None
    geometric: bool


@dataclass(frozen=True, repr=False, eq=False)
class Miscalibration(Primitive):
    """The row column ``miscal`` at the deepest rank ≤ k: Steck's miscalibration of the top k
    against the user's training items; NULL for a user without categorised training items or
    without a ranked row. Reads the training interactions (``train=``) besides its row column."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "miscal")
    empty: ClassVar[float | str | None] = None
    k: int | None

    def side_inputs(self) -> tuple[str, ...]:
        """The side inputs it reads besides its row column's: the training interactions (each
        user's history)."""
        return ("train",)
