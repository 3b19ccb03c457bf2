"""The ranking: each query's documents sorted once by the tie policy's keys
(:data:`~rankwise.conventions.TIE_ORDERS`; trec_eval 9 compares scores as 32-bit floats), into
per-query lists (:func:`rank_lists`) cut at ``max_rank``, and exploded into ranked rows
(:func:`ranked`) carrying the running values computed on the lists."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import polars as pl

from rankwise._polars.columns import DEPTH, INDEX, ORDER, RANK, REL, C, D, Q, S
from rankwise._polars.prepare import Prepared, audit, prepare
from rankwise.conventions import TIE_ORDERS, Columns, Conventions
from rankwise.inputs.read import to_lazyframe


def ranking_score(trec_eval: str, score: pl.Expr | None = None) -> pl.Expr:
    """The score the ranking sorts by (``score``: default the joined rows' score column):
    trec_eval 9 holds scores as 32-bit floats (rounded to nearest; beyond the float range,
    ±inf), so scores closer than float precision tie."""
    score = pl.col(S) if score is None else score
    return score.cast(pl.Float32).cast(pl.Float64) if trec_eval == "9" else score


def tie_key_columns(
    score: pl.Expr, rel: pl.Expr, doc: pl.Expr, doc_text: pl.Expr, order: pl.Expr | None = None
) -> dict[str, pl.Expr]:
    """The columns the tie policies of :data:`~rankwise.conventions.TIE_ORDERS` name, from
    the score (as the ranking compares it), the relevance, the doc id, the doc id as text and
    the row's position in the run as given (``order``; default: the row's position among the
    rows it is computed over, in their order)."""
    position = pl.int_range(0, pl.len(), dtype=pl.Int64) if order is None else order
    return {"score": score, "relevance": rel.fill_null(0.0), "doc_text": doc_text, "doc": doc, "input": position}


def tie_keys(conv: Conventions, doc_dtype: pl.DataType) -> tuple[list[pl.Expr], list[bool]]:
    """The sort keys and directions of the tie policy (:data:`~rankwise.conventions.TIE_ORDERS`)
    over the joined rows. Integer doc ids compared as text are cast to their decimal text:
    trec_eval's ``strcmp`` order."""
    keys = tie_key_columns(
        ranking_score(conv.trec_eval), pl.col(REL), pl.col(D),
        pl.col(D).cast(pl.String) if doc_dtype.is_integer() else pl.col(D), pl.col(ORDER),
    )
    order = TIE_ORDERS[conv.tie_order]
    return [keys[k] for k, _ in order], [desc for _, desc in order]


_FIRST_ROWS = 10_000
"""The rows :func:`in_rank_order` checks first, before the whole run."""


def in_rank_order(run: pl.DataFrame, conv: Conventions, doc_dtype: pl.DataType) -> bool:
    """Whether ``run`` (the prepared run's rows, held in memory) is already in the ranking's
    order, so that each query's rows can be kept as they come rather than sorted (:func:`rank_lists`):
    each query's rows stand together (the query changes as many times as there are queries, less
    one) and every row stands at or below the row before it of the same query by the tie
    policy's full sort key (:func:`tie_key_columns`: the score as the ranking compares it, then
    the doc id as the policy compares it, or the run's own order), so a run sorted by score whose
    ties are in another order is sorted as before. Policies that order ties by relevance (the
    run alone does not hold it) and NULL keys are never taken as ordered.

    One pass over consecutive rows, the keys compared one after the other: a later key (e.g.
    integer doc ids as text) only on the pairs whose earlier keys tie."""
    order = TIE_ORDERS[conv.tie_order]
    if any(key == "relevance" for key, _ in order):
        return False
    if run.height < 2:
        return True
    names = [Q, S, D, *([ORDER] if ORDER in run.columns else [])]
    # consecutive rows side by side: two slices of the same columns (no copy)
    pairs = pl.concat(
        [run.select(names).slice(0, run.height - 1), run.select(names).slice(1).rename(lambda c: c + "_next")],
        how="horizontal",
    ).lazy()

    def keys(suffix: str) -> dict[str, pl.Expr]:
        doc = pl.col(D + suffix)
        order_column = pl.col(ORDER + suffix) if ORDER in names else None
        score = ranking_score(conv.trec_eval, pl.col(S + suffix))
        text = doc.cast(pl.String) if doc_dtype.is_integer() else doc
        return tie_key_columns(score, pl.lit(None), doc, text, order_column)

    def out_and_tie(key: str, descending: bool) -> tuple[pl.Expr, pl.Expr]:
        # a pair out of order by this key (or whose key is NULL), and a pair tied by it
        before, after = keys("")[key], keys("_next")[key]
        tie = before.eq(after).fill_null(False)
        return ~(((before > after) if descending else (before < after)).fill_null(False) | tie), tie

    same = pl.col(Q).eq_missing(pl.col(Q + "_next"))
    out, tie = out_and_tie(*order[0])
    # the first rows alone first (a shuffled run is told in a few thousand rows); a run of fewer
    # than two rows a query on average is taken as unordered (sorting it costs little) without
    # counting its distinct queries
    for rows, height in ((pairs.head(_FIRST_ROWS), min(_FIRST_ROWS, run.height - 1)), (pairs, run.height - 1)):
        counts = rows.select((same & out).any().alias("out"), (~same).sum().alias("changes")).collect()
        if counts["out"].item() or counts["changes"].item() * 2 > height:
            return False
    # each query's rows together: as many distinct queries as the query changes, plus one
    queries = pairs.select(pl.col(Q).first().append(pl.col(Q + "_next").filter(~same)).n_unique()).collect().item()
    if counts["changes"].item() + 1 != queries:
        return False
    # the later keys on the pairs whose earlier keys tie (few: held in memory)
    tied = pairs.filter(same & tie).collect()
    for key, descending in order[1:]:
        out, tie = out_and_tie(key, descending)
        if tied.select(out.any()).item():
            return False
        tied = tied.filter(tie)
    return True


