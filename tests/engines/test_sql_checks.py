"""The SQL paths check their inputs as the Python engines do: the table macros (``rw_evaluate``,
``rw_ranked``, ``rw_judgments``), the statement of ``rankwise.to_sql`` (DuckDB and Spark) and
``rankwise.evaluation.spark.evaluate`` refuse NULL ids, NULL/NaN scores, NULL/NaN/infinite relevance,
duplicated documents and a cutoff k of 0, with a ``rankwise: ...`` error naming the problem,
the column and an example; ``checks := false`` / ``check=False`` restore the unchecked
behaviour. Integer doc ids with tied scores rank as trec_eval ranks them (as text). Metric
labels, whatever they hold, reach the SQL quoted and come back as the result's column names."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankwise as rw
from rankwise._sql.inline import expand

NAN, INF = float("nan"), float("inf")


def frame(rows: list[tuple[Any, Any, Any]], value: str, dtypes: tuple[Any, Any, Any] | None = None) -> pl.DataFrame:
    q, d, v = dtypes or (pl.String, pl.String, pl.Float64)
    return pl.DataFrame(rows, schema={"query_id": q, "doc_id": d, value: v}, orient="row")


RUN = [("q1", "d1", 3.0), ("q1", "d2", 2.0), ("q1", "d3", 1.0), ("q2", "d1", 1.0), ("q2", "d4", 0.5)]
QRELS = [("q1", "d1", 1.0), ("q1", "d3", 2.0), ("q2", "d4", 1.0), ("q2", "d5", 0.0)]


@dataclass
class Case:
    """Faulty input: the good RUN and QRELS with some rows replaced or added."""

    id: str
    message: str
    run: list[tuple[Any, Any, Any]] = field(default_factory=lambda: list(RUN))
    qrels: list[tuple[Any, Any, Any]] = field(default_factory=lambda: list(QRELS))


def _with(rows: list[tuple[Any, Any, Any]], index: int | None, row: tuple[Any, Any, Any]) -> list[tuple[Any, Any, Any]]:
    out = list(rows)
    if index is None:
        out.append(row)
    else:
        out[index] = row
    return out


DATA_CASES = [
    Case("duplicate doc in run", "rankwise: the run lists document 'd2' more than once for query 'q1'",
         run=_with(RUN, None, ("q1", "d2", 0.1))),
    Case("duplicate doc in qrels", "rankwise: the qrels lists document 'd4' more than once for query 'q2'",
         qrels=_with(QRELS, None, ("q2", "d4", 2.0))),
    Case("NULL score", "rankwise: the run's column score holds NULL or NaN values (query 'q2')",
         run=_with(RUN, 4, ("q2", "d4", None))),
    Case("NaN score", "rankwise: the run's column score holds NULL or NaN values (query 'q1')",
         run=_with(RUN, 1, ("q1", "d2", NAN))),
    Case("NULL query id in run", "rankwise: the run's column query_id holds NULL values (document 'd9')",
         run=_with(RUN, None, (None, "d9", 1.0))),
    Case("NULL doc id in run", "rankwise: the run's column doc_id holds NULL values (query 'q2')",
         run=_with(RUN, None, ("q2", None, 1.0))),
    Case("NULL query id in qrels", "rankwise: the qrels' column query_id holds NULL values (document 'd7')",
         qrels=_with(QRELS, None, (None, "d7", 1.0))),
    Case("NaN relevance", "rankwise: the qrels' column relevance holds a non-finite value (NULL, NaN or infinite) (query 'q2')",
         qrels=_with(QRELS, 3, ("q2", "d5", NAN))),
    Case("inf relevance", "rankwise: the qrels' column relevance holds a non-finite value (NULL, NaN or infinite) (query 'q1')",
         qrels=_with(QRELS, 0, ("q1", "d1", INF))),
    Case("-inf relevance", "rankwise: the qrels' column relevance holds a non-finite value (NULL, NaN or infinite) (query 'q2')",
         qrels=_with(QRELS, 2, ("q2", "d4", -INF))),
    Case("NULL relevance", "rankwise: the qrels' column relevance holds a non-finite value (NULL, NaN or infinite) (query 'q1')",
         qrels=_with(QRELS, 1, ("q1", "d3", None))),
]
BY_ID = {c.id: c for c in DATA_CASES}


def connection(case: Case | None = None, register: bool = True) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with tables run and qrels (the case's, else the good ones)."""
    con = duckdb.connect()
    if register:
        rw.register(con)
    run = case.run if case else RUN
    qrels = case.qrels if case else QRELS
    con.register("run_frame", frame(run, "score"))
    con.register("qrels_frame", frame(qrels, "relevance"))
    con.execute("CREATE TABLE run AS SELECT * FROM run_frame")
    con.execute("CREATE TABLE qrels AS SELECT * FROM qrels_frame")
    return con


