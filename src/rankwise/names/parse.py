"""Metric names in every scheme: ir-measures' syntax (:mod:`rankwise.metrics.metric`), trec_eval's
names (:mod:`rankwise.names.trec_eval`) and ranx's (:mod:`rankwise.names.ranx`), tried in that
order by :func:`parse_metrics`, the parser every entry point uses.

>>> parse_metrics(["nDCG@10", "ndcg_cut_10", "hit_rate@5"])
[nDCG@10, nDCG@10, Success@5]
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from rankwise.conventions import checked
from rankwise.errors import (
    InvalidParameterError,
    MetricSyntaxError,
    RankwiseError,
    UnknownMetricError,
    in_syntax,
    without_hints,
)
from rankwise.metrics.families import FAMILIES
from rankwise.metrics.metric import Metric, check_length, make_metric, parse_metric
from rankwise.metrics.registry import get_spec
from rankwise.metrics.spec import ParamValue, shorten
from rankwise.names.ranx import parse_ranx
from rankwise.names.ranx import takes_precedence as ranx_first
from rankwise.names.trec_eval import parse_trec, takes_precedence

NDEVAL_NAMES: dict[str, str] = {spec: name for family in FAMILIES for spec, name in family.ndeval.items()}
"""The names ndeval prints, by metric (from the metric families)."""

_NDEVAL = re.compile(
    "("
    + "|".join(re.escape(alias) for spec in NDEVAL_NAMES for alias in get_spec(spec).aliases if "-" in alias)
    + r")(?:@(\d{1,19}))?",
    re.IGNORECASE,
)
"""ndeval's printed names with a hyphen, which ir-measures syntax would read as a minus: the
aliases of its metrics that have one (``alpha-nDCG@20``, ``ERR-IA@10``, ``MAP-IA``; its
others, ``NRBP``, ``nNRBP``, ``strec@k``, parse as they are)."""


IR_MEASURES_NAMES: dict[str, str] = {spec: name for family in FAMILIES for spec, name in family.ir_measures.items()}
"""The metrics ir-measures also has, by rankwise's name: its name for them (tests/cli/test_cli.py
checks this against ir-measures' own registry). The others are written in its syntax too."""


IR_MEASURES_DEFAULTS: dict[str, Mapping[str, ParamValue]] = {
    spec: defaults for family in FAMILIES for spec, defaults in family.ir_measures_defaults.items()
}
"""ir-measures' defaults where they are not rankwise's, by metric: ir-measures' ``Judged`` is
rankwise's ``Judged(denominator='retrieved', negative='judged')``."""

IR_MEASURES_FLAGS: dict[tuple[str, str], str] = {
    key: other for family in FAMILIES for key, other in family.ir_measures_flags.items()
}
"""ir-measures' parameters that make a measure another of rankwise's metrics: (metric,
parameter) -> the metric when it is true (``SetP(relative=True)`` is ``SetRelP``)."""


def is_ir_measure(obj: object) -> bool:
    """Whether ``obj`` is an ir-measures measure object (``ir_measures.nDCG@10``), told by its
    class's package and its ``NAME``, without importing ir_measures."""
    return type(obj).__module__.split(".")[0] == "ir_measures" and isinstance(getattr(obj, "NAME", None), str)


def from_ir_measures(measure: Any) -> Metric:
    """The metric of an ir-measures measure object, with ir-measures' meaning, labelled by its
    ``str()`` (``nDCG@10``, ``P(rel=2)@5``): its name (``measure.NAME``) in rankwise's
    ir-measures naming scheme and its parameters (``measure.params``, the cutoff among them,
    ``recall`` for ``IPrec@0.2``) as rankwise's, where ir-measures' defaults differ
    (:data:`IR_MEASURES_DEFAULTS`) with ir-measures' defaults, and a flag that names another
    metric (:data:`IR_MEASURES_FLAGS`) as that metric."""
    text = str(measure)
    spec = get_spec(str(measure.NAME))
    params = dict(measure.params)
    cutoff = params.pop("cutoff", None)
    for (name, flag), other in IR_MEASURES_FLAGS.items():
        if spec.name == name and flag in params and params.pop(flag):
            spec = get_spec(other)
    return make_metric(spec, {**IR_MEASURES_DEFAULTS.get(spec.name, {}), **params}, cutoff, text)


def parse_ndeval(text: str) -> Metric:
    """An ndeval name, labelled as written.

    >>> parse_ndeval("alpha-nDCG@20"), parse_ndeval("MAP-IA").label
    (alpha_nDCG@20, 'MAP-IA')
    """
    found = _NDEVAL.fullmatch(text)
    if found is None:
        raise UnknownMetricError(f"not an ndeval measure name: {shorten(text)}")
    name, cutoff = found.groups()
    return make_metric(get_spec(name), {}, None if cutoff is None else int(cutoff), text)


