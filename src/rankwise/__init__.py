"""rankwise: ranking-evaluation metrics native to Polars and DuckDB, exact to trec_eval.

>>> import rankwise as rw
>>> rw.parse_metric("ndcg_cut@10")
nDCG@10
"""

from __future__ import annotations

from rankwise._duckdb.macros import register
from rankwise.conventions import Columns, Conventions
from rankwise.errors import (
    ColumnTypeError,
    DuplicateDocumentError,
    EmptyInputError,
    InvalidParameterError,
    InvalidValueError,
    MetricSyntaxError,
    MissingColumnError,
    RankwiseError,
    RankwiseWarning,
    UnknownMetricError,
    UnsafeIdentifierError,
    UnsupportedInputError,
)
from rankwise.evaluate import evaluate, summarize
from rankwise.metric import Metric, parse_metric, parse_metrics
from rankwise.registry import SPECS, all_names, get_spec

__version__ = "0.1.0"

__all__ = [
    "SPECS",
    "ColumnTypeError",
    "Columns",
    "Conventions",
    "DuplicateDocumentError",
    "EmptyInputError",
    "InvalidParameterError",
    "InvalidValueError",
    "Metric",
    "MetricSyntaxError",
    "MissingColumnError",
    "RankwiseError",
    "RankwiseWarning",
    "UnknownMetricError",
    "UnsafeIdentifierError",
    "UnsupportedInputError",
    "__version__",
    "all_names",
    "evaluate",
    "get_spec",
    "parse_metric",
    "parse_metrics",
    "register",
    "summarize",
]
