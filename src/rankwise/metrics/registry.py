"""The metric registry: one declarative :class:`~rankwise.metrics.spec.MetricSpec` per metric.

This table is the single list of metrics. The parser, the engines' completeness tests, the
README metric table and the "unknown metric" errors are all derived from it.
"""

from __future__ import annotations

from collections.abc import Iterator

from rankwise.conventions import LIMIT, checked
from rankwise.errors import UnknownMetricError, closest
from rankwise.metrics.spec import CutoffRule, MetricSpec, Param, shorten

ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
"""The recall levels of trec_eval's 11-point interpolated precision (IPrec11's default)."""

# -- parameters shared by several metrics -------------------------------------------------------
GAIN = Param(
    "gain",
    str,
    "linear",
    "gain of a document: 'linear' = max(rel, 0); 'exponential' = 2^rel - 1 (Burges et al. 2005), 0 for rel <= 0",
    choices=("linear", "exponential"),
)
TIE_GAIN = Param(
    "ties",
    str,
    "ranking",
    "documents of equal score: each at its rank in the ranking ('ranking': the ties "
    "convention breaks the tie, trec_eval), or sharing the mean discount of the ranks their "
    "group holds ('average': McSherry & Najork 2008, scikit-learn's dcg_score/ndcg_score)",
    choices=("ranking", "average"),
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
    maximum=LIMIT,
    bounds="log_b(i) = ln(i) / ln(b): b = 1 divides by ln 1 = 0, b < 1 makes "
    "log_b(i) negative so that max(1, ·) discounts no rank; no rank reaches 2**62, so a larger "
    "base would discount nothing more",
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
    bounds="a threshold is only compared with relevance values, never computed with: any finite number",
)
TREC_EVAL = Param(
    "trec_eval",
    str,
    "10",
    "the trec_eval whose rounding to reproduce: '10', the recall cutoff lround(x · R); '9' "
    "(trec_eval 9.0.8, pytrec_eval), floor(x · R + 0.9)",
    choices=("10", "9"),
    convention="trec_eval",
)
JUDGED_ONLY = Param(
    "judged_only",
    bool,
    False,
    "drop unjudged documents from the ranking before measuring (trec_eval -J)",
    convention="judged_only",
)
AP_DENOMINATOR = Param(
    "denominator",
    str,
    "R",
    "what AP@k divides by: 'R', the relevant documents in the qrels (trec_eval map_cut, "
    "ir-measures, ranx); 'min_R_k', min(R, k) (Spark MLlib's meanAveragePrecisionAt, "
    "recommender libraries' MAP@k; without a cutoff: R); or 'relret', the relevant documents "
    "retrieved in the top k (cwl_eval, torchmetrics, scikit-learn's average_precision_score "
    "over the retrieved list)",
    choices=("R", "min_R_k", "relret"),
)
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
    maximum=1.0,
    bounds="log(max(AP, eps)) and log(AP + eps) need eps > 0: a query with AP = 0 would take "
    "log 0 (-inf in Polars, NULL in Spark, which the mean would skip); AP lies in [0, 1], so a "
    "floor above 1 would replace every AP by eps (a shift of 1, the mean of log(1 + AP), is "
    "the largest allowed)",
)

MULT = Param(
    "mult", float, 1.0, "depth as a multiple of R: floor(mult · R + 0.9) (trec_eval Rprec_mult)",
    minimum=0.0, exclusive_min=True, maximum=LIMIT,
    bounds="the depth floor(mult·R + 0.9) is 0 for every query when mult <= 0 (and negative "
    "below); no natural ceiling, capped at 2**62 so that mult·R stays finite",
)
RECALL_LEVEL = Param(
    "recall", float, 0.0, "recall level in [0, 1]", minimum=0.0, maximum=1.0,
    bounds="a recall level is a fraction of the relevant documents",
)
BETA = Param(
    "beta", float, 1.0,
    "weight w of recall in (w + 1)·P·R / (w·P + R) (trec_eval set_F's parameter; w = 1 is F1)",
    minimum=0.0, maximum=LIMIT,
    bounds="a negative weight can zero or flip the sign of the denominator w·P + R (F outside "
    "[0, 1]); w = 0 is set precision; no natural ceiling, capped at 2**62",
)
LEVELS = Param(
    "levels", str, "",
    "recall levels to average, e.g. '0.25,0.5,0.75' (trec_eval 11pt_avg..25,.5,.75); empty: 0, 0.1, ..., 1",
    pattern=r"(\d*\.?\d+(,\d*\.?\d+)*)?",
    numbers="numbers", minimum=0.0, maximum=1.0,
    bounds="each level is a recall level, a fraction of the relevant documents",
)
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

