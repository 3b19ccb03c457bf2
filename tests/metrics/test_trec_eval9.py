"""``trec_eval='9'`` reproduces trec_eval 9.0.8 (pytrec-eval-terrier runs its C code): every
measure pytrec_eval computes, per query to 1e-12, on random runs whose scores tie only as 32-bit
floats (1.0 and 1.0 + 1e-9; 16777216 and 16777217; 1e39 and 1e40, both +inf as floats), on
every engine. The differences from trec_eval 10 (the default) are checked by hand below.
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.names.parse import parse_metrics
from tests.conftest import ENGINES, run_on, run_on_spark
from tests.strategies import DOC_IDS, QUERY_IDS, Case
from tests.tiers import examples

# scores that differ as doubles but tie as 32-bit floats, and some that do not
FLOAT32_TIES = [
    1.0, 1.0 + 1e-9, 1.0 - 1e-9, 0.5, 0.5 + 1e-12, 16777216.0, 16777217.0, 1e39, 1e40, -1e39,
    -3.0, -3.0 - 1e-8, 0.0, 1e-50, -1e-50, 2.5,
]
MEASURES = set(pytrec_eval.supported_measures) - {"runid", "relstring"}
"""Every measure of pytrec_eval (relstring: it prints a number for the text)."""


@st.composite
def float32_cases(draw: st.DrawFn) -> Case:
    queries = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=3, unique=True))
    score = st.sampled_from(FLOAT32_TIES)
    run = {q: draw(st.dictionaries(st.sampled_from(DOC_IDS), score, min_size=1, max_size=12)) for q in queries}
    # non-negative judgments (see test_reference.py); one query may have nothing relevant
    qrels = {q: draw(st.dictionaries(st.sampled_from(DOC_IDS), st.integers(0, 3), min_size=1, max_size=12)) for q in queries}
    return Case(run, qrels)


def _expected(case: Case, rel: int, judged_only: bool) -> dict[str, dict[str, float]]:
    evaluator = pytrec_eval.RelevanceEvaluator(case.qrels, MEASURES, relevance_level=rel, judged_docs_only_flag=judged_only)
    return evaluator.evaluate(case.run)  # type: ignore[no-any-return]


def _names(expected: dict[str, dict[str, float]]) -> list[str]:
    return sorted(next(iter(expected.values())))


def check(got: pl.DataFrame, expected: dict[str, dict[str, float]], names: list[str]) -> None:
    labels = {name: parse_metrics([name])[0].label for name in names}
    assert sorted(got["query_id"].to_list()) == sorted(expected)
    for row in got.iter_rows(named=True):
        for name in names:
            want, value = expected[row["query_id"]][name], row[labels[name]]
            if name.startswith("gm_"):  # trec_eval prints log(max(value, 1e-5)) per query
                want, value = math.exp(want), max(value, 1e-5)
            if math.isnan(want):
                # trec_eval divides 0 by 0 when -J leaves a ranking empty (interpolated
                # precision at the levels needing no relevant document, and so 11pt_avg):
                # rankwise gives 0 (README, both trec_eval versions)
                assert name.startswith(("iprec_at_recall_", "11pt_avg")) and value == 0.0, (name, row)
                continue
            assert abs(value - want) <= 1e-12, (name, row["query_id"], value, want)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=float32_cases(), rel=st.sampled_from([1, 2]), judged_only=st.booleans())
def test_trec_eval_9_equals_pytrec_eval(engine: str, case: Case, rel: int, judged_only: bool) -> None:
    expected = _expected(case, rel, judged_only)
    names = _names(expected)
    got = run_on(engine, case.qrels_frame(), case.run_frame(), names, rel=rel, judged_only=judged_only, trec_eval="9")
    check(got, expected, names)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
def test_trec_eval_9_on_spark(spark: Any) -> None:
    case = Case(
        {"q1": {"a": 1.0, "b": 1.0 + 1e-9, "c": 16777217.0, "d": 16777216.0, "e": 1e40, "f": 1e39},
         "q2": {"a": 0.5, "b": 0.5 + 1e-12, "c": -3.0}},
        {"q1": {"a": 1, "b": 0, "c": 2, "e": 1, "x": 3}, "q2": {"a": 0, "b": 1, "y": 1, "z": 2, "w": 1}},
    )
    expected = _expected(case, 1, False)
    names = _names(expected)
    check(run_on_spark(spark, case.qrels_frame(), case.run_frame(), names, trec_eval="9"), expected, names)


# -- each difference, by hand -------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_scores_closer_than_float_precision_tie_in_9(engine: str) -> None:
    """Scores 1.00000001 and 1.0 are one 32-bit float: trec_eval 9 breaks the tie by doc id
    (descending), so dB ranks first; trec_eval 10 ranks dA first."""
    run = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["dA", "dB"], "score": [1.00000001, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["dA", "dB"], "relevance": [1, 0]})
    ten = run_on(engine, qrels, run, ["P@1", "RR"])
    nine = run_on(engine, qrels, run, ["P@1", "RR"], trec_eval="9")
    assert ten.row(0)[1:] == (1.0, 1.0)
    assert nine.row(0)[1:] == (0.0, 0.5)


@pytest.mark.parametrize("engine", ENGINES)
def test_interpolated_precision_rounds_up_from_a_tenth_in_9(engine: str) -> None:
    """R = 4, relevant at ranks 1 and 4: recall 0.3 needs lround(1.2) = 1 relevant document in
    trec_eval 10 (P = 1 at rank 1), floor(1.2 + 0.9) = 2 in trec_eval 9 (P = 0.5 at rank 4)."""
    run = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": ["d1", "x1", "x2", "d2"], "score": [4.0, 3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": ["d1", "d2", "d3", "d4"], "relevance": [1, 1, 1, 1]})
    names = ["IPrec(recall=0.3)", "IPrec11"]
    assert run_on(engine, qrels, run, names).row(0)[1:] == pytest.approx((1.0, 0.5))
    assert run_on(engine, qrels, run, names, trec_eval="9").row(0)[1:] == pytest.approx((0.5, 0.4090909090909091))
    # a metric's own parameter wins over the convention
    own = run_on(engine, qrels, run, ["IPrec(recall=0.3, trec_eval='9')"])
    assert own.row(0)[1] == 0.5


def test_unknown_version_is_refused() -> None:
    with pytest.raises(rw.InvalidParameterError, match="'trec_eval' must be one of"):
        rw.evaluate(pl.DataFrame({"query_id": ["q"], "doc_id": ["d"], "relevance": [1]}),
                    pl.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [1.0]}), ["AP"], trec_eval="8")
