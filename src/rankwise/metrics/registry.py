"""The metric registry: one declarative :class:`~rankwise.metrics.spec.MetricSpec` per metric.

:data:`SPECS` is the single list of metrics: the specs of every family of
:mod:`rankwise.metrics.families`, family after family. The parser, the engines' completeness
tests, the metric table (docs/metrics.md) and the "unknown metric" errors are all derived from it.
"""

from __future__ import annotations

from collections.abc import Iterator

from rankwise.conventions import checked
from rankwise.errors import UnknownMetricError, closest
from rankwise.metrics.families import FAMILIES
from rankwise.metrics.families.average_precision import ELEVEN_POINTS
from rankwise.metrics.spec import MetricSpec, shorten

__all__ = ["ELEVEN_POINTS", "SPECS", "all_names", "get_spec", "iter_specs"]

SPECS: tuple[MetricSpec, ...] = tuple(spec for family in FAMILIES for spec in family.specs)
"""Every metric, family by family (:data:`rankwise.metrics.families.FAMILIES`)."""

_BY_NAME: dict[str, MetricSpec] = {}
for _spec in SPECS:
    for _name in _spec.all_names:
        if _name.lower() in _BY_NAME:
            raise RuntimeError(f"metric name {_name!r} is registered twice")
        _BY_NAME[_name.lower()] = _spec


@checked
def all_names() -> list[str]:
    """Every accepted metric name (canonical names first, then aliases)."""
    return [s.name for s in SPECS] + [a for s in SPECS for a in s.aliases]


def inputs_read(spec: MetricSpec) -> tuple[str, ...]:
    """The inputs beyond the qrels and the run that ``spec``'s metrics read, with some parameters
    (:attr:`~rankwise.metrics.family.MetricFamily.reads`, or the family's
    :attr:`~rankwise.metrics.family.MetricFamily.reads_by_spec` where its metrics differ)."""
    return next((family.reads_by_spec.get(spec.name, family.reads) for family in FAMILIES if spec in family.specs), ())


def beyond_accuracy(spec: MetricSpec) -> bool:
    """Whether ``spec``'s family measures something besides relevance
    (:attr:`~rankwise.metrics.family.MetricFamily.beyond_accuracy`)."""
    return next((family.beyond_accuracy for family in FAMILIES if spec in family.specs), False)


@checked
def get_spec(name: str) -> MetricSpec:
    """The spec for ``name`` (case-insensitive); :class:`UnknownMetricError` lists close names.

    >>> get_spec("ndcg").name
    'nDCG'
    >>> get_spec("map").name
    'AP'
    """
    spec = _BY_NAME.get(name.lower())
    if spec is None:
        near = closest(name, all_names())
        hint = f" Closest: {', '.join(near)}." if near else ""
        raise UnknownMetricError(
            f"unknown metric {shorten(name)}.{hint} Valid metrics: {', '.join(s.name for s in SPECS)}."
        )
    return spec


def iter_specs() -> Iterator[MetricSpec]:
    """All specs, in registry order."""
    return iter(SPECS)
