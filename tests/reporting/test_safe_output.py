"""Output that ids and run names cannot break (issue 32, "Trust II"): the report's embedded
data, Markdown table cells, tables on a terminal (control characters shown, not obeyed), empty
run names, the report's files never colliding with each other, an input or ``-o``, and a
report of inputs that can be read only once (generators of records).

The data: five queries whose ids hold what breaks a page, a table or a terminal, each with one
relevant document ``d1`` and one non-relevant ``d2``; three runs named likewise. The values are
computed by hand: the baseline ranks d1 first (AP 1, P@1 1), ``a|b`` ranks it second (AP 1/2,
P@1 0), ``c\\|d`` retrieves neither (AP 0, P@1 0).
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rankwise as rw
from rankwise.comparison.paired import comparison
from rankwise.errors import InvalidParameterError
from rankwise.evaluation.evaluate import Engine
from rankwise.reporting.tables import markdown_cell, to_markdown, to_text
from tests.cli.test_cli_faults import QRELS, RUN, cli, error_line

IDS = ["<!--<script>", "</script>", "a|b", "q\u2028x", "\x1b[2Jq"]
"""Query ids: a comment and a script opened, a script closed, a pipe, a line separator, ESC."""
BASE, PIPE, BACKSLASH_PIPE = "<!--<script>", "a|b", "c\\|d"
"""Run names: the baseline, one holding ``|``, one holding ``\\|``."""
AP = {BASE: 1.0, PIPE: 0.5, BACKSLASH_PIPE: 0.0}
P1 = {BASE: 1.0, PIPE: 0.0, BACKSLASH_PIPE: 0.0}
ENGINES: list[Engine] = ["polars", "duckdb"]


def _qrels() -> pl.DataFrame:
    return pl.DataFrame({
        "query_id": [q for q in IDS for _ in (1, 2)], "doc_id": ["d1", "d2"] * len(IDS), "relevance": [1, 0] * len(IDS),
    })


def _run(docs: list[str]) -> pl.DataFrame:
    return pl.DataFrame({
        "query_id": [q for q in IDS for _ in docs], "doc_id": docs * len(IDS),
        "score": [float(len(docs) - i) for i in range(len(docs))] * len(IDS),
    })


def _runs() -> dict[str, pl.DataFrame]:
    return {BASE: _run(["d1", "d2"]), PIPE: _run(["d2", "d1"]), BACKSLASH_PIPE: _run(["d3", "d4"])}


def _records(frame: pl.DataFrame) -> Iterator[dict[str, Any]]:
    """The frame's rows as a generator of dicts: readable once."""
    return (row for row in frame.iter_rows(named=True))


def _data_block(page: str) -> str:
    start = '<script id="rw-data" type="application/json">'
    return page.split(start, 1)[1].split("</script>", 1)[0]


# --- the report page's embedded data ------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_report_script_block_holds_no_dangerous_sequence(tmp_path: Path, engine: Engine) -> None:
    page = tmp_path / "report.html"
    rw.report(_qrels(), _runs(), ["AP", "P@1"], page, engine=engine, resamples=100, explain=5)
    text = page.read_text(encoding="utf-8")
    block = _data_block(text)
    for bad in ("<", ">", "\u2028", "\u2029"):
        assert bad not in block, f"{bad!r} in the script block"
    # two script blocks (the data and the script), each closed once: no id opened or closed one
    assert text.count("<script") == 2 and text.count("</script>") == 2 and "<!--" not in text
    data = json.loads(block)  # the escapes read back as the same text
    assert sorted(q for (q,) in data["ids"]) == sorted(IDS)
    assert data["runs"] == [BASE, PIPE, BACKSLASH_PIPE]
    assert set(data["explained"]) == set(IDS)
    for run in data["runs"]:
        assert data["values"]["AP"][run] == [AP[run]] * len(IDS)
        assert data["values"]["P@1"][run] == [P1[run]] * len(IDS)


# --- Markdown cells -----------------------------------------------------------------------


