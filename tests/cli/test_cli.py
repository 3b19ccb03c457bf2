"""The installed ``rankwise`` console script, run in a subprocess."""

from __future__ import annotations

import io
import math
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import polars as pl
import pytest

import rankwise as rw

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "examples" / "data" / "run.parquet"
QRELS = ROOT / "examples" / "data" / "qrels.parquet"
SAMPLE_EVAL_NOTE = (
    "rankwise: warning: 1 judged query is not in the run: left out of the scores and means "
    "(as trec_eval; -c scores it 0)\n"
)
"""What eval says of the sample run, which lacks one judged query (issue 32: in every format)."""
SAMPLE_COMPARE_NOTE = SAMPLE_EVAL_NOTE.replace("not in the run", "not in any run")
"""What compare says of the same query, which no run compared has."""


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("rankwise")
    cmd = [exe] if exe else [sys.executable, "-m", "rankwise.cli"]
    return subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=120)


def test_quick_start_default_metrics() -> None:
    out = cli("eval", str(QRELS), str(RUN))
    assert out.returncode == 0, out.stderr
    lines = dict(line.split()[0:3:2] for line in out.stdout.splitlines())
    expected = rw.summarize(rw.evaluate(QRELS, RUN, ["AP", "P@10", "Bpref"])).row(0, named=True)
    assert list(lines)[:5] == ["num_q", "num_ret", "num_rel", "num_rel_ret", "map"]  # trec_eval's official set
    assert lines["num_q"] == "199"
    assert float(lines["map"]) == pytest.approx(expected["AP"], abs=5e-5)
    assert float(lines["P_10"]) == pytest.approx(expected["P@10"], abs=5e-5)
    assert float(lines["bpref"]) == pytest.approx(expected["Bpref"], abs=5e-5)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_format_trec_is_trec_eval_s_own_output(engine: str, conformance: Path) -> None:
    conf = conformance
    out = cli("eval", str(conf / "qrels.test"), str(conf / "results.test"), "--format", "trec", "--engine", engine)
    assert out.returncode == 0, out.stderr
    assert out.stdout == (conf / "out.test").read_text()


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_all_trec_per_query_is_trec_eval_s_own_output(engine: str, conformance: Path) -> None:
    """`rankwise eval -m all_trec -q --format trec` = `trec_eval -m all_trec -q`, byte for byte
    (out.test.aq has none of the measures where rankwise departs from trec_eval on purpose)."""
    conf = conformance
    out = cli(
        "eval", str(conf / "qrels.test"), str(conf / "results.test"), "-m", "all_trec", "-q",
        "--format", "trec", "--engine", engine,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == (conf / "out.test.aq").read_text()


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_format_trec_with_m_options_is_trec_eval_s_own_output(engine: str, conformance: Path) -> None:
    """out.test.meas_params is `trec_eval -q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3
    ...`: its measures in trec_eval's order, cutoffs sorted (P_3 P_5 P_7, iprec_at_recall_0.50
    before 0.75, Rprec_mult_0.20 0.35 5.00), and no runid or num_q line."""
    out = cli(
        "eval", str(conformance / "qrels.test"), str(conformance / "results.test"), "-q",
        "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
        "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
        "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20",
        "--format", "trec", "--engine", engine,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == (conformance / "out.test.meas_params").read_text()


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_format_trec_prints_relstring_once(engine: str, conformance: Path) -> None:
    """out.test.aql is `trec_eval -m all_trec -mrelstring.20 -q -l2`: relstring_20 once, where
    all_trec's relstring stands; every line equal but rbp's, where rankwise departs from
    trec_eval on purpose (test_conformance.KNOWN_DIFFERENCES)."""
    out = cli(
        "eval", str(conformance / "qrels.rel_level"), str(conformance / "results.test"), "-m", "all_trec",
        "-m", "relstring.20", "-q", "-l", "2", "--format", "trec", "--engine", engine,
    )
    assert out.returncode == 0, out.stderr
    expected = (conformance / "out.test.aql").read_text().splitlines()
    got = out.stdout.splitlines()
    assert [line.split()[:2] for line in got] == [line.split()[:2] for line in expected]
    assert [line for line in got if not line.startswith("rbp ")] == [line for line in expected if not line.startswith("rbp ")]
    assert sum(line.startswith("relstring_20 ") for line in got) == 3  # one a query, none other


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_format_trec_of_relstring_alone(engine: str, conformance: Path) -> None:
    """`-m relstring -q`: its per-query lines, as out.test.aq has them, and no summary line
    (relstring has none; nothing else was asked for)."""
    qrels, run = str(conformance / "qrels.test"), str(conformance / "results.test")
    out = cli("eval", qrels, run, "-m", "relstring", "-q", "--format", "trec", "--engine", engine)
    assert out.returncode == 0, out.stderr
    aq = (conformance / "out.test.aq").read_text().splitlines()
    assert out.stdout.splitlines() == [line for line in aq if line.startswith("relstring ")]
    out = cli("eval", qrels, run, "-m", "relstring", "--format", "trec", "--engine", engine)
    assert (out.returncode, out.stdout) == (0, ""), out.stderr


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_format_trec_prints_measures_in_trec_eval_s_order(engine: str, conformance: Path) -> None:
    """`trec_eval -m P.20,5 -m map` prints map, then P_5, then P_20 (its table's order, cutoffs
    sorted), and no runid or num_q line; each is printed when asked for (`-m runid`, `-m num_q`,
    a set such as official), in trec_eval's place, first. The values are out.test's."""
    qrels, run = str(conformance / "qrels.test"), str(conformance / "results.test")
    out = cli("eval", qrels, run, "-m", "P.20,5", "-m", "map", "--format", "trec", "--engine", engine)
    assert out.returncode == 0, out.stderr
    assert out.stdout == (
        "map                   \tall\t0.1785\n"
        "P_5                   \tall\t0.2667\n"
        "P_20                  \tall\t0.3667\n"
    )
    out = cli("eval", qrels, run, "-m", "map", "-m", "num_q", "-m", "runid", "-m", "map", "--format", "trec",
              "--engine", engine, "--name", "mine")
    assert out.returncode == 0, out.stderr
    assert out.stdout == (
        "runid                 \tall\tmine\n"
        "num_q                 \tall\t3\n"
        "map                   \tall\t0.1785\n"
    )
    # official, with P's cutoffs given: P_5 alone where official's P list stands (trec_eval's
    # one list a measure), after its other measures
    out = cli("eval", qrels, run, "-m", "P.5", "-m", "official", "--format", "trec", "--engine", engine)
    assert out.returncode == 0, out.stderr
    official = (conformance / "out.test").read_text().splitlines()
    assert out.stdout.splitlines() == [line for line in official if not line.startswith("P_")] + [
        "P_5                   \tall\t0.2667"
    ]
    # a name of another scheme: the measures in the order given, still no runid or num_q line
    out = cli("eval", qrels, run, "-m", "nDCG@10", "-m", "map", "--format", "trec", "--engine", engine)
    assert out.returncode == 0, out.stderr
    assert [line.split()[:2] for line in out.stdout.splitlines()] == [["nDCG@10", "all"], ["map", "all"]]
    # ranx's rbp.95 (trec_eval has no such -m form) is such a name too
    out = cli("eval", qrels, run, "-m", "rbp.95", "-m", "map", "--format", "trec", "--engine", engine)
    assert out.returncode == 0, out.stderr
    assert [line.split()[:2] for line in out.stdout.splitlines()] == [["rbp.95", "all"], ["map", "all"]]


def test_format_trec_refuses_two_value_lists_for_one_measure(conformance: Path) -> None:
    """trec_eval reads the first `-m P.<values>` and ignores a second: refused, not dropped;
    `-m runid` alone asks for nothing to compute."""
    out = cli("eval", str(conformance / "qrels.test"), str(conformance / "results.test"),
              "-m", "P.5", "-m", "P.10", "--format", "trec")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == (
        "rankwise: error: -m P.5 and -m P.10: trec_eval reads one list of values a measure, the first, "
        "and would ignore -m P.10; give them in one: -m P.5,10\n"
    )
    alone = cli("eval", str(conformance / "qrels.test"), str(conformance / "results.test"), "-m", "runid", "--format", "trec")
    assert (alone.returncode, alone.stdout) == (2, "")
    assert alone.stderr == "rankwise: error: -m runid asks for no measure: add one to compute, e.g. -m runid -m map\n"


def test_format_trec_in_query_chunks(conformance: Path) -> None:
    conf = conformance
    out = cli("eval", str(conf / "qrels.test"), str(conf / "results.test"), "--format", "trec", "--query-chunks", "3")
    assert out.returncode == 0, out.stderr
    assert out.stdout == (conf / "out.test").read_text()


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_csv_per_query_parses_back(engine: str) -> None:
    out = cli("eval", str(QRELS), str(RUN), "-m", "nDCG@10", "-m", "RR", "--per-query", "--format", "csv", "--engine", engine, "-c")
    assert out.returncode == 0, out.stderr
    got = pl.read_csv(io.StringIO(out.stdout))
    expected = rw.evaluate(QRELS, RUN, ["nDCG@10", "RR"], missing="zero")
    assert got["query_id"].to_list() == expected["query_id"].to_list()
    assert (got["nDCG@10"] - expected["nDCG@10"]).abs().max() < 1e-12  # type: ignore[operator]


def test_json_output_to_file(tmp_path: Path) -> None:
    target = tmp_path / "summary.json"
    out = cli("eval", str(QRELS), str(RUN), "-m", "AP", "--format", "json", "-o", str(target))
    assert out.returncode == 0 and out.stdout == ""
    assert pl.read_json(target)["AP"][0] == pytest.approx(
        rw.summarize(rw.evaluate(QRELS, RUN, ["AP"]))["AP"][0], abs=1e-12
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["eval", str(QRELS), "nope.parquet"], "rankwise: error: no such file: 'nope.parquet'"),
        (["eval", str(QRELS), str(RUN), "-m", "nDGC@10"], "rankwise: error: unknown metric 'nDGC'. Closest: nDCG"),
        (["eval", str(QRELS), str(RUN), "-m", "P@0"], "rankwise: error: metric 'P@0': the cutoff k must be a positive integer, got 0"),
        (["eval", str(QRELS), str(RUN), "--score-col", "sim"], "rankwise: error: the run has no column 'sim'"),
        (["eval", str(QRELS), str(RUN), "--ties", "random"], "rankwise: error: convention 'ties' must be one of"),
    ],
)
def test_errors_are_one_line(args: list[str], message: str) -> None:
    out = cli(*args)
    assert out.returncode == 2
    assert out.stderr.startswith(message), out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert "Traceback" not in out.stderr


