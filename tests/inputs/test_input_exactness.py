"""Input exactness: the same judgments and run give trec_eval's numbers whatever form they come
in (integer ids in Parquet, TREC text, CSV text ids, Categorical, pandas), and values that have
no meaning (infinite relevance) are refused on every engine.

The expected numbers come from trec_eval's C code (pytrec-eval-terrier, fed the ids as text, as
trec_eval reads them) or are written out by hand from trec_eval's rules, never from the other
engine.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import polars as pl
import pytest
import pytrec_eval
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import rankwise as rw
from tests.conftest import ENGINES, Evaluate, run_on
from tests.metrics.test_reference import PAIRS, TREC_MEASURES
from tests.strategies import judged_queries
from tests.tiers import examples

INT_QUERIES = [1, 2, 10, 301]
# ids whose text order differs from their numeric order, a negative one ('-' sorts before the
# digits) and one past 2**32
INT_DOCS = [5, 48, 100, 7, 70, 1000, 9, 10, 0, -3, 123456789012, 4]


@st.composite
def int_cases(draw: st.DrawFn) -> tuple[dict[int, dict[int, float]], dict[int, dict[int, int]]]:
    """Random runs with integer ids and many tied scores, and non-negative judgments."""
    tie_scores = st.sampled_from([0.0, 1.0, 1.0, 2.5])
    run = {
        q: draw(st.dictionaries(st.sampled_from(INT_DOCS), tie_scores, min_size=1, max_size=len(INT_DOCS)))
        for q in draw(st.lists(st.sampled_from(INT_QUERIES), min_size=1, max_size=3, unique=True))
    }
    qrels = {
        q: draw(st.dictionaries(st.sampled_from(INT_DOCS), st.integers(0, 3), min_size=1, max_size=len(INT_DOCS)))
        for q in draw(judged_queries(list(run), INT_QUERIES, max_size=3))
    }
    return run, qrels


def _frames(
    run: dict[int, dict[int, float]], qrels: dict[int, dict[int, int]]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    r = pl.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
        schema={"query_id": pl.Int64, "doc_id": pl.Int64, "score": pl.Float64}, orient="row",
    )
    j = pl.DataFrame(
        [(q, d, v) for q, docs in qrels.items() for d, v in docs.items()],
        schema={"query_id": pl.Int64, "doc_id": pl.Int64, "relevance": pl.Int64}, orient="row",
    )
    return r, j


def _write_trec(run: pl.DataFrame, qrels: pl.DataFrame, folder: Path) -> tuple[Path, Path]:
    run_path, qrels_path = folder / "run.trec", folder / "qrels.trec"
    run_path.write_text("".join(
        f"{q} Q0 {d} {i} {s!r} tag\n" for i, (q, d, s) in enumerate(run.iter_rows(), start=1)
    ))
    qrels_path.write_text("".join(f"{q} 0 {d} {v}\n" for q, d, v in qrels.iter_rows()))
    return run_path, qrels_path


def _trec_eval(run: pl.DataFrame, qrels: pl.DataFrame) -> dict[str, dict[str, float]]:
    as_text_run: dict[str, dict[str, float]] = {}
    for q, d, s in run.iter_rows():
        as_text_run.setdefault(str(q), {})[str(d)] = s
    as_text_qrels: dict[str, dict[str, int]] = {}
    for q, d, v in qrels.iter_rows():
        as_text_qrels.setdefault(str(q), {})[str(d)] = v
    evaluator = pytrec_eval.RelevanceEvaluator(as_text_qrels, TREC_MEASURES)
    return evaluator.evaluate(as_text_run)  # type: ignore[no-any-return]


def _assert_trec_eval(got: pl.DataFrame, expected: dict[str, dict[str, float]]) -> None:
    assert sorted(str(q) for q in got["query_id"].to_list()) == sorted(expected)
    for row in got.iter_rows(named=True):
        ref = expected[str(row["query_id"])]
        for metric, (name, transform) in PAIRS.items():
            want, value = ref[name], row[metric]
            if transform == "exp":
                want, value = math.exp(want), max(value, 1e-5)
            assert abs(value - want) <= 1e-9, (metric, row["query_id"], value, want)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=int_cases())
@example(case=({1: {5: 1.0, 48: 1.0, 100: 1.0}}, {1: {5: 1, 100: 2}}))
def test_integer_ids_in_parquet_and_trec_text_equal_trec_eval(
    engine: str, case: tuple[dict[int, dict[int, float]], dict[int, dict[int, int]]]
) -> None:
    run, qrels = _frames(*case)
    expected = _trec_eval(run, qrels)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        run.write_parquet(folder / "run.parquet")
        qrels.write_parquet(folder / "qrels.parquet")
        run_trec, qrels_trec = _write_trec(run, qrels, folder)
        from_parquet = rw.evaluate(folder / "qrels.parquet", folder / "run.parquet", list(PAIRS), engine=engine)
        from_text = rw.evaluate(qrels_trec, run_trec, list(PAIRS), engine=engine)
    assert from_parquet.schema["query_id"] == pl.Int64
    _assert_trec_eval(from_parquet, expected)
    _assert_trec_eval(from_text, expected)


def test_integer_ties_by_text_hand_checked(evaluate: Evaluate) -> None:
    # all three tied: trec_eval's strcmp order, descending, is "5" > "48" > "100"
    run = pl.DataFrame({"query_id": [1, 1, 1], "doc_id": [100, 48, 5], "score": [1.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query_id": [1, 1], "doc_id": [48, 100], "relevance": [1, 1]})
    got = evaluate(qrels, run, ["RR", "P@1", "AP"])
    assert got.row(0) == (1, 0.5, 0.0, pytest.approx((1 / 2 + 2 / 3) / 2))
    # the numeric order, by its own name: 100 > 48 > 5
    numeric = evaluate(qrels, run, ["RR", "P@1", "AP"], ties="doc_desc_numeric")
    assert numeric.row(0) == (1, 1.0, 1.0, 1.0)


def test_negative_and_large_integer_ids_order_as_text(evaluate: Evaluate) -> None:
    # as text, descending: "9" > "123456789012" > "-3" ('-' sorts before the digits)
    run = pl.DataFrame({"query_id": [7, 7, 7], "doc_id": [-3, 123456789012, 9], "score": [0.0, 0.0, 0.0]})
    qrels = pl.DataFrame({"query_id": [7], "doc_id": [-3], "relevance": [1]})
    assert evaluate(qrels, run, ["RR"])["RR"].to_list() == [pytest.approx(1 / 3)]


# -- TREC text, as trec_eval splits it ---------------------------------------------------------


@pytest.mark.parametrize("inside", ["\u00a0", "\u2028", "\u0085", "\u3000", "\u000b", "\u000c", "\u001c"])
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_unicode_whitespace_is_part_of_the_id(tmp_path: Path, engine: str, inside: str) -> None:
    # trec_eval splits on ASCII space and tab only: "a<X>b" is one id, different from "a" and "b"
    (tmp_path / "run.trec").write_text(
        f"q1 Q0 a{inside}b 1 3 t\nq1 Q0 a 2 2 t\nq1 Q0 b 3 1 t\n", encoding="utf-8"
    )
    (tmp_path / "qrels.trec").write_text(f"q1 0 a{inside}b 1\nq1 0 b 0\n", encoding="utf-8")
    got = rw.evaluate(tmp_path / "qrels.trec", tmp_path / "run.trec", ["NumRet", "NumRel", "RR", "NumRelRet"], engine=engine)
    assert got.row(0) == ("q1", 3.0, 1.0, 1.0, 1.0)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_crlf_lines_and_tabs(tmp_path: Path, engine: str) -> None:
    (tmp_path / "run.trec").write_bytes(b"q1\tQ0\td1\t1\t2.0\tt\r\nq1 Q0  d2 2 1.0 t\r\n\r\n")
    (tmp_path / "qrels.trec").write_bytes(b"q1 0 d2 1\r\n")
    got = rw.evaluate(tmp_path / "qrels.trec", tmp_path / "run.trec", ["NumRet", "RR"], engine=engine)
    assert got.row(0) == ("q1", 2.0, 0.5)


def test_invalid_utf8_is_refused_naming_the_line(tmp_path: Path) -> None:
    # two different Latin-1 ids: decoding with replacement would merge them into one
    (tmp_path / "run.trec").write_bytes(b"q1 Q0 d1 1 3 t\nq1 Q0 caf\xe9 2 2 t\nq1 Q0 caf\xe8 3 1 t\n")
    (tmp_path / "qrels.trec").write_bytes(b"q1 0 d1 1\n")
    for engine in ("polars", "duckdb"):
        with pytest.raises(rw.InputReadError, match=r"run\.trec', line 2: not valid UTF-8"):
            rw.evaluate(tmp_path / "qrels.trec", tmp_path / "run.trec", ["RR"], engine=engine)


def test_bad_trec_value_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "run.trec").write_text("q1 Q0 d1 1 3 t\nq1 Q0 d2 2 high t\n")
    (tmp_path / "qrels.trec").write_text("q1 0 d1 1\n")
    with pytest.raises(rw.InputReadError, match=r"line 2: the score \(5th\) field .* found 'high'"):
        rw.evaluate(tmp_path / "qrels.trec", tmp_path / "run.trec", ["RR"])


# -- CSV ids keep their text -------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("sep, ext", [(",", "csv"), ("\t", "tsv")])
def test_csv_ids_are_text(tmp_path: Path, engine: str, sep: str, ext: str) -> None:
    (tmp_path / f"run.{ext}").write_text(
        sep.join(["query_id", "doc_id", "score"]) + "\n"
        + "".join(sep.join(r) + "\n" for r in [["0012", "0005", "2"], ["0012", "5", "1"]])
    )
    qrels = pl.DataFrame({"query_id": ["0012"], "doc_id": ["0005"], "relevance": [1]})
    got = rw.evaluate(qrels, tmp_path / f"run.{ext}", ["RR", "NumRelRet"], engine=engine)
    assert got.row(0) == ("0012", 1.0, 1.0)
    # the same ids as integers do not match "0005": they are different ids, and inputs that
    # share no query are an error that says they would meet without the leading zeros
    int_qrels = pl.DataFrame({"query_id": [12], "doc_id": [5], "relevance": [1]})
    with pytest.raises(rw.InvalidValueError, match=r"\('0012'\) and the qrels' \(12\) have none in common .*1 of the run's would match after .*dropping leading zeros"):
        rw.evaluate(int_qrels, tmp_path / f"run.{ext}", ["RR"], engine=engine)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_csv_types_changing_after_the_first_rows(tmp_path: Path, engine: str) -> None:
    # 3000 rows of integer-looking ids and scores, then a text id and a fractional score
    rows = [f"q{i % 7},{i},{i % 5}" for i in range(3000)] + ["q1,doc-x,0.5"]
    (tmp_path / "run.csv").write_text("query_id,doc_id,score\n" + "\n".join(rows) + "\n")
    (tmp_path / "qrels.csv").write_text("query_id,doc_id,relevance\nq1,doc-x,1\nq1,1,0\n")
    with pytest.warns(rw.RankwiseWarning, match="6 run queries have no judgments"):
        got = rw.evaluate(tmp_path / "qrels.csv", tmp_path / "run.csv", ["NumRet", "NumRelRet"], engine=engine)
    assert got.row(0) == ("q1", 430.0, 1.0)  # 429 integer-looking ids, then doc-x


# -- values without a meaning -----------------------------------------------------------------


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan])
def test_non_finite_relevance_is_refused(evaluate: Evaluate, bad: float) -> None:
    run = pl.DataFrame({"query_id": ["a", "b"], "doc_id": ["x", "y"], "score": [1.0, 2.0]})
    qrels = pl.DataFrame({"query_id": ["a", "b"], "doc_id": ["x", "y"], "relevance": [1.0, bad]})
    what = "NaN" if math.isnan(bad) else "infinite"
    with pytest.raises(rw.InvalidValueError, match=rf"column 'relevance' holds 1 {what} value\(s\) \(e\.g\. in query 'b'\)"):
        evaluate(qrels, run, ["nDCG"])


def test_infinite_scores_rank_first_and_last(evaluate: Evaluate) -> None:
    run = pl.DataFrame({"query_id": ["a"] * 3, "doc_id": ["x", "y", "z"], "score": [math.inf, 0.0, -math.inf]})
    qrels = pl.DataFrame({"query_id": ["a", "a"], "doc_id": ["z", "y"], "relevance": [1, 1]})
    assert evaluate(qrels, run, ["RR", "AP"]).row(0) == ("a", 0.5, pytest.approx((1 / 2 + 2 / 3) / 2))


@pytest.mark.parametrize("engine", ENGINES)
def test_categorical_ids_are_accepted(engine: str) -> None:
    run = pl.DataFrame({"query_id": ["a", "a", "a"], "doc_id": ["5", "48", "100"], "score": [1.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["a"], "doc_id": ["48"], "relevance": [1]})
    cat = run.with_columns(pl.col("query_id", "doc_id").cast(pl.Categorical))
    got = run_on(engine, qrels.with_columns(pl.col("doc_id").cast(pl.Categorical)), cat, ["RR"])
    assert got["RR"].to_list() == [0.5]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_pandas_column_of_mixed_types(engine: str) -> None:
    import pandas as pd

    run = pd.DataFrame({"query_id": ["a", "a"], "doc_id": ["x", 3], "score": [1.0, 0.5]})
    qrels = pd.DataFrame({"query_id": ["a"], "doc_id": ["x"], "relevance": [1]})
    with pytest.raises(rw.ColumnTypeError, match=r"pandas column 'doc_id' holds values of several types \(int, str\)"):
        rw.evaluate(qrels, run, ["RR"], engine=engine)


def test_column_names_in_any_alphabet(evaluate: Evaluate) -> None:
    run = pl.DataFrame({"anfrage": ["q"] * 2, "dokumént": ["a", "b"], "note": [1.0, 2.0]})
    qrels = pl.DataFrame({"anfrage": ["q"], "dokumént": ["a"], "urteil": [1]})
    got = evaluate(qrels, run, ["RR"], query_id="anfrage", doc_id="dokumént", score="note", relevance="urteil")
    assert got.rows() == [("q", 0.5)]
