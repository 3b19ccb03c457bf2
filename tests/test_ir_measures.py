"""Against ir-measures (its own providers, not rankwise's code): per-query values equal on
random runs and qrels (negative judgments and unjudged documents included), on every engine.

ir-measures ranks by score, then doc_id ascending (rankwise's ``ties='doc_asc'``), and scores a
query of the qrels absent from the run as 0 (rankwise's ``missing='zero'``).
"""

from __future__ import annotations

from typing import Any

import ir_measures
import pytest
from hypothesis import HealthCheck, given, settings

from tests.conftest import ENGINES, run_on
from tests.strategies import Case, cases

CUTS = (1, 3, 5, 20)
JUDGED: dict[str, Any] = {
    "Judged(denominator='retrieved', negative='judged')": ir_measures.Judged,
    **{
        f"Judged(denominator='retrieved', negative='judged')@{k}": ir_measures.Judged @ k for k in CUTS
    },
}


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=cases())
def test_judged_equals_ir_measures(engine: str, case: Case) -> None:
    expected = {
        (m.query_id, str(m.measure)): m.value
        for m in ir_measures.iter_calc(list(JUDGED.values()), case.qrels, case.run)
    }
    got = run_on(engine, case.run_frame(), case.qrels_frame(), list(JUDGED), ties="doc_asc", missing="zero")
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
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=cases())
def test_accuracy_equals_ir_measures(engine: str, case: Case) -> None:
    """Accuracy is defined (a number) exactly where ir-measures reports a value, and equal to
    it; elsewhere NULL (where ir-measures reports nothing, or fails)."""
    got = run_on(engine, case.run_frame(), case.qrels_frame(), list(ACCURACY))
    assert got.height == len(set(case.run) & set(case.qrels))
    for row in got.iter_rows(named=True):
        for name, measure in ACCURACY.items():
            want = _accuracy_of(case, row["query_id"], measure)
            if want is None:
                assert row[name] is None, (name, row)
            else:
                assert row[name] == pytest.approx(want, abs=1e-12), (name, row)
