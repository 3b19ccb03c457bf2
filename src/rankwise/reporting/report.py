"""One-call reports of a comparison: a self-contained HTML page (:mod:`rankwise.reporting.page`)
and, beside it, the runs × metrics summary as Markdown and LaTeX (:mod:`rankwise.reporting.tables`).

The page, in order: the runs × metrics summary (the best mean per metric bold, significance
as superscript letters, the legend), the differences with their intervals and effect sizes,
risk and ranking change, the per-query table (sortable, filterable, worst losses first, each
query opening the rank-by-rank explanation of every run for a bounded number of queries), the
figures of every metric, and the provenance (inputs with their size, modification time and
SHA-256, queries paired and filled, conventions, versions, the call, the date). It fetches
nothing: style, script, data and figures are inline.

``to_markdown`` and ``to_latex`` (of :mod:`rankwise.reporting.tables`) are re-exported here: given a
Comparison they print its summary, given a DataFrame its rows.

>>> import polars as pl
>>> print(to_markdown(pl.DataFrame({"run": ["a"], "mean": [0.25]})))
| run | mean |
| --- | --- |
| a | 0.2500 |
"""

from __future__ import annotations

import fnmatch
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from rankwise.comparison.paired import (
    SETTING_KEYWORDS,
    CompareOptions,
    Comparison,
    Runs,
    Settings,
    comparison,
)
from rankwise.conventions import Unpack, checked
from rankwise.errors import InvalidParameterError, OutputError, RankwiseError, RankwiseWarning
from rankwise.metrics.metric import Metric
from rankwise.outputs import progress
from rankwise.outputs.files import atomic_paths
from rankwise.reporting.details import EXPLAIN_LIMIT
from rankwise.reporting.tables import to_latex, to_markdown

__all__ = ["call_text", "check_report_paths", "export_paths", "named_inputs", "report", "report_paths", "to_latex", "to_markdown", "write_report"]

_FILES = ("page", "Markdown summary", "LaTeX summary")
"""What each of :func:`report_paths` is."""


def report_paths(path: str | os.PathLike[str]) -> list[Path]:
    """The report's three files: the HTML page at ``path``, the Markdown and the LaTeX summary
    beside it (``path`` with the suffix ``.md``, ``.tex``).

    >>> [str(p) for p in report_paths("out/report.html")]
    ['out/report.html', 'out/report.md', 'out/report.tex']
    """
    page = Path(path)
    if not page.name:
        raise InvalidParameterError(f"the report's path {os.fspath(path)!r} names no file: pass e.g. 'report.html'")
    return [page, page.with_suffix(".md"), page.with_suffix(".tex")]


def _same(a: Path, b: Path) -> bool:
    """Whether two paths name one file: the same file where both exist (links, a file system
    that ignores case), else the same absolute path."""
    if a.exists() and b.exists():
        return os.path.samefile(a, b)
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def _collision(obj: Any, target: Path) -> str | None:
    """How writing ``target`` would alter the input ``obj`` when it is a path (``'over'`` one
    of its files, ``'into the folder of'`` it, ``'among the files of the glob of'`` it), else
    None."""
    from rankwise.inputs.read import expand_path, has_glob_chars

    if not isinstance(obj, (str, os.PathLike)):
        return None
    text = os.fspath(obj)
    if has_glob_chars(text) and not os.path.exists(text):
        if fnmatch.fnmatch(os.path.realpath(target), os.path.realpath(text)):
            return "among the files of the glob of"
    elif os.path.isdir(text):
        inside = Path(os.path.realpath(target)).is_relative_to(os.path.realpath(text))
        return "into the folder of" if inside else None
    try:
        files, _ = expand_path(obj)
    except (RankwiseError, OSError):  # an input that cannot be read is refused when it is read
        return None
    return "over" if any(_same(target, f) for f in files) else None


def refuse_expected_ties(metrics: Any, options: Mapping[str, Any]) -> None:
    """Refuse ``ties='expected'`` (given, or set by a preset) for a report or figures: they read
    the documents' order (the interpolated precision-recall curve, the ranking change)."""
    from rankwise.names.presets import resolve

    with warnings.catch_warnings():  # the comparison that follows says what the preset's overrides are, once
        warnings.simplefilter("ignore", RankwiseWarning)
        ties = resolve(metrics, options)[1].get("ties")
    if ties == "expected":
        raise InvalidParameterError(
            "a report's figures (the interpolated precision-recall curve) and its ranking-change table "
            "read the documents' order, and ties='expected' chooses none: report with a tie order, or "
            "compare(..., ties='expected') for the table"
        )


