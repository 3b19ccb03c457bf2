"""Against ir-measures (its own providers, not rankwise's code): per-query values equal on
random runs and qrels (negative judgments and unjudged documents included), on every engine.

ir-measures ranks by score, then doc_id ascending (rankwise's ``ties='doc_asc'``), and scores a
query of the qrels absent from the run as 0 (rankwise's ``missing='zero'``).
"""

from __future__ import annotations

from typing import Any

import ir_measures
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankwise as rw
from tests.conftest import ENGINES, run_on
from tests.strategies import DOC_IDS, Case, cases
from tests.tiers import examples

CUTS = (1, 3, 5, 20)
JUDGED: dict[str, Any] = {
    "Judged(denominator='retrieved', negative='judged')": ir_measures.Judged,
    **{
        f"Judged(denominator='retrieved', negative='judged')@{k}": ir_measures.Judged @ k for k in CUTS
    },
}


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=cases())
def test_judged_equals_ir_measures(engine: str, case: Case) -> None:
    expected = {
        (m.query_id, str(m.measure)): m.value
        for m in ir_measures.iter_calc(list(JUDGED.values()), case.qrels, case.run)
    }
    got = run_on(engine, case.qrels_frame(), case.run_frame(), list(JUDGED), ties="doc_asc", missing="zero")
    assert got.height == len({q for q, _ in expected})
    for row in got.iter_rows(named=True):
        for name, measure in JUDGED.items():
            assert row[name] == pytest.approx(expected[(row["query_id"], str(measure))], abs=1e-12), (name, row)


ACCURACY: dict[str, Any] = {
    "Accuracy": ir_measures.Accuracy,
    **{f"Accuracy@{k}": ir_measures.Accuracy @ k for k in CUTS},
    "Accuracy(rel=2)@5": ir_measures.Accuracy(rel=2) @ 5,
}


def _accuracy_of(case: Case, query: str, measure: Any) -> float | None:
    """ir-measures' accuracy provider on one query: None where it reports nothing (no relevant
    document in the top k) or fails (no non-relevant one: it divides by zero). It sorts by
    score alone, keeping the given order among ties: given in trec_eval's order (score, then
    doc id descending), rankwise's default."""
    ranked = dict(sorted(case.run[query].items(), key=lambda kv: (kv[1], kv[0]), reverse=True))
    try:
        found = list(ir_measures.iter_calc([measure], {query: case.qrels[query]}, {query: ranked}))
    except ZeroDivisionError:
        return None
    return found[0].value if found else None


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=cases())
def test_accuracy_equals_ir_measures(engine: str, case: Case) -> None:
    """Accuracy is defined (a number) exactly where ir-measures reports a value, and equal to
    it; elsewhere NULL (where ir-measures reports nothing, or fails)."""
    got = run_on(engine, case.qrels_frame(), case.run_frame(), list(ACCURACY))
    assert got.height == len(set(case.run) & set(case.qrels))
    for row in got.iter_rows(named=True):
        for name, measure in ACCURACY.items():
            want = _accuracy_of(case, row["query_id"], measure)
            if want is None:
                assert row[name] is None, (name, row)
            else:
                assert row[name] == pytest.approx(want, abs=1e-12), (name, row)


COMPAT: dict[str, Any] = {
    "Compat": ir_measures.Compat,
    "Compat(p=0.8)": ir_measures.Compat(p=0.8),
    "Compat(p=0.95,normalize=False)": ir_measures.Compat(p=0.95, normalize=False),
    "Compat(p=0.5,normalize=False)": ir_measures.Compat(p=0.5, normalize=False),
    "Compat(p=1)": ir_measures.Compat(p=1.0),
    "Compat(p=0.3)": ir_measures.Compat(p=0.3),
}


def _compat_expected(case: Case, doc: Any = str) -> dict[tuple[str, str], float]:
    """ir-measures' compat provider per (query, measure). Its ideal sorts the relevant
    documents by relevance, then by the run's score (0 when unretrieved), then keeps the qrels'
    order: rankwise keeps the run's order there (doc id ascending among equal scores, with
    ``ties='doc_asc'``, ir-measures' ranking), so the qrels are given in doc-id order (as text)."""
    qrels = {q: {doc(d): r for d, r in sorted(docs.items(), key=lambda kv: str(doc(kv[0])))} for q, docs in case.qrels.items()}
    run = {q: {doc(d): s for d, s in docs.items()} for q, docs in case.run.items()}
    return {
        (m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(list(COMPAT.values()), qrels, run)
    }


def _check_compat(got: Any, expected: dict[tuple[str, str], float], case: Case) -> None:
    assert got.height == len(case.qrels) == len({q for q, _ in expected})
    for row in got.iter_rows(named=True):
        for name, measure in COMPAT.items():
            assert row[name] == pytest.approx(expected[(row["query_id"], str(measure))], abs=1e-9), (name, row)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=cases())
def test_compat_equals_ir_measures(engine: str, case: Case) -> None:
    """Random graded qrels (negative judgments too) and runs (tied scores, scores of 0 and
    below, unjudged documents, runs shorter and longer than the relevant documents, queries
    with nothing relevant): every query's Compat equals ir-measures' to 1e-9."""
    got = run_on(engine, case.qrels_frame(), case.run_frame(), list(COMPAT), ties="doc_asc", missing="zero")
    _check_compat(got, _compat_expected(case), case)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=cases(), k=st.integers(1, 6))
