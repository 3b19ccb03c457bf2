"""Examination propensities estimated from a click log by intervention harvesting (Agarwal, Zaitsev,
Wang, Li, Najork & Joachims, WSDM 2019): a (query, document) shown at several ranks — by several
rankers, or by swaps — is an intervention on its rank with its relevance held fixed, so the ratio
of its click-through rates at two ranks is the ratio of their examination probabilities.

With ctr(q, d, k) the clicks over the impressions of document d for query q at rank k, and over
the (q, d) shown at both ranks k and k' (each weighing once: no per-ranker weights),

    C(k → k') = Σ_{(q,d) at k and k'} ctr(q, d, k'),

the two estimators of ultr-bias-toolkit (Hager):

- ``'pivot'``: θ_k / θ_p = C(p → k) / C(k → p) for each rank k shown with the pivot rank p,
  normalised so that θ_1 = 1;
- ``'adjacent'``: θ_1 = 1 and θ_k = θ_{k−1} · C(k−1 → k) / C(k → k−1), a chain of
  neighbouring ranks;

``'allpairs'``, the paper's own extremum estimator (its AllPairs): every pair of ranks at once,
by maximum likelihood of the clicks under the position-based model with one relevance per pair of
ranks (the documents of S(k, k') share it, r_{k,k'} = r_{k',k}),

    max over θ, r of Σ_{k ≠ k'} C(k' → k) log(θ_k r_{k,k'}) + (N(k, k') − C(k' → k)) log(1 − θ_k r_{k,k'}),

N(k, k') the number of (q, d) shown at both ranks (each weighing once, as above), solved with
scipy's L-BFGS-B (the optional extra ``stats``) on logits and normalised to θ_1 = 1. It uses
every intervention where pivot and chain use a row or a diagonal of them; with two ranks it is
the pivot's ratio;

and, for a log whose rankings were randomised (RandTop-n: the top n shown in a uniformly random
order, so that every rank sees the same documents on average; Joachims, Swaminathan & Schnabel
2017), ``'randomized'``: θ_k = CTR(k) / CTR(1), the click-through rate of each rank over rank 1's
(ultr-bias-toolkit's ``NaiveCtrEstimator``; on a log that was not randomised it mixes relevance
into θ).

Where a ratio is undefined (no click at the reference rank on the documents the two ranks share:
ultr-bias-toolkit gives θ = 0 then, or every θ 0 when it is the normaliser), rankwise raises an
error naming the ranks; a rank never shown beside the pivot (or, for the chain, beside its
neighbour above) has no estimate and is left out — and the chain stops there (ultr-bias-toolkit
goes on from the wrong base). The result feeds :func:`rankwise.click_estimate`'s
``propensities=``.

>>> import polars as pl, rankwise as rw
>>> log = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "b", "b", "a"], "rank": [1, 2, 1, 2],
...                     "click": [1, 0, 1, 1], "impression": [1, 1, 2, 2]})
>>> rw.click_propensities(log, impression="impression").rows()  # b's one click at 2 of a and b's two at 1
[(1, 1.0), (2, 0.5)]
"""

from __future__ import annotations

from typing import Any, Literal

import polars as pl

from rankwise.clicks.log import CLICK, DOC, QUERY, RANK, read_click_log
from rankwise.conventions import Columns, checked
from rankwise.errors import InvalidParameterError, InvalidValueError, MissingExtraError

Method = Literal["pivot", "adjacent", "allpairs", "randomized"]
METHODS: tuple[str, ...] = ("pivot", "adjacent", "allpairs", "randomized")


def _harvested(rows: pl.DataFrame) -> pl.DataFrame:
    """Per ordered pair of ranks (``k0``, ``k1``) shown for a common (query, doc): C(k1 → k0)
    (``c0``, the sum of the ctr at k0) and C(k0 → k1) (``c1``, at k1)."""
    ctr = rows.group_by(QUERY, DOC, RANK).agg((pl.col(CLICK).sum() / pl.len()).alias("ctr"))
    a = ctr.rename({RANK: "k0", "ctr": "c0"})
    b = ctr.rename({RANK: "k1", "ctr": "c1"})
    return (a.join(b, on=[QUERY, DOC]).group_by("k0", "k1")
            .agg(pl.col("c0").sum(), pl.col("c1").sum(), pl.len().cast(pl.Float64).alias("n")))


def _ratio(pairs: pl.DataFrame, k0: int, k1: int, method: str) -> float:
    row = pairs.filter((pl.col("k0") == k0) & (pl.col("k1") == k1))
    c0, c1 = float(row["c0"][0]), float(row["c1"][0])
    if c0 == 0 and k0 == k1:
        raise InvalidValueError(f"the click log has no click at rank {k0}: the {method} estimate has nothing to divide by")
    if c0 == 0:
        raise InvalidValueError(
            f"the click log has no click at rank {k0} on the documents also shown at rank {k1}: the {method} "
            f"estimate of θ_{k1} / θ_{k0} is undefined (0 / 0 or x / 0)"
        )
    return c1 / c0


