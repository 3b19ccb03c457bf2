"""The catalog family (beyond accuracy, set-level: one value per run or segment): catalog
coverage, the Gini index and the entropy of the items' exposure, the row-weighted
self-information, against the libraries whose definitions they are.

- ``tests/data/beyond/set_goldens.json``: each library's value on nine cases (hand-sized, random
  with string and integer ids, one item for everyone, one user, an empty list among others, items
  outside the catalog, ties in counts) at k = 2 and 5, computed by
  ``tests/data/beyond/make_set_goldens.py`` with rectools 0.19.0, RecBole 1.2.1, LensKit 2025.8.1,
  recommenders 1.2.1, RePlay 0.22.0, rexmex 0.1.3 and Elliot (sisinflab/elliot@fc27efed) in an
  environment with pandas < 3; the file's ``sources`` cite the lines of each library's code;
- hand-computed values at the edges.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import rankwise as rw
from tests.conftest import close_rows
from tests.metrics.test_metric_strings import metrics
from tests.strategies import cases
from tests.tiers import examples

GOLDENS = json.loads((Path(__file__).parents[1] / "data" / "beyond" / "set_goldens.json").read_text())

LIBRARY_METRICS: dict[str, str] = {
    "formula:rexmex.item_coverage[unrounded](k={k})": "CatalogCoverage@{k}",
    "rectools.CatalogCoverage(k={k},normalize=False)": "CatalogCoverage(count=True)@{k}",
    "elliot.ItemCoverage(k={k})": "CatalogCoverage(count=True)@{k}",
    "replay.Coverage(k={k})": "CatalogCoverage(catalog='train')@{k}",
    "recommenders.distributional_coverage[cut at k](k={k})": "Entropy@{k}",
    "recommenders.distributional_coverage[full lists]": "Entropy",
    "recbole.ShannonEntropy[one row](k={k})": "Entropy(base='e', per_item=True)@{k}",
    "recommenders.novelty[cut at k](k={k})": "SelfInformation@{k}",
    "recommenders.novelty[full lists]": "SelfInformation",
    "elliot.GiniIndex(k={k})": "Gini(definition='elliot', catalog='train')@{k}",
}
"""Each library's function (a key of the goldens' values, ``{k}`` the cutoff) as a rankwise
metric string."""

INSIDE_CATALOG: dict[str, str] = {
    "rectools.CatalogCoverage(k={k},normalize=True)": "CatalogCoverage@{k}",
    "recbole.ItemCoverage[one row](k={k},num_items={n})": "CatalogCoverage@{k}",
    "recbole.GiniIndex[one row](k={k},num_items={n})": "Gini@{k}",
    "lenskit.ListGini(n={k},items=catalog)": "Gini@{k}",
    "lenskit.ExposureGini(n={k},items=catalog,weight=GeometricRankWeight(0.85))": "Gini(weight='geometric')@{k}",
}
"""The same where every listed item is in the catalog (``{n}`` its size): there rectools and RecBole
count a listed item outside it in the coverage (a share above 1) and RecBole's Gini goes negative,
LensKit's Gini leaves it out or fails; rankwise's coverage counts the catalog's items only and its
Gini runs over the catalog and the listed items outside it (``tests`` below: by hand)."""

TOLERANCE = {"lenskit.ExposureGini": 1e-6}
"""LensKit sums the geometric exposures in float32."""

ENGINES = ("polars", "duckdb")


def _frames(case: dict[str, Any]) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The case's qrels, run (score n − rank) and training rows."""
    ids = pl.Int64 if case["ids"] == "int" else pl.String
    rows = [(user, item, float(len(items) - r)) for user, items in case["run"] for r, item in enumerate(items)]
    run = pl.DataFrame(rows, schema={"query_id": ids, "doc_id": ids, "score": pl.Float64}, orient="row")
    qrels = pl.DataFrame(case["qrels"], schema={"query_id": ids, "doc_id": ids, "relevance": pl.Int64}, orient="row")
    train = pl.DataFrame(case["train"], schema={"query_id": ids, "doc_id": ids}, orient="row")
    return qrels, run, train


