"""The DuckDB engine: every number is computed in SQL by the ``rw_*`` macros of ``sql/``.

Python only (1) exposes the inputs as views with the standard column names, (2) runs the
shared input checks, and (3) compiles each metric's recipe (:mod:`rankwise.recipes`) into one
SQL statement of macro calls. Parameter values reach SQL only as validated literals and names
only as checked, quoted identifiers.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from rankwise._duckdb.macros import register
from rankwise.conventions import TIE_ORDERS, Columns, Conventions, TieKey, quote_identifier
from rankwise.errors import InvalidParameterError
from rankwise.io import (
    check_format,
    check_not_empty,
    check_parquet,
    csv_overrides,
    duckdb_arrow,
    expand_path,
    file_format,
    has_glob_chars,
    header_names,
    is_gzip,
    to_lazyframe,
)
from rankwise.metric import Metric
from rankwise.recipes import (
    QRELS_PREFIX_OPS,
    RUN_NULL_WHEN_EMPTY,
    RUN_STRING_OPS,
    Arg,
    Const,
    Gain,
    Node,
    QrelsAgg,
    RunAgg,
    as_gain,
    leaves,
    recipe,
    requires,
)
from rankwise.validate import (
    DataProfile,
    Kind,
    Problem,
    TypeClass,
    check_profile,
    check_schema,
    ids_as_strings,
    value_column,
)

if TYPE_CHECKING:  # DuckDB is imported when it evaluates: `import rankwise` stays light
    import duckdb

_counter = itertools.count()


def gain_sql(g: Gain, rel: str = "relevance") -> str:
    """SQL for the gain of column ``rel`` under a :class:`Gain` (rw_gain unless customised)."""
    sql = f"rw_gain({rel}, {literal(g.kind)})"
    if g.table:
        cases = " ".join(f"WHEN {rel} = {literal(lv)} THEN {literal(gv)}" for lv, gv in g.table)
        sql = f"CASE {cases} ELSE {sql} END"
    if g.table or g.min_rel > 0:
        sql = f"CASE WHEN {rel} IS NULL OR {rel} < 0 OR {rel} < {literal(g.min_rel)} THEN 0.0 ELSE {sql} END"
    return sql


def ideal_rank_sql(g: Gain) -> str:
    """Window: rank in the ideal (gain-descending) order of a query's rows."""
    key = "coalesce(relevance, 0.0)" if g.monotone else gain_sql(g)
    return f"row_number() OVER (PARTITION BY query_id ORDER BY {key} DESC)"


def literal(value: Arg) -> str:
    """A validated Python value as a SQL literal (a :class:`Gain` as its gain expression)."""
    if isinstance(value, Gain):
        return gain_sql(value)
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidParameterError(f"parameter value must be finite, got {value!r}")
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    raise InvalidParameterError(f"cannot pass {value!r} to SQL")


def type_class(sql_type: str) -> TypeClass:
    t = sql_type.upper()
    if t in ("VARCHAR", "STRING", "TEXT") or t.startswith("VARCHAR") or t.startswith("ENUM"):
        return "string"
    if t in ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
             "UINTEGER", "UBIGINT", "UHUGEINT"):
        return "integer"
    if t in ("FLOAT", "DOUBLE", "REAL") or t.startswith("DECIMAL"):
        return "float"
    return "other"


