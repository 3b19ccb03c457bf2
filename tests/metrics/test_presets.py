"""``like=``: each preset gives, per query, the library's own value of each metric it offers.

Every library that runs on a CPU-only machine is called here (LightGBM, XGBoost, CatBoost,
scikit-learn, rectools; Spark MLlib in the slow tier); torchmetrics (whose torch pulls the CUDA
stack) by values computed from its published source, cited at the test. The lists are drawn with
graded or binary labels, unjudged documents (label 0 to a library), tied scores, queries with
nothing relevant and cutoffs beyond the list; the qrels also judge documents the run did not
retrieve, which the machine-learning libraries never see (``judgments='retrieved'``).
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.names.presets import PRESETS, presets_table
from tests import oracles
from tests.conftest import run_on
from tests.tiers import examples

Item = tuple[str, float, int | None]
Lists = dict[str, list[Item]]
"""Per query its list in input order: (doc, score, label; None = unjudged)."""

ENGINES = ("polars", "duckdb")


@st.composite
def _lists(draw: st.DrawFn, top: int = 3, ties: bool = True) -> tuple[Lists, list[tuple[str, str, int]]]:
    """Queries of 1 to 9 documents, scores tied (a few values) or distinct, labels 0..top or
    unjudged; each query has at least one judgment. Also judgments of documents the run does not
    hold (relevant ones among them), which only trec_eval's conventions see."""
    out: Lists = {}
    unretrieved: list[tuple[str, str, int]] = []
    for q in range(draw(st.integers(1, 5))):
        n = draw(st.integers(1, 9))
        if ties and draw(st.booleans()):
            scores = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=n, max_size=n))
        else:
            scores = [float(s) + 0.25 for s in draw(st.permutations(range(n)))]
        labels = draw(st.lists(st.one_of(st.none(), st.integers(0, top)), min_size=n, max_size=n))
        if all(label is None for label in labels):
            labels[0] = draw(st.integers(0, top))
        out[f"q{q}"] = [(f"d{i}", s, r) for i, (s, r) in enumerate(zip(scores, labels, strict=True))]
        for j in range(draw(st.integers(0, 2))):
            unretrieved.append((f"q{q}", f"u{j}", draw(st.integers(0, top))))
    return out, unretrieved


def _frames(lists: Lists, unretrieved: list[tuple[str, str, int]]) -> tuple[pl.DataFrame, pl.DataFrame]:
    rows = [(q, d, s, r) for q, items in lists.items() for d, s, r in items]
    frame = pl.DataFrame(
        rows, schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64, "relevance": pl.Int64},
        orient="row",
    )
    run = frame.select("query_id", "doc_id", "score")
    extra = pl.DataFrame(unretrieved, schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64},
                         orient="row")
    qrels = pl.concat([frame.filter(pl.col("relevance").is_not_null()).select("query_id", "doc_id", "relevance"), extra])
    return qrels, run


def _labels(items: list[Item]) -> tuple[list[float], list[float]]:
    return [0.0 if r is None else float(r) for _, _, r in items], [s for _, s, _ in items]


# -- the libraries, called on one query's list --------------------------------------------------


def _lightgbm(items: list[Item], metric: str, k: int) -> float:
    return oracles.lightgbm(*_labels(items), metric, k)


def _xgboost(items: list[Item], metric: str) -> float:
    return oracles.xgboost(*_labels(items), metric)[metric]


def _catboost(items: list[Item], metric: str) -> float:
    return oracles.catboost(*_labels(items), metric)


def _check(lists: Lists, got: pl.DataFrame, column: str, want: Callable[[list[Item]], float], how: str,
           abs_tol: float = 1e-12) -> None:
    assert set(got["query_id"]) == set(lists), how
    for q, value in got.select("query_id", column).iter_rows():
        assert value == pytest.approx(want(lists[q]), abs=abs_tol), (how, q, lists[q])


# -- the presets ------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(30), deadline=None)
@given(drawn=_lists(), k=st.sampled_from([1, 3, 5, 20]))
def test_lightgbm_preset_is_lightgbm(drawn: tuple[Lists, list[tuple[str, str, int]]], k: int) -> None:
    """LightGBM's ndcg@k and map@k (its metric code run on the scores as init_score, no tree
    grown): exponential gain from the list's own labels, the ideal from the list, ties in input
    order, a query with nothing relevant 1."""
    lists, unretrieved = drawn
    qrels, run = _frames(lists, unretrieved)
    for engine in ENGINES:
        got = run_on(engine, qrels, run, [f"nDCG@{k}", f"AP@{k}"], like="lightgbm")
        _check(lists, got, f"nDCG@{k}", lambda items: _lightgbm(items, "ndcg", k), engine)
        _check(lists, got, f"AP@{k}", lambda items: _lightgbm(items, "map", k), engine)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(30), deadline=None)
