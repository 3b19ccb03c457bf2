"""Benchmark rankwise (each engine) against ranx and pytrec_eval on the same files.

    python benchmarks/bench.py --quick          # 1M rows, under a minute
    python benchmarks/bench.py                  # 10M rows (100,000 queries x 100 documents)
    python benchmarks/bench.py --queries 1000000 --files 10 --tools rankwise-duckdb \
        --memory-limit 2GB --reps 1             # 100M rows, out of core
    python benchmarks/bench.py --queries 1000000 --files 10 --tools rankwise-polars \
        --query-chunks 10 --reps 1              # the same with the Polars engine

Every tool runs in its own process, several repetitions, interleaved (every tool once, then
again: a slow spell of the machine falls on every tool alike); the median and the range are
reported. End to end from the Parquet files: reading, building its input structures,
computing nDCG@10, AP, RR, P@10 and R@100 per query. "compute" is the part after the data is
in the tool's own form. Peak RSS is the child process's maximum resident set. "floor" is
reading the run and sorting it by (query, score): the cost any tool pays. Below the table,
the performance issue's ratios for each rankwise engine. rankwise's per-query values must
equal pytrec_eval's to 1e-9, or the run fails. Peers are optional: pip install -e '.[bench]'.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
METRICS = {"nDCG@10": "ndcg_cut_10", "AP": "map", "RR": "recip_rank", "P@10": "P_10", "R@100": "recall_100"}
RANX = {"nDCG@10": "ndcg@10", "AP": "map", "RR": "mrr", "P@10": "precision@10", "R@100": "recall@100"}

CHILD = textwrap.dedent(
    """
    import json, resource, sys, time
    t0 = time.perf_counter()
    tool, run_path, qrels_path, out_path = sys.argv[1:5]
    metrics = {metrics!r}
    ranx_names = {ranx!r}
    values = None
    if tool in ("rankwise-polars", "rankwise-duckdb"):
        import rankwise as rw
        t1 = time.perf_counter()
        config = {{"memory_limit": sys.argv[5]}} if len(sys.argv) > 5 and sys.argv[5] else None
        asked = json.loads(sys.argv[6]) if len(sys.argv) > 6 and sys.argv[6] else list(metrics)
        chunks = int(sys.argv[7]) if len(sys.argv) > 7 and sys.argv[7] != "0" else None
        res = rw.evaluate(qrels_path, run_path, asked, engine=tool.split("-")[1], duckdb_config=config,
                          query_chunks=chunks)
        compute = time.perf_counter() - t1
        values = {{m: dict(zip(res["query_id"].to_list(), res[m].to_list())) for m in metrics if m in res.columns}}
    elif tool == "rankwise-spark":
        import warnings
        warnings.filterwarnings("ignore")
        from pyspark.sql import SparkSession
        import rankwise.spark as rws
        spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
                 .config("spark.driver.memory", "8g").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        t1 = time.perf_counter()
        res = rws.evaluate(spark.read.parquet(qrels_path), spark.read.parquet(run_path), list(metrics)).toPandas()
        compute = time.perf_counter() - t1
        values = {{m: dict(zip(res["query_id"], res[m])) for m in metrics}}
    elif tool == "pytrec_eval":
        import pyarrow.parquet as pq, pytrec_eval
        run_t, qrels_t = pq.read_table(run_path), pq.read_table(qrels_path)
        run, qrels = {{}}, {{}}
        for q, d, s in zip(*(run_t.column(c).to_pylist() for c in ("query_id", "doc_id", "score"))):
            run.setdefault(q, {{}})[d] = s
        for q, d, r in zip(*(qrels_t.column(c).to_pylist() for c in ("query_id", "doc_id", "relevance"))):
            qrels.setdefault(q, {{}})[d] = int(r)
        t1 = time.perf_counter()
        ev = pytrec_eval.RelevanceEvaluator(qrels, {{"ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100"}})
        res = ev.evaluate(run)
        compute = time.perf_counter() - t1
        values = {{m: {{q: v[t] for q, v in res.items()}} for m, t in metrics.items()}}
    elif tool == "ranx":
        import pandas as pd
        from ranx import Qrels, Run, evaluate
        run_df = pd.read_parquet(run_path)
        qrels_df = pd.read_parquet(qrels_path)
        for df in (run_df, qrels_df):  # ranx wants object (str) id columns
            df["query_id"] = df["query_id"].astype(object)
            df["doc_id"] = df["doc_id"].astype(object)
        qrels = Qrels.from_df(qrels_df, q_id_col="query_id", doc_id_col="doc_id", score_col="relevance")
        run = Run.from_df(run_df, q_id_col="query_id", doc_id_col="doc_id", score_col="score")
        t1 = time.perf_counter()
        evaluate(qrels, run, list(ranx_names.values()), return_mean=False)
        compute = time.perf_counter() - t1
    elif tool == "floor":
        import polars as pl
        t1 = time.perf_counter()
        pl.scan_parquet(run_path).sort(["query_id", "score"], descending=[False, True]).collect()
        compute = time.perf_counter() - t1
    total = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    with open(out_path, "w") as fh:
        json.dump({{"total": total, "compute": compute, "rss_mb": rss, "values": values}}, fh)
    """
).format(metrics=METRICS, ranx=RANX)


def run_once(
    tool: str, run: Path, qrels: Path, memory_limit: str = "", metrics: str = "", query_chunks: int = 0
) -> dict[str, object]:
    """One repetition of one tool in its own process."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as fh:
        out = fh.name
    proc = subprocess.run([sys.executable, "-c", CHILD, tool, str(run), str(qrels), out, memory_limit, metrics,
                           str(query_chunks)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed"}
    with open(out) as fh:
        r: dict[str, object] = json.load(fh)
    os.unlink(out)
    return r


def summarise(reps: list[dict[str, object]]) -> dict[str, object]:
    """Median time over the repetitions (and their range), the largest peak RSS."""
    errors = [r for r in reps if "error" in r]
    if errors:
        return errors[0]
    totals = [float(r["total"]) for r in reps]  # type: ignore[arg-type]
    return {"total": statistics.median(totals), "min": min(totals), "max": max(totals),
            "compute": statistics.median(float(r["compute"]) for r in reps),  # type: ignore[arg-type]
            "rss_mb": max(float(r["rss_mb"]) for r in reps), "values": reps[-1]["values"]}  # type: ignore[arg-type]


def check(rankwise: dict[str, dict[str, float]], reference: dict[str, dict[str, float]], tool: str) -> None:
    for metric, ref in reference.items():
        got = rankwise[metric]
        if set(got) != set(ref):
            raise SystemExit(f"{tool}: queries differ from pytrec_eval's for {metric}")
        worst = max(abs(got[q] - ref[q]) for q in ref)
        if worst > 1e-9:
            raise SystemExit(f"{tool}: {metric} differs from pytrec_eval's by {worst}")


def bench(
    data: Path, reps: int, tools: list[str], memory_limit: str = "", metrics: str = "", query_chunks: int = 0
) -> list[tuple[str, dict[str, object]]]:
    run, qrels = data / "run.parquet", data / "qrels.parquet"
    if not run.exists():  # a folder of files (--files)
        run, qrels = data / "run", data / "qrels"
    # the repetitions are interleaved (every tool once, then again): a slow spell of the machine
    # then falls on every tool alike instead of on whichever tool was running
    runs: dict[str, list[dict[str, object]]] = {tool: [] for tool in tools}
    for _ in range(reps):
        for tool in tools:
            if not any("error" in r for r in runs[tool]):
                runs[tool].append(run_once(tool, run, qrels, memory_limit, metrics, query_chunks))
    results = [(tool, summarise(runs[tool])) for tool in tools]
    ref = dict(results).get("pytrec_eval", {}).get("values")
    for tool, r in results:
        if tool.startswith("rankwise") and ref and r.get("values") and not metrics:
            check(r["values"], ref, tool)  # type: ignore[arg-type]
    return results


def table(results: list[tuple[str, dict[str, object]]], rows: int) -> str:
    base = dict(results).get("rankwise-polars", {})
    lines = [
        f"rows: {rows:,}",
        "| tool | end to end (s) | min–max (s) | compute (s) | peak RSS (MB) | end to end / rankwise-polars | RSS / rankwise-polars |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for tool, r in results:
        if "error" in r:
            lines.append(f"| {tool} | error: {r['error']} | | | | | |")
            continue
        lines.append(f"| {tool} | {r['total']:.2f} | {r['min']:.2f}–{r['max']:.2f} | {r['compute']:.2f} "
                     f"| {r['rss_mb']:.0f} | {ratio(r, base)} | {ratio(r, base, 'rss_mb')} |")
    return "\n".join(lines + targets(dict(results)))


def ratio(a: dict[str, object], b: dict[str, object], key: str = "total") -> str:
    """a's median time (or peak RSS, ``key``) over b's, or n/a when either is missing."""
    return f"{float(a[key]) / float(b[key]):.2f}" if key in a and key in b else "n/a"  # type: ignore[arg-type]


def targets(results: dict[str, dict[str, object]]) -> list[str]:
    """The performance issue's ratios, per rankwise engine, from the medians above."""
    def of(a: str, b: str, key: str = "total") -> str:
        return ratio(results.get(a, {}), results.get(b, {}), key)
    lines = []
    for engine in (t for t in results if t.startswith("rankwise") and "total" in results[t]):
        lines.append(
            f"{engine}: ranx / it {of('ranx', engine)} (target >= 10), pytrec_eval / it "
            f"{of('pytrec_eval', engine)} (>= 3), it / floor {of(engine, 'floor')} (<= 1.5), "
            f"RSS it / ranx {of(engine, 'ranx', 'rss_mb')} (<= 0.3)"
        )
    return ["", *lines] if lines else []


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="10,000 queries x 100 documents (1M rows)")
    p.add_argument("--queries", type=int, default=None)
    p.add_argument("--docs", type=int, default=100)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "rankwise-bench")
    p.add_argument("--tools", default="floor,rankwise-polars,rankwise-duckdb,pytrec_eval,ranx")
    p.add_argument("--files", type=int, default=1, help="generate folders of this many Parquet files")
    p.add_argument("--memory-limit", default="", help="DuckDB engine memory limit, e.g. 2GB (out of core)")
    p.add_argument("--metrics", default="", help="rankwise only: metrics as a JSON list, e.g. '[\"nDCG@10\"]' or '[\"official\"]'")
    p.add_argument("--query-chunks", type=int, default=0, help="Polars engine: evaluate in this many query groups (out of core)")
    a = p.parse_args()
    queries = a.queries or (10_000 if a.quick else 100_000)
    data = a.data / f"{queries}x{a.docs}" / f"files{a.files}"
    if not (data / "run.parquet").exists() and not (data / "run").exists():
        subprocess.run([sys.executable, str(HERE / "generate.py"), str(data), "--queries", str(queries),
                        "--docs", str(a.docs), "--files", str(a.files)], check=True)
    results = bench(data, a.reps, a.tools.split(","), a.memory_limit, a.metrics, a.query_chunks)
    print(table(results, queries * a.docs))


if __name__ == "__main__":
    main()
