"""Group exposure parity (set-level: one value per run or segment): GroupAttention and
GroupExposure against FairRankTune and against their definitions.

- ``tests/data/beyond/exposure_parity_goldens.json``: FairRankTune 0.0.7's ``AWRF`` (p = 0.5, 0.2)
  and ``EXP`` with each of its seven combos on five cases (hand-sized, random with string and
  integer ids, one group), the lists cut at k (FairRankTune has no cutoff), computed by
  ``tests/data/beyond/make_exposure_parity_goldens.py``; ``sources`` cites the library's lines;
- hand-computed values at the edges (a document in two groups, a listed document without a group,
  a group never listed); random data against the definitions written out below.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from tests.conftest import close_rows
from tests.metrics.test_catalog import ENGINES
from tests.strategies import cases
from tests.tiers import examples

GOLDENS = json.loads((Path(__file__).parents[1] / "data" / "beyond" / "exposure_parity_goldens.json").read_text())
COMBOS = ("MinMaxRatio", "MaxMinRatio", "MaxMinDiff", "MaxAbsDiff", "MeanAbsDev", "LTwo", "Variance")


def _inputs(case: dict[str, Any]) -> tuple[pl.DataFrame, pl.DataFrame, dict[Any, str]]:
    """The case's qrels (one judgment per user: every user scored), run and groups."""
    ids = pl.Int64 if case["ids"] == "int" else pl.String
    run = pl.DataFrame(case["run"], schema={"query_id": ids, "doc_id": ids, "score": pl.Float64}, orient="row")
    users = run["query_id"].unique(maintain_order=True)
    qrels = pl.DataFrame({"query_id": users, "doc_id": [run["doc_id"][0]] * len(users), "relevance": [1] * len(users)})
    groups = {(int(d) if case["ids"] == "int" else d): str(g) for d, g in case["groups"].items()}
    return qrels, run, groups


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", GOLDENS["cases"], ids=lambda c: c["name"])
def test_fairranktune_values(case: dict[str, Any], engine: str) -> None:
    qrels, run, groups = _inputs(case)
    wanted: dict[str, str] = {}
    for k in case["ks"]:
        for combo in COMBOS:
            for p in (0.5, 0.2):
                key = f"fairranktune.AWRF(p={p},combo={combo})[lists cut at k](k={k})"
                wanted[f"GroupAttention(p={p}, combo='{combo}')@{k}"] = key
            wanted[f"GroupExposure(combo='{combo}')@{k}"] = f"fairranktune.EXP(combo={combo})[lists cut at k](k={k})"
    got = rw.evaluate(qrels, run, list(wanted), groups=groups, per_query=False, engine=engine)
    for label, key in wanted.items():
        value, want = got[label].item(), case["values"][key]
        # FairRankTune's inf (a ratio over a group without exposure) is recorded as an error: NULL here
        assert (value is None) == (want is None), (case["name"], label, value, want, case["errors"].get(key))
        if want is not None:
            assert value == pytest.approx(want, rel=1e-12, abs=1e-12), (case["name"], label)


@pytest.mark.parametrize("engine", ENGINES)
def test_hand_values(engine: str) -> None:
    """u1 lists a, b; u2 b, c, z. Groups: a x; b half x, half y; c y; d x (never listed); z has
    none. At k = 3, exposure 1 / log2(1 + r): x gets a 1 + b 0.5 (u1's rank 2: 1/log2 3) · ...
    written out: x = 1 + 0.5/log2(3) + 0.5 · 1 (u2's b at rank 1), over its items a, d and half b
    (2.5); y = 0.5/log2(3) + 0.5 + 1/log2(3) (u2's c at rank 2), over half b and c (1.5)."""
    run = pl.DataFrame({
        "query_id": ["u1", "u1", "u2", "u2", "u2"], "doc_id": ["a", "b", "b", "c", "z"], "score": [2.0, 1.0, 3.0, 2.0, 1.0],
    })
    qrels = pl.DataFrame({"query_id": ["u1", "u2"], "doc_id": ["a", "a"], "relevance": [1, 1]})
    groups = {"a": "x", "b": {"x": 0.5, "y": 0.5}, "c": "y", "d": "x"}
    third = 1 / math.log2(3)
    x = (1 + 0.5 * third + 0.5) / 2.5
    y = (0.5 * third + 0.5 + third) / 1.5
    mean = (x + y) / 2
    got = rw.evaluate(qrels, run, [f"GroupExposure(combo='{c}')@3" for c in COMBOS], groups=groups, per_query=False,
                      engine=engine)
    expected = (min(x, y) / max(x, y), max(x, y) / min(x, y), abs(x - y), abs(x - mean), abs(x - mean),
                math.hypot(x, y), (x - mean) ** 2)
    assert close_rows(got.rows(), [expected])
    # attention at k = 1: the first rows only (a for u1, b for u2), 100 p each
    at_1 = rw.evaluate(qrels, run, ["GroupAttention(p=0.2, combo='MaxMinDiff')@1"], groups=groups, per_query=False,
                       engine=engine)
    assert at_1.item() == pytest.approx((20 + 10) / 2.5 - 10 / 1.5)


