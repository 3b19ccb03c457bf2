"""``empty=``: what a query with nothing relevant scores (0, 1, 'skip', 'error'), a parameter of
nDCG, AP, P, R, RR, Success, Rprec and RelP and a convention, checked against the libraries that
choose each value (LightGBM, XGBoost, CatBoost, rectools; torchmetrics' values from its source),
on both engines, the SQL macros, to_sql, the command line and Spark; and ``'error'`` on each
path. The oracles' conventions are in /work/scratch/oracles/FINDINGS.md (issue 34)."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.metrics.recipes import recipe
from rankwise.metrics.registry import SPECS
from rankwise.primitives import Node, Op, WhenEmpty
from tests import oracles
from tests.conftest import close_rows, run_on
from tests.strategies import Case, cases
from tests.tiers import examples

WITH_EMPTY = [spec for spec in SPECS if (found := spec.param("empty")) is not None and found.convention == "empty"]
"""The metrics whose value with nothing relevant the ``empty`` convention sets (AUC's own ``empty``,
for a list of one class, is another parameter: tests/metrics/test_auc.py)."""
BOTH = ("polars", "duckdb")


Lists = dict[str, list[tuple[float, int]]]
"""Each query's scored list in input order: (score, label); every document is judged."""


@st.composite
def _lists(draw: st.DrawFn, top: int = 3) -> Lists:
    """Queries of 1 to 8 documents, scores from a few values (ties), labels 0..``top``; some
    queries have nothing relevant (every label 0)."""
    out: Lists = {}
    for q in range(draw(st.integers(1, 6))):
        n = draw(st.integers(1, 8))
        scores = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=n, max_size=n))
        if draw(st.booleans()):
            labels = [0] * n
        else:
            labels = draw(st.lists(st.integers(0, top), min_size=n, max_size=n))
        out[f"q{q}"] = list(zip(scores, labels, strict=True))
    return out


def _frames(lists: Lists) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(qrels, run): every listed document judged (the libraries see only the scored list), doc
    ids descending with the input position (d99, d98, ...), so that trec_eval's tie order (doc
    id descending, as text) is the input order, LightGBM's and XGBoost's (stable sorts)."""
    rows = [(q, f"d{99 - i:02d}", s, r) for q, items in lists.items() for i, (s, r) in enumerate(items)]
    frame = pl.DataFrame(
        rows, schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64, "relevance": pl.Int64},
        orient="row",
    )
    return frame.select("query_id", "doc_id", "relevance"), frame.select("query_id", "doc_id", "score")


def _empty(items: list[tuple[float, int]]) -> bool:
    return not any(r > 0 for _, r in items)


# -- LightGBM: ndcg and map score an empty query 1 -------------------------------------------------
def _lightgbm(items: list[tuple[float, int]], metric: str, k: int) -> float:
    """LightGBM's ``metric`` (ndcg, map) at ``k`` on one query (:func:`tests.oracles.lightgbm`)."""
    return oracles.lightgbm([r for _, r in items], [s for s, _ in items], metric, k)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(lists=_lists(), k=st.sampled_from([1, 2, 3, 5, 10]))
def test_empty_1_is_lightgbm_ndcg_and_map(lists: Lists, k: int) -> None:
    """Per query, LightGBM 4.7's ``ndcg@k`` (gain 2^l − 1, the ideal from the list's own labels)
    is ``nDCG(gain='exponential', ideal='run', empty=1)@k`` and its ``map@k`` (relevant: label >
    0.5; over min(relevant in the list, k)) is ``AP(denominator='min_R_k', empty=1)@k``, with only
    the list's judgments and ties in input order: a query with nothing relevant scores 1."""
    pytest.importorskip("lightgbm")
    qrels, run = _frames(lists)
    metrics = {
        f"nDCG(gain='exponential', ideal='run', empty=1)@{k}": "ndcg",
        f"AP(denominator='min_R_k', empty=1)@{k}": "map",
    }
    want = {(q, name): _lightgbm(items, lgb, k) for q, items in lists.items() for name, lgb in metrics.items()}
    assert all(want[(q, name)] == 1.0 for q, items in lists.items() if _empty(items) for name in metrics)
    for engine in BOTH:
        got = run_on(engine, qrels, run, list(metrics))
        assert set(got["query_id"]) == set(lists)
        for row in got.iter_rows(named=True):
            for name in metrics:
                assert row[name] == pytest.approx(want[(row["query_id"], name)], abs=1e-12), (engine, name, row, lists)


