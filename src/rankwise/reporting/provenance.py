"""Where a report's numbers come from: each input described (a file's path, size,
modification time, SHA-256 and rows; an in-memory frame's kind and rows), the library
versions and the date.

>>> import polars as pl
>>> describe_input(pl.DataFrame({"a": [1, 2]}))["source"]
'in-memory DataFrame, 2 rows'
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from pathlib import Path
from typing import Any

import polars as pl

from rankwise.errors import RankwiseError

CHUNK = 1 << 20


def _file(path: Path) -> dict[str, Any]:
    """A file's size, modification time (UTC), SHA-256 of its bytes and rows (Parquet: from
    its metadata; other files: lines, a header line included), read in one pass."""
    stat = path.stat()
    digest = hashlib.sha256()
    lines = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
            lines += chunk.count(b"\n")
    rows: str
    if path.suffix.lower() == ".parquet":
        import pyarrow.parquet as pq

        rows = f"{pq.ParquetFile(path).metadata.num_rows} rows"
    else:
        rows = f"{lines} lines"
    modified = dt.datetime.fromtimestamp(stat.st_mtime, dt.timezone.utc).isoformat(timespec="seconds")
    return {"source": str(path), "size": f"{stat.st_size} bytes", "modified": modified,
            "sha256": digest.hexdigest(), "rows": rows}


def describe_input(obj: Any) -> dict[str, Any]:
    """One input described: for a path, each file it names (a folder's or a glob's files
    too) with its size, modification time, SHA-256 and rows; for a frame, its kind and rows."""
    if isinstance(obj, (str, os.PathLike)):
        from rankwise.inputs.read import expand_path

        try:
            files, _ = expand_path(obj)
        except (RankwiseError, OSError):  # a description never fails the report
            files = [Path(obj)]
        described = [_file(f) for f in files if f.is_file()]
        if len(described) == 1:
            return described[0]
        return {"source": str(obj), "files": described}
    if isinstance(obj, pl.DataFrame):
        return {"source": f"in-memory DataFrame, {obj.height} rows"}
    if isinstance(obj, pl.LazyFrame):
        return {"source": "in-memory LazyFrame (rows not counted: that would read it again)"}
    rows = getattr(obj, "num_rows", None) or (len(obj) if hasattr(obj, "__len__") else None)
    kind = f"{type(obj).__module__.split('.')[0]}.{type(obj).__name__}"
    return {"source": f"in-memory {kind}" + (f", {rows} rows" if rows is not None else "")}


def versions() -> dict[str, str]:
    """The versions of rankwise and of its engines (Polars, DuckDB) and Python."""
    import platform
    import sys

    import duckdb

    # the package is loaded whenever one of its modules is: its version is read there, not
    # imported (the package is the top layer, docs/ARCHITECTURE.md)
    version = getattr(sys.modules.get("rankwise"), "__version__", "unknown")
    return {"rankwise": str(version), "polars": pl.__version__, "duckdb": duckdb.__version__,
            "python": platform.python_version()}


def now() -> str:
    """The current date and time, UTC, to the second (ISO 8601)."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