def _source(
    con: duckdb.DuckDBPyConnection, obj: Any, kind: Kind, columns: Columns, fmt: str | None
) -> tuple[str, bool]:
    """Expose an input to SQL; returns a FROM-clause fragment, and whether its rows are already
    in memory (a frame or table, not files to read or a lazy query to run). Parquet and CSV
    files (also folders, globs, hive partitions, gzip) are read by DuckDB itself."""
    if isinstance(obj, (str, os.PathLike)):
        check_format(fmt)
        files, many = expand_path(obj)
        chosen = file_format(files, os.fspath(obj), columns, fmt)
        paths = "[" + ", ".join(literal(str(f)) for f in files) + "]"
        # DuckDB's readers glob every path they are given: a file whose name holds glob
        # characters is read through Polars instead (to_lazyframe), as that very file
        literal_names = not any(has_glob_chars(f) for f in files)
        if chosen == "parquet" and literal_names:
            check_parquet(files)
            return f"read_parquet({paths}, hive_partitioning = {literal(many)}, union_by_name = true)", False
        if chosen in ("csv", "tsv") and literal_names and all(
            not is_gzip(f) or f.suffix.lower() == ".gz" for f in files
        ):
            check_not_empty(files)
            sep = "," if chosen == "csv" else "\t"
            # ids are text and the value a float, not inferred from the first rows
            present = set(header_names(files[0], sep))
            types = ", ".join(
                f"{literal(name)}: {'VARCHAR' if dtype == pl.String else 'DOUBLE'}"
                for name, dtype in csv_overrides(kind, columns).items() if name in present
            )
            return (
                f"read_csv({paths}, header = true, delim = {literal(sep)}, union_by_name = true, "
                f"types = {{{types}}})"
            ), False
        obj = to_lazyframe(obj, kind, columns, fmt)
    name = f"rw_input_{kind}_{next(_counter)}"
    # a registered LazyFrame is collected anew by every statement that scans it
    in_memory = not isinstance(obj, pl.LazyFrame)
    if isinstance(obj, (pl.DataFrame, pl.LazyFrame)):
        con.register(name, obj)
    elif type(obj).__module__.split(".")[0] in ("duckdb", "_duckdb"):
        con.register(name, duckdb_arrow(obj))
    else:
        con.register(name, to_lazyframe(obj, kind, columns))
    return quote_identifier(name), in_memory


def _view(
    con: duckdb.DuckDBPyConnection, obj: Any, kind: Kind, columns: Columns, fmt: str | None = None
) -> tuple[str, dict[str, TypeClass], bool]:
    """A raw view of the input; returns its name, its column type classes (schema checked) and
    whether its rows are already in memory."""
    src, in_memory = _source(con, obj, kind, columns, fmt)
    raw = f"rw_raw_{kind}_{next(_counter)}"
    con.execute(f"CREATE TEMP VIEW {quote_identifier(raw)} AS SELECT * FROM {src}")
    rel = con.sql(f"SELECT * FROM {quote_identifier(raw)} LIMIT 0")
    raw_types = {c: str(t) for c, t in zip(rel.columns, rel.types, strict=True)}
    classes = {c: type_class(t) for c, t in raw_types.items()}
    check_schema(classes, raw_types, kind, columns)
    return raw, classes, in_memory


def _normalise(
    con: duckdb.DuckDBPyConnection, raw: str, kind: Kind, columns: Columns, q_str: bool, d_str: bool,
    materialise: bool = False,
) -> str:
    """A view with the standard column names (query_id, doc_id, score | relevance); with
    ``materialise`` a temporary table instead, so that the input is read once, not once by the
    checks and again by the metrics' statement (see :func:`evaluate_duckdb`)."""
    name = f"rw_{kind}_{next(_counter)}"
    qi = quote_identifier(columns.query_id)
    di = quote_identifier(columns.doc_id)
    vi = quote_identifier(value_column(kind, columns))
    out_value = "score" if kind == "run" else "relevance"
    con.execute(
        f"CREATE TEMP {'TABLE' if materialise else 'VIEW'} {quote_identifier(name)} AS SELECT "
        f"{qi}{'::VARCHAR' if q_str else ''} AS query_id, "
        f"{di}{'::VARCHAR' if d_str else ''} AS doc_id, "
        f"{vi}::DOUBLE AS {out_value} FROM {quote_identifier(raw)}"
    )
    return name


