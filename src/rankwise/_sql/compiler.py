"""The SQL compiler: every metric's recipe (:mod:`rankwise.metrics.recipes`) compiled into one SQL
statement of ``rw_*`` macro calls, shared by the DuckDB engine, :func:`rankwise.to_sql` and
Spark (whose dialect differences are :data:`rankwise._sql.inline.DIALECT_RULES`).

Each primitive, input and scalar operation of :mod:`rankwise.primitives` is one macro of
``sql/``, called through :func:`bind` by its parameter names; the compiler only decides where
each value is computed (per-query aggregates, running sums in the ranking window, row columns,
the ideal prefix joined at each rank). Parameter values reach SQL only as validated literals
and names only as checked, quoted identifiers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from rankwise._sql.macros import macros
from rankwise.conventions import TIE_ORDERS, Columns, Conventions, TieKey, quote_identifier
from rankwise.errors import InvalidParameterError
from rankwise.metrics.metric import Metric
from rankwise.metrics.recipes import Output, outputs
from rankwise.primitives import (
    ALPHA,
    BASE_RUN_COLUMNS,
    CATALOG_COLUMNS,
    CATEGORY_COLUMNS,
    FAIR_COLUMNS,
    FEATURE_COLUMNS,
    FEATURE_HISTORY_COLUMNS,
    GROUP_COLUMNS,
    IDEAL_SCORE_DIGITS,
    INTENT_SIDES,
    PATIENCE,
    SET_COLUMNS,
    TRAIN_COLUMNS,
    TRAIN_PAIR_COLUMNS,
    Bound,
    Calibration,
    CategoryEntropy,
    Gain,
    IdealPrefix,
    IdealRank,
    Input,
    Miscalibration,
    Node,
    Op,
    Primitive,
    QrelsPrimitive,
    RowValue,
    RunIdealRank,
    RunIdealValue,
    Step,
    Value,
    deepest,
    fold,
    ideal_depth,
    leaves,
    prefix_values,
    read_input,
    variant,
)


def gain_sql(g: Gain, rel: str = "relevance") -> str:
    """SQL for the gain of column ``rel`` under a :class:`Gain` (rw_gain unless customised;
    rw_signed_gain when negative relevance keeps its gain)."""
    sql = f"rw_{'signed_' if g.negative else ''}gain({rel}, {literal(g.kind)})"
    if g.table:
        cases = " ".join(f"WHEN {rel} = {literal(lv)} THEN {literal(gv)}" for lv, gv in g.table)
        sql = f"CASE {cases} ELSE {sql} END"
    if g.table or g.min_rel > 0:
        below = f"({rel} >= 0 AND {rel} < {literal(g.min_rel)})" if g.negative else f"{rel} < 0 OR {rel} < {literal(g.min_rel)}"
        sql = f"CASE WHEN {rel} IS NULL OR {below} THEN 0.0 ELSE {sql} END"
    return sql


def ideal_rank_sql(g: Gain) -> str:
    """Window: rank in the ideal (gain-descending) order of a query's rows."""
    key = "coalesce(relevance, 0.0)" if g.monotone else gain_sql(g)
    return f"row_number() OVER (PARTITION BY query_id ORDER BY {key} DESC)"


class IntParam(int):
    """An integer that is a macro's parameter (e.g. ``rw_evaluate``'s cutoff ``k``): written
    as its name."""

    param_name: str

    def __new__(cls, name: str, value: int) -> IntParam:
        obj = super().__new__(cls, value)
        obj.param_name = name
        return obj


class FloatParam(float):
    """A number that is a macro's parameter: written as its name."""

    param_name: str

    def __new__(cls, name: str, value: float) -> FloatParam:
        obj = super().__new__(cls, value)
        obj.param_name = name
        return obj


def literal(value: Value) -> str:
    """A validated Python value as a SQL literal (a :class:`Gain` as its gain expression, a
    macro's parameter as its name)."""
    if isinstance(value, (IntParam, FloatParam)):
        return value.param_name
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


def bind(obj: Bound, input_of: Callable[[str, Input], str] | None = None) -> str:
    """A call of ``obj``'s SQL macro (``rw_`` + its binding name, see :mod:`rankwise.primitives`),
    its arguments given by the macro's parameter names: the row columns (``rel`` is
    ``relevance``, ``rnk`` the rank, ``qid`` the query), its inputs (``input_of(name, input)``; for a scalar
    operation, its operands), and its other fields as literals (a :class:`Gain` as the gain of the
    row's relevance)."""
    name = f"rw_{obj.binding()}"
    macro = macros().get(name)
    if macro is None:
        raise InvalidParameterError(f"no SQL macro {name} for {type(obj).__name__}")
    given, values = obj.inputs(), obj.values()
    operands = obj.operands() if isinstance(obj, Op) else {}
    args = []
    variants = obj.variant_columns()
    for param in macro.params:
        if param in variants:  # a row column computed with the primitive's parameters
            args.append(variants[param])
        elif param in _ROW_COLUMNS:
            args.append(_ROW_COLUMNS[param])
        elif param in given or param in operands:
            if input_of is None:
                raise InvalidParameterError(f"{obj!r} reads {param} here, where it cannot be computed")
            args.append(input_of(param, given.get(param)))  # type: ignore[arg-type]
        else:
            args.append(literal(values[param]))  # type: ignore[arg-type]
    return f"{name}({', '.join(args)})"


_ROW_COLUMNS = {
    "rel": "relevance", "rnk": "rnk", "qid": "query_id", "score": "score", "cost": "cost",
    **{name: name for name in TRAIN_COLUMNS},
    **{name: name for name in FEATURE_COLUMNS},
    **{name: name for name in SET_COLUMNS},
    **{name: name for name in BASE_RUN_COLUMNS},
    **{name: name for name in CATEGORY_COLUMNS},
    **{name: name for name in CATALOG_COLUMNS},
    **{name: name for name in (*TRAIN_PAIR_COLUMNS, *FEATURE_HISTORY_COLUMNS)},
    **{name: name for name in FAIR_COLUMNS},
    **{name: name for name in GROUP_COLUMNS},
    "doc": "doc_id",
}


def _no_row_input(given: Bound, name: str) -> str:
    raise InvalidParameterError(f"{given!r} reads {name} here, where it cannot be computed")


def _given(column: str) -> Callable[[str, Input], str]:
    """An input resolver that gives ``column`` (the ideal rank, for the run-ordered ideal)."""
    return lambda name, given: column


def _prefix_given(comp: _Compiler, irank: str) -> Callable[[str, Input], str]:
    """The input resolver of a value of the ideal prefix: the ideal rank's column ``irank``, or
    the column of another value of the prefix (computed before it)."""
    return lambda name, given: comp.prefix_col(given) if isinstance(given, IdealPrefix) else irank


