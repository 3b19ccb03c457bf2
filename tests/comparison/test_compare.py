"""rankwise.compare: p-values equal scipy's on the same vectors; the randomization test agrees
with scipy.stats.permutation_test within Monte-Carlo error and is reproducible; Holm checked
on a hand-made table; queries missing from a run are counted as 0 and reported."""

from __future__ import annotations

import math
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats

import rankwise as rw
from rankwise.comparison.statistics import adjust, randomization_pvalue

ROOT = Path(__file__).resolve().parents[2]


def runs_and_qrels(seed: int = 3, queries: int = 40) -> tuple[dict[str, pl.DataFrame], pl.DataFrame]:
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(15)]
    qrels_rows, runs = [], {}
    for q in range(queries):
        for d in rng.choice(docs, 8, replace=False):
            qrels_rows.append((f"q{q:02d}", str(d), int(rng.integers(0, 3))))
    for name, shift in (("base", 0.0), ("better", 0.6), ("other", 0.2)):
        rows = []
        for q in range(queries):
            if name == "other" and q == 0:
                continue  # "other" misses query q00
            judged = {d: r for qq, d, r in qrels_rows if qq == f"q{q:02d}"}
            for d in docs:
                rows.append((f"q{q:02d}", d, float(rng.random() + shift * judged.get(d, 0))))
        runs[name] = pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row")
    qrels = pl.DataFrame(qrels_rows, schema=["query_id", "doc_id", "relevance"], orient="row")
    return runs, qrels


def test_pvalues_equal_scipy() -> None:
    runs, qrels = runs_and_qrels()
    out = rw.compare(qrels, runs, ["nDCG@5", "AP"], tests=["t", "wilcoxon", "tukey"], correction="none")
    for metric in ("nDCG@5", "AP"):
        values = {
            name: rw.evaluate(qrels, run, [metric], missing="zero").sort("query_id")[metric].round(12).to_numpy()
            for name, run in runs.items()
        }
        # "other" misses q00: it counts as 0 there
        assert values["other"].size == values["base"].size
        for name in ("better", "other"):
            row = out.filter(run=name, metric=metric).row(0, named=True)
            assert row["p_t"] == pytest.approx(stats.ttest_rel(values[name], values["base"]).pvalue, abs=1e-12)
            assert row["p_wilcoxon"] == pytest.approx(stats.wilcoxon(values[name], values["base"]).pvalue, abs=1e-12)
            tukey = stats.tukey_hsd(values["base"], values["better"], values["other"]).pvalue
            assert row["p_tukey"] == pytest.approx(tukey[list(runs).index(name)][0], abs=1e-12)
            d = values[name] - values["base"]
            assert row["diff"] == pytest.approx(d.mean(), abs=1e-12)
            assert (row["wins"], row["ties"], row["losses"]) == ((d > 0).sum(), (d == 0).sum(), (d < 0).sum())
            assert row["ci_low"] <= row["diff"] <= row["ci_high"]
    assert out.filter(run="other")["filled"].to_list() == [1, 1]
    assert out.filter(run="base").is_empty() and set(out["baseline"]) == {"base"}  # the baseline has no rows of its own


def test_randomization_agrees_with_scipy_permutation_test() -> None:
    rng = np.random.default_rng(7)
    d = rng.normal(0.05, 0.2, 30)
    ours = randomization_pvalue(d, 20_000, seed=1)
    ref = stats.permutation_test(
        (d,), np.mean, permutation_type="samples", n_resamples=20_000, random_state=2,
        alternative="two-sided",
    ).pvalue
    # both are Monte-Carlo estimates of the same p: agree within a few standard errors
    se = np.sqrt(ref * (1 - ref) / 20_000)
    assert abs(ours - ref) < 5 * se + 2e-3
    assert randomization_pvalue(d, 5_000, seed=11) == randomization_pvalue(d, 5_000, seed=11)


def test_randomization_handles_many_queries_in_bounded_memory() -> None:
    import resource

    d = np.random.default_rng(0).normal(0.0, 1.0, 100_000)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    p = randomization_pvalue(d, 400, seed=0)  # 100,000 queries, blocks of 40 resamples
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert 0.0 < p <= 1.0
    assert grown_mb < 300  # one block: 40 x 100,000 int8 signs and their float64 product


def test_holm_on_a_hand_made_table() -> None:
    # sorted: 0.005 (x4), 0.01 (x3), 0.03 (x2), 0.04 (x1); running max
    assert adjust([0.01, 0.04, 0.03, 0.005], "holm") == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert adjust([0.01, 0.04, 0.03, 0.005], "bonferroni") == pytest.approx([0.04, 0.16, 0.12, 0.02])
    assert adjust([0.5, 0.9], "holm") == [1.0, 1.0]


def test_correction_and_significance_columns() -> None:
    runs, qrels = runs_and_qrels()
    out = rw.compare(qrels, runs, ["AP", "RR"], tests=["t"], baseline="base")
    raw = [p for p in out["p_t"].to_list() if p is not None]
    adj = [p for p in out["p_t_adj"].to_list() if p is not None]
    assert adj == pytest.approx(adjust(raw, "holm"))
    assert out.filter(pl.col("p_t_adj").is_not_null()).select((pl.col("p_t_adj") < 0.05) == pl.col("sig_t")).to_series().all()


def test_segments() -> None:
    runs, qrels = runs_and_qrels()
    with_market = {
        n: r.with_columns(market=pl.when(pl.col("query_id") < "q20").then(pl.lit("de")).otherwise(pl.lit("fr")))
        for n, r in runs.items()
    }
    out = rw.compare(qrels, with_market, ["AP"], by="market", tests=["t"])
    assert out.columns[:4] == ["market", "run", "baseline", "metric"]
    assert out.filter(market="de", run="better")["queries"][0] == 20


