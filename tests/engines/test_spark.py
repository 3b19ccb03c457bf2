"""Spark (local mode) computes every metric from the same SQL definitions: its per-query values
equal DuckDB's to 1e-12 for every registered metric, and trec_eval's conformance files hold on
Spark too. to_sql's statements run on a bare DuckDB connection. One Spark session per run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import rankwise as rw
from tests.conftest import CONFORMANCE, first_judgments, greedy_ideal
from tests.metrics.test_conformance import CASES, KNOWN_DIFFERENCES, read_expected
from tests.metrics.test_metric_strings import metrics as metric_strategy
from tests.strategies import Case, cases
from tests.tiers import examples

CONF = CONFORMANCE


def to_spark(spark: Any, frame: pl.DataFrame) -> Any:
    return spark.createDataFrame(frame.to_pandas())


def from_spark(df: Any) -> pl.DataFrame:
    return pl.from_pandas(df.toPandas())


def trec(name: str, kind: str) -> pl.DataFrame:
    return rw.io.read_trec(CONF / name, kind, rw.Columns())  # type: ignore[arg-type]


@pytest.mark.parametrize("conventions", [{}, {"missing": "zero", "max_rank": 100}, {"judged_only": True, "rel": 2}])
def test_every_metric_equals_duckdb(spark: Any, conventions: dict[str, Any]) -> None:
    run, qrels = trec("results.trunc", "run"), trec("qrels.test", "qrels")
    # the metrics with per-query values (the set-level ones: one statement of their own, below)
    metrics = [rw.metric.make_metric(s, {}, 10 if s.cutoff == "required" else None) for s in rw.SPECS if s.aggregate != "set"]
    # the training interactions (the judgments' pairs) and item features (every listed document's)
    # that the popularity and feature-diversity families read
    train = qrels.select("query_id", "doc_id")
    docs = run["doc_id"].unique().sort().to_list()
    features = pl.DataFrame({"doc_id": docs, "features": [[float(i % 3 == 0), float(i % 2), (i % 5) / 4] for i in range(len(docs))]})
    base_run = run.with_columns(-pl.col("score"))  # and the base run (the run reversed) the base-run family reads
    # and the item categories the category family reads (none to two per listed document)
    categories = pl.DataFrame(
        [(d, f"g{j}") for i, d in enumerate(docs) for j in range(i % 3) if (i + j) % 4],
        schema=["doc_id", "category"], orient="row",
    )
    catalog = pl.DataFrame({"doc_id": docs})  # and the catalog: the listed documents (the serendipity family)
    # and the document groups the fair-exposure family reads (every seventh document unknown)
    groups = pl.DataFrame([(d, g) for i, d in enumerate(docs) if i % 7 for g in (["g1"] if i % 3 else ["g2", "g3"])],
                          schema=["doc_id", "group"], orient="row")
    # the metrics with ndeval's greedy ideal on the first judgments of each query (conftest)
    for greedy, judged in ((False, qrels), (True, first_judgments(qrels))):
        names = [repr(m) for m in metrics if greedy_ideal(m) == greedy]
        got = from_spark(rw.spark.evaluate(to_spark(spark, judged), to_spark(spark, run), names, **conventions,
                                           train=to_spark(spark, train), features=to_spark(spark, features),
                                           base_run=to_spark(spark, base_run), categories=to_spark(spark, categories),
                                           catalog=to_spark(spark, catalog), groups=to_spark(spark, groups)))
        expected = rw.evaluate(judged, run, names, engine="duckdb", **conventions, train=train, features=features,
                               base_run=base_run, categories=categories, catalog=catalog,
                               groups=groups)
        assert_frame_equal(got, expected, check_exact=False, abs_tol=1e-12, check_dtypes=False)
    # the set-level metrics, one row, over the listed documents as the catalog
    sets = [repr(rw.metric.make_metric(s, {}, 10)) for s in rw.SPECS if s.aggregate == "set"]
    got = from_spark(rw.spark.evaluate(to_spark(spark, qrels), to_spark(spark, run), sets, **conventions,
                                       train=to_spark(spark, train), catalog=to_spark(spark, catalog),
                                       groups=to_spark(spark, groups)))
    expected = rw.evaluate(qrels, run, sets, engine="duckdb", per_query=False, **conventions, train=train,
                           catalog=catalog, groups=groups)
    assert_frame_equal(got, expected, check_exact=False, abs_tol=1e-12, check_dtypes=False)


@pytest.mark.parametrize("expected_file", ["out.test.aq", "out.test.aqc", "out.test.aqcM", "out.test.aql"])
def test_trec_eval_conformance_on_spark(spark: Any, expected_file: str, conformance: Path) -> None:
    qrels_file, run_file, conventions = CASES[expected_file]
    expected, _skipped = read_expected(conformance / expected_file)
    names = list(dict.fromkeys(n for n, _ in expected))
    per_query = rw.spark.evaluate(to_spark(spark, trec(qrels_file, "qrels")), to_spark(spark, trec(run_file, "run")), names, **conventions)
    rows = {r["query_id"]: r for r in from_spark(per_query).iter_rows(named=True)}
    summary = from_spark(rw.spark.summarize(per_query)).row(0, named=True)
    for (metric, query), value in expected.items():
        actual = summary[metric] if query == "all" else rows[query][metric]
        known = KNOWN_DIFFERENCES.get((expected_file, metric, query))
        if isinstance(value, str):  # relstring (text)
            assert actual == value, (expected_file, metric, query, actual)
        elif known is not None:
            assert abs(actual - known[1]) <= 1e-9
        else:
            assert abs(actual - value) <= 5e-5 + 1e-12, (expected_file, metric, query, actual, value)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(8), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=cases(), chosen=st.lists(metric_strategy(), min_size=1, max_size=5, unique_by=repr),
       ties=st.sampled_from(["trec_eval", "doc_asc", "optimistic", "pessimistic"]))
def test_random_data_equals_duckdb(spark: Any, case: Case, chosen: list[rw.Metric], ties: str) -> None:
    names = [repr(m) for m in chosen]
    run, qrels = case.run_frame(), case.qrels_frame()
    train = case.train_frame()  # read by the popularity family
    features = pl.DataFrame({"doc_id": list(case.features), "features": list(case.features.values())})  # and ILD, ILS
    base_run = case.base_run_frame()  # and Unexpectedness
    categories = case.categories_frame()  # and the category family
    catalog = pl.DataFrame({"doc_id": case.catalog})  # and Serendipity
    groups = case.groups_frame()  # and AWRF
    got = from_spark(rw.spark.evaluate(to_spark(spark, qrels), to_spark(spark, run), names, ties=ties,
                                       train=to_spark(spark, train), features=to_spark(spark, features),
                                       base_run=to_spark(spark, base_run), categories=to_spark(spark, categories),
                                       catalog=to_spark(spark, catalog), groups=to_spark(spark, groups)))
    expected = rw.evaluate(qrels, run, names, engine="duckdb", ties=ties, train=train, features=features,  # type: ignore[arg-type]
                           base_run=base_run, categories=categories, catalog=catalog, groups=groups)
    if expected.is_empty():
        assert got.is_empty()
        return
    assert_frame_equal(got, expected, check_exact=False, abs_tol=1e-12, check_dtypes=False)


def test_spark_errors(spark: Any) -> None:
    run, qrels = trec("results.test", "run"), trec("qrels.test", "qrels")
    with pytest.raises(rw.MissingColumnError, match=r"the run has no column 'score'.*Did you mean 'sc'"):
        rw.spark.evaluate(to_spark(spark, qrels), to_spark(spark, run.rename({"score": "sc"})), ["AP"])
    with pytest.raises(rw.UnknownMetricError):
        rw.spark.evaluate(to_spark(spark, qrels), to_spark(spark, run), ["nDGC"])


def test_to_sql_runs_on_a_bare_duckdb_connection() -> None:
    run, qrels = trec("results.test", "run"), trec("qrels.test", "qrels")
    con = duckdb.connect()  # no rankwise.register: every macro is inlined
    con.register("my_run", run.rename({"score": "sim"}))
    con.register("my_qrels", qrels)
    names = ["nDCG@10", "AP", "Bpref", "ERR@5", "nDCG(gains='1=3')", "RR(judged_only=True)"]
    sql = rw.to_sql(names, run="my_run", qrels="my_qrels", score="sim", missing="zero")
    got = con.sql(sql).pl()
    assert_frame_equal(got, rw.evaluate(qrels, run, names, missing="zero"), check_exact=False, abs_tol=1e-12)


def test_to_sql_refuses_unsafe_names() -> None:
    with pytest.raises(rw.UnsafeIdentifierError):
        rw.to_sql(["AP"], run="x'); DROP TABLE t; --")
    with pytest.raises(rw.UnsafeIdentifierError):
        rw.to_sql(["AP"], query_id="a`b", dialect="spark")
    with pytest.raises(rw.InvalidParameterError, match=r"dialect must be one of \['duckdb', 'spark'\]"):
        rw.to_sql(["AP"], dialect="mysql")  # type: ignore[arg-type]


@pytest.mark.slow  # a Spark job of its own, in a subprocess
def test_example_spark_job_runs(tmp_path: Path) -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    data = root / "examples" / "data"
    out = subprocess.run(
        [sys.executable, str(root / "examples" / "spark_job.py"), str(data / "run.parquet"),
         str(data / "qrels.parquet"), str(tmp_path / "metrics")],
        capture_output=True, text=True, timeout=300, env={**__import__("os").environ, "PYSPARK_SUBMIT_ARGS": "--master local[2] pyspark-shell"},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    written = pl.read_parquet(tmp_path / "metrics" / "*.parquet")
    expected = rw.evaluate(data / "qrels.parquet", data / "run.parquet", ["AP"])
    assert written.height == expected.height
    assert abs(written["AP"].mean() - expected["AP"].mean()) < 1e-12  # type: ignore[operator]


def test_ap_min_r_k_equals_spark_mllib(spark: Any) -> None:
    """AP(denominator='min_R_k')@k is Spark MLlib's meanAveragePrecisionAt(k) (÷ min(R, k)), and
    AP without a cutoff its meanAveragePrecision (÷ R): MLlib itself as the reference, on
    random rankings (k from 1 to past the list) whose every query has a relevant document."""
    import random

    from pyspark.mllib.evaluation import RankingMetrics

    rng = random.Random(7)
    run_rows, qrels_rows, pairs = [], [], []
    for q in range(80):
        docs = [f"d{i}" for i in rng.sample(range(40), rng.randint(1, 25))]
        scores = rng.sample(range(1000), len(docs))  # no ties: the order is the scores'
        run_rows += [(f"q{q}", d, float(s)) for d, s in zip(docs, scores, strict=True)]
        judged = rng.sample(range(40), rng.randint(1, 20))
        rels = {f"d{i}": rng.choice([-1, 0, 1, 2]) for i in judged}
        rels[f"d{judged[0]}"] = 2  # a relevant document (MLlib counts an empty label set as 0)
        qrels_rows += [(f"q{q}", d, r) for d, r in rels.items()]
        ranking = [d for _, d in sorted(zip(scores, docs, strict=True), reverse=True)]
        pairs.append((ranking, [d for d, r in rels.items() if r >= 1]))
    run = pl.DataFrame(run_rows, schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}, orient="row")
    qrels = pl.DataFrame(qrels_rows, schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64}, orient="row")
    mllib = RankingMetrics(spark.sparkContext.parallelize(pairs, 2))
    ks = [1, 3, 5, 10, 30]
    metrics = ["AP", *[f"AP(denominator='min_R_k')@{k}" for k in ks]]
    for engine in ("polars", "duckdb"):
        means = rw.evaluate(qrels, run, metrics, engine=engine).select(pl.exclude("query_id").mean()).row(0)
        assert means[0] == pytest.approx(mllib.meanAveragePrecision, abs=1e-12)
        for k, got in zip(ks, means[1:], strict=True):
            assert got == pytest.approx(mllib.meanAveragePrecisionAt(k), abs=1e-12), (engine, k)


def test_compare_sql_on_spark_equals_compare(spark: Any) -> None:
    from tests.comparison.test_compare import _sql_and_python, runs_and_qrels

    runs, qrels = runs_and_qrels(seed=12, queries=15)
    runs["same"] = runs["base"]  # no spread: t and TRisk NULL, no division by zero under ANSI mode
    to_spark(spark, qrels).createOrReplaceTempView("cmp_qrels")
    for name, frame in runs.items():
        to_spark(spark, frame).createOrReplaceTempView(f"cmp_run_{name}")
    sql = rw.compare_sql(["AP", "nDCG@10"], dialect="spark", runs={n: f"cmp_run_{n}" for n in runs}, qrels="cmp_qrels",
                         risk_alpha=2.0, hurt=0.05)
    _sql_and_python(runs, qrels, ["AP", "nDCG@10"], from_spark(spark.sql(sql)).to_dicts())


def test_compat_equals_ir_measures_on_spark(spark: Any) -> None:
    """Compat on Spark, per query, equals ir-measures' compat provider to 1e-9: 40 random
    queries (graded and negative judgments, unjudged documents, tied scores, scores of 0 and
    below, runs shorter and longer than the relevant documents, queries with nothing
    relevant), string and integer doc ids, one Spark job each. As in test_ir_measures, the
    qrels reach ir-measures in doc-id order (as text), where its ideal keeps the qrels' order."""
    import random

    import ir_measures

    measures = {
        "Compat": ir_measures.Compat,
        "Compat(p=0.8)": ir_measures.Compat(p=0.8),
        "Compat(p=0.5,normalize=False)": ir_measures.Compat(p=0.5, normalize=False),
        "Compat(p=1)": ir_measures.Compat(p=1.0),
    }
    rng = random.Random(18)
    docs = [5, 48, 100, 7, 10, 1, 9, 250, 33, 3, 1000, 2, 77, 12]
    run_rows, qrels_rows = [], []
    for q in range(40):
        for d in rng.sample(docs, rng.randint(1, 12)):
            run_rows.append((f"q{q}", d, rng.choice([0.0, 1.0, 2.0, -1.0, round(rng.uniform(-3, 3), 2)])))
        for d in rng.sample(docs, rng.randint(1, 12)):
            qrels_rows.append((f"q{q}", d, rng.randint(-1, 3)))
    run = pl.DataFrame(run_rows, schema={"query_id": pl.String, "doc_id": pl.Int64, "score": pl.Float64}, orient="row")
    qrels = pl.DataFrame(qrels_rows, schema={"query_id": pl.String, "doc_id": pl.Int64, "relevance": pl.Int64}, orient="row")
    ref_run: dict[str, dict[str, float]] = {}
    for q, d, s in run_rows:
        ref_run.setdefault(q, {})[str(d)] = s
    ref_qrels: dict[str, dict[str, int]] = {}
    for q, d, r in sorted(qrels_rows, key=lambda row: (row[0], str(row[1]))):
        ref_qrels.setdefault(q, {})[str(d)] = r
    expected = {
        (m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(list(measures.values()), ref_qrels, ref_run)
    }
    for ids in (pl.Int64, pl.String):
        frames = [f.with_columns(pl.col("doc_id").cast(ids)) for f in (qrels, run)]
        got = from_spark(rw.spark.evaluate(*(to_spark(spark, f) for f in frames), list(measures), ties="doc_asc"))
        assert got.height == 40
        for row in got.iter_rows(named=True):
            for name, measure in measures.items():
                assert abs(row[name] - expected[(row["query_id"], str(measure))]) <= 1e-9, (ids, name, row)


def test_compat_golden_values_on_spark(spark: Any) -> None:
    """test_golden's hand-computed Compat values, every case a query of one Spark job."""
    from tests.metrics.test_golden import COMPAT_GOLDEN, ranked

    runs, judged = [], []
    for i, (_metric, rels, qrels, _expected) in enumerate(COMPAT_GOLDEN):
        run, q = ranked(rels, qrels, query=f"g{i:02d}")
        runs.append(run)
        judged.append(q)
    names = list(dict.fromkeys(metric for metric, *_ in COMPAT_GOLDEN))
    got = from_spark(rw.spark.evaluate(to_spark(spark, pl.concat(judged)), to_spark(spark, pl.concat(runs)), names))
    rows = {r["query_id"]: r for r in got.iter_rows(named=True)}
    for i, (metric, _rels, _qrels, expected) in enumerate(COMPAT_GOLDEN):
        assert rows[f"g{i:02d}"][metric] == pytest.approx(expected, abs=1e-12), (i, metric)


def test_compare_sql_by_segments_on_spark(spark: Any) -> None:
    from tests.comparison.test_compare import runs_and_qrels

    runs, qrels = runs_and_qrels(seed=13, queries=12)
    market = pl.when(pl.col("query_id") < "q06").then(pl.lit("de")).otherwise(pl.lit("fr"))
    runs = {n: r.with_columns(market=market) for n, r in runs.items() if n != "other"}
    to_spark(spark, qrels).createOrReplaceTempView("seg_qrels")
    for name, frame in runs.items():
        to_spark(spark, frame).createOrReplaceTempView(f"seg_run_{name}")
    sql = rw.compare_sql(["AP"], dialect="spark", runs={n: f"seg_run_{n}" for n in runs}, qrels="seg_qrels", by="market")
    got = from_spark(spark.sql(sql)).sort("market")
    expected = rw.compare(qrels, runs, ["AP"], by="market").sort("market")
    assert got.select("market", "queries", "wins", "ties", "losses").rows() == expected.select(
        "market", "queries", "wins", "ties", "losses").rows()
    assert got["diff"].to_list() == pytest.approx(expected["diff"].to_list(), abs=1e-10)


def test_library_conventions_golden_values_on_spark(spark: Any) -> None:
    """The other libraries' conventions on Spark, by hand: one query ranking [1, 0, 1].
    CatBoost's 1/i discount: DCG@3 = 1 + 1/3, IDCG@3 = 1 + 1/2 (8/9); XGBoost's pre@5 over the 3
    retrieved: 2/3; rectools' MAP over k: (1/1 + 2/3) / 5 = 1/3; rectools' NDCG, the ideal k
    relevant documents: 1 / (1 + 1/log2 3)."""
    run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "relevance": [1, 0, 1]})
    expected = {
        "nDCG(discount='reciprocal')@3": 8 / 9,
        "P(denominator='retrieved')@5": 2 / 3,
        "AP(denominator='k')@5": 1 / 3,
        "nDCG(ideal='k')@2": 1 / (1 + 1 / 1.584962500721156),
    }
    got = from_spark(rw.spark.evaluate(to_spark(spark, qrels), to_spark(spark, run), list(expected)))
    for name, value in expected.items():
        assert got[name][0] == pytest.approx(value, abs=1e-12), name


def test_expected_ties_on_spark(spark: Any) -> None:
    """ties='expected' on Spark: the hand-computed values of tests/metrics/test_expected_ties.py
    (RR, AP, nDCG@2, P@2, Success@2, R@3, DCG over three queries of tied documents)."""
    from tests.metrics.test_expected_ties import HAND, HAND_QRELS, HAND_RUN

    names = list(HAND["a"])
    got = from_spark(
        rw.spark.evaluate(to_spark(spark, HAND_QRELS), to_spark(spark, HAND_RUN), names, ties="expected")
    ).sort("query_id")
    for row in got.iter_rows(named=True):
        for name in names:
            assert row[name] == pytest.approx(HAND[row["query_id"]][name], abs=1e-12), (row["query_id"], name)
