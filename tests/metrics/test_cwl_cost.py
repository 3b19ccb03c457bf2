"""Document costs (``cost=``, the run's cost column) in the C/W/L measures, against cwl_eval
itself: its ``-c`` cost file maps each element type (the run's second field) to a cost; here
every document is its own element type, so that it has the run's cost. cwl_eval pads the
ranking with documents of cost 1 (its default max_cost and min_cost). Per query to 1e-9, on
random runs with ties, unjudged documents and costs of every size (0 too). U-measure and TBG
read the costs in their user models too (a document's position is the text read before it), and
BPM (its budget k is a cost), and IFTRate and IFTGoalRate (their rate of gain G_i / K_i, K the
running cost: cwl_eval gives NaN where a query's first document costs 0 and gains 0, which
rankwise refuses); bad costs are errors on every path.
"""

from __future__ import annotations

import io
import logging
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankwise as rw
from tests.conftest import ENGINES, run_on, run_on_spark
from tests.metrics.test_cwl import (
    MEASURES,
    RESIDUALS,
    VALUES,
    Measure,
    _doc_asc_ranking,
    _Gains,
    with_value,
)
from tests.tiers import examples

pytest.importorskip("cwl.ruler.cwl_ruler")
from cwl.ruler.ranking import RankingMaker

logging.getLogger("cwl").disabled = True

RATES = [m for m in MEASURES if m[0].partition("(")[0].partition("@")[0] in ("IFTRate", "IFTGoalRate")]
"""The measures whose continuation reads the running cost (IFT's rate of gain G_i / K_i): cwl_eval
gives NaN where a query's first document costs 0 and gains 0, which rankwise refuses."""
COSTED = [m for m in MEASURES if m not in RATES]
"""The other C/W/L measures: every value exact on any costs."""
ALL_VALUES = (*VALUES, *RESIDUALS)


def cwl_eval_costed(
    measure: Any, qrels: list[tuple[Any, Any, float]], ranking: dict[Any, list[tuple[Any, float]]],
    lo: float, hi: float, depth: int,
) -> dict[str, list[float]]:
    """cwl_eval's values and residuals per query of ``ranking`` (query → (doc, cost) in rank
    order), each document its own element type, its cost that type's in the cost table."""
    gains = _Gains(qrels, lo, hi)
    measure.residuals = True
    out = {}
    for q, docs in ranking.items():
        costs = {f"{q}|{d}": c for d, c in docs}
        maker = RankingMaker(str(q), gains, costs, max_gain=1.0, max_cost=1.0, min_cost=1.0, max_n=depth)
        for d, _ in docs:
            maker.add(str(d), f"{q}|{d}")
        measure.measure(maker.get_ranking())
        out[str(q)] = [float(v) for v in (
            *measure.get_scores(),
            measure.residual_expected_utility, measure.residual_expected_total_utility,
            measure.residual_expected_cost, measure.residual_expected_total_cost, measure.residual_expected_items,
        )]
    return out


def _costed_ranking(run: pl.DataFrame) -> dict[Any, list[tuple[Any, float]]]:
    costs = {(q, d): c for q, d, _, c in run.iter_rows()}
    return {q: [(d, costs[(q, d)]) for d in docs] for q, docs in _doc_asc_ranking(run.drop("cost")).items()}


def check_costed(got: pl.DataFrame, measures: list[Measure], qrels: list[tuple[Any, Any, float]],
                 run: pl.DataFrame) -> None:
    ranking = _costed_ranking(run)
    judged = {str(q) for q, _, _ in qrels}
    rows = {str(r["query_id"]): r for r in got.iter_rows(named=True)}
    assert set(rows) == {str(q) for q in ranking if str(q) in judged}
    for name, make, lo, hi, depth in measures:
        expected = cwl_eval_costed(make(), qrels, ranking, lo, hi, depth)
        for q, row in rows.items():
            for value, want in zip(ALL_VALUES, expected[q], strict=True):
                label = with_value(name, value)
                assert row[label] == pytest.approx(want, abs=1e-9, rel=1e-12), (label, q, row[label], want)


