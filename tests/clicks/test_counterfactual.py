"""Counterfactual (inverse-propensity) estimates from a click log (rankwise.clicks.counterfactual).

Checked against rankkit 0.1.0 (`rankkit.bias.estimate` and `diagnose`, pure standard library,
Joachims, Swaminathan & Schnabel's examination IPS) on seeded logs: its `weight='dcg'` is DCG
without a cutoff, `weight='recall', k` is CG@k (a count of relevant in the top k), `weight='rr'` is
DCG(discount='reciprocal') (Σ 1/rank over the relevant: at η = 1 the expected clicks), `.snips`
our `snips`, `clip` our `clip`, `diagnose()` our diagnostics; hand-worked values for the edges;
and a seeded simulation of position-based clicks, where the IPS estimate lands on the new
ranking's true metric and the naive one does not.
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rankwise as rw
from tests.cli.test_cli import cli as rankwise_cli

ENGINES = ("polars", "duckdb")


def _seeded(seed: int, queries: int = 30, shown: int = 8) -> tuple[pl.DataFrame, pl.DataFrame, list[Any]]:
    """A click log (one impression per query), a new run over the same documents (reordered,
    some dropped) and rankkit's ClickQuery list of the same log."""
    from rankkit.data import ClickQuery

    rng = random.Random(seed)
    log, run, queries_rk = [], [], []
    for q in range(queries):
        qid = f"q{q:02d}"
        docs = [f"d{q}_{i}" for i in range(shown)]
        clicks = [d for d in docs if rng.random() < 0.3]
        for r, d in enumerate(docs, start=1):
            log.append({"query_id": qid, "doc_id": d, "rank": r, "click": int(d in clicks)})
        new = docs[:]
        rng.shuffle(new)
        new = new[: shown - rng.randrange(0, 3)]  # some shown documents the new run does not rank
        for r, d in enumerate(new, start=1):
            run.append({"query_id": qid, "doc_id": d, "score": float(len(new) - r)})
        queries_rk.append(ClickQuery(qid, tuple(docs), tuple(clicks)))
    return pl.DataFrame(log), pl.DataFrame(run), queries_rk


