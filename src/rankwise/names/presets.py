"""Presets: each metric as another library computes its metric of the same name (``like=``).

A preset is a table: for each rankwise metric the library offers, the library's own name for it
and the parameters that make rankwise's value the library's, plus the conventions the library
uses for every metric (its tie order, which judgments it sees). :func:`resolve` turns a user's
metrics and keyword options into explicit ones; every entry point that takes ``like=`` calls it
first, so that ``like='lightgbm'`` is nothing but the explicit metrics and conventions it stands
for — which :func:`like` shows, to read and to copy:

>>> like("lightgbm", "nDCG@10")
rw.evaluate(qrels, run, ["nDCG(gain='exponential', ideal='run', empty=1, labels='int_0_30')@10"], ties='input', judgments='retrieved')
>>> like("trec_eval", "ndcg_cut.10").metric
'nDCG@10'

A metric the library does not offer is an error naming those it does. Parameters written in
the user's metric string, and conventions passed as keywords, take precedence over the preset's
(a :class:`~rankwise.errors.RankwiseWarning` says that the value is then not the library's).
Each preset's values are checked per query against the library itself, or where it cannot run
on a CPU-only machine against values computed from its published source
(``tests/metrics/test_presets.py``, one test per library).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, cast, get_args

from rankwise.conventions import CONVENTION_KEYWORDS, Conventions, Library, checked
from rankwise.errors import InvalidParameterError, RankwiseWarning, UnknownMetricError, did_you_mean
from rankwise.metrics.metric import Metric, make_metric
from rankwise.metrics.registry import SPECS, get_spec
from rankwise.metrics.spec import ParamValue
from rankwise.names.parse import parse_metrics

__all__ = ["PRESETS", "Entry", "Like", "Preset", "like", "resolve"]


@dataclass(frozen=True)
class Entry:
    """One metric of a library: its own name for it and the parameters that reproduce it."""

    name: str
    """The library's name, e.g. ``'ndcg@k'``, ``'NDCG:top=k'``, ``'RetrievalNormalizedDCG'``."""
    params: Mapping[str, ParamValue] = field(default_factory=dict)
    at_cutoff: str | None = None
    """The rankwise metric whose value the library's is at a cutoff, when it is another metric
    (LensKit's ``Recall(n)`` divides by min(R, n): rankwise's ``RelP@n``; its ``Recall()`` is ``R``)."""
    bound: Mapping[str, str] = field(default_factory=dict)
    """Parameters that take the value of a convention (parameter -> convention): the library reads
    that setting for this metric too (torchmetrics' empty_target_action for its AUROC: AUC's
    ``empty``; Spark's ground truth, relevance >= rel, for the binary gain: nDCG's ``rel``)."""


@dataclass(frozen=True)
class Preset:
    """A library's conventions: per metric (by rankwise name) an :class:`Entry`, and the
    conventions that hold for all of them."""

    name: str
    library: str
    conventions: Mapping[str, Any]
    metrics: Mapping[str, Entry]
    oracle: str
    """What the preset was checked against (the library and version, or its source)."""
    notes: str = ""
    suffixes: Mapping[str, Mapping[str, ParamValue]] = field(default_factory=dict)
    """Suffixes of a metric name that the library reads as parameters (XGBoost's ``ndcg@10-``:
    a query with nothing relevant scores 0)."""

    def entry(self, metric: Metric) -> Entry:
        """The library's entry for ``metric``; an error naming what the library offers."""
        found = self.metrics.get(metric.spec.name)
        if found is None:
            offered = ", ".join(sorted(self.metrics, key=str.lower))
            raise UnknownMetricError(
                f"{self.library} (like={self.name!r}) has no metric {metric.label!r}: it offers {offered}"
            )
        return found


def _same(names: Iterable[str], **params: ParamValue) -> dict[str, Entry]:
    return {name: Entry(name, dict(params)) for name in names}


_TREC_EVAL = {spec.name: Entry(re.sub(r"\s*\(.*\)$", "", spec.trec_eval)) for spec in SPECS if spec.trec_eval}
"""trec_eval's measures by rankwise name, each with its trec_eval name (without the metric table's remarks)."""

PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset(
            "trec_eval", "trec_eval 10", {}, _TREC_EVAL,
            "trec_eval 10.0's own test outputs (tests/metrics/test_conformance.py)",
            "the default: every convention of rankwise is trec_eval 10's",
        ),
        Preset(
            "trec_eval9", "trec_eval 9.0.8", {"trec_eval": "9"}, _TREC_EVAL,
            "pytrec_eval-terrier, which runs trec_eval 9's C code (tests/metrics/test_reference.py)",
            "scores rounded to 32-bit floats before ranking; interpolated precision's floor(x·R + 0.9)",
        ),
        Preset(
            "ir_measures", "ir-measures (its pytrec_eval provider)", {"trec_eval": "9"},
            {name: Entry(name) for name in _TREC_EVAL},
            "ir-measures (tests/metrics/test_ir_measures.py)",
            "the measures ir-measures computes through pytrec_eval, with trec_eval 9's conventions; those of "
            "its other providers (cwl_eval, compat, ndeval, ...) are rankwise's own without like=",
        ),
        Preset(
            "ranx", "ranx", {"missing": "zero"},
            {
                **_same(("nDCG", "DCG", "AP", "RR", "P", "R", "Rprec", "Hits", "Success", "SetP", "SetF", "F1")),
                "RBP": Entry("rbp", {"gain": "graded"}),
            },
            "ranx 0.3 (tests/metrics/test_ranx.py)",
            "ranx breaks score ties in an order of its own (no rankwise policy reproduces it); it "
            "scores the queries of the qrels, those the run lacks as 0 (make_comparable)",
        ),
        Preset(
            "sklearn", "scikit-learn", {"judgments": "retrieved"},
            {
                "nDCG": Entry("ndcg_score", {"ties": "average", "ideal": "run", "labels": "nonnegative"}),
                "DCG": Entry("dcg_score", {"ties": "average", "negative": "gain"}),
                "AUC": Entry("roc_auc_score"),
            },
            "scikit-learn 1.9 per query (tests/metrics/test_presets.py)",
            "each query is one row of y_true/y_score; ndcg_score refuses negative labels (an error here too) "
            "and one-document queries; ignore_ties=True orders ties as numpy's argsort does (no reproducible order)",
        ),
        Preset(
            "lightgbm", "LightGBM", {"ties": "input", "judgments": "retrieved"},
            {
                "nDCG": Entry("ndcg@k", {"gain": "exponential", "ideal": "run", "empty": 1, "labels": "int_0_30"}),
                "AP": Entry("map@k", {"denominator": "min_R_k", "empty": 1}),
            },
            "lightgbm 4.7 per query (tests/metrics/test_presets.py)",
            "ndcg's gain is label_gain[label], 2^l − 1 by default for integer labels 0..30 (any other label "
            "an error, as in LightGBM); map counts a label > 0.5 as relevant (the same as rel=1 for integer labels)",
        ),
        Preset(
            "xgboost", "XGBoost", {"ties": "input", "judgments": "retrieved"},
            {
                "nDCG": Entry("ndcg@n", {"gain": "exponential", "ideal": "run", "empty": 1, "labels": "int_0_31"}),
                "AP": Entry("map@n", {"denominator": "min_R_k", "empty": 1, "labels": "binary"}),
                "P": Entry("pre@n", {"denominator": "retrieved", "labels": "binary"}),
            },
            "xgboost-cpu 3.2 per query (tests/metrics/test_presets.py)",
            "ndcg@n- and map@n- (a query with nothing relevant scores 0) are nDCG@n- and AP@n- (their columns "
            "named nDCG(empty=0)@n and AP(empty=0)@n); "
            "ndcg_exp_gain=False is nDCG(gain='linear', negative='gain', labels='any'); ndcg takes integer "
            "labels 0..31, map and pre binary labels only (any other an error, as in XGBoost)",
            suffixes={"-": {"empty": 0}},
        ),
        Preset(
            "catboost", "CatBoost", {"ties": "pessimistic", "judgments": "retrieved"},
            {
                "nDCG": Entry("NDCG:top=k", {"ideal": "run", "negative": "gain", "empty": 1}),
                "DCG": Entry("DCG:top=k", {"negative": "gain"}),
                "AP": Entry("MAP:top=k", {"denominator": "min_R_k"}),
                "RR": Entry("MRR:top=k"),
                "P": Entry("PrecisionAt:top=k", {"denominator": "retrieved"}),
                "R": Entry("RecallAt:top=k", {"empty": 1}),
                "PFound": Entry("PFound:top=k"),
                "QueryAUC": Entry("QueryAUC:type=Ranking"),
            },
            "catboost 1.2 per query (tests/metrics/test_presets.py)",
            "CatBoost ranks the lower label first among equal scores (pessimistic); NDCG:type=Exp is "
            "nDCG(gain='exponential'), denominator=Position is discount='reciprocal'; MAP, MRR, "
            "PrecisionAt and RecallAt count a label > 0.5 as relevant (rel=1 for integer labels)",
        ),
        Preset(
            "torchmetrics", "torchmetrics", {"ties": "input", "judgments": "retrieved"},
            {
                "nDCG": Entry("RetrievalNormalizedDCG", {"ties": "average", "ideal": "run", "negative": "gain"}),
                "AP": Entry("RetrievalMAP", {"denominator": "relret"}),
                "P": Entry("RetrievalPrecision"),
                "R": Entry("RetrievalRecall"),
                "RR": Entry("RetrievalMRR"),
                "Success": Entry("RetrievalHitRate"),
                "Rprec": Entry("RetrievalRPrecision"),
                "AUC": Entry("RetrievalAUROC", bound={"empty": "empty"}),
            },
            "values computed from torchmetrics 1.9's source, written out in tests/metrics/test_presets.py "
            "(torch pulls the CUDA stack)",
            "empty_target_action 'neg' (the default) is empty=0, 'pos' empty=1, 'skip' empty='skip', "
            "'error' empty='error'; adaptive_k=True is P(denominator='retrieved'); torchmetrics casts "
            "scores to float32, and MAP/MRR/Precision/Recall order tied scores by torch.topk and never count "
            "a document scored <= 0 as relevant (neither reproduced: give distinct positive scores)",
        ),
        Preset(
            "spark_mllib", "Spark MLlib RankingMetrics", {"ties": "input"},
            {
                "nDCG": Entry("ndcgAt(k)", {"gain": "binary"}, bound={"rel": "rel"}),
                "AP": Entry("meanAveragePrecisionAt(k)", {"denominator": "min_R_k"}),
                "P": Entry("precisionAt(k)"),
                "R": Entry("recallAt(k)"),
            },
            "pyspark 4.3 RankingMetrics per query (tests/metrics/test_presets.py)",
            "Spark takes each predicted list as given (ties='input' on a list in its order) and the ground "
            "truth as every document with relevance >= rel; AP without @k is meanAveragePrecision",
        ),
        Preset(
            "rectools", "rectools", {"ties": "input", "missing": "zero"},
            {
                "nDCG": Entry("NDCG", {"gain": "binary", "ideal": "k", "empty": "skip"}, bound={"rel": "rel"}),
                "AP": Entry("MAP", {"empty": "skip"}),
                "P": Entry("Precision", {"empty": "skip"}),
                "RelP": Entry("Precision(r_precision=True)", {"empty": "skip"}),
                "R": Entry("Recall", {"empty": "skip"}),
                "RR": Entry("MRR", {"empty": "skip"}),
                "Success": Entry("HitRate", {"empty": "skip"}),
                "PartialAUC": Entry("PartialAUC", {"empty": "skip"}),
                "PAP": Entry("PAP", {"empty": "skip"}),
                "MIUF": Entry("MeanInvUserFreq"),
                "ARP": Entry("AvgRecPopularity"),
                "ILD": Entry("IntraListDiversity", {"distance": "hamming"}),
                "UserCoverage": Entry("CoveredUsers"),
                "Serendipity": Entry("Serendipity"),
            },
            "rectools 0.19 per user (tests/metrics/test_presets.py, tests/metrics/test_popularity.py, "
            "tests/metrics/test_feature_diversity.py, tests/metrics/test_serendipity.py)",
            "rectools scores the users of the interactions: a user with nothing relevant is left out "
            "(empty='skip'), one the recommendations lack scores 0 (missing='zero'); "
            "NDCG(divide_by_achievable=True) is nDCG(gain='binary'), MAP(divide_by_k=True) AP(denominator='k')",
        ),
        Preset(
            "tensorflow_ranking", "TensorFlow Ranking (tfr.keras.metrics)", {"ties": "input", "judgments": "retrieved"},
            {
                "nDCG": Entry("NDCGMetric(topn=k)", {"gain": "exponential", "ideal": "run"}),
                "DCG": Entry("DCGMetric(topn=k)", {"gain": "exponential"}),
                "RR": Entry("MRRMetric(topn=k)"),
                "Success": Entry("HitsMetric(topn=k)"),
                "P": Entry("PrecisionMetric(topn=k)", {"denominator": "retrieved"}),
                "R": Entry("RecallMetric(topn=k)"),
                "AP": Entry("MeanAveragePrecisionMetric(topn=k)"),
            },
            "values computed from tensorflow_ranking 0.5.5's source (python/metrics_impl.py), written out in "
            "tests/metrics/test_presets.py (it needs numpy < 2)",
            "TF-Ranking shuffles tied scores at random (ties='input' is one of its orders: give distinct scores); "
            "a label < 0 is padding: drop those rows first (judged_only=True does when every listed document is "
            "labelled); ARPMetric and OPAMetric have no rankwise metric",
        ),
        Preset(
            "recbole", "RecBole", {},
            {
                "nDCG": Entry("NDCG", {"gain": "binary", "empty": "skip"}, bound={"rel": "rel"}),
                "AP": Entry("MAP", {"denominator": "min_R_k", "empty": "skip"}),
                "P": Entry("Precision", {"empty": "skip"}),
                "R": Entry("Recall", {"empty": "skip"}),
                "RR": Entry("MRR", {"empty": "skip"}),
                "Success": Entry("Hit", {"empty": "skip"}),
                "ARP": Entry("AveragePopularity"),
                "TailPercentage": Entry("TailPercentage"),
            },
            "values computed from RecBole 1.2.1's source (recbole/evaluator/metrics.py), written out in "
            "tests/metrics/test_presets.py and tests/data/beyond/popularity_goldens.json (it needs torch)",
            "RecBole evaluates the users with at least one positive (empty='skip') against all their positives, "
            "orders tied scores by torch.topk (no reproducible order: give distinct scores) and prints the mean "
            "to 4 decimals; its GAUC weighs each user's AUC by its positives",
        ),
        Preset(
            "lenskit", "LensKit (lenskit.metrics, 2025.8)", {"ties": "input"},
            {
                "nDCG": Entry("NDCG(n)", {"gain": "binary", "discount": "jarvelin", "empty": "skip"}, bound={"rel": "rel"}),
                "DCG": Entry("DCG(n)", {"gain": "binary", "discount": "jarvelin"}, bound={"rel": "rel"}),
                "P": Entry("Precision(n)", {"denominator": "retrieved"}),
                "R": Entry("Recall(n)", {"empty": "skip"}, at_cutoff="RelP"),
                "RR": Entry("RecipRank(n)", {"empty": "skip"}),
                "Success": Entry("Hit(n)", {"empty": "skip"}),
                "RBP": Entry("RBP(n)", {"p": 0.85, "empty": "skip"}),
                "MeanPopRank": Entry("MeanPopRank(data, n)"),
                "CategoryEntropy": Entry("entropy(items, categories, n)"),
            },
            "LensKit 2025.8.1 run from its source (--no-deps, CPU torch) on hand cases, written out in "
            "tests/metrics/test_presets.py and tests/data/beyond/popularity_goldens.json and "
            "category_goldens.json",
            "LensKit counts every test item relevant whatever its rating (give the test items a positive "
            "relevance); NDCG(gain='rating') is nDCG(discount='jarvelin', negative='gain'); its "
            "discount 1/log2(max(i, 2)) is rankwise's 'jarvelin'; AveragePrecision divides by min(R, the list's "
            "length), which no rankwise AP does when the list is shorter than n (not offered)",
        ),
        Preset(
            "elasticsearch", "Elasticsearch / OpenSearch _rank_eval", {"ties": "input", "missing": "zero"},
            {
                "P": Entry("precision", {"denominator": "retrieved"}),
                "R": Entry("recall"),
                "RR": Entry("mean_reciprocal_rank"),
                "DCG": Entry("dcg", {"gain": "exponential", "negative": "gain"}),
                "nDCG": Entry("dcg (normalize: true)", {"gain": "exponential", "ideal_cutoff": "list", "negative": "gain"}),
                "ERR": Entry("expected_reciprocal_rank"),
            },
            "values computed from Elasticsearch's source (modules/rank-eval: PrecisionAtK, RecallAtK, "
            "MeanReciprocalRank, DiscountedCumulativeGain, ExpectedReciprocalRank), written out in "
            "tests/metrics/test_presets.py",
            "k is each metric's @k (Elasticsearch's default 10); relevant_rating_threshold is rel; dcg with "
            "normalize is exact for ratings >= 0 (a negative rating enters Elasticsearch's ideal, not "
            "rankwise's ideal cut at the list's length); "
            "ignore_unlabeled=true is max_rank=k with judged_only=True; expected_reciprocal_rank's "
            "maximum_relevance is ERR's max_rel (exact for ratings from 0 to it: rankwise clips others, "
            "Elasticsearch does not); unknown_doc_rating has no rankwise convention",
        ),
    )
}
"""Every preset by name (the values of ``like=``)."""


