"""The conventions of recommender and machine-learning libraries, against those libraries:
AP divided by the relevant documents retrieved (scikit-learn's ``average_precision_score`` over
the retrieved list), graded RBP to a depth (ranx's ``rbp`` on the list cut at k),
ir-measures' ``NumRet(rel=N)``, CatBoost's NDCG/DCG with ``denominator=Position``
(``discount='reciprocal'``) and rectools' NDCG and MAP (``ideal='k'``, ``denominator='k'``);
on every engine.
"""

from __future__ import annotations

import math
import random

import ir_measures
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import rankwise as rw
from tests.conftest import ENGINES, run_on
from tests.strategies import Case
from tests.tiers import examples

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


# -- XGBoost pre@n and CatBoost PrecisionAt: P(denominator='retrieved') -----------------------------
BinaryListed = dict[str, list[tuple[str, float, int | None]]]
"""Each query's retrieved list: (doc, score, 0/1 label or None for a document without a judgment)."""


@st.composite
def _binary_lists(draw: st.DrawFn) -> tuple[BinaryListed, set[str]]:
    """Queries of 1 to 12 retrieved documents (shorter and longer than the cutoffs) with binary
    labels, some documents without a judgment (the libraries' label 0); each query's scores are
    either distinct (a permutation) or drawn from a few values (ties). Also returns the queries
    whose scores are distinct."""
    out: BinaryListed = {}
    distinct: set[str] = set()
    for q in range(draw(st.integers(1, 6))):
        n = draw(st.integers(1, 12))
        if draw(st.booleans()):
            scores = [float(s) for s in draw(st.permutations(range(n)))]
            distinct.add(f"q{q}")
        else:
            scores = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, -1.5]), min_size=n, max_size=n))
        labels = draw(st.lists(st.one_of(st.none(), st.integers(0, 1)), min_size=n, max_size=n))
        out[f"q{q}"] = [(f"d{i}", s, r) for i, (s, r) in enumerate(zip(scores, labels, strict=True))]
    return out, distinct


def _xgboost_pre(items: list[tuple[str, float, int | None]], k: int) -> float:
    """XGBoost's ``pre@k`` on one query's list: an untrained booster evaluating a DMatrix of one
    group whose predictions are the scores (``base_margin``); XGBoost prints the value."""
    import re

    import numpy as np
    import xgboost as xgb

    labels = np.array([0.0 if r is None else float(r) for _, _, r in items])
    dm = xgb.DMatrix(np.zeros((len(items), 1)), label=labels, base_margin=np.array([s for _, s, _ in items]))
    dm.set_group([len(items)])
    booster = xgb.Booster({"objective": "rank:ndcg", "eval_metric": f"pre@{k}", "nthread": 1}, [dm])
    printed = booster.eval(dm, "q")
    found = re.search(r"q-pre@\d+:(\S+)", printed)
    assert found is not None, printed
    return float(found.group(1))


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(drawn=_binary_lists(), k=st.sampled_from([1, 2, 3, 5, 10]))
def test_precision_over_retrieved_is_xgboost_pre_and_catboost_precision_at(
    drawn: tuple[BinaryListed, set[str]], k: int,
) -> None:
    """P(denominator='retrieved')@k over the retrieved documents' judgments is, per query,
    XGBoost's ``pre@k`` (relevant in the top k over min(k, list length)) on the queries with
    distinct scores (XGBoost breaks ties by the input order, which rankwise has no convention
    for yet), and CatBoost's ``PrecisionAt:top=k`` (over min(top, list length)) on every query
    with ``ties='pessimistic'`` (CatBoost puts the lower target first among equal scores); on
    both engines and through the Polars expression on the judged frame. Queries with nothing
    relevant are kept: both libraries score them 0, as rankwise does. Left out: a query without
    any judgment (rankwise skips it with a warning; the libraries score its labels 0)."""
    lists, distinct = drawn
    metric = f"P(denominator='retrieved')@{k}"
    rows = [(q, d, s, r) for q, items in lists.items() for d, s, r in items]
    frame = pl.DataFrame(rows, schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64, "relevance": pl.Int64}, orient="row")
    run = frame.select("query_id", "doc_id", "score")
    qrels = frame.filter(pl.col("relevance").is_not_null()).select("query_id", "doc_id", "relevance")
    assume(qrels.height > 0)  # no judgment at all is an error of its own (tests/inputs)
    xgboost = {q: _xgboost_pre(items, k) for q, items in lists.items() if q in distinct}
    # border=0.5 is CatBoost's default (a label > 0.5 is relevant), written out for _catboost's ";top=k"
    catboost = {q: _catboost(items, "PrecisionAt:border=0.5", k) for q, items in lists.items()}

    def check(got: pl.DataFrame, how: str) -> None:
        assert set(got["query_id"]) == set(qrels["query_id"]), how
        for q, value in got.select("query_id", metric).iter_rows():
            assert value == pytest.approx(catboost[q], abs=1e-12), (how, "catboost", q, lists[q])
            if q in xgboost:
                assert value == pytest.approx(xgboost[q], abs=1e-6), (how, "xgboost", q, lists[q])  # printed to 6 digits

    for engine in ("polars", "duckdb"):
        check(run_on(engine, qrels, run, [metric], ties="pessimistic"), engine)
    judged = rw.judged_frame(qrels, run)
    check(judged.group_by("query_id").agg(rw.expr(metric, ties="pessimistic")), "rw.expr")


