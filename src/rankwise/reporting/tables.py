"""Paper-ready tables: a comparison's runs × metrics summary (:mod:`rankwise.comparison.summary`) as
Markdown or as a LaTeX booktabs table, the best mean per metric in bold and the significance
marks as superscript letters, with the legend under it (Markdown) or as the caption (LaTeX).
Given a DataFrame instead (any table, e.g. :func:`rankwise.compare`'s), both print it as it
is, one row per row, numbers to 4 decimals. Text in a Markdown table's cell goes through
:func:`markdown_cell` (a ``|`` in a run name or an id cannot split the cell), and tables for a
terminal show control characters escaped (:func:`rankwise.outputs.files.visible`).

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

import re
import textwrap
from collections.abc import Callable
from typing import Any

import polars as pl

from rankwise.comparison.paired import Comparison
from rankwise.comparison.summary import CORRECTION_NAMES, TEST_NAMES, Summary, legend, summary
from rankwise.conventions import checked
from rankwise.outputs.files import visible

SIGNED = frozenset((
    "diff", "rel_diff", "ci_low", "ci_high", "ci_t_low", "ci_t_high", "d_z", "hedges_g", "glass_delta", "es_anova",
    "urisk", "trisk",
))
"""Columns of differences: printed with their sign."""


def cell(column: str, value: Any) -> str:
    """A table's value as text: 4 decimals (signed for differences), small p-values in
    scientific notation, booleans as yes/no, None as nothing."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if column in SIGNED:
            return f"{value:+.4f}"
        if column.startswith("p_"):
            return f"{value:.2g}" if value < 0.001 else f"{value:.4f}"
        return f"{value:.4f}"
    return str(value)


HEADERS: dict[str, tuple[str, str]] = {
    "run": ("run", "the run compared"),
    "baseline": ("baseline", "the run it is compared against"),
    "metric": ("metric", "the metric compared"),
    "diff": ("Δ mean", "the mean over queries of the run's value minus the baseline's"),
    "rel_diff": ("Δ / baseline", "Δ mean over the baseline's mean (−0.10: 10% below the baseline)"),
    "ci_bca": ("95% CI (BCa)", "the 95% bootstrap confidence interval of Δ mean (bias-corrected and accelerated)"),
    "ci_t": ("95% CI (t)", "the 95% Student-t confidence interval of Δ mean"),
    "d_z": ("d_z", "Cohen's d_z: Δ mean over the standard deviation of the per-query differences"),
    "hedges_g": ("g_z", "Hedges' g_z: Cohen's d_z corrected for its small-sample bias"),
    "glass_delta": ("Glass's Δ", "Glass's Δ: Δ mean over the standard deviation of the baseline's per-query values"),
    "urisk": ("URisk", "the mean per-query difference with each loss weighing 1 + α (risk_alpha): below 0, "
                       "the run's losses outweigh its wins"),
    "trisk": ("TRisk", "URisk as a t statistic: above +2 the run is significantly less risky than the baseline, "
                       "below −2 significantly riskier"),
    "georisk": ("GeoRisk", "the run's mean and its consistency across queries, against all runs (higher is better)"),
    "hurt": ("hurt", "the share of queries the run loses by more than hurt="),
    "wins": ("wins", "queries where the run is better than the baseline"),
    "ties": ("ties", "queries where both are equal"),
    "losses": ("losses", "queries where the run is worse than the baseline"),
    "queries": ("queries", "the queries paired"),
    "overlap": ("overlap", "the share of the baseline's top documents also in the run's top"),
    "jaccard": ("Jaccard", "the documents of both tops over the documents of either top"),
    "kendall_tau": ("Kendall's τ", "Kendall's τ-b of the two tops' orders (1: the same order, −1: reversed)"),
    "rbo_ext": ("RBO", "rank-biased overlap of the two rankings, extrapolated (1: identical, 0: disjoint)"),
    "rbo_min": ("RBO min", "rank-biased overlap's lower bound (unseen documents never agree)"),
    "rbo_res": ("RBO residual", "the most the unseen documents could add to RBO min"),
    "sha256": ("SHA-256", "the SHA-256 digest of the file's bytes"),
}
"""Column headers a person reads in the report, each with what it means (the comparison
frame keeps its own column names: only the page's labels are these)."""

