"""The set-level metrics on the Polars engine (:mod:`rankwise.primitives.sets`): one value per
run or group (``by=`` segment, bootstrap resample), from the ranked rows of the scored users.

1. The ranked rows of the judged users the run lists (the users the per-query metrics score),
   each with its group (:data:`GROUP`) and its weight in the group (:data:`TIMES`: 1, or how
   many times a bootstrap resample drew the user).
2. One exposure table per (cutoff, weight, catalog) the metrics read: per (group, item listed
   at a rank ≤ k) the exposure Σ times · weight(rank), the item's place by exposure, whether it is
   in the catalog, the catalog's size, and the item's training rows where a primitive reads them.
3. Each primitive aggregated over its table per group; each metric's formula over them
   (:func:`~rankwise._polars.bind.tree_value`)."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from rankwise._polars.bind import bind_rows, tree_value
from rankwise._polars.columns import RANK, REL, TRAIN, D, Q
from rankwise._polars.plan import train_tables
from rankwise._polars.prepare import Prepared
from rankwise._polars.ranking import ranked
from rankwise.conventions import Conventions
from rankwise.errors import InvalidParameterError
from rankwise.metrics.recipes import Output
from rankwise.primitives import Input, Primitive, SetPrimitive, leaves

GROUP = "__group"
"""The group a user's rows count in (one group: 0)."""
TIMES = "__times"
"""How many times the user counts in its group (a bootstrap resample draws a user 0, 1, 2, ... times)."""
EXPO, POS, INCAT, NCAT, LISTS, NSCORED, LENGTH, INGROUP, NGROUP, GSIZE, GMEAN = (
    "__expo", "__pos", "__incat", "__ncat", "__lists", "__nscored", "__length", "__ingroup", "__ngroup", "__gsize",
    "__gmean",
)
IGROUP, IWEIGHT = "__igroup", "__iweight"
"""The document groups' columns (``item_groups``): a document's group and its weight there."""


def _key(leaf: SetPrimitive) -> str:
    return f"__set:{leaf!r}"


def _no_input(name: str, given: Input) -> pl.Expr:
    raise TypeError(f"a set-level primitive reads no input ({name}: {given!r})")


def _catalog_items(prep: Prepared, within: str, catalog: pl.LazyFrame | None) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """The items of a catalog (``__d``, of the run's id type: an item of another type that
    cannot be one is in no list) and its size: the training items, or the ``catalog=`` input's."""
    if within == "train":
        if prep.train is None:
            raise InvalidParameterError("a metric reads the training items as its catalog: pass train=")
        items = prep.train.select(D).unique()
    elif catalog is None:
        raise InvalidParameterError("a metric reads the catalog: pass catalog=")
    else:
        items = catalog.select(D).unique()
    size = items.select(pl.len().cast(pl.Float64).alias(NCAT))
    return items.select(pl.col(D).cast(prep.doc_dtype, strict=False)).drop_nulls(), size


def _training(prep: Prepared) -> pl.LazyFrame:
    if prep.train is None:
        raise InvalidParameterError("a metric reads the training interactions: pass train=")
    return prep.train


def _pairs(source: str, prep: Prepared, conv: Conventions, users: pl.LazyFrame) -> pl.LazyFrame:
    """The (user, item) pairs of the users scored (``users``: their groups and counts) that a
    table of ``source`` aggregates (:data:`~rankwise.primitives.sets.Pairs`), with the user's
    group and count."""
    seen = (_training(prep) if prep.seen is None else prep.seen).select(Q, D).unique()
    if source == "history":
        pairs = seen
    else:  # their relevant judgments of items absent from their training
        relevant = prep.qrels.filter(pl.col(REL) >= conv.rel).select(Q, D).unique()
        pairs = relevant.join(seen, on=[Q, D], how="anti")
    return pairs.join(users, on=Q, how="inner")


def _by_item_group(table: pl.LazyFrame, prep: Prepared, item_groups: pl.LazyFrame | None) -> pl.LazyFrame:
    """The per-item exposure ``table`` as a table by document group (see
    :mod:`rankwise.primitives.sets`): every group of ``item_groups`` in each user group where
    something is listed, its exposure Σ expo · weight (0 for a group never listed), its size
    Σ weight and the mean over the groups of exposure / size."""
    if item_groups is None:
        raise InvalidParameterError("a metric reads the document groups: pass groups=")
    members = item_groups.with_columns(pl.col(D).cast(prep.doc_dtype, strict=False)).drop_nulls(D)
    # a group whose documents all weigh 0 holds no item: left out
    sizes = item_groups.group_by(IGROUP).agg(pl.col(IWEIGHT).sum().cast(pl.Float64).alias(GSIZE)).filter(
        pl.col(GSIZE) > 0
    )
    exposed = table.join(members, on=D, how="inner").group_by(GROUP, IGROUP).agg(
        (pl.col(EXPO) * pl.col(IWEIGHT)).sum().alias(EXPO)
    )
    every = table.select(GROUP).unique().join(sizes, how="cross")
    return every.join(exposed, on=[GROUP, IGROUP], how="left").with_columns(
        pl.col(EXPO).fill_null(0.0)
    ).with_columns((pl.col(EXPO) / pl.col(GSIZE)).mean().over(GROUP).alias(GMEAN))


