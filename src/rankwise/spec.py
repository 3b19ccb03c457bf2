"""The declarative shape of a metric: :class:`MetricSpec` and its :class:`Param` table.

A spec says *what* a metric is (names, parameters, formula, citation, value for an empty query,
how per-query values are aggregated); the engines in ``rankwise._polars`` and the SQL macros in
``sql/`` say *how* to compute it. The README's metric table, the list of valid names and the
"unknown metric" errors are all generated from the specs in :mod:`rankwise.registry`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ParamValue = int | float | str | bool

Aggregate = Literal["mean", "sum", "gmean", "none"]
ValueType = Literal["float", "string"]
CutoffRule = Literal["optional", "required", "none"]


@dataclass(frozen=True)
class Param:
    """One parameter of a metric.

    ``kind`` is the Python type a value must have (``int`` values are accepted for ``float``
    parameters); ``choices`` restricts string parameters; ``minimum`` bounds numbers from below
    (exclusive when ``exclusive_min``). ``convention`` names the :class:`rankwise.Conventions`
    field whose value is used when the metric string does not set the parameter.
    """

    name: str
    kind: type
    default: ParamValue
    doc: str
    choices: tuple[str, ...] | None = None
    minimum: float | None = None
    exclusive_min: bool = False
    convention: str | None = None
    pattern: str | None = None
    """A regular expression string values must match in full."""


@dataclass(frozen=True)
class MetricSpec:
    """Everything rankwise knows about one metric, independent of the engine computing it."""

    name: str
    """Canonical (pretty) name, e.g. ``"nDCG"``."""
    aliases: tuple[str, ...]
    """Other accepted names (matched case-insensitively), e.g. ``("ndcg_cut", "map")``."""
    params: tuple[Param, ...]
    cutoff: CutoffRule
    """Whether ``@k`` is optional, required or not allowed."""
    description: str
    formula: str
    citation: str
    empty_value: float | str
    """Value for a judged query with nothing relevant (and for a query missing from the run)."""
    aggregate: Aggregate = "mean"
    """How :func:`rankwise.summarize` aggregates per-query values ('none': per query only)."""
    value_type: ValueType = "float"
    """Float64 per query (every measure but trec_eval's relstring, which is text)."""
    trec_eval: str | None = None
    """The trec_eval measure this metric reproduces, if any (``-m`` name)."""

    def param(self, name: str) -> Param | None:
        """The parameter called ``name`` (exact), or ``None``."""
        for p in self.params:
            if p.name == name:
                return p
        return None

    @property
    def all_names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)
