"""IFT's expected totals (ETU, ETC and their residuals) where the continuation C_i lies within
about 1e-9 of 1: both engines equal a high-precision reference to 1e-12 relative, and each
other.

Written as Σ P_i g_i − P_{depth+1} · G (Σ P_i c_i − P_{depth+1} · K) the totals cancel there (two
numbers near G, K whose difference is some 1e-8 of them): IFTGoal(T=10,b1=1,R1=2)'s ETC on five
unjudged documents came out 3.091730604865006e-08 on both engines (6e-8 relative error), and
the engines' orders of summation parted by 2e-12 relative on others. rankwise sums cwl_eval's
Σ_i P_i (1 − C_i) G_i instead, with 1 − C_i as a sum of nonnegative terms (never 1 − C).
cwl_eval itself subtracts (its L_i = P_i · (1 − C_i) from its C_i, 1 − 1 / (1 + b1 e^...)): its
ETC there is 3.0917303547247545e-08, 1.8e-8 off.

The reference values are cwl_eval's formulas evaluated with mpmath at 60 digits
(:func:`reference`, which the last test checks them against when mpmath is installed).
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

from tests.conftest import run_on

ENGINES = ("polars", "polars-lazy", "duckdb")

# (metric, relevance of the ranked documents (max_rel 1), goal (T, b1, R1), rate (A, b2, R2), depth,
# the reference values)
CASES: list[tuple[str, list[int], tuple[float, ...] | None, tuple[float, ...] | None, int, dict[str, float]]] = [
    ("IFTGoal(T=10,b1=1,R1=2,depth=5)", [0, 0, 0], (10, 1, 2), None, 5, {
        "ETC": 3.091730410291888460436e-8,
        "ResETU": 2.403002987092464084474e-7,
        "ResETC": 6.050453334732310746349e-7,
    }),
    ("IFTGoal(T=10,b1=1,R1=2,depth=50)", [0, 1, 0], (10, 1, 2), None, 50, {
        "ETU": 7.46268721811271176235e-7,
        "ETC": 1.940504564757975463594e-5,
        "ResETU": 10.32195111757059511058,
        "ResETC": 12.32193244150253624254,
    }),
    ("IFTRate(A=0,b2=1,R2=20,depth=5)", [1, 1, 1], None, (0, 1, 20), 5, {
        "ETU": 1.936259165089474409422e-5,
        "ETC": 3.195683924534038028177e-5,
        "ResETU": -1.933167434679182520962e-5,
        "ResETC": -3.192592194123746139716e-5,
    }),
    ("IFTGoalRate(T=10,b1=1,R1=2,A=0,b2=1,R2=20,depth=5)", [1, 1, 1], (10, 1, 2), (0, 1, 20), 5, {
        "ETU": 2.708658622986925426705e-5,
        "ETC": 4.21753808351174791992e-5,
        "ResETU": 2.272436184330902752526e-4,
        "ResETC": 2.121548238278420503205e-4,
    }),
]


def _named(metric: str, value: str) -> str:
    return f"{metric[:-1]},value='{value}')"


def _frames(rels: list[int]) -> tuple[pl.DataFrame, pl.DataFrame]:
    docs = [f"d{i}" for i in range(len(rels))]
    run = pl.DataFrame({"query_id": ["q"] * len(docs), "doc_id": docs, "score": [float(len(docs) - i) for i in range(len(docs))]})
    # a judged document not retrieved, so that the query is judged when nothing retrieved is
    qrels = pl.DataFrame({"query_id": ["q"] * (len(docs) + 1), "doc_id": [*docs, "zz"], "relevance": [*rels, 0]})
    return run, qrels


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_ift_totals_near_one_equal_the_reference(case: Any) -> None:
    metric, rels, _, _, _, want = case
    run, qrels = _frames(rels)
    names = [_named(metric, v) for v in want]
    rows = [run_on(engine, qrels, run, names).row(0, named=True) for engine in ENGINES]
    for value, name in zip(want, names, strict=True):
        for engine, row in zip(ENGINES, rows, strict=True):
            assert row[name] == pytest.approx(want[value], rel=1e-12, abs=0), (engine, name, row[name])
        got = [row[name] for row in rows]
        assert max(got) - min(got) <= 1e-12 * abs(want[value]), (name, got)


def reference(rels: list[int], goal: tuple[float, ...] | None, rate: tuple[float, ...] | None, depth: int,
              unjudged: int) -> tuple[Any, Any]:
    """cwl_eval's (ETU, ETC) = (Σ L_i G_i, Σ L_i K_i), L_i = P_i (1 − C_i), in mpmath at 60
    digits: gains padded to depth with ``unjudged``, each document costing 1."""
    import mpmath as mp

    mp.mp.dps = 60
    gains = [mp.mpf(g) for g in rels[:depth]] + [mp.mpf(unjudged)] * max(0, depth - len(rels))
    big_g = big_k = etu = etc = mp.mpf(0)
    reach = mp.mpf(1)
    for g in gains:
        big_g, big_k = big_g + g, big_k + 1
        c = mp.mpf(1)
        if goal is not None:
            t, b1, r1 = (mp.mpf(x) for x in goal)
            c *= 1 - 1 / (1 + b1 * mp.e ** ((t - big_g) * r1))
        if rate is not None:
            a, b2, r2 = (mp.mpf(x) for x in rate)
            c *= 1 / (1 + b2 * mp.e ** ((a - big_g / big_k) * r2))
        etu, etc = etu + reach * (1 - c) * big_g, etc + reach * (1 - c) * big_k
        reach *= c
    return etu, etc


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_reference_values(case: Any) -> None:
    pytest.importorskip("mpmath")
    _, rels, goal, rate, depth, want = case
    worst, best = reference(rels, goal, rate, depth, 0), reference(rels, goal, rate, depth, 1)
    exact = {"ETU": worst[0], "ETC": worst[1], "ResETU": best[0] - worst[0], "ResETC": best[1] - worst[1]}
    for value, v in want.items():
        assert v == pytest.approx(float(exact[value]), rel=1e-15, abs=0), value
