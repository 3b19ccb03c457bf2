"""The inputs users start from give the numbers of the same rows as a DataFrame: dicts of dicts
(pytrec_eval, ranx), ranx Run/Qrels, records as ir_datasets yields them, JSON and JSON lines
files (gzipped too), through ``rw.evaluate`` and ``rankwise eval``; each input's own column
names (``run_columns``, ``--run-query-id-col``, ...); CSV files without a header row; hints
written in the syntax of the interface used."""

from __future__ import annotations

import gzip
import json
from collections import namedtuple
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankwise as rw
from rankwise.cli.commands import main
from tests.inputs.test_inputs import METRICS, QRELS, RUN

ENGINES = ["polars", "duckdb"]

# ir_datasets' named tuples (emulated: the same names and fields)
GenericQrel = namedtuple("GenericQrel", ["query_id", "doc_id", "relevance", "iteration"])
GenericScoredDoc = namedtuple("GenericScoredDoc", ["query_id", "doc_id", "score"])


@dataclass
class ScoredDoc:
    query_id: str
    doc_id: str
    score: float


def as_dict(frame: pl.DataFrame) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for q, d, v in frame.iter_rows():
        out.setdefault(q, {})[d] = v
    return out


@pytest.fixture(scope="module")
def expected() -> pl.DataFrame:
    return rw.evaluate(QRELS, RUN, METRICS)


# -- Python forms ------------------------------------------------------------------------------


def _qrels_iter() -> Iterator[GenericQrel]:
    return (GenericQrel(q, d, r, "0") for q, d, r in QRELS.iter_rows())


def _scoreddocs_iter() -> Iterator[GenericScoredDoc]:
    return (GenericScoredDoc(q, d, s) for q, d, s in RUN.iter_rows())


