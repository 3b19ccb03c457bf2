"""Scalar operations on per-query values (a recipe's inner nodes: safe division, sums, powers; the
SQL macros of ``sql/00_core.sql``) and walks over a recipe's tree: its leaves, the declared
classes of a kind, what a primitive reads of the judgments."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import ClassVar, TypeVar

if sys.version_info >= (3, 11):
    from typing import assert_never
else:  # pragma: no cover - Python 3.10
    from typing_extensions import assert_never

from rankwise.primitives.core import (
    Bound,
    Column,
    Gain,
    IdealPrefix,
    Primitive,
    QrelsPrimitive,
    RunIdealValue,
)

# -- scalar operations on per-query values ------------------------------------------------------


@dataclass(frozen=True)
class Const:
    value: float


@dataclass(frozen=True, repr=False, eq=False)
class Op(Bound):
    """A scalar operation on other nodes (its fields that hold nodes: its operands); a field
    that holds no node (a number, a string, None) is a parameter, passed to the engines'
    functions as a value, as a primitive's fields are."""

    abstract: ClassVar[bool] = True

    def operands(self) -> dict[str, Node]:
        """Its operands, by field name, in field order."""
        return {f.name: v for f in fields(self) if isinstance(v := getattr(self, f.name), (Const, Primitive, Op))}


@dataclass(frozen=True, repr=False, eq=False)
class Unary(Op):
    abstract: ClassVar[bool] = True
    a: Node


@dataclass(frozen=True, repr=False, eq=False)
class Binary(Op):
    abstract: ClassVar[bool] = True
    a: Node
    b: Node


@dataclass(frozen=True, repr=False, eq=False)
class Div0(Binary):
    """a / b, 0 when b = 0."""


@dataclass(frozen=True, repr=False, eq=False)
class DivNull(Binary):
    """a / b, NULL (undefined) when b = 0."""


@dataclass(frozen=True, repr=False, eq=False)
class Recip0(Unary):
    """1 / a, 0 when a is NULL."""


@dataclass(frozen=True, repr=False, eq=False)
class Positive(Unary):
    """1 when a > 0, else 0."""


@dataclass(frozen=True, repr=False, eq=False)
class Div(Binary):
    """a / b."""


@dataclass(frozen=True, repr=False, eq=False)
class Add(Binary):
    """a + b."""


@dataclass(frozen=True, repr=False, eq=False)
class Sub(Binary):
    """a − b."""


@dataclass(frozen=True, repr=False, eq=False)
class Mul(Binary):
    """a · b."""


@dataclass(frozen=True, repr=False, eq=False)
class Least(Binary):
    """min(a, b)."""


@dataclass(frozen=True, repr=False, eq=False)
class Greatest(Binary):
    """max(a, b)."""


@dataclass(frozen=True, repr=False, eq=False)
class Floor(Unary):
    """⌊a⌋."""


@dataclass(frozen=True, repr=False, eq=False)
class Power(Binary):
    """a^b."""


@dataclass(frozen=True, repr=False, eq=False)
class WhenEmpty(Op):
    """``value``, except for a query with nothing relevant (``relevant`` <= 0: no judgment of
    relevance >= rel, or no ideal gain) that ranked something (``ranked`` > 0; a query absent
    from the run keeps ``value``): ``fill`` (None: NULL, left out of the mean), or, with
    ``refuse`` (the metric's label), :class:`~rankwise.errors.EmptyQueryError` naming the
    metric and the query (the metrics' ``empty`` parameter: 1, 'skip', 'error')."""

    reads: ClassVar[tuple[Column, ...]] = ("qid",)
    relevant: Node
    ranked: Node
    value: Node
    fill: float | None
    refuse: str | None


Node = Primitive | Const | Op
"""A node of a recipe's tree."""


def children(op: Op) -> list[Node]:
    """The operands of a scalar operation, in field order."""
    return list(op.operands().values())


_V = TypeVar("_V")


def fold(
    node: Node,
    *,
    const: Callable[[float], _V],
    primitive: Callable[[Primitive], _V],
    operation: Callable[[Op, Mapping[str, _V]], _V],
) -> _V:
    """A recipe's tree read bottom-up by an engine: the one walk over the kinds of :data:`Node`
    (a constant, a per-query aggregate, a scalar operation given its operands' values by field
    name), each kind a required keyword, a new kind a type error in every engine.

    >>> fold(Div0(Add(Const(1.0), Const(2.0)), Const(4.0)), const=str, primitive=lambda p: p.binding(),
    ...      operation=lambda op, args: f"{op.binding()}({', '.join(args.values())})")
    'div0(add(1.0, 2.0), 4.0)'
    """
    if isinstance(node, Const):
        return const(node.value)
    if isinstance(node, Primitive):
        return primitive(node)
    if isinstance(node, Op):
        operands = {
            name: fold(value, const=const, primitive=primitive, operation=operation)
            for name, value in node.operands().items()
        }
        return operation(node, operands)
    assert_never(node)


def leaves(node: Node) -> list[Primitive]:
    """The primitives a tree uses (depth first, with repeats)."""
    if isinstance(node, Primitive):
        return [node]
    if isinstance(node, Op):
        return [leaf for a in children(node) for leaf in leaves(a)]
    return []


def declared(base: type[Bound]) -> list[type[Bound]]:
    """Every class below ``base`` but the kinds themselves (marked ``abstract = True``): the
    declared primitives, inputs or operations."""
    out: list[type[Bound]] = []
    for sub in base.__subclasses__():
        if not sub.__dict__.get("abstract", False):
            out.append(sub)
        out += declared(sub)
    return out


def qrels_needs(node: Primitive) -> list[QrelsPrimitive]:
    """The per-query values of the judgments a run primitive reads on every row."""
    return [i for i in node.inputs().values() if isinstance(i, QrelsPrimitive)]


def run_ideal_values(node: Primitive) -> list[RunIdealValue]:
    """The values of the run-ordered ideal a primitive reads."""
    return [i for i in node.inputs().values() if isinstance(i, RunIdealValue)]


def prefix_gains(node: Primitive) -> list[Gain]:
    """The gains whose ideal prefix a primitive reads."""
    return [i.g for i in node.inputs().values() if isinstance(i, IdealPrefix)]