def test_markdown_cell_escapes_pipes_and_control_characters() -> None:
    assert markdown_cell("a|b") == "a\\|b"
    assert markdown_cell("c\\|d") == "c\\\\\\|d"  # the backslash doubled, the pipe escaped: c\\\|d
    assert markdown_cell("e\nf\x1b") == "e\\nf\\x1b"  # a line break would end the row
    assert markdown_cell("plain\\text") == "plain\\text"


def test_markdown_summary_escapes_run_names(tmp_path: Path) -> None:
    result = comparison(_qrels(), _runs(), ["AP", "P@1"], resamples=100)
    expected = [
        "| run | AP | P@1 |",
        "| --- | ---: | ---: |",
        "| (a) <!--<script> | **1.0000**<sup>bc</sup> | **1.0000**<sup>bc</sup> |",
        "| (b) a\\|b | 0.5000 | 0.0000 |",
        "| (c) c\\\\\\|d | 0.0000 | 0.0000 |",
    ]
    assert to_markdown(result).splitlines()[:5] == expected
    # the report's .md is that table
    page = tmp_path / "report.html"
    rw.report(_qrels(), _runs(), ["AP", "P@1"], page, resamples=100, explain=0)
    assert (tmp_path / "report.md").read_text(encoding="utf-8").splitlines()[:5] == expected


def test_markdown_of_a_frame_escapes_names_and_values() -> None:
    frame = pl.DataFrame({"run|name": ["x|y", "e\x1bz"], "mean": [0.5, None]})
    assert to_markdown(frame).splitlines() == [
        "| run\\|name | mean |", "| --- | --- |", "| x\\|y | 0.5000 |", "| e\\x1bz |  |",
    ]


def test_terminal_table_of_a_comparison_escapes_pipes() -> None:
    lines = to_text(comparison(_qrels(), _runs(), ["AP"], resamples=100), 100).splitlines()
    assert "| (b) a\\|b         | 0.5000    |" in lines
    assert "| (c) c\\\\\\|d       | 0.0000    |" in lines


# --- control characters on a terminal -----------------------------------------------------


