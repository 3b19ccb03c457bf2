"""``labels=``: a library's refusal of a label is an error in its preset, as in the library.

Each rule is shown against the library itself (LightGBM 4.7, xgboost-cpu 3.2, scikit-learn 1.9,
called as tests/metrics/test_presets.py calls them): the library refuses the same lists rankwise
refuses (its own message quoted), and accepts the boundary ones (label 30 for LightGBM's ndcg, 31
for XGBoost's, 0 and 1 for its map and pre, 0 for scikit-learn's ndcg_score) with rankwise's
value. Then the same words on every engine and path (Polars eager and lazy, DuckDB, the SQL
macros, to_sql on a bare DuckDB connection, the metric expressions, explain, compare, why, the
command line with ``--like``; Spark in the slow tier), and a property: with labels inside the
rule, the value is that of ``labels='any'``.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.errors import LabelError
from rankwise.metrics.families.shared import LABEL_RULES
from rankwise.metrics.metric import make_metric
from rankwise.metrics.recipes import recipe
from rankwise.metrics.registry import SPECS
from rankwise.names.presets import PRESETS
from tests.conftest import run_on, run_on_spark
from tests.metrics.test_presets import Item, _lightgbm, _xgboost
from tests.tiers import examples

ENGINES = ("polars", "polars-lazy", "duckdb")
QUERY = "q3"


def _items(labels: list[float | None]) -> list[Item]:
    """One list in input order, scored from the top down (distinct scores: no tie)."""
    return [(f"d{i}", float(len(labels) - i), label) for i, label in enumerate(labels)]  # type: ignore[misc]


def _frames(labels: list[float | None], unretrieved: dict[str, float] | None = None,
            other: bool = True) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The query ``q3`` holding ``labels`` (None: unjudged) and judgments of documents its run
    lacks (``unretrieved``); with ``other``, a second query ``q1`` of labels every rule takes."""
    rows = [(QUERY, d, s, r) for d, s, r in _items(labels)]
    if other:
        rows += [("q1", "a", 2.0, 1.0), ("q1", "b", 1.0, 0.0)]
    run = pl.DataFrame([(q, d, s) for q, d, s, _ in rows], schema={"query_id": pl.String, "doc_id": pl.String,
                                                                   "score": pl.Float64}, orient="row")
    judged = [(q, d, r) for q, d, _, r in rows if r is not None]
    judged += [(QUERY, d, r) for d, r in (unretrieved or {}).items()]
    qrels = pl.DataFrame(judged, schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Float64},
                         orient="row")
    return qrels, run


def _sklearn_ndcg(items: list[Item], k: int) -> float:
    from sklearn.metrics import ndcg_score

    labels = [0.0 if r is None else float(r) for _, _, r in items]
    return float(ndcg_score([labels], [[s for _, s, _ in items]], k=k))


LIBRARIES: dict[tuple[str, str], Callable[[list[Item]], float]] = {
    ("lightgbm", "nDCG@2"): lambda items: _lightgbm(items, "ndcg", 2),
    ("xgboost", "nDCG@2"): lambda items: _xgboost(items, "ndcg@2"),
    ("xgboost", "AP@2"): lambda items: _xgboost(items, "map@2"),
    ("xgboost", "P@2"): lambda items: _xgboost(items, "pre@2"),
    ("sklearn", "nDCG@2"): lambda items: _sklearn_ndcg(items, 2),
}
"""Each preset's metric with a label rule, and the library's own computation of it."""


def _error_class(library: str) -> type[BaseException]:
    if library == "lightgbm":
        from lightgbm.basic import LightGBMError

        return LightGBMError
    if library == "xgboost":
        from xgboost.core import XGBoostError

        return XGBoostError
    return ValueError


def _message(preset: str, metric: str, label: str) -> str:
    """rankwise's words for ``preset``'s refusal of ``label`` in the query ``q3``."""
    rule = PRESETS[preset].metrics[rw.parse_metric(metric).spec.name].params["labels"]
    return f"metric '{metric}': query '{QUERY}' has label {label}; {LABEL_RULES[str(rule)][3]}"


