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
    from rankwise.evaluation import evaluator
    from rankwise.reporting import plots
    from rankwise.reporting.report import to_markdown

    calls: list[object] = []
    real = evaluator.evaluate  # what compare's Evaluator calls, once per run

    def counted(*args: object, **kwargs: object) -> pl.DataFrame:
        calls.append(args[0])
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(evaluator, "evaluate", counted)
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


# -- the trade-off figure: accuracy against a beyond-accuracy metric, per run ----------------------
def _training(runs: dict[str, Path]) -> pl.DataFrame:
    """Training interactions over the sample's users and items: every third listed pair, so that
    popularity varies between items."""
    rows = pl.read_parquet(runs["base"]).select("query_id", "doc_id")
    return rows.gather_every(3).vstack(rows.gather_every(7))


def _points(fig: object) -> list[tuple[float, float]]:
    """The plotted points (the errorbar markers) in the order drawn."""
    ax = fig.axes[0]  # type: ignore[attr-defined]
    return [(float(line.get_xdata()[0]), float(line.get_ydata()[0])) for line in ax.lines if line.get_marker() == "o"]


def test_tradeoff_points_are_the_compared_means_with_statsmodels_intervals(runs: dict[str, Path]) -> None:
    from statsmodels.stats.weightstats import DescrStatsW

    from rankwise.comparison.paired import comparison
    from rankwise.reporting.plots import figures, mean_interval

    train = _training(runs)
    result = comparison(QRELS, runs, ["nDCG@10", "MIUF@10", "AP"], train=train)
    drawn = {f.caption: f for f in figures(result)}
    assert "nDCG@10 against MIUF@10" in drawn and not any("against AP" in c for c in drawn)
    means = rw.compare(QRELS, runs, ["nDCG@10", "MIUF@10"], train=train)
    expected = [
        (means.filter(metric="MIUF@10")[column].item(), means.filter(metric="nDCG@10")[column].item())
        for column in ("baseline_mean", "mean")  # base (the baseline), then flat
    ]
    assert _points(drawn["nDCG@10 against MIUF@10"].figure) == pytest.approx(expected, abs=1e-12)
    for run in runs:
        values = result.per_query.array(run, "MIUF@10")
        low, high = DescrStatsW(values).tconfint_mean(alpha=0.05)
        assert mean_interval(values)[1:] == pytest.approx((low, high), rel=1e-12)
    rw.plots.close(list(drawn.values()))


def test_report_and_command_line_draw_the_tradeoff(runs: dict[str, Path], tmp_path: Path) -> None:
    import subprocess
    import sys

    train = tmp_path / "train.parquet"
    _training(runs).write_parquet(train)
    page = tmp_path / "report.html"
    rw.report(QRELS, runs, ["nDCG@10", "MIUF@10"], page, train=train)
    assert 'alt="nDCG@10 against MIUF@10"' in page.read_text()
    plots = tmp_path / "plots"
    done = subprocess.run(
        [sys.executable, "-m", "rankwise.cli", "compare", str(QRELS), str(runs["base"]), str(runs["flat"]),
         "-m", "AP", "-m", "ARP@10", "--train", str(train), "--plot", str(plots), "--quiet"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (plots / "tradeoff_AP_ARP_10.png").stat().st_size > 1000


def test_tradeoff_pairs_each_beyond_metric_with_the_first_accuracy_metric() -> None:
    from rankwise.reporting.plots import tradeoff_pairs

    assert tradeoff_pairs(["AP", "MIUF@10", "nDCG@10", "ILD@5"]) == [("AP", "MIUF@10"), ("AP", "ILD@5")]
    assert tradeoff_pairs(["AP", "nDCG@10"]) == [] and tradeoff_pairs(["MIUF@10", "ARP@10"]) == []


def test_tradeoff_function_with_item_features(runs: dict[str, Path], tmp_path: Path) -> None:
    """The public function reads the side inputs as compare does: here the item features (ILD);
    a run's interval is its mean alone when its values do not spread; ARP marks no better side."""
    from rankwise.reporting.plots import mean_interval

    docs = pl.read_parquet(runs["base"])["doc_id"].unique().sort()
    features = {doc: [float(i % 3), float(i % 5 == 0), 1.0] for i, doc in enumerate(docs)}
    target = tmp_path / "tradeoff.svg"
    fig = rw.plots.tradeoff(QRELS, runs, "AP", "ILD(distance='hamming')@5", features=features, path=target)
    assert target.stat().st_size > 1000
    means = rw.compare(QRELS, runs, ["AP", "ILD(distance='hamming')@5"], features=features)
    assert _points(fig)[1] == pytest.approx(
        (means.filter(metric="ILD(distance='hamming')@5")["mean"].item(), means.filter(metric="AP")["mean"].item())
    )
    assert fig.axes[0].get_xlabel() == "mean ILD(distance='hamming')@5 (higher is better)"
    import numpy as np

    assert mean_interval(np.array([0.5, 0.5, float("nan")])) == (0.5, 0.5, 0.5)
    assert all(np.isnan(mean_interval(np.array([float("nan")]))))
    arp = rw.plots.tradeoff(QRELS, runs, "AP", "ARP@10", train=_training(runs))
    assert arp.axes[0].get_xlabel() == "mean ARP@10 (no better direction)"
    with pytest.raises(rw.InvalidParameterError, match="train"):
        rw.plots.tradeoff(QRELS, runs, "AP", "MIUF@10")
