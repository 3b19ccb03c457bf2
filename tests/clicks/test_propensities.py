"""Examination propensities by intervention harvesting (rankwise.clicks.propensities): equal to
ultr-bias-toolkit 0.0.5's PivotEstimator and AdjacentChainEstimator on seeded logs frozen by
tests/data/clicks/make_propensity_cases.py; hand-worked values; the edges where
ultr-bias-toolkit silently gives 0 are errors here."""

from __future__ import annotations

import json
import math
from pathlib import Path

import polars as pl
import pytest

import rankwise as rw

CASES = json.loads((Path(__file__).parents[1] / "data" / "clicks" / "propensity_cases.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"seed{c['seed']}")
def test_equal_to_ultr_bias_toolkit(case: dict[str, object]) -> None:
    log = pl.DataFrame(case["log"])
    expected = case["expected"]
    assert isinstance(expected, dict)
    for name, kwargs in (("pivot1", {"method": "pivot", "pivot": 1}), ("pivot2", {"method": "pivot", "pivot": 2}),
                         ("adjacent", {"method": "adjacent"}), ("randomized", {"method": "randomized"})):
        got = rw.click_propensities(log, impression="impression", **kwargs)  # type: ignore[arg-type]
        want = expected[name]
        assert got["rank"].to_list() == [p for p, _ in want], name
        assert got["propensity"].to_list() == pytest.approx([e for _, e in want], rel=1e-12), name


def test_hand_worked_and_fed_to_the_estimate() -> None:
    # a and b swap between two impressions; at rank 1 each is clicked, at rank 2 a once, b never
    log = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "b", "b", "a"], "rank": [1, 2, 1, 2],
                        "click": [1, 0, 1, 1], "impression": [1, 1, 2, 2]})
    # ctr: a@1 = 1, b@2 = 0, b@1 = 1, a@2 = 1; C(1 -> 2) = 0 + 1, C(2 -> 1) = 1 + 1: θ_2 = 1/2
    for method in ("pivot", "adjacent"):
        theta = rw.click_propensities(log, impression="impression", method=method)
        assert theta.rows() == [(1, 1.0), (2, 0.5)]
    run = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    got = rw.click_estimate(log, run, "CG@1", propensities=theta, impression="impression")
    # clicks: a@1 (w 1), b@1 (w 1), a@2 (w 2) over two impressions: a's relevance (1 + 2)/2
    assert got.per_query.rows() == [("q", 1.5)]


def test_undefined_ratios_and_gaps_are_named_not_zero() -> None:
    # no click at rank 1 on what rank 2 shares: ultr-bias-toolkit gives 0 (or NaN turned 0)
    log = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "b", "b", "a"], "rank": [1, 2, 1, 2],
                        "click": [0, 1, 0, 1], "impression": [1, 1, 2, 2]})
    with pytest.raises(rw.InvalidValueError, match="no click at rank 1: the pivot estimate has nothing to divide by"):
        rw.click_propensities(log, impression="impression", method="pivot")
    with pytest.raises(rw.InvalidValueError, match="no click at rank 1 on the documents also shown at rank 2"):
        rw.click_propensities(log, impression="impression", method="adjacent")
    with pytest.raises(rw.InvalidValueError, match="no click at rank 1 on the documents also shown at rank 2"):
        rw.click_propensities(log, impression="impression", pivot=2)
    # rank 3 never shown beside rank 2 (a gap in the chain) nor beside the pivot 1: left out
    gap = pl.DataFrame({"query_id": ["q"] * 6, "doc_id": ["a", "b", "c", "b", "a", "d"], "rank": [1, 2, 3, 1, 2, 3],
                        "click": [1, 1, 1, 1, 1, 0], "impression": [1, 1, 1, 2, 2, 2]})
    assert rw.click_propensities(gap, impression="impression", method="adjacent")["rank"].to_list() == [1, 2]
    assert rw.click_propensities(gap, impression="impression")["rank"].to_list() == [1, 2]
    with pytest.raises(rw.InvalidValueError, match="pivot rank 3 and at rank 1"):
        rw.click_propensities(gap, impression="impression", pivot=3)
    with pytest.raises(rw.InvalidValueError, match="randomized estimate has nothing to divide by"):
        rw.click_propensities(log, impression="impression", method="randomized")
    # randomized: each rank's click-through rate over rank 1's (clicks 2/2, 2/2, 1/2 here)
    assert rw.click_propensities(gap, impression="impression", method="randomized").rows() == [(1, 1.0), (2, 1.0),
                                                                                               (3, 0.5)]
    with pytest.raises(rw.InvalidParameterError, match="method must be"):
        rw.click_propensities(gap, method="regression_em")
    with pytest.raises(rw.InvalidParameterError, match="pivot is a rank"):
        rw.click_propensities(gap, pivot=0)
    with pytest.raises(rw.MissingColumnError, match="'shown'"):
        rw.click_propensities(gap, rank="shown")


def test_recovers_a_known_examination_curve() -> None:
    """A large seeded log with shuffled rankings and θ(r) = 1/r: both estimates within 5%."""
    import random

    rng = random.Random(3)
    rows = []
    for q in range(20):
        docs = [f"{q}-{i}" for i in range(4)]
        rel = {d: 0.3 + 0.7 * rng.random() for d in docs}
        for i in range(400):
            rng.shuffle(docs)
            for r, d in enumerate(docs, start=1):
                rows.append((f"q{q}", d, r, int(rng.random() < rel[d] / r), f"q{q}-{i}"))
    log = pl.DataFrame(rows, schema=["query_id", "doc_id", "rank", "click", "impression"], orient="row")
    for method in ("pivot", "adjacent", "allpairs", "randomized"):
        theta = rw.click_propensities(log, impression="impression", method=method)
        for r, p in theta.iter_rows():
            assert math.isclose(p, 1 / r, rel_tol=0.05), (method, r, p)


