"""An evaluation's lazy plans (:class:`Plans`) over the prepared inputs, from the compiled
expressions (:mod:`rankwise._polars.compile`): one ranking, one join of the run with the
qrels, the judgments' aggregates per query, each ranking's aggregates over its ranked rows
(with the ideal prefixes and the run-ordered ideal joined to them), the diversity aggregates,
and the output columns; with the data checks' counts, collected in the same pass."""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import polars as pl

from rankwise._polars import primitives as prim
from rankwise._polars.bind import bind
from rankwise._polars.columns import (
    BASE,
    CATEGORIES,
    FAIR,
    FEATURES,
    FEATURES_HISTORY,
    GROUPS,
    ORDER,
    RANK,
    REL,
    RUN_IRANK,
    TRAIN,
    D,
    Q,
    S,
    row_column,
)
from rankwise._polars.compile import (
    Compiled,
    compile_outputs,
    compiled_metrics,
    irank_name,
    prefix_columns,
)
from rankwise._polars.diversity import intent_aggregates
from rankwise._polars.prepare import Judgments, Prepared, audit, audit_counts, subtopic_judgments
from rankwise._polars.ranking import by_query, rank_lists, ranked, retrieved_judgments, tie_keys
from rankwise.conventions import Columns, Conventions
from rankwise.errors import InvalidParameterError
from rankwise.inputs.categories import CATEGORY
from rankwise.inputs.features import FEATURE, VALUE
from rankwise.inputs.groups import GROUP, SHARE, WEIGHT
from rankwise.metrics.metric import Metric
from rankwise.metrics.recipes import Output
from rankwise.primitives import (
    ALPHA,
    EPSILON,
    PATIENCE,
    Calibration,
    Gain,
    IdealPrefix,
    RunIdealValue,
    variant,
)


@dataclass(frozen=True)
class Plans:
    """An evaluation's lazy plans, built on one ranking so that one collection runs it once."""

    result: pl.LazyFrame
    """Per-query values: query column + one column per metric."""
    counts: tuple[pl.LazyFrame, pl.LazyFrame]
    """The data checks' counts of the run (with ``unjudged``, how many run queries have no
    judgment at all) and of the qrels."""

    def collect(self, engine: Literal["auto", "in-memory", "streaming"] = "auto") -> tuple[pl.DataFrame, pl.DataFrame]:
        """Collect at once the run's counts and the values (the qrels are checked before an
        evaluation, :meth:`~rankwise._polars.prepare.Prepared.check_qrels`: their counts are not collected, and their
        audit aggregates drop out of the plan)."""
        run_counts, result = pl.collect_all([self.counts[0], self.result], engine=engine)
        return run_counts, result


def evaluation_plans(prep: Prepared, metrics: Sequence[Metric], conv: Conventions, columns: Columns) -> Plans:
    """The plans of :class:`Plans`: the per-query values, the unjudged count and the checks."""
    # metrics that differ only in their spelling are equal: the labels (the result's column
    # names) are part of the key
    labelled = tuple((m, m.label) for m in metrics)
    return build_plans(prep, compiled_metrics(labelled, conv, prep.columns.cost is not None), conv, columns)


def output_plans(prep: Prepared, outs: Sequence[Output], conv: Conventions, columns: Columns) -> Plans:
    """The plans of :class:`Plans` for output columns (any formula trees)."""
    return build_plans(prep, compile_outputs(outs, prep.columns.cost is not None), conv, columns)


def judgment_plans(qrels: pl.LazyFrame, compiled: Compiled) -> tuple[pl.LazyFrame, list[pl.LazyFrame]]:
    """The judgments' side of ``compiled`` over ``qrels``: the per-query aggregates (with the
    data checks' counts, :func:`~rankwise._polars.prepare.audit`) and each gain's ideal prefix
    lists (:func:`ideal_lists`), none of which reads the run."""
    if compiled.iranks:
        qrels = qrels.with_columns(*[e.alias(k) for k, e in compiled.iranks.items()])
    gains = dict.fromkeys(sorted({v.g for v in compiled.prefixes}, key=repr))
    for gain in gains:
        values = [v for v in compiled.prefixes if v.g == gain]
        qrels = qrels.with_columns(*[e.alias(k) for k, e in prefix_columns(values).items()])
    if compiled.prefixes:
        # the ideal ranks and prefixes are windows read by both the per-query values and the
        # ideal lists: Polars' common-subplan elimination does not find the shared part (the
        # values' branch adds its terms to the same projection), and computed them twice:
        # about 8% of ``all_trec``
        qrels = qrels.cache()
    qstats = compiled.qterms.add_to(qrels).group_by(Q).agg(
        *audit(REL), *[e.alias(k) for k, e in compiled.qaggs.items()]
    )
    return qstats, [ideal_lists(qrels, gain, [v for v in compiled.prefixes if v.g == gain]) for gain in gains]


def judgments_once(prep: Prepared, metrics: Sequence[Metric], conv: Conventions) -> Judgments:
    """:func:`judgment_plans` of ``metrics`` over every judgment of ``prep``, collected (an
    :class:`~rankwise.evaluation.evaluator.Evaluator` computes them once for all its runs)."""
    labelled = tuple((m, m.label) for m in metrics)
    qstats, prefix_lists = judgment_plans(prep.qrels, compiled_metrics(labelled, conv, prep.columns.cost is not None))
    frames = pl.collect_all([qstats, *prefix_lists])
    return Judgments(frames[0], tuple(frames[1:]))


