"""Diversity (intent-aware) measures of TREC's ndeval: α-DCG, α-nDCG, ERR-IA, nERR-IA, NRBP,
nNRBP, AP-IA (MAP-IA), P-IA, subtopic recall; subtopic qrels on every input path.

The oracle is PyPI ``pyndeval`` (ndeval.c itself, per query), directly and through
ir-measures' pyndeval provider; every engine (Polars, DuckDB, Spark) must agree with it per
query to 1e-9 on random subtopic qrels with ties in scores, unjudged documents, queries without
a relevant subtopic, queries in only one of run and qrels, integer and string ids."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankwise as rw
from tests.conftest import run_on, run_on_spark

pyndeval = pytest.importorskip("pyndeval")

# a query only in the run is not scored (as in ndeval and trec_eval), with a warning
pytestmark = pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")

NDEVAL = [
    "ERR-IA@1", "ERR-IA@5", "ERR-IA@10", "ERR-IA@20", "nERR-IA@1", "nERR-IA@5", "nERR-IA@20",
    "alpha-DCG@1", "alpha-DCG@5", "alpha-DCG@20", "alpha-nDCG@1", "alpha-nDCG@5", "alpha-nDCG@10", "alpha-nDCG@20",
    "NRBP", "nNRBP", "MAP-IA", "P-IA@1", "P-IA@5", "P-IA@20", "strec@1", "strec@5", "strec@20",
]


def random_case(seed: int, int_ids: bool = False) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Subtopic qrels and a run: ties in scores, unjudged documents, a query without a relevant
    subtopic, queries in only the run or only the qrels."""
    rng = random.Random(seed)
    qrels: list[tuple[Any, Any, Any, int]] = []
    run: list[tuple[Any, Any, float]] = []
    nq = rng.randint(3, 6)
    for q in range(nq):
        qid: Any = q + 1 if int_ids else f"q{q + 1}"
        pool = rng.sample(range(1, 60), rng.randint(3, 16))
        docs: list[Any] = [d if int_ids else f"d{d}" for d in pool]
        subtopics: list[Any] = list(range(1, rng.randint(1, 5) + 1))
        if not int_ids:
            subtopics = [f"s{s}" for s in subtopics]
        nothing = q == 0  # a query with no relevant subtopic
        in_qrels = q != nq - 1  # the last query is only in the run
        in_run = q != 1  # the second query is only in the qrels
        if in_qrels:
            for d in docs:
                for s in subtopics:
                    if rng.random() < 0.45:
                        qrels.append((qid, s, d, 0 if nothing else rng.choice([0, 1, 1, 2])))
            if not any(r[0] == qid for r in qrels):
                qrels.append((qid, subtopics[0], docs[0], 0))
        if in_run:
            ranked = rng.sample(docs, rng.randint(1, len(docs)))
            ranked += [(100 + i if int_ids else f"u{i}") for i in range(rng.randint(0, 4))]  # unjudged
            for d in ranked:
                run.append((qid, d, float(rng.choice([1, 2, 2, 3, 4, 5, 5]))))
    kind = pl.Int64 if int_ids else pl.String
    q_frame = pl.DataFrame(
        qrels, schema={"query_id": kind, "subtopic": kind, "doc_id": kind, "relevance": pl.Int64}, orient="row"
    )
    r_frame = pl.DataFrame(run, schema={"query_id": kind, "doc_id": kind, "score": pl.Float64}, orient="row")
    return r_frame, q_frame


def oracle(run: pl.DataFrame, qrels: pl.DataFrame, measures: list[str], **kw: float) -> dict[str, dict[str, float]]:
    """pyndeval per query (it ranks by score, ties by doc id ascending: rankwise's 'doc_asc')."""
    q = [(str(a), str(b), str(c), int(d)) for a, b, c, d in qrels.iter_rows()]
    r = [(str(a), str(b), float(c)) for a, b, c in run.sort("query_id").iter_rows()]
    return pyndeval.ndeval(q, r, measures=measures, **kw)  # type: ignore[no-any-return]


