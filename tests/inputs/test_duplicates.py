"""A document listed twice for one query, in the qrels or in the run, is refused on every
measure and engine before any work that grows with the duplicates: the diversity measures'
greedy ideal, Compat's run-ordered ideal and the C/W/L measures' walks. (On Polars, qrels judging
each document once per subtopic, read without ``subtopic=``, once took 19 GB for
``alpha_nDCG(alpha=0.8)@10`` on 232 rows; a run and qrels both repeating one pair joined
into their product.) Memory is bounded: the worst cases run in a subprocess under
``RLIMIT_AS`` and must end with the error, not a kill."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.cli.commands import main
from tests.conftest import run_on
from tests.tiers import examples

DIVERSITY = [
    "alpha_nDCG(alpha=0.8)@10", "alpha-nDCG@20", "alpha-DCG@5", "ERR-IA@10", "nERR-IA@20",
    "NRBP", "nNRBP", "MAP-IA", "P-IA@5", "strec@5",
]
COMPAT = ["Compat", "Compat(p=0.5)"]
CWL = [
    "INST", "INSQ", "BPM(T=1)@20", "BPM(T=1,hb=1)@10", "SDCG@10", "NERR8@10", "NERR9@10", "NERR10",
    "NERR11", "U", "TBG", "IFTGoal", "IFTRate", "IFTGoalRate",
]
MEASURES = DIVERSITY + COMPAT + CWL

DOCS = 29
SUBTOPICS = 4


def subtopic_qrels(queries: int = 2) -> pl.DataFrame:
    """Qrels judging each of 29 documents on 4 subtopics (232 rows for 2 queries): without
    ``subtopic=`` each (query, doc) pair is listed 4 times."""
    rows = [(f"q{q}", s, f"d{d}", 1) for q in range(queries) for d in range(DOCS) for s in range(SUBTOPICS)]
    return pl.DataFrame(rows, schema=["query_id", "subtopic", "doc_id", "relevance"], orient="row")


def ranked_run(queries: int = 2, docs: int = 40) -> pl.DataFrame:
    return pl.DataFrame(
        [(f"q{q}", f"d{d}", float(docs - d)) for q in range(queries) for d in range(docs)],
        schema=["query_id", "doc_id", "score"], orient="row",
    )


@pytest.mark.parametrize("metric", MEASURES)
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_duplicated_qrels_are_refused_on_every_measure(engine: str, metric: str) -> None:
    with pytest.raises(rw.errors.DuplicateDocumentError, match=r"the qrels lists document 'd\d+' more than once for query 'q\d'"):
        run_on(engine, subtopic_qrels(), ranked_run(), [metric])


@pytest.mark.parametrize("metric", MEASURES)
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_duplicated_runs_are_refused_on_every_measure(engine: str, metric: str) -> None:
    qrels = subtopic_qrels().filter(pl.col("subtopic") == 0).drop("subtopic")
    run = pl.concat([ranked_run(), ranked_run().head(1)])
    with pytest.raises(rw.errors.DuplicateDocumentError, match=r"the run lists document 'd\d+' more than once for query 'q\d'"):
        run_on(engine, qrels, run, [metric])


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_the_error_says_to_pass_subtopic(engine: str) -> None:
    """Qrels with a column named like a subtopic, a diversity measure asked for: the duplicate's
    error says to pass ``subtopic=``; not for other measures, nor a column named otherwise."""
    qrels, run = subtopic_qrels(), ranked_run()
    hint = "the qrels have a column 'subtopic': to judge each document per subtopic, as alpha-nDCG@20, ERR-IA@10 read them, pass subtopic='subtopic'"
    with pytest.raises(rw.errors.DuplicateDocumentError) as info:
        run_on(engine, qrels, run, ["AP", "alpha-nDCG@20", "ERR-IA@10"])
    assert str(info.value).endswith(hint)
    intent = qrels.rename({"subtopic": "Intent_ID"})
    with pytest.raises(rw.errors.DuplicateDocumentError, match=r"column 'Intent_ID': .* pass subtopic='Intent_ID'$"):
        run_on(engine, intent, run, ["NRBP"])
    for frame, metrics in ((qrels, ["AP", "Compat"]), (qrels.rename({"subtopic": "iteration"}), ["NRBP"])):
        with pytest.raises(rw.errors.DuplicateDocumentError) as info:
            run_on(engine, frame, run, metrics)
        assert str(info.value).endswith("each document may appear once per query")


def test_the_lazy_api_says_to_pass_subtopic() -> None:
    with pytest.raises(rw.errors.DuplicateDocumentError, match=r"pass subtopic='subtopic'$"):
        ranked_run().lazy().ir.evaluate(subtopic_qrels(), ["alpha-nDCG@10"])


def test_the_command_line_says_to_pass_subtopic_col(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    subtopic_qrels().write_csv(tmp_path / "qrels.csv")
    ranked_run().write_csv(tmp_path / "run.csv")
    assert main(["eval", str(tmp_path / "qrels.csv"), str(tmp_path / "run.csv"), "-m", "alpha_nDCG(alpha=0.8)@10"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    # every pair is repeated: the engine names one of them
    assert len(err) == 1 and re.match(r"rankwise: error: the qrels lists document 'd\d+' more than once", err[0]), err
    assert err[0].endswith("pass --subtopic-col subtopic"), err


@st.composite
def duplicated_case(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame, str, str]:
    """A small run and qrels, then some of one's rows listed again (with any value): the
    qrels judging a document twice (perhaps on two subtopics) or the run listing it twice."""
    queries = draw(st.integers(1, 3))
    docs = draw(st.integers(1, 6))
    run = [(f"q{q}", f"d{d}", float(draw(st.integers(0, 5)))) for q in range(queries) for d in range(docs)]
    qrels = [(f"q{q}", f"d{d}", draw(st.integers(0, 2))) for q in range(queries) for d in range(docs)]
    side = draw(st.sampled_from(["run", "qrels"]))
    rows = run if side == "run" else qrels
    again = draw(st.lists(st.sampled_from(rows), min_size=1, max_size=4))
    rows += [(q, d, v if draw(st.booleans()) else type(v)(draw(st.integers(0, 3)))) for q, d, v in again]
    order = draw(st.permutations(range(len(rows))))
    rows[:] = [rows[i] for i in order]
    run_frame = pl.DataFrame(run, schema=["query_id", "doc_id", "score"], orient="row")
    qrels_frame = pl.DataFrame(qrels, schema=["query_id", "doc_id", "relevance"], orient="row")
    return run_frame, qrels_frame, side, draw(st.sampled_from([*MEASURES, "AP", "nDCG@10"]))


@settings(max_examples=examples(30), deadline=None)
@given(case=duplicated_case(), engine=st.sampled_from(["polars", "duckdb"]))
def test_duplicates_always_raise(case: tuple[pl.DataFrame, pl.DataFrame, str, str], engine: str) -> None:
    run, qrels, side, metric = case
    with pytest.raises(rw.errors.DuplicateDocumentError, match=f"the {side} lists document"):
        run_on(engine, qrels, run, [metric])


LIMIT = 3 * 1024**3
"""The address space the bounded-memory cases run in (3 GB)."""

_BOUNDED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
import polars as pl
import rankwise as rw
from tests.inputs.test_duplicates import ranked_run, subtopic_qrels
case, engine, metric = sys.argv[1:]
if case == "subtopics":
    qrels, run = subtopic_qrels(), ranked_run()
else:  # one pair 30000 times in each: their join would hold 9e8 rows
    n = 30_000
    run = pl.DataFrame({{"query_id": ["q"] * n, "doc_id": ["d"] * n, "score": [1.0] * n}})
    qrels = pl.DataFrame({{"query_id": ["q"] * n, "doc_id": ["d"] * n, "relevance": [1] * n}})
try:
    rw.evaluate(qrels, run, [metric], engine=engine)
except rw.errors.DuplicateDocumentError as exc:
    print("refused:", exc)
"""