def export_paths(folder: str | os.PathLike[str], stems: Iterable[str]) -> list[tuple[str, Path]]:
    """The files ``export=`` writes into ``folder``, each with what it is: ``table.tex`` (the
    runs × metrics summary as LaTeX) and each figure as ``<stem>.svg`` and ``<stem>.png`` (a
    stem met twice numbered ``_2``, ``_3``, ...).

    >>> [str(p) for _, p in export_paths("paper", ["difference_AP_b", "precision_recall"])]
    ['paper/table.tex', 'paper/difference_AP_b.svg', 'paper/difference_AP_b.png', 'paper/precision_recall.svg', 'paper/precision_recall.png']
    """
    root = Path(folder)
    out = [("LaTeX table", root / "table.tex")]
    seen: set[str] = {"table"}
    for stem in stems:
        name, n = stem, 1
        while name.casefold() in seen:
            n += 1
            name = f"{stem}_{n}"
        seen.add(name.casefold())
        out += [(f"figure {name!r} (SVG)", root / f"{name}.svg"), (f"figure {name!r} (PNG)", root / f"{name}.png")]
    return out


def check_report_paths(
    path: str | os.PathLike[str], inputs: Iterable[tuple[str, Any]],
    outputs: Iterable[tuple[str, str | os.PathLike[str] | None]] = (),
    extra: Sequence[tuple[str, Path]] = (),
) -> list[Path]:
    """The report's three files (:func:`report_paths`), once none of them is another of them
    (a page named ``summary.md`` would be replaced by its own Markdown summary), an input
    (``inputs``: (what, the input) pairs, e.g. ``("the run 'bm25'", "bm25.trec")``; a path's
    files, a folder's or a glob's included) or another output of the same call (``outputs``:
    (what, path) pairs, e.g. the command line's ``-o``); else
    :class:`~rankwise.errors.InvalidParameterError` naming both. ``extra``: more files the
    call writes ((what, path) pairs: :func:`export_paths`), checked the same way."""
    files = report_paths(path)
    shown = os.fspath(path)
    for i, a in enumerate(files):
        for j in range(i):
            if os.path.normcase(str(a)).casefold() == os.path.normcase(str(files[j])).casefold():
                raise InvalidParameterError(
                    f"the report {shown!r} would be written over by its own {_FILES[i]} ({str(a)!r}, "
                    f"the {_FILES[i]} is written beside the page with the suffix {a.suffix!r}): "
                    f"name the page e.g. {str(files[0].with_suffix('.html'))!r}"
                )
    for what, target in extra:
        for kind, own in zip(_FILES, files, strict=True):
            if _same(target, own):
                raise InvalidParameterError(
                    f"the {what} {str(target)!r} of export= would be written over the report's {kind}: "
                    "export into another folder"
                )
    inputs = list(inputs)
    for kind, target in [*zip(_FILES, files, strict=True), *extra]:
        for what, obj in inputs:
            where = _collision(obj, target)
            if where is not None:
                raise InvalidParameterError(
                    f"the report's {kind} {str(target)!r} would be written {where} {what} "
                    f"({os.fspath(obj)!r}): write the report elsewhere"
                )
        for what, other in outputs:
            if other is not None and _same(target, Path(other)):
                raise InvalidParameterError(
                    f"the report's {kind} {str(target)!r} is also {what}'s file: write one of them elsewhere"
                )
    return files