def _exposure(
    rows: pl.LazyFrame, users: pl.LazyFrame, leaf: SetPrimitive, prep: Prepared, conv: Conventions,
    catalog: pl.LazyFrame | None, item_groups: pl.LazyFrame | None = None,
) -> pl.LazyFrame:
    """The exposure table ``leaf`` reads (see the module's step 2)."""
    k, weight, patience = leaf.exposure()
    within = leaf.catalog()
    if leaf.pairs() == "listed":
        listed = rows if k is None else rows.filter(pl.col(RANK) <= k)
        length = pl.col(LENGTH)
        if weight in ("share", "root"):  # the rows of the user's list within k
            listed = listed.with_columns(pl.len().over(GROUP, Q).cast(pl.Float64).alias(LENGTH))
        step = {
            "count": pl.lit(1.0), "geometric": pl.lit(patience).pow(pl.col(RANK) - 1), "share": 1.0 / length,
            "root": 1.0 / length.sqrt(), "relevant": (pl.col(REL) >= conv.rel).fill_null(False).cast(pl.Float64),
            "attention": 100.0 * patience * pl.lit(1.0 - patience).pow(pl.col(RANK) - 1),
            "log": 1.0 / (pl.col(RANK).cast(pl.Float64) + 1.0).log(2),
        }[weight]
    else:
        listed, step = _pairs(leaf.pairs(), prep, conv, users), pl.lit(1.0)
    table = listed.group_by(GROUP, D).agg(
        (pl.col(TIMES) * step).sum().alias(EXPO), pl.col(TIMES).sum().cast(pl.Float64).alias(LISTS)
    ).filter(pl.col(EXPO) > 0)
    if leaf.by_item_group():
        return _by_item_group(table, prep, item_groups)
    table = table.with_columns(pl.col(EXPO).rank("ordinal").over(GROUP).cast(pl.Float64).alias(POS))
    if within == "listed":  # the listed items are the catalog
        table = table.with_columns(pl.lit(True).alias(INCAT), pl.len().over(GROUP).cast(pl.Float64).alias(NCAT))
    else:
        items, size = _catalog_items(prep, within, catalog)
        table = table.join(
            items.with_columns(pl.lit(True).alias(INCAT)), on=D, how="left"
        ).with_columns(pl.col(INCAT).fill_null(False)).join(size, how="cross")
    if "irows" in leaf.reads:
        per_item = _training(prep).group_by(D).agg(pl.len().cast(pl.Float64).alias(TRAIN["irows"]))
        table = table.join(per_item, on=D, how="left").with_columns(pl.col(TRAIN["irows"]).fill_null(0.0)).join(
            _training(prep).select(pl.len().cast(pl.Float64).alias(TRAIN["nrows"])), how="cross"
        )
    if "nscored" in leaf.reads:
        table = table.join(
            users.group_by(GROUP).agg(pl.col(TIMES).sum().cast(pl.Float64).alias(NSCORED)), on=GROUP, how="left"
        )
    if (group := leaf.popularity_group()) is not None:
        table = _with_group(table, prep, *group)
    return table


def _with_group(table: pl.LazyFrame, prep: Prepared, head: float, tail: bool) -> pl.LazyFrame:
    """``table`` with its items' membership of a popularity group (:data:`INGROUP`) and the
    group's size (:data:`NGROUP`): the short head, the training items by distinct users descending
    (ties by item id) while the users of the items before stay below ``head`` of the training's
    (user, item) pairs (the popularity family's ``ibefore``), or with ``tail`` the other training items."""
    per_item, totals = prep.train_tables or train_tables(_training(prep))
    before, pairs = pl.col(TRAIN["ibefore"]), pl.col(TRAIN["npairs"])
    members = per_item.join(totals.select(TRAIN["npairs"]), how="cross").filter(
        before >= head * pairs if tail else before < head * pairs
    ).select(D)
    size = members.select(pl.len().cast(pl.Float64).alias(NGROUP))
    return table.join(members.with_columns(pl.lit(True).alias(INGROUP)), on=D, how="left").with_columns(
        pl.col(INGROUP).fill_null(False)
    ).join(size, how="cross")