class _Compiler:
    """Collects, for one statement, the columns every primitive needs and names them."""

    def __init__(self) -> None:
        self.qaggs: dict[Primitive, str] = {}
        self.parts: dict[bool, dict[Primitive, str]] = {}
        self.rowcols: dict[bool, dict[str, str]] = {}
        """Per part: columns computed on the ranked rows (windows over ``rnk``, row values)."""
        self.steps: dict[bool, dict[str, str]] = {}
        """Per part: running sums, as their per-row steps, summed over the ranking window."""
        self.reads: dict[tuple[bool, bool], set[str]] = {}
        """Per part and kind of primitive (True: those that declare ``judged_rows``): the
        columns of :attr:`steps` and :attr:`rowcols` the primitives of that kind read, so that
        each kind can be aggregated over its own rows (:func:`statement`)."""
        self.prefix_reads: set[tuple[bool, bool]] = set()
        """The (part, kind) whose primitives read the ideal prefix (joined at each rank)."""
        self.qrels_reads: set[tuple[bool, bool]] = set()
        """The (part, kind) whose primitives read a per-query value of the judgments."""
        self.every_row: set[bool] = set()
        """The parts whose ``judged_rows`` primitives read a row value or the run's ideal rank
        (values of the query's every row): they are aggregated over every row."""
        self.names: dict[Step | RowValue, str] = {}
        self.iranks: dict[tuple[Gain, str], str] = {}
        self.prefixes: dict[Gain, int] = {}
        self.prefix_read: dict[IdealPrefix, None] = {}
        """The values of the ideal prefix read (an ordered set): only these are computed."""
        self.run_ideal: dict[RunIdealValue, str] = {}
        """Values of the run-ordered ideal (joined to the ranked rows by document): columns."""
        self.run_ideal_parts: set[bool] = set()
        """The parts (rankings) whose rows read them."""
        self.train = False
        """Whether a run primitive reads the training interactions' values (:data:`~rankwise.primitives.TRAIN_COLUMNS`)."""
        self.base = False
        """Whether a run primitive reads the base run's values (:data:`~rankwise.primitives.BASE_RUN_COLUMNS`)."""
        self.catalog = False
        """Whether a run primitive reads the catalog's size (:data:`~rankwise.primitives.CATALOG_COLUMNS`)."""
        self.groups = False
        """Whether a run primitive reads the item's groups (:data:`~rankwise.primitives.GROUP_COLUMNS`)."""
        self.item_pairs: dict[bool, tuple[int | None, set[str]]] = {}
        """Per part whose run primitives read item-pair values (:data:`~rankwise.primitives.TRAIN_PAIR_COLUMNS`,
        :data:`~rankwise.primitives.FEATURE_HISTORY_COLUMNS`): the deepest cutoff they read and the columns."""
        self.pairs: dict[bool, int | None] = {}
        """Per part whose run primitives read the item features' pair distances
        (:data:`~rankwise.primitives.FEATURE_COLUMNS`): the deepest cutoff they read (None: every rank)."""
        self.doc_parts: set[bool] = set()
        """The parts a row value reads the document id of (a stochastic run's window over each
        document's samples): their ranked rows carry it."""
        self.categories: set[bool] = set()
        self.category_depth: dict[bool, int | None] = {}
        """Per part whose run primitives read the item categories' values: the deepest cutoff they
        read (None: every rank). The values at a rank read the rows above it only: computed on
        the rows down to that depth."""
        """The parts whose run primitives read the item categories' values
        (:data:`~rankwise.primitives.CATEGORY_COLUMNS`)."""
        self.patiences: dict[bool, set[float]] = {}
        """Per part: the patiences its run primitives read the weighted category counts with
        besides the default (``catcountg``, ``catentg``: computed with each)."""
        self.calibrations: dict[bool, set[tuple[Calibration, float]]] = {}
        """Per part: the (definition, α) of each miscalibration at each rank (``miscal``) its run
        primitives read."""
        self.fair: dict[bool, int | None] = {}
        """Per part whose run primitives read the divergences from the target
        (:data:`~rankwise.primitives.FAIR_COLUMNS`): the deepest cutoff they read (None: every rank)."""
        self.intents: dict[tuple[str, float, float, bool], dict[Primitive, str]] = {}
        """Diversity primitives by group (side, threshold, the ideal's alpha, whether the
        run's pairs are those of the judged-only ranking): their columns."""

    def intent_col(self, node: Primitive, part: bool) -> str:
        """The column of a diversity primitive, in its group's table ``ia<n>``."""
        alpha = float(getattr(node, "alpha", 0.0)) if node.side == "ideal_intents" else 0.0
        key = (node.side, float(getattr(node, "t")), alpha, part and node.side == "intents")  # noqa: B009
        group = self.intents.setdefault(key, {})
        col = group.setdefault(node, f"i{len(group)}")
        return f"ia{list(self.intents).index(key)}.{col}"

    def prefix_col(self, value: IdealPrefix) -> str:
        """The column of a value of the ideal prefix (of its gain definition's ideal order),
        registered with the values it reads (only those read are computed)."""
        self.irank_col(value.g, "qrels")
        n = self.prefixes.setdefault(value.g, len(self.prefixes))
        for inner in prefix_values(value):
            self.prefix_read.setdefault(inner, None)
        self.prefix_read.setdefault(value, None)
        return f"{value.binding()}{n}"

    def irank_col(self, gain: Gain, side: str) -> str:
        """Ideal-rank column of a gain definition, on the run rows or the judgments (where
        rw_ideal_order's irank, by relevance, already serves every monotone gain)."""
        if side == "qrels" and gain.monotone:
            return "irank"
        return self.iranks.setdefault((gain, side), f"irank_{side}{len(self.iranks)}")

    def qrels_col(self, node: Primitive) -> str:
        return self.qaggs.setdefault(node, f"q{len(self.qaggs)}")

    def qrels_sql(self, node: Primitive) -> str:
        def input_of(name: str, given: Input) -> str:
            if isinstance(given, IdealRank):
                return self.irank_col(given.g, "qrels")
            if isinstance(given, IdealPrefix):
                return self.prefix_col(given)
            raise InvalidParameterError(f"{given!r} cannot be computed over the judgments")

        return bind(node, input_of)

    def kind_steps(self, part: bool, judged: bool) -> dict[str, str]:
        """The running sums of ``part`` that its primitives of one kind read (``judged``: those
        that declare ``judged_rows``)."""
        reads = self.reads.get((part, judged), set())
        return {c: e for c, e in self.steps.get(part, {}).items() if c in reads}

    def sums_judged(self, part: bool) -> bool:
        """Whether the primitives of ``part`` that declare ``judged_rows`` read running sums."""
        return bool(self.kind_steps(part, True)) or any(
            c in self.reads.get((part, True), ()) for c in self.rowcols.get(part, {})
        )

    def run_col(self, node: Primitive, part: bool) -> str:
        aggs = self.parts.setdefault(part, {})
        if node not in aggs:
            self.run_sql(node, part)  # registers the columns it reads
            self.train |= bool(set(node.reads) & set(TRAIN_COLUMNS))
            self.base |= bool(set(node.reads) & set(BASE_RUN_COLUMNS))
            if set(node.reads) & set(CATEGORY_COLUMNS):
                self.categories.add(part)
                self.category_depth[part] = deepest(self.category_depth.get(part, 0), getattr(node, "k", None))
            if isinstance(node, CategoryEntropy) and node.geometric:
                self.patiences.setdefault(part, set()).add(node.patience)
            if isinstance(node, Miscalibration):
                self.calibrations.setdefault(part, set()).add((node.definition, node.alpha))
                # Steck's reads the users' training items (rw_train_seen)
                self.train |= "train" in node.side_inputs()
            self.catalog |= bool(set(node.reads) & set(CATALOG_COLUMNS))
            self.groups |= bool(set(node.reads) & set(GROUP_COLUMNS))
            paired = set(node.reads) & {*TRAIN_PAIR_COLUMNS, *FEATURE_HISTORY_COLUMNS}
            if paired:
                depth, cols = self.item_pairs.get(part, (0, set()))
                self.item_pairs[part] = (deepest(depth, getattr(node, "k", None)), cols | paired)
            if set(node.reads) & set(FEATURE_COLUMNS):
                self.pairs[part] = deepest(self.pairs.get(part, 0), getattr(node, "k", None))
            if set(node.reads) & set(FAIR_COLUMNS):
                self.fair[part] = deepest(self.fair.get(part, 0), getattr(node, "k", None))
            aggs[node] = f"r{int(part)}_{len(aggs)}"
        return aggs[node]

    def run_sql(self, node: Primitive, part: bool) -> str:
        rows = self.rowcols.setdefault(part, {})
        steps = self.steps.setdefault(part, {})
        kind = (part, node.on_judged_rows)
        reads = self.reads.setdefault(kind, set())

        def plain_step(name: str, given: Input) -> str:
            """A running sum read by another step: summed in the ranking window."""
            if not isinstance(given, Step) or "rnk" in given.reads or _reads_running_sums(given):
                raise InvalidParameterError(f"{given!r} cannot be read by a step (one level of running sums)")
            col = self.names.setdefault(given, f"s{len(self.names)}")
            steps.setdefault(col, bind(given))
            reads.add(col)
            return col

        def step(given: Step) -> str:
            col = self.names.setdefault(given, f"s{len(self.names)}")
            if _reads_running_sums(given):
                # a step of other running sums (summed in the ranking window): a second window
                rows.setdefault(col, f"rw_running_sum({bind(given, plain_step)}, query_id, rnk)")
            elif "rnk" in given.reads:  # a step that reads the rank sums in a second window
                rows.setdefault(col, f"rw_running_sum({bind(given)}, query_id, rnk)")
            else:
                steps.setdefault(col, bind(given))
            reads.add(col)
            return col

        def row_value(given: RowValue) -> str:
            if "doc" in given.reads:
                self.doc_parts.add(part)
            if node.on_judged_rows and given.window:
                # a window over the query's rows: every row of them
                self.every_row.add(part)
            col = self.names.setdefault(given, f"v{len(self.names)}")
            # its running sums, summed in the ranking window before the row values
            rows.setdefault(col, bind(given, lambda name, inner: step(inner) if isinstance(inner, Step)
                                      else _no_row_input(given, name)))
            reads.add(col)
            return col

        def ideal_rank(given: IdealRank) -> str:
            if node.on_judged_rows:
                self.every_row.add(part)
            col = self.irank_col(given.g, "run")
            rows.setdefault(col, ideal_rank_sql(given.g))
            reads.add(col)
            return col

        def ideal_prefix(given: IdealPrefix) -> str:
            self.prefix_reads.add(kind)
            return self.prefix_col(given)

        def qrels(given: QrelsPrimitive) -> str:
            self.qrels_reads.add(kind)
            return self.qrels_col(given)

        def run_ideal_value(given: RunIdealValue) -> str:
            self.run_ideal_parts.add(part)
            return self.run_ideal.setdefault(given, f"rv{len(self.run_ideal)}")

        def run_ideal_rank(given: RunIdealRank) -> str:
            raise InvalidParameterError(f"{given!r} is read through the values of its order only")

        def input_of(name: str, given: Input) -> str:
            return read_input(
                given, step=step, row_value=row_value, ideal_rank=ideal_rank, ideal_prefix=ideal_prefix,
                run_ideal_value=run_ideal_value, run_ideal_rank=run_ideal_rank, qrels=qrels,
            )

        return bind(node, input_of)

    def final(self, node: Node, part: bool) -> str:
        def primitive(leaf: Primitive) -> str:
            if leaf.side in INTENT_SIDES:
                return f"coalesce({self.intent_col(leaf, part)}, 0.0)"
            if leaf.side == "qrels":
                return f"qs.{self.qrels_col(leaf)}"
            col = f"ag{int(part)}.{self.run_col(leaf, part)}"
            return col if leaf.empty is None else f"coalesce({col}, {literal(leaf.empty)})"

        return fold(
            node, const=literal, primitive=primitive,
            operation=lambda op, operands: bind(op, lambda name, given: operands[name]),
        )


def _reads_running_sums(step: Step) -> bool:
    return any(isinstance(i, Step) for i in step.inputs().values())


TIE_SQL: dict[TieKey, str] = {
    "score": "score",
    "relevance": "coalesce(relevance, 0.0)",
    "doc_text": "CAST(doc_id AS STRING)",
    "doc": "doc_id",
    "input": "input_order",
}
"""Each tie key of :data:`~rankwise.conventions.TIE_ORDERS` over the joined rows. ``input_order``
(``ties='input'`` only) is the run row's position in the run as given, a column of the run the
caller provides (:data:`INPUT_ORDER`)."""

RANKED_RUN_COLUMNS = ("rnk0", "last0")
"""The run's own ranks, which a run already in rank order carries (``ranked_run`` of
:func:`build_sql`): each row's rank in its query's full ranking (1, 2, ...), and 1.0 on each
query's last row, else 0.0: the values of the ranking window's ``row_number()`` and
``cume_dist()``, which then do not sort the run again (the DuckDB engine's run read in rank
order, :func:`rankwise._duckdb.engine.rank_order`)."""

INPUT_ORDER = "input_order"
"""The run's column of its rows' order as given (a number, ascending), which the run's FROM
fragment holds under ``ties='input'`` only: the DuckDB engine's run view numbers its rows,
:func:`rankwise.to_sql` numbers the run table's (the dialect's
:attr:`~rankwise._sql.inline.DialectRules.input_order`)."""


def score_sql(trec_eval: str) -> str:
    """The score as the ranking compares it: trec_eval 9 rounds it to a 32-bit float."""
    return "rw_float32(score)" if trec_eval == "9" else "score"


def tie_order(ties: str, trec_eval: str = "10") -> str:
    """The ORDER BY of a tie policy (:data:`~rankwise.conventions.TIE_ORDERS`, as in
    ``rw_ranked``) over the joined rows. Doc ids compared as text are cast to text (a no-op
    on text ids): integer ids then rank as trec_eval's ``strcmp`` ranks them. With
    ``trec_eval='9'`` the score is rounded to a 32-bit float first (``rw_float32``)."""
    keys: dict[TieKey, str] = {**TIE_SQL, "score": score_sql(trec_eval)}
    return ", ".join(f"{keys[k]} {'DESC' if desc else 'ASC'}" for k, desc in TIE_ORDERS[ties])

UNJUDGED_COLUMN = "__rw_unjudged_queries"
"""The extra output column of :func:`build_sql` with ``count_unjudged``."""


_RUNNING = "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
"""The frame of a running sum: the query's rows down to the current one."""


def _full_ranking(conv: Conventions, steps: Mapping[str, str] | None = None, given: bool = False) -> str:
    """The joined rows with their rank in the full ranking (``rnk0``), ``last0`` (1.0 on each
    query's last ranked row: its ``cume_dist()``, a window of the same sort as the rank; a count
    over each query would cost a pass of its own) and the running sums of ``steps`` (column →
    per-row step): one sort per query serves them all. With ``given`` the run carries ``rnk0``
    and ``last0`` already (:data:`RANKED_RUN_COLUMNS`): no window ranks it, and the running
    sums follow ``rnk0``."""
    order = "rnk0" if given else tie_order(conv.tie_order, conv.trec_eval)
    over = f"OVER (PARTITION BY query_id ORDER BY {order})"
    ranks = "" if given else f", row_number() {over} AS rnk0, cume_dist() {over} AS last0"
    sums = "".join(f", sum({step}) OVER w AS {col}" for col, step in (steps or {}).items())
    window = f" WINDOW w AS (PARTITION BY query_id ORDER BY {order} {_RUNNING})" if steps else ""
    return f"SELECT *{ranks}{sums} FROM joined{window}"


