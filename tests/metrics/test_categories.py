"""The category family (beyond accuracy, from the item categories ``categories=``): RePlay's
``CategoricalDiversity`` as ``CategoryDiversity@k`` and LensKit's ``entropy`` /
``rank_biased_entropy`` as ``CategoryEntropy(rank_weight=...)@k``, against the libraries and by hand.

- ``tests/data/beyond/category_goldens.json``: RePlay's and LensKit's per-user values on four cases
  (hand-sized; three seeded: items with 0-3 categories, string and integer ids, lists shorter than k,
  users without a list), computed by ``tests/data/beyond/make_category_goldens.py`` with replay-rec
  0.22.0 and lenskit 2025.8.1 in an environment with pandas < 3, which both pin (rankwise's has
  pandas 3). RePlay takes one category per recommendation row: its values are frozen for the cases
  where every item has one category;
- hand-computed values at the edges: several categories per item, items without a category, lists
  shorter than k, a user without a list, the rank weights;
- hypothesis against the formulas, written out here.
"""

from __future__ import annotations

import json
import math
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

GOLDENS = json.loads((Path(__file__).parents[1] / "data" / "beyond" / "category_goldens.json").read_text())

ENGINES = ("polars", "polars-lazy", "duckdb", "to_sql", "macro")
GEOMETRIC = "CategoryEntropy(rank_weight='geometric')"

pytestmark = pytest.mark.filterwarnings("ignore:.*judged quer.*:rankwise.RankwiseWarning")


def lenskit_entropy(counts: list[float]) -> float:
    """LensKit's ``matrix_column_entropy`` of the (weighted) category counts: each + 1e-6, then
    −Σ p log2 p over every category."""
    values = [c + 1e-6 for c in counts]
    total = sum(values)
    return -sum(v / total * math.log2(v / total) for v in values)


def counts_of(items: list[str], categories: dict[str, list[str]], every: list[str], k: int | None,
              patience: float | None = None) -> list[float]:
    """Each category's count (or sum of rank weights patience^(r − 1)) over the first k items."""
    top = items if k is None else items[:k]
    return [
        sum((1.0 if patience is None else patience ** r) for r, item in enumerate(top) if g in categories.get(item, []))
        for g in every
    ]


def _golden_frames(case: dict[str, Any]) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """qrels (every user, one judgment each), run, categories (item, category) as the case's ids."""
    ids = pl.Int64 if case["ids"] == "int" else pl.String
    run = pl.DataFrame(case["run"], schema={"query_id": ids, "doc_id": ids, "score": pl.Float64}, orient="row")
    any_doc = case["run"][0][1]
    qrels = pl.DataFrame({"query_id": case["users"], "doc_id": [any_doc] * len(case["users"]), "relevance": [1] * len(case["users"])},
                         schema={"query_id": ids, "doc_id": ids, "relevance": pl.Int64})
    categories = pl.DataFrame([[i, str(c)] for i, c in case["categories"]], schema={"doc_id": ids, "category": pl.String},
                              orient="row")
    return qrels, run, categories


def evaluate_on(engine: str, qrels: pl.DataFrame, run: pl.DataFrame, categories: Any, metrics: list[str],
                **kw: Any) -> pl.DataFrame:
    """Evaluate through one engine's entry point; ``to_sql``: the statement run by DuckDB over
    registered tables; ``macro``: ``rw_category_metrics`` (k from the metrics' one cutoff, its
    columns renamed to the metrics'; its default missing='ignore')."""
    if engine not in ("to_sql", "macro"):
        return run_on(engine, qrels, run, metrics, categories=categories, **kw)
    con = rw.register(duckdb.connect())
    frame = categories if isinstance(categories, pl.DataFrame) else pl.DataFrame(
        [(d, str(c)) for d, cats in categories.items() for c in ([cats] if isinstance(cats, str) else cats)],
        schema=["doc_id", "category"], orient="row",
    )
    for name, table in (("run", run), ("qrels", qrels), ("cats", frame)):
        con.register(name, table)
    if engine == "to_sql":
        return con.sql(rw.to_sql(metrics, categories="cats", **kw)).pl()
    (k,) = {int(m.rsplit("@", 1)[1]) for m in metrics}
    got = con.sql(f"SELECT * FROM rw_category_metrics('qrels', 'run', 'cats', k := {k})").pl()
    columns = {f"{m.rsplit('@', 1)[0]}@k": m for m in metrics}
    return got.select("query_id", *[pl.col(c).alias(m) for c, m in columns.items()])


def _values(got: pl.DataFrame, metric: str) -> dict[str, float | None]:
    return {str(q): v for q, v in zip(got["query_id"], got[metric], strict=True)}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", GOLDENS["cases"], ids=lambda c: c["name"])
def test_library_values(case: dict[str, Any], engine: str) -> None:
    """Every user has LensKit's entropy and rank-biased entropy (a user without a list: NULL,
    LensKit's NaN; the macro, missing='ignore', leaves it out) and, where every item has one
    category, RePlay's CategoricalDiversity (which scores the users with a list)."""
    qrels, run, categories = _golden_frames(case)
    k = case["k"]
    metrics = [f"CategoryDiversity@{k}", f"CategoryEntropy@{k}", f"{GEOMETRIC}@{k}"]
    kw = {} if engine == "macro" else {"missing": "zero"}
    got = evaluate_on(engine, qrels, run, categories, metrics, **kw)
    listed = {key for key, value in case["lenskit"].items() if value is not None}
    want = case["lenskit"] if engine != "macro" else {key: case["lenskit"][key] for key in listed}
    assert _values(got, f"CategoryEntropy@{k}") == pytest.approx(want, abs=1e-12)
    want = case["lenskit_geometric"] if engine != "macro" else {key: case["lenskit_geometric"][key] for key in listed}
    assert _values(got, f"{GEOMETRIC}@{k}") == pytest.approx(want, abs=1e-12)
    diversity = _values(got, f"CategoryDiversity@{k}")
    if "replay" in case:
        assert {key: diversity[key] for key in case["replay"]} == pytest.approx(case["replay"], abs=1e-15)
    assert all(diversity[key] is None for key in diversity if key not in listed)


def test_the_goldens_hold_the_edges() -> None:
    """The cases hold what they are for: several categories per item and items without one, string
    and integer ids, lists shorter than k, users without a list, and RePlay values on two cases."""
    hand, multi_str, multi_int, single = GOLDENS["cases"]
    assert hand["replay"] == pytest.approx({"u1": 2 / 3, "u2": 2 / 3, "u3": 1 / 3})
    assert hand["lenskit"]["u4"] is None and "replay" in single and "replay" not in multi_str
    for case in (multi_str, multi_int):
        per_item: dict[Any, int] = {}
        for item, _ in case["categories"]:
            per_item[item] = per_item.get(item, 0) + 1
        listed = {row[1] for row in case["run"]}
        assert max(per_item.values()) == 3 and listed - set(per_item), case["name"]
    assert multi_int["ids"] == "int" and multi_str["ids"] == "str"
    lengths = [sum(1 for row in single["run"] if row[0] == u) for u in {row[0] for row in single["run"]}]
    assert min(lengths) < single["k"]


# -- hand values at the edges -----------------------------------------------------------------------
QRELS = pl.DataFrame({"query_id": ["u1", "u2", "u3", "u4"], "doc_id": ["a", "a", "f", "a"], "relevance": [1, 1, 1, 1]})
RUN = pl.DataFrame({
    "query_id": ["u1", "u1", "u1", "u1", "u2", "u2", "u3"],
    "doc_id": ["a", "b", "c", "d", "a", "e", "f"],
    "score": [4.0, 3.0, 2.0, 1.0, 2.0, 1.0, 1.0],
})
CATS: dict[str, Any] = {"a": ["x", "y"], "b": "x", "c": ["z"], "d": [], "e": "w"}
"""a has two categories, d none (an empty list), f none (no entry); the input's categories: w, x, y, z."""


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("k", [2, 3, 4])
def test_hand_values_category_diversity(engine: str, k: int) -> None:
    """u1 (a: x, y; b: x; c: z; d: none): top 2 {x, y} / 2, top 3 {x, y, z} / 3, top 4 the same / 4.
    u2 (a: x, y; e: w), a list of two: {w, x, y} over k (at k = 2 above 1: an item of several
    categories counts each). u3 (f: no category): 0.
    u4: no list (missing='zero'; the macro's default, 'ignore', leaves it out): NULL."""
    missing = {} if engine == "macro" else {"missing": "zero"}
    got = evaluate_on(engine, QRELS, RUN, CATS, [f"CategoryDiversity@{k}"], **missing)
    u1 = {2: 1.0, 3: 1.0, 4: 0.75}[k]
    u2 = 3 / k
    want = [("u1", u1), ("u2", u2), ("u3", 0.0)] + ([] if engine == "macro" else [("u4", None)])
    assert close_rows(got.rows(), want)


