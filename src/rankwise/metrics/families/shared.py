"""What several families share: the parameters more than one family declares (the relevance
threshold, ``judged_only``, the geometric mean's form and floor) and the small formulas their
recipes build with.

A formula imports the primitives it builds with in its body, as every recipe does: listing the
metrics (``rankwise metrics``) reads the specs and imports no primitive."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from rankwise.metrics.family import Measured, Params
from rankwise.metrics.spec import Param

if TYPE_CHECKING:
    from rankwise.primitives import Node

TREC_CUTS: tuple[float, ...] = (5.0, 10.0, 15.0, 20.0, 30.0, 100.0, 200.0, 500.0, 1000.0)
"""trec_eval's default cutoffs of its measures at k (P, recall, ndcg_cut, map_cut, relative_P)."""

REL = Param(
    "rel",
    float,
    1,
    "relevance threshold: a document is relevant when its relevance >= rel (trec_eval -l)",
    convention="rel",
    bounds="a threshold is only compared with relevance values, never computed with: any finite number",
)
JUDGED_ONLY = Param(
    "judged_only",
    bool,
    False,
    "drop unjudged documents from the ranking before measuring (trec_eval -J)",
    convention="judged_only",
)
EXPECTED_TIES = Param(
    "ties",
    str,
    "ranking",
    "documents of equal score: each at its rank in the ranking ('ranking': the ties convention "
    "breaks the tie), or the metric's expected value over every order of the tied documents, each "
    "equally likely ('expected': McSherry & Najork 2008; the tie-aware-retrieval-metrics package, "
    "Yang et al. 2026; the default under the convention ties='expected')",
    choices=("ranking", "expected"),
    convention="ties",
)
EMPTY = Param(
    "empty",
    int,
    0,
    "what a query with nothing relevant scores: 0 (trec_eval, XGBoost's ndcg@n-/map@n-, "
    "torchmetrics empty_target_action='neg'); 1 (LightGBM's ndcg and map, XGBoost's ndcg@n and "
    "map@n, CatBoost's NDCG and RecallAt, torchmetrics 'pos'); 'skip' (NULL, left out of the "
    "mean, the query keeps its row: rectools, torchmetrics 'skip'); 'error' (EmptyQueryError "
    "naming the metric and the queries: torchmetrics 'error'); a query absent from the run "
    "(missing='zero') scores 0 whatever this says",
    choices=("skip", "error"),
    minimum=0,
    maximum=1,
    convention="empty",
    bounds="the value of a query with nothing relevant is a convention, 0 or 1 (the metric's "
    "range's ends that libraries choose); 'skip' and 'error' are the other conventions",
)
"""The ``empty`` parameter of the metrics whose value with nothing relevant is a convention in
some library (nDCG, AP, P, R, RR, Success, Rprec, RelP): see :func:`when_empty`."""
LABEL_RULES: dict[str, tuple[bool, float, float | None, str]] = {
    "binary": (True, 0.0, 1.0, "XGBoost's map@n and pre@n take binary labels, 0 or 1 (labels='binary')"),
    "nonnegative": (False, 0.0, None, "scikit-learn's ndcg_score takes no negative label (labels='nonnegative')"),
    "int_0_30": (
        True, 0.0, 30.0,
        "LightGBM's ndcg takes integer labels 0..30 (its default label_gain's 31 entries; labels='int_0_30')",
    ),
    "int_0_31": (
        True, 0.0, 31.0,
        "XGBoost's ndcg with the exponential gain takes integer labels 0..31 (labels='int_0_31')",
    ),
}
"""Each rule of the ``labels`` parameter but ``'any'``: whether a label must be an integer, its
least and greatest values (None: no bound), and the words of its error (what the library takes)."""
HEAD = Param(
    "head", float, 0.8,
    "the short head's share of the training's (user, item) pairs: the most popular items (by distinct users, "
    "ties by item id) up to the one whose users cross it (Elliot's 80% rule); the other training items are "
    "the long tail",
    minimum=0.0, exclusive_min=True, maximum=1.0,
    bounds="a share of the pairs: above 0 (else no head), at most 1 (then every item is in the head)",
)

