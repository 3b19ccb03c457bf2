"""The shape of a Spark evaluation's executed plan (the performance issue: one shuffle by query).

Structure, not time: the shuffles (``Exchange`` nodes) of the executed physical plan are counted,
with adaptive query execution off and on (its final plan). Before, the run was shuffled twice
(by query and document for the join with the judgments, then by query for the windows) and the
judgments' join side by query and document; now each input is partitioned by the query and
the join, the windows and the aggregates reuse that partitioning: the run is shuffled once.
The judgments were then shuffled once for each place the statement reads them (the ideal order,
the join, the judged queries; and their data check), since Spark pushed a different projection
and filter under each; now the statement reads them through one CTE that Spark plans once
(``rankwise.evaluation.spark._by_query``), and each place reads the one shuffle: Spark's exchange
reuse makes each further place a ``ReusedExchange``, which reads the files the one ``Exchange``
wrote, moving no data, and is counted apart (:func:`reused_shuffles`), not as a shuffle. With
``check=True`` the run's data check reads the run's one shuffle the same way. The ``ORDER BY``
of the result (a range partitioning) is not a shuffle by query's hash and is left out."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankwise as rw

METRICS = ["nDCG@10", "AP", "P@5"]


def _seq(seq: Any) -> list[Any]:
    return [seq.apply(i) for i in range(seq.size())]


def plan_nodes(plan: Any) -> Iterator[Any]:
    """Every node of a physical plan (a py4j ``SparkPlan``): children, subqueries, and the
    final plan and query stages of adaptive execution."""
    stack = [plan]
    while stack:
        node = stack.pop()
        yield node
        name = node.nodeName()
        if name == "AdaptiveSparkPlan":
            stack.append(node.executedPlan())
        elif name.endswith("QueryStage"):
            stack.append(node.plan())
        stack += _seq(node.children()) + _seq(node.subqueries())


def _leaves(node: Any) -> list[Any]:
    return [n for n in plan_nodes(node) if not _seq(n.children()) and "QueryStage" not in n.nodeName()]


def _hash_exchanges(df: Any, name: str) -> list[tuple[str, tuple[str, ...]]]:
    """The hash-partitioning nodes ``name`` of ``df``'s executed plan (after it ran): for each,
    which input it moves ('run' when a scan under it has the score column, else 'qrels') and
    its keys (column names)."""
    found = []
    for node in plan_nodes(df._jdf.queryExecution().executedPlan()):
        if node.nodeName() != name:
            continue
        partitioning = node.outputPartitioning()
        if partitioning.getClass().getSimpleName() != "HashPartitioning":
            continue
        keys = tuple(re.sub(r"#\d+L?$", "", e.toString()) for e in _seq(partitioning.expressions()))
        exchange = node.child() if name == "ReusedExchange" else node  # a ReusedExchange is a leaf
        scanned = {a.name() for leaf in _leaves(exchange) for a in _seq(leaf.output())}
        found.append(("run" if "score" in scanned else "qrels", keys))
    return found


def hash_shuffles(df: Any) -> list[tuple[str, tuple[str, ...]]]:
    """The hash-partitioning shuffles of ``df``'s executed plan (``Exchange``): which input each
    moves and its keys."""
    return _hash_exchanges(df, "Exchange")


def reused_shuffles(df: Any) -> list[tuple[str, tuple[str, ...]]]:
    """The places of ``df``'s executed plan that read a hash-partitioning shuffle written at
    another place (``ReusedExchange``, Spark's exchange reuse: a subtree identical to that
    shuffle's): which input and keys, as :func:`hash_shuffles`. Not shuffles: no data moves."""
    return _hash_exchanges(df, "ReusedExchange")


def frames(queries: int = 12, docs: int = 30) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = random.Random(7)
    run = pl.DataFrame(
        [(f"q{q}", f"d{d}", float(rng.randint(0, 20))) for q in range(queries) for d in range(docs)],
        schema=["query_id", "doc_id", "score"], orient="row",
    )
    qrels = pl.DataFrame(
        [(f"q{q}", f"d{d}", rng.randint(0, 3)) for q in range(queries) for d in rng.sample(range(2 * docs), 10)],
        schema=["query_id", "doc_id", "relevance"], orient="row",
    )
    return run, qrels


@pytest.fixture(params=["false", "true"], ids=["aqe_off", "aqe_on"])
def adaptive(spark: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    key = "spark.sql.adaptive.enabled"
    before = spark.conf.get(key)
    spark.conf.set(key, request.param)
    yield spark
    spark.conf.set(key, before)


@pytest.mark.parametrize("check", [False, True], ids=["unchecked", "checked"])
def test_spark_evaluation_shuffles_the_run_once_by_query(adaptive: Any, check: bool) -> None:
    run, qrels = frames()
    df = rw.spark.evaluate(
        adaptive.createDataFrame(qrels.rows(), "query_id string, doc_id string, relevance long"),
        adaptive.createDataFrame(run.rows(), "query_id string, doc_id string, score double"),
        METRICS, check=check,
    )
    got = pl.DataFrame(df.collect(), schema=["query_id", *METRICS], orient="row")
    assert_frame_equal(got, rw.evaluate(qrels, run, METRICS), check_exact=False, abs_tol=1e-12)
    shuffles, reused = hash_shuffles(df), reused_shuffles(df)
    # every shuffle is by the query alone (none by query and document)
    assert {keys for _, keys in shuffles + reused} == {("query_id",)}, (shuffles, reused)
    # each input once, by the query, checked or not
    assert sorted(side for side, _ in shuffles) == ["qrels", "run"], shuffles
    # and read through it at several places: the judgments at three (the ideal order, the join,
    # the judged queries: the shuffle and two reuses), checked at four (their data check); the
    # run, checked, at two (the statement and its data check)
    assert sorted(side for side, _ in reused) == ["qrels"] * (3 if check else 2) + ["run"] * check, reused
