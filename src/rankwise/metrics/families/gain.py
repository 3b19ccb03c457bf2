"""Gain-based metrics: the DCG family (nDCG, DCG, IDCG, CG), trec_eval's gain-table measures
(G, nDCGRel, RnDCG), ERR's cascade and rank-biased precision (RBP, its residual)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankwise.conventions import LIMIT
from rankwise.metrics.families.shared import (
    EMPTY,
    EMPTY_BINARY,
    EXPECTED_TIES,
    JUDGED_ONLY,
    LABELS,
    REL,
    TREC_CUTS,
    add,
    nrel,
    threshold,
    when_empty,
)
from rankwise.metrics.family import Measured, MetricFamily, Params, Recipe, TrecName
from rankwise.metrics.spec import MetricSpec, Param

if TYPE_CHECKING:
    from rankwise.primitives import Gain, Node

# -- parameters ----------------------------------------------------------------------------------
GAIN = Param(
    "gain",
    str,
    "linear",
    "gain of a document: 'linear' = max(rel, 0); 'exponential' = 2^rel - 1 (Burges et al. 2005), 0 for rel <= 0; "
    "'binary' = 1 for a positive relevance, 0 otherwise (every relevant document counts once: Spark MLlib's "
    "ndcgAt, rectools', RecBole's and LensKit's NDCG on binary judgments; rel= raises the threshold)",
    choices=("linear", "exponential", "binary"),
)
TIE_GAIN = Param(
    "ties",
    str,
    "ranking",
    "documents of equal score: each at its rank in the ranking ('ranking': the ties "
    "convention breaks the tie, trec_eval), or sharing the mean discount of the ranks their "
    "group holds ('average': McSherry & Najork 2008, scikit-learn's dcg_score/ndcg_score), which "
    "is the expected DCG over every order of the tied documents ('expected', the same; the "
    "default under the convention ties='expected')",
    choices=("ranking", "average", "expected"),
    convention="ties",
)
IDEAL_CUTOFF = Param(
    "ideal_cutoff",
    str,
    "k",
    "where the ideal DCG is cut: at k ('k', trec_eval), or at min(k, the length of the query's "
    "ranked list) ('list': recommender tutorials' calc_ndcg(predicted, truth), where "
    "k = len(predicted)); with ideal='run' both are the same",
    choices=("k", "list"),
)
NEGATIVE = Param(
    "negative",
    str,
    "zero",
    "what a negative relevance gains: 'zero' (trec_eval: in the pool but unjudged, gain 0), or "
    "'gain', its own gain below 0, rel (linear) or 2^rel − 1 (exponential: −1 gains −0.5), "
    "whatever rel (CatBoost's NDCG/DCG Base and Exp, XGBoost's ndcg with ndcg_exp_gain=False, "
    "scikit-learn's dcg_score, torchmetrics' RetrievalNormalizedDCG); the ideal sorts by gain, "
    "so negative documents come last and enter it only when fewer than k others are judged "
    "(ideal_cutoff='list' keeps the positive gains of the ideal only); an IDCG at most 0 is a "
    "query with nothing relevant (empty)",
    choices=("zero", "gain"),
)
DCG_REL = Param(
    "rel",
    float,
    0,
    "relevance below this gains 0 (not bound to the rel convention: trec_eval's nDCG ignores -l)",
    bounds="a threshold is only compared with relevance values, never computed with: any finite number",
)
GAINS = Param(
    "gains",
    str,
    "",
    "gain table 'level=gain,...' overriding the gain of those levels (trec_eval ndcg.1=3,2=9); "
    "the ideal order sorts by these gains",
    pattern=r"((-?\d+(\.\d+)?=-?\d+(\.\d+)?)(,-?\d+(\.\d+)?=-?\d+(\.\d+)?)*)?",
    numbers="pairs",
    minimum=-LIMIT,
    maximum=LIMIT,
    bounds="gains may be negative (trec_eval's tables allow it) and are summed down a ranking: "
    "each within ±2**62 so that no sum overflows; the levels are only compared with relevance "
    "values (any finite number)",
)
DISCOUNT = Param(
    "discount",
    str,
    "log2",
    "rank discount: 'log2' = log2(i + 1); 'jarvelin' = max(1, log_b(i)) (Järvelin & Kekäläinen 2002); "
    "'reciprocal' = i, the gain divided by the rank (CatBoost's NDCG/DCG denominator=Position)",
    choices=("log2", "jarvelin", "reciprocal"),
)
BASE = Param(
    "base",
    float,
    2.0,
    "log base b of the 'jarvelin' discount (ranks below b are not discounted)",
    minimum=1.0,
    exclusive_min=True,
    maximum=LIMIT,
    bounds="log_b(i) = ln(i) / ln(b): b = 1 divides by ln 1 = 0, b < 1 makes "
    "log_b(i) negative so that max(1, ·) discounts no rank; no rank reaches 2**62, so a larger "
    "base would discount nothing more",
)
IDEAL = Param(
    "ideal",
    str,
    "qrels",
    "ideal ranking from all judgments of the query ('qrels') or from the retrieved list ('run'); "
    "'k': k documents each at full gain whatever the judgments hold (rectools' NDCG without "
    "divide_by_achievable; needs @k), full gain being the highest gain the query's judgments "
    "hold: 1 for binary judgments (rectools' k ones), the top grade's gain for graded ones, so "
    "that nDCG stays at most 1 (a gain of relevance 1 would put a list of grade-3 documents "
    "above 1), and 0 for a query with nothing relevant (nDCG 0); ideal_cutoff does not apply",
    choices=("qrels", "run", "k"),
    needs_cutoff=("k",),
)
PERSISTENCE = Param(
    "p", float, 0.8, "persistence: probability of looking at the next document",
    minimum=0.0, exclusive_min=True, maximum=1.0, exclusive_max=True,
    bounds="a probability strictly between 0 and 1 (Moffat & Zobel): p = 1 makes (1 − p)·Σ "
    "0 for every ranking, p > 1 makes 1 − p negative and weighs deep documents most "
    "(RBP(p=1.5) came out as −362), p = 0 is no user model (only rank 1 counts)",
)
RBP_GAIN = Param(
    "gain",
    str,
    "binary",
    "what a relevant document (relevance >= rel) weighs: 'binary', 1 (trec_eval, cwl_eval's "
    "RBP); 'graded', its relevance (ranx's rbp, trectools' graded RBP)",
    choices=("binary", "graded"),
)
MAX_REL = Param(
    "max_rel", float, 4.0, "highest relevance grade of the scale (stop probability 1 − 2^−max_rel)",
    minimum=0.0, exclusive_min=True, maximum=1023.0,
    bounds="R = (2^g − 1) / 2^max_rel with g = min(max(rel, 0), max_rel): max_rel <= 0 makes "
    "every R 0 or negative; 2^max_rel is a finite double only up to 1023",
)

_DCG_FORMULA = (
    "DCG@k = Σ_{i≤k} gain(rel_i) / discount(i); gain linear = max(rel, 0), exponential = 2^rel − 1; "
    "discount log2 = log2(i + 1), jarvelin = max(1, log_b i), reciprocal = i; ties='average' (the same as 'expected'): each "
    "document of a group of equal scores takes the mean of [j ≤ k] / discount(j) over the group's ranks j; negative='gain': a "
    "negative relevance gains rel (linear) or 2^rel − 1 (exponential), below 0"
)

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="nDCG",
        aliases=("ndcg_cut",),
        params=(GAIN, DISCOUNT, BASE, IDEAL, IDEAL_CUTOFF, TIE_GAIN, DCG_REL, GAINS, JUDGED_ONLY, EMPTY, NEGATIVE, LABELS),
        cutoff="optional",
        description="normalised discounted cumulative gain",
        formula="nDCG@k = DCG@k / IDCG@k (0 when IDCG@k = 0; ideal_cutoff='list': / IDCG@min(k, n), "
        "n the ranked list's length; ideal='k': IDCG@k = max gain · Σ_{i≤k} 1 / discount(i)); empty: the value "
        "of a query whose IDCG (under its ideal) is 0 and that ranked something, 0 (the default), 1 (LightGBM, "
        "XGBoost, CatBoost), 'skip' (NULL, out of the mean) or 'error'; " + _DCG_FORMULA,
        citation="Järvelin & Kekäläinen, Cumulated gain-based evaluation of IR techniques, TOIS 2002",
        empty_value=0.0,
        trec_eval="ndcg / ndcg_cut",
    ),
    MetricSpec(
        name="DCG",
        aliases=(),
        params=(GAIN, DISCOUNT, BASE, TIE_GAIN, DCG_REL, GAINS, JUDGED_ONLY, NEGATIVE, LABELS),
        cutoff="optional",
        description="discounted cumulative gain",
        formula=_DCG_FORMULA,
        citation="Järvelin & Kekäläinen, TOIS 2002; Burges et al., ICML 2005 (exponential gain)",
        empty_value=0.0,
    ),
    MetricSpec(
        name="IDCG",
        aliases=(),
        params=(GAIN, DISCOUNT, BASE, IDEAL, IDEAL_CUTOFF, DCG_REL, GAINS, JUDGED_ONLY),
        cutoff="optional",
        description="ideal DCG: DCG of the best possible ordering",
        formula="IDCG@k = DCG@k of the judged documents sorted by relevance, best first (or of the retrieved list "
        "with ideal='run'; ideal='k': k documents each at the highest gain the query's judgments hold)",
        citation="Järvelin & Kekäläinen, TOIS 2002",
        empty_value=0.0,
    ),
    MetricSpec(
        name="CG",
        aliases=(),
        params=(GAIN, DCG_REL, GAINS, JUDGED_ONLY, EXPECTED_TIES),
        cutoff="optional",
        description="cumulative gain (order-blind)",
        formula="CG@k = Σ_{i≤k} gain(rel_i)",
        citation="Järvelin & Kekäläinen, TOIS 2002",
        empty_value=0.0,
    ),
    MetricSpec(
        name="G",
        aliases=(),
        params=(GAINS, JUDGED_ONLY),
        cutoff="none",
        description="normalised gain: each document's gain discounted by how far the ranking above it falls short of the ideal",
        formula="G = Σ_i g_i / log2(2 + C_i − S_i) / Σ_{judged, g>0} g; S_i = Σ_{j≤i} g_j, "
        "C_i = Σ_{j≤i} max(g*_j, 1) with g* the ideal gains (0 beyond the judged relevant); g = relevance level or its gains-table value",
        citation="trec_eval G (Buckley, 2008)",
        empty_value=0.0,
        trec_eval="G",
    ),
    MetricSpec(
        name="nDCGRel",
        aliases=("ndcg_rel",),
        params=(GAINS, JUDGED_ONLY),
        cutoff="none",
        description="nDCG averaged at each relevant (positive-gain) document; a relevant document not retrieved counts nDCG at the end of the ranking",
        formula="nDCGRel = (1/npos) [Σ_{retrieved i, g_i>0} DCG_i / IDCG_{min(i, npos)} + (npos − npos_ret) · DCG_n / IDCG_npos]; "
        "log2(i + 1) discount, npos = judged documents with gain > 0, n = documents retrieved",
        citation="trec_eval ndcg_rel (Buckley); Järvelin & Kekäläinen, TOIS 2002",
        empty_value=0.0,
        trec_eval="ndcg_rel",
    ),
    MetricSpec(
        name="RnDCG",
        aliases=(),
        params=(GAINS, REL, JUDGED_ONLY),
        cutoff="none",
        description="nDCG averaged at the R-levels: the ideal ranks where the ideal gain changes",
        formula="RnDCG = mean of DCG_{min(b, n)} / IDCG_b over the ideal ranks b that end a run of equal positive gains, "
        "plus DCG_n / IDCG_npos when n ≥ npos + 2 (trec_eval's implied final level); 0 when no judged document has relevance ≥ rel",
        citation="trec_eval Rndcg (Buckley); Järvelin & Kekäläinen, TOIS 2002",
        empty_value=0.0,
        trec_eval="Rndcg",
    ),
    MetricSpec(
        name="ERR",
        aliases=(),
        params=(MAX_REL,),
        cutoff="optional",
        description="expected reciprocal rank (cascade model, graded)",
        formula="ERR@k = Σ_{i≤k} (1/i) · R_i · Π_{j<i} (1 − R_j), R_i = (2^g_i − 1) / 2^max_rel, g_i = min(max(rel_i, 0), max_rel)",
        citation="Chapelle, Metzler, Zhang & Grinspan, Expected reciprocal rank for graded relevance, CIKM 2009",
        empty_value=0.0,
    ),
    MetricSpec(
        name="RBP",
        aliases=(),
        params=(PERSISTENCE, RBP_GAIN, REL, JUDGED_ONLY, EMPTY),
        cutoff="optional",
        description="rank-biased precision (to depth k with a cutoff)",
        formula="RBP@k = (1 − p) Σ_{i≤k} w_i · p^(i − 1), w_i = [rel_i ≥ rel] (gain='binary') or "
        "rel_i · [rel_i ≥ rel] (gain='graded'); " + EMPTY_BINARY,
        citation="Moffat & Zobel, Rank-biased precision for measurement of retrieval effectiveness, TOIS 2008",
        empty_value=0.0,
        trec_eval="rbp (defective in trec_eval 10: see docs/conventions.md)",
    ),
    MetricSpec(
        name="RBPResid",
        aliases=("rbp_resid",),
        params=(PERSISTENCE, JUDGED_ONLY),
        cutoff="none",
        description="RBP residual: the most RBP could rise if every unjudged and unseen document were relevant",
        formula="RBPResid = (1 − p) Σ_{unjudged i ≤ d} p^(i − 1) + p^d, d = documents retrieved",
        citation="Moffat & Zobel, TOIS 2008",
        empty_value=0.0,
        trec_eval="rbp_resid (trec_eval prints 0 when no retrieved document is unjudged)",
        better="neither",
    ),
)


# -- recipes -------------------------------------------------------------------------------------
def parse_gain_table(text: str) -> tuple[tuple[float, float], ...]:
    """``"1=3,2=9,4=4.5"`` → ((1.0, 3.0), (2.0, 9.0), (4.0, 4.5)); ``""`` → ()."""
    if not text.strip():
        return ()
    pairs = []
    for item in text.split(","):
        level, _, gain = item.partition("=")
        pairs.append((float(level), float(gain)))
    return tuple(pairs)


def gain_of(p: Params) -> Gain:
    """The :class:`Gain` of resolved DCG-family parameters."""
    from rankwise.primitives import Gain

    return Gain(str(p["gain"]), float(p["rel"]), parse_gain_table(str(p["gains"])), p.get("negative", "zero") == "gain")


def _table_gain(p: Params) -> Gain:
    """trec_eval's gain for G, ndcg_rel, Rndcg: the relevance level, or the table's value."""
    from rankwise.primitives import Gain

    return Gain("linear", 0.0, parse_gain_table(str(p["gains"])))


def _dcg_args(m: Measured, p: Params) -> tuple[int | None, Gain, str, float]:
    return (m.cutoff, gain_of(p), str(p["discount"]), float(p["base"]))


_DISCOUNT_WEIGHT = {"log2": "log2", "jarvelin": "jarvelin", "reciprocal": "rank"}
"""Each discount's weight 1 / discount(i) as :func:`ideal_ideal` names it."""


