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
        if case["name"] != "cooccurrence":  # recommenders' hand case: every judged user has a list
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


def test_spark_user_coverage(spark: Any) -> None:
    from tests.engines.test_spark import from_spark, to_spark

    metrics = ["UserCoverage@1", "UserCoverage(rel=2)@2"]
    got = from_spark(rw.spark.evaluate(to_spark(spark, QRELS), to_spark(spark, RUN), metrics, missing="zero"))
    want = rw.evaluate(QRELS, RUN, metrics, missing="zero")
    assert close_rows(got.sort("query_id").rows(), want.rows())


# -- Serendipity (rectools) -------------------------------------------------------------------------
def _evaluate_serendipity(engine: str, case: dict[str, Any], metrics: list[str], **kw: Any) -> pl.DataFrame:
    qrels, run, train, catalog = _frames(case)
    if engine == "macro":
        con = rw.register(duckdb.connect())
        for name, frame in (("qrels", qrels), ("run", run), ("train", train), ("catalog", catalog)):
            con.register(name, frame)
        (metric,) = metrics
        k = int(metric.rsplit("@", 1)[1])
        got = con.sql(f"SELECT * FROM rw_serendipity('qrels', 'run', 'train', 'catalog', k := {k})").pl()
        return got.rename({"Serendipity@k": metric})
    return evaluate_on(engine, qrels, run, metrics, train=train, catalog=catalog, **kw)


@pytest.mark.parametrize("engine", [*ENGINES, "macro"])
@pytest.mark.parametrize("case", GOLDENS["cases"], ids=lambda c: c["name"])
def test_rectools_serendipity(case: dict[str, Any], engine: str) -> None:
    """rectools' Serendipity: every user rectools scores (the users it recommended to, each judged
    here) has its value; a judged user without a list has none (NULL under missing='zero'; the
    table macro, missing='ignore', leaves it out)."""
    metric = f"Serendipity@{case['k']}"
    kw = {} if engine == "macro" else {"missing": "zero"}
    got = _values(_evaluate_serendipity(engine, case, [metric], **kw), metric)
    theirs = case["values"]["rectools.Serendipity"]
    assert {u: v for u, v in got.items() if u in theirs} == pytest.approx(theirs, abs=1e-12)
    listed = {str(u) for u, _, _ in case["run"]}
    assert set(theirs) == listed
    assert all(v is None for u, v in got.items() if u not in theirs)
    if engine != "macro":
        assert set(got) == {str(u) for u, _, _ in case["qrels"]}


def test_the_serendipity_goldens_hold_the_edges() -> None:
    """The hand case holds its edges: popularity ties, a user without training (u3), nothing
    relevant (u4: 0), a list shorter than k (u2), a relevant item more popular than its rank (u2's a: 0)."""
    hand = GOLDENS["cases"][0]
    values = hand["values"]["rectools.Serendipity"]
    assert values["u4"] == 0.0 and values["u2"] == 0.0 and "u5" not in values
    rows = [i for _, i in hand["train"]]
    assert rows.count("b") == rows.count("c") == 2 and rows.count("a") == 3
    assert not {"x", "y", "z", "w"} & set(rows)
    assert "u3" not in {u for u, _ in hand["train"]}
    for case in GOLDENS["cases"][1:4]:  # the random cases: serendipitous users and users with none
        assert {v > 0 for v in case["values"]["rectools.Serendipity"].values()} == {True, False}, case["name"]


S_TRAIN = pl.DataFrame({"query_id": ["u1", "u2", "u2", "u5", "u5", "u6", "u6", "u7"],
                        "doc_id": ["a", "a", "a", "b", "c", "b", "c", "d"]})
"""Training rows: a 3, b 2, c 2, d 1: dense popularity ranks a 1, b and c 2 (tied), d 3; x, y never trained."""
S_CATALOG = ["a", "b", "c", "d", "x", "y", "a"]
"""Six distinct items (a twice: counted once), n = 6."""
S_RUN = pl.DataFrame({
    "query_id": ["u1", "u1", "u1", "u2", "u3", "u3"],
    "doc_id": ["b", "x", "d", "c", "y", "a"],
    "score": [3.0, 2.0, 1.0, 1.0, 2.0, 1.0],
})
S_QRELS = pl.DataFrame({
    "query_id": ["u1", "u1", "u1", "u2", "u3", "u4"],
    "doc_id": ["b", "x", "d", "c", "y", "a"],
    "relevance": [1, 2, 1, 1, 0, 1],
})