# -- the table macros ---------------------------------------------------------------------------

MACRO_QUERIES = {
    "rw_evaluate": "SELECT * FROM rw_evaluate('qrels', 'run'{opts})",
    "rw_ranked": "SELECT * FROM rw_ranked('qrels', 'run'{opts})",
}


@pytest.mark.parametrize("macro", list(MACRO_QUERIES))
@pytest.mark.parametrize("case", DATA_CASES, ids=lambda c: c.id)
def test_table_macros_refuse_faulty_input(case: Case, macro: str) -> None:
    con = connection(case)
    with pytest.raises(duckdb.InvalidInputException, match=re.escape(case.message)):
        con.sql(MACRO_QUERIES[macro].format(opts="")).fetchall()


@pytest.mark.parametrize("case_id", ["duplicate doc in qrels", "NaN relevance", "inf relevance", "NULL query id in qrels"])
def test_rw_judgments_refuses_faulty_qrels(case_id: str) -> None:
    case = BY_ID[case_id]
    con = connection(case)
    with pytest.raises(duckdb.InvalidInputException, match=re.escape(case.message)):
        con.sql("SELECT * FROM rw_judgments('qrels')").fetchall()
    assert len(con.sql("SELECT * FROM rw_judgments('qrels', checks := false)").fetchall()) == len(case.qrels)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("SELECT * FROM rw_evaluate('qrels', 'run', k := 0)", "rankwise: k must be a positive integer, got 0"),
        ("SELECT * FROM rw_evaluate('qrels', 'run', k := -3)", "rankwise: k must be a positive integer, got -3"),
        ("SELECT * FROM rw_evaluate('qrels', 'run', k := 2.5)", "rankwise: k must be a positive integer, got 2.5"),
        ("SELECT * FROM rw_evaluate('qrels', 'run', k := NULL)", "rankwise: k must be a positive integer, got NULL"),
        ("SELECT * FROM rw_ranked('qrels', 'run', max_rank := 0)",
         "rankwise: max_rank must be a positive integer or NULL, got 0"),
        ("SELECT * FROM rw_evaluate('qrels', 'run', k := 1e30)", "rankwise: k must be at most 2**62, got 1e+30"),
        ("SELECT * FROM rw_evaluate('qrels', 'run', k := 4611686018427387905)",
         "rankwise: k must be at most 2**62, got 4611686018427387905"),
        ("SELECT * FROM rw_ranked('qrels', 'run', max_rank := 4611686018427387905)",
         "rankwise: max_rank must be at most 2**62, got 4611686018427387905"),
        ("SELECT * FROM rw_ranked('qrels', 'run', ties := 'random')",
         "rankwise: ties must be one of 'trec_eval', 'doc_asc', 'doc_desc_numeric', 'input', 'optimistic', "
         "'pessimistic', got 'random'"),
    ],
    ids=["k=0", "k=-3", "k=2.5", "k=NULL", "max_rank=0", "k=1e30", "k=2**62+1", "max_rank=2**62+1", "unknown ties"],
)
def test_table_macros_refuse_bad_parameters(query: str, message: str) -> None:
    con = connection()
    with pytest.raises(duckdb.InvalidInputException, match=re.escape(message)):
        con.sql(query).fetchall()