def _ideal(m: Measured, p: Params) -> Node:
    from rankwise.metrics.families.shared import ideal_ideal
    from rankwise.primitives import Const, Idcg, IdcgList, IdealDcgRun, Mul

    if p["ideal"] == "run":
        return IdealDcgRun(*_dcg_args(m, p))
    if p["ideal"] == "k" and m.cutoff is not None:  # the metric is refused without @k
        # full gain: IDCG@1 = the highest gain / discount(1), and discount(1) = 1 for every
        # discount (log2 2, max(1, log_b 1), 1); times Σ_{i≤k} 1 / discount(i)
        _, gain, discount, base = _dcg_args(m, p)
        weights = ideal_ideal(0.0, m.cutoff, _DISCOUNT_WEIGHT[discount], base)
        return Mul(Idcg(1, gain, discount, base), Const(weights))
    if p["ideal_cutoff"] == "list":
        return IdcgList(*_dcg_args(m, p))
    return Idcg(*_dcg_args(m, p))


def _dcg(m: Measured, p: Params) -> Node:
    from rankwise.primitives import DcgGain, TieDcg

    if p["ties"] == "average":
        return TieDcg(*_dcg_args(m, p))
    return DcgGain(*_dcg_args(m, p))


def _ndcg_rel(m: Measured, p: Params) -> Node:
    from rankwise.primitives import DcgGain, Div0, IdcgPos, Mul, NdcgRelSum, Npos, NposRet, Sub

    g = _table_gain(p)
    npos = Npos(g)
    missed = Sub(npos, NposRet(g))
    end = Div0(DcgGain(None, g, "log2", 2.0), IdcgPos(g))
    return Div0(add(NdcgRelSum(g), Mul(missed, end)), npos)


