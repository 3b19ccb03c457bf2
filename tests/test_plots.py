"""Figures render (Agg backend) to PNG and SVG files; the report is one self-contained page."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import rankwise as rw

DATA = Path(__file__).resolve().parents[1] / "examples" / "data"
QRELS = DATA / "qrels.parquet"


@pytest.fixture
def runs(tmp_path: Path) -> dict[str, Path]:
    base = pl.read_parquet(DATA / "run.parquet")
    flat = tmp_path / "flat.parquet"
    base.with_columns(score=(pl.col("score") * 7).round(0)).write_parquet(flat)
    return {"base": DATA / "run.parquet", "flat": flat}


@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_every_figure_renders_to_a_file(runs: dict[str, Path], tmp_path: Path, suffix: str) -> None:
    figures = {
        "diff": lambda p: rw.plots.difference_plot(QRELS, runs["base"], runs["flat"], "AP", path=p),
        "curves": lambda p: rw.plots.cutoff_curves(QRELS, runs, "nDCG", max_k=10, path=p),
        "pr": lambda p: rw.plots.precision_recall(QRELS, runs, path=p),
        "dist": lambda p: rw.plots.score_distribution(QRELS, runs, "nDCG@10", path=p),
    }
    for name, draw in figures.items():
        target = tmp_path / f"{name}.{suffix}"
        fig = draw(target)
        assert fig.axes, name
        assert target.stat().st_size > 1000, name


def test_curve_needs_a_cutoff_metric(runs: dict[str, Path]) -> None:
    with pytest.raises(rw.InvalidParameterError, match="Rprec takes no cutoff"):
        rw.plots.cutoff_curves(QRELS, runs, "Rprec")


def test_report_is_self_contained(runs: dict[str, Path], tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    table = rw.report(QRELS, runs, ["AP", "nDCG@10"], page, tests=["t", "wilcoxon"])
    text = page.read_text()
    assert text.count("data:image/png;base64,") == 4
    assert "<table>" in text and "src=\"http" not in text
    assert (tmp_path / "report.md").read_text().startswith("| run | metric |")
    assert r"\begin{tabular}" in (tmp_path / "report.tex").read_text()
    assert table.height == 4


def test_compare_command_writes_plots_and_report(runs: dict[str, Path], tmp_path: Path) -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "rankwise.cli", "compare", str(QRELS), str(runs["base"]), str(runs["flat"]),
         "-m", "AP", "--plot", str(tmp_path / "figs"), "--report", str(tmp_path / "r.html")],
        capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in (tmp_path / "figs").iterdir()) == [
        "difference_AP_flat.png", "distribution_AP.png", "ndcg_at_k.png", "precision_recall.png",
    ]
    assert (tmp_path / "r.html").exists()
