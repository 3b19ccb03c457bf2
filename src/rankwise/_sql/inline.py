"""Inline rankwise's SQL macros into plain SQL, for engines without DuckDB's macros (Spark) or
for a self-contained statement to paste anywhere.

The macro definitions of ``sql/`` stay the single source of truth: this module parses them
(``CREATE OR REPLACE TEMP MACRO name(params) AS [TABLE] body;``) and substitutes every
``rw_*`` call by its body with the arguments in place of the parameters, recursively. A table
macro becomes a parenthesised subquery, and its ``query_table(name)`` the table itself.

Quoted text is never touched: string literals (``'...'``), double-quoted identifiers
(``"..."``) and backtick-quoted identifiers (Spark's), each with its doubled quote as the
escape, are skipped by every step (the call scan, the parenthesis matching, the argument split,
the parameter substitution and the dialect's rewrites), so a column alias such as
``"AP rw_div0( -- )"`` reaches the statement as it was written.

The dialects differ in a few spellings, all listed in :data:`DIALECT_RULES`.

>>> expand("SELECT rw_div0(a, b) FROM t", "duckdb")
'SELECT (CASE WHEN (b) = 0 THEN 0.0::DOUBLE ELSE (a)::DOUBLE / (b)::DOUBLE END) FROM t'
>>> expand("SELECT rw_div0(1, 2) AS `rw_div0(``x`", "spark")
'SELECT (CASE WHEN (2) = 0 THEN 0.0::DOUBLE ELSE (1)::DOUBLE / (2)::DOUBLE END) AS `rw_div0(``x`'
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from rankwise._sql.macros import Macro, macros, split_args
from rankwise.errors import InvalidParameterError

Dialect = Literal["duckdb", "spark"]
DIALECTS: tuple[str, ...] = ("duckdb", "spark")


@dataclass(frozen=True)
class DialectRules:
    """How one SQL dialect spells what the macros of ``sql/`` write in DuckDB's SQL.

    Every difference between the dialects lives here (and nowhere else). Names are rewritten
    as whole words outside quotes; quoted text is re-spelled, never changed."""

    name: str
    identifier_quote: str
    """The character that quotes identifiers (doubled inside them); a ``"double-quoted"``
    identifier of the macros is re-quoted with it."""
    functions: Mapping[str, str] = field(default_factory=dict)
    """Function renames, e.g. DuckDB's ``error(msg)`` is Spark's ``raise_error(msg)``."""
    types: Mapping[str, str] = field(default_factory=dict)
    """Type-name renames in casts, e.g. ``VARCHAR`` is ``STRING`` in Spark."""
    backslash_strings: bool = False
    """String literals escape with a backslash (``'it\\'s'``), not with a doubled quote
    (``'it''s'``: in Spark SQL that is the two literals ``'it'`` and ``'s'``, concatenated)."""
    ordered_listagg: bool = False
    """``string_agg(x, '' ORDER BY r)`` is spelled ``listagg(x, '') WITHIN GROUP (ORDER BY r)``."""
    arrow_lambdas: bool = False
    """Lambdas are spelled ``x -> e`` / ``(x, y) -> e`` (DuckDB: ``lambda x: e``), structs
    ``named_struct('a', x)`` (DuckDB: ``struct_pack(a := x)``) and a list's sum
    ``aggregate(l, 0, (a, b) -> a + b)`` (DuckDB: ``list_sum(l)``), a fold ``aggregate(l, init,
    f)`` (DuckDB: ``list_reduce(l, f, init)``) and an inclusive range ``sequence(a, b)`` (DuckDB:
    ``generate_series(a, b)``; only with a ≤ b, where both agree): the greedy ideal ranking of the
    diversity measures (``rankwise._sql.compiler``), IFT's walk over the padded ranks; and the dot
    product of two lists of one length ``aggregate(zip_with(a, b, (x, y) -> x * y), 0, (s, t) -> s +
    t)`` (DuckDB: ``list_dot_product(a, b)``): the item features' pairs."""
    recursion_limit: str = ""
    """The clause after a recursive CTE's column list that lifts the dialect's recursion limit
    (Spark stops at 100 levels by default)."""
    input_order: str = "row_number() OVER ()"
    """A number of each row of a scanned table, increasing in the order the scan yields them
    (``ties='input'``): DuckDB's ``row_number() OVER ()`` keeps the scan's order while it
    preserves insertion order (its default); Spark's ``monotonically_increasing_id()``
    increases with the partition and the row's position in it (Spark's ``row_number()``
    needs an ordered window)."""
    exploded_vector: str = "unnest(range(len({vector}))) AS feature, unnest({vector}) AS value"
    """The select list that turns a row's list (or array) column ``{vector}`` into one row per
    element, its 0-based position ``feature`` and its ``value`` (the item features of
    :func:`rankwise.to_sql`): DuckDB unnests two lists of one length side by side, Spark's
    ``posexplode`` gives both."""

    def quote(self, name: str) -> str:
        """``name`` as a quoted identifier of this dialect."""
        q = self.identifier_quote
        return q + name.replace(q, q + q) + q

    def _quoted(self, token: str) -> str:
        """A quoted span (DuckDB's spelling) in this dialect's spelling."""
        q = token[0]
        if len(token) < 2 or token[-1] != q:  # unterminated: as it is
            return token
        text = token[1:-1].replace(q + q, q)
        if q == "'" and self.backslash_strings:
            return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
        if q == '"':
            return self.quote(text)
        return token

    def _words(self, piece: str) -> str:
        """Unquoted text with the function and type renames made."""
        return _rename(_rename(piece, self.functions, r"\b({})(?=\s*\()"), self.types, r"\b({})\b")

    def render(self, sql: str) -> str:
        """``sql``, written in DuckDB's spelling, in this dialect's."""
        if self.ordered_listagg:
            inside = _Quoted(sql)
            sql = _ORDERED_STRING_AGG.sub(
                lambda m: m.group(0) if m.start() in inside
                else f"listagg({m.group(1)}, '') WITHIN GROUP (ORDER BY {m.group(2)})",
                sql,
            )
        if self.arrow_lambdas:
            sql = _arrow_lambdas(sql)
        out, at = [], 0
        for m in _QUOTED.finditer(sql):
            out += [self._words(sql[at : m.start()]), self._quoted(m.group(0))]
            at = m.end()
        out.append(self._words(sql[at:]))
        return "".join(out)


def _rename(text: str, names: Mapping[str, str], pattern: str) -> str:
    """``text`` with each name of ``names`` (matched by ``pattern``, ``{}`` the alternatives)
    replaced by its value."""
    if not names:
        return text
    regex = re.compile(pattern.format("|".join(map(re.escape, names))))
    return regex.sub(lambda m: names[m.group(1)], text)


DIALECT_RULES: dict[str, DialectRules] = {
    "duckdb": DialectRules("duckdb", identifier_quote='"'),
    "spark": DialectRules(
        "spark", identifier_quote="`",
        functions={
            "error": "raise_error", "list_transform": "transform", "list_max": "array_max",
            "generate_series": "sequence", "len": "size", "list_extract": "element_at", "unnest": "explode",
        },
        types={"VARCHAR": "STRING"}, backslash_strings=True, ordered_listagg=True, arrow_lambdas=True,
        recursion_limit="MAX RECURSION LEVEL 1000000", input_order="monotonically_increasing_id()",
        exploded_vector="posexplode({vector}) AS (feature, value)",
    ),
}
"""The rules of each dialect :func:`expand` and :func:`rankwise.to_sql` can write."""


def dialect_rules(dialect: str) -> DialectRules:
    """The :class:`DialectRules` of ``dialect``, or an error listing the dialects."""
    if dialect not in DIALECT_RULES:
        raise InvalidParameterError(f"dialect must be one of {list(DIALECTS)}, got {dialect!r}")
    return DIALECT_RULES[dialect]


_CALL = re.compile(r"\b(rw_\w+)\s*\(")
_QUERY_TABLE = re.compile(r"query_table\(\s*\(*\s*'((?:[^']|'')*)'\s*\)*\s*\)")
_QUOTED = re.compile(r"'(?:[^']|'')*'?|\"(?:[^\"]|\"\")*\"?|`(?:[^`]|``)*`?")
"""A quoted span: a string literal or a double- or backtick-quoted identifier, with doubled
quotes as escapes (an unterminated one runs to the end of the text)."""
_QUOTES = "'\"`"
_ORDERED_STRING_AGG = re.compile(r"string_agg\(\(?(\w+)\)?, '' ORDER BY \(?(\w+)\)?\)")
"""DuckDB's ordered string aggregate, which Spark SQL spells listagg(...) WITHIN GROUP (ORDER BY ...)."""


def _outside_quotes(text: str, rewrite: Callable[[str], str]) -> str:
    """``text`` with ``rewrite`` applied to each stretch between quoted spans (which are kept)."""
    out, at = [], 0
    for m in _QUOTED.finditer(text):
        out.append(rewrite(text[at : m.start()]))
        out.append(m.group(0))
        at = m.end()
    out.append(rewrite(text[at:]))
    return "".join(out)


class _Quoted:
    """The quoted spans of a text from ``pos`` on (``pos`` outside quotes), to ask whether a
    position lies inside one."""

    def __init__(self, text: str, pos: int = 0) -> None:
        spans = [m.span() for m in _QUOTED.finditer(text, pos)]
        self.starts = [s for s, _ in spans]
        self.ends = [e for _, e in spans]

    def __contains__(self, pos: int) -> bool:
        i = bisect.bisect_right(self.starts, pos) - 1
        return i >= 0 and pos < self.ends[i]


def _close(text: str, open_at: int) -> int:
    """Index of the parenthesis closing the one at ``open_at`` (quoted text skipped)."""
    depth, quote = 0, ""
    for i in range(open_at, len(text)):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in _QUOTES:
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
    raise InvalidParameterError(f"unbalanced parentheses in SQL: {text[open_at:open_at + 80]!r}")


def _substitute(body: str, values: dict[str, str]) -> str:
    """Replace whole-word parameter names outside quotes (not a nested call's ``name :=``)."""
    if not values:
        return body
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, values)) + r")\b(?!\s*:=)")
    return _outside_quotes(body, lambda piece: pattern.sub(lambda m: f"({values[m.group(1)]})", piece))