def _rndcg(m: Measured, p: Params) -> Node:
    from rankwise.primitives import (
        Const,
        Count,
        DcgGain,
        Div0,
        IdcgPos,
        Mul,
        Npos,
        Positive,
        RndcgBounds,
        RndcgSum,
        Sub,
    )

    g = _table_gain(p)
    dcg_n = DcgGain(None, g, "log2", 2.0)
    # trec_eval adds nDCG at the end of the ranking only when two or more documents follow the
    # last ideal boundary (its loop has already consumed one)
    tail = Positive(Sub(Count(), add(Npos(g), Const(1.0))))
    # Σ_b DCG_min(b, n) / IDCG_b over the ideal boundaries, summed over the ranked documents
    # (each DCG step weighed by the boundaries at or below its rank): the judged rows suffice
    total = add(RndcgSum(g), Mul(tail, Div0(dcg_n, IdcgPos(g))))
    value = Div0(total, add(RndcgBounds(g), tail))
    return Mul(Positive(nrel(p)), value)


def _rbp_resid(m: Measured, p: Params) -> Node:
    from rankwise.primitives import Const, Mul, RbpSum, Sub

    # (1 − p) Σ_{unjudged i ≤ n} p^(i − 1) + p^n, the unjudged sum being Σ_{i ≤ n} p^(i − 1) =
    # (1 − p^n) / (1 − p) less the judged documents' (relevance ≥ 0): 1 − (1 − p) Σ_{judged}
    # p^(i − 1), which the judged rows give (p < 1: PERSISTENCE)
    persistence = float(p["p"])
    return Sub(Const(1.0), Mul(Const(1.0 - persistence), RbpSum(0.0, persistence, None, False)))