def _ranking_cte(
    name: str, conv: Conventions, judged_only: bool, steps: Mapping[str, str], judged_rows: bool = False,
    docs: bool = False, train: bool = False, base: bool = False, catalog: bool = False, groups: bool = False,
    ranks: str | None = None, given: bool = False, top: int = 0,
) -> str:
    """The joined rows ranked (``rnk``) with every running sum of ``steps`` (column → per-row
    step), all in one window: one sort per query serves the rank and every running sum.

    ``max_rank`` is applied by the caller on ``rnk`` (running sums are prefix sums, so cutting
    after them changes nothing), except with ``judged_only``: trec_eval cuts the ranking at
    ``max_rank`` first and then drops the unjudged documents, so that case ranks twice.

    With ``judged_rows`` (every primitive reading these rows declares ``judged_rows``) the
    rows are ranked first (:func:`_full_ranking`), then only the judged ones are kept, with
    each query's top row (so that every run query still reaches the aggregation) and its
    deepest rank (the last row, and the row at ``max_rank``: the number of ranked rows,
    ``Count``, is the deepest rank left after the cut): the running sums then sum down far
    fewer rows (judged rows, in rank order), and the aggregation reads fewer. ``ranks``: the
    CTE of that full ranking when another aggregation reads it too (the rows of the other
    primitives); without ``judged_rows``, this CTE is then every row of it, whose running sums
    of ``steps`` it computed already. With ``docs`` the rows keep their doc_id (to join values
    of the run-ordered ideal). With ``given`` the run carries its ranks (:data:`RANKED_RUN_COLUMNS`):
    ``rnk0`` orders the rows instead of the tie policy's keys, and the full ranking is not
    computed. ``top``: with ``judged_rows``, the rows at rank ≤ ``top`` are kept too (those that
    primitives reading the top rows alone read, :attr:`~rankwise.primitives.Primitive.top_rows`)."""
    order = "rnk0" if given else tie_order(conv.tie_order, conv.trec_eval)
    # the full ranking, as rnk0, when the ranked rows are filtered before the running sums
    ranked_all = "joined" if given else (
        f"(SELECT *, row_number() OVER (PARTITION BY query_id ORDER BY {order}) AS rnk0 FROM joined)"
    )
    source, where, rank = "joined", "", "row_number() OVER w"
    sums = "".join(f", sum({step}) OVER w AS {col}" for col, step in steps.items())
    windowed = True
    if judged_only:
        # unjudged documents, and those judged negative (trec_eval 10: "in the pool but
        # unjudged"), leave the ranking, and the rest is ranked again
        where = " WHERE relevance >= 0"
        if conv.max_rank is not None:
            source, order = ranked_all, "rnk0"
            where += f" AND rnk0 <= {literal(conv.max_rank)}"
    elif judged_rows:
        # the ranks stay those of the full ranking
        source = ranks or f"({_full_ranking(conv, given=given)})"
        order, rank = "rnk0", "rnk0"
        cut = "" if conv.max_rank is None else f" OR rnk0 = {literal(conv.max_rank)}"
        first = f"rnk0 <= {literal(top)}" if top > 1 else "rnk0 = 1"
        where = f" WHERE relevance IS NOT NULL OR {first} OR last0 = 1.0{cut}"
    elif ranks is not None:
        # every row of the full ranking, its running sums summed there
        source, rank, windowed = ranks, "rnk0", False
        sums = "".join(f", {col}" for col in steps)
    # the score as the ranking compares it, for the row values over tie groups (the engines
    # drop the column where nothing reads it)
    # the run-ordered ideal breaks ties as the ranking does: under ties='input', by the run's order
    carried = "doc_id, " + (f"{INPUT_ORDER}, " if conv.ties == "input" else "") if docs else ""
    carried += "".join(f"{c}, " for c in TRAIN_COLUMNS) if train else ""
    carried += "".join(f"{c}, " for c in BASE_RUN_COLUMNS) if base else ""
    carried += "".join(f"{c}, " for c in CATALOG_COLUMNS) if catalog else ""
    carried += "".join(f"{c}, " for c in GROUP_COLUMNS) if groups else ""
    window = f" WINDOW w AS (PARTITION BY query_id ORDER BY {order} {_RUNNING})" if windowed else ""
    return (
        f"{name} AS (SELECT query_id, {carried}relevance, {score_sql(conv.trec_eval)} AS score, cost, "
        f"{rank} AS rnk{sums} FROM {source}{where}{window})"
    )


def build_sql(
    metrics: Sequence[Metric], conv: Conventions, columns: Columns, run_view: str, qrels_view: str,
    quote: Callable[[str], str] = quote_identifier, *, count_unjudged: bool = False,
    subtopics_view: str | None = None, recursion: str = "", train_view: str | None = None,
    seen_view: str | None = None, features_view: str | None = None, base_view: str | None = None,
    categories_view: str | None = None,
    catalog_view: str | None = None,
    fair: FairViews | None = None,
    keep: Callable[[list[str]], list[str]] | None = None,
    ranked_run: bool = False,
) -> str:
    """One SQL statement computing every metric per query from two normalised views, calling
    the ``rw_*`` macros (``rankwise._sql.inline`` inlines them for other engines); ``quote``
    quotes identifiers for the target dialect. With ``count_unjudged`` the result has one more
    column, :data:`UNJUDGED_COLUMN`: how many run queries have no judgment at all. ``keep``,
    ``ranked_run``: see :func:`statement`."""
    run, qrels = quote(run_view), quote(qrels_view)
    return statement(
        outputs(metrics, conv), conv, columns, run, qrels, literal(qrels_view), quote, count_unjudged=count_unjudged,
        subtopics=None if subtopics_view is None else quote(subtopics_view), recursion=recursion,
        train=None if train_view is None else quote(train_view), seen=None if seen_view is None else quote(seen_view),
        features=None if features_view is None else quote(features_view),
        base=None if base_view is None else quote(base_view),
        categories=None if categories_view is None else quote(categories_view),
        catalog=None if catalog_view is None else quote(catalog_view),
        fair=None if fair is None else fair.quoted(quote), keep=keep, ranked_run=ranked_run,
    )


def statement(
    columns_out: Sequence[Output], conv: Conventions, columns: Columns, run: str, qrels: str, judgments: str,
    quote: Callable[[str], str] = quote_identifier, *, count_unjudged: bool = False,
    subtopics: str | None = None, recursion: str = "", train: str | None = None, seen: str | None = None,
    features: str | None = None, base: str | None = None, categories: str | None = None,
    catalog: str | None = None,
    fair: FairViews | None = None,
    keep: Callable[[list[str]], list[str]] | None = None,
    ranked_run: bool = False,
) -> str:
    """The statement of :func:`build_sql` for output columns: ``run`` and ``qrels`` are the
    inputs' FROM fragments (normalised: query_id, doc_id, score[, cost] | relevance; the run's
    cost column when ``columns.cost`` is set), ``judgments`` the
    argument of ``rw_ideal_order`` that reads the qrels; ``subtopics`` the FROM fragment of the
    judgments per subtopic (query_id, subtopic, doc_id, relevance; None: the qrels, one
    subtopic per query), ``recursion`` the dialect's limit clause of a recursive CTE.,
    ``features`` the FROM fragment of the item features in their long form (doc_id, feature: the
    dimension, value: a number), which the feature-diversity family reads; ``base`` the FROM
    fragment of the base run (normalised as the run: query_id, doc_id, score[, input_order]),
    which the base-run family reads, ranked here as the run is; ``categories`` the FROM fragment of
    the item categories (doc_id, category: one row per pair), which the category family reads;
    ``catalog`` the FROM fragment of the catalog's items (doc_id), whose size the serendipity family
    reads; ``fair`` the document groups and the target (:class:`FairViews`), which the fair-exposure
    family reads; ``keep``, given the CTEs that read the judgments alone (their ideal order and
    prefixes, their per-query sums: ``name AS (body)``, each reading those before it; only under
    ``judgments='all'``), returns the CTEs the statement uses instead, of the same names and
    rows (an evaluator's tables of them, :class:`rankwise._duckdb.engine.KeptJudgments`);
    ``ranked_run``: the run is in its ranking's order and carries its ranks
    (:data:`RANKED_RUN_COLUMNS`), which the run's ranking reads instead of sorting it"""
    comp = _Compiler()
    outs: list[str] = []
    for out in columns_out:
        part = out.judged_only
        for leaf in leaves(out.tree):  # register run primitives first so their row columns exist
            if leaf.side == "run":
                comp.run_col(leaf, part)
        sql_type = "STRING" if out.value_type == "string" else "DOUBLE"
        outs.append(f"CAST({comp.final(out.tree, part)} AS {sql_type}) AS {quote(out.label)}")

    qaggs = ", ".join(f"{comp.qrels_sql(n)} AS {c}" for n, c in list(comp.qaggs.items()))
    qranks = "".join(
        f", {ideal_rank_sql(g)} AS {c}" for (g, side), c in comp.iranks.items() if side == "qrels"
    )
    train_ctes, train_cols, train_joins = _train_values(comp.train, train, seen)
    base_ctes, base_cols, base_joins = _base_values(comp.base, base, qrels, conv)
    catalog_ctes, catalog_cols, catalog_joins = _catalog_values(comp.catalog, catalog)
    group_ctes, group_cols, group_joins = _group_lists(comp.groups, fair)
    base_ctes += catalog_ctes + group_ctes
    given = "".join(f", r.{c}" for c in RANKED_RUN_COLUMNS) if ranked_run else ""
    joined = joined_cte(
        conv, columns, run, qrels, f"{given}{train_cols}{base_cols}{catalog_cols}{group_cols}",
        f"{train_joins}{base_joins}{catalog_joins}{group_joins}",
    )
    # judgments='retrieved': the judgments' side reads the listed documents' judgments (the
    # ranking, joined, still reads every judgment), before everything that reads them
    first = [] if conv.judgments == "all" else [*base_ctes, joined, _listed_judgments(conv, run, qrels)]
    if first:
        judgments = literal(LISTED_JUDGMENTS)
    # the inputs are checked before the statement (the engines' checks, or to_sql's check CTEs)
    # rw_ideal_order: the judgments unchecked (rw_judgments(..., checks := false) would still
    # compute its check's subquery, a grouping of every judgment by (query, document))
    ctes = [f"qj AS (SELECT *{qranks} FROM rw_ideal_order({judgments}))"]
    ideal_joins = ""
    if comp.prefixes:
        # the ideal prefix of each gain definition (every declared IdealPrefix: running IDCG,
        # running excess cost, run-of-equal-gains boundaries, ...) down the ideal order,
        # joined to the ranked rows at rank = ideal rank
        # (a value that reads others, a window over their windows, in a second select)
        windows: dict[bool, list[str]] = {False: [], True: []}
        tables = []
        for gain, n in comp.prefixes.items():
            irank = comp.irank_col(gain, "qrels")
            values = [v for v in comp.prefix_read if v.g == gain]
            cols = [comp.prefix_col(v) for v in values]
            for v, c in zip(values, cols, strict=True):
                windows[v.reads_prefix].append(f"{bind(v, _prefix_given(comp, irank))} AS {c}")
            tables.append(
                f"ideal{n} AS (SELECT query_id AS iq{n}, {irank} AS ip{n}, {', '.join(cols)} "
                f"FROM qjp WHERE greatest({gain_sql(gain)}, 0.0) > 0)"
            )
            ideal_joins += f" LEFT JOIN ideal{n} ON ideal{n}.iq{n} = r.query_id AND ideal{n}.ip{n} = r.rnk"
        ctes[0] = "qj0" + ctes[0][2:]
        ctes.append(f"qjp AS (SELECT *, {', '.join(windows[False])} FROM qj0)")
        if windows[True]:
            ctes[-1] = "qjp0" + ctes[-1][3:]
            ctes.append(f"qjp AS (SELECT *, {', '.join(windows[True])} FROM qjp0)")
        ctes += tables
        qj = "qjp"
    else:
        qj = "qj"
    ctes += [
        f"{'qs0' if first else 'qs'} AS (SELECT query_id, count(*) AS n_judged"
        + (", " + qaggs if qaggs else "")
        + f" FROM {qj} GROUP BY query_id)",
    ]
    if keep is not None and not first:
        ctes = keep(ctes)
    if first:
        # a run query whose judgments all went is still judged: its counts and sums over no
        # judgment are 0
        filled = "".join(f", coalesce({c}, 0) AS {c}" for c in ["n_judged", *comp.qaggs.values()])
        ctes.append(
            f"qs AS (SELECT query_id{filled} FROM (SELECT DISTINCT query_id FROM {qrels}) AS jq "
            "LEFT JOIN qs0 USING (query_id))"
        )
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
    ctes += train_ctes
    if not first:
        ctes += base_ctes
        ctes.append(joined)
    joins = []
    for part, aggs in comp.parts.items():
        p = int(part)
        reads_ideal = part in comp.run_ideal_parts
        docs = (
            reads_ideal or part in comp.pairs or part in comp.categories or part in comp.item_pairs
            or part in comp.fair or part in comp.doc_parts
        )
        keep_unjudged = p == 0 and count_unjudged
        cut = f" WHERE r.rnk <= {literal(conv.max_rank)}" if conv.max_rank is not None else ""

        # the primitives that declare judged_rows read the judged rows alone (each at its rank
        # among all rows), and those that read the top rows alone (top_rows) the rows down to
        # the deepest of those ranks besides, unless they read values of every row (a window
        # over the rows, the run's ideal rank); judged-only rankings hold judged rows only
        judged = {} if part or docs or part in comp.every_row else {n: c for n, c in aggs.items() if n.on_judged_rows}
        top_depth = max((n.top_rows or 0 for n in judged), default=0)
        rest = {n: c for n, c in aggs.items() if n not in judged}
        if rest and not comp.sums_judged(part):
            # beside the others, judged-rows primitives without running sums are aggregated over
            # every row: their aggregation over fewer rows does not pay for a second one (about
            # 5-10% more CPU at 1M rows, unj_5 beside P@k)
            judged, rest = {}, aggs
        if judged and rest:
            # both kinds: one full ranking (with the running sums the others read) feeds the
            # judged rows' aggregation (their running sums summed down those rows alone) and
            # the aggregation of the others over every row
            ctes += [
                f"ranks{p} AS ({_full_ranking(conv, comp.kind_steps(part, False), ranked_run)})",
                _ranking_cte(
                    f"rankedj{p}", conv, part, comp.kind_steps(part, True), True, train=comp.train, base=comp.base,
                    catalog=comp.catalog, groups=comp.groups, ranks=f"ranks{p}", given=ranked_run, top=top_depth,
                ),
                _ranking_cte(
                    f"ranked{p}", conv, part, comp.kind_steps(part, False), train=comp.train, base=comp.base,
                    catalog=comp.catalog, groups=comp.groups, ranks=f"ranks{p}", given=ranked_run,
                ),
                *_aggregation(comp, part, f"j{p}", f"rankedj{p}", judged, [True], keep_unjudged, ideal_joins, cut),
                # the others' rows joined with the judgments' values only if they read one (the
                # queries are those of the judged rows': the LEFT JOIN drops the others)
                *_aggregation(
                    comp, part, f"r{p}", f"ranked{p}", rest, [False], False, ideal_joins, cut,
                    judged=(part, False) in comp.qrels_reads,
                ),
                f"ag{p} AS (SELECT * FROM agj{p} LEFT JOIN agr{p} USING (query_id))",
            ]
        else:
            ctes.append(_ranking_cte(
                f"ranked{p}", conv, part, comp.steps.get(part, {}), bool(judged), docs=docs, train=comp.train,
                base=comp.base, catalog=comp.catalog, groups=comp.groups, given=ranked_run, top=top_depth,
            ))
            rowcols = ""
            pair_joins = ""
            if part in comp.pairs:
                pair_ctes, pair_cols, pair_joins = _pair_distances(f"ranked{p}", p, comp.pairs[part], features)
                ctes += pair_ctes
                rowcols += pair_cols
            if part in comp.categories:
                depth = comp.category_depth[part]
                top = f"ranked{p}" if depth is None else f"(SELECT * FROM ranked{p} WHERE rnk <= {literal(depth)})"
                category_ctes, category_cols, category_joins = _category_values(
                    top, p, categories, comp.patiences.get(part, set()), comp.calibrations.get(part, set()),
                    qrels, conv,
                )
                ctes += category_ctes
                rowcols += category_cols
                pair_joins += category_joins
            if part in comp.item_pairs:
                depth, wanted = comp.item_pairs[part]
                item_ctes, item_cols, item_joins = _item_pairs(f"ranked{p}", p, depth, wanted, train, seen, features)
                ctes += item_ctes
                rowcols += item_cols
                pair_joins += item_joins
            if part in comp.fair:
                fair_ctes, fair_cols, fair_joins = _fair_values(f"ranked{p}", p, comp.fair[part], fair, qrels, conv)
                ctes += fair_ctes
                rowcols += fair_cols
                pair_joins += fair_joins
            run_ideal_joins = ""
            if reads_ideal:
                run_ideal_ctes, run_ideal_joins = _run_ideal(comp, conv, f"(SELECT * FROM ranked{p} AS r{cut})", qj, p)
                ctes += run_ideal_ctes
            ctes += _aggregation(
                comp, part, str(p), f"ranked{p}", aggs, [False, True], keep_unjudged, ideal_joins, cut, rowcols,
                run_ideal_joins + pair_joins,
            )
        inner = p == 0 and conv.missing == "ignore"
        joins.append(f"{'JOIN' if inner else 'LEFT JOIN'} ag{p} USING (query_id)")
    recursive = False
    if comp.intents:
        source = subtopics or f"(SELECT query_id, '0' AS subtopic, doc_id, relevance FROM {qrels})"
        if first:  # judgments='retrieved': the listed documents' judgments per subtopic
            source = f"(SELECT s.* FROM {source} AS s SEMI JOIN {LISTED_JUDGMENTS} USING (query_id, doc_id))"
        intent_ctes, intent_joins, recursive = _intent_ctes(comp, conv, source, recursion)
        ctes += intent_ctes
        joins += intent_joins
    if count_unjudged:
        unjudged = (
            "SELECT count(*) FROM ag0 WHERE NOT judged" if from_full
            else "SELECT count(*) FROM present ANTI JOIN qs USING (query_id)"
        )
        outs.append(f"({unjudged}) AS {quote(UNJUDGED_COLUMN)}")
    ctes = first + ctes
    return (
        ("WITH RECURSIVE " if recursive else "WITH ") + ",\n".join(ctes)
        + f"\nSELECT query_id AS {quote(columns.query_id)}, "
        + ", ".join(outs)
        + f"\nFROM {base} AS qs " + " ".join(joins)
        + "\nORDER BY 1"
    )


