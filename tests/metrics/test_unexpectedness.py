"""The base-run family (beyond accuracy, from the base run ``base_run=``): RePlay's
``Unexpectedness@k`` against RePlay itself and hand-computed values.

- ``tests/data/beyond/unexpectedness_goldens.json``: RePlay's per-user values on three cases (hand-sized,
  tied scores, integer ids with users absent from either run), computed by
  ``tests/data/beyond/make_unexpectedness_goldens.py`` with replay-rec 0.22.0 in an environment with
  pandas < 3, which RePlay pins (rankwise's has pandas 3);
- hand-computed values at the edges: a list shorter than k (over k), a user without a base list (0,
  RePlay's), a user without a list in the run (NULL: RePlay gives 0), ``max_rank`` and the tie policy
  applied to the base run as to the run.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest

import rankwise as rw
from tests.cli.test_cli import cli as rankwise_cli
from tests.conftest import close_rows, run_on

GOLDENS = json.loads((Path(__file__).parents[1] / "data" / "beyond" / "unexpectedness_goldens.json").read_text())

ENGINES = ("polars", "polars-lazy", "duckdb", "to_sql", "macro")

pytestmark = pytest.mark.filterwarnings("ignore:1 judged query is not in:rankwise.RankwiseWarning")


def _frame(rows: list[list[Any]], ids: str) -> pl.DataFrame:
    dtype = pl.Int64 if ids == "int" else pl.String
    return pl.DataFrame(rows, schema={"query_id": dtype, "doc_id": dtype, "score": pl.Float64}, orient="row")


def _frames(case: dict[str, Any]) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """qrels (each run user's first row, relevant: rankwise evaluates judged users), run, base run."""
    run, base = _frame(case["run"], case["ids"]), _frame(case["base_run"], case["ids"])
    qrels = run.group_by("query_id", maintain_order=True).first().select("query_id", "doc_id", pl.lit(1).alias("relevance"))
    return qrels, run, base


def evaluate_on(engine: str, qrels: pl.DataFrame, run: pl.DataFrame, base: Any, metrics: list[str], **kw: Any) -> pl.DataFrame:
    """Evaluate through one engine's entry point; ``to_sql``: the statement run by DuckDB over
    registered tables; ``macro``: ``rw_unexpectedness`` (its column renamed to the metric's, k from it)."""
    if engine not in ("to_sql", "macro"):
        return run_on(engine, qrels, run, metrics, base_run=base, **kw)
    con = rw.register(duckdb.connect())
    base_frame = base if isinstance(base, pl.DataFrame) else pl.DataFrame(
        [(q, d, s) for q, docs in base.items() for d, s in docs.items()], schema=["query_id", "doc_id", "score"],
        orient="row",
    )
    for name, frame in (("run", run), ("qrels", qrels), ("base", base_frame)):
        con.register(name, frame)
    if engine == "to_sql":
        return con.sql(rw.to_sql(metrics, base_run="base", **kw)).pl()
    (metric,) = metrics
    k = int(metric.rsplit("@", 1)[1])
    got = con.sql(f"SELECT * FROM rw_unexpectedness('qrels', 'run', 'base', k := {k})").pl()
    return got.rename({"Unexpectedness@k": metric})


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", GOLDENS["cases"], ids=lambda c: c["name"])
def test_replay_values(case: dict[str, Any], engine: str) -> None:
    """Every user RePlay scores (every user of the run) has RePlay's value; the base run's users
    without a list in the run are not scored (RePlay returns none either)."""
    qrels, run, base = _frames(case)
    metric = f"Unexpectedness@{case['k']}"
    got = evaluate_on(engine, qrels, run, base, [metric])
    values = {str(q): v for q, v in zip(got["query_id"], got[metric], strict=True)}
    assert values == pytest.approx(case["values"])


def test_the_goldens_hold_the_edges() -> None:
    """The cases hold what they are for: a user without a base list (RePlay: 0), base users without
    a list in the run, lists shorter than k, and ties that decide a top k."""
    hand, ties, ints = (case["values"] for case in GOLDENS["cases"])
    assert hand["u4"] == 0.0 and "b1" not in hand
    assert hand["u3"] == pytest.approx(1 - 1 / 3)  # one item, shared: over k
    assert ties == {"u1": 1.0, "u2": 0.5}
    base_users = {str(u) for u, _, _ in GOLDENS["cases"][2]["base_run"]}
    assert {"900", "901", "902"} <= base_users and not {"900", "901", "902"} & set(ints)


QRELS = pl.DataFrame({"query_id": ["u1", "u2", "u3", "u4"], "doc_id": ["a", "a", "x", "a"], "relevance": [1, 1, 1, 1]})
RUN = pl.DataFrame({
    "query_id": ["u1", "u1", "u1", "u2", "u2", "u3"],
    "doc_id": ["a", "b", "c", "a", "d", "x"],
    "score": [3.0, 2.0, 1.0, 2.0, 1.0, 1.0],
})
BASE = {"u1": {"z": 2.0, "a": 1.0, "b": 0.5}, "u2": {"a": 1.0, "d": 0.5}}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("k", [2, 3])
def test_hand_values(engine: str, k: int) -> None:
    """u1: top 2 (a, b) against the base's (z, a): 1 − 1/2; top 3 (a, b, c) against (z, a, b): 1 − 2/3.
    u2: the same two items (0), over k = 3 a list of two: 1 − 2/3. u3: no base list (RePlay's 0).
    u4: no list in the run (missing='zero'; the macro's default, 'ignore', leaves it out): NULL."""
    missing = {} if engine == "macro" else {"missing": "zero"}
    got = evaluate_on(engine, QRELS, RUN, BASE, [f"Unexpectedness@{k}"], **missing)
    want = {2: [("u1", 0.5), ("u2", 0.0), ("u3", 0.0)], 3: [("u1", 1 / 3), ("u2", 1 / 3), ("u3", 0.0)]}[k]
    assert close_rows(got.rows(), want + ([] if engine == "macro" else [("u4", None)]))


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_the_base_run_is_ranked_as_the_run(engine: str) -> None:
    """The tie policy and max_rank rank the base run too. u1's base list: z, a, b, all tied."""
    base = {"u1": {"z": 1.0, "a": 1.0, "b": 1.0}}
    run = RUN.filter(pl.col("query_id") == "u1")
    qrels = QRELS.filter(pl.col("query_id") == "u1")

    def value(metric: str, **kw: Any) -> float:
        return float(rw.evaluate(qrels, run, [metric], base_run=base, engine=engine, **kw)[metric].item())

    # trec_eval's ties (doc_id descending): base top 2 = z, b; run top 2 = a, b: one shared
    assert value("Unexpectedness@2") == pytest.approx(0.5)
    # doc_id ascending: base top 2 = a, b: both shared
    assert value("Unexpectedness@2", ties="doc_asc") == pytest.approx(0.0)
    # max_rank=1 cuts both lists at one item: run (a) against base (z): nothing shared, over k = 2
    assert value("Unexpectedness@2", max_rank=1) == pytest.approx(1.0)
    # ties='input': the base run's order as given (z, a, b): a shared
    assert value("Unexpectedness@2", ties="input") == pytest.approx(0.5)


def test_a_cutoff_is_required() -> None:
    with pytest.raises(rw.InvalidParameterError, match=r"Unexpectedness needs a cutoff, e\.g\. Unexpectedness@10"):
        rw.evaluate(QRELS, RUN, ["Unexpectedness"], base_run=BASE)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_a_metric_reading_the_base_run_without_it_is_refused(engine: str) -> None:
    with pytest.raises(
        rw.InvalidParameterError,
        match=r"Unexpectedness@5 reads the base run, the baseline ranking each user's list is compared with: pass base_run=",
    ):
        rw.evaluate(QRELS, RUN, ["nDCG", "Unexpectedness@5"], engine=engine)


def test_the_base_run_is_read_only_when_a_metric_reads_it() -> None:
    """Given and not read: nothing reads a base run that would fail."""
    got = rw.evaluate(QRELS, RUN, ["P@1"], base_run={"u1": {"a": math.nan}})
    assert got.height == 3


# -- the forms of base_run=, their checks -----------------------------------------------------------
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_the_base_run_in_every_form_the_run_takes(engine: str, tmp_path: Path) -> None:
    """A dict of dicts, a Polars frame or LazyFrame, pandas, pyarrow, records, Parquet, CSV and
    TREC files; base_run_columns names its own columns."""
    want = rw.evaluate(QRELS, RUN, ["Unexpectedness@2"], base_run=BASE, engine=engine)
    frame = pl.DataFrame(
        [(q, d, s) for q, docs in BASE.items() for d, s in docs.items()], schema=["query_id", "doc_id", "score"],
        orient="row",
    )
    frame.write_parquet(tmp_path / "base.parquet")
    frame.write_csv(tmp_path / "base.csv")
    (tmp_path / "base.trec").write_text(
        "".join(f"{q} Q0 {d} {r} {s} base\n" for r, (q, d, s) in enumerate(frame.rows(), 1))
    )
    forms: list[tuple[Any, dict[str, Any]]] = [
        (frame, {}), (frame.lazy(), {}), (frame.to_pandas(), {}), (frame.to_arrow(), {}), (frame.to_dicts(), {}),
        (str(tmp_path / "base.parquet"), {}), (tmp_path / "base.csv", {}), (str(tmp_path / "base.trec"), {}),
        (frame.rename({"query_id": "user", "score": "s"}), {"base_run_columns": {"query_id": "user", "score": "s"}}),
    ]
    for given_form, kw in forms:
        got = rw.evaluate(QRELS, RUN, ["Unexpectedness@2"], base_run=given_form, engine=engine, **kw)
        assert got.equals(want), type(given_form)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_integer_base_ids_meet_string_run_ids(engine: str) -> None:
    """Ids of another type than the run's are compared as text (as run and qrels are)."""
    run = pl.DataFrame({"query_id": ["1", "1"], "doc_id": ["7", "8"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["1"], "doc_id": ["7"], "relevance": [1]})
    base = pl.DataFrame({"query_id": [1, 1], "doc_id": [8, 9], "score": [2.0, 1.0]})
    got = rw.evaluate(qrels, run, ["Unexpectedness@2"], base_run=base, engine=engine)
    assert close_rows(got.rows(), [("1", 0.5)])


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_a_bad_base_run_is_refused_as_a_run_naming_the_base_run(engine: str) -> None:
    def ev(base: Any, **kw: Any) -> None:
        rw.evaluate(QRELS, RUN, ["Unexpectedness@2"], base_run=base, engine=engine, **kw)

    frame = pl.DataFrame({"query_id": ["u1", "u1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    with pytest.raises(rw.MissingColumnError, match=r"^the base run has no column 'score'"):
        ev(frame.rename({"score": "s"}))
    with pytest.raises(rw.MissingColumnError, match=r"pass base_run_columns=\{'score': 's'\}"):
        ev(frame.rename({"score": "s"}), base_run_columns={"score": "sc"})
    with pytest.raises(rw.ColumnTypeError, match=r"^the base run's score column 'score' must be numeric"):
        ev(frame.with_columns(pl.col("score").cast(pl.String)))
    with pytest.raises(rw.InvalidValueError, match=r"^the base run's column 'score' holds 1 NaN value\(s\) \(e\.g\. in query 'u1'\)"):
        ev(frame.with_columns(pl.Series("score", [1.0, math.nan])))
    with pytest.raises(rw.InvalidValueError, match=r"^the base run's column 'doc_id' holds 1 NULL value\(s\)"):
        ev(frame.with_columns(pl.Series("doc_id", ["a", None])))
    with pytest.raises(rw.DuplicateDocumentError, match=r"^the base run lists document 'a' more than once for query 'u1'"):
        ev(frame.with_columns(pl.lit("a").alias("doc_id")))
    with pytest.raises(rw.EmptyInputError, match=r"^the base run is empty"):
        ev({"u1": {}})
    with pytest.raises(rw.InvalidParameterError, match=r"base_run_columns has no key 'qid'"):
        ev(frame, base_run_columns={"qid": "query_id"})


def test_to_sql_and_the_macro_check_the_base_run_as_a_run() -> None:
    """The statement fails on a run's faults in the base run table, naming the base run."""
    con = rw.register(duckdb.connect())
    con.register("run", RUN)
    con.register("qrels", QRELS)
    con.register("bad", pl.DataFrame({"query_id": ["u1", "u1"], "doc_id": ["a", "a"], "score": [1.0, 2.0]}))
    con.register("nan", pl.DataFrame({"query_id": ["u1"], "doc_id": ["a"], "score": [math.nan]}))
    with pytest.raises(duckdb.Error, match=r"rankwise: the base run lists document 'a' more than once for query 'u1'"):
        con.sql(rw.to_sql(["Unexpectedness@2"], base_run="bad")).pl()
    with pytest.raises(duckdb.Error, match=r"rankwise: the base run's column score holds NULL or NaN values \(query 'u1'\)"):
        con.sql(rw.to_sql(["Unexpectedness@2"], base_run="nan")).pl()
    with pytest.raises(duckdb.Error, match=r"rankwise: the base run lists document 'a' more than once"):
        con.sql("SELECT * FROM rw_unexpectedness('qrels', 'run', 'bad')").pl()
    with pytest.raises(rw.InvalidParameterError, match=r"Unexpectedness@2 reads the base run: pass base_run= \(the table's name\)"):
        rw.to_sql(["Unexpectedness@2"])
    spark_sql = rw.to_sql(["Unexpectedness@2"], base_run="logs.base", dialect="spark")
    assert "FROM `logs`.`base`" in spark_sql and "raise_error(" in spark_sql


def test_spark(spark: Any) -> None:
    from tests.engines.test_spark import from_spark, to_spark

    base = pl.DataFrame(
        [(q, d, s) for q, docs in BASE.items() for d, s in docs.items()], schema=["query_id", "doc_id", "score"],
        orient="row",
    )
    metrics = ["Unexpectedness@1", "Unexpectedness@2", "Unexpectedness@3"]
    for ties in ("trec_eval", "doc_asc"):
        got = from_spark(rw.spark.evaluate(to_spark(spark, QRELS), to_spark(spark, RUN), metrics,
                                           base_run=to_spark(spark, base), ties=ties))
        want = rw.evaluate(QRELS, RUN, metrics, base_run=BASE, ties=ties)
        assert close_rows(got.sort("query_id").rows(), want.rows())


# -- every path ------------------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_segments_score_each_segment_against_the_users_base_list(engine: str) -> None:
    """by=: each segment's value is the one of that segment's run alone, against the same base run."""
    run = pl.concat([
        RUN.with_columns(pl.lit("s").alias("segment")),
        RUN.with_columns(pl.lit("t").alias("segment"), (-pl.col("score")).alias("score")),
    ])
    metrics = ["Unexpectedness@1", "Unexpectedness@2"]
    got = rw.evaluate(QRELS, run, metrics, base_run=BASE, by="segment", engine=engine)
    for segment in ("s", "t"):
        alone = rw.evaluate(QRELS, run.filter(pl.col("segment") == segment).drop("segment"), metrics,
                            base_run=BASE, engine=engine)
        assert close_rows(got.filter(pl.col("segment") == segment).drop("segment").rows(), alone.rows()), segment
    with pytest.raises(rw.MissingColumnError, match=r"^the base run has no column 'score'"):
        rw.evaluate(QRELS, run, metrics, base_run=pl.DataFrame({"query_id": ["u1"], "doc_id": ["a"]}), by="segment",
                    engine=engine)


def test_query_chunks_give_the_same_values(tmp_path: Path) -> None:
    want = rw.evaluate(QRELS, RUN, ["Unexpectedness@2"], base_run=BASE)
    assert rw.evaluate(QRELS, RUN, ["Unexpectedness@2"], base_run=BASE, query_chunks=3).equals(want)


@pytest.mark.parametrize("rows_per_group", [1, 2, 4])
def test_in_memory_query_groups_cut_the_base_run_by_query(rows_per_group: int) -> None:
    """The Polars engine's in-memory query groups (more than ROWS_PER_CHUNK run rows) each rank
    their own queries' base lists: the values are those of one group, with integer ids too."""
    from rankwise._polars import engine as polars_engine

    metrics = ["Unexpectedness@2", "Unexpectedness@1"]
    frame = pl.DataFrame(
        [{"query_id": q, "doc_id": d, "score": v} for q, docs in BASE.items() for d, v in docs.items()]
    )
    cases = [(QRELS, RUN, frame)]
    as_int = pl.col("query_id").str.slice(1).cast(pl.Int64)
    cases.append((QRELS.with_columns(as_int), RUN.with_columns(as_int), frame.with_columns(as_int)))
    for qrels, run, base in cases:
        want = rw.evaluate(qrels, run, metrics, base_run=base, missing="zero")
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(polars_engine, "ROWS_PER_CHUNK", rows_per_group)
            assert rw.evaluate(qrels, run, metrics, base_run=base, missing="zero").equals(want)


def test_compare_and_explain_read_the_base_run() -> None:
    other = RUN.with_columns(pl.Series("score", [1.0, 2.0, 3.0, 1.0, 2.0, 1.0]))
    compared = rw.compare(QRELS, {"a": RUN, "b": other}, ["Unexpectedness@2"], base_run=BASE)
    means = rw.summarize(rw.evaluate(QRELS, other, ["Unexpectedness@2"], base_run=BASE))
    assert compared.filter(pl.col("metric") == "Unexpectedness@2")["mean"].item() == pytest.approx(
        means["Unexpectedness@2"].item()
    )
    # u1's list a, b, c against the base's top 3 (z, a, b): at depth 1 (a) 1 − 1/3, then 1 − 2/3, 1 − 2/3
    table = rw.explain(QRELS, RUN, "Unexpectedness@3", "u1", base_run=BASE)
    assert table["doc_id"].to_list() == ["a", "b", "c"]
    assert table["value"].to_list() == pytest.approx([2 / 3, 1 / 3, 1 / 3])


def test_a_metric_expression_is_refused() -> None:
    with pytest.raises(rw.InvalidParameterError, match=r"Unexpectedness@5 cannot be a metric expression \(Polars or SQL\): it reads the base run"):
        rw.expr("Unexpectedness@5")


def test_command_line(tmp_path: Path) -> None:
    QRELS.write_parquet(tmp_path / "qrels.parquet")
    RUN.write_parquet(tmp_path / "run.parquet")
    base = pl.DataFrame(
        [(q, d, s) for q, docs in BASE.items() for d, s in docs.items()], schema=["user", "doc_id", "score"], orient="row"
    )
    base.write_parquet(tmp_path / "base.parquet")

    def cli(*args: str) -> Any:
        return rankwise_cli("eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), *args)

    done = cli("-m", "Unexpectedness@2", "--base-run", str(tmp_path / "base.parquet"), "--base-run-query-id-col", "user",
               "--format", "csv")
    assert done.returncode == 0, done.stderr
    got = pl.read_csv(done.stdout.encode())
    want = rw.summarize(rw.evaluate(QRELS, RUN, ["Unexpectedness@2"], base_run=BASE))
    assert got["Unexpectedness@2"].item() == pytest.approx(want["Unexpectedness@2"].item())
    missing = cli("-m", "Unexpectedness@2")
    assert missing.returncode == 2
    assert missing.stderr.strip() == (
        "rankwise: error: Unexpectedness@2 reads the base run, the baseline ranking each user's list is compared "
        "with: pass --base-run FILE"
    )
    unnamed = cli("-m", "Unexpectedness@2", "--base-run", str(tmp_path / "base.parquet"))
    assert unnamed.returncode == 2
    assert unnamed.stderr.count("\n") == 1
    assert unnamed.stderr.startswith("rankwise: error: the base run has no column 'query_id'")
    page = rankwise_cli("metrics", "Unexpectedness")
    assert "reads:       the base run: --base-run FILE (base_run= in Python)" in page.stdout


def test_the_report_draws_it_against_accuracy(tmp_path: Path) -> None:
    """A beyond-accuracy family: the report's trade-off figure draws it against the first accuracy
    metric, reading the base run as compare does."""
    from rankwise.reporting.plots import tradeoff_pairs

    assert tradeoff_pairs(["AP", "Unexpectedness@2"]) == [("AP", "Unexpectedness@2")]
    other = RUN.with_columns(pl.Series("score", [1.0, 2.0, 3.0, 1.0, 2.0, 1.0]))
    fig = rw.plots.tradeoff(QRELS, {"a": RUN, "b": other}, "AP", "Unexpectedness@2", base_run=BASE,
                            path=tmp_path / "tradeoff.svg")
    assert fig.axes[0].get_xlabel() == "mean Unexpectedness@2 (higher is better)"