def test_bad_arguments() -> None:
    runs, qrels = runs_and_qrels()
    with pytest.raises(rw.InvalidParameterError, match="baseline 'nope' is not one of the runs"):
        rw.compare(qrels, runs, ["AP"], baseline="nope")
    with pytest.raises(rw.InvalidParameterError, match=r"test must be one of \['t', 'wilcoxon', 'randomization', 'tukey', 'randomized_tukey'\]"):
        rw.compare(qrels, runs, ["AP"], tests=["z"])  # type: ignore[list-item]
    with pytest.raises(rw.InvalidParameterError, match="'relstring' is text, not a number"):
        rw.compare(qrels, runs, ["AP", "relstring"])


def test_undefined_values_leave_their_queries_out_of_that_metric() -> None:
    """Accuracy is NULL (undefined) for a query without a non-relevant document ranked: that
    query is left out of Accuracy's comparison (not counted as 0), and kept for AP."""
    qrels = pl.DataFrame({"query_id": ["a", "a", "b"], "doc_id": ["x", "y", "x"], "relevance": [1, 0, 1]})
    base = pl.DataFrame({"query_id": ["a", "a", "b"], "doc_id": ["y", "x", "x"], "score": [2.0, 1.0, 1.0]})
    better = pl.DataFrame({"query_id": ["a", "a", "b"], "doc_id": ["x", "y", "x"], "score": [2.0, 1.0, 1.0]})
    table = rw.compare(qrels, {"base": base, "better": better}, ["Accuracy", "AP"], baseline="base")
    acc = table.filter(pl.col("metric") == "Accuracy", pl.col("run") == "better").row(0, named=True)
    assert (acc["mean"], acc["baseline_mean"], acc["queries"], acc["wins"]) == (1.0, 0.0, 1, 1)
    ap = table.filter(pl.col("metric") == "AP", pl.col("run") == "better").row(0, named=True)
    assert ap["queries"] == 2


def test_each_pair_uses_its_own_defined_queries_and_an_empty_comparison_has_no_p_value() -> None:
    """A third run undefined on a query does not shrink the baseline-vs-candidate pairs; a
    metric defined nowhere has no p-value and leaves the correction of the others alone."""
    runs, qrels = runs_and_qrels(seed=5, queries=12)
    # "other" ranks nothing non-relevant for q01: Accuracy undefined there, for it only
    judged = qrels.filter(pl.col("query_id") == "q01", pl.col("relevance") >= 1)
    others = runs["other"].filter(pl.col("query_id") != "q01")
    runs["other"] = pl.concat([others, judged.select("query_id", "doc_id", pl.lit(1.0).alias("score"))])
    two = rw.compare(qrels, {"base": runs["base"], "better": runs["better"]}, ["Accuracy"], baseline="base")
    three = rw.compare(qrels, runs, ["Accuracy"], baseline="base")
    row = lambda t: t.filter(pl.col("run") == "better").row(0, named=True)  # noqa: E731
    assert row(two)["queries"] == row(three)["queries"] == 12
    assert row(two)["p_t"] == row(three)["p_t"]
    alone = rw.compare(qrels, runs, ["AP"], baseline="base")
    more = rw.compare(qrels, runs, ["AP", "Accuracy(rel=5)"], baseline="base")
    undefined = more.filter(pl.col("metric") == "Accuracy(rel=5)", pl.col("run") == "better").row(0, named=True)
    assert undefined["queries"] == 0 and undefined["p_t"] is None and undefined["mean"] is None
    assert alone.filter(pl.col("run") == "better")["p_t_adj"].to_list() == more.filter(
        pl.col("run") == "better", pl.col("metric") == "AP")["p_t_adj"].to_list()


# -- the statistics of issue 19, each against an implementation we did not write ---------------


def test_corrections_equal_statsmodels_multipletests() -> None:
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(11)
    for size in (1, 2, 7, 30):
        p = rng.uniform(0, 0.3, size)
        for method in ("holm", "bonferroni", "fdr_bh", "fdr_by"):
            assert adjust(list(p), method) == pytest.approx(multipletests(p, method=method)[1], abs=1e-12), method
    with pytest.raises(rw.InvalidParameterError, match=r"correction must be one of \['holm', 'bonferroni', 'fdr_bh', 'fdr_by', 'none'\]"):
        adjust([0.1], "sidak")  # type: ignore[arg-type]


def test_the_correction_is_taken_over_the_family_tested() -> None:
    """The table's adjusted p-values are statsmodels' over all its rows (pairs x metrics)."""
    from statsmodels.stats.multitest import multipletests

    runs, qrels = runs_and_qrels()
    for pairs, rows in (("baseline", 4), ("all", 6)):
        out = rw.compare(qrels, runs, ["AP", "RR"], pairs=pairs, correction="fdr_by")  # type: ignore[arg-type]
        assert out.height == rows
        assert out["p_t_adj"].to_list() == pytest.approx(multipletests(out["p_t"].to_numpy(), method="fdr_by")[1], abs=1e-12)


