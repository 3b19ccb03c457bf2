"""Every metric as a Polars expression, for ``group_by(query).agg(...)`` and ``over(query)``:
:func:`expr` (one metric string), :func:`exprs` (several), and the typed functions
(:func:`ndcg`, :func:`average_precision`, ...).

Each expression is compiled from the metric's recipe (:mod:`rankwise.metrics.recipes`) and the Polars
engine's primitive functions (:mod:`rankwise._polars.primitives`), bound by name as the engine
binds them: no formula is written here. Within a group (one query) it

1. ranks the retrieved rows by the ``ties`` convention (:data:`~rankwise.conventions.TIE_ORDERS`:
   by default trec_eval's, score descending, then the doc id descending as text; the score
   rounded to a 32-bit float with ``trec_eval='9'``), cuts them at ``max_rank`` and, for a
   judged-only metric (``judged_only``, trec_eval ``-J``), keeps the judged ones;
2. aggregates each run-side primitive over the ranked rows (their running sums, row values
   and tie groups computed on the ranked list), each judgments-side primitive (R, the ideal
   DCG, ...) over *all* the group's judgments, and applies the recipe's formula.

Over a :func:`~rankwise.judged_frame` (the default, ``ideal='judgments'``) the ideal and R
come from every judgment of the query, as :func:`rankwise.evaluate` computes them, and the
values equal ``evaluate``'s (``tests/engines/test_expr.py``). The expression reads the frame's
``retrieved`` column: on a frame without it Polars raises ``ColumnNotFoundError`` naming it,
so that a frame of retrieved rows never silently gives other numbers. On a frame of retrieved
rows only, pass ``ideal='run'``: the judgments are then the group's judged rows (the ideal from
the retrieved list, R = the relevant documents retrieved; scikit-learn's convention), and the
expression's default name says so (``"AP (ideal='run')"``).

Ties are broken by the doc id column (``doc_id=``, default ``'doc_id'``); ``doc_id=None``
(no doc column) is refused with :class:`~rankwise.errors.InvalidParameterError`, every tie
policy ending with the doc id: the values would depend on the rows' order.

Not expressible over one (query, doc, relevance, score) frame: the diversity measures
(:data:`NOT_EXPRESSIBLE`: alpha_nDCG, ERR_IA, NRBP, P_IA, AP_IA, StRecall, ... need subtopic
judgments and ndeval's greedy ideal); they raise :class:`~rankwise.errors.InvalidParameterError`
naming the metric. The C/W/L measures read the run's cost column with ``cost='column'``
(absent: every document costs 1), as :func:`rankwise.evaluate` does.

Window inputs (tie groups, the cost above a rank, the ideal prefix at a rank, the run-ordered
ideal of Compat) are computed inside ``list.eval`` over the group's rows gathered into one
list: Polars refuses a window keyed by a sorted or filtered expression in an aggregation. They
run in ``group_by().agg()``, in ``over()``, eager, lazy and with
``collect(engine="streaming")``, with the same values (``tests/engines/test_expr.py``; whether Polars
streams such an aggregation or runs it in memory is Polars' choice). Polars 2.1 panics
("range end index out of range", in its list aggregation) on some chains of filter, sort,
head and explode inside one aggregation (Compat under a judged-only ranking cut at
``max_rank``; a window, then a sort, then a head inside one ``list.eval``, as Compat cut at
``max_rank`` was, under ``over()`` and in some ``group_by()``): a judged-only ranking is
therefore one filter in the rows' order, then one sort, and Compat's values are filtered (the
cut at ``max_rank`` a mask in the rows' order, not a head) and sorted inside their ``list.eval``.

>>> import polars as pl, rankwise as rw
>>> run = pl.DataFrame({"query_id": ["q1", "q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "d", "e"],
...                     "score": [0.9, 0.8, 0.8, 0.5, 0.7]})
>>> qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["b", "c", "d", "z"],
...                       "relevance": [1, 2, 1, 1]})
>>> frame = rw.judged_frame(qrels, run)
>>> per_query = frame.group_by("query_id").agg(rw.exprs(["nDCG@3", "AP", "RR", "P@2"])).sort("query_id")
>>> per_query
shape: (2, 5)
┌──────────┬──────────┬──────────┬─────┬─────┐
│ query_id ┆ nDCG@3   ┆ AP       ┆ RR  ┆ P@2 │
│ ---      ┆ ---      ┆ ---      ┆ --- ┆ --- │
│ str      ┆ f64      ┆ f64      ┆ f64 ┆ f64 │
╞══════════╪══════════╪══════════╪═════╪═════╡
│ q1       ┆ 0.669672 ┆ 0.583333 ┆ 0.5 ┆ 0.5 │
│ q2       ┆ 0.386853 ┆ 0.25     ┆ 0.5 ┆ 0.5 │
└──────────┴──────────┴──────────┴─────┴─────┘
>>> per_query.equals(rw.evaluate(qrels, run, ["nDCG@3", "AP", "RR", "P@2"]))
True
>>> retrieved = run.join(qrels, on=["query_id", "doc_id"], how="left")
>>> retrieved.group_by("query_id").agg(rw.expr("AP"))
Traceback (most recent call last):
...
polars.exceptions.ColumnNotFoundError: unable to find column "retrieved"; valid columns: ["query_id", "doc_id", "score", "relevance"]

The typed functions (:func:`ndcg`, :func:`average_precision`, ...) keep their parameters and
compile the same recipes over a frame of retrieved rows: every row of the group is ranked,
the ideal and R come from the group's rows (the ``ideal='run'`` convention: q2's relevant
``z``, not retrieved, is not counted), ranked by ``by`` (descending, or ascending with
``descending=False``), then by the doc id column ``doc_id=`` (default ``'doc_id'``) as text in
the same direction: ``by="score"`` is trec_eval's order. ``doc_id=None`` and ``by=None`` are
refused (the rows tied on every ``by`` key would be ranked in the frame's order). Rows without
a ``by`` value are not ranked, and with ``ideal='run'`` rows without a score (a judged frame's
documents the run did not retrieve): the list and its judgments are the rows that have one.
They are named as ``rw.expr(..., ideal='run')`` names them. For every metric and every
convention, use :func:`expr` on a judged frame.

>>> retrieved.group_by("query_id").agg(
...     rw.average_precision("relevance", by="score").alias("typed"), rw.expr("AP", ideal="run")
... ).sort("query_id")
shape: (2, 3)
┌──────────┬──────────┬──────────────────┐
│ query_id ┆ typed    ┆ AP (ideal='run') │
│ ---      ┆ ---      ┆ ---              │
│ str      ┆ f64      ┆ f64              │
╞══════════╪══════════╪══════════════════╡
│ q1       ┆ 0.583333 ┆ 0.583333         │
│ q2       ┆ 0.5      ┆ 0.5              │
└──────────┴──────────┴──────────────────┘
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypedDict, get_args

import polars as pl

from rankwise._polars import primitives as prim
from rankwise._polars.bind import bind_rows, tree_value
from rankwise._polars.judged import RETRIEVED
from rankwise._polars.ranking import ranking_score, tie_key_columns
from rankwise.conventions import (
    SIDE_INPUTS,
    TIE_ORDERS,
    Conventions,
    EmptyPolicy,
    JudgmentsPolicy,
    TiePolicy,
    TrecEvalVersion,
    Unpack,
    check_identifier,
    checked,
    checked_options,
)
from rankwise.errors import InvalidParameterError
from rankwise.metrics.metric import Metric, make_metric
from rankwise.metrics.recipes import (
    BASE_RUN_RECIPES,
    CATEGORY_RECIPES,
    DIVERSITY_RECIPES,
    FAIR_RECIPES,
    FEATURE_RECIPES,
    SET_RECIPES,
    TRAIN_RECIPES,
    recipe,
    tree_of,
)
from rankwise.metrics.registry import get_spec, inputs_read
from rankwise.metrics.spec import ParamValue
from rankwise.names.parse import parse_metrics
from rankwise.primitives import (
    INTENT_SIDES,
    Gain,
    IdealPrefix,
    IdealRank,
    Input,
    Node,
    Primitive,
    QrelsPrimitive,
    RunIdealValue,
    read_input,
)

GainKind = Literal["linear", "exponential", "binary"]
DiscountKind = Literal["log2", "jarvelin", "reciprocal"]
PrecisionDenominator = Literal["k", "retrieved"]
"""The discounts of the DCG family (:data:`rankwise.metrics.families.gain.DISCOUNT`'s choices)."""
By = str | pl.Expr | Sequence[str | pl.Expr]
Ideal = Literal["judgments", "run"]

NOT_EXPRESSIBLE: tuple[str, ...] = (
    *DIVERSITY_RECIPES, *TRAIN_RECIPES, *FEATURE_RECIPES, *BASE_RUN_RECIPES, *FAIR_RECIPES, *SET_RECIPES,
    *CATEGORY_RECIPES,
)
"""The metrics that are no expression over one (query, doc, relevance, score) frame: the
diversity measures, which read judgments per subtopic and ndeval's greedy ideal ranking, and
the families that read a side input (:data:`~rankwise.conventions.SIDE_INPUTS`): the popularity
family, which reads the training interactions of every user, the feature-diversity family,
which reads the item features, the base-run family, which reads the base run, the category
family, which reads the item categories, and the fair-exposure family, which reads the document
groups; and the
set-level metrics (the catalog family), one value per run."""


class ExprOptions(TypedDict, total=False):
    """The keyword options of :func:`expr` and :func:`exprs`: the conventions ``ties``,
    ``max_rank``, ``rel``, ``judged_only``, ``trec_eval``, ``empty``, ``judgments`` (those of
    :class:`~rankwise.conventions.ConventionOptions`, trec_eval's defaults; ``missing`` is
    refused: it shapes which queries the frame holds, :func:`~rankwise.judged_frame`'s, and
    changes no query's value) and

    - ``ideal``: ``'judgments'`` (default: a judged frame, flagged by ``retrieved``) or
      ``'run'`` (a frame of retrieved rows: the ideal and R from the group's judged rows);
    - ``retrieved``: the judged frame's flag column (default ``'retrieved'``);
    - ``doc_id``, ``score``, ``relevance``: the columns (defaults: the same words; ``doc_id``
      breaks ties, None is refused);
    - ``cost``: the run's cost column, for the C/W/L measures (default None: each costs 1).
    """

    ties: TiePolicy
    max_rank: int | None
    rel: float
    judged_only: bool
    trec_eval: TrecEvalVersion
    empty: EmptyPolicy
    judgments: JudgmentsPolicy
    ideal: Ideal
    retrieved: str
    doc_id: str | None
    score: str
    relevance: str
    cost: str | None


EXPR_KEYWORDS: tuple[str, ...] = tuple(ExprOptions.__annotations__)
"""The keywords of the metric expressions (:func:`expr`, :func:`exprs`, ``sql_expr``,
``sql_select``): every convention but ``missing``, the options of the frame's columns.

>>> set(CONVENTION_KEYWORDS) - set(EXPR_KEYWORDS)
{'missing'}
"""


def refuse_missing(function: str, options: Mapping[str, object]) -> None:
    """Refuse ``missing`` in the options of the metric expression ``function``: which queries
    a judged frame holds is :func:`~rankwise.judged_frame`'s convention, and an expression,
    computed per group, would ignore it. (Other keywords are checked against
    :class:`ExprOptions` by :func:`~rankwise.conventions.checked_options`.)"""
    if "missing" in options:
        raise InvalidParameterError(
            f"{function}() does not take missing=: which queries are scored is the judged frame's "
            f"choice, an expression computes each query it is given; pass "
            f"rw.judged_frame(qrels, run, missing={options['missing']!r})"
        )


_E = pl.element()


def _field(name: str) -> pl.Expr:
    return _E.struct.field(name)


def _struct(fields: Mapping[str, pl.Expr]) -> pl.Expr:
    """A struct of the named values (of one group's rows), to gather them into one list."""
    return pl.struct([e.alias(name) for name, e in fields.items()])


def _no_input(name: str, given: Input) -> pl.Expr:
    raise InvalidParameterError(f"{given!r} is not available in a metric expression")


@dataclass(frozen=True)
class Ranking:
    """How an expression reads one group's rows: the relevance, the ranking's sort keys, which
    rows are ranked (``retrieved``: None, all of them), the cut and the optional columns."""

    rel: pl.Expr
    keys: tuple[pl.Expr, ...]
    descending: tuple[bool, ...]
    score: pl.Expr
    """The score as the ranking compares it (tie groups, the run-ordered ideal)."""
    doc_keys: Mapping[str, pl.Expr] = field(default_factory=dict)
    retrieved: pl.Expr | None = None
    max_rank: int | None = None
    cost: pl.Expr | None = None
    tie_order: tuple[tuple[str, bool], ...] = ()
    """The tie policy's (key, descending) pairs (for the run-ordered ideal's keys)."""
    ideal_run: bool = False
    """The judgments are the ranked rows' (``ideal='run'``), not every judged row's."""
    listed_only: bool = False
    """The judgments are those of the rows the list holds, the retrieved rows cut at
    ``max_rank`` (``judgments='retrieved'``)."""

    def selection(self, judged_only: bool) -> tuple[pl.Expr | None, int | None]:
        """Which rows are ranked (a mask in the rows' order; None: all) and the cut applied
        after sorting them (None: none)."""
        if not judged_only:
            return self.retrieved, self.max_rank
        # one filter in the rows' order (the cut first, then the judged rows), then one sort
        return self.mask(True), None

    def in_cut(self) -> pl.Expr | None:
        """The retrieved rows ranked within ``max_rank``, as a mask in the rows' order (None:
        all the rows)."""
        keep = self.retrieved
        if self.max_rank is not None:
            cut = self.row_rank() <= self.max_rank
            keep = cut if keep is None else keep & cut
        return keep

    def mask(self, judged_only: bool) -> pl.Expr | None:
        """Which rows are ranked, the cut at ``max_rank`` included, as a mask in the rows'
        order (None: all): the rows :meth:`ranked` keeps. Judged-only, the judged rows of the
        cut (relevance ≥ 0, trec_eval 10 reading a negative judgment as unjudged)."""
        keep = self.in_cut()
        if judged_only:
            judged = self.rel >= 0
            keep = judged if keep is None else keep & judged
        return keep

    def ranked(self, e: pl.Expr, judged_only: bool) -> pl.Expr:
        """``e`` (a value of each row) in ranked order: the retrieved rows sorted, cut at
        ``max_rank``, then (judged-only) the judged ones."""
        keep, head = self.selection(judged_only)
        out = e if keep is None else e.filter(keep)
        if self.keys:
            keys = [k if keep is None else k.filter(keep) for k in self.keys]
            out = out.sort_by(keys, descending=list(self.descending), nulls_last=True, maintain_order=True)
        return out if head is None else out.head(head)

    def judgments(self) -> pl.Expr:
        """The relevance of every judged row of the group (``ideal_run``: of the ranked rows)."""
        judged = self.listed(self.rel.is_not_null())
        if self.ideal_run and self.retrieved is not None:
            judged = judged & self.retrieved
        return self.rel.filter(judged)

    def listed(self, judged: pl.Expr) -> pl.Expr:
        """``judged`` (a mask of judged rows), under ``judgments='retrieved'`` only where the
        list holds the row (:meth:`in_cut`), unless the group retrieved nothing (a judged query
        absent from the run keeps its judgments)."""
        listed = self.in_cut() if self.listed_only else None
        if listed is None:
            return judged
        if self.retrieved is not None:
            listed = listed | ~self.retrieved.any()
        return judged & listed

    def row_rank(self) -> pl.Expr:
        """Each row's rank (1 = top) among the ranked rows before any judged-only filter, in
        the rows' own order (the rows not retrieved after all of them)."""
        flag = [] if self.retrieved is None else [self.retrieved]
        order = pl.int_range(0, pl.len(), dtype=pl.Int64).sort_by(
            [*flag, *self.keys], descending=[*(True for _ in flag), *self.descending], nulls_last=True,
            maintain_order=True,
        )
        return order.arg_sort().cast(pl.Int64) + 1


class _Compiler:
    """A recipe's tree as one aggregation over a group (:class:`Ranking`)."""

    def __init__(self, ranking: Ranking, judged_only: bool) -> None:
        self.r = ranking
        self.judged_only = judged_only
        self.rel = ranking.ranked(ranking.rel, judged_only)
        self.n = self.rel.len()

    def tree(self, node: Node) -> pl.Expr:
        return tree_value(node, lambda leaf: self.qrels_value(leaf) if isinstance(leaf, QrelsPrimitive) else self.run_value(leaf))

    # -- the judgments' side: an aggregate over every judged row of the group -----------------

    def _judgment_rows(self, gains: Iterable[Gain]) -> tuple[pl.Expr, dict[Gain, str]]:
        """The judgments as a list of structs (``rel``, and each gain's ideal rank)."""
        jrel = self.r.judgments()
        names = {g: f"irank{i}" for i, g in enumerate(dict.fromkeys(gains))}
        fields = {"rel": jrel, **{name: prim.ideal_rank(jrel, g) for g, name in names.items()}}
        return _struct(fields).implode(), names

    def qrels_value(self, node: QrelsPrimitive) -> pl.Expr:
        gains = [i.g for i in node.inputs().values() if isinstance(i, (IdealRank, IdealPrefix))]
        rows_list, names = self._judgment_rows(gains)
        rows = {"rel": _field("rel"), "qid": pl.lit(0)}

        def input_of(name: str, given: Input) -> pl.Expr:
            if isinstance(given, IdealRank):
                return _field(names[given.g])
            if isinstance(given, IdealPrefix):
                return bind_rows(given, rows, input_of)
            return _no_input(name, given)

        value = rows_list.list.eval(bind_rows(node, rows, input_of)).list.first()
        return pl.when(self.r.judgments().len() > 0).then(value).otherwise(pl.lit(node.empty, pl.Float64))

    def _prefix_at_rank(self, given: IdealPrefix) -> pl.Expr:
        """The ideal prefix's value at each ranked row's rank (NULL beyond the ideal list: the
        judgments of positive gain, best first)."""
        rows_list, names = self._judgment_rows([given.g])
        irank = _field(names[given.g])
        rows = {"rel": _field("rel"), "qid": pl.lit(0)}
        positive = prim.positive_gain(_field("rel"), given.g) > 0

        def prefix_input(name: str, inner: Input) -> pl.Expr:
            # the ideal rank, or another value of the prefix (a window over windows), inline
            return bind_rows(inner, rows, prefix_input) if isinstance(inner, IdealPrefix) else irank

        values = bind_rows(given, rows, prefix_input).filter(positive).sort_by(irank.filter(positive))
        ideal = rows_list.list.eval(values)
        return ideal.list.gather(pl.int_range(0, self.n, dtype=pl.Int64).implode(), null_on_oob=True).explode()

    def _run_ideal(self, given: RunIdealValue) -> pl.Expr:
        """The value of each ranked row's document in the run-ordered ideal (NULL for a
        document not in it): the judged documents of positive gain, by gain, then by the tie
        policy's keys over the scores of the ranked documents (cut at ``max_rank``; 0 for a
        document not ranked)."""
        r = self.r
        in_cut = r.in_cut()
        score = r.score if in_cut is None else pl.when(in_cut).then(r.score).otherwise(0.0)
        keys = tie_key_columns(score, r.rel.cast(pl.Float64), r.doc_keys["doc"], r.doc_keys["doc_text"])
        g = prim.gain(r.rel, given.g)
        positive = r.listed(prim.positive_gain(r.rel, given.g) > 0)
        order = pl.int_range(0, pl.len(), dtype=pl.Int64).sort_by(
            [positive, g, *(keys[k] for k, _ in r.tie_order)],
            descending=[True, True, *(d for _, d in r.tie_order)],
            nulls_last=True,
            maintain_order=True,
        )
        irank = order.arg_sort().cast(pl.Int64) + 1
        # the value in ranked order, inside the same list.eval (filtered and sorted there: an
        # explode of the values, then filtered and sorted, is mis-sliced by Polars); the cut is
        # in the mask, not a head after the sort: Polars 2.1 panics on a window, then a sort,
        # then a head (or slice) inside list.eval, under over() and in some group_by()
        keep = r.mask(self.judged_only)
        keyed = {f"k{i}": k for i, k in enumerate(r.keys)}
        rows = {"rel": _field("rel"), "qid": pl.lit(0)}
        value: pl.Expr = pl.when(_field("positive")).then(bind_rows(given, rows, lambda n, i: _field("irank")))
        if keep is not None:
            value = value.filter(_field("keep"))
        if keyed:
            sort_keys = [_field(k) if keep is None else _field(k).filter(_field("keep")) for k in keyed]
            value = value.sort_by(sort_keys, descending=list(r.descending), nulls_last=True, maintain_order=True)
        fields = {"rel": r.rel, "irank": irank, "positive": positive, **keyed}
        if keep is not None:
            fields["keep"] = keep
        return _struct(fields).implode().list.eval(value).explode()

    # -- the run's side: an aggregate over the ranked rows ------------------------------------

    def run_value(self, node: Primitive) -> pl.Expr:
        r = self.r
        if node.side in INTENT_SIDES:
            raise InvalidParameterError(f"{node!r} reads judgments per subtopic: not a metric expression")
        fields: dict[str, pl.Expr] = {
            "rel": self.rel,
            "rnk": pl.int_range(1, self.n + 1, dtype=pl.Int64),
            "score": r.ranked(r.score, self.judged_only),
            "cost": pl.repeat(1.0, self.n, dtype=pl.Float64) if r.cost is None else r.ranked(r.cost.cast(pl.Float64), self.judged_only),
        }
        rows = {"rel": _field("rel"), "rnk": _field("rnk"), "qid": pl.lit(0), "score": _field("score"), "cost": _field("cost")}

        def extra(e: pl.Expr) -> pl.Expr:
            name = f"x{len(fields)}"
            fields[name] = e
            return _field(name)

        def input_of(name: str, given: Input) -> pl.Expr:
            return read_input(
                given,
                step=lambda g: bind_rows(g, rows, input_of).cum_sum(),
                row_value=lambda g: bind_rows(g, rows, _no_input),
                ideal_rank=lambda g: prim.ideal_rank(rows["rel"], g.g),
                ideal_prefix=lambda g: extra(self._prefix_at_rank(g)),
                run_ideal_value=lambda g: extra(self._run_ideal(g)),
                run_ideal_rank=lambda g: _no_input(name, g),
                qrels=lambda g: extra(pl.repeat(self.qrels_value(g), self.n)),
            )

        body = bind_rows(node, rows, input_of)
        value = _struct(fields).implode().list.eval(body).list.first()
        dtype = pl.String if node.value_type == "string" else pl.Float64
        return pl.when(self.n > 0).then(value).otherwise(pl.lit(node.empty, dtype))


def compile_tree(tree: Node, ranking: Ranking, judged_only: bool = False) -> pl.Expr:
    """A recipe's tree as one aggregation over a group ranked by ``ranking``."""
    return _Compiler(ranking, judged_only).tree(tree)


def check_doc(doc: object, conv: Conventions, metric: str) -> str:
    """The doc id column, which breaks ties (every tie policy ends with it): None is refused."""
    if doc is None:
        order = TIE_ORDERS[conv.tie_order]
        raise InvalidParameterError(
            f"the expression of {metric} cannot break ties without the doc id column: ties={conv.ties!r} orders "
            f"equal scores by {', '.join(k for k, _ in order[1:])}; pass doc_id='column' (its values must be "
            "unique within a query), or the values would depend on the order of the rows"
        )
    return check_identifier(doc, "doc_id column")


def _tie_ranking(conv: Conventions, options: Mapping[str, object], metric: str) -> Ranking:
    """The :class:`Ranking` of a frame's columns under the conventions (the tie policy's keys
    of :data:`~rankwise.conventions.TIE_ORDERS`, as :func:`rankwise._polars.ranking.tie_keys`
    renders them)."""
    ideal = options.get("ideal", "judgments")
    if ideal not in ("judgments", "run"):
        raise InvalidParameterError(f"option 'ideal' must be one of ['judgments', 'run'], got {ideal!r}")
    names = {k: options.get(k, k) for k in ("score", "relevance")}
    for key, value in names.items():
        check_identifier(value, f"{key} column")
    doc = check_doc(options.get("doc_id", "doc_id"), conv, metric)
    order = TIE_ORDERS[conv.tie_order]
    cost = options.get("cost")
    if cost is not None:
        check_identifier(cost, "cost column")
    retrieved = options.get("retrieved", RETRIEVED)
    check_identifier(retrieved, "retrieved column")
    rel = pl.col(str(names["relevance"])).cast(pl.Float64)
    raw = pl.col(str(names["score"])).cast(pl.Float64)
    score = ranking_score(conv.trec_eval, raw)
    d = pl.col(str(doc))
    keys = tie_key_columns(score, rel, d, d.cast(pl.String))
    return Ranking(
        rel=rel,
        keys=tuple(keys[k] for k, _ in order),
        descending=tuple(desc for _, desc in order),
        score=score,
        doc_keys={"doc_text": keys["doc_text"], "doc": d},
        # ideal='run': the ranked list is the rows with a score (a judged frame's judged
        # documents the run did not retrieve have none), and so are its judgments
        retrieved=raw.is_not_null() if ideal == "run" else pl.col(str(retrieved)),
        max_rank=conv.max_rank,
        cost=None if cost is None else pl.col(str(cost)),
        tie_order=order,
        ideal_run=ideal == "run",
        listed_only=conv.judgments == "retrieved",
    )


def check_expressible(m: Metric) -> None:
    """Refuse, naming it, a metric that is no expression over one judged frame."""
    if m.spec.aggregate == "set":
        raise InvalidParameterError(
            f"{m.label} cannot be a metric expression (Polars or SQL): it is one value per run (a set-level metric), "
            "computed from every user's list; use rw.evaluate(qrels, run, ..., per_query=False)"
        )
    for keyword in inputs_read(m.spec):
        raise InvalidParameterError(
            f"{m.label} cannot be a metric expression (Polars or SQL): it reads {SIDE_INPUTS[keyword].what}, not one "
            f"query's rows; use rw.evaluate(qrels, run, ..., {keyword}=...)"
        )
    if m.spec.name in NOT_EXPRESSIBLE:
        raise InvalidParameterError(
            f"{m.label} cannot be a metric expression (Polars or SQL): it reads judgments per subtopic (query, subtopic, doc, "
            "relevance) and ndeval's greedy ideal ranking, not one relevance per document; use "
            "rw.evaluate(qrels, run, ..., subtopic='subtopic')"
        )


def _metric_expr(m: Metric, conv: Conventions, options: Mapping[str, object]) -> pl.Expr:
    check_expressible(m)
    ranking = _tie_ranking(conv, options, m.label)
    params = conv.as_params()
    judged_only = bool(m.resolve(params).get("judged_only", False))
    out = compile_tree(tree_of(m, params, conv), ranking, judged_only)
    label = m.label if options.get("ideal", "judgments") == "judgments" else f"{m.label} (ideal='run')"
    return out.cast(pl.String if m.spec.value_type == "string" else pl.Float64).alias(label)


@checked_options(refuse_missing)
def exprs(metrics: str | Metric | Iterable[str | Metric], **options: Unpack[ExprOptions]) -> list[pl.Expr]:
    """Every metric of ``metrics`` (any naming scheme; lists such as ``all_trec`` expand) as a
    Polars expression named by its string, for ``group_by(query).agg(...)`` (or ``over(query)``)
    on a :func:`~rankwise.judged_frame`: per query, the values of :func:`rankwise.evaluate`.
    ``options``: see :class:`ExprOptions`.

    >>> import rankwise as rw
    >>> [e.meta.output_name() for e in rw.exprs("P.5,10")]
    ['P_5', 'P_10']
    """
    conv = Conventions.from_options(options)
    return [_metric_expr(m, conv, options) for m in parse_metrics(metrics)]


@checked_options(refuse_missing)
def expr(metric: str | Metric, **options: Unpack[ExprOptions]) -> pl.Expr:
    """One metric as a Polars expression named by its string (``rw.expr("nDCG@10")``,
    ``rw.expr("bpref")``, ``rw.expr("AP(rel=2)")``), for ``group_by(query).agg(...)`` or
    ``over(query)`` on a :func:`~rankwise.judged_frame`: per query, the value
    :func:`rankwise.evaluate` gives (see the module). ``options``: see :class:`ExprOptions`.
    A string naming several metrics (``all_trec``, ``P.5,10``) is refused: use :func:`exprs`.

    >>> import rankwise as rw
    >>> rw.expr("ndcg_cut_10").meta.output_name()
    'ndcg_cut_10'
    >>> rw.expr("official")
    Traceback (most recent call last):
    ...
    rankwise.errors.InvalidParameterError: 'official' names 29 metrics: use rw.exprs('official', ...), a list of expressions
    >>> rw.expr("alpha_nDCG@20")
    Traceback (most recent call last):
    ...
    rankwise.errors.InvalidParameterError: alpha_nDCG@20 cannot be a metric expression (Polars or SQL): it reads judgments per subtopic (query, subtopic, doc, relevance) and ndeval's greedy ideal ranking, not one relevance per document; use rw.evaluate(qrels, run, ..., subtopic='subtopic')
    >>> rw.expr("AP", doc_id=None)
    Traceback (most recent call last):
    ...
    rankwise.errors.InvalidParameterError: the expression of AP cannot break ties without the doc id column: ties='trec_eval' orders equal scores by doc_text; pass doc_id='column' (its values must be unique within a query), or the values would depend on the order of the rows
    """
    return _metric_expr(one_metric(metric, "exprs"), Conventions.from_options(options), options)


def one_metric(metric: str | Metric, several: str) -> Metric:
    """The one metric a string names; a string naming several is refused, pointing to ``several``."""
    parsed = parse_metrics(metric)
    if len(parsed) != 1:
        raise InvalidParameterError(
            f"{metric!r} names {len(parsed)} metrics: use rw.{several}({metric!r}, ...), a list of expressions"
        )
    return parsed[0]


# -- the typed functions: the ideal and R from the group's own rows (ideal='run') ---------------


def _col(c: str | pl.Expr) -> pl.Expr:
    return pl.col(c) if isinstance(c, str) else c


def _check(k: int | None, gain: str | None = None, discount: str | None = None, base: float = 2.0) -> None:
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k <= 0):
        raise InvalidParameterError(f"parameter 'k' must be a positive integer or None, got {k!r}")
    if gain is not None and gain not in get_args(GainKind):
        raise InvalidParameterError(f"parameter 'gain' must be one of {list(get_args(GainKind))}, got {gain!r}")
    if discount is not None and discount not in get_args(DiscountKind):
        raise InvalidParameterError(f"parameter 'discount' must be one of {list(get_args(DiscountKind))}, got {discount!r}")
    if not isinstance(base, (int, float)) or isinstance(base, bool) or base <= 1:
        raise InvalidParameterError(f"parameter 'base' must be a number > 1, got {base!r}")


