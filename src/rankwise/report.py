"""One-call reports of a comparison: a self-contained HTML page (tables and the figures
embedded as PNG), and the comparison table as Markdown or LaTeX.

>>> import polars as pl
>>> t = pl.DataFrame({"run": ["a", "b"], "metric": ["AP", "AP"], "mean": [0.25, 0.3],
...                   "diff": [None, 0.05], "sig_t": [None, True]})
>>> print(to_markdown(t))
| run | metric | mean | diff | sig_t |
| --- | --- | --- | --- | --- |
| a | AP | 0.2500 |  |  |
| b | AP | 0.3000 | +0.0500 | yes |
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from rankwise.comparison import Comparison, Correction, Pairs, Test, comparison
from rankwise.conventions import ReadOptions, Unpack
from rankwise.evaluate import Engine
from rankwise.metric import Metric
from rankwise.output import atomic_paths

_SIGNED = frozenset((
    "diff", "rel_diff", "ci_low", "ci_high", "ci_t_low", "ci_t_high", "d_z", "hedges_g", "glass_delta", "es_anova",
    "urisk", "trisk",
))
"""Columns of differences: printed with their sign."""


def _cell(column: str, value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if column in _SIGNED:
            return f"{value:+.4f}"
        if column.startswith("p_"):
            return f"{value:.2g}" if value < 0.001 else f"{value:.4f}"
        return f"{value:.4f}"
    return str(value)


def to_markdown(table: pl.DataFrame) -> str:
    """A comparison (or any) table as Markdown, numbers to 4 decimals."""
    lines = ["| " + " | ".join(table.columns) + " |", "| " + " | ".join("---" for _ in table.columns) + " |"]
    for row in table.iter_rows(named=True):
        lines.append("| " + " | ".join(_cell(c, row[c]) for c in table.columns) + " |")
    return "\n".join(lines)


def to_latex(table: pl.DataFrame) -> str:
    """A comparison (or any) table as a LaTeX tabular (booktabs rules)."""
    def esc(text: str) -> str:
        for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("_", r"\_"), ("#", r"\#"), ("@", r"@")):
            text = text.replace(a, b)
        return text

    lines = [r"\begin{tabular}{" + "l" * 2 + "r" * (len(table.columns) - 2) + "}", r"\toprule",
             " & ".join(esc(c) for c in table.columns) + r" \\", r"\midrule"]
    for row in table.iter_rows(named=True):
        lines.append(" & ".join(esc(_cell(c, row[c])) for c in table.columns) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines)


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def report(
    qrels: Any,
    runs: Mapping[str, Any],
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
    **conventions: Unpack[ReadOptions],
) -> pl.DataFrame:
    """Write a self-contained HTML report to ``path`` (plus ``.md`` and ``.tex`` tables beside
    it) and return the comparison table. The arguments are those of
    :func:`rankwise.compare`; each run is evaluated once and the table, the figures and the
    three files are all derived from that one evaluation. The files are written whole or not at
    all (see :mod:`rankwise.output`); a fault writing them raises
    :class:`~rankwise.errors.OutputError`. Figures (:func:`rankwise.plots.figures`): per-query
    differences of the first metric for every pair compared, a curve for every cutoff family
    asked (e.g. ``P@5``, ``P@10``, ``P@20``), the interpolated precision–recall curve and the
    per-query distribution of the first metric."""
    from rankwise import plots

    result = comparison(
        qrels, runs, metrics, baseline=baseline, pairs=pairs, tests=tests, alpha=alpha, correction=correction,
        by=by, resamples=resamples, seed=seed, engine=engine, also=plots.FIGURE_METRICS, **conventions,
    )
    write_report(result, path, plots.figures(result), title=title)
    return result.table


def write_report(result: Comparison, path: str | Path, figures: Sequence[Any], *, title: str = "rankwise comparison") -> None:
    """Write the HTML page of a comparison to ``path`` and its table as Markdown and LaTeX
    beside it (``.md``, ``.tex``), all three whole or not at all; ``figures`` are
    :class:`rankwise.plots.Figure` s (``plots.figures(result)``), embedded as PNG."""
    table = result.table
    head = "".join(f"<th>{html.escape(c)}</th>" for c in table.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_cell(c, row[c]))}</td>" for c in table.columns) + "</tr>"
        for row in table.iter_rows(named=True)
    )
    images = "".join(
        f'<figure><img alt="{html.escape(f.caption)}" src="data:image/png;base64,{_png(f.figure)}">'
        f"<figcaption>{html.escape(f.caption)}</figcaption></figure>"
        for f in figures
    )
    against = "all pairs" if result.pairs and any(b != result.baseline for _, b in result.pairs) else f"baseline: {result.baseline}"
    page = (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>"
        "body{font-family:sans-serif;margin:2em;max-width:1100px}"
        "table{border-collapse:collapse;font-size:13px;margin-bottom:1em}td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}"
        "figure{display:inline-block;margin:1em}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><p>{html.escape(against)}; tests: {html.escape(', '.join(result.tests))}; "
        f"correction: {html.escape(result.correction)}; alpha: {result.alpha:g}</p>"
        f"<h2>Comparisons</h2><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{images}</body></html>"
    )
    target = Path(path)
    texts = {
        target: page,
        target.with_suffix(".md"): to_markdown(table) + "\n",
        target.with_suffix(".tex"): to_latex(table) + "\n",
    }
    # the three files are written whole, and replaced together once all three are complete
    with atomic_paths(list(texts)) as temps:
        for tmp, text in zip(temps, texts.values(), strict=True):
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(text)
