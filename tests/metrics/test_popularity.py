"""The popularity family (beyond accuracy, from the training interactions ``train=``): MIUF,
Surprisal, ARP, UnseenShare, EPC and EFD against the libraries whose definitions they are.

- ``tests/data/beyond/popularity_goldens.json``: each library's per-user values on seven cases
  (hand-sized, random with cold items, duplicate training rows and users without training,
  integer ids, k beyond every list, popularity ties, a single training user, a run user without
  judgments), computed by ``tests/data/beyond/make_popularity_goldens.py`` with rectools 0.19.0,
  RePlay 0.22.0, RecBole 1.2.1 and Elliot (sisinflab/elliot@fc27efed) in an environment with
  pandas < 3, which those libraries pin (rankwise's has pandas 3); the file's ``sources`` cite
  the lines of each library's code computed;
- rectools itself, live, on random data (it is a test extra);
- hand-computed values at the edges: an item never in training, a user with no list, one
  training user.
"""

from __future__ import annotations

import json
import math
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

GOLDENS = json.loads((Path(__file__).parents[1] / "data" / "beyond" / "popularity_goldens.json").read_text())

LIBRARY_METRICS = {
    "rectools.MeanInvUserFreq": "MIUF@{k}",
    "replay.Surprisal": "Surprisal@{k}",
    "rectools.AvgRecPopularity": "ARP@{k}",
    "rectools.AvgRecPopularity(normalize=True)": "ARP(normalize=True)@{k}",
    "recbole.AveragePopularity": "ARP@{k}",
    "elliot.ARP": "ARP(popularity='users')@{k}",
    "replay.Novelty": "UnseenShare@{k}",
    "elliot.EPC": "EPC(empty='skip')@{k}",
    "elliot.EFD": "EFD(empty='skip')@{k}",
    "recbole.TailPercentage": "TailPercentage@{k}",
    "recbole.TailPercentage(tail_ratio=0.5)": "TailPercentage(tail_ratio=0.5)@{k}",
    "recbole.TailPercentage(tail_ratio=2)": "TailPercentage(tail_ratio=2)@{k}",
    "lenskit.MeanPopRank[deduplicated train]": "MeanPopRank@{k}",
    "elliot.APLT": "APLT@{k}",
    "elliot.ACLT": "ACLT@{k}",
}
"""Each library's metric (a key of the goldens' values) as a rankwise metric string. Elliot
leaves out the users with nothing relevant: ``empty='skip'``."""

ENGINES = ("polars", "polars-lazy", "duckdb", "to_sql")


def _frames(case: dict[str, Any]) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    ids = pl.Int64 if case["ids"] == "int" else pl.String
    run = pl.DataFrame(case["run"], schema={"query_id": ids, "doc_id": ids, "score": pl.Float64}, orient="row")
    qrels = pl.DataFrame(case["qrels"], schema={"query_id": ids, "doc_id": ids, "relevance": pl.Int64}, orient="row")
    train = pl.DataFrame(case["train"], schema={"query_id": ids, "doc_id": ids}, orient="row")
    return qrels, run, train


def evaluate_on(engine: str, qrels: pl.DataFrame, run: pl.DataFrame, train: pl.DataFrame, metrics: list[str], **kw: Any) -> pl.DataFrame:
    """Evaluate through one engine's entry point; ``to_sql``: the statement run by DuckDB over
    registered tables."""
    if engine != "to_sql":
        return run_on(engine, qrels, run, metrics, train=train, **kw)
    con = duckdb.connect()
    for name, frame in (("run", run), ("qrels", qrels), ("train_rows", train)):
        con.register(name, frame)
    sql = rw.to_sql(metrics, train="train_rows", **kw)
    return con.sql(sql).pl()


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", GOLDENS["cases"], ids=lambda c: c["name"])
def test_each_library_value(case: dict[str, Any], engine: str) -> None:
    """Every user the library scores that rankwise scores (a run user with judgments) has the
    library's value; rankwise scores no user the library leaves out, except RePlay's Novelty,
    which scores the training users only (rankwise: 1 for a user without training rows)."""
    qrels, run, train = _frames(case)
    keys = [key for key in case["values"] if key in LIBRARY_METRICS]
    assert keys, case["name"]
    metrics = list(dict.fromkeys(LIBRARY_METRICS[key].format(k=case["k"]) for key in keys))
    got = evaluate_on(engine, qrels, run, train, metrics)
    ours = {str(row["query_id"]): row for row in got.iter_rows(named=True)}
    trained = {str(u) for u, _ in case["train"]}
    for key in keys:
        metric = LIBRARY_METRICS[key].format(k=case["k"])
        theirs = case["values"][key]
        for user, row in ours.items():
            value = row[metric]
            if user in theirs:
                want = theirs[user]
                assert (value is None) == (want is None), (key, user, value, want)
                if want is not None:
                    assert value == pytest.approx(want, abs=1e-12), (key, user)
            elif key == "replay.Novelty":
                assert user not in trained and value == 1.0, (key, user, value)
            else:
                # the library leaves the user out: Elliot's EPC/EFD with nothing relevant
                assert value is None, (key, user, value)


