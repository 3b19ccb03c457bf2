"""What a report reads from the inputs again, beyond the comparison's per-query values: the
ranking change of each run against its baseline (:func:`rankwise.comparison.change.ranking_change`) and
the rank-by-rank explanations (:func:`rankwise.explain`) of a bounded number of queries.

Each input is read once more (:func:`load`: a path is read again, a frame is used as it is;
an input given as records was read into a frame once, by the comparison,
:func:`rankwise.comparison.paired.read_once`), and both the ranking change and the explanations use
that one reading. :func:`explain` runs per query and run on the rows of the query: about
30 ms each, so the report explains the ``limit`` queries of the largest absolute difference of
the first metric (the worst losses and best wins), not all of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from rankwise.comparison.paired import Comparison, Inputs
from rankwise.conventions import INPUT_KEYWORDS, Columns
from rankwise.errors import RankwiseError
from rankwise.inputs.columns import Reading

EXPLAIN_LIMIT = 50
"""Queries explained by default: those of the largest |difference| of the first metric."""
EXPLAIN_TOP = 10
"""Ranks always shown in an explanation; below them only the judged-relevant ranks and the last."""
CHANGE_DEPTH = 10
"""The depth of the ranking-change statistics."""

_CHANGE_KEYS = ("ties", "trec_eval", "query_id", "doc_id", "score")


def load(inputs: Inputs) -> tuple[pl.DataFrame, dict[str, pl.DataFrame]]:
    """The qrels and each run read once, their columns named as configured (each input's own
    names, ``run_columns`` and the like, applied)."""
    columns = Columns.from_options(inputs.options)
    reading = Reading.from_options(inputs.options)
    return (reading.read(inputs.qrels, "qrels", columns).collect(),
            {name: reading.read(run, "run", columns).collect() for name, run in inputs.runs.items()})


def ranking_changes(result: Comparison, runs: Mapping[str, pl.DataFrame], depth: int = CHANGE_DEPTH) -> pl.DataFrame:
    """Per pair compared, the means over queries of :func:`rankwise.comparison.change.ranking_change`'s
    columns between the baseline's and the run's top ``depth`` (all segments pooled), over the
    queries the comparison paired (its other tables' queries: not a run query without
    judgments, nor one the runs lack)."""
    from rankwise.comparison.change import ranking_change

    assert result.inputs is not None
    options: Any = {k: v for k, v in result.inputs.options.items() if k in _CHANGE_KEYS}
    query = result.per_query.keys.columns[-1]
    paired = result.per_query.keys.select(pl.col(query).cast(pl.String)).unique()
    rows = []
    for cand, base in result.pairs:
        change = ranking_change(runs[base], runs[cand], depth=depth, **options)
        change = change.filter(pl.col(query).cast(pl.String).is_in(paired[query].implode()))
        stats = change.select(
            pl.col("overlap", "jaccard", "kendall_tau", "rbo_ext", "rbo_min", "rbo_res").mean(),
            pl.len().alias("queries"),
        ).row(0, named=True)
        rows.append({"run": cand, "baseline": base, "depth": depth, **stats})
    return pl.DataFrame(rows)


def _largest_differences(result: Comparison, limit: int) -> list[str]:
    """The query ids of the ``limit`` largest |difference| of the first metric over the pairs
    (a query counted once, by its largest)."""
    metric = result.per_query_metrics[0]
    values = result.per_query
    query = values.keys.columns[-1]
    diffs = [
        (values.values[cand][metric] - values.values[base][metric]).abs().alias(f"d{i}")
        for i, (cand, base) in enumerate(result.pairs)
    ]
    ranked = (
        values.keys.select(pl.col(query).cast(pl.String).alias("q"))
        .with_columns(pl.max_horizontal(diffs).fill_null(0.0).alias("d"))
        .group_by("q").agg(pl.col("d").max())
        .sort(["d", "q"], descending=[True, False])
    )
    return ranked.head(limit)["q"].to_list()


def _shown(table: pl.DataFrame) -> tuple[list[str], list[list[str]], str | None]:
    """The columns and rows of an explanation the page shows: rank, document, relevance,
    gain where there is one, contribution and value; ranks 1..EXPLAIN_TOP, the
    judged-relevant ranks below and the last."""
    columns: list[str] = [c for c in ("rank", "doc_id", "relevance", "gain", "contribution", "value") if c in table.columns]
    last = table.height - 1
    rel = table["relevance"].fill_null(0).cast(pl.Float64)
    keep = [i for i in range(table.height) if i < EXPLAIN_TOP or i == last or rel[i] > 0]
    rows = [[_text(table[c][i]) for c in columns] for i in keep]
    hidden = table.height - len(keep)
    note = f"{hidden} ranks of no relevant document below rank {EXPLAIN_TOP} not shown" if hidden else None
    return columns, rows, note


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def explanations(
    result: Comparison, qrels: pl.DataFrame, runs: Mapping[str, pl.DataFrame], limit: int = EXPLAIN_LIMIT,
) -> tuple[dict[str, Any], list[str]]:
    """Per query explained (``limit`` of them, see the module) and per run, the explanation
    of the first metric as the page shows it (``columns``, ``rows``, a ``note``; or an
    ``error`` when the query cannot be explained for that run); and the queries explained, in
    order of their largest |difference|. ``qrels`` and ``runs``: the inputs as :func:`load`
    read them."""
    from rankwise.evaluation.explain import explain

    if result.inputs is None or limit <= 0:
        return {}, []
    chosen = _largest_differences(result, limit)
    query = Columns.from_options(result.inputs.options).query_id

    def rows_of(frame: pl.DataFrame) -> pl.DataFrame:  # the queries explained, their ids compared as text
        return frame.filter(pl.col(query).cast(pl.String).is_in(chosen))

    qrels, runs = rows_of(qrels), {name: rows_of(run) for name, run in runs.items()}
    # the frames have the configured column names already: each input's own names are not applied again
    options: Any = {k: v for k, v in result.inputs.options.items() if k != "missing" and k not in INPUT_KEYWORDS}
    out: dict[str, Any] = {}
    for q in chosen:
        per_run: dict[str, Any] = {}
        for name, run in runs.items():
            try:
                metric = next(
                    (m for m in result.inputs.metrics if m.spec.aggregate != "set"), result.per_query_metrics[0]
                )
                columns, rows, note = _shown(explain(qrels, run, metric, q, **options))
                per_run[name] = {"columns": columns, "rows": rows, "note": note}
            except RankwiseError as exc:
                per_run[name] = {"error": str(exc)}
        out[q] = per_run
    return out, chosen
