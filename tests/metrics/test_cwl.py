"""The C/W/L user models against cwl_eval itself (PyPI ``cwl-eval``, run in-process: its
RankingMaker and metric classes, the ranking given in rankwise's order) and against
ir-measures' cwl_eval provider (for the names): per query to 1e-9, every one of cwl_eval's
five numbers (EU, ETU, EC, ETC, ED), on ir-measures' public test files and on random cases,
on every engine; plus golden values worked by hand for the edges.

cwl_eval reads gains in [0, 1]; ir-measures maps relevance to them as rankwise does
(negative relevance as 0, clipped to [min_rel, max_rel], scaled), which :class:`_Gains`
does here for cwl_eval's own classes.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ir_measures
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankwise as rw
from tests.conftest import ENGINES, run_on, run_on_spark
from tests.tiers import examples

cwl_metrics = pytest.importorskip("cwl.ruler.cwl_ruler")
from cwl.ruler.ranking import RankingMaker  # noqa: E402
from cwl.seeker.trec_qrel_handler import TrecQrelHandler  # noqa: E402

logging.getLogger("cwl").disabled = True

DATA = Path(__file__).parents[1] / "data"
VALUES = ("EU", "ETU", "EC", "ETC", "ED")
RESIDUALS = ("ResEU", "ResETU", "ResEC", "ResETC", "ResED")


class _Gains(TrecQrelHandler):  # type: ignore[misc]
    """cwl_eval's qrels handler holding gains mapped from relevance as ir-measures maps them."""

    def __init__(self, qrels: list[tuple[Any, Any, float]], lo: float, hi: float) -> None:
        super().__init__(None)
        for q, d, r in qrels:
            clipped = min(max(max(r, 0), lo), hi)
            self.put_value(str(q), str(d), (clipped - lo) / (hi - lo))


def cwl_eval_scores(
    measure: Any, qrels: list[tuple[Any, Any, float]], ranking: dict[Any, list[Any]],
    lo: float = 0.0, hi: float = 1.0, depth: int = 1000,
) -> dict[str, list[float]]:
    """cwl_eval's [EU, ETU, EC, ETC, ED] per query of ``ranking`` (query → docs in rank order)."""
    gains = _Gains(qrels, lo, hi)
    out = {}
    for q, docs in ranking.items():
        maker = RankingMaker(str(q), gains, None, max_gain=1.0, max_cost=1.0, min_cost=1.0, max_n=depth)
        for d in docs:
            maker.add(str(d), "_")
        measure.measure(maker.get_ranking())
        out[str(q)] = [float(v) for v in measure.get_scores()]
    return out