def test_metrics_listing_and_explanation() -> None:
    out = cli("metrics")
    assert out.returncode == 0
    for spec in rw.SPECS:
        assert spec.name in out.stdout
    one = cli("metrics", "map")
    assert one.stdout.startswith("AP: average precision")
    assert "formula:" in one.stdout


def test_readme_metric_table_is_generated_from_the_specs() -> None:
    """The metric table (docs/metrics.md, where the README's reference moved) is the generator's."""
    from rankwise.metrics.docs import metric_table

    readme = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    start, end = readme.index("<!-- metrics:start -->\n"), readme.index("\n<!-- metrics:end -->")
    assert readme[start + len("<!-- metrics:start -->\n"):end] == metric_table()


def test_readme_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "pip install -e '.[dev]' && pip install --no-deps 'rbo==0.1.3' && rankwise eval examples/data/qrels.parquet examples/data/run.parquet" in readme
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "-e '.[dev]'" in ci and "--no-deps 'rbo==0.1.3'" in ci  # the test tools the README installs
    # CI runs the README's test command, the full tier (tests/tiers.py)
    command = "ruff check . && mypy && pytest --full\n"
    assert command in readme and ci.endswith(command)


def test_segments_and_parquet_output(tmp_path: Path) -> None:
    run = pl.read_parquet(RUN).with_columns(market=pl.when(pl.col("query_id") < "q100").then(pl.lit("de")).otherwise(pl.lit("fr")))
    run.write_parquet(tmp_path / "run.parquet")
    out = cli("eval", str(QRELS), str(tmp_path / "run.parquet"), "-m", "AP", "-m", "NumQ", "--by", "market",
              "--format", "parquet", "-o", str(tmp_path / "summary.parquet"))
    assert out.returncode == 0, out.stderr
    summary = pl.read_parquet(tmp_path / "summary.parquet")
    expected = rw.summarize(rw.evaluate(QRELS, run, ["AP", "NumQ"], by="market"), by="market")
    assert summary.columns == ["market", "AP", "NumQ"]
    assert summary["NumQ"].to_list() == expected["NumQ"].to_list() == [99.0, 100.0]
    table = cli("eval", str(QRELS), str(tmp_path / "run.parquet"), "-m", "AP", "--by", "market")
    assert [line.split()[:2] for line in table.stdout.splitlines()] == [["AP", "de"], ["AP", "fr"]]


