"""Every public function's every keyword given a value of the wrong type (a string for a number,
None for a list, a list for a string, ...) raises rankwise's own error naming the keyword, never
a raw TypeError from deep inside; an unknown keyword names the closest one ("did you mean").

The parameters and their types are read here from the functions' signatures (``**options``:
the keys of its TypedDict); which values are of a wrong kind for a type is decided here, by
the table of :func:`kinds`, not by rankwise's checker."""

from __future__ import annotations

import inspect
import subprocess
import sys
import types
import typing
import warnings
from collections import abc
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest

import rankwise as rw
from rankwise.comparison.paired import Comparison, comparison
from rankwise.errors import ArgumentTypeError, RankwiseError
from rankwise.evaluation import spark
from rankwise.metrics.metric import Metric
from rankwise.metrics.spec import MetricSpec
from rankwise.reporting import plots
from rankwise.reporting.report import write_report

RUN = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "a", "c"],
                    "score": [2.0, 1.0, 1.0, 0.5]})
RUN_B = RUN.with_columns(-pl.col("score"))
QRELS = pl.DataFrame({"query_id": ["q1", "q2", "q2"], "doc_id": ["b", "a", "c"], "relevance": [1, 2, 1]})
RUNS = {"a": RUN, "b": RUN_B}
LISTS = pl.DataFrame({"query_id": ["q1"], "predicted": [["a", "b"]], "relevant": [["a"]]})
CLICKS = RUN.select("query_id", "doc_id", rank=pl.int_range(1, pl.len() + 1).over("query_id"), click=pl.lit(1))
EVENTS = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "event": ["click"]})

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    PER_QUERY = rw.evaluate(QRELS, RUN, ["AP"])
    RESULT = comparison(QRELS, RUNS, ["AP"], resamples=10)

