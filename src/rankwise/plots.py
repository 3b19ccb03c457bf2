"""Pictures of a comparison (optional extra ``[plot]``: matplotlib, imported lazily).

Every function returns the matplotlib Figure and, given ``path``, saves it (PNG or SVG by the
path's extension), whole or not at all (:mod:`rankwise.output`). The Agg backend is used, so
no display is needed.

- :func:`difference_plot`: per-query candidate − baseline, sorted, wins and losses coloured.
- :func:`cutoff_curves`: a metric at k = 1..K for each run.
- :func:`precision_recall`: 11-point interpolated precision–recall curve for each run.
- :func:`score_distribution`: the per-query values of a metric, per run.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl

from rankwise.conventions import EvaluationOptions, Unpack, check_options
from rankwise.errors import InvalidParameterError, MissingExtraError
from rankwise.evaluate import evaluate, summarize
from rankwise.names import parse_metrics
from rankwise.output import atomic_path
from rankwise.registry import ELEVEN_POINTS

WIN, LOSS, TIE = "#2b8a3e", "#c92a2a", "#868e96"


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingExtraError("rankwise plots need matplotlib: pip install 'rankwise[plot]'") from exc
    return plt


def _finish(fig: Any, path: str | Path | None) -> Any:
    fig.tight_layout()
    if path is not None:
        save(fig, path, dpi=110)
    return fig


def save(fig: Any, path: str | Path, **savefig: Any) -> Path:
    """Save a figure to ``path`` whole or not at all (:mod:`rankwise.output`), in the format
    of the path's extension (PNG without one, the extension then added, as matplotlib does);
    returns the path written."""
    import matplotlib

    target = Path(path)
    fmt = target.suffix[1:].lower()
    if not fmt:
        fmt = str(matplotlib.rcParams["savefig.format"])
        target = target.with_name(f"{target.name}.{fmt}")
    with atomic_path(target) as tmp:
        fig.savefig(tmp, format=fmt, **savefig)
    return target


def _per_query(
    function: str, qrels: Any, runs: Mapping[str, Any], metrics: list[str], **conventions: Unpack[EvaluationOptions]
) -> dict[str, pl.DataFrame]:
    """Each run's per-query values, a query missing from a run counting 0 there."""
    # as compare(): the options of evaluate(), but a query missing from a run counts 0 there
    check_options(function, conventions)
    if not runs:
        raise InvalidParameterError("runs is empty: pass e.g. {'baseline': run_a, 'new': run_b}")
    options: EvaluationOptions = {**conventions, "missing": "zero"}
    return {
        name: evaluate(run, qrels, metrics, **options).sort("query_id")
        for name, run in runs.items()
    }


def difference_plot(
    qrels: Any, baseline: Any, candidate: Any, metric: str, *, names: tuple[str, str] = ("baseline", "candidate"),
    path: str | Path | None = None, **conventions: Unpack[EvaluationOptions],
) -> Any:
    """Sorted bars of candidate − baseline per query (green wins, red losses)."""
    plt = _pyplot()
    per = _per_query("difference_plot", qrels, {names[0]: baseline, names[1]: candidate}, [metric], **conventions)
    joined = per[names[0]].join(per[names[1]], on="query_id", how="full", suffix="_c", coalesce=True)
    # a query where the metric is undefined in either run (NULL, e.g. Accuracy) is no pair
    paired = joined.drop_nulls([metric, f"{metric}_c"])
    undefined = joined.height - paired.height
    diff = (paired[f"{metric}_c"] - paired[metric]).sort(descending=True).to_list()
    colors = [WIN if d > 0 else LOSS if d < 0 else TIE for d in diff]
    fig, ax = plt.subplots(figsize=(7, 3.2))
    ax.bar(range(len(diff)), diff, color=colors, width=1.0)
    ax.axhline(0, color="black", linewidth=0.6)
    wins, losses = sum(d > 0 for d in diff), sum(d < 0 for d in diff)
    left_out = f", {undefined} undefined left out" if undefined else ""
    ax.set_title(f"{metric}: {names[1]} − {names[0]} per query ({wins} wins, {losses} losses{left_out})")
    ax.set_xlabel("queries, sorted by difference")
    ax.set_ylabel(f"Δ {metric}")
    return _finish(fig, path)


def cutoff_curves(
    qrels: Any, runs: Mapping[str, Any], metric: str = "nDCG", *, max_k: int = 20,
    path: str | Path | None = None, **conventions: Unpack[EvaluationOptions],
) -> Any:
    """Mean ``metric@k`` for k = 1..max_k, one line per run (the metric must take a cutoff)."""
    plt = _pyplot()
    (base,) = parse_metrics([metric])
    if base.spec.cutoff == "none":
        raise InvalidParameterError(f"{base.spec.name} takes no cutoff; pick e.g. nDCG, P, R, AP")
    if base.cutoff is not None:
        raise InvalidParameterError(f"give the metric without @k (e.g. {base.spec.name}); k runs from 1 to max_k")
    labels = [f"{metric}@{k}" for k in range(1, max_k + 1)]
    per = _per_query("cutoff_curves", qrels, runs, labels, **conventions)
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for name, df in per.items():
        means = summarize(df).row(0)
        ax.plot(range(1, max_k + 1), means, marker="o", markersize=3, label=name)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("k")
    ax.set_ylabel(f"mean {metric}@k")
    ax.set_title(f"{metric}@k, k = 1..{max_k}")
    ax.legend()
    return _finish(fig, path)


def precision_recall(qrels: Any, runs: Mapping[str, Any], *, path: str | Path | None = None, **conventions: Unpack[EvaluationOptions]) -> Any:
    """The 11-point interpolated precision–recall curve (mean IPrec at recall 0, 0.1, …, 1)."""
    plt = _pyplot()
    levels = list(ELEVEN_POINTS)
    labels = [f"IPrec(recall={x})" for x in levels]
    per = _per_query("precision_recall", qrels, runs, labels, **conventions)
    fig, ax = plt.subplots(figsize=(5, 4))
    for name, df in per.items():
        ax.plot(levels, summarize(df).row(0), marker="o", markersize=3, label=name)
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_title("11-point interpolated precision–recall")
    ax.legend()
    return _finish(fig, path)


def score_distribution(
    qrels: Any, runs: Mapping[str, Any], metric: str, *, path: str | Path | None = None, **conventions: Unpack[EvaluationOptions],
) -> Any:
    """Box plots of the per-query values of ``metric``, one per run."""
    plt = _pyplot()
    per = _per_query("score_distribution", qrels, runs, [metric], **conventions)
    fig, ax = plt.subplots(figsize=(5, 3.6))
    # undefined values (NULL, e.g. Accuracy) are no values
    ax.boxplot([df[metric].drop_nulls().to_list() for df in per.values()], tick_labels=list(per), showmeans=True)
    ax.set_ylabel(metric)
    ax.set_title(f"per-query {metric}")
    return _finish(fig, path)
