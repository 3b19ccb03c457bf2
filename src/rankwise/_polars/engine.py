"""The Polars engine: inputs checked and normalised, one ranking, one join, and every metric's
recipe compiled into aggregations over it.

The plan, per evaluation:

1. ``run LEFT JOIN qrels`` on (query, doc), grouped by query: each query's relevance values
   sorted once into a list by the tie policy's keys (``max_rank`` cuts the lists; a
   judged-only ranking keeps the judged entries). The data checks' counts are extra
   aggregates of this group-by and of the qrels' one (:func:`_audit`).
2. Qrels-side primitives aggregated per query (number relevant, ideal DCG).
3. Running values (relevant so far, ...) computed on the sorted lists, which are then
   exploded into ranked rows carrying the qrels-side values they need (e.g. R for
   R-precision); run-side primitives aggregated per query over them.
4. Per-query output: each recipe's formula over the two aggregate tables.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

import polars as pl

from rankwise._polars import primitives as prim
from rankwise.conventions import TIE_ORDERS, Columns, Conventions
from rankwise.errors import InvalidParameterError
from rankwise.inputs.checks import (
    DataProfile,
    Kind,
    Problem,
    TypeClass,
    check_costs,
    check_profile,
    check_schema,
    ids_as_strings,
    subtopic_hint,
)
from rankwise.inputs.faults import check_polars_memory
from rankwise.metrics.metric import Metric
from rankwise.metrics.recipes import Output, outputs
from rankwise.outputs import progress
from rankwise.primitives import (
    IDEAL_SCORE_DIGITS,
    INTENT_SIDES,
    Bound,
    Const,
    Gain,
    IdealPrefix,
    IdealRank,
    Input,
    Node,
    Primitive,
    QrelsPrimitive,
    RowValue,
    RunIdealValue,
    Step,
    children,
    declared,
    ideal_depth,
    leaves,
    prefix_gains,
    qrels_needs,
    read_input,
)

Q, D, S, REL, RANK, IRANK = "__q", "__d", "__s", "__rel", "__rank", "__irank"
RUN_IRANK = "__run_irank"
C = "__c"
"""The run's cost column (:attr:`Columns.cost`; 1 on the ranked rows when the run has none)."""
SUB, COV, NSUB = "__sub", "__cov", "__nsub"
_INDEX = "__index"
"""Each ranked list's positions 0..n-1 (:func:`ranked`, for the ideal prefix's gathers)."""


def type_class(dtype: pl.DataType) -> TypeClass:
    if dtype == pl.String or dtype == pl.Categorical or dtype == pl.Enum:
        return "string"
    if dtype.is_integer():
        return "integer"
    if dtype.is_float() or dtype.is_decimal():
        return "float"
    return "other"


def _schema(lf: pl.LazyFrame) -> tuple[dict[str, TypeClass], dict[str, str]]:
    schema = lf.collect_schema()
    return (
        {name: type_class(dt) for name, dt in schema.items()},
        {name: str(dt) for name, dt in schema.items()},
    )


def _duplicate(lf: pl.LazyFrame) -> tuple[object, object] | None:
    """One (query, doc) pair listed twice, if any (exact)."""
    dup = lf.group_by(Q, D).len().filter(pl.col("len") > 1).select(Q, D).head(1).collect()
    return (dup[Q][0], dup[D][0]) if dup.height else None


def _example(frame: pl.LazyFrame, kind: Kind) -> Callable[[Problem], object]:
    """The id of a query holding a bad row (for error messages only)."""
    value = pl.col(S if kind == "run" else REL)
    tests: dict[Problem, pl.Expr] = {
        "null_doc": pl.col(D).is_null(), "null_value": value.is_null(),
        "nan_value": value.is_nan(), "inf_value": value.is_infinite(),
        "null_subtopic": pl.col(SUB).is_null(),  # subtopic qrels (:func:`_check_subtopics`)
    }

    def find(problem: Problem) -> object:
        found = frame.filter(tests[problem]).select(Q).head(1).collect()
        return found[Q][0] if found.height else None

    return find


@dataclass
class Prepared:
    """Normalised inputs: run (``__q, __d, __s``) and qrels (``__q, __d, __rel``)."""

    run: pl.LazyFrame
    qrels: pl.LazyFrame
    query_dtype: pl.DataType
    columns: Columns
    doc_dtype: pl.DataType = field(default_factory=pl.String)
    subtopics: pl.LazyFrame | None = None
    """The judgments per subtopic (``__q, __d, __sub, __rel``); None: the qrels, one subtopic
    per query (:func:`subtopic_judgments`)."""
    hint: str = ""
    """Ends the error of a duplicated (query, doc) pair of the qrels
    (:func:`~rankwise.inputs.checks.subtopic_hint`)."""

    def count_plans(self) -> list[pl.LazyFrame]:
        """The data checks' counting passes (run, qrels), a group-by per query each, whose
        results :meth:`check` reads (an evaluation counts the same in its own group-bys)."""
        return [
            _audit_counts(self.run.group_by(Q).agg(*_audit(S))),
            _audit_counts(self.qrels.group_by(Q).agg(*_audit(REL))),
        ]

    def check(self, counts: Sequence[pl.DataFrame]) -> None:
        """Raise the specific error for NULL/NaN values or a duplicate (query, doc) pair."""
        checks: tuple[tuple[Kind, pl.DataFrame, pl.LazyFrame], ...] = (
            ("run", counts[0], self.run), ("qrels", counts[1], self.qrels),
        )
        for kind, count, frame in checks:
            self._check_one(kind, count, frame)

    def check_run(self, count: pl.DataFrame | None = None) -> None:
        """The run's data checks alone (a comparison of two runs has no qrels; an evaluation
        checks its qrels first), on its ``count`` if counted already."""
        self._check_one("run", self.count_plans()[0].collect() if count is None else count, self.run)

    def check_qrels(self) -> None:
        """The qrels' data checks alone, before an evaluation: a duplicated (query, doc) pair
        of the qrels multiplies the rows of every join with them (the run's, the greedy ideal's
        steps of the diversity measures), so the evaluation runs on qrels known to hold each
        pair once; each run row then joins one judgment at most, and nothing grows with the
        run's own duplicates, found by the evaluation's counts."""
        self._check_one("qrels", self.count_plans()[1].collect(), self.qrels)

    def _check_one(self, kind: Kind, count: pl.DataFrame, frame: pl.LazyFrame) -> None:
        row = count.row(0, named=True)
        repeats = row.pop("distinct_pairs") < row["rows"]
        duplicate = _duplicate(frame) if repeats else None
        check_profile(
            DataProfile(duplicate=duplicate, **row), kind, self.columns, _example(frame, kind),
            self.hint if kind == "qrels" else "",
        )


