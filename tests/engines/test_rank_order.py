"""A run already in rank order is recognised in one pass and not sorted again (the Polars engine,
:func:`rankwise._polars.ranking.in_rank_order`): the same rows in every order give the same
values, equal to trec_eval's C code (pytrec-eval-terrier), and only a run in the tie policy's
full order (score, then the doc id as the policy compares it) is taken as ordered."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import pytrec_eval
from polars.testing import assert_frame_equal

import rankwise as rw
from rankwise._polars.columns import D, Q, S
from rankwise._polars.ranking import in_rank_order
from rankwise.conventions import Conventions

METRICS = ["nDCG@10", "AP", "RR", "P@10", "R@100", "bpref", "Rprec"]
TREC = {"nDCG@10": "ndcg_cut_10", "AP": "map", "RR": "recip_rank", "P@10": "P_10", "R@100": "recall_100",
        "bpref": "bpref", "Rprec": "Rprec"}


def shuffled_inputs(int_ids: bool, seed: int = 7) -> tuple[pl.DataFrame, pl.DataFrame]:
    """40 queries x 60 documents, a third of the scores rounded so that they tie (doc ids whose
    text order differs from their numeric order: 7 to 1,500), about 12 judgments per query,
    shuffled (tests/engines/test_duckdb_rank_order.py reads them too)."""
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(40), 60)
    d = np.concatenate([rng.choice(np.arange(7, 1500), 60, replace=False) for _ in range(40)])
    score = rng.random(q.size)
    ties = rng.random(q.size) < 0.35
    score[ties] = np.round(score[ties], 1)
    run = pl.DataFrame({"query_id": q, "doc_id": d, "score": score})
    qrels = run.sample(fraction=0.2, seed=3).select(
        "query_id", "doc_id", relevance=pl.Series(rng.choice([0, 1, 2, 3], int(q.size * 0.2)))
    )
    if not int_ids:
        run = run.with_columns(pl.col("query_id", "doc_id").cast(pl.String))
        qrels = qrels.with_columns(pl.col("query_id", "doc_id").cast(pl.String))
    return run.sample(fraction=1.0, shuffle=True, seed=5), qrels


def _orders(run: pl.DataFrame) -> dict[str, tuple[pl.DataFrame, bool]]:
    """The same rows in several orders, each with whether it is trec_eval's rank order."""
    text = pl.col("doc_id").cast(pl.String)
    ranked = run.sort([pl.col("query_id"), pl.col("score"), text], descending=[False, True, True])
    interleaved = ranked.with_columns(pos=pl.int_range(pl.len()).over("query_id")).sort(
        "pos", pl.col("query_id"), maintain_order=True
    ).drop("pos")
    return {
        "shuffled": (run, False),
        "rank order": (ranked, True),
        "queries in descending order": (ranked.sort("query_id", descending=True, maintain_order=True), True),
        "ties by doc id ascending": (
            run.sort([pl.col("query_id"), pl.col("score"), text], descending=[False, True, False]), False
        ),
        "ties by the doc id's number": (
            run.sort(["query_id", "score", "doc_id"], descending=[False, True, True]), run["doc_id"].dtype == pl.String
        ),
        "queries interleaved": (interleaved, False),
    }


def pytrec_values(run: pl.DataFrame, qrels: pl.DataFrame, trec_names: Iterable[str]) -> dict[str, dict[str, float]]:
    """pytrec_eval's per-query values of the run's rows (query, doc, score) against the qrels'
    (query, doc, relevance), for trec_eval's measure names (``ndcg_cut_10`` asked as
    ``ndcg_cut.10``); tests/engines/test_duckdb_rank_order.py reads them too."""
    as_dict: dict[str, dict[str, float]] = {}
    for query, doc, score in run.iter_rows():
        as_dict.setdefault(str(query), {})[str(doc)] = float(score)
    judged: dict[str, dict[str, int]] = {}
    for query, doc, rel in qrels.iter_rows():
        judged.setdefault(str(query), {})[str(doc)] = int(rel)
    asked = {re.sub(r"_(\d+)$", r".\1", name) for name in trec_names}
    return pytrec_eval.RelevanceEvaluator(judged, asked).evaluate(as_dict)  # type: ignore[no-any-return]