def build_plans(prep: Prepared, compiled: Compiled, conv: Conventions, columns: Columns) -> Plans:
    """The plans of :class:`Plans` of ``compiled`` over ``prep``'s inputs."""
    parts, intent_leaves = compiled.parts, compiled.intent_leaves
    # the judgments' side (judgments='retrieved': those of the listed documents); the ranking
    # reads every judgment
    judging = prep if conv.judgments == "all" else retrieved_judgments(prep, conv)
    if prep.judgments is not None and judging is prep:
        # computed once over every judgment (an Evaluator's): this group's queries
        queries = prep.qrels.select(Q).unique()
        qstats = prep.judgments.qstats.lazy().join(queries, on=Q, how="semi")
        prefix_lists = [lists.lazy().join(queries, on=Q, how="semi") for lists in prep.judgments.prefix_lists]
    else:
        qstats, prefix_lists = judgment_plans(judging.qrels, compiled)
    if judging is not prep:
        # a run query whose judgments all went is still judged: its counts and sums over no
        # judgment are 0
        qstats = prep.qrels.select(Q).unique().join(qstats, on=Q, how="left").with_columns(pl.exclude(Q).fill_null(0))

    scores = any(work.scores for work in parts.values())
    run_ideal = {col: v for work in parts.values() for col, v in work.run_ideal.items()}
    with_docs = bool(run_ideal)
    # the run-ordered ideal reads the ranked documents' scores (cut at max_rank)
    scores |= with_docs
    # ties='input': the run-ordered ideal breaks ties by the run's order too
    order = with_docs and conv.ties == "input"
    # the training interactions' values are joined to the ranked rows by item
    with_docs |= any(
        work.train or work.features or work.base or work.categories or work.history or work.fair or work.groups or work.docs
        for work in parts.values()
    )
    lists = rank_lists(prep, conv, docs=with_docs, scores=scores, order=order)
    out = qstats
    if conv.missing == "ignore":
        out = out.join(lists.select(Q), on=Q, how="semi")
    for part, work in parts.items():
        needed = qstats.select(Q, *sorted(work.needs)) if work.needs else None
        rows = ranked(
            prep, conv, part, work.seqs, docs=with_docs, scores=scores, order=order, per_query=needed, lists=lists,
            at_rank=prefix_lists, judged_rows=work.judged_rows and not work.windows and not part, top=work.top_rows,
        )
        if work.run_ideal:
            ideal = run_ideal_table(judging, conv, lists, work.run_ideal)
            rows = rows.join(ideal, on=[Q, D], how="left", maintain_order="left")
        if work.train:
            rows = with_train_values(rows, prep)
        if work.features:
            rows = with_pair_distances(rows, prep, work.pair_depth)
        if work.base:
            rows = with_base_ranks(rows, prep, conv)
        if work.categories:
            rows = with_category_values(rows, prep, conv, work.patiences, work.calibrations, work.category_depth)
        if work.catalog:
            rows = with_catalog_size(rows, prep)
        if work.groups:
            rows = with_group_lists(rows, prep)
        if work.history:
            rows = with_item_pairs(rows, prep, work.history_depth, work.history)
        if work.fair:
            rows = with_fair_values(rows, prep, conv, work.fair_depth)
        if work.windows:
            rows = rows.with_columns(*[e.alias(k) for k, e in work.windows.items()])
        rows = work.terms.add_to(rows)
        aggs = by_query(rows).group_by(Q).agg(*[e.alias(k) for k, e in work.aggs.items()])
        out = out.join(aggs, on=Q, how="left")
        fill = [pl.col(k).fill_null(empty) for k, empty in work.empty.items() if empty is not None]
        if fill:
            out = out.with_columns(fill)
    if intent_leaves:
        doc_lists = rank_lists(prep, conv, docs=True)
        docs = {
            part: ranked(prep, conv, part, docs=True, lists=doc_lists)
            for part in {part for _, part in intent_leaves.values()}
        }
        intents = intent_aggregates(subtopic_judgments(judging), docs, intent_leaves)
        out = out.join(intents, on=Q, how="left").with_columns(
            *[pl.col(k).fill_null(0.0) for k in intent_leaves]
        )
    result = out.select(pl.col(Q).alias(columns.query_id), *compiled.values).sort(columns.query_id)
    # how many run queries have no judgment at all
    unjudged = pl.col("__judged_query").null_count().alias("unjudged")
    judged = qstats.select(Q, pl.lit(True).alias("__judged_query"))
    run_counts = audit_counts(lists.join(judged, on=Q, how="left"), unjudged)
    return Plans(result, (run_counts, audit_counts(qstats)))


