"""The AUC family against its libraries: ``AUC`` per query is scikit-learn's ``roc_auc_score``
on the query's retrieved list (ties one half; undefined without a positive or a negative),
``PartialAUC@k`` and ``PAP@k`` are rectools' ``PartialAUC`` and ``PAP``, ``PFound`` is CatBoost's
``PFound``; hand-computed values written out on every engine (Polars eager and lazy, DuckDB),
the SQL macros, ``to_sql``, the command line and Spark.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import rankwise as rw
from tests import oracles
from tests.cli.test_cli import cli
from tests.conftest import ENGINES, run_on, run_on_spark
from tests.tiers import examples

Listed = dict[str, list[tuple[str, float, float | None]]]
"""Each query's retrieved list: (doc, score, relevance or None for a document without a judgment)."""

SCHEMA = {"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64, "relevance": pl.Float64}


def _frames(lists: Listed, extra_qrels: Sequence[tuple[str, str, float]] = ()) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(qrels, run) of the lists: the run every listed document, the qrels the judged ones and
    ``extra_qrels`` (judged documents the run does not hold)."""
    frame = pl.DataFrame(
        [(q, d, s, r) for q, items in lists.items() for d, s, r in items], schema=SCHEMA, orient="row",
    )
    run = frame.select("query_id", "doc_id", "score")
    qrels = pl.concat([
        frame.filter(pl.col("relevance").is_not_null()).select("query_id", "doc_id", "relevance"),
        pl.DataFrame(list(extra_qrels), schema={k: SCHEMA[k] for k in ("query_id", "doc_id", "relevance")}, orient="row"),
    ])
    return qrels, run


def _values(got: pl.DataFrame, metric: str) -> dict[str, float | None]:
    return dict(got.select("query_id", metric).iter_rows())


# -- hand-computed values ------------------------------------------------------------------------

HAND: Listed = {
    # scores .4 .3 .2 .1, labels 1 0 1 0: pairs (a,b) (a,d) (c,d) right, (c,b) wrong
    "q": [("a", 0.4, 1.0), ("b", 0.3, 0.0), ("c", 0.2, 1.0), ("d", 0.1, None)],
    # a positive tied with a negative: (a,b) one half, (a,c) right
    "t": [("a", 0.5, 1.0), ("b", 0.5, None), ("c", 0.2, 0.0)],
    # torchmetrics' retrieval_auroc docstring example: preds [0.2, 0.3, 0.5], target [T, F, T] -> 0.5
    "tm": [("a", 0.2, 1.0), ("b", 0.3, 0.0), ("c", 0.5, 1.0)],
    # nothing relevant retrieved; every document relevant
    "n": [("a", 0.5, 0.0), ("b", 0.4, None)],
    "p": [("a", 0.5, 2.0), ("b", 0.4, 1.0)],
}


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
def test_auc_by_hand(engine: str) -> None:
    """q: 3 of its 4 (positive, negative) pairs right, AUC 3/4 (torchmetrics 1.9's
    RetrievalAUROC gives the same 0.75 on labels [1, 0, 1, 0] ranked in order:
    torchmetrics/functional/retrieval/auroc.py, ``retrieval_auroc`` is ``binary_auroc`` of the
    query's top k, and 0.0 where they hold one class only, where rankwise has NULL); AUC@3
    (a, b, c): 1 of 2. tm: that file's docstring example, 0.5.
    t: a positive tied with a negative counts one half: (1/2 + 1) / 2 = 3/4; AUC@2 (a, b): 1/2.
    n (no positive) and p (no negative): undefined, NULL (scikit-learn raises), and left out of
    the mean; m (judged, not retrieved, ``missing='zero'``): NULL too."""
    qrels, run = _frames(HAND, [("m", "z", 1.0)])
    got = run_on(engine, qrels, run, ["AUC", "AUC@3", "AUC@2"], missing="zero")
    assert _values(got, "AUC") == {"q": 0.75, "t": 0.75, "tm": 0.5, "n": None, "p": None, "m": None}
    assert _values(got, "AUC@3")["q"] == pytest.approx(0.5, abs=1e-12)
    assert _values(got, "AUC@2")["t"] == pytest.approx(0.5, abs=1e-12)
    assert rw.summarize(got)["AUC"][0] == pytest.approx((0.75 + 0.75 + 0.5) / 3, abs=1e-12)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
def test_query_auc_by_hand(engine: str) -> None:
    """CatBoost 1.2.10's QueryAUC:type=Ranking: labels [1, 0, 1, 0] scored in order: 3 of 4
    pairs right, 0.75; [1, 0] tied: 1/2; [2, 1, 0] scored [.1, .3, .2]: of (2, 1), (2, 0),
    (1, 0) only (1, 0) right, 1/3; [1, 1]: no pair of different labels, 0 (CatBoost);
    [3, 0, 2, 5, 0, 1] scored [1, 1, 2, .5, 3, 1]: 14 pairs, (5, ·)·5 → 0, (3, 2) → 0,
    (3, 0)·2 → 1/2 + 0, (3, 1) → 1/2, (2, 0)·2 → 1 + 0, (2, 1) → 1, (1, 0)·2 → 1/2 + 0:
    3.5/14 = 1/4; QueryAUC@3 of it (the top 3: label 0 scored 3, label 2 scored 2, then of the
    three tied at 1 the largest id, label 1): (2, 0) → 0, (1, 0) → 0, (2, 1) → 1: 1/3."""
    rows = {
        "b": ([1, 0, 1, 0], [0.4, 0.3, 0.2, 0.1]), "t": ([1, 0], [0.4, 0.4]), "g": ([2, 1, 0], [0.1, 0.3, 0.2]),
        "one": ([1, 1], [1.0, 2.0]), "mix": ([3, 0, 2, 5, 0, 1], [1.0, 1.0, 2.0, 0.5, 3.0, 1.0]),
    }
    lists: Listed = {q: [(f"d{i}", s, float(r)) for i, (r, s) in enumerate(zip(*row, strict=True))] for q, row in rows.items()}
    qrels, run = _frames(lists)
    got = run_on(engine, qrels, run, ["QueryAUC", "QueryAUC@3"])
    assert _values(got, "QueryAUC") == pytest.approx({"b": 0.75, "t": 0.5, "g": 1 / 3, "one": 0.0, "mix": 0.25}, abs=1e-12)
    assert _values(got, "QueryAUC@3")["mix"] == pytest.approx(1 / 3, abs=1e-12)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("bad", [2.5, 32.0])
def test_query_auc_refuses_a_label_it_cannot_count(engine: str, bad: float) -> None:
    """QueryAUC counts integer labels 0..31: a fraction or a larger label is an InvalidValueError
    naming it, on both engines."""
    lists: Listed = {"q": [("a", 0.5, bad), ("b", 0.4, 0.0)]}
    qrels, run = _frames(lists)
    with pytest.raises(rw.InvalidValueError, match=rf"QueryAUC reads .* integer label from 0 to 31 .*got {bad}$"):
        run_on(engine, qrels, run, ["QueryAUC"])
    assert run_on(engine, qrels, run, ["AUC"])["AUC"][0] == 1.0  # the other metrics read it as it is


def test_query_auc_refuses_a_label_on_the_command_line(tmp_path: Path) -> None:
    """`rankwise eval -m QueryAUC` on a qrels file with a fractional label: one line naming it,
    exit 2."""
    run_file, qrels_file = tmp_path / "r.run", tmp_path / "q.qrels"
    run_file.write_text("q Q0 a 1 0.5 x\nq Q0 b 2 0.4 x\n")
    qrels_file.write_text("q 0 a 2.5\nq 0 b 0\n")
    out = cli("eval", str(qrels_file), str(run_file), "-m", "QueryAUC")
    assert out.returncode == 2, out.stdout
    assert len(out.stderr.strip().splitlines()) == 1
    assert "integer label from 0 to 31" in out.stderr and "got 2.5" in out.stderr


RANKED = [("a", 0.9), ("b", 0.8), ("c", 0.7), ("d", 0.6), ("e", 0.5)]


def _ranked(relevant: set[str]) -> list[tuple[str, float, float | None]]:
    return [(d, s, 1.0 if d in relevant else None) for d, s in RANKED]


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
def test_partial_auc_and_pap_by_hand(engine: str) -> None:
    """Ranking a b c d e; n_r the non-relevant documents above the relevant r.
    {a, c}, k=2: ((2 − 0) + (2 − 1)) / (2·2) = 3/4 (both metrics);
    {b, d}, k=2: ((2 − 1) + (2 − 2)) / (2·2) = 1/4;
    {b, d, z} (z not retrieved), k=3: ((3 − 1) + (3 − 2) + 0) / (3·3) = 1/3 (PAP: β = 3, the same);
    {a, c, d}, k=2: pAUC ((2 − 0) + (2 − 1) + (2 − 1)) / (3·2) = 2/3; pAp counts the first
    β = min(3, 2) = 2 relevant only: ((2 − 0) + (2 − 1)) / (2·2) = 3/4 (rectools' examples).
    Nothing relevant: 0 (rectools leaves the user out)."""
    cases = {"ac": {"a", "c"}, "bd": {"b", "d"}, "bdz": {"b", "d"}, "acd": {"a", "c", "d"}, "none": set()}
    lists = {q: _ranked(rel) for q, rel in cases.items()}
    lists["none"][0] = ("a", 0.9, 0.0)  # judged, not relevant
    qrels, run = _frames(lists, [("bdz", "z", 1.0)])
    got = run_on(engine, qrels, run, ["PartialAUC@2", "PartialAUC@3", "PAP@2", "PAP@3"])
    assert _values(got, "PartialAUC@2") == pytest.approx({"ac": 3 / 4, "bd": 1 / 4, "bdz": 1 / 6, "acd": 2 / 3, "none": 0.0}, abs=1e-12)
    assert _values(got, "PartialAUC@3")["bdz"] == pytest.approx(1 / 3, abs=1e-12)
    assert _values(got, "PAP@3")["bdz"] == pytest.approx(1 / 3, abs=1e-12)
    assert _values(got, "PAP@2") == pytest.approx({"ac": 3 / 4, "bd": 1 / 4, "bdz": 1 / 4, "acd": 3 / 4, "none": 0.0}, abs=1e-12)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
def test_pfound_by_hand(engine: str) -> None:
    """PFound = Σ P_look(i)·l_i, P_look(i+1) = P_look(i)·(1 − l_i)·decay (CatBoost 1.2.10's
    values): [0, 1, 1] → 0.85; [0.5, 0.25, 1] → 0.5 + 0.5·0.85·0.25 + 0.5·0.85·0.75·0.85;
    [0, 2] → 0.85·2 = 1.7 (not clipped); [2, 3]: 2 + (1 − 2)·0.85·3 = −0.55 (a factor below 0);
    PFound(decay=0.5) of [1, 1] → 1; PFound@2 of [0.5, 0.25, 1] → 0.5 + 0.5·0.85·0.25;
    [−1, 1]: the negative judgment gains 0 (rankwise's pooled-unjudged), 0.85 (CatBoost, which
    keeps −1, gives 0.7); nothing relevant: 0."""
    rows = {
        "b": [0.0, 1.0, 1.0], "g": [0.5, 0.25, 1.0], "two": [0.0, 2.0], "flip": [2.0, 3.0], "one": [1.0, 1.0],
        "neg": [-1.0, 1.0], "zero": [0.0, 0.0],
    }
    lists: Listed = {q: [(f"d{i}", 10.0 - i, r) for i, r in enumerate(labels)] for q, labels in rows.items()}
    qrels, run = _frames(lists)
    got = run_on(engine, qrels, run, ["PFound", "PFound@2", "PFound(decay=0.5)"])
    g = 0.5 + 0.5 * 0.85 * 0.25 + 0.5 * 0.85 * 0.75 * 0.85
    assert _values(got, "PFound") == pytest.approx(
        {"b": 0.85, "g": g, "two": 1.7, "flip": -0.55, "one": 1.0, "neg": 0.85, "zero": 0.0}, abs=1e-12,
    )
    assert _values(got, "PFound@2")["g"] == pytest.approx(0.5 + 0.5 * 0.85 * 0.25, abs=1e-12)
    assert _values(got, "PFound(decay=0.5)")["one"] == pytest.approx(1.0, abs=1e-12)


def test_explain_shows_partial_auc_past_k() -> None:
    """PartialAUC@2's k counts non-relevant documents, not ranks: ranking a b c d e, relevant
    {a, c, d}, d at rank 4 still has one non-relevant document above it and adds 2 − 1; explain
    shows every rank, each adding its own part over R·k = 6, and ends in evaluate's 2/3."""
    lists = {"q": _ranked({"a", "c", "d"})}
    qrels, run = _frames(lists)
    table = rw.explain(qrels, run, "PartialAUC@2", "q")
    assert table["doc_id"].to_list() == ["a", "b", "c", "d", "e"]
    assert table["contribution"].to_list() == pytest.approx([2 / 6, 0.0, 1 / 6, 1 / 6, 0.0], abs=1e-12)
    assert table["value"][-1] == pytest.approx(2 / 3, abs=1e-12)
    assert rw.explain(qrels, run, "AUC@2", "q")["doc_id"].to_list() == ["a", "b"]  # AUC's k is a rank


# -- against scikit-learn: AUC per query -----------------------------------------------------------


@st.composite
def _lists(draw: st.DrawFn, labels: st.SearchStrategy[float | None]) -> Listed:
    """Queries of 1 to 12 retrieved documents with scores from a few values (ties) or distinct,
    labels from ``labels`` (None: no judgment)."""
    out: Listed = {}
    for q in range(draw(st.integers(1, 6))):
        n = draw(st.integers(1, 12))
        if draw(st.booleans()):
            scores = [float(s) for s in draw(st.permutations(range(n)))]
        else:
            scores = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, -1.5]), min_size=n, max_size=n))
        rels = draw(st.lists(labels, min_size=n, max_size=n))
        out[f"q{q}"] = [(f"d{i:02d}", s, r) for i, (s, r) in enumerate(zip(scores, rels, strict=True))]
    return out


