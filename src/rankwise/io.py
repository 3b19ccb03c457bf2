"""Reading runs and qrels from every accepted input into Polars.

Accepted: Polars DataFrame/LazyFrame, pyarrow Table, pandas DataFrame, DuckDB relation, or a
path: a file, a folder (every data file below it; hive partitions such as ``dt=2026-11-01/``
become columns), or a glob (``exports/run/*.parquet``). Files are Parquet, CSV/TSV (with a
header) or TREC text (run: ``qid Q0 doc rank score tag``; qrels: ``qid iter doc rel``), each
optionally gzipped. The format comes from the extension, else from the content; ``fmt``
overrides both. Parquet and plain CSV are scanned lazily. TREC files get the configured
column names; the run's rank column is ignored (trec_eval ranks by score).
"""

from __future__ import annotations

import glob as globlib
import gzip
import os
from pathlib import Path
from typing import Any, Literal, get_args

import polars as pl

from rankwise.conventions import Columns
from rankwise.errors import InvalidParameterError, UnsupportedInputError

Kind = Literal["run", "qrels"]
FileFormat = Literal["parquet", "csv", "tsv", "trec"]
FORMATS: tuple[str, ...] = get_args(FileFormat)

_EXTENSIONS: dict[str, FileFormat] = {
    ".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "tsv", ".tab": "tsv",
    ".trec": "trec", ".run": "trec", ".qrels": "trec", ".txt": "trec",
}
_GLOB_CHARS = ("*", "?", "[")


def _open_text(path: Path) -> Any:
    with path.open("rb") as fh:
        magic = fh.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return path.open(encoding="utf-8", errors="replace")


