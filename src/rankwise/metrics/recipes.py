"""Each metric written once, as a formula over per-query primitives.

A *recipe* turns a parsed :class:`~rankwise.metrics.metric.Metric` into a small expression tree whose
leaves are the per-query primitives of :mod:`rankwise.primitives` (typed dataclasses, e.g.
``ApSum(t, k)``) and whose inner nodes are scalar operations (``Div0(a, b)``, ``Add(a, b)``,
...). Each engine implements every primitive and operation once and compiles the tree. Each
formula lives in its family's module (:mod:`rankwise.metrics.families`); this module gathers
them into :data:`RECIPES` and gives the engines each metric's tree.

>>> import rankwise as rw
>>> recipe(rw.parse_metric("nDCG@10"), {})
Div0(a=DcgGain(k=10, g=Gain(kind='linear', min_rel=0.0, table=()), discount='log2', base=2.0), b=Idcg(k=10, g=Gain(kind='linear', min_rel=0.0, table=()), discount='log2', base=2.0))
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rankwise.conventions import Conventions
from rankwise.errors import InvalidParameterError, RankwiseError
from rankwise.metrics.families import FAMILIES
from rankwise.metrics.families import base_run as _base_run
from rankwise.metrics.families import categories as _categories
from rankwise.metrics.families import diversity as _diversity
from rankwise.metrics.families import fairness as _fairness
from rankwise.metrics.families import feature_diversity as _feature_diversity
from rankwise.metrics.families import popularity as _popularity
from rankwise.metrics.families import serendipity as _serendipity
from rankwise.metrics.families.cwl import CWL_MEASURES, CwlModel, cwl_discount_value
from rankwise.metrics.families.gain import gain_of, parse_gain_table
from rankwise.metrics.families.judgments import RELSTRING_DEFAULT_K
from rankwise.metrics.families.shared import checked_labels, ideal_ideal
from rankwise.metrics.family import Recipe
from rankwise.metrics.metric import Metric
from rankwise.metrics.spec import ParamValue
from rankwise.primitives import Node, expected_tree, order_free

__all__ = [
    "BASE_RUN_RECIPES", "CATEGORY_RECIPES", "CWL_MEASURES", "DIVERSITY_RECIPES", "FAIR_RECIPES", "FEATURE_RECIPES", "RECIPES", "RELSTRING_DEFAULT_K", "SET_RECIPES", "TRAIN_RECIPES", "CwlModel", "Output",
    "Recipe", "cwl_discount_value", "expected_metrics", "gain_of", "ideal_ideal", "outputs", "parse_gain_table",
    "reading_features", "reading_side", "reading_subtopics", "reading_train", "recipe", "tree_of",
]


def _recipes() -> dict[str, Recipe]:
    """Every family's recipes; a family whose recipes are not those of its specs is an error."""
    out: dict[str, Recipe] = {}
    for family in FAMILIES:
        found = dict(family.recipes())
        names = [spec.name for spec in family.specs]
        if sorted(found) != sorted(names):
            raise RuntimeError(f"the {family.name} family's recipes are for {sorted(found)}, its specs {sorted(names)}")
        out.update({name: found[name] for name in names})
    return out


RECIPES: dict[str, Recipe] = _recipes()
"""Every metric's recipe by spec name, in registry order (each family's, from its module)."""