def _parse_any(text: str | Metric) -> list[Metric]:
    """ir-measures syntax first; else trec_eval's names (which may expand to several), else
    ranx's; the error of the ir-measures parse is the one reported. A few names of trec_eval
    and ranx that ir-measures syntax would misread or refuse are read as theirs first. An
    ir-measures measure object is read by :func:`from_ir_measures`."""
    if isinstance(text, Metric):
        return [parse_metric(text)]
    if is_ir_measure(text):
        return [from_ir_measures(text)]
    if not isinstance(text, str):
        raise InvalidParameterError(
            f"each metric must be a string (or a rankwise.Metric, or an ir-measures measure), got "
            f"{type(text).__name__}: {shorten(text)}"
        )
    check_length(text)
    if takes_precedence(text.strip()):
        return parse_trec(text.strip())
    if ranx_first(text):
        return [parse_ranx(text)]
    if _NDEVAL.fullmatch(text.strip()):
        return [parse_ndeval(text.strip())]
    for parse, misread in (
        (_ir_measures, (MetricSyntaxError, UnknownMetricError)),
        (_trec, (UnknownMetricError,)),
        (_ranx, (UnknownMetricError,)),
    ):
        found = _quietly(parse, text, misread)
        if found is not None:
            return found
    _refuse_a_list(text)
    return _ir_measures(text)  # raises its error (with its hints)


def _refuse_a_list(text: str) -> None:
    """When ``text``, no metric of any scheme, is metrics separated by commas (``nDCG@10,AP``),
    an error saying to give them one by one (a list in Python, ``-m`` each on the command
    line); else nothing."""
    parts = [part.strip() for part in text.split(",")]
    if len(parts) < 2 or "" in parts:
        return
    for part in parts:
        with without_hints():
            try:
                _parse_any(part)
            except RankwiseError:
                return
    one_each = in_syntax(
        f"pass them as a list: {parts!r}", "give each its own -m: " + " ".join(f"-m {shlex.quote(p)}" for p in parts)
    )
    raise MetricSyntaxError(
        f"metric {shorten(text)} is {len(parts)} metrics separated by commas (a metric string holds one); {one_each}"
    )


def _quietly(
    parse: Callable[[str], list[Metric]], text: str, misread: tuple[type[Exception], ...]
) -> list[Metric] | None:
    """``parse(text)``, or None when it raises one of ``misread`` (the text is not in its
    naming scheme). Tried without the errors' hints (a fuzzy match over every name, about 1 ms
    each), which no one reads; any other error is raised as the parse raises it, hints
    included."""
    with without_hints():
        try:
            return parse(text)
        except misread:
            return None
        except Exception:  # raised again below, with its hints
            pass
    return parse(text)


def _ir_measures(text: str) -> list[Metric]:
    return [parse_metric(text)]


def _trec(text: str) -> list[Metric]:
    return parse_trec(text.strip())


def _ranx(text: str) -> list[Metric]:
    return [parse_ranx(text)]


@checked
def parse_metrics(metrics: str | Metric | Iterable[str | Metric]) -> list[Metric]:
    """Parse one metric or a list of them; duplicates (same label) are an error.

    Besides ir-measures syntax, trec_eval's names are accepted, and its ``-m`` lists expand:

    >>> [m.label for m in parse_metrics(["P.5,10", "iprec_at_recall_0.10", "11pt_avg"])]
    ['P_5', 'P_10', 'iprec_at_recall_0.10', '11pt_avg']
    """
    if isinstance(metrics, (str, Metric)) or is_ir_measure(metrics):
        items: list[object] = [metrics]
    elif isinstance(metrics, (bytes, bytearray, memoryview)) or not isinstance(metrics, Iterable):
        raise InvalidParameterError(
            "metrics must be a string or a list of strings (e.g. ['nDCG@10', 'AP']), "
            f"got {type(metrics).__name__}: {shorten(metrics)}"
        )
    else:
        items = list(metrics)
    if not items:
        raise InvalidParameterError("no metrics requested: pass e.g. ['nDCG@10', 'AP']")
    parsed = [m for item in items for m in _parse_any(item)]  # type: ignore[arg-type]
    labels = [m.label for m in parsed]
    for label in labels:
        if labels.count(label) > 1:
            raise InvalidParameterError(f"metric {shorten(label)} is requested twice")
    return parsed
