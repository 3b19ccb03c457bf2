"""The parts of ``sql/`` written by Python, from the one definition each has in Python:

- ``rw_evaluate`` (``sql/90_evaluate.sql``): the compiler's statement for its metrics
  (:data:`EVALUATE_METRICS`), with the cutoff as the macro's parameter ``k``;
- ``rw_ndeval`` (``sql/90_evaluate.sql``): the same for ndeval's measures over subtopic qrels
  (:data:`NDEVAL_METRICS`);
- ``rw_popularity`` (``sql/90_evaluate.sql``): the popularity family from a table of training
  interactions (:data:`POPULARITY_METRICS`);
- ``rw_feature_diversity`` (``sql/90_evaluate.sql``): the feature-diversity family from a table
  of item features (:data:`FEATURE_DIVERSITY_METRICS`);
- ``rw_unexpectedness`` (``sql/90_evaluate.sql``): the base-run family from a table of the base
  run (:data:`UNEXPECTEDNESS_METRICS`);
- ``rw_category_metrics`` (``sql/65_categories.sql``): the category family from a table of item
  categories (:data:`CATEGORY_METRICS`);
- ``rw_serendipity`` (``sql/90_evaluate.sql``): the serendipity family from a table of training
  interactions and a table of the catalog's items (:data:`SERENDIPITY_METRICS`);
- the tie orders of ``rw_ranked`` and the policies ``rw_check_ties`` accepts, from
  :data:`rankwise.conventions.TIE_ORDERS`.

Each part stands in its file between the lines ``-- generated: <name>`` and
``-- end generated: <name>``. The whole of ``sql/rankwise.sql`` (:data:`BUNDLE`) is generated
too: every family's file in load order, for the DuckDB command line's one ``.read``.
``python -m rankwise._sql.generate`` rewrites them; ``tests/house/test_generated_sql.py`` fails when a
file is out of date.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Callable
from pathlib import Path

from rankwise._sql.compiler import (
    TIE_SQL,
    FloatParam,
    IntParam,
    features_head,
    literal,
    statement,
)
from rankwise._sql.inline import DIALECT_RULES
from rankwise._sql.macros import BUNDLE
from rankwise.conventions import TIE_ORDERS, TIE_POLICIES, Columns, Conventions
from rankwise.metrics.metric import make_metric, parse_metric
from rankwise.metrics.recipes import Output, outputs
from rankwise.primitives import Node, Op, Primitive

EVALUATE_METRICS: tuple[tuple[str, str, bool], ...] = (
    ("NumRet", "NumRet", False), ("NumRel", "NumRel", False), ("NumRelRet", "NumRelRet", False),
    ("AP", "AP", False), ("RR", "RR", False), ("Rprec", "Rprec", False), ("nDCG", "nDCG", False),
    ("nDCG@k", "nDCG", True), ("P@k", "P", True), ("R@k", "R", True), ("Success@k", "Success", True),
)
"""rw_evaluate's columns: (label, metric, takes the cutoff k)."""

_K = 2**62 - 1
"""The cutoff the metrics are built with, then replaced by the parameter ``k``."""


def _symbolic(node: Node) -> Node:
    """``node`` with every value equal to :data:`_K` replaced by the macro parameter ``k``."""
    if not isinstance(node, (Primitive, Op)) and not dataclasses.is_dataclass(node):
        return node
    changes: dict[str, object] = {}
    for f in dataclasses.fields(node):
        value = getattr(node, f.name)
        if isinstance(value, (Primitive, Op)) or dataclasses.is_dataclass(value):
            changes[f.name] = _symbolic(value)  # type: ignore[arg-type]
        elif isinstance(value, int) and not isinstance(value, bool) and value == _K:
            changes[f.name] = IntParam("k", value)
        elif isinstance(value, float) and value == float(_K):
            changes[f.name] = FloatParam("k", value)
    return dataclasses.replace(node, **changes) if changes else node  # type: ignore[type-var, arg-type]


