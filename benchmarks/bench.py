"""Benchmark rankwise (each engine) against pytrec_eval, ranx and ir_measures on the same files,
and print the performance issue's targets as met or MISSED.

    python benchmarks/bench.py                  # everything below at 10M rows (100,000 queries x 100 docs)
    python benchmarks/bench.py --quick          # the same at 1M rows (the small and CLI parts as they are)
    python benchmarks/bench.py --compare        # only the five-measure comparison (target 1)
    python benchmarks/bench.py --all-trec       # only rankwise's all_trec against its five measures (target 2)
    python benchmarks/bench.py --small          # only in-process calls on 50x1,000 and 1,000x100 (target 3)
    python benchmarks/bench.py --cli            # only `rankwise eval` on TREC files, start to first output (target 4)
    python benchmarks/bench.py --beyond         # only the popularity family (train=) beside rectools and the
                                                # feature-diversity family (features=, 64-dimensional embeddings)
                                                # (issue 35), then the newer families' groups
                                                # (FAMILIES; --families, --no-earlier)
    python benchmarks/bench.py --queries 1000000 --files 10 --reps 1
                                                # 100M rows out of core: DuckDB under --memory-limit (2GB),
                                                # Polars in --query-chunks (10) (target 5)
    python benchmarks/bench.py --queries 10000000 --files 100 --reps 1
                                                # 1,000M rows: the same, under 4 GB (not run so far)
    python benchmarks/bench.py --quick --tools pytrec_eval:pyarrow,pytrec_eval:polars --compare
                                                # the ways of feeding a peer (benchmarks/README.md)

Each configuration (a tool and its measures) runs in its own process (``child.py``), several
repetitions, interleaved: every configuration once, then again, so that a slow spell of the
machine falls on all alike. Medians, ranges, the peak RSS of each process. Every rankwise
configuration's per-query values are checked against pytrec_eval's (to 1e-9) in the same run;
out of core, where pytrec_eval cannot hold the data, against pytrec_eval on a sample of the
queries. The popularity family (``--beyond``: the nine metrics at k=10 from the training
interactions, one call) is checked against rectools' MeanInvUserFreq and AvgRecPopularity per
user instead; its feature-diversity part (ILD with the cosine distance and ILS at k=10 from the
items' embeddings) against a direct numpy computation on a sample of the users. A failed check is
printed and makes the exit status 1. Peers: pip install -e
'.[bench]' ir-measures rectools.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CHILD = HERE / "child.py"
FIVE = {"nDCG@10": "ndcg_cut_10", "AP": "map", "RR": "recip_rank", "P@10": "P_10", "R@100": "recall_100"}
ENGINES = ("rankwise-polars", "rankwise-duckdb")
PEERS = ("pytrec_eval", "ranx", "ir_measures")
DEFAULT_TOOLS = ("floor", "floor-duckdb", *ENGINES, *PEERS)
FLOORS = {"rankwise-polars": "floor", "rankwise-duckdb": "floor-duckdb"}
"""Each engine's floor: reading both files, the join and each query's order, no metric (child.py);
with --beyond also the training file read and each item's popularity joined."""
FLOOR_TARGETS = {"rankwise-polars": 1.10, "rankwise-duckdb": 1.15}
"""Issue 38: each engine end to end at most this many times its own floor (10M rows, five measures)."""
PEAK_MB = {"rankwise-polars": 810.0, "rankwise-duckdb": 1330.0}
"""Issue 38: each engine's peak RSS at 10M rows at most what it was when the issue was filed."""
BEYOND_TOOLS = ("floor", "floor-duckdb", *ENGINES, "rectools")
BEYOND_CHECKED = ("MIUF@10", "ARP@10")
"""The popularity metrics checked per user against rectools' MeanInvUserFreq(10) and AvgRecPopularity(10)."""
FEATURE_TOOLS = ("floor", "floor-duckdb", *ENGINES)
"""The feature-diversity rows of --beyond: no peer computes ILD with the cosine distance on
these embeddings in this environment (rectools' IntraListDiversity has the Hamming distance
only; recommenders' ``user_diversity`` needs pandas < 3): the floors and a direct numpy
computation on a sample of the users stand in."""
FEATURE_SAMPLE = 200
"""Users whose ILD@10 and ILS@10 the numpy computation checks."""
SIDE_INPUTS = ("train", "features", "categories", "groups", "target", "catalog", "base_run")
"""The side inputs generate.py writes beside the run (rankwise's keywords)."""


@dataclass(frozen=True)
class Family:
    """A group of the newer beyond-accuracy families (--beyond): its metrics at k=10, evaluated in
    one call; the side inputs they read; the floor's steps (child.FLOOR_STEPS: what any evaluation
    of them must read and join); whether its metrics are set-level (one value per run); the ones
    rectools computes too (checked against it, per user)."""

    key: str
    title: str
    metrics: tuple[str, ...]
    reads: tuple[str, ...]
    floor: tuple[str, ...]
    set_level: bool = False
    peer: tuple[str, ...] = ()


FAMILIES = (
    Family("rectools", "User coverage and serendipity (rectools' definitions)", ("UserCoverage@10", "Serendipity@10"),
           ("train", "catalog"), ("relevance", "popularity", "catalog"), peer=("UserCoverage@10", "Serendipity@10")),
    Family("cooccurrence", "Co-occurrence serendipity and ILD (recommenders' definitions)",
           ("Serendipity(definition='recommenders')@10", "ILD(distance='cooccurrence')@10"), ("train",),
           ("relevance", "history", "pairs")),
    Family("feature_serendipity", "Feature serendipity (recommenders' with the cosine of the features)",
           ("Serendipity(definition='recommenders', similarity='cosine')@10",), ("train", "features"),
           ("relevance", "history", "features")),
    Family("categories", "Category family", ("CategoryDiversity@10", "CategoryEntropy@10", "Miscalibration@10"),
           ("categories", "train"), ("categories", "history_categories")),
    Family("fairness", "Fair exposure (groups=, target=) and expected exposure",
           ("AWRF@10", "nDCG_AWRF@10", "GroupEE_L@10", "GroupEE_D@10", "GroupEE_R@10", "EE_L@10", "EE_D@10",
            "EE_R@10"), ("groups", "target"), ("relevance", "groups")),
    Family("unexpectedness", "Unexpectedness against a base run", ("Unexpectedness@10",), ("base_run",),
           ("base_run",)),
    Family("sets", "Set-level metrics (one value per run)",
           ("CatalogCoverage@10", "Gini@10", "Gini(definition='elliot')@10", "Entropy@10", "SelfInformation@10",
            "Personalization@10", "PopRSP@10", "PopREO@10", "GroupAttention@10", "GroupExposure@10"),
           ("catalog", "train", "groups"), ("relevance", "popularity", "catalog", "groups", "train_users"),
           set_level=True, peer=("CatalogCoverage@10",)),
)
"""The newer families' groups --beyond times (issue 35), beside the popularity and feature-diversity parts."""
SMALL_SIZES = ((50, 1000), (1000, 100))
TOLERANCE = 1e-9
# Measures of all_trec that pytrec_eval (trec_eval 9.0.8) gives differently by design, left out
# of the check: the text relstring; gm_map and gm_bpref, whose per-query values pytrec_eval
# gives as logarithms; the interpolated precisions (and 11pt_avg, their mean), where trec_eval 9
# rounds recall levels (rankwise reproduces it with trec_eval=9, not the default 10).
NOT_COMPARABLE = ("relstring", "gm_map", "gm_bpref", "11pt_avg", "iprec_at_recall_")


