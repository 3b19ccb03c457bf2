"""Pictures of a comparison (optional extra ``[plots]``: matplotlib, imported lazily).

Every function returns the matplotlib Figure and, given ``path``, saves it (PNG or SVG by the
path's extension), whole or not at all (:mod:`rankwise.outputs.files`). The Agg backend is used, so
no display is needed.

- :func:`difference_plot`: per-query candidate − baseline, sorted, wins and losses coloured.
- :func:`cutoff_curves`: a metric at k = 1..K for each run.
- :func:`precision_recall`: 11-point interpolated precision–recall curve for each run.
- :func:`score_distribution`: the per-query values of a metric, per run.
- :func:`tradeoff`: each run's mean accuracy against its mean of a beyond-accuracy metric
  (novelty, popularity, diversity), with the interval of each mean.
- :func:`figures`: all of them for a :class:`~rankwise.comparison.paired.Comparison`, from its
  per-query values (what ``report`` and ``rankwise compare --plot`` draw).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rankwise.comparison.paired import (
    Comparison,
    PerQuery,
    better_sign,
    is_set_level,
    per_query_values,
)
from rankwise.comparison.statistics import numpy_scipy, outcomes
from rankwise.conventions import READ_KEYWORDS, ReadOptions, Unpack, check_options, checked
from rankwise.errors import InvalidParameterError, MissingExtraError
from rankwise.evaluation.evaluate import metric_of_column
from rankwise.inputs.run_names import check_run_names
from rankwise.metrics.registry import ELEVEN_POINTS, beyond_accuracy
from rankwise.names.parse import parse_metrics
from rankwise.outputs import progress
from rankwise.outputs.files import atomic_path

WIN, LOSS, TIE = "#2b8a3e", "#c92a2a", "#868e96"


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingExtraError("rankwise plots need matplotlib: pip install 'rankwise[plots]'") from exc
    return plt


def _outside_legend(ax: Any, *args: Any) -> None:
    """The axes' legend to the right of the axes, outside them, so that it never covers data
    (``tight_layout`` makes room for it)."""
    ax.legend(*args, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize="small", frameon=False)


def _finish(fig: Any, path: str | Path | None) -> Any:
    fig.tight_layout()
    if path is not None:
        save(fig, path, dpi=110)
    return fig


def save(fig: Any, path: str | Path, **savefig: Any) -> Path:
    """Save a figure to ``path`` whole or not at all (:mod:`rankwise.outputs.files`), in the format
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


def close(figures: Sequence[Figure]) -> None:
    """Release the figures' memory (matplotlib keeps every open figure until it is closed)."""
    plt = _pyplot()
    for f in figures:
        plt.close(f.figure)


def _values(
    function: str, qrels: Any, runs: Mapping[str, Any], metrics: list[str], **conventions: Unpack[ReadOptions],
) -> PerQuery:
    """Each run's per-query values, paired as :func:`rankwise.compare` pairs them (a query
    missing from a run counts 0 there)."""
    check_options(function, conventions, READ_KEYWORDS)
    if not runs:
        raise InvalidParameterError("runs is empty: pass e.g. {'baseline': run_a, 'new': run_b}")
    check_run_names(runs)
    return per_query_values(qrels, runs, metrics, **conventions)


@checked
def difference_plot(
    qrels: Any, baseline: Any, candidate: Any, metric: str, *, names: tuple[str, str] = ("baseline", "candidate"),
    path: str | Path | None = None, **conventions: Unpack[ReadOptions],
) -> Any:
    """Sorted bars of candidate − baseline per query (green wins, red losses)."""
    values = _values("difference_plot", qrels, {names[0]: baseline, names[1]: candidate}, [metric], **conventions)
    return _finish(_difference_figure(values, names[1], names[0], metric), path)


