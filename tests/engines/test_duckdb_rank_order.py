"""A run already in rank order is not sorted again on DuckDB (:func:`rankwise._duckdb.engine.rank_order`):
the run is checked in one pass, and the statement reads each row's rank instead of its ranking
window. Only a run in the tie policy's full order is taken as ordered (almost-ordered runs: a pair
swapped, a query split in two places, ties in another doc order), every input form gives the same
values in every row order, under every tie policy and under a memory limit, equal to trec_eval's C
code (pytrec-eval-terrier) and to the Polars engine."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankwise as rw
from rankwise._duckdb import engine
from tests.engines.test_rank_order import pytrec_values, shuffled_inputs

METRICS = ["nDCG@10", "AP", "RR", "P@10", "R@100", "bpref", "Rprec", "num_ret", "num_rel_ret"]
TREC = {"nDCG@10": "ndcg_cut_10", "AP": "map", "RR": "recip_rank", "P@10": "P_10", "R@100": "recall_100",
        "bpref": "bpref", "Rprec": "Rprec", "num_ret": "num_ret", "num_rel_ret": "num_rel_ret"}
TIES = ("trec_eval", "doc_asc", "expected", "optimistic", "pessimistic", "doc_desc_numeric", "input")


@pytest.fixture(autouse=True)
def _small_runs_looked_at(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test runs are small: looked at for rank order all the same."""
    monkeypatch.setattr(engine, "RANKED_MIN_ROWS", 0)
    monkeypatch.setattr(engine, "RANKED_MIN_BYTES", 0)
    monkeypatch.setattr(engine, "RANKED_SAMPLE_ROWS", 100)


