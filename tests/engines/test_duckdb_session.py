"""The DuckDB engine's per-thread database: evaluations without a ``config`` share one
database per thread (a cursor each), leave nothing behind, and stay independent across threads."""

from __future__ import annotations

import threading

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankwise as rw

RUN = pl.DataFrame({
    "query_id": ["q1", "q1", "q1", "q2", "q2"],
    "doc_id": ["a", "b", "c", "a", "d"],
    "score": [3.0, 2.0, 1.0, 1.0, 2.0],
})
QRELS = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["b", "c", "a"], "relevance": [1, 2, 1]})
METRICS = ["nDCG@10", "AP", "RR", "P@10", "R@100"]


def test_evaluations_reuse_the_threads_database_and_leave_nothing() -> None:
    from rankwise._duckdb import engine

    first = rw.evaluate(QRELS, RUN, METRICS, engine="duckdb")
    db = engine._sessions.con
    assert db is not None
    again = rw.evaluate(QRELS, RUN, METRICS, engine="duckdb")
    assert engine._sessions.con is db
    assert_frame_equal(first, again)
    assert_frame_equal(first, rw.evaluate(QRELS, RUN, METRICS), check_exact=False, abs_tol=1e-12)
    # the cursors' views, tables and registered frames went with them; the settings are back
    temp = db.sql("SELECT count(*) FROM duckdb_views() WHERE NOT internal AND view_name LIKE 'rw_%'").fetchall()
    assert temp == [(0,)]
    assert db.sql("SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE 'rw_%'").fetchall() == [(0,)]
    threads = db.sql("SELECT current_setting('threads')").fetchall()[0][0]
    rw.evaluate(QRELS, RUN, METRICS, engine="duckdb")
    assert db.sql("SELECT current_setting('threads')").fetchall()[0][0] == threads


def test_a_failed_evaluation_leaves_the_database_usable() -> None:
    dup = pl.concat([RUN, RUN.head(1)])
    with pytest.raises(rw.DuplicateDocumentError):
        rw.evaluate(QRELS, dup, METRICS, engine="duckdb")
    assert rw.evaluate(QRELS, RUN, ["AP"], engine="duckdb")["AP"].to_list() == [(1 / 2 + 2 / 3) / 2, 0.5]


def test_threads_evaluate_side_by_side() -> None:
    expected = rw.evaluate(QRELS, RUN, METRICS, engine="duckdb")
    results: list[pl.DataFrame] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(5):
                results.append(rw.evaluate(QRELS, RUN, METRICS, engine="duckdb"))
        except BaseException as exc:
            errors.append(exc)

    workers = [threading.Thread(target=work) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors
    assert len(results) == 20
    for got in results:
        assert_frame_equal(got, expected)


def test_a_config_gets_a_database_of_its_own() -> None:
    from rankwise._duckdb import engine

    rw.evaluate(QRELS, RUN, ["AP"], engine="duckdb")
    db = engine._sessions.con
    out = rw.evaluate(QRELS, RUN, ["AP"], engine="duckdb", duckdb_config={"threads": 1})
    assert out["AP"].to_list() == rw.evaluate(QRELS, RUN, ["AP"], engine="duckdb")["AP"].to_list()
    assert engine._sessions.con is db


def test_the_checks_keep_the_thread_count_on_small_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    import contextlib
    from collections.abc import Iterator

    from rankwise._duckdb import engine

    asked: list[bool] = []
    original = engine._check_threads

    @contextlib.contextmanager
    def spy(con: object, raise_threads: bool) -> Iterator[None]:
        asked.append(raise_threads)
        with original(con, raise_threads):  # type: ignore[arg-type]
            yield

    monkeypatch.setattr(engine, "_check_threads", spy)
    rw.evaluate(QRELS, RUN, ["AP"], engine="duckdb")  # frames: their heights are known
    rw.evaluate(QRELS.lazy(), RUN.lazy(), ["AP"], engine="duckdb")  # tables: their row counts
    monkeypatch.setattr(engine, "CHECK_THREADS_MIN_ROWS", 3)
    rw.evaluate(QRELS, RUN, ["AP"], engine="duckdb")
    assert asked == [False, False, True]


def test_the_database_is_closed_after_large_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    """After large inputs the database would keep the memory it used: it is closed, and the
    next evaluation opens another."""
    from rankwise._duckdb import engine

    expected = rw.evaluate(QRELS, RUN, METRICS, engine="duckdb")
    assert engine._sessions.con is not None
    monkeypatch.setattr(engine, "CHECK_THREADS_MIN_ROWS", 3)
    assert_frame_equal(rw.evaluate(QRELS, RUN, METRICS, engine="duckdb"), expected)
    assert engine._sessions.con is None
    monkeypatch.undo()
    assert_frame_equal(rw.evaluate(QRELS, RUN, METRICS, engine="duckdb"), expected)
    assert engine._sessions.con is not None