def _difference_figure(values: PerQuery, candidate: str, baseline: str, metric: str) -> Any:
    """The difference figure of one pair, from the paired values: wins, ties and losses as
    :func:`rankwise.comparison.statistics.outcomes` counts them (the comparison table's numbers)."""
    plt = _pyplot()
    np, _ = numpy_scipy()
    cand, base = values.pair(candidate, baseline, metric)
    # a query where the metric is undefined in either run (NULL, e.g. Accuracy) is no pair
    undefined = values.keys.height - cand.size
    diff = np.sort(cand - base)[::-1]
    # a lower-is-better metric's decrease is its win (green); no direction: no verdict (grey)
    sign = better_sign(metric)
    if sign < 0:
        diff = diff[::-1]
    wins, ties, losses = outcomes(sign * diff)
    fig, ax = plt.subplots(figsize=(7, 3.2))
    # one filled step area per outcome (a bar per query would be one patch per query: minutes
    # for 100,000 queries); each query spans [i, i + 1)
    edges = np.arange(diff.size + 1)
    heights = np.append(diff, diff[-1:] if diff.size else [])
    for colour, where in ((WIN, sign * heights > 0), (LOSS, sign * heights < 0), (TIE, (heights != 0) & (sign == 0))):
        ax.fill_between(edges, heights, 0.0, where=where, step="post", color=colour, linewidth=0)
    if ties and sign:
        ax.plot([wins, wins + ties], [0.0, 0.0], color=TIE, linewidth=3)
    ax.axhline(0, color="black", linewidth=0.6)
    left_out = f", {undefined} undefined left out" if undefined else ""
    verdict = (
        f"{wins} wins, {ties} ties, {losses} losses" + (", lower is better" if sign < 0 else "")
        if sign else "no better direction"
    )
    ax.set_title(f"{metric}: {candidate} − {baseline} per query ({verdict}{left_out})")
    ax.set_xlabel("queries, sorted by difference")
    ax.set_ylabel(f"Δ {metric}")
    return fig


def _cutoff_labels(metric: str, max_k: int) -> list[str]:
    (base,) = parse_metrics([metric])
    if base.spec.cutoff == "none":
        raise InvalidParameterError(f"{base.spec.name} takes no cutoff; pick e.g. nDCG, P, R, AP")
    if base.cutoff is not None:
        raise InvalidParameterError(f"give the metric without @k (e.g. {base.spec.name}); k runs from 1 to max_k")
    return [f"{metric}@{k}" for k in range(1, max_k + 1)]


@checked
def cutoff_curves(
    qrels: Any, runs: Mapping[str, Any], metric: str = "nDCG", *, max_k: int = 20,
    path: str | Path | None = None, **conventions: Unpack[ReadOptions],
) -> Any:
    """Mean ``metric@k`` for k = 1..max_k, one line per run (the metric must take a cutoff)."""
    labels = _cutoff_labels(metric, max_k)
    values = _values("cutoff_curves", qrels, runs, labels, **conventions)
    return _finish(_curves_figure(values, metric, list(enumerate(labels, start=1))), path)


def _mean(values: PerQuery, run: str, label: str) -> float:
    np, _ = numpy_scipy()
    return float(np.nanmean(values.array(run, label)))


def _curves_figure(values: PerQuery, family: str, points: list[tuple[int, str]]) -> Any:
    """Mean ``family@k`` per run at each (k, column) of ``points``."""
    plt = _pyplot()
    ks = [k for k, _ in points]
    fig, ax = plt.subplots(figsize=(7, 3.4))
    for name in values.values:
        ax.plot(ks, [_mean(values, name, label) for _, label in points], marker="o", markersize=3, label=name)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("k")
    ax.set_ylabel(f"mean {family}@k")
    ax.set_title(f"{family}@k, k = {', '.join(map(str, ks)) if len(ks) <= 6 else f'{ks[0]}..{ks[-1]}'}")
    _outside_legend(ax)
    return fig


