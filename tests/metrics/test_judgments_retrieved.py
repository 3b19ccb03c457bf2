"""``judgments='retrieved'``: each query reads only the judgments of the documents its list
holds, as the machine-learning libraries do (they see only the scored list: R, the ideal and
"nothing relevant" come from the list's own labels; /work/scratch/oracles FINDINGS, "qrels
docs not in the run: invisible").

The references are LightGBM's ``map@k``, XGBoost's ``ndcg@k`` (exponential and linear gain),
CatBoost's ``RecallAt``, run per query on qrels that judge documents the run does not hold,
and torchmetrics' ``RetrievalRPrecision`` and ``RetrievalRecall``, whose values are written out
from its source; then every engine and path on a hand-computed case."""

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
from polars.testing import assert_frame_equal

import rankwise as rw
from tests import oracles
from tests.conftest import ENGINES, run_on, run_on_spark
from tests.metrics.test_ties_input import _lightgbm, _xgboost
from tests.strategies import frames_of
from tests.tiers import examples

Listed = dict[str, list[tuple[str, float, int]]]
"""Per query, its documents in input order: (doc id, score, label; 0 also for unjudged)."""


def _case(seed: int, graded: bool) -> tuple[Listed, pl.DataFrame, pl.DataFrame]:
    """40 queries of 1-12 documents with distinct scores (the tie order is another
    convention), labels 0..3 (or 0/1), some retrieved documents unjudged, and 0-3 judgments
    (mostly relevant) of documents the run does not hold. Returns what the libraries see (the
    lists, an unjudged document labelled 0), the run and the qrels."""
    rng = random.Random(seed)
    listed: Listed = {}
    run_rows, qrels_rows = [], []
    top = 3 if graded else 1
    for q in range(40):
        qid = f"q{q:02d}"
        n = rng.randint(1, 12)
        scores = rng.sample(range(1000), n)
        items = []
        for i, s in enumerate(scores):
            label = rng.choice([None, 0, *range(1, top + 1)])
            items.append((f"d{i:02d}", s / 100, label or 0))
            run_rows.append((qid, f"d{i:02d}", s / 100))
            if label is not None:
                qrels_rows.append((qid, f"d{i:02d}", label))
        listed[qid] = items
        qrels_rows += [(qid, f"u{j}", rng.choice([0, *range(1, top + 1), top])) for j in range(rng.randint(0, 3))]
    run = pl.DataFrame(run_rows, schema=["query_id", "doc_id", "score"], orient="row")
    qrels = pl.DataFrame(qrels_rows, schema=["query_id", "doc_id", "relevance"], orient="row")
    return listed, run, qrels


def _compare(seed: int, graded: bool, metric: str, reference: Any, every_query: bool = False) -> None:
    """Per query with something relevant in its list (or every query), rankwise's ``metric``
    under ``judgments='retrieved'`` equals the reference on the list; with every judgment
    (``'all'``) it differs on some query (the case tells the two apart)."""
    listed, run, qrels = _case(seed, graded)
    got = dict(rw.evaluate(qrels, run, [metric], judgments="retrieved", missing="zero").iter_rows())
    every = dict(rw.evaluate(qrels, run, [metric], missing="zero").iter_rows())
    queries = [q for q, items in listed.items() if every_query or any(lab > 0 for _, _, lab in items)]
    assert len(queries) > 20
    expected = {q: reference(listed[q]) for q in queries}
    assert {q: got[q] for q in queries} == pytest.approx(expected, abs=1e-6)
    assert any(abs(every.get(q, 0.0) - expected[q]) > 1e-6 for q in queries)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("k", [3, 10])
def test_lightgbm_map_reads_the_list_s_judgments(k: int) -> None:
    """LightGBM's map@k divides by min(relevant in the list, k): AP(denominator='min_R_k')@k
    with judgments='retrieved' (its queries with nothing relevant score 1: empty=, another
    convention)."""
    pytest.importorskip("lightgbm")
    _compare(1, False, f"AP(denominator='min_R_k')@{k}", lambda items: _lightgbm(items, "map", k))


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("k", [3, 10])
def test_xgboost_ndcg_reads_the_list_s_judgments(k: int) -> None:
    """XGBoost's ndcg@k: the ideal from the list's labels (exponential gain by default, linear
    with ndcg_exp_gain=False); ``ndcg@k-`` scores a list with nothing relevant 0, as rankwise."""
    pytest.importorskip("xgboost")
    _compare(2, True, f"nDCG(gain='exponential')@{k}", lambda items: _xgboost(items, f"ndcg@{k}"))
    _compare(2, True, f"nDCG@{k}", lambda items: _xgboost(items, f"ndcg@{k}", ndcg_exp_gain=False))
    _compare(3, True, f"nDCG(gain='exponential')@{k}", lambda items: _xgboost(items, f"ndcg@{k}-"), every_query=True)


