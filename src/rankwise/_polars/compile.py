"""Compiling the metrics' recipes (formula trees over primitives, :mod:`rankwise.metrics.recipes`)
into Polars expressions: the judgments' per-query aggregates, each ranking's run-side work
(:class:`Part`: running sums on the ranked lists, row windows, the qrels values joined to the
ranked rows, the aggregates), the diversity primitives, and each output column's formula over
the aggregates. The result depends on the metrics, the conventions and whether the run has
costs, never on the data: :func:`compiled_metrics` keeps it for the next evaluation."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import polars as pl

from rankwise._polars import primitives as prim
from rankwise._polars.bind import Terms, bind, no_input, tree_value
from rankwise._polars.columns import IRANK, RANK, REL, Q
from rankwise._polars.ranking import ELEMENT, SEQ_ONE, SEQ_RANK
from rankwise.conventions import Conventions
from rankwise.metrics.metric import Metric
from rankwise.metrics.recipes import Output, outputs
from rankwise.primitives import (
    BASE_RUN_COLUMNS,
    CATALOG_COLUMNS,
    CATEGORY_COLUMNS,
    FAIR_COLUMNS,
    FEATURE_COLUMNS,
    FEATURE_HISTORY_COLUMNS,
    GROUP_COLUMNS,
    INTENT_SIDES,
    TRAIN_COLUMNS,
    TRAIN_PAIR_COLUMNS,
    Calibration,
    CategoryEntropy,
    Gain,
    IdealPrefix,
    IdealRank,
    Input,
    Miscalibration,
    Node,
    Primitive,
    QrelsPrimitive,
    RowValue,
    RunIdealValue,
    Step,
    deepest,
    leaves,
    prefix_values,
    qrels_needs,
    read_input,
)


def _key(node: Primitive, part: bool | None = None) -> str:
    """The column of a primitive's per-query aggregate (with the ranking it reads, ``part``:
    judged-only or not)."""
    if node.side in INTENT_SIDES:
        return f"i{int(bool(part))}|{node!r}"
    prefix = "q" if node.side == "qrels" else f"r{int(bool(part))}"
    return f"{prefix}|{node!r}"


def irank_name(gain: Gain) -> str:
    """Ideal-rank column for a gain definition (one for every monotone gain)."""
    return IRANK if gain.monotone else f"{IRANK}|{gain!r}"


def _prefix(value: IdealPrefix) -> str:
    """The column of a value of the ideal prefix (joined to the ranked rows at their rank)."""
    return f"__{value!r}"


def prefix_columns(values: Iterable[IdealPrefix]) -> dict[str, pl.Expr]:
    """The columns of values of the ideal prefix (:class:`~rankwise.primitives.IdealPrefix`, the
    values read: :attr:`Compiled.prefixes`), windows over the judgments in the ideal order."""
    return {_prefix(value): _prefix_expr(value) for value in sorted(values, key=repr)}


def _prefix_expr(value: IdealPrefix) -> pl.Expr:
    """A value of the ideal prefix over the judgments, the values it reads inline (windows
    over windows)."""
    return bind(value, pl.col(REL), pl.lit(None), _prefix_input)


def _prefix_input(name: str, given: Input) -> pl.Expr:
    """An input of a value of the ideal prefix: the ideal rank's column, or another value."""
    if isinstance(given, IdealPrefix):
        return _prefix_expr(given)
    return _ideal_rank_col(given)


def _ideal_rank_col(given: Input) -> pl.Expr:
    """The column of an ideal rank read by a value of the ideal prefix."""
    if isinstance(given, IdealRank):
        return pl.col(irank_name(given.g))
    return no_input("", given)


