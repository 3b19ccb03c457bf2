"""Binding a primitive to its Polars function (:mod:`rankwise._polars.primitives`, by its
binding name): each parameter filled by name from the rows' columns, the primitive's inputs or
its fields (:func:`bind`, :func:`bind_rows`); a recipe's tree over the aggregates (:func:`tree_value`); and the row terms a group-by's aggregates share,
each computed once as a column (:class:`Terms`)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import polars as pl

from rankwise._polars import primitives as prim
from rankwise._polars.columns import (
    BASE,
    CATALOG,
    CATEGORIES,
    FAIR,
    FEATURES,
    FEATURES_HISTORY,
    GROUPS,
    TRAIN,
    C,
    D,
    Q,
    S,
    row_column,
)
from rankwise.errors import InvalidParameterError
from rankwise.primitives import Bound, Gain, Input, Node, Primitive, fold


@functools.cache
def params(fn: Callable[..., pl.Expr]) -> tuple[str, ...]:
    """The parameter names of a Polars function of a primitive (read once per function)."""
    return tuple(inspect.signature(fn).parameters)


def bind(
    obj: Bound, rel: pl.Expr, rnk: pl.Expr, input_of: Callable[[str, Input], pl.Expr], cost: pl.Expr | None = None
) -> pl.Expr:
    """Call ``obj``'s Polars function (:mod:`rankwise._polars.primitives`, by its binding name)
    with its row columns ``rel``, ``rnk`` and ``cost`` (default: the ranked rows' cost column),
    the plan's query and score columns (its variants of row columns where it reads them:
    :meth:`~rankwise.primitives.Bound.variant_columns`), its inputs (``input_of(name, input)``)
    and its fields, each by parameter name (:func:`bind_rows`)."""
    rows = {
        "rel": rel, "rnk": rnk, "qid": pl.col(Q), "score": pl.col(S), "cost": pl.col(C) if cost is None else cost,
        **{name: pl.col(col) for name, col in TRAIN.items()},
        **{name: pl.col(col) for name, col in FEATURES.items()},
        **{name: pl.col(col) for name, col in BASE.items()},
        **{name: pl.col(col) for name, col in CATEGORIES.items()},
        **{name: pl.col(col) for name, col in CATALOG.items()},
        **{name: pl.col(col) for name, col in FEATURES_HISTORY.items()},
        **{name: pl.col(col) for name, col in FAIR.items()},
        **{name: pl.col(col) for name, col in GROUPS.items()},
        **{name: pl.col(row_column(col)) for name, col in obj.variant_columns().items()},
        "doc": pl.col(D),
    }
    return bind_rows(obj, rows, input_of)


def bind_rows(obj: Bound, rows: Mapping[str, pl.Expr], input_of: Callable[[str, Input], pl.Expr]) -> pl.Expr:
    """Call ``obj``'s Polars function by its binding name with the row columns ``rows``
    (``rel``, ``rnk``, ``qid``, ``score``, ``cost``: the plan's columns, or a group's rows
    inside ``list.eval`` for the expression API), its inputs (``input_of``) and its fields,
    each by parameter name; a :class:`Gain` field is passed as the gain of ``rel`` (a
    :func:`~rankwise._polars.primitives.row` term)."""
    fn = getattr(prim, obj.binding())
    given, values = obj.inputs(), obj.values()
    kwargs: dict[str, object] = {}
    for name in params(fn):
        if name in rows:
            kwargs[name] = rows[name]
        elif name in given:
            kwargs[name] = input_of(name, given[name])
        else:
            value = values[name]
            kwargs[name] = prim.row(prim.gain(rows["rel"], value)) if isinstance(value, Gain) else value
    return fn(**kwargs)  # type: ignore[no-any-return]


def tree_value(node: Node, primitive: Callable[[Primitive], pl.Expr], qid: pl.Expr | None = None) -> pl.Expr:
    """A recipe's tree as one Polars expression: each aggregate as ``primitive`` gives it, each
    scalar operation its Polars function (by binding name) of its operands and parameters, by
    name, constants as Float64 literals (:func:`rankwise.primitives.fold`); ``qid``: the
    query's column, for an operation that names the query (None: a NULL, where no query
    column is at hand)."""
    query = pl.lit(None, dtype=pl.String) if qid is None else qid
    return fold(
        node,
        const=lambda value: pl.lit(value, dtype=pl.Float64),
        primitive=primitive,
        operation=lambda op, operands: _operation(op, operands, query),
    )


def _operation(op: Bound, operands: Mapping[str, pl.Expr], qid: pl.Expr) -> pl.Expr:
    """A scalar operation's Polars function (by its binding name) called with its operands,
    the query column (``qid``) and its other fields, each by parameter name."""
    fn: Callable[..., pl.Expr] = getattr(prim, op.binding())
    values = op.values()
    kwargs = {
        name: operands[name] if name in operands else qid if name == "qid" else values[name] for name in params(fn)
    }
    return fn(**kwargs)


def no_input(name: str, given: Input) -> pl.Expr:
    """The input of a primitive that cannot be computed where it is asked: an error."""
    raise InvalidParameterError(f"{given!r} cannot be computed here")


@dataclass
class Terms:
    """Row-wise terms shared by the aggregates of one group-by (the primitives'
    :func:`~rankwise._polars.primitives.row` terms: the gain, relevant or not, g / discount of
    the rank, precision at the rank, ...), each computed once as a column of the rows before
    the group-by: Polars does not share common subexpressions between a group-by's
    aggregations (``all_trec`` computed g / log2(rank + 1) once for each of its 10 cutoffs, and
    the gain 20 times), about 20% of its time."""

    columns: dict[str, pl.Expr] = field(default_factory=dict)
    names: dict[bytes, str] = field(default_factory=dict)
    """Each term's column, by the term (serialised)."""

    def hoist(self, term: pl.Expr) -> pl.Expr:
        """The column of ``term`` (added on first use)."""
        col = self.names.setdefault(term.meta.serialize(), f"__term{len(self.names)}")
        self.columns.setdefault(col, term)
        return pl.col(col)

    def bind(self, obj: Bound, rel: pl.Expr, rnk: pl.Expr, input_of: Callable[[str, Input], pl.Expr]) -> pl.Expr:
        """:func:`bind`, its row terms read from these columns (its inputs' own terms are
        not: they are not terms of these rows)."""

        def own(name: str, given: Input) -> pl.Expr:
            with prim.hoisting(None):
                return input_of(name, given)

        with prim.hoisting(self.hoist):
            return bind(obj, rel, rnk, own)

    def add_to(self, rows: pl.LazyFrame) -> pl.LazyFrame:
        """``rows`` with the terms' columns, in the order registered (a term may read an
        earlier one: the gain inside g / discount)."""
        for col, term in self.columns.items():
            rows = rows.with_columns(term.alias(col))
        return rows