def assert_matches(result: pl.DataFrame, expected: dict[str, dict[str, float]], measures: list[str]) -> None:
    got = {str(row["query_id"]): row for row in result.iter_rows(named=True)}
    assert set(got) == set(expected)
    for qid, values in expected.items():
        for m in measures:
            want = values[m]
            if math.isnan(want):  # ndeval's nNRBP of a query without a relevant subtopic: 0/0
                assert m == "nNRBP" and got[qid][m] == 0.0, (qid, m, got[qid][m])
                continue
            assert got[qid][m] == pytest.approx(want, abs=1e-9, rel=0), (qid, m, got[qid][m], want)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_random_subtopic_qrels_match_pyndeval(engine: str, seed: int) -> None:
    run, qrels = random_case(seed, int_ids=seed % 3 == 0)
    result = run_on(engine, qrels, run, NDEVAL, subtopic="subtopic", ties="doc_asc")
    assert_matches(result, oracle(run, qrels, NDEVAL), NDEVAL)


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_spark_matches_pyndeval(spark: Any) -> None:
    for seed, int_ids in ((4, False), (6, True)):
        run, qrels = random_case(seed, int_ids=int_ids)
        result = run_on_spark(spark, qrels, run, NDEVAL, subtopic="subtopic", ties="doc_asc")
        assert_matches(result, oracle(run, qrels, NDEVAL), NDEVAL)


# -- ndeval's parameters and conventions -------------------------------------------------------


@pytest.mark.parametrize(
    ("alpha", "beta", "rel"), [(0.25, 0.5, 1), (0.75, 0.9, 1), (0.0, 0.3, 1), (1.0, 1.0, 1), (0.5, 0.5, 2), (0.3, 0.7, 1)]
)
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_alpha_beta_and_relevance_level_match_pyndeval(engine: str, alpha: float, beta: float, rel: int) -> None:
    names = ["ERR-IA@5", "nERR-IA@10", "alpha-DCG@5", "alpha-nDCG@5", "alpha-nDCG@20", "NRBP", "nNRBP", "MAP-IA", "P-IA@5", "strec@10"]
    ours = [
        f"ERR_IA(alpha={alpha}, rel={rel})@5", f"nERR_IA(alpha={alpha}, rel={rel})@10",
        f"alpha_DCG(alpha={alpha}, rel={rel})@5", f"alpha_nDCG(alpha={alpha}, rel={rel})@5",
        f"alpha_nDCG(alpha={alpha}, rel={rel})@20", f"NRBP(alpha={alpha}, beta={beta}, rel={rel})",
        f"nNRBP(alpha={alpha}, beta={beta}, rel={rel})", f"AP_IA(rel={rel})", f"P_IA(rel={rel})@5",
        f"StRecall(rel={rel})@10",
    ]
    for seed in range(20, 26):
        run, qrels = random_case(seed, int_ids=seed % 2 == 0)
        result = run_on(engine, qrels, run, ours, subtopic="subtopic", ties="doc_asc")
        expected = pyndeval.RelevanceEvaluator(
            [(str(a), str(b), str(c), int(d)) for a, b, c, d in qrels.iter_rows()], names,
            relevance_level=rel, alpha=alpha, beta=beta,
        ).evaluate([(str(a), str(b), float(c)) for a, b, c in run.sort("query_id").iter_rows()])
        assert_matches(result.rename(dict(zip(ours, names, strict=True))), expected, names)


def _renumbered(run: pl.DataFrame, ties: str, max_rank: int | None = None) -> pl.DataFrame:
    """The run with distinct scores in rankwise's order under ``ties`` (cut at ``max_rank``):
    what ndeval reads from a file's rank field."""
    order = run.with_columns(pl.col("doc_id").cast(pl.String).alias("t")).sort(
        ["query_id", "score", "t"], descending=[False, True, ties == "trec_eval"]
    )
    ranked = order.with_columns(pl.int_range(1, pl.len() + 1).over("query_id").alias("r"))
    if max_rank is not None:
        ranked = ranked.filter(pl.col("r") <= max_rank)
    return ranked.select("query_id", "doc_id", (-pl.col("r").cast(pl.Float64)).alias("score"))


