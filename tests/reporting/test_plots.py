"""Figures render (Agg backend) to PNG and SVG files; the report is one self-contained page."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import rankwise as rw

DATA = Path(__file__).resolve().parents[2] / "examples" / "data"
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
    metrics = ["AP", "nDCG@10", "nDCG@5", "nDCG@20"]
    table = rw.report(QRELS, runs, metrics, page, tests=["t", "wilcoxon"], explain=5)
    text = page.read_text()
    # for every metric its difference and distribution; the nDCG@k curve (k = 5, 10, 20), precision-recall
    assert text.count("data:image/png;base64,") == 2 * len(metrics) + 2 and 'alt="nDCG@k"' in text
    for m in metrics:
        assert f'alt="{m}: flat − base"' in text and f'alt="per-query {m}"' in text
    assert '<table id="summary">' in text and "src=\"http" not in text and "<link" not in text
    assert "the 5 queries of the largest absolute difference of AP" in text
    # the provenance: each file's hash, the call, the versions
    import hashlib

    assert hashlib.sha256(QRELS.read_bytes()).hexdigest() in text
    assert "rankwise.report(" in text and f"polars {pl.__version__}" in text
    markdown = (tmp_path / "report.md").read_text()
    assert markdown.startswith("| run | AP | nDCG@10 | nDCG@5 | nDCG@20 |")
    assert f"{table.filter(metric='AP')['baseline_mean'].item():.4f}" in markdown
    latex = (tmp_path / "report.tex").read_text()
    assert r"\begin{tabular}{llrrrr}" in latex and r"\toprule" in latex and r"\caption{" in latex
    assert table.height == 4  # one pair, four metrics: the baseline is no row of its own


def test_compare_command_writes_plots_and_report(runs: dict[str, Path], tmp_path: Path) -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "rankwise.cli", "compare", str(QRELS), str(runs["base"]), str(runs["flat"]),
         "-m", "AP", "-m", "P@5", "-m", "P@10", "--plot", str(tmp_path / "figs"), "--report", str(tmp_path / "r.html")],
        capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in (tmp_path / "figs").iterdir()) == [
        "P_at_k.png", "difference_AP_flat.png", "difference_P_10_flat.png", "difference_P_5_flat.png",
        "distribution_AP.png", "distribution_P_10.png", "distribution_P_5.png", "precision_recall.png",
    ]
    assert (tmp_path / "r.html").exists()


def test_every_output_of_one_call_shows_the_same_numbers(runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """One call of `rankwise compare --plot --report` evaluates each run once, and its stdout
    table, report files and figures all come from that evaluation: --alpha reaches the report
    (with alpha 1e-40 nothing is significant anywhere), and the difference figure counts the
    wins, ties and losses of the table."""
    import io

    from rankwise.cli import commands as cli
    from rankwise.comparison import paired as comparison
    from rankwise.comparison.summary import summary
    from rankwise.reporting import plots
    from rankwise.reporting.report import to_markdown

    calls: list[object] = []
    real = comparison.evaluate

    def counted(*args: object, **kwargs: object) -> pl.DataFrame:
        calls.append(args[0])
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(comparison, "evaluate", counted)
    page = tmp_path / "r.html"
    worse = tmp_path / "worse.parquet"
    pl.read_parquet(runs["base"]).with_columns(score=-pl.col("score")).write_parquet(worse)
    code = cli.main(["compare", str(QRELS), str(runs["base"]), str(worse), "-m", "AP", "-m", "RR",
                     "--alpha", "1e-40", "--test", "t", "--test", "wilcoxon", "--plot", str(tmp_path / "figs"),
                     "--report", str(page), "--format", "csv", "--quiet"])
    assert code == 0
    assert len(calls) == 2  # two runs, each evaluated once for the table, the figures and the report
    printed = pl.read_csv(io.StringIO(capsys.readouterr().out))
    expected = rw.compare(QRELS, {"run": runs["base"], "worse": worse}, ["AP", "RR"], alpha=1e-40, tests=["t", "wilcoxon"])
    assert printed.select("run", "metric", "wins", "ties", "losses", "sig_t", "sig_wilcoxon").rows() == expected.select(
        "run", "metric", "wins", "ties", "losses", "sig_t", "sig_wilcoxon").rows()
    # every difference is significant at 0.05, none at 1e-40, in every output
    assert (expected["p_t_adj"] < 0.05).all() and (expected["p_wilcoxon_adj"] < 0.05).all()
    assert not printed["sig_t"].any() and not printed["sig_wilcoxon"].any()
    assert "| yes |" not in (tmp_path / "r.md").read_text() and "<td>yes</td>" not in page.read_text()
    assert "alpha: 1e-40" in page.read_text()
    # the paper-ready summary shows the table's means, and no mark at alpha 1e-40
    both = {"run": runs["base"], "worse": worse}
    strict = comparison.comparison(QRELS, both, ["AP", "RR"], alpha=1e-40, tests=["t", "wilcoxon"])
    markdown = (tmp_path / "r.md").read_text()
    assert markdown == to_markdown(strict) + "\n" and "<sup>" not in markdown
    means = summary(strict).means
    for row in expected.iter_rows(named=True):
        assert means.filter(run=row["run"])[row["metric"]].item() == row["mean"]
        assert means.filter(run=row["baseline"])[row["metric"]].item() == row["baseline_mean"]
        assert f"{row['mean']:.4f}" in markdown and f"{row['baseline_mean']:.4f}" in markdown
    result = comparison.comparison(QRELS, both, ["AP", "RR"], also=plots.FIGURE_METRICS)
    # at 0.05 the run (a) is significantly better than worse (b) on both metrics
    assert summary(result).marks.rows() == [("run", "a", "b", "b"), ("worse", "b", "", "")]
    (diff, *_) = plots.figures(result)
    ap = expected.filter(metric="AP").row(0, named=True)
    assert f"({ap['wins']} wins, {ap['ties']} ties, {ap['losses']} losses)" in diff.figure.axes[0].get_title()