@pytest.mark.parametrize("engine", ENGINES)
def test_it_needs_the_groups(engine: str) -> None:
    run = pl.DataFrame({"query_id": ["u1"], "doc_id": ["a"], "score": [1.0]})
    qrels = pl.DataFrame({"query_id": ["u1"], "doc_id": ["a"], "relevance": [1]})
    with pytest.raises(rw.InvalidParameterError, match=r"GroupExposure@3 reads the document groups.*pass groups="):
        rw.evaluate(qrels, run, ["GroupExposure@3"], per_query=False, engine=engine)


# -- random data: every engine equals the definitions, written out here ---------------------------
def _definitions(case: Any, groups: dict[str, str], k: int, p: float) -> dict[str, float | None]:
    lists = [sorted(docs, key=lambda d: (docs[d], d), reverse=True)[:k] for q, docs in case.run.items() if q in case.qrels]
    if not any(lists):
        return {f"{name}.{c}": None for name in ("attention", "exposure") for c in COMBOS}
    names = sorted(set(groups.values()))
    sizes = {g: sum(1 for d in groups if groups[d] == g) for g in names}
    out: dict[str, float | None] = {}
    for name, weight in (("attention", lambda r: 100 * p * (1 - p) ** (r - 1)), ("exposure", lambda r: 1 / math.log2(1 + r))):
        totals = dict.fromkeys(names, 0.0)
        for items in lists:
            for r, d in enumerate(items, start=1):
                if d in groups:
                    totals[groups[d]] += weight(r)
        v = [totals[g] / sizes[g] for g in names]
        mean = sum(v) / len(v)
        out[f"{name}.MinMaxRatio"] = min(v) / max(v) if max(v) else None
        out[f"{name}.MaxMinRatio"] = max(v) / min(v) if min(v) else None
        out[f"{name}.MaxMinDiff"] = max(v) - min(v)
        out[f"{name}.MaxAbsDiff"] = max(abs(x - mean) for x in v)
        out[f"{name}.MeanAbsDev"] = sum(abs(x - mean) for x in v) / len(v)
        out[f"{name}.LTwo"] = math.sqrt(sum(x * x for x in v))
        out[f"{name}.Variance"] = sum((x - mean) ** 2 for x in v) / len(v)
    return out


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(case=cases(), k=st.integers(1, 4), p=st.sampled_from([0.5, 0.2, 0.9]), data=st.data())
def test_random_data_equals_the_definitions(case: Any, k: int, p: float, data: st.DataObject) -> None:
    """Ties, unjudged users (left out), documents without a group, groups never listed."""
    docs = sorted({d for ranking in case.run.values() for d in ranking} | {"extra"})
    grouped = data.draw(st.lists(st.sampled_from(docs), min_size=1, unique=True))
    groups = {d: data.draw(st.sampled_from(["g1", "g2", "g3"])) for d in grouped}
    expected = _definitions(case, groups, k, p)
    labels = {
        **{f"attention.{c}": f"GroupAttention(p={p}, combo='{c}')@{k}" for c in COMBOS},
        **{f"exposure.{c}": f"GroupExposure(combo='{c}')@{k}" for c in COMBOS},
    }
    for engine in ENGINES:
        got = rw.evaluate(case.qrels_frame(), case.run_frame(), list(labels.values()), groups=groups, per_query=False,
                          engine=engine)
        for name, label in labels.items():
            value, want = got[label].item(), expected[name]
            assert (value is None) == (want is None), (engine, label, value, want)
            if want is not None:
                assert value == pytest.approx(want, rel=1e-9, abs=1e-9), (engine, label)


