"""The comparison of runs as one SQL statement, run where the data lives (DuckDB or Spark SQL):
:func:`compare_sql`, the statistics of :func:`rankwise.compare` that are plain aggregates, over
:func:`rankwise.to_sql`'s evaluation of each run."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import cast

from rankwise._sql.compiler import literal
from rankwise._sql.inline import Dialect
from rankwise.comparison.paired import PairedOptions, Settings, better_sign, comparable
from rankwise.conventions import (
    EVALUATION_KEYWORDS,
    Columns,
    EvaluationOptions,
    Unpack,
    check_identifier,
    check_options,
    checked,
)
from rankwise.errors import InvalidParameterError
from rankwise.evaluation.to_sql import quoter, table_name, to_sql
from rankwise.metrics.metric import Metric
from rankwise.names.presets import resolve


def _t_statistic(x: str) -> str:
    """mean(x) / (s_x / √n), NULL when x has no spread (at most 1e-12, floating-point noise, as
    in ``compare``): no division by zero reaches Spark's ANSI mode."""
    sd = f"stddev_samp({x})"
    return f"CASE WHEN {sd} > 1e-12 THEN avg({x}) / (NULLIF({sd}, 0) / sqrt(count(*))) END"


class SqlCompareOptions(PairedOptions, EvaluationOptions, total=False):
    """The keyword options of :func:`compare_sql`: those of a comparison that SQL computes
    (:class:`~rankwise.comparison.paired.PairedOptions`: ``baseline``, ``by``, ``risk_alpha``,
    ``hurt``, their defaults those of :class:`~rankwise.comparison.paired.Settings`) and the
    conventions and column names (:class:`~rankwise.conventions.EvaluationOptions`)."""


_PAIRED_KEYWORDS: tuple[str, ...] = tuple(PairedOptions.__annotations__)