def _qrels_expr(node: Primitive, terms: Terms | None = None) -> pl.Expr:
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
class Part:
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
    terms: Terms = field(default_factory=Terms)
    """The aggregates' shared row terms."""
    costs: bool = False
    """Whether the run has a cost column: a running sum that reads the cost (IFT's rate) is
    then a window over the ranked rows (the ranked lists carry the relevance only)."""
    train: bool = False
    """Whether an aggregate reads the training interactions' values
    (:data:`~rankwise.primitives.TRAIN_COLUMNS`): joined to the ranked rows only then."""
    features: bool = False
    """Whether an aggregate reads the item features' pair distances
    (:data:`~rankwise.primitives.FEATURE_COLUMNS`): computed on the ranked rows only then."""
    pair_depth: int | None = 0
    base: bool = False
    """Whether an aggregate reads the base run's values
    (:data:`~rankwise.primitives.BASE_RUN_COLUMNS`): joined to the ranked rows only then."""
    catalog: bool = False
    """Whether an aggregate reads the catalog's size (:data:`~rankwise.primitives.CATALOG_COLUMNS`):
    joined to the ranked rows only then."""
    history: set[str] = field(default_factory=set)
    """The item-pair columns its aggregates read (:data:`~rankwise.primitives.TRAIN_PAIR_COLUMNS`,
    :data:`~rankwise.primitives.FEATURE_HISTORY_COLUMNS`): computed on the ranked rows only then."""
    history_depth: int | None = 0
    """The deepest cutoff of those aggregates (None: every rank): the rows whose pairs are read."""
    """The deepest cutoff of those aggregates (None: every rank): the rows whose pairs are read."""
    categories: bool = False
    """Whether an aggregate reads the item categories' values
    (:data:`~rankwise.primitives.CATEGORY_COLUMNS`): computed on the ranked rows only then."""
    category_depth: int | None = 0
    """The deepest cutoff of those aggregates (None: every rank): a value at a rank reads the rows
    above it only, so they are computed on the rows down to that depth."""
    patiences: set[float] = field(default_factory=set)
    """The patiences of the rank weights its aggregates read the weighted category counts with
    besides the default one (``catcountg``, ``catentg``: computed with each)."""
    calibrations: set[tuple[Calibration, float]] = field(default_factory=set)
    """The (definition, α) of each miscalibration at each rank its aggregates read (``miscal``,
    which reads the training interactions or the judgments too): computed only then, with each."""
    docs: bool = False
    """Whether a row value reads the document id (``doc``: a stochastic run's window over each
    document's samples): the ranked rows carry it only then."""
    fair: bool = False
    """Whether an aggregate reads the divergences from the target
    (:data:`~rankwise.primitives.FAIR_COLUMNS`): computed on the ranked rows only then."""
    fair_depth: int | None = 0
    """The deepest cutoff of those aggregates (None: every rank)."""
    groups: bool = False
    """Whether an aggregate reads the item's groups (:data:`~rankwise.primitives.GROUP_COLUMNS`):
    joined to the ranked rows only then."""
    judged_rows: bool = True
    """Whether every aggregate declares :attr:`~rankwise.primitives.Primitive.judged_rows` (an
    unjudged row adds nothing to it): the ranked rows are then cut to the judged ones, each
    query's top row and its last (:func:`~rankwise._polars.ranking.ranked`), unless a row value
    is a window over the rows (:attr:`windows`). An aggregate that reads the top rows alone
    (:attr:`~rankwise.primitives.Primitive.top_rows`) counts as one: the rows down to
    :attr:`top_rows` are kept too."""
    top_rows: int = 0
    """The deepest rank the aggregates that read the top rows alone read (0: none)."""

    def add(self, node: Primitive, key: str, qaggs: dict[str, pl.Expr], qterms: Terms) -> None:
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

        def row_input(name: str, given: Input) -> pl.Expr:
            """A row value's running sums (summed in the ranking before the row values)."""
            return step(given) if isinstance(given, Step) else no_input(name, given)

        def row_value(given: RowValue) -> pl.Expr:
            self.docs |= "doc" in given.reads
            if not given.window:
                return bind(given, pl.col(REL), pl.col(RANK), row_input)
            col = f"__row|{given!r}"
            self.windows[col] = bind(given, pl.col(REL), pl.col(RANK), row_input)
            return pl.col(col)

        def ideal_rank(given: IdealRank) -> pl.Expr:
            col = irank_name(given.g)
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
                run_ideal_rank=lambda g: no_input(name, g), qrels=qrels,
            )

        self.aggs[key] = self.terms.bind(node, pl.col(REL), pl.col(RANK), input_of)
        self.empty[key] = node.empty
        self.judged_rows &= node.on_judged_rows
        self.top_rows = max(self.top_rows, node.top_rows or 0)
        self.train |= bool(set(node.reads) & set(TRAIN_COLUMNS))
        self.base |= bool(set(node.reads) & set(BASE_RUN_COLUMNS))
        if set(node.reads) & set(CATEGORY_COLUMNS):
            self.categories = True
            self.category_depth = deepest(self.category_depth, getattr(node, "k", None))
        if isinstance(node, CategoryEntropy) and node.geometric:
            self.patiences.add(node.patience)
        if isinstance(node, Miscalibration):
            self.calibrations.add((node.definition, node.alpha))
        self.catalog |= bool(set(node.reads) & set(CATALOG_COLUMNS))
        self.groups |= bool(set(node.reads) & set(GROUP_COLUMNS))
        pairs = set(node.reads) & {*TRAIN_PAIR_COLUMNS, *FEATURE_HISTORY_COLUMNS}
        if pairs:
            self.history |= pairs
            self.history_depth = deepest(self.history_depth, getattr(node, "k", None))
        if set(node.reads) & set(FEATURE_COLUMNS):
            self.features = True
            self.pair_depth = deepest(self.pair_depth, getattr(node, "k", None))
        if set(node.reads) & set(FAIR_COLUMNS):
            self.fair = True
            self.fair_depth = deepest(self.fair_depth, getattr(node, "k", None))