@dataclass
class Config:
    """One row of a table: a tool (or tool:feeding) and the measures it computes."""

    tool: str
    # five, all_trec, popularity or feature_diversity (--beyond), or rankwise metrics as a JSON list (--metrics)
    measures: str = "five"
    family: str = ""  # a newer family's key (--beyond; its metrics are the measures)

    @property
    def label(self) -> str:
        """The tool alone for a part's own measures (the five; the popularity and feature-diversity
        families of --beyond, and its newer families)."""
        own = ("five", "popularity", "feature_diversity")
        return self.tool if self.measures in own or self.family else f"{self.tool} [{self.measures}]"

    @property
    def is_rankwise(self) -> bool:
        return self.tool.startswith("rankwise")


@dataclass
class Result:
    config: Config
    reps: list[dict[str, Any]] = field(default_factory=list)
    check: str = ""
    failed: bool = False

    @property
    def error(self) -> str | None:
        return next((r["error"] for r in self.reps if "error" in r), None)

    def median(self, key: str) -> float:
        return statistics.median(float(r[key]) for r in self.reps)

    def peak(self, key: str = "rss_mb") -> float:
        return max(float(r[key]) for r in self.reps)


# --- pure helpers (tests/house/test_bench.py) --------------------------------------------------


def verdict(measured: float | None, target: float, at_least: bool) -> str:
    """``met`` / ``MISSED`` for a measured ratio against its target (``n/a`` without a measure)."""
    if measured is None:
        return "n/a"
    ok = measured >= target if at_least else measured <= target
    return "met" if ok else "MISSED"


def target_line(name: str, measured: float | None, target: float, at_least: bool, unit: str = "x",
                detail: str = "") -> str:
    """One printed target: its verdict, the measured value and the target."""
    sign = ">=" if at_least else "<="
    shown = "n/a" if measured is None else f"{measured:.2f}{unit}"
    tail = f" ({detail})" if detail else ""
    return f"{verdict(measured, target, at_least):6} {name}: {shown} (target {sign} {target:g}{unit}){tail}"


def comparable(measure: str) -> bool:
    """Whether a measure's per-query values can be checked against pytrec_eval's."""
    return measure != "query_id" and not any(measure.startswith(p) for p in NOT_COMPARABLE)


def difference(a: Any, b: Any) -> float:
    """Two values' absolute difference; 0 where both are NULL (None or NaN), infinite where one
    is NULL and the other not."""
    a_null, b_null = a is None or a != a, b is None or b != b
    if a_null or b_null:
        return 0.0 if a_null and b_null else math.inf
    return abs(float(a) - float(b))


def worst_differences(got: dict[str, dict[str, Any]], ref: dict[str, dict[str, Any]]) -> dict[str, float | str]:
    """For each measure both have (``comparable`` ones), the largest absolute per-query
    difference (:func:`difference`: NULL against a number is infinite), or a text saying why
    there is none (different queries)."""
    out: dict[str, float | str] = {}
    for measure in sorted(set(got) & set(ref)):
        if not comparable(measure):
            continue
        g, r = got[measure], ref[measure]
        if set(g) != set(r):
            out[measure] = f"queries differ ({len(set(g) ^ set(r))} not in both)"
            continue
        out[measure] = max((difference(g[q], r[q]) for q in r), default=0.0)
    return out


def summarise_check(worst: dict[str, float | str], needed: tuple[str, ...] = tuple(FIVE.values())) -> tuple[str, bool]:
    """A check's text for the table and whether it failed (a needed measure missing, a
    difference above the tolerance, or different queries)."""
    missing = [m for m in needed if m not in worst]
    bad = {m: w for m, w in worst.items() if isinstance(w, str) or w > TOLERANCE}
    if missing:
        return f"FAILED: no {', '.join(missing)}", True
    if bad:
        m, w = next(iter(bad.items()))
        shown = w if isinstance(w, str) else f"{w:.3g}"
        return f"FAILED: {len(bad)} measures, e.g. {m} {shown}", True
    return f"= pytrec_eval ({len(worst)} measures)", False


def ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else a / b


def beyond_ratios(results: list[Result], peers: bool = True) -> list[str]:
    """--beyond's ratios of medians (end to end): each engine to its floor and (``peers``) to
    rectools, and its peak RSS to rectools'."""
    ok = {r.config.tool: r for r in results if r.error is None and r.reps}
    lines = []
    for e in (e for e in ENGINES if e in ok):
        parts = []
        floor = ok.get(FLOORS[e])
        if floor is not None:
            parts.append(f"÷ its floor ({FLOORS[e]}) {ratio(ok[e].median('total'), floor.median('total')):.2f}x")
        peer = ok.get("rectools") if peers else None
        if peer is not None:
            rel = ratio(ok[e].median("total"), peer.median("total"))
            back = ratio(peer.median("total"), ok[e].median("total"))
            parts.append(f"÷ rectools {rel:.2f}x (rectools ÷ it {back:.2f}x)")
        mem = f"peak RSS {ok[e].peak():.0f} MB"
        if peer is not None:
            mem += f", ÷ rectools' {ratio(ok[e].peak(), peer.peak()):.2f}x"
        lines.append(f"{e}: " + "; ".join([*parts, mem]))
    return lines