def prepare(
    run: pl.LazyFrame, qrels: pl.LazyFrame, columns: Columns, *, check_data: bool = True,
    diversity: Sequence[str] = (),
) -> Prepared:
    """Check schemas (always) and data (NULL/NaN/duplicates, when ``check_data``); rename to
    internal columns; cast ids to strings where run and qrels disagree on their type.
    ``diversity``: the labels of the diversity measures asked for, named by the error of a
    duplicated pair of qrels that hold a subtopic column (:func:`~rankwise.inputs.checks.subtopic_hint`)."""
    run_types, run_raw = _schema(run)
    qrels_types, qrels_raw = _schema(qrels)
    check_schema(run_types, run_raw, "run", columns)
    check_schema(qrels_types, qrels_raw, "qrels", columns)
    q_str, d_str = ids_as_strings(run_types, qrels_types, columns)

    run_schema, qrels_schema = run.collect_schema(), qrels.collect_schema()

    def categorical(c: str) -> bool:
        return any(isinstance(s[c], (pl.Categorical, pl.Enum)) for s in (run_schema, qrels_schema))

    def ids(c: str, as_str: bool) -> pl.Expr:
        e = pl.col(c)
        # Categorical and Enum ids are compared (and tie-broken) as their text
        return e.cast(pl.String) if as_str or categorical(c) else e

    r = run.select(
        ids(columns.query_id, q_str).alias(Q),
        ids(columns.doc_id, d_str).alias(D),
        pl.col(columns.score).cast(pl.Float64).alias(S),
        *([] if columns.cost is None else [pl.col(columns.cost).cast(pl.Float64).alias(C)]),
    )
    j = qrels.select(
        ids(columns.query_id, q_str).alias(Q),
        ids(columns.doc_id, d_str).alias(D),
        pl.col(columns.relevance).cast(pl.Float64).alias(REL),
    )
    subs = None
    if columns.subtopic is not None:
        # subtopic qrels: ndeval's traditional view for every other measure, a document's
        # largest relevance over its subtopics
        subs = qrels.select(
            ids(columns.query_id, q_str).alias(Q),
            ids(columns.doc_id, d_str).alias(D),
            pl.col(columns.subtopic).cast(pl.String).alias(SUB),
            pl.col(columns.relevance).cast(pl.Float64).alias(REL),
        )
        if check_data:
            _check_subtopics(subs, columns)
        j = subs.group_by(Q, D).agg(pl.col(REL).max())
    schema = r.collect_schema()
    prep = Prepared(r, j, schema[Q], columns, schema[D], subs, subtopic_hint(qrels_types, diversity, columns))
    if check_data:
        check_run_costs(prep)
        prep.check(pl.collect_all(prep.count_plans()))
    return prep


def check_run_costs(prep: Prepared) -> None:
    """A run with a cost column: a NULL, NaN, negative or infinite cost is an error naming the
    column and a query holding one."""
    if prep.columns.cost is None:
        return
    c = pl.col(C)
    bad = c.is_null() | c.is_nan() | c.is_infinite() | (c < 0)
    found = prep.run.select(bad.sum().alias("n"), pl.col(Q).filter(bad).first().alias("q")).collect()
    check_costs(int(found["n"][0]), prep.columns, found["q"][0])


def _check_subtopics(subs: pl.LazyFrame, columns: Columns) -> None:
    """Subtopic qrels: their rows (a judgment per subtopic) get every check of qrels
    (:func:`~rankwise.inputs.checks.check_profile`: NULL ids, NULL/NaN/infinite relevance), and a
    NULL subtopic or a document judged twice for one subtopic of a query is an error naming it.
    Checked here, row by row, before a document's judgments are reduced to their largest (which
    would hide a NaN or a negative infinity)."""
    counts = _audit_counts(
        subs.group_by(Q, SUB).agg(*_audit(REL)),
        pl.col("__rows").filter(pl.col(SUB).is_null()).sum().alias("null_subtopic"),
    ).collect()
    row = counts.row(0, named=True)
    duplicate = None
    if row.pop("distinct_pairs") < row["rows"]:
        dup = subs.group_by(Q, D, SUB).len().filter(pl.col("len") > 1).select(Q, D, SUB).head(1).collect()
        duplicate = dup.row(0) if dup.height else None
    check_profile(DataProfile(duplicate=duplicate, **row), "qrels", columns, _example(subs, "qrels"))


def subtopic_judgments(prep: Prepared) -> pl.LazyFrame:
    """The judgments per subtopic: the subtopic qrels, or (ordinary qrels) every judgment of a
    query for one subtopic, as ir-measures' ndeval provider reads 3-column qrels."""
    if prep.subtopics is not None:
        return prep.subtopics
    return prep.qrels.select(Q, D, pl.lit("0").alias(SUB), REL)


def ranking_score(trec_eval: str, score: pl.Expr | None = None) -> pl.Expr:
    """The score the ranking sorts by (``score``: default the joined rows' score column):
    trec_eval 9 holds scores as 32-bit floats (rounded to nearest; beyond the float range,
    ±inf), so scores closer than float precision tie."""
    score = pl.col(S) if score is None else score
    return score.cast(pl.Float32).cast(pl.Float64) if trec_eval == "9" else score


def tie_key_columns(score: pl.Expr, rel: pl.Expr, doc: pl.Expr, doc_text: pl.Expr) -> dict[str, pl.Expr]:
    """The columns the tie policies of :data:`~rankwise.conventions.TIE_ORDERS` name, from
    the score (as the ranking compares it), the relevance, the doc id and the doc id as
    text."""
    return {"score": score, "relevance": rel.fill_null(0.0), "doc_text": doc_text, "doc": doc}


def tie_keys(conv: Conventions, doc_dtype: pl.DataType) -> tuple[list[pl.Expr], list[bool]]:
    """The sort keys and directions of the tie policy (:data:`~rankwise.conventions.TIE_ORDERS`)
    over the joined rows. Integer doc ids compared as text are cast to their decimal text:
    trec_eval's ``strcmp`` order."""
    keys = tie_key_columns(
        ranking_score(conv.trec_eval), pl.col(REL), pl.col(D),
        pl.col(D).cast(pl.String) if doc_dtype.is_integer() else pl.col(D),
    )
    order = TIE_ORDERS[conv.ties]
    return [keys[k] for k, _ in order], [desc for _, desc in order]


ELEMENT = pl.element()
"""The relevance of a ranked document, inside a per-query sequence expression."""

SEQ_RANK = pl.int_range(1, pl.len() + 1, dtype=pl.Int64)
"""The rank of a ranked document, inside a per-query sequence expression."""

SEQ_ONE = pl.repeat(1.0, pl.len(), dtype=pl.Float64)
"""A cost of 1 for every element of a ranked list (inside ``list.eval``)."""


