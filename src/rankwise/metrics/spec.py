"""The declarative shape of a metric: :class:`MetricSpec` and its :class:`Param` table.

A spec says *what* a metric is (names, parameters, formula, citation, value for an empty query,
how per-query values are aggregated); the engines in ``rankwise._polars`` and the SQL macros in
``sql/`` say *how* to compute it. The metric table (docs/metrics.md), the list of valid names and the
"unknown metric" errors are all generated from the specs in :mod:`rankwise.metrics.registry`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rankwise.conventions import LIMIT

ParamValue = int | float | str | bool

Aggregate = Literal["mean", "sum", "gmean", "none", "set"]
ValueType = Literal["float", "string"]
Better = Literal["higher", "lower", "neither"]
CutoffRule = Literal["optional", "required", "none"]


NumberList = Literal["numbers", "pairs"]


@dataclass(frozen=True)
class Param:
    """One parameter of a metric.

    ``kind`` is the Python type a value must have (``int`` values are accepted for ``float``
    parameters); ``choices`` restricts string parameters, and on a numeric parameter lists the
    words it takes besides its numbers (``empty``: the integers 0 and 1, or ``'skip'`` or
    ``'error'``). Numbers must be finite; ``minimum``
    bounds them from below (exclusive when ``exclusive_min``), ``maximum`` from above (exclusive
    when ``exclusive_max``), and ``bounds`` says why the formula needs those bounds. A string
    parameter that holds a list of numbers says so in ``numbers``: ``'numbers'`` (``'0.25,0.5'``,
    the bounds apply to each number) or ``'pairs'`` (a gain table ``'level=gain,...'``, the bounds
    apply to each gain; levels need only be finite). ``convention`` names the
    :class:`rankwise.Conventions` field whose value is used when the metric string does not set
    the parameter; ``needs_cutoff`` lists the choices that need ``@k``.
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
    maximum: float | None = None
    exclusive_max: bool = False
    bounds: str = ""
    """Why the bounds are what they are (checked against the formula in :mod:`rankwise.metrics.recipes`)."""
    numbers: NumberList | None = None
    needs_cutoff: tuple[str, ...] = ()
    """The choices that mean something only at a cutoff (``ideal='k'``, ``denominator='k'``):
    a metric given one without ``@k`` is refused."""
    set_by: str = ""
    """The entry point that alone sets this parameter, through its ``convention`` (``samples``:
    :func:`rankwise.evaluate`'s ``sample=``, which evaluates (query, sample) keys): where the
    conventions hold it, their value wins over a metric string's, so that no metric string can
    claim inputs the evaluation does not have (a value written in the string counts only where
    no conventions are given: a recipe's tree built alone)."""
    check: bool = False
    """A check on the data that changes no value (``labels``: a library's refusal of some
    labels): :func:`rankwise.why` counts it among no library's changes."""

    @property
    def numeric(self) -> bool:
        """Whether values are numbers (or, for a string parameter, lists of numbers)."""
        return (self.kind in (int, float)) or self.numbers is not None

    def expected(self) -> str:
        """What a value must be, for an error message: ``'a number in [0, 1]'``, ``'an integer
        in [0, 1] or one of ['skip', 'error']'``, ``'one of [...]'``, ..."""
        if self.kind is bool:
            return "True or False"
        if self.kind is str:
            return f"one of {list(self.choices)}" if self.choices else "a string"
        number = "an integer" if self.kind is int else "a number"
        words = f" or one of {list(self.choices)}" if self.choices else ""
        return f"{number} in {self.interval()}{words}"

    def interval(self) -> str:
        """The valid range as an interval, e.g. ``'(0, 1)'``, ``'[0, 2**62]'``, ``'any finite'``."""
        if self.minimum is None and self.maximum is None:
            return "any finite number"

        def show(bound: float) -> str:
            if abs(bound) == LIMIT:
                return "-2**62" if bound < 0 else "2**62"
            return f"{bound:g}"

        low = "(-∞" if self.minimum is None else ("(" if self.exclusive_min else "[") + show(self.minimum)
        high = "∞)" if self.maximum is None else show(self.maximum) + (")" if self.exclusive_max else "]")
        return f"{low}, {high}"


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
    empty_value: float | str | None
    """Value for a judged query with nothing relevant (and for a query missing from the run);
    None: undefined there (NULL, left out of the mean)."""
    aggregate: Aggregate = "mean"
    """How :func:`rankwise.summarize` aggregates per-query values ('none': per query only; 'set':
    no per-query value, one value per run computed from every user's list at once:
    ``evaluate(..., per_query=False)``)."""
    value_type: ValueType = "float"
    """Float64 per query (every measure but trec_eval's relstring, which is text)."""
    better: Better = "higher"
    """Which way a ranking is better: a higher value (most measures), a lower one (Unjudged) or
    neither (Judged, RBPResid: how complete the judgments are, not how good the ranking is);
    the comparison summary marks the best run and significant wins by it."""
    trec_eval: str | None = None
    """The trec_eval measure this metric reproduces, if any (``-m`` name)."""
    cutoff_is_rank: bool = True
    """Whether ``@k`` is a rank (the metric reads the top k; :func:`rankwise.explain` shows the
    ranks down to k), or counts something else (rectools' PartialAUC and PAP: k non-relevant
    documents, wherever they rank; explain then shows the whole ranking)."""

    def param(self, name: str) -> Param | None:
        """The parameter called ``name`` (exact), or ``None``."""
        for p in self.params:
            if p.name == name:
                return p
        return None

    @property
    def all_names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


def shorten(value: object, width: int = 80) -> str:
    """``repr(value)``, cut to about ``width`` characters, for an error message.

    >>> shorten("x" * 500, 40)
    "'xxxxxxxxxxxxxxxxxxx...xxxxxxxxxxx' (502 characters)"
    """
    text = repr(value)
    if len(text) <= width:
        return text
    return f"{text[: width - 20]}...{text[-12:]} ({len(text)} characters)"
