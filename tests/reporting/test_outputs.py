"""Outputs are written whole or not at all, with clear errors; TREC output in trec_eval's
order and never an unparseable line. Real files, real subprocesses, real signals."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

import rankwise as rw
from rankwise.cli.trec_writer import to_trec
from rankwise.errors import InvalidValueError, OutputError
from rankwise.outputs.files import atomic_path, atomic_paths, write_lines_atomic, write_text_atomic
from tests.cli.test_cli_faults import AS_ROOT, QRELS, RUN, big_run, cli, error_line


def leftovers(folder: Path) -> list[str]:
    """Temporary files left in a folder (there must be none)."""
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# --------------------------------------------------------------------------- the writer


def test_atomic_path_replaces_the_target_only_when_complete(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("previous\n")
    with atomic_path(target) as tmp:
        assert tmp.parent == tmp_path and tmp.name.startswith(".out.txt.") and tmp.name.endswith(".tmp")
        tmp.write_text("new, half")
        assert target.read_text() == "previous\n"  # untouched while the new one is written
        tmp.write_text("new, complete\n")
    assert target.read_text() == "new, complete\n"
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("exc", [ValueError("bad"), KeyboardInterrupt(), SystemExit(143)])
@pytest.mark.parametrize("existed", [True, False])
def test_atomic_path_removes_the_temporary_file_on_any_exception(
    tmp_path: Path, exc: BaseException, existed: bool,
) -> None:
    target = tmp_path / "out.txt"
    if existed:
        target.write_text("previous\n")
    with pytest.raises(type(exc)), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise exc
    if existed:
        assert target.read_text() == "previous\n"
    else:
        assert not target.exists()
    assert leftovers(tmp_path) == []


def test_atomic_paths_replace_all_targets_or_none(tmp_path: Path) -> None:
    a, b = tmp_path / "a.html", tmp_path / "a.md"
    a.write_text("old a")
    with pytest.raises(RuntimeError), atomic_paths([a, b]) as (ta, tb):
        ta.write_text("new a")
        raise RuntimeError("failed before b was written")
    assert a.read_text() == "old a" and not b.exists()
    with atomic_paths([a, b]) as (ta, tb):
        ta.write_text("new a")
        tb.write_text("new b")
    assert (a.read_text(), b.read_text()) == ("new a", "new b")
    assert leftovers(tmp_path) == []


def test_permissions_follow_the_replaced_file_or_the_umask(tmp_path: Path) -> None:
    old = tmp_path / "kept.txt"
    old.write_text("x")
    old.chmod(0o640)
    write_text_atomic(old, "y")
    assert stat.S_IMODE(old.stat().st_mode) == 0o640
    umask = os.umask(0o022)
    os.umask(umask)
    write_text_atomic(tmp_path / "new.txt", "z")
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o666 & ~umask


def test_a_symbolic_link_is_written_through(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "out.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_text_atomic(link, "new")
    assert link.is_symlink() and real.read_text() == "new"
    assert leftovers(tmp_path) == leftovers(tmp_path / "real") == []


def test_lines_are_written_as_they_come(tmp_path: Path) -> None:
    target = tmp_path / "lines.txt"

    def lines() -> Iterator[str]:
        yield "one\n"
        assert not target.exists()  # written to the temporary file meanwhile
        yield "two\n"

    write_lines_atomic(target, lines())
    assert target.read_text() == "one\ntwo\n"


def test_faults_are_output_errors_naming_the_target(tmp_path: Path) -> None:
    cases = {
        tmp_path / "missing" / "out.txt": "the folder",
        tmp_path: "it is a directory",
        Path("/dev/full"): "no space left on device",
        Path("/proc/version"): "no file can be created in '/proc'",
    }
    for target, reason in cases.items():
        with pytest.raises(OutputError) as info:
            write_text_atomic(target, "some text\n")
        assert str(info.value).startswith(f"cannot write {str(target)!r}: "), info.value
        assert reason in str(info.value)
        assert isinstance(info.value, OSError) and isinstance(info.value, rw.RankwiseError)
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match="is not a folder"):
        write_text_atomic(tmp_path / "file" / "out.txt", "y")
    assert leftovers(tmp_path) == []


@pytest.mark.skipif(AS_ROOT, reason="root may write read-only files")
def test_a_read_only_file_is_not_replaced(tmp_path: Path) -> None:
    target = tmp_path / "locked.txt"
    target.write_text("keep me")
    target.chmod(0o444)
    with pytest.raises(OutputError, match="permission denied"):
        write_text_atomic(target, "new")
    assert target.read_text() == "keep me"


def test_devices_are_written_in_place_not_replaced() -> None:
    write_text_atomic("/dev/null", "discarded\n")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)  # still the device


def _limit_file_size(limit: int) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


@pytest.mark.parametrize("fmt", ["csv", "trec", "parquet"])
def test_a_disk_that_fills_up_leaves_the_previous_file(tmp_path: Path, fmt: str) -> None:
    """A regular file on a file system that fills up mid-write (simulated by a file-size limit:
    writes past it fail with EFBIG): one error line naming the target, the previous file
    untouched, no temporary file left."""
    target = tmp_path / f"out.{fmt}"
    target.write_text("previous\n")
    out = subprocess.run(
        [sys.executable, "-m", "rankwise.cli", "eval", str(QRELS), str(RUN), "-q", "--format", fmt, "-o", str(target)],
        capture_output=True, text=True, timeout=300, preexec_fn=lambda: _limit_file_size(20_000),
    )
    line = error_line(out)
    assert line.startswith(f"rankwise: error: cannot write {str(target)!r}: file too large")
    assert target.read_text() == "previous\n"
    assert leftovers(tmp_path) == []


# ---------------------------------------------------------------- every output, every command


def test_every_output_is_complete_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    per_query = rw.evaluate(QRELS, RUN, ["AP", "nDCG@10"])
    base = ["eval", QRELS, RUN, "-m", "AP", "-m", "nDCG@10", "-q"]
    for fmt in ("table", "csv", "json", "trec", "parquet"):
        target = tmp_path / f"eval.{fmt}"
        target.write_text("previous\n")
        out = cli(*base, "--format", fmt, "-o", target)
        assert out.returncode == 0 and out.stdout == "", out.stderr
        if fmt == "parquet":
            assert pl.read_parquet(target).equals(per_query)
        elif fmt == "csv":
            assert pl.read_csv(target)["query_id"].to_list() == per_query["query_id"].to_list()
        elif fmt == "json":
            assert pl.read_json(target).height == per_query.height
        else:
            stdout = cli(*base, "--format", fmt)
            assert target.read_text() == stdout.stdout
    reversed_run = tmp_path / "reversed.parquet"
    pl.read_parquet(RUN).with_columns(score=-pl.col("score")).write_parquet(reversed_run)
    out = cli("compare", QRELS, RUN, reversed_run, "-m", "AP", "--format", "csv", "-o", tmp_path / "compare.csv",
              "--report", tmp_path / "report.html", "--plot", tmp_path / "figures")
    assert out.returncode == 0, out.stderr
    assert pl.read_csv(tmp_path / "compare.csv").select("run", "baseline").rows() == [("reversed", "run")]
    html = (tmp_path / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and html.endswith("</html>")
    assert (tmp_path / "report.md").read_text().startswith("| run |")
    assert (tmp_path / "report.tex").read_text().endswith("\\end{tabular}\n\\end{table}\n")
    figures = sorted(p.name for p in (tmp_path / "figures").iterdir())
    assert figures == ["difference_AP_reversed.png", "distribution_AP.png", "precision_recall.png"]
    for name in figures:
        assert (tmp_path / "figures" / name).read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert leftovers(tmp_path / "figures") == []
    out = cli("explain", QRELS, RUN, "-m", "AP", "-q", "q002", "--format", "json", "-o", tmp_path / "explain.json")
    assert out.returncode == 0, out.stderr
    assert pl.read_json(tmp_path / "explain.json").height > 0
    assert leftovers(tmp_path) == []


def test_report_into_a_missing_folder_writes_nothing(tmp_path: Path) -> None:
    runs = {"run": RUN, "same": RUN}
    with pytest.raises(OutputError, match="does not exist"):
        rw.report(QRELS, runs, ["AP"], tmp_path / "missing" / "report.html")
    (tmp_path / "report.md").mkdir()  # in the way of the second of the three files
    with pytest.raises(OutputError, match=r"report\.md': it is a directory"):
        rw.report(QRELS, runs, ["AP"], tmp_path / "report.html")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]  # not even the HTML


def test_figures_are_saved_whole(tmp_path: Path) -> None:
    fig = rw.plots.score_distribution(QRELS, {"run": RUN}, "AP", path=tmp_path / "dist.svg")
    assert (tmp_path / "dist.svg").read_text().lstrip().startswith("<?xml")
    assert rw.plots.save(fig, tmp_path / "no_extension") == tmp_path / "no_extension.png"
    assert (tmp_path / "no_extension.png").read_bytes().startswith(b"\x89PNG")
    with pytest.raises(OutputError, match="does not exist"):
        rw.plots.save(fig, tmp_path / "missing" / "fig.png")
    assert leftovers(tmp_path) == []


# ----------------------------------------------------------------------------- TREC output


def test_trec_output_lists_queries_in_trec_eval_s_text_order() -> None:
    per_query = pl.DataFrame({"query_id": [9, 10, 2, 100], "map": [0.1, 0.2, 0.3, 0.4]})
    lines = [ln.split() for ln in to_trec(per_query, runid="r").splitlines()]
    assert [q for _, q, _ in lines] == ["10", "100", "2", "9", "all", "all", "all"]
    as_text = per_query.with_columns(pl.col("query_id").cast(pl.String))
    assert to_trec(as_text, runid="r") == to_trec(per_query, runid="r")
    assert to_trec(per_query.reverse()) == to_trec(per_query)


def test_cli_trec_order_with_integer_ids(tmp_path: Path) -> None:
    run = pl.read_parquet(RUN).with_columns(pl.col("query_id").str.slice(1).cast(pl.Int64))
    qrels = pl.read_parquet(QRELS).with_columns(pl.col("query_id").str.slice(1).cast(pl.Int64))
    run.write_parquet(tmp_path / "run.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    out = cli("eval", tmp_path / "qrels.parquet", tmp_path / "run.parquet", "-m", "map", "-q", "--format", "trec")
    assert out.returncode == 0, out.stderr
    ids = [ln.split("\t")[1] for ln in out.stdout.splitlines() if ln.split("\t")[1] != "all"]
    assert ids == sorted(ids) and ids[:3] == ["1", "10", "100"]  # strcmp order, not numeric


@pytest.mark.parametrize("bad", ["q 1", "q\t1", "q\n1", "q\r1", "q\u00a01", "q\u20031", "q\x1c1", ""])
def test_trec_output_refuses_ids_it_cannot_hold(bad: str) -> None:
    per_query = pl.DataFrame({"query_id": ["q0", bad, "q2"], "map": [0.1, 0.2, 0.3]})
    with pytest.raises(InvalidValueError) as info:
        to_trec(per_query)
    assert repr(bad) in str(info.value)
    assert "TREC output cannot hold the query id" in str(info.value)


def test_trec_output_refuses_a_run_id_with_whitespace() -> None:
    per_query = pl.DataFrame({"query_id": ["q1"], "map": [0.5]})
    for runid in ("my run", "tab\there", "new\nline", ""):
        with pytest.raises(InvalidValueError, match="TREC output cannot hold the run id"):
            to_trec(per_query, runid=runid)
    assert to_trec(per_query, runid="my_run").splitlines()[-3].split() == ["runid", "all", "my_run"]


def test_cli_trec_refuses_ids_with_whitespace_and_writes_nothing(tmp_path: Path) -> None:
    run = pl.read_parquet(RUN).with_columns(pl.col("query_id").str.replace("q00", "query 00"))
    qrels = pl.read_parquet(QRELS).with_columns(pl.col("query_id").str.replace("q00", "query 00"))
    run.write_parquet(tmp_path / "run.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    target = tmp_path / "out.trec"
    line = error_line(cli("eval", tmp_path / "qrels.parquet", tmp_path / "run.parquet", "-q", "--format", "trec", "-o", target))
    assert "TREC output cannot hold the query id 'query 001'" in line
    assert not target.exists() and leftovers(tmp_path) == []
    assert cli("eval", tmp_path / "qrels.parquet", tmp_path / "run.parquet", "--format", "csv").returncode == 0
    # a run id taken from a file name holding a space: the whitespace becomes '_'
    (tmp_path / "my run.parquet").write_bytes(RUN.read_bytes())
    done = cli("eval", QRELS, tmp_path / "my run.parquet", "--format", "trec")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].split() == ["runid", "all", "my_run"]


# ------------------------------------------------------------------ interrupted mid-write

METRICS = ("-m", "runid", "-m", "num_q", "-m", "map", "-m", "P.5,10", "-m", "ndcg_cut.10", "-m", "recip_rank")
QUERIES = 200_000
LINES = QUERIES * 5 + 2 + 5  # per-query lines, runid and num_q, the summary lines


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, bytes]:
    """200k queries, and the complete TREC output of their evaluation."""
    folder = tmp_path_factory.mktemp("big")
    run, qrels = big_run(folder, QUERIES)
    reference = folder / "reference.trec"
    out = cli("eval", qrels, run, *METRICS, "-q", "--format", "trec", "-o", reference)
    assert out.returncode == 0, out.stderr
    data = reference.read_bytes()
    lines = data.decode().splitlines()
    assert len(lines) == LINES and all(len(ln.split()) == 3 for ln in lines)
    return run, qrels, data


def _wait_for_temporary_file(proc: subprocess.Popen[str], folder: Path, size: int) -> bool:
    """Wait until a temporary file of at least ``size`` bytes is in the folder (True), or the
    process ended (False)."""
    while proc.poll() is None:
        for p in folder.iterdir():
            if p.name.endswith(".tmp"):
                try:
                    if p.stat().st_size >= size:
                        return True
                except FileNotFoundError:
                    pass
        time.sleep(0.002)
    return False


@pytest.mark.parametrize(
    ("moment", "signum", "previous"),
    [
        ("0.2", signal.SIGTERM, False),
        ("0.5", signal.SIGTERM, False),
        ("1", signal.SIGTERM, False),
        ("2", signal.SIGTERM, False),
        ("writing", signal.SIGTERM, False),
        ("written 5MB", signal.SIGTERM, False),
        ("1", signal.SIGTERM, True),
        ("writing", signal.SIGTERM, True),
        ("written 5MB", signal.SIGINT, True),
    ],
)
def test_a_signal_never_leaves_a_half_written_file(
    tmp_path: Path, big: tuple[Path, Path, bytes], moment: str, signum: int, previous: bool,
) -> None:
    """SIGTERM (or Ctrl-C) at some moment of `rankwise eval -q --format trec -o FILE`, a fresh
    process each time: FILE is then absent (or the previous one, untouched) or complete, and no
    temporary file is left."""
    run, qrels, complete = big
    target = tmp_path / "out.trec"
    if previous:
        target.write_text("the previous output\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "rankwise.cli", "eval", str(qrels), str(run), *METRICS, "-q", "--format", "trec",
         "-o", str(target)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    if moment == "writing":
        assert _wait_for_temporary_file(proc, tmp_path, 0), "no temporary file was seen"
    elif moment.startswith("written"):
        assert _wait_for_temporary_file(proc, tmp_path, 5_000_000), "no temporary file was seen"
    else:
        time.sleep(float(moment))
    proc.send_signal(signum)
    _out, err = proc.communicate(timeout=300)
    expected = {0, 128 + signum, -signum}  # done already; stopped by rankwise; stopped while starting
    assert proc.returncode in expected, err
    assert "Traceback" not in err, err
    assert leftovers(tmp_path) == []
    if target.exists():
        data = target.read_bytes()
        assert data == complete or (previous and data == b"the previous output\n"), (
            f"half-written: {len(data)} of {len(complete)} bytes"
        )
    else:
        assert not previous, "the previous output was removed"
    if proc.returncode == 0:
        assert target.read_bytes() == complete


def test_dev_stdout_into_a_pipe_is_written_in_place() -> None:
    """`-o /dev/stdout` when standard output is a pipe: the link leads to a pipe, written through."""
    done = cli("eval", QRELS, RUN, "-m", "AP", "--format", "csv", "-o", "/dev/stdout")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "AP"


def test_a_signal_sent_while_deferred_is_delivered_after_even_with_other_threads() -> None:
    """The few system calls that must not be split (a temporary file created and noted, a
    rename) hold SIGTERM back even when another thread is there to take it (as Polars' and
    DuckDB's workers are): its handler runs right after them, not between them (a SIGTERM
    there left a temporary file behind)."""
    import threading

    from rankwise.outputs import files

    class StoppedError(Exception):
        pass

    def handler(signum: int, frame: object) -> None:
        raise StoppedError

    previous = signal.signal(signal.SIGTERM, handler)
    finished_inside = False
    try:
        with pytest.raises(StoppedError), files._signals_deferred():
            sender = threading.Thread(target=os.kill, args=(os.getpid(), signal.SIGTERM))
            sender.start()
            sender.join()
            time.sleep(0.1)  # the handler would have run by now
            finished_inside = True
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert finished_inside