@pytest.mark.parametrize(("ties", "max_rank"), [("trec_eval", None), ("trec_eval", 4), ("doc_asc", 3)])
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_traditional_order_and_depth_cut_match_ndeval(engine: str, ties: str, max_rank: int | None) -> None:
    """ties='trec_eval' is ndeval -traditional (score, then doc id descending); max_rank is
    ndeval -M: ndeval then reads the ranks so made."""
    for seed in range(30, 36):
        run, qrels = random_case(seed, int_ids=seed % 2 == 1)
        result = run_on(engine, qrels, run, NDEVAL, subtopic="subtopic", ties=ties, max_rank=max_rank)
        assert_matches(result, oracle(_renumbered(run, ties, max_rank), qrels, NDEVAL), NDEVAL)


def test_ir_measures_names_and_provider() -> None:
    """ir-measures' names, computed by its pyndeval provider (the qrels' ``iteration`` is the
    subtopic), equal rankwise's per query."""
    ir_measures = pytest.importorskip("ir_measures")
    names = [
        "alpha_nDCG@20", "alpha_nDCG(alpha=0.3)@10", "alpha_DCG@5", "ERR_IA@20", "nERR_IA@20", "NRBP", "nNRBP",
        "NRBP(alpha=0.25,beta=0.8)", "AP_IA", "P_IA@10", "StRecall@20", "AP_IA(rel=2)",
    ]
    for seed in (40, 41, 42):
        run, qrels = random_case(seed)
        ir_qrels = qrels.rename({"subtopic": "iteration"}).to_pandas()
        provider = ir_measures.providers.registry["pyndeval"]
        expected: dict[str, dict[str, float]] = {}
        # one measure per call: the provider hands its run iterator to its first pyndeval
        # invocation only (measures of another alpha, beta or rel then all read 0)
        for name in names:
            for m in provider.iter_calc([ir_measures.parse_measure(name)], ir_qrels, run.to_pandas()):
                expected.setdefault(m.query_id, {})[str(m.measure)] = m.value
        # ir-measures scores a judged query missing from the run as 0: missing='zero'
        result = rw.evaluate(qrels, run, names, subtopic="subtopic", ties="doc_asc", missing="zero")
        labels = {str(ir_measures.parse_measure(n)): n for n in names}
        assert_matches(result, {q: {labels[k]: v for k, v in vals.items()} for q, vals in expected.items()}, names)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_ordinary_qrels_are_one_subtopic_per_query(engine: str) -> None:
    """Without a subtopic column each query's judgments are one subtopic, as ir-measures'
    provider reads 3-column qrels."""
    run, qrels = random_case(7)
    plain = qrels.group_by("query_id", "doc_id").agg(pl.col("relevance").max())
    result = run_on(engine, plain, run, NDEVAL, ties="doc_asc")
    one = plain.select("query_id", pl.lit("0").alias("subtopic"), "doc_id", "relevance")
    assert_matches(result, oracle(run, one, NDEVAL), NDEVAL)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_other_measures_read_a_documents_largest_relevance(engine: str) -> None:
    """On subtopic qrels every other measure sees a document's largest relevance over its
    subtopics (ndeval's own MAP: relevant to any subtopic, relevant to the query)."""
    run, qrels = random_case(8)
    names = ["AP", "nDCG@10", "P@5", "Bpref", "NumRel", "alpha-nDCG@10"]
    got = run_on(engine, qrels, run, names, subtopic="subtopic")
    plain = qrels.group_by("query_id", "doc_id").agg(pl.col("relevance").max())
    want = run_on(engine, plain, run, names[:-1])
    assert got.drop("alpha-nDCG@10").sort("query_id").equals(want.sort("query_id"))