def _macro_columns(metrics: tuple[tuple[str, str, bool], ...], conv: Conventions) -> list[Output]:
    """A table macro's columns: each (label, metric string, takes the cutoff k) as an output whose
    cutoff is the macro's parameter ``k``."""
    cols: list[Output] = []
    for label, name, cut in metrics:
        parsed = parse_metric(f"{name}@1" if cut else name)
        (out,) = outputs([make_metric(parsed.spec, dict(parsed.params), _K if cut else None)], conv)
        cols.append(dataclasses.replace(out, label=label, tree=_symbolic(out.tree)))
    return cols


_RUN = (
    "rw_run AS (SELECT query_id, doc_id, score::DOUBLE AS score FROM query_table(run_table) "
    "WHERE NOT checks OR (rw_check_positive('k', k) AND (SELECT ok FROM rw_check_run(run_table))))"
)
"""A table macro's run (``run_table``), checked unless ``checks := false``, as is ``k``."""
_RUN_QRELS = (
    _RUN,
    "rw_qrels AS (SELECT query_id, doc_id, relevance::DOUBLE AS relevance FROM query_table(qrels_table) "
    "WHERE NOT checks OR (SELECT ok FROM rw_check_qrels(qrels_table)))",
)
"""A table macro's run and qrels (``qrels_table``), checked."""
_TRAIN = (
    "rw_train AS (SELECT query_id, doc_id FROM query_table(train_table) WHERE NOT checks OR (SELECT "
    "rw_train_ok(count(*), count(*) - count(query_id), count(*) - count(doc_id), 'query_id', 'doc_id') "
    "FROM query_table(train_table)))"
)
"""A table macro's training interactions (``train_table``), checked."""
_CATALOG = (
    "rw_catalog AS (SELECT doc_id FROM query_table(catalog_table) WHERE NOT checks OR (SELECT "
    "rw_catalog_ok(count(*), count(*) - count(doc_id)) FROM query_table(catalog_table)))"
)
"""A table macro's catalog (``catalog_table``), checked."""


def _table_macro(name: str, params: str, head: list[str], body: str, recursive: bool = False) -> str:
    """The table macro ``name(params)``: the statement ``body`` (its own WITH) behind the CTEs
    ``head`` that read and check the macro's tables."""
    keyword = "WITH RECURSIVE " if recursive else "WITH "
    sql = keyword + ",\n".join(head) + ",\n" + body.removeprefix(keyword)
    return (
        f"CREATE OR REPLACE TEMP MACRO {name}({params}) AS TABLE\n"
        + "\n".join("    " + line for line in sql.splitlines())
        + ";"
    )


def evaluate_macro() -> str:
    """The ``rw_evaluate`` table macro."""
    conv = Conventions()
    cols = _macro_columns(EVALUATE_METRICS, conv)
    head = [*_RUN_QRELS]
    body = statement(cols, conv, Columns(), "rw_run", "rw_qrels", "qrels_table")
    return _table_macro("rw_evaluate", "qrels_table, run_table, k := 10, checks := true", head, body)


NDEVAL_METRICS: tuple[tuple[str, str, bool], ...] = (
    ("alpha-nDCG@k", "alpha_nDCG", True), ("nERR-IA@k", "nERR_IA", True), ("NRBP", "NRBP", False),
    ("nNRBP", "nNRBP", False), ("MAP-IA", "AP_IA", False), ("P-IA@k", "P_IA", True), ("strec@k", "StRecall", True),
)
"""rw_ndeval's columns: (label, metric, takes the cutoff k). (α-DCG@k and ERR-IA@k divide by a
constant of k computed in Python, so they are not among them.)"""


def ndeval_macro() -> str:
    """The ``rw_ndeval`` table macro: ndeval's measures over subtopic qrels."""
    conv = Conventions()
    cols = _macro_columns(NDEVAL_METRICS, conv)
    head = [
        _RUN,
        "rw_subtopics AS (SELECT query_id, CAST(subtopic AS VARCHAR) AS subtopic, doc_id, relevance::DOUBLE AS relevance "
        "FROM query_table(qrels_table) WHERE NOT checks OR (SELECT ok FROM rw_check_subtopics(qrels_table)))",
        "rw_qrels AS (SELECT query_id, doc_id, max(relevance) AS relevance FROM rw_subtopics GROUP BY query_id, doc_id)",
    ]
    body = statement(
        cols, conv, Columns(subtopic="subtopic"), "rw_run", "rw_qrels", "'rw_qrels'", subtopics="rw_subtopics"
    )
    return _table_macro("rw_ndeval", "qrels_table, run_table, k := 20, checks := true", head, body, recursive=True)