def _trec(run: pl.DataFrame, qrels: pl.DataFrame) -> dict[str, dict[str, float]]:
    return pytrec_values(run, qrels, TREC.values())


def _prepared(run: pl.DataFrame) -> pl.DataFrame:
    return run.rename({"query_id": Q, "doc_id": D, "score": S})


@pytest.mark.parametrize("int_ids", [False, True], ids=["string ids", "int ids"])
def test_every_order_gives_the_shuffled_values_and_trec_evals(int_ids: bool) -> None:
    """Shuffled, in rank order, queries in descending order, ties in another order (doc id
    ascending; integer ids by number, which trec_eval's text order is not), queries interleaved:
    the same values, equal to pytrec_eval's; the check takes exactly the rank-ordered ones."""
    shuffled, qrels = shuffled_inputs(int_ids)
    want = rw.evaluate(qrels, shuffled, METRICS, engine="polars").sort("query_id")
    trec = _trec(shuffled, qrels)
    for name, (run, ordered) in _orders(shuffled).items():
        assert in_rank_order(_prepared(run), Conventions(), run["doc_id"].dtype) is ordered, name
        got = rw.evaluate(qrels, run, METRICS, engine="polars").sort("query_id")
        assert_frame_equal(got, want)
        for row in got.iter_rows(named=True):
            for metric, measure in TREC.items():
                assert row[metric] == pytest.approx(trec[str(row["query_id"])][measure], abs=1e-9), (name, metric)


def test_files_in_rank_order(tmp_path: Path) -> None:
    """A Parquet file and a TREC file written in rank order (the TREC file's ranks and tag
    columns) give the shuffled run's values."""
    shuffled, qrels = shuffled_inputs(False)
    ranked, _ = _orders(shuffled)["rank order"]
    want = rw.evaluate(qrels, shuffled, METRICS, engine="polars").sort("query_id")
    ranked.write_parquet(tmp_path / "run.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    assert_frame_equal(rw.evaluate(tmp_path / "qrels.parquet", tmp_path / "run.parquet", METRICS).sort("query_id"), want)
    lines = [
        f"{q} Q0 {d} {r} {s!r} tag"
        for q, d, s, r in ranked.with_columns(r=pl.int_range(1, pl.len() + 1).over("query_id")).iter_rows()
    ]
    (tmp_path / "run.trec").write_text("\n".join(lines) + "\n")
    got = rw.evaluate(tmp_path / "qrels.parquet", tmp_path / "run.trec", METRICS).sort("query_id")
    assert_frame_equal(got, want)


def test_float32_ties_under_trec_eval_9() -> None:
    """trec_eval 9 compares scores as 32-bit floats: a run sorted by its double scores, with two
    scores of one query closer than float precision and their doc ids in ascending order, is in
    rank order for trec_eval 10 and not for 9 (the doc id breaks their tie): each version's values
    equal those of the shuffled run."""
    run = pl.DataFrame({
        "query_id": ["q1"] * 4 + ["q2"] * 3,
        "doc_id": ["a", "b", "c", "d", "x", "y", "z"],
        "score": [0.9, 0.5 + 1e-12, 0.5, 0.1, 3.0, 2.0, 1.0],
    })
    qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "c", "y"], "relevance": [0, 1, 1]})
    for version, ordered in (("10", True), ("9", False)):
        conv = Conventions(trec_eval=version)
        assert in_rank_order(_prepared(run), conv, pl.String()) is ordered, version
        want = rw.evaluate(qrels, run.reverse(), ["RR", "AP"], trec_eval=version).sort("query_id")
        assert_frame_equal(rw.evaluate(qrels, run, ["RR", "AP"], trec_eval=version).sort("query_id"), want)
    # trec_eval 9: c (1.0 relevant) ranks above b, at rank 2; trec_eval 10: b above c
    assert rw.evaluate(qrels, run, ["RR"], trec_eval="9").sort("query_id")["RR"].to_list() == [0.5, 0.5]
    assert rw.evaluate(qrels, run, ["RR"]).sort("query_id")["RR"].to_list() == [1 / 3, 0.5]


