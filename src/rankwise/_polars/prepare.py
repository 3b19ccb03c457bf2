"""The inputs of the Polars engine checked and normalised (:func:`prepare`): the schemas always,
the data (NULL ids or values, NaN, infinite relevance, duplicated pairs, costs, subtopics) when
asked; the columns renamed to the engine's own (:mod:`rankwise._polars.columns`) and the ids
cast to text where the run and the qrels disagree on their type. The data checks' counts
(:func:`audit`) are aggregates the evaluation's own group-bys compute, so that checking costs
no pass of its own."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import polars as pl

from rankwise._polars.columns import CATALOG, ORDER, REL, SUB, C, D, Q, S
from rankwise.conventions import Columns
from rankwise.inputs.categories import CATEGORY
from rankwise.inputs.checks import (
    DataProfile,
    Kind,
    Problem,
    TypeClass,
    base_run_named,
    check_costs,
    check_profile,
    check_schema,
    check_train,
    check_train_schema,
    ids_as_strings,
    subtopic_hint,
)
from rankwise.inputs.features import FEATURE, VALUE, check_featured
from rankwise.inputs.groups import GROUP, SHARE, WEIGHT, Fair
from rankwise.inputs.interactions import Training


def type_class(dtype: pl.DataType) -> TypeClass:
    """The class of a Polars column type that the schema checks read."""
    if dtype == pl.String or dtype == pl.Categorical or dtype == pl.Enum:
        return "string"
    if dtype.is_integer():
        return "integer"
    if dtype.is_float() or dtype.is_decimal():
        return "float"
    return "other"


def _types(schema: pl.Schema) -> tuple[dict[str, TypeClass], dict[str, str]]:
    """Each column's type class and type name (what :func:`~rankwise.inputs.checks.check_schema` reads)."""
    return (
        {name: type_class(dt) for name, dt in schema.items()},
        {name: str(dt) for name, dt in schema.items()},
    )


def _duplicate(lf: pl.LazyFrame) -> tuple[object, object] | None:
    """One (query, doc) pair listed twice, if any (exact)."""
    dup = lf.group_by(Q, D).len().filter(pl.col("len") > 1).select(Q, D).head(1).collect()
    return (dup[Q][0], dup[D][0]) if dup.height else None


def _example(frame: pl.LazyFrame, kind: Kind) -> Callable[[Problem], object]:
    """The id of a query holding a bad row (for error messages only)."""
    value = pl.col(S if kind == "run" else REL)
    tests: dict[Problem, pl.Expr] = {
        "null_doc": pl.col(D).is_null(), "null_value": value.is_null(),
        "nan_value": value.is_nan(), "inf_value": value.is_infinite(),
        "null_subtopic": pl.col(SUB).is_null(),  # subtopic qrels (:func:`check_subtopics`)
    }

    def find(problem: Problem) -> object:
        found = frame.filter(tests[problem]).select(Q).head(1).collect()
        return found[Q][0] if found.height else None

    return find


@dataclass(frozen=True)
class Judgments:
    """The judgments' side of an evaluation, collected once over every judgment
    (:func:`~rankwise._polars.plan.judgments_once`): the per-query aggregates and each gain's
    ideal prefix lists, which each query group's plans cut to its queries."""

    qstats: pl.DataFrame
    prefix_lists: tuple[pl.DataFrame, ...]


