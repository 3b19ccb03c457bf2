"""The full SQL of an evaluation, for pasting into an engine: DuckDB or Spark SQL.

Every ``rw_*`` macro is inlined from the same definitions ``rankwise.register`` installs
(``sql/``), so the statement needs nothing installed. Table and column names are validated
and quoted for the dialect, metric labels (the user's metric strings, the result's column
names) are quoted for it and never rewritten; parameter values are validated literals. The
dialects' differences are the rules of :data:`rankwise._sql.inline.DIALECT_RULES`.

With ``check=True`` (the default) the statement checks its inputs, as the macros of
``sql/05_checks.sql`` do: a NULL id, a NULL or NaN score, a NULL, NaN or infinite relevance or a
document listed twice for one query makes the statement fail, when it runs, with an error
whose message starts ``rankwise:`` and names the problem, the column and an example (DuckDB's
``error()``, Spark's ``raise_error()``).

>>> sql = to_sql(["nDCG@10", "AP"], dialect="spark", run="logs.run", qrels="logs.qrels")
>>> sql.startswith("WITH rw_run_input AS (SELECT `query_id` AS query_id")
True
>>> "FROM `logs`.`run`" in sql and "raise_error(" in sql
True
>>> unchecked = to_sql(["nDCG@10", "AP"], dialect="spark", run="logs.run", qrels="logs.qrels", check=False)
>>> unchecked.startswith("WITH rw_run AS (SELECT `query_id` AS query_id") and "rw_check" not in unchecked
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from rankwise._sql.compiler import build_sql, literal
from rankwise._sql.inline import Dialect, dialect_rules, expand
from rankwise.conventions import (
    Columns,
    Conventions,
    EvaluationOptions,
    Unpack,
    check_identifier,
    check_options,
    checked,
)
from rankwise.errors import InvalidParameterError
from rankwise.metric import Metric
from rankwise.names import parse_metrics


def quoter(dialect: Dialect) -> Callable[[str], str]:
    """Identifier quoting: "double quotes" (DuckDB), `backticks` (Spark); the quote character
    doubled inside. Any text is safe inside: nothing in it is rewritten or executed."""
    return dialect_rules(dialect).quote


def _table(name: str, quote: Callable[[str], str], what: str) -> str:
    check_identifier(name, what)
    return ".".join(quote(part) for part in name.split("."))


def _head(
    dialect: Dialect, run: str, qrels: str, columns: Columns, check: bool
) -> list[str]:
    """The CTEs ``rw_run`` and ``rw_qrels``: the inputs with the standard column names and, with
    ``check``, only once their checks (``rw_check_run``/``rw_check_qrels`` of ``sql/``) have
    passed. The checks are uncorrelated scalar subqueries: each input is aggregated once, and
    a fault raises the error when the statement runs."""
    q = quoter(dialect)
    run_select = (
        f"SELECT {q(columns.query_id)} AS query_id, {q(columns.doc_id)} AS doc_id, "
        f"CAST({q(columns.score)} AS DOUBLE) AS score"
        + ("" if columns.cost is None else f", CAST({q(columns.cost)} AS DOUBLE) AS cost")
        + f" FROM {_table(run, q, 'run table')}"
    )
    qrels_select = (
        f"SELECT {q(columns.query_id)} AS query_id, {q(columns.doc_id)} AS doc_id, "
        f"CAST({q(columns.relevance)} AS DOUBLE) AS relevance FROM {_table(qrels, q, 'qrels table')}"
    )
    subtopics: list[str] = []
    if columns.subtopic is not None:
        # subtopic qrels: every other measure reads a document's largest relevance
        subtopics = [
            f"rw_subtopics AS (SELECT {q(columns.query_id)} AS query_id, CAST({q(columns.subtopic)} AS VARCHAR) "
            f"AS subtopic, {q(columns.doc_id)} AS doc_id, CAST({q(columns.relevance)} AS DOUBLE) AS relevance "
            f"FROM {_table(qrels, q, 'qrels table')})"
        ]
        checked = " WHERE (SELECT ok FROM rw_subtopics_check)" if check else ""
        qrels_select = (
            f"SELECT query_id, doc_id, max(relevance) AS relevance FROM rw_subtopics{checked} GROUP BY query_id, doc_id"
        )
        if check:
            subtopics.append(
                "rw_subtopics_check AS (SELECT ok FROM rw_check_subtopics('rw_subtopics', "
                f"subtopic_name := {literal(columns.subtopic)}, relevance_name := {literal(columns.relevance)}))"
            )
    if not check:
        return [*subtopics, f"rw_run AS ({run_select})", f"rw_qrels AS ({qrels_select})"]
    ids = f"query_id_name := {literal(columns.query_id)}, doc_id_name := {literal(columns.doc_id)}"
    return [
        *subtopics,
        f"rw_run_input AS ({run_select})",
        f"rw_qrels_input AS ({qrels_select})",
        f"rw_run_check AS (SELECT ok FROM rw_check_run('rw_run_input', {ids}, "
        f"score_name := {literal(columns.score)}))",
        f"rw_qrels_check AS (SELECT ok FROM rw_check_qrels('rw_qrels_input', {ids}, "
        f"relevance_name := {literal(columns.relevance)}))",
        *([] if columns.cost is None else [
            f"rw_cost_check AS (SELECT ok FROM rw_check_costs('rw_run_input', cost_name := {literal(columns.cost)}))"
        ]),
        "rw_run AS (SELECT * FROM rw_run_input WHERE (SELECT ok FROM rw_run_check)"
        + ("" if columns.cost is None else " AND (SELECT ok FROM rw_cost_check)") + ")",
        "rw_qrels AS (SELECT * FROM rw_qrels_input WHERE (SELECT ok FROM rw_qrels_check))",
    ]


@checked
def to_sql(
    metrics: str | Metric | Iterable[str | Metric],
    *,
    dialect: Dialect = "duckdb",
    run: str = "run",
    qrels: str = "qrels",
    check: bool = True,
    **options: Unpack[EvaluationOptions],
) -> str:
    """One SQL statement giving per-query values of ``metrics`` for the tables ``run`` and
    ``qrels`` (names may be qualified, ``schema.table``), with the same columns, conventions
    and numbers as :func:`rankwise.evaluate` (the keyword ``options``, conventions and column
    names: :class:`~rankwise.conventions.EvaluationOptions`).

    ``check=True``: the statement fails, when it runs, on a NULL ``query_id``/``doc_id``, a NULL
    or NaN score, a NULL, NaN or infinite relevance, or a document listed twice for one query,
    with a message such as ``rankwise: the run lists document 'd3' more than once for query
    'q1'`` (one more aggregation of each input). ``check=False`` leaves the checks out, for
    inputs validated upstream: such rows then count as they are."""
    check_options("to_sql", options)
    rules = dialect_rules(dialect)
    if not isinstance(check, bool):
        raise InvalidParameterError(f"check must be True or False, got {check!r}")
    parsed = parse_metrics(metrics)
    conv = Conventions.from_options(options)
    columns = Columns.from_options(options)
    head = _head(dialect, run, qrels, columns, check)
    body = build_sql(
        parsed, conv, columns, "rw_run", "rw_qrels", quote=rules.quote,
        subtopics_view=None if columns.subtopic is None else "rw_subtopics", recursion=rules.recursion_limit,
    )
    # the head checks the inputs once; build_sql calls the table macros with checks := false
    recursive = body.startswith("WITH RECURSIVE ")
    body = body.removeprefix("WITH RECURSIVE " if recursive else "WITH ")
    sql = ("WITH RECURSIVE " if recursive else "WITH ") + ",\n".join(head) + ",\n" + body
    return expand(sql, dialect)


def _t_statistic(x: str) -> str:
    """mean(x) / (s_x / √n), NULL when x has no spread (at most 1e-12, floating-point noise, as
    in ``compare``): no division by zero reaches Spark's ANSI mode."""
    sd = f"stddev_samp({x})"
    return f"CASE WHEN {sd} > 1e-12 THEN avg({x}) / (NULLIF({sd}, 0) / sqrt(count(*))) END"