def test_all_pairs_are_every_later_run_against_every_earlier() -> None:
    runs, qrels = runs_and_qrels()
    out = rw.compare(qrels, runs, ["AP"], pairs="all", tests=["t", "tukey"])
    assert out.select("run", "baseline").rows() == [("better", "base"), ("other", "base"), ("other", "better")]
    per = {n: rw.evaluate(qrels, r, ["AP"], missing="zero").sort("query_id") for n, r in runs.items()}
    keys = pl.concat([df.select("query_id") for df in per.values()]).unique().sort("query_id")
    vals = {n: keys.join(df, on="query_id", how="left").sort("query_id")["AP"].fill_null(0.0).round(12).to_numpy() for n, df in per.items()}
    row = out.filter(run="other", baseline="better").row(0, named=True)
    assert row["p_t"] == pytest.approx(stats.ttest_rel(vals["other"], vals["better"]).pvalue, abs=1e-12)
    tukey = stats.tukey_hsd(vals["base"], vals["better"], vals["other"]).pvalue
    assert row["p_tukey"] == pytest.approx(tukey[2][1], abs=1e-12)
    assert row["mean"] == pytest.approx(vals["other"].mean()) and row["baseline_mean"] == pytest.approx(vals["better"].mean())


def test_intervals_and_effect_sizes_equal_scipy_and_pingouin() -> None:
    import pingouin

    runs, qrels = runs_and_qrels(seed=8)
    out = rw.compare(qrels, runs, ["nDCG@10"], resamples=2_000, seed=4)
    row = out.filter(run="better").row(0, named=True)
    per = {n: rw.evaluate(qrels, r, ["nDCG@10"], missing="zero").sort("query_id")["nDCG@10"].round(12).to_numpy() for n, r in runs.items() if n != "other"}
    cand, base = per["better"], per["base"]
    d = cand - base
    ci = stats.ttest_rel(cand, base).confidence_interval()
    assert (row["ci_t_low"], row["ci_t_high"]) == pytest.approx((ci.low, ci.high), abs=1e-12)
    boot = stats.bootstrap((d,), np.mean, n_resamples=2_000, method="BCa", rng=np.random.default_rng(4)).confidence_interval
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((boot.low, boot.high), abs=1e-12)
    assert row["d_z"] == pytest.approx(pingouin.compute_effsize(cand, base, paired=True, eftype="cohen_dz"), abs=1e-12)
    assert row["hedges_g"] == pytest.approx(pingouin.compute_effsize(d, 0.0, eftype="hedges"), abs=1e-12)
    # Glass's delta (pingouin 0.7 no longer offers it): the mean difference over the
    # baseline's standard deviation, as Glass (1976) defines it
    assert row["glass_delta"] == pytest.approx(d.mean() / base.std(ddof=1), abs=1e-12)


def test_effect_sizes_and_intervals_at_the_edges() -> None:
    from rankwise.comparison.statistics import bootstrap_bca, effect_sizes, t_interval

    assert effect_sizes(np.array([0.5]), np.array([0.2])) == {"d_z": None, "hedges_g": None, "glass_delta": None}
    same = effect_sizes(np.array([0.6, 0.7, 0.8]), np.array([0.5, 0.6, 0.7]))  # d constant: no spread
    assert same["d_z"] is None and same["glass_delta"] == pytest.approx(1.0)
    assert bootstrap_bca(np.array([0.1, 0.1, 0.1]), 100, 0) == pytest.approx((0.1, 0.1))
    assert bootstrap_bca(np.array([0.1]), 100, 0) is None and t_interval(np.array([0.1])) is None
    # hand-checked: d = (1, 2, 3): mean 2, s = 1, t_{2, .975} = 4.302653: 2 ± 4.302653/√3
    lo, hi = t_interval(np.array([1.0, 2.0, 3.0])) or (0.0, 0.0)
    assert (lo, hi) == pytest.approx((2 - 4.302652729911275 / 3**0.5, 2 + 4.302652729911275 / 3**0.5))
    hand = effect_sizes(np.array([2.0, 4.0, 6.0]), np.array([1.0, 2.0, 3.0]))
    assert hand == pytest.approx({"d_z": 2.0, "hedges_g": 2.0 * (1 - 3 / 7), "glass_delta": 2.0})


def test_a_single_run_is_an_error_and_the_baseline_has_no_row_of_its_own() -> None:
    runs, qrels = runs_and_qrels()
    with pytest.raises(rw.InvalidParameterError, match="compare needs at least two runs, got one \\('base'\\)"):
        rw.compare(qrels, {"base": runs["base"]}, ["AP"])
    with pytest.raises(rw.InvalidParameterError, match=r"pairs must be one of \['baseline', 'all'\]"):
        rw.compare(qrels, runs, ["AP"], pairs="every")  # type: ignore[arg-type]
    out = rw.compare(qrels, runs, ["AP"], baseline="better")
    assert out.select("run", "baseline").rows() == [("base", "better"), ("other", "better")]
    assert out.drop("queries_needed").select(pl.all().is_null().all()).row(0) == tuple(False for _ in out.columns[:-1])


def test_wilcoxon_at_large_n_warns_and_says_why() -> None:
    rng = np.random.default_rng(2)
    n = 1_000
    qrels = pl.DataFrame({"query_id": np.arange(n), "doc_id": 1, "relevance": 1})
    runs = {
        name: pl.DataFrame({"query_id": np.repeat(np.arange(n), 2), "doc_id": np.tile([1, 2], n), "score": rng.random(2 * n)})
        for name in ("a", "b")
    }
    with pytest.warns(rw.RankwiseWarning, match="Wilcoxon signed-rank test on 1000 queries rejects far more often"):
        rw.compare(qrels, runs, ["RR"], tests=["wilcoxon"], resamples=200)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", rw.RankwiseWarning)
        rw.compare(qrels, runs, ["RR"], tests=["t"], resamples=200)


