"""The metric registry: one declarative :class:`~rankwise.spec.MetricSpec` per metric.

This table is the single list of metrics. The parser, the engines' completeness tests, the
README metric table and the "unknown metric" errors are all derived from it.
"""

from __future__ import annotations

from collections.abc import Iterator

from rankwise.errors import UnknownMetricError, closest
from rankwise.spec import MetricSpec, Param

# -- parameters shared by several metrics -------------------------------------------------------
GAIN = Param(
    "gain",
    str,
    "linear",
    "gain of a document: 'linear' = max(rel, 0); 'exponential' = 2^rel - 1 (Burges et al. 2005), 0 for rel <= 0",
    choices=("linear", "exponential"),
)
DISCOUNT = Param(
    "discount",
    str,
    "log2",
    "rank discount: 'log2' = log2(i + 1); 'jarvelin' = max(1, log_b(i)) (Järvelin & Kekäläinen 2002)",
    choices=("log2", "jarvelin"),
)
BASE = Param(
    "base",
    float,
    2.0,
    "log base b of the 'jarvelin' discount (ranks below b are not discounted)",
    minimum=1.0,
    exclusive_min=True,
)
IDEAL = Param(
    "ideal",
    str,
    "qrels",
    "ideal ranking from all judgments of the query ('qrels') or from the retrieved list ('run')",
    choices=("qrels", "run"),
)
REL = Param(
    "rel",
    float,
    1,
    "relevance threshold: a document is relevant when its relevance >= rel (trec_eval -l)",
    convention="rel",
)
JUDGED_ONLY = Param(
    "judged_only",
    bool,
    False,
    "drop unjudged documents from the ranking before measuring (trec_eval -J)",
    convention="judged_only",
)
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
)

