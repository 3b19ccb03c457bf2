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
  (rectools: 0)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankwise.metrics.families.shared import REL, shown, threshold
from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe
from rankwise.metrics.spec import MetricSpec

if TYPE_CHECKING:
    from rankwise.primitives import Node

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="Serendipity",
        aliases=(),
        params=(REL,),
        cutoff="required",
        description="rectools' Serendipity: the mean, over the items listed, of how much likelier the user's list "
        "is to show a relevant item at its rank than a popularity ranking is",
        formula="Serendipity@k = Σ_{i ≤ min(k, n)} max((N + 1 − i) / N − pu(d_i), 0) · [rel(d_i) ≥ rel] / min(k, n), "
        "pu(d) = (N + 1 − poprank(d)) / N, poprank(d) the dense rank of item d's training rows (1 = the most "
        "interacted; tied items share a rank), pu = 0 for an item never in training, N the catalog's distinct "
        "items (catalog=), n the items listed; 0 for a user with nothing relevant; NULL for a user with no list",
        citation="rectools Serendipity (rectools.metrics.Serendipity); Kotkov, Wang & Veijalainen, A survey of "
        "serendipity in recommender systems, Knowledge-Based Systems 2016; Murakami et al., Metrics for evaluating "
        "the serendipity of recommendation lists, JSAI 2007",
        empty_value=None,
    ),
)


def _serendipity(m: Measured, p: Params) -> Node:
    """The sum over the items listed within k, NULL for a user with no list."""
    from rankwise.primitives import DivNull, SerendipitySum

    return DivNull(SerendipitySum(threshold(p), m.cutoff), shown(m))


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas over the primitives."""
    return {"Serendipity": _serendipity}


FAMILY = MetricFamily(
    name="serendipity (from the training interactions and the catalog)", specs=SPECS, recipes=recipes,
    reads=("train", "catalog"), beyond_accuracy=True,
)
