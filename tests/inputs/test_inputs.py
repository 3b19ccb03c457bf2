"""Every accepted input gives the same numbers: Polars, pyarrow, pandas, DuckDB relations,
Parquet, CSV and TREC files; string or integer ids; mixed id types."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from tests.conftest import Evaluate

METRICS = ["nDCG@3", "AP", "RR", "P@2", "NumRet"]
RUN = pl.DataFrame({
    "query_id": ["q1", "q1", "q1", "q2", "q2"],
    "doc_id": ["a", "b", "c", "a", "d"],
    "score": [3.0, 2.0, 1.0, 1.0, 1.0],
})
QRELS = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["b", "c", "d"], "relevance": [2, 1, 1]})


@pytest.fixture
def expected() -> pl.DataFrame:
    import rankwise as rw

    return rw.evaluate(QRELS, RUN, METRICS)


def test_reference_values(expected: pl.DataFrame) -> None:
    # q2: both documents tie at 1.0; doc_id descending puts 'd' (relevant) first
    assert expected.filter(query_id="q2")["RR"][0] == 1.0
    assert expected.filter(query_id="q1")["RR"][0] == 0.5


@pytest.mark.parametrize("kind", ["pyarrow", "pandas", "duckdb", "lazy"])
def test_in_memory_inputs(evaluate: Evaluate, expected: pl.DataFrame, kind: str) -> None:
    def convert(df: pl.DataFrame) -> object:
        if kind == "pyarrow":
            return df.to_arrow()
        if kind == "pandas":
            return df.to_pandas()
        if kind == "duckdb":
            con = duckdb.connect()
            return con.sql("SELECT * FROM df")
        return df.lazy()

    run, qrels = convert(RUN), convert(QRELS)
    assert_frame_equal(evaluate(qrels, run, METRICS), expected)


@pytest.mark.parametrize("fmt", ["parquet", "csv", "tsv", "trec"])
def test_files(evaluate: Evaluate, expected: pl.DataFrame, tmp_path: Path, fmt: str) -> None:
    run_path, qrels_path = tmp_path / f"run.{fmt}", tmp_path / f"qrels.{fmt}"
    if fmt == "parquet":
        RUN.write_parquet(run_path)
        QRELS.write_parquet(qrels_path)
    elif fmt in ("csv", "tsv"):
        sep = "," if fmt == "csv" else "\t"
        RUN.write_csv(run_path, separator=sep)
        QRELS.write_csv(qrels_path, separator=sep)
    else:
        run_path.write_text("".join(
            f"{q} Q0 {d} {i} {s} tag\n" for i, (q, d, s) in enumerate(RUN.iter_rows())
        ))
        qrels_path.write_text("".join(f"{q}\t0\t{d}\t{r}\n" for q, d, r in QRELS.iter_rows()))
    assert_frame_equal(evaluate(qrels_path, run_path, METRICS), expected)


def test_path_with_a_quote_in_its_name(evaluate: Evaluate, expected: pl.DataFrame, tmp_path: Path) -> None:
    path = tmp_path / "it's a run.parquet"
    RUN.write_parquet(path)
    assert_frame_equal(evaluate(QRELS, path, METRICS), expected)


def test_integer_ids(evaluate: Evaluate) -> None:
    run = RUN.with_columns(pl.col("query_id").str.slice(1).cast(pl.Int64), pl.col("doc_id").replace({"a": "1", "b": "2", "c": "3", "d": "4"}).cast(pl.Int32))
    qrels = QRELS.with_columns(pl.col("query_id").str.slice(1).cast(pl.Int64), pl.col("doc_id").replace({"b": "2", "c": "3", "d": "4"}).cast(pl.Int32))
    out = evaluate(qrels, run, METRICS)
    assert out["query_id"].to_list() == [1, 2]
    assert out["query_id"].dtype == pl.Int64
    assert out["RR"].to_list() == [0.5, 1.0]


def test_mixed_id_types_are_compared_as_strings(evaluate: Evaluate) -> None:
    run = pl.DataFrame({"query_id": [1, 1], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["1"], "doc_id": ["b"], "relevance": [1.5]})
    out = evaluate(qrels, run, ["RR", "nDCG"])
    assert out["query_id"].to_list() == ["1"]
    assert out["RR"][0] == 0.5


def test_float_relevance(evaluate: Evaluate) -> None:
    run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "relevance": [0.1, 0.7, 0.4]})
    out = evaluate(qrels, run, ["DCG", "P(rel=0.5)@1", "RR(rel=0.5)"])
    import math
    assert out["DCG"][0] == pytest.approx(0.1 + 0.7 / math.log2(3) + 0.4 / 2, abs=1e-12)
    assert out["P(rel=0.5)@1"][0] == 0.0
    assert out["RR(rel=0.5)"][0] == 0.5


@pytest.mark.parametrize("config", [None, {"memory_limit": "1GB"}, {"MAX_MEMORY": "1GB"}])
def test_duckdb_engine_reads_a_lazy_input_once(expected: pl.DataFrame, config: dict[str, str] | None) -> None:
    # DuckDB collects a registered LazyFrame anew for every statement that scans it: the
    # engine reads such an input (and files) once into a temporary table, which its checks
    # and its metrics' statement then share; under a memory limit it copies nothing, and each
    # statement reads the input again
    import rankwise as rw

    calls = {"run": 0, "qrels": 0}

    def counted(df: pl.DataFrame, kind: str) -> pl.LazyFrame:
        def count(s: pl.Series) -> pl.Series:
            calls[kind] += 1
            return s

        return df.lazy().with_columns(pl.col("query_id").map_batches(count, return_dtype=pl.String))

    out = rw.evaluate(counted(QRELS, "qrels"), counted(RUN, "run"), METRICS, engine="duckdb", duckdb_config=config)
    assert_frame_equal(out, expected)
    if config is None:
        assert calls == {"run": 1, "qrels": 1}
    else:
        assert calls["run"] > 1 and calls["qrels"] > 1