@pytest.mark.parametrize("engine", ENGINES)
def test_serendipity_hand_values(engine: str) -> None:
    """n = 6, p(r) = (7 − r)/6, pu = (7 − poprank)/6. u1 at k = 2: b (rank 1, poprank 2) 1 − 5/6, x (rank 2,
    never trained) 5/6 − 0: (1/6 + 5/6)/2 = 1/2; at k = 3 d (rank 3, poprank 3) 4/6 − 4/6 = 0: 1/3; with
    rel=2 only x: (5/6)/2. u2: one item, c (rank 1, poprank 2) 1/6 over one item (a list shorter than k).
    u3: nothing relevant, 0. u4: no list, NULL."""
    got = evaluate_on(engine, S_QRELS, S_RUN, ["Serendipity@2", "Serendipity@3", "Serendipity(rel=2)@2"],
                      train=S_TRAIN, catalog=pl.DataFrame({"doc_id": S_CATALOG}), missing="zero")
    assert close_rows(got.rows(), [
        ("u1", 0.5, 1 / 3, 5 / 12), ("u2", 1 / 6, 1 / 6, 0.0), ("u3", 0.0, 0.0, 0.0), ("u4", None, None, None),
    ])


def test_a_rank_beyond_the_catalog_scores_nothing() -> None:
    """p(r) ≤ 0 beyond rank n: a catalog of 2 makes rank 3's relevant, never trained item 0 ((3 − 3)/2)."""
    run = pl.DataFrame({"query_id": ["u"] * 3, "doc_id": ["p", "q", "r"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["u"], "doc_id": ["r"], "relevance": [1]})
    for engine in ("polars", "duckdb"):
        got = rw.evaluate(qrels, run, ["Serendipity@3"], train={"v": ["p"]}, catalog=["p", "q"], engine=engine)
        assert got["Serendipity@3"].item() == 0.0


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_the_catalog_in_every_form(engine: str, tmp_path: Path) -> None:
    """A list, tuple, set, Series, frame, CSV and Parquet paths, catalog_column; only its size counts."""
    want = rw.evaluate(S_QRELS, S_RUN, ["Serendipity@2"], train=S_TRAIN, catalog=S_CATALOG, engine=engine)
    frame = pl.DataFrame({"item": S_CATALOG})
    frame.write_csv(tmp_path / "catalog.csv")
    frame.write_parquet(tmp_path / "catalog.parquet")
    forms: list[tuple[Any, dict[str, Any]]] = [
        (tuple(S_CATALOG), {}), (set(S_CATALOG), {}), (pl.Series(S_CATALOG), {}), (frame, {}),
        (str(tmp_path / "catalog.csv"), {}), (tmp_path / "catalog.parquet", {}),
        (frame.with_columns(pl.lit(1).alias("other")), {"catalog_column": "item"}),
    ]
    for given_form, kw in forms:
        got = rw.evaluate(S_QRELS, S_RUN, ["Serendipity@2"], train=S_TRAIN, catalog=given_form, engine=engine, **kw)
        assert got.equals(want), type(given_form)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_a_missing_or_bad_catalog_is_refused(engine: str) -> None:
    def ev(**kw: Any) -> None:
        rw.evaluate(S_QRELS, S_RUN, ["nDCG", "Serendipity@2"], train=S_TRAIN, engine=engine, **kw)

    with pytest.raises(rw.InvalidParameterError,
                       match=r"^Serendipity@2 reads the catalog, the items that could be recommended: pass catalog="):
        ev()
    with pytest.raises(rw.EmptyInputError, match=r"^the catalog \(catalog=\) has no items"):
        ev(catalog=[])
    with pytest.raises(rw.InvalidValueError, match=r"^the catalog \(catalog=\) holds 1 NULL item"):
        ev(catalog=["a", None])
    with pytest.raises(rw.MissingColumnError, match=r"^the catalog has no item column 'it'"):
        ev(catalog=pl.DataFrame({"item": ["a"], "x": [1]}), catalog_column="it")
    with pytest.raises(rw.InvalidParameterError, match=r"^Serendipity@2 reads the training interactions"):
        rw.evaluate(S_QRELS, S_RUN, ["Serendipity@2"], catalog=S_CATALOG, engine=engine)
    # given and not read: nothing reads a catalog that would fail
    assert rw.evaluate(S_QRELS, S_RUN, ["P@1"], catalog=[], engine=engine).height == 3


def test_to_sql_checks_the_catalog_and_refuses_without_it() -> None:
    con = rw.register(duckdb.connect())
    for name, frame in (("run", S_RUN), ("qrels", S_QRELS), ("train", S_TRAIN),
                        ("empty", pl.DataFrame({"doc_id": []}, schema={"doc_id": pl.String}))):
        con.register(name, frame)
    with pytest.raises(duckdb.Error, match=r"rankwise: the catalog"):
        con.sql(rw.to_sql(["Serendipity@2"], train="train", catalog="empty")).pl()
    with pytest.raises(duckdb.Error, match=r"rankwise: the catalog"):
        con.sql("SELECT * FROM rw_serendipity('qrels', 'run', 'train', 'empty')").pl()
    with pytest.raises(rw.InvalidParameterError, match=r"Serendipity@2 reads the catalog: pass catalog= \(the table's name\)"):
        rw.to_sql(["Serendipity@2"], train="train")
    spark_sql = rw.to_sql(["Serendipity@2"], train="logs.train", catalog="logs.items", dialect="spark")
    assert "FROM `logs`.`items`" in spark_sql and "raise_error(" in spark_sql


def test_serendipity_like_rectools() -> None:
    case = GOLDENS["cases"][0]
    qrels, run, train, catalog = _frames(case)
    metric = f"Serendipity@{case['k']}"
    assert rw.like("rectools", metric).metric == metric
    got = rw.evaluate(qrels, run, [metric], train=train, catalog=catalog, like="rectools")
    values = {u: v for u, v in _values(got, metric).items() if v is not None}
    assert values == pytest.approx(case["values"]["rectools.Serendipity"], abs=1e-12)


@settings(max_examples=examples(20), deadline=None)
@given(seed=st.integers(0, 10**6), k=st.integers(1, 6), engine=st.sampled_from(["polars", "duckdb"]),
       int_ids=st.booleans())
def test_rectools_serendipity_live(seed: int, k: int, engine: str, int_ids: bool) -> None:
    """rectools' Serendipity on random data: popularity ties, repeats, items never in training, users
    without training, catalogs smaller than the lists."""
    pd = pytest.importorskip("pandas")
    metrics_mod = pytest.importorskip("rectools.metrics")
    rng = random.Random(seed)
    items = [f"i{j}" for j in range(rng.randint(2, 15))]
    train = [(f"u{rng.randrange(12)}", rng.choice(items[: max(1, len(items) - 2)])) for _ in range(rng.randint(1, 40))]
    run: list[tuple[str, str, float]] = []
    qrels: list[tuple[str, str, int]] = []
    for u in range(rng.randint(1, 8)):
        listed = rng.sample(items, rng.randint(1, min(7, len(items))))
        run += [(f"u{u}", item, float(len(listed) - r)) for r, item in enumerate(listed)]
        qrels += [(f"u{u}", item, rng.choice([0, 1])) for item in rng.sample(items, rng.randint(1, len(items)))]
    catalog = rng.sample(items, rng.randint(1, len(items)))
    inter = pd.DataFrame([(u, i) for u, i, rel in qrels if rel >= 1], columns=["user_id", "item_id"])
    theirs = metrics_mod.Serendipity(k).calc_per_user(
        _ranked(run), inter, pd.DataFrame(train, columns=["user_id", "item_id"]), catalog
    )

    def ids(rows: list[Any], columns: list[str]) -> pl.DataFrame:
        frame = pl.DataFrame(rows, schema=columns, orient="row")
        if int_ids:
            frame = frame.with_columns(pl.col(c).str.slice(1).cast(pl.Int64) for c in columns if c in ("query_id", "doc_id"))
        return frame

    got = rw.evaluate(
        ids(qrels, ["query_id", "doc_id", "relevance"]), ids(run, ["query_id", "doc_id", "score"]), [f"Serendipity@{k}"],
        train=ids(train, ["query_id", "doc_id"]), catalog=[int(i[1:]) for i in catalog] if int_ids else catalog,
        engine=engine,
    )
    ours = {f"u{q}" if int_ids else q: v for q, v in zip(got["query_id"], got[f"Serendipity@{k}"], strict=True)}
    assert set(ours) == set(theirs.index)
    for user, value in theirs.items():
        assert ours[user] == pytest.approx(value, abs=1e-12), user


def _serendipity_by_definition(run: dict[str, list[str]], qrels: dict[str, dict[str, int]], train: list[tuple[str, str]],
                               catalog: list[str], k: int, rel: int) -> dict[str, float | None]:
    """rectools' Serendipity written out: n = the catalog's distinct items, poprank the dense rank of the
    training rows (1 = most), pu = 0 for an item never in training; per judged user the mean over its
    first min(k, len) items of max((n + 1 − r)/n − pu, 0) · [rel ≥ rel]; NULL without a list."""
    n = len(set(catalog))
    rows: dict[str, int] = {}
    for _, item in train:
        rows[item] = rows.get(item, 0) + 1
    counts = sorted(set(rows.values()), reverse=True)
    poprank = {item: counts.index(c) + 1 for item, c in rows.items()}
    out: dict[str, float | None] = {}
    for user, judged in qrels.items():
        top = run.get(user, [])[:k]
        if not top:
            out[user] = None
            continue
        terms = []
        for r, item in enumerate(top, 1):
            pu = (n + 1 - poprank[item]) / n if item in poprank else 0.0
            terms.append(max((n + 1 - r) / n - pu, 0.0) * (judged.get(item, 0) >= rel))
        out[user] = sum(terms) / len(terms)
    return out


@settings(max_examples=examples(30), deadline=None)
@given(data=st.data(), k=st.integers(1, 5), rel=st.integers(1, 2), engine=st.sampled_from(["polars", "duckdb"]))
def test_serendipity_property(data: st.DataObject, k: int, rel: int, engine: str) -> None:
    users = [f"u{j}" for j in range(5)]
    items = [f"i{j}" for j in range(7)]
    run = {u: data.draw(st.lists(st.sampled_from(items), unique=True, max_size=5)) for u in users}
    qrels = {u: data.draw(st.dictionaries(st.sampled_from(items), st.integers(0, 2), max_size=4)) for u in users}
    qrels = {u: j for u, j in qrels.items() if j}
    train = data.draw(st.lists(st.tuples(st.sampled_from([*users, "v"]), st.sampled_from(items[:5])), min_size=1, max_size=20))
    catalog = data.draw(st.lists(st.sampled_from([*items, "c1"]), min_size=1, max_size=9))
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
    metric = f"Serendipity(rel={rel})@{k}"
    got = rw.evaluate(qrels_frame, run_frame, [metric], train=pl.DataFrame(train, schema=["query_id", "doc_id"], orient="row"),
                      catalog=catalog, missing="zero", engine=engine)
    want = _serendipity_by_definition(run, qrels, train, catalog, k, rel)
    values = _values(got, metric)
    assert set(values) == set(want)
    for user, value in want.items():
        assert (values[user] is None) == (value is None), user
        if value is not None:
            assert values[user] == pytest.approx(value, abs=1e-12), user


def test_serendipity_on_every_path(tmp_path: Path) -> None:
    """Segments (each segment's lists, the same training and catalog), query chunks, explain, compare,
    the namespaces, the expression's refusal, the command line and the metric's page."""
    metrics = ["Serendipity@2", "Serendipity@3"]
    kw: dict[str, Any] = {"train": S_TRAIN, "catalog": S_CATALOG}
    want = rw.evaluate(S_QRELS, S_RUN, metrics, **kw)
    assert rw.evaluate(S_QRELS, S_RUN, metrics, query_chunks=2, **kw).equals(want)
    assert S_RUN.ir.evaluate(S_QRELS, metrics, **kw).equals(want)
    assert S_RUN.lazy().ir.evaluate(S_QRELS, metrics, **kw).collect().equals(want)
    run = pl.concat([S_RUN.with_columns(pl.lit("s").alias("seg")),
                     S_RUN.with_columns(pl.lit("t").alias("seg"), (-pl.col("score")).alias("score"))])
    for engine in ("polars", "duckdb"):
        got = rw.evaluate(S_QRELS, run, metrics, by="seg", engine=engine, **kw)
        for segment in ("s", "t"):
            alone = rw.evaluate(S_QRELS, run.filter(pl.col("seg") == segment).drop("seg"), metrics, engine=engine, **kw)
            assert close_rows(got.filter(pl.col("seg") == segment).drop("seg").rows(), alone.rows()), segment
    # u1: b (1 − 5/6), then x (5/6): the mean over the items shown so far
    table = rw.explain(S_QRELS, S_RUN, "Serendipity@2", "u1", **kw)
    assert table["value"].to_list() == pytest.approx([1 / 6, 0.5])
    other = S_RUN.with_columns(-pl.col("score"))
    compared = rw.compare(S_QRELS, {"a": S_RUN, "b": other}, ["Serendipity@2"], **kw)
    means = rw.summarize(rw.evaluate(S_QRELS, other, ["Serendipity@2"], **kw))
    assert compared.filter(pl.col("metric") == "Serendipity@2")["mean"].item() == pytest.approx(means["Serendipity@2"].item())
    with pytest.raises(rw.InvalidParameterError, match=r"Serendipity@2 cannot be a metric expression \(Polars or SQL\)"):
        rw.expr("Serendipity@2")
    S_QRELS.write_parquet(tmp_path / "qrels.parquet")
    S_RUN.write_parquet(tmp_path / "run.parquet")
    S_TRAIN.rename({"query_id": "user"}).write_csv(tmp_path / "train.csv")
    pl.DataFrame({"item": S_CATALOG}).write_csv(tmp_path / "catalog.csv")

    def cli(*args: str) -> Any:
        return rankwise_cli("eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), "-m", "Serendipity@2",
                            "--train", str(tmp_path / "train.csv"), "--train-query-id-col", "user", *args)

    done = cli("--catalog", str(tmp_path / "catalog.csv"), "--format", "csv")
    assert done.returncode == 0, done.stderr
    assert pl.read_csv(done.stdout.encode())["Serendipity@2"].item() == pytest.approx(
        rw.summarize(want)["Serendipity@2"].item()
    )
    missing = cli()
    assert missing.returncode == 2
    assert missing.stderr.strip() == (
        "rankwise: error: Serendipity@2 reads the catalog, the items that could be recommended: pass --catalog FILE"
    )
    page = rankwise_cli("metrics", "Serendipity")
    assert "reads:       the training interactions: --train FILE (train= in Python)" in page.stdout
    assert "reads:       the catalog: --catalog FILE (catalog= in Python)" in page.stdout


def test_serendipity_report_draws_it_against_accuracy() -> None:
    from rankwise.reporting.plots import tradeoff_pairs

    assert tradeoff_pairs(["AP", "Serendipity@2", "UserCoverage@2"]) == [("AP", "Serendipity@2"), ("AP", "UserCoverage@2")]


def test_spark_serendipity(spark: Any) -> None:
    from tests.engines.test_spark import from_spark, to_spark

    metrics = ["Serendipity@1", "Serendipity@2", "Serendipity(rel=2)@3"]
    catalog = pl.DataFrame({"doc_id": S_CATALOG})
    got = from_spark(rw.spark.evaluate(to_spark(spark, S_QRELS), to_spark(spark, S_RUN), metrics,
                                       train=to_spark(spark, S_TRAIN), catalog=to_spark(spark, catalog), missing="zero"))
    want = rw.evaluate(S_QRELS, S_RUN, metrics, train=S_TRAIN, catalog=catalog, missing="zero")
    assert close_rows(got.sort("query_id").rows(), want.rows())


# -- recommenders' serendipity and co-occurrence diversity -----------------------------------------
RECOMMENDERS_METRICS = {
    "recommenders.user_serendipity": "Serendipity(definition='recommenders')@{k}",
    "recommenders.user_serendipity(relevance=1)": "Serendipity(definition='recommenders', relevance='every')@{k}",
    "recommenders.user_serendipity(item_feature_vector)": "Serendipity(definition='recommenders', similarity='cosine')@{k}",
    "recommenders.user_diversity": "ILD(distance='cooccurrence')@{k}",
}
"""Each recommenders function (a key of the goldens' values) as a rankwise metric string."""

RECOMMENDERS_CASES = [case for case in GOLDENS["cases"] if "features" in case]


def _features(case: dict[str, Any]) -> pl.DataFrame:
    ids = pl.Int64 if case["ids"] == "int" else pl.String
    return pl.DataFrame({"doc_id": [i for i, _ in case["features"]], "features": [v for _, v in case["features"]]},
                        schema={"doc_id": ids, "features": pl.List(pl.Float64)})


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", RECOMMENDERS_CASES, ids=lambda c: c["name"])
def test_recommenders_values(case: dict[str, Any], engine: str) -> None:
    """Every user recommenders scores has its value (lists cut at k: recommenders has none). The users it
    leaves out: serendipity, a user without training rows (NULL) or a list (NULL); diversity, a list of
    one item (ILD's 0, rectools') or none (NULL)."""
    qrels, run, train, _ = _frames(case)
    metrics = [m.format(k=case["k"]) for m in RECOMMENDERS_METRICS.values()]
    got = evaluate_on(engine, qrels, run, metrics, train=train, features=_features(case), missing="zero")
    trained = {str(u) for u, _ in case["train"]}
    lengths: dict[str, int] = {}
    for u, _, _ in case["run"]:
        lengths[str(u)] = lengths.get(str(u), 0) + 1
    for key, pattern in RECOMMENDERS_METRICS.items():
        metric = pattern.format(k=case["k"])
        ours, theirs = _values(got, metric), case["values"][key]
        for user, value in ours.items():
            if user in theirs:
                assert value == pytest.approx(theirs[user], abs=1e-12), (key, user)
            elif key == "recommenders.user_diversity":
                assert value == (0.0 if lengths.get(user) == 1 else None), (key, user, value)
            else:
                assert value is None and (user not in trained or user not in lengths), (key, user, value)
        assert set(theirs) <= set(ours), key


def test_the_recommenders_goldens_hold_the_edges() -> None:
    """Users without training rows and one-item lists (left out by recommenders), repeated training rows,
    pairs that never co-occur (similarity 0: values of 1), integer ids."""
    hand = next(case for case in RECOMMENDERS_CASES if case["name"] == "cooccurrence")
    assert set(hand["values"]["recommenders.user_serendipity"]) == {"u1", "u2"}
    assert set(hand["values"]["recommenders.user_diversity"]) == {"u1", "u2"}
    assert any(len(case["train"]) > len({tuple(r) for r in case["train"]}) for case in RECOMMENDERS_CASES)
    assert any(1.0 in case["values"]["recommenders.user_diversity"].values() for case in RECOMMENDERS_CASES)
    assert any(case["ids"] == "int" for case in RECOMMENDERS_CASES)


C_RUN = pl.DataFrame({"query_id": ["u1", "u1", "u2", "u2", "u3", "u4"], "doc_id": ["c", "d", "d", "c", "c", "b"],
                      "score": [2.0, 1.0, 2.0, 1.0, 1.0, 1.0]})
C_QRELS = pl.DataFrame({"query_id": ["u1", "u1", "u2", "u3", "u4", "u5"], "doc_id": ["c", "d", "d", "c", "b", "a"],
                        "relevance": [1, 0, 1, 1, 1, 1]})
C_TRAIN = {"u1": ["a", "b"], "u2": ["a"], "u5": ["a", "c"], "u6": ["b", "c", "d"], "u7": ["a", "d"]}
"""Training rows: a 4 (u1, u2, u5, u7), b 2 (u1, u6), c 2 (u5, u6), d 2 (u6, u7). co(a, c) = 1/√8 (u5),
co(a, d) = 1/√8 (u7), co(b, c) = co(b, d) = co(c, d) = 1/2 (u6), co(a, b) = 1/√8 (u1)."""
C_FEATURES = {"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [1.0, 1.0], "d": [0.0, 2.0]}


@pytest.mark.parametrize("engine", ENGINES)
def test_recommenders_hand_values(engine: str) -> None:
    """u1 (history a, b) lists c, d at k = 2: sim(c) = (1/√8 + 1/2)/2, sim(d) = (1/√8 + 1/2)/2; c relevant:
    (1 − sim(c))/2; every item relevant: (2 − 2 sim)/2. u2 (history a): d, c, d relevant: (1 − 1/√8)/2.
    Cosine: u1's c against a and b: 1/√2 each, (1 − 1/√2)/2. u3: no training, NULL. u4: one item, no training:
    serendipity NULL, ILD 0 (no pair). u5: no list, NULL. ILD: u1's c, d: 1 − 1/2; u2 the same pair."""
    s = 1 / 8 ** 0.5
    sim = (s + 0.5) / 2
    metrics = ["Serendipity(definition='recommenders')@2", "Serendipity(definition='recommenders', relevance='every')@2",
               "Serendipity(definition='recommenders', similarity='cosine')@2", "ILD(distance='cooccurrence')@2"]
    train = pl.DataFrame([(u, i) for u, items in C_TRAIN.items() for i in items], schema=["query_id", "doc_id"], orient="row")
    features = pl.DataFrame({"doc_id": list(C_FEATURES), "features": list(C_FEATURES.values())})
    got = evaluate_on(engine, C_QRELS, C_RUN, metrics, train=train, features=features, missing="zero")
    assert close_rows(got.rows(), [
        ("u1", (1 - sim) / 2, 1 - sim, (1 - 1 / 2 ** 0.5) / 2, 0.5),
        ("u2", (1 - s) / 2, ((1 - s) + (1 - s)) / 2, (1 - 0.0) / 2, 0.5),
        ("u3", None, None, None, 0.0),
        ("u4", None, None, None, 0.0),
        ("u5", None, None, None, None),
    ])


def test_repeated_training_rows_count_as_recommenders_counts_them() -> None:
    """recommenders assumes distinct training rows and counts repeats as they come: co(i, j) = Σ_u n_u(i) n_u(j)
    / sqrt(rows(i) rows(j)), the history's mean over its rows. u (history a, a, b) lists c: co(a, c) = 2·1/√(3·2)
    (v has a twice and c), co(b, c) = 0; mean over u's rows (2 co(a, c) + 0)/3."""
    train = pl.DataFrame({"query_id": ["u", "u", "u", "v", "v", "v"], "doc_id": ["a", "a", "b", "a", "a", "c"]})
    run = pl.DataFrame({"query_id": ["u"], "doc_id": ["c"], "score": [1.0]})
    qrels = pl.DataFrame({"query_id": ["u"], "doc_id": ["c"], "relevance": [1]})
    co = 2 / (4 * 1) ** 0.5
    for engine in ENGINES:
        got = evaluate_on(engine, qrels, run, ["Serendipity(definition='recommenders')@1"], train=train)
        assert got.item(0, 1) == pytest.approx(1 - 2 * co / 3, abs=1e-12), engine


def _recommenders_by_definition(run: dict[str, list[str]], qrels: dict[str, dict[str, int]], train: list[tuple[str, str]],
                                k: int) -> tuple[dict[str, float | None], dict[str, float | None]]:
    """recommenders' serendipity (co-occurrence, relevance [rel >= 1]) and ILD(distance='cooccurrence')
    written out, per judged user."""
    n: dict[tuple[str, str], int] = {}
    for user, item in train:
        n[(user, item)] = n.get((user, item), 0) + 1
    users = {u for u, _ in train}
    rows = {i: sum(c for (_, j), c in n.items() if j == i) for _, i in train}

    def co(i: str, j: str) -> float:
        if i not in rows or j not in rows:
            return 0.0
        return sum(n.get((u, i), 0) * n.get((u, j), 0) for u in users) / (rows[i] * rows[j]) ** 0.5

    seren: dict[str, float | None] = {}
    ild: dict[str, float | None] = {}
    for user, judged in qrels.items():
        top = run.get(user, [])[:k]
        history = [i for u, i in train if u == user]
        seren[user] = None if not top or not history else sum(
            (1 - sum(co(i, j) for j in history) / len(history)) * (judged.get(i, 0) >= 1) for i in top
        ) / len(top)
        pairs = [(a, b) for x, a in enumerate(top) for b in top[:x]]
        ild[user] = None if not top else (sum(1 - co(a, b) for a, b in pairs) / len(pairs) if pairs else 0.0)
    return seren, ild


@settings(max_examples=examples(30), deadline=None)
@given(data=st.data(), k=st.integers(1, 4), engine=st.sampled_from(["polars", "duckdb"]))
def test_recommenders_property(data: st.DataObject, k: int, engine: str) -> None:
    users = [f"u{j}" for j in range(5)]
    items = [f"i{j}" for j in range(6)]
    run = {u: data.draw(st.lists(st.sampled_from(items), unique=True, max_size=4)) for u in users}
    qrels = {u: data.draw(st.dictionaries(st.sampled_from(items), st.integers(0, 2), max_size=4)) for u in users}
    qrels = {u: j for u, j in qrels.items() if j}
    train = data.draw(st.lists(st.tuples(st.sampled_from([*users, "v", "w"]), st.sampled_from(items[:5])), min_size=1,
                               max_size=20))
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
    metrics = [f"Serendipity(definition='recommenders')@{k}", f"ILD(distance='cooccurrence')@{k}"]
    train_frame = pl.DataFrame(train, schema=["query_id", "doc_id"], orient="row")
    together = rw.evaluate(qrels_frame, run_frame, metrics, train=train_frame, missing="zero", engine=engine)
    for metric, want in zip(metrics, _recommenders_by_definition(run, qrels, train, k), strict=True):
        # each alone too: no other metric's pairs in the same statement
        alone = rw.evaluate(qrels_frame, run_frame, [metric], train=train_frame, missing="zero", engine=engine)
        assert _values(alone, metric) == _values(together, metric), metric
        values = _values(together, metric)
        assert set(values) == set(want)
        for user, value in want.items():
            assert (values[user] is None) == (value is None), (metric, user)
            if value is not None:
                assert values[user] == pytest.approx(value, abs=1e-12), (metric, user)


def test_recommenders_on_every_path(tmp_path: Path) -> None:
    """Segments (each key's history: its user's), query chunks, explain, compare, the namespace, the
    refusals (no training, no features for the cosine), the command line and the pages."""
    metrics = ["Serendipity(definition='recommenders')@2", "Serendipity(definition='recommenders', similarity='cosine')@2",
               "ILD(distance='cooccurrence')@2"]
    kw: dict[str, Any] = {"train": C_TRAIN, "features": C_FEATURES}
    want = rw.evaluate(C_QRELS, C_RUN, metrics, **kw)
    assert rw.evaluate(C_QRELS, C_RUN, metrics, query_chunks=2, **kw).equals(want)
    assert C_RUN.lazy().ir.evaluate(C_QRELS, metrics, **kw).collect().equals(want)
    run = pl.concat([C_RUN.with_columns(pl.lit("s").alias("seg")),
                     C_RUN.with_columns(pl.lit("t").alias("seg"), (-pl.col("score")).alias("score"))])
    for engine in ("polars", "duckdb"):
        got = rw.evaluate(C_QRELS, run, metrics, by="seg", engine=engine, **kw)
        for segment in ("s", "t"):
            alone = rw.evaluate(C_QRELS, run.filter(pl.col("seg") == segment).drop("seg"), metrics, engine=engine, **kw)
            assert close_rows(got.filter(pl.col("seg") == segment).drop("seg").rows(), alone.rows()), segment
    for metric in metrics:
        table = rw.explain(C_QRELS, C_RUN, metric, "u1", **kw)
        assert table["value"][-1] == pytest.approx(want.filter(pl.col("query_id") == "u1")[metric].item())
    other = C_RUN.with_columns(-pl.col("score"))
    compared = rw.compare(C_QRELS, {"a": C_RUN, "b": other}, metrics[:1], **kw)
    assert compared.filter(pl.col("metric") == metrics[0])["mean"].item() == pytest.approx(
        rw.summarize(rw.evaluate(C_QRELS, other, metrics[:1], **kw))[metrics[0]].item()
    )
    with pytest.raises(rw.InvalidParameterError, match=r"^ILD\(distance='cooccurrence'\)@2 reads the training interactions"):
        rw.evaluate(C_QRELS, C_RUN, ["ILD(distance='cooccurrence')@2"])
    with pytest.raises(rw.InvalidParameterError, match=r"similarity='cosine'\)@2 reads the item features"):
        rw.evaluate(C_QRELS, C_RUN, metrics[1:2], train=C_TRAIN)
    with pytest.raises(rw.InvalidParameterError, match=r"cannot be a metric expression"):
        rw.expr("ILD(distance='cooccurrence')@2")
    # no catalog and no features are read where the metric does not read them
    assert rw.evaluate(C_QRELS, C_RUN, metrics[:1], train=C_TRAIN, catalog=[], features={}).height == 4
    C_QRELS.write_parquet(tmp_path / "qrels.parquet")
    C_RUN.write_parquet(tmp_path / "run.parquet")
    pl.DataFrame([(u, i) for u, items in C_TRAIN.items() for i in items], schema=["query_id", "doc_id"],
                 orient="row").write_csv(tmp_path / "train.csv")
    done = rankwise_cli("eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), "-m", metrics[0],
                        "-m", metrics[2], "--train", str(tmp_path / "train.csv"), "--format", "csv")
    assert done.returncode == 0, done.stderr
    summary = rw.summarize(want)
    got_cli = pl.read_csv(done.stdout.encode())
    for metric in (metrics[0], metrics[2]):
        assert got_cli[metric].item() == pytest.approx(summary[metric].item())
    page = rankwise_cli("metrics", "ILD")
    assert "reads:       the training interactions: --train FILE (train= in Python)" in page.stdout


def test_to_sql_reads_the_pairs_in_both_dialects() -> None:
    con = rw.register(duckdb.connect())
    train = pl.DataFrame([(u, i) for u, items in C_TRAIN.items() for i in items], schema=["query_id", "doc_id"], orient="row")
    for name, frame in (("run", C_RUN), ("qrels", C_QRELS), ("train", train),
                        ("feat", pl.DataFrame({"doc_id": list(C_FEATURES), "features": list(C_FEATURES.values())}))):
        con.register(name, frame)
    metrics = ["Serendipity(definition='recommenders', similarity='cosine')@2", "ILD(distance='cooccurrence')@2"]
    with pytest.raises(rw.InvalidParameterError, match=r"reads the item features: pass features= \(the table's name\)"):
        rw.to_sql(metrics, train="train")
    got = con.sql(rw.to_sql(metrics, train="train", features="feat")).pl()
    assert close_rows(got.rows(), rw.evaluate(C_QRELS, C_RUN, metrics, train=C_TRAIN, features=C_FEATURES).rows())
    spark_sql = rw.to_sql(metrics, train="logs.train", features="logs.feat", dialect="spark")
    assert "FROM `logs`.`train`" in spark_sql and "list_dot_product" not in spark_sql


def test_spark_recommenders(spark: Any) -> None:
    from tests.engines.test_spark import from_spark, to_spark

    metrics = ["Serendipity(definition='recommenders')@1", "Serendipity(definition='recommenders', relevance='every')@2",
               "Serendipity(definition='recommenders', similarity='cosine')@2", "ILD(distance='cooccurrence')@2"]
    train = pl.DataFrame([(u, i) for u, items in C_TRAIN.items() for i in items], schema=["query_id", "doc_id"], orient="row")
    features = pl.DataFrame({"doc_id": list(C_FEATURES), "features": list(C_FEATURES.values())})
    got = from_spark(rw.spark.evaluate(to_spark(spark, C_QRELS), to_spark(spark, C_RUN), metrics,
                                       train=to_spark(spark, train), features=to_spark(spark, features), missing="zero"))
    want = rw.evaluate(C_QRELS, C_RUN, metrics, train=train, features=features, missing="zero")
    assert close_rows(got.sort("query_id").rows(), want.rows())


@pytest.mark.parametrize("engine", ENGINES)
def test_every_item_counts_and_cosine_names_recommenders(engine: str) -> None:
    """relevance='every' counts every listed item in rectools' definition too (u3's y, never trained, rank 1:
    1; its a, rank 2, poprank 1: 5/6 − 1 < 0: 0; mean 1/2); similarity='cosine' alone is recommenders'."""
    got = evaluate_on(engine, S_QRELS, S_RUN, ["Serendipity(relevance='every')@2"], train=S_TRAIN,
                      catalog=pl.DataFrame({"doc_id": S_CATALOG}))
    assert _values(got, "Serendipity(relevance='every')@2")["u3"] == pytest.approx(0.5)
    a = rw.evaluate(C_QRELS, C_RUN, ["Serendipity(similarity='cosine')@2"], train=C_TRAIN, features=C_FEATURES)
    b = rw.evaluate(C_QRELS, C_RUN, ["Serendipity(definition='recommenders', similarity='cosine')@2"], train=C_TRAIN,
                    features=C_FEATURES)
    assert a.to_series(1).to_list() == b.to_series(1).to_list()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("metric", ["Serendipity(definition='recommenders')@2", "ILD(distance='cooccurrence')@2"])
def test_users_sharing_a_pair_count_it_once(engine: str, metric: str) -> None:
    """Each metric alone (no other metric's pairs in the statement): u1 and u2 both list c then d, both with the
    history a; v has a, c and d. co(a, c) = co(a, d) = 1/√3 · 1 (rows a 3, c 1, d 1), co(c, d) = 1. Serendipity:
    c relevant, (1 − 1/√3)/2; ILD: 1 − co(c, d) = 0."""
    run = pl.DataFrame({"query_id": ["u1", "u1", "u2", "u2"], "doc_id": ["c", "d", "c", "d"], "score": [2.0, 1.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["u1", "u2"], "doc_id": ["c", "c"], "relevance": [1, 1]})
    train = pl.DataFrame({"query_id": ["u1", "u2", "v", "v", "v"], "doc_id": ["a", "a", "a", "c", "d"]})
    got = evaluate_on(engine, qrels, run, [metric], train=train)
    want = (1 - 1 / 3 ** 0.5) / 2 if metric.startswith("Serendipity") else 0.0
    assert close_rows(got.rows(), [("u1", want), ("u2", want)])