# -- hand-checked cases --------------------------------------------------------------------------

GOLDEN_QRELS = pl.DataFrame(
    {"query_id": ["q"] * 3 + ["z"], "subtopic": ["s1", "s1", "s2", "s1"], "doc_id": ["a", "b", "b", "a"], "relevance": [1, 1, 1, 0]}
)


def _golden(engine: str, run: pl.DataFrame, names: list[str], **kw: Any) -> dict[str, float]:
    result = run_on(engine, GOLDEN_QRELS, run, names, subtopic="subtopic", **kw)
    return result.filter(pl.col("query_id") == "q").row(0, named=True)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_golden_two_subtopics(engine: str) -> None:
    """q: s1 = {a, b}, s2 = {b}; the run ranks b, a. Gains (α = 0.5): rank 1 covers s1 and s2
    (1 + 1), rank 2 covers s1 again (0.5); the greedy ideal is the same order."""
    run = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["b", "a"], "score": [2.0, 1.0]})
    v = _golden(engine, run, ["alpha-DCG@2", "alpha-nDCG@2", "ERR-IA@2", "P-IA@2", "P-IA@5", "strec@1", "MAP-IA", "NRBP", "nNRBP"])
    log3 = math.log2(3)
    assert v["alpha-DCG@2"] == pytest.approx((2 + 0.5 / log3) / (2 * (1 + 0.5 / log3)), abs=1e-15)
    assert v["alpha-nDCG@2"] == pytest.approx(1.0, abs=1e-15)
    assert v["ERR-IA@2"] == pytest.approx(2.25 / 2.5, abs=1e-15)
    assert v["P-IA@2"] == 0.75
    assert v["P-IA@5"] == 0.3  # k past the list: still divided by k
    assert v["strec@1"] == 1.0
    assert v["MAP-IA"] == 1.0
    assert v["NRBP"] == pytest.approx((1 - 0.5 * 0.5) / 2 * (2 + 0.5 * 0.5), abs=1e-15)
    assert v["nNRBP"] == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_golden_edges(engine: str) -> None:
    # all ties: doc_asc ranks a then b (pyndeval), trec_eval b then a (ndeval -traditional)
    tied = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    asc = _golden(engine, tied, ["strec@1", "alpha-nDCG@2"], ties="doc_asc")
    assert asc["strec@1"] == 0.5  # a covers s1 only
    assert asc["alpha-nDCG@2"] < 1.0
    assert _golden(engine, tied, ["strec@1", "alpha-nDCG@2"], ties="trec_eval") == {
        "query_id": "q", "strec@1": 1.0, "alpha-nDCG@2": 1.0,
    }
    # unjudged documents only: every measure is 0
    unjudged = pl.DataFrame({"query_id": ["q", "z"], "doc_id": ["x", "y"], "score": [1.0, 1.0]})
    names = [n for n in NDEVAL]
    result = run_on(engine, GOLDEN_QRELS, unjudged, names, subtopic="subtopic")
    for row in result.iter_rows(named=True):
        assert all(row[n] == 0.0 for n in names), row
    # no relevant subtopic (query z): 0, nNRBP too (ndeval: 0/0)
    run = pl.DataFrame({"query_id": ["z"], "doc_id": ["a"], "score": [1.0]})
    z = run_on(engine, GOLDEN_QRELS, run, names, subtopic="subtopic").row(0, named=True)
    assert all(z[n] == 0.0 for n in names), z