PERSISTENCE = Param(
    "p", float, 0.8, "persistence: probability of looking at the next document",
    minimum=0.0, exclusive_min=True, maximum=1.0, exclusive_max=True,
    bounds="a probability strictly between 0 and 1 (Moffat & Zobel): p = 1 makes (1 − p)·Σ "
    "0 for every ranking, p > 1 makes 1 − p negative and weighs deep documents most "
    "(RBP(p=1.5) came out as −362), p = 0 is no user model (only rank 1 counts)",
)
COMPAT_PERSISTENCE = Param(
    "p", float, 0.95, "persistence: rank-biased overlap weighs the agreement at depth d by p^(d − 1)",
    minimum=0.0, exclusive_min=True, maximum=1.0,
    bounds="RBO's weights p^(d − 1) must not grow with depth (p ≤ 1; p = 1 weighs every depth "
    "alike, the sums being finite); p = 0 would leave depth 1 alone (and 0^0 to the engines)",
)
COMPAT_NORMALIZE = Param(
    "normalize",
    bool,
    True,
    "divide by the value the ideal ranking itself scores (ir-measures: \"normalization for "
    "finite ideal rankings\"); False: the rank-biased overlap itself",
)
RBP_GAIN = Param(
    "gain",
    str,
    "binary",
    "what a relevant document (relevance >= rel) weighs: 'binary', 1 (trec_eval, cwl_eval's "
    "RBP); 'graded', its relevance (ranx's rbp, trectools' graded RBP)",
    choices=("binary", "graded"),
)
NUMRET_REL = Param(
    "rel",
    float,
    float("-inf"),
    "count only the documents of relevance >= rel (ir-measures' NumRet(rel=N)); by default "
    "(-inf) every retrieved document, judged or not",
    bounds="a threshold is only compared with relevance values, never computed with: any finite number",
)
MAX_REL = Param(
    "max_rel", float, 4.0, "highest relevance grade of the scale (stop probability 1 − 2^−max_rel)",
    minimum=0.0, exclusive_min=True, maximum=1023.0,
    bounds="R = (2^g − 1) / 2^max_rel with g = min(max(rel, 0), max_rel): max_rel <= 0 makes "
    "every R 0 or negative; 2^max_rel is a finite double only up to 1023",
)

_DCG_FORMULA = (
    "DCG@k = Σ_{i≤k} gain(rel_i) / discount(i); gain linear = max(rel, 0), exponential = 2^rel − 1; "
    "discount log2 = log2(i + 1), jarvelin = max(1, log_b i); ties='average': each document of a "
    "group of equal scores takes the mean of [j ≤ k] / discount(j) over the group's ranks j"
)

