"""rankwise: ranking-evaluation metrics native to Polars and DuckDB, exact to trec_eval.

>>> import rankwise as rw
>>> rw.parse_metric("ndcg_cut@10")
nDCG@10
"""

from __future__ import annotations

from rankwise import _start

_start.guard()  # first: Ctrl-C while the command is still importing ends it quietly (130)

import importlib  # noqa: E402
import sys  # noqa: E402
import types  # noqa: E402
from typing import TYPE_CHECKING, Any  # noqa: E402

from rankwise import namespace as _namespace  # noqa: E402  (registers the .ir namespaces)
from rankwise.conventions import Columns, Conventions  # noqa: E402
from rankwise.errors import (  # noqa: E402
    ArgumentTypeError,
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

if TYPE_CHECKING:
    from rankwise import plots, spark
    from rankwise._duckdb.macros import register
    from rankwise._polars.expr import (
        average_precision,
        cg,
        dcg,
        expr,
        exprs,
        idcg,
        ndcg,
        precision,
        r_precision,
        recall,
        reciprocal_rank,
        success,
    )
    from rankwise._polars.judged import judged_frame
    from rankwise._sql.expression import sql_expr, sql_select
    from rankwise.change import ranking_change
    from rankwise.comparison import anova, compare
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

# The rest of the API is imported when first used (PEP 562): ``import rankwise``, and the
# command line (which imports it first), import only what they use.
_LAZY: dict[str, str] = {
    **dict.fromkeys(("average_precision", "cg", "dcg", "idcg", "ndcg", "precision", "r_precision",
                     "recall", "reciprocal_rank", "success", "expr", "exprs"), "rankwise._polars.expr"),
    "judged_frame": "rankwise._polars.judged",
    "sql_expr": "rankwise._sql.expression",
    "sql_select": "rankwise._sql.expression",
    "register": "rankwise._duckdb.macros",
    "ranking_change": "rankwise.change",
    "anova": "rankwise.comparison",
    "compare": "rankwise.comparison",
    "evaluate": "rankwise.evaluate",
    "summarize": "rankwise.evaluate",
    "gains_from_events": "rankwise.events",
    "explain": "rankwise.explain",
    "evaluate_lists": "rankwise.lists",
    "lists_to_long": "rankwise.lists",
    "Metric": "rankwise.metric",
    "parse_metric": "rankwise.metric",
    "parse_metrics": "rankwise.names",
    "SPECS": "rankwise.registry",
    "all_names": "rankwise.registry",
    "get_spec": "rankwise.registry",
    "report": "rankwise.report",
    "to_latex": "rankwise.report",
    "to_markdown": "rankwise.report",
    "compare_sql": "rankwise.to_sql",
    "to_sql": "rankwise.to_sql",
    "to_trec": "rankwise.trec_writer",
}
"""Each lazily imported name of the API: the module that defines it. Submodules (``plots``,
``spark``, ``io``, ...) are imported when first used as attributes too."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value
    if not name.startswith("__"):
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _Package(types.ModuleType):
    """The package's module: when a submodule is imported, Python binds it as an attribute of
    the package; where a submodule has the name of a function of the API (``evaluate``,
    ``explain``, ``report``, ``to_sql``), the name stays the function's."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in _LAZY and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


__all__ = [
    "SPECS",
    "ArgumentTypeError",
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
    "expr",
    "exprs",
    "gains_from_events",
    "get_spec",
    "idcg",
    "judged_frame",
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
    "sql_expr",
    "sql_select",
    "success",
    "summarize",
    "to_latex",
    "to_markdown",
    "to_sql",
    "to_trec",
]