def test_infinite_scores_are_allowed_and_rank_first_or_last() -> None:
    con = connection()
    con.execute("UPDATE run SET score = 'inf'::DOUBLE WHERE doc_id = 'd3'")   # q1: d3 to the top
    con.execute("UPDATE run SET score = '-inf'::DOUBLE WHERE doc_id = 'd4'")  # q2: d4 to the bottom
    ranked = con.sql("SELECT query_id, doc_id, rnk FROM rw_ranked('qrels', 'run') ORDER BY ALL").fetchall()
    assert ("q1", "d3", 1) in ranked and ("q2", "d4", 2) in ranked
    ap = dict(con.sql("SELECT query_id, \"AP\" FROM rw_evaluate('qrels', 'run')").fetchall())
    assert ap == {"q1": pytest.approx((1 / 1 + 2 / 2) / 2), "q2": 0.5}


def test_good_input_gives_the_same_numbers_with_and_without_checks() -> None:
    con = connection()
    checked = con.sql("SELECT * FROM rw_evaluate('qrels', 'run', k := 2)").fetchall()
    assert checked == con.sql("SELECT * FROM rw_evaluate('qrels', 'run', k := 2, checks := false)").fetchall()
    expected = rw.evaluate(frame(QRELS, "relevance"), frame(RUN, "score"), ["AP", "nDCG@2", "P@2"])
    got = con.sql("SELECT query_id, \"AP\", \"nDCG@k\", \"P@k\" FROM rw_evaluate('qrels', 'run', k := 2)").pl()
    assert_frame_equal(got.rename({"nDCG@k": "nDCG@2", "P@k": "P@2"}), expected, check_exact=False, abs_tol=1e-12)


@pytest.mark.parametrize("case", DATA_CASES, ids=lambda c: c.id)
def test_checks_false_restores_the_unchecked_macros(case: Case) -> None:
    """checks := false: nothing is checked, the rows count as they are (the old behaviour)."""
    con = connection(case)
    rows = con.sql("SELECT * FROM rw_evaluate('qrels', 'run', checks := false)").pl()
    assert rows.height >= 1
    ranked = con.sql("SELECT * FROM rw_ranked('qrels', 'run', checks := false)").fetchall()
    assert len(ranked) == len(case.run) + (case.id == "duplicate doc in qrels")  # the join doubles it


def test_checks_false_counts_a_duplicate_twice_as_before() -> None:
    con = connection(BY_ID["duplicate doc in run"])
    con.execute("UPDATE run SET score = 2.5 WHERE doc_id = 'd2' AND score = 0.1")
    con.execute("UPDATE qrels SET relevance = 1 WHERE doc_id = 'd3'")
    con.execute("INSERT INTO qrels VALUES ('q1', 'd2', 1)")
    row = con.sql("SELECT \"NumRet\", \"NumRel\", \"NumRelRet\", \"AP\" FROM rw_evaluate('qrels', 'run', checks := false) "
                  "WHERE query_id = 'q1'").fetchall()
    # d2 (twice), d1, d2, d3: all relevant; 4 retrieved relevant of 3 judged relevant
    assert row == [(4.0, 3.0, 4.0, pytest.approx(4 / 3))]


def test_checks_false_keeps_k_zero_unchecked() -> None:
    con = connection()
    rows = con.sql("SELECT \"P@k\" FROM rw_evaluate('qrels', 'run', k := 0, checks := false)").fetchall()
    assert len(rows) == 2
    assert all(p is None or math.isnan(p) or math.isinf(p) for (p,) in rows)


# -- to_sql's statement, run in DuckDB ------------------------------------------------------------


@pytest.mark.parametrize("case", DATA_CASES, ids=lambda c: c.id)
def test_to_sql_statement_refuses_faulty_input(case: Case) -> None:
    con = connection(case, register=False)  # nothing installed: every macro is inlined
    with pytest.raises(duckdb.InvalidInputException, match=re.escape(case.message)):
        con.sql(rw.to_sql(["AP", "nDCG@10"])).fetchall()
    assert con.sql(rw.to_sql(["AP", "nDCG@10"], check=False)).fetchall()  # the opt-out


