"""How the DuckDB engine reads its inputs and hands back its values: the checks read every value,
whatever a file's statistics say; the values reach Polars without pyarrow."""

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
