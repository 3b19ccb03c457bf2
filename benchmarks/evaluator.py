"""Ten runs against one qrels: ``rw.Evaluator`` (the judgments read, checked and prepared once)
beside ten ``rw.evaluate`` calls, on both engines (issue 36, "An evaluator to keep").

Each configuration runs in its own process, from the same Parquet files (the qrels and ten runs
of ``--queries`` × 100 rows, written by ``generate.py`` and perturbed per run, seeded), end to
end from the first import to the last run's values; the repetitions are interleaved (every
configuration once, then again) and the table gives medians, ranges and each process's peak
RSS, and the CPU seconds (user + system, every thread) of each process beside its wall
seconds. Every configuration's values are checked against ``rw.evaluate``'s, per query, to 1e-12
(a failed check makes the exit status 1).

    python benchmarks/evaluator.py                 # 10 runs of 1M rows (10,000 queries), 3 repetitions
    python benchmarks/evaluator.py --queries 1000  # 10 runs of 100k rows
    python benchmarks/evaluator.py --engines polars  # the Polars configurations only
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
METRICS = ["nDCG@10", "AP", "RR", "P@10", "R@100"]
CONFIGS = ("evaluate:polars", "Evaluator:polars", "evaluate:duckdb", "Evaluator:duckdb")


def child(config: str, data: Path, runs: int, out: Path) -> None:
    """One configuration: every run's values, their sum written to ``out`` with the time."""
    start = time.perf_counter()
    begun = resource.getrusage(resource.RUSAGE_SELF)
    cpu_start = begun.ru_utime + begun.ru_stime
    import polars as pl

    import rankwise as rw

    how, engine = config.split(":")
    qrels = data / "qrels.parquet"
    paths = [data / f"run{i}.parquet" for i in range(runs)]
    if how == "Evaluator":
        ev = rw.Evaluator(qrels, METRICS, engine=engine)
        results = [ev(path) for path in paths]
    else:
        results = [rw.evaluate(qrels, path, METRICS, engine=engine) for path in paths]
    elapsed = time.perf_counter() - start
    frame = pl.concat([r.with_columns(run=pl.lit(i)) for i, r in enumerate(results)])
    frame.write_parquet(out.with_suffix(".parquet"))
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime - cpu_start
    out.write_text(json.dumps({"seconds": elapsed, "cpu": cpu, "peak_mb": usage.ru_maxrss / 1024}))


def prepare(data: Path, queries: int, runs: int) -> None:
    """The qrels and ``runs`` runs: generate.py's run, its scores perturbed per run (seeded)."""
    import polars as pl

    if (data / f"run{runs - 1}.parquet").exists():
        return
    subprocess.run([sys.executable, str(HERE / "generate.py"), str(data), "--queries", str(queries)], check=True)
    base = pl.read_parquet(data / "run.parquet")
    for i in range(runs):
        noise = pl.Series(pl.int_range(0, base.height, eager=True).hash(seed=i) % 1000).cast(pl.Float32) / 1e4
        base.with_columns(score=(pl.col("score") + noise).cast(pl.Float32)).write_parquet(data / f"run{i}.parquet")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--queries", type=int, default=10_000)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--engines", default="polars,duckdb", help="comma-separated: polars, duckdb")
    p.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "rankwise-bench-evaluator")
    p.add_argument("--child", nargs=2, metavar=("CONFIG", "OUT"), help=argparse.SUPPRESS)
    a = p.parse_args()
    data = a.data / f"{a.queries}q{a.runs}r"
    if a.child:
        child(a.child[0], data, a.runs, Path(a.child[1]))
        return 0
    data.mkdir(parents=True, exist_ok=True)
    prepare(data, a.queries, a.runs)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE.parent / "src"), os.environ.get("PYTHONPATH", "")])}
    engines = [e for e in ("polars", "duckdb") if e in a.engines.split(",")]
    configs = [c for c in CONFIGS if c.split(":")[1] in engines]
    times: dict[str, list[float]] = {c: [] for c in configs}
    cpus: dict[str, list[float]] = {c: [] for c in configs}
    peaks: dict[str, list[float]] = {c: [] for c in configs}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(a.reps):
            for config in configs:
                out = Path(tmp) / f"{config.replace(':', '_')}.json"
                subprocess.run([sys.executable, __file__, "--queries", str(a.queries), "--runs", str(a.runs),
                                "--data", str(a.data), "--child", config, str(out)], check=True, env=env)
                got = json.loads(out.read_text())
                times[config].append(got["seconds"])
                cpus[config].append(got["cpu"])
                peaks[config].append(got["peak_mb"])
        failed = _check(Path(tmp), configs)
    print(f"{a.runs} runs of {a.queries * 100:,} rows against one qrels; {a.reps} interleaved repetitions; "
          f"metrics {', '.join(METRICS)}")
    print(f"{'configuration':<20} {'median s':>9} {'range s':>15} {'CPU s':>7} {'peak RSS MB':>12}")
    for config in configs:
        t = times[config]
        print(f"{config:<20} {statistics.median(t):>9.2f} {min(t):>7.2f}–{max(t):<7.2f} "
              f"{statistics.median(cpus[config]):>7.2f} {max(peaks[config]):>12.0f}")
    for engine in engines:
        ratio = statistics.median(times[f"evaluate:{engine}"]) / statistics.median(times[f"Evaluator:{engine}"])
        cpu = statistics.median(cpus[f"Evaluator:{engine}"]) / statistics.median(cpus[f"evaluate:{engine}"])
        print(f"{engine}: ten evaluate calls take {ratio:.2f}x the Evaluator's time "
              f"(Evaluator ÷ evaluate: {1 / ratio:.2f}x wall, {cpu:.2f}x CPU)")
    print("check against evaluate, per query to 1e-12:", "FAILED" if failed else "ok")
    return 1 if failed else 0


def _check(folder: Path, configs: list[str]) -> bool:
    """Whether any configuration's values differ from the first's by more than 1e-12."""
    import polars as pl

    frames = {c: pl.read_parquet(folder / f"{c.replace(':', '_')}.parquet") for c in configs}
    want = frames[configs[0]].sort("run", "query_id")
    failed = False
    for config, frame in frames.items():
        got = frame.sort("run", "query_id")
        if got.select("run", "query_id").equals(want.select("run", "query_id")) is False:
            print(f"{config}: other queries than {configs[0]}'s")
            failed = True
            continue
        for m in METRICS:
            gap = (got[m] - want[m]).abs().max()
            if gap is not None and float(gap) > 1e-12:  # type: ignore[arg-type]
                print(f"{config}: {m} differs by {gap}")
                failed = True
    return failed


if __name__ == "__main__":
    sys.exit(main())
