"""The kinds of declaration every primitive builds on: the gain of a relevance value (:class:`Gain`), a
bound declaration (:class:`Bound`), the inputs an engine computes for the primitives that read them
(running sums :class:`Step`, per-row values :class:`RowValue`, the ideal's :class:`IdealRank` and
:class:`IdealPrefix`, the run-ordered ideal's values), the per-query aggregate :class:`Primitive`
and the one dispatch over the kinds of input, :func:`read_input`. Their SQL counterparts are the
core and ranking macros (``sql/00_core.sql``, ``sql/10_ranking.sql``)."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import ClassVar, Literal, TypeVar

if sys.version_info >= (3, 11):
    from typing import assert_never
else:  # pragma: no cover - Python 3.10
    from typing_extensions import assert_never




T = TypeVar("T")


@dataclass(frozen=True, repr=False)
class Gain:
    """How a relevance value becomes a gain (shared by DCG, IDCG, nDCG, CG).

    - ``kind``: 'linear' (rel), 'exponential' (2^rel − 1) or 'binary' (1 for rel > 0);
    - ``min_rel``: relevance below it gains 0 (unjudged and negative relevance always gain 0);
    - ``table``: (level, gain) pairs that override the kind for those levels (trec_eval's
      ``ndcg.1=3,2=9``: levels not listed gain their own value);
    - ``negative``: a negative relevance keeps its gain, rel or 2^rel − 1, below 0 (nDCG/DCG's
      ``negative='gain'``: CatBoost, XGBoost's linear gain, scikit-learn's dcg_score), whatever
      ``min_rel``, which then zeroes the relevances in [0, min_rel); its repr names it only when
      set, so that every other gain prints (and keys the engines' columns) as before.
    """

    kind: str = "linear"
    min_rel: float = 0.0
    table: tuple[tuple[float, float], ...] = ()
    negative: bool = False

    def __repr__(self) -> str:
        signed = ", negative=True" if self.negative else ""
        return f"Gain(kind={self.kind!r}, min_rel={self.min_rel!r}, table={self.table!r}{signed})"

    @property
    def monotone(self) -> bool:
        """True when sorting by relevance sorts by gain (no table)."""
        return not self.table


Value = int | float | str | bool | None | Gain
"""A primitive's parameter value."""

Side = Literal["run", "qrels", "intents", "ideal_intents", "subtopic_qrels", "set"]
Column = Literal[
    "rel", "rnk", "qid", "score", "cov", "nsub", "sub", "cost",
    "iusers", "irows", "ibefore", "iasc", "iqusers", "iqrows", "nusers", "nrows", "npairs", "minusers", "nitems",
    "seen", "dcosine", "dhamming", "djaccard", "brank", "blisted",
    "expo", "pos", "incat", "ncat", "lists", "nscored", "ingroup", "ngroup", "gsize", "gmean",
    "catnew", "catcount", "catent", "catcountg", "catentg", "catall", "miscal",
    "idense", "ncatalog", "hlen", "hco", "pco", "hcos",
    "fjsd", "fjsd0", "fa2", "faq", "fq2", "fa2r", "faqr", "fgroups",
    "doc",
]
TRAIN_COLUMNS: tuple[Column, ...] = (
    "iusers", "irows", "ibefore", "iasc", "iqusers", "iqrows", "nusers", "nrows", "npairs", "minusers", "nitems",
    "seen", "idense",
)
"""The row columns read from the training interactions (``train=``): the row's item's distinct
training users (``iusers``) and training rows (``irows``), 0 for an item never in training, and
the distinct users of the training items more popular than it (``ibefore``: Σ ``iusers`` of the
items before it by ``iusers`` descending, then by item id ascending; Elliot's short head), and
its place 1, 2, ... among the training items by ``irows`` ascending, then item id ascending
(``iasc``; RecBole's long tail), and its popularity quantile by distinct users and by rows
(``iqusers``, ``iqrows``: the average ascending rank among the training items over their number,
1 for the most popular; LensKit's MeanPopRank); the training's distinct users (``nusers``), rows (``nrows``),
distinct (user, item) pairs (``npairs``: Σ over items of ``iusers``), the fewest distinct users
of a training item (``minusers``) and its distinct items (``nitems``); and whether the row's user has the item among its training rows (``seen``);
the item's dense popularity rank by training rows (``idense``: 1 for the most interacted items, tied items
sharing a rank, the next count the next rank; 0 for an item never in training; rectools' Serendipity)."""
FEATURE_COLUMNS: tuple[Column, ...] = ("dcosine", "dhamming", "djaccard")
"""The row columns read from the item features (``features=``): on each ranked row within the
cutoff of the metrics reading them, the sum of the distances between its item and each item
ranked above it (0 on the first row): the cosine distance 1 − a·b / (|a| |b|) (1 when a vector
is all zeros: the similarity of sklearn's ``cosine_similarity``, 0), the Hamming distance (the
count of the features that differ) and the Jaccard distance 1 − |A ∩ B| / |A ∪ B| of the sets of
nonzero features (0 when both are empty). Summed over the ranks ≤ k they give the sum over the
list's unordered pairs."""

TRAIN_PAIR_COLUMNS: tuple[Column, ...] = ("hlen", "hco", "pco")
"""The row columns read from the training interactions by item pairs (recommenders' co-occurrence
similarity co(i, j) = Σ_u n_u(i) n_u(j) / sqrt(rows(i) rows(j)), n_u(i) the user's training rows
of item i: with distinct rows, the users with both over the root of the product of their users),
computed on the ranked rows within the deepest cutoff that reads them: the row's user's training
rows (``hlen``, 0 for a user without training), the mean co-occurrence of the row's item with
the items of those rows (``hco``, each row weighing once; NULL without training), and the summed
co-occurrence of the row's item with each item ranked above it (``pco``)."""
FEATURE_HISTORY_COLUMNS: tuple[Column, ...] = ("hcos",)
"""The row columns read from the item features and the training interactions: the mean cosine
similarity of the row's item's features to those of the items of its user's training rows
(``hcos``: 0 against a zero vector or an item without features; NULL without training), on the
ranked rows within the deepest cutoff that reads it."""
CATALOG_COLUMNS: tuple[Column, ...] = ("ncatalog",)
"""The row columns read from the catalog (``catalog=``) by the per-query metrics: its number of
distinct items (``ncatalog``, the same on every row; rectools' Serendipity's n)."""

BASE_RUN_COLUMNS: tuple[Column, ...] = ("brank", "blisted")
"""The row columns read from the base run (``base_run=``): the row's item's rank in its user's
list of the base run, ranked as the run is (NULL for an item that list does not hold), and
whether the row's user has a list in the base run (``blisted``)."""

CATEGORY_COLUMNS: tuple[Column, ...] = ("catnew", "catcount", "catent", "catcountg", "catentg", "catall", "miscal")
"""The row columns read from the item categories (``categories=``), on each ranked row, in rank
order within its query: how many of its item's categories no item ranked above it has
(``catnew``; summed over the ranks ≤ k: the distinct categories of the top k), how many
categories its item has (``catcount``), and by how much its item's categories raise
Σ_g h(c_g), h(s) = (s + ε) log2(s + ε), ε = 10⁻⁶ (LensKit's), c_g the rows ranked down to it
that have category g (``catent``: Σ_{g of the item} h(c_g) − h(c_g − 1)); the same two with
each row weighted by 0.85^(rnk − 1) (``catcountg``, ``catentg``: LensKit's
``GeometricRankWeight(0.85)``); and the number of distinct categories of the whole input
(``catall``). An item without a category adds 0 to each. Summed over the ranks ≤ k they give
the entropy of the top k's category counts over every category (see
:mod:`rankwise.primitives.categories`). And, where the row's user has categorised items among
its training rows (``train=``; NULL where it has none), Steck's miscalibration of the list cut at
the row's rank (``miscal``: Σ_g p_g ln(p_g / ((1 − α) q_g + α p_g)), α = 0.01, p over the user's
training items, q over the listed items down to the row, each item's share 1/|its categories|
to each of them)."""
FAIR_COLUMNS: tuple[Column, ...] = ("fjsd", "fjsd0", "fa2", "faq", "fq2", "fa2r", "faqr")
"""The row columns read from the document groups (``groups=``) and the target distribution
(``target=``): on each ranked row within the cutoff of the metrics reading them, the
Jensen-Shannon divergence (natural log) between the query's target over its groups and the
groups' shares of the discounted exposure of the rows ranked ≤ it (``fjsd``: Σ_{i ≤ rnk}
w_g(d_i) / log2(max(i, 2)) per group g, normalised over the groups; NULL while no row ranked ≤ it
has a weight in the target's groups), and the divergence of the uniform distribution over those
groups from the target (``fjsd0``, the same on every row of the query: TREC Fair Ranking 2021's
value when no document has a known group); with A_g = Σ_{i ≤ rnk} w_g(d_i) / log2(max(i, 2))
each target group's exposure and t_g its share, Σ_g A_g² (``fa2``), Σ_g A_g t_g (``faq``) and,
on every row of the query, Σ_g t_g² (``fq2``: TREC 2021 Task 2's expected exposure); the same two
sums with A_g over the relevant rows only (relevance ≥ the ``rel`` convention: ``fa2r``, ``faqr``,
TREC 2022's EEL). All NULL for a query without a target."""

GROUP_COLUMNS: tuple[Column, ...] = ("fgroups",)
"""The row column read from the document groups (``groups=``) by the metrics that take a split
the user gives (APLT's long tail as a group): the groups in which the row's item has a weight
above 0, as text (``fgroups``: a list; NULL for an item ``groups=`` does not hold)."""

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    """The names of a dataclass's fields, in order (its ClassVars left out)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))  # type: ignore[arg-type]
    return names


class Bound:
    """Something an engine implements once under its binding name (primitive, input, scalar op)."""

    reads: ClassVar[tuple[Column, ...]] = ()
    """The row columns it reads."""
    binding_name: ClassVar[str | None] = None
    """Its binding name, when not the class name in snake_case."""

    @classmethod
    def binding(cls) -> str:
        """The name of its Polars function (and, with ``rw_``, of its SQL macro)."""
        return cls.binding_name or _CAMEL.sub("_", cls.__name__).lower()

    def inputs(self) -> dict[str, Input]:
        """The values it reads beyond its row columns and fields, by parameter name."""
        return {}

    def variant_columns(self) -> dict[str, str]:
        """The row columns it reads as computed with its own parameters (the category family's
        patience and α: :func:`rankwise.primitives.categories.variant`): the column it reads
        instead, by the row column's name; none by default."""
        return {}

    def values(self) -> dict[str, object]:
        """Its fields, by name."""
        return {f.name: getattr(self, f.name) for f in fields(self)}  # type: ignore[arg-type]

    # Equality, hash and repr as a frozen dataclass generates them (the fields in order), written
    # once here: the subclasses, ``@dataclass(frozen=True, repr=False, eq=False)``, generate only
    # their ``__init__`` (and frozen's ``__setattr__``/``__delattr__``). Generating six methods
    # for each of the ~120 classes took 0.05 s of every start (``rankwise eval``'s 0.4 s).

    def _key(self) -> tuple[object, ...]:
        return tuple([getattr(self, name) for name in _field_names(self.__class__)])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._key() == other._key()  # type: ignore[attr-defined, no-any-return]
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in _field_names(self.__class__))
        return f"{self.__class__.__qualname__}({inner})"


