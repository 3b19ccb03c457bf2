"""``rw.Evaluator``: the judgments and metrics prepared once, any number of runs evaluated
against them; each call gives what the function of its name gives (evaluate, compare, explain),
on both engines, and the judgments' side is computed once per metrics and conventions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from tests.strategies import Case, cases
from tests.tiers import examples

pytestmark = pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")

METRICS = ["nDCG@10", "AP", "RR", "P@5", "R@100", "bpref", "ERR@20", "Rprec", "alpha_nDCG@5"][:-1]
QRELS = pl.DataFrame({"query_id": ["q1", "q1", "q1", "q2", "q2", "q3"], "doc_id": ["a", "b", "c", "a", "d", "e"],
                      "relevance": [2, 0, 1, 1, 3, 1]})
RUN_A = pl.DataFrame({"query_id": ["q1", "q1", "q1", "q2", "q2", "q4"], "doc_id": ["a", "b", "z", "d", "a", "e"],
                      "score": [3.0, 2.0, 1.0, 2.0, 1.0, 1.0]})
RUN_B = RUN_A.with_columns(score=pl.Series([1.0, 2.0, 3.0, 1.0, 2.0, 1.0]))


def _same(got: pl.DataFrame, want: pl.DataFrame) -> None:
    """The same rows and columns; values to 1e-12 (the ideal's sums may add in another order)."""
    assert got.columns == want.columns and got.height == want.height
    for a, b in zip(got.iter_rows(), want.iter_rows(), strict=True):
        for x, y in zip(a, b, strict=True):
            assert x == y if not isinstance(y, float) else x == pytest.approx(y, abs=1e-12), (a, b)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_each_run_as_evaluate_gives_it(engine: str, tmp_path: Path) -> None:
    """Runs as frames and as files, one with integer ids after others with text ids (the
    judgments are then prepared as text: kept apart), the same values as evaluate()."""
    QRELS.write_parquet(tmp_path / "qrels.parquet")
    RUN_B.write_csv(tmp_path / "b.csv")
    ev = rw.Evaluator(tmp_path / "qrels.parquet", METRICS, engine=engine)
    for run in (RUN_A, tmp_path / "b.csv", RUN_A):
        _same(ev(run), rw.evaluate(tmp_path / "qrels.parquet", run, METRICS, engine=engine))
    numbers = pl.DataFrame({"query_id": [1, 1], "doc_id": [1, 2], "relevance": [1, 0]})
    ev = rw.Evaluator(numbers, ["AP", "P@1"], engine=engine)
    as_text = pl.DataFrame({"query_id": ["1", "1"], "doc_id": ["2", "1"], "score": [2.0, 1.0]})
    as_int = as_text.with_columns(pl.col("query_id", "doc_id").cast(pl.Int64))
    for run in (as_text, as_int, as_text):
        _same(ev(run), rw.evaluate(numbers, run, ["AP", "P@1"], engine=engine))


def test_the_judgments_side_is_computed_once_per_metrics_and_conventions() -> None:
    ev = rw.Evaluator(QRELS, METRICS)
    for _ in range(3):
        ev(RUN_A)
    assert len(ev._cache.tables) == 1
    ev(RUN_A, missing="zero")  # evaluated with missing='zero' and its queries then left out: the same
    assert len(ev._cache.tables) == 1
    ev(RUN_A, rel=2)  # other conventions: their own
    assert len(ev._cache.tables) == 2
    ev.compare({"a": RUN_A, "b": RUN_B})  # compare's (missing='zero' and its count of documents): once for both runs
    assert len(ev._cache.tables) == 3


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_options_per_call_and_fixed(engine: str) -> None:
    """Segments, per_query=False, ties='expected', judgments='retrieved' and a preset: what
    evaluate() gives with the same arguments."""
    run = RUN_A.with_columns(device=pl.Series(["m", "m", "d", "d", "m", "m"]))
    ev = rw.Evaluator(QRELS, METRICS, engine=engine)
    _same(ev(run, by="device"), rw.evaluate(QRELS, run, METRICS, by="device", engine=engine))
    _same(ev(RUN_A, per_query=False), rw.evaluate(QRELS, RUN_A, METRICS, per_query=False, engine=engine))
    for options in ({"ties": "expected"}, {"judgments": "retrieved"}, {"like": "ranx"}, {"missing": "zero", "rel": 2}):
        ev = rw.Evaluator(QRELS, ["nDCG@3", "AP"], engine=engine, **options)
        _same(ev(RUN_B), rw.evaluate(QRELS, RUN_B, ["nDCG@3", "AP"], engine=engine, **options))


def test_the_judgments_own_names_are_read_once() -> None:
    renamed = QRELS.rename({"query_id": "qid", "doc_id": "docno"})
    ev = rw.Evaluator(renamed, ["AP"], qrels_columns={"query_id": "qid", "doc_id": "docno"})
    assert ev.qrels.columns == ["query_id", "doc_id", "relevance"]
    _same(ev(RUN_A), rw.evaluate(QRELS, RUN_A, ["AP"]))
    records = iter([{"query_id": "q1", "doc_id": "a", "relevance": 1}])  # an iterator: read once, kept
    ev = rw.Evaluator(records, ["RR"])
    assert ev(RUN_A)["RR"].to_list() == [1.0] and ev(RUN_B)["RR"].to_list() == [1 / 3]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_compare_and_explain_as_their_functions_give_them(engine: str) -> None:
    ev = rw.Evaluator(QRELS, ["AP", "nDCG@5"], engine=engine)
    runs = {"a": RUN_A, "b": RUN_B}
    _same(ev.compare(runs, seed=3), rw.compare(QRELS, runs, ["AP", "nDCG@5"], engine=engine, seed=3))
    _same(ev.explain(RUN_A, "q1", "AP"), rw.explain(QRELS, RUN_A, "AP", "q1"))
    assert rw.Evaluator(QRELS, "RR").explain(RUN_B, "q2").equals(rw.explain(QRELS, RUN_B, "RR", "q2"))
    with pytest.raises(rw.InvalidParameterError, match=r"explain\(\) shows one metric: name one of \['AP', 'nDCG@5'\]"):
        ev.explain(RUN_A, "q1")


def test_bad_arguments_are_refused_naming_them() -> None:
    with pytest.raises(rw.ArgumentTypeError, match=r"Evaluator\(\) got an unexpected keyword argument 'tie'"):
        rw.Evaluator(QRELS, ["AP"], tie="doc_asc")
    with pytest.raises(rw.InvalidParameterError, match=r"engine must be one of \['polars', 'duckdb'\]"):
        rw.Evaluator(QRELS, ["AP"], engine="spark")  # type: ignore[arg-type]
    with pytest.raises(rw.UnknownMetricError, match=r"unknown metric 'nDGC'\. Closest: nDCG"):
        rw.Evaluator(QRELS, ["nDGC@10"])
    duplicated = pl.concat([QRELS, QRELS.head(1)])
    ev = rw.Evaluator(duplicated, ["AP"])
    for _ in range(2):  # checked on every call until the judgments pass (nothing is kept of a failure)
        with pytest.raises(rw.DuplicateDocumentError, match="qrels"):
            ev(RUN_A)
    assert repr(ev) == "Evaluator(7 judgments, [AP], engine='polars')"


@settings(max_examples=examples(30), deadline=None)
@given(case=cases(), others=st.lists(cases(), min_size=1, max_size=3), engine=st.sampled_from(["polars", "duckdb"]))
def test_random_runs_against_one_qrels(case: Case, others: list[Case], engine: str) -> None:
    """Several random runs (ties, unjudged documents, queries the judgments lack) against the
    same judgments: each as evaluate() scores it."""
    qrels = case.qrels_frame()
    ev = rw.Evaluator(qrels, ["nDCG@5", "AP", "P@3", "RR", "bpref"], engine=engine)
    for other in [case, *others]:
        run: Any = other.run_frame()
        try:
            want = rw.evaluate(qrels, run, ["nDCG@5", "AP", "P@3", "RR", "bpref"], engine=engine)
        except rw.RankwiseError as exc:
            with pytest.raises(type(exc)):
                ev(run)
            continue
        _same(ev(run), want)


CONVENTIONS: list[dict[str, Any]] = [
    {}, {"rel": 2}, {"judged_only": True}, {"judgments": "retrieved"}, {"max_rank": 2}, {"trec_eval": "9"},
]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("conventions", CONVENTIONS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()) or "default")
def test_conventions_that_change_the_judgments_as_evaluate(engine: str, conventions: dict[str, Any]) -> None:
    """Conventions that change what the judgments count (rel=, judged_only, judgments='retrieved',
    max_rank, trec_eval='9'), fixed at construction and given per call: three runs, each the
    values evaluate() gives."""
    fixed = rw.Evaluator(QRELS, METRICS, engine=engine, **conventions)
    per_call = rw.Evaluator(QRELS, METRICS, engine=engine)
    for run in (RUN_A, RUN_B, RUN_A.with_columns(score=-pl.col("score"))):
        want = rw.evaluate(QRELS, run, METRICS, engine=engine, **conventions)
        _same(fixed(run), want)
        _same(per_call(run, **conventions), want)


