"""Each metric written once, as a formula over per-query primitives.

A *recipe* turns a parsed :class:`~rankwise.metric.Metric` into a small expression tree whose
leaves are per-query aggregates. Each engine implements the primitives once (Polars
expressions in ``rankwise._polars.primitives``, SQL macros in ``sql/``) and compiles the tree;
the metric formulas themselves live only here.

Primitives over the ranked rows of a query (``RunAgg``; rank i = 1 is the top):

- ``count()``: number of ranked documents.
- ``relret(t, k)``: number of documents with relevance ≥ t at rank ≤ k (k = None: all).
- ``dcg(k, gain, discount, base)``: Σ_{i≤k} gain(rel_i) / discount(i).
- ``cg(k, gain)``: Σ_{i≤k} gain(rel_i).
- ``ideal_dcg_run(k, gain, discount, base)``: DCG@k of the retrieved documents re-sorted by
  relevance.
- ``ap_sum(t, k)``: Σ_{i≤k, rel_i≥t} relret(t, i) / i.
- ``first_rel(t, k)``: smallest rank ≤ k holding a relevant document (NULL when none).
- ``relret_at_nrel(t)``: relevant documents at rank ≤ nrel(t).

Primitives over the judgments of a query (``QrelsAgg``):

- ``nrel(t)``: number of judged documents with relevance ≥ t.
- ``idcg(k, gain, discount, base)``: DCG@k of all judged documents sorted by relevance.

Scalar operations (``Fn``): ``div0(a, b)`` (a / b, 0 when b = 0), ``recip0(a)`` (1 / a, 0
when a is NULL), ``positive(a)`` (1 when a > 0 else 0), ``div(a, b)``.

>>> from rankwise.metric import parse_metric
>>> recipe(parse_metric("nDCG@10"), {})
Fn(op='div0', args=(RunAgg(op='dcg', args=(10, 'linear', 'log2', 2.0)), QrelsAgg(op='idcg', args=(10, 'linear', 'log2', 2.0))))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from rankwise.metric import Metric
from rankwise.spec import ParamValue

Arg = int | float | str | bool | None


@dataclass(frozen=True)
class RunAgg:
    """A per-query aggregate over the ranked (retrieved) documents."""

    op: str
    args: tuple[Arg, ...] = ()


@dataclass(frozen=True)
class QrelsAgg:
    """A per-query aggregate over the query's judgments."""

    op: str
    args: tuple[Arg, ...] = ()


@dataclass(frozen=True)
class Const:
    value: float


@dataclass(frozen=True)
class Fn:
    """A scalar operation on other nodes."""

    op: str
    args: tuple[Node, ...]


Node = RunAgg | QrelsAgg | Const | Fn

def as_cutoff(value: Arg) -> int | None:
    """A recipe argument that is a cutoff (int or None)."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise TypeError(f"expected a cutoff, got {value!r}")


def as_float(value: Arg) -> float:
    """A recipe argument that is a number."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise TypeError(f"expected a number, got {value!r}")


def dcg_params(args: tuple[Arg, ...]) -> tuple[int | None, str, str, float]:
    """(k, gain, discount, base) of a dcg-like primitive."""
    k, gain, discount, base = args
    return as_cutoff(k), str(gain), str(discount), as_float(base)


RUN_OPS: dict[str, int] = {
    "count": 0,
    "relret": 2,
    "dcg": 4,
    "cg": 2,
    "ideal_dcg_run": 4,
    "ap_sum": 2,
    "first_rel": 2,
    "relret_at_nrel": 1,
}
"""Run-side primitives and their number of arguments."""

QRELS_OPS: dict[str, int] = {"nrel": 1, "idcg": 4}
"""Qrels-side primitives and their number of arguments."""

FN_OPS: dict[str, int] = {"div0": 2, "recip0": 1, "positive": 1, "div": 2}
"""Scalar operations and their number of arguments."""

RUN_NULL_WHEN_EMPTY = frozenset({"first_rel"})
"""Run primitives whose value for a query with no ranked documents is NULL (the others are 0)."""


def _threshold(p: Mapping[str, ParamValue]) -> float:
    return float(p["rel"])


def _dcg_args(m: Metric, p: Mapping[str, ParamValue]) -> tuple[Arg, ...]:
    return (m.cutoff, str(p["gain"]), str(p["discount"]), float(p["base"]))


def _ideal(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    if p["ideal"] == "run":
        return RunAgg("ideal_dcg_run", _dcg_args(m, p))
    return QrelsAgg("idcg", _dcg_args(m, p))


def _ap(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    t = _threshold(p)
    return Fn("div0", (RunAgg("ap_sum", (t, m.cutoff)), QrelsAgg("nrel", (t,))))


Recipe = Callable[[Metric, Mapping[str, ParamValue]], Node]

RECIPES: dict[str, Recipe] = {
    "nDCG": lambda m, p: Fn("div0", (RunAgg("dcg", _dcg_args(m, p)), _ideal(m, p))),
    "DCG": lambda m, p: RunAgg("dcg", _dcg_args(m, p)),
    "IDCG": _ideal,
    "CG": lambda m, p: RunAgg("cg", (m.cutoff, str(p["gain"]))),
    "P": lambda m, p: Fn(
        "div", (RunAgg("relret", (_threshold(p), m.cutoff)), Const(float(m.cutoff or 1)))
    ),
    "R": lambda m, p: Fn(
        "div0", (RunAgg("relret", (_threshold(p), m.cutoff)), QrelsAgg("nrel", (_threshold(p),)))
    ),
    "Success": lambda m, p: Fn("positive", (RunAgg("relret", (_threshold(p), m.cutoff)),)),
    "AP": _ap,
    "GMAP": _ap,
    "RR": lambda m, p: Fn("recip0", (RunAgg("first_rel", (_threshold(p), m.cutoff)),)),
    "Rprec": lambda m, p: Fn(
        "div0",
        (RunAgg("relret_at_nrel", (_threshold(p),)), QrelsAgg("nrel", (_threshold(p),))),
    ),
    "NumQ": lambda m, p: Const(1.0),
    "NumRet": lambda m, p: RunAgg("count"),
    "NumRel": lambda m, p: QrelsAgg("nrel", (_threshold(p),)),
    "NumRelRet": lambda m, p: RunAgg("relret", (_threshold(p), None)),
}


def recipe(metric: Metric, conventions: Mapping[str, ParamValue]) -> Node:
    """The formula tree of ``metric`` with its parameters resolved against ``conventions``."""
    return RECIPES[metric.spec.name](metric, metric.resolve(conventions))


def leaves(node: Node) -> list[RunAgg | QrelsAgg]:
    """The primitives a tree uses (depth first, with repeats)."""
    if isinstance(node, (RunAgg, QrelsAgg)):
        return [node]
    if isinstance(node, Fn):
        return [leaf for a in node.args for leaf in leaves(a)]
    return []
