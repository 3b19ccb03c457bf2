"""The runs × metrics summary (rankwise.comparison.summary) and its paper-ready tables (rankwise.reporting.tables):
means equal compare's, the best run per metric, ranx-style significance letters against the
baseline or between all pairs, and the page of a segmented comparison of in-memory frames."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import rankwise as rw
from rankwise.comparison.paired import comparison
from rankwise.comparison.summary import summary
from rankwise.reporting.tables import to_latex, to_markdown

DATA = Path(__file__).resolve().parents[2] / "examples" / "data"


@pytest.fixture(scope="module")
def three() -> tuple[pl.DataFrame, dict[str, pl.DataFrame]]:
    """The bundled run, a noisy copy and the reversed run (far worse)."""
    qrels = pl.read_parquet(DATA / "qrels.parquet")
    base = pl.read_parquet(DATA / "run.parquet")
    noisy = base.with_columns(score=pl.col("score") + (pl.col("doc_id").hash(7) % 1000) / 10_000)
    return qrels, {"base": base, "noisy": noisy, "reversed": base.with_columns(score=-pl.col("score"))}


def test_all_pairs_letters_and_best(three: tuple[pl.DataFrame, dict[str, pl.DataFrame]]) -> None:
    qrels, runs = three
    result = comparison(qrels, runs, ["AP", "P@10"], pairs="all", resamples=200)
    s = summary(result)
    assert s.means["letter"].to_list() == ["a", "b", "c"]
    table = result.table
    for row in table.iter_rows(named=True):  # every mean is compare's
        assert s.means.filter(run=row["run"])[row["metric"]].item() == row["mean"]
        assert s.means.filter(run=row["baseline"])[row["metric"]].item() == row["baseline_mean"]
    for m in ("AP", "P@10"):
        means = s.means[m].to_list()
        assert s.best[m].to_list() == [v == max(means) for v in means]
        # a letter for each significant pair, on the better run's cell
        for row in table.filter(metric=m, sig_t=True).iter_rows(named=True):
            better, worse = (row["run"], row["baseline"]) if row["diff"] > 0 else (row["baseline"], row["run"])
            assert "abc"[result.runs.index(worse)] in s.marks.filter(run=better)[m].item()
        marked = sum(len(x) for x in s.marks[m].to_list())
        assert marked == table.filter(metric=m, sig_t=True).height
    assert s.marks.filter(run="reversed").row(0)[2:] == ("", "")  # reversed beats nobody
    assert "every pair of runs" in s.legend


def test_baseline_pairs_mark_only_against_the_baseline(three: tuple[pl.DataFrame, dict[str, pl.DataFrame]]) -> None:
    qrels, runs = three
    s = summary(comparison(qrels, runs, ["AP"], baseline="noisy", resamples=200, correction="bonferroni"))
    # base vs reversed was not tested: base's cell can hold the letter of reversed only if tested
    assert "c" not in s.marks.filter(run="base")["AP"].item()
    assert "c" in s.marks.filter(run="noisy")["AP"].item()
    assert "each run against the baseline (noisy) only" in s.legend and "Bonferroni" in s.legend


def test_tables(three: tuple[pl.DataFrame, dict[str, pl.DataFrame]]) -> None:
    qrels, runs = three
    named = {"my_base": runs["base"], "50%": runs["reversed"]}
    result = comparison(qrels, named, ["AP", "nDCG@10"], resamples=200)
    latex = to_latex(result)
    assert latex.startswith("\\begin{table}") and "\\caption{" in latex and "\\toprule" in latex
    assert "my\\_base & \\textbf{" in latex and "$^{\\mathrm{b}}$" in latex and "50\\%" in latex
    markdown = to_markdown(result)
    assert markdown.splitlines()[0] == "| run | AP | nDCG@10 |"
    assert "| (a) my_base | **" in markdown and "<sup>b</sup>" in markdown
    # a DataFrame prints as it is, as before
    assert to_markdown(result.table).startswith("| run | baseline | metric | mean |")
    assert to_latex(result.table).startswith("\\begin{tabular}")


def test_report_of_segments_and_frames(three: tuple[pl.DataFrame, dict[str, pl.DataFrame]], tmp_path: Path) -> None:
    qrels, runs = three
    market = pl.when(pl.col("query_id") < "q100").then(pl.lit("de")).otherwise(pl.lit("fr")).alias("market")
    segmented = {n: r.with_columns(market) for n, r in runs.items() if n != "noisy"}
    page = tmp_path / "r.html"
    table = rw.report(qrels, segmented, ["AP"], page, by="market", resamples=200, explain=3,
                      command="rankwise compare qrels base reversed --by market")
    s = summary(comparison(qrels, segmented, ["AP"], by="market", resamples=200))
    assert s.means.columns == ["market", "run", "letter", "AP"] and s.means.height == 4
    text = page.read_text()
    assert "in-memory DataFrame, 19900 rows" in text and "in-memory DataFrame, 8000 rows" in text
    assert "the 3 queries of the largest absolute difference of AP" in text
    assert "rankwise compare qrels base reversed --by market" in text
    assert table.columns[0] == "market"
    assert (tmp_path / "r.md").read_text().startswith("| market | run | AP |")


def test_best_and_letters_follow_each_metric_s_direction(three: tuple[pl.DataFrame, dict[str, pl.DataFrame]]) -> None:
    """Unjudged: lower is better (the best is the smallest mean, a letter for a significantly
    lower one); Judged has no better direction (no best, no letter); the legend says so."""
    qrels, runs = three
    fewer = runs["base"].filter(pl.col("doc_id").hash(3) % 4 > 0)  # drops a quarter of the documents
    result = comparison(qrels, {"base": runs["base"], "reversed": runs["reversed"], "fewer": fewer},
                        ["Unjudged@10", "Judged@10", "AP"], pairs="all")
    s = summary(result)
    unjudged = s.means["Unjudged@10"].to_list()
    assert s.best["Unjudged@10"].to_list() == [v == min(unjudged) for v in unjudged]
    assert not any(s.best["Judged@10"].to_list()) and set(s.marks["Judged@10"].to_list()) == {""}
    table = result.table.filter(pl.col("metric") == "Unjudged@10", pl.col("sig_t"))
    for row in table.iter_rows(named=True):
        lower = row["run"] if row["diff"] < 0 else row["baseline"]
        higher = row["baseline"] if lower == row["run"] else row["run"]
        letter_of = dict(zip(s.marks["run"], s.marks["letter"], strict=True))
        assert letter_of[higher] in s.marks.filter(pl.col("run") == lower)["Unjudged@10"][0]
    assert "Lower is better for Unjudged@10" in s.legend and "Judged@10 has no better direction" in s.legend


def test_compare_refuses_what_a_mean_does_not_summarise(three: tuple[pl.DataFrame, dict[str, pl.DataFrame]]) -> None:
    """GMAP (a geometric mean) and the counts (sums) are not compared as means of per-query
    differences; runs must be a mapping of names."""
    qrels, runs = three
    with pytest.raises(rw.InvalidParameterError, match="gm_map, num_ret are not summarised by a mean"):
        rw.compare(qrels, {"a": runs["base"], "b": runs["noisy"]}, ["gm_map", "num_ret", "AP"])
    with pytest.raises(rw.InvalidParameterError, match="runs must map each run's name to the run"):
        rw.compare(qrels, [runs["base"], runs["noisy"]], ["AP"])  # type: ignore[arg-type]
    with pytest.raises(rw.InvalidParameterError, match="runs must map each run's name to the run"):
        rw.compare(qrels, runs["base"], ["AP"])  # type: ignore[arg-type]


def test_compare_warnings_name_their_run(three: tuple[pl.DataFrame, dict[str, pl.DataFrame]]) -> None:
    qrels, runs = three
    fewer_qrels = qrels.filter(pl.col("query_id") != qrels["query_id"][0])
    with pytest.warns(rw.RankwiseWarning, match="run 'noisy': 1 run query has no judgments"):
        rw.compare(fewer_qrels, {"base": runs["base"], "noisy": runs["noisy"]}, ["AP"])