def _policy(run: pl.DataFrame) -> Any:
    from rankkit.bias import policy_from

    ordered = run.sort("query_id", "score", descending=[False, True])
    return policy_from({q: tuple(g["doc_id"]) for (q,), g in ordered.group_by("query_id", maintain_order=True)})


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("eta", "clip"), [(1.0, None), (0.5, None), (2.0, 0.05), (1.0, 0.3)])
def test_ips_naive_snips_and_diagnostics_equal_rankkit(engine: str, seed: int, eta: float, clip: float | None) -> None:
    from rankkit.bias import diagnose, estimate

    log, run, queries = _seeded(seed)
    policy = _policy(run)
    metrics = ["DCG", "CG@3", "DCG(discount='reciprocal')"]
    got = rw.click_estimate(log, run, metrics, eta=eta, clip=clip, engine=engine)
    naive = rw.click_estimate(log, run, metrics, eta=eta, clip=clip, estimator="naive", engine=engine)
    for metric, weight, k in (("DCG", "dcg", 10), ("CG@3", "recall", 3), ("DCG(discount='reciprocal')", "rr", 10)):
        want = estimate(queries, policy, eta=eta, weight=weight, k=k, clip=clip or 0.0)
        row = got.summary.filter(pl.col("metric") == metric).row(0, named=True)
        assert row["estimate"] == pytest.approx(want.ips, rel=1e-12, abs=1e-12)
        assert row["snips"] == pytest.approx(want.snips, rel=1e-12, abs=1e-12)
        per_query = dict(got.per_query.select("query_id", metric).iter_rows())
        assert per_query == pytest.approx(want.per_query, rel=1e-12, abs=1e-12)
        naive_row = naive.summary.filter(pl.col("metric") == metric).row(0, named=True)
        assert naive_row["estimate"] == pytest.approx(want.naive, rel=1e-12, abs=1e-12)
    d = diagnose(queries, eta=eta, clip=clip or 0.0)
    diag = got.diagnostics.row(0, named=True)
    assert diag["clicks"] == d.n_clicks and diag["clipped"] == d.clipped
    assert diag["ess"] == pytest.approx(d.ess, rel=1e-12)
    assert diag["max_weight_share"] == pytest.approx(d.max_weight_share, rel=1e-12)
    assert diag["relevant_per_impression"] == pytest.approx(d.relevant_per_query, rel=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("clip", [None, 0.3])
def test_ctr_and_precision_equal_rankkit(engine: str, seed: int, clip: float | None) -> None:
    """At η = 1 the expected clicks CTR@k (θ(r) = 1/r, k past every list) is rankkit's
    ``weight='rr'`` (λ(r) = 1/r); P@k is its ``weight='recall'`` over k."""
    from rankkit.bias import estimate

    log, run, queries = _seeded(seed)
    policy = _policy(run)
    got = rw.click_estimate(log, run, ["CTR@8", "P@3"], eta=1.0, clip=clip, engine=engine)
    naive = rw.click_estimate(log, run, ["CTR@8", "P@3"], eta=1.0, clip=clip, estimator="naive", engine=engine)
    for metric, weight, k, scale in (("CTR@8", "rr", 10, 1.0), ("P@3", "recall", 3, 1 / 3)):
        want = estimate(queries, policy, eta=1.0, weight=weight, k=k, clip=clip or 0.0)
        row = got.summary.filter(pl.col("metric") == metric).row(0, named=True)
        assert row["estimate"] == pytest.approx(want.ips * scale, rel=1e-12, abs=1e-12)
        assert row["snips"] == pytest.approx(want.snips * scale, rel=1e-12, abs=1e-12)
        per_query = dict(got.per_query.select("query_id", metric).iter_rows())
        assert per_query == pytest.approx({q: v * scale for q, v in want.per_query.items()}, rel=1e-12, abs=1e-12)
        assert naive.summary.filter(pl.col("metric") == metric)["estimate"][0] == pytest.approx(
            want.naive * scale, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_ctr_under_a_table_of_propensities_by_hand(engine: str) -> None:
    log = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "rank": [1, 2, 3], "click": [0, 1, 1]})
    run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["c", "a", "b"], "score": [3.0, 2.0, 1.0]})
    theta = {1: 1.0, 2: 0.6, 3: 0.3}
    got = rw.click_estimate(log, run, ["CTR@3", "CTR@2", "ctr@1"], propensities=theta, engine=engine)
    # b clicked at 2 (w 1/.6), c at 3 (w 1/.3); the new run shows c at 1 (θ 1) and b at 3 (θ .3)
    assert got.per_query.rows() == [("q1", pytest.approx(1 / 0.3 + 0.3 / 0.6), pytest.approx(1 / 0.3),
                                     pytest.approx(1 / 0.3))]
    assert got.summary["metric"].to_list() == ["CTR@3", "CTR@2", "ctr@1"]
    # η = 2: θ(r) = 1/r², the same clicks weigh 4 and 9
    power = rw.click_estimate(log, run, "CTR@3", eta=2.0, engine=engine)
    assert power.per_query.rows() == [("q1", pytest.approx(9 + 4 / 9))]


