"""Every metric as a DuckDB SQL expression over a judged relation (``rw.sql_expr``,
``rw.sql_select``): per query, the values of ``rw_evaluate`` and of ``rw.evaluate`` on the
DuckDB engine (1e-12); the refusals are those of the Polars expressions."""

from __future__ import annotations

from typing import Any

import duckdb
import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import rankwise as rw
from tests.conftest import under_max_rank
from tests.engines.test_expr import CONVENTIONS, EVERY_METRIC, FIXED, expressible_metrics, frames
from tests.strategies import Case, cases
from tests.tiers import examples


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    return rw.register(duckdb.connect())


def sql_values(con: duckdb.DuckDBPyConnection, qrels: pl.DataFrame, run: pl.DataFrame, names: list[str], **kw: Any) -> pl.DataFrame:
    judged = rw.judged_frame(qrels, run, missing=kw.get("missing", "ignore"))
    con.register("judged", judged)
    conventions = {k: v for k, v in kw.items() if k != "missing"}
    return con.sql(rw.sql_select(names, "judged", **conventions)).pl()


def assert_values(got: pl.DataFrame, expected: pl.DataFrame) -> None:
    # DuckDB's relation keeps the query id's type; values as the engines give them
    assert_frame_equal(got, expected, check_exact=False, abs_tol=1e-12, rel_tol=0)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(
    case=cases(),
    integer_ids=st.booleans(),
    chosen=expressible_metrics(3),
    fixed=st.lists(st.sampled_from(EVERY_METRIC), min_size=1, max_size=3, unique=True),
    **CONVENTIONS,
)
def test_sql_expressions_equal_evaluate(
    con: duckdb.DuckDBPyConnection, case: Case, integer_ids: bool, chosen: list[rw.Metric], fixed: list[str],
    ties: str, missing: str, max_rank: int | None, rel: float, judged_only: bool, trec_eval: str,
) -> None:
    names = under_max_rank(list(dict.fromkeys([repr(m) for m in chosen] + fixed)), max_rank)
    assume(names)
    qrels, run = frames(case, integer_ids)
    kw = dict(ties=ties, missing=missing, max_rank=max_rank, rel=rel, judged_only=judged_only, trec_eval=trec_eval)
    expected = rw.evaluate(qrels, run, names, engine="duckdb", **kw)
    assert_values(sql_values(con, qrels, run, names, **kw), expected)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
def test_every_registered_metric(con: duckdb.DuckDBPyConnection) -> None:
    """All 229 expressible metric variants, with judged-only rankings cut at max_rank and the
    queries judged but not run scored 0, integer ids."""
    qrels, run = frames(FIXED, True)
    kw = {"missing": "zero", "judged_only": True, "max_rank": 2}
    every = under_max_rank(EVERY_METRIC, 2)
    expected = rw.evaluate(qrels, run, every, engine="duckdb", **kw)
    for start in range(0, len(every), 12):
        names = every[start:start + 12]
        assert_values(sql_values(con, qrels, run, names, **kw), expected.select("query_id", *names))


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
def test_equal_to_rw_evaluate(con: duckdb.DuckDBPyConnection) -> None:
    """The columns of the rw_evaluate macro, k = 10, on the bundled data."""
    qrels = pl.read_parquet("examples/data/qrels.parquet")
    run = pl.read_parquet("examples/data/run.parquet")
    con.register("qrels", qrels)
    con.register("run", run)
    macro = con.sql("SELECT * FROM rw_evaluate('qrels', 'run', k := 10) ORDER BY query_id").pl()
    assert macro.columns[1:] == ["NumRet", "NumRel", "NumRelRet", "AP", "RR", "Rprec", "nDCG", "nDCG@k", "P@k", "R@k", "Success@k"]
    names = [c.replace("@k", "@10") for c in macro.columns[1:]]
    macro.columns = ["query_id", *names]
    got = sql_values(con, qrels, run, names)
    assert_values(got, macro.with_columns(pl.col(names).cast(pl.Float64)))


def test_one_expression_in_a_users_query(con: duckdb.DuckDBPyConnection) -> None:
    """sql_expr is an aggregate: it composes with the user's own columns and grouping."""
    run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["d1", "d2", "d10"], "score": [1.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": ["d1", "d2", "d10", "d7"], "relevance": [1, 0, 0, 1]})
    con.register("tied", rw.judged_frame(qrels, run))
    row = con.sql(
        f"SELECT query_id, {rw.sql_expr('RR')} AS rr, {rw.sql_expr('RR', ties='doc_asc')} AS asc_rr, "
        f"{rw.sql_expr('AP')} AS ap, count(*) AS n FROM tied GROUP BY query_id"
    ).fetchall()
    assert row == [("q", 1 / 3, 1.0, 1 / 6, 4)]
    con.register("run_rows", run.join(qrels, on=["query_id", "doc_id"], how="left"))
    only = con.sql(f"SELECT {rw.sql_expr('AP', ideal='run')} FROM run_rows GROUP BY query_id").fetchall()
    assert only == [(1 / 3,)]
    # without ideal='run', a relation of retrieved rows only is an error naming the flag
    with pytest.raises(duckdb.BinderException, match='column "retrieved" not found'):
        con.sql(f"SELECT {rw.sql_expr('AP')} FROM run_rows GROUP BY query_id").fetchall()


def test_refusals() -> None:
    with pytest.raises(rw.InvalidParameterError, match="cannot break ties without the doc id column"):
        rw.sql_expr("AP", doc_id=None)
    with pytest.raises(rw.InvalidParameterError, match=r"alpha_nDCG@20 cannot be a metric expression \(Polars or SQL\)"):
        rw.sql_expr("alpha_nDCG@20")
    with pytest.raises(rw.InvalidParameterError, match=r"use rw.sql_select\('all_trec'"):
        rw.sql_expr("all_trec")
    with pytest.raises(rw.UnsafeIdentifierError):
        rw.sql_expr("AP", score="x'); DROP TABLE t; --")
    with pytest.raises(TypeError, match="unexpected keyword argument 'k'"):
        rw.sql_select(["AP"], "judged", k=3)  # type: ignore[call-arg]


def test_ideal_run_over_a_judged_relation_ranks_the_rows_with_a_score() -> None:
    """ideal='run' over a judged relation: the rows with a score are the ranked list and its
    judgments, as in Polars; the columns are named as rw.expr names them."""
    run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "score": [0.9, 0.8, 0.7]})
    qrels = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["c", "z"], "relevance": [1, 1]})
    judged = rw.judged_frame(qrels, run)  # read by DuckDB by its name
    con = rw.register(duckdb.connect())
    got = con.sql(rw.sql_select(["RR", "AP", "R"], "judged", ideal="run")).pl()
    expected = judged.group_by("query_id").agg(rw.exprs(["RR", "AP", "R"], ideal="run"))
    assert_frame_equal(got, expected)
    assert got.row(0) == ("q1", 1 / 3, 1 / 3, 1.0)


def test_sql_expressions_refuse_missing() -> None:
    """As rw.expr: ``missing`` is the judged relation's, refused with the way to pass it."""
    with pytest.raises(rw.InvalidParameterError, match=r"sql_expr\(\) does not take missing=.*judged_frame"):
        rw.sql_expr("AP", missing="zero")  # type: ignore[call-arg]
    with pytest.raises(rw.InvalidParameterError, match=r"sql_select\(\) does not take missing=.*judged_frame"):
        rw.sql_select(["AP"], "judged", missing="zero")  # type: ignore[call-arg]
