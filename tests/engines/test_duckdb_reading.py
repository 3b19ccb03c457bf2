"""How the DuckDB engine holds its inputs while the checks and the statement read them: frames in
memory where they lie, files and LazyFrames copied once into temporary tables (a Parquet file read
in place instead cost more CPU: benchmarks/README.md, "Issue 38 (e)"), nothing copied under a
memory limit; the checks read every value, whatever a file's statistics say; the per-query values
reach Polars without pyarrow. Every form gives the same values."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankwise as rw

METRICS = ["nDCG@10", "AP", "RR", "P@10", "R@100"]


def _inputs(seed: int = 7, queries: int = 40, docs: int = 60, int_ids: bool = False) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run with many tied scores (so that the tie order decides ranks) and its judgments."""
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(queries), docs)
    d = np.tile(np.arange(docs), queries) * 7 + 3  # ids of 1 to 3 digits: text order is not number order
    run = pl.DataFrame({
        "query_id": q if int_ids else q.astype(str),
        "doc_id": d if int_ids else d.astype(str),
        "score": rng.integers(0, 5, q.size).astype(float),
    }).sample(fraction=1.0, shuffle=True, seed=seed)
    judged = run.sample(fraction=0.3, seed=seed + 1).select(
        "query_id", "doc_id", relevance=pl.lit(rng.integers(0, 3, int(run.height * 0.3))),
    )
    return run, judged


def _forms(tmp_path: Path, frame: pl.DataFrame, name: str) -> dict[str, Callable[[], Any]]:
    parquet, csv = tmp_path / f"{name}.parquet", tmp_path / f"{name}.csv"
    frame.write_parquet(parquet, row_group_size=500)  # several row groups: scanned by several threads
    frame.write_csv(csv)
    return {"parquet": lambda: parquet, "csv": lambda: csv, "frame": lambda: frame, "lazy": frame.lazy}


