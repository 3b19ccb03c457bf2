"""``ties='expected'``: each metric's expected value over all orders of the documents of equal
score, every order equally likely. Checked against references we did not write (the
tie-aware-retrieval-metrics package, TRM, per query; scikit-learn's tie-averaged ``dcg_score`` and
``ndcg_score``), against a brute force over every order of the tied documents (each order ranked
by the ``doc_asc`` policy over relabelled doc ids), by hand, and between its bounds
(``pessimistic`` <= expected <= ``optimistic``); on Polars, DuckDB, ``to_sql``, the expression
API and the command line (Spark: tests/engines/test_spark.py)."""

from __future__ import annotations

import itertools
import math
import random
import warnings
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import rankwise as rw
from rankwise.errors import TieWarning
from rankwise.metrics.recipes import expected_metrics
from tests.cli.test_cli import cli
from tests.tiers import examples

ENGINES = ("polars", "duckdb")

# -- data ------------------------------------------------------------------------------------


def random_lists(seed: int, queries: int, graded: bool) -> tuple[list[list[float]], list[list[float | None]]]:
    """Per query: integer scores from 0..3 (many ties) and relevance (None: unjudged; graded
    0..3 or binary 0/1), lists of 1..15 documents, some queries with nothing relevant."""
    rng = random.Random(seed)
    scores, rels = [], []
    for q in range(queries):
        n = rng.randint(1, 15)
        scores.append([float(rng.randint(0, 3)) for _ in range(n)])
        nothing = q % 5 == 0
        rels.append([
            None if rng.random() < 0.25 else 0.0 if nothing else float(rng.randint(0, 3) if graded else rng.random() < 0.35)
            for _ in range(n)
        ])
    return scores, rels