def test_quiet_when_piped_and_more_errors(tmp_path: Path) -> None:
    out = cli("eval", str(QRELS), str(RUN), "-m", "AP")
    # no progress lines when stderr is not a terminal: only what became of the judged query
    # the sample run lacks (issue 32: eval says it, in every format)
    assert out.stderr == SAMPLE_EVAL_NOTE
    missing_o = cli("eval", str(QRELS), str(RUN), "--format", "parquet")
    assert missing_o.returncode == 2 and missing_o.stderr.startswith("rankwise: error: --format parquet needs -o PATH")
    (tmp_path / "x.txt").write_text("not a run\n")
    bad = cli("eval", str(QRELS), str(tmp_path / "x.txt"))
    assert bad.returncode == 2 and "is not a TREC run file" in bad.stderr
    no_col = cli("eval", str(QRELS), str(RUN), "--by", "market")
    assert no_col.returncode == 2 and "no segment column 'market'" in no_col.stderr


def test_usage_errors_are_one_line_too() -> None:
    out = cli("eval", str(QRELS), str(RUN), "--format", "xml")
    assert out.returncode == 2
    assert out.stderr.startswith("rankwise: error: argument --format: invalid choice: 'xml'")
    assert len(out.stderr.strip().splitlines()) == 1


def test_metrics_lists_names_in_each_scheme() -> None:
    out = cli("metrics")
    line = next(ln for ln in out.stdout.splitlines() if ln.startswith("AP "))
    assert "trec_eval: map, map_cut" in line and "ranx: map, map@k" in line
    unknown = cli("metrics", "nDGC")
    assert unknown.returncode == 2 and unknown.stderr.startswith("rankwise: error: unknown metric 'nDGC'")


