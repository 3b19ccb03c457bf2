"""Installing rankwise's SQL macros on a DuckDB connection."""

from __future__ import annotations

from typing import Any

from rankwise._sql.macros import sql_files


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
