"""Reading runs and qrels from every accepted input into Polars.

Accepted: Polars DataFrame/LazyFrame, pyarrow Table, pandas DataFrame, DuckDB relation, the
forms of :mod:`rankwise.inputs.forms` (a dict of dicts as pytrec_eval and ranx take it, a ranx
``Run``/``Qrels``, an iterable of records such as ir_datasets' named tuples), or a path: a
file, a folder (every data file below it; hive partitions such as ``dt=2026-11-01/`` become
columns), or a glob (``exports/run/*.parquet``). Files are Parquet, CSV/TSV (with a header, or
without one given ``names``), TREC text (run: ``qid Q0 doc rank score tag``; qrels: ``qid iter
doc rel``, read a block at a time by :mod:`rankwise.inputs.trec`) or JSON (``.json``: a dict
of dicts or a list of records; ``.jsonl``: a record a line), each optionally gzipped. The
format comes from the extension, else from the content; ``fmt`` overrides both. Parquet and
plain CSV are scanned lazily. TREC files and dicts of dicts get the configured column names;
the run's rank column is ignored (trec_eval ranks by score).

``rename`` (an entry point's ``run_columns``/``qrels_columns``) maps a column's keyword
(``query_id``, ``doc_id``, ``score``, ``relevance``) to the input's own name for it: the column
is renamed as it is read, so that the engines see the configured names.
"""

from __future__ import annotations

import codecs
import contextlib
import glob as globlib
import gzip
import json
import os
import zlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeAlias, get_args

import polars as pl

from rankwise.conventions import Columns
from rankwise.errors import (
    ColumnTypeError,
    InputReadError,
    InvalidParameterError,
    MissingColumnError,
    UnsupportedInputError,
    closest,
    pass_hint,
)
from rankwise.inputs import forms
from rankwise.inputs.trec import BLOCK_SIZE, file_size
from rankwise.inputs.trec import decode_utf8 as decode_utf8  # re-exported
from rankwise.inputs.trec import read_trec as _read_trec
from rankwise.outputs import progress

Kind = Literal["run", "qrels"]
FileFormat = Literal["parquet", "csv", "tsv", "trec", "json", "jsonl"]
FORMATS: tuple[str, ...] = get_args(FileFormat)

Frame: TypeAlias = "pl.DataFrame | pl.LazyFrame"
"""An input read into Polars: a DataFrame when its rows are in memory (a frame, a table, a dict,
records), a LazyFrame when they are still to be read or computed (files, a caller's pipeline)."""
Source: TypeAlias = "Frame | str | os.PathLike[str]"
"""An input as an engine takes it, read once (:meth:`rankwise.inputs.columns.Reading.source`): a
:data:`Frame`, or a path that the DuckDB engine reads itself."""

_EXTENSIONS: dict[str, FileFormat] = {
    ".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "tsv", ".tab": "tsv",
    ".trec": "trec", ".run": "trec", ".qrels": "trec", ".txt": "trec",
    ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl",
}
_GLOB_CHARS = ("*", "?", "[")


def has_glob_chars(path: str | os.PathLike[str]) -> bool:
    """Whether a path holds characters that a glob would interpret."""
    return any(c in os.fspath(path) for c in _GLOB_CHARS)


READ_FAULTS = (OSError, EOFError, zlib.error)
"""What reading a file (gzipped or not) raises when the file is missing, unreadable or broken."""


def read_reason(exc: BaseException) -> str:
    """A short reason for a reading fault (a truncated gzip stream reads as 'truncated')."""
    if isinstance(exc, EOFError):
        return "the gzip stream is truncated (the file ends before its data does)"
    if isinstance(exc, (gzip.BadGzipFile, zlib.error)):
        return f"the gzip data is corrupt ({exc})"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


@contextlib.contextmanager
def _reading(path: Path) -> Iterator[None]:
    """A reading fault of the body as an :class:`~rankwise.errors.InputReadError` naming ``path``."""
    try:
        yield
    except READ_FAULTS as exc:
        raise InputReadError(f"cannot read {str(path)!r}: {read_reason(exc)}") from exc


