"""The ``.ir`` namespace on Polars DataFrames and LazyFrames (registered on ``import rankwise``).

>>> import polars as pl, rankwise
>>> run = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
>>> qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
>>> run.lazy().ir.evaluate(qrels, ["P@1", "AP"]).collect().row(0)
('q', 1.0, 1.0)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

import polars as pl

from rankwise.conventions import (
    Columns,
    Conventions,
    EvaluationOptions,
    Unpack,
    check_options,
    checked,
)

if TYPE_CHECKING:
    from rankwise.metrics.metric import Metric

# the engine and the readers are imported when a method is called: registering the namespaces
# (on ``import rankwise``) imports nothing but Polars


@pl.api.register_dataframe_namespace("ir")
class IRFrame:
    """``df.ir``: evaluate a run held in a DataFrame."""

    def __init__(self, df: pl.DataFrame) -> None:
        self._df = df

    @checked
    def evaluate(
        self,
        qrels: Any,
        metrics: str | Metric | Iterable[str | Metric],
        *,
        train: Any = None,
        train_columns: Mapping[str, str] | None = None,
        features: Any = None,
        features_column: str | None = None,
        base_run: Any = None,
        base_run_columns: Mapping[str, str] | None = None,
        categories: Any = None,
        categories_columns: Mapping[str, str] | None = None,
        catalog: Any = None,
        catalog_column: str | None = None,
        groups: Any = None,
        groups_columns: Mapping[str, str] | None = None,
        target: Any = None,
        target_columns: Mapping[str, str] | None = None,
        **options: Unpack[EvaluationOptions],
    ) -> pl.DataFrame:
        """Per-query values of this run against ``qrels``; see :func:`rankwise.evaluate` (the
        keyword ``options``: :class:`~rankwise.conventions.EvaluationOptions`; ``train``, the
        training interactions the popularity family reads, and ``train_columns``, their names;
        ``features``, the item features the feature-diversity family reads, and
        ``features_column``, the column of their vectors; ``base_run``, the base run the
        base-run family reads, and ``base_run_columns``, its names; ``categories``, the item
        categories the category family reads, and ``categories_columns``, their names; ``catalog``, the catalog
        whose size the serendipity family reads, and ``catalog_column``, its item column; ``groups`` and ``target``, the document
        groups and the target the fair-exposure family reads, and their names)."""
        from rankwise.evaluation.evaluate import evaluate

        check_options("IRFrame.evaluate", options)
        given = {
            "train": train, "train_columns": train_columns, "features": features, "features_column": features_column,
            "base_run": base_run, "base_run_columns": base_run_columns,
            "categories": categories, "categories_columns": categories_columns, "catalog": catalog,
            "catalog_column": catalog_column,
            "groups": groups, "groups_columns": groups_columns, "target": target, "target_columns": target_columns,
        }
        return evaluate(qrels, self._df, metrics, engine="polars", **options, **{k: v for k, v in given.items() if v is not None})

    def summarize(self, by: str | Iterable[str] | None = None) -> pl.DataFrame:
        """Aggregate a per-query result frame; see :func:`rankwise.summarize`."""
        from rankwise.evaluation.evaluate import summarize

        return summarize(self._df, by=by)


@pl.api.register_lazyframe_namespace("ir")
class IRLazyFrame:
    """``lf.ir``: evaluate a run held in a LazyFrame; the result stays lazy."""

    def __init__(self, lf: pl.LazyFrame) -> None:
        self._lf = lf

    @checked
    def evaluate(
        self,
        qrels: Any,
        metrics: str | Metric | Iterable[str | Metric],
        *,
        check_data: bool = True,
        train: Any = None,
        train_columns: Mapping[str, str] | None = None,
        features: Any = None,
        features_column: str | None = None,
        base_run: Any = None,
        base_run_columns: Mapping[str, str] | None = None,
        categories: Any = None,
        categories_columns: Mapping[str, str] | None = None,
        catalog: Any = None,
        catalog_column: str | None = None,
        groups: Any = None,
        groups_columns: Mapping[str, str] | None = None,
        target: Any = None,
        target_columns: Mapping[str, str] | None = None,
        **options: Unpack[EvaluationOptions],
    ) -> pl.LazyFrame:
        """Per-query values as a LazyFrame; see :func:`rankwise.evaluate` (the keyword
        ``options``: :class:`~rankwise.conventions.EvaluationOptions`).

        Schemas are checked at once. With ``check_data`` (default) the inputs are also scanned
        once now for NULL/NaN values and duplicate documents; ``check_data=False`` skips that
        scan. Run queries without judgments are left out without the warning
        :func:`rankwise.evaluate` gives.
        """
        from dataclasses import replace

        from rankwise._polars.engine import evaluate_lazy
        from rankwise._polars.prepare import (
            checked_base_run,
            checked_features,
            checked_train,
            prepare,
        )
        from rankwise.evaluation.evaluate import basing, fairing, featuring, side_input, training
        from rankwise.inputs.columns import Reading
        from rankwise.inputs.read import to_lazyframe
        from rankwise.metrics.recipes import reading_subtopics
        from rankwise.names.presets import resolve

        check_options("IRLazyFrame.evaluate", options)
        parsed, options = cast("tuple[list[Metric], EvaluationOptions]", resolve(metrics, options))
        conv = Conventions.from_options(options)
        columns = Columns.from_options(options)
        reading = Reading(
            train=train, train_columns=train_columns, features=features, features_column=features_column,
            base_run=base_run, base_run_columns=base_run_columns,
            categories=categories, categories_columns=categories_columns,
            catalog=catalog, catalog_column=catalog_column,
            groups=groups, groups_columns=groups_columns, target=target, target_columns=target_columns,
        )  # the side inputs (conventions.SIDE_INPUTS), each read only when a metric reads it
        given = training(reading, parsed, conv, columns)
        prep = prepare(
            self._lf, to_lazyframe(qrels, "qrels", columns), columns, check_data=check_data,
            diversity=reading_subtopics(parsed, conv), input_order=conv.ties == "input", train=given,
            features=featuring(reading, parsed, conv, columns), base_run=basing(reading, parsed, conv, columns),
            categories=side_input("categories", reading, parsed, conv, columns),
            catalog=side_input("catalog", reading, parsed, conv, columns),
            fair=fairing(reading, parsed, conv, columns),
        )
        if check_data and prep.train is not None:
            prep = replace(prep, train=checked_train(prep.train, columns))
        if check_data:
            # the item features are checked as read; here, that the run's items have features
            prep = checked_base_run(checked_features(prep))
        return evaluate_lazy(prep, parsed, conv, columns)
