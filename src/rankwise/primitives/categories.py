"""The primitives of the category family (beyond accuracy), from the row columns
:data:`~rankwise.primitives.core.CATEGORY_COLUMNS` of the item categories (``categories=``). Their
SQL macros are in ``sql/65_categories.sql``."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar, Literal

from rankwise.primitives.core import Column, Primitive

EPSILON = 1e-6
"""What LensKit adds to each category's (weighted) count before the entropy
(``lenskit.metrics.ranking._entropy.matrix_column_entropy``)."""
PATIENCE = 0.85
"""The rank weight's default patience of the rank-biased entropy: LensKit's
``GeometricRankWeight(0.85)``, the default of ``rank_biased_entropy`` (row columns ``catcountg``,
``catentg``; another patience: their :func:`variant`)."""
ALPHA = 0.01
"""The default share of the other distribution mixed into the list's in the miscalibration,
q̃ = (1 − α) q + α p (Steck, Calibrated recommendations, RecSys 2018: α = 0.01, as LibRec's
``CalibrationEvaluator``; row column ``miscal``, another α or definition: its :func:`variant`)."""

Calibration = Literal["steck", "librec"]
"""Whose miscalibration: Steck's (the user's history against the list, each item's share
1/|its categories|, nats) or LibRec's ``CalibrationEvaluator`` (the list against the user's
relevant judgments, each category's share the items having it over the items, bits)."""


def variant(name: str, *values: float | str, defaults: tuple[float | str, ...]) -> str:
    """The name of the row column ``name`` computed with the parameter ``values``: ``name`` itself
    at the ``defaults`` (a statement of the defaults reads as it did), else ``name`` followed by
    each value (a number as its 64 bits in hex: one name per double).

    >>> variant("catcountg", 0.5, defaults=(0.85,))
    'catcountg_3fe0000000000000'
    >>> variant("miscal", "steck", 0.01, defaults=("steck", 0.01))
    'miscal'
    """
    if values == defaults:
        return name
    return "_".join([name, *(v if isinstance(v, str) else struct.pack(">d", v).hex() for v in values)])


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
    ``geometric``: the rows weighted by patience^(rnk − 1) (catcountg, catentg computed with
    ``patience``: their :func:`variant`). NULL for a query with no ranked row."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "catcount", "catent", "catcountg", "catentg", "catall")
    empty: ClassVar[float | str | None] = None
    k: int | None
    geometric: bool
    patience: float
    """The rank weights' patience (:data:`PATIENCE` when not ``geometric``: it weighs nothing then)."""
    variant_fields: ClassVar[tuple[str, ...]] = ("patience",)
    """The fields that choose the row columns it reads (:meth:`variant_columns`), not passed to its functions."""

    def variant_columns(self) -> dict[str, str]:
        """The weighted counts' columns computed with its patience."""
        return {name: variant(name, self.patience, defaults=(PATIENCE,)) for name in ("catcountg", "catentg")}


@dataclass(frozen=True, repr=False, eq=False)
class Miscalibration(Primitive):
    """The row column ``miscal`` (computed with its ``definition`` and ``alpha``: its
    :func:`variant`) at the deepest rank ≤ k: Steck's miscalibration of the top k against the
    user's training items (NULL for a user without categorised training items), or LibRec's of
    the top k against the user's relevant judgments (NULL for a user without one); NULL without a
    ranked row. Steck's reads the training interactions (``train=``) besides its row column."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "miscal")
    empty: ClassVar[float | str | None] = None
    k: int | None
    alpha: float
    definition: Calibration
    variant_fields: ClassVar[tuple[str, ...]] = ("alpha", "definition")
    """The fields that choose the row column it reads (:meth:`variant_columns`), not passed to its functions."""

    def variant_columns(self) -> dict[str, str]:
        """The miscalibration's column computed with its definition and α."""
        return {"miscal": variant("miscal", self.definition, self.alpha, defaults=("steck", ALPHA))}

    def side_inputs(self) -> tuple[str, ...]:
        """The side inputs it reads besides its row column's: Steck's, the training interactions
        (each user's history)."""
        return ("train",) if self.definition == "steck" else ()