def _rel(rel: float) -> float:
    """The relevance threshold of a typed function, checked (a number, not a bool)."""
    if isinstance(rel, bool) or not isinstance(rel, (int, float)):
        raise InvalidParameterError(f"parameter 'rel' must be a number, got {rel!r}")
    return float(rel)


def _typed_expr(
    name: str, relevance: str | pl.Expr, by: By | None, descending: bool, cutoff: int | None,
    params: Mapping[str, ParamValue] | None = None, doc_id: str | pl.Expr | None = None,
) -> pl.Expr:
    """The registered metric ``name`` over a group of retrieved rows ranked by ``by``, then by
    ``doc_id`` as text in the same direction (trec_eval's tie order when ``by`` is the score,
    descending): the rows with a ``by`` value are ranked (a judged frame's judged documents the
    run did not retrieve have none) and the ideal and R come from them (``ideal='run'``),
    compiled as :func:`expr` compiles, and named as ``rw.expr(..., ideal='run')`` names it.
    IDCG ranks nothing (``by`` None): the group's rows in the ideal order."""
    spec = get_spec(name)
    defaults = {p.name: p.default for p in spec.params}
    # the parameters that differ from the defaults (they name the expression)
    metric = make_metric(spec, {k: v for k, v in (params or {}).items() if defaults.get(k) != v}, cutoff)
    keys = [] if by is None else [by] if isinstance(by, (str, pl.Expr)) else list(by)
    exprs_ = [_col(k) for k in keys]
    retrieved = None
    if name != "IDCG":
        if not exprs_:
            raise InvalidParameterError(f"the typed {name} expression: pass by= (the column or columns to rank by), got {by!r}")
        if doc_id is None:
            raise InvalidParameterError(
                f"the typed {name} expression: rows tied on every 'by' key would be ranked in the frame's order; "
                "pass doc_id='<the doc id column>' (ties are broken by it, as trec_eval breaks them)"
            )
        retrieved = exprs_[0].is_not_null()
        exprs_.append(_col(doc_id).cast(pl.String))
    rel = _col(relevance).cast(pl.Float64)
    ranking = Ranking(
        rel=rel, keys=tuple(exprs_), descending=tuple(descending for _ in exprs_),
        score=exprs_[0].cast(pl.Float64, strict=False) if exprs_ else pl.lit(0.0),
        retrieved=retrieved, ideal_run=True,
    )
    return compile_tree(recipe(metric, Conventions().as_params()), ranking).alias(f"{metric.label} (ideal='run')")


