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

from rankwise._sql.compiler import _ranking_cte, bind, joined_cte, literal
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
    train: str | None = None, catalog: str | None = None, groups: str | None = None,
    quote: Callable[[str], str] = quote_identifier, group: bool = True,
) -> str:
    """The statement of the set-level outputs ``outs`` over the normalised inputs (FROM
    fragments: ``run`` query_id, doc_id, score; ``qrels`` query_id, doc_id, relevance; ``train``
    query_id, doc_id; ``catalog`` doc_id; ``groups`` query_id, grp, times — None: every user once
    in group 0): columns ``grp`` (without ``group``: none) and one per output, one row per group,
    sorted by group."""
    ctes = [joined_cte(conv, columns, run, qrels), "judged AS (SELECT DISTINCT query_id FROM " + qrels + ")"]
    rankings: dict[bool, str] = {}
    tables: dict[tuple[object, ...], tuple[str, list[SetPrimitive]]] = {}
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
                    f"r.query_id, r.doc_id, r.rnk, g.grp, g.times FROM ranked{p} AS r JOIN {groups} AS g USING (query_id)"
                    if groups is not None else f"r.query_id, r.doc_id, r.rnk, 0 AS grp, 1.0 AS times FROM ranked{p} AS r"
                )
                ctes.append(
                    f"scored{p} AS (SELECT {grouped} WHERE r.query_id IN (SELECT query_id FROM judged){cut})"
                )
                users = (  # the users scored per group: with missing='zero' every judged user
                    (f"SELECT g.grp, g.times FROM judged AS j JOIN {groups} AS g USING (query_id)"
                     if groups is not None else "SELECT 0 AS grp, 1.0 AS times FROM judged")
                    if conv.missing == "zero" else f"SELECT DISTINCT grp, query_id, times FROM scored{p}"
                )
                ctes.append(f"users{p} AS (SELECT grp, CAST(sum(times) AS DOUBLE) AS nscored FROM ({users}) GROUP BY grp)")
                rankings[part] = f"scored{p}"
            key = (part, *leaf.exposure(), leaf.catalog(), "irows" in leaf.reads, "nscored" in leaf.reads)
            if key not in tables:
                tables[key] = (_exposure(ctes, len(tables), rankings[part], leaf, train, catalog), [])
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
    values = [
        f"CAST({fold(out.tree, const=literal, primitive=lambda leaf: names[leaf], operation=_operation)} AS DOUBLE) "
        f"AS {quote(out.label)}"
        for out in outs
    ]
    return (
        "WITH " + ",\n".join(ctes) + f"\nSELECT {'g.grp AS grp, ' if group else ''}{', '.join(values)}\n"
        f"FROM {every} AS g " + " ".join(joins) + ("\nORDER BY g.grp" if group else "")
    )


def _no_input(name: str, given: Input) -> str:
    raise TypeError(f"a set-level primitive reads no input ({name}: {given!r})")


def _operation(op: Op, operands: Mapping[str, str]) -> str:
    return bind(op, lambda name, given: operands[name])


def _exposure(
    ctes: list[str], n: int, scored: str, leaf: SetPrimitive, train: str | None, catalog: str | None
) -> str:
    """Add the CTEs of the exposure table ``leaf`` reads (see the module's step 2); its name."""
    k, weight, patience = leaf.exposure()
    within = leaf.catalog()
    length = "CAST(count(*) OVER (PARTITION BY grp, query_id) AS DOUBLE)"  # the rows of the user's list within k
    step = {
        "count": "1.0", "geometric": f"power({literal(patience)}, rnk - 1)", "share": "1.0 / nlist",
        "root": "1.0 / sqrt(nlist)",
    }[weight]
    where = "" if k is None else f" WHERE rnk <= {literal(k)}"
    listed = f"(SELECT *, {length} AS nlist FROM {scored}{where})" if weight in ("share", "root") else f"{scored}{where}"
    ctes.append(
        f"e{n} AS (SELECT grp, doc_id, sum(times * {step}) AS expo, CAST(sum(times) AS DOUBLE) AS lists "
        f"FROM {listed} GROUP BY grp, doc_id HAVING sum(times * {step}) > 0)"
    )
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
        joins += f" LEFT JOIN users{scored.removeprefix('scored')} AS u ON u.grp = e.grp"
    ctes.append(f"x{n} AS (SELECT e.grp, e.doc_id, e.expo, e.lists, {pos}, {incat}{training} FROM e{n} AS e{joins})")
    return f"x{n}"
