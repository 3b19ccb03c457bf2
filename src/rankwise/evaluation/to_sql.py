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
from typing import Any, cast

from rankwise._sql.compiler import INPUT_ORDER, FairViews, build_sql, features_head, literal
from rankwise._sql.inline import Dialect, dialect_rules, expand
from rankwise._sql.sets import set_statement
from rankwise.conventions import (
    SIDE_INPUTS,
    Columns,
    Conventions,
    EvaluationOptions,
    Unpack,
    check_identifier,
    check_options,
    checked,
)
from rankwise.errors import InvalidParameterError
from rankwise.inputs.categories import DEFAULT_CATEGORY
from rankwise.inputs.columns import Reading
from rankwise.metrics.metric import Metric
from rankwise.metrics.recipes import outputs, reading_side
from rankwise.names.presets import resolve


def quoter(dialect: Dialect) -> Callable[[str], str]:
    """Identifier quoting: "double quotes" (DuckDB), `backticks` (Spark); the quote character
    doubled inside. Any text is safe inside: nothing in it is rewritten or executed."""
    return dialect_rules(dialect).quote


def table_name(name: str, quote: Callable[[str], str], what: str) -> str:
    check_identifier(name, what)
    return ".".join(quote(part) for part in name.split("."))


def _head(
    dialect: Dialect, run: str, qrels: str, columns: Columns, check: bool, input_order: str | None = None
) -> list[str]:
    """The CTEs ``rw_run`` and ``rw_qrels``: the inputs with the standard column names and, with
    ``check``, only once their checks (``rw_check_run``/``rw_check_qrels`` of ``sql/``) have
    passed. The checks are uncorrelated scalar subqueries: each input is aggregated once, and
    a fault raises the error when the statement runs. ``input_order`` (``ties='input'``
    only): the SQL of the run rows' order as given, numbered as the run table is scanned
    (:attr:`~rankwise._sql.inline.DialectRules.input_order`) or a column of it."""
    q = quoter(dialect)
    run_select = (
        f"SELECT {q(columns.query_id)} AS query_id, {q(columns.doc_id)} AS doc_id, "
        f"CAST({q(columns.score)} AS DOUBLE) AS score"
        + ("" if columns.cost is None else f", CAST({q(columns.cost)} AS DOUBLE) AS cost")
        + ("" if input_order is None else f", {input_order} AS {INPUT_ORDER}")
        + f" FROM {table_name(run, q, 'run table')}"
    )
    qrels_select = (
        f"SELECT {q(columns.query_id)} AS query_id, {q(columns.doc_id)} AS doc_id, "
        f"CAST({q(columns.relevance)} AS DOUBLE) AS relevance FROM {table_name(qrels, q, 'qrels table')}"
    )
    subtopics: list[str] = []
    if columns.subtopic is not None:
        # subtopic qrels: every other measure reads a document's largest relevance
        subtopics = [
            f"rw_subtopics AS (SELECT {q(columns.query_id)} AS query_id, CAST({q(columns.subtopic)} AS VARCHAR) "
            f"AS subtopic, {q(columns.doc_id)} AS doc_id, CAST({q(columns.relevance)} AS DOUBLE) AS relevance "
            f"FROM {table_name(qrels, q, 'qrels table')})"
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


def _train_head(dialect: Dialect, train: str, columns: Columns, check: bool) -> list[str]:
    """The CTE ``rw_train``: the training interactions as (query_id, doc_id), with ``check``
    only once their check (``rw_train_ok`` of ``sql/50_popularity.sql``) has passed."""
    q = quoter(dialect)
    select = (
        f"SELECT {q(columns.query_id)} AS query_id, {q(columns.doc_id)} AS doc_id "
        f"FROM {table_name(train, q, 'train table')}"
    )
    if not check:
        return [f"rw_train AS ({select})"]
    return [
        f"rw_train_input AS ({select})",
        "rw_train_check AS (SELECT rw_train_ok(count(*), count(*) - count(query_id), count(*) - count(doc_id), "
        f"{literal(columns.query_id)}, {literal(columns.doc_id)}) AS ok FROM rw_train_input)",
        "rw_train AS (SELECT * FROM rw_train_input WHERE (SELECT ok FROM rw_train_check))",
    ]


def _categories_head(
    dialect: Dialect, categories: str, columns: Columns, check: bool, rename: Mapping[str, str] | None = None
) -> list[str]:
    """The CTE ``rw_categories``: the item categories' table as (doc_id, category as text; the
    item in the run's doc column, the category in ``category``, unless ``rename``,
    ``categories_columns``, names them), one row per distinct pair, with ``check`` only once their
    check (``rw_categories_ok`` of ``sql/65_categories.sql``) has passed."""
    q = quoter(dialect)
    names = {"doc_id": columns.doc_id, "category": DEFAULT_CATEGORY, **(rename or {})}
    select = (
        f"SELECT DISTINCT {q(names['doc_id'])} AS doc_id, CAST({q(names['category'])} AS VARCHAR) AS category "
        f"FROM {table_name(categories, q, 'categories table')}"
    )
    if not check:
        return [f"rw_categories AS ({select})"]
    return [
        f"rw_categories_input AS ({select})",
        "rw_categories_check AS (SELECT rw_categories_ok(count(*), count(*) - count(doc_id), count(*) - count(category), "
        f"{literal(names['doc_id'])}, {literal(names['category'])}) AS ok FROM rw_categories_input)",
        "rw_categories AS (SELECT * FROM rw_categories_input WHERE (SELECT ok FROM rw_categories_check))",
    ]


def _base_run_head(dialect: Dialect, base_run: str, columns: Columns, check: bool, input_order: str | None) -> list[str]:
    """The CTE ``rw_base_run``: the base run table as (query_id, doc_id, score[, input_order]),
    named as the run is, with ``check`` only once the run's check (``rw_check_run``, its errors
    naming the base run) has passed; ``input_order``: as :func:`_head`'s, numbered as the table is
    scanned."""
    q = quoter(dialect)
    select = (
        f"SELECT {q(columns.query_id)} AS query_id, {q(columns.doc_id)} AS doc_id, "
        f"CAST({q(columns.score)} AS DOUBLE) AS score"
        + ("" if input_order is None else f", {input_order} AS {INPUT_ORDER}")
        + f" FROM {table_name(base_run, q, 'base run table')}"
    )
    if not check:
        return [f"rw_base_run AS ({select})"]
    return [
        f"rw_base_run_input AS ({select})",
        f"rw_base_run_check AS (SELECT ok FROM rw_check_run('rw_base_run_input', query_id_name := "
        f"{literal(columns.query_id)}, doc_id_name := {literal(columns.doc_id)}, score_name := "
        f"{literal(columns.score)}, subject := 'base run'))",
        "rw_base_run AS (SELECT * FROM rw_base_run_input WHERE (SELECT ok FROM rw_base_run_check))",
    ]


def _catalog_head(dialect: Dialect, catalog: str, column: str, check: bool) -> list[str]:
    """The CTE ``rw_catalog``: the catalog's items as ``doc_id``, with ``check`` only once its
    check (``rw_catalog_ok`` of ``sql/58_sets.sql``: an item at least, no NULL) has passed."""
    q = quoter(dialect)
    select = f"SELECT {q(check_identifier(column, 'column'))} AS doc_id FROM {table_name(catalog, q, 'catalog table')}"
    if not check:
        return [f"rw_catalog AS ({select})"]
    return [
        f"rw_catalog_input AS ({select})",
        "rw_catalog_check AS (SELECT rw_catalog_ok(count(*), count(*) - count(doc_id)) AS ok FROM rw_catalog_input)",
        "rw_catalog AS (SELECT * FROM rw_catalog_input WHERE (SELECT ok FROM rw_catalog_check))",
    ]


def _fair_head(
    dialect: Dialect, groups: str, target: str | None, columns: Columns, groups_columns: Mapping[str, str] | None,
    target_columns: Mapping[str, str] | None, check: bool,
) -> tuple[list[str], FairViews]:
    """The CTEs ``rw_groups`` (doc_id, grp, weight: the groups table's columns named as the run's
    doc column, ``group`` and the weight column ``groups_columns`` names, else 1) and, for a
    ``target`` table, ``rw_target`` (query_id when ``target_columns`` names the query column,
    grp, share: ``group`` and ``share`` unless named; normalised per query); ``target``
    ``'uniform'``: the same share for each group; None or ``'relevant'``: no table (each
    query's relevant documents' shares). With ``check``, each read once its check
    (``rw_groups_ok``/``rw_target_ok`` of ``sql/70_fairness.sql``) has passed."""
    q = quoter(dialect)
    own = dict(groups_columns or {})
    doc = q(check_identifier(own.get("doc_id", columns.doc_id), "column"))
    grp = q(check_identifier(own.get("group", "group"), "column"))
    weight = "1.0" if "weight" not in own else f"CAST({q(check_identifier(own['weight'], 'column'))} AS DOUBLE)"
    select = f"SELECT {doc} AS doc_id, CAST({grp} AS VARCHAR) AS grp, {weight} AS weight FROM {table_name(groups, q, 'groups table')}"
    gate = " WHERE (SELECT ok FROM rw_groups_check)" if check else ""
    ctes = [f"rw_groups_input AS ({select})", f"rw_groups AS (SELECT * FROM rw_groups_input{gate})"]
    if check:
        ctes.insert(1, (
            "rw_groups_check AS (SELECT rw_groups_ok(count(*), count(*) - count(doc_id), count(*) - count(grp), "
            "(SELECT count(*) FROM (SELECT doc_id, grp FROM rw_groups_input GROUP BY doc_id, grp HAVING count(*) > 1) "
            "AS twice), count(*) FILTER (WHERE weight IS NULL OR isnan(weight) OR abs(weight) = CAST('Infinity' AS DOUBLE) OR weight < 0)) AS ok "
            "FROM rw_groups_input)"
        ))
    if target is None or target == "relevant":
        return ctes, FairViews("rw_groups", None)
    if target == "uniform":
        ctes.append(
            "rw_target AS (SELECT grp, 1.0 / count(*) OVER () AS share FROM (SELECT DISTINCT grp FROM rw_groups) AS g)"
        )
        return ctes, FairViews("rw_groups", "rw_target")
    names = dict(target_columns or {})
    per_query = "query_id" in names
    query = f"{q(check_identifier(names['query_id'], 'column'))} AS query_id, " if per_query else ""
    share = f"CAST({q(check_identifier(names.get('share', 'share'), 'column'))} AS DOUBLE)"
    tgrp = q(check_identifier(names.get("group", "group"), "column"))
    keys = "query_id, grp" if per_query else "grp"
    over = "PARTITION BY query_id" if per_query else ""
    ctes += [
        f"rw_target_input AS (SELECT {query}CAST({tgrp} AS VARCHAR) AS grp, {share} AS share "
        f"FROM {table_name(target, q, 'target table')})",
        f"rw_target AS (SELECT {'query_id, ' if per_query else ''}grp, share / sum(share) OVER ({over}) AS share "
        f"FROM rw_target_input{' WHERE (SELECT ok FROM rw_target_check)' if check else ''})",
    ]
    if check:
        null_queries = "count(*) - count(query_id)" if per_query else "0"
        ctes.insert(-1, (
            f"rw_target_check AS (SELECT rw_target_ok(count(*), {null_queries}, count(*) - count(grp), "
            f"(SELECT count(*) FROM (SELECT {keys} FROM rw_target_input GROUP BY {keys} HAVING count(*) > 1) AS twice), "
            "count(*) FILTER (WHERE share IS NULL OR isnan(share) OR abs(share) = CAST('Infinity' AS DOUBLE) OR share < 0), "
            f"(SELECT count(*) FROM (SELECT {'query_id' if per_query else '1 AS one'} FROM rw_target_input "
            f"{'GROUP BY query_id ' if per_query else ''}HAVING sum(share) = 0) AS zero)) AS ok FROM rw_target_input)"
        ))
    return ctes, FairViews("rw_groups", "rw_target", per_query)


def _features_head(dialect: Dialect, features: str, column: str, columns: Columns, check: bool) -> list[str]:
    """The CTE ``rw_features`` of the item features' table (:func:`~rankwise._sql.compiler.features_head`)."""
    rules = dialect_rules(dialect)
    q = rules.quote
    return features_head(
        table_name(features, q, "features table"), q(check_identifier(column, "column")), q(columns.doc_id),
        literal(columns.doc_id), rules.exploded_vector, gate="" if check else None,
    )


@checked
def to_sql(
    metrics: str | Metric | Iterable[str | Metric],
    *,
    dialect: Dialect = "duckdb",
    run: str = "run",
    qrels: str = "qrels",
    check: bool = True,
    train: str | None = None,
    features: str | None = None,
    features_column: str = "features",
    base_run: str | None = None,
    catalog: str | None = None,
    catalog_column: str | None = None,
    categories: str | None = None,
    categories_columns: Mapping[str, str] | None = None,
    groups: str | None = None,
    target: str | None = None,
    groups_columns: Mapping[str, str] | None = None,
    target_columns: Mapping[str, str] | None = None,
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
    inputs validated upstream: such rows then count as they are.

    ``ties='input'``: the run table's rows are numbered in the order its scan yields them
    (DuckDB: ``row_number() OVER ()``, in insertion order while ``preserve_insertion_order``
    is on, DuckDB's default; Spark: ``monotonically_increasing_id()``, the partitions in
    order): SQL tables have no order beyond that.

    ``train``: the table of the training interactions (one row per (user, item) interaction, the
    user in the ``query_id`` column, the item in ``doc_id``, as the run names them), which the
    popularity family's metrics read (MIUF, ARP, EPC, ...); with ``check=True`` the statement
    also fails on an empty table or a NULL id in it.

    ``features``: the table of the item features (one row per item, the item in the ``doc_id``
    column as the run names it, its vector in the list or array column ``features_column``),
    which the feature-diversity family reads (ILD, ILS); with ``check=True`` the statement also
    fails on an empty table, a NULL item or value, a NaN, vectors of different lengths or of
    none, an item given twice, or an item the run lists without features.

    ``base_run``: the table of the base run (its columns named as the run's), which the base-run
    family reads (Unexpectedness), ranked in the statement as the run is; with ``check=True`` the
    statement also fails on the faults of a run in it (NULL ids or scores, NaN scores, a document
    listed twice for one query), naming the base run.

    Set-level metrics alone (``CatalogCoverage``, ``Gini``, ``Entropy``, ``SelfInformation``: one
    value per run) give a statement of one row, their values, as ``evaluate(..., per_query=False)``;
    asked with per-query metrics they are refused by name (two statements). ``catalog``: the
    table of the catalog's items (in the run's doc column's name, or ``catalog_column``), which
    they read, as does the serendipity family (its size); with ``check=True`` the statement also fails
    on an empty catalog or a NULL item.

    ``categories``: the table of the item categories (one row per (item, category), the item in
    the ``doc_id`` column as the run names it, the category in ``category``; other names by
    ``categories_columns={'doc_id': ..., 'category': ...}``), which the category family reads
    (CategoryDiversity, CategoryEntropy); with ``check=True`` the statement also fails on an
    empty table or a NULL item or category.

    ``groups``: the table of the document groups (one row per (document, group): the document in
    the run's doc column's name, the group in ``group``, each weighing 1 unless
    ``groups_columns`` names a weight column, e.g. ``groups_columns={'group': 'gender',
    'weight': 'w'}``), which the fair-exposure family reads (AWRF, nDCG_AWRF). ``target``: the
    table of the target distribution (``group``, ``share``; one per query when
    ``target_columns`` names its query column, e.g. ``target_columns={'query_id': 'topic_id'}``;
    the shares normalised per query), or ``'uniform'`` (the same share for each group), or
    ``'relevant'``/None (each query's relevant documents' shares). With ``check=True`` the
    statement also fails on the faults :mod:`rankwise.inputs.groups` names (no row, NULL ids,
    a pair given twice, a NULL, NaN, infinite or negative weight or share, shares all 0)."""
    return statement_sql(
        metrics, dialect, run, qrels, check, options, train=train, features=features, features_column=features_column,
        base_run=base_run, catalog=catalog, catalog_column=catalog_column, categories=categories,
        categories_columns=categories_columns, groups=groups, target=target,
        groups_columns=groups_columns, target_columns=target_columns,
    )


def statement_sql(
    metrics: str | Metric | Iterable[str | Metric], dialect: Dialect, run: str, qrels: str, check: bool,
    options: Mapping[str, Any], input_order: str | None = None, train: str | None = None,
    features: str | None = None, features_column: str = "features", base_run: str | None = None,
    catalog: str | None = None, catalog_column: str | None = None, categories: str | None = None,
    categories_columns: Mapping[str, str] | None = None,
    groups: str | None = None, target: str | None = None, groups_columns: Mapping[str, str] | None = None,
    target_columns: Mapping[str, str] | None = None,
) -> str:
    """:func:`to_sql`'s statement; ``input_order``: the run table's column that holds its rows'
    order as given (``ties='input'``; None: the rows numbered as the table is scanned)."""
    check_options("to_sql", options)
    rules = dialect_rules(dialect)
    if not isinstance(check, bool):
        raise InvalidParameterError(f"check must be True or False, got {check!r}")
    parsed, options = cast(tuple[list[Metric], EvaluationOptions], resolve(metrics, options))
    conv = Conventions.from_options(options)
    columns = Columns.from_options(options)
    numbered = None
    if conv.ties == "input":
        numbered = rules.input_order if input_order is None else rules.quote(check_identifier(input_order, "column"))
    head = _head(dialect, run, qrels, columns, check, numbered)
    tables = {"train": train, "features": features, "base_run": base_run, "catalog": catalog, "categories": categories,
              "groups": groups, "target": target}
    set_level = [m for m in parsed if m.spec.aggregate == "set"]
    if set_level and len(set_level) < len(parsed):
        other = next(m for m in parsed if m.spec.aggregate != "set")
        raise InvalidParameterError(
            f"{set_level[0].label} is one value per run (a set-level metric) and {other.label} a per-query value: "
            "to_sql gives one or the other, ask them in two statements"
        )
    for keyword, side in SIDE_INPUTS.items():
        readers = reading_side(parsed, conv, keyword)
        if readers and tables[keyword] is None:
            raise InvalidParameterError(
                f"{readers[0]} reads {side.what.split(',')[0]}: pass {keyword}= (the table's name)"
            )
    if train is not None:
        head += _train_head(dialect, train, columns, check)
    if features is not None:
        head += _features_head(dialect, features, features_column, columns, check)
    if base_run is not None:
        head += _base_run_head(dialect, base_run, columns, check, None if numbered is None else rules.input_order)
    if categories is not None:
        head += _categories_head(
            dialect, categories, columns, check, Reading(categories_columns=categories_columns).categories_columns
        )
    fair = None
    if groups is not None:
        fair_ctes, fair = _fair_head(dialect, groups, target, columns, groups_columns, target_columns, check)
        head += fair_ctes
    if set_level:
        if catalog is not None:
            head += _catalog_head(dialect, catalog, catalog_column or columns.doc_id, check)
        return expand("WITH " + ",\n".join(head) + ",\n" + set_statement(
            outputs(set_level, conv), conv, columns, "rw_run", "rw_qrels", train=None if train is None else "rw_train",
            catalog=None if catalog is None else "rw_catalog", item_groups=None if fair is None else fair.groups,
            quote=rules.quote, group=False,
        ).removeprefix("WITH "), dialect)
    # the catalog's size, where a per-query metric reads it (the serendipity family)
    sized = catalog is not None and bool(reading_side(parsed, conv, "catalog"))
    if sized:
        head += _catalog_head(dialect, cast(str, catalog), catalog_column or columns.doc_id, check)
    body = build_sql(
        parsed, conv, columns, "rw_run", "rw_qrels", quote=rules.quote,
        subtopics_view=None if columns.subtopic is None else "rw_subtopics", recursion=rules.recursion_limit,
        train_view=None if train is None else "rw_train", features_view=None if features is None else "rw_features",
        base_view=None if base_run is None else "rw_base_run",
        categories_view=None if categories is None else "rw_categories",
        catalog_view="rw_catalog" if sized else None,
        fair=fair,
    )
    # the head checks the inputs once; build_sql calls the table macros with checks := false
    recursive = body.startswith("WITH RECURSIVE ")
    body = body.removeprefix("WITH RECURSIVE " if recursive else "WITH ")
    sql = ("WITH RECURSIVE " if recursive else "WITH ") + ",\n".join(head) + ",\n" + body
    return expand(sql, dialect)