@checked
def compare_sql(
    metrics: str | Metric | Iterable[str | Metric],
    *,
    dialect: Dialect = "duckdb",
    runs: Mapping[str, str],
    qrels: str = "qrels",
    baseline: str | None = None,
    risk_alpha: float = 1.0,
    hurt: float = 0.0,
    by: str | Iterable[str] | None = None,
    per_query: bool = False,
    check: bool = True,
    **options: Unpack[EvaluationOptions],
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
    check_options("compare_sql", options)
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
    from rankwise.comparison import better_sign, comparable

    parsed = comparable(metrics)
    q = quoter(dialect)
    qid = q(Columns.from_options(options).query_id)
    segments = [by] if isinstance(by, str) else list(by or [])
    for col in segments:
        check_identifier(col, "segment column")
    segs = [q(c) for c in segments]
    zero: EvaluationOptions = {**options, "missing": "zero"}
    # missing='ignore' (as compare): the judged queries some run has; 'zero': every judged query
    text = "STRING" if dialect == "spark" else "VARCHAR"
    in_some = "" if options.get("missing", "ignore") == "zero" else (
        f" WHERE CAST(coalesce(e0.{qid}, e1.{qid}) AS {text}) IN ("
        + " UNION ".join(f"SELECT CAST({qid} AS {text}) FROM {_table(t, q, 'run table')}" for t in runs.values())
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
                    f"SELECT DISTINCT {', '.join(segs)}, {qid} FROM {_table(runs[n], q, 'run table')}" for n in (base, name)
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