@pytest.mark.parametrize("engine", ENGINES)
def test_hand_values_category_entropy(engine: str) -> None:
    """At k = 3, over the four categories (w, x, y, z) of the input: u1's counts x 2, y 1, z 1, w 0
    (entropy just above 1.5 bits); u2's x, y, w once each (just above log2 3); u3's item has no
    category: every count 0, uniform: exactly 2 bits. Rank-biased: u1's x = 1 + 0.85, y = 1,
    z = 0.85²; u2's x = y = 1, w = 0.85; u3 still 2 bits."""
    missing = {} if engine == "macro" else {"missing": "zero"}
    got = evaluate_on(engine, QRELS, RUN, CATS, ["CategoryEntropy@3", f"{GEOMETRIC}@3"], **missing)
    plain = [("u1", lenskit_entropy([0, 2, 1, 1])), ("u2", lenskit_entropy([1, 1, 1, 0])), ("u3", 2.0)]
    geometric = [
        ("u1", lenskit_entropy([0, 1.85, 1, 0.85**2])), ("u2", lenskit_entropy([0.85, 1, 1, 0])), ("u3", 2.0),
    ]
    want = [(u, p, g) for (u, p), (_, g) in zip(plain, geometric, strict=True)]
    assert close_rows(got.rows(), want + ([] if engine == "macro" else [("u4", None, None)]))
    assert plain[0][1] == pytest.approx(1.5, abs=1e-4) and plain[1][1] == pytest.approx(math.log2(3), abs=1e-4)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_entropy_without_a_cutoff_reads_the_whole_list(engine: str) -> None:
    """LensKit's n=None: every row (u1's four items: x 2, y 1, z 1, d no category)."""
    got = rw.evaluate(QRELS, RUN, ["CategoryEntropy", "CategoryEntropy@10"], categories=CATS, engine=engine)
    u1 = got.filter(pl.col("query_id") == "u1").row(0)
    assert u1[1] == pytest.approx(lenskit_entropy([0, 2, 1, 1]), abs=1e-12) and u1[2] == u1[1]


def test_a_cutoff_is_required_for_category_diversity() -> None:
    with pytest.raises(rw.InvalidParameterError, match=r"CategoryDiversity needs a cutoff, e\.g\. CategoryDiversity@10"):
        rw.evaluate(QRELS, RUN, ["CategoryDiversity"], categories=CATS)


def test_like_lenskit_names_its_entropy() -> None:
    """LensKit's entropy under its preset (the run's order as given: the hand case's scores are distinct)."""
    like = rw.like("lenskit", "CategoryEntropy@3")
    assert (like.metric, like.name) == ("CategoryEntropy@3", "entropy(items, categories, n)")
    case = GOLDENS["cases"][0]
    qrels, run, categories = _golden_frames(case)
    got = rw.evaluate(qrels, run, ["CategoryEntropy@3"], categories=categories, like="lenskit")
    assert _values(got, "CategoryEntropy@3") == pytest.approx(
        {key: value for key, value in case["lenskit"].items() if value is not None}, abs=1e-12
    )


def test_the_alias_and_the_parameter() -> None:
    got = rw.evaluate(QRELS, RUN, ["CategoricalDiversity@2", "CategoryDiversity@2"], categories=CATS)
    assert got["CategoricalDiversity@2"].to_list() == got["CategoryDiversity@2"].to_list()
    with pytest.raises(rw.InvalidParameterError, match=r"rank_weight"):
        rw.evaluate(QRELS, RUN, ["CategoryEntropy(rank_weight='log')"], categories=CATS)


# -- against the formulas -----------------------------------------------------------------------------
ITEMS = ["a", "b", "c", "d", "e", "f", "g", "h"]
NAMES = ["g1", "g2", "g3", "g4"]


@settings(max_examples=examples(40), deadline=None)
@given(
    lists=st.lists(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=8, unique=True), min_size=1, max_size=4),
    categories=st.dictionaries(st.sampled_from(ITEMS), st.lists(st.sampled_from(NAMES), max_size=3, unique=True),
                               min_size=1),
    k=st.integers(1, 9),
    engine=st.sampled_from(["polars", "duckdb"]),
)
def test_random_lists_against_the_formulas(lists: list[list[str]], categories: dict[str, list[str]], k: int,
                                           engine: str) -> None:
    """CategoryDiversity@k = |∪ categories of the top k| / k; CategoryEntropy@k = LensKit's entropy
    of the top k's counts over every category of the input (+1e-6 each), uniform or 0.85^(r − 1)."""
    if not any(categories.values()):
        categories["h"] = ["g1"]
    every = sorted({g for gs in categories.values() for g in gs})
    users = [f"u{n}" for n in range(len(lists))]
    rows = [(u, item, float(len(items) - r)) for u, items in zip(users, lists, strict=True) for r, item in enumerate(items)]
    run = pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row")
    qrels = pl.DataFrame({"query_id": users, "doc_id": ["a"] * len(users), "relevance": [1] * len(users)})
    got = rw.evaluate(qrels, run, [f"CategoryDiversity@{k}", f"CategoryEntropy@{k}", f"{GEOMETRIC}@{k}"],
                      categories=categories, engine=engine)  # type: ignore[arg-type]
    want = []
    for u, items in zip(users, lists, strict=True):
        distinct = {g for item in items[:k] for g in categories.get(item, [])}
        want.append((
            u, len(distinct) / k, lenskit_entropy(counts_of(items, categories, every, k)),
            lenskit_entropy(counts_of(items, categories, every, k, 0.85)),
        ))
    assert close_rows(got.sort("query_id").rows(), sorted(want))