def _expected(case: dict[str, Any]) -> dict[str, float | None]:
    """The case's golden values by rankwise metric string (several libraries may name one)."""
    found: dict[str, tuple[float | None, float]] = {}
    listed = {item for _, items in case["run"] for item in items}
    mapping = {**LIBRARY_METRICS, **(INSIDE_CATALOG if listed <= set(case["catalog"]) else {})}
    for key, value in case["values"].items():
        for library, metric in mapping.items():
            for k in case["ks"]:
                if key == library.format(k=k, n=len(case["catalog"])):
                    label = metric.format(k=k)
                    tolerance = next((t for name, t in TOLERANCE.items() if key.startswith(name)), 1e-12)
                    if label in found and found[label][0] is not None and value is not None:
                        assert found[label][0] == pytest.approx(value, abs=max(tolerance, found[label][1])), (case["name"], key)
                    found[label] = (value, tolerance)
    return found


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", GOLDENS["cases"], ids=lambda c: c["name"])
def test_each_library_value(case: dict[str, Any], engine: str) -> None:
    qrels, run, train = _frames(case)
    expected = _expected(case)
    assert expected, case["name"]
    got = rw.evaluate(qrels, run, list(expected), train=train, catalog=case["catalog"], per_query=False, engine=engine)
    assert got.columns == list(expected)
    for label, (value, tolerance) in expected.items():
        # a library's NaN is a NULL here (nothing listed)
        actual = got[label].item()
        assert (actual is None) == (value is None), (case["name"], label, actual, value)
        if value is not None:
            assert actual == pytest.approx(value, abs=tolerance), (case["name"], label, actual, value)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", GOLDENS["cases"], ids=lambda c: c["name"])
