"""Linear utility of the retrieved set (trec_eval's utility): a gain or cost for each kind of
document, retrieved or not, relevant or not."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankwise.conventions import LIMIT
from rankwise.metrics.families.shared import JUDGED_ONLY, REL, add, nrel, relret
from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe, TrecName
from rankwise.metrics.spec import MetricSpec, Param

if TYPE_CHECKING:
    from rankwise.primitives import Node

_COEFFICIENT = (
    "a gain or a cost, of either sign; each within ±2**62 so that coefficient × count of "
    "documents stays finite"
)
UTILITY_PARAMS = (
    Param("a", float, 1.0, "gain per relevant retrieved document", minimum=-LIMIT, maximum=LIMIT, bounds=_COEFFICIENT),
    Param("b", float, -1.0, "gain per non-relevant retrieved document", minimum=-LIMIT, maximum=LIMIT, bounds=_COEFFICIENT),
    Param("c", float, 0.0, "gain per relevant document not retrieved", minimum=-LIMIT, maximum=LIMIT, bounds=_COEFFICIENT),
    Param("d", float, 0.0, "gain per non-relevant document not retrieved", minimum=-LIMIT, maximum=LIMIT, bounds=_COEFFICIENT),
    Param(
        "docs", int, 0, "number of documents in the collection (trec_eval -N)", minimum=0, maximum=LIMIT,
        bounds="a number of documents (0: trec_eval's default when -N is not given); at most "
        "2**62, the engines' Int64 range",
    ),
)

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="Utility",
        aliases=(),
        params=(*UTILITY_PARAMS, REL, JUDGED_ONLY),
        cutoff="none",
        description="linear utility of the retrieved set",
        formula="Utility = a·relret + b·(ret − relret) + c·(R − relret) + d·(docs + relret − ret − R)",
        citation="trec_eval utility",
        empty_value=0.0,
        trec_eval="utility",
    ),
)


def _utility(m: Measured, p: Params) -> Node:
    from rankwise.primitives import Const, Count, Mul, Sub

    rr, ret, nr = relret(p), Count(), nrel(p)
    nonrel_ret = Sub(ret, rr)
    rel_missed = Sub(nr, rr)
    rest = Sub(add(Const(float(p["docs"])), rr), add(ret, nr))
    return add(
        Mul(Const(float(p["a"])), rr),
        Mul(Const(float(p["b"])), nonrel_ret),
        Mul(Const(float(p["c"])), rel_missed),
        Mul(Const(float(p["d"])), rest),
    )


def recipes() -> Mapping[str, Recipe]:
    """The family's formula over the primitives."""
    return {"Utility": _utility}


FAMILY = MetricFamily(
    name="utility",
    specs=SPECS,
    recipes=recipes,
    trec_eval={"utility": TrecName("Utility", place=16)},
)
