"""The diversity measures' aggregates, over (document, subtopic) pairs: the run's pairs, the
relevant judgments, and ndeval's greedy ideal ranking (:func:`greedy_ideal`, one columnar step
per ideal rank over every query at once)."""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from rankwise._polars import primitives as prim
from rankwise._polars.bind import params
from rankwise._polars.columns import COV, NSUB, RANK, REL, SUB, D, Q
from rankwise.primitives import IDEAL_SCORE_DIGITS, Primitive, ideal_depth


def _intent_rows() -> dict[str, pl.Expr]:
    """The row columns a diversity primitive reads, by parameter name."""
    return {"rnk": pl.col(RANK), "cov": pl.col(COV), "nsub": pl.col(NSUB), "sub": pl.col(SUB), "qid": pl.col(Q)}


def _bind_intent(node: Primitive) -> pl.Expr:
    """``node``'s Polars function over pair rows (its row columns by name, then its fields)."""
    fn = getattr(prim, node.binding())
    rows, values = _intent_rows(), node.values()
    return fn(**{name: rows[name] if name in rows else values[name] for name in params(fn)})  # type: ignore[no-any-return]


def relevant_pairs(subtopics: pl.LazyFrame, t: float) -> pl.LazyFrame:
    """The relevant judgments (relevance ≥ t): ``__q, __d, __sub`` and ``__nsub``, the number
    of relevant documents of the subtopic."""
    return subtopics.filter(pl.col(REL) >= t).select(Q, D, SUB).with_columns(
        pl.len().over(Q, SUB).cast(pl.Int64).alias(NSUB)
    )


def run_pairs(docs: pl.LazyFrame, pairs: pl.LazyFrame) -> pl.LazyFrame:
    """The pairs of the ranked documents, each with ``__cov``: how many documents ranked above
    cover the same subtopic."""
    return docs.select(Q, D, RANK).join(pairs, on=[Q, D], how="inner").with_columns(
        (pl.col(RANK).rank("ordinal").over(Q, SUB).cast(pl.Int64) - 1).alias(COV)
    )


def greedy_ideal(pairs: pl.DataFrame, alpha: float, depth: int | None) -> pl.DataFrame:
    """ndeval's greedy ideal ranking of the judged documents, as pairs (``__q, __d, __sub,
    __nsub``) with their ideal rank (``__rank``) and ``__cov``, ranks 1..depth (None: all).

    Each rank takes, in every query at once, the document whose subtopics' gains
    Σ (1 − alpha)^cov are largest (ties: the larger doc id as text, ndeval's strcmp), then
    counts its subtopics as covered once more: one columnar step per rank, as many steps as
    the largest query has relevant documents (or ``depth``)."""
    decay = 1.0 - alpha
    text = "__dtext"
    todo = pairs.with_columns(pl.col(D).cast(pl.String).alias(text), pl.lit(0, pl.Int64).alias(COV))
    placed: list[pl.DataFrame] = []
    rank = 0
    while todo.height and (depth is None or rank < depth):
        rank += 1
        scores = todo.group_by(Q, text).agg(
            pl.lit(decay, pl.Float64).pow(pl.col(COV).cast(pl.Float64)).sum().round(IDEAL_SCORE_DIGITS).alias("__g")
        )
        best = scores.sort(["__g", text], descending=[True, True]).unique(Q, keep="first").select(Q, text)
        chosen = todo.join(best, on=[Q, text], how="semi")
        placed.append(chosen.with_columns(pl.lit(rank, pl.Int64).alias(RANK)))
        covered = chosen.select(Q, SUB, pl.lit(1, pl.Int64).alias("__inc"))
        todo = (
            todo.join(best, on=[Q, text], how="anti")
            .join(covered, on=[Q, SUB], how="left")
            .with_columns((pl.col(COV) + pl.col("__inc").fill_null(0)).alias(COV))
            .drop("__inc")
        )
    schema = {**pairs.schema, text: pl.String(), COV: pl.Int64(), RANK: pl.Int64()}
    return pl.concat(placed) if placed else pl.DataFrame(schema=schema)


def intent_aggregates(
    subtopics: pl.LazyFrame, docs: Mapping[bool, pl.LazyFrame], nodes: Mapping[str, tuple[Primitive, bool]]
) -> pl.LazyFrame:
    """Per query (``__q``), every diversity primitive of ``nodes`` (column: its key; with the
    ranking it reads, judged-only or not, ``docs``): over the run's pairs, the greedy ideal's
    pairs or the relevant judgments. The greedy ideal's judgments are collected (one step per
    ideal rank, see :func:`greedy_ideal`)."""
    groups: dict[tuple[str, float, float, bool], dict[str, Primitive]] = {}
    for key, (node, part) in nodes.items():
        alpha = float(getattr(node, "alpha", 0.0)) if node.side == "ideal_intents" else 0.0
        group = (node.side, float(getattr(node, "t")), alpha, part and node.side == "intents")  # noqa: B009
        groups.setdefault(group, {})[key] = node
    tables: list[pl.LazyFrame] = []
    for (side, t, alpha, part), members in groups.items():
        pairs = relevant_pairs(subtopics, t)
        if side == "intents":
            rows = run_pairs(docs[part], pairs)
        elif side == "ideal_intents":
            rows = greedy_ideal(pairs.collect(), alpha, ideal_depth(list(members.values()))).lazy()
        else:
            rows = pairs
        tables.append(rows.group_by(Q).agg(*[_bind_intent(n).alias(k) for k, n in members.items()]))
    out = tables[0]
    for table in tables[1:]:
        out = out.join(table, on=Q, how="full", coalesce=True)
    return out
