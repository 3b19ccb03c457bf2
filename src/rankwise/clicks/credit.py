"""The analysis of an interleaving experiment's click log: per impression the credit of each
ranker from its clicks and the winner, then per pair of rankers the wins, ties and losses, the
Δ_AB statistic, a sign test and a bootstrap interval (:func:`interleaving_credit`).

The log has one row per shown document of an impression: the impression id (or the query id,
when each query was shown once), the rank shown (1 = top), the doc id, the ``team`` (team draft:
the ranker credited for the position, as :func:`rankwise.interleave` records it) and the click
(0/1). Credit per method:

- ``team_draft`` (Radlinski, Kurup & Joachims, CIKM 2008; Schuth et al. 2014 for multileaving):
  a ranker's credit is the number of clicked documents on its team.
- ``balanced`` (Joachims 2003): with d* the lowest clicked document, k = min over the two runs of
  d*'s rank in that run (a run without d*: its length + 1); a run's credit is the number of
  clicked documents in its top k.
- ``probabilistic`` (Hofmann, Whiteson & de Rijke, CIKM 2011): every run could have drawn every
  shown document. With P_j(l) = rank_j(d_l)^−τ / Σ_{d of run j not shown above l} rank_j(d)^−τ,
  the probability that run j drew position l given the shown list is
  p_l(j) = P_j(l) / Σ_i P_i(l) (the positions are independent given the list). Two runs: a run's
  credit is the probability that it gets more of the clicked documents than the other
  (Hofmann et al.'s marginalised outcome, a Poisson-binomial sum over the clicked positions):
  P(A wins) and P(B wins), which sum to 1 − P(tie). More runs (Schuth et al., SIGIR 2015): a run's
  credit is its expected number of clicked documents, Σ_{clicked l} p_l(j), computed exactly
  (the ``interleaving`` package samples the assignments).

A ranker wins an impression over another when its credit is larger (credits rounded to 12
decimals). Per pair (A, B), over the impressions counted (``no_clicks='drop'``, the default:
impressions with a click; ``'tie'``: every impression, those without clicks as ties),
Δ_AB = (wins_A + ½ ties) / (wins_A + wins_B + ties) − ½ (Chapelle, Joachims, Radlinski & Yue,
TOIS 2012), positive when A is preferred; the two-sided binomial sign test of wins_A against
wins_B (ties dropped); and a percentile bootstrap interval of Δ_AB over the impressions (seeded).

Both engines (``engine='polars'`` or ``'duckdb'``) compute the credits as joins and group-bys on
the same checked inputs; the summary is computed once from the credits.

>>> import polars as pl
>>> log = pl.DataFrame({"query_id": ["q1"] * 3 + ["q2"] * 3, "rank": [1, 2, 3] * 2,
...                     "doc_id": ["a", "b", "c", "x", "y", "z"],
...                     "team": ["A", "B", "A", "B", "A", "B"], "click": [1, 0, 1, 0, 1, 0]})
>>> result = interleaving_credit(log, method="team_draft")
>>> result.impressions.rows()
[('q1', 2, 2.0, 0.0, 'A'), ('q2', 1, 1.0, 0.0, 'A')]
>>> result.summary.select("ranker_a", "ranker_b", "wins_a", "ties", "wins_b", "delta").rows()
[('A', 'B', 2, 0, 0, 0.5)]
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from rankwise.clicks.interleaving import Method, check_method, numpy, ranked_lists, run_names
from rankwise.clicks.log import read_click_log
from rankwise.comparison.statistics import bootstrap_means, check_resampling, sign_test_pvalue
from rankwise.conventions import Columns, EvaluationOptions, Unpack, check_options, checked
from rankwise.errors import (
    InvalidParameterError,
    InvalidValueError,
)
from rankwise.inputs.read import duckdb_arrow

NoClicks = Literal["drop", "tie"]
NO_CLICKS: tuple[str, ...] = ("drop", "tie")
"""What impressions without clicks count as: left out (``drop``, the default) or ties."""

CREDIT_OPTIONS: frozenset[str] = frozenset({"ties", "trec_eval", "query_id", "doc_id", "score", "run_format"})
"""The keyword options :func:`interleaving_credit` takes (the runs' ranking and column names)."""

_I, _Q, _R, _D, _T, _C = "__i", "__q", "__r", "__d", "__t", "__c"
"""The log's columns once checked: impression, query, rank shown, doc, team, click."""


@dataclass(frozen=True)
class InterleavingResult:
    """The analysis of an interleaving log.

    - ``impressions``: per impression, its id, ``clicks``, one column per ranker (its credit) and
      ``winner`` (the ranker with the largest credit; null on a tie or without clicks);
    - ``summary``: per pair of rankers (``ranker_a``, ``ranker_b``): ``impressions`` counted,
      ``wins_a``, ``ties``, ``wins_b``, ``delta`` (Δ_AB), ``p_value`` (two-sided sign test),
      ``ci_low``, ``ci_high`` (percentile bootstrap of Δ_AB);
    - ``preferences``: the pairwise preference matrix, Δ of the row's ranker over the column's.
    """

    impressions: pl.DataFrame
    summary: pl.DataFrame
    preferences: pl.DataFrame
    method: str

    def __str__(self) -> str:
        with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=120, tbl_hide_dataframe_shape=True,
                       tbl_hide_column_data_types=True, float_precision=4):
            return f"{self.method} interleaving, {self.impressions.height:,} impressions\n{self.summary}"


