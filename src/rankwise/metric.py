"""Metric strings: parse ``"nDCG(gain='exponential')@10"`` into a :class:`Metric`, and back.

The parser uses Python's own :mod:`ast` (``@`` is the matrix-multiplication operator), never
string splitting, so every form ir-measures accepts parses the same way here:

>>> m = parse_metric("nDCG(gain='exponential')@10")
>>> m.name, m.cutoff, m.params
('nDCG', 10, (('gain', 'exponential'),))
>>> m
nDCG(gain='exponential')@10
>>> parse_metric(repr(m)) == m
True
>>> parse_metric("map@100")
AP@100
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from rankwise.errors import InvalidParameterError, MetricSyntaxError, UnknownMetricError, closest
from rankwise.registry import get_spec
from rankwise.spec import MetricSpec, Param, ParamValue


@dataclass(frozen=True)
class Metric:
    """A metric spec with the parameters and cutoff a user chose.

    ``params`` holds only the parameters written explicitly (in spec order); unset parameters
    take the value of the matching convention (e.g. ``rel``), else the spec's default.
    """

    spec: MetricSpec
    params: tuple[tuple[str, ParamValue], ...] = ()
    cutoff: int | None = None
    source: str | None = field(default=None, compare=False)
    """The string this metric was parsed from (used as its column name)."""

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def label(self) -> str:
        """Column name for this metric: the user's string if parsed, else ``repr``."""
        return self.source if self.source is not None else repr(self)

    def resolve(self, conventions: Mapping[str, ParamValue] | None = None) -> dict[str, ParamValue]:
        """All parameter values: explicit > convention > spec default."""
        explicit = dict(self.params)
        out: dict[str, ParamValue] = {}
        for p in self.spec.params:
            if p.name in explicit:
                out[p.name] = explicit[p.name]
            elif conventions is not None and p.convention and p.convention in conventions:
                out[p.name] = conventions[p.convention]
            else:
                out[p.name] = p.default
        return out

    def __repr__(self) -> str:
        text = self.spec.name
        if self.params:
            text += "(" + ", ".join(f"{k}={v!r}" for k, v in self.params) + ")"
        if self.cutoff is not None:
            text += f"@{self.cutoff}"
        return text


def _literal(node: ast.expr, text: str) -> ParamValue:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool)):
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, (ast.USub, ast.UAdd))
        and isinstance(node.operand, ast.Constant)
        and isinstance(node.operand.value, (int, float))
        and not isinstance(node.operand.value, bool)
    ):
        value = node.operand.value
        return -value if isinstance(node.op, ast.USub) else value
    raise MetricSyntaxError(
        f"in metric {text!r}: parameter values must be literals (numbers, quoted strings, "
        f"True/False), got {ast.unparse(node)!r}"
    )


def check_param(spec: MetricSpec, p: Param, value: ParamValue, text: str) -> ParamValue:
    """Validate one parameter value against its :class:`Param`; return it normalised."""
    where = f"metric {text!r}: parameter {p.name!r}"
    if p.kind is bool:
        if not isinstance(value, bool):
            raise InvalidParameterError(f"{where} must be True or False, got {value!r}")
        return value
    if p.kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidParameterError(f"{where} must be a number, got {value!r}")
        if value != value or value in (float("inf"), float("-inf")):
            raise InvalidParameterError(f"{where} must be finite, got {value!r}")
    elif p.kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidParameterError(f"{where} must be an integer, got {value!r}")
    elif p.kind is str:
        if not isinstance(value, str):
            raise InvalidParameterError(f"{where} must be a string, got {value!r}")
        if p.pattern is not None and not re.fullmatch(p.pattern, value):
            raise InvalidParameterError(f"{where} is malformed: {value!r} (expected e.g. {p.doc})")
        if p.choices is not None and value not in p.choices:
            lowered = {c.lower(): c for c in p.choices}
            if value.lower() in lowered:
                return lowered[value.lower()]
            raise InvalidParameterError(
                f"{where} must be one of {list(p.choices)}, got {value!r}"
            )
    if p.minimum is not None and isinstance(value, (int, float)):
        bad = value <= p.minimum if p.exclusive_min else value < p.minimum
        if bad:
            op = ">" if p.exclusive_min else ">="
            raise InvalidParameterError(f"{where} must be {op} {p.minimum}, got {value!r}")
    return value


def check_cutoff(spec: MetricSpec, cutoff: object, text: str) -> int | None:
    """Validate ``@k`` against the spec's cutoff rule."""
    if cutoff is None:
        if spec.cutoff == "required":
            raise InvalidParameterError(
                f"metric {text!r}: {spec.name} needs a cutoff, e.g. {spec.name}@10"
            )
        return None
    if spec.cutoff == "none":
        raise InvalidParameterError(f"metric {text!r}: {spec.name} takes no cutoff (@k)")
    if isinstance(cutoff, bool) or not isinstance(cutoff, int):
        raise InvalidParameterError(
            f"metric {text!r}: the cutoff k must be a positive integer, got {cutoff!r}"
        )
    if cutoff <= 0:
        raise InvalidParameterError(
            f"metric {text!r}: the cutoff k must be a positive integer, got {cutoff}"
        )
    return cutoff