def pair_means(vectors: Any) -> tuple[float, float]:
    """ILD (cosine distance) and ILS of one list: the mean of 1 − cos and of cos over the
    unordered pairs of the rows of ``vectors`` (a numpy matrix, one item a row, in rank order;
    cos 0 against a zero vector), straight from the definitions; (0, NaN) without a pair."""
    import numpy as np

    v = np.asarray(vectors, dtype=np.float64)
    n = len(v)
    if n < 2:
        return 0.0, float("nan")
    norms = np.sqrt((v * v).sum(axis=1))
    cos = [float(v[i] @ v[j] / (norms[i] * norms[j])) if norms[i] * norms[j] > 0 else 0.0
           for i in range(n) for j in range(i)]
    return float(np.mean([1.0 - c for c in cos])), float(np.mean(cos))


def feature_diversity_reference(run: Path, features: Path, users: list[str]) -> dict[str, dict[str, Any]]:
    """ILD(distance='cosine')@10 and ILS@10 of ``users`` by :func:`pair_means` on numpy: each
    user's top 10 by score, ties by doc id descending as text (rankwise's default ``ties``), and
    the items' vectors read from the features file."""
    import polars as pl

    def source(path: Path) -> str:
        return str(path / "*.parquet") if path.is_dir() else str(path)

    top = (
        pl.scan_parquet(source(run)).with_columns(pl.col("query_id", "doc_id").cast(pl.String))
        .filter(pl.col("query_id").is_in(users))
        .sort(["query_id", "score", "doc_id"], descending=[False, True, True])
        .group_by("query_id", maintain_order=True).head(10).collect()
    )
    vectors = pl.scan_parquet(source(features)).with_columns(pl.col("doc_id").cast(pl.String)).join(
        top.lazy().select("doc_id").unique(), on="doc_id", how="semi"
    ).collect()
    vector = dict(zip(vectors["doc_id"].to_list(), vectors[vectors.columns[1]].to_list(), strict=True))
    out: dict[str, dict[str, Any]] = {"ILD(distance='cosine')@10": {}, "ILS@10": {}}
    for (user,), rows in top.group_by("query_id", maintain_order=True):
        ild, ils = pair_means([vector[d] for d in rows["doc_id"].to_list()])
        out["ILD(distance='cosine')@10"][str(user)] = ild
        out["ILS@10"][str(user)] = None if ils != ils else ils
    return out


def parse_size(text: str) -> float:
    """A memory size as DuckDB takes it (``2GB``, ``512MB``) in MB."""
    units = {"KB": 1 / 1000, "MB": 1.0, "GB": 1000.0, "TB": 1e6, "KIB": 1 / 1024, "MIB": 1.0, "GIB": 1024.0}
    t = text.strip().upper().replace(" ", "")
    for unit in sorted(units, key=len, reverse=True):
        if t.endswith(unit):
            return float(t[: -len(unit)]) * units[unit]
    return float(t) / 1e6


# --- running ------------------------------------------------------------------------------


def env() -> dict[str, str]:
    """The children's environment: this checkout's rankwise first on the path, and Python
    allowed to write its bytecode (an installed package has its ``.pyc`` files; without them
    each start compiles rankwise's modules again: 0.3 s more for the command line here, where
    ``PYTHONDONTWRITEBYTECODE`` is set)."""
    e = dict(os.environ)
    e.pop("PYTHONDONTWRITEBYTECODE", None)
    src = str(HERE.parent / "src")
    e["PYTHONPATH"] = src + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
    return e


def run_child(config: Config, run: Path, qrels: Path, work: Path, extra: list[str]) -> dict[str, Any]:
    """One repetition of one configuration in its own process."""
    fd, name = tempfile.mkstemp(suffix=".json", dir=work)
    os.close(fd)
    cmd = [sys.executable, str(CHILD), config.tool, str(run), str(qrels), name, "--measures", config.measures, *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env())
    if proc.returncode != 0 or not Path(name).read_text():
        lines = proc.stderr.strip().splitlines()
        return {"error": lines[-1] if lines else f"exit status {proc.returncode}"}
    r: dict[str, Any] = json.loads(Path(name).read_text())
    return r


def read_values(path: str | None) -> dict[str, dict[str, Any]]:
    """A child's per-query values: measure -> query id -> value."""
    if not path or not Path(path).exists():
        return {}
    import polars as pl

    frame = pl.read_parquet(path)
    queries = frame["query_id"].to_list()
    return {c: dict(zip(queries, frame[c].to_list(), strict=True)) for c in frame.columns if c != "query_id"}


def interleaved(configs: list[Config], reps: int, run: Path, qrels: Path, work: Path,
                extra: dict[str, list[str]]) -> list[Result]:
    """Every configuration once, then again (``reps`` times); a configuration that fails once
    is not run again."""
    results = [Result(c) for c in configs]
    for i in range(reps):
        for r in results:
            if r.error is None:
                print(f"  [{i + 1}/{reps}] {r.config.label}", file=sys.stderr, flush=True)
                r.reps.append(run_child(r.config, run, qrels, work, extra.get(r.config.tool, [])))
    return results


def check_all(results: list[Result], reference: dict[str, dict[str, Any]], ref_name: str = "pytrec_eval",
              needed: tuple[str, ...] = tuple(FIVE.values())) -> None:
    """Each configuration's last values against the reference's; rankwise must agree, on at
    least the ``needed`` measures (the five; none for --metrics, which checks what it shares)."""
    for r in results:
        if r.error is not None or r.config.tool.startswith(("floor", "pytrec_eval", "rectools")):
            continue
        got = read_values(r.reps[-1].get("values"))
        if not got:
            r.check = "no values"
            r.failed = r.config.is_rankwise
            continue
        if not reference:
            r.check, r.failed = f"not checked (no values from {ref_name})", r.config.is_rankwise
            continue
        worst = worst_differences(got, reference)
        if not worst and not needed:
            r.check = "not checked (no measure in common with pytrec_eval)"
            continue
        r.check, failed = summarise_check(worst, needed)
        r.check = r.check.replace("pytrec_eval", ref_name)
        r.failed = failed and r.config.is_rankwise
        if failed and not r.config.is_rankwise:  # a peer's own differences: reported, not fatal
            r.check = "differs: " + r.check.removeprefix("FAILED: ")