def rank_lists(prep: Prepared, conv: Conventions, *, docs: bool = False, scores: bool = False) -> pl.LazyFrame:
    """One row per run query: ``__q`` and its relevance values (``__rel``; and doc ids,
    ``__d``, with ``docs``; the scores the ranking compares, ``__s``, with ``scores``) in
    ranked order, cut at ``max_rank``.

    The run is joined with the qrels and each query's values are sorted once by the tie
    policy's keys: one small sort per query, no global sort, no window."""
    keys, descending = tie_keys(conv, prep.doc_dtype)
    value = {S: ranking_score(conv.trec_eval)}
    ordered = [
        value.get(c, pl.col(c)).sort_by(keys, descending=descending).alias(c)
        for c in _carried(docs, scores, prep.columns.cost is not None)
    ]
    if conv.max_rank is not None:
        ordered = [e.head(conv.max_rank) for e in ordered]
    # the audit columns are dropped by the optimiser when unused. The lists are sorted by
    # query (a sort of one row per query): their ranked rows then arrive sorted by query, and
    # the group-by over them aggregates contiguous slices instead of hashing every row
    # (:func:`ranked`)
    joined = prep.run.join(prep.qrels, on=[Q, D], how="left")
    return joined.group_by(Q).agg(*ordered, *_audit(S)).sort(Q)


def _audit(value: str) -> list[pl.Expr]:
    """Per query, over all its rows (before ``max_rank``): the data checks' counts, computed
    in a group-by the evaluation runs anyway, so that the checks cost no pass of their own."""
    return [
        pl.len().alias("__rows"),
        # distinct 64-bit hashes of the doc ids: a third of the CPU of distinct strings. A
        # collision can only lower the count; then :meth:`Prepared.check` looks for a repeated
        # pair exactly (:func:`_duplicate`) and finds none
        pl.col(D).hash().n_unique().alias("__distinct_docs"),
        pl.col(D).null_count().alias("__null_doc"),
        pl.col(value).null_count().alias("__null_value"),
        pl.col(value).is_nan().sum().alias("__nan_value"),
        # infinite relevance is refused; an infinite score ranks first or last
        (pl.col(value).is_infinite().sum() if value == REL else pl.lit(0, pl.UInt32)).alias("__inf_value"),
    ]


def _audit_counts(groups: pl.LazyFrame, *extra: pl.Expr) -> pl.LazyFrame:
    """One input's data-check counts (rows, NULL ids, NULL/NaN values, distinct (query, doc)
    pairs) from the :func:`_audit` columns of its per-query groups."""
    return groups.select(
        pl.col("__rows").sum().alias("rows"),
        pl.col("__rows").filter(pl.col(Q).is_null()).sum().alias("null_query"),
        pl.col("__null_doc").sum().alias("null_doc"),
        pl.col("__null_value").sum().alias("null_value"),
        pl.col("__nan_value").sum().alias("nan_value"),
        pl.col("__inf_value").sum().alias("inf_value"),
        pl.col("__distinct_docs").sum().alias("distinct_pairs"),
        *extra,
    )


def _carried(docs: bool, scores: bool = False, cost: bool = False) -> list[str]:
    return [REL, *([D] if docs else []), *([S] if scores else []), *([C] if cost else [])]


def ranked(
    prep: Prepared,
    conv: Conventions,
    judged_only: bool,
    sequences: Mapping[str, pl.Expr] | None = None,
    *,
    docs: bool = False,
    scores: bool = False,
    per_query: pl.LazyFrame | None = None,
    lists: pl.LazyFrame | None = None,
    at_rank: Sequence[pl.LazyFrame] = (),
) -> pl.LazyFrame:
    """The run joined with relevance and ranked: columns ``__q, __rel, __rank`` (and ``__d``
    with ``docs``, ``__s`` with ``scores``), one row per ranked document, from
    :func:`rank_lists` (or ``lists``, its result, made with the same ``docs`` and ``scores``).

    Judged-only rankings keep the judged documents of each list and rank them anew. The
    ``sequences`` — expressions over a query's ranked relevance values (:data:`ELEMENT`) and
    ranks (:data:`SEQ_RANK`), such as running counts — are computed on the ordered lists
    before they are exploded back into rows, so no window re-sorts them. ``per_query``
    columns (keyed by ``__q``; an inner join) are joined per query before the explosion.
    ``at_rank`` frames (keyed by ``__q``) hold per-query lists whose i-th value belongs to
    rank i (e.g. the ideal prefix, :func:`ideal_lists`): each row gets the value at its rank,
    NULL beyond the list or without one, read from the lists before the explosion (a join of
    the ranked rows by (query, rank) cost 3 times as much)."""
    costs = prep.columns.cost is not None
    carried = _carried(docs, scores, costs)
    if lists is None:
        lists = rank_lists(prep, conv, docs=docs, scores=scores)
    if judged_only:
        # trec_eval -J: unjudged documents, and those judged negative (trec_eval 10 reads a
        # negative judgment as "in the pool but unjudged"), leave the ranking.
        kept = pl.col(REL).list.eval(pl.int_range(pl.len()).filter(ELEMENT >= 0))
        lists = lists.with_columns(*[pl.col(c).list.gather(kept) for c in carried])
    seq = {RANK: SEQ_RANK, **(sequences or {})}
    lists = lists.with_columns(*[pl.col(REL).list.eval(e).alias(k) for k, e in seq.items()])
    if per_query is not None:
        lists = lists.join(per_query, on=Q, how="inner", maintain_order="left")
    ranked_values: list[str] = []
    if at_rank:
        # each list's positions 0..n-1, computed once for every gather (a list.eval in each
        # gather's expression ran once per gather: Polars does not share it)
        lists = lists.with_columns(pl.col(RANK).list.eval(pl.element() - 1).alias(_INDEX))
    for table in at_rank:
        schema = table.collect_schema()
        names = [c for c in schema.names() if c != Q]
        lists = lists.join(table, on=Q, how="left", maintain_order="left").with_columns(
            pl.col(c).fill_null(pl.lit([], dtype=schema[c])).list.gather(pl.col(_INDEX), null_on_oob=True)
            for c in names
        )
        ranked_values += names
    if at_rank:
        lists = lists.drop(_INDEX)
    rows = lists.explode(*carried, *seq, *ranked_values)
    return rows if costs else rows.with_columns(pl.lit(1.0).alias(C))


def by_query(rows: pl.LazyFrame) -> pl.LazyFrame:
    """``rows`` (from :func:`ranked`, joined since only with ``maintain_order="left"``) marked
    as sorted by query, which they are (:func:`rank_lists` sorts the lists): a group-by by
    query then aggregates contiguous slices, 2-3x faster than hashing each row for many
    metrics (e.g. ``all_trec``)."""
    return rows.with_columns(pl.col(Q).set_sorted())