@given(drawn=_lists(top=1), graded=_lists(top=3), k=st.sampled_from([1, 3, 5, 20]))
def test_xgboost_preset_is_xgboost(
    drawn: tuple[Lists, list[tuple[str, str, int]]], graded: tuple[Lists, list[tuple[str, str, int]]], k: int,
) -> None:
    """XGBoost's ndcg@k, ndcg@k- (graded labels), map@k, map@k- and pre@k (binary labels, as
    XGBoost requires): printed to 6 digits."""
    for (lists, unretrieved), metrics in (
        (graded, {f"nDCG@{k}": f"ndcg@{k}", f"nDCG@{k}-": f"ndcg@{k}-"}),
        (drawn, {f"AP@{k}": f"map@{k}", f"AP@{k}-": f"map@{k}-", f"P@{k}": f"pre@{k}"}),
    ):
        qrels, run = _frames(lists, unretrieved)
        for engine in ENGINES:
            got = run_on(engine, qrels, run, list(metrics), like="xgboost")
            for ours, theirs in metrics.items():
                column = ours.replace(f"@{k}-", f"(empty=0)@{k}")  # the suffix written out
                _check(lists, got, column, lambda items, m=theirs: _xgboost(items, m), engine, abs_tol=1e-6)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(30), deadline=None)
@given(drawn=_lists(), k=st.sampled_from([1, 3, 5, 20]))
def test_catboost_preset_is_catboost(drawn: tuple[Lists, list[tuple[str, str, int]]], k: int) -> None:
    """CatBoost's NDCG, DCG, MAP, MRR, PrecisionAt and RecallAt at top=k (catboost.utils.eval_metric
    on one query's group): the lower label first among equal scores, labels > 0.5 relevant."""
    lists, unretrieved = drawn
    qrels, run = _frames(lists, unretrieved)
    metrics = {
        f"nDCG@{k}": f"NDCG:top={k}", f"DCG@{k}": f"DCG:top={k}", f"AP@{k}": f"MAP:top={k}",
        f"RR@{k}": f"MRR:top={k}", f"P@{k}": f"PrecisionAt:top={k}", f"R@{k}": f"RecallAt:top={k}",
        f"PFound@{k}": f"PFound:top={k}", "QueryAUC": "QueryAUC:type=Ranking",
    }
    for engine in ENGINES:
        got = run_on(engine, qrels, run, list(metrics), like="catboost")
        for ours, theirs in metrics.items():
            _check(lists, got, ours, lambda items, m=theirs: _catboost(items, m), engine, abs_tol=1e-9)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(30), deadline=None)
@given(drawn=_lists(), k=st.sampled_from([1, 3, 5, 20]))
def test_sklearn_preset_is_scikit_learn(drawn: tuple[Lists, list[tuple[str, str, int]]], k: int) -> None:
    """scikit-learn's ndcg_score and dcg_score with k, one row per query (the tie-averaged
    discount), and roc_auc_score on each query's list (relevance >= 1 positive) where it holds both
    classes (scikit-learn raises on the others; rankwise leaves them NULL)."""
    from sklearn.metrics import dcg_score, ndcg_score, roc_auc_score

    lists, unretrieved = drawn
    qrels, run = _frames(lists, unretrieved)

    def ndcg(items: list[Item]) -> float:
        labels, scores = _labels(items)
        return float(ndcg_score([labels], [scores], k=k)) if len(items) > 1 else math.nan

    def dcg(items: list[Item]) -> float:
        labels, scores = _labels(items)
        return float(dcg_score([labels], [scores], k=k))

    for engine in ENGINES:
        got = run_on(engine, qrels, run, [f"nDCG@{k}", f"DCG@{k}"], like="sklearn")
        # scikit-learn refuses a one-document row (ndcg_score says so; dcg_score reads it as binary input)
        several = {q: items for q, items in lists.items() if len(items) > 1}
        shown = got.filter(pl.col("query_id").is_in(list(several)))
        _check(several, shown, f"DCG@{k}", dcg, engine)
        _check(several, shown, f"nDCG@{k}", ndcg, engine)
        auc = run_on(engine, qrels, run, ["AUC"], like="sklearn")
        for q, value in auc.iter_rows():
            labels, scores = _labels(lists[q])
            classes = {label >= 1 for label in labels}
            want = float(roc_auc_score([label >= 1 for label in labels], scores)) if len(classes) == 2 else None
            assert value == (None if want is None else pytest.approx(want, abs=1e-12)), (engine, q, lists[q])


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(25), deadline=None)
@given(drawn=_lists(top=1), k=st.sampled_from([1, 3, 5, 20]))
def test_rectools_preset_is_rectools(drawn: tuple[Lists, list[tuple[str, str, int]]], k: int) -> None:
    """rectools' NDCG, MAP, Precision, Recall, MRR and HitRate per user (calc_per_user): the
    recommendations ranked in input order, the interactions every relevant judgment (retrieved
    or not); users with nothing relevant are absent from rectools' result, as from rankwise's
    means (empty='skip': NULL)."""
    import pandas as pd
    from rectools import metrics as rt

    lists, unretrieved = drawn
    qrels, run = _frames(lists, unretrieved)
    ranked = run.with_columns(
        rank=pl.col("score").rank("ordinal", descending=True).over("query_id")  # stable: input order
    )
    reco = pd.DataFrame({"user_id": ranked["query_id"].to_list(), "item_id": ranked["doc_id"].to_list(),
                         "rank": ranked["rank"].to_list()})
    relevant = qrels.filter(pl.col("relevance") >= 1)
    interactions = pd.DataFrame({"user_id": relevant["query_id"].to_list(), "item_id": relevant["doc_id"].to_list()})
    assume(len(interactions) > 0)
    metrics = {
        f"nDCG@{k}": rt.NDCG(k=k), f"AP@{k}": rt.MAP(k=k), f"P@{k}": rt.Precision(k=k),
        f"R@{k}": rt.Recall(k=k), f"RR@{k}": rt.MRR(k=k), f"Success@{k}": rt.HitRate(k=k),
    }
    for engine in ENGINES:
        got = run_on(engine, qrels, run, list(metrics), like="rectools")
        for ours, metric in metrics.items():
            want = metric.calc_per_user(reco, interactions)
            values = {q: v for q, v in got.select("query_id", ours).iter_rows() if v is not None}
            assert set(values) == set(want.index), (engine, ours)
            for q, value in values.items():
                assert value == pytest.approx(float(want[q]), abs=1e-12), (engine, ours, q, lists[q])


