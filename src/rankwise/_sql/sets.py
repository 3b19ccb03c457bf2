"""The set-level metrics in SQL (:mod:`rankwise.primitives.sets`): one statement giving one row
per group (``grp``: a ``by=`` segment, a bootstrap resample; 0 without groups), with the same
steps as the Polars engine's set pass (:mod:`rankwise._polars.sets`):

1. ``scored``: the ranked rows (``rw_ranked``'s order, :func:`~rankwise._sql.compiler._ranking_cte`)
   of the judged users the run lists, each with its group and its count there (``times``).
2. One exposure table per (cutoff, weight, catalog) the metrics read (``x0``, ``x1``, ...): per
   (group, item listed at a rank ≤ k) the exposure, the item's place by exposure, whether it is in
   the catalog, the catalog's size, and the item's training rows where read.
3. Each primitive's ``rw_*`` macro (``sql/58_sets.sql``) aggregated per group, each metric's formula
   over them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from rankwise._sql.compiler import _ranking_cte, _train_values, bind, joined_cte, literal
from rankwise.conventions import Columns, Conventions, quote_identifier
from rankwise.errors import InvalidParameterError
from rankwise.metrics.recipes import Output
from rankwise.primitives import Input, Op, Primitive, SetPrimitive, fold, leaves


def _catalog(within: str, train: str | None, catalog: str | None) -> str:
    """The FROM fragment of a catalog's items (``doc_id``)."""
    if within == "train":
        if train is None:
            raise InvalidParameterError("a metric reads the training items as its catalog: pass train=")
        return f"(SELECT DISTINCT doc_id FROM {train})"
    if catalog is None:
        raise InvalidParameterError("a metric reads the catalog: pass catalog=")
    return f"(SELECT DISTINCT doc_id FROM {catalog})"


def set_statement(
    outs: Sequence[Output], conv: Conventions, columns: Columns, run: str, qrels: str, *,
    train: str | None = None, catalog: str | None = None, groups: str | None = None, seen: str | None = None,
    item_groups: str | None = None, quote: Callable[[str], str] = quote_identifier, group: bool = True,
) -> str:
    """The statement of the set-level outputs ``outs`` over the normalised inputs (FROM
    fragments: ``run`` query_id, doc_id, score; ``qrels`` query_id, doc_id, relevance; ``train``
    query_id, doc_id; ``catalog`` doc_id; ``groups`` query_id, grp, times — None: every user once
    in group 0; ``seen`` query_id, doc_id: the items each query's user has trained, where the
    queries are not the users — None: ``train``'s pairs; ``item_groups`` doc_id, grp, weight: the
    document groups): columns ``grp`` (without ``group``: none) and one per output, one row per
    group, sorted by group."""
    ctes = [joined_cte(conv, columns, run, qrels), "judged AS (SELECT DISTINCT query_id FROM " + qrels + ")"]
    rankings: dict[bool, str] = {}
    tables: dict[tuple[object, ...], tuple[str, list[SetPrimitive]]] = {}
    trained = False  # the training's per-item values (ibefore, npairs) are among the CTEs
    for out in outs:
        for leaf in leaves(out.tree):
            if not isinstance(leaf, SetPrimitive):
                raise TypeError(f"{out.label} is no set-level metric ({leaf!r})")
            part = out.judged_only
            if part not in rankings:
                p = int(part)
                ctes.append(_ranking_cte(f"ranked{p}", conv, part, {}, docs=True))
                cut = f" AND r.rnk <= {literal(conv.max_rank)}" if conv.max_rank is not None else ""
                grouped = (
                    f"r.query_id, r.doc_id, r.rnk, r.relevance, g.grp, g.times FROM ranked{p} AS r "
                    f"JOIN {groups} AS g USING (query_id)"
                    if groups is not None
                    else f"r.query_id, r.doc_id, r.rnk, r.relevance, 0 AS grp, 1.0 AS times FROM ranked{p} AS r"
                )
                ctes.append(
                    f"scored{p} AS (SELECT {grouped} WHERE r.query_id IN (SELECT query_id FROM judged){cut})"
                )
                users = (  # the users scored, each in its group: with missing='zero' every judged user
                    (f"SELECT g.grp, j.query_id, g.times FROM judged AS j JOIN {groups} AS g USING (query_id)"
                     if groups is not None else "SELECT 0 AS grp, query_id, 1.0 AS times FROM judged")
                    if conv.missing == "zero" else f"SELECT DISTINCT grp, query_id, times FROM scored{p}"
                )
                ctes.append(f"users{p} AS ({users})")
                rankings[part] = f"scored{p}"
            if leaf.popularity_group() is not None and not trained:
                ctes.extend(_train_values(True, train)[0])
                trained = True
            key = (
                part, *leaf.exposure(), leaf.catalog(), leaf.pairs(), leaf.popularity_group(), leaf.by_item_group(),
                "irows" in leaf.reads, "nscored" in leaf.reads,
            )
            if key not in tables:
                tables[key] = (
                    _exposure(ctes, len(tables), rankings[part], leaf, conv, qrels, train, seen, catalog, item_groups),
                    [],
                )
            if leaf not in tables[key][1]:
                tables[key][1].append(leaf)
    names: dict[Primitive, str] = {}
    joins = []
    for n, (table, needed) in enumerate(tables.values()):
        cols = []
        for i, leaf in enumerate(needed):
            names[leaf] = f"a{n}.s{i}"
            cols.append(f"{bind(leaf, _no_input)} AS s{i}")
        ctes.append(f"a{n} AS (SELECT grp, {', '.join(cols)} FROM {table} GROUP BY grp)")
        joins.append(f"LEFT JOIN a{n} USING (grp)")
    every = f"(SELECT DISTINCT grp FROM {groups})" if groups is not None else "(SELECT 0 AS grp)"
    values = [  # a group without rows in a table: its primitives' value there (empty), else NULL
        f"CAST({fold(out.tree, const=literal, primitive=lambda leaf: _value(leaf, names), operation=_operation)} AS DOUBLE) "
        f"AS {quote(out.label)}"
        for out in outs
    ]
    return (
        "WITH " + ",\n".join(ctes) + f"\nSELECT {'g.grp AS grp, ' if group else ''}{', '.join(values)}\n"
        f"FROM {every} AS g " + " ".join(joins) + ("\nORDER BY g.grp" if group else "")
    )


