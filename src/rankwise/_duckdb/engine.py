"""The DuckDB engine: every number is computed in SQL by the ``rw_*`` macros of ``sql/``.

Python only (1) exposes the inputs as views with the standard column names, (2) runs the
shared input checks, and (3) runs the statement the SQL compiler
(:func:`rankwise._sql.compiler.build_sql`) writes for the metrics.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, cast

import polars as pl

from rankwise._duckdb.macros import register
from rankwise._sql.compiler import (
    INPUT_ORDER,
    RANKED_RUN_COLUMNS,
    UNJUDGED_COLUMN,
    FairViews,
    build_sql,
    literal,
)
from rankwise.conventions import TIE_ORDERS, Columns, Conventions, quote_identifier
from rankwise.errors import InvalidParameterError, RankwiseError
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
    value_column,
)
from rankwise.inputs.features import FEATURE, VALUE, check_featured
from rankwise.inputs.groups import GROUP, SHARE, WEIGHT, Fair
from rankwise.inputs.interactions import Training
from rankwise.inputs.read import (
    Source,
    cheap_to_count,
    check_format,
    check_header,
    check_not_empty,
    check_parquet,
    csv_overrides,
    expand_path,
    file_format,
    has_glob_chars,
    header_names,
    is_gzip,
    to_lazyframe,
)
from rankwise.metrics.metric import Metric
from rankwise.metrics.recipes import Output, reading_subtopics

if TYPE_CHECKING:  # DuckDB is imported when it evaluates: `import rankwise` stays light
    import duckdb

_counter = itertools.count()
CHECK_THREADS_MIN_ROWS = 1_000_000
"""The checks run with one more thread (:func:`_check_threads`) when the inputs hold at least
this many rows together, or an unknown number: on small inputs changing DuckDB's thread count
costs more than it saves (50 queries x 1,000 documents: 98 against 79 ms of CPU a call)."""


def type_class(sql_type: str) -> TypeClass:
    t = sql_type.upper()
    if t in ("VARCHAR", "STRING", "TEXT") or t.startswith("VARCHAR") or t.startswith("ENUM"):
        return "string"
    if t in ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
             "UINTEGER", "UBIGINT", "UHUGEINT"):
        return "integer"
    if t in ("FLOAT", "DOUBLE", "REAL") or t.startswith("DECIMAL"):
        return "float"
    return "other"


def _source(
    con: duckdb.DuckDBPyConnection, obj: Source, kind: Kind, columns: Columns, fmt: str | None
) -> tuple[str, bool]:
    """Expose an input, read once (:meth:`~rankwise.inputs.columns.Reading.source`: a Polars
    frame, or a path) to SQL; returns a FROM-clause fragment, and whether its rows are already
    in memory (a DataFrame, not files to read or a lazy query to run). Parquet and CSV files
    (also folders, globs, hive partitions, gzip) are read by DuckDB itself, other files through
    Polars."""
    if isinstance(obj, (str, os.PathLike)):
        check_format(fmt)
        files, many = expand_path(obj)
        chosen = file_format(files, os.fspath(obj), columns, fmt)
        paths = "[" + ", ".join(literal(str(f)) for f in files) + "]"
        # DuckDB's readers glob every path they are given: a file whose name holds glob
        # characters is read through Polars instead (to_lazyframe), as that very file
        literal_names = not any(has_glob_chars(f) for f in files)
        if chosen == "parquet" and literal_names:
            check_parquet(files)
            return f"read_parquet({paths}, hive_partitioning = {literal(many)}, union_by_name = true)", False
        if chosen in ("csv", "tsv") and literal_names and all(
            not is_gzip(f) or f.suffix.lower() == ".gz" for f in files
        ):
            check_not_empty(files)
            sep = "," if chosen == "csv" else "\t"
            for f in files:  # a file without a header row is named as such
                check_header(f, sep, kind, columns, None, None)
            # ids are text and the value a float, not inferred from the first rows
            present = set(header_names(files[0], sep))
            types = ", ".join(
                f"{literal(name)}: {'VARCHAR' if dtype == pl.String else 'DOUBLE'}"
                for name, dtype in csv_overrides(kind, columns).items() if name in present
            )
            return (
                f"read_csv({paths}, header = true, delim = {literal(sep)}, union_by_name = true, "
                f"types = {{{types}}})"
            ), False
        obj = to_lazyframe(obj, kind, columns, fmt)
    name = f"rw_input_{kind}_{next(_counter)}"
    con.register(name, _handed_over(obj))
    # a registered LazyFrame is collected anew by every statement that scans it
    return quote_identifier(name), isinstance(obj, pl.DataFrame)


def _handed_over(obj: pl.DataFrame | pl.LazyFrame) -> Any:
    """What DuckDB is given for a frame: a DataFrame as Arrow with the newest layouts (text as
    string views, as Polars holds it: no copy into Arrow's offsets-and-bytes strings, and a
    cheaper scan), which DuckDB reads as the same types and values as the frame itself (its
    own hand-over calls ``to_arrow()`` with the oldest layouts); at 50 queries x 1,000 documents
    about 1.5 ms less CPU a call (benchmarks/README.md, "Issue 38, session 48"). A frame with a
    column of Python objects, and a LazyFrame, go as they are (DuckDB refuses the first and
    collects the second per scan)."""
    if isinstance(obj, pl.DataFrame) and pl.Object not in obj.schema.dtypes():
        return obj.to_arrow(compat_level=pl.CompatLevel.newest())
    return obj


RANKED_MIN_ROWS = 100_000
"""A run is looked at for rank order (:func:`rank_order`) from this many rows (a path: from
:data:`RANKED_MIN_BYTES` of files): below it, sorting each query costs little."""
RANKED_MIN_BYTES = 1_000_000
RANKED_SAMPLE_ROWS = 10_000
"""The first rows of a run's files read (by Polars) to tell whether the run may be in rank order,
before the whole run is read that way: a shuffled run is told there, and DuckDB then reads its
files as before."""
_RANK = "__rw_rank"
_LAST = "__rw_last"


def rank_order(run: Source, conv: Conventions, columns: Columns, fmt: str | None) -> tuple[Source, bool, bool]:
    """The run, and whether it is already in its ranking's order: each query's rows together,
    and each row at or below the one before it by the tie policy's keys
    (:func:`rankwise._polars.ranking.in_rank_order`, one pass over consecutive rows). Such a run
    is returned as a Polars DataFrame carrying each row's rank in its query (``__rw_rank``: 1,
    2, ...) and a mark of each query's last row (``__rw_last``: 1, else 0), which
    :func:`_normalise` exposes as :data:`~rankwise._sql.compiler.RANKED_RUN_COLUMNS`: the
    statement then reads the ranks instead of sorting each query again (the window with
    PARTITION BY always sorts in DuckDB, presorted or not). The third value: whether the run's
    rows were read here into memory (files or a LazyFrame; :func:`evaluate_duckdb` then copies
    them into a table as it would have copied the files).

    Looked at: runs of at least :data:`RANKED_MIN_ROWS` rows (files: :data:`RANKED_MIN_BYTES`),
    under the tie policies ordering ties by the doc id as text (``trec_eval``, ``doc_asc``,
    ``expected``: the order of ids that only meet the judgments as text is that of their text);
    a path is read by Polars as the Polars engine reads it (:func:`to_lazyframe`), and it or a
    LazyFrame collected whole only when its first :data:`RANKED_SAMPLE_ROWS` rows are in order
    (else DuckDB reads it as before). Anything else, an input that
    cannot be read that way (left to the usual reading, which raises the specific error), and
    a hive-partitioned folder (whose partition columns the two readers may type differently) is
    returned as given, to be sorted."""
    if any(key not in ("score", "doc_text") for key, _ in TIE_ORDERS[conv.tie_order]):
        return run, False, False
    try:
        if isinstance(run, (str, os.PathLike)):
            files, many = expand_path(run)
            if sum(f.stat().st_size for f in files) < RANKED_MIN_BYTES or (
                many and any("=" in part for f in files for part in f.parts)
            ):
                return run, False, False
        lazy = to_lazyframe(run, "run", columns, fmt) if isinstance(run, (str, os.PathLike)) else run
        if isinstance(lazy, pl.LazyFrame):
            # a scan (files, or a LazyFrame's projections and filters of them) is sampled first;
            # a caller's pipeline (joins, sorts, Python functions) is run once, whole: the engine
            # would copy it into a table anyway, and a sample of it could cost a second run
            if cheap_to_count(lazy) and not _in_rank_order(lazy.head(RANKED_SAMPLE_ROWS).collect(), conv, columns):
                return run, False, False
            frame, read = lazy.collect(), True
        else:
            frame, read = lazy, False
    except (pl.exceptions.PolarsError, RankwiseError, OSError):
        return run, False, False
    if frame.height < RANKED_MIN_ROWS or not _in_rank_order(frame, conv, columns):
        return frame, False, read
    # each query's rows stand together: its ranks run 1, 2, ... down its rows
    # (narrow types: the frame is read in place, and stays in memory while the statement runs)
    lengths = frame.select(pl.col(columns.query_id).rle().struct.field("len")).to_series()
    rank = pl.select(pl.int_ranges(1, pl.lit(lengths) + 1, dtype=pl.Int32).explode()).to_series()
    last = (rank.shift(-1, fill_value=1) == 1).cast(pl.UInt8)
    return frame.with_columns(rank.alias(_RANK), last.alias(_LAST)), True, read


def _in_rank_order(frame: pl.DataFrame, conv: Conventions, columns: Columns) -> bool:
    """Whether the run's rows (as read: the configured column names) are in the ranking's order;
    ids that are neither text nor integers, or a score that is not a number, are not looked at."""
    from rankwise._polars.columns import D, Q, S
    from rankwise._polars.ranking import in_rank_order

    schema = frame.schema
    score = value_column("run", columns)
    if not {columns.query_id, columns.doc_id, score} <= set(schema) or not all(
        schema[c] == pl.String or schema[c].is_integer() for c in (columns.query_id, columns.doc_id)
    ) or not schema[score].is_numeric():
        return False
    run = frame.select(
        pl.col(columns.query_id).alias(Q), pl.col(columns.doc_id).alias(D), pl.col(score).cast(pl.Float64).alias(S)
    )
    return in_rank_order(run, conv, schema[columns.doc_id])


def _view(
    con: duckdb.DuckDBPyConnection, obj: Source, kind: Kind, columns: Columns, fmt: str | None = None
) -> tuple[str, dict[str, TypeClass], bool]:
    """A raw view of the input; returns its name, its column type classes (schema checked) and
    whether its rows are already in memory. An input registered under a name (a frame) is read
    under that name: a view over it would cost a statement (about 0.2 ms a call and input at 50
    queries x 1,000 documents) and change nothing."""
    src, in_memory = _source(con, obj, kind, columns, fmt)
    raw = _registered_name(src)
    if raw is None:
        raw = f"rw_raw_{kind}_{next(_counter)}"
        con.execute(f"CREATE TEMP VIEW {quote_identifier(raw)} AS SELECT * FROM {src}")
    rel = con.sql(f"SELECT * FROM {quote_identifier(raw)} LIMIT 0")
    raw_types = {c: str(t) for c, t in zip(rel.columns, rel.types, strict=True)}
    classes = {c: type_class(t) for c, t in raw_types.items()}
    check_schema(classes, raw_types, kind, columns)
    return raw, classes, in_memory


def _registered_name(src: str) -> str | None:
    """The name of a registered input, when :func:`_source`'s FROM fragment ``src`` is that name
    quoted (not a table function's call)."""
    name = src[1:-1].replace('""', '"') if len(src) > 1 and src[0] == src[-1] == '"' else None
    return name if name is not None and quote_identifier(name) == src else None


def _train_view(
    con: duckdb.DuckDBPyConnection, train: pl.LazyFrame, columns: Columns, run_types: Mapping[str, TypeClass]
) -> tuple[str, bool, bool]:
    """The training interactions read once (a registered frame), checked (schema: the user and
    item columns; data: rows, NULL ids); returns the raw view's name and whether its user and
    item ids meet the run's only as text."""
    frame = train.select(columns.query_id, columns.doc_id) if _has_ids(train, columns) else train
    raw = f"rw_raw_train_{next(_counter)}"
    con.register(raw, frame.collect())
    rel = con.sql(f"SELECT * FROM {quote_identifier(raw)} LIMIT 0")
    raw_types = {c: str(t) for c, t in zip(rel.columns, rel.types, strict=True)}
    classes = {c: type_class(t) for c, t in raw_types.items()}
    check_train_schema(classes, raw_types, columns)
    qi, di = quote_identifier(columns.query_id), quote_identifier(columns.doc_id)
    counts = con.execute(
        f"SELECT count(*), count(*) - count({qi}), count(*) - count({di}) FROM {quote_identifier(raw)}"
    ).fetchall()[0]
    check_train(int(counts[0]), {"query_id": int(counts[1]), "doc_id": int(counts[2])}, columns)
    q_str, d_str = ids_as_strings(run_types, classes, columns)
    return raw, q_str, d_str


def _has_ids(frame: pl.LazyFrame, columns: Columns) -> bool:
    names = frame.collect_schema().names()
    return columns.query_id in names and columns.doc_id in names


def _train_normalised(con: duckdb.DuckDBPyConnection, raw: str, columns: Columns, q_str: bool, d_str: bool) -> str:
    """The training rows as (query_id, doc_id), ids as text where any input's disagree."""
    name = f"rw_train_{next(_counter)}"
    q = quote_identifier(columns.query_id)
    d = quote_identifier(columns.doc_id)
    con.execute(
        f"CREATE TEMP VIEW {quote_identifier(name)} AS SELECT "
        f"{f'CAST({q} AS VARCHAR)' if q_str else q} AS query_id, {f'CAST({d} AS VARCHAR)' if d_str else d} AS doc_id "
        f"FROM {quote_identifier(raw)}"
    )
    return name


def _categories_view(con: duckdb.DuckDBPyConnection, raw: str, columns: Columns, d_str: bool) -> str:
    """The item categories (registered in the long form of :mod:`rankwise.inputs.categories`,
    checked as read) as the view (doc_id, category), ids as text where the run's disagree."""
    name = f"rw_categories_{next(_counter)}"
    d = quote_identifier(columns.doc_id)
    con.execute(
        f"CREATE TEMP VIEW {quote_identifier(name)} AS SELECT {f'CAST({d} AS VARCHAR)' if d_str else d} AS doc_id, "
        f"{quote_identifier(CATEGORY)} AS category FROM {quote_identifier(raw)}"
    )
    return name


def _features_view(
    con: duckdb.DuckDBPyConnection, raw: str, run_view: str, columns: Columns, d_str: bool
) -> str:
    """The item features (registered in the long form of :mod:`rankwise.inputs.features`, checked
    as read) as (doc_id, feature, value), ids as text where the run's disagree; an item the run
    lists without features is an error naming it (:func:`~rankwise.inputs.features.check_featured`).
    Copied into a temporary table (one row per item and dimension: small beside the pairs): read
    from the registered frame, ILD@10 over 3M run rows (300,000 users x 10 items, 64 dimensions)
    ran out of a ``memory_limit`` of 1 GB, read from the table it runs in it (benchmarks/README.md,
    "Issue 35")."""
    name = f"rw_features_{next(_counter)}"
    d = quote_identifier(columns.doc_id)
    con.execute(
        f"CREATE TEMP TABLE {quote_identifier(name)} AS SELECT {f'CAST({d} AS VARCHAR)' if d_str else d} AS doc_id, "
        f"{quote_identifier(FEATURE)} AS feature, {quote_identifier(VALUE)} AS value FROM {quote_identifier(raw)}"
    )
    missing = (
        f"(SELECT DISTINCT doc_id FROM {quote_identifier(run_view)} "
        f"ANTI JOIN (SELECT DISTINCT doc_id FROM {quote_identifier(name)}) USING (doc_id))"
    )
    count = int(con.execute(f"SELECT count(*) FROM {missing}").fetchall()[0][0])
    if count:
        found = [row[0] for row in con.execute(f"SELECT doc_id FROM {missing} ORDER BY 1 LIMIT 3").fetchall()]
        check_featured(found, count)
    return name


def _normalise(
    con: duckdb.DuckDBPyConnection, raw: str, kind: Kind, columns: Columns, q_str: bool, d_str: bool,
    materialise: bool = False, numbered: bool = False, kept: bool = False, ranked: bool = False,
) -> tuple[str, int | None]:
    """A view with the standard column names (query_id, doc_id, score | relevance); with
    ``materialise`` a temporary table instead, so that the input is read once, not once by the
    checks and again by the metrics' statement (see :func:`evaluate_duckdb`). With ``numbered``
    (a run under ``ties='input'``) it also numbers the rows in the order the input is scanned
    (``input_order``; ``row_number() OVER ()``, which keeps that order while DuckDB preserves
    insertion order, :func:`_insertion_order`). Returns its name and, for a table, its number
    of rows. With ``kept`` (and ``materialise``) the table is a table of the database, not of
    the connection: it outlives the cursor (:class:`KeptJudgments`). With ``ranked`` (a run in
    rank order, :func:`rank_order`) it also has the run's ranks
    (:data:`~rankwise._sql.compiler.RANKED_RUN_COLUMNS`)."""
    name = f"rw_{kind}_{next(_counter)}"
    qi = quote_identifier(columns.query_id)
    di = quote_identifier(columns.doc_id)
    vi = quote_identifier(value_column(kind, columns))
    out_value = "score" if kind == "run" else "relevance"
    created = con.execute(
        f"CREATE {'' if kept else 'TEMP '}{'TABLE' if materialise else 'VIEW'} {quote_identifier(name)} AS SELECT "
        f"{qi}{'::VARCHAR' if q_str else ''} AS query_id, "
        f"{di}{'::VARCHAR' if d_str else ''} AS doc_id, "
        f"{vi}::DOUBLE AS {out_value}"
        + (f", {quote_identifier(columns.cost)}::DOUBLE AS cost" if kind == "run" and columns.cost else "")
        + (f", row_number() OVER () AS {INPUT_ORDER}" if numbered else "")
        # the types of the ranking window's row_number() and cume_dist()
        + ("".join(
            f", {quote_identifier(c)}::{t} AS {n}"
            for c, t, n in zip((_RANK, _LAST), ("BIGINT", "DOUBLE"), RANKED_RUN_COLUMNS, strict=True)
        ) if ranked else "")
        + f" FROM {quote_identifier(raw)}"
    )
    return name, int(created.fetchall()[0][0]) if materialise else None


def _subtopics(
    con: duckdb.DuckDBPyConnection, raw: str, columns: Columns, q_str: bool, d_str: bool, materialise: bool
) -> tuple[str, str]:
    """The judgments per subtopic (query_id, subtopic, doc_id, relevance), which
    :func:`_check_data` checks row by row (``subtopics=True``), and the qrels every other
    measure reads: each document's largest relevance over its subtopics."""
    name = f"rw_subtopics_{next(_counter)}"
    subtopic = columns.subtopic
    assert subtopic is not None
    con.execute(
        f"CREATE TEMP {'TABLE' if materialise else 'VIEW'} {quote_identifier(name)} AS SELECT "
        f"{quote_identifier(columns.query_id)}{'::VARCHAR' if q_str else ''} AS query_id, "
        f"{quote_identifier(subtopic)}::VARCHAR AS subtopic, "
        f"{quote_identifier(columns.doc_id)}{'::VARCHAR' if d_str else ''} AS doc_id, "
        f"{quote_identifier(columns.relevance)}::DOUBLE AS relevance FROM {quote_identifier(raw)}"
    )
    v = quote_identifier(name)
    grouped = f"rw_subtopic_max_{next(_counter)}"
    con.execute(
        f"CREATE TEMP VIEW {quote_identifier(grouped)} AS SELECT query_id, doc_id, max(relevance) AS relevance "
        f"FROM {v} GROUP BY query_id, doc_id"
    )
    return name, grouped


@dataclass(frozen=True)
class _Checked:
    """One input :func:`_check_data` checks: its view, its kind, its columns, whether it holds
    subtopic qrels (query_id, subtopic, doc_id, relevance: checked row by row, as any qrels'
    rows are, with NULL subtopics and a document judged twice for one subtopic of a query) and
    the hint that ends the error of a duplicated pair. ``frame``: the input as given, when it
    is a Polars DataFrame the view reads (its columns as the user named them), profiled in
    Polars (:func:`_frame_profile`)."""

    view: str
    kind: Kind
    columns: Columns
    subtopics: bool = False
    hint: str = ""
    frame: pl.DataFrame | None = None


_BAD_COST = "cost IS NULL OR isnan(cost) OR isinf(cost) OR cost < 0"


def _check_data(con: duckdb.DuckDBPyConnection, *inputs: _Checked) -> None:
    """Raise the specific error for a fault of an input (:func:`check_profile`), the inputs
    checked in their order. An input given as a DataFrame is profiled in Polars
    (:func:`_frame_profile`); the others' profiles come from one statement (one pass over each
    input: counts, the run's faulty costs, and its distinct (query, doc) hashes; one statement
    rather than one per input saves planning a second one, about 1.3 ms a call at 50 queries x
    1,000 documents); the exact search for a duplicated pair runs only for an input whose
    hashes repeat. Every value is read: the statements over files do not trust the files'
    statistics (:func:`_statistics_untrusted`); a registered frame has none."""
    rows = {i: row for i, one in enumerate(inputs) if (row := _frame_profile(one)) is not None}
    queried = [(i, one) for i, one in enumerate(inputs) if i not in rows]
    with _statistics_untrusted(con) if queried else contextlib.nullcontext():
        if queried:
            import duckdb

            try:
                rows.update(_profiles(con, queried))
            except duckdb.Error:
                if len(inputs) == 1:
                    raise
                # an input DuckDB cannot read (a value its reader refuses): each alone, in their
                # order, so that an earlier input's fault is the one raised, as when each had its
                # statement
                for one in inputs:
                    _check_data(con, one)
                raise
        for i, one in enumerate(inputs):
            _check_profile(con, one, rows[i])


def _profiles(con: duckdb.DuckDBPyConnection, inputs: Sequence[tuple[int, _Checked]]) -> dict[int, list[Any]]:
    """The profiles of ``inputs`` (numbered), from one DuckDB statement (:func:`_check_profile`
    reads them)."""
    selects = []
    for i, one in inputs:
        value = "score" if one.kind == "run" else "relevance"
        key = "query_id, subtopic, doc_id" if one.subtopics else "query_id, doc_id"
        costed = one.kind == "run" and one.columns.cost is not None
        selects.append(
            f"SELECT {i} AS input, count(*), count(*) FILTER (WHERE query_id IS NULL), "
            f"count(*) FILTER (WHERE doc_id IS NULL), count(*) FILTER (WHERE {value} IS NULL), "
            f"count(*) FILTER (WHERE isnan({value})), count(DISTINCT hash({key})), "
            # infinite relevance is refused; an infinite score ranks first or last
            + (f"count(*) FILTER (WHERE isinf({value}))" if one.kind == "qrels" else "0") + ", "
            + ("count(*) FILTER (WHERE subtopic IS NULL)" if one.subtopics else "0") + ", "
            + (f"count(*) FILTER (WHERE {_BAD_COST}), min(query_id) FILTER (WHERE {_BAD_COST})" if costed
               else "0, NULL")
            + f" FROM {quote_identifier(one.view)}"
        )
    return {int(i): row for i, *row in con.execute(" UNION ALL ".join(selects)).fetchall()}


def _frame_profile(one: _Checked) -> list[Any] | None:
    """The profile of an input given as a DataFrame (the row :func:`_check_profile` reads),
    computed by Polars on the frame itself: at 50 queries x 1,000 documents the run's and the
    qrels' profiles cost 2.0 ms of CPU there against 4.6 ms for DuckDB's statement over the
    registered frames (benchmarks/README.md, "Issue 38, session 48"). The view only renames
    the columns, casts the ids to text (which keeps every NULL and every distinct pair) and the
    value to DOUBLE (as here): the counts are the view's. Distinct pairs are counted as distinct
    64-bit hashes, as DuckDB's statement does: a collision can only lower the count, and then
    the exact search (on the view) finds no pair. None when DuckDB profiles the input: not a
    DataFrame, subtopic qrels, or a run with costs (whose least faulty query compares ids as
    the view's text)."""
    frame = one.frame
    if frame is None or one.subtopics or (one.kind == "run" and one.columns.cost is not None):
        return None
    value = pl.col(value_column(one.kind, one.columns)).cast(pl.Float64)
    # a pair's hash: its ids' hashes (seeded apart) combined; 1.2 ms on the run's 50,000 pairs
    # against 1.6 ms for the hash of a struct of the two
    pair = pl.col(one.columns.query_id).hash(1) ^ pl.col(one.columns.doc_id).hash(2)
    counts = frame.select(
        pl.len().alias("rows"),
        pl.col(one.columns.query_id).null_count().alias("null_query"),
        pl.col(one.columns.doc_id).null_count().alias("null_doc"),
        value.null_count().alias("null_value"),
        value.is_nan().sum().alias("nan_value"),
        pair.n_unique().alias("distinct"),
        # infinite relevance is refused; an infinite score ranks first or last
        (value.is_infinite().sum() if one.kind == "qrels" else pl.lit(0)).alias("inf_value"),
    ).row(0)
    return [*(int(n) for n in counts), 0, 0, None]


def _frame(obj: Source) -> pl.DataFrame | None:
    """The input if it is a DataFrame (its profile computed by Polars: :func:`_frame_profile`)."""
    return obj if isinstance(obj, pl.DataFrame) else None


def _check_profile(con: duckdb.DuckDBPyConnection, one: _Checked, row: list[Any]) -> None:
    """Raise the specific error for a fault of ``one``, its profile ``row`` (rows, NULL query
    ids, NULL doc ids, NULL values, NaN values, distinct pair hashes, infinite values, NULL
    subtopics, faulty costs and the least query holding one) in hand."""
    v = quote_identifier(one.view)
    value = "score" if one.kind == "run" else "relevance"
    dup = con.execute(
        f"SELECT query_id, doc_id{', subtopic' if one.subtopics else ''} FROM {v} "
        f"WHERE query_id IS NOT NULL AND doc_id IS NOT NULL GROUP BY ALL HAVING count(*) > 1 LIMIT 1"
    ).fetchall() if row[5] < row[0] else []
    tests: dict[Problem, str] = {
        "null_doc": "doc_id IS NULL", "null_value": f"{value} IS NULL",
        "nan_value": f"isnan({value})", "inf_value": f"isinf({value})", "null_subtopic": "subtopic IS NULL",
    }

    def example(problem: Problem) -> object:
        found = con.execute(f"SELECT query_id FROM {v} WHERE {tests[problem]} LIMIT 1").fetchall()
        return found[0][0] if found else None

    if one.kind == "run" and one.columns.cost is not None:
        check_costs(int(row[8]), one.columns, row[9])
    check_profile(
        DataProfile(
            rows=row[0], null_query=row[1], null_doc=row[2], null_value=row[3], nan_value=row[4],
            duplicate=dup[0] if dup else None, inf_value=row[6], null_subtopic=row[7],
        ),
        one.kind,
        one.columns,
        example,
        one.hint,
    )


@contextlib.contextmanager
def _statistics_untrusted(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """The checks' statements read every value, not the inputs' statistics: DuckDB's filter
    pushdown and statistics propagation are off while they run (the setting is restored
    afterwards). A Parquet file's min/max leave NaN out (the format says so), and DuckDB 2.0.1
    trusts them: over a Parquet file read in place, ``WHERE isnan(score)`` skipped the row
    group holding the NaN, and a count whose only filter was the faulty costs' came out 0,
    so a NaN cost went unchecked. Measured at 10M rows: no cost to the checks
    (benchmarks/README.md, "Issue 38 (e)")."""
    before = str(con.execute("SELECT current_setting('disabled_optimizers')").fetchall()[0][0])
    off = sorted({*filter(None, before.split(",")), "filter_pushdown", "statistics_propagation"})
    con.execute(f"SET disabled_optimizers = {literal(','.join(off))}")
    try:
        yield
    finally:
        con.execute(f"SET disabled_optimizers = {literal(before)}")


@contextlib.contextmanager
def _check_threads(con: duckdb.DuckDBPyConnection, raise_threads: bool) -> Iterator[None]:
    """The checks run with one DuckDB thread more than the connection's (unless the caller
    chose ``threads``, or the inputs are small: :data:`CHECK_THREADS_MIN_ROWS`). Their
    distinct (query, doc) count is one large hash aggregation, which on a 2-core machine costs
    DuckDB far more CPU with 2 threads than with 3 (the measurements: benchmarks/README.md,
    "DuckDB engine")."""
    if not raise_threads:
        yield
        return
    threads = int(con.execute("SELECT current_setting('threads')").fetchall()[0][0])
    con.execute(f"SET threads = {threads + 1}")
    try:
        yield
    finally:
        con.execute(f"SET threads = {threads}")


@contextlib.contextmanager
def _insertion_order(con: duckdb.DuckDBPyConnection, keep: bool) -> Iterator[None]:
    """With ``keep`` (``ties='input'``), DuckDB preserves insertion order while the inputs are
    read and evaluated, so that the run's rows are numbered in the order it is given (a scan, a
    window with an empty ``OVER ()`` keep that order only then: DuckDB's "Order Preservation");
    the setting is restored afterwards. Without it nothing changes (rankwise's databases do not
    preserve the order, which lets DuckDB stream more)."""
    if not keep:
        yield
        return
    before = con.execute("SELECT current_setting('preserve_insertion_order')").fetchall()[0][0]
    con.execute("SET preserve_insertion_order = true")
    try:
        yield
    finally:
        con.execute(f"SET preserve_insertion_order = {literal(bool(before))}")


def connect(settings: Mapping[str, Any], *, temporary: bool = True) -> duckdb.DuckDBPyConnection:
    """A new DuckDB connection with ``settings``, rankwise's macros installed (as TEMP macros
    unless ``temporary`` is false, see :func:`rankwise._duckdb.macros.register`) and DuckDB's
    progress bar off (an evaluation never writes into the caller's stdout)."""
    import duckdb

    try:
        con = duckdb.connect(config=dict(settings))
    except duckdb.Error as exc:
        raise InvalidParameterError(f"DuckDB refused the settings {dict(settings)}: {exc}") from exc
    con.execute("SET enable_progress_bar = false")
    return register(con, temporary=temporary)  # type: ignore[no-any-return]


_DEFAULT_SETTINGS: dict[str, Any] = {"preserve_insertion_order": False}


class _Sessions(threading.local):
    """Each thread's DuckDB database for evaluations without a ``config``: opening a database
    and installing the macros costs far more than an evaluation of a small input, so each
    thread opens one, once, and each evaluation runs on a cursor of it (see :func:`session`)."""

    pid: int | None = None
    con: duckdb.DuckDBPyConnection | None = None


_sessions = _Sessions()
_forked: list[Any] = []
"""Databases a forked process inherited: never closed there (their threads are the parent's)."""


def session() -> duckdb.DuckDBPyConnection:
    """A new cursor of this thread's DuckDB database (opened on first use, with the default
    settings and rankwise's macros in its own schema, which every cursor sees).

    A cursor is a connection of its own to the same database: its temporary views and tables
    and its registered frames go when it is closed, so nothing is left between evaluations.
    The database is private (in memory, never handed out) and each thread has its own, so
    the checks' thread setting (:func:`_check_threads`, a setting of the database) never
    changes under another evaluation; an evaluation with a ``config`` opens a database of its
    own instead (:func:`connect`)."""
    pid = os.getpid()
    if _sessions.con is not None and _sessions.pid != pid:
        _forked.append(_sessions.con)
        _sessions.con = None
    if _sessions.con is None:
        con = connect(_DEFAULT_SETTINGS, temporary=False)
        _sessions.con, _sessions.pid = con, pid
    return _sessions.con.cursor()


def release_session() -> None:
    """Close this thread's database (:func:`session` opens a new one when next asked)."""
    con, _sessions.con = _sessions.con, None
    if con is not None and _sessions.pid == os.getpid():
        con.close()


@dataclass(repr=False)
class KeptJudgments:
    """What an :class:`~rankwise.evaluation.evaluator.BaseEvaluator` keeps between its runs on
    this engine: a private in-memory database of its own (opened on first use, the macros in
    its own schema), and in it the judgments normalised once per id typing (``(q_str, d_str)``:
    ids cast to text where a run's disagree) as tables of the database, which every
    evaluation's cursor reads, and the keys (id typing, the duplicate's hint) under which they
    passed their data checks. Each evaluation runs on a new cursor of that database, so its own
    views and tables go when it ends (as :func:`session`'s do)."""

    qrels: Any
    """The judgments kept: the frame every evaluation that reads them is given (by identity)."""
    db: duckdb.DuckDBPyConnection | None = None
    tables: dict[tuple[bool, bool], tuple[str, int]] = field(default_factory=dict)
    checked: set[tuple[bool, bool, str]] = field(default_factory=set)
    sides: dict[str, str] = field(default_factory=dict)
    """The judgments' side of the statements (:func:`rankwise._sql.compiler.statement`'s
    ``keep``): each CTE that reads the judgments alone, by its text and those before it, as a
    table of the database."""

    def keep(self, con: duckdb.DuckDBPyConnection, ctes: list[str]) -> list[str]:
        """``ctes`` (``name AS (body)``, each reading those before it), each made a table of the
        database once (keyed by its text and the texts before it: the judgments' table, the
        metrics' gains and prefixes), as CTEs that read those tables."""
        out: list[str] = []
        for i, cte in enumerate(ctes):
            key = "\n".join(ctes[: i + 1])
            name = cte.split(" AS (", 1)[0]
            if key not in self.sides:
                table = f"rw_kept_{next(_counter)}"
                con.execute(
                    f"CREATE TABLE {quote_identifier(table)} AS WITH {', '.join([*out, cte])} SELECT * FROM {name}"
                )
                self.sides[key] = table
            out.append(f"{name} AS (SELECT * FROM {quote_identifier(self.sides[key])})")
        return out

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A new cursor of the kept database (opened with the default settings on first use)."""
        if self.db is None:
            self.db = connect(_DEFAULT_SETTINGS, temporary=False)
        return self.db.cursor()


_KEPT: ContextVar[KeptJudgments | None] = ContextVar("rankwise_duckdb_judgments", default=None)


def kept_for(qrels: Any) -> KeptJudgments | None:
    """The kept judgments of the innermost :func:`judgments_kept` block if they are ``qrels``
    (the very object), else None."""
    kept = _KEPT.get()
    return kept if kept is not None and kept.qrels is qrels else None


@contextlib.contextmanager
def judgments_kept(kept: KeptJudgments | None) -> Iterator[None]:
    """Within the block, DuckDB evaluations of ``kept.qrels`` without a ``config`` run on its
    database and reuse its normalised, checked judgments (None: as outside any block)."""
    token = _KEPT.set(kept)
    try:
        yield
    finally:
        _KEPT.reset(token)


def _frame_type(con: duckdb.DuckDBPyConnection, frame: pl.DataFrame, column: str) -> TypeClass:
    """The type class of a frame's column as DuckDB reads it."""
    name = f"rw_raw_{next(_counter)}"
    con.register(name, frame.select(column))
    try:
        return type_class(str(con.sql(f"SELECT * FROM {quote_identifier(name)} LIMIT 0").types[0]))
    finally:
        con.unregister(name)


def _fair_views(con: duckdb.DuckDBPyConnection, fair: Fair, columns: Columns, q_str: bool, d_str: bool) -> FairViews:
    """The document groups (doc_id, grp, weight) and the target's shares (query_id when per
    query, grp, share) registered, ids as text where the run's disagree."""
    groups = fair.groups.select(
        (pl.col(columns.doc_id).cast(pl.String) if d_str else pl.col(columns.doc_id)).alias("doc_id"),
        pl.col(GROUP).alias("grp"), pl.col(WEIGHT).alias("weight"),
    )
    name = f"rw_groups_{next(_counter)}"
    con.register(name, groups)
    if fair.target is None:
        return FairViews(name, None)
    per_query = columns.query_id in fair.target.columns
    q = pl.col(columns.query_id)
    target = fair.target.select(
        *([(q.cast(pl.String) if q_str else q).alias("query_id")] if per_query else []),
        pl.col(GROUP).alias("grp"), pl.col(SHARE).alias("share"),
    )
    shares = f"rw_target_{next(_counter)}"
    con.register(shares, target)
    return FairViews(name, shares, per_query)


def evaluate_duckdb(
    run: Source, qrels: Source, metrics: Sequence[Metric], conv: Conventions, columns: Columns,
    run_format: str | None = None, qrels_format: str | None = None,
    config: Mapping[str, Any] | None = None, train: Training | None = None,
    features: pl.DataFrame | None = None, base_run: pl.LazyFrame | None = None,
    categories: pl.DataFrame | None = None, catalog: pl.LazyFrame | None = None,
    fair: Fair | None = None,
) -> tuple[pl.DataFrame, int]:
    """Per-query values computed by DuckDB, and the number of run queries without judgments.
    ``run`` and ``qrels`` are the inputs read once
    (:meth:`~rankwise.inputs.columns.Reading.source`): Polars frames, or paths (``*_format``:
    their formats, if given) that DuckDB reads itself where it can.

    ``config`` goes to ``duckdb.connect`` (e.g. ``{"memory_limit": "2GB", "temp_directory":
    "/scratch"}``: DuckDB then spills to disk instead of running out of memory); insertion
    order is not preserved unless asked, which lets DuckDB stream more.

    Inputs not yet in memory (files, LazyFrames) are read once, into temporary tables that the
    checks and the metrics' statement share, unless ``config`` sets a ``memory_limit``: then
    each statement reads them where they lie, and nothing is copied that would have to spill
    (the measurements behind both choices: benchmarks/README.md, "Inputs read once"). A Parquet
    file too is copied: read in place by the checks and the statement it cost 0.3–0.4 s more CPU
    at 10M rows (for 230–310 MB less memory), since the table's statistics (the ids' lengths) let
    DuckDB compress the ids in the statement's sorts and joins (benchmarks/README.md,
    "Issue 38 (e)"). A run already in rank order (:func:`rank_order`) is read into memory by
    Polars and read there in place, with its ranks: its statement does not sort it, and the
    copy no longer pays (benchmarks/README.md, "Issue 38: a run in rank order on DuckDB")."""
    settings: dict[str, Any] = {**_DEFAULT_SETTINGS, **(config or {})}
    # an evaluator's judgments (in memory, one relevance per document): normalised and checked once
    kept = kept_for(qrels) if not config and columns.subtopic is None else None
    con = connect(settings) if config else kept.cursor() if kept is not None else session()
    small = False
    order = contextlib.ExitStack()
    try:
        order.enter_context(_insertion_order(con, conv.ties == "input"))
        to_tables = not {k.lower() for k in settings} & {"memory_limit", "max_memory"}
        # a run in rank order is not sorted again (under a memory limit it is read where it lies)
        run, ranked, run_read = rank_order(run, conv, columns, run_format) if to_tables else (run, False, False)
        run_raw, run_types, run_in_memory = _view(con, run, "run", columns, run_format)
        qrels_raw, qrels_types, qrels_in_memory = _view(con, qrels, "qrels", columns, qrels_format)
        q_str, d_str = ids_as_strings(run_types, qrels_types, columns)
        train_raw = seen_raw = None
        if train is not None:
            train_raw, q_train, d_train = _train_view(con, train.rows, columns, run_types)
            # with seen pairs (keyed by the run's queries), the users of the rows meet no query
            q_str, d_str = q_str or (q_train and train.seen is None), d_str or d_train
            if train.seen is not None:  # keyed by the run's queries already
                seen_raw = f"rw_raw_seen_{next(_counter)}"
                con.register(seen_raw, train.seen.collect())
        features_raw = categories_raw = None
        if features is not None:
            features_raw = f"rw_raw_features_{next(_counter)}"
            con.register(features_raw, features)
            d_str = d_str or _frame_type(con, features, columns.doc_id) != run_types[columns.doc_id]
        if categories is not None:
            categories_raw = f"rw_raw_categories_{next(_counter)}"
            con.register(categories_raw, categories)
            d_str = d_str or _frame_type(con, categories, columns.doc_id) != run_types[columns.doc_id]
        if fair is not None:
            # the groups' documents and the target's queries meet the run's: as text where they disagree
            d_str = d_str or _frame_type(con, fair.groups, columns.doc_id) != run_types[columns.doc_id]
            if fair.target is not None and columns.query_id in fair.target.columns:
                q_str = q_str or _frame_type(con, fair.target, columns.query_id) != run_types[columns.query_id]
        base_raw = None
        base_columns = replace(columns, cost=None)
        if base_run is not None:
            # read once, checked as a run is (its errors naming the base run); its ids meet the run's
            with base_run_named():
                base_raw, base_types, _ = _view(con, base_run.collect(), "run", base_columns)
            q_base, d_base = ids_as_strings(run_types, base_types, columns)
            q_str, d_str = q_str or q_base, d_str or d_base
        # a run read into memory here is copied as its files would have been, unless in rank order:
        # then its statement no longer sorts, and the copy does not pay (benchmarks/README.md,
        # "Issue 38: a run in rank order on DuckDB")
        run_view, run_rows = _normalise(
            con, run_raw, "run", columns, q_str, d_str, to_tables and (not run_in_memory or run_read) and not ranked,
            numbered=conv.ties == "input", ranked=ranked,
        )
        qrels_rows = None
        subtopics_view = None
        if columns.subtopic is not None:
            # subtopic qrels: every other measure reads a document's largest relevance
            subtopics_view, qrels_view = _subtopics(
                con, qrels_raw, columns, q_str, d_str, to_tables and not qrels_in_memory
            )
        elif kept is not None:
            if (q_str, d_str) not in kept.tables:  # a table of the kept database, read by every run
                kept.tables[q_str, d_str] = cast(
                    tuple[str, int], _normalise(con, qrels_raw, "qrels", columns, q_str, d_str, True, kept=True)
                )
            qrels_view, qrels_rows = kept.tables[q_str, d_str]
        else:
            qrels_view, qrels_rows = _normalise(
                con, qrels_raw, "qrels", columns, q_str, d_str, to_tables and not qrels_in_memory
            )
        hint = subtopic_hint(qrels_types, reading_subtopics(metrics, conv), columns)
        rows = [
            n if n is not None else obj.height if isinstance(obj, pl.DataFrame) else None
            for n, obj in ((run_rows, run), (qrels_rows, qrels))
        ]
        small = None not in rows and sum(n or 0 for n in rows) < CHECK_THREADS_MIN_ROWS
        with _check_threads(con, "threads" not in settings and not small):
            # subtopic qrels: their rows are checked (the qrels per document derive from them);
            # kept judgments once per id typing (their faults are raised by the first run's call)
            check_qrels = kept is None or (q_str, d_str, hint) not in kept.checked
            _check_data(con, _Checked(run_view, "run", columns, frame=_frame(run)), *(
                [_Checked(subtopics_view or qrels_view, "qrels", columns, subtopics_view is not None, hint,
                          frame=_frame(qrels))]
                if check_qrels else []
            ))
            if kept is not None:
                kept.checked.add((q_str, d_str, hint))
        base_view = None
        if base_raw is not None:
            base_view, _ = _normalise(con, base_raw, "run", base_columns, q_str, d_str, numbered=conv.ties == "input")
            with base_run_named():
                _check_data(con, _Checked(base_view, "run", base_columns))
        train_view = None if train_raw is None else _train_normalised(
            con, train_raw, columns, q_str or seen_raw is not None, d_str
        )
        seen_view = None if seen_raw is None else _train_normalised(con, seen_raw, columns, q_str, d_str)
        features_view = None if features_raw is None else _features_view(con, features_raw, run_view, columns, d_str)
        catalog_view = None
        if catalog is not None:  # its items as doc_id: the statement counts them (the ids meet nothing)
            catalog_view = f"rw_catalog_{next(_counter)}"
            con.register(f"{catalog_view}_raw", catalog.collect())
            con.execute(
                f"CREATE TEMP VIEW {quote_identifier(catalog_view)} AS SELECT {quote_identifier(columns.doc_id)} AS doc_id "
                f"FROM {quote_identifier(catalog_view + '_raw')}"
            )
        categories_view = None if categories_raw is None else _categories_view(con, categories_raw, columns, d_str)
        sides = (subtopics_view, train_view, seen_view, features_view, base_view, catalog_view, categories_view)
        if fair is None and kept is None and all(side is None for side in sides):
            sql = _statement_of(tuple((m, m.source) for m in metrics), conv, columns, run_view, qrels_view, ranked)
        else:
            sql = build_sql(
                metrics, conv, columns, run_view, qrels_view, count_unjudged=True, subtopics_view=subtopics_view,
                train_view=train_view, seen_view=seen_view, features_view=features_view, base_view=base_view,
                categories_view=categories_view, catalog_view=catalog_view,
                fair=None if fair is None else _fair_views(con, fair, columns, q_str, d_str),
                keep=None if kept is None else lambda ctes: kept.keep(con, ctes), ranked_run=ranked,
            )
        # run once into a table (a relation, con.sql, would plan the statement twice: to bind
        # it, then to run it), then read out in the statement's order, to Polars through the
        # Arrow C stream (a relation's .pl() imports pyarrow: about 0.13 s of a call)
        table = quote_identifier(f"rw_result_{next(_counter)}")
        con.execute(f"CREATE TEMP TABLE {table} AS {sql}")
        result = pl.DataFrame(con.sql(f"SELECT * FROM {table} ORDER BY 1"))
        if result.height:
            unjudged = int(result[UNJUDGED_COLUMN][0])
        else:  # no judged query in the run: every run query is unjudged
            unjudged = int(con.execute(
                f"SELECT count(DISTINCT query_id) FROM {quote_identifier(run_view)}"
            ).fetchall()[0][0])
        return result.drop(UNJUDGED_COLUMN), unjudged
    finally:
        order.close()
        con.close()
        if not config and not small and kept is None:
            # after large inputs the database keeps the memory it used (10M rows: 750 MB
            # resident after the call against 180 MB when closed): closed, it gives it back
            release_session()


_RUN_VIEW, _QRELS_VIEW = "rw_run_view_of_the_call", "rw_qrels_view_of_the_call"


def _statement_of(
    metrics: tuple[tuple[Metric, str | None], ...], conv: Conventions, columns: Columns, run_view: str, qrels_view: str,
    ranked: bool = False,
) -> str:
    """:func:`build_sql`'s statement over the run and the qrels alone (no side input, no kept
    judgments), for ``metrics`` (each with its spelling: its column's name) under ``conv``,
    written once per (metrics, conventions, columns, whether the run carries its ranks:
    ``ranked``) (:func:`_statement_text`) and the call's view names put in (the views are named
    ``rw_<kind>_<n>``: nothing to quote or escape)."""
    text = _statement_text(metrics, conv, columns, ranked)
    return text.replace(_RUN_VIEW, run_view).replace(_QRELS_VIEW, qrels_view)


@functools.lru_cache(maxsize=256)
def _statement_text(
    metrics: tuple[tuple[Metric, str | None], ...], conv: Conventions, columns: Columns, ranked: bool
) -> str:
    """The statement of :func:`_statement_of` over two placeholder view names, kept: writing it
    cost about 1 ms of a call at 50 queries x 1,000 documents (benchmarks/README.md, "Issue 38,
    session 48"); the metrics, the conventions and the columns are frozen."""
    return build_sql(
        [m for m, _ in metrics], conv, columns, _RUN_VIEW, _QRELS_VIEW, count_unjudged=True, ranked_run=ranked
    )


def set_values_duckdb(
    run: Source, qrels: Source, outs: Sequence[Output], conv: Conventions, columns: Columns,
    formats: tuple[str | None, str | None] = (None, None), config: Mapping[str, Any] | None = None,
    train: Training | None = None, catalog: pl.LazyFrame | None = None, groups: pl.DataFrame | None = None,
    item_groups: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """The set-level outputs computed by DuckDB (:func:`rankwise._sql.sets.set_statement`), one
    row per group (``groups``: query_id, grp, times; None: one group 0), the inputs as
    :func:`evaluate_duckdb` reads them (checked already by the evaluation they follow);
    ``item_groups``: the document groups as :func:`~rankwise.inputs.groups.read_groups` gives them."""
    from rankwise._sql.sets import set_statement

    settings: dict[str, Any] = {**_DEFAULT_SETTINGS, **(config or {})}
    con = connect(settings) if config else session()
    order = contextlib.ExitStack()
    try:
        order.enter_context(_insertion_order(con, conv.ties == "input"))
        run_raw, run_types, _ = _view(con, run, "run", columns, formats[0])
        qrels_raw, qrels_types, _ = _view(con, qrels, "qrels", columns, formats[1])
        q_str, d_str = ids_as_strings(run_types, qrels_types, columns)
        train_raw = seen_raw = None
        if train is not None:
            train_raw, q_train, d_train = _train_view(con, train.rows, columns, run_types)
            # with seen pairs (keyed by the run's queries), the users of the rows meet no query
            q_str, d_str = q_str or (q_train and train.seen is None), d_str or d_train
            if train.seen is not None:  # keyed by the run's queries already
                seen_raw = f"rw_raw_seen_{next(_counter)}"
                con.register(seen_raw, train.seen.collect())
        catalog_view = None
        if catalog is not None:  # its items meet the run's ids as text where their types differ
            catalog_view = f"rw_catalog_{next(_counter)}"
            con.register(f"{catalog_view}_raw", catalog.collect())
            item = con.sql(
                f"SELECT {quote_identifier(columns.doc_id)} FROM {quote_identifier(catalog_view + '_raw')} LIMIT 0"
            ).types[0]
            d_str = d_str or type_class(str(item)) != run_types[columns.doc_id]
        run_view, _ = _normalise(con, run_raw, "run", columns, q_str, d_str, numbered=conv.ties == "input")
        qrels_view, _ = _normalise(con, qrels_raw, "qrels", columns, q_str, d_str)
        train_view = None if train_raw is None else _train_normalised(con, train_raw, columns, True, d_str)
        seen_view = None if seen_raw is None else _train_normalised(con, seen_raw, columns, q_str, d_str)
        if catalog_view is not None:
            d = quote_identifier(columns.doc_id)
            con.execute(
                f"CREATE TEMP VIEW {quote_identifier(catalog_view)} AS SELECT "
                f"{f'CAST({d} AS VARCHAR)' if d_str else d} AS doc_id FROM {quote_identifier(catalog_view + '_raw')}"
            )
        if item_groups is not None:  # its documents meet the run's as text where their types differ
            d_str = d_str or _frame_type(con, item_groups, columns.doc_id) != run_types[columns.doc_id]
        groups_view = None
        if groups is not None:
            groups_view = f"rw_groups_{next(_counter)}"
            con.register(f"{groups_view}_raw", groups)
            con.execute(
                f"CREATE TEMP VIEW {quote_identifier(groups_view)} AS SELECT "
                f"query_id{'::VARCHAR' if q_str else ''} AS query_id, grp, times FROM {quote_identifier(groups_view + '_raw')}"
            )
        sql = set_statement(
            outs, conv, columns, quote_identifier(run_view), quote_identifier(qrels_view),
            train=None if train_view is None else quote_identifier(train_view),
            seen=None if seen_view is None else quote_identifier(seen_view),
            item_groups=None if item_groups is None else quote_identifier(
                _fair_views(con, Fair(item_groups, None), columns, q_str, d_str).groups
            ),
            catalog=None if catalog_view is None else quote_identifier(catalog_view),
            groups=None if groups_view is None else quote_identifier(groups_view),
        )
        values = pl.DataFrame(con.sql(sql))
        return values
    finally:
        order.close()
        con.close()
