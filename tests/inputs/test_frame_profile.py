"""The DuckDB engine profiles an input given as a DataFrame in Polars (issue 38, session 48):
the profile equals the one DuckDB's statement computes over the same input's view, and every
fault raises the same error as when DuckDB profiles the same rows read from a file."""

from __future__ import annotations

import math
from decimal import Decimal
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rankwise as rw
from rankwise._duckdb import engine
from rankwise.conventions import Columns
from rankwise.errors import RankwiseError

GOOD_RUN = {"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d2", "d1"], "score": [3.0, 2.0, 1.0]}
GOOD_QRELS = {"query_id": ["q1", "q2"], "doc_id": ["d1", "d1"], "relevance": [1, 0]}


def _duckdb_profile(frame: pl.DataFrame, kind: engine.Kind, columns: Columns) -> list[Any]:
    """The profile DuckDB's statement computes over ``frame``'s normalised view."""
    con = engine.session()
    try:
        raw, types, _ = engine._view(con, frame, kind, columns)
        view, _ = engine._normalise(con, raw, kind, columns, types[columns.query_id] == "integer",
                                    types[columns.doc_id] == "integer")
        return engine._profiles(con, [(0, engine._Checked(view, kind, columns))])[0]
    finally:
        con.close()


FRAMES: list[tuple[engine.Kind, pl.DataFrame]] = [
    ("run", pl.DataFrame(GOOD_RUN)),
    ("run", pl.DataFrame({"query_id": [1, 1, 2, 2], "doc_id": [7, 7, 7, 8], "score": [1, 2, 3, 4]})),
    ("run", pl.DataFrame({"query_id": ["a", None, "b"], "doc_id": ["x", "y", None],
                          "score": [float("nan"), None, math.inf]})),
    ("run", pl.DataFrame({"query_id": ["a", "a"], "doc_id": ["x", "x"], "score": [1.0, 1.0]},
                         schema_overrides={"score": pl.Float32})),
    ("qrels", pl.DataFrame(GOOD_QRELS)),
    ("qrels", pl.DataFrame({"query_id": ["a", "a", "b"], "doc_id": ["x", "x", "x"],
                            "relevance": [math.inf, -math.inf, float("nan")]})),
    ("qrels", pl.DataFrame({"query_id": ["a", "b"], "doc_id": ["x", "x"],
                            "relevance": [Decimal("1.5"), None]})),
    ("qrels", pl.DataFrame(schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64})),
]


@pytest.mark.parametrize(("kind", "frame"), FRAMES)
def test_frame_profile_is_duckdbs(kind: engine.Kind, frame: pl.DataFrame) -> None:
    columns = Columns()
    mine = engine._frame_profile(engine._Checked("unused", kind, columns, frame=frame))
    assert mine == _duckdb_profile(frame, kind, columns)


def test_duckdb_profiles_what_polars_does_not() -> None:
    """Subtopic qrels and a run with costs stay with DuckDB's statement (None here)."""
    frame = pl.DataFrame(GOOD_RUN)
    assert engine._frame_profile(engine._Checked("v", "run", Columns(cost="score"), frame=frame)) is None
    assert engine._frame_profile(engine._Checked("v", "qrels", Columns(), subtopics=True, frame=frame)) is None
    assert engine._frame_profile(engine._Checked("v", "run", Columns())) is None


FAULTS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("duplicate run pair", {**GOOD_RUN, "doc_id": ["d1", "d1", "d1"]}, GOOD_QRELS),
    ("NaN score", {**GOOD_RUN, "score": [1.0, float("nan"), 2.0]}, GOOD_QRELS),
    ("NULL doc", {**GOOD_RUN, "doc_id": ["d1", None, "d1"]}, GOOD_QRELS),
    ("NULL query", {**GOOD_RUN, "query_id": [None, "q1", "q2"]}, GOOD_QRELS),
    ("NULL score", {**GOOD_RUN, "score": [1.0, None, 2.0]}, GOOD_QRELS),
    ("infinite relevance", GOOD_RUN, {**GOOD_QRELS, "relevance": [math.inf, 0.0]}),
    ("duplicate qrels pair", GOOD_RUN, {**GOOD_QRELS, "query_id": ["q1", "q1"]}),
    ("both faulty: the run's first", {**GOOD_RUN, "score": [1.0, float("nan"), 2.0]},
     {**GOOD_QRELS, "query_id": ["q1", "q1"]}),
]


