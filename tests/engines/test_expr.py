"""Every metric as a Polars expression (``rw.expr``, ``rw.exprs``) over ``rw.judged_frame``:
per query, the values of ``rw.evaluate`` (1e-12) on Polars eager, lazy and streaming, in
``group_by().agg()`` and in ``over()``; the measures pytrec-eval-terrier shares, its values;
the refusals (no doc column, diversity measures, a frame without the flag column); the
Polars example of docs/python.md on the bundled data."""

from __future__ import annotations

import doctest
import warnings
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import pytrec_eval
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import rankwise as rw
from rankwise._polars.expr import NOT_EXPRESSIBLE
from rankwise.conventions import CONVENTION_KEYWORDS
from rankwise.metrics.registry import SPECS
from tests.conftest import under_max_rank
from tests.metrics.test_metric_strings import evaluable_choices, metrics
from tests.metrics.test_trec_eval9 import MEASURES, check
from tests.strategies import DOC_IDS, QUERY_IDS, Case, cases
from tests.tiers import examples

ROOT = Path(__file__).resolve().parents[2]

EXPRESSIBLE = [s for s in SPECS if s.name not in NOT_EXPRESSIBLE]


def _every_metric() -> list[str]:
    """Every expressible spec with its defaults, then with each choice of each parameter that
    has choices (cutoff 3 where the spec takes one)."""
    names: list[str] = []
    for spec in EXPRESSIBLE:
        variants: list[dict[str, Any]] = [{}]
        variants += [{p.name: c} for p in spec.params if p.choices for c in evaluable_choices(p)]
        for params in variants:
            name = repr(rw.metric.make_metric(spec, params, 3 if spec.cutoff != "none" else None))
            if name not in names:
                names.append(name)
    return names


EVERY_METRIC = _every_metric()