def make_metric(
    spec: MetricSpec,
    params: Mapping[str, ParamValue] | None = None,
    cutoff: object = None,
    text: str | None = None,
) -> Metric:
    """Build a validated :class:`Metric` from a spec, parameters and cutoff."""
    where = text if text is not None else spec.name
    given = dict(params or {})
    if "dcg" in given and spec.param("gain") is not None:
        # ir-measures' nDCG(dcg='log2' | 'exp-log2') names rankwise's gain parameter
        dcg = given.pop("dcg")
        if dcg not in ("log2", "exp-log2"):
            raise InvalidParameterError(
                f"metric {where!r}: parameter 'dcg' must be one of ['log2', 'exp-log2'], got {dcg!r}"
            )
        given.setdefault("gain", "exponential" if dcg == "exp-log2" else "linear")
    names = [p.name for p in spec.params]
    for key in given:
        if key not in names:
            near = closest(key, names, n=1)
            hint = f" Did you mean {near[0]!r}?" if near else ""
            valid = ", ".join(names) if names else "none"
            raise InvalidParameterError(
                f"metric {where!r}: unknown parameter {key!r} for {spec.name}.{hint} "
                f"Valid parameters: {valid}."
            )
    ordered = tuple(
        (p.name, check_param(spec, p, given[p.name], where)) for p in spec.params if p.name in given
    )
    return Metric(spec, ordered, check_cutoff(spec, cutoff, where), text)


def parse_metric(text: str | Metric) -> Metric:
    """Parse one metric string (ir-measures syntax; case-insensitive names).

    Forms: ``Name``, ``Name@k``, ``Name(param=value, ...)``, ``Name(param=value)@k``.

    >>> parse_metric("P(rel=2)@5")
    P(rel=2)@5
    >>> parse_metric("ndcg(discount='jarvelin', base=2)")
    nDCG(discount='jarvelin', base=2)
    """
    if isinstance(text, Metric):
        return text
    if not isinstance(text, str):
        raise MetricSyntaxError(f"a metric must be a string, got {type(text).__name__}: {text!r}")
    source = text
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise MetricSyntaxError(
            f"cannot parse metric {source!r}: expected Name, Name@k or Name(param=value)@k"
        ) from exc
    cutoff: object = None
    if isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.MatMult):
        cutoff = _literal(tree.right, source)
        tree = tree.left
    params: dict[str, ParamValue] = {}
    if isinstance(tree, ast.Call):
        if tree.args:
            raise MetricSyntaxError(
                f"in metric {source!r}: parameters must be named, e.g. {ast.unparse(tree.func)}(rel=2)"
            )
        for kw in tree.keywords:
            if kw.arg is None:
                raise MetricSyntaxError(f"in metric {source!r}: '**' is not allowed")
            if kw.arg in params:
                raise MetricSyntaxError(f"in metric {source!r}: parameter {kw.arg!r} given twice")
            params[kw.arg] = _literal(kw.value, source)
        tree = tree.func
    if not isinstance(tree, ast.Name):
        raise MetricSyntaxError(
            f"cannot parse metric {source!r}: expected Name, Name@k or Name(param=value)@k"
        )
    return make_metric(get_spec(tree.id), params, cutoff, source)


def _parse_any(text: str | Metric) -> list[Metric]:
    """ir-measures syntax first; else trec_eval's names (which may expand to several), else
    ranx's; the error of the ir-measures parse is the one reported."""
    if isinstance(text, Metric) or not isinstance(text, str):
        return [parse_metric(text)]
    from rankwise.trec_names import takes_precedence

    if takes_precedence(text.strip()):
        from rankwise.trec_names import parse_trec

        return parse_trec(text.strip())
    try:
        return [parse_metric(text)]
    except (MetricSyntaxError, UnknownMetricError) as first:
        from rankwise.ranx_names import parse_ranx
        from rankwise.trec_names import parse_trec

        try:
            return parse_trec(text.strip())
        except UnknownMetricError:
            pass
        try:
            return [parse_ranx(text)]
        except UnknownMetricError:
            raise first from None


def parse_metrics(metrics: str | Metric | Iterable[str | Metric]) -> list[Metric]:
    """Parse one metric or a list of them; duplicates (same label) are an error.

    Besides ir-measures syntax, trec_eval's names are accepted, and its ``-m`` lists expand:

    >>> [m.label for m in parse_metrics(["P.5,10", "iprec_at_recall_0.10", "11pt_avg"])]
    ['P_5', 'P_10', 'iprec_at_recall_0.10', '11pt_avg']
    """
    items = [metrics] if isinstance(metrics, (str, Metric)) else list(metrics)
    if not items:
        raise InvalidParameterError("no metrics requested: pass e.g. ['nDCG@10', 'AP']")
    parsed = [m for item in items for m in _parse_any(item)]
    labels = [m.label for m in parsed]
    for label in labels:
        if labels.count(label) > 1:
            raise InvalidParameterError(f"metric {label!r} is requested twice")
    return parsed
