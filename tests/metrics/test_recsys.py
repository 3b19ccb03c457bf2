"""The conventions of recommender and machine-learning libraries, against those libraries:
AP divided by the relevant documents retrieved (scikit-learn's ``average_precision_score`` over
the retrieved list), graded RBP to a depth (ranx's ``rbp`` on the list cut at k), and
ir-measures' ``NumRet(rel=N)``; on every engine.
"""

from __future__ import annotations

import math
import random

import ir_measures
import polars as pl
import pytest

from tests.conftest import ENGINES, run_on
from tests.strategies import Case

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


def _frames(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> tuple[pl.DataFrame, pl.DataFrame]:
    case = Case(run, qrels)
    return case.qrels_frame(), case.run_frame()


def _ranking(docs: dict[str, float]) -> list[str]:
    return sorted(docs, key=lambda d: -docs[d])


KS = (1, 3, 10, 50)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", [1, 2])
def test_ap_over_relevant_retrieved_is_sklearn_average_precision(engine: str, seed: int) -> None:
    run, qrels = _case(seed)
    names = ["AP(denominator='relret')", *[f"AP(denominator='relret')@{k}" for k in KS]]
    got = run_on(engine, *_frames(qrels, run), names)
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
    got = run_on(engine, *_frames(qrels, run), list(names.values()), missing="zero")
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
    got = run_on(engine, *_frames(qrels, run), list(measures))
    assert got.height > 0
    for row in got.iter_rows(named=True):
        for name, measure in measures.items():
            want = expected.get((row["query_id"], str(measure)), 0.0)  # ir-measures skips empty rankings
            assert row[name] == want, (name, row)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", [3, 4])
def test_tie_averaged_dcg_is_scikit_learn(engine: str, seed: int) -> None:
    """DCG(ties='average')@k and nDCG(ties='average', ideal='run')@k are scikit-learn's
    dcg_score and ndcg_score (whose default averages over tied scores; its ideal is the
    scored items re-sorted), on rankings full of ties."""
    import numpy as np

    rng = random.Random(seed)
    run: Run = {}
    qrels: Qrels = {}
    for q in range(20):
        docs = [f"d{i}" for i in rng.sample(range(30), rng.randint(1, 15))]
        run[f"q{q}"] = {d: float(rng.choice([0.0, 0.5, 1.0, 2.0])) for d in docs}  # many ties
        qrels[f"q{q}"] = {f"d{i}": rng.choice([-1, 0, 1, 2, 3]) for i in rng.sample(range(30), 12)}
    ks = (1, 2, 5, None)
    names = {k: (f"DCG(ties='average')@{k}" if k else "DCG(ties='average')",
                 f"nDCG(ties='average', ideal='run')@{k}" if k else "nDCG(ties='average', ideal='run')") for k in ks}
    got = run_on(engine, *_frames(qrels, run), [n for pair in names.values() for n in pair])
    for row in got.iter_rows(named=True):
        docs = run[row["query_id"]]
        if len(docs) < 2:  # scikit-learn refuses a ranking of one document
            continue
        truth = np.array([[max(qrels[row["query_id"]].get(d, 0), 0) for d in docs]])
        scores = np.array([[docs[d] for d in docs]])
        for k, (dcg, ndcg) in names.items():
            assert row[dcg] == pytest.approx(metrics_sk.dcg_score(truth, scores, k=k), abs=1e-12), (dcg, row)
            assert row[ndcg] == pytest.approx(metrics_sk.ndcg_score(truth, scores, k=k), abs=1e-12), (ndcg, row)


def test_ideal_cut_at_the_list_length_through_evaluate_lists() -> None:
    """The recommender form: each user's predicted list and relevant items; nDCG whose ideal is
    cut at the list's length equals trec_eval's ndcg_cut at that length."""
    import pytrec_eval

    import rankwise as rw

    frame = pl.DataFrame({
        "query_id": ["u1", "u2", "u3"],
        "predicted": [["a", "b", "c"], ["x", "y", "z", "w", "v"], ["m"]],
        "relevant": [["c", "d", "e", "f"], ["w"], ["n", "o"]],
    })
    got = rw.evaluate_lists(frame, ["nDCG(ideal_cutoff='list')@10"]).rows()
    for (q, value), predicted, relevant in zip(got, frame["predicted"], frame["relevant"], strict=True):
        n = len(predicted)
        run = {q: {d: float(n - i) for i, d in enumerate(predicted)}}
        ev = pytrec_eval.RelevanceEvaluator({q: dict.fromkeys(relevant, 1)}, {f"ndcg_cut.{n}"})
        assert value == pytest.approx(ev.evaluate(run)[q][f"ndcg_cut_{n}"], abs=1e-12), q
    assert got[0][1] == pytest.approx((1 / 2) / (1 + 1 / math.log2(3) + 1 / 2))  # hit at rank 3 of 3
