"""The per-query primitives, each declared once: a typed frozen dataclass whose fields are its
parameters and whose class attributes are the facts an engine needs.

A metric's recipe (:mod:`rankwise.metrics.recipes`) is a tree of these. Each engine implements every
primitive once, under the primitive's :meth:`~Bound.binding` name (the class name in
snake_case): a Polars function in ``rankwise._polars.primitives`` and a SQL macro ``rw_<name>``
in ``sql/``, both with the same parameter names. An engine calls them through one generic
binder, passing by name:

- the row columns the primitive :attr:`~Bound.reads`: ``rel`` (the relevance; NULL when
  unjudged), ``rnk`` (the rank, 1 = top) and ``qid`` (the query, for windows);
- its :meth:`~Bound.inputs`: running sums down the ranking (:class:`Step`), per-row values
  (:class:`RowValue`), the rank in the ideal order (:class:`IdealRank`), the ideal prefix at
  the row's rank (:class:`IdealPrefix`), a value of the row's document in the run-ordered
  ideal (:class:`RunIdealValue`), or per-query values of the judgments (a
  :class:`Primitive` on the ``qrels`` side, joined per query);
- its fields, a :class:`Gain` field as the gain value of the row (``g``).

The diversity primitives (:class:`IntentPrimitive`) read (document, subtopic) pairs instead:
``rnk``, ``cov``, ``nsub`` and ``sub`` (see their block below).

``tests/test_primitives.py`` checks that for every declared class the Polars function and the
SQL macro exist and take the same parameters. Adding a primitive therefore touches three places:
its class here, its Polars function, its SQL macro (see docs/ARCHITECTURE.md).

>>> ApSum(t=1.0, k=10).inputs()
{'cumrel': RelStep(t=1.0)}
>>> ApSum.binding(), ApSum.judged_rows, FirstRel.empty
('ap_sum', True, None)
"""

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


@dataclass(frozen=True)
class Gain:
    """How a relevance value becomes a gain (shared by DCG, IDCG, nDCG, CG).

    - ``kind``: 'linear' (rel) or 'exponential' (2^rel − 1);
    - ``min_rel``: relevance below it gains 0 (unjudged and negative relevance always gain 0);
    - ``table``: (level, gain) pairs that override the kind for those levels (trec_eval's
      ``ndcg.1=3,2=9``: levels not listed gain their own value).
    """

    kind: str = "linear"
    min_rel: float = 0.0
    table: tuple[tuple[float, float], ...] = ()

    @property
    def monotone(self) -> bool:
        """True when sorting by relevance sorts by gain (no table)."""
        return not self.table


Value = int | float | str | bool | None | Gain
"""A primitive's parameter value."""

Side = Literal["run", "qrels", "intents", "ideal_intents", "subtopic_qrels"]
Column = Literal["rel", "rnk", "qid", "score", "cov", "nsub", "sub", "cost"]

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
    it can be computed from the judged rows alone, each at its rank among all rows."""
    value_type: ClassVar[Literal["float", "string"]] = "float"


@dataclass(frozen=True, repr=False, eq=False)
class QrelsPrimitive(Primitive):
    abstract: ClassVar[bool] = True
    side: ClassVar[Side] = "qrels"
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


@dataclass(frozen=True, repr=False, eq=False)
class Count(Primitive):
    """Number of ranked documents."""

    reads: ClassVar[tuple[Column, ...]] = ()


@dataclass(frozen=True, repr=False, eq=False)
class Relret(Primitive):
    """Number of documents with relevance ≥ t at rank ≤ k (k = None: all)."""

    judged_rows: ClassVar[bool] = True
    t: float
    k: int | None


@dataclass(frozen=True, repr=False, eq=False)
class DcgGain(Primitive):
    """Σ_{i≤k} g_i / discount(i) (DCG)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    judged_rows: ClassVar[bool] = True
    k: int | None
    g: Gain
    discount: str
    base: float


@dataclass(frozen=True, repr=False, eq=False)
class TieDcg(Primitive):
    """Σ_i g_i · TieDiscount_i: DCG@k where tied documents share the mean discount of the
    ranks their group holds within k (a group across the cutoff counts in part)."""

    reads: ClassVar[tuple[Column, ...]] = ()
    k: int | None
    g: Gain
    discount: str
    base: float

    def inputs(self) -> dict[str, Input]:
        return {"tdisc": TieDiscount(self.k, self.discount, self.base)}


@dataclass(frozen=True, repr=False, eq=False)
class CgGain(Primitive):
    """Σ_{i≤k} g_i (CG)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    judged_rows: ClassVar[bool] = True
    k: int | None
    g: Gain


@dataclass(frozen=True, repr=False, eq=False)
class IdealDcgRun(Primitive):
    """DCG@k of the retrieved documents re-sorted by gain (the ideal taken from the run)."""

    reads: ClassVar[tuple[Column, ...]] = ()
    k: int | None
    g: Gain
    discount: str
    base: float

    def inputs(self) -> dict[str, Input]:
        return {"irank": IdealRank(self.g)}


@dataclass(frozen=True, repr=False, eq=False)
class IdcgList(Primitive):
    """DCG@k of the ideal order cut at the ranked list's length: Σ over ranked rows i ≤ k of
    g*_i / discount(i), g* the ideal gains of all judgments (IDCG@min(k, n))."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    k: int | None
    g: Gain
    discount: str
    base: float

    def inputs(self) -> dict[str, Input]:
        return {"igain": IdealGainAt(self.g)}


