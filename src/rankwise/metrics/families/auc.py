"""Per-query AUC and the look-probability model: ROC AUC over each query's retrieved list
(scikit-learn's ``roc_auc_score`` per query, torchmetrics' ``RetrievalAUROC``), CatBoost's
QueryAUC over graded pairs, rectools' partial AUC (pAUC@k) and pAp@k, and CatBoost's PFound.

AUC, PartialAUC and PAP are binary: a document is positive when its relevance ≥ ``rel``; an unjudged (or
negatively judged) retrieved document is a negative. ``AUC`` counts a score tie between a
positive and a negative one half (its tie groups are the query's documents of equal score, as
the ranking compares scores); rectools' metrics read only the ranks, so their ties follow the
``ties`` convention, as PFound's do.

CatBoost's ``QueryAUC:type=Ranking`` counts the pairs of any two labels (integers 0..31): over
the labels' binary digits, each a rank window (:class:`~rankwise.primitives.LabelMidrank`).

Not here: RecBole's GAUC (each query's AUC weighted by its positives) needs a weighted mean,
which no aggregate of :class:`~rankwise.metrics.spec.MetricSpec` is (``summarize``, ``compare``'s
paired tests and Spark's summary row weigh every query alike); TorchRec's unweighted GAUC is
``AUC``'s mean."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankwise.metrics.families.shared import (
    EMPTY,
    JUDGED_ONLY,
    REL,
    nrel,
    relret,
    shown,
    threshold,
    when_empty,
)
from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe
from rankwise.metrics.spec import MetricSpec, Param

if TYPE_CHECKING:
    from rankwise.primitives import Node

DECAY = Param(
    "decay", float, 0.85,
    "the chance to look on after a document that did not stop the user (CatBoost PFound's decay)",
    minimum=0.0, exclusive_min=True, maximum=1.0,
    bounds="a probability: decay^(i − 1) weighs rank i, so decay > 1 would grow with the depth; "
    "decay = 0 would leave the first document alone (and 0^0 to the engines)",
)

ONE_CLASS = Param(
    "empty",
    int,
    "skip",
    "what a query whose list holds one class scores (no relevant or no non-relevant document: AUC "
    "undefined): 'skip' (NULL, left out of the mean; scikit-learn raises, RecBole's GAUC drops the "
    "user), 0 (torchmetrics' RetrievalAUROC) or 1; not bound to the empty convention, whose "
    "'nothing relevant' is another case",
    choices=("skip",),
    minimum=0,
    maximum=1,
    bounds="AUC's range is [0, 1]: 0 and 1 are its ends; 'skip' is the other convention",
)

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="AUC",
        aliases=("roc_auc",),
        params=(REL, JUDGED_ONLY, ONE_CLASS),
        cutoff="optional",
        description="ROC AUC of each query's retrieved list: the chance that a relevant document scores above a "
        "non-relevant one (unjudged counts as non-relevant; ties count one half)",
        formula="AUC@k = (Σ_{pos p, neg n in top k} [s_p > s_n] + ½·[s_p = s_n]) / (P·N) = (P·(n + 1) − Σ_pos "
        "midrank − P(P + 1)/2) / (P·N), n = min(k, retrieved), P the relevant and N = n − P the others in the top "
        "k, midrank the mean rank of the document's score tie; NULL (undefined, left out of means and "
        "comparisons) when P·N = 0 (scikit-learn raises there, torchmetrics gives 0: empty=0). The plain mean over queries "
        "is TorchRec's GAUC",
        citation="scikit-learn roc_auc_score per query; torchmetrics RetrievalAUROC; Mann & Whitney 1947",
        empty_value=None,
    ),
    MetricSpec(
        name="QueryAUC",
        aliases=(),
        params=(JUDGED_ONLY,),
        cutoff="optional",
        description="share of the pairs of documents with different labels that the scores order right, ties one "
        "half (CatBoost QueryAUC:type=Ranking)",
        formula="QueryAUC@k = Σ_{i,j in top k: l_i > l_j} ([s_i > s_j] + ½·[s_i = s_j]) / |{i,j: l_i > l_j}|, l = "
        "the relevance as an integer label 0..31 (unjudged and negative: 0; another value is an error); 0 when "
        "every label is equal (CatBoost). Counted over the labels' binary digits: a pair first differs at one bit b, "
        "and within the documents sharing the higher bits, the midrank of the score among them minus that among "
        "those sharing bit b too counts the documents below",
        citation="CatBoost QueryAUC (type=Ranking)",
        empty_value=0.0,
    ),
    MetricSpec(
        name="PartialAUC",
        aliases=("pAUC",),
        params=(REL, JUDGED_ONLY, EMPTY),
        cutoff="required",
        description="partial AUC: every relevant document against the top k non-relevant ones (rectools PartialAUC)",
        formula="pAUC@k = Σ_{relevant retrieved r, n_r < k} (k − n_r) / (R·k), n_r = non-relevant (or unjudged) "
        "ranked above r, R = |relevant in qrels| (retrieved or not; a relevant document not retrieved adds 0); "
        "0 when nothing is relevant (rectools leaves such a user out)",
        citation="rectools PartialAUC (insufficient_handling='ignore'); Hiranandani et al., ICML 2020",
        cutoff_is_rank=False,
        empty_value=0.0,
    ),
    MetricSpec(
        name="PAP",
        aliases=(),
        params=(REL, JUDGED_ONLY, EMPTY),
        cutoff="required",
        description="pAp@k: the top min(k, R) relevant documents against the top k non-relevant ones (rectools PAP)",
        formula="pAp@k = Σ_{first k relevant retrieved r, n_r < k} (k − n_r) / (min(R, k)·k), n_r = non-relevant "
        "(or unjudged) ranked above r, R = |relevant in qrels|; 0 when nothing is relevant (rectools leaves such "
        "a user out)",
        citation="rectools PAP (insufficient_handling='ignore'); Hiranandani et al., Optimization and Analysis of "
        "the pAp@k Metric for Recommender Systems, ICML 2020",
        cutoff_is_rank=False,
        empty_value=0.0,
    ),
    MetricSpec(
        name="PFound",
        aliases=(),
        params=(DECAY, JUDGED_ONLY),
        cutoff="optional",
        description="expected relevance found by a user who stops at a document with probability its label "
        "(CatBoost PFound, Yandex)",
        formula="PFound@k = Σ_{i≤k} P_look(i)·l_i, P_look(1) = 1, P_look(i+1) = P_look(i)·(1 − l_i)·decay, "
        "l = the relevance (not clipped above 1, as CatBoost; unjudged and negative: 0)",
        citation="CatBoost PFound (its ranking metrics; decay 0.85 its default); Segalovich, Yandex at ROMIP 2009",
        empty_value=0.0,
    ),
)


def _auc(m: Measured, p: Params) -> Node:
    """The Mann–Whitney U of the positives over the top k from their midranks, over P·N; NULL
    when there is no positive or no negative."""
    from rankwise.primitives import Add, AucRankSum, Const, Div, DivNull, Mul, Sub

    pos, n = relret(p, m.cutoff), shown(m)
    midranks_from_bottom = Sub(Mul(pos, Add(n, Const(1.0))), AucRankSum(threshold(p), m.cutoff))
    u = Sub(midranks_from_bottom, Div(Mul(pos, Add(pos, Const(1.0))), Const(2.0)))
    pairs = Mul(pos, Sub(n, pos))
    value = DivNull(u, pairs)
    return value if p["empty"] == "skip" else when_empty(m, p, pairs, value, zero=False)


def _partial_auc(m: Measured, p: Params, top: bool) -> Node:
    """rectools' pAUC@k (``top=False``) or pAp@k: the sum over R·k or min(R, k)·k."""
    from rankwise.primitives import Const, Div0, Least, Mul, PartialAucSum

    k = int(m.cutoff or 0)
    positives = Least(nrel(p), Const(float(k))) if top else nrel(p)
    return when_empty(m, p, nrel(p), Div0(PartialAucSum(threshold(p), k, top), Mul(positives, Const(float(k)))))


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas over the primitives."""
    from rankwise.primitives import Div0, LabelPairs, LabelPairsOrdered, PfoundSum

    return {
        "AUC": _auc,
        "QueryAUC": lambda m, p: Div0(LabelPairsOrdered(m.cutoff), LabelPairs(m.cutoff)),
        "PartialAUC": lambda m, p: _partial_auc(m, p, top=False),
        "PAP": lambda m, p: _partial_auc(m, p, top=True),
        "PFound": lambda m, p: PfoundSum(m.cutoff, float(p["decay"])),
    }


FAMILY = MetricFamily(name="AUC", specs=SPECS, recipes=recipes)
