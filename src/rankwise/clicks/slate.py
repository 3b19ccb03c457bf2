"""Policy-ratio (slate) estimates of a new ranking policy's expected clicks from a click log
logged under a randomised ranking policy, as Open Bandit Pipeline's slate estimators
(``obp.ope``; Saito et al.): :func:`slate_estimate`.

The log has one row per shown document of a slate (an impression): the slate id, the rank shown
(1 = top; obp's ``position`` is rank − 1), the click (obp's ``reward``) and the probabilities the
estimator weighs by, of the logging policy π_b (``pscore``) and of the evaluation policy π_e
(``evaluation_policy_pscore``), or instead of the latter a deterministic new ranking (a run: π_e
∈ {0, 1}). Each row's weight is w = π_e / π_b of

- ``sips`` (standard slate IPS, obp's ``SlateStandardIPS``): the whole slate (constant within a
  slate; no assumption on how users click);
- ``iips`` (independent IPS, ``SlateIndependentIPS``; Li et al. 2018's item-position model):
  the document at that position (a click depends on the document and its position only);
- ``rips`` (reward-interaction IPS, ``SlateRewardInteractionIPS``; McInerney et al. 2020's
  cascade): the top-l prefix down to that position (non-increasing down a slate).

A slate's value is Σ over its rows of click · w, the estimate the mean over the slates (the
expected clicks per slate under π_e), its standard error the sample standard deviation (ddof 1)
of the slate values over √n and a normal interval at ``alpha``. The self-normalised forms
(``snsips``, ``sniips``, ``snrips``: obp's ``SelfNormalizedSlate...IPS``, GitHub source 0.5.5)
divide each weight by the mean weight, over all rows (``snsips``) or over the rows at the same
rank (``sniips``, ``snrips``; where that mean is 0 the rows count 0, obp gives NaN); their
standard error is the delta method's over the slates: with per group g (all rows, or a rank) A_g
= Σ click · w, B_g = Σ w, n_g rows and R_g = A_g / B_g, each slate's linearised value is ψ_s =
Σ_g (n_g / S) (a_{s,g} − R_g b_{s,g}) / B_g and Var ≈ S / (S − 1) Σ_s ψ_s² (S slates).

With a run (``run=``) as the evaluation policy the weights are 1/π_b where the run agrees with the
slate and 0 elsewhere: ``iips`` counts the clicks on documents the run puts at the rank they were
shown at, ``rips`` those whose whole prefix the run reproduces, ``sips`` the slates it reproduces
whole. ``resamples=``: obp's ``estimate_interval`` too, the percentile bootstrap of the slate
values' mean (numpy's ``RandomState(seed).choice``, as obp draws it).

Both engines (``engine='polars'`` or ``'duckdb'``) compute the weights, the normalisers and the
slate values as joins and group-bys on the same checked log; the summary is computed once from
the slate values.

>>> import polars as pl
>>> log = pl.DataFrame({"impression": [1, 1, 2, 2], "doc_id": ["a", "b", "a", "b"], "rank": [1, 2, 1, 2],
...                     "click": [1, 0, 0, 1], "pscore_item_position": [0.5, 0.5, 0.5, 0.25],
...                     "evaluation_policy_pscore_item_position": [1.0, 0.0, 0.5, 0.5]})
>>> result = slate_estimate(log, estimator="iips", impression="impression")
>>> result.per_slate.rows()
[(1, 2.0), (2, 2.0)]
>>> result.summary.select("estimator", "estimate", "slates").rows()
[('iips', 2.0, 2)]
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import polars as pl

from rankwise.clicks.interleaving import numpy, ranked_lists
from rankwise.clicks.log import CLICK, DOC, IMPRESSION, QUERY, RANK, read_click_log
from rankwise.comparison.statistics import check_resampling
from rankwise.conventions import Columns, EvaluationOptions, Unpack, check_options, checked
from rankwise.errors import (
    ColumnTypeError,
    InvalidParameterError,
    InvalidValueError,
    MissingColumnError,
    pass_hint,
)
from rankwise.inputs.checks import check_alpha
from rankwise.inputs.read import duckdb_arrow, to_frame

SLATE_ESTIMATORS: tuple[str, ...] = ("sips", "iips", "rips", "snsips", "sniips", "snrips")
"""The estimators, by obp's names (``sn``: self-normalised)."""