def _call(macro: Macro, args: list[str]) -> str:
    values = dict(macro.defaults)
    positional = 0
    for arg in args:
        name, sep, value = arg.partition(":=")
        if sep and re.fullmatch(r"\s*\w+\s*", name):
            values[name.strip()] = value.strip()
        else:
            if positional >= len(macro.params):
                raise InvalidParameterError(f"macro {macro.name} called with too many arguments: {args}")
            values[macro.params[positional]] = arg
            positional += 1
    unknown = [name for name in values if name not in macro.params]
    if unknown:
        raise InvalidParameterError(f"macro {macro.name} has no parameter {unknown}")
    missing = [p for p in macro.params if p not in values]
    if missing:
        raise InvalidParameterError(f"macro {macro.name} called without {missing}")
    body = _substitute(macro.body, values)
    if macro.table:
        inside = _Quoted(body)
        body = _QUERY_TABLE.sub(
            lambda m: m.group(0) if m.start() in inside else m.group(1).replace("''", "'"), body
        )
    return f"({body})"


def _next_call(sql: str, known: Mapping[str, Macro], pos: int) -> re.Match[str] | None:
    """The first call of a known macro outside quotes, from ``pos`` (outside quotes) on."""
    inside: _Quoted | None = None
    for m in _CALL.finditer(sql, pos):
        if m.group(1) not in known:
            continue
        inside = inside or _Quoted(sql, pos)
        if m.start() not in inside:
            return m
    return None