# -- XGBoost: ndcg@k and map@k score it 1, ndcg@k- and map@k- 0 -------------------------------------
def _xgboost(items: list[tuple[float, int]], metrics: list[str]) -> dict[str, float]:
    """XGBoost's ``metrics`` (e.g. ``ndcg@3-``) on one query (:func:`tests.oracles.xgboost`)."""
    return oracles.xgboost([r for _, r in items], [s for s, _ in items], metrics)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(lists=_lists(top=1), k=st.sampled_from([1, 2, 3, 5, 10]))
def test_empty_1_and_0_are_xgboost_ndcg_map_and_their_minus_variants(lists: Lists, k: int) -> None:
    """Per query, XGBoost 3.2's ``ndcg@k`` (exponential gain, the list's own ideal, ties in
    input order) is ``nDCG(gain='exponential', empty=1)@k`` and ``ndcg@k-`` is
    ``nDCG(gain='exponential')@k`` (empty 0); ``map@k`` (binary labels; over min(relevant in the
    list, k)) is ``AP(denominator='min_R_k', empty=1)@k`` and ``map@k-`` its empty=0; with only
    the list's judgments (XGBoost prints 6 digits)."""
    pytest.importorskip("xgboost")
    qrels, run = _frames(lists)
    metrics = {
        f"nDCG(gain='exponential', empty=1)@{k}": f"ndcg@{k}",
        f"nDCG(gain='exponential')@{k}": f"ndcg@{k}-",
        f"AP(denominator='min_R_k', empty=1)@{k}": f"map@{k}",
        f"AP(denominator='min_R_k')@{k}": f"map@{k}-",
    }
    want = {q: _xgboost(items, list(metrics.values())) for q, items in lists.items()}
    for q, items in lists.items():
        if _empty(items):
            assert [want[q][x] for x in metrics.values()] == [1.0, 0.0, 1.0, 0.0]
    for engine in BOTH:
        got = run_on(engine, qrels, run, list(metrics))
        for row in got.iter_rows(named=True):
            for name, xgb_name in metrics.items():
                assert row[name] == pytest.approx(want[row["query_id"]][xgb_name], abs=1e-6), (engine, name, row, lists)


# -- CatBoost: NDCG and RecallAt score it 1, MAP 0 ---------------------------------------------------
def _catboost(items: list[tuple[float, int]], metric: str) -> float:
    return oracles.catboost([r for _, r in items], [s for s, _ in items], metric)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(lists=_lists(), k=st.sampled_from([1, 2, 3, 5, 10]))
def test_empty_1_is_catboost_ndcg_and_recall_at_and_0_its_map(lists: Lists, k: int) -> None:
    """Per query, CatBoost 1.2's ``NDCG:top=k`` (linear gain, the list's ideal; an empty query
    scores 1) is ``nDCG(empty=1)@k``, ``RecallAt:top=k`` (relevant: label > 0.5, over the relevant
    in the list; an empty query scores 1) is ``R(empty=1)@k``, and ``MAP:top=k`` (an empty query
    scores 0) is ``AP(denominator='min_R_k')@k``, with ``ties='pessimistic'`` (CatBoost puts the
    lower target first among equal scores) and only the list's judgments."""
    pytest.importorskip("catboost")
    qrels, run = _frames(lists)
    metrics = {
        f"nDCG(empty=1)@{k}": f"NDCG:top={k}",
        f"R(empty=1)@{k}": f"RecallAt:top={k};border=0.5",
        f"AP(denominator='min_R_k')@{k}": f"MAP:top={k};border=0.5",
    }
    want = {(q, name): _catboost(items, cb) for q, items in lists.items() for name, cb in metrics.items()}
    for engine in BOTH:
        got = run_on(engine, qrels, run, list(metrics), ties="pessimistic")
        for row in got.iter_rows(named=True):
            for name in metrics:
                assert row[name] == pytest.approx(want[(row["query_id"], name)], abs=1e-12), (engine, name, row, lists)
    # the same with the convention: empty=1 for every metric that has it, each metric's own value wins
    for engine in BOTH:
        got = run_on(engine, qrels, run, [f"nDCG@{k}", f"R@{k}", f"AP(denominator='min_R_k', empty=0)@{k}"],
                     ties="pessimistic", empty=1)
        for row in got.iter_rows(named=True):
            for name, theirs in zip(got.columns[1:], metrics, strict=True):
                assert row[name] == pytest.approx(want[(row["query_id"], theirs)], abs=1e-12), (engine, name, row)