PSCORE: Mapping[str, str] = {"sips": "pscore", "iips": "pscore_item_position", "rips": "pscore_cascade"}
"""The logging policy's probability column each estimator reads by default (obp's argument
names); the evaluation policy's is ``evaluation_policy_`` and the same name."""

SLATE_OPTIONS: frozenset[str] = frozenset({"ties", "trec_eval", "query_id", "doc_id", "score", "run_format"})
"""The keyword options :func:`slate_estimate` takes (the run's ranking and column names)."""

_PB, _PE, _W, _V, _L = "pscore", "evaluation_pscore", "__w", "__v", "__lin"
"""The checked log's probability columns (named as the keywords that name them in the log: the
missing-column hints name those keywords), each row's weight, value and linearised value."""


@dataclass(frozen=True)
class SlateEstimate:
    """A slate estimate (:func:`slate_estimate`).

    ``per_slate``: one row per slate, sorted by its id: the slate id column, then ``value`` (Σ
    click · weight over its rows; their mean is the estimate; two policies' values on the same log
    pair up by slate). ``summary``: one row — ``estimator``, ``estimate``, ``std_error``,
    ``ci_low``, ``ci_high`` (the normal interval at ``alpha``; NULL with one slate), ``slates``,
    ``clicks``, ``matched`` (rows with a nonzero weight), and with ``resamples`` obp's bootstrap
    ``boot_mean``, ``boot_ci_low``, ``boot_ci_high``."""

    per_slate: pl.DataFrame
    summary: pl.DataFrame


def _base(estimator: str) -> str:
    return estimator.removeprefix("sn")


def _check_probabilities(rows: pl.DataFrame, estimator: str, names: Mapping[str, str], what: str) -> None:
    """Each probability column numeric, π_b in (0, 1], π_e in [0, 1], constant within a slate
    (``sips``) or non-increasing down it (``rips``), as obp's ``check_*_inputs`` validate."""
    base = _base(estimator)
    for key, name in names.items():
        if not rows.schema[key].is_numeric():
            raise ColumnTypeError(f"{what}'s probability column {name!r} must be numbers, found type {rows.schema[key]}")
    for key, name in names.items():
        low_open = key == _PB
        bad = rows.filter(~((pl.col(key) > 0) if low_open else (pl.col(key) >= 0)) | (pl.col(key) > 1)
                          | pl.col(key).is_nan())
        if bad.height:
            raise InvalidValueError(
                f"{what}'s probability column {name!r} must be in {'(0, 1]' if low_open else '[0, 1]'}: slate "
                f"{bad[IMPRESSION][0]!r}, rank {bad[RANK][0]} has {bad[key][0]!r}"
            )
    if base == "sips":  # the first slate (by id) whose rows disagree
        spread = rows.group_by(IMPRESSION).agg(
            *(pl.col(key).min().alias(f"{key}_min") for key in names), *(pl.col(key).max().alias(f"{key}_max") for key in names)
        ).sort(IMPRESSION)
        for key, name in names.items():
            mixed = spread.filter(pl.col(f"{key}_min") != pl.col(f"{key}_max"))
            if mixed.height:
                slate = mixed[IMPRESSION][0]
                values = rows.filter(pl.col(IMPRESSION) == slate)[key].unique().sort().to_list()
                raise InvalidValueError(
                    f"sips weighs by the whole slate's probability, one per slate: {what}'s column {name!r} has "
                    f"{values} in slate {slate!r}"
                )
    if base == "rips":  # non-increasing down a slate: no rise from one rank to the next shown
        ordered = rows.select(IMPRESSION, RANK, *names).sort(IMPRESSION, RANK)
        same = pl.col(IMPRESSION) == pl.col(IMPRESSION).shift(1)
        for key, name in names.items():
            up = ordered.filter(same & (pl.col(key) > pl.col(key).shift(1)))
            if up.height:
                raise InvalidValueError(
                    f"rips weighs by the top-l prefix's probability, which cannot increase down a slate: {what}'s "
                    f"column {name!r} rises to {up[key][0]!r} at rank {up[RANK][0]} of slate {up[IMPRESSION][0]!r}"
                )


