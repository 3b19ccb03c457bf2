"""The runs × metrics summary of a comparison: each run's mean per metric, the best run per
metric, and compact significance marks as ranx prints them.

Each run gets a letter (a, b, c, ... in the order of the runs; after z: aa, ab, ...). A run's
cell lists the letters of the runs it is significantly better than, by the comparison's own
first test, correction and alpha (``sig_<test>`` of :func:`rankwise.compare`'s table, the
difference's sign saying which run is better). With ``pairs='baseline'`` only the pairs with
the baseline were tested, so only they can be marked (the baseline's cell then lists the
runs significantly worse than it). :func:`summary` returns the values, the marks and the best
runs as aligned frames (plain data: the report, the Markdown and LaTeX tables of
:mod:`rankwise.reporting.tables` and a terminal table all read them) and the legend.

>>> import polars as pl
>>> import rankwise as rw
>>> from rankwise.comparison.paired import comparison
>>> qrels = pl.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["a", "b", "c"], "relevance": [1, 1, 1]})
>>> base = pl.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["x", "b", "y"], "score": [1.0, 1.0, 1.0]})
>>> s = summary(comparison(qrels, {"base": base, "new": qrels.rename({"relevance": "score"})}, ["P@1", "RR"]))
>>> s.means
shape: (2, 4)
┌──────┬────────┬──────────┬──────────┐
│ run  ┆ letter ┆ P@1      ┆ RR       │
│ ---  ┆ ---    ┆ ---      ┆ ---      │
│ str  ┆ str    ┆ f64      ┆ f64      │
╞══════╪════════╪══════════╪══════════╡
│ base ┆ a      ┆ 0.333333 ┆ 0.333333 │
│ new  ┆ b      ┆ 1.0      ┆ 1.0      │
└──────┴────────┴──────────┴──────────┘
>>> s.best.row(1), s.marks.row(1)  # three queries: no difference is significant
(('new', 'b', True, True), ('new', 'b', '', ''))
>>> print(s.legend)
Bold: the best mean per metric. Superscript letters: the runs a run is significantly better than (paired t-test, Holm-corrected, p < 0.05; each run against the baseline (base) only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from rankwise.comparison.paired import BETTER_SIGN, Comparison
from rankwise.metrics.spec import Better

TEST_NAMES: dict[str, str] = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "randomization": "paired randomization test",
    "tukey": "Tukey's HSD",
    "randomized_tukey": "randomised Tukey HSD",
}
"""Each test of :data:`rankwise.comparison.paired.TESTS` in words."""

CORRECTION_NAMES: dict[str, str] = {
    "holm": "Holm-corrected",
    "bonferroni": "Bonferroni-corrected",
    "fdr_bh": "Benjamini-Hochberg-corrected",
    "fdr_by": "Benjamini-Yekutieli-corrected",
    "none": "uncorrected",
}
"""Each correction of :data:`rankwise.comparison.statistics.CORRECTIONS` in words."""


@dataclass(frozen=True)
class Summary:
    """A comparison's runs × metrics summary: three frames with the same rows (one per
    (segment...,) run, in the comparison's order of runs) and the same columns (the segment
    columns, ``run``, ``letter``, then one column per metric)."""

    means: pl.DataFrame
    """Each run's mean per metric (Float64; None where the metric is undefined everywhere)."""
    marks: pl.DataFrame
    """Per metric, the letters of the runs the row's run is significantly better than, in
    letter order, as one string ("" for none)."""
    best: pl.DataFrame
    """Per metric, whether the row's run has the largest mean (of its segment; ties are all best)."""
    metrics: list[str]
    segments: list[str]
    legend: str
    """The marks explained: the test, its correction, alpha and the pairs tested."""
    test: str | None
    """The test the marks read (the comparison's first), None when no test was run."""


def letter(index: int) -> str:
    """The letter of the run at ``index`` (0 → a, 25 → z, 26 → aa, ...).

    >>> [letter(i) for i in (0, 1, 25, 26, 27)]
    ['a', 'b', 'z', 'aa', 'ab']
    """
    text = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        text = chr(ord("a") + rest) + text
    return text


def _directions(result: Comparison) -> dict[str, Better]:
    """Each metric's better direction (its spec's ``better``)."""
    from rankwise.evaluation.evaluate import metric_of_column

    out: dict[str, Better] = {}
    for label in result.metrics:
        m = metric_of_column(label)
        out[label] = m.spec.better if m is not None else "higher"
    return out