def _key(node: Primitive, part: bool | None = None) -> str:
    if node.side in INTENT_SIDES:
        return f"i{int(bool(part))}|{node!r}"
    prefix = "q" if node.side == "qrels" else f"r{int(bool(part))}"
    return f"{prefix}|{node!r}"


def _irank_name(gain: Gain) -> str:
    """Ideal-rank column for a gain definition (one for every monotone gain)."""
    return IRANK if gain.monotone else f"{IRANK}|{gain!r}"


def _prefix(value: IdealPrefix) -> str:
    """The column of a value of the ideal prefix (joined to the ranked rows at their rank)."""
    return f"__{value!r}"


def _prefix_columns(gain: Gain) -> dict[str, pl.Expr]:
    """Every value of the ideal prefix of a gain definition (each declared
    :class:`~rankwise.primitives.IdealPrefix`), windows over the judgments in the ideal order."""
    columns = {}
    for cls in declared(IdealPrefix):
        value = cls(gain)  # type: ignore[call-arg]
        assert isinstance(value, IdealPrefix)
        columns[_prefix(value)] = bind(value, pl.col(REL), pl.lit(None), lambda name, given: _ideal_rank_col(given))
    return columns


def _ideal_rank_col(given: Input) -> pl.Expr:
    if isinstance(given, IdealRank):
        return pl.col(_irank_name(given.g))
    return _no_input("", given)


@functools.cache
def _params(fn: Callable[..., pl.Expr]) -> tuple[str, ...]:
    return tuple(inspect.signature(fn).parameters)


def bind(
    obj: Bound, rel: pl.Expr, rnk: pl.Expr, input_of: Callable[[str, Input], pl.Expr], cost: pl.Expr | None = None
) -> pl.Expr:
    """Call ``obj``'s Polars function (:mod:`rankwise._polars.primitives`, by its binding name)
    with its row columns ``rel``, ``rnk`` and ``cost`` (default: the ranked rows' cost column),
    the plan's query and score columns, its inputs (``input_of(name, input)``) and its fields,
    each by parameter name (:func:`bind_rows`)."""
    rows = {"rel": rel, "rnk": rnk, "qid": pl.col(Q), "score": pl.col(S), "cost": pl.col(C) if cost is None else cost}
    return bind_rows(obj, rows, input_of)


def bind_rows(obj: Bound, rows: Mapping[str, pl.Expr], input_of: Callable[[str, Input], pl.Expr]) -> pl.Expr:
    """Call ``obj``'s Polars function by its binding name with the row columns ``rows``
    (``rel``, ``rnk``, ``qid``, ``score``, ``cost``: the plan's columns, or a group's rows
    inside ``list.eval`` for the expression API), its inputs (``input_of``) and its fields,
    each by parameter name; a :class:`Gain` field is passed as the gain of ``rel`` (a
    :func:`~rankwise._polars.primitives.row` term)."""
    fn = getattr(prim, obj.binding())
    given, values = obj.inputs(), obj.values()
    kwargs: dict[str, object] = {}
    for name in _params(fn):
        if name in rows:
            kwargs[name] = rows[name]
        elif name in given:
            kwargs[name] = input_of(name, given[name])
        else:
            value = values[name]
            kwargs[name] = prim.row(prim.gain(rows["rel"], value)) if isinstance(value, Gain) else value
    return fn(**kwargs)  # type: ignore[no-any-return]


def _no_input(name: str, given: Input) -> pl.Expr:
    raise InvalidParameterError(f"{given!r} cannot be computed here")


@dataclass
class _Terms:
    """Row-wise terms shared by the aggregates of one group-by (the primitives'
    :func:`~rankwise._polars.primitives.row` terms: the gain, relevant or not, g / discount of
    the rank, precision at the rank, ...), each computed once as a column of the rows before
    the group-by: Polars does not share common subexpressions between a group-by's
    aggregations (``all_trec`` computed g / log2(rank + 1) once for each of its 10 cutoffs, and
    the gain 20 times), about 20% of its time."""

    columns: dict[str, pl.Expr] = field(default_factory=dict)
    names: dict[bytes, str] = field(default_factory=dict)
    """Each term's column, by the term (serialised)."""

    def hoist(self, term: pl.Expr) -> pl.Expr:
        """The column of ``term`` (added on first use)."""
        col = self.names.setdefault(term.meta.serialize(), f"__term{len(self.names)}")
        self.columns.setdefault(col, term)
        return pl.col(col)

    def bind(self, obj: Bound, rel: pl.Expr, rnk: pl.Expr, input_of: Callable[[str, Input], pl.Expr]) -> pl.Expr:
        """:func:`bind`, its row terms read from these columns (its inputs' own terms are
        not: they are not terms of these rows)."""

        def own(name: str, given: Input) -> pl.Expr:
            with prim.hoisting(None):
                return input_of(name, given)

        with prim.hoisting(self.hoist):
            return bind(obj, rel, rnk, own)

    def add_to(self, rows: pl.LazyFrame) -> pl.LazyFrame:
        """``rows`` with the terms' columns, in the order registered (a term may read an
        earlier one: the gain inside g / discount)."""
        for col, term in self.columns.items():
            rows = rows.with_columns(term.alias(col))
        return rows


def _qrels_expr(node: Primitive, terms: _Terms | None = None) -> pl.Expr:
    """The aggregate of a qrels primitive over a query's judgments (its row terms in
    ``terms``, when given, else inline)."""

    def input_of(name: str, given: Input) -> pl.Expr:
        if isinstance(given, IdealPrefix):
            return pl.col(_prefix(given))
        return _ideal_rank_col(given)

    if terms is None:
        return bind(node, pl.col(REL), pl.lit(None), input_of)
    return terms.bind(node, pl.col(REL), pl.lit(None), input_of)