def _trec_eval_order(items: list[tuple[str, float, float | None]]) -> list[tuple[str, float, float | None]]:
    """rankwise's default ranking: by score descending, then the doc id descending."""
    return sorted(items, key=lambda it: (it[1], it[0]), reverse=True)


def _sklearn_auc(items: list[tuple[str, float, float | None]], rel: float) -> float | None:
    from sklearn.metrics import roc_auc_score

    y = [int(r is not None and r >= rel) for _, _, r in items]
    if len(set(y)) < 2:
        return None  # roc_auc_score raises: "Only one class is present in y_true"
    return float(roc_auc_score(y, [s for _, s, _ in items]))


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(lists=_lists(st.one_of(st.none(), st.sampled_from([-1.0, 0.0, 1.0, 2.0]))), k=st.sampled_from([None, 1, 3, 5, 20]),
       rel=st.sampled_from([1, 2]))
def test_auc_is_scikit_learn_roc_auc_per_query(lists: Listed, k: int | None, rel: int) -> None:
    """AUC(rel=r)@k per query is scikit-learn's ``roc_auc_score`` on the query's top k (positive:
    relevance ≥ r; unjudged and negative judgments negative; ties one half), NULL where
    scikit-learn raises (one class only), on both engines and through ``rw.expr``; k beyond the
    list is the whole list."""
    metric = f"AUC(rel={rel})" + ("" if k is None else f"@{k}")
    qrels, run = _frames(lists)
    assume(qrels.height > 0)
    want = {q: _sklearn_auc(_trec_eval_order(items)[:k], rel) for q, items in lists.items()}

    def check(got: pl.DataFrame, how: str) -> None:
        assert set(got["query_id"]) == set(qrels["query_id"]), how
        for q, value in got.select("query_id", metric).iter_rows():
            if want[q] is None:
                assert value is None, (how, q, lists[q])
            else:
                assert value == pytest.approx(want[q], abs=1e-12), (how, q, lists[q])

    for engine in ("polars", "duckdb"):
        check(run_on(engine, qrels, run, [metric]), engine)
    check(rw.judged_frame(qrels, run).group_by("query_id").agg(rw.expr(metric)), "rw.expr")


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(lists=_lists(st.one_of(st.none(), st.sampled_from([0.0, 1.0]))))
def test_auc_of_the_reversed_scores_is_one_minus_auc(lists: Listed) -> None:
    """Negating every score turns each (positive, negative) pair's order around and keeps its
    ties, so AUC(−s) = 1 − AUC(s) on every query where it is defined (ties or not)."""
    qrels, run = _frames(lists)
    assume(qrels.height > 0)
    reversed_run = run.with_columns(-pl.col("score"))
    for engine in ("polars", "duckdb"):
        ahead = _values(run_on(engine, qrels, run, ["AUC"]), "AUC")
        behind = _values(run_on(engine, qrels, reversed_run, ["AUC"]), "AUC")
        for q, value in ahead.items():
            if value is None:
                assert behind[q] is None
            else:
                assert behind[q] == pytest.approx(1.0 - value, abs=1e-12), (engine, q, lists[q])


