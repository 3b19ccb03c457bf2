"""The ``.ir`` namespace on Polars DataFrames and LazyFrames (registered on ``import rankwise``).

>>> import polars as pl, rankwise
>>> run = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
>>> qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
>>> run.lazy().ir.evaluate(qrels, ["P@1", "AP"]).collect().row(0)
('q', 1.0, 1.0)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import polars as pl

from rankwise._polars.engine import evaluate_lazy, prepare
from rankwise.conventions import Columns, Conventions, MissingPolicy, TiePolicy
from rankwise.evaluate import evaluate, summarize
from rankwise.io import to_lazyframe
from rankwise.metric import Metric, parse_metrics


@pl.api.register_dataframe_namespace("ir")
class IRFrame:
    """``df.ir``: evaluate a run held in a DataFrame."""

    def __init__(self, df: pl.DataFrame) -> None:
        self._df = df

    def evaluate(
        self,
        qrels: Any,
        metrics: str | Metric | Iterable[str | Metric],
        *,
        ties: TiePolicy = "trec_eval",
        missing: MissingPolicy = "ignore",
        max_rank: int | None = None,
        rel: float = 1,
        judged_only: bool = False,
        query_id: str = "query_id",
        doc_id: str = "doc_id",
        score: str = "score",
        relevance: str = "relevance",
    ) -> pl.DataFrame:
        """Per-query values of this run against ``qrels``; see :func:`rankwise.evaluate`."""
        return evaluate(
            self._df, qrels, metrics, engine="polars", ties=ties, missing=missing,
            max_rank=max_rank, rel=rel, judged_only=judged_only, query_id=query_id,
            doc_id=doc_id, score=score, relevance=relevance,
        )

    def summarize(self, by: str | Iterable[str] | None = None) -> pl.DataFrame:
        """Aggregate a per-query result frame; see :func:`rankwise.summarize`."""
        return summarize(self._df, by=by)


@pl.api.register_lazyframe_namespace("ir")
class IRLazyFrame:
    """``lf.ir``: evaluate a run held in a LazyFrame; the result stays lazy."""

    def __init__(self, lf: pl.LazyFrame) -> None:
        self._lf = lf

    def evaluate(
        self,
        qrels: Any,
        metrics: str | Metric | Iterable[str | Metric],
        *,
        ties: TiePolicy = "trec_eval",
        missing: MissingPolicy = "ignore",
        max_rank: int | None = None,
        rel: float = 1,
        judged_only: bool = False,
        query_id: str = "query_id",
        doc_id: str = "doc_id",
        score: str = "score",
        relevance: str = "relevance",
        check_data: bool = True,
    ) -> pl.LazyFrame:
        """Per-query values as a LazyFrame; see :func:`rankwise.evaluate`.

        Schemas are checked at once. With ``check_data`` (default) the inputs are also scanned
        once now for NULL/NaN values and duplicate documents; ``check_data=False`` skips that
        scan. Run queries without judgments are left out without the warning
        :func:`rankwise.evaluate` gives.
        """
        parsed = parse_metrics(metrics)
        conv = Conventions(ties=ties, missing=missing, max_rank=max_rank, rel=rel, judged_only=judged_only)
        columns = Columns(query_id=query_id, doc_id=doc_id, score=score, relevance=relevance)
        prep = prepare(self._lf, to_lazyframe(qrels, "qrels", columns), columns, check_data=check_data)
        return evaluate_lazy(prep, parsed, conv, columns)