@dataclass
class _Part:
    """Run-side work for one ranking (full, or judged-only)."""

    aggs: dict[str, pl.Expr] = field(default_factory=dict)
    seqs: dict[str, pl.Expr] = field(default_factory=dict)
    """Columns computed on each query's ranked list (running sums, ideal ranks)."""
    needs: set[str] = field(default_factory=set)
    """Qrels-side values joined to every ranked row."""
    windows: dict[str, pl.Expr] = field(default_factory=dict)
    """Row values over a window of the ranked rows (e.g. a tie group), computed on the rows
    before they are aggregated."""
    scores: bool = False
    """Whether an input reads the score (carried along the ranked rows only then)."""
    run_ideal: dict[str, RunIdealValue] = field(default_factory=dict)
    """Values of the run-ordered ideal, joined to the ranked rows by document."""
    empty: dict[str, float | str | None] = field(default_factory=dict)
    terms: _Terms = field(default_factory=_Terms)
    """The aggregates' shared row terms."""
    costs: bool = False
    """Whether the run has a cost column: a running sum that reads the cost (IFT's rate) is
    then a window over the ranked rows (the ranked lists carry the relevance only)."""

    def add(self, node: Primitive, key: str, qaggs: dict[str, pl.Expr], qterms: _Terms) -> None:
        """Register a run primitive's aggregate, with the sequences and qrels values it reads."""
        if key in self.aggs:
            return

        def step(given: Step) -> pl.Expr:
            if self.costs and reads_cost(given):
                col = f"__row|{given!r}"
                self.windows[col] = running_window(given)
                return pl.col(col)
            col = f"__seq|{given!r}"
            self.seqs[col] = running(given)
            return pl.col(col)

        def row_value(given: RowValue) -> pl.Expr:
            if not given.window:
                return bind(given, pl.col(REL), pl.col(RANK), _no_input)
            col = f"__row|{given!r}"
            self.windows[col] = bind(given, pl.col(REL), pl.col(RANK), _no_input)
            return pl.col(col)

        def ideal_rank(given: IdealRank) -> pl.Expr:
            col = _irank_name(given.g)
            self.seqs[col] = prim.ideal_rank(ELEMENT, given.g)
            return pl.col(col)

        def run_ideal_value(given: RunIdealValue) -> pl.Expr:
            col = f"__rideal|{given!r}"
            self.run_ideal[col] = given
            return pl.col(col)

        def qrels(given: QrelsPrimitive) -> pl.Expr:
            col = _key(given)
            if col not in qaggs:
                qaggs[col] = _qrels_expr(given, qterms)
            self.needs.add(col)
            return pl.col(col)

        def input_of(name: str, given: Input) -> pl.Expr:
            self.scores |= "score" in getattr(given, "reads", ())
            return read_input(
                given, step=step, row_value=row_value, ideal_rank=ideal_rank,
                ideal_prefix=lambda g: pl.col(_prefix(g)), run_ideal_value=run_ideal_value,
                # read through the values of that order only
                run_ideal_rank=lambda g: _no_input(name, g), qrels=qrels,
            )

        self.aggs[key] = self.terms.bind(node, pl.col(REL), pl.col(RANK), input_of)
        self.empty[key] = node.empty


def running(step: Step) -> pl.Expr:
    """A running sum down a query's ranked list (inside ``list.eval``); its step may read other
    running sums (a step of the running gain, say), which are summed first. The lists carry
    the relevance only: every document costs 1 here (a run without a cost column)."""
    return bind(step, ELEMENT, SEQ_RANK, _step_input, SEQ_ONE).cum_sum()


def _step_input(name: str, given: Input) -> pl.Expr:
    if isinstance(given, Step):
        return running(given)
    return _no_input(name, given)


def reads_cost(step: Step) -> bool:
    """Whether a running sum reads the cost column (itself, or a running sum it reads)."""
    return "cost" in step.reads or any(isinstance(i, Step) and reads_cost(i) for i in step.inputs().values())


def running_window(step: Step) -> pl.Expr:
    """A running sum down the ranking as a window over a query's ranked rows (ordered by rank),
    which read the cost column; the running sums it reads are windows too."""
    return bind(step, pl.col(REL), pl.col(RANK), _window_input).cum_sum().over(Q, order_by=RANK)


def _window_input(name: str, given: Input) -> pl.Expr:
    if isinstance(given, Step):
        return running_window(given)
    return _no_input(name, given)


def _value(node: Node, part: bool) -> pl.Expr:
    """A formula tree over the per-query aggregates' columns."""
    if isinstance(node, Const):
        return pl.lit(node.value, dtype=pl.Float64)
    if isinstance(node, Primitive):
        return pl.col(_key(node, part))
    fn = getattr(prim, node.binding())
    return fn(*(_value(a, part) for a in children(node)))  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Plans:
    """An evaluation's lazy plans, built on one ranking so that one collection runs it once."""

    result: pl.LazyFrame
    """Per-query values: query column + one column per metric."""
    counts: tuple[pl.LazyFrame, pl.LazyFrame]
    """The data checks' counts of the run (with ``unjudged``, how many run queries have no
    judgment at all) and of the qrels."""

    def collect(self, engine: Literal["auto", "in-memory", "streaming"] = "auto") -> tuple[pl.DataFrame, pl.DataFrame]:
        """Collect at once the run's counts and the values (the qrels are checked before an
        evaluation, :meth:`Prepared.check_qrels`: their counts are not collected, and their
        audit aggregates drop out of the plan)."""
        run_counts, result = pl.collect_all([self.counts[0], self.result], engine=engine)
        return run_counts, result


ROWS_PER_CHUNK = 500_000
"""Run rows per query group when the inputs are held in memory (:func:`evaluate_eager`)."""

SMALL_ROWS = 250_000
"""Below this many run rows, held in memory, Polars' in-memory engine evaluates: its start is
cheaper than the streaming engine's (50 queries x 1,000 documents: about 15 ms of CPU per
evaluation against 17-25 ms); from about a million rows on, the streaming engine is faster
(``all_trec`` on a million rows: 1.8 s of CPU against 2.2 s)."""

_CHUNK = "__chunk"


def _partitioned(frame: pl.LazyFrame, folder: Path, n: int) -> list[pl.LazyFrame]:
    """``frame``'s rows written once, streaming, into ``n`` groups of Arrow IPC files under
    ``folder`` by a hash of the query id, and each group scanned back (an empty frame for a
    group without rows). One read of the inputs and one write, instead of a read of the whole
    inputs for each group (100M rows in 10 groups: 10 reads of 100M rows)."""
    key = (pl.col(Q).hash(seed=0) % n).alias(_CHUNK)
    frame.with_columns(key).sink_ipc(pl.PartitionBy(folder, key=_CHUNK, include_key=False), mkdir=True)
    groups = []
    for c in range(n):
        files = sorted(p for p in (folder / f"{_CHUNK}={c}").glob("*") if p.is_file())
        groups.append(pl.scan_ipc(files) if files else frame.clear())
    return groups


_COSTLY_PLAN = ("JOIN", "AGGREGATE", "SORT", "UNION", "UNIQUE", "EXPLODE", "PYTHON")
"""Nodes of a plan whose rows a count would compute again (a caller's pipeline)."""


def _cheap_to_count(frame: pl.LazyFrame) -> bool:
    """Whether counting ``frame``'s rows costs next to nothing: a scan of files or an in-memory
    frame under projections and filters (Polars counts from the metadata or the height), not a
    pipeline with joins, aggregations or sorts that a count would run once more."""
    plan = frame.explain(optimized=False).upper()
    return not any(word in plan for word in _COSTLY_PLAN)