POPULARITY_METRICS: tuple[tuple[str, str, bool], ...] = (
    ("MIUF@k", "MIUF", True), ("Surprisal@k", "Surprisal", True), ("ARP@k", "ARP", True),
    ("ARP(popularity='users')@k", "ARP(popularity='users')", True), ("APLT@k", "APLT", True),
    ("ACLT@k", "ACLT", True), ("TailPercentage@k", "TailPercentage", True), ("MeanPopRank@k", "MeanPopRank", True),
    ("UnseenShare@k", "UnseenShare", True),
    ("EPC@k", "EPC", True), ("EFD@k", "EFD", True),
)
"""rw_popularity's columns: (label, metric, takes the cutoff k)."""


def popularity_macro() -> str:
    """The ``rw_popularity`` table macro: the popularity family from a table of training
    interactions (query_id = the user, doc_id = the item)."""
    conv = Conventions()
    cols = _macro_columns(POPULARITY_METRICS, conv)
    head = [
        *_RUN_QRELS,
        _TRAIN,
    ]
    body = statement(cols, conv, Columns(), "rw_run", "rw_qrels", "qrels_table", train="rw_train")
    return _table_macro("rw_popularity", "qrels_table, run_table, train_table, k := 10, checks := true", head, body)


FEATURE_DIVERSITY_METRICS: tuple[tuple[str, str, bool], ...] = (
    ("ILD@k", "ILD", True), ("ILD(distance='hamming')@k", "ILD(distance='hamming')", True),
    ("ILD(distance='jaccard')@k", "ILD(distance='jaccard')", True), ("ILS@k", "ILS", True),
)
"""rw_feature_diversity's columns: (label, metric, takes the cutoff k)."""


def feature_diversity_macro() -> str:
    """The ``rw_feature_diversity`` table macro: the feature-diversity family from a table of
    item features (doc_id = the item, ``features`` its vector, a list)."""
    conv = Conventions()
    cols = _macro_columns(FEATURE_DIVERSITY_METRICS, conv)
    head = [
        *_RUN_QRELS,
        *features_head(
            "query_table(features_table)", "features", "doc_id", "'doc_id'", DIALECT_RULES["duckdb"].exploded_vector,
            gate="NOT checks OR ",
        ),
    ]
    body = statement(cols, conv, Columns(), "rw_run", "rw_qrels", "qrels_table", features="rw_features")
    return _table_macro(
        "rw_feature_diversity", "qrels_table, run_table, features_table, k := 10, checks := true", head, body
    )


UNEXPECTEDNESS_METRICS: tuple[tuple[str, str, bool], ...] = (("Unexpectedness@k", "Unexpectedness", True),)
"""rw_unexpectedness's columns: (label, metric, takes the cutoff k)."""


def unexpectedness_macro() -> str:
    """The ``rw_unexpectedness`` table macro: the base-run family from a table of the base run
    (query_id, doc_id, score, as the run), ranked as the run is (rankwise's default ties)."""
    conv = Conventions()
    cols = _macro_columns(UNEXPECTEDNESS_METRICS, conv)
    head = [
        *_RUN_QRELS,
        "rw_base_run AS (SELECT query_id, doc_id, score::DOUBLE AS score FROM query_table(base_run_table) "
        "WHERE NOT checks OR (SELECT ok FROM rw_check_run(base_run_table, subject := 'base run')))",
    ]
    body = statement(cols, conv, Columns(), "rw_run", "rw_qrels", "qrels_table", base="rw_base_run")
    return _table_macro(
        "rw_unexpectedness", "qrels_table, run_table, base_run_table, k := 10, checks := true", head, body
    )


CATEGORY_METRICS: tuple[tuple[str, str, bool], ...] = (
    ("CategoryDiversity@k", "CategoryDiversity", True), ("CategoryEntropy@k", "CategoryEntropy", True),
    ("CategoryEntropy(rank_weight='geometric')@k", "CategoryEntropy(rank_weight='geometric')", True),
)
"""rw_category_metrics' columns: (label, metric, takes the cutoff k)."""


