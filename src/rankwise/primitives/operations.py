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
    linear: ClassVar[tuple[str, ...]] = ()
    """The operands in which it is linear while the others are fixed: its expected value is
    the operation of that operand's expected value (:func:`expected_tree`)."""
    additive: ClassVar[bool] = False
    """Linear in all its operands at once (a sum, a difference)."""

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

    linear: ClassVar[tuple[str, ...]] = ("a",)


@dataclass(frozen=True, repr=False, eq=False)
class DivNull(Binary):
    """a / b, NULL (undefined) when b = 0."""

    linear: ClassVar[tuple[str, ...]] = ("a",)


@dataclass(frozen=True, repr=False, eq=False)
class Recip0(Unary):
    """1 / a, 0 when a is NULL."""


@dataclass(frozen=True, repr=False, eq=False)
class Positive(Unary):
    """1 when a > 0, else 0."""


@dataclass(frozen=True, repr=False, eq=False)
class Div(Binary):
    """a / b."""

    linear: ClassVar[tuple[str, ...]] = ("a",)


@dataclass(frozen=True, repr=False, eq=False)
class Add(Binary):
    """a + b."""

    additive: ClassVar[bool] = True


@dataclass(frozen=True, repr=False, eq=False)
class Sub(Binary):
    """a − b."""

    additive: ClassVar[bool] = True


@dataclass(frozen=True, repr=False, eq=False)
class Mul(Binary):
    """a · b."""

    linear: ClassVar[tuple[str, ...]] = ("a", "b")


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
    linear: ClassVar[tuple[str, ...]] = ("value",)  # the condition is order-free: E[value] where it holds
    relevant: Node
    ranked: Node
    value: Node
    fill: float | None
    refuse: str | None


@dataclass(frozen=True, repr=False, eq=False)
class LabelCheck(Op):
    """``value``, except for a query with a judgment outside the metric's ``labels`` rule
    (``label``, a :class:`~rankwise.primitives.LabelOutside`: that judgment's relevance; NULL,
    or 0, which every rule takes, where none is): :class:`~rankwise.errors.LabelError` naming
    ``metric`` (its label), the query, the label and ``rule`` (what the library takes), as the
    library refuses it."""

    reads: ClassVar[tuple[Column, ...]] = ("qid",)
    linear: ClassVar[tuple[str, ...]] = ("value",)  # the check is order-free: E[value] where it passes
    label: Node
    value: Node
    metric: str
    rule: str


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


def order_free(node: Node) -> bool:
    """Whether a tree's value is the same whatever order breaks ties between equal scores: each
    primitive its own expected value (e.g. the relevant documents retrieved without a cutoff)."""
    return all(leaf.expected() == leaf for leaf in leaves(node))


def expected_tree(node: Node) -> Node | None:
    """The tree of ``node``'s expected value over all orders of the tied documents (each order
    equally likely: ``ties='expected'``), or None when it has no closed form here. The
    expectation passes through what is linear (a sum, a product or quotient by an order-free
    value) down to the primitives, each of which gives its own closed form
    (:meth:`~rankwise.primitives.core.Primitive.expected`); a nonlinear operation of a single
    primitive is that primitive's own closed form under the operation (1/first relevant rank:
    RR; relevant retrieved > 0: Success, :meth:`~rankwise.primitives.core.Primitive.expected_under`);
    any other nonlinear operation of tie-dependent values has none.

    >>> from rankwise.primitives import FirstRel, NRel, Relret
    >>> expected_tree(Div0(Relret(1.0, 10), NRel(1.0)))
    Div0(a=TieRelret(t=1.0, k=10), b=NRel(t=1.0))
    >>> expected_tree(Recip0(FirstRel(1.0, None)))
    TieRr(t=1.0, k=None)
    >>> expected_tree(Div0(NRel(1.0), Relret(1.0, 10))) is None
    True
    """
    if order_free(node) or isinstance(node, Const):
        return node
    if isinstance(node, Primitive):
        return node.expected()
    operands = node.operands()
    dependent = [name for name, value in operands.items() if not order_free(value)]
    if node.additive or (len(dependent) == 1 and dependent[0] in node.linear):
        mapped = {name: expected_tree(operands[name]) for name in dependent}
        if any(value is None for value in mapped.values()):
            return None
        everything = {f.name: getattr(node, f.name) for f in fields(node)}  # with its non-node fields
        return type(node)(**{**everything, **mapped})
    if isinstance(node, Unary) and isinstance(node.a, Primitive):
        return node.a.expected_under(type(node))
    return None


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


def prefix_values(node: Bound) -> list[IdealPrefix]:
    """The values of the ideal prefix a primitive reads, with the values those read (an engine
    computes only these)."""
    out: list[IdealPrefix] = []
    for given in node.inputs().values():
        if isinstance(given, IdealPrefix):
            out += [given, *prefix_values(given)]
    return out