def _read_log(log: Any, columns: Columns, impression: str | None, rank: str, team: str, click: str,
              method: str) -> pl.DataFrame:
    """The log with columns __i, __q, __r, __d, __t, __c, checked (one row per shown document;
    :func:`~rankwise.clicks.log.read_click_log`), the ids as text."""
    out = read_click_log(
        log, columns, impression=impression, rank=rank, click=click,
        extra={_T: team} if method == "team_draft" else None, query=method != "team_draft", unshown=True,
        what="the interleaving log",
    )
    if _T not in out.columns:
        out = out.with_columns(pl.lit(None, pl.String).alias(_T))
    return out.with_columns(pl.col(_D).cast(pl.String), pl.col(_Q).cast(pl.String), pl.col(_T).cast(pl.String))


def _run_rows(lists: pl.DataFrame, log: pl.DataFrame, rankers: list[str], tau: float) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(per (query, ranker, doc) its rank ``rr`` in the run and its softmax weight ``w``;
    per (query, ranker) of the log's queries the run's length ``n`` and softmax total ``total``)."""
    long = (
        lists.with_columns(pl.col("__q").cast(pl.String), pl.col("docs").cast(pl.List(pl.String)))
        .with_columns(rr=pl.int_ranges(1, pl.col("docs").list.len() + 1))
        .explode("docs", "rr").drop_nulls("docs")
        .select(pl.col("__q").alias(_Q), pl.col("run").alias("ranker"), pl.col("docs").alias(_D), pl.col("rr").cast(pl.Int64))
        .with_columns(w=pl.col("rr").cast(pl.Float64).pow(-tau))
    )
    grid = (
        log.select(_Q).unique().join(pl.DataFrame({"ranker": rankers}), how="cross")
        .join(long.group_by(_Q, "ranker").agg(n=pl.len().cast(pl.Int64), total=pl.col("w").sum()),
              on=[_Q, "ranker"], how="left")
        .with_columns(pl.col("n").fill_null(0), pl.col("total").fill_null(0.0))
    )
    shown = log.join(long.select(_Q, _D).unique(), on=[_Q, _D], how="anti")
    if shown.height:
        raise InvalidValueError(
            f"impression {shown[_I][0]!r} shows doc {shown[_D][0]!r} (rank {shown[_R][0]}), which none of the runs "
            f"ranks for query {shown[_Q][0]!r}: give the runs the log was interleaved from"
        )
    return long, grid


# ------------------------------------------------------------------------------------- Polars

def _polars_team_draft(log: pl.DataFrame, rankers: pl.DataFrame) -> pl.DataFrame:
    got = log.filter(pl.col(_C) == 1).group_by(_I, _T).agg(credit=pl.len().cast(pl.Float64))
    return (
        log.select(_I).unique().join(rankers, how="cross")
        .join(got, left_on=[_I, "ranker"], right_on=[_I, _T], how="left")
        .select(_I, "ranker", pl.col("credit").fill_null(0.0))
    )


def _polars_balanced(log: pl.DataFrame, rankers: pl.DataFrame, long: pl.DataFrame, grid: pl.DataFrame) -> pl.DataFrame:
    clicked = log.filter(pl.col(_C) == 1)
    last = clicked.sort(_R).group_by(_I).agg(pl.col(_Q).last(), pl.col(_D).last())
    k = (
        last.join(grid, on=_Q).join(long, on=[_Q, "ranker", _D], how="left")
        .group_by(_I).agg(k=pl.coalesce("rr", pl.col("n") + 1).min())
    )
    got = (
        clicked.join(long, on=[_Q, _D]).join(k, on=_I)
        .filter(pl.col("rr") <= pl.col("k")).group_by(_I, "ranker").agg(credit=pl.len().cast(pl.Float64))
    )
    return (
        log.select(_I).unique().join(rankers, how="cross").join(got, on=[_I, "ranker"], how="left")
        .select(_I, "ranker", pl.col("credit").fill_null(0.0))
    )


def _polars_posterior(log: pl.DataFrame, long: pl.DataFrame, grid: pl.DataFrame) -> pl.DataFrame:
    """Per (impression, shown position, ranker): ``p``, the probability the ranker drew it."""
    rows = (
        log.join(grid, on=_Q).join(long.select(_Q, "ranker", _D, "w"), on=[_Q, "ranker", _D], how="left")
        .with_columns(pl.col("w").fill_null(0.0)).sort(_I, "ranker", _R)
        .with_columns(before=pl.col("w").cum_sum().over(_I, "ranker") - pl.col("w"))
        .with_columns(P=pl.when((pl.col("w") > 0) & (pl.col("total") - pl.col("before") > 0))
                      .then(pl.col("w") / (pl.col("total") - pl.col("before"))).otherwise(0.0))
    )
    return rows.with_columns(p=pl.col("P") / pl.col("P").sum().over(_I, _R)).select(_I, _R, _C, "ranker", "p")


def _polars_probabilistic(log: pl.DataFrame, rankers: list[str], long: pl.DataFrame, grid: pl.DataFrame) -> pl.DataFrame:
    post = _polars_posterior(log, long, grid)
    expected = post.group_by(_I, "ranker").agg(credit=(pl.col("p") * pl.col(_C)).sum())
    if len(rankers) > 2:
        return expected.select(_I, "ranker", "credit")
    a, b = rankers
    steps = (
        post.filter((pl.col(_C) == 1) & (pl.col("ranker") == a)).sort(_I, _R)
        .with_columns(step=pl.int_range(1, pl.len() + 1).over(_I)).select(_I, "step", "p")
    )
    state = log.select(_I).unique().with_columns(x=pl.lit(0, pl.Int64), prob=pl.lit(1.0))
    for step in range(1, (int(steps["step"].max()) if steps.height else 0) + 1):  # type: ignore[arg-type]
        joined = state.join(steps.filter(pl.col("step") == step).select(_I, "p"), on=_I, how="left")
        state = pl.concat([
            joined.filter(pl.col("p").is_not_null()).select(_I, pl.col("x") + 1, prob=pl.col("prob") * pl.col("p")),
            joined.select(_I, "x", prob=pl.col("prob") * (1.0 - pl.col("p").fill_null(0.0))),
        ]).group_by(_I, "x").agg(pl.col("prob").sum())
    m = steps.group_by(_I).agg(m=pl.len().cast(pl.Int64))
    wins = (
        state.join(m, on=_I, how="left").with_columns(pl.col("m").fill_null(0))
        .group_by(_I).agg(**{
            a: pl.col("prob").filter(2 * pl.col("x") > pl.col("m")).sum(),
            b: pl.col("prob").filter(2 * pl.col("x") < pl.col("m")).sum(),
        })
    )
    return wins.unpivot(index=_I, variable_name="ranker", value_name="credit")


# ------------------------------------------------------------------------------------- DuckDB

def _fetch(con: Any, sql: str) -> pl.DataFrame:
    frame = pl.from_arrow(duckdb_arrow(con.sql(sql)))
    assert isinstance(frame, pl.DataFrame)
    return frame


def _duckdb(method: str, log: pl.DataFrame, rankers: list[str], long: pl.DataFrame | None,
            grid: pl.DataFrame | None) -> pl.DataFrame:
    import duckdb

    con = duckdb.connect()
    try:
        con.register("log", log.to_arrow())
        con.register("rankers", pl.DataFrame({"ranker": rankers}).to_arrow())
        if long is not None and grid is not None:
            con.register("runs", long.to_arrow())
            con.register("grid", grid.to_arrow())
        imps = "SELECT DISTINCT __i FROM log"
        if method == "team_draft":
            sql = f"""
            WITH got AS (SELECT __i, __t, count(*)::DOUBLE AS credit FROM log WHERE __c = 1 GROUP BY __i, __t)
            SELECT i.__i, r.ranker, coalesce(got.credit, 0.0) AS credit
            FROM ({imps}) i CROSS JOIN rankers r LEFT JOIN got ON got.__i = i.__i AND got.__t = r.ranker"""
        elif method == "balanced":
            sql = f"""
            WITH clicked AS (SELECT * FROM log WHERE __c = 1),
            last AS (SELECT __i, arg_max(__q, __r) AS __q, arg_max(__d, __r) AS __d FROM clicked GROUP BY __i),
            k AS (SELECT last.__i, min(coalesce(runs.rr, grid.n + 1)) AS k
                  FROM last JOIN grid ON grid.__q = last.__q
                  LEFT JOIN runs ON runs.__q = last.__q AND runs.ranker = grid.ranker AND runs.__d = last.__d
                  GROUP BY last.__i),
            got AS (SELECT c.__i, runs.ranker, count(*)::DOUBLE AS credit
                    FROM clicked c JOIN runs ON runs.__q = c.__q AND runs.__d = c.__d JOIN k ON k.__i = c.__i
                    WHERE runs.rr <= k.k GROUP BY c.__i, runs.ranker)
            SELECT i.__i, r.ranker, coalesce(got.credit, 0.0) AS credit
            FROM ({imps}) i CROSS JOIN rankers r LEFT JOIN got ON got.__i = i.__i AND got.ranker = r.ranker"""
        else:
            posterior = """
            rows AS (SELECT l.__i, l.__r, l.__c, g.ranker, g.total, coalesce(runs.w, 0.0) AS w
                     FROM log l JOIN grid g ON g.__q = l.__q
                     LEFT JOIN runs ON runs.__q = l.__q AND runs.ranker = g.ranker AND runs.__d = l.__d),
            cum AS (SELECT *, sum(w) OVER (PARTITION BY __i, ranker ORDER BY __r) - w AS before FROM rows),
            pr AS (SELECT *, CASE WHEN w > 0 AND total - before > 0 THEN w / (total - before) ELSE 0.0 END AS P FROM cum),
            post AS (SELECT __i, __r, __c, ranker, P / sum(P) OVER (PARTITION BY __i, __r) AS p FROM pr)"""
            if len(rankers) > 2:
                sql = f"WITH {posterior} SELECT __i, ranker, sum(p * __c) AS credit FROM post GROUP BY __i, ranker"
            else:
                a = rankers[0]
                con.register("first_ranker", pl.DataFrame({"ranker": [a]}).to_arrow())
                steps = _fetch(con, f"""
                    WITH {posterior}
                    SELECT __i, row_number() OVER (PARTITION BY __i ORDER BY __r) AS step, p
                    FROM post WHERE __c = 1 AND ranker = (SELECT ranker FROM first_ranker)""")
                con.register("steps", steps.to_arrow())
                ctes = [f"s0 AS (SELECT __i, 0::BIGINT AS x, 1.0::DOUBLE AS prob FROM ({imps}))"]
                for step in range(1, (int(steps["step"].max()) if steps.height else 0) + 1):  # type: ignore[arg-type]
                    ctes.append(f"""s{step} AS (
                        SELECT s.__i, s.x + b.a AS x,
                               sum(s.prob * CASE WHEN t.p IS NULL THEN 1.0 WHEN b.a = 1 THEN t.p ELSE 1.0 - t.p END) AS prob
                        FROM s{step - 1} s CROSS JOIN (VALUES (0), (1)) b(a)
                        LEFT JOIN steps t ON t.__i = s.__i AND t.step = {step}
                        WHERE b.a = 0 OR t.p IS NOT NULL
                        GROUP BY s.__i, s.x + b.a)""")
                last = len(ctes) - 1
                sql = f"""
                WITH {', '.join(ctes)},
                m AS (SELECT i.__i, count(t.step) AS m FROM ({imps}) i LEFT JOIN steps t ON t.__i = i.__i GROUP BY i.__i)
                SELECT s.__i, r.ranker,
                       sum(CASE WHEN (r.ranker = (SELECT ranker FROM first_ranker)) = (2 * s.x > m.m) AND 2 * s.x <> m.m
                           THEN s.prob ELSE 0.0 END) AS credit
                FROM s{last} s JOIN m ON m.__i = s.__i CROSS JOIN rankers r GROUP BY s.__i, r.ranker"""
        return _fetch(con, sql)
    finally:
        con.close()


# ------------------------------------------------------------------------------------ summary

def _summary(per: pl.DataFrame, rankers: list[str], no_clicks: str, resamples: int, seed: int,
             level: float) -> tuple[pl.DataFrame, pl.DataFrame]:
    np = numpy()
    counted = per if no_clicks == "tie" else per.filter(pl.col("clicks") > 0)
    rows = []
    delta: dict[tuple[str, str], float | None] = {}
    for a, b in itertools.combinations(rankers, 2):
        d = (counted[a] - counted[b]).round(12).to_numpy()
        wins_a, ties, wins_b = int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum())
        n = d.size
        outcome = np.where(d > 0, 1.0, np.where(d < 0, 0.0, 0.5))
        value = float(outcome.mean() - 0.5) if n else None
        low = high = None
        if n:
            means = bootstrap_means([outcome], resamples, seed)[0] - 0.5
            low, high = (float(v) for v in np.quantile(means, [(1 - level) / 2, 1 - (1 - level) / 2]))
        rows.append((a, b, n, wins_a, ties, wins_b, value, sign_test_pvalue(wins_a, wins_b), low, high))
        delta[(a, b)] = value
        delta[(b, a)] = -value if value is not None else None
    summary = pl.DataFrame(rows, orient="row", schema={
        "ranker_a": pl.String, "ranker_b": pl.String, "impressions": pl.Int64, "wins_a": pl.Int64,
        "ties": pl.Int64, "wins_b": pl.Int64, "delta": pl.Float64, "p_value": pl.Float64,
        "ci_low": pl.Float64, "ci_high": pl.Float64,
    })
    preferences = pl.DataFrame(
        {"ranker": rankers, **{col: [delta.get((row, col)) for row in rankers] for col in rankers}},
        schema={"ranker": pl.String, **dict.fromkeys(rankers, pl.Float64)},
    )
    return summary, preferences


@checked
def interleaving_credit(
    log: Any,
    *,
    method: Method = "team_draft",
    runs: Any = None,
    impression: str | None = None,
    rank: str = "rank",
    team: str = "team",
    click: str = "click",
    no_clicks: NoClicks = "drop",
    tau: float = 3.0,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    engine: Literal["polars", "duckdb"] = "polars",
    **options: Unpack[EvaluationOptions],
) -> InterleavingResult:
    """Credit each ranker of an interleaving log from its clicks, per impression, and compare
    the rankers pairwise (the rules and formulas are in the module's text): an
    :class:`InterleavingResult` with ``impressions``, ``summary`` and ``preferences``.

    ``log``: any frame or file rankwise reads, one row per shown document; its columns are
    named by ``impression`` (None: the query id column identifies impressions), ``query_id``
    and ``doc_id`` (as for :func:`rankwise.evaluate`), ``rank``, ``team`` (team draft) and
    ``click``. ``runs``: the rankers (a mapping name → run, or a list named A, B, ...), needed
    by ``balanced`` and ``probabilistic`` (their credit reads each shown document's rank in each
    run, ranked as evaluate ranks it); for ``team_draft`` optional, naming the teams the log may
    hold (else the log's teams, sorted). ``no_clicks``: ``'drop'`` (the default, as in Chapelle
    et al. 2012 where only impressions with clicks are compared) or ``'tie'``. ``tau``: the
    probabilistic softmax's exponent (as the log was generated). ``resamples``, ``seed``,
    ``level``: the bootstrap interval of Δ. ``engine``: where the credits are computed.

    Δ_AB = (wins_A + ½ ties) / (wins_A + wins_B + ties) − ½ (Chapelle, Joachims, Radlinski &
    Yue, Large-scale validation and analysis of interleaved search evaluation, TOIS 2012).

    >>> import polars as pl
    >>> a = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c", "d"], "score": [4.0, 3, 2, 1]})
    >>> b = pl.DataFrame({"query_id": "q", "doc_id": ["b", "e", "a", "f"], "score": [4.0, 3, 2, 1]})
    >>> log = pl.DataFrame({"query_id": "q", "rank": [1, 2, 3, 4], "doc_id": ["a", "b", "c", "e"],
    ...                     "click": [0, 1, 0, 1]})
    >>> interleaving_credit(log, method="balanced", runs={"A": a, "B": b}).impressions.rows()
    [('q', 2, 1.0, 2.0, 'B')]
    """
    check_options("interleaving_credit", options, CREDIT_OPTIONS)
    method = check_method(method)
    if no_clicks not in NO_CLICKS:
        raise InvalidParameterError(f"no_clicks must be one of {list(NO_CLICKS)}, got {no_clicks!r}")
    if engine not in ("polars", "duckdb"):
        raise InvalidParameterError(f"engine must be one of ['polars', 'duckdb'], got {engine!r}")
    if isinstance(tau, bool) or not isinstance(tau, (int, float)) or not tau >= 0:
        raise InvalidParameterError(f"tau must be a number of at least 0, got {tau!r}")
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
        raise InvalidParameterError(f"level must be between 0 and 1, got {level!r}")
    check_resampling(resamples, seed)
    columns = Columns.from_options(options)
    checked_log = _read_log(log, columns, impression, rank, team, click, method)
    long = grid = None
    if runs is None:
        if method != "team_draft":
            raise InvalidParameterError(f"method {method!r} credits from the runs: give runs={{'A': run_a, 'B': run_b}}")
        rankers = sorted(checked_log[_T].unique().to_list())
        if len(rankers) < 2:
            raise InvalidValueError(f"the log's team column {team!r} names {len(rankers)} ranker(s): interleaving compares two or more")
    else:
        rankers, values = run_names(runs, method)
        if method != "team_draft":
            long, grid = _run_rows(ranked_lists(rankers, values, options), checked_log, rankers, float(tau))
    if method == "team_draft":
        stray = checked_log.filter(~pl.col(_T).is_in(rankers))
        if stray.height:
            raise InvalidValueError(
                f"the log's team {stray[_T][0]!r} (impression {stray[_I][0]!r}, rank {stray[_R][0]}) is not among the runs {rankers}"
            )
    clash = {impression or columns.query_id, "clicks", "winner"} & set(rankers)
    if clash:
        raise InvalidParameterError(f"a ranker cannot be named {sorted(clash)[0]!r} (a column of the result): rename it")
    if engine == "duckdb":
        credit = _duckdb(method, checked_log, rankers, long, grid)
    elif method == "team_draft":
        credit = _polars_team_draft(checked_log, pl.DataFrame({"ranker": rankers}))
    elif method == "balanced":
        assert long is not None and grid is not None
        credit = _polars_balanced(checked_log, pl.DataFrame({"ranker": rankers}), long, grid)
    else:
        assert long is not None and grid is not None
        credit = _polars_probabilistic(checked_log, rankers, long, grid)
    clicks = checked_log.group_by(_I).agg(clicks=pl.col(_C).sum())
    wide = (
        credit.with_columns(pl.col("credit").cast(pl.Float64)).pivot("ranker", index=_I, values="credit")
        .join(clicks, on=_I).sort(_I)
    )
    best = pl.max_horizontal(*[pl.col(r).round(12) for r in rankers])
    top = [pl.when(pl.col(r).round(12) == best).then(pl.lit(r)) for r in rankers]
    per = (
        wide.with_columns(pl.concat_list(*top).list.drop_nulls().alias("__top"))
        .with_columns(winner=pl.when((pl.col("clicks") > 0) & (pl.col("__top").list.len() == 1))
                      .then(pl.col("__top").list.first()))
        .select(pl.col(_I).alias(impression or columns.query_id), "clicks", *rankers, "winner")
    )
    summary, preferences = _summary(per, rankers, no_clicks, resamples, seed, float(level))
    return InterleavingResult(per, summary, preferences, method)