_TEST_SHORT = {"t": "t-test", "wilcoxon": "Wilcoxon", "randomization": "rand.", "tukey": "Tukey HSD",
               "randomized_tukey": "rand. Tukey"}
_CORRECTION_SHORT = {"holm": "Holm", "bonferroni": "Bonferroni", "fdr_bh": "BH", "fdr_by": "BY", "none": "uncorrected"}
_ADJUSTED_OVER_RUNS = frozenset(("tukey", "randomized_tukey"))


def header(column: str, result: Comparison | None = None) -> tuple[str, str]:
    """The label of a table's column as the report shows it and what it means (the tooltip and
    the legend): :data:`HEADERS`, and for each test of ``result`` its corrected p-value
    (``p_t_adj`` -> ``p (t-test, Holm)``) and its significance (``sig_t`` -> ``significant``);
    any other column is shown by its own name, with no explanation.

    >>> header("p_t_adj")
    ('p (t-test, Holm)', 'the p-value (paired t-test, Holm-corrected)')
    >>> header("sig_wilcoxon")[0]
    'significant'
    """
    if column in HEADERS:
        return HEADERS[column]
    correction = result.correction if result is not None else "holm"
    alpha = f"{result.alpha:g}" if result is not None else "alpha"
    for test, name in TEST_NAMES.items():
        over_runs = test in _ADJUSTED_OVER_RUNS
        short = "adjusted" if over_runs else _CORRECTION_SHORT.get(correction, correction)
        words = "adjusted over the pairs of runs" if over_runs else CORRECTION_NAMES.get(correction, correction)
        if column == f"p_{test}_adj":
            return f"p ({_TEST_SHORT[test]}, {short})", f"the p-value ({name}, {words})"
        if column == f"sig_{test}":
            return "significant", f"whether the p-value ({name}, {words}) is below {alpha}"
    return column, ""


_PIPE = re.compile(r"(\\*)\|")


def markdown_cell(text: str) -> str:
    r"""``text`` as one cell of a Markdown table: control characters escaped as on a terminal
    (:func:`rankwise.outputs.files.visible`: a line break would end the row), each ``|`` written
    ``\|`` (and the backslashes right before it doubled, so that the ``|`` stays escaped);
    GitHub's Markdown shows the text as it was.

    >>> print(markdown_cell("a|b"), markdown_cell("c\\|d"), markdown_cell("e\nf"))
    a\|b c\\\|d e\nf
    """
    return _PIPE.sub(lambda m: m.group(1) * 2 + "\\|", visible(text))


def shown(frame: pl.DataFrame, *, markdown: bool = False) -> pl.DataFrame:
    """``frame`` as a table shown to people prints it: the values of its text columns and the
    name of every column through :func:`rankwise.outputs.files.visible` (:func:`markdown_cell` for a
    Markdown table); other columns as they are."""
    escape: Callable[[str], str] = markdown_cell if markdown else visible
    text = [c for c, t in frame.schema.items() if t == pl.String]
    out = frame.with_columns(
        pl.Series(c, [None if v is None else escape(v) for v in frame[c].to_list()], dtype=pl.String) for c in text
    )
    return out.rename({c: escape(c) for c in frame.columns})


def _rows(s: Summary) -> list[tuple[list[str], list[tuple[str, bool, str]]]]:
    """Per summary row: its key cells (segments, run, letter) and per metric (mean, best, marks)."""
    keys = [*s.segments, "run", "letter"]
    out = []
    for means, best, marks in zip(s.means.iter_rows(named=True), s.best.iter_rows(named=True),
                                  s.marks.iter_rows(named=True), strict=True):
        out.append(([cell(k, means[k]) for k in keys], [(cell(m, means[m]), bool(best[m]), marks[m]) for m in s.metrics]))
    return out


