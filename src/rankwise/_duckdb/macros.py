"""The SQL macro files (top-level ``sql/``, shipped in the wheel as ``rankwise/sql``)."""

from __future__ import annotations

from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

from rankwise.errors import UnsupportedInputError


def _sql_dir() -> Traversable:
    packaged = resources.files("rankwise").joinpath("sql")
    if packaged.is_dir():
        return packaged
    # Editable install / source checkout: the files live in the repository's top-level sql/.
    checkout = Path(__file__).resolve().parents[3] / "sql"
    if checkout.is_dir():
        return checkout
    raise UnsupportedInputError("rankwise's SQL macro files are missing from this installation")


def sql_files() -> list[tuple[str, str]]:
    """(file name, SQL text) of every macro file, in load order."""
    files = sorted((f for f in _sql_dir().iterdir() if f.name.endswith(".sql")), key=lambda f: f.name)
    return [(f.name, f.read_text(encoding="utf-8")) for f in files]


def register(con: Any) -> Any:
    """Install rankwise's SQL macros (``rw_*``) on a DuckDB connection, as TEMP macros.

    TEMP macros live in the connection's temporary schema, so read-only database connections
    work too. Returns the connection.

    >>> import duckdb, rankwise as rw
    >>> con = rw.register(duckdb.connect())
    >>> con.sql("SELECT rw_discount(1, 'log2', 2) AS d1, rw_discount(2, 'jarvelin', 2) AS d2").fetchall()
    [(1.0, 1.0)]
    """
    for _name, text in sql_files():
        con.execute(text)
    return con