def _query_groups(
    prep: Prepared, query_chunks: int | None, folder: Path | None = None
) -> tuple[Prepared, list[Prepared], int | None]:
    """The inputs split into query groups by a hash of the query id: ``query_chunks`` groups
    written once into files under ``folder`` (:func:`_partitioned`) and each read back alone,
    or (``None``) the inputs read once into memory and split into groups of about
    :data:`ROWS_PER_CHUNK` run rows. Also returns ``prep`` as it then is, and the number of
    run rows when they were read (``None`` with ``query_chunks``)."""
    counted = None
    if (query_chunks is None or query_chunks == 1) and _cheap_to_count(prep.run):
        # the rows held at once, checked against the memory left before they are read (Polars'
        # allocation failure would abort the process): a count from the files' metadata, a
        # light scan of a CSV file, or an in-memory frame's height
        counted = prep.run.select(pl.len()).collect().item()
        check_polars_memory(counted, counted if query_chunks == 1 else min(counted, ROWS_PER_CHUNK))
    if query_chunks == 1:
        return prep, [prep], None
    if query_chunks is not None:
        assert folder is not None
        runs = _partitioned(prep.run, folder / "run", query_chunks)
        judged = _partitioned(prep.qrels, folder / "qrels", query_chunks)
        per_sub = None if prep.subtopics is None else _partitioned(prep.subtopics, folder / "subtopics", query_chunks)
        return prep, [
            replace(prep, run=runs[c], qrels=judged[c], subtopics=None if per_sub is None else per_sub[c])
            for c in range(query_chunks)
        ], None
    run, qrels = pl.collect_all([prep.run, prep.qrels])
    if counted is None:  # a pipeline of the caller's, counted once it is read
        check_polars_memory(run.height, min(run.height, ROWS_PER_CHUNK))
    subs = None if prep.subtopics is None else prep.subtopics.collect()
    prep = replace(prep, run=run.lazy(), qrels=qrels.lazy(), subtopics=None if subs is None else subs.lazy())
    n = max(1, -(-run.height // ROWS_PER_CHUNK))
    if n == 1:
        return prep, [prep], run.height
    key = (pl.col(Q).hash(seed=0) % n).cast(pl.UInt32).alias(_CHUNK)  # 4 bytes a row, not 8
    run, qrels = run.with_columns(key), qrels.with_columns(key)
    subs = None if subs is None else subs.with_columns(key)
    return prep, [
        replace(
            prep,
            run=run.lazy().filter(pl.col(_CHUNK) == c).drop(_CHUNK),
            qrels=qrels.lazy().filter(pl.col(_CHUNK) == c).drop(_CHUNK),
            subtopics=None if subs is None else subs.lazy().filter(pl.col(_CHUNK) == c).drop(_CHUNK),
        )
        for c in range(n)
    ], run.height


def evaluate_eager(
    prep: Prepared, metrics: Sequence[Metric], conv: Conventions, columns: Columns,
    query_chunks: int | None = None,
) -> tuple[pl.DataFrame, int]:
    """Per-query values and the number of unjudged run queries; the data checks' errors are
    raised before any value is returned: the qrels' before the evaluation
    (:meth:`Prepared.check_qrels`), the run's on the counts of every group summed
    (:meth:`Prepared.check_run`).

    The queries are evaluated in groups (by a hash of the query id), one after the other:
    by default the inputs are read once and split into groups of about half a million run rows
    (smaller group-bys are faster and hold less); with ``query_chunks`` = n, the inputs are
    written once (streaming) into n groups of Arrow IPC files in a temporary folder, and each
    group is read back alone, so that only about 1/n of them is ever held: for inputs larger
    than memory. Those groups run on Polars' streaming engine (its per-query group-by still
    holds a whole group: the group size, not the engine, bounds the memory). The folder, in
    the system's temporary directory (``TMPDIR``), is removed before this returns or raises."""
    with contextlib.ExitStack() as stack:
        folder = None
        if query_chunks is not None and query_chunks > 1:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="rankwise-groups-")))
        return _evaluate_groups(prep, metrics, conv, columns, query_chunks, folder)


def _evaluate_groups(
    prep: Prepared, metrics: Sequence[Metric], conv: Conventions, columns: Columns,
    query_chunks: int | None, folder: Path | None,
) -> tuple[pl.DataFrame, int]:
    with progress.task("reading the inputs"):
        prep, groups, rows = _query_groups(prep, query_chunks, folder)
    check_run_costs(prep)
    # the qrels are checked before any work that grows with their duplicates (:meth:`Prepared.check_qrels`)
    if prep.subtopics is not None:
        _check_subtopics(prep.subtopics, columns)
    else:
        prep.check_qrels()
    engine: Literal["auto", "in-memory", "streaming"] = "streaming" if rows is None else (
        "in-memory" if rows < SMALL_ROWS else "auto"
    )
    counts: list[pl.DataFrame] = []
    results: list[pl.DataFrame] = []
    with progress.task("query groups" if len(groups) > 1 else "evaluating", total=len(groups) if len(groups) > 1 else None) as step:
        for i, group in enumerate(groups):
            step.at(i)
            run_counts, result = evaluation_plans(group, metrics, conv, columns).collect(engine)
            counts.append(run_counts)
            results.append(result)
    # each group's counts are one row of sums
    run_total = counts[0] if len(counts) == 1 else pl.concat(counts).sum()
    prep.check_run(run_total.drop("unjudged"))
    result = results[0] if len(results) == 1 else pl.concat(results).sort(columns.query_id)
    return result, int(run_total["unjudged"].item())


def evaluate_lazy(prep: Prepared, metrics: Sequence[Metric], conv: Conventions, columns: Columns) -> pl.LazyFrame:
    """Per-query metric values as a LazyFrame (query column + one Float64 column per metric)."""
    return evaluation_plans(prep, metrics, conv, columns).result


def evaluation_plans(prep: Prepared, metrics: Sequence[Metric], conv: Conventions, columns: Columns) -> Plans:
    """The plans of :class:`Plans`: the per-query values, the unjudged count and the checks."""
    # metrics that differ only in their spelling are equal: the labels (the result's column
    # names) are part of the key
    labelled = tuple((m, m.label) for m in metrics)
    return _plans(prep, _compiled_metrics(labelled, conv, prep.columns.cost is not None), conv, columns)


def output_plans(prep: Prepared, outs: Sequence[Output], conv: Conventions, columns: Columns) -> Plans:
    """The plans of :class:`Plans` for output columns (any formula trees)."""
    return _plans(prep, _compile(outs, prep.columns.cost is not None), conv, columns)


@dataclass(frozen=True)
class _Compiled:
    """The expressions of an evaluation, which depend on its outputs and on whether the run
    has costs, not on the data (:func:`_compile`); read, never changed, by :func:`_plans`."""

    qaggs: dict[str, pl.Expr]
    """The judgments' per-query aggregates."""
    qterms: _Terms
    """Their shared row terms."""
    parts: dict[bool, _Part]
    """The run-side work of each ranking (full, judged-only)."""
    intent_leaves: dict[str, tuple[Primitive, bool]]
    prefixes: frozenset[Gain]
    """The gains whose ideal prefix is read."""
    iranks: dict[str, pl.Expr]
    """The judgments' ideal ranks (a column per ideal order)."""
    values: tuple[pl.Expr, ...]
    """The output columns, from the per-query aggregates."""


