"""How complete the judgments of a ranking are: the share of the top k judged (Judged) or not
(Unjudged), and trec_eval's relevance string of the top k (RelString)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankwise.metrics.families.shared import JUDGED_ONLY, at_k
from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe, TrecName
from rankwise.metrics.spec import MetricSpec, Param

if TYPE_CHECKING:
    from rankwise.primitives import Node

# -- parameters ----------------------------------------------------------------------------------
JUDGED_DENOMINATOR = Param(
    "denominator",
    str,
    "k",
    "what Judged@k divides by: 'k', or 'retrieved', min(k, |retrieved|) (ir-measures); "
    "without a cutoff both are |retrieved|",
    choices=("k", "retrieved"),
)
JUDGED_NEGATIVE = Param(
    "negative",
    str,
    "unjudged",
    "a document judged negative (e.g. -1) counts as 'unjudged' (trec_eval 10: in the pool but "
    "unjudged) or as 'judged' (ir-measures: any judgment)",
    choices=("unjudged", "judged"),
)

RELSTRING_DEFAULT_K = 10
"""Documents RelString shows without a cutoff (trec_eval's default)."""

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="Unjudged",
        aliases=("unj",),
        params=(),
        cutoff="required",
        description="fraction of the top k that is unjudged (or judged negative)",
        formula="Unjudged@k = |unjudged in top k| / k",
        citation="trec_eval unj",
        empty_value=0.0,
        trec_eval="unj",
        better="lower",
    ),
    MetricSpec(
        name="Judged",
        aliases=(),
        params=(JUDGED_DENOMINATOR, JUDGED_NEGATIVE),
        cutoff="optional",
        description="fraction of the top k (without a cutoff: of the ranking) that is judged",
        formula="Judged@k = 1 − |unjudged in top k| / k; denominator='retrieved': / min(k, |retrieved|); "
        "negative='judged': a negative judgment counts as judged (ir-measures: "
        "Judged(denominator='retrieved', negative='judged'))",
        citation="Sakai 2007; ir-measures Judged",
        empty_value=1.0,
        better="neither",
    ),
    MetricSpec(
        name="RelString",
        aliases=(),
        params=(JUDGED_ONLY,),
        cutoff="optional",
        description="the relevance of the top k documents as text, one character each (not a number: per query only)",
        formula="char(rel_i) for i ≤ k (k = 10 when not given, as trec_eval): '0'–'9' the level (floor), '>' above 9, '-' unjudged, '.' judged negative (in the pool but unjudged)",
        citation="trec_eval relstring",
        empty_value="",
        aggregate="none",
        value_type="string",
        trec_eval="relstring",
    ),
)


# -- recipes -------------------------------------------------------------------------------------
def _judged(m: Measured, p: Params) -> Node:
    """Judged@k: 1 − unjudged / k; over the retrieved documents (no cutoff, or
    denominator='retrieved'), judged / min(k, retrieved), 0 for an empty ranking (ir-measures)."""
    from rankwise.primitives import Const, Count, Div0, Least, NotJudged, Sub, Unjudged

    unjudged: Node = NotJudged(m.cutoff) if p["negative"] == "judged" else Unjudged(m.cutoff)
    if m.cutoff is not None and p["denominator"] == "k":
        return Sub(Const(1.0), at_k(m, unjudged))
    shown: Node = Count() if m.cutoff is None else Least(Const(float(m.cutoff)), Count())
    return Div0(Sub(shown, unjudged), shown)


def _unjudged(m: Measured, p: Params) -> Node:
    """Unjudged@k: the min(k, retrieved) documents at rank ≤ k less those judged (relevance ≥ 0:
    ``Relret`` at 0), which the judged rows give (a count of the unjudged ones reads every row
    down to k)."""
    from rankwise.primitives import Const, Count, Least, Relret, Sub

    k = m.cutoff  # required
    return at_k(m, Sub(Least(Const(float(k or 0)), Count()), Relret(0.0, k)))


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas over the primitives."""
    from rankwise.primitives import Relstring

    return {
        "Unjudged": _unjudged,
        "Judged": _judged,
        "RelString": lambda m, p: Relstring(m.cutoff or RELSTRING_DEFAULT_K),
    }


FAMILY = MetricFamily(
    name="judgment coverage",
    specs=SPECS,
    recipes=recipes,
    trec_eval={
        "unj": TrecName("Unjudged", "cutoff", defaults=(5.0, 10.0, 20.0), place=35),
        "relstring": TrecName("RelString", "cutoff", defaults=(10.0,), bare_default=True, place=11),
    },
    ir_measures={"Judged": "Judged"},
    ir_measures_defaults={"Judged": {"denominator": "retrieved", "negative": "judged"}},
)