def _check_data(con: duckdb.DuckDBPyConnection, view: str, kind: Kind, columns: Columns) -> None:
    v = quote_identifier(view)
    value = "score" if kind == "run" else "relevance"
    # one pass: counts, and distinct (query, doc) hashes: the exact search for a duplicated
    # pair runs only when hashes repeat
    row = con.sql(
        f"SELECT count(*), count(*) FILTER (WHERE query_id IS NULL), "
        f"count(*) FILTER (WHERE doc_id IS NULL), count(*) FILTER (WHERE {value} IS NULL), "
        f"count(*) FILTER (WHERE isnan({value})), count(DISTINCT hash(query_id, doc_id)), "
        # infinite relevance is refused; an infinite score ranks first or last
        + (f"count(*) FILTER (WHERE isinf({value}))" if kind == "qrels" else "0") + f" FROM {v}"
    ).fetchall()[0]
    dup = con.sql(
        f"SELECT query_id, doc_id FROM {v} WHERE query_id IS NOT NULL AND doc_id IS NOT NULL "
        f"GROUP BY ALL HAVING count(*) > 1 LIMIT 1"
    ).fetchall() if row[5] < row[0] else []
    tests: dict[Problem, str] = {
        "null_doc": "doc_id IS NULL", "null_value": f"{value} IS NULL",
        "nan_value": f"isnan({value})", "inf_value": f"isinf({value})",
    }

    def example(problem: Problem) -> object:
        found = con.sql(f"SELECT query_id FROM {v} WHERE {tests[problem]} LIMIT 1").fetchall()
        return found[0][0] if found else None

    check_profile(
        DataProfile(
            rows=row[0], null_query=row[1], null_doc=row[2], null_value=row[3], nan_value=row[4],
            duplicate=(dup[0][0], dup[0][1]) if dup else None, inf_value=row[6],
        ),
        kind,
        columns,
        example,
    )


@contextlib.contextmanager
def _check_threads(con: duckdb.DuckDBPyConnection, raise_threads: bool) -> Iterator[None]:
    """The checks run with one DuckDB thread more than the connection's (unless the caller
    chose ``threads``). Their distinct (query, doc) count is one large hash aggregation, and
    DuckDB's aggregation did about twice the CPU work with 2 threads as with 3 on a 2-core
    machine: 1.3 s against 0.85 s at 10M run rows, 15.2 s against 8.1 s at 100M (measured
    with duckdb 2.0; benchmarks/README.md)."""
    if not raise_threads:
        yield
        return
    threads = int(con.sql("SELECT current_setting('threads')").fetchall()[0][0])
    con.execute(f"SET threads = {threads + 1}")
    try:
        yield
    finally:
        con.execute(f"SET threads = {threads}")


# -- recipe compilation -----------------------------------------------------------------------

_RUN_SQL: dict[str, str] = {
    "count": "count(*)::DOUBLE",
    "relret": "rw_relret(relevance, rnk, {0}, {1})",
    "dcg": "rw_dcg_gain({1}, rnk, {0}, {2}, {3})",
    "cg": "rw_cg_gain({1}, rnk, {0})",
    "ideal_dcg_run": "rw_dcg_gain({1}, {irank}, {0}, {2}, {3})",
    "ap_sum": "rw_ap_sum(relevance, rnk, {cumrel}, {0}, {1})",
    "first_rel": "rw_first_rel(relevance, rnk, {0}, {1})",
    "relret_at_nrel": "rw_relret_at(relevance, rnk, {0}, floor({1} * {nrel} + 0.9))",
    "nonrel_judged": "rw_nonrel_judged(relevance, {0})",
    "unjudged": "rw_unjudged(relevance, rnk, {0})",
    "bpref_sum": "rw_bpref_sum(relevance, {0}, {cumnonrel}, {nrel}, {nnonrel})",
    "iprec": "rw_iprec(rnk, {cumrel}, {nrel}, {1})",
    "bing_sum": "rw_bing_sum(relevance, rnk, {cumrel}, {0})",
    "infap_sum": "rw_infap_sum(relevance, rnk, {cumrel}, {cumnonrel}, {cumpooled}, {0})",
    "rankeff_sum": "rw_rankeff_sum(relevance, {0}, {cumnonrel}, {nnonrel})",
    "rbp_sum": "rw_rbp_sum(relevance, rnk, {0}, {1})",
    "unjudged_rbp_sum": "rw_unjudged_rbp_sum(relevance, rnk, {0})",
    "err_sum": "rw_err_sum(relevance, rnk, {cumlog}, {0}, {1})",
    "npos_ret": "(count(*) FILTER (WHERE {0} > 0))::DOUBLE",
    "ndcg_rel_sum": "rw_ndcg_rel_sum({0}, {cumdcg}, {igd}, {idcgpos})",
    "rndcg_sum": "rw_boundary_sum({cumdcg} / {igd}, {igb})",
    "rndcg_inv": "rw_boundary_sum(1.0 / {igd}, {igb})",
    "g_sum": "rw_g_sum({0}, rnk, {cumgain}, {igx}, {excess})",
    "relstring": "rw_relstring({relchar}, rnk, {0})",
}
_RUN_INPUTS: dict[str, tuple[str, ...]] = {
    "ap_sum": ("cumrel",),
    "iprec": ("cumrel", "nrel"),
    "bing_sum": ("cumrel",),
    "infap_sum": ("cumrel", "cumnonrel", "cumpooled"),
    "bpref_sum": ("cumnonrel", "nrel", "nnonrel"),
    "rankeff_sum": ("cumnonrel", "nnonrel"),
    "relret_at_nrel": ("nrel",),
    "err_sum": ("cumlog",),
    "ideal_dcg_run": ("irank",),
    "ndcg_rel_sum": ("cumdcg", "igd", "idcgpos"),
    "rndcg_sum": ("cumdcg", "igd", "igb"),
    "rndcg_inv": ("igd", "igb"),
    "g_sum": ("cumgain", "igx", "excess"),
    "relstring": ("relchar",),
}
"""Named inputs (window or qrels columns) each run primitive's SQL template reads."""