ELEMENT = pl.element()
"""The relevance of a ranked document, inside a per-query sequence expression."""

SEQ_RANK = pl.int_range(1, pl.len() + 1, dtype=pl.Int64)
"""The rank of a ranked document, inside a per-query sequence expression."""

SEQ_ONE = pl.repeat(1.0, pl.len(), dtype=pl.Float64)
"""A cost of 1 for every element of a ranked list (inside ``list.eval``)."""


def rank_lists(
    prep: Prepared, conv: Conventions, *, docs: bool = False, scores: bool = False, order: bool = False
) -> pl.LazyFrame:
    """One row per run query: ``__q`` and its relevance values (``__rel``; and doc ids,
    ``__d``, with ``docs``; the scores the ranking compares, ``__s``, with ``scores``; the
    rows' positions in the run as given, ``__order``, with ``order``: ``ties='input'`` only) in
    ranked order, cut at ``max_rank``.

    The run is joined with the qrels and each query's values are sorted once by the tie
    policy's keys: one small sort per query, no global sort, no window."""
    keys, descending = tie_keys(conv, prep.doc_dtype)
    value = {S: ranking_score(conv.trec_eval)}
    # a run already in rank order keeps each query's rows as they come (a group-by keeps the
    # order of each group's rows; the join keeps the run's)
    ordered = [
        (e if prep.in_rank_order else e.sort_by(keys, descending=descending)).alias(c)
        for c, e in ((c, value.get(c, pl.col(c))) for c in _carried(docs, scores, prep.columns.cost is not None, order))
    ]
    if conv.max_rank is not None:
        ordered = [e.head(conv.max_rank) for e in ordered]
    # the audit columns are dropped by the optimiser when unused. The lists are sorted by
    # query (a sort of one row per query): their ranked rows then arrive sorted by query, and
    # the group-by over them aggregates contiguous slices instead of hashing every row
    # (:func:`ranked`)
    joined = prep.run.join(prep.qrels, on=[Q, D], how="left", maintain_order="left" if prep.in_rank_order else "none")
    return joined.group_by(Q).agg(*ordered, *audit(S)).sort(Q)


def retrieved_judgments(prep: Prepared, conv: Conventions) -> Prepared:
    """``prep`` with the judgments ``judgments='retrieved'`` reads
    (:data:`~rankwise.conventions.JudgmentsPolicy`): of each run query, those of the documents
    its list holds (the run cut at ``max_rank``, ranked by the tie policy over all the
    judgments); of the judged queries absent from the run, all (``missing`` decides them). The
    ranking itself still reads every judgment (``optimistic``/``pessimistic`` order ties by
    them): only the judgments' side of an evaluation reads these."""
    if conv.max_rank is None:
        listed = prep.run.select(Q, D)
    else:
        listed = rank_lists(prep, conv, docs=True).select(Q, D).explode(D)
    absent = prep.run.select(Q).unique()

    def kept(judgments: pl.LazyFrame) -> pl.LazyFrame:
        return pl.concat([
            judgments.join(listed, on=[Q, D], how="semi"), judgments.join(absent, on=Q, how="anti"),
        ])

    return replace(prep, qrels=kept(prep.qrels), subtopics=None if prep.subtopics is None else kept(prep.subtopics))


def _carried(docs: bool, scores: bool = False, cost: bool = False, order: bool = False) -> list[str]:
    return [REL, *([D] if docs else []), *([S] if scores else []), *([C] if cost else []), *([ORDER] if order else [])]