# ------------------------------------------------------------------------------------- Polars

def _polars(rows: pl.DataFrame, ranks: pl.DataFrame | None, estimator: str) -> pl.DataFrame:
    """The slate values (``__i``, ``value``, ``__lin``, ``matched``) on Polars."""
    lf = rows.lazy()
    base = _base(estimator)
    if ranks is not None:
        agree = (pl.col("__rr") == pl.col(RANK)).fill_null(False)
        lf = lf.join(ranks.lazy(), on=[QUERY, DOC], how="left").with_columns(agree.alias("__m")).sort(IMPRESSION, RANK)
        if base == "sips":
            pe = pl.col("__m").all().over(IMPRESSION)
        elif base == "rips":
            pe = (~pl.col("__m")).cast(pl.Int64).cum_sum().over(IMPRESSION) == 0
        else:
            pe = pl.col("__m")
        lf = lf.with_columns(pe.cast(pl.Float64).alias(_PE))
    lf = lf.with_columns((pl.col(_PE) / pl.col(_PB)).alias(_W))
    slates = pl.col(IMPRESSION).n_unique().cast(pl.Float64)
    if estimator.startswith("sn"):
        group = pl.lit(0) if base == "sips" else pl.col(RANK)
        lf = lf.with_columns(group.alias("__g"))
        groups = lf.group_by("__g").agg(
            (pl.col(CLICK) * pl.col(_W)).sum().alias("__a"), pl.col(_W).sum().alias("__b"), pl.len().alias("__n"),
        )
        lf = lf.join(groups, on="__g").with_columns(slates.alias("__s"))
        norm = pl.col("__b") > 0
        lf = lf.with_columns(
            pl.when(norm).then(pl.col(CLICK) * pl.col(_W) * pl.col("__n") / pl.col("__b")).otherwise(0.0).alias(_V),
            pl.when(norm).then(
                pl.col("__n") / pl.col("__s") * (pl.col(CLICK) * pl.col(_W) - pl.col("__a") / pl.col("__b") * pl.col(_W))
                / pl.col("__b")
            ).otherwise(0.0).alias(_L),
        )
    else:
        lf = lf.with_columns((pl.col(CLICK) * pl.col(_W)).alias(_V), pl.lit(0.0).alias(_L))
    return lf.group_by(IMPRESSION).agg(
        pl.col(_V).sum().alias("value"), pl.col(_L).sum().alias(_L), (pl.col(_W) > 0).sum().cast(pl.Int64).alias("matched"),
    ).collect()


# ------------------------------------------------------------------------------------- DuckDB