def test_to_sql_messages_name_the_users_columns() -> None:
    con = connection(BY_ID["NaN score"], register=False)
    con.execute('ALTER TABLE run RENAME COLUMN score TO "sim v2"')
    con.execute("ALTER TABLE qrels RENAME COLUMN relevance TO grade")
    message = "rankwise: the run's column sim v2 holds NULL or NaN values (query 'q1')"
    with pytest.raises(duckdb.InvalidInputException, match=re.escape(message)):
        con.sql(rw.to_sql(["AP"], score="sim v2", relevance="grade")).fetchall()


def test_to_sql_check_must_be_a_bool() -> None:
    with pytest.raises(rw.InvalidParameterError, match="check must be True or False"):
        rw.to_sql(["AP"], check="no")  # type: ignore[arg-type]


# -- trec_eval's tie order for integer doc ids ----------------------------------------------------

INT_RUN = [(1, 5, 1.0), (1, 48, 1.0), (1, 100, 1.0), (1, 7, 1.0), (1, 3, 2.0), (2, 10, 0.5), (2, 9, 0.5), (2, 11, 0.5)]
INT_QRELS = [(1, 5, 1), (1, 100, 2), (1, 3, 0), (1, 200, 1), (2, 9, 1), (2, 11, 1)]
INT_TYPES = (pl.Int64, pl.Int64, pl.Float64)
TEXT_ORDER = {1: [3, 7, 5, 48, 100], 2: [9, 11, 10]}
"""trec_eval's order (strcmp, descending): '7' > '5' > '48' > '100' and '9' > '11' > '10'."""


def _int_connection(register: bool = True) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    if register:
        rw.register(con)
    con.register("run_frame", frame(INT_RUN, "score", INT_TYPES))
    con.register("qrels_frame", frame(INT_QRELS, "relevance", (pl.Int64, pl.Int64, pl.Int64)))
    con.execute("CREATE TABLE run AS SELECT * FROM run_frame")
    con.execute("CREATE TABLE qrels AS SELECT * FROM qrels_frame")
    return con


def _pytrec(measures: set[str]) -> dict[str, dict[str, float]]:
    import pytrec_eval

    qrel: dict[str, dict[str, int]] = {}
    for q, d, r in INT_QRELS:
        qrel.setdefault(str(q), {})[str(d)] = r
    run: dict[str, dict[str, float]] = {}
    for q, d, s in INT_RUN:
        run.setdefault(str(q), {})[str(d)] = s
    return pytrec_eval.RelevanceEvaluator(qrel, measures).evaluate(run)  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("ties", "order"),
    [
        ("trec_eval", TEXT_ORDER),
        ("doc_asc", {1: [3, 100, 48, 5, 7], 2: [10, 11, 9]}),
        ("doc_desc_numeric", {1: [3, 100, 48, 7, 5], 2: [11, 10, 9]}),
        ("optimistic", {1: [3, 100, 5, 7, 48], 2: [9, 11, 10]}),
        ("pessimistic", {1: [3, 7, 48, 5, 100], 2: [10, 9, 11]}),
    ],
)
def test_rw_ranked_orders_integer_doc_ids_per_tie_policy(ties: str, order: dict[int, list[int]]) -> None:
    con = _int_connection()
    rows = con.sql(f"SELECT query_id, doc_id FROM rw_ranked('qrels', 'run', ties := '{ties}') ORDER BY query_id, rnk").fetchall()
    got: dict[int, list[int]] = {}
    for q, d in rows:
        got.setdefault(q, []).append(d)
    assert got == order


