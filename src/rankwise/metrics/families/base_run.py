"""The base-run family (beyond accuracy): how unlike a baseline ranking each user's list is. Its
metric reads ``base_run=``, the base run (query, doc, score: any form the run takes), ranked as
the run is (the tie policy, ``max_rank``), given to :func:`rankwise.evaluate` and every other
entry point beside the qrels and the run.

- ``Unexpectedness@k`` (RePlay's ``Unexpectedness``): 1 − |top k ∩ base top k| / k, over k even
  for a list shorter than k (a short list scores more). A user without a list in the base run
  scores 0 (RePlay's value); a user the run lists nothing for (``missing='zero'``) has no value
  (NULL), as in the other beyond-accuracy families (RePlay gives it 0 too)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe
from rankwise.metrics.spec import MetricSpec

if TYPE_CHECKING:
    from rankwise.primitives import Node

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="Unexpectedness",
        aliases=(),
        params=(),
        cutoff="required",
        description="RePlay's Unexpectedness: the share of the top k that the base run's top k for the same user "
        "does not hold (over k: a list shorter than k scores more)",
        formula="Unexpectedness@k = 1 − |L@k ∩ B@k| / k, L@k the user's top k, B@k the top k of the user's list "
        "in the base run (base_run=, ranked as the run is: the tie policy, max_rank); 0 for a user without a "
        "list in the base run (RePlay); NULL for a user with no list in the run (RePlay: 0)",
        citation="RePlay Unexpectedness (replay.metrics.Unexpectedness); Adamopoulos & Tuzhilin, On unexpectedness "
        "in recommender systems, ACM TIST 2014",
        empty_value=None,
    ),
)


def _unexpectedness(m: Measured, p: Params) -> Node:
    """1 − the shared items over k (NULL for a user with no list: the sum's own empty value)."""
    from rankwise.primitives import BaseOverlapSum, Const, Div, Sub

    k = int(m.cutoff or 0)
    return Sub(Const(1.0), Div(BaseOverlapSum(k), Const(float(k))))


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas over the primitives."""
    return {"Unexpectedness": _unexpectedness}


FAMILY = MetricFamily(
    name="unexpectedness (from the base run)", specs=SPECS, recipes=recipes, reads=("base_run",), beyond_accuracy=True
)
