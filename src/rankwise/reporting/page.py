"""The HTML page of a comparison, section by section: the runs × metrics summary
(:mod:`rankwise.comparison.summary`), the differences with their intervals and effect sizes, risk and
ranking change, the per-query table with its explanations, the figures and the provenance.
One self-contained file: the style, the script (:mod:`rankwise.reporting.assets`), the data of
the per-query table (JSON) and the figures (PNG, base64) are all inline.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from rankwise.comparison.paired import Comparison
from rankwise.comparison.summary import summary
from rankwise.conventions import Columns, Conventions
from rankwise.reporting.assets import SCRIPT, STYLE
from rankwise.reporting.tables import cell, header, to_latex

_TEXT = frozenset(("run", "baseline", "metric"))


def esc(value: Any) -> str:
    """Text for HTML (quotes escaped too)."""
    return html.escape(str(value))


_UNEXPLAINED = frozenset(("run", "baseline", "metric", "queries", "wins", "ties", "losses"))
"""Columns whose header says it all: hover still explains them, the legend under the table does not."""


def scroll_box(table: str, *, cls: str = "") -> str:
    """A table in its own box: when the table is wider than the box (a phone), the box scrolls,
    and the page's script shows the cue (a shade at the cut edge and a "scroll →" hint)."""
    return (f'<div class="tbox {cls}"><p class="hint" aria-hidden="true">scroll → for more columns</p>'
            f'<div class="scroll">{table}</div></div>')


def th(column: str, result: Comparison | None = None, *, cls: str = "") -> str:
    """A column's header cell: its label (:func:`rankwise.reporting.tables.header`), what it
    means on hover (``title``)."""
    label, why = header(column, result)
    if not why:
        return f'<th scope="col" class="{cls}"><span>{esc(label)}</span></th>'
    return f'<th scope="col" class="{cls}" title="{esc(why)}"><span class="tip">{esc(label)}</span></th>'


def legend_html(columns: Sequence[str], result: Comparison | None = None) -> str:
    """Under a table, what each of its headers means (those :func:`th` explains on hover, each
    label once), for a reader who cannot hover (a phone, paper)."""
    seen: dict[str, list[str]] = {}
    for c in columns:
        label, why = header(c, result)
        if why and c not in _UNEXPLAINED and why not in seen.setdefault(label, []):
            seen[label].append(why)
    if not seen:
        return ""
    items = "; ".join(f"<b>{esc(label)}</b>: {esc(' / '.join(whys))}" for label, whys in seen.items() if whys)
    return f'<p class="legend">{items}.</p>'


def table_html(frame: pl.DataFrame, result: Comparison | None = None, *, cls: str = "",
               wrap: frozenset[str] = frozenset(), legend: bool = True) -> str:
    """A frame as an HTML table in its own scrolling box (:func:`scroll_box`): the headers a
    person reads (:func:`th`) with their legend below, numbers as
    :func:`rankwise.reporting.tables.cell` prints them, text left-aligned; the ``wrap``
    columns' long words broken anywhere."""
    text = {c for c in frame.columns if c in _TEXT or (frame.schema[c] == pl.String and not c.startswith("p_"))}
    kind = {c: ("l" if c in text else "") + (" w" if c in wrap else "") for c in frame.columns}
    head = "".join(th(c, result, cls=kind[c]) for c in frame.columns)
    body = "".join(
        "<tr>" + "".join(f'<td class="{kind[c]}">{esc(cell(c, row[c]))}</td>' for c in frame.columns) + "</tr>"
        for row in frame.iter_rows(named=True)
    )
    table = f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    return scroll_box(table) + (legend_html(frame.columns, result) if legend else "")