FORMS = {
    "dict of dicts": (lambda: as_dict(QRELS), lambda: as_dict(RUN)),
    "ir_datasets iterators": (_qrels_iter, _scoreddocs_iter),
    "lists of named tuples": (lambda: list(_qrels_iter()), lambda: list(_scoreddocs_iter())),
    "dataclasses and dicts": (lambda: QRELS.to_dicts(), lambda: [ScoredDoc(*r) for r in RUN.iter_rows()]),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("form", list(FORMS))
def test_python_forms_equal_the_frames(expected: pl.DataFrame, engine: str, form: str) -> None:
    qrels, run = FORMS[form]
    assert_frame_equal(rw.evaluate(qrels(), run(), METRICS, engine=engine), expected)


@pytest.mark.parametrize("engine", ENGINES)
def test_ranx_objects(expected: pl.DataFrame, engine: str) -> None:
    ranx = pytest.importorskip("ranx")
    qrels, run = ranx.Qrels(as_dict(QRELS)), ranx.Run(as_dict(RUN))
    assert_frame_equal(rw.evaluate(qrels, run, METRICS, engine=engine), expected)


def test_records_are_built_a_chunk_at_a_time(expected: pl.DataFrame, monkeypatch: pytest.MonkeyPatch) -> None:
    # chunks of 2 records: the frames are concatenated, an integer then float score relaxed
    import rankwise.inputs.forms

    monkeypatch.setattr(rankwise.inputs.forms, "RECORDS_PER_FRAME", 2)
    run = [GenericScoredDoc(q, d, int(s) if i < 2 else s) for i, (q, d, s) in enumerate(RUN.iter_rows())]
    assert_frame_equal(rw.evaluate(_qrels_iter(), iter(run), METRICS), expected)


def test_compare_reads_an_iterator_of_qrels_once() -> None:
    runs = {"a": RUN, "b": RUN.with_columns(-pl.col("score"))}
    from_iter = rw.compare(_qrels_iter(), runs, ["RR"], resamples=100)
    assert_frame_equal(from_iter, rw.compare(QRELS, runs, ["RR"], resamples=100))


@pytest.mark.parametrize("empty", [{}, {"q1": {}}, [], iter(())])
def test_empty_forms_are_empty_inputs(empty: object) -> None:
    with pytest.raises(rw.EmptyInputError, match="the run is empty"):
        rw.evaluate(QRELS, empty, METRICS)


def test_a_dict_of_lists_is_refused_clearly() -> None:
    with pytest.raises(rw.UnsupportedInputError, match="values are not dicts"):
        rw.evaluate(QRELS, RUN.to_dict(as_series=False), METRICS)


def test_plain_tuples_are_refused_clearly() -> None:
    with pytest.raises(rw.UnsupportedInputError, match="named tuples"):
        rw.evaluate(QRELS, list(RUN.iter_rows()), METRICS)


def test_a_million_rows_from_a_dict_are_built_by_columns() -> None:
    import time

    run = {f"q{i}": {f"d{j}": float(j) for j in range(1000)} for i in range(1000)}
    started = time.perf_counter()
    frame = rw.io.to_lazyframe(run, "run", rw.Columns()).collect()
    assert frame.height == 1_000_000
    assert time.perf_counter() - started < 10  # about 0.3 s on a laptop


# -- JSON files --------------------------------------------------------------------------------


def _json_files(tmp_path: Path, layout: str, gz: bool) -> tuple[Path, Path]:
    suffix = ".jsonl" if layout == "lines" else ".json"
    paths = []
    for name, frame in (("qrels", QRELS), ("run", RUN)):
        if layout == "dict":
            data = json.dumps(as_dict(frame)).encode()
        elif layout == "records":
            data = json.dumps(frame.to_dicts()).encode()
        else:
            data = "".join(json.dumps(r) + "\n" for r in frame.to_dicts()).encode()
        path = tmp_path / f"{name}{suffix}{'.gz' if gz else ''}"
        path.write_bytes(gzip.compress(data) if gz else data)
        paths.append(path)
    return paths[0], paths[1]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("layout", ["dict", "records", "lines"])
def test_json_files(expected: pl.DataFrame, tmp_path: Path, engine: str, layout: str, gz: bool) -> None:
    qrels, run = _json_files(tmp_path, layout, gz)
    assert_frame_equal(rw.evaluate(qrels, run, METRICS, engine=engine), expected)


@pytest.mark.parametrize("layout", ["dict", "lines"])
def test_json_without_an_extension_is_recognised(expected: pl.DataFrame, tmp_path: Path, layout: str) -> None:
    qrels, run = _json_files(tmp_path, layout, False)
    qrels, run = qrels.rename(tmp_path / "qrels"), run.rename(tmp_path / "run")
    assert_frame_equal(rw.evaluate(qrels, run, METRICS), expected)


def test_rankwise_eval_reads_json_as_it_reads_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    RUN.write_csv(tmp_path / "run.csv")
    QRELS.write_csv(tmp_path / "qrels.csv")
    metrics = [arg for m in METRICS for arg in ("-m", m)]
    assert main(["eval", str(tmp_path / "qrels.csv"), str(tmp_path / "run.csv"), "-q", *metrics]) == 0
    reference = capsys.readouterr().out
    for layout in ("dict", "records", "lines"):
        qrels, run = _json_files(tmp_path, layout, gz=layout == "lines")
        assert main(["eval", str(qrels), str(run), "-q", *metrics]) == 0
        assert capsys.readouterr().out == reference


def test_empty_and_broken_json(tmp_path: Path) -> None:
    (tmp_path / "run.json").write_text("{}")
    with pytest.raises(rw.EmptyInputError):
        rw.evaluate(QRELS, tmp_path / "run.json", METRICS)
    (tmp_path / "run.json").write_text('{"q1": ')
    with pytest.raises(rw.InputReadError, match="not valid JSON"):
        rw.evaluate(QRELS, tmp_path / "run.json", METRICS)



def _cli_error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one error line of ``rankwise`` run in-process with ``args`` (exit code 2)."""
    assert main(args) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rankwise: error: "), lines
    return lines[0]


# a key repeated in a dict of dicts: json keeps the last value, which dropped a document
REPEATED_KEYS = {
    "query": ('{"q1": {"d1": 1}, "q1": {"d2": 0}}', "lists query 'q1' more than once"),
    "document": ('{"q1": {"d1": 1, "d2": 0, "d1": 0}}', "lists document 'd1' more than once for query 'q1'"),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize("repeated", list(REPEATED_KEYS))
def test_json_keys_repeated_are_duplicates(tmp_path: Path, engine: str, kind: str, repeated: str) -> None:
    text, message = REPEATED_KEYS[repeated]
    path = tmp_path / f"{kind}.json"
    path.write_text(text)
    qrels, run = (path, RUN) if kind == "qrels" else (QRELS, path)
    with pytest.raises(rw.errors.DuplicateDocumentError, match=f"the {kind} {message} \\(in '.*{kind}.json'\\)"):
        rw.evaluate(qrels, run, METRICS, engine=engine)


def test_json_keys_repeated_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    QRELS.write_csv(tmp_path / "qrels.csv")
    for repeated, (text, message) in REPEATED_KEYS.items():
        (tmp_path / f"{repeated}.json").write_text(text)
        line = _cli_error(["eval", str(tmp_path / "qrels.csv"), str(tmp_path / f"{repeated}.json"), "-m", "P@5"], capsys)
        assert f"the run {message}" in line and f"{repeated}.json" in line, line
    # a field named twice in one record is refused too
    (tmp_path / "records.json").write_text('[{"query_id": "q1", "doc_id": "d1", "score": 1, "doc_id": "d2"}]')
    with pytest.raises(rw.InputReadError, match="record 1 holds the key 'doc_id' twice"):
        rw.evaluate(QRELS, tmp_path / "records.json", METRICS)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("layout", ["dict", "records", "lines"])
def test_json_with_a_byte_order_mark(expected: pl.DataFrame, tmp_path: Path, engine: str, layout: str) -> None:
    """A UTF-8 byte-order mark (as Windows tools write) is read past, with an extension or not."""
    qrels, run = _json_files(tmp_path, layout, False)
    for path in (qrels, run):
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert_frame_equal(rw.evaluate(qrels, run, METRICS, engine=engine), expected)
    bare = run.rename(tmp_path / "run")
    assert_frame_equal(rw.evaluate(qrels, bare, METRICS, engine=engine), expected)


def test_json_with_a_byte_order_mark_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    metrics = [arg for m in METRICS for arg in ("-m", m)]
    qrels, run = _json_files(tmp_path, "dict", False)
    assert main(["eval", str(qrels), str(run), "-q", *metrics]) == 0
    reference = capsys.readouterr().out
    run.write_bytes(b"\xef\xbb\xbf" + run.read_bytes())
    assert main(["eval", str(qrels), str(run), "-q", *metrics]) == 0
    assert capsys.readouterr().out == reference


DEEP = {"list": "[" * 100_000 + "]" * 100_000, "dict": '{"q1": ' + '{"a": ' * 100_000 + "1" + "}" * 100_001}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("shape", list(DEEP))
def test_deeply_nested_json_is_an_input_error(tmp_path: Path, engine: str, shape: str) -> None:
    (tmp_path / "run.json").write_text(DEEP[shape])
    with pytest.raises(rw.InputReadError, match=r"'.*run\.json' is nested too deeply to read"):
        rw.evaluate(QRELS, tmp_path / "run.json", METRICS, engine=engine)


def test_deeply_nested_json_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    QRELS.write_csv(tmp_path / "qrels.csv")
    (tmp_path / "run.json").write_text(DEEP["list"])
    line = _cli_error(["eval", str(tmp_path / "qrels.csv"), str(tmp_path / "run.json"), "-m", "P@5"], capsys)
    assert "run.json' is nested too deeply to read" in line, line


@pytest.mark.parametrize("engine", ENGINES)
def test_records_of_several_kinds_are_input_errors(tmp_path: Path, engine: str) -> None:
    records = [GenericScoredDoc("q1", "d1", 1.0), {"query_id": "q1", "doc_id": "d2", "score": 0.5}]
    with pytest.raises(rw.InputReadError, match="records of several kinds: the first is a named tuple, record 2 of type 'dict'"):
        rw.evaluate(QRELS, records, METRICS, engine=engine)
    with pytest.raises(rw.InputReadError, match="records of several kinds: the first is a dict, record 2 of type 'GenericScoredDoc'"):
        rw.evaluate(QRELS, records[::-1], METRICS, engine=engine)
    (tmp_path / "run.json").write_text(json.dumps([{"query_id": "q1", "doc_id": "d1", "score": 1.0}, ["q1", "d2", 0.5]]))
    with pytest.raises(rw.InputReadError, match=r"'.*run\.json': cannot read a run from records of several kinds: the first is a dict, record 2 of type 'list'"):
        rw.evaluate(QRELS, tmp_path / "run.json", METRICS, engine=engine)


def test_records_of_several_kinds_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    QRELS.write_csv(tmp_path / "qrels.csv")
    (tmp_path / "run.json").write_text(json.dumps([{"query_id": "q1", "doc_id": "d1", "score": 1.0}, 7]))
    line = _cli_error(["eval", str(tmp_path / "qrels.csv"), str(tmp_path / "run.json"), "-m", "P@5"], capsys)
    assert "records of several kinds: the first is a dict, record 2 of type 'int'" in line, line

# -- each input's own column names -------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_run_columns_and_qrels_columns(expected: pl.DataFrame, engine: str) -> None:
    run = RUN.rename({"query_id": "qid", "doc_id": "docno", "score": "sim"})
    qrels = QRELS.rename({"doc_id": "doc"})
    got = rw.evaluate(
        qrels, run, METRICS, engine=engine,
        run_columns={"query_id": "qid", "doc_id": "docno", "score": "sim"}, qrels_columns={"doc_id": "doc"},
    )
    assert_frame_equal(got, expected)


@pytest.mark.parametrize("engine", ENGINES)
def test_run_columns_in_files(expected: pl.DataFrame, tmp_path: Path, engine: str) -> None:
    RUN.rename({"query_id": "qid"}).with_columns(pl.col("doc_id").str.replace("a", "007")).write_csv(tmp_path / "run.csv")
    QRELS.write_parquet(tmp_path / "qrels.parquet")
    got = rw.evaluate(tmp_path / "qrels.parquet", tmp_path / "run.csv", METRICS, engine=engine, run_columns={"query_id": "qid"})
    assert_frame_equal(got, expected)  # '007' stays text: the renamed column is still read as text


def test_run_columns_with_the_shared_keywords() -> None:
    # query_id= names both inputs' column; run_columns says where the run differs
    run = RUN.rename({"query_id": "qid"})
    qrels = QRELS.rename({"query_id": "topic"})
    got = rw.evaluate(qrels, run, ["RR"], query_id="topic", run_columns={"query_id": "qid"})
    assert got.columns == ["topic", "RR"]


def test_run_columns_are_ignored_by_trec_files_and_dicts(expected: pl.DataFrame, tmp_path: Path) -> None:
    (tmp_path / "run.trec").write_text("".join(f"{q} Q0 {d} 1 {s} t\n" for q, d, s in RUN.iter_rows()))
    got = rw.evaluate(as_dict(QRELS), tmp_path / "run.trec", METRICS, run_columns={"query_id": "qid"},
                      qrels_columns={"query_id": "topic"})
    assert_frame_equal(got, expected)


def test_run_columns_in_explain_and_compare() -> None:
    run = RUN.rename({"query_id": "qid"})
    table = rw.explain(QRELS, run, "RR", "q1", run_columns={"query_id": "qid"})
    assert_frame_equal(table, rw.explain(QRELS, RUN, "RR", "q1"))
    runs = {"a": run, "b": run.with_columns(-pl.col("score"))}
    got = rw.compare(QRELS, runs, ["RR"], resamples=100, run_columns={"query_id": "qid"})
    assert got["mean"].to_list() == rw.compare(
        QRELS, {"a": RUN, "b": RUN.with_columns(-pl.col("score"))}, ["RR"], resamples=100
    )["mean"].to_list()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"run_columns": {"qid": "query_id"}}, r"run_columns has no key 'qid' \(reversed\? pass run_columns=\{'query_id': 'qid'\}\)"),
        ({"run_columns": {"relevance": "rel"}}, r"run_columns has no key 'relevance'.*\['query_id', 'doc_id', 'score'\]"),
        ({"qrels_columns": {"query_id": 3}}, r"qrels_columns\['query_id'\] must be a column name"),
        ({"run_columns": ["query_id"]}, "run_columns must be a dict"),
        ({"run_names": "query_id,doc_id,score"}, "run_names must be a list"),
        ({"run_names": ["a", "a", "b"]}, "names a column twice"),
    ],
)
def test_bad_input_options(options: dict[str, object], message: str) -> None:
    with pytest.raises(rw.InvalidParameterError, match=message):
        rw.evaluate(QRELS, RUN, METRICS, **options)  # type: ignore[arg-type]


def test_a_renamed_column_colliding_with_another() -> None:
    run = RUN.with_columns(pl.col("query_id").alias("qid"))
    with pytest.raises(rw.InvalidParameterError, match="has both columns 'qid' and 'query_id'"):
        rw.evaluate(QRELS, run, METRICS, run_columns={"query_id": "qid"})


# -- hints in the syntax of the interface ------------------------------------------------------


def test_missing_column_hints_in_python() -> None:
    run = RUN.rename({"query_id": "qid"})
    with pytest.raises(rw.MissingColumnError, match=r"\(pass run_columns=\{'query_id': 'qid'\}\)"):
        rw.evaluate(QRELS, run, METRICS)
    with pytest.raises(rw.MissingColumnError, match=r"no column 'qdi'.*\(pass run_columns=\{'query_id': 'qid'\}\)"):
        rw.evaluate(QRELS, run, METRICS, run_columns={"query_id": "qdi"})
    with pytest.raises(rw.MissingColumnError, match=r"\(pass qrels_columns=\{'doc_id': 'docno'\}\)"):
        rw.evaluate(QRELS.rename({"doc_id": "docno"}), RUN, METRICS, engine="duckdb")
    with pytest.raises(rw.MissingColumnError, match=r"\(pass score='scores'\)"):
        rw.evaluate(QRELS, RUN.rename({"score": "scores"}), METRICS)


@pytest.mark.parametrize("command", ["eval", "explain", "compare"])
def test_missing_column_hints_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    RUN.rename({"query_id": "qid"}).write_csv(tmp_path / "run.csv")
    QRELS.rename({"doc_id": "docno"}).write_csv(tmp_path / "qrels.csv")
    paths = [str(tmp_path / "qrels.csv"), str(tmp_path / "run.csv")]
    extra = {"eval": ["-m", "RR"], "explain": ["-m", "RR", "-q", "q1"], "compare": [paths[1], "-m", "RR"]}[command]
    assert main([command, *paths, *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rankwise: error: ") and err.count("\n") == 1
    assert "(pass --run-query-id-col qid)" in err or "(pass --qrels-doc-id-col docno)" in err
    assert "run_columns" not in err and "qrels_columns" not in err
    fixed = ["--run-query-id-col", "qid", "--qrels-doc-id-col", "docno"]
    if command == "compare":
        extra = [*extra, "--resamples", "100"]
    assert main([command, *paths, *extra, *fixed]) == 0
    out = capsys.readouterr().out
    assert out.strip()


# -- CSV without a header row ------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_csv_without_a_header_row(expected: pl.DataFrame, tmp_path: Path, engine: str) -> None:
    RUN.write_csv(tmp_path / "run.csv", include_header=False)
    QRELS.write_csv(tmp_path / "qrels.tsv", include_header=False, separator="\t")
    with pytest.raises(rw.MissingColumnError, match=(
        r"looks like a CSV without a header row \(its first line is 'q1,a,3.0'\); "
        r"name its columns \(pass run_names=\['query_id', 'doc_id', 'score'\]\)"
    )):
        rw.evaluate(tmp_path / "qrels.tsv", tmp_path / "run.csv", METRICS, engine=engine, qrels_names=["query_id", "doc_id", "relevance"])
    got = rw.evaluate(
        tmp_path / "qrels.tsv", tmp_path / "run.csv", METRICS, engine=engine,
        run_names=["query_id", "doc_id", "score"], qrels_names=["query_id", "doc_id", "relevance"],
    )
    assert_frame_equal(got, expected)


def test_names_and_run_columns_together(expected: pl.DataFrame, tmp_path: Path) -> None:
    path = tmp_path / "run.csv.gz"
    path.write_bytes(gzip.compress(RUN.write_csv(include_header=False).encode()))
    got = rw.evaluate(QRELS, path, METRICS, run_names=["qid", "docno", "sim"],
                      run_columns={"query_id": "qid", "doc_id": "docno", "score": "sim"})
    assert_frame_equal(got, expected)


def test_names_without_an_extension_read_csv(expected: pl.DataFrame, tmp_path: Path) -> None:
    path = tmp_path / "run"
    RUN.write_csv(path, include_header=False)
    with pytest.raises(rw.InputReadError, match="looks like CSV"):
        rw.evaluate(QRELS, path, METRICS)
    assert_frame_equal(rw.evaluate(QRELS, path, METRICS, run_names=["query_id", "doc_id", "score"]), expected)


def test_names_errors(tmp_path: Path) -> None:
    RUN.write_csv(tmp_path / "run.csv", include_header=False)
    with pytest.raises(rw.InvalidParameterError, match=r"gives 2 column names .* has 3 fields"):
        rw.evaluate(QRELS, tmp_path / "run.csv", METRICS, run_names=["query_id", "doc_id"])
    RUN.write_csv(tmp_path / "header.csv")
    with pytest.raises(rw.InvalidParameterError, match="looks like a header"):
        rw.evaluate(QRELS, tmp_path / "header.csv", METRICS, run_names=["query_id", "doc_id", "score"])
    with pytest.raises(rw.InvalidParameterError, match="run_names names the columns of CSV/TSV files"):
        rw.evaluate(QRELS, RUN, METRICS, run_names=["query_id", "doc_id", "score"])


def test_csv_without_a_header_row_on_the_command_line(
    expected: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    RUN.write_csv(tmp_path / "run.csv", include_header=False)
    QRELS.write_csv(tmp_path / "qrels.csv")
    paths = [str(tmp_path / "qrels.csv"), str(tmp_path / "run.csv")]
    assert main(["eval", *paths, "-m", "RR"]) == 2
    err = capsys.readouterr().err
    assert "looks like a CSV without a header row" in err
    assert "(pass --run-names query_id,doc_id,score)" in err
    assert main(["eval", *paths, "-m", "RR", "--run-names", "query_id,doc_id,score", "--format", "csv", "-q"]) == 0
    got = pl.read_csv(capsys.readouterr().out.encode())
    assert got["RR"].to_list() == expected["RR"].to_list()


def test_the_memory_hint_in_each_syntax() -> None:
    from rankwise.errors import hint_style
    from rankwise.inputs.faults import translate

    python = str(translate(MemoryError(), {}))
    assert "duckdb_config={'memory_limit': ...}" in python and "query_chunks" in python and "--" not in python
    with hint_style("flags"):
        flags = str(translate(MemoryError(), {}))
    assert "--memory-limit" in flags and "--query-chunks" in flags and "duckdb_config" not in flags
