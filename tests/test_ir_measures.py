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
