"""all_trec on the judged-rows plan (issue 38, target 2): every primitive of all_trec reads the
judged rows (Rndcg through the ideal prefix's Σ of 1 / IDCG over the boundaries at or below a
rank, rbp_resid through the judged documents' RBP sum, unj_k as min(k, retrieved) less the
judged documents at rank ≤ k), or the top rows alone (relstring: ``top_rows``), which that plan
keeps too. Its values on both engines equal those of
every row (the declarations lifted for the while), on edge cases: a query whose run ranks no
judged document, a judged query the run lacks, a run query with no judgment, one relevant
document, unjudged rows above and below rank 20, ties, max_rank cuts, judged_only and
``judgments='retrieved'``."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankwise as rw
from tests.engines.test_sql import every_row


def _inputs() -> tuple[pl.DataFrame, pl.DataFrame]:
    run: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "score": []}

    def rank(q: str, docs: list[str], scores: list[float]) -> None:
        run["query_id"] += [q] * len(docs)
        run["doc_id"] += docs
        run["score"] += scores

    # none of the judged documents ranked
    rank("nojudged", [f"n{i}" for i in range(5)], [5.0, 4.0, 3.0, 2.0, 1.0])
    # one relevant document, at rank 3 of 25 (unjudged rows above and far below)
    rank("one", [f"o{i}" for i in range(25)], [float(25 - i) for i in range(25)])
    # graded, with ties, a negative judgment, judged rows below rank 20 and unjudged ones between
    docs = [f"g{i}" for i in range(30)]
    rank("graded", docs, [float(30 - i // 3) for i in range(30)])
    # a run query with no judgment at all
    rank("unjudged", ["u1", "u2"], [2.0, 1.0])
    qrels = pl.DataFrame({
        "query_id": ["nojudged", "nojudged", "one", "one", "graded", "graded", "graded", "graded", "graded",
                     "graded", "graded", "absent", "absent"],
        "doc_id": ["nx", "ny", "o2", "o7", "g0", "g4", "g5", "g21", "g27", "g28", "gx", "a1", "a2"],
        "relevance": [1, 0, 1, 0, 3, 2, -1, 1, 2, 0, 3, 1, 2],
    })
    return pl.DataFrame(run), qrels


CONVENTIONS: list[dict[str, Any]] = [
    {},
    {"missing": "zero"},
    {"max_rank": 2},
    {"max_rank": 22, "ties": "doc_asc"},
    {"ties": "pessimistic", "missing": "zero"},
    {"judgments": "retrieved"},
    {"judgments": "retrieved", "max_rank": 4},
    {"judged_only": True},
]


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("conventions", CONVENTIONS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()) or "default")
def test_all_trec_on_the_judged_rows_gives_every_rows_values(engine: str, conventions: dict[str, Any]) -> None:
    run, qrels = _inputs()
    metrics = ["all_trec", "Judged", "Judged@3", "Judged(negative='judged')@4", "RBPResid(p=0.5)", "RelString@25",
               "Unjudged@30"]
    kw = dict(engine=engine, **conventions)
    got = rw.evaluate(qrels, run, metrics, **kw)
    with every_row():
        full = rw.evaluate(qrels, run, metrics, **kw)
    assert_frame_equal(got, full, check_exact=False, abs_tol=1e-12, rel_tol=0)


def test_all_trec_takes_the_judged_rows_plan_on_both_engines() -> None:
    """The DuckDB statement keeps the judged rows, each query's top 10 rows (relstring) and its
    last, in one aggregation (no ranking of every row beside it); the Polars plan keeps the same
    rows."""
    from rankwise._polars.compile import compile_outputs
    from rankwise._sql.compiler import build_sql
    from rankwise.conventions import Columns, Conventions
    from rankwise.metrics.recipes import outputs
    from rankwise.names.parse import parse_metrics

    metrics = parse_metrics(["all_trec"])
    sql = build_sql(metrics, Conventions(), Columns(), "r", "q")
    assert "WHERE relevance IS NOT NULL OR rnk0 <= 10 OR last0 = 1.0" in sql
    assert "ranks0" not in sql and "agr0" not in sql and "agj0" not in sql
    parts = compile_outputs(outputs(metrics, Conventions()), False).parts
    assert [(p, w.judged_rows, w.top_rows, bool(w.windows)) for p, w in parts.items()] == [(False, True, 10, False)]
    with every_row():
        assert "rnk0 <=" not in build_sql(metrics, Conventions(), Columns(), "r", "q")