def frames(scores: list[list[float]], rels: list[list[float | None]]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(qrels, run) of the lists: query q{i}, documents d{j}; an unjudged document has no qrels
    row; every query has at least one judgment (a non-relevant one, not retrieved)."""
    run, qrels = [], []
    for i, (ss, rr) in enumerate(zip(scores, rels, strict=True)):
        qrels.append((f"q{i:03d}", "judged-not-retrieved", 0.0))
        for j, (s, r) in enumerate(zip(ss, rr, strict=True)):
            run.append((f"q{i:03d}", f"d{j:02d}", s))
            if r is not None:
                qrels.append((f"q{i:03d}", f"d{j:02d}", r))
    return (
        pl.DataFrame(qrels, schema=["query_id", "doc_id", "relevance"], orient="row"),
        pl.DataFrame(run, schema=["query_id", "doc_id", "score"], orient="row"),
    )


def evaluate(qrels: pl.DataFrame, run: pl.DataFrame, metrics: list[str], **kw: Any) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TieWarning)
        return rw.evaluate(qrels, run, metrics, **kw).sort("query_id")


# -- against the tie-aware-retrieval-metrics package (TRM) -----------------------------------

TRM_NAMES = {"ndcg": "nDCG", "mrr": "RR", "map": "AP", "recall": "R", "precision": "P", "hits": "Hits"}
"""TRM's metrics and rankwise's of the same definition (trm/metrics.py: binary relevance; its
nDCG's ideal is min(N+, k) relevant documents, N+ the relevant among the candidates: every
relevant document is retrieved here, so N+ = R; AP over N+; MRR's RR@k; Hits@k relevant in the
top k)."""
KS = (1, 3, 5, 10, 20)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("graded", "rel"), [(False, 1), (True, 2)], ids=["binary", "graded-rel2"])
def test_expected_values_equal_trm_per_query(engine: str, graded: bool, rel: int) -> None:
    import trm

    scores, rels = random_lists(7 + rel, 60, graded)
    qrels, run = frames(scores, rels)
    relevant = [[r is not None and r >= rel for r in rr] for rr in rels]
    names = [m for m in TRM_NAMES if not (graded and m == "ndcg")]  # TRM's nDCG is binary
    out = trm.evaluate(scores, relevant, metrics=names, k_list=list(KS))
    labels = [f"{TRM_NAMES[m]}@{k}" for m in names for k in KS]
    got = evaluate(qrels, run, labels, ties="expected", rel=rel, engine=engine)
    assert got.height == len(scores)
    for m in names:
        for k in KS:
            expected = [r.expected for r in out.per_query[m][k]]
            assert got[f"{TRM_NAMES[m]}@{k}"].to_list() == pytest.approx(expected, abs=1e-12), (m, k)


def test_trm_range_is_pessimistic_to_optimistic() -> None:
    """The range beside the expected value: TRM's maximum and minimum are rankwise's
    'optimistic' and 'pessimistic' values (TRM's extreme precision divides by the documents
    in the top k, min(k, n): trm/metrics.py ``_precision_fn``, rankwise's
    P(denominator='retrieved'); its expected precision divides by k)."""
    import trm

    scores, rels = random_lists(11, 40, graded=False)
    qrels, run = frames(scores, rels)
    relevant = [[bool(r) for r in rr] for rr in rels]
    out = trm.evaluate(scores, relevant, metrics=list(TRM_NAMES), k_list=[3, 10])
    names = {**TRM_NAMES, "precision": "P(denominator='retrieved')"}
    for ties, attr in (("optimistic", "maximum"), ("pessimistic", "minimum")):
        got = evaluate(qrels, run, [f"{names[m]}@{k}" for m in names for k in (3, 10)], ties=ties)
        for m in names:
            for k in (3, 10):
                want = [getattr(r, attr) for r in out.per_query[m][k]]
                assert got[f"{names[m]}@{k}"].to_list() == pytest.approx(want, abs=1e-12), (ties, m, k)


# -- against scikit-learn's tie-averaged DCG -------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_dcg_and_ndcg_equal_sklearn(engine: str) -> None:
    """scikit-learn's dcg_score / ndcg_score (ignore_ties=False: the gain of tied documents
    averaged over their ranks, McSherry & Najork) on graded judgments of every candidate."""
    from sklearn.metrics import dcg_score, ndcg_score

    rng = random.Random(3)
    scores = [[float(rng.randint(0, 3)) for _ in range(rng.randint(2, 12))] for _ in range(40)]
    rels: list[list[float | None]] = [[float(rng.randint(0, 3)) for _ in ss] for ss in scores]
    qrels, run = frames(scores, rels)
    for k in (1, 3, 5, None):
        cut = "" if k is None else f"@{k}"
        got = evaluate(qrels, run, [f"DCG{cut}", f"nDCG{cut}"], ties="expected", engine=engine)
        for i, (ss, rr) in enumerate(zip(scores, rels, strict=True)):
            y_true, y_score = np.asarray([rr]), np.asarray([ss])
            assert got[f"DCG{cut}"][i] == pytest.approx(dcg_score(y_true, y_score, k=k), abs=1e-12)
            if any(rr):
                assert got[f"nDCG{cut}"][i] == pytest.approx(ndcg_score(y_true, y_score, k=k), abs=1e-12)
            else:
                assert got[f"nDCG{cut}"][i] == 0.0


# -- by hand -------------------------------------------------------------------------------

HAND_RUN = pl.DataFrame({
    "query_id": ["a"] * 4 + ["b"] * 2 + ["c"] * 3,
    "doc_id": ["w", "x", "y", "z", "u", "v", "s", "t", "r"],
    "score": [2.0, 1.0, 1.0, 0.0, 1.0, 1.0, 5.0, 5.0, 5.0],
})
HAND_QRELS = pl.DataFrame({
    "query_id": ["a"] * 4 + ["b"] * 2 + ["c"] * 3,
    "doc_id": ["w", "x", "y", "z", "u", "v", "s", "t", "r"],
    "relevance": [0, 1, 0, 1, 1, 0, 1, 1, 0],
})
L3 = math.log2(3)
HAND = {
    # a: w (0) above {x (1), y (0)} above z (1): two orders, x at 2 or at 3
    "a": {
        "RR": (1 / 2 + 1 / 3) / 2,
        "AP": ((1 / 2 + 2 / 4) / 2 + (1 / 3 + 2 / 4) / 2) / 2,
        "nDCG@2": (1 / L3) / 2 / (1 + 1 / L3),
        "P@2": 1 / 4,
        "Success@2": 1 / 2,
        "R@3": 1 / 2,
        "DCG": (1 / L3 + 1 / 2) / 2 + 1 / math.log2(5),
    },
    # b: {u (1), v (0)}: u first or second
    "b": {"RR": 3 / 4, "AP": 3 / 4, "nDCG@2": (1 + 1 / L3) / 2, "P@2": 1 / 2, "Success@2": 1.0, "R@3": 1.0,
          "DCG": (1 + 1 / L3) / 2},
    # c: {s (1), t (1), r (0)}, six orders: the first relevant at 1 (4 of 6) or 2 (2 of 6);
    # Success@1 = 2/3; AP = 1 (r last, 2 orders), (1 + 2/3)/2 (r in the middle), (1/2 + 2/3)/2 (r first)
    "c": {"RR": (4 * 1 + 2 * (1 / 2)) / 6, "AP": (2 * 1 + 2 * (5 / 6) + 2 * (7 / 12)) / 6,
          "nDCG@2": (2 / 3 * 1 + 2 / 3 / L3) / (1 + 1 / L3), "P@2": 2 / 3, "Success@2": 1.0, "R@3": 1.0,
          "DCG": 2 / 3 * (1 + 1 / L3 + 1 / 2)},
}


@pytest.mark.parametrize("engine", ENGINES)
def test_hand_computed_values(engine: str) -> None:
    names = list(HAND["a"])
    got = evaluate(HAND_QRELS, HAND_RUN, names, ties="expected", engine=engine)
    for row in got.iter_rows(named=True):
        for name in names:
            assert row[name] == pytest.approx(HAND[row["query_id"]][name], abs=1e-12), (row["query_id"], name)
    success1 = evaluate(HAND_QRELS, HAND_RUN, ["Success@1"], ties="expected", engine=engine)
    assert success1["Success@1"].to_list() == pytest.approx([0.0, 0.5, 2 / 3], abs=1e-12)


def test_hand_computed_values_in_sql_and_expressions() -> None:
    names = list(HAND["a"])
    con = duckdb.connect()  # the statement alone: every macro inlined
    con.register("run", HAND_RUN)
    con.register("qrels", HAND_QRELS)
    by_sql = con.sql(rw.to_sql(names, ties="expected")).pl().sort("query_id")
    frame = HAND_RUN.join(HAND_QRELS, on=["query_id", "doc_id"])
    by_expr = frame.group_by("query_id").agg(rw.exprs(names, ties="expected", ideal="run")).sort("query_id")
    macros = duckdb.connect()  # the SQL macros of sql/, as a DuckDB user calls them
    rw.register(macros)
    macros.register("judged", frame)
    by_macros = macros.sql(rw.sql_select(names, "judged", ties="expected", ideal="run")).pl().sort("query_id")
    run_ideal = {f"{n} (ideal='run')": n for n in names}
    for got in (by_sql, by_expr.rename(run_ideal), by_macros.rename(run_ideal)):
        for row in got.iter_rows(named=True):
            for name in names:
                assert row[name] == pytest.approx(HAND[row["query_id"]][name], abs=1e-12), (row["query_id"], name)


# -- brute force over every order of the tied documents --------------------------------------

BRUTE = ["nDCG@3", "nDCG", "DCG@2", "CG@2", "P@2", "R@3", "Hits@2", "RelP@2", "RR", "RR@2", "Success@1",
         "Success@3", "AP", "AP@3", "AP(denominator='min_R_k')@2", "NumRelRet", "SetP", "Judged"]


def every_order(scores: list[float], rels: list[float | None]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(qrels, run) holding each order of the tied documents as a query of its own: each
    order's documents get ids d00, d01, ... in that order, so that 'doc_asc' ranks them so."""
    order = sorted(range(len(scores)), key=lambda j: -scores[j])
    groups = [list(g) for _, g in itertools.groupby(order, key=lambda j: scores[j])]
    run, qrels = [], []
    for n, choice in enumerate(itertools.product(*(itertools.permutations(g) for g in groups))):
        q = f"o{n:05d}"
        qrels.append((q, "judged-not-retrieved", 0.0))
        for position, j in enumerate(j for group in choice for j in group):
            run.append((q, f"d{position:02d}", scores[j]))
            if rels[j] is not None:
                qrels.append((q, f"d{position:02d}", rels[j]))
    return (
        pl.DataFrame(qrels, schema=["query_id", "doc_id", "relevance"], orient="row"),
        pl.DataFrame(run, schema=["query_id", "doc_id", "score"], orient="row"),
    )


