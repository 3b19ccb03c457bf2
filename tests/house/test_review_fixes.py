"""What a review of issue 32's change found, each fixed and kept fixed: the memory check reads a
container's page cache as free, the argument checks take what the functions always took,
judged queries a segmented run lacks are said."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import rankwise as rw
from rankwise.inputs.faults import _cgroup_room

QRELS = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "relevance": [1, 0, 1]})
RUN = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [1.0, 2.0, 1.0]})


@pytest.mark.parametrize("version", [1, 2])
def test_a_container_s_page_cache_counts_as_room(tmp_path: Path, version: int) -> None:
    # a 4 GiB cgroup whose usage of 3.95 GiB is 3.5 GiB of page cache: 3.55 GiB of room, not 0.05
    gib = 2**30
    proc = tmp_path / "cgroup"
    if version == 2:
        proc.write_text("0::/box\n")
        folder = tmp_path / "box"
        folder.mkdir()
        (folder / "memory.max").write_text(f"{4 * gib}\n")
        (folder / "memory.current").write_text(f"{int(3.95 * gib)}\n")
        (folder / "memory.stat").write_text(f"anon {int(0.45 * gib)}\nfile {int(3.5 * gib)}\n")
    else:
        proc.write_text("5:memory:/box\n")
        folder = tmp_path / "memory" / "box"
        folder.mkdir(parents=True)
        (folder / "memory.limit_in_bytes").write_text(f"{4 * gib}\n")
        (folder / "memory.usage_in_bytes").write_text(f"{int(3.95 * gib)}\n")
        (folder / "memory.stat").write_text(f"cache 1\ntotal_cache {int(3.5 * gib)}\n")
    room, limit = _cgroup_room(proc, tmp_path)  # type: ignore[misc]
    assert limit == 4 * gib and room == 4 * gib - int(3.95 * gib) + int(3.5 * gib)
    # without a limit: nothing to check against
    (folder / ("memory.max" if version == 2 else "memory.limit_in_bytes")).write_text("max\n" if version == 2 else f"{2**63 - 4096}\n")
    assert _cgroup_room(proc, tmp_path) is None


def test_the_argument_checks_take_what_the_functions_always_took() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        # a numpy string for a choice, a numpy array or a set for a list of tests
        assert rw.evaluate(QRELS, RUN, ["RR"], ties=np.str_("doc_asc"))["RR"].to_list() == [0.5, 1.0]
        for tests in (np.array(["t"]), {"t"}, pl.Series(["t"])):
            assert rw.compare(QRELS, {"a": RUN, "b": RUN}, "RR", tests=tests)["ties"].to_list() == [2]  # type: ignore[arg-type]
        # a lazy frame of per-query values gives a lazy summary
        per_query = pl.DataFrame({"query_id": ["a", "b"], "AP": [0.5, 0.0]})
        assert rw.summarize(per_query.lazy()).collect()["AP"].to_list() == [0.25]
    # a pair given as a list
    pytest.importorskip("matplotlib")
    from rankwise.reporting.plots import difference_plot

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        figure = difference_plot(QRELS, RUN, RUN, "RR", names=["x", "y"])
    assert "y − x" in figure.axes[0].get_title()
    with pytest.raises(rw.InvalidParameterError, match=r"tests must be a list of test names, e.g. \['t'\]"):
        rw.compare(QRELS, {"a": RUN, "b": RUN}, "RR", tests="t")  # type: ignore[arg-type]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_judged_queries_a_segmented_run_lacks_are_said(engine: str) -> None:
    qrels = pl.DataFrame({"query_id": ["1", "2", "3"], "doc_id": ["a", "b", "c"], "relevance": [1, 1, 1]})
    run = pl.DataFrame({"query_id": ["1", "2"], "doc_id": ["a", "b"], "score": [1.0, 1.0], "seg": ["x", "y"]})
    for missing in ("ignore", "zero"):
        with pytest.warns(rw.RankwiseWarning, match=r"1 judged query is not in the run: left out \(a query the run lacks is in none of the by= segments"):
            got = rw.evaluate(qrels, run, ["RR"], by="seg", engine=engine, missing=missing)  # type: ignore[arg-type]
        assert got.rows() == [("x", "1", 1.0), ("y", "2", 1.0)]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_the_near_miss_look_reads_a_lazy_pipeline_as_given(engine: str) -> None:
    # a caller's pipeline whose documents differ in case: the warning comes, the values stand
    docs = [f"DOC-{i}" for i in range(20)]
    base = pl.LazyFrame({"query_id": ["q1"] * 20, "doc_id": docs, "score": [float(-i) for i in range(20)]})
    run = base.join(pl.LazyFrame({"query_id": ["q1"]}), on="query_id")
    qrels = pl.DataFrame({"query_id": ["q1"] * 20, "doc_id": [d.lower() for d in docs], "relevance": [1] * 20})
    with pytest.warns(rw.RankwiseWarning, match="would be after trimming spaces, folding case"):
        got = rw.evaluate(pl.concat([qrels, pl.DataFrame({"query_id": ["q1"], "doc_id": ["DOC-0"], "relevance": [0]})]),
                          run, ["AP"], engine=engine)  # type: ignore[arg-type]
    assert got["AP"].to_list() == [0.0]