EXPANSIONS_PER_CALL = 200
"""The most macro expansions a call of the statement may unfold into (about 10 today)."""


def expand(sql: str, dialect: Dialect = "duckdb") -> str:
    """``sql`` with every rankwise macro call inlined (repeatedly, innermost results first),
    then spelled for ``dialect`` (:data:`DIALECT_RULES`)."""
    rules = dialect_rules(dialect)
    known = macros()
    pos = 0  # the text before pos holds no call (each call found is the first one left)
    # each call of the statement unfolds into a bounded number of calls (the macros of sql/
    # are not recursive, and none unfolds into more than a few dozen): a recursive macro
    # would exhaust any such budget
    calls = sum(1 for m in _CALL.finditer(sql) if m.group(1) in known)
    for _ in range(1000 + EXPANSIONS_PER_CALL * calls):
        match = _next_call(sql, known, pos)
        if match is None:
            return rules.render(sql)
        open_at = match.end() - 1
        close_at = _close(sql, open_at)
        args = split_args(sql[open_at + 1 : close_at])
        sql = sql[: match.start()] + _call(known[match.group(1)], args) + sql[close_at + 1 :]
        pos = match.start()
    raise InvalidParameterError("macro expansion did not finish (recursive macro?)")


_LAMBDA = re.compile(r"\blambda\s+(\w+(?:\s*,\s*\w+)*)\s*:(?!=)")
_ARRAY_CALL = re.compile(r"\b(struct_pack|list_sum|list_reduce|generate_series|list_dot_product)\s*\(")