@dataclass
class Prepared:
    """Normalised inputs: run (``__q, __d, __s``) and qrels (``__q, __d, __rel``)."""

    run: pl.LazyFrame
    qrels: pl.LazyFrame
    query_dtype: pl.DataType
    columns: Columns
    doc_dtype: pl.DataType = field(default_factory=pl.String)
    subtopics: pl.LazyFrame | None = None
    """The judgments per subtopic (``__q, __d, __sub, __rel``); None: the qrels, one subtopic
    per query (:func:`subtopic_judgments`)."""
    hint: str = ""
    """Ends the error of a duplicated (query, doc) pair of the qrels
    (:func:`~rankwise.inputs.checks.subtopic_hint`)."""
    train: pl.LazyFrame | None = None
    """The training interactions (``__q, __d``: user, item), ids of the run's types; None: none given."""
    seen: pl.LazyFrame | None = None
    """The (query, item) pairs whose user has the item among its training rows (``__q, __d``);
    None: those of :attr:`train` (``explain`` keys each cut ranking's query by its depth)."""
    features: pl.LazyFrame | None = None
    """The item features in the long form of :mod:`rankwise.inputs.features` (``__d``, the
    dimension, the value), ids of the run's type; None: none given."""
    train_tables: tuple[pl.LazyFrame, pl.LazyFrame] | None = None
    """The training's per-item values and totals (:func:`~rankwise._polars.plan.train_tables`),
    computed once for every query group; None: from :attr:`train` where read."""
    base_run: pl.LazyFrame | None = None
    """The base run normalised as the run is (``__q, __d, __s``, and ``__order`` under
    ``ties='input'``), ids of the run's types; None: none given."""
    categories: pl.LazyFrame | None = None
    """The item categories in the long form of :mod:`rankwise.inputs.categories` (``__d``, the
    category as text), ids of the run's type; None: none given."""
    catalog: pl.LazyFrame | None = None
    """The catalog's size, one row (:data:`~rankwise._polars.columns.CATALOG`: its distinct
    items); None: no catalog given."""
    groups: pl.LazyFrame | None = None
    """The document groups (``__d``, :data:`~rankwise.inputs.groups.GROUP`,
    :data:`~rankwise.inputs.groups.WEIGHT`), ids of the run's type; None: none given."""
    target: pl.LazyFrame | None = None
    """The target's shares (``__q`` when per query, :data:`~rankwise.inputs.groups.GROUP`,
    :data:`~rankwise.inputs.groups.SHARE`), ids of the run's type; None: the groups' shares of
    each query's relevant documents (:func:`~rankwise._polars.plan.fair_targets`)."""


    judgments: Judgments | None = None
    """The judgments' side computed once already (an Evaluator's), or None: each plan's own."""
    in_rank_order: bool = False
    """Whether the run's rows are already in the ranking's order (each query's rows together,
    in the tie policy's order: :func:`~rankwise._polars.ranking.in_rank_order`): the ranking
    then keeps each query's rows as they come instead of sorting them."""

    def count_plans(self) -> list[pl.LazyFrame]:
        """The data checks' counting passes (run, qrels), a group-by per query each, whose
        results :meth:`check` reads (an evaluation counts the same in its own group-bys)."""
        return [
            audit_counts(self.run.group_by(Q).agg(*audit(S))),
            audit_counts(self.qrels.group_by(Q).agg(*audit(REL))),
        ]

    def check(self, counts: Sequence[pl.DataFrame]) -> None:
        """Raise the specific error for NULL/NaN values or a duplicate (query, doc) pair."""
        checks: tuple[tuple[Kind, pl.DataFrame, pl.LazyFrame], ...] = (
            ("run", counts[0], self.run), ("qrels", counts[1], self.qrels),
        )
        for kind, count, frame in checks:
            self._check_one(kind, count, frame)

    def check_run(self, count: pl.DataFrame | None = None) -> None:
        """The run's data checks alone (a comparison of two runs has no qrels; an evaluation
        checks its qrels first), on its ``count`` if counted already."""
        self._check_one("run", self.count_plans()[0].collect() if count is None else count, self.run)

    def check_qrels(self) -> None:
        """The qrels' data checks alone, before an evaluation: a duplicated (query, doc) pair
        of the qrels multiplies the rows of every join with them (the run's, the greedy ideal's
        steps of the diversity measures), so the evaluation runs on qrels known to hold each
        pair once; each run row then joins one judgment at most, and nothing grows with the
        run's own duplicates, found by the evaluation's counts."""
        self._check_one("qrels", self.count_plans()[1].collect(), self.qrels)

    def _check_one(self, kind: Kind, count: pl.DataFrame, frame: pl.LazyFrame) -> None:
        row = count.row(0, named=True)
        repeats = row.pop("distinct_pairs") < row["rows"]
        duplicate = _duplicate(frame) if repeats else None
        check_profile(
            DataProfile(duplicate=duplicate, **row), kind, self.columns, _example(frame, kind),
            self.hint if kind == "qrels" else "",
        )