@pytest.mark.parametrize(
    ("case", "metric"),
    [("subtopics", "alpha_nDCG(alpha=0.8)@10"), ("subtopics", "nNRBP"), ("subtopics", "Compat"),
     ("subtopics", "IFTGoalRate"), ("both", "P@10")],
)
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_duplicates_are_refused_in_bounded_memory(engine: str, case: str, metric: str) -> None:
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_BOUNDED.format(limit=LIMIT)), case, engine, metric],
        capture_output=True, text=True, timeout=120, cwd=root,
    )
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    assert out.stdout.startswith("refused: the "), out.stdout
    assert "more than once for query" in out.stdout


def test_duckdb_checks_the_run_before_the_qrels(tmp_path: Path) -> None:
    # the inputs' profiles come from one DuckDB statement; their faults are still raised in
    # order: the run's duplicated pair before the qrels' NULL relevance
    run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d1", "d2"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["d1", "d2"], "relevance": [1, None]})
    with pytest.raises(rw.DuplicateDocumentError, match=r"the run lists document 'd1' more than once for query 'q1'"):
        rw.evaluate(qrels, run, ["AP"], engine="duckdb")
    with pytest.raises(rw.InvalidValueError, match=r"column 'relevance' holds 1 NULL value\(s\) \(e\.g\. in query 'q2'\)"):
        rw.evaluate(qrels, run.filter(pl.col("score") != 2.0), ["AP"], engine="duckdb")
    # a qrels file DuckDB's reader refuses (a relevance that is no number), read where it lies
    # (under a memory_limit) by the checks: the run's fault first, as when each input had a
    # statement of its own
    bad = tmp_path / "qrels.csv"
    bad.write_text("query_id,doc_id,relevance\nq1,d1,1\nq2,d2,high\n")
    with pytest.raises(rw.DuplicateDocumentError, match=r"the run lists document 'd1' more than once for query 'q1'"):
        rw.evaluate(bad, run, ["AP"], engine="duckdb", duckdb_config={"memory_limit": "1GB"})