def _catboost_recall(items: list[tuple[str, float, int]], k: int) -> float:
    """CatBoost's ``RecallAt:top=k`` of one list (:func:`tests.oracles.catboost`)."""
    return oracles.catboost([lab for _, _, lab in items], [s for _, s, _ in items], f"RecallAt:top={k}")


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("k", [1, 3, 10])
def test_catboost_recall_at_reads_the_list_s_judgments(k: int) -> None:
    """CatBoost's RecallAt: the relevant (label > 0.5) in the top k over the relevant in the
    list (a list with nothing relevant scores 1: empty=, another convention)."""
    pytest.importorskip("catboost")
    _compare(4, True, f"R@{k}", lambda items: _catboost_recall(items, k))


def test_torchmetrics_r_precision_and_recall_written_out() -> None:
    """torchmetrics 1.9.0, ``functional/retrieval/r_precision.py``: ``relevant_number =
    target.sum(); relevant = target[argsort(preds, descending=True)][:relevant_number].sum();
    return relevant / relevant_number``, and ``functional/retrieval/recall.py``: ``relevant =
    target[topk_indices].sum(); return relevant / target.sum()``: both over the list given, so
    the judged documents it does not hold count nowhere. The list [a, b, c] labelled 1, 0, 1
    (scores .3, .2, .1), u relevant but not retrieved: RetrievalRPrecision 1/2 (R = 2 in the
    list), RetrievalRecall(top_k=2) 1/2 (FINDINGS: RPrecision [1, 0, 1] → 0.5); with every
    judgment (R = 3) they would be 2/3 and 1/3."""
    run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [0.3, 0.2, 0.1]})
    qrels = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "b", "c", "u"], "relevance": [1, 0, 1, 1]})
    for engine in ENGINES:
        got = run_on(engine, qrels, run, ["Rprec", "R@2"], judgments="retrieved")
        assert got.row(0)[1:] == pytest.approx((1 / 2, 1 / 2), abs=1e-12)
        every = run_on(engine, qrels, run, ["Rprec", "R@2"])
        assert every.row(0)[1:] == pytest.approx((2 / 3, 1 / 3), abs=1e-12)


# -- one hand-computed case on every engine and path ------------------------------------------

RUN = pl.DataFrame({
    "query_id": ["q"] * 3 + ["r"] * 2 + ["s"],
    "doc_id": ["a", "b", "c", "x", "y", "z"],
    "score": [3.0, 2.0, 1.0, 2.0, 1.0, 1.0],
})
QRELS = pl.DataFrame({
    "query_id": ["q", "q", "q", "r", "r", "s", "t"],
    "doc_id": ["a", "c", "u", "y", "v", "w", "t1"],
    "relevance": [1, 2, 3, 1, 1, 1, 1],
})
METRICS = ["AP", "R@2", "Rprec", "nDCG", "NumRel", "AP(denominator='min_R_k')@2"]
LOG2_3 = 1.5849625007211562
EXPECTED = {
    # q: a (1), b (unjudged), c (2) listed; u (3) not: R = 2, the ideal c, a
    "q": {"AP": (1 + 2 / 3) / 2, "R@2": 1 / 2, "Rprec": 1 / 2, "nDCG": (1 + 2 / 2) / (2 + 1 / LOG2_3),
          "NumRel": 2, "AP(denominator='min_R_k')@2": 1 / 2},
    # r: x (unjudged), y (1) listed; v (1) not: R = 1
    "r": {"AP": 1 / 2, "R@2": 1.0, "Rprec": 0.0, "nDCG": 1 / LOG2_3, "NumRel": 1, "AP(denominator='min_R_k')@2": 1 / 2},
    # s: z (unjudged) listed, w (1) not: judged still, nothing relevant in its list
    "s": {"AP": 0.0, "R@2": 0.0, "Rprec": 0.0, "nDCG": 0.0, "NumRel": 0, "AP(denominator='min_R_k')@2": 0.0},
    # t: absent from the run, missing='zero': 0, its judgments kept
    "t": {"AP": 0.0, "R@2": 0.0, "Rprec": 0.0, "nDCG": 0.0, "NumRel": 1, "AP(denominator='min_R_k')@2": 0.0},
}
MAX_RANK_2 = {"q": {"AP": 1.0, "R@2": 1.0, "Rprec": 1.0, "nDCG": 1.0, "NumRel": 1, "AP(denominator='min_R_k')@2": 1.0}}
"""q cut at 2 (a, b): c's judgment goes too (a document below max_rank is not retrieved)."""


