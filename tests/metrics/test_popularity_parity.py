"""Popularity parity (set-level: one value per run or segment): Elliot's PopRSP and PopREO against
Elliot itself and against their definitions.

- ``tests/data/beyond/set_goldens.json``: Elliot's values (sisinflab/elliot@fc27efed, its metric
  classes run from its source by ``tests/data/beyond/make_set_goldens.py``; ``sources`` cites
  ``bias/pop_rsp/pop_rsp.py`` and ``bias/pop_reo/pop_reo.py``) where its short head does not hang
  on a tie in popularity (Elliot breaks those in hash order; rankwise by item id);
- a hand-computed case; random data against the definitions written out below.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from tests.conftest import close_rows
from tests.metrics.test_catalog import ENGINES, _frames
from tests.strategies import cases
from tests.tiers import examples

GOLDENS = json.loads((Path(__file__).parents[1] / "data" / "beyond" / "set_goldens.json").read_text())


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", GOLDENS["cases"], ids=lambda c: c["name"])
def test_elliot_values(case: dict[str, Any], engine: str) -> None:
    """Elliot runs over every user given, one with an empty list too: ``missing='zero'``. Where
    Elliot raised (a listed user without training rows: ``self._train[u]``), rankwise counts no
    training item for that user; the case then has no value to compare."""
    qrels, run, train = _frames(case)
    compared = 0
    for k in case["ks"]:
        labels = [f"PopRSP@{k}", f"PopREO@{k}"]
        got = rw.evaluate(qrels, run, labels, train=train, per_query=False, missing="zero", engine=engine)
        for label, key in zip(labels, (f"elliot.PopRSP(k={k})", f"elliot.PopREO(k={k})"), strict=True):
            if key not in case["values"]:
                assert key in case.get("errors", {}), (case["name"], key)
                continue
            want, value = case["values"][key], got[label].item()
            assert (value is None) == (want is None), (case["name"], label, value, want)
            if want is not None:
                assert value == pytest.approx(want, abs=1e-12), (case["name"], label)
            compared += 1
    assert compared or case["elliot_boundary_tie"] or case["name"] == "single_item", case["name"]


def _hand() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    run = pl.DataFrame({
        "query_id": ["u1", "u1", "u2", "u2", "u3"], "doc_id": ["a", "b", "a", "c", "d"],
        "score": [2.0, 1.0, 2.0, 1.0, 1.0], "market": ["x", "x", "y", "y", "x"],
    })
    qrels = pl.DataFrame({"query_id": ["u1", "u2", "u3"], "doc_id": ["b", "c", "a"], "relevance": [1, 1, 1]})
    train = pl.DataFrame({"query_id": ["t1", "t2", "t3", "t1", "u3"], "doc_id": ["a", "a", "a", "b", "c"]})
    return run, qrels, train


@pytest.mark.parametrize("engine", ENGINES)
def test_hand_values(engine: str) -> None:
    """Training: a 3 users, b 1, c 1 (5 pairs); the items before them hold a 0, b 3, c 4 users, so
    below 0.8 · 5 = 4 the short head is {a, b} and the long tail {c} (d: never in training).
    Lists at k = 2: u1 {a, b}, u2 {a, c}, u3 {d}; u3 has trained c; relevant: u1 b, u2 c, u3 a.
    PopRSP: P_h = (2 + 1 + 0) / (2 + 2 + 2), P_t = 1 / (1 + 1 + 0): equal, 0.
    PopREO: P_h = 1 (u1's b) / 2 (u1's b, u3's a), P_t = 1 / 1: |0.5 − 1| / 1.5 = 1/3.
    With head=0.5 (below 2.5 users: {a}) PopRSP: P_h = 2/3, P_t = (1 + 1) / (2 + 2 + 1) = 2/5."""
    run, qrels, train = _hand()
    got = rw.evaluate(qrels, run, ["PopRSP@2", "PopREO@2", "PopRSP(head=0.5)@2"], train=train, per_query=False,
                      engine=engine)
    assert close_rows(got.rows(), [(0.0, 1 / 3, (2 / 3 - 2 / 5) / (2 / 3 + 2 / 5))])
    # per segment: x = u1, u3: PopRSP P_h = 2 / 4, P_t = 0 / 1: 1; PopREO: no relevant tail item
    # (P_t = 0 / 0): NULL, as Elliot's NaN. y = u2: PopRSP P_h = 1 / 2, P_t = 1 / 1: 1/3; PopREO:
    # no relevant head item: NULL
    segments = rw.evaluate(qrels, run, ["PopRSP@2", "PopREO@2"], train=train, per_query=False, by="market",
                           engine=engine)
    assert close_rows(segments.rows(), [("x", 1.0, None), ("y", 1 / 3, None)])


@pytest.mark.parametrize("engine", ENGINES)
def test_it_needs_the_training(engine: str) -> None:
    run, qrels, _ = _hand()
    with pytest.raises(rw.InvalidParameterError, match=r"PopRSP@2 reads the training interactions.*pass train="):
        rw.evaluate(qrels, run, ["PopRSP@2"], per_query=False, engine=engine)


# -- random data: every engine equals the definitions, written out here ---------------------------
def _definitions(case: Any, k: int, head: float) -> tuple[float | None, float | None]:
    """PopRSP@k and PopREO@k by Elliot's formulas over the judged users the run lists."""
    users: dict[str, set[str]] = {}
    for user, item in case.train:
        users.setdefault(item, set()).add(user)
    order = sorted(users, key=lambda i: (-len(users[i]), i))
    pairs = sum(len(u) for u in users.values())
    short, before = set(), 0
    for item in order:
        if before < head * pairs:
            short.add(item)
        before += len(users[item])
    groups = (short, set(order) - short)
    scored = [q for q in case.run if q in case.qrels]
    history = {q: {d for u, d in case.train if u == q} for q in scored}
    relevant = {q: {d for d, r in case.qrels[q].items() if r >= 1} for q in scored}
    listed = {q: set(sorted(case.run[q], key=lambda d: (case.run[q][d], d), reverse=True)[:k]) for q in scored}

    def parity(num: list[float], den: list[float]) -> float | None:
        if 0 in den:
            return None
        h, t = (n / d for n, d in zip(num, den, strict=True))
        return abs(h - t) / (h + t) if h + t else None

    rsp = parity(
        [float(sum(len(listed[q] & g) for q in scored)) for g in groups],
        [float(sum(len(g - history[q]) for q in scored)) for g in groups],
    )
    reo = parity(
        [float(sum(len(listed[q] & relevant[q] & g) for q in scored)) for g in groups],
        [float(sum(len((g & relevant[q]) - history[q]) for q in scored)) for g in groups],
    )
    return rsp, reo


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(case=cases(), k=st.integers(1, 4), head=st.sampled_from([0.3, 0.5, 0.8, 0.99]))
def test_random_data_equals_the_definitions(case: Any, k: int, head: float) -> None:
    """Ties in popularity, users without training rows, items never in training, lists shorter
    than k, users with nothing relevant."""
    expected = _definitions(case, k, head)
    labels = [f"PopRSP(head={head})@{k}", f"PopREO(head={head})@{k}"]
    for engine in ENGINES:
        got = rw.evaluate(case.qrels_frame(), case.run_frame(), labels, train=case.train_frame(), per_query=False,
                          engine=engine)
        for label, want in zip(labels, expected, strict=True):
            value = got[label].item()
            assert (value is None) == (want is None), (engine, label, value, want)
            if want is not None:
                assert value == pytest.approx(want, abs=1e-12), (engine, label)


# -- SQL and Spark --------------------------------------------------------------------------------
METRICS = ["PopRSP@2", "PopREO@2", "PopRSP(head=0.5)"]


def test_to_sql_gives_one_row_as_evaluate() -> None:
    import duckdb

    run, qrels, train = _hand()
    con = duckdb.connect()
    for name, frame in (("run", run), ("qrels", qrels), ("train_rows", train)):
        con.register(name, frame)
    got = con.sql(rw.to_sql(METRICS, train="train_rows")).pl()
    want = rw.evaluate(qrels, run, METRICS, train=train, per_query=False)
    assert got.columns == METRICS and close_rows(got.rows(), want.rows())


def test_spark(spark: Any) -> None:
    from tests.engines.test_spark import from_spark, to_spark

    run, qrels, train = _hand()
    got = from_spark(rw.spark.evaluate(
        to_spark(spark, qrels), to_spark(spark, run.drop("market")), METRICS, train=to_spark(spark, train),
    ))
    want = rw.evaluate(qrels, run, METRICS, train=train, per_query=False)
    assert got.columns == METRICS and close_rows(got.rows(), want.rows())


def test_compare_and_the_command_line(tmp_path: Path) -> None:
    from tests.cli.test_cli import cli as rankwise_cli

    run, qrels, train = _hand()
    other = run.with_columns(pl.when(pl.col("doc_id") == "a").then(0.5).otherwise(pl.col("score")).alias("score"))
    table = rw.compare(qrels, {"base": run, "other": other}, ["PopREO@2", "PopRSP@2"], train=train, resamples=200)
    want = rw.evaluate(qrels, other, ["PopREO@2", "PopRSP@2"], train=train, per_query=False)
    assert table["metric"].to_list() == ["PopREO@2", "PopRSP@2"]
    assert table["baseline_mean"].to_list() == pytest.approx([1 / 3, 0.0])
    assert table["mean"].to_list() == pytest.approx(list(want.row(0)))
    assert table["p_t"].to_list() == [None, None]  # a bootstrap interval, no test
    paths = {}
    for name, frame in (("qrels", qrels), ("run", run.drop("market")), ("train", train)):
        paths[name] = tmp_path / f"{name}.parquet"
        frame.write_parquet(paths[name])
    done = rankwise_cli("eval", str(paths["qrels"]), str(paths["run"]), "-m", "PopRSP@2", "-m", "PopREO@2",
                        "--train", str(paths["train"]), "--format", "csv", "--quiet")
    assert done.returncode == 0, done.stderr
    assert pl.read_csv(done.stdout.encode()).row(0) == pytest.approx((0.0, 1 / 3), abs=1e-12)