def _error(qrels: object, run: object) -> tuple[type[BaseException], str]:
    with pytest.raises(RankwiseError) as info:
        rw.evaluate(qrels, run, ["AP", "P@10"], engine="duckdb")  # type: ignore[arg-type]
    return type(info.value), str(info.value)


@pytest.mark.parametrize(("label", "run", "qrels"), FAULTS, ids=[f[0] for f in FAULTS])
def test_frame_faults_raise_as_files_do(label: str, run: dict[str, Any], qrels: dict[str, Any], tmp_path: Path) -> None:
    run_f, qrels_f = pl.DataFrame(run), pl.DataFrame(qrels)
    run_p, qrels_p = tmp_path / "run.parquet", tmp_path / "qrels.parquet"
    run_f.write_parquet(run_p)
    qrels_f.write_parquet(qrels_p)
    assert _error(qrels_f, run_f) == _error(qrels_p, run_p)
    # one given as a frame, the other as a file: the same error again
    assert _error(qrels_p, run_f) == _error(qrels_p, run_p)
    assert _error(qrels_f, run_p) == _error(qrels_p, run_p)


def test_clean_frames_run_no_check_statement(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two clean frames: no profile statement in DuckDB (the saving), and the values as before."""
    called: list[object] = []
    original = engine._profiles
    monkeypatch.setattr(engine, "_profiles", lambda *a: called.append(a) or original(*a))
    run, qrels = pl.DataFrame(GOOD_RUN), pl.DataFrame(GOOD_QRELS)
    duck = rw.evaluate(qrels, run, ["AP", "P@10"], engine="duckdb")
    assert not called
    assert duck.equals(rw.evaluate(qrels, run, ["AP", "P@10"], engine="polars"))


def test_a_hash_collision_is_no_duplicate(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fewer distinct hashes than rows (as a collision gives) sends the input to the exact
    search, which finds no repeated pair: no error."""
    original = engine._frame_profile

    def collided(one: engine._Checked) -> list[Any] | None:
        row = original(one)
        return None if row is None else [*row[:5], row[5] - 1, *row[6:]]

    monkeypatch.setattr(engine, "_frame_profile", collided)
    run, qrels = pl.DataFrame(GOOD_RUN), pl.DataFrame(GOOD_QRELS)
    assert rw.evaluate(qrels, run, ["AP"], engine="duckdb").height == 2


def test_handed_over_frame_reads_as_the_frame() -> None:
    """A DataFrame handed over as Arrow with string views reads in DuckDB as the same types and
    values as the frame registered as it is."""
    frame = pl.DataFrame({
        "s": ["a", None], "c": pl.Series(["x", "y"], dtype=pl.Categorical), "i": [1, 2],
        "u": pl.Series([1, 2], dtype=pl.UInt64), "d": [Decimal("1.5"), None],
        "f": pl.Series([1.0, float("nan")], dtype=pl.Float32), "b": [True, False],
    })
    con = engine.session()
    try:
        con.register("as_is", frame)
        con.register("handed", engine._handed_over(frame))
        as_is, handed = con.sql("SELECT * FROM as_is"), con.sql("SELECT * FROM handed")
        assert [str(t) for t in handed.types] == [str(t) for t in as_is.types]
        assert str(handed.fetchall()) == str(as_is.fetchall())
    finally:
        con.close()
    lazy = frame.lazy()
    assert engine._handed_over(lazy) is lazy