REFUSED = [
    # (preset, metric, labels in input order, the library's words, the label rankwise names)
    ("lightgbm", "nDCG@2", [0, 31], "Label 31 is not less than the number of label mappings (31)", "31"),
    ("lightgbm", "nDCG@2", [0, -1, 1], "Label should be non-negative (met -1.000000) for ranking task", "-1"),
    ("lightgbm", "nDCG@2", [0, 1.5], "label should be int type (met 1.500000) for ranking task", "1.5"),
    ("xgboost", "nDCG@2", [0, 32], "Relevance degress must be lesser than or equal to 31", "32"),
    ("xgboost", "nDCG@2", [0, -1, 1], "label must be either 0 or positive integer", "-1"),
    ("xgboost", "nDCG@2", [0, 1.5], "label must be either 0 or positive integer", "1.5"),
    ("xgboost", "AP@2", [1, 0, 2], "map can only be used with binary labels.", "2"),
    ("xgboost", "AP@2", [0, 0.5], "map can only be used with binary labels.", "0.5"),
    ("xgboost", "P@2", [0, 2, 1], "pre can only be used with binary labels.", "2"),
    ("sklearn", "nDCG@2", [0, -1, 1], "ndcg_score should not be used on negative y_true values.", "-1"),
]


@pytest.mark.parametrize(("preset", "metric", "labels", "theirs", "shown"), REFUSED,
                         ids=[f"{p}-{m}-{labels}" for p, m, labels, _, _ in REFUSED])
def test_the_library_and_its_preset_refuse_the_same_labels(
    preset: str, metric: str, labels: list[float], theirs: str, shown: str,
) -> None:
    with pytest.raises(_error_class(preset), match=re.escape(theirs)):
        LIBRARIES[preset, metric](_items(list(labels)))
    qrels, run = _frames(list(labels))
    for engine in ("polars", "duckdb"):
        with pytest.raises(LabelError, match=f"^{re.escape(_message(preset, metric, shown))}$"):
            run_on(engine, qrels, run, [metric], like=preset)


ACCEPTED = [
    # (preset, metric, labels in input order (None: unjudged, label 0 to the library))
    ("lightgbm", "nDCG@2", [0, 30]),
    ("lightgbm", "nDCG@2", [None, 30, 2]),
    ("xgboost", "nDCG@2", [0, 31]),
    ("xgboost", "nDCG@2", [None, 31, 1]),
    ("xgboost", "AP@2", [0, 1]),
    ("xgboost", "AP@2", [1, None, 0, 1]),
    ("xgboost", "P@2", [0, 1, 1]),
    ("sklearn", "nDCG@2", [0, 1, 2]),
    ("sklearn", "nDCG@2", [None, 0, 3]),
]


@pytest.mark.parametrize(("preset", "metric", "labels"), ACCEPTED,
                         ids=[f"{p}-{m}-{labels}" for p, m, labels in ACCEPTED])
def test_the_boundary_labels_give_the_library_value(preset: str, metric: str, labels: list[float | None]) -> None:
    want = LIBRARIES[preset, metric](_items(labels))
    qrels, run = _frames(labels)
    for engine in ENGINES:
        got = run_on(engine, qrels, run, [metric], like=preset)
        value = dict(got.rows())[QUERY]
        assert value == pytest.approx(want, abs=1e-6 if preset == "xgboost" else 1e-12), (engine, value, want)


