"""Is the new ranking better? Paired comparison of runs on per-query values.

Every run is evaluated **once**, on the same queries (those :func:`rankwise.evaluate` scores
for some run under the same options: with ``missing='ignore'``, the default, the judged queries
some run has; a query missing from one run counts as 0 there, trec_eval ``-c``, and a warning
says so): :func:`per_query_values`. Every table,
test, figure and report of a comparison is derived from those values (:class:`Comparison`),
so each output shows the same numbers for the same call.

For each pair of runs (each run against the baseline, or all pairs) and each metric,
:func:`compare` reports the means, the mean difference (absolute and relative) with its
BCa-bootstrap and t-based 95% intervals, the effect sizes (Cohen's d_z, Hedges' g_z, Glass's
Δ), the p-values of paired tests, the p-values after multiple-comparison correction over the
family tested, significance at ``alpha``, and the wins / ties / losses over queries.

Tests (``tests=``): ``"t"`` (Student's paired t-test, scipy.stats.ttest_rel), ``"wilcoxon"``
(signed-rank, scipy.stats.wilcoxon), ``"randomization"`` (Fisher's paired randomization test:
random sign flips of the differences, ``resamples`` of them in blocks, seeded), ``"tukey"``
(Tukey's HSD across all runs, scipy.stats.tukey_hsd; not paired), ``"randomized_tukey"``
(the randomised Tukey HSD across all runs, Carterette 2012, seeded: each resample permutes
every query's values across the runs). The statistics themselves
are in :mod:`rankwise.comparison.statistics`. Needs numpy and scipy: ``pip install 'rankwise[stats]'``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Annotated, Any, Literal, TypedDict, cast

import polars as pl

from rankwise.comparison.statistics import (
    CORRECTIONS,
    Correction,
    adjust,
    anova_two_way,
    bootstrap_bca_many,
    check_resampling,
    effect_sizes,
    georisk,
    numpy_scipy,
    outcomes,
    paired_pvalue,
    randomized_tukey,
    risk,
    t_interval,
    topic_set_size,
)
from rankwise.conventions import (
    READ_KEYWORDS,
    Columns,
    ReadOptions,
    Unpack,
    _FromOptions,
    check_options,
    checked,
)
from rankwise.errors import InvalidParameterError, RankwiseError, warn
from rankwise.evaluation.evaluate import Engine, coverage_seen, metric_of_column
from rankwise.evaluation.evaluator import BaseEvaluator
from rankwise.inputs.checks import check_alpha, missing_note, warn_unjudged
from rankwise.inputs.columns import Reading, is_form
from rankwise.inputs.run_names import check_run_names
from rankwise.metrics.metric import Metric, make_metric
from rankwise.metrics.registry import get_spec
from rankwise.names.parse import parse_metrics
from rankwise.names.presets import resolve
from rankwise.outputs import progress

Test = Literal["t", "wilcoxon", "randomization", "tukey", "randomized_tukey"]
TESTS: tuple[str, ...] = ("t", "wilcoxon", "randomization", "tukey", "randomized_tukey")
_FAMILY_TESTS = ("tukey", "randomized_tukey")
"""Tests over all runs at once, whose p-values are adjusted over the pairs already."""
Pairs = Literal["baseline", "all"]
Runs = Annotated[Mapping[str, Any], "map each run's name to the run, e.g. {'baseline': run_a, 'new': run_b}"]
"""The runs compared, by name (its message when it is not a mapping says how to pass it)."""
PAIRS: tuple[str, ...] = ("baseline", "all")
LARGE_SAMPLE = 1_000
"""From this many queries on, compare warns against Wilcoxon's signed-rank test (Ihemelandu &
Ekstrand, Inference at scale, SIGIR 2023: at large n it rejects far more often than alpha)."""

__all__ = [
    "CORRECTIONS", "CompareOptions", "Comparison", "Correction", "Inputs", "PerQuery", "Settings", "anova", "compare",
    "comparison", "per_query_values",
]


@dataclass(frozen=True)
class Settings(_FromOptions):
    """A comparison's own keyword options, beyond those of each run's evaluation, with their
    defaults: declared here once, for :func:`compare`, :func:`comparison`,
    :func:`rankwise.reporting.report.report`, :func:`rankwise.comparison.sql.compare_sql` (those
    of :class:`PairedOptions`) and ``rankwise compare`` alike.

    - ``baseline``: the run the others are compared with (None: the first run).
    - ``pairs``: ``'baseline'``, each run against the baseline; ``'all'``, every pair of runs.
    - ``tests``: the tests (:data:`TESTS`); ``alpha``: their significance level;
      ``correction``: the multiple-comparison correction (:data:`CORRECTIONS`).
    - ``by``: segment columns of the runs (one comparison per segment).
    - ``resamples``, ``seed``: the bootstrap's and the randomization tests' resamples and seed.
    - ``engine``: the engine evaluating each run.
    - ``risk_alpha``: URisk/TRisk/GeoRisk's α (a loss weighs 1 + α); ``hurt``: a query is hurt
      when the run loses more than this.
    - ``detect``, ``power``: a difference to detect, and the power to detect it with (the
      queries a paired t-test needs, ``queries_needed``).

    >>> Settings()
    Settings(baseline=None, pairs='baseline', tests=('t',), alpha=0.05, correction='holm', by=None, resamples=10000, seed=0, engine='polars', risk_alpha=1.0, hurt=0.0, detect=None, power=0.8)
    """

    baseline: str | None = None
    pairs: Pairs = "baseline"
    tests: Sequence[Test] = ("t",)
    alpha: float = 0.05
    correction: Correction = "holm"
    by: str | Iterable[str] | None = None
    resamples: int = 10_000
    seed: int = 0
    engine: Engine = "polars"
    risk_alpha: float = 1.0
    hurt: float = 0.0
    detect: float | None = None
    power: float = 0.8


SETTING_KEYWORDS: tuple[str, ...] = tuple(f.name for f in fields(Settings))
COMPARE_KEYWORDS: tuple[str, ...] = READ_KEYWORDS + SETTING_KEYWORDS


class PairedOptions(TypedDict, total=False):
    """The options of a comparison that :func:`rankwise.comparison.sql.compare_sql` takes too:
    each optional, its meaning and default those of the :class:`Settings` field of its name."""

    baseline: str | None
    by: str | Iterable[str] | None
    risk_alpha: float
    hurt: float


class CompareOptions(PairedOptions, ReadOptions, total=False):
    """The keyword options of :func:`compare`, :func:`comparison` and
    :func:`rankwise.reporting.report.report` (``**options: Unpack[CompareOptions]``): the
    comparison's :class:`Settings` and the options of each run's evaluation,
    :class:`~rankwise.conventions.ReadOptions`; each optional, its default that of the field of
    its name.

    >>> sorted(CompareOptions.__optional_keys__) == sorted(COMPARE_KEYWORDS)
    True
    """

    pairs: Pairs
    tests: Sequence[Test]
    alpha: float
    correction: Correction
    resamples: int
    seed: int
    engine: Engine
    detect: float | None
    power: float


def split_options(options: Mapping[str, Any]) -> tuple[Settings, ReadOptions]:
    """A comparison's keyword options (:class:`CompareOptions`) as its :class:`Settings` and
    the options of each run's evaluation (the rest, as given)."""
    read = {key: value for key, value in options.items() if key not in SETTING_KEYWORDS}
    return Settings.from_options(options), cast(ReadOptions, read)