def prepare(
    run: pl.LazyFrame, qrels: pl.LazyFrame, columns: Columns, *, check_data: bool = True,
    diversity: Sequence[str] = (), input_order: bool = False, train: Training | None = None,
    features: pl.DataFrame | None = None, base_run: pl.LazyFrame | None = None,
    categories: pl.DataFrame | None = None,
    catalog: pl.LazyFrame | None = None,
    fair: Fair | None = None,
) -> Prepared:
    """Check schemas (always) and data (NULL/NaN/duplicates, when ``check_data``); rename to
    internal columns; cast ids to strings where run and qrels disagree on their type. With
    ``input_order`` (``ties='input'`` only) the run's rows are numbered in the order it is
    given (``__order``, :data:`~rankwise._polars.columns.ORDER`): a frame's row order, a scan's
    (files in the order of their names, each file's rows in its order).
    ``diversity``: the labels of the diversity measures asked for, named by the error of a
    duplicated pair of qrels that hold a subtopic column (:func:`~rankwise.inputs.checks.subtopic_hint`).
    ``base_run`` (``base_run=``) is checked as a run is, its errors naming it, and normalised
    as the run is, its ids meeting the run's. ``catalog`` (``catalog=``, its items as read) gives
    its size (:attr:`Prepared.catalog`). ``fair``: the document groups and the target
    (:class:`~rankwise.inputs.groups.Fair`), their ids meeting the run's."""
    run_schema, qrels_schema = run.collect_schema(), qrels.collect_schema()
    run_types, run_raw = _types(run_schema)
    qrels_types, qrels_raw = _types(qrels_schema)
    check_schema(run_types, run_raw, "run", columns)
    check_schema(qrels_types, qrels_raw, "qrels", columns)
    q_str, d_str = ids_as_strings(run_types, qrels_types, columns)
    if train is not None:
        # the training interactions' ids meet the run's: all three as text where any disagree
        train_types, train_raw = _types(train.rows.collect_schema())
        check_train_schema(train_types, train_raw, columns)
        q_train, d_train = ids_as_strings(run_types, train_types, columns)
        # with seen pairs (keyed by the run's queries), the users of the rows meet no query
        q_str, d_str = q_str or (q_train and train.seen is None), d_str or d_train
    if features is not None:
        # the item features' ids meet the run's: as text where they disagree
        feature_types, _ = _types(features.schema)
        d_str = d_str or feature_types[columns.doc_id] != run_types[columns.doc_id]
    if categories is not None:
        # the item categories' ids meet the run's: as text where they disagree
        category_types, _ = _types(categories.schema)
        d_str = d_str or category_types[columns.doc_id] != run_types[columns.doc_id]
    if fair is not None:
        # the groups' documents and the target's queries meet the run's: as text where they disagree
        d_str = d_str or _types(fair.groups.schema)[0][columns.doc_id] != run_types[columns.doc_id]
        shares = fair.target
        if shares is not None and columns.query_id in shares.columns:
            q_str = q_str or _types(shares.schema)[0][columns.query_id] != run_types[columns.query_id]
    if base_run is not None:
        # the base run's ids meet the run's: all three as text where any disagree
        base_types = check_base_run_schema(base_run.collect_schema(), columns)
        q_base, d_base = ids_as_strings(run_types, base_types, columns)
        q_str, d_str = q_str or q_base, d_str or d_base

    def categorical(c: str) -> bool:
        return any(isinstance(s[c], (pl.Categorical, pl.Enum)) for s in (run_schema, qrels_schema))

    def ids(c: str, as_str: bool) -> pl.Expr:
        e = pl.col(c)
        # Categorical and Enum ids are compared (and tie-broken) as their text
        return e.cast(pl.String) if as_str or categorical(c) else e

    r = (run.with_row_index(ORDER) if input_order else run).select(
        ids(columns.query_id, q_str).alias(Q),
        ids(columns.doc_id, d_str).alias(D),
        pl.col(columns.score).cast(pl.Float64).alias(S),
        *([] if columns.cost is None else [pl.col(columns.cost).cast(pl.Float64).alias(C)]),
        *([pl.col(ORDER)] if input_order else []),
    )
    j = qrels.select(
        ids(columns.query_id, q_str).alias(Q),
        ids(columns.doc_id, d_str).alias(D),
        pl.col(columns.relevance).cast(pl.Float64).alias(REL),
    )
    subs = None
    if columns.subtopic is not None:
        # subtopic qrels: ndeval's traditional view for every other measure, a document's
        # largest relevance over its subtopics
        subs = qrels.select(
            ids(columns.query_id, q_str).alias(Q),
            ids(columns.doc_id, d_str).alias(D),
            pl.col(columns.subtopic).cast(pl.String).alias(SUB),
            pl.col(columns.relevance).cast(pl.Float64).alias(REL),
        )
        if check_data:
            check_subtopics(subs, columns)
        j = subs.group_by(Q, D).agg(pl.col(REL).max())
    schema = r.collect_schema()

    def user_items(frame: pl.LazyFrame, users: bool = True) -> pl.LazyFrame:
        # the training's ids in the run's types (as text first where any input's disagree); with
        # users=False the users as text: they are only counted
        user = pl.col(columns.query_id).cast(pl.String)
        return frame.select(
            (((user if q_str else pl.col(columns.query_id)).cast(schema[Q])) if users else user).alias(Q),
            (pl.col(columns.doc_id).cast(pl.String) if d_str else pl.col(columns.doc_id)).cast(schema[D]).alias(D),
        )

    prep = Prepared(
        r, j, schema[Q], columns, schema[D], subs, subtopic_hint(qrels_types, diversity, columns),
        features=None if features is None else features.lazy().select(
            (pl.col(columns.doc_id).cast(pl.String) if d_str else pl.col(columns.doc_id)).cast(schema[D]).alias(D),
            pl.col(FEATURE), pl.col(VALUE),
        ),
    )
    if categories is not None:
        prep.categories = categories.lazy().select(
            (pl.col(columns.doc_id).cast(pl.String) if d_str else pl.col(columns.doc_id)).cast(schema[D]).alias(D),
            pl.col(CATEGORY),
        )
    if train is not None:
        prep.train = user_items(train.rows, users=train.seen is None)
        prep.seen = None if train.seen is None else user_items(train.seen)
    if base_run is not None:
        prep.base_run = (base_run.with_row_index(ORDER) if input_order else base_run).select(
            ids(columns.query_id, q_str).cast(schema[Q]).alias(Q),
            ids(columns.doc_id, d_str).cast(schema[D]).alias(D),
            pl.col(columns.score).cast(pl.Float64).alias(S),
            *([pl.col(ORDER)] if input_order else []),
        )
    if catalog is not None:
        prep.catalog = catalog.select(pl.first().n_unique().cast(pl.Float64).alias(CATALOG["ncatalog"]))
    if fair is not None:
        prep.groups = fair.groups.lazy().select(
            (pl.col(columns.doc_id).cast(pl.String) if d_str else pl.col(columns.doc_id)).cast(schema[D]).alias(D),
            pl.col(GROUP), pl.col(WEIGHT),
        )
        if fair.target is not None:
            per_query = columns.query_id in fair.target.columns
            prep.target = fair.target.lazy().select(
                *([(pl.col(columns.query_id).cast(pl.String) if q_str else pl.col(columns.query_id)).cast(schema[Q]).alias(Q)]
                  if per_query else []),
                pl.col(GROUP), pl.col(SHARE),
            )
    if check_data:
        check_run_costs(prep)
        prep.check(pl.collect_all(prep.count_plans()))
        check_base_run(prep)
    return prep