_QRELS_SQL: dict[str, str] = {
    "nrel": "rw_nrel(relevance, {0})",
    "idcg": "rw_dcg_gain({1}, {irank}, {0}, {2}, {3})",
    "nonrel": "rw_nonrel_judged(relevance, {0})",
    "npos": "(count(*) FILTER (WHERE {0} > 0))::DOUBLE",
    "pos_gain": "coalesce(sum(greatest({0}, 0.0)), 0.0)::DOUBLE",
    "pos_excess": "coalesce(sum(greatest({0} - 1.0, 0.0)), 0.0)::DOUBLE",
    "idcg_pos": "rw_dcg_gain(greatest({0}, 0.0), {irank}, NULL, 'log2', 2.0)",
    "rndcg_bounds": "(count(*) FILTER (WHERE {igb}))::DOUBLE",
    "rndcg_bounds_inv": "rw_boundary_sum(1.0 / {igd}, {igb})",
}
_FN_SQL: dict[str, str] = {
    "div0": "rw_div0({0}, {1})",
    "recip0": "rw_recip0({0})",
    "positive": "rw_positive({0})",
    "div": "({0}) / ({1})",
    "add": "({0}) + ({1})",
    "sub": "({0}) - ({1})",
    "mul": "({0}) * ({1})",
    "min": "least({0}, {1})",
    "floor": "floor({0})",
    "pow": "pow({0}, {1})",
}