# -- C/W/L user models (cwl_eval) -------------------------------------------------------------
CWL_VALUES = ("EU", "ETU", "EC", "ETC", "ED")
CWL_VALUE = Param(
    "value",
    str,
    "EU",
    "which of cwl_eval's numbers: 'EU' expected utility per document (the measure), 'ETU' "
    "expected total utility, 'EC' expected cost per document, 'ETC' expected total cost, "
    "'ED' expected depth (documents read); a document costs what the run's cost column says "
    "(cost=, --cost-col: cwl_eval's cost file), 1 without one",
    choices=CWL_VALUES,
)
CWL_RESIDUALS = ("ResEU", "ResETU", "ResEC", "ResETC", "ResED")
CWL_VALUE_RES = Param(
    "value",
    str,
    "EU",
    CWL_VALUE.doc + "; their residuals 'ResEU', 'ResETU', 'ResEC', 'ResETC', 'ResED' (cwl_eval -r: "
    "how much each changes were every unjudged and padded document fully relevant, gain 1: "
    "cwl_eval's best case minus the value; negative where an adaptive user, INST, BPM, NERR, IFT, "
    "then stops sooner)",
    choices=CWL_VALUES + CWL_RESIDUALS,
)
_RELEVANCE_LEVEL = (
    "a relevance level: relevance (negative relevance read as 0) is clipped to [min_rel, max_rel] "
    "and scaled to a gain in [0, 1] by (rel − min_rel) / (max_rel − min_rel), which needs "
    "max_rel > min_rel: min_rel is at most 0 and max_rel above 0, each within ±2**62 like every "
    "number without a natural ceiling"
)
CWL_MIN_REL = Param(
    "min_rel", float, 0.0, "relevance that gains 0 (lower levels are raised to it; negative relevance counts as 0)",
    minimum=-LIMIT, maximum=0.0, bounds=_RELEVANCE_LEVEL,
)
CWL_MAX_REL = Param(
    "max_rel", float, 1.0, "relevance that gains 1 (higher levels are lowered to it; ir-measures requires it, cwl_eval's --max_gain is 1)",
    minimum=2.2250738585072014e-308, maximum=LIMIT,
    bounds=_RELEVANCE_LEVEL + "; at least the smallest normal double, 2.2250738585072014e-308, "
    "since an engine may divide by multiplying with 1 / (max_rel − min_rel), infinite for a subnormal",
)
CWL_DEPTH_MAX = 1_000_000
CWL_DEPTH = Param(
    "depth", int, 1000, "cwl_eval's --max_depth: the ranking is cut there, and padded to it with documents of gain 0",
    minimum=1, maximum=CWL_DEPTH_MAX,
    bounds="a number of ranks (at least one); the normalising sum over the ranks is taken "
    "when the metric is built, so at most a million",
)
_TARGET_BOUNDS = (
    "a total gain the user wants (gains lie in [0, 1]): T = 0 would make the continuation "
    "0/0 at rank 1 (INSQ, NERR11) or stop before rank 1 (BPM); no natural ceiling: at most 2**62"
)
CWL_T = Param(
    "T", float, 1.0, "the total gain the user wants (the target)",
    minimum=0.0, exclusive_min=True, maximum=LIMIT, bounds=_TARGET_BOUNDS,
)
INST_T = Param(
    "T", float, 1.0, "the total gain the user wants (the target)",
    minimum=0.25, maximum=LIMIT,
    bounds="INST goes on with C_i = ((x − 1) / x)², x = i + 2T − G_i ≥ 2T (gains lie in [0, 1]): "
    "a probability for every ranking only when x ≥ 1/2, i.e. T ≥ 1/4 (below it C exceeds 1 "
    "where every document is fully relevant); no natural ceiling: at most 2**62",
)
CWL_PERSISTENCE = Param(
    "p", float, 0.9, "persistence: probability of going on when the document gives nothing",
    minimum=0.0, maximum=1.0,
    bounds="a probability: C_i = p · (1 − g_i) must lie in [0, 1]",
)
_CWL_COMMON_RES = (CWL_MIN_REL, CWL_MAX_REL, CWL_DEPTH, CWL_VALUE_RES)
_CWL_FORMULA = (
    "C/W/L: C_i the chance to go on from rank i, P_i = Π_{j<i} C_j, W_i = P_i / Σ_{i≤depth} P_i; "
    "EU = Σ W_i g_i, ETU = Σ_i L_i Σ_{j≤i} g_j with L_i = P_i (1 − C_i), ED = Σ P_i, "
    "EC = Σ W_i c_i, ETC = Σ_i L_i Σ_{j≤i} c_j, c_i the document's cost (the run's cost column, "
    "cost=; 1 without one and on padded ranks; EC = 1, ETC = Σ_i L_i · i when every cost is 1); "
    "g = (clip(max(rel, 0), min_rel, max_rel) − min_rel) / "
    "(max_rel − min_rel), 0 unjudged; the ranking cut at depth and padded to it with gain 0; "
)
_IFT_CITATION = (
    "Azzopardi, Thomas & Craswell, Measuring the utility of search engine result pages: an "
    "information foraging based measure, SIGIR 2018; cwl_eval (its README's T = 2, b1 = 0.9, "
    "R1 = 10, A = 0.2, b2 = 0.9, R2 = 10: its classes have no defaults)"
)
_IFT_C1 = "C1_i = 1 − 1 / (1 + b1 · e^((T − G_i) · R1)), G_i = Σ_{j≤i} g_j"
_IFT_C2 = (
    "C2_i = 1 / (1 + b2 · e^((A − G_i / K_i) · R2)) (the rate of gain per cost, K_i = Σ_{j≤i} c_j: "
    "per document read, K_i = i, when every cost is 1; K_i = 0 with G_i > 0: C2_i = 1; with G_i = 0 "
    "or R2 = 0: an error, cwl_eval's NaN)"
)
_IFT_RATIONALITY = (
    "a rationality: 0 ignores the {what} (C{n} = {flat}), larger follows it more sharply; negative "
    "would reverse it; no natural ceiling: at most 2**62"
)
IFT_T = Param(
    "T", float, 2.0, "the goal: the total gain the user wants",
    minimum=0.0, maximum=LIMIT,
    bounds="a total gain (gains lie in [0, 1], so the gain seen is never negative); no natural "
    "ceiling: at most 2**62",
)
IFT_B1 = Param(
    "b1", float, 0.9, "the goal's intercept: C1 = b1 / (1 + b1) where the gain seen is T",
    minimum=0.0, exclusive_min=True, maximum=LIMIT,
    bounds="a positive factor: b1 = 0 makes C1 = 0 (the user never goes on; ln C1 is the engines' "
    "running sum), negative makes C1 no probability; no natural ceiling: at most 2**62",
)
IFT_R1 = Param(
    "R1", float, 10.0, "the goal's rationality: how sharply the user stops once near T",
    minimum=0.0, maximum=LIMIT, bounds=_IFT_RATIONALITY.format(what="goal", n=1, flat="b1 / (1 + b1)"),
)
IFT_A = Param(
    "A", float, 0.2, "the rate of gain per document the user expects",
    minimum=0.0, maximum=1.0,
    bounds="a rate of gain per document read, and gains lie in [0, 1]",
)
IFT_B2 = Param(
    "b2", float, 0.9, "the rate's intercept: C2 = 1 / (1 + b2) where the rate is A",
    minimum=0.0, exclusive_min=True, maximum=LIMIT,
    bounds="a positive factor: b2 = 0 makes C2 = 1 whatever the rate (ln b2 is the engines'), "
    "negative makes C2 no probability; no natural ceiling: at most 2**62",
)
IFT_R2 = Param(
    "R2", float, 10.0, "the rate's rationality: how sharply the user stops once the rate falls below A",
    minimum=0.0, maximum=LIMIT, bounds=_IFT_RATIONALITY.format(what="rate", n=2, flat="1 / (1 + b2)"),
)
_NERR_CITATION = (
    "Azzopardi, Mackenzie & Moffat, ERR is not C/W/L: exploring the relationship between "
    "expected reciprocal rank and other metrics, ICTIR 2021; cwl_eval"
)