def check_base_run_schema(schema: pl.Schema, columns: Columns) -> dict[str, TypeClass]:
    """The base run's columns checked as a run's are (:func:`~rankwise.inputs.checks.check_schema`),
    the errors naming the base run; its columns' type classes."""
    types, raw = _types(schema)
    with base_run_named():
        check_schema(types, raw, "run", replace(columns, cost=None))
    return types


def check_base_run(prep: Prepared) -> None:
    """The base run's data checked as a run's are (NULL ids or scores, NaN scores, a document
    listed twice for a query, no row), the errors naming the base run."""
    if prep.base_run is None:
        return
    base = replace(prep, run=prep.base_run, in_rank_order=False)
    with base_run_named():
        base.check_run()


def checked_base_run(prep: Prepared) -> Prepared:
    """``prep`` with its base run collected once and checked (:func:`check_base_run`)."""
    if prep.base_run is None:
        return prep
    with base_run_named():
        prep = replace(prep, base_run=prep.base_run.collect().lazy())
    check_base_run(prep)
    return prep


def checked_train(train: pl.LazyFrame, columns: Columns) -> pl.LazyFrame:
    """The training interactions (``__q, __d``) collected once, checked: none at all, or a NULL
    user or item, is an error naming the column."""
    frame = train.collect()
    check_train(frame.height, {name: frame[col].null_count() for name, col in (("query_id", Q), ("doc_id", D))}, columns)
    return frame.lazy()