# -- the forms of categories=, their checks ----------------------------------------------------------
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_the_categories_in_every_form(engine: str, tmp_path: Path) -> None:
    """A dict of one category or a list, (item, category) pairs, a Polars frame or LazyFrame, pandas,
    pyarrow, a DuckDB relation, Parquet and CSV files, a column of lists; categories_columns names
    its own columns; a category column found as the only other column; a pair given twice counts once."""
    metrics = ["CategoryDiversity@3", "CategoryEntropy@3"]
    want = rw.evaluate(QRELS, RUN, metrics, categories=CATS, engine=engine)
    pairs = [(d, c) for d, cats in CATS.items() for c in ([cats] if isinstance(cats, str) else cats)]
    frame = pl.DataFrame(pairs, schema=["doc_id", "category"], orient="row")
    frame.write_parquet(tmp_path / "cats.parquet")
    frame.write_csv(tmp_path / "cats.csv")
    lists = frame.group_by("doc_id", maintain_order=True).agg(pl.col("category"))
    con = duckdb.connect()
    forms: list[tuple[Any, dict[str, Any]]] = [
        (pairs, {}), ([*pairs, pairs[0]], {}), (frame, {}), (frame.lazy(), {}), (frame.to_pandas(), {}),
        (frame.to_arrow(), {}), (con.sql("SELECT * FROM frame"), {}), (str(tmp_path / "cats.parquet"), {}),
        (tmp_path / "cats.csv", {}), (lists, {}), (frame.rename({"category": "genre"}), {}),
        (frame.rename({"doc_id": "item", "category": "genre"}).with_columns(pl.lit(1).alias("year")),
         {"categories_columns": {"doc_id": "item", "category": "genre"}}),
    ]
    for given_form, kw in forms:
        got = rw.evaluate(QRELS, RUN, metrics, categories=given_form, engine=engine, **kw)
        assert got.equals(want), type(given_form)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_integer_ids_meet_string_run_ids(engine: str) -> None:
    """Ids of another type than the run's are compared as text (as run and qrels are); integer
    categories are text too."""
    run = pl.DataFrame({"query_id": ["1", "1"], "doc_id": ["7", "8"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["1"], "doc_id": ["7"], "relevance": [1]})
    categories = pl.DataFrame({"doc_id": [7, 8, 8], "category": [3, 3, 4]})
    got = rw.evaluate(qrels, run, ["CategoryDiversity@2"], categories=categories, engine=engine)
    assert close_rows(got.rows(), [("1", 1.0)])
    got = rw.evaluate(qrels.with_columns(pl.col("doc_id").cast(pl.Int64)), run.with_columns(pl.col("doc_id").cast(pl.Int64)),
                      ["CategoryDiversity@2"], categories={7: 3, 8: [3, "4"]}, engine=engine)
    assert close_rows(got.rows(), [("1", 1.0)])


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_bad_categories_are_refused_naming_the_fault(engine: str, tmp_path: Path) -> None:
    def ev(categories: Any, **kw: Any) -> None:
        rw.evaluate(QRELS, RUN, ["CategoryDiversity@2"], categories=categories, engine=engine, **kw)

    frame = pl.DataFrame({"doc_id": ["a", "b"], "category": ["x", "y"]})
    with pytest.raises(rw.EmptyInputError, match=r"^the item categories \(categories=\) are empty: the dict holds no item"):
        ev({})
    with pytest.raises(rw.EmptyInputError, match=r"^the item categories \(categories=\) are empty: no \(item, category\) row"):
        ev(frame.clear())
    with pytest.raises(rw.EmptyInputError, match=r"no \(item, category\) row"):
        ev({"a": []})
    with pytest.raises(rw.InvalidValueError, match=r"^the item categories \(categories=\) hold 1 NULL value\(s\) in their item column 'doc_id'"):
        ev(frame.with_columns(pl.Series("doc_id", ["a", None])))
    with pytest.raises(rw.InvalidValueError, match=r"^the item categories \(categories=\): item 'b' has a NULL category"):
        ev(frame.with_columns(pl.Series("category", ["x", None])))
    with pytest.raises(rw.InvalidValueError, match=r"^the item categories \(categories=\): item 'a' has a NULL category"):
        ev(pl.DataFrame({"doc_id": ["a", "b"], "category": [["x", None], []]}))
    with pytest.raises(rw.InvalidValueError, match=r"item 'a' has a NULL list of categories"):
        ev(pl.DataFrame({"doc_id": ["a"], "category": [None]}, schema={"doc_id": pl.String, "category": pl.List(pl.String)}))
    with pytest.raises(rw.MissingColumnError, match=r"^the item categories \(categories=\) has no item column 'doc_id'"):
        ev(frame.rename({"doc_id": "item"}))
    with pytest.raises(rw.MissingColumnError, match=r"has no category column 'category'.*Columns found: \['doc_id', 'g', 'h'\]"):
        ev(frame.with_columns(pl.col("category").alias("g"), pl.col("category").alias("h")).drop("category"))
    with pytest.raises(rw.MissingColumnError, match=r"has no category column 'genre'"):
        ev(frame, categories_columns={"category": "genre"})
    with pytest.raises(rw.InvalidParameterError, match=r"categories_columns has no key 'item'"):
        ev(frame, categories_columns={"item": "doc_id"})
    with pytest.raises(rw.ColumnTypeError, match=r"the category column 'category' must hold strings or integers.*found type Float64"):
        ev(frame.with_columns(pl.lit(1.5).alias("category")))
    with pytest.raises(rw.ColumnTypeError, match=r"item 'a' has the category 1\.5 \(float\)"):
        ev({"a": [1.5]})
    with pytest.raises(rw.UnsupportedInputError, match=r"value for item 'a' is dict"):
        ev({"a": {"x": 1}})
    with pytest.raises(rw.UnsupportedInputError, match=r"pass \(item, category\) pairs"):
        ev([("a", "x", 1)])
    with pytest.raises(rw.UnsupportedInputError, match=r"cannot read the item categories \(categories=\) from builtins.int"):
        ev(3)
    with pytest.raises(rw.InputReadError, match=r"no such file: '.*absent\.parquet'"):
        ev(str(tmp_path / "absent.parquet"))


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_a_metric_reading_the_categories_without_them_is_refused(engine: str) -> None:
    with pytest.raises(
        rw.InvalidParameterError,
        match=r"CategoryEntropy@5 reads the item categories, the categories of each item: pass categories=",
    ):
        rw.evaluate(QRELS, RUN, ["nDCG", "CategoryEntropy@5"], engine=engine)


def test_the_categories_are_read_only_when_a_metric_reads_them() -> None:
    """Given and not read: nothing reads categories that would fail."""
    got = rw.evaluate(QRELS, RUN, ["P@1"], categories={})
    assert got.height == 3


def test_to_sql_and_the_macro_check_the_categories() -> None:
    """The statement fails on an empty table, a NULL item or category, naming the fault; Spark's
    statement spells the checks with raise_error."""
    con = rw.register(duckdb.connect())
    con.register("run", RUN)
    con.register("qrels", QRELS)
    con.register("empty", pl.DataFrame(schema={"doc_id": pl.String, "category": pl.String}))
    con.register("null_item", pl.DataFrame({"doc_id": ["a", None], "category": ["x", "y"]}))
    con.register("null_cat", pl.DataFrame({"item": ["a", "b"], "genre": ["x", None]}))
    with pytest.raises(duckdb.Error, match=r"rankwise: the item categories \(categories=\) are empty"):
        con.sql(rw.to_sql(["CategoryDiversity@2"], categories="empty")).pl()
    with pytest.raises(duckdb.Error, match=r"hold 1 NULL value\(s\) in their item column 'doc_id'"):
        con.sql(rw.to_sql(["CategoryDiversity@2"], categories="null_item")).pl()
    with pytest.raises(duckdb.Error, match=r"hold 1 NULL value\(s\) in their category column 'genre'"):
        con.sql(rw.to_sql(["CategoryDiversity@2"], categories="null_cat",
                          categories_columns={"doc_id": "item", "category": "genre"})).pl()
    with pytest.raises(duckdb.Error, match=r"hold 1 NULL value\(s\) in their item column 'doc_id'"):
        con.sql("SELECT * FROM rw_category_metrics('qrels', 'run', 'null_item')").pl()
    with pytest.raises(rw.InvalidParameterError, match=r"CategoryDiversity@2 reads the item categories: pass categories= \(the table's name\)"):
        rw.to_sql(["CategoryDiversity@2"])
    with pytest.raises(rw.InvalidParameterError, match=r"categories_columns has no key 'genre'"):
        rw.to_sql(["CategoryDiversity@2"], categories="cats", categories_columns={"genre": "g"})
    spark_sql = rw.to_sql(["CategoryDiversity@2", f"{GEOMETRIC}@2"], categories="shop.genres", dialect="spark")
    assert "FROM `shop`.`genres`" in spark_sql and "raise_error(" in spark_sql and "rw_category" not in spark_sql.replace(
        "rw_category_rows", "").replace("rw_category_runs", "").replace("rw_category_sums", "").replace("rw_category_all", "")


def test_spark(spark: Any) -> None:
    from tests.engines.test_spark import from_spark, to_spark

    pairs = [(d, c) for d, cats in CATS.items() for c in ([cats] if isinstance(cats, str) else cats)]
    frame = pl.DataFrame(pairs, schema=["item", "genre"], orient="row")
    metrics = ["CategoryDiversity@2", "CategoryDiversity@4", "CategoryEntropy@3", f"{GEOMETRIC}@3", "CategoryEntropy"]
    for ties in ("trec_eval", "doc_asc"):
        got = from_spark(rw.spark.evaluate(to_spark(spark, QRELS), to_spark(spark, RUN), metrics, ties=ties,
                                           categories=to_spark(spark, frame),
                                           categories_columns={"doc_id": "item", "category": "genre"}))
        want = rw.evaluate(QRELS, RUN, metrics, categories=CATS, ties=ties)
        assert close_rows(got.sort("query_id").rows(), want.rows())
    with pytest.raises(rw.MissingColumnError, match=r"the item categories \(categories=\) has no category column 'category'"):
        rw.spark.evaluate(to_spark(spark, QRELS), to_spark(spark, RUN), metrics, categories=to_spark(spark, frame),
                          categories_columns={"doc_id": "item"})


# -- every path ------------------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_segments_and_query_chunks(engine: str) -> None:
    """by=: each segment's value is the one of that segment's run alone; query_chunks: the same values."""
    run = pl.concat([
        RUN.with_columns(pl.lit("s").alias("segment")),
        RUN.with_columns(pl.lit("t").alias("segment"), (-pl.col("score")).alias("score")),
    ])
    metrics = ["CategoryDiversity@2", "CategoryEntropy@2", f"{GEOMETRIC}@3"]
    got = rw.evaluate(QRELS, run, metrics, categories=CATS, by="segment", engine=engine)
    for segment in ("s", "t"):
        alone = rw.evaluate(QRELS, run.filter(pl.col("segment") == segment).drop("segment"), metrics,
                            categories=CATS, engine=engine)
        assert close_rows(got.filter(pl.col("segment") == segment).drop("segment").rows(), alone.rows()), segment
    want = rw.evaluate(QRELS, RUN, metrics, categories=CATS)
    assert close_rows(rw.evaluate(QRELS, RUN, metrics, categories=CATS, query_chunks=3).rows(), want.rows())


def test_compare_explain_and_the_namespaces_read_the_categories() -> None:
    other = RUN.with_columns(pl.Series("score", [1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 1.0]))
    compared = rw.compare(QRELS, {"a": RUN, "b": other}, ["CategoryDiversity@2"], categories=CATS)
    means = rw.summarize(rw.evaluate(QRELS, other, ["CategoryDiversity@2"], categories=CATS))
    assert compared.filter(pl.col("metric") == "CategoryDiversity@2")["mean"].item() == pytest.approx(
        means["CategoryDiversity@2"].item()
    )
    # u1's list a (x, y), b (x), c (z): over k = 3 at each depth 2/3, 2/3, 3/3
    table = rw.explain(QRELS, RUN, "CategoryDiversity@3", "u1", categories=CATS)
    assert table["doc_id"].to_list() == ["a", "b", "c"]
    assert table["value"].to_list() == pytest.approx([2 / 3, 2 / 3, 1.0])
    want = rw.evaluate(QRELS, RUN, ["CategoryEntropy@3"], categories=CATS)
    assert RUN.ir.evaluate(QRELS, ["CategoryEntropy@3"], categories=CATS).equals(want)
    assert RUN.lazy().ir.evaluate(QRELS, ["CategoryEntropy@3"], categories=CATS).collect().equals(want)


def test_command_line(tmp_path: Path) -> None:
    QRELS.write_parquet(tmp_path / "qrels.parquet")
    RUN.write_parquet(tmp_path / "run.parquet")
    pairs = [(d, c) for d, cats in CATS.items() for c in ([cats] if isinstance(cats, str) else cats)]
    pl.DataFrame(pairs, schema=["item", "genre"], orient="row").write_csv(tmp_path / "cats.csv")

    def cli(*args: str) -> Any:
        return rankwise_cli("eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), *args)

    done = cli("-m", "CategoryDiversity@2", "-m", "CategoryEntropy@3", "--categories", str(tmp_path / "cats.csv"),
               "--categories-doc-id-col", "item", "--categories-category-col", "genre", "--format", "csv")
    assert done.returncode == 0, done.stderr
    got = pl.read_csv(done.stdout.encode())
    want = rw.summarize(rw.evaluate(QRELS, RUN, ["CategoryDiversity@2", "CategoryEntropy@3"], categories=CATS))
    for name in ("CategoryDiversity@2", "CategoryEntropy@3"):
        assert got[name].item() == pytest.approx(want[name].item())
    missing = cli("-m", "CategoryDiversity@2")
    assert missing.returncode == 2
    assert missing.stderr.strip() == (
        "rankwise: error: CategoryDiversity@2 reads the item categories, the categories of each item: pass "
        "--categories FILE"
    )
    unnamed = cli("-m", "CategoryDiversity@2", "--categories", str(tmp_path / "cats.csv"))
    assert unnamed.returncode == 2
    assert unnamed.stderr.count("\n") == 1
    assert unnamed.stderr.startswith("rankwise: error: the item categories (categories=) has no item column 'doc_id'")
    page = rankwise_cli("metrics", "CategoryEntropy")
    assert "reads:       the item categories: --categories FILE (categories= in Python)" in page.stdout


def test_the_report_draws_them_against_accuracy(tmp_path: Path) -> None:
    """A beyond-accuracy family: the report's trade-off figure draws it against the first accuracy metric."""
    from rankwise.reporting.plots import tradeoff_pairs

    assert tradeoff_pairs(["AP", "CategoryDiversity@2"]) == [("AP", "CategoryDiversity@2")]
    other = RUN.with_columns(pl.Series("score", [1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 1.0]))
    fig = rw.plots.tradeoff(QRELS, {"a": RUN, "b": other}, "AP", "CategoryEntropy@3", categories=CATS,
                            path=tmp_path / "tradeoff.svg")
    assert fig.axes[0].get_xlabel() == "mean CategoryEntropy@3 (higher is better)"


# -- Miscalibration (Steck 2018): no library has it, hand values from the paper's formula -------------
def steck(history: list[str], listed: list[str], categories: dict[str, list[str]], alpha: float = 0.01) -> float | None:
    """Steck, Calibrated recommendations, RecSys 2018, eq. (1)-(4): p(g|i) = 1/|genres(i)|, p(g|u) and
    q(g|u) the uniform means over the history's and the list's items (those with a genre; each
    history item once), C_KL = Σ_g p ln(p / ((1 − α) q + α p)); None without a categorised history."""

    def distribution(items: list[str]) -> dict[str, float]:
        kept = [i for i in dict.fromkeys(items) if categories.get(i)]
        out: dict[str, float] = {}
        for i in kept:
            for g in categories[i]:
                out[g] = out.get(g, 0.0) + 1 / len(categories[i]) / len(kept)
        return out

    p, q = distribution(history), distribution(listed)
    if not p:
        return None
    return sum(pg * math.log(pg / ((1 - alpha) * q.get(g, 0.0) + alpha * pg)) for g, pg in p.items())


STECK_CATS = {"A": ["x"], "B": ["x", "y"], "C": ["y"], "D": ["z"], "E": []}
"""FINDINGS section 8's worked case: A x, B x and y, C y, D z; E no genre."""
STECK_RUN = pl.DataFrame({
    "query_id": ["u", "u", "u", "v", "w", "w", "s"],
    "doc_id": ["A", "B", "D", "A", "E", "A", "A"],
    "score": [3.0, 2.0, 1.0, 1.0, 2.0, 1.0, 1.0],
})
STECK_QRELS = pl.DataFrame({"query_id": ["u", "v", "w", "s", "t"], "doc_id": ["A"] * 5, "relevance": [1] * 5})
STECK_TRAIN = pl.DataFrame({
    "query_id": ["u", "u", "u", "u", "w", "w", "s", "t"],
    "doc_id": ["A", "C", "C", "E", "C", "D", "E", "A"],
})
"""u's history A, C (C twice: once; E has no genre: left out); v none; w C, D; s only E (no genre); t no list."""


@pytest.mark.parametrize("engine", ["polars", "polars-lazy", "duckdb", "to_sql"])
def test_miscalibration_hand_values(engine: str) -> None:
    """u: history A, C: p = (x ½, y ½); list A, B, D: q = (x ½, y ⅙, z ⅓): C_KL = ½ ln(½ / (0.99 ⅙ +
    0.005)) = 0.5394 (FINDINGS section 8, Steck's formula); at k = 1, q = (x 1): ½ ln(½ / 0.995) +
    ½ ln(½ / 0.005) = 1.9585. v: no history: NULL. w: history C, D: p = (y ½, z ½); list E (no genre),
    A: at k = 1 no categorised item, q = 0: ln(1/α) = ln 100; at k = 2, q = (x 1): ln 100 too. s: its one
    training item has no genre: NULL. t: no list: NULL."""
    qrels, run, train = STECK_QRELS, STECK_RUN, STECK_TRAIN
    metrics = ["Miscalibration@3", "Miscalibration@1", "Miscalibration"]
    if engine == "to_sql":
        con = rw.register(duckdb.connect())
        pairs = [(d, c) for d, cats in STECK_CATS.items() for c in cats]
        for name, table in (("run", run), ("qrels", qrels), ("train", train),
                            ("cats", pl.DataFrame(pairs, schema=["doc_id", "category"], orient="row"))):
            con.register(name, table)
        got = con.sql(rw.to_sql(metrics, categories="cats", train="train", missing="zero")).pl()
    else:
        got = run_on(engine, qrels, run, metrics, categories=STECK_CATS, train=train, missing="zero")
    half = 0.5 * math.log(0.5 / (0.99 / 6 + 0.005))
    assert half == pytest.approx(0.5394, abs=1e-4)
    at_one = 0.5 * math.log(0.5 / 0.995) + 0.5 * math.log(0.5 / 0.005)
    want = [("s", None, None, None), ("t", None, None, None), ("u", half, at_one, half), ("v", None, None, None),
            ("w", math.log(100), math.log(100), math.log(100))]
    assert close_rows(got.sort("query_id").rows(), want)
    histories = {"u": ["A", "C", "C", "E"], "w": ["C", "D"]}
    lists = {"u": ["A", "B", "D"], "w": ["E", "A"]}
    for user, value in (("u", half), ("w", math.log(100))):
        assert steck(histories[user], lists[user], STECK_CATS) == pytest.approx(value, abs=1e-12)


@settings(max_examples=examples(40), deadline=None)
@given(
    lists=st.lists(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=8, unique=True), min_size=1, max_size=4),
    histories=st.lists(st.lists(st.sampled_from(ITEMS), max_size=6), min_size=4, max_size=4),
    categories=st.dictionaries(st.sampled_from(ITEMS), st.lists(st.sampled_from(NAMES), max_size=3, unique=True),
                               min_size=1),
    k=st.one_of(st.none(), st.integers(1, 9)),
    engine=st.sampled_from(["polars", "duckdb"]),
)
def test_miscalibration_against_the_formula(lists: list[list[str]], histories: list[list[str]],
                                            categories: dict[str, list[str]], k: int | None, engine: str) -> None:
    if not any(categories.values()):
        categories["h"] = ["g1"]
    users = [f"u{n}" for n in range(len(lists))]
    rows = [(u, item, float(len(items) - r)) for u, items in zip(users, lists, strict=True) for r, item in enumerate(items)]
    run = pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row")
    qrels = pl.DataFrame({"query_id": users, "doc_id": ["a"] * len(users), "relevance": [1] * len(users)})
    train = [(u, i) for u, items in zip(["u0", "u1", "u2", "x"], histories, strict=True) for i in items] or [("x", "a")]
    metric = "Miscalibration" if k is None else f"Miscalibration@{k}"
    got = rw.evaluate(qrels, run, [metric], categories=categories, train=train, engine=engine)  # type: ignore[arg-type]
    history = {u: [i for v, i in train if v == u] for u in users}
    want = [(u, steck(history[u], items if k is None else items[:k], categories)) for u, items in zip(users, lists, strict=True)]
    assert close_rows(got.sort("query_id").rows(), sorted(want))


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_miscalibration_on_every_path(engine: str, tmp_path: Path) -> None:
    """by= segments (each segment's lists against the user's history), query_chunks, explain, compare."""
    metrics = ["Miscalibration@2", "Miscalibration@3"]
    kw: dict[str, Any] = {"categories": STECK_CATS, "train": STECK_TRAIN}
    want = rw.evaluate(STECK_QRELS, STECK_RUN, metrics, engine=engine, **kw)
    run = pl.concat([
        STECK_RUN.with_columns(pl.lit("s1").alias("segment")),
        STECK_RUN.with_columns(pl.lit("s2").alias("segment"), (-pl.col("score")).alias("score")),
    ])
    got = rw.evaluate(STECK_QRELS, run, metrics, by="segment", engine=engine, **kw)
    for segment in ("s1", "s2"):
        alone = rw.evaluate(STECK_QRELS, run.filter(pl.col("segment") == segment).drop("segment"), metrics,
                            engine=engine, **kw)
        assert close_rows(got.filter(pl.col("segment") == segment).drop("segment").rows(), alone.rows()), segment
    assert close_rows(rw.evaluate(STECK_QRELS, STECK_RUN, metrics, query_chunks=2, **kw).rows(), want.rows())
    table = rw.explain(STECK_QRELS, STECK_RUN, "Miscalibration@3", "u", **kw)
    assert table["value"].to_list() == pytest.approx([
        steck(["A", "C"], ["A"], STECK_CATS), steck(["A", "C"], ["A", "B"], STECK_CATS), steck(["A", "C"], ["A", "B", "D"], STECK_CATS),
    ])
    compared = rw.compare(STECK_QRELS, {"a": STECK_RUN, "b": STECK_RUN}, ["Miscalibration@3"], **kw)
    assert compared.filter(pl.col("metric") == "Miscalibration@3")["mean"].to_list()[0] == pytest.approx(
        rw.summarize(want)["Miscalibration@3"].item()
    )
    with pytest.raises(rw.InvalidParameterError, match=r"Miscalibration@2 reads the training interactions"):
        rw.evaluate(STECK_QRELS, STECK_RUN, ["Miscalibration@2"], categories=STECK_CATS, engine=engine)
    with pytest.raises(rw.InvalidParameterError, match=r"Miscalibration@2 reads the item categories"):
        rw.evaluate(STECK_QRELS, STECK_RUN, ["Miscalibration@2"], train=STECK_TRAIN, engine=engine)


def test_miscalibration_to_sql_needs_both_tables_and_the_command_line(tmp_path: Path) -> None:
    with pytest.raises(rw.InvalidParameterError, match=r"Miscalibration@2 reads the training interactions: pass train="):
        rw.to_sql(["Miscalibration@2"], categories="cats")
    assert "ln(" in rw.to_sql(["Miscalibration@2"], categories="cats", train="t", dialect="spark")
    STECK_QRELS.write_parquet(tmp_path / "qrels.parquet")
    STECK_RUN.write_parquet(tmp_path / "run.parquet")
    STECK_TRAIN.write_parquet(tmp_path / "train.parquet")
    pl.DataFrame([(d, c) for d, cats in STECK_CATS.items() for c in cats], schema=["doc_id", "category"],
                 orient="row").write_csv(tmp_path / "cats.csv")
    done = rankwise_cli("eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), "-m", "Miscalibration@3",
                        "--categories", str(tmp_path / "cats.csv"), "--train", str(tmp_path / "train.parquet"),
                        "--format", "csv")
    assert done.returncode == 0, done.stderr
    want = rw.summarize(rw.evaluate(STECK_QRELS, STECK_RUN, ["Miscalibration@3"], categories=STECK_CATS, train=STECK_TRAIN))
    assert pl.read_csv(done.stdout.encode())["Miscalibration@3"].item() == pytest.approx(want["Miscalibration@3"].item())
    page = rankwise_cli("metrics", "Miscalibration").stdout
    assert "the item categories: --categories FILE" in page and "the training interactions: --train FILE" in page


def test_miscalibration_on_spark(spark: Any) -> None:
    from tests.engines.test_spark import from_spark, to_spark

    pairs = pl.DataFrame([(d, c) for d, cats in STECK_CATS.items() for c in cats], schema=["doc_id", "category"], orient="row")
    metrics = ["Miscalibration@1", "Miscalibration@3"]
    got = from_spark(rw.spark.evaluate(to_spark(spark, STECK_QRELS), to_spark(spark, STECK_RUN), metrics,
                                       categories=to_spark(spark, pairs), train=to_spark(spark, STECK_TRAIN)))
    want = rw.evaluate(STECK_QRELS, STECK_RUN, metrics, categories=STECK_CATS, train=STECK_TRAIN)
    assert close_rows(got.sort("query_id").rows(), want.rows())


# -- the parameters: the rank weights' patience, the miscalibration's α ----------------------------------
PATIENCE_ENGINES = ("polars", "polars-lazy", "duckdb", "to_sql")


@pytest.mark.parametrize("engine", PATIENCE_ENGINES)
@pytest.mark.parametrize("case", GOLDENS["cases"], ids=lambda c: c["name"])
def test_library_values_with_other_patiences(case: dict[str, Any], engine: str) -> None:
    """LensKit's rank_biased_entropy with GeometricRankWeight(0.3) and (0.95), frozen, beside its
    default 0.85, all in one evaluation (each patience its own weighted counts)."""
    qrels, run, categories = _golden_frames(case)
    k = case["k"]
    metrics = [f"{GEOMETRIC}@{k}", *(f"CategoryEntropy(rank_weight='geometric', patience={p})@{k}" for p in case["lenskit_patience"])]
    got = evaluate_on(engine, qrels, run, categories, metrics, missing="zero")
    assert _values(got, metrics[0]) == pytest.approx(case["lenskit_geometric"], abs=1e-12)
    for patience, want in case["lenskit_patience"].items():
        assert _values(got, f"CategoryEntropy(rank_weight='geometric', patience={patience})@{k}") == pytest.approx(
            want, abs=1e-12
        ), patience
    assert set(case["lenskit_patience"]) == {"0.3", "0.95"}


@pytest.mark.parametrize("engine", PATIENCE_ENGINES)
def test_hand_values_of_the_patience(engine: str) -> None:
    """At k = 3 (categories w, x, y, z): patience 0.5 weighs u1's a (x, y) 1, b (x) 0.5, c (z) 0.25:
    x 1.5, y 1, z 0.25; u2's a 1, e (w) 0.5. The smallest patience (5e-324) weighs the first item
    alone (0.5^... rounds to 0 from rank 3, 5e-324 at rank 2): u1's x, y; the largest below 1 weighs
    each item about 1 (the unweighted entropy). Without rank_weight='geometric' the patience weighs
    nothing (the plain entropy)."""
    tiny, near_one = 5e-324, math.nextafter(1.0, 0.0)
    metrics = [
        "CategoryEntropy(rank_weight='geometric', patience=0.5)@3", f"CategoryEntropy(rank_weight='geometric', patience={tiny!r})@3",
        f"CategoryEntropy(rank_weight='geometric', patience={near_one!r})@3", "CategoryEntropy(patience=0.5)@3",
    ]
    got = evaluate_on(engine, QRELS, RUN, CATS, metrics, missing="zero")
    want = [
        ("u1", lenskit_entropy([0, 1.5, 1, 0.25]), lenskit_entropy([0, 1, 1, tiny]), lenskit_entropy([0, 2, 1, 1]),
         lenskit_entropy([0, 2, 1, 1])),
        ("u2", lenskit_entropy([0.5, 1, 1, 0]), lenskit_entropy([tiny, 1, 1, 0]), lenskit_entropy([1, 1, 1, 0]),
         lenskit_entropy([1, 1, 1, 0])),
        ("u3", 2.0, 2.0, 2.0, 2.0),
        ("u4", None, None, None, None),
    ]
    assert close_rows(got.rows(), want)
    assert counts_of(["a", "b", "c"], {k: [v] if isinstance(v, str) else v for k, v in CATS.items()}, ["w", "x", "y", "z"],
                     3, 0.5) == [0, 1.5, 1, 0.25]


@pytest.mark.parametrize(("metric", "match"), [
    ("CategoryEntropy(rank_weight='geometric', patience=0)@3", r"'patience' must be > 0\.0"),
    ("CategoryEntropy(rank_weight='geometric', patience=1)@3", r"'patience' must be < 1\.0"),
    ("Miscalibration(alpha=0)@3", r"'alpha' must be > 0\.0"),
    ("Miscalibration(alpha=1)@3", r"'alpha' must be < 1\.0"),
    ("Miscalibration(alpha=-0.5)", r"'alpha' must be > 0\.0"),
])
def test_the_parameters_bounds(metric: str, match: str) -> None:
    """α = 0 is the plain KL divergence, infinite where the list lacks a category of the history:
    refused (Steck's reason for α), as α = 1 (q̃ = p: every list 0); LensKit's GeometricRankWeight
    takes 0 < patience < 1."""
    with pytest.raises(rw.InvalidParameterError, match=match):
        rw.evaluate(STECK_QRELS, STECK_RUN, [metric], categories=STECK_CATS, train=STECK_TRAIN)


@pytest.mark.parametrize("engine", ["polars", "polars-lazy", "duckdb", "to_sql"])
def test_miscalibration_hand_values_of_alpha(engine: str) -> None:
    """u (history A, C: p = (x ½, y ½); list A, B, D: q = (x ½, y ⅙, z ⅓)): α = 0.1, ½ ln(½ / (0.9 ⅙ +
    0.05)); w (history C, D; no category in common with its list E, A: q(y) = q(z) = 0): ln(1/α) = ln 10.
    The smallest α, 5e-324: u ½ ln(½ / ⅙) + ½ ln(½ / ½) = ½ ln 3, w −ln(5e-324) = 744.44 (finite: the
    term of a category q lacks is −p ln α, not p ln(p / (α p)), α p rounding to 0). The largest α below
    1: q̃ = p to the last digit, about 0 (u's y: ½ ln(½ / (2⁻⁵³ ⅙ + (1 − 2⁻⁵³) ½)))."""
    tiny, near_one = 5e-324, math.nextafter(1.0, 0.0)
    metrics = ["Miscalibration(alpha=0.1)@3", f"Miscalibration(alpha={tiny!r})@3", f"Miscalibration(alpha={near_one!r})@3"]
    if engine == "to_sql":
        con = rw.register(duckdb.connect())
        pairs = [(d, c) for d, cats in STECK_CATS.items() for c in cats]
        for name, table in (("run", STECK_RUN), ("qrels", STECK_QRELS), ("train", STECK_TRAIN),
                            ("cats", pl.DataFrame(pairs, schema=["doc_id", "category"], orient="row"))):
            con.register(name, table)
        got = con.sql(rw.to_sql(metrics, categories="cats", train="train", missing="zero")).pl()
    else:
        got = run_on(engine, STECK_QRELS, STECK_RUN, metrics, categories=STECK_CATS, train=STECK_TRAIN, missing="zero")
    u = 0.5 * math.log(0.5 / (0.9 / 6 + 0.05))
    assert u == pytest.approx(steck(["A", "C"], ["A", "B", "D"], STECK_CATS, 0.1), abs=1e-15)
    rows = {r[0]: r[1:] for r in got.rows()}
    assert rows["u"][0] == pytest.approx(u, abs=1e-12) and rows["w"][0] == pytest.approx(math.log(10), abs=1e-12)
    assert rows["u"][1] == pytest.approx(0.5 * math.log(3), abs=1e-12)
    assert rows["w"][1] == pytest.approx(-math.log(tiny), abs=1e-9) and math.isfinite(rows["w"][1])
    assert rows["u"][2] == pytest.approx(0.0, abs=1e-15) and rows["w"][2] == pytest.approx(0.0, abs=1e-15)
    assert all(rows[user] == (None, None, None) for user in ("s", "t", "v"))


@settings(max_examples=examples(40), deadline=None)
@given(
    lists=st.lists(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=8, unique=True), min_size=1, max_size=4),
    histories=st.lists(st.lists(st.sampled_from(ITEMS), max_size=6), min_size=4, max_size=4),
    categories=st.dictionaries(st.sampled_from(ITEMS), st.lists(st.sampled_from(NAMES), max_size=3, unique=True),
                               min_size=1),
    k=st.integers(1, 9),
    alpha=st.floats(1e-6, 0.999),
    patience=st.floats(1e-3, 0.999),
    engine=st.sampled_from(["polars", "duckdb"]),
)
def test_random_parameters_against_the_formulas(lists: list[list[str]], histories: list[list[str]],
                                                categories: dict[str, list[str]], k: int, alpha: float, patience: float,
                                                engine: str) -> None:
    """Steck's C_KL with α and LensKit's rank-biased entropy with the patience, written out here
    (:func:`steck`, :func:`lenskit_entropy` of :func:`counts_of`), beside the defaults."""
    if not any(categories.values()):
        categories["h"] = ["g1"]
    every = sorted({g for gs in categories.values() for g in gs})
    users = [f"u{n}" for n in range(len(lists))]
    rows = [(u, item, float(len(items) - r)) for u, items in zip(users, lists, strict=True) for r, item in enumerate(items)]
    run = pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row")
    qrels = pl.DataFrame({"query_id": users, "doc_id": ["a"] * len(users), "relevance": [1] * len(users)})
    train = [(u, i) for u, items in zip(["u0", "u1", "u2", "x"], histories, strict=True) for i in items] or [("x", "a")]
    metrics = [f"Miscalibration(alpha={alpha!r})@{k}", f"CategoryEntropy(rank_weight='geometric', patience={patience!r})@{k}",
               f"Miscalibration@{k}", f"{GEOMETRIC}@{k}"]
    got = rw.evaluate(qrels, run, metrics, categories=categories, train=train, engine=engine)  # type: ignore[arg-type]
    history = {u: [i for v, i in train if v == u] for u in users}
    want = [
        (u, steck(history[u], items[:k], categories, alpha), lenskit_entropy(counts_of(items, categories, every, k, patience)),
         steck(history[u], items[:k], categories), lenskit_entropy(counts_of(items, categories, every, k, 0.85)))
        for u, items in zip(users, lists, strict=True)
    ]
    assert close_rows(got.sort("query_id").rows(), sorted(want))


