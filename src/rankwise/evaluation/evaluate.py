"""The public entry points: :func:`evaluate` (per-query values) and :func:`summarize`."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import replace
from typing import Annotated, Any, Literal, cast, overload

import polars as pl

from rankwise.conventions import (
    READ_KEYWORDS,
    SIDE_INPUTS,
    TIE_SPREAD_WARNING,
    Columns,
    Conventions,
    ReadOptions,
    Unpack,
    check_identifier,
    check_options,
    checked,
)
from rankwise.errors import (
    InvalidParameterError,
    MetricSyntaxError,
    MissingColumnError,
    RankwiseError,
    TieWarning,
    UnknownMetricError,
    hint_style,
    in_syntax,
    warn,
)
from rankwise.inputs import groups as document_groups
from rankwise.inputs.categories import CATEGORY
from rankwise.inputs.checks import NEAR_MISS_ROWS, Coverage, Kind, no_common_queries, warn_near_miss
from rankwise.inputs.columns import Reading
from rankwise.inputs.faults import engine_faults
from rankwise.inputs.features import FEATURE, VALUE
from rankwise.inputs.groups import Fair
from rankwise.inputs.interactions import Training
from rankwise.inputs.read import FileFormat, Source, to_lazyframe
from rankwise.metrics.metric import Metric, make_metric
from rankwise.metrics.registry import get_spec
from rankwise.names.parse import parse_metrics
from rankwise.names.presets import resolve
from rankwise.outputs import progress

Engine = Literal["polars", "duckdb"]
RETRIEVED = "__rw_retrieved"
JUDGED = "__rw_judged"
COVERAGE_METRICS: tuple[Metric, ...] = (
    make_metric(get_spec("NumRet"), {"judged_only": False}, None, RETRIEVED),
    make_metric(get_spec("NumRet"), {"rel": -sys.float_info.max, "judged_only": False}, None, JUDGED),
)
"""Evaluated with every evaluation's metrics: per query, the documents retrieved, and those of
them judged (any relevance, negative too): how the run and the judgments met."""
SCORED = make_metric(get_spec("NumQ"), {}, None, "__rw_scored")
"""The per-query pass of an evaluation of set-level metrics alone (its column dropped)."""
ENGINES: tuple[str, ...] = ("polars", "duckdb")
MAX_QUERY_CHUNKS = 10_000
"""The most query groups ``query_chunks`` may ask for (each is a set of files of its own)."""
SEGMENT_KEY = "__segment_key"
"""The integer key of a (segment..., query) pair of a ``by=`` evaluation."""


@checked
def evaluate(
    qrels: Any,
    run: Any,
    metrics: str | Metric | Iterable[str | Metric],
    *,
    engine: Engine = "polars",
    run_format: FileFormat | None = None,
    qrels_format: FileFormat | None = None,
    by: str | Iterable[str] | None = None,
    duckdb_config: Mapping[str, Any] | None = None,
    query_chunks: Annotated[int | None, "be a positive integer or None"] = None,
    per_query: bool = True,
    sample: str | None = None,
    **options: Unpack[ReadOptions],
) -> pl.DataFrame:
    """Per-query metric values: one row per query, one Float64 column per metric.

    ``run`` (query_id, doc_id, score) and ``qrels`` (query_id, doc_id, relevance) may be Polars
    DataFrames/LazyFrames, pyarrow Tables, pandas DataFrames, DuckDB relations, dicts of dicts
    (pytrec_eval's and ranx's ``{query: {doc: value}}``), ranx ``Run``/``Qrels`` objects,
    iterables of records (ir_datasets' ``scoreddocs_iter()``/``qrels_iter()``, named tuples,
    dataclasses or dicts) or paths (a file, a folder of files with hive partitions, or a glob)
    to Parquet, CSV/TSV, TREC or JSON/JSONL files, optionally gzipped; ``run_format``/
    ``qrels_format`` override the format detected from the extension or content. Metric columns are named by the strings passed. Rows are
    sorted by query id. ``engine="duckdb"`` computes through the SQL macros of ``sql/``.

    ``by`` (run columns such as market, device, date or experiment arm) evaluates every
    segment in the same pass: a query is scored in each segment where the run has it, against
    its judgments, and the per-query rows start with the segment columns
    (``summarize(result, by=...)`` gives one row per segment). ``duckdb_config`` sets the DuckDB
    engine's connection (e.g. ``{"memory_limit": "2GB"}`` to spill to disk on exports larger
    than memory). The Polars engine evaluates the queries in groups (by a hash of the query
    id) one after the other: by default it reads the inputs once and splits them into groups
    of about half a million run rows; ``query_chunks`` = n instead writes the inputs once, streaming,
    into n groups of files in a temporary folder (``TMPDIR``; removed at the end) and evaluates
    each group alone (on Polars' streaming engine), so that only about 1/n of them is held,
    for exports larger than memory.

    ``sample`` (a run column) reads a stochastic run: each (query, sample) is one ranking, as
    expeval's second field (Diaz et al.'s sampled rankings). Every per-query metric is then the
    mean over the query's samples of its value on each ranking (the expected metric: expected
    utility, and EE_R, linear in the exposures); EE_D and EE_L (Diaz et al.'s expected exposure)
    square each document's mean exposure over the samples, as expeval does. A sample's NULL
    (an undefined value) is left out of its query's mean; a judged query the run lacks is scored
    under ``missing='zero'`` as every metric scores it (expeval's defaults for EE), and left out
    under ``missing='ignore'`` (with ``by=``: left out, as there). Set-level metrics and
    ``query_chunks`` are refused with ``sample``.

    ``per_query=False`` gives one row (one per ``by=`` segment) instead: each per-query metric
    aggregated as :func:`summarize` does, and each **set-level** metric's value
    (``CatalogCoverage``, ``Gini``, ``Entropy``, ``SelfInformation``: one value for the whole run,
    computed from every scored user's list at once, never a mean of per-user values); a
    set-level metric with ``per_query=True`` is an error naming it.

    ``options`` (keyword arguments, see :class:`~rankwise.conventions.EvaluationOptions`):
    the conventions, whose defaults reproduce trec_eval, ``ties='trec_eval'`` (score desc,
    then doc_id desc), ``missing='ignore'`` (queries absent from the run; 'zero' scores them 0
    as ``-c``), ``max_rank=None`` (``-M``), ``rel=1`` (``-l``), ``judged_only=False`` (``-J``);
    and the column names ``query_id``, ``doc_id``, ``score``, ``relevance`` (defaults: the same
    words), and each input's own (:class:`~rankwise.conventions.InputOptions`):
    ``run_columns={'query_id': 'qid'}`` reads the run's ``qid`` as its query id, while the qrels
    keep ``query_id``; ``run_names=[...]``/``qrels_names=[...]`` name the columns of a CSV/TSV
    file without a header row. Run queries without any judgment are not scored; a
    :class:`~rankwise.errors.RankwiseWarning` says how many.

    >>> import polars as pl, rankwise as rw
    >>> run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"],
    ...                     "score": [2.0, 1.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "c"], "relevance": [1, 2]})
    >>> result = rw.evaluate(qrels, run, ["nDCG@10", "RR"])
    >>> result.columns
    ['query_id', 'nDCG@10', 'RR']
    >>> result["query_id"].to_list(), result["nDCG@10"].round(6).to_list(), result["RR"].to_list()
    (['q1', 'q2'], [0.63093, 1.0], [0.5, 1.0])
    """
    check_options("evaluate", options, READ_KEYWORDS)
    parsed, options = cast(tuple[list[Metric], ReadOptions], resolve(metrics, options))
    return _evaluate_read(
        qrels, run, parsed, Conventions.from_options(options), Columns.from_options(options),
        Reading.from_options(options), engine=engine, run_format=run_format, qrels_format=qrels_format, by=by,
        duckdb_config=duckdb_config, query_chunks=query_chunks, per_query=per_query, sample=sample,
    )


def _evaluate_read(
    qrels: Any,
    run: Any,
    parsed: list[Metric],
    conv: Conventions,
    columns: Columns,
    reading: Reading,
    *,
    engine: Engine = "polars",
    run_format: FileFormat | None = None,
    qrels_format: FileFormat | None = None,
    by: str | Iterable[str] | None = None,
    duckdb_config: Mapping[str, Any] | None = None,
    query_chunks: int | None = None,
    per_query: bool = True,
    sample: str | None = None,
) -> pl.DataFrame:
    """:func:`evaluate` of the metrics parsed, under the conventions, column names and side inputs
    built from its options (and, for a stochastic run's keys, ``conv.samples='keyed'``, which no
    option sets: :func:`_evaluate_segments` evaluates its keys through here)."""
    if sample is not None and isinstance(sample, str):
        columns = replace(columns, sample=sample)  # a TREC run file's second field: the sample
    if engine not in ENGINES:
        raise InvalidParameterError(f"engine must be one of {list(ENGINES)}, got {engine!r}")
    if query_chunks is not None:
        if isinstance(query_chunks, bool) or not isinstance(query_chunks, int) or query_chunks < 1:
            raise InvalidParameterError(f"query_chunks must be a positive integer, got {query_chunks!r}")
        if query_chunks > MAX_QUERY_CHUNKS:
            raise InvalidParameterError(
                f"query_chunks must be at most {MAX_QUERY_CHUNKS} (each group is a set of files of "
                f"its own), got {query_chunks!r}"
            )
        if engine != "polars" or by or sample is not None:
            raise InvalidParameterError(
                "query_chunks applies to the Polars engine without by= segments or samples (sample=); "
                "DuckDB bounds its memory with duckdb_config={'memory_limit': ...} and spills to disk"
            )
    set_level = [m for m in parsed if m.spec.aggregate == "set"]
    if set_level and per_query:
        raise InvalidParameterError(
            f"{set_level[0].label} is one value per run (a set-level metric), not per query: "
            + in_syntax("evaluate(..., per_query=False) gives it beside the means",
                        "rankwise eval prints it in the summary (without -q)")
        )
    if sample is not None and set_level:
        raise InvalidParameterError(
            f"{set_level[0].label} is one value per run (a set-level metric): not computed over the samples of a "
            f"stochastic run (sample={sample!r})"
        )
    segments = [by] if isinstance(by, str) else list(by or [])
    if sample is not None:
        check_identifier(sample, "sample column")
        if sample in segments:
            raise InvalidParameterError(f"sample column {sample!r} is also a segment column (by=)")
    # each input read once, here, into the form the engine takes: a Polars frame, or for the
    # DuckDB engine a path it reads itself (segments are keyed in Polars)
    paths = engine == "duckdb" and not segments and sample is None
    # set-level metrics alone: the queries' pass (the checks, the users scored) counts queries
    per_query_metrics = [m for m in parsed if m.spec.aggregate != "set"] or [SCORED]
    with hint_style("file_keywords"), engine_faults({"run": run, "qrels": qrels}):
        train = training(reading, parsed, conv, columns)
        features = featuring(reading, parsed, conv, columns)
        base_run = basing(reading, parsed, conv, columns)
        categories = cast("pl.DataFrame | None", side_input("categories", reading, parsed, conv, columns))
        # the catalog's size, where a per-query metric reads it (the set-level metrics read it below)
        catalog = side_input("catalog", reading, per_query_metrics, conv, columns)
        fair = fairing(reading, parsed, conv, columns)
        run_source = reading.source(run, "run", columns, run_format, paths=paths)
        qrels_source = reading.source(qrels, "qrels", columns, qrels_format, paths=paths)
        result, coverage = _evaluate(
            run_source, qrels_source, per_query_metrics, engine, conv, columns, run_format, qrels_format, segments,
            duckdb_config, query_chunks, train, features, base_run, categories, catalog, fair, sample,
        )
        if SCORED.label in result.columns and SCORED.label not in {m.label for m in parsed}:
            result = result.drop(SCORED.label)
        if not per_query:
            sets = _set_values(
                run_source, qrels_source, set_level, engine, conv, columns, (run_format, qrels_format), segments,
                duckdb_config, train, side_input("catalog", reading, set_level, conv, columns),
                item_groups=None if fair is None else fair.groups,
            ) if set_level else None
            result = _summary(result, sets, [m.label for m in parsed], segments, columns)
    seen = _SEEN.get()
    if seen is None:
        coverage.warn(conv.missing)
    else:
        seen.append(coverage)
    return result


def _summary(
    per_query: pl.DataFrame, sets: pl.DataFrame | None, labels: list[str], segments: list[str], columns: Columns,
) -> pl.DataFrame:
    """One row per segment (one row without): the per-query values aggregated
    (:func:`summarize`) beside the set-level values ``sets`` (keyed by the segments), the
    columns in the order asked."""
    summary = (
        summarize(per_query, by=segments or None) if set(per_query.columns) - {*segments, columns.query_id}
        else per_query.select(segments).unique().sort(segments) if segments else pl.DataFrame({})
    )
    if sets is not None:
        summary = summary.join(sets, on=segments, how="left", nulls_equal=True) if segments else (
            pl.concat([summary, sets], how="horizontal") if summary.width else sets
        )
    return summary.select(*segments, *labels)


def _set_values(
    run: Source, qrels: Source, metrics: list[Metric], engine: Engine, conv: Conventions, columns: Columns,
    formats: tuple[FileFormat | None, FileFormat | None], segments: list[str],
    duckdb_config: Mapping[str, Any] | None, train: Training | None, catalog: pl.LazyFrame | None = None,
    groups: pl.DataFrame | None = None, item_groups: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """The set-level metrics' values computed by ``engine`` over the judged users the run lists
    (:mod:`rankwise._polars.sets`, :mod:`rankwise._sql.sets`): without ``groups``, one row per
    segment (segment columns first; one row without segments); with ``groups`` (the segment
    columns, the query id, :data:`~rankwise._polars.sets.GROUP` and
    :data:`~rankwise._polars.sets.TIMES`: each user's groups and count there, e.g. bootstrap
    resamples), one row per group (``GROUP`` first). ``item_groups``: the document groups
    (``groups=`` as :func:`~rankwise.inputs.groups.read_groups` gives them)."""
    from rankwise._polars.prepare import prepare
    from rankwise._polars.sets import GROUP, IGROUP, IWEIGHT, TIMES, set_values
    from rankwise.metrics.recipes import outputs

    outs = outputs(metrics, conv)
    q = columns.query_id
    keys = None
    if segments:
        pairs, keyed_run, keyed_qrels = _keyed(
            to_lazyframe(run, "run", columns, formats[0]), to_lazyframe(qrels, "qrels", columns, formats[1]),
            segments, columns,
        )
        run, qrels, formats = keyed_run.collect(), keyed_qrels.collect(), (None, None)
        if groups is None:  # one group per segment
            keys = pairs.select(segments).unique().sort(segments, nulls_last=True).with_row_index(GROUP).with_columns(
                pl.col(GROUP).cast(pl.Int64)
            )
            groups = pairs.join(keys, on=segments, how="left", nulls_equal=True).with_columns(pl.lit(1.0).alias(TIMES))
        else:
            groups = groups.join(pairs, on=[*segments, q], how="inner", nulls_equal=True)
        groups = groups.select(pl.col(SEGMENT_KEY).alias(q), GROUP, TIMES)
    training = None if train is None else Training(train.rows)
    if train is not None and segments:  # what each key's user has trained: their pairs keyed the same way
        training = Training(train.rows, _keyed_seen(train.rows, pairs.lazy().select(SEGMENT_KEY, q), SEGMENT_KEY, columns))
    if engine == "duckdb":
        from rankwise._duckdb.engine import set_values_duckdb

        values = set_values_duckdb(
            run, qrels, outs, conv, columns, formats, duckdb_config, training, catalog,
            None if groups is None else groups.select(pl.col(q).alias("query_id"), pl.col(GROUP).alias("grp"),
                                                      pl.col(TIMES).alias("times")),
            item_groups,
        ).rename({"grp": GROUP})
    else:
        prep = prepare(
            to_lazyframe(run, "run", columns, formats[0]), to_lazyframe(qrels, "qrels", columns, formats[1]), columns,
            check_data=False, train=training,
        )
        values = set_values(
            prep, outs, conv, None if groups is None else groups.rename({q: "__q"}).lazy(),
            None if catalog is None else catalog.rename({columns.doc_id: "__d"}),
            None if item_groups is None else item_groups.lazy().select(
                pl.col(columns.doc_id).alias("__d"), pl.col(document_groups.GROUP).alias(IGROUP), pl.col(document_groups.WEIGHT).alias(IWEIGHT)
            ),
        )
    values = values.with_columns(pl.col(GROUP).cast(pl.Int64))
    if keys is not None:
        return keys.join(values, on=GROUP, how="left").drop(GROUP)
    return values if groups is not None else values.drop(GROUP)


def set_level(
    qrels: Any, run: Any, metrics: Sequence[Metric], *, user_groups: pl.DataFrame, by: Sequence[str] = (),
    engine: Engine = "polars", duckdb_config: Mapping[str, Any] | None = None, **options: Unpack[ReadOptions],
) -> pl.DataFrame:
    """The set-level ``metrics`` of ``run`` per group of users (``user_groups``: the ``by`` segment
    columns, the query id, :data:`~rankwise._polars.sets.GROUP`, :data:`~rankwise._polars.sets.TIMES`):
    one row per group, for the bootstrap of a comparison (:func:`rankwise.compare`), the
    inputs read as :func:`evaluate` reads them (checked by the evaluation that came first)."""
    conv, columns, reading = Conventions.from_options(options), Columns.from_options(options), Reading.from_options(options)
    paths = engine == "duckdb" and not by
    with hint_style("file_keywords"), engine_faults({"run": run, "qrels": qrels}):
        return _set_values(
            reading.source(run, "run", columns, None, paths=paths), reading.source(qrels, "qrels", columns, None, paths=paths),
            list(metrics), engine, conv, columns, (None, None), list(by), duckdb_config,
            training(reading, list(metrics), conv, columns), side_input("catalog", reading, list(metrics), conv, columns),
            user_groups, None if (fair := fairing(reading, list(metrics), conv, columns)) is None else fair.groups,
        )


_SEEN: ContextVar[list[Coverage] | None] = ContextVar("rankwise_coverage", default=None)


@contextlib.contextmanager
def coverage_seen() -> Iterator[list[Coverage]]:
    """Inside, :func:`evaluate` adds how each evaluation's inputs met
    (:class:`~rankwise.inputs.checks.Coverage`) to the list yielded instead of warning of unjudged
    and missing queries: for callers that say it in their own words (compare, the list form)."""
    seen: list[Coverage] = []
    token = _SEEN.set(seen)
    try:
        yield seen
    finally:
        _SEEN.reset(token)


def side_input(
    keyword: str, reading: Reading, metrics: Sequence[Metric], conv: Conventions, columns: Columns
) -> Any:
    """The side input ``keyword`` (:data:`~rankwise.conventions.SIDE_INPUTS`: ``train``,
    ``features``, ``base_run``) read when a metric reads it
    (:func:`~rankwise.metrics.recipes.reading_side`), else None (given or not: nothing reads
    it); a metric that reads it when it was not given is an error naming that metric and how to
    pass it, in the syntax of the interface in use."""
    from rankwise.metrics.recipes import reading_side

    side = SIDE_INPUTS[keyword]
    labels = reading_side(metrics, conv, keyword)
    if not labels:
        return None
    if getattr(reading, keyword) is None:
        raise InvalidParameterError(f"{labels[0]} reads {side.what}: " + in_syntax(side.python, side.command_line))
    return reading.read_side(keyword, columns)


def training(reading: Reading, metrics: Sequence[Metric], conv: Conventions, columns: Columns) -> Training | None:
    """The training interactions (``train=``) read when a metric reads them (:func:`side_input`)."""
    return cast("Training | None", side_input("train", reading, metrics, conv, columns))


def featuring(reading: Reading, metrics: Sequence[Metric], conv: Conventions, columns: Columns) -> pl.DataFrame | None:
    """The item features (``features=``) read and checked when a metric reads them (:func:`side_input`)."""
    return cast("pl.DataFrame | None", side_input("features", reading, metrics, conv, columns))


def basing(reading: Reading, metrics: Sequence[Metric], conv: Conventions, columns: Columns) -> pl.LazyFrame | None:
    """The base run (``base_run=``) read as a run when a metric reads it (:func:`side_input`)."""
    return cast("pl.LazyFrame | None", side_input("base_run", reading, metrics, conv, columns))


def fairing(reading: Reading, metrics: Sequence[Metric], conv: Conventions, columns: Columns) -> Fair | None:
    """The document groups (``groups=``) read when a metric reads them (:func:`side_input`), with
    the target (``target=``; not given: each query's relevant documents' shares) as an engine
    takes them (:func:`~rankwise.inputs.groups.fair_inputs`)."""
    from rankwise.inputs.groups import fair_inputs

    groups = cast("pl.DataFrame | None", side_input("groups", reading, metrics, conv, columns))
    if groups is None:
        return None
    return fair_inputs(groups, reading.read_side("target", columns))


def _evaluate(
    run: Source, qrels: Source, parsed: list[Metric], engine: Engine, conv: Conventions, columns: Columns,
    run_format: FileFormat | None, qrels_format: FileFormat | None, segments: list[str],
    duckdb_config: Mapping[str, Any] | None, query_chunks: int | None, train: Training | None = None,
    features: pl.DataFrame | None = None, base_run: pl.LazyFrame | None = None,
    categories: pl.DataFrame | None = None,
    catalog: pl.LazyFrame | None = None,
    fair: Fair | None = None,
    sample: str | None = None,
) -> tuple[pl.DataFrame, Coverage]:
    """Per-query values and how the inputs met (:class:`~rankwise.inputs.checks.Coverage`), of
    the inputs read once (:meth:`~rankwise.inputs.columns.Reading.source`: Polars frames, or
    paths that the DuckDB engine reads itself; :func:`~rankwise.inputs.read.to_lazyframe` of a
    frame is the frame, lazy; a path is read by Polars, with its ``run_format``/``qrels_format``,
    only on the error path or for a look at the run's head).

    Every evaluation counts, per judged query, the documents the run retrieved and how many of
    them are judged (two ``NumRet`` columns evaluated with the metrics, ``missing='zero'``):
    a judged query the run lacks retrieves nothing and is dropped here under
    ``missing='ignore'``, counted either way; no judged query in the run at all is an error,
    and a run whose documents are almost never judged gets a warning when its ids would meet
    the judgments' once trimmed, case-folded or without leading zeros."""
    if segments or sample is not None:
        return _evaluate_segments(
            to_lazyframe(run, "run", columns, run_format), to_lazyframe(qrels, "qrels", columns, qrels_format),
            parsed, segments, engine, conv, columns, duckdb_config, train, features, base_run, categories, catalog, fair,
            sample,
        )
    counted = [*parsed, *COVERAGE_METRICS]
    zero = replace(conv, missing="zero")
    if engine == "polars":
        from rankwise._polars.engine import evaluate_eager, kept_for

        result, n_unjudged = evaluate_eager(
            to_lazyframe(run, "run", columns, run_format), to_lazyframe(qrels, "qrels", columns, qrels_format),
            counted, zero, columns, query_chunks, train, features, base_run, categories, catalog, fair,
            cache=kept_for(qrels),
        )
    elif engine == "duckdb":
        from rankwise._duckdb.engine import evaluate_duckdb

        with progress.task("evaluating in DuckDB"):
            result, n_unjudged = evaluate_duckdb(
                run, qrels, counted, zero, columns, run_format, qrels_format, config=duckdb_config, train=train,
                features=features, base_run=base_run, categories=categories, catalog=catalog, fair=fair,
            )
    else:
        raise InvalidParameterError(f"engine must be one of {list(ENGINES)}, got {engine!r}")
    retrieved = pl.col(RETRIEVED) > 0
    present = result.filter(retrieved)
    coverage = Coverage(
        unjudged=n_unjudged, missing=result.height - present.height,
        retrieved=int(present[RETRIEVED].sum()), judged=int(present[JUDGED].sum()),
    )
    if present.height == 0:
        raise no_common_queries(_ids(run, "run", columns, run_format), _ids(qrels, "qrels", columns, qrels_format), columns)
    if coverage.rarely_judged():
        # a hint, never a failure of the evaluation (an input gone since, a remote path)
        with contextlib.suppress(RankwiseError, OSError, pl.exceptions.PolarsError):
            warn_near_miss(*_sample(run, qrels, columns, (run_format, qrels_format)), columns)
    if conv.missing == "ignore":
        result = present
    result = result.drop(RETRIEVED, JUDGED)
    if conv.ties == "expected":
        low, high = (
            _evaluate(run, qrels, parsed, engine, replace(conv, ties=ties), columns, run_format, qrels_format,
                      segments, duckdb_config, query_chunks, train, features, base_run, categories,
                      catalog, fair)[0]
            for ties in ("pessimistic", "optimistic")
        )
        warn_tie_spread(result, low, high, [m.label for m in parsed], columns.query_id)
    return result, coverage


def warn_tie_spread(
    expected: pl.DataFrame, pessimistic: pl.DataFrame, optimistic: pl.DataFrame, labels: list[str], query_id: str
) -> None:
    """Warn (:class:`~rankwise.errors.TieWarning`) when, for some query and metric, the value
    under ``ties='optimistic'`` exceeds that under ``'pessimistic'`` by more than
    :data:`~rankwise.conventions.TIE_SPREAD_WARNING`, naming the largest such spread, its
    query and metric, the two bounds and the expected value between them."""
    worst: tuple[float, str, object, float, float, float] | None = None
    over = 0
    joined = expected.join(pessimistic, on=query_id, suffix="__low").join(optimistic, on=query_id, suffix="__high")
    for label in labels:
        spread = joined.select(
            pl.col(query_id), pl.col(label), pl.col(f"{label}__low"), pl.col(f"{label}__high"),
            (pl.col(f"{label}__high") - pl.col(f"{label}__low")).alias("__spread"),
        ).filter(pl.col("__spread") > TIE_SPREAD_WARNING)
        over += spread.height
        if spread.height:
            top = spread.sort("__spread", descending=True).row(0)
            if worst is None or top[4] > worst[0]:
                worst = (top[4], label, top[0], top[2], top[3], top[1])
    if worst is not None:
        spread_, label, query, low, high, value = worst
        warn(
            f"ties could move {over} (query, metric) value(s) by more than {TIE_SPREAD_WARNING}; the most: "
            f"{label} of query {query!r}, from {low:.4g} (ties='pessimistic') to {high:.4g} ('optimistic'), "
            f"a spread of {spread_:.4g} around its expected {value:.4g}",
            TieWarning,
        )


def _ids(source: Source, kind: Kind, columns: Columns, fmt: FileFormat | None) -> pl.Series:
    """An input's query ids, in their order (on the error path)."""
    q = columns.query_id
    return to_lazyframe(source, kind, columns, fmt).select(pl.col(q).unique(maintain_order=True)).collect()[q]


def _sample(run: Source, qrels: Source, columns: Columns, formats: tuple[FileFormat | None, FileFormat | None]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The run's first :data:`~rankwise.inputs.checks.NEAR_MISS_ROWS` (query, doc) pairs and the
    judgments of their queries, ids as text, only when the run's documents are almost never
    judged: from the frames read once (a TREC file is not parsed again; a scan reads the head),
    a path the DuckDB engine read itself read again."""
    q, d = columns.query_id, columns.doc_id
    text = [pl.col(q).cast(pl.String), pl.col(d).cast(pl.String)]
    head = to_lazyframe(run, "run", columns, formats[0]).select(text).head(NEAR_MISS_ROWS).collect()
    judged = to_lazyframe(qrels, "qrels", columns, formats[1]).select(text)
    # a filter by the head's few queries (a semi join's plan cost 0.9 ms on 1,000 judgments)
    return head, judged.filter(pl.col(q).is_in(head.get_column(q).unique().implode())).collect()


def _evaluate_segments(
    run: pl.LazyFrame, qrels: pl.LazyFrame, metrics: list[Metric], segments: list[str],
    engine: Engine, conv: Conventions, columns: Columns, duckdb_config: Mapping[str, Any] | None,
    train: Training | None = None, features: pl.DataFrame | None = None, base_run: pl.LazyFrame | None = None,
    categories: pl.DataFrame | None = None,
    catalog: pl.LazyFrame | None = None,
    fair: Fair | None = None,
    sample: str | None = None,
) -> tuple[pl.DataFrame, Coverage]:
    """Evaluate per (segment..., query): each pair gets an integer key, judgments are joined
    to the pairs by query, the engines see one key, and the pairs are joined back. The training
    interactions keep their users (an item's popularity counts each user once, whatever its
    segments); what each key's user has seen is their rows keyed the same way. The item features
    (read already, in the long form) are passed on as one vector per item. The base run is cut to
    the segments' users, each key given its user's base list. The item categories (read already,
    in the long form) are passed on as they are. The catalog (its items) is the same
    for every key. The document groups are passed on
    as read; a target per query gives each key its query's target.

    With ``sample`` (a stochastic run), each (segment..., query, sample) is a key
    (:func:`_sample_keys`), evaluated under ``samples='keyed'`` (the expected-exposure metrics read
    each document's exposure over its query's samples), and each query's values are averaged over
    its samples; under ``missing='zero'`` without segments a judged query the run lacks is a key of
    its own (one sample), scored as every metric scores a query the run lacks."""
    key = SEGMENT_KEY
    pairs, keyed_run, keyed_qrels = _keyed(run, qrels, segments, columns, sample, lacking=conv.missing == "zero")
    judged = keyed_qrels.collect()
    # a judged query the run lacks is in no segment: left out, whatever missing= says
    q = columns.query_id
    outside = qrels.select(q).unique().join(pairs.lazy().select(q).unique(), on=q, how="anti").select(pl.len()).collect().item()
    if judged.height == 0:
        q = columns.query_id
        raise no_common_queries(
            pairs[q].unique(maintain_order=True), qrels.select(pl.col(q).unique(maintain_order=True)).collect()[q], columns
        )
    extra: dict[str, Any] = {}
    if train is not None:
        extra["train"] = Training(train.rows, _keyed_seen(train.rows, pairs.lazy().select(key, q), key, columns))
    if features is not None:
        vector = "__rw_vector"
        extra["features"] = features.group_by(columns.doc_id, maintain_order=True).agg(
            pl.col(VALUE).sort_by(FEATURE).alias(vector)
        )
        extra["features_column"] = vector
    if categories is not None:
        extra["categories"] = categories
        extra["categories_columns"] = {"category": CATEGORY}
    if base_run is not None:
        # each (segment, user) key's base list: the user's own
        extra["base_run"] = _keyed_base_run(base_run, pairs.lazy().select(key, q), key, columns).collect()
    if catalog is not None:
        extra["catalog"] = catalog.collect().to_series()
    if fair is not None:
        extra["groups"] = fair.groups
        extra["groups_columns"] = {"group": document_groups.GROUP, "weight": document_groups.WEIGHT}
        if fair.target is not None:
            target = fair.target
            if q in target.columns:  # each (segment, query) key's target: its query's
                keys = pairs.select(key, q)
                if keys.schema[q] != target.schema[q]:
                    keys, target = keys.with_columns(pl.col(q).cast(pl.String)), target.with_columns(pl.col(q).cast(pl.String))
                target = target.join(keys, on=q, how="inner").select(pl.col(key).alias(q), document_groups.GROUP, document_groups.SHARE)
            extra["target"] = target
            extra["target_columns"] = {"group": document_groups.GROUP, "share": document_groups.SHARE}
    # a stochastic run's keys: the expected-exposure metrics read them as such (samples='keyed')
    result = _evaluate_read(
        judged, keyed_run.collect(), metrics, conv if sample is None else replace(conv, samples="keyed"),
        replace(columns, sample=None),
        Reading.from_options(extra), engine=engine, duckdb_config=duckdb_config,
    )
    labels = [m.label for m in metrics]
    values = (
        result.rename({columns.query_id: key})
        .join(pairs, on=key, how="left")
        .select(*segments, columns.query_id, *labels)
    )
    if sample is not None:  # each query's mean over its samples
        values = values.group_by(*segments, columns.query_id).agg(pl.col(labels).mean())
    return values.sort(*segments, columns.query_id), Coverage(missing=outside, segmented=True)


def _keyed(
    run: pl.LazyFrame, qrels: pl.LazyFrame, segments: list[str], columns: Columns, sample: str | None = None,
    lacking: bool = False,
) -> tuple[pl.DataFrame, pl.LazyFrame, pl.LazyFrame]:
    """The (segment..., query) pairs of the run, each with an integer key (:data:`SEGMENT_KEY`),
    and the run and the qrels keyed by them (the key in the query column: a judged query in
    each pair of its query); the segment columns checked first. With ``sample``, the
    (segment..., query, sample) triples, keyed by :func:`_sample_keys` (the sample column last),
    with ``lacking`` (``missing='zero'``, no segments) the judged queries the run lacks too."""
    names = run.collect_schema().names()
    for col, what in [*((c, "segment column") for c in segments), *([(sample, "sample column")] if sample else [])]:
        check_identifier(col, what)
        if col not in names:
            raise MissingColumnError.from_missing("the run", col, names, column=what)
        if col in (columns.query_id, columns.doc_id, columns.score):
            raise InvalidParameterError(f"{what} {col!r} is one of the run's key columns")
    key = SEGMENT_KEY
    if sample is None:
        pairs = (
            run.select(*segments, columns.query_id).unique().sort(*segments, columns.query_id)
            .with_row_index(key).collect()
        )
    else:
        absent = None
        if lacking and not segments:
            absent = qrels.select(columns.query_id).unique().join(
                run.select(columns.query_id).unique(), on=columns.query_id, how="anti"
            )
        pairs = _sample_keys(run, segments, columns.query_id, sample, absent)
        segments = [*segments, sample]
    # a NULL segment value is a segment of its own: joined as equal, never dropped
    keyed_run = run.join(pairs.lazy(), on=[*segments, columns.query_id], how="inner", nulls_equal=True).select(
        pl.col(key).alias(columns.query_id), columns.doc_id, columns.score,
        *([columns.cost] if columns.cost else []),
    )
    keyed_qrels = qrels.join(pairs.lazy().select(key, columns.query_id), on=columns.query_id, how="inner").select(
        pl.col(key).alias(columns.query_id), columns.doc_id, columns.relevance,
        *([columns.subtopic] if columns.subtopic else []),
    )
    return pairs, keyed_run, keyed_qrels


def _sample_keys(
    run: pl.LazyFrame, segments: list[str], query_id: str, sample: str, lacking: pl.LazyFrame | None = None,
) -> pl.DataFrame:
    """The run's (segment..., query, sample) triples, each keyed (:data:`SEGMENT_KEY`, Int64) in the
    fixed layout of :data:`~rankwise.primitives.SAMPLE_BITS` (b bits): (g << 2b) | (S << b) | s, g the
    (segment..., query) pair's index, S its number of samples, s the sample's index among them (in
    the sample column's order, a NULL sample last); the expected-exposure primitives read a key's
    query and its number of samples back from it. ``lacking`` (the judged queries the run lacks,
    under ``missing='zero'``): each one more triple of one sample (NULL), scored as the run lacking
    it. More than 2**b − 1 samples of a query, or 2**(63 − 2b) pairs, are refused."""
    from rankwise.primitives import SAMPLE_BITS

    group, index, count = "__rw_group", "__rw_index", "__rw_count"
    triples = run.select(*segments, query_id, sample).unique().collect()
    if lacking is not None:
        absent = lacking.collect().select(query_id, pl.lit(None, dtype=triples.schema[sample]).alias(sample))
        triples = pl.concat([triples, absent.cast(triples.schema)], how="vertical")
    triples = (
        triples.sort(*segments, query_id, sample, nulls_last=True)
        .with_columns(pl.struct(*segments, query_id).rank("dense").cast(pl.Int64).sub(1).alias(group))
        .with_columns(pl.int_range(pl.len(), dtype=pl.Int64).over(group).alias(index),
                      pl.len().cast(pl.Int64).over(group).alias(count))
    )
    most = int(triples[count].max() or 0)  # type: ignore[arg-type]
    groups = int(triples[group].max() or 0) + 1  # type: ignore[arg-type]
    if most >= 2**SAMPLE_BITS:
        raise InvalidParameterError(
            f"the run has a query of {most} samples (sample={sample!r}): at most {2**SAMPLE_BITS - 1} samples of a "
            "query are evaluated"
        )
    if groups >= 2 ** (63 - 2 * SAMPLE_BITS):
        raise InvalidParameterError(
            f"the run has {groups} queries (sample={sample!r}): at most {2 ** (63 - 2 * SAMPLE_BITS) - 1} queries "
            "(per segment) of a stochastic run are evaluated"
        )
    keyed = (pl.col(group) * 2 ** (2 * SAMPLE_BITS)) + pl.col(count) * 2**SAMPLE_BITS + pl.col(index)
    return triples.select(keyed.alias(SEGMENT_KEY), *segments, query_id, sample)


def _keyed_seen(rows: pl.LazyFrame, pairs: pl.LazyFrame, key: str, columns: Columns) -> pl.LazyFrame:
    """The training rows' (user, item) pairs with the user replaced by each key of its (segment,
    user) ``pairs`` (ids compared as text where their types differ)."""
    q, d = columns.query_id, columns.doc_id
    user = rows.collect_schema().get(q)
    if user != pairs.collect_schema()[q]:
        rows, pairs = rows.with_columns(pl.col(q).cast(pl.String)), pairs.with_columns(pl.col(q).cast(pl.String))
    return rows.join(pairs, on=q, how="inner").select(pl.col(key).alias(q), pl.col(d))


def _keyed_base_run(base_run: pl.LazyFrame, pairs: pl.LazyFrame, key: str, columns: Columns) -> pl.LazyFrame:
    """The base run's rows with the user replaced by each key of its (segment, user) ``pairs``
    (ids compared as text where their types differ): the base run cut to the segments' users."""
    from rankwise._polars.prepare import check_base_run_schema

    check_base_run_schema(base_run.collect_schema(), columns)  # its columns before they are selected
    q = columns.query_id
    if base_run.collect_schema().get(q) != pairs.collect_schema()[q]:
        base_run, pairs = base_run.with_columns(pl.col(q).cast(pl.String)), pairs.with_columns(pl.col(q).cast(pl.String))
    return base_run.join(pairs, on=q, how="inner").select(pl.col(key).alias(q), columns.doc_id, columns.score)


def metric_of_column(column: str) -> Metric | None:
    """The metric a result column holds, recognised from its name (any naming scheme)."""
    try:
        found = parse_metrics([column])
    except (UnknownMetricError, MetricSyntaxError, InvalidParameterError):
        return None
    return found[0] if len(found) == 1 else None


@overload
def summarize(per_query: pl.DataFrame, *, by: str | Iterable[str] | None = None) -> pl.DataFrame: ...
@overload
def summarize(per_query: pl.LazyFrame, *, by: str | Iterable[str] | None = None) -> pl.LazyFrame: ...
@checked
def summarize(
    per_query: pl.DataFrame | pl.LazyFrame, *, by: str | Iterable[str] | None = None
) -> pl.DataFrame | pl.LazyFrame:
    """Aggregate per-query values (the output of :func:`evaluate`) over queries.

    Each metric column is aggregated as its spec says: the mean (MAP, MRR, mean nDCG, ...),
    the sum (NumQ, NumRet, NumRel, NumRelRet) or, for GMAP, the geometric mean
    (trec_eval: exp(mean(log(max(AP, eps)))); form='shifted': (Π (AP + eps))^(1/n) − eps).
    Columns that are not metric strings (query ids, ``by`` columns) are left out, and so are
    per-query-only measures (``relstring``, text).

    >>> import polars as pl, rankwise as rw
    >>> per_query = pl.DataFrame({"query_id": ["a", "b"], "AP": [0.5, 0.0], "GMAP": [0.5, 0.0],
    ...                           "NumQ": [1.0, 1.0]})
    >>> rw.summarize(per_query).to_dicts()
    [{'AP': 0.25, 'GMAP': 0.0022360679774997894, 'NumQ': 2.0}]
    """
    keys = [by] if isinstance(by, str) else list(by or [])
    aggs: list[pl.Expr] = []
    for column in per_query.columns:
        if column in keys:
            continue
        metric = metric_of_column(column)
        if metric is None:
            continue
        c = pl.col(column)
        if metric.spec.aggregate == "none":
            continue
        if metric.spec.aggregate == "sum":
            aggs.append(c.sum().cast(pl.Float64).alias(column))
        elif metric.spec.aggregate == "gmean":
            p = metric.resolve()
            eps = float(p["eps"])
            if p["form"] == "trec_eval":
                aggs.append(c.clip(lower_bound=eps).log().mean().exp().alias(column))
            else:
                aggs.append(((c + eps).log().mean().exp() - eps).alias(column))
        else:
            aggs.append(c.mean().alias(column))
    if not aggs:
        raise InvalidParameterError(
            f"no metric columns to summarize among {per_query.columns}; pass the output of evaluate()"
        )
    if keys:
        return per_query.group_by(keys, maintain_order=True).agg(aggs).sort(keys)
    return per_query.select(aggs)


__all__ = ["ENGINES", "Engine", "evaluate", "summarize"]