def frames(case: Case, integer_ids: bool) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The case's (qrels, run), with string ids or integer ids (each id's index in the strategies'
    lists, then in order of appearance: 5 above 48 as text, below as numbers)."""
    qrels, run = case.qrels_frame(), case.run_frame()
    if not integer_ids:
        return qrels, run

    def numbers(known: list[str], column: str) -> pl.Expr:
        seen = pl.concat([qrels[column], run[column]]).unique(maintain_order=True).to_list()
        order = [*known, *(x for x in seen if x not in known)]
        return pl.col(column).replace_strict(order, [3 * i + 1 for i in range(len(order))], return_dtype=pl.Int64)

    ids = [numbers(QUERY_IDS, "query_id"), numbers(DOC_IDS, "doc_id")]
    return qrels.with_columns(ids), run.with_columns(ids)


def per_query(qrels: pl.DataFrame, run: pl.DataFrame, names: list[str], **kw: Any) -> dict[str, pl.DataFrame]:
    """The expressions' per-query values on Polars eager, lazy and streaming (group_by) and
    through ``over`` (one row per query kept)."""
    # missing shapes the frame (which queries it holds); the expressions refuse it
    convs = {k: v for k, v in kw.items() if k in CONVENTION_KEYWORDS and k != "missing"}
    frame = rw.judged_frame(qrels, run, missing=kw.get("missing", "ignore"))
    es = rw.exprs(names, **convs)
    over = (
        frame.with_columns([e.over("query_id") for e in es])
        .group_by("query_id", maintain_order=True).first().select("query_id", *names)
    )
    return {
        "eager": frame.group_by("query_id").agg(es),
        "lazy": frame.lazy().group_by("query_id").agg(es).collect(),
        "streaming": frame.lazy().group_by("query_id").agg(es).collect(engine="streaming"),
        "over": over,
    }


def assert_equal_evaluate(qrels: pl.DataFrame, run: pl.DataFrame, names: list[str], **kw: Any) -> None:
    expected = rw.evaluate(qrels, run, names, **kw)
    for how, got in per_query(qrels, run, names, **kw).items():
        got = got.sort("query_id")
        assert got.columns == expected.columns, how
        try:
            assert_frame_equal(got, expected, check_exact=False, abs_tol=1e-12, rel_tol=0)
        except AssertionError as exc:
            raise AssertionError(f"{how}: {exc}") from None


CONVENTIONS: dict[str, st.SearchStrategy[Any]] = {
    "ties": st.sampled_from(["trec_eval", "doc_asc", "optimistic", "pessimistic", "doc_desc_numeric"]),
    "missing": st.sampled_from(["ignore", "zero"]),
    "max_rank": st.sampled_from([None, 1, 3]),
    "rel": st.sampled_from([1, 2, 0.5]),
    "judged_only": st.booleans(),
    "trec_eval": st.sampled_from(["10", "9"]),
}
"""The conventions the property tests draw (also tests/engines/test_expr_sql.py)."""


def expressible_metrics(most: int) -> st.SearchStrategy[list[rw.Metric]]:
    """Random metrics (random parameters) that can be expressions."""
    return st.lists(metrics().filter(lambda m: m.spec.name not in NOT_EXPRESSIBLE), min_size=1, max_size=most, unique_by=repr)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=cases(),
    integer_ids=st.booleans(),
    chosen=expressible_metrics(8),
    fixed=st.lists(st.sampled_from(EVERY_METRIC), min_size=1, max_size=8, unique=True),
    **CONVENTIONS,
)
def test_expressions_equal_evaluate(
    case: Case, integer_ids: bool, chosen: list[rw.Metric], fixed: list[str], ties: str, missing: str,
    max_rank: int | None, rel: float, judged_only: bool, trec_eval: str,
) -> None:
    """Random metrics (random parameters and cutoffs) and the registered ones, under random
    conventions, on random runs and qrels (ties, unjudged documents, negative judgments,
    queries with nothing relevant or on one side only, integer and string ids)."""
    names = under_max_rank(list(dict.fromkeys([repr(m) for m in chosen] + fixed)), max_rank)
    assume(names)
    qrels, run = frames(case, integer_ids)
    kw = dict(ties=ties, missing=missing, max_rank=max_rank, rel=rel, judged_only=judged_only, trec_eval=trec_eval)
    assert_equal_evaluate(qrels, run, names, **kw)


FIXED = Case(
    {"q1": {"a": 1.0, "b": 1.0, "c": 0.5, "d": 2.0, "x1": 0.5}, "q2": {"a": 0.0, "x": 1.0}, "q3": {"z": 1.0},
     "q5": {"a": 3.0, "b": 2.0}},
    {"q1": {"a": 1, "c": 2, "e": 3, "d": -1, "x1": 0}, "q2": {"b": 0}, "q4": {"a": 1}, "q5": {"a": 2, "b": 1}},
)
"""Ties, unjudged and negative judgments, a query without relevant documents, one judged but
not run (q4), one run but not judged (q3), one all relevant (q5)."""


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize(("kw", "integer_ids"), [
    ({}, False),
    ({"missing": "zero", "judged_only": True, "max_rank": 2}, True),
    ({"ties": "optimistic", "trec_eval": "9", "rel": 2}, False),
    ({"ties": "doc_desc_numeric", "max_rank": 3}, True),
], ids=repr)
def test_every_registered_metric_at_once(kw: dict[str, Any], integer_ids: bool) -> None:
    """All of them together (229 expressions in one group-by), on every Polars engine."""
    qrels, run = frames(FIXED, integer_ids)
    assert_equal_evaluate(qrels, run, under_max_rank(EVERY_METRIC, kw.get("max_rank")), **kw)


CUT_COMPAT = Case(
    {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"a": 2.0, "b": 1.0}},
    {"q1": {"a": 1, "b": 1}, "q2": {"b": 1}},
)
"""Two queries of 3 and 2 retrieved rows: Compat cut at ``max_rank`` made Polars 2.1 panic
("range start index 3 out of range for slice of length 2") in ``over()`` and in some
``group_by()`` (a window, then a sort, then a head inside one ``list.eval``)."""


@pytest.mark.parametrize("integer_ids", [False, True])
@pytest.mark.parametrize("judged_only", [False, True])
@pytest.mark.parametrize("max_rank", [1, 2])
def test_compat_cut_at_max_rank_under_over(max_rank: int, judged_only: bool, integer_ids: bool) -> None:
    """Compat with ``max_rank`` set equals ``evaluate`` on every path, ``over()`` included. At
    max_rank=1, q2's one ranked document (a, scored above b) is unjudged: none of its ideal
    (b) is ranked, Compat 0."""
    qrels, run = frames(CUT_COMPAT, integer_ids)
    kw: dict[str, Any] = {"max_rank": max_rank, "judged_only": judged_only}
    assert_equal_evaluate(qrels, run, ["Compat", "Compat(p=0.5)"], **kw)
    if max_rank == 1:
        over = per_query(qrels, run, ["Compat"], **kw)["over"]
        assert over.sort("query_id")["Compat"].to_list()[1] == 0.0  # q2 (after q1 as text and as a number)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(nonnegative=True), rel=st.sampled_from([1, 2]), judged_only=st.booleans())
def test_expressions_equal_pytrec_eval(case: Case, rel: int, judged_only: bool) -> None:
    """Every measure pytrec-eval-terrier computes (trec_eval 9.0.8), per query to 1e-12."""
    queries = set(case.run) & set(case.qrels)
    if not queries:
        return
    evaluator = pytrec_eval.RelevanceEvaluator(case.qrels, MEASURES, relevance_level=rel, judged_docs_only_flag=judged_only)
    expected = evaluator.evaluate(case.run)
    names = sorted(next(iter(expected.values())))
    frame = rw.judged_frame(case.qrels_frame(), case.run_frame())
    got = frame.group_by("query_id").agg(rw.exprs(names, rel=rel, judged_only=judged_only, trec_eval="9"))
    check(got, expected, names)


# -- the conventions, by hand ---------------------------------------------------------------------


def _tied() -> tuple[pl.DataFrame, pl.DataFrame]:
    run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["d1", "d2", "d10"], "score": [1.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": ["d1", "d2", "d10", "d7"], "relevance": [1, 0, 0, 1]})
    return qrels, run


def test_ties_follow_the_convention_not_the_row_order() -> None:
    """Three tied scores: trec_eval's order is the doc id descending as text (d2, d10, d1), so
    the relevant d1 is third, whatever the rows' order; doc_asc puts it first."""
    qrels, run = _tied()
    frame = rw.judged_frame(qrels, run)
    for shuffled in (frame, frame.reverse(), frame.sort("doc_id")):
        out = shuffled.group_by("query_id").agg(rw.expr("RR"), rw.expr("RR", ties="doc_asc").alias("asc"))
        assert out.row(0) == ("q", 1 / 3, 1.0)