@dataclass(frozen=True, repr=False, eq=False)
class ApSum(Primitive):
    """Σ_{i≤k, rel_i≥t} relret(t, i) / i (AP's sum)."""

    judged_rows: ClassVar[bool] = True
    t: float
    k: int | None

    def inputs(self) -> dict[str, Input]:
        return {"cumrel": RelStep(self.t)}


@dataclass(frozen=True, repr=False, eq=False)
class FirstRel(Primitive):
    """Smallest rank ≤ k holding a document with relevance ≥ t (NULL when none)."""

    judged_rows: ClassVar[bool] = True
    empty: ClassVar[float | str | None] = None
    t: float
    k: int | None


@dataclass(frozen=True, repr=False, eq=False)
class RelretAtNrel(Primitive):
    """Relevant documents at rank ≤ floor(x · R + 0.9), R = nrel(t) (x = 1: R-precision's
    depth R; trec_eval's Rprec_mult rounding)."""

    judged_rows: ClassVar[bool] = True
    t: float
    x: float

    def inputs(self) -> dict[str, Input]:
        return {"nrel": NRel(self.t)}


@dataclass(frozen=True, repr=False, eq=False)
class NonrelJudged(Primitive):
    """Ranked documents judged (relevance ≥ 0) with relevance < t."""

    reads: ClassVar[tuple[Column, ...]] = ("rel",)
    judged_rows: ClassVar[bool] = True
    t: float


@dataclass(frozen=True, repr=False, eq=False)
class Unjudged(Primitive):
    """Documents at rank ≤ k that are unjudged or judged negative (trec_eval's "in the pool
    but unjudged")."""

    k: int | None


@dataclass(frozen=True, repr=False, eq=False)
class NotJudged(Primitive):
    """Documents at rank ≤ k with no judgment at all (absent from the qrels; a judgment of any
    value, negative ones included, counts as one: ir-measures' Judged)."""

    k: int | None


@dataclass(frozen=True, repr=False, eq=False)
class BprefSum(Primitive):
    """Σ over relevant documents of 1 − min(n, R) / min(N, R) (1 when n = 0), n the judged
    non-relevant documents ranked above, N all judged non-relevant, R = nrel(t)."""

    reads: ClassVar[tuple[Column, ...]] = ("rel",)
    judged_rows: ClassVar[bool] = True
    t: float

    def inputs(self) -> dict[str, Input]:
        return {"cumnonrel": NonrelStep(self.t), "nrel": NRel(self.t), "nnonrel": Nonrel(self.t)}


