"""Is the new ranking better? Paired comparison of runs on per-query values.

:func:`compare` evaluates every run on the same queries (a query missing from a run counts
as 0 there, trec_eval ``-c``), and for each run × metric reports the mean, the difference
to the baseline (absolute and relative), a paired bootstrap confidence interval of the mean
difference, p-values of paired tests, the p-values after multiple-comparison correction,
significance at ``alpha``, and wins / ties / losses over queries.

Tests (``tests=``): ``"t"`` (Student's paired t-test, scipy.stats.ttest_rel), ``"wilcoxon"``
(signed-rank, scipy.stats.wilcoxon), ``"randomization"`` (Fisher's paired randomization test:
random sign flips of the differences, ``resamples`` of them in blocks, seeded), ``"tukey"``
(Tukey's HSD across all runs, scipy.stats.tukey_hsd; not paired). Needs numpy and scipy:
``pip install 'rankwise[stats]'``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from rankwise.conventions import Columns, EvaluationOptions, Unpack, check_options
from rankwise.errors import InvalidParameterError, MissingExtraError
from rankwise.evaluate import Engine, evaluate, metric_of_column
from rankwise.metric import Metric, make_metric
from rankwise.names import parse_metrics
from rankwise.registry import get_spec

Test = Literal["t", "wilcoxon", "randomization", "tukey"]
TESTS: tuple[str, ...] = ("t", "wilcoxon", "randomization", "tukey")
Correction = Literal["holm", "bonferroni", "none"]
_BLOCK_ELEMENTS = 4_000_000
"""Resamples are drawn in blocks of at most this many (resample, query) cells (~32 MB of
float64), so 100,000 queries x 10,000 resamples runs in bounded memory."""


def _block(n: int, remaining: int) -> int:
    return max(1, min(remaining, _BLOCK_ELEMENTS // max(n, 1)))


def _stats() -> tuple[Any, Any]:
    try:
        import numpy as np
        from scipy import stats
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingExtraError(
            "rankwise.compare needs numpy and scipy: pip install 'rankwise[stats]'"
        ) from exc
    return np, stats


def adjust(pvalues: Sequence[float], method: Correction) -> list[float]:
    """Multiple-comparison correction: Holm–Bonferroni (step-down), Bonferroni, or none.

    >>> [round(p, 3) for p in adjust([0.01, 0.04, 0.03, 0.005], "holm")]
    [0.03, 0.06, 0.06, 0.02]
    >>> adjust([0.01, 0.04], "bonferroni")
    [0.02, 0.08]
    """
    m = len(pvalues)
    if method == "none":
        return list(pvalues)
    if method == "bonferroni":
        return [min(1.0, p * m) for p in pvalues]
    if method != "holm":
        raise InvalidParameterError(f"correction must be one of ['holm', 'bonferroni', 'none'], got {method!r}")
    order = sorted(range(m), key=lambda i: pvalues[i])
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out


def randomization_pvalue(diffs: Any, resamples: int, seed: int) -> float:
    """Two-sided paired randomization test of mean(diffs) = 0 by random sign flips, drawn in
    blocks of rows so memory stays bounded: p = (1 + #{|mean*| ≥ |mean|}) / (1 + resamples)."""
    np, _ = _stats()
    d = np.asarray(diffs, dtype=np.float64)
    if d.size == 0:
        return 1.0
    observed = abs(d.mean())
    rng = np.random.default_rng(seed)
    hits = 0
    done = 0
    tol = 1e-12 * max(1.0, observed)
    while done < resamples:
        block = _block(d.size, resamples - done)
        signs = rng.integers(0, 2, size=(block, d.size), dtype=np.int8) * 2 - 1
        means = np.abs(signs @ d) / d.size
        hits += int((means >= observed - tol).sum())
        done += block
    return float((hits + 1) / (resamples + 1))


def bootstrap_ci(diffs: Any, resamples: int, seed: int, level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean paired difference (queries resampled)."""
    np, _ = _stats()
    d = np.asarray(diffs, dtype=np.float64)
    if d.size == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    means = []
    done = 0
    while done < resamples:
        block = _block(d.size, resamples - done)
        idx = rng.integers(0, d.size, size=(block, d.size))
        means.append(d[idx].mean(axis=1))
        done += block
    all_means = np.concatenate(means)
    lo, hi = np.quantile(all_means, [(1 - level) / 2, 1 - (1 - level) / 2])
    return float(lo), float(hi)


def _paired_pvalue(test: str, cand: Any, base: Any, resamples: int, seed: int) -> float:
    np, stats = _stats()
    d = cand - base
    if test == "randomization":
        return randomization_pvalue(d, resamples, seed)
    if np.allclose(d, 0.0):
        return 1.0
    if test == "t":
        return float(stats.ttest_rel(cand, base).pvalue)
    return float(stats.wilcoxon(cand, base).pvalue)


def compare(
    qrels: Any,
    runs: Mapping[str, Any],
    metrics: str | Metric | Iterable[str | Metric],
    *,
    baseline: str | None = None,
    tests: Sequence[Test] = ("t",),
    alpha: float = 0.05,
    correction: Correction = "holm",
    by: str | Iterable[str] | None = None,
    resamples: int = 10_000,
    seed: int = 0,
    engine: Engine = "polars",
    **options: Unpack[EvaluationOptions],
) -> pl.DataFrame:
    """Compare runs (name → any accepted input) against a baseline, per metric.

    Returns one row per (segment,) run and metric: ``mean``, ``baseline_mean``, ``diff``,
    ``rel_diff``, ``ci_low``/``ci_high`` (paired bootstrap, 95%), per test ``p_<test>``,
    ``p_<test>_adj`` (corrected over all run × metric rows of a segment) and ``sig_<test>``,
    ``wins``/``ties``/``losses`` over queries, ``queries`` and ``filled`` (queries absent from
    the run, counted as 0). The baseline's own rows have null statistics. Per-query values are
    rounded to 12 decimals before pairing, so that floating-point noise (a sum taken in another
    order) is neither a win nor a loss, nor a non-zero difference for the Wilcoxon test.

    The keyword ``options`` (conventions and column names,
    :class:`~rankwise.conventions.EvaluationOptions`) are those of :func:`rankwise.evaluate`,
    but for ``missing``: every run is evaluated with ``missing='zero'``.
    """
    check_options("compare", options)
    _np, stats = _stats()
    names, base_name, parsed = _check_arguments(runs, baseline, tests, alpha, metrics)
    labels = [m.label for m in parsed]
    segments = [by] if isinstance(by, str) else list(by or [])
    keys = [*segments, options.get("query_id", Columns.query_id)]
    per_run = _evaluate_runs(qrels, runs, parsed, segments, engine, options)
    paired = _pair(per_run, keys, segments, labels)
    rows: list[dict[str, Any]] = []
    for group in paired.groups():
        group_rows = _test_group(paired, group, names, base_name, labels, tests, resamples, seed, stats)
        _adjust_rows(group_rows, tests, correction, alpha)
        rows.extend(group_rows)
    return _assemble(rows, segments, tests, paired.keys)


def _check_arguments(
    runs: Mapping[str, Any], baseline: str | None, tests: Sequence[Test], alpha: float,
    metrics: str | Metric | Iterable[str | Metric],
) -> tuple[list[str], str, list[Metric]]:
    """The run names, the baseline's name and the parsed metrics, once the arguments are
    checked."""
    if not runs:
        raise InvalidParameterError("runs is empty: pass e.g. {'baseline': run_a, 'new': run_b}")
    names = list(runs)
    base_name = baseline if baseline is not None else names[0]
    if base_name not in runs:
        raise InvalidParameterError(f"baseline {base_name!r} is not one of the runs {names}")
    for t in tests:
        if t not in TESTS:
            raise InvalidParameterError(f"test must be one of {list(TESTS)}, got {t!r}")
    if not 0 < alpha < 1:
        raise InvalidParameterError(f"alpha must be between 0 and 1, got {alpha!r}")
    parsed = parse_metrics(metrics)
    for m in parsed:
        if m.spec.value_type != "float":
            raise InvalidParameterError(f"{m.label!r} is text, not a number: it cannot be compared")
    return names, base_name, parsed


_RETRIEVED = "__rw_retrieved"
"""The column of NumRet added to every run's evaluation: 0 marks a query the run does not
have (a run's query always retrieves something)."""


def _evaluate_runs(
    qrels: Any, runs: Mapping[str, Any], parsed: list[Metric], segments: list[str], engine: Engine,
    options: EvaluationOptions,
) -> dict[str, pl.DataFrame]:
    """Each run's per-query values (and NumRet), a query missing from the run scored 0."""
    retrieved = make_metric(get_spec("NumRet"), {}, None, _RETRIEVED)
    zero_filled: EvaluationOptions = {**options, "missing": "zero"}
    return {
        name: evaluate(run, qrels, [*parsed, retrieved], engine=engine, by=segments or None, **zero_filled)
        for name, run in runs.items()
    }


@dataclass(frozen=True)
class _Paired:
    """Every run's values on the same queries (the union over runs), in the same order."""

    keys: pl.DataFrame
    """The paired (segment..., query) keys, sorted."""
    values: dict[str, pl.DataFrame]
    """Per run: the keys and the metric columns, a query absent from the run scoring 0 (a value
    undefined for a query is NULL: the query is then left out of that metric's comparison)."""
    filled: dict[str, pl.DataFrame]
    """Per run (and segment): how many of the queries were absent from the run."""
    segments: list[str]

    def groups(self) -> list[dict[str, Any]]:
        """The segments' values, one dict per segment ([{}] without segments)."""
        if not self.segments:
            return [{}]
        return self.keys.select(self.segments).unique(maintain_order=True).rows(named=True)


def _part(df: pl.DataFrame, group: dict[str, Any]) -> pl.DataFrame:
    """The rows of one segment (a NULL segment value is a segment of its own)."""
    return df.filter(*[pl.col(k).eq_missing(v) for k, v in group.items()]) if group else df


def _pair(per_run: dict[str, pl.DataFrame], keys: list[str], segments: list[str], labels: list[str]) -> _Paired:
    """Pair the queries: the union over runs, a query absent from a run scoring 0 there."""
    # runs whose id columns differ in type (integer ids in one, text in another) are paired
    # by the ids' text, as evaluate() pairs a run with qrels of another id type
    for key in keys:
        if len({df.schema[key] for df in per_run.values()}) > 1:
            per_run = {n: df.with_columns(pl.col(key).cast(pl.String)) for n, df in per_run.items()}
    all_keys = pl.concat([df.select(keys) for df in per_run.values()]).unique().sort(keys)
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
        # rounded to 12 decimals: floating-point noise (sums in another order) is no win or loss;
        # a query the run's evaluation lacks scores 0, a NULL value (undefined there: Accuracy
        # without a relevant or a non-relevant document) stays NULL
        absent = pl.col(_RETRIEVED).is_null()
        aligned[name] = joined.with_columns(
            pl.when(absent).then(_absent_value(label)).otherwise(pl.col(label)).round(12).alias(label)
            for label in labels
        ).drop(_RETRIEVED)
    return _Paired(all_keys, aligned, filled, segments)


def _absent_value(label: str) -> pl.Expr:
    """What a query absent from a run's evaluation scores: 0, or NULL for a metric undefined on
    an empty ranking (its empty value None)."""
    metric = metric_of_column(label)
    undefined = metric is not None and metric.spec.empty_value is None
    return pl.lit(None, pl.Float64) if undefined else pl.lit(0.0)


def _test_group(
    paired: _Paired, group: dict[str, Any], names: list[str], base_name: str, labels: list[str],
    tests: Sequence[Test], resamples: int, seed: int, stats: Any,
) -> list[dict[str, Any]]:
    """The rows of one segment, one per metric and run: means, difference to the baseline,
    bootstrap interval, wins/ties/losses and the p-values of the tests (not yet corrected).

    A query where a metric is undefined (NULL, e.g. Accuracy without a non-relevant document)
    leaves the pairs it is in: each run is compared with the baseline on the queries where
    both are defined (Tukey's HSD: where every run is); a comparison of fewer than two
    queries has no p-value (and stays out of the correction)."""
    np, _ = _stats()
    rows: list[dict[str, Any]] = []
    for label in labels:
        values = {n: _part(paired.values[n], group)[label].cast(pl.Float64).to_numpy() for n in {*names, base_name}}
        known = {n: ~np.isnan(v) for n, v in values.items()}
        tukey = None
        if "tukey" in tests and len(names) > 1:
            everywhere = np.all(list(known.values()), axis=0)
            if everywhere.sum() >= 2:
                tukey = stats.tukey_hsd(*[values[n][everywhere] for n in names]).pvalue
        for i, name in enumerate(names):
            both = known[name] & known[base_name]
            cand, base = values[name][both], values[base_name][both]
            row: dict[str, Any] = {
                **group, "run": name, "metric": label,
                "mean": float(cand.mean()) if cand.size else None,
                "baseline_mean": float(base.mean()) if base.size else None,
                "queries": int(cand.size), "filled": int(_part(paired.filled[name], group)["filled"][0]),
            }
            if name == base_name:
                row.update({"diff": None, "rel_diff": None, "ci_low": None, "ci_high": None,
                            "wins": None, "ties": None, "losses": None})
                for t in tests:
                    row[f"p_{t}"] = None
            elif cand.size == 0:
                row.update({"diff": None, "rel_diff": None, "ci_low": None, "ci_high": None,
                            "wins": 0, "ties": 0, "losses": 0})
                for t in tests:
                    row[f"p_{t}"] = None
            else:
                row.update(_differences(cand - base, row["baseline_mean"], resamples, seed))
                for t in tests:
                    if t == "tukey":
                        row["p_tukey"] = float(tukey[i][names.index(base_name)]) if tukey is not None else None
                    elif cand.size < 2:
                        row[f"p_{t}"] = None
                    else:
                        row[f"p_{t}"] = _paired_pvalue(t, cand, base, resamples, seed)
            rows.append(row)
    return rows


def _differences(d: Any, baseline_mean: float, resamples: int, seed: int) -> dict[str, Any]:
    """The mean paired difference (absolute and relative), its bootstrap interval, and the
    wins, ties and losses over queries."""
    diff = float(d.mean())
    lo, hi = bootstrap_ci(d, resamples, seed)
    return {
        "diff": diff,
        "rel_diff": diff / baseline_mean if baseline_mean else None,
        "ci_low": lo, "ci_high": hi,
        "wins": int((d > 0).sum()), "ties": int((d == 0).sum()), "losses": int((d < 0).sum()),
    }


def _adjust_rows(rows: list[dict[str, Any]], tests: Sequence[Test], correction: Correction, alpha: float) -> None:
    """Add each test's corrected p-values (over the rows of a segment that have one) and
    significance at ``alpha``."""
    for t in tests:
        idx = [j for j, r in enumerate(rows) if r[f"p_{t}"] is not None]
        adjusted = adjust([rows[j][f"p_{t}"] for j in idx], correction)
        for row in rows:
            row[f"p_{t}_adj"] = None
            row[f"sig_{t}"] = None
        for j, p in zip(idx, adjusted, strict=True):
            rows[j][f"p_{t}_adj"] = p
            rows[j][f"sig_{t}"] = p < alpha


def _assemble(rows: list[dict[str, Any]], segments: list[str], tests: Sequence[Test], keys: pl.DataFrame) -> pl.DataFrame:
    """The result frame: its columns in order, with their types."""
    columns = [*segments, "run", "metric", "mean", "baseline_mean", "diff", "rel_diff", "ci_low", "ci_high"]
    for t in tests:
        columns += [f"p_{t}", f"p_{t}_adj", f"sig_{t}"]
    columns += ["wins", "ties", "losses", "queries", "filled"]
    schema: dict[str, Any] = {c: pl.Float64 for c in columns}
    schema.update({c: pl.Int64 for c in ("wins", "ties", "losses", "queries", "filled")})
    schema.update({"run": pl.String, "metric": pl.String})
    schema.update({f"sig_{t}": pl.Boolean for t in tests})
    for s in segments:
        schema[s] = keys.schema[s]
    return pl.DataFrame(rows, schema=schema, orient="row").select(columns)