def test_compare_and_explain_commands(tmp_path: Path) -> None:
    base = pl.read_parquet(RUN)
    base.with_columns(score=-pl.col("score")).write_parquet(tmp_path / "reversed.parquet")
    out = cli("compare", str(QRELS), str(RUN), str(tmp_path / "reversed.parquet"), "-m", "AP",
              "--test", "t", "--test", "wilcoxon", "--format", "csv")
    assert out.returncode == 0, out.stderr
    table = pl.read_csv(io.StringIO(out.stdout))
    expected = rw.compare(QRELS, {"run": RUN, "reversed": tmp_path / "reversed.parquet"}, ["AP"], tests=["t", "wilcoxon"])
    assert (table["run"].to_list(), table["baseline"].to_list()) == (["reversed"], ["run"])
    assert table["p_t"][0] == pytest.approx(expected["p_t"][0], abs=1e-12)
    assert bool(table["sig_t"][0]) is True  # reversing a decent ranking is significantly worse
    ex = cli("explain", str(QRELS), str(RUN), "-m", "AP", "-q", "q002", "--format", "csv")
    assert ex.returncode == 0, ex.stderr
    rows = pl.read_csv(io.StringIO(ex.stdout))
    assert rows["value"][-1] == pytest.approx(rw.evaluate(QRELS, RUN, ["AP"]).filter(query_id="q002")["AP"][0], abs=1e-12)


def test_an_undefined_value_prints_nan_and_stays_out_of_the_mean(tmp_path: Path) -> None:
    """Accuracy is undefined for query r (no relevant document retrieved): trec_eval's nan on
    its line, and the 'all' line is the mean over the queries where it is defined."""
    run, qrels = tmp_path / "r.run", tmp_path / "q.qrels"
    run.write_text("q Q0 a 1 5 x\nq Q0 b 2 4 x\nq Q0 c 3 3 x\nr Q0 a 1 1 x\n")
    qrels.write_text("q 0 a 1\nq 0 c 2\nq 0 e 0\nr 0 z 1\n")
    for fmt in ("trec", "table"):
        out = cli("eval", str(qrels), str(run), "-m", "Accuracy", "-q", "--format", fmt)
        assert out.returncode == 0, out.stderr
        values = {tuple(line.split()[:2]): line.split()[-1] for line in out.stdout.splitlines()}
        assert values[("Accuracy", "q")] == "0.5000"
        assert values[("Accuracy", "r")] == "nan"
        assert values[("Accuracy", "all")] == "0.5000"


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_eval_with_the_reciprocal_discount(tmp_path: Path, engine: str) -> None:
    """`rankwise eval -m "nDCG(discount='reciprocal')@3"`: relevances [1, 0, 2] ranked 1, 2, 3
    give DCG = 1/1 + 2/3 and IDCG = 2/1 + 1/2 (the gain divided by the rank, CatBoost's
    denominator=Position), nDCG = (5/3) / (5/2) = 2/3."""
    run, qrels = tmp_path / "r.run", tmp_path / "q.qrels"
    run.write_text("q Q0 a 1 3 x\nq Q0 b 2 2 x\nq Q0 c 3 1 x\n")
    qrels.write_text("q 0 a 1\nq 0 b 0\nq 0 c 2\n")
    name = "nDCG(discount='reciprocal')@3"
    out = cli("eval", str(qrels), str(run), "-m", name, "--per-query", "--format", "csv", "--engine", engine)
    assert out.returncode == 0, out.stderr
    got = pl.read_csv(io.StringIO(out.stdout))
    assert got["query_id"].to_list() == ["q"]
    assert got[name][0] == pytest.approx((1 + 2 / 3) / (2 + 1 / 2), abs=1e-12)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_eval_precision_over_the_retrieved_documents(tmp_path: Path, engine: str) -> None:
    """`rankwise eval -m "P(denominator='retrieved')@5"`: relevances [1, 0, 1] retrieved for q
    give 2 / min(5, 3) = 2/3 (XGBoost pre@5, CatBoost PrecisionAt:top=5) where P@5 gives 2/5;
    r retrieved [0, 1, 0, 0, 0, 1] (more than 5) gives 1/5 either way."""
    run, qrels = tmp_path / "r.run", tmp_path / "q.qrels"
    run.write_text(
        "q Q0 a 1 3 x\nq Q0 b 2 2 x\nq Q0 c 3 1 x\n"
        + "".join(f"r Q0 d{i} {i + 1} {10 - i} x\n" for i in range(6))
    )
    qrels.write_text("q 0 a 1\nq 0 b 0\nq 0 c 1\nr 0 d1 1\nr 0 d5 1\n")
    name = "P(denominator='retrieved')@5"
    out = cli("eval", str(qrels), str(run), "-m", name, "-m", "P@5", "--per-query", "--format", "csv", "--engine", engine)
    assert out.returncode == 0, out.stderr
    got = pl.read_csv(io.StringIO(out.stdout)).sort("query_id")
    assert got["query_id"].to_list() == ["q", "r"]
    assert got[name].to_list() == pytest.approx([2 / 3, 1 / 5], abs=1e-12)
    assert got["P@5"].to_list() == pytest.approx([2 / 5, 1 / 5], abs=1e-12)


