"""The conventions of recommender and machine-learning libraries, against those libraries:
AP divided by the relevant documents retrieved (scikit-learn's ``average_precision_score`` over
the retrieved list), graded RBP to a depth (ranx's ``rbp`` on the list cut at k), and
ir-measures' ``NumRet(rel=N)``; on every engine.
"""

from __future__ import annotations

import random

import ir_measures
import polars as pl
import pytest

from tests.conftest import ENGINES, run_on

ranx = pytest.importorskip("ranx")
metrics_sk = pytest.importorskip("sklearn.metrics")

Run = dict[str, dict[str, float]]
Qrels = dict[str, dict[str, int]]


def _case(seed: int, queries: int = 15) -> tuple[Run, Qrels]:
    """Random rankings with distinct scores (the libraries' tie orders differ), graded and
    negative judgments, unjudged documents, an empty ranking and a query with nothing relevant."""
    rng = random.Random(seed)
    run: Run = {}
    qrels: Qrels = {}
    for q in range(queries):
        qid = f"q{q}"
        docs = [f"d{i}" for i in rng.sample(range(30), 0 if q == 0 else rng.randint(1, 20))]
        run[qid] = dict(zip(docs, (rng.uniform(-5, 5) for _ in docs), strict=True))
        judged = rng.sample(range(30), rng.randint(1, 15))
        qrels[qid] = {f"d{i}": (0 if q == 1 else rng.choice([-1, 0, 0, 1, 2, 3])) for i in judged}
    return run, qrels


def _frames(run: Run, qrels: Qrels) -> tuple[pl.DataFrame, pl.DataFrame]:
    r = pl.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
        schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}, orient="row",
    )
    j = pl.DataFrame(
        [(q, d, v) for q, docs in qrels.items() for d, v in docs.items()],
        schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64}, orient="row",
    )
    return r, j


def _ranking(docs: dict[str, float]) -> list[str]:
    return sorted(docs, key=lambda d: -docs[d])


KS = (1, 3, 10, 50)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", [1, 2])
def test_ap_over_relevant_retrieved_is_sklearn_average_precision(engine: str, seed: int) -> None:
    run, qrels = _case(seed)
    names = ["AP(denominator='relret')", *[f"AP(denominator='relret')@{k}" for k in KS]]
    got = run_on(engine, *_frames(run, qrels), names)
    for row in got.iter_rows(named=True):
        ranking = _ranking(run[row["query_id"]])
        for name, k in zip(names, (None, *KS), strict=True):
            top = ranking[:k]
            labels = [int(qrels[row["query_id"]].get(d, 0) >= 1) for d in top]
            if not any(labels):
                assert row[name] == 0.0, (name, row)
                continue
            scores = [run[row["query_id"]][d] for d in top]
            want = metrics_sk.average_precision_score(labels, scores)
            assert row[name] == pytest.approx(want, abs=1e-12), (name, row)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning", "ignore:unsafe cast")
@pytest.mark.parametrize("engine", ENGINES)
def test_graded_rbp_to_depth_k_is_ranx_rbp_of_the_top_k(engine: str) -> None:
    run, qrels = _case(5)
    names = {k: f"RBP(p=0.7, gain='graded')@{k}" for k in KS}
    got = run_on(engine, *_frames(run, qrels), list(names.values()), missing="zero")
    ranx_qrels = ranx.Qrels.from_dict({q: dict(v) for q, v in qrels.items()})
    for k, name in names.items():
        top = {q: {d: docs[d] for d in _ranking(docs)[:k]} for q, docs in run.items() if docs}
        ranx_run = ranx.Run.from_dict(top).make_comparable(ranx_qrels)
        ranx.evaluate(ranx_qrels, ranx_run, "rbp.7", return_mean=False)
        expected = dict(ranx_run.scores["rbp.7"])
        for row in got.iter_rows(named=True):
            assert row[name] == pytest.approx(expected[row["query_id"]], abs=1e-12), (name, row)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
def test_numret_rel_is_ir_measures_numret_rel(engine: str) -> None:
    run, qrels = _case(9)
    measures = {"NumRet": ir_measures.NumRet, "NumRet(rel=1)": ir_measures.NumRet(rel=1), "NumRet(rel=2)": ir_measures.NumRet(rel=2)}
    expected = {
        (m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(list(measures.values()), qrels, run)
    }
    got = run_on(engine, *_frames(run, qrels), list(measures))
    assert got.height > 0
    for row in got.iter_rows(named=True):
        for name, measure in measures.items():
            want = expected.get((row["query_id"], str(measure)), 0.0)  # ir-measures skips empty rankings
            assert row[name] == want, (name, row)