_DCG_FORMULA = (
    "DCG@k = Σ_{i≤k} gain(rel_i) / discount(i); gain linear = max(rel, 0), exponential = 2^rel − 1; "
    "discount log2 = log2(i + 1), jarvelin = max(1, log_b i)"
)

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="nDCG",
        aliases=("ndcg_cut",),
        params=(GAIN, DISCOUNT, BASE, IDEAL, JUDGED_ONLY),
        cutoff="optional",
        description="normalised discounted cumulative gain",
        formula="nDCG@k = DCG@k / IDCG@k (0 when IDCG@k = 0); " + _DCG_FORMULA,
        citation="Järvelin & Kekäläinen, Cumulated gain-based evaluation of IR techniques, TOIS 2002",
        empty_value=0.0,
        trec_eval="ndcg / ndcg_cut",
    ),
    MetricSpec(
        name="DCG",
        aliases=(),
        params=(GAIN, DISCOUNT, BASE, JUDGED_ONLY),
        cutoff="optional",
        description="discounted cumulative gain",
        formula=_DCG_FORMULA,
        citation="Järvelin & Kekäläinen, TOIS 2002; Burges et al., ICML 2005 (exponential gain)",
        empty_value=0.0,
    ),
    MetricSpec(
        name="IDCG",
        aliases=(),
        params=(GAIN, DISCOUNT, BASE, IDEAL),
        cutoff="optional",
        description="ideal DCG: DCG of the best possible ordering",
        formula="IDCG@k = DCG@k of the judged documents sorted by relevance, best first (or of the retrieved list with ideal='run')",
        citation="Järvelin & Kekäläinen, TOIS 2002",
        empty_value=0.0,
    ),
    MetricSpec(
        name="CG",
        aliases=(),
        params=(GAIN, JUDGED_ONLY),
        cutoff="optional",
        description="cumulative gain (order-blind)",
        formula="CG@k = Σ_{i≤k} gain(rel_i)",
        citation="Järvelin & Kekäläinen, TOIS 2002",
        empty_value=0.0,
    ),
    MetricSpec(
        name="P",
        aliases=("precision",),
        params=(REL, JUDGED_ONLY),
        cutoff="required",
        description="precision at k",
        formula="P@k = |relevant in top k| / k (k even when fewer were retrieved)",
        citation="trec_eval P",
        empty_value=0.0,
        trec_eval="P",
    ),
    MetricSpec(
        name="R",
        aliases=("recall",),
        params=(REL, JUDGED_ONLY),
        cutoff="optional",
        description="recall at k",
        formula="R@k = |relevant in top k| / |relevant in qrels| (0 when none is relevant)",
        citation="trec_eval recall",
        empty_value=0.0,
        trec_eval="recall",
    ),
    MetricSpec(
        name="Success",
        aliases=("hit_rate",),
        params=(REL, JUDGED_ONLY),
        cutoff="required",
        description="1 if a relevant document is in the top k, else 0",
        formula="Success@k = [∃ i ≤ k: rel_i ≥ rel]",
        citation="trec_eval success",
        empty_value=0.0,
        trec_eval="success",
    ),
    MetricSpec(
        name="AP",
        aliases=("map", "map_cut"),
        params=(REL, JUDGED_ONLY),
        cutoff="optional",
        description="average precision (its mean over queries is MAP)",
        formula="AP@k = (1/R) Σ_{i≤k, rel_i ≥ rel} P@i, R = |relevant in qrels| (trec_eval map_cut)",
        citation="Harman, TREC-2 overview, 1993; trec_eval map",
        empty_value=0.0,
        trec_eval="map / map_cut",
    ),
    MetricSpec(
        name="RR",
        aliases=("mrr", "recip_rank"),
        params=(REL, JUDGED_ONLY),
        cutoff="optional",
        description="reciprocal rank of the first relevant document (its mean is MRR)",
        formula="RR@k = 1 / min{i ≤ k: rel_i ≥ rel} (0 when none)",
        citation="Voorhees, TREC-8 QA track, 1999; trec_eval recip_rank",
        empty_value=0.0,
        trec_eval="recip_rank",
    ),
    MetricSpec(
        name="Rprec",
        aliases=("r_precision",),
        params=(REL, JUDGED_ONLY),
        cutoff="none",
        description="precision at R, the number of relevant documents",
        formula="Rprec = |relevant in top R| / R (0 when R = 0)",
        citation="trec_eval Rprec",
        empty_value=0.0,
        trec_eval="Rprec",
    ),
    MetricSpec(
        name="GMAP",
        aliases=("gm_map",),
        params=(REL, JUDGED_ONLY, GMAP_FORM, GMAP_EPS),
        cutoff="none",
        description="geometric mean of AP; per query the value is AP, the summary is the geometric mean",
        formula="GMAP = exp(mean(log(max(AP, eps)))) (trec_eval), or (Π (AP + eps))^(1/n) − eps (form='shifted')",
        citation="Robertson, On GMAP, CIKM 2006; trec_eval gm_map",
        empty_value=0.0,
        aggregate="gmean",
        trec_eval="gm_map",
    ),
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
        params=(JUDGED_ONLY,),
        cutoff="none",
        description="number of documents retrieved (summed)",
        formula="NumRet = |retrieved|",
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
)

_BY_NAME: dict[str, MetricSpec] = {}
for _spec in SPECS:
    for _name in _spec.all_names:
        if _name.lower() in _BY_NAME:
            raise RuntimeError(f"metric name {_name!r} is registered twice")
        _BY_NAME[_name.lower()] = _spec


def all_names() -> list[str]:
    """Every accepted metric name (canonical names first, then aliases)."""
    return [s.name for s in SPECS] + [a for s in SPECS for a in s.aliases]


def get_spec(name: str) -> MetricSpec:
    """The spec for ``name`` (case-insensitive); :class:`UnknownMetricError` lists close names.

    >>> get_spec("ndcg").name
    'nDCG'
    >>> get_spec("map").name
    'AP'
    """
    spec = _BY_NAME.get(name.lower())
    if spec is None:
        near = closest(name, all_names())
        hint = f" Closest: {', '.join(near)}." if near else ""
        raise UnknownMetricError(
            f"unknown metric {name!r}.{hint} Valid metrics: {', '.join(s.name for s in SPECS)}."
        )
    return spec


def iter_specs() -> Iterator[MetricSpec]:
    """All specs, in registry order."""
    return iter(SPECS)