def cutoff_families(labels: list[str]) -> list[tuple[str, list[tuple[int, str]]]]:
    """The cutoff families among metric columns: the metrics asked at two or more cutoffs with
    the same parameters (``P@5``, ``P@10``, ``P@20`` -> ``("P", [(5, "P@5"), (10, "P@10"),
    (20, "P@20")])``), in the order first asked, each sorted by k."""
    families: dict[str, list[tuple[int, str]]] = {}
    for label in labels:
        m = metric_of_column(label)
        if m is not None and m.cutoff is not None:
            points = families.setdefault(repr(replace(m, cutoff=None, source=None)), [])
            if all(k != m.cutoff for k, _ in points):  # nDCG@5 and ndcg_cut_5: one point
                points.append((m.cutoff, label))
    return [(family, sorted(points)) for family, points in families.items() if len(points) >= 2]


PR_LABELS: tuple[str, ...] = tuple(f"IPrec(recall={x})" for x in ELEVEN_POINTS)


@checked
def precision_recall(qrels: Any, runs: Mapping[str, Any], *, path: str | Path | None = None, **conventions: Unpack[ReadOptions]) -> Any:
    """The 11-point interpolated precision–recall curve (mean IPrec at recall 0, 0.1, …, 1)."""
    values = _values("precision_recall", qrels, runs, list(PR_LABELS), **conventions)
    return _finish(_precision_recall_figure(values), path)


def _precision_recall_figure(values: PerQuery) -> Any:
    plt = _pyplot()
    levels = list(ELEVEN_POINTS)
    fig, ax = plt.subplots(figsize=(7, 3.4))
    for name in values.values:
        ax.plot(levels, [_mean(values, name, label) for label in PR_LABELS], marker="o", markersize=3, label=name)
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_title("11-point interpolated precision–recall")
    _outside_legend(ax)
    return fig


@checked
def score_distribution(
    qrels: Any, runs: Mapping[str, Any], metric: str, *, path: str | Path | None = None, **conventions: Unpack[ReadOptions],
) -> Any:
    """Box plots of the per-query values of ``metric``, one per run (the legend says the
    triangle marks the mean, the line the median)."""
    values = _values("score_distribution", qrels, runs, [metric], **conventions)
    return _finish(_distribution_figure(values, metric), path)


def _distribution_figure(values: PerQuery, metric: str) -> Any:
    plt = _pyplot()
    np, _ = numpy_scipy()
    fig, ax = plt.subplots(figsize=(7, 3.4))
    # undefined values (NULL, e.g. Accuracy) are no values
    data = [a[~np.isnan(a)] for a in (values.array(name, metric) for name in values.values)]
    parts = ax.boxplot(data, tick_labels=list(values.values), showmeans=True)
    ax.set_ylabel(metric)
    ax.set_title(f"per-query {metric}")
    # the legend says which mark is which: the triangle the mean, the line the median
    _outside_legend(ax, [parts["means"][0], parts["medians"][0]], ["mean", "median"])
    return fig


@checked
def tradeoff(
    qrels: Any, runs: Mapping[str, Any], accuracy: str, beyond: str, *, path: str | Path | None = None,
    **conventions: Unpack[ReadOptions],
) -> Any:
    """Each run's mean ``accuracy`` (y) against its mean ``beyond`` (x), a beyond-accuracy metric
    such as ``MIUF@10`` or ``ILD@10``, one labelled point per run with the 95% t-interval of
    each mean (:func:`mean_interval`): whether a gain in relevance costs novelty, popularity
    bias or diversity (Kaminskas & Bridge, Diversity, serendipity, novelty, and coverage, ACM
    TiiS 2016). The first run is marked as the baseline (a hollow point).

    >>> import rankwise as rw
    >>> fig = rw.plots.tradeoff("examples/data/qrels.parquet",  # doctest: +SKIP
    ...     {"bm25": "examples/data/run.parquet", "new": "new.parquet"}, "nDCG@10", "MIUF@10",
    ...     train="train.parquet", path="tradeoff.png")
    """
    values = _values("tradeoff", qrels, runs, [accuracy, beyond], **conventions)
    return _finish(_tradeoff_figure(values, accuracy, beyond, next(iter(values.values))), path)