def _duckdb(rows: pl.DataFrame, ranks: pl.DataFrame | None, estimator: str) -> pl.DataFrame:
    """The slate values (``__i``, ``value``, ``__lin``, ``matched``) on DuckDB."""
    import duckdb

    base = _base(estimator)
    con = duckdb.connect()
    try:
        con.register("log", rows.rename({_PB: "__pb", _PE: "__pe"}, strict=False).to_arrow())
        if ranks is not None:
            con.register("ranks", ranks.to_arrow())
            agree = "coalesce(r.__rr = l.__r, false)"
            pe = {
                "sips": f"bool_and({agree}) OVER (PARTITION BY l.__i)",
                "rips": f"sum(CASE WHEN {agree} THEN 0 ELSE 1 END) OVER (PARTITION BY l.__i ORDER BY l.__r) = 0",
                "iips": agree,
            }[base]
            source = f"""SELECT l.__i, l.__r, l.__c, l.__pb, ({pe})::DOUBLE AS __pe
                         FROM log l LEFT JOIN ranks r ON r.__q = l.__q AND r.__d = l.__d"""
        else:
            source = "SELECT __i, __r, __c, __pb, __pe::DOUBLE AS __pe FROM log"
        weighted = f"weighted AS (SELECT *, __pe / __pb AS __w FROM ({source}))"
        if estimator.startswith("sn"):
            group = "0" if base == "sips" else "__r"
            sql = f"""
            WITH {weighted},
            g AS (SELECT *, {group} AS __g FROM weighted),
            sums AS (SELECT __g, sum(__c * __w) AS a, sum(__w) AS b, count(*)::DOUBLE AS n FROM g GROUP BY __g),
            s AS (SELECT count(DISTINCT __i)::DOUBLE AS s FROM log)
            SELECT g.__i, sum(CASE WHEN b > 0 THEN g.__c * g.__w * n / b ELSE 0.0 END) AS value,
                   sum(CASE WHEN b > 0 THEN n / s.s * (g.__c * g.__w - a / b * g.__w) / b ELSE 0.0 END) AS __lin,
                   count(*) FILTER (WHERE g.__w > 0) AS matched
            FROM g JOIN sums USING (__g) CROSS JOIN s GROUP BY g.__i"""
        else:
            sql = f"""
            WITH {weighted}
            SELECT __i, sum(__c * __w) AS value, 0.0::DOUBLE AS __lin, count(*) FILTER (WHERE __w > 0) AS matched
            FROM weighted GROUP BY __i"""
        frame = pl.from_arrow(duckdb_arrow(con.sql(sql)))
        assert isinstance(frame, pl.DataFrame)
        return frame.with_columns(pl.col("matched").cast(pl.Int64))
    finally:
        con.close()


def _bootstrap(values: pl.Series, alpha: float, resamples: int, seed: int) -> tuple[float, float, float]:
    """obp's ``estimate_confidence_interval_by_bootstrap``: ``resamples`` draws of
    ``RandomState(seed).choice(values, size=n)``, their means' mean and percentiles."""
    np = numpy()
    samples = values.to_numpy()
    state = np.random.RandomState(seed)
    means = [np.mean(state.choice(samples, size=samples.shape[0])) for _ in range(resamples)]
    low, high = np.percentile(means, 100 * (alpha / 2)), np.percentile(means, 100 * (1.0 - alpha / 2))
    return float(np.mean(means)), float(low), float(high)


