"""An evaluator to keep: the judgments and the metrics prepared once, any number of runs
evaluated against them (the habit of pytrec_eval's ``RelevanceEvaluator(qrels, measures)`` and
ir-measures' ``evaluator(measures, qrels)``).

:class:`Evaluator` reads the judgments once, into memory, with their own column names
(``qrels_columns``, ``qrels_names``, ``qrels_format``), and parses the metrics once (a preset,
``like=``, made explicit). On the Polars engine it also keeps, per set of metrics and
conventions, what every run's evaluation reads of the judgments alone: their data checks, run
once, and the per-query aggregates and ideal orders and prefixes of the metrics
(:class:`~rankwise._polars.engine.JudgmentCache`), computed once over every judgment and cut to
each query group of each run. On DuckDB it keeps a database of its own
(:class:`~rankwise._duckdb.engine.KeptJudgments`), in which the judgments are normalised into a
table and checked once per id typing; each statement still orders them ideally itself.

Every call gives what the function of its name gives with the same arguments:
``ev(run)`` is :func:`rankwise.evaluate`, ``ev.explain(run, query)`` :func:`rankwise.explain`;
:class:`rankwise.Evaluator` (:mod:`rankwise.comparison.evaluator`) adds ``ev.compare(runs)``,
:func:`rankwise.compare`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, cast

import polars as pl

from rankwise.conventions import READ_KEYWORDS, Columns, ReadOptions, check_options
from rankwise.errors import InvalidParameterError
from rankwise.evaluation.evaluate import ENGINES, Engine, evaluate
from rankwise.inputs.columns import Reading
from rankwise.inputs.read import FileFormat
from rankwise.metrics.metric import Metric
from rankwise.names.presets import resolve

if TYPE_CHECKING:
    from rankwise._duckdb.engine import KeptJudgments
    from rankwise._polars.engine import JudgmentCache

_QRELS_OPTIONS = ("qrels_columns", "qrels_names")


class BaseEvaluator:
    """Judgments and metrics prepared once, for any number of runs: :class:`rankwise.Evaluator`
    without its comparison (:class:`rankwise.comparison.evaluator.Evaluator`; a comparison
    evaluates its runs through this one).

    ``qrels`` is any input :func:`rankwise.evaluate` takes; ``metrics`` metric strings (any
    naming scheme) or :class:`~rankwise.metrics.metric.Metric` objects; ``options`` the
    conventions, column names and side inputs of :func:`rankwise.evaluate`, fixed for every run.

    >>> import polars as pl, rankwise as rw
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "c"], "relevance": [1, 2]})
    >>> from rankwise.evaluation.evaluator import BaseEvaluator
    >>> ev = BaseEvaluator(qrels, ["nDCG@10", "RR"])
    >>> run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
    >>> ev(run)["RR"].to_list()
    [0.5, 1.0]
    """

    def __init__(
        self,
        qrels: Any,
        metrics: str | Metric | Iterable[str | Metric],
        *,
        engine: Engine = "polars",
        qrels_format: FileFormat | None = None,
        **options: Any,
    ) -> None:
        check_options("Evaluator", options, READ_KEYWORDS)
        if engine not in ENGINES:
            raise InvalidParameterError(f"engine must be one of {list(ENGINES)}, got {engine!r}")
        parsed, resolved = cast(tuple[list[Metric], ReadOptions], resolve(metrics, cast(ReadOptions, options)))
        columns = Columns.from_options(resolved)
        frame = Reading.from_options(resolved).source(qrels, "qrels", columns, qrels_format)
        # read once, into memory: every run reads these
        self.qrels: pl.DataFrame = frame.collect() if isinstance(frame, pl.LazyFrame) else cast(pl.DataFrame, frame)
        """The judgments as read, with the configured column names."""
        self.metrics: tuple[Metric, ...] = tuple(parsed)
        """The metrics, parsed (a preset's made explicit)."""
        self.engine: Engine = engine
        self.options: dict[str, Any] = {k: v for k, v in resolved.items() if k not in _QRELS_OPTIONS}
        """The options every call passes on (the conventions, column names, side inputs)."""
        # each engine's keeping, for this evaluator's engine only (the other engine's modules are
        # not imported: DuckDB's engine and SQL compiler cost about 20 ms of a process's start);
        # inside another evaluator's call on the same judgments (its compare): its keeping
        self._cache: JudgmentCache | None = None
        self._kept: KeptJudgments | None = None
        if engine == "polars":
            from rankwise._polars.engine import JudgmentCache, kept_for

            self._cache = kept_for(self.qrels) or JudgmentCache(self.qrels)
        else:
            from rankwise._duckdb import engine as duck

            self._kept = duck.kept_for(self.qrels) or duck.KeptJudgments(self.qrels)

    def __repr__(self) -> str:
        names = ", ".join(m.label for m in self.metrics)
        return f"{type(self).__name__}({self.qrels.height} judgments, [{names}], engine={self.engine!r})"

    def __call__(self, run: Any, **options: Any) -> pl.DataFrame:
        """:func:`rankwise.evaluate` of ``run`` (``options``: that function's per-call keywords,
        ``by``, ``per_query``, ``run_format``, ``run_columns``, ``query_chunks``, ``duckdb_config``)."""
        with self.judgments_kept():
            return evaluate(self.qrels, run, list(self.metrics), engine=self.engine, **{**self.options, **options})

    @contextlib.contextmanager
    def judgments_kept(self) -> Iterator[None]:
        """Within the block, evaluations of :attr:`qrels` reuse what this evaluator keeps: on
        Polars the judgments' checks and side of the plans
        (:class:`~rankwise._polars.engine.JudgmentCache`), on DuckDB the judgments normalised
        and checked once in a database of its own
        (:class:`~rankwise._duckdb.engine.KeptJudgments`)."""
        if self._kept is None:
            from rankwise._polars.engine import judgments_kept

            with judgments_kept(self._cache):
                yield
        else:
            from rankwise._duckdb import engine as duck

            with duck.judgments_kept(self._kept):
                yield

    def evaluate(self, run: Any, **options: Any) -> pl.DataFrame:
        """The same as calling the evaluator: ``ev.evaluate(run)`` is ``ev(run)``."""
        return self(run, **options)

    def explain(self, run: Any, query: Any, metric: str | Metric | None = None) -> pl.DataFrame:
        """:func:`rankwise.explain`: the rank-by-rank table of ``metric`` (default: the
        evaluator's only metric) for ``query``."""
        from rankwise.evaluation.explain import explain

        if metric is None:
            if len(self.metrics) != 1:
                raise InvalidParameterError(
                    f"explain() shows one metric: name one of {[m.label for m in self.metrics]} (metric=...)"
                )
            metric = self.metrics[0]
        return explain(self.qrels, run, metric, query, **self.options)