def test_torchmetrics_preset_gives_torchmetrics_values_from_its_source() -> None:
    """torchmetrics 1.9 (src/torchmetrics/functional/retrieval/*.py and retrieval/base.py), values
    computed from its source (torch pulls the CUDA stack here): RetrievalNormalizedDCG is
    scikit-learn's tie-averaged DCG over the list's own ideal (labels [0, 1, 2] scored .1, .3, .2:
    (1 + 2/log2 3)/(2 + 1/log2 3) = 0.8597186998521971; tied [0, 1]: (1 + 1/log2 3)/2); RetrievalMAP
    divides by the relevant retrieved in the top k (labels [1, 0, 1, 1] in rank order, k=2: 1.0);
    RetrievalPrecision divides by k (labels [1, 0], k=10: 0.1); a query with nothing relevant scores
    0 (empty_target_action='neg', the default), RetrievalAUROC 0 on a list of one class."""
    run = pl.DataFrame({
        "query_id": ["a", "a", "a", "b", "b", "c", "c", "c", "c", "d", "d", "e"],
        "doc_id": ["x", "y", "z", "x", "y", "w", "x", "y", "z", "x", "y", "x"],
        "score": [0.1, 0.3, 0.2, 1.0, 1.0, 0.9, 0.8, 0.7, 0.6, 0.9, 0.8, 0.5],
    })
    qrels = pl.DataFrame({
        "query_id": ["a", "a", "a", "b", "b", "c", "c", "c", "c", "d", "d", "e", "c"],
        "doc_id": ["x", "y", "z", "x", "y", "w", "x", "y", "z", "x", "y", "x", "unretrieved"],
        "relevance": [0, 1, 2, 0, 1, 1, 0, 1, 1, 1, 0, 0, 1],
    })
    log3 = math.log2(3)
    for engine in ENGINES:
        got = run_on(engine, qrels, run, ["nDCG@10", "AP@2", "P@10", "AUC"], like="torchmetrics")
        values = {row[0]: row[1:] for row in got.iter_rows()}
        assert values["a"][0] == pytest.approx((1 + 2 / log3) / (2 + 1 / log3), abs=1e-12)
        assert values["b"][0] == pytest.approx((1 + 1 / log3) / 2, abs=1e-12)
        assert values["c"][1] == pytest.approx(1.0, abs=1e-12)
        assert values["d"][2] == pytest.approx(0.1, abs=1e-12)
        assert values["e"] == (0.0, 0.0, 0.0, 0.0)  # AUC of one class: 0 (functional/retrieval/auroc.py)
        assert values["a"][3] == 1.0  # y and z (relevant) above x


# -- like(), the presets' table, the keyword on every path --------------------------------------


def test_like_shows_the_explicit_metric_and_conventions() -> None:
    found = rw.like("lightgbm", "nDCG@10")
    assert found.metric == "nDCG(gain='exponential', ideal='run', empty=1, labels='int_0_30')@10"
    assert dict(found.conventions) == {"ties": "input", "judgments": "retrieved"}
    assert found.name == "ndcg@k"
    assert str(found) == found.metric
    assert rw.like("xgboost", "ndcg@5-").metric == "nDCG(gain='exponential', ideal='run', empty=0, labels='int_0_31')@5"
    assert rw.like("trec_eval", "ndcg_cut.10").metric == "nDCG@10"
    assert rw.like("trec_eval9", "P@5").conventions == {"trec_eval": "9"}