def test_risk_against_the_baseline() -> None:
    """URisk is the mean of ndeval/gdeval's per-query risk, TRisk its one-sample t statistic
    (scipy), hurt the share of losses beyond the threshold; GeoRisk hand-checked."""
    from rankwise.comparison.statistics import georisk

    runs, qrels = runs_and_qrels(seed=9)
    out = rw.compare(qrels, runs, ["AP"], risk_alpha=5.0, hurt=0.05)
    per = {n: rw.evaluate(qrels, r, ["AP"], missing="zero").sort("query_id") for n, r in runs.items()}
    keys = pl.concat([df.select("query_id") for df in per.values()]).unique().sort("query_id")
    vals = {n: keys.join(df, on="query_id", how="left").sort("query_id")["AP"].fill_null(0.0).round(12).to_numpy() for n, df in per.items()}
    for name in ("better", "other"):
        row = out.filter(run=name).row(0, named=True)
        r, b = vals[name], vals["base"]
        gdeval = np.array([ri - bi if ri >= bi else (1 + 5.0) * (ri - bi) for ri, bi in zip(r, b, strict=True)])
        assert row["urisk"] == pytest.approx(gdeval.mean(), abs=1e-12)
        assert row["trisk"] == pytest.approx(stats.ttest_1samp(gdeval, 0.0).statistic, abs=1e-9)
        assert row["hurt"] == pytest.approx(np.mean(r - b < -0.05), abs=1e-12)
    # GeoRisk by hand: x = [[.2, .4, .6], [.3, .3, .3]]: S = (1.2, .9), T = (.5, .7, .9), N = 2.1,
    # e_1 = 1.2 T / N: z_1 = (-0.160357, 0, 0.119523); α = 1 doubles the negative:
    # Z_1/c = -0.067064, Φ = 0.473266, √(0.4 · 0.473266) = 0.435093; e_2 = 0.9 T / N:
    # z_2 = (0.185164, 0, -0.138013), Z_2/c = -0.030287, Φ = 0.487919, √(0.3 · 0.487919) = 0.382591;
    # with α = 0: Z_1/c = -0.013611, Φ = 0.494570, √(0.4 · 0.494570) = 0.444779
    geo = georisk([[0.2, 0.4, 0.6], [0.3, 0.3, 0.3]], 1.0)
    assert geo == pytest.approx([0.435093, 0.382591], abs=1e-6)
    assert georisk([[0.2, 0.4, 0.6], [0.3, 0.3, 0.3]], 0.0)[0] == pytest.approx(0.444779, abs=1e-6)
    assert georisk([[0.0, 0.0], [0.0, 0.0]], 1.0) == [0.0, 0.0]
    row = out.filter(run="better").row(0, named=True)
    matrix = [vals[n] for n in ("base", "better", "other")]
    assert (row["georisk"], row["baseline_georisk"]) == pytest.approx(tuple(georisk(matrix, 5.0)[1::-1]), abs=1e-12)


def test_queries_needed_equal_statsmodels_power_analysis() -> None:
    import math

    from statsmodels.stats.power import TTestPower

    runs, qrels = runs_and_qrels(seed=2)
    out = rw.compare(qrels, runs, ["nDCG@10"], detect=0.02, power=0.9, alpha=0.01)
    assert rw.compare(qrels, runs, ["nDCG@10"])["queries_needed"].is_null().all()
    per = {n: rw.evaluate(qrels, r, ["nDCG@10"], missing="zero").sort("query_id")["nDCG@10"].round(12).to_numpy() for n, r in runs.items() if n != "other"}
    sd = (per["better"] - per["base"]).std(ddof=1)
    expected = math.ceil(TTestPower().solve_power(0.02 / sd, alpha=0.01, power=0.9, alternative="two-sided"))
    assert out.filter(run="better")["queries_needed"][0] == expected
    for bad, message in (({"detect": 0.0}, "detect must be a finite difference above 0"), ({"detect": float("inf")}, "detect must be a finite"),
                         ({"power": 1.0}, "power must be between 0 and 1"),
                         ({"risk_alpha": -1.0}, "risk_alpha must be a finite number of at least 0"),
                         ({"risk_alpha": float("inf")}, "risk_alpha must be a finite number"), ({"hurt": -0.1}, "hurt must be a finite number of at least 0"),
                         ({"resamples": 0}, "resamples must be a whole number of at least 1"), ({"resamples": 2.5}, "resamples must be a whole number"),
                         ({"seed": -1}, "seed must be a whole number of at least 0"), ({"tests": "wilcoxon"}, r"tests must be a list of test names, e.g. \['wilcoxon'\]"),
                         ({"tests": ["t", "t"]}, "tests lists a test twice")):
        with pytest.raises(rw.InvalidParameterError, match=message):
            rw.compare(qrels, runs, ["AP"], **bad)  # type: ignore[arg-type]


def _matrix(runs: dict[str, pl.DataFrame], qrels: pl.DataFrame, metric: str) -> dict[str, np.ndarray]:
    per = {n: rw.evaluate(qrels, r, [metric], missing="zero").sort("query_id") for n, r in runs.items()}
    keys = pl.concat([df.select("query_id") for df in per.values()]).unique().sort("query_id")
    return {n: keys.join(df, on="query_id", how="left").sort("query_id")[metric].fill_null(0.0).round(12).to_numpy() for n, df in per.items()}


