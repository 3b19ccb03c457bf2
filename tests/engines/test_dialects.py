"""Each SQL dialect's rules (rankwise._sql.inline.DIALECT_RULES), one by one: DuckDB's spelling
is the macros' own; Spark's differs only where a rule says, and never inside quotes."""

from __future__ import annotations

import pytest

from rankwise._sql.inline import DIALECT_RULES, dialect_rules, expand
from rankwise.errors import InvalidParameterError

SPARK = DIALECT_RULES["spark"]
DUCKDB = DIALECT_RULES["duckdb"]


def test_duckdb_renders_the_macros_spelling_unchanged() -> None:
    sql = "SELECT error('it''s'), CAST(x AS VARCHAR), string_agg(c, '' ORDER BY r), \"a\"\"b\" FROM t"
    assert DUCKDB.render(sql) == sql


@pytest.mark.parametrize(
    ("duckdb", "spark"),
    [
        ("SELECT error('bad')", "SELECT raise_error('bad')"),  # function renames
        ("SELECT CAST(x AS VARCHAR)", "SELECT CAST(x AS STRING)"),  # type renames
        ("SELECT 'it''s'", "SELECT 'it\\'s'"),  # backslash escapes in string literals
        ("SELECT 'a\\b'", "SELECT 'a\\\\b'"),
        ('SELECT 1 AS "x""y"', "SELECT 1 AS `x\"y`"),  # identifier quotes
        (
            "SELECT string_agg(c, '' ORDER BY r) FROM t",  # the ordered string aggregate
            "SELECT listagg(c, '') WITHIN GROUP (ORDER BY r) FROM t",
        ),
    ],
)
def test_spark_rules(duckdb: str, spark: str) -> None:
    assert SPARK.render(duckdb) == spark


def test_rules_leave_quoted_text_alone() -> None:
    sql = "SELECT 'error(x) VARCHAR string_agg(c, '''' ORDER BY r)' AS \"error(VARCHAR)\""
    assert SPARK.render(sql) == "SELECT 'error(x) VARCHAR string_agg(c, \\'\\' ORDER BY r)' AS `error(VARCHAR)`"


def test_every_dialect_expands_the_macros_and_unknown_dialects_are_refused() -> None:
    for name in DIALECT_RULES:
        assert "rw_" not in expand("SELECT rw_div0(a, b), rw_relstring(c, r, 3) FROM t", name)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="dialect must be one of"):
        dialect_rules("oracle")