DIVERSITY_RECIPES: dict[str, Recipe] = {spec.name: RECIPES[spec.name] for spec in _diversity.SPECS}
"""The diversity recipes (ndeval's measures: subtopic judgments, the greedy ideal)."""
TRAIN_RECIPES: dict[str, Recipe] = {
    spec.name: RECIPES[spec.name] for spec in (*_popularity.SPECS, *_serendipity.SPECS)
}
"""The popularity and serendipity families' recipes: they read the training interactions (``train=``)."""
FEATURE_RECIPES: dict[str, Recipe] = {spec.name: RECIPES[spec.name] for spec in _feature_diversity.SPECS}
"""The feature-diversity family's recipes: they read the item features (``features=``)."""
BASE_RUN_RECIPES: dict[str, Recipe] = {spec.name: RECIPES[spec.name] for spec in _base_run.SPECS}
"""The base-run family's recipes: they read the base run (``base_run=``)."""
FAIR_RECIPES: dict[str, Recipe] = {spec.name: RECIPES[spec.name] for spec in _fairness.SPECS}
"""The fair-exposure family's recipes: they read the document groups (``groups=``)."""
CATEGORY_RECIPES: dict[str, Recipe] = {spec.name: RECIPES[spec.name] for spec in _categories.SPECS}
"""The category family's recipes: they read the item categories (``categories=``)."""
SET_RECIPES: dict[str, Recipe] = {
    spec.name: RECIPES[spec.name] for family in FAMILIES for spec in family.specs if spec.aggregate == "set"
}
"""The set-level metrics' recipes (the catalog family's, popularity parity's, ...): one value per
run, no per-query value."""


def recipe(metric: Metric, conventions: Mapping[str, ParamValue]) -> Node:
    """The formula tree of ``metric`` with its parameters resolved against ``conventions``;
    with its parameter ``ties='expected'`` (P, R, RR, nDCG, ...: ``metrics.families.shared.EXPECTED_TIES``), the tree
    of its expected value over the orders of the tied documents
    (:func:`~rankwise.primitives.expected_tree`); with its parameter ``labels`` (nDCG, DCG, AP,
    P: ``metrics.families.shared.LABELS``), the check of the judgments' labels around it."""
    params = metric.resolve(conventions)
    tree = checked_labels(metric, params, RECIPES[metric.spec.name](metric, params))
    return _expected(metric, tree) if params.get("ties") == "expected" else tree


def _expected(metric: Metric, tree: Node) -> Node:
    """The tree of ``tree``'s expected value over the orders of the tied documents, or an
    error naming the metrics that have one."""
    expected = expected_tree(tree)
    if expected is None:
        raise InvalidParameterError(
            f"ties='expected' has no closed form for {metric.label!r} (no sum over the ranks, nor "
            "the first relevant rank's RR or Success); the metrics that have one: "
            f"{', '.join(expected_metrics())}, and those no order of the tied documents changes "
            "(NumRet, NumRel, SetP, ...)"
        )
    return expected


@dataclass(frozen=True)
class Output:
    """One output column of an evaluation: its label, its formula tree, whether it reads the
    judged-only ranking, its value type."""

    label: str
    tree: Node
    judged_only: bool = False
    value_type: str = "float"


def outputs(metrics: Sequence[Metric], conv: Conventions) -> list[Output]:
    """The output columns of ``metrics`` under ``conv``: the engines compile these.

    Built once per (metrics, conventions) and kept (metrics, conventions and trees are frozen): an
    evaluation asks for them several times (which metrics read each side input, the engine's
    compiler), and resolving every parameter and building every tree cost about 2 ms of a
    50-query call each time. Kept by each metric and its spelling (``P@5`` and ``P_5`` are equal
    metrics with their own column names)."""
    return list(_outputs(_spelled(metrics), conv))


def _spelled(metrics: Sequence[Metric]) -> tuple[tuple[Metric, str | None], ...]:
    """The cache key of ``metrics``: each with the string it was parsed from (not part of its
    equality)."""
    return tuple((m, m.source) for m in metrics)


@functools.lru_cache(maxsize=256)
def _outputs(metrics: tuple[tuple[Metric, str | None], ...], conv: Conventions) -> tuple[Output, ...]:
    params = conv.as_params()
    return tuple(
        Output(m.label, tree_of(m, params, conv), bool(m.resolve(params).get("judged_only", False)), m.spec.value_type)
        for m, _ in metrics
    )


