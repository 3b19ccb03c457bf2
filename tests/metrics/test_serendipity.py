"""User coverage and serendipity (beyond accuracy): rectools' ``CoveredUsers`` (``UserCoverage@k``)
against rectools itself and hand-computed values.

- ``tests/data/beyond/serendipity_goldens.json``: rectools' per-user values on four cases (a hand case
  with popularity ties, training repeats, items never in training, a user without training, nothing
  relevant, a judged user without a list, lists shorter and longer than k; three seeded random cases
  with a skewed popularity, one with integer ids), computed by
  ``tests/data/beyond/make_serendipity_goldens.py`` with rectools 0.19.0 in an environment with
  pandas < 3;
- rectools itself, live, on random data (it is a test extra);
- hand-computed values at the edges, and a property against the definition written out below.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from tests.cli.test_cli import cli as rankwise_cli
from tests.conftest import close_rows, run_on
from tests.tiers import examples

GOLDENS = json.loads((Path(__file__).parents[1] / "data" / "beyond" / "serendipity_goldens.json").read_text())

ENGINES = ("polars", "polars-lazy", "duckdb", "to_sql")

pytestmark = pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")


def _frames(case: dict[str, Any]) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    ids = pl.Int64 if case["ids"] == "int" else pl.String
    run = pl.DataFrame(case["run"], schema={"query_id": ids, "doc_id": ids, "score": pl.Float64}, orient="row")
    qrels = pl.DataFrame(case["qrels"], schema={"query_id": ids, "doc_id": ids, "relevance": pl.Int64}, orient="row")
    train = pl.DataFrame(case["train"], schema={"query_id": ids, "doc_id": ids}, orient="row")
    catalog = pl.DataFrame({"doc_id": case["catalog"]}, schema={"doc_id": ids})
    return qrels, run, train, catalog


def evaluate_on(engine: str, qrels: pl.DataFrame, run: pl.DataFrame, metrics: list[str], **kw: Any) -> pl.DataFrame:
    """Evaluate through one engine's entry point; ``to_sql``: the statement run by DuckDB over
    registered tables (each side input frame registered under its keyword)."""
    if engine != "to_sql":
        return run_on(engine, qrels, run, metrics, **kw)
    con = duckdb.connect()
    tables = {}
    for name, frame in (("run", run), ("qrels", qrels), *((k, v) for k, v in kw.items() if isinstance(v, pl.DataFrame))):
        con.register(f"t_{name}", frame)
        tables[name] = f"t_{name}"
    options = {k: v for k, v in kw.items() if not isinstance(v, pl.DataFrame)}
    sides = {k: tables[k] for k in kw if k in tables}
    return con.sql(rw.to_sql(metrics, run="t_run", qrels="t_qrels", **sides, **options)).pl()


def _values(got: pl.DataFrame, metric: str) -> dict[str, float | None]:
    return {str(q): v for q, v in zip(got["query_id"], got[metric], strict=True)}


# -- UserCoverage ------------------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", GOLDENS["cases"], ids=lambda c: c["name"])
def test_rectools_covered_users(case: dict[str, Any], engine: str) -> None:
    """rectools' CoveredUsers: under missing='zero' every user rectools scores (the users with a
    relevant judgment) has its value, a judged user without a list 0; the judged users with nothing
    relevant, which rectools does not score, are NULL."""
    qrels, run, _, _ = _frames(case)
    metric = f"UserCoverage@{case['k']}"
    got = _values(evaluate_on(engine, qrels, run, [metric], missing="zero"), metric)
    theirs = case["values"]["rectools.CoveredUsers"]
    assert {u: v for u, v in got.items() if v is not None} == pytest.approx(theirs)
    assert set(got) == {str(u) for u, _, _ in case["qrels"]}


def test_the_goldens_hold_the_edges() -> None:
    """The cases hold what they are for: an uncovered judged user in each, a user with nothing
    relevant (not scored by rectools), integer ids."""
    for case in GOLDENS["cases"]:
        assert 0.0 in case["values"]["rectools.CoveredUsers"].values(), case["name"]
    hand = GOLDENS["cases"][0]["values"]["rectools.CoveredUsers"]
    assert hand["u5"] == 0.0 and "u4" not in hand
    assert GOLDENS["cases"][3]["ids"] == "int"


QRELS = pl.DataFrame({
    "query_id": ["u1", "u2", "u2", "u3", "u4"],
    "doc_id": ["b", "a", "z", "x", "a"],
    "relevance": [1, 0, 2, 0, 1],
})
RUN = pl.DataFrame({
    "query_id": ["u1", "u1", "u1", "u2", "u3", "u9"],
    "doc_id": ["a", "b", "z", "a", "x", "a"],
    "score": [3.0, 2.0, 1.0, 1.0, 1.0, 1.0],
})
"""u1: three items, b relevant; u2: one item, z relevant (relevance 2); u3: judged, nothing relevant; u4:
judged and relevant, no list; u9: a list, no judgment (not scored: no judged user)."""


@pytest.mark.parametrize("engine", ENGINES)
def test_user_coverage_hand_values(engine: str) -> None:
    """u1, u2 covered (1 at any k); u3 NULL (nothing relevant); u4 uncovered: 0 under
    missing='zero', left out under 'ignore' (the mean is then over the users listed); rel=2 leaves
    only u2 scored."""
    got = evaluate_on(engine, QRELS, RUN, ["UserCoverage@1", "UserCoverage(rel=2)@2"], missing="zero")
    assert close_rows(got.rows(), [("u1", 1.0, None), ("u2", 1.0, 1.0), ("u3", None, None), ("u4", 0.0, None)])
    ignored = evaluate_on(engine, QRELS, RUN, ["UserCoverage@1"])
    assert close_rows(ignored.rows(), [("u1", 1.0), ("u2", 1.0), ("u3", None)])


def test_user_coverage_like_rectools() -> None:
    """rectools' preset (missing='zero') names it CoveredUsers and gives the user coverage as its mean."""
    assert rw.like("rectools", "UserCoverage@2").metric == "UserCoverage@2"
    case = GOLDENS["cases"][1]
    qrels, run, _, _ = _frames(case)
    got = rw.evaluate(qrels, run, [f"UserCoverage@{case['k']}"], like="rectools", per_query=False)
    theirs = list(case["values"]["rectools.CoveredUsers"].values())
    assert got.item() == pytest.approx(sum(theirs) / len(theirs))