@st.composite
def costed_case(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Random runs with ties (few scores), unjudged documents, grades beyond max_rel and costs
    0 to 20 (integer and fractional), with a judged document left unretrieved in every query."""
    n_queries = draw(st.integers(1, 4))
    run_rows, qrels_rows = [], []
    for q in range(n_queries):
        for d in range(draw(st.integers(1, 12))):
            cost = draw(st.sampled_from([0.0, 0.25, 1.0, 1.0, 2.0, 3.5, 7.0, 20.0]))
            run_rows.append((f"q{q}", f"d{d}", float(draw(st.integers(0, 3))), cost))
            if draw(st.integers(0, 3)) == 0:
                continue  # unjudged
            qrels_rows.append((f"q{q}", f"d{d}", draw(st.sampled_from([-1, 0, 0, 1, 2, 3, 4]))))
        qrels_rows.append((f"q{q}", "unretrieved", draw(st.sampled_from([0, 1, 3]))))
    run = pl.DataFrame(
        run_rows, schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64, "cost": pl.Float64},
        orient="row",
    )
    qrels = pl.DataFrame(
        qrels_rows, schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64}, orient="row"
    )
    return run, qrels


def _names(measures: list[Measure]) -> list[str]:
    return [with_value(name, v) for name, *_ in measures for v in ALL_VALUES]


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=costed_case())
def test_costs_equal_cwl_eval(engine: str, case: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    run, qrels = case
    got = run_on(engine, qrels, run, _names(COSTED), ties="doc_asc", cost="cost")
    check_costed(got, COSTED, list(qrels.iter_rows()), run)


UNDEFINED_RATE = r"rate of gain G_i / K_i of IFTRate and IFTGoalRate is undefined"


def _rate_undefined(qrels: list[tuple[Any, Any, float]], run: pl.DataFrame) -> bool:
    """Whether cwl_eval's IFT rate gives NaN on some query (its first document costs 0 and gains
    0: 0 / 0), which rankwise refuses."""
    ranking = _costed_ranking(run)
    judged = {str(q) for q, _, _ in qrels}
    with np.errstate(invalid="ignore", divide="ignore"):
        for _, make, lo, hi, depth in RATES:
            for q, values in cwl_eval_costed(make(), qrels, ranking, lo, hi, depth).items():
                if q in judged and any(math.isnan(v) for v in values):
                    return True
    return False


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=costed_case())
def test_rates_with_costs_equal_cwl_eval(engine: str, case: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    """IFTRate and IFTGoalRate read the running cost K_i in their rate G_i / K_i (ties, unjudged
    documents, queries with nothing relevant, zero costs: a first document of cost 0 and gain >
    0 makes the rate +inf and C2 = 1); where cwl_eval gives NaN, rankwise raises."""
    run, qrels = case
    judgments = list(qrels.iter_rows())
    if _rate_undefined(judgments, run):
        with pytest.raises(rw.InvalidValueError, match=UNDEFINED_RATE):
            run_on(engine, qrels, run, _names(RATES), ties="doc_asc", cost="cost")
        return
    got = run_on(engine, qrels, run, _names(RATES), ties="doc_asc", cost="cost")
    with np.errstate(invalid="ignore", divide="ignore"):
        check_costed(got, RATES, judgments, run)


def _zero_first() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Query a's first document costs 0 and is relevant (rate +inf at rank 1), then a zero cost
    again; query b's first two cost 0, the second relevant; query c has nothing relevant and its
    first document costs 1, then zero costs."""
    run = pl.DataFrame({
        "query_id": ["a", "a", "a", "b", "b", "b", "c", "c"],
        "doc_id": ["x", "y", "z", "x", "y", "z", "x", "y"],
        "score": [3.0, 2.0, 1.0, 3.0, 3.0, 1.0, 2.0, 1.0],
        "cost": [0.0, 0.0, 2.0, 0.0, 0.0, 0.5, 1.0, 0.0],
    })
    qrels = pl.DataFrame({
        "query_id": ["a", "a", "b", "b", "c"], "doc_id": ["x", "z", "x", "y", "x"], "relevance": [1, 1, 2, 0, 0],
    })
    return run, qrels


