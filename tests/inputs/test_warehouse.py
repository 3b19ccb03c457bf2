"""Warehouse exports: Parquet folders with hive partitions and several files, globs, CSV/TSV
and TREC files (gzipped too), list form, gains from events, segments — on every engine,
compared with the in-memory long-form result."""

from __future__ import annotations

import gzip
import tempfile
from pathlib import Path

import duckdb
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import rankwise as rw
from rankwise._polars import engine as polars_engine
from tests.conftest import Evaluate, run_on
from tests.strategies import Case, cases
from tests.tiers import examples

METRICS = ["nDCG@5", "AP", "RR", "P@3", "NumRet", "Bpref"]


def frames() -> tuple[pl.DataFrame, pl.DataFrame]:
    run = pl.DataFrame({
        "query_id": [f"q{i // 6}" for i in range(36)],
        "doc_id": [f"d{(i * 7) % 23}" for i in range(36)],
        "score": [float((i * 13) % 11) for i in range(36)],
        "dt": ["2026-11-01" if i < 18 else "2026-11-02" for i in range(36)],
    })
    qrels = pl.DataFrame({
        "query_id": [f"q{i % 6}" for i in range(30)],
        "doc_id": [f"d{(i * 5) % 23}" for i in range(30)],
        "relevance": [i % 4 for i in range(30)],
    }).unique(["query_id", "doc_id"])
    return run, qrels


@pytest.fixture
def expected() -> pl.DataFrame:
    run, qrels = frames()
    return rw.evaluate(qrels, run.drop("dt"), METRICS)


