"""The expected-exposure family (beyond accuracy): Diaz, Mitra, Ekstrand, Biega & Carterette's
expected exposure of a deterministic run (each query's ranking one sample), as their ``expeval``
computes it in its retrieval setting (no ``-C``: only the relevant documents, relevance > 0, are
judged). Per-query values:

- ``EE_L`` (expeval's "difference"), ``EE_D`` ("disparity"), ``EE_R`` ("relevance"), under the
  browsing model ``um`` ('gerr', expeval's default, or 'rbp'), patience ``p`` and utility ``u``
  (0.5 both, expeval's), normalised by expeval's bounds (its default; ``normalize=False``: its
  ``-U``).

expeval's edges, reproduced: with one relevance level (binary judgments) EE-R's bounds are equal,
so the normalised EE-R is 1 whatever the ranking; a query the run lacks (``missing='zero'``; under
the default ``missing='ignore'`` it is left out, as for every metric) takes EE-D's upper bound,
EE-R's lower bound and, as EE-L, EE-R's upper bound (Σ ε*², 0 with one level:
``expeval.py:96-102``); a query without a relevant document has no value. A stochastic run
(``sample=``: several sampled rankings per query, expeval's second field) gives each document its
mean exposure over the query's samples: EE_R is then the mean of the samples' EE_R, and EE_D and
EE_L square the mean exposures (their parameter ``samples="keyed"``, which only ``sample=`` sets through
the convention ``Conventions.samples``: :class:`~rankwise.primitives.SampledExposureSquareSum`). The
reranking setting (``-C``) is not computed. ``@k`` cuts the ranking (expeval has no cutoff)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe
from rankwise.metrics.spec import MetricSpec, Param

if TYPE_CHECKING:
    from rankwise.primitives import Node

UM = Param(
    "um", str, "gerr",
    "expeval's browsing model: 'gerr' (its default: the user stops at each relevant document with probability u) "
    "or 'rbp' (rank-biased precision's: at each rank with probability 1 − p)",
    choices=("gerr", "rbp"),
)
PATIENCE = Param(
    "p", float, 0.5, "the patience: the probability of going on to the next rank (expeval -p)",
    minimum=0.0, exclusive_min=True, maximum=1.0, exclusive_max=True,
    bounds="a probability strictly between 0 and 1: p = 1 gives an infinite exposure (expeval's bounds divide by "
    "1 − p), p = 0 no user model",
)
UTILITY = Param(
    "u", float, 0.5, "gerr's utility: the probability of stopping at a relevant document (expeval -r; rbp ignores it)",
    minimum=0.0, maximum=1.0,
    bounds="a probability: 0 (never stopping) to 1 (stopping at the first relevant document)",
)
NORMALIZE = Param(
    "normalize", bool, True,
    "expeval's normalisation (its default; -U turns it off): (v − lower) / (upper − lower) with its bounds of the "
    "retrieval setting",
)
SAMPLES = Param(
    "samples", str, "one",
    "what the query ids are, set by evaluate(sample=) alone (rankwise eval --sample): 'one' (each query one ranking) "
    "or 'keyed' (a stochastic run's (query, sample) keys: ε_d the document's mean exposure over the query's "
    "samples); a metric string's value counts for nothing in an evaluation",
    choices=("one", "keyed"), convention="samples", set_by="evaluate(sample=)",
)
EE_CITATION = (
    "Diaz, Mitra, Ekstrand, Biega & Carterette, Evaluating stochastic rankings with expected exposure, CIKM 2020; "
    "expeval (github.com/diazf/expeval @ 69ab070: exposure.py, metrics.py, expeval.py)"
)
EE_COMMON = (
    "ε_d the exposure of the document at rank i ≤ k: p^(i−1) (um='rbp'), times (1 − u)^(relevant documents ranked "
    "above) (um='gerr'); ε*_d the target exposure of a relevant document (relevance > 0): for a relevance level of m "
    "documents below b of higher relevance, (pp^b − pp^(b+m)) / (m (1 − pp)), pp = p (rbp) or p (1 − u) (gerr); a "
    "stochastic run (sample=): ε_d the mean over the query's samples of the document's exposure in each (EE_D, EE_L: "
    "samples='keyed', which sample= alone sets; EE_R, linear in ε: the mean of the samples' values); NULL for a "
    "query without a relevant document (expeval prints none)"
)

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="EE_L",
        aliases=("EEL",),
        params=(UM, PATIENCE, UTILITY, NORMALIZE, SAMPLES),
        cutoff="optional",
        description="expected exposure loss: how far the documents' exposure is from the exposure their relevance "
        "deserves (Diaz et al.'s EE-L, expeval's 'difference'; lower is better)",
        formula="EE_L = Σ_d (ε*_d − ε_d)², over the relevant and the ranked documents; normalize=True: over "
        "Σ ε*² + 1/(1 − pp'), pp' = p (rbp) or p·u (gerr) (expeval's upper bound); a query the run lacks "
        "(missing='zero'): Σ ε*², or 0 with one relevance level (expeval's default); " + EE_COMMON,
        citation=EE_CITATION,
        empty_value=None,
        better="lower",
    ),
    MetricSpec(
        name="EE_D",
        aliases=("EED",),
        params=(UM, PATIENCE, UTILITY, NORMALIZE, SAMPLES),
        cutoff="optional",
        description="expected exposure disparity: how unequally the ranking spreads exposure (Diaz et al.'s EE-D, "
        "expeval's 'disparity'; lower is fairer)",
        formula="EE_D = Σ_d ε_d²; normalize=True: × (1 − p²) (over expeval's upper bound 1/(1 − p²)); a query the "
        "run lacks (missing='zero'): the upper bound (normalised: 1); " + EE_COMMON,
        citation=EE_CITATION,
        empty_value=None,
        better="lower",
    ),
    MetricSpec(
        name="EE_R",
        aliases=("EER",),
        params=(UM, PATIENCE, UTILITY, NORMALIZE),
        cutoff="optional",
        description="expected exposure relevance: how much exposure the relevant documents get, weighted by their "
        "target (Diaz et al.'s EE-R, expeval's 'relevance')",
        formula="EE_R = Σ_d ε*_d ε_d; normalize=True: over Σ ε*² (expeval's upper bound), and 1 whatever the "
        "ranking with one relevance level (binary judgments: expeval's bounds are then equal and it gives its "
        "default); a query the run lacks (missing='zero'): 0 (normalised: 0, or 1 with one level); " + EE_COMMON,
        citation=EE_CITATION,
        empty_value=None,
    ),
)


def _ee_parts(m: Measured, p: Params) -> tuple[Node, Node, Node, Node, Node, float, str, float, float]:
    """The run's Σ ε², Σ ε* ε, the judgments' Σ ε*², the relevance levels, 1 where the query
    ranked something (0: a query the run lacks), and um, p, u."""
    from rankwise.primitives import (
        SAMPLE_BITS,
        Count,
        ExposureSquareSum,
        ExposureTargetSum,
        Positive,
        RelevanceLevels,
        SampledExposureSquareSum,
        TargetSquareSum,
    )

    um, patience, utility = str(p["um"]), float(p["p"]), float(p["u"])
    args = (um, patience, utility)
    # a stochastic run's (query, sample) keys (samples='keyed', from evaluate(sample=)): Σ ε̄² of each
    # document's mean exposure over the query's samples; EE_R (linear in ε) is the mean of the samples' own
    square = (
        SampledExposureSquareSum(m.cutoff, *args, SAMPLE_BITS) if p.get("samples") == "keyed"  # type: ignore[arg-type]
        else ExposureSquareSum(m.cutoff, *args)  # type: ignore[arg-type]
    )
    return (
        square, ExposureTargetSum(m.cutoff, *args),  # type: ignore[arg-type]
        TargetSquareSum(*args), RelevanceLevels(), Positive(Count()), 1.0 / (1.0 - patience * patience),  # type: ignore[arg-type]
        um, patience, utility,
    )


def _defined(value: Node, levels: Node) -> Node:
    """``value`` for a query with a relevant document, else NULL (expeval prints none)."""
    from rankwise.primitives import DivNull, Mul, Positive

    return DivNull(Mul(value, Positive(levels)), Positive(levels))


def _either(ranked: Node, run: Node, lacking: Node) -> Node:
    """``run`` where the query ranked something, ``lacking`` where the run lacks it."""
    from rankwise.primitives import Add, Const, Mul, Sub

    return Add(Mul(ranked, run), Mul(Sub(Const(1.0), ranked), lacking))


def _ee_d(m: Measured, p: Params) -> Node:
    """Σ ε², the upper bound 1/(1 − p²) for a query the run lacks; normalised: over it."""
    from rankwise.primitives import Const, Mul

    d, _, _, levels, ranked, upper, *_ = _ee_parts(m, p)
    value = _either(ranked, d, Const(upper))
    return _defined(Mul(value, Const(1.0 / upper)) if p["normalize"] else value, levels)


def _ee_r(m: Measured, p: Params) -> Node:
    """Σ ε* ε, 0 for a query the run lacks; normalised: over Σ ε*², 1 with one relevance level."""
    from rankwise.primitives import Const, Div0, Positive, Sub

    _, r, t2, levels, ranked, *_ = _ee_parts(m, p)
    value = _either(ranked, r, Const(0.0))
    if p["normalize"]:
        graded = Positive(Sub(levels, Const(1.0)))
        value = _either(graded, Div0(value, t2), Const(1.0))
    return _defined(value, levels)


def _ee_l(m: Measured, p: Params) -> Node:
    """Σ ε*² + Σ ε² − 2 Σ ε* ε (the squared distance over the union of the relevant and the ranked
    documents); for a query the run lacks, EE-R's upper bound (Σ ε*², 0 with one level);
    normalised: over Σ ε*² + 1/(1 − pp')."""
    from rankwise.primitives import Add, Const, Div, Mul, Positive, Sub

    d, r, t2, levels, ranked, _, um, patience, utility = _ee_parts(m, p)
    distance = Sub(Add(t2, d), Mul(Const(2.0), r))
    value = _either(ranked, distance, Mul(Positive(Sub(levels, Const(1.0))), t2))
    if p["normalize"]:
        pp = patience if um == "rbp" else patience * utility
        value = Div(value, Add(t2, Const(1.0 / (1.0 - pp))))
    return _defined(value, levels)


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas over the primitives."""
    return {"EE_L": _ee_l, "EE_D": _ee_d, "EE_R": _ee_r}


FAMILY = MetricFamily(name="expected exposure", specs=SPECS, recipes=recipes, beyond_accuracy=True)