def test_the_sql_macros_take_the_parameters() -> None:
    """rw_category_weight(rnk, patience) and rw_calibration_term(p, q, alpha, base), by hand."""
    con = rw.register(duckdb.connect())
    weight, term, missing, bits = con.sql(
        "SELECT rw_category_weight(3, 0.5), rw_calibration_term(0.5, 1.0 / 6, 0.1, exp(1)), "
        "rw_calibration_term(0.5, 0.0, 5e-324, exp(1)), rw_calibration_term(0.5, 0.25, 0.01, 2)"
    ).fetchall()[0]
    assert weight == 0.25
    assert term == pytest.approx(0.5 * math.log(0.5 / (0.9 / 6 + 0.05)), abs=1e-15)
    assert missing == pytest.approx(-0.5 * math.log(5e-324), abs=1e-12)
    assert bits == pytest.approx(0.5 * math.log2(0.5 / (0.99 * 0.25 + 0.005)), abs=1e-15)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_the_parameters_on_every_path(engine: str, tmp_path: Path) -> None:
    """by= segments, query_chunks, explain, compare, the .ir namespace and to_sql's Spark dialect
    with α and the patience; the command line reads them in its metric strings and the metric
    pages name them."""
    metrics = ["Miscalibration(alpha=0.1)@3", "CategoryEntropy(rank_weight='geometric', patience=0.5)@3"]
    kw: dict[str, Any] = {"categories": STECK_CATS, "train": STECK_TRAIN}
    want = rw.evaluate(STECK_QRELS, STECK_RUN, metrics, engine=engine, **kw)
    run = pl.concat([
        STECK_RUN.with_columns(pl.lit("s1").alias("segment")),
        STECK_RUN.with_columns(pl.lit("s2").alias("segment"), (-pl.col("score")).alias("score")),
    ])
    got = rw.evaluate(STECK_QRELS, run, metrics, by="segment", engine=engine, **kw)
    for segment in ("s1", "s2"):
        alone = rw.evaluate(STECK_QRELS, run.filter(pl.col("segment") == segment).drop("segment"), metrics,
                            engine=engine, **kw)
        assert close_rows(got.filter(pl.col("segment") == segment).drop("segment").rows(), alone.rows()), segment
    assert close_rows(rw.evaluate(STECK_QRELS, STECK_RUN, metrics, query_chunks=2, **kw).rows(), want.rows())
    assert STECK_RUN.ir.evaluate(STECK_QRELS, metrics, **kw).equals(rw.evaluate(STECK_QRELS, STECK_RUN, metrics, **kw))
    table = rw.explain(STECK_QRELS, STECK_RUN, metrics[0], "u", **kw)
    assert table["value"].to_list() == pytest.approx([
        steck(["A", "C"], ["A"], STECK_CATS, 0.1), steck(["A", "C"], ["A", "B"], STECK_CATS, 0.1),
        steck(["A", "C"], ["A", "B", "D"], STECK_CATS, 0.1),
    ])
    compared = rw.compare(STECK_QRELS, {"a": STECK_RUN, "b": STECK_RUN}, metrics, **kw)
    assert compared.filter(pl.col("metric") == metrics[0])["mean"].to_list()[0] == pytest.approx(
        rw.summarize(want)[metrics[0]].item()
    )
    spark_sql = rw.to_sql(metrics, categories="cats", train="t", dialect="spark")
    assert "catcountg_3fe0000000000000" in spark_sql and "CAST(0.1 AS DOUBLE)" in spark_sql
    STECK_QRELS.write_parquet(tmp_path / "qrels.parquet")
    STECK_RUN.write_parquet(tmp_path / "run.parquet")
    STECK_TRAIN.write_parquet(tmp_path / "train.parquet")
    pl.DataFrame([(d, c) for d, cats in STECK_CATS.items() for c in cats], schema=["doc_id", "category"],
                 orient="row").write_csv(tmp_path / "cats.csv")
    args = [a for m in metrics for a in ("-m", m)]
    done = rankwise_cli("eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), *args,
                        "--categories", str(tmp_path / "cats.csv"), "--train", str(tmp_path / "train.parquet"),
                        "--format", "csv")
    assert done.returncode == 0, done.stderr
    means = rw.summarize(rw.evaluate(STECK_QRELS, STECK_RUN, metrics, **kw))
    for m in metrics:
        assert pl.read_csv(done.stdout.encode())[m].item() == pytest.approx(means[m].item())
    bad = rankwise_cli("eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), "-m", "Miscalibration(alpha=0)@3",
                       "--categories", str(tmp_path / "cats.csv"), "--train", str(tmp_path / "train.parquet"))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "'alpha' must be > 0.0" in bad.stderr
    page = rankwise_cli("metrics", "Miscalibration").stdout
    assert "alpha" in page and "0.01" in page
    page = rankwise_cli("metrics", "CategoryEntropy").stdout
    assert "patience" in page and "0.85" in page