@pytest.mark.parametrize("form", ["parquet", "csv", "frame", "lazy"])
def test_files_and_lazy_frames_copied_once_frames_in_memory_read_in_place(
    form: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rankwise._duckdb import engine

    run, qrels = _inputs()
    copied: dict[str, bool] = {}
    original = engine._normalise

    def spy(con: Any, raw: str, kind: Any, *args: Any, **kwargs: Any) -> tuple[str, int | None]:
        name, rows = original(con, raw, kind, *args, **kwargs)
        copied[kind] = rows is not None  # a table's rows are counted as it is filled
        return name, rows

    monkeypatch.setattr(engine, "_normalise", spy)
    runs, judgments = _forms(tmp_path, run, "run"), _forms(tmp_path, qrels, "qrels")
    got = rw.evaluate(judgments[form](), runs[form](), METRICS, engine="duckdb")
    assert copied == {"run": form != "frame", "qrels": form != "frame"}
    assert_frame_equal(got, rw.evaluate(qrels, run, METRICS), check_exact=False, abs_tol=1e-12)


def test_under_a_memory_limit_nothing_is_copied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rankwise._duckdb import engine

    run, qrels = _inputs()
    copied: list[bool] = []
    original = engine._normalise

    def spy(*args: Any, **kwargs: Any) -> tuple[str, int | None]:
        name, rows = original(*args, **kwargs)
        copied.append(rows is not None)
        return name, rows

    monkeypatch.setattr(engine, "_normalise", spy)
    runs, judgments = _forms(tmp_path, run, "run"), _forms(tmp_path, qrels, "qrels")
    got = rw.evaluate(judgments["csv"](), runs["csv"](), METRICS, engine="duckdb", duckdb_config={"memory_limit": "1GB"})
    assert copied == [False, False]
    assert_frame_equal(got, rw.evaluate(qrels, run, METRICS), check_exact=False, abs_tol=1e-12)


@pytest.mark.parametrize("int_ids", [False, True])
def test_every_form_gives_the_same_values_under_every_tie_order(tmp_path: Path, int_ids: bool) -> None:
    """A Parquet file of several row groups (read by several threads) gives what the same rows
    in memory, from CSV text or read by Polars give, ``ties='input'`` too: its rows are numbered
    in the file's order."""
    run, qrels = _inputs(seed=11, int_ids=int_ids)
    runs, judgments = _forms(tmp_path, run, "run"), _forms(tmp_path, qrels, "qrels")
    for ties in ("trec_eval", "input", "optimistic"):
        expected = rw.evaluate(qrels, run, METRICS, ties=ties)  # type: ignore[arg-type]
        for form in ("parquet", "frame", "lazy") + (() if int_ids else ("csv",)):
            got = rw.evaluate(judgments[form](), runs[form](), METRICS, engine="duckdb", ties=ties)  # type: ignore[arg-type]
            assert_frame_equal(got, expected, check_exact=False, abs_tol=1e-12)


@pytest.mark.parametrize("fault", ["duplicate", "null", "nan"])
def test_a_fault_of_a_parquet_file_is_the_error_of_its_rows_in_memory(tmp_path: Path, fault: str) -> None:
    run, qrels = _inputs()
    score = pl.col("score")
    bad = {
        "duplicate": pl.concat([run, run.tail(1)]),
        "null": run.with_columns(pl.when(pl.int_range(pl.len()) == 5).then(None).otherwise(score).alias("score")),
        "nan": run.with_columns(pl.when(pl.int_range(pl.len()) == 5).then(float("nan")).otherwise(score).alias("score")),
    }[fault]
    bad.write_parquet(tmp_path / "run.parquet", row_group_size=500)
    qrels.write_parquet(tmp_path / "qrels.parquet")
    errors: dict[str, type[Exception]] = {
        "duplicate": rw.DuplicateDocumentError, "null": rw.InvalidValueError, "nan": rw.InvalidValueError,
    }
    messages = []
    for given in (bad, tmp_path / "run.parquet"):  # in memory, and the file: the same error
        with pytest.raises(errors[fault]) as caught:
            rw.evaluate(tmp_path / "qrels.parquet", given, ["AP"], engine="duckdb")
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("config", [None, {"memory_limit": "1GB"}])
def test_a_nan_in_a_parquet_file_is_found_whatever_its_statistics_say(tmp_path: Path, config: Any) -> None:
    """Parquet's min/max leave NaN out; DuckDB trusted them, so that a filter over a file read
    in place skipped the row group holding a NaN cost (the evaluation went on) or score (the
    error lost its example query). The checks read every value."""
    run, qrels = _inputs()
    row = pl.int_range(pl.len()) == 700  # in the second row group of 500
    nan = pl.when(row).then(float("nan"))
    qrels.write_parquet(tmp_path / "qrels.parquet")
    costed = run.with_columns(cost=nan.otherwise(1.0))
    costed.write_parquet(tmp_path / "costed.parquet", row_group_size=500)
    query = costed.filter(row)["query_id"].item()
    with pytest.raises(rw.InvalidValueError, match=rf"1 NULL, NaN, negative or infinite cost value\(s\) \(e.g. in query '{query}'\)"):
        rw.evaluate(tmp_path / "qrels.parquet", tmp_path / "costed.parquet", ["AP"], engine="duckdb", cost="cost",
                    duckdb_config=config)
    run.with_columns(score=nan.otherwise(pl.col("score"))).write_parquet(tmp_path / "run.parquet", row_group_size=500)
    with pytest.raises(rw.InvalidValueError, match=rf"holds 1 NaN value\(s\) \(e.g. in query '{query}'\)"):
        rw.evaluate(tmp_path / "qrels.parquet", tmp_path / "run.parquet", ["AP"], engine="duckdb", duckdb_config=config)


def test_the_values_reach_polars_without_pyarrow_and_the_interpreter_exits_quietly(tmp_path: Path) -> None:
    """The per-query values come to Polars through the Arrow C stream (pyarrow's import is about
    0.13 s of a call); the interpreter then exits without a word on stderr (duckdb 2.0.0 printed
    nanobind "leaked instances" warnings there)."""
    run, qrels = _inputs()
    run.write_parquet(tmp_path / "run.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    script = textwrap.dedent(f"""
        import sys
        import rankwise as rw
        got = rw.evaluate({str(tmp_path / 'qrels.parquet')!r}, {str(tmp_path / 'run.parquet')!r}, {METRICS!r},
                          engine="duckdb")
        assert got.height == 40, got
        print("pyarrow" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert out.stderr == ""