class _Compiler:
    def __init__(self) -> None:
        self.qaggs: dict[QrelsAgg, str] = {}
        self.parts: dict[bool, dict[RunAgg, str]] = {}
        self.rowcols: dict[bool, dict[str, str]] = {}
        """Per part: columns computed on the ranked rows (windows over ``rnk``, row values)."""
        self.steps: dict[bool, dict[str, str]] = {}
        """Per part: running sums, as their per-row steps, summed over the ranking window."""
        self.cumrel: dict[Arg, str] = {}
        self.cumnonrel: dict[Arg, str] = {}
        self.cumlog: dict[Arg, str] = {}
        self.iranks: dict[tuple[Gain, str], str] = {}
        self.prefixes: dict[Gain, int] = {}

    def prefix_col(self, name: str, gain: Gain) -> str:
        """Column ``name`` (igd, igx, igb) of the ideal prefix of a gain definition."""
        self.irank_col(gain, "qrels")
        return f"{name}{self.prefixes.setdefault(gain, len(self.prefixes))}"

    def cumrel_col(self, threshold: Arg) -> str:
        return self.cumrel.setdefault(threshold, f"cumrel{len(self.cumrel)}")

    def irank_col(self, gain: Gain, side: str) -> str:
        """Ideal-rank column of a gain definition, on the run rows or the judgments (where
        rw_judgments' irank, by relevance, already serves every monotone gain)."""
        if side == "qrels" and gain.monotone:
            return "irank"
        return self.iranks.setdefault((gain, side), f"irank_{side}{len(self.iranks)}")

    def qrels_sql(self, node: QrelsAgg) -> str:
        extra: dict[str, str] = {}
        if node.op == "idcg":
            extra["irank"] = self.irank_col(as_gain(node.args[1]), "qrels")
        if node.op == "idcg_pos":
            extra["irank"] = self.irank_col(as_gain(node.args[0]), "qrels")
        if node.op in QRELS_PREFIX_OPS:
            extra["igd"] = self.prefix_col("igd", as_gain(node.args[0]))
            extra["igb"] = self.prefix_col("igb", as_gain(node.args[0]))
        return _QRELS_SQL[node.op].format(*map(literal, node.args), **extra)

    def cumlog_col(self, max_rel: Arg) -> str:
        return self.cumlog.setdefault(max_rel, f"cumlog{len(self.cumlog)}")

    def cumnonrel_col(self, threshold: Arg) -> str:
        return self.cumnonrel.setdefault(threshold, f"cumnonrel{len(self.cumnonrel)}")

    def qrels_col(self, node: QrelsAgg) -> str:
        return self.qaggs.setdefault(node, f"q{len(self.qaggs)}")

    def run_col(self, node: RunAgg, part: bool) -> str:
        aggs = self.parts.setdefault(part, {})
        if node not in aggs:
            for need in requires(node):
                self.qrels_col(need)
            self.run_sql(node, part)  # registers the window columns it reads
            aggs[node] = f"r{int(part)}_{len(aggs)}"
        return aggs[node]

    def _input(self, name: str, node: RunAgg, part: bool) -> str:
        """The column holding input ``name`` of a run primitive (registering its window)."""
        rows = self.rowcols.setdefault(part, {})
        steps = self.steps.setdefault(part, {})
        a = node.args
        if name == "cumrel":
            col = self.cumrel_col(a[0])
            steps.setdefault(col, f"rw_rel_step(relevance, {literal(a[0])})")
        elif name == "cumnonrel":
            col = self.cumnonrel_col(a[0])
            steps.setdefault(col, f"rw_nonrel_step(relevance, {literal(a[0])})")
        elif name == "cumpooled":
            col = "cumpooled"
            steps.setdefault(col, "rw_pooled_step(relevance)")
        elif name == "cumlog":
            col = self.cumlog_col(a[1])
            steps.setdefault(col, f"rw_log_continue_step(relevance, {literal(a[1])})")
        elif name == "irank":
            gain = as_gain(a[1])
            col = self.irank_col(gain, "run")
            rows.setdefault(col, ideal_rank_sql(gain))
        elif name == "cumgain":
            gain = as_gain(a[0])
            col = f"{name}{self.prefixes.setdefault(gain, len(self.prefixes))}"
            steps.setdefault(col, gain_sql(gain))
        elif name == "cumdcg":
            gain = as_gain(a[0])
            col = f"{name}{self.prefixes.setdefault(gain, len(self.prefixes))}"
            rows.setdefault(col, f"rw_cum_dcg({gain_sql(gain)}, query_id, rnk)")
        elif name in ("igd", "igx", "igb"):
            col = self.prefix_col(name, as_gain(a[0]))
        elif name == "idcgpos":
            col = self.qrels_col(QrelsAgg("idcg_pos", a[:1]))
        elif name == "excess":
            col = self.qrels_col(QrelsAgg("pos_excess", a[:1]))
        elif name == "relchar":
            col = "relchar"
            rows.setdefault(col, "rw_rel_char(relevance)")
        elif name == "nrel":
            col = self.qrels_col(QrelsAgg("nrel", a[:1]))
        elif name == "nnonrel":
            col = self.qrels_col(QrelsAgg("nonrel", a[:1]))
        else:
            raise InvalidParameterError(f"unknown input {name!r} of run primitive {node.op!r}")
        return col

    def run_sql(self, node: RunAgg, part: bool) -> str:
        extra = {name: self._input(name, node, part) for name in _RUN_INPUTS.get(node.op, ())}
        return _RUN_SQL[node.op].format(*map(literal, node.args), **extra)

    def final(self, node: Node, part: bool) -> str:
        if isinstance(node, Const):
            return literal(node.value)
        if isinstance(node, QrelsAgg):
            return f"qs.{self.qrels_col(node)}"
        if isinstance(node, RunAgg):
            col = f"ag{int(part)}.{self.run_col(node, part)}"
            if node.op in RUN_STRING_OPS:
                return f"coalesce({col}, '')"
            return col if node.op in RUN_NULL_WHEN_EMPTY else f"coalesce({col}, 0.0)"
        return _FN_SQL[node.op].format(*(self.final(a, part) for a in node.args))