# -- inputs: values an engine computes for the primitives that read them --------------------


@dataclass(frozen=True, repr=False, eq=False)
class Step(Bound):
    """A running sum down the ranking: the engine sums this per-row step in rank order (the
    value at a rank includes the row itself)."""

    abstract: ClassVar[bool] = True

    reads: ClassVar[tuple[Column, ...]] = ("rel",)


@dataclass(frozen=True, repr=False, eq=False)
class RelStep(Step):
    """1 where relevance ≥ t (the running count of relevant documents)."""

    t: float


@dataclass(frozen=True, repr=False, eq=False)
class NonrelStep(Step):
    """1 where 0 ≤ relevance < t (the running count of judged non-relevant documents)."""

    t: float


@dataclass(frozen=True, repr=False, eq=False)
class PooledStep(Step):
    """1 where the relevance is negative (trec_eval's "in the pool but unjudged")."""


@dataclass(frozen=True, repr=False, eq=False)
class LogContinueStep(Step):
    """ln(1 − R), R ERR's stop probability (the running log of the chance to go on)."""

    max_rel: float


@dataclass(frozen=True, repr=False, eq=False)
class GainStep(Step):
    """The gain g (the running gain)."""

    reads: ClassVar[tuple[Column, ...]] = ()
    g: Gain