# -- against CatBoost: PFound ----------------------------------------------------------------------


def _catboost(items: list[tuple[str, float, float | None]], metric: str, k: int | None) -> float:
    """CatBoost's ``metric`` on one query's list (labels: unjudged 0), cut at ``top=k``."""
    labels = [0.0 if r is None else r for _, _, r in items]
    return oracles.catboost(labels, [s for _, s, _ in items], metric if k is None else f"{metric};top={k}")


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(lists=_lists(st.one_of(st.none(), st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0, 3.0]))),
       k=st.sampled_from([None, 1, 3, 5, 20]), decay=st.sampled_from([0.85, 0.5, 1.0]))
def test_pfound_is_catboost_pfound(lists: Listed, k: int | None, decay: float) -> None:
    """PFound(decay=d)@k with ``ties='pessimistic'`` (CatBoost puts the lower target first among
    equal scores) is CatBoost's ``PFound:decay=d;top=k`` per query (graded and fractional labels,
    exact in CatBoost's float32; labels above 1 not clipped; k beyond the list), on both engines
    and through ``rw.expr``."""
    metric = f"PFound(decay={decay})" + ("" if k is None else f"@{k}")
    qrels, run = _frames(lists)
    assume(qrels.height > 0)
    want = {q: _catboost(items, f"PFound:decay={decay}", k) for q, items in lists.items()}

    def check(got: pl.DataFrame, how: str) -> None:
        assert set(got["query_id"]) == set(qrels["query_id"]), how
        for q, value in got.select("query_id", metric).iter_rows():
            assert value == pytest.approx(want[q], abs=1e-9), (how, q, lists[q])

    for engine in ("polars", "duckdb"):
        check(run_on(engine, qrels, run, [metric], ties="pessimistic"), engine)
    check(rw.judged_frame(qrels, run).group_by("query_id").agg(rw.expr(metric, ties="pessimistic")), "rw.expr")


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(lists=_lists(st.one_of(st.none(), st.sampled_from([0.0, 1.0, 2.0, 3.0, 7.0, 31.0]))),
       k=st.sampled_from([None, 1, 3, 5, 20]))
