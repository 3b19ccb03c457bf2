"""The Polars expression API inside group_by().agg(), and the .ir namespaces."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given, settings
from polars.testing import assert_frame_equal

import rankwise as rw
from tests.strategies import Case, cases
from tests.tiers import examples


def joined(case: Case) -> pl.DataFrame:
    """Run rows with their relevance (NULL when unjudged): what users hold in a pipeline."""
    return case.run_frame().join(case.qrels_frame(), on=["query_id", "doc_id"], how="left")


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(case=cases())
def test_expressions_equal_evaluate_with_the_ideal_from_the_list(case: Case) -> None:
    frame = joined(case).filter(pl.col("query_id").is_in(case.qrels_frame()["query_id"].implode()))
    if frame.is_empty():
        return
    by = "score"  # then the doc_id column (doc_id=), both descending: trec_eval's tie rule
    got = frame.group_by("query_id").agg(
        rw.ndcg("relevance", by=by, k=5).alias("nDCG(ideal='run')@5"),
        rw.ndcg("relevance", by=by, gain="exponential").alias("nDCG(gain='exponential', ideal='run')"),
        rw.dcg("relevance", by=by, discount="jarvelin", base=3).alias("DCG(discount='jarvelin', base=3)"),
        rw.cg("relevance", by=by, k=3).alias("CG@3"),
        rw.precision("relevance", by=by, k=3).alias("P@3"),
        rw.success("relevance", by=by, k=2).alias("Success@2"),
        rw.reciprocal_rank("relevance", by=by, rel=2).alias("RR(rel=2)"),
        rw.idcg("relevance", k=4).alias("IDCG(ideal='run')@4"),
    ).sort("query_id")
    expected = rw.evaluate(case.qrels_frame(), case.run_frame(), got.columns[1:])
    assert_frame_equal(got, expected, check_exact=False, abs_tol=1e-12)


def test_recall_ap_rprec_count_relevant_rows_of_the_group() -> None:
    df = pl.DataFrame({"q": ["a"] * 4, "d": ["w", "x", "y", "z"], "rel": [1, 0, 1, 0], "s": [4.0, 3.0, 2.0, 1.0]})
    out = df.group_by("q").agg(
        rw.recall("rel", by="s", k=2, doc_id="d").alias("r"),
        rw.average_precision("rel", by="s", doc_id="d").alias("ap"),
        rw.r_precision("rel", by="s", doc_id="d").alias("rp"),
    )
    assert out.row(0) == ("a", 0.5, (1 + 2 / 3) / 2, 0.5)


def test_ascending_scores() -> None:
    df = pl.DataFrame({"q": ["a", "a"], "doc_id": ["x", "y"], "rel": [1, 0], "rank": [2, 1]})
    out = df.group_by("q").agg(rw.reciprocal_rank("rel", by="rank", descending=False).alias("rr"))
    assert out["rr"][0] == 0.5


def test_typed_gains_are_the_metric_parameter_s_choices() -> None:
    """rw.dcg / rw.idcg / rw.ndcg / rw.cg take every gain the metric strings take, and name them
    when refusing one."""
    from typing import get_args

    from rankwise._polars.expr import GainKind
    from rankwise.metrics.families.gain import GAIN

    assert get_args(GainKind) == GAIN.choices
    with pytest.raises(rw.InvalidParameterError, match=r"'gain' must be one of \['linear', 'exponential', 'binary'\], got 'log'"):
        rw.ndcg("rel", by="score", gain="log")  # type: ignore[arg-type]


def test_typed_precision_takes_the_metric_s_denominators() -> None:
    """rw.precision(denominator='retrieved') is P over min(k, rows retrieved), as the metric
    string says it: relevance [1, 0, 1] at k=5 gives 2/3 (2/5 over k); a denominator the metric
    does not take is refused, naming those it takes."""
    from typing import get_args

    from rankwise._polars.expr import PrecisionDenominator
    from rankwise.metrics.families.precision_recall import P_DENOMINATOR

    assert get_args(PrecisionDenominator) == P_DENOMINATOR.choices
    frame = pl.DataFrame({"q": ["a"] * 3, "doc_id": ["x", "y", "z"], "score": [3.0, 2.0, 1.0], "rel": [1, 0, 1]})
    out = frame.group_by("q").agg(
        over_k=rw.precision("rel", by="score", k=5),
        over_retrieved=rw.precision("rel", by="score", k=5, denominator="retrieved"),
    )
    assert out.row(0, named=True) == {"q": "a", "over_k": pytest.approx(2 / 5), "over_retrieved": pytest.approx(2 / 3)}
    with pytest.raises(rw.InvalidParameterError, match=r"'denominator' must be one of \['k', 'retrieved'\], got 'n'"):
        rw.precision("rel", by="score", k=5, denominator="n")  # type: ignore[arg-type]


def test_typed_discounts_are_the_metric_parameter_s_choices() -> None:
    """rw.dcg / rw.idcg / rw.ndcg take every discount the metric strings take, and name them
    when refusing one."""
    from typing import get_args

    from rankwise._polars.expr import DiscountKind
    from rankwise.metrics.families.gain import DISCOUNT

    assert get_args(DiscountKind) == DISCOUNT.choices
    with pytest.raises(rw.InvalidParameterError, match=r"'discount' must be one of \['log2', 'jarvelin', 'reciprocal'\], got 'ln'"):
        rw.ndcg("rel", by="score", discount="ln")  # type: ignore[arg-type]


def test_typed_functions_break_ties_by_the_doc_id() -> None:
    """Tied scores are ranked by the doc id as text, descending (trec_eval's order), whatever
    the rows' order; without a doc id column the call is refused, not left to the row order."""
    rows = {"q": ["a"] * 3, "doc_id": ["d1", "d3", "d2"], "rel": [1, 0, 0], "score": [1.0, 1.0, 1.0]}
    for order in ([0, 1, 2], [2, 1, 0], [1, 0, 2]):
        df = pl.DataFrame(rows)[order]
        out = df.group_by("q").agg(rw.reciprocal_rank("rel", by="score"), rw.precision("rel", by="score", k=1).alias("p"))
        assert out.row(0) == ("a", 1 / 3, 0.0)  # d3, d2, d1: the relevant d1 is third
    with pytest.raises(rw.InvalidParameterError, match="doc_id="):
        rw.ndcg("rel", by="score", doc_id=None)
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="doc_id"):
        pl.DataFrame({"q": ["a"], "rel": [1], "score": [1.0]}).group_by("q").agg(rw.ndcg("rel", by="score"))