# (rankwise metric, its cwl_eval measure, min_rel, max_rel, depth)
Measure = tuple[str, Callable[[], Any], float, float, int]
M = cwl_metrics
MEASURES: list[Measure] = [
    ("INST", lambda: M.INSTCWLMetric(1.0), 0, 1, 1000),
    ("INST(T=0.5,max_rel=2)", lambda: M.INSTCWLMetric(0.5), 0, 2, 1000),  # C_1 = 0 after a full gain
    ("INST(T=3,max_rel=4,depth=9)", lambda: M.INSTCWLMetric(3.0), 0, 4, 9),
    ("INSQ", lambda: M.INSQCWLMetric(1.0), 0, 1, 1000),
    ("INSQ(T=2.5,max_rel=3)", lambda: M.INSQCWLMetric(2.5), 0, 3, 1000),
    ("INSQ(T=0.25,max_rel=4,depth=7)", lambda: M.INSQCWLMetric(0.25), 0, 4, 7),
    ("BPM(T=1)@20", lambda: M.BPMCWLMetric(1.0, 20), 0, 1, 1000),
    ("BPM(T=2,max_rel=2)@10", lambda: M.BPMCWLMetric(2.0, 10), 0, 2, 1000),
    ("BPM(T=1.5,max_rel=4,depth=5)@8", lambda: M.BPMCWLMetric(1.5, 8), 0, 4, 5),
    ("BPM(T=1,hb=1)@10", lambda: M.BPMDCWLMetric(1, 10, 1.0, 1.0, 0.5), 0, 1, 1000),
    ("BPM(T=2,hb=1,max_rel=4)@1000", lambda: M.BPMDCWLMetric(2, 1000, 1.0, 1.0, 0.5), 0, 4, 1000),
    ("BPM(T=3,hb=2,gain_med=0.25,max_rel=2)@50", lambda: M.BPMDCWLMetric(3, 50, 2.0, 1.0, 0.25), 0, 2, 1000),
    ("BPM(T=1,hb=0.5,gain_med=0,max_rel=4,depth=12)@20", lambda: M.BPMDCWLMetric(1, 20, 0.5, 7.0, 0.0), 0, 4, 12),
    ("SDCG@10", lambda: M.NDCGCWLMetric(10), 0, 1, 1000),
    ("SDCG(max_rel=4)@5", lambda: M.NDCGCWLMetric(5), 0, 4, 1000),
    ("SDCG(max_rel=3,depth=4)@6", lambda: M.NDCGCWLMetric(6), 0, 3, 4),
    ("NERR8@10", lambda: M.NERReq8CWLMetric(10), 0, 1, 1000),
    ("NERR8(max_rel=3)@4", lambda: M.NERReq8CWLMetric(4), 0, 3, 1000),
    ("NERR9@10", lambda: M.NERReq9CWLMetric(10), 0, 1, 1000),
    ("NERR9(max_rel=4,min_rel=-1)@6", lambda: M.NERReq9CWLMetric(6), -1, 4, 1000),
    ("NERR10", lambda: M.NERReq10CWLMetric(0.9), 0, 1, 1000),
    ("NERR10(p=0.5,max_rel=4)", lambda: M.NERReq10CWLMetric(0.5), 0, 4, 1000),
    ("NERR10(p=1,max_rel=2,depth=6)", lambda: M.NERReq10CWLMetric(1.0), 0, 2, 6),
    ("NERR11", lambda: M.NERReq11CWLMetric(1.0), 0, 1, 1000),
    ("NERR11(T=3,max_rel=4)", lambda: M.NERReq11CWLMetric(3.0), 0, 4, 1000),
    ("U", lambda: M.UMeasureCWLMetric(1000), 0, 1, 1000),
    ("U(L=5,max_rel=3)", lambda: M.UMeasureCWLMetric(5), 0, 3, 1000),
    ("U(L=3.5,max_rel=2,depth=6)", lambda: M.UMeasureCWLMetric(3.5), 0, 2, 6),
    ("TBG", lambda: M.TBGCWLMetric(224), 0, 1, 1000),
    ("TBG(H=3,max_rel=4)", lambda: M.TBGCWLMetric(3), 0, 4, 1000),
    ("TBG(H=50,max_rel=2,depth=9)", lambda: M.TBGCWLMetric(50), 0, 2, 9),
    # IFT: cwl_eval's README values are rankwise's defaults
    ("IFTGoal", lambda: M.IFTGoalCWLMetric(2.0, 0.9, 10), 0, 1, 1000),
    ("IFTGoal(T=1,b1=0.5,R1=1,max_rel=4)", lambda: M.IFTGoalCWLMetric(1.0, 0.5, 1.0), 0, 4, 1000),
    ("IFTGoal(T=0.5,R1=100,max_rel=2,depth=8)", lambda: M.IFTGoalCWLMetric(0.5, 0.9, 100.0), 0, 2, 8),
    ("IFTRate", lambda: M.IFTRateCWLMetric(0.2, 0.9, 10), 0, 1, 1000),
    ("IFTRate(A=0.5,b2=2,R2=1,max_rel=3)", lambda: M.IFTRateCWLMetric(0.5, 2.0, 1.0), 0, 3, 1000),
    ("IFTRate(A=0,R2=100,max_rel=4,depth=9)", lambda: M.IFTRateCWLMetric(0.0, 0.9, 100.0), 0, 4, 9),
    ("IFTGoalRate", lambda: M.IFTGoalRateCWLMetric(2.0, 0.9, 10, 0.2, 0.9, 10), 0, 1, 1000),
    ("IFTGoalRate(T=1,R1=100,A=0.5,R2=100,max_rel=4)",
     lambda: M.IFTGoalRateCWLMetric(1.0, 0.9, 100.0, 0.5, 0.9, 100.0), 0, 4, 1000),
    ("IFTGoalRate(T=3,b1=2,R1=1,A=0.1,b2=0.5,R2=2,max_rel=2,depth=11)",
     lambda: M.IFTGoalRateCWLMetric(3.0, 2.0, 1.0, 0.1, 0.5, 2.0), 0, 2, 11),
]