# each public function with arguments that make a valid call (the wrong value replaces one)
CALLS: dict[str, tuple[Any, dict[str, Any]]] = {
    "evaluate": (rw.evaluate, {"qrels": QRELS, "run": RUN, "metrics": ["AP"]}),
    "summarize": (rw.summarize, {"per_query": PER_QUERY}),
    "evaluate_lists": (rw.evaluate_lists, {"frame": LISTS, "metrics": ["P@1"]}),
    "lists_to_long": (rw.lists_to_long, {"frame": LISTS}),
    "compare": (rw.compare, {"qrels": QRELS, "runs": RUNS, "metrics": ["AP"], "resamples": 10}),
    "comparison": (comparison, {"qrels": QRELS, "runs": RUNS, "metrics": ["AP"], "resamples": 10}),
    "anova": (rw.anova, {"qrels": QRELS, "runs": RUNS, "metrics": ["AP"]}),
    "ranking_change": (rw.ranking_change, {"run_a": RUN, "run_b": RUN_B}),
    "click_estimate": (rw.click_estimate, {"log": CLICKS, "run": RUN, "metrics": ["DCG@2"]}),
    "slate_estimate": (rw.slate_estimate, {"log": CLICKS.with_columns(pscore_item_position=pl.lit(0.5)), "run": RUN}),
    "click_judgments": (rw.click_judgments, {"log": CLICKS}),
    "click_propensities": (rw.click_propensities, {"log": CLICKS}),
    "ppi": (rw.ppi, {"human_qrels": QRELS, "model_qrels": pl.concat([QRELS, pl.DataFrame({"query_id": ["q3"], "doc_id": ["a"], "relevance": [1]})]),
                     "run": pl.concat([RUN, pl.DataFrame({"query_id": ["q3"], "doc_id": ["a"], "score": [1.0]})]), "metrics": ["AP"]}),
    "interleave": (rw.interleave, {"runs": RUNS}),
    "interleaving_credit": (rw.interleaving_credit, {"log": rw.interleave(RUNS, k=2).with_columns(click=pl.lit(1))}),
    "explain": (rw.explain, {"qrels": QRELS, "run": RUN, "metric": "AP", "query": "q1"}),
    "report": (rw.report, {"qrels": QRELS, "runs": RUNS, "metrics": ["AP"], "path": "/nonexistent/r.html"}),
    "write_report": (write_report, {"result": RESULT, "path": "/nonexistent/r.html", "figures": []}),
    "to_latex": (rw.to_latex, {"table": PER_QUERY}),
    "to_markdown": (rw.to_markdown, {"table": PER_QUERY}),
    "to_sql": (rw.to_sql, {"metrics": ["AP"]}),
    "compare_sql": (rw.compare_sql, {"metrics": ["AP"], "runs": {"a": "run_a", "b": "run_b"}}),
    "spark.evaluate": (spark.evaluate, {"qrels": None, "run": None, "metrics": ["AP"]}),
    "expr": (rw.expr, {"metric": "AP"}),
    "exprs": (rw.exprs, {"metrics": ["AP"]}),
    "sql_expr": (rw.sql_expr, {"metric": "AP"}),
    "sql_select": (rw.sql_select, {"metrics": ["AP"], "relation": "judged"}),
    "judged_frame": (rw.judged_frame, {"qrels": QRELS, "run": RUN}),
    "register": (rw.register, {"con": None}),
    "gains_from_events": (rw.gains_from_events, {"events": EVENTS, "mapping": {"click": 1.0}}),
    "to_trec": (rw.to_trec, {"per_query": PER_QUERY}),
    "parse_metric": (rw.parse_metric, {"text": "AP"}),
    "parse_metrics": (rw.parse_metrics, {"metrics": ["AP"]}),
    "get_spec": (rw.get_spec, {"name": "AP"}),
    "dcg": (rw.dcg, {"relevance": "relevance", "by": "score"}),
    "idcg": (rw.idcg, {"relevance": "relevance"}),
    "ndcg": (rw.ndcg, {"relevance": "relevance", "by": "score"}),
    "cg": (rw.cg, {"relevance": "relevance", "by": "score"}),
    "precision": (rw.precision, {"relevance": "relevance", "by": "score", "k": 5}),
    "recall": (rw.recall, {"relevance": "relevance", "by": "score"}),
    "success": (rw.success, {"relevance": "relevance", "by": "score", "k": 5}),
    "average_precision": (rw.average_precision, {"relevance": "relevance", "by": "score"}),
    "reciprocal_rank": (rw.reciprocal_rank, {"relevance": "relevance", "by": "score"}),
    "r_precision": (rw.r_precision, {"relevance": "relevance", "by": "score"}),
    "plots.difference_plot": (plots.difference_plot, {"qrels": QRELS, "baseline": RUN, "candidate": RUN_B, "metric": "AP"}),
    "plots.cutoff_curves": (plots.cutoff_curves, {"qrels": QRELS, "runs": RUNS}),
    "plots.precision_recall": (plots.precision_recall, {"qrels": QRELS, "runs": RUNS}),
    "plots.score_distribution": (plots.score_distribution, {"qrels": QRELS, "runs": RUNS, "metric": "AP"}),
    "plots.figures": (plots.figures, {"result": RESULT}),
    "like": (rw.like, {"library": "lightgbm", "metric": "nDCG@10"}),
    "why": (rw.why, {"qrels": QRELS, "run": RUN, "metric": "AP", "libraries": ["ranx"]}),
    "DataFrame.ir.evaluate": (RUN.ir.evaluate, {"qrels": QRELS, "metrics": ["AP"]}),
    "LazyFrame.ir.evaluate": (RUN.lazy().ir.evaluate, {"qrels": QRELS, "metrics": ["AP"]}),
}


def test_every_exported_function_is_walked() -> None:
    """A function exported by ``rankwise`` that takes arguments is in :data:`CALLS`."""
    exported = {
        name for name in rw.__all__
        if inspect.isfunction(getattr(rw, name)) and inspect.signature(getattr(rw, name)).parameters
    }
    assert exported - set(CALLS) == set()


NAMES = {"pl": pl, "Metric": Metric, "Comparison": Comparison, "Path": Path, "MetricSpec": MetricSpec}
"""What the modules import for type checking only, for reading their annotations here."""

