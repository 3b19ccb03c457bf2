"""One home per metric family: each module of this folder declares one family
(:class:`~rankwise.metrics.family.MetricFamily`): its specs and their parameters, its recipes
(each metric's formula over the primitives) and its names in other tools' schemes (trec_eval,
ranx, ir-measures, ndeval). :mod:`~rankwise.metrics.families.shared` holds what several
families use.

The registry (:data:`rankwise.metrics.registry.SPECS`), the recipes
(:data:`rankwise.metrics.recipes.RECIPES`), the name tables of :mod:`rankwise.names` and the
metric table (docs/metrics.md) are :data:`FAMILIES`, in its order (a test checks that every module of
this folder is listed here).
"""

from __future__ import annotations

from rankwise.metrics.families import (
    auc,
    average_precision,
    base_run,
    catalog,
    categories,
    compat,
    counts,
    cwl,
    diversity,
    exposure,
    fairness,
    feature_diversity,
    gain,
    group_exposure,
    incomplete,
    judgments,
    popularity,
    popularity_parity,
    precision_recall,
    serendipity,
    user_coverage,
    utility,
)
from rankwise.metrics.family import MetricFamily

FAMILIES: tuple[MetricFamily, ...] = (
    gain.FAMILY,
    precision_recall.FAMILY,
    average_precision.FAMILY,
    incomplete.FAMILY,
    judgments.FAMILY,
    counts.FAMILY,
    utility.FAMILY,
    compat.FAMILY,
    cwl.FAMILY,
    auc.FAMILY,
    diversity.FAMILY,
    popularity.FAMILY,
    feature_diversity.FAMILY,
    base_run.FAMILY,
    categories.FAMILY,
    catalog.FAMILY,
    user_coverage.FAMILY,
    serendipity.FAMILY,
    fairness.FAMILY,
    exposure.FAMILY,
    popularity_parity.FAMILY,
    group_exposure.FAMILY,
)
"""Every metric family, in the order the registry (and docs/metrics.md's table) lists them."""
