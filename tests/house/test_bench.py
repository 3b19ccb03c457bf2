"""The benchmark's helpers (benchmarks/bench.py): verdicts, the check against pytrec_eval.

Nothing here is timed: the benchmark itself measures, these only check its arithmetic.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rankwise_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["rankwise_bench"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_verdict(bench: ModuleType) -> None:
    assert bench.verdict(15.0, 15, at_least=True) == "met"
    assert bench.verdict(14.9, 15, at_least=True) == "MISSED"
    assert bench.verdict(0.2, 0.2, at_least=False) == "met"
    assert bench.verdict(0.21, 0.2, at_least=False) == "MISSED"
    assert bench.verdict(None, 1, at_least=False) == "n/a"


def test_target_line(bench: ModuleType) -> None:
    line = bench.target_line("1. x: ranx ÷ it", 12.345, 15, True)
    assert line.startswith("MISSED 1. x: ranx ÷ it: 12.35x (target >= 15x)")
    assert bench.target_line("4. cli", 0.31, 0.4, False, " s").startswith("met")
    assert "n/a (target <= 1x)" in bench.target_line("3. y", None, 1, False)


def test_ratio_and_sizes(bench: ModuleType) -> None:
    assert bench.ratio(6.0, 2.0) == 3.0
    assert bench.ratio(None, 2.0) is None
    assert bench.ratio(1.0, 0.0) is None
    assert bench.parse_size("2GB") == 2000.0
    assert bench.parse_size("512MiB") == 512.0
    assert bench.parse_size("1 GiB") == 1024.0


def test_comparable(bench: ModuleType) -> None:
    assert bench.comparable("ndcg_cut_10")
    assert bench.comparable("P_10")
    for name in ("query_id", "relstring", "gm_map", "gm_bpref", "11pt_avg", "iprec_at_recall_0.10"):
        assert not bench.comparable(name)


def test_check_passes_and_fails(bench: ModuleType) -> None:
    ref = {m: {"q1": 0.5, "q2": 0.25} for m in bench.FIVE.values()}
    same = {m: {"q1": 0.5 + 1e-12, "q2": 0.25} for m in bench.FIVE.values()}
    text, failed = bench.summarise_check(bench.worst_differences(same, ref))
    assert not failed and text == "= pytrec_eval (5 measures)"

    off = {**same, "map": {"q1": 0.5, "q2": 0.26}}
    text, failed = bench.summarise_check(bench.worst_differences(off, ref))
    assert failed and "map" in text

    fewer = {**same, "P_10": {"q1": 0.5}}
    text, failed = bench.summarise_check(bench.worst_differences(fewer, ref))
    assert failed and "queries differ" in text

    missing = {m: v for m, v in same.items() if m != "recall_100"}
    text, failed = bench.summarise_check(bench.worst_differences(missing, ref))
    assert failed and "recall_100" in text


def test_check_skips_measures_not_comparable(bench: ModuleType) -> None:
    ref = {**{m: {"q": 1.0} for m in bench.FIVE.values()}, "gm_map": {"q": -5.0}}
    got = {**{m: {"q": 1.0} for m in bench.FIVE.values()}, "gm_map": {"q": 0.0}, "rbp": {"q": 0.3}}
    worst = bench.worst_differences(got, ref)
    assert "gm_map" not in worst and "rbp" not in worst
    assert bench.summarise_check(worst) == ("= pytrec_eval (5 measures)", False)


def test_check_against_rectools(bench: ModuleType) -> None:
    """--beyond: rankwise's nine popularity columns against rectools' two; only those two are
    compared, and both are needed."""
    ref = {m: {"u1": 13.1, "u2": 0.5} for m in bench.BEYOND_CHECKED}
    got = {**{m: {"u1": 13.1 + 1e-12, "u2": 0.5} for m in bench.BEYOND_CHECKED}, "EPC@10": {"u1": 0.2, "u2": 0.0}}
    worst = bench.worst_differences(got, ref)
    assert set(worst) == set(bench.BEYOND_CHECKED)
    assert bench.summarise_check(worst, bench.BEYOND_CHECKED) == ("= pytrec_eval (2 measures)", False)
    off = {**got, "ARP@10": {"u1": 3.0, "u2": 0.5}}
    text, failed = bench.summarise_check(bench.worst_differences(off, ref), bench.BEYOND_CHECKED)
    assert failed and "ARP@10" in text
    no_miuf = {m: v for m, v in got.items() if m != "MIUF@10"}
    text, failed = bench.summarise_check(bench.worst_differences(no_miuf, ref), bench.BEYOND_CHECKED)
    assert failed and "no MIUF@10" in text


def test_beyond_labels_and_ratios(bench: ModuleType) -> None:
    """The popularity part's rows are labelled by tool; each engine's median to its floor's and
    rectools', its peak RSS to rectools'."""
    def result(tool: str, totals: list[float], rss: float) -> object:
        return bench.Result(bench.Config(tool, "popularity"), [{"total": t, "rss_mb": rss} for t in totals])

    assert bench.Config("rankwise-polars", "popularity").label == "rankwise-polars"
    assert bench.Config("rankwise-polars", "all_trec").label == "rankwise-polars [all_trec]"
    results = [result("floor", [1.0, 2.0, 3.0], 100), result("rankwise-polars", [4.0, 4.0, 9.0], 200),
               result("rectools", [8.0, 7.0, 9.0], 800)]
    assert bench.beyond_ratios(results) == [
        "rankwise-polars: ÷ its floor (floor) 2.00x; ÷ rectools 0.50x (rectools ÷ it 2.00x); "
        "peak RSS 200 MB, ÷ rectools' 0.25x"
    ]
    assert bench.beyond_ratios(results[1:2]) == ["rankwise-polars: peak RSS 200 MB"]


def test_difference_of_nulls(bench: ModuleType) -> None:
    """NULL (None or NaN) equals NULL; NULL against a number fails the check."""
    assert bench.difference(None, None) == 0.0
    assert bench.difference(float("nan"), None) == 0.0
    assert bench.difference(0.25, 0.5) == 0.25
    assert bench.difference(None, 0.0) == float("inf")
    ref = {"Serendipity@10": {"u1": None, "u2": 0.5}}
    assert bench.summarise_check(bench.worst_differences(ref, ref), ("Serendipity@10",)) == (
        "= pytrec_eval (1 measures)", False)
    text, failed = bench.summarise_check(
        bench.worst_differences({"Serendipity@10": {"u1": 0.0, "u2": 0.5}}, ref), ("Serendipity@10",))
    assert failed and "Serendipity@10 inf" in text


def test_families_read_what_their_metrics_read(bench: ModuleType) -> None:
    """Each newer family's declared side inputs are the ones its metrics read (rankwise's own
    account, recipes.reading_side; target= is optional: the fair-exposure metrics default to
    'relevant'), its rectools metrics are among its metrics, and its floor steps are child.py's."""
    import rankwise  # noqa: F401  (the checkout's package)
    from rankwise.conventions import SIDE_INPUTS, Conventions
    from rankwise.metrics.recipes import reading_side
    from rankwise.names.parse import parse_metrics

    child = bench.HERE / "child.py"
    steps_line = next(line for line in child.read_text().splitlines() if line.startswith("FLOOR_STEPS"))
    assert set(bench.SIDE_INPUTS) == set(SIDE_INPUTS)
    for family in bench.FAMILIES:
        parsed = parse_metrics(list(family.metrics))
        read = {k for k in SIDE_INPUTS if reading_side(parsed, Conventions(), k)}
        assert read == set(family.reads) - {"target"}, family.key
        assert set(family.peer) <= set(family.metrics)
        assert all(f'"{step}"' in child.read_text() for step in family.floor), family.key
        assert family.floor and steps_line
    assert len({f.key for f in bench.FAMILIES}) == len(bench.FAMILIES)