@checked
def compare_sql(
    metrics: str | Metric | Iterable[str | Metric],
    *,
    dialect: Dialect = "duckdb",
    runs: Mapping[str, str],
    qrels: str = "qrels",
    per_query: bool = False,
    check: bool = True,
    **options: Unpack[SqlCompareOptions],
) -> str:
    """One SQL statement comparing runs where the data lives (DuckDB or Spark SQL): the
    statistics of :func:`rankwise.compare` that are plain aggregates, for each run (name →
    table) against the baseline (the first run unless ``baseline`` names another), per metric.

    Each run is evaluated by :func:`to_sql`'s statement with ``missing='zero'``; the queries are
    paired as ``compare`` pairs them (the judged queries some run has, or with ``missing='zero'``
    every judged query; a query absent from a run scoring 0 there, values rounded to 12
    decimals, a query where the metric is undefined in either run left out). Columns: ``run``, ``baseline``, ``metric``, ``queries``, ``mean``,
    ``baseline_mean``, ``diff``, ``t`` and ``df`` (the paired t statistic mean(d)/(s_d/√n) on
    n − 1 degrees of freedom: its p-value needs the t distribution, which SQL lacks; ``compare``
    gives it), ``urisk`` and ``trisk`` (URisk_α, TRisk_α with α = ``risk_alpha``), ``hurt``
    (the share of queries losing more than ``hurt``), ``wins``, ``ties``, ``losses``.

    ``by``: segment columns of the run tables, each constant within a query (a market, a
    query class): one row per segment, pair and metric, the segment columns first; the
    (segment, query) pairs are those of either run. ``per_query=True``: the paired values
    themselves, one row per (segment,) pair, metric and query: ``value``, ``baseline_value``,
    ``diff`` and ``risk`` (the per-query risk-reward behind URisk).

    >>> sql = compare_sql(["AP"], runs={"bm25": "runs.bm25", "dense": "runs.dense"}, dialect="spark")
    >>> "'dense' AS run" in sql and "'bm25' AS baseline" in sql
    True
    """
    check_options("compare_sql", options, (*EVALUATION_KEYWORDS, *_PAIRED_KEYWORDS))
    settings = Settings.from_options(options)
    baseline, risk_alpha, hurt, by = settings.baseline, settings.risk_alpha, settings.hurt, settings.by
    evaluation = cast(EvaluationOptions, {key: value for key, value in options.items() if key in EVALUATION_KEYWORDS})
    if not isinstance(per_query, bool):
        raise InvalidParameterError(f"per_query must be True or False, got {per_query!r}")
    if not runs or len(runs) < 2:
        raise InvalidParameterError(f"compare_sql needs at least two runs (name -> table), got {dict(runs)!r}")
    names = list(runs)
    base = baseline if baseline is not None else names[0]
    if base not in runs:
        raise InvalidParameterError(f"baseline {base!r} is not one of the runs {names}")
    for value, what in ((risk_alpha, "risk_alpha"), (hurt, "hurt")):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
            raise InvalidParameterError(f"{what} must be a finite number of at least 0, got {value!r}")
    explicit, resolved = resolve(metrics, evaluation)  # a preset (like=) made explicit first
    evaluation = cast(EvaluationOptions, resolved)
    parsed = comparable(explicit)
    q = quoter(dialect)
    qid = q(Columns.from_options(options).query_id)
    segments = [by] if isinstance(by, str) else list(by or [])
    for col in segments:
        check_identifier(col, "segment column")
    segs = [q(c) for c in segments]
    zero: EvaluationOptions = {**evaluation, "missing": "zero"}
    # missing='ignore' (as compare): the judged queries some run has; 'zero': every judged query
    text = "STRING" if dialect == "spark" else "VARCHAR"
    in_some = "" if options.get("missing", "ignore") == "zero" else (
        f" WHERE CAST(coalesce(e0.{qid}, e1.{qid}) AS {text}) IN ("
        + " UNION ".join(f"SELECT CAST({qid} AS {text}) FROM {table_name(t, q, 'run table')}" for t in runs.values())
        + ")"
    )
    evaluated = {
        name: to_sql(parsed, dialect=dialect, run=table, qrels=qrels, check=check, **zero) for name, table in runs.items()
    }
    a = float(risk_alpha)
    # the verdicts (wins to hurt, the risks) read the improvement g = sign · d of the metric's
    # better direction (comparison.better_sign); none for a metric without one
    u = f"CASE WHEN g >= 0 THEN g ELSE CAST({1 + a!r} AS DOUBLE) * g END"
    parts = []
    for m in parsed:
        sign = better_sign(m.label)
        for name in (n for n in names if n != base):
            c = q(m.label)
            r = f"round(coalesce(e1.{c}, CASE WHEN e1.{qid} IS NULL THEN CAST(0 AS DOUBLE) END), 12)"
            b = f"round(coalesce(e0.{c}, CASE WHEN e0.{qid} IS NULL THEN CAST(0 AS DOUBLE) END), 12)"
            if segments:
                # the (segment, query) pairs of either run, each query's values from its evaluation
                keys = " UNION ".join(
                    f"SELECT DISTINCT {', '.join(segs)}, {qid} FROM {table_name(runs[n], q, 'run table')}" for n in (base, name)
                )
                paired = (
                    f"SELECT {', '.join(f'k.{s_}' for s_ in segs)}, k.{qid} AS {qid}, {r} AS r, {b} AS b FROM ({keys}) AS k "
                    f"LEFT JOIN ({evaluated[base]}) AS e0 ON k.{qid} = e0.{qid} "
                    f"LEFT JOIN ({evaluated[name]}) AS e1 ON k.{qid} = e1.{qid}"
                )
            else:
                paired = (
                    f"SELECT coalesce(e0.{qid}, e1.{qid}) AS {qid}, {r} AS r, {b} AS b "
                    f"FROM ({evaluated[base]}) AS e0 FULL OUTER JOIN ({evaluated[name]}) AS e1 ON e0.{qid} = e1.{qid}"
                    + in_some
                )
            head = f"{''.join(f'{s_}, ' for s_ in segs)}{literal(name)} AS run, {literal(base)} AS baseline, {literal(m.label)} AS metric"
            g = f"CAST({sign} AS DOUBLE) * (r - b)" if sign else "CAST(NULL AS DOUBLE)"
            rows = f"FROM (SELECT *, r - b AS d, {g} AS g FROM ({paired}) AS p WHERE r IS NOT NULL AND b IS NOT NULL) AS pd"
            if per_query:
                parts.append(
                    f"SELECT {head}, {qid}, CAST(r AS DOUBLE) AS value, CAST(b AS DOUBLE) AS baseline_value, "
                    f"CAST(d AS DOUBLE) AS diff, CAST({u} AS DOUBLE) AS risk {rows}"
                )
                continue
            stats = {
                "queries": "count(*)", "mean": "avg(r)", "baseline_mean": "avg(b)", "diff": "avg(d)",
                "t": _t_statistic("d"), "df": "count(*) - 1",
                "urisk": f"avg({u})", "trisk": _t_statistic(u),
                "hurt": f"avg(CASE WHEN g < -CAST({float(hurt)!r} AS DOUBLE) THEN 1 WHEN g IS NOT NULL THEN 0 END)",
                "wins": "sum(CASE WHEN g > 0 THEN 1 WHEN g IS NOT NULL THEN 0 END)",
                "ties": "sum(CASE WHEN g = 0 THEN 1 WHEN g IS NOT NULL THEN 0 END)",
                "losses": "sum(CASE WHEN g < 0 THEN 1 WHEN g IS NOT NULL THEN 0 END)",
            }
            counts = ("queries", "df", "wins", "ties", "losses")
            columns = ", ".join(f"CAST({e} AS {'BIGINT' if k in counts else 'DOUBLE'}) AS {k}" for k, e in stats.items())
            group = f" GROUP BY {', '.join(segs)}" if segs else ""
            parts.append(f"SELECT {head}, {columns} {rows}{group}")
    return "\nUNION ALL\n".join(parts)
