"""The feature-diversity family (beyond accuracy, from the item features ``features=``): ILD (cosine,
Hamming, Jaccard distances) and ILS against the libraries whose definitions they are.

- ``tests/data/beyond/ild_goldens.json``: each library's per-user values on five cases (hand-sized,
  random binary, random real-valued, a zero vector, integer ids), computed by
  ``tests/data/beyond/make_ild_goldens.py`` with rexmex 0.1.3 (``intra_list_similarity``: ILS),
  recommenders 1.2.1 (``user_diversity`` with item feature vectors: ILD cosine) and rectools 0.19.0
  (``IntraListDiversity`` with Hamming distances) in an environment with pandas < 3, which rexmex and
  recommenders need (rankwise's has pandas 3); the file's ``sources`` cite the lines of each library's code;
- rectools itself, live, on random data with integer item ids (under pandas 3 it fails on string ids);
- hand-computed values: Jaccard (no library has it) and the edges (one item, a list shorter than k,
  identical items, zero vectors).
"""

from __future__ import annotations

import json
import math
import random
from itertools import combinations
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

GOLDENS = json.loads((Path(__file__).parents[1] / "data" / "beyond" / "ild_goldens.json").read_text())

LIBRARY_METRICS = {
    "rexmex.intra_list_similarity": "ILS@{k}",
    "recommenders.user_diversity(item_feature_vector)": "ILD@{k}",
    "rectools.IntraListDiversity(Hamming)": "ILD(distance='hamming')@{k}",
}
"""Each library's metric (a key of the goldens' values) as a rankwise metric string."""

ENGINES = ("polars", "polars-lazy", "duckdb", "to_sql", "macro")


def _frames(case: dict[str, Any]) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """qrels (each user's first item, relevant: rankwise evaluates judged users), run, features (a
    list column ``features``)."""
    ids = pl.Int64 if case["ids"] == "int" else pl.String
    run = pl.DataFrame(case["run"], schema={"query_id": ids, "doc_id": ids, "score": pl.Float64}, orient="row")
    qrels = run.group_by("query_id", maintain_order=True).first().select("query_id", "doc_id", pl.lit(1).alias("relevance"))
    items = [int(i) if case["ids"] == "int" else i for i in case["features"]]
    features = pl.DataFrame(
        {"doc_id": items, "features": [[float(x) for x in v] for v in case["features"].values()]},
        schema={"doc_id": ids, "features": pl.List(pl.Float64)},
    )
    return qrels, run, features


def evaluate_on(engine: str, qrels: pl.DataFrame, run: pl.DataFrame, features: Any, metrics: list[str], **kw: Any) -> pl.DataFrame:
    """Evaluate through one engine's entry point; ``to_sql``: the statement run by DuckDB over
    registered tables; ``macro``: ``rw_feature_diversity`` (its columns renamed to the metrics', k from them)."""
    if engine not in ("to_sql", "macro"):
        return run_on(engine, qrels, run, metrics, features=features, **kw)
    con = rw.register(duckdb.connect())
    for name, frame in (("run", run), ("qrels", qrels), ("item_features", features)):
        con.register(name, frame)
    if engine == "to_sql":
        return con.sql(rw.to_sql(metrics, features="item_features", **kw)).pl()
    k = int(metrics[0].rsplit("@", 1)[1])
    got = con.sql(f"SELECT * FROM rw_feature_diversity('qrels', 'run', 'item_features', k := {k})").pl()
    return got.rename({c: c.replace("@k", f"@{k}") for c in got.columns})


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", GOLDENS["cases"], ids=lambda c: c["name"])
def test_each_library_value(case: dict[str, Any], engine: str) -> None:
    """Every user the library scores has the library's value; rankwise scores the users the
    library leaves out (recommenders: a list of one item) 0 (ILD)."""
    qrels, run, features = _frames(case)
    keys = [key for key in case["values"] if key in LIBRARY_METRICS]
    assert keys, case["name"]
    metrics = [LIBRARY_METRICS[key].format(k=case["k"]) for key in keys]
    got = evaluate_on(engine, qrels, run, features, metrics)
    ours = {str(row["query_id"]): row for row in got.iter_rows(named=True)}
    assert set(ours) == {str(u) for u, _, _ in case["run"]}
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
            else:
                # recommenders leaves out a user with one item: ILD scores it 0
                assert key.startswith("recommenders") and value == 0.0, (key, user, value)


