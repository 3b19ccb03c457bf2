"""How much did the ranking change? Per-query similarity of two runs' top-k lists.

:func:`ranking_change` compares, for each query, the two runs' rankings cut at ``depth`` (each
ranked as :func:`rankwise.evaluate` ranks it: by score, ties by the ``ties`` convention):

- ``overlap`` = |A ∩ B| / depth, ``jaccard`` = |A ∩ B| / |A ∪ B|;
- ``kendall_tau``: Kendall's τ-b over the union of the two lists, a document missing from a
  list ranked just below its last (tied with the other missing ones) — scipy.stats.kendalltau
  on those ranks;
- ``rbo_ext``, ``rbo_min``, ``rbo_res``: rank-biased overlap with persistence ``p`` (Webber,
  Moffat & Zobel, A similarity measure for indefinite rankings, TOIS 2010): the point
  estimate extrapolated from the seen prefixes (their equation 32, lists of uneven lengths), the
  lower bound (unseen documents never agree) and the residual (the most the unseen documents
  could add: RBO lies in [rbo_min, rbo_min + rbo_res]).

With X_d the overlap of the two lists at depth d, s ≤ l their lengths, G(n) = Σ_{d≤n} p^d/d:
RBO_min = (1−p)/p · (Σ_{d≤l} X_d p^d/d + X_l·(−ln(1−p) − G(l))) and
RBO_ext = (1−p)/p · (Σ_{d≤l} X_d p^d/d + Σ_{s<d≤l} X_s (d−s)/(s·d) p^d) + ((X_l − X_s)/l + X_s/s)·p^l.
The residual: beyond s the short list's unseen documents may each match one more document,
beyond l both lists' may, up to d at depth d (computed in closed form). Everything is columnar:
each document's first depth of agreement max(rank_a, rank_b) adds its share of the sums.

>>> import polars as pl
>>> a = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["x", "y", "z"], "score": [3.0, 2.0, 1.0]})
>>> b = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["y", "x", "w"], "score": [3.0, 2.0, 1.0]})
>>> ranking_change(a, b, depth=3).select("overlap", "jaccard", "kendall_tau").row(0)
(0.6666666666666666, 0.5, 0.3333333333333333)
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import polars as pl

from rankwise._polars.columns import D, Q
from rankwise._polars.ranking import ranked_documents
from rankwise.conventions import (
    Columns,
    Conventions,
    EvaluationOptions,
    Unpack,
    check_identifier,
    check_options,
    checked,
)
from rankwise.errors import InvalidParameterError, MissingColumnError

CHANGE_OPTIONS: frozenset[str] = frozenset({"ties", "trec_eval", "query_id", "doc_id", "score", "run_format"})
"""The keyword options :func:`ranking_change` takes (those of evaluate that bear on a ranking)."""


def _sums(p: float, n: int) -> pl.LazyFrame:
    """Per depth n = 0..N: G(n) = Σ_{d≤n} p^d/d, H(n) = G(n)/p and Q(n) = Σ_{d≤n} p^(d−1)."""
    depth = pl.int_range(0, n + 1, eager=True).cast(pl.Float64)
    term = pl.Series([0.0]).append((p ** depth[1:]) / depth[1:])
    g = term.cum_sum()
    return pl.LazyFrame({
        "n": pl.int_range(0, n + 1, eager=True, dtype=pl.Int64),
        "G": g, "H": g / p,
        "Q": pl.Series([0.0]).append((p ** (depth[1:] - 1)).cum_sum()),
    })


def _lookup(frame: pl.LazyFrame, sums: pl.LazyFrame, at: str, prefix: str) -> pl.LazyFrame:
    """Join the sums at depth column ``at`` as ``<prefix>G``, ``<prefix>H``, ``<prefix>Q``."""
    named = sums.select(pl.col("n").alias(at), *[pl.col(c).alias(f"{prefix}{c}") for c in ("G", "H", "Q")])
    return frame.join(named, on=at, how="left")


@checked
def ranking_change(
    run_a: Any,
    run_b: Any,
    *,
    depth: int = 10,
    p: float = 0.9,
    by: str | Iterable[str] | None = None,
    **options: Unpack[EvaluationOptions],
) -> pl.DataFrame:
    """Per query (the union of the two runs' queries; a query one run lacks is an empty list
    there), how much the top ``depth`` of ``run_b`` differs from that of ``run_a``: ``overlap``,
    ``jaccard``, ``kendall_tau``, ``rbo_ext``, ``rbo_min``, ``rbo_res`` (see the module), and
    the lists' lengths ``n_a`` and ``n_b``. ``options``: the ranking's conventions (``ties``,
    ``trec_eval``) and the column names, as :func:`rankwise.evaluate` takes them. ``by``:
    segment columns of the runs (constant within a query), put before the query id: a row per
    (segment, query) pair either run has. Kendall's τ
    compares every pair of the union: O(depth²) per query. The mean of each column summarises.
    """
    check_options("ranking_change", options, CHANGE_OPTIONS)
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise InvalidParameterError(f"depth must be a whole number of at least 1, got {depth!r}")
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 < p < 1:
        raise InvalidParameterError(f"p must be between 0 and 1 (RBO's persistence), got {p!r}")
    columns = Columns.from_options(options)
    if options.get("ties") == "expected":
        raise InvalidParameterError(
            "ranking_change compares the two rankings' orders, and ties='expected' chooses none: "
            "give a tie order (ties='trec_eval', the default, or 'input', 'doc_asc', ...)"
        )
    conv = Conventions.from_options({**options, "max_rank": depth})
    fmt = options.get("run_format")
    (a, raw_a), (b, raw_b) = ranked_documents(run_a, columns, conv, fmt), ranked_documents(run_b, columns, conv, fmt)
    segments = [by] if isinstance(by, str) else list(by or [])
    for raw in (raw_a, raw_b):
        names = raw.collect_schema().names()
        for col in segments:
            check_identifier(col, "segment column")
            if col not in names:
                raise MissingColumnError.from_missing("a run", col, names, column="segment column")
    if a.collect_schema()[Q] != b.collect_schema()[Q] or a.collect_schema()[D] != b.collect_schema()[D]:
        # ids of different types in the two runs are compared as their text
        a, b = (x.with_columns(pl.col(Q).cast(pl.String), pl.col(D).cast(pl.String)) for x in (a, b))
    sizes = (
        a.group_by(Q).agg(n_a=pl.len())
        .join(b.group_by(Q).agg(n_b=pl.len()), on=Q, how="full", coalesce=True)
        .with_columns(pl.col("n_a", "n_b").fill_null(0).cast(pl.Int64))
        .with_columns(s=pl.min_horizontal("n_a", "n_b"), l=pl.max_horizontal("n_a", "n_b"))
    )
    docs = (
        a.rename({"rank": "rank_a"}).join(b.rename({"rank": "rank_b"}), on=[Q, D], how="full", coalesce=True)
        .join(sizes, on=Q, how="left")
        # the depth at which a document joins the overlap: max of its two ranks (never, if
        # one list lacks it)
        .with_columns(
            m=pl.when(pl.col("rank_a").is_not_null() & pl.col("rank_b").is_not_null())
            .then(pl.max_horizontal("rank_a", "rank_b")).cast(pl.Int64)
        )
    )
    sums = _sums(float(p), 2 * depth + 1)
    lp = math.log1p(-float(p))
    # Σ_{d≤l} X_d p^d/d = Σ over agreeing documents of G(l) − G(m − 1)
    agreeing = _lookup(_lookup(docs.filter(pl.col("m").is_not_null()).with_columns(m1=pl.col("m") - 1), sums, "m1", "m_"), sums, "l", "l_")
    per_query = agreeing.group_by(Q).agg(
        S1=(pl.col("l_G") - pl.col("m_G")).sum(),
        X_l=pl.len().cast(pl.Float64),
        X_s=(pl.col("m") <= pl.col("s")).sum().cast(pl.Float64),
    )
    kendall = _kendall(docs)
    frame = (
        sizes.join(per_query, on=Q, how="left")
        .with_columns(pl.col("S1", "X_l", "X_s").fill_null(0.0))
        .with_columns(f=pl.col("s") + pl.col("l") - pl.col("X_l").cast(pl.Int64))
    )
    frame = _lookup(_lookup(_lookup(frame, sums, "s", "s_"), sums, "l", "l_"), sums, "f", "f_")
    pp = float(p)
    w = (1 - pp) / pp
    s, long, x_l, x_s = pl.col("s").cast(pl.Float64), pl.col("l").cast(pl.Float64), pl.col("X_l"), pl.col("X_s")
    disjoint = pl.when(s > 0).then(x_s / s * (pp * (pl.col("l_Q") - pl.col("s_Q"))) - x_s * (pl.col("l_G") - pl.col("s_G"))).otherwise(0.0)
    tail = pl.when(long > 0).then((x_l - x_s) / long).otherwise(0.0) + pl.when(s > 0).then(x_s / s).otherwise(0.0)
    q_inf, h_inf = 1 / (1 - pp), -lp / pp
    residual = (1 - pp) * (
        (pl.col("l_Q") - pl.col("s_Q")) - s * (pl.col("l_H") - pl.col("s_H"))
        + 2 * (pl.col("f_Q") - pl.col("l_Q")) - (s + long) * (pl.col("f_H") - pl.col("l_H"))
        + (q_inf - pl.col("f_Q")) - x_l * (h_inf - pl.col("f_H"))
    )
    out = frame.join(kendall, on=Q, how="left").select(
        pl.col(Q).alias(columns.query_id),
        (x_l / depth).alias("overlap"),
        pl.when(long > 0).then(x_l / (pl.col("n_a") + pl.col("n_b") - x_l)).otherwise(None).alias("jaccard"),
        pl.col("kendall_tau"),
        (w * (pl.col("S1") + disjoint) + tail * pp ** long).alias("rbo_ext"),
        (w * (pl.col("S1") + x_l * (-lp - pl.col("l_G")))).alias("rbo_min"),
        residual.alias("rbo_res"),
        pl.col("n_a"), pl.col("n_b"),
    )
    if segments:
        query_type = out.collect_schema()[columns.query_id]
        pairs = pl.concat([
            raw.select(*segments, pl.col(columns.query_id).cast(query_type)) for raw in (raw_a, raw_b)
        ]).unique()
        out = pairs.join(out, on=columns.query_id, how="left")
    return out.sort(*segments, columns.query_id).collect()


def _kendall(docs: pl.LazyFrame) -> pl.LazyFrame:
    """Kendall's τ-b per query over the union of the two lists (a missing document ranked
    n + 1 in that list): (C − D) / √((C + D + T_a)(C + D + T_b)), T_a the pairs tied in list a
    only, T_b in b only (as scipy.stats.kendalltau); None when either has no untied pair."""
    ranks = docs.select(
        Q,
        ra=pl.col("rank_a").fill_null(pl.col("n_a") + 1),
        rb=pl.col("rank_b").fill_null(pl.col("n_b") + 1),
    ).with_columns(i=pl.int_range(pl.len()).over(Q))
    pairs = ranks.join(ranks, on=Q, suffix="_2").filter(pl.col("i") < pl.col("i_2")).select(
        Q, sa=(pl.col("ra") - pl.col("ra_2")).sign(), sb=(pl.col("rb") - pl.col("rb_2")).sign(),
    )
    counts = pairs.group_by(Q).agg(
        c=((pl.col("sa") * pl.col("sb")) > 0).sum(), d=((pl.col("sa") * pl.col("sb")) < 0).sum(),
        ta=((pl.col("sa") == 0) & (pl.col("sb") != 0)).sum(), tb=((pl.col("sb") == 0) & (pl.col("sa") != 0)).sum(),
    ).with_columns(pl.col("c", "d", "ta", "tb").cast(pl.Float64))  # counts are unsigned: c − d would wrap
    cd = pl.col("c") + pl.col("d")
    denom = ((cd + pl.col("ta")) * (cd + pl.col("tb"))).sqrt()
    return counts.select(Q, kendall_tau=pl.when(denom > 0).then((pl.col("c") - pl.col("d")) / denom).otherwise(None))