def category_macro() -> str:
    """The ``rw_category_metrics`` table macro: the category family from a table of the item
    categories (doc_id = the item, ``category`` one of its categories: a row per pair)."""
    conv = Conventions()
    cols = _macro_columns(CATEGORY_METRICS, conv)
    head = [
        *_RUN_QRELS,
        "rw_categories AS (SELECT DISTINCT doc_id, CAST(category AS VARCHAR) AS category FROM "
        "query_table(categories_table) WHERE NOT checks OR (SELECT rw_categories_ok(count(*), count(*) - count(doc_id), "
        "count(*) - count(category), 'doc_id', 'category') FROM query_table(categories_table)))",
    ]
    body = statement(cols, conv, Columns(), "rw_run", "rw_qrels", "qrels_table", categories="rw_categories")
    return _table_macro(
        "rw_category_metrics", "qrels_table, run_table, categories_table, k := 10, checks := true", head, body
    )


def _policies() -> list[str]:
    """The tie policies: the default first, then by name."""
    return [TIE_POLICIES[0], *sorted(TIE_POLICIES[1:])]


def ranked_order() -> str:
    """``rw_ranked``'s ORDER BY: each policy's keys, as :func:`rankwise._sql.compiler.tie_order`
    writes them, under ``CASE WHEN ties = ...`` (a key shared by every policy stands alone)."""
    terms: list[str] = []
    for i in range(max(len(order) for order in TIE_ORDERS.values())):
        at = {p: order[i] for p, order in TIE_ORDERS.items() if len(order) > i}
        if len(at) == len(TIE_ORDERS) and len(set(at.values())) == 1:
            key, desc = next(iter(at.values()))
            terms.append(f"{TIE_SQL[key]} {'DESC' if desc else 'ASC'}")
            continue
        default, others = _policies()[0], ", ".join(literal(p) for p in _policies()[1:])
        for policy in _policies():
            if policy in at:
                key, desc = at[policy]
                # the default's order also serves a value no policy has (checks := false)
                test = f"ties NOT IN ({others})" if policy == default else f"ties = {literal(policy)}"
                terms.append(f"CASE WHEN {test} THEN {TIE_SQL[key]} END {'DESC' if desc else 'ASC'}")
    return "                ORDER BY " + ",\n                    ".join(terms)


def check_ties() -> str:
    """``rw_check_ties``' test and message."""
    names = ", ".join(literal(p) for p in _policies())
    message = literal(f"rankwise: ties must be one of {names}, got ")
    return f"        WHEN ties IN ({names}) THEN true\n        ELSE error({message} || rw_quoted(ties))"


COVERAGE_METRICS: tuple[tuple[str, str, bool], ...] = (
    ("CatalogCoverage@k", "CatalogCoverage", True), ("CatalogCoverage(count=True)@k", "CatalogCoverage(count=True)", True),
    ("Gini@k", "Gini", True), ("Gini(weight='geometric')@k", "Gini(weight='geometric')", True),
    ("Gini(catalog='listed')@k", "Gini(catalog='listed')", True), ("Entropy@k", "Entropy", True),
    ("Entropy(base='e', per_item=True)@k", "Entropy(base='e', per_item=True)", True),
)
"""rw_coverage's columns: (label, metric, takes the cutoff k)."""


def coverage_macro() -> str:
    """The ``rw_coverage`` table macro: the set-level metrics over a catalog's items (doc_id),
    one row (:func:`rankwise._sql.sets.set_statement`)."""
    from rankwise._sql.sets import set_statement

    conv = Conventions()
    cols = _macro_columns(COVERAGE_METRICS, conv)
    head = [
        *_RUN_QRELS,
        _CATALOG,
    ]
    body = set_statement(cols, conv, Columns(), "rw_run", "rw_qrels", catalog="rw_catalog", group=False)
    return _table_macro("rw_coverage", "qrels_table, run_table, catalog_table, k := 10, checks := true", head, body)