def mean_interval(values: Any, level: float = 0.95) -> tuple[float, float, float]:
    """The mean of the defined values (NaN: undefined, left out) and its ``level`` Student-t
    interval, mean ± t_{n−1} · s / √n (scipy ``stats.t.interval`` with ``stats.sem``); the
    interval is the mean itself for fewer than two values or no spread, NaN for none."""
    np, stats = numpy_scipy()
    defined = values[~np.isnan(values)]
    if not defined.size:
        return float("nan"), float("nan"), float("nan")
    mean, sem = float(defined.mean()), float(stats.sem(defined)) if defined.size > 1 else 0.0
    if not sem:
        return mean, mean, mean
    low, high = stats.t.interval(level, defined.size - 1, loc=mean, scale=sem)
    return mean, float(low), float(high)


def _direction(metric: str) -> str:
    return {1: "higher is better", -1: "lower is better", 0: "no better direction"}[better_sign(metric)]


def _run_values(table: Any, label: str) -> dict[str, float]:
    """Each run's value of a set-level metric in a comparison's table (its ``mean`` as a run, its
    ``baseline_mean`` as a baseline; the first segment's where there are several)."""
    rows = table.filter(metric=label)
    out = {row["baseline"]: row["baseline_mean"] for row in rows.iter_rows(named=True)}
    out.update({row["run"]: row["mean"] for row in rows.iter_rows(named=True)})
    return {name: float("nan") if value is None else float(value) for name, value in out.items()}


def _tradeoff_figure(
    values: PerQuery, accuracy: str, beyond: str, baseline: str, set_values: Mapping[str, float] | None = None,
) -> Any:
    """One point per run at (mean ``beyond``, mean ``accuracy``) with each mean's interval, the
    runs named beside their points (no legend to cover them), the baseline hollow; a set-level
    ``beyond`` (``set_values``: each run's value) is a value without an interval."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for i, name in enumerate(values.values):
        if set_values is None:
            x, x_low, x_high = mean_interval(values.array(name, beyond))
        else:
            x = x_low = x_high = set_values.get(name, float("nan"))
        y, y_low, y_high = mean_interval(values.array(name, accuracy))
        colour = f"C{i % 10}"
        ax.errorbar(
            [x], [y], xerr=[[x - x_low], [x_high - x]], yerr=[[y - y_low], [y_high - y]], fmt="o", color=colour,
            markerfacecolor="white" if name == baseline else colour, markersize=7, capsize=3, linewidth=1,
        )
        label = f"{name} (baseline)" if name == baseline else name
        ax.annotate(label, (x, y), xytext=(6, 6), textcoords="offset points", color=colour, fontsize="small")
    ax.margins(0.2)
    ax.set_xlabel(f"{'mean ' if set_values is None else ''}{beyond} ({_direction(beyond)})")
    ax.set_ylabel(f"mean {accuracy} ({_direction(accuracy)})")
    # two lines: a long metric string does not run off the figure
    means = "the means" if set_values is None else f"the mean {accuracy}"  # a set-level value has none
    ax.set_title(f"{accuracy} against {beyond}\nper run, 95% intervals of {means}", fontsize="medium")
    return fig


def tradeoff_pairs(labels: Sequence[str]) -> list[tuple[str, str]]:
    """The (accuracy, beyond-accuracy) metric pairs a comparison's figures draw: each
    beyond-accuracy metric among ``labels`` (:func:`rankwise.metrics.registry.beyond_accuracy`)
    against the first accuracy metric; none without one of each."""
    kinds = [(label, m is not None and beyond_accuracy(m.spec)) for label in labels for m in [metric_of_column(label)]]
    accuracy = [label for label, beyond in kinds if not beyond and not is_set_level(label)]
    return [(accuracy[0], label) for label, beyond in kinds if beyond] if accuracy else []


FIGURE_METRICS: tuple[str, ...] = PR_LABELS
"""The metrics the figures of a comparison read besides the compared ones (evaluated in the
same single pass over each run: ``comparison(..., also=FIGURE_METRICS)``): the
precision–recall curve's."""


