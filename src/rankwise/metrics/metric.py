"""Metric strings: parse ``"nDCG(gain='exponential')@10"`` into a :class:`Metric`, and back.

This module reads ir-measures' syntax; :func:`rankwise.names.parse.parse_metrics` reads every naming
scheme (this one, trec_eval's, ranx's).

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
import math
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field

from rankwise.conventions import LIMIT, checked
from rankwise.errors import (
    InvalidParameterError,
    MetricSyntaxError,
    did_you_mean,
)
from rankwise.metrics.registry import get_spec
from rankwise.metrics.spec import MetricSpec, Param, ParamValue, shorten

MAX_LENGTH = 500
"""The longest metric string rankwise parses (longer ones are refused before any parsing)."""


def check_length(text: str) -> None:
    """Refuse a metric string longer than :data:`MAX_LENGTH` before anything parses it."""
    if len(text) > MAX_LENGTH:
        raise MetricSyntaxError(
            f"metric string too long: {len(text)} characters, the limit is {MAX_LENGTH} "
            f"(it starts {text[:40]!r})"
        )


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
        """All parameter values: explicit > convention > spec default (a convention's value is
        checked against the parameter's bounds like an explicit one); a parameter ``set_by`` an
        entry point takes its convention's value wherever the conventions hold it."""
        explicit = dict(self.params)
        out: dict[str, ParamValue] = {}
        for p in self.spec.params:
            if p.name in explicit and not (p.set_by and conventions is not None and p.convention in conventions):
                out[p.name] = explicit[p.name]
            elif conventions is not None and p.convention and p.convention in conventions:
                try:
                    out[p.name] = check_param(self.spec, p, conventions[p.convention], self.label)
                except InvalidParameterError as exc:
                    raise InvalidParameterError(f"convention {p.convention!r}, used by {exc}") from None
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


def _literal(node: ast.expr, text: str, source: str) -> ParamValue:
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
        f"in metric {shorten(text)}: parameter values must be literals (numbers, quoted strings, "
        f"True/False), got {shorten(_segment(source, node))}"
    )


def _segment(source: str, node: ast.AST) -> str:
    """The text of ``node`` in ``source`` (never ``ast.unparse``, which recurses)."""
    return ast.get_source_segment(source, node) or type(node).__name__


def check_param(spec: MetricSpec, p: Param, value: ParamValue, text: str) -> ParamValue:
    """Validate one parameter value against its :class:`Param`; return it normalised.

    >>> from rankwise.metrics.registry import get_spec
    >>> spec = get_spec("RBP")
    >>> check_param(spec, spec.params[0], 1.5, "RBP(p=1.5)")
    Traceback (most recent call last):
    ...
    rankwise.errors.InvalidParameterError: metric 'RBP(p=1.5)': parameter 'p' must be < 1.0, got 1.5 (valid: (0, 1))
    """
    where = f"metric {shorten(text)}: parameter {p.name!r}"
    if p.choices is not None and p.kind is not str and isinstance(value, str):
        # a numeric parameter's words (empty='skip')
        if value in p.choices:
            return value
        lowered = {c.lower(): c for c in p.choices}
        if value.lower() in lowered:
            return lowered[value.lower()]
        raise InvalidParameterError(f"{where} must be {p.expected()}, got {shorten(value)}")
    if p.kind is bool:
        if not isinstance(value, bool):
            raise InvalidParameterError(f"{where} must be True or False, got {shorten(value)}")
        return value
    words = f" or one of {list(p.choices)}" if p.choices is not None else ""
    if p.kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidParameterError(f"{where} must be a number{words}, got {shorten(value)}")
        _check_number(p, value, where, words=words)
    elif p.kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidParameterError(f"{where} must be an integer{words}, got {shorten(value)}")
        _check_number(p, value, where, words=words)
    elif p.kind is str:
        if not isinstance(value, str):
            raise InvalidParameterError(f"{where} must be a string, got {shorten(value)}")
        if p.pattern is not None and not re.fullmatch(p.pattern, value, re.ASCII):
            raise InvalidParameterError(
                f"{where} is malformed: {shorten(value)} (expected e.g. {p.doc})"
            )
        if p.numbers is not None:
            _check_numbers(p, value, where)
        if p.choices is not None and value not in p.choices:
            lowered = {c.lower(): c for c in p.choices}
            if value.lower() in lowered:
                return lowered[value.lower()]
            raise InvalidParameterError(
                f"{where} must be one of {list(p.choices)}, got {shorten(value)}"
            )
    return value


def _check_number(p: Param, value: float, where: str, what: str = "", words: str = "") -> None:
    """A number is finite, within the parameter's own bounds and, if an integer, within ±2**62
    (``words``: the words the parameter also takes, said after its interval)."""
    try:
        finite = math.isfinite(value)  # an int too large for a float overflows here
    except OverflowError:
        finite = False
    if not finite:
        raise InvalidParameterError(f"{where}{what} must be a finite number, got {shorten(value)}")
    if p.minimum is not None and (value <= p.minimum if p.exclusive_min else value < p.minimum):
        op = ">" if p.exclusive_min else ">="
        raise InvalidParameterError(
            f"{where}{what} must be {op} {_bound(p.minimum)}, got {shorten(value)} (valid: {p.interval()}{words})"
        )
    if p.maximum is not None and (value >= p.maximum if p.exclusive_max else value > p.maximum):
        op = "<" if p.exclusive_max else "<="
        raise InvalidParameterError(
            f"{where}{what} must be {op} {_bound(p.maximum)}, got {shorten(value)} (valid: {p.interval()}{words})"
        )
    if isinstance(value, int) and abs(value) > LIMIT:
        raise InvalidParameterError(
            f"{where}{what} must be at most 2**62 in magnitude (the engines' Int64 range), "
            f"got {shorten(value)}"
        )