def _check(result: pl.DataFrame, expected: dict[str, dict[str, float]] = EXPECTED, query: str = "query_id") -> None:
    got = {row[query]: row for row in result.iter_rows(named=True)}
    for q, values in expected.items():
        for m, v in values.items():
            assert got[q][m] == pytest.approx(v, abs=1e-12), (q, m)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
def test_hand_case_on_every_engine(engine: str) -> None:
    got = run_on(engine, QRELS, RUN, METRICS, judgments="retrieved", missing="zero")
    assert sorted(got["query_id"]) == ["q", "r", "s", "t"]
    _check(got)
    _check(run_on(engine, QRELS, RUN, METRICS, judgments="retrieved", missing="zero", max_rank=2), MAX_RANK_2)
    # missing='ignore': t left out; s (judged, nothing listed) kept
    assert sorted(run_on(engine, QRELS, RUN, METRICS, judgments="retrieved")["query_id"]) == ["q", "r", "s"]


def test_hand_case_in_to_sql_and_the_expressions() -> None:
    con = rw.register(duckdb.connect())
    con.execute("CREATE TABLE run AS SELECT * FROM RUN")
    con.execute("CREATE TABLE qrels AS SELECT * FROM QRELS")
    _check(con.sql(rw.to_sql(METRICS, judgments="retrieved", missing="zero")).pl())
    _check(con.sql(rw.to_sql(METRICS, judgments="retrieved", missing="zero", max_rank=2)).pl(), MAX_RANK_2)
    judged = rw.judged_frame(QRELS, RUN, missing="zero")
    con.register("judged", judged.to_arrow())
    _check(con.sql(rw.sql_select(METRICS, "judged", judgments="retrieved")).pl())
    _check(judged.group_by("query_id").agg(rw.exprs(METRICS, judgments="retrieved")))
    _check(judged.group_by("query_id").agg(rw.exprs(METRICS, judgments="retrieved", max_rank=2)), MAX_RANK_2)


def test_hand_case_in_explain_and_compare() -> None:
    shown = rw.explain(QRELS, RUN, "AP", "q", judgments="retrieved")
    assert shown["value"].to_list() == pytest.approx([1 / 2, 1 / 2, (1 + 2 / 3) / 2])
    nothing = rw.explain(QRELS, RUN, "nDCG", "s", judgments="retrieved")
    assert nothing["value"].to_list() == [0.0]
    table = rw.compare(QRELS, {"a": RUN, "b": RUN}, ["AP"], judgments="retrieved", missing="zero")
    assert table["mean"][0] == pytest.approx(((1 + 2 / 3) / 2 + 1 / 2) / 4)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
