"""The primitives of the fair-exposure family (beyond accuracy): TREC Fair Ranking's attention-weighted
rank fairness at the deepest rank ≤ k, from the row columns
:data:`~rankwise.primitives.core.FAIR_COLUMNS` (the document groups ``groups=`` and the target
``target=``), and Diaz et al.'s expected exposure of a deterministic run, from the judgments'
relevance levels. Their SQL macros are in ``sql/70_fairness.sql``."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Literal

from rankwise.primitives.core import (
    Column,
    Gain,
    IdealPrefix,
    Input,
    Primitive,
    QrelsPrimitive,
    RowValue,
    RunIdealValue,
    Step,
)

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


TREC_TARGET_LENGTH = 50
"""TREC Fair Ranking 2021 Task 2's ranking length: the target exposure is the target's share of
Σ_{i ≤ 50} 1 / log2(max(i, 2)) (``avail_exp`` of its ``Task2Metric``)."""


def trec_available(length: int = TREC_TARGET_LENGTH) -> float:
    """Σ_{i ≤ length} 1 / log2(max(i, 2)): TREC's available exposure of a ranking of ``length``.

    >>> trec_available(2)
    2.0
    """
    return sum(1.0 / max(1.0, math.log2(i)) for i in range(1, length + 1))


@dataclass(frozen=True, repr=False, eq=False)
class TrecExposure(Primitive):
    """TREC Fair Ranking 2021 Task 2's expected exposure of the groups at the deepest rank ≤ k, a
    deterministic run (one sequence): with A the groups' exposures and t = shares × Σ_{i ≤ 50}
    1 / log2(max(i, 2)) (``available``: :func:`trec_available`), ‖A − t‖² (``measure='L'``),
    ‖A‖² (``'D'``) or A·t (``'R'``); NULL for a query with no ranked row or no target."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "fa2", "faq", "fq2")
    empty: ClassVar[float | str | None] = None
    k: int | None
    measure: Literal["L", "D", "R"]
    available: float


TREC_2022_TARGET_LENGTH = 20
"""TREC Fair Ranking 2022 Task 2's ranking length (``EELMetric``'s ``target_len``): its target
exposure is the target's share of Σ_{i ≤ 20} 1 / log2(max(i, 2))."""


@dataclass(frozen=True, repr=False, eq=False)
class TrecRelevantExposure(Primitive):
    """TREC Fair Ranking 2022 Task 2's EEL (``EELMetric``, ``only_rel=True``): :class:`TrecExposure`
    with A the exposures the relevant documents alone give the groups (relevance ≥ the ``rel``
    convention; a ranking without one gives A = 0); NULL for a query with no ranked row or no target."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "fa2r", "faqr", "fq2")
    empty: ClassVar[float | str | None] = None
    k: int | None
    measure: Literal["L", "D", "R"]
    available: float


# -- expected exposure (Diaz et al. 2020; expeval): a deterministic run, one sample per query -----------
# A query's relevant documents (relevance > 0: expeval's retrieval setting) fall into relevance levels;
# a level of m documents below b documents of higher relevance has the target exposure
# (pp^b − pp^(b+m)) / (m (1 − pp)) per document (pp = p for rbp, p (1 − u) for gerr); the document at
# rank i gets the exposure p^(i−1) (rbp), times (1 − u)^(relevant documents ranked above it) (gerr).

UserModel = Literal["rbp", "gerr"]
"""expeval's browsing models."""


@dataclass(frozen=True, repr=False, eq=False)
class PositiveStep(Step):
    """1 where relevance > 0 (expeval's relevant document: the running count of them)."""


@dataclass(frozen=True, repr=False, eq=False)
class RunLevelStart(RunIdealValue):
    """b: the judged documents of higher gain than the row's document (its relevance level's
    first rank in the ideal order, minus 1)."""


@dataclass(frozen=True, repr=False, eq=False)
class RunLevelSize(RunIdealValue):
    """m: the judged documents of the row's document's gain (its relevance level's size)."""


@dataclass(frozen=True, repr=False, eq=False)
class IdealLevelStart(IdealPrefix):
    """b of each judgment's relevance level (over the judgments in the ideal order)."""


@dataclass(frozen=True, repr=False, eq=False)
class IdealLevelSize(IdealPrefix):
    """m of each judgment's relevance level (over the judgments in the ideal order)."""