def with_value(name: str, value: str) -> str:
    """``name`` with ``value='...'`` added to its parameters."""
    base, at, cutoff = name.partition("@")
    arg = f"value='{value}'"
    base = f"{base[:-1]},{arg})" if base.endswith(")") else f"{base}({arg})"
    return base + at + cutoff


def names_of(measures: list[Measure]) -> list[str]:
    return [with_value(name, v) for name, *_ in measures for v in VALUES]


def check(got: pl.DataFrame, measures: list[Measure], qrels: list[tuple[Any, Any, float]],
          ranking: dict[Any, list[Any]]) -> None:
    """Every value of ``got`` equals cwl_eval's to 1e-9, per query."""
    rows = {str(r["query_id"]): r for r in got.iter_rows(named=True)}
    judged = {str(q) for q, _, _ in qrels}
    assert set(rows) == {str(q) for q in ranking if str(q) in judged}
    for name, make, lo, hi, depth in measures:
        expected = cwl_eval_scores(make(), qrels, ranking, lo, hi, depth)
        for q, row in rows.items():
            for value, want in zip(VALUES, expected[q], strict=True):
                label = with_value(name, value)
                assert row[label] == pytest.approx(want, abs=1e-9, rel=0), (label, q, row[label], want)


def _test_collection() -> tuple[pl.DataFrame, pl.DataFrame, list[tuple[Any, Any, float]], dict[Any, list[Any]]]:
    run = rw.io.read_trec(DATA / "cwl.run", "run", rw.Columns())
    qrels = rw.io.read_trec(DATA / "cwl.qrels", "qrels", rw.Columns())
    triples = [tuple(r) for r in qrels.select("query_id", "doc_id", "relevance").iter_rows()]
    ranking: dict[Any, list[Any]] = {}
    for q, d, _ in sorted(run.iter_rows(), key=lambda r: (r[0], -r[2])):
        ranking.setdefault(q, []).append(d)
    return run, qrels, triples, ranking  # type: ignore[return-value]


@pytest.mark.parametrize("engine", ENGINES)
def test_ir_measures_cwl_files(engine: str) -> None:
    run, qrels, triples, ranking = _test_collection()
    got = run_on(engine, qrels, run, names_of(MEASURES))
    check(got, MEASURES, triples, ranking)


def test_ir_measures_cwl_files_on_spark(spark: Any) -> None:
    run, qrels, triples, ranking = _test_collection()
    got = run_on_spark(spark, qrels, run, names_of(MEASURES))
    check(got, MEASURES, triples, ranking)


# The names ir-measures writes, through its cwl_eval provider (EU, its value).
IR_MEASURES = {
    "INST(T=1,max_rel=1)": ir_measures.INST(T=1, max_rel=1),
    "INST(T=2,max_rel=4)": ir_measures.INST(T=2, max_rel=4),
    "INSQ(T=1,max_rel=1)": ir_measures.INSQ(T=1, max_rel=1),
    "INSQ(T=2,max_rel=3)": ir_measures.INSQ(T=2, max_rel=3),
    "BPM(T=1,max_rel=1)@20": ir_measures.BPM(T=1, max_rel=1) @ 20,
    "BPM(T=2,max_rel=2)@10": ir_measures.BPM(T=2, max_rel=2) @ 10,
    "SDCG(max_rel=1)@10": ir_measures.SDCG(max_rel=1) @ 10,
    "SDCG(max_rel=3)@5": ir_measures.SDCG(max_rel=3) @ 5,
    "NERR8(max_rel=1)@10": ir_measures.NERR8(max_rel=1) @ 10,
    "NERR8(max_rel=4)@3": ir_measures.NERR8(max_rel=4) @ 3,
    "NERR9(max_rel=1)@10": ir_measures.NERR9(max_rel=1) @ 10,
    "NERR9(max_rel=2,min_rel=-1)@4": ir_measures.NERR9(max_rel=2, min_rel=-1) @ 4,
    "NERR10(p=0.8,max_rel=1)": ir_measures.NERR10(p=0.8, max_rel=1),
    "NERR10(max_rel=3)": ir_measures.NERR10(max_rel=3),
    "NERR11(T=2,max_rel=1)": ir_measures.NERR11(T=2, max_rel=1),
    "NERR11(max_rel=4)": ir_measures.NERR11(max_rel=4),
}