SERENDIPITY_METRICS: tuple[tuple[str, str, bool], ...] = (("Serendipity@k", "Serendipity", True),)
"""rw_serendipity's columns: (label, metric, takes the cutoff k)."""


def serendipity_macro() -> str:
    """The ``rw_serendipity`` table macro: the serendipity family from a table of training
    interactions (query_id = the user, doc_id = the item) and a table of the catalog's items
    (doc_id)."""
    conv = Conventions()
    cols = _macro_columns(SERENDIPITY_METRICS, conv)
    head = [
        *_RUN_QRELS,
        _TRAIN,
        _CATALOG,
    ]
    body = statement(cols, conv, Columns(), "rw_run", "rw_qrels", "qrels_table", train="rw_train", catalog="rw_catalog")
    return _table_macro(
        "rw_serendipity", "qrels_table, run_table, train_table, catalog_table, k := 10, checks := true", head, body
    )


SECTIONS: dict[str, tuple[str, Callable[[], str]]] = {
    "rw_evaluate": ("90_evaluate.sql", evaluate_macro),
    "rw_ndeval": ("90_evaluate.sql", ndeval_macro),
    "rw_popularity": ("90_evaluate.sql", popularity_macro),
    "rw_feature_diversity": ("90_evaluate.sql", feature_diversity_macro),
    "rw_unexpectedness": ("90_evaluate.sql", unexpectedness_macro),
    "rw_coverage": ("90_evaluate.sql", coverage_macro),
    "rw_category_metrics": ("65_categories.sql", category_macro),
    "rw_serendipity": ("90_evaluate.sql", serendipity_macro),
    "rw_ranked order": ("10_ranking.sql", ranked_order),
    "rw_check_ties": ("05_checks.sql", check_ties),
}
"""Each generated part: its file in ``sql/`` and the function that writes it."""


def sql_dir() -> Path:
    return Path(__file__).resolve().parents[3] / "sql"


def render(text: str, name: str, body: str) -> str:
    """``text`` with the part ``name`` replaced by ``body``."""
    pattern = re.compile(
        rf"(^[ \t]*-- generated: {re.escape(name)}\n)(.*?)(^[ \t]*-- end generated: {re.escape(name)}\n)",
        re.S | re.M,
    )
    if not pattern.search(text):
        raise ValueError(f"no generated part {name!r} in the file")
    return pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(3), text, count=1)


def bundle(files: list[tuple[str, str]]) -> str:
    """The text of :data:`BUNDLE`: a header, then each (file name, SQL text) of ``files``, the
    family files in load order, under a line naming it."""
    head = (
        "-- rankwise: every SQL macro in one file, in load order, for the DuckDB command line:\n"
        "--   .read sql/rankwise.sql\n"
        "-- Written by rankwise/_sql/generate.py (python -m rankwise._sql.generate) from the family\n"
        "-- files of sql/, each below under its name: edit those, not this one.\n"
    )
    return head + "".join(f"\n-- ==== {name} ====\n\n{text.rstrip()}\n" for name, text in files)


def stale(directory: Path | None = None, write: bool = False) -> list[str]:
    """The files whose generated parts are out of date (rewritten with ``write``), then
    :data:`BUNDLE` when it is not the family files, their parts up to date, in load order."""
    directory = directory or sql_dir()
    out = []
    texts = {
        path.name: path.read_text(encoding="utf-8")
        for path in sorted(directory.glob("*.sql"), key=lambda p: p.name)
        if path.name != BUNDLE
    }
    for name, (file, make) in SECTIONS.items():
        new = render(texts[file], name, make())
        if new != texts[file]:
            out.append(f"{file}: {name}")
            texts[file] = new
            if write:
                (directory / file).write_text(new, encoding="utf-8")
    path = directory / BUNDLE
    whole = bundle(list(texts.items()))
    if not path.is_file() or path.read_text(encoding="utf-8") != whole:
        out.append(f"{BUNDLE}: every macro")
        if write:
            path.write_text(whole, encoding="utf-8")
    return out


if __name__ == "__main__":
    changed = stale(write=True)
    print("\n".join(changed) if changed else "sql/ is up to date")
    sys.exit(0)
