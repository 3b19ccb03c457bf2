"""rankwise: ranking-evaluation metrics native to Polars and DuckDB, exact to trec_eval.

>>> import rankwise as rw
>>> rw.parse_metric("ndcg_cut@10")
nDCG@10
"""

from __future__ import annotations

from rankwise import namespace as _namespace  # registers the .ir namespaces
from rankwise import plots, spark
from rankwise._duckdb.macros import register
from rankwise._polars.expr import (
    average_precision,
    cg,
    dcg,
    idcg,
    ndcg,
    precision,
    r_precision,
    recall,
    reciprocal_rank,
    success,
)
from rankwise.change import ranking_change
from rankwise.comparison import anova, compare
from rankwise.conventions import Columns, Conventions
from rankwise.errors import (
    ColumnTypeError,
    DuplicateDocumentError,
    EmptyInputError,
    EngineError,
    EngineResourceError,
    InputReadError,
    InvalidParameterError,
    InvalidValueError,
    MetricSyntaxError,
    MissingColumnError,
    MissingExtraError,
    OutputError,
    RankwiseError,
    RankwiseWarning,
    UnknownMetricError,
    UnsafeIdentifierError,
    UnsupportedInputError,
)
from rankwise.evaluate import evaluate, summarize
from rankwise.events import gains_from_events
from rankwise.explain import explain
from rankwise.lists import evaluate_lists, lists_to_long
from rankwise.metric import Metric, parse_metric
from rankwise.names import parse_metrics
from rankwise.registry import SPECS, all_names, get_spec
from rankwise.report import report, to_latex, to_markdown
from rankwise.to_sql import compare_sql, to_sql
from rankwise.trec_writer import to_trec

__version__ = "0.1.0"

del _namespace

__all__ = [
    "SPECS",
    "ColumnTypeError",
    "Columns",
    "Conventions",
    "DuplicateDocumentError",
    "EmptyInputError",
    "EngineError",
    "EngineResourceError",
    "InputReadError",
    "InvalidParameterError",
    "InvalidValueError",
    "Metric",
    "MetricSyntaxError",
    "MissingColumnError",
    "MissingExtraError",
    "OutputError",
    "RankwiseError",
    "RankwiseWarning",
    "UnknownMetricError",
    "UnsafeIdentifierError",
    "UnsupportedInputError",
    "__version__",
    "all_names",
    "anova",
    "average_precision",
    "cg",
    "compare",
    "compare_sql",
    "dcg",
    "evaluate",
    "evaluate_lists",
    "explain",
    "gains_from_events",
    "get_spec",
    "idcg",
    "lists_to_long",
    "ndcg",
    "parse_metric",
    "parse_metrics",
    "plots",
    "precision",
    "r_precision",
    "ranking_change",
    "recall",
    "reciprocal_rank",
    "register",
    "report",
    "spark",
    "success",
    "summarize",
    "to_latex",
    "to_markdown",
    "to_sql",
    "to_trec",
]