def _lambda_args(args: list[str]) -> list[str]:
    """``args`` with a lambda of several parameters (``lambda a, b: e``, split at its comma)
    made one argument again."""
    out: list[str] = []
    for arg in args:
        if out and re.fullmatch(r"\s*lambda\s+\w+(?:\s*,\s*\w+)*\s*", out[-1]):
            out[-1] += "," + arg
        else:
            out.append(arg)
    return out


def _arrow_lambdas(sql: str) -> str:
    """DuckDB's lambdas, ``struct_pack``, ``list_sum``, ``list_reduce``, ``generate_series`` and
    ``list_dot_product`` (outside quotes) in the arrow spelling
    (:attr:`DialectRules.arrow_lambdas`)."""
    inside = _Quoted(sql)
    for m in reversed([m for m in _ARRAY_CALL.finditer(sql) if m.start() not in inside]):
        open_at = m.end() - 1
        close_at = _close(sql, open_at)
        args = _lambda_args(split_args(sql[open_at + 1 : close_at]))
        if m.group(1) == "list_sum":
            call = f"aggregate({args[0]}, CAST(0 AS DOUBLE), (rw_a, rw_b) -> rw_a + rw_b)"
        elif m.group(1) == "list_dot_product":
            call = (
                f"aggregate(zip_with({args[0]}, {args[1]}, (rw_x, rw_y) -> rw_x * rw_y), CAST(0 AS DOUBLE), "
                "(rw_a, rw_b) -> rw_a + rw_b)"
            )
        elif m.group(1) == "list_reduce":
            call = f"aggregate({args[0]}, {args[2]}, {args[1]})"
        elif m.group(1) == "generate_series":
            call = f"sequence({args[0]}, {args[1]})"
        else:
            pairs = [arg.partition(":=") for arg in args]
            call = "named_struct(" + ", ".join(f"'{name.strip()}', {value.strip()}" for name, _, value in pairs) + ")"
        sql = sql[: m.start()] + call + sql[close_at + 1 :]
    inside = _Quoted(sql)

    def header(m: re.Match[str]) -> str:
        if m.start() in inside:
            return m.group(0)
        names = [n.strip() for n in m.group(1).split(",")]
        return (names[0] if len(names) == 1 else "(" + ", ".join(names) + ")") + " ->"

    return _LAMBDA.sub(header, sql)