def _aggregation(
    comp: _Compiler, part: bool, suffix: str, ranked: str, members: Mapping[Primitive, str], kinds: Collection[bool],
    keep: bool, prefix_joins: str, cut: str, cols: str = "", joins: str = "", judged: bool = True,
) -> list[str]:
    """The CTEs ``rows<suffix>`` and ``ag<suffix>``: the ranked rows ``ranked`` of ``part``
    with the row columns its primitives of ``kinds`` read (``comp.reads``; True: those that
    declare ``judged_rows``) and ``cols`` (from ``joins``), joined with the judgments'
    per-query values (``keep``: the unjudged queries too, flagged ``judged``) and the ideal
    prefix (``prefix_joins``, made only when those primitives read it), cut at ``max_rank``
    (``cut``); then ``members`` aggregated per query. Not ``judged``: the rows are not joined
    with the judgments' values (none is read: the rows of the unjudged queries are aggregated
    too, and the caller leaves them out)."""
    rowcols = "".join(
        f", {e} AS {n}" for n, e in comp.rowcols.get(part, {}).items()
        if any(n in comp.reads.get((part, kind), ()) for kind in kinds)
    )
    prefixes = prefix_joins if any((part, kind) in comp.prefix_reads for kind in kinds) else ""
    sel = ", ".join(f"{comp.run_sql(n, part)} AS {c}" for n, c in members.items())
    if keep:
        sel += ", any_value(n_judged) IS NOT NULL AS judged"
    # the row columns (windows over the ranked rows' own columns) computed before the joins: a
    # window sorts its input's every column, and the joins would widen it
    source = f"(SELECT *{rowcols} FROM {ranked})" if rowcols else ranked
    judgments = f" {'LEFT JOIN' if keep else 'JOIN'} qs USING (query_id)" if judged or keep else ""
    return [
        f"rows{suffix} AS (SELECT *{cols} FROM {source} AS r{judgments}{prefixes}{joins}{cut})",
        f"ag{suffix} AS (SELECT query_id, {sel} FROM rows{suffix} GROUP BY query_id)",
    ]


def joined_cte(conv: Conventions, columns: Columns, run: str, qrels: str, cols: str = "", joins: str = "") -> str:
    """The ``joined`` CTE: the run's rows (``run``, a FROM fragment) LEFT JOIN their judgments
    (``qrels``), with the cost (the run's cost column, ``columns.cost``, else 1 a document), the
    run's order as given under ``ties='input'`` (a tie key), and ``cols`` from ``joins``."""
    cost = "CAST(1.0 AS DOUBLE) AS cost" if columns.cost is None else "r.cost"
    order = f", r.{INPUT_ORDER}" if conv.ties == "input" else ""
    return (
        f"joined AS (SELECT r.query_id, r.doc_id, r.score, {cost}, j.relevance{order}{cols} FROM {run} AS r "
        f"LEFT JOIN {qrels} AS j ON r.query_id = j.query_id AND r.doc_id = j.doc_id{joins})"
    )


def _train_values(reads: bool, train: str | None, seen: str | None = None) -> tuple[list[str], str, str]:
    """The training interactions' values on the joined rows (``reads``: a metric reads them;
    ``train``: the FROM fragment of the training rows, query_id = the user, doc_id = the item;
    ``seen``: that of the (query, item) pairs whose user has the item, where the queries are not
    the users, None: the training rows'):
    the CTEs (each item's distinct training users and rows, the totals, the (user, item) pairs),
    the joined rows' columns (:data:`~rankwise.primitives.TRAIN_COLUMNS`) and their joins."""
    if not reads:
        return [], "", ""
    if train is None:
        raise InvalidParameterError("a metric reads the training interactions: pass train=")
    ctes = [
        # ibefore: the users of the items more popular than it (ties by item id), Elliot's short head
        # iasc: its place by rows ascending (ties by item id), RecBole's long tail
        "rw_train_items AS (SELECT doc_id, iusers, irows, coalesce(sum(iusers) OVER (ORDER BY iusers DESC, doc_id ASC "
        "ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0.0) AS ibefore, "
        "CAST(row_number() OVER (ORDER BY irows ASC, doc_id ASC) AS DOUBLE) AS iasc, "
        # the popularity quantiles (average ascending rank over the items): LensKit's MeanPopRank
        "(rank() OVER (ORDER BY iusers) + (count(*) OVER (PARTITION BY iusers) - 1) / 2.0) / count(*) OVER () AS iqusers, "
        "(rank() OVER (ORDER BY irows) + (count(*) OVER (PARTITION BY irows) - 1) / 2.0) / count(*) OVER () AS iqrows, "
        # the dense popularity rank by rows, 1 the most interacted: rectools' Serendipity
        "CAST(dense_rank() OVER (ORDER BY irows DESC) AS DOUBLE) AS idense "
        "FROM (SELECT doc_id, "
        f"CAST(count(DISTINCT query_id) AS DOUBLE) AS iusers, CAST(count(*) AS DOUBLE) AS irows FROM {train} "
        "GROUP BY doc_id) AS per_item)",
        f"rw_train_totals AS (SELECT (SELECT CAST(count(DISTINCT query_id) AS DOUBLE) FROM {train}) AS nusers, "
        "sum(irows) AS nrows, sum(iusers) AS npairs, min(iusers) AS minusers, CAST(count(*) AS DOUBLE) AS nitems "
        "FROM rw_train_items)",
        f"rw_train_seen AS (SELECT DISTINCT query_id, doc_id FROM {seen or train})",
    ]
    cols = (
        ", coalesce(ti.iusers, 0.0) AS iusers, coalesce(ti.irows, 0.0) AS irows, coalesce(ti.ibefore, 0.0) AS ibefore, "
        "coalesce(ti.iasc, 0.0) AS iasc, coalesce(ti.iqusers, 0.0) AS iqusers, coalesce(ti.iqrows, 0.0) AS iqrows, "
        "coalesce(ti.idense, 0.0) AS idense, tt.nusers, tt.nrows, tt.npairs, tt.minusers, tt.nitems, "
        "ts.query_id IS NOT NULL AS seen"
    )
    joins = (
        " LEFT JOIN rw_train_items AS ti ON r.doc_id = ti.doc_id"
        " LEFT JOIN rw_train_seen AS ts ON r.query_id = ts.query_id AND r.doc_id = ts.doc_id"
        " CROSS JOIN rw_train_totals AS tt"
    )
    return ctes, cols, joins