def _ranked(run: list[tuple[str, str, float]]) -> Any:
    import pandas as pd

    frame = pl.DataFrame(run, schema=["user_id", "item_id", "score"], orient="row")
    ranked = frame.with_columns(pl.col("score").rank("ordinal", descending=True).over("user_id").alias("rank"))
    return pd.DataFrame(ranked.select("user_id", "item_id", "rank").to_dict(as_series=False))


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(20), deadline=None)
@given(seed=st.integers(0, 10**6), k=st.integers(1, 8), engine=st.sampled_from(["polars", "duckdb"]),
       int_ids=st.booleans())
def test_rectools_live(seed: int, k: int, engine: str, int_ids: bool) -> None:
    """rectools' MeanInvUserFreq and AvgRecPopularity (normalised or not) on random data: cold
    items, duplicate training rows, users without training rows, lists shorter than k."""
    pd = pytest.importorskip("pandas")
    metrics_mod = pytest.importorskip("rectools.metrics")
    rng = random.Random(seed)
    items = [f"i{j}" for j in range(rng.randint(2, 25))]
    train = [(f"u{rng.randrange(12)}", rng.choice(items[: max(1, len(items) - 3)])) for _ in range(rng.randint(1, 60))]
    run: list[tuple[str, str, float]] = []
    qrels: list[tuple[str, str, int]] = []
    for u in range(rng.randint(1, 10)):
        listed = rng.sample(items, rng.randint(1, min(8, len(items))))
        run += [(f"u{u}", item, float(len(listed) - r)) for r, item in enumerate(listed)]
        qrels.append((f"u{u}", rng.choice(items), 1))
    reco = _ranked(run)
    prev = pd.DataFrame(train, columns=["user_id", "item_id"])
    want = {
        f"MIUF@{k}": metrics_mod.MeanInvUserFreq(k).calc_per_user(reco, prev),
        f"ARP@{k}": metrics_mod.AvgRecPopularity(k).calc_per_user(reco, prev),
        f"ARP(normalize=True)@{k}": metrics_mod.AvgRecPopularity(k, normalize=True).calc_per_user(reco, prev),
    }

    def ids(rows: list[Any], columns: list[str]) -> pl.DataFrame:
        frame = pl.DataFrame(rows, schema=columns, orient="row")
        if int_ids:  # 'u12' -> 12, 'i3' -> 3
            frame = frame.with_columns(pl.col(c).str.slice(1).cast(pl.Int64) for c in ("query_id", "doc_id"))
        return frame

    got = rw.evaluate(
        ids(qrels, ["query_id", "doc_id", "relevance"]), ids(run, ["query_id", "doc_id", "score"]), list(want),
        train=ids(train, ["query_id", "doc_id"]), engine=engine,
    )
    for metric, theirs in want.items():
        values = {f"u{q}" if int_ids else q: v for q, v in zip(got["query_id"], got[metric], strict=True)}
        assert set(values) == set(theirs.index)
        for user, value in theirs.items():
            assert values[user] == pytest.approx(value, abs=1e-12), (metric, user)