@checked
def to_markdown(table: Comparison | pl.DataFrame) -> str:
    """A comparison's runs × metrics summary as Markdown (the best mean in bold, the marks in
    ``<sup>``, the legend below); a DataFrame as it is."""
    if isinstance(table, pl.DataFrame):
        lines = ["| " + " | ".join(markdown_cell(c) for c in table.columns) + " |",
                 "| " + " | ".join("---" for _ in table.columns) + " |"]
        for row in table.iter_rows(named=True):
            lines.append("| " + " | ".join(markdown_cell(cell(c, row[c])) for c in table.columns) + " |")
        return "\n".join(lines)
    s = summary(table)
    head = [markdown_cell(c) for c in (*s.segments, "run", *s.metrics)]
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join(["---"] * (len(s.segments) + 1) + ["---:"] * len(s.metrics)) + " |"]
    for keys, cells in _rows(s):
        *segments, run, mark = keys
        values = [(f"**{v}**" if best else v) + (f"<sup>{m}</sup>" if m else "") for v, best, m in cells]
        lines.append("| " + " | ".join([*map(markdown_cell, segments), markdown_cell(f"({mark}) {run}"), *values]) + " |")
    return "\n".join(lines) + f"\n\n{visible(s.legend)}"


def _tex(text: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("_", r"\_"), ("#", r"\#"),
                 ("$", r"\$"), ("{", r"\{"), ("}", r"\}"), ("^", r"\^{}"), ("~", r"\~{}")):
        text = text.replace(a, b)
    return text.replace(r"\textbackslash\{\}", r"\textbackslash{}")