def test_no_doc_column_is_refused() -> None:
    with pytest.raises(rw.InvalidParameterError, match="cannot break ties without the doc id column"):
        rw.expr("nDCG@10", doc_id=None)
    with pytest.raises(rw.InvalidParameterError, match="cannot break ties"):
        rw.exprs(["AP", "RR"], doc_id=None, ties="doc_asc")


def test_the_ideal_and_r_come_from_every_judgment() -> None:
    """d7 is relevant and not retrieved: R = 2 over the judged frame (as evaluate), R = 1 with
    ideal='run' on the retrieved rows (and the name says so)."""
    qrels, run = _tied()
    frame = rw.judged_frame(qrels, run)
    full = frame.group_by("query_id").agg(rw.expr("AP"), rw.expr("R"))
    assert full.row(0) == ("q", 1 / 6, 0.5)
    assert full.equals(rw.evaluate(qrels, run, ["AP", "R"]))
    retrieved = run.join(qrels, on=["query_id", "doc_id"], how="left")
    only = retrieved.group_by("query_id").agg(rw.expr("AP", ideal="run"), rw.expr("R", ideal="run"))
    assert only.columns == ["query_id", "AP (ideal='run')", "R (ideal='run')"]
    assert only.row(0) == ("q", 1 / 3, 1.0)


def test_a_frame_without_the_flag_column_is_refused() -> None:
    """Without ideal='run', a frame of retrieved rows only is an error (never other numbers)."""
    qrels, run = _tied()
    retrieved = run.join(qrels, on=["query_id", "doc_id"], how="left")
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match='"retrieved"'):
        retrieved.group_by("query_id").agg(rw.expr("AP"))


def test_diversity_measures_are_refused_by_name() -> None:
    for name in ("alpha_nDCG@20", "ERR_IA@20", "NRBP", "nNRBP", "AP_IA", "P_IA@10", "StRecall@10", "nERR_IA@5"):
        with pytest.raises(rw.InvalidParameterError, match=f"{name.split('@')[0]}.* cannot be a metric expression \\(Polars or SQL\\)"):
            rw.expr(name)
    assert set(NOT_EXPRESSIBLE) == {
        "alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "AP_IA", "P_IA", "StRecall",
        "MIUF", "Surprisal", "ARP", "APLT", "ACLT", "TailPercentage", "MeanPopRank", "UnseenShare", "EPC", "EFD",
        "ILD", "ILS", "Unexpectedness", "CatalogCoverage", "Gini", "Entropy", "SelfInformation",
        "CategoryDiversity", "CategoryEntropy", "Miscalibration", "Personalization", "PopRSP", "PopREO",
        "Serendipity",
        "AWRF", "nDCG_AWRF", "GroupEE_L", "GroupEE_D", "GroupEE_R", "GroupAttention", "GroupExposure",
    }