# -- hand-computed edges ----------------------------------------------------------------------------
RUN = pl.DataFrame({"query_id": ["u1", "u1", "u1", "u2"], "doc_id": ["a", "b", "z", "a"], "score": [3.0, 2.0, 1.0, 1.0]})
QRELS = pl.DataFrame({"query_id": ["u1", "u2", "u3"], "doc_id": ["b", "a", "a"], "relevance": [1, 1, 1]})
TRAIN = {"u1": ["a", "b"], "u2": ["a", "a", "c"], "u4": ["b"]}
"""Training: a (u1, u2), b (u1, u4), c (u2); rows a 3, b 2, c 1; N = 3 users, 6 rows, 5 pairs.
z is never in training; u3 is judged and listed nowhere."""


@pytest.mark.parametrize("engine", ENGINES)
def test_hand_values(engine: str) -> None:
    metrics = ["MIUF", "Surprisal@2", "ARP", "ARP(popularity='users')@2", "ARP(normalize=True)", "UnseenShare",
               "EPC", "EFD@2"]
    got = evaluate_on(engine, QRELS, RUN, pl.DataFrame([(u, i) for u, items in TRAIN.items() for i in items],
                                                        schema=["query_id", "doc_id"], orient="row"),
                      metrics, missing="zero").sort("query_id")
    d1, d2, d3 = 1.0, 1 / math.log2(3), 1 / math.log2(4)
    lg = math.log2
    want = [
        ("u1",
         (-lg(2 / 3) - lg(2 / 3) - lg(1 / 3)) / 3,  # z counts as one user's
         (lg(3 / 2) + lg(3 / 2)) / (2 * lg(3)),
         (3 + 2 + 0) / 3,
         (2 + 2) / 2,
         (3 + 2 + 0) / 3 / 6,
         1 / 3,  # z unseen
         (1 - 2 / 3) * d2 / (d1 + d2 + d3),  # b relevant, at rank 2
         -lg(2 / 5) * d2 / (d1 + d2)),
        ("u2", -lg(2 / 3), lg(3 / 2) / (2 * lg(3)), 3.0, 2.0, 0.5, 0.0, (1 - 2 / 3) * d1 / d1, -lg(2 / 5)),
        ("u3", None, None, None, None, None, None, None, None),  # no list (missing='zero')
    ]
    assert close_rows(got.rows(), want), got.rows()