def train_tables(train: pl.LazyFrame) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """The training interactions' values (:data:`~rankwise._polars.columns.TRAIN`) that do not
    depend on the query: per item (``__d``), its distinct training users and rows, the users of
    the items more popular than it, its place by rows ascending and its popularity quantiles;
    and the totals, one row."""
    t = TRAIN
    per_item = train.group_by(D).agg(
        pl.col(Q).n_unique().cast(pl.Float64).alias(t["iusers"]), pl.len().cast(pl.Float64).alias(t["irows"]),
    ).sort([t["iusers"], D], descending=[True, False]).with_columns(
        # the users of the items more popular than it (ties by item id): Elliot's short head
        (pl.col(t["iusers"]).cum_sum() - pl.col(t["iusers"])).alias(t["ibefore"]),
        # its place by rows ascending (ties by item id): RecBole's long tail
        (pl.int_range(1, pl.len() + 1).sort_by([t["irows"], D]).arg_sort() + 1).cast(pl.Float64).alias(t["iasc"]),
        # the popularity quantiles: LensKit's MeanPopRank
        (pl.col(t["iusers"]).rank("average") / pl.len()).alias(t["iqusers"]),
        (pl.col(t["irows"]).rank("average") / pl.len()).alias(t["iqrows"]),
        # the dense popularity rank by rows, 1 the most interacted: rectools' Serendipity
        pl.col(t["irows"]).rank("dense", descending=True).cast(pl.Float64).alias(t["idense"]),
    )
    totals = per_item.select(
        pl.col(t["iusers"]).sum().alias(t["npairs"]), pl.col(t["irows"]).sum().alias(t["nrows"]),
        pl.col(t["iusers"]).min().alias(t["minusers"]), pl.len().cast(pl.Float64).alias(t["nitems"]),
    ).join(train.select(pl.col(Q).n_unique().cast(pl.Float64).alias(t["nusers"])), how="cross")
    return per_item, totals


def with_train_values(rows: pl.LazyFrame, prep: Prepared) -> pl.LazyFrame:
    """The ranked rows with the training interactions' values (:data:`~rankwise._polars.columns.TRAIN`):
    the per-item values (0 for an item never in training) and the totals of :func:`train_tables`
    (``prep.train_tables`` when computed once for every query group), and whether the row's user
    has the item among its training rows (among ``prep.seen``'s (query, item) pairs, default
    ``prep.train``'s)."""
    if prep.train is None:
        raise InvalidParameterError("a metric reads the training interactions: pass train=")
    t = TRAIN
    per_item, totals = prep.train_tables or train_tables(prep.train)
    seen = (prep.train if prep.seen is None else prep.seen).select(Q, D).unique().with_columns(
        pl.lit(True).alias(t["seen"])
    )
    return (
        rows.join(per_item, on=D, how="left", maintain_order="left")
        .join(seen, on=[Q, D], how="left", maintain_order="left")
        .join(totals, how="cross", maintain_order="left")
        .with_columns(
            pl.col(t["iusers"], t["irows"], t["ibefore"], t["iasc"], t["iqusers"], t["iqrows"], t["idense"]).fill_null(0.0),
            pl.col(t["seen"]).fill_null(False),
        )
    )


def with_catalog_size(rows: pl.LazyFrame, prep: Prepared) -> pl.LazyFrame:
    """The ranked rows with the catalog's size (:data:`~rankwise._polars.columns.CATALOG`, one
    row of ``prep.catalog`` joined to every row)."""
    if prep.catalog is None:
        raise InvalidParameterError("a metric reads the catalog: pass catalog=")
    return rows.join(prep.catalog, how="cross", maintain_order="left")


def with_group_lists(rows: pl.LazyFrame, prep: Prepared) -> pl.LazyFrame:
    """The ranked rows with their item's groups (:data:`~rankwise._polars.columns.GROUPS`: the
    groups of ``prep.groups`` in which it has a weight above 0, as text; NULL for an item
    ``groups=`` does not hold), joined by item."""
    if prep.groups is None:
        raise InvalidParameterError("a metric reads the document groups: pass groups=")
    lists = prep.groups.filter(pl.col(WEIGHT) > 0).group_by(D).agg(
        pl.col(GROUP).cast(pl.String).alias(GROUPS["fgroups"])
    )
    return rows.join(lists, on=D, how="left", maintain_order="left")


def cooccurrence(train: pl.LazyFrame, pairs: pl.LazyFrame) -> pl.LazyFrame:
    """The co-occurrence similarity of each distinct (``__i``, ``__j``) item pair of ``pairs`` in the
    training rows ``train`` (``__q`` the user, ``__d`` the item): Σ_u n_u(i) n_u(j) / sqrt(rows(i)
    rows(j)), n_u(i) the user's rows of item i, rows(i) the item's (recommenders'
    ``_get_cooccurrence_similarity``), 0 for a pair no user has both of (``__co``). The work is
    the pairs' rarer items' users: each pair (of two training items) meets the user rows of its
    item with fewer training rows, each looked up in the other's."""
    counts = train.group_by(Q, D).agg(pl.len().cast(pl.Float64).alias("__c"))
    rows = counts.group_by(D).agg(pl.col("__c").sum().alias("__r"))
    wanted = pairs.select("__i", "__j").unique()
    rare_i = pl.col("__ri") <= pl.col("__rj")
    # both items in training (else 0), the rarer one first
    oriented = (
        wanted.join(rows.select(pl.col(D).alias("__i"), pl.col("__r").alias("__ri")), on="__i")
        .join(rows.select(pl.col(D).alias("__j"), pl.col("__r").alias("__rj")), on="__j")
        .with_columns(
            pl.when(rare_i).then(pl.col("__i")).otherwise(pl.col("__j")).alias("__a"),
            pl.when(rare_i).then(pl.col("__j")).otherwise(pl.col("__i")).alias("__b"),
        )
    )
    num = (
        oriented.select("__a", "__b").unique()
        .join(counts.select(pl.col(D).alias("__a"), pl.col(Q).alias("__u"), pl.col("__c").alias("__ca")), on="__a")
        .join(counts.select(pl.col(D).alias("__b"), pl.col(Q).alias("__u"), pl.col("__c").alias("__cb")),
              on=["__b", "__u"])
        .group_by("__a", "__b").agg((pl.col("__ca") * pl.col("__cb")).sum().alias("__num"))
    )
    both = oriented.join(num, on=["__a", "__b"], how="left").select(
        "__i", "__j", (pl.col("__num") / (pl.col("__ri") * pl.col("__rj")).sqrt()).alias("__co")
    )
    return wanted.join(both, on=["__i", "__j"], how="left").with_columns(pl.col("__co").fill_null(0.0))