lists = st.integers(1, 7).flatmap(
    lambda n: st.tuples(
        st.lists(st.sampled_from([0.0, 1.0, 2.0]), min_size=n, max_size=n),
        st.lists(st.sampled_from([None, 0.0, 1.0, 2.0]), min_size=n, max_size=n),
    )
)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=lists)
def test_expected_value_is_the_mean_over_every_order(case: tuple[list[float], list[float | None]]) -> None:
    scores, rels = case
    qrels, run = frames([scores], [rels])
    got = evaluate(qrels, run, BRUTE, ties="expected").row(0, named=True)
    all_qrels, all_run = every_order(scores, rels)
    means = evaluate(all_qrels, all_run, BRUTE, ties="doc_asc").select(pl.exclude("query_id").mean()).row(0, named=True)
    for name in BRUTE:
        assert got[name] == pytest.approx(means[name], abs=1e-12), name
    low = evaluate(qrels, run, BRUTE, ties="pessimistic").row(0, named=True)
    high = evaluate(qrels, run, BRUTE, ties="optimistic").row(0, named=True)
    for name in BRUTE:
        assert low[name] - 1e-12 <= got[name] <= high[name] + 1e-12, name


@pytest.mark.parametrize("engine", ENGINES)
def test_pessimistic_expected_optimistic_in_order(engine: str) -> None:
    scores, rels = random_lists(5, 80, graded=True)
    qrels, run = frames(scores, rels)
    names = ["nDCG@5", "nDCG(gain='exponential')@10", "P@3", "R@10", "RR", "AP", "AP@5", "Success@2", "DCG@3"]
    low, mid, high = (evaluate(qrels, run, names, ties=t, engine=engine) for t in ("pessimistic", "expected", "optimistic"))
    for name in names:
        assert (low[name] <= mid[name] + 1e-12).all(), name
        assert (mid[name] <= high[name] + 1e-12).all(), name