def test_set_level_metrics_are_refused_by_name() -> None:
    """One value per run, from every user's list: no expression over one query's rows."""
    for name in ("CatalogCoverage@10", "Gini(catalog='listed')@5", "Entropy", "SelfInformation@10", "Personalization@5",
                 "PopRSP@10", "PopREO", "GroupAttention@5", "GroupExposure(combo='LTwo')"):
        for build in (rw.expr, rw.sql_expr):
            with pytest.raises(rw.InvalidParameterError, match=r"cannot be a metric expression \(Polars or SQL\): it is one value per run"):
                build(name)


def test_the_popularity_family_is_refused_by_name() -> None:
    """It reads the training interactions of every user, which no group of a judged frame holds."""
    for name in ("MIUF@10", "Surprisal@5", "ARP", "APLT@5", "ACLT", "UnseenShare", "EPC", "EFD"):
        with pytest.raises(rw.InvalidParameterError, match=rf"{name}.* cannot be a metric expression \(Polars or SQL\): it reads the training"):
            rw.expr(name)
        with pytest.raises(rw.InvalidParameterError, match=r"reads the training interactions"):
            rw.sql_expr(name)


def test_the_feature_diversity_family_is_refused_by_name() -> None:
    """It reads the item features, which no judged frame holds."""
    for name in ("ILD@10", "ILD(distance='hamming')@5", "ILS@3"):
        with pytest.raises(rw.InvalidParameterError, match=r"IL[DS].* cannot be a metric expression \(Polars or SQL\): it reads the item features"):
            rw.expr(name)
        with pytest.raises(rw.InvalidParameterError, match=r"reads the item features"):
            rw.sql_expr(name)


def test_the_category_family_is_refused_by_name() -> None:
    """It reads the item categories, which no judged frame holds."""
    for name in ("CategoryDiversity@10", "CategoryEntropy", "CategoryEntropy(rank_weight='geometric')@5", "Miscalibration@10"):
        with pytest.raises(rw.InvalidParameterError, match=r"(Category|Miscalibration).* cannot be a metric expression \(Polars or SQL\): it reads the item categories"):
            rw.expr(name)
        with pytest.raises(rw.InvalidParameterError, match=r"reads the item categories"):
            rw.sql_expr(name)


def test_the_fair_exposure_family_is_refused_by_name() -> None:
    """It reads the document groups and the target, which no judged frame holds."""
    for name in ("AWRF@10", "AWRF(definition='trec2022')@5", "nDCG_AWRF@3"):
        with pytest.raises(rw.InvalidParameterError, match=r"AWRF.* cannot be a metric expression \(Polars or SQL\): it reads the document groups"):
            rw.expr(name)
        with pytest.raises(rw.InvalidParameterError, match=r"reads the document groups"):
            rw.sql_expr(name)


def test_a_list_of_metrics_needs_exprs() -> None:
    with pytest.raises(rw.InvalidParameterError, match=r"names 99 metrics: use rw.exprs\('all_trec'"):
        rw.expr("all_trec")
    assert len(rw.exprs("all_trec")) == 99
    with pytest.raises(TypeError, match="unexpected keyword argument 'tie'"):
        rw.expr("AP", tie="doc_asc")  # type: ignore[call-arg]


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
def test_cost_column_for_the_cwl_measures() -> None:
    run = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "b", "c", "d"], "score": [4.0, 3.0, 2.0, 1.0],
                        "c": [1.0, 2.0, 0.5, 3.0]})
    qrels = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "c", "z"], "relevance": [1, 2, 1]})
    names = ["INST(value='EC')", "U(value='ETC')", "BPM(value='ETC')@3", "IFTGoal(value='EC')", "TBG(value='ETC')"]
    expected = rw.evaluate(qrels, run, names, cost="c")
    frame = rw.judged_frame(qrels, run, cost="c")
    assert frame.columns == ["query_id", "doc_id", "score", "relevance", "c", "retrieved"]
    got = frame.group_by("query_id").agg(rw.exprs(names, cost="c"))
    assert_frame_equal(got, expected, check_exact=False, abs_tol=1e-12, rel_tol=0)
    unit = frame.group_by("query_id").agg(rw.exprs(names))
    assert not unit.equals(got)  # without the column, every document costs 1