def test_compare_command_options_and_their_errors(tmp_path: Path) -> None:
    """The terminal table keeps the columns a reader needs (--wide: all of them); --anova prints
    the ANOVA; bad statistics options are one line and exit 2; numpy's warnings stay quiet."""
    worse = tmp_path / "worse.parquet"
    pl.read_parquet(RUN).with_columns(score=-pl.col("score")).write_parquet(worse)
    narrow = cli("compare", str(QRELS), str(RUN), str(worse), "-m", "AP", "-m", "nDCG@10", "--resamples", "200")
    assert narrow.returncode == 0 and "shape:" not in narrow.stdout
    means = rw.compare(QRELS, {"run": RUN, "worse": worse}, ["AP", "nDCG@10"], resamples=200)
    lines = narrow.stdout.splitlines()
    assert lines[0].split() == ["|", "run", "|", "AP", "|", "nDCG@10", "|"]
    # the runs x metrics means with the significance letters (run beats worse: ᵇ) and the best marked
    assert lines[2].split("|")[2].strip() == f"{means['baseline_mean'][0]:.4f}ᵇ*"
    assert lines[3].split("|")[2].strip() == f"{means['mean'][0]:.4f}"
    assert "Superscript letters: the runs a run is significantly better than" in " ".join(narrow.stdout.split())
    assert "W/T/L" in narrow.stdout and f"{means['diff'][0]:+.4f}" in narrow.stdout
    # sized for the terminal: no line wider than COLUMNS
    import os
    slim = subprocess.run([sys.executable, "-m", "rankwise.cli", "compare", str(QRELS), str(RUN), str(worse), "-m", "AP",
                           "-m", "nDCG@10", "--resamples", "200"], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "80"}, timeout=120)
    assert max(len(line) for line in slim.stdout.splitlines()) <= 80, slim.stdout
    wide = cli("compare", str(QRELS), str(RUN), str(worse), "-m", "AP", "--resamples", "200", "--wide")
    every = rw.compare(QRELS, {"a": RUN, "b": worse}, ["AP"], resamples=200)
    assert all(c in wide.stdout for c in every.columns) and "shape:" not in wide.stdout
    same = cli("compare", str(QRELS), str(RUN), str(RUN), "-m", "AP", "--resamples", "200", "--test", "tukey")
    assert same.returncode == 0 and same.stderr == SAMPLE_COMPARE_NOTE, same.stderr
    table = cli("compare", str(QRELS), str(RUN), str(worse), "-m", "AP", "--anova", "--format", "csv")
    assert pl.read_csv(io.StringIO(table.stdout))["source"].to_list() == ["system", "topic", "residual"]
    alone = cli("compare", str(QRELS), str(RUN), "-m", "AP")
    assert alone.returncode == 2 and "rankwise compare QRELS RUN_A RUN_B" in alone.stderr
    for args, message in ((["--anova", "--report", str(tmp_path / "r.html")], "--anova prints the ANOVA table only: leave out --report"),
                          (["--resamples", "0"], "resamples must be a whole number of at least 1"),
                          (["--detect", "inf"], "detect must be a finite difference above 0"),
                          (["--power", "2"], "power must be between 0 and 1")):
        out = cli("compare", str(QRELS), str(RUN), str(worse), "-m", "AP", *args)
        assert out.returncode == 2 and out.stderr.startswith(f"rankwise: error: {message}"), out.stderr
        assert out.stderr.count("\n") == 1


