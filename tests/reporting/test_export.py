"""The report's paper-ready files: ``export=DIR`` (``rankwise compare --report ... --export DIR``)
writes the runs × metrics table as LaTeX and each figure as SVG and PNG, with the report's own
files, whole or none; the page's labels change, the comparison's columns do not."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import polars as pl
import pytest

import rankwise as rw
from rankwise.reporting.tables import header

DATA = Path(__file__).resolve().parents[2] / "examples" / "data"
QRELS = DATA / "qrels.parquet"
FIGURES = ["P_at_k", "difference_AP_flat", "difference_P_10_flat", "difference_P_5_flat", "distribution_AP",
           "distribution_P_10", "distribution_P_5", "precision_recall"]


@pytest.fixture
def runs(tmp_path: Path) -> dict[str, Path]:
    flat = tmp_path / "flat.parquet"
    pl.read_parquet(DATA / "run.parquet").with_columns(score=(pl.col("score") * 7).round(0)).write_parquet(flat)
    return {"base": DATA / "run.parquet", "flat": flat}


def test_export_writes_the_latex_table_and_every_figure(runs: dict[str, Path], tmp_path: Path) -> None:
    paper = tmp_path / "paper" / "figures"  # made with its parents
    table = rw.report(QRELS, runs, ["AP", "P@5", "P@10"], tmp_path / "r.html", resamples=200, explain=0, export=paper)
    assert sorted(p.name for p in paper.iterdir()) == sorted(
        ["table.tex", *(f"{s}.{x}" for s in FIGURES for x in ("png", "svg"))])
    # the LaTeX table is the report's summary; the comparison keeps its own column names
    assert (paper / "table.tex").read_text() == (tmp_path / "r.tex").read_text()
    assert {"p_t_adj", "sig_t", "diff", "rel_diff"} <= set(table.columns)
    import matplotlib.image as mpimg

    for stem in FIGURES:
        svg = ET.parse(paper / f"{stem}.svg").getroot()
        assert svg.tag == "{http://www.w3.org/2000/svg}svg"
        # 7 inches wide at 200 dpi for print
        assert mpimg.imread(str(paper / f"{stem}.png")).shape[1] == 1400, stem
    assert "AP: flat − base per query" in (paper / "difference_AP_flat.svg").read_text()  # text kept as text
    page = (tmp_path / "r.html").read_text()
    # the page shows the same figures, named by stem for its buttons
    assert sorted(re.findall(r'data-stem="([^"]+)"', page)) == sorted(FIGURES)


def test_export_is_written_whole_or_not_at_all(runs: dict[str, Path], tmp_path: Path) -> None:
    paper = tmp_path / "paper"
    (paper / "precision_recall.svg").mkdir(parents=True)  # a folder where a figure goes
    with pytest.raises(rw.OutputError, match=r"precision_recall\.svg"):
        rw.report(QRELS, runs, ["AP"], tmp_path / "r.html", resamples=50, explain=0, export=paper)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["flat.parquet", "paper"]
    assert [p.name for p in paper.iterdir()] == ["precision_recall.svg"]


def test_export_over_the_report_s_own_file_is_refused(runs: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(rw.InvalidParameterError, match=r"LaTeX table .* would be written over the report's LaTeX summary"):
        rw.report(QRELS, runs, ["AP"], tmp_path / "table.html", resamples=50, explain=0, export=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["flat.parquet"]


def test_cli_export(runs: dict[str, Path], tmp_path: Path) -> None:
    from tests.cli.test_cli import cli

    done = cli("compare", str(QRELS), str(runs["base"]), str(runs["flat"]), "-m", "AP", "-m", "P@5", "-m", "P@10",
               "--resamples", "50", "--report", str(tmp_path / "r.html"), "--export", str(tmp_path / "paper"), "--quiet")
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "paper").iterdir())) == 1 + 2 * len(FIGURES)
    alone = cli("compare", str(QRELS), str(runs["base"]), str(runs["flat"]), "--export", str(tmp_path / "more"))
    assert alone.returncode == 2 and alone.stderr.strip().splitlines() == [
        "rankwise: error: --export writes the paper-ready files of the report: give --report too"]
    assert not (tmp_path / "more").exists()


@pytest.mark.parametrize(("column", "correction", "label"), [
    ("p_t_adj", "holm", "p (t-test, Holm)"), ("p_wilcoxon_adj", "fdr_bh", "p (Wilcoxon, BH)"),
    ("p_tukey_adj", "holm", "p (Tukey HSD, adjusted)"), ("sig_t", "holm", "significant"),
    ("hedges_g", "holm", "g_z"), ("kendall_tau", "holm", "Kendall's τ"), ("queries_needed", "holm", "queries_needed"),
])
def test_header_labels(column: str, correction: str, label: str) -> None:
    from rankwise.comparison.paired import comparison

    qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "relevance": [1, 1]})
    run = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "x"], "score": [1.0, 1.0]})
    result = comparison(qrels, {"a": run, "b": qrels.rename({"relevance": "score"})}, ["P@1"], correction=correction,
                        tests=[], resamples=10)
    assert header(column, result)[0] == label


def test_several_tests_mark_their_significant_p_values(runs: dict[str, Path], tmp_path: Path) -> None:
    """With several tests, each test's p-value column marks the significant ones ``*`` (no
    column of yes/no per test: the table stays narrow); the comparison keeps its columns."""
    worse = tmp_path / "worse.parquet"
    pl.read_parquet(DATA / "run.parquet").with_columns(score=-pl.col("score")).write_parquet(worse)
    page = tmp_path / "r.html"
    table = rw.report(QRELS, {"base": runs["base"], "worse": worse}, ["AP"], page, tests=["t", "wilcoxon"],
                      resamples=50, explain=0)
    text = page.read_text()
    effects = text.split("<h2 id='effects'>", 1)[1].split("<h2 id='risk'>", 1)[0]
    assert "p (t-test, Holm)</span></th>" in effects and "p (Wilcoxon, Holm)</span></th>" in effects
    assert ">significant<" not in effects and "*: significant, the p-value below 0.05." in effects
    p = table["p_t_adj"].item()
    assert table["sig_t"].item() and f">{p:.2g}\u00a0*</td>" in effects


def _page_keys(page: Path) -> list[str]:
    """The per-query table's key columns as the page's data block names them (its headers)."""
    import json

    block = re.search(r'<script id="rw-data" type="application/json">(.*?)</script>', page.read_text(), re.S)
    assert block is not None
    keys: list[str] = json.loads(block.group(1))["keys"]
    return keys


@pytest.fixture
def user_runs(runs: dict[str, Path], tmp_path: Path) -> dict[str, Path]:
    """The qrels and both runs with their query column named ``user_id``."""
    out = {}
    for name, path in {"qrels": QRELS, **runs}.items():
        out[name] = tmp_path / f"user_{name}.parquet"
        pl.read_parquet(path).rename({"query_id": "user_id"}).write_parquet(out[name])
    return out


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("naming", ["query_id", "per input"])
def test_the_per_query_table_keys_queries_by_the_user_s_column_name(
        user_runs: dict[str, Path], tmp_path: Path, engine: str, naming: str) -> None:
    """The per-query table's key column is headed ``user_id`` whether the column is named for
    both inputs (``query_id='user_id'``) or per input (``run_columns``/``qrels_columns``); the
    LaTeX summary and its export name no ``query_id``."""
    names: dict[str, object] = (
        {"query_id": "user_id"} if naming == "query_id"
        else {"run_columns": {"query_id": "user_id"}, "qrels_columns": {"query_id": "user_id"}})
    page = tmp_path / "r.html"
    rw.report(user_runs["qrels"], {"base": user_runs["base"], "flat": user_runs["flat"]}, ["AP"], page,
              resamples=20, explain=1, export=tmp_path / "paper", engine=engine, **names)  # type: ignore[arg-type]
    assert _page_keys(page) == ["user_id"]
    assert "query_id" not in (tmp_path / "r.tex").read_text()
    assert (tmp_path / "paper" / "table.tex").read_text() == (tmp_path / "r.tex").read_text()


@pytest.mark.parametrize("flags", [["--query-id-col", "user_id"],
                                   ["--run-query-id-col", "user_id", "--qrels-query-id-col", "user_id"]])
def test_cli_report_keys_queries_by_the_user_s_column_name(
        user_runs: dict[str, Path], tmp_path: Path, flags: list[str]) -> None:
    from tests.cli.test_cli import cli

    done = cli("compare", str(user_runs["qrels"]), str(user_runs["base"]), str(user_runs["flat"]), "-m", "AP",
               *flags, "--resamples", "20", "--report", str(tmp_path / "r.html"), "--export", str(tmp_path / "paper"),
               "--quiet")
    assert done.returncode == 0, done.stderr
    assert _page_keys(tmp_path / "r.html") == ["user_id"]
    assert "query_id" not in (tmp_path / "paper" / "table.tex").read_text()


def test_the_per_query_table_keys_by_query_id_by_default(runs: dict[str, Path], tmp_path: Path) -> None:
    rw.report(QRELS, runs, ["AP"], tmp_path / "r.html", resamples=20, explain=0)
    assert _page_keys(tmp_path / "r.html") == ["query_id"]
