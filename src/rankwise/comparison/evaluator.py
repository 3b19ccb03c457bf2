"""``rw.Evaluator``: the judgments and metrics prepared once
(:class:`~rankwise.evaluation.evaluator.BaseEvaluator`: ``ev(run)``, ``ev.explain(run, query)``),
and ``ev.compare(runs)``, :func:`rankwise.compare` of any runs against them (its runs evaluated
through the same prepared judgments)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from rankwise.comparison.paired import compare
from rankwise.evaluation.evaluator import BaseEvaluator


class Evaluator(BaseEvaluator):
    """Judgments and metrics prepared once, for any number of runs (the habit of pytrec_eval's
    ``RelevanceEvaluator(qrels, measures)`` and ir-measures' ``evaluator(measures, qrels)``).

    ``qrels`` is any input :func:`rankwise.evaluate` takes; ``metrics`` metric strings (any
    naming scheme) or :class:`~rankwise.metrics.metric.Metric` objects; ``engine`` and
    ``options`` (the conventions, column names and side inputs of :func:`rankwise.evaluate`) are
    fixed for every run. The judgments are read once, into memory; on the Polars engine their
    checks, per-query sums and ideal orders are computed once per set of metrics and conventions
    (:mod:`rankwise.evaluation.evaluator`); on DuckDB they are normalised and checked once, in a
    database of the evaluator's own. ``ev(run)`` is :func:`rankwise.evaluate`,
    ``ev.explain(run, query)`` :func:`rankwise.explain` and ``ev.compare(runs)``
    :func:`rankwise.compare`, each with the same numbers.

    >>> import polars as pl, rankwise as rw
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "c"], "relevance": [1, 2]})
    >>> ev = rw.Evaluator(qrels, ["nDCG@10", "RR"])
    >>> run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
    >>> ev(run)["RR"].to_list()
    [0.5, 1.0]
    >>> better = run.with_columns(score=pl.Series([1.0, 2.0, 1.0]))
    >>> ev.compare({"base": run, "better": better}).select("metric", pl.col("diff").round(4)).rows()
    [('nDCG@10', 0.1845), ('RR', 0.25)]
    """

    def compare(self, runs: Mapping[str, Any], **options: Any) -> pl.DataFrame:
        """:func:`rankwise.compare` of ``runs`` (name → run) on these judgments and metrics;
        ``options``: the comparison's own (``baseline``, ``tests``, ``by``, ...)."""
        with self.judgments_kept():
            return compare(self.qrels, runs, list(self.metrics), engine=self.engine, **{**self.options, **options})