def test_version() -> None:
    out = cli("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"rankwise {rw.__version__}"


def test_ir_measures_names_are_ir_measures_own() -> None:
    """`rankwise metrics` names a metric 'ir-measures: X' exactly when ir-measures has it."""
    import ir_measures

    from rankwise.metrics.registry import SPECS
    from rankwise.names.parse import IR_MEASURES_NAMES

    registry = ir_measures.measures.registry
    has = {s.name for s in SPECS if any(n in registry for n in s.all_names) or s.name == "InfAP"}
    assert set(IR_MEASURES_NAMES) == has
    assert all(name in registry for name in IR_MEASURES_NAMES.values())
    listing = cli("metrics").stdout
    assert "ir-measures: U" not in listing and "[ranx: hits, hits@k]" in listing


@pytest.mark.parametrize("name", ["nDCG", "P", "InfAP", "alpha_nDCG", "U", "RprecMult"])
def test_metric_page_says_each_thing_once(name: str) -> None:
    lines = cli("metrics", name).stdout.splitlines()
    keys = [line.split(":")[0].strip() for line in lines[1:] if line.startswith("  ") and not line.startswith("    ")]
    assert len(keys) == len(set(keys)), lines
    assert lines[0].startswith(f"{name}: ") and any(line.startswith("  formula:") for line in lines)


def test_readme_quick_start_block_is_what_the_command_prints() -> None:
    """The README's first command, run on the bundled data, prints exactly the block shown
    for it in docs/cli.md (so the two cannot drift); the page names the same command."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = readme.split("```bash\n", 1)[1].split("\n", 1)[0].split(" && ")[-1]
    assert command.startswith("rankwise eval ")
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert f"```bash\n{command}\n```" in page
    shown = page.split("It prints trec_eval's official measures", 1)[1].split("```\n", 1)[1].split("\n```", 1)[0]
    out = subprocess.run(
        [sys.executable, "-m", "rankwise.cli", *command.split()[1:]], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.rstrip("\n") == shown


def test_run_names_from_tags_files_or_name(tmp_path: Path, conformance: Path) -> None:
    """compare names runs by their TREC tag, else their file name without the extension, told
    apart when two collide (results.test and results.trunc, both tagged STANDARD); --name
    overrides, one per run."""
    from rankwise.inputs.run_names import unique_names

    conf = conformance
    tagged = tmp_path / "bm25.txt"
    tagged.write_text("q1 Q0 d1 1 2.0 myTag\nq1 Q0 d2 2 1.0 myTag\n")
    assert unique_names([conf / "results.test", conf / "results.trunc", tagged, RUN]) == [
        "results.test", "results.trunc", "myTag", "run",
    ]
    out = cli("compare", str(conf / "qrels.test"), str(conf / "results.test"), str(conf / "results.trunc"),
              "-m", "map", "--format", "csv")
    assert out.returncode == 0, out.stderr
    row = pl.read_csv(io.StringIO(out.stdout)).row(0, named=True)
    assert (row["run"], row["baseline"]) == ("results.trunc", "results.test")
    named = cli("compare", str(conf / "qrels.test"), str(conf / "results.test"), str(conf / "results.trunc"),
                "-m", "map", "--format", "csv", "--name", "full", "--name", "cut")
    assert pl.read_csv(io.StringIO(named.stdout)).row(0, named=True)["run"] == "cut"
    short = cli("compare", str(conf / "qrels.test"), str(conf / "results.test"), str(conf / "results.trunc"),
                "--name", "full")
    assert short.returncode == 2 and "--name was given 1 time(s) for 2 runs" in short.stderr
    trec = cli("eval", str(QRELS), str(RUN), "-m", "runid", "-m", "map", "--format", "trec", "--name", "mine")
    assert trec.stdout.splitlines()[0].split() == ["runid", "all", "mine"]


def _on_a_terminal(*args: str) -> tuple[bytes, str]:
    """Run the command with its stderr on a pseudo-terminal: (what the terminal got, stdout)."""
    import os
    import pty
    import select

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
    assert proc.wait(timeout=120) == 0, seen
    return seen, out


def test_progress_display_on_a_terminal() -> None:
    """On a terminal, eval shows each query group as it goes (one pass over the inputs, no
    counting pass first) and erases the line at the end; piped, or with --quiet, nothing."""
    seen, out = _on_a_terminal("eval", str(QRELS), str(RUN), "-m", "map", "--query-chunks", "3")
    assert b"rankwise: query groups 1/3" in seen and b"rankwise: query groups 3/3" in seen
    assert b"\r\x1b[2K" in seen and b"Traceback" not in seen
    piped = cli("eval", str(QRELS), str(RUN), "-m", "map", "--query-chunks", "3")
    assert out == piped.stdout and piped.stderr == SAMPLE_EVAL_NOTE
    quiet, _ = _on_a_terminal("eval", str(QRELS), str(RUN), "-m", "map", "--query-chunks", "3", "--quiet")
    assert quiet == b""
    runs, _ = _on_a_terminal("compare", str(QRELS), str(RUN), str(RUN), "-m", "AP", "--name", "a", "--name", "b")
    assert b"runs 1/2 (a)" in runs and b"runs 2/2 (b)" in runs


def test_report_names_the_command_and_shows_its_progress(tmp_path: Path) -> None:
    """compare --report: the page's provenance names the command line; on a terminal the
    figures and the report show as steps of the progress line."""
    target = tmp_path / "r.html"
    seen, _ = _on_a_terminal("compare", str(QRELS), str(RUN), str(RUN), "-m", "AP", "--name", "a", "--name", "b",
                             "--resamples", "200", "--report", str(target))
    page = target.read_text(encoding="utf-8")
    assert f"rankwise compare {QRELS} {RUN} {RUN} -m AP --name a --name b" in page
    assert b"drawing figures" in seen and b"the report" in seen


def test_metrics_page_of_any_metric_string() -> None:
    """`rankwise metrics` takes every metric string -m takes: trec_eval's (P_10, 11pt_avg,
    official), ir-measures' with a cutoff (nDCG@10); an unknown name says the closest."""
    assert cli("metrics", "P_10").stdout.startswith("P: precision at k")
    assert cli("metrics", "nDCG@10").stdout.startswith("nDCG: ")
    official = cli("metrics", "official").stdout
    assert official.startswith("NumQ: ") and "\nAP: " in official and "\nGMAP: " in official
    unknown = cli("metrics", "nDGC")
    assert unknown.returncode == 2 and "Closest: nDCG" in unknown.stderr
    # the better direction compare reads (issue 32)
    assert "\n  better:      lower (a decrease is a win in compare)\n" in cli("metrics", "Unjudged@10").stdout
    assert "\n  better:      neither (compare gives no win or loss)\n" in cli("metrics", "Judged@10").stdout