# -- rectools: a user with nothing relevant is left out, empty='skip' --------------------------------
Recommended = dict[str, tuple[list[str], set[str], set[str]]]
"""Each user's recommendations in rank order, its relevant items and its judged non-relevant items."""


@st.composite
def _recommendations(draw: st.DrawFn) -> Recommended:
    """Users with 0 to 8 recommended items (none: absent from the run), 0 to 3 relevant items
    among them and 0 to 2 beyond, some recommended items judged non-relevant; a user may have
    nothing relevant (only judged non-relevant items)."""
    out: Recommended = {}
    for u in range(draw(st.integers(1, 6))):
        listed = [f"i{j}" for j in draw(st.permutations(range(10)))[: draw(st.integers(0, 8))]]
        flags = draw(st.lists(st.sampled_from(["rel", "nonrel", "unjudged"]), min_size=len(listed), max_size=len(listed)))
        relevant = {i for i, f in zip(listed, flags, strict=True) if f == "rel"}
        relevant |= {f"x{j}" for j in range(draw(st.integers(0, 2)))}
        judged_zero = {i for i, f in zip(listed, flags, strict=True) if f == "nonrel"} | {"z"}
        out[f"u{u}"] = (listed, relevant, judged_zero)
    return out


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(users=_recommendations(), k=st.sampled_from([1, 2, 3, 5, 10]))
def test_empty_skip_is_rectools_leaving_out_users_with_nothing_relevant(users: Recommended, k: int) -> None:
    """rectools 0.19's ``calc_per_user`` returns only the users with a relevant interaction; with
    ``empty='skip'`` rankwise gives exactly those users a value (the others NULL, still listed),
    equal to rectools' NDCG(divide_by_achievable), MAP, Recall, MRR and HitRate; a user with
    nothing relevant and no recommendation is absent from the run: under missing='zero' it
    keeps 0 (rectools leaves it out too)."""
    pd = pytest.importorskip("pandas")
    rt = pytest.importorskip("rectools.metrics")
    from rectools import Columns

    assume(any(listed and rel for listed, rel, _ in users.values()))  # rectools fails on no recommendation
    reco = pd.DataFrame(
        [(u, i, r + 1) for u, (listed, _, _) in users.items() for r, i in enumerate(listed)],
        columns=[Columns.User, Columns.Item, Columns.Rank],
    )
    interactions = pd.DataFrame(
        [(u, i) for u, (_, rel, _) in users.items() for i in sorted(rel)], columns=[Columns.User, Columns.Item]
    )
    metrics = {
        f"nDCG(empty='skip')@{k}": rt.NDCG(k=k, divide_by_achievable=True),
        f"AP(empty='skip')@{k}": rt.MAP(k=k),
        f"R(empty='skip')@{k}": rt.Recall(k=k),
        f"RR(empty='skip')@{k}": rt.MRR(k=k),
        f"Success(empty='skip')@{k}": rt.HitRate(k=k),
    }
    want = {name: {str(u): float(v) for u, v in m.calc_per_user(reco, interactions).items()} for name, m in metrics.items()}
    run = pl.DataFrame(
        [(u, i, float(len(listed) - r)) for u, (listed, _, _) in users.items() for r, i in enumerate(listed)],
        schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}, orient="row",
    )
    qrels = pl.DataFrame(
        [(u, i, int(i in rel)) for u, (_, rel, zero) in users.items() for i in sorted(rel | zero)],
        schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64}, orient="row",
    )
    for engine in BOTH:
        got = run_on(engine, qrels, run, list(metrics), missing="zero")
        assert set(got["query_id"]) == set(users)
        for row in got.iter_rows(named=True):
            u = row["query_id"]
            listed, relevant, _ = users[u]
            for name in metrics:
                if relevant:
                    assert row[name] == pytest.approx(want[name][u], abs=1e-12), (engine, name, row, users)
                else:
                    assert u not in want[name]
                    assert row[name] == (0.0 if not listed else None), (engine, name, row)
        # the mean leaves the skipped users out
        summary = rw.summarize(got).row(0, named=True)
        for name in metrics:
            values = got[name].drop_nulls()
            assert summary[name] == pytest.approx(values.mean(), abs=1e-12)