def test_rw_evaluate_equals_trec_eval_on_integer_doc_ids() -> None:
    con = _int_connection()
    got = {r[0]: r for r in con.sql(
        "SELECT query_id, \"AP\", \"RR\", \"nDCG\", \"P@k\", \"nDCG@k\" FROM rw_evaluate('qrels', 'run', k := 3)"
    ).fetchall()}
    expected = _pytrec({"map", "recip_rank", "ndcg", "P_5", "ndcg_cut_3"})
    # P@3 is not among pytrec_eval's cutoffs: by hand, q1's top 3 is 3, 7, 5 (one relevant), q2's 9, 11, 10 (two)
    assert {q: r[4] for q, r in got.items()} == {1: pytest.approx(1 / 3), 2: pytest.approx(2 / 3)}
    for q, row in got.items():
        e = expected[str(q)]
        assert row[1:4] == (pytest.approx(e["map"]), pytest.approx(e["recip_rank"]), pytest.approx(e["ndcg"])), q
        assert row[5] == pytest.approx(e["ndcg_cut_3"]), q
    # by hand: q1 ranks 3 (rel 0), 7, 5 (rel 1), 48, 100 (rel 2): RR = 1/3 (not 1/2 as in numeric order)
    assert got[1][2] == pytest.approx(1 / 3)


def test_to_sql_equals_trec_eval_on_integer_doc_ids() -> None:
    con = _int_connection(register=False)
    names = {"AP": "map", "RR": "recip_rank", "nDCG": "ndcg", "nDCG@3": "ndcg_cut_3", "P@5": "P_5"}
    got = con.sql(rw.to_sql(list(names))).pl()
    assert got["query_id"].to_list() == [1, 2]
    expected = _pytrec(set(names.values()))
    for row in got.iter_rows(named=True):
        for metric, trec in names.items():
            assert row[metric] == pytest.approx(expected[str(row["query_id"])][trec]), (row["query_id"], metric)


# -- labels and names reach the SQL quoted ----------------------------------------------------------

LABELS = [
    'nDCG(gain="linear")@10',
    "AP  # rw_div0( rw_evaluate( -- ) ;",
    "RR # it's a `tick`, a \"quote\", a '' pair and `` two ticks",
    "P@5 # rw_evaluate('qrels', 'run') ; DROP TABLE run; --",
    "Rprec # ) ) ( \"\" `",
]
"""Metric strings whose text (the part after '#' is a Python comment, which the metric parser
allows) holds what must not be rewritten or executed; the labels become the column names."""


def test_a_users_label_is_kept_as_written() -> None:
    assert [rw.parse_metric(s).label for s in LABELS] == LABELS


@pytest.mark.parametrize("dialect", ["duckdb", "spark"])
def test_quoted_text_is_never_expanded(dialect: str) -> None:
    q = '"' if dialect == "duckdb" else "`"
    alias = f"{q}rw_div0({q}{q} rw_evaluate(a) ' -- ){q}"
    sql = f"SELECT rw_div0(1, 2) AS {alias}, 'rw_recip0(x)' AS s, \"rw_positive(\" AS t, `rw_gain(` AS u FROM t"
    out = expand(sql, dialect)  # type: ignore[arg-type]
    assert out.count("rw_") == 5  # the call inlined, the four quoted ones kept
    assert alias in out and "'rw_recip0(x)'" in out


@pytest.mark.parametrize("check", [True, False])
def test_labels_survive_to_sql_in_duckdb(check: bool) -> None:
    con = connection(register=False)
    con.execute("ALTER TABLE run RENAME COLUMN score TO \"rw_div0 - score.v2\"")
    sql = rw.to_sql(LABELS, score="rw_div0 - score.v2", check=check)
    got = con.sql(sql).pl()
    assert got.columns == ["query_id", *LABELS]
    run = frame(RUN, "score")
    expected = rw.evaluate(frame(QRELS, "relevance"), run, LABELS)
    assert_frame_equal(got, expected, check_exact=False, abs_tol=1e-12)
    assert con.sql("SELECT count(*) FROM run").fetchall() == [(len(RUN),)]  # nothing executed


