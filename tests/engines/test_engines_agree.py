"""One body, every engine: every registered metric, with random parameters and conventions,
gives the same per-query values on Polars (eager, lazy) and DuckDB to 1e-12. (Correctness
against outside references is in test_reference.py, test_conformance.py, test_golden.py.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import rankwise as rw
from rankwise.metrics.recipes import RECIPES, reading_features, reading_side, reading_train, recipe
from rankwise.metrics.registry import SPECS
from rankwise.primitives import Primitive, declared, leaves, qrels_needs
from tests.conftest import first_judgments, greedy_ideal, run_on
from tests.metrics.test_metric_strings import PER_QUERY_SPECS, metrics
from tests.strategies import Case, cases
from tests.tiers import examples


def test_every_spec_has_a_recipe_and_every_primitive_is_used() -> None:
    assert set(RECIPES) == {s.name for s in SPECS}
    used: set[type] = set()
    for spec in SPECS:
        # the defaults, then each choice of each parameter that has choices, and each flag flipped
        variants: list[dict[str, Any]] = [{}]
        variants += [{p.name: c} for p in spec.params if p.choices for c in p.choices]
        variants += [{p.name: not p.default} for p in spec.params if p.kind is bool]
        for params in variants:
            cutoff = 10 if spec.cutoff != "none" else None
            m = rw.metric.make_metric(spec, params, cutoff)
            for leaf in leaves(recipe(m, {})):
                used.add(type(leaf))
                used |= {type(need) for need in qrels_needs(leaf)}
    assert used == set(declared(Primitive))


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(
    case=cases(),
    chosen=st.lists(metrics(), min_size=1, max_size=6, unique_by=repr),
    ties=st.sampled_from(["trec_eval", "doc_asc", "optimistic", "pessimistic"]),
    missing=st.sampled_from(["ignore", "zero"]),
    max_rank=st.sampled_from([None, 1, 3]),
    rel=st.sampled_from([1, 2, 0.5]),
    judged_only=st.booleans(),
)
def test_engines_agree(case: Case, chosen: list[rw.Metric], ties: str, missing: str,
                       max_rank: int | None, rel: float, judged_only: bool) -> None:
    names = [repr(m) for m in chosen]
    kw = dict(ties=ties, missing=missing, max_rank=max_rank, rel=rel, judged_only=judged_only)
    run, qrels = case.run_frame(), case.qrels_frame()
    if max_rank is not None and any(m.resolve({}).get("ties") == "expected" for m in chosen):
        # which documents of a tie group across the cut max_rank keeps depends on their order:
        # refused on every engine (Polars once computed the kept documents' expectation, DuckDB
        # the whole group's), as the convention ties='expected' with max_rank is
        for engine in ("polars", "polars-lazy", "duckdb"):
            with pytest.raises(rw.InvalidParameterError, match="'max_rank' cannot be used with"):
                run_on(engine, qrels, run, names, **kw)
        return
    kw["train"] = case.train_frame()  # read by the popularity family's metrics
    kw["features"] = case.features  # read by the feature-diversity family's metrics
    kw["base_run"] = case.base_run  # read by the base-run family's metrics
    kw["categories"] = case.categories  # read by the category family's metrics
    kw["catalog"] = case.catalog  # its size read by the serendipity family's metrics
    kw["groups"] = case.groups  # read by the fair-exposure family's metrics
    results = [run_on(engine, qrels, run, names, **kw) for engine in ("polars", "polars-lazy", "duckdb")]
    for other in results[1:]:
        # 1e-12, relative to the value beyond 1: the C/W/L residuals (e.g. IFTRate's ResETU,
        # about 32 for a two-document run padded to depth 1,000) sum a thousand terms, whose
        # rounding the engines' orders of summation differ in by about 1e-12 absolute
        assert_frame_equal(results[0], other, check_exact=False, abs_tol=1e-12, rel_tol=1e-12)
    assert results[0].columns == ["query_id", *names]
    for m, name in zip(chosen, names, strict=True):
        assert results[0].schema[name] == (pl.String if m.spec.value_type == "string" else pl.Float64)
        # issue 32: a NaN never reaches a mean that is printed (undefined values are NULL)
        if m.spec.value_type != "string":
            assert not results[0][name].is_nan().any(), name


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("spec", PER_QUERY_SPECS, ids=lambda s: s.name)
def test_each_metric_alone_on_every_engine(spec: rw.spec.MetricSpec, conformance: Path) -> None:
    """Each metric by itself (no other metric registering the pieces it needs), on Polars
    eager, Polars lazy and DuckDB (on Spark, test_spark's every-metric check)."""
    conf = conformance
    metric = rw.metric.make_metric(spec, {}, 10 if spec.cutoff == "required" else None)
    m = repr(metric)
    run = rw.io.read_trec(conf / "results.trunc", "run", rw.Columns())
    qrels = rw.io.read_trec(conf / "qrels.test", "qrels", rw.Columns())
    if greedy_ideal(metric):
        qrels = first_judgments(qrels)
    # the training interactions of the popularity family: the judgments' (user, item) pairs
    train: dict[str, Any] = (
        {"train": qrels.select("query_id", "doc_id")} if reading_train([metric], rw.Conventions()) else {}
    )
    if reading_features([metric], rw.Conventions()):
        # the item features of the feature-diversity family: every listed document's, from its id
        docs = run["doc_id"].unique().sort().to_list()
        train["features"] = {d: [float(i % 3 == 0), float(i % 2), (i % 5) / 4] for i, d in enumerate(docs)}
    if reading_side([metric], rw.Conventions(), "base_run"):
        # the base run of the base-run family: the run itself with its scores reversed
        train["base_run"] = run.with_columns(-pl.col("score"))
    if reading_side([metric], rw.Conventions(), "categories"):
        # the item categories of the category family: from each listed document's id, none to two
        docs = run["doc_id"].unique().sort().to_list()
        train["categories"] = {d: [f"g{j}" for j in range(i % 3) if (i + j) % 4] for i, d in enumerate(docs)}
    if reading_side([metric], rw.Conventions(), "catalog"):
        # the catalog whose size the serendipity family reads: the listed documents
        train["catalog"] = run["doc_id"].unique()
    if reading_side([metric], rw.Conventions(), "groups"):
        # the document groups of the fair-exposure family: every listed document in one or two of three
        docs = run["doc_id"].unique().sort().to_list()
        train["groups"] = {d: {"g1": 1.0} if i % 3 == 0 else {"g2": 0.5, "g3": 0.5} for i, d in enumerate(docs) if i % 7}
    results = [run_on(e, qrels, run, [m], missing="zero", **train) for e in ("polars", "polars-lazy", "duckdb")]
    for other in results[1:]:
        assert_frame_equal(results[0], other, check_exact=False, abs_tol=1e-12, rel_tol=0, check_dtypes=False)