_RETRIEVED = "__rw_present"
"""The column of NumRet added to every run's evaluation: 0 marks a query the run does not
have (a run's query always retrieves something)."""


@dataclass(frozen=True)
class PerQuery:
    """Every run's per-query values on the same queries (the union over runs), in the same
    order: what every table, test and figure of a comparison is computed from."""

    keys: pl.DataFrame
    """The paired (segment..., query) keys, sorted."""
    values: dict[str, pl.DataFrame]
    """Per run: the keys and the metric columns, a query absent from the run scoring 0 (a value
    undefined for a query is NULL: the query is then left out of that metric's comparison).
    Values are rounded to 12 decimals, so that floating-point noise (a sum taken in another
    order) is neither a win nor a loss, nor a non-zero difference for the Wilcoxon test."""
    filled: dict[str, pl.DataFrame]
    """Per run (and segment): how many of the queries were absent from the run."""
    segments: list[str]
    left_out: int = 0
    """Judged queries no run has, left out (``missing='ignore'``, as :func:`rankwise.evaluate`)."""
    missing: str = "ignore"
    """The policy the queries were paired under (``missing``)."""

    def warn(self) -> None:
        """Say which run lacks how many of the paired queries (scored 0 there to pair it), and
        how many judged queries no run has (left out, under ``missing='ignore'``)."""
        total = self.keys.height
        for name, counts in self.filled.items():
            n = int(counts["filled"].sum())
            if n:
                what = "judged queries" if self.missing == "zero" else "queries compared (those some run has)"
                warn(f"run {name!r} lacks {n} of the {total} {what}: scored 0 there to pair them")
        if self.left_out:
            warn(missing_note(self.left_out, "ignore", "any run"))

    def groups(self) -> list[dict[str, Any]]:
        """The segments' values, one dict per segment ([{}] without segments)."""
        if not self.segments:
            return [{}]
        return self.keys.select(self.segments).unique(maintain_order=True).rows(named=True)

    def split(self) -> list[tuple[dict[str, Any], PerQuery]]:
        """Each segment's values as a PerQuery of its own (the frames split once, not filtered
        once per segment, run and metric): [({}, self)] without segments."""
        if not self.segments:
            return [({}, self)]

        def parts(df: pl.DataFrame) -> dict[tuple[Any, ...], pl.DataFrame]:
            return df.partition_by(self.segments, as_dict=True, maintain_order=True)

        keys = parts(self.keys)
        values = {n: parts(df) for n, df in self.values.items()}
        filled = {n: parts(df) for n, df in self.filled.items()}
        return [
            (dict(zip(self.segments, key, strict=True)),
             PerQuery(keys[key], {n: v[key] for n, v in values.items()}, {n: f[key] for n, f in filled.items()}, []))
            for key in keys
        ]

    def array(self, run: str, label: str, group: dict[str, Any] | None = None) -> Any:
        """One run's values of one metric (in one segment) as a float numpy array, NaN where
        the metric is undefined."""
        return _part(self.values[run], group or {})[label].cast(pl.Float64).to_numpy()

    def pair(self, candidate: str, baseline: str, label: str, group: dict[str, Any] | None = None) -> tuple[Any, Any]:
        """The candidate's and the baseline's values of a metric on the queries where both are
        defined (the pairs every statistic and figure uses)."""
        np, _ = numpy_scipy()
        cand, base = self.array(candidate, label, group), self.array(baseline, label, group)
        both = ~np.isnan(cand) & ~np.isnan(base)
        return cand[both], base[both]


def _part(df: pl.DataFrame, group: dict[str, Any]) -> pl.DataFrame:
    """The rows of one segment (a NULL segment value is a segment of its own)."""
    return df.filter(*[pl.col(k).eq_missing(v) for k, v in group.items()]) if group else df