# -- CatBoost's NDCG / DCG with denominator=Position: discount='reciprocal' -------------------------
Listed = dict[str, list[tuple[str, float, int | None]]]
"""Each query's retrieved list: (doc, score, label or None for a document without a judgment)."""


@st.composite
def _scored_lists(draw: st.DrawFn) -> Listed:
    """Queries of 1 to 12 retrieved documents, with scores from a few values (many ties) and
    graded labels 0..4, some documents without a judgment (CatBoost's label 0)."""
    out: Listed = {}
    for q in range(draw(st.integers(1, 6))):
        n = draw(st.integers(1, 12))
        scores = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, -1.5]), min_size=n, max_size=n))
        labels = draw(st.lists(st.one_of(st.none(), st.integers(0, 4)), min_size=n, max_size=n))
        out[f"q{q}"] = [(f"d{i}", s, r) for i, (s, r) in enumerate(zip(scores, labels, strict=True))]
    return out


def _catboost(items: list[tuple[str, float, int | None]], metric: str, k: int | None) -> float:
    """CatBoost's value of ``metric`` (e.g. ``'NDCG:type=Exp;denominator=Position'``) on one
    query's list, cut at ``top=k`` (no top: the whole list), through ``catboost.utils.eval_metric``."""
    import numpy as np
    from catboost.utils import eval_metric

    labels = np.array([0.0 if r is None else float(r) for _, _, r in items])
    scores = np.array([s for _, s, _ in items])
    description = metric if k is None else f"{metric};top={k}"
    (v,) = eval_metric(labels, scores, description, group_id=np.zeros(len(items), dtype=np.int64), thread_count=1)
    return float(v)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(lists=_scored_lists(), k=st.sampled_from([1, 2, 3, 5, 10, None]))
def test_reciprocal_discount_is_catboost_position_ndcg_and_dcg(lists: Listed, k: int | None) -> None:
    """nDCG/DCG(discount='reciprocal') with ties='pessimistic' (CatBoost's lower target first
    among equal scores) over the retrieved documents' judgments (CatBoost's ideal is the list's
    own labels sorted) are CatBoost's NDCG/DCG with denominator=Position, type=Base (linear
    gain) and type=Exp (exponential), per query, on both engines and through the typed Polars
    expressions (by the score, then the label ascending). A query with nothing relevant is left
    out of nDCG (CatBoost scores it 1, rankwise 0)."""
    at = "" if k is None else f"@{k}"
    metrics = {  # rankwise's metric -> (CatBoost's metric, rankwise's gain)
        f"nDCG(discount='reciprocal'){at}": ("NDCG:type=Base;denominator=Position", "linear"),
        f"nDCG(discount='reciprocal', gain='exponential'){at}": ("NDCG:type=Exp;denominator=Position", "exponential"),
        f"DCG(discount='reciprocal'){at}": ("DCG:type=Base;denominator=Position", "linear"),
        f"DCG(discount='reciprocal', gain='exponential'){at}": ("DCG:type=Exp;denominator=Position", "exponential"),
    }
    rows = [(q, d, s, r) for q, items in lists.items() for d, s, r in items]
    frame = pl.DataFrame(rows, schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64, "relevance": pl.Int64}, orient="row")
    run = frame.select("query_id", "doc_id", "score")
    qrels = frame.filter(pl.col("relevance").is_not_null()).select("query_id", "doc_id", "relevance")
    assume(qrels.height > 0)  # no judgment at all is an error of its own (tests/inputs)
    want = {(q, name): _catboost(items, cb, k) for q, items in lists.items() for name, (cb, _) in metrics.items()}
    relevant = {q for q, items in lists.items() if any((r or 0) > 0 for _, _, r in items)}

    def check(got: pl.DataFrame, how: str) -> None:
        # rankwise skips a query without judgments (a warning); CatBoost scores its labels 0
        judged = set(qrels["query_id"])
        assert set(got["query_id"]) == judged, how
        for row in got.iter_rows(named=True):
            for name in metrics:
                if name.startswith("nDCG") and row["query_id"] not in relevant:
                    continue
                assert row[name] == pytest.approx(want[(row["query_id"], name)], abs=1e-12), (how, name, row, lists)

    for engine in ("polars", "duckdb"):
        check(run_on(engine, qrels, run, list(metrics), ties="pessimistic"), engine)
    typed = {  # the same through rw.ndcg / rw.dcg: rank by the score, then the label ascending
        name: (rw.ndcg if name.startswith("nDCG") else rw.dcg)(
            "relevance", by=["score", -pl.col("relevance").fill_null(0)], k=k, gain=gain, discount="reciprocal",  # type: ignore[arg-type]
        ).alias(name)
        for name, (_, gain) in metrics.items()
    }
    per_query = frame.filter(pl.col("query_id").is_in(qrels["query_id"].unique().implode()))
    check(per_query.group_by("query_id").agg(*typed.values()), "typed expressions")