def test_anova_equals_statsmodels_and_es_anova_uses_its_residual() -> None:
    import pandas as pd
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    runs, qrels = runs_and_qrels(seed=4)
    vals = _matrix(runs, qrels, "AP")
    frame = pd.DataFrame([(n, q, v) for n, a in vals.items() for q, v in enumerate(a)], columns=["system", "topic", "x"])
    ref = anova_lm(smf.ols("x ~ C(system) + C(topic)", frame).fit())
    ours = rw.anova(qrels, runs, ["AP"])
    assert ours["source"].to_list() == ["system", "topic", "residual"]
    for col, refcol in (("df", "df"), ("sum_sq", "sum_sq"), ("mean_sq", "mean_sq"), ("F", "F"), ("p", "PR(>F)")):
        assert ours[col].to_list()[:2] == pytest.approx(ref[refcol].to_list()[:2], abs=1e-10), col
    assert ours["sum_sq"][2] == pytest.approx(ref["sum_sq"].iloc[2], abs=1e-10)
    eta = ours.filter(source="system").row(0, named=True)
    assert eta["eta_sq"] == pytest.approx(ref["sum_sq"].iloc[0] / ref["sum_sq"].sum(), abs=1e-12)
    row = rw.compare(qrels, runs, ["AP"]).filter(run="better").row(0, named=True)
    assert row["es_anova"] == pytest.approx((vals["better"].mean() - vals["base"].mean()) / ref["mean_sq"].iloc[2] ** 0.5, abs=1e-10)


def test_randomized_tukey_agrees_with_the_exact_permutation_distribution() -> None:
    """On 3 systems x 5 topics every one of the 6^5 permutations can be enumerated: the seeded
    randomised Tukey HSD agrees with the exact p-values within Monte-Carlo error."""
    import itertools

    from rankwise.comparison.statistics import randomized_tukey

    x = np.random.default_rng(1).random((3, 5))
    means = x.mean(axis=1)
    observed = np.abs(means[:, None] - means[None, :])
    hits, total = np.zeros((3, 3)), 0
    for combo in itertools.product(list(itertools.permutations(range(3))), repeat=5):
        m = np.array([x[list(c), j] for j, c in enumerate(combo)]).T.mean(axis=1)
        hits += (m.max() - m.min()) >= observed - 1e-12
        total += 1
    exact = hits / total
    ours = randomized_tukey(x, 20_000, seed=3)
    se = np.sqrt(exact * (1 - exact) / 20_000)
    assert np.all(np.abs(ours - exact) <= 5 * se + 1e-4)
    assert np.array_equal(ours, randomized_tukey(x, 20_000, seed=3))
    runs, qrels = runs_and_qrels(seed=6)
    table = rw.compare(qrels, runs, ["AP"], tests=["randomized_tukey", "tukey"], resamples=5_000, pairs="all")
    assert table["p_randomized_tukey"].is_not_null().all()
    # Tukey's p-values are adjusted over the pairs already: no second correction
    assert table["p_randomized_tukey_adj"].to_list() == table["p_randomized_tukey"].to_list()
    assert table["p_tukey_adj"].to_list() == table["p_tukey"].to_list()


def _sql_and_python(runs: dict[str, pl.DataFrame], qrels: pl.DataFrame, metrics: list[str], rows: list[dict[str, object]]) -> None:
    """The rows of compare_sql equal compare's columns, and t is scipy's paired t statistic."""
    table = rw.compare(qrels, runs, metrics, risk_alpha=2.0, hurt=0.05).sort("run", "metric")
    rows = sorted(rows, key=lambda r: (str(r["run"]), str(r["metric"])))
    vals = {m: _matrix(runs, qrels, m) for m in metrics}
    assert [(r["run"], r["metric"]) for r in rows] == table.select("run", "metric").rows()
    for row, expected in zip(rows, table.iter_rows(named=True), strict=True):
        for col in ("queries", "wins", "ties", "losses"):
            assert row[col] == expected[col], col
        for col in ("mean", "baseline_mean", "diff", "urisk", "trisk", "hurt"):
            assert row[col] == pytest.approx(expected[col], abs=1e-10) if expected[col] is not None else row[col] is None, col
        v = vals[str(row["metric"])]
        if np.ptp(v[str(row["run"])] - v["base"]) == 0:  # no spread: no t statistic, no division by zero
            assert row["t"] is None and row["trisk"] is None and expected["trisk"] is None
        else:
            assert row["t"] == pytest.approx(stats.ttest_rel(v[str(row["run"])], v["base"]).statistic, abs=1e-9)
        assert row["df"] == expected["queries"] - 1


def test_compare_sql_on_duckdb_equals_compare() -> None:
    import duckdb

    runs, qrels = runs_and_qrels(seed=12)
    runs["same"] = runs["base"]  # no spread in the differences: t and TRisk are NULL
    con = duckdb.connect()
    con.register("qrels", qrels.rename({"query_id": "qid"}).to_arrow())
    for name, frame in runs.items():
        con.register(f"run_{name}", frame.rename({"query_id": "qid"}).to_arrow())
    sql = rw.compare_sql(["AP", "nDCG@10"], runs={n: f"run_{n}" for n in runs}, risk_alpha=2.0, hurt=0.05, query_id="qid")
    _sql_and_python(runs, qrels, ["AP", "nDCG@10"], con.sql(sql).pl().to_dicts())
    with pytest.raises(rw.InvalidParameterError, match="compare_sql needs at least two runs"):
        rw.compare_sql(["AP"], runs={"a": "run_a"})