def _catalog_values(reads: bool, catalog: str | None) -> tuple[list[str], str, str]:
    """The catalog's size on the joined rows (``reads``: a metric reads it; ``catalog``: the FROM
    fragment of its items, doc_id): the CTE (its distinct items counted), the joined rows' column
    (:data:`~rankwise.primitives.CATALOG_COLUMNS`) and its join."""
    if not reads:
        return [], "", ""
    if catalog is None:
        raise InvalidParameterError("a metric reads the catalog: pass catalog=")
    ctes = [f"rw_catalog_size AS (SELECT CAST(count(DISTINCT doc_id) AS DOUBLE) AS ncatalog FROM {catalog})"]
    return ctes, ", cs.ncatalog", " CROSS JOIN rw_catalog_size AS cs"


def _group_lists(reads: bool, fair: FairViews | None) -> tuple[list[str], str, str]:
    """Each joined row's item's groups (``reads``: a metric reads them; ``fair``: the document
    groups): the CTE (the groups in which each item has a weight above 0, as text), the joined
    rows' column (:data:`~rankwise.primitives.GROUP_COLUMNS`; NULL for an item the groups do
    not hold) and its join."""
    if not reads:
        return [], "", ""
    if fair is None:
        raise InvalidParameterError("a metric reads the document groups: pass groups=")
    ctes = [
        f"rw_group_lists AS (SELECT doc_id, array_agg(CAST(grp AS VARCHAR)) AS fgroups FROM {fair.groups} "
        "WHERE weight > 0 GROUP BY doc_id)"
    ]
    return ctes, ", gl.fgroups", " LEFT JOIN rw_group_lists AS gl ON r.doc_id = gl.doc_id"


def _base_values(reads: bool, base: str | None, qrels: str, conv: Conventions) -> tuple[list[str], str, str]:
    """The base run's values on the joined rows (``reads``: a metric reads them; ``base``: the
    FROM fragment of the base run, normalised as the run): the CTEs (the base run joined with the
    judgments and ranked as the run is, by the tie policy's order and cut at ``max_rank``; its
    users), the joined rows' columns (:data:`~rankwise.primitives.BASE_RUN_COLUMNS`) and their joins."""
    if not reads:
        return [], "", ""
    if base is None:
        raise InvalidParameterError("a metric reads the base run: pass base_run=")
    order = f", b.{INPUT_ORDER}" if conv.ties == "input" else ""
    cut = "" if conv.max_rank is None else f" WHERE brank <= {literal(conv.max_rank)}"
    ctes = [
        f"rw_base_joined AS (SELECT b.query_id, b.doc_id, b.score, j.relevance{order} FROM {base} AS b "
        f"LEFT JOIN {qrels} AS j ON b.query_id = j.query_id AND b.doc_id = j.doc_id)",
        "rw_base_ranked AS (SELECT * FROM (SELECT query_id, doc_id, CAST(row_number() OVER (PARTITION BY query_id "
        f"ORDER BY {tie_order(conv.tie_order, conv.trec_eval)}) AS DOUBLE) AS brank FROM rw_base_joined) AS b{cut})",
        f"rw_base_users AS (SELECT DISTINCT query_id FROM {base})",
    ]
    cols = ", bb.brank, bu.query_id IS NOT NULL AS blisted"
    joins = (
        " LEFT JOIN rw_base_ranked AS bb ON r.query_id = bb.query_id AND r.doc_id = bb.doc_id"
        " LEFT JOIN rw_base_users AS bu ON r.query_id = bu.query_id"
    )
    return ctes, cols, joins


@dataclass(frozen=True)
class FairViews:
    """The FROM fragments the fair-exposure family reads: the document groups (doc_id, grp,
    weight) and the target's shares (query_id when ``per_query``, grp, share; None: each query's
    relevant documents' shares)."""

    groups: str
    target: str | None
    per_query: bool = False

    def quoted(self, quote: Callable[[str], str]) -> FairViews:
        """The same with its views' names quoted."""
        return FairViews(quote(self.groups), None if self.target is None else quote(self.target), self.per_query)


def _js_term(p: str, q: str) -> str:
    """A group's term of the Jensen-Shannon divergence (natural log) between ``p`` and ``q``
    (NULL where ``p`` is): half of p ln(2p / (p + q)) + q ln(2q / (p + q)), a zero share adding
    nothing."""
    return (
        f"(CASE WHEN {p} IS NULL THEN NULL ELSE (CASE WHEN {p} > 0 THEN {p} * ln(2.0 * {p} / ({p} + {q})) ELSE 0.0 END"
        f" + CASE WHEN {q} > 0 THEN {q} * ln(2.0 * {q} / ({p} + {q})) ELSE 0.0 END) / 2.0 END)"
    )


def _fair_values(
    ranked: str, p: int, depth: int | None, fair: FairViews | None, qrels: str, conv: Conventions
) -> tuple[list[str], str, str]:
    """The ranked rows' divergences from the query's target (:data:`~rankwise.primitives.FAIR_COLUMNS`),
    on the rows of ``ranked`` ranked ≤ ``depth`` (None: every row; NULL elsewhere): each (row,
    group of the query's target) pair carries the group's running sum of the rows' discounted
    weights w_g(d_i) / log2(max(i, 2)); over the groups, their shares of that exposure against
    the target's, and the sums of TREC's expected exposure (of every row, and of the relevant rows
    alone, relevance ≥ ``conv.rel``). The target: ``fair.target``'s shares, or the shares of every group among each
    query's relevant documents (relevance ≥ ``conv.rel``). The CTEs, the rows' columns and their joins."""
    if fair is None:
        raise InvalidParameterError("a metric reads the document groups: pass groups=")
    top = "" if depth is None else f" WHERE rnk <= {literal(depth)}"
    queries = f"(SELECT DISTINCT query_id FROM rw_ftop{p})"
    if fair.target is None:
        # every group of the groups (a group without a relevant document: share 0)
        weights = (
            f"SELECT j.query_id, g.grp, sum(g.weight) AS w FROM {qrels} AS j JOIN {fair.groups} AS g "
            f"ON g.doc_id = j.doc_id WHERE j.relevance >= {literal(float(conv.rel))} AND j.query_id IN {queries} "
            "GROUP BY j.query_id, g.grp"
        )
        target = (
            "SELECT t.query_id, a.grp, coalesce(w.w, 0.0) / t.total AS share FROM (SELECT query_id, sum(w) AS total "
            f"FROM ({weights}) AS rw GROUP BY query_id HAVING sum(w) > 0) AS t CROSS JOIN (SELECT DISTINCT grp FROM "
            f"{fair.groups}) AS a LEFT JOIN ({weights}) AS w ON w.query_id = t.query_id AND w.grp = a.grp"
        )
    elif fair.per_query:
        target = f"SELECT t.query_id, t.grp, t.share FROM {fair.target} AS t WHERE t.query_id IN {queries}"
    else:
        target = f"SELECT q.query_id, t.grp, t.share FROM {queries} AS q CROSS JOIN {fair.target} AS t"
    ctes = [
        f"rw_ftop{p} AS (SELECT query_id, rnk, doc_id, relevance FROM {ranked}{top})",
        f"rw_ftarget{p} AS ({target})",
        f"rw_fexp{p} AS (SELECT a.query_id, a.rnk, g.grp, g.weight / greatest(1.0, log2(a.rnk)) AS e, "
        # the relevant rows' alone (TREC 2022's EEL)
        f"CASE WHEN a.relevance >= {literal(float(conv.rel))} THEN g.weight / greatest(1.0, log2(a.rnk)) ELSE 0.0 END AS er "
        f"FROM rw_ftop{p} AS a JOIN {fair.groups} AS g ON g.doc_id = a.doc_id)",
        f"rw_fgrid{p} AS (SELECT a.query_id, a.rnk, t.share, sum(coalesce(e.e, 0.0)) OVER (PARTITION BY a.query_id, "
        "t.grp ORDER BY a.rnk ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS ca, "
        "sum(coalesce(e.er, 0.0)) OVER (PARTITION BY a.query_id, "
        "t.grp ORDER BY a.rnk ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS car "
        f"FROM rw_ftop{p} AS a JOIN rw_ftarget{p} AS t ON t.query_id = a.query_id "
        f"LEFT JOIN rw_fexp{p} AS e ON e.query_id = a.query_id AND e.rnk = a.rnk AND e.grp = t.grp)",
        f"rw_fshare{p} AS (SELECT query_id, rnk, share, ca, car, ca / nullif(sum(ca) OVER (PARTITION BY query_id, rnk), "
        f"0.0) AS pa FROM rw_fgrid{p})",
        f"rw_fjsd{p} AS (SELECT query_id AS fq, rnk AS fr, sum({_js_term('pa', 'share')}) AS jsd, sum(ca * ca) AS a2, "
        f"sum(ca * share) AS aq, sum(car * car) AS a2r, sum(car * share) AS aqr FROM rw_fshare{p} GROUP BY query_id, rnk)",
        f"rw_fjsd0{p} AS (SELECT query_id AS uq, sum({_js_term('1.0 / n', 'share')}) AS jsd0, sum(share * share) AS q2 "
        f"FROM (SELECT query_id, share, count(*) OVER (PARTITION BY query_id) AS n FROM rw_ftarget{p}) AS ft "
        "GROUP BY query_id)",
    ]
    cols = (
        ", CAST(fj.jsd AS DOUBLE) AS fjsd, CAST(fu.jsd0 AS DOUBLE) AS fjsd0, CAST(fj.a2 AS DOUBLE) AS fa2, "
        "CAST(fj.aq AS DOUBLE) AS faq, CAST(fu.q2 AS DOUBLE) AS fq2, CAST(fj.a2r AS DOUBLE) AS fa2r, "
        "CAST(fj.aqr AS DOUBLE) AS faqr"
    )
    joins = (
        f" LEFT JOIN rw_fjsd{p} AS fj ON fj.fq = r.query_id AND fj.fr = r.rnk"
        f" LEFT JOIN rw_fjsd0{p} AS fu ON fu.uq = r.query_id"
    )
    return ctes, cols, joins