# -- inputs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_trec_parquet_and_csv_subtopic_qrels(engine: str, tmp_path: Path) -> None:
    run, qrels = random_case(9)
    names = ["alpha-nDCG@20", "ERR_IA@10", "NRBP", "AP", "P@5"]
    want = run_on(engine, qrels, run, names, subtopic="subtopic")
    trec = tmp_path / "div.qrels"
    trec.write_text("".join(f"{q} {s} {d} {r}\n" for q, s, d, r in qrels.iter_rows()))
    run_file = tmp_path / "div.run"
    run_file.write_text("".join(f"{q} Q0 {d} 0 {s} tag\n" for q, d, s in run.iter_rows()))
    qrels.write_parquet(tmp_path / "q.parquet")
    qrels.write_csv(tmp_path / "q.csv")
    for path in (trec, tmp_path / "q.parquet", tmp_path / "q.csv"):
        got = rw.evaluate(path, run_file, names, engine=engine, subtopic="subtopic")
        assert_frame_equal(got, want, check_exact=False, abs_tol=1e-12, rel_tol=0)


def test_cli_subtopic_qrels(tmp_path: Path) -> None:
    import subprocess
    import sys

    run, qrels = random_case(3)
    (tmp_path / "div.qrels").write_text("".join(f"{q} {s} {d} {r}\n" for q, s, d, r in qrels.iter_rows()))
    (tmp_path / "div.run").write_text("".join(f"{q} Q0 {d} 0 {s} tag\n" for q, d, s in run.iter_rows()))
    out = subprocess.run(
        [sys.executable, "-m", "rankwise.cli", "eval", str(tmp_path / "div.qrels"), str(tmp_path / "div.run"),
         "-m", "alpha-nDCG@20", "-m", "strec@5", "--subtopic-col", "--format", "csv"],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    want = rw.summarize(rw.evaluate(qrels, run, ["alpha-nDCG@20", "strec@5"], subtopic="subtopic"))
    got = pl.read_csv(out.stdout.encode())
    assert got["alpha-nDCG@20"][0] == pytest.approx(want["alpha-nDCG@20"][0], abs=1e-12) and got["alpha-nDCG@20"][0] > 0
    assert got["strec@5"][0] == pytest.approx(want["strec@5"][0], abs=1e-12)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_bad_subtopic_qrels_name_the_problem(engine: str) -> None:
    run = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
    with pytest.raises(rw.errors.MissingColumnError, match="subtopic"):
        run_on(engine, GOLDEN_QRELS.drop("subtopic"), run, ["NRBP"], subtopic="subtopic")
    twice = pl.concat([GOLDEN_QRELS, GOLDEN_QRELS.head(1)])
    with pytest.raises(rw.errors.DuplicateDocumentError, match="more than once for subtopic 's1' of query 'q'"):
        run_on(engine, twice, run, ["NRBP"], subtopic="subtopic")
    null = GOLDEN_QRELS.with_columns(pl.when(pl.col("doc_id") == "b").then(None).otherwise(pl.col("subtopic")).alias("subtopic"))
    with pytest.raises(rw.errors.InvalidValueError, match="subtopic column 'subtopic' holds a NULL"):
        run_on(engine, null, run, ["NRBP"], subtopic="subtopic")



# a value on one subtopic of a document judged on another too: reduced to the document's
# largest relevance it would hide (NaN on Polars, -inf everywhere); each case names the fault
SUBTOPIC_FAULTS = {
    "NaN relevance": (float("nan"), rw.errors.InvalidValueError, "column 'relevance' holds 1 NaN value"),
    "infinite relevance": (math.inf, rw.errors.InvalidValueError, "column 'relevance' holds 1 infinite value"),
    "negative infinite relevance": (-math.inf, rw.errors.InvalidValueError, "column 'relevance' holds 1 infinite value"),
    "NULL relevance": (None, rw.errors.InvalidValueError, "column 'relevance' holds 1 NULL value"),
}


def _faulty_subtopic_qrels(value: float | None) -> pl.DataFrame:
    """GOLDEN_QRELS with document 'b' of query 'q' judged ``value`` on subtopic 's2' (it is
    judged 1 on 's1')."""
    bad = (pl.col("doc_id") == "b") & (pl.col("subtopic") == "s2")
    return GOLDEN_QRELS.with_columns(
        pl.when(bad).then(pl.lit(value, pl.Float64)).otherwise(pl.col("relevance").cast(pl.Float64)).alias("relevance")
    )


@pytest.mark.parametrize("metric", ["AP", "alpha_nDCG(alpha=0.8)@10", "P@5"])
@pytest.mark.parametrize("fault", list(SUBTOPIC_FAULTS))
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_subtopic_qrels_get_every_check_of_qrels(engine: str, fault: str, metric: str) -> None:
    """Subtopic qrels are checked row by row as any qrels (before a document's judgments are
    reduced to their largest), on every measure."""
    value, error, message = SUBTOPIC_FAULTS[fault]
    run = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    with pytest.raises(error, match=f"{message}.*query 'q'"):
        run_on(engine, _faulty_subtopic_qrels(value), run, [metric], subtopic="subtopic")


@pytest.mark.parametrize("column", ["query_id", "doc_id"])
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_subtopic_qrels_with_null_ids(engine: str, column: str) -> None:
    run = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
    null = GOLDEN_QRELS.with_columns(pl.when(pl.col("doc_id") == "b").then(None).otherwise(pl.col(column)).alias(column))
    with pytest.raises(rw.errors.InvalidValueError, match=f"qrels's column '{column}' holds 2 NULL value"):
        run_on(engine, null, run, ["NRBP", "AP"], subtopic="subtopic")


@pytest.mark.parametrize("fault", list(SUBTOPIC_FAULTS))
def test_subtopic_qrels_faults_in_sql(fault: str) -> None:
    """The SQL macros (rankwise.to_sql with subtopic=) check subtopic qrels row by row too."""
    import duckdb

    con = rw.register(duckdb.connect())
    con.register("run", pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [2.0, 1.0]}))
    con.register("qrels", _faulty_subtopic_qrels(SUBTOPIC_FAULTS[fault][0]))
    for metric in ("AP", "alpha_nDCG@10"):
        with pytest.raises(duckdb.Error, match=r"column relevance holds a non-finite value \(NULL, NaN or infinite\) \(query 'q'\)"):
            con.sql(rw.to_sql([metric], subtopic="subtopic")).fetchall()


