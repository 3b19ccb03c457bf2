"""rankwise: ranking-evaluation metrics native to Polars and DuckDB, exact to trec_eval.

>>> import rankwise as rw
>>> rw.parse_metric("ndcg_cut@10")
nDCG@10
"""

from __future__ import annotations

from rankwise import _start

_start.guard()  # first: Ctrl-C while the command is still importing ends it quietly (130)

import importlib  # noqa: E402
import importlib.abc  # noqa: E402
import importlib.util  # noqa: E402
import sys  # noqa: E402
import types  # noqa: E402
from importlib.machinery import ModuleSpec  # noqa: E402
from typing import TYPE_CHECKING, Any  # noqa: E402

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
    TieWarning,
    UnknownMetricError,
    UnsafeIdentifierError,
    UnsupportedInputError,
)
from rankwise.evaluation import namespace as _namespace  # noqa: E402  (registers the .ir namespaces)

if TYPE_CHECKING:
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
    from rankwise.cli.trec_writer import to_trec
    from rankwise.clicks.counterfactual import ClickEstimate, click_estimate, click_judgments
    from rankwise.clicks.credit import InterleavingResult, interleaving_credit
    from rankwise.clicks.interleaving import interleave
    from rankwise.clicks.propensities import click_propensities
    from rankwise.clicks.slate import SlateEstimate, slate_estimate
    from rankwise.comparison.change import ranking_change
    from rankwise.comparison.evaluator import Evaluator
    from rankwise.comparison.paired import anova, compare
    from rankwise.comparison.sql import compare_sql
    from rankwise.evaluation import spark
    from rankwise.evaluation.evaluate import evaluate, summarize
    from rankwise.evaluation.explain import explain
    from rankwise.evaluation.lists import evaluate_lists, lists_to_long
    from rankwise.evaluation.to_sql import to_sql
    from rankwise.evaluation.why import why
    from rankwise.inference.ppi import ppi
    from rankwise.inputs.events import gains_from_events
    from rankwise.metrics.metric import Metric, parse_metric
    from rankwise.metrics.registry import SPECS, all_names, get_spec
    from rankwise.names.parse import parse_metrics
    from rankwise.names.presets import like
    from rankwise.reporting import plots
    from rankwise.reporting.report import report, to_latex, to_markdown

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
    "ranking_change": "rankwise.comparison.change",
    "ppi": "rankwise.inference.ppi",
    **dict.fromkeys(("click_estimate", "click_judgments", "ClickEstimate"), "rankwise.clicks.counterfactual"),
    "click_propensities": "rankwise.clicks.propensities",
    "anova": "rankwise.comparison.paired",
    "compare": "rankwise.comparison.paired",
    "evaluate": "rankwise.evaluation.evaluate",
    "Evaluator": "rankwise.comparison.evaluator",
    "summarize": "rankwise.evaluation.evaluate",
    "gains_from_events": "rankwise.inputs.events",
    "explain": "rankwise.evaluation.explain",
    "evaluate_lists": "rankwise.evaluation.lists",
    "lists_to_long": "rankwise.evaluation.lists",
    "Metric": "rankwise.metrics.metric",
    "parse_metric": "rankwise.metrics.metric",
    "parse_metrics": "rankwise.names.parse",
    "like": "rankwise.names.presets",
    "SPECS": "rankwise.metrics.registry",
    "all_names": "rankwise.metrics.registry",
    "get_spec": "rankwise.metrics.registry",
    "report": "rankwise.reporting.report",
    "to_latex": "rankwise.reporting.report",
    "to_markdown": "rankwise.reporting.report",
    "compare_sql": "rankwise.comparison.sql",
    "to_sql": "rankwise.evaluation.to_sql",
    "why": "rankwise.evaluation.why",
    "to_trec": "rankwise.cli.trec_writer",
    "interleave": "rankwise.clicks.interleaving",
    "interleaving_credit": "rankwise.clicks.credit",
    "InterleavingResult": "rankwise.clicks.credit",
    **dict.fromkeys(("slate_estimate", "SlateEstimate"), "rankwise.clicks.slate"),
}
"""Each lazily imported name of the API: the module that defines it."""

