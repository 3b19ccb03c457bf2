"""Progress on a terminal and the line a writing command ends with (issue 36).

The decisions (when a time left is shown, what the line names) are tested with an injected
clock, never with wall time; the commands run for real, their stderr on a pseudo-terminal
where progress is the point, with real files in tmp_path."""

from __future__ import annotations

import io
import os
import pty
import select
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from rankwise.outputs import progress
from rankwise.outputs.progress import Estimate, time_left

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "examples" / "data" / "run.parquet"
QRELS = ROOT / "examples" / "data" / "qrels.parquet"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("rankwise")
    cmd = [exe] if exe else [sys.executable, "-m", "rankwise.cli"]
    return subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=300)


def on_a_terminal(*args: str) -> tuple[bytes, str]:
    """The command with its stderr on a pseudo-terminal: (what the terminal got, stdout)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "rankwise.cli", *args], stdout=subprocess.PIPE,
                            stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    seen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the command ended and closed its side
                break
            if not chunk:
                break
            seen += chunk
        elif proc.poll() is not None:
            break
    os.close(master)
    assert proc.stdout is not None
    out = proc.stdout.read().decode()
    assert proc.wait(timeout=300) == 0, seen
    return seen, out


def drawn(seen: bytes) -> list[str]:
    """The status lines the terminal was shown, in order (each drawn after ``\\r\\x1b[2K``)."""
    return [part.split(b"\n")[0].decode() for part in seen.split(b"\r\x1b[2K") if part.strip()]


# --- when a time left is shown: the rule, on given times ----------------------------------------


def test_no_time_left_without_a_known_total_or_before_2_s_and_5_percent() -> None:
    assert time_left(now=100.0, started=0.0, fraction=None, previous=None) is None  # no known total
    assert time_left(now=1.9, started=0.0, fraction=0.5, previous=None) is None  # the phase ran 1.9 s
    assert time_left(now=60.0, started=0.0, fraction=0.049, previous=None) is None  # 4.9 % done
    assert time_left(now=60.0, started=0.0, fraction=1.0, previous=None) is None  # all done
    # the phase's own time counts, not the command's: begun at 98 s, it ran 1 s at 99 s
    assert time_left(now=99.0, started=98.0, fraction=0.5, previous=None) is None


def test_first_time_left_is_the_phase_mean_rate_applied_to_what_remains() -> None:
    # 2 s for 5 %: 38 s for the other 95 %
    assert time_left(now=2.0, started=0.0, fraction=0.05, previous=None) == Estimate(2.0, pytest.approx(38.0))
    # the case: 40 s spent in earlier phases, this one 3 s in and 75 % done: 1 s left, not minutes
    assert time_left(now=43.0, started=40.0, fraction=0.75, previous=None) == Estimate(43.0, pytest.approx(1.0))


def test_time_left_is_smoothed_and_never_above_the_rate_based_estimate() -> None:
    # 20 s left said at 10 s; at 12 s it counts down to 18 s, the rate says 12 * 0.6 / 0.4 = 18: 18
    assert time_left(now=12.0, started=0.0, fraction=0.4, previous=Estimate(10.0, 20.0)) == Estimate(12.0, pytest.approx(18.0))
    # a slow step: the rate says 30 s (10 s for 25 %), the previous counts down to 10 s: halfway, 20 s
    assert time_left(now=10.0, started=0.0, fraction=0.25, previous=Estimate(8.0, 12.0)) == Estimate(10.0, pytest.approx(20.0))
    # a quicker rate shows at once: the rate says 2 s (8 s for 80 %), the previous 30 s counted down to 28 s
    assert time_left(now=8.0, started=0.0, fraction=0.8, previous=Estimate(6.0, 30.0)) == Estimate(8.0, pytest.approx(2.0))


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_line_names_the_current_phase_and_its_own_estimate_only() -> None:
    """Runs, then statistics (compare's order): the statistics' line carries no estimate of the
    runs'; the estimate appears only once the rule allows; nothing is left on the line when no
    step is open."""
    clock, out = Clock(), io.StringIO()
    with progress.displayed(out, width=200, live=False, clock=clock) as shown:
        with progress.task("runs", total=4) as runs:
            runs.at(0, detail="a")
            clock.now += 1.5
            runs.at(1, detail="b")  # 25 % done after 1.5 s: too early
            assert shown.last == "rankwise: runs 2/4 (b) · 2 s"
            clock.now += 4.5
            runs.at(2, detail="c")  # 50 % after 6 s: 6 s left
            assert shown.last == "rankwise: runs 3/4 (c) · 6 s · about 6 s left"
            clock.now += 2.0
            shown.refresh()  # between steps the estimate counts down
            assert shown.last == "rankwise: runs 3/4 (c) · 8 s · about 4 s left"
        assert out.getvalue().endswith("\r\x1b[2K")  # erased: no stale line while nothing is open
        with progress.task("statistics"):
            assert shown.last == "rankwise: statistics · 8 s"
            clock.now += 30.0
            shown.refresh()
            assert shown.last == "rankwise: statistics · 38 s"


def test_a_nested_amount_does_not_refine_its_step_and_bytes_are_counted() -> None:
    clock, out = Clock(), io.StringIO()
    with progress.displayed(out, width=200, live=False, clock=clock) as shown:
        with progress.task("runs", total=2) as runs:
            runs.at(1, detail="b")
            clock.now += 10.0
            with progress.task("reading b.trec", total=218_000_000, unit="bytes") as reading:
                reading.at(200_000_000)  # 92 % of the file, not of the run: the runs are half done
                assert shown.last == "rankwise: runs 2/2 (b) · reading b.trec 200/218 MB · 10 s · about 10 s left"
        with progress.task("reading q.trec", total=5_000, unit="bytes") as reading:
            reading.at(0)
            assert shown.last == "rankwise: reading q.trec 0/5.0 kB · 10 s"
        with progress.task("reading records", unit="rows") as reading:
            reading.at(1_234_567)
            assert shown.last == "rankwise: reading records 1,234,567 rows · 10 s"


# --- on a real terminal ---------------------------------------------------------------------------


def _large_trec(folder: Path) -> tuple[Path, Path]:
    """A TREC run of about 20 MB (three of the reader's 8 MB blocks) and its qrels."""
    queries, docs = 2_000, 200
    q = pl.int_range(0, queries * docs, eager=True) // docs
    run = pl.DataFrame({"q": q}).with_columns(
        (pl.lit("d") + (pl.int_range(0, pl.len()) * 7919 % 100_003).cast(pl.String)).alias("doc"),
        (pl.int_range(0, pl.len()) % docs + 1).alias("rank"),
    )
    lines = run.select(
        pl.format("query{} Q0 {} {} {} a-somewhat-long-run-tag", "q", "doc", "rank", (1000 - pl.col("rank")) / 10)
    ).to_series()
    run_path, qrels_path = folder / "big.trec", folder / "big.qrels"
    run_path.write_text("\n".join(lines) + "\n")
    judged = run.filter(pl.col("rank") % 10 == 1).select(pl.format("query{} 0 {} 1", "q", "doc")).to_series()
    qrels_path.write_text("\n".join(judged) + "\n")
    assert run_path.stat().st_size > 2 * (8 << 20)
    return qrels_path, run_path


def test_reading_a_large_trec_file_shows_its_bytes_on_a_terminal(tmp_path: Path) -> None:
    qrels, run = _large_trec(tmp_path)
    size_mb = run.stat().st_size / 1e6
    seen, out = on_a_terminal("eval", str(qrels), str(run), "-m", "AP")
    lines = drawn(seen)
    reading = [line for line in lines if line.startswith("rankwise: reading big.trec ")]
    # the status shows as reading begins, then the bytes read of the file's size as blocks are read
    assert reading[0].startswith(f"rankwise: reading big.trec 0/{size_mb:.0f} MB · "), lines
    assert any(f"8.4/{size_mb:.0f} MB" in line for line in reading), reading
    assert any(f"{size_mb:.0f}/{size_mb:.0f} MB" in line for line in reading), reading
    assert any(line.startswith("rankwise: reading big.qrels ") for line in lines), lines
    assert out.startswith("AP")
    piped = cli("eval", str(qrels), str(run), "-m", "AP")
    assert piped.stdout == out and "reading" not in piped.stderr  # piped: no progress at all


def test_compare_statistics_replace_the_runs_line(tmp_path: Path) -> None:
    """Compare's statistics phase is named on the line after the runs' (never a stale runs line)."""
    seen, _ = on_a_terminal("compare", str(QRELS), str(RUN), str(RUN), "-m", "AP", "--name", "a", "--name", "b")
    lines = drawn(seen)
    runs = max(i for i, line in enumerate(lines) if line.startswith("rankwise: runs "))
    assert any(line.startswith("rankwise: statistics · ") for line in lines[runs + 1:]), lines


# --- the line a writing command ends with -------------------------------------------------------


def _writes(tmp_path: Path) -> list[tuple[list[str], str]]:
    """Each writing command, and the line it ends with."""
    t = str(tmp_path)
    q, r = str(QRELS), str(RUN)
    two = [q, r, r, "--name", "a", "--name", "b"]
    return [
        (["eval", q, r, "-m", "AP", "-m", "P@10", "-m", "nDCG@10", "-o", f"{t}/results.csv", "--format", "csv"],
         f"wrote {t}/results.csv (199 queries, 3 metrics)"),
        (["eval", q, r, "-m", "map", "-o", f"{t}/results.txt", "--format", "trec"],
         f"wrote {t}/results.txt (199 queries, 1 metric)"),
        (["eval", q, r, "-m", "AP", "-q", "-o", f"{t}/per_query.parquet", "--format", "parquet"],
         f"wrote {t}/per_query.parquet (199 queries, 1 metric)"),
        (["compare", *two, "-m", "AP", "-m", "RR", "-o", f"{t}/compare.csv", "--format", "csv"],
         f"wrote {t}/compare.csv (2 runs, 2 metrics)"),
        (["compare", *two, "--resamples", "200", "--report", f"{t}/report.html", "-o", f"{t}/compare.txt"],
         f"wrote {t}/report.html, {t}/report.md, {t}/report.tex, {t}/compare.txt (2 runs, 4 metrics)"),
        (["compare", *two, "-m", "AP", "--anova", "-o", f"{t}/anova.csv"], f"wrote {t}/anova.csv (2 runs, 1 metric)"),
        (["explain", q, r, "-m", "AP", "-q", "q001", "-o", f"{t}/explain.csv", "--format", "csv"],
         f"wrote {t}/explain.csv (query q001, 100 rows)"),
        (["change", r, r, "-o", f"{t}/change.csv", "--format", "csv"], f"wrote {t}/change.csv (199 queries)"),
    ]


def test_each_writing_command_ends_with_one_line_naming_what_it_wrote(tmp_path: Path) -> None:
    for args, line in _writes(tmp_path):
        out = cli(*args)
        assert out.returncode == 0, (args, out.stderr)
        assert out.stdout == ""  # nothing on stdout changes: -o took it all
        assert out.stderr.splitlines()[-1] == line, (args, out.stderr)
        assert sum(s.startswith("wrote ") for s in out.stderr.splitlines()) == 1


def test_the_figures_are_named_with_their_folder(tmp_path: Path) -> None:
    out = cli("compare", str(QRELS), str(RUN), str(RUN), "--name", "a", "--name", "b", "-m", "AP",
              "--plot", str(tmp_path / "figs"), "-o", str(tmp_path / "c.txt"))
    figures = len(list((tmp_path / "figs").glob("*.png")))
    assert figures > 0
    assert out.stderr.splitlines()[-1] == f"wrote {figures} figures in {tmp_path}/figs/, {tmp_path}/c.txt (2 runs, 1 metric)"


@pytest.mark.parametrize("index", range(8))
def test_no_wrote_line_under_quiet(tmp_path: Path, index: int) -> None:
    args, _ = _writes(tmp_path)[index]
    out = cli(*args, "--quiet")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "" and "wrote" not in out.stderr
    if "--anova" not in args:  # (compare --anova --quiet still warns: its warnings are not held back)
        assert out.stderr == ""


def test_no_wrote_line_when_nothing_is_written() -> None:
    out = cli("eval", str(QRELS), str(RUN), "-m", "AP")
    assert out.stdout.startswith("AP") and "wrote" not in out.stderr


def test_a_phase_fraction_never_goes_back_when_its_inner_steps_end() -> None:
    """Run 2 of 2 with its query groups all done is nearly all of the runs: when the groups' task
    ends, the runs' estimate does not jump back to half of them left."""
    clock, out = Clock(), io.StringIO()
    with progress.displayed(out, width=200, live=False, clock=clock) as shown, progress.task("runs", total=2) as runs:
        runs.at(1, detail="b")
        with progress.task("query groups", total=10) as groups:
            clock.now += 18.0
            groups.at(8)  # 90 % of the runs after 18 s: 2 s left
            assert shown.last == "rankwise: runs 2/2 (b) · query groups 9/10 · 18 s · about 2 s left"
        # the groups ended: still 90 % done (not 50 %), 2 s counted down to 2 s by the rate
        assert shown.last == "rankwise: runs 2/2 (b) · 18 s · about 2 s left"


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_reading_a_large_parquet_or_csv_run_shows_the_rows_read(tmp_path: Path, kind: str) -> None:
    """A run of 1.2M rows: the rows read are counted as its batches (Parquet row groups, CSV
    chunks) are read, against the count its metadata (or a light scan) gave."""
    n = 1_200_000
    run = pl.DataFrame({"query_id": pl.int_range(n, eager=True) // 100, "doc_id": pl.int_range(n, eager=True) % 100,
                        "score": pl.int_range(n, eager=True).cast(pl.Float64)})
    path = tmp_path / f"run.{kind}"
    if kind == "parquet":
        run.write_parquet(path, row_group_size=100_000)
    else:
        run.write_csv(path)
    qrels = tmp_path / "qrels.parquet"
    run.filter(pl.col("doc_id") == 1).select("query_id", "doc_id", relevance=pl.lit(1)).write_parquet(qrels)
    seen, out = on_a_terminal("eval", str(qrels), str(path), "-m", "P@10")
    reading = [line for line in drawn(seen) if "reading the run" in line]
    assert any(f"/{n:,} rows" in line and f" 0/{n:,}" not in line for line in reading), drawn(seen)
    assert any(f"{n:,}/{n:,} rows" in line for line in reading), reading
    assert out.startswith("P@10")


# --- reading JSON and gzipped files: their bytes, as blocks are read -----------------------------


@pytest.mark.parametrize("gzipped", [False, True])
def test_reading_a_json_or_gzipped_file_shows_its_bytes_block_by_block(tmp_path: Path, gzipped: bool) -> None:
    """The bytes read of the file's size (gzipped: of the compressed file), drawn as each block
    is read; the bytes are the file's (gunzipped), the line erased once they are read."""
    import gzip

    from rankwise.inputs.read import read_bytes

    text = b"".join(b'{"query_id": "q%d", "doc_id": "d%d", "score": %d}\n' % (i, i, i) for i in range(2_000))
    path = tmp_path / ("run.jsonl.gz" if gzipped else "run.jsonl")
    path.write_bytes(gzip.compress(text) if gzipped else text)
    size = path.stat().st_size
    block = size // 3 + 1  # three blocks: two whole, the rest
    clock, out = Clock(), io.StringIO()
    with progress.displayed(out, width=200, live=False, clock=clock):
        assert read_bytes(path, block_size=block) == text
    lines = drawn(out.getvalue().encode())
    if not gzipped:  # 2,000 lines of 44 bytes and their three numbers' 6,890 digits: 108,670 bytes
        assert (size, block) == (108_670, 36_224)
        assert lines == [f"rankwise: reading run.jsonl {k}/109 kB · 0 s" for k in ("0", "36", "72", "109")], lines
    else:  # the compressed file's bytes: drawn as it begins, then once per block
        total = f"{size / 1000:.1f}" if size < 10_000 else f"{size / 1000:.0f}"
        assert len(lines) == 4 and lines[0] == f"rankwise: reading run.jsonl.gz 0/{total} kB · 0 s", lines
        assert lines[-1] == f"rankwise: reading run.jsonl.gz {total}/{total} kB · 0 s", lines


def test_reading_a_large_json_run_shows_its_bytes_on_a_terminal(tmp_path: Path) -> None:
    qrels, trec = _large_trec(tmp_path)
    run = tmp_path / "big.jsonl"
    pl.read_csv(trec, separator=" ", has_header=False, new_columns=["query_id", "q0", "doc_id", "rank", "score", "tag"],
                schema_overrides={"query_id": pl.String, "doc_id": pl.String}).select(
        "query_id", "doc_id", "score").write_ndjson(run)
    size_mb = run.stat().st_size / 1e6
    assert size_mb > 2 * 8.4
    seen, out = on_a_terminal("eval", str(qrels), str(run), "-m", "AP")
    reading = [line for line in drawn(seen) if line.startswith("rankwise: reading big.jsonl ")]
    assert reading[0].startswith(f"rankwise: reading big.jsonl 0/{size_mb:.0f} MB · "), reading
    assert any(f"8.4/{size_mb:.0f} MB" in line for line in reading), reading
    assert any(f"{size_mb:.0f}/{size_mb:.0f} MB" in line for line in reading), reading
    assert out.startswith("AP")