LABELS = Param(
    "labels",
    str,
    "any",
    "the labels (relevance of the judgments the metric reads for a query: with judgments='retrieved', "
    "those of its list; an unjudged document is label 0) a library takes, any other an error naming "
    "the metric, the query and the label, as the library refuses it: 'any' (no check, the default); "
    "'binary' (0 or 1: XGBoost's map@n and pre@n, \"map can only be used with binary labels.\"); "
    "'nonnegative' (scikit-learn's ndcg_score, \"ndcg_score should not be used on negative y_true "
    "values.\"); 'int_0_30' (integers 0..30: LightGBM's ndcg with its default label_gain of 31 entries, "
    "\"Label 31 is not less than the number of label mappings (31)\", negative and fractional labels "
    "refused too); 'int_0_31' (integers 0..31: XGBoost's ndcg with the exponential gain, \"Relevance "
    "degress must be lesser than or equal to 31\", negative or fractional: \"label must be either 0 "
    "or positive integer\")",
    choices=("any", *LABEL_RULES),
    check=True,
)
"""The ``labels`` parameter of the metrics whose presets refuse some labels (nDCG, DCG, AP, P):
see :func:`checked_labels`."""
GMAP_FORM = Param(
    "form",
    str,
    "trec_eval",
    "'trec_eval' = exp(mean(log(max(AP, eps)))); 'shifted' = (prod(AP + eps))^(1/n) - eps",
    choices=("trec_eval", "shifted"),
)
GMAP_EPS = Param(
    "eps",
    float,
    1e-5,
    "floor (trec_eval form) or shift (shifted form) applied to each AP",
    minimum=0.0,
    exclusive_min=True,
    maximum=1.0,
    bounds="log(max(AP, eps)) and log(AP + eps) need eps > 0: a query with AP = 0 would take "
    "log 0 (-inf in Polars, NULL in Spark, which the mean would skip); AP lies in [0, 1], so a "
    "floor above 1 would replace every AP by eps (a shift of 1, the mean of log(1 + AP), is "
    "the largest allowed)",
)


def threshold(p: Params) -> float:
    """The relevance threshold ``rel`` of resolved parameters."""
    return float(p["rel"])


def relret(p: Params, k: int | None = None) -> Node:
    """The relevant documents retrieved (within the top ``k``)."""
    from rankwise.primitives import Relret

    return Relret(threshold(p), k)


def nrel(p: Params) -> Node:
    """The relevant documents of the query's judgments (R)."""
    from rankwise.primitives import NRel

    return NRel(threshold(p))


EMPTY_BINARY = (
    "empty: the value of a query with nothing relevant (R = 0: no judgment of relevance >= rel) that "
    "ranked something, 0 (the default), 1, 'skip' (NULL, out of the mean) or 'error'"
)
"""The formula text of ``empty`` for the binary metrics (their specs' formulas end with it)."""


def when_empty(m: Measured, p: Params, relevant: Node, value: Node, zero: bool = True) -> Node:
    """``value``, the metric's tree, with its ``empty`` parameter applied: what a query scores
    when ``relevant``, what it has that is relevant, is 0 (R, the judgments of relevance >= rel,
    for a binary metric; the ideal gain, IDCG under the metric's own ideal, for a gain metric;
    at most 0 where gains may be negative) and it ranked something (a query absent from the
    run keeps ``value``). With ``empty=0`` (trec_eval's, the default) and ``zero`` (``value`` is
    already 0 there, as it is for every such metric without negative gains) ``value`` itself:
    the tree does not grow.

    >>> from rankwise.metrics.metric import parse_metric
    >>> m = parse_metric("R(empty='skip')")
    >>> when_empty(m, m.resolve(), nrel(m.resolve()), relret(m.resolve()))
    WhenEmpty(relevant=NRel(t=1.0), ranked=Count(), value=Relret(t=1.0, k=None), fill=None, refuse=None)
    """
    from rankwise.primitives import Count, WhenEmpty

    empty = p.get("empty", 0)
    if empty == 0 and zero:
        return value
    if empty == "error":
        return WhenEmpty(relevant, Count(), value, None, m.label)
    return WhenEmpty(relevant, Count(), value, None if empty == "skip" else float(empty), None)