def test_simulation_ctr_finds_the_clicks_the_new_ranking_gets() -> None:
    """Position-based clicks under a θ table, logged under one ranking; the new ranking shown
    to the same simulated users gets, per impression, Σ θ(r) rel(d_r) clicks. The IPS CTR@4
    from the old log lands on the clicks the new ranking gets when shown; the naive does not."""
    rng = random.Random(11)
    theta = {1: 1.0, 2: 0.45, 3: 0.3, 4: 0.2, 5: 0.12}
    relevance = {"d0": 0.9, "d1": 0.7, "d2": 0.1, "d3": 0.05, "d4": 0.0}
    logged = ["d2", "d3", "d4", "d0", "d1"]
    new = ["d0", "d2", "d1", "d3", "d4"]
    run = pl.DataFrame({"query_id": ["q"] * 5, "doc_id": new, "score": [5.0, 4, 3, 2, 1]})

    def clicks(order: list[str], impressions: int) -> list[dict[str, Any]]:
        return [{"impression": i, "query_id": "q", "doc_id": d, "rank": r,
                 "click": int(rng.random() < theta[r] * relevance[d])}
                for i in range(impressions) for r, d in enumerate(order, start=1)]

    ips, naive, shown = [], [], []
    for _ in range(6):
        log = pl.DataFrame(clicks(logged, 4000))
        ips.append(rw.click_estimate(log, run, "CTR@4", propensities=theta, impression="impression")
                   .summary["estimate"][0])
        naive.append(rw.click_estimate(log, run, "CTR@4", propensities=theta, estimator="naive",
                                       impression="impression").summary["estimate"][0])
        online = pl.DataFrame(clicks(new, 4000)).filter(pl.col("rank") <= 4)
        shown.append(online["click"].sum() / 4000)
    truth = sum(shown) / len(shown)  # the clicks per impression the new ranking got when shown
    mean = sum(ips) / len(ips)
    se = math.sqrt(sum((x - mean) ** 2 for x in ips) / (len(ips) - 1) / len(ips))
    assert abs(mean - truth) < 4 * se + 0.02
    assert sum(naive) / len(naive) < 0.5 * truth


def test_ctr_refusals_are_named() -> None:
    log, run, _ = _seeded(0, queries=2)
    cases: list[tuple[str, dict[str, Any], type[Exception], str]] = [
        ("CTR@0", {}, rw.InvalidParameterError, "at least 1"),
        ("CTR@9", {"propensities": {r: 1 / r for r in range(1, 9)}}, rw.InvalidValueError,
         "needs θ at ranks 1 to 9: propensities= gives none for rank 9"),
        ("CTR@3", {"propensities": {1: 1.0, 2: -0.5, 3: 0.2, **{r: 0.1 for r in range(4, 9)}}},
         rw.InvalidValueError, r"θ must be in \[0, 1\], propensities= gives -0.5 at rank 2"),
    ]
    for metric, kwargs, error, message in cases:
        with pytest.raises(error, match=message):
            rw.click_estimate(log, run, ["DCG@3", metric], **kwargs)
    column = log.with_columns(pl.lit(0.5).alias("p"))
    with pytest.raises(rw.InvalidParameterError, match="CTR@3 needs θ by rank"):
        rw.click_estimate(column, run, "CTR@3", propensity="p")


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
def test_hand_worked_edges() -> None:
    log = pl.DataFrame({
        "query_id": ["q1"] * 3 + ["q2"] * 2 + ["q3"] * 2,
        "doc_id": ["a", "b", "c", "x", "y", "m", "n"],
        "rank": [1, 2, 3, 1, 2, 1, 2],
        "click": [1, 0, 1, 0, 0, 0, 1],
    })
    run = pl.DataFrame({
        "query_id": ["q1", "q1", "q2", "q4"],  # q3 absent (the new run ranks nothing: 0), q4 not in the log
        "doc_id": ["c", "z", "x", "a"],
        "score": [2.0, 1.0, 1.0, 1.0],
    })
    got = rw.click_estimate(log, run, ["DCG@2", "CG@1"], propensities={1: 1.0, 2: 0.5, 3: 0.25}, clip=0.3)
    # q1: a clicked at 1 (w 1) is not ranked; c clicked at 3 (θ .25 clipped to .3: w 1/.3) ranked 1st
    # q2: no click; q3: n clicked at 2 (w 2), the run lacks q3
    assert got.per_query.rows() == [("q1", pytest.approx(1 / 0.3), pytest.approx(1 / 0.3)), ("q2", 0.0, 0.0),
                                    ("q3", 0.0, 0.0)]
    row = got.summary.row(0, named=True)
    assert row["queries"] == 3 and row["impressions"] == 3
    assert row["estimate"] == pytest.approx((1 / 0.3) / 3)
    sd = math.sqrt(((1 / 0.3 - (1 / 0.3) / 3) ** 2 + 2 * ((1 / 0.3) / 3) ** 2) / 2)
    assert row["std_error"] == pytest.approx(sd / math.sqrt(3))
    z = 1.959963984540054
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((row["estimate"] - z * row["std_error"],
                                                             row["estimate"] + z * row["std_error"]))
    # snips: Σ over clicks of λ w / Σ w = (0 · 1 + 1 · (1/.3) + 0 · 2) / (1 + 1/.3 + 2) for CG@1
    assert got.summary.row(1, named=True)["snips"] == pytest.approx((1 / 0.3) / (1 + 1 / 0.3 + 2))
    # its delta-method standard error over the queries: A_q (Σ λ w) = 1/.3, 0, 0; B_q (Σ w) = 1 + 1/.3, 0, 2
    r = (1 / 0.3) / (1 + 1 / 0.3 + 2)
    terms = (1 / 0.3 - r * (1 + 1 / 0.3)) ** 2 + 0.0 + (0 - r * 2) ** 2
    sn = got.summary.row(1, named=True)
    assert sn["snips_std_error"] == pytest.approx(math.sqrt(3 / 2 * terms) / (1 + 1 / 0.3 + 2))
    assert (sn["snips_ci_low"], sn["snips_ci_high"]) == pytest.approx((r - z * sn["snips_std_error"],
                                                                       r + z * sn["snips_std_error"]))
    diag = got.diagnostics.row(0, named=True)
    assert (diag["clicks"], diag["clipped"]) == (3, 1)
    # one query: no standard error
    one = rw.click_estimate(log.filter(pl.col("query_id") == "q1"), run, "CG@1")
    assert one.summary.row(0, named=True)["std_error"] is None
    # no click at all: every estimate 0, the diagnostics 0
    none = rw.click_estimate(log.with_columns(pl.lit(0).alias("click")), run, "DCG@2")
    assert none.summary["estimate"].to_list() == [0.0] and none.diagnostics["ess"].to_list() == [0.0]


