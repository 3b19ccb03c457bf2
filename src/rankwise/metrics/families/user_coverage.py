"""User coverage (beyond accuracy): whether the recommender gave each user something at all.

- ``UserCoverage@k`` (rectools' ``CoveredUsers``): per user 1 when the run lists an item for
  it at a rank ≤ k, else 0; its mean over the users is the run's user coverage. The users
  scored are rectools' test users: the judged users with a relevant judgment (relevance ≥
  ``rel``); a judged user with nothing relevant has no value (NULL: rectools does not score
  it). A judged user the run lists nothing for is uncovered, 0 by the definition, under
  ``missing='zero'`` (trec_eval's ``-c``, the command line's ``--complete``), which keeps it;
  under ``missing='ignore'`` (the default) it is left out of every metric, this one too, so
  that the mean is 1 over the users listed: the user coverage is a ``missing='zero'``
  measure (the other beyond-accuracy families give such a user NULL, undefined; here 0 is
  the value itself). The libraries' other user coverages (rexmex's share over a given user
  list, Elliot's counts) are not this metric.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankwise.metrics.families.shared import REL, nrel, shown
from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe
from rankwise.metrics.spec import MetricSpec

if TYPE_CHECKING:
    from rankwise.primitives import Node

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="UserCoverage",
        aliases=("CoveredUsers",),
        params=(REL,),
        cutoff="required",
        description="whether the run lists anything for the user within the top k (rectools CoveredUsers; the "
        "mean is the user coverage, with missing='zero' so that a judged user without a list counts 0)",
        formula="UserCoverage@k = [min(k, n) > 0], n the items listed for the user: 1 when it has an item at a "
        "rank ≤ k, 0 when it has none (a judged user absent from the run, kept by missing='zero'; missing='ignore' "
        "leaves it out); NULL for a user with nothing relevant (no judgment of relevance ≥ rel: rectools scores "
        "the users of the test interactions only)",
        citation="rectools CoveredUsers (rectools.metrics.CoveredUsers); Ge, Delgado-Battenfeld & Jannach, Beyond "
        "accuracy: evaluating recommender systems by coverage and serendipity, RecSys 2010",
        empty_value=None,
    ),
)


def _user_coverage(m: Measured, p: Params) -> Node:
    """[something listed within k], NULL where nothing is relevant."""
    from rankwise.primitives import DivNull, Positive

    return DivNull(Positive(shown(m)), Positive(nrel(p)))


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas over the primitives."""
    return {"UserCoverage": _user_coverage}


FAMILY = MetricFamily(
    name="user coverage (from the run and the qrels)", specs=SPECS, recipes=recipes, beyond_accuracy=True,
)
