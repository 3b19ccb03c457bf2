"""Shared fixtures: one test body runs on every engine (Polars eager, Polars lazy, DuckDB)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rankwise as rw
from tests import tiers

ENGINES = ("polars", "polars-lazy", "duckdb")

SLOW_FIXTURES = frozenset({"spark"})
"""A test that uses one of these is in the slow tier (:mod:`tests.tiers`): a Spark session."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--full", action="store_true",
        help="run every test at full size (the slow tier too, all property-test examples): "
        "the README's test command and CI; without it, the fast tier",
    )


def pytest_configure(config: pytest.Config) -> None:
    tiers.load(bool(config.getoption("--full")))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the Spark-session tests slow; without ``--full``, leave every slow test out (said
    as deselected in pytest's summary)."""
    for item in items:
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
    if config.getoption("--full"):
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]

Evaluate = Callable[..., pl.DataFrame]


def _conformance_dir() -> Path:
    env = os.environ.get("RANKWISE_CONFORMANCE")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    # ../shared/conformance/trec_eval beside the project's root
    return here.parents[2] / "shared" / "conformance" / "trec_eval"


CONFORMANCE = _conformance_dir()


def close_rows(rows: list[tuple[object, ...]], want: list[tuple[object, ...]]) -> bool:
    """Rows equal, their numbers to 1e-12."""
    return len(rows) == len(want) and all(
        len(r) == len(w) and all(
            a == b if isinstance(b, str) or b is None or a is None else a == pytest.approx(b, abs=1e-12)
            for a, b in zip(r, w, strict=True)
        )
        for r, w in zip(rows, want, strict=True)
    )


def under_max_rank(names: list[str], max_rank: int | None) -> list[str]:
    """The metrics of ``names`` that can be evaluated under ``max_rank``: a metric's own
    ``ties='expected'`` cannot (refused, as the convention's is: which documents of a tie group
    the cut keeps would depend on their order; tests/metrics/test_expected_ties.py)."""
    if max_rank is None:
        return names
    return [n for n in names if rw.metric.parse_metric(n).resolve({}).get("ties") != "expected"]


def run_on(engine: str, qrels: Any, run: Any, metrics: Any, **kw: Any) -> pl.DataFrame:
    """Evaluate through one engine's public entry point."""
    if engine == "polars":
        return rw.evaluate(qrels, run, metrics, engine="polars", **kw)
    if engine == "polars-lazy":
        lf = run.lazy() if isinstance(run, pl.DataFrame) else rw.io.to_lazyframe(run, "run", rw.Columns(**{
            k: v for k, v in kw.items() if k in ("query_id", "doc_id", "score", "relevance")
        }))
        out = lf.ir.evaluate(qrels, metrics, **kw)
        assert isinstance(out, pl.LazyFrame)
        return out.collect()
    if engine == "duckdb":
        return rw.evaluate(qrels, run, metrics, engine="duckdb", **kw)
    raise ValueError(engine)


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def evaluate(engine: str) -> Evaluate:
    """``evaluate(qrels, run, metrics, **conventions)`` on the parametrized engine."""

    def call(qrels: Any, run: Any, metrics: Any, **kw: Any) -> pl.DataFrame:
        return run_on(engine, qrels, run, metrics, **kw)

    return call


@pytest.fixture
def conformance() -> Path:
    if not CONFORMANCE.is_dir():
        pytest.fail(f"trec_eval conformance files not found at {CONFORMANCE} (set RANKWISE_CONFORMANCE)")
    return CONFORMANCE


@pytest.fixture(scope="session")
def spark() -> Any:
    """One local Spark session for the whole test run (startup takes seconds)."""
    import warnings

    warnings.filterwarnings("ignore", category=FutureWarning)
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]").appName("rankwise-tests")
        .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
        # the whole-registry statements (about 100 metrics at once) need more than the 1 GB default
        .config("spark.driver.memory", "4g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def run_on_spark(session: Any, qrels: pl.DataFrame, run: pl.DataFrame, metrics: Any, **kw: Any) -> pl.DataFrame:
    """The Spark engine, through the same entry point shape as run_on."""
    result = rw.spark.evaluate(
        session.createDataFrame(qrels.to_pandas()), session.createDataFrame(run.to_pandas()), metrics, **kw
    )
    return pl.from_pandas(result.toPandas())


GREEDY_JUDGMENTS = 40
"""Judgments per query given to metrics with ndeval's greedy ideal in the Spark tests on
trec_eval's qrels.test: the greedy takes one step (on Spark, one job) per relevant document, and
query 301 has 474."""


def greedy_ideal(metric: rw.Metric) -> bool:
    """Whether ``metric`` reads ndeval's greedy ideal ranking."""
    from rankwise.metrics.recipes import recipe
    from rankwise.primitives import leaves

    return any(leaf.side == "ideal_intents" for leaf in leaves(recipe(metric, rw.Conventions().as_params())))


def first_judgments(qrels: pl.DataFrame, n: int = GREEDY_JUDGMENTS) -> pl.DataFrame:
    """The first ``n`` judgments of each query."""
    return qrels.filter(pl.int_range(pl.len()).over("query_id") < n)