def ranked(
    prep: Prepared,
    conv: Conventions,
    judged_only: bool,
    sequences: Mapping[str, pl.Expr] | None = None,
    *,
    docs: bool = False,
    scores: bool = False,
    order: bool = False,
    per_query: pl.LazyFrame | None = None,
    lists: pl.LazyFrame | None = None,
    at_rank: Sequence[pl.LazyFrame] = (),
    judged_rows: bool = False,
    top: int = 0,
) -> pl.LazyFrame:
    """The run joined with relevance and ranked: columns ``__q, __rel, __rank`` (and ``__d``
    with ``docs``, ``__s`` with ``scores``, ``__order`` with ``order``), one row per ranked
    document, from :func:`rank_lists` (or ``lists``, its result, made with the same ``docs``,
    ``scores`` and ``order``).

    Judged-only rankings keep the judged documents of each list and rank them anew. The
    ``sequences`` — expressions over a query's ranked relevance values (:data:`ELEMENT`) and
    ranks (:data:`SEQ_RANK`), such as running counts — are computed on the ordered lists
    before they are exploded back into rows, so no window re-sorts them. ``per_query``
    columns (keyed by ``__q``; an inner join) are joined per query before the explosion.
    ``at_rank`` frames (keyed by ``__q``) hold per-query lists whose i-th value belongs to
    rank i (e.g. the ideal prefix, :func:`~rankwise._polars.plan.ideal_lists`): each row gets the value at its rank,
    NULL beyond the list or without one, read from the lists before the explosion (a join of
    the ranked rows by (query, rank) cost 3 times as much).

    With ``judged_rows`` (every aggregate over the rows declares
    :attr:`~rankwise.primitives.Primitive.judged_rows`: an unjudged row adds nothing to it) only
    the judged rows are kept, each at its rank among all and with the running sums summed over
    all, beside each query's top row and its last (the deepest rank, from which ``Count`` reads
    the number of ranked rows), and the rows at rank ≤ ``top`` (read by the aggregates that read
    the top rows alone), as the SQL's judged-rows plan keeps them: the aggregation then reads
    far fewer rows."""
    costs = prep.columns.cost is not None
    carried = _carried(docs, scores, costs, order)
    if lists is None:
        lists = rank_lists(prep, conv, docs=docs, scores=scores, order=order)
    if judged_only:
        # trec_eval -J: unjudged documents, and those judged negative (trec_eval 10 reads a
        # negative judgment as "in the pool but unjudged"), leave the ranking.
        kept = pl.col(REL).list.eval(pl.int_range(pl.len()).filter(ELEMENT >= 0))
        lists = lists.with_columns(*[pl.col(c).list.gather(kept) for c in carried])
    seq = {RANK: SEQ_RANK, **(sequences or {})}
    lists = lists.with_columns(*[pl.col(REL).list.eval(e).alias(k) for k, e in seq.items()])
    if per_query is not None:
        lists = lists.join(per_query, on=Q, how="inner", maintain_order="left")
    ranked_values: list[str] = []
    if at_rank:
        # each list's positions 0..n-1, computed once for every gather (a list.eval in each
        # gather's expression ran once per gather: Polars does not share it)
        lists = lists.with_columns(pl.col(RANK).list.eval(pl.element() - 1).alias(INDEX))
    for table in at_rank:
        schema = table.collect_schema()
        names = [c for c in schema.names() if c != Q]
        lists = lists.join(table, on=Q, how="left", maintain_order="left").with_columns(
            pl.col(c).fill_null(pl.lit([], dtype=schema[c])).list.gather(pl.col(INDEX), null_on_oob=True)
            for c in names
        )
        ranked_values += names
    if at_rank:
        lists = lists.drop(INDEX)
    if judged_rows:
        lists = lists.with_columns(pl.col(REL).list.len().cast(pl.Int64).alias(DEPTH))
    rows = lists.explode(*carried, *seq, *ranked_values)
    if judged_rows:
        rank = pl.col(RANK)
        rows = rows.filter(pl.col(REL).is_not_null() | (rank <= max(top, 1)) | (rank == pl.col(DEPTH))).drop(DEPTH)
    return rows if costs else rows.with_columns(pl.lit(1.0).alias(C))


def by_query(rows: pl.LazyFrame) -> pl.LazyFrame:
    """``rows`` (from :func:`ranked`, joined since only with ``maintain_order="left"``) marked
    as sorted by query, which they are (:func:`rank_lists` sorts the lists): a group-by by
    query then aggregates contiguous slices, 2-3x faster than hashing each row for many
    metrics (e.g. ``all_trec``)."""
    return rows.with_columns(pl.col(Q).set_sorted())


def ranked_documents(run: Any, columns: Columns, conv: Conventions, fmt: Any) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """One row per (query, document) of the run in rank order: ``__q``, ``__d``, ``rank``,
    the run checked as evaluate checks it (NULL ids and scores, NaN scores, duplicates); and the
    run as read."""
    lf = to_lazyframe(run, "run", columns, fmt)
    schema = lf.collect_schema()
    no_qrels = pl.LazyFrame(schema={
        columns.query_id: schema.get(columns.query_id, pl.String),
        columns.doc_id: schema.get(columns.doc_id, pl.String),
        columns.relevance: pl.Float64,
    })
    prep = prepare(lf, no_qrels, columns, check_data=False, input_order=conv.ties == "input")
    prep.check_run()
    ranked = (
        rank_lists(prep, conv, docs=True)
        .select(Q, D)
        .with_columns(rank=pl.int_ranges(1, pl.col(D).list.len() + 1))
        .explode(D, "rank")
        .drop_nulls(D)
    )
    return ranked, lf
