"""Scalar operations on per-query values (a recipe's inner nodes: safe division, sums, powers; the
SQL macros of ``sql/00_core.sql``) and walks over a recipe's tree: its leaves, the declared
classes of a kind, what a primitive reads of the judgments."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar

from rankwise.primitives.core import (
    Bound,
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
    """A scalar operation on other nodes (its fields)."""

    abstract: ClassVar[bool] = True


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


Node = Primitive | Const | Op
"""A node of a recipe's tree."""


def children(op: Op) -> list[Node]:
    """The operands of a scalar operation, in field order."""
    return [getattr(op, f.name) for f in fields(op)]


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