def recipes() -> Mapping[str, Recipe]:
    """The family's formulas over the primitives."""
    from rankwise.primitives import (
        CgGain,
        Const,
        Div0,
        ErrSum,
        GSum,
        Mul,
        PosGain,
        RbpSum,
    )

    return {
        "nDCG": lambda m, p: when_empty(
            m, p, _ideal(m, p), Div0(_dcg(m, p), _ideal(m, p)), zero=p.get("negative", "zero") == "zero"
        ),
        "DCG": _dcg,
        "IDCG": _ideal,
        "CG": lambda m, p: CgGain(m.cutoff, gain_of(p)),
        "G": lambda m, p: Div0(GSum(_table_gain(p)), PosGain(_table_gain(p))),
        "nDCGRel": _ndcg_rel,
        "RnDCG": _rndcg,
        "ERR": lambda m, p: ErrSum(m.cutoff, float(p["max_rel"])),
        "RBP": lambda m, p: when_empty(m, p, nrel(p), Mul(
            Const(1.0 - float(p["p"])), RbpSum(threshold(p), float(p["p"]), m.cutoff, p["gain"] == "graded")
        )),
        "RBPResid": _rbp_resid,
    }


FAMILY = MetricFamily(
    name="gain-based",
    specs=SPECS,
    recipes=recipes,
    trec_eval={
        "ndcg": TrecName("nDCG", place=20, gain_table=True),
        "ndcg_cut": TrecName("nDCG", "cutoff", defaults=TREC_CUTS, place=23),
        "G": TrecName("G", place=19, gain_table=True),
        "ndcg_rel": TrecName("nDCGRel", place=21, gain_table=True),
        "Rndcg": TrecName("RnDCG", place=22, gain_table=True),
        "rbp": TrecName("RBP", "param", "p", (0.9,), printed=False, place=33, pair=True),
        "rbp_resid": TrecName("RBPResid", "param", "p", (0.9,), printed=False, place=34, pair=True),
    },
    ranx={
        "nDCG": "ndcg@k, ndcg_burges@k", "DCG": "dcg@k, dcg_burges@k",
        "RBP": "rbp.95 (p = 0.95, gain='graded'; rbp.8: p = 0.8)",
    },
    ranx_special={"ndcg_burges": ("nDCG", {"gain": "exponential"}), "dcg_burges": ("DCG", {"gain": "exponential"})},
    ir_measures={"nDCG": "nDCG", "RBP": "RBP", "ERR": "ERR"},
)