def test_the_boundary_hand_values() -> None:
    """LightGBM's label 30 gains 2^30 − 1, ranked second: (2^30 − 1)/log2 3 / (2^30 − 1) = 1/log2 3;
    XGBoost's label 31 the same; its map on [1, 0, 0, 1] at 2: 1/min(2, 2) (FINDINGS' hand cases)."""
    for preset, top in (("lightgbm", 30), ("xgboost", 31)):
        qrels, run = _frames([0, top], other=False)
        assert rw.evaluate(qrels, run, ["nDCG@2"], like=preset)["nDCG@2"][0] == pytest.approx(1 / math.log2(3))
    qrels, run = _frames([1, 0, 0, 1], other=False)
    assert rw.evaluate(qrels, run, ["AP@2"], like="xgboost")["AP@2"][0] == pytest.approx(0.5)


def test_the_labels_read_are_those_the_metric_reads() -> None:
    """Under the presets (judgments='retrieved') a judgment of a document the list lacks is never
    seen, as the library never sees it; with every judgment read (the default), it is checked. An
    unjudged document is label 0, which every rule takes."""
    qrels, run = _frames([None, 1, 0], unretrieved={"u": 31.0})
    for engine in ("polars", "duckdb"):
        assert run_on(engine, qrels, run, ["nDCG@2"], like="lightgbm")["nDCG@2"].to_list()[1] == pytest.approx(
            _lightgbm(_items([None, 1, 0]), "ndcg", 2)
        )
        with pytest.raises(LabelError, match=f"query '{QUERY}' has label 31; LightGBM's ndcg"):
            run_on(engine, qrels, run, ["nDCG(labels='int_0_30')@2"])
        assert run_on(engine, qrels, run, ["nDCG(labels='int_0_30')@2"], judgments="retrieved").height == 2


def test_each_rule_by_hand() -> None:
    """Every rule on the labels just inside and just outside it, written as parameters (no preset)."""
    cases = {
        "binary": ([0, 1], [[2], [0.5], [-1]]),
        "nonnegative": ([0, 0.5, 7, 1e6], [[-1], [-0.5]]),
        "int_0_30": ([0, 30], [[31], [-1], [2.5]]),
        "int_0_31": ([0, 31], [[32], [-2], [0.25]]),
    }
    for rule, (inside, outside) in cases.items():
        for name in ("nDCG@3", "DCG@3", "AP@3", "P@3"):
            spec = rw.parse_metric(name)
            checked = repr(make_metric(spec.spec, {"labels": rule}, spec.cutoff))
            qrels, run = _frames([float(x) for x in inside])
            got = rw.evaluate(qrels, run, [checked, name])
            assert got[checked].to_list() == got[name].to_list()
            for bad in outside:
                qrels, run = _frames([0.0, *bad])
                with pytest.raises(LabelError, match=f"query '{QUERY}' has label {re.escape(LabelError.label_text(bad[0]))}; "):
                    rw.evaluate(qrels, run, [checked])


def test_no_default_tree_grows() -> None:
    """labels='any' (the default) adds nothing to a tree; only nDCG, DCG, AP and P take the parameter."""
    taking = [spec.name for spec in SPECS if any(p.name == "labels" for p in spec.params)]
    assert taking == ["nDCG", "DCG", "P", "AP"]
    for spec in SPECS:
        cutoff = 10 if spec.cutoff != "none" else None
        tree = recipe(make_metric(spec, {}, cutoff), {})
        assert "LabelCheck" not in repr(tree), spec.name
        if spec.name in taking:
            assert repr(recipe(make_metric(spec, {"labels": "any"}, cutoff), {})) == repr(tree)
            assert "LabelCheck" in repr(recipe(make_metric(spec, {"labels": "binary"}, cutoff), {}))


def test_the_presets_show_their_rules() -> None:
    assert rw.like("lightgbm", "nDCG@10").metric == "nDCG(gain='exponential', ideal='run', empty=1, labels='int_0_30')@10"
    assert rw.like("xgboost", "nDCG@10").metric == "nDCG(gain='exponential', ideal='run', empty=1, labels='int_0_31')@10"
    assert rw.like("xgboost", "AP@10-").metric == "AP(denominator='min_R_k', empty=0, labels='binary')@10"
    assert rw.like("xgboost", "P@10").metric == "P(denominator='retrieved', labels='binary')@10"
    assert rw.like("sklearn", "nDCG@10").metric == "nDCG(ideal='run', ties='average', labels='nonnegative')@10"
    assert "labels" not in rw.like("lightgbm", "AP@10").metric  # LightGBM's map takes any label
    assert "labels" not in rw.like("catboost", "nDCG@10").metric  # CatBoost has no label limit