@dataclass(frozen=True, repr=False, eq=False)
class DcgStep(Step):
    """g / log2(rnk + 1) (the running DCG)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    g: Gain


@dataclass(frozen=True, repr=False, eq=False)
class RboStep(Step):
    """p^(rnk − 1) / rnk (the running Σ_{d≤i} p^(d − 1) / d: RBO's weights of the depths down
    to rank i)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    p: float


@dataclass(frozen=True, repr=False, eq=False)
class RowValue(Bound):
    """A value of each ranked row."""

    abstract: ClassVar[bool] = True

    reads: ClassVar[tuple[Column, ...]] = ("rel",)
    window: ClassVar[bool] = False
    """Computed over a window of the query's ranked rows (``qid`` partitions it): the engines
    compute it on the ranked rows before aggregating them."""


@dataclass(frozen=True, repr=False, eq=False)
class RelChar(RowValue):
    """trec_eval's relstring character of the row's relevance."""


@dataclass(frozen=True, repr=False, eq=False)
class TieDiscount(RowValue):
    """The mean over the row's tie group (the query's rows of equal score, as the ranking
    compares scores) of [rnk ≤ k] / discount(rnk): the discount tied documents share
    (McSherry & Najork 2008; scikit-learn's ndcg_score)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "qid", "score")
    window: ClassVar[bool] = True
    k: int | None
    discount: str
    base: float


@dataclass(frozen=True, repr=False, eq=False)
class TieGroupValue(RowValue):
    """A value of the row's tie group: the query's rows of equal score (as the ranking compares
    scores), which hold consecutive ranks whatever order breaks the tie. ``ties='expected'``'s
    closed forms (:class:`~rankwise.primitives.trec.TieRelret`, ...) read them."""

    abstract: ClassVar[bool] = True

    reads: ClassVar[tuple[Column, ...]] = ("qid", "score")
    window: ClassVar[bool] = True


@dataclass(frozen=True, repr=False, eq=False)
class TieSize(TieGroupValue):
    """m: the number of rows in the row's tie group."""