def _value(leaf: Primitive, names: Mapping[Primitive, str]) -> str:
    empty = getattr(leaf, "empty", None)
    return names[leaf] if empty is None else f"coalesce({names[leaf]}, {literal(float(empty))})"


def _no_input(name: str, given: Input) -> str:
    raise TypeError(f"a set-level primitive reads no input ({name}: {given!r})")


def _operation(op: Op, operands: Mapping[str, str]) -> str:
    return bind(op, lambda name, given: operands[name])


def _pairs(source: str, users: str, conv: Conventions, qrels: str, train: str | None, seen: str | None) -> str:
    """The FROM fragment of the (user, item) pairs of the users scored (``users``: their groups
    and counts) that a table of ``source`` aggregates (:data:`~rankwise.primitives.sets.Pairs`)."""
    if train is None:
        raise InvalidParameterError("a metric reads the training interactions: pass train=")
    seen = f"(SELECT DISTINCT query_id, doc_id FROM {seen or train})"
    if source == "history":
        pairs = seen
    else:  # their relevant judgments of items absent from their training
        pairs = (
            f"(SELECT q.query_id, q.doc_id FROM (SELECT DISTINCT query_id, doc_id FROM {qrels} "
            f"WHERE relevance >= {literal(conv.rel)}) AS q LEFT JOIN {seen} AS t "
            "ON t.query_id = q.query_id AND t.doc_id = q.doc_id WHERE t.doc_id IS NULL)"
        )
    return f"(SELECT u.grp, u.query_id, p.doc_id, u.times FROM {pairs} AS p JOIN {users} AS u USING (query_id))"


def _by_item_group(ctes: list[str], n: int, item_groups: str | None) -> str:
    """Add the CTE of the table by document group made from the per-item exposure ``e{n}`` (see
    :mod:`rankwise.primitives.sets`); its name."""
    if item_groups is None:
        raise InvalidParameterError("a metric reads the document groups: pass groups=")
    sizes = (  # a group whose documents all weigh 0 holds no item: left out
        f"(SELECT grp AS igroup, CAST(sum(weight) AS DOUBLE) AS gsize FROM {item_groups} GROUP BY grp "
        "HAVING sum(weight) > 0)"
    )
    exposed = (
        f"(SELECT e.grp, m.grp AS igroup, sum(e.expo * m.weight) AS expo FROM e{n} AS e "
        f"JOIN {item_groups} AS m ON m.doc_id = e.doc_id GROUP BY e.grp, m.grp)"
    )
    ctes.append(
        f"g{n} AS (SELECT u.grp, s.igroup, coalesce(x.expo, 0.0) AS expo, s.gsize FROM (SELECT DISTINCT grp FROM e{n}) AS u "
        f"CROSS JOIN {sizes} AS s LEFT JOIN {exposed} AS x ON x.grp = u.grp AND x.igroup = s.igroup)"
    )
    ctes.append(f"x{n} AS (SELECT *, avg(expo / gsize) OVER (PARTITION BY grp) AS gmean FROM g{n})")
    return f"x{n}"