@pytest.mark.parametrize("fault", ["NaN relevance", "negative infinite relevance"])
def test_subtopic_qrels_faults_on_the_command_line(fault: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from rankwise.cli.commands import main

    value, _error, message = SUBTOPIC_FAULTS[fault]
    _faulty_subtopic_qrels(value).write_csv(tmp_path / "qrels.csv")
    pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [2.0, 1.0]}).write_csv(tmp_path / "run.csv")
    code = main(["eval", str(tmp_path / "qrels.csv"), str(tmp_path / "run.csv"), "-m", "AP", "--subtopic-col", "subtopic"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and err[0].startswith("rankwise: error: the qrels") and message in err[0], err

def test_explain_ends_at_the_value() -> None:
    run, qrels = random_case(3)
    for name in ("alpha-nDCG@5", "NRBP", "strec@20"):
        table = rw.explain(qrels, run, name, query="q3", subtopic="subtopic", ties="doc_asc")
        value = rw.evaluate(qrels, run, [name], subtopic="subtopic", ties="doc_asc").filter(pl.col("query_id") == "q3")
        assert table["value"][-1] == pytest.approx(value[name][0], abs=1e-12)
        assert table["value"][-1] > 0


def test_to_sql_checks_subtopic_qrels() -> None:
    import duckdb

    con = duckdb.connect()
    con.register("run", pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]}))
    con.register("qrels", pl.concat([GOLDEN_QRELS, GOLDEN_QRELS.head(1)]))
    with pytest.raises(duckdb.Error, match="judge document 'a' more than once for subtopic 's1' of query 'q'"):
        con.sql(rw.to_sql(["NRBP"], subtopic="subtopic")).fetchall()
    con.register("qrels", GOLDEN_QRELS)
    got = con.sql(rw.to_sql(["NRBP", "AP"], subtopic="subtopic")).pl()
    assert_frame_equal(got, rw.evaluate(GOLDEN_QRELS, con.table("run").pl(), ["NRBP", "AP"], subtopic="subtopic"))