def table(title: str, results: list[Result], base: str = "rankwise-polars") -> list[str]:
    """A part's table; its ratio column divides by the configuration labelled ``base``."""
    ref = next((r for r in results if r.config.label == base and r.error is None), None)
    lines = [
        f"### {title}",
        "",
        f"| configuration | end to end (s, median) | min–max (s) | CPU (s) | compute (s) | peak RSS (MB) | ÷ {base} | check |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        if r.error is not None:
            lines.append(f"| {r.config.label} | error: {r.error} | | | | | | |")
            continue
        totals = [float(x["total"]) for x in r.reps]
        rel = ratio(r.median("total"), ref.median("total")) if ref else None
        lines.append(
            f"| {r.config.label} | {r.median('total'):.2f} | {min(totals):.2f}–{max(totals):.2f} | "
            f"{r.median('cpu'):.2f} | {r.median('compute'):.2f} | {r.peak():.0f} | "
            f"{'n/a' if rel is None else f'{rel:.2f}'} | {r.check or '—'} |"
        )
    return lines


# --- the parts ------------------------------------------------------------------------------


def data_dir(root: Path, queries: int, docs: int, files: int, trec: bool = False, train: bool = False,
             features: bool = False, side: bool = False) -> Path:
    """The generated files (made on first use, and again where the TREC files, the training
    file, the item features or the newer families' side inputs asked for are missing), one folder
    per size."""
    data = root / f"{queries}x{docs}" / f"files{files}"
    exists = (data / "run.parquet").exists() or (data / "run").exists()
    no_train = not ((data / "train.parquet").exists() or (data / "train").exists())
    no_features = not ((data / "features.parquet").exists() or (data / "features").exists())
    no_side = not all(side_file(data, name).exists() for name in SIDE_INPUTS)
    if (not exists or (trec and not (data / "run.trec").exists()) or (train and no_train)
            or (features and no_features) or (side and no_side)):
        cmd = [sys.executable, str(HERE / "generate.py"), str(data), "--queries", str(queries), "--docs", str(docs),
               "--files", str(files), *(["--trec"] if trec else [])]
        subprocess.run(cmd, check=True, env=env())
    return data


def inputs(data: Path) -> tuple[Path, Path]:
    run, qrels = data / "run.parquet", data / "qrels.parquet"
    return (run, qrels) if run.exists() else (data / "run", data / "qrels")


def side_file(data: Path, name: str) -> Path:
    """A side input beside the run (``SIDE_INPUTS``): NAME.parquet, or a folder NAME/ of them."""
    return data / f"{name}.parquet" if (data / f"{name}.parquet").exists() or name == "target" else data / name


def training(data: Path) -> Path:
    """The training interactions beside the run: a file, or a folder of them."""
    return data / "train.parquet" if (data / "train.parquet").exists() else data / "train"


def sample_queries(qrels: Path, n: int, path: Path) -> Path:
    """About ``n`` query ids spread over the qrels (for the check out of core)."""
    import polars as pl

    source = str(qrels / "*.parquet") if qrels.is_dir() else str(qrels)
    ids = pl.scan_parquet(source).select(pl.col("query_id").cast(pl.String).unique()).collect()["query_id"]
    step = max(1, len(ids) // n)
    path.write_text(json.dumps(ids.sort().gather_every(step).to_list()))
    return path


def compare_part(a: argparse.Namespace, data: Path, tools: list[str], all_trec: bool, five: bool,
                 work: Path) -> tuple[list[Result], list[str]]:
    """The end-to-end comparison from the Parquet files, with the five measures and/or all_trec."""
    run, qrels = inputs(data)
    out_of_core = a.files > 1 or a.memory_limit or a.query_chunks
    # all_trec runs beside each engine's five measures (target 2 is their ratio); its reference,
    # pytrec_eval with all its measures, runs once after the timed repetitions
    five_tools = tools if five else [t for t in tools if t in ENGINES]
    configs = [Config(t, a.metrics) if a.metrics and t.startswith("rankwise") else Config(t) for t in five_tools]
    if all_trec:
        configs += [Config(t, "all_trec") for t in tools if t in ENGINES]
    extra: dict[str, list[str]] = {}
    if a.memory_limit:
        extra["rankwise-duckdb"] = ["--memory-limit", a.memory_limit]
    if a.query_chunks:
        extra["rankwise-polars"] = ["--query-chunks", str(a.query_chunks)]
    sample = None
    if out_of_core and not any(t.startswith("pytrec_eval") for t in tools):
        sample = sample_queries(qrels, 2000, work / "sample.json")
        for t in tools:
            extra[t] = [*extra.get(t, []), "--sample", str(sample)]
    results = interleaved(configs, a.reps, run, qrels, work, extra)
    ref_name = "pytrec_eval"
    refs: dict[str, dict[str, dict[str, Any]]] = {}
    for r in results:
        if r.config.tool == "pytrec_eval" and r.error is None:
            refs[r.config.measures] = read_values(r.reps[-1].get("values"))
    if sample is not None:  # pytrec_eval on the sampled queries alone
        ref_name = f"pytrec_eval on {len(json.loads(sample.read_text())):,} sampled queries"
    # the five measures' reference for the five; pytrec_eval's every measure for all_trec and --metrics
    needed = {"five" if m == "five" else "all_trec" for m in {c.measures for c in configs}} - set(refs)
    for measures in sorted(needed):  # one untimed run of the reference
        print(f"  reference: pytrec_eval [{measures}]", file=sys.stderr, flush=True)
        one = run_child(Config("pytrec_eval", measures), run, qrels, work,
                        ["--sample", str(sample)] if sample is not None else [])
        if "error" in one:
            print(f"  reference failed: {one['error']}", file=sys.stderr)
        refs[measures] = read_values(one.get("values"))
    for measures in {c.measures for c in configs}:
        ref = refs.get("five" if measures == "five" else "all_trec") or refs.get("all_trec") or {}
        must = tuple(FIVE.values()) if measures in ("five", "all_trec") else ()
        check_all([r for r in results if r.config.measures == measures], ref, ref_name, must)
    rows = a.queries_total
    lines = table(f"{rows:,} rows ({data.name}, {a.reps} repetitions)", results)
    return results, lines


def features_file(data: Path) -> Path:
    """The item features beside the run: a file, or a folder of them."""
    return data / "features.parquet" if (data / "features.parquet").exists() else data / "features"


def feature_part(a: argparse.Namespace, data: Path, work: Path) -> tuple[list[Result], list[str]]:
    """The feature-diversity family at k=10 from the items' embeddings (issue 35): the floors
    with the features file, both engines (ILD with the cosine distance and ILS in one call);
    rankwise's values on :data:`FEATURE_SAMPLE` users (spread over the sorted ids) checked
    against :func:`feature_diversity_reference` (numpy)."""
    run, qrels = inputs(data)
    features = features_file(data)
    tools = [t for t in a.tools.split(",") if t in FEATURE_TOOLS] if a.tools else list(FEATURE_TOOLS)
    configs = [Config(t, "feature_diversity") for t in tools]
    extra = {t: ["--features", str(features)] for t in FEATURE_TOOLS}
    if a.memory_limit:
        extra["rankwise-duckdb"] += ["--memory-limit", a.memory_limit]
    if a.query_chunks:
        extra["rankwise-polars"] += ["--query-chunks", str(a.query_chunks)]
    sample = json.loads(sample_queries(run, FEATURE_SAMPLE, work / "feature_sample.json").read_text())
    for t in FEATURE_TOOLS:
        extra[t] += ["--sample", str(work / "feature_sample.json")]
    results = interleaved(configs, a.reps, run, qrels, work, extra)
    print("  reference: numpy", file=sys.stderr, flush=True)
    reference = feature_diversity_reference(run, features, sample)
    check_all(results, reference, f"numpy on {len(sample)} users", ("ILD(distance='cosine')@10", "ILS@10"))
    dims = _dims(features)
    title = (f"Feature-diversity family at k=10 (ILD cosine, ILS), {a.queries_total:,} rows, {features.name} of "
             f"{_rows(features):,} items x {dims} dimensions ({a.reps} repetitions)")
    lines = [*table(title, results), "", *beyond_ratios(results, peers=False)]
    return results, lines


def _dims(path: Path) -> int:
    """The length of the first vector of a features file (or folder)."""
    import polars as pl

    source = str(path / "*.parquet") if path.is_dir() else str(path)
    frame = pl.scan_parquet(source).head(1).collect()
    return int(frame[frame.columns[1]].list.len().item())


def beyond_part(a: argparse.Namespace, data: Path, work: Path) -> tuple[list[Result], list[str]]:
    """The popularity family at k=10 from the training interactions (issue 35): the floors with
    the training file, both engines (all nine metrics in one call), rectools; rankwise's MIUF@10
    and ARP@10 per user checked against rectools' (its last repetition, or one untimed run)."""
    run, qrels = inputs(data)
    train = training(data)
    tools = [t for t in a.tools.split(",") if t in BEYOND_TOOLS] if a.tools else list(BEYOND_TOOLS)
    configs = [Config(t, "popularity") for t in tools]
    extra = {t: ["--train", str(train)] for t in BEYOND_TOOLS}
    if a.memory_limit:
        extra["rankwise-duckdb"] += ["--memory-limit", a.memory_limit]
    if a.query_chunks:
        extra["rankwise-polars"] += ["--query-chunks", str(a.query_chunks)]
    results = interleaved(configs, a.reps, run, qrels, work, extra)
    peer = next((r for r in results if r.config.tool == "rectools" and r.error is None), None)
    if peer is not None:
        reference = read_values(peer.reps[-1].get("values"))
    else:  # one untimed run of the reference
        print("  reference: rectools", file=sys.stderr, flush=True)
        one = run_child(Config("rectools", "popularity"), run, qrels, work, extra["rectools"])
        if "error" in one:
            print(f"  reference failed: {one['error']}", file=sys.stderr)
        reference = read_values(one.get("values"))
    check_all(results, reference, "rectools", BEYOND_CHECKED)
    title = (f"Popularity family at k=10, {a.queries_total:,} rows, {train.name} of "
             f"{_rows(train):,} training rows ({a.reps} repetitions)")
    lines = [*table(title, results, base="rectools"), "", *beyond_ratios(results)]
    return results, lines


def families_part(a: argparse.Namespace, data: Path, work: Path,
                  families: tuple[Family, ...]) -> tuple[list[Result], list[str]]:
    """The newer families (issue 35), a table each: the floors (the family's steps), both engines
    (its metrics in one call, with the side inputs it reads), and rectools where it computes some
    of them; interleaved within each family. rankwise's values are checked per user against
    rectools' (its last repetition) where it has the family's metrics, else the Polars engine's
    against the DuckDB engine's (both engines' paths agree: no outside reference)."""
    run, qrels = inputs(data)
    all_results: list[Result] = []
    lines: list[str] = []
    for family in families:
        side = [x for name in family.reads for x in ("--side", f"{name}={side_file(data, name)}")]
        tools = ["floor", "floor-duckdb", *ENGINES, *(["rectools"] if family.peer else [])]
        if a.tools:
            tools = [t for t in tools if t in a.tools.split(",")]
        measures = json.dumps(list(family.metrics))
        configs = [Config(t, measures, family.key) for t in tools]
        extra = {t: list(side) for t in tools}
        for floor in ("floor", "floor-duckdb"):
            if floor in extra:  # --tools may leave the floors out
                extra[floor] += ["--floor-steps", ",".join(family.floor)]
        for engine in ENGINES:
            if engine in extra:
                extra[engine] += ["--set-level"] if family.set_level else []
        if a.memory_limit:
            extra["rankwise-duckdb"] = [*extra.get("rankwise-duckdb", []), "--memory-limit", a.memory_limit]
        if a.query_chunks:
            extra["rankwise-polars"] = [*extra.get("rankwise-polars", []), "--query-chunks", str(a.query_chunks)]
        print(f"  family: {family.key}", file=sys.stderr, flush=True)
        results = interleaved(configs, a.reps, run, qrels, work, extra)
        if family.peer:
            peer = next((r for r in results if r.config.tool == "rectools" and r.error is None), None)
            if peer is None:  # one untimed run of the reference
                print("  reference: rectools", file=sys.stderr, flush=True)
                peer = Result(Config("rectools", measures, family.key),
                              [run_child(Config("rectools", measures, family.key), run, qrels, work, side)])
            if peer.error is not None:
                print(f"  reference failed: {peer.error}", file=sys.stderr)
            check_all(results, read_values(peer.reps[-1].get("values")), "rectools", family.peer)
        engines_agree(results, family.metrics)
        reads = ", ".join(f"{name}=" for name in family.reads)
        title = (f"{family.title} at k=10, {a.queries_total:,} rows, reading {reads} ({a.reps} repetitions)")
        base = "rectools" if family.peer and any(r.config.tool == "rectools" for r in results) else "rankwise-polars"
        lines += [*table(title, results, base=base), "", *beyond_ratios(results, peers=bool(family.peer)), ""]
        all_results += results
    return all_results, lines


def engines_agree(results: list[Result], metrics: tuple[str, ...]) -> None:
    """The Polars engine's last values against the DuckDB engine's on every one of ``metrics``
    (to the tolerance; the two engines' paths are apart from the SQL up), appended to the Polars
    row's check (the DuckDB row says it is the reference); a difference fails the check."""
    by_tool = {r.config.tool: r for r in results if r.error is None and r.reps}
    polars, duckdb = by_tool.get("rankwise-polars"), by_tool.get("rankwise-duckdb")
    if polars is None or duckdb is None:
        return
    worst = worst_differences(read_values(polars.reps[-1].get("values")), read_values(duckdb.reps[-1].get("values")))
    text, failed = summarise_check(worst, metrics)
    text = text.replace("pytrec_eval", "rankwise-duckdb")
    polars.check = f"{polars.check}; {text}" if polars.check else text
    polars.failed |= failed
    duckdb.check = f"{duckdb.check}; (the Polars engine's reference)" if duckdb.check else "(the Polars engine's reference)"


def _rows(path: Path) -> int:
    """A Parquet file's (or folder's) row count, from its metadata."""
    import polars as pl

    source = str(path / "*.parquet") if path.is_dir() else str(path)
    return int(pl.scan_parquet(source).select(pl.len()).collect().item())


def small_part(a: argparse.Namespace, work: Path) -> tuple[list[str], list[str], bool]:
    """In-process calls on small inputs: CPU per call, one process per tool, each engine beside
    its floor called the same way (the join and each query's order on the in-memory frames)."""
    lines: list[str] = []
    verdicts: list[str] = []
    failed = False
    tools = ("pytrec_eval", *[t for e in ENGINES for t in (FLOORS[e], e)])
    for queries, docs in SMALL_SIZES:
        data = data_dir(a.data, queries, docs, 1)
        run, qrels = inputs(data)
        results = interleaved([Config(t) for t in tools], 1, run, qrels, work,
                              {t: ["--calls", str(a.calls)] for t in tools})
        ref = next(r for r in results if r.config.tool == "pytrec_eval")
        check_all(results, read_values(ref.reps[-1].get("values")) if ref.error is None else {})
        lines += [f"### In-process calls, {queries:,} queries x {docs:,} documents ({a.calls} calls after a warm-up)", "",
                  "| tool | CPU per call (ms, median) | wall per call (ms, median) | ÷ pytrec_eval (CPU) "
                  "| ÷ its floor (CPU) | check |",
                  "| --- | --- | --- | --- | --- | --- |"]
        cpus = {r.config.tool: statistics.median(r.reps[-1]["calls_cpu"]) for r in results if r.error is None}
        for r in results:
            if r.error is not None:
                lines.append(f"| {r.config.tool} | error: {r.error} | | | | |")
                continue
            cpu = cpus[r.config.tool]
            wall = statistics.median(r.reps[-1]["calls_wall"])
            rel = ratio(cpu, cpus.get("pytrec_eval"))
            floor = ratio(cpu, cpus.get(FLOORS.get(r.config.tool, ""))) if r.config.tool in FLOORS else None
            lines.append(f"| {r.config.tool} | {cpu * 1000:.1f} | {wall * 1000:.1f} | "
                         f"{'n/a' if rel is None else f'{rel:.2f}'} | {'' if floor is None else f'{floor:.2f}'} "
                         f"| {r.check or '—'} |")
            failed |= r.failed
            if r.config.tool == "rankwise-duckdb" and (queries, docs) == SMALL_SIZES[0]:
                under = ratio(cpus.get("floor-duckdb"), cpus.get("pytrec_eval"))
                verdicts.append(target_line(f"38. {r.config.tool}, {queries}x{docs}: CPU per call ÷ pytrec_eval's",
                                            rel, 2, at_least=False,
                                            detail="" if under is None else f"its floor: {under:.2f}x"))
        lines.append("")
    return lines, verdicts, failed


def first_output(cmd: list[str]) -> tuple[float, float, float, str]:
    """Wall seconds from the start of ``cmd`` to its first byte on stdout and to its exit, its
    CPU seconds (user + system, the load of the machine aside), and its output."""
    import resource

    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(), bufsize=0)
    assert proc.stdout is not None
    first = proc.stdout.read(1)
    t_first = time.perf_counter() - t
    rest, err = proc.communicate()
    t_end = time.perf_counter() - t
    e = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {err.decode().strip().splitlines()[-1:]}")
    cpu = e.ru_utime + e.ru_stime - c.ru_utime - c.ru_stime
    return t_first, t_end, cpu, (first + rest).decode()


def rankwise_command() -> list[str]:
    """``rankwise`` as a user runs it: the console script beside this Python (not a shell shim)."""
    script = Path(sys.executable).parent / "rankwise"
    return [str(script)] if script.exists() else [sys.executable, "-c", "from rankwise.cli import main; main()"]


def cli_part(a: argparse.Namespace, work: Path) -> tuple[list[str], list[str], bool]:
    """``rankwise eval QRELS RUN -m ...`` on TREC files: wall time to the first output."""
    queries, docs = SMALL_SIZES[0]
    data = data_dir(a.data, queries, docs, 1, trec=True)
    metrics = [x for m in FIVE for x in ("-m", m)]
    cmd = [*rankwise_command(), "eval", str(data / "qrels.trec"), str(data / "run.trec"), *metrics]
    first_output(cmd)  # warm-up: the files and the modules in the OS cache, as for a user's second run
    firsts, ends, cpus = [], [], []
    for _ in range(a.cli_reps):
        f, e, c, _ = first_output(cmd)
        firsts.append(f)
        ends.append(e)
        cpus.append(c)
    # the check: the same command with per-query values, against pytrec_eval on the same rows
    _, _, _, text = first_output([*cmd, "-q", "--format", "csv"])
    import io

    import polars as pl

    frame = pl.read_csv(io.StringIO(text), schema_overrides={"query_id": pl.String})
    frame = frame.filter(pl.col("query_id") != "all").rename(FIVE)
    got = {c: dict(zip(frame["query_id"].to_list(), frame[c].to_list(), strict=True)) for c in frame.columns if c != "query_id"}
    run, qrels = inputs(data)
    ref = run_child(Config("pytrec_eval"), run, qrels, work, [])
    text_check, failed = summarise_check(worst_differences(got, read_values(ref.get("values"))))
    med = statistics.median(firsts)
    lines = [f"### Command line, {queries} queries x {docs:,} documents, TREC files", "",
             f"`{' '.join(['rankwise', *cmd[len(rankwise_command()):]])}`, {a.cli_reps} runs after a warm-up:", "",
             "| start to first output (s, median) | min–max (s) | start to exit (s, median) | CPU to exit (s, median) "
             "| check (`-q --format csv`) |",
             "| --- | --- | --- | --- | --- |",
             f"| {med:.3f} | {min(firsts):.3f}–{max(firsts):.3f} | {statistics.median(ends):.3f} | "
             f"{statistics.median(cpus):.3f} | {text_check} |", ""]
    return lines, [target_line("4. rankwise eval on TREC files, start to first output", med, 0.4, False, " s")], failed


def compare_targets(results: list[Result], rows: int) -> list[str]:
    """Issue 38's targets 1 and 2 from the comparison's medians: each engine's distance to its
    own floor (end to end, and by CPU beside it), its peak memory, all_trec ÷ the five measures;
    the distance to pytrec_eval is printed beside, with the floor's own (no engine can be further
    ahead of pytrec_eval than its floor is)."""
    ok = {r.config.label: r for r in results if r.error is None and r.reps}

    def med(label: str, key: str = "total") -> float | None:
        return ok[label].median(key) if label in ok else None

    note = "" if rows == 10_000_000 else f"measured at {rows:,} rows; the target is for 10M"
    lines: list[str] = []
    for e in [e for e in ENGINES if e in ok]:
        floor = FLOORS[e]
        if floor in ok:
            cpu = ratio(med(e, "cpu"), med(floor, "cpu"))
            detail = "; ".join(x for x in ((None if cpu is None else f"CPU: {cpu:.2f}x"), note) if x)
            lines.append(target_line(f"38. {e} ÷ its floor ({floor}), end to end", ratio(med(e), med(floor)),
                                     FLOOR_TARGETS[e], False, detail=detail))
        if "pytrec_eval" in ok:
            under = ratio(med("pytrec_eval"), med(floor))
            lines.append(f"{'':6} {e}: pytrec_eval ÷ it, end to end: {ratio(med('pytrec_eval'), med(e)) or 0:.2f}x"
                         + ("" if under is None else f" (its floor: {under:.2f}x)"))
        lines.append(target_line(f"38. {e}: peak RSS", ok[e].peak(), PEAK_MB[e], False, " MB", detail=note))
    for e in ENGINES:
        if f"{e} [all_trec]" in ok and e in ok:
            lines.append(target_line(f"38. {e}: all_trec ÷ five measures", ratio(med(f"{e} [all_trec]"), med(e)), 2,
                                     False, detail=note))
    return lines


def out_of_core_targets(a: argparse.Namespace, results: list[Result]) -> list[str]:
    """Target 5: 100M rows (DuckDB <= 60 s under 2 GB; Polars bounded by query chunks), 1,000M under 4 GB."""
    budget = 4000.0 if a.queries_total >= 1_000_000_000 else parse_size(a.memory_limit or "2GB")
    lines = []
    for r in results:
        if r.error is not None or not r.config.is_rankwise or r.config.measures != "five":
            continue
        if r.config.tool == "rankwise-duckdb" and a.queries_total == 100_000_000:
            lines.append(target_line(f"5. rankwise-duckdb, 100M rows, memory_limit {a.memory_limit}: end to end",
                                     r.median("total"), 60, False, " s"))
        lines.append(target_line(f"5. {r.config.tool}, {a.queries_total:,} rows: peak RSS", r.peak(), budget,
                                 False, " MB", "query_chunks" if "polars" in r.config.tool else ""))
    return lines


# --- issue 38: the same rows in rank order -------------------------------------------------------


@dataclass
class RankOrdered(Config):
    """A configuration run on the run's rows written in rank order (``--sorted-input``)."""

    @property
    def label(self) -> str:
        return f"{self.tool} [rank-ordered input]"


def rank_ordered(run: Path, out: Path) -> Path:
    """The run's rows written once in trec_eval's rank order (query, score descending, doc id
    descending as text: the order the engines rank by), beside the shuffled files."""
    import polars as pl

    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        text = pl.col("doc_id").cast(pl.String)
        scan(run).sort([pl.col("query_id"), pl.col("score"), text], descending=[False, True, True]).sink_parquet(out)
    return out


def scan(path: Path) -> Any:
    """A Polars scan of a Parquet file or of a folder of them."""
    import polars as pl

    return pl.scan_parquet(str(path / "*.parquet") if path.is_dir() else path)


def sorted_input_part(a: argparse.Namespace, data: Path, tools: list[str],
                      work: Path) -> tuple[list[Result], list[str], list[str]]:
    """Each tool on the shuffled run and on the same rows in rank order, interleaved; the
    five measures checked against one untimed pytrec_eval run; each tool's shuffled ÷
    rank-ordered medians (issue 38: at least 1.3x) and each engine's ÷ its floor."""
    run, qrels = inputs(data)
    ordered = rank_ordered(run, data / "rank_order" / "run.parquet")
    pairs = [(Result(Config(t)), run) for t in tools] + [(Result(RankOrdered(t)), ordered) for t in tools]
    for i in range(a.reps):
        for r, path in pairs:
            if r.error is None:
                print(f"  [{i + 1}/{a.reps}] {r.config.label}", file=sys.stderr, flush=True)
                r.reps.append(run_child(r.config, path, qrels, work, []))
    results = [r for r, _ in pairs]
    print("  reference: pytrec_eval [five]", file=sys.stderr, flush=True)
    check_all(results, read_values(run_child(Config("pytrec_eval"), run, qrels, work, []).get("values")))
    lines = table(f"{a.queries_total:,} rows ({data.name}), shuffled and in rank order ({a.reps} repetitions)",
                  results)
    ok = {r.config.label: r.median("total") for r in results if r.error is None and r.reps}
    verdicts = []
    for t in [t for t in tools if t in ENGINES]:
        verdicts.append(target_line(f"38. {t}: shuffled ÷ rank-ordered input, end to end",
                                    ratio(ok.get(t), ok.get(RankOrdered(t).label)), 1.3, True))
        floor = FLOORS[t]
        for label in (t, RankOrdered(t).label):
            if floor in ok and label in ok:
                verdicts.append(target_line(f"38. {label} ÷ its floor ({floor}, shuffled), end to end",
                                            ratio(ok[label], ok[floor]), FLOOR_TARGETS[t],
                                            False))
    return results, lines, verdicts


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="10,000 queries x 100 documents (1M rows)")
    p.add_argument("--queries", type=int, default=None)
    p.add_argument("--docs", type=int, default=100)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "rankwise-bench")
    p.add_argument("--tools", default=None, help=f"comma-separated (default {','.join(DEFAULT_TOOLS)}; out of "
                   "core the two engines); a peer can be tool:feeding, e.g. pytrec_eval:pyarrow (child.py)")
    p.add_argument("--files", type=int, default=1, help="generate folders of this many Parquet files")
    p.add_argument("--memory-limit", default="", help="DuckDB engine memory limit, e.g. 2GB (default out of core: "
                   "2GB; 3GB at 1,000M rows)")
    p.add_argument("--metrics", default="", help="rankwise only: metrics as a JSON list instead of the five")
    p.add_argument("--query-chunks", type=int, default=0, help="Polars engine: evaluate in this many query groups "
                   "(default out of core: one group per 10M rows)")
    p.add_argument("--compare", action="store_true", help="the five-measure comparison (target 1)")
    p.add_argument("--all-trec", action="store_true", help="rankwise's all_trec against its five measures (target 2)")
    p.add_argument("--small", action="store_true", help="in-process calls on small inputs (target 3)")
    p.add_argument("--cli", action="store_true", help="rankwise eval on TREC files, start to first output (target 4)")
    p.add_argument("--beyond", action="store_true", help="the popularity family (train=) beside rectools and the "
                   "feature-diversity family (features=) (issue 35)")
    p.add_argument("--families", default=",".join(f.key for f in FAMILIES),
                   help="--beyond: the newer families' groups to time, comma-separated (default: every one; "
                   f"'none' for none): {', '.join(f.key for f in FAMILIES)}")
    p.add_argument("--no-earlier", action="store_true", help="--beyond: without the popularity and "
                   "feature-diversity parts (the newer families alone)")
    p.add_argument("--calls", type=int, default=30, help="--small: timed calls per tool")
    p.add_argument("--cli-reps", type=int, default=7, help="--cli: timed runs")
    p.add_argument("--sorted-input", action="store_true", help="each tool (default floor and the engines) on the "
                   "run and on the same rows in rank order, interleaved (issue 38)")
    a = p.parse_args()
    queries = a.queries or (10_000 if a.quick else 100_000)
    a.queries_total = queries * a.docs
    out_of_core = a.files > 1 or a.queries_total > 10_000_000
    if out_of_core:
        a.memory_limit = a.memory_limit or ("3GB" if a.queries_total >= 1_000_000_000 else "2GB")
        a.query_chunks = a.query_chunks or max(1, a.queries_total // 10_000_000)
    tools = a.tools.split(",") if a.tools else list(ENGINES if out_of_core else DEFAULT_TOOLS)
    chosen = a.compare or a.all_trec or a.small or a.cli or a.beyond or a.sorted_input
    parts = {"compare": a.compare or not chosen, "all_trec": a.all_trec or (not chosen and not out_of_core),
             "small": a.small or (not chosen and not out_of_core), "cli": a.cli or (not chosen and not out_of_core),
             "beyond": a.beyond or (not chosen and not out_of_core)}
    a.data.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="bench-", dir=a.data))
    lines: list[str] = []
    verdicts: list[str] = []
    failed = False
    if parts["compare"] or parts["all_trec"]:
        data = data_dir(a.data, queries, a.docs, a.files)
        results, table_lines = compare_part(a, data, tools, parts["all_trec"], parts["compare"], work)
        lines += [*table_lines, ""]
        verdicts += compare_targets(results, a.queries_total)
        if out_of_core:
            verdicts += out_of_core_targets(a, results)
        failed |= any(r.failed for r in results)
    if parts["beyond"]:
        data = data_dir(a.data, queries, a.docs, a.files, train=True, features=True, side=True)
        if not a.no_earlier:
            beyond_results, beyond_lines = beyond_part(a, data, work)
            feature_results, feature_lines = feature_part(a, data, work)
            lines += [*beyond_lines, "", *feature_lines, ""]
            failed |= any(r.failed for r in [*beyond_results, *feature_results])
        keys = [] if a.families == "none" else a.families.split(",")
        unknown = set(keys) - {f.key for f in FAMILIES}
        if unknown:
            p.error(f"--families: unknown {', '.join(sorted(unknown))}")
        family_results, family_lines = families_part(a, data, work, tuple(f for f in FAMILIES if f.key in keys))
        lines += family_lines
        failed |= any(r.failed for r in family_results)
    if parts["small"]:
        small_lines, small_verdicts, small_failed = small_part(a, work)
        lines += small_lines
        verdicts += small_verdicts
        failed |= small_failed
    if parts["cli"]:
        cli_lines, cli_verdicts, cli_failed = cli_part(a, work)
        lines += cli_lines
        verdicts += cli_verdicts
        failed |= cli_failed
    if a.sorted_input:
        data = data_dir(a.data, queries, a.docs, a.files)
        sorted_tools = a.tools.split(",") if a.tools else [*FLOORS.values(), *ENGINES]
        sorted_results, sorted_lines, sorted_verdicts = sorted_input_part(a, data, sorted_tools, work)
        lines += [*sorted_lines, ""]
        verdicts += sorted_verdicts
        failed |= any(r.failed for r in sorted_results)
    print("\n".join(lines))
    print("Targets of the performance issue (ratios of medians measured side by side in this run):")
    print("\n".join(verdicts) if verdicts else "(none checked by these parts)")
    if failed:
        print("\nCHECK FAILED: a rankwise configuration's values differ from its reference's (pytrec_eval's; "
              "rectools', numpy's and the DuckDB engine's for --beyond) (the check columns)")
        raise SystemExit(1)


if __name__ == "__main__":
    main()