def test_labels_survive_to_sql_in_spark_dialect_text() -> None:
    sql = rw.to_sql(LABELS, dialect="spark")
    for label in LABELS:
        assert "`" + label.replace("`", "``") + "`" in sql


# -- Spark ------------------------------------------------------------------------------------------

SPARK_CASES = ["duplicate doc in run", "NULL score", "NaN relevance", "inf relevance"]


def _spark_frames(spark: Any, run: pl.DataFrame, qrels: pl.DataFrame) -> tuple[Any, Any]:
    return spark.createDataFrame(run.to_pandas()), spark.createDataFrame(qrels.to_pandas())


@pytest.mark.parametrize("case_id", SPARK_CASES)
def test_spark_refuses_faulty_data_when_the_result_is_computed(spark: Any, case_id: str) -> None:
    case = BY_ID[case_id]
    run, qrels = _spark_frames(spark, frame(case.run, "score"), frame(case.qrels, "relevance"))
    context, tracker = spark.sparkContext, spark.sparkContext.statusTracker()
    group = f"rankwise-check-{case_id}"
    context.setJobGroup(group, "rankwise.evaluation.spark.evaluate must start no Spark job")
    try:
        result = rw.spark.evaluate(qrels, run, ["AP", "nDCG@10"])  # lazy: no job, no error yet
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)
    assert list(tracker.getJobIdsForGroup(group)) == []
    with pytest.raises(Exception, match=re.escape(case.message)):
        result.collect()
    if case_id == "duplicate doc in run":  # the opt-out: the duplicate counts twice, as before
        unchecked = {r["query_id"]: r["AP"] for r in rw.spark.evaluate(qrels, run, ["AP"], check=False).collect()}
        con = connection(case)
        macro = dict(con.sql("SELECT query_id, \"AP\" FROM rw_evaluate('qrels', 'run', checks := false)").fetchall())
        assert unchecked == pytest.approx(macro)


def test_spark_refuses_a_string_score_at_call_time(spark: Any) -> None:
    run = frame(RUN, "score").with_columns(pl.col("score").cast(pl.String))
    run_df, qrels_df = _spark_frames(spark, run, frame(QRELS, "relevance"))
    with pytest.raises(rw.ColumnTypeError, match="the run's score column 'score' must be numeric, found type string"):
        rw.spark.evaluate(qrels_df, run_df, ["AP"])
    float_ids = frame([(q, 1.5, s) for q, _, s in RUN], "score", (pl.String, pl.Float64, pl.Float64))
    run_df, qrels_df = _spark_frames(spark, float_ids, frame(QRELS, "relevance"))
    with pytest.raises(rw.ColumnTypeError, match="id column 'doc_id' must hold strings or integers, found type double"):
        rw.spark.evaluate(qrels_df, run_df, ["AP"])


def test_spark_labels_and_integer_doc_ids(spark: Any) -> None:
    """Labels holding quotes, backticks and macro names come back as the column names, and
    integer doc ids with tied scores rank as trec_eval ranks them (as text)."""
    run, qrels = _spark_frames(spark, frame(INT_RUN, "score", INT_TYPES),
                               frame(INT_QRELS, "relevance", (pl.Int64, pl.Int64, pl.Int64)))
    result = rw.spark.evaluate(qrels, run, LABELS)
    assert result.columns == ["query_id", *LABELS]
    got = pl.from_pandas(result.toPandas())
    expected = rw.evaluate(frame(INT_QRELS, "relevance", (pl.Int64, pl.Int64, pl.Int64)), frame(INT_RUN, "score", INT_TYPES),
                           LABELS, engine="duckdb")
    assert got.columns == expected.columns
    for label in LABELS:
        assert got[label].to_list() == pytest.approx(expected[label].to_list())
    trec = _pytrec({"recip_rank"})
    assert got[LABELS[2]].to_list() == pytest.approx([trec["1"]["recip_rank"], trec["2"]["recip_rank"]])
    summary = rw.spark.summarize(result).collect()[0]
    assert summary[LABELS[1]] == pytest.approx(expected[LABELS[1]].mean())