def summary_html(result: Comparison) -> str:
    """The runs × metrics table: the best mean per metric bold, the significance marks as
    superscript letters, the legend below."""
    s = summary(result)
    head = "".join(f'<th scope="col" class="l">{esc(x)}</th>' for x in s.segments)
    head += '<th scope="col" class="l" title="the run\'s letter, as the superscripts name it"><span class="tip">#</span></th>'
    head += th("run", cls="l") + "".join(f'<th scope="col">{esc(m)}</th>' for m in s.metrics)
    body = []
    for means, best, marks in zip(s.means.iter_rows(named=True), s.best.iter_rows(named=True),
                                  s.marks.iter_rows(named=True), strict=True):
        cells = [f'<td class="l">{esc(cell(k, means[k]))}</td>' for k in s.segments]
        cells += [f'<td class="l">{esc(means["letter"])}</td>', f'<td class="l">{esc(means["run"])}</td>']
        for m in s.metrics:
            sup = f"<sup>{esc(marks[m])}</sup>" if marks[m] else ""
            cells.append(f'<td class="{"best" if best[m] else ""}">{esc(cell(m, means[m]))}{sup}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    table = f'<table id="summary"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
    return scroll_box(table) + f'<p id="legend">{esc(s.legend)}</p>'



def effects_frame(result: Comparison) -> pl.DataFrame:
    """Per pair and metric: the difference, its BCa and t intervals (``ci_bca``, ``ci_t``: each
    ``[low, high]`` as text), the effect sizes and each test's corrected p-value and significance
    (with several tests, to keep the table narrow, each p-value as text marked ``*`` where it
    is significant, and no significance column: :data:`SIGNIFICANT_MARK`)."""
    t = result.table
    segments = result.per_query.segments
    ci = [
        pl.format("[{}, {}]", *(pl.col(c).map_elements(lambda v: f"{v:+.4f}", return_dtype=pl.String) for c in pair))
        .alias(name)
        for pair, name in ((("ci_low", "ci_high"), "ci_bca"), (("ci_t_low", "ci_t_high"), "ci_t"))
    ]
    tests: list[Any] = [c for x in result.tests for c in (f"p_{x}_adj", f"sig_{x}")]
    if len(result.tests) > 1:
        tests = [
            pl.struct(p=f"p_{x}_adj", sig=f"sig_{x}").map_elements(_marked, return_dtype=pl.String).alias(f"p_{x}_adj")
            for x in result.tests
        ]
    return t.select(*segments, "run", "baseline", "metric", "diff", "rel_diff", *ci, "d_z", "hedges_g", "glass_delta", *tests)


def _marked(row: dict[str, Any]) -> str:
    """A corrected p-value (``p``) as text, marked ``*`` where it is significant (``sig``)."""
    return cell("p_", row["p"]) + ("\u00a0*" if row["sig"] else "")


SIGNIFICANT_MARK = "*: significant, the p-value below alpha"
"""The legend of the mark of a significant p-value (:func:`effects_frame` with several tests)."""


def risk_frame(result: Comparison) -> pl.DataFrame:
    """Per pair and metric: URisk, TRisk, GeoRisk, the share of queries hurt, and the wins,
    ties and losses over the paired queries."""
    segments = result.per_query.segments
    return result.table.select(*segments, "run", "baseline", "metric", "urisk", "trisk", "georisk", "hurt",
                               "wins", "ties", "losses", "queries")


def key_labels(result: Comparison) -> list[str]:
    """The per-query table's key columns as the user named them: the segments, then the query
    column under the runs' own name for it when they have one (``run_columns={'query_id':
    'user_id'}``, ``--run-query-id-col user_id``), else under the name the comparison keyed it
    by (``query_id=``, ``--query-id-col``; ``query_id`` by default)."""
    labels = list(result.per_query.keys.columns)
    if result.inputs is None:
        return labels
    own = (result.inputs.options.get("run_columns") or {}).get("query_id")
    if isinstance(own, str) and own not in labels[:-1]:  # never the same header as a segment's
        labels[-1] = own
    return labels


def per_query_data(result: Comparison, explained: dict[str, Any], note: str) -> dict[str, Any]:
    """The data of the per-query table (the page's script renders it): the key columns, each
    run's value of each metric per query, the pairs, the explanations embedded."""
    values = result.per_query
    keys = values.keys
    return {
        "keys": key_labels(result),
        "ids": [[("" if v is None else str(v)) for v in row] for row in keys.iter_rows()],
        "runs": result.runs,
        "pairs": [list(p) for p in result.pairs],
        "metrics": result.per_query_metrics,
        "values": {m: {run: _finite(values.values[run][m]) for run in result.runs} for m in result.per_query_metrics},
        "explained": explained,
        "explained_note": note,
    }


def _finite(series: pl.Series) -> list[float | None]:
    """A column's values, NaN and infinities as None (JSON has no NaN)."""
    return [v if v is not None and math.isfinite(v) else None for v in series.cast(pl.Float64).to_list()]


_SCRIPT_SAFE = str.maketrans({
    "<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029",
})
"""The characters the JSON of a script block writes as ``\\uXXXX`` escapes: ``<`` and ``>``
(no ``</script``, ``<!--``, ``<script`` or ``-->`` can then end or alter the block), ``&``
and the line and paragraph separators. JSON allows them only inside strings, where the
escape means the same character."""


def _json(data: Any) -> str:
    """``data`` as JSON to place in a ``<script>`` block: nothing in it can end or alter the
    block (see :data:`_SCRIPT_SAFE`), and ``JSON.parse`` reads the same values."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False).translate(_SCRIPT_SAFE)


def per_query_html(result: Comparison, explained: dict[str, Any], chosen: list[str], limit: int,
                   files: dict[str, Any] | None = None) -> str:
    """The per-query section: the metric picker, the filter box, the table (filled by the
    script) and what the explanations cover; the page's one data block (``rw-data``) holds
    the table's data and ``files``, what the page's buttons save (``latex``: the runs × metrics
    table; ``svg``: each figure's SVG by stem)."""
    first = result.per_query_metrics[0]
    if result.inputs is None:
        note = "this comparison carries no inputs, so no query is explained"
    elif not chosen:
        note = "explanations were not asked (explain=0)"
    else:
        note = (f"the page embeds the explanations of {first} for the {len(chosen)} queries of the largest "
                f"absolute difference of {first} (at most {limit})")
    options = "".join(f'<option value="{esc(m)}">{esc(m)}</option>' for m in result.per_query_metrics)
    listed = (f'<details><summary>The {len(chosen)} queries explained</summary><p>{esc(", ".join(chosen))}</p></details>'
              if chosen else "")
    return (
        "<h2 id='per-query'>Per query</h2>"
        f"<p class='pq-intro'>Worst losses first (the difference to the baseline, ascending). Each row opens the rank-by-rank "
        f"explanation of {esc(first)} for every run side by side (rank, document, relevance, contribution, value "
        f"so far): {esc(note)}.</p>{listed}"
        '<div class="controls"><label>metric <select id="pq-metric">' + options + "</select></label>"
        '<label>query <input id="pq-filter" type="search" placeholder="filter by query id" size="18"></label></div>'
        '<p id="pq-note" class="muted"></p>' + scroll_box('<table id="pq-table"></table>', cls="pq")
        + '<p class="print-only">The per-query table is left out of the printed page: open the page to browse it.</p>'
        f'<script id="rw-data" type="application/json">{_json({**per_query_data(result, explained, note), **(files or {})})}</script>'
    )


PAGE_DPI = 100
"""The resolution of the page's figures (and of its PNG buttons)."""
EXPORT_DPI = 200
"""The resolution of the PNG files ``export=`` writes (for print)."""


@dataclass(frozen=True)
class Rendered:
    """A figure drawn to files: the page's PNG, the SVG (its text kept as text, to edit in a
    paper) and, for ``export=``, a PNG at :data:`EXPORT_DPI`."""

    stem: str
    caption: str
    note: str
    png: bytes
    svg: str
    print_png: bytes | None = None


def render(figure: Any, *, export: bool = False) -> Rendered:
    """A :class:`rankwise.reporting.plots.Figure` drawn as PNG and SVG (and, given ``export``,
    as PNG at :data:`EXPORT_DPI`); the SVG's element ids and metadata carry no date or random
    part, so the same figure gives the same bytes. The matplotlib figure is then closed."""
    import matplotlib
    import matplotlib.pyplot as plt

    def drawn(fmt: str, **options: Any) -> bytes:
        buf = io.BytesIO()
        with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": figure.stem}):
            figure.figure.savefig(buf, format=fmt, **options)
        return buf.getvalue()

    try:
        return Rendered(figure.stem, figure.caption, figure.note, drawn("png", dpi=PAGE_DPI),
                        drawn("svg", metadata={"Date": None}).decode("utf-8"), drawn("png", dpi=EXPORT_DPI) if export else None)
    finally:
        plt.close(figure.figure)


def png(fig: Any) -> str:
    """A matplotlib figure as base64 PNG (the figure is closed)."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=PAGE_DPI)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def figures_html(figures: Sequence[Rendered]) -> str:
    """The figures, each as an inline PNG as wide as its column of the page, numbered, with
    its note (how to read it; its caption where it has none) under it and its PNG and SVG
    buttons (the SVGs are in the page's data block: :func:`per_query_html`)."""
    figs = "".join(
        f'<figure id="fig-{i}" data-stem="{esc(f.stem)}">'
        f'<img alt="{esc(f.caption)}" src="data:image/png;base64,{base64.b64encode(f.png).decode("ascii")}">'
        f"<figcaption><b>Figure {i}.</b> {esc(f.note or f.caption)} "
        f'<span class="dl"><button type="button" data-save="png">PNG</button>'
        f'<button type="button" data-save="svg">SVG</button></span></figcaption></figure>'
        for i, f in enumerate(figures, start=1)
    )
    return f'<div class="figs">{figs}</div>'


def provenance_html(result: Comparison, command: str | None, date: str) -> str:
    """Where the numbers come from: each input file (size, modification time, SHA-256, rows)
    or frame, the queries paired and filled, the conventions, the versions, the call and the date."""
    from rankwise.reporting.provenance import describe_input, versions

    rows = []
    if result.inputs is not None:
        inputs = {"qrels": result.inputs.qrels, **{f"run {k}": v for k, v in result.inputs.runs.items()}}
        for name, obj in inputs.items():
            d = describe_input(obj)
            for f in d.get("files", [d]):
                rows.append({"input": name, "source": f["source"], "size": f.get("size"), "modified": f.get("modified"),
                             "rows": f.get("rows"), "sha256": f.get("sha256")})
    schema = dict.fromkeys(("input", "source", "size", "modified", "rows", "sha256"), pl.String)
    files = (table_html(pl.DataFrame(rows, schema=schema), wrap=frozenset(("source", "sha256")), legend=False) if rows
             else "<p>No inputs recorded (a comparison built by hand).</p>")
    values = result.per_query
    filled = pl.DataFrame([
        {"run": run, "queries in the run": values.keys.height - int(values.filled[run]["filled"].sum()),
         "queries filled with 0": int(values.filled[run]["filled"].sum())}
        for run in result.runs
    ])
    options = dict(result.inputs.options) if result.inputs is not None else {}
    conventions = dict(Conventions.from_options(options).as_options())  # the keyword options alone
    columns = {k: v for k, v in Columns.from_options(options).as_options().items() if v is not None}
    engine = result.inputs.engine if result.inputs is not None else "unknown"
    items = [
        ("queries paired", f"{values.keys.height} ("
                           + ("every judged query" if values.missing == "zero" else
                              "the judged queries some run has, as evaluate scores them"
                              + (f"; {values.left_out} judged quer{'y' if values.left_out == 1 else 'ies'} no run has left out"
                                 if values.left_out else ""))
                           + "; a query absent from a run scores 0 there, as trec_eval -c)"),
        ("conventions", ", ".join(f"{k}={v!r}" for k, v in conventions.items())),
        ("columns", ", ".join(f"{k}={v!r}" for k, v in columns.items())),
        ("engine", engine),
        ("statistics", f"tests {', '.join(result.tests) or 'none'}; correction {result.correction}; alpha {result.alpha:g}; "
                       f"baseline {result.baseline}"),
        ("versions", ", ".join(f"{k} {v}" for k, v in versions().items())),
        ("call", command or "not recorded"),
        ("date", date),
    ]
    facts = "".join(f'<tr><th class="l">{esc(k)}</th><td class="l">{esc(v)}</td></tr>' for k, v in items)
    return (f"<h2 id='provenance'>Provenance</h2>{files}{table_html(filled, legend=False)}"
            + scroll_box(f'<table class="prov"><tbody>{facts}</tbody></table>'))


def page(result: Comparison, figures: Sequence[Rendered], *, title: str, command: str | None, date: str,
         explain: int, changes: pl.DataFrame | None, explained: dict[str, Any], chosen: list[str]) -> str:
    """The whole page (``figures``: each figure :func:`render` ed)."""
    against = "all pairs" if any(b != result.baseline for _, b in result.pairs) else f"baseline: {result.baseline}"
    settings = (f"{against}; tests: {', '.join(result.tests) or 'none'}; correction: {result.correction}; "
                f"alpha: {result.alpha:g}")
    change = (
        "<h3>Ranking change</h3><p>Means over queries of each run's top "
        f"{int(changes['depth'][0])} against its baseline's (rankwise.comparison.change.ranking_change).</p>"
        + table_html(changes.drop("depth"))
        if changes is not None and changes.height else ""
    )
    nav = " · ".join(f'<a href="#{a}">{t}</a>' for a, t in (
        ("summary-h", "summary"), ("effects", "differences"), ("risk", "risk"), ("per-query", "per query"),
        ("figures", "figures"), ("provenance", "provenance")))
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width,initial-scale=1'>"
        f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{esc(title)}</h1><p>{esc(settings)}</p><p class='controls'>{nav}</p>"
        f"<h2 id='summary-h'>Runs × metrics</h2>{summary_html(result)}"
        '<p class="dl"><button type="button" id="save-tex">LaTeX table (.tex)</button> '
        '<span class="muted">the table above as a booktabs table, its legend as the caption</span></p>'
        "<h2 id='effects'>Differences, intervals and effect sizes</h2>"
        "<p>Each run against its baseline: the mean difference, its 95% intervals (BCa bootstrap and t), "
        "Cohen's d_z, Hedges' g_z, Glass's Δ, and each test's corrected p-value.</p>"
        + table_html(effects_frame(result), result)
        + (f'<p class="legend">{esc(SIGNIFICANT_MARK.replace("alpha", f"{result.alpha:g}"))}.</p>'
           if len(result.tests) > 1 else "")
        + "<h2 id='risk'>Risk and ranking change</h2><p>URisk and TRisk (each loss weighs 1 + α), GeoRisk, the share "
        "of queries hurt, and the wins, ties and losses over the paired queries.</p>"
        + table_html(risk_frame(result), result) + change
        + per_query_html(result, explained, chosen, explain,
                         {"latex": to_latex(result) + "\n", "svg": {f.stem: f.svg for f in figures}})
        + f"<h2 id='figures'>Figures</h2>{figures_html(figures)}"
        + provenance_html(result, command, date)
        + f"<script>{SCRIPT}</script></body></html>"
    )