def test_duckdb_judgments_normalised_and_checked_once_per_id_typing() -> None:
    """On DuckDB the judgments are normalised once into a table of the evaluator's database and
    checked once, whatever the runs and conventions; a run whose ids need them as text prepares
    them again, once."""
    ev = rw.Evaluator(QRELS, METRICS, engine="duckdb")
    for run, options in ((RUN_A, {}), (RUN_B, {"rel": 2}), (RUN_A, {"judgments": "retrieved"})):
        ev(run, **options)
    assert list(ev._kept.tables) == [(False, False)] and len(ev._kept.checked) == 1
    assert ev._kept.db is not None
    (count,) = ev._kept.db.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE NOT temporary AND table_name LIKE 'rw_qrels_%'"
    ).fetchall()[0]
    assert count == 1
    # the judgments' side of the statement (ideal order, prefixes, per-query sums): tables made
    # by the first run of each set of conventions, read by the next runs
    sides = dict(ev._kept.sides)
    assert sides
    for run, options in ((RUN_B, {}), (RUN_A, {"rel": 2})):
        ev(run, **options)
    assert ev._kept.sides == sides
    numbers = pl.DataFrame({"query_id": [1, 1, 2], "doc_id": ["a", "b", "c"], "relevance": [1, 0, 1]})
    ev = rw.Evaluator(numbers, ["AP"], engine="duckdb")
    as_int = pl.DataFrame({"query_id": [1, 2], "doc_id": ["a", "c"], "score": [1.0, 1.0]})
    as_text = as_int.with_columns(pl.col("query_id").cast(pl.String))
    for run in (as_int, as_text, as_int, as_text):
        _same(ev(run), rw.evaluate(numbers, run, ["AP"], engine="duckdb"))
    assert set(ev._kept.tables) == {(False, False), (True, False)}


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_bad_judgments_raise_what_evaluate_raises_on_every_call(engine: str, tmp_path: Path) -> None:
    """Judgments with a NULL relevance and with a duplicated pair, from a file: each call raises
    evaluate()'s error (naming the column or the pair, and the file), again on the next call."""
    bad = {
        "null": QRELS.with_columns(relevance=pl.when(pl.col("doc_id") == "c").then(None).otherwise("relevance")),
        "duplicate": pl.concat([QRELS, QRELS.head(1)]),
    }
    for name, frame in bad.items():
        path = tmp_path / f"{name}.parquet"
        frame.write_parquet(path)
        with pytest.raises(rw.RankwiseError) as want:
            rw.evaluate(path, RUN_A, METRICS, engine=engine)
        ev = rw.Evaluator(path, METRICS, engine=engine)
        for _ in range(2):
            with pytest.raises(type(want.value)) as got:
                ev(RUN_A)
            assert str(got.value) == str(want.value)