def _cosines(features: pl.LazyFrame, pairs: pl.LazyFrame) -> pl.LazyFrame:
    """The cosine similarity of the feature vectors of each distinct (``__i``, ``__j``) item pair of
    ``pairs`` (``__cos``): 0 against a zero vector or an item without features."""
    wanted = pairs.select("__i", "__j").unique()
    items = pl.concat([wanted.select(pl.col("__i").alias(D)), wanted.select(pl.col("__j").alias(D))]).unique()
    vector = pl.col(VALUE).sort_by(FEATURE)
    vectors = features.join(items, on=D, how="semi").group_by(D).agg(
        vector.alias("__v"), (vector * vector).sum().alias("__n")
    )
    a = vectors.select(pl.col(D).alias("__i"), pl.col("__v").alias("__va"), pl.col("__n").alias("__na"))
    b = vectors.select(pl.col(D).alias("__j"), pl.col("__v").alias("__vb"), pl.col("__n").alias("__nb"))
    norms = pl.col("__na") * pl.col("__nb")
    return wanted.join(a, on="__i", how="left").join(b, on="__j", how="left").select(
        "__i", "__j",
        pl.when(norms > 0).then((pl.col("__va") * pl.col("__vb")).list.sum() / norms.sqrt()).otherwise(0.0)
        .fill_null(0.0).alias("__cos"),
    )


def with_item_pairs(rows: pl.LazyFrame, prep: Prepared, depth: int | None, wanted: set[str]) -> pl.LazyFrame:
    """The ranked rows with the item-pair values (:data:`~rankwise.primitives.TRAIN_PAIR_COLUMNS`,
    :data:`~rankwise.primitives.FEATURE_HISTORY_COLUMNS`; ``wanted``: those read) on the rows ranked
    ≤ ``depth`` (None: every row; NULL elsewhere): the user's training rows (``hlen``, from
    ``prep.seen``'s (query, item) rows, default ``prep.train``'s), the mean co-occurrence
    (``hco``) or feature cosine (``hcos``) of the row's item with the items of those rows (each
    row weighing once), and the summed co-occurrence with the items ranked above it (``pco``).
    The pairs are the top rows' (at most depth² per query) and each top row's with its user's
    training rows (depth × the user's distinct training items)."""
    if prep.train is None:
        raise InvalidParameterError("a metric reads the training interactions: pass train=")
    t, f = TRAIN, FEATURES_HISTORY
    top = rows.select(Q, D, RANK) if depth is None else rows.select(Q, D, RANK).filter(pl.col(RANK) <= depth)
    history = (prep.train if prep.seen is None else prep.seen).group_by(Q, D).agg(pl.len().cast(pl.Float64).alias("__n"))
    out = rows.join(history.group_by(Q).agg(pl.col("__n").sum().alias(t["hlen"])), on=Q, how="left",
                    maintain_order="left").with_columns(pl.col(t["hlen"]).fill_null(0.0))
    if wanted & {"hco", "hcos"}:
        by_history = top.join(history.select(Q, pl.col(D).alias("__j"), "__n"), on=Q).rename({D: "__i"})
        means = []
        if "hco" in wanted:
            sims = by_history.join(cooccurrence(prep.train, by_history), on=["__i", "__j"], how="left")
            means.append(((pl.col("__n") * pl.col("__co")).sum() / pl.col("__n").sum()).alias(t["hco"]))
        if "hcos" in wanted:
            if prep.features is None:
                raise InvalidParameterError("a metric reads the item features: pass features=")
            cos = _cosines(prep.features, by_history)
            sims = (sims if "hco" in wanted else by_history).join(cos, on=["__i", "__j"], how="left")
            means.append(((pl.col("__n") * pl.col("__cos")).sum() / pl.col("__n").sum()).alias(f["hcos"]))
        out = out.join(sims.group_by(Q, RANK).agg(*means), on=[Q, RANK], how="left", maintain_order="left")
    if "pco" in wanted:
        b = top.select(Q, pl.col(D).alias("__j"), pl.col(RANK).alias("__rank_b"))
        pairs = top.join(b, on=Q).filter(pl.col("__rank_b") < pl.col(RANK)).rename({D: "__i"})
        summed = pairs.join(cooccurrence(prep.train, pairs), on=["__i", "__j"], how="left").group_by(Q, RANK).agg(
            pl.col("__co").sum().alias(t["pco"])
        )
        out = out.join(summed, on=[Q, RANK], how="left", maintain_order="left").with_columns(
            pl.col(t["pco"]).fill_null(0.0)
        )
    return out