@checked
def dcg(
    relevance: str | pl.Expr, *, by: By, k: int | None = None, gain: GainKind = "linear",
    discount: DiscountKind = "log2", base: float = 2.0, descending: bool = True,
    doc_id: str | pl.Expr | None = "doc_id",
) -> pl.Expr:
    """DCG@k = Σ_{i≤k} gain(rel_i) / discount(i) (Järvelin & Kekäläinen 2002).

    gain: 'linear' max(rel, 0) or 'exponential' 2^rel − 1; discount: 'log2' log2(i + 1),
    'jarvelin' max(1, log_base(i)) or 'reciprocal' i (CatBoost's denominator=Position).
    """
    _check(k, gain, discount, base)
    return _typed_expr("DCG", relevance, by, descending, k, {"gain": gain, "discount": discount, "base": float(base)}, doc_id)


@checked
def idcg(
    relevance: str | pl.Expr, *, k: int | None = None, gain: GainKind = "linear",
    discount: DiscountKind = "log2", base: float = 2.0,
) -> pl.Expr:
    """IDCG@k: DCG@k of the group's rows sorted by relevance, best first."""
    _check(k, gain, discount, base)
    return _typed_expr("IDCG", relevance, None, True, k, {"gain": gain, "discount": discount, "base": float(base)})