@pytest.fixture
def escape_files(tmp_path: Path) -> tuple[Path, Path, Path]:
    """TREC qrels and two runs whose query id, document id and run tag hold escape sequences."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(b"q\x1b[31m1 0 d\x1b]0;x\x071 1\nq2 0 d2 1\n")
    run_a = tmp_path / "a.trec"
    run_a.write_bytes(b"q\x1b[31m1 Q0 d\x1b]0;x\x071 1 2.0 t\x1b[2Ja\nq2 Q0 d3 1 1.0 t\x1b[2Ja\n")
    run_b = tmp_path / "b.trec"
    run_b.write_bytes(b"q\x1b[31m1 Q0 d9 1 2.0 b\nq2 Q0 d2 1 1.0 b\n")
    return qrels, run_a, run_b


def test_eval_table_shows_escapes_and_machine_formats_keep_the_bytes(escape_files: tuple[Path, Path, Path]) -> None:
    qrels, run_a, _ = escape_files
    table = cli("eval", qrels, run_a, "-q", "-m", "P@1")
    assert table.returncode == 0, table.stderr
    assert "\x1b" not in table.stdout
    assert table.stdout.splitlines()[0].split() == ["P@1", "q\\x1b[31m1", "1.0000"]
    csv = cli("eval", qrels, run_a, "-q", "-m", "P@1", "--format", "csv")
    assert pl.read_csv(io.StringIO(csv.stdout))["query_id"].to_list() == ["q\x1b[31m1", "q2"]
    as_json = cli("eval", qrels, run_a, "-q", "-m", "P@1", "--format", "json")
    assert [r["query_id"] for r in json.loads(as_json.stdout)] == ["q\x1b[31m1", "q2"]
    trec = cli("eval", qrels, run_a, "-q", "-m", "P@1", "--format", "trec")
    assert trec.returncode == 0 and "q\x1b[31m1" in trec.stdout


def test_compare_table_shows_escapes_csv_keeps_the_bytes(escape_files: tuple[Path, Path, Path]) -> None:
    qrels, run_a, run_b = escape_files
    table = cli("compare", qrels, run_a, run_b, "-m", "P@1", "--resamples", "100")
    assert table.returncode == 0, table.stderr
    assert "\x1b" not in table.stdout and "\x07" not in table.stdout
    assert "(a) t\\x1b[2Ja" in table.stdout
    wide = cli("compare", qrels, run_a, run_b, "-m", "P@1", "--resamples", "100", "--wide")
    assert "\x1b" not in wide.stdout and "t\\x1b[2Ja" in wide.stdout
    csv = cli("compare", qrels, run_a, run_b, "-m", "P@1", "--resamples", "100", "--format", "csv")
    assert pl.read_csv(io.StringIO(csv.stdout))["baseline"].to_list() == ["t\x1b[2Ja"]


def test_change_and_explain_tables_show_escapes(escape_files: tuple[Path, Path, Path]) -> None:
    qrels, run_a, run_b = escape_files
    change = cli("change", run_a, run_b)
    assert change.returncode == 0, change.stderr
    assert "\x1b" not in change.stdout and "q\\x1b[31m1" in change.stdout
    change_csv = cli("change", run_a, run_b, "--format", "csv")
    assert "q\x1b[31m1" in pl.read_csv(io.StringIO(change_csv.stdout))["query_id"].to_list()
    explain = cli("explain", qrels, run_a, "-m", "P@1", "-q", "q\x1b[31m1")
    assert explain.returncode == 0, explain.stderr
    assert "\x1b" not in explain.stdout and "\x07" not in explain.stdout and "d\\x1b]0;x\\x071" in explain.stdout
    explain_json = cli("explain", qrels, run_a, "-m", "P@1", "-q", "q\x1b[31m1", "--format", "json")
    assert json.loads(explain_json.stdout)[0]["doc_id"] == "d\x1b]0;x\x071"


def test_progress_and_messages_show_escapes(capsys: pytest.CaptureFixture[str]) -> None:
    from rankwise.cli.commands import _say
    from rankwise.outputs import progress

    out = io.StringIO()
    with progress.displayed(out, width=80, live=False) as shown, progress.task("runs", total=1) as t:
        t.at(0, detail="t\x1b[2Ja")
    assert shown.last == "rankwise: runs 1/1 (t\\x1b[2Ja) · 0 s"
    assert "\x1b[2J" not in out.getvalue()
    _say("rankwise: warning: run 't\x1b[2Ja'\u202e")
    assert capsys.readouterr().err == "rankwise: warning: run 't\\x1b[2Ja'\\u202e\n"


# --- empty run names ----------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", ["", " ", "\t"])
def test_compare_refuses_an_empty_run_name(engine: Engine, name: str) -> None:
    runs = {name: _run(["d1"]), "b": _run(["d2"])}
    with pytest.raises(InvalidParameterError, match="a run's name cannot be empty"):
        rw.compare(_qrels(), runs, "AP", engine=engine)
    with pytest.raises(InvalidParameterError, match="a run's name cannot be empty"):
        rw.anova(_qrels(), runs, "AP", engine=engine)


def test_report_and_plots_refuse_an_empty_run_name(tmp_path: Path) -> None:
    runs = {"a": _run(["d1"]), "": _run(["d2"])}
    with pytest.raises(InvalidParameterError, match="a run's name cannot be empty"):
        rw.report(_qrels(), runs, "AP", tmp_path / "report.html")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(InvalidParameterError, match="a run's name cannot be empty"):
        rw.plots.score_distribution(_qrels(), runs, "AP")


@pytest.mark.parametrize("command", ["eval", "compare"])
def test_cli_refuses_an_empty_name(command: str) -> None:
    args: list[str | Path] = ["eval", QRELS, RUN, "--name", ""] if command == "eval" else ["compare", QRELS, RUN, RUN, "--name", "a", "--name", ""]
    line = error_line(cli(*args))
    assert line == "rankwise: error: a run's name cannot be empty or only whitespace, got '': name each run, e.g. --name bm25"


# --- the report's files -------------------------------------------------------------------


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


@pytest.mark.parametrize("name", ["summary.md", "summary.tex", "summary.MD"])
def test_report_named_like_its_own_summary_is_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(InvalidParameterError, match="would be written over by its own"):
        rw.report(_qrels(), _runs(), "AP", tmp_path / name)
    assert list(tmp_path.iterdir()) == []


def test_report_over_an_input_file_is_refused(tmp_path: Path) -> None:
    qrels, run = tmp_path / "qrels.parquet", tmp_path / "base.md"
    _qrels().write_parquet(qrels)
    _runs()[BASE].write_parquet(run)  # a Parquet file named .md: the report's Markdown summary would replace it
    before = _files(tmp_path)
    runs = {"base": run, "other": _runs()[PIPE]}
    with pytest.raises(InvalidParameterError, match=r"page '.*qrels.parquet' would be written over the qrels"):
        rw.report(qrels, runs, "AP", qrels)
    with pytest.raises(InvalidParameterError, match=r"Markdown summary '.*base.md' would be written over the run 'base'"):
        rw.report(qrels, runs, "AP", tmp_path / "base.html")
    link = tmp_path / "linked.tex"
    link.symlink_to(qrels)  # a link: the write would go through it, to the qrels
    with pytest.raises(InvalidParameterError, match=r"LaTeX summary '.*linked.tex' would be written over the qrels"):
        rw.report(qrels, runs, "AP", tmp_path / "linked.html")
    assert _files(tmp_path) == {**before, "linked.tex": qrels.read_bytes()}


def test_report_into_an_input_folder_or_glob_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    _runs()[BASE].write_parquet(folder / "part-0.parquet")
    runs = {"base": folder, "other": _runs()[PIPE]}
    with pytest.raises(InvalidParameterError, match="would be written into the folder of the run 'base'"):
        rw.report(_qrels(), runs, "AP", folder / "report.html")
    runs = {"base": str(folder / "*.parquet"), "other": _runs()[PIPE]}
    with pytest.raises(InvalidParameterError, match="among the files of the glob of the run 'base'"):
        rw.report(_qrels(), runs, "AP", folder / "report.parquet")
    assert [p.name for p in folder.iterdir()] == ["part-0.parquet"]


def test_write_report_checks_its_files_too(tmp_path: Path) -> None:
    from rankwise.reporting.plots import close, figures
    from rankwise.reporting.report import write_report

    qrels = tmp_path / "qrels.parquet"
    _qrels().write_parquet(qrels)
    result = comparison(qrels, _runs(), ["AP"], resamples=100)
    drawn = figures(result)
    try:
        with pytest.raises(InvalidParameterError, match="would be written over the qrels"):
            write_report(result, qrels, drawn)
        with pytest.raises(InvalidParameterError, match="would be written over by its own Markdown summary"):
            write_report(result, tmp_path / "r.md", drawn)
    finally:
        close(drawn)
    assert _files(tmp_path) == {"qrels.parquet": qrels.read_bytes()}


def test_cli_report_collisions_are_refused(tmp_path: Path) -> None:
    run = tmp_path / "run.parquet"
    run.write_bytes(RUN.read_bytes())
    before = _files(tmp_path)
    cases = {
        "summary.md": [str(tmp_path / "summary.md")],
        "the run": [str(run)],
        "-o": [str(tmp_path / "page.html"), "-o", str(tmp_path / "page.tex")],
    }
    expected = {
        "summary.md": "would be written over by its own Markdown summary",
        "the run": "would be written over the run 'run'",
        "-o": "LaTeX summary '" + str(tmp_path / "page.tex") + "' is also -o's file",
    }
    for case, report in cases.items():
        line = error_line(cli("compare", QRELS, RUN, run, "--name", "a", "--name", "run", "-m", "AP", "--report", *report))
        assert expected[case] in line, (case, line)
    assert _files(tmp_path) == before


# --- inputs read once ---------------------------------------------------------------------


def _numbers(page: str) -> str:
    """The page up to its figures: every table and the per-query data (the provenance, which
    names the inputs and the date, and the figures follow)."""
    return page.split("<h2 id='figures'>", 1)[0]


@pytest.mark.parametrize("engine", ENGINES)
def test_report_of_generators_matches_the_report_of_frames(tmp_path: Path, engine: Engine) -> None:
    frames, records = tmp_path / "frames.html", tmp_path / "records.html"
    rw.report(_qrels(), _runs(), ["AP", "P@1"], frames, engine=engine, resamples=100, explain=5)
    generated = {name: _records(run) for name, run in _runs().items()}
    rw.report(_records(_qrels()), generated, ["AP", "P@1"], records, engine=engine, resamples=100, explain=5)
    page = records.read_text(encoding="utf-8")
    assert _numbers(page) == _numbers(frames.read_text(encoding="utf-8"))
    assert json.loads(_data_block(page))["values"]["AP"][PIPE] == [0.5] * len(IDS)
    assert "Ranking change" in page and '"error"' not in _data_block(page)
    for suffix in (".md", ".tex"):
        assert records.with_suffix(suffix).read_text() == frames.with_suffix(suffix).read_text()


def test_write_report_of_a_comparison_of_generators(tmp_path: Path) -> None:
    from rankwise.reporting.plots import close, figures
    from rankwise.reporting.report import write_report

    pages = {}
    for kind in ("frames", "records"):
        qrels: Any = _qrels() if kind == "frames" else _records(_qrels())
        runs: dict[str, Any] = _runs() if kind == "frames" else {n: _records(r) for n, r in _runs().items()}
        result = comparison(qrels, runs, ["AP"], resamples=100)
        drawn = figures(result)
        write_report(result, tmp_path / f"{kind}.html", drawn, explain=5)
        close(drawn)
        pages[kind] = _numbers((tmp_path / f"{kind}.html").read_text(encoding="utf-8"))
    assert pages["records"] == pages["frames"]
    explained = json.loads(_data_block(pages["records"] + "</script>"))["explained"]
    assert set(explained) == set(IDS)


def test_report_reads_each_input_s_own_column_names(tmp_path: Path) -> None:
    """The explanations and the ranking change read the inputs as the comparison did:
    ``run_columns`` applied (records included)."""
    plain, renamed = tmp_path / "plain.html", tmp_path / "renamed.html"
    rw.report(_qrels(), _runs(), ["AP"], plain, resamples=100, explain=5)
    runs = {name: _records(run.rename({"query_id": "qid"})) for name, run in _runs().items()}
    rw.report(_qrels(), runs, ["AP"], renamed, resamples=100, explain=5, run_columns={"query_id": "qid"})
    # the same page, but for the per-query table's key column, headed by the runs' own name for it
    text = renamed.read_text(encoding="utf-8")
    assert '"keys":["qid"]' in text
    assert _numbers(text.replace('"keys":["qid"]', '"keys":["query_id"]')) == _numbers(plain.read_text(encoding="utf-8"))


def test_the_per_query_table_keys_by_the_user_s_column_name(tmp_path: Path) -> None:
    """The per-query table's key column is headed by the query column's own name (query_id=,
    --query-id-col), in the page, its Markdown and on the command line."""
    qid = pl.col("query_id").alias("qid")
    qrels = _qrels().select(qid, pl.exclude("query_id"))
    runs = {name: run.select(qid, pl.exclude("query_id")) for name, run in _runs().items()}
    page = tmp_path / "report.html"
    rw.report(qrels, runs, ["AP"], page, resamples=100, explain=5, query_id="qid")
    data = json.loads(_data_block(page.read_text(encoding="utf-8") + "</script>"))
    assert data["keys"] == ["qid"] and data["explained"]  # the explanations keyed by the same ids
    qrels.write_parquet(tmp_path / "qrels.parquet")
    paths = []
    for name, run in runs.items():
        run.write_parquet(tmp_path / f"{name}.parquet")
        paths.append(str(tmp_path / f"{name}.parquet"))
    done = cli("compare", str(tmp_path / "qrels.parquet"), *paths, "-m", "AP", "--query-id-col", "qid",
               "--report", str(tmp_path / "cli.html"), "--quiet")
    assert done.returncode == 0, done.stderr
    cli_data = json.loads(_data_block((tmp_path / "cli.html").read_text(encoding="utf-8") + "</script>"))
    assert cli_data["keys"] == ["qid"]


def test_the_provenance_of_records_counts_their_rows(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    rw.report(_records(_qrels()), {n: _records(r) for n, r in _runs().items()}, ["AP"], page, resamples=100, explain=0)
    assert page.read_text(encoding="utf-8").count("in-memory DataFrame, 10 rows") == 4  # the qrels and 3 runs