def with_base_ranks(rows: pl.LazyFrame, prep: Prepared, conv: Conventions) -> pl.LazyFrame:
    """The ranked rows with the base run's values (:data:`~rankwise._polars.columns.BASE`): the
    row's item's rank in its user's base list (``prep.base_run`` ranked as the run is, by the
    same ranking: the tie policy's keys, ``max_rank``; NULL for an item that list does not hold)
    and whether the user has a base list."""
    if prep.base_run is None:
        raise InvalidParameterError("a metric reads the base run: pass base_run=")
    b = BASE
    base = replace(prep, run=prep.base_run, columns=replace(prep.columns, cost=None), in_rank_order=False)
    ranks = ranked(base, conv, False, docs=True).select(Q, D, pl.col(RANK).cast(pl.Float64).alias(b["brank"]))
    users = prep.base_run.select(Q).unique().with_columns(pl.lit(True).alias(b["blisted"]))
    return (
        rows.join(ranks, on=[Q, D], how="left", maintain_order="left")
        .join(users, on=Q, how="left", maintain_order="left")
        .with_columns(pl.col(b["blisted"]).fill_null(False))
    )


def fair_targets(prep: Prepared, conv: Conventions, queries: pl.LazyFrame) -> pl.LazyFrame:
    """Each of ``queries``' target over its groups (``__q``, :data:`~rankwise.inputs.groups.GROUP`,
    :data:`~rankwise.inputs.groups.SHARE`): ``prep.target``'s shares (one distribution for every
    query, or one per query), or, without them, the shares of each group of ``groups=`` among
    the query's relevant documents (relevance ≥ ``conv.rel``: Σ of their weights in the group
    over the query's total; no row for a query whose relevant documents have no weight)."""
    if prep.groups is None:
        raise InvalidParameterError("a metric reads the document groups: pass groups=")
    if prep.target is not None:
        if Q in prep.target.collect_schema().names():
            return prep.target.join(queries, on=Q, how="semi")
        return queries.join(prep.target, how="cross")
    relevant = prep.qrels.filter(pl.col(REL) >= conv.rel).join(queries, on=Q, how="semi").select(Q, D)
    weights = relevant.join(prep.groups, on=D, how="inner").group_by(Q, GROUP).agg(pl.col(WEIGHT).sum().alias(SHARE))
    totals = weights.group_by(Q).agg(pl.col(SHARE).sum().alias("__total")).filter(pl.col("__total") > 0)
    # every group of groups= (a group without a relevant document: share 0)
    every = totals.join(prep.groups.select(GROUP).unique(), how="cross")
    return every.join(weights, on=[Q, GROUP], how="left").select(
        Q, GROUP, (pl.col(SHARE).fill_null(0.0) / pl.col("__total")).alias(SHARE)
    )


def _divergence(p: pl.Expr, q: pl.Expr) -> pl.Expr:
    """The group's term of the Jensen-Shannon divergence (natural log) between p and q: half of
    p ln(p / m) + q ln(q / m), m = (p + q) / 2, a zero share adding nothing (scipy's ``rel_entr``)."""
    m = (p + q) / 2.0
    left = pl.when(p > 0).then(p * (p / m).log()).otherwise(0.0)
    right = pl.when(q > 0).then(q * (q / m).log()).otherwise(0.0)
    return (left + right) / 2.0


def with_fair_values(rows: pl.LazyFrame, prep: Prepared, conv: Conventions, depth: int | None) -> pl.LazyFrame:
    """The ranked rows with their divergences from the query's target
    (:data:`~rankwise._polars.columns.FAIR`), on the rows ranked ≤ ``depth`` (None: every row;
    NULL elsewhere): each (row, group of the query's target) pair carries the group's running sum
    of the rows' discounted weights w_g(d_i) / log2(max(i, 2)); over the groups, their shares
    of that exposure against the target's (:func:`_divergence`), and Σ_g A_g², Σ_g A_g t_g of
    the groups' exposures A_g and Σ_g t_g² of the target's shares."""
    f = FAIR
    top = rows.select(Q, D, RANK, REL) if depth is None else rows.select(Q, D, RANK, REL).filter(pl.col(RANK) <= depth)
    targets = fair_targets(prep, conv, top.select(Q).unique())
    assert prep.groups is not None
    discount = 1.0 / pl.max_horizontal(pl.col(RANK).cast(pl.Float64), pl.lit(2.0)).log(2)
    exposure = (
        top.join(prep.groups, on=D, how="inner").join(targets.select(Q, GROUP), on=[Q, GROUP], how="semi")
        .select(Q, RANK, GROUP, (pl.col(WEIGHT) * discount).alias("__e"),
                # the relevant rows' alone (TREC 2022's EEL)
                pl.when(pl.col(REL) >= conv.rel).then(pl.col(WEIGHT) * discount).otherwise(0.0).alias("__er"))
    )
    grid = (
        top.select(Q, RANK).join(targets, on=Q, how="inner")
        .join(exposure, on=[Q, RANK, GROUP], how="left")
        .sort(Q, GROUP, RANK)
        .with_columns(pl.col("__e").fill_null(0.0).cum_sum().over(Q, GROUP).alias("__a"),
                      pl.col("__er").fill_null(0.0).cum_sum().over(Q, GROUP).alias("__ar"))
        .with_columns(pl.col("__a").sum().over(Q, RANK).alias("__s"))
    )
    share = pl.col("__a") / pl.col("__s")
    divergence = grid.group_by(Q, RANK).agg(
        pl.when(pl.col("__s").first() > 0).then(_divergence(share, pl.col(SHARE)).sum()).otherwise(None)
        .alias(f["fjsd"]),
        (pl.col("__a") * pl.col("__a")).sum().alias(f["fa2"]),
        (pl.col("__a") * pl.col(SHARE)).sum().alias(f["faq"]),
        (pl.col("__ar") * pl.col("__ar")).sum().alias(f["fa2r"]),
        (pl.col("__ar") * pl.col(SHARE)).sum().alias(f["faqr"]),
    )
    uniform = targets.group_by(Q).agg(
        _divergence(1.0 / pl.len().cast(pl.Float64), pl.col(SHARE)).sum().alias(f["fjsd0"]),
        (pl.col(SHARE) * pl.col(SHARE)).sum().alias(f["fq2"]),
    )
    return (
        rows.join(divergence, on=[Q, RANK], how="left", maintain_order="left")
        .join(uniform, on=Q, how="left", maintain_order="left")
    )