def test_hive_partitioned_parquet_folder(evaluate: Evaluate, expected: pl.DataFrame, tmp_path: Path) -> None:
    run, qrels = frames()
    for dt, part in run.group_by("dt"):
        folder = tmp_path / "run" / f"dt={dt[0]}"
        folder.mkdir(parents=True)
        half = part.height // 2
        part.drop("dt").head(half).write_parquet(folder / "part-0.parquet")
        part.drop("dt").tail(part.height - half).write_parquet(folder / "part-1.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    assert_frame_equal(evaluate(tmp_path / "qrels.parquet", tmp_path / "run", METRICS), expected)
    # the partition column became a column: usable as a segment
    by_day = rw.evaluate(tmp_path / "qrels.parquet", tmp_path / "run", ["NumRet"], by="dt")
    assert by_day.columns == ["dt", "query_id", "NumRet"]
    assert sorted(set(by_day["dt"].cast(pl.String).to_list())) == ["2026-11-01", "2026-11-02"]


def test_glob_of_parquet_files(evaluate: Evaluate, expected: pl.DataFrame, tmp_path: Path) -> None:
    run, qrels = frames()
    (tmp_path / "exports").mkdir()
    for i, part in enumerate(run.drop("dt").iter_slices(10)):
        part.write_parquet(tmp_path / "exports" / f"run-{i}.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    got = evaluate(tmp_path / "qrels.parquet", str(tmp_path / "exports" / "run-*.parquet"), METRICS)
    assert_frame_equal(got, expected)


@pytest.mark.parametrize("sep", [",", "\t"])
def test_gzipped_csv_and_tsv(evaluate: Evaluate, expected: pl.DataFrame, tmp_path: Path, sep: str) -> None:
    run, qrels = frames()
    ext = "csv" if sep == "," else "tsv"
    for name, frame in (("run", run.drop("dt")), ("qrels", qrels)):
        with gzip.open(tmp_path / f"{name}.{ext}.gz", "wt") as fh:
            fh.write(frame.write_csv(separator=sep))
    assert_frame_equal(evaluate(tmp_path / f"qrels.{ext}.gz", tmp_path / f"run.{ext}.gz", METRICS), expected)


def test_gzipped_trec_files_and_format_override(evaluate: Evaluate, expected: pl.DataFrame, tmp_path: Path) -> None:
    run, qrels = frames()
    with gzip.open(tmp_path / "run.gz", "wt") as fh:
        fh.write("".join(f"{q} Q0 {d} {i} {s} tag\n" for i, (q, d, s, _) in enumerate(run.iter_rows())))
    with gzip.open(tmp_path / "judgments.data", "wt") as fh:  # no telling extension: sniffed
        fh.write("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels.iter_rows()))
    assert_frame_equal(evaluate(tmp_path / "judgments.data", tmp_path / "run.gz", METRICS), expected)
    # a CSV under a misleading name, read as what the user says it is
    (tmp_path / "qrels.txt").write_text(qrels.write_csv())
    got = rw.evaluate(tmp_path / "qrels.txt", tmp_path / "run.gz", METRICS, qrels_format="csv")
    assert_frame_equal(got, expected)


def test_content_sniffing_of_extensionless_files(tmp_path: Path, expected: pl.DataFrame) -> None:
    run, qrels = frames()
    run.drop("dt").write_parquet(tmp_path / "run_export")
    (tmp_path / "qrels_export").write_text(qrels.write_csv())
    assert_frame_equal(rw.evaluate(tmp_path / "qrels_export", tmp_path / "run_export", METRICS), expected)


def test_bad_paths(evaluate: Evaluate, tmp_path: Path) -> None:
    with pytest.raises(rw.UnsupportedInputError, match="no file matches"):
        evaluate(tmp_path / "q.parquet", str(tmp_path / "nothing-*.parquet"), ["AP"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(rw.UnsupportedInputError, match="holds no files"):
        evaluate(tmp_path / "q.parquet", tmp_path / "empty", ["AP"])
    with pytest.raises(rw.InvalidParameterError, match=r"format must be one of \['parquet', 'csv', 'tsv', 'trec', 'json', 'jsonl'\], got 'xlsx'"):
        rw.evaluate(tmp_path, tmp_path, ["AP"], run_format="xlsx")  # type: ignore[arg-type]


# -- list form -----------------------------------------------------------------------------


def to_lists(case: Case, truth: str) -> pl.DataFrame:
    """The list form of a case: predictions ordered by the trec_eval ranking."""
    run = case.run_frame().sort(["query_id", "score", "doc_id"], descending=[False, True, True])
    predicted = run.group_by("query_id", maintain_order=True).agg(pl.col("doc_id").alias("predicted"))
    q = case.qrels_frame()
    if truth == "items":
        gt = q.filter(pl.col("relevance") >= 1).group_by("query_id").agg(pl.col("doc_id").alias("relevant"))
    else:
        gt = q.group_by("query_id").agg(pl.struct("doc_id", "relevance").alias("relevant"))
    return predicted.join(gt, on="query_id", how="inner")


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@settings(max_examples=examples(25), deadline=None)
@given(case=cases(), truth=st.sampled_from(["items", "structs"]))
def test_list_form_equals_long_form(engine: str, case: Case, truth: str) -> None:
    metrics = ["nDCG@5", "AP", "RR", "P@3", "R@5", "NumRel"]
    lists = to_lists(case, truth)
    if lists.is_empty():
        return
    got = rw.evaluate_lists(lists, metrics, engine=engine)  # type: ignore[arg-type]
    run = case.run_frame().filter(pl.col("query_id").is_in(lists["query_id"].implode()))
    qrels = case.qrels_frame()
    if truth == "items":
        qrels = qrels.filter(pl.col("relevance") >= 1).with_columns(relevance=pl.lit(1, dtype=pl.Int64))
    qrels = qrels.filter(pl.col("query_id").is_in(lists["query_id"].implode()))
    expected = run_on(engine, qrels, run, metrics)
    assert_frame_equal(got, expected, check_exact=False, abs_tol=1e-12)


def test_list_form_with_a_map_of_real_valued_relevance() -> None:
    con = duckdb.connect()
    rel = con.sql("""
        SELECT 'u1' AS user_id, ['a', 'b', 'c'] AS items,
               MAP {'b': 0.7, 'c': 0.1, 'z': 0.4} AS truth
    """)
    got = rw.evaluate_lists(rel, ["DCG", "P(rel=0.5)@2"], query_id="user_id", predicted="items", truth="truth")
    import math
    assert got.columns == ["user_id", "DCG", "P(rel=0.5)@2"]
    assert got["DCG"][0] == pytest.approx(0.7 / math.log2(3) + 0.1 / 2, abs=1e-12)
    assert got["P(rel=0.5)@2"][0] == 0.5


def test_list_form_errors() -> None:
    df = pl.DataFrame({"query_id": ["q"], "predicted": ["a"], "relevant": [["a"]]})
    with pytest.raises(rw.ColumnTypeError, match="column 'predicted' must be a list of items"):
        rw.evaluate_lists(df, ["AP"])
    with pytest.raises(rw.MissingColumnError, match="no column 'truth'"):
        rw.evaluate_lists(df, ["AP"], truth="truth")


# -- gains from events ---------------------------------------------------------------------

LOG = pl.DataFrame({
    "query_id": ["q1", "q1", "q1", "q1", "q2", "q2"],
    "doc_id": ["a", "a", "b", "c", "a", "a"],
    "event": ["view", "purchase", "view", "cart", "wishlist", "view"],
})
SHOP = {"view": 1, "wishlist": 3, "cart": 5, "purchase": 10}


def test_gains_from_events_golden() -> None:
    assert rw.gains_from_events(LOG, SHOP).rows() == [
        ("q1", "a", 10.0), ("q1", "b", 1.0), ("q1", "c", 5.0), ("q2", "a", 3.0),
    ]
    assert rw.gains_from_events(LOG, SHOP, agg="sum").rows() == [
        ("q1", "a", 11.0), ("q1", "b", 1.0), ("q1", "c", 5.0), ("q2", "a", 4.0),
    ]
    with pytest.raises(rw.InvalidValueError, match=r"event name\(s\) \['cart'\] have no gain"):
        rw.gains_from_events(LOG, {"view": 1, "wishlist": 3, "purchase": 10})
    assert rw.gains_from_events(LOG, {"view": 1}, default=0.5).rows()[2] == ("q1", "c", 0.5)


def test_gains_from_events_sql_macro_agrees() -> None:
    con = rw.register(duckdb.connect())
    con.register("log", LOG)
    got = con.sql("SELECT * FROM rw_gains_from_events('log', MAP {'view': 1, 'wishlist': 3, 'cart': 5, 'purchase': 10})").pl()
    assert got.rows() == rw.gains_from_events(LOG, SHOP).rows()
    summed = con.sql("SELECT * FROM rw_gains_from_events('log', MAP {'view': 1, 'wishlist': 3, 'cart': 5, 'purchase': 10}, agg := 'sum')").pl()
    assert summed.rows() == rw.gains_from_events(LOG, SHOP, agg="sum").rows()
    with pytest.raises(duckdb.Error, match="event 'cart' has no gain"):
        con.sql("SELECT * FROM rw_gains_from_events('log', MAP {'view': 1, 'wishlist': 3, 'purchase': 10})").fetchall()


# -- segments ------------------------------------------------------------------------------


def test_segments_in_one_pass(evaluate: Evaluate, engine: str) -> None:
    """Two experiment arms rank the same queries; each arm is scored against the judgments."""
    run_a = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
    run_b = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [1.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "x"], "relevance": [1, 1]})
    both = pl.concat([run_a.with_columns(arm=pl.lit("A")), run_b.with_columns(arm=pl.lit("B"))])
    got = rw.evaluate(qrels, both, ["RR", "NumRet"], by="arm", engine="duckdb" if engine == "duckdb" else "polars")
    assert got.columns == ["arm", "query_id", "RR", "NumRet"]
    assert got.rows() == [("A", "q1", 0.5, 2.0), ("A", "q2", 0.0, 1.0), ("B", "q1", 1.0, 2.0), ("B", "q2", 0.0, 1.0)]
    assert rw.summarize(got, by="arm").rows() == [("A", 0.25, 3.0), ("B", 0.5, 3.0)]
    with pytest.raises(rw.MissingColumnError, match="no segment column 'market'"):
        rw.evaluate(qrels, both, ["RR"], by="market")


def test_duckdb_engine_under_a_memory_limit(expected: pl.DataFrame, tmp_path: Path) -> None:
    run, qrels = frames()
    run.drop("dt").write_parquet(tmp_path / "run.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    got = rw.evaluate(tmp_path / "qrels.parquet", tmp_path / "run.parquet", METRICS, engine="duckdb",
                      duckdb_config={"memory_limit": "200MB", "temp_directory": str(tmp_path / "spill")})
    assert_frame_equal(got, expected, check_exact=False, abs_tol=1e-12)
    with pytest.raises(rw.InvalidParameterError, match="DuckDB refused the settings"):
        rw.evaluate(qrels, run.drop("dt"), ["AP"], engine="duckdb", duckdb_config={"memory_limit": "lots"})


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(30), deadline=None)
@given(case=cases(), chunks=st.sampled_from([2, 3, 7]), missing=st.sampled_from(["ignore", "zero"]))
def test_query_chunks_give_the_same_values(case: Case, chunks: int, missing: str) -> None:
    run, qrels = case.run_frame(), case.qrels_frame()
    whole = rw.evaluate(qrels, run, METRICS, missing=missing)  # type: ignore[arg-type]
    chunked = rw.evaluate(qrels, run, METRICS, missing=missing, query_chunks=chunks)  # type: ignore[arg-type]
    assert_frame_equal(chunked, whole)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(30), deadline=None)
@given(case=cases(), rows_per_group=st.sampled_from([1, 2, 5]), missing=st.sampled_from(["ignore", "zero"]))
def test_in_memory_query_groups_give_the_same_values(case: Case, rows_per_group: int, missing: str) -> None:
    """By default the Polars engine splits inputs of more than ROWS_PER_CHUNK run rows into
    query groups; with a tiny group size every case here is split."""
    run, qrels = case.run_frame(), case.qrels_frame()
    whole = rw.evaluate(qrels, run, METRICS, missing=missing)  # type: ignore[arg-type]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(polars_engine, "ROWS_PER_CHUNK", rows_per_group)
        grouped = rw.evaluate(qrels, run, METRICS, missing=missing)  # type: ignore[arg-type]
        with pytest.raises(rw.DuplicateDocumentError):
            rw.evaluate(qrels, pl.concat([run, run.tail(1)]), METRICS)
    assert_frame_equal(grouped, whole)


@pytest.mark.parametrize("qrels_ids", [pl.Int64, pl.String])
def test_query_groups_with_integer_query_ids(qrels_ids: pl.DataType) -> None:
    run, qrels = frames()
    run = run.drop("dt").with_columns(pl.col("query_id").str.slice(1).cast(pl.Int64))
    qrels = qrels.with_columns(pl.col("query_id").str.slice(1).cast(pl.Int64).cast(qrels_ids))
    whole = rw.evaluate(qrels, run, METRICS, missing="zero")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(polars_engine, "ROWS_PER_CHUNK", 4)
        assert_frame_equal(rw.evaluate(qrels, run, METRICS, missing="zero"), whole)
    assert_frame_equal(rw.evaluate(qrels, run, METRICS, missing="zero", query_chunks=3), whole)


def test_query_chunks_over_a_parquet_folder(expected: pl.DataFrame, tmp_path: Path) -> None:
    run, qrels = frames()
    for i, part in enumerate(run.drop("dt").partition_by("query_id")):
        part.write_parquet(tmp_path / f"run-{i}.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    out = rw.evaluate(tmp_path / "qrels.parquet", str(tmp_path / "run-*.parquet"), METRICS, query_chunks=4)
    assert_frame_equal(out, expected)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(10), deadline=None)
@given(case=cases(), chunks=st.sampled_from([1, 3]))
def test_every_trec_eval_measure_on_the_streaming_engine(case: Case, chunks: int) -> None:
    """query_chunks runs its groups on Polars' streaming engine: every measure of all_trec
    (ideal prefixes, list sequences, the relstring text) gives the in-memory engine's values."""
    run, qrels = case.run_frame(), case.qrels_frame()
    whole = rw.evaluate(qrels, run, ["all_trec"], missing="zero")
    assert_frame_equal(rw.evaluate(qrels, run, ["all_trec"], missing="zero", query_chunks=chunks), whole)


def test_query_chunks_keep_the_checks_and_the_warning() -> None:
    run, qrels = frames()
    run = run.drop("dt")
    with pytest.raises(rw.DuplicateDocumentError):
        rw.evaluate(qrels, pl.concat([run, run.head(1)]), ["AP"], query_chunks=3)
    with pytest.raises(rw.EmptyInputError):
        rw.evaluate(qrels, run.head(0), ["AP"], query_chunks=3)
    with pytest.warns(rw.RankwiseWarning, match=r"^2 run queries have no judgments"):
        extra = pl.DataFrame({"query_id": ["u1", "u2"], "doc_id": ["a", "b"], "score": [1.0, 1.0]})
        rw.evaluate(qrels, pl.concat([run, extra]), ["AP"], query_chunks=5)
    for bad in (0, -2, True, 1.5, "2"):
        with pytest.raises(rw.InvalidParameterError, match="query_chunks must be a positive integer"):
            rw.evaluate(qrels, run, ["AP"], query_chunks=bad)  # type: ignore[arg-type]
    with pytest.raises(rw.InvalidParameterError, match="Polars engine"):
        rw.evaluate(qrels, run, ["AP"], engine="duckdb", query_chunks=2)


def test_query_chunks_leave_no_files_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """query_chunks writes the inputs once into its groups' files in the temporary directory
    (TMPDIR) and removes them after the evaluation, also when it raises."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    tempfile.tempdir = None  # read TMPDIR again
    try:
        run, qrels = frames()
        run = run.drop("dt")
        whole = rw.evaluate(qrels, run, METRICS)
        assert_frame_equal(rw.evaluate(qrels, run, METRICS, query_chunks=4), whole)
        with pytest.raises(rw.DuplicateDocumentError):
            rw.evaluate(qrels, pl.concat([run, run.head(1)]), ["AP"], query_chunks=3)
        assert list(tmp_path.iterdir()) == []
    finally:
        tempfile.tempdir = None