@dataclass(frozen=True)
class Like:
    """A metric as a library computes it, made explicit: the metric string and conventions to
    pass to :func:`rankwise.evaluate` for the same values (``repr`` shows the call)."""

    library: str
    name: str
    """The library's own name for the metric."""
    metric: str
    """The explicit rankwise metric string."""
    conventions: Mapping[str, Any]

    def __str__(self) -> str:
        return self.metric

    def __repr__(self) -> str:
        options = "".join(f", {key}={value!r}" for key, value in self.conventions.items())
        return f"rw.evaluate(qrels, run, [{self.metric!r}]{options})".replace("['", '["').replace("']", '"]')


def _preset(name: object) -> Preset:
    if not isinstance(name, str) or name not in PRESETS:
        raise InvalidParameterError(
            f"like must be one of {sorted(PRESETS)}, got {name!r}.{did_you_mean(str(name), list(PRESETS))}"
        )
    return PRESETS[name]


def _suffixed(preset: Preset, text: object) -> tuple[object, Mapping[str, ParamValue]]:
    """A metric string without the library's suffix, and the parameters the suffix stands for."""
    if isinstance(text, str):
        for suffix, params in preset.suffixes.items():
            if text.strip().endswith(suffix) and re.search(r"@\d+\s*" + re.escape(suffix) + r"$", text.strip()):
                return text.strip()[: -len(suffix)], params
    return text, {}


_DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(Conventions)}


def library_metric(
    preset: Preset, metric: Metric, conventions: Mapping[str, Any] | None = None,
    extra: Mapping[str, ParamValue] | None = None, source: str | None = None,
) -> Metric:
    """``metric`` as ``preset``'s library computes it: the metric its entry names at a cutoff,
    the entry's parameters, those bound to a convention (its value in ``conventions``, else the
    preset's, else the default), a suffix's ``extra``; the parameters ``metric`` sets win."""
    entry = preset.entry(metric)
    given = {**preset.conventions, **(conventions or {})}
    bound = {param: given.get(name, _DEFAULTS[name]) for param, name in entry.bound.items()}
    spec = metric.spec if entry.at_cutoff is None or metric.cutoff is None else get_spec(entry.at_cutoff)
    params = {**entry.params, **bound, **(extra or {})}
    return make_metric(spec, {**params, **dict(metric.params)}, metric.cutoff, source)


def _as_library(
    preset: Preset, metric: Metric, extra: Mapping[str, ParamValue], source: str, conventions: Mapping[str, Any],
) -> Metric:
    entry = preset.entry(metric)
    explicit = dict(metric.params)
    params = {**entry.params, **extra}  # a bound parameter is the library's whatever its value
    overridden = {k: v for k, v in explicit.items() if k in params and params[k] != v}
    if overridden:
        warnings.warn(
            f"metric {source!r} sets {', '.join(f'{k}={v!r}' for k, v in overridden.items())} over the "
            f"{preset.name} preset's {', '.join(f'{k}={params[k]!r}' for k in overridden)}: "
            f"its values are not {preset.library}'s",
            RankwiseWarning,
            stacklevel=4,
        )
    return library_metric(preset, metric, conventions, extra, source)