_MOVED: dict[str, str] = {
    "plots": "rankwise.reporting.plots", "spark": "rankwise.evaluation.spark",
    "spec": "rankwise.metrics.spec", "registry": "rankwise.metrics.registry",
    "metric": "rankwise.metrics.metric", "recipes": "rankwise.metrics.recipes", "docs": "rankwise.metrics.docs",
    "trec_names": "rankwise.names.trec_eval", "ranx_names": "rankwise.names.ranx",
    "io": "rankwise.inputs.read", "forms": "rankwise.inputs.forms", "reading": "rankwise.inputs.columns",
    "trec_reader": "rankwise.inputs.trec", "validate": "rankwise.inputs.checks", "faults": "rankwise.inputs.faults",
    "events": "rankwise.inputs.events", "output": "rankwise.outputs.files", "progress": "rankwise.outputs.progress",
    "lists": "rankwise.evaluation.lists", "namespace": "rankwise.evaluation.namespace",
    "statistics": "rankwise.comparison.statistics", "change": "rankwise.comparison.change",
    "summary": "rankwise.comparison.summary", "report_page": "rankwise.reporting.page",
    "report_details": "rankwise.reporting.details", "report_assets": "rankwise.reporting.assets",
    "provenance": "rankwise.reporting.provenance", "tables": "rankwise.reporting.tables",
    "naming": "rankwise.inputs.run_names", "trec_writer": "rankwise.cli.trec_writer",
}
"""Module paths of the API (``rw.plots``, ``rw.spark``) and of earlier versions, each the module
it is now (``import rankwise.summary``, ``python -m rankwise.docs``): attributes of the package
and importable, imported when first used. The modules that shared a name with a function of the API
(``evaluate``, ``explain``, ``report``, ``to_sql``) are left out: ``rankwise.evaluate`` is the function."""


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an earlier module path (:data:`_MOVED`) as the module it became: the same module
    object, so its classes and state are shared; ``python -m`` runs the module's code."""

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> ModuleSpec | None:
        parent, _, name = fullname.partition(".")
        if parent != __name__ or name not in _MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: ModuleSpec) -> types.ModuleType:
        return importlib.import_module(_MOVED[spec.name.partition(".")[2]])

    def exec_module(self, module: types.ModuleType) -> None:
        return None

    def get_code(self, fullname: str) -> types.CodeType | None:
        spec = importlib.util.find_spec(_MOVED[fullname.partition(".")[2]])
        loader = spec.loader if spec is not None else None
        return loader.get_code(spec.name) if isinstance(loader, importlib.abc.InspectLoader) and spec else None


if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.append(_MovedModules())


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value
    if name in _MOVED:
        return importlib.import_module(_MOVED[name])
    if not name.startswith("__"):  # a folder or module of the package: rw.metrics, rw.errors
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "SPECS",
    "ArgumentTypeError",
    "ClickEstimate",
    "ColumnTypeError",
    "Columns",
    "Conventions",
    "DuplicateDocumentError",
    "EmptyInputError",
    "EngineError",
    "EngineResourceError",
    "Evaluator",
    "InputReadError",
    "InterleavingResult",
    "InvalidParameterError",
    "InvalidValueError",
    "Metric",
    "MetricSyntaxError",
    "MissingColumnError",
    "MissingExtraError",
    "OutputError",
    "RankwiseError",
    "RankwiseWarning",
    "SlateEstimate",
    "TieWarning",
    "UnknownMetricError",
    "UnsafeIdentifierError",
    "UnsupportedInputError",
    "__version__",
    "all_names",
    "anova",
    "average_precision",
    "cg",
    "click_estimate",
    "click_judgments",
    "click_propensities",
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
    "interleave",
    "interleaving_credit",
    "judged_frame",
    "like",
    "lists_to_long",
    "ndcg",
    "parse_metric",
    "parse_metrics",
    "plots",
    "ppi",
    "precision",
    "r_precision",
    "ranking_change",
    "recall",
    "reciprocal_rank",
    "register",
    "report",
    "slate_estimate",
    "spark",
    "sql_expr",
    "sql_select",
    "success",
    "summarize",
    "to_latex",
    "to_markdown",
    "to_sql",
    "to_trec",
    "why",
]