def test_query_auc_is_catboost_query_auc(lists: Listed, k: int | None) -> None:
    """QueryAUC per query is CatBoost's ``QueryAUC:type=Ranking`` (graded pairs, ties one half,
    0 without a pair of different labels; labels across the five binary digits, up to 31), on
    the whole list and, cut by rankwise's default ranking, on the top k (CatBoost's QueryAUC has
    no top: it gets the top k as its list), on both engines and through ``rw.expr``."""
    metric = "QueryAUC" + ("" if k is None else f"@{k}")
    qrels, run = _frames(lists)
    assume(qrels.height > 0)
    want = {q: _catboost(_trec_eval_order(items)[:k], "QueryAUC:type=Ranking", None) for q, items in lists.items()}

    def check(got: pl.DataFrame, how: str) -> None:
        assert set(got["query_id"]) == set(qrels["query_id"]), how
        for q, value in got.select("query_id", metric).iter_rows():
            assert value == pytest.approx(want[q], abs=1e-12), (how, q, lists[q])

    for engine in ("polars", "duckdb"):
        check(run_on(engine, qrels, run, [metric]), engine)
    check(rw.judged_frame(qrels, run).group_by("query_id").agg(rw.expr(metric)), "rw.expr")


# -- against rectools: PartialAUC and PAP --------------------------------------------------------