def checked_features(prep: Prepared) -> Prepared:
    """``prep`` with its item features collected once, checked against the run: an item the run
    lists without features is an error naming it (:func:`~rankwise.inputs.features.check_featured`)."""
    if prep.features is None:
        return prep
    features = prep.features.collect()
    missing = prep.run.select(D).unique().join(features.lazy().select(D).unique(), on=D, how="anti").sort(D)
    found, count = pl.collect_all([missing.head(3), missing.select(pl.len())])
    check_featured(found[D].to_list(), int(count.item()))
    return replace(prep, features=features.lazy())


def check_run_costs(prep: Prepared) -> None:
    """A run with a cost column: a NULL, NaN, negative or infinite cost is an error naming the
    column and a query holding one."""
    if prep.columns.cost is None:
        return
    c = pl.col(C)
    bad = c.is_null() | c.is_nan() | c.is_infinite() | (c < 0)
    found = prep.run.select(bad.sum().alias("n"), pl.col(Q).filter(bad).first().alias("q")).collect()
    check_costs(int(found["n"][0]), prep.columns, found["q"][0])


def check_subtopics(subs: pl.LazyFrame, columns: Columns) -> None:
    """Subtopic qrels: their rows (a judgment per subtopic) get every check of qrels
    (:func:`~rankwise.inputs.checks.check_profile`: NULL ids, NULL/NaN/infinite relevance), and a
    NULL subtopic or a document judged twice for one subtopic of a query is an error naming it.
    Checked here, row by row, before a document's judgments are reduced to their largest (which
    would hide a NaN or a negative infinity)."""
    counts = audit_counts(
        subs.group_by(Q, SUB).agg(*audit(REL)),
        pl.col("__rows").filter(pl.col(SUB).is_null()).sum().alias("null_subtopic"),
    ).collect()
    row = counts.row(0, named=True)
    duplicate = None
    if row.pop("distinct_pairs") < row["rows"]:
        dup = subs.group_by(Q, D, SUB).len().filter(pl.col("len") > 1).select(Q, D, SUB).head(1).collect()
        duplicate = dup.row(0) if dup.height else None
    check_profile(DataProfile(duplicate=duplicate, **row), "qrels", columns, _example(subs, "qrels"))


def subtopic_judgments(prep: Prepared) -> pl.LazyFrame:
    """The judgments per subtopic: the subtopic qrels, or (ordinary qrels) every judgment of a
    query for one subtopic, as ir-measures' ndeval provider reads 3-column qrels."""
    if prep.subtopics is not None:
        return prep.subtopics
    return prep.qrels.select(Q, D, pl.lit("0").alias(SUB), REL)


def audit(value: str) -> list[pl.Expr]:
    """Per query, over all its rows (before ``max_rank``): the data checks' counts, computed
    in a group-by the evaluation runs anyway, so that the checks cost no pass of their own."""
    return [
        pl.len().alias("__rows"),
        # distinct 64-bit hashes of the doc ids: a third of the CPU of distinct strings. A
        # collision can only lower the count; then :meth:`Prepared.check` looks for a repeated
        # pair exactly (:func:`_duplicate`) and finds none
        pl.col(D).hash().n_unique().alias("__distinct_docs"),
        pl.col(D).null_count().alias("__null_doc"),
        pl.col(value).null_count().alias("__null_value"),
        pl.col(value).is_nan().sum().alias("__nan_value"),
        # infinite relevance is refused; an infinite score ranks first or last
        (pl.col(value).is_infinite().sum() if value == REL else pl.lit(0, pl.UInt32)).alias("__inf_value"),
    ]


def audit_counts(groups: pl.LazyFrame, *extra: pl.Expr) -> pl.LazyFrame:
    """One input's data-check counts (rows, NULL ids, NULL/NaN values, distinct (query, doc)
    pairs) from the :func:`audit` columns of its per-query groups."""
    return groups.select(
        pl.col("__rows").sum().alias("rows"),
        pl.col("__rows").filter(pl.col(Q).is_null()).sum().alias("null_query"),
        pl.col("__null_doc").sum().alias("null_doc"),
        pl.col("__null_value").sum().alias("null_value"),
        pl.col("__nan_value").sum().alias("nan_value"),
        pl.col("__inf_value").sum().alias("inf_value"),
        pl.col("__distinct_docs").sum().alias("distinct_pairs"),
        *extra,
    )
