"""explain(): the last row's value equals evaluate()'s, for every metric, on random data; bad
requests are clear errors."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from tests.metrics.test_metric_strings import metrics
from tests.strategies import Case, cases
from tests.tiers import examples

METRICS = [
    "nDCG", "nDCG@3", "nDCG(gain='exponential')@5", "nDCG(discount='jarvelin', base=3)",
    "nDCG(ideal='run')@4", "nDCG(gains='1=0.5,2=0.8,3=0.3')", "DCG@2", "IDCG@4", "CG@3",
    "AP", "AP@3", "RR", "RR@2", "P@3", "R@2", "AP(rel=2)",
]


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(30), deadline=None)
@given(case=cases(), metric=st.sampled_from(METRICS))
def test_explain_ends_in_the_evaluated_value(case: Case, metric: str) -> None:
    run, qrels = case.run_frame(), case.qrels_frame()
    per_query = rw.evaluate(qrels, run, [metric])
    for query, expected in per_query.select("query_id", metric).iter_rows():
        table = rw.explain(qrels, run, metric, query)
        got = table["value"][-1] if table.height else 0.0
        assert got == pytest.approx(expected, abs=1e-12), (metric, query, table)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(60), deadline=None)
@given(case=cases(), metric=metrics())
def test_explain_supports_every_metric(case: Case, metric: rw.Metric) -> None:
    """Every registered metric (random parameters): the last row's value is evaluate()'s."""
    run, qrels = case.run_frame(), case.qrels_frame()
    train = case.train_frame()  # read by the popularity family's metrics
    features = case.features  # read by the feature-diversity family's metrics
    base_run = case.base_run  # read by the base-run family's metrics
    categories = case.categories  # read by the category family's metrics
    catalog = case.catalog  # its size read by the serendipity family's metrics
    groups = case.groups  # read by the fair-exposure family's metrics
    per_query = rw.evaluate(qrels, run, [metric], train=train, features=features, base_run=base_run, categories=categories,
                            catalog=catalog, groups=groups)
    for query, expected in per_query.select("query_id", metric.label).iter_rows():
        table = rw.explain(
            qrels, run, metric, query, train=train, features=features, base_run=base_run, categories=categories,
            catalog=catalog, groups=groups,
        )
        assert table.height, (metric, query)
        got = table["value"][-1]
        if isinstance(expected, str):
            assert got == expected, (metric, query, table)
        else:
            assert got == pytest.approx(expected, abs=1e-12), (metric, query, table)


def test_explain_errors() -> None:
    data = Path(__file__).resolve().parents[2] / "examples" / "data"
    run, qrels = data / "run.parquet", data / "qrels.parquet"
    with pytest.raises(rw.InvalidParameterError, match="explain takes one metric; 'all_trec' names"):
        rw.explain(qrels, run, "all_trec", "q001")
    with pytest.raises(rw.InvalidParameterError, match="query 'nope' is neither in the run nor in the qrels"):
        rw.explain(qrels, run, "AP", "nope")


def test_explain_integer_query_ids_from_the_command_line(tmp_path: Path) -> None:
    import polars as pl

    from rankwise.cli.commands import main

    pl.DataFrame({"query_id": [7, 7], "doc_id": [5, 48], "score": [1.0, 1.0]}).write_parquet(tmp_path / "r.parquet")
    pl.DataFrame({"query_id": [7], "doc_id": [48], "relevance": [1]}).write_parquet(tmp_path / "q.parquet")
    out = tmp_path / "x.csv"
    assert main(["explain", str(tmp_path / "q.parquet"), str(tmp_path / "r.parquet"), "-m", "RR", "-q", "7",
                 "--format", "csv", "-o", str(out)]) == 0
    # trec_eval's tie order: doc 5 above 48 (as text), so the relevant 48 is at rank 2
    table = pl.read_csv(out)
    assert table["doc_id"].to_list()[:2] == [5, 48]


def test_explain_reads_the_whole_ranking_past_the_cutoff() -> None:
    """The rows stop at the cutoff, but the last value is the metric's on the whole ranking:
    with ideal='run' the ideal takes a relevant document ranked below k (d1 at rank 5)."""
    import polars as pl

    run = pl.DataFrame({"query_id": ["q1"] * 5, "doc_id": ["D3", "d1", "d2", "d10", "d9"],
                        "score": [0.5, 0.0, 0.0, 0.0, 0.0]})
    qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "relevance": [1, 1]})
    metric = "nDCG(ideal='run')@4"
    table = rw.explain(qrels, run, metric, "q1")
    assert table["doc_id"].to_list() == ["D3", "d9", "d2", "d10"]
    assert table["ideal_doc_id"].to_list()[:2] == ["d1", "d2"]
    assert table["value"][-1] == pytest.approx(rw.evaluate(qrels, run, [metric])[metric][0], abs=1e-12)


@pytest.mark.parametrize("metric", ["nDCG(ties='average')@3", "DCG(ties='average')", "nDCG(ideal_cutoff='list')@10"])
def test_the_last_row_is_evaluate_for_tie_groups_and_list_cut_ideals(metric: str) -> None:
    """The cut rankings keep the ranking's scores, so tied documents stay tied (a tie group
    across the cutoff shares its discount in explain as in evaluate)."""
    run = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "b", "c", "d"], "score": [2.0, 1.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "c", "e"], "relevance": [0, 2, 3]})
    assert rw.explain(qrels, run, metric, "q")["value"][-1] == pytest.approx(rw.evaluate(qrels, run, [metric])[metric][0], abs=1e-12)