@contextmanager
def _rectools_on_pandas_3() -> Iterator[Any]:
    """rectools' AUC metrics, with the shim pandas 3 needs (rectools 0.19 pins pandas < 3): its
    ``outer_merge_reco`` ends with ``fillna(False)`` on an object column, which pandas 3 no longer
    downcasts to bool, and ``PartialAUC``/``PAP`` then fail with ``TypeError: cumsum is not
    supported for object dtype``; the shim casts ``__test_positive`` to bool (what pandas 2
    returned) and nothing else. Test-only: rankwise never imports rectools."""
    pd = pytest.importorskip("pandas")
    metrics = pytest.importorskip("rectools.metrics")
    from rectools import Columns
    from rectools.metrics import auc

    original = auc.outer_merge_reco

    def merged(reco: Any, interactions: Any) -> Any:
        out = original(reco, interactions)
        out["__test_positive"] = out["__test_positive"].astype(bool)
        if out[Columns.Rank].dtype == object:
            out[Columns.Rank] = pd.to_numeric(out[Columns.Rank])
        return out

    with pytest.MonkeyPatch.context() as mp:
        if int(pd.__version__.split(".")[0]) >= 3:
            mp.setattr(auc, "outer_merge_reco", merged)
        yield metrics


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(lists=_lists(st.one_of(st.none(), st.sampled_from([0.0, 1.0, 2.0]))), unretrieved=st.integers(0, 3),
       k=st.sampled_from([1, 2, 3, 5, 20]))