def test_the_parameters_on_spark(spark: Any) -> None:
    from tests.engines.test_spark import from_spark, to_spark

    pairs = pl.DataFrame([(d, c) for d, cats in STECK_CATS.items() for c in cats], schema=["doc_id", "category"], orient="row")
    metrics = ["Miscalibration(alpha=0.1)@3", f"Miscalibration(alpha={5e-324!r})@2", "Miscalibration@3",
               "CategoryEntropy(rank_weight='geometric', patience=0.5)@3", f"{GEOMETRIC}@3"]
    got = from_spark(rw.spark.evaluate(to_spark(spark, STECK_QRELS), to_spark(spark, STECK_RUN), metrics,
                                       categories=to_spark(spark, pairs), train=to_spark(spark, STECK_TRAIN)))
    want = rw.evaluate(STECK_QRELS, STECK_RUN, metrics, categories=STECK_CATS, train=STECK_TRAIN)
    assert close_rows(got.sort("query_id").rows(), want.rows())


# -- Miscalibration(definition='librec'): LibRec's CalibrationEvaluator, from its source ----------------
LIBREC = "Miscalibration(definition='librec')"


def librec_calibration(listed: list[str], test: list[str], categories: dict[str, list[str]], k: int | None,
                       alpha: float = 0.01) -> float:
    """LibRec's ``CalibrationEvaluator`` (that-recsys-lab/librec @ a4bb9ec,
    core/src/main/java/net/librec/eval/ranking/CalibrationEvaluator.java), transcribed line by line
    (LibRec is Java: not run here) for one user with test items:

    - lines 152-156: the top min(topN, list size) recommended items, as a set;
    - lines 99-124, ``ComputeGenreDistribution``: for each feature (category) column of the item
      feature matrix, the items of the set having it (``get(item, feature) == 1``), over
      ``itemList.size()`` (every item, with or without a feature);
    - lines 158-163: p = that of the recommended set, q = that of the user's test set;
    - lines 62-91, ``KullbackLeiblerDivergence(p, q)``: for each feature with p ≠ 0,
      q̃ = (1 − α) q + α p, α = 0.01 (line 64), klDiv += p · Maths.log(p / q̃, 2), Maths.log(n, b) =
      Math.log(n) / Math.log(b) (core/src/main/java/net/librec/math/algorithm/Maths.java:100-102)."""
    features = sorted({g for gs in categories.values() for g in gs})

    def genre_distribution(items: set[str]) -> list[float]:
        return [sum(1.0 for i in items if g in categories.get(i, [])) / len(items) for g in features]

    top = set(listed if k is None else listed[:k])
    p, q = genre_distribution(top), genre_distribution(set(test))
    kl = 0.0
    for pg, qg in zip(p, q, strict=True):
        if pg == 0.0:
            continue
        kl += pg * (math.log(pg / ((1 - alpha) * qg + alpha * pg)) / math.log(2))
    return kl


