"""Counts per query, summed over queries: the queries, the documents retrieved, the relevant
documents, those retrieved, and the judged non-relevant retrieved."""

from __future__ import annotations

import math
from collections.abc import Mapping

from rankwise.metrics.families.shared import JUDGED_ONLY, REL, nrel, relret, threshold
from rankwise.metrics.family import MetricFamily, Recipe, TrecName
from rankwise.metrics.spec import MetricSpec, Param

NUMRET_REL = Param(
    "rel",
    float,
    float("-inf"),
    "count only the documents of relevance >= rel (ir-measures' NumRet(rel=N)); by default "
    "(-inf) every retrieved document, judged or not",
    bounds="a threshold is only compared with relevance values, never computed with: any finite number",
)

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="NumQ",
        aliases=("num_q",),
        params=(),
        cutoff="none",
        description="number of queries evaluated (1 per query; summed)",
        formula="NumQ = 1",
        citation="trec_eval num_q",
        empty_value=1.0,
        aggregate="sum",
        trec_eval="num_q",
    ),
    MetricSpec(
        name="NumRet",
        aliases=("num_ret",),
        params=(NUMRET_REL, JUDGED_ONLY),
        cutoff="none",
        description="number of documents retrieved (summed); with rel, those of relevance ≥ rel",
        formula="NumRet = |retrieved|; NumRet(rel=r) = |{retrieved d: rel_d ≥ r}| (ir-measures: NumRet(rel=1) is NumRelRet)",
        citation="trec_eval num_ret",
        empty_value=0.0,
        aggregate="sum",
        trec_eval="num_ret",
    ),
    MetricSpec(
        name="NumRel",
        aliases=("num_rel",),
        params=(REL,),
        cutoff="none",
        description="number of relevant documents in the qrels (summed)",
        formula="NumRel = |{d in qrels: rel_d ≥ rel}|",
        citation="trec_eval num_rel",
        empty_value=0.0,
        aggregate="sum",
        trec_eval="num_rel",
    ),
    MetricSpec(
        name="NumRelRet",
        aliases=("num_rel_ret",),
        params=(REL, JUDGED_ONLY),
        cutoff="none",
        description="number of relevant documents retrieved (summed)",
        formula="NumRelRet = |relevant ∩ retrieved|",
        citation="trec_eval num_rel_ret",
        empty_value=0.0,
        aggregate="sum",
        trec_eval="num_rel_ret",
    ),
    MetricSpec(
        name="NumNonRelJudgedRet",
        aliases=("num_nonrel_judged_ret",),
        params=(REL, JUDGED_ONLY),
        cutoff="none",
        description="number of judged non-relevant documents retrieved (summed)",
        formula="NumNonRelJudgedRet = |{retrieved d: 0 ≤ rel_d < rel}|",
        citation="trec_eval num_nonrel_judged_ret",
        empty_value=0.0,
        aggregate="sum",
        trec_eval="num_nonrel_judged_ret",
    ),
)


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas over the primitives."""
    from rankwise.primitives import Const, Count, NonrelJudged

    return {
        "NumQ": lambda m, p: Const(1.0),
        "NumRet": lambda m, p: Count() if math.isinf(float(p["rel"])) else relret(p),
        "NumRel": lambda m, p: nrel(p),
        "NumRelRet": lambda m, p: relret(p),
        "NumNonRelJudgedRet": lambda m, p: NonrelJudged(threshold(p)),
    }


FAMILY = MetricFamily(
    name="counts",
    specs=SPECS,
    recipes=recipes,
    trec_eval={
        "num_q": TrecName("NumQ", place=0, official=True),
        "num_ret": TrecName("NumRet", place=1, official=True),
        "num_rel": TrecName("NumRel", place=2, official=True),
        "num_rel_ret": TrecName("NumRelRet", place=3, official=True),
        "num_nonrel_judged_ret": TrecName("NumNonRelJudgedRet", place=32),
    },
    ir_measures={name: name for name in ("NumQ", "NumRet", "NumRel", "NumRelRet")},
)
