"""The statistics of a paired comparison, on arrays of per-query values (numpy and scipy, the
``[stats]`` extra, imported lazily).

Each function takes the per-query values (or their paired differences ``d = candidate −
baseline``) of the queries where both runs are defined, and is checked in the tests against an
implementation we did not write (scipy, statsmodels, pingouin).

- :func:`adjust`: multiple-comparison correction (statsmodels' names: ``holm``, ``bonferroni``,
  ``fdr_bh``, ``fdr_by``, ``none``).
- :func:`paired_pvalue`: Student's paired t, Wilcoxon's signed-rank, Fisher's randomization test.
- :func:`bootstrap_bca`: the BCa bootstrap interval of the mean difference (Efron 1987).
- :func:`t_interval`: the t-based interval of the mean difference.
- :func:`effect_sizes`: Cohen's d_z, Hedges' g_z and Glass's Δ.
- :func:`outcomes`: wins, ties and losses (the one definition every table and figure uses).

>>> import numpy as np
>>> d = np.array([0.1, 0.2, -0.05, 0.0, 0.3])
>>> outcomes(d)
(3, 1, 1)
>>> {k: round(v, 4) for k, v in effect_sizes(d + 0.5, np.full(5, 0.5) + [0.1, -0.1, 0.0, 0.1, -0.1]).items()}
{'d_z': 0.4895, 'hedges_g': 0.3916, 'glass_delta': 1.1}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from rankwise.errors import InvalidParameterError, MissingExtraError

Correction = Literal["holm", "bonferroni", "fdr_bh", "fdr_by", "none"]
CORRECTIONS: tuple[str, ...] = ("holm", "bonferroni", "fdr_bh", "fdr_by", "none")
PairedTest = Literal["t", "wilcoxon", "randomization"]

_BLOCK_ELEMENTS = 4_000_000
"""Resamples are drawn in blocks of at most this many (resample, query) cells (~32 MB of
float64), so 100,000 queries x 10,000 resamples runs in bounded memory."""


_NOISE = 1e-12
_MOST_QUERIES = 1 << 30
"""A spread this small is floating-point noise (per-query values are rounded to 12 decimals,
and their differences carry the rounding of binary fractions): no spread at all."""


def _block(n: int, remaining: int) -> int:
    return max(1, min(remaining, _BLOCK_ELEMENTS // max(n, 1)))


def numpy_scipy() -> tuple[Any, Any]:
    """numpy and scipy.stats, or :class:`~rankwise.errors.MissingExtraError` naming the extra."""
    try:
        import numpy as np
        from scipy import stats
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingExtraError(
            "rankwise's comparison statistics need numpy and scipy: pip install 'rankwise[stats]'"
        ) from exc
    return np, stats


def check_resampling(resamples: object, seed: object) -> None:
    """``resamples`` a whole number of at least 1 and ``seed`` one of at least 0, or
    :class:`~rankwise.errors.InvalidParameterError` naming the parameter."""
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise InvalidParameterError(f"resamples must be a whole number of at least 1, got {resamples!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidParameterError(f"seed must be a whole number of at least 0, got {seed!r}")


def adjust(pvalues: Sequence[float], method: Correction) -> list[float]:
    """Multiple-comparison correction of a family of p-values, by statsmodels' names:
    Holm–Bonferroni step-down (``holm``; Holm 1979), ``bonferroni``, Benjamini–Hochberg
    (``fdr_bh``; false discovery rate, Benjamini & Hochberg 1995), Benjamini–Yekutieli
    (``fdr_by``; any dependence, Benjamini & Yekutieli 2001), or ``none``.

    >>> [round(p, 3) for p in adjust([0.01, 0.04, 0.03, 0.005], "holm")]
    [0.03, 0.06, 0.06, 0.02]
    >>> adjust([0.01, 0.04], "bonferroni")
    [0.02, 0.08]
    >>> [round(p, 4) for p in adjust([0.01, 0.04, 0.03, 0.005], "fdr_bh")]
    [0.02, 0.04, 0.04, 0.02]
    """
    if method not in CORRECTIONS:
        raise InvalidParameterError(f"correction must be one of {list(CORRECTIONS)}, got {method!r}")
    m = len(pvalues)
    if method == "none" or m == 0:
        return list(pvalues)
    if method == "bonferroni":
        return [min(1.0, p * m) for p in pvalues]
    if method == "holm":
        order = sorted(range(m), key=lambda i: pvalues[i])
        out = [0.0] * m
        running = 0.0
        for rank, i in enumerate(order):
            running = max(running, min(1.0, (m - rank) * pvalues[i]))
            out[i] = running
        return out
    _, stats = numpy_scipy()
    return [float(p) for p in stats.false_discovery_control(list(pvalues), method=method.removeprefix("fdr_"))]


def outcomes(d: Any) -> tuple[int, int, int]:
    """Wins, ties and losses of the differences ``d`` (candidate − baseline): d > 0, d = 0,
    d < 0. The per-query values are rounded to 12 decimals before they are paired (see
    :mod:`rankwise.comparison.paired`), so floating-point noise is neither a win nor a loss."""
    np, _ = numpy_scipy()
    d = np.asarray(d, dtype=np.float64)
    return int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum())


def randomization_pvalue(diffs: Any, resamples: int, seed: int) -> float:
    """Two-sided paired randomization test of mean(diffs) = 0 by random sign flips (Fisher;
    Smucker, Allan & Carterette, CIKM 2007), drawn in blocks of rows so memory stays bounded:
    p = (1 + #{|mean*| ≥ |mean|}) / (1 + resamples)."""
    np, _ = numpy_scipy()
    d = np.asarray(diffs, dtype=np.float64)
    if d.size == 0:
        return 1.0
    observed = abs(d.mean())
    rng = np.random.default_rng(seed)
    hits = 0
    done = 0
    tol = 1e-12 * max(1.0, observed)
    while done < resamples:
        block = _block(d.size, resamples - done)
        signs = rng.integers(0, 2, size=(block, d.size), dtype=np.int8) * 2 - 1
        means = np.abs(signs @ d) / d.size
        hits += int((means >= observed - tol).sum())
        done += block
    return float((hits + 1) / (resamples + 1))


def paired_pvalue(test: PairedTest, cand: Any, base: Any, resamples: int, seed: int) -> float:
    """The two-sided p-value of a paired test of equal means: ``t`` (scipy.stats.ttest_rel),
    ``wilcoxon`` (scipy.stats.wilcoxon, signed-rank), ``randomization``
    (:func:`randomization_pvalue`). Runs equal on every query have p = 1."""
    np, stats = numpy_scipy()
    d = cand - base
    if test == "randomization":
        return randomization_pvalue(d, resamples, seed)
    if np.all(np.abs(d) <= _NOISE):
        return 1.0
    if test == "t":
        return float(stats.ttest_rel(cand, base).pvalue)
    return float(stats.wilcoxon(cand, base).pvalue)


def bootstrap_means(arrays: Sequence[Any], resamples: int, seed: int) -> list[Any]:
    """The means of ``resamples`` bootstrap resamples of each array (queries drawn with
    replacement), drawn in bounded blocks; the draws are those of
    ``scipy.stats.bootstrap(..., rng=numpy.random.default_rng(seed))``, and arrays of the same
    length share them (the indices are drawn once, the costly part)."""
    np, _ = numpy_scipy()
    out: list[Any] = [None] * len(arrays)
    by_size: dict[int, list[int]] = {}
    for i, a in enumerate(arrays):
        by_size.setdefault(a.size, []).append(i)
    for size, members in by_size.items():
        rng = np.random.default_rng(seed)
        means: dict[int, list[Any]] = {i: [] for i in members}
        done = 0
        while done < resamples:
            block = _block(size, resamples - done)
            idx = rng.integers(0, size, size=(block, size))
            for i in members:
                means[i].append(arrays[i][idx].mean(axis=-1))
            done += block
        for i in members:
            out[i] = np.concatenate(means[i])
    return out


def bootstrap_bca(diffs: Any, resamples: int, seed: int, level: float = 0.95) -> tuple[float, float] | None:
    """The bias-corrected and accelerated (BCa) bootstrap interval of the mean difference
    (Efron, Better bootstrap confidence intervals, JASA 1987; scipy.stats.bootstrap's
    ``method='BCa'``): the bootstrap means' quantiles at Φ(z₀ + (z₀ + z)/(1 − a(z₀ + z))) for
    z = Φ⁻¹((1 ∓ level)/2), with z₀ = Φ⁻¹(share of bootstrap means below the mean, ties
    counted half) and the acceleration a = Σ(θ̄ − θᵢ)³ / (6 (Σ(θ̄ − θᵢ)²)^1.5) from the
    jackknife means θᵢ = (Σd − dᵢ)/(n − 1), taken in closed form (no n × n jackknife). None
    for fewer than two queries; the mean itself when every difference is the same (within 1e-12)."""
    return bootstrap_bca_many([diffs], resamples, seed, level)[0]


def bootstrap_bca_many(
    diffs: Sequence[Any], resamples: int, seed: int, level: float = 0.95
) -> list[tuple[float, float] | None]:
    """:func:`bootstrap_bca` of several arrays of differences at once (e.g. every metric of a
    pair), those of the same length sharing the resamples' indices."""
    np, stats = numpy_scipy()
    arrays = [np.asarray(d, dtype=np.float64) for d in diffs]
    out: list[tuple[float, float] | None] = [None] * len(arrays)
    todo = []
    for i, d in enumerate(arrays):
        if d.size < 2:
            continue
        if np.ptp(d) <= _NOISE:
            out[i] = (float(d.mean()), float(d.mean()))
        else:
            todo.append(i)
    boots = bootstrap_means([arrays[i] for i in todo], resamples, seed)
    z = stats.norm.ppf([(1 - level) / 2, (1 + level) / 2])
    for i, boot in zip(todo, boots, strict=True):
        d = arrays[i]
        theta = d.mean()
        share = ((boot < theta).sum() + (boot <= theta).sum()) / (2 * boot.size)
        z0 = stats.norm.ppf(share)
        jack = (d.sum() - d) / (d.size - 1)
        dev = jack.mean() - jack
        accel = (dev**3).sum() / (6 * ((dev**2).sum()) ** 1.5)
        quantiles = stats.norm.cdf(z0 + (z0 + z) / (1 - accel * (z0 + z)))
        if np.all(np.isfinite(quantiles)):
            lo, hi = np.percentile(boot, quantiles * 100)
            out[i] = (float(lo), float(hi))
    return out


def t_interval(diffs: Any, level: float = 0.95) -> tuple[float, float] | None:
    """The t-based interval of the mean difference: mean ± t_{n−1, (1+level)/2} · s/√n (as
    scipy.stats.ttest_rel(...).confidence_interval()); None for fewer than two queries."""
    np, stats = numpy_scipy()
    d = np.asarray(diffs, dtype=np.float64)
    if d.size < 2:
        return None
    half = stats.t.ppf((1 + level) / 2, d.size - 1) * d.std(ddof=1) / np.sqrt(d.size)
    return float(d.mean() - half), float(d.mean() + half)


def effect_sizes(cand: Any, base: Any) -> dict[str, float | None]:
    """Standardised effect sizes of the paired difference d = cand − base:

    - ``d_z`` = mean(d) / s_d, Cohen's d of the differences (Cohen 1988; Lakens 2013);
    - ``hedges_g`` = d_z · (1 − 3 / (4(n − 1) − 1)), its small-sample correction (Hedges 1981);
    - ``glass_delta`` = mean(d) / s_base, the difference in units of the baseline's spread
      over queries (Glass 1976).

    Standard deviations with n − 1; a zero spread (at most 1e-12: floating-point noise) or fewer
    than two queries give None."""
    np, _ = numpy_scipy()
    c = np.asarray(cand, dtype=np.float64)
    b = np.asarray(base, dtype=np.float64)
    d = c - b
    if d.size < 2:
        return {"d_z": None, "hedges_g": None, "glass_delta": None}
    sd_d, sd_b = d.std(ddof=1), b.std(ddof=1)
    d_z = float(d.mean() / sd_d) if sd_d > _NOISE else None
    return {
        "d_z": d_z,
        "hedges_g": d_z * (1 - 3 / (4 * (d.size - 1) - 1)) if d_z is not None else None,
        "glass_delta": float(d.mean() / sd_b) if sd_b > _NOISE else None,
    }


def risk(d: Any, alpha: float) -> dict[str, float | None]:
    """Risk-sensitive comparison with the baseline (Dinçer, Macdonald & Ounis, Hypothesis
    testing for the risk-sensitive evaluation of retrieval systems, SIGIR 2014): each query's
    risk-reward uᵢ = dᵢ when the run is not worse (dᵢ ≥ 0), (1 + α)·dᵢ when it is (ndeval's and
    gdeval's per-query risk ``r >= b ? r - b : (1 + α)(r - b)``);

    - ``urisk`` = mean(u) (URisk_α; α = 0 gives the mean difference);
    - ``trisk`` = URisk / (s_u / √n) (TRisk_α, the one-sample t statistic of u: beyond ±2 the
      run is significantly less risky, or riskier, than the baseline).

    >>> risk([0.2, -0.1, 0.0], alpha=1.0) == {"urisk": 0.0, "trisk": 0.0}
    True
    """
    np, _ = numpy_scipy()
    d = np.asarray(d, dtype=np.float64)
    if d.size == 0:
        return {"urisk": None, "trisk": None}
    u = np.where(d >= 0, d, (1 + alpha) * d)
    urisk = float(u.mean())
    sd = u.std(ddof=1) if d.size > 1 else 0.0
    return {"urisk": urisk, "trisk": float(urisk / (sd / np.sqrt(d.size))) if sd > _NOISE else None}


def georisk(values: Any, alpha: float) -> list[float | None]:
    """GeoRisk of each of several systems on the same queries (Dinçer, Macdonald & Ounis,
    Risk-sensitive evaluation and learning to rank using multiple baselines, SIGIR 2016):
    ``values`` is a systems × queries matrix of non-negative scores;
    GeoRisk_i = √(Sᵢ/c · Φ(Zᵢ/c)), with Sᵢ = Σⱼ xᵢⱼ, c the number of queries,
    zᵢⱼ = (xᵢⱼ − eᵢⱼ)/√eᵢⱼ the deviation from the expected score eᵢⱼ = Sᵢ·Tⱼ/N (Tⱼ = Σᵢ xᵢⱼ,
    N = Σᵢⱼ xᵢⱼ) and Zᵢ = Σⱼ zᵢⱼ with the negative zᵢⱼ weighted 1 + α. A query where every
    system scores 0 (eᵢⱼ = 0) contributes zᵢⱼ = 0; a system scoring 0 everywhere has GeoRisk 0.
    None when there are no queries or some value is negative."""
    np, stats = numpy_scipy()
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] == 0 or (x < 0).any():
        return [None] * (x.shape[0] if x.ndim == 2 else 0)
    c = x.shape[1]
    s = x.sum(axis=1)
    total = x.sum()
    if total == 0:
        return [0.0] * x.shape[0]
    expected = np.outer(s, x.sum(axis=0)) / total
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(expected > 0, (x - expected) / np.sqrt(expected), 0.0)
    zsum = np.where(z >= 0, z, (1 + alpha) * z).sum(axis=1)
    return [float(v) for v in np.sqrt(s / c * stats.norm.cdf(zsum / c))]