JUDGED_ROWS_METRICS = [
    "num_ret", "P@2", "R@3", "nDCG@2", "CG@2", "AP", "RR", "Rprec", "Rprec_mult_0.20", "bpref",
    "iprec_at_recall_0.00", "infAP", "BinG", "RankEff", "RBP(p=0.8)", "ERR@20", "Success@1", "NumRelRet",
    "NumNonRelJudgedRet",
]


@pytest.mark.parametrize("conventions", [{}, {"max_rank": 3}, {"rel": 2}, {"missing": "zero"}])
def test_the_judged_rows_plan_gives_every_rows_values(conventions: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Measures whose every aggregate declares ``judged_rows`` are computed by the Polars engine
    on the judged rows, each query's top row and its last (unjudged here, negative judgments
    too): the values of the same plan over every ranked row."""
    from rankwise._polars import plan
    from rankwise._polars.compile import compiled_metrics
    from rankwise.conventions import Conventions
    from rankwise.names.parse import parse_metrics

    parsed = parse_metrics(JUDGED_ROWS_METRICS)
    compiled = compiled_metrics(tuple((m, m.label) for m in parsed), Conventions(), False)
    assert all(part.judged_rows and not part.windows for part in compiled.parts.values())
    qrels = pl.DataFrame({
        "query_id": ["q1", "q1", "q1", "q1", "q2", "q2", "q3"], "doc_id": ["b", "c", "d", "e", "a", "x", "y"],
        "relevance": [2, 0, 1, -1, 1, 3, 1],
    })
    run = pl.DataFrame({
        "query_id": ["q1"] * 6 + ["q2"] * 3 + ["q4"],
        "doc_id": ["u", "b", "v", "c", "e", "w", "t", "a", "s", "y"],
        "score": [9.0, 8.0, 8.0, 5.0, 4.0, 1.0, 3.0, 2.0, 1.0, 1.0],
    })
    cut = rw.Evaluator(qrels, JUDGED_ROWS_METRICS, **conventions)(run)
    ranked = plan.ranked

    def every_row(*args: Any, **kwargs: Any) -> pl.LazyFrame:
        return ranked(*args, **{**kwargs, "judged_rows": False})

    monkeypatch.setattr(plan, "ranked", every_row)
    _same(cut, rw.evaluate(qrels, run, JUDGED_ROWS_METRICS, **conventions))


def test_a_polars_evaluator_does_not_import_the_duckdb_engine() -> None:
    """Each engine's keeping is made for the evaluator's engine only: a Polars evaluator's
    process does not import DuckDB's engine and the SQL compiler (about 20 ms of its start)."""
    import subprocess
    import sys

    code = (
        "import sys, polars as pl, rankwise as rw\n"
        "q = pl.DataFrame({'query_id': ['q1'], 'doc_id': ['a'], 'relevance': [1]})\n"
        "r = pl.DataFrame({'query_id': ['q1'], 'doc_id': ['a'], 'score': [1.0]})\n"
        "assert rw.Evaluator(q, ['AP'])(r)['AP'].to_list() == [1.0]\n"
        "print('rankwise._duckdb.engine' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