def test_the_goldens_hold_the_disagreements() -> None:
    """What the goldens record of the libraries' edges, as rankwise documents them: rexmex's NaN
    (ILS NULL) and recommenders' absence for a list of one item, rectools' 0; recommenders fails
    on a zero vector, which sklearn's cosine (rexmex) scores 0."""
    hand = GOLDENS["cases"][0]
    assert hand["values"]["rexmex.intra_list_similarity"]["u3"] is None
    assert "u3" not in hand["values"]["recommenders.user_diversity(item_feature_vector)"]
    assert hand["values"]["rectools.IntraListDiversity(Hamming)"]["u3"] == 0.0
    zero = next(c for c in GOLDENS["cases"] if c["name"] == "zero_vector")
    assert zero["errors"]["recommenders.user_diversity(item_feature_vector)"].startswith("ZeroDivisionError")


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(20), deadline=None)
@given(seed=st.integers(0, 10**6), k=st.integers(1, 8), engine=st.sampled_from(["polars", "duckdb"]))
def test_rectools_live(seed: int, k: int, engine: str) -> None:
    """rectools' IntraListDiversity with its Hamming distances on random data (integer item ids:
    under pandas 3 it fails on string ones): binary and count features, lists shorter than k,
    lists of one item, repeated vectors."""
    pd = pytest.importorskip("pandas")
    metrics_mod = pytest.importorskip("rectools.metrics")
    distances = pytest.importorskip("rectools.metrics.distances")
    rng = random.Random(seed)
    items = list(range(100, 100 + rng.randint(2, 20)))
    size = rng.randint(1, 6)
    vectors = {i: [float(rng.choice([0, 1, 1, 2])) for _ in range(size)] for i in items}
    run: list[tuple[int, int, float]] = []
    for u in range(rng.randint(1, 8)):
        listed = rng.sample(items, rng.randint(1, min(9, len(items))))
        run += [(u, item, float(len(listed) - r)) for r, item in enumerate(listed)]
    reco = pd.DataFrame([(u, i, len([1 for v, _, s2 in run if v == u and s2 >= s])) for u, i, s in run],
                        columns=["user_id", "item_id", "rank"])
    calc = distances.PairwiseHammingDistanceCalculator(pd.DataFrame.from_dict(vectors, orient="index"))
    want = metrics_mod.IntraListDiversity(k, calc).calc_per_user(reco)
    run_frame = pl.DataFrame(run, schema=["query_id", "doc_id", "score"], orient="row")
    qrels = run_frame.group_by("query_id").first().select("query_id", "doc_id", pl.lit(1).alias("relevance"))
    got = rw.evaluate(qrels, run_frame, [f"ILD(distance='hamming')@{k}"], features=vectors, engine=engine)
    assert dict(got.rows()) == pytest.approx({int(u): float(v) for u, v in want.items()}, abs=1e-12)


# -- hand values ------------------------------------------------------------------------------------
RUN = pl.DataFrame({
    "query_id": ["u1", "u1", "u1", "u1", "u2", "u3", "u3", "u4", "u4"],
    "doc_id": ["a", "b", "c", "d", "a", "a", "e", "c", "z"],
    "score": [4.0, 3.0, 2.0, 1.0, 1.0, 2.0, 1.0, 2.0, 1.0],
})
QRELS = pl.DataFrame({"query_id": ["u1", "u2", "u3", "u4", "u5"], "doc_id": ["a", "a", "a", "c", "a"], "relevance": [1, 1, 1, 1, 1]})
FEATURES = {
    "a": [1.0, 0.0, 1.0, 0.0],  # A = {0, 2}
    "b": [1.0, 1.0, 0.0, 0.0],  # B = {0, 1}
    "c": [0.0, 0.0, 1.0, 1.0],  # C = {2, 3}
    "d": [0.0, 0.0, 0.0, 0.0],  # the zero vector: no nonzero feature
    "e": [1.0, 0.0, 1.0, 0.0],  # a's vector again
    "z": [0.0, 0.0, 0.0, 0.0],
}
"""u1 lists a, b, c, d; u2 a alone; u3 a and its twin e; u4 c and the zero vector z; u5 nothing
(missing='zero')."""