def test_user_coverage_needs_a_cutoff_and_takes_its_alias() -> None:
    with pytest.raises(rw.InvalidParameterError, match=r"UserCoverage needs a cutoff, e\.g\. UserCoverage@10"):
        rw.evaluate(QRELS, RUN, ["UserCoverage"])
    got = rw.evaluate(QRELS, RUN, ["CoveredUsers@3", "UserCoverage@3"], missing="zero")
    assert got["CoveredUsers@3"].to_list() == got["UserCoverage@3"].to_list()


def _ranked(run: list[tuple[str, str, float]]) -> Any:
    import pandas as pd

    frame = pl.DataFrame(run, schema=["user_id", "item_id", "score"], orient="row")
    ranked = frame.with_columns(pl.col("score").rank("ordinal", descending=True).over("user_id").alias("rank"))
    return pd.DataFrame(ranked.select("user_id", "item_id", "rank").to_dict(as_series=False))


@settings(max_examples=examples(20), deadline=None)
@given(seed=st.integers(0, 10**6), k=st.integers(1, 6), engine=st.sampled_from(["polars", "duckdb"]))
def test_rectools_live(seed: int, k: int, engine: str) -> None:
    """rectools' CoveredUsers on random data: judged users without a list, users with nothing relevant."""
    pd = pytest.importorskip("pandas")
    metrics_mod = pytest.importorskip("rectools.metrics")
    rng = random.Random(seed)
    items = [f"i{j}" for j in range(rng.randint(2, 15))]
    run: list[tuple[str, str, float]] = []
    qrels: list[tuple[str, str, int]] = []
    for u in range(rng.randint(1, 10)):
        if rng.random() < 0.8:
            listed = rng.sample(items, rng.randint(1, min(6, len(items))))
            run += [(f"u{u}", item, float(len(listed) - r)) for r, item in enumerate(listed)]
        qrels.append((f"u{u}", rng.choice(items), rng.choice([0, 1, 1])))
    if not run:
        run.append(("u0", items[0], 1.0))
    inter = pd.DataFrame([(u, i) for u, i, rel in qrels if rel >= 1], columns=["user_id", "item_id"])
    got = rw.evaluate(
        pl.DataFrame(qrels, schema=["query_id", "doc_id", "relevance"], orient="row"),
        pl.DataFrame(run, schema=["query_id", "doc_id", "score"], orient="row"), [f"UserCoverage@{k}"],
        missing="zero", engine=engine,
    )
    ours = {u: v for u, v in _values(got, f"UserCoverage@{k}").items() if v is not None}
    theirs = metrics_mod.CoveredUsers(k).calc_per_user(_ranked(run), inter)
    assert ours == {u: float(v) for u, v in theirs.items()}