# -- torchmetrics' empty_target_action: neg, pos, skip, error ----------------------------------------
# torchmetrics 1.9.0, src/torchmetrics/retrieval/base.py, RetrievalMetric.compute: for each query
# ``if not mini_target.sum()``: 'error' raises ValueError("`compute` method was provided with a query
# with no positive target."), 'pos' appends 1.0, 'neg' appends 0.0, 'skip' appends nothing; the
# result is the mean of what was appended. Three queries of two documents scored (0.9, 0.1), top_k=2:
# labels [1, 0], [0, 0] (empty), [0, 1]. RetrievalNormalizedDCG per query 1, -, 1/log2(3);
# RetrievalMRR 1, -, 1/2; RetrievalRecall 1, -, 1. torchmetrics' means (float32, run in
# /work/venv-oracles, torch 2.13.0+cpu): nDCG neg 0.5436432361602783, pos 0.8769765496253967,
# skip 0.8154648542404175; MRR neg 0.5, pos 0.8333333134651184, skip 0.75; Recall neg
# 0.6666666865348816, pos 1.0, skip 1.0.
TORCHMETRICS = {
    "nDCG@2": {0: 0.5436432361602783, 1: 0.8769765496253967, "skip": 0.8154648542404175},
    "RR@2": {0: 0.5, 1: 0.8333333134651184, "skip": 0.75},
    "R@2": {0: 0.6666666865348816, 1: 1.0, "skip": 1.0},
}
"""torchmetrics' mean of each metric under empty_target_action neg (0), pos (1) and skip."""


def _torchmetrics_case() -> tuple[pl.DataFrame, pl.DataFrame]:
    lists: Lists = {"q0": [(0.9, 1), (0.1, 0)], "q1": [(0.9, 0), (0.1, 0)], "q2": [(0.9, 0), (0.1, 1)]}
    return _frames(lists)


@pytest.mark.parametrize("engine", BOTH)
@pytest.mark.parametrize("empty", [0, 1, "skip"])
def test_torchmetrics_empty_target_action(engine: str, empty: int | str) -> None:
    """torchmetrics' neg, pos and skip are empty=0, 1 and 'skip' (the mean over the queries)."""
    qrels, run = _torchmetrics_case()
    got = rw.summarize(run_on(engine, qrels, run, list(TORCHMETRICS), empty=empty)).row(0, named=True)
    for name, values in TORCHMETRICS.items():
        assert got[name] == pytest.approx(values[empty], abs=1e-6), (name, empty)  # torchmetrics: float32
    assert (1 + 0 + 1 / math.log2(3)) / 3 == pytest.approx(TORCHMETRICS["nDCG@2"][0], abs=1e-7)


@pytest.mark.parametrize("engine", [*BOTH, "polars-lazy"])
def test_torchmetrics_error_is_empty_query_error_naming_the_metric_and_the_query(engine: str) -> None:
    qrels, run = _torchmetrics_case()
    with pytest.raises(rw.errors.EmptyQueryError, match=r"metric 'RR\(empty='error'\)@2' has nothing relevant for query 'q1'"):
        run_on(engine, qrels, run, ["nDCG@2", "RR(empty='error')@2"])
    with pytest.raises(rw.errors.EmptyQueryError, match=r"metric 'nDCG@2' has nothing relevant for query 'q1'"):
        run_on(engine, qrels, run, ["nDCG@2"], empty="error")
    # an EmptyQueryError is an InvalidValueError, a ValueError (torchmetrics raises ValueError)
    assert issubclass(rw.errors.EmptyQueryError, rw.errors.InvalidValueError)
    assert issubclass(rw.errors.EmptyQueryError, ValueError)
    # a query absent from the run is not refused, nor one that has something relevant
    kept = qrels.filter(pl.col("query_id") != "q1")
    assert run_on(engine, qrels, run.filter(pl.col("query_id") != "q1"), ["nDCG@2"], empty="error", missing="zero")[
        "nDCG@2"
    ].to_list() == pytest.approx([1.0, 0.0, 1 / math.log2(3)])
    assert run_on(engine, kept, run, ["nDCG@2"], empty="error")["query_id"].to_list() == ["q0", "q2"]