@checked
def ndcg(
    relevance: str | pl.Expr, *, by: By, k: int | None = None, gain: GainKind = "linear",
    discount: DiscountKind = "log2", base: float = 2.0, descending: bool = True,
    doc_id: str | pl.Expr | None = "doc_id",
) -> pl.Expr:
    """nDCG@k = DCG@k / IDCG@k, 0 when IDCG@k = 0; ideal from the group's rows."""
    _check(k, gain, discount, base)
    return _typed_expr("nDCG", relevance, by, descending, k, {"gain": gain, "discount": discount, "base": float(base)}, doc_id)


@checked
def cg(relevance: str | pl.Expr, *, by: By, k: int | None = None, gain: GainKind = "linear", descending: bool = True,
    doc_id: str | pl.Expr | None = "doc_id",
) -> pl.Expr:
    """CG@k = Σ_{i≤k} gain(rel_i)."""
    _check(k, gain)
    return _typed_expr("CG", relevance, by, descending, k, {"gain": gain}, doc_id)


@checked
def precision(relevance: str | pl.Expr, *, by: By, k: int, rel: float = 1, descending: bool = True,
    doc_id: str | pl.Expr | None = "doc_id", denominator: PrecisionDenominator = "k",
) -> pl.Expr:
    """P@k = |relevant in top k| / k (rel_i ≥ rel is relevant); ``denominator='retrieved'``:
    over min(k, rows of the group) instead (XGBoost's ``pre@k``, CatBoost's ``PrecisionAt``)."""
    if k is None:
        raise InvalidParameterError("parameter 'k' is required for precision")
    _check(k)
    if denominator not in get_args(PrecisionDenominator):
        raise InvalidParameterError(
            f"parameter 'denominator' must be one of {list(get_args(PrecisionDenominator))}, got {denominator!r}"
        )
    return _typed_expr("P", relevance, by, descending, k, {"rel": _rel(rel), "denominator": denominator}, doc_id)