def test_compat_with_max_rank_is_compat_of_the_cut_run(engine: str, case: Case, k: int) -> None:
    """``max_rank=k`` measures the run cut to its top k (ir-measures' ranking: score, then doc
    id ascending): a document ranked below k is not retrieved, so it takes score 0 in the ideal."""
    cut = {q: dict(sorted(docs.items(), key=lambda kv: (-kv[1], kv[0]))[:k]) for q, docs in case.run.items()}
    got = run_on(engine, case.qrels_frame(), case.run_frame(), list(COMPAT), ties="doc_asc", missing="zero", max_rank=k)
    _check_compat(got, _compat_expected(Case(cut, case.qrels)), case)


INT_IDS = {d: n for d, n in zip(DOC_IDS, (5, 48, 100, 7, 10, 1, 9, 250, 33, 3, 1000, 2), strict=True)}
"""Integer doc ids whose order as text (trec_eval's, ir-measures' as doc-id strings) is not
their order as numbers."""


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=cases())
def test_compat_equals_ir_measures_with_integer_ids(engine: str, case: Case) -> None:
    """Integer doc ids (ir-measures reads TREC files' ids as text: given as their decimal text)."""
    def ints(frame: pl.DataFrame) -> pl.DataFrame:
        return frame.with_columns(pl.col("doc_id").replace_strict(INT_IDS, return_dtype=pl.Int64))

    got = run_on(engine, ints(case.qrels_frame()), ints(case.run_frame()), list(COMPAT), ties="doc_asc", missing="zero")
    _check_compat(got, _compat_expected(case, lambda d: str(INT_IDS[d])), case)


def test_ir_measures_compat_depends_on_the_qrels_order() -> None:
    """ir-measures' ideal keeps the qrels' order among equally relevant documents of equal
    score: the same judgments listed in another order change the value (rankwise takes the
    run's order there, and gives 1 here). Run a, b (scores tie; ir-measures ranks a first),
    both relevant 2, p = 0.5: ideal a b gives 1; ideal b a gives X = 0, 2: S = 0.5 of the
    ideal's 1.5."""
    run = {"q": {"a": 1.0, "b": 1.0}}
    values = [
        next(iter(ir_measures.iter_calc([ir_measures.Compat(p=0.5)], {"q": qrels}, run))).value
        for qrels in ({"a": 2, "b": 2}, {"b": 2, "a": 2})
    ]
    assert values == pytest.approx([1.0, 1 / 3], abs=1e-12)
    frame = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    for order in (["a", "b"], ["b", "a"]):
        judged = pl.DataFrame({"query_id": ["q", "q"], "doc_id": order, "relevance": [2, 2]})
        got = rw.evaluate(judged, frame, ["Compat(p=0.5)"], ties="doc_asc")
        assert got["Compat(p=0.5)"][0] == 1.0


MEASURE_OBJECTS: list[Any] = [
    ir_measures.nDCG @ 10, ir_measures.P(rel=2) @ 5, ir_measures.AP, ir_measures.RR, ir_measures.Judged @ 2,
    ir_measures.Judged, ir_measures.IPrec @ 0.2, ir_measures.SetP(relative=True), ir_measures.nDCG(dcg="log2") @ 3,
]


@pytest.mark.parametrize("engine", ENGINES)
def test_measure_objects_are_metrics_with_ir_measures_values(engine: str) -> None:
    """ir-measures' measure objects are metrics, labelled by their str() and with ir-measures'
    meaning (its Judged counts a negative judgment as judged and divides by the documents
    retrieved; IPrec@0.2 is the precision at recall 0.2; SetP(relative=True) is SetRelP): each
    value equals ir-measures' own."""
    qrels = {"q1": {"a": 2, "b": 0, "c": 1, "d": -1, "e": 3}, "q2": {"x": 1, "y": 2}}
    run = {"q1": {"a": 0.9, "d": 0.8, "z": 0.7, "c": 0.6}, "q2": {"w": 0.5, "y": 0.4, "v": 0.3}}
    expected = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(MEASURE_OBJECTS, qrels, run)}
    qrels_frame = pl.DataFrame(
        [(q, d, r) for q, docs in qrels.items() for d, r in docs.items()],
        schema=["query_id", "doc_id", "relevance"], orient="row",
    )
    run_frame = pl.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
        schema=["query_id", "doc_id", "score"], orient="row",
    )
    got = run_on(engine, qrels_frame, run_frame, MEASURE_OBJECTS, ties="doc_asc", missing="zero")
    assert got.columns == ["query_id", *(str(m) for m in MEASURE_OBJECTS)]
    assert len(expected) == 2 * len(MEASURE_OBJECTS)
    for row in got.iter_rows(named=True):
        for m in MEASURE_OBJECTS:
            assert row[str(m)] == pytest.approx(expected[(row["query_id"], str(m))], abs=1e-12), (str(m), row)
    # the same str() as a metric string keeps rankwise's own Judged (a negative judgment counts
    # as unjudged; the top k is the denominator): q1's top 2, a (judged) and d (-1), is 1/2
    own = run_on(engine, qrels_frame, run_frame, ["Judged@2"], ties="doc_asc", missing="zero")
    assert own.filter(pl.col("query_id") == "q1")["Judged@2"][0] == 0.5
    assert expected[("q1", "Judged@2")] == 1.0
    # one measure object alone, not in a list
    assert rw.evaluate(qrels_frame, run_frame, ir_measures.AP).columns == ["query_id", "AP"]