def test_each_library_value_over_every_user(case: dict[str, Any], engine: str) -> None:
    """Elliot's ShannonEntropy and rexmex's personalization divide by every user given, a user with
    an empty list too: rankwise's users scored with ``missing='zero'`` (every judged user). rexmex
    subtracts one per user for the similarity of a list to itself, where an empty list's is 0: its
    value is rankwise's plus (empty lists) / (U (U − 1)), said in Personalization's formula."""
    qrels, run, _ = _frames(case)
    users = [user for user, _ in case["run"]]
    assert set(users) == {user for user, _, _ in case["qrels"]}, case["name"]  # the judged users are the users given
    empty = sum(1 for _, items in case["run"] if not items)
    for k in case["ks"]:
        labels = [f"Entropy(definition='elliot')@{k}", f"Personalization@{k}"]
        got = rw.evaluate(qrels, run, labels, per_query=False, missing="zero", engine=engine)
        entropy, personalization = (got[label].item() for label in labels)
        want = case["values"][f"elliot.ShannonEntropy(k={k})"]
        assert entropy == pytest.approx(want, abs=1e-12), (case["name"], k)
        rexmex = case["values"][f"rexmex.personalization(k={k})"]
        if len(users) < 2:
            assert personalization is None and rexmex is None
        else:
            assert personalization + empty / (len(users) * (len(users) - 1)) == pytest.approx(rexmex, abs=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_personalization_and_elliot_by_hand(engine: str) -> None:
    """u1 lists a, b; u2 a, c, d; u3 e; u4 is judged but lists nothing. At k = 3: cos(u1, u2) =
    1/√6, every other pair 0. Over the three users with a list (the default): 1 − 2/√6 / 6; over
    the four judged users (missing='zero'): 1 − 2/√6 / 12. Elliot's entropy: the rows a 2, b, c,
    d, e 1 each (6 rows), weights a 1/2 + 1/3, b 1/2, c and d 1/3, e 1, divided by the users;
    Elliot's Gini over the catalog a-f (n = 6, m = 5 listed, counts 1, 1, 1, 1, 2)."""
    import math

    run = pl.DataFrame({
        "query_id": ["u1", "u1", "u2", "u2", "u2", "u3"], "doc_id": ["a", "b", "a", "c", "d", "e"],
        "score": [2.0, 1.0, 3.0, 2.0, 1.0, 1.0],
    })
    qrels = pl.DataFrame({"query_id": ["u1", "u2", "u3", "u4"], "doc_id": ["a", "a", "x", "x"], "relevance": [1] * 4})
    metrics = ["Personalization@3", "Entropy(definition='elliot')@3", "Gini(definition='elliot')@3"]
    weights = {"a": 1 / 2 + 1 / 3, "b": 1 / 2, "c": 1 / 3, "d": 1 / 3, "e": 1.0}
    rows = {"a": 2, "b": 1, "c": 1, "d": 1, "e": 1}
    bits = sum(w * -math.log2(rows[d] / 6) for d, w in weights.items())
    gini = 1 - sum((2 * (j + 6 - 5) - 6 - 1) * c for j, c in enumerate([1, 1, 1, 1, 2], start=1)) / (5 * 6)
    for missing, users in (("ignore", 3), ("zero", 4)):
        got = rw.evaluate(qrels, run, metrics, catalog=list("abcdef"), per_query=False, missing=missing, engine=engine)
        expected = (1 - 2 / math.sqrt(6) / (users * (users - 1)), bits / users, gini)
        assert close_rows(got.rows(), [expected]), missing
    one = rw.evaluate(qrels.head(1), run, metrics, catalog=["a"], per_query=False, engine=engine)
    # one user: no pair (NULL); a one-item catalog: Elliot's n − 1 = 0 (NULL, Elliot divides by zero)
    assert one.row(0) == (None, pytest.approx(1.0), None)


@pytest.mark.parametrize("engine", ENGINES)
def test_hand_values(engine: str) -> None:
    """u1 lists a, b, c; u2 a, d; u3 a; u9 (no judgments) z: at k = 2 the exposures are a 3, b 1,
    d 1 (z is no scored user's); the training rows a 2, b 1, e 1 (4 rows)."""
    run = pl.DataFrame({
        "query_id": ["u1", "u1", "u1", "u2", "u2", "u3", "u9"], "doc_id": ["a", "b", "c", "a", "d", "a", "z"],
        "score": [3.0, 2.0, 1.0, 2.0, 1.0, 1.0, 1.0],
    })
    qrels = pl.DataFrame({"query_id": ["u1", "u2", "u3"], "doc_id": ["a", "a", "x"], "relevance": [1, 1, 1]})
    train = pl.DataFrame({"query_id": ["u1", "u2", "u4", "u4"], "doc_id": ["a", "b", "a", "e"]})
    metrics = [
        "CatalogCoverage(count=True)@2", "CatalogCoverage(catalog='train')@2", "Gini(catalog='listed')@2",
        "Gini(catalog='train')@2", "Gini(weight='geometric', catalog='listed')", "Entropy@2",
        "Entropy(base='e', per_item=True)@2", "SelfInformation@2", "AP",
    ]
    got = rw.evaluate(qrels, run, metrics, train=train, per_query=False, engine=engine)
    import math

    h = -(0.6 * math.log(0.6) + 2 * 0.2 * math.log(0.2))
    # geometric: a 1 + 1 + 1, b 0.85, c 0.85², d 0.85 over the whole lists
    x = sorted([3.0, 0.85, 0.85**2, 0.85])
    gini = sum((2 * i - 4 - 1) * v for i, v in enumerate(x, start=1)) / (4 * sum(x))
    expected = (
        3.0, 2 / 3, 4 / (3 * 5), 9 / (4 * 5), gini, h / math.log(2), h / 3, (3 * 1 + 2 + 0) / 5,
        rw.summarize(rw.evaluate(qrels, run, ["AP"]))["AP"].item(),
    )
    assert close_rows(got.rows(), [expected])


@pytest.mark.parametrize("engine", ENGINES)
def test_segments_each_give_their_value(engine: str) -> None:
    run = pl.DataFrame({
        "query_id": ["u1", "u1", "u2", "u2", "u3"], "doc_id": ["a", "b", "a", "c", "a"],
        "score": [2.0, 1.0, 2.0, 1.0, 1.0], "market": ["x", "x", "y", "y", "x"],
    })
    qrels = pl.DataFrame({"query_id": ["u1", "u2", "u3"], "doc_id": ["a", "a", "a"], "relevance": [1, 1, 1]})
    got = rw.evaluate(qrels, run, ["P@1", "CatalogCoverage(count=True)@2", "Gini(catalog='listed')@2"],
                      per_query=False, by="market", engine=engine)
    # x: u1 (a, b) and u3 (a): a 2, b 1; y: u2 (a, c): a 1, c 1
    assert close_rows(got.rows(), [("x", 1.0, 2.0, (-1 * 1 + 1 * 2) / (2 * 3)), ("y", 1.0, 2.0, 0.0)])


def test_a_set_level_metric_is_no_per_query_value() -> None:
    run = pl.DataFrame({"query_id": ["u1"], "doc_id": ["a"], "score": [1.0]})
    with pytest.raises(rw.InvalidParameterError, match=r"Gini@10 is one value per run .*per_query=False"):
        rw.evaluate(run.drop("score").with_columns(relevance=pl.lit(1)), run, ["AP", "Gini@10"])


@pytest.mark.parametrize("engine", ENGINES)
def test_items_outside_the_catalog(engine: str) -> None:
    """u1 lists a, z; u2 a, b; the catalog is a, b, c (z outside it): coverage counts a and b of
    3; the Gini runs over a 2, b 1, c 0 and z 1 (n = 4)."""
    run = pl.DataFrame({"query_id": ["u1", "u1", "u2", "u2"], "doc_id": ["a", "z", "a", "b"], "score": [2.0, 1.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["u1", "u2"], "doc_id": ["a", "a"], "relevance": [1, 1]})
    got = rw.evaluate(qrels, run, ["CatalogCoverage@2", "Gini@2"], catalog=["a", "b", "c"], per_query=False, engine=engine)
    x = [0.0, 1.0, 1.0, 2.0]
    gini = sum((2 * i - 4 - 1) * v for i, v in enumerate(x, start=1)) / (4 * sum(x))
    assert close_rows(got.rows(), [(2 / 3, gini)])


@pytest.mark.parametrize("engine", ENGINES)
def test_the_catalog_in_every_form(engine: str, tmp_path: Path) -> None:
    import pandas as pd

    run = pl.DataFrame({"query_id": [1, 1, 2], "doc_id": [10, 11, 10], "score": [2.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query_id": [1, 2], "doc_id": [10, 10], "relevance": [1, 1]})
    items = [10, 11, 12, 13]
    path = tmp_path / "catalog.parquet"
    pl.DataFrame({"item_id": items, "title": ["a", "b", "c", "d"]}).write_parquet(path)
    forms: list[tuple[Any, dict[str, Any]]] = [
        (items, {}), (set(items), {}), (pl.Series(items), {}), (pd.Series(items), {}),
        (pl.DataFrame({"doc_id": items}), {}), (pl.DataFrame({"item": items}).lazy(), {}),
        (path, {"catalog_column": "item_id"}), (["10", "11", "12", "13"], {}),  # text ids meet integer ones
    ]
    for catalog, extra in forms:
        got = rw.evaluate(qrels, run, ["CatalogCoverage@2"], catalog=catalog, per_query=False, engine=engine, **extra)
        assert got.item() == pytest.approx(0.5), (catalog, extra)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_bad_or_missing_catalog_is_refused_by_name(engine: str) -> None:
    run = pl.DataFrame({"query_id": ["u1"], "doc_id": ["a"], "score": [1.0]})
    qrels = pl.DataFrame({"query_id": ["u1"], "doc_id": ["a"], "relevance": [1]})
    with pytest.raises(rw.InvalidParameterError, match=r"CatalogCoverage@10 reads the catalog.*pass catalog="):
        rw.evaluate(qrels, run, ["CatalogCoverage@10"], per_query=False, engine=engine)
    with pytest.raises(rw.InvalidParameterError, match=r"Gini\(catalog='train'\)@10 reads the training interactions"):
        rw.evaluate(qrels, run, ["Gini(catalog='train')@10"], per_query=False, engine=engine)
    with pytest.raises(rw.EmptyInputError, match=r"the catalog \(catalog=\) has no items"):
        rw.evaluate(qrels, run, ["Gini@10"], catalog=[], per_query=False, engine=engine)
    with pytest.raises(rw.MissingColumnError, match="the catalog has no item column 'doc_id'"):
        rw.evaluate(qrels, run, ["Gini@10"], catalog=pl.DataFrame({"a": ["x"], "b": ["y"]}), per_query=False)
    # read only when a metric reads it: an unreadable catalog is never opened for the others
    assert rw.evaluate(qrels, run, ["Gini(catalog='listed')@10"], catalog="no such file", per_query=False).item() == 0.0


def test_command_line(tmp_path: Path) -> None:
    from tests.cli.test_cli import cli as rankwise_cli

    data = Path(__file__).parents[2] / "examples" / "data"
    catalog = tmp_path / "catalog.csv"
    docs = pl.read_parquet(data / "run.parquet")["doc_id"].unique().sort()
    pl.DataFrame({"doc_id": docs}).write_csv(catalog)
    done = rankwise_cli("eval", str(data / "qrels.parquet"), str(data / "run.parquet"), "-m", "AP", "-m",
                        "CatalogCoverage@10", "-m", "Gini@10", "--catalog", str(catalog), "--format", "csv", "--quiet")
    assert done.returncode == 0, done.stderr
    expected = rw.evaluate(data / "qrels.parquet", data / "run.parquet", ["AP", "CatalogCoverage@10", "Gini@10"],
                           catalog=docs, per_query=False)
    got = pl.read_csv(done.stdout.encode())
    assert got.columns == expected.columns and got.row(0) == pytest.approx(expected.row(0), abs=1e-12)
    refused = rankwise_cli("eval", str(data / "qrels.parquet"), str(data / "run.parquet"), "-m", "Gini@10")
    assert refused.returncode == 2 and refused.stderr.strip() == (
        "rankwise: error: Gini@10 reads the catalog, the items that could be recommended: pass --catalog FILE"
    )


# -- random data: every engine equals the definitions, written out here ---------------------------
DEFINED = [
    "CatalogCoverage@{k}", "CatalogCoverage(count=True)@{k}", "CatalogCoverage(catalog='train')@{k}", "Gini@{k}",
    "Gini(catalog='listed')@{k}", "Gini(catalog='train')", "Gini(weight='geometric', patience=0.5)@{k}",
    "Entropy@{k}", "Entropy(base='e', per_item=True)", "SelfInformation@{k}", "Personalization@{k}",
    "Gini(definition='elliot')@{k}", "Entropy(definition='elliot', base='e')@{k}",
]


def _definitions(case: Any, catalog: list[str], k: int) -> dict[str, float | None]:
    """Each of :data:`DEFINED` by its formula, over the judged users' lists in trec_eval's order
    (score descending, then doc id descending)."""
    import math

    lists = [
        sorted(docs, key=lambda d: (docs[d], d), reverse=True) for q, docs in case.run.items() if q in case.qrels
    ]

    def exposure(cut: int | None, weight: Any = lambda r: 1.0) -> dict[str, float]:
        out: dict[str, float] = {}
        for items in lists:
            for r, d in enumerate(items[:cut], start=1):
                out[d] = out.get(d, 0.0) + weight(r)
        return out

    def gini(x: dict[str, float], items: set[str] | None) -> float | None:
        values = sorted(x.get(i, 0.0) for i in (set(x) if items is None else items | set(x)))
        n, total = len(values), sum(values)
        return sum((2 * i - n - 1) * v for i, v in enumerate(values, start=1)) / (n * total) if total else None

    def entropy(x: dict[str, float], base: float) -> float | None:
        total = sum(x.values())
        return -sum(v / total * math.log(v / total) for v in x.values()) / math.log(base) if total else None

    def personalization(cut: int) -> float | None:
        sets = [set(items[:cut]) for items in lists]
        pairs = [(a, b) for i, a in enumerate(sets) for j, b in enumerate(sets) if i != j]
        return 1 - sum(len(a & b) / math.sqrt(len(a) * len(b)) for a, b in pairs) / len(pairs) if pairs else None

    def elliot_gini(x: dict[str, float], n: int) -> float | None:
        counts = sorted(x.values())
        m, total = len(counts), sum(counts)
        if not total or n <= 1:
            return None
        return 1 - sum((2 * (j + n - m) - n - 1) * c for j, c in enumerate(counts, start=1)) / ((n - 1) * total)

    def elliot_entropy(cut: int) -> float | None:
        x = exposure(cut)
        total = sum(x.values())
        weights: dict[str, float] = {}
        for items in lists:
            for d in items[:cut]:
                weights[d] = weights.get(d, 0.0) + 1 / len(items[:cut])
        return sum(w * -math.log(x[d] / total) for d, w in weights.items()) / len(lists) if total else None

    trained = {d for _, d in case.train}
    rows = {d: sum(1 for _, t in case.train if t == d) for d in trained}
    at_k, whole = exposure(k), exposure(None)
    listed_rows = sum(at_k.values())
    info = sum(v * -math.log2(rows[d] / len(case.train)) for d, v in at_k.items() if d in trained)
    return {
        "CatalogCoverage@{k}": len(set(at_k) & set(catalog)) / len(set(catalog)) if at_k else None,
        "CatalogCoverage(count=True)@{k}": float(len(at_k)) if at_k else None,
        "CatalogCoverage(catalog='train')@{k}": len(set(at_k) & trained) / len(trained) if at_k else None,
        "Gini@{k}": gini(at_k, set(catalog)),
        "Gini(catalog='listed')@{k}": gini(at_k, None),
        "Gini(catalog='train')": gini(whole, trained),
        "Gini(weight='geometric', patience=0.5)@{k}": gini(exposure(k, lambda r: 0.5 ** (r - 1)), set(catalog)),
        "Entropy@{k}": entropy(at_k, 2.0),
        "Entropy(base='e', per_item=True)": (e / len(whole)) if (e := entropy(whole, math.e)) is not None else None,
        "SelfInformation@{k}": info / listed_rows if listed_rows else None,
        "Personalization@{k}": personalization(k),
        "Gini(definition='elliot')@{k}": elliot_gini(at_k, len(set(catalog))),
        "Entropy(definition='elliot', base='e')@{k}": elliot_entropy(k),
    }


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(case=cases(), k=st.integers(1, 4), extra=st.lists(st.sampled_from(["x1", "x2", "zz"]), unique=True))
def test_random_data_equals_the_definitions(case: Any, k: int, extra: list[str]) -> None:
    """Ties, unjudged users (left out), items only in the catalog or only in training, lists
    shorter than k, one listed item."""
    catalog = sorted({d for docs in case.run.values() for d in docs} | set(extra))
    expected = _definitions(case, catalog, k)
    labels = [name.format(k=k) for name in DEFINED]
    for engine in ENGINES:
        got = rw.evaluate(
            case.qrels_frame(), case.run_frame(), labels, train=case.train_frame(), catalog=catalog,
            per_query=False, engine=engine,
        )
        for name, label in zip(DEFINED, labels, strict=True):
            value, want = got[label].item(), expected[name]
            assert (value is None) == (want is None), (engine, label, value, want)
            if want is not None:
                assert value == pytest.approx(want, abs=1e-12), (engine, label)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(30), deadline=None)
@given(
    case=cases(), chosen=st.lists(metrics("set"), min_size=1, max_size=4, unique_by=repr),
    ties=st.sampled_from(["trec_eval", "doc_asc", "optimistic"]), max_rank=st.sampled_from([None, 1, 3]),
    judged_only=st.booleans(), by=st.booleans(),
)
def test_the_engines_agree(case: Any, chosen: list[rw.Metric], ties: str, max_rank: int | None,
                           judged_only: bool, by: bool) -> None:
    """Random parameters and conventions, by= segments: Polars and DuckDB give the same values."""
    run = case.run_frame()
    if by:
        run = run.with_columns(segment=(pl.col("doc_id").str.len_chars() % 2).cast(pl.String))
    names = [repr(m) for m in chosen]
    kw: dict[str, Any] = dict(
        ties=ties, max_rank=max_rank, judged_only=judged_only, train=case.train_frame(), per_query=False,
        catalog=sorted({d for docs in case.run.values() for d in docs}), by="segment" if by else None,
        groups=case.groups,
    )
    polars = rw.evaluate(case.qrels_frame(), run, names, **kw)
    duck = rw.evaluate(case.qrels_frame(), run, names, engine="duckdb", **kw)
    assert polars.columns == duck.columns == (["segment"] if by else []) + names
    assert_frame_equal(polars, duck, check_exact=False, abs_tol=1e-12, rel_tol=1e-12)


def test_explain_refuses_a_set_level_metric_by_name() -> None:
    data = Path(__file__).parents[2] / "examples" / "data"
    with pytest.raises(rw.InvalidParameterError, match=r"Gini\(catalog='listed'\)@10 is one value per run .*no rank-by-rank"):
        rw.explain(data / "qrels.parquet", data / "run.parquet", "Gini(catalog='listed')@10", "q001")


# -- SQL: to_sql (DuckDB and Spark dialects) and Spark --------------------------------------------
SQL_METRICS = [
    "CatalogCoverage@2", "CatalogCoverage(count=True)@2", "Gini@2", "Gini(catalog='train')@2", "Entropy@2",
    "Entropy(base='e', per_item=True)", "SelfInformation@2", "Gini(weight='geometric', catalog='listed')",
]


def _sql_inputs() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    run = pl.DataFrame({
        "query_id": ["u1", "u1", "u1", "u2", "u2", "u3", "u9"], "doc_id": ["a", "b", "c", "a", "d", "a", "z"],
        "score": [3.0, 2.0, 1.0, 2.0, 1.0, 1.0, 1.0],
    })
    qrels = pl.DataFrame({"query_id": ["u1", "u2", "u3"], "doc_id": ["a", "a", "x"], "relevance": [1, 1, 1]})
    train = pl.DataFrame({"query_id": ["u1", "u2", "u4", "u4"], "doc_id": ["a", "b", "a", "e"]})
    catalog = pl.DataFrame({"item": ["a", "b", "c", "d", "e", "f"]})
    return run, qrels, train, catalog


def test_to_sql_gives_one_row_as_evaluate() -> None:
    import duckdb

    run, qrels, train, catalog = _sql_inputs()
    con = duckdb.connect()
    for name, frame in (("run", run), ("qrels", qrels), ("train_rows", train), ("items", catalog)):
        con.register(name, frame)
    got = con.sql(rw.to_sql(SQL_METRICS, train="train_rows", catalog="items", catalog_column="item")).pl()
    want = rw.evaluate(qrels, run, SQL_METRICS, train=train, catalog=catalog["item"], per_query=False)
    assert got.columns == SQL_METRICS and close_rows(got.rows(), want.rows())
    with pytest.raises(rw.InvalidParameterError, match=r"Gini@2 is one value per run .* and AP a per-query value"):
        rw.to_sql(["Gini@2", "AP"], catalog="items")
    with pytest.raises(rw.InvalidParameterError, match=r"Gini@2 reads the catalog: pass catalog= \(the table's name\)"):
        rw.to_sql(["Gini@2"])
    con.register("empty_items", catalog.clear())
    with pytest.raises(duckdb.Error, match=r"rankwise: the catalog \(catalog=\) has no items"):
        con.sql(rw.to_sql(["Gini@2"], catalog="empty_items", catalog_column="item")).fetchall()


def test_spark(spark: Any) -> None:
    from tests.engines.test_spark import from_spark, to_spark

    run, qrels, train, catalog = _sql_inputs()
    got = from_spark(rw.spark.evaluate(
        to_spark(spark, qrels), to_spark(spark, run), SQL_METRICS, train=to_spark(spark, train),
        catalog=to_spark(spark, catalog), catalog_column="item",
    ))
    want = rw.evaluate(qrels, run, SQL_METRICS, train=train, catalog=catalog["item"], per_query=False)
    assert got.columns == SQL_METRICS and close_rows(got.rows(), want.rows())



# -- compare: each run's value, the difference, a bootstrap interval over the users ---------------
def test_compare_gives_values_and_a_recentred_bootstrap_interval() -> None:
    """The values are evaluate()'s; the interval is recomputed here from the same resamples: the
    users drawn with numpy's multinomial (seed 0), the runs evaluated on each resample through
    by= segments (one segment per resample, a user repeated as many times as drawn)."""
    import numpy as np

    data = Path(__file__).parents[2] / "examples" / "data"
    qrels = pl.read_parquet(data / "qrels.parquet")
    base = pl.read_parquet(data / "run.parquet")
    other = base.with_columns(score=pl.col("score") * ((pl.col("doc_id").str.len_chars() % 3) + 1))
    metrics = ["AP", "CatalogCoverage(count=True)@5", "Gini(catalog='listed')@5"]
    table = rw.compare(qrels, {"base": base, "new": other}, metrics, resamples=50)
    assert table["metric"].to_list() == metrics
    for label in metrics[1:]:
        row = table.filter(metric=label).row(0, named=True)
        values = [rw.evaluate(qrels, run, [label], per_query=False).item() for run in (base, other)]
        assert (row["baseline_mean"], row["mean"]) == pytest.approx(values)
        assert row["diff"] == pytest.approx(values[1] - values[0])
        assert row["p_t"] is None and row["wins"] is None and row["queries"] == 199
        # the same draws, by hand: resample b holds each user as many times as drawn
        users = sorted(set(base["query_id"]) & set(qrels["query_id"]))
        counts = np.random.default_rng(0).multinomial(len(users), np.full(len(users), 1 / len(users)), size=50)
        diffs = []
        for draw in counts:
            keep = pl.DataFrame({"query_id": users, "times": draw}).filter(pl.col("times") > 0)
            picks = [
                run.join(keep, on="query_id").with_columns(pl.int_ranges(0, "times").alias("copy")).explode("copy")
                .with_columns(pl.concat_str("query_id", pl.lit("#"), "copy").alias("query_id")).drop("times", "copy")
                for run in (base, other)
            ]
            judged = qrels.join(keep, on="query_id").with_columns(pl.int_ranges(0, "times").alias("copy")).explode(
                "copy").with_columns(pl.concat_str("query_id", pl.lit("#"), "copy").alias("query_id")).drop("times", "copy")
            a, b = (rw.evaluate(judged, run, [label], per_query=False).item() for run in picks)
            diffs.append(b - a)
        d = np.array(diffs)
        low, high = np.percentile(d, [2.5, 97.5]) + row["diff"] - d.mean()
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), abs=1e-9)


def test_report_and_command_line_compare(tmp_path: Path) -> None:
    from tests.cli.test_cli import cli as rankwise_cli

    data = Path(__file__).parents[2] / "examples" / "data"
    other = pl.read_parquet(data / "run.parquet").with_columns(score=-pl.col("score"))
    other.write_parquet(tmp_path / "other.parquet")
    page = tmp_path / "report.html"
    rw.report(data / "qrels.parquet", {"base": data / "run.parquet", "other": tmp_path / "other.parquet"},
              ["nDCG@10", "Gini(catalog='listed')@10"], page, resamples=20)
    text = page.read_text()
    assert 'alt="nDCG@10 against Gini(catalog=&#x27;listed&#x27;)@10"' in text
    assert "is one value per run (set-level: no significance test" in text
    done = rankwise_cli("compare", str(data / "qrels.parquet"), str(data / "run.parquet"), str(tmp_path / "other.parquet"),
                        "-m", "AP", "-m", "Entropy@10", "--resamples", "20", "--format", "csv", "--quiet")
    assert done.returncode == 0, done.stderr
    got = pl.read_csv(done.stdout.encode())
    want = rw.compare(data / "qrels.parquet", {"run": data / "run.parquet", "other": tmp_path / "other.parquet"},
                      ["AP", "Entropy@10"], resamples=20)
    assert got["metric"].to_list() == ["AP", "Entropy@10"]
    assert got["mean"].to_list() == pytest.approx(want["mean"].to_list())


def test_the_table_macro() -> None:
    """rw_coverage('qrels', 'run', 'catalog', k := ...) in DuckDB SQL: evaluate()'s values, its
    columns named with k; the catalog checked."""
    import duckdb

    from rankwise._sql.generate import COVERAGE_METRICS

    run, qrels, _, catalog = _sql_inputs()
    con = duckdb.connect()
    rw.register(con)
    con.register("run", run)
    con.register("qrels", qrels)
    con.register("items", catalog.rename({"item": "doc_id"}))
    for k in (2, 10):
        got = con.sql(f"SELECT * FROM rw_coverage('qrels', 'run', 'items', k := {k})").pl()
        metrics = [name + f"@{k}" for _, name, _ in COVERAGE_METRICS]
        want = rw.evaluate(qrels, run, metrics, catalog=catalog["item"], per_query=False)
        assert got.columns == [label for label, _, _ in COVERAGE_METRICS]
        assert close_rows(got.rows(), want.rows())
    con.register("empty_items", catalog.rename({"item": "doc_id"}).clear())
    with pytest.raises(duckdb.Error, match=r"rankwise: the catalog \(catalog=\) has no items"):
        con.sql("SELECT * FROM rw_coverage('qrels', 'run', 'empty_items')").fetchall()


def test_the_metric_page_says_one_value_per_run() -> None:
    from tests.cli.test_cli import cli as rankwise_cli

    page = rankwise_cli("metrics", "Gini")
    assert page.returncode == 0, page.stderr
    assert "level:" in page.stdout and "one value per run, from every user's list (set-level)" in page.stdout
    assert "empty query" not in page.stdout