def _coverage_by_definition(run: dict[str, list[str]], qrels: dict[str, dict[str, int]], k: int, rel: int) -> dict[str, float | None]:
    """UserCoverage@k written out: per judged user, NULL with nothing of relevance >= rel, else 1 when
    its list has an item at a rank <= k (k >= 1: the list is not empty), else 0."""
    return {
        u: None if not any(r >= rel for r in judged.values()) else float(len(run.get(u, [])[:k]) > 0)
        for u, judged in qrels.items()
    }


@settings(max_examples=examples(30), deadline=None)
@given(data=st.data(), k=st.integers(1, 5), rel=st.integers(1, 2), engine=st.sampled_from(["polars", "duckdb"]))
def test_user_coverage_property(data: st.DataObject, k: int, rel: int, engine: str) -> None:
    users = [f"u{j}" for j in range(6)]
    items = [f"i{j}" for j in range(6)]
    run = {u: data.draw(st.lists(st.sampled_from(items), unique=True, max_size=4)) for u in users}
    qrels = {u: data.draw(st.dictionaries(st.sampled_from(items), st.integers(0, 2), max_size=3)) for u in users}
    qrels = {u: j for u, j in qrels.items() if j}
    if not qrels or not any(run.get(u) for u in qrels):
        return
    run_frame = pl.DataFrame(
        [(u, i, float(-r)) for u, listed in run.items() for r, i in enumerate(listed)],
        schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}, orient="row",
    )
    qrels_frame = pl.DataFrame(
        [(u, i, r) for u, j in qrels.items() for i, r in j.items()],
        schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64}, orient="row",
    )
    metric = f"UserCoverage(rel={rel})@{k}"
    got = _values(rw.evaluate(qrels_frame, run_frame, [metric], missing="zero", engine=engine), metric)
    assert got == _coverage_by_definition(run, qrels, k, rel)


# -- every path -------------------------------------------------------------------------------------
def test_user_coverage_on_every_path(tmp_path: Path) -> None:
    """Segments, query chunks, explain, compare, the namespace, the command line (its Polars and SQL
    expressions: tests/engines/test_expr.py, as every metric of the run and the qrels)."""
    metric = "UserCoverage@2"
    want = rw.evaluate(QRELS, RUN, [metric], missing="zero")
    assert rw.evaluate(QRELS, RUN, [metric], missing="zero", query_chunks=2).equals(want)
    for engine in ("polars", "duckdb"):
        run = pl.concat([RUN.with_columns(pl.lit("s").alias("seg")),
                         RUN.filter(pl.col("query_id") != "u1").with_columns(pl.lit("t").alias("seg"))])
        got = rw.evaluate(QRELS, run, [metric], by="seg", engine=engine, missing="zero")
        # a judged user the segment lacks is in no segment (missing= keeps no row there)
        assert close_rows(got.rows(), [("s", "u1", 1.0), ("s", "u2", 1.0), ("s", "u3", None),
                                       ("t", "u2", 1.0), ("t", "u3", None)])
    table = rw.explain(QRELS, RUN, metric, "u1")
    assert table["value"].to_list() == [1.0, 1.0]
    other = RUN.filter(pl.col("query_id") != "u2")
    compared = rw.compare(QRELS, {"a": RUN, "b": other}, [metric], missing="zero")
    assert compared.filter(pl.col("metric") == metric)["mean"].item() == pytest.approx(1 / 3)
    lazy = RUN.lazy().ir.evaluate(QRELS, [metric], missing="zero").collect()
    assert lazy.equals(want)
    QRELS.write_parquet(tmp_path / "qrels.parquet")
    RUN.write_parquet(tmp_path / "run.parquet")
    done = rankwise_cli("eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), "-m", metric, "-c",
                        "--format", "csv")
    assert done.returncode == 0, done.stderr
    assert pl.read_csv(done.stdout.encode())[metric].item() == pytest.approx(2 / 3)
    page = rankwise_cli("metrics", "UserCoverage")
    assert page.returncode == 0 and "CoveredUsers" in page.stdout


def test_spark(spark: Any) -> None:
    from tests.engines.test_spark import from_spark, to_spark

    metrics = ["UserCoverage@1", "UserCoverage(rel=2)@2"]
    got = from_spark(rw.spark.evaluate(to_spark(spark, QRELS), to_spark(spark, RUN), metrics, missing="zero"))
    want = rw.evaluate(QRELS, RUN, metrics, missing="zero")
    assert close_rows(got.sort("query_id").rows(), want.rows())
