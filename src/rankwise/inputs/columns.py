"""Each input's own column names (``run_columns``, ``qrels_columns``, ``run_names``,
``qrels_names``): checked once, then applied as the inputs are read.

>>> reading = Reading.from_options({"run_columns": {"query_id": "qid"}})
>>> reading.rename("run"), reading.rename("qrels")
({'query_id': 'qid'}, None)
>>> Reading(run_columns={"qid": "query_id"})
Traceback (most recent call last):
...
rankwise.errors.InvalidParameterError: run_columns has no key 'qid' (reversed? pass run_columns={'query_id': 'qid'}): its keys are ['query_id', 'doc_id', 'score'], each mapped to the run's own name of that column, e.g. run_columns={'query_id': 'qid'}
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from rankwise.conventions import INPUT_KEYWORDS, KEYS, Columns, _FromOptions
from rankwise.errors import InvalidParameterError, closest
from rankwise.inputs import forms
from rankwise.inputs.interactions import Training, read_train
from rankwise.inputs.read import Source, to_frame, to_lazyframe

if TYPE_CHECKING:
    from rankwise.inputs.groups import Target

Kind = Literal["run", "qrels"]



def _check_columns(kind: str, mapping: object) -> dict[str, str] | None:
    if mapping is None:
        return None
    what = f"{kind}_columns"
    if not isinstance(mapping, Mapping):
        raise InvalidParameterError(
            f"{what} must be a dict such as {{'query_id': 'qid'}}, got {type(mapping).__name__}"
        )
    possessive = "'" if kind.endswith("s") else "'s"
    example = {"query_id": "qid"} if "query_id" in KEYS[kind] else {KEYS[kind][1]: "x"}
    for key, value in mapping.items():
        if key not in KEYS[kind]:
            best = closest(str(key), KEYS[kind], n=1)
            if value in KEYS[kind]:  # reversed: {'qid': 'query_id'}
                hint = f" (reversed? pass {what}={ {value: key}!r})"
            else:
                hint = f" (did you mean {best[0]!r}?)" if best else ""
            raise InvalidParameterError(
                f"{what} has no key {key!r}{hint}"
                + f": its keys are {list(KEYS[kind])}, each mapped to the {kind}{possessive} own name of that "
                f"column, e.g. {what}={example}"
            )
        if not isinstance(value, str) or not value:
            raise InvalidParameterError(f"{what}[{key!r}] must be a column name (a non-empty string), got {value!r}")
    return dict(mapping)


def _check_names(kind: Kind, names: object) -> list[str] | None:
    if names is None:
        return None
    what = f"{kind}_names"
    if isinstance(names, str) or not isinstance(names, Sequence) or not names:
        raise InvalidParameterError(
            f"{what} must be a list of column names such as ['query_id', 'doc_id', "
            f"'{'score' if kind == 'run' else 'relevance'}'], got {names!r}"
        )
    if not all(isinstance(n, str) and n for n in names):
        raise InvalidParameterError(f"{what} must hold non-empty strings, got {list(names)!r}")
    if len(set(names)) != len(names):
        raise InvalidParameterError(f"{what} names a column twice: {list(names)!r}")
    return list(names)


@dataclass(frozen=True)
class Reading(_FromOptions):
    """How each input is read (see :class:`~rankwise.conventions.InputOptions`)."""

    run_columns: Mapping[str, str] | None = None
    qrels_columns: Mapping[str, str] | None = None
    run_names: Sequence[str] | None = None
    qrels_names: Sequence[str] | None = None
    train: Any = field(default=None, compare=False)
    """The training interactions (``train=``), as given; read by :meth:`read_train`."""
    train_columns: Mapping[str, str] | None = None
    """The training interactions' own names of the user and item columns (``query_id``,
    ``doc_id``), e.g. ``{'query_id': 'user_id', 'doc_id': 'item_id'}``."""
    features: Any = field(default=None, compare=False)
    """The item features (``features=``), as given; read by :meth:`read_features`."""
    features_column: str | None = None
    """The item features' column of the vectors (lists or arrays); None: the single other
    column, or every other column as one dimension each (:mod:`rankwise.inputs.features`)."""
    base_run: Any = field(default=None, compare=False)
    """The base run (``base_run=``), as given; read by :meth:`read_base_run`."""
    base_run_columns: Mapping[str, str] | None = None
    """The base run's own names of the query, doc and score columns, e.g.
    ``{'score': 'base_score'}``."""
    catalog: Any = field(default=None, compare=False)
    """The catalog (``catalog=``), as given; read by :meth:`read_catalog`."""
    catalog_column: str | None = None
    """The catalog table's column of the items; None: the run's doc column, else its only column."""
    categories: Any = field(default=None, compare=False)
    """The item categories (``categories=``), as given; read by :meth:`read_categories`."""
    categories_columns: Mapping[str, str] | None = None
    """The item categories' own names of the item and category columns (``doc_id``,
    ``category``), e.g. ``{'doc_id': 'item_id', 'category': 'genre'}``."""
    groups: Any = field(default=None, compare=False)
    """The document groups (``groups=``), as given; read by :meth:`read_groups`."""
    groups_columns: Mapping[str, str] | None = None
    """The document groups' own names of the doc, group and weight columns (``doc_id``, ``group``,
    ``weight``), e.g. ``{'group': 'gender'}``."""
    target: Any = field(default=None, compare=False)
    """The target distribution (``target=``), as given; read by :meth:`read_target`."""
    target_columns: Mapping[str, str] | None = None
    """The target's own names of the query, group and share columns (``query_id``, ``group``,
    ``share``)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "run_columns", _check_columns("run", self.run_columns))
        object.__setattr__(self, "qrels_columns", _check_columns("qrels", self.qrels_columns))
        object.__setattr__(self, "train_columns", _check_columns("train", self.train_columns))
        object.__setattr__(self, "base_run_columns", _check_columns("base_run", self.base_run_columns))
        object.__setattr__(self, "categories_columns", _check_columns("categories", self.categories_columns))
        object.__setattr__(self, "groups_columns", _check_columns("groups", self.groups_columns))
        object.__setattr__(self, "target_columns", _check_columns("target", self.target_columns))
        for name in ("features_column", "catalog_column"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value):
                raise InvalidParameterError(f"{name} must be a column name (a non-empty string), got {value!r}")
        object.__setattr__(self, "run_names", _check_names("run", self.run_names))
        object.__setattr__(self, "qrels_names", _check_names("qrels", self.qrels_names))

    def rename(self, kind: Kind) -> Mapping[str, str] | None:
        return self.run_columns if kind == "run" else self.qrels_columns

    def names(self, kind: Kind) -> Sequence[str] | None:
        return self.run_names if kind == "run" else self.qrels_names

    def read(self, obj: Any, kind: Kind, columns: Columns, fmt: str | None = None) -> pl.LazyFrame:
        """The input as a LazyFrame with the configured column names."""
        return to_lazyframe(obj, kind, columns, fmt, rename=self.rename(kind), names=self.names(kind))

    def source(self, obj: Any, kind: Kind, columns: Columns, fmt: str | None = None, *, paths: bool = False) -> Source:
        """The input read once, as an engine takes it (:data:`~rankwise.inputs.read.Source`): a
        Polars frame with the configured column names (:func:`~rankwise.inputs.read.to_frame`:
        a DataFrame when its rows are in memory, a LazyFrame when they are still to be read or
        computed), or with ``paths`` a path, as given, when the input has no names of its own
        (``*_columns``, ``*_names``): the DuckDB engine reads Parquet and CSV files itself."""
        if paths and isinstance(obj, (str, os.PathLike)) and not self.rename(kind) and self.names(kind) is None:
            return obj
        return to_frame(obj, kind, columns, fmt, rename=self.rename(kind), names=self.names(kind))

    def prepared(self, obj: Any, kind: Kind, columns: Columns, fmt: str | None = None) -> Any:
        """The input as an engine reads it: itself, or a LazyFrame with the configured names
        when it has its own names (``*_columns``, ``*_names``) or is one of the forms of
        :mod:`rankwise.inputs.forms` (a dict, a ranx object, records: an iterator is read once, here)."""
        if self.rename(kind) or self.names(kind) is not None or is_form(obj):
            return self.read(obj, kind, columns, fmt)
        return obj

    def read_train(self, columns: Columns) -> Training | None:
        """The training interactions given (``train=``), read with their own column names
        (``train_columns``); None when none were given."""
        if self.train is None:
            return None
        return read_train(self.train, columns, self.train_columns)

    def read_features(self, columns: Columns) -> pl.DataFrame | None:
        """The item features given (``features=``), read and checked in the long form of
        :mod:`rankwise.inputs.features`; None when none were given."""
        if self.features is None:
            return None
        from rankwise.inputs.features import read_features

        return read_features(self.features, columns, self.features_column)

    def read_base_run(self, columns: Columns) -> pl.LazyFrame | None:
        """The base run given (``base_run=``), read as the run is read (:func:`~rankwise.inputs.read.to_lazyframe`:
        every form the run takes) with its own column names (``base_run_columns``), its errors
        naming the base run (:func:`~rankwise.inputs.checks.base_run_named`); None when none was given."""
        if self.base_run is None:
            return None
        from rankwise.inputs.checks import base_run_named

        with base_run_named():
            return to_lazyframe(self.base_run, "run", columns, rename=self.base_run_columns)

    def read_catalog(self, columns: Columns) -> pl.LazyFrame | None:
        """The catalog given (``catalog=``), its distinct items in the doc column
        (:mod:`rankwise.inputs.catalog`); None when none was given."""
        if self.catalog is None:
            return None
        from rankwise.inputs.catalog import read_catalog

        return read_catalog(self.catalog, columns, self.catalog_column)

    def read_categories(self, columns: Columns) -> pl.DataFrame | None:
        """The item categories given (``categories=``), read and checked in the long form of
        :mod:`rankwise.inputs.categories`; None when none were given."""
        if self.categories is None:
            return None
        from rankwise.inputs.categories import read_categories

        return read_categories(self.categories, columns, self.categories_columns)

    def read_groups(self, columns: Columns) -> pl.DataFrame | None:
        """The document groups given (``groups=``), read and checked as (doc, group, weight)
        rows (:func:`~rankwise.inputs.groups.read_groups`); None when none were given."""
        if self.groups is None:
            return None
        from rankwise.inputs.groups import read_groups

        return read_groups(self.groups, columns, self.groups_columns)

    def read_target(self, columns: Columns) -> Target | None:
        """The target distribution given (``target=``), read and checked
        (:func:`~rankwise.inputs.groups.read_target`); None when none was given."""
        if self.target is None:
            return None
        from rankwise.inputs.groups import read_target

        return read_target(self.target, columns, self.target_columns)

    def read_side(self, keyword: str, columns: Columns) -> Any:
        """The side input ``keyword`` (:data:`~rankwise.conventions.SIDE_INPUTS`) given, read
        (:meth:`read_train`, :meth:`read_features`, :meth:`read_base_run`, :meth:`read_catalog`,
        :meth:`read_groups`, :meth:`read_target`); None when none was given."""
        readers = {
            "train": self.read_train, "features": self.read_features, "base_run": self.read_base_run,
            "catalog": self.read_catalog, "categories": self.read_categories, "groups": self.read_groups,
            "target": self.read_target,
        }
        return readers[keyword](columns)

    def without(self, kind: Kind) -> dict[str, Any]:
        """:meth:`as_options` without ``kind``'s options (once that input is prepared)."""
        return {key: value for key, value in self.as_options().items() if not key.startswith(f"{kind}_")}

    def as_options(self) -> dict[str, Any]:
        """The options given (not None), e.g. to pass them on to :func:`rankwise.evaluate`."""
        return {key: getattr(self, key) for key in INPUT_KEYWORDS if getattr(self, key) is not None}


def is_form(obj: object) -> bool:
    """Whether ``obj`` is a dict, a ranx object or records (not a frame, a table or a path)."""
    if isinstance(obj, (str, os.PathLike, pl.DataFrame, pl.LazyFrame)):
        return False
    if type(obj).__module__.split(".")[0] in ("pyarrow", "pandas", "duckdb", "_duckdb", "pyspark"):
        return False
    return isinstance(obj, Mapping) or forms.is_ranx(obj) or forms.is_records(obj)