# -- diversity / intent-aware measures of TREC's ndeval -----------------------------------------
ALPHA = Param(
    "alpha",
    float,
    0.5,
    "redundancy intolerance: a document's gain for a subtopic already covered c times is (1 - alpha)^c (ndeval -alpha)",
    minimum=0.0,
    maximum=1.0,
    bounds="(1 - alpha)^c is a probability of novelty: alpha > 1 makes it negative or alternating, "
    "alpha < 0 makes a covered subtopic worth more than a new one; ndeval refuses both",
)
NRBP_BETA = Param(
    "beta",
    float,
    0.5,
    "patience: the user goes on from each rank to the next with probability beta (ndeval -beta)",
    minimum=0.0,
    maximum=1.0,
    bounds="beta^(rank - 1) is the probability of reaching a rank: outside [0, 1] it is no "
    "probability (negative, or growing with the rank); ndeval refuses both",
)
_NDEVAL = (
    "ndeval (TREC Web 2009-2014); subtopic qrels (query_id, subtopic, doc_id, relevance), a "
    "judgment relevant when relevance >= rel; subtopics never judged relevant are ignored"
)


def _diversity(
    name: str, aliases: tuple[str, ...], params: tuple[Param, ...], cutoff: CutoffRule,
    description: str, formula: str, citation: str,
) -> MetricSpec:
    return MetricSpec(
        name=name, aliases=aliases, params=params, cutoff=cutoff, description=description,
        formula=formula, citation=f"{citation}; exact to {_NDEVAL}", empty_value=0.0,
    )


DIVERSITY_SPECS: tuple[MetricSpec, ...] = (
    _diversity(
        "alpha_DCG", ("alpha-DCG", "α_DCG", "α-DCG"), (REL, ALPHA, JUDGED_ONLY), "required",
        "α-DCG@k divided by ndeval's 'ideal ideal' (every subtopic covered at every rank)",
        "α-DCG@k = Σ_{i≤k} Σ_s rel_{i,s} (1−α)^{c_s(i)} / log2(i+1) / (S · Σ_{i≤k} (1−α)^{i−1} / log2(i+1)), "
        "c_s(i) the documents above i covering subtopic s, S the subtopics judged relevant "
        "(k = 1: not divided, as ndeval)",
        "Clarke et al., SIGIR 2008",
    ),
    _diversity(
        "alpha_nDCG", ("alpha-nDCG", "α_nDCG", "α-nDCG"), (REL, ALPHA, JUDGED_ONLY), "required",
        "α-nDCG@k: α-DCG@k over that of ndeval's greedy ideal ranking",
        "α-nDCG@k = α-DCG@k / α-DCG@k of the greedy ideal (each rank: the document of largest "
        "Σ_s (1−α)^{c_s}, ties to the larger doc id); 0 when α-DCG@k = 0",
        "Clarke et al., SIGIR 2008",
    ),
    _diversity(
        "ERR_IA", ("ERR-IA",), (REL, ALPHA, JUDGED_ONLY), "required",
        "intent-aware ERR@k (ndeval's: novelty (1−α)^c, divided by the 'ideal ideal')",
        "ERR-IA@k = Σ_{i≤k} Σ_s rel_{i,s} (1−α)^{c_s(i)} / i / (S · Σ_{i≤k} (1−α)^{i−1} / i) (k = 1: not divided)",
        "Chapelle et al., CIKM 2009",
    ),
    _diversity(
        "nERR_IA", ("nERR-IA",), (REL, ALPHA, JUDGED_ONLY), "required",
        "intent-aware ERR@k over that of ndeval's greedy ideal ranking",
        "nERR-IA@k = ERR-IA@k / ERR-IA@k of the greedy ideal; 0 when ERR-IA@k = 0",
        "Chapelle et al., CIKM 2009",
    ),
    _diversity(
        "NRBP", (), (REL, ALPHA, NRBP_BETA), "none",
        "novelty- and rank-biased precision over the whole ranking",
        "NRBP = (1 − (1−α)β) / S · Σ_i β^{i−1} Σ_s rel_{i,s} (1−α)^{c_s(i)}",
        "Clarke, Kolla & Vechtomova, ICTIR 2009",
    ),
    _diversity(
        "nNRBP", (), (REL, ALPHA, NRBP_BETA), "none",
        "NRBP over that of ndeval's greedy ideal ranking",
        "nNRBP = NRBP / NRBP of the greedy ideal (0 when no subtopic is judged relevant; ndeval: NaN)",
        "Clarke, Kolla & Vechtomova, ICTIR 2009",
    ),
    _diversity(
        "AP_IA", ("MAP-IA", "MAP_IA"), (REL, JUDGED_ONLY), "none",
        "intent-aware average precision: the mean over subtopics of each subtopic's AP",
        "AP-IA = (1/S) Σ_s (1/R_s) Σ_{i: rel_{i,s}} |{j ≤ i: rel_{j,s}}| / i, R_s the relevant documents of s",
        "Agrawal et al., WSDM 2009",
    ),
    _diversity(
        "P_IA", ("P-IA",), (REL, JUDGED_ONLY), "required",
        "intent-aware precision@k: the mean over subtopics of P@k",
        "P-IA@k = Σ_{i≤k} Σ_s rel_{i,s} / (k · S)",
        "Agrawal et al., WSDM 2009",
    ),
    _diversity(
        "StRecall", ("strec", "st_recall"), (REL,), "required",
        "subtopic recall@k: the share of the subtopics covered by the top k",
        "StRecall@k = |{s: ∃ i ≤ k, rel_{i,s}}| / S",
        "Zhai, Cohen & Lafferty, SIGIR 2003",
    ),
)

SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        name="nDCG",
        aliases=("ndcg_cut",),
        params=(GAIN, DISCOUNT, BASE, IDEAL, IDEAL_CUTOFF, TIE_GAIN, DCG_REL, GAINS, JUDGED_ONLY),
        cutoff="optional",
        description="normalised discounted cumulative gain",
        formula="nDCG@k = DCG@k / IDCG@k (0 when IDCG@k = 0; ideal_cutoff='list': / IDCG@min(k, n), "
        "n the ranked list's length); " + _DCG_FORMULA,
        citation="Järvelin & Kekäläinen, Cumulated gain-based evaluation of IR techniques, TOIS 2002",
        empty_value=0.0,
        trec_eval="ndcg / ndcg_cut",
    ),
    MetricSpec(
        name="DCG",
        aliases=(),
        params=(GAIN, DISCOUNT, BASE, TIE_GAIN, DCG_REL, GAINS, JUDGED_ONLY),
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
        formula="IDCG@k = DCG@k of the judged documents sorted by relevance, best first (or of the retrieved list with ideal='run')",
        citation="Järvelin & Kekäläinen, TOIS 2002",
        empty_value=0.0,
    ),
    MetricSpec(
        name="CG",
        aliases=(),
        params=(GAIN, DCG_REL, GAINS, JUDGED_ONLY),
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
        aliases=("recall", "set_recall", "SetR"),
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
        params=(REL, JUDGED_ONLY, AP_DENOMINATOR),
        cutoff="optional",
        description="average precision (its mean over queries is MAP)",
        formula="AP@k = (1/R) Σ_{i≤k, rel_i ≥ rel} P@i, R = |relevant in qrels| (trec_eval map_cut); "
        "denominator='min_R_k': 1/min(R, k) (Spark MLlib meanAveragePrecisionAt); "
        "denominator='relret': 1/|relevant in top k| (0 when none; cwl_eval, torchmetrics)",
        citation="Harman, TREC-2 overview, 1993; trec_eval map; Spark MLlib RankingMetrics",
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
        name="Hits",
        aliases=(),
        params=(REL, JUDGED_ONLY),
        cutoff="optional",
        description="number of relevant documents in the top k, averaged over queries (ranx hits)",
        formula="Hits@k = |relevant in top k| (without a cutoff: in the whole ranking)",
        citation="ranx hits",
        empty_value=0.0,
    ),
    MetricSpec(
        name="Accuracy",
        aliases=(),
        params=(REL, JUDGED_ONLY),
        cutoff="optional",
        description="share of the (relevant, non-relevant) pairs of the top k ranked right: the chance that a "
        "relevant document ranks above a non-relevant one (a diagnostic)",
        formula="Accuracy@k = 1 − Σ_{relevant r in top k} n_r / (N · Rret), n_r = non-relevant (or unjudged) above r, "
        "N and Rret = non-relevant and relevant documents in the top k; NULL (undefined, left out of means and "
        "comparisons) when N · Rret = 0",
        citation="ir-measures Accuracy (MacAvaney et al.; it counts unjudged documents as relevant when rel <= 0, rankwise never does)",
        empty_value=None,
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
        name="RprecMult",
        aliases=("Rprec_mult",),
        params=(MULT, REL, JUDGED_ONLY),
        cutoff="none",
        description="precision at a multiple of R",
        formula="RprecMult = |relevant in top d| / d, d = floor(mult · R + 0.9) (0 when d = 0)",
        citation="trec_eval Rprec_mult",
        empty_value=0.0,
        trec_eval="Rprec_mult",
    ),
    MetricSpec(
        name="Bpref",
        aliases=(),
        params=(REL, JUDGED_ONLY),
        cutoff="none",
        description="binary preference: how many judged non-relevant documents rank above each relevant one",
        formula="Bpref = (1/R) Σ_{relevant retrieved r} (1 − min(n_r, R) / min(N, R)), n_r = judged non-relevant above r, N = judged non-relevant",
        citation="Buckley & Voorhees, Retrieval evaluation with incomplete information, SIGIR 2004; trec_eval bpref",
        empty_value=0.0,
        trec_eval="bpref",
    ),
    MetricSpec(
        name="GMBpref",
        aliases=("gm_bpref",),
        params=(REL, JUDGED_ONLY, GMAP_FORM, GMAP_EPS),
        cutoff="none",
        description="geometric mean of bpref; per query the value is bpref",
        formula="GMBpref = exp(mean(log(max(Bpref, eps)))) (or the shifted form)",
        citation="trec_eval gm_bpref",
        empty_value=0.0,
        aggregate="gmean",
        trec_eval="gm_bpref",
    ),
    MetricSpec(
        name="IPrec",
        aliases=("iprec_at_recall",),
        params=(RECALL_LEVEL, REL, JUDGED_ONLY, TREC_EVAL),
        cutoff="none",
        description="interpolated precision at a recall level",
        formula="IPrec(recall=x) = max{P@i : relret@i ≥ lround(x · R)} (0 when none; trec_eval 10 rounding; "
        "trec_eval='9': floor(x · R + 0.9))",
        citation="trec_eval iprec_at_recall",
        empty_value=0.0,
        trec_eval="iprec_at_recall",
    ),
    MetricSpec(
        name="IPrec11",
        aliases=("eleven_pt_avg",),
        params=(LEVELS, REL, JUDGED_ONLY, TREC_EVAL),
        cutoff="none",
        description="11-point average interpolated precision",
        formula="IPrec11 = (1/11) Σ_{x ∈ 0, 0.1, …, 1} IPrec(recall=x) (or the mean over the given levels)",
        citation="trec_eval 11pt_avg",
        empty_value=0.0,
        trec_eval="11pt_avg",
    ),
    MetricSpec(
        name="SetP",
        aliases=("set_P",),
        params=(REL, JUDGED_ONLY),
        cutoff="none",
        description="precision of the whole retrieved set",
        formula="SetP = |relevant retrieved| / |retrieved|",
        citation="trec_eval set_P",
        empty_value=0.0,
        trec_eval="set_P",
    ),
    MetricSpec(
        name="SetF",
        aliases=("set_F",),
        params=(BETA, REL, JUDGED_ONLY),
        cutoff="none",
        description="F measure of the whole retrieved set",
        formula="SetF = (beta + 1)·SetP·SetR / (beta·SetP + SetR) (0 when nothing relevant is retrieved)",
        citation="van Rijsbergen 1979; trec_eval set_F",
        empty_value=0.0,
        trec_eval="set_F",
    ),
    MetricSpec(
        name="SetAP",
        aliases=("set_map",),
        params=(REL, JUDGED_ONLY),
        cutoff="none",
        description="unranked average precision: SetP · SetR",
        formula="SetAP = |relevant retrieved|² / (|retrieved| · R)",
        citation="trec_eval set_map",
        empty_value=0.0,
        trec_eval="set_map",
    ),
    MetricSpec(
        name="SetRelP",
        aliases=("set_relative_P",),
        params=(REL, JUDGED_ONLY),
        cutoff="none",
        description="set precision relative to the best possible for the set's size",
        formula="SetRelP = |relevant retrieved| / min(|retrieved|, R)",
        citation="trec_eval set_relative_P",
        empty_value=0.0,
        trec_eval="set_relative_P",
    ),
    MetricSpec(
        name="RelP",
        aliases=("relative_P",),
        params=(REL, JUDGED_ONLY),
        cutoff="required",
        description="precision at k relative to the best possible at k",
        formula="RelP@k = |relevant in top k| / min(k, R)",
        citation="trec_eval relative_P",
        empty_value=0.0,
        trec_eval="relative_P",
    ),
    MetricSpec(
        name="F1",
        aliases=(),
        params=(REL, JUDGED_ONLY),
        cutoff="required",
        description="harmonic mean of P@k and R@k",
        formula="F1@k = 2·P@k·R@k / (P@k + R@k) (0 when both are 0)",
        citation="van Rijsbergen 1979; ranx f1",
        empty_value=0.0,
    ),
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
        name="InfAP",
        aliases=(),
        params=(REL, JUDGED_ONLY),
        cutoff="none",
        description="inferred AP from sampled judgments (relevance −1 = pooled but unjudged)",
        formula="InfAP = (1/R) Σ_{relevant at rank i} (1 + X·(a + ε)/(a + n + 2ε)) / i, a/n/u = relevant/judged non-relevant/pooled-unjudged above, X = a + n + u, ε = 1e-5",
        citation="Yilmaz & Aslam, Estimating average precision with incomplete and imperfect judgments, CIKM 2006; trec_eval infAP",
        empty_value=0.0,
        trec_eval="infAP",
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
    MetricSpec(
        name="BinG",
        aliases=(),
        params=(REL, JUDGED_ONLY),
        cutoff="none",
        description="binary G: relevant documents discounted by the non-relevant ranked above",
        formula="BinG = (1/R) Σ_{relevant retrieved r} 1 / log2(2 + n_r), n_r = non-relevant above r",
        citation="trec_eval binG",
        empty_value=0.0,
        trec_eval="binG",
    ),
    MetricSpec(
        name="RankEff",
        aliases=(),
        params=(REL, JUDGED_ONLY),
        cutoff="none",
        description="rank effectiveness for incomplete judgments",
        formula="RankEff = (1/R) Σ_{relevant retrieved r} (1 − n_r / N), n_r = judged non-relevant above r, N = judged non-relevant (term 1 when N = 0)",
        citation="Büttcher, Clarke, Yeung & Soboroff, Reliable information retrieval evaluation with incomplete and biased judgements, SIGIR 2007",
        empty_value=0.0,
    ),
    MetricSpec(
        name="RBP",
        aliases=(),
        params=(PERSISTENCE, RBP_GAIN, REL, JUDGED_ONLY),
        cutoff="optional",
        description="rank-biased precision (to depth k with a cutoff)",
        formula="RBP@k = (1 − p) Σ_{i≤k} w_i · p^(i − 1), w_i = [rel_i ≥ rel] (gain='binary') or "
        "rel_i · [rel_i ≥ rel] (gain='graded')",
        citation="Moffat & Zobel, Rank-biased precision for measurement of retrieval effectiveness, TOIS 2008",
        empty_value=0.0,
        trec_eval="rbp (defective in trec_eval 10: see README)",
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
    MetricSpec(
        name="Compat",
        aliases=(),
        params=(COMPAT_PERSISTENCE, COMPAT_NORMALIZE),
        cutoff="none",
        description="compatibility: rank-biased overlap between the run and an ideal ranking of the "
        "judged documents (as ir-measures' compat provider)",
        formula="Compat = RBO(run, ideal) / RBO(ideal, ideal) (0 when nothing is relevant; "
        "normalize=False: RBO(run, ideal)), RBO(A, B) = Σ_{d≤D} p^(d − 1) · #(A_{:d} ∩ B_{:d}) / d "
        "/ Σ_{d≤D} p^(d − 1), D = max(n, R); the ideal: the documents of relevance > 0 by "
        "relevance, then in the run's order (one not retrieved as if scored 0)",
        citation="Clarke, Vtyurina & Smucker, Assessing top-k preferences, TOIS 2021 (RBO: Webber, "
        "Moffat & Zobel, TOIS 2010)",
        empty_value=0.0,
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
    # -- C/W/L user models, exact to cwl_eval (issue 18, section 2) --
    MetricSpec(
        name="INST",
        aliases=(),
        params=(INST_T, *_CWL_COMMON_RES),
        cutoff="none",
        description="INST: adaptive C/W/L user who wants T gain and is more likely to stop the more gain is seen",
        formula=_CWL_FORMULA + "C_i = ((i + 2T − G_i − 1) / (i + 2T − G_i))², G_i = Σ_{j≤i} g_j",
        citation="Moffat, Bailey, Scholer & Thomas, INST: an adaptive metric for information retrieval evaluation, ADCS 2015; cwl_eval",
        empty_value=0.0,
    ),
    MetricSpec(
        name="INSQ",
        aliases=(),
        params=(CWL_T, *_CWL_COMMON_RES),
        cutoff="none",
        description="INSQ: C/W/L user who wants T gain, continuing with a rank-dependent chance",
        formula=_CWL_FORMULA + "C_i = ((i + 2T − 1) / (i + 2T))²",
        citation="Moffat, Scholer & Thomas, Models and metrics: IR evaluation as a user process, ADCS 2012; cwl_eval",
        empty_value=0.0,
    ),
    MetricSpec(
        name="BPM",
        aliases=(),
        params=(
            CWL_T,
            Param(
                "hb", float, 0.0, "the dynamic model's gain factor: the target moves by hb · (g − gain_med) at "
                "each document read (0: the static model; cwl_eval's BPM-Dynamic takes 1)",
                minimum=0.0, maximum=LIMIT,
                bounds="a factor of the target's change: negative would move the target against the gain "
                "seen; no natural ceiling: at most 2**62",
            ),
            Param(
                "gain_med", float, 0.5, "the dynamic model's median gain: a document of more gain raises the target",
                minimum=0.0, maximum=1.0, bounds="a gain, and gains lie in [0, 1]",
            ),
            *_CWL_COMMON_RES,
        ),
        cutoff="required",
        description="Bejeweled Player Model: the user stops once the target gain is seen or k documents are "
        "read (a cost of k with the run's cost column, cost=; static; dynamic with hb > 0, cwl_eval's BPM-Dynamic)",
        formula=_CWL_FORMULA + "C_i = [G_i < T_i] · [K_i < k], K_i = Σ_{j≤i} c_j (i when each costs 1), "
        "G_i = Σ_{j≤i} g_j, T_i = T + hb · (G_{i−1} − (i − 1) · "
        "gain_med) (cwl_eval 1.0.12's hc changes nothing: its update of K writes T after the gain test)",
        citation="Zhang, Liu, Li, Zhang, Xu & Ma, Evaluating web search with a bejeweled player model, SIGIR 2017; cwl_eval",
        empty_value=0.0,
    ),
    MetricSpec(
        name="SDCG",
        aliases=(),
        params=_CWL_COMMON_RES,
        cutoff="required",
        description="scaled DCG@k: DCG@k divided by the DCG@k of k fully relevant documents (C/W/L)",
        formula=_CWL_FORMULA + "C_i = log2(i + 1) / log2(i + 2) for i < k, 0 from k on",
        citation="Järvelin & Kekäläinen, TOIS 2002; as cwl_eval's NDCG-k",
        empty_value=0.0,
    ),
    MetricSpec(
        name="NERR8",
        aliases=(),
        params=_CWL_COMMON_RES,
        cutoff="required",
        description="not (but nearly) ERR, equation 8: stop at a document with its gain, at the latest at rank k",
        formula=_CWL_FORMULA + "C_i = 1 − g_i for i < k, 0 from k on",
        citation=_NERR_CITATION,
        empty_value=0.0,
    ),
    MetricSpec(
        name="NERR9",
        aliases=(),
        params=_CWL_COMMON_RES,
        cutoff="required",
        description="not (but nearly) ERR, equation 9: NERR8 with a 1/i discount",
        formula=_CWL_FORMULA + "C_i = i / (i + 1) · (1 − g_i) for i < k, 0 from k on",
        citation=_NERR_CITATION,
        empty_value=0.0,
    ),
    MetricSpec(
        name="NERR10",
        aliases=(),
        params=(CWL_PERSISTENCE, *_CWL_COMMON_RES),
        cutoff="none",
        description="not (but nearly) ERR, equation 10: RBP's patience p times 1 − g",
        formula=_CWL_FORMULA + "C_i = p · (1 − g_i)",
        citation=_NERR_CITATION,
        empty_value=0.0,
    ),
    MetricSpec(
        name="NERR11",
        aliases=(),
        params=(CWL_T, *_CWL_COMMON_RES),
        cutoff="none",
        description="not (but nearly) ERR, equation 11: INSQ's continuation times 1 − g",
        formula=_CWL_FORMULA + "C_i = ((i + 2T − 1) / (i + 2T))² · (1 − g_i)",
        citation=_NERR_CITATION,
        empty_value=0.0,
    ),
    MetricSpec(
        name="U",
        aliases=("UMeasure",),
        params=(
            Param(
                "L", float, 1000.0, "the half-life of reading: the weight of a document falls linearly to 0 at rank L + 1",
                minimum=0.0, exclusive_min=True, maximum=LIMIT,
                bounds="weights max(0, 1 − (i − 1) / L): L = 0 divides by 0, L < 0 gives weight only to "
                "rank 1 by a negative slope; no natural ceiling: at most 2**62",
            ),
            CWL_MIN_REL, CWL_MAX_REL,
            Param(
                "depth", int, 1000, "cwl_eval's --max_depth: the ranking is cut there, and padded to it with documents of gain 0",
                minimum=2, maximum=CWL_DEPTH_MAX,
                bounds="a number of ranks: U-measure gives the last rank weight 0, so depth 1 leaves no "
                "weight (cwl_eval divides 0 by 0); the normalising sum is taken when the metric is "
                "built, so at most a million",
            ),
            CWL_VALUE_RES,
        ),
        cutoff="none",
        description=(
            "U-measure: weights falling linearly with the text read (the costs of the documents above: "
            "the run's cost column, cost=, or 1 each)"
        ),
        formula=_CWL_FORMULA + "W_i ∝ max(0, 1 − K_{i−1} / L) for i < depth, 0 at depth, K_{i−1} the costs of "
        "the documents above rank i (i − 1 when each costs 1; a padded document costs 1)",
        citation="Sakai & Dou, Summaries, ranked retrieval and sessions: a unified framework for information access evaluation, SIGIR 2013; cwl_eval",
        empty_value=0.0,
    ),
    MetricSpec(
        name="TBG",
        aliases=(),
        params=(
            Param(
                "H", float, 224.0, "the half-life: the chance of reading on halves every H units of cost (documents)",
                minimum=0.0, exclusive_min=True, maximum=LIMIT,
                bounds="weights 2^(−(i − 1) / H): H = 0 divides by 0, H < 0 weighs deep documents most; "
                "no natural ceiling: at most 2**62",
            ),
            *_CWL_COMMON_RES,
        ),
        cutoff="none",
        description=(
            "time-biased gain (C/W/L): decaying with the time spent before a document (the costs of the "
            "documents above: the run's cost column, cost=, or 1 each, RBP with p = 2^(−1/H)), stopping at depth"
        ),
        formula=_CWL_FORMULA + "W_i ∝ 2^(−K_{i−1} / H), K_{i−1} the costs of the documents above rank i "
        "(i − 1 when each costs 1; a padded document costs 1)",
        citation="Smucker & Clarke, Time-based calibration of effectiveness measures, SIGIR 2012; cwl_eval",
        empty_value=0.0,
    ),
    MetricSpec(
        name="IFTGoal",
        aliases=(),
        params=(IFT_T, IFT_B1, IFT_R1, *_CWL_COMMON_RES),
        cutoff="none",
        description="information foraging, goal (cwl_eval's IFT-C1): the user is less likely to go on "
        "the nearer the gain seen comes to the goal T",
        formula=_CWL_FORMULA + _IFT_C1,
        citation=_IFT_CITATION,
        empty_value=0.0,
    ),
    MetricSpec(
        name="IFTRate",
        aliases=(),
        params=(IFT_A, IFT_B2, IFT_R2, *_CWL_COMMON_RES),
        cutoff="none",
        description="information foraging, rate (cwl_eval's IFT-C2): the user is less likely to go on "
        "the further the rate of gain falls below A",
        formula=_CWL_FORMULA + _IFT_C2,
        citation=_IFT_CITATION,
        empty_value=0.0,
    ),
    MetricSpec(
        name="IFTGoalRate",
        aliases=(),
        params=(IFT_T, IFT_B1, IFT_R1, IFT_A, IFT_B2, IFT_R2, *_CWL_COMMON_RES),
        cutoff="none",
        description="information foraging, goal and rate (cwl_eval's IFT-C1-C2): IFTGoal's and IFTRate's "
        "continuations multiplied",
        formula=_CWL_FORMULA + "C_i = C1_i · C2_i, " + _IFT_C1 + ", " + _IFT_C2,
        citation=_IFT_CITATION,
        empty_value=0.0,
    ),
    # -- diversity / intent-aware measures of TREC's ndeval (issue 18, section 1) ----------------
    *DIVERSITY_SPECS,
)

_BY_NAME: dict[str, MetricSpec] = {}
for _spec in SPECS:
    for _name in _spec.all_names:
        if _name.lower() in _BY_NAME:
            raise RuntimeError(f"metric name {_name!r} is registered twice")
        _BY_NAME[_name.lower()] = _spec


@checked
def all_names() -> list[str]:
    """Every accepted metric name (canonical names first, then aliases)."""
    return [s.name for s in SPECS] + [a for s in SPECS for a in s.aliases]


@checked
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
            f"unknown metric {shorten(name)}.{hint} Valid metrics: {', '.join(s.name for s in SPECS)}."
        )
    return spec


def iter_specs() -> Iterator[MetricSpec]:
    """All specs, in registry order."""
    return iter(SPECS)