@functools.lru_cache(maxsize=64)
def _compiled_metrics(metrics: tuple[tuple[Metric, str], ...], conv: Conventions, costs: bool) -> _Compiled:
    """:func:`_compile` of the metrics' outputs (each metric with its label), kept for the next
    evaluation of the same metrics, labels and conventions: building the expressions is about
    1.5 ms of CPU, 5% of an evaluation of 1,000 queries x 100 documents."""
    return _compile(outputs([m for m, _ in metrics], conv), costs)


def _compile(outs: Sequence[Output], costs: bool) -> _Compiled:
    """The expressions of the output columns ``outs`` (formula trees over primitives)."""
    qaggs: dict[str, pl.Expr] = {}
    qterms = _Terms()
    qnodes: set[Primitive] = set()
    parts: dict[bool, _Part] = {}
    run_leaves: list[Primitive] = []
    intent_leaves: dict[str, tuple[Primitive, bool]] = {}
    for o in outs:
        for leaf in leaves(o.tree):
            if leaf.side in INTENT_SIDES:
                intent_leaves.setdefault(_key(leaf, o.judged_only), (leaf, o.judged_only))
                continue
            if leaf.side == "qrels":
                if _key(leaf) not in qaggs:
                    qaggs[_key(leaf)] = _qrels_expr(leaf, qterms)
                qnodes.add(leaf)
                continue
            run_leaves.append(leaf)
            qnodes.update(qrels_needs(leaf))
            parts.setdefault(o.judged_only, _Part(costs=costs)).add(leaf, _key(leaf, o.judged_only), qaggs, qterms)
    prefixes = frozenset(g for n in [*qnodes, *run_leaves] for g in prefix_gains(n))
    gains = {i.g for n in qnodes for i in n.inputs().values() if isinstance(i, IdealRank)} | prefixes
    values = tuple(
        _value(o.tree, o.judged_only).cast(pl.String if o.value_type == "string" else pl.Float64).alias(o.label)
        for o in outs
    )
    return _Compiled(
        qaggs, qterms, parts, intent_leaves, prefixes,
        {_irank_name(g): prim.ideal_rank(pl.col(REL), g).over(Q) for g in gains}, values,
    )


def _plans(prep: Prepared, compiled: _Compiled, conv: Conventions, columns: Columns) -> Plans:
    """The plans of :class:`Plans` of ``compiled`` over ``prep``'s inputs."""
    qaggs, qterms, parts, intent_leaves = compiled.qaggs, compiled.qterms, compiled.parts, compiled.intent_leaves
    prefixes, iranks = compiled.prefixes, compiled.iranks
    qrels = prep.qrels
    if iranks:
        qrels = qrels.with_columns(*[e.alias(k) for k, e in iranks.items()])
    for gain in prefixes:
        qrels = qrels.with_columns(*[e.alias(k) for k, e in _prefix_columns(gain).items()])
    if prefixes:
        # the ideal ranks and prefixes are windows read by both the per-query values and the
        # ideal lists: Polars' common-subplan elimination does not find the shared part (the
        # values' branch adds its terms to the same projection), and computed them twice:
        # about 8% of ``all_trec``
        qrels = qrels.cache()
    qstats = qterms.add_to(qrels).group_by(Q).agg(*_audit(REL), *[e.alias(k) for k, e in qaggs.items()])
    prefix_lists = [ideal_lists(qrels, gain) for gain in prefixes]

    scores = any(work.scores for work in parts.values())
    run_ideal = {col: v for work in parts.values() for col, v in work.run_ideal.items()}
    with_docs = bool(run_ideal)
    # the run-ordered ideal reads the ranked documents' scores (cut at max_rank)
    scores |= with_docs
    lists = rank_lists(prep, conv, docs=with_docs, scores=scores)
    out = qstats
    if conv.missing == "ignore":
        out = out.join(lists.select(Q), on=Q, how="semi")
    for part, work in parts.items():
        needed = qstats.select(Q, *sorted(work.needs)) if work.needs else None
        rows = ranked(
            prep, conv, part, work.seqs, docs=with_docs, scores=scores, per_query=needed, lists=lists, at_rank=prefix_lists
        )
        if work.run_ideal:
            ideal = run_ideal_table(prep, conv, lists, work.run_ideal)
            rows = rows.join(ideal, on=[Q, D], how="left", maintain_order="left")
        if work.windows:
            rows = rows.with_columns(*[e.alias(k) for k, e in work.windows.items()])
        rows = work.terms.add_to(rows)
        aggs = by_query(rows).group_by(Q).agg(*[e.alias(k) for k, e in work.aggs.items()])
        out = out.join(aggs, on=Q, how="left")
        fill = [pl.col(k).fill_null(empty) for k, empty in work.empty.items() if empty is not None]
        if fill:
            out = out.with_columns(fill)
    if intent_leaves:
        doc_lists = rank_lists(prep, conv, docs=True)
        docs = {
            part: ranked(prep, conv, part, docs=True, lists=doc_lists)
            for part in {part for _, part in intent_leaves.values()}
        }
        intents = intent_aggregates(subtopic_judgments(prep), docs, intent_leaves)
        out = out.join(intents, on=Q, how="left").with_columns(
            *[pl.col(k).fill_null(0.0) for k in intent_leaves]
        )
    result = out.select(pl.col(Q).alias(columns.query_id), *compiled.values).sort(columns.query_id)
    # how many run queries have no judgment at all
    unjudged = pl.col("__judged_query").null_count().alias("unjudged")
    judged = qstats.select(Q, pl.lit(True).alias("__judged_query"))
    run_counts = _audit_counts(lists.join(judged, on=Q, how="left"), unjudged)
    return Plans(result, (run_counts, _audit_counts(qstats)))


def ideal_lists(qrels: pl.LazyFrame, gain: Gain) -> pl.LazyFrame:
    """Per query (``__q``), each value of the ideal prefix of ``gain`` (:func:`_prefix_columns`,
    computed on ``qrels``) as a list in the ideal order: the i-th value is the prefix's value at
    rank i, over the judgments of positive gain (ranks 1..npos of the ideal order)."""
    order = pl.col(_irank_name(gain))
    return qrels.filter(prim.positive_gain(pl.col(REL), gain) > 0).group_by(Q).agg(
        pl.col(c).sort_by(order) for c in _prefix_columns(gain)
    )