def test_engines_agree(bench: ModuleType, tmp_path: Path) -> None:
    """The Polars engine's values against the DuckDB engine's: the check appended to the Polars
    row's, a difference failing it."""
    import polars as pl

    def result(tool: str, values: dict[str, list[float]]) -> object:
        path = tmp_path / f"{tool}.parquet"
        pl.DataFrame({"query_id": ["a", "b"], **values}).write_parquet(path)
        return bench.Result(bench.Config(tool, "[]", "fairness"), [{"total": 1.0, "rss_mb": 1.0, "values": str(path)}])

    polars, duckdb = result("rankwise-polars", {"EE_L@10": [0.5, 0.1]}), result("rankwise-duckdb", {"EE_L@10": [0.5, 0.1]})
    bench.engines_agree([polars, duckdb], ("EE_L@10",))
    assert polars.check == "= rankwise-duckdb (1 measures)" and not polars.failed
    assert duckdb.check == "(the Polars engine's reference)"
    assert bench.Config("rankwise-polars", '["EE_L@10"]', "fairness").label == "rankwise-polars"
    off = result("rankwise-polars", {"EE_L@10": [0.5, 0.2]})
    off.check = "= rectools (1 measures)"
    bench.engines_agree([off, result("rankwise-duckdb", {"EE_L@10": [0.5, 0.1]})], ("EE_L@10",))
    assert off.failed and off.check.startswith("= rectools (1 measures); FAILED")


