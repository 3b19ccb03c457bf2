"""The diversity (intent-aware) primitives of TREC's ndeval: aggregates over (document, subtopic)
pairs. Their SQL macros are ``sql/40_diversity.sql``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rankwise.primitives.core import Column, Primitive, Side

# -- diversity (intent-aware) primitives: over (document, subtopic) pairs ----------------------
# Subtopic qrels judge a document per subtopic (intent). A *pair* is a relevant judgment
# (relevance >= t) of a document for one subtopic. The intent sides aggregate over pairs, each
# with ``rnk`` (the document's rank), ``cov`` (how many documents ranked above it cover the same
# subtopic: ndeval's count behind the gain (1 - alpha)^cov), ``nsub`` (the subtopic's number of
# relevant documents) and ``sub`` (the subtopic):
#
# - side ``intents``: the pairs of the ranked documents (the run);
# - side ``ideal_intents``: the pairs of ndeval's greedy ideal ranking of the judged documents
#   (each rank takes the document of largest gain sum Σ (1 - alpha)^cov, ties to the larger doc
#   id as text), ranks 1..k (k None: all);
# - side ``subtopic_qrels``: the relevant judgments themselves (no rank).


@dataclass(frozen=True, repr=False, eq=False)
class IntentPrimitive(Primitive):
    """A per-query aggregate over the run's relevant (document, subtopic) pairs."""

    abstract: ClassVar[bool] = True
    side: ClassVar[Side] = "intents"
    reads: ClassVar[tuple[Column, ...]] = ("rnk", "cov")
    t: float


@dataclass(frozen=True, repr=False, eq=False)
class IntentGain(IntentPrimitive):
    """Σ over pairs at rank ≤ k of (1 − alpha)^cov · w(rank), w = 1 / log2(rank + 1)
    (``weight='log2'``, α-DCG), 1 / rank (``'rank'``, ERR-IA) or beta^(rank − 1)
    (``'geometric'``, NRBP)."""

    k: int | None
    alpha: float
    weight: str
    beta: float


@dataclass(frozen=True, repr=False, eq=False)
class IdealIntentGain(IntentGain):
    """:class:`IntentGain` over the pairs of the greedy ideal ranking (built with ``alpha``)."""

    side: ClassVar[Side] = "ideal_intents"


@dataclass(frozen=True, repr=False, eq=False)
class IntentHits(IntentPrimitive):
    """Number of pairs at rank ≤ k (P-IA's count)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    k: int | None


@dataclass(frozen=True, repr=False, eq=False)
class IntentNew(IntentPrimitive):
    """Number of subtopics covered at rank ≤ k (pairs with cov = 0)."""

    k: int | None


@dataclass(frozen=True, repr=False, eq=False)
class IntentApSum(IntentPrimitive):
    """Σ over pairs of (cov + 1) / (rank · nsub): Σ over subtopics of their AP (MAP-IA's sum)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "cov", "nsub")


@dataclass(frozen=True, repr=False, eq=False)
class Subtopics(IntentPrimitive):
    """Number of subtopics with a relevant judgment (ndeval's "actual subtopics")."""

    side: ClassVar[Side] = "subtopic_qrels"
    reads: ClassVar[tuple[Column, ...]] = ("sub",)


INTENT_SIDES: tuple[Side, ...] = ("intents", "ideal_intents", "subtopic_qrels")
"""The sides whose rows are (document, subtopic) pairs."""

IDEAL_SCORE_DIGITS = 12
"""The greedy ideal compares gain sums rounded to 12 decimals (every engine): sums of
(1 − alpha)^c that are equal, added in another order, then tie, and the tie goes to the doc id
(ndeval compares its sums exactly, adding them in subtopic order)."""


def ideal_depth(nodes: list[Primitive]) -> int | None:
    """How many ranks of the greedy ideal the ideal primitives read (None: all of them)."""
    ks = [getattr(n, "k", None) for n in nodes if n.side == "ideal_intents"]
    return None if not ks or None in ks else max(k for k in ks if k is not None)
