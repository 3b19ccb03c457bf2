"""Faults on the Python API: every unreadable input, engine failure or absurd argument raises
one of rankwise's own exceptions, naming the file or value, with the engine's or the OS's error
kept as ``__cause__``. (The command line's side of the same faults: test_cli_faults.py.)"""

from __future__ import annotations

import gzip
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import rankwise as rw

RUN = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
QRELS = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "c"], "relevance": [1, 2]})
API_ENGINES = ("polars", "duckdb")


@pytest.fixture
def qrels_file(tmp_path: Path) -> Path:
    path = tmp_path / "qrels.parquet"
    QRELS.write_parquet(path)
    return path


def _parquet_bytes(tmp_path: Path) -> bytes:
    path = tmp_path / "full.parquet"
    pl.concat([RUN] * 200).with_row_index().with_columns(pl.col("index").cast(pl.String).alias("doc_id")).drop(
        "index"
    ).write_parquet(path)
    return path.read_bytes()


def _bad_inputs(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """name -> (path, regex the message must match)."""
    cases: dict[str, tuple[Path, str]] = {}
    full = _parquet_bytes(tmp_path)
    p = tmp_path / "truncated.parquet"
    p.write_bytes(full[: len(full) // 2])
    cases["truncated parquet"] = (p, r"truncated\.parquet' is not a readable Parquet file")
    p = tmp_path / "corrupt.parquet"
    p.write_bytes(os.urandom(4096))
    cases["corrupt parquet"] = (p, r"corrupt\.parquet' is not a readable Parquet file")
    p = tmp_path / "empty.parquet"
    p.write_bytes(b"")
    cases["empty parquet"] = (p, r"empty\.parquet' is empty \(0 bytes\)")
    p = tmp_path / "empty.csv"
    p.write_bytes(b"")
    cases["empty csv"] = (p, r"empty\.csv' is empty \(0 bytes\)")
    p = tmp_path / "run.trec.gz"
    whole = gzip.compress(b"".join(b"q1 Q0 d%d %d 1.0 t\n" % (i, i) for i in range(5000)))
    p.write_bytes(whole[: len(whole) // 2])
    cases["truncated gzip"] = (p, r"run\.trec\.gz': the gzip stream is truncated")
    p = tmp_path / "garbage.trec.gz"
    p.write_bytes(b"\x1f\x8b" + os.urandom(200))
    cases["corrupt gzip"] = (p, r"garbage\.trec\.gz'")
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    RUN.write_parquet(mixed / "part-0.parquet")
    RUN.write_csv(mixed / "part-1.csv")
    cases["mixed folder"] = (mixed, r"mixed' mixes file formats: part-0\.parquet \(parquet\), part-1\.csv \(csv\)")
    cases["missing"] = (tmp_path / "nope.parquet", r"no such file: '.*nope\.parquet'")
    return cases


CASES = [
    "truncated parquet", "corrupt parquet", "empty parquet", "empty csv", "truncated gzip",
    "corrupt gzip", "mixed folder", "missing",
]


@pytest.mark.parametrize("engine", API_ENGINES)
@pytest.mark.parametrize("case", CASES)
def test_unreadable_inputs_raise_input_read_error(tmp_path: Path, qrels_file: Path, engine: str, case: str) -> None:
    path, message = _bad_inputs(tmp_path)[case]
    with pytest.raises(rw.InputReadError, match=message):
        rw.evaluate(qrels_file, path, ["AP"], engine=engine)
    # the same as qrels
    with pytest.raises(rw.InputReadError):
        rw.evaluate(path, RUN, ["AP"], engine=engine)


@pytest.mark.parametrize("engine", API_ENGINES)
def test_unreadable_file(tmp_path: Path, qrels_file: Path, engine: str) -> None:
    # /proc/self/mem exists and cannot be read from offset 0, not even by root (EIO)
    with pytest.raises(rw.InputReadError, match=r"cannot read '/proc/self/mem': Input/output error"):
        rw.evaluate(qrels_file, "/proc/self/mem", ["AP"], engine=engine, run_format="trec")
    if os.geteuid() != 0:  # a file without read permission (root reads it anyway)
        path = tmp_path / "run.trec"
        path.write_text("q1 Q0 a 1 1.0 t\n")
        path.chmod(0)
        with pytest.raises(rw.InputReadError, match="Permission denied"):
            rw.evaluate(qrels_file, path, ["AP"], engine=engine)


@pytest.mark.parametrize("engine", API_ENGINES)
def test_a_file_named_like_a_glob_is_that_file(tmp_path: Path, qrels_file: Path, engine: str) -> None:
    RUN.write_parquet(tmp_path / "run[1].parquet")
    RUN.head(1).write_parquet(tmp_path / "run1.parquet")  # what the glob would match
    got = rw.evaluate(qrels_file, tmp_path / "run[1].parquet", ["NumRet"], engine=engine)
    assert got["NumRet"].to_list() == [2.0, 1.0]
    got = rw.evaluate(qrels_file, str(tmp_path / "run[1].parquet"), ["NumRet"], engine=engine)
    assert got["NumRet"].to_list() == [2.0, 1.0]



def _write_as(frame: pl.DataFrame, path: Path, kind: str) -> None:
    """``frame`` written in the format ``path``'s extension names (TREC: a run's or qrels' lines)."""
    if path.suffix == ".parquet":
        frame.write_parquet(path)
    elif path.suffix in (".csv", ".tsv"):
        frame.write_csv(path, separator="," if path.suffix == ".csv" else "\t")
    elif kind == "run":
        path.write_text("".join(f"{q} Q0 {d} 0 {s} tag\n" for q, d, s in frame.iter_rows()))
    else:
        path.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in frame.iter_rows()))


GLOB_NAMES = ["run[1].parquet", "run[1].csv", "run*.tsv", "run?[a-z].trec"]


@pytest.mark.parametrize("name", GLOB_NAMES)
@pytest.mark.parametrize("engine", API_ENGINES)
def test_a_file_named_like_a_glob_matching_nothing_else(tmp_path: Path, engine: str, name: str) -> None:
    """The file alone, no other file the glob would match: it is read as that file (the
    Parquet footer's check once globbed its name, and found nothing)."""
    _write_as(RUN, tmp_path / name, "run")
    qrels = tmp_path / name.replace("run", "qrels").replace(".trec", ".qrels")
    _write_as(QRELS, qrels, "qrels")
    for run_path, qrels_path in ((tmp_path / name, qrels), (str(tmp_path / name), str(qrels))):
        got = rw.evaluate(qrels_path, run_path, ["NumRet", "NumRel"], engine=engine)
        assert got["NumRet"].to_list() == [2.0, 1.0]
        assert got["NumRel"].to_list() == [1.0, 1.0]


@pytest.mark.parametrize("name", GLOB_NAMES)
def test_a_file_named_like_a_glob_on_the_command_line(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from rankwise.cli.commands import main

    _write_as(RUN, tmp_path / name, "run")
    _write_as(QRELS, tmp_path / "qrels[2].parquet", "qrels")
    args = ["eval", str(tmp_path / "qrels[2].parquet"), str(tmp_path / name), "-m", "NumRet", "-m", "NumRel"]
    assert main([*args, "--format", "csv"]) == 0
    got = pl.read_csv(capsys.readouterr().out.encode())
    assert got["NumRet"].to_list() == [3.0] and got["NumRel"].to_list() == [2.0]

def test_a_folder_of_one_format_and_sidecar_files(tmp_path: Path, qrels_file: Path) -> None:
    # Spark's _SUCCESS and .crc files are not data
    folder = tmp_path / "export"
    folder.mkdir()
    RUN.write_parquet(folder / "part-0.parquet")
    (folder / "_SUCCESS").write_text("")
    (folder / ".part-0.parquet.crc").write_text("x")
    assert rw.evaluate(qrels_file, folder, ["NumRet"])["NumRet"].to_list() == [2.0, 1.0]


def test_duckdb_out_of_memory_is_a_resource_error(tmp_path: Path) -> None:
    n = 400_000
    run = pl.DataFrame({
        "query_id": [f"query-{i // 50:08d}" for i in range(n)],
        "doc_id": [f"document-{i:012d}" for i in range(n)],
        "score": [float(i % 13) for i in range(n)],
    })
    run.write_parquet(tmp_path / "run.parquet")
    run.select("query_id", "doc_id", pl.lit(1).alias("relevance")).write_parquet(tmp_path / "qrels.parquet")
    with pytest.raises(rw.EngineResourceError, match="out of memory") as info:
        rw.evaluate(
            tmp_path / "qrels.parquet", tmp_path / "run.parquet", ["AP", "nDCG@10"], engine="duckdb",
            duckdb_config={"memory_limit": "4MB", "threads": 1},
        )
    assert info.value.__cause__ is not None


def test_engine_faults_are_translated() -> None:
    from rankwise.inputs.faults import translate

    err = translate(OSError(5, "Input/output error"), {"run": "r.parquet", "qrels": QRELS})
    assert isinstance(err, rw.InputReadError)
    assert str(err) == "cannot read the inputs (run 'r.parquet', qrels: a polars DataFrame): Input/output error"
    assert isinstance(translate(MemoryError(), {}), rw.EngineResourceError)
    assert isinstance(translate(pl.exceptions.ComputeError("bad page"), {}), rw.InputReadError)
    assert isinstance(translate(ZeroDivisionError("x"), {}), rw.EngineError)
    import duckdb

    assert isinstance(translate(duckdb.InterruptException("stop"), {}), KeyboardInterrupt)


def test_duckdb_progress_bar_never_writes_to_stdout(capfd: pytest.CaptureFixture[str]) -> None:
    from rankwise._duckdb.engine import connect

    con = connect({})
    assert con.sql("SELECT current_setting('enable_progress_bar')").fetchall() == [(False,)]
    rw.evaluate(QRELS, RUN, ["AP"], engine="duckdb")
    assert capfd.readouterr().out == ""


@pytest.mark.parametrize("engine", API_ENGINES)
@pytest.mark.parametrize("max_rank", [10**30, 2**62 + 1])
def test_absurd_max_rank(engine: str, max_rank: int) -> None:
    with pytest.raises(rw.InvalidParameterError, match=r"'max_rank' must be at most 4611686018427387904"):
        rw.evaluate(QRELS, RUN, ["AP"], engine=engine, max_rank=max_rank)


@pytest.mark.parametrize("engine", API_ENGINES)
def test_max_rank_at_the_bound_works(engine: str) -> None:
    assert rw.evaluate(QRELS, RUN, ["AP"], engine=engine, max_rank=2**62)["AP"].to_list() == [0.5, 1.0]


@pytest.mark.parametrize("metrics", [None, [], [None], [1], b"nDCG"])
@pytest.mark.parametrize("engine", API_ENGINES)
def test_metrics_that_are_not_metric_strings(engine: str, metrics: object) -> None:
    with pytest.raises(rw.RankwiseError):
        rw.evaluate(QRELS, RUN, metrics, engine=engine)  # type: ignore[arg-type]


@pytest.mark.parametrize("metric", ["P.nan", "P.inf", "P.1e400", "RBP(p=1.5)", "x" * 100_000, "(" * 5000 + "AP" + ")" * 5000])
@pytest.mark.parametrize("engine", API_ENGINES)
def test_bad_metric_strings_on_the_api(engine: str, metric: str) -> None:
    with pytest.raises(rw.RankwiseError):
        rw.evaluate(QRELS, RUN, [metric], engine=engine)


def test_nothing_is_left_behind_in_the_input_folder(tmp_path: Path, qrels_file: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    RUN.write_parquet(folder / "run.parquet")
    before = sorted(os.listdir(folder))
    rw.evaluate(qrels_file, folder / "run.parquet", ["AP"], engine="duckdb")
    assert sorted(os.listdir(folder)) == before
    shutil.rmtree(folder)


@pytest.mark.parametrize("engine", API_ENGINES)
@pytest.mark.parametrize("rel", [math.inf, -math.inf, math.nan])
def test_non_finite_rel_convention(engine: str, rel: float) -> None:
    with pytest.raises(rw.InvalidParameterError, match="convention 'rel' must be a finite number"):
        rw.evaluate(QRELS, RUN, ["P@1"], engine=engine, rel=rel)


# -- found by an adversarial review ----------------------------------------------------------


SEG_RUN = pl.DataFrame({
    "query_id": ["1", "1", "2", "2"], "doc_id": ["a", "b", "a", "b"], "score": [1.0, 2.0, 1.0, 2.0],
    "seg": ["x", "x", None, None],
})
SEG_QRELS = pl.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "a"], "relevance": [1, 0, 1]})


@pytest.mark.parametrize("engine", API_ENGINES)
@pytest.mark.parametrize("missing", ["ignore", "zero"])
def test_a_null_segment_is_a_segment_not_a_lost_query(engine: str, missing: str) -> None:
    # trec_eval's AP of each query: 0.5 (the relevant 'a' at rank 2)
    got = rw.evaluate(SEG_QRELS, SEG_RUN, ["AP"], by=["seg"], engine=engine, missing=missing)  # type: ignore[arg-type]
    assert got.rows() == [(None, "2", 0.5), ("x", "1", 0.5)]
    assert rw.summarize(got, by="seg").rows() == [(None, 0.5), ("x", 0.5)]


def test_compare_with_a_null_segment() -> None:
    table = rw.compare(SEG_QRELS, {"a": SEG_RUN, "b": SEG_RUN}, ["AP"], by="seg")
    assert table.select("seg", "run", "mean", "baseline_mean").rows() == [(None, "b", 0.5, 0.5), ("x", "b", 0.5, 0.5)]


@pytest.mark.parametrize("engine", API_ENGINES)
def test_compare_runs_whose_id_types_differ(engine: str) -> None:
    qrels = pl.DataFrame({"query_id": [1, 2], "doc_id": [1, 1], "relevance": [1, 1]})
    a = pl.DataFrame({"query_id": [1, 2], "doc_id": [1, 1], "score": [1.0, 1.0]})
    b = pl.DataFrame({"query_id": ["1", "2"], "doc_id": ["1", "2"], "score": [1.0, 1.0]})
    table = rw.compare(qrels, {"a": a, "b": b}, ["AP"], engine=engine)
    assert table.select("run", "mean", "baseline_mean").rows() == [("b", 0.5, 1.0)]


@pytest.mark.parametrize("value", [10_001, 10**30])
def test_query_chunks_is_bounded(value: int) -> None:
    with pytest.raises(rw.InvalidParameterError, match="query_chunks must be at most 10000"):
        rw.evaluate(QRELS, RUN, ["AP"], query_chunks=value)


@pytest.mark.parametrize("metric", ["P.5,10", "official"])
def test_explain_takes_one_metric(metric: str) -> None:
    with pytest.raises(rw.InvalidParameterError, match=rf"explain takes one metric; '{metric}' names"):
        rw.explain(QRELS, RUN, metric, "q1")


@pytest.mark.parametrize("engine", API_ENGINES)
def test_list_form_refuses_a_null_item(engine: str) -> None:
    frame = pl.DataFrame({"query_id": ["u1", "u2"], "predicted": [["a", None], ["b"]], "relevant": [["a"], ["b"]]})
    with pytest.raises(rw.InvalidValueError, match=r"'predicted' holds a NULL item \(e\.g\. in the list of query 'u1'\)"):
        rw.evaluate_lists(frame, ["AP"], engine=engine)


# -- the Polars engine's memory: refused before it starts, not an abort ---------------------------

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "data"
QRELS_EXAMPLE, RUN_EXAMPLE = EXAMPLES / "qrels.parquet", EXAMPLES / "run.parquet"

_PROBE = (
    "import polars as pl, rankwise\n"
    "pl.DataFrame({'a': [1, 2]}).lazy().select(pl.len()).collect()  # Polars' threads started\n"
    "print(next(int(l.split()[1]) * 1024 for l in open('/proc/self/status') if l.startswith('VmSize:')))\n"
)


def _under_limit(limit: int, *argv: str) -> subprocess.CompletedProcess[str]:
    """``python argv`` in a subprocess whose address space is limited to ``limit`` bytes
    (RLIMIT_AS, as ``ulimit -v`` sets it) from its start."""
    import resource

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=600, preexec_fn=limited)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc/self/status: Linux")
def test_polars_engine_refuses_what_its_address_space_limit_cannot_hold(tmp_path: Path) -> None:
    """5M run rows under an address-space limit about 200 MB above what the process holds once
    Polars has started: the Polars engine would abort the process on a Rust allocation failure
    (exit -6, SIGABRT); it refuses before it starts, with EngineResourceError naming the need,
    the limit and the remedies (the command line: exit 2, one line). A small input under the
    same limit is evaluated."""
    probe = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=300, check=True)
    limit = int(probe.stdout) + 200 * 2**20
    n = 5_000_000
    row = pl.int_range(0, n)
    pl.select(query_id=pl.format("q{}", row // 100), doc_id=pl.format("d{}", row % 100),
              score=(row * 7919 % 1000).cast(pl.Float64)).write_parquet(tmp_path / "run.parquet")
    pl.select(query_id=pl.format("q{}", pl.int_range(0, n // 100)), doc_id=pl.lit("d1"),
              relevance=pl.lit(1)).write_parquet(tmp_path / "qrels.parquet")
    run, qrels = str(tmp_path / "run.parquet"), str(tmp_path / "qrels.parquet")
    code = (
        "import sys, rankwise as rw\n"
        "try:\n"
        f"    rw.evaluate({qrels!r}, {run!r}, ['AP'])\n"
        "except rw.EngineResourceError as exc:\n"
        "    print(exc)\n"
        "    sys.exit(3)\n"
    )
    api = _under_limit(limit, "-c", code)
    assert api.returncode == 3, (api.returncode, api.stderr[-2000:])
    message = api.stdout.strip()
    assert message.startswith("not enough memory to evaluate 5,000,000 run rows at once on the Polars engine: it needs about ")
    assert "of address space, and the process's limit (ulimit -v, RLIMIT_AS) of " in message
    assert "query_chunks=10" in message and "engine='duckdb', duckdb_config={'memory_limit': '1GB'}" in message
    cli = _under_limit(limit, "-m", "rankwise.cli", "eval", qrels, run, "-m", "AP")
    assert cli.returncode == 2, (cli.returncode, cli.stderr[-2000:])
    assert "Traceback" not in cli.stderr and "memory allocation" not in cli.stderr
    line, = cli.stderr.strip().splitlines()
    assert line.startswith("rankwise: error: not enough memory to evaluate 5,000,000 run rows")
    assert "--query-chunks 10" in line and "--engine duckdb --memory-limit 1GB" in line
    small = _under_limit(limit, "-m", "rankwise.cli", "eval", str(QRELS_EXAMPLE), str(RUN_EXAMPLE), "-m", "AP")
    assert small.returncode == 0, small.stderr[-2000:]
    assert small.stdout.startswith("AP")