LEVELS = Gain("linear")
"""The gain whose levels are expeval's: the relevance itself, positive only."""


@dataclass(frozen=True, repr=False, eq=False)
class ExposureSquareSum(Primitive):
    """Σ_{rnk ≤ k} ε², ε the row's exposure under the browsing model ``um`` (expeval's EE-D:
    disparity)."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk")
    k: int | None
    um: UserModel
    p: float
    u: float

    def inputs(self) -> dict[str, Input]:
        return {"cumpos": PositiveStep()}


@dataclass(frozen=True, repr=False, eq=False)
class ExposureTargetSum(Primitive):
    """Σ_{rnk ≤ k} ε · ε*, ε* the row's document's target exposure (0 for one not relevant;
    expeval's EE-R: relevance)."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk")
    k: int | None
    um: UserModel
    p: float
    u: float

    def inputs(self) -> dict[str, Input]:
        return {"cumpos": PositiveStep(), "lstart": RunLevelStart(LEVELS), "lsize": RunLevelSize(LEVELS)}


@dataclass(frozen=True, repr=False, eq=False)
class TargetSquareSum(QrelsPrimitive):
    """Σ over the relevant judgments of ε*² (expeval's upper bound of EE-R, and EE-L's part of
    the relevant documents)."""

    um: UserModel
    p: float
    u: float

    def inputs(self) -> dict[str, Input]:
        return {"lstart": IdealLevelStart(LEVELS), "lsize": IdealLevelSize(LEVELS)}


@dataclass(frozen=True, repr=False, eq=False)
class RelevanceLevels(QrelsPrimitive):
    """The distinct relevance values > 0 of the judgments (expeval: one level, binary
    judgments, makes EE-R's bounds equal)."""


# -- expected exposure of a stochastic run (sample=): several sampled rankings per query ----------------
# The evaluation keys each (query, sample) ranking apart (rankwise.evaluation.evaluate.sample_keys) and
# averages each key's value over the query's samples. A document's expected exposure is the mean of its
# exposures over the samples (ε̄_d); Σ_d ε̄_d² is not the mean of the samples' Σ ε², but it is the mean over
# the samples s of Σ_{d in s} ε_ds · W_d / S, W_d = Σ_s' ε_ds' (a window over the query's samples), since
# (1/S) Σ_s Σ_d ε_ds W_d / S = Σ_d W_d² / S² = Σ_d ε̄_d².

SAMPLE_BITS = 16
"""The bit layout of a stochastic run's (query, sample) keys: key = (g << 2·SAMPLE_BITS) | (S << SAMPLE_BITS) | s,
g the (segment..., query) pair's index, S its number of samples (< 2**SAMPLE_BITS), s the sample's index
among them; so key >> 2·SAMPLE_BITS is the query whose samples the key's ranking is one of, and
(key >> SAMPLE_BITS) & (2**SAMPLE_BITS − 1) their number. The primitives below carry it as their field
``bits``: their values read the query ids as such keys (``samples='keyed'``, which only
:func:`rankwise.evaluate`'s ``sample=`` sets)."""


@dataclass(frozen=True, repr=False, eq=False)
class SampleExposureSum(RowValue):
    """W_d: Σ of the row's document's exposures ε (ranks ≤ k) over the rankings of its query's
    samples (the rows of the same ``doc`` whose query ids, sample keys of layout ``bits``
    (:data:`SAMPLE_BITS`), share their query)."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "doc", "qid")
    window: ClassVar[bool] = True
    k: int | None
    um: UserModel
    p: float
    u: float
    bits: int

    def inputs(self) -> dict[str, Input]:
        return {"cumpos": PositiveStep()}


@dataclass(frozen=True, repr=False, eq=False)
class SampledExposureSquareSum(Primitive):
    """Σ_{rnk ≤ k} ε · W_d / S, S the query's number of samples read from the sample key (layout
    ``bits``, :data:`SAMPLE_BITS`): averaged over a query's S samples, Σ_d ε̄_d², ε̄_d the
    document's mean exposure over them (expeval's EE-D of a stochastic run)."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "qid")
    k: int | None
    um: UserModel
    p: float
    u: float
    bits: int

    def inputs(self) -> dict[str, Input]:
        return {"cumpos": PositiveStep(), "wsum": SampleExposureSum(self.k, self.um, self.p, self.u, self.bits)}
