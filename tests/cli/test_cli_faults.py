"""Every fault of the command line is one line on stderr and exit code 2, never a traceback
(``--debug`` shows it); Ctrl-C exits with 130. Real files, real subprocesses."""

from __future__ import annotations

import gzip
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

import rankwise as rw
from rankwise.cli import commands as rankwise_cli
from tests.cli.test_cli import SAMPLE_EVAL_NOTE

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "examples" / "data" / "run.parquet"
QRELS = ROOT / "examples" / "data" / "qrels.parquet"
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def cli(*args: str | Path, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rankwise.cli", *map(str, args)],
        capture_output=True, text=True, timeout=300, **kw,  # type: ignore[call-overload]
    )


def error_line(out: subprocess.CompletedProcess[str]) -> str:
    """The one error line of a failed command (warning lines aside), after checking the exit
    code and that no traceback reached stderr."""
    assert "Traceback" not in out.stderr, out.stderr
    lines = [ln for ln in out.stderr.splitlines() if ln.strip() and not ln.startswith("rankwise: warning:")]
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("rankwise: error: "), out.stderr
    assert out.returncode == 2, out.stderr
    return lines[0]


def big_run(folder: Path, queries: int, docs: int = 10) -> tuple[Path, Path]:
    """A generated run (``queries`` x ``docs`` rows) and its qrels, as Parquet."""
    n = queries * docs
    row = pl.int_range(0, n)
    run = pl.select(
        query_id=pl.format("q{}", row // docs),
        doc_id=pl.format("d{}", row % 37),
        score=(row * 7919 % 1000).cast(pl.Float64),
    )
    qrels = run.filter(pl.int_range(0, n) % 3 == 0).select("query_id", "doc_id", relevance=pl.lit(1))
    run_path, qrels_path = folder / "big_run.parquet", folder / "big_qrels.parquet"
    run.write_parquet(run_path)
    qrels.write_parquet(qrels_path)
    return run_path, qrels_path


# ---------------------------------------------------------------------------------- inputs


def trec_text(frame: pl.DataFrame) -> str:
    return "".join(f"{q} Q0 {d} 1 {s} tag\n" for q, d, s in frame.iter_rows())


def test_truncated_gzip_trec_run(tmp_path: Path) -> None:
    data = gzip.compress(trec_text(pl.read_parquet(RUN)).encode())
    path = tmp_path / "run.trec.gz"
    path.write_bytes(data[: len(data) // 2])
    line = error_line(cli("eval", QRELS, path, "-m", "AP"))
    assert "run.trec.gz" in line


def test_corrupt_parquet(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.parquet"
    path.write_bytes(os.urandom(5000))
    line = error_line(cli("eval", QRELS, path, "-m", "AP"))
    assert "corrupt.parquet" in line


def test_truncated_parquet(tmp_path: Path) -> None:
    data = RUN.read_bytes()
    path = tmp_path / "half.parquet"
    path.write_bytes(data[: len(data) // 2])
    line = error_line(cli("eval", QRELS, path, "-m", "AP"))
    assert "half.parquet" in line


def test_empty_parquet_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.parquet"
    path.write_bytes(b"")
    line = error_line(cli("eval", path, RUN, "-m", "AP"))  # as the qrels, this time
    assert "empty.parquet" in line


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_bytes(b"")
    line = error_line(cli("eval", QRELS, path, "-m", "AP"))
    assert "run.txt" in line


def test_folder_of_mixed_formats(tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    run = pl.read_parquet(RUN)
    run.head(10_000).write_parquet(folder / "part-0.parquet")
    run.tail(9_900).write_csv(folder / "part-1.csv")
    line = error_line(cli("eval", QRELS, folder, "-m", "AP"))
    assert "exports" in line


@pytest.mark.skipif(AS_ROOT, reason="as root, chmod 000 does not stop reading (see the next test)")
def test_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "locked.parquet"
    shutil.copy(RUN, path)
    path.chmod(0)
    try:
        line = error_line(cli("eval", QRELS, path, "-m", "AP"))
    finally:
        path.chmod(0o644)
    assert "locked.parquet" in line


def test_unreadable_input_even_as_root(tmp_path: Path) -> None:
    """What root cannot read either: /proc/self/mem (reading its start fails with EIO), and a
    directory where a file is expected (a folder named like a Parquet file, holding no file)."""
    line = error_line(cli("eval", QRELS, "/proc/self/mem", "-m", "AP"))
    assert "/proc/self/mem" in line
    folder = tmp_path / "run.parquet"
    (folder / "empty-subfolder").mkdir(parents=True)
    line = error_line(cli("eval", QRELS, folder, "-m", "AP"))
    assert "run.parquet" in line


def test_file_name_with_glob_characters_is_that_file(tmp_path: Path) -> None:
    """`run[1].parquet`, an existing file, is read as that file, not as a glob (which would
    match `run1.parquet`)."""
    shutil.copy(RUN, tmp_path / "run[1].parquet")
    pl.read_parquet(RUN).head(50).write_parquet(tmp_path / "run1.parquet")  # what the glob matches
    out = cli("eval", QRELS, tmp_path / "run[1].parquet", "-m", "AP", "-m", "NumQ", "--format", "csv")
    assert out.returncode == 0, out.stderr
    got = pl.read_csv(out.stdout.encode())
    expected = rw.summarize(rw.evaluate(QRELS, RUN, ["AP", "NumQ"]))
    assert got["NumQ"][0] == expected["NumQ"][0] == 199
    assert got["AP"][0] == pytest.approx(expected["AP"][0], abs=1e-12)


# --------------------------------------------------------------------------------- outputs


def test_output_into_a_missing_folder(tmp_path: Path) -> None:
    target = tmp_path / "nope" / "out.csv"
    line = error_line(cli("eval", QRELS, RUN, "-m", "AP", "--format", "csv", "-o", target))
    assert str(target) in line and "does not exist" in line
    assert not (tmp_path / "nope").exists()


def test_output_onto_an_existing_directory(tmp_path: Path) -> None:
    (tmp_path / "out.csv").mkdir()
    line = error_line(cli("eval", QRELS, RUN, "-m", "AP", "--format", "csv", "-o", tmp_path / "out.csv"))
    assert "out.csv" in line and "directory" in line
    assert list((tmp_path / "out.csv").iterdir()) == []
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]


def test_output_where_nothing_can_be_written(tmp_path: Path) -> None:
    """A read-only place: /proc (even root cannot create a file there), and, as another user,
    a folder without write permission."""
    for target in ("/proc/version", "/proc/rankwise-out.csv"):
        line = error_line(cli("eval", QRELS, RUN, "-m", "AP", "-o", target))
        assert repr(target) in line
    if not AS_ROOT:
        folder = tmp_path / "ro"
        folder.mkdir()
        folder.chmod(0o555)
        try:
            line = error_line(cli("eval", QRELS, RUN, "-m", "AP", "-o", folder / "out.txt"))
        finally:
            folder.chmod(0o755)
        assert "out.txt" in line and "permission denied" in line.lower()


@pytest.mark.parametrize("fmt", ["table", "csv", "json", "trec", "parquet"])
def test_output_onto_a_full_disk(fmt: str) -> None:
    line = error_line(cli("eval", QRELS, RUN, "-m", "AP", "-q", "--format", fmt, "-o", "/dev/full"))
    assert line == "rankwise: error: cannot write '/dev/full': no space left on device"


def test_standard_output_onto_a_full_disk() -> None:
    with open("/dev/full", "w") as full:
        out = subprocess.run(
            [sys.executable, "-m", "rankwise.cli", "eval", str(QRELS), str(RUN), "-q"],
            stdout=full, stderr=subprocess.PIPE, text=True, timeout=300,
        )
    assert "Traceback" not in out.stderr and "Exception ignored" not in out.stderr, out.stderr
    assert out.returncode == 2
    assert out.stderr == SAMPLE_EVAL_NOTE + "rankwise: error: cannot write to standard output: no space left on device\n"


def test_compare_and_explain_outputs_into_a_missing_folder(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    for args in (
        ["compare", QRELS, RUN, RUN, "-m", "AP", "-o", missing / "table.txt"],
        ["compare", QRELS, RUN, RUN, "-m", "AP", "--report", missing / "report.html"],
        ["explain", QRELS, RUN, "-m", "AP", "-q", "q002", "-o", missing / "q002.csv"],
    ):
        line = error_line(cli(*args))
        assert str(missing) in line
    plot_onto_file = tmp_path / "figures"
    plot_onto_file.write_text("a file, not a folder\n")
    line = error_line(cli("compare", QRELS, RUN, RUN, "-m", "AP", "--plot", plot_onto_file))
    assert "figures" in line


# ------------------------------------------------------------------------- engines, metrics


def test_duckdb_out_of_memory(tmp_path: Path) -> None:
    run, qrels = big_run(tmp_path, 20_000)
    line = error_line(cli("eval", qrels, run, "--engine", "duckdb", "--memory-limit", "1MB"))
    assert "memory" in line.lower()


def test_metric_errors() -> None:
    line = error_line(cli("eval", QRELS, RUN, "-m", "P.nan"))
    assert "P.nan" in line
    line = error_line(cli("eval", QRELS, RUN, "-m", "nDCG@@10"))
    assert "nDCG@@10" in line


# ---------------------------------------------------------------------------- main itself


def test_last_resort_is_one_line_and_debug_shows_the_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """A fault no check foresaw (here: a RuntimeError out of the evaluation) is still one
    line, with its type, and --debug (before or after the command) re-raises it."""

    def broken(*args: object, **kwargs: object) -> pl.DataFrame:
        raise RuntimeError("boom\nsecond line of details")

    # the command imports evaluate when it runs: patched in its module (rankwise.evaluation.evaluate; rankwise.evaluate, the
    # attribute of the package, is the function)
    monkeypatch.setattr(sys.modules["rankwise.evaluation.evaluate"], "evaluate", broken)
    assert rankwise_cli.main(["eval", str(QRELS), str(RUN)]) == 2
    assert capsys.readouterr().err == (
        "rankwise: error: RuntimeError: boom (run with --debug for the traceback)\n"
    )
    for argv in (["--debug", "eval", str(QRELS), str(RUN)], ["eval", str(QRELS), str(RUN), "--debug"]):
        with pytest.raises(RuntimeError, match="boom"):
            rankwise_cli.main(argv)


def test_debug_through_the_real_command(tmp_path: Path) -> None:
    missing = tmp_path / "nope" / "out.csv"
    for args in (["--debug", "eval"], ["eval", "--debug"]):
        out = cli(*args, QRELS, RUN, "-m", "AP", "-o", missing)
        assert out.returncode == 1 and "Traceback" in out.stderr and "OutputError" in out.stderr
    ok = cli("--debug", "eval", QRELS, RUN, "-m", "AP")
    assert ok.returncode == 0 and ok.stdout.startswith("AP"), ok.stderr
    ok = cli("eval", QRELS, RUN, "-m", "AP", "--debug")
    assert ok.returncode == 0 and ok.stdout.startswith("AP"), ok.stderr


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_ctrl_c_exits_130_without_traceback(tmp_path: Path, engine: str) -> None:
    run, qrels = big_run(tmp_path, 200_000)
    target = tmp_path / "out.trec"
    proc = subprocess.Popen(
        [sys.executable, "-m", "rankwise.cli", "eval", str(qrels), str(run), "-q", "--format", "trec",
         "-o", str(target), "--engine", engine],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    time.sleep(1.5)
    assert proc.poll() is None, "the command ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert err in ("", "rankwise: interrupted\n")
    assert not target.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def _shell_status(returncode: int) -> int:
    """The exit status as a shell reports it: 128 + N for a process ended by signal N."""
    return 128 - returncode if returncode < 0 else returncode


def _startup_seconds() -> float:
    """How long the interpreter itself takes to start here (``python -c pass``: its
    initialisation and the site module, which runs the installed ``.pth`` files), the median of
    three runs: before it ends, no rankwise code has run."""
    times = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True, timeout=60)
        times.append(time.perf_counter() - start)
    return sorted(times)[1]


@pytest.mark.parametrize("how", ["script", "module"])
def test_ctrl_c_at_any_moment_of_start_up_exits_130_without_traceback(tmp_path: Path, how: str) -> None:
    """SIGINT at delays from 0 ms (before the interpreter has a handler: the signal ends it,
    which a shell reports as 130), through the imports of rankwise, Polars and the command
    (before main runs), to the evaluation (main's handler): exit 130, no traceback, nothing
    written. ``script`` is the installed ``rankwise`` console script, ``module`` is
    ``python -m rankwise.cli``."""
    run, qrels = big_run(tmp_path, 200_000)
    target = tmp_path / "out.trec"
    script = Path(sys.executable).parent / "rankwise"
    if how == "script" and not script.is_file():
        pytest.fail(f"the console script is not installed beside the interpreter: {script}")
    command = [sys.executable, str(script)] if how == "script" else [sys.executable, "-m", "rankwise.cli"]
    argv = [*command, "eval", str(qrels), str(run), "-q", "--format", "trec", "-o", str(target)]
    # from 0, then from past the interpreter's own start-up (whose Ctrl-C is Python's, before
    # any rankwise code) on: the imports take about 0.25 s, the evaluation over 1.5 s
    first = 3 * _startup_seconds()
    delays = [0.0, first, first + 0.03, first + 0.08, 0.2, 0.3, 0.45, 0.6, 0.8, 1.0]
    for delay in delays:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if delay:
            time.sleep(delay)
        assert proc.poll() is None, f"the command ended before it could be interrupted ({delay:.3f} s)"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
        assert _shell_status(proc.returncode) == 130, (delay, proc.returncode, err)
        assert "Traceback" not in err, (delay, err)
        assert err in ("", "rankwise: interrupted\n"), (delay, err)
        assert out == ""
        assert not target.exists()
        assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
