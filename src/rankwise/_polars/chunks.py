"""The inputs split into query groups, evaluated one after the other (:func:`query_groups`): in
memory, or written once into Arrow IPC files in a temporary folder and read back a group at a
time (``query_chunks``, for inputs larger than memory)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import polars as pl

from rankwise._polars.columns import Q
from rankwise._polars.prepare import Prepared
from rankwise.inputs.faults import check_polars_memory
from rankwise.inputs.read import cheap_to_count
from rankwise.outputs import progress

_CHUNK = "__chunk"


def _partitioned(frame: pl.LazyFrame, folder: Path, n: int) -> list[pl.LazyFrame]:
    """``frame``'s rows written once, streaming, into ``n`` groups of Arrow IPC files under
    ``folder`` by a hash of the query id, and each group scanned back (an empty frame for a
    group without rows). One read of the inputs and one write, instead of a read of the whole
    inputs for each group (100M rows in 10 groups: 10 reads of 100M rows)."""
    key = (pl.col(Q).hash(seed=0) % n).alias(_CHUNK)
    frame.with_columns(key).sink_ipc(pl.PartitionBy(folder, key=_CHUNK, include_key=False), mkdir=True)
    groups = []
    for c in range(n):
        files = sorted(p for p in (folder / f"{_CHUNK}={c}").glob("*") if p.is_file())
        groups.append(pl.scan_ipc(files) if files else frame.clear())
    return groups


_COUNTED_ROWS = 1_000_000
"""From how many run rows the reading shows a count of rows read (fewer are read in well under
half a second: the progress line would not appear)."""


def _read_counted(frame: pl.LazyFrame, total: int) -> pl.DataFrame:
    """``frame`` read whole, a batch at a time, the rows read so far shown against ``total``
    (:func:`rankwise.outputs.progress.task`); the batches kept as the frame's chunks, as a
    plain read keeps its row groups."""
    batches: list[pl.DataFrame] = []
    with progress.task("reading the run", total=total, unit="rows") as step:
        read = 0
        for batch in frame.collect_batches():
            batches.append(batch)
            read += batch.height
            step.at(read)
    return pl.concat(batches, rechunk=False) if batches else frame.collect()


def _in_order_groups(run: pl.DataFrame, n: int) -> tuple[list[pl.DataFrame], pl.DataFrame]:
    """A run whose queries' rows stand together, cut into ``n`` slices of about equal size at
    query starts (no copy of a row), and each of its queries' slice (``__q``, ``__chunk``)."""
    # lazily: compared as Series, the column's chunks (the file's row groups) are realigned, a copy
    starts = run.lazy().select(pl.arg_where(pl.col(Q).ne_missing(pl.col(Q).shift(1))).cast(pl.UInt32)).collect().to_series()
    # each cut at the first query start at or after an n-th of the rows
    cuts = sorted({0, *starts.gather(starts.search_sorted(
        pl.Series([k * run.height // n for k in range(1, n)], dtype=pl.UInt32), side="left"
    ).clip(upper_bound=starts.len() - 1)).to_list(), run.height})
    slices = [run.slice(a, b - a) for a, b in itertools.pairwise(cuts)]
    # a query's slice: how many inner cuts stand at or before its start
    bounds = pl.Series(cuts[1:-1], dtype=pl.UInt32)
    groups = pl.DataFrame({
        Q: run.get_column(Q).gather(starts), _CHUNK: bounds.search_sorted(starts, side="right").cast(pl.UInt32),
    })
    return slices, groups


def _parts_by(frame: pl.DataFrame, groups: pl.DataFrame, n: int) -> list[pl.LazyFrame]:
    """``frame``'s rows split by their query's group (``groups``, :func:`_in_order_groups`);
    the rows of queries in no group (judged queries the run lacks) in the first. Split once
    (a filter per group, read by each plan that reads the judgments, cost 0.5 s more at 10M run
    rows)."""
    # a join to the groups, not a ``replace_strict`` of every row's query (half the time)
    keyed = frame.join(groups, on=Q, how="left", maintain_order="left").with_columns(pl.col(_CHUNK).fill_null(0))
    parts = keyed.partition_by(_CHUNK, as_dict=True, include_key=False)
    empty = frame.clear()
    return [parts.get((c,), empty).lazy() for c in range(n)]


def query_groups(
    prep: Prepared, query_chunks: int | None, rows_per_chunk: int, folder: Path | None = None,
    in_order: Callable[[pl.DataFrame], bool] = lambda run: False,
) -> tuple[Prepared, list[Prepared], int | None]:
    """The inputs split into query groups by a hash of the query id: ``query_chunks`` groups
    written once into files under ``folder`` (:func:`_partitioned`) and each read back alone,
    or (``None``) the inputs read once into memory and split into groups of about
    ``rows_per_chunk`` run rows. Also returns ``prep`` as it then is, and the number of
    run rows when they were read (``None`` with ``query_chunks``).

    Read into memory, a run that ``in_order`` finds already in rank order
    (:func:`~rankwise._polars.ranking.in_rank_order`) is marked so (``in_rank_order``: each
    group keeps its rows' order and is not sorted again) and cut into slices at query starts
    instead (:func:`_in_order_groups`: no hash of every row, no copy)."""
    counted = None
    if (query_chunks is None or query_chunks == 1) and cheap_to_count(prep.run):
        # the rows held at once, checked against the memory left before they are read (Polars'
        # allocation failure would abort the process): a count from the files' metadata, a
        # light scan of a CSV file, or an in-memory frame's height
        counted = prep.run.select(pl.len()).collect().item()
        check_polars_memory(counted, counted if query_chunks == 1 else min(counted, rows_per_chunk))
    if query_chunks == 1:
        return prep, [prep], None
    if query_chunks is not None:
        assert folder is not None
        runs = _partitioned(prep.run, folder / "run", query_chunks)
        judged = _partitioned(prep.qrels, folder / "qrels", query_chunks)
        per_sub = None if prep.subtopics is None else _partitioned(prep.subtopics, folder / "subtopics", query_chunks)
        # the base run is per query too: each group ranks its own queries' base lists only
        bases = None if prep.base_run is None else _partitioned(prep.base_run, folder / "base_run", query_chunks)
        return prep, [
            replace(prep, run=runs[c], qrels=judged[c], subtopics=None if per_sub is None else per_sub[c],
                    base_run=None if bases is None else bases[c])
            for c in range(query_chunks)
        ], None
    if counted is not None and counted >= _COUNTED_ROWS:
        # a count of the run's rows read shown while they are read (its Parquet row groups, its
        # CSV's batches): the same read, a batch at a time
        run = _read_counted(prep.run, counted)
        qrels = prep.qrels.collect()
    else:
        run, qrels = pl.collect_all([prep.run, prep.qrels])
    if counted is None:  # a pipeline of the caller's, counted once it is read
        check_polars_memory(run.height, min(run.height, rows_per_chunk))
    subs = None if prep.subtopics is None else prep.subtopics.collect()
    prep = replace(
        prep, run=run.lazy(), qrels=qrels.lazy(), subtopics=None if subs is None else subs.lazy(),
        in_rank_order=in_order(run),
    )
    n = max(1, -(-run.height // rows_per_chunk))
    if n == 1:
        return prep, [prep], run.height
    if prep.in_rank_order:
        # slices of half the rows: a slice costs no pass over the run (a hash group does), and
        # the in-memory engine that evaluates them holds more than the streaming one
        slices, groups = _in_order_groups(run, 2 * n)
        judged = _parts_by(qrels, groups, len(slices))
        per_sub = None if subs is None else _parts_by(subs, groups, len(slices))
        bases = None if prep.base_run is None else _parts_by(prep.base_run.collect(), groups, len(slices))
        return prep, [
            replace(prep, run=part.lazy(), qrels=judged[c], subtopics=None if per_sub is None else per_sub[c],
                    base_run=None if bases is None else bases[c])
            for c, part in enumerate(slices)
        ], run.height
    key = (pl.col(Q).hash(seed=0) % n).cast(pl.UInt32).alias(_CHUNK)  # 4 bytes a row, not 8
    run, qrels = run.with_columns(key), qrels.with_columns(key)
    subs = None if subs is None else subs.with_columns(key)
    # the base run (collected once, keyed by the run's query type) is per query too: each group
    # ranks its own queries' base lists, not the whole base run (20 groups of a 10M-row base run
    # ranked it 20 times: 51 s against 3.6 s)
    base = None if prep.base_run is None else prep.base_run.collect().with_columns(key)

    def part(frame: pl.DataFrame, c: int) -> pl.LazyFrame:
        return frame.lazy().filter(pl.col(_CHUNK) == c).drop(_CHUNK)

    return prep, [
        replace(
            prep, run=part(run, c), qrels=part(qrels, c), subtopics=None if subs is None else part(subs, c),
            base_run=None if base is None else part(base, c),
        )
        for c in range(n)
    ], run.height