@dataclass(frozen=True, repr=False, eq=False)
class TieStart(TieGroupValue):
    """The first (smallest) rank the row's tie group holds."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "qid", "score")


@dataclass(frozen=True, repr=False, eq=False)
class TieRel(TieGroupValue):
    """r: the rows of the row's tie group with relevance ≥ t."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "qid", "score")
    t: float


@dataclass(frozen=True, repr=False, eq=False)
class TieRelAbove(TieGroupValue):
    """The rows with relevance ≥ t ranked above the row's tie group (of higher score)."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "qid", "score")
    t: float


@dataclass(frozen=True)
class IdealRank:
    """The row's rank in the ideal order of gain ``g`` (best first): of the retrieved rows
    on the run side, of the judgments on the qrels side."""

    g: Gain


@dataclass(frozen=True, repr=False, eq=False)
class IdealPrefix(Bound):
    """A value of the ideal prefix of gain ``g`` (the judged documents of positive gain, best
    first) at each rank: a window over the judgments in the ideal order (``qid`` the query,
    ``irank`` the ideal rank), joined to the ranked rows at their rank (NULL beyond the ideal
    list)."""

    abstract: ClassVar[bool] = True

    reads: ClassVar[tuple[Column, ...]] = ("qid",)
    g: Gain

    def inputs(self) -> dict[str, Input]:
        return {"irank": IdealRank(self.g)}

    @property
    def reads_prefix(self) -> bool:
        """Whether it reads other values of the prefix (a window over their windows: computed
        after those that do not: one level)."""
        return any(isinstance(given, IdealPrefix) for given in self.inputs().values())


@dataclass(frozen=True, repr=False, eq=False)
class IdealDcgAt(IdealPrefix):
    """IDCG_i, log2 discount."""


@dataclass(frozen=True, repr=False, eq=False)
class IdealExcessAt(IdealPrefix):
    """Σ_{j≤i} max(g*_j − 1, 0)."""


@dataclass(frozen=True, repr=False, eq=False)
class IdealBoundaryAt(IdealPrefix):
    """True at the last rank of a run of equal positive gains."""


@dataclass(frozen=True, repr=False, eq=False)
class IdealGainAt(IdealPrefix):
    """g*_i, the gain at ideal rank i."""


@dataclass(frozen=True, repr=False, eq=False)
class IdealBoundaryInvFrom(IdealPrefix):
    """Σ over the ideal boundaries b ≥ i (:class:`IdealBoundaryAt`) of 1 / IDCG_b: the weight
    Rndcg gives a DCG step at rank i, which every boundary at or below it counts (0 beyond
    npos, the last boundary). A window over the other values of the prefix (it reads them):
    the engines compute it after them."""

    def inputs(self) -> dict[str, Input]:
        return {"irank": IdealRank(self.g), "igd": IdealDcgAt(self.g), "igb": IdealBoundaryAt(self.g)}


@dataclass(frozen=True)
class RunIdealRank:
    """The rank of a judged document of positive gain ``g`` in the *run-ordered ideal*: the
    query's judged documents of positive gain, by gain (best first), then in the run's order
    (the tie policy's keys, a document the run does not rank taking score 0), as ir-measures'
    compat provider builds its ideal ranking (Clarke, Vtyurina & Smucker 2021)."""

    g: Gain


@dataclass(frozen=True, repr=False, eq=False)
class RunIdealValue(Bound):
    """A value of the row's document in the run-ordered ideal of gain ``g``
    (:class:`RunIdealRank`): a window over that order (``qid`` the query, ``irank`` the rank
    in it), joined to the ranked rows by document (NULL for a document not in it)."""

    abstract: ClassVar[bool] = True

    reads: ClassVar[tuple[Column, ...]] = ("qid",)
    g: Gain

    def inputs(self) -> dict[str, Input]:
        return {"irank": RunIdealRank(self.g)}


@dataclass(frozen=True, repr=False, eq=False)
class RboWeightBefore(RunIdealValue):
    """Σ_{j<i} p^(j − 1) / j, i the document's rank in the run-ordered ideal: RBO's weights of
    the depths above the one where the ideal reaches the document."""

    p: float


# -- primitives: per-query aggregates ----------------------------------------------------------


@dataclass(frozen=True, repr=False, eq=False)
class Primitive(Bound):
    """A per-query aggregate: over the ranked rows of the query (side ``run``) or over its
    judgments (side ``qrels``)."""

    abstract: ClassVar[bool] = True

    side: ClassVar[Side] = "run"
    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk")
    empty: ClassVar[float | str | None] = 0.0
    """Its value for a query with no ranked row (run side)."""
    judged_rows: ClassVar[bool] = False
    """An unjudged row (NULL relevance) adds nothing to it and its inputs take no step there:
    it can be computed from the judged rows alone, each at its rank among all rows (with the
    query's last ranked row, which the SQL keeps too: the deepest rank, ``Count``)."""
    value_type: ClassVar[Literal["float", "string"]] = "float"
    order_free: ClassVar[bool] = False
    """Its value is the same whatever order breaks ties between equal scores (it reads no rank,
    or only a tie group's ranks as a whole): ``ties='expected'`` keeps it as it is."""

    @property
    def top_rows(self) -> int | None:
        """k when it reads the rows at rank ≤ k alone (each at its rank, reading no window over
        other rows): the judged-rows plan then keeps those rows beside the judged ones, and it
        counts among that plan's primitives (:attr:`on_judged_rows`); None otherwise (k = None
        is every row)."""
        return None

    @property
    def on_judged_rows(self) -> bool:
        """Whether the judged-rows plan's rows give it: it declares :attr:`judged_rows`, or it
        reads the top rows alone (:attr:`top_rows`, which that plan keeps then). The running
        sums stay exact on those rows: every row above a kept top row is kept, and the sums of
        the judged-rows primitives take no step on an unjudged row."""
        return self.judged_rows or self.top_rows is not None

    def expected(self) -> Primitive | None:
        """Its expected value over all orders of the tied documents (``ties='expected'``): a
        primitive of its own closed form, itself when :attr:`order_free`, None when it has
        none (the metrics that read it are refused)."""
        return self if self.order_free else None

    def expected_under(self, op: type[Bound]) -> Primitive | None:
        """The expected value of the scalar operation ``op`` of it alone (``Recip0`` of the first
        relevant rank: RR), where the operation is not linear; None: no closed form."""
        return None


@dataclass(frozen=True, repr=False, eq=False)
class QrelsPrimitive(Primitive):
    abstract: ClassVar[bool] = True
    side: ClassVar[Side] = "qrels"
    order_free: ClassVar[bool] = True
    reads: ClassVar[tuple[Column, ...]] = ("rel",)


Input = Step | RowValue | IdealRank | IdealPrefix | RunIdealRank | RunIdealValue | QrelsPrimitive
"""Values a run primitive reads beyond its row columns (a qrels primitive: joined per query)."""


def read_input(
    given: Input,
    *,
    step: Callable[[Step], T],
    row_value: Callable[[RowValue], T],
    ideal_rank: Callable[[IdealRank], T],
    ideal_prefix: Callable[[IdealPrefix], T],
    run_ideal_value: Callable[[RunIdealValue], T],
    run_ideal_rank: Callable[[RunIdealRank], T],
    qrels: Callable[[QrelsPrimitive], T],
) -> T:
    """An input read by the engine's reader of its kind: the one dispatch over the kinds of
    :data:`Input`, which every engine's binding goes through, each kind a required keyword (a
    new kind is a type error in every engine until it reads it, never a qrels aggregate by
    default).

    >>> read_input(IdealRank(Gain()), step=str, row_value=str, ideal_rank=lambda g: "rank",
    ...            ideal_prefix=str, run_ideal_value=str, run_ideal_rank=str, qrels=str)
    'rank'
    """
    if isinstance(given, Step):
        return step(given)
    if isinstance(given, RowValue):
        return row_value(given)
    if isinstance(given, IdealRank):
        return ideal_rank(given)
    if isinstance(given, IdealPrefix):
        return ideal_prefix(given)
    if isinstance(given, RunIdealValue):
        return run_ideal_value(given)
    if isinstance(given, RunIdealRank):
        return run_ideal_rank(given)
    if isinstance(given, QrelsPrimitive):
        return qrels(given)
    assert_never(given)