def _provider(measures: dict[str, Any], qrels: Any, run: Any) -> dict[tuple[str, str], float]:
    return {
        (str(m.query_id), str(m.measure)): m.value
        for m in ir_measures.cwl_eval.iter_calc(list(measures.values()), qrels, run)
    }


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
def test_ir_measures_names_on_its_files(engine: str) -> None:
    run, qrels, *_ = _test_collection()
    expected = _provider(IR_MEASURES, qrels.to_pandas(), run.to_pandas())
    got = run_on(engine, qrels, run, list(IR_MEASURES), ties="doc_asc")
    for row in got.iter_rows(named=True):
        for name, measure in IR_MEASURES.items():
            assert row[name] == pytest.approx(expected[(row["query_id"], str(measure))], abs=1e-9), (name, row)
    # the test's own expectations (ir-measures' test_cwl_eval.py, 4 decimals)
    by_q = {r["query_id"]: r for r in got.iter_rows(named=True)}
    assert [round(by_q[q]["NERR9(max_rel=1)@10"], 4) for q in ("T1", "T2", "T3")] == [1.0, 1.0, 0.068]
    assert [round(by_q[q]["NERR10(p=0.8,max_rel=1)"], 4) for q in ("T1", "T2", "T3")] == [1.0, 1.0, 0.0888]
    assert [round(by_q[q]["INST(T=1,max_rel=1)"], 4) for q in ("T1", "T2", "T3")] == [0.7934, 0.9226, 0.0888]


# -- random cases: ties, unjudged, grades above max_rel, negative grades, empty and all-relevant
# queries, integer and string ids ------------------------------------------------------------


@st.composite
def random_case(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame]:
    integer_ids = draw(st.booleans())
    n_queries = draw(st.integers(1, 5))
    run_rows, qrels_rows = [], []
    for q in range(n_queries):
        qid: Any = q if integer_ids else f"q{q}"
        n_docs = draw(st.integers(1 if q == 0 else 0, 14))
        shape = draw(st.sampled_from(["mixed", "all_relevant", "none_relevant", "unjudged"]))
        for d in range(n_docs):
            doc: Any = d * 7 if integer_ids else f"d{d}"
            run_rows.append((qid, doc, float(draw(st.integers(0, 4)))))  # few scores: ties
            if shape == "unjudged" and draw(st.booleans()):
                continue
            if shape == "all_relevant":
                rel = draw(st.sampled_from([4, 5, 9]))
            elif shape == "none_relevant":
                rel = draw(st.sampled_from([0, -1]))
            else:
                if draw(st.integers(0, 3)) == 0:
                    continue  # unjudged
                rel = draw(st.sampled_from([-1, 0, 0, 1, 2, 3, 4, 5]))
            qrels_rows.append((qid, doc, rel))
        # a judged document not retrieved, so that every query is judged
        qrels_rows.append((qid, 10_001 if integer_ids else "unretrieved", draw(st.sampled_from([0, 1, 3]))))
    schema_id = pl.Int64 if integer_ids else pl.String
    run = pl.DataFrame(run_rows, schema={"query_id": schema_id, "doc_id": schema_id, "score": pl.Float64}, orient="row")
    qrels = pl.DataFrame(qrels_rows, schema={"query_id": schema_id, "doc_id": schema_id, "relevance": pl.Int64}, orient="row")
    return run, qrels