def _pair_distances(ranked: str, p: int, depth: int | None, features: str | None) -> tuple[list[str], str, str]:
    """The ranked rows' summed distances to the items ranked above them
    (:data:`~rankwise.primitives.FEATURE_COLUMNS`), on the rows of ``ranked`` ranked ≤ ``depth``
    (None: every row; 0 elsewhere), from the item features (``features``: the FROM fragment of
    their long form, doc_id, feature, value): the CTEs, the rows' columns and their join.

    Each item of the top rows has its vector gathered into one list (sorted by dimension) with its squared norm,
    its nonzero features as a list of 0/1 and their count; each pair of a query's top ``depth``
    is one row with both items' lists, whose dot product (``list_dot_product``), differing
    features (counted element by element) and features nonzero in both (the dot product of
    the 0/1 lists: exact counts) are list functions of that row, no row per (pair, feature);
    then its distances are summed per row. Written in DuckDB's spelling: Spark's is
    :data:`~rankwise._sql.inline.DIALECT_RULES`'."""
    if features is None:
        raise InvalidParameterError("a metric reads the item features: pass features=")
    top = "" if depth is None else f" WHERE rnk <= {literal(depth)}"
    vector = "list_transform(array_sort(array_agg(struct_pack(f := feature, x := value))), lambda e: e.x)"
    differ = (
        "list_sum(list_transform(generate_series(1, len(fa.v)), lambda i: "
        "CASE WHEN list_extract(fa.v, i) <> list_extract(fb.v, i) THEN 1.0 ELSE 0.0 END))"
    )
    ctes = [
        f"rw_top{p} AS (SELECT query_id, rnk, doc_id FROM {ranked}{top})",
        # the vectors of the items some top lists, only
        f"rw_vectors{p} AS (SELECT doc_id, v, list_dot_product(v, v) AS n, z, list_sum(z) AS nz FROM "
        "(SELECT doc_id, v, list_transform(v, lambda x: CASE WHEN x <> 0 THEN 1.0 ELSE 0.0 END) AS z FROM "
        f"(SELECT doc_id, {vector} AS v FROM {features} WHERE doc_id IN (SELECT doc_id FROM rw_top{p}) "
        "GROUP BY doc_id) AS fv) AS fz)",
        # the top rows' pairs (at most depth² per query), each with both items' vectors
        f"rw_pairs{p} AS (SELECT a.query_id, a.rnk, list_dot_product(fa.v, fb.v) AS dot, fa.n AS na, fb.n AS nb, "
        f"{differ} AS differ, list_dot_product(fa.z, fb.z) AS both_set, fa.nz + fb.nz AS nonzero "
        f"FROM rw_top{p} AS a JOIN rw_top{p} AS b ON a.query_id = b.query_id AND b.rnk < a.rnk "
        f"LEFT JOIN rw_vectors{p} AS fa ON fa.doc_id = a.doc_id LEFT JOIN rw_vectors{p} AS fb ON fb.doc_id = b.doc_id)",
        f"rw_pair_sums{p} AS (SELECT query_id AS pq, rnk AS pr, "
        "sum(1.0 - CASE WHEN na * nb > 0 THEN dot / sqrt(na * nb) ELSE 0.0 END) AS pcos, sum(differ) AS pham, "
        "sum(CASE WHEN nonzero - both_set > 0 THEN 1.0 - both_set / (nonzero - both_set) ELSE 0.0 END) AS pjac "
        f"FROM rw_pairs{p} GROUP BY query_id, rnk)",
    ]
    cols = (
        ", CAST(coalesce(ps.pcos, 0.0) AS DOUBLE) AS dcosine, CAST(coalesce(ps.pham, 0.0) AS DOUBLE) AS dhamming, "
        "CAST(coalesce(ps.pjac, 0.0) AS DOUBLE) AS djaccard"
    )
    return ctes, cols, f" LEFT JOIN rw_pair_sums{p} AS ps ON ps.pq = r.query_id AND ps.pr = r.rnk"


def _category_values(
    ranked: str, p: int, categories: str | None, patiences: Collection[float] = (),
    calibrations: Collection[tuple[Calibration, float]] = (), qrels: str = "", conv: Conventions | None = None,
) -> tuple[list[str], str, str]:
    """The ranked rows' values from the item categories (:data:`~rankwise.primitives.CATEGORY_COLUMNS`),
    on the rows of ``ranked``, from ``categories`` (the FROM fragment of (doc_id, category) pairs):
    the CTEs (each ranked row's (query, category) pairs with the category's running count and
    running sum of the rank weights patience^(rnk − 1) down the query's ranking, for the default
    patience and each of ``patiences`` (their :func:`~rankwise.primitives.categories.variant`
    columns), summed per row; the input's categories), the rows' columns and their joins. For
    each (definition, α) of ``calibrations``, the miscalibration of the list cut at each rank
    (``miscal``'s variant; as the Polars engine's ``with_miscalibration``): Steck's, the history's
    p(g) from the users' training items (``rw_train_seen``), each ranked row meeting every
    category of its user's p with the listed items' shares of it summed down the ranking and the
    categorised items listed so far."""
    if categories is None:
        raise InvalidParameterError("a metric reads the item categories: pass categories=")
    window = "OVER (PARTITION BY query_id, category ORDER BY rnk ROWS BETWEEN UNBOUNDED PRECEDING AND"
    weighted = [PATIENCE, *sorted(set(patiences) - {PATIENCE})]
    names = [("w", "sw", "sw0", "ccountg", "centg")] + [
        (f"w{i}", f"sw{i}", f"sv{i}", f"ccountg{i}", f"centg{i}") for i in range(1, len(weighted))
    ]
    weights = "".join(
        f", CAST(rw_category_weight(r.rnk, {literal(patience)}) AS DOUBLE) AS {w}"
        for patience, (w, *_) in zip(weighted, names, strict=True)
    )
    runs = "".join(
        f", {w}, sum({w}) {window} CURRENT ROW) AS {sw}, coalesce(sum({w}) {window} 1 PRECEDING), 0.0) AS {sw0}"
        for w, sw, sw0, _, _ in names
    )
    sums = "".join(
        f", sum({w}) AS {count}, sum(rw_category_h({sw}) - rw_category_h({sw0})) AS {ent}"
        for w, sw, sw0, count, ent in names
    )
    ctes = [
        f"rw_category_rows{p} AS (SELECT r.query_id, r.rnk, c.category{weights} "
        f"FROM {ranked} AS r JOIN {categories} AS c ON r.doc_id = c.doc_id)",
        f"rw_category_runs{p} AS (SELECT query_id, rnk, CAST(row_number() OVER (PARTITION BY query_id, category "
        f"ORDER BY rnk) AS DOUBLE) AS n{runs} FROM rw_category_rows{p})",
        f"rw_category_sums{p} AS (SELECT query_id AS cq, rnk AS cr, sum(CASE WHEN n = 1 THEN 1.0 ELSE 0.0 END) AS cnew, "
        f"CAST(count(*) AS DOUBLE) AS ccount, sum(rw_category_h(n) - rw_category_h(n - 1)) AS cent{sums} "
        f"FROM rw_category_runs{p} GROUP BY query_id, rnk)",
        f"rw_category_all{p} AS (SELECT CAST(count(DISTINCT category) AS DOUBLE) AS ncategories FROM {categories})",
    ]
    cols = (
        ", CAST(coalesce(cs.cnew, 0.0) AS DOUBLE) AS catnew, CAST(coalesce(cs.ccount, 0.0) AS DOUBLE) AS catcount, "
        "CAST(coalesce(cs.cent, 0.0) AS DOUBLE) AS catent"
    )
    for patience, (_, _, _, count, ent) in zip(weighted, names, strict=True):
        cols += (
            f", CAST(coalesce(cs.{count}, 0.0) AS DOUBLE) AS {variant('catcountg', patience, defaults=(PATIENCE,))}, "
            f"CAST(coalesce(cs.{ent}, 0.0) AS DOUBLE) AS {variant('catentg', patience, defaults=(PATIENCE,))}"
        )
    cols += ", ca.ncategories AS catall"
    joins = (
        f" LEFT JOIN rw_category_sums{p} AS cs ON cs.cq = r.query_id AND cs.cr = r.rnk"
        f" CROSS JOIN rw_category_all{p} AS ca"
    )
    for n, (definition, alpha) in enumerate(sorted(calibrations)):
        calibration = _librec_calibration if definition == "librec" else _calibration
        more_ctes, col, join = calibration(ranked, f"{p}_{n}", categories, alpha, qrels, conv)
        ctes += more_ctes
        cols += col
        joins += join
    return ctes, cols, joins


def _calibration(
    ranked: str, p: str, categories: str, alpha: float, qrels: str = "", conv: Conventions | None = None
) -> tuple[list[str], str, str]:
    """Steck's miscalibration of the list cut at each rank of ``ranked`` (``miscal``'s
    :func:`~rankwise.primitives.categories.variant` for ``alpha``): the CTEs, the rows' column and
    its join (``p`` names the CTEs apart)."""
    # as doubles: Spark reads a literal such as 0.01 as a DECIMAL, whose products it rounds
    mix = f"CAST({literal(alpha)} AS DOUBLE)"
    rows = "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
    ctes = [
        f"rw_category_share{p} AS (SELECT doc_id, category, CAST(1.0 AS DOUBLE) / count(*) OVER (PARTITION BY doc_id) "
        "AS share "
        f"FROM {categories})",
        f"rw_history{p} AS (SELECT query_id, category, s / sum(s) OVER (PARTITION BY query_id) AS p FROM "
        f"(SELECT h.query_id, c.category, sum(c.share) AS s FROM rw_train_seen AS h JOIN rw_category_share{p} AS c "
        "ON h.doc_id = c.doc_id GROUP BY h.query_id, c.category) AS hs)",
        f"rw_listed{p} AS (SELECT r.query_id, r.rnk, sum(CASE WHEN c.doc_id IS NULL THEN 0.0 ELSE 1.0 END) OVER "
        f"(PARTITION BY r.query_id ORDER BY r.rnk {rows}) AS n FROM {ranked} AS r LEFT JOIN "
        f"(SELECT DISTINCT doc_id FROM {categories}) AS c ON r.doc_id = c.doc_id)",
        f"rw_calibration{p} AS (SELECT query_id AS mq, rnk AS mr, sum(rw_calibration_term(p, "
        f"CASE WHEN n > 0 THEN c / n ELSE 0.0 END, {mix}, {literal(math.e)})) AS mcal FROM (SELECT r.query_id, r.rnk, h.p, "
        f"ls.n, sum(coalesce(s.share, 0.0)) OVER (PARTITION BY r.query_id, h.category ORDER BY r.rnk {rows}) AS c "
        f"FROM {ranked} AS r JOIN rw_history{p} AS h ON h.query_id = r.query_id LEFT JOIN rw_category_share{p} AS s "
        f"ON s.doc_id = r.doc_id AND s.category = h.category JOIN rw_listed{p} AS ls ON ls.query_id = r.query_id "
        "AND ls.rnk = r.rnk) AS x GROUP BY query_id, rnk)",
    ]
    name = variant("miscal", "steck", alpha, defaults=("steck", ALPHA))
    return ctes, f", CAST(mc{p}.mcal AS DOUBLE) AS {name}", f" LEFT JOIN rw_calibration{p} AS mc{p} ON mc{p}.mq = r.query_id AND mc{p}.mr = r.rnk"