def test_metrics_page_names_a_bad_cutoff_or_parameter_value() -> None:
    """A known metric with a bad cutoff or parameter value: the error names the value and the
    values allowed, not "unknown metric"."""
    zero = cli("metrics", "nDCG@0")
    assert zero.returncode == 2 and zero.stdout == ""
    assert zero.stderr == "rankwise: error: metric 'nDCG@0': the cutoff k must be a positive integer, got 0\n"
    cubic = cli("metrics", "nDCG(gain='cubic')@10")
    assert cubic.returncode == 2 and cubic.stdout == ""
    assert cubic.stderr == (
        "rankwise: error: metric \"nDCG(gain='cubic')@10\": parameter 'gain' must be one of "
        "['linear', 'exponential', 'binary'], got 'cubic'\n"
    )


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_metrics_separated_by_commas_are_told_to_repeat_m(engine: str) -> None:
    """`-m nDCG@10,AP` is two metrics: the error says `-m nDCG@10 -m AP`, on every command
    that takes -m, and the metrics command too."""
    expected = (
        "rankwise: error: metric 'nDCG@10,AP' is 2 metrics separated by commas (a metric string holds one); "
        "give each its own -m: -m nDCG@10 -m AP\n"
    )
    for args in (("eval", str(QRELS), str(RUN)), ("compare", str(QRELS), str(RUN), str(RUN), "--name", "a", "--name", "b")):
        out = cli(*args, "-m", "nDCG@10,AP", "--engine", engine)
        assert (out.returncode, out.stdout, out.stderr) == (2, "", expected)
    out = cli("metrics", "nDCG@10,AP")
    assert (out.returncode, out.stdout, out.stderr) == (2, "", expected)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_a_column_flag_where_the_default_is_found(engine: str) -> None:
    """--query-id-col qid on inputs whose column is query_id: the hint says it is the default,
    not --run-query-id-col query_id."""
    out = cli("eval", str(QRELS), str(RUN), "--query-id-col", "qid", "--engine", engine)
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == (
        "rankwise: error: the run has no column 'qid'. Did you mean 'query_id'? (the default: name no query_id "
        "column for the run; if 'qid' is the qrels', pass --qrels-query-id-col qid alone) "
        "Columns found: ['query_id', 'doc_id', 'score']\n"
    )


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_compare_cost_col_names_the_run_without_it(tmp_path: Path, engine: str) -> None:
    """compare --cost-col: the error names the run that lacks the cost column."""
    costed = tmp_path / "costed.parquet"
    pl.read_parquet(RUN).with_columns(cost=pl.lit(1.0)).write_parquet(costed)
    out = cli("compare", str(QRELS), str(costed), str(RUN), "-m", "U", "--cost-col", "cost", "--engine", engine)
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr.startswith("rankwise: error: run 'run': the run has no column 'cost'.")
    assert out.stderr.count("\n") == 1


def test_swapped_hint_only_where_swapping_helps(tmp_path: Path) -> None:
    """A run with labels and its scores under another name is not called swapped: the hint
    names the score column instead; the report's folder is checked before the work."""
    labelled = tmp_path / "labelled.parquet"
    pl.read_parquet(RUN).rename({"score": "prob"}).with_columns(relevance=pl.lit(1)).write_parquet(labelled)
    out = cli("eval", str(QRELS), str(labelled))
    assert out.returncode == 2 and "look swapped" not in out.stderr and "no column 'score'" in out.stderr
    swapped = cli("eval", str(RUN), str(QRELS))
    assert swapped.returncode == 2 and "The arguments look swapped" in swapped.stderr
    nowhere = cli("compare", str(QRELS), str(RUN), str(labelled), "--report", str(tmp_path / "no" / "r.html"))
    assert nowhere.returncode == 2 and "the folder" in nowhere.stderr and "does not exist" in nowhere.stderr


