"""Prediction-powered inference (PPI, Angelopoulos et al., Science 2023; PPI++, Angelopoulos,
Duchi & Zrnic 2023): a run's metric estimated from many queries judged by a model (a language
model's judgments) and a few judged by people too, with a valid confidence interval.

Per query the metric is evaluated twice, by rankwise's own evaluation: against the human
judgments (``Y``, on the n human-judged queries) and against the model's (``Ŷ`` on the same n
queries, ``Ŷᵤ`` on the N queries only the model judged). With λ ∈ [0, 1]:

    θ̂ = mean(λ Ŷᵤ) + mean(Y − λ Ŷ)
    se² = var₀(λ Ŷᵤ) / N + var₀(Y − λ Ŷ) / n          (var₀: the variance with divisor n, ddof 0)
    interval: θ̂ ± z₁₋α/₂ · se                         (Wald, normal)

``tuned=False`` is classic PPI (λ = 1); ``tuned=True`` PPI++'s power tuning, λ̂ = cov₀(Y, Ŷ) /
((1 + n/N) · var₁(Ŷ ∪ Ŷᵤ)) clipped to [0, 1] (var₁ with divisor n + N − 1 over the n + N model
values): exactly ppi-python 0.2.3's ``ppi_mean_pointestimate`` and ``ppi_mean_ci`` (``lam=1``,
``lam=None``). Where the model's values are all equal (var₁ = 0), λ̂ is 0/0 (ppi-python gives
NaN): rankwise takes λ = 0, the human-only estimate. λ = 0 is the classical interval, mean(Y) ±
z · std₀(Y)/√n (ppi-python's ``classical_mean_ci``), which every row shows beside.

``effective_n``: the number of human-judged queries the estimate is worth, Broska, Howes & van
Loon's (2024) ``round(n (n + N) / (n + (1 − ρ²) N))`` as ppi-python's power analysis computes it
(ρ = cor₀(Y, Ŷ) on the human-judged queries, capped at 1 − 1/n; ρ = 0 where Y or Ŷ is constant),
evaluated at the data's n and N. (The ratio of the squared widths, ``n_human · ((classical_high −
classical_low) / (ci_high − ci_low))²``, is another reading of the same gain.)

Assumptions: the human-judged queries are a random sample of the queries (each query equally
likely to be judged by people), drawn independently of the model's judgments, and the model's
judgments were made without seeing the human ones. A query judged by people must be judged by
the model too (its Ŷ is needed); the model-only queries are the other ones (the two sets are
disjoint, as ppi-python assumes).

Model judgments may be probabilities (a float relevance per document, PRECISE, Divekar &
Majumder 2026): a metric linear in the labels is then the expectation of the metric over the
model's per-document relevance (``CG@k``, ``DCG@k`` with its default linear gain; ``CG@k / k``
is the expected P@k), while a metric with a relevance threshold, a normaliser or a first
relevant rank (``P@k``, ``nDCG``, ``AP``, ``RR``) is the metric of the thresholded or weighted
labels, not an expectation.

>>> import polars as pl, rankwise as rw
>>> human = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "c"], "relevance": [1, 1]})
>>> model = pl.DataFrame({"query_id": ["q1", "q2", "q3", "q4"], "doc_id": ["a", "d", "e", "f"],
...                       "relevance": [1, 1, 1, 1]})
>>> run = pl.DataFrame({"query_id": ["q1", "q2", "q3", "q4"], "doc_id": ["a", "c", "e", "x"],
...                     "score": [1.0, 1.0, 1.0, 1.0]})
>>> rw.ppi(human, model, run, "P@1", tuned=False).select("estimate", "n_human", "n_model").rows()
[(1.0, 2, 2)]
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import Any

import polars as pl

from rankwise.conventions import Columns, ReadOptions, Unpack, checked
from rankwise.errors import InvalidParameterError, InvalidValueError, RankwiseWarning
from rankwise.evaluation.evaluate import Engine
from rankwise.inputs.checks import check_alpha
from rankwise.inputs.read import FileFormat
from rankwise.metrics.metric import Metric

SCHEMA: dict[str, type[pl.DataType]] = {
    "metric": pl.String, "estimate": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64,
    "classical_estimate": pl.Float64, "classical_low": pl.Float64, "classical_high": pl.Float64,
    "n_human": pl.Int64, "n_model": pl.Int64, "lam": pl.Float64, "effective_n": pl.Int64,
}
"""The columns of :func:`ppi`'s result, in order."""