def _librec_calibration(
    ranked: str, p: str, categories: str, alpha: float, qrels: str = "", conv: Conventions | None = None
) -> tuple[list[str], str, str]:
    """LibRec's miscalibration of the list cut at each rank of ``ranked`` (``miscal``'s variant for
    'librec' and ``alpha``; as the Polars engine's ``with_librec_calibration``): each user's relevant
    judgments (relevance ≥ the conventions' rel) and their share of each category (q), each ranked
    row meeting every category of its user's list with the listed items having it down to the row
    (p = that over rnk); Σ over the categories with p > 0 of p log2(p / q̃), 0 where there is none,
    NULL for a user without a relevant judgment. The CTEs, the rows' column and its joins."""
    rel = literal(float((conv or Conventions()).rel))
    mix = f"CAST({literal(alpha)} AS DOUBLE)"
    rows = "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
    ctes = [
        # the columns named apart from the rows' (Spark refuses the ambiguous query_id of SELECT *)
        f"rw_tested{p} AS (SELECT query_id AS nq, CAST(count(DISTINCT doc_id) AS DOUBLE) AS nt FROM {qrels} "
        f"WHERE relevance >= {rel} GROUP BY query_id)",
        f"rw_test_share{p} AS (SELECT j.query_id AS tq, c.category AS tg, CAST(count(DISTINCT j.doc_id) AS DOUBLE) / "
        f"max(t.nt) AS q FROM {qrels} AS j JOIN {categories} AS c ON c.doc_id = j.doc_id JOIN rw_tested{p} AS t ON "
        f"t.nq = j.query_id WHERE j.relevance >= {rel} GROUP BY j.query_id, c.category)",
        f"rw_list_categories{p} AS (SELECT DISTINCT r.query_id AS lq, c.category AS lg FROM {ranked} AS r "
        f"JOIN {categories} AS c ON r.doc_id = c.doc_id)",
        f"rw_calibration{p} AS (SELECT x.query_id AS mq, x.rnk AS mr, sum(rw_calibration_term(x.c / CAST(x.rnk AS DOUBLE), "
        f"coalesce(ts.q, 0.0), {mix}, CAST(2.0 AS DOUBLE))) AS mcal FROM (SELECT r.query_id, r.rnk, lc.lg, "
        # as doubles: Spark's 1.0 is a DECIMAL, whose quotient it rounds
        "sum(CASE WHEN s.doc_id IS NULL THEN CAST(0.0 AS DOUBLE) ELSE CAST(1.0 AS DOUBLE) END) OVER (PARTITION BY "
        "r.query_id, lc.lg ORDER BY r.rnk "
        f"{rows}) AS c FROM {ranked} AS r JOIN rw_list_categories{p} AS lc ON lc.lq = r.query_id LEFT JOIN "
        f"{categories} AS s ON s.doc_id = r.doc_id AND s.category = lc.lg) AS x LEFT JOIN rw_test_share{p} AS ts "
        "ON ts.tq = x.query_id AND ts.tg = x.lg WHERE x.c > 0 GROUP BY x.query_id, x.rnk)",
    ]
    name = variant("miscal", "librec", alpha, defaults=("steck", ALPHA))
    col = f", CASE WHEN tt{p}.nt IS NULL THEN NULL ELSE CAST(coalesce(mc{p}.mcal, 0.0) AS DOUBLE) END AS {name}"
    joins = (
        f" LEFT JOIN rw_calibration{p} AS mc{p} ON mc{p}.mq = r.query_id AND mc{p}.mr = r.rnk"
        f" LEFT JOIN rw_tested{p} AS tt{p} ON tt{p}.nq = r.query_id"
    )
    return ctes, col, joins


def _item_pairs(
    ranked: str, p: int, depth: int | None, wanted: set[str], train: str | None, seen: str | None,
    features: str | None,
) -> tuple[list[str], str, str]:
    """The ranked rows' item-pair values (``wanted`` of :data:`~rankwise.primitives.TRAIN_PAIR_COLUMNS`
    and :data:`~rankwise.primitives.FEATURE_HISTORY_COLUMNS`; ``hlen`` always) on the rows of
    ``ranked`` ranked ≤ ``depth`` (None: every row): the CTEs, the rows' columns and their joins.
    ``train``: the FROM fragment of the training rows, whose users give the co-occurrence
    co(i, j) = Σ_u n_u(i) n_u(j) / sqrt(rows(i) rows(j)) (0 for a pair no user has both of);
    ``seen``: the (query, item) rows of each query's user (None: ``train``'s), its history;
    ``features``: the item features' long form, for the cosine. The pairs: each top row with its
    user's distinct training items (``hco``, ``hcos``: their mean over the history's rows) and
    with the top rows above it (``pco``: summed); the co-occurrence of each distinct pair meets
    the user rows of its item with fewer training rows; the joined CTEs' columns are named apart from the row columns (the
    rows select ``*`` of the join). Written in DuckDB's spelling (Spark's:
    :data:`~rankwise._sql.inline.DIALECT_RULES`)."""
    if train is None:
        raise InvalidParameterError("a metric reads the training interactions: pass train=")
    top = "" if depth is None else f" WHERE rnk <= {literal(depth)}"
    ctes = [
        f"rw_itop{p} AS (SELECT query_id, rnk, doc_id FROM {ranked}{top})",
        f"rw_hist{p} AS (SELECT query_id, doc_id, CAST(count(*) AS DOUBLE) AS n FROM {seen or train} "
        "GROUP BY query_id, doc_id)",
        f"rw_hlen{p} AS (SELECT query_id AS lq, sum(n) AS hn FROM rw_hist{p} GROUP BY query_id)",
    ]
    cols = ", CAST(coalesce(hl.hn, 0.0) AS DOUBLE) AS hlen"
    joins = f" LEFT JOIN rw_hlen{p} AS hl ON hl.lq = r.query_id"
    co_pairs = []
    if wanted & {"hco", "hcos"}:
        ctes.append(
            f"rw_hpairs{p} AS (SELECT t.query_id, t.rnk, t.doc_id AS i, h.doc_id AS j, h.n FROM rw_itop{p} AS t "
            f"JOIN rw_hist{p} AS h ON t.query_id = h.query_id)"
        )
        if "hco" in wanted:
            co_pairs.append(f"SELECT i, j FROM rw_hpairs{p}")
    if "pco" in wanted:
        ctes.append(
            f"rw_lpairs{p} AS (SELECT a.query_id, a.rnk, a.doc_id AS i, b.doc_id AS j FROM rw_itop{p} AS a "
            f"JOIN rw_itop{p} AS b ON a.query_id = b.query_id AND b.rnk < a.rnk)"
        )
        co_pairs.append(f"SELECT i, j FROM rw_lpairs{p}")
    if co_pairs:
        ctes += [
            f"rw_counts{p} AS (SELECT query_id AS u, doc_id AS d, CAST(count(*) AS DOUBLE) AS c FROM {train} "
            "GROUP BY query_id, doc_id)",
            f"rw_irows{p} AS (SELECT d, sum(c) AS r FROM rw_counts{p} GROUP BY d)",
            f"rw_copairs{p} AS (SELECT DISTINCT i, j FROM ({' UNION ALL '.join(co_pairs)}) AS cp)",
            # both items in training (else no row: 0), the one with fewer rows first (ties: i)
            f"rw_oriented{p} AS (SELECT pp.i, pp.j, ra.r AS ri, rb.r AS rj, CASE WHEN ra.r <= rb.r THEN pp.i ELSE pp.j "
            f"END AS x, CASE WHEN ra.r <= rb.r THEN pp.j ELSE pp.i END AS y FROM rw_copairs{p} AS pp "
            f"JOIN rw_irows{p} AS ra ON ra.d = pp.i JOIN rw_irows{p} AS rb ON rb.d = pp.j)",
            # each distinct oriented pair meets the user rows of its rarer item, looked up in the other's
            f"rw_conum{p} AS (SELECT op.x, op.y, sum(a.c * b.c) AS num FROM (SELECT DISTINCT x, y FROM rw_oriented{p}) "
            f"AS op JOIN rw_counts{p} AS a ON a.d = op.x JOIN rw_counts{p} AS b ON b.u = a.u AND b.d = op.y "
            "GROUP BY op.x, op.y)",
            f"rw_co{p} AS (SELECT o.i, o.j, n.num / sqrt(o.ri * o.rj) AS co FROM rw_oriented{p} AS o "
            f"JOIN rw_conum{p} AS n ON n.x = o.x AND n.y = o.y)",
        ]
    if "hco" in wanted:
        ctes.append(
            f"rw_hco{p} AS (SELECT h.query_id AS cq, h.rnk AS cr, sum(h.n * coalesce(c.co, 0.0)) / sum(h.n) AS hcv "
            f"FROM rw_hpairs{p} AS h LEFT JOIN rw_co{p} AS c ON c.i = h.i AND c.j = h.j GROUP BY h.query_id, h.rnk)"
        )
        cols += ", CAST(hc.hcv AS DOUBLE) AS hco"
        joins += f" LEFT JOIN rw_hco{p} AS hc ON hc.cq = r.query_id AND hc.cr = r.rnk"
    if "hcos" in wanted:
        if features is None:
            raise InvalidParameterError("a metric reads the item features: pass features=")
        vector = "list_transform(array_sort(array_agg(struct_pack(f := feature, x := value))), lambda e: e.x)"
        ctes += [
            f"rw_hvec{p} AS (SELECT doc_id, v, list_dot_product(v, v) AS n FROM (SELECT doc_id, {vector} AS v "
            f"FROM {features} WHERE doc_id IN (SELECT i FROM rw_hpairs{p} UNION SELECT j FROM rw_hpairs{p}) "
            "GROUP BY doc_id) AS fv)",
            f"rw_hcos{p} AS (SELECT h.query_id AS sq, h.rnk AS sr, sum(h.n * CASE WHEN fa.n * fb.n > 0 "
            "THEN list_dot_product(fa.v, fb.v) / sqrt(fa.n * fb.n) ELSE 0.0 END) / sum(h.n) AS hsv "
            f"FROM rw_hpairs{p} AS h LEFT JOIN rw_hvec{p} AS fa ON fa.doc_id = h.i "
            f"LEFT JOIN rw_hvec{p} AS fb ON fb.doc_id = h.j GROUP BY h.query_id, h.rnk)",
        ]
        cols += ", CAST(hs.hsv AS DOUBLE) AS hcos"
        joins += f" LEFT JOIN rw_hcos{p} AS hs ON hs.sq = r.query_id AND hs.sr = r.rnk"
    if "pco" in wanted:
        ctes.append(
            f"rw_pco{p} AS (SELECT l.query_id AS oq, l.rnk AS orr, sum(coalesce(c.co, 0.0)) AS pcv FROM rw_lpairs{p} "
            f"AS l LEFT JOIN rw_co{p} AS c ON c.i = l.i AND c.j = l.j GROUP BY l.query_id, l.rnk)"
        )
        cols += ", CAST(coalesce(po.pcv, 0.0) AS DOUBLE) AS pco"
        joins += f" LEFT JOIN rw_pco{p} AS po ON po.oq = r.query_id AND po.orr = r.rnk"
    return ctes, cols, joins


def features_head(
    table: str, vector: str, item: str, item_name: str, exploded: str, gate: str | None = ""
) -> list[str]:
    """The CTE ``rw_features``: the item features' ``table`` (a FROM fragment; the item in the
    column ``item``, its vector in the list or array column ``vector``, both quoted;
    ``item_name``: the item column's name as a literal, for the error) in the long form (doc_id,
    feature, value; ``exploded``: the dialect's select list of a vector's elements,
    :attr:`~rankwise._sql.inline.DialectRules.exploded_vector`), read by the statement once
    their check (``rw_features_ok`` of ``sql/55_feature_diversity.sql``) has passed: no row, a
    NULL item or value, a NaN, vectors of different lengths or of none, an item given twice, an
    item the run (``rw_run``) lists without features. ``gate``: what comes before the check in
    the filter (``'NOT checks OR '``: a macro's switch); None: no check."""
    select = f"SELECT {item} AS doc_id, {exploded.format(vector=vector)} FROM {table}"
    if gate is None:
        return [f"rw_features AS ({select})"]
    return [
        f"rw_features_input AS ({select})",
        f"rw_features_sizes AS (SELECT {item} AS doc_id, CAST(coalesce(len({vector}), 0) AS DOUBLE) AS n FROM {table})",
        "rw_features_check AS (SELECT rw_features_ok("
        "(SELECT count(*) FROM rw_features_sizes), "
        "(SELECT count(*) - count(doc_id) FROM rw_features_sizes), "
        "(SELECT count(*) FROM (SELECT doc_id FROM rw_features_sizes GROUP BY doc_id HAVING count(*) > 1) AS twice), "
        "(SELECT count(*) FROM rw_features_sizes WHERE n = 0), "
        "(SELECT count(DISTINCT n) FROM rw_features_sizes), "
        "(SELECT count(*) FROM rw_features_input WHERE value IS NULL OR isnan(value)), "
        "(SELECT count(DISTINCT r.doc_id) FROM rw_run AS r LEFT JOIN (SELECT DISTINCT doc_id FROM rw_features_sizes) "
        f"AS f ON r.doc_id = f.doc_id WHERE f.doc_id IS NULL), {item_name}) AS ok)",
        f"rw_features AS (SELECT * FROM rw_features_input WHERE {gate}(SELECT ok FROM rw_features_check))",
    ]


