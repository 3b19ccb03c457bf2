"""``negative='gain'`` on nDCG and DCG: a negative relevance keeps its gain (linear rel,
exponential 2^rel − 1), the ideal sorts negative documents last; checked per query against
CatBoost (NDCG/DCG Base and Exp), XGBoost (ndcg with ndcg_exp_gain=False) and scikit-learn's
dcg_score, on both engines, and by hand (the cases of /work/scratch/oracles/FINDINGS.md)."""

from __future__ import annotations

import math

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.metrics.recipes import recipe
from tests import oracles
from tests.conftest import close_rows, run_on
from tests.tiers import examples

BOTH = ("polars", "duckdb")


Lists = dict[str, list[tuple[float, int]]]
"""Each query's scored list in input order: (score, label); every document is judged."""


@st.composite
def _lists(draw: st.DrawFn, min_size: int = 1) -> Lists:
    """Queries of ``min_size`` to 8 documents, scores from a few values (ties), labels −2..3
    (negative ones among them); some queries have no positive label."""
    out: Lists = {}
    for q in range(draw(st.integers(1, 6))):
        n = draw(st.integers(min_size, 8))
        scores = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=n, max_size=n))
        top = 0 if draw(st.integers(0, 3)) == 0 else 3
        labels = draw(st.lists(st.integers(-2, top), min_size=n, max_size=n))
        out[f"q{q}"] = list(zip(scores, labels, strict=True))
    return out


def _frames(lists: Lists) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(qrels, run), doc ids descending with the input position: trec_eval's tie order is the
    input order (XGBoost's stable sort)."""
    rows = [(q, f"d{99 - i:02d}", s, r) for q, items in lists.items() for i, (s, r) in enumerate(items)]
    frame = pl.DataFrame(
        rows, schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64, "relevance": pl.Int64},
        orient="row",
    )
    return frame.select("query_id", "doc_id", "relevance"), frame.select("query_id", "doc_id", "score")


def _check(lists: Lists, want: dict[tuple[str, str], float], metrics: list[str], tol: float, **kw: object) -> None:
    qrels, run = _frames(lists)
    for engine in BOTH:
        got = run_on(engine, qrels, run, metrics, **kw)
        assert set(got["query_id"]) == set(lists)
        for row in got.iter_rows(named=True):
            for name in metrics:
                assert row[name] == pytest.approx(want[(row["query_id"], name)], abs=tol), (engine, name, row, lists)


# -- by hand -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("engine", BOTH)
def test_catboost_hand_cases(engine: str) -> None:
    """CatBoost NDCG:top=3 of labels [0, −1, 1] scored [.3, .2, .1]: Base (−1/log2 3 + 1/2) /
    (1 − 1/2) = −0.2618595, Exp (−0.5/log2 3 + 1/2) / (1 − 0.5/2) = 0.2460468 (FINDINGS.md)."""
    qrels, run = _frames({"q": [(0.3, 0), (0.2, -1), (0.1, 1)]})
    metrics = ["nDCG(negative='gain')@3", "nDCG(negative='gain', gain='exponential')@3", "DCG(negative='gain')@3", "nDCG@3"]
    row = run_on(engine, qrels, run, metrics).row(0, named=True)
    assert row[metrics[0]] == pytest.approx((-1 / math.log2(3) + 1 / 2) / (1 - 1 / 2), abs=1e-12)
    assert row[metrics[0]] == pytest.approx(-0.2618595, abs=1e-7)
    assert row[metrics[1]] == pytest.approx((-0.5 / math.log2(3) + 1 / 2) / (1 - 0.5 / 2), abs=1e-12)
    assert row[metrics[1]] == pytest.approx(0.2460468, abs=1e-7)
    assert row[metrics[2]] == pytest.approx(-1 / math.log2(3) + 1 / 2, abs=1e-12)
    assert row[metrics[3]] == pytest.approx(0.5, abs=1e-12)  # negative='zero': −1 gains 0, the ideal [1]


@pytest.mark.parametrize("engine", BOTH)
def test_nothing_positive_is_empty(engine: str) -> None:
    """An IDCG at most 0 (no positive gain: [0, −1] has IDCG −1/log2 3) is a query with nothing
    relevant: 0 by default (not DCG / IDCG = 1.58 for [−1, 0]), 1 with empty=1 (CatBoost's and
    XGBoost's value there)."""
    qrels, run = _frames({"a": [(0.3, -1), (0.2, 0)], "b": [(0.3, 0), (0.2, -1)]})
    got = run_on(engine, qrels, run, ["nDCG(negative='gain')", "nDCG(negative='gain', empty=1)", "DCG(negative='gain')"])
    assert close_rows(got.rows(), [("a", 0.0, 1.0, -1.0), ("b", 0.0, 1.0, -1 / math.log2(3))])