# -- rectools' NDCG and MAP: ideal='k', the achievable ideal, AP(denominator='k') --------------------
Recommended = dict[str, tuple[list[str], set[str], set[str]]]
"""Each user's recommendations in rank order, its relevant items and its judged non-relevant items."""


@st.composite
def _recommendations(draw: st.DrawFn) -> Recommended:
    """Users with 0 to 12 recommended items (an empty list: the user is absent from the run),
    binary judgments: 0 to 4 relevant items among the recommended and 0 to 3 beyond them, some
    recommended items judged non-relevant, some unjudged; a user may have nothing relevant."""
    out: Recommended = {}
    for u in range(draw(st.integers(1, 6))):
        listed = [f"i{j}" for j in draw(st.permutations(range(15)))[: draw(st.integers(0, 12))]]
        flags = draw(st.lists(st.sampled_from(["rel", "nonrel", "unjudged"]), min_size=len(listed), max_size=len(listed)))
        relevant = {i for i, f in zip(listed, flags, strict=True) if f == "rel"}
        relevant |= {f"x{j}" for j in range(draw(st.integers(0, 3)))}  # relevant, never recommended
        judged_zero = {i for i, f in zip(listed, flags, strict=True) if f == "nonrel"}
        out[f"u{u}"] = (listed, relevant, judged_zero)
    return out


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(60), deadline=None)
@given(users=_recommendations(), k=st.sampled_from([1, 2, 3, 5, 10]))
def test_ideal_k_and_ap_over_k_are_rectools_ndcg_and_map(users: Recommended, k: int) -> None:
    """Per user, on both engines and through rw.expr (the Polars expressions), rectools 0.19's
    ``calc_per_user`` (binary relevance: the interactions are the relevant items) equals
    ``nDCG(ideal='k')@k`` for ``NDCG(k)`` (the ideal is k relevant items whatever the user has),
    ``nDCG@k`` for ``NDCG(k, divide_by_achievable=True)`` (the ideal over min(R, k)) and
    ``AP(denominator='k')@k`` for ``MAP(k, divide_by_k=True)``; lists are shorter and longer than
    k, scores distinct (rectools reads only the ranks), relevant items may be unrecommended.

    Which users: rectools scores the users of the interactions, so a user with nothing relevant
    is absent from its result (rankwise scores that query 0 for each of the three: checked), and
    a user with relevant items but no recommendation scores 0, which is rankwise's
    ``missing='zero'`` (used here)."""
    pd = pytest.importorskip("pandas")
    rt = pytest.importorskip("rectools.metrics")
    from rectools import Columns

    judged = {u: rel | zero for u, (_, rel, zero) in users.items()}
    # a run none of whose users is judged is an error of its own (tests/inputs/test_meeting.py);
    # rectools fails on no recommendation at all
    assume(any(listed and judged[u] for u, (listed, _, _) in users.items()))
    reco = pd.DataFrame(
        [(u, i, r + 1) for u, (listed, _, _) in users.items() for r, i in enumerate(listed)],
        columns=[Columns.User, Columns.Item, Columns.Rank],
    )
    interactions = pd.DataFrame(
        [(u, i) for u, (_, rel, _) in users.items() for i in sorted(rel)], columns=[Columns.User, Columns.Item]
    )
    metrics = {
        f"nDCG(ideal='k')@{k}": rt.NDCG(k=k),
        f"nDCG@{k}": rt.NDCG(k=k, divide_by_achievable=True),
        f"AP(denominator='k')@{k}": rt.MAP(k=k, divide_by_k=True),
    }
    want = {name: {str(u): float(v) for u, v in m.calc_per_user(reco, interactions).items()} for name, m in metrics.items()}
    relevant = {u for u, (_, rel, _) in users.items() if rel}
    assert all(set(w) == relevant for w in want.values())  # rectools leaves out the users with nothing relevant
    run = pl.DataFrame(
        [(u, i, float(len(listed) - r)) for u, (listed, _, _) in users.items() for r, i in enumerate(listed)],
        schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}, orient="row",
    )
    qrels = pl.DataFrame(
        [(u, i, int(i in users[u][1])) for u, docs in judged.items() for i in sorted(docs)],
        schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64}, orient="row",
    )

    def check(got: pl.DataFrame, how: str) -> None:
        assert set(got["query_id"]) == {u for u, docs in judged.items() if docs}, how
        for row in got.iter_rows(named=True):
            for name in metrics:
                expected = want[name].get(row["query_id"], 0.0)  # absent from rectools: nothing relevant
                assert row[name] == pytest.approx(expected, abs=1e-12), (how, name, row, users)

    for engine in ("polars", "duckdb"):
        check(run_on(engine, qrels, run, list(metrics), missing="zero"), engine)
    frame = rw.judged_frame(qrels, run, missing="zero")
    check(frame.group_by("query_id").agg(rw.exprs(list(metrics))), "rw.expr")