def per_query_values(
    qrels: Any,
    runs: Mapping[str, Any],
    metrics: str | Metric | Iterable[str | Metric],
    *,
    by: str | Iterable[str] | None = None,
    engine: Engine = "polars",
    also: Iterable[str] = (),
    **options: Unpack[ReadOptions],
) -> PerQuery:
    """Evaluate each run once and pair the queries: those :func:`rankwise.evaluate` scores for
    some run under the same options (``missing='ignore'``, the default: the judged queries at
    least one run has; ``missing='zero'``: every judged query), a query absent from a run
    scoring 0 there (NULL for a metric undefined on an empty ranking), which a
    :class:`~rankwise.errors.RankwiseWarning` says per run. ``also``: more metrics evaluated
    in the same pass (those already asked are not asked twice)."""
    check_options("compare", options, READ_KEYWORDS)
    if isinstance(metrics, (list, tuple)) and not metrics:  # set-level metrics alone: the queries paired
        parsed: list[Metric] = []
    else:
        parsed, options = cast(tuple[list[Metric], ReadOptions], resolve(metrics, options))
    extra = parse_metrics(list(also)) if also else []
    parsed = _unique([*parsed, *extra])
    segments = [by] if isinstance(by, str) else list(by or [])
    keys = [*segments, options.get("query_id", Columns.query_id)]
    retrieved = make_metric(get_spec("NumRet"), {"judged_only": False}, None, _RETRIEVED)
    # the judgments read and prepared once for every run (an Evaluator's: their checks, and on
    # Polars their ideal orders and per-query sums)
    zero_filled: dict[str, Any] = {**options, "missing": "zero"}
    evaluator = BaseEvaluator(qrels, [*parsed, retrieved], engine=engine, **zero_filled)
    per_run: dict[str, pl.DataFrame] = {}
    with progress.task("runs", total=len(runs)) as step:
        for i, (name, run) in enumerate(runs.items()):
            step.at(i, detail=name)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    with coverage_seen() as seen:
                        per_run[name] = evaluator(run, by=segments or None)
                except RankwiseError as exc:
                    raise _of_run(exc, name) from exc
                # (with by= segments, each segment's evaluation is one more)
                warn_unjudged(sum(c.unjudged for c in seen))
            for w in caught:  # each warning names its run
                warn(f"run {name!r}: {w.message}", w.category)
    with progress.task("pairing the queries"):
        values = _pair(per_run, keys, segments, [m.label for m in parsed], options.get("missing", "ignore"))
    values.warn()
    return values


def _of_run(exc: RankwiseError, name: str) -> RankwiseError:
    """An error about one of the runs (its message speaks of "the run": a missing column, a
    bad value) naming that run first, as its warnings do; any other as it is."""
    text = str(exc)
    if not text.startswith(("the run ", "the run's ")):
        return exc
    return type(exc)(f"run {name!r}: {text}")


def _unique(parsed: list[Metric]) -> list[Metric]:
    seen: dict[str, Metric] = {}
    for m in parsed:
        seen.setdefault(m.label, m)
    return list(seen.values())


def _pair(
    per_run: dict[str, pl.DataFrame], keys: list[str], segments: list[str], labels: list[str], missing: str
) -> PerQuery:
    """Pair the queries (``missing='ignore'``: those some run has; ``'zero'``: every judged
    one), a query absent from a run scoring 0 there."""
    # runs whose id columns differ in type (integer ids in one, text in another) are paired
    # by the ids' text, as evaluate() pairs a run with qrels of another id type
    for key in keys:
        if len({df.schema[key] for df in per_run.values()}) > 1:
            per_run = {n: df.with_columns(pl.col(key).cast(pl.String)) for n, df in per_run.items()}
    # every run's evaluation holds every judged query (missing='zero'), those it lacks
    # retrieving nothing
    judged = pl.concat([df.select(keys) for df in per_run.values()]).unique()
    in_some = pl.concat([df.filter(pl.col(_RETRIEVED) > 0).select(keys) for df in per_run.values()]).unique()
    all_keys = (in_some if missing == "ignore" else judged).sort(keys)
    aligned: dict[str, pl.DataFrame] = {}
    filled: dict[str, pl.DataFrame] = {}
    for name, df in per_run.items():
        # one row per paired query, in the same order for every run (joins keep no order)
        joined = all_keys.join(df, on=keys, how="left", nulls_equal=True).sort(keys)
        was_filled = (pl.col(_RETRIEVED).fill_null(0.0) == 0).sum().alias("filled")
        filled[name] = (
            joined.group_by(segments, maintain_order=True).agg(was_filled)
            if segments else joined.select(was_filled)
        )
        # a query the run's evaluation lacks scores 0, a NULL value (undefined there: Accuracy
        # without a relevant or a non-relevant document) stays NULL
        absent = pl.col(_RETRIEVED).is_null()
        aligned[name] = joined.with_columns(
            pl.when(absent).then(_absent_value(label)).otherwise(pl.col(label)).round(12).alias(label)
            for label in labels
        ).drop(_RETRIEVED)
    return PerQuery(all_keys, aligned, filled, segments, judged.height - all_keys.height, missing)


BETTER_SIGN: dict[str, int] = {"higher": 1, "lower": -1, "neither": 0}
"""The sign that turns a metric's difference into an improvement (its spec's ``better``)."""


def better_sign(label: str) -> int:
    """1 where a higher value of the metric ``label`` is better, -1 where a lower one is
    (Unjudged@k), 0 where neither is (Judged@k, residuals): no win or loss verdict."""
    metric = metric_of_column(label)
    return BETTER_SIGN[metric.spec.better if metric is not None else "higher"]


def _absent_value(label: str) -> pl.Expr:
    """What a query absent from a run's evaluation scores: 0, or NULL for a metric undefined on
    an empty ranking (its empty value None)."""
    metric = metric_of_column(label)
    undefined = metric is not None and metric.spec.empty_value is None
    return pl.lit(None, pl.Float64) if undefined else pl.lit(0.0)