def test_the_default_trees_are_unchanged() -> None:
    """negative='zero' (the default) builds the trees of before, which print as before."""
    for plain, explicit in (("nDCG@10", "nDCG(negative='zero')@10"), ("DCG@10", "DCG(negative='zero')@10"),
                            ("nDCG(gain='exponential', ideal='run')@5",
                             "nDCG(gain='exponential', ideal='run', negative='zero')@5")):
        tree = recipe(rw.parse_metric(plain), {})
        assert tree == recipe(rw.parse_metric(explicit), {})
        assert "negative" not in repr(tree)
    assert "negative=True" in repr(recipe(rw.parse_metric("DCG(negative='gain')@10"), {}))


# -- CatBoost ------------------------------------------------------------------------------------
def _catboost(items: list[tuple[float, int]], metric: str) -> float:
    return oracles.catboost([r for _, r in items], [s for s, _ in items], metric)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(lists=_lists(), k=st.sampled_from([1, 2, 3, 5, 10]))
def test_catboost_ndcg_and_dcg_base_and_exp(lists: Lists, k: int) -> None:
    """Per query, CatBoost 1.2's NDCG and DCG, type=Base (linear) and Exp, top=k, are
    nDCG/DCG(negative='gain') with ties='pessimistic' (lower target first) and only the list's
    judgments; NDCG with empty=1 (an IDCG at most 0 scores 1)."""
    pytest.importorskip("catboost")
    metrics = {
        f"nDCG(negative='gain', empty=1)@{k}": f"NDCG:type=Base;top={k}",
        f"nDCG(negative='gain', gain='exponential', empty=1)@{k}": f"NDCG:type=Exp;top={k}",
        f"DCG(negative='gain')@{k}": f"DCG:type=Base;top={k}",
        f"DCG(negative='gain', gain='exponential')@{k}": f"DCG:type=Exp;top={k}",
    }
    want = {(q, name): _catboost(items, cb) for q, items in lists.items() for name, cb in metrics.items()}
    _check(lists, want, list(metrics), 1e-12, ties="pessimistic")


# -- XGBoost ---------------------------------------------------------------------------------------
def _xgboost(items: list[tuple[float, int]], metrics: list[str]) -> dict[str, float]:
    return oracles.xgboost([r for _, r in items], [s for s, _ in items], metrics, ndcg_exp_gain=False)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(lists=_lists(), k=st.sampled_from([1, 2, 3, 5, 10]))
def test_xgboost_linear_ndcg(lists: Lists, k: int) -> None:
    """Per query, XGBoost 3.2's ndcg@k with ndcg_exp_gain=False (linear gain, negative labels
    kept, ties in input order, the list's own ideal; an IDCG at most 0 scores 1) is
    nDCG(negative='gain', empty=1)@k (XGBoost prints 6 digits)."""
    pytest.importorskip("xgboost")
    name = f"nDCG(negative='gain', empty=1)@{k}"
    want = {(q, name): _xgboost(items, [f"ndcg@{k}"])[f"ndcg@{k}"] for q, items in lists.items()}
    _check(lists, want, [name], 1e-6)


# -- scikit-learn -------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(lists=_lists(min_size=2), k=st.sampled_from([1, 2, 3, 5, 10, None]))
def test_sklearn_dcg_score(lists: Lists, k: int | None) -> None:
    """Per query (one row each; dcg_score refuses a single document), scikit-learn's
    dcg_score(k=k) (linear gain, negative kept, tied scores sharing their mean discount) is
    DCG(negative='gain', ties='average')@k."""
    metrics_sk = pytest.importorskip("sklearn.metrics")
    at = "" if k is None else f"@{k}"
    name = f"DCG(negative='gain', ties='average'){at}"
    want = {
        (q, name): float(metrics_sk.dcg_score([[r for _, r in items]], [[s for s, _ in items]], k=k))
        for q, items in lists.items()
    }
    _check(lists, want, [name], 1e-12)


def test_spark(spark: object) -> None:
    """The CatBoost hand case on Spark (rw_signed_gain inlined into Spark SQL)."""
    from tests.engines.test_spark import from_spark, to_spark

    qrels, run = _frames({"q": [(0.3, 0), (0.2, -1), (0.1, 1)], "e": [(0.3, -1), (0.2, 0)]})
    names = ["nDCG(negative='gain')@3", "nDCG(negative='gain', gain='exponential', empty=1)@3", "DCG(negative='gain')@3"]
    got = from_spark(rw.spark.evaluate(to_spark(spark, qrels), to_spark(spark, run), names)).sort("query_id")
    assert close_rows(got.rows(), [
        ("e", 0.0, 1.0, -1.0),
        ("q", (-1 / math.log2(3) + 1 / 2) / (1 - 1 / 2), (-0.5 / math.log2(3) + 1 / 2) / (1 - 0.5 / 2), -1 / math.log2(3) + 1 / 2),
    ])