@dataclass(frozen=True)
class Inference:
    """One metric's prediction-powered inference (:func:`ppi_mean`): the estimate and its Wald
    interval, the classical (human-only) estimate and interval, λ, the effective n."""

    estimate: float
    ci_low: float
    ci_high: float
    classical_estimate: float
    classical_low: float
    classical_high: float
    n_human: int
    n_model: int
    lam: float
    effective_n: int


def _mean(xs: Sequence[float]) -> float:
    return math.fsum(xs) / len(xs)


def _var0(xs: Sequence[float]) -> float:
    """The variance with divisor len(xs) (numpy's ``.std() ** 2``)."""
    m = _mean(xs)
    return math.fsum((x - m) ** 2 for x in xs) / len(xs)


def _cov0(xs: Sequence[float], ys: Sequence[float]) -> float:
    mx, my = _mean(xs), _mean(ys)
    return math.fsum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / len(xs)


def tuned_lambda(y: Sequence[float], yhat: Sequence[float], yhat_u: Sequence[float]) -> float:
    """PPI++'s λ̂ = cov₀(Y, Ŷ) / ((1 + n/N) · var₁(Ŷ ∪ Ŷᵤ)) clipped to [0, 1]; 0 where the
    model's values are all equal (ppi-python: NaN).

    >>> tuned_lambda([0.0, 1.0], [0.0, 1.0], [0.0, 1.0])  # 0.25 / ((1 + 2/2) · 1/3)
    0.375
    """
    n, big_n = len(y), len(yhat_u)
    pooled = [*yhat, *yhat_u]
    var1 = _var0(pooled) * len(pooled) / (len(pooled) - 1)
    if var1 == 0:
        return 0.0
    return min(1.0, max(0.0, _cov0(y, yhat) / ((1 + n / big_n) * var1)))


def effective_n(y: Sequence[float], yhat: Sequence[float], n_model: int) -> int:
    """Broska et al.'s effective number of human labels, ``round(n (n + N) / (n + (1 − ρ²) N))``
    at the data's n and N (ρ: :func:`_correlation`), as ppi-python's power analysis.

    >>> effective_n([0.0, 1.0, 2.0], [0.0, 1.0, 2.0], 6)  # ρ = 1 capped at 2/3: 27 / (3 + 6 · 5/9)
    4
    """
    n = len(y)
    rho = _correlation(y, yhat)
    return round(n * (n + n_model) / (n + (1 - rho**2) * n_model))


def _correlation(y: Sequence[float], yhat: Sequence[float]) -> float:
    """ρ = cov₀(Y, Ŷ) / (std₀(Y) std₀(Ŷ)) capped at 1 − 1/n (ppi-python's ``_get_ppi_corr``);
    0 where Y or Ŷ is constant (there ppi-python gives NaN)."""
    spread = math.sqrt(_var0(y) * _var0(yhat))
    if spread == 0:
        return 0.0
    return min(_cov0(y, yhat) / spread, 1 - 1 / len(y))


