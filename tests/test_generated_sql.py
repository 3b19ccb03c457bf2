"""The parts of sql/ written from Python definitions (rw_evaluate from the recipes, the tie
orders from conventions.TIE_ORDERS) are up to date: `python -m rankwise._sql.generate`."""

from __future__ import annotations

from rankwise._sql.generate import stale


def test_generated_sql_is_up_to_date() -> None:
    assert stale() == [], "run: python -m rankwise._sql.generate"
