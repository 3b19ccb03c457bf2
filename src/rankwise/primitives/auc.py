"""The primitives of the per-query AUC family and CatBoost's PFound: the mean rank of a row's
tie group (ROC AUC's midranks), the rank sum of the positives, rectools' partial-AUC sum, and
PFound's running look probability (three running sums: Σ ln|1 − l|, the labels equal to 1 and
the labels above 1, so that the product Π (1 − l) is exact in sign and zero). Their SQL macros
are ``sql/25_auc.sql``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rankwise.primitives.core import Column, Input, Primitive, RelStep, RowValue, Step


@dataclass(frozen=True, repr=False, eq=False)
class TieRank(RowValue):
    """The mean rank of the row's tie group (the query's rows of equal score, as the ranking
    compares scores) over its ranks ≤ k: the row's midrank in the ranking cut at k (NULL for a
    row ranked beyond k)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "qid", "score")
    window: ClassVar[bool] = True
    k: int | None


@dataclass(frozen=True, repr=False, eq=False)
class LookLogStep(Step):
    """ln|1 − l|, l = max(relevance, 0) (unjudged: 0), 0 where l = 1 (PFound's running log of
    the chance to look on, its zeros and signs counted by the two steps below)."""


@dataclass(frozen=True, repr=False, eq=False)
class LookStopStep(Step):
    """1 where l = 1 (the user stops: every later look probability is 0)."""


@dataclass(frozen=True, repr=False, eq=False)
class LookFlipStep(Step):
    """1 where l > 1 (a factor 1 − l < 0: CatBoost does not clip labels)."""


@dataclass(frozen=True, repr=False, eq=False)
class AucRankSum(Primitive):
    """Σ over relevant rows (relevance ≥ t) at rank ≤ k of their tie group's mean rank: the
    positives' midranks counted from the top (ROC AUC's rank sum, ties counting one half)."""

    t: float
    k: int | None

    def inputs(self) -> dict[str, Input]:
        return {"trank": TieRank(self.k)}


@dataclass(frozen=True, repr=False, eq=False)
class PartialAucSum(Primitive):
    """Σ over relevant rows with n < k non-relevant rows (unjudged included) ranked above
    (n = rnk − cumrel) of k − n; with ``top``, only the first k relevant rows (cumrel ≤ k):
    rectools' pAUC@k and pAp@k numerators."""

    judged_rows: ClassVar[bool] = True
    t: float
    k: int
    top: bool

    def inputs(self) -> dict[str, Input]:
        return {"cumrel": RelStep(self.t)}


@dataclass(frozen=True, repr=False, eq=False)
class PfoundSum(Primitive):
    """Σ_{i≤k} l_i · P_look(i), P_look(i) = decay^(i − 1) · Π_{j<i} (1 − l_j), l = max(relevance,
    0) (unjudged: 0; not clipped above 1, as CatBoost): the product from the running sums of
    ln|1 − l|, of l = 1 and of l > 1 (inclusive, so the row's own factor is taken back out)."""

    k: int | None
    decay: float

    def inputs(self) -> dict[str, Input]:
        return {"cumlog": LookLogStep(), "cumstop": LookStopStep(), "cumflip": LookFlipStep()}


# -- CatBoost's QueryAUC: pairs of different labels, counted bit by bit of the label -------------

LABEL_BITS = 5
"""QueryAUC counts its pairs over the binary digits of the labels: labels 0 .. 2^5 − 1 = 31."""

QUERY_AUC_LABELS = (
    "QueryAUC reads each document's relevance as an integer label from 0 to 31 (unjudged and "
    "negative: 0), got "
)
"""The message of the error an engine raises on a label QueryAUC cannot count, the label
(the largest such of a query) following it (the SQL's error() spells the same text)."""


@dataclass(frozen=True, repr=False, eq=False)
class LabelMidrank(RowValue):
    """The mean ascending rank of the row's score among the query's rows at rank ≤ k whose
    label l = max(relevance, 0) (unjudged: 0) has the same ⌊l / 2^level⌋ (``level`` = 0: the
    same label; 5: every row): the row's midrank in that part (NULL beyond k)."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "qid", "score")
    window: ClassVar[bool] = True
    k: int | None
    level: int


@dataclass(frozen=True, repr=False, eq=False)
class LabelPairs(Primitive):
    """The pairs of rows at rank ≤ k with different labels: (n² + n)/2 − Σ r0, n the rows, r0
    the midrank among the rows of the same label (its sum over a label's c rows is c(c + 1)/2)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    k: int | None

    def inputs(self) -> dict[str, Input]:
        return {"r0": LabelMidrank(self.k, 0)}


@dataclass(frozen=True, repr=False, eq=False)
class LabelPairsOrdered(Primitive):
    """Of those pairs, the ones whose higher label scores higher, a score tie counting one half:
    Σ_i Σ_{b<5} bit_b(l_i) · (r_{b+1} − r_b), r_c the midrank among the rows of the same
    ⌊l / 2^c⌋. A pair of different labels first differs at one bit b; within its part of level
    b + 1 the row with that bit set is above the other, and r_{b+1} − r_b is the count of the
    part's rows with the bit clear scoring lower (ties one half). A label that is not an
    integer 0..31 is an error (:data:`QUERY_AUC_LABELS`)."""

    k: int | None

    def inputs(self) -> dict[str, Input]:
        return {f"r{c}": LabelMidrank(self.k, c) for c in range(LABEL_BITS + 1)}