LIBREC_RUN = pl.DataFrame({
    "query_id": ["u", "u", "u", "v", "v", "w", "x", "y", "y"],
    "doc_id": ["A", "B", "D", "E", "A", "A", "B", "C", "B"],
    "score": [3.0, 2.0, 1.0, 2.0, 1.0, 1.0, 1.0, 2.0, 1.0],
})
LIBREC_QRELS = pl.DataFrame({
    "query_id": ["u", "u", "u", "v", "w", "x", "y", "z"],
    "doc_id": ["A", "C", "B", "C", "A", "E", "B", "A"],
    "relevance": [1, 2, 0, 1, 0, 1, 1, 1],
})
"""u: list A, B, D, test A, C (B judged 0: not in the test set): FINDINGS section 8's case. v: list E (no
category), A; test C. w: its one judgment is 0: no test set (NULL). x: test E only (no category: q = 0).
y: list C, B, test B. z: no list (NULL)."""


@pytest.mark.parametrize("engine", ["polars", "polars-lazy", "duckdb", "to_sql"])
def test_librec_hand_values(engine: str) -> None:
    """u: p = (x ⅔, y ⅓, z ⅓) over the three listed items (B counts in x and y: the shares sum to 4/3), q =
    (x ½, y ½) over the test set A, C: Σ p log2(p / (0.99 q + 0.01 p)) = 2.2947 (FINDINGS section 8); at k =
    1, p = (x 1): log2(1 / (0.495 + 0.01)). v: at k = 1 its list E has no category: p = 0, 0; at k = 2, p =
    (x ½) over E and A, q = (y 1): x's term ½ log2(1 / 0.01). x: its test item E has no category: q = 0,
    every term p log2(1/α): B's x and y, 2 log2 100. y: p = (x ½, y 1) over C, B; q = (x 1, y 1); at k = 1
    p = (y 1): log2(1 / 1) = 0."""
    metrics = [f"{LIBREC}@3", f"{LIBREC}@1", "Miscalibration(definition='librec', alpha=0.5)@3"]
    if engine == "to_sql":
        con = rw.register(duckdb.connect())
        pairs = [(d, c) for d, cats in STECK_CATS.items() for c in cats]
        for name, table in (("run", LIBREC_RUN), ("qrels", LIBREC_QRELS),
                            ("cats", pl.DataFrame(pairs, schema=["doc_id", "category"], orient="row"))):
            con.register(name, table)
        got = con.sql(rw.to_sql(metrics, categories="cats", missing="zero")).pl()  # no training interactions
    else:
        got = run_on(engine, LIBREC_QRELS, LIBREC_RUN, metrics, categories=STECK_CATS, missing="zero")
    u = (2 / 3 * math.log2((2 / 3) / (0.99 / 2 + 0.01 * 2 / 3)) + 1 / 3 * math.log2((1 / 3) / (0.99 / 2 + 0.01 / 3))
         + 1 / 3 * math.log2(100))
    assert u == pytest.approx(2.2947, abs=1e-4)
    u1 = math.log2(1 / (0.495 + 0.01))
    u_half = 2 / 3 * math.log2((2 / 3) / (0.25 + 1 / 3)) + 1 / 3 * math.log2((1 / 3) / (0.25 + 1 / 6)) + 1 / 3
    v = 0.5 * math.log2(100)
    v_half = 0.5 * math.log2(1 / 0.5)
    y = 0.5 * math.log2(0.5 / (0.99 + 0.005)) + math.log2(1 / 1.0)
    y_half = 0.5 * math.log2(0.5 / 0.75)
    want = [("u", u, u1, u_half), ("v", v, 0.0, v_half), ("w", None, None, None), ("x", 2 * math.log2(100),
            2 * math.log2(100), 2.0), ("y", y, 0.0, y_half),
            ("z", None, None, None)]
    assert close_rows(got.sort("query_id").rows(), want)
    tests = {"u": ["A", "C"], "v": ["C"], "x": ["E"], "y": ["B"]}
    lists = {"u": ["A", "B", "D"], "v": ["E", "A"], "x": ["B"], "y": ["C", "B"]}
    for user, value, at_one, half in [w for w in want if w[1] is not None]:
        assert librec_calibration(lists[user], tests[user], STECK_CATS, 3) == pytest.approx(value, abs=1e-12)
        assert librec_calibration(lists[user], tests[user], STECK_CATS, 1) == pytest.approx(at_one, abs=1e-12)
        assert librec_calibration(lists[user], tests[user], STECK_CATS, 3, 0.5) == pytest.approx(half, abs=1e-12)