def _bound(bound: float) -> str:
    return ("-2**62" if bound < 0 else "2**62") if abs(bound) == LIMIT else repr(bound)


def _check_numbers(p: Param, value: str, where: str) -> None:
    """Each number of a list parameter (``levels``) or each gain of a table (``gains``)."""
    if not value.strip():
        return
    for item in value.split(","):
        if p.numbers == "pairs":
            level, _, gain = item.partition("=")
            _check_number(_LEVEL, float(level), where, f" (level {shorten(level, 30)})")
            _check_number(p, float(gain), where, f" (the gain of level {shorten(level, 30)})")
        else:
            _check_number(p, float(item), where, f" (item {shorten(item, 30)})")


_LEVEL = Param("level", float, 0, "a relevance level of a gain table: any finite number")


def check_cutoff(spec: MetricSpec, cutoff: object, text: str) -> int | None:
    """Validate ``@k`` against the spec's cutoff rule: a positive integer, at most 2**62."""
    where = f"metric {shorten(text)}"
    if cutoff is None:
        if spec.cutoff == "required":
            raise InvalidParameterError(f"{where}: {spec.name} needs a cutoff, e.g. {spec.name}@10")
        return None
    if spec.cutoff == "none":
        raise InvalidParameterError(f"{where}: {spec.name} takes no cutoff (@k)")
    if isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff <= 0:
        raise InvalidParameterError(
            f"{where}: the cutoff k must be a positive integer, got {shorten(cutoff)}"
        )
    if cutoff > LIMIT:
        raise InvalidParameterError(
            f"{where}: the cutoff k must be at most 2**62 (the engines' Int64 range), got {shorten(cutoff)}"
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
                f"metric {shorten(where)}: parameter 'dcg' must be one of ['log2', 'exp-log2'], "
                f"got {shorten(dcg)}"
            )
        given.setdefault("gain", "exponential" if dcg == "exp-log2" else "linear")
    names = [p.name for p in spec.params]
    for key in given:
        if key not in names:
            hint = did_you_mean(key, names)
            valid = ", ".join(names) if names else "none"
            raise InvalidParameterError(
                f"metric {shorten(where)}: unknown parameter {shorten(key, 40)} for {spec.name}.{hint} "
                f"Valid parameters: {valid}."
            )
    ordered = tuple(
        (p.name, check_param(spec, p, given[p.name], where)) for p in spec.params if p.name in given
    )
    k = check_cutoff(spec, cutoff, where)
    if k is None:
        for name, value in ordered:
            p = spec.param(name)
            if p is not None and value in p.needs_cutoff:
                raise InvalidParameterError(
                    f"metric {shorten(where)}: {spec.name}({name}={value!r}) needs a cutoff, "
                    f"e.g. {spec.name}({name}={value!r})@10"
                )
    return Metric(spec, ordered, k, text)


@checked
def parse_metric(text: str | Metric) -> Metric:
    """Parse one metric string (ir-measures syntax; case-insensitive names).

    Forms: ``Name``, ``Name@k``, ``Name(param=value, ...)``, ``Name(param=value)@k``.

    >>> parse_metric("P(rel=2)@5")
    P(rel=2)@5
    >>> parse_metric("ndcg(discount='jarvelin', base=2)")
    nDCG(discount='jarvelin', base=2)
    """
    if isinstance(text, Metric):
        # built by hand, perhaps: checked like a parsed one (RBP with p=1.5 is refused)
        return make_metric(text.spec, dict(text.params), text.cutoff, text.source)
    if not isinstance(text, str):
        raise MetricSyntaxError(
            f"a metric must be a string, got {type(text).__name__}: {shorten(text)}"
        )
    check_length(text)
    source = text
    stripped = text.strip()
    syntax = f"cannot parse metric {shorten(source)}: expected Name, Name@k or Name(param=value)@k"
    try:
        with warnings.catch_warnings():  # e.g. SyntaxWarning: invalid decimal literal ('1e')
            warnings.simplefilter("ignore")
            tree = ast.parse(stripped, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        # ValueError: a NUL character; RecursionError / MemoryError: absurd nesting
        raise MetricSyntaxError(syntax) from exc
    cutoff: object = None
    if isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.MatMult):
        cutoff = _literal(tree.right, source, stripped)
        tree = tree.left
    params: dict[str, ParamValue] = {}
    if isinstance(tree, ast.Call):
        if tree.args:
            raise MetricSyntaxError(
                f"in metric {shorten(source)}: parameters must be named, "
                f"e.g. {_segment(stripped, tree.func)[:40]}(rel=2)"
            )
        for kw in tree.keywords:
            if kw.arg is None:
                raise MetricSyntaxError(f"in metric {shorten(source)}: '**' is not allowed")
            if kw.arg in params:
                raise MetricSyntaxError(
                    f"in metric {shorten(source)}: parameter {kw.arg!r} given twice"
                )
            params[kw.arg] = _literal(kw.value, source, stripped)
        tree = tree.func
    if not isinstance(tree, ast.Name):
        raise MetricSyntaxError(syntax)
    return make_metric(get_spec(tree.id), params, cutoff, source)
