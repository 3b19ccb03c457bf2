"""Policy-ratio (slate) estimates from a click log (rankwise.clicks.slate).

Checked against Open Bandit Pipeline (obp, Saito et al.), frozen by
tests/data/clicks/make_slate_cases.py (obp imports torch and 0.5.x needs Python < 3.11, so it is no
test extra): ``SlateStandardIPS``, ``SlateIndependentIPS``, ``SlateRewardInteractionIPS`` of obp
0.4.1 (PyPI, ``obp/ope/estimators_slate.py``; ``estimate_policy_value`` and ``estimate_interval``,
the percentile bootstrap with ``random_state``) into slate_cases.json, and the self-normalised
``SelfNormalizedSlate{Standard,Independent,RewardInteraction}IPS`` of obp's GitHub source
(st-tech/zr-obp @ 8cbd5fa4, ``version.py`` 0.5.5) into slate_sn_cases.json, on four seeded logs of a
Plackett-Luce logging policy, each with a stochastic evaluation policy and a deterministic new
ranking (a run, π_e ∈ {0, 1}); hand-worked values for the edges; obp's input checks as errors; a
seeded simulation where each estimate's standard error is its spread and its interval covers the truth.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rankwise as rw
from tests.cli.test_cli import cli as rankwise_cli

ENGINES = ("polars", "duckdb")
DATA = Path(__file__).parents[1] / "data" / "clicks"
OBP = json.loads((DATA / "slate_cases.json").read_text())
OBP_SN = json.loads((DATA / "slate_sn_cases.json").read_text())
COLUMN = {"sips": "pscore", "iips": "pscore_item_position", "rips": "pscore_cascade"}


def _cases(frozen: dict[str, Any]) -> list[tuple[dict[str, Any], str, str]]:
    return [(case, *key.split("/")) for case in frozen["cases"] for key in case["expected"]]


def _estimate(case: dict[str, Any], estimator: str, policy: str, engine: str, **kwargs: Any) -> rw.SlateEstimate:
    log, run = pl.DataFrame(case["log"]), pl.DataFrame(case["run"])
    column = COLUMN[estimator.removeprefix("sn")]
    if policy == "run":
        return rw.slate_estimate(log.drop(f"evaluation_policy_{column}"), run, estimator=estimator,
                                 impression="slate_id", engine=engine, **kwargs)
    return rw.slate_estimate(log, estimator=estimator, impression="slate_id", engine=engine, **kwargs)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("case", "estimator", "policy"), _cases(OBP),
                         ids=[f"seed{c['seed']}-{e}-{p}" for c, e, p in _cases(OBP)])
def test_equal_to_obp_041(case: dict[str, Any], estimator: str, policy: str, engine: str) -> None:
    assert OBP["source"].startswith("obp 0.4.1")
    want = case["expected"][f"{estimator}/{policy}"]
    got = _estimate(case, estimator, policy, engine, resamples=1000, seed=case["seed"]).summary.row(0, named=True)
    assert got["estimate"] == pytest.approx(want["value"], rel=1e-12, abs=1e-12)
    interval = want["interval"]
    assert got["boot_mean"] == pytest.approx(interval["mean"], rel=1e-12, abs=1e-12)
    assert got["boot_ci_low"] == pytest.approx(interval["95.0% CI (lower)"], rel=1e-12, abs=1e-12)
    assert got["boot_ci_high"] == pytest.approx(interval["95.0% CI (upper)"], rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("case", "estimator", "policy"), _cases(OBP_SN),
                         ids=[f"seed{c['seed']}-{e}-{p}" for c, e, p in _cases(OBP_SN)])
def test_self_normalised_equal_to_obp_master(case: dict[str, Any], estimator: str, policy: str, engine: str) -> None:
    assert OBP_SN["source"].startswith("obp 0.5.5 (GitHub st-tech/zr-obp @ 8cbd5fa4")
    got = _estimate(case, estimator, policy, engine).summary["estimate"][0]
    assert got == pytest.approx(case["expected"][f"{estimator}/{policy}"]["value"], rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_per_slate_values_standard_errors_and_engines_agree(engine: str) -> None:
    case = OBP["cases"][0]
    for estimator in ("sips", "iips", "rips"):
        got = _estimate(case, estimator, "stochastic", engine)
        log = pl.DataFrame(case["log"])
        column = COLUMN[estimator]
        # the slate value: Σ click · π_e / π_b over its rows (obp's round rewards summed per slate)
        want = (
            log.group_by("slate_id").agg(
                (pl.col("click") * pl.col(f"evaluation_policy_{column}") / pl.col(column)).sum().alias("value"))
            .sort("slate_id")
        )
        assert got.per_slate.columns == ["slate_id", "value"]
        assert got.per_slate["slate_id"].to_list() == want["slate_id"].to_list()
        assert got.per_slate["value"].to_list() == pytest.approx(want["value"].to_list(), rel=1e-12, abs=1e-15)
        values = want["value"].to_list()
        n = len(values)
        mean = sum(values) / n
        se = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)
        row = got.summary.row(0, named=True)
        assert row["std_error"] == pytest.approx(se, rel=1e-12)
        assert row["ci_low"] == pytest.approx(mean - 1.959963984540054 * se, rel=1e-12)
        assert row["ci_high"] == pytest.approx(mean + 1.959963984540054 * se, rel=1e-12)
        assert (row["slates"], row["clicks"]) == (n, sum(case["log"]["click"]))
        other = _estimate(case, estimator, "stochastic", "duckdb" if engine == "polars" else "polars")
        assert got.per_slate["value"].to_list() == pytest.approx(other.per_slate["value"].to_list(), rel=1e-12, abs=1e-15)


HAND = pl.DataFrame({
    "slate": [1, 1, 2, 2, 3, 3], "query_id": ["q"] * 6, "doc_id": ["a", "b", "b", "a", "a", "c"],
    "rank": [1, 2, 1, 2, 1, 2], "click": [1, 1, 0, 1, 1, 0],
    "pscore": [0.5, 0.5, 0.25, 0.25, 0.25, 0.25],
    "pscore_item_position": [0.5, 0.5, 0.25, 0.5, 0.5, 0.25],
    "pscore_cascade": [0.5, 0.5, 0.25, 0.25, 0.5, 0.25],
})
"""Three slates of query q; the run ranks a, b, c. Slate 1 (a, b) is the run's top 2; slate 2 (b, a)
agrees nowhere; slate 3 (a, c) agrees at rank 1 only."""
RUN = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})


@pytest.mark.parametrize("engine", ENGINES)
def test_hand_worked_run_as_the_evaluation_policy(engine: str) -> None:
    est = {e: rw.slate_estimate(HAND, RUN, estimator=e, impression="slate", engine=engine) for e in
           ("sips", "iips", "rips", "snsips", "sniips", "snrips")}
    # sips: only slate 1 is the run's slate: its clicks 1 + 1 over π_b 0.5 → 4; slates 2, 3 → 0
    assert est["sips"].per_slate.rows() == [(1, 4.0), (2, 0.0), (3, 0.0)]
    # iips: a click counts where the run puts the document at the rank shown:
    # slate 1: a@1 1/0.5 + b@2 1/0.5 = 4; slate 2: none; slate 3: a@1 1/0.5 = 2
    assert est["iips"].per_slate.rows() == [(1, 4.0), (2, 0.0), (3, 2.0)]
    # rips: a click counts where the run reproduces the prefix: slate 1 4, slate 3 a@1 1/0.5 = 2
    assert est["rips"].per_slate.rows() == [(1, 4.0), (2, 0.0), (3, 2.0)]
    assert est["iips"].summary.row(0, named=True) | {"std_error": None, "ci_low": None, "ci_high": None} == {
        "estimator": "iips", "estimate": 2.0, "std_error": None, "ci_low": None, "ci_high": None,
        "slates": 3, "clicks": 4, "matched": 3}
    # sd of (4, 0, 2) = 2, so the standard error is 2/√3
    assert est["iips"].summary["std_error"][0] == pytest.approx(2 / math.sqrt(3), rel=1e-12)
    # snsips: weights (2, 2, 0, 0, 0, 0), their mean over the six rows 2/3: slate 1 (1·2 + 1·2) / (2/3) = 6
    assert est["snsips"].per_slate["value"].to_list() == pytest.approx([6.0, 0.0, 0.0], rel=1e-12)
    # sniips: rank 1 weights (2, 0, 2) mean 4/3, rank 2 (2, 0, 0) mean 2/3:
    # slate 1 2/(4/3) + 2/(2/3) = 4.5, slate 3 2/(4/3) = 1.5; estimate 2
    assert est["sniips"].per_slate["value"].to_list() == pytest.approx([4.5, 0.0, 1.5], rel=1e-12)
    assert est["snrips"].per_slate["value"].to_list() == pytest.approx([4.5, 0.0, 1.5], rel=1e-12)
    # the delta method: rank 1 A = 4, B = 4, R = 1; rank 2 A = 2, B = 2, R = 1; n_g / S = 1:
    # ψ = Σ_g (a − R b) / B = 0 for every slate (each clicked row has weight w, each weighted row a click)
    assert est["sniips"].summary["std_error"][0] == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize("engine", ENGINES)
def test_hand_worked_delta_method(engine: str) -> None:
    log = pl.DataFrame({"slate": [1, 2, 3], "doc_id": ["a", "a", "a"], "rank": [1, 1, 1], "click": [1, 0, 1],
                        "pscore": [0.5, 0.5, 0.25], "evaluation_policy_pscore": [1.0, 0.5, 0.5]})
    got = rw.slate_estimate(log, estimator="snsips", impression="slate", engine=engine)
    # w = (2, 1, 2), mean 5/3: values 2·3/5, 0, 2·3/5 → estimate 0.8; A = 4, B = 5, R = 0.8, n/S = 1:
    # ψ = ((2 − 1.6)/5, (0 − 0.8)/5, (2 − 1.6)/5) = (0.08, −0.16, 0.08); Var = 3/2 · 0.0384 = 0.0576
    assert got.per_slate["value"].to_list() == pytest.approx([1.2, 0.0, 1.2], rel=1e-12)
    row = got.summary.row(0, named=True)
    assert row["estimate"] == pytest.approx(0.8, rel=1e-12)
    assert row["std_error"] == pytest.approx(0.24, rel=1e-12)
    # sips on the same log: values 2, 0, 2, sd 2/√3·... : (2, 0, 2) mean 4/3, sd √(4/3), se √(4/3)/√3 = 2/3
    sips = rw.slate_estimate(log, estimator="sips", impression="slate", engine=engine).summary.row(0, named=True)
    assert (sips["estimate"], sips["std_error"]) == pytest.approx((4 / 3, 2 / 3), rel=1e-12)
    # one slate: no spread to estimate, the standard error and the interval are NULL
    one = rw.slate_estimate(log.head(1), estimator="sips", impression="slate", engine=engine).summary.row(0, named=True)
    assert (one["estimate"], one["std_error"], one["ci_low"], one["ci_high"], one["slates"]) == (2.0, None, None, None, 1)
    one = rw.slate_estimate(log.head(1), estimator="snsips", impression="slate", engine=engine).summary.row(0, named=True)
    assert (one["estimate"], one["std_error"]) == (1.0, None)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_position_no_weight_reaches_counts_zero_and_paired_values(engine: str) -> None:
    # the run's b never sits where it was shown at rank 2: sniips's rank-2 mean weight is 0 (obp: NaN)
    log = HAND.filter(pl.col("slate") != 1)
    got = rw.slate_estimate(log, RUN, estimator="sniips", impression="slate", engine=engine)
    assert got.per_slate.rows() == [(2, 0.0), (3, 2.0)]  # rank 1 weights (0, 2), mean 1: 1·2/1 at slate 3
    # two policies on one log pair up slate by slate
    other = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["b", "a", "c"], "score": [3.0, 2.0, 1.0]})
    a = rw.slate_estimate(HAND, RUN, impression="slate", engine=engine).per_slate
    b = rw.slate_estimate(HAND, other, impression="slate", engine=engine).per_slate
    paired = a.join(b, on="slate", suffix="_b").select("slate", diff=pl.col("value") - pl.col("value_b"))
    # other puts b@1, a@2: slate 2 (b, a) clicked a@2 with π_b 0.5 → 2; slates 1, 3: nothing
    assert paired.rows() == [(1, 4.0), (2, -2.0), (3, 2.0)]


@pytest.mark.parametrize("engine", ENGINES)
def test_bad_input_is_named(engine: str) -> None:
    def run(log: pl.DataFrame, **kwargs: Any) -> rw.SlateEstimate:
        return rw.slate_estimate(log, impression="slate", engine=engine, **kwargs)

    ev = HAND.with_columns(evaluation_policy_pscore=pl.col("pscore"), evaluation_policy_pscore_item_position=0.5,
                           evaluation_policy_pscore_cascade=pl.col("pscore_cascade") / 2)
    with pytest.raises(rw.InvalidValueError, match=r"'pscore_item_position' must be in \(0, 1\]: slate 2, rank 1 has 0.0"):
        run(ev.with_columns(pscore_item_position=pl.when(pl.col("slate") == 2).then(0.0).otherwise(0.5)))
    with pytest.raises(rw.InvalidValueError, match=r"'pscore_item_position' must be in \(0, 1\]: slate 1, rank 1 has 1.5"):
        run(ev.with_columns(pscore_item_position=pl.lit(1.5)))
    with pytest.raises(rw.InvalidValueError, match=r"'evaluation_policy_pscore_item_position' must be in \[0, 1\]"):
        run(ev.with_columns(evaluation_policy_pscore_item_position=pl.lit(-0.1)))
    with pytest.raises(rw.DuplicateDocumentError, match="impression 1 shows rank 1 twice"):
        run(ev.with_columns(rank=pl.when(pl.col("slate") == 1).then(1).otherwise(pl.col("rank"))))
    with pytest.raises(rw.InvalidValueError, match=r"one per slate: the click log's column 'pscore' has \[0.25, 0.5\] in slate 1"):
        run(ev.with_columns(pscore=pl.when(pl.col("doc_id") == "b").then(0.25).otherwise(pl.col("pscore"))),
            estimator="sips")
    with pytest.raises(rw.InvalidValueError, match="'evaluation_policy_pscore' has"):
        run(ev.with_columns(evaluation_policy_pscore=pl.col("pscore_item_position")), estimator="snsips")
    with pytest.raises(rw.InvalidValueError, match=r"cannot increase down a slate: the click log's column 'pscore_cascade' "
                                                   r"rises to 0\.5 at rank 2 of slate 2"):
        run(ev.with_columns(pscore_cascade=pl.when(pl.col("slate") == 2).then(pl.col("rank") / 4).otherwise(0.25)),
            estimator="rips")
    with pytest.raises(rw.InvalidValueError, match="'evaluation_policy_pscore_cascade' rises"):
        run(ev.with_columns(evaluation_policy_pscore_cascade=pl.col("rank") / 4), estimator="snrips")
    with pytest.raises(rw.MissingColumnError, match="propensity"):
        run(ev, pscore="propensity")
    with pytest.raises(rw.MissingColumnError, match=r"no column 'evaluation_policy_pscore_item_position' of the evaluation "
                                                    r"policy's probabilities \(pass evaluation_pscore='COLUMN', or give a run"):
        run(HAND)
    with pytest.raises(rw.ColumnTypeError, match="'pscore_item_position' must be numbers"):
        run(ev.with_columns(pl.col("pscore_item_position").cast(pl.String)))
    with pytest.raises(rw.InvalidValueError, match="NULL"):
        run(ev.with_columns(pscore_item_position=pl.when(pl.col("slate") == 2).then(None).otherwise(0.5)))
    with pytest.raises(rw.InvalidParameterError, match="estimator must be one of 'sips', 'iips'"):
        run(ev, estimator="dr")
    with pytest.raises(rw.InvalidParameterError, match="not both"):
        rw.slate_estimate(ev, RUN, impression="slate", evaluation_pscore="evaluation_policy_pscore", engine=engine)
    with pytest.raises(rw.InvalidParameterError, match="ties='expected' chooses none"):
        rw.slate_estimate(HAND, RUN, impression="slate", ties="expected", engine=engine)
    with pytest.raises(rw.InvalidParameterError, match="alpha"):
        run(ev, alpha=1.5)
    with pytest.raises(rw.ColumnTypeError, match="doc ids have different types"):
        rw.slate_estimate(HAND, RUN.with_columns(doc_id=pl.Series([1, 2, 3])), impression="slate", engine=engine)


def test_cli_slate(tmp_path: Path) -> None:
    case = OBP["cases"][1]
    log, run = pl.DataFrame(case["log"]), pl.DataFrame(case["run"])
    log.write_parquet(tmp_path / "log.parquet")
    run.write_parquet(tmp_path / "run.parquet")
    out = rankwise_cli("slate", str(tmp_path / "log.parquet"), "--estimator", "rips", "--impression-col", "slate_id",
                       "--resamples", "1000", "--seed", "1", "--format", "csv", "-o", str(tmp_path / "rips.csv"))
    assert out.returncode == 0, out.stderr
    assert out.stderr.strip() == f"wrote {tmp_path / 'rips.csv'} ({len(set(case['log']['slate_id']))} slates)"
    got = pl.read_csv(tmp_path / "rips.csv").row(0, named=True)
    want = case["expected"]["rips/stochastic"]
    assert got["estimate"] == pytest.approx(want["value"], rel=1e-12)
    assert got["boot_ci_low"] == pytest.approx(want["interval"]["95.0% CI (lower)"], rel=1e-12)
    table = rankwise_cli("slate", str(tmp_path / "log.parquet"), str(tmp_path / "run.parquet"), "--impression-col",
                         "slate_id", "--engine", "duckdb", "--per-slate", "--format", "csv")
    assert table.returncode == 0, table.stderr
    per = pl.read_csv(table.stdout.encode())
    want_per = _estimate(case, "iips", "run", "polars").per_slate
    assert per["value"].to_list() == pytest.approx(want_per["value"].to_list(), rel=1e-12)
    shown = rankwise_cli("slate", str(tmp_path / "log.parquet"), "--impression-col", "slate_id", "--estimator", "sips")
    assert shown.returncode == 0 and "sips" in shown.stdout and f"{case['expected']['sips/stochastic']['value']:.4f}"[:5] in shown.stdout
    # the table fits a terminal: the estimate ± its interval's half width, the bootstrap's bounds
    shown = rankwise_cli("slate", str(tmp_path / "log.parquet"), "--impression-col", "slate_id", "--estimator", "rips",
                         "--resamples", "1000", "--seed", "1", "--alpha", "0.1")
    assert shown.returncode == 0, shown.stderr
    assert max(map(len, shown.stdout.splitlines())) <= 100 and "estimate (90%)" in shown.stdout
    row = rw.slate_estimate(log, estimator="rips", impression="slate_id", resamples=1000, seed=1, alpha=0.1).summary.row(
        0, named=True)
    assert f"{row['estimate']:.4f} ± {(row['ci_high'] - row['ci_low']) / 2:.4f}" in shown.stdout
    assert f"[{row['boot_ci_low']:.4f}, {row['boot_ci_high']:.4f}]" in shown.stdout
    bad = log.with_columns(pscore=pl.col("pscore") * 0.0)
    bad.write_parquet(tmp_path / "bad.parquet")
    for argv, message in (
        (("slate", str(tmp_path / "bad.parquet"), "--impression-col", "slate_id", "--estimator", "sips"), "(0, 1]"),
        (("slate", str(tmp_path / "log.parquet"), "--impression-col", "slate_id", "--pscore-col", "p"), "'p'"),
        (("slate", str(tmp_path / "log.parquet"), "--impression-col", "slate_id", "--evaluation-pscore-col", "e"),
         "no column 'e' of the evaluation policy's probabilities (pass --evaluation-pscore-col COLUMN, or give a run"),
        (("slate", str(tmp_path / "log.parquet"), str(tmp_path / "run.parquet"), "--impression-col", "slate_id",
          "--evaluation-pscore-col", "evaluation_policy_pscore"), "not both"),
    ):
        failed = rankwise_cli(*argv)
        assert failed.returncode == 2 and failed.stderr.count("\n") == 1 and message in failed.stderr, failed.stderr


def test_simulation_intervals_cover_the_truth() -> None:
    # a uniformly random order of four documents, three shown; clicks by the position-based model
    # P(click) = rel / rank; the run puts them in relevance order, so its expected clicks per slate
    # are Σ_{l ≤ 3} rel_l / l = 1.3. Over 80 seeded logs each estimator's mean lands on it, its
    # standard error (the delta method's for the self-normalised ones) is the spread of its
    # estimates, and its normal interval covers the truth about 95% of the time.
    np = pytest.importorskip("numpy")
    rel, docs = np.array([0.9, 0.6, 0.3, 0.1]), np.array(["a", "b", "c", "d"])
    run = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": list(docs), "score": [4.0, 3.0, 2.0, 1.0]})
    truth, slates, seeds = 0.9 + 0.6 / 2 + 0.3 / 3, 300, 80
    got: dict[str, list[tuple[float, float, bool]]] = {e: [] for e in ("sips", "iips", "rips", "snsips", "sniips", "snrips")}
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        shown = np.argsort(rng.random((slates, 4)), axis=1)[:, :3].ravel()
        ranks = np.tile([1, 2, 3], slates)
        log = pl.DataFrame({
            "slate": np.repeat(np.arange(slates), 3), "query_id": "q", "doc_id": docs[shown], "rank": ranks,
            "click": (rng.random(slates * 3) < rel[shown] / ranks).astype(int),
            "pscore": 1 / 24, "pscore_item_position": 1 / 4, "pscore_cascade": np.tile([1 / 4, 1 / 12, 1 / 24], slates),
        })
        for estimator, rows in got.items():
            row = rw.slate_estimate(log, run, estimator=estimator, impression="slate").summary.row(0, named=True)
            rows.append((row["estimate"], row["std_error"], row["ci_low"] <= truth <= row["ci_high"]))
    for estimator, rows in got.items():
        estimates, errors, covered = (np.array(column, dtype=float) for column in zip(*rows, strict=True))
        spread = estimates.std(ddof=1)
        assert abs(estimates.mean() - truth) < 3 * spread / math.sqrt(seeds), estimator
        assert abs(errors.mean() / spread - 1) < 0.25, (estimator, errors.mean(), spread)
        assert covered.mean() >= 0.85, (estimator, covered.mean())