def test_engines_agree_on_graded_data() -> None:
    scores, rels = random_lists(9, 80, graded=True)
    qrels, run = frames(scores, rels)
    names = [f"{m}@{k}" for m in ("nDCG", "P", "R", "RR", "AP", "Success", "CG", "Hits", "RelP") for k in (1, 4, 30)]
    by_polars = evaluate(qrels, run, names, ties="expected", rel=2)
    by_duckdb = evaluate(qrels, run, names, ties="expected", rel=2, engine="duckdb")
    assert_frame_equal(by_polars, by_duckdb, check_exact=False, abs_tol=1e-12)


def test_ln_factorial_is_ln_gamma() -> None:
    """The engines' ln(n!) (no ln Γ in Spark SQL) against Python's math.lgamma."""
    from rankwise._polars.primitives import ln_factorial

    n = [*range(300), 1000, 12345, 10**6]
    by_polars = pl.select(ln_factorial(pl.lit(pl.Series(n, dtype=pl.Float64)))).to_series()
    con = duckdb.connect()
    rw.register(con)
    by_sql = con.sql(f"SELECT rw_ln_factorial(n::DOUBLE) FROM unnest({n}) AS t(n)").fetchall()
    for i, value in enumerate(n):
        assert by_polars[i] == pytest.approx(math.lgamma(value + 1), rel=1e-14, abs=1e-13)
        assert by_sql[i][0] == pytest.approx(math.lgamma(value + 1), rel=1e-14, abs=1e-13)


