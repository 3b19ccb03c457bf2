"""The primitive of the fair-exposure family (beyond accuracy): TREC Fair Ranking's attention-weighted
rank fairness at the deepest rank ≤ k, from the row columns
:data:`~rankwise.primitives.core.FAIR_COLUMNS` (the document groups ``groups=`` and the target
``target=``). Its SQL macro is in ``sql/70_fairness.sql``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from rankwise.primitives.core import Column, Primitive

Definition = Literal["trec2021", "trec2022"]
"""TREC Fair Ranking's year whose rule for a ranking without a known group applies."""


@dataclass(frozen=True, repr=False, eq=False)
class Awrf(Primitive):
    """1 − JSD at the deepest rank ≤ k (``fjsd`` there): the exposure the top k give each group
    against the target; where no document of the top k has a weight in the target's groups,
    1 − ``fjsd0`` (``'trec2021'``: the uniform distribution) or NULL (``'trec2022'``); NULL for
    a query with no ranked row or no target."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "fjsd", "fjsd0")
    empty: ClassVar[float | str | None] = None
    k: int | None
    definition: Definition
