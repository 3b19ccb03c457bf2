"""Generate the documentation's figures from the bundled sample data.

The candidate is the sample run re-scored with seeded noise (a "new ranker" that is a little
different); the figures compare it with the sample run as the baseline. The report's picture
(docs/figures/report.png, on the README's front page) is the top of the report of
``rankwise compare examples/data/qrels.parquet examples/data/run.parquet examples/data/run_b.parquet
-m nDCG@10 -m AP --report report.html``, taken at 1280 px in headless Chromium (Debian's, through
Playwright, as the report's browser tests drive it).

    python examples/make_figures.py            # writes docs/figures/*.png
    python examples/make_figures.py --report   # only docs/figures/report.png
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import polars as pl

import rankwise as rw

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "examples" / "data"
OUT = ROOT / "docs" / "figures"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    base = pl.read_parquet(DATA / "run.parquet")
    rng = np.random.default_rng(7)
    candidate = base.with_columns(score=pl.col("score") + pl.Series(rng.normal(0, 0.6, base.height)))
    qrels = DATA / "qrels.parquet"
    runs = {"sample": base, "candidate": candidate}
    rw.plots.difference_plot(qrels, base, candidate, "AP", names=("sample", "candidate"), path=OUT / "difference.png")
    rw.plots.cutoff_curves(qrels, runs, "nDCG", max_k=20, path=OUT / "ndcg_at_k.png")
    rw.plots.precision_recall(qrels, runs, path=OUT / "precision_recall.png")
    rw.plots.score_distribution(qrels, runs, "nDCG@10", path=OUT / "distribution.png")
    # training interactions for the sample's users and items (every third and seventh listed
    # pair: some items popular, most not), and a third run that favours the popular items
    train = pl.concat([base.select("query_id", "doc_id").gather_every(k) for k in (3, 7)])
    popular = train.group_by("doc_id").len()
    favoured = base.join(popular, on="doc_id", how="left").with_columns(
        score=pl.col("score") + pl.col("len").fill_null(0) * 2.0
    ).drop("len")
    rw.plots.tradeoff(qrels, {**runs, "popular": favoured}, "nDCG@10", "MIUF@10", train=train,
                      path=OUT / "tradeoff.png")
    table = rw.compare(qrels, runs, ["AP", "nDCG@10", "P@10"], tests=["t", "randomization"])
    print(rw.to_markdown(table.select("run", "baseline", "metric", "mean", "baseline_mean", "diff", "ci_low", "ci_high", "d_z", "p_t_adj", "p_randomization_adj", "wins", "ties", "losses")))


CHROMIUM = "/usr/bin/chromium"


def report_screenshot(path: Path = OUT / "report.png", width: int = 1280, height: int = 1000) -> None:
    """Write the report of the bundled runs (run, run_b) with the command the README shows, and
    save the top ``height`` px of it, opened in headless Chromium ``width`` px wide, to ``path``."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.html"
        subprocess.run(
            [sys.executable, "-m", "rankwise.cli", "compare", str(DATA / "qrels.parquet"), str(DATA / "run.parquet"),
             str(DATA / "run_b.parquet"), "-m", "nDCG@10", "-m", "AP", "--report", str(report), "--quiet"],
            check=True, cwd=folder, stdout=subprocess.DEVNULL,
        )
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(report.as_uri())
            page.screenshot(path=str(path))
            browser.close()


if __name__ == "__main__":
    if sys.argv[1:] == ["--report"]:
        report_screenshot()
    else:
        main()
        report_screenshot()