def test_segments_of_subtopic_qrels() -> None:
    run, qrels = random_case(3)
    arms = pl.concat([run.with_columns(arm=pl.lit("a")), run.with_columns(arm=pl.lit("b"), score=-pl.col("score"))])
    out = rw.evaluate(qrels, arms, ["alpha-nDCG@10", "AP"], subtopic="subtopic", by="arm")
    alone = rw.evaluate(qrels, run, ["alpha-nDCG@10", "AP"], subtopic="subtopic")
    assert_frame_equal(out.filter(pl.col("arm") == "a").drop("arm"), alone, check_exact=False, abs_tol=1e-12)


@pytest.mark.parametrize("alpha", [0.0, 1e-5, 0.5])
@pytest.mark.parametrize("weight", ["log2", "rank"])
def test_ideal_ideal_beyond_its_exact_terms(alpha: float, weight: str) -> None:
    """Past rank 100000 the 'ideal ideal' integrates its smooth tail: against the plain sum."""
    from rankwise.metrics.recipes import ideal_ideal

    k = 300_000
    d = 1.0 - alpha
    exact = math.fsum(d ** (i - 1) / (math.log2(i + 1) if weight == "log2" else i) for i in range(1, k + 1))
    assert ideal_ideal(alpha, k, weight) == pytest.approx(exact, rel=1e-9)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_judged_only_matches_pyndeval_on_the_judged_documents(engine: str) -> None:
    """ir-measures' judged_only (on ERR_IA, nERR_IA, alpha_DCG, alpha_nDCG, AP_IA, P_IA): the
    run without its unjudged documents, ranked again. (ir-measures' own provider fails on it:
    it indexes its run iterator as a dict; the oracle is pyndeval on the filtered run, what the
    provider means to compute.)"""
    pairs = {
        "alpha_nDCG(judged_only=True)@20": "alpha-nDCG@20", "ERR_IA(judged_only=True)@10": "ERR-IA@10",
        "nERR_IA(judged_only=True)@10": "nERR-IA@10", "AP_IA(judged_only=True)": "MAP-IA",
        "P_IA(judged_only=True)@5": "P-IA@5", "alpha_DCG(judged_only=True)@5": "alpha-DCG@5",
    }
    for seed in (50, 51, 52):
        run, qrels = random_case(seed, int_ids=seed == 51)
        judged = run.join(qrels.select("query_id", "doc_id").unique(), on=["query_id", "doc_id"], how="semi")
        result = run_on(engine, qrels, run, list(pairs), subtopic="subtopic", ties="doc_asc")
        expected = oracle(judged, qrels, list(pairs.values()))
        for q in {str(x) for x in run["query_id"]} & {str(x) for x in qrels["query_id"]} - set(expected):
            expected[q] = dict.fromkeys(pairs.values(), 0.0)  # nothing judged retrieved: pyndeval has no row
        assert_matches(result.rename(pairs), expected, list(pairs.values()))


def test_rw_ndeval_macro() -> None:
    import duckdb

    from rankwise._duckdb.macros import register

    run, qrels = random_case(5)
    con = register(duckdb.connect())
    con.register("run", run)
    con.register("qrels", qrels)
    got = con.sql("SELECT * FROM rw_ndeval('qrels', 'run', k := 10)").pl()
    names = ["alpha-nDCG@10", "nERR-IA@10", "NRBP", "nNRBP", "MAP-IA", "P-IA@10", "strec@10"]
    want = rw.evaluate(qrels, run, names, subtopic="subtopic")
    got.columns = want.columns
    assert_frame_equal(got, want, check_exact=False, abs_tol=1e-12)
    con.register("qrels", pl.concat([qrels, qrels.head(1)]))
    with pytest.raises(duckdb.Error, match="more than once for subtopic"):
        con.sql("SELECT * FROM rw_ndeval('qrels', 'run')").fetchall()
