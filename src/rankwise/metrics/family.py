"""The shape of a metric family's home (:mod:`rankwise.metrics.families`): what one family
declares, in one module, for the registry, the recipes and every naming scheme to read.

A family is a :class:`MetricFamily`: its specs, its recipes (a function, so that listing the
metrics imports no primitive), and its names in the other tools' schemes: trec_eval's
(:class:`TrecName`), ranx's, ir-measures' and ndeval's. The registry
(:mod:`rankwise.metrics.registry`), :data:`rankwise.metrics.recipes.RECIPES` and the name tables
of :mod:`rankwise.names` are these, family after family.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

from rankwise.metrics.spec import MetricSpec, ParamValue

if TYPE_CHECKING:
    from rankwise.primitives import Node


class Measured(Protocol):
    """What a recipe reads of a metric (:class:`rankwise.metrics.metric.Metric` is one): its spec,
    its cutoff and its label (the name its errors give it)."""

    @property
    def spec(self) -> MetricSpec: ...

    @property
    def cutoff(self) -> int | None: ...

    @property
    def label(self) -> str: ...


Params = Mapping[str, ParamValue]
"""A metric's parameters, resolved (:meth:`rankwise.metrics.metric.Metric.resolve`)."""

Recipe = Callable[[Measured, Params], "Node"]
"""A metric's formula: its parsed metric and resolved parameters to a tree of primitives."""


@dataclass(frozen=True)
class TrecName:
    """One trec_eval measure: the rankwise spec it maps to and what its number means."""

    spec: str
    number: Literal["cutoff", "param", "none"] = "none"
    param: str | None = None
    defaults: tuple[float, ...] = ()
    fmt: str = "{:g}"
    """How trec_eval prints the number in the measure name."""
    printed: bool = True
    """Whether trec_eval prints the parameter in the measure's name (set_F and rbp do not)."""
    bare_default: bool = False
    """Whether trec_eval prints the measure without its number when the default is used
    (``relstring``, but ``relstring_20`` for ``-m relstring.20``)."""

    place: int = field(kw_only=True)
    """Its place in trec_eval's table of measures: the order ``trec_eval -m all_trec`` prints,
    in which it prints any measures it is given."""
    official: bool = field(default=False, kw_only=True)
    """Whether it is among trec_eval's default measures (what ``trec_eval qrels run`` prints)."""
    gain_table: bool = field(default=False, kw_only=True)
    """Whether it takes a gain table, ``ndcg.1=3,2=9`` (``-m`` form) or ``ndcg_1=3,2=9``."""
    pair: bool = field(default=False, kw_only=True)
    """Whether it takes trec_eval 10's ``name=value`` pair, ``rbp.p=0.95`` (or ``rbp_p=0.95``)."""

    @property
    def ascending(self) -> bool:
        """Whether trec_eval reads the values of ``-m name.v1,v2`` as cutoffs, one measure each,
        which it sorts into increasing order (``P``, ``ndcg_cut``, ``iprec_at_recall``,
        ``Rprec_mult``, ...), rather than as parameters kept as given (``set_F``, ``rbp``)."""
        return self.number == "cutoff" or (self.number == "param" and self.printed)


@dataclass(frozen=True)
class MetricFamily:
    """One family's home: its specs (in the order the registry lists them), its recipes, and its
    names in other tools' schemes, each keyed as the tool reads it."""

    name: str
    """What the family is, in a few words (``"gain-based"``)."""
    specs: tuple[MetricSpec, ...]
    recipes: Callable[[], Mapping[str, Recipe]]
    """The family's recipes by spec name (a function: the primitives are imported when called)."""
    trec_eval: Mapping[str, TrecName] = field(default_factory=dict)
    """trec_eval's measure names, in the family's order (a spec's names in the order listed)."""
    ranx: Mapping[str, str] = field(default_factory=dict)
    """ranx's names of each spec, for listings (spec name -> ``"ndcg@k, ndcg_burges@k"``)."""
    ranx_special: Mapping[str, tuple[str, Mapping[str, ParamValue]]] = field(default_factory=dict)
    """ranx's names that are no name of the spec: name -> (spec name, parameters)."""
    ranx_whole_list: Mapping[str, str] = field(default_factory=dict)
    """ranx's names that, without ``@k``, measure the whole retrieved list: name -> spec name."""
    ir_measures: Mapping[str, str] = field(default_factory=dict)
    """ir-measures' name of each spec it also has (spec name -> its name)."""
    ir_measures_defaults: Mapping[str, Mapping[str, ParamValue]] = field(default_factory=dict)
    """ir-measures' defaults where they are not rankwise's (spec name -> parameters)."""
    ir_measures_flags: Mapping[tuple[str, str], str] = field(default_factory=dict)
    """ir-measures' parameters that make a measure another spec: (spec, parameter) -> spec."""
    ndeval: Mapping[str, str] = field(default_factory=dict)
    """The names ndeval prints, by spec name."""
    reads: tuple[str, ...] = ()
    """The inputs beyond the qrels and the run that its metrics read (``'train'``: the training
    interactions; ``'features'``: the item features), for the metric pages;
    ``tests/metrics/test_popularity.py`` checks it against the metrics' trees
    (:func:`rankwise.metrics.recipes.reading_train`, :func:`~rankwise.metrics.recipes.reading_features`)."""
    reads_by_spec: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Where its metrics read different inputs: spec name -> the inputs that spec's metrics read
    (with some parameters), instead of :attr:`reads`."""
    beyond_accuracy: bool = False
    """Whether its metrics measure something besides how relevant the ranking is (novelty,
    popularity, diversity of a recommender's lists): a report draws each against an accuracy
    metric (:func:`rankwise.reporting.plots.tradeoff`)."""