def test_a_metric_the_library_lacks_is_an_error_naming_what_it_offers() -> None:
    with pytest.raises(rw.UnknownMetricError, match=r"LightGBM \(like='lightgbm'\) has no metric 'P@10': it offers AP, nDCG"):
        rw.like("lightgbm", "P@10")
    with pytest.raises(rw.InvalidParameterError, match=r"like must be one of .*Did you mean 'lightgbm'"):
        rw.like("lightgmb", "nDCG@10")  # type: ignore[arg-type]


def test_every_preset_entry_is_a_valid_metric() -> None:
    """Each entry's parameters are those of its metric (at a cutoff where one is needed)."""
    for preset in PRESETS.values():
        for name, entry in preset.metrics.items():
            spec = rw.get_spec(name)
            cutoff = 5 if spec.cutoff != "none" else None
            rw.Metric(spec)  # the spec exists
            from rankwise.metrics.metric import make_metric

            make_metric(spec, dict(entry.params), cutoff, None)


def test_like_equals_the_explicit_metrics_and_conventions_on_every_engine() -> None:
    qrels = pl.DataFrame({"query_id": ["q1", "q1", "q1", "q2", "q3"], "doc_id": ["a", "b", "z", "c", "d"],
                          "relevance": [2, 1, 1, 0, 1]})
    run = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["b", "a", "c", "e"],
                        "score": [1.0, 1.0, 0.5, 0.2]})
    for library in ("lightgbm", "xgboost", "catboost", "rectools", "sklearn", "ranx"):
        offered = [name for name in ("nDCG", "AP", "P", "RR", "RBP") if name in PRESETS[library].metrics]
        metrics = [f"{name}@3" for name in offered]
        for engine in ENGINES:
            for metric in metrics:
                explicit = rw.like(library, metric)
                try:
                    got = run_on(engine, qrels, run, [metric], like=library)
                except rw.errors.LabelError as refused:
                    # XGBoost's map and pre refuse q1's grade 2 (as XGBoost does): so does the explicit metric
                    assert (library, metric) in {("xgboost", "AP@3"), ("xgboost", "P@3")}, refused
                    words = str(refused).split(": ", 1)[1]
                    with pytest.raises(rw.errors.LabelError, match=re.escape(words)):
                        run_on(engine, qrels, run, [explicit.metric], **explicit.conventions)
                    continue
                want = run_on(engine, qrels, run, [explicit.metric], **explicit.conventions)
                assert got.select("query_id", metric).rows() == want.select(
                    "query_id", explicit.metric
                ).rows(), (library, engine, metric)


def test_like_on_to_sql_explain_compare_and_the_namespace() -> None:
    import duckdb

    qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "relevance": [1, 0, 0]})
    run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["b", "a", "c"], "score": [1.0, 1.0, 0.5]})
    want = rw.evaluate(qrels, run, ["nDCG@5"], like="lightgbm")
    assert want.rows() == [("q1", pytest.approx(1 / math.log2(3))), ("q2", 1.0)]  # input order; empty 1
    con = duckdb.connect()
    con.register("run", run.to_arrow())
    con.register("qrels", qrels.to_arrow())
    sql = rw.to_sql(["nDCG@5"], run="run", qrels="qrels", like="lightgbm")
    assert sorted(con.sql(sql).fetchall()) == [pytest.approx(row, abs=1e-12) for row in sorted(want.rows())]
    lazy = run.lazy().ir.evaluate(qrels, ["nDCG@5"], like="lightgbm").collect()
    assert lazy.rows() == [pytest.approx(row, abs=1e-12) for row in want.rows()]
    table = rw.explain(qrels, run, "nDCG@5", "q1", like="lightgbm")
    assert table["doc_id"].to_list()[:2] == ["b", "a"]
    compared = rw.compare(qrels, {"a": run, "b": run}, ["nDCG@5"], like="lightgbm")
    assert compared["mean"].to_list() == [pytest.approx(want["nDCG@5"].mean())]


def test_a_parameter_or_convention_over_the_preset_warns() -> None:
    qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    run = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]})
    with pytest.warns(rw.RankwiseWarning, match="ties='doc_asc' overrides the lightgbm preset's ties='input'"):
        rw.evaluate(qrels, run, ["nDCG@5"], like="lightgbm", ties="doc_asc")
    with pytest.warns(rw.RankwiseWarning, match="sets gain='linear' over the lightgbm preset's gain='exponential'"):
        rw.evaluate(qrels, run, ["nDCG(gain='linear')@5"], like="lightgbm")