_TIE_SQL: dict[TieKey, str] = {
    "score": "score",
    "relevance": "coalesce(relevance, 0.0)",
    "doc_text": "CAST(doc_id AS STRING)",
    "doc": "doc_id",
}


def tie_order(ties: str) -> str:
    """The ORDER BY of a tie policy (:data:`~rankwise.conventions.TIE_ORDERS`, as in
    ``rw_ranked``) over the joined rows. Doc ids compared as text are cast to text (a no-op
    on text ids): integer ids then rank as trec_eval's ``strcmp`` ranks them."""
    return ", ".join(f"{_TIE_SQL[k]} {'DESC' if desc else 'ASC'}" for k, desc in TIE_ORDERS[ties])

UNJUDGED_COLUMN = "__rw_unjudged_queries"
"""The extra output column of :func:`build_sql` with ``count_unjudged``."""


JUDGED_ROW_OPS = frozenset({
    "relret", "dcg", "cg", "ap_sum", "first_rel", "relret_at_nrel", "nonrel_judged", "bpref_sum",
    "iprec", "bing_sum", "infap_sum", "rankeff_sum", "rbp_sum", "err_sum", "npos_ret",
})
"""Run primitives that an unjudged document (NULL relevance) adds nothing to, and whose running
sums take no step there (``rw_*_step`` of NULL is 0): they read only judged rows, each at its
rank among all retrieved documents. (Not: ``count`` and the unjudged counts, which count those
rows; the primitives evaluated at every rank or at ideal-prefix ranks; relstring.)"""


def _ranking_cte(
    name: str, conv: Conventions, judged_only: bool, steps: Mapping[str, str], judged_rows: bool = False
) -> str:
    """The joined rows ranked (``rnk``) with every running sum of ``steps`` (column → per-row
    step), all in one window: one sort per query serves the rank and every running sum.

    ``max_rank`` is applied by the caller on ``rnk`` (running sums are prefix sums, so cutting
    after them changes nothing), except with ``judged_only``: trec_eval cuts the ranking at
    ``max_rank`` first and then drops the unjudged documents, so that case ranks twice.

    With ``judged_rows`` (every primitive reading the rows is in :data:`JUDGED_ROW_OPS`) the
    rows are ranked first, then only the judged ones are kept, with each query's top row (so
    that every run query still reaches the aggregation): the running sums then sum down far
    fewer rows (judged rows, in rank order), and the aggregation reads fewer."""
    order = tie_order(conv.ties)
    # the full ranking, as rnk0, when the ranked rows are filtered before the running sums
    ranked_all = f"(SELECT *, row_number() OVER (PARTITION BY query_id ORDER BY {order}) AS rnk0 FROM joined)"
    source, where, rank = "joined", "", "row_number() OVER w"
    if judged_only:
        # unjudged documents, and those judged negative (trec_eval 10: "in the pool but
        # unjudged"), leave the ranking, and the rest is ranked again
        where = " WHERE relevance >= 0"
        if conv.max_rank is not None:
            source, order = ranked_all, "rnk0"
            where += f" AND rnk0 <= {literal(conv.max_rank)}"
    elif judged_rows:
        # the ranks stay those of the full ranking
        source, order, rank = ranked_all, "rnk0", "rnk0"
        where = " WHERE relevance IS NOT NULL OR rnk0 = 1"
    sums = "".join(f", sum({step}) OVER w AS {col}" for col, step in steps.items())
    return (
        f"{name} AS (SELECT query_id, relevance, {rank} AS rnk{sums} FROM {source}{where} "
        f"WINDOW w AS (PARTITION BY query_id ORDER BY {order} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW))"
    )