def checked_labels(m: Measured, p: Params, value: Node) -> Node:
    """``value``, the metric's tree, with its ``labels`` parameter applied: a query with a
    judgment outside the rule (:data:`LABEL_RULES`) is a :class:`~rankwise.errors.LabelError`.
    With ``labels='any'`` (the default, and a metric without the parameter) ``value`` itself:
    the tree does not grow.

    >>> from rankwise.metrics.metric import parse_metric
    >>> m = parse_metric("P(labels='binary')@5")
    >>> checked_labels(m, m.resolve(), relret(m.resolve(), 5))
    LabelCheck(label=Mul(a=LabelOutside(whole=True, low=0.0, high=1.0), b=Positive(a=Count())), value=Relret(t=1.0, k=5), metric="P(labels='binary')@5", rule="XGBoost's map@n and pre@n take binary labels, 0 or 1 (labels='binary')")
    """
    from rankwise.primitives import Count, LabelCheck, LabelOutside, Mul, Positive

    rule = LABEL_RULES.get(str(p.get("labels", "any")))
    if rule is None:
        return value
    whole, low, high, words = rule
    # only a query that ranked something: the library never sees a judged query with no list
    # (missing='ignore' leaves it out, 'zero' scores it 0)
    return LabelCheck(Mul(LabelOutside(whole, low, high), Positive(Count())), value, m.label, words)


def add(*nodes: Node) -> Node:
    """The sum of ``nodes``, left to right."""
    from rankwise.primitives import Add

    out = nodes[0]
    for n in nodes[1:]:
        out = Add(out, n)
    return out


def shown(m: Measured) -> Node:
    """The ranked documents within the cutoff: min(k, retrieved) (all retrieved without one)."""
    from rankwise.primitives import Const, Count, Least

    return Count() if m.cutoff is None else Least(Const(float(m.cutoff)), Count())


def at_k(m: Measured, node: Node) -> Node:
    """``node`` / k (the cutoff; 1 without one)."""
    from rankwise.primitives import Const, Div

    return Div(node, Const(float(m.cutoff or 1)))


# -- the sum of a rank discount's weights (ndeval's ideal ideal, nDCG's ideal='k') ----------------
_EXACT_TERMS = 100_000
"""Ranks of ndeval's 'ideal ideal' summed term by term; beyond, the smooth tail is integrated."""


def ideal_ideal(alpha: float, k: int, weight: str, base: float = 2.0) -> float:
    """Σ_{i=1..k} (1 − alpha)^(i − 1) · w(i), w(i) = 1 / log2(i + 1) ('log2'), 1 / i ('rank')
    or 1 / max(1, log_base(i)) ('jarvelin'): ndeval's "ideal ideal" per subtopic (every
    subtopic covered at every rank; with alpha = 0, also the sum of a DCG discount's weights
    over k ranks, nDCG's ideal='k'). Exact (term by term) to rank 100000; beyond,
    Σ f(i) = ∫ f + (f(a) − f(b)) / 2 (Euler–Maclaurin, the terms being smooth and decreasing),
    integrated on a log scale (ndeval stops at rank 20).

    >>> ideal_ideal(0.5, 2, "rank")
    1.25
    """
    d = 1.0 - alpha

    def w(x: float) -> float:
        if weight == "log2":
            return 1.0 / math.log2(x + 1.0)
        if weight == "jarvelin":
            return 1.0 / max(1.0, math.log(x) / math.log(base))
        return 1.0 / x

    def f(x: float) -> float:
        return (d ** (x - 1.0) if d > 0 else (1.0 if x == 1.0 else 0.0)) * w(x)

    total, term, i = 0.0, 1.0, 1
    while i <= min(k, _EXACT_TERMS):
        total += term * w(float(i))
        term *= d
        if term == 0.0:
            return total
        i += 1
    if k <= _EXACT_TERMS:
        return total
    a, b = float(_EXACT_TERMS + 1), float(k)
    lo, hi, n = math.log(a), math.log(b), 4000  # Simpson on u = ln x
    h = (hi - lo) / n
    integral = sum(
        (1 if j in (0, n) else 4 if j % 2 else 2) * f(math.exp(lo + j * h)) * math.exp(lo + j * h)
        for j in range(n + 1)
    ) * h / 3
    return total + integral + (f(a) + f(b)) / 2


PATIENCE = Param(
    "patience", float, 0.85, "the geometric weight's ratio (LensKit GeometricRankWeight's default 0.85)",
    minimum=0.0, maximum=1.0, exclusive_min=True, exclusive_max=True,
    bounds="a weight patience^(rank − 1) that decreases down the list and stays positive",
)
"""LensKit's ``GeometricRankWeight(patience)``: the catalog family's exposure Gini and the category
family's rank-biased entropy."""