def scored_rows(prep: Prepared, conv: Conventions, judged_only: bool) -> pl.LazyFrame:
    """The ranked rows (``__q``, ``__d``, ``__rank``, ``__rel``) of the judged users the run lists."""
    judged = prep.qrels.select(Q).unique()
    return ranked(prep, conv, judged_only, docs=True).join(judged, on=Q, how="semi").select(Q, D, RANK, REL)


def _grouped(rows: pl.LazyFrame, groups: pl.LazyFrame | None, prep: Prepared) -> pl.LazyFrame:
    """``rows`` (by user, ``__q``) with each user's group and count there (:data:`GROUP`,
    :data:`TIMES`): one group 0 where ``groups`` is None."""
    if groups is None:
        return rows.with_columns(pl.lit(0, pl.Int64).alias(GROUP), pl.lit(1.0).alias(TIMES))
    return rows.join(groups.with_columns(pl.col(Q).cast(prep.query_dtype)), on=Q, how="inner")


def _users(prep: Prepared, conv: Conventions, rows: pl.LazyFrame, groups: pl.LazyFrame | None) -> pl.LazyFrame:
    """The users scored, each with its group and count there: the judged users the run lists,
    and with ``missing='zero'`` every judged user (a user without a list among them)."""
    if conv.missing == "zero":
        return _grouped(prep.qrels.select(Q).unique(), groups, prep)
    return rows.select(GROUP, Q, TIMES).unique()


def set_values(
    prep: Prepared, outs: Sequence[Output], conv: Conventions, groups: pl.LazyFrame | None = None,
    catalog: pl.LazyFrame | None = None, item_groups: pl.LazyFrame | None = None,
) -> pl.DataFrame:
    """The set-level outputs per group: ``groups`` maps each user (``__q``) to its groups
    (:data:`GROUP`) and its count there (:data:`TIMES`); None: every user once, in one group 0.
    ``catalog``: the ``catalog=`` input's items (``__d``); ``item_groups``: the document groups
    (``__d``, :data:`IGROUP`, :data:`IWEIGHT`).
    A group where no user lists anything has NULL values; the rows are sorted by group."""
    values: dict[str, pl.Expr] = {}
    tables: dict[tuple[object, ...], tuple[pl.LazyFrame, list[SetPrimitive]]] = {}
    per_ranking: dict[bool, pl.LazyFrame] = {}
    for out in outs:
        for leaf in leaves(out.tree):
            if not isinstance(leaf, SetPrimitive):
                raise TypeError(f"{out.label} is no set-level metric ({leaf!r})")
            if out.judged_only not in per_ranking:
                rows = scored_rows(prep, conv, out.judged_only)
                per_ranking[out.judged_only] = _grouped(rows, groups, prep)
            key = (
                out.judged_only, *leaf.exposure(), leaf.catalog(), leaf.pairs(), leaf.popularity_group(),
                leaf.by_item_group(), "irows" in leaf.reads, "nscored" in leaf.reads,
            )
            if key not in tables:
                users = _users(prep, conv, per_ranking[out.judged_only], groups)
                tables[key] = (
                    _exposure(per_ranking[out.judged_only], users, leaf, prep, conv, catalog, item_groups), []
                )
            if leaf not in tables[key][1]:
                tables[key][1].append(leaf)
    names = groups.select(GROUP).unique() if groups is not None else pl.LazyFrame({GROUP: [0]}, schema={GROUP: pl.Int64})
    result = names
    columns = {
        "expo": pl.col(EXPO), "pos": pl.col(POS), "incat": pl.col(INCAT), "ncat": pl.col(NCAT),
        "lists": pl.col(LISTS), "nscored": pl.col(NSCORED), "ingroup": pl.col(INGROUP), "ngroup": pl.col(NGROUP),
        "gsize": pl.col(GSIZE), "gmean": pl.col(GMEAN),
        "irows": pl.col(TRAIN["irows"]), "nrows": pl.col(TRAIN["nrows"]),
    }
    for table, needed in tables.values():
        aggregated = table.group_by(GROUP).agg(bind_rows(leaf, columns, _no_input).alias(_key(leaf)) for leaf in needed)
        result = result.join(aggregated, on=GROUP, how="left")
    for out in outs:  # a group without rows in a table: its primitives' value there (empty), else NULL
        values[out.label] = tree_value(out.tree, _value).cast(pl.Float64)
    return result.select(GROUP, **values).sort(GROUP).collect()


def _value(leaf: Primitive) -> pl.Expr:
    assert isinstance(leaf, SetPrimitive)
    value = pl.col(_key(leaf))
    return value if leaf.empty is None else value.fill_null(float(leaf.empty))