@dataclass(frozen=True)
class Comparison:
    """The result of :func:`comparison`: the table and the per-query values it was computed
    from, with the settings that made it. Figures (:func:`rankwise.reporting.plots.figures`) and reports
    (:func:`rankwise.reporting.report.write_report`) read it, so they show the table's numbers."""

    table: pl.DataFrame
    per_query: PerQuery
    metrics: list[str]
    """The labels of the metrics compared (the table's ``metric`` values), in order."""
    runs: list[str]
    baseline: str
    pairs: list[tuple[str, str]]
    """The (candidate, baseline) pairs compared."""
    tests: tuple[str, ...]
    alpha: float
    correction: str
    inputs: Inputs | None = None
    """What the comparison was computed from (for a report's provenance, explanations and
    ranking changes); None for a comparison built by hand."""

    @property
    def per_query_metrics(self) -> list[str]:
        """The labels of the metrics compared that have per-query values (not the set-level
        ones, one value per run: :func:`is_set_level`), in order."""
        return [label for label in self.metrics if not is_set_level(label)]


def is_set_level(label: str) -> bool:
    """Whether the metric ``label`` is set-level (one value per run, no per-query values)."""
    metric = metric_of_column(label)
    return metric is not None and metric.spec.aggregate == "set"


@dataclass(frozen=True)
class Inputs:
    """The inputs of a comparison as given (paths or frames, not read again here) and the
    keyword options of the call: what a report describes as its provenance and reads again
    for the few queries it explains."""

    qrels: Any
    runs: Mapping[str, Any]
    options: Mapping[str, Any] = field(default_factory=dict)
    """The evaluation options (conventions and column names; a preset's, ``like=``, made explicit)."""
    engine: str = "polars"
    by: list[str] = field(default_factory=list)
    metrics: tuple[Metric, ...] = ()
    """The metrics compared, as evaluated (a preset's parameters set)."""