def _directions_note(result: Comparison) -> str:
    """The metrics whose better direction is not up, in a sentence (or nothing)."""
    direction = _directions(result)
    lower = [m for m, d in direction.items() if d == "lower"]
    neither = [m for m, d in direction.items() if d == "neither"]
    parts = []
    if lower:
        parts.append(f"Lower is better for {', '.join(lower)}.")
    if neither:
        parts.append(f"{', '.join(neither)} {'has' if len(neither) == 1 else 'have'} no better direction "
                     "(no best, no letters).")
    return (" " + " ".join(parts)) if parts else ""


def _set_note(result: Comparison) -> str:
    """The set-level metrics, in a sentence (or nothing): one value per run, no test."""
    per_query = set(result.per_query_metrics)
    listed = [m for m in result.metrics if m not in per_query]
    if not listed:
        return ""
    return (f" {', '.join(listed)} {'is' if len(listed) == 1 else 'are'} one value per run (set-level: no "
            "significance test; the table of differences gives a bootstrap interval over the users).")


def legend(result: Comparison, best: str = "Bold") -> str:
    """What the summary's marks mean, in one sentence per mark (``best``: how the best mean per
    metric is marked, e.g. ``*`` in a terminal)."""
    if not result.tests:
        return f"{best}: the best mean per metric. No significance test was run.{_directions_note(result)}{_set_note(result)}"
    test = result.tests[0]
    correction = "adjusted over the pairs of runs" if test in ("tukey", "randomized_tukey") else CORRECTION_NAMES.get(result.correction, result.correction)
    baseline = any(b != result.baseline for _, b in result.pairs)
    scope = "every pair of runs" if baseline else f"each run against the baseline ({result.baseline}) only"
    more = f" Other tests run: {', '.join(TEST_NAMES.get(t, t) for t in result.tests[1:])} (see the table of differences)." if len(result.tests) > 1 else ""
    return (
        f"{best}: the best mean per metric. Superscript letters: the runs a run is significantly better than "
        f"({TEST_NAMES.get(test, test)}, {correction}, p < {result.alpha:g}; {scope}).{more}{_directions_note(result)}"
        f"{_set_note(result)}"
    )


def summary(result: Comparison) -> Summary:
    """The runs × metrics summary of a comparison (see the module): each run's mean is the
    comparison table's (``mean`` where the run is the candidate, ``baseline_mean`` where it is
    the baseline: the numbers :func:`rankwise.compare` prints)."""
    segments = result.per_query.segments
    direction = _directions(result)
    letters = {run: letter(i) for i, run in enumerate(result.runs)}
    test = result.tests[0] if result.tests else None
    means: dict[tuple[Any, ...], dict[str, float | None]] = {}
    marks: dict[tuple[Any, ...], dict[str, set[str]]] = {}
    groups: list[tuple[Any, ...]] = []
    for row in result.table.iter_rows(named=True):
        group = tuple(row[s] for s in segments)
        if group not in groups:
            groups.append(group)
        for run, value in ((row["run"], row["mean"]), (row["baseline"], row["baseline_mean"])):
            means.setdefault((*group, run), {}).setdefault(row["metric"], value)
        sign = BETTER_SIGN[direction[row["metric"]]]
        if test is not None and sign and row[f"sig_{test}"] and row["diff"]:
            better, worse = (row["run"], row["baseline"]) if row["diff"] * sign > 0 else (row["baseline"], row["run"])
            marks.setdefault((*group, better), {}).setdefault(row["metric"], set()).add(letters[worse])
    keys = [(*group, run) for group in groups for run in result.runs]

    def frame(cell: Any, dtype: Any) -> pl.DataFrame:
        rows = [[*key, letters[key[-1]], *(cell(key, m) for m in result.metrics)] for key in keys]
        schema: dict[str, Any] = {s: result.per_query.keys.schema[s] for s in segments}
        schema.update({"run": pl.String, "letter": pl.String, **{m: dtype for m in result.metrics}})
        return pl.DataFrame(rows, schema=schema, orient="row")

    def mean(key: tuple[Any, ...], metric: str) -> float | None:
        return means.get(key, {}).get(metric)

    def top(key: tuple[Any, ...], metric: str) -> float | None:
        found = [v for k in keys if k[:-1] == key[:-1] and (v := mean(k, metric)) is not None]
        return (max(found) if direction[metric] == "higher" else min(found)) if found else None

    def is_best(key: tuple[Any, ...], metric: str) -> bool:
        value = mean(key, metric)
        return direction[metric] != "neither" and value is not None and value == top(key, metric)

    def mark(key: tuple[Any, ...], metric: str) -> str:
        return "".join(sorted(marks.get(key, {}).get(metric, set()), key=lambda x: (len(x), x)))

    return Summary(
        frame(mean, pl.Float64), frame(mark, pl.String), frame(is_best, pl.Boolean),
        list(result.metrics), list(segments), legend(result), test,
    )
