"""Each input is read once, before either engine runs, into the one form the engines take
(:meth:`rankwise.inputs.columns.Reading.source`): a Polars DataFrame when its rows are in memory,
a LazyFrame when they are still to be read, or, for the DuckDB engine, a path it reads itself."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankwise as rw
from rankwise.inputs.columns import Reading

RUN = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
QRELS = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "c"], "relevance": [1, 2]})
EXPECTED = pl.DataFrame({"query_id": ["q1", "q2"], "AP": [0.5, 1.0], "RR": [0.5, 1.0]})
"""By hand: q1 ranks a (unjudged) then b (relevant): AP = RR = 1/2; q2 ranks its one relevant
document first: AP = RR = 1."""

IN_MEMORY: dict[str, Callable[[pl.DataFrame], Any]] = {
    "polars": lambda frame: frame,
    "pyarrow": lambda frame: frame.to_arrow(),
    "pandas": lambda frame: frame.to_pandas(),
    "duckdb": lambda frame: duckdb.connect().from_arrow(frame.to_arrow()),
    "records": lambda frame: iter(frame.to_dicts()),
}


@pytest.mark.parametrize("form", list(IN_MEMORY))
@pytest.mark.parametrize("paths", [False, True])
def test_an_input_in_memory_is_read_once_into_a_dataframe(form: str, paths: bool) -> None:
    source = Reading().source(IN_MEMORY[form](RUN), "run", rw.Columns(), paths=paths)
    assert isinstance(source, pl.DataFrame)
    assert_frame_equal(source, RUN)


def test_a_path_is_kept_for_the_duckdb_engine_unless_it_has_names_of_its_own(tmp_path: Path) -> None:
    path = tmp_path / "run.parquet"
    RUN.rename({"query_id": "qid"}).write_parquet(path)
    assert Reading().source(path, "run", rw.Columns(), paths=True) == path
    scanned = Reading().source(path, "run", rw.Columns(), paths=False)
    assert isinstance(scanned, pl.LazyFrame)
    # a column of its own name: renamed as it is read, by Polars, for either engine
    renamed = Reading(run_columns={"query_id": "qid"}).source(path, "run", rw.Columns(), paths=True)
    assert isinstance(renamed, pl.LazyFrame)
    assert_frame_equal(renamed.collect(), RUN)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("form", list(IN_MEMORY))
def test_every_input_in_memory_gives_the_values_by_hand(engine: str, form: str) -> None:
    got = rw.evaluate(IN_MEMORY[form](QRELS), IN_MEMORY[form](RUN), ["AP", "RR"], engine=engine)  # type: ignore[arg-type]
    assert_frame_equal(got, EXPECTED)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("form", ["pandas", "pyarrow"])
def test_a_fault_of_an_input_in_memory_is_found_once_read(engine: str, form: str) -> None:
    """The data checks see the frame read once: a duplicated pair of a pandas or pyarrow run is
    the same error on both engines."""
    doubled = pl.concat([RUN, RUN.tail(1)])
    with pytest.raises(rw.DuplicateDocumentError, match="the run lists document 'c' more than once for query 'q2'"):
        rw.evaluate(QRELS, IN_MEMORY[form](doubled), ["AP"], engine=engine)  # type: ignore[arg-type]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_a_file_with_names_of_its_own_on_both_engines(engine: str, tmp_path: Path) -> None:
    run, qrels = tmp_path / "run.csv", tmp_path / "qrels.parquet"
    RUN.rename({"query_id": "qid", "score": "sim"}).write_csv(run)
    QRELS.write_parquet(qrels)
    got = rw.evaluate(
        qrels, run, ["AP", "RR"], engine=engine, run_columns={"query_id": "qid", "score": "sim"},  # type: ignore[arg-type]
    )
    assert_frame_equal(got, EXPECTED)