def _doc_asc_ranking(run: pl.DataFrame) -> dict[Any, list[Any]]:
    """rankwise's ties='doc_asc': score descending, then doc id ascending as text."""
    ranking: dict[Any, list[Any]] = {}
    for q, d, _ in sorted(run.iter_rows(), key=lambda r: (str(r[0]), -r[2], str(r[1]))):
        ranking.setdefault(q, []).append(d)
    return ranking


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=random_case())
def test_random_cases_equal_cwl_eval(engine: str, case: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    run, qrels = case
    triples = list(qrels.iter_rows())
    got = run_on(engine, qrels, run, names_of(MEASURES), ties="doc_asc")
    check(got, MEASURES, triples, _doc_asc_ranking(run))


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(15), deadline=None)
@given(case=random_case())
def test_random_cases_equal_ir_measures_provider(case: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    run, qrels = case
    # the provider ranks by score alone (a stable sort): the run is given in doc_asc order
    ranked = run.with_columns(pl.col("query_id", "doc_id").cast(pl.String)).sort(
        "query_id", "score", "doc_id", descending=[False, True, False]
    )
    expected = _provider(IR_MEASURES, qrels.to_pandas().astype({"query_id": str, "doc_id": str}), ranked.to_pandas())
    got = run_on("duckdb", qrels, run, list(IR_MEASURES), ties="doc_asc")
    for row in got.iter_rows(named=True):
        for name, measure in IR_MEASURES.items():
            want = expected[(str(row["query_id"]), str(measure))]
            assert row[name] == pytest.approx(want, abs=1e-9), (name, row)


# -- golden values worked by hand ---------------------------------------------------------------

RUN = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})


def _one(metrics: list[str], rels: dict[str, int], engine: str) -> dict[str, float]:
    qrels = pl.DataFrame(
        {"query_id": ["q"] * (len(rels) + 1), "doc_id": [*rels, "zz"], "relevance": [*rels.values(), 0]}
    )
    return {k: v for k, v in run_on(engine, qrels, RUN, metrics).row(0, named=True).items() if k != "query_id"}