def running(step: Step) -> pl.Expr:
    """A running sum down a query's ranked list (inside ``list.eval``); its step may read other
    running sums (a step of the running gain, say), which are summed first. The lists carry
    the relevance only: every document costs 1 here (a run without a cost column)."""
    return bind(step, ELEMENT, SEQ_RANK, _step_input, SEQ_ONE).cum_sum()


def _step_input(name: str, given: Input) -> pl.Expr:
    if isinstance(given, Step):
        return running(given)
    return no_input(name, given)


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
    return no_input(name, given)


def _value(node: Node, part: bool) -> pl.Expr:
    """A formula tree over the per-query aggregates' columns."""
    return tree_value(node, lambda leaf: pl.col(_key(leaf, part)), pl.col(Q))


@dataclass(frozen=True)
class Compiled:
    """The expressions of an evaluation, which depend on its outputs and on whether the run
    has costs, not on the data (:func:`compile_outputs`); read, never changed, by :func:`~rankwise._polars.plan.build_plans`."""

    qaggs: dict[str, pl.Expr]
    """The judgments' per-query aggregates."""
    qterms: Terms
    """Their shared row terms."""
    parts: dict[bool, Part]
    """The run-side work of each ranking (full, judged-only)."""
    intent_leaves: dict[str, tuple[Primitive, bool]]
    prefixes: frozenset[IdealPrefix]
    """The values of the ideal prefix read (with those they read): only these are computed."""
    iranks: dict[str, pl.Expr]
    """The judgments' ideal ranks (a column per ideal order)."""
    values: tuple[pl.Expr, ...]
    """The output columns, from the per-query aggregates."""


@functools.lru_cache(maxsize=64)
def compiled_metrics(metrics: tuple[tuple[Metric, str], ...], conv: Conventions, costs: bool) -> Compiled:
    """:func:`compile_outputs` of the metrics' outputs (each metric with its label), kept for the next
    evaluation of the same metrics, labels and conventions: building the expressions is about
    1.5 ms of CPU, 5% of an evaluation of 1,000 queries x 100 documents."""
    return compile_outputs(outputs([m for m, _ in metrics], conv), costs)


def compile_outputs(outs: Sequence[Output], costs: bool) -> Compiled:
    """The expressions of the output columns ``outs`` (formula trees over primitives)."""
    qaggs: dict[str, pl.Expr] = {}
    qterms = Terms()
    qnodes: set[Primitive] = set()
    parts: dict[bool, Part] = {}
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
            parts.setdefault(o.judged_only, Part(costs=costs)).add(leaf, _key(leaf, o.judged_only), qaggs, qterms)
    prefixes = frozenset(v for n in [*qnodes, *run_leaves] for v in prefix_values(n))
    gains = {i.g for n in qnodes for i in n.inputs().values() if isinstance(i, IdealRank)} | {v.g for v in prefixes}
    values = tuple(
        _value(o.tree, o.judged_only).cast(pl.String if o.value_type == "string" else pl.Float64).alias(o.label)
        for o in outs
    )
    return Compiled(
        qaggs, qterms, parts, intent_leaves, prefixes,
        {irank_name(g): prim.ideal_rank(pl.col(REL), g).over(Q) for g in gains}, values,
    )