def test_an_undefined_ift_rate_raises_the_library_error() -> None:
    """A first document of cost 0 and gain 0: evaluate refuses IFTRate, so does the expression."""
    run = pl.DataFrame({"query_id": ["q"] * 2, "doc_id": ["a", "b"], "score": [2.0, 1.0], "c": [0.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["b"], "relevance": [1]})
    with pytest.raises(rw.InvalidValueError, match="IFTRate and IFTGoalRate is undefined"):
        rw.evaluate(qrels, run, ["IFTRate"], cost="c")
    frame = rw.judged_frame(qrels, run, cost="c")
    with pytest.raises(rw.InvalidValueError, match="IFTRate and IFTGoalRate is undefined"):
        frame.group_by("query_id").agg(rw.expr("IFTRate", cost="c"))


# -- judged_frame: the inputs evaluate takes, its checks, its queries -----------------------------


def test_judged_frame_queries_follow_missing() -> None:
    qrels, run = frames(FIXED, False)
    with pytest.warns(rw.RankwiseWarning, match="1 run query has no judgments"):
        ignore = rw.judged_frame(qrels, run)
    assert sorted(ignore["query_id"].unique()) == ["q1", "q2", "q5"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        zero = rw.judged_frame(qrels, run, missing="zero")
    assert sorted(zero["query_id"].unique()) == ["q1", "q2", "q4", "q5"]
    assert zero.filter(pl.col("query_id") == "q4")["retrieved"].to_list() == [False]
    # every judgment once, every retrieved row of a judged query once
    assert zero.filter(pl.col("relevance").is_not_null()).height == qrels.height
    assert zero.filter("retrieved").height == run.filter(pl.col("query_id") != "q3").height


def test_judged_frame_reads_what_evaluate_reads(tmp_path: Path) -> None:
    qrels, run = _tied()
    run.rename({"query_id": "qid"}).write_csv(tmp_path / "run.csv")
    got = rw.judged_frame({"q": {"d1": 1, "d7": 1, "d2": 0, "d10": 0}}, tmp_path / "run.csv", run_columns={"query_id": "qid"})
    assert got.equals(rw.judged_frame(qrels, run))
    with pytest.raises(rw.DuplicateDocumentError):
        rw.judged_frame(qrels, pl.concat([run, run]))
    with pytest.raises(rw.MissingColumnError, match="qid"):
        rw.judged_frame(qrels, run.rename({"query_id": "qid"}))
    with pytest.raises(rw.InvalidParameterError, match="retrieved column"):
        rw.judged_frame(qrels, run, retrieved="score")
    with pytest.raises(TypeError, match="unexpected keyword argument 'k'"):
        rw.judged_frame(qrels, run, k=3)  # type: ignore[call-arg]


# -- the README ------------------------------------------------------------------------------------


def test_readme_expression_example_is_a_doctest_with_the_quick_start_numbers() -> None:
    """The Polars example (docs/python.md, moved from the README) runs on the bundled data (from the project's root) and its
    means are the quick start's (map 0.1658, Rprec 0.1759, recip_rank 0.3907, P_10 0.1814)."""
    readme = (ROOT / "docs" / "python.md").read_text(encoding="utf-8")  # the README's reference
    section = readme.split("## Polars\n", 1)[1].split("\n## ", 1)[0]
    block = section.split("```python\n", 1)[1].split("\n```", 1)[0]
    assert "rw.judged_frame(" in block and "rw.exprs(" in block
    for number in ("0.1658", "0.1759", "0.3907", "0.1814"):
        assert number in block
    test = doctest.DocTestParser().get_doctest(block, {}, "docs/python.md (Polars)", str(ROOT / "docs" / "python.md"), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    import os

    cwd = Path.cwd()
    os.chdir(ROOT)
    try:
        runner.run(test)
    finally:
        os.chdir(cwd)
    assert runner.failures == 0 and runner.tries > 0


@pytest.mark.parametrize("missing", ["zero", "ignore"])
def test_expressions_refuse_missing(missing: str) -> None:
    """``missing`` is the judged frame's (which queries it holds): an expression, computed per
    group, would ignore it, so it is refused, pointing to judged_frame."""
    for call in (lambda: rw.expr("AP", missing=missing), lambda: rw.exprs(["AP", "P@5"], missing=missing)):
        with pytest.raises(rw.InvalidParameterError, match=rf"does not take missing=.*rw.judged_frame\(qrels, run, missing='{missing}'\)"):
            call()  # type: ignore[call-arg]