def resolve(metrics: Any, options: Mapping[str, Any]) -> tuple[list[Metric], dict[str, Any]]:
    """The metrics and keyword options an entry point evaluates: ``metrics`` parsed, and when
    ``options`` hold ``like=`` each made the library's (the preset's parameters under those the
    metric string sets) and the preset's conventions added under those given as keywords.
    Without ``like`` (or ``like=None``) the metrics are parsed as always."""
    rest = {key: value for key, value in options.items() if key != "like"}
    name = options.get("like")
    if name is None:
        return parse_metrics(metrics), rest
    preset = _preset(name)
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    if not isinstance(metrics, Iterable) or isinstance(metrics, (bytes, bytearray, memoryview)):
        return parse_metrics(cast(Any, metrics)), rest  # parse_metrics says what metrics must be
    conventions = {**preset.conventions, **rest}
    out: list[Metric] = []
    for item in metrics:
        text, extra = _suffixed(preset, item)
        found = parse_metrics(cast(Any, text))
        for metric in found:
            if extra:  # a suffix's parameters, written out: XGBoost's ndcg@10- is nDCG(empty=0)@10
                source = repr(make_metric(metric.spec, {**dict(metric.params), **extra}, metric.cutoff, None))
            else:  # the string as given, or each metric's own name where it names several
                source = item if isinstance(item, str) and len(found) == 1 else metric.label
            out.append(_as_library(preset, metric, extra, source, conventions))
    labels = [m.label for m in out]
    if len(set(labels)) < len(labels):
        parse_metrics(labels)  # raises its duplicate error
    given = {k: rest[k] for k in preset.conventions if k in rest and rest[k] != preset.conventions[k]}
    if given:
        warnings.warn(
            f"{', '.join(f'{k}={v!r}' for k, v in given.items())} overrides the {preset.name} preset's "
            f"{', '.join(f'{k}={preset.conventions[k]!r}' for k in given)}: the values are not {preset.library}'s",
            RankwiseWarning,
            stacklevel=3,
        )
    return out, conventions