# -- SQL, Spark, compare and the command line -----------------------------------------------------
METRICS = ["GroupExposure@3", "GroupAttention(combo='LTwo')@2"]


def _sql_inputs() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    run = pl.DataFrame({
        "query_id": ["u1", "u1", "u2", "u2", "u2"], "doc_id": ["a", "b", "b", "c", "z"], "score": [2.0, 1.0, 3.0, 2.0, 1.0],
    })
    qrels = pl.DataFrame({"query_id": ["u1", "u2"], "doc_id": ["a", "a"], "relevance": [1, 1]})
    groups = pl.DataFrame({"doc_id": ["a", "b", "b", "c", "d"], "group": ["x", "x", "y", "y", "x"],
                           "weight": [1.0, 0.5, 0.5, 1.0, 1.0]})
    return run, qrels, groups


def test_to_sql_gives_one_row_as_evaluate() -> None:
    import duckdb

    run, qrels, groups = _sql_inputs()
    con = duckdb.connect()
    for name, frame in (("run", run), ("qrels", qrels), ("doc_groups", groups)):
        con.register(name, frame)
    got = con.sql(rw.to_sql(METRICS, groups="doc_groups", groups_columns={"weight": "weight"})).pl()
    want = rw.evaluate(qrels, run, METRICS, groups=groups, per_query=False)
    assert got.columns == METRICS and close_rows(got.rows(), want.rows())
    with pytest.raises(rw.InvalidParameterError, match=r"GroupExposure@3 reads the document groups.*pass groups="):
        rw.to_sql(METRICS)


def test_spark(spark: Any) -> None:
    from tests.engines.test_spark import from_spark, to_spark

    run, qrels, groups = _sql_inputs()
    got = from_spark(rw.spark.evaluate(to_spark(spark, qrels), to_spark(spark, run), METRICS, groups=to_spark(spark, groups)))
    want = rw.evaluate(qrels, run, METRICS, groups=groups, per_query=False)
    assert got.columns == METRICS and close_rows(got.rows(), want.rows())


def test_compare_segments_and_the_command_line(tmp_path: Path) -> None:
    from tests.cli.test_cli import cli as rankwise_cli

    run, qrels, groups = _sql_inputs()
    other = run.with_columns(pl.when(pl.col("doc_id") == "c").then(9.0).otherwise(pl.col("score")).alias("score"))
    table = rw.compare(qrels, {"base": run, "other": other}, METRICS, groups=groups, resamples=100)
    for label, base, new in zip(
        METRICS, rw.evaluate(qrels, run, METRICS, groups=groups, per_query=False).row(0),
        rw.evaluate(qrels, other, METRICS, groups=groups, per_query=False).row(0), strict=True,
    ):
        row = table.filter(metric=label).row(0, named=True)
        assert (row["baseline_mean"], row["mean"]) == pytest.approx((base, new))
    segmented = rw.evaluate(qrels, run.with_columns(market=pl.col("query_id")), ["GroupExposure(combo='LTwo')@1"],
                            groups=groups, per_query=False, by="market")
    # u1: a (x) at rank 1: x = 1/2.5; u2: b (half x, half y) at rank 1: x = 0.5/2.5, y = 0.5/1.5
    assert close_rows(segmented.rows(), [("u1", 1 / 2.5), ("u2", math.hypot(0.5 / 2.5, 0.5 / 1.5))])
    paths = {}
    for name, frame in (("qrels", qrels), ("run", run), ("groups", groups)):
        paths[name] = tmp_path / f"{name}.parquet"
        frame.write_parquet(paths[name])
    done = rankwise_cli("eval", str(paths["qrels"]), str(paths["run"]), "-m", "GroupExposure@3", "--groups",
                        str(paths["groups"]), "--format", "csv", "--quiet")
    assert done.returncode == 0, done.stderr
    want = rw.evaluate(qrels, run, ["GroupExposure@3"], groups=groups, per_query=False)
    assert pl.read_csv(done.stdout.encode()).row(0) == pytest.approx(want.row(0), abs=1e-12)