def test_why_names_the_change_that_makes_each_difference() -> None:
    """q1: b (grade 1) tied with a (grade 2), b given first: LightGBM ranks b first (input order),
    trec_eval a (doc id descending: b > a as text... b first too), so only the gain separates them;
    q2 has nothing relevant: LightGBM scores it 1 (empty=1), trec_eval 0."""
    qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "relevance": [2, 1, 0]})
    run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["b", "a", "c"], "score": [1.0, 1.0, 1.0]})
    result = rw.why(qrels, run, "nDCG@10", libraries=["lightgbm"])
    log3 = math.log2(3)
    trec = (1 + 2 / log3) / (2 + 1 / log3)
    light = (1 + 3 / log3) / (3 + 1 / log3)
    means = {row["library"]: row for row in result.means.to_dicts()}
    assert means["trec_eval"]["mean"] == pytest.approx(trec / 2)
    assert means["lightgbm"]["mean"] == pytest.approx((light + 1) / 2)
    assert means["lightgbm"]["changes"] == "gain=exponential, ideal=run, empty=1, ties=input, judgments=retrieved"
    rows = {row["query_id"]: row for row in result.queries.to_dicts()}
    assert rows["q2"]["made_by"] == "empty=1" and rows["q2"]["delta"] == pytest.approx(1.0)
    assert rows["q1"]["made_by"] == "gain=exponential"
    assert "lightgbm" in str(result)