WRONG: dict[str, object] = {
    "string": "0.05", "int": 7, "float": 1.5, "bool": True, "none": None, "list": ["x"],
    "dict": {"a": 1}, "other": object(),
}
"""A value of each kind."""


def kinds(hint: Any) -> set[str] | None:
    """The kinds of :data:`WRONG` a type accepts (None: any value, nothing to test)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any or hint is object:
        return None
    if hint is None or hint is type(None):
        return {"none"}
    if origin in (typing.Union, types.UnionType):
        parts = [kinds(a) for a in args]
        if any(p is None for p in parts):
            return None
        return set().union(*[p for p in parts if p is not None])
    if origin is typing.Annotated:
        return kinds(args[0])
    if origin is typing.Literal:
        return {"string"} if all(isinstance(a, str) for a in args) else None
    if hint is bool:
        return {"bool"}
    if hint is int:
        return {"int"}
    if hint is float:
        return {"int", "float"}
    if hint is str:
        return {"string"}
    if isinstance(origin, type) and issubclass(origin, abc.Mapping):
        return {"dict"}
    if isinstance(origin, type) and issubclass(origin, abc.Iterable):
        # a string is an iterable of strings (a list of strings is a list of anything); a dict
        # (its keys) is an iterable, not a sequence
        item = kinds(args[0]) if args else None
        return {"list"} | ({"string"} if item is None or "string" in item else set()) | (
            {"dict"} if not issubclass(origin, abc.Sequence) and (item is None or "string" in item) else set()
        )
    if isinstance(hint, type) and hint in (pl.DataFrame, pl.Expr, Metric, Comparison, Path):
        return {"other"} | ({"string"} if hint is Path else set())
    return None


def parameters(function: Any) -> dict[str, Any]:
    """Each keyword of ``function`` (its ``**options``' TypedDict keys too) and its type."""
    hints = typing.get_type_hints(function, localns=NAMES, include_extras=True)
    out: dict[str, Any] = {}
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.kind is parameter.VAR_KEYWORD:
            typed = typing.get_args(hints[name])[0]
            out.update(typing.get_type_hints(typed, localns=NAMES, include_extras=True))
        elif parameter.kind is not parameter.VAR_POSITIONAL:
            out[name] = hints.get(name, Any)
    return out


CASES = [
    pytest.param(label, name, id=f"{label}.{name}")
    for label, (function, _) in CALLS.items()
    for name, hint in parameters(function).items()
    if kinds(hint) is not None
]


@pytest.mark.parametrize(("label", "name"), CASES)
def test_a_wrong_type_is_a_rankwise_error_naming_the_keyword(label: str, name: str) -> None:
    function, valid = CALLS[label]
    accepted = kinds(parameters(function)[name])
    assert accepted is not None
    wrong = [kind for kind in WRONG if kind not in accepted and not (kind == "int" and "float" in accepted)]
    assert wrong, (label, name, accepted)
    for kind in wrong:
        with pytest.raises(RankwiseError) as caught:
            function(**{**valid, name: WRONG[kind]})
        assert not isinstance(caught.value, ArgumentTypeError) or isinstance(caught.value, TypeError)
        assert name in str(caught.value).replace("each metric", "metric"), (kind, str(caught.value))


@pytest.mark.parametrize("label", list(CALLS))
def test_an_unknown_keyword_gets_did_you_mean(label: str) -> None:
    function, valid = CALLS[label]
    for name in parameters(function):
        if len(name) < 4:
            continue
        typo = name[:-1] + name[-1] * 2  # 'alpha' -> 'alphaa'
        with pytest.raises(ArgumentTypeError, match=rf"unexpected keyword argument '{typo}'\. Did you mean '{name}'\?"):
            function(**{**valid, typo: 1})


def test_the_issue_s_examples() -> None:
    with pytest.raises(ArgumentTypeError, match=r"^alpha must be a number, got str '0.05' \(compare\(\.\.\., alpha=\.\.\.\)\)$"):
        rw.compare(QRELS, RUNS, ["AP"], alpha="0.05")  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match=r"^tests must be a list of .*, got NoneType None"):
        rw.compare(QRELS, RUNS, ["AP"], tests=None)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match=r"^tests\[1\] must be one of 't', 'wilcoxon'.*got int 2"):
        rw.compare(QRELS, RUNS, ["AP"], tests=["t", 2])  # type: ignore[list-item]
    with pytest.raises(ArgumentTypeError, match=r"^run_columns\['query_id'\] must be a column name, got int 3"):
        rw.evaluate(QRELS, RUN, ["AP"], run_columns={"query_id": 3})  # type: ignore[dict-item]
    with pytest.raises(ArgumentTypeError, match=r"did you mean|Did you mean 'alpha'\?"):
        rw.compare(QRELS, RUNS, ["AP"], alhpa=0.1)  # type: ignore[call-arg]
    with pytest.raises(ArgumentTypeError, match=r"evaluate\(\): missing a required argument: 'metrics'"):
        rw.evaluate(QRELS, RUN)  # type: ignore[call-arg]
    # still a TypeError and an InvalidParameterError for the handlers written for those
    with pytest.raises(TypeError):
        rw.evaluate(QRELS, RUN, ["AP"], tie="doc_asc")  # type: ignore[call-arg]
    with pytest.raises(rw.InvalidParameterError):
        rw.evaluate(QRELS, RUN, ["AP"], max_rank="10")  # type: ignore[arg-type]