# -- the same words on every engine and path ------------------------------------------------------


def test_the_same_words_on_every_engine_and_path(tmp_path: Path) -> None:
    qrels, run = _frames([0, 31])
    words = _message("lightgbm", "nDCG@2", "31")
    for engine in ENGINES:
        with pytest.raises(LabelError) as info:
            run_on(engine, qrels, run, ["nDCG@2"], like="lightgbm")
        assert str(info.value) == words, engine
    # to_sql on a bare DuckDB connection: DuckDB's error() with the same words
    bare = duckdb.connect()
    bare.register("qrels", qrels.to_arrow())
    bare.register("run", run.to_arrow())
    with pytest.raises(duckdb.Error, match=re.escape(f"rankwise: {words}")):
        bare.sql(rw.to_sql(["nDCG@2"], like="lightgbm")).fetchall()
    # the SQL macros: rw_evaluate's statement and the label check alone
    con = rw.register(duckdb.connect())
    with pytest.raises(duckdb.Error, match=re.escape("rankwise: metric 'x': query 'q' has label 1.5; the rule")):
        con.sql("SELECT rw_label_check(1.5, 0.25, 'q', 'x', 'the rule')").fetchall()
    assert con.sql("SELECT rw_label_check(NULL, 0.25, 'q', 'x', 'r'), rw_label_check(0, 0.5, 'q', 'x', 'r')"
                   ).fetchall() == [(0.25, 0.5)]
    # explain and compare name the same query
    with pytest.raises(LabelError, match=f"^{re.escape(words)}$"):
        rw.explain(qrels, run, "nDCG@2", QUERY, like="lightgbm")
    assert rw.explain(qrels, run, "nDCG@2", "q1", like="lightgbm")["value"].to_list()[-1] == 1.0
    with pytest.raises(LabelError, match=f"^{re.escape(words)}$"):
        rw.compare(qrels, {"a": run, "b": run}, ["nDCG@2"], like="lightgbm")
    # the metric expressions do not know their group's id: "a query"
    frame = rw.judged_frame(qrels, run)
    with pytest.raises(LabelError, match=re.escape("metric 'nDCG(labels='int_0_30')@2': a query has label 31; ")):
        frame.group_by("query_id").agg(rw.expr("nDCG(labels='int_0_30')@2"))


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_the_command_line_says_it_in_one_line(tmp_path: Path, engine: str) -> None:
    qrels, run = _frames([0, 2, 1])
    qrels_file, run_file = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels_file.write_text("".join(f"{q} 0 {d} {int(r)}\n" for q, d, r in qrels.iter_rows()))
    run_file.write_text("".join(f"{q} Q0 {d} 0 {s} x\n" for q, d, s in run.iter_rows()))
    cli = [sys.executable, "-m", "rankwise.cli", "eval", str(qrels_file), str(run_file), "--engine", engine]
    out = subprocess.run([*cli, "-m", "AP@2", "--like", "xgboost"], capture_output=True, text=True)
    assert out.returncode == 2, out.stdout
    assert out.stderr.strip().splitlines() == [f"rankwise: error: {_message('xgboost', 'AP@2', '2')}"]
    ok = subprocess.run([*cli, "-m", "nDCG@2", "--like", "xgboost", "-q"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
def test_why_leaves_out_a_library_that_refuses_the_labels() -> None:
    qrels, run = _frames([0, 2, 1])
    with pytest.warns(rw.RankwiseWarning, match=r"XGBoost \(like='xgboost'\) is left out: it refuses these labels "
                                                 rf"\(query '{QUERY}' has label 2; XGBoost's map@n"):
        result = rw.why(qrels, run, "AP@2", libraries=["lightgbm", "xgboost"])
    assert result.means["library"].to_list() == ["trec_eval", "lightgbm"]
    assert "labels" not in " ".join(result.means["changes"].to_list())
    ndcg = rw.why(qrels, run, "nDCG@2", libraries=["xgboost"])
    assert "labels" not in ndcg.means["changes"].to_list()[1]  # a check changes no value


def test_labels_on_spark(spark: Any) -> None:
    """rw.spark.evaluate (to_sql's Spark SQL): the boundary labels give the library's value; a
    label outside the rule fails the action with Spark's raise_error, in the same words."""
    qrels, run = _frames([0, 31])
    got = run_on_spark(spark, qrels, run, ["nDCG@2"], like="xgboost")
    assert dict(got.rows())[QUERY] == pytest.approx(_xgboost(_items([0, 31]), "ndcg@2"), abs=1e-6)
    with pytest.raises(Exception, match=re.escape(f"rankwise: {_message('lightgbm', 'nDCG@2', '31')}")):
        run_on_spark(spark, qrels, run, ["nDCG@2"], like="lightgbm")
    qrels, run = _frames([0, 1.5])
    with pytest.raises(Exception, match=re.escape(f"rankwise: {_message('xgboost', 'AP@2', '1.5')}")):
        run_on_spark(spark, qrels, run, ["AP@2"], like="xgboost")


# -- labels inside the rule: the value is labels='any''s ----------------------------------------

_INSIDE: dict[str, st.SearchStrategy[float]] = {
    "binary": st.sampled_from([0.0, 1.0]),
    "nonnegative": st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5, 100.0]),
    "int_0_30": st.integers(0, 30).map(float),
    "int_0_31": st.integers(0, 31).map(float),
}


