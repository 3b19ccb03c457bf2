"""Bad input raises a specific rankwise exception naming the problem and the value, on every
engine; never a raw engine traceback."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import rankwise as rw
from tests.conftest import Evaluate

RUN = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
QRELS = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})


def test_missing_column_lists_the_columns_found(evaluate: Evaluate) -> None:
    with pytest.raises(rw.MissingColumnError, match=r"no column 'score'.*Columns found: \['query_id', 'doc_id', 'sc'\]"):
        evaluate(QRELS, RUN.rename({"score": "sc"}), ["P@1"])
    with pytest.raises(rw.MissingColumnError, match=r"qrels has no column 'relevance'.*Did you mean 'rel'"):
        evaluate(QRELS.rename({"relevance": "rel"}), RUN, ["P@1"])


def test_column_names_can_be_overridden(evaluate: Evaluate) -> None:
    run = RUN.rename({"query_id": "qid", "doc_id": "docno", "score": "sim"})
    qrels = QRELS.rename({"query_id": "qid", "doc_id": "docno", "relevance": "grade"})
    out = evaluate(qrels, run, ["P@1"], query_id="qid", doc_id="docno", score="sim", relevance="grade")
    assert out.columns == ["qid", "P@1"]
    assert out.row(0) == ("q", 1.0)


@pytest.mark.parametrize(
    ("frame", "which", "match"),
    [
        (RUN.with_columns(pl.col("score").cast(pl.String)), "run", r"run's score column 'score' must be numeric, found type (String|VARCHAR)"),
        (QRELS.with_columns(pl.col("relevance").cast(pl.String)), "qrels", r"qrels's relevance column 'relevance' must be numeric"),
        (RUN.with_columns(query_id=pl.Series([True, False])), "run", r"id column 'query_id' must hold strings or integers"),
    ],
)
def test_mistyped_columns(evaluate: Evaluate, frame: pl.DataFrame, which: str, match: str) -> None:
    with pytest.raises(rw.ColumnTypeError, match=match):
        if which == "run":
            evaluate(QRELS, frame, ["P@1"])
        else:
            evaluate(frame, RUN, ["P@1"])


@pytest.mark.parametrize(
    ("run", "qrels", "match"),
    [
        (RUN.with_columns(score=pl.Series([None, 1.0])), QRELS, r"run's column 'score' holds 1 NULL"),
        (RUN.with_columns(score=pl.Series([float("nan"), 1.0])), QRELS, r"run's column 'score' holds 1 NaN"),
        (RUN.with_columns(doc_id=pl.Series(["a", None])), QRELS, r"run's column 'doc_id' holds 1 NULL"),
        (RUN.with_columns(query_id=pl.Series([None, "q"])), QRELS, r"run's column 'query_id' holds 1 NULL"),
        (RUN, QRELS.with_columns(relevance=pl.Series([None], dtype=pl.Int64)), r"qrels's column 'relevance' holds 1 NULL"),
        (RUN, QRELS.with_columns(relevance=pl.Series([float("nan")])), r"qrels's column 'relevance' holds 1 NaN"),
    ],
)
def test_null_and_nan_values(evaluate: Evaluate, run: pl.DataFrame, qrels: pl.DataFrame, match: str) -> None:
    with pytest.raises(rw.InvalidValueError, match=match):
        evaluate(qrels, run, ["P@1"])


def test_duplicate_documents(evaluate: Evaluate) -> None:
    dup_run = pl.concat([RUN, RUN.head(1).with_columns(score=pl.lit(0.5))])
    with pytest.raises(rw.DuplicateDocumentError, match=r"run lists document 'a' more than once for query 'q'"):
        evaluate(QRELS, dup_run, ["P@1"])
    with pytest.raises(rw.DuplicateDocumentError, match=r"qrels lists document 'a' more than once"):
        evaluate(pl.concat([QRELS, QRELS]), RUN, ["P@1"])


def test_empty_run(evaluate: Evaluate) -> None:
    with pytest.raises(rw.EmptyInputError, match="run is empty"):
        evaluate(QRELS, RUN.clear(), ["P@1"])


@pytest.mark.parametrize(
    ("metric", "error", "match"),
    [
        ("nDCG@0", rw.InvalidParameterError, r"cutoff k must be a positive integer, got 0"),
        ("nDCG@-3", rw.InvalidParameterError, r"got -3"),
        ("nDCG@2.5", rw.InvalidParameterError, r"got 2.5"),
        ("P", rw.InvalidParameterError, r"P needs a cutoff, e.g. P@10"),
        ("Rprec@10", rw.InvalidParameterError, r"Rprec takes no cutoff"),
        ("nDGC@10", rw.UnknownMetricError, r"unknown metric 'nDGC'. Closest: nDCG"),
        ("nDCG(gian='exponential')", rw.InvalidParameterError, r"unknown parameter 'gian' for nDCG. Did you mean 'gain'\? Valid parameters: gain, discount, base, ideal, ideal_cutoff, ties, rel, gains, judged_only"),
        ("nDCG(gain='quadratic')", rw.InvalidParameterError, r"'gain' must be one of \['linear', 'exponential', 'binary'\], got 'quadratic'"),
        ("nDCG(discount='jarvelin', base=1)", rw.InvalidParameterError, r"'base' must be > 1.0, got 1"),
        ("P(rel='high')@5", rw.InvalidParameterError, r"'rel' must be a number, got 'high'"),
        ("AP(judged_only=1)", rw.InvalidParameterError, r"'judged_only' must be True or False, got 1"),
        ("nDCG@@10", rw.MetricSyntaxError, r"cannot parse metric 'nDCG@@10'"),
        ("nDCG(2)", rw.MetricSyntaxError, r"parameters must be named"),
        ("nDCG(gain=linear)", rw.MetricSyntaxError, r"must be literals.*got 'linear'"),
        ("__import__('os')", rw.MetricSyntaxError, r"parameters must be named"),
    ],
)
def test_bad_metric_strings(evaluate: Evaluate, metric: str, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        evaluate(QRELS, RUN, [metric])


def test_metrics_separated_by_commas_are_told_to_be_a_list(evaluate: Evaluate) -> None:
    """'nDCG@10,AP' is two metrics in one string: the error says to pass a list."""
    with pytest.raises(rw.MetricSyntaxError) as info:
        evaluate(QRELS, RUN, ["nDCG@10,AP"])
    assert str(info.value) == (
        "metric 'nDCG@10,AP' is 2 metrics separated by commas (a metric string holds one); "
        "pass them as a list: ['nDCG@10', 'AP']"
    )
    with pytest.raises(rw.MetricSyntaxError, match=r"pass them as a list: \['map', 'P_10', 'recip_rank'\]"):
        evaluate(QRELS, RUN, "map, P_10,recip_rank")
    # a part that is no metric: the usual syntax error, no list suggested
    with pytest.raises(rw.MetricSyntaxError, match=r"^cannot parse metric 'nDCG@10,nDGC'"):
        evaluate(QRELS, RUN, ["nDCG@10,nDGC"])
    assert evaluate(QRELS, RUN, ["P.1,2"]).columns == ["query_id", "P_1", "P_2"]  # trec_eval's list stays one


def test_a_column_name_given_where_the_default_is_found(evaluate: Evaluate, engine: str) -> None:
    """query_id='qid' on inputs whose column is query_id: the hint is that query_id is the
    default (no name needed), not run_columns={'query_id': 'query_id'}; where the entry point
    takes one input's columns, also how to name the other's alone (lf.ir.evaluate takes none)."""
    with pytest.raises(rw.MissingColumnError) as info:
        evaluate(QRELS, RUN, ["P@1"], query_id="qid")
    hint = (
        "leave out query_id='qid'" if engine == "polars-lazy" else
        "name no query_id column for the run; if 'qid' is the qrels', pass qrels_columns={'query_id': 'qid'} alone"
    )
    assert str(info.value) == (
        f"the run has no column 'qid'. Did you mean 'query_id'? (the default: {hint}) "
        "Columns found: ['query_id', 'doc_id', 'score']"
    )
    with pytest.raises(rw.MissingColumnError) as info:
        evaluate(QRELS, RUN, ["P@1"], relevance="grade")
    assert str(info.value) == (
        "the qrels has no column 'grade'. Did you mean 'relevance'? (the default: leave out relevance='grade') "
        "Columns found: ['query_id', 'doc_id', 'relevance']"
    )
    if engine != "polars-lazy":  # the per-input form the hint names does what it says
        out = evaluate(QRELS.rename({"query_id": "qid"}), RUN, ["P@1"], qrels_columns={"query_id": "qid"})
        assert out.row(0) == ("q", 1.0)


def test_bad_conventions(evaluate: Evaluate) -> None:
    with pytest.raises(rw.InvalidParameterError, match=r"'ties' must be one of .*got 'random'"):
        evaluate(QRELS, RUN, ["P@1"], ties="random")
    with pytest.raises(rw.InvalidParameterError, match=r"'max_rank' must be a positive integer or None, got 0"):
        evaluate(QRELS, RUN, ["P@1"], max_rank=0)
    with pytest.raises(rw.InvalidParameterError, match=r"'missing' must be one of \['ignore', 'zero'\]"):
        evaluate(QRELS, RUN, ["P@1"], missing="skip")


def test_unknown_engine() -> None:
    with pytest.raises(rw.InvalidParameterError, match=r"engine must be one of \['polars', 'duckdb'\], got 'spark'"):
        rw.evaluate(QRELS, RUN, ["P@1"], engine="spark")  # type: ignore[arg-type]


def test_no_metrics_and_duplicate_metrics(evaluate: Evaluate) -> None:
    with pytest.raises(rw.InvalidParameterError, match="no metrics requested"):
        evaluate(QRELS, RUN, [])
    with pytest.raises(rw.InvalidParameterError, match=r"metric 'AP' is requested twice"):
        evaluate(QRELS, RUN, ["AP", "AP"])


@pytest.mark.parametrize("name", ["x'); DROP TABLE t; --", 'a"b', "1abc", "", "a;b"])
def test_unsafe_column_names_are_refused(evaluate: Evaluate, name: str) -> None:
    with pytest.raises(rw.UnsafeIdentifierError, match=r"query_id column name .* is not allowed"):
        evaluate(QRELS, RUN, ["P@1"], query_id=name)


def test_unreadable_inputs(evaluate: Evaluate, tmp_path: Path) -> None:
    with pytest.raises(rw.UnsupportedInputError, match="no such file"):
        evaluate(QRELS, tmp_path / "missing.parquet", ["P@1"])
    with pytest.raises(rw.UnsupportedInputError, match=r"cannot read a qrels from builtins\.int"):
        rw.evaluate(42, RUN, ["P@1"])
    bad = tmp_path / "run.txt"
    bad.write_text("q1 Q0 doc1\n")
    with pytest.raises(rw.UnsupportedInputError, match=r"is not a TREC run file: expected at least 6"):
        evaluate(QRELS, bad, ["P@1"])


@pytest.mark.parametrize("engine", ["polars", "duckdb"])  # the lazy namespace returns a plan: nothing to warn yet
def test_unjudged_run_queries_are_reported(engine: str) -> None:
    run = pl.concat([RUN, pl.DataFrame({"query_id": ["other"], "doc_id": ["z"], "score": [1.0]})])
    with pytest.warns(rw.RankwiseWarning, match=r"1 run query has no judgments in the qrels and was not scored"):
        out = rw.evaluate(QRELS, run, ["P@1"], engine=engine)  # type: ignore[arg-type]
    assert out["query_id"].to_list() == ["q"]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("missing", ["ignore", "zero"])
def test_run_with_no_judged_query_is_an_error_naming_ids_of_both_sides(engine: str, missing: str) -> None:
    # issue 32: inputs that do not meet are an error, not a table of NaN or zeros
    run = pl.DataFrame({"query_id": ["a", "a", "b"], "doc_id": ["x", "y", "z"], "score": [1.0, 0.5, 1.0]})
    with pytest.raises(rw.InvalidValueError, match=r"no query of the run is judged: the run's query ids \('a', 'b'\) and the qrels' \('q'\)"):
        rw.evaluate(QRELS, run, ["P@1"], engine=engine, missing=missing)  # type: ignore[arg-type]


def test_errors_are_value_or_type_errors() -> None:
    for cls in (rw.UnknownMetricError, rw.InvalidParameterError, rw.MissingColumnError, rw.InvalidValueError,
                rw.DuplicateDocumentError, rw.EmptyInputError, rw.UnsafeIdentifierError, rw.MetricSyntaxError):
        assert issubclass(cls, ValueError) and issubclass(cls, rw.RankwiseError)
    for cls in (rw.ColumnTypeError, rw.UnsupportedInputError):
        assert issubclass(cls, TypeError) and issubclass(cls, rw.RankwiseError)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize(
    ("metrics", "judged_only"),
    [(["P@1"], False), (["P@1"], True), (["num_rel"], False), (["num_rel", "P@1"], True)],
)
def test_presence_and_unjudged_count_whatever_the_metrics_rank(
    engine: str, metrics: list[str], judged_only: bool
) -> None:
    # query c is judged and retrieved only unjudged documents: present in the run, so kept;
    # query "other" has no judgment at all: counted, not scored. The DuckDB engine reads both
    # off the aggregation of the full ranking when a metric ranks it, else off the run itself.
    run = pl.DataFrame({"query_id": ["q", "q", "c", "other"], "doc_id": ["a", "b", "u", "z"],
                        "score": [2.0, 1.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q", "q", "c", "gone"], "doc_id": ["a", "x", "v", "w"],
                          "relevance": [1, 1, 1, 1]})
    with pytest.warns(rw.RankwiseWarning, match=r"^1 run query has no judgments"):
        out = rw.evaluate(qrels, run, metrics, engine=engine, judged_only=judged_only)  # type: ignore[arg-type]
    assert out["query_id"].to_list() == ["c", "q"]
    if "num_rel" in metrics:
        assert out["num_rel"].to_list() == [1.0, 2.0]