def test_compare_sql_by_segments_and_per_query_on_duckdb() -> None:
    """With by=, compare_sql's rows equal compare's per segment; per_query=True gives the paired
    values compare tests on (differences, and ndeval/gdeval's per-query risk)."""
    import duckdb

    runs, qrels = runs_and_qrels(seed=13)
    market = pl.when(pl.col("query_id") < "q15").then(pl.lit("de")).otherwise(pl.lit("fr"))
    runs = {n: r.with_columns(market=market) for n, r in runs.items()}
    con = duckdb.connect()
    con.register("qrels", qrels.to_arrow())
    for name, frame in runs.items():
        con.register(f"run_{name}", frame.to_arrow())
    tables = {n: f"run_{n}" for n in runs}
    got = con.sql(rw.compare_sql(["AP"], runs=tables, by="market", risk_alpha=2.0)).pl().sort("market", "run")
    expected = rw.compare(qrels, runs, ["AP"], by="market", risk_alpha=2.0).sort("market", "run")
    assert got.columns[:4] == ["market", "run", "baseline", "metric"]
    assert got.select("market", "run", "queries", "wins", "ties", "losses").rows() == expected.select(
        "market", "run", "queries", "wins", "ties", "losses").rows()
    for col in ("mean", "baseline_mean", "diff", "urisk", "trisk"):
        assert got[col].to_list() == pytest.approx(expected[col].to_list(), abs=1e-10), col
    rows = con.sql(rw.compare_sql(["AP"], runs=tables, per_query=True, risk_alpha=2.0)).pl()
    vals = _matrix({n: r.drop("market") for n, r in runs.items()}, qrels, "AP")
    better = rows.filter(run="better").sort("query_id")
    assert better["diff"].to_list() == pytest.approx(list(vals["better"] - vals["base"]), abs=1e-12)
    d = better["diff"].to_numpy()
    assert better["risk"].to_list() == pytest.approx(list(np.where(d >= 0, d, 3.0 * d)), abs=1e-12)
    with pytest.raises(rw.UnsafeIdentifierError):
        rw.compare_sql(["AP"], runs=tables, by='market"; DROP TABLE x; --')


# -- the better direction (issue 32) ---------------------------------------------------------


def _direction_case() -> tuple[pl.DataFrame, dict[str, pl.DataFrame]]:
    """base ranks an unjudged document in each query's top 2, new none: Unjudged@2 falls from
    0.5 to 0 in both queries (two wins), Judged@2 rises from 0.5 to 1 (no verdict)."""
    qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "d"], "relevance": [1, 0, 1, 0]})
    base = pl.DataFrame({"query_id": ["q1"] * 3 + ["q2"] * 2, "doc_id": ["x", "a", "b", "c", "y"], "score": [3.0, 2.0, 1.0, 2.0, 1.0]})
    new = pl.DataFrame({"query_id": ["q1"] * 3 + ["q2"] * 2, "doc_id": ["a", "b", "x", "c", "d"], "score": [3.0, 2.0, 1.0, 2.0, 1.0]})
    return qrels, {"base": base, "new": new}


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_a_decrease_of_a_lower_is_better_metric_is_a_win(engine: str) -> None:
    qrels, runs = _direction_case()
    t = rw.compare(qrels, runs, ["Unjudged@2", "Judged@2"], tests=[], engine=engine, hurt=0.1)  # type: ignore[arg-type]
    unj = t.filter(pl.col("metric") == "Unjudged@2").row(0, named=True)
    assert (unj["mean"], unj["baseline_mean"], unj["diff"]) == (0.0, 0.5, -0.5)
    assert (unj["wins"], unj["ties"], unj["losses"], unj["hurt"]) == (2, 0, 0, 0.0)
    # URisk over the improvements u = +0.5, +0.5; TRisk undefined (no spread)
    assert unj["urisk"] == 0.5 and unj["trisk"] is None
    # GeoRisk on the complement 1 − x (Judged@2's values: new 1, 1; base 0.5, 0.5):
    # S = (2, 1), c = 2, N = 3, T = (1.5, 1.5), e_new = 1, e_base = 0.5 per query,
    # z_new = 0, z_base = 0: GeoRisk = sqrt(S/c · Φ(0)) = sqrt(1 · 0.5), sqrt(0.5 · 0.5)
    assert unj["georisk"] == pytest.approx(math.sqrt(0.5), abs=1e-12)
    assert unj["baseline_georisk"] == pytest.approx(0.5, abs=1e-12)
    judged = t.filter(pl.col("metric") == "Judged@2").row(0, named=True)
    assert judged["diff"] == 0.5
    assert [judged[c] for c in ("wins", "ties", "losses", "hurt", "urisk", "trisk", "georisk")] == [None] * 7


def test_the_summary_and_the_figure_read_the_direction() -> None:
    from rankwise.comparison.summary import summary
    from rankwise.reporting.plots import figures

    qrels, runs = _direction_case()
    from rankwise.comparison.paired import comparison

    result = comparison(qrels, runs, ["Unjudged@2"], tests=["t"])
    assert summary(result).means.filter(pl.col("run") == "new")["Unjudged@2"][0] == 0.0
    (figure,) = [f for f in figures(result) if f.stem.startswith("difference_")]
    assert "(2 wins, 0 ties, 0 losses, lower is better)" in figure.figure.axes[0].get_title()


def test_compare_sql_reads_the_direction_too() -> None:
    import duckdb

    qrels, runs = _direction_case()
    con = duckdb.connect()
    con.register("qrels", qrels.to_arrow())
    for name, frame in runs.items():
        con.register(f"run_{name}", frame.to_arrow())
    sql = rw.compare_sql(["Unjudged@2", "Judged@2"], runs={n: f"run_{n}" for n in runs}, hurt=0.1)
    got = {r["metric"]: r for r in con.sql(sql).pl().to_dicts()}
    assert [got["Unjudged@2"][c] for c in ("diff", "wins", "ties", "losses", "hurt", "urisk")] == [-0.5, 2, 0, 0, 0.0, 0.5]
    assert [got["Judged@2"][c] for c in ("diff", "wins", "ties", "losses", "hurt", "urisk", "trisk")] == [0.5, *[None] * 6]