@checked
def like(library: Library, metric: str | Metric) -> Like:
    """The metric ``metric`` as ``library`` computes it, made explicit: the rankwise metric
    string and the conventions that give the library's values (``repr``: the call to copy).

    >>> like("xgboost", "ndcg@10-").metric
    "nDCG(gain='exponential', ideal='run', empty=0, labels='int_0_31')@10"
    >>> like("rectools", "nDCG@10")
    rw.evaluate(qrels, run, ["nDCG(gain='binary', ideal='k', rel=1, empty='skip')@10"], ties='input', missing='zero')
    >>> like("lightgbm", "P@10")
    Traceback (most recent call last):
    ...
    rankwise.errors.UnknownMetricError: LightGBM (like='lightgbm') has no metric 'P@10': it offers AP, nDCG
    """
    preset = _preset(library)
    text, extra = _suffixed(preset, metric)
    found = parse_metrics(cast(Any, text))
    if len(found) != 1:
        raise InvalidParameterError(f"like takes one metric; {metric!r} names {len(found)}: ask for each")
    (original,) = found
    explicit = library_metric(preset, original, None, extra)
    conventions = {k: preset.conventions[k] for k in CONVENTION_KEYWORDS if k in preset.conventions}
    return Like(preset.library, preset.entry(original).name, repr(explicit), conventions)


def presets_table() -> str:
    """The table of presets (docs/libraries.md): library, its metric names (rankwise's beside them), the
    preset, the conventions it sets for every metric, what it was checked against.

    >>> presets_table().splitlines()[0]
    '| library | its metrics (rankwise name) | like= | conventions | checked against |'
    """
    rows = [
        "| library | its metrics (rankwise name) | like= | conventions | checked against |",
        "| --- | --- | --- | --- | --- |",
    ]
    for preset in PRESETS.values():
        if preset.name.startswith("trec_eval"):
            names = "every trec_eval measure"
        elif preset.name == "ir_measures":
            names = "every trec_eval measure, by its ir-measures name"
        else:
            names = ", ".join(
                f"`{entry.name}` ({name}{'(' + ', '.join(f'{k}={v!r}' for k, v in entry.params.items()) + ')' if entry.params else ''})"
                for name, entry in preset.metrics.items()
            )
        conventions = ", ".join(f"`{k}={v!r}`" for k, v in preset.conventions.items()) or "—"
        rows.append(f"| {preset.library} | {names} | `{preset.name}` | {conventions} | {preset.oracle} |")
    return "\n".join(rows)


def write_readme(path: str) -> None:
    """Replace the table between the presets markers of the file at ``path``
    (``python -m rankwise.names.presets --write docs/libraries.md``)."""
    from rankwise.outputs.files import replace_marked

    replace_marked(path, "presets", presets_table())


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["--write"] and len(sys.argv) == 3:
        write_readme(sys.argv[2])
    else:
        print(presets_table())


if sorted(PRESETS) != sorted(get_args(Library)):  # pragma: no cover - a preset and its name drifted
    raise RuntimeError(f"presets {sorted(PRESETS)} are not the libraries {sorted(get_args(Library))}")