@pytest.mark.parametrize("ties", ["doc_asc", "doc_desc_numeric", "input", "optimistic", "pessimistic"])
def test_other_tie_policies(ties: str) -> None:
    """Each tie policy's own full order is the one checked (``input``: any score-sorted run is in
    its order; ``optimistic``/``pessimistic`` order ties by relevance, which the run does not
    hold: never taken as ordered): the run in the policy's order gives the values of the DuckDB
    engine on the same rows."""
    shuffled, qrels = shuffled_inputs(True)
    text = pl.col("doc_id").cast(pl.String)
    second = {"doc_asc": (text, False), "doc_desc_numeric": (pl.col("doc_id"), True)}.get(ties, (text, True))
    run = shuffled.sort([pl.col("query_id"), pl.col("score"), second[0]], descending=[False, True, second[1]])
    expected = ties not in ("optimistic", "pessimistic")
    assert in_rank_order(_prepared(run), Conventions(ties=ties), pl.Int64()) is expected  # type: ignore[arg-type]
    got = rw.evaluate(qrels, run, METRICS, engine="polars", ties=ties).sort("query_id")
    assert_frame_equal(got, rw.evaluate(qrels, run, METRICS, engine="duckdb", ties=ties).sort("query_id"),
                       check_dtypes=False)


def test_bad_rows_in_an_ordered_run_raise_as_before() -> None:
    """A NULL score or a document listed twice in a run otherwise in rank order: the same error
    as in any order (the run is sorted as before; the data checks name the value)."""
    run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    null_score = run.with_columns(score=pl.Series([3.0, None, 1.0]))
    assert not in_rank_order(_prepared(null_score), Conventions(), pl.String())
    with pytest.raises(rw.errors.InvalidValueError, match="score"):
        rw.evaluate(qrels, null_score, ["AP"])
    twice = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "b"], "score": [3.0, 2.0, 1.0]})
    with pytest.raises(rw.errors.DuplicateDocumentError):
        rw.evaluate(qrels, twice, ["AP"])


def test_a_run_in_rank_order_of_several_groups() -> None:
    """More run rows than one query group holds (500,000): the run in rank order is cut into
    slices at query starts, the judgments split by their query's slice (a judged query the run
    lacks in one of them, scored 0 with ``missing='zero'``); the values equal the shuffled run's (to the last bits: the groups'
    sums run in another order, as between ``query_chunks`` settings)."""
    rng = np.random.default_rng(11)
    q = np.repeat(np.arange(6_000), 100)
    run = pl.DataFrame({
        "query_id": q, "doc_id": np.tile(np.arange(100), 6_000) * 31 + rng.integers(0, 31, q.size),
        "score": np.round(rng.random(q.size), 2),
    }).with_columns(pl.col("query_id", "doc_id").cast(pl.String))
    qrels = pl.concat([
        run.sample(n=60_000, seed=1).select("query_id", "doc_id", relevance=pl.lit(1, pl.Int64)),
        pl.DataFrame({"query_id": ["absent"], "doc_id": ["1"], "relevance": [1]}),
    ])
    shuffled = run.sample(fraction=1.0, shuffle=True, seed=2)
    ranked = run.sort([pl.col("query_id"), pl.col("score"), pl.col("doc_id")], descending=[False, True, True])
    assert in_rank_order(_prepared(ranked), Conventions(), pl.String())
    with pytest.warns(rw.errors.RankwiseWarning, match="1 judged query is not in the run"):
        want = rw.evaluate(qrels, shuffled, METRICS, engine="polars", missing="zero").sort("query_id")
    with pytest.warns(rw.errors.RankwiseWarning, match="1 judged query is not in the run"):
        got = rw.evaluate(qrels, ranked, METRICS, engine="polars", missing="zero").sort("query_id")
    assert got.height == 6_001
    assert_frame_equal(got, want, check_exact=False, rel_tol=0, abs_tol=1e-12)


def test_an_evaluator_s_runs_in_either_order() -> None:
    """An Evaluator (the judgments' side kept between runs) gives a run in rank order and the
    same run shuffled the same values, in either sequence."""
    shuffled, qrels = shuffled_inputs(False)
    ranked, _ = _orders(shuffled)["rank order"]
    ev = rw.Evaluator(qrels, METRICS)
    first, second, third = ev.evaluate(ranked), ev.evaluate(shuffled), ev.evaluate(ranked)
    want = rw.evaluate(qrels, shuffled, METRICS).sort("query_id")
    for got in (first, second, third):
        assert_frame_equal(got.sort("query_id"), want)