def test_metric_expressions() -> None:
    """rw.expr / rw.exprs over a judged frame (the convention too) and rw.sql_expr: the values
    of evaluate; 'error' raises naming the metric (an expression does not know its group's id)."""
    qrels, run = _torchmetrics_case()
    frame = rw.judged_frame(qrels, run)
    names = ["nDCG@2", "RR(empty='skip')@2", "R(empty=0)@2"]
    want = rw.evaluate(qrels, run, names, empty=1)
    got = frame.group_by("query_id").agg(rw.exprs(names, empty=1)).sort("query_id")
    assert got.rows() == want.rows()
    with pytest.raises(rw.errors.EmptyQueryError, match=r"metric 'nDCG\(empty='error'\)@2' has nothing relevant for a query"):
        frame.group_by("query_id").agg(rw.expr("nDCG(empty='error')@2"))
    con = rw.register(duckdb.connect())
    con.register("judged", frame.to_arrow())
    selected = ", ".join(f"{rw.sql_expr(m, empty=1)} AS c{i}" for i, m in enumerate(names))
    sql_rows = con.sql(f"SELECT query_id, {selected} FROM judged GROUP BY query_id ORDER BY 1").fetchall()
    assert close_rows(sql_rows, rw.evaluate(qrels, run, names, empty=1, engine="duckdb").rows())


def test_explain() -> None:
    """explain's value is evaluate's; 'error' names the query explained."""
    qrels, run = _torchmetrics_case()
    table = rw.explain(qrels, run, "nDCG(empty=1)@2", "q1")
    assert table["value"].to_list() == [1.0, 1.0]
    assert rw.explain(qrels, run, "nDCG(empty='skip')@2", "q1")["value"].to_list() == [None, None]
    with pytest.raises(rw.errors.EmptyQueryError, match=r"metric 'RR@2' has nothing relevant for query 'q1' \(empty="):
        rw.explain(qrels, run, "RR@2", "q1", empty="error")
    assert rw.explain(qrels, run, "RR@2", "q2", empty="error")["value"].to_list() == [0.0, 0.5]


def test_error_names_the_first_queries() -> None:
    lists: Lists = {f"q{i}": [(1.0, 0)] for i in range(8)} | {"r": [(1.0, 1)]}
    qrels, run = _frames(lists)
    with pytest.raises(rw.errors.EmptyQueryError) as info:
        rw.evaluate(qrels, run, ["AP(empty='error')"], engine="polars")
    assert str(info.value) == (
        "metric 'AP(empty='error')' has nothing relevant for queries 'q0', 'q1', 'q2', 'q3', 'q4' and 3 more "
        "(empty='error' refuses to score them)"
    )


# -- the SQL macros, to_sql, the command line ----------------------------------------------------
def test_the_sql_macro_rw_when_empty() -> None:
    con = rw.register(duckdb.connect())
    rows = con.sql(
        "SELECT rw_when_empty(0, 2, 0.0, 'q', 1.0, NULL), rw_when_empty(0, 2, 0.0, 'q', NULL, NULL), "
        "rw_when_empty(3, 2, 0.25, 'q', 1.0, NULL), rw_when_empty(0, 0, 0.0, 'q', 1.0, 'x'), "
        "rw_when_empty(0.5, 2, 0.75, 'q', NULL, 'x')"
    ).fetchall()
    assert rows == [(1.0, None, 0.25, 0.0, 0.75)]
    with pytest.raises(duckdb.Error, match=r"rankwise: metric 'AP@10' has nothing relevant for query 'q7'"):
        con.sql("SELECT rw_when_empty(0, 2, 0.0, 'q7', NULL, 'AP@10')").fetchall()