def topic_set_size(sd: float, difference: float, *, alpha: float = 0.05, power: float = 0.8) -> int | None:
    """The number of queries a two-sided paired t-test needs to detect a mean difference of
    ``difference`` with probability ``power`` at level ``alpha``, given the standard deviation
    ``sd`` of the per-query differences (Sakai, Topic set size design, Information Retrieval
    Journal 2016): the least n ≥ 2 whose power
    1 − F_{t(n−1, λ)}(t_{1−α/2, n−1}) + F_{t(n−1, λ)}(−t_{1−α/2, n−1}) with λ = √n·difference/sd
    reaches ``power`` (statsmodels' ``TTestPower().solve_power`` rounded up, but for the
    smallest sizes, where statsmodels' fractional n can round to an n whose power falls short).
    None when sd or difference is 0, or more than a billion queries would be needed.

    >>> topic_set_size(0.1, 0.05)
    34
    """
    np, stats = numpy_scipy()
    if sd <= _NOISE or difference == 0:
        return None
    effect = abs(difference) / sd

    def achieved(n: int) -> float:
        crit = stats.t.ppf(1 - alpha / 2, n - 1)
        nc = np.sqrt(n) * effect
        return float(stats.nct.sf(crit, n - 1, nc) + stats.nct.cdf(-crit, n - 1, nc))

    hi = 2
    while achieved(hi) < power:
        hi *= 2
        if hi > _MOST_QUERIES:
            return None
    lo = max(2, hi // 2)
    while lo < hi:
        mid = (lo + hi) // 2
        if achieved(mid) >= power:
            hi = mid
        else:
            lo = mid + 1
    return lo


def anova_two_way(matrix: Any) -> dict[str, dict[str, float | None]]:
    """Two-way ANOVA without replication of a systems × topics matrix (each system scored once
    per topic; Sakai, Statistical significance, power, and sample sizes, SIGIR Forum 2014,
    and his Laboratory Experiments in Information Retrieval, 2018): the sums of squares of the
    systems SS_S = n Σᵢ(x̄ᵢ − x̄)², of the topics SS_T = m Σⱼ(x̄ⱼ − x̄)² and the residual
    SS_E = SS_total − SS_S − SS_T, on m − 1, n − 1 and (m − 1)(n − 1) degrees of freedom; each
    factor's F = MS/MS_E and its p-value, η² = SS/SS_total and partial η² = SS/(SS + SS_E).
    Equal to statsmodels' ``anova_lm(ols('x ~ C(system) + C(topic)'))``.

    >>> t = anova_two_way([[0.2, 0.4, 0.6], [0.3, 0.5, 0.9]])
    >>> round(t["system"]["F"], 6), t["residual"]["df"]  # SS_S = 3 (2 · (1/12)²) = 1/24, SS_E = 1/75
    (6.25, 2.0)
    """
    np, stats = numpy_scipy()
    x = np.asarray(matrix, dtype=np.float64)
    m, n = x.shape
    grand = x.mean()
    ss_total = float(((x - grand) ** 2).sum())
    ss = {"system": float(n * ((x.mean(axis=1) - grand) ** 2).sum()), "topic": float(m * ((x.mean(axis=0) - grand) ** 2).sum())}
    ss_e = max(0.0, ss_total - ss["system"] - ss["topic"])
    df = {"system": m - 1, "topic": n - 1}
    df_e = (m - 1) * (n - 1)
    ms_e = ss_e / df_e if df_e > 0 else None
    out: dict[str, dict[str, float | None]] = {}
    for source in ("system", "topic"):
        ms = ss[source] / df[source] if df[source] > 0 else None
        f = ms / ms_e if ms is not None and ms_e else None
        out[source] = {
            "df": float(df[source]), "sum_sq": ss[source], "mean_sq": ms, "F": f,
            "p": float(stats.f.sf(f, df[source], df_e)) if f is not None else None,
            "eta_sq": ss[source] / ss_total if ss_total > 0 else None,
            "partial_eta_sq": ss[source] / (ss[source] + ss_e) if ss[source] + ss_e > 0 else None,
        }
    out["residual"] = {"df": float(df_e), "sum_sq": ss_e, "mean_sq": ms_e, "F": None, "p": None, "eta_sq": None, "partial_eta_sq": None}
    return out


def randomized_tukey(matrix: Any, resamples: int, seed: int) -> Any:
    """Randomised Tukey HSD p-values of every pair of systems (Carterette, Multiple testing in
    statistical analysis of systems-based information retrieval experiments, TOIS 2012; Sakai's
    form): under the null hypothesis the systems' scores on a topic are exchangeable, so each
    resample permutes every topic's scores across the systems; p(i, j) = (1 + #{resamples whose
    largest minus smallest system mean ≥ |x̄ᵢ − x̄ⱼ|}) / (1 + resamples). Resamples are drawn in
    blocks of bounded size (seeded). Returns an m × m array (1 on the diagonal)."""
    np, _ = numpy_scipy()
    x = np.asarray(matrix, dtype=np.float64)
    m, n = x.shape
    means = x.mean(axis=1)
    observed = np.abs(means[:, None] - means[None, :])
    tol = 1e-12 * max(1.0, float(observed.max()))
    rng = np.random.default_rng(seed)
    counts = np.zeros((m, m), dtype=np.int64)
    columns = x.T  # topics × systems
    done = 0
    while done < resamples:
        block = _block(n * m, resamples - done)
        shuffled = rng.permuted(np.broadcast_to(columns, (block, n, m)), axis=2)
        resampled = shuffled.mean(axis=1)  # block × systems
        ranges = resampled.max(axis=1) - resampled.min(axis=1)
        counts += (ranges[:, None, None] >= observed[None, :, :] - tol).sum(axis=0)
        done += block
    p = (counts + 1) / (resamples + 1)
    np.fill_diagonal(p, 1.0)
    return p


def sign_test_pvalue(wins: int, losses: int) -> float:
    """The two-sided exact binomial (sign) test of wins against losses, ties left out: under
    the null each decided case is a win with probability ½, and
    p = min(1, 2 · P(X ≤ min(wins, losses))), X ~ Binomial(wins + losses, ½) — the value of
    ``scipy.stats.binomtest(wins, wins + losses, 0.5).pvalue``, computed with the standard
    library only (log-space sums). No decided case: p = 1.

    >>> round(sign_test_pvalue(9, 1), 6)
    0.021484
    >>> sign_test_pvalue(3, 3)
    1.0
    """
    import math

    n = wins + losses
    if n == 0:
        return 1.0
    m = min(wins, losses)
    if 2 * m == n:
        return 1.0
    logs = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) - n * math.log(2) for i in range(m + 1)]
    top = max(logs)
    tail = math.exp(top) * math.fsum(math.exp(v - top) for v in logs)
    return min(1.0, 2.0 * tail)