def _exposure(
    ctes: list[str], n: int, scored: str, leaf: SetPrimitive, conv: Conventions, qrels: str, train: str | None,
    seen: str | None, catalog: str | None, item_groups: str | None = None,
) -> str:
    """Add the CTEs of the exposure table ``leaf`` reads (see the module's step 2); its name."""
    k, weight, patience = leaf.exposure()
    within = leaf.catalog()
    users = f"users{scored.removeprefix('scored')}"
    length = "CAST(count(*) OVER (PARTITION BY grp, query_id) AS DOUBLE)"  # the rows of the user's list within k
    step = {
        "count": "1.0", "geometric": f"power({literal(patience)}, rnk - 1)", "share": "1.0 / nlist",
        "root": "1.0 / sqrt(nlist)", "relevant": f"CASE WHEN relevance >= {literal(conv.rel)} THEN 1.0 ELSE 0.0 END",
        "attention": f"100.0 * {literal(patience)} * power({literal(1.0 - patience)}, rnk - 1)",
        "log": "1.0 / log2(rnk + 1.0)",
    }[weight]
    where = "" if k is None else f" WHERE rnk <= {literal(k)}"
    if leaf.pairs() != "listed":
        listed, step = _pairs(leaf.pairs(), users, conv, qrels, train, seen), "1.0"
    elif weight in ("share", "root"):
        listed = f"(SELECT *, {length} AS nlist FROM {scored}{where})"
    else:
        listed = f"{scored}{where}"
    ctes.append(
        f"e{n} AS (SELECT grp, doc_id, sum(times * {step}) AS expo, CAST(sum(times) AS DOUBLE) AS lists "
        f"FROM {listed} GROUP BY grp, doc_id HAVING sum(times * {step}) > 0)"
    )
    if leaf.by_item_group():
        return _by_item_group(ctes, n, item_groups)
    pos = "CAST(row_number() OVER (PARTITION BY e.grp ORDER BY e.expo, e.doc_id) AS DOUBLE) AS pos"
    if within == "listed":
        incat, joins = "TRUE AS incat, CAST(count(*) OVER (PARTITION BY e.grp) AS DOUBLE) AS ncat", ""
    else:
        items = _catalog(within, train, catalog)
        incat = f"c.doc_id IS NOT NULL AS incat, (SELECT CAST(count(*) AS DOUBLE) FROM {items} AS ci) AS ncat"
        joins = f" LEFT JOIN {items} AS c ON c.doc_id = e.doc_id"
    training = ""
    if "irows" in leaf.reads:
        if train is None:
            raise InvalidParameterError("a metric reads the training interactions: pass train=")
        training = (
            f", coalesce(t.irows, 0.0) AS irows, (SELECT CAST(count(*) AS DOUBLE) FROM {train} AS tr) AS nrows"
        )
        joins += (
            f" LEFT JOIN (SELECT doc_id, CAST(count(*) AS DOUBLE) AS irows FROM {train} GROUP BY doc_id) AS t "
            "ON t.doc_id = e.doc_id"
        )
    if "nscored" in leaf.reads:
        training += ", u.nscored"
        joins += (
            f" LEFT JOIN (SELECT grp, CAST(sum(times) AS DOUBLE) AS nscored FROM {users} GROUP BY grp) AS u "
            "ON u.grp = e.grp"
        )
    if (group := leaf.popularity_group()) is not None:
        head, tail = group
        members = (
            "(SELECT ti.doc_id FROM rw_train_items AS ti CROSS JOIN rw_train_totals AS tt "
            f"WHERE ti.ibefore {'>=' if tail else '<'} {literal(head)} * tt.npairs)"
        )
        training += f", pg.doc_id IS NOT NULL AS ingroup, (SELECT CAST(count(*) AS DOUBLE) FROM {members} AS m) AS ngroup"
        joins += f" LEFT JOIN {members} AS pg ON pg.doc_id = e.doc_id"
    ctes.append(f"x{n} AS (SELECT e.grp, e.doc_id, e.expo, e.lists, {pos}, {incat}{training} FROM e{n} AS e{joins})")
    return f"x{n}"