def test_diversity_measures_read_the_listed_subtopic_judgments() -> None:
    """Subtopic qrels: a (subtopics 1, 2), c (1) listed; u (1, 2) not. With the listed
    judgments AP's R is 2; each subtopic's relevant documents are those listed: StRecall@1
    covers both subtopics with a, whatever u holds."""
    run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({
        "query_id": ["q"] * 5, "subtopic": [1, 2, 1, 2, 1], "doc_id": ["a", "a", "c", "u", "u"], "relevance": [1] * 5,
    })
    for engine in ("polars", "duckdb"):
        got = rw.evaluate(qrels, run, ["AP", "StRecall@1", "P_IA@3"], subtopic="subtopic", engine=engine, judgments="retrieved")
        # P-IA@3: subtopic 1 has a, c in the top 3, subtopic 2 has a: (2/3 + 1/3) / 2
        assert got.row(0)[1:] == pytest.approx(((1 + 2 / 3) / 2, 1.0, (2 / 3 + 1 / 3) / 2), abs=1e-12)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rankwise.cli", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_command_line(engine: str, tmp_path: Path) -> None:
    RUN.write_parquet(tmp_path / "run.parquet")
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in QRELS.rows()))
    out = _cli("eval", str(tmp_path / "qrels.txt"), str(tmp_path / "run.parquet"),
               *[a for m in METRICS for a in ("-m", m)], "-q", "-c", "--judgments", "retrieved",
               "--format", "csv", "--engine", engine)
    assert out.returncode == 0, out.stderr
    _check(pl.read_csv(out.stdout.encode(), schema_overrides={"query_id": pl.String}))
    bad = _cli("eval", str(tmp_path / "qrels.txt"), str(tmp_path / "run.parquet"), "--judgments", "listed")
    assert bad.returncode == 2
    assert bad.stderr == (
        "rankwise: error: convention 'judgments' must be one of ['all', 'retrieved'], got 'listed' "
        "(see rankwise eval --help)\n"
    )


def test_a_bad_value_is_named() -> None:
    with pytest.raises(rw.errors.InvalidParameterError, match=r"convention 'judgments' must be one of \['all', 'retrieved'\], got 'listed'"):
        rw.evaluate(QRELS, RUN, ["AP"], judgments="listed")  # type: ignore[arg-type]


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
def test_hand_case_on_spark(spark: Any) -> None:
    _check(run_on_spark(spark, QRELS, RUN, METRICS, judgments="retrieved", missing="zero"))
    _check(run_on_spark(spark, QRELS, RUN, METRICS, judgments="retrieved", missing="zero", max_rank=2), MAX_RANK_2)


@st.composite
def _listed_only(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run with ties, and qrels judging only documents the run holds."""
    run_rows, qrels_rows = [], []
    for q in range(draw(st.integers(1, 4))):
        n = draw(st.integers(1, 8))
        scores = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=n, max_size=n))
        labels = draw(st.lists(st.sampled_from([None, -1, 0, 1, 2]), min_size=n, max_size=n))
        run_rows += [(f"q{q}", f"d{i}", s) for i, s in enumerate(scores)]
        qrels_rows += [(f"q{q}", f"d{i}", lab) for i, lab in enumerate(labels) if lab is not None]
    return frames_of(run_rows, qrels_rows)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(case=_listed_only(), engine=st.sampled_from(["polars", "duckdb"]))
def test_qrels_of_listed_documents_only_read_the_same(case: tuple[pl.DataFrame, pl.DataFrame], engine: str) -> None:
    """Qrels that judge only documents the run holds: judgments='retrieved' drops nothing, and
    every value is that of 'all' (the judged-only metrics, bpref, the ideal of the run too)."""
    run, qrels = case
    metrics = ["AP", "Bpref", "nDCG@5", "Rprec", "R@3", "NumRel", "infAP", "nDCG(ideal='run')", "RBP(p=0.8)"]
    got = rw.evaluate(qrels, run, metrics, judgments="retrieved", engine=engine)
    assert_frame_equal(got, rw.evaluate(qrels, run, metrics, engine=engine), check_exact=False, abs_tol=1e-12)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_the_list_form(engine: str) -> None:
    """u1 recommends a, b, c; a and z are relevant: with the list's judgments R = 1 (z is not
    in the list). u2 recommends x, z relevant: nothing relevant in its list, still scored (0)."""
    df = pl.DataFrame({"user": ["u1", "u2"], "predicted": [["a", "b", "c"], ["x"]], "relevant": [["a", "z"], ["z"]]})
    got = rw.evaluate_lists(df, ["R@3", "AP", "Rprec"], query_id="user", engine=engine, judgments="retrieved")
    assert got.rows() == [("u1", 1.0, 1.0, 1.0), ("u2", 0.0, 0.0, 0.0)]
    every = rw.evaluate_lists(df, ["R@3", "AP", "Rprec"], query_id="user", engine=engine)
    assert every.rows() == [("u1", 0.5, 0.5, 0.5), ("u2", 0.0, 0.0, 0.0)]
