"""Reading runs and qrels from every accepted input into Polars.

Accepted: Polars DataFrame/LazyFrame, pyarrow Table, pandas DataFrame, DuckDB relation, or a
path to a Parquet, CSV/TSV or TREC text file (run: ``qid Q0 doc rank score tag``; qrels:
``qid iter doc rel``). TREC files get the configured column names; the run's rank column is
ignored (trec_eval ranks by score).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import polars as pl

from rankwise.conventions import Columns
from rankwise.errors import UnsupportedInputError

Kind = Literal["run", "qrels"]
FileFormat = Literal["parquet", "csv", "tsv", "trec"]

_PARQUET = (".parquet", ".pq")
_CSV = (".csv",)
_TSV = (".tsv",)


def detect_format(path: Path) -> FileFormat:
    """The format of a file, from its extension, else from its first line (TREC text)."""
    name = path.name.lower()
    if name.endswith(_PARQUET):
        return "parquet"
    if name.endswith(_CSV):
        return "csv"
    if name.endswith(_TSV):
        return "tsv"
    return "trec"


def _check_path(path: Path) -> None:
    if not path.exists():
        raise UnsupportedInputError(f"no such file: {str(path)!r}")
    if path.is_dir():
        raise UnsupportedInputError(
            f"{str(path)!r} is a folder; pass a file (folders and globs are not supported yet)"
        )


def read_trec(path: Path, kind: Kind, columns: Columns) -> pl.DataFrame:
    """Read a TREC run (``qid Q0 doc rank score tag``) or qrels (``qid iter doc rel``) file.

    Fields are separated by any whitespace; anything after the sixth (run) or fourth (qrels)
    field is ignored, as trec_eval does. Ids are read as strings.
    """
    lines = pl.read_csv(
        path, has_header=False, new_columns=["line"], separator="\x1f", quote_char=None
    )
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
    p = Path(path)
    if detect_format(p) != "trec" or not p.is_file():
        return None
    with p.open(encoding="utf-8", errors="replace") as fh:
        for line in fh:
            fields = line.split()
            if fields:
                return fields[5] if len(fields) >= 6 else None
    return None


def duckdb_arrow(relation: Any) -> Any:
    """A DuckDB relation's rows as a pyarrow Table (``to_arrow_table`` on DuckDB >= 1.4)."""
    method = getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table
    return method()


def to_lazyframe(obj: Any, kind: Kind, columns: Columns) -> pl.LazyFrame:
    """Turn any accepted input into a Polars LazyFrame (paths are scanned lazily)."""
    if isinstance(obj, pl.LazyFrame):
        return obj
    if isinstance(obj, pl.DataFrame):
        return obj.lazy()
    if isinstance(obj, (str, os.PathLike)):
        path = Path(obj)
        _check_path(path)
        fmt = detect_format(path)
        if fmt == "parquet":
            return pl.scan_parquet(path)
        if fmt in ("csv", "tsv"):
            return pl.scan_csv(path, separator="," if fmt == "csv" else "\t")
        return read_trec(path, kind, columns).lazy()
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
        "to a Parquet, CSV or TREC file"
    )
