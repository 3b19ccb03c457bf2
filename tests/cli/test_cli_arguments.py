"""The command line's arguments (rankwise.cli.arguments): every convention is one flag, the same
on eval, compare and explain, built from the conventions' declaration; compare's flags give the
comparison's keyword options by their names, a setting not given left to its default. The
values expected are written out here."""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import polars as pl
import pytest

import rankwise as rw
from rankwise.cli.arguments import compare_options, conventions, parse, read_options
from rankwise.conventions import CONVENTION_KEYWORDS
from tests.cli.test_cli import QRELS, RUN, cli

COMMANDS = {
    "eval": ["eval", "qrels.trec", "run.trec"],
    "compare": ["compare", "qrels.trec", "a.trec", "b.trec"],
    "explain": ["explain", "qrels.trec", "run.trec", "-m", "AP", "-q", "q1"],
}
"""A valid command line of each command that takes the conventions."""

EVERY_FLAG = [
    "-c", "-M", "7", "-J", "-l", "2", "--ties", "doc_asc", "--trec-eval", "9", "--empty", "1", "--judgments", "retrieved",
]
"""Every convention's flag, each given a value that is not its default."""


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_convention_is_one_flag_on_eval_compare_and_explain(command: str) -> None:
    argv = COMMANDS[command]
    assert conventions(parse(argv)) == {
        "ties": "trec_eval", "missing": "ignore", "max_rank": None, "rel": 1, "judged_only": False, "trec_eval": "10",
        "empty": 0, "judgments": "all",
    }
    assert conventions(parse([*argv, *EVERY_FLAG])) == {
        "ties": "doc_asc", "missing": "zero", "max_rank": 7, "rel": 2.0, "judged_only": True, "trec_eval": "9",
        "empty": 1, "judgments": "retrieved",
    }
    long_forms = ["--complete", "--max-rank", "7", "--judged-only", "--rel", "2", "--ties", "doc_asc", "--trec-eval", "9",
                  "--empty", "1", "--judgments", "retrieved"]
    assert conventions(parse([*argv, *long_forms])) == conventions(parse([*argv, *EVERY_FLAG]))
    # each convention's value in args under its own name, none missing, none other
    assert set(conventions(parse(argv))) == set(CONVENTION_KEYWORDS)


def test_read_options_are_the_conventions_the_columns_and_each_input_s_names() -> None:
    args = parse([*COMMANDS["eval"], "-c", "--query-id-col", "qid", "--subtopic-col", "--cost-col", "c",
                  "--run-doc-id-col", "docno", "--qrels-names", "qid, iter,docno,rel"])
    assert read_options(args) == {
        "ties": "trec_eval", "missing": "zero", "max_rank": None, "rel": 1, "judged_only": False, "trec_eval": "10",
        "empty": 0, "judgments": "all", "query_id": "qid", "doc_id": "doc_id", "score": "score", "relevance": "relevance", "subtopic": "subtopic",
        "cost": "c", "run_columns": {"doc_id": "docno"}, "qrels_names": ["qid", "iter", "docno", "rel"],
    }
    # explain and compare have no --subtopic-col: no subtopic keyword
    assert "subtopic" not in read_options(parse(COMMANDS["explain"]))


def test_compare_flags_are_the_comparison_s_keyword_options() -> None:
    """A setting not given is left out (its default is the comparison's), except those whose
    flag has the default itself; --test gives tests, in the order given."""
    columns = {"query_id": "query_id", "doc_id": "doc_id", "score": "score", "relevance": "relevance", "cost": None}
    defaults = {"ties": "trec_eval", "missing": "ignore", "max_rank": None, "rel": 1, "judged_only": False,
                "trec_eval": "10", "empty": 0, "judgments": "all", **columns}
    assert compare_options(parse(COMMANDS["compare"])) == {
        **defaults, "pairs": "baseline", "alpha": 0.05, "correction": "holm", "resamples": 10_000, "seed": 0,
        "engine": "polars", "risk_alpha": 1.0, "hurt": 0.0, "power": 0.8,
    }
    given = parse([*COMMANDS["compare"], "--baseline", "b", "--test", "wilcoxon", "--test", "t", "--alpha", "0.1",
                   "--correction", "none", "--pairs", "all", "--by", "market", "--risk-alpha", "2", "--hurt", "0.05",
                   "--detect", "0.02", "--power", "0.9", "--resamples", "500", "--seed", "7", "--engine", "duckdb",
                   "-l", "2"])
    assert compare_options(given) == {
        **defaults, "rel": 2.0, "baseline": "b", "tests": ["wilcoxon", "t"], "alpha": 0.1, "correction": "none",
        "pairs": "all", "by": ["market"], "risk_alpha": 2.0, "hurt": 0.05, "detect": 0.02, "power": 0.9,
        "resamples": 500, "seed": 7, "engine": "duckdb",
    }


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_compare_s_settings_reach_the_comparison_as_in_python(engine: str, tmp_path: Path) -> None:
    """--risk-alpha, --hurt, --detect, --power, --test and --pairs give the numbers the Python
    API gives for the same keywords."""
    reversed_run = tmp_path / "reversed.parquet"
    pl.read_parquet(RUN).with_columns(score=-pl.col("score")).write_parquet(reversed_run)
    out = cli("compare", str(QRELS), str(RUN), str(reversed_run), "-m", "AP", "--format", "csv", "--engine", engine,
              "--resamples", "200", "--seed", "3", "--risk-alpha", "4", "--hurt", "0.1", "--detect", "0.05",
              "--power", "0.9", "--test", "t", "--test", "randomization", "--pairs", "all", "--alpha", "0.01")
    assert out.returncode == 0, out.stderr
    got = pl.read_csv(io.StringIO(out.stdout)).row(0, named=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        expected = rw.compare(
            QRELS, {"run": RUN, "reversed": reversed_run}, ["AP"], engine=engine, resamples=200, seed=3,  # type: ignore[arg-type]
            risk_alpha=4.0, hurt=0.1, detect=0.05, power=0.9, tests=["t", "randomization"], pairs="all", alpha=0.01,
        ).row(0, named=True)
    for column in ("urisk", "trisk", "hurt", "queries_needed", "p_t", "p_randomization", "sig_t", "ci_low"):
        assert got[column] == pytest.approx(expected[column], abs=1e-12), column
    assert (got["run"], got["baseline"]) == ("reversed", "run")