def test_librec_mean_is_its_evaluate() -> None:
    """LibRec's evaluate() (lines 137-170): the mean over the users with test items of their
    divergence; rankwise's mean over the users scored (those with a relevant judgment and a list)."""
    got = rw.summarize(rw.evaluate(LIBREC_QRELS, LIBREC_RUN, [f"{LIBREC}@3"], categories=STECK_CATS))
    tests = {"u": ["A", "C"], "v": ["C"], "x": ["E"], "y": ["B"]}
    lists = {"u": ["A", "B", "D"], "v": ["E", "A"], "x": ["B"], "y": ["C", "B"]}
    values = [librec_calibration(lists[u], tests[u], STECK_CATS, 3) for u in tests]
    assert got[f"{LIBREC}@3"].item() == pytest.approx(sum(values) / len(values), abs=1e-12)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_librec_reads_the_conventions_rel(engine: str) -> None:
    """The test set is the relevant judgments: with rel=2, u's is C alone (q = (y 1)), y's none (NULL)."""
    got = rw.evaluate(LIBREC_QRELS, LIBREC_RUN, [f"{LIBREC}@3"], categories=STECK_CATS, rel=2, engine=engine)
    rows = dict(got.rows())
    assert rows["u"] == pytest.approx(librec_calibration(["A", "B", "D"], ["C"], STECK_CATS, 3), abs=1e-12)
    assert rows["y"] is None and rows["v"] is None