def with_pair_distances(rows: pl.LazyFrame, prep: Prepared, depth: int | None) -> pl.LazyFrame:
    """The ranked rows with their summed distances to the items ranked above them
    (:data:`~rankwise._polars.columns.FEATURES`), from the item features (``prep.features``, in
    the long form of :mod:`rankwise.inputs.features`), on the rows ranked ≤ ``depth`` (None:
    every row; 0 elsewhere). Each item of the top rows has its vector gathered into one list (in the order of its
    dimensions) with its squared norm, its nonzero features as a list of 0/1 and their count;
    each pair of the top ``depth`` of a query is one row carrying both items' lists, whose dot
    product, differing features (``|a − b| > 0``: exact, as ``a ≠ b`` for any two numbers) and
    features nonzero in both (the dot product of the 0/1 lists: exact counts) are list
    arithmetic on that row: no row per (pair, feature)."""
    if prep.features is None:
        raise InvalidParameterError("a metric reads the item features: pass features=")
    f = FEATURES
    top = rows.select(Q, D, RANK) if depth is None else rows.select(Q, D, RANK).filter(pl.col(RANK) <= depth)
    vector = pl.col(VALUE).sort_by(FEATURE)
    # the vectors of the items some top lists, only
    items = prep.features.join(top.select(D).unique(), on=D, how="semi").group_by(D).agg(
        vector.alias("__v"), (vector * vector).sum().alias("__n"),
        (vector != 0).cast(pl.Float64).alias("__z"), (vector != 0).sum().cast(pl.Float64).alias("__nz"),
    )
    b = top.select(Q, pl.col(D).alias("__d_b"), pl.col(RANK).alias("__rank_b"))
    item_b = items.select(pl.col(D).alias("__d_b"), *[pl.col(c).alias(f"{c}_b") for c in ("__v", "__n", "__z", "__nz")])
    pairs = (
        top.join(b, on=Q).filter(pl.col("__rank_b") < pl.col(RANK))
        .join(items, on=D, how="inner").join(item_b, on="__d_b", how="inner")
    )
    va, vb = pl.col("__v"), pl.col("__v_b")
    norms = pl.col("__n") * pl.col("__n_b")
    both = (pl.col("__z") * pl.col("__z_b")).list.sum()
    either = pl.col("__nz") + pl.col("__nz_b") - both
    distances = pairs.select(
        Q, RANK,
        (1.0 - pl.when(norms > 0).then((va * vb).list.sum() / norms.sqrt()).otherwise(0.0)).alias(f["dcosine"]),
        (va - vb).list.eval(pl.element().abs() > 0).list.sum().cast(pl.Float64).alias(f["dhamming"]),
        pl.when(either > 0).then(1.0 - both / either).otherwise(0.0).alias(f["djaccard"]),
    ).group_by(Q, RANK).agg(pl.col(*f.values()).sum())
    return rows.join(distances, on=[Q, RANK], how="left", maintain_order="left").with_columns(
        pl.col(*f.values()).fill_null(0.0)
    )


def with_category_values(
    rows: pl.LazyFrame, prep: Prepared, conv: Conventions, patiences: Collection[float] = (),
    calibrations: Collection[tuple[Calibration, float]] = (), depth: int | None = None,
) -> pl.LazyFrame:
    """The ranked rows with the item categories' values (:data:`~rankwise._polars.columns.CATEGORIES`,
    :data:`~rankwise.primitives.CATEGORY_COLUMNS`), from the item categories (``prep.categories``:
    one row per (item, category)): each ranked row's (query, category) pairs, each with the
    running count of the category down the query's ranking (and its running sum of the rank
    weights patience^(rnk − 1), for the default patience and each of ``patiences``: their
    :func:`~rankwise.primitives.categories.variant` columns), summed per row; 0 on a row whose item
    has no category. For each (definition, α) of ``calibrations``, the miscalibration at each
    rank (:func:`with_miscalibration`). A value at a rank reads the rows above it only: they are
    computed on the rows ranked ≤ ``depth`` (None: every row; 0 and NULL miscalibration below)."""
    if prep.categories is None:
        raise InvalidParameterError("a metric reads the item categories: pass categories=")
    # every value below reads the ranked rows once, through ``top``: a plan that read the rows
    # joined with the previous value again would double with each (α, definition) asked
    top = rows.select(Q, D, RANK) if depth is None else rows.select(Q, D, RANK).filter(pl.col(RANK) <= depth)
    for definition, alpha in sorted(calibrations):
        rows = with_miscalibration(rows, prep, conv, definition, alpha, top)
    c = CATEGORIES
    weighted = {PATIENCE, *patiences}
    pairs = top.join(prep.categories, on=D, how="inner").sort(Q, CATEGORY, RANK).with_columns(
        pl.int_range(1, pl.len() + 1).over(Q, CATEGORY).cast(pl.Float64).alias("__n"),
        *[pl.lit(patience).pow(pl.col(RANK).cast(pl.Float64) - 1.0).alias(f"__w{i}") for i, patience in enumerate(weighted)],
    ).with_columns(
        (pl.col("__n") - 1.0).alias("__n0"),
        *[pl.col(f"__w{i}").cum_sum().over(Q, CATEGORY).alias(f"__sw{i}") for i in range(len(weighted))],
    ).with_columns(
        *[pl.col(f"__sw{i}").shift(1).over(Q, CATEGORY).fill_null(0.0).alias(f"__sv{i}") for i in range(len(weighted))],
    )
    values = pairs.group_by(Q, RANK).agg(
        (pl.col("__n") == 1.0).sum().cast(pl.Float64).alias(c["catnew"]),
        pl.len().cast(pl.Float64).alias(c["catcount"]),
        (_h(pl.col("__n")) - _h(pl.col("__n0"))).sum().alias(c["catent"]),
        *[
            expr.alias(row_column(variant(name, patience, defaults=(PATIENCE,))))
            for i, patience in enumerate(weighted)
            for name, expr in (
                ("catcountg", pl.col(f"__w{i}").sum()),
                ("catentg", (_h(pl.col(f"__sw{i}")) - _h(pl.col(f"__sv{i}"))).sum()),
            )
        ],
    )
    every = prep.categories.select(pl.col(CATEGORY).n_unique().cast(pl.Float64).alias(c["catall"]))
    return (
        rows.join(values, on=[Q, RANK], how="left", maintain_order="left")
        .join(every, how="cross", maintain_order="left")
        .with_columns(pl.col(*[n for n in values.collect_schema().names() if n not in (Q, RANK)]).fill_null(0.0))
    )


