"""rw.ppi: prediction-powered inference of a run's metrics from a model's judgments checked on a
human-judged sample. Checked against ppi-python 0.2.3 (``ppi_mean_pointestimate``,
``ppi_mean_ci``, ``classical_mean_ci``, the power analysis' ρ) on the same per-query values, by
hand-computed values at the edges, and by the interval's coverage in a seeded simulation."""

from __future__ import annotations

import math
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rankwise as rw
from rankwise.errors import InvalidParameterError, InvalidValueError
from rankwise.inference.ppi import effective_n, ppi_mean, tuned_lambda

ENGINES = ["polars", "duckdb"]
METRICS = ["nDCG@5", "P@3", "CG@5", "RR"]


def _data(seed: int = 7, queries: int = 30, human: int = 10) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Seeded judgments: the truth per (query, doc) graded 0-2, the model's a noisy copy of it as
    probabilities, the human ones the truth on the first ``human`` queries; two runs."""
    rng = random.Random(seed)
    truth, model, runs = [], [], {"a": [], "b": []}
    for q in range(queries):
        qid = f"q{q:02d}"
        for d in range(8):
            rel = rng.choice([0, 0, 0, 1, 2])
            truth.append((qid, f"d{d}", rel))
            model.append((qid, f"d{d}", min(1.0, max(0.0, rel / 2 + rng.gauss(0, 0.3)))))
            for name in runs:
                runs[name].append((qid, f"d{d}", rel * (1.0 if name == "a" else 0.3) + rng.random()))
    cols = ["query_id", "doc_id", "relevance"]
    human_qrels = pl.DataFrame(truth, schema=cols, orient="row").filter(pl.col("query_id") < f"q{human:02d}")
    model_qrels = pl.DataFrame(model, schema=cols, orient="row")
    run_a, run_b = (pl.DataFrame(r, schema=["query_id", "doc_id", "score"], orient="row") for r in runs.values())
    return human_qrels, model_qrels, run_a, run_b


def _split(human_qrels: pl.DataFrame, model_qrels: pl.DataFrame, run: Any, metric: str, baseline: Any = None,
           engine: str = "polars") -> tuple[list[float], list[float], list[float]]:
    """Y, Ŷ, Ŷᵤ from rw.evaluate (differences with a baseline), by hand."""
    def values(qrels: pl.DataFrame) -> dict[str, float]:
        out = dict(rw.evaluate(qrels, run, metric, engine=engine).select("query_id", metric).iter_rows())
        if baseline is not None:
            base = dict(rw.evaluate(qrels, baseline, metric, engine=engine).select("query_id", metric).iter_rows())
            out = {q: v - base[q] for q, v in out.items()}
        return out

    with pytest.warns(rw.errors.RankwiseWarning):
        y = values(human_qrels)
    yh = values(model_qrels)
    labelled = sorted(y)
    return [y[q] for q in labelled], [yh[q] for q in labelled], [yh[q] for q in sorted(set(yh) - set(y))]


# -- ppi-python on the same per-query values ------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("tuned", [False, True])
@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_agrees_with_ppi_python(engine: str, tuned: bool, alpha: float) -> None:
    ppi_py = pytest.importorskip("ppi_py")
    np = pytest.importorskip("numpy")
    human, model, run, _ = _data()
    result = rw.ppi(human, model, run, METRICS, alpha=alpha, tuned=tuned, engine=engine)
    assert result["metric"].to_list() == METRICS
    for row in result.iter_rows(named=True):
        y, yh, yu = (np.array(v) for v in _split(human, model, run, row["metric"], engine=engine))
        lam = None if tuned else 1.0
        assert row["estimate"] == pytest.approx(float(ppi_py.ppi_mean_pointestimate(y, yh, yu, lam=lam)[0]), abs=1e-12)
        lo, hi = (float(v) for v in np.ravel(ppi_py.ppi_mean_ci(y, yh, yu, alpha=alpha, lam=lam)))
        assert (row["ci_low"], row["ci_high"]) == (pytest.approx(lo, abs=1e-12), pytest.approx(hi, abs=1e-12))
        clo, chi = (float(v) for v in np.ravel(ppi_py.classical_mean_ci(y, alpha=alpha)))
        assert (row["classical_low"], row["classical_high"]) == (pytest.approx(clo, abs=1e-12), pytest.approx(chi, abs=1e-12))
        assert row["classical_estimate"] == pytest.approx(float(y.mean()), abs=1e-12)
        assert (row["n_human"], row["n_model"]) == (10, 20)
        if not tuned:
            assert row["lam"] == 1.0
        else:  # the λ̂ ppi-python uses: its interval at that λ is ours
            lo2, hi2 = (float(v) for v in np.ravel(ppi_py.ppi_mean_ci(y, yh, yu, alpha=alpha, lam=row["lam"])))
            assert (lo2, hi2) == (pytest.approx(lo, abs=1e-12), pytest.approx(hi, abs=1e-12))
            # and λ̂ itself, as ppi_mean_ci computes it: _calc_lam_glm on the gradients at the λ = 1 estimate
            from ppi_py.ppi import _calc_lam_glm

            center = float(ppi_py.ppi_mean_pointestimate(y, yh, yu, lam=1)[0])
            want = _calc_lam_glm((y - center)[:, None], (yh - center)[:, None], (yu - center)[:, None], np.eye(1),
                                 clip=True)
            assert row["lam"] == pytest.approx(float(np.ravel(want)[0]), abs=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_paired_baseline_agrees_with_ppi_python_on_differences(engine: str) -> None:
    ppi_py = pytest.importorskip("ppi_py")
    np = pytest.importorskip("numpy")
    human, model, run_a, run_b = _data(seed=11)
    for tuned in (False, True):
        result = rw.ppi(human, model, run_a, ["nDCG@5", "CG@5"], baseline=run_b, alpha=0.05, tuned=tuned, engine=engine)
        for row in result.iter_rows(named=True):
            y, yh, yu = (np.array(v) for v in _split(human, model, run_a, row["metric"], baseline=run_b, engine=engine))
            lam = None if tuned else 1.0
            assert row["estimate"] == pytest.approx(float(ppi_py.ppi_mean_pointestimate(y, yh, yu, lam=lam)[0]), abs=1e-12)
            lo, hi = (float(v) for v in np.ravel(ppi_py.ppi_mean_ci(y, yh, yu, alpha=0.05, lam=lam)))
            assert (row["ci_low"], row["ci_high"]) == (pytest.approx(lo, abs=1e-12), pytest.approx(hi, abs=1e-12))
            # the classical interval: the human-judged queries' differences alone
            clo, chi = (float(v) for v in np.ravel(ppi_py.classical_mean_ci(y, alpha=0.05)))
            assert (row["classical_low"], row["classical_high"]) == (pytest.approx(clo, abs=1e-12),
                                                                     pytest.approx(chi, abs=1e-12))
            assert row["classical_estimate"] == pytest.approx(float(y.mean()), abs=1e-12)


def test_effective_n_is_ppi_pythons_formula_with_its_correlation() -> None:
    ppi_py = pytest.importorskip("ppi_py")
    np = pytest.importorskip("numpy")
    rng = random.Random(3)
    y = [rng.random() for _ in range(12)]
    yh = [v + rng.gauss(0, 0.2) for v in y]
    rho = ppi_py.ppi_mean_power(np.array(y), np.array(yh), cost_Y=1.0, cost_Yhat=0.01, budget=20)["ppi_corr"]
    assert effective_n(y, yh, 40) == round(12 * 52 / (12 + (1 - rho**2) * 40))


# -- hand-computed edges -------------------------------------------------------------------------------------


def test_one_human_query_gives_a_zero_width_rectifier() -> None:
    # n = 1: var₀(Y − Ŷ) = 0; classic PPI: θ̂ = mean(Ŷᵤ) + (Y − Ŷ) = 0.5 + (1 − 0.25) = 1.25,
    # se² = var₀(Ŷᵤ)/N = 0.25/2; λ̂: cov₀ = 0 so λ̂ = 0, the human value alone with a zero-width interval
    r = ppi_mean([1.0], [0.25], [0.0, 1.0], alpha=0.05, tuned=False)
    z = 1.959963984540054
    assert (r.estimate, r.lam, r.n_human, r.n_model) == (1.25, 1.0, 1, 2)
    assert (r.ci_low, r.ci_high) == (pytest.approx(1.25 - z * math.sqrt(0.125)), pytest.approx(1.25 + z * math.sqrt(0.125)))
    t = ppi_mean([1.0], [0.25], [0.0, 1.0], alpha=0.05, tuned=True)
    assert (t.lam, t.estimate, t.ci_low, t.ci_high) == (0.0, 1.0, 1.0, 1.0)
    assert (t.classical_low, t.classical_high, t.effective_n) == (1.0, 1.0, 1)


def test_constant_model_values_fall_back_to_lambda_zero() -> None:
    # ppi-python: 0/0 → NaN interval; rankwise: λ = 0, the classical interval
    r = ppi_mean([0.0, 1.0, 1.0, 0.0], [0.5] * 4, [0.5] * 6, alpha=0.05, tuned=True)
    assert r.lam == 0.0
    assert (r.estimate, r.ci_low, r.ci_high) == (r.classical_estimate, r.classical_low, r.classical_high)
    assert r.estimate == 0.5 and r.ci_high - r.ci_low == pytest.approx(2 * 1.959963984540054 * 0.5 / 2)
    assert r.effective_n == 4  # ρ = 0: n(n + N)/(n + N) = n


def test_lambda_is_clipped_at_zero_and_one() -> None:
    # negative covariance: cov₀([0, 1], [1, 0]) = −0.25 → λ̂ < 0 → 0
    assert tuned_lambda([0.0, 1.0], [1.0, 0.0], [0.0, 1.0]) == 0.0
    # Y = 4 Ŷ: cov₀ = 4 · var₀(Ŷ) = 1; var₁ of [0, 1, 0, 1, 0, 1, 0, 1] (N = 6, n = 2) = 2/7;
    # raw λ̂ = 1 / ((1 + 2/6) · 2/7) = 2.625 → 1
    assert tuned_lambda([0.0, 4.0], [0.0, 1.0], [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]) == 1.0
    # inside: cov₀ = 0.25, var₁ of [0, 1, 0, 1] = 1/3, (1 + 1) · 1/3 → 0.375
    assert tuned_lambda([0.0, 1.0], [0.0, 1.0], [0.0, 1.0]) == pytest.approx(0.375)


def test_hand_computed_classic_ppi() -> None:
    # Y = [1, 0, 1], Ŷ = [1, 1, 1], Ŷᵤ = [1, 0]: θ̂ = 0.5 + mean([0, −1, 0]) = 1/6;
    # se² = 0.25/2 + (2/9)/3
    r = ppi_mean([1.0, 0.0, 1.0], [1.0, 1.0, 1.0], [1.0, 0.0], alpha=0.1, tuned=False)
    z = 1.6448536269514722
    se = math.sqrt(0.125 + 2 / 27)
    assert r.estimate == pytest.approx(1 / 6)
    assert (r.ci_low, r.ci_high) == (pytest.approx(1 / 6 - z * se), pytest.approx(1 / 6 + z * se))
    assert r.classical_estimate == pytest.approx(2 / 3)


# -- coverage --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("tuned", [False, True])
def test_interval_covers_the_truth_at_its_nominal_level(tuned: bool) -> None:
    """Seeded: a population of 200 query values, the model's a biased noisy copy; 600 draws of
    20 human-judged queries; the 90 % interval covers the population mean in 0.84-0.96 of them."""
    rng = random.Random(2026)
    truth = [rng.betavariate(2, 3) for _ in range(200)]
    model = [0.8 * v + 0.1 + rng.gauss(0, 0.1) for v in truth]
    mean = sum(truth) / len(truth)
    covered = 0
    draws = 600
    for _ in range(draws):
        human = set(rng.sample(range(200), 20))
        y = [truth[i] for i in sorted(human)]
        yh = [model[i] for i in sorted(human)]
        yu = [model[i] for i in range(200) if i not in human]
        r = ppi_mean(y, yh, yu, alpha=0.1, tuned=tuned)
        covered += r.ci_low <= mean <= r.ci_high
    assert 0.84 <= covered / draws <= 0.96


# -- bad input -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_bad_input_is_named(engine: str) -> None:
    human, model, run, _ = _data()
    with pytest.raises(InvalidParameterError, match="alpha must be in"):
        rw.ppi(human, model, run, "P@3", alpha=1.5, engine=engine)
    with pytest.raises(InvalidParameterError, match=r"Gini.*set-level"):
        rw.ppi(human, model, run, "Gini@10", engine=engine)
    with pytest.raises(InvalidValueError, match="no query is judged by the model only"), pytest.warns(rw.errors.RankwiseWarning):
        rw.ppi(human, model.filter(pl.col("query_id") < "q10"), run, "P@3", engine=engine)
    with pytest.raises(InvalidValueError, match="the human judgments judge no query"):
        rw.ppi(human.clear(), model, run, "P@3", engine=engine)
    with pytest.raises(InvalidValueError, match="lack the human-judged query 'q03'"):
        rw.ppi(human, model.filter(pl.col("query_id") != "q03"), run, "P@3", engine=engine)


# -- the command line ------------------------------------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rankwise.cli", *args], capture_output=True, text=True, check=False)


def test_cli_writes_the_table(tmp_path: Path) -> None:
    human, model, run, base = _data()
    paths = {name: tmp_path / f"{name}.parquet" for name in ("human", "model", "run", "base")}
    for name, frame in zip(paths, (human, model, run, base), strict=True):
        frame.write_parquet(paths[name])
    out = tmp_path / "ppi.csv"
    done = _cli("ppi", str(paths["human"]), str(paths["model"]), str(paths["run"]), "-m", "nDCG@5", "-m", "CG@5",
                "--alpha", "0.1", "--classic", "--format", "csv", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().endswith(f"wrote {out} (2 metrics, 10 human-judged queries, 20 model-only)")
    expected = rw.ppi(human, model, run, ["nDCG@5", "CG@5"], alpha=0.1, tuned=False)
    got = pl.read_csv(out)
    assert got["metric"].to_list() == ["nDCG@5", "CG@5"]
    assert got["estimate"].to_list() == pytest.approx(expected["estimate"].to_list())
    done = _cli("ppi", str(paths["human"]), str(paths["model"]), str(paths["run"]), "-m", "CG@5",
                "--baseline", str(paths["base"]), "--format", "csv", "--engine", "duckdb")
    assert done.returncode == 0, done.stderr
    paired = rw.ppi(human, model, run, "CG@5", baseline=base)
    assert pl.read_csv(done.stdout.encode())["ci_high"].to_list() == pytest.approx(paired["ci_high"].to_list())


def test_cli_table_fits_a_terminal(tmp_path: Path) -> None:
    human, model, run, base = _data()
    paths = {name: tmp_path / f"{name}.parquet" for name in ("human", "model", "run", "base")}
    for name, frame in zip(paths, (human, model, run, base), strict=True):
        frame.write_parquet(paths[name])
    done = _cli("ppi", str(paths["human"]), str(paths["model"]), str(paths["run"]), "-m", "nDCG@5", "-m", "CG@5",
                "--baseline", str(paths["base"]), "--alpha", "0.1", "--quiet")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= 110
    assert "metric (run − baseline)" in lines[1] and "PPI++ (90%)" in lines[1] and "humans only (90%)" in lines[1]
    want = rw.ppi(human, model, run, ["nDCG@5", "CG@5"], baseline=base, alpha=0.1)
    for row in want.iter_rows(named=True):
        line = next(line for line in lines if f" {row['metric']} " in line)
        assert f"{row['estimate']:.4f} ± {(row['ci_high'] - row['ci_low']) / 2:.4f}" in line
        assert f"{row['classical_estimate']:.4f} ± {(row['classical_high'] - row['classical_low']) / 2:.4f}" in line
        assert f"{row['lam']:.3f}" in line and f" {row['effective_n']} " in line


def test_cli_bad_input_exits_2(tmp_path: Path) -> None:
    human, model, run, _ = _data()
    paths = {name: tmp_path / f"{name}.parquet" for name in ("human", "model", "run")}
    for name, frame in zip(paths, (human, model, run), strict=True):
        frame.write_parquet(paths[name])
    done = _cli("ppi", str(paths["human"]), str(paths["model"]), str(paths["run"]), "-m", "P@3", "--alpha", "0")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["rankwise: error: alpha must be in (0, 1), got 0.0"]
    done = _cli("ppi", str(paths["human"]), str(paths["human"]), str(paths["run"]), "-m", "P@3")
    assert done.returncode == 2 and "no query is judged by the model only" in done.stderr


@pytest.mark.parametrize("engine", ENGINES)
def test_an_undefined_value_is_named(engine: str) -> None:
    # AUC is undefined (NULL) for a query with nothing relevant: q01's human judgments all 0
    human, model, run, _ = _data()
    human = human.with_columns(relevance=pl.when(pl.col("query_id") == "q01").then(0).otherwise(pl.col("relevance")))
    with pytest.raises(InvalidValueError, match=r"AUC is undefined \(NULL\) for query 'q01' under the human judgments"):
        rw.ppi(human, model, run, "AUC", engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_baseline_scoring_other_queries_is_named(engine: str) -> None:
    human, model, run, base = _data()
    with pytest.raises(InvalidValueError, match="the run and the baseline score different queries: 'q25'"), \
            pytest.warns(rw.errors.RankwiseWarning, match="1 judged query is not in the run"):
        rw.ppi(human, model, run, "P@3", baseline=base.filter(pl.col("query_id") != "q25"), engine=engine)


@pytest.mark.parametrize(("metric", "why"), [
    ("GMAP", "its summary is a geometric mean over the queries"),
    ("NumRet", "a count, summed over the queries"),
    ("RelString", "a string per query, no summary"),
    ("Gini@10", "a set-level metric, one value per run"),
])
def test_a_metric_that_is_not_a_mean_is_refused_with_the_reason(metric: str, why: str) -> None:
    human, model, run, _ = _data()
    with pytest.raises(rw.InvalidParameterError, match=rf"^{re.escape(metric)} is not a mean of per-query values \({why}\)"):
        rw.ppi(human, model, run, metric)