def test_impressions_average_within_a_query_and_judgments_feed_compare() -> None:
    log = pl.DataFrame({
        "impression": [1, 1, 2, 2], "query_id": ["q1"] * 4, "doc_id": ["a", "b", "b", "a"], "rank": [1, 2, 1, 2],
        "click": [0, 1, 0, 0],
    })
    judged = rw.click_judgments(log, impression="impression")
    # b clicked at rank 2 (w 2) in one of the query's two impressions: relevance 1
    assert judged.rows() == [("q1", "a", 0.0), ("q1", "b", 1.0)]
    run_a = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["b", "a"], "score": [2.0, 1.0]})
    got = rw.click_estimate(log, run_a, "CG@1", impression="impression")
    assert got.per_query.rows() == [("q1", 1.0)] and got.summary["impressions"].to_list() == [2]
    run_b = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    compared = rw.compare(got.judgments, {"a": run_a, "b": run_b}, ["CG@1"], missing="zero")
    assert compared is not None


def test_simulation_ips_finds_the_truth_naive_does_not() -> None:
    """Position-based clicks with θ(r) = 1/r logged under a ranker that puts the relevant
    documents low; the new ranker's true DCG@5 (binary) is known. Over 6 seeds the IPS mean is
    within 4 standard errors of the truth; the naive one is far below."""
    rng = random.Random(7)
    relevant = {"d0": 1, "d1": 1, "d2": 0, "d3": 0, "d4": 0, "d5": 0}
    logged = ["d2", "d3", "d4", "d0", "d5", "d1"]  # the relevant ones at 4 and 6
    new = ["d0", "d2", "d1", "d3", "d4", "d5"]  # at 1 and 3
    truth = 1 / math.log2(2) + 1 / math.log2(4)
    run = pl.DataFrame({"query_id": ["q"] * 6, "doc_id": new, "score": [6.0, 5, 4, 3, 2, 1]})
    ips, naive = [], []
    for _ in range(6):
        rows = []
        for i in range(4000):
            for r, d in enumerate(logged, start=1):
                click = int(rng.random() < 1 / r and relevant[d] == 1)
                rows.append({"impression": i, "query_id": "q", "doc_id": d, "rank": r, "click": click})
        log = pl.DataFrame(rows)
        ips.append(rw.click_estimate(log, run, "DCG@5", eta=1.0, impression="impression").summary["estimate"][0])
        naive.append(rw.click_estimate(log, run, "DCG@5", estimator="naive", impression="impression")
                     .summary["estimate"][0])
    mean = sum(ips) / len(ips)
    se = math.sqrt(sum((x - mean) ** 2 for x in ips) / (len(ips) - 1) / len(ips))
    assert abs(mean - truth) < 4 * se + 0.02
    assert sum(naive) / len(naive) < 0.5 * truth