@pytest.mark.parametrize("engine", ENGINES)
def test_golden(engine: str) -> None:
    # SDCG@2 of [1, 0]: 1 / (1 + 1/log2 3)
    assert _one(["SDCG@2"], {"a": 1, "b": 0}, engine)["SDCG@2"] == pytest.approx(1 / (1 + 1 / math.log2(3)), abs=1e-15)
    # NERR8@3 with a fully relevant document at rank 1: the user stops there
    v = _one([with_value("NERR8@3", x) for x in VALUES], {"a": 1}, engine)
    assert list(v.values()) == pytest.approx([1.0, 1.0, 1.0, 1.0, 1.0], abs=1e-15)
    # BPM(T=1)@10 of [0, 0, 1]: reads three documents, then has its target
    v = _one([with_value("BPM(T=1)@10", x) for x in VALUES], {"a": 0, "b": 0, "c": 1}, engine)
    assert list(v.values()) == pytest.approx([1 / 3, 1.0, 1.0, 3.0, 3.0], abs=1e-15)
    # BPM(T=5)@4: never reaches its target, reads k = 4 documents (the fourth is padding)
    v = _one([with_value("BPM(T=5)@4", x) for x in VALUES], {"a": 1, "c": 1}, engine)
    assert list(v.values()) == pytest.approx([0.5, 2.0, 1.0, 4.0, 4.0], abs=1e-15)
    # U(L=2) of [0, 1]: weights 1, 1/2, 0, ...: EU = (1/2) / (3/2), ED = 3/2
    v = _one([with_value("U(L=2)", x) for x in ("EU", "ED")], {"a": 0, "b": 1}, engine)
    assert list(v.values()) == pytest.approx([1 / 3, 1.5], abs=1e-15)
    # INSQ(T=1) with nothing relevant: EU 0, ED = Σ_{i≤1000} (2 / (i + 1))² = 4 (π²/6 − 1 − ψ1(1002))
    trigamma_1002 = math.fsum(1 / (1002 + j) ** 2 for j in range(10**6)) + 1 / (1002 + 10**6)
    v = _one([with_value("INSQ", x) for x in ("EU", "ED")], {"a": 0}, engine)
    assert v[with_value("INSQ", "EU")] == 0.0
    assert v[with_value("INSQ", "ED")] == pytest.approx(4 * (math.pi**2 / 6 - 1 - trigamma_1002), abs=1e-9)
    # NERR10(p=0.5) of [1/2, 0, 0] (max_rel=2): P = 1, 1/4, 1/8, ...: EU = (1/2) / (1 + 1/4 / (1 − 1/2))
    v = _one([with_value("NERR10(p=0.5,max_rel=2)", "EU")], {"a": 1}, engine)
    assert list(v.values()) == pytest.approx([0.5 / 1.5], abs=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_golden_ift(engine: str) -> None:
    # IFTRate(A=0,b2=1) with nothing relevant: C2 = 1 / (1 + e^0) = 1/2 at every rank; depth 3:
    # P = 1, 1/2, 1/4, ED = 7/4, P_4 = 1/8, ETC = ED − 3 · P_4
    v = _one([with_value("IFTRate(A=0,b2=1,depth=3)", x) for x in VALUES], {"a": 0}, engine)
    assert list(v.values()) == pytest.approx([0.0, 0.0, 1.0, 7 / 4 - 3 / 8, 7 / 4], abs=1e-15)
    # IFTGoal(R1=0,b1=1): C1 = 1 − 1 / (1 + 1) = 1/2 whatever the gain; a fully relevant first
    # document: EU = 1 / (7/4), ETU = Σ L_i G_i = 1 (every stop after rank 1 has G = 1) − P_4 · 1
    v = _one([with_value("IFTGoal(R1=0,b1=1,depth=3)", x) for x in ("EU", "ETU")], {"a": 1}, engine)
    assert list(v.values()) == pytest.approx([4 / 7, 1 - 1 / 8], abs=1e-15)
    # IFTGoalRate is the product: C = 1/2 · 1/2 with both rationalities 0 and b = 1
    v = _one([with_value("IFTGoalRate(R1=0,b1=1,A=0,b2=1,depth=3)", "ED")], {"a": 0}, engine)
    assert list(v.values()) == pytest.approx([1 + 1 / 4 + 1 / 16], abs=1e-15)


@pytest.mark.parametrize("engine", ENGINES)
def test_golden_residuals_of_adaptive_models(engine: str) -> None:
    # INST(T=1,depth=3) of [unjudged, 0, 0]: worst P = 1, (2/3)², (2/3)²(3/4)² (ED 61/36); best
    # (a of gain 1): C_1 = (1/2)², C_2 = (2/3)²: P = 1, 1/4, 1/9 (ED 49/36), EU 36/49
    v = _one([with_value("INST(depth=3)", x) for x in ("ResEU", "ResED", "ResEC")], {"b": 0, "c": 0}, engine)
    assert list(v.values()) == pytest.approx([36 / 49, 49 / 36 - 61 / 36, 0.0], abs=1e-15)
    # NERR10(p=0.5,depth=3) of [0, unjudged, 0]: worst P = 1, 1/2, 1/4; best C_2 = 0: P = 1, 1/2, 0
    v = _one([with_value("NERR10(p=0.5,depth=3)", x) for x in ("ResEU", "ResED")], {"a": 0, "c": 0}, engine)
    assert list(v.values()) == pytest.approx([0.5 / 1.5, -0.25], abs=1e-15)
    # the padding is fully relevant in the best case: NERR10(p=0.5,depth=5) of [0, 0, 0] stops at
    # rank 4 (P_5 = 0 instead of 1/16), EU = (1/8) / (15/8)
    v = _one([with_value("NERR10(p=0.5,depth=5)", x) for x in ("ResEU", "ResED")], {"a": 0, "b": 0, "c": 0}, engine)
    assert list(v.values()) == pytest.approx([1 / 15, -1 / 16], abs=1e-15)
    # BPM(T=1)@10 of [0, 0, 0]: worst reads k = 10 documents for nothing; best has its target at the
    # first padded rank, 4: EU 1/4, ETU 1, ETC and ED 4
    v = _one([with_value("BPM(T=1)@10", x) for x in RESIDUALS], {"a": 0, "b": 0, "c": 0}, engine)
    assert list(v.values()) == pytest.approx([0.25, 1.0, 0.0, -6.0, -6.0], abs=1e-15)


def test_a_query_missing_from_the_run_scores_0() -> None:
    qrels = pl.DataFrame({"query_id": ["q", "r"], "doc_id": ["a", "a"], "relevance": [1, 1]})
    got = rw.evaluate(qrels, RUN, ["INSQ", "SDCG@3"], missing="zero")
    assert got.filter(pl.col("query_id") == "r").row(0)[1:] == (0.0, 0.0)


# -- explain: each rank's continuation and expected contribution ---------------------------------


def _cwl_vectors(measure: Any, qrels: list[tuple[Any, Any, float]], docs: list[Any], lo: float, hi: float,
                 depth: int) -> tuple[list[float], list[float]]:
    """cwl_eval's C vector and W vector of one ranking (query "q")."""
    maker = RankingMaker("q", _Gains(qrels, lo, hi), None, max_gain=1.0, max_cost=1.0, min_cost=1.0, max_n=depth)
    for d in docs:
        maker.add(str(d), "_")
    ranking = maker.get_ranking()
    return [float(c) for c in measure.c_vector(ranking)], [float(w) for w in measure.w_vector(ranking)]


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(10), deadline=None)
@given(case=random_case())
def test_explain_shows_cwl_eval_continuation_and_weights(case: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    run, qrels = case
    triples = [("q", str(d), r) for q, d, r in qrels.iter_rows() if q == run["query_id"][0]]
    docs = _doc_asc_ranking(run)[run["query_id"][0]]
    evaluated = rw.evaluate(qrels, run, [m for m, *_ in MEASURES], ties="doc_asc")
    query = run["query_id"][0]
    for name, make, lo, hi, depth in MEASURES:
        table = rw.explain(qrels, run, name, query, ties="doc_asc")
        assert table["expected_utility"].sum() == pytest.approx(
            evaluated.filter(pl.col("query_id") == query)[name][0], abs=1e-9
        ), name
        c, w = _cwl_vectors(make(), triples, docs, lo, hi, depth)
        for row in table.iter_rows(named=True):
            i = row["rank"] - 1
            if i >= depth:
                assert row["weight"] == pytest.approx(0.0, abs=1e-12)
                continue
            assert row["weight"] == pytest.approx(w[i], abs=1e-9), (name, row)
            if row["examination"] > 1e-12 and i < depth - 1:
                want = c[i] if name not in ("U", "TBG") and not name.startswith(("U(", "TBG(")) else (
                    w[i + 1] / w[i] if i + 1 < len(w) else 0.0
                )
                # P_i is a difference of the cut rankings' sums of P (of order ED): its absolute
                # error is a few ulps of those, so C_i = P_{i+1} / P_i is as exact as P_i is large
                slack = 1e-9 + 1e-15 / row["examination"]
                assert row["continuation"] == pytest.approx(want, abs=slack), (name, row)
            elif row["examination"] == 0.0 or i >= depth - 1:
                assert row["continuation"] is None


def test_explain_inst_by_hand() -> None:
    """INST(T=1) of [unjudged, 1/2, 1, 0] (max_rel=2): C_1 = (2/3)², C_2 = (2.5/3.5)² (G = 1/2),
    C_3 = (2.5/3.5)² (G = 3/2, i = 3), C_4 = (3.5/4.5)²."""
    run = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "b", "c", "d"], "score": [4.0, 3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["b", "c", "d"], "relevance": [1, 2, 0]})
    table = rw.explain(qrels, run, "INST(T=1,max_rel=2)", "q")
    c = [(2 / 3) ** 2, (2.5 / 3.5) ** 2, (2.5 / 3.5) ** 2, (3.5 / 4.5) ** 2]
    assert table["continuation"].to_list() == pytest.approx(c, abs=1e-15)
    p = [1.0, c[0], c[0] * c[1], c[0] * c[1] * c[2]]
    assert table["examination"].to_list() == pytest.approx(p, abs=1e-15)
    assert table["gain"].to_list() == [0.0, 0.5, 1.0, 0.0]
    assert table["value"][-1] == pytest.approx(rw.evaluate(qrels, run, ["INST(T=1,max_rel=2)"])[0, 1], abs=1e-15)


