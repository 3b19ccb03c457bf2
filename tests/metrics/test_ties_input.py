"""``ties='input'``: among equal scores, the document given first in the run ranks first.

The references are LightGBM's and XGBoost's own metrics (both sort a group's scores with a
stable sort, so ties keep the input order; /work/scratch/oracles FINDINGS, "ties: input order"),
run per query on lists with tied scores whose doc ids make trec_eval's order (doc id descending)
differ from the input order; then every engine and path on a hand-computed case."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from tests import oracles
from tests.conftest import ENGINES, run_on, run_on_spark
from tests.strategies import frames_of
from tests.tiers import examples

Listed = dict[str, list[tuple[str, float, int]]]
"""Per query, its documents in input order: (doc id, score, label)."""


def _lists(seed: int, graded: bool) -> Listed:
    """30 queries of 2-12 documents, scores drawn from 3 values (many ties), labels 0..3 (or
    0/1), every query with something relevant (the libraries score a query with nothing
    relevant 1, rankwise 0: another convention). Doc ids increase down the input (``d00``,
    ``d01``, ...), so trec_eval's tie order (doc id descending, as text) is the reverse of the
    input order."""
    rng = random.Random(seed)
    out: Listed = {}
    for q in range(30):
        n = rng.randint(2, 12)
        labels = [rng.randint(0, 3 if graded else 1) for _ in range(n)]
        if not any(labels):
            labels[rng.randrange(n)] = 1
        out[f"q{q:02d}"] = [(f"d{i:02d}", float(rng.choice([0.1, 0.5, 0.9])), lab) for i, lab in enumerate(labels)]
    return out


def _frames(listed: Listed) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The run (in input order) and its qrels (every document judged: the libraries see only
    the list, so no judgment of an unretrieved document)."""
    rows = [(q, d, s, lab) for q, items in listed.items() for d, s, lab in items]
    run = pl.DataFrame({"query_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows], "score": [r[2] for r in rows]})
    qrels = pl.DataFrame({"query_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows], "relevance": [r[3] for r in rows]})
    return run, qrels


def _lightgbm(items: list[tuple[str, float, int]], metric: str, k: int) -> float:
    """LightGBM's ``ndcg@k`` / ``map@k`` of one list (:func:`tests.oracles.lightgbm`)."""
    return oracles.lightgbm([lab for _, _, lab in items], [s for _, s, _ in items], metric, k)


def _xgboost(items: list[tuple[str, float, int]], metric: str, **params: Any) -> float:
    """XGBoost's metric ``metric`` (e.g. ``ndcg@3``) of one list (:func:`tests.oracles.xgboost`)."""
    return oracles.xgboost([lab for _, _, lab in items], [s for _, s, _ in items], metric, **params)[metric]


def _compare(listed: Listed, metric: str, reference: Any) -> None:
    """Per query, rankwise's ``metric`` under ``ties='input'`` equals the reference; under
    trec_eval's tie order it differs on some query (the case tells the orders apart)."""
    run, qrels = _frames(listed)
    got = dict(rw.evaluate(qrels, run, [metric], ties="input").iter_rows())
    default = dict(rw.evaluate(qrels, run, [metric]).iter_rows())
    expected = {q: reference(items) for q, items in listed.items()}
    assert got == pytest.approx(expected, abs=1e-6)
    assert any(abs(default[q] - expected[q]) > 1e-6 for q in expected)


@pytest.mark.parametrize("k", [3, 10])
@pytest.mark.parametrize("seed", [1, 2])
def test_input_order_is_lightgbm_ndcg_and_map(seed: int, k: int) -> None:
    pytest.importorskip("lightgbm")
    graded = _lists(seed, graded=True)
    _compare(graded, f"nDCG(gain='exponential')@{k}", lambda items: _lightgbm(items, "ndcg", k))
    binary = _lists(seed + 10, graded=False)
    _compare(binary, f"AP(denominator='min_R_k')@{k}", lambda items: _lightgbm(items, "map", k))


@pytest.mark.parametrize("k", [3, 10])
@pytest.mark.parametrize("seed", [3, 4])
def test_input_order_is_xgboost_ndcg_and_map(seed: int, k: int) -> None:
    pytest.importorskip("xgboost")
    graded = _lists(seed, graded=True)
    _compare(graded, f"nDCG(gain='exponential')@{k}", lambda items: _xgboost(items, f"ndcg@{k}"))
    _compare(graded, f"nDCG@{k}", lambda items: _xgboost(items, f"ndcg@{k}", ndcg_exp_gain=False))
    binary = _lists(seed + 10, graded=False)
    _compare(binary, f"AP(denominator='min_R_k')@{k}", lambda items: _xgboost(items, f"map@{k}"))


# -- one hand-computed case on every engine and path ------------------------------------------

RUN = pl.DataFrame({
    "query_id": ["q"] * 4 + ["r"] * 2,
    "doc_id": ["a", "c", "b", "d", "x", "y"],
    "score": [1.0, 1.0, 1.0, 2.0, 0.5, 0.5],
})
QRELS = pl.DataFrame({"query_id": ["q", "q", "r"], "doc_id": ["c", "b", "x"], "relevance": [1, 2, 1]})
METRICS = ["RR", "AP", "P@2", "nDCG@3"]
LOG2_3 = 1.5849625007211562
EXPECTED = {
    # q ranks d (2.0), then a, c, b as given: c (1) at 3, b (2) at 4
    "q": {"RR": 1 / 3, "AP": (1 / 3 + 2 / 4) / 2, "P@2": 0.0, "nDCG@3": (1 / 2) / (2 + 1 / LOG2_3)},
    # r ranks x, y as given: x (1) at 1 (trec_eval's order: y, x)
    "r": {"RR": 1.0, "AP": 1.0, "P@2": 0.5, "nDCG@3": 1.0},
}
TREC_EVAL = {"q": {"RR": 1 / 2, "AP": (1 / 2 + 2 / 3) / 2}, "r": {"RR": 1 / 2, "AP": 1 / 2}}
"""The same case under trec_eval's order (d, c, b, a; y, x), which the input order changes."""


def _check(result: pl.DataFrame, query: str = "query_id") -> None:
    got = {row[query]: row for row in result.iter_rows(named=True)}
    assert sorted(got) == ["q", "r"]
    for q, values in EXPECTED.items():
        for m, v in values.items():
            assert got[q][m] == pytest.approx(v, abs=1e-12), (q, m)


@pytest.mark.parametrize("engine", ENGINES)
def test_hand_case_on_every_engine(engine: str) -> None:
    _check(run_on(engine, QRELS, RUN, METRICS, ties="input"))
    default = run_on(engine, QRELS, RUN, METRICS)
    for row in default.iter_rows(named=True):
        for m, v in TREC_EVAL[row["query_id"]].items():
            assert row[m] == pytest.approx(v, abs=1e-12)


def test_hand_case_in_to_sql_and_the_ranking_macro() -> None:
    con = duckdb.connect()
    con.execute("CREATE TABLE run (query_id VARCHAR, doc_id VARCHAR, score DOUBLE)")
    con.executemany("INSERT INTO run VALUES (?, ?, ?)", RUN.rows())
    con.execute("CREATE TABLE qrels AS SELECT * FROM QRELS")
    _check(con.sql(rw.to_sql(METRICS, ties="input")).pl())
    _check(con.sql(rw.to_sql(METRICS, ties="input", check=False)).pl())
    rw.register(con)
    ranked = con.sql("SELECT query_id, doc_id, rnk FROM rw_ranked('qrels', 'run', ties := 'input') ORDER BY 1, 3").fetchall()
    assert ranked == [("q", "d", 1), ("q", "a", 2), ("q", "c", 3), ("q", "b", 4), ("r", "x", 1), ("r", "y", 2)]


def test_hand_case_in_explain() -> None:
    shown = rw.explain(QRELS, RUN, "RR", "q", ties="input")
    assert shown["doc_id"].to_list() == ["d", "a", "c", "b"]
    assert shown["value"][-1] == pytest.approx(1 / 3)


def test_expression_api_reads_the_frame_s_row_order() -> None:
    """``rw.expr`` over a frame of retrieved rows (``ideal='run'``): the group's rows in the
    frame's order; the SQL expression, an aggregate over rows SQL keeps in no order, refuses."""
    frame = RUN.join(QRELS, on=["query_id", "doc_id"], how="left", maintain_order="left")
    got = frame.group_by("query_id", maintain_order=True).agg(rw.exprs(["RR", "AP"], ties="input", ideal="run"))
    assert got.rows() == [("q", pytest.approx(1 / 3), pytest.approx((1 / 3 + 2 / 4) / 2)), ("r", 1.0, 1.0)]
    with pytest.raises(rw.errors.InvalidParameterError, match=r"ties='input'.*rw\.to_sql"):
        rw.sql_expr("RR", ties="input")


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_input_forms_keep_their_order(engine: str, tmp_path: Path) -> None:
    """The order as given, form by form: pandas, pyarrow, a DuckDB relation, a dict of dicts,
    a LazyFrame, a Parquet file, a CSV file, a TREC file, and a folder of Parquet files read in
    the order of their names (the tie between r's x and y crosses the two files)."""
    rows = RUN.rows()
    con = duckdb.connect()
    con.execute("CREATE TABLE run (query_id VARCHAR, doc_id VARCHAR, score DOUBLE)")
    con.executemany("INSERT INTO run VALUES (?, ?, ?)", rows)
    RUN.write_parquet(tmp_path / "run.parquet")
    RUN.write_csv(tmp_path / "run.csv")
    (tmp_path / "run.trec").write_text("".join(f"{q} Q0 {d} {i} {s} t\n" for i, (q, d, s) in enumerate(rows)))
    folder = tmp_path / "parts"
    folder.mkdir()
    RUN.head(5).write_parquet(folder / "part-0.parquet")  # ... x
    RUN.tail(1).write_parquet(folder / "part-1.parquet")  # y
    nested: dict[str, dict[str, float]] = {}
    for q, d, s in rows:
        nested.setdefault(q, {})[d] = s
    forms = {
        "pandas": RUN.to_pandas(), "pyarrow": RUN.to_arrow(), "duckdb": con.sql("SELECT * FROM run"),
        "dict": nested, "lazy": RUN.lazy(), "parquet": tmp_path / "run.parquet", "csv": tmp_path / "run.csv",
        "trec": tmp_path / "run.trec", "folder": folder,
    }
    for run in forms.values():
        _check(rw.evaluate(QRELS, run, METRICS, ties="input", engine=engine))


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rankwise.cli", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_command_line_on_a_trec_file_and_a_parquet_file(engine: str, tmp_path: Path) -> None:
    trec = tmp_path / "run.trec"
    trec.write_text("".join(f"{q} Q0 {d} {i} {s} t\n" for i, (q, d, s) in enumerate(RUN.rows())))
    RUN.write_parquet(tmp_path / "run.parquet")
    QRELS.write_parquet(tmp_path / "qrels.parquet")
    for run in (trec, tmp_path / "run.parquet"):
        out = _cli("eval", str(tmp_path / "qrels.parquet"), str(run), *[a for m in METRICS for a in ("-m", m)],
                   "-q", "--ties", "input", "--format", "csv", "--engine", engine)
        assert out.returncode == 0, out.stderr
        _check(pl.read_csv(out.stdout.encode()))


@pytest.mark.slow
def test_hand_case_on_spark(spark: Any) -> None:
    """rw.spark.evaluate numbers the DataFrame's rows before its shuffle; to_sql's Spark
    statement numbers the table's rows as scanned (monotonically_increasing_id: a DataFrame
    made from a local frame holds its rows in order, partition after partition)."""
    _check(run_on_spark(spark, QRELS, RUN, METRICS, ties="input"))
    spark.createDataFrame(RUN.to_pandas()).createOrReplaceTempView("ties_input_run")
    spark.createDataFrame(QRELS.to_pandas()).createOrReplaceTempView("ties_input_qrels")
    sql = rw.to_sql(METRICS, dialect="spark", run="ties_input_run", qrels="ties_input_qrels", ties="input")
    _check(pl.from_pandas(spark.sql(sql).toPandas()))


# -- without tied scores every policy agrees ---------------------------------------------------


@st.composite
def _distinct_scores(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run whose scores are distinct within each query (its order as given shuffled), and
    graded qrels of some of its documents and of some it does not hold."""
    run_rows, qrels_rows = [], []
    for q in range(draw(st.integers(1, 4))):
        n = draw(st.integers(1, 8))
        scores = draw(st.lists(st.integers(-50, 50), min_size=n, max_size=n, unique=True))
        order = draw(st.permutations(range(n)))
        run_rows += [(f"q{q}", f"d{i}", float(scores[i])) for i in order]
        labels = draw(st.lists(st.sampled_from([None, 0, 1, 2]), min_size=n + 2, max_size=n + 2))
        qrels_rows += [(f"q{q}", f"d{i}", lab) for i, lab in enumerate(labels) if lab is not None]
    return frames_of(run_rows, qrels_rows)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(60), deadline=None)
@given(case=_distinct_scores(), engine=st.sampled_from(["polars", "duckdb"]))
def test_without_ties_input_order_is_every_other_policy(case: tuple[pl.DataFrame, pl.DataFrame], engine: str) -> None:
    run, qrels = case
    metrics = ["AP", "RR", "nDCG@5", "P@3", "Rprec", "Bpref", "nDCG(ideal='run')", "RBP(p=0.8)"]
    got = rw.evaluate(qrels, run, metrics, ties="input", engine=engine)
    for ties in ("trec_eval", "doc_asc", "optimistic", "pessimistic", "doc_desc_numeric"):
        other = rw.evaluate(qrels, run, metrics, ties=ties, engine=engine)
        assert got.columns == other.columns
        for a, b in zip(got.iter_rows(), other.iter_rows(), strict=True):
            assert a[0] == b[0]
            assert a[1:] == pytest.approx(b[1:], abs=1e-12), ties


def test_compare_query_chunks_and_a_duckdb_memory_limit(tmp_path: Path) -> None:
    """rw.compare takes the policy on to each run's evaluation; query_chunks (the run written
    into groups of files and read back) keeps each row's number; the DuckDB engine with a
    memory limit reads the files where they lie (views, not tables) and numbers them the same."""
    table = rw.compare(QRELS, {"a": RUN, "b": RUN.reverse()}, ["RR"], ties="input")
    # b lists q's tied documents as b, c, a: b (relevant) at 2 after d; r's as y, x: x at 2
    assert table["mean"][0] == pytest.approx((1 / 2 + 1 / 2) / 2)
    assert table["baseline_mean"][0] == pytest.approx((1 / 3 + 1) / 2)
    _check(rw.evaluate(QRELS, RUN.lazy(), METRICS, ties="input", query_chunks=2))
    RUN.write_parquet(tmp_path / "run.parquet")
    _check(rw.evaluate(QRELS, tmp_path / "run.parquet", METRICS, ties="input", engine="duckdb",
                       duckdb_config={"memory_limit": "1GB"}))
