"""The ``.ir`` namespace on Polars DataFrames and LazyFrames (registered on ``import rankwise``).

>>> import polars as pl, rankwise
>>> run = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
>>> qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
>>> run.lazy().ir.evaluate(qrels, ["P@1", "AP"]).collect().row(0)
('q', 1.0, 1.0)
"""

from __future__ import annotations

from collections.abc import Iterable
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
        **options: Unpack[EvaluationOptions],
    ) -> pl.DataFrame:
        """Per-query values of this run against ``qrels``; see :func:`rankwise.evaluate` (the
        keyword ``options``: :class:`~rankwise.conventions.EvaluationOptions`)."""
        from rankwise.evaluation.evaluate import evaluate

        check_options("IRFrame.evaluate", options)
        return evaluate(qrels, self._df, metrics, engine="polars", **options)

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
        **options: Unpack[EvaluationOptions],
    ) -> pl.LazyFrame:
        """Per-query values as a LazyFrame; see :func:`rankwise.evaluate` (the keyword
        ``options``: :class:`~rankwise.conventions.EvaluationOptions`).

        Schemas are checked at once. With ``check_data`` (default) the inputs are also scanned
        once now for NULL/NaN values and duplicate documents; ``check_data=False`` skips that
        scan. Run queries without judgments are left out without the warning
        :func:`rankwise.evaluate` gives.
        """
        from rankwise._polars.engine import evaluate_lazy
        from rankwise._polars.prepare import prepare
        from rankwise.inputs.read import to_lazyframe
        from rankwise.metrics.recipes import reading_subtopics
        from rankwise.names.presets import resolve

        check_options("IRLazyFrame.evaluate", options)
        parsed, options = cast("tuple[list[Metric], EvaluationOptions]", resolve(metrics, options))
        conv = Conventions.from_options(options)
        columns = Columns.from_options(options)
        prep = prepare(
            self._lf, to_lazyframe(qrels, "qrels", columns), columns, check_data=check_data,
            diversity=reading_subtopics(parsed, conv), input_order=conv.ties == "input",
        )
        return evaluate_lazy(prep, parsed, conv, columns)