@checked
def to_latex(table: Comparison | pl.DataFrame) -> str:
    """A comparison's runs × metrics summary as a LaTeX ``table`` (booktabs rules; the best
    mean in bold, the marks as superscripts, the legend as the caption); a DataFrame as a
    ``tabular`` of its rows."""
    if isinstance(table, pl.DataFrame):
        lines = [r"\begin{tabular}{" + "l" * 2 + "r" * (len(table.columns) - 2) + "}", r"\toprule",
                 " & ".join(_tex(c) for c in table.columns) + r" \\", r"\midrule"]
        for row in table.iter_rows(named=True):
            lines.append(" & ".join(_tex(cell(c, row[c])) for c in table.columns) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}"]
        return "\n".join(lines)
    s = summary(table)
    lines = [r"\begin{table}", r"\centering", r"\caption{" + _tex(s.legend) + "}",
             r"\begin{tabular}{" + "l" * (len(s.segments) + 2) + "r" * len(s.metrics) + "}", r"\toprule",
             " & ".join([*(_tex(x) for x in s.segments), "", "Run", *(_tex(m) for m in s.metrics)]) + r" \\", r"\midrule"]
    for keys, cells in _rows(s):
        *segments, run, mark = keys
        values = [(rf"\textbf{{{v}}}" if best else v) + (rf"$^{{\mathrm{{{m}}}}}$" if m else "") for v, best, m in cells]
        lines.append(" & ".join([*(_tex(x) for x in segments), f"({mark})", _tex(run), *values]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines)


_SUPERSCRIPTS = dict(zip("abcdefghijklmnopqrstuvwxyz", "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖ𐞥ʳˢᵗᵘᵛʷˣʸᶻ", strict=True))


def _superscript(letters: str) -> str:
    return "".join(_SUPERSCRIPTS.get(c, c) for c in letters)


def _text_table(frame: pl.DataFrame, width: int) -> str:
    with pl.Config(
        tbl_hide_column_data_types=True, tbl_hide_dataframe_shape=True, tbl_rows=-1, tbl_cols=-1,
        tbl_width_chars=width, fmt_str_lengths=max(width, 20), tbl_formatting="ASCII_MARKDOWN",
    ):
        return str(frame)


def _fitting(frame: pl.DataFrame, keys: int, width: int) -> list[pl.DataFrame]:
    """The frame's columns in groups that each fit ``width`` characters as a table, the first
    ``keys`` columns (the segments and the run) repeated in each."""
    def chars(column: str) -> int:
        return max([len(column), *(len(v) for v in frame[column].to_list() if v is not None)]) + 3

    base = sum(chars(c) for c in frame.columns[:keys]) + 1
    groups: list[list[str]] = [[]]
    used = base
    for column in frame.columns[keys:]:
        if groups[-1] and used + chars(column) > width:
            groups.append([])
            used = base
        groups[-1].append(column)
        used += chars(column)
    return [frame.select(*frame.columns[:keys], *group) for group in groups]


def to_text(result: Comparison, width: int = 100) -> str:
    """A comparison for a terminal ``width`` characters wide: the runs × metrics summary (the
    best mean per metric marked ``*``, the significance letters as superscripts, the legend
    under it), then per pair and metric the difference, its BCa interval, the first test's
    corrected p-value and the wins/ties/losses (every column: ``rankwise compare --wide`` or
    ``--format csv``).

    >>> import polars as pl
    >>> from rankwise.comparison.paired import comparison
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "relevance": [1, 1]})
    >>> base = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["x", "b"], "score": [1.0, 1.0]})
    >>> text = to_text(comparison(qrels, {"base": base, "new": qrels.rename({"relevance": "score"})}, ["P@1"]), 60)
    >>> print(text.splitlines()[2])
    | (a) base | 0.5000  |
    """
    s = summary(result)
    rows = []
    for keys, cells in _rows(s):
        *segments, run, mark = keys
        rows.append([*segments, f"({mark}) {run}", *((v + _superscript(m) + ("*" if best else "")) for v, best, m in cells)])
    head = [*s.segments, "run", *s.metrics]
    means = shown(pl.DataFrame(rows, schema=dict.fromkeys(head, pl.String), orient="row"), markdown=True)
    parts = [_text_table(chunk, width) for chunk in _fitting(means, len(s.segments) + 1, width)]
    parts.append(textwrap.fill(visible(legend(result, best="*")), width, break_on_hyphens=False))
    table = result.table
    if table.height:
        test = result.tests[0] if result.tests else None
        pairs_all = any(b != result.baseline for _, b in result.pairs)
        columns = [*s.segments, "run", *(["baseline"] if pairs_all else []), "metric"]
        diffs = table.select(
            *columns,
            pl.col("diff").map_elements(lambda v: cell("diff", v), return_dtype=pl.String).alias("diff"),
            pl.format("[{}, {}]", *(pl.col(c).map_elements(lambda v: cell("diff", v), return_dtype=pl.String)
                                    for c in ("ci_low", "ci_high"))).alias("95% CI"),
            *([pl.col(f"p_{test}_adj").map_elements(lambda v: cell("p_", v), return_dtype=pl.String)
               .alias(f"p ({test}, {'adjusted' if test in ('tukey', 'randomized_tukey') else result.correction})")]
              if test else []),
            # a metric without a better direction (Judged@k) has no verdict
            pl.format("{}/{}/{}", "wins", "ties", "losses").fill_null("no direction").alias("W/T/L"),
        )
        parts += [_text_table(chunk, width) for chunk in _fitting(shown(diffs, markdown=True), len(columns), width)]
    return "\n\n".join(parts)


def frame_text(table: pl.DataFrame, keys: int, width: int = 100) -> str:
    """Any table for a terminal ``width`` characters wide: every column (numbers as
    :func:`cell` writes them), in groups of columns that fit, the first ``keys`` columns
    repeated in each (``rankwise compare --wide``)."""
    text = pl.DataFrame(
        {c: [cell(c, v) for v in table[c].to_list()] for c in table.columns}, schema=dict.fromkeys(table.columns, pl.String)
    )
    return "\n\n".join(_text_table(chunk, width) for chunk in _fitting(shown(text, markdown=True), keys, width))