def read_once(qrels: Any, runs: Mapping[str, Any], options: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The inputs of a comparison, each input given in one of the forms of :mod:`rankwise.inputs.forms`
    (records, a dict of dicts, a ranx object) read once, here, into a frame (its columns
    named as configured): an iterator of records can be read only once, and a report reads
    the inputs again (its explanations and ranking change, :mod:`rankwise.reporting.details`).
    Paths and frames are kept as they are."""
    reading = Reading.from_options(options)
    columns = Columns.from_options(options)

    def once(obj: Any, kind: Literal["run", "qrels"]) -> Any:
        return reading.prepared(obj, kind, columns).collect() if is_form(obj) else obj

    return once(qrels, "qrels"), {name: once(run, "run") for name, run in runs.items()}


@checked
def comparison(
    qrels: Any,
    runs: Runs,
    metrics: str | Metric | Iterable[str | Metric],
    *,
    also: Iterable[str] = (),
    **options: Unpack[CompareOptions],
) -> Comparison:
    """:func:`compare`, keeping the per-query values: the arguments are those of
    :func:`compare`; ``also`` names metrics evaluated with the others (in the same single
    evaluation of each run) but not compared, e.g. for figures."""
    check_options("compare", options, COMPARE_KEYWORDS)
    settings, given = split_options(options)
    # a preset (like=) made explicit once, first: what follows sees its metrics and conventions
    explicit, resolved = resolve(metrics, given)
    read = cast(ReadOptions, resolved)
    tests, alpha, correction = settings.tests, settings.alpha, settings.correction
    names, base_name, parsed, pair_list = _check_arguments(
        runs, settings.baseline, settings.pairs, tests, alpha, correction, explicit
    )
    _check_settings(settings)
    labels = [m.label for m in parsed]
    set_level = [m for m in parsed if m.spec.aggregate == "set"]
    per_query = [m for m in parsed if m.spec.aggregate != "set"]
    qrels, runs = read_once(qrels, runs, read)
    values = per_query_values(qrels, runs, per_query, by=settings.by, engine=settings.engine, also=also, **read)
    rows: list[dict[str, Any]] = []
    np, _ = numpy_scipy()
    for group, part in progress.each("statistics", values.split()):  # the line names this phase
        # scipy's and numpy's warnings on degenerate data (no spread: NaN statistics) are no
        # news: such statistics are None in the table
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            group_rows = [
                {**group, **row}
                for row in _test_group(part, names, pair_list, [m.label for m in per_query], tests, settings)
            ]
        if set_level:  # in the order the metrics were asked
            group_rows += [{**group, **row} for row in _set_rows(qrels, runs, part, set_level, pair_list, settings, read)]
            group_rows.sort(key=lambda row: labels.index(row["metric"]))
        _adjust_rows(group_rows, tests, correction, alpha)
        rows.extend(group_rows)
    _warn_large_samples(rows, tests)
    table = _assemble(rows, values.segments, tests, values.keys)
    inputs = Inputs(qrels, dict(runs), dict(read), settings.engine, values.segments, tuple(parsed))
    return Comparison(table, values, labels, names, base_name, pair_list, tuple(tests), alpha, correction, inputs)


@checked
def compare(
    qrels: Any,
    runs: Runs,
    metrics: str | Metric | Iterable[str | Metric],
    **options: Unpack[CompareOptions],
) -> pl.DataFrame:
    """Compare runs (name → any accepted input), per metric: each run against the baseline
    (``pairs='baseline'``, the default; the first run unless ``baseline`` names another) or
    every pair of runs (``pairs='all'``, the later run of the mapping against the earlier).

    Returns one row per (segment,) pair and metric: ``run`` and ``baseline`` (the two runs),
    ``mean`` and ``baseline_mean``, the mean difference ``diff`` = mean(run − baseline) and
    ``rel_diff`` (diff / baseline_mean), its BCa bootstrap interval ``ci_low``/``ci_high`` and
    t-based interval ``ci_t_low``/``ci_t_high`` (95%), the effect sizes ``d_z`` (Cohen's d of
    the differences), ``hedges_g`` and ``glass_delta`` (diff over the baseline's standard
    deviation) and ``es_anova`` (Sakai's ES_E: diff over the residual standard deviation √V_E
    of the two-way ANOVA of all runs compared, :func:`anova`), the risk against the baseline ``urisk`` and ``trisk`` (URisk_α and TRisk_α
    with α = ``risk_alpha``, Dinçer et al. 2014: each loss weighs 1 + α), ``georisk`` and
    ``baseline_georisk`` (GeoRisk_α of the two runs among all runs compared, Dinçer et al.
    2016), ``hurt`` (the share of queries where the run loses more than ``hurt``), per test
    ``p_<test>``, ``p_<test>_adj`` (corrected over all rows of a segment
    with ``correction``: ``holm``, ``bonferroni``, ``fdr_bh``, ``fdr_by`` or ``none``; Tukey's
    tests adjust over the pairs of runs themselves and are not corrected again) and
    ``sig_<test>`` (``p_<test>_adj < alpha``), ``wins``/``ties``/``losses`` over queries (the
    verdicts, wins to ``hurt`` and the risks, read each metric's better direction: a decrease of
    Unjudged@k is a win; a metric without one, Judged@k or a residual, gets none: None),
    ``queries`` (paired) and ``filled`` / ``baseline_filled`` (queries absent from the run,
    counted as 0), and with ``detect`` a difference to detect, ``queries_needed``: the queries a
    paired t-test needs to detect it with ``power`` at ``alpha``, given the observed spread of
    the differences (Sakai's topic set size design). A query where a metric is undefined in either run (NULL, e.g. Accuracy)
    leaves that pair; a pair of fewer than two queries has no p-value (and stays out of the
    correction). Per-query values are rounded to 12 decimals before pairing.

    The keyword options are :class:`CompareOptions`: the comparison's own, declared with their
    defaults by :class:`Settings` (``baseline``, ``pairs``, ``tests``, ``alpha``, ``correction``,
    ``by``, ``resamples``, ``seed``, ``engine``, ``risk_alpha``, ``hurt``, ``detect``, ``power``),
    and the conventions and column names (:class:`~rankwise.conventions.ReadOptions`), those of
    :func:`rankwise.evaluate`; a run's ``mean`` is the one ``evaluate`` gives under them wherever the runs have the
    same queries: ``missing='ignore'`` (the default) pairs the judged queries some run has,
    ``missing='zero'`` every judged query; a query a run lacks scores 0 there (``filled``,
    and a :class:`~rankwise.errors.RankwiseWarning` names the run and the count). Choosing the Wilcoxon
    test with 1,000 queries or more warns (it rejects too often at large n: Ihemelandu &
    Ekstrand, SIGIR 2023); prefer the t or randomization test and read the effect sizes.

    >>> import polars as pl
    >>> import rankwise as rw
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "relevance": [1, 0, 1]})
    >>> base = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [1.0, 2.0, 1.0]})
    >>> new = base.with_columns(score=pl.Series([2.0, 1.0, 1.0]))
    >>> t = rw.compare(qrels, {"base": base, "new": new}, "RR")
    >>> t.select("run", "baseline", "mean", "baseline_mean", "diff", "wins", "ties", "losses").row(0)
    ('new', 'base', 1.0, 0.75, 0.25, 1, 1, 0)
    """
    return comparison(qrels, runs, metrics, **options).table


def comparable(metrics: str | Metric | Iterable[str | Metric]) -> list[Metric]:
    """The metrics parsed, once checked to be comparable as a mean of per-query differences:
    numbers (not relstring's text) summarised by their mean (not GMAP's geometric mean nor the
    counts' sum), for :func:`comparison` and :func:`rankwise.comparison.sql.compare_sql` alike."""
    parsed = parse_metrics(metrics)
    for m in parsed:
        if m.spec.value_type != "float":
            raise InvalidParameterError(f"{m.label!r} is text, not a number: it cannot be compared")
    summed = [m.label for m in parsed if m.spec.aggregate not in ("mean", "set")]
    if summed:
        raise InvalidParameterError(
            f"{', '.join(summed)} {'is' if len(summed) == 1 else 'are'} not summarised by a mean over queries "
            "(GMAP and GMBpref by a geometric mean, the counts by a sum), while compare tests the mean of "
            "per-query differences: compare AP or Bpref (the per-query values of GMAP and GMBpref) and see "
            "the counts with rankwise eval"
        )
    return parsed


def _check_arguments(
    runs: Mapping[str, Any], baseline: str | None, pairs: str, tests: Sequence[Test], alpha: float,
    correction: str, metrics: str | Metric | Iterable[str | Metric],
) -> tuple[list[str], str, list[Metric], list[tuple[str, str]]]:
    """The run names, the baseline's name, the parsed metrics and the pairs to compare, once
    the arguments are checked."""
    if not isinstance(runs, Mapping):
        raise InvalidParameterError(
            f"runs must map each run's name to the run, e.g. {{'baseline': run_a, 'new': run_b}}; "
            f"got {type(runs).__name__}"
        )
    if not runs:
        raise InvalidParameterError("runs is empty: pass e.g. {'baseline': run_a, 'new': run_b}")
    names = list(runs)
    check_run_names(names)
    if len(names) < 2:
        raise InvalidParameterError(
            f"compare needs at least two runs, got one ({names[0]!r}): pass e.g. {{'baseline': run_a, 'new': run_b}}"
        )
    base_name = baseline if baseline is not None else names[0]
    if base_name not in runs:
        raise InvalidParameterError(f"baseline {base_name!r} is not one of the runs {names}")
    if pairs not in PAIRS:
        raise InvalidParameterError(f"pairs must be one of {list(PAIRS)}, got {pairs!r}")
    if isinstance(tests, str):
        raise InvalidParameterError(f"tests must be a list of test names, e.g. [{tests!r}], got the string {tests!r}")
    for t in tests:
        if t not in TESTS:
            raise InvalidParameterError(f"test must be one of {list(TESTS)}, got {t!r}")
    if len(set(tests)) < len(tests):
        raise InvalidParameterError(f"tests lists a test twice: {list(tests)}")
    if correction not in CORRECTIONS:
        raise InvalidParameterError(f"correction must be one of {list(CORRECTIONS)}, got {correction!r}")
    check_alpha(alpha)
    parsed = comparable(metrics)
    if pairs == "all":
        pair_list = [(names[j], names[i]) for i in range(len(names)) for j in range(i + 1, len(names))]
    else:
        pair_list = [(n, base_name) for n in names if n != base_name]
    return names, base_name, parsed, pair_list


def _number(value: object) -> float | None:
    """A finite real number, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _check_settings(settings: Settings) -> None:
    """Refuse a value of the settings of the statistics out of its range, naming it."""
    risk_alpha, hurt, detect, power = settings.risk_alpha, settings.hurt, settings.detect, settings.power
    check_resampling(settings.resamples, settings.seed)
    if (a := _number(risk_alpha)) is None or a < 0:
        raise InvalidParameterError(f"risk_alpha must be a finite number of at least 0, got {risk_alpha!r}")
    if (h := _number(hurt)) is None or h < 0:
        raise InvalidParameterError(f"hurt must be a finite number of at least 0 (a loss larger than it hurts), got {hurt!r}")
    if detect is not None and ((d := _number(detect)) is None or d <= 0):
        raise InvalidParameterError(f"detect must be a finite difference above 0, got {detect!r}")
    if (pw := _number(power)) is None or not 0 < pw < 1:
        raise InvalidParameterError(f"power must be between 0 and 1, got {power!r}")


def _test_group(
    values: PerQuery, names: list[str], pair_list: list[tuple[str, str]],
    labels: list[str], tests: Sequence[Test], settings: Settings,
) -> list[dict[str, Any]]:
    """The rows of one segment (``values`` holds that segment only), one per metric and pair:
    means, difference, intervals, effect sizes, risk, wins/ties/losses and the p-values of the
    tests (not yet corrected). Tukey's HSD, the ANOVA's residual and GeoRisk are computed on the
    queries where every run is defined; the bootstrap draws its resamples once per pair."""
    np, stats = numpy_scipy()
    per_label: dict[str, tuple[dict[str, Any], float | None, dict[str, float | None]]] = {}
    for label in labels:
        arrays = {n: values.array(n, label) for n in names}
        everywhere = np.all([~np.isnan(a) for a in arrays.values()], axis=0)
        matrix = np.array([arrays[n][everywhere] for n in names])
        family: dict[str, Any] = {}
        residual = None
        if everywhere.sum() >= 2:
            if "tukey" in tests:
                family["tukey"] = stats.tukey_hsd(*matrix).pvalue
            if "randomized_tukey" in tests:
                family["randomized_tukey"] = randomized_tukey(matrix, settings.resamples, settings.seed)
            residual = anova_two_way(matrix)["residual"]["mean_sq"]
        geo = dict(zip(names, _georisk(matrix, settings.risk_alpha, better_sign(label)), strict=True))
        per_label[label] = (family, residual, geo)
    pairs = {(name, base): {label: values.pair(name, base, label) for label in labels} for name, base in pair_list}
    boots = {
        key: dict(zip(labels, bootstrap_bca_many([c - b for c, b in by_label.values()], settings.resamples, settings.seed), strict=True))
        for key, by_label in pairs.items()
    }
    filled = {n: int(values.filled[n]["filled"][0]) for n in names}
    rows: list[dict[str, Any]] = []
    for label in labels:
        family, residual, geo = per_label[label]
        for name, base_name in pair_list:
            cand, base = pairs[(name, base_name)][label]
            row: dict[str, Any] = {
                "run": name, "baseline": base_name, "metric": label,
                "mean": float(cand.mean()) if cand.size else None,
                "baseline_mean": float(base.mean()) if base.size else None,
                "queries": int(cand.size), "filled": filled[name], "baseline_filled": filled[base_name],
            }
            row.update(_differences(cand, base, row["baseline_mean"], boots[(name, base_name)][label], settings, better_sign(label)))
            row.update(georisk=geo[name], baseline_georisk=geo[base_name])
            row["es_anova"] = row["diff"] / residual**0.5 if row["diff"] is not None and residual else None
            for t in tests:
                if t == "t" or t == "wilcoxon" or t == "randomization":
                    row[f"p_{t}"] = paired_pvalue(t, cand, base, settings.resamples, settings.seed) if cand.size >= 2 else None
                else:  # a test over all runs at once: its matrix of p-values (NaN, undefined, as None)
                    found = family.get(t)
                    p = float(found[names.index(name)][names.index(base_name)]) if found is not None else None
                    row[f"p_{t}"] = None if p is None or np.isnan(p) else p
            rows.append(row)
    return rows


SET_GROUP_ROWS = 5_000_000
"""The (resample, user) draws of a set-level bootstrap evaluated at once (:func:`_set_rows`)."""


def _set_rows(
    qrels: Any, runs: Mapping[str, Any], values: PerQuery, metrics: list[Metric],
    pair_list: list[tuple[str, str]], settings: Settings, read: ReadOptions,
) -> list[dict[str, Any]]:
    """The rows of the set-level ``metrics`` in one segment (``values`` holds its paired users),
    one per metric and pair: each run's value over every paired user once (``mean``,
    ``baseline_mean``), their difference, and its 95% bootstrap interval (``ci_low``,
    ``ci_high``): the users resampled with replacement ``settings.resamples`` times
    (``settings.seed``), the same draws for every run, the set value recomputed on each resample
    by the engine (a user drawn twice counts twice), the percentiles of the resampled
    differences shifted by their bias, observed − mean resampled (Efron & Tibshirani, An
    Introduction to the Bootstrap, 1993, ch. 10): a resample holds about 63% of the distinct
    users, which lowers coverage-like values and their differences. The per-query statistics
    (tests, effect sizes, wins) have no set-level counterpart: None; ``queries`` counts the users."""
    from rankwise._polars.sets import GROUP, TIMES
    from rankwise.evaluation.evaluate import set_level

    np, _ = numpy_scipy()
    users = values.keys
    n = users.height
    rng = np.random.default_rng(settings.seed)
    by = values.segments
    found: dict[str, list[pl.DataFrame]] = {name: [] for name in runs}

    def evaluate_groups(frame: pl.DataFrame) -> None:
        for name, run in runs.items():
            try:
                got = set_level(qrels, run, metrics, user_groups=frame, by=by, engine=settings.engine, **read)
            except RankwiseError as exc:
                raise _of_run(exc, name) from exc
            found[name].append(got)

    # group 0: every paired user once; groups 1..resamples: the bootstrap's draws
    evaluate_groups(users.with_columns(pl.lit(0, pl.Int64).alias(GROUP), pl.lit(1.0).alias(TIMES)))
    chunk = max(1, SET_GROUP_ROWS // max(n, 1))
    with progress.task("bootstrap of the set-level metrics", total=settings.resamples) as step:
        for start in range(0, settings.resamples if n else 0, chunk):
            size = min(chunk, settings.resamples - start)
            step.at(start)
            counts = rng.multinomial(n, np.full(n, 1.0 / n), size=size)
            draw, user = np.nonzero(counts)
            frame = users[user.tolist()].with_columns(
                pl.Series(GROUP, (draw + start + 1).astype(np.int64)), pl.Series(TIMES, counts[draw, user].astype(np.float64))
            )
            evaluate_groups(frame)
    tables = {name: pl.concat(parts).sort(GROUP) for name, parts in found.items()}
    rows: list[dict[str, Any]] = []
    for m in metrics:
        label = m.label
        for name, base_name in pair_list:
            cand, base = tables[name][label].to_numpy(), tables[base_name][label].to_numpy()
            mean, baseline_mean = _number(cand[0]) if n else None, _number(base[0]) if n else None
            diff = mean - baseline_mean if mean is not None and baseline_mean is not None else None
            d = cand[1:] - base[1:]
            d = d[~np.isnan(d)]
            low = high = None
            if d.size and diff is not None:
                # recentred on the observed difference: a resample repeats users and so lists
                # fewer distinct ones, which lowers coverage-like values (their difference too)
                low, high = (float(v) + diff - float(d.mean()) for v in np.percentile(d, [2.5, 97.5]))
            row: dict[str, Any] = {c: None for c in STAT_COLUMNS} | {c: None for c in COUNT_COLUMNS}
            row.update({
                "run": name, "baseline": base_name, "metric": label, "mean": mean, "baseline_mean": baseline_mean,
                "diff": diff, "rel_diff": diff / baseline_mean if diff is not None and baseline_mean else None,
                "ci_low": low, "ci_high": high, "queries": n,
            })
            for t in settings.tests:
                row[f"p_{t}"] = None
            rows.append(row)
    return rows


def _differences(
    cand: Any, base: Any, baseline_mean: float | None, boot: tuple[float, float] | None, settings: Settings,
    sign: int = 1,
) -> dict[str, Any]:
    """The mean paired difference (absolute and relative), its intervals (``boot``: the BCa
    interval), effect sizes and risk, the queries needed to detect ``detect``, and the wins,
    ties and losses over queries (None where there is no pair). The verdicts (wins, ties and
    losses, hurt, URisk and TRisk) read the improvement ``sign`` · d (:func:`better_sign`: a
    decrease of a lower-is-better metric is a win); a metric without a better direction
    (``sign`` 0) gets none."""
    d = cand - base
    diff = float(d.mean()) if d.size else None
    needed = None
    if settings.detect is not None and d.size >= 2:
        needed = topic_set_size(float(d.std(ddof=1)), settings.detect, alpha=settings.alpha, power=settings.power)
    t_ci = t_interval(d)
    gain = sign * d
    wins, ties, losses = outcomes(gain) if sign else (None, None, None)
    return {
        "diff": diff,
        "rel_diff": diff / baseline_mean if diff is not None and baseline_mean else None,
        "ci_low": boot[0] if boot else None, "ci_high": boot[1] if boot else None,
        "ci_t_low": t_ci[0] if t_ci else None, "ci_t_high": t_ci[1] if t_ci else None,
        **effect_sizes(cand, base),
        **(risk(gain, settings.risk_alpha) if sign else {"urisk": None, "trisk": None}),
        "hurt": float((gain < -settings.hurt).mean()) if d.size and sign else None,
        "queries_needed": needed,
        "wins": wins, "ties": ties, "losses": losses,
    }


def _georisk(matrix: Any, alpha: float, sign: int) -> list[float | None]:
    """GeoRisk of every run on one metric (:func:`rankwise.comparison.statistics.georisk`, defined for
    non-negative scores where higher is better): of a lower-is-better metric whose values lie in
    [0, 1] (Unjudged@k), on their complement 1 − x (Judged@k), so that a decrease counts as the
    improvement; None for a metric without a better direction or otherwise bounded."""
    np, _ = numpy_scipy()
    x = np.asarray(matrix, dtype=np.float64)
    if sign == 1:
        return georisk(x, alpha)
    if sign == -1 and x.size and float(x.min()) >= 0 and float(x.max()) <= 1:
        return georisk(1.0 - x, alpha)
    return [None] * (x.shape[0] if x.ndim == 2 else 0)


def _adjust_rows(rows: list[dict[str, Any]], tests: Sequence[Test], correction: Correction, alpha: float) -> None:
    """Add each test's corrected p-values (over the rows of a segment that have one) and
    significance at ``alpha``."""
    for t in tests:
        idx = [j for j, r in enumerate(rows) if r[f"p_{t}"] is not None]
        # Tukey's HSD (either form) adjusts over all pairs of runs itself: no second correction
        adjusted = adjust([rows[j][f"p_{t}"] for j in idx], "none" if t in _FAMILY_TESTS else correction)
        for row in rows:
            row[f"p_{t}_adj"] = None
            row[f"sig_{t}"] = None
        for j, p in zip(idx, adjusted, strict=True):
            rows[j][f"p_{t}_adj"] = p
            rows[j][f"sig_{t}"] = p < alpha


def _warn_large_samples(rows: list[dict[str, Any]], tests: Sequence[Test]) -> None:
    n = max((r["queries"] for r in rows), default=0)
    if "wilcoxon" in tests and n >= LARGE_SAMPLE:
        warn(
            f"the Wilcoxon signed-rank test on {n} queries rejects far more often than alpha at this "
            "size (Ihemelandu & Ekstrand, Inference at scale, SIGIR 2023): prefer tests=['t'] or "
            "['randomization'] and read the effect sizes (d_z, hedges_g) and intervals"
        )


STAT_COLUMNS: tuple[str, ...] = (
    "mean", "baseline_mean", "diff", "rel_diff", "ci_low", "ci_high", "ci_t_low", "ci_t_high",
    "d_z", "hedges_g", "glass_delta", "es_anova", "urisk", "trisk", "georisk", "baseline_georisk", "hurt",
)
COUNT_COLUMNS: tuple[str, ...] = ("wins", "ties", "losses", "queries", "filled", "baseline_filled", "queries_needed")


def _assemble(rows: list[dict[str, Any]], segments: list[str], tests: Sequence[Test], keys: pl.DataFrame) -> pl.DataFrame:
    """The result frame: its columns in order, with their types."""
    columns = [*segments, "run", "baseline", "metric", *STAT_COLUMNS]
    for t in tests:
        columns += [f"p_{t}", f"p_{t}_adj", f"sig_{t}"]
    columns += COUNT_COLUMNS
    schema: dict[str, Any] = {c: pl.Float64 for c in columns}
    schema.update({c: pl.Int64 for c in COUNT_COLUMNS})
    schema.update({"run": pl.String, "baseline": pl.String, "metric": pl.String})
    schema.update({f"sig_{t}": pl.Boolean for t in tests})
    for s in segments:
        schema[s] = keys.schema[s]
    return pl.DataFrame(rows, schema=schema, orient="row").select(columns)


@checked
def anova(
    qrels: Any,
    runs: Runs,
    metrics: str | Metric | Iterable[str | Metric],
    *,
    by: str | Iterable[str] | None = None,
    engine: Engine = "polars",
    **options: Unpack[ReadOptions],
) -> pl.DataFrame:
    """Two-way ANOVA without replication (system × query) of each metric, over the queries where
    every run is defined (a query missing from a run counts 0 there, as in :func:`compare`):
    one row per (segment,) metric and source (``system``, ``topic``, ``residual``) with ``df``,
    ``sum_sq``, ``mean_sq``, ``F``, ``p``, ``eta_sq`` and ``partial_eta_sq``, as statsmodels'
    ``anova_lm`` lays it out (see :func:`rankwise.comparison.statistics.anova_two_way`). Sakai's effect
    size of a pair, diff / √(the residual ``mean_sq``), is ``compare``'s ``es_anova``. A metric
    (of a segment) defined for fewer than two queries in every run is refused
    (:class:`~rankwise.errors.InvalidParameterError`): its table has no degrees of freedom."""
    check_options("anova", options, READ_KEYWORDS)
    names, _, parsed, _ = _check_arguments(runs, None, "all", (), 0.05, "none", metrics)
    labels = [m.label for m in parsed]
    values = per_query_values(qrels, runs, parsed, by=by, engine=engine, **options)
    np, _ = numpy_scipy()
    rows: list[dict[str, Any]] = []
    for group in values.groups():
        for label in labels:
            arrays = [values.array(n, label, group) for n in names]
            everywhere = np.all([~np.isnan(a) for a in arrays], axis=0)
            if everywhere.sum() < 2:
                where = "".join(f", {k}={v!r}" for k, v in group.items())
                raise InvalidParameterError(
                    f"anova needs at least two queries where every run has a value of {label}{where}, "
                    f"found {int(everywhere.sum())}: the topic and residual terms have no degrees of freedom"
                )
            table = anova_two_way(np.array([a[everywhere] for a in arrays]))
            rows.extend({**group, "metric": label, "source": source, **cells} for source, cells in table.items())
    columns = [*values.segments, "metric", "source", "df", "sum_sq", "mean_sq", "F", "p", "eta_sq", "partial_eta_sq"]
    schema: dict[str, Any] = {c: pl.Float64 for c in columns}
    schema.update({"metric": pl.String, "source": pl.String, **{s: values.keys.schema[s] for s in values.segments}})
    return pl.DataFrame(rows, schema=schema, orient="row").select(columns)