LISTED_JUDGMENTS = "listed_judgments"
"""The CTE of the judgments ``judgments='retrieved'`` reads (:func:`_listed_judgments`)."""


def _listed_judgments(conv: Conventions, run: str, qrels: str) -> str:
    """The CTE :data:`LISTED_JUDGMENTS` (``judgments='retrieved'``,
    :data:`~rankwise.conventions.JudgmentsPolicy`): of each run query, the judgments of the
    documents its list holds (the run cut at ``max_rank``, ranked by the tie policy over every
    judgment: the ``joined`` CTE); of the judged queries absent from the run, all of them."""
    listed = f"(SELECT query_id, doc_id FROM {run})"
    if conv.max_rank is not None:
        listed = (
            f"(SELECT query_id, doc_id FROM (SELECT query_id, doc_id, row_number() OVER (PARTITION BY query_id "
            f"ORDER BY {tie_order(conv.ties, conv.trec_eval)}) AS rnk0 FROM joined) AS x "
            f"WHERE rnk0 <= {literal(conv.max_rank)})"
        )
    return (
        f"{LISTED_JUDGMENTS} AS (SELECT j.query_id, j.doc_id, j.relevance FROM {qrels} AS j "
        f"SEMI JOIN {listed} AS l ON j.query_id = l.query_id AND j.doc_id = l.doc_id "
        f"UNION ALL SELECT j.query_id, j.doc_id, j.relevance FROM {qrels} AS j "
        f"ANTI JOIN (SELECT DISTINCT query_id FROM {run}) AS p ON j.query_id = p.query_id)"
    )


def _run_ideal(comp: _Compiler, conv: Conventions, ranked: str, judgments: str, part: int) -> tuple[list[str], str]:
    """The run-ordered ideal of each gain definition the primitives read (CTEs
    ``rideal<part>_<n>``) and their LEFT JOINs to the ranked rows ``r`` by document.

    The judgments of positive gain (``judgments``, a CTE of the judgments) LEFT JOINed with
    the scores of the ranked documents (``ranked``: the part's ranked rows, cut at max_rank; a
    document not ranked: 0), ranked (``irank``) by gain, then by the tie policy's order; each
    value a window over that rank."""
    ctes: list[str] = []
    joins = ""
    gains = list(dict.fromkeys(v.g for v in comp.run_ideal))
    for n, gain in enumerate(gains):
        values = ", ".join(f"{bind(v, _given('irank'))} AS {c}" for v, c in comp.run_ideal.items() if v.g == gain)
        # ties='input': a document not ranked comes after every ranked one of its score
        order_col = f", coalesce(r.{INPUT_ORDER}, {2**63 - 1}) AS {INPUT_ORDER}" if conv.ties == "input" else ""
        scored = (
            f"SELECT j.query_id, j.doc_id, j.relevance, coalesce(r.score, 0.0) AS score{order_col} FROM {judgments} AS j "
            f"LEFT JOIN {ranked} AS r ON r.query_id = j.query_id AND r.doc_id = j.doc_id "
            f"WHERE greatest({gain_sql(gain, 'j.relevance')}, 0.0) > 0"
        )
        order = (
            f"SELECT query_id, doc_id, relevance, row_number() OVER (PARTITION BY query_id ORDER BY {gain_sql(gain)} DESC, "
            f"{tie_order(conv.tie_order, conv.trec_eval)}) AS irank FROM ({scored}) AS x"
        )
        name = f"rideal{part}_{n}"
        ctes.append(f"{name} AS (SELECT query_id AS rq{n}, doc_id AS rd{n}, {values} FROM ({order}) AS y)")
        joins += f" LEFT JOIN {name} ON {name}.rq{n} = r.query_id AND {name}.rd{n} = r.doc_id"
    return ctes, joins


# -- diversity: aggregates over (document, subtopic) pairs ------------------------------------

_INTENT_ROWS = {"rnk": "rnk", "cov": "cov", "nsub": "nsub", "sub": "subtopic", "qid": "query_id"}

def _bind_intent(node: Primitive) -> str:
    """A call of a diversity primitive's macro over pair rows (row columns, then its fields)."""
    name = f"rw_{node.binding()}"
    values = node.values()
    args = [_INTENT_ROWS[p] if p in _INTENT_ROWS else literal(values[p]) for p in macros()[name].params]  # type: ignore[arg-type]
    return f"{name}({', '.join(args)})"


def _greedy_ctes(n: int, pairs: str, alpha: float, depth: int | None, recursion: str) -> tuple[list[str], str]:
    """ndeval's greedy ideal ranking of the relevant pairs ``pairs`` (query_id, doc_id,
    subtopic): CTEs, and the FROM fragment of its pairs (query_id, rnk, cov).

    One row per query holds the state: ``cnt`` (how often each subtopic is covered so far) and
    ``placed`` (which documents are ranked). Each step of the recursive CTE ranks, in every
    query at once, the unplaced document whose subtopics' gains Σ (1 − alpha)^cnt are largest
    (rounded to 12 decimals; ties: the larger doc id as text), records its subtopics' counts
    (``covs``: their cov) and counts them once more. Only row-wise list functions read the
    recursive rows (Spark allows no aggregate or window over them); the state is one row per
    query and rank."""
    docs, state = f"gd{n}", f"gi{n}"
    decay = literal(1.0 - alpha)
    more = "" if depth is None else f" AND g.it < {literal(depth)}"
    limit = f" {recursion}" if recursion else ""
    each = "generate_series(1, len(docs))"
    ctes = [
        f"{docs} AS (SELECT query_id, array_agg(struct_pack(t := dtext, s := subs)) AS docs, max(ns) AS nsubs "
        "FROM (SELECT query_id, dtext, array_agg(si) AS subs, max(max(si)) OVER (PARTITION BY query_id) AS ns "
        "FROM (SELECT query_id, CAST(doc_id AS VARCHAR) AS dtext, "
        f"dense_rank() OVER (PARTITION BY query_id ORDER BY subtopic) AS si FROM {pairs}) AS x "
        "GROUP BY query_id, dtext) AS d GROUP BY query_id)",
        f"{state}(query_id, it, cnt, placed, covs){limit} AS ("
        "SELECT query_id, CAST(0 AS BIGINT), list_transform(generate_series(1, nsubs), lambda j: CAST(0 AS BIGINT)), "
        f"list_transform({each}, lambda i: false), list_transform(generate_series(1, 1), lambda j: CAST(0 AS BIGINT)) "
        f"FROM {docs} UNION ALL "
        "SELECT query_id, it + 1, "
        "list_transform(generate_series(1, len(cnt)), lambda j: list_extract(cnt, j) "
        "+ CASE WHEN array_contains(list_extract(docs, bi).s, j) THEN 1 ELSE 0 END), "
        "list_transform(generate_series(1, len(placed)), lambda i: list_extract(placed, i) OR i = bi), "
        "list_transform(list_extract(docs, bi).s, lambda x: list_extract(cnt, x)) FROM ("
        f"SELECT *, list_max(filter({each}, lambda i: list_extract(gs, i) = gmax "
        "AND list_extract(docs, i).t = tmax)) AS bi FROM ("
        f"SELECT *, list_max(list_transform(filter({each}, lambda i: list_extract(gs, i) = gmax), "
        "lambda i: list_extract(docs, i).t)) AS tmax FROM ("
        "SELECT *, list_max(gs) AS gmax FROM ("
        f"SELECT g.query_id, g.it, g.cnt, g.placed, d.docs, list_transform(generate_series(1, len(d.docs)), "
        "lambda i: CASE WHEN list_extract(g.placed, i) THEN CAST(-1 AS DOUBLE) ELSE "
        f"round(list_sum(list_transform(list_extract(d.docs, i).s, lambda x: pow({decay}, list_extract(g.cnt, x)))), "
        f"{IDEAL_SCORE_DIGITS}) END) AS gs FROM {state} AS g JOIN {docs} AS d ON g.query_id = d.query_id "
        f"WHERE g.it < len(d.docs){more}) AS ga) AS gb) AS gc) AS ge)",
    ]
    return ctes, f"(SELECT query_id, it AS rnk, unnest(covs) AS cov FROM {state} WHERE it > 0)"


def _intent_ctes(comp: _Compiler, conv: Conventions, source: str, recursion: str) -> tuple[list[str], list[str], bool]:
    """The CTEs of the diversity primitives: the judgments per subtopic (``sj``), the relevant
    pairs of each threshold, the ranked documents, the run's pairs (with ``cov``, by a window
    over each subtopic's documents in rank order), the greedy ideal's pairs (a recursive CTE)
    and one aggregate table per group; the LEFT JOINs of those tables; whether a CTE recurses."""
    ctes = [f"sj AS (SELECT * FROM {source} AS s)"]
    joins: list[str] = []
    thresholds: dict[float, str] = {}
    recursive = False
    order = tie_order(conv.tie_order)
    cut = f" AND rnk0 <= {literal(conv.max_rank)}" if conv.max_rank is not None else ""
    for part in sorted({part for side, _, _, part in comp.intents if side == "intents"}):
        # the ranked documents, cut at max_rank; judged-only: then without the unjudged (and
        # negative) ones, ranked again (as _ranking_cte)
        keep = " AND relevance >= 0" if part else ""
        ctes.append(
            f"rdocs{int(part)} AS (SELECT query_id, doc_id, row_number() OVER (PARTITION BY query_id ORDER BY rnk0) "
            f"AS rnk FROM (SELECT query_id, doc_id, relevance, row_number() OVER (PARTITION BY query_id ORDER BY "
            f"{order}) AS rnk0 FROM joined) AS rd WHERE true{cut}{keep})"
        )
    for n, ((side, t, alpha, part), members) in enumerate(comp.intents.items()):
        if t not in thresholds:
            pairs = thresholds[t] = f"sp{len(thresholds)}"
            ctes.append(
                f"{pairs} AS (SELECT query_id, doc_id, subtopic, count(*) OVER (PARTITION BY query_id, subtopic) "
                f"AS nsub FROM sj WHERE relevance >= {literal(t)})"
            )
        pairs = thresholds[t]
        if side == "intents":
            rows = (
                "(SELECT p.query_id, p.subtopic, p.nsub, r.rnk, row_number() OVER (PARTITION BY p.query_id, "
                f"p.subtopic ORDER BY r.rnk) - 1 AS cov FROM rdocs{int(part)} AS r JOIN "
                f"{pairs} AS p ON r.query_id = p.query_id AND r.doc_id = p.doc_id)"
            )
        elif side == "ideal_intents":
            recursive = True
            greedy, rows = _greedy_ctes(n, pairs, alpha, ideal_depth(list(members)), recursion)
            ctes += greedy
        else:
            rows = pairs
        aggs = ", ".join(f"{_bind_intent(node)} AS {col}" for node, col in members.items())
        ctes.append(f"ia{n} AS (SELECT query_id, {aggs} FROM {rows} AS x GROUP BY query_id)")
        joins.append(f"LEFT JOIN ia{n} USING (query_id)")
    return ctes, joins, recursive
