"""The full SQL of an evaluation, for pasting into an engine: DuckDB or Spark SQL.

Every ``rw_*`` macro is inlined from the same definitions ``rankwise.register`` installs
(``sql/``), so the statement needs nothing installed. Table and column names are validated
and quoted for the dialect; parameter values are validated literals.

>>> sql = to_sql(["nDCG@10", "AP"], dialect="spark", run="logs.run", qrels="logs.qrels")
>>> sql.startswith("WITH rw_run AS (SELECT `query_id` AS query_id")
True
>>> "FROM `logs`.`run`" in sql and "rw_" not in sql.replace("rw_run", "").replace("rw_qrels", "")
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rankwise._duckdb.engine import build_sql
from rankwise.conventions import Columns, Conventions, MissingPolicy, TiePolicy, check_identifier
from rankwise.errors import InvalidParameterError
from rankwise.metric import Metric, parse_metrics
from rankwise.sql_inline import DIALECTS, Dialect, expand


def quoter(dialect: Dialect) -> Callable[[str], str]:
    """Identifier quoting: "double quotes" (DuckDB), `backticks` (Spark)."""
    if dialect == "spark":
        return lambda name: "`" + name.replace("`", "``") + "`"
    return lambda name: '"' + name.replace('"', '""') + '"'


def _table(name: str, quote: Callable[[str], str], what: str) -> str:
    check_identifier(name, what)
    return ".".join(quote(part) for part in name.split("."))


def to_sql(
    metrics: str | Metric | Iterable[str | Metric],
    *,
    dialect: Dialect = "duckdb",
    run: str = "run",
    qrels: str = "qrels",
    ties: TiePolicy = "trec_eval",
    missing: MissingPolicy = "ignore",
    max_rank: int | None = None,
    rel: float = 1,
    judged_only: bool = False,
    query_id: str = "query_id",
    doc_id: str = "doc_id",
    score: str = "score",
    relevance: str = "relevance",
) -> str:
    """One SQL statement giving per-query values of ``metrics`` for the tables ``run`` and
    ``qrels`` (names may be qualified, ``schema.table``), with the same columns, conventions
    and numbers as :func:`rankwise.evaluate`."""
    if dialect not in DIALECTS:
        raise InvalidParameterError(f"dialect must be one of {list(DIALECTS)}, got {dialect!r}")
    parsed = parse_metrics(metrics)
    conv = Conventions(ties=ties, missing=missing, max_rank=max_rank, rel=rel, judged_only=judged_only)
    columns = Columns(query_id=query_id, doc_id=doc_id, score=score, relevance=relevance)
    q = quoter(dialect)
    head = (
        f"WITH rw_run AS (SELECT {q(query_id)} AS query_id, {q(doc_id)} AS doc_id, "
        f"CAST({q(score)} AS DOUBLE) AS score FROM {_table(run, q, 'run table')}),\n"
        f"rw_qrels AS (SELECT {q(query_id)} AS query_id, {q(doc_id)} AS doc_id, "
        f"CAST({q(relevance)} AS DOUBLE) AS relevance FROM {_table(qrels, q, 'qrels table')}),\n"
    )
    body = build_sql(parsed, conv, columns, "rw_run", "rw_qrels", quote=q)
    return expand(head + body.removeprefix("WITH "), dialect)