def is_gzip(path: Path) -> bool:
    with path.open("rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def detect_format(path: Path, columns: Columns | None = None) -> FileFormat:
    """A file's format: by extension (``.gz`` looked through), else by content."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    if suffixes and suffixes[-1] in _EXTENSIONS:
        return _EXTENSIONS[suffixes[-1]]
    if not path.is_file():
        return "trec"
    with path.open("rb") as fh:
        if fh.read(4) == b"PAR1":
            return "parquet"
    with _open_text(path) as fh:
        first = fh.readline()
    names = {(columns or Columns()).query_id, (columns or Columns()).doc_id}
    if "\t" in first and names <= {f.strip() for f in first.split("\t")}:
        return "tsv"
    if "," in first and names <= {f.strip() for f in first.split(",")}:
        return "csv"
    return "trec"


def expand_path(obj: str | os.PathLike[str]) -> tuple[list[Path], bool]:
    """The files a path names, and whether it was a folder or a glob (many files)."""
    text = os.fspath(obj)
    if any(c in text for c in _GLOB_CHARS):
        files = sorted(Path(p) for p in globlib.glob(text, recursive=True) if Path(p).is_file())
        if not files:
            raise UnsupportedInputError(f"no file matches {text!r}")
        return files, True
    path = Path(text)
    if not path.exists():
        raise UnsupportedInputError(f"no such file: {text!r}")
    if path.is_dir():
        files = sorted(
            p for p in path.rglob("*")
            if p.is_file() and not p.name.startswith((".", "_")) and p.name != "SUCCESS"
        )
        if not files:
            raise UnsupportedInputError(f"the folder {text!r} holds no files")
        return files, True
    return [path], False


def check_format(fmt: str | None) -> FileFormat | None:
    if fmt is None:
        return None
    if fmt not in FORMATS:
        raise InvalidParameterError(f"format must be one of {list(FORMATS)}, got {fmt!r}")
    return fmt  # type: ignore[return-value]


def read_trec(path: Path, kind: Kind, columns: Columns) -> pl.DataFrame:
    """Read a TREC run (``qid Q0 doc rank score tag``) or qrels (``qid iter doc rel``) file,
    gzipped or not.

    Fields are separated by any whitespace; anything after the sixth (run) or fourth (qrels)
    field is ignored, as trec_eval does. Ids are read as strings.
    """
    with _open_text(path) as fh:
        lines = pl.DataFrame({"line": fh.read().splitlines()}, schema={"line": pl.String})
    parts = lines.filter(pl.col("line").str.strip_chars() != "").select(
        pl.col("line").str.extract_all(r"\S+").alias("f")
    )
    need = 6 if kind == "run" else 4
    short = parts.filter(pl.col("f").list.len() < need)
    if short.height:
        example = " ".join(short["f"][0])
        raise UnsupportedInputError(
            f"{str(path)!r} is not a TREC {kind} file: expected at least {need} whitespace-separated "
            f"fields per line ({'qid Q0 doc rank score tag' if kind == 'run' else 'qid iter doc rel'}), "
            f"found the line {example!r}"
        )
    f = pl.col("f")
    value_index, value_name = (4, columns.score) if kind == "run" else (3, columns.relevance)
    try:
        return parts.select(
            f.list.get(0).alias(columns.query_id),
            f.list.get(2).alias(columns.doc_id),
            f.list.get(value_index).cast(pl.Float64).alias(value_name),
        )
    except pl.exceptions.InvalidOperationError as exc:
        raise UnsupportedInputError(
            f"{str(path)!r}: the {'score (5th)' if kind == 'run' else 'relevance (4th)'} field "
            f"of a TREC {kind} file must be a number"
        ) from exc


def trec_runid(path: str | os.PathLike[str]) -> str | None:
    """The run tag (6th field of the first line) of a TREC run file, if it is one."""
    try:
        files, _many = expand_path(path)
    except UnsupportedInputError:
        return None
    if detect_format(files[0]) != "trec":
        return None
    with _open_text(files[0]) as fh:
        for line in fh:
            fields = line.split()
            if fields:
                return fields[5] if len(fields) >= 6 else None
    return None


def scan_path(obj: str | os.PathLike[str], kind: Kind, columns: Columns, fmt: str | None = None) -> pl.LazyFrame:
    """Lazily read a file, folder or glob (Parquet with hive partitions, CSV/TSV, TREC)."""
    forced = check_format(fmt)
    files, many = expand_path(obj)
    chosen = forced or detect_format(files[0], columns)
    if chosen == "parquet":
        if many:
            return pl.scan_parquet(files, hive_partitioning=True, hive_schema=None)
        return pl.scan_parquet(files[0])
    if chosen in ("csv", "tsv"):
        sep = "," if chosen == "csv" else "\t"
        frames = [
            pl.read_csv(f, separator=sep).lazy() if is_gzip(f) else pl.scan_csv(f, separator=sep)
            for f in files
        ]
        return frames[0] if len(frames) == 1 else pl.concat(frames, how="diagonal_relaxed")
    return pl.concat([read_trec(f, kind, columns) for f in files]).lazy()


def duckdb_arrow(relation: Any) -> Any:
    """A DuckDB relation's rows as a pyarrow Table (``to_arrow_table`` on DuckDB >= 1.4)."""
    method = getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table
    return method()


def to_lazyframe(obj: Any, kind: Kind, columns: Columns, fmt: str | None = None) -> pl.LazyFrame:
    """Turn any accepted input into a Polars LazyFrame (paths are scanned lazily)."""
    if isinstance(obj, pl.LazyFrame):
        return obj
    if isinstance(obj, pl.DataFrame):
        return obj.lazy()
    if isinstance(obj, (str, os.PathLike)):
        return scan_path(obj, kind, columns, fmt)
    module = type(obj).__module__.split(".")[0]
    if module == "pyarrow":
        import pyarrow as pa

        if isinstance(obj, pa.Table):
            return pl.from_arrow(obj).lazy()  # type: ignore[union-attr]
    if module == "pandas":
        return pl.from_pandas(obj).lazy()
    if module in ("duckdb", "_duckdb"):
        return pl.from_arrow(duckdb_arrow(obj)).lazy()  # type: ignore[union-attr]
    raise UnsupportedInputError(
        f"cannot read a {kind} from {type(obj).__module__}.{type(obj).__name__}: pass a Polars "
        "DataFrame/LazyFrame, a pyarrow Table, a pandas DataFrame, a DuckDB relation, or a path "
        "(file, folder or glob) to Parquet, CSV/TSV or TREC files"
    )
