"""Against ranx itself (a test extra): every ranx metric name rankwise reads gives ranx's
per-query values, on every engine.

ranx orders documents by score with its own tie order, so the random runs here have distinct
scores per query; its qrels and run must hold the same queries (``make_comparable``), so every
query is on both sides, one of them with nothing retrieved. ``bpref`` is left out: ranx 0.3.21
gives 0 for most queries when several are evaluated together (each alone gives trec_eval's
value), and NaN for a query with no judged non-relevant document (it divides by min(R, N));
rankwise's Bpref is checked against trec_eval (test_reference.py, test_conformance.py).
"""

from __future__ import annotations

import random

import polars as pl
import pytest

from tests.conftest import ENGINES, run_on
from tests.strategies import Case

ranx = pytest.importorskip("ranx")

NAMES = [
    "ndcg", "ndcg@5", "ndcg_burges@5", "ndcg@10-l2", "dcg@5", "dcg_burges@5", "dcg", "map", "map@5",
    "mrr", "mrr@3", "precision", "precision@5", "precision@30", "recall", "recall@5", "f1", "f1@5",
    "hit_rate@3", "hits", "hits@5", "hits@5-l2", "r-precision", "map-l2", "mrr-l2", "ndcg-l2",
    "precision-l2", "recall-l2", "f1-l2", "rbp.8", "rbp.95", "rbp.5-l2",
]


def _case(seed: int) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]:
    rng = random.Random(seed)
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for q in range(12):
        qid = f"q{q}"
        docs = [f"d{i}" for i in rng.sample(range(30), rng.randint(0 if q == 0 else 1, 20))]
        run[qid] = dict(zip(docs, (float(s) for s in rng.sample(range(1000), len(docs))), strict=True))
        judged = rng.sample(range(30), rng.randint(1, 15))
        # grades 0..3, some queries with nothing relevant (all 0)
        qrels[qid] = {f"d{i}": (0 if q == 1 else rng.choice([0, 0, 1, 2, 3])) for i in judged}
    return run, qrels


def _frames(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> tuple[pl.DataFrame, pl.DataFrame]:
    case = Case(run, qrels)
    return case.qrels_frame(), case.run_frame()


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning", "ignore:unsafe cast")
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ranx_names_equal_ranx(engine: str, seed: int) -> None:
    run, qrels = _case(seed)
    ranx_qrels = ranx.Qrels.from_dict({q: {d: v for d, v in docs.items()} for q, docs in qrels.items()})
    ranx_run = ranx.Run.from_dict({q: docs for q, docs in run.items() if docs})
    ranx_run = ranx_run.make_comparable(ranx_qrels)
    ranx.evaluate(ranx_qrels, ranx_run, NAMES, return_mean=False)
    expected = {name: dict(ranx_run.scores[name]) for name in NAMES}
    got = run_on(engine, *_frames(qrels, run), NAMES, missing="zero")
    assert got.height == len(qrels)
    for row in got.iter_rows(named=True):
        for name in NAMES:
            assert row[name] == pytest.approx(expected[name][row["query_id"]], abs=1e-12), (name, row["query_id"])