@dataclass(frozen=True, repr=False, eq=False)
class Iprec(Primitive):
    """Interpolated precision at recall ``level``: the max precision at the ranks where at
    least floor(level · R + shift) relevant documents have been seen (0 when none); shift
    0.5 is trec_eval 10's lround(level · R), 0.9 trec_eval 9's rounding."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    judged_rows: ClassVar[bool] = True
    t: float
    level: float
    shift: float

    def inputs(self) -> dict[str, Input]:
        return {"cumrel": RelStep(self.t), "nrel": NRel(self.t)}


@dataclass(frozen=True, repr=False, eq=False)
class BingSum(Primitive):
    """Σ over relevant documents of 1 / log2(2 + n), n = non-relevant ranked above."""

    judged_rows: ClassVar[bool] = True
    t: float

    def inputs(self) -> dict[str, Input]:
        return {"cumrel": RelStep(self.t)}


@dataclass(frozen=True, repr=False, eq=False)
class NonrelAboveSum(Primitive):
    """Σ over relevant documents at rank i ≤ k of the non-relevant documents (unjudged
    included) ranked above: i − relret(t, i)."""

    judged_rows: ClassVar[bool] = True
    t: float
    k: int | None

    def inputs(self) -> dict[str, Input]:
        return {"cumrel": RelStep(self.t)}


@dataclass(frozen=True, repr=False, eq=False)
class InfapSum(Primitive):
    """Σ over relevant documents at rank i of (1 + X · (a + ε) / (a + n + 2ε)) / i, with a, n,
    u the relevant, judged non-relevant and pooled-but-unjudged (negative) documents above,
    X = a + n + u, ε = 1e-5 (Yilmaz & Aslam 2006, as trec_eval)."""

    judged_rows: ClassVar[bool] = True
    t: float

    def inputs(self) -> dict[str, Input]:
        return {"cumrel": RelStep(self.t), "cumnonrel": NonrelStep(self.t), "cumpooled": PooledStep()}


@dataclass(frozen=True, repr=False, eq=False)
class RankeffSum(Primitive):
    """Σ over relevant documents of 1 − n / N, n = judged non-relevant ranked above, N = all
    judged non-relevant (1 when N = 0)."""

    reads: ClassVar[tuple[Column, ...]] = ("rel",)
    judged_rows: ClassVar[bool] = True
    t: float

    def inputs(self) -> dict[str, Input]:
        return {"cumnonrel": NonrelStep(self.t), "nnonrel": Nonrel(self.t)}


@dataclass(frozen=True, repr=False, eq=False)
class RbpSum(Primitive):
    """Σ_{i≤k} over relevant documents (relevance ≥ t) of w · p^(i − 1), w = 1, or the
    relevance when ``graded``."""

    judged_rows: ClassVar[bool] = True
    t: float
    p: float
    k: int | None
    graded: bool


@dataclass(frozen=True, repr=False, eq=False)
class UnjudgedRbpSum(Primitive):
    """Σ over unjudged documents of p^(i − 1)."""

    p: float


@dataclass(frozen=True, repr=False, eq=False)
class RboOverlapBefore(Primitive):
    """Σ over ranked documents of positive gain g of Σ_{d < max(i, i*)} p^(d − 1) / d, i the
    document's rank, i* its rank in the run-ordered ideal: for each document in both the run
    and the ideal, RBO's weights of the depths above the one where it joins their overlap
    (Compat's sum is K · Σ_{d≤D} p^(d − 1) / d minus this, K those documents)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    g: Gain
    p: float

    def inputs(self) -> dict[str, Input]:
        return {"crun": RboStep(self.p), "cideal": RboWeightBefore(self.g, self.p)}


@dataclass(frozen=True, repr=False, eq=False)
class RboWeights(Primitive):
    """Σ over ranked rows of p^(rnk − 1) / rnk: Σ_{d≤n} p^(d − 1) / d, n the ranked documents."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    p: float


@dataclass(frozen=True, repr=False, eq=False)
class ErrSum(Primitive):
    """Σ_{i≤k} R_i / i · Π_{j<i} (1 − R_j), R = (2^g − 1) / 2^max_rel, g = min(max(rel, 0),
    max_rel)."""

    judged_rows: ClassVar[bool] = True
    k: int | None
    max_rel: float

    def inputs(self) -> dict[str, Input]:
        return {"cumlog": LogContinueStep(self.max_rel)}


@dataclass(frozen=True, repr=False, eq=False)
class NposRet(Primitive):
    """Number of retrieved documents with gain > 0."""

    reads: ClassVar[tuple[Column, ...]] = ()
    judged_rows: ClassVar[bool] = True
    g: Gain


@dataclass(frozen=True, repr=False, eq=False)
class NdcgRelSum(Primitive):
    """Σ over retrieved documents of positive gain of DCG_i / IDCG_{min(i, npos)}."""

    reads: ClassVar[tuple[Column, ...]] = ()
    g: Gain

    def inputs(self) -> dict[str, Input]:
        return {"cumdcg": DcgStep(self.g), "igd": IdealDcgAt(self.g), "idcg_total": IdcgPos(self.g)}


@dataclass(frozen=True, repr=False, eq=False)
class RndcgSum(Primitive):
    """Σ over ranks i that end a run of equal ideal gains of DCG_i / IDCG_i."""

    reads: ClassVar[tuple[Column, ...]] = ()
    g: Gain

    def inputs(self) -> dict[str, Input]:
        return {"cumdcg": DcgStep(self.g), "igd": IdealDcgAt(self.g), "igb": IdealBoundaryAt(self.g)}


@dataclass(frozen=True, repr=False, eq=False)
class RndcgInv(Primitive):
    """Σ over the same ranks of 1 / IDCG_i."""

    reads: ClassVar[tuple[Column, ...]] = ()
    g: Gain

    def inputs(self) -> dict[str, Input]:
        return {"igd": IdealDcgAt(self.g), "igb": IdealBoundaryAt(self.g)}


@dataclass(frozen=True, repr=False, eq=False)
class GSum(Primitive):
    """Σ_i g_i / log2(2 + C_i − S_i), S_i = Σ_{j≤i} g_j, C_i = i + Σ_{j≤min(i, npos)}
    max(g*_j − 1, 0) with g* the ideal gains (trec_eval's G)."""

    binding_name: ClassVar[str | None] = "g_sum"
    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    g: Gain

    def inputs(self) -> dict[str, Input]:
        return {"cumgain": GainStep(self.g), "igx": IdealExcessAt(self.g), "excess_total": PosExcess(self.g)}


@dataclass(frozen=True, repr=False, eq=False)
class Relstring(Primitive):
    """The relevance of the documents at rank ≤ k as text, one character each: the level's
    digit (floor), '>' above 9, '-' unjudged, '.' judged negative (trec_eval relstring)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    empty: ClassVar[float | str | None] = ""
    value_type: ClassVar[Literal["float", "string"]] = "string"
    k: int | None

    def inputs(self) -> dict[str, Input]:
        return {"relchar": RelChar()}


@dataclass(frozen=True, repr=False, eq=False)
class NRel(QrelsPrimitive):
    """Number of judged documents with relevance ≥ t."""

    binding_name: ClassVar[str | None] = "nrel"
    t: float


@dataclass(frozen=True, repr=False, eq=False)
class Nonrel(QrelsPrimitive):
    """Number of judged documents (relevance ≥ 0) with relevance < t."""

    t: float


@dataclass(frozen=True, repr=False, eq=False)
class Idcg(QrelsPrimitive):
    """DCG@k of all judged documents in the ideal order."""

    reads: ClassVar[tuple[Column, ...]] = ()
    k: int | None
    g: Gain
    discount: str
    base: float

    def inputs(self) -> dict[str, Input]:
        return {"irank": IdealRank(self.g)}


@dataclass(frozen=True, repr=False, eq=False)
class IdealRboWeights(QrelsPrimitive):
    """Σ_{i≤R} p^(i − 1) / i, R the judged documents of positive gain g."""

    reads: ClassVar[tuple[Column, ...]] = ()
    g: Gain
    p: float

    def inputs(self) -> dict[str, Input]:
        return {"irank": IdealRank(self.g)}


@dataclass(frozen=True, repr=False, eq=False)
class Npos(QrelsPrimitive):
    """Number of judged documents with gain > 0."""

    reads: ClassVar[tuple[Column, ...]] = ()
    g: Gain


@dataclass(frozen=True, repr=False, eq=False)
class PosGain(QrelsPrimitive):
    """Σ of the positive gains."""

    reads: ClassVar[tuple[Column, ...]] = ()
    g: Gain


@dataclass(frozen=True, repr=False, eq=False)
class PosExcess(QrelsPrimitive):
    """Σ of max(gain − 1, 0) (G's cost of the whole ideal list beyond one per rank)."""

    reads: ClassVar[tuple[Column, ...]] = ()
    g: Gain


@dataclass(frozen=True, repr=False, eq=False)
class IdcgPos(QrelsPrimitive):
    """IDCG_npos: the DCG of the whole ideal list (log2 discount)."""

    reads: ClassVar[tuple[Column, ...]] = ()
    g: Gain

    def inputs(self) -> dict[str, Input]:
        return {"irank": IdealRank(self.g)}


@dataclass(frozen=True, repr=False, eq=False)
class RndcgBounds(QrelsPrimitive):
    """Number of ideal ranks that end a run of equal positive gains."""

    reads: ClassVar[tuple[Column, ...]] = ()
    g: Gain

    def inputs(self) -> dict[str, Input]:
        return {"igb": IdealBoundaryAt(self.g)}


@dataclass(frozen=True, repr=False, eq=False)
class RndcgBoundsInv(QrelsPrimitive):
    """Σ over those ranks b of 1 / IDCG_b."""

    reads: ClassVar[tuple[Column, ...]] = ()
    g: Gain

    def inputs(self) -> dict[str, Input]:
        return {"igd": IdealDcgAt(self.g), "igb": IdealBoundaryAt(self.g)}


# -- C/W/L user models (cwl_eval; Moffat et al.; Azzopardi, Thomas & Moffat 2019) --------------
# A user reads rank 1 and goes on from rank i to i + 1 with probability C_i. The chance of
# reading rank i is P_i = Π_{j<i} C_j; every model here has P_i = d(i) · S_i: a discount d of
# the rank alone (``shape``, parameter ``a``, zero beyond ``depth``) times a survival S_i
# of the gains above rank i (``survival``: 'none' 1; 'product' Π_{j<i} (1 − g_j)). Gains are
# cwl's: g = (clip(max(rel, 0), min_rel, max_rel) − min_rel) / (max_rel − min_rel), and
# ``unjudged`` when unjudged: 0, or 1 in cwl_eval's best case (its residuals, -r). Beyond the
# ranking cwl_eval pads to ``depth`` with documents of gain ``unjudged``: with gain 0, S stays
# constant there and the tail of Σ P_i is S_m · Σ_{m<i≤depth} d(i); with gain 1 a 'product'
# survival ends at the first padded rank.


@dataclass(frozen=True, repr=False, eq=False)
class CwlGainStep(Step):
    """cwl's gain g of the row (the running gain)."""

    min_rel: float
    max_rel: float
    unjudged: float


@dataclass(frozen=True, repr=False, eq=False)
class CwlLogStep(Step):
    """ln(1 − g), 0 where g = 1 (the running log of Π (1 − g) over the factors that are not 0)."""

    min_rel: float
    max_rel: float
    unjudged: float


@dataclass(frozen=True, repr=False, eq=False)
class CwlZeroStep(Step):
    """1 where g = 1 (the running count of factors 1 − g that are 0)."""

    min_rel: float
    max_rel: float
    unjudged: float


@dataclass(frozen=True, repr=False, eq=False)
class _CwlRows(Primitive):
    abstract: ClassVar[bool] = True
    shape: str
    a: float
    survival: str
    min_rel: float
    max_rel: float
    unjudged: float
    depth: int

    def inputs(self) -> dict[str, Input]:
        return {
            "cumlog": CwlLogStep(self.min_rel, self.max_rel, self.unjudged),
            "cumzero": CwlZeroStep(self.min_rel, self.max_rel, self.unjudged),
        }


@dataclass(frozen=True, repr=False, eq=False)
class CwlUtility(_CwlRows):
    """Σ_{i≤depth} d(i) · S_i · g_i (the expected utility before normalisation)."""


@dataclass(frozen=True, repr=False, eq=False)
class CwlExamined(_CwlRows):
    """Σ_{i≤depth} d(i) · S_i over the ranked rows (their part of the expected depth)."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "cost")
    costed: bool
    """Σ P_i · c_i instead (c_i the row's cost: cwl_eval's expected cost before normalisation)."""


# U-measure and TBG (cwl_eval) place a document by the text read before it, the costs of the
# documents above (each costs 1 without a cost column): d is read at position 1 + K_{i−1}, K the
# running cost, but cut by rank at depth (U-measure: before the last rank); no survival.


@dataclass(frozen=True, repr=False, eq=False)
class CostAbove(RowValue):
    """K_{i−1}: the costs of the rows ranked above the row."""

    reads: ClassVar[tuple[Column, ...]] = ("cost", "rnk", "qid")
    window: ClassVar[bool] = True


@dataclass(frozen=True, repr=False, eq=False)
class _CwlCostRows(Primitive):
    abstract: ClassVar[bool] = True
    shape: str
    a: float
    min_rel: float
    max_rel: float
    unjudged: float
    depth: int

    def inputs(self) -> dict[str, Input]:
        return {"above": CostAbove()}


@dataclass(frozen=True, repr=False, eq=False)
class CwlCostUtility(_CwlCostRows):
    """Σ_{i≤depth} d(1 + K_{i−1}) · g_i ('geometric' and 'linear' shapes)."""


@dataclass(frozen=True, repr=False, eq=False)
class CwlCostExamined(_CwlCostRows):
    """Σ_{i≤depth} d(1 + K_{i−1}) over the ranked rows."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "cost")
    costed: bool
    """Σ P_i · c_i instead (c_i the row's cost: cwl_eval's expected cost before normalisation)."""


@dataclass(frozen=True, repr=False, eq=False)
class CwlCostTail(Primitive):
    """Σ_{m<i≤depth} d(1 + K_m + i − 1 − m) over the padding (each padded document costs 1; m the
    ranked rows at rank ≤ depth, K_m their costs): 'geometric' a^K_m (1 − a^(depth − m)) / (1 − a);
    'linear' Σ_{j<J} (1 − (K_m + j) / a) over the ranks before the last, J of them positive."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "cost")
    shape: str
    a: float
    depth: int


@dataclass(frozen=True, repr=False, eq=False)
class CwlDiscounted(Primitive):
    """Σ_{i≤depth} d(i) over the ranked rows."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    shape: str
    a: float
    depth: int


@dataclass(frozen=True, repr=False, eq=False)
class CwlNextDiscount(Primitive):
    """d(m + 1), m the ranked rows at rank ≤ depth (the first padded rank's discount; 0 when
    m = depth)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    shape: str
    a: float
    depth: int


@dataclass(frozen=True, repr=False, eq=False)
class CwlSurvival(Primitive):
    """S after the ranked rows at rank ≤ depth (0 for a query missing from the run, so that
    its every value is 0)."""

    survival: str
    min_rel: float
    max_rel: float
    unjudged: float
    depth: int


@dataclass(frozen=True, repr=False, eq=False)
class CwlCostTotal(Primitive):
    """Σ_{i≤depth} c_i, the costs of the ranked rows (cwl_eval's total cost before padding)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "cost")
    depth: int


@dataclass(frozen=True, repr=False, eq=False)
class CwlGainTotal(Primitive):
    """Σ_{i≤depth} g_i over the ranked rows."""

    min_rel: float
    max_rel: float
    unjudged: float
    depth: int


# INST (Moffat, Bailey, Scholer & Thomas 2015): C_i = ((i + 2T − G_i − 1) / (i + 2T − G_i))², G_i
# the running gain: a continuation that reads a running sum, so its own running log (and count
# of zero factors) sums a step of the running gain.


@dataclass(frozen=True, repr=False, eq=False)
class InstLogStep(Step):
    """ln C_i of INST, 0 where C_i = 0."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    target: float
    min_rel: float
    max_rel: float
    unjudged: float

    def inputs(self) -> dict[str, Input]:
        return {"cumgain": CwlGainStep(self.min_rel, self.max_rel, self.unjudged)}


@dataclass(frozen=True, repr=False, eq=False)
class InstZeroStep(Step):
    """1 where INST's C_i = 0."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    target: float
    min_rel: float
    max_rel: float
    unjudged: float

    def inputs(self) -> dict[str, Input]:
        return {"cumgain": CwlGainStep(self.min_rel, self.max_rel, self.unjudged)}


@dataclass(frozen=True, repr=False, eq=False)
class _InstRows(Primitive):
    abstract: ClassVar[bool] = True
    target: float
    min_rel: float
    max_rel: float
    unjudged: float
    depth: int

    def inputs(self) -> dict[str, Input]:
        args = (self.target, self.min_rel, self.max_rel, self.unjudged)
        return {
            "cumgain": CwlGainStep(self.min_rel, self.max_rel, self.unjudged),
            "cumlog": InstLogStep(*args),
            "cumzero": InstZeroStep(*args),
        }


@dataclass(frozen=True, repr=False, eq=False)
class InstUtility(_InstRows):
    """Σ_{i≤depth} P_i · g_i, P_i = Π_{j<i} C_j."""


@dataclass(frozen=True, repr=False, eq=False)
class InstExamined(_InstRows):
    """Σ_{i≤depth} P_i over the ranked rows."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "cost")
    costed: bool
    """Σ P_i · c_i instead (c_i the row's cost: cwl_eval's expected cost before normalisation)."""


@dataclass(frozen=True, repr=False, eq=False)
class _InstAfter(Primitive):
    abstract: ClassVar[bool] = True
    target: float
    min_rel: float
    max_rel: float
    unjudged: float
    depth: int

    def inputs(self) -> dict[str, Input]:
        return {"cumgain": CwlGainStep(self.min_rel, self.max_rel, self.unjudged)}


@dataclass(frozen=True, repr=False, eq=False)
class InstTail(_InstAfter):
    """Σ_{m<i≤depth} P_i over the padding (m the ranked rows at rank ≤ depth), a = 2T − G_m:
    gain 0 there, P_{m+1} · (m + a)² · (ψ1(m + a) − ψ1(depth + a)), ψ1 the trigamma function;
    gain 1 (``unjudged`` = 1), C = ((m + a − 1) / (m + a))² at every padded rank, a geometric sum."""


@dataclass(frozen=True, repr=False, eq=False)
class InstEnd(_InstAfter):
    """P_{depth+1}: P_{m+1} · ((m + a) / (depth + a))² (padding of gain 0), P_{m+1} · C^(depth − m)
    (gain 1)."""


# BPM (Zhang et al. 2017), as cwl_eval: the user goes on from rank i while G_i < T_i and K_i < k
# (K the running cost: i with every document costing 1; a padded document costs 1),
# T_i = T + hb · (G_{i−1} − (i − 1) · gain_med) (hb = 0: the static model), G the running gain;
# P_i = [K_{i−1} < k] · [no rank j < i failed]. The failures are a step of the running gain.


@dataclass(frozen=True, repr=False, eq=False)
class BpmFailStep(Step):
    """1 where G_i ≥ T_i (the user has the gain wanted at rank i)."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk")
    target: float
    hb: float
    gain_med: float
    min_rel: float
    max_rel: float
    unjudged: float

    def inputs(self) -> dict[str, Input]:
        return {"cumgain": CwlGainStep(self.min_rel, self.max_rel, self.unjudged)}


@dataclass(frozen=True, repr=False, eq=False)
class _BpmRows(Primitive):
    abstract: ClassVar[bool] = True
    target: float
    hb: float
    gain_med: float
    k: int
    min_rel: float
    max_rel: float
    unjudged: float
    depth: int

    def inputs(self) -> dict[str, Input]:
        fail = BpmFailStep(self.target, self.hb, self.gain_med, self.min_rel, self.max_rel, self.unjudged)
        return {
            "cumgain": CwlGainStep(self.min_rel, self.max_rel, self.unjudged), "cumfail": fail, "above": CostAbove(),
        }


@dataclass(frozen=True, repr=False, eq=False)
class BpmUtility(_BpmRows):
    """Σ_{i≤depth} P_i · g_i."""


@dataclass(frozen=True, repr=False, eq=False)
class BpmExamined(_BpmRows):
    """Σ_{i≤depth} P_i over the ranked rows."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "cost")
    costed: bool
    """Σ P_i · c_i instead (c_i the row's cost: cwl_eval's expected cost before normalisation)."""


@dataclass(frozen=True, repr=False, eq=False)
class _BpmAfter(Primitive):
    abstract: ClassVar[bool] = True
    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "cost")
    target: float
    hb: float
    gain_med: float
    k: int
    min_rel: float
    max_rel: float
    unjudged: float
    depth: int

    def inputs(self) -> dict[str, Input]:
        return {"cumgain": CwlGainStep(self.min_rel, self.max_rel, self.unjudged)}


@dataclass(frozen=True, repr=False, eq=False)
class BpmTail(_BpmAfter):
    """Σ_{m<i≤depth} P_i over the padding (gain u = ``unjudged`` there: G_i − T_i changes by
    β = u · (1 − hb) + hb · gain_med a rank, so the first failure there is at a rank found in
    closed form)."""


@dataclass(frozen=True, repr=False, eq=False)
class BpmEnd(_BpmAfter):
    """P_{depth+1}."""


# IFT (Azzopardi, Thomas & Craswell 2018), as cwl_eval: C_i = C1_i · C2_i, the goal C1_i = 1 −
# 1 / (1 + b1 · e^((T − G_i) · R1)) (``goal``) and the rate C2_i = 1 / (1 + b2 · e^((A − G_i / K_i)
# · R2)) (``rate``), G_i the running gain, K_i = Σ_{j≤i} c_j the running cost (i when each document
# costs 1; a padded document costs 1, cwl_eval's max_cost and min_cost). ln C is computed as
# −softplus (no overflow for large R1, R2); no factor is 0 (b1 > 0). A zero running cost (the
# documents from rank 1 down to i all cost 0): G_i > 0 makes the rate +∞ and C2_i = 1 (R2 > 0), as
# cwl_eval; G_i = 0 (0 / 0) or R2 = 0 (∞ · 0) makes cwl_eval's C2 NaN, which the engines refuse
# with an error (:data:`IFT_UNDEFINED_RATE`).

IFT_UNDEFINED_RATE = (
    "the rate of gain G_i / K_i of IFTRate and IFTGoalRate is undefined: the first-ranked document "
    "of a query has cost 0 (the run's cost column) and gain 0 (0 / 0), or cost 0 with R2 = 0 "
    "(inf * 0), where cwl_eval gives NaN; give it a positive cost"
)
"""The message of the error an engine raises where IFT's rate is undefined (the SQL's error()
is ``'rankwise: '`` and this)."""


@dataclass(frozen=True, repr=False, eq=False)
class CostStep(Step):
    """c_i, the row's cost (the running cost K_i = Σ_{j≤i} c_j: i when each document costs 1)."""

    reads: ClassVar[tuple[Column, ...]] = ("cost",)


@dataclass(frozen=True, repr=False, eq=False)
class IftLogStep(Step):
    """ln C_i of IFT (its rate reads the running cost K_i)."""

    reads: ClassVar[tuple[Column, ...]] = ()
    goal: bool
    rate: bool
    target: float
    b1: float
    r1: float
    rate_a: float
    b2: float
    r2: float
    min_rel: float
    max_rel: float
    unjudged: float

    def inputs(self) -> dict[str, Input]:
        return {"cumgain": CwlGainStep(self.min_rel, self.max_rel, self.unjudged), "cumcost": CostStep()}


@dataclass(frozen=True, repr=False, eq=False)
class _Ift(Primitive):
    abstract: ClassVar[bool] = True
    goal: bool
    rate: bool
    target: float
    b1: float
    r1: float
    rate_a: float
    b2: float
    r2: float
    min_rel: float
    max_rel: float
    unjudged: float
    depth: int

    def inputs(self) -> dict[str, Input]:
        return {"cumgain": CwlGainStep(self.min_rel, self.max_rel, self.unjudged), "cumcost": CostStep()}


@dataclass(frozen=True, repr=False, eq=False)
class _IftRows(_Ift):
    abstract: ClassVar[bool] = True

    def inputs(self) -> dict[str, Input]:
        model = (self.goal, self.rate, self.target, self.b1, self.r1, self.rate_a, self.b2, self.r2)
        return {
            "cumgain": CwlGainStep(self.min_rel, self.max_rel, self.unjudged),
            "cumcost": CostStep(),
            "cumlog": IftLogStep(*model, self.min_rel, self.max_rel, self.unjudged),
        }


@dataclass(frozen=True, repr=False, eq=False)
class IftUtility(_IftRows):
    """Σ_{i≤depth} P_i · g_i, P_i = Π_{j<i} C_j."""


@dataclass(frozen=True, repr=False, eq=False)
class IftExamined(_IftRows):
    """Σ_{i≤depth} P_i over the ranked rows."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "cost")
    costed: bool
    """Σ P_i · c_i instead (c_i the row's cost: cwl_eval's expected cost before normalisation)."""


@dataclass(frozen=True, repr=False, eq=False)
class IftTail(_Ift):
    """Σ_{m<i≤depth} P_i over the padding (m the ranked rows at rank ≤ depth; gain u =
    ``unjudged`` and cost 1 there, G_i = G_m + (i − m) · u, K_i = K_m + i − m, K_m the ranked
    rows' costs): no closed form, a sum over the padded ranks."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "cost")


@dataclass(frozen=True, repr=False, eq=False)
class IftTotal(_IftRows):
    """Σ_{i≤depth} P_i · (1 − C_i) · G_i over the ranked rows and the padding (cwl_eval's expected
    total utility as it sums it, its L_i = P_i · (1 − C_i) the chance of stopping at rank i):
    1 − C_i carried as a sum of nonnegative terms, not subtracted from 1, so that a C_i near 1 keeps
    its digits (Σ P g − P_{depth+1} · G would cancel)."""

    reads: ClassVar[tuple[Column, ...]] = ("rel", "rnk", "cost")
    costed: bool
    """Σ P_i · (1 − C_i) · K_i instead (cwl_eval's expected total cost)."""


# -- diversity (intent-aware) primitives: over (document, subtopic) pairs ----------------------
# Subtopic qrels judge a document per subtopic (intent). A *pair* is a relevant judgment
# (relevance >= t) of a document for one subtopic. The intent sides aggregate over pairs, each
# with ``rnk`` (the document's rank), ``cov`` (how many documents ranked above it cover the same
# subtopic: ndeval's count behind the gain (1 - alpha)^cov), ``nsub`` (the subtopic's number of
# relevant documents) and ``sub`` (the subtopic):
#
# - side ``intents``: the pairs of the ranked documents (the run);
# - side ``ideal_intents``: the pairs of ndeval's greedy ideal ranking of the judged documents
#   (each rank takes the document of largest gain sum Σ (1 - alpha)^cov, ties to the larger doc
#   id as text), ranks 1..k (k None: all);
# - side ``subtopic_qrels``: the relevant judgments themselves (no rank).


@dataclass(frozen=True, repr=False, eq=False)
class IntentPrimitive(Primitive):
    """A per-query aggregate over the run's relevant (document, subtopic) pairs."""

    abstract: ClassVar[bool] = True
    side: ClassVar[Side] = "intents"
    reads: ClassVar[tuple[Column, ...]] = ("rnk", "cov")
    t: float


@dataclass(frozen=True, repr=False, eq=False)
class IntentGain(IntentPrimitive):
    """Σ over pairs at rank ≤ k of (1 − alpha)^cov · w(rank), w = 1 / log2(rank + 1)
    (``weight='log2'``, α-DCG), 1 / rank (``'rank'``, ERR-IA) or beta^(rank − 1)
    (``'geometric'``, NRBP)."""

    k: int | None
    alpha: float
    weight: str
    beta: float


@dataclass(frozen=True, repr=False, eq=False)
class IdealIntentGain(IntentGain):
    """:class:`IntentGain` over the pairs of the greedy ideal ranking (built with ``alpha``)."""

    side: ClassVar[Side] = "ideal_intents"


@dataclass(frozen=True, repr=False, eq=False)
class IntentHits(IntentPrimitive):
    """Number of pairs at rank ≤ k (P-IA's count)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk",)
    k: int | None


@dataclass(frozen=True, repr=False, eq=False)
class IntentNew(IntentPrimitive):
    """Number of subtopics covered at rank ≤ k (pairs with cov = 0)."""

    k: int | None


@dataclass(frozen=True, repr=False, eq=False)
class IntentApSum(IntentPrimitive):
    """Σ over pairs of (cov + 1) / (rank · nsub): Σ over subtopics of their AP (MAP-IA's sum)."""

    reads: ClassVar[tuple[Column, ...]] = ("rnk", "cov", "nsub")


@dataclass(frozen=True, repr=False, eq=False)
class Subtopics(IntentPrimitive):
    """Number of subtopics with a relevant judgment (ndeval's "actual subtopics")."""

    side: ClassVar[Side] = "subtopic_qrels"
    reads: ClassVar[tuple[Column, ...]] = ("sub",)


INTENT_SIDES: tuple[Side, ...] = ("intents", "ideal_intents", "subtopic_qrels")
"""The sides whose rows are (document, subtopic) pairs."""

IDEAL_SCORE_DIGITS = 12
"""The greedy ideal compares gain sums rounded to 12 decimals (every engine): sums of
(1 − alpha)^c that are equal, added in another order, then tie, and the tie goes to the doc id
(ndeval compares its sums exactly, adding them in subtopic order)."""


def ideal_depth(nodes: list[Primitive]) -> int | None:
    """How many ranks of the greedy ideal the ideal primitives read (None: all of them)."""
    ks = [getattr(n, "k", None) for n in nodes if n.side == "ideal_intents"]
    return None if not ks or None in ks else max(k for k in ks if k is not None)


# -- scalar operations on per-query values ------------------------------------------------------


@dataclass(frozen=True)
class Const:
    value: float


@dataclass(frozen=True, repr=False, eq=False)
class Op(Bound):
    """A scalar operation on other nodes (its fields)."""

    abstract: ClassVar[bool] = True


@dataclass(frozen=True, repr=False, eq=False)
class Unary(Op):
    abstract: ClassVar[bool] = True
    a: Node


@dataclass(frozen=True, repr=False, eq=False)
class Binary(Op):
    abstract: ClassVar[bool] = True
    a: Node
    b: Node


@dataclass(frozen=True, repr=False, eq=False)
class Div0(Binary):
    """a / b, 0 when b = 0."""


@dataclass(frozen=True, repr=False, eq=False)
class DivNull(Binary):
    """a / b, NULL (undefined) when b = 0."""


@dataclass(frozen=True, repr=False, eq=False)
class Recip0(Unary):
    """1 / a, 0 when a is NULL."""


@dataclass(frozen=True, repr=False, eq=False)
class Positive(Unary):
    """1 when a > 0, else 0."""


@dataclass(frozen=True, repr=False, eq=False)
class Div(Binary):
    """a / b."""


@dataclass(frozen=True, repr=False, eq=False)
class Add(Binary):
    """a + b."""


@dataclass(frozen=True, repr=False, eq=False)
class Sub(Binary):
    """a − b."""


@dataclass(frozen=True, repr=False, eq=False)
class Mul(Binary):
    """a · b."""


@dataclass(frozen=True, repr=False, eq=False)
class Least(Binary):
    """min(a, b)."""


@dataclass(frozen=True, repr=False, eq=False)
class Greatest(Binary):
    """max(a, b)."""


@dataclass(frozen=True, repr=False, eq=False)
class Floor(Unary):
    """⌊a⌋."""


@dataclass(frozen=True, repr=False, eq=False)
class Power(Binary):
    """a^b."""


Node = Primitive | Const | Op
"""A node of a recipe's tree."""


def children(op: Op) -> list[Node]:
    """The operands of a scalar operation, in field order."""
    return [getattr(op, f.name) for f in fields(op)]


def leaves(node: Node) -> list[Primitive]:
    """The primitives a tree uses (depth first, with repeats)."""
    if isinstance(node, Primitive):
        return [node]
    if isinstance(node, Op):
        return [leaf for a in children(node) for leaf in leaves(a)]
    return []


def declared(base: type[Bound]) -> list[type[Bound]]:
    """Every class below ``base`` but the kinds themselves (marked ``abstract = True``): the
    declared primitives, inputs or operations."""
    out: list[type[Bound]] = []
    for sub in base.__subclasses__():
        if not sub.__dict__.get("abstract", False):
            out.append(sub)
        out += declared(sub)
    return out


def qrels_needs(node: Primitive) -> list[QrelsPrimitive]:
    """The per-query values of the judgments a run primitive reads on every row."""
    return [i for i in node.inputs().values() if isinstance(i, QrelsPrimitive)]


def run_ideal_values(node: Primitive) -> list[RunIdealValue]:
    """The values of the run-ordered ideal a primitive reads."""
    return [i for i in node.inputs().values() if isinstance(i, RunIdealValue)]


def prefix_gains(node: Primitive) -> list[Gain]:
    """The gains whose ideal prefix a primitive reads."""
    return [i.g for i in node.inputs().values() if isinstance(i, IdealPrefix)]