@checked
def recall(relevance: str | pl.Expr, *, by: By, k: int | None = None, rel: float = 1, descending: bool = True,
    doc_id: str | pl.Expr | None = "doc_id",
) -> pl.Expr:
    """R@k = |relevant in top k| / |relevant in the group| (0 when none)."""
    _check(k)
    return _typed_expr("R", relevance, by, descending, k, {"rel": _rel(rel)}, doc_id)


@checked
def success(relevance: str | pl.Expr, *, by: By, k: int, rel: float = 1, descending: bool = True,
    doc_id: str | pl.Expr | None = "doc_id",
) -> pl.Expr:
    """Success@k = 1 if a relevant document is in the top k, else 0."""
    _check(k)
    return _typed_expr("Success", relevance, by, descending, k, {"rel": _rel(rel)}, doc_id)


@checked
def average_precision(relevance: str | pl.Expr, *, by: By, k: int | None = None, rel: float = 1, descending: bool = True,
    doc_id: str | pl.Expr | None = "doc_id",
) -> pl.Expr:
    """AP@k = (1/R) Σ_{i≤k, relevant} P@i, R = relevant rows in the group."""
    _check(k)
    return _typed_expr("AP", relevance, by, descending, k, {"rel": _rel(rel)}, doc_id)


@checked
def reciprocal_rank(relevance: str | pl.Expr, *, by: By, k: int | None = None, rel: float = 1, descending: bool = True,
    doc_id: str | pl.Expr | None = "doc_id",
) -> pl.Expr:
    """RR@k = 1 / rank of the first relevant document within k (0 when none)."""
    _check(k)
    return _typed_expr("RR", relevance, by, descending, k, {"rel": _rel(rel)}, doc_id)


@checked
def r_precision(relevance: str | pl.Expr, *, by: By, rel: float = 1, descending: bool = True,
    doc_id: str | pl.Expr | None = "doc_id",
) -> pl.Expr:
    """Rprec = |relevant in top R| / R, R = relevant rows in the group (0 when R = 0)."""
    return _typed_expr("Rprec", relevance, by, descending, None, {"rel": _rel(rel)}, doc_id)