def test_wrong_types_on_both_engines_and_the_command_line(tmp_path: Path) -> None:
    """The checks come before the engine: the same error on each; the command line's own
    arguments are typed by argparse (exit 2, one line)."""
    for engine in ("polars", "duckdb"):
        with pytest.raises(ArgumentTypeError, match=r"^query_id must be a string, got int 1"):
            rw.evaluate(QRELS, RUN, ["AP"], engine=engine, query_id=1)  # type: ignore[arg-type]
        with pytest.raises(ArgumentTypeError, match=r"^by must be a string, a list of strings or None, got float 1.5"):
            rw.evaluate(QRELS, RUN, ["AP"], engine=engine, by=1.5)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match=r"^check must be True or False, got str 'no'"):
        rw.to_sql(["AP"], check="no")  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match=r"^temporary must be True or False, got str 'yes'"):
        rw.register(duckdb.connect(), temporary="yes")  # type: ignore[arg-type]
    qrels, run = tmp_path / "qrels.parquet", tmp_path / "run.parquet"
    QRELS.write_parquet(qrels)
    RUN.write_parquet(run)
    for argv, line in (
        (["compare", qrels, run, run, "--alpha", "0.05x"], "rankwise: error: argument --alpha: invalid float value: '0.05x'"),
        (["eval", qrels, run, "-m", "AP", "--max-rank", "ten"], "rankwise: error: argument -M/--max-rank: invalid int value: 'ten'"),
    ):
        out = subprocess.run([sys.executable, "-m", "rankwise.cli", *map(str, argv)], capture_output=True, text=True, timeout=300)
        assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
        assert out.stderr.strip().splitlines() == [f"{line} (see rankwise {argv[0]} --help)"]


def test_warnings_point_at_the_caller_through_the_checks() -> None:
    """The argument checks' wrapper adds a frame: rankwise's warnings still name the line of
    the program that called rankwise, directly and through compare."""
    run = RUN.vstack(pl.DataFrame({"query_id": ["q9"], "doc_id": ["z"], "score": [1.0]}))
    with pytest.warns(rw.RankwiseWarning, match="no judgments") as record:
        rw.evaluate(QRELS, run, ["AP"])
    assert {Path(w.filename).name for w in record} == {"test_arguments.py"}
    with pytest.warns(rw.RankwiseWarning, match="run 'a'") as record:
        rw.compare(QRELS, {"a": run, "b": RUN_B}, ["AP"], resamples=10)
    assert {Path(w.filename).name for w in record} == {"test_arguments.py"}
