"""rankwise on Spark: the same metrics, from the same SQL definitions (inlined, see
:mod:`rankwise.evaluation.to_sql`), on Spark DataFrames. Nothing is collected to the driver: the result
is a lazy Spark DataFrame, one row per query. Needs ``pip install 'rankwise[spark]'``.

Inputs are checked in two steps. At call time, from the DataFrames' schemas (no Spark job):
a missing column is a :class:`~rankwise.errors.MissingColumnError`, an id column that is not
string or integer or a score/relevance that is not numeric a
:class:`~rankwise.errors.ColumnTypeError`. The data (NULL ids, NULL/NaN scores,
NULL/NaN/infinite relevance, duplicated documents) is checked inside the returned DataFrame's
plan, distributed, when the result is computed (``check=True``, :func:`rankwise.to_sql`).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from rankwise._sql.compiler import INPUT_ORDER
from rankwise.conventions import (
    Columns,
    Conventions,
    EvaluationOptions,
    Unpack,
    check_options,
    checked,
)
from rankwise.errors import ColumnTypeError, InvalidParameterError, MissingColumnError
from rankwise.evaluation.evaluate import metric_of_column
from rankwise.evaluation.to_sql import quoter, statement_sql
from rankwise.inputs.categories import DEFAULT_CATEGORY
from rankwise.inputs.checks import (
    Kind,
    TypeClass,
    base_run_named,
    check_schema,
    check_train_schema,
    ids_as_strings,
)
from rankwise.inputs.columns import Reading
from rankwise.metrics.metric import Metric
from rankwise.names.presets import resolve


def _type_class(data_type: Any) -> TypeClass:
    from pyspark.sql import types as st

    if isinstance(data_type, (st.StringType, st.VarcharType, st.CharType)):
        return "string"
    if isinstance(data_type, (st.ByteType, st.ShortType, st.IntegerType, st.LongType)):
        return "integer"
    if isinstance(data_type, (st.FloatType, st.DoubleType, st.DecimalType)):
        return "float"
    return "other"


def _check_schema(df: Any, kind: Kind, columns: Columns) -> dict[str, TypeClass]:
    """Check a DataFrame's schema (no Spark job); return its columns' type classes."""
    fields = df.schema.fields
    classes = {f.name: _type_class(f.dataType) for f in fields}
    check_schema(classes, {f.name: f.dataType.simpleString() for f in fields}, kind, columns)
    return classes


def _vector_column(features: Any, columns: Columns, column: str | None) -> str:
    """The item features' column of the vectors (``column``, or the single column besides the
    item's), checked: an array of numbers; a missing item column or vector column is an error
    naming it."""
    from pyspark.sql import types as st

    what = "the item features (features=)"
    names = [f.name for f in features.schema.fields]
    if columns.doc_id not in names:
        raise MissingColumnError.from_missing(what, columns.doc_id, names, "doc_id", kind="features")
    others = [n for n in names if n != columns.doc_id]
    if column is None:
        if len(others) != 1:
            raise InvalidParameterError(
                f"{what} hold the columns {others} besides the item's: name the array column of the vectors "
                "(features_column='...')"
            )
        column = others[0]
    if column not in names:
        raise MissingColumnError.from_missing(what, column, names, "features_column")
    data_type = features.schema[column].dataType
    if not isinstance(data_type, st.ArrayType) or not isinstance(data_type.elementType, st.NumericType):
        raise ColumnTypeError(
            f"{what}: the column {column!r} (features_column=) must hold arrays of numbers, found type "
            f"{data_type.simpleString()}"
        )
    return column


def _as_strings(df: Any, names: list[str]) -> Any:
    from pyspark.sql import functions as sf

    quote = quoter("spark")
    for name in names:
        df = df.withColumn(name, sf.col(quote(name)).cast("string"))
    return df


COPARTITION_CONFIG = "spark.sql.requireAllClusterKeysForCoPartition"
"""The Spark setting :func:`evaluate` turns off: with it on (Spark's default), a join by
(query, document) shuffles both inputs again by the two keys although both are already
partitioned by the query, and the windows by query after it shuffle a third time."""


READ_ONCE = "rw_read_once"
"""The column of ``rand()`` that :func:`_by_query` adds to an input read at several places and
that no statement reads."""


def _by_query(df: Any, columns: Sequence[tuple[str, str, str | None]], once: bool) -> Any:
    """``df`` hash-partitioned by the query: the input's one shuffle in an evaluation
    (``tests/engines/test_spark_plan.py`` counts the shuffles of the executed plan).

    Every join, window and aggregate of the statement is by the query (and, for the join of
    the run with the judgments, the document too), so each keeps this partitioning instead of
    shuffling again; with :data:`COPARTITION_CONFIG` off, so does the join by (query, document).

    ``once``: the statement reads the input's CTE at several places (the judgments' ``rw_qrels``:
    the ideal order, the join with the run, the judged queries; with ``check=True`` each input's
    ``rw_*_input``: its data check and the statement), and each reads the one shuffle. Spark
    inlines a deterministic CTE at each place that reads it and prunes and filters each copy
    for its place, so that no two copies' shuffles are alike and each place shuffles the input
    again (the judgments three times, four with the check). A CTE that is not deterministic it
    plans once and reads at each place (``InlineCTE``, ``ReplaceCTERefWithRepartition``), and
    the identical shuffles are written once and reused (``ReusedExchange``). So the input then
    carries a column of ``rand()`` (:data:`READ_ONCE`) that makes its CTE not deterministic for
    that decision; no statement reads it, and Spark prunes it from the plan afterwards (no value
    is drawn). Only where the CTE is read at several places: a CTE read once is inlined into the
    CTE that reads it, which would then be the one not deterministic (and, read at several
    places itself, planned once behind a shuffle of its own).

    ``columns``: the columns the input's CTE (:func:`rankwise.to_sql`'s head) selects, in its
    order: (the input's column, the name the statement gives it, the type it casts it to or
    None). Spark plans a CTE as it is only when its plan ends with a shuffle (else it adds a
    round-robin shuffle above it): with ``once`` the input is renamed to the statement's names
    and cast to its types before the shuffle and renamed back after it, so that the CTE's own
    renaming and casts cancel out and leave the shuffle on top. Nothing is cached: the inputs
    are read, and their shuffle written, by each action, as any Spark plan's."""
    from pyspark.sql import functions as sf

    quote = quoter("spark")
    df.sparkSession.conf.set(COPARTITION_CONFIG, "false")
    query_id = columns[0][0]
    if not once:
        return df.repartition(sf.col(quote(query_id)))
    inner = [
        (sf.col(quote(given)) if cast is None else sf.col(quote(given)).cast(cast)).alias(name)
        for given, name, cast in columns
    ]
    return (
        df.select(*inner, sf.rand().alias(READ_ONCE))
        .repartition(sf.col(columns[0][1]))
        .select(*(sf.col(name).alias(given) for given, name, _ in columns))
    )