def test_to_sql_on_duckdb() -> None:
    qrels, run = _torchmetrics_case()
    con = duckdb.connect()
    con.register("qrels", qrels.to_arrow())
    con.register("run", run.to_arrow())
    sql = rw.to_sql(["nDCG@2", "RR@2", "R(empty='skip')@2"], empty=1)
    got = pl.from_arrow(con.sql(sql).arrow())
    assert isinstance(got, pl.DataFrame)
    assert close_rows(got.sort("query_id").rows(), [("q0", 1.0, 1.0, 1.0), ("q1", 1.0, 1.0, None), ("q2", 1 / math.log2(3), 0.5, 1.0)])
    with pytest.raises(duckdb.Error, match=r"rankwise: metric 'nDCG@2' has nothing relevant for query 'q1'"):
        con.sql(rw.to_sql(["nDCG@2"], empty="error")).fetchall()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The command line of this source tree (``python -m rankwise.cli``)."""
    return subprocess.run([sys.executable, "-m", "rankwise.cli", *args], capture_output=True, text=True, timeout=120)


def test_command_line_empty_flag(tmp_path: Path) -> None:
    qrels, run = _torchmetrics_case()
    qrels.write_csv(tmp_path / "qrels.csv")
    run.write_csv(tmp_path / "run.csv")
    for engine in BOTH:
        out = _cli("eval", str(tmp_path / "qrels.csv"), str(tmp_path / "run.csv"), "-m", "nDCG@2", "-m", "RR@2",
                   "--empty", "1", "--engine", engine)
        assert out.returncode == 0, out.stderr
        means = {line.split()[0]: float(line.split()[2]) for line in out.stdout.splitlines() if " all " in line}
        assert means == pytest.approx({"nDCG@2": TORCHMETRICS["nDCG@2"][1], "RR@2": TORCHMETRICS["RR@2"][1]}, abs=1e-4)
        skip = _cli("eval", str(tmp_path / "qrels.csv"), str(tmp_path / "run.csv"), "-m", "nDCG@2", "--empty", "skip",
                    "--engine", engine)
        assert skip.returncode == 0, skip.stderr
        assert float(skip.stdout.split()[-1]) == pytest.approx(TORCHMETRICS["nDCG@2"]["skip"], abs=1e-4)
        refused = _cli("eval", str(tmp_path / "qrels.csv"), str(tmp_path / "run.csv"), "-m", "nDCG@2", "--empty", "error",
                       "--engine", engine)
        assert refused.returncode == 2
        assert refused.stderr.strip().splitlines() == [
            "rankwise: error: metric 'nDCG@2' has nothing relevant for query 'q1' (empty='error' refuses to score it)"
        ]
    bad = _cli("eval", str(tmp_path / "qrels.csv"), str(tmp_path / "run.csv"), "--empty", "2")
    assert bad.returncode == 2
    assert "convention 'empty' must be one of [0, 1, 'skip', 'error'], got '2'" in bad.stderr


# -- Spark -----------------------------------------------------------------------------------------
def test_spark(spark: Any) -> None:
    from tests.engines.test_spark import from_spark, to_spark

    qrels, run = _torchmetrics_case()
    names = ["nDCG@2", "RR(empty='skip')@2", "R(empty=0)@2"]
    got = from_spark(rw.spark.evaluate(to_spark(spark, qrels), to_spark(spark, run), names, empty=1)).sort("query_id")
    assert close_rows(got.rows(), [("q0", 1.0, 1.0, 1.0), ("q1", 1.0, None, 0.0), ("q2", 1 / math.log2(3), 0.5, 1.0)])
    with pytest.raises(Exception, match=r"rankwise: metric 'nDCG@2' has nothing relevant for query 'q1'"):
        rw.spark.evaluate(to_spark(spark, qrels), to_spark(spark, run), ["nDCG@2"], empty="error").collect()


# -- the parameter, the convention, the trees --------------------------------------------------------
def test_the_parameter_takes_0_1_skip_and_error_and_round_trips() -> None:
    assert {spec.name for spec in WITH_EMPTY} == {
        "nDCG", "AP", "P", "R", "RR", "Success", "Rprec", "RelP", "RBP", "PartialAUC", "PAP", "EPC", "EFD",
    }
    for text in ("nDCG(empty=1)@10", "AP(empty='skip')", "P(empty='error')@5", "RR(empty=0)"):
        m = rw.parse_metric(text)
        assert rw.parse_metric(repr(m)) == m and repr(m) == text
    assert rw.parse_metric("R(empty='SKIP')").params == (("empty", "skip"),)
    for bad, says in ((2, "must be <= 1, got 2 (valid: [0, 1] or one of ['skip', 'error'])"),
                      (-1, "must be >= 0, got -1 (valid: [0, 1] or one of ['skip', 'error'])"),
                      (0.5, "must be an integer or one of ['skip', 'error'], got 0.5"),
                      (True, "must be an integer or one of ['skip', 'error'], got True"),
                      ("pos", "must be an integer in [0, 1] or one of ['skip', 'error'], got 'pos'")):
        with pytest.raises(rw.InvalidParameterError, match=re.escape(f"parameter 'empty' {says}")):
            rw.parse_metric(f"nDCG(empty={bad!r})")
    for bad in (2, "pos", True, None):
        with pytest.raises(rw.InvalidParameterError, match=re.escape("convention 'empty' must be one of [0, 1, 'skip', 'error']")):
            rw.Conventions(empty=bad)  # type: ignore[arg-type]
    assert rw.Conventions().empty == 0
    with pytest.raises(rw.InvalidParameterError):
        rw.parse_metric("DCG(empty=1)")  # DCG's 0 is its value, not a convention


def _ops(node: Node) -> list[Op]:
    if isinstance(node, Op):
        return [node, *(o for child in node.operands().values() for o in _ops(child))]
    return []


@pytest.mark.parametrize("spec", WITH_EMPTY, ids=lambda s: s.name)
def test_the_default_tree_does_not_grow(spec: rw.spec.MetricSpec) -> None:
    """empty=0 (the default, the convention's too) leaves each tree as it was: no WhenEmpty."""
    m = rw.metric.make_metric(spec, {}, 10 if spec.cutoff != "none" else None)
    zero = rw.metric.make_metric(spec, {"empty": 0}, m.cutoff)
    tree = recipe(m, rw.Conventions().as_params())
    assert not any(isinstance(op, WhenEmpty) for op in _ops(tree))
    assert recipe(zero, {}) == tree
    assert any(isinstance(op, WhenEmpty) for op in _ops(recipe(m, rw.Conventions(empty=1).as_params())))


# -- the property: empty changes exactly the queries with nothing relevant ------------------------
PROPERTY_METRICS = ["nDCG@3", "nDCG(ideal='run')@3", "AP", "AP(denominator='min_R_k')@3", "P@2", "R@3", "RR",
                    "Success@2", "Rprec", "RelP@2"]


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(case=cases(), rel=st.sampled_from([1, 2]), missing=st.sampled_from(["ignore", "zero"]),
       engine=st.sampled_from(["polars", "polars-lazy", "duckdb"]))
def test_empty_changes_exactly_the_queries_with_nothing_relevant(case: Case, rel: int, missing: str, engine: str) -> None:
    """With empty=1 (and 'skip') every value is the one of empty=0 except on the queries that
    ranked something and have nothing relevant, which score 1 (NULL): no judgment of relevance
    >= rel (binary metrics), no judgment of positive relevance (nDCG), no retrieved document of
    positive relevance (nDCG(ideal='run'))."""
    qrels, run = case.qrels_frame(), case.run_frame()
    kw: dict[str, Any] = {"rel": rel, "missing": missing}
    base, one, skip = (run_on(engine, qrels, run, PROPERTY_METRICS, empty=e, **kw) for e in (0, 1, "skip"))
    assert base["query_id"].to_list() == one["query_id"].to_list() == skip["query_id"].to_list()
    for i, q in enumerate(base["query_id"]):
        judged = case.qrels.get(q, {})
        ranked = case.run.get(q, {})
        for name in PROPERTY_METRICS:
            if name.startswith("nDCG(ideal='run')"):
                empty = bool(ranked) and not any(judged.get(d, 0) > 0 for d in ranked)
            elif name.startswith("nDCG"):
                empty = bool(ranked) and not any(r > 0 for r in judged.values())
            else:
                empty = bool(ranked) and not any(r >= rel for r in judged.values())
            if empty:
                assert base[name][i] == 0.0 and one[name][i] == 1.0 and skip[name][i] is None, (name, q, case)
            else:
                assert one[name][i] == base[name][i] == skip[name][i], (name, q, case)