# -- refused metrics, the warning, the command line -------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("metric", ["ERR@10", "AP(denominator='relret')@5", "Bpref", "F1@5", "RBP"])
def test_a_metric_without_a_closed_form_is_refused(engine: str, metric: str) -> None:
    with pytest.raises(rw.InvalidParameterError, match=r"ties='expected' has no closed form for .*the metrics that have one.*nDCG.*RR"):
        rw.evaluate(HAND_QRELS, HAND_RUN, [metric], ties="expected", engine=engine)
    with pytest.raises(rw.InvalidParameterError, match="has no closed form"):
        rw.to_sql([metric], ties="expected")


def test_every_metric_named_as_having_a_closed_form_evaluates() -> None:
    names = [f"{name}@3" if rw.get_spec(name).cutoff == "required" else name for name in expected_metrics()]
    assert {"nDCG", "DCG", "P", "R", "RR", "AP", "Success", "Hits"} <= set(expected_metrics())
    assert "ERR" not in expected_metrics()
    got = evaluate(HAND_QRELS, HAND_RUN, names, ties="expected")
    assert got.height == 3


def test_warning_names_the_largest_spread() -> None:
    with pytest.warns(TieWarning) as caught:
        rw.evaluate(HAND_QRELS, HAND_RUN, ["nDCG@2", "RR", "P@1"], ties="expected")
    message = str(caught[0].message)
    # the largest: P@1 of query b, 0 (v first) to 1 (u first), around its expected 0.5
    assert "the most: P@1 of query 'b', from 0 (ties='pessimistic') to 1 ('optimistic')" in message
    assert "expected 0.5" in message
    untied = HAND_RUN.with_columns(pl.int_range(pl.len()).cast(pl.Float64).alias("score"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", TieWarning)
        rw.evaluate(HAND_QRELS, untied, ["nDCG@2", "RR", "P@1"], ties="expected")


def test_command_line_ties_expected(tmp_path: Path) -> None:
    qrels, run = tmp_path / "t.qrels", tmp_path / "t.run"
    qrels.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in HAND_QRELS.iter_rows()))
    run.write_text("".join(f"{q} Q0 {d} 1 {s} x\n" for q, d, s in HAND_RUN.iter_rows()))
    out = cli("eval", str(qrels), str(run), "-m", "RR", "-m", "AP", "--ties", "expected")
    assert out.returncode == 0, out.stderr
    values = {line.split()[0]: float(line.split()[2]) for line in out.stdout.splitlines()}
    assert values["RR"] == pytest.approx(sum(HAND[q]["RR"] for q in HAND) / 3, abs=5e-5)
    assert values["AP"] == pytest.approx(sum(HAND[q]["AP"] for q in HAND) / 3, abs=5e-5)
    refused = cli("eval", str(qrels), str(run), "-m", "ERR", "--ties", "expected")
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1
    assert "ties='expected' has no closed form for 'ERR'" in refused.stderr


@pytest.mark.parametrize("engine", ENGINES)
def test_the_metrics_own_ties_parameter(engine: str) -> None:
    """RR(ties='expected') is the convention's value of RR; an explicit ties='ranking' keeps the
    ranking under the convention; nDCG's ties='expected' is its ties='average'."""
    names = ["RR(ties='expected')", "P(ties='expected')@2", "nDCG(ties='expected')@2", "nDCG(ties='average')@2"]
    got = evaluate(HAND_QRELS, HAND_RUN, [*names, "RR(ties='ranking')"], ties="expected", engine=engine)
    plain = evaluate(HAND_QRELS, HAND_RUN, names, engine=engine)  # the parameter alone, trec_eval's ties
    for row, alone in zip(got.iter_rows(named=True), plain.iter_rows(named=True), strict=True):
        q = row["query_id"]
        assert row["RR(ties='expected')"] == alone["RR(ties='expected')"] == pytest.approx(HAND[q]["RR"], abs=1e-12)
        assert row["P(ties='expected')@2"] == pytest.approx(HAND[q]["P@2"], abs=1e-12)
        assert row["nDCG(ties='expected')@2"] == pytest.approx(HAND[q]["nDCG@2"], abs=1e-12)
        assert row["nDCG(ties='average')@2"] == pytest.approx(HAND[q]["nDCG@2"], abs=1e-12)
    # trec_eval's order: a's tie x, y ranks y (doc id descending as text) first: RR 1/3; b: v first
    assert got["RR(ties='ranking')"].to_list() == pytest.approx([1 / 3, 1 / 2, 1.0], abs=1e-12)
    with pytest.raises(rw.InvalidParameterError, match="no closed form"):
        rw.evaluate(HAND_QRELS, HAND_RUN, ["ERR"], ties="expected")


