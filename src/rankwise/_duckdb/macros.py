"""Installing rankwise's SQL macros on a DuckDB connection."""

from __future__ import annotations

from typing import Any

from rankwise._sql.macros import sql_files
from rankwise.conventions import checked


@checked
def register(con: Any, *, temporary: bool = True) -> Any:
    """Install rankwise's SQL macros (``rw_*``) on a DuckDB connection, as TEMP macros.

    TEMP macros live in the connection's temporary schema, so read-only database connections
    work too. With ``temporary=False`` they go into the database's own schema instead, where
    every cursor of the connection sees them (the DuckDB engine's private in-memory database,
    see :func:`rankwise._duckdb.engine.session`). Returns the connection.

    >>> import duckdb, rankwise as rw
    >>> con = rw.register(duckdb.connect())
    >>> con.sql("SELECT rw_discount(1, 'log2', 2) AS d1, rw_discount(2, 'jarvelin', 2) AS d2").fetchall()
    [(1.0, 1.0)]
    """
    for _name, text in sql_files():
        con.execute(text if temporary else text.replace("CREATE OR REPLACE TEMP MACRO", "CREATE OR REPLACE MACRO"))
    return con