@pytest.mark.parametrize("metric", ["nDCG@10", "AP", "RR", "P(rel=2)@5", "P(denominator='retrieved')@5", "R@10", "Success@3", "DCG(gain='exponential')@5",
                                    "CG(rel=1)@3", "DCG(judged_only=True)@3"])
def test_metrics_not_linear_in_the_relevance_are_refused(metric: str) -> None:
    log, run, _ = _seeded(0, queries=2)
    with pytest.raises(rw.InvalidParameterError, match="unbiased only for a metric linear in the relevance") as caught:
        rw.click_estimate(log, run, metric)
    # the error says why and what is accepted; it does not enumerate the metrics it refuses
    message = str(caught.value).split(": ", 1)[1]
    assert "DCG or CG with gain='linear'" in message
    assert not any(name in message for name in ("nDCG", "AP", "RR", "Success"))


def test_bad_logs_and_parameters_are_named() -> None:
    log, run, _ = _seeded(0, queries=2)
    cases: list[tuple[dict[str, Any], pl.DataFrame, type[Exception], str]] = [
        ({}, log.drop("click"), rw.MissingColumnError, "click"),
        ({}, log.with_columns(pl.lit(2).alias("click")), rw.InvalidValueError, "must hold 0 or 1, found 2"),
        ({}, log.with_columns(pl.lit(0).alias("rank")), rw.InvalidValueError, "at least 1"),
        ({}, log.with_columns(pl.col("rank").cast(pl.Float64)), rw.ColumnTypeError, "whole numbers"),
        ({}, pl.concat([log, log.head(1)]), rw.DuplicateDocumentError, "twice"),
        ({"propensities": {1: 0.5}}, log.with_columns(pl.lit(1).alias("click")), rw.InvalidValueError,
         "gives no θ for"),
        ({"propensities": {r: 1.5 for r in range(1, 9)}}, log.with_columns(pl.lit(1).alias("click")),
         rw.InvalidValueError, r"θ must be in \(0, 1\]"),
        ({"eta": -1.0}, log, rw.InvalidParameterError, "eta must be"),
        ({"eta": 1.0, "propensities": {1: 1.0}}, log, rw.InvalidParameterError, "give one of"),
        ({"clip": 0.0}, log, rw.InvalidParameterError, "clip is a floor"),
        ({"estimator": "snips"}, log, rw.InvalidParameterError, "estimator must be one of"),
        ({"alpha": 1.0}, log, rw.InvalidParameterError, "alpha must be in"),
        ({"missing": "zero"}, log, rw.ArgumentTypeError, "missing"),
    ]
    for kwargs, bad, error, message in cases:
        with pytest.raises(error, match=message):
            rw.click_estimate(bad, run, "DCG@3", **kwargs)
    with pytest.raises(rw.InvalidValueError, match="θ must be in"):
        rw.click_estimate(log.with_columns(pl.lit(0.0).alias("p"), pl.lit(1).alias("click")), run, "DCG@3",
                          propensity="p")


