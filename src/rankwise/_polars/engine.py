"""The Polars engine: inputs checked and normalised, one ranking, one join, and every metric's
recipe compiled into aggregations over it. This module wires the steps, each in a module of its
own:

1. :mod:`~rankwise._polars.prepare`: the schemas checked, the columns renamed to the engine's own
   (:mod:`~rankwise._polars.columns`), the ids cast to text where the inputs disagree.
2. :mod:`~rankwise._polars.chunks`: the queries split into groups (in memory, or through
   temporary files with ``query_chunks``), evaluated one after the other.
3. :mod:`~rankwise._polars.compile`: the metrics' recipes compiled into expressions (bound to the
   primitives' Polars functions by :mod:`~rankwise._polars.bind`), kept for the next evaluation.
4. :mod:`~rankwise._polars.plan`: the lazy plans over one group, per evaluation:

   - ``run LEFT JOIN qrels`` on (query, doc), grouped by query: each query's relevance values
     sorted once into a list by the tie policy's keys (:mod:`~rankwise._polars.ranking`;
     ``max_rank`` cuts the lists; a judged-only ranking keeps the judged entries). The data
     checks' counts are extra aggregates of this group-by and of the qrels' one
     (:func:`~rankwise._polars.prepare.audit`).
   - Qrels-side primitives aggregated per query (number relevant, ideal DCG).
   - Running values (relevant so far, ...) computed on the sorted lists, which are then
     exploded into ranked rows carrying the qrels-side values they need (e.g. R for
     R-precision); run-side primitives aggregated per query over them; the diversity
     measures over (document, subtopic) pairs (:mod:`~rankwise._polars.diversity`).
   - Per-query output: each recipe's formula over the aggregate tables.
5. The data checks' errors raised (the qrels' before the evaluation, the run's on the counts of
   every group) before any value is returned.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import polars as pl

from rankwise._polars.chunks import query_groups
from rankwise._polars.plan import evaluation_plans, judgments_once, train_tables
from rankwise._polars.prepare import (
    Judgments,
    Prepared,
    check_run_costs,
    check_subtopics,
    checked_base_run,
    checked_features,
    checked_train,
    prepare,
)
from rankwise._polars.ranking import in_rank_order
from rankwise.conventions import Columns, Conventions
from rankwise.inputs.groups import Fair
from rankwise.inputs.interactions import Training
from rankwise.metrics.metric import Metric
from rankwise.metrics.recipes import reading_subtopics
from rankwise.outputs import progress

ROWS_PER_CHUNK = 500_000
"""Run rows per query group when the inputs are held in memory (:func:`evaluate_eager`)."""

SMALL_ROWS = 250_000
"""Below this many run rows, held in memory, Polars' in-memory engine evaluates: its start is
cheaper than the streaming engine's (50 queries x 1,000 documents: about 15 ms of CPU per
evaluation against 17-25 ms); from about a million rows on, the streaming engine is faster
(``all_trec`` on a million rows: 1.8 s of CPU against 2.2 s)."""


@dataclass(repr=False)
class JudgmentCache:
    """What an :class:`~rankwise.evaluation.evaluator.Evaluator` keeps between its runs on this
    engine: the judgments' side of the plans, collected once over every judgment
    (:class:`~rankwise._polars.prepare.Judgments`), and whether the judgments passed their data
    checks, each by the metrics, the conventions and the judgments' prepared schema (the ids'
    type follows the run's: a run of other id types prepares them anew)."""

    qrels: Any
    """The judgments kept: the frame every evaluation that reads them is given (by identity)."""
    tables: dict[tuple[Any, ...], Judgments] = field(default_factory=dict)
    checked: set[tuple[Any, ...]] = field(default_factory=set)


_CACHE: ContextVar[JudgmentCache | None] = ContextVar("rankwise_judgments", default=None)


def kept_for(qrels: Any) -> JudgmentCache | None:
    """The cache of the innermost :func:`judgments_kept` block if it keeps ``qrels`` (the very
    object), else None: an evaluation of other judgments inside the block (``by=`` segments
    key them anew) computes its own."""
    cache = _CACHE.get()
    return cache if cache is not None and cache.qrels is qrels else None


@contextlib.contextmanager
def judgments_kept(cache: JudgmentCache | None) -> Iterator[None]:
    """Within the block, the Polars engine keeps the judgments' side of the evaluations of
    ``cache.qrels`` in ``cache`` (None: every evaluation its own, as outside any block)."""
    token = _CACHE.set(cache)
    try:
        yield
    finally:
        _CACHE.reset(token)