def test_compare_pairs_the_queries_evaluate_scores() -> None:
    """Issue 32: one mean for one run. A judged query no run has is left out as evaluate leaves
    it out (missing='ignore'), scored 0 with missing='zero'; a query one run lacks is filled
    with 0 there, and a warning names the run."""
    qrels = pl.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["a", "b", "c"], "relevance": [1, 1, 1]})
    a = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "x"], "score": [1.0, 1.0]})
    b = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]})
    with pytest.warns(rw.RankwiseWarning) as said:
        t = rw.compare(qrels, {"a": a, "b": b}, ["RR"], tests=[])
    row = t.row(0, named=True)
    assert rw.evaluate(qrels, a, ["RR"])["RR"].mean() == row["baseline_mean"] == 0.5  # q1 1, q2 0
    assert (row["mean"], row["queries"], row["filled"], row["baseline_filled"]) == (0.5, 2, 1, 0)
    messages = [str(w.message) for w in said]
    assert "run 'b' lacks 1 of the 2 queries compared (those some run has): scored 0 there to pair them" in messages
    assert any("1 judged query is not in any run: left out" in m for m in messages)
    zero = rw.compare(qrels, {"a": a, "b": b}, ["RR"], tests=[], missing="zero").row(0, named=True)
    assert (zero["baseline_mean"], zero["mean"], zero["queries"]) == (pytest.approx(1 / 3), pytest.approx(1 / 3), 3)
    assert rw.evaluate(qrels, a, ["RR"], missing="zero")["RR"].mean() == pytest.approx(1 / 3)
    import duckdb

    con = duckdb.connect()
    for name, frame in (("qrels", qrels), ("run_a", a), ("run_b", b)):
        con.register(name, frame.to_arrow())
    for missing, n in (("ignore", 2), ("zero", 3)):
        sql = rw.compare_sql(["RR"], runs={"a": "run_a", "b": "run_b"}, missing=missing)  # type: ignore[arg-type]
        assert con.sql(sql).pl()["queries"].to_list() == [n], missing


