"""The primitive of the base-run family (beyond accuracy): the per-query count of the items of
the top k that the query's user's list in the base run (``base_run=``, ranked as the run is) also
holds in its top k, from the row columns :data:`~rankwise.primitives.core.BASE_RUN_COLUMNS`. Its
SQL macro is in ``sql/60_base_run.sql``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rankwise.primitives.core import Column, Primitive


@dataclass(frozen=True, repr=False, eq=False)
class BaseOverlapSum(Primitive):
    """Σ_{rnk ≤ k} [brank ≤ k]: how many of the top k's items the user's base list holds in its
    own top k; k when the user has no list in the base run (RePlay's Unexpectedness then 0);
    NULL for a query with no ranked row."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "brank", "blisted")
    empty: ClassVar[float | str | None] = None
    k: int