def with_miscalibration(
    rows: pl.LazyFrame, prep: Prepared, conv: Conventions, definition: Calibration, alpha: float,
    top: pl.LazyFrame | None = None,
) -> pl.LazyFrame:
    """The ranked rows with the miscalibration of the list cut at each row's rank (``miscal``,
    :data:`~rankwise.primitives.CATEGORY_COLUMNS`, its :func:`~rankwise.primitives.categories.variant`
    for ``definition`` and ``alpha``).

    ``'steck'``: the user's history (its training items: ``prep.seen``'s (query, item) pairs
    where the queries are not the users, else ``prep.train``'s) gives p(g) = the mean over its
    categorised items of 1/|categories| for each of an item's categories; each ranked row meets
    every category g of its user's p, the listed items' shares of g summed down the ranking (c_g)
    and the categorised items listed so far (n), q(g) = c_g / n (0 while n = 0); miscal =
    Σ_g p ln(p / ((1 − α) q + α p)). NULL on the rows of a user without a categorised training item.

    ``'librec'`` (LibRec's ``CalibrationEvaluator``): :func:`with_librec_calibration`. ``top``: the
    ranked rows' (query, item, rank) to compute from (default: ``rows``'), which are then joined to ``rows``."""
    name = row_column(variant("miscal", definition, alpha, defaults=("steck", ALPHA)))
    top = rows.select(Q, D, RANK) if top is None else top
    if definition == "librec":
        return with_librec_calibration(rows, prep, conv, alpha, name, top)
    if prep.train is None:
        raise InvalidParameterError("a metric reads the training interactions: pass train=")
    assert prep.categories is not None
    history = (prep.train if prep.seen is None else prep.seen).select(Q, D).unique()
    share = prep.categories.with_columns((1.0 / pl.len().over(D).cast(pl.Float64)).alias("__share"))
    p = (
        history.join(share, on=D, how="inner").group_by(Q, CATEGORY).agg(pl.col("__share").sum())
        .with_columns((pl.col("__share") / pl.col("__share").sum().over(Q)).alias("__p")).select(Q, CATEGORY, "__p")
    )
    categorised = top.join(share.select(D).unique().with_columns(pl.lit(1.0).alias("__has")), on=D, how="left").sort(
        Q, RANK
    ).select(Q, RANK, pl.col("__has").fill_null(0.0).cum_sum().over(Q).alias("__ng"))
    q = (
        top.join(p, on=Q, how="inner")
        .join(share, on=[D, CATEGORY], how="left")
        .sort(Q, CATEGORY, RANK)
        .with_columns(pl.col("__share").fill_null(0.0).cum_sum().over(Q, CATEGORY).alias("__cg"))
        .join(categorised, on=[Q, RANK], how="left")
        .with_columns(pl.when(pl.col("__ng") > 0).then(pl.col("__cg") / pl.col("__ng")).otherwise(0.0).alias("__qg"))
    )
    values = q.group_by(Q, RANK).agg(_kl_term(pl.col("__p"), pl.col("__qg"), alpha, math.e).sum().alias(name))
    return rows.join(values, on=[Q, RANK], how="left", maintain_order="left")