@pytest.mark.parametrize("engine", ["polars", "polars-lazy", "duckdb", "to_sql"])
def test_hand_values(engine: str) -> None:
    """At k = 3 u1's pairs are (a, b), (a, c), (b, c): cosines 1/2, 1/2, 0; Hamming 2, 2, 4; Jaccard
    1 − 1/3, 1 − 1/3, 1 − 0/4. At k = 10 (beyond every list) the zero vector d joins: cosine 0 (distance
    1) against each, Hamming 2, 2, 2, Jaccard 1 (a nonempty set against the empty one). u2's list of one
    item: ILD 0, ILS NULL; u3's identical vectors: ILD 0, ILS 1; u4 against a zero vector: cosine
    distance 1, Jaccard 1, Hamming 2; both zero vectors: Jaccard 0, cosine distance 1."""
    metrics = ["ILD@3", "ILD(distance='hamming')@3", "ILD(distance='jaccard')@3", "ILS@3",
               "ILD@10", "ILD(distance='hamming')@10", "ILD(distance='jaccard')@10", "ILS@10"]
    qrels = QRELS.filter(pl.col("query_id") != "u5") if engine in ("to_sql",) else QRELS
    got = evaluate_on(engine, qrels, RUN, _as_frame(FEATURES) if engine == "to_sql" else FEATURES, metrics, missing="zero")
    j = 2 / 3
    want = [
        ("u1", (0.5 + 0.5 + 1) / 3, 8 / 3, (j + j + 1) / 3, (0.5 + 0.5 + 0) / 3,
         (0.5 + 0.5 + 1 + 1 + 1 + 1) / 6, (2 + 2 + 4 + 2 + 2 + 2) / 6, (j + j + 1 + 1 + 1 + 1) / 6, (0.5 + 0.5) / 6),
        ("u2", 0.0, 0.0, 0.0, None, 0.0, 0.0, 0.0, None),
        ("u3", 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0),
        ("u4", 1.0, 2.0, 1.0, 0.0, 1.0, 2.0, 1.0, 0.0),
        ("u5", None, None, None, None, None, None, None, None),
    ]
    assert close_rows(got.rows(), want[: got.height])
    assert got.height == (4 if engine == "to_sql" else 5)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_two_zero_vectors(engine: str) -> None:
    """Two items without a nonzero feature: Jaccard distance 0 (two empty sets), cosine distance 1
    (sklearn's similarity 0), Hamming 0."""
    run = pl.DataFrame({"query_id": ["u", "u"], "doc_id": ["d", "z"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["u"], "doc_id": ["d"], "relevance": [1]})
    got = rw.evaluate(qrels, run, ["ILD@2", "ILD(distance='hamming')@2", "ILD(distance='jaccard')@2", "ILS@2"],
                      features=FEATURES, engine=engine)
    assert close_rows(got.rows(), [("u", 1.0, 0.0, 0.0, 0.0)])


@pytest.mark.parametrize("engine", ["polars", "polars-lazy", "duckdb", "to_sql", "macro"])
def test_counts_are_exact_for_tiny_values_and_signed_zeros(engine: str) -> None:
    """The pairs' counts are exact whatever the values' size: p = (5e-324, 0, −0, 1, 1e-200) against
    m = (0, −0, 0, 1, 1e-200). Hamming: only the first feature differs (5e-324 ≠ 0; 0 = −0): 1.
    Jaccard: nonzero in p {0, 3, 4}, in m {3, 4} (−0 is zero): 1 − 2/3, although 1e-200 · 1e-200
    underflows to 0. Cosine: dot 1, both squared norms 1 (the tiny squares underflow): distance 0,
    ILS 1."""
    features = {"p": [5e-324, 0.0, -0.0, 1.0, 1e-200], "m": [0.0, -0.0, 0.0, 1.0, 1e-200]}
    run = pl.DataFrame({"query_id": ["u", "u"], "doc_id": ["p", "m"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["u"], "doc_id": ["p"], "relevance": [1]})
    metrics = ["ILD@2", "ILD(distance='hamming')@2", "ILD(distance='jaccard')@2", "ILS@2"]
    given = _as_frame(features) if engine in ("to_sql", "macro") else features
    got = evaluate_on(engine, qrels, run, given, metrics)
    assert close_rows(got.select("query_id", *metrics).rows(), [("u", 0.0, 1.0, 1 - 2 / 3, 1.0)])


def test_to_sql_spark_spells_the_dot_product_with_zip_with() -> None:
    """DuckDB's list_dot_product of the pairs' vectors is Spark's aggregate(zip_with(...)) (the
    dialect's rule; Spark runs it in test_spark)."""
    sql = rw.to_sql(["ILD@3", "ILS@3"], features="item_features", dialect="spark")
    assert "aggregate(zip_with(" in sql
    assert "list_dot_product" not in sql


def test_ild_cosine_is_one_minus_ils() -> None:
    """Where the list has a pair, ILS is 1 − ILD(cosine): an own name, not an alias."""
    got = rw.evaluate(QRELS, RUN, ["ILD@4", "ILS@4"], features=FEATURES)
    for _, ild, ils in got.rows():
        if ils is not None:
            assert ils == pytest.approx(1 - ild, abs=1e-12)
    assert rw.parse_metric("IntraListSimilarity@3").spec.name == "ILS"


def test_a_cutoff_is_required() -> None:
    with pytest.raises(rw.InvalidParameterError, match=r"ILD needs a cutoff, e\.g\. ILD@10"):
        rw.evaluate(QRELS, RUN, ["ILD"], features=FEATURES)


# -- the forms of features=, their checks ---------------------------------------------------------------
def _as_frame(features: dict[str, list[float]]) -> pl.DataFrame:
    return pl.DataFrame({"doc_id": list(features), "features": list(features.values())})


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_features_in_every_form(engine: str, tmp_path: Path) -> None:
    """A dict, a Polars frame (a list column, an array column, one numeric column per dimension,
    a LazyFrame), pandas, pyarrow, a Parquet file; ``features_column`` names the vectors' column
    among others."""
    want = rw.evaluate(QRELS, RUN, ["ILD@3"], features=FEATURES, engine=engine)
    frame = _as_frame(FEATURES)
    wide = pl.DataFrame({"doc_id": list(FEATURES), **{f"f{j}": [v[j] for v in FEATURES.values()] for j in range(4)}})
    frame.write_parquet(tmp_path / "features.parquet")
    forms: list[tuple[Any, dict[str, Any]]] = [
        (frame, {}), (frame.lazy(), {}), (frame.with_columns(pl.col("features").cast(pl.Array(pl.Float64, 4))), {}),
        (wide, {}), (frame.to_pandas(), {}), (frame.to_arrow(), {}), (str(tmp_path / "features.parquet"), {}),
        (frame.with_columns(pl.lit("x").alias("title"), pl.col("features").alias("emb")).drop("features"),
         {"features_column": "emb"}),
    ]
    for given_form, kw in forms:
        got = rw.evaluate(QRELS, RUN, ["ILD@3"], features=given_form, engine=engine, **kw)
        assert got.equals(want), type(given_form)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_integer_item_ids_meet_string_run_ids(engine: str) -> None:
    """Ids of another type than the run's are compared as text (as run and qrels are)."""
    run = pl.DataFrame({"query_id": ["1", "1"], "doc_id": ["7", "8"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["1"], "doc_id": ["7"], "relevance": [1]})
    got = rw.evaluate(qrels, run, ["ILD(distance='hamming')@2"], features={7: [1, 0], 8: [1, 1]}, engine=engine)
    assert close_rows(got.rows(), [("1", 1.0)])


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_bad_features_are_refused_naming_the_item(engine: str) -> None:
    def ev(features: Any, **kw: Any) -> None:
        rw.evaluate(QRELS, RUN, ["ILD@3"], features=features, engine=engine, **kw)

    with pytest.raises(rw.InvalidValueError, match=r"the run lists 1 item\(s\) that have no features in the item features \(features=\): 'z'"):
        ev({k: v for k, v in FEATURES.items() if k != "z"})
    with pytest.raises(rw.InvalidValueError, match=r"must all have one length: item 'a' has 4 features, item 'b' has 3"):
        ev({**FEATURES, "b": [1.0, 1.0, 0.0]})
    with pytest.raises(rw.InvalidValueError, match=r"item 'c' has a NaN value at feature 1"):
        ev({**FEATURES, "c": [0.0, math.nan, 1.0, 1.0]})
    with pytest.raises(rw.InvalidValueError, match=r"item 'c' has a NULL value at feature 0"):
        ev({**FEATURES, "c": [None, 0.0, 1.0, 1.0]})
    with pytest.raises(rw.InvalidValueError, match=r"item 'c' has no features \(an empty or NULL vector\)"):
        ev({**FEATURES, "c": []})
    with pytest.raises(rw.DuplicateDocumentError, match=r"give item 'a' more than once"):
        ev(pl.concat([_as_frame(FEATURES), _as_frame({"a": [1.0, 1.0, 1.0, 1.0]})]))
    with pytest.raises(rw.EmptyInputError, match=r"the item features \(features=\) are empty"):
        ev({})
    with pytest.raises(rw.MissingColumnError, match=r"the item features \(features=\) has no column 'doc_id'"):
        ev(_as_frame(FEATURES).rename({"doc_id": "item"}))
    with pytest.raises(rw.InvalidParameterError, match=r"hold the columns \['features', 'title'\] besides the item column 'doc_id': name the column of the vectors, e.g. features_column='features'"):
        ev(_as_frame(FEATURES).with_columns(pl.lit("x").alias("title")))
    with pytest.raises(rw.ColumnTypeError, match=r"the column 'title' holds String, not numbers"):
        ev(pl.DataFrame({"doc_id": list(FEATURES), "f0": [1.0] * 6, "title": ["x"] * 6}))
    with pytest.raises(rw.MissingColumnError, match=r"have no column 'emb' \(features_column=\)"):
        ev(_as_frame(FEATURES), features_column="emb")
    with pytest.raises(rw.UnsupportedInputError, match=r"item 'a' maps to str"):
        ev({"a": "1,0"})


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_a_metric_reading_features_without_them_is_refused(engine: str) -> None:
    with pytest.raises(rw.InvalidParameterError, match=r"ILD@5 reads the item features, a vector per item: pass features="):
        rw.evaluate(QRELS, RUN, ["nDCG", "ILD@5"], engine=engine)
    with pytest.raises(rw.InvalidParameterError, match=r"ILS@5 reads the item features: pass features="):
        rw.to_sql(["ILS@5"])


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_segments_score_each_segment_with_the_same_features(engine: str) -> None:
    """by=: each segment's value is the one of that segment's run alone."""
    run = pl.concat([
        RUN.with_columns(pl.lit("s").alias("segment")),
        RUN.with_columns(pl.lit("t").alias("segment"), (-pl.col("score")).alias("score")),
    ])
    metrics = ["ILD@3", "ILD(distance='hamming')@2", "ILS@3"]
    got = rw.evaluate(QRELS, run, metrics, features=FEATURES, by="segment", engine=engine)
    for segment in ("s", "t"):
        alone = rw.evaluate(QRELS, run.filter(pl.col("segment") == segment).drop("segment"), metrics,
                            features=FEATURES, engine=engine)
        assert close_rows(got.filter(pl.col("segment") == segment).drop("segment").rows(), alone.rows()), segment


def test_to_sql_checks_the_features() -> None:
    """The statement fails on the faults the engines refuse, with the library's words."""
    con = duckdb.connect()
    con.register("run", RUN)
    con.register("qrels", QRELS)
    cases = {
        "missing": (_as_frame({k: v for k, v in FEATURES.items() if k != "z"}),
                    r"the run lists 1 item\(s\) that have no features"),
        "lengths": (_as_frame({**FEATURES, "b": [1.0, 0.0]}), r"must all have one length: they have 2 different lengths"),
        "nan": (_as_frame({**FEATURES, "b": [1.0, math.nan, 0.0, 0.0]}), r"hold 1 NULL or NaN value\(s\)"),
        "twice": (pl.concat([_as_frame(FEATURES), _as_frame({"a": [0.0, 0.0, 0.0, 0.0]})]), r"give 1 item\(s\) more than once"),
    }
    for name, (frame, message) in cases.items():
        con.register(name, frame)
        with pytest.raises(duckdb.Error, match=rf"rankwise: the (item features|run).*{message}" if name != "missing" else message):
            con.sql(rw.to_sql(["ILD@3"], features=name)).fetchall()
    con.register("f", _as_frame(FEATURES).rename({"features": "emb"}))
    assert con.sql(rw.to_sql(["ILD@3"], features="f", features_column="emb", check=False)).fetchall()


def test_to_sql_spark_explodes_the_vectors_with_posexplode() -> None:
    sql = rw.to_sql(["ILD@3"], features="item_features", dialect="spark")
    assert "posexplode(`features`) AS (feature, value)" in sql
    assert "unnest" not in sql


def test_spark(spark: Any) -> None:
    from tests.engines.test_spark import from_spark, to_spark

    metrics = ["ILD@3", "ILD(distance='hamming')@10", "ILD(distance='jaccard')@3", "ILS@10"]
    got = from_spark(rw.spark.evaluate(to_spark(spark, QRELS), to_spark(spark, RUN), metrics,
                                       features=to_spark(spark, _as_frame(FEATURES))))
    want = rw.evaluate(QRELS, RUN, metrics, features=FEATURES)
    assert close_rows(got.sort("query_id").rows(), want.rows())


# -- the other entry points: compare, explain, presets, the command line ---------------------------------
def test_compare_and_explain_read_features() -> None:
    other = RUN.with_columns(pl.Series("score", [1.0, 2.0, 3.0, 4.0, 1.0, 1.0, 2.0, 1.0, 2.0]))
    compared = rw.compare(QRELS, {"a": RUN, "b": other}, ["ILD@3"], features=FEATURES)
    means = rw.summarize(rw.evaluate(QRELS, other, ["ILD@3"], features=FEATURES))
    assert compared.filter(pl.col("metric") == "ILD@3")["mean"].item() == pytest.approx(means["ILD@3"].item())
    table = rw.explain(QRELS, RUN, "ILD(distance='hamming')@4", "u1", features=FEATURES)
    assert table["doc_id"].to_list() == ["a", "b", "c", "d"]
    # the pairs so far: (a,b) 2; + (a,c) 2, (b,c) 4; + (a,d) 2, (b,d) 2, (c,d) 2
    assert table["value"].to_list() == pytest.approx([0.0, 2.0, 8 / 3, 14 / 6])


def test_like_rectools_names_intra_list_diversity() -> None:
    """rectools' IntraListDiversity (its Hamming distances) under its preset."""
    like = rw.like("rectools", "ILD@3")
    assert (like.metric, like.name) == ("ILD(distance='hamming')@3", "IntraListDiversity")
    case = GOLDENS["cases"][0]
    qrels, run, features = _frames(case)
    got = rw.evaluate(qrels, run, ["ILD@3"], features=features, like="rectools")
    assert dict(zip(got["query_id"], got["ILD@3"], strict=True)) == pytest.approx(
        case["values"]["rectools.IntraListDiversity(Hamming)"]
    )


def test_command_line(tmp_path: Path) -> None:
    import subprocess

    QRELS.write_parquet(tmp_path / "qrels.parquet")
    RUN.write_parquet(tmp_path / "run.parquet")
    _as_frame(FEATURES).rename({"features": "emb"}).with_columns(pl.lit("t").alias("title")).write_parquet(
        tmp_path / "features.parquet"
    )

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return rankwise_cli("eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), *args)

    done = cli("-m", "ILD@3", "-m", "ILS@3", "--features", str(tmp_path / "features.parquet"), "--features-col", "emb",
               "--format", "csv")
    assert done.returncode == 0, done.stderr
    got = pl.read_csv(done.stdout.encode())
    want = rw.summarize(rw.evaluate(QRELS, RUN, ["ILD@3", "ILS@3"], features=FEATURES))
    assert got["ILD@3"].item() == pytest.approx(want["ILD@3"].item())
    missing = cli("-m", "ILD@3")
    assert missing.returncode == 2
    assert missing.stderr.strip() == "rankwise: error: ILD@3 reads the item features, a vector per item: pass --features FILE"
    unnamed = cli("-m", "ILD@3", "--features", str(tmp_path / "features.parquet"))
    assert unnamed.returncode == 2
    assert unnamed.stderr.count("\n") == 1
    assert "name the column of the vectors, e.g. features_column='emb'" in unnamed.stderr


# -- property: every engine equals the definitions written out in plain Python --------------------
def _by_definition(lists: dict[str, list[str]], features: dict[str, list[float]], k: int) -> dict[str, dict[str, float | None]]:
    def cos(a: list[float], b: list[float]) -> float:
        na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(x * x for x in b))
        return 0.0 if na == 0 or nb == 0 else sum(x * y for x, y in zip(a, b, strict=True)) / (na * nb)

    def jaccard(a: list[float], b: list[float]) -> float:
        sa, sb = {j for j, x in enumerate(a) if x}, {j for j, x in enumerate(b) if x}
        return 0.0 if not sa | sb else 1 - len(sa & sb) / len(sa | sb)

    out: dict[str, dict[str, float | None]] = {}
    for u, items in lists.items():
        pairs = [(features[a], features[b]) for a, b in combinations(items[:k], 2)]
        n = len(pairs)
        out[u] = {
            f"ILD@{k}": sum(1 - cos(a, b) for a, b in pairs) / n if n else 0.0,
            f"ILD(distance='hamming')@{k}": sum(sum(x != y for x, y in zip(a, b, strict=True)) for a, b in pairs) / n if n else 0.0,
            f"ILD(distance='jaccard')@{k}": sum(jaccard(a, b) for a, b in pairs) / n if n else 0.0,
            f"ILS@{k}": sum(cos(a, b) for a, b in pairs) / n if n else None,
        }
    return out


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(25), deadline=None)
@given(data=st.data(), k=st.integers(1, 6), engine=st.sampled_from(["polars", "polars-lazy", "duckdb", "to_sql"]))
def test_every_engine_equals_the_definitions(data: st.DataObject, k: int, engine: str) -> None:
    """Random lists over random vectors (zeros, negative values, repeats): ILD and ILS per user as
    the definitions say."""
    items = [f"i{j}" for j in range(data.draw(st.integers(1, 8)))]
    size = data.draw(st.integers(1, 4))
    value = st.sampled_from([0.0, 1.0, -1.0, 0.5, 3.0])
    features = {i: data.draw(st.lists(value, min_size=size, max_size=size)) for i in items}
    users = data.draw(st.lists(st.sampled_from(["u1", "u2", "u3", "u4"]), min_size=1, max_size=4, unique=True))
    lists = {u: data.draw(st.lists(st.sampled_from(items), min_size=1, max_size=len(items), unique=True)) for u in users}
    run = pl.DataFrame([(u, i, float(len(its) - r)) for u, its in lists.items() for r, i in enumerate(its)],
                       schema=["query_id", "doc_id", "score"], orient="row")
    qrels = pl.DataFrame([(u, its[0], 1) for u, its in lists.items()], schema=["query_id", "doc_id", "relevance"], orient="row")
    want = _by_definition(lists, features, k)
    metrics = list(next(iter(want.values())))
    got = evaluate_on(engine, qrels, run, _as_frame(features) if engine == "to_sql" else features, metrics)
    for row in got.iter_rows(named=True):
        for metric in metrics:
            expected = want[row["query_id"]][metric]
            assert (row[metric] is None) == (expected is None), (metric, row)
            if expected is not None:
                assert row[metric] == pytest.approx(expected, abs=1e-12), (metric, row)
