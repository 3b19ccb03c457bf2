"""Inline rankwise's SQL macros into plain SQL, for engines without DuckDB's macros (Spark) or
for a self-contained statement to paste anywhere.

The macro definitions of ``sql/`` stay the single source of truth: this module parses them
(``CREATE OR REPLACE TEMP MACRO name(params) AS [TABLE] body;``) and substitutes every
``rw_*`` call by its body with the arguments in place of the parameters (string literals are
never touched), recursively. A table macro becomes a parenthesised subquery, and its
``query_table(name)`` the table itself.

>>> expand("SELECT rw_div0(a, b) FROM t", "duckdb")
'SELECT (CASE WHEN (b) = 0 THEN 0.0::DOUBLE ELSE (a)::DOUBLE / (b)::DOUBLE END) FROM t'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from rankwise._duckdb.macros import sql_files
from rankwise.errors import InvalidParameterError

Dialect = Literal["duckdb", "spark"]
DIALECTS: tuple[str, ...] = ("duckdb", "spark")

_MACRO = re.compile(
    r"CREATE\s+OR\s+REPLACE\s+TEMP\s+MACRO\s+(?P<name>\w+)\s*\((?P<params>[^)]*)\)\s+AS\s+(?P<table>TABLE\s+)?(?P<body>.*?);\s*(?=CREATE|\Z)",
    re.S,
)
_CALL = re.compile(r"\b(rw_\w+)\s*\(")
_QUERY_TABLE = re.compile(r"query_table\(\s*\(*\s*'((?:[^']|'')*)'\s*\)*\s*\)")


@dataclass(frozen=True)
class Macro:
    name: str
    params: tuple[str, ...]
    defaults: tuple[tuple[str, str], ...]
    body: str
    table: bool


def _strip_comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("--"))


@lru_cache(maxsize=1)
def macros() -> dict[str, Macro]:
    """Every macro of ``sql/``, by name."""
    found: dict[str, Macro] = {}
    for _name, text in sql_files():
        for m in _MACRO.finditer(_strip_comments(text)):
            params: list[str] = []
            defaults: list[tuple[str, str]] = []
            for raw in _split_args(m.group("params")):
                name, sep, default = raw.partition(":=")
                params.append(name.strip())
                if sep:
                    defaults.append((name.strip(), default.strip()))
            found[m.group("name")] = Macro(
                m.group("name"), tuple(params), tuple(defaults), m.group("body").strip(), bool(m.group("table"))
            )
    return found


def _split_args(text: str) -> list[str]:
    """Split on top-level commas (not inside parentheses, brackets or quotes)."""
    parts, depth, start, quote = [], 0, 0, False
    for i, ch in enumerate(text):
        if ch == "'":
            quote = not quote
        elif quote:
            continue
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    tail = text[start:]
    if tail.strip():
        parts.append(tail)
    return [p.strip() for p in parts]


def _close(text: str, open_at: int) -> int:
    """Index of the parenthesis closing the one at ``open_at``."""
    depth, quote = 0, False
    for i in range(open_at, len(text)):
        ch = text[i]
        if ch == "'":
            quote = not quote
        elif quote:
            continue
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
    raise InvalidParameterError(f"unbalanced parentheses in SQL: {text[open_at:open_at + 80]!r}")


def _substitute(body: str, values: dict[str, str]) -> str:
    """Replace whole-word parameter names outside string literals."""
    pieces = re.split(r"('(?:[^']|'')*')", body)
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, values)) + r")\b") if values else None
    out = []
    for i, piece in enumerate(pieces):
        if i % 2 == 1 or pattern is None:
            out.append(piece)
        else:
            out.append(pattern.sub(lambda m: f"({values[m.group(1)]})", piece))
    return "".join(out)


def _call(macro: Macro, args: list[str]) -> str:
    values = dict(macro.defaults)
    positional = 0
    for arg in args:
        name, sep, value = arg.partition(":=")
        if sep and re.fullmatch(r"\s*\w+\s*", name):
            values[name.strip()] = value.strip()
        else:
            values[macro.params[positional]] = arg
            positional += 1
    missing = [p for p in macro.params if p not in values]
    if missing:
        raise InvalidParameterError(f"macro {macro.name} called without {missing}")
    body = _substitute(macro.body, values)
    if macro.table:
        body = _QUERY_TABLE.sub(lambda m: m.group(1).replace("''", "'"), body)
    return f"({body})"


_ORDERED_STRING_AGG = re.compile(r"string_agg\(\(?(\w+)\)?, '' ORDER BY \(?(\w+)\)?\)")
"""DuckDB's ordered string aggregate, which Spark SQL spells listagg(...) WITHIN GROUP (ORDER BY ...)."""


def expand(sql: str, dialect: Dialect = "duckdb") -> str:
    """``sql`` with every rankwise macro call inlined (repeatedly, innermost results first)."""
    if dialect not in DIALECTS:
        raise InvalidParameterError(f"dialect must be one of {list(DIALECTS)}, got {dialect!r}")
    known = macros()
    for _ in range(1000):
        match = next((m for m in _CALL.finditer(sql) if m.group(1) in known), None)
        if match is None:
            return _ORDERED_STRING_AGG.sub(r"listagg(\1, '') WITHIN GROUP (ORDER BY \2)", sql) if dialect == "spark" else sql
        open_at = match.end() - 1
        close_at = _close(sql, open_at)
        args = _split_args(sql[open_at + 1 : close_at])
        sql = sql[: match.start()] + _call(known[match.group(1)], args) + sql[close_at + 1 :]
    raise InvalidParameterError("macro expansion did not finish (recursive macro?)")