def test_dataframe_namespace_and_lazy_in_lazy_out() -> None:
    run = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["b"], "relevance": [1]})
    eager = run.ir.evaluate(qrels, ["RR", "NumQ"])
    assert isinstance(eager, pl.DataFrame)
    lazy = run.lazy().ir.evaluate(qrels.lazy(), ["RR", "NumQ"])
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), eager)
    assert eager.ir.summarize().row(0) == (0.5, 1.0)


@settings(max_examples=examples(40), deadline=None)
@given(case=cases())
def test_typed_functions_are_the_ideal_run_expressions(case: Case) -> None:
    """The typed functions compile the same recipes as rw.expr(..., ideal='run') over a frame of
    retrieved rows; ranked by score, then doc_id (both descending: trec_eval's order for these
    text ids), they are those expressions."""
    frame = joined(case)
    by = ["score"]
    typed = frame.group_by("query_id").agg(
        rw.ndcg("relevance", by=by, k=5).alias("a"),
        rw.dcg("relevance", by=by, discount="jarvelin", base=3).alias("b"),
        rw.idcg("relevance", k=4).alias("c"),
        rw.cg("relevance", by=by, k=3).alias("d"),
        rw.precision("relevance", by=by, k=3, rel=2).alias("e"),
        rw.recall("relevance", by=by, k=2).alias("f"),
        rw.success("relevance", by=by, k=2).alias("g"),
        rw.average_precision("relevance", by=by).alias("h"),
        rw.reciprocal_rank("relevance", by=by, k=4).alias("i"),
        rw.r_precision("relevance", by=by).alias("j"),
    ).sort("query_id")
    names = ["nDCG@5", "DCG(discount='jarvelin', base=3)", "IDCG@4", "CG@3", "P(rel=2)@3", "R@2", "Success@2", "AP", "RR@4", "Rprec"]
    expressions = frame.group_by("query_id").agg(
        *[rw.expr(n, ideal="run").alias(a) for n, a in zip(names, "abcdefghij", strict=True)]
    ).sort("query_id")
    assert_frame_equal(typed, expressions, check_exact=False, abs_tol=1e-12)


def test_ideal_run_ranks_the_rows_with_a_score() -> None:
    """On a judged frame, the typed functions and ideal='run' rank the rows with a score (the
    judged documents the run did not retrieve have none) and take the judgments from them: the
    values of a frame of retrieved rows, named as ideal='run'; by=None is refused."""
    run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "score": [0.9, 0.8, 0.7]})
    qrels = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["c", "z"], "relevance": [1, 1]})
    judged = rw.judged_frame(qrels, run)
    retrieved = run.join(qrels, on=["query_id", "doc_id"], how="left")
    for frame in (judged, retrieved):
        out = frame.group_by("query_id").agg(
            rw.reciprocal_rank("relevance", by="score"), rw.precision("relevance", by="score", k=1),
            rw.average_precision("relevance", by="score"), rw.recall("relevance", by="score", k=3),
        )
        assert out.columns == ["query_id", "RR (ideal='run')", "P@1 (ideal='run')", "AP (ideal='run')", "R@3 (ideal='run')"]
        assert out.row(0) == ("q1", 1 / 3, 0.0, 1 / 3, 1.0)
        assert_frame_equal(out, frame.group_by("query_id").agg(rw.exprs(["RR", "P@1", "AP", "R@3"], ideal="run")))
    with pytest.raises(rw.InvalidParameterError, match="by="):
        rw.reciprocal_rank("relevance", by=None)  # type: ignore[arg-type]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_each_spelling_of_a_metric_names_its_own_column(engine: str) -> None:
    """Equal metrics spelled differently (``P@5``, ``P_5``; ``RR``, ``MRR``) in calls one after
    the other, in one process: each result's columns are named as that call spelled them (the
    Polars engine keeps an evaluation's compiled expressions for the next one), with and
    without ``by=``."""
    run = pl.DataFrame({
        "query_id": ["q1", "q1", "q1", "q2"], "doc_id": ["a", "b", "c", "c"],
        "score": [3.0, 2.0, 1.0, 1.0], "seg": ["x", "x", "x", "y"],
    })
    qrels = pl.DataFrame({"query_id": ["q1", "q2", "q1"], "doc_id": ["b", "c", "c"], "relevance": [1, 2, 1]})
    first = rw.evaluate(qrels, run, ["P@5", "RR"], engine=engine)  # type: ignore[arg-type]
    assert first.columns == ["query_id", "P@5", "RR"]
    again = rw.evaluate(qrels, run, ["P_5", "MRR"], engine=engine)  # type: ignore[arg-type]
    assert again.columns == ["query_id", "P_5", "MRR"]
    assert again.rename({"P_5": "P@5", "MRR": "RR"}).equals(first)
    by = rw.evaluate(qrels, run, ["P_5"], engine=engine, by="seg")  # type: ignore[arg-type]
    assert by.columns == ["seg", "query_id", "P_5"]