def test_one_mean_for_one_run_in_every_output() -> None:
    """Issue 32: on the sample data (one judged query is in no run) eval, compare, the summary
    table, the report's provenance and its ranking-change table score the same 199 queries,
    and the sample's nDCG@10 is 0.2085 everywhere; a run query without judgments leaves the
    ranking-change table as it leaves the others."""
    from rankwise.comparison.paired import comparison
    from rankwise.comparison.summary import summary
    from rankwise.reporting.details import load, ranking_changes

    qrels_path = ROOT / "examples" / "data" / "qrels.parquet"
    run = pl.read_parquet(ROOT / "examples" / "data" / "run.parquet")
    # a query no judgment names, and a reversed second run
    extra = pl.DataFrame({"query_id": ["unjudged"], "doc_id": ["d"], "score": [1.0]}).cast(run.schema)  # type: ignore[arg-type]
    runs = {"base": pl.concat([run, extra]), "reversed": run.with_columns(score=-pl.col("score"))}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        per_query = rw.evaluate(qrels_path, runs["base"], ["nDCG@10"])
        result = comparison(qrels_path, runs, ["nDCG@10"], tests=[])
    assert per_query.height == result.per_query.keys.height == 199
    mean = float(per_query["nDCG@10"].mean())  # type: ignore[arg-type]
    assert round(mean, 4) == 0.2085
    assert result.table["baseline_mean"][0] == pytest.approx(mean, abs=1e-12)
    assert summary(result).means.filter(pl.col("run") == "base")["nDCG@10"][0] == pytest.approx(mean, abs=1e-12)
    assert ranking_changes(result, load(result.inputs)[1])["queries"].to_list() == [199]  # type: ignore[arg-type]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_an_error_about_one_run_names_it(engine: str) -> None:
    """A run without the cost column (cost=), or with a bad cost: the error names that run;
    an error about the qrels names none."""
    run = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    costed = run.with_columns(cost=pl.lit(1.0))
    with pytest.raises(rw.MissingColumnError) as info:
        rw.compare(qrels, {"costed": costed, "plain": run}, ["U"], cost="cost", engine=engine)
    assert str(info.value).startswith("run 'plain': the run has no column 'cost'.")
    with pytest.raises(rw.InvalidValueError) as bad:
        rw.compare(qrels, {"costed": costed, "negative": run.with_columns(cost=pl.lit(-1.0))}, ["U"],
                   cost="cost", engine=engine)
    assert str(bad.value).startswith("run 'negative': the run's column 'cost' holds 2 ")
    with pytest.raises(rw.MissingColumnError) as judged:
        rw.compare(qrels.rename({"relevance": "grade"}), {"a": run, "b": run}, ["AP"], engine=engine)
    assert str(judged.value).startswith("the qrels has no column 'relevance'")


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_anova_refuses_fewer_than_two_queries(engine: str, tmp_path: Path) -> None:
    """With one query the topic and residual terms have no degrees of freedom: refused (it
    returned an empty table), on both engines and on the command line (exit 2, one line)."""
    qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    runs = {
        "base": pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]}),
        "new": pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]}),
    }
    message = "anova needs at least two queries where every run has a value of AP, found 1"
    with pytest.raises(rw.InvalidParameterError, match=message):
        rw.anova(qrels, runs, ["AP"], engine=engine)  # type: ignore[arg-type]
    paths = []
    for name, frame in {"qrels": qrels, **runs}.items():
        frame.write_parquet(tmp_path / f"{name}.parquet")
        paths.append(str(tmp_path / f"{name}.parquet"))
    out = subprocess.run(
        [sys.executable, "-m", "rankwise.cli", "compare", *paths, "-m", "AP", "--anova", "--engine", engine],
        capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().splitlines() == [f"rankwise: error: {message}: the topic and residual terms have no degrees of freedom"]


# --- compare's keyword options, declared once -------------------------------------------------


def test_compare_comparison_report_and_compare_sql_take_the_options_from_one_declaration() -> None:
    """No function restates compare's keywords: each takes ``**options`` typed by the one
    declaration (CompareOptions; compare_sql its PairedOptions part), whose types are those of
    the Settings fields that give the defaults; the defaults are the documented ones."""
    import inspect
    import typing

    from rankwise.comparison.paired import (
        COMPARE_KEYWORDS,
        SETTING_KEYWORDS,
        CompareOptions,
        PairedOptions,
        Settings,
        comparison,
    )
    from rankwise.comparison.sql import SqlCompareOptions
    from rankwise.conventions import EVALUATION_KEYWORDS, READ_KEYWORDS, Unpack

    own = {
        rw.compare: ["qrels", "runs", "metrics"],
        comparison: ["qrels", "runs", "metrics", "also"],
        rw.report: ["qrels", "runs", "metrics", "path", "title", "explain", "command", "export"],
    }
    for function, named in own.items():
        parameters = inspect.signature(function).parameters
        assert [p for p in parameters if parameters[p].kind is not inspect.Parameter.VAR_KEYWORD] == named
        hints = typing.get_type_hints(function, include_extras=True)
        assert hints["options"] == Unpack[CompareOptions], function
    assert typing.get_type_hints(rw.compare_sql, include_extras=True)["options"] == Unpack[SqlCompareOptions]
    assert not set(SETTING_KEYWORDS) & set(inspect.signature(rw.compare_sql).parameters)
    assert set(SqlCompareOptions.__optional_keys__) == set(EVALUATION_KEYWORDS) | {"baseline", "by", "risk_alpha", "hurt"}
    assert set(CompareOptions.__optional_keys__) == set(COMPARE_KEYWORDS) == set(READ_KEYWORDS) | set(SETTING_KEYWORDS)
    typed = typing.get_type_hints(CompareOptions)
    assert typing.get_type_hints(Settings) == {k: typed[k] for k in SETTING_KEYWORDS}
    assert typing.get_type_hints(PairedOptions) == {k: typed[k] for k in ("baseline", "by", "risk_alpha", "hurt")}
    assert Settings() == Settings(
        baseline=None, pairs="baseline", tests=("t",), alpha=0.05, correction="holm", by=None, resamples=10_000,
        seed=0, engine="polars", risk_alpha=1.0, hurt=0.0, detect=None, power=0.8,
    )


def test_compare_s_defaults_are_those_of_the_declaration() -> None:
    """compare without a setting equals compare with the declared default written out."""
    runs, qrels = runs_and_qrels(seed=5, queries=12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        spelled = rw.compare(
            qrels, runs, ["AP"], baseline="base", pairs="baseline", tests=["t"], alpha=0.05, correction="holm",
            by=None, resamples=300, seed=0, engine="polars", risk_alpha=1.0, hurt=0.0, detect=None, power=0.8,
        )
        assert rw.compare(qrels, runs, ["AP"], resamples=300).equals(spelled)


def test_compare_sql_refuses_a_setting_sql_does_not_compute() -> None:
    with pytest.raises(rw.ArgumentTypeError, match=r"^compare_sql\(\) got an unexpected keyword argument 'tests'"):
        rw.compare_sql(["AP"], runs={"a": "run_a", "b": "run_b"}, tests=["t"])  # type: ignore[call-arg]
    with pytest.raises(rw.ArgumentTypeError, match=r"^hurt must be a number, got str 'x' \(compare_sql\(\.\.\., hurt=\.\.\.\)\)$"):
        rw.compare_sql(["AP"], runs={"a": "run_a", "b": "run_b"}, hurt="x")  # type: ignore[typeddict-item]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_report_takes_every_option_of_compare(engine: str, tmp_path: Path) -> None:
    """report takes compare's options, risk and topic set size included (it lacked risk_alpha,
    hurt, detect and power), and its table is compare's for them; the provenance names the
    options given that differ from their defaults."""
    runs, qrels = runs_and_qrels(seed=7, queries=12)
    options: dict[str, object] = {"risk_alpha": 3.0, "hurt": 0.05, "detect": 0.1, "power": 0.9, "resamples": 200,
                                  "engine": engine, "tests": ["t"], "alpha": 0.05, "seed": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        table = rw.report(qrels, runs, ["AP"], tmp_path / "r.html", explain=0, **options)  # type: ignore[arg-type]
        expected = rw.compare(qrels, runs, ["AP"], **options)  # type: ignore[arg-type]
    assert table.equals(expected)
    assert table["urisk"].null_count() == 0 and table["queries_needed"].null_count() == 0
    text = (tmp_path / "r.html").read_text()
    given = "resamples=200, risk_alpha=3.0, hurt=0.05, detect=0.1, power=0.9"
    if engine == "duckdb":
        given = "resamples=200, engine=&#x27;duckdb&#x27;, risk_alpha=3.0, hurt=0.05, detect=0.1, power=0.9"
    assert f"[&#x27;AP&#x27;], &#x27;{tmp_path / 'r.html'}&#x27;, {given})" in text
