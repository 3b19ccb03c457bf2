"""The list form (issue 32): a user with ground truth and an empty or NULL list of predictions
scores 0 by default, as every recommender library scores it; ``missing='ignore'`` leaves such
users out and a warning counts them; an item twice in a list is an error. Checked on random
users against a plain-Python recommender-style reference (the formulas of rectools' and
Microsoft recommenders' ranking metrics: hits over k, over |relevant|, the first hit's
reciprocal rank, binary nDCG with the ideal from every relevant item, AP over |relevant|)."""

from __future__ import annotations

import math
import warnings

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from tests.tiers import examples

ITEMS = ["a", "b", "c", "d", "e", "f"]
K = 3
METRICS = [f"P@{K}", f"R@{K}", "RR", f"nDCG@{K}", "AP"]


def reference(predicted: list[str] | None, relevant: list[str]) -> dict[str, float]:
    """One user's values as a recommender library computes them (binary relevance)."""
    preds = predicted or []
    rel = set(relevant)
    hits = [i for i, item in enumerate(preds, start=1) if item in rel]
    top = [i for i in hits if i <= K]
    ideal = sum(1 / math.log2(i + 1) for i in range(1, min(len(rel), K) + 1))
    return {
        f"P@{K}": len(top) / K,
        f"R@{K}": len(top) / len(rel),
        "RR": 1 / hits[0] if hits else 0.0,
        f"nDCG@{K}": sum(1 / math.log2(i + 1) for i in top) / ideal,
        "AP": sum(n / i for n, i in enumerate(hits, start=1)) / len(rel),
    }


users = st.lists(
    st.tuples(
        st.one_of(st.none(), st.lists(st.sampled_from(ITEMS), max_size=5)),
        st.one_of(st.none(), st.lists(st.sampled_from(ITEMS), max_size=4, unique=True)),
    ),
    min_size=1, max_size=6,
)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@settings(max_examples=examples(40), deadline=None)
@given(rows=users, ignore=st.booleans())
def test_list_form_scores_empty_lists_zero_like_recommender_libraries(
    engine: str, rows: list[tuple[list[str] | None, list[str] | None]], ignore: bool
) -> None:
    frame = pl.DataFrame(
        {"user": [f"u{i}" for i in range(len(rows))], "predicted": [p for p, _ in rows], "relevant": [t for _, t in rows]},
        schema={"user": pl.String, "predicted": pl.List(pl.String), "relevant": pl.List(pl.String)},
    )
    options = {"missing": "ignore"} if ignore else {}
    call = lambda: rw.evaluate_lists(frame, METRICS, query_id="user", engine=engine, **options)  # noqa: E731
    if any(p is not None and len(set(p)) < len(p) for p, _ in rows):
        with pytest.raises(rw.DuplicateDocumentError, match="column 'predicted' lists item"):
            call()
        return
    for side, what in ((0, "a prediction"), (1, "ground truth")):
        if not any(r[side] for r in rows):
            with pytest.raises(rw.EmptyInputError, match=f"no query has {what}"):
                call()
            return
    if not any(p and t for p, t in rows):
        with pytest.raises(rw.InvalidValueError, match="no query of the run is judged"):
            call()
        return
    judged = {f"u{i}": (p, t) for i, (p, t) in enumerate(rows) if t}
    expected = {u: reference(p, t) for u, (p, t) in judged.items() if p or not ignore}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = call()
    assert sorted(got["user"].to_list()) == sorted(expected)
    for row in got.iter_rows(named=True):
        for m in METRICS:
            assert row[m] == pytest.approx(expected[row["user"]][m], abs=1e-12), (m, row)
    # whatever is left out is counted
    said = " ".join(str(w.message) for w in caught)
    empty = sum(1 for p, t in judged.values() if not p)
    no_truth = len(rows) - len(judged)
    if ignore and empty:
        assert f"{empty} with ground truth and an empty list" in said
    if no_truth:
        assert f"{no_truth} without ground truth" in said
    # the mean every recommender library prints
    mean = rw.summarize(got)[f"R@{K}"][0]
    assert mean == pytest.approx(sum(v[f"R@{K}"] for v in expected.values()) / len(expected), abs=1e-12)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_an_empty_list_counts_in_the_mean(engine: str) -> None:
    # the case: one user with an empty list, one perfect: mean R@3 is 0.5, not 1.0
    frame = pl.DataFrame({"query_id": ["u1", "u2"], "predicted": [["a", "b", "c"], []], "relevant": [["a"], ["b"]]})
    got = rw.evaluate_lists(frame, ["R@3"], engine=engine)  # type: ignore[arg-type]
    assert got.rows() == [("u1", 1.0), ("u2", 0.0)]
    assert rw.summarize(got)["R@3"][0] == 0.5
    with pytest.warns(rw.RankwiseWarning, match="1 with ground truth and an empty list"):
        kept = rw.evaluate_lists(frame, ["R@3"], engine=engine, missing="ignore")  # type: ignore[arg-type]
    assert kept.rows() == [("u1", 1.0)]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_an_item_twice_in_a_list_is_an_error(engine: str) -> None:
    frame = pl.DataFrame({"query_id": ["u1", "u2"], "predicted": [["a"], ["b", "c", "b"]], "relevant": [["a"], ["b"]]})
    with pytest.raises(rw.DuplicateDocumentError, match=r"column 'predicted' lists item 'b' more than once for query 'u2'"):
        rw.evaluate_lists(frame, ["AP"], engine=engine)  # type: ignore[arg-type]