@checked
def evaluate(
    qrels: Any,
    run: Any,
    metrics: str | Metric | Iterable[str | Metric],
    *,
    check: bool = True,
    train: Any = None,
    features: Any = None,
    features_column: str | None = None,
    base_run: Any = None,
    catalog: Any = None,
    catalog_column: str | None = None,
    categories: Any = None,
    categories_columns: Mapping[str, str] | None = None,
    groups: Any = None,
    target: Any = None,
    groups_columns: Mapping[str, str] | None = None,
    target_columns: Mapping[str, str] | None = None,
    **options: Unpack[EvaluationOptions],
) -> Any:
    """Per-query metric values of Spark DataFrames ``run`` and ``qrels`` as a Spark DataFrame
    (columns named by the metric strings, sorted by query), like :func:`rankwise.evaluate`
    (the keyword ``options``, conventions and column names:
    :class:`~rankwise.conventions.EvaluationOptions`).

    The schemas are checked at once (:class:`~rankwise.errors.MissingColumnError`,
    :class:`~rankwise.errors.ColumnTypeError`); ids are compared as strings when run and qrels
    disagree (one integer, one string). With ``check=True`` (the default) the data is checked
    when the result is computed, distributed, inside its plan: a NULL id, a NULL or NaN score,
    a NULL, NaN or infinite relevance or a document listed twice for one query makes the
    action (``collect``, ``show``, ``write``, ...) fail with Spark's own exception, raised by
    Spark SQL's ``raise_error`` (error class ``USER_RAISED_EXCEPTION``; in PySpark usually a
    ``py4j.protocol.Py4JJavaError``, as the checks run as subqueries), whose message holds
    ``rankwise:`` and names the problem, the column and an example, e.g. ``rankwise: the run
    lists document 'd3' more than once for query 'q1'``. ``check=False`` leaves the data
    checks out (inputs validated upstream; such rows then count as they are).

    The inputs are repartitioned by the query, and the session's
    ``spark.sql.requireAllClusterKeysForCoPartition`` is set to ``false`` (read when the result
    is planned, at its action), so that the join by (query, document) and the windows and
    aggregates by query reuse that partitioning: the run and the judgments are each shuffled
    once, by the query, with ``check=True`` or not. The judgments are read at three places (the
    ideal order, the join, the judged queries) and the data checks read their input again:
    each reads that one shuffle (Spark's exchange reuse), as each input's CTE is planned once
    (``_by_query``; subtopic qrels without ``check=True`` are shuffled once per place).

    ``ties='input'``: the run's rows are numbered before that shuffle, in the DataFrame's
    order as given (``monotonically_increasing_id()``: its partitions in order, each partition's
    rows in their order; a DataFrame read from files holds their rows in file order, one that
    has been shuffled (a join, a ``repartition``) in no order Spark promises).

    ``train``: a DataFrame of the training interactions (one row per (user, item) interaction,
    the user in the run's query column, the item in its doc column), which the popularity
    family's metrics read (MIUF, ARP, EPC, ...).

    ``features``: a DataFrame of the item features (one row per item, the item in the run's doc
    column, its vector in the array column ``features_column``; default: the single other
    column), which the feature-diversity family reads (ILD, ILS); with ``check=True`` the
    action fails on the faults :func:`rankwise.to_sql` names.

    ``base_run``: a DataFrame of the base run (its columns named as the run's), which the
    base-run family reads (Unexpectedness), ranked as the run is; its schema is checked as the
    run's, and with ``check=True`` its data too, the errors naming the base run.

    Set-level metrics alone (one value per run: ``CatalogCoverage``, ``Gini``, ``Entropy``,
    ``SelfInformation``) give a DataFrame of one row, as ``rankwise.evaluate(..., per_query=False)``
    (:func:`rankwise.to_sql`); ``catalog``: a DataFrame of the catalog's items (in the run's doc
    column's name, or ``catalog_column``), which they read.

    ``categories``: a DataFrame of the item categories (one row per (item, category), the item in
    the run's doc column, the category in ``category``; other names by ``categories_columns``),
    which the category family reads (CategoryDiversity, CategoryEntropy).

    ``groups``: a DataFrame of the document groups (the document in the run's doc column, the
    group in ``group``, its weight in ``weight`` where it has one, else 1; ``groups_columns``
    names them otherwise), which the fair-exposure family reads (AWRF, nDCG_AWRF); ``target``: a
    DataFrame of the target (``group``, ``share``, and the run's query column for one per query;
    ``target_columns`` names them otherwise), or ``'uniform'``, or ``'relevant'``/None (each
    query's relevant documents' shares); with ``check=True`` the action fails on the faults
    :func:`rankwise.to_sql` names."""
    check_options("evaluate", options)
    parsed, resolved = resolve(metrics, options)  # checked before the inputs are read
    columns = Columns.from_options(resolved)
    run_types = _check_schema(run, "run", columns)
    qrels_types = _check_schema(qrels, "qrels", columns)
    q_str, d_str = ids_as_strings(run_types, qrels_types, columns)
    if train is not None:
        fields = train.schema.fields
        train_types = {f.name: _type_class(f.dataType) for f in fields}
        check_train_schema(train_types, {f.name: f.dataType.simpleString() for f in fields}, columns)
        q_train, d_train = ids_as_strings(run_types, train_types, columns)
        q_str, d_str = q_str or q_train, d_str or d_train
    vectors = None
    if features is not None:
        vectors = _vector_column(features, columns, features_column)
        d_str = d_str or _type_class(features.schema[columns.doc_id].dataType) != run_types[columns.doc_id]
    if base_run is not None:
        with base_run_named():
            base_types = _check_schema(base_run, "run", replace(columns, cost=None))
        q_base, d_base = ids_as_strings(run_types, base_types, columns)
        q_str, d_str = q_str or q_base, d_str or d_base
    if catalog is not None:
        item = catalog_column or columns.doc_id
        if item not in catalog.columns:
            raise MissingColumnError.from_missing("the catalog", item, catalog.columns, "catalog_column", column="item column")
        d_str = d_str or _type_class(catalog.schema[item].dataType) != run_types[columns.doc_id]
    category_names = {"doc_id": columns.doc_id, "category": DEFAULT_CATEGORY, **(
        Reading(categories_columns=categories_columns).categories_columns or {}
    )}
    if categories is not None:
        for key, word in (("doc_id", "item column"), ("category", "category column")):
            if category_names[key] not in categories.columns:
                raise MissingColumnError.from_missing(
                    "the item categories (categories=)", category_names[key], categories.columns, "categories_columns",
                    column=word,
                )
        d_str = d_str or _type_class(categories.schema[category_names["doc_id"]].dataType) != run_types[columns.doc_id]
    own_groups, own_target = dict(groups_columns or {}), dict(target_columns or {})
    if groups is not None:
        own_groups.setdefault("doc_id", columns.doc_id)
        for key in ("doc_id", "group"):
            name = own_groups.get(key, key)
            if name not in groups.columns:
                raise MissingColumnError.from_missing("the document groups (groups=)", name, groups.columns, "groups_columns")
        if "weight" not in own_groups and "weight" in groups.columns:
            own_groups["weight"] = "weight"
        d_str = d_str or _type_class(groups.schema[own_groups["doc_id"]].dataType) != run_types[columns.doc_id]
    if target is not None and not isinstance(target, str):
        query = own_target.get("query_id", columns.query_id)
        if query in target.columns:
            own_target["query_id"] = query
            q_str = q_str or _type_class(target.schema[query].dataType) != run_types[columns.query_id]
    text_ids = [name for name, cast in ((columns.query_id, q_str), (columns.doc_id, d_str)) if cast]
    run, qrels = _as_strings(run, text_ids), _as_strings(qrels, text_ids)
    order = None
    if Conventions.from_options(resolved).ties == "input":
        from pyspark.sql import functions as sf

        order = f"rw_input_order_{uuid.uuid4().hex[:12]}"
        run = run.withColumn(order, sf.monotonically_increasing_id())
    # the run's CTE is read at several places only with its data check (else once, by the join)
    run = _by_query(run, [
        (columns.query_id, "query_id", None), (columns.doc_id, "doc_id", None), (columns.score, "score", "double"),
        *([] if columns.cost is None else [(columns.cost, "cost", "double")]),
        *([] if order is None else [(order, INPUT_ORDER, None)]),
    ], once=check)
    # subtopic qrels: their CTE is read at several places surely only with their data check
    # (without it, by the qrels' CTE, a document's largest relevance, and by the diversity
    # measures' alone)
    qrels = _by_query(qrels, [
        (columns.query_id, "query_id", None),
        *([] if columns.subtopic is None else [(columns.subtopic, "subtopic", "string")]),
        (columns.doc_id, "doc_id", None), (columns.relevance, "relevance", "double"),
    ], once=check or columns.subtopic is None)
    suffix = uuid.uuid4().hex[:12]
    run_view, qrels_view = f"rw_run_{suffix}", f"rw_qrels_{suffix}"
    run.createOrReplaceTempView(run_view)
    qrels.createOrReplaceTempView(qrels_view)

    def view(name: str, df: Any, ids: list[str]) -> str | None:
        """A side input as a temporary view (its ids as text where the inputs' disagree), or None."""
        if df is None:
            return None
        _as_strings(df, ids).createOrReplaceTempView(f"rw_{name}_{suffix}")
        return f"rw_{name}_{suffix}"

    doc_ids = [columns.doc_id] if d_str else []
    train_view, base_view = view("train", train, text_ids), view("base_run", base_run, text_ids)
    features_view = view("features", features, doc_ids)
    catalog_view = view("catalog", catalog, [catalog_column or columns.doc_id] if d_str else [])
    groups_view = view("groups", groups, [own_groups["doc_id"]] if d_str else [])
    target_view = target if isinstance(target, str) or target is None else view(
        "target", target, [own_target["query_id"]] if q_str and "query_id" in own_target else []
    )
    categories_view = view("categories", categories, [category_names["doc_id"]] if d_str else [])
    sql = statement_sql(
        parsed, "spark", run_view, qrels_view, check, resolved, input_order=order, train=train_view,
        features=features_view, features_column=vectors or "features", base_run=base_view, catalog=catalog_view,
        catalog_column=catalog_column, categories=categories_view, categories_columns=categories_columns,
        groups=groups_view, target=target_view, groups_columns=own_groups, target_columns=own_target,
    )
    return run.sparkSession.sql(sql)


@checked
def summarize(per_query: Any) -> Any:
    """The aggregate row of a per-query Spark result: means, sums for counts, geometric means
    for GMAP/gm_bpref (as :func:`rankwise.summarize`)."""
    from pyspark.sql import functions as sf

    aggs = []
    for column in per_query.columns:
        metric = metric_of_column(column)
        if metric is None:
            continue
        c = sf.col(quoter("spark")(column))
        if metric.spec.aggregate == "none":
            continue
        if metric.spec.aggregate == "sum":
            aggs.append(sf.sum(c).cast("double").alias(column))
        elif metric.spec.aggregate == "gmean":
            p = metric.resolve()
            eps = float(p["eps"])
            if p["form"] == "trec_eval":
                aggs.append(sf.exp(sf.avg(sf.log(sf.greatest(c, sf.lit(eps))))).alias(column))
            else:
                aggs.append((sf.exp(sf.avg(sf.log(c + sf.lit(eps)))) - sf.lit(eps)).alias(column))
        else:
            aggs.append(sf.avg(c).alias(column))
    return per_query.agg(*aggs)