def _inputs(int_ids: bool) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The Polars rank-order tests' inputs (40 queries x 60 documents, ties, ids whose text order
    differs from their numeric order), drawn with a seed of their own."""
    return shuffled_inputs(int_ids, seed=17)


def _ranked(run: pl.DataFrame, doc_descending: bool = True) -> pl.DataFrame:
    text = pl.col("doc_id").cast(pl.String)
    return run.sort([pl.col("query_id"), pl.col("score"), text], descending=[False, True, doc_descending])


def _orders(run: pl.DataFrame) -> dict[str, tuple[pl.DataFrame, bool]]:
    """The same rows in several orders, each with whether it is trec_eval's rank order."""
    ranked = _ranked(run)
    n = ranked.height
    # one pair of neighbours (of one query, scores apart) swapped, deep in the run: past the first rows
    i = next(
        k for k in range(n - 200, 0, -1)
        if ranked["query_id"][k] == ranked["query_id"][k + 1] and ranked["score"][k] > ranked["score"][k + 1]
    )
    swapped = ranked[[*range(i), i + 1, i, *range(i + 2, n)]]
    # the rows of the last query split in two places: part of it moved before another query
    last = ranked["query_id"][n - 1]
    rows = ranked.with_row_index("at")
    of_last = rows.filter(pl.col("query_id") == last)
    split = pl.concat([
        rows.filter(pl.col("at") < n // 2), of_last.head(5), rows.filter((pl.col("at") >= n // 2) & (pl.col("query_id") != last)),
        of_last.slice(5),
    ]).drop("at")
    # a query whose rows are in rank order but whose tied scores are in ascending doc order
    ties_wrong = _ranked(run, doc_descending=False)
    return {
        "shuffled": (run, False),
        "rank order": (ranked, True),
        "queries in descending order": (ranked.sort("query_id", descending=True, maintain_order=True), True),
        "one pair swapped": (swapped, False),
        "one query split in two places": (split, False),
        "ties in ascending doc order": (ties_wrong, False),
        "ties by the doc id's number": (
            run.sort(["query_id", "score", "doc_id"], descending=[False, True, True]), run["doc_id"].dtype == pl.String
        ),
    }


def _forms(tmp_path: Path, frame: pl.DataFrame, name: str) -> dict[str, Callable[[], Any]]:
    parquet, csv, folder = tmp_path / f"{name}.parquet", tmp_path / f"{name}.csv", tmp_path / f"{name}_parts"
    frame.write_parquet(parquet, row_group_size=500)  # several row groups: scanned by several threads
    frame.write_csv(csv)
    folder.mkdir()
    for k, part in enumerate(frame.iter_slices(1000)):  # files in name order hold the rows in order
        part.write_parquet(folder / f"part-{k:03d}.parquet")
    trec = tmp_path / f"{name}.trec"
    trec.write_text("".join(f"{q} Q0 {d} {r} {s!r} x\n" for r, (q, d, s) in enumerate(frame.iter_rows(), 1)))
    return {"parquet": lambda: parquet, "csv": lambda: csv, "folder": lambda: folder, "trec": lambda: trec,
            "frame": lambda: frame, "lazy": frame.lazy, "arrow": frame.to_arrow}


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each reading of a run took it as in rank order (one evaluation reads it once; under
    ``ties='expected'`` also once per tie policy of its spread warning)."""
    seen: list[bool] = []
    original = engine.rank_order

    def spy(*args: Any, **kwargs: Any) -> tuple[Any, bool, bool]:
        out = original(*args, **kwargs)
        seen.append(out[1])
        return out

    monkeypatch.setattr(engine, "rank_order", spy)
    return seen


def _trec(run: pl.DataFrame, qrels: pl.DataFrame) -> dict[str, dict[str, float]]:
    return pytrec_values(run, qrels, TREC.values())


@pytest.mark.parametrize("int_ids", [False, True])
def test_every_order_gives_trec_evals_values_and_only_the_rank_order_is_recognised(
    int_ids: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, qrels = _inputs(int_ids)
    reference = _trec(run, qrels)
    seen = _spy(monkeypatch)
    for name, (ordered, in_order) in _orders(run).items():
        got = rw.evaluate(qrels, ordered, METRICS, engine="duckdb")
        assert seen.pop() is in_order, name
        for row in got.iter_rows(named=True):
            for metric, trec in TREC.items():
                assert row[metric] == pytest.approx(reference[str(row["query_id"])][trec], abs=1e-12), (name, metric)


@pytest.mark.parametrize("form", ["parquet", "csv", "folder", "trec", "frame", "lazy", "arrow"])
def test_every_input_form_in_every_order_gives_the_same_values(
    form: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files (Parquet, a folder of them, CSV, TREC), frames and a LazyFrame: the values of the
    shuffled rows in memory on Polars, whatever the rows' order; the rank order recognised in
    each form."""
    run, qrels = _inputs(int_ids=False)
    expected = rw.evaluate(qrels, run, METRICS)
    seen = _spy(monkeypatch)
    for name, (ordered, in_order) in _orders(run).items():
        directory = tmp_path / name.replace(" ", "_").replace("'", "")
        directory.mkdir()
        got = rw.evaluate(qrels, _forms(directory, ordered, "run")[form](), METRICS, engine="duckdb")
        assert seen.pop() is in_order, (form, name)
        assert_frame_equal(got, expected, check_exact=False, abs_tol=1e-12)


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("int_ids", [False, True])
def test_every_tie_policy_and_convention_gives_the_values_of_the_shuffled_run(
    ties: str, int_ids: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under each tie policy, with a cut (``max_rank``) and ``judged_only`` (which ranks again):
    the values of the shuffled run on Polars. Only the policies that break ties by the doc id
    as text take a run as in rank order."""
    run, qrels = _inputs(int_ids)
    seen = _spy(monkeypatch)
    # ties='expected': the metrics with a closed form over the orders of tied documents
    metrics = ["nDCG@10", "AP", "RR", "P@10", "R@100", "num_ret"] if ties == "expected" else METRICS
    cut = [] if ties == "expected" else [{"max_rank": 25}, {"judged_only": True, "max_rank": 25}]
    for options in ({}, {"judged_only": True}, *cut):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rw.TieWarning)
            expected = rw.evaluate(qrels, run, metrics, ties=ties, **options)  # type: ignore[arg-type]
        for name, (ordered, in_order) in _orders(run).items():
            if ties == "doc_asc":  # ties by the doc id ascending, as text
                in_order = name == "ties in ascending doc order"
            if ties == "input":  # the rows' order is the tie order: the Polars engine on the same rows
                expected = rw.evaluate(qrels, ordered, metrics, ties=ties, **options)  # type: ignore[arg-type]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", rw.TieWarning)
                got = rw.evaluate(qrels, ordered, metrics, engine="duckdb", ties=ties, **options)  # type: ignore[arg-type]
            assert seen[0] is (in_order and ties in ("trec_eval", "doc_asc", "expected")), (ties, name)
            seen.clear()
            assert_frame_equal(got, expected, check_exact=False, abs_tol=1e-12)


def test_a_query_split_across_files_of_a_folder_is_not_recognised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder of files each in rank order, one query's rows in two files apart: not in order."""
    run, qrels = _inputs(int_ids=False)
    ranked = _ranked(run)
    first = ranked["query_id"][0]
    folder = tmp_path / "parts"
    folder.mkdir()
    ranked.filter(pl.col("query_id") == first).head(10).write_parquet(folder / "a.parquet")
    ranked.filter(pl.col("query_id") != first).write_parquet(folder / "b.parquet")
    ranked.filter(pl.col("query_id") == first).slice(10).write_parquet(folder / "c.parquet")
    seen = _spy(monkeypatch)
    got = rw.evaluate(qrels, folder, METRICS, engine="duckdb")
    assert seen == [False]
    assert_frame_equal(got, rw.evaluate(qrels, run, METRICS), check_exact=False, abs_tol=1e-12)


def test_under_a_memory_limit_the_run_is_read_where_it_lies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Out of core: the run in rank order is not read into memory to be looked at (it is sorted,
    spilling if it must); the values are those of the shuffled run."""
    run, qrels = _inputs(int_ids=False)
    path = tmp_path / "run.parquet"
    _ranked(run).write_parquet(path, row_group_size=500)
    seen = _spy(monkeypatch)
    got = rw.evaluate(qrels, path, METRICS, engine="duckdb", duckdb_config={"memory_limit": "500MB"})
    assert seen == []
    assert_frame_equal(got, rw.evaluate(qrels, run, METRICS), check_exact=False, abs_tol=1e-12)


def test_all_trec_in_rank_order_gives_the_values_of_the_shuffled_run(monkeypatch: pytest.MonkeyPatch) -> None:
    run, qrels = _inputs(int_ids=False)
    seen = _spy(monkeypatch)
    got = rw.evaluate(qrels, _ranked(run), "all_trec", engine="duckdb")
    assert seen == [True]
    assert_frame_equal(got, rw.evaluate(qrels, run, "all_trec", engine="duckdb"), check_exact=False, abs_tol=1e-12)


@pytest.mark.parametrize("fault", ["duplicate", "null_query", "null_score"])
def test_a_fault_of_a_run_in_rank_order_is_the_error_of_the_shuffled_run(tmp_path: Path, fault: str) -> None:
    run, qrels = _inputs(int_ids=False)
    ranked = _ranked(run)
    at = pl.int_range(pl.len()) == 700
    bad = {
        "duplicate": pl.concat([ranked.head(701), ranked.slice(700)]),
        "null_query": ranked.with_columns(pl.when(at).then(None).otherwise(pl.col("query_id")).alias("query_id")),
        "null_score": ranked.with_columns(pl.when(at).then(None).otherwise(pl.col("score")).alias("score")),
    }[fault]
    path = tmp_path / "run.parquet"
    bad.write_parquet(path)
    errors = []
    for given in (bad.sample(fraction=1.0, shuffle=True, seed=1), bad, path):
        with pytest.raises(rw.RankwiseError) as caught:
            rw.evaluate(qrels, given, METRICS, engine="duckdb")
        errors.append((type(caught.value), str(caught.value)))
    assert errors[1] == errors[2]
    assert errors[0][0] is errors[1][0]
