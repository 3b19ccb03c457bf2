"""The list form of recommenders: one row per query/user with an ordered list of predicted
items and the ground truth, turned into the long form (run + qrels) and evaluated by the
same engines, so the numbers are those of the equivalent long form.

Ground truth may be a list of relevant items (relevance 1), a list of structs
``{item, relevance}`` (two fields, in that order), or a map item → relevance (pyarrow maps
arrive in Polars as lists of ``{key, value}`` structs). Relevance may be real-valued.

>>> import polars as pl, rankwise as rw
>>> df = pl.DataFrame({"user": ["u1", "u2"], "predicted": [["a", "b", "c"], ["x", "y"]],
...                    "relevant": [["b"], ["z"]]})
>>> out = rw.evaluate_lists(df, ["RR", "P@2"], query_id="user")
>>> out.rows()
[('u1', 0.5, 0.5), ('u2', 0.0, 0.0)]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

import polars as pl

from rankwise.conventions import (
    CONVENTION_KEYWORDS,
    Columns,
    ConventionOptions,
    Unpack,
    check_options,
    checked,
)
from rankwise.errors import (
    ColumnTypeError,
    DuplicateDocumentError,
    EmptyInputError,
    InvalidValueError,
    MissingColumnError,
    warn,
)
from rankwise.evaluation.evaluate import Engine, coverage_seen, evaluate
from rankwise.inputs.read import to_lazyframe
from rankwise.metrics.metric import Metric


@checked
def lists_to_long(
    frame: Any, *, query_id: str = "query_id", predicted: str = "predicted", truth: str = "relevant"
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """(qrels, run) in long form from the list form (judgments first, as everywhere). The run's score is minus the position,
    so the list order is the ranking (no ties); an item twice in a list is an error (as a
    document twice in a query of the long form), and so is a NULL item. An empty or NULL list
    gives its query no run row."""
    lf = to_lazyframe(frame, "run", Columns(query_id=query_id))
    schema = lf.collect_schema()
    for name in (query_id, predicted, truth):
        if name not in schema:
            raise MissingColumnError.from_missing("the list-form input", name, schema.names())
    if not isinstance(schema[predicted], pl.List):
        raise ColumnTypeError(f"column {predicted!r} must be a list of items, found type {schema[predicted]}")
    truth_type = schema[truth]
    map_type = getattr(pl, "Map", None)  # Polars >= 2 has a native Map; older ones lists of structs
    if map_type is not None and isinstance(truth_type, map_type):
        lf = lf.with_columns(pl.col(truth).map.entries())  # type: ignore[attr-defined]
        truth_type = lf.collect_schema()[truth]
    if not isinstance(truth_type, pl.List):
        raise ColumnTypeError(
            f"column {truth!r} must be a list of items, a list of (item, relevance) structs or a map, "
            f"found type {truth_type}"
        )
    holes, repeats = pl.collect_all([
        lf.filter(pl.col(predicted).list.eval(pl.element().is_null()).list.any()).select(query_id).head(1),
        lf.filter(pl.col(predicted).list.n_unique() < pl.col(predicted).list.len())
        .select(query_id, pl.col(predicted).list.eval(pl.element().filter(pl.element().is_duplicated())).list.first())
        .head(1),
    ])
    if holes.height:
        raise InvalidValueError(
            f"column {predicted!r} holds a NULL item (e.g. in the list of query "
            f"{holes[query_id][0]!r}); remove it or fill it"
        )
    if repeats.height:
        user, item = repeats.row(0)
        raise DuplicateDocumentError(
            f"column {predicted!r} lists item {item!r} more than once for query {user!r}; "
            "each item may appear once per list (as each document once per query in the long form)"
        )
    run = (
        lf.select(
            pl.col(query_id).alias("query_id"),
            pl.col(predicted).alias("doc_id"),
            pl.int_ranges(0, pl.col(predicted).list.len()).alias("position"),
        )
        .explode("doc_id", "position")
        .drop_nulls("doc_id")
        .select("query_id", "doc_id", (-pl.col("position").cast(pl.Float64)).alias("score"))
    )
    inner = truth_type.inner
    qrels = lf.select(pl.col(query_id).alias("query_id"), pl.col(truth).alias("t")).explode("t").drop_nulls("t")
    if isinstance(inner, pl.Struct):
        if len(inner.fields) != 2:
            raise ColumnTypeError(
                f"column {truth!r}: structs must have two fields (item, relevance), found {inner}"
            )
        item, rel = (f.name for f in inner.fields)
        qrels = qrels.select(
            "query_id",
            pl.col("t").struct.field(item).alias("doc_id"),
            pl.col("t").struct.field(rel).cast(pl.Float64).alias("relevance"),
        )
    else:
        qrels = qrels.select("query_id", pl.col("t").alias("doc_id"), pl.lit(1, dtype=pl.Int64).alias("relevance"))
    qrels = qrels.unique(["query_id", "doc_id"], keep="first", maintain_order=True)
    return qrels, run


@checked
def evaluate_lists(
    frame: Any,
    metrics: str | Metric | Iterable[str | Metric],
    *,
    query_id: str = "query_id",
    predicted: str = "predicted",
    truth: str = "relevant",
    engine: Engine = "polars",
    **conventions: Unpack[ConventionOptions],
) -> pl.DataFrame:
    """Per-query metric values for the list form; same columns and conventions as
    :func:`rankwise.evaluate` (the output's query column keeps the name ``query_id`` given;
    the keyword ``conventions``: :class:`~rankwise.conventions.ConventionOptions`), but for
    ``missing``, whose default here is the recommender libraries': ``'zero'``, a user with
    ground truth and an empty or NULL list of predictions scores 0 (an empty list is a
    recommendation that found nothing). ``missing='ignore'`` leaves such users out, and a
    :class:`~rankwise.errors.RankwiseWarning` counts them; users without ground truth are left
    out (nothing can be relevant to them) and counted too.

    >>> import polars as pl, rankwise as rw
    >>> df = pl.DataFrame({"user": ["u1", "u2"], "predicted": [["a", "b", "c"], []],
    ...                    "relevant": [["a"], ["z"]]})
    >>> rw.evaluate_lists(df, ["R@3"], query_id="user").rows()
    [('u1', 1.0), ('u2', 0.0)]
    """
    check_options("evaluate_lists", conventions, CONVENTION_KEYWORDS)
    missing = conventions.get("missing", "zero")
    qrels, run = lists_to_long(frame, query_id=query_id, predicted=predicted, truth=truth)
    qrels_frame, run_frame, users = pl.collect_all([
        qrels, run, to_lazyframe(frame, "run", Columns(query_id=query_id)).select(pl.col(query_id).n_unique()),
    ])
    for name, frame_, what in ((predicted, run_frame, "a prediction"), (truth, qrels_frame, "ground truth")):
        if frame_.height == 0:
            raise EmptyInputError(f"no query has {what}: every list of column {name!r} is empty or NULL")
    options = cast(ConventionOptions, {**conventions, "missing": missing})
    with coverage_seen() as seen:
        result = evaluate(qrels_frame, run_frame, metrics, engine=engine, **options)
    (coverage,) = seen
    left_out = []
    if coverage.missing and missing == "ignore":
        left_out.append(
            f"{coverage.missing} with ground truth and an empty list (missing='ignore'; by default they score 0)"
        )
    no_truth = int(users.item()) - qrels_frame["query_id"].n_unique()
    if no_truth:
        left_out.append(f"{no_truth} without ground truth (nothing can be relevant to them)")
    if left_out:
        warn(f"queries left out of the scores: {'; '.join(left_out)}")
    return result.rename({"query_id": query_id}) if query_id != "query_id" else result