def run_ideal_table(
    prep: Prepared, conv: Conventions, lists: pl.LazyFrame, values: Mapping[str, RunIdealValue]
) -> pl.LazyFrame:
    """``__q, __d`` and each value of ``values`` (column: its key): the run-ordered ideal of
    each gain definition, the judgments of positive gain sorted by gain (best first), then by
    the tie policy's keys over the scores of the ranked documents (``lists``, made with docs
    and scores: cut at ``max_rank``), a document not ranked taking score 0 (as ir-measures'
    compat provider); each query's rank in it made by a window (the inverse of the sorting
    permutation), and the values windows over it."""
    keys, descending = tie_keys(conv, prep.doc_dtype)
    scored = lists.select(Q, D, S).explode(D, S)
    tables: list[pl.LazyFrame] = []
    for gain in dict.fromkeys(v.g for v in values.values()):
        g = prim.gain(pl.col(REL), gain)
        order = pl.int_range(0, pl.len(), dtype=pl.Int64).sort_by([g, *keys], descending=[True, *descending])
        rows = (
            prep.qrels.filter(prim.positive_gain(pl.col(REL), gain) > 0)
            .join(scored, on=[Q, D], how="left")
            .with_columns(pl.col(S).fill_null(0.0))
            .with_columns((order.arg_sort().cast(pl.Int64) + 1).over(Q).alias(RUN_IRANK))
        )
        tables.append(rows.select(Q, D, *[
            bind(v, pl.col(REL), pl.lit(None), lambda name, given: pl.col(RUN_IRANK)).alias(col)
            for col, v in values.items() if v.g == gain
        ]))
    out = tables[0]
    for table in tables[1:]:
        out = out.join(table, on=[Q, D], how="full", coalesce=True)
    return out


# -- diversity: aggregates over (document, subtopic) pairs --------------------------------------


def _intent_rows() -> dict[str, pl.Expr]:
    return {"rnk": pl.col(RANK), "cov": pl.col(COV), "nsub": pl.col(NSUB), "sub": pl.col(SUB), "qid": pl.col(Q)}


def _bind_intent(node: Primitive) -> pl.Expr:
    """``node``'s Polars function over pair rows (its row columns by name, then its fields)."""
    fn = getattr(prim, node.binding())
    rows, values = _intent_rows(), node.values()
    return fn(**{name: rows[name] if name in rows else values[name] for name in _params(fn)})  # type: ignore[no-any-return]


def relevant_pairs(subtopics: pl.LazyFrame, t: float) -> pl.LazyFrame:
    """The relevant judgments (relevance ≥ t): ``__q, __d, __sub`` and ``__nsub``, the number
    of relevant documents of the subtopic."""
    return subtopics.filter(pl.col(REL) >= t).select(Q, D, SUB).with_columns(
        pl.len().over(Q, SUB).cast(pl.Int64).alias(NSUB)
    )


def run_pairs(docs: pl.LazyFrame, pairs: pl.LazyFrame) -> pl.LazyFrame:
    """The pairs of the ranked documents, each with ``__cov``: how many documents ranked above
    cover the same subtopic."""
    return docs.select(Q, D, RANK).join(pairs, on=[Q, D], how="inner").with_columns(
        (pl.col(RANK).rank("ordinal").over(Q, SUB).cast(pl.Int64) - 1).alias(COV)
    )


def greedy_ideal(pairs: pl.DataFrame, alpha: float, depth: int | None) -> pl.DataFrame:
    """ndeval's greedy ideal ranking of the judged documents, as pairs (``__q, __d, __sub,
    __nsub``) with their ideal rank (``__rank``) and ``__cov``, ranks 1..depth (None: all).

    Each rank takes, in every query at once, the document whose subtopics' gains
    Σ (1 − alpha)^cov are largest (ties: the larger doc id as text, ndeval's strcmp), then
    counts its subtopics as covered once more: one columnar step per rank, as many steps as
    the largest query has relevant documents (or ``depth``)."""
    decay = 1.0 - alpha
    text = "__dtext"
    todo = pairs.with_columns(pl.col(D).cast(pl.String).alias(text), pl.lit(0, pl.Int64).alias(COV))
    placed: list[pl.DataFrame] = []
    rank = 0
    while todo.height and (depth is None or rank < depth):
        rank += 1
        scores = todo.group_by(Q, text).agg(
            pl.lit(decay, pl.Float64).pow(pl.col(COV).cast(pl.Float64)).sum().round(IDEAL_SCORE_DIGITS).alias("__g")
        )
        best = scores.sort(["__g", text], descending=[True, True]).unique(Q, keep="first").select(Q, text)
        chosen = todo.join(best, on=[Q, text], how="semi")
        placed.append(chosen.with_columns(pl.lit(rank, pl.Int64).alias(RANK)))
        covered = chosen.select(Q, SUB, pl.lit(1, pl.Int64).alias("__inc"))
        todo = (
            todo.join(best, on=[Q, text], how="anti")
            .join(covered, on=[Q, SUB], how="left")
            .with_columns((pl.col(COV) + pl.col("__inc").fill_null(0)).alias(COV))
            .drop("__inc")
        )
    schema = {**pairs.schema, text: pl.String(), COV: pl.Int64(), RANK: pl.Int64()}
    return pl.concat(placed) if placed else pl.DataFrame(schema=schema)


def intent_aggregates(
    subtopics: pl.LazyFrame, docs: Mapping[bool, pl.LazyFrame], nodes: Mapping[str, tuple[Primitive, bool]]
) -> pl.LazyFrame:
    """Per query (``__q``), every diversity primitive of ``nodes`` (column: its key; with the
    ranking it reads, judged-only or not, ``docs``): over the run's pairs, the greedy ideal's
    pairs or the relevant judgments. The greedy ideal's judgments are collected (one step per
    ideal rank, see :func:`greedy_ideal`)."""
    groups: dict[tuple[str, float, float, bool], dict[str, Primitive]] = {}
    for key, (node, part) in nodes.items():
        alpha = float(getattr(node, "alpha", 0.0)) if node.side == "ideal_intents" else 0.0
        group = (node.side, float(getattr(node, "t")), alpha, part and node.side == "intents")  # noqa: B009
        groups.setdefault(group, {})[key] = node
    tables: list[pl.LazyFrame] = []
    for (side, t, alpha, part), members in groups.items():
        pairs = relevant_pairs(subtopics, t)
        if side == "intents":
            rows = run_pairs(docs[part], pairs)
        elif side == "ideal_intents":
            rows = greedy_ideal(pairs.collect(), alpha, ideal_depth(list(members.values()))).lazy()
        else:
            rows = pairs
        tables.append(rows.group_by(Q).agg(*[_bind_intent(n).alias(k) for k, n in members.items()]))
    out = tables[0]
    for table in tables[1:]:
        out = out.join(table, on=Q, how="full", coalesce=True)
    return out