@pytest.mark.parametrize("flags", [["-c"], ["-M", "5", "-J"], ["-l", "2", "--ties", "doc_asc", "--trec-eval", "9"]])
def test_compare_and_explain_take_eval_s_convention_flags(flags: list[str], tmp_path: Path) -> None:
    """The conventions are the same flags on eval, compare and explain (the command line said
    "-c scores it 0" to compare users, who had no -c)."""
    import io

    options: dict[str, object] = {"-c": {"missing": "zero"}, "-M": {"max_rank": 5, "judged_only": True},
                                  "-l": {"rel": 2.0, "ties": "doc_asc", "trec_eval": "9"}}[flags[0]]
    reversed_run = tmp_path / "reversed.parquet"
    pl.read_parquet(RUN).with_columns(score=-pl.col("score")).write_parquet(reversed_run)
    out = cli("compare", str(QRELS), str(RUN), str(reversed_run), "-m", "AP", "--format", "csv", "--resamples", "200", *flags)
    assert out.returncode == 0, out.stderr
    got = pl.read_csv(io.StringIO(out.stdout))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        expected = rw.compare(QRELS, {"run": RUN, "reversed": reversed_run}, ["AP"], resamples=200, **options)  # type: ignore[arg-type]
        explained = rw.explain(QRELS, RUN, "AP", "q001", **options)  # type: ignore[arg-type]
    assert got["queries"][0] == expected["queries"][0] == (200 if "-c" in flags else 199)
    assert got["mean"][0] == pytest.approx(expected["mean"][0], abs=1e-12)
    assert got["baseline_mean"][0] == pytest.approx(expected["baseline_mean"][0], abs=1e-12)
    if "-c" in flags:
        assert "run 'run' lacks 1 of the 200 judged queries: scored 0 there to pair them" in out.stderr
    shown = cli("explain", str(QRELS), str(RUN), "-m", "AP", "-q", "q001", "--format", "csv", *flags)
    assert shown.returncode == 0, shown.stderr
    assert pl.read_csv(io.StringIO(shown.stdout)).height == explained.height


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_eval_with_rectools_ideal_k_and_ap_over_k(tmp_path: Path, engine: str) -> None:
    """`rankwise eval -m "nDCG(ideal='k')@3" -m "AP(denominator='k')@4"` (rectools' NDCG and MAP
    with divide_by_k): a, c relevant at ranks 1 and 3 of a b c d, z relevant and not retrieved:
    nDCG = (1 + 1/2) / (1 + 1/log2 3 + 1/2) (three ideal ones whatever R), AP = (1 + 2/3) / 4.
    Without a cutoff each is one line on stderr and exit 2."""
    run, qrels = tmp_path / "r.run", tmp_path / "q.qrels"
    run.write_text("q Q0 a 1 4 x\nq Q0 b 2 3 x\nq Q0 c 3 2 x\nq Q0 d 4 1 x\n")
    qrels.write_text("q 0 a 1\nq 0 c 1\nq 0 z 1\n")
    ndcg, ap = "nDCG(ideal='k')@3", "AP(denominator='k')@4"
    out = cli("eval", str(qrels), str(run), "-m", ndcg, "-m", ap, "--per-query", "--format", "csv", "--engine", engine)
    assert out.returncode == 0, out.stderr
    got = pl.read_csv(io.StringIO(out.stdout))
    assert got["query_id"].to_list() == ["q"]
    assert got[ndcg][0] == pytest.approx((1 + 1 / 2) / (1 + 1 / math.log2(3) + 1 / 2), abs=1e-12)
    assert got[ap][0] == pytest.approx((1 + 2 / 3) / 4, abs=1e-12)
    for bad in ("nDCG(ideal='k')", "AP(denominator='k')"):
        out = cli("eval", str(qrels), str(run), "-m", bad, "--engine", engine)
        assert out.returncode == 2
        assert out.stderr.count("\n") == 1 and "needs a cutoff" in out.stderr and bad in out.stderr, out.stderr


def test_two_metrics_after_one_m_get_the_hint() -> None:
    """trec_eval's and rankwise's -m take one metric each: a second metric name after an -m value
    (before or after the files) is named in the usage error, with the spelling that works."""
    data = Path(__file__).resolve().parents[2] / "examples" / "data"
    qrels, run = str(data / "qrels.parquet"), str(data / "run.parquet")
    for args, first, second in (
        ((qrels, run, "-m", "nDCG@10", "AP"), "nDCG@10", "AP"),
        (("-m", "nDCG@10", "AP", qrels, run), "nDCG@10", "AP"),
        (("-m", "ndcg_cut_10", "map", qrels, run), "ndcg_cut_10", "map"),
    ):
        done = cli("eval", *args)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert f"each metric takes its own -m: -m {first} -m {second}" in done.stderr
    done = cli("eval", "-m", "nDCG@10", qrels, run, "extra")  # not a metric: no hint
    assert done.returncode == 2 and "unrecognized arguments: extra" in done.stderr and "own -m" not in done.stderr
