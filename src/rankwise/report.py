"""One-call reports of a comparison: a self-contained HTML page (:mod:`rankwise.report_page`)
and, beside it, the runs × metrics summary as Markdown and LaTeX (:mod:`rankwise.tables`).

The page, in order: the runs × metrics summary (the best mean per metric bold, significance
as superscript letters, the legend), the differences with their intervals and effect sizes,
risk and ranking change, the per-query table (sortable, filterable, worst losses first, each
query opening the rank-by-rank explanation of every run for a bounded number of queries), the
figures of every metric, and the provenance (inputs with their size, modification time and
SHA-256, queries paired and filled, conventions, versions, the call, the date). It fetches
nothing: style, script, data and figures are inline.

``to_markdown`` and ``to_latex`` (of :mod:`rankwise.tables`) are re-exported here: given a
Comparison they print its summary, given a DataFrame its rows.

>>> import polars as pl
>>> print(to_markdown(pl.DataFrame({"run": ["a"], "mean": [0.25]})))
| run | mean |
| --- | --- |
| a | 0.2500 |
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from rankwise import progress
from rankwise.comparison import Comparison, Correction, Pairs, Runs, Test, comparison
from rankwise.conventions import ReadOptions, Unpack, checked
from rankwise.evaluate import Engine
from rankwise.metric import Metric
from rankwise.names import parse_metrics
from rankwise.output import atomic_paths
from rankwise.report_details import EXPLAIN_LIMIT
from rankwise.tables import to_latex, to_markdown

__all__ = ["call_text", "report", "to_latex", "to_markdown", "write_report"]


def _argument(value: Any) -> str:
    """An argument of a call as the provenance shows it: a path as text, a frame by its shape."""
    if isinstance(value, pl.DataFrame):
        return f"<DataFrame {value.height}×{value.width}>"
    if isinstance(value, pl.LazyFrame):
        return "<LazyFrame>"
    if isinstance(value, (str, Path)):
        return repr(str(value))
    if isinstance(value, (int, float, bool, type(None))):
        return repr(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k!r}: {_argument(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_argument(v) for v in value) + "]"
    return f"<{type(value).__name__}>" if not isinstance(value, Metric) else repr(value.label)


def call_text(function: str, *args: Any, **kwargs: Any) -> str:
    """A call as text, for the provenance: ``rankwise.report('qrels.parquet', {...}, ...)``."""
    parts = [_argument(a) for a in args] + [f"{k}={_argument(v)}" for k, v in kwargs.items()]
    return f"{function}({', '.join(parts)})"


@checked
def report(
    qrels: Any,
    runs: Runs,
    metrics: str | Metric | Iterable[str | Metric],
    path: str | Path,
    *,
    baseline: str | None = None,
    pairs: Pairs = "baseline",
    tests: Sequence[Test] = ("t",),
    alpha: float = 0.05,
    correction: Correction = "holm",
    by: str | Iterable[str] | None = None,
    resamples: int = 10_000,
    seed: int = 0,
    engine: Engine = "polars",
    title: str = "rankwise comparison",
    explain: int = EXPLAIN_LIMIT,
    command: str | None = None,
    **conventions: Unpack[ReadOptions],
) -> pl.DataFrame:
    """Write a self-contained HTML report to ``path`` (plus the runs × metrics summary as
    ``.md`` and ``.tex`` beside it) and return the comparison table. The arguments are those of
    :func:`rankwise.compare`; each run is evaluated once and the tables, the figures and the
    three files are all derived from that one evaluation. The files are written whole or not at
    all (see :mod:`rankwise.output`); a fault writing them raises
    :class:`~rankwise.errors.OutputError`. Figures (:func:`rankwise.plots.figures`): per-query
    differences of every metric for every pair compared, a curve for every cutoff family
    asked (e.g. ``P@5``, ``P@10``, ``P@20``), the interpolated precision–recall curve and the
    per-query distribution of every metric. ``explain``: how many queries (those of the
    largest absolute difference of the first metric) the page explains rank by rank;
    ``command``: the command line or call the provenance names (by default this call, as text)."""
    from rankwise import plots

    parse_metrics(metrics)  # checked before anything is done with them
    metric_list = [metrics] if isinstance(metrics, (str, Metric)) else list(metrics)
    if command is None:
        given = {"baseline": baseline, "pairs": pairs, "tests": list(tests), "alpha": alpha, "correction": correction,
                 "by": by, "resamples": resamples, "seed": seed, "engine": engine, **conventions}
        defaults = {"baseline": None, "pairs": "baseline", "tests": ["t"], "alpha": 0.05, "correction": "holm",
                    "by": None, "resamples": 10_000, "seed": 0, "engine": "polars"}
        changed = {k: v for k, v in given.items() if k not in defaults or defaults[k] != v}
        command = call_text("rankwise.report", qrels, runs, metric_list, str(path), **changed)
    result = comparison(
        qrels, runs, metric_list, baseline=baseline, pairs=pairs, tests=tests, alpha=alpha, correction=correction,
        by=by, resamples=resamples, seed=seed, engine=engine, also=plots.FIGURE_METRICS, **conventions,
    )
    write_report(result, path, plots.figures(result), title=title, explain=explain, command=command)
    return result.table


@checked
def write_report(
    result: Comparison, path: str | Path, figures: Sequence[Any], *, title: str = "rankwise comparison",
    explain: int = EXPLAIN_LIMIT, command: str | None = None,
) -> None:
    """Write the HTML page of a comparison to ``path`` and its runs × metrics summary as
    Markdown and LaTeX beside it (``.md``, ``.tex``), all three whole or not at all;
    ``figures`` are :class:`rankwise.plots.Figure` s (``plots.figures(result)``), embedded as
    PNG. ``explain``: how many queries the page explains rank by rank (see
    :mod:`rankwise.report_details`); ``command``: the command line or call named in the
    provenance."""
    from rankwise.provenance import now
    from rankwise.report_details import explanations, load, ranking_changes
    from rankwise.report_page import page

    changes = None
    with progress.task("the report", total=3) as step:
        if result.inputs is not None:
            step.at(0, detail="ranking change")
            _, runs = load(result.inputs)
            changes = ranking_changes(result, runs)
        step.at(1, detail=f"explaining up to {explain} queries")
        explained, chosen = explanations(result, explain)
        step.at(2, detail="the page")
        text = page(result, figures, title=title, command=command, date=now(), explain=explain, changes=changes,
                    explained=explained, chosen=chosen)
    target = Path(path)
    texts = {
        target: text,
        target.with_suffix(".md"): to_markdown(result) + "\n",
        target.with_suffix(".tex"): to_latex(result) + "\n",
    }
    # the three files are written whole, and replaced together once all three are complete
    with atomic_paths(list(texts)) as temps:
        for tmp, content in zip(temps, texts.values(), strict=True):
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(content)