def build_sql(
    metrics: Sequence[Metric], conv: Conventions, columns: Columns, run_view: str, qrels_view: str,
    quote: Callable[[str], str] = quote_identifier, *, count_unjudged: bool = False,
) -> str:
    """One SQL statement computing every metric per query from two normalised views, calling
    the ``rw_*`` macros (``rankwise.sql_inline`` inlines them for other engines); ``quote``
    quotes identifiers for the target dialect. With ``count_unjudged`` the result has one more
    column, :data:`UNJUDGED_COLUMN`: how many run queries have no judgment at all."""
    params = conv.as_params()
    comp = _Compiler()
    outputs: list[str] = []
    for m in metrics:
        part = bool(m.resolve(params).get("judged_only", False))
        tree = recipe(m, params)
        for leaf in leaves(tree):  # register run primitives first so their row columns exist
            if isinstance(leaf, RunAgg):
                comp.run_col(leaf, part)
        sql_type = "STRING" if m.spec.value_type == "string" else "DOUBLE"
        outputs.append(f"CAST({comp.final(tree, part)} AS {sql_type}) AS {quote(m.label)}")

    qaggs = ", ".join(f"{comp.qrels_sql(n)} AS {c}" for n, c in list(comp.qaggs.items()))
    qranks = "".join(
        f", {ideal_rank_sql(g)} AS {c}" for (g, side), c in comp.iranks.items() if side == "qrels"
    )
    # the inputs are checked before the statement (the engines' checks, or to_sql's check CTEs)
    ctes = [f"qj AS (SELECT *{qranks} FROM rw_judgments({literal(qrels_view)}, checks := false))"]
    ideal_joins = ""
    if comp.prefixes:
        # the ideal prefix of each gain definition: running IDCG (igd), running excess cost
        # (igx) and run-of-equal-gains boundaries (igb) down the ideal order, joined to the
        # ranked rows at rank = ideal rank
        windows, tables = [], []
        for gain, n in comp.prefixes.items():
            g, irank = f"greatest({gain_sql(gain)}, 0.0)", comp.irank_col(gain, "qrels")
            windows += [
                f"rw_cum_dcg({g}, query_id, {irank}) AS igd{n}",
                f"rw_running_sum(greatest({g} - 1.0, 0.0), query_id, {irank}) AS igx{n}",
                f"rw_ideal_boundary({g}, query_id, {irank}) AS igb{n}",
            ]
            tables.append(
                f"ideal{n} AS (SELECT query_id AS iq{n}, {irank} AS ip{n}, igd{n}, igx{n}, igb{n} "
                f"FROM qjp WHERE {g} > 0)"
            )
            ideal_joins += f" LEFT JOIN ideal{n} ON ideal{n}.iq{n} = r.query_id AND ideal{n}.ip{n} = r.rnk"
        ctes[0] = "qj0" + ctes[0][2:]
        ctes.append(f"qjp AS (SELECT *, {', '.join(windows)} FROM qj0)")
        ctes += tables
        qj = "qjp"
    else:
        qj = "qj"
    ctes += [
        "qs AS (SELECT query_id, count(*) AS n_judged"
        + (", " + qaggs if qaggs else "")
        + f" FROM {qj} GROUP BY query_id)",
    ]
    run, qrels = quote(run_view), quote(qrels_view)
    # the queries present in the run (missing="ignore") are those of the aggregation of the
    # full ranking (part 0): joined, not LEFT JOINed, to the judged ones; with count_unjudged
    # that aggregation also keeps the unjudged queries, to count them. A DISTINCT pass over
    # the run only when no metric ranks the full run.
    from_full = False in comp.parts
    if not from_full and (conv.missing == "ignore" or count_unjudged):
        ctes.append(f"present AS (SELECT DISTINCT query_id FROM {run})")
    base = "qs"
    if conv.missing == "ignore" and not from_full:
        ctes.append("base AS (SELECT qs.* FROM qs SEMI JOIN present USING (query_id))")
        base = "base"
    ctes.append(
        f"joined AS (SELECT r.query_id, r.doc_id, r.score, j.relevance FROM {run} AS r "
        f"LEFT JOIN {qrels} AS j ON r.query_id = j.query_id AND r.doc_id = j.doc_id)"
    )
    joins = []
    for part, aggs in comp.parts.items():
        p = int(part)
        judged_rows = not comp.rowcols.get(part) and all(n.op in JUDGED_ROW_OPS for n in aggs)
        ctes.append(_ranking_cte(f"ranked{p}", conv, part, comp.steps.get(part, {}), judged_rows))
        rowcols = "".join(f", {e} AS {n}" for n, e in comp.rowcols.get(part, {}).items())
        cut = f" WHERE r.rnk <= {literal(conv.max_rank)}" if conv.max_rank is not None else ""
        keep_unjudged = p == 0 and count_unjudged
        ctes.append(
            f"rows{p} AS (SELECT *{rowcols} FROM ranked{p} AS r "
            f"{'LEFT JOIN' if keep_unjudged else 'JOIN'} qs USING (query_id){ideal_joins}{cut})"
        )
        sel = ", ".join(f"{comp.run_sql(n, part)} AS {c}" for n, c in aggs.items())
        if keep_unjudged:
            sel += ", any_value(n_judged) IS NOT NULL AS judged"
        ctes.append(f"ag{p} AS (SELECT query_id, {sel} FROM rows{p} GROUP BY query_id)")
        inner = p == 0 and conv.missing == "ignore"
        joins.append(f"{'JOIN' if inner else 'LEFT JOIN'} ag{p} USING (query_id)")
    if count_unjudged:
        unjudged = (
            "SELECT count(*) FROM ag0 WHERE NOT judged" if from_full
            else "SELECT count(*) FROM present ANTI JOIN qs USING (query_id)"
        )
        outputs.append(f"({unjudged}) AS {quote(UNJUDGED_COLUMN)}")
    return (
        "WITH " + ",\n".join(ctes)
        + f"\nSELECT query_id AS {quote(columns.query_id)}, "
        + ", ".join(outputs)
        + f"\nFROM {base} AS qs " + " ".join(joins)
        + "\nORDER BY 1"
    )