def test_a_propensity_column_and_a_frame_of_propensities(tmp_path: Path) -> None:
    log, run, _ = _seeded(3)
    theta = {r: 0.9 ** (r - 1) for r in range(1, 9)}
    by_map = rw.click_estimate(log, run, "DCG@5", propensities=theta)
    table = pl.DataFrame({"rank": list(theta), "propensity": list(theta.values())})
    by_frame = rw.click_estimate(log, run, "DCG@5", propensities=table)
    column = log.with_columns(pl.col("rank").replace_strict(theta, return_dtype=pl.Float64).alias("theta"))
    column.write_parquet(tmp_path / "log.parquet")
    by_column = rw.click_estimate(tmp_path / "log.parquet", run, "DCG@5", propensity="theta", engine="duckdb")
    assert by_map.per_query.equals(by_frame.per_query)
    assert by_map.summary["estimate"][0] == pytest.approx(by_column.summary["estimate"][0], rel=1e-12)


def test_cli_click_estimate(tmp_path: Path) -> None:
    log, run, _ = _seeded(1, queries=5)
    log.write_parquet(tmp_path / "log.parquet")
    run.write_parquet(tmp_path / "run.parquet")
    files = (str(tmp_path / "log.parquet"), str(tmp_path / "run.parquet"))
    out = rankwise_cli("clicks", *files, "-m", "DCG@5", "CG@3", "--eta", "1", "--clip", "0.2")
    assert out.returncode == 0, out.stderr
    want = rw.click_estimate(log, run, ["DCG@5", "CG@3"], eta=1.0, clip=0.2)
    for row in want.summary.iter_rows(named=True):  # each estimate ± its interval's half width: a table that fits
        assert row["metric"] in out.stdout and f"{row['estimate']:.4f}" in out.stdout
        assert f"{row['estimate']:.4f} ± {(row['ci_high'] - row['ci_low']) / 2:.4f}" in out.stdout
        assert f"{row['snips']:.4f} ± {(row['snips_ci_high'] - row['snips_ci_low']) / 2:.4f}" in out.stdout
    assert max(map(len, out.stdout.splitlines())) <= 110 and "estimate (95%)" in out.stdout
    assert "effective sample size" in out.stdout
    ctr = rankwise_cli("clicks", *files, "-m", "CTR@5", "P@2", "--eta", "0.5", "--format", "csv")
    want = rw.click_estimate(log, run, ["CTR@5", "P@2"], eta=0.5).summary
    assert ctr.returncode == 0, ctr.stderr
    assert pl.read_csv(ctr.stdout.encode())["estimate"].to_list() == pytest.approx(want["estimate"].to_list())
    bad = rankwise_cli("clicks", *files, "-m", "nDCG@5")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "linear in the relevance" in bad.stderr
    bad = rankwise_cli("clicks", *files, "-m", "DCG@5", "--click-col", "clicked")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "clicked" in bad.stderr
    theta = tmp_path / "theta.csv"
    pl.DataFrame({"rank": list(range(1, 9)), "propensity": [1 / r for r in range(1, 9)]}).write_csv(theta)
    written = rankwise_cli("clicks", *files, "-m", "DCG@5", "--propensities", str(theta), "--per-query",
                           "--format", "csv", "-o", str(tmp_path / "per_query.csv"))
    assert written.returncode == 0, written.stderr
    assert written.stderr.strip() == f"wrote {tmp_path / 'per_query.csv'} (5 queries, 1 metric)"
    got = pl.read_csv(tmp_path / "per_query.csv")
    by_power = rw.click_estimate(log, run, "DCG@5", eta=1.0)  # θ = 1/r, as the file gives it
    assert got["DCG@5"].to_list() == pytest.approx(by_power.per_query["DCG@5"].to_list(), rel=1e-12)