def test_cli_like_and_why(tmp_path: Any) -> None:
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text("q1 0 a 2\nq1 0 b 1\nq2 0 c 0\n")
    run.write_text("q1 Q0 b 1 1.0 r\nq1 Q0 a 2 1.0 r\nq2 Q0 c 1 1.0 r\n")
    cli = [sys.executable, "-m", "rankwise.cli"]
    out = subprocess.run([*cli, "eval", str(qrels), str(run), "-m", "nDCG@10", "--like", "lightgbm", "-q"],
                         capture_output=True, text=True, check=True).stdout
    want = rw.evaluate(str(qrels), str(run), ["nDCG@10"], like="lightgbm")
    assert f"{want['nDCG@10'].mean():.4f}" in out.splitlines()[-1]
    out = subprocess.run([*cli, "why", str(qrels), str(run), "-m", "nDCG@10", "--library", "lightgbm"],
                         capture_output=True, text=True, check=True).stdout
    assert "empty=1" in out and "lightgbm" in out
    out = subprocess.run([*cli, "why", str(qrels), str(run), "-m", "nDCG@10", "--library", "lightgbm", "--query", "q1",
                          "--format", "json"], capture_output=True, text=True, check=True).stdout
    import json

    assert [row["library"] for row in json.loads(out)["explained"]["lightgbm"]] == ["trec_eval"] * 2 + ["lightgbm"] * 2
    bad = subprocess.run([*cli, "eval", str(qrels), str(run), "-m", "P@10", "--like", "lightgbm"],
                         capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == ["rankwise: error: LightGBM (like='lightgbm') has no metric 'P@10': it offers AP, nDCG"]


def test_readme_presets_table_is_generated_from_the_presets() -> None:
    from pathlib import Path

    readme = (Path(__file__).parents[2] / "docs" / "libraries.md").read_text(encoding="utf-8")
    start, end = readme.index("<!-- presets:start -->\n"), readme.index("\n<!-- presets:end -->")
    assert readme[start + len("<!-- presets:start -->\n"):end] == presets_table()


# -- the libraries that cannot run here: values computed from their published source -----------

L3 = math.log2(3)
SOURCE_CASES: list[tuple[str, str, list[int | None], list[int], float]] = [
    # (library, metric, labels in rank order (None: unrated), unretrieved judgments, value)
    # TensorFlow Ranking 0.5.5, python/metrics_impl.py (NDCGMetric, DCGMetric, MRRMetric, HitsMetric,
    # PrecisionMetric, RecallMetric, MeanAveragePrecisionMetric): labels of the list only
    ("tensorflow_ranking", "nDCG", [0, 1, 2], [], (1 / L3 + 3 / 2) / (3 + 1 / L3)),
    ("tensorflow_ranking", "nDCG@2", [0, 2, 1, 1], [3], (3 / L3) / (3 + 1 / L3)),
    ("tensorflow_ranking", "nDCG@2", [0, 1], [3], 1 / L3),
    ("tensorflow_ranking", "nDCG", [0, 0], [], 0.0),
    ("tensorflow_ranking", "DCG@2", [0, 1, 2], [], 1 / L3),
    ("tensorflow_ranking", "RR@2", [0, 0, 2], [], 0.0),
    ("tensorflow_ranking", "Success@3", [0, 0, 1], [], 1.0),
    ("tensorflow_ranking", "P@5", [0, 1], [], 0.5),
    ("tensorflow_ranking", "R@2", [0, 1, 0, 1], [1], 0.5),
    ("tensorflow_ranking", "AP@2", [0, 1, 0, 1], [1], 0.25),
    ("tensorflow_ranking", "AP", [2, 0, 1], [], (1 + 2 / 3) / 2),
    # RecBole 1.2.1, recbole/evaluator/metrics.py (run: 0 DIFF on these, numpy-2 shim); all positives
    ("recbole", "Success@2", [0, 0, 1], [], 0.0),
    ("recbole", "RR@3", [0, 1, 1], [], 0.5),
    ("recbole", "nDCG@3", [0, 1, 0], [1], (1 / L3) / (1 + 1 / L3)),
    ("recbole", "nDCG@3", [1, 0, 0], [1, 1, 1, 1], 1 / (1 + 1 / L3 + 1 / 2)),
    ("recbole", "nDCG@3", [0, 2, 0], [3], (1 / L3) / (1 + 1 / L3)),  # binary: grades count 1
    ("recbole", "AP@4", [0, 1, 0, 1], [1], (1 / 2 + 2 / 4) / 3),
    ("recbole", "AP@2", [1, 0, 0, 0], [1, 1], 0.5),
    ("recbole", "R@3", [1, 0, 1], [1, 1], 0.5),
    ("recbole", "P@2", [1, 0, 1], [], 0.5),
    # LensKit 2025.8.1, lenskit/metrics/ranking (run from its source: 0 DIFF on these)
    ("lenskit", "nDCG@3", [0, 1, 0], [1], 0.5),
    ("lenskit", "nDCG@10", [0, 1], [1, 1], 1 / (2 + 1 / L3)),
    ("lenskit", "DCG@3", [1, 0, 1], [], 1 + 1 / L3),
    ("lenskit", "P@10", [1, 0], [], 0.5),
    ("lenskit", "R@2", [1, 0, 0], [1, 1, 1], 0.5),
    ("lenskit", "R", [1, 0, 0], [1, 1, 1], 0.25),
    ("lenskit", "RR@2", [0, 0, 1], [], 0.0),
    ("lenskit", "Success@3", [0, 0, 1], [], 1.0),
    ("lenskit", "RBP", [1, 0, 1], [], 0.15 * (1 + 0.85**2)),
    # Elasticsearch modules/rank-eval (PrecisionAtK, RecallAtK, MeanReciprocalRank,
    # DiscountedCumulativeGain, ExpectedReciprocalRank); None: an unrated hit
    ("elasticsearch", "P@10", [1, 0, None, 2], [], 0.5),
    ("elasticsearch", "P@2", [1, 1, 0, 0], [], 1.0),
    ("elasticsearch", "R@10", [1, None, 0], [2, 3, 0], 1 / 3),
    ("elasticsearch", "RR@10", [None, 0, 2, 1], [], 1 / 3),
    ("elasticsearch", "DCG@10", [3, 2, 3, 0, 1, 2], [],
     7 + 3 / L3 + 7 / 2 + 0 + 1 / math.log2(6) + 3 / math.log2(7)),
    ("elasticsearch", "nDCG@10", [3, 2, 3, 0, 1, 2], [],
     (7 + 3 / L3 + 7 / 2 + 1 / math.log2(6) + 3 / math.log2(7))
     / (7 + 7 / L3 + 3 / 2 + 3 / math.log2(5) + 1 / math.log2(6))),
    ("elasticsearch", "nDCG@10", [0, 2], [3], (3 / L3) / (7 + 3 / L3)),
    ("elasticsearch", "DCG@10", [-1, 1], [], -1 / 2 + 1 / L3),  # a negative rating keeps its gain
    ("elasticsearch", "ERR(max_rel=3)@10", [3, 2, 0], [], 7 / 8 + (1 / 8) * (3 / 8) / 2),
    ("elasticsearch", "ERR(max_rel=3)@10", [None, 3], [], (7 / 8) / 2),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("library", "metric", "labels", "unretrieved", "value"), SOURCE_CASES)
def test_presets_of_libraries_that_cannot_run_here_give_their_source_s_values(
    engine: str, library: str, metric: str, labels: list[int | None], unretrieved: list[int], value: float,
) -> None:
    docs = [f"d{i}" for i in range(len(labels))]
    run = pl.DataFrame({"query_id": ["q"] * len(docs), "doc_id": docs, "score": [float(len(docs) - i) for i in range(len(docs))]})
    judged = [(d, r) for d, r in zip(docs, labels, strict=True) if r is not None]
    judged += [(f"u{i}", r) for i, r in enumerate(unretrieved)]
    qrels = pl.DataFrame({"query_id": ["q"] * len(judged), "doc_id": [d for d, _ in judged],
                          "relevance": [r for _, r in judged]})
    got = run_on(engine, qrels, run, [metric], like=library)
    assert got[metric].to_list() == [pytest.approx(value, abs=1e-12)], rw.like(library, metric)  # type: ignore[arg-type]


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning", "ignore::FutureWarning")
def test_spark_mllib_preset_is_ranking_metrics_and_runs_on_spark(spark: Any) -> None:
    """Spark MLlib's RankingMetrics (ndcgAt, meanAveragePrecisionAt, precisionAt, recallAt) on each
    query's predicted list (the run in its order: Spark never sees scores) and ground truth (every
    judgment of relevance >= 1, retrieved or not); one RDD per query, as RankingMetrics reports a
    mean. The same values through rw.spark.evaluate."""
    from pyspark.mllib.common import JavaModelWrapper, callMLlibFunc
    from pyspark.mllib.evaluation import RankingMetrics

    from tests.conftest import run_on_spark

    lists: Lists = {
        "q0": [("d0", 3.0, 0), ("d1", 2.0, 2), ("d2", 2.0, 1), ("d3", 1.0, None)],
        "q1": [("d0", 1.0, 1), ("d1", 1.0, 0)],
        "q2": [("d0", 5.0, 0), ("d1", 4.0, 0), ("d2", 3.0, 0)],
        "q3": [("d0", 1.0, 3), ("d1", 0.5, 1), ("d2", 0.25, 0), ("d3", 0.1, 2), ("d4", 0.0, 1)],
    }
    unretrieved = [("q0", "u0", 1), ("q2", "u0", 2), ("q3", "u0", 0)]
    qrels, run = _frames(lists, unretrieved)

    def ranking_metrics(query: str) -> Any:
        predicted = [d for d, _, _ in lists[query]]  # input order within equal scores (stable)
        predicted = sorted(predicted, key=lambda d: -next(s for x, s, _ in lists[query] if x == d))
        truth = qrels.filter((pl.col("query_id") == query) & (pl.col("relevance") >= 1))["doc_id"].to_list()
        frame = spark.createDataFrame([(predicted, truth)], "prediction array<string>, label array<string>")
        metrics = RankingMetrics.__new__(RankingMetrics)  # RankingMetrics(rdd) with the schema given
        JavaModelWrapper.__init__(metrics, callMLlibFunc("newRankingMetrics", frame._jdf))
        return metrics

    k = 3
    names = {f"nDCG@{k}": "ndcgAt", f"AP@{k}": "meanAveragePrecisionAt", f"P@{k}": "precisionAt", f"R@{k}": "recallAt"}
    want = {q: {ours: float(getattr(ranking_metrics(q), theirs)(k)) for ours, theirs in names.items()} for q in lists}
    for how, got in (
        ("polars", rw.evaluate(qrels, run, list(names), like="spark_mllib")),
        ("spark", run_on_spark(spark, qrels, run, list(names), like="spark_mllib")),
    ):
        for row in got.to_dicts():
            for metric in names:
                assert row[metric] == pytest.approx(want[row["query_id"]][metric], abs=1e-12), (how, row, metric)


def test_why_explains_a_query_rank_by_rank_under_both_conventions() -> None:
    """ranx's RBP is graded: document a (relevance 2) at rank 2 adds 2 · 0.2 · 0.8 = 0.32 where
    trec_eval's binary RBP adds 0.16."""
    qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [2, 1]})
    run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["b", "a"], "score": [2.0, 1.0]})
    table = rw.why(qrels, run, "RBP", libraries=["ranx"]).explain("q1", "ranx")
    assert table.select("library", "doc_id", "contribution").rows() == [
        ("trec_eval", "b", pytest.approx(0.2)), ("trec_eval", "a", pytest.approx(0.16)),
        ("ranx", "b", pytest.approx(0.2)), ("ranx", "a", pytest.approx(0.32)),
    ]


