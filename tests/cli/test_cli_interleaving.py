"""``rankwise interleave`` and ``rankwise interleaving``, run in a subprocess: the same lists and
numbers as rw.interleave and rw.interleaving_credit, the 'wrote' line, one-line errors, exit 2."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

import rankwise as rw
from tests.cli.test_cli import cli

DATA = Path(__file__).resolve().parents[2] / "examples" / "data"
RUN, RUN_B = DATA / "run.parquet", DATA / "run_b.parquet"


def _log(tmp_path: Path, method: str = "team_draft") -> Path:
    shown = rw.interleave({"run": RUN, "run_b": RUN_B}, method=method, k=10, seed=0)  # type: ignore[arg-type]
    clicks = (np.random.default_rng(0).random(shown.height) < 0.3).astype(int)
    path = tmp_path / "log.parquet"
    shown.with_columns(click=pl.Series(clicks)).write_parquet(path)
    return path


@pytest.mark.parametrize("method", ["team_draft", "balanced", "probabilistic"])
def test_interleave_writes_what_the_api_returns(tmp_path: Path, method: str) -> None:
    out = tmp_path / "interleaved.parquet"
    done = cli("interleave", str(RUN), str(RUN_B), "--method", method, "-k", "5", "--seed", "4", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == f"wrote {out} (199 queries, 995 rows)"
    expected = rw.interleave({"run": RUN, "run_b": RUN_B}, method=method, k=5, seed=4)  # type: ignore[arg-type]
    assert pl.read_parquet(out).equals(expected)


def test_interleave_csv_to_stdout_with_names(tmp_path: Path) -> None:
    done = cli("interleave", str(RUN), str(RUN_B), str(RUN), "--name", "a", "--name", "b", "--name", "c",
               "-k", "3", "--format", "csv")
    assert done.returncode == 0, done.stderr
    got = pl.read_csv(done.stdout.encode())
    assert got.equals(rw.interleave({"a": RUN, "b": RUN_B, "c": RUN}, k=3))  # type: ignore[arg-type]


@pytest.mark.parametrize("method", ["team_draft", "balanced", "probabilistic"])
def test_interleaving_summary_is_the_api_s(tmp_path: Path, method: str) -> None:
    log = _log(tmp_path, method)
    runs = [str(RUN), str(RUN_B)] if method != "team_draft" else []
    out = tmp_path / "summary.csv"
    done = cli("interleaving", str(log), *runs, "--method", method, "--engine", "duckdb", "--format", "csv", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == f"wrote {out} (199 impressions, 2 rankers)"
    result = rw.interleaving_credit(log, method=method, runs={"run": RUN, "run_b": RUN_B})  # type: ignore[arg-type]
    got = pl.read_csv(out)
    assert got.select("ranker_a", "ranker_b", "wins_a", "ties", "wins_b").rows() == \
        result.summary.select("ranker_a", "ranker_b", "wins_a", "ties", "wins_b").rows()
    assert got["delta"][0] == pytest.approx(result.summary["delta"][0])
    table = cli("interleaving", str(log), *runs, "--method", method)
    assert table.returncode == 0 and f"{method} interleaving, 199 impressions" in table.stdout
    assert max(len(line) for line in table.stdout.splitlines()) <= 120


def test_interleaving_per_impression(tmp_path: Path) -> None:
    log = _log(tmp_path)
    done = cli("interleaving", str(log), "--per-impression", "--format", "csv")
    assert done.returncode == 0, done.stderr
    got = pl.read_csv(done.stdout.encode(), schema_overrides={"winner": pl.String})
    assert got.equals(rw.interleaving_credit(log).impressions)


def test_interleaving_multileaving_prints_the_preference_matrix(tmp_path: Path) -> None:
    shown = rw.interleave({"a": RUN, "b": RUN_B, "c": RUN}, k=6, seed=1)  # type: ignore[arg-type]
    log = tmp_path / "log.csv"
    shown.with_columns(click=(pl.col("rank") % 3 == 0).cast(pl.Int64)).write_csv(log)
    done = cli("interleaving", str(log))
    assert done.returncode == 0, done.stderr
    assert "pairwise preferences" in done.stdout


@pytest.mark.parametrize("args,message", [
    (["interleave", str(RUN), str(RUN_B), "--method", "tdi"], "method must be one of"),
    (["interleave", str(RUN), "--method", "balanced"], "at least two runs"),
    (["interleave", str(RUN), str(RUN_B), str(RUN), "--method", "balanced"], "exactly two"),
    (["interleave", str(RUN), str(RUN_B), "--format", "parquet"], "needs -o"),
    (["interleaving", "LOG", "--click-col", "clicked"], "no column 'clicked'"),
    (["interleaving", "LOG", "--method", "balanced"], "runs="),
    (["interleaving", "LOG", str(RUN), "--method", "probabilistic"], "at least two runs"),
    (["interleaving", "LOG", "--no-clicks", "ignore"], "no_clicks"),
    (["interleaving", "BADTEAM", str(RUN), str(RUN_B)], "is not among the runs"),
    (["interleaving", "UNSHOWN"], "a click on a doc not shown"),
])
def test_errors_are_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    log = _log(tmp_path)
    bad = tmp_path / "bad.parquet"
    pl.read_parquet(log).with_columns(team=pl.lit("other")).write_parquet(bad)
    unshown = tmp_path / "unshown.parquet"
    pl.read_parquet(log).with_columns(doc_id=pl.when(pl.col("rank") == 2).then(None).otherwise(pl.col("doc_id")),
                                      click=pl.lit(1)).write_parquet(unshown)
    paths = {"LOG": str(log), "BADTEAM": str(bad), "UNSHOWN": str(unshown)}
    done = cli(*[paths.get(a, a) for a in args])
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rankwise: error:") and message in lines[0], done.stderr