def read_bytes(path: Path, block_size: int = BLOCK_SIZE) -> bytes:
    """A file's bytes, gunzipped when it is gzip; a missing, unreadable or truncated file is an
    :class:`~rankwise.errors.InputReadError` naming it. The file is read ``block_size`` bytes
    at a time, its bytes read of its size shown as it goes (``reading run.json 41/218 MB``,
    :func:`rankwise.outputs.progress.task`; the task lasts until the bytes are gunzipped)."""
    with _reading(path), progress.task(f"reading {path.name}", total=file_size(path), unit="bytes") as step:
        parts: list[bytes] = []
        done = 0
        with path.open("rb") as fh:
            while block := fh.read(block_size):
                parts.append(block)
                done += len(block)
                step.at(done)
        data = parts[0] if len(parts) == 1 else b"".join(parts)
        return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def _head(path: Path, size: int = 65536) -> bytes:
    """The first bytes of a file (of its gunzipped content if gzip), for sniffing its format."""
    with _reading(path):
        if is_gzip(path):
            with gzip.open(path, "rb") as gz:
                return gz.read(size)
        with path.open("rb") as fh:
            return fh.read(size)


def is_gzip(path: Path) -> bool:
    with _reading(path), path.open("rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def header_names(path: Path, sep: str) -> list[str]:
    """The column names of a CSV/TSV file's header line."""
    first = _head(path).split(b"\n", 1)[0].rstrip(b"\r").decode("utf-8", errors="replace")
    return [f.strip().strip('"') for f in first.split(sep)]


def detect_format(path: Path, columns: Columns | None = None) -> FileFormat:
    """A file's format: by extension (``.gz`` looked through), else by content."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    if suffixes and suffixes[-1] in _EXTENSIONS:
        return _EXTENSIONS[suffixes[-1]]
    if not path.is_file():
        return "trec"
    head = _head(path)
    if head[:4] == b"PAR1":
        return "parquet"
    first = head.removeprefix(codecs.BOM_UTF8).split(b"\n", 1)[0].rstrip(b"\r").decode("utf-8", errors="replace")
    json_format = _json_format(first)
    if json_format is not None:
        return json_format
    names = {(columns or Columns()).query_id, (columns or Columns()).doc_id}
    if "\t" in first and names <= {f.strip() for f in first.split("\t")}:
        return "tsv"
    if "," in first and names <= {f.strip() for f in first.split(",")}:
        return "csv"
    return "trec"


def _json_format(first: str) -> FileFormat | None:
    """JSON lines if the first line is one flat record, JSON if it opens an object or a list."""
    text = first.strip()
    if text.startswith("{") and text.endswith("}"):
        with contextlib.suppress(ValueError):
            record = json.loads(text)
            if isinstance(record, dict) and not any(isinstance(v, (dict, list)) for v in record.values()):
                return "jsonl"
    return "json" if text.startswith(("{", "[")) else None


def expand_path(obj: str | os.PathLike[str]) -> tuple[list[Path], bool]:
    """The files a path names, and whether it was a folder or a glob (many files)."""
    text = os.fspath(obj)
    if any(c in text for c in _GLOB_CHARS) and not os.path.exists(text):
        # a file that exists is read as that file, even when its name holds glob characters
        files = sorted(Path(p) for p in globlib.glob(text, recursive=True) if Path(p).is_file())
        if not files:
            raise InputReadError(f"no file matches {text!r}")
        return files, True
    path = Path(text)
    if not path.exists():
        raise InputReadError(f"no such file: {text!r}")
    if path.is_dir():
        files = sorted(
            p for p in path.rglob("*")
            if p.is_file() and not p.name.startswith((".", "_")) and p.name != "SUCCESS"
        )
        if not files:
            raise InputReadError(f"the folder {text!r} holds no files")
        return files, True
    return [path], False


def check_format(fmt: str | None) -> FileFormat | None:
    if fmt is None:
        return None
    if fmt not in FORMATS:
        raise InvalidParameterError(f"format must be one of {list(FORMATS)}, got {fmt!r}")
    return fmt  # type: ignore[return-value]


def read_trec(path: Path, kind: Kind, columns: Columns) -> pl.DataFrame:
    """A TREC run or qrels file, read as trec_eval splits it (:func:`rankwise.inputs.trec.read_trec`,
    a block at a time); a missing, unreadable or truncated file is an
    :class:`~rankwise.errors.InputReadError` naming it."""
    with _reading(path):
        return _read_trec(path, kind, columns)


def trec_runid(path: str | os.PathLike[str]) -> str | None:
    """The run tag (6th field of the first line) of a TREC run file, if it is one."""
    try:
        files, _many = expand_path(path)
    except UnsupportedInputError:
        return None
    if detect_format(files[0]) != "trec":
        return None
    for line in _head(files[0]).split(b"\n"):
        fields = [f for f in line.rstrip(b"\r").replace(b"\t", b" ").split(b" ") if f]
        if fields:
            return fields[5].decode("utf-8", errors="replace") if len(fields) >= 6 else None
    return None


def file_format(files: list[Path], text: str, columns: Columns, fmt: str | None) -> FileFormat:
    """The format of the files an input names: ``fmt`` if given, else each file's own (by
    extension, else content); a folder or glob of files in different formats is refused."""
    forced = check_format(fmt)
    if forced is not None:
        return forced
    found: dict[FileFormat, Path] = {}
    for f in files:
        found.setdefault(detect_format(f, columns), f)
    if len(found) > 1:
        listed = ", ".join(f"{f.name} ({kind})" for kind, f in found.items())
        raise InputReadError(
            f"{text!r} mixes file formats: {listed}; keep one format per folder, or pass the "
            "files of one format (a glob such as 'folder/*.parquet')"
        )
    return next(iter(found))


def check_parquet(files: list[Path]) -> None:
    """Read each Parquet file's footer (cheap: its metadata, not its data): an empty, truncated
    or corrupt file is an :class:`~rankwise.errors.InputReadError` naming it. Polars reads the
    footer, so that reading Parquet does not import pyarrow (about 0.3 s), of that very file (its
    name is not globbed)."""
    for f in files:
        try:
            pl.scan_parquet(f, glob=False).collect_schema()  # the name is no glob (it may hold "[")
        except (OSError, pl.exceptions.PolarsError) as exc:
            size = f.stat().st_size if f.exists() else 0
            what = "is empty (0 bytes)" if size == 0 else f"is not a readable Parquet file ({exc})"
            raise InputReadError(f"{str(f)!r} {what}") from exc


def pa_errors() -> type[Exception]:
    import pyarrow as pa

    return pa.ArrowException  # type: ignore[no-any-return]


def csv_overrides(kind: Kind, columns: Columns, rename: Mapping[str, str] | None = None) -> dict[str, pl.DataType]:
    """CSV/TSV columns read with a fixed type, not inferred from the first rows: ids are text
    (``0012`` stays ``0012``), the score or relevance is a float. Each is named as in the file
    (``rename``: the input's own names of the columns, by keyword)."""
    value = "score" if kind == "run" else "relevance"
    keys: dict[str, pl.DataType] = {"query_id": pl.String(), "doc_id": pl.String(), value: pl.Float64()}
    if kind == "qrels" and columns.subtopic:
        keys["subtopic"] = pl.String()
    own = rename or {}
    return {own.get(key, str(getattr(columns, key))): dtype for key, dtype in keys.items()}


def check_not_empty(files: list[Path]) -> None:
    """Refuse an empty file (its first byte is read: /proc and pipes report size 0)."""
    for f in files:
        if not _head(f, 1):
            raise InputReadError(f"{str(f)!r} is empty (0 bytes)")


def scan_path(
    obj: str | os.PathLike[str], kind: Kind, columns: Columns, fmt: str | None = None,
    rename: Mapping[str, str] | None = None, names: Sequence[str] | None = None,
) -> pl.LazyFrame:
    """Lazily read a file, folder or glob (Parquet with hive partitions, CSV/TSV, TREC, JSON);
    ``names``: the columns of CSV/TSV files without a header row."""
    check_format(fmt)
    files, many = expand_path(obj)
    chosen = file_format(files, os.fspath(obj), columns, fmt)
    if names is not None and fmt is None and chosen == "trec":
        # names are given to CSV/TSV: a file the extension does not name is one of those
        first = _first_line(files[0])
        chosen = "tsv" if "\t" in first and "," not in first else "csv"
    if names is not None and chosen not in ("csv", "tsv"):
        raise InvalidParameterError(
            f"{kind}_names names the columns of CSV/TSV files without a header row; "
            f"{os.fspath(obj)!r} is {chosen}"
        )
    if chosen == "parquet":
        check_parquet(files)
        # the files are expanded already: no second glob (a name may hold '[' or '*')
        if many:
            return pl.scan_parquet(files, hive_partitioning=True, hive_schema=None, glob=False)
        return pl.scan_parquet(files[0], glob=False)
    check_not_empty(files)
    if chosen in ("csv", "tsv"):
        sep = "," if chosen == "csv" else "\t"
        types = csv_overrides(kind, columns, rename)
        for f in files:
            check_header(f, sep, kind, columns, rename, names)
        has_header, new_columns = names is None, None if names is None else list(names)
        frames = [
            pl.read_csv(
                read_bytes(f), separator=sep, schema_overrides=types, has_header=has_header, new_columns=new_columns
            ).lazy()
            if is_gzip(f) else pl.scan_csv(
                f, separator=sep, schema_overrides=types, glob=False, has_header=has_header, new_columns=new_columns
            )
            for f in files
        ]
        return frames[0] if len(frames) == 1 else pl.concat(frames, how="diagonal_relaxed")
    if chosen in ("json", "jsonl"):
        parsed: list[pl.DataFrame] = []
        for f in files:
            data = read_bytes(f)  # its bytes read shown
            # then parsed whole (json.loads): the phase is named while it lasts, with no count
            with progress.task(f"parsing {f.name}"):
                parsed.append(forms.read_json(f, data, kind, columns, chosen == "jsonl"))
        return pl.concat(parsed, how="diagonal_relaxed").lazy()
    return pl.concat([read_trec(f, kind, columns) for f in files]).lazy()


def _first_line(path: Path) -> str:
    return _head(path).split(b"\n", 1)[0].rstrip(b"\r").decode("utf-8", errors="replace")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def header_suggestion(kind: Kind, columns: Columns, fields: int) -> list[str]:
    """Names for a header-less CSV's fields: its keywords' columns, in TREC's order when it has
    TREC's number of fields, else the ids and the value first."""
    value = columns.score if kind == "run" else columns.relevance
    if kind == "run" and fields == 6:
        return [columns.query_id, "q0", columns.doc_id, "rank", value, "tag"]
    if kind == "qrels" and fields == 4:
        return [columns.query_id, "iteration", columns.doc_id, value]
    return [columns.query_id, columns.doc_id, value, *[f"column_{i}" for i in range(4, fields + 1)]][:max(fields, 3)]


def check_header(
    path: Path, sep: str, kind: Kind, columns: Columns, rename: Mapping[str, str] | None,
    names: Sequence[str] | None,
) -> None:
    """A CSV/TSV file's first line: given ``names``, as many fields as names; else, lacking the
    id columns and looking like data (a field is a number), a file without a header row."""
    first = _first_line(path)
    fields = [f.strip().strip('"') for f in first.split(sep)]
    if names is not None:
        if len(names) != len(fields):
            raise InvalidParameterError(
                f"{kind}_names gives {len(names)} column names ({list(names)}) but the first line of "
                f"{str(path)!r} has {len(fields)} fields ({first[:200]!r})"
            )
        if not any(_is_number(f) for f in fields):
            raise InvalidParameterError(
                f"{kind}_names names the columns of files without a header row, but the first line "
                f"of {str(path)!r} looks like a header ({first[:200]!r}: no field is a number)"
            )
        return
    own = rename or {}
    wanted = [own.get(key, str(getattr(columns, key))) for key in ("query_id", "doc_id")]
    missing = [w for w in wanted if w not in fields]
    if missing and any(_is_number(f) for f in fields):
        suggestion = header_suggestion(kind, columns, len(fields))
        raise MissingColumnError(
            f"the {kind} {str(path)!r} has no column {missing[0]!r}: it looks like a CSV without a "
            f"header row (its first line is {first[:200]!r}); name its columns "
            f"({pass_hint(f'{kind}_names', suggestion)})"
        )


def duckdb_arrow(relation: Any) -> Any:
    """A DuckDB relation's rows as a pyarrow Table (``to_arrow_table`` on DuckDB >= 1.4)."""
    method = getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table
    return method()


def from_pandas(frame: Any, kind: Kind) -> pl.DataFrame:
    """A pandas DataFrame as a Polars DataFrame; an object column holding values of several types
    (e.g. strings and integers) is a :class:`~rankwise.errors.ColumnTypeError` naming it."""
    import pandas as pd

    try:
        return pl.from_pandas(frame)
    except (pa_errors(), TypeError, ValueError) as exc:
        for name in frame.columns:
            kinds = pd.api.types.infer_dtype(frame[name], skipna=True)
            if kinds.startswith("mixed"):
                types = sorted({type(v).__name__ for v in frame[name].dropna().head(10_000)})
                raise ColumnTypeError(
                    f"the {kind}'s pandas column {str(name)!r} holds values of several types "
                    f"({', '.join(types)}); convert it to one type first, e.g. "
                    f"df[{str(name)!r}].astype(str)"
                ) from exc
        raise ColumnTypeError(f"cannot convert the {kind}'s pandas DataFrame: {exc}") from exc


def to_lazyframe(
    obj: Any, kind: Kind, columns: Columns, fmt: str | None = None, *,
    rename: Mapping[str, str] | None = None, names: Sequence[str] | None = None,
) -> pl.LazyFrame:
    """Turn any accepted input into a Polars LazyFrame (paths are scanned lazily), its columns
    renamed by ``rename`` (keyword to the input's own name); ``names``: the columns of CSV/TSV
    files without a header row (:func:`to_frame`, lazy).

    >>> import rankwise as rw
    >>> run = {"q1": {"d1": 2.0}}
    >>> to_lazyframe(run, "run", rw.Columns()).collect().rows()
    [('q1', 'd1', 2.0)]
    >>> frame = pl.DataFrame({"qid": ["q1"], "docno": ["d1"], "score": [2.0]})
    >>> to_lazyframe(frame, "run", rw.Columns(), rename={"query_id": "qid", "doc_id": "docno"}).collect_schema().names()
    ['query_id', 'doc_id', 'score']
    """
    return to_frame(obj, kind, columns, fmt, rename=rename, names=names).lazy()


def to_frame(
    obj: Any, kind: Kind, columns: Columns, fmt: str | None = None, *,
    rename: Mapping[str, str] | None = None, names: Sequence[str] | None = None,
) -> Frame:
    """Turn any accepted input into a Polars :data:`Frame`, once: a DataFrame when its rows are
    in memory, a LazyFrame when they are still to be read (paths are scanned lazily) or
    computed; its columns renamed by ``rename`` (keyword to the input's own name); ``names``:
    the columns of CSV/TSV files without a header row."""
    if names is not None and not isinstance(obj, (str, os.PathLike)):
        raise InvalidParameterError(
            f"{kind}_names names the columns of CSV/TSV files without a header row; "
            f"the {kind} is a {type(obj).__module__}.{type(obj).__name__}"
        )
    frame = _read(obj, kind, columns, fmt, rename, names)
    return apply_rename(frame, kind, columns, rename) if rename else frame


def _read(
    obj: Any, kind: Kind, columns: Columns, fmt: str | None, rename: Mapping[str, str] | None,
    names: Sequence[str] | None,
) -> Frame:
    """The input as a :data:`Frame`, its columns as the input names them (TREC files and dicts
    of dicts: the configured names)."""
    if isinstance(obj, (pl.DataFrame, pl.LazyFrame)):
        return obj
    if isinstance(obj, (str, os.PathLike)):
        return scan_path(obj, kind, columns, fmt, rename, names)
    module = type(obj).__module__.split(".")[0]
    if module == "pyarrow":
        import pyarrow as pa

        if isinstance(obj, pa.Table):
            return pl.from_arrow(obj)  # type: ignore[return-value]
    if module == "pandas":
        return from_pandas(obj, kind)
    if module in ("duckdb", "_duckdb"):
        return pl.from_arrow(duckdb_arrow(obj))  # type: ignore[return-value]
    if isinstance(obj, Mapping):
        return forms.from_mapping(obj, kind, columns)
    if forms.is_ranx(obj):
        return forms.from_ranx(obj, kind, columns)
    if forms.is_records(obj):
        return forms.from_records(obj, kind)
    raise UnsupportedInputError(
        f"cannot read a {kind} from {type(obj).__module__}.{type(obj).__name__}: pass a Polars "
        "DataFrame/LazyFrame, a pyarrow Table, a pandas DataFrame, a DuckDB relation, a dict of "
        "dicts ({query: {doc: value}}), a ranx Run/Qrels, an iterable of records (named tuples "
        "as ir_datasets yields them, dataclasses or dicts), or a path (file, folder or glob) to "
        "Parquet, CSV/TSV, TREC or JSON files"
    )


def apply_rename(frame: Frame, kind: str, columns: Columns, rename: Mapping[str, str]) -> Frame:
    """``frame`` with each column that ``rename`` names (keyword to the input's own name)
    renamed to the configured name. A column that is absent while the configured name is
    present is not renamed: that one is read (a TREC file or a dict of dicts, whose columns get
    the configured names; one of ``compare``'s runs named like the qrels)."""
    found = frame.collect_schema().names()
    mapping: dict[str, str] = {}
    for key, source in rename.items():
        target = str(getattr(columns, key))
        if source == target:
            continue
        if source not in found:
            if target in found:
                continue
            best = closest(source, found, n=1)
            hint = f" Did you mean {best[0]!r}? ({pass_hint(f'{kind}_columns', {key: best[0]})})" if best else ""
            raise MissingColumnError(
                f"the {kind} has no column {source!r} (named as the {kind}'s {key} column).{hint} "
                f"Columns found: {found}"
            )
        mapping[source] = target
    for source, target in mapping.items():
        if target in found and target not in mapping:
            raise InvalidParameterError(
                f"the {kind} has both columns {source!r} and {target!r}: renaming {source!r} to "
                f"{target!r} ({kind}_columns) would make two; drop one of them first"
            )
    return frame.rename(mapping) if mapping else frame


_COSTLY_PLAN = ("JOIN", "AGGREGATE", "SORT", "UNION", "UNIQUE", "EXPLODE", "PYTHON")
"""Nodes of a plan whose rows a count would compute again (a caller's pipeline)."""


def cheap_to_count(frame: pl.LazyFrame) -> bool:
    """Whether counting ``frame``'s rows costs next to nothing: a scan of files or an in-memory
    frame under projections and filters (Polars counts from the metadata or the height), not a
    pipeline with joins, aggregations, sorts or Python functions that a count (or a sample of
    its first rows) would run once more."""
    plan = frame.explain(optimized=False).upper()
    return not any(word in plan for word in _COSTLY_PLAN)