def _allpairs(pairs: pl.DataFrame) -> list[tuple[int, float]]:
    """Agarwal et al.'s AllPairs estimate (see the module) from the harvested pairs."""
    try:
        import numpy as np
        from scipy.optimize import minimize
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingExtraError("method='allpairs' needs numpy and scipy: pip install 'rankwise[stats]'") from exc
    off = pairs.filter(pl.col("k0") != pl.col("k1")).sort("k0", "k1")
    ranks = sorted(set(off["k0"].to_list()))
    if 1 not in ranks:
        raise InvalidValueError(
            "no document of the click log was shown both at rank 1 and at another rank: θ cannot be normalised "
            "to θ_1 = 1"
        )
    if float(off.filter(pl.col("k0") == 1)["c0"].sum()) == 0:
        raise InvalidValueError("the click log has no click at rank 1 on the documents also shown elsewhere: θ_1 = 0 "
                                "cannot normalise the allpairs estimate")
    index = {k: i for i, k in enumerate(ranks)}
    k0, k1 = off["k0"].to_numpy(), off["k1"].to_numpy()
    p_of = np.array([index[k] for k in k0])
    pair_ids = {pair: i for i, pair in enumerate(sorted({(min(a, b), max(a, b)) for a, b in zip(k0, k1, strict=True)}))}
    r_of = np.array([pair_ids[(min(a, b), max(a, b))] for a, b in zip(k0, k1, strict=True)]) + len(ranks)
    clicks, trials = off["c0"].to_numpy(), off["n"].to_numpy()

    def loss(z: Any) -> tuple[float, Any]:
        # θ = σ(z[:K]), r = σ(z[K:]); each row's click probability μ = θ_k r_{k,k'}
        s = 1.0 / (1.0 + np.exp(-z))
        mu = np.clip(s[p_of] * s[r_of], 1e-15, 1 - 1e-15)
        value = -float(np.sum(clicks * np.log(mu) + (trials - clicks) * np.log1p(-mu)))
        d_mu = -(clicks / mu - (trials - clicks) / (1 - mu))  # ∂(−log L)/∂μ per row
        grad = np.zeros_like(z)
        np.add.at(grad, p_of, d_mu * s[r_of] * s[p_of] * (1 - s[p_of]))
        np.add.at(grad, r_of, d_mu * s[p_of] * s[r_of] * (1 - s[r_of]))
        return value, grad

    start = np.zeros(len(ranks) + len(pair_ids))
    found = minimize(loss, start, jac=True, method="L-BFGS-B", options={"maxiter": 10_000, "ftol": 1e-15, "gtol": 1e-12})
    theta = 1.0 / (1.0 + np.exp(-found.x[: len(ranks)]))
    return [(k, float(theta[index[k]] / theta[index[1]])) for k in ranks]


@checked
def click_propensities(
    log: Any, *, method: str = "pivot", pivot: int = 1, impression: str | None = None, rank: str = "rank",
    click: str = "click", query_id: str = "query_id", doc_id: str = "doc_id",
) -> pl.DataFrame:
    """The examination propensity θ of each rank (``rank``, ``propensity``; θ_1 = 1) estimated
    from ``log`` by intervention harvesting (see the module: ``method='pivot'`` against the rank
    ``pivot``, ``'adjacent'``, or Agarwal et al.'s ``'allpairs'``), or from randomised rankings (``'randomized'``), as
    ultr-bias-toolkit's ``PivotEstimator``, ``AdjacentChainEstimator`` and ``NaiveCtrEstimator``
    compute it, an undefined ratio an error instead of 0. The log as
    :func:`rankwise.click_estimate` reads it (one row per shown document of an impression).

    >>> import polars as pl
    >>> log = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "b", "b", "a"], "rank": [1, 2, 1, 2],
    ...                     "click": [1, 0, 1, 0], "impression": [1, 1, 2, 2]})
    >>> click_propensities(log, impression="impression", method="adjacent").rows()
    [(1, 1.0), (2, 0.0)]
    """
    if method not in METHODS:
        raise InvalidParameterError(f"method must be one of {', '.join(map(repr, METHODS))}, got {method!r}")
    if not isinstance(pivot, int) or isinstance(pivot, bool) or pivot < 1:
        raise InvalidParameterError(f"pivot is a rank, a whole number >= 1, got {pivot!r}")
    rows = read_click_log(log, Columns(query_id=query_id, doc_id=doc_id), impression=impression, rank=rank,
                          click=click)
    if method == "randomized":
        ctr = rows.group_by(RANK).agg(pl.col(CLICK).mean().alias("propensity")).sort(RANK)
        if ctr[RANK][0] != 1 or ctr["propensity"][0] == 0:
            raise InvalidValueError("the click log has no click at rank 1: the randomized estimate has nothing to divide by")
        return ctr.select(pl.col(RANK).alias("rank"), pl.col("propensity") / ctr["propensity"][0])
    pairs = _harvested(rows)
    out: list[tuple[int, float]] = []
    if method == "pivot":
        ranks = sorted(pairs.filter(pl.col("k0") == pivot)["k1"].to_list())
        if 1 not in ranks:
            raise InvalidValueError(
                f"no document of the click log was shown both at the pivot rank {pivot} and at rank 1: θ cannot be "
                "normalised to θ_1 = 1 (choose another pivot)"
            )
        top = _ratio(pairs, pivot, 1, method)
        if top == 0:
            raise InvalidValueError(
                f"the click log has no click at rank 1 on the documents also shown at rank {pivot}: θ_1 = 0 cannot "
                "normalise the pivot estimate"
            )
        out = [(k, _ratio(pairs, pivot, k, method) / top) for k in ranks]
    elif method == "allpairs":
        out = _allpairs(pairs)
    else:
        theta, k = 1.0, 1
        out = [(1, 1.0)] if pairs.filter((pl.col("k0") == 1) & (pl.col("k1") == 1)).height else []
        while out and pairs.filter((pl.col("k0") == k) & (pl.col("k1") == k + 1)).height:
            theta *= _ratio(pairs, k, k + 1, method)
            k += 1
            out.append((k, theta))
        if not out:
            raise InvalidValueError("the click log shows nothing at rank 1: the chain of θ starts there")
    return pl.DataFrame(out, schema={"rank": pl.Int64, "propensity": pl.Float64}, orient="row")