@pytest.mark.parametrize("engine", ENGINES)
def test_max_rank_is_refused_with_expected_ties(engine: str) -> None:
    """The documents max_rank keeps of a tie group across the cut depend on their order."""
    with pytest.raises(rw.InvalidParameterError, match="'max_rank' cannot be used with ties='expected'"):
        rw.evaluate(HAND_QRELS, HAND_RUN, ["RR"], ties="expected", max_rank=2, engine=engine)
    with pytest.raises(rw.InvalidParameterError, match="'max_rank' cannot be used with ties='expected'"):
        rw.to_sql(["RR"], ties="expected", max_rank=2)


@pytest.mark.parametrize("engine", ENGINES)
def test_max_rank_is_refused_with_a_metrics_own_expected_ties(engine: str) -> None:
    """The same refusal when the metric's own parameter asks for ties='expected' (hypothesis
    found the engines disagreeing there: a tie group of d1 and d2 cut at max_rank=1, d1
    relevant, gave Polars 0.0 and DuckDB 0.5)."""
    run = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["d1", "d2"], "score": [0.0, 0.0]})
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["d1"], "relevance": [1]})
    for metric in ("GMAP(rel=-1, ties='expected')", "RR(ties='expected')", "nDCG(ties='expected')@10"):
        with pytest.raises(rw.InvalidParameterError, match=r"'max_rank' cannot be used with .*ties='expected'"):
            rw.evaluate(qrels, run, [metric], max_rank=1, engine=engine)
        with pytest.raises(rw.InvalidParameterError, match="'max_rank' cannot be used with"):
            rw.to_sql([metric], max_rank=1)
    # without max_rank it is computed, the same on every engine
    assert rw.evaluate(qrels, run, ["RR(ties='expected')"], engine=engine)["RR(ties='expected')"][0] == pytest.approx(0.75)


def test_a_large_tie_group_stays_in_doubles_on_every_engine() -> None:
    """200 documents of one score, 100 of them relevant: the binomial ratios of RR and Success
    (ln n! over 16 factors) stay in doubles in SQL (they overflowed DuckDB's DECIMAL from about 20
    relevant documents on); E[RR] = Σ_i C(200 − i, 99) / C(200, 100) / i, summed here exactly."""
    from fractions import Fraction
    from math import comb

    import duckdb

    n, r = 200, 100
    run = pl.DataFrame({"query_id": ["q"] * n, "doc_id": [f"d{i:03d}" for i in range(n)], "score": [1.0] * n})
    qrels = pl.DataFrame({"query_id": ["q"] * r, "doc_id": [f"d{i:03d}" for i in range(r)], "relevance": [1] * r})
    rr = float(sum(Fraction(comb(n - i, r - 1), comb(n, r)) / i for i in range(1, n - r + 2)))
    success = 1 - comb(n - 3, r) / comb(n, r)
    for engine in ("polars", "duckdb"):
        got = rw.evaluate(qrels, run, ["RR", "Success@3"], ties="expected", engine=engine)
        assert got.row(0)[1:] == (pytest.approx(rr, rel=1e-10), pytest.approx(success, rel=1e-10)), engine
    con = duckdb.connect()
    con.register("run", run.to_arrow())
    con.register("qrels", qrels.to_arrow())
    (row,) = con.sql(rw.to_sql(["RR", "Success@3"], run="run", qrels="qrels", ties="expected")).fetchall()
    assert row[1:] == (pytest.approx(rr, rel=1e-10), pytest.approx(success, rel=1e-10))
