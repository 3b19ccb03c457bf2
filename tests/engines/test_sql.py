"""The SQL macros: installed by rankwise.register (TEMP, read-only connections too), loadable
file by file as the DuckDB CLI's .read does, composable in users' own window queries, and safe
against injected names."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import rankwise as rw
from rankwise._sql.generate import bundle
from rankwise._sql.macros import BUNDLE, sql_files
from tests.strategies import Case, cases
from tests.tiers import examples

ROOT = Path(__file__).resolve().parents[2]


def test_sql_files_ship_and_match_the_repository() -> None:
    shipped = dict(sql_files())
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in sorted((ROOT / "sql").glob("*.sql")) if p.name != BUNDLE}
    assert shipped == on_disk
    assert list(shipped) == sorted(shipped)  # load order is file-name order
    # the one file for the DuckDB command line is every family's file, in that order
    assert (ROOT / "sql" / BUNDLE).read_text(encoding="utf-8") == bundle(list(shipped.items()))


def test_files_load_one_by_one_like_the_cli_read(tmp_path: Path) -> None:
    con = duckdb.connect()
    for path in sorted((ROOT / "sql").glob("*.sql")):
        con.execute(path.read_text(encoding="utf-8"))  # what `.read sql/NN_x.sql` does
    assert con.sql("SELECT rw_gain(3, 'exponential'), rw_gain(-1, 'linear')").fetchall() == [(7.0, 0.0)]


def test_register_on_a_read_only_connection(tmp_path: Path) -> None:
    db = tmp_path / "data.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute("CREATE TABLE run AS SELECT 'q' AS query_id, 'a' AS doc_id, 1.0 AS score")
        con.execute("CREATE TABLE qrels AS SELECT 'q' AS query_id, 'a' AS doc_id, 1 AS relevance")
    ro = duckdb.connect(str(db), read_only=True)
    rw.register(ro)
    assert ro.sql("SELECT query_id, \"AP\", \"P@k\" FROM rw_evaluate('qrels', 'run', k := 1)").fetchall() == [("q", 1.0, 1.0)]


def test_rw_evaluate_table_macro_equals_evaluate(tmp_path: Path, conformance: Path) -> None:
    conf = conformance
    run = rw.io.read_trec(conf / "results.test", "run", rw.Columns())
    qrels = rw.io.read_trec(conf / "qrels.test", "qrels", rw.Columns())
    run.write_parquet(tmp_path / "run.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    con = rw.register(duckdb.connect())
    got = con.sql(
        f"SELECT * FROM rw_evaluate('{tmp_path / 'qrels.parquet'}', '{tmp_path / 'run.parquet'}', k := 20)"
    ).pl()
    names = {"NumRet": "NumRet", "NumRel": "NumRel", "NumRelRet": "NumRelRet", "AP": "AP", "RR": "RR", "Rprec": "Rprec",
             "nDCG": "nDCG", "nDCG@k": "nDCG@20", "P@k": "P@20", "R@k": "R@20", "Success@k": "Success@20"}
    expected = rw.evaluate(qrels, run, list(names.values()))
    assert_frame_equal(got.rename(names), expected, check_exact=False, abs_tol=1e-12)


def test_macros_compose_in_a_users_window_query() -> None:
    con = rw.register(duckdb.connect())
    con.execute("CREATE TABLE j AS SELECT * FROM (VALUES ('q', 'a', 3.0, 0), ('q', 'b', 2.0, 1), ('q', 'c', 1.0, 2)) v(query_id, doc_id, score, relevance)")
    row = con.sql("""
        SELECT query_id,
               rw_dcg(relevance, rnk, 3, 'linear', 'log2', 2) AS dcg,
               rw_relret(relevance, rnk, 1, 2) / 2 AS p2,
               rw_recip0(rw_first_rel(relevance, rnk, 1, NULL)) AS rr
        FROM (SELECT *, row_number() OVER (PARTITION BY query_id ORDER BY score DESC) AS rnk FROM j)
        GROUP BY query_id
    """).fetchall()
    import math
    assert row == [("q", pytest.approx(1 / math.log2(3) + 2 / 2), 0.5, 0.5)]


def test_reciprocal_discount_in_the_macros_and_to_sql() -> None:
    """discount='reciprocal' divides the gain by the rank in rw_discount, in a user's window
    query over rw_dcg, and in rw.sql_expr's nDCG, whose ideal is discounted the same way:
    relevances [0, 1, 2] ranked 1, 2, 3 give DCG@3 = 1/2 + 2/3 and IDCG@3 = 2/1 + 1/2."""
    con = rw.register(duckdb.connect())
    assert con.sql("SELECT rw_discount(1, 'reciprocal', 2), rw_discount(3, 'reciprocal', 2)").fetchall() == [(1.0, 3.0)]
    con.execute("CREATE TABLE j AS SELECT * FROM (VALUES ('q', 'a', 3.0, 0), ('q', 'b', 2.0, 1), ('q', 'c', 1.0, 2)) v(query_id, doc_id, score, relevance)")
    row = con.sql("""
        SELECT query_id, rw_dcg(relevance, rnk, 3, 'linear', 'reciprocal', 2) AS dcg
        FROM (SELECT *, row_number() OVER (PARTITION BY query_id ORDER BY score DESC) AS rnk FROM j)
        GROUP BY query_id
    """).fetchall()
    assert row == [("q", pytest.approx(1 / 2 + 2 / 3, abs=1e-12))]
    run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "relevance": [0, 1, 2]})
    con.register("judged", rw.judged_frame(qrels, run))
    ndcg = rw.sql_expr("nDCG(discount='reciprocal')@3")
    got = con.sql(f"SELECT query_id, {ndcg} AS v FROM judged GROUP BY query_id").fetchall()
    assert got == [("q", pytest.approx((1 / 2 + 2 / 3) / (2 + 1 / 2), abs=1e-12))]


def test_injected_table_names_are_values_not_sql() -> None:
    con = rw.register(duckdb.connect())
    con.execute("CREATE TABLE t AS SELECT 1 AS x")
    with pytest.raises(duckdb.Error):
        con.sql("SELECT * FROM rw_evaluate('qrels', 'x''); DROP TABLE t; --')").fetchall()
    assert con.sql("SELECT x FROM t").fetchall() == [(1,)]


def test_duckdb_engine_uses_sql(monkeypatch: pytest.MonkeyPatch) -> None:
    """engine='duckdb' never calls the Polars engine."""
    import rankwise._polars.engine as polars_engine

    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("the Polars engine was used")

    monkeypatch.setattr(polars_engine, "evaluate_lazy", boom)
    run = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    assert rw.evaluate(qrels, run, ["AP"], engine="duckdb")["AP"][0] == 1.0


def test_a_built_wheel_ships_the_sql_files(tmp_path: Path) -> None:
    """`pip install .` (not only editable) must carry sql/ inside the package."""
    import subprocess
    import sys
    import zipfile

    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(tmp_path)],
        check=True, capture_output=True, timeout=300,
    )
    (wheel,) = tmp_path.glob("rankwise-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for path in sorted((ROOT / "sql").glob("*.sql")):
        assert f"rankwise/sql/{path.name}" in names
    assert "rankwise/py.typed" in names


def test_the_duckdb_cli_reads_the_files(tmp_path: Path) -> None:
    """The files load in the DuckDB command line with `.read` (package duckdb-cli)."""
    import shutil
    import subprocess

    exe = shutil.which("duckdb")
    assert exe, "the DuckDB CLI is missing: pip install -e '.[dev]' installs duckdb-cli"
    run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "c"], "relevance": [1, 2]})
    run.write_parquet(tmp_path / "run.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    reads = "".join(f".read {p}\n" for p in sorted((ROOT / "sql").glob("*.sql")))
    script = reads + ".mode csv\n" + (
        f"SELECT query_id, \"AP\", \"nDCG@k\" FROM rw_evaluate('{tmp_path / 'qrels.parquet'}', "
        f"'{tmp_path / 'run.parquet'}', k := 10);\n"
    )
    out = subprocess.run([exe, "-batch"], input=script, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    import io

    got = pl.read_csv(io.StringIO(out.stdout))
    expected = rw.evaluate(qrels, run, ["AP", "nDCG@10"])
    assert got["query_id"].to_list() == ["q1", "q2"]
    assert got["AP"].to_list() == expected["AP"].to_list()
    assert (got["nDCG@k"] - expected["nDCG@10"]).abs().max() < 1e-12  # type: ignore[operator]


def test_checks_run_with_one_more_thread_unless_threads_were_chosen() -> None:
    from rankwise._duckdb.engine import _check_threads

    con = duckdb.connect(config={"threads": 2})
    setting = "SELECT current_setting('threads')"
    with _check_threads(con, True):
        assert con.sql(setting).fetchall() == [(3,)]
    assert con.sql(setting).fetchall() == [(2,)]
    with _check_threads(con, False):
        assert con.sql(setting).fetchall() == [(2,)]
    # a chosen thread count is kept, and the checks still find what they look for
    run = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "a"], "score": [1.0, 2.0]})
    with pytest.raises(rw.DuplicateDocumentError):
        rw.evaluate(pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]}), run, ["AP"],
                    engine="duckdb", duckdb_config={"threads": 1})


@contextmanager
def every_row() -> Iterator[None]:
    """For the while, no primitive declares ``judged_rows`` nor ``top_rows``: every statement
    aggregates every ranked row (the full ranking's values, which the judged rows' are checked
    against)."""
    from rankwise.primitives import Primitive, declared

    with pytest.MonkeyPatch.context() as patch:
        for cls in declared(Primitive):
            if cls.__dict__.get("judged_rows"):
                patch.setattr(cls, "judged_rows", False)
            if "top_rows" in cls.__dict__:
                patch.setattr(cls, "top_rows", property(lambda self: None))
        yield


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(30), deadline=None)
@given(
    case=cases(),
    ties=st.sampled_from(["trec_eval", "doc_asc", "optimistic", "pessimistic"]),
    max_rank=st.sampled_from([None, 1, 3]),
    rel=st.sampled_from([1, 2, 0.5]),
    missing=st.sampled_from(["zero", "ignore"]),
)
def test_judged_rows_plan_gives_the_full_rankings_values(case: Case, ties: str, max_rank: int | None,
                                                          rel: float, missing: str) -> None:
    """When every primitive ignores unjudged documents (declares judged_rows), the SQL keeps only the
    judged rows (and each query's top row and deepest rank, from which NumRet counts the ranked
    rows) after ranking. all_trec's primitives all read those rows, or the top rows alone
    (relstring: top_rows), which are kept too (rank <= 10): one aggregation, no row of every
    rank. Beside a primitive that reads every row (Judged without a cutoff), those
    primitives still aggregate the judged rows, the other every row, and the two aggregations
    are joined. All give the values of the full rows, which every statement aggregates when no
    primitive declares judged_rows nor top_rows."""
    from rankwise._sql.compiler import build_sql
    from rankwise.conventions import Columns, Conventions
    from rankwise.metrics.recipes import recipe
    from rankwise.names.parse import parse_metrics
    from rankwise.primitives import leaves

    every = parse_metrics(["all_trec"])
    mixed = [*every, *parse_metrics(["Judged"])]
    safe = [
        m for m in every
        if all(leaf.judged_rows for leaf in leaves(recipe(m, {})) if leaf.side == "run")
        and m.spec.value_type == "float"
    ]
    assert {"map", "ndcg_cut_10", "P_10", "bpref", "infAP", "recip_rank", "num_ret", "G", "ndcg_rel"} <= {
        m.label for m in safe
    }
    conv, cols = Conventions(max_rank=max_rank), Columns()
    judged_sql, all_sql = build_sql(safe, conv, cols, "r", "q"), build_sql(every, conv, cols, "r", "q")
    both_sql = build_sql(mixed, conv, cols, "r", "q")
    assert "OR rnk0 = 1" in judged_sql and "agr0" not in judged_sql
    assert "OR rnk0 <= 10 OR" in all_sql and "agr0" not in all_sql and "ranks0" not in all_sql
    assert "OR rnk0 <= 10 OR" in both_sql and "agj0" in both_sql and "agr0" in both_sql
    run, qrels = case.run_frame(), case.qrels_frame()
    kw: dict[str, Any] = dict(ties=ties, max_rank=max_rank, rel=rel, missing=missing, engine="duckdb")
    judged = rw.evaluate(qrels, run, safe, **kw)
    alltrec = rw.evaluate(qrels, run, every, **kw)
    both = rw.evaluate(qrels, run, mixed, **kw)
    with every_row():
        assert "OR rnk0" not in build_sql(mixed, conv, cols, "r", "q")
        full = rw.evaluate(qrels, run, mixed, **kw)
    assert_frame_equal(both, full, check_exact=False, abs_tol=1e-12, rel_tol=0)
    assert_frame_equal(alltrec, full.select(alltrec.columns), check_exact=False, abs_tol=1e-12, rel_tol=0)
    assert_frame_equal(judged, full.select(judged.columns), check_exact=False, abs_tol=1e-12, rel_tol=0)


def test_judged_rows_beside_every_row_count_the_unjudged_queries() -> None:
    """A statement aggregating the judged rows (AP's running sum among them) beside every row
    keeps each run query once, counts the run queries with no judgment at all
    (``count_unjudged``) as the full rows do, and gives an empty ranking (a judged query the run
    lacks) the empty values. The aggregation of every row joins the judgments' per-query values
    only when it reads one: G read there (GSum taken as not declaring judged_rows) reads them.
    Judged without a cutoff reads every row (the others all read the judged rows, or the top
    rows alone: relstring keeps the rows down to rank 10); without it, one aggregation of those
    rows gives the same values."""
    from rankwise._sql.compiler import UNJUDGED_COLUMN, build_sql
    from rankwise.conventions import Columns, Conventions
    from rankwise.names.parse import parse_metrics
    from rankwise.primitives import GSum

    run = pl.DataFrame({
        "query_id": ["a", "a", "a", "u", "u", "v"],
        "doc_id": ["a1", "a2", "a3", "u1", "u2", "v1"],
        "score": [3.0, 2.0, 1.0, 2.0, 1.0, 1.0],
    })
    qrels = pl.DataFrame({"query_id": ["a", "a", "b"], "doc_id": ["a2", "ax", "b1"], "relevance": [2, 1, 1]})
    metrics = parse_metrics(["P_5", "map", "ndcg_cut_10", "unj_5", "relstring", "Rndcg", "num_ret", "G", "Judged"])
    con = rw.register(duckdb.connect())
    con.register("run", run)
    con.register("qrels", qrels)
    outs = []
    for plan in ("split", "G over every row", "full", "judged rows"):
        with contextlib.ExitStack() as stack:
            if plan == "full":
                stack.enter_context(every_row())
            elif plan == "G over every row":
                stack.enter_context(pytest.MonkeyPatch.context()).setattr(GSum, "judged_rows", False)
            chosen = metrics[:-1] if plan == "judged rows" else metrics
            sql = build_sql(chosen, Conventions(missing="zero"), Columns(), "run", "qrels", count_unjudged=True)
        assert ("agj0" in sql) is (plan in ("split", "G over every row"))
        assert ("OR rnk0 <= 10 OR" in sql) is (plan != "full")
        rest = sql[sql.find("rowsr0 AS"):sql.find("agr0 AS")]
        assert ("JOIN qs" in rest) is (plan == "G over every row")
        outs.append(con.sql(sql).pl())
    assert_frame_equal(outs[0], outs[2], check_exact=False, abs_tol=1e-12)
    assert_frame_equal(outs[1], outs[2], check_exact=False, abs_tol=1e-12)
    assert_frame_equal(outs[3], outs[2].drop("Judged"), check_exact=False, abs_tol=1e-12)
    got = outs[0]
    assert got["query_id"].to_list() == ["a", "b"]
    assert got[UNJUDGED_COLUMN].to_list() == [2, 2]  # u and v
    b = got.row(1, named=True)
    assert (b["P_5"], b["unj_5"], b["relstring"], b["num_ret"]) == (0.0, 0.0, "", 0.0)
    a = got.row(0, named=True)
    assert (a["P_5"], a["map"], a["unj_5"], a["relstring"], a["num_ret"]) == (0.2, 0.25, 0.4, "-2-", 3.0)


@pytest.mark.parametrize("max_rank", [None, 3, 10])
def test_num_ret_is_the_deepest_rank_the_judged_rows_keep(max_rank: int | None) -> None:
    """NumRet beside measures of the judged rows alone: the statement keeps the judged rows,
    each query's top row and its deepest rank (its last row, the row at max_rank), and counts
    the ranked rows from it. Query a ranks 5 documents, one judged (the 2nd); query b 2, none
    judged (b is judged elsewhere); c 4, its last one judged. num_ret = min(rows, max_rank);
    P@5 = 1/5 for a (its judged document within the cut), 0 for b, 1/5 for c unless cut
    at 3; on both engines and through rw.to_sql."""
    run = pl.DataFrame({
        "query_id": ["a"] * 5 + ["b"] * 2 + ["c"] * 4,
        "doc_id": ["a1", "a2", "a3", "a4", "a5", "b1", "b2", "c1", "c2", "c3", "c4"],
        "score": [5.0, 4.0, 3.0, 2.0, 1.0, 2.0, 1.0, 4.0, 3.0, 2.0, 1.0],
    })
    qrels = pl.DataFrame({"query_id": ["a", "b", "c"], "doc_id": ["a2", "bx", "c4"], "relevance": [1, 1, 1]})
    metrics = ["num_ret", "P@5"]
    cap = max_rank or 100
    want = pl.DataFrame({
        "query_id": ["a", "b", "c"],
        "num_ret": [float(min(5, cap)), float(min(2, cap)), float(min(4, cap))],
        "P@5": [0.2, 0.0, 0.2 if cap >= 4 else 0.0],
    })
    from rankwise._sql.compiler import build_sql
    from rankwise.conventions import Columns, Conventions
    from rankwise.names.parse import parse_metrics

    assert "OR last0 = 1.0" in build_sql(parse_metrics(metrics), Conventions(max_rank=max_rank), Columns(), "r", "q")
    for engine in ("polars", "duckdb"):
        got = rw.evaluate(qrels, run, metrics, engine=engine, max_rank=max_rank)
        assert_frame_equal(got, want, check_exact=False, abs_tol=1e-12)
    con = rw.register(duckdb.connect())
    con.register("run", run)
    con.register("qrels", qrels)
    got = con.sql(f"SELECT * FROM ({rw.to_sql(metrics, max_rank=max_rank)}) ORDER BY 1").pl()
    assert_frame_equal(got, want, check_exact=False, abs_tol=1e-12)


def test_to_sql_inlines_large_metric_sets() -> None:
    """The inliner's budget grows with the statement: hundreds of metrics, each a formula of
    several operations, inline completely (an earlier fixed budget refused 62 F1 cutoffs)."""
    metrics = [f"F1@{k}" for k in range(1, 151)] + [f"Utility(a={a})" for a in range(1, 101)]
    sql = rw.to_sql(metrics, dialect="spark")
    from rankwise._sql.macros import macros

    assert not set(re.findall(r"\b(rw_\w+)\s*\(", sql)) & set(macros())


def test_rw_ideal_order_is_rw_judgments_unchecked() -> None:
    """The compiler reads the judgments through rw_ideal_order: the rows and ideal ranks of
    rw_judgments(..., checks := false), without its check's subquery in the plan."""
    con = rw.register(duckdb.connect())
    qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q1"], "doc_id": ["a", "b", "c", "d"],
                          "relevance": [1, 3, 2, 0]})
    con.register("qrels", qrels)
    ordered = "ORDER BY query_id, irank"
    assert con.sql(f"SELECT * FROM rw_ideal_order('qrels') {ordered}").fetchall() == con.sql(
        f"SELECT * FROM rw_judgments('qrels', checks := false) {ordered}"
    ).fetchall()

    def plan(sql: str) -> str:
        return "\n".join(str(row) for row in con.sql(f"EXPLAIN {sql}").fetchall()).lower()

    assert "hash group by" in plan("SELECT * FROM rw_judgments('qrels', checks := false)")
    assert "hash group by" not in plan("SELECT * FROM rw_ideal_order('qrels')")