def test_binary_gain_by_hand_on_every_engine_and_in_sql() -> None:
    """gain='binary': every document of positive relevance gains 1 (grades 2 and 3 alike), in the
    DCG and in the ideal: b (grade 2) at rank 2, u (grade 3) unretrieved: (1/log2 3) / (1 + 1/log2 3);
    with rel=3 only u is relevant: 0."""
    import duckdb

    qrels = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "b", "c", "u"], "relevance": [0, 2, 0, 3]})
    run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    metrics = ["nDCG(gain='binary')@3", "DCG(gain='binary')@3", "nDCG(gain='binary', rel=3)@3"]
    want = [(1 / L3) / (1 + 1 / L3), 1 / L3, 0.0]
    for engine in ENGINES:
        got = run_on(engine, qrels, run, metrics)
        assert list(got.row(0)[1:]) == [pytest.approx(v, abs=1e-12) for v in want], engine
    con = duckdb.connect()
    con.register("run", run.to_arrow())
    con.register("qrels", qrels.to_arrow())
    (row,) = con.sql(rw.to_sql(metrics, run="run", qrels="qrels")).fetchall()
    assert list(row[1:]) == [pytest.approx(v, abs=1e-12) for v in want]


# -- found in review -------------------------------------------------------------------------------


def test_a_metric_string_naming_several_metrics_keeps_each_one_s_name() -> None:
    qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    assert rw.evaluate(qrels, run, ["P.1,2"], like="torchmetrics").rows() == [("q1", 1.0, 0.5)]
    got = rw.evaluate(qrels, run, "official", like="trec_eval")
    assert got.columns == rw.evaluate(qrels, run, "official").columns


