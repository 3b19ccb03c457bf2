"""The command line imports only what the command given needs (the performance issue: start to
first output on TREC-sized files in at most 0.4 s). Which modules are imported is checked here,
in a fresh interpreter; how long it takes is measured, not tested."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

NEVER = (
    "duckdb", "pyspark", "scipy", "statsmodels", "matplotlib", "pandas", "rich",
    "rankwise._duckdb.engine", "rankwise.evaluation.spark", "rankwise.evaluation.to_sql", "rankwise._sql.compiler",
    "rankwise.comparison.paired", "rankwise.comparison.statistics", "rankwise.reporting.plots", "rankwise.reporting.report",
    "rankwise.evaluation.explain", "rankwise.comparison.change", "rankwise.evaluation.lists", "rankwise.inputs.events",
)
"""Imported by no command below: the other engines, the statistics and figures of compare, the
other commands' modules."""

EVALUATION = ("rankwise.primitives", "rankwise.metrics.recipes", "rankwise._polars.engine", "rankwise.inputs.read")
"""What an evaluation needs and the commands that do not evaluate leave unimported."""


def imported(*argv: str) -> set[str]:
    """The modules of ``NEVER`` and ``EVALUATION`` imported once ``rankwise argv`` is done."""
    watched = (*NEVER, *EVALUATION)
    code = (
        "import contextlib, io, json, sys\n"
        "from rankwise.cli.commands import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        f"        code = main({list(argv)!r})\n"
        "    except SystemExit as exc:\n"
        "        code = exc.code\n"
        "assert code == 0, code\n"
        f"print(json.dumps([m for m in {watched!r} if m in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return set(json.loads(out.stdout))


def trec_files(folder: Path, queries: int = 5, docs: int = 20) -> tuple[Path, Path]:
    """A small TREC run and its qrels (judgments on every third document)."""
    run, qrels = folder / "run.trec", folder / "qrels.trec"
    run.write_text("".join(
        f"q{q} Q0 d{d} {d + 1} {docs - d}.5 tag\n" for q in range(queries) for d in range(docs)
    ))
    qrels.write_text("".join(f"q{q} 0 d{d} {d % 2}\n" for q in range(queries) for d in range(0, docs, 3)))
    return run, qrels


def test_eval_imports_polars_engine_only(tmp_path: Path) -> None:
    run, qrels = trec_files(tmp_path)
    found = imported("eval", str(qrels), str(run), "-m", "ndcg_cut_10", "-m", "map")
    assert found & set(NEVER) == set()
    assert set(EVALUATION) <= found


@pytest.mark.parametrize("argv", [["--version"], ["metrics"], ["metrics", "ndcg_cut_10"], ["eval", "--help"]])
def test_commands_that_do_not_evaluate_import_no_engine(argv: list[str]) -> None:
    # eval's help lists the input formats (rankwise.inputs.read's)
    allowed = {"rankwise.inputs.read"} if argv[0] == "eval" else set()
    assert imported(*argv) <= allowed


def test_import_rankwise_defers_the_api() -> None:
    """``import rankwise`` registers the ``.ir`` namespaces and imports the rest of the API
    when first used; every name of ``__all__`` resolves."""
    code = (
        "import sys, polars as pl, rankwise as rw\n"
        "assert 'rankwise.primitives' not in sys.modules\n"
        "assert hasattr(pl.DataFrame, 'ir') and hasattr(pl.LazyFrame, 'ir')\n"
        "missing = [n for n in rw.__all__ if getattr(rw, n, None) is None]\n"
        "assert not missing, missing\n"
        "import rankwise.evaluation.evaluate, rankwise.evaluation.explain, rankwise.reporting.report, rankwise.evaluation.to_sql\n"
        "assert all(callable(f) and not isinstance(f, type(sys)) for f in (rw.evaluate, rw.explain, rw.report, rw.to_sql))\n"
        "assert rw.plots.__name__ == 'rankwise.reporting.plots' and rw.io.__name__ == 'rankwise.inputs.read'\n"
        "print(set(dir(rw)) >= set(rw.__all__))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"