def evaluate_eager(
    run: pl.LazyFrame, qrels: pl.LazyFrame, metrics: Sequence[Metric], conv: Conventions, columns: Columns,
    query_chunks: int | None = None, train: Training | None = None, features: pl.DataFrame | None = None,
    base_run: pl.LazyFrame | None = None, categories: pl.DataFrame | None = None,
    catalog: pl.LazyFrame | None = None,
    fair: Fair | None = None,
    cache: JudgmentCache | None = None,
) -> tuple[pl.DataFrame, int]:
    """Per-query values of ``run`` against ``qrels`` (the inputs as read, their columns named
    by ``columns``) and the number of unjudged run queries. The schemas are checked first
    (:func:`~rankwise._polars.prepare.prepare`); the data checks' errors are raised before any
    value is returned: the qrels' before the evaluation
    (:meth:`~rankwise._polars.prepare.Prepared.check_qrels`), the run's on the counts of every
    group summed (:meth:`~rankwise._polars.prepare.Prepared.check_run`).

    The queries are evaluated in groups (by a hash of the query id), one after the other:
    by default the inputs are read once and split into groups of about half a million run rows
    (smaller group-bys are faster and hold less); with ``query_chunks`` = n, the inputs are
    written once (streaming) into n groups of Arrow IPC files in a temporary folder, and each
    group is read back alone, so that only about 1/n of them is ever held: for inputs larger
    than memory. Those groups run on Polars' streaming engine (its per-query group-by still
    holds a whole group: the group size, not the engine, bounds the memory). The folder, in
    the system's temporary directory (``TMPDIR``), is removed before this returns or raises.
    ``cache``: the judgments' checks and side kept between evaluations (:class:`JudgmentCache`)."""
    # the data checks are counted in the group-bys that rank the run and summarise the qrels,
    # collected with the values
    prep = prepare(
        run, qrels, columns, check_data=False, diversity=reading_subtopics(metrics, conv),
        input_order=conv.ties == "input", train=train, features=features, base_run=base_run,
        categories=categories, catalog=catalog, fair=fair,
    )
    # collected once, every item the run lists checked to have features
    prep = checked_features(prep)
    # collected once and checked as a run: every query group joins its ranks
    prep = checked_base_run(prep)
    if prep.catalog is not None:  # its size counted once
        prep = replace(prep, catalog=prep.catalog.collect().lazy())
    if prep.train is not None:
        # read and summed up once: every query group joins the same popularity of every item
        rows = checked_train(prep.train, columns)
        items, totals = pl.collect_all(train_tables(rows))
        prep = replace(prep, train=rows, train_tables=(items.lazy(), totals.lazy()))
    key = None
    if cache is not None and conv.judgments == "all":
        key = (tuple(m.label for m in metrics), conv, tuple(prep.qrels.collect_schema().items()))
    with contextlib.ExitStack() as stack:
        folder = None
        if query_chunks is not None and query_chunks > 1:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="rankwise-groups-")))
        return _evaluate_groups(prep, metrics, conv, columns, query_chunks, folder, cache, key)


def _evaluate_groups(
    prep: Prepared, metrics: Sequence[Metric], conv: Conventions, columns: Columns,
    query_chunks: int | None, folder: Path | None, cache: JudgmentCache | None = None,
    key: tuple[Any, ...] | None = None,
) -> tuple[pl.DataFrame, int]:
    """:func:`evaluate_eager` of the prepared inputs (``folder``: the temporary folder of
    ``query_chunks`` groups); with a ``cache`` and its ``key``, the judgments checked and their
    side of the plans computed once for every evaluation that shares them."""
    if cache is not None and key is not None:
        # over every judgment, before the queries are split into groups: each group cuts them
        if key not in cache.tables:
            _check_judgments(prep, columns)
            cache.checked.add(key)
            cache.tables[key] = judgments_once(prep, metrics, conv)
        prep = replace(prep, judgments=cache.tables[key])
    with progress.task("reading the inputs"):
        prep, groups, rows = query_groups(
            prep, query_chunks, ROWS_PER_CHUNK, folder, lambda run: in_rank_order(run, conv, prep.doc_dtype)
        )
    check_run_costs(prep)
    if cache is None or key not in cache.checked:
        _check_judgments(prep, columns)
    # a run in rank order: the in-memory engine, whose join keeps the run's order at little cost
    # (the streaming engine's join kept it at 3 times the cost of an unordered one)
    engine: Literal["auto", "in-memory", "streaming"] = "streaming" if rows is None else (
        "in-memory" if rows < SMALL_ROWS or prep.in_rank_order else "auto"
    )
    counts: list[pl.DataFrame] = []
    results: list[pl.DataFrame] = []
    with progress.task("query groups" if len(groups) > 1 else "evaluating", total=len(groups) if len(groups) > 1 else None) as step:
        for i, group in enumerate(groups):
            step.at(i)
            run_counts, result = evaluation_plans(group, metrics, conv, columns).collect(engine)
            counts.append(run_counts)
            results.append(result)
    # each group's counts are one row of sums
    run_total = counts[0] if len(counts) == 1 else pl.concat(counts).sum()
    prep.check_run(run_total.drop("unjudged"))
    result = results[0] if len(results) == 1 else pl.concat(results).sort(columns.query_id)
    return result, int(run_total["unjudged"].item())


def _check_judgments(prep: Prepared, columns: Columns) -> None:
    """The qrels' data checks, before any work that grows with their duplicates
    (:meth:`~rankwise._polars.prepare.Prepared.check_qrels`; subtopic qrels: their rows)."""
    if prep.subtopics is not None:
        check_subtopics(prep.subtopics, columns)
    else:
        prep.check_qrels()


def evaluate_lazy(prep: Prepared, metrics: Sequence[Metric], conv: Conventions, columns: Columns) -> pl.LazyFrame:
    """Per-query metric values as a LazyFrame (query column + one Float64 column per metric)."""
    return evaluation_plans(prep, metrics, conv, columns).result

