"""Counterfactual (inverse-propensity) estimates of a new ranking's metrics from the clicks
logged under another ranking (Joachims, Swaminathan & Schnabel, WSDM 2017).

Under the position-based (examination) model a document is clicked when it is examined and
relevant, and whether it is examined depends only on the rank it was shown at: P(click on d) =
θ(shown rank of d) · rel(d). For a metric that sums a weight over the relevant documents,
Δ(y) = Σ_{d relevant} λ(rank_y(d)), the clicks of one impression give the unbiased estimate

    IPS(y) = Σ_{d clicked} λ(rank_y(d)) / θ(shown rank of d)

(a document the new ranking y does not rank: λ = 0). The propensity is indexed by the rank the
document was SHOWN at, the new ranking enters through λ only.

rankwise writes the estimate as an evaluation: each logged query's clicks become graded
judgments, relevance(d) = the mean over the query's impressions of click(d) / θ(rank shown)
(:func:`click_judgments`; every shown document of every logged query is judged, 0 where it
was not clicked), and a metric that is linear in the relevance of the judged documents,
evaluated on the new run against them, is the mean over the query's impressions of the IPS
estimate. Those metrics are ``DCG`` and ``CG`` with ``gain='linear'`` (any discount, cutoff or
tie policy; no gain table, no relevance threshold): ``DCG@k`` estimates the binary-gain DCG@k
(1/log2(r + 1) for r ≤ k), ``CG@k`` the number of relevant documents in the top k (P@k is
CG@k / k, estimated as that: :data:`SCALED`), ``CTR@k`` the expected clicks per impression of
the new ranking's top k, Σ_{r ≤ k} θ(r) rel(d_r) (its click-through rate; a DCG whose discount is
1/θ, written as Σ_r θ(r) (CG@r − CG@r−1); under θ(r) = 1/r the same as
``DCG(discount='reciprocal')@k``, rankkit's ``weight='rr'``). nDCG, AP, RR, R, Success, ... are
not linear in the relevance (a threshold, a normaliser or a first relevant rank): their IPS is
biased, and :func:`click_estimate` refuses them.

Assumptions: the examination hypothesis (a click is examination and relevance), examination
depending on the shown rank only (no trust bias, no click noise, no cascade), θ > 0 at every
rank whose clicks count. ``clip`` floors θ (every weight ≤ 1/clip): less variance for some
bias (rankkit's ``clip``). ``estimator='naive'``: the clicks as judgments, no weights (biased
toward the logging ranking: shown for comparison).

Per query the value is the mean over the query's impressions; the estimate is the mean over
the logged queries (each query weighs the same; with one impression per query, the mean over
impressions, as rankkit's ``estimate().ips``), with its standard error (sample standard
deviation, ddof 1, over √n) and a normal (Wald) interval at ``alpha``. ``snips`` is rankkit's
self-normalised value, Σ over every click of λ w / Σ w: a mean per relevant (clicked) document,
not per query; its standard error is the delta method's over the queries (Swaminathan &
Joachims, NeurIPS 2015: the ratio R = Σ_q A_q / Σ_q B_q of each query's sums of λ w and of w,
Var R ≈ n / (n − 1) · Σ_q (A_q − R B_q)² / (Σ_q B_q)²), with its normal interval. The diagnostics are rankkit's ``diagnose``: the clicks, the Kish effective sample
size of their weights (Σw)² / Σw², the largest weight's share and the clicks clipped.

>>> import polars as pl, rankwise as rw
>>> log = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "rank": [1, 2, 3],
...                     "click": [0, 0, 1]})
>>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["c", "a", "b"], "score": [3.0, 2.0, 1.0]})
>>> result = rw.click_estimate(log, run, ["DCG@10", "CG@1"], eta=1.0)
>>> result.per_query.rows()  # c was clicked at rank 3 (θ = 1/3) and the new run ranks it first
[('q1', 3.0, 3.0)]
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Literal

import polars as pl

from rankwise.clicks.log import CLICK, DOC, IMPRESSION, QUERY, RANK, read_click_log
from rankwise.conventions import Columns, EvaluationOptions, Unpack, check_options, checked
from rankwise.errors import InvalidParameterError, InvalidValueError
from rankwise.inputs.checks import check_alpha
from rankwise.metrics.metric import Metric, make_metric
from rankwise.metrics.registry import get_spec

Estimator = Literal["ips", "naive"]
ESTIMATORS: tuple[str, ...] = ("ips", "naive")

CLICK_OPTIONS: frozenset[str] = frozenset({"ties", "max_rank", "trec_eval", "query_id", "doc_id", "score"})
"""The keyword options :func:`click_estimate` passes to the evaluation (the run's ranking and
column names); the others (``missing``, ``judged_only``, ``rel``, ...) would change what the
judgments from the clicks mean, and are refused."""

LINEAR: Mapping[str, Mapping[str, object]] = {
    "DCG": {"gain": "linear", "gains": "", "judged_only": False},
    "CG": {"gain": "linear", "gains": "", "judged_only": False},
}
"""The metrics linear in the relevance of the judged documents, and the parameter values that
keep them so (besides a relevance threshold ``rel`` ≤ 0): their IPS estimate is unbiased."""

SCALED: Mapping[str, tuple[str, Mapping[str, object]]] = {
    "P": ("CG", {"rel": 1, "denominator": "k", "judged_only": False, "empty": 0, "labels": "any"}),
}
"""The metrics that are a linear one divided by their cutoff on binary relevance, with the
parameter values that keep them so: ``P@k`` (binary: a click is relevance 1) is ``CG@k / k``,
estimated as that (its own form, a threshold on the clicks' weights, would be biased)."""

CTR = re.compile(r"ctr@(\d+)", re.IGNORECASE)
"""``CTR@k``: the expected clicks per impression on the new run's top k, Σ_{r ≤ k} θ(r) ·
rel(the document at r): a DCG whose discount is 1/θ, written as Σ_r θ(r) (CG@r − CG@r−1)."""

_W = "__w"


@dataclass(frozen=True)
class ClickEstimate:
    """The estimates of a run's metrics from a click log (:func:`click_estimate`).

    ``per_query``: one row per logged query (its id column, then a column per metric), each
    value the mean over the query's impressions. ``summary``: one row per metric — ``metric``,
    ``estimate`` (the mean over the queries), ``std_error``, ``ci_low``, ``ci_high`` (the normal
    interval at ``alpha``; NULL with one query), ``queries``, ``impressions``, ``snips`` with
    ``snips_std_error``, ``snips_ci_low``, ``snips_ci_high`` (the delta method's).
    ``diagnostics``: one row — ``clicks``, ``ess`` (Kish), ``max_weight_share``, ``clipped``,
    ``relevant_per_impression`` (Σw over the impressions: the estimated relevant documents per
    impression). ``judgments``: the judgments made from the clicks (:func:`click_judgments`),
    which :func:`rankwise.compare` takes to test two runs' estimates query by query."""

    per_query: pl.DataFrame
    summary: pl.DataFrame
    diagnostics: pl.DataFrame
    judgments: pl.DataFrame


def _theta(
    log: pl.DataFrame, eta: float | None, propensities: Mapping[int, float] | pl.DataFrame | None, column: str | None,
    what: str,
) -> pl.Expr:
    """Each row's examination probability θ (the log's column ``__theta`` when ``column``)."""
    given = [name for name, value in (("eta", eta), ("propensities", propensities), ("propensity", column))
             if value is not None]
    if len(given) > 1:
        raise InvalidParameterError(f"give one of eta=, propensities= and propensity=, not {' and '.join(given)}")
    if column is not None:
        return pl.col("__theta").cast(pl.Float64)
    if propensities is not None:
        ranks = _propensity_table(propensities)
        clicked = sorted(set(log.filter(pl.col(CLICK) == 1)[RANK].to_list()) - set(ranks))
        if clicked:
            raise InvalidValueError(f"{what} has a click at rank {clicked[0]}, which propensities= gives no θ for")
        return pl.col(RANK).replace_strict(ranks, default=None, return_dtype=pl.Float64)
    power = 1.0 if eta is None else float(eta)
    if not math.isfinite(power) or power < 0:
        raise InvalidParameterError(f"eta must be a finite number >= 0 (θ(r) = (1/r)^eta), got {eta!r}")
    return (1.0 / pl.col(RANK).cast(pl.Float64)).pow(power)


def _theta_by_rank(
    eta: float | None, propensities: Mapping[int, float] | pl.DataFrame | None, column: str | None, label: str, k: int,
) -> list[float]:
    """θ(1), ..., θ(k) for ``label`` (``CTR@k``), from the power law or the table (checked by
    :func:`_theta` for the log's own ranks before this runs)."""
    if column is not None:
        raise InvalidParameterError(
            f"{label} needs θ by rank for the new run's ranks: give eta= or propensities=, not propensity= (a θ per "
            "logged row, none for a rank the new run puts a document at)"
        )
    if propensities is None:
        power = 1.0 if eta is None else float(eta)
        return [(1.0 / r) ** power for r in range(1, k + 1)]
    table = _propensity_table(propensities)
    missing = [r for r in range(1, k + 1) if r not in table]
    if missing:
        raise InvalidValueError(f"{label} needs θ at ranks 1 to {k}: propensities= gives none for rank {missing[0]}")
    bad = [r for r in range(1, k + 1) if not 0 <= table[r] <= 1]
    if bad:
        raise InvalidValueError(f"{label}: θ must be in [0, 1], propensities= gives {table[bad[0]]!r} at rank {bad[0]}")
    return [table[r] for r in range(1, k + 1)]


def _propensity_table(propensities: Mapping[int, float] | pl.DataFrame) -> dict[int, float]:
    """``propensities=`` as {rank: θ} (a mapping, or a frame of ``rank`` and ``propensity``)."""
    table = propensities if isinstance(propensities, pl.DataFrame) else pl.DataFrame(
        {"rank": list(propensities), "propensity": list(propensities.values())}, strict=False
    )
    missing = {"rank", "propensity"} - set(table.columns)
    if missing:
        raise InvalidParameterError(f"propensities= needs the columns 'rank' and 'propensity', missing {sorted(missing)}")
    return dict(zip(table["rank"].cast(pl.Int64), table["propensity"].cast(pl.Float64), strict=True))


@checked
def click_judgments(
    log: Any, *, eta: float | None = None, propensities: Mapping[int, float] | pl.DataFrame | None = None,
    propensity: str | None = None, clip: float | None = None, estimator: str = "ips", impression: str | None = None,
    rank: str = "rank", click: str = "click", query_id: str = "query_id", doc_id: str = "doc_id",
) -> pl.DataFrame:
    """The judgments a click log gives under the position-based model: one row per (query,
    document shown), relevance = the mean over the query's impressions of click / θ(rank shown)
    (``estimator='naive'``: of the click), 0 for a shown document never clicked. θ: the power law
    (1/r)^``eta`` (default η = 1), ``propensities`` (a {rank: θ} mapping or a frame of ``rank``
    and ``propensity``) or the log's column ``propensity``; each in (0, 1], floored at ``clip``.
    A metric linear in the relevance (``DCG``, ``CG`` with linear gain) of a run against them is
    the IPS estimate of its value (Joachims et al. 2017); :func:`click_estimate` checks that.

    >>> import polars as pl
    >>> log = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "rank": [1, 2], "click": [1, 1]})
    >>> click_judgments(log, eta=1.0).rows()
    [('q1', 'a', 1.0), ('q1', 'b', 2.0)]
    """
    table, _ = _judgments(log, eta, propensities, propensity, clip, estimator, impression, rank, click,
                          Columns(query_id=query_id, doc_id=doc_id))
    return table


def _judgments(
    log: Any, eta: float | None, propensities: Mapping[int, float] | pl.DataFrame | None, propensity: str | None,
    clip: float | None, estimator: str, impression: str | None, rank: str, click: str, columns: Columns,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """:func:`click_judgments`' table, and the checked log with each row's weight (``__w``)."""
    if estimator not in ESTIMATORS:
        raise InvalidParameterError(f"estimator must be one of {', '.join(map(repr, ESTIMATORS))}, got {estimator!r}")
    if clip is not None and not (isinstance(clip, (int, float)) and 0 < clip <= 1):
        raise InvalidParameterError(f"clip is a floor on θ, in (0, 1], got {clip!r}")
    what = "the click log"
    rows = read_click_log(log, columns, impression=impression, rank=rank, click=click,
                          extra={"__theta": propensity} if propensity is not None else None, what=what)
    rows = rows.with_columns(_theta(rows, eta, propensities, propensity, what).alias("__theta"))
    bad = rows.filter((pl.col(CLICK) == 1) & ~((pl.col("__theta") > 0) & (pl.col("__theta") <= 1)))
    if bad.height:
        raise InvalidValueError(
            f"θ must be in (0, 1] where a click counts: impression {bad[IMPRESSION][0]!r}, rank {bad[RANK][0]} "
            f"has θ = {bad['__theta'][0]!r}"
        )
    floor = pl.col("__theta") if clip is None else pl.max_horizontal(pl.col("__theta"), pl.lit(float(clip)))
    weight = pl.lit(1.0) if estimator == "naive" else 1.0 / floor
    rows = rows.with_columns(
        pl.when(pl.col(CLICK) == 1).then(weight).otherwise(0.0).alias(_W),
        (pl.col(CLICK) == 1).and_(pl.lit(clip is not None)).and_(pl.col("__theta") < (clip or 0.0)).alias("__clipped"),
    )
    impressions = rows.group_by(QUERY).agg(pl.col(IMPRESSION).n_unique().cast(pl.Float64).alias("__n"))
    table = (
        rows.group_by(QUERY, DOC).agg(pl.col(_W).sum()).join(impressions, on=QUERY)
        .select(pl.col(QUERY).alias(columns.query_id), pl.col(DOC).alias(columns.doc_id),
                (pl.col(_W) / pl.col("__n")).alias("relevance"))
        .sort(columns.query_id, columns.doc_id)
    )
    return table, rows


@dataclass(frozen=True)
class _Combination:
    """A requested metric as Σ weight · part over metrics linear in the relevance, evaluated on
    the judgments from the clicks (each part's IPS estimate is unbiased, so is the sum's)."""

    label: str
    parts: tuple[Metric, ...]
    weights: tuple[float, ...]


def _linear(metric: Metric) -> _Combination:
    """``metric`` as a combination of linear metrics, or refused: one whose IPS is biased."""
    params = metric.resolve()
    need = LINEAR.get(metric.spec.name)
    if need is not None and all(params.get(k) == v for k, v in need.items()) and float(params.get("rel", 0)) <= 0:  # type: ignore[arg-type]
        return _Combination(metric.label, (metric,), (1.0,))
    scaled = SCALED.get(metric.spec.name)
    if scaled is not None and all(params.get(k) == v for k, v in scaled[1].items()) and metric.cutoff is not None:
        kept = {k: v for k, v in metric.params if k not in scaled[1]}
        part = make_metric(get_spec(scaled[0]), kept, metric.cutoff)
        return _Combination(metric.label, (part,), (1.0 / metric.cutoff,))
    raise InvalidParameterError(
        f"{metric.label}: an inverse-propensity estimate is unbiased only for a metric linear in the relevance of "
        "the clicked documents (a sum of a weight per relevant document): DCG or CG with gain='linear' (no gains "
        "table, rel <= 0, judged_only=False), P@k (CG@k / k) or CTR@k (the expected clicks)"
    )


def _ctr(label: str, k: int, theta: list[float]) -> _Combination:
    """``CTR@k`` = Σ_{r ≤ k} θ(r) (CG@r − CG@r−1) = Σ_{r < k} (θ(r) − θ(r+1)) CG@r + θ(k) CG@k."""
    cg = get_spec("CG")
    weights = [theta[r - 1] - (theta[r] if r < k else 0.0) for r in range(1, k + 1)]
    return _Combination(label, tuple(make_metric(cg, None, r) for r in range(1, k + 1)), tuple(weights))


def _combinations(
    metrics: str | Metric | Sequence[str | Metric], eta: float | None,
    propensities: Mapping[int, float] | pl.DataFrame | None, column: str | None,
) -> list[_Combination]:
    """Each requested metric (in the order given) as a combination of linear metrics."""
    from rankwise.names.parse import parse_metrics

    if not isinstance(metrics, (str, Metric, Sequence)):
        parse_metrics(metrics)  # raises the error every entry point gives for a wrong type
    items = [metrics] if isinstance(metrics, (str, Metric)) else list(metrics)
    out: list[_Combination] = []
    for item in items:
        ctr = CTR.fullmatch(item.strip()) if isinstance(item, str) else None
        if ctr is not None:
            label, k = ctr.string, int(ctr.group(1))
            if k < 1:
                raise InvalidParameterError(f"{label}: the cutoff must be at least 1")
            out.append(_ctr(label, k, _theta_by_rank(eta, propensities, column, label, k)))
        else:
            out += [_linear(m) for m in parse_metrics(item)]
    if not out:
        raise InvalidParameterError("no metric given")
    return out


def _check_click_options(function: str, options: Mapping[str, Any]) -> None:
    check_options(function, options, CLICK_OPTIONS)


@checked
def click_estimate(
    log: Any, run: Any, metrics: str | Metric | Sequence[str | Metric], *, eta: float | None = None,
    propensities: Mapping[int, float] | pl.DataFrame | None = None, propensity: str | None = None,
    clip: float | None = None, estimator: str = "ips", alpha: float = 0.05, engine: str = "polars",
    impression: str | None = None, rank: str = "rank", click: str = "click", **options: Unpack[EvaluationOptions],
) -> ClickEstimate:
    """The inverse-propensity estimates of ``run``'s ``metrics`` from the clicks of ``log``
    (logged under another ranking): see the module for the model, the formula and what each
    field means. ``metrics``: ``DCG`` or ``CG`` with linear gain, ``P@k``, ``CTR@k`` (others are
    refused);
    ``engine``: ``'polars'`` or ``'duckdb'``; ``options``: the run's ``ties``, ``max_rank``,
    ``trec_eval`` and column names (``query_id``, ``doc_id``, ``score``; the log's id columns too).

    >>> import polars as pl, rankwise as rw
    >>> log = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "x", "y"],
    ...                     "rank": [1, 2, 1, 2], "click": [1, 0, 0, 1]})
    >>> run = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["b", "a", "y", "x"],
    ...                     "score": [2.0, 1.0, 2.0, 1.0]})
    >>> rw.click_estimate(log, run, "CG@1").summary.select("metric", "estimate").rows()
    [('CG@1', 1.0)]
    """
    from rankwise.evaluation.evaluate import evaluate

    _check_click_options("click_estimate", options)
    check_alpha(alpha)
    combinations = _combinations(metrics, eta, propensities, propensity)
    parts = list({m.label: m for c in combinations for m in c.parts}.values())
    columns = Columns.from_options(options)
    judged, rows = _judgments(log, eta, propensities, propensity, clip, estimator, impression, rank, click, columns)
    evaluated = evaluate(judged, run, parts, engine=engine, **{**options, "missing": "zero"})  # type: ignore[arg-type]
    per_query = evaluated.select(columns.query_id, *(
        pl.sum_horizontal(pl.col(m.label) * w for m, w in zip(c.parts, c.weights, strict=True)).alias(c.label)
        for c in combinations
    ))
    labels = [c.label for c in combinations]
    counts = rows.group_by(QUERY).agg(
        pl.col(IMPRESSION).n_unique().cast(pl.Float64).alias("__n"), pl.col(_W).sum().alias("__b")
    )
    weighted = per_query.join(counts.rename({QUERY: columns.query_id}), on=columns.query_id, how="left")
    clicks = rows.filter(pl.col(CLICK) == 1)
    total_w = float(clicks[_W].sum())
    z = NormalDist().inv_cdf(1 - alpha / 2)
    summary = []
    n = per_query.height
    for label in labels:
        values = per_query[label]
        mean = float(values.mean())  # type: ignore[arg-type]
        se = float(values.std(ddof=1)) / math.sqrt(n) if n > 1 else None  # type: ignore[arg-type]
        # each query's Σ λ w over its clicks (its per-impression mean times its impressions) and Σ w
        a, b = weighted[label] * weighted["__n"], weighted["__b"]
        snips = float(a.sum()) / total_w if total_w > 0 else 0.0
        sn_se = (
            math.sqrt(n / (n - 1) * float(((a - snips * b) ** 2).sum())) / total_w if n > 1 and total_w > 0 else None
        )
        summary.append({
            "metric": label, "estimate": mean, "std_error": se,
            "ci_low": None if se is None else mean - z * se, "ci_high": None if se is None else mean + z * se,
            "queries": n, "impressions": int(counts["__n"].sum()), "snips": snips, "snips_std_error": sn_se,
            "snips_ci_low": None if sn_se is None else snips - z * sn_se,
            "snips_ci_high": None if sn_se is None else snips + z * sn_se,
        })
    squared = float((clicks[_W] ** 2).sum())
    diagnostics = pl.DataFrame([{
        "clicks": clicks.height, "ess": total_w * total_w / squared if squared > 0 else 0.0,
        "max_weight_share": float(clicks[_W].max()) / total_w if total_w > 0 else 0.0,  # type: ignore[arg-type]
        "clipped": int(rows["__clipped"].sum()),
        "relevant_per_impression": total_w / rows[IMPRESSION].n_unique(),
    }])
    schema = {"metric": pl.String, "estimate": pl.Float64, "std_error": pl.Float64, "ci_low": pl.Float64,
              "ci_high": pl.Float64, "queries": pl.Int64, "impressions": pl.Int64, "snips": pl.Float64,
              "snips_std_error": pl.Float64, "snips_ci_low": pl.Float64, "snips_ci_high": pl.Float64}
    return ClickEstimate(per_query, pl.DataFrame(summary, schema=schema), diagnostics, judged)