# -- RBP: cwl_eval's is rankwise's RBP (binary gains at rel, as ir-measures' provider gives it),
# but for its normalisation over the first 1000 ranks: EU = (1 − p) / (1 − p^1000) · Σ p^(i−1) g_i,
# a factor that differs from 1 by less than 1e-13 for p ≤ 0.97 (p = 0.99: 4.3e-5).


@pytest.mark.parametrize("p", [0.5, 0.8, 0.9, 0.95])
def test_rbp_equals_cwl_eval_rbp(p: float) -> None:
    run, qrels, triples, ranking = _test_collection()
    expected = cwl_eval_scores(M.RBPCWLMetric(p), triples, ranking)
    got = rw.evaluate(qrels, run, [f"RBP(p={p})"])
    for q, value in got.iter_rows():
        assert value == pytest.approx(expected[q][0], abs=1e-12)
    normaliser = (1 - p) / (1 - p**1000)
    assert normaliser == pytest.approx(1 - p, abs=1e-12)


# -- residuals (cwl_eval -r): every unjudged and padded document fully relevant ------------------

WITH_RESIDUALS = MEASURES


def cwl_eval_residuals(measure: Any, qrels: list[tuple[Any, Any, float]], ranking: dict[Any, list[Any]],
                       lo: float, hi: float, depth: int) -> dict[str, list[float]]:
    gains = _Gains(qrels, lo, hi)
    measure.residuals = True
    out = {}
    for q, docs in ranking.items():
        maker = RankingMaker(str(q), gains, None, max_gain=1.0, max_cost=1.0, min_cost=1.0, max_n=depth)
        for d in docs:
            maker.add(str(d), "_")
        measure.measure(maker.get_ranking())
        out[str(q)] = [float(v) for v in (
            measure.residual_expected_utility, measure.residual_expected_total_utility,
            measure.residual_expected_cost, measure.residual_expected_total_cost, measure.residual_expected_items,
        )]
    return out


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=examples(10), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=random_case())
def test_residuals_equal_cwl_eval(engine: str, case: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    run, qrels = case
    triples = list(qrels.iter_rows())
    ranking = _doc_asc_ranking(run)
    names = [with_value(name, v) for name, *_ in WITH_RESIDUALS for v in RESIDUALS]
    got = run_on(engine, qrels, run, names, ties="doc_asc")
    for name, make, lo, hi, depth in WITH_RESIDUALS:
        expected = cwl_eval_residuals(make(), triples, ranking, lo, hi, depth)
        for row in got.iter_rows(named=True):
            for value, want in zip(RESIDUALS, expected[str(row["query_id"])], strict=True):
                label = with_value(name, value)
                assert row[label] == pytest.approx(want, abs=1e-9), (label, row["query_id"], row[label], want)


def test_residuals_on_spark(spark: Any) -> None:
    run, qrels, triples, ranking = _test_collection()
    unjudged_run = run.with_columns(pl.col("doc_id").replace({"D3": "X3", "D6": "X6"}))  # two unjudged
    names = [with_value(name, v) for name, *_ in WITH_RESIDUALS for v in RESIDUALS]
    got = run_on_spark(spark, qrels, unjudged_run, names)
    ranking = {q: [{"D3": "X3", "D6": "X6"}.get(d, d) for d in docs] for q, docs in ranking.items()}
    for name, make, lo, hi, depth in WITH_RESIDUALS:
        expected = cwl_eval_residuals(make(), triples, ranking, lo, hi, depth)
        for row in got.iter_rows(named=True):
            for value, want in zip(RESIDUALS, expected[str(row["query_id"])], strict=True):
                assert row[with_value(name, value)] == pytest.approx(want, abs=1e-9)