def ppi_mean(
    y: Sequence[float], yhat: Sequence[float], yhat_u: Sequence[float], *, alpha: float = 0.05, tuned: bool = True,
) -> Inference:
    """The prediction-powered estimate of a mean from ``y`` (human values) and ``yhat`` (the
    model's on the same queries) and ``yhat_u`` (the model's on the other queries): see the
    module for the formulas. Needs n ≥ 1 and N ≥ 1 (:func:`ppi` checks).

    >>> r = ppi_mean([1.0, 0.0], [1.0, 0.0], [1.0, 1.0], alpha=0.05, tuned=False)
    >>> r.estimate, r.classical_estimate
    (1.0, 0.5)
    """
    n, big_n = len(y), len(yhat_u)
    lam = tuned_lambda(y, yhat, yhat_u) if tuned else 1.0
    z = NormalDist().inv_cdf(1 - alpha / 2)
    rectified = [a - lam * b for a, b in zip(y, yhat, strict=True)]
    imputed = [lam * b for b in yhat_u]
    estimate = _mean(imputed) + _mean(rectified)
    se = math.sqrt(_var0(imputed) / big_n + _var0(rectified) / n)
    classical = _mean(y)
    classical_se = math.sqrt(_var0(y) / n)
    return Inference(
        estimate, estimate - z * se, estimate + z * se, classical, classical - z * classical_se,
        classical + z * classical_se, n, big_n, lam, effective_n(y, yhat, big_n),
    )


def _queries(qrels: pl.DataFrame, query_id: str) -> set[Any]:
    return set(qrels[query_id].unique().to_list())


def _shown(ids: Iterable[Any], most: int = 5) -> str:
    listed = sorted(ids, key=str)
    more = f" and {len(listed) - most} more" if len(listed) > most else ""
    return ", ".join(repr(q) for q in listed[:most]) + more


def _values(per_query: pl.DataFrame, query_id: str, label: str, judgments: str) -> dict[Any, float]:
    """A metric's value per query; an undefined (NULL) value is an error naming the query."""
    undefined = per_query.filter(pl.col(label).is_null())
    if undefined.height:
        raise InvalidValueError(
            f"{label} is undefined (NULL) for query {undefined[query_id][0]!r} under the {judgments} judgments: "
            "prediction-powered inference needs a value for every query"
        )
    return dict(zip(per_query[query_id].to_list(), per_query[label].cast(pl.Float64).to_list(), strict=True))


def _paired(values: list[dict[Any, float]]) -> list[Any]:
    """The queries scored for the run (and the baseline: the same ones, else an error naming them)."""
    scored = set(values[0])
    if len(values) == 2 and set(values[1]) != scored:
        raise InvalidValueError(
            f"the run and the baseline score different queries: {_shown(scored ^ set(values[1]))} "
            "(missing='zero' scores a query a run lacks 0)"
        )
    return sorted(scored, key=str)


def _differences(values: list[dict[Any, float]], ids: list[Any]) -> list[float]:
    """Each query's value (run − baseline with a baseline)."""
    return [values[0][q] - values[1][q] if len(values) == 2 else values[0][q] for q in ids]


_NOT_A_MEAN: dict[str, str] = {
    "set": "a set-level metric, one value per run",
    "gmean": "its summary is a geometric mean over the queries",
    "sum": "a count, summed over the queries",
    "none": "a string per query, no summary",
}
"""Why a metric whose summary is not the mean of its per-query values cannot be estimated, by
its spec's ``aggregate``."""