@pytest.mark.parametrize("engine", ENGINES)
def test_the_long_tail_by_the_80_percent_rule(engine: str) -> None:
    """Users per item: a 4, b 2, c 2, d 1, e 1 (10 pairs). By users descending, ties by item id:
    a (0 before), b (4), c (6), d (8: 80% reached, tail), e (9, tail). So the head is a, b, c;
    x is never in training (in neither); head=0.5: a, b (c has 6 ≥ 5 before it)."""
    pairs = [(f"u{i}", "a") for i in range(4)] + [("u0", "b"), ("u1", "b"), ("u2", "c"), ("u3", "c"),
                                                   ("u0", "d"), ("u1", "e")]
    train = pl.DataFrame(pairs, schema=["query_id", "doc_id"], orient="row")
    run = pl.DataFrame({"query_id": ["u1"] * 5, "doc_id": ["e", "a", "d", "c", "x"], "score": [5.0, 4.0, 3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["u1"], "doc_id": ["a"], "relevance": [1]})
    got = evaluate_on(engine, qrels, run, train, ["APLT", "ACLT@3", "APLT(head=0.5)", "ACLT(head=0.5)@4"])
    assert close_rows(got.rows(), [("u1", 2 / 5, 2.0, 3 / 5, 3.0)])


@pytest.mark.parametrize("engine", ENGINES)
def test_one_training_user_leaves_surprisal_undefined(engine: str) -> None:
    """log2 N = 0 with one training user: RePlay's NaN, NULL here; MIUF is 0 for its items and
    log2(1) = 0 for a cold one too (rectools)."""
    train = pl.DataFrame({"query_id": ["u9"], "doc_id": ["a"]})
    got = evaluate_on(engine, QRELS, RUN, train, ["Surprisal@2", "MIUF@2"]).sort("query_id")
    assert close_rows(got.rows(), [("u1", None, 0.0), ("u2", None, 0.0)])


def test_explain_keeps_an_undefined_value_undefined() -> None:
    """A value that turns NULL at a rank stays NULL there: not the rank before's (CI found it)."""
    train = pl.DataFrame({"query_id": ["u9"], "doc_id": ["b"]})
    table = rw.explain(QRELS, RUN, "Surprisal@3", "u1", train=train)
    assert table["value"].to_list() == [pytest.approx(1 / 3), None, None]


# -- the input: its forms, its names, its checks --------------------------------------------------
def _train_rows() -> list[tuple[str, str]]:
    return [(u, i) for u, items in TRAIN.items() for i in items]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_train_in_every_form(engine: str, tmp_path: Path) -> None:
    import pandas as pd
    import pyarrow as pa

    frame = pl.DataFrame(_train_rows(), schema=["query_id", "doc_id"], orient="row")
    frame.write_parquet(tmp_path / "train.parquet")
    frame.rename({"query_id": "user_id", "doc_id": "item_id"}).write_csv(tmp_path / "train.csv")
    want = rw.evaluate(QRELS, RUN, ["MIUF", "UnseenShare"], train=frame, engine=engine)
    forms: list[tuple[Any, dict[str, Any]]] = [
        (TRAIN, {}), (_train_rows(), {}), (frame.lazy(), {}), (frame.to_pandas(), {}), (frame.to_arrow(), {}),
        (pa.table(pd.DataFrame(_train_rows(), columns=["query_id", "doc_id"])), {}),
        (str(tmp_path / "train.parquet"), {}), (tmp_path / "train.parquet", {}),
        (str(tmp_path / "train.csv"), {"train_columns": {"query_id": "user_id", "doc_id": "item_id"}}),
        ([{"query_id": u, "doc_id": i} for u, i in _train_rows()], {}),
    ]
    for train, kw in forms:
        got = rw.evaluate(QRELS, RUN, ["MIUF", "UnseenShare"], train=train, engine=engine, **kw)
        assert got.equals(want), type(train)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_integer_training_ids_meet_string_run_ids(engine: str) -> None:
    """Ids of another type than the run's are compared as text (as run and qrels are)."""
    run = pl.DataFrame({"query_id": ["1", "1"], "doc_id": ["7", "8"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["1"], "doc_id": ["7"], "relevance": [1]})
    train = pl.DataFrame({"query_id": [1, 2, 2], "doc_id": [7, 7, 9]})
    got = rw.evaluate(qrels, run, ["ARP", "UnseenShare"], train=train, engine=engine)
    assert close_rows(got.rows(), [("1", 1.0, 0.5)])


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_a_metric_reading_train_without_it_is_refused(engine: str) -> None:
    with pytest.raises(rw.InvalidParameterError, match=r"MIUF@5 reads the training interactions, the \(user, item\) rows .*: pass train="):
        rw.evaluate(QRELS, RUN, ["nDCG", "MIUF@5"], engine=engine)
    with pytest.raises(rw.InvalidParameterError, match=r"EPC reads the training interactions: pass train="):
        rw.to_sql(["EPC"])


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_bad_training_rows_are_refused_naming_the_column(engine: str) -> None:
    with pytest.raises(rw.MissingColumnError, match=r"the training interactions \(train=\) has no column 'doc_id'.*item"):
        rw.evaluate(QRELS, RUN, ["MIUF"], train=pl.DataFrame({"query_id": ["u1"], "item": ["a"]}), engine=engine)
    with pytest.raises(rw.ColumnTypeError, match=r"the training interactions' id column 'doc_id' must hold strings or integers"):
        rw.evaluate(QRELS, RUN, ["MIUF"], train=pl.DataFrame({"query_id": ["u1"], "doc_id": [1.5]}), engine=engine)
    with pytest.raises(rw.InvalidValueError, match=r"hold 1 NULL value\(s\) in their item column 'doc_id'"):
        rw.evaluate(QRELS, RUN, ["MIUF"], train=pl.DataFrame({"query_id": ["u1", "u2"], "doc_id": ["a", None]}), engine=engine)
    with pytest.raises(rw.EmptyInputError, match=r"the training interactions \(train=\) are empty"):
        rw.evaluate(QRELS, RUN, ["MIUF"], train=pl.DataFrame(schema={"query_id": pl.String, "doc_id": pl.String}), engine=engine)
    with pytest.raises(rw.InvalidParameterError, match=r"train_columns has no key 'user'"):
        rw.evaluate(QRELS, RUN, ["MIUF"], train=TRAIN, train_columns={"user": "u"}, engine=engine)


def test_to_sql_checks_the_training_rows() -> None:
    con = duckdb.connect()
    con.register("run", RUN)
    con.register("qrels", QRELS)
    con.register("t", pl.DataFrame({"query_id": ["u1", None], "doc_id": ["a", "b"]}))
    with pytest.raises(duckdb.Error, match=r"rankwise: the training interactions \(train=\) hold 1 NULL value\(s\) in their user column 'query_id'"):
        con.sql(rw.to_sql(["MIUF"], train="t")).fetchall()
    assert con.sql(rw.to_sql(["MIUF"], train="t", check=False)).fetchall()


def test_spark(spark: Any) -> None:
    from tests.engines.test_spark import from_spark, to_spark

    train = pl.DataFrame(_train_rows(), schema=["query_id", "doc_id"], orient="row")
    metrics = ["MIUF", "Surprisal@2", "ARP(popularity='users')", "UnseenShare", "EPC", "EFD@2"]
    got = from_spark(rw.spark.evaluate(to_spark(spark, QRELS), to_spark(spark, RUN), metrics, train=to_spark(spark, train)))
    want = rw.evaluate(QRELS, RUN, metrics, train=train)
    assert close_rows(got.sort("query_id").rows(), want.rows())
    bad = pl.DataFrame({"query_id": ["u1", None], "doc_id": ["a", "b"]})
    with pytest.raises(Exception, match=r"rankwise: the training interactions \(train=\) hold 1 NULL value\(s\) in their user column 'query_id'"):
        rw.spark.evaluate(to_spark(spark, QRELS), to_spark(spark, RUN), ["MIUF"], train=to_spark(spark, bad)).collect()
    with pytest.raises(rw.MissingColumnError, match=r"the training interactions \(train=\) has no column 'doc_id'"):
        rw.spark.evaluate(to_spark(spark, QRELS), to_spark(spark, RUN), ["MIUF"],
                          train=to_spark(spark, pl.DataFrame({"query_id": ["u1"], "item": ["a"]})))


# -- the other entry points: compare, explain, the command line ------------------------------------
def test_compare_and_explain_read_train() -> None:
    train = _train_rows()
    other = RUN.with_columns(pl.Series("score", [1.0, 2.0, 3.0, 1.0]))
    compared = rw.compare(QRELS, {"a": RUN, "b": other}, ["MIUF", "UnseenShare"], train=train)
    means = rw.summarize(rw.evaluate(QRELS, other, ["MIUF", "UnseenShare"], train=train))
    assert compared.filter(pl.col("metric") == "MIUF")["mean"].item() == pytest.approx(means["MIUF"].item())
    table = rw.explain(QRELS, RUN, "UnseenShare", "u1", train=train)
    assert table["doc_id"].to_list() == ["a", "b", "z"]
    assert table["value"].to_list() == pytest.approx([0.0, 0.0, 1 / 3])


def test_command_line(tmp_path: Path) -> None:
    import subprocess

    QRELS.write_parquet(tmp_path / "qrels.parquet")
    RUN.write_parquet(tmp_path / "run.parquet")
    pl.DataFrame(_train_rows(), schema=["user", "doc_id"], orient="row").write_csv(tmp_path / "train.csv")

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return rankwise_cli("eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), *args)

    done = cli("-m", "MIUF", "-m", "UnseenShare", "--train", str(tmp_path / "train.csv"), "--train-query-id-col", "user",
               "--format", "csv")
    assert done.returncode == 0, done.stderr
    got = pl.read_csv(done.stdout.encode())
    want = rw.summarize(rw.evaluate(QRELS, RUN, ["MIUF", "UnseenShare"], train=TRAIN))
    assert got["MIUF"].item() == pytest.approx(want["MIUF"].item())
    missing = cli("-m", "MIUF")
    assert missing.returncode == 2
    assert missing.stderr.strip() == (
        "rankwise: error: MIUF reads the training interactions, the (user, item) rows the recommender learnt from: "
        "pass --train FILE"
    )
    page = rankwise_cli("metrics", "EPC")
    assert "reads:" in page.stdout and "the training interactions: --train FILE" in page.stdout
    unnamed = cli("-m", "MIUF", "--train", str(tmp_path / "train.csv"))
    assert unnamed.returncode == 2
    assert "has no column 'query_id'. Did you mean 'user'? (pass --train-query-id-col user)" in unnamed.stderr


def test_like_rectools_and_recbole_name_their_popularity_metrics() -> None:
    """rectools' MeanInvUserFreq and AvgRecPopularity, RecBole's AveragePopularity: the same
    values under their presets (the goldens' hand case, lists in rank order)."""
    case = GOLDENS["cases"][0]
    qrels, run, train = _frames(case)
    k = case["k"]
    got = rw.evaluate(qrels, run, [f"MIUF@{k}", f"ARP@{k}"], train=train, like="rectools")
    for metric, key in ((f"MIUF@{k}", "rectools.MeanInvUserFreq"), (f"ARP@{k}", "rectools.AvgRecPopularity")):
        assert dict(zip(got["query_id"], got[metric], strict=True)) == pytest.approx(case["values"][key])
    assert rw.like("recbole", f"ARP@{k}").metric == f"ARP@{k}"
    got = rw.evaluate(qrels, run, [f"ARP@{k}"], train=train, like="recbole")
    assert dict(zip(got["query_id"], got[f"ARP@{k}"], strict=True)) == pytest.approx(case["values"]["recbole.AveragePopularity"])


# -- property: every engine equals the definitions written out in plain Python --------------------
def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _by_definition(run: dict[str, list[str]], train: list[tuple[str, str]], qrels: dict[str, dict[str, int]],
                   k: int) -> dict[str, dict[str, float | None]]:
    """Each metric per judged user, from the formulas of the libraries' code (FINDINGS of issue 35),
    over lists already in rank order."""
    users_of: dict[str, set[str]] = {}
    rows: dict[str, int] = {}
    for u, i in train:
        users_of.setdefault(i, set()).add(u)
        rows[i] = rows.get(i, 0) + 1
    n_users = len({u for u, _ in train})
    pairs = sum(len(s) for s in users_of.values())
    fewest = min(len(s) for s in users_of.values())
    seen = set(train)
    order = sorted(users_of, key=lambda i: (-len(users_of[i]), i))
    before, running = {}, 0
    for i in order:
        before[i] = running
        running += len(users_of[i])
    tail = {i for i in order if before[i] >= 0.8 * pairs}
    ascending = sorted(rows, key=lambda i: (rows[i], i))
    recbole_tail = set(ascending[: max(int(len(ascending) * 0.5), 1)])
    by_rows = sorted(rows.values())
    # the average 1-based ascending rank of an item's rows among the items', over their number
    quantile = {i: (by_rows.index(c) + 1 + by_rows.index(c) + by_rows.count(c)) / 2 / len(by_rows) for i, c in rows.items()}
    out: dict[str, dict[str, float | None]] = {}
    for u in qrels:
        top = run.get(u, [])[:k]
        n = len(top)
        pop = [len(users_of.get(i, ())) for i in top]
        disc = [1 / math.log2(r + 2) for r in range(n)]
        rel = [qrels[u].get(i, 0) >= 1 for i in top]
        epc_num = sum(d * (1 - p / n_users) for d, p, r in zip(disc, pop, rel, strict=True) if r)
        efd_num = sum(d * -math.log2(max(p, fewest) / pairs) for d, p, r in zip(disc, pop, rel, strict=True) if r)
        if n_users == 1 and any(p > 0 for p in pop):
            surprisal = None
        else:
            surprisal = sum(1.0 if p == 0 else math.log2(n_users / p) / math.log2(n_users) for p in pop) / k if n else None
        out[u] = {
            f"MIUF@{k}": _mean([-math.log2(max(p, 1) / n_users) for p in pop]),
            f"Surprisal@{k}": surprisal,
            f"ARP@{k}": _mean([float(rows.get(i, 0)) for i in top]),
            f"ARP(popularity='users')@{k}": _mean([float(p) for p in pop]),
            f"APLT@{k}": _mean([float(i in tail) for i in top]),
            f"TailPercentage(tail_ratio=0.5)@{k}": _mean([float(i in recbole_tail) for i in top]),
            f"MeanPopRank(popularity='interactions')@{k}": _mean([quantile.get(i, 0.0) for i in top]),
            f"UnseenShare@{k}": _mean([float((u, i) not in seen) for i in top]),
            f"EPC@{k}": epc_num / sum(disc) if n else None,
            f"EFD@{k}": efd_num / sum(disc) if n else None,
        }
    return out


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(60), deadline=None)
@given(data=st.data(), k=st.integers(1, 6), engine=st.sampled_from(["polars", "duckdb", "to_sql"]),
       int_ids=st.booleans())
def test_every_engine_equals_the_definitions(data: st.DataObject, k: int, engine: str, int_ids: bool) -> None:
    """Random users, lists (empty under missing='zero', shorter than k), items never in training,
    users without training rows, one training user, ties in popularity; ids as text or integers."""
    users = [str(u) for u in range(1, 6)]
    items = [str(i) for i in range(10, 22)]
    run = {u: data.draw(st.lists(st.sampled_from(items), unique=True, max_size=8)) for u in users}
    run = {u: listed for u, listed in run.items() if listed} or {"1": ["10"]}
    qrels = {u: {data.draw(st.sampled_from(items)): data.draw(st.integers(0, 2))} for u in data.draw(
        st.lists(st.sampled_from(users), min_size=1, max_size=5, unique=True))}
    qrels.setdefault(next(iter(run)), {items[0]: 1})
    train = data.draw(st.lists(st.tuples(st.sampled_from([*users, "9"]), st.sampled_from(items[:9])), min_size=1, max_size=25))
    want = _by_definition(run, train, qrels, k)
    cast = pl.Int64 if int_ids else pl.String
    run_frame = pl.DataFrame(
        [(u, i, float(len(listed) - r)) for u, listed in run.items() for r, i in enumerate(listed)],
        schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}, orient="row",
    ).with_columns(pl.col("query_id", "doc_id").cast(cast))
    qrels_frame = pl.DataFrame(
        [(u, i, r) for u, judged in qrels.items() for i, r in judged.items()],
        schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64}, orient="row",
    ).with_columns(pl.col("query_id", "doc_id").cast(cast))
    train_frame = pl.DataFrame(train, schema={"query_id": pl.String, "doc_id": pl.String}, orient="row").with_columns(
        pl.col("query_id", "doc_id").cast(cast)
    )
    metrics = list(next(iter(want.values())))
    got = evaluate_on(engine, qrels_frame, run_frame, train_frame, metrics, missing="zero")
    assert sorted(str(q) for q in got["query_id"]) == sorted(want)
    for row in got.iter_rows(named=True):
        for metric in metrics:
            expected = want[str(row["query_id"])][metric]
            if expected is None:
                assert row[metric] is None, (metric, row)
            else:
                assert row[metric] == pytest.approx(expected, abs=1e-12), (metric, row)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("int_ids", [False, True])