def duckdb_cli(script: str) -> pl.DataFrame:
    """Run ``script`` in the DuckDB command-line binary (package duckdb-cli), output as CSV."""
    import io
    import shutil
    import subprocess

    exe = shutil.which("duckdb")
    assert exe, "the DuckDB CLI is missing: pip install -e '.[dev]' installs duckdb-cli"
    out = subprocess.run([exe, "-batch", "-csv"], input=script, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return pl.read_csv(io.StringIO(out.stdout))


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_the_duckdb_cli_reads_every_macro_from_one_file(tmp_path: Path, engine: str) -> None:
    """`.read sql/rankwise.sql` alone, in the DuckDB binary, installs every family's macros:
    rw_ndeval (sql/40_diversity.sql) and a C/W/L measure (sql/45_cwl.sql) give rw.evaluate's
    numbers and the hand-computed ones.

    Query q1 ranks a then b; a covers subtopic s1, b covers s1 and s2 (every judgment 1).
    alpha-nDCG@2 (alpha = 0.5): the run's gains are 1 (a: s1 new) and 1.5 (b: s1 seen once,
    0.5, and s2 new, 1), DCG = 1 + 1.5 / log2(3); the greedy ideal ranks b (gain 2) then a
    (0.5), IDCG = 2 + 0.5 / log2(3). P-IA@2 = mean over s1, s2 of P@2 = (2/2 + 1/2) / 2 = 0.75.
    SDCG@2 (cwl_eval's scaled DCG, gain clip(rel, 0, 1)): the run a (1), b (0):
    (1 / log2(2)) / (1 / log2(2) + 1 / log2(3)) = 1 / (1 + 1 / log2(3))."""
    import math

    run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    subtopics = pl.DataFrame({
        "query_id": ["q1", "q1", "q1"], "subtopic": ["s1", "s1", "s2"], "doc_id": ["a", "b", "b"],
        "relevance": [1, 1, 1],
    })
    qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    run.write_parquet(tmp_path / "run.parquet")
    subtopics.write_parquet(tmp_path / "subtopics.parquet")
    rw.judged_frame(qrels, run).write_parquet(tmp_path / "judged.parquet")
    read = f".read {ROOT / 'sql' / 'rankwise.sql'}\n"

    ndeval = duckdb_cli(read + (
        f"SELECT * FROM rw_ndeval('{tmp_path / 'subtopics.parquet'}', '{tmp_path / 'run.parquet'}', k := 2);\n"
    ))
    names = ["alpha-nDCG@2", "nERR-IA@2", "NRBP", "nNRBP", "MAP-IA", "P-IA@2", "strec@2"]
    want = rw.evaluate(subtopics, run, names, subtopic="subtopic", engine=engine)
    assert ndeval["query_id"].to_list() == ["q1"]
    for label, name in zip(ndeval.columns[1:], names, strict=True):
        assert ndeval[label][0] == pytest.approx(want[name][0], abs=1e-12), name
    hand = (1 + 1.5 / math.log2(3)) / (2 + 0.5 / math.log2(3))
    assert ndeval["alpha-nDCG@k"][0] == pytest.approx(hand, abs=1e-12)
    assert ndeval["P-IA@k"][0] == pytest.approx(0.75, abs=1e-12)

    cwl = duckdb_cli(read + (
        f"CREATE TABLE judged AS FROM '{tmp_path / 'judged.parquet'}';\n"
        f"SELECT query_id, {rw.sql_expr('SDCG@2')} AS sdcg FROM judged GROUP BY query_id;\n"
    ))
    expected = rw.evaluate(qrels, run, ["SDCG@2"], engine=engine)["SDCG@2"][0]
    assert cwl["sdcg"][0] == pytest.approx(expected, abs=1e-12)
    assert cwl["sdcg"][0] == pytest.approx(1 / (1 + 1 / math.log2(3)), abs=1e-12)


def test_the_readme_s_duckdb_command_line(tmp_path: Path) -> None:
    """The form docs/sql.md gives (moved from the README): `duckdb -c ".read sql/rankwise.sql"
    -c "SELECT ..."`, from the project's folder."""
    import shutil
    import subprocess

    exe = shutil.which("duckdb")
    assert exe, "the DuckDB CLI is missing: pip install -e '.[dev]' installs duckdb-cli"
    out = subprocess.run(
        [exe, "-csv", "-c", ".read sql/rankwise.sql", "-c", "SELECT rw_gain(3, 'exponential') AS g, rw_discount(3, 'log2', 2) AS d"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["g,d", "7.0,2.0"]