@pytest.mark.parametrize("engine", ENGINES)
def test_rates_zero_costs(engine: str) -> None:
    """A zero running cost with gain > 0: cwl_eval's rate is +inf, C2 = 1, and rankwise's too.
    Query b's tie (x, y at score 3) puts x first (doc_asc): x is relevant."""
    run, qrels = _zero_first()
    judgments = list(qrels.iter_rows())
    assert not _rate_undefined(judgments, run)
    got = run_on(engine, qrels, run, _names(RATES), ties="doc_asc", cost="cost")
    check_costed(got, RATES, judgments, run)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("metric", ["IFTRate", "IFTGoalRate(value='ResETC')", "IFTRate(R2=0,value='EC')"])
def test_rate_undefined_is_an_error(engine: str, metric: str) -> None:
    """A first document of cost 0 and gain 0 (unjudged, or judged not relevant): cwl_eval's rate
    is 0 / 0, NaN in every value: an error naming the cost column. With R2 = 0, a zero cost at
    rank 1 is enough (inf · 0): rank 1 of query a gains 1 here. Without a cost column: defined."""
    run, qrels = _zero_first()
    if "R2=0" not in metric:
        run = run.with_columns(pl.when(pl.col("doc_id") == "x").then(pl.lit("w")).otherwise(pl.col("doc_id")).alias("doc_id"))
    with pytest.raises(rw.InvalidValueError, match=UNDEFINED_RATE + r".*cost column"):
        run_on(engine, qrels, run, [metric], cost="cost")
    got = run_on(engine, qrels, run, [metric])
    assert all(math.isfinite(v) for v in got[metric])


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
def test_costs_equal_cwl_eval_on_spark(spark: Any) -> None:
    run, qrels = _fixed_case()
    got = run_on_spark(spark, qrels, run, _names(MEASURES), ties="doc_asc", cost="cost")
    check_costed(got, MEASURES, list(qrels.iter_rows()), run)