def test_compare_targets_are_the_distance_to_each_floor(bench: ModuleType) -> None:
    """Issue 38's verdicts: each engine end to end ÷ its own floor (CPU beside it), its peak RSS,
    all_trec ÷ the five measures; pytrec_eval's lead over the engine and over its floor printed
    without a verdict."""
    def result(tool: str, measures: str, totals: list[float], cpus: list[float], rss: float) -> object:
        reps = [{"total": t, "cpu": c, "rss_mb": rss} for t, c in zip(totals, cpus, strict=True)]
        return bench.Result(bench.Config(tool, measures), reps)

    results = [
        result("floor", "five", [2.0, 2.0, 9.0], [3.0, 3.0, 3.0], 1500),
        result("rankwise-polars", "five", [2.2, 2.1, 2.3], [3.6, 3.3, 3.9], 800),
        result("rankwise-polars", "all_trec", [4.6, 4.0, 4.4], [8.0, 8.0, 8.0], 900),
        result("floor-duckdb", "five", [2.0, 2.0, 2.0], [4.0, 4.0, 4.0], 900),
        result("rankwise-duckdb", "five", [3.0, 3.0, 3.0], [6.0, 6.0, 6.0], 1400),
        result("pytrec_eval", "five", [8.0, 8.0, 8.0], [8.0, 8.0, 8.0], 2000),
    ]
    lines = bench.compare_targets(results, 10_000_000)
    assert lines == [
        "met    38. rankwise-polars ÷ its floor (floor), end to end: 1.10x (target <= 1.1x) (CPU: 1.20x)",
        "       rankwise-polars: pytrec_eval ÷ it, end to end: 3.64x (its floor: 4.00x)",
        "met    38. rankwise-polars: peak RSS: 800.00 MB (target <= 810 MB)",
        "MISSED 38. rankwise-duckdb ÷ its floor (floor-duckdb), end to end: 1.50x (target <= 1.15x) (CPU: 1.50x)",
        "       rankwise-duckdb: pytrec_eval ÷ it, end to end: 2.67x (its floor: 4.00x)",
        "MISSED 38. rankwise-duckdb: peak RSS: 1400.00 MB (target <= 1330 MB)",
        "met    38. rankwise-polars: all_trec ÷ five measures: 2.00x (target <= 2x)",
    ]