def test_lenskit_recall_at_n_is_relp_in_like_why_and_evaluate() -> None:
    """LensKit's Recall(n) divides by min(|test|, n): q1 finds 1 of its 3 relevant in 2 → 1/2."""
    qrels = pl.DataFrame({"query_id": ["q1", "q1", "q1", "q2"], "doc_id": ["a", "b", "c", "d"], "relevance": [1, 1, 1, 1]})
    run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "x", "d"], "score": [2.0, 1.0, 1.0]})
    assert rw.like("lenskit", "R@2").metric == "RelP(empty='skip')@2"
    assert rw.like("lenskit", "R").metric == "R(empty='skip')"
    assert rw.evaluate(qrels, run, ["R@2"], like="lenskit")["R@2"].to_list() == [0.5, 1.0]
    means = {row["library"]: row for row in rw.why(qrels, run, "R@2", libraries=["lenskit"]).means.to_dicts()}
    assert means["lenskit"]["mean"] == 0.75 and means["lenskit"]["metric"] == "RelP(empty='skip')@2"
    assert "metric=RelP" in means["lenskit"]["changes"]


def test_bound_parameters_follow_their_convention() -> None:
    """torchmetrics' AUROC reads empty_target_action like its other metrics (a list of one
    class: 'pos' 1); Spark's ground truth is relevance >= rel, for the binary gain too."""
    qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "relevance": [2, 1, 0]})
    run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["b", "a", "c"], "score": [2.0, 1.0, 1.0]})
    # both lists hold one class (q1 two relevant documents, q2 one non-relevant)
    assert rw.evaluate(qrels, run, ["AUC"], like="torchmetrics", empty=1)["AUC"].to_list() == [1.0, 1.0]
    assert rw.evaluate(qrels, run, ["AUC"], like="torchmetrics")["AUC"].to_list() == [0.0, 0.0]
    # rel=2: only a is relevant, at rank 2 of [b, a]: (1/log2 3) / 1
    got = rw.evaluate(qrels, run, ["nDCG@2"], like="spark_mllib", rel=2)
    assert got["nDCG@2"].to_list()[0] == pytest.approx(1 / L3, abs=1e-12)
    assert rw.like("spark_mllib", "nDCG@2").metric == "nDCG(gain='binary', rel=1)@2"


def test_xgboost_minus_suffix_names_its_column_and_reaches_compare() -> None:
    qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "c"], "relevance": [1, 0]})
    run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
    got = rw.evaluate(qrels, run, ["nDCG@2-", "nDCG@2"], like="xgboost")
    assert got.rows() == [("q1", 1.0, 1.0), ("q2", 0.0, 1.0)]
    assert got.columns[1] == "nDCG(empty=0)@2"
    assert rw.summarize(got).columns == ["nDCG(empty=0)@2", "nDCG@2"]
    table = rw.compare(qrels, {"a": run, "b": run}, ["nDCG@2-"], like="xgboost")
    assert table["metric"].to_list() == ["nDCG(empty=0)@2"]


def test_a_label_check_reads_only_queries_the_library_sees() -> None:
    """A judged query with no list (q9, label 40) is not LightGBM's to refuse; explain of a
    query whose judgments the list does not hold checks nothing."""
    qrels = pl.DataFrame({"query_id": ["q1", "q9"], "doc_id": ["a", "z"], "relevance": [1, 40]})
    run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "j"], "score": [2.0, 1.0]})
    for engine in ENGINES:
        assert run_on(engine, qrels, run, ["nDCG@2"], like="lightgbm").rows() == [("q1", 1.0)]
    qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["h"], "relevance": [1]})
    run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["i", "j"], "score": [2.0, 1.0]})
    assert rw.explain(qrels, run, "nDCG@2", "q1", like="lightgbm")["value"].to_list()[-1] == 1.0


def test_orders_refuse_expected_ties_in_their_own_words(tmp_path: Any) -> None:
    qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    with pytest.raises(rw.InvalidParameterError, match="ranking_change compares the two rankings' orders"):
        rw.ranking_change(run, run, ties="expected")
    with pytest.raises(rw.InvalidParameterError, match="a report's figures"):
        rw.report(qrels, {"a": run, "b": run}, ["P@1"], tmp_path / "r.html", ties="expected")