def with_librec_calibration(
    rows: pl.LazyFrame, prep: Prepared, conv: Conventions, alpha: float, name: str, top: pl.LazyFrame
) -> pl.LazyFrame:
    """The ranked rows with LibRec's miscalibration of the list cut at each row's rank (column
    ``name``; ``CalibrationEvaluator``, that-recsys-lab/librec @ a4bb9ec): p(g) = the listed items
    down to the row having category g over the rows listed down to it (rnk; an item without a
    category counts in it), q(g) = the user's relevant judgments (relevance ≥ ``conv.rel``: its
    test set) having g over their number; Σ over the categories g of the list with p(g) > 0 of
    p log2(p / ((1 − α) q + α p)), 0 where there is none. NULL on the rows of a user without a
    relevant judgment. ``top``: the ranked rows' (query, item, rank), as :func:`with_miscalibration`'s."""
    assert prep.categories is not None
    categories = prep.categories.select(D, CATEGORY)
    relevant = prep.qrels.filter(pl.col(REL) >= conv.rel).select(Q, D).unique()
    tested = relevant.group_by(Q).agg(pl.len().cast(pl.Float64).alias("__nt"))
    q = (
        relevant.join(categories, on=D, how="inner").group_by(Q, CATEGORY).agg(pl.len().cast(pl.Float64).alias("__t"))
        .join(tested, on=Q, how="inner").select(Q, CATEGORY, (pl.col("__t") / pl.col("__nt")).alias("__qg"))
    )
    listed = top.join(categories, on=D, how="inner").select(Q, CATEGORY).unique()
    p = (
        top.join(listed, on=Q, how="inner")
        .join(categories.with_columns(pl.lit(1.0).alias("__has")), on=[D, CATEGORY], how="left")
        .sort(Q, CATEGORY, RANK)
        .with_columns(pl.col("__has").fill_null(0.0).cum_sum().over(Q, CATEGORY).alias("__c"))
        .filter(pl.col("__c") > 0)
        .join(q, on=[Q, CATEGORY], how="left")
        .with_columns((pl.col("__c") / pl.col(RANK).cast(pl.Float64)).alias("__p"), pl.col("__qg").fill_null(0.0))
    )
    values = p.group_by(Q, RANK).agg(_kl_term(pl.col("__p"), pl.col("__qg"), alpha, 2.0).sum().alias(name))
    return (
        rows.join(values, on=[Q, RANK], how="left", maintain_order="left")
        .join(tested.select(Q, pl.lit(True).alias("__tested")), on=Q, how="left", maintain_order="left")
        .with_columns(pl.when(pl.col("__tested")).then(pl.col(name).fill_null(0.0)).alias(name))
        .drop("__tested")
    )


def _kl_term(p: pl.Expr, q: pl.Expr, alpha: float, base: float) -> pl.Expr:
    """A category's term p log(p / q̃) of the miscalibration, q̃ = (1 − α) q + α p, the log to
    ``base``: −p log α where q = 0 (so that the tiniest α keeps its digits: α p would round to 0);
    as ``rw_calibration_term`` (``sql/65_categories.sql``)."""
    mixed = (1.0 - alpha) * q + alpha * p
    term = pl.when(q == 0.0).then(-p * math.log(alpha)).otherwise(p * (p / mixed).log())
    return term if base == math.e else term / math.log(base)


def _h(s: pl.Expr) -> pl.Expr:
    """(s + ε) log2(s + ε), ε LensKit's 10⁻⁶: a category's term of Σ_g p_g log2 p_g, times Z."""
    return (s + EPSILON) * (s + EPSILON).log(2)


def ideal_lists(qrels: pl.LazyFrame, gain: Gain, values: Iterable[IdealPrefix]) -> pl.LazyFrame:
    """Per query (``__q``), each of ``values`` of the ideal prefix of ``gain``
    (:func:`~rankwise._polars.compile.prefix_columns`, computed on ``qrels``) as a list in the
    ideal order: the i-th value is the prefix's value at rank i, over the judgments of positive
    gain (ranks 1..npos of the ideal order)."""
    order = pl.col(irank_name(gain))
    return qrels.filter(prim.positive_gain(pl.col(REL), gain) > 0).group_by(Q).agg(
        pl.col(c).sort_by(order) for c in prefix_columns(values)
    )


def run_ideal_table(
    prep: Prepared, conv: Conventions, lists: pl.LazyFrame, values: Mapping[str, RunIdealValue]
) -> pl.LazyFrame:
    """``__q, __d`` and each value of ``values`` (column: its key): the run-ordered ideal of
    each gain definition, the judgments of positive gain sorted by gain (best first), then by
    the tie policy's keys over the scores of the ranked documents (``lists``, made with docs
    and scores, and with ``order`` under ``ties='input'``: cut at ``max_rank``), a document not
    ranked taking score 0 (as ir-measures' compat provider; under ``ties='input'``, after every
    ranked one of its score); each query's rank in it made by a window (the inverse of the sorting
    permutation), and the values windows over it."""
    keys, descending = tie_keys(conv, prep.doc_dtype)
    carried = [D, S, *([ORDER] if conv.ties == "input" else [])]
    scored = lists.select(Q, *carried).explode(*carried)
    tables: list[pl.LazyFrame] = []
    for gain in dict.fromkeys(v.g for v in values.values()):
        g = prim.gain(pl.col(REL), gain)
        order = pl.int_range(0, pl.len(), dtype=pl.Int64).sort_by(
            [g, *keys], descending=[True, *descending], nulls_last=conv.ties == "input"
        )
        rows = (
            prep.qrels.filter(prim.positive_gain(pl.col(REL), gain) > 0)
            .join(scored, on=[Q, D], how="left")
            .with_columns(pl.col(S).fill_null(0.0))
            .with_columns((order.arg_sort().cast(pl.Int64) + 1).over(Q).alias(RUN_IRANK))
        )
        tables.append(rows.select(Q, D, *[
            bind(v, pl.col(REL), pl.lit(None), lambda name, given: pl.col(RUN_IRANK)).alias(col)
            for col, v in values.items() if v.g == gain
        ]))
    out = tables[0]
    for table in tables[1:]:
        out = out.join(table, on=[Q, D], how="full", coalesce=True)
    return out