def test_segments_score_each_segment_against_the_same_training(engine: str, int_ids: bool) -> None:
    """by=: each segment's value is the one of that segment's run alone (the training's users
    counted once, whatever their segments)."""
    run = pl.DataFrame({"query_id": ["u1", "u1", "u1", "u2", "u2", "u1"], "doc_id": ["a", "b", "z", "a", "c", "c"],
                        "score": [3.0, 2.0, 1.0, 2.0, 1.0, 5.0], "device": ["m", "m", "m", "d", "d", "d"]})
    train = pl.DataFrame(_train_rows(), schema=["query_id", "doc_id"], orient="row")
    qrels = QRELS
    if int_ids:  # the run's ids integers, the training's text: compared as text
        run = run.with_columns(pl.col("query_id").str.slice(1).cast(pl.Int64))
        qrels = qrels.with_columns(pl.col("query_id").str.slice(1).cast(pl.Int64))
        train = train.with_columns(pl.col("query_id").str.slice(1))
    metrics = ["MIUF", "UnseenShare", "EPC", "MeanPopRank@2"]
    got = rw.evaluate(qrels, run, metrics, train=train, by="device", engine=engine)
    for device in ("d", "m"):
        alone = rw.evaluate(qrels, run.filter(pl.col("device") == device).drop("device"), metrics, train=train,
                            engine=engine)
        mine = got.filter(pl.col("device") == device).drop("device")
        assert close_rows([tuple(str(v) if i == 0 else v for i, v in enumerate(r)) for r in mine.rows()],
                          [tuple(str(v) if i == 0 else v for i, v in enumerate(r)) for r in alone.rows()]), device