@settings(max_examples=examples(40), deadline=None)
@given(
    lists=st.lists(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=8, unique=True), min_size=1, max_size=4),
    tests=st.lists(st.lists(st.sampled_from(ITEMS), max_size=5, unique=True), min_size=4, max_size=4),
    categories=st.dictionaries(st.sampled_from(ITEMS), st.lists(st.sampled_from(NAMES), max_size=3, unique=True),
                               min_size=1),
    k=st.one_of(st.none(), st.integers(1, 9)),
    alpha=st.sampled_from([0.01, 1e-300, 0.5, 0.999]),
    engine=st.sampled_from(["polars", "duckdb"]),
)
def test_librec_against_its_source(lists: list[list[str]], tests: list[list[str]], categories: dict[str, list[str]],
                                   k: int | None, alpha: float, engine: str) -> None:
    """Random lists, test sets (relevance 1; a judgment of 0 beside each, which is not in it) and
    categories against :func:`librec_calibration`; a user without a test item NULL."""
    if not any(categories.values()):
        categories["h"] = ["g1"]
    users = [f"u{n}" for n in range(len(lists))]
    rows = [(u, item, float(len(items) - r)) for u, items in zip(users, lists, strict=True) for r, item in enumerate(items)]
    run = pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row")
    judged = [(u, i, 1) for u, items in zip(users, tests, strict=False) for i in items]
    judged += [(u, "zz", 0) for u in users]
    qrels = pl.DataFrame(judged, schema=["query_id", "doc_id", "relevance"], orient="row")
    metric = f"Miscalibration(definition='librec', alpha={alpha!r})" + ("" if k is None else f"@{k}")
    got = rw.evaluate(qrels, run, [metric], categories=categories, engine=engine)  # type: ignore[arg-type]
    test_of = dict(zip(users, tests, strict=False))
    want = [(u, librec_calibration(items, test_of[u], categories, k, alpha) if test_of.get(u) else None)
            for u, items in zip(users, lists, strict=True)]
    assert close_rows(got.sort("query_id").rows(), sorted(want))


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_librec_on_every_path(engine: str, tmp_path: Path) -> None:
    """by= segments, query_chunks, explain, compare, the .ir namespace; to_sql (DuckDB and Spark)
    needs no training table; the command line without --train; beside Steck's in one evaluation."""
    metrics = [f"{LIBREC}@2", f"{LIBREC}@3", "Miscalibration@3"]
    kw: dict[str, Any] = {"categories": STECK_CATS, "train": STECK_TRAIN}
    want = rw.evaluate(LIBREC_QRELS, LIBREC_RUN, metrics, engine=engine, **kw)
    alone = rw.evaluate(LIBREC_QRELS, LIBREC_RUN, metrics[:2], engine=engine, categories=STECK_CATS)
    assert alone.equals(want.select(alone.columns))
    run = pl.concat([
        LIBREC_RUN.with_columns(pl.lit("s1").alias("segment")),
        LIBREC_RUN.with_columns(pl.lit("s2").alias("segment"), (-pl.col("score")).alias("score")),
    ])
    got = rw.evaluate(LIBREC_QRELS, run, metrics, by="segment", engine=engine, **kw)
    for segment in ("s1", "s2"):
        one = rw.evaluate(LIBREC_QRELS, run.filter(pl.col("segment") == segment).drop("segment"), metrics,
                          engine=engine, **kw)
        assert close_rows(got.filter(pl.col("segment") == segment).drop("segment").rows(), one.rows()), segment
    assert close_rows(rw.evaluate(LIBREC_QRELS, LIBREC_RUN, metrics, query_chunks=2, **kw).rows(), want.rows())
    assert LIBREC_RUN.ir.evaluate(LIBREC_QRELS, metrics, **kw).equals(rw.evaluate(LIBREC_QRELS, LIBREC_RUN, metrics, **kw))
    table = rw.explain(LIBREC_QRELS, LIBREC_RUN, f"{LIBREC}@3", "u", categories=STECK_CATS)
    assert table["value"].to_list() == pytest.approx(
        [librec_calibration(["A", "B", "D"], ["A", "C"], STECK_CATS, n) for n in (1, 2, 3)]
    )
    compared = rw.compare(LIBREC_QRELS, {"a": LIBREC_RUN, "b": LIBREC_RUN}, [f"{LIBREC}@3"], categories=STECK_CATS)
    assert compared["mean"].to_list()[0] == pytest.approx(rw.summarize(want)[f"{LIBREC}@3"].item())
    assert "log" in rw.to_sql([f"{LIBREC}@3"], categories="cats", dialect="spark")
    with pytest.raises(rw.InvalidParameterError, match=r"Miscalibration@3 reads the training interactions"):
        rw.to_sql(metrics, categories="cats")
    LIBREC_QRELS.write_parquet(tmp_path / "qrels.parquet")
    LIBREC_RUN.write_parquet(tmp_path / "run.parquet")
    pl.DataFrame([(d, c) for d, cats in STECK_CATS.items() for c in cats], schema=["doc_id", "category"],
                 orient="row").write_csv(tmp_path / "cats.csv")
    done = rankwise_cli("eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), "-m", f"{LIBREC}@3",
                        "--categories", str(tmp_path / "cats.csv"), "--format", "csv")
    assert done.returncode == 0, done.stderr
    assert pl.read_csv(done.stdout.encode())[f"{LIBREC}@3"].item() == pytest.approx(rw.summarize(want)[f"{LIBREC}@3"].item())
    bad = rankwise_cli("eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), "-m",
                       "Miscalibration(definition='lenskit')@3", "--categories", str(tmp_path / "cats.csv"))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "definition" in bad.stderr
    assert "librec" in rankwise_cli("metrics", "Miscalibration").stdout


def test_librec_on_spark(spark: Any) -> None:
    from tests.engines.test_spark import from_spark, to_spark

    pairs = pl.DataFrame([(d, c) for d, cats in STECK_CATS.items() for c in cats], schema=["doc_id", "category"], orient="row")
    metrics = [f"{LIBREC}@1", f"{LIBREC}@3", f"Miscalibration(definition='librec', alpha={1e-300!r})@3"]
    got = from_spark(rw.spark.evaluate(to_spark(spark, LIBREC_QRELS), to_spark(spark, LIBREC_RUN), metrics,
                                       categories=to_spark(spark, pairs)))
    want = rw.evaluate(LIBREC_QRELS, LIBREC_RUN, metrics, categories=STECK_CATS)
    assert close_rows(got.sort("query_id").rows(), want.rows())