def tree_of(metric: Metric, params: Mapping[str, ParamValue], conv: Conventions) -> Node:
    """``metric``'s tree with its parameters resolved against ``params`` (``conv``'s). Under
    ``ties='expected'`` a metric without the parameter ``ties`` (AP, ERR, NumRet, ...) is its
    expected value's too, when it has one (an order-free one is itself); one without is an
    :class:`~rankwise.errors.InvalidParameterError` naming those that have one."""
    if conv.max_rank is not None and metric.resolve(params).get("ties") == "expected":
        # as the convention ties='expected' is (Conventions): a metric's own ties='expected' too
        raise InvalidParameterError(
            f"convention 'max_rank' cannot be used with {metric.label!r}'s ties='expected': which of the "
            "documents tied across the cut max_rank keeps would depend on their order; cut the metric at k "
            "instead (nDCG@k, P@k, ...), or ask for the range with ties='pessimistic' and ties='optimistic'"
        )
    tree = recipe(metric, params)
    if conv.ties == "expected" and "ties" not in metric.resolve(params):
        return _expected(metric, tree)
    return tree


@functools.cache
def expected_metrics() -> tuple[str, ...]:
    """The metrics with a closed form under ``ties='expected'``, read from the specs and their
    trees: those with the parameter ``ties='expected'``, and those (AP) whose tree under their
    default parameters has one although an order-free one is not asked of them: the list a
    refused metric's error names."""
    from rankwise.metrics.metric import make_metric
    from rankwise.metrics.registry import SPECS

    params = Conventions().as_params()
    found = []
    for spec in SPECS:
        if any(p.name == "ties" and "expected" in (p.choices or ()) for p in spec.params):
            found.append(spec.name)
            continue
        cutoff = 10 if spec.cutoff == "required" else None
        try:
            tree = recipe(make_metric(spec, {}, cutoff), params)
        except RankwiseError:
            continue
        if not order_free(tree) and expected_tree(tree) is not None:
            found.append(spec.name)
    return tuple(found)


def reading_subtopics(metrics: Sequence[Metric], conv: Conventions) -> list[str]:
    """The labels of the ``metrics`` that read judgments per subtopic (the diversity measures:
    their trees hold a primitive of :data:`~rankwise.primitives.INTENT_SIDES`)."""
    from rankwise.primitives import INTENT_SIDES, leaves

    return [o.label for o in outputs(metrics, conv) if any(leaf.side in INTENT_SIDES for leaf in leaves(o.tree))]


def reading_train(metrics: Sequence[Metric], conv: Conventions) -> list[str]:
    """The labels of the ``metrics`` that read the training interactions (``train=``: their trees
    hold a primitive that reads a :data:`~rankwise.primitives.TRAIN_COLUMNS` column)."""
    return reading_side(metrics, conv, "train")


def reading_features(metrics: Sequence[Metric], conv: Conventions) -> list[str]:
    """The labels of the ``metrics`` that read the item features (``features=``: their trees
    hold a primitive that reads a :data:`~rankwise.primitives.FEATURE_COLUMNS` column)."""
    return reading_side(metrics, conv, "features")


def reading_side(metrics: Sequence[Metric], conv: Conventions, keyword: str) -> list[str]:
    """The labels of the ``metrics`` that read the side input ``keyword``
    (:data:`~rankwise.conventions.SIDE_INPUTS`: their trees hold a primitive reading one of its
    row columns, or a primitive that declares it among its ``side_inputs()``: a set-level
    primitive whose catalog it is, :meth:`~rankwise.primitives.sets.SetPrimitive.side_inputs`;
    :class:`~rankwise.primitives.categories.Miscalibration`, the users' histories). Kept per
    (metrics, conventions, keyword), as :func:`outputs` is: an evaluation asks it of every side
    input."""
    return list(_reading_side(_spelled(metrics), conv, keyword))


@functools.lru_cache(maxsize=256)
def _reading_side(
    metrics: tuple[tuple[Metric, str | None], ...], conv: Conventions, keyword: str,
) -> tuple[str, ...]:
    from rankwise.conventions import SIDE_INPUTS
    from rankwise.primitives import leaves

    wanted = set(SIDE_INPUTS[keyword].row_columns)

    def reads(leaf: object) -> bool:
        declared = getattr(leaf, "side_inputs", None)
        return bool(wanted & set(getattr(leaf, "reads", ()))) or (declared is not None and keyword in declared())

    return tuple(o.label for o in _outputs(metrics, conv) if any(reads(leaf) for leaf in leaves(o.tree)))