def test_partial_auc_and_pap_are_rectools(lists: Listed, unretrieved: int, k: int) -> None:
    """PartialAUC@k and PAP@k per query are rectools 0.19's ``PartialAUC(k)`` and ``PAP(k)``
    (``insufficient_handling='ignore'``, its default) on the ranking rankwise makes (rectools
    reads ranks only: ties by the default ``trec_eval`` order, score then doc id descending),
    the interactions the documents of relevance ≥ 1, some never retrieved (each query gets
    ``unretrieved`` of them), on both engines and through ``rw.expr``. rectools scores the
    users of the interactions: a query with nothing relevant is absent there, 0 here."""
    pd = pytest.importorskip("pandas")
    extra = [(q, f"z{j}", 1.0) for q in lists for j in range(unretrieved)]
    qrels, run = _frames(lists, extra)
    assume(qrels.height > 0)
    with _rectools_on_pandas_3() as rt:
        from rectools import Columns

        reco = pd.DataFrame(
            [(q, d, i + 1) for q, items in lists.items() for i, (d, _, _) in enumerate(_trec_eval_order(items))],
            columns=[Columns.User, Columns.Item, Columns.Rank],
        )
        interactions = pd.DataFrame(
            [(q, d) for q, d, r in qrels.iter_rows() if r >= 1], columns=[Columns.User, Columns.Item],
        )
        assume(len(interactions) > 0)
        metrics = {f"PartialAUC@{k}": rt.PartialAUC(k=k), f"PAP@{k}": rt.PAP(k=k)}
        want = {name: {str(u): float(v) for u, v in m.calc_per_user(reco, interactions).items()} for name, m in metrics.items()}

    def check(got: pl.DataFrame, how: str) -> None:
        for row in got.iter_rows(named=True):
            for name in metrics:
                expected = want[name].get(row["query_id"], 0.0)  # absent from rectools: nothing relevant
                assert row[name] == pytest.approx(expected, abs=1e-12), (how, name, row, lists)

    for engine in ("polars", "duckdb"):
        check(run_on(engine, qrels, run, list(metrics)), engine)
    check(rw.judged_frame(qrels, run).group_by("query_id").agg(rw.exprs(list(metrics))), "rw.expr")