@dataclass(frozen=True)
class Figure:
    """A figure of a comparison: a file stem, a caption (what it shows in a few words: its
    image's alternative text), the matplotlib figure, and a note (how to read it: the report
    prints it under the figure, so that the text under a figure does not repeat its title)."""

    stem: str
    caption: str
    figure: Any
    note: str = ""


def _safe(text: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in text)


@checked
def figures(result: Comparison) -> list[Figure]:
    """The figures of a comparison, drawn from its per-query values (so they show the table's
    numbers): the per-query differences of every metric compared for every pair compared (the
    first metric's first), each beyond-accuracy metric against the first accuracy metric
    (:func:`tradeoff_pairs`), a curve of the means at each k for every cutoff family asked (e.g.
    ``P@5``, ``P@10``, ``P@20``), the precision–recall curve (when the comparison was made with
    ``also=FIGURE_METRICS``), and the distribution of every metric compared."""
    with progress.task("drawing figures"):
        return _figures(result)


def _figures(result: Comparison) -> list[Figure]:
    values = result.per_query
    per_query = result.per_query_metrics
    out = [
        Figure(f"difference_{_safe(metric)}_{_safe(cand)}" + ("" if base == result.baseline else f"_vs_{_safe(base)}"),
               f"{metric}: {cand} − {base}", _difference_figure(values, cand, base, metric),
               f"Each query's {metric} in {cand} minus its {metric} in {base}, the queries sorted by that difference"
               + (f": green where {cand} is better, red where it is worse, grey ties." if better_sign(metric)
                  else " (the metric has no better direction)."))
        for metric in per_query
        for cand, base in result.pairs
    ]
    out += [
        Figure(f"tradeoff_{_safe(accuracy)}_{_safe(beyond)}", f"{accuracy} against {beyond}",
               _tradeoff_figure(values, accuracy, beyond, result.baseline,
                                None if beyond in per_query else _run_values(result.table, beyond)),
               f"One point per run: its mean {accuracy} against its {beyond}, with the 95% t-interval of each mean; "
               f"the baseline ({result.baseline}) hollow.")
        for accuracy, beyond in tradeoff_pairs(result.metrics)
    ]
    out += [
        Figure(f"{_safe(family)}_at_k", f"{family}@k", _curves_figure(values, family, points),
               f"The mean {family} over queries at each cutoff k asked, one line per run.")
        for family, points in cutoff_families(per_query)
    ]
    columns = set(next(iter(values.values.values())).columns)
    if set(FIGURE_METRICS) <= columns:
        out.append(Figure("precision_recall", "precision–recall", _precision_recall_figure(values),
                          "The mean interpolated precision at recall 0, 0.1, …, 1 (at each level the highest "
                          "precision at that recall or beyond), one line per run."))
    out += [
        Figure(f"distribution_{_safe(metric)}", f"per-query {metric}", _distribution_figure(values, metric),
               f"The spread of {metric} over queries, one box per run: the box spans the middle half of the queries, "
               "the line is the median, the triangle the mean, the whiskers reach the furthest values within 1.5 box "
               "heights, circles are the values beyond.")
        for metric in per_query
    ]
    for f in out:
        if values.segments:  # the table has a row per segment; a figure pools them
            ax = f.figure.axes[0]
            ax.set_title(f"{ax.get_title()}\n(all {', '.join(values.segments)} segments pooled)")
        f.figure.tight_layout()
    return out
