"""The SQL macro files (top-level ``sql/``, linked as ``src/rankwise/sql``) and their
parsed definitions (name, parameters, body), which the compiler binds by name and
:mod:`rankwise._sql.inline` inlines.

The macros live in one file per family (``00_core.sql`` ... ``90_evaluate.sql``, loaded in
file-name order); :data:`BUNDLE` is every one of them in that order in one file, for the DuckDB
command line (``.read sql/rankwise.sql``), written by :mod:`rankwise._sql.generate`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from importlib.abc import Traversable

from rankwise.errors import UnsupportedInputError


def _sql_dir() -> Traversable:
    """The macro files: the package's ``sql`` folder, a link to the repository's top-level
    ``sql/`` (which the wheel holds as files), in a checkout, an editable install and a wheel alike."""
    found = resources.files("rankwise").joinpath("sql")
    if not found.is_dir():
        raise UnsupportedInputError("rankwise's SQL macro files are missing from this installation")
    return found


BUNDLE = "rankwise.sql"
"""The file of ``sql/`` holding every family's file in load order (not itself a family)."""


def sql_files() -> list[tuple[str, str]]:
    """(file name, SQL text) of every family's macro file, in load order (not :data:`BUNDLE`,
    which repeats them)."""
    files = sorted(
        (f for f in _sql_dir().iterdir() if f.name.endswith(".sql") and f.name != BUNDLE), key=lambda f: f.name
    )
    return [(f.name, f.read_text(encoding="utf-8")) for f in files]


_MACRO = re.compile(
    r"CREATE\s+OR\s+REPLACE\s+TEMP\s+MACRO\s+(?P<name>\w+)\s*\((?P<params>[^)]*)\)\s+AS\s+(?P<table>TABLE\s+)?(?P<body>.*?);\s*(?=CREATE|\Z)",
    re.S,
)
_QUOTES = "'\"`"


@dataclass(frozen=True)
class Macro:
    name: str
    params: tuple[str, ...]
    defaults: tuple[tuple[str, str], ...]
    body: str
    table: bool


def _strip_comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("--"))


def split_args(text: str) -> list[str]:
    """Split on top-level commas (not inside parentheses, brackets or quotes)."""
    parts, depth, start, quote = [], 0, 0, ""
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:  # a closing quote; a doubled one reopens at once
                quote = ""
        elif ch in _QUOTES:
            quote = ch
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


@lru_cache(maxsize=1)
def macros() -> dict[str, Macro]:
    """Every macro of ``sql/``, by name."""
    found: dict[str, Macro] = {}
    for _name, text in sql_files():
        for m in _MACRO.finditer(_strip_comments(text)):
            params: list[str] = []
            defaults: list[tuple[str, str]] = []
            for raw in split_args(m.group("params")):
                name, sep, default = raw.partition(":=")
                params.append(name.strip())
                if sep:
                    defaults.append((name.strip(), default.strip()))
            found[m.group("name")] = Macro(
                m.group("name"), tuple(params), tuple(defaults), m.group("body").strip(), bool(m.group("table"))
            )
    return found