def _fixed_case() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Two queries with ties, unjudged documents, a zero cost and costs above 1."""
    run = pl.DataFrame({
        "query_id": ["a"] * 6 + ["b"] * 4,
        "doc_id": ["d1", "d2", "d3", "d4", "d5", "d6", "e1", "e2", "e3", "e4"],
        "score": [5.0, 4.0, 4.0, 3.0, 2.0, 1.0, 2.0, 2.0, 1.0, 0.0],
        "cost": [2.0, 0.5, 0.0, 3.0, 1.0, 7.5, 1.0, 4.0, 0.25, 2.0],
    })
    qrels = pl.DataFrame({
        "query_id": ["a", "a", "a", "a", "b", "b", "b"],
        "doc_id": ["d1", "d3", "d4", "zz", "e2", "e4", "zz"],
        "relevance": [1, 2, 0, 1, 3, 1, 0],
    })
    return run, qrels


@pytest.mark.parametrize("engine", ENGINES)
def test_no_cost_column_is_cost_one(engine: str) -> None:
    """A cost column of ones gives the values without one (cwl_eval without -c)."""
    run, qrels = _fixed_case()
    names = _names(MEASURES[:6])
    ones = run_on(engine, qrels, run.with_columns(pl.lit(1.0).alias("cost")), names, cost="cost")
    none = run_on(engine, qrels, run.drop("cost"), names)
    _close(ones, none)


def _close(a: pl.DataFrame, b: pl.DataFrame) -> None:
    for ra, rb in zip(a.iter_rows(named=True), b.iter_rows(named=True), strict=True):
        for k, v in ra.items():
            assert v == (pytest.approx(rb[k], abs=1e-12) if isinstance(v, float) else rb[k]), k


@pytest.mark.parametrize("engine", ENGINES)
def test_hand_checked(engine: str) -> None:
    """SDCG@2 (depth 3) of [a: cost 2, b: cost 4], a relevant: P = (1, 1/log2 3, 0): EC = Σ P c /
    ED; the padded rank 3 costs 1 and has P 0; ETC = Σ P c − P_4 · C with P_4 = 0. NERR8@3 of
    [a: cost 5, relevant]: the user stops at a, EC = ETC = 5. A query missing from the run: 0."""
    run = pl.DataFrame({"query_id": ["q", "q", "r"], "doc_id": ["a", "b", "a"], "score": [2.0, 1.0, 1.0],
                        "cost": [2.0, 4.0, 5.0]})
    qrels = pl.DataFrame({"query_id": ["q", "r", "m"], "doc_id": ["a", "a", "x"], "relevance": [1, 1, 1]})
    names = ["SDCG(depth=3,value='EC')@2", "SDCG(depth=3,value='ETC')@2",
             "NERR8(value='EC')@3", "NERR8(value='ETC')@3", "NERR8(value='ResETC')@3"]
    got = {r["query_id"]: r for r in run_on(engine, qrels, run, names, cost="cost", missing="zero").iter_rows(named=True)}
    d2 = 1 / __import__("math").log2(3)
    assert got["q"][names[0]] == pytest.approx((2 + 4 * d2) / (1 + d2), abs=1e-15)
    assert got["q"][names[1]] == pytest.approx(2 + 4 * d2, abs=1e-15)
    assert got["r"][names[2]] == pytest.approx(5.0, abs=1e-15)
    assert got["r"][names[3]] == pytest.approx(5.0, abs=1e-15)
    assert got["r"][names[4]] == pytest.approx(0.0, abs=1e-15)
    assert [got["m"][n] for n in names] == [0.0] * len(names)


# -- cwl_eval's own command line: a cost file and element types, as a user runs it ---------------


def test_cwl_eval_command_line(tmp_path: Path) -> None:
    run, qrels = _fixed_case()
    costs = {f"T{i}": c for i, c in enumerate(sorted(set(run["cost"].to_list())))}
    type_of = {c: t for t, c in costs.items()}
    ranking = _costed_ranking(run)
    lines = [f"{q} {type_of[c]} {d} {i + 1} {100 - i} x" for q, docs in ranking.items() for i, (d, c) in enumerate(docs)]
    (tmp_path / "run").write_text("\n".join(lines) + "\n")
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {max(r, 0) / 4}\n" for q, d, r in qrels.iter_rows()))
    (tmp_path / "costs").write_text("".join(f"{t} {c}\n" for t, c in costs.items()))
    (tmp_path / "metrics").write_text("INSTCWLMetric(1.0)\nNDCGCWLMetric(3)\nNERReq10CWLMetric(0.8)\n")
    import cwl

    # cwl_eval imports its packages as top-level ones (``ruler``, ``seeker``): run from its folder
    folder = Path(cwl.__file__).parent
    done = subprocess.run(
        [sys.executable, str(folder / "cwl_eval.py"), str(tmp_path / "qrels"), str(tmp_path / "run"),
         "-c", str(tmp_path / "costs"), "-m", str(tmp_path / "metrics"), "-r"],
        capture_output=True, text=True, check=True, env={"PYTHONPATH": str(folder)}, cwd=tmp_path,  # it writes cwl.log
    )
    expected = {}
    for line in done.stdout.splitlines():
        q, name, *values = line.split("\t")
        expected[(q, name.split("-")[0].strip())] = [float(v) for v in values]
    names = {"INST": "INST(max_rel=4)", "NDCG": "SDCG(max_rel=4)@3", "NERR": "NERR10(p=0.8,max_rel=4)"}
    got = run_on("duckdb", qrels, run, [with_value(n, v) for n in names.values() for v in ALL_VALUES],
                 ties="doc_asc", cost="cost")
    assert {q for q, _ in expected} == set(got["query_id"])
    for row in got.iter_rows(named=True):
        for prefix, name in names.items():
            (want,) = [v for (q, n), v in expected.items() if q == row["query_id"] and n.startswith(prefix)]
            for value, w in zip(ALL_VALUES, want, strict=True):
                assert row[with_value(name, value)] == pytest.approx(w, abs=1e-4), (name, value)


# -- errors, on every path -------------------------------------------------------------------------


def test_rate_undefined_fails_the_sql_statement() -> None:
    import duckdb

    run, qrels = _zero_first()
    con = rw.register(duckdb.connect())
    con.register("run", run.with_columns(pl.lit(0.0).alias("cost")))
    con.register("qrels", qrels.with_columns(pl.lit(0).alias("relevance")))
    with pytest.raises(duckdb.Error, match="rankwise: the " + UNDEFINED_RATE):
        con.sql(rw.to_sql(["IFTGoalRate"], cost="cost")).fetchall()


BAD_COSTS = {"NULL": None, "NaN": float("nan"), "negative": -1.0, "infinite": float("inf")}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("bad", list(BAD_COSTS))
def test_bad_costs_are_errors(engine: str, bad: str) -> None:
    run, qrels = _fixed_case()
    run = run.with_columns(pl.when(pl.col("doc_id") == "e3").then(BAD_COSTS[bad]).otherwise(pl.col("cost")).alias("c"))
    with pytest.raises(rw.InvalidValueError, match=r"run's column 'c' holds 1 NULL, NaN, negative or infinite cost value\(s\) \(e\.g\. in query 'b'\)"):
        run_on(engine, qrels, run, ["INST(value='EC')"], cost="c")


@pytest.mark.parametrize("engine", ENGINES)
def test_cost_column_missing_or_not_numeric(engine: str) -> None:
    run, qrels = _fixed_case()
    with pytest.raises(rw.MissingColumnError, match="no column 'costs'"):
        run_on(engine, qrels, run, ["INST(value='EC')"], cost="costs")
    with pytest.raises(rw.ColumnTypeError, match="cost column 'cost' must be numeric"):
        run_on(engine, qrels, run.with_columns(pl.col("cost").cast(pl.String)), ["INST(value='EC')"], cost="cost")


@pytest.mark.parametrize("bad", list(BAD_COSTS))
def test_bad_costs_fail_the_sql_statement(bad: str) -> None:
    import duckdb

    run, qrels = _fixed_case()
    run = run.with_columns(pl.when(pl.col("doc_id") == "e3").then(BAD_COSTS[bad]).otherwise(pl.col("cost")).alias("cost"))
    con = rw.register(duckdb.connect())
    con.register("run", run)
    con.register("qrels", qrels)
    with pytest.raises(duckdb.Error, match="rankwise: the run's column 'cost' holds NULL, NaN, negative or infinite"):
        con.sql(rw.to_sql(["INST(value='EC')"], cost="cost")).fetchall()
    got = pl.from_arrow(con.sql(rw.to_sql(["INST(value='EC')"], cost="cost", check=False)).arrow())
    assert isinstance(got, pl.DataFrame)


def test_to_sql_equals_evaluate() -> None:
    import duckdb

    run, qrels = _fixed_case()
    names = _names(COSTED[:8])
    con = rw.register(duckdb.connect())
    con.register("run", run)
    con.register("qrels", qrels)
    got = pl.from_arrow(con.sql(rw.to_sql(names, cost="cost", ties="doc_asc")).arrow())
    assert isinstance(got, pl.DataFrame)
    _close(got, rw.evaluate(qrels, run, names, cost="cost", ties="doc_asc"))


def test_bad_costs_on_spark(spark: Any) -> None:
    run, qrels = _fixed_case()
    bad = run.with_columns(pl.when(pl.col("doc_id") == "e3").then(-2.0).otherwise(pl.col("cost")).alias("cost"))
    with pytest.raises(Exception, match="holds NULL, NaN, negative or infinite cost values"):
        run_on_spark(spark, qrels, bad, ["INST(value='EC')"], cost="cost")
    with pytest.raises(rw.ColumnTypeError, match="cost column 'cost' must be numeric"):
        run_on_spark(spark, qrels, run.with_columns(pl.col("cost").cast(pl.String)), ["INST(value='EC')"], cost="cost")
    with pytest.raises(Exception, match=UNDEFINED_RATE):
        run_on_spark(spark, qrels.with_columns(pl.lit(0).alias("relevance")), run.with_columns(pl.lit(0.0).alias("cost")),
                     ["IFTRate"], cost="cost")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from rankwise.cli.commands import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=False)


def test_cli_cost_col(tmp_path: Path) -> None:
    run, qrels = _fixed_case()
    run.write_parquet(tmp_path / "run.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    names = ["INST(value='EC')", "SDCG(value='ETC')@3"]
    done = _cli("eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), "--cost-col", "-q",
                "--format", "csv", *[a for n in names for a in ("-m", n)])
    assert done.returncode == 0, done.stderr
    got = pl.read_csv(io.StringIO(done.stdout))
    want = rw.evaluate(qrels, run, names, cost="cost")
    for n in names:
        assert got.filter(pl.col("query_id") != "all")[n].to_list() == pytest.approx(want[n].to_list(), abs=1e-4)
    bad = run.with_columns(pl.when(pl.col("doc_id") == "e3").then(float("nan")).otherwise(pl.col("cost")).alias("cost"))
    bad.write_parquet(tmp_path / "bad.parquet")
    done = _cli("eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "bad.parquet"), "--cost-col", "-m", names[0])
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "column 'cost' holds 1 NULL, NaN, negative or infinite cost value(s)" in lines[0]


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
def test_cli_compare_cost_col(tmp_path: Path) -> None:
    """rankwise compare --cost-col: each run's costs, as rw.comparison(cost=...) computes them."""
    run, qrels = _fixed_case()
    other = run.with_columns(pl.col("cost") * 2 + 0.5)
    run.write_parquet(tmp_path / "base.parquet")
    other.write_parquet(tmp_path / "other.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    names = ["INST(value='EC')", "IFTRate(value='ETC')"]
    args = ["compare", str(tmp_path / "qrels.parquet"), str(tmp_path / "base.parquet"), str(tmp_path / "other.parquet"),
            "--format", "csv", "--resamples", "100", "--quiet", *[a for n in names for a in ("-m", n)]]
    done = _cli(*args, "--cost-col")
    assert done.returncode == 0, done.stderr
    got = pl.read_csv(io.StringIO(done.stdout))
    for n in names:
        row = got.filter(pl.col("metric") == n)
        assert row["baseline_mean"][0] == pytest.approx(rw.evaluate(run=run, qrels=qrels, metrics=[n], cost="cost")[n].mean(),
                                                        abs=1e-9)
        assert row["mean"][0] == pytest.approx(rw.evaluate(run=other, qrels=qrels, metrics=[n], cost="cost")[n].mean(),
                                               abs=1e-9)
    without = pl.read_csv(io.StringIO(_cli(*args).stdout))
    assert without.filter(pl.col("metric") == names[0])["mean"][0] == pytest.approx(1.0)  # EC: every cost 1
    done = _cli(*args, "--cost-col", "price")
    assert done.returncode == 2 and "no column 'price'" in done.stderr


# -- the conventions and the other paths carry the cost along -----------------------------------


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
def test_max_rank_carries_the_costs(engine: str) -> None:
    """max_rank cuts the ranking: the values of the run so cut, costs and all (and so
    cwl_eval's, by the tests above)."""
    run, qrels = _fixed_case()
    names = _names(COSTED[:9])
    top = run.sort("query_id", "score", "doc_id", descending=[False, True, False]).group_by(
        "query_id", maintain_order=True).head(3)
    _close(run_on(engine, qrels, run, names, cost="cost", max_rank=3, ties="doc_asc"),
           run_on(engine, qrels, top, names, cost="cost", ties="doc_asc"))


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_segments_carry_the_costs(engine: str) -> None:
    run, qrels = _fixed_case()
    names = ["INST(value='EC')", "NERR10(value='ETC')"]
    arms = pl.concat([run.with_columns(pl.lit("A").alias("arm")),
                      run.with_columns(pl.lit("B").alias("arm"), pl.col("cost") * 2)])
    got = rw.evaluate(qrels, arms, names, cost="cost", by="arm", engine=engine)
    for arm, factor in (("A", 1.0), ("B", 2.0)):
        want = rw.evaluate(qrels, run.with_columns(pl.col("cost") * factor), names, cost="cost")
        _close(got.filter(pl.col("arm") == arm).drop("arm"), want)


def test_query_chunks_and_explain_carry_the_costs() -> None:
    run, qrels = _fixed_case()
    names = _names(COSTED[:4])
    _close(rw.evaluate(qrels, run, names, cost="cost", query_chunks=2), rw.evaluate(qrels, run, names, cost="cost"))
    value = rw.evaluate(qrels, run, ["INST(value='ETC')"], cost="cost").filter(pl.col("query_id") == "a")
    shown = rw.explain(qrels, run, "INST(value='ETC')", query="a", cost="cost")
    assert shown["value"][-1] == pytest.approx(value["INST(value='ETC')"][0], abs=1e-12)
    bad = run.with_columns(pl.when(pl.col("doc_id") == "d2").then(-1.0).otherwise(pl.col("cost")).alias("cost"))
    with pytest.raises(rw.InvalidValueError, match="cost value"):
        rw.explain(qrels, bad, "INST(value='ETC')", query="a", cost="cost")
    # U-measure, TBG, BPM and IFT's rate read the costs in their user models: explain's values
    # are evaluate's
    for name in ("TBG(H=3,value='EU')", "U(L=6,value='ETC')", "BPM(T=2,value='ED')@4", "IFTRate(value='ETU')",
                 "IFTGoalRate(value='EC')"):
        want = rw.evaluate(qrels, run, [name], cost="cost").filter(pl.col("query_id") == "a")[name][0]
        assert rw.explain(qrels, run, name, query="a", cost="cost")["value"][-1] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("metric", ["IFTRate(depth=6,value='EC')", "INST(depth=6,value='EC')", "U(L=5,depth=6,value='EC')"])
def test_explain_shows_each_ranks_cost(metric: str) -> None:
    """explain of a C/W/L measure with a cost column: each rank's cost beside its continuation,
    the run's; with depth the ranking's length (no padding) EC = Σ W_i c_i is the last value.
    Without a cost column there is no cost column."""
    run, qrels = _fixed_case()
    shown = rw.explain(run=run, qrels=qrels, metric=metric, query="a", cost="cost", ties="doc_asc")
    assert shown.columns[shown.columns.index("continuation") + 1] == "cost"
    costs = dict(zip(run["doc_id"], run["cost"], strict=True))
    assert shown["cost"].to_list() == [costs[d] for d in shown["doc_id"]]
    ec = (shown["weight"] * shown["cost"]).sum()
    assert ec == pytest.approx(shown["value"][-1], abs=1e-12)
    assert "cost" not in rw.explain(run=run, qrels=qrels, metric=metric, query="a").columns


def test_cli_explain_cost_col(tmp_path: Path) -> None:
    run, qrels = _fixed_case()
    run.write_parquet(tmp_path / "run.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    done = _cli("explain", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), "-m", "IFTGoalRate",
                "-q", "b", "--cost-col", "--format", "csv")
    assert done.returncode == 0, done.stderr
    got = pl.read_csv(io.StringIO(done.stdout))
    want = rw.explain(run=run, qrels=qrels, metric="IFTGoalRate", query="b", cost="cost")
    assert got["cost"].to_list() == want["cost"].to_list()
    assert got["value"][-1] == pytest.approx(want["value"][-1], abs=1e-9)


@pytest.mark.parametrize("engine", ENGINES)
def test_hand_checked_models_reading_costs(engine: str) -> None:
    """BPM(T=5)@3 of costs [2, 0.5, 1], nothing relevant: the running cost before ranks 1..4 is
    0, 2, 2.5, 3.5, so ranks 1-3 are read (ED = 3), EC = 3.5 / 3, ETC = 3.5. TBG(H=1, depth=3)
    of costs [1, 2]: P = 1, 2^-1 and, padded (cost above 3), 2^-3: ED = 1.625. U(L=4, depth=4)
    of costs [1, 2]: P = 1, 3/4, and the padded rank 3 (cost above 3) 1/4; rank 4 is the last, 0."""
    run = pl.DataFrame({"query_id": ["q", "q", "q", "r", "r"], "doc_id": ["a", "b", "c", "a", "b"],
                        "score": [3.0, 2.0, 1.0, 2.0, 1.0], "cost": [2.0, 0.5, 1.0, 1.0, 2.0]})
    qrels = pl.DataFrame({"query_id": ["q", "r"], "doc_id": ["z", "z"], "relevance": [1, 1]})
    names = ["BPM(T=5,value='ED')@3", "BPM(T=5,value='EC')@3", "BPM(T=5,value='ETC')@3",
             "TBG(H=1,depth=3,value='ED')", "U(L=4,depth=4,value='ED')"]
    got = {r["query_id"]: r for r in run_on(engine, qrels, run, names, cost="cost").iter_rows(named=True)}
    assert [got["q"][n] for n in names[:3]] == pytest.approx([3.0, 3.5 / 3, 3.5], abs=1e-15)
    assert got["r"][names[3]] == pytest.approx(1.625, abs=1e-15)
    assert got["r"][names[4]] == pytest.approx(2.0, abs=1e-15)
