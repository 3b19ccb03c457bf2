"""The serendipity family (beyond accuracy): how relevant and unlikely each user's recommendations
are, read from the training interactions (``train=``) and the catalog (``catalog=``).

- ``Serendipity@k`` (``definition='rectools'``, the default; rectools' ``Serendipity``): per user
  the mean over the items listed within k (min(k, n) of them) of max(p(r) − pu(d), 0) · rel(d),
  p(r) = (n + 1 − r) / n the chance the user's list gives rank r, pu(d) = (n + 1 − poprank(d)) / n
  the chance a popularity ranking gives item d, poprank the dense rank of its training rows (1 =
  the most interacted items, tied items share a rank: rectools'), 0 for an item never in
  training, n the catalog's distinct items (rectools takes ``len(catalog)``, a repeated item
  counted twice), rel(d) = 1 for a judgment of relevance ≥ ``rel`` (rectools' test
  interactions), else 0. A judged user with nothing relevant scores 0 (rectools scores every
  user it recommended to); a user the run lists nothing for (``missing='zero'``) has no value
  (NULL), as in the other beyond-accuracy families; a run user without judgments is not scored
  (rectools: 0).
- ``Serendipity(definition='recommenders', similarity=...)@k`` (recommenders' ``user_serendipity``,
  Zhang et al.'s Auralist): per user the mean over the items listed within k of
  (1 − mean_{j ∈ H_u} sim(d, j)) · r(d), H_u the user's training rows (a repeated row counts
  again), r(d) = [rel(d) ≥ ``rel``] (``relevance='every'``: 1 on every row, recommenders' default
  without a relevance column). ``similarity='cooccurrence'`` (recommenders' default):
  co(i, j) = Σ_u n_u(i) n_u(j) / sqrt(rows(i) rows(j)) over the training users, n_u(i) u's rows of
  item i (with distinct rows, recommenders' assumption: the users with both over the root of the
  product of the items' users), 0 for items that never co-occur (recommenders under pandas 2; under
  pandas 3 its chained ``fillna`` is a no-op and such pairs are silently skipped);
  ``similarity='cosine'``: the cosine of the item features (``features=``; 0 against a zero vector
  or an item of the history without features), recommenders' definition by itself (rectools' has
  no similarity). ``relevance='every'`` counts every listed item in either definition. recommenders has no k (its caller cuts the lists)
  and refuses listed items the user has in training (rankwise counts them). A user without
  training rows has no value (NULL: recommenders leaves it out), as has a user the run lists
  nothing for; a judged user with nothing relevant scores 0."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankwise.metrics.families.shared import REL, shown, threshold
from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe
from rankwise.metrics.spec import MetricSpec, Param

if TYPE_CHECKING:
    from rankwise.primitives import Node

DEFINITION = Param(
    "definition", str, "rectools",
    "whose serendipity: 'rectools' (the rank's probability above the popularity ranking's, over the catalog's "
    "size: rectools Serendipity) or 'recommenders' (1 − the mean similarity to the user's training items: "
    "recommenders user_serendipity)",
    choices=("rectools", "recommenders"),
)
SIMILARITY = Param(
    "similarity", str, "cooccurrence",
    "recommenders' similarity of two items: 'cooccurrence' (their training users' co-occurrence cosine: "
    "recommenders' default, with definition='recommenders') or 'cosine' (of their features, features=: "
    "item_feature_vector; rectools' definition has no similarity, so 'cosine' names recommenders')",
    choices=("cooccurrence", "cosine"),
)
RELEVANCE = Param(
    "relevance", str, "qrels",
    "which listed items count: those of relevance >= rel in the qrels ('qrels': rectools' test interactions, "
    "recommenders' relevance column) or every one ('every': recommenders without a relevance column)",
    choices=("qrels", "every"),
)

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="Serendipity",
        aliases=(),
        params=(DEFINITION, REL, SIMILARITY, RELEVANCE),
        cutoff="required",
        description="rectools' Serendipity: the mean, over the items listed, of how much likelier the user's list "
        "is to show a relevant item at its rank than a popularity ranking is; definition='recommenders': the "
        "mean unlikeness of the relevant items listed to the user's training items",
        formula="Serendipity@k = Σ_{i ≤ min(k, n)} max((N + 1 − i) / N − pu(d_i), 0) · [rel(d_i) ≥ rel] / min(k, n), "
        "pu(d) = (N + 1 − poprank(d)) / N, poprank(d) the dense rank of item d's training rows (1 = the most "
        "interacted; tied items share a rank), pu = 0 for an item never in training, N the catalog's distinct "
        "items (catalog=), n the items listed; 0 for a user with nothing relevant; NULL for a user with no list. "
        "definition='recommenders': Σ_{i ≤ min(k, n)} (1 − Σ_{j ∈ H} sim(d_i, j) / |H|) · r(d_i) / min(k, n), H the "
        "user's training rows, sim the co-occurrence cosine Σ_u n_u(a) n_u(b) / sqrt(rows(a) rows(b)) (0 for items "
        "that never co-occur) or the cosine of the features (similarity='cosine', which is recommenders' "
        "definition), r = [rel ≥ rel] (relevance='every': 1, in either definition); NULL for a user without "
        "training rows",
        citation="rectools Serendipity (rectools.metrics.Serendipity); recommenders user_serendipity "
        "(recommenders.evaluation.python_evaluation); Kotkov, Wang & Veijalainen, A survey of "
        "serendipity in recommender systems, Knowledge-Based Systems 2016; Murakami et al., Metrics for evaluating "
        "the serendipity of recommendation lists, JSAI 2007; Zhang et al., Auralist: introducing serendipity into "
        "music recommendation, WSDM 2012",
        empty_value=None,
    ),
)


def _serendipity(m: Measured, p: Params) -> Node:
    """The sum over the items listed within k, NULL for a user with no list (and, for
    recommenders', without training rows: the sum's own NULL)."""
    from rankwise.primitives import (
        CooccurrenceSerendipitySum,
        CosineSerendipitySum,
        DivNull,
        SerendipitySum,
    )

    every = p["relevance"] == "every"
    if p["definition"] == "rectools" and p["similarity"] != "cosine":
        total: Node = SerendipitySum(threshold(p), m.cutoff, every)
    else:
        kind = CosineSerendipitySum if p["similarity"] == "cosine" else CooccurrenceSerendipitySum
        total = kind(threshold(p), m.cutoff, every)
    return DivNull(total, shown(m))


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas over the primitives."""
    return {"Serendipity": _serendipity}


FAMILY = MetricFamily(
    name="serendipity (from the training interactions and the catalog)", specs=SPECS, recipes=recipes,
    reads=("train", "catalog", "features"), beyond_accuracy=True,
)
