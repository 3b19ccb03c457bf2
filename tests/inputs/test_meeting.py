"""Inputs that do not meet (issue 32): a run none of whose queries is judged is an error naming
ids of both sides; a run whose documents are almost never judged while its ids would meet the
judgments' once trimmed, case-folded or without leading zeros gets a warning; judged queries
missing from the run are counted and said, on both engines and the command line."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import polars as pl
import pytest

import rankwise as rw

ENGINES = ["polars", "duckdb"]


def _files(tmp_path: Path, run: pl.DataFrame, qrels: pl.DataFrame) -> tuple[Path, Path]:
    run.write_parquet(tmp_path / "run.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    return tmp_path / "qrels.parquet", tmp_path / "run.parquet"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rankwise.cli", *args], capture_output=True, text=True, timeout=120)


QRELS_INT = pl.DataFrame({"query_id": [1, 2, 3], "doc_id": ["a", "b", "c"], "relevance": [1, 1, 1]})
RUN_Q = pl.DataFrame({"query_id": ["q001", "q002"], "doc_id": ["a", "b"], "score": [1.0, 1.0]})


@pytest.mark.parametrize("engine", ENGINES)
def test_ids_that_never_meet_are_an_error_naming_both_sides(engine: str, tmp_path: Path) -> None:
    # the case: qrels ids 1, 2, 3 against run ids q001, q002 gave "AP all nan", exit 0
    with pytest.raises(rw.InvalidValueError, match=r"the run's query ids \('q001', 'q002'\) and the qrels' \(1, 2, 3\) have none in common"):
        rw.evaluate(QRELS_INT, RUN_Q, ["AP"], engine=engine)  # type: ignore[arg-type]
    qrels, run = _files(tmp_path, RUN_Q, QRELS_INT)
    out = _cli("eval", str(qrels), str(run), "-m", "AP", "--engine", engine)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("rankwise: error: no query of the run is judged") and len(out.stderr.splitlines()) == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_ids_that_meet_only_once_loosened_say_so(engine: str) -> None:
    qrels = pl.DataFrame({"query_id": [" Q1 ", "Q2"], "doc_id": ["a", "b"], "relevance": [1, 1]})
    run = pl.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["a", "b", "c"], "score": [1.0, 1.0, 1.0]})
    with pytest.raises(rw.InvalidValueError, match=r"none in common .*; 2 of the run's would match after trimming spaces, folding case"):
        rw.evaluate(qrels, run, ["AP"], engine=engine)  # type: ignore[arg-type]


@pytest.mark.parametrize("engine", ENGINES)
def test_doc_ids_differing_in_case_get_a_warning(engine: str, tmp_path: Path) -> None:
    # the case: doc ids differing only in letter case gave all zeros and no warning
    docs = [f"DOC-{i:03d}" for i in range(20)]
    run = pl.DataFrame({"query_id": ["q1"] * 10 + ["q2"] * 10, "doc_id": docs, "score": [float(-i) for i in range(20)]})
    qrels = pl.DataFrame({"query_id": ["q1"] * 10 + ["q2"] * 10, "doc_id": [d.lower() for d in docs], "relevance": [1] * 20})
    # one document meets exactly: 5% of the run's documents are judged, 100% once case-folded
    qrels = pl.concat([qrels, pl.DataFrame({"query_id": ["q1"], "doc_id": ["DOC-000"], "relevance": [0]})])
    with pytest.warns(rw.RankwiseWarning, match=r"only 5\.0% of the run's documents are judged \(of the first 20 rows\), but 100% would be after trimming spaces, folding case"):
        got = rw.evaluate(qrels, run, ["AP"], engine=engine)  # type: ignore[arg-type]
    assert got["AP"].to_list() == [0.0, 0.0]
    q, r = _files(tmp_path, run, qrels)
    out = _cli("eval", str(q), str(r), "-m", "AP", "--engine", engine)
    assert out.returncode == 0 and "rankwise: warning: only 5.0% of the run's documents are judged" in out.stderr


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("run_doc", "judged_doc"),
    [("0{}", "{}"), ("\u00a0d{}", "d{}"), ("d{}\u2003", "d{}"), ("\u00c9D{}", "\u00e9d{}"), ("d{}", "D{}")],
)
def test_each_loosening_alone_gets_the_warning(engine: str, run_doc: str, judged_doc: str) -> None:
    # one loosening at a time, on either side (a leading zero; a non-breaking space and an em
    # space, both Unicode white space; a non-ASCII capital; a capital in the qrels): the quick look for an id that
    # loosening changes must see each, or the warning would be lost
    docs = [run_doc.format(i) for i in range(1, 21)]
    run = pl.DataFrame({"query_id": ["q1"] * 20, "doc_id": docs, "score": [float(-i) for i in range(20)]})
    qrels = pl.DataFrame({"query_id": ["q1"] * 20, "doc_id": [judged_doc.format(i) for i in range(1, 21)], "relevance": [1] * 20})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rw.evaluate(qrels, run, ["AP"], engine=engine)  # type: ignore[arg-type]
    said = [str(w.message) for w in caught if "would be after trimming spaces" in str(w.message)]
    loose = rw.evaluate(  # type: ignore[arg-type]
        qrels.with_columns(pl.col("doc_id").str.strip_chars().str.to_lowercase().str.replace(r"^0+(\d)", "${1}")),
        run.with_columns(pl.col("doc_id").str.strip_chars().str.to_lowercase().str.replace(r"^0+(\d)", "${1}")),
        ["AP"], engine=engine,
    )
    # where the ids meet once loosened by hand, the warning says so (0% judged, 100% loosened)
    assert loose["AP"].to_list() == [1.0]
    assert said == [
        "only 0.0% of the run's documents are judged (of the first 20 rows), but 100% would be after trimming "
        "spaces, folding case or dropping leading zeros (columns 'query_id', 'doc_id'): do both inputs write "
        "the ids the same way?"
    ]


@pytest.mark.parametrize("engine", ENGINES)
def test_sparse_judgments_that_meet_get_no_warning(engine: str) -> None:
    # one judged document in twenty (as MS MARCO's sparse judgments): nothing would meet loosened
    run = pl.DataFrame({"query_id": ["q1"] * 20, "doc_id": [f"d{i}" for i in range(20)], "score": [float(-i) for i in range(20)]})
    qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d3", "x9"], "relevance": [1, 1]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rw.evaluate(qrels, run, ["RR"], engine=engine)["RR"].to_list() == [0.25]  # type: ignore[arg-type]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("fmt", ["table", "csv", "json", "trec"])
def test_eval_says_what_became_of_judged_queries_missing_from_the_run(engine: str, fmt: str, tmp_path: Path) -> None:
    qrels = pl.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["a", "b", "c"], "relevance": [1, 1, 1]})
    run = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "x"], "score": [1.0, 1.0]})
    with pytest.warns(rw.RankwiseWarning, match=r"1 judged query is not in the run: left out of the scores and means \(as trec_eval; missing='zero' scores it 0\)"):
        assert rw.evaluate(qrels, run, ["RR"], engine=engine)["RR"].mean() == 0.5  # type: ignore[arg-type]
    with pytest.warns(rw.RankwiseWarning, match=r"1 judged query is not in the run: scored 0 \(missing='zero', as trec_eval -c\)"):
        assert rw.evaluate(qrels, run, ["RR"], engine=engine, missing="zero")["RR"].mean() == pytest.approx(1 / 3)  # type: ignore[arg-type]
    q, r = _files(tmp_path, run, qrels)
    for flags, said in (((), "left out of the scores and means (as trec_eval; -c scores it 0)"),
                        (("-c",), "scored 0 (-c, as trec_eval -c)")):
        out = _cli("eval", str(q), str(r), "-m", "RR", "--format", fmt, "--engine", engine, *flags)
        assert out.returncode == 0
        assert out.stderr == f"rankwise: warning: 1 judged query is not in the run: {said}\n"


def test_an_id_the_quick_look_passes_is_not_changed_by_loosening() -> None:
    """The near-miss look skips the loosening when no id may change (``checks._loosens``): on
    every Unicode code point alone, after a leading zero, before and after a space and between
    letters, an id whose loosened form differs is one the quick look flags."""
    from rankwise.inputs.checks import _loose, _loosens

    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    ids = pl.Series("id", [*chars, *(f"0{c}" for c in chars), *(f"a{c}b" for c in chars),
                           " x", "x ", "\tx", "x\n", "007", "0", "00", "q0", "Q1", "doc-7", "ǅ", "İ"])
    frame = ids.to_frame().select(pl.col("id"), loose=_loose(pl.col("id")), flagged=_loosens(pl.col("id")))
    missed = frame.filter((pl.col("loose") != pl.col("id")) & ~pl.col("flagged"))
    assert missed.height == 0, missed.head(10)
    # and the ids of the usual shapes pass without the loosening
    plain = pl.Series("id", ["q1", "doc-7", "msmarco_passage_12", "0", "10", "a.b/c:d", "x@y"]).to_frame()
    assert not plain.select(_loosens(pl.col("id")).any()).item()