@checked
def ppi(
    human_qrels: Any, model_qrels: Any, run: Any, metrics: str | Metric | Sequence[str | Metric], *,
    alpha: float = 0.05, tuned: bool = True, baseline: Any = None, engine: Engine = "polars",
    qrels_format: FileFormat | None = None, run_format: FileFormat | None = None, **options: Unpack[ReadOptions],
) -> pl.DataFrame:
    """Prediction-powered estimates of ``run``'s ``metrics`` from ``model_qrels`` (many queries,
    a model's judgments; relevance may be a probability) checked on ``human_qrels`` (a random
    sample of those queries judged by people): see the module for the formulas and assumptions.

    ``tuned``: PPI++ (λ̂ from the data, clipped to [0, 1]; True) or classic PPI (λ = 1).
    ``alpha``: the intervals' level is 1 − alpha (ppi-python's default is 0.1; rankwise's 0.05).
    ``baseline``: a second run; the inference is then on the per-query differences run −
    baseline (paired: both runs evaluated on the same queries against the same judgments).
    ``engine``: ``'polars'`` or ``'duckdb'``; ``options``: the conventions and column names of
    :func:`rankwise.evaluate` (each qrels read with the same ones; ``qrels_format``, ``run_format``
    as there, for both qrels, for the run and the baseline). Queries the run lacks are
    scored or left out as ``missing=`` says, on both sides alike.

    One row per metric: ``metric``; ``estimate``, ``ci_low``, ``ci_high`` (the PPI estimate and
    its interval); ``classical_estimate``, ``classical_low``, ``classical_high`` (from the human
    judgments alone); ``n_human`` (n, queries judged by people), ``n_model`` (N, queries judged by
    the model only); ``lam`` (λ used); ``effective_n`` (Broska et al.'s effective number of human
    labels). A human-judged query missing from the model's judgments, no human-judged query, no
    model-only query, a set-level metric or ``alpha`` outside (0, 1) is an error naming it.
    """
    from rankwise.evaluation.evaluator import BaseEvaluator
    from rankwise.names.parse import parse_metrics

    check_alpha(alpha)
    parsed = parse_metrics(metrics)
    for m in parsed:
        if m.spec.aggregate != "mean" or m.spec.value_type != "float":
            what = _NOT_A_MEAN.get(m.spec.aggregate, f"aggregated as {m.spec.aggregate!r}")
            raise InvalidParameterError(
                f"{m.label} is not a mean of per-query values ({what}): prediction-powered inference estimates a mean "
                "over queries"
            )
    query_id = Columns.from_options(options).query_id
    human = BaseEvaluator(human_qrels, parsed, engine=engine, qrels_format=qrels_format, **options)  # type: ignore[arg-type]
    model = BaseEvaluator(model_qrels, parsed, engine=engine, qrels_format=qrels_format, **options)  # type: ignore[arg-type]
    human_ids, model_ids = _queries(human.qrels, query_id), _queries(model.qrels, query_id)
    if not human_ids:
        raise InvalidValueError("the human judgments judge no query: prediction-powered inference needs some")
    unjudged = human_ids - model_ids
    if unjudged:
        raise InvalidValueError(
            f"the model judgments lack the human-judged quer{'y' if len(unjudged) == 1 else 'ies'} {_shown(unjudged)}: "
            "every query judged by people must be judged by the model too"
        )
    runs = [run] if baseline is None else [run, baseline]
    with warnings.catch_warnings():
        # the model-only queries have no human judgments: expected, not worth a warning
        warnings.filterwarnings("ignore", message=".*no judgments in the qrels", category=RankwiseWarning)
        human_values = [human(r, run_format=run_format) for r in runs]
    model_values = [model(r, run_format=run_format) for r in runs]
    rows = []
    for m in parsed:
        label = m.label
        ys = [_values(v, query_id, label, "human") for v in human_values]
        yhats = [_values(v, query_id, label, "model") for v in model_values]
        labelled = _paired(ys)
        unlabelled = sorted(set(_paired(yhats)) - human_ids, key=str)
        if not labelled:
            raise InvalidValueError(
                "no human-judged query is scored (the run has none of them; missing='zero' scores them 0)"
            )
        if not unlabelled:
            raise InvalidValueError(
                "no query is judged by the model only: prediction-powered inference needs model-only queries "
                "beside the human-judged ones (N = 0)"
            )
        absent = [q for q in labelled if q not in yhats[0]]
        if absent:
            raise InvalidValueError(f"the model judgments give no {label} for the human-judged queries {_shown(absent)}")
        result = ppi_mean(_differences(ys, labelled), _differences(yhats, labelled), _differences(yhats, unlabelled),
                          alpha=alpha, tuned=tuned)
        rows.append({"metric": label, **asdict(result)})
    return pl.DataFrame(rows, schema=SCHEMA)