def named_inputs(qrels: Any, runs: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The inputs of a comparison with what each is, as :func:`check_report_paths` names them."""
    return [("the qrels", qrels), *((f"the run {name!r}", run) for name, run in runs.items())]


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


def _given(options: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword options of a call as its provenance names them: the comparison's settings
    that differ from their defaults (:class:`~rankwise.comparison.paired.Settings`, in its
    order; the tests as a list), then the evaluation's options as given."""
    defaults = Settings()

    def shown(key: str, value: Any) -> Any:
        return list(value) if key == "tests" else value

    changed = {
        key: shown(key, options[key]) for key in SETTING_KEYWORDS
        if key in options and shown(key, options[key]) != shown(key, getattr(defaults, key))
    }
    return {**changed, **{key: value for key, value in options.items() if key not in SETTING_KEYWORDS}}


@checked
def report(
    qrels: Any,
    runs: Runs,
    metrics: str | Metric | Iterable[str | Metric],
    path: str | Path,
    *,
    title: str = "rankwise comparison",
    explain: int = EXPLAIN_LIMIT,
    command: str | None = None,
    export: str | Path | None = None,
    **options: Unpack[CompareOptions],
) -> pl.DataFrame:
    """Write a self-contained HTML report to ``path`` (plus the runs × metrics summary as
    ``.md`` and ``.tex`` beside it) and return the comparison table. The arguments are those of
    :func:`rankwise.compare` (its keyword options,
    :class:`~rankwise.comparison.paired.CompareOptions`); each run is evaluated once and the tables, the figures and the
    three files are all derived from that one evaluation. None of the three may be another of
    them, an input or inside an input's folder (:func:`check_report_paths`, checked first). The
    files are written whole or not at all (see :mod:`rankwise.outputs.files`); a fault writing them raises
    :class:`~rankwise.errors.OutputError`. Figures (:func:`rankwise.reporting.plots.figures`): per-query
    differences of every metric for every pair compared, a curve for every cutoff family
    asked (e.g. ``P@5``, ``P@10``, ``P@20``), the interpolated precision–recall curve and the
    per-query distribution of every metric. ``explain``: how many queries (those of the
    largest absolute difference of the first metric) the page explains rank by rank;
    ``command``: the command line or call the provenance names (by default this call, as text);
    ``export``: a folder (made if missing) to write the paper-ready files into as well,
    :func:`export_paths`: ``table.tex`` and each figure as SVG and PNG (at
    :data:`rankwise.reporting.page.EXPORT_DPI`), together with the report's files, all whole or
    none."""
    from rankwise.reporting import plots

    refuse_expected_ties(metrics, options)  # the metrics checked too, before anything is done
    metric_list = [metrics] if isinstance(metrics, (str, Metric)) else list(metrics)
    if isinstance(runs, Mapping):  # else compare's own check refuses it
        check_report_paths(path, named_inputs(qrels, runs))  # before the work, not after it
    if command is None:
        command = call_text("rankwise.report", qrels, runs, metric_list, str(path), **_given(options))
    result = comparison(qrels, runs, metric_list, also=plots.FIGURE_METRICS, **options)
    write_report(result, path, plots.figures(result), title=title, explain=explain, command=command, export=export)
    return result.table


@checked
def write_report(
    result: Comparison, path: str | Path, figures: Sequence[Any], *, title: str = "rankwise comparison",
    explain: int = EXPLAIN_LIMIT, command: str | None = None, export: str | Path | None = None,
) -> None:
    """Write the HTML page of a comparison to ``path`` and its runs × metrics summary as
    Markdown and LaTeX beside it (``.md``, ``.tex``), all three whole or not at all (none may
    be another of them, an input or inside an input's folder: :func:`check_report_paths`);
    ``figures`` are :class:`rankwise.reporting.plots.Figure` s (``plots.figures(result)``), embedded as
    PNG. ``explain``: how many queries the page explains rank by rank (see
    :mod:`rankwise.reporting.details`); ``command``: the command line or call named in the
    provenance; ``export``: a folder for ``table.tex`` and each figure as SVG and PNG
    (:func:`export_paths`), written with the three files, whole or none. The figures are
    closed once drawn."""
    from rankwise.reporting.details import explanations, load, ranking_changes
    from rankwise.reporting.page import page, render
    from rankwise.reporting.provenance import now

    inputs = named_inputs(result.inputs.qrels, result.inputs.runs) if result.inputs is not None else []
    exported = export_paths(export, [f.stem for f in figures]) if export is not None else []
    page_path, md_path, tex_path = check_report_paths(path, inputs, extra=exported)
    changes = None
    explained: dict[str, Any] = {}
    chosen: list[str] = []
    with progress.task("the report", total=3) as step:
        if result.inputs is not None:
            step.at(0, detail="ranking change")
            qrels, runs = load(result.inputs)  # read once, for the ranking change and the explanations
            changes = ranking_changes(result, runs)
            step.at(1, detail=f"explaining up to {explain} queries")
            explained, chosen = explanations(result, qrels, runs, explain)
        step.at(2, detail="the page")
        drawn = [render(f, export=export is not None) for f in figures]
        text = page(result, drawn, title=title, command=command, date=now(), explain=explain, changes=changes,
                    explained=explained, chosen=chosen)
    latex = to_latex(result) + "\n"
    files: dict[Path, bytes] = {page_path: text.encode("utf-8"), md_path: (to_markdown(result) + "\n").encode("utf-8"),
                                tex_path: latex.encode("utf-8")}
    if export is not None:
        figure_files = [content for f in drawn for content in (f.svg.encode("utf-8"), f.print_png or f.png)]
        files.update(zip((p for _, p in exported), [latex.encode("utf-8"), *figure_files], strict=True))
        _folder(Path(export))
    # the files are written whole, and replaced together once all of them are complete
    with atomic_paths(list(files)) as temps:
        for tmp, content in zip(temps, files.values(), strict=True):
            with open(tmp, "wb") as fh:
                fh.write(content)


def _folder(folder: Path) -> None:
    """Make the export folder (and its parents) unless it exists; a file there, or a fault
    making it, is an :class:`~rankwise.errors.OutputError` naming it."""
    from rankwise.outputs.files import output_error

    if folder.exists() and not folder.is_dir():
        raise OutputError(f"cannot export into {str(folder)!r}: it is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise output_error(str(folder), exc) from exc