# -- the SQL macros, to_sql, the command line, Spark -----------------------------------------------

FAMILY = ["AUC", "AUC@3", "QueryAUC", "PartialAUC@2", "PAP@2", "PFound", "PFound@2"]
HAND_VALUES: dict[str, dict[str, float | None]] = {  # the HAND lists' values (test_auc_by_hand; PartialAUC, PAP and PFound by hand below)
    # q: ranking a b c d, relevant {a, c}: QueryAUC as AUC; pAUC@2 = pAp@2 = (2 + 1) / 4; PFound = 1 + 0 (a stops the user)
    "q": {"AUC": 0.75, "AUC@3": 0.5, "QueryAUC": 0.75, "PartialAUC@2": 0.75, "PAP@2": 0.75, "PFound": 1.0, "PFound@2": 1.0},
    # t: ranking b a c (ties: doc id descending), relevant {a}: QueryAUC (a, b) 1/2, (a, c) 1: 3/4;
    # pAUC@2 = (2 − 1) / 2; PFound = 0.85
    "t": {"AUC": 0.75, "AUC@3": 0.75, "QueryAUC": 0.75, "PartialAUC@2": 0.5, "PAP@2": 0.5, "PFound": 0.85, "PFound@2": 0.85},
    # p: labels 2, 1: QueryAUC 1 (its one pair right); pAUC@2 = (2 + 2) / 4; PFound = 2 + (1 − 2)·0.85·1 = 1.15
    "p": {"AUC": None, "AUC@3": None, "QueryAUC": 1.0, "PartialAUC@2": 1.0, "PAP@2": 1.0, "PFound": 1.15, "PFound@2": 1.15},
}


def _check_hand(got: pl.DataFrame, how: str) -> None:
    rows = {r["query_id"]: r for r in got.iter_rows(named=True)}
    for q, values in HAND_VALUES.items():
        for name, value in values.items():
            if value is None:
                assert rows[q][name] is None, (how, q, name)
            else:
                assert rows[q][name] == pytest.approx(value, abs=1e-12), (how, q, name, rows[q][name])


def _hand_frames() -> tuple[pl.DataFrame, pl.DataFrame]:
    return _frames({q: HAND[q] for q in HAND_VALUES})