@checked
def slate_estimate(
    log: Any, run: Any = None, *, estimator: str = "iips", pscore: str | None = None,
    evaluation_pscore: str | None = None, alpha: float = 0.05, resamples: int | None = None, seed: int = 0,
    engine: str = "polars", impression: str | None = None, rank: str = "rank", click: str = "click",
    **options: Unpack[EvaluationOptions],
) -> SlateEstimate:
    """The ``estimator``'s estimate of the evaluation policy's expected clicks per slate from
    ``log`` (see the module for the estimators and the fields of the result). ``pscore``: the
    logging policy's probability column (default obp's name: ``pscore``, ``pscore_item_position``
    or ``pscore_cascade``); ``evaluation_pscore``: the evaluation policy's (default
    ``evaluation_policy_`` + that), or ``run``: a deterministic new ranking as the evaluation
    policy (ranked as :func:`rankwise.evaluate` ranks it; ``options``: its ``ties`` and column
    names). ``impression``: the slate id column (default: each query id is one slate);
    ``resamples``: add obp's bootstrap interval (``seed`` its ``random_state``).

    >>> import polars as pl
    >>> log = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "rank": [1, 2], "click": [0, 1],
    ...                     "pscore_item_position": [0.5, 0.25]})
    >>> run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["b", "a"], "score": [1.0, 0.0]})
    >>> slate_estimate(log, run).per_slate.rows()  # the run puts b first: its click at rank 2 does not count
    [('q1', 0.0)]
    """
    check_options("slate_estimate", options, SLATE_OPTIONS)
    if estimator not in SLATE_ESTIMATORS:
        raise InvalidParameterError(f"estimator must be one of {', '.join(map(repr, SLATE_ESTIMATORS))}, got {estimator!r}")
    if engine not in ("polars", "duckdb"):
        raise InvalidParameterError(f"engine must be one of ['polars', 'duckdb'], got {engine!r}")
    check_alpha(alpha)
    if resamples is not None:
        check_resampling(resamples, seed)
    if run is not None and options.get("ties") == "expected":
        raise InvalidParameterError(
            "a run as the evaluation policy puts each document at one rank, and ties='expected' chooses none: give a "
            "tie order (ties='trec_eval', the default, or 'input', ...)"
        )
    if run is not None and evaluation_pscore is not None:
        raise InvalidParameterError("give the evaluation policy's probabilities (evaluation_pscore=) or a run, not both")
    base = _base(estimator)
    names = {_PB: pscore or PSCORE[base]}
    if run is None:
        names[_PE] = evaluation_pscore or f"evaluation_policy_{PSCORE[base]}"
    columns = Columns.from_options(options)
    what = "the click log"
    frame = to_frame(log, "run", columns)
    found = (frame.lazy() if isinstance(frame, pl.DataFrame) else frame).collect_schema().names()
    if run is None and names[_PE] not in found:
        raise MissingColumnError(
            f"{what} has no column {names[_PE]!r} of the evaluation policy's probabilities "
            f"({pass_hint(_PE, 'COLUMN')}, or give a run as the evaluation policy). Columns found: {found}"
        )
    rows = read_click_log(frame, columns, impression=impression, rank=rank, click=click, extra=names,
                          query=run is not None, what=what)
    _check_probabilities(rows, estimator, names, what)
    rows = rows.with_columns(pl.col(key).cast(pl.Float64) for key in names)
    ranks = None
    if run is not None:
        lists = ranked_lists(["run"], [run], options)
        ranks = lists.select(QUERY, pl.col("docs").alias(DOC)).explode(DOC).with_columns(
            pl.int_range(1, pl.len() + 1).over(QUERY).cast(pl.Int64).alias("__rr")
        )
        for key in (QUERY, DOC):
            if ranks.schema[key] != rows.schema[key]:
                kind = "query" if key == QUERY else "doc"
                raise ColumnTypeError(
                    f"the run's and the click log's {kind} ids have different types ({ranks.schema[key]}, "
                    f"{rows.schema[key]}): give them one type"
                )
    per = (_duckdb if engine == "duckdb" else _polars)(rows, ranks, estimator).sort(IMPRESSION)
    values = per["value"]
    n = per.height
    mean = float(values.sum()) / n
    if estimator.startswith("sn"):
        se = math.sqrt(n / (n - 1) * float((per[_L] ** 2).sum())) if n > 1 else None
    else:
        se = float(values.std(ddof=1)) / math.sqrt(n) if n > 1 else None  # type: ignore[arg-type]
    z = NormalDist().inv_cdf(1 - alpha / 2)
    summary: dict[str, Any] = {
        "estimator": estimator, "estimate": mean, "std_error": se,
        "ci_low": None if se is None else mean - z * se, "ci_high": None if se is None else mean + z * se,
        "slates": n, "clicks": int(rows[CLICK].sum()), "matched": int(per["matched"].sum()),
    }
    schema: dict[str, Any] = {"estimator": pl.String, "estimate": pl.Float64, "std_error": pl.Float64,
                              "ci_low": pl.Float64, "ci_high": pl.Float64, "slates": pl.Int64, "clicks": pl.Int64,
                              "matched": pl.Int64}
    if resamples is not None:
        summary["boot_mean"], summary["boot_ci_low"], summary["boot_ci_high"] = _bootstrap(values, alpha, resamples, seed)
        schema |= {"boot_mean": pl.Float64, "boot_ci_low": pl.Float64, "boot_ci_high": pl.Float64}
    slate_column = impression or columns.query_id
    return SlateEstimate(
        per.select(pl.col(IMPRESSION).alias(slate_column), "value"), pl.DataFrame([summary], schema=schema),
    )