def connect(settings: Mapping[str, Any]) -> duckdb.DuckDBPyConnection:
    """A new DuckDB connection with ``settings``, rankwise's macros installed and DuckDB's
    progress bar off (an evaluation never writes into the caller's stdout)."""
    import duckdb

    try:
        con = duckdb.connect(config=dict(settings))
    except duckdb.Error as exc:
        raise InvalidParameterError(f"DuckDB refused the settings {dict(settings)}: {exc}") from exc
    con.execute("SET enable_progress_bar = false")
    return register(con)  # type: ignore[no-any-return]


def evaluate_duckdb(
    run: Any, qrels: Any, metrics: Sequence[Metric], conv: Conventions, columns: Columns,
    run_format: str | None = None, qrels_format: str | None = None,
    config: Mapping[str, Any] | None = None,
) -> tuple[pl.DataFrame, int]:
    """Per-query values computed by DuckDB, and the number of run queries without judgments.

    ``config`` goes to ``duckdb.connect`` (e.g. ``{"memory_limit": "2GB", "temp_directory":
    "/scratch"}``: DuckDB then spills to disk instead of running out of memory); insertion
    order is not preserved unless asked, which lets DuckDB stream more.

    Inputs not yet in memory (files, LazyFrames) are read once, into temporary tables that the
    checks and the metrics' statement share, unless ``config`` sets a ``memory_limit``: then
    each statement reads them where they lie, and nothing is copied that would have to spill.
    (Measured with duckdb 2.0 on 2 cores, benchmarks/README.md: 10M run rows from Parquet, 6.6 s
    against 7.7 s end to end, for 0.3 GB more peak memory; 100M rows under a 2 GB limit, 127 and
    130 s with the tables against 106 and 118 s without.)"""
    settings: dict[str, Any] = {"preserve_insertion_order": False, **(config or {})}
    con = connect(settings)
    try:
        run_raw, run_types, run_in_memory = _view(con, run, "run", columns, run_format)
        qrels_raw, qrels_types, qrels_in_memory = _view(con, qrels, "qrels", columns, qrels_format)
        q_str, d_str = ids_as_strings(run_types, qrels_types, columns)
        to_tables = not {k.lower() for k in settings} & {"memory_limit", "max_memory"}
        run_view = _normalise(con, run_raw, "run", columns, q_str, d_str, to_tables and not run_in_memory)
        qrels_view = _normalise(
            con, qrels_raw, "qrels", columns, q_str, d_str, to_tables and not qrels_in_memory
        )
        with _check_threads(con, "threads" not in settings):
            _check_data(con, run_view, "run", columns)
            _check_data(con, qrels_view, "qrels", columns)
        sql = build_sql(metrics, conv, columns, run_view, qrels_view, count_unjudged=True)
        result = con.sql(sql).pl()
        if result.height:
            unjudged = int(result[UNJUDGED_COLUMN][0])
        else:  # no judged query in the run: every run query is unjudged
            unjudged = int(con.sql(
                f"SELECT count(DISTINCT query_id) FROM {quote_identifier(run_view)}"
            ).fetchall()[0][0])
        return result.drop(UNJUDGED_COLUMN), unjudged
    finally:
        con.close()
