"""The Polars engine's own column names: the inputs once normalised (:mod:`rankwise._polars.prepare`)
and the ranked rows built from them carry these names, whatever the caller's columns are called.
Every module that reads the engine's frames (the engine's own, the judged frame, ``explain``,
the ranking change) takes them from here."""

from __future__ import annotations

from rankwise.primitives.core import (
    BASE_RUN_COLUMNS,
    CATALOG_COLUMNS,
    CATEGORY_COLUMNS,
    FAIR_COLUMNS,
    FEATURE_COLUMNS,
    FEATURE_HISTORY_COLUMNS,
    GROUP_COLUMNS,
    TRAIN_COLUMNS,
    TRAIN_PAIR_COLUMNS,
)

Q = "__q"
"""The query id."""
D = "__d"
"""The document id."""
S = "__s"
"""The run's score."""
REL = "__rel"
"""The relevance (NULL on a ranked row without a judgment)."""
C = "__c"
"""The run's cost column (:attr:`~rankwise.conventions.Columns.cost`; 1 on the ranked rows when
the run has none)."""
RANK = "__rank"
"""A ranked document's rank, 1..n."""
IRANK = "__irank"
"""A judgment's rank in the ideal order of a gain definition."""
RUN_IRANK = "__run_irank"
"""A judgment's rank in the run-ordered ideal (ties broken by the run's scores)."""
SUB = "__sub"
"""The subtopic of a judgment (diversity measures)."""
COV = "__cov"
"""How many documents ranked above cover the same subtopic."""
NSUB = "__nsub"
"""The number of relevant documents of a subtopic."""
INDEX = "__index"
"""Each ranked list's positions 0..n-1 (:func:`~rankwise._polars.ranking.ranked`, for the ideal
prefix's gathers)."""
DEPTH = "__depth"
"""Each ranked list's length, its deepest rank (:func:`~rankwise._polars.ranking.ranked`, for
the judged-rows plan's last row)."""
ORDER = "__order"
"""A run row's position in the run as given (0 first), the key of ``ties='input'``
(:data:`~rankwise.conventions.TIE_ORDERS`): the prepared run carries it only under that policy
(:func:`~rankwise._polars.prepare.prepare`'s ``input_order``)."""
TRAIN: dict[str, str] = {name: f"__{name}" for name in (*TRAIN_COLUMNS, *TRAIN_PAIR_COLUMNS)}
"""The ranked rows' values from the training interactions
(:data:`~rankwise.primitives.TRAIN_COLUMNS`), by row column: joined to the ranked rows by item
(and by (user, item) for ``seen``) only when a metric reads them."""
FEATURES: dict[str, str] = {name: f"__{name}" for name in FEATURE_COLUMNS}
"""The ranked rows' summed distances to the items ranked above them, from the item features
(:data:`~rankwise.primitives.FEATURE_COLUMNS`), by row column: computed on the rows within the
cutoff of the metrics that read them (:func:`~rankwise._polars.plan.with_pair_distances`)."""
BASE: dict[str, str] = {name: f"__{name}" for name in BASE_RUN_COLUMNS}
"""The ranked rows' values from the base run (:data:`~rankwise.primitives.BASE_RUN_COLUMNS`), by
row column: joined to the ranked rows by (query, item) and by query only when a metric reads them
(:func:`~rankwise._polars.plan.with_base_ranks`)."""


def row_column(name: str) -> str:
    """The plans' column of a row column computed from a side input (or of its variant,
    :func:`~rankwise.primitives.categories.variant`)."""
    return f"__{name}"


CATEGORIES: dict[str, str] = {name: row_column(name) for name in CATEGORY_COLUMNS}
"""The ranked rows' values from the item categories (:data:`~rankwise.primitives.CATEGORY_COLUMNS`),
by row column: computed on the ranked rows, in rank order within each query, only when a metric
reads them (:func:`~rankwise._polars.plan.with_category_values`)."""
CATALOG: dict[str, str] = {name: f"__{name}" for name in CATALOG_COLUMNS}
"""The ranked rows' values from the catalog (:data:`~rankwise.primitives.CATALOG_COLUMNS`), by row
column: its size, joined to the ranked rows only when a metric reads it
(:func:`~rankwise._polars.plan.with_catalog_size`)."""
FEATURES_HISTORY: dict[str, str] = {name: f"__{name}" for name in FEATURE_HISTORY_COLUMNS}
"""The ranked rows' feature similarity to their user's training items
(:data:`~rankwise.primitives.FEATURE_HISTORY_COLUMNS`), by row column
(:func:`~rankwise._polars.plan.with_item_pairs`)."""
FAIR: dict[str, str] = {name: f"__{name}" for name in FAIR_COLUMNS}
"""The ranked rows' divergences from the target, from the document groups and the target
(:data:`~rankwise.primitives.FAIR_COLUMNS`), by row column: computed on the rows within the
cutoff of the metrics that read them (:func:`~rankwise._polars.plan.with_fair_values`)."""
GROUPS: dict[str, str] = {name: f"__{name}" for name in GROUP_COLUMNS}
"""The ranked rows' groups from the document groups (:data:`~rankwise.primitives.GROUP_COLUMNS`),
by row column: joined to the ranked rows by item only when a metric reads them
(:func:`~rankwise._polars.plan.with_group_lists`)."""
