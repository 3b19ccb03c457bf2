"""ranking_change: RBO_ext equals PyPI rbo's rbo_ext (lists of uneven length), Kendall's τ-b
equals scipy.stats.kendalltau on the union's ranks, overlap and Jaccard equal set arithmetic, and
RBO_min and RBO_res equal RBO computed term by term to a depth where p^d vanishes on the lists
extended the least and the most agreeing ways (a construction independent of the closed forms)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import rbo
from scipy import stats

import rankwise as rw

DATA = Path(__file__).resolve().parents[2] / "examples" / "data"


def _frame(lists: dict[str, list[str]]) -> pl.DataFrame:
    rows = [(q, d, float(len(docs) - i)) for q, docs in lists.items() for i, d in enumerate(docs)]
    return pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row")


def _random_lists(seed: int, queries: int = 40) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    rng = np.random.default_rng(seed)
    pool = [f"d{i}" for i in range(25)]
    a, b = {}, {}
    for q in range(queries):
        a[f"q{q:02d}"] = list(rng.choice(pool, int(rng.integers(1, 16)), replace=False))
        if q % 7 == 3:  # a few queries only run a has
            continue
        size = int(rng.integers(5, 26))
        b[f"q{q:02d}"] = list(rng.choice(pool[:size], int(rng.integers(1, size + 1)), replace=False)) if q % 5 else a[f"q{q:02d}"][::-1]
    return a, b


def _rbo_sum(s: list[str], t: list[str], p: float, depth: int) -> float:
    """(1 − p) Σ_{d ≤ depth} p^(d−1) |S_d ∩ T_d| / d, term by term."""
    seen_s: set[str] = set()
    seen_t: set[str] = set()
    total = 0.0
    for d in range(1, depth + 1):
        if d <= len(s):
            seen_s.add(s[d - 1])
        if d <= len(t):
            seen_t.add(t[d - 1])
        total += (1 - p) * p ** (d - 1) * len(seen_s & seen_t) / d
    return total


def _least_and_most(s: list[str], t: list[str], depth: int) -> tuple[tuple[list[str], list[str]], tuple[list[str], list[str]]]:
    """The lists extended so that no unseen document ever agrees, and so that every unseen one
    agrees as early as it can: each list goes on with the other's documents it lacks, then both
    with the same new documents."""
    least = (s + [f"s_new{i}" for i in range(depth)], t + [f"t_new{i}" for i in range(depth)])
    shared = [f"new{i}" for i in range(depth)]
    most = (s + [d for d in t if d not in s] + shared, t + [d for d in s if d not in t] + shared)
    return least, most


@pytest.mark.parametrize("p", [0.5, 0.9, 0.98])
def test_against_rbo_scipy_and_term_by_term_sums(p: float) -> None:
    a, b = _random_lists(seed=int(p * 100))
    out = rw.ranking_change(_frame(a), _frame(b), depth=12, p=p)
    deep = int(np.log(1e-17) / np.log(p)) + 40
    assert out["query_id"].to_list() == sorted(a)
    for row in out.iter_rows(named=True):
        s, t = a[row["query_id"]][:12], b.get(row["query_id"], [])[:12]
        if not t:
            assert (row["rbo_ext"], row["jaccard"], row["overlap"]) == (0.0, 0.0, 0.0)
            continue
        assert row["rbo_ext"] == pytest.approx(rbo.RankingSimilarity(s, t).rbo_ext(p=p), abs=1e-12)
        union = list(dict.fromkeys(s + t))
        ra = [s.index(d) + 1 if d in s else len(s) + 1 for d in union]
        rb = [t.index(d) + 1 if d in t else len(t) + 1 for d in union]
        tau = stats.kendalltau(ra, rb).statistic
        assert row["kendall_tau"] == pytest.approx(tau, abs=1e-12) if not np.isnan(tau) else row["kendall_tau"] is None
        common = len(set(s) & set(t))
        assert row["overlap"] == pytest.approx(common / 12) and row["jaccard"] == pytest.approx(common / len(set(s) | set(t)))
        (ls, lt), (ms, mt) = _least_and_most(s, t, deep)
        low, high = _rbo_sum(ls, lt, p, deep), _rbo_sum(ms, mt, p, deep)
        assert row["rbo_min"] == pytest.approx(low, abs=1e-9)
        assert row["rbo_res"] == pytest.approx(high - low, abs=1e-9)
        assert row["rbo_min"] - 1e-12 <= row["rbo_ext"] <= row["rbo_min"] + row["rbo_res"] + 1e-12


def test_hand_checked_and_identical_lists() -> None:
    a = _frame({"q": ["x", "y", "z"]})
    b = _frame({"q": ["y", "x", "w"]})
    row = rw.ranking_change(a, b, depth=3, p=0.9).row(0, named=True)
    # X = (0, 2, 2): RBO_ext = 0.1·(0 + 0.9·2/2 + 0.81·2/3) + (2/3)·0.729 = 0.63 (Webber eq. 32)
    assert row["rbo_ext"] == pytest.approx(0.63)
    # union ranks a: x1 y2 z3 w4, b: y1 x2 w3 z4: 4 concordant, 2 discordant pairs
    assert row["kendall_tau"] == pytest.approx(2 / 6)
    same = rw.ranking_change(a, a, depth=3, p=0.9).row(0, named=True)
    assert (same["rbo_ext"], same["kendall_tau"], same["jaccard"]) == pytest.approx((1.0, 1.0, 1.0))


def test_ties_follow_the_convention_and_bad_input_is_refused() -> None:
    a = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    b = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    # trec_eval's order ranks tied b above a: the lists disagree at depth 1; doc_asc agrees
    assert rw.ranking_change(a, b, depth=1)["overlap"][0] == 0.0
    assert rw.ranking_change(a, b, depth=1, ties="doc_asc")["overlap"][0] == 1.0
    with pytest.raises(rw.InvalidParameterError, match="depth must be a whole number of at least 1"):
        rw.ranking_change(a, b, depth=0)
    with pytest.raises(rw.InvalidParameterError, match="p must be between 0 and 1"):
        rw.ranking_change(a, b, p=1.0)
    with pytest.raises(rw.DuplicateDocumentError):
        rw.ranking_change(pl.concat([a, a]), b)
    with pytest.raises(TypeError, match="unexpected keyword argument 'rel'"):
        rw.ranking_change(a, b, rel=2)  # type: ignore[call-arg]


def test_change_command(tmp_path: Path) -> None:
    worse = tmp_path / "worse.parquet"
    pl.read_parquet(DATA / "run.parquet").with_columns(score=-pl.col("score")).write_parquet(worse)
    out = subprocess.run([sys.executable, "-m", "rankwise.cli", "change", str(DATA / "run.parquet"), str(worse),
                          "--depth", "5", "--format", "csv"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    import io

    table = pl.read_csv(io.StringIO(out.stdout))
    expected = rw.ranking_change(DATA / "run.parquet", worse, depth=5)
    assert table["query_id"][-1] == "all" and table.height == expected.height + 1
    assert table["rbo_ext"][-1] == pytest.approx(expected["rbo_ext"].mean(), abs=1e-12)
    bad = subprocess.run([sys.executable, "-m", "rankwise.cli", "change", str(DATA / "run.parquet"), str(worse), "--depth", "0"],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and bad.stderr.startswith("rankwise: error: depth must be a whole number")


def test_segments() -> None:
    a = _frame({"q1": ["x", "y"], "q2": ["x", "y"]}).with_columns(market=pl.when(pl.col("query_id") == "q1").then(pl.lit("de")).otherwise(pl.lit("fr")))
    b = _frame({"q1": ["x", "y"], "q2": ["y", "z"]}).with_columns(market=pl.when(pl.col("query_id") == "q1").then(pl.lit("de")).otherwise(pl.lit("fr")))
    out = rw.ranking_change(a, b, depth=2, by="market")
    assert out.select("market", "query_id", "jaccard").rows() == [("de", "q1", 1.0), ("fr", "q2", 1 / 3)]
    with pytest.raises(rw.MissingColumnError, match="segment column"):
        rw.ranking_change(a, b, by="region")