def test_the_family_in_the_sql_macros_and_to_sql() -> None:
    """The macros by hand in a user's query (rw_tie_rank's midranks, rw_auc_rank_sum), each
    metric as a DuckDB aggregate (``rw.sql_expr``) over the judged frame, and ``to_sql``'s
    statement run on a bare DuckDB connection give the hand values."""
    con = rw.register(duckdb.connect())
    con.execute("CREATE TABLE j AS SELECT * FROM (VALUES ('t', 'a', 0.5, 1), ('t', 'b', 0.5, NULL), ('t', 'c', 0.2, 0)) "
                "v(query_id, doc_id, score, relevance)")
    row = con.sql("""
        SELECT query_id, rw_auc_rank_sum(relevance, rnk, trank, 1, NULL) AS ranksum, count(*) AS n
        FROM (SELECT *, rw_tie_rank(rnk, query_id, score, NULL) AS trank
              FROM (SELECT *, row_number() OVER (PARTITION BY query_id ORDER BY score DESC, doc_id DESC) AS rnk FROM j))
        GROUP BY query_id
    """).fetchall()
    assert row == [("t", 1.5, 3)]  # a shares ranks 1 and 2 with b: midrank 1.5; U = 1·4 − 1.5 − 1 = 1.5, AUC = 1.5 / 2
    qrels, run = _hand_frames()
    con.register("judged", rw.judged_frame(qrels, run))
    exprs = ", ".join(f'{rw.sql_expr(m)} AS "{m}"' for m in FAMILY)
    _check_hand(con.sql(f"SELECT query_id, {exprs} FROM judged GROUP BY query_id").pl(), "rw.sql_expr")
    bare = duckdb.connect()
    bare.register("qrels", qrels)
    bare.register("run", run)
    _check_hand(bare.sql(rw.to_sql(FAMILY)).pl(), "to_sql")
    # a label QueryAUC cannot count fails the statement, naming it (as rw.evaluate's error)
    bare.register("qrels", qrels.with_columns(pl.col("relevance") + 0.5))
    with pytest.raises(duckdb.Error, match=r"rankwise: QueryAUC reads .* integer label from 0 to 31 .*got [0-9]\.5"):
        bare.sql(rw.to_sql(["QueryAUC"])).fetchall()


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_the_family_on_the_command_line(tmp_path: Path, engine: str) -> None:
    """`rankwise eval -m AUC -m ...` on TREC files: the hand values per query, an undefined AUC
    printed empty in CSV."""
    qrels, run = _hand_frames()
    run_file, qrels_file = tmp_path / "r.run", tmp_path / "q.qrels"
    run_file.write_text("".join(f"{q} Q0 {d} 0 {s} x\n" for q, d, s in run.iter_rows()))
    qrels_file.write_text("".join(f"{q} 0 {d} {int(r)}\n" for q, d, r in qrels.iter_rows()))
    args = [a for name in FAMILY for a in ("-m", name)]
    out = cli("eval", str(qrels_file), str(run_file), *args, "--per-query", "--format", "csv", "--engine", engine)
    assert out.returncode == 0, out.stderr
    _check_hand(pl.read_csv(io.StringIO(out.stdout)), engine)


def test_the_family_on_spark(spark: Any) -> None:
    """rw.spark.evaluate (to_sql's Spark SQL) gives the hand values; a label QueryAUC cannot
    count fails the action with Spark's raise_error, naming it."""
    qrels, run = _hand_frames()
    _check_hand(run_on_spark(spark, qrels, run, FAMILY), "spark")
    with pytest.raises(Exception, match=r"rankwise: QueryAUC reads .* integer label from 0 to 31 .*got [0-9]\.5"):
        run_on_spark(spark, qrels.with_columns(pl.col("relevance") + 0.5), run, ["QueryAUC"])


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_a_list_of_one_class_scores_what_empty_says(engine: str) -> None:
    """AUC is undefined on a list of one class: q2 holds no relevant document, q3 no other;
    empty='skip' (the default) leaves them NULL, 0 is torchmetrics' RetrievalAUROC
    (functional/retrieval/auroc.py returns 0 when the target holds one class), 1 the other end."""
    qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q3", "q3"], "doc_id": ["a", "b", "c", "d", "e"],
                          "relevance": [1, 0, 0, 1, 1]})
    run = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q3", "q3"], "doc_id": ["a", "b", "c", "d", "e"],
                        "score": [1.0, 2.0, 1.0, 1.0, 0.5]})
    got = rw.evaluate(qrels, run, ["AUC", "AUC(empty=0)", "AUC(empty=1)"], engine=engine)
    assert got.rows() == [("q1", 0.0, 0.0, 0.0), ("q2", None, 0.0, 1.0), ("q3", None, 0.0, 1.0)]
    with pytest.raises(rw.InvalidParameterError, match="empty"):
        rw.parse_metric("AUC(empty='error')")