@st.composite
def _inside(draw: st.DrawFn) -> tuple[str, pl.DataFrame, pl.DataFrame]:
    rule = draw(st.sampled_from(sorted(LABEL_RULES)))
    rows, judged = [], []
    for q in range(draw(st.integers(1, 4))):
        n = draw(st.integers(1, 6))
        scores = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=n, max_size=n))
        for i, score in enumerate(scores):
            rows.append((f"q{q}", f"d{i}", score))
            if draw(st.booleans()) or i == 0:  # else unjudged
                judged.append((f"q{q}", f"d{i}", draw(_INSIDE[rule])))
        if draw(st.booleans()):  # a judgment of a document the run lacks
            judged.append((f"q{q}", "u", draw(_INSIDE[rule])))
    run = pl.DataFrame(rows, schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}, orient="row")
    qrels = pl.DataFrame(judged, schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Float64},
                         orient="row")
    return rule, qrels, run


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(30), deadline=None)
@given(drawn=_inside(), k=st.sampled_from([1, 3, 10]), judgments=st.sampled_from(["all", "retrieved"]),
       ties=st.sampled_from(["trec_eval", "input", "expected"]))
def test_labels_inside_the_rule_change_no_value(
    drawn: tuple[str, pl.DataFrame, pl.DataFrame], k: int, judgments: str, ties: str,
) -> None:
    rule, qrels, run = drawn
    plain = [f"nDCG@{k}", f"DCG@{k}", f"AP@{k}", f"P@{k}", f"nDCG(gain='exponential', empty=1)@{k}"]
    checked = [repr(make_metric(m.spec, {**dict(m.params), "labels": rule}, m.cutoff)) for m in map(rw.parse_metric, plain)]
    for engine in ("polars", "duckdb"):
        got = run_on(engine, qrels, run, plain + checked, judgments=judgments, ties=ties)
        for a, b in zip(plain, checked, strict=True):
            assert got[a].to_list() == got[b].to_list(), (engine, a, b)