def _exact_log(shown: dict[tuple[int, int], list[float]], theta: dict[int, float], n: int = 100) -> pl.DataFrame:
    """Each (query, doc) of ``shown[(k, k')]`` (its relevance r) shown n times at rank k and n
    times at k', clicked exactly round(n θ_k r) times at k: the click-through rates are exactly
    θ_k r (the θ_k r are multiples of 1/n)."""
    rows = []
    for (k, k2), relevances in shown.items():
        for j, r in enumerate(relevances):
            q, d = f"q{k}{k2}", f"d{j}"
            for at in (k, k2):
                clicks = round(n * theta[at] * r)
                assert abs(clicks - n * theta[at] * r) < 1e-9
                rows += [(q, d, at, int(i < clicks), f"{q}-{d}-{at}-{i}") for i in range(n)]
    return pl.DataFrame(rows, schema=["query_id", "doc_id", "rank", "click", "impression"], orient="row")


def test_allpairs_recovers_theta_exactly_where_the_rates_are_exact() -> None:
    """Agarwal et al.'s AllPairs: with click-through rates exactly θ_k r_d the likelihood's
    maximum is the truth (one relevance per pair of ranks, their mean): θ to 1e-6. Rank 4 is
    never shown with rank 1, so the pivot has no estimate for it; AllPairs does, through 2 and 3."""
    theta = {1: 1.0, 2: 0.5, 3: 0.25, 4: 0.2}
    shown = {(1, 2): [0.4, 0.8], (1, 3): [0.6, 0.4], (2, 3): [0.8], (2, 4): [0.6, 0.2], (3, 4): [0.4, 0.8]}
    log = _exact_log(shown, theta)
    got = rw.click_propensities(log, impression="impression", method="allpairs")
    assert got["rank"].to_list() == [1, 2, 3, 4]
    assert got["propensity"].to_list() == pytest.approx(list(theta.values()), rel=1e-6)
    assert rw.click_propensities(log, impression="impression", method="pivot")["rank"].to_list() == [1, 2, 3]


def test_allpairs_with_two_ranks_is_the_pivots_ratio() -> None:
    """With two ranks the likelihood has one relevance for the one pair: θ_2 / θ_1 = C(1 → 2) /
    C(2 → 1), the pivot's estimate (itself equal to ultr-bias-toolkit's)."""
    import random

    rng = random.Random(5)
    rows = []
    for q in range(30):
        rel = {d: rng.random() for d in ("a", "b", "c")}
        for i in range(rng.randrange(3, 12)):
            first = rng.choice("abc")
            second = rng.choice([d for d in "abc" if d != first])
            rows += [(f"q{q}", first, 1, int(rng.random() < rel[first]), f"{q}-{i}"),
                     (f"q{q}", second, 2, int(rng.random() < 0.4 * rel[second]), f"{q}-{i}")]
    log = pl.DataFrame(rows, schema=["query_id", "doc_id", "rank", "click", "impression"], orient="row")
    pivot = rw.click_propensities(log, impression="impression", method="pivot")
    allpairs = rw.click_propensities(log, impression="impression", method="allpairs")
    assert allpairs["rank"].to_list() == [1, 2]
    assert allpairs["propensity"].to_list() == pytest.approx(pivot["propensity"].to_list(), rel=1e-6)


def test_allpairs_undefined_cases_are_named() -> None:
    theta = {1: 1.0, 2: 0.5, 3: 0.25}
    no_top = _exact_log({(2, 3): [0.8]}, theta)
    with pytest.raises(rw.InvalidValueError, match="shown both at rank 1 and at another rank"):
        rw.click_propensities(no_top, impression="impression", method="allpairs")
    silent = _exact_log({(1, 2): [0.0], (1, 3): [0.0]}, theta)
    with pytest.raises(rw.InvalidValueError, match="no click at rank 1"):
        rw.click_propensities(silent, impression="impression", method="allpairs")


def test_cli_propensities_feed_cli_clicks(tmp_path: Path) -> None:
    from tests.cli.test_cli import cli

    case = CASES[0]
    log = pl.DataFrame(case["log"])
    log.write_parquet(tmp_path / "log.parquet")
    done = cli("propensities", str(tmp_path / "log.parquet"), "--impression-col", "impression", "--method", "allpairs",
               "--format", "csv", "-o", str(tmp_path / "theta.csv"))
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == f"wrote {tmp_path / 'theta.csv'} (5 ranks)"
    want = rw.click_propensities(log, impression="impression", method="allpairs")
    got = pl.read_csv(tmp_path / "theta.csv")
    assert got["propensity"].to_list() == pytest.approx(want["propensity"].to_list(), rel=1e-12)
    run = log.select("query_id", "doc_id").unique().with_columns(score=pl.col("doc_id").str.slice(-1).cast(pl.Float64))
    run.write_parquet(tmp_path / "run.parquet")
    est = cli("clicks", str(tmp_path / "log.parquet"), str(tmp_path / "run.parquet"), "-m", "DCG@3",
              "--impression-col", "impression", "--propensities", str(tmp_path / "theta.csv"), "--format", "csv")
    assert est.returncode == 0, est.stderr
    value = rw.click_estimate(log, run, "DCG@3", propensities=want, impression="impression").summary["estimate"][0]
    assert pl.read_csv(est.stdout.encode())["estimate"][0] == pytest.approx(value, rel=1e-9)
    bad = cli("propensities", str(tmp_path / "log.parquet"), "--pivot", "0")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "pivot is a rank" in bad.stderr
