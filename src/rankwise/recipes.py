"""Each metric written once, as a formula over per-query primitives.

A *recipe* turns a parsed :class:`~rankwise.metric.Metric` into a small expression tree whose
leaves are per-query aggregates. Each engine implements the primitives once (Polars
expressions in ``rankwise._polars.primitives``, SQL macros in ``sql/``) and compiles the tree;
the metric formulas themselves live only here.

Primitives over the ranked rows of a query (``RunAgg``; rank i = 1 is the top):

- ``count()``: number of ranked documents.
- ``relret(t, k)``: number of documents with relevance ≥ t at rank ≤ k (k = None: all).
- ``dcg(k, gain, discount, base)``: Σ_{i≤k} gain(rel_i) / discount(i), ``gain`` a :class:`Gain`.
- ``cg(k, gain)``: Σ_{i≤k} gain(rel_i).
- ``ideal_dcg_run(k, gain, discount, base)``: DCG@k of the retrieved documents re-sorted by
  relevance.
- ``ap_sum(t, k)``: Σ_{i≤k, rel_i≥t} relret(t, i) / i.
- ``first_rel(t, k)``: smallest rank ≤ k holding a relevant document (NULL when none).
- ``relret_at_nrel(t, x)``: relevant documents at rank ≤ floor(x · nrel(t) + 0.9)
  (x = 1: R-precision's depth R; trec_eval's Rprec_mult rounding).
- ``nonrel_judged(t)``: judged documents (relevance ≥ 0) with relevance < t.
- ``unjudged(k)``: documents at rank ≤ k that are unjudged or judged negative (trec_eval's
  "in the pool but unjudged").
- ``bpref_sum(t)``: Σ over relevant documents of 1 − min(n, R) / min(N, R), with n the judged
  non-relevant documents ranked above, N all judged non-relevant, R = nrel(t) (1 when n = 0).
- ``iprec(t, level)``: interpolated precision at recall ``level``: max precision at the ranks
  where at least lround(level · R) relevant documents have been seen (0 when none).
- ``infap_sum(t)``: Σ over relevant documents at rank i of (1 + X · (a + ε) / (a + n + 2ε)) / i,
  with a, n, u the relevant, judged non-relevant and pooled-but-unjudged (negative) documents
  above, X = a + n + u, ε = 1e-5 (Yilmaz & Aslam 2006, as trec_eval).
- ``bing_sum(t)``: Σ over relevant documents of 1 / log2(2 + n), n = non-relevant ranked above.
- ``rankeff_sum(t)``: Σ over relevant documents of 1 − n / N, n = judged non-relevant ranked
  above, N = all judged non-relevant (1 when N = 0).
- ``rbp_sum(t, p)``: Σ over relevant documents of p^(i − 1).
- ``unjudged_rbp_sum(p)``: Σ over unjudged documents of p^(i − 1).
- ``relstring(k)``: the relevance of the documents at rank ≤ k as text, one character each:
  the level's digit (floor), '>' above 9, '-' unjudged, '.' judged negative (trec_eval relstring).
- ``err_sum(k, max_rel)``: Σ_{i≤k} R_i / i · Π_{j<i} (1 − R_j), R = (2^g − 1) / 2^max_rel,
  g = min(max(rel, 0), max_rel).

Primitives that read the *ideal prefix* of their query at each rank (gain g, log2 discount;
the ideal order holds the judged documents of positive gain, best first, npos of them; at a
rank i beyond npos the prefix is the whole ideal list):

- ``npos_ret(gain)``: number of retrieved documents with gain > 0.
- ``ndcg_rel_sum(gain)``: Σ over retrieved documents of positive gain of DCG_i / IDCG_{min(i, npos)}.
- ``rndcg_sum(gain)``: Σ over ranks i ≤ n that end a run of equal ideal gains of DCG_i / IDCG_i.
- ``rndcg_inv(gain)``: Σ over the same ranks of 1 / IDCG_i.
- ``g_sum(gain)``: Σ_i g_i / log2(2 + C_i − S_i), S_i = Σ_{j≤i} g_j, C_i = i + Σ_{j≤min(i, npos)}
  max(g*_j − 1, 0) with g* the ideal gains (trec_eval's G).

Primitives over the judgments of a query (``QrelsAgg``):

- ``nrel(t)``: number of judged documents with relevance ≥ t.
- ``idcg(k, gain, discount, base)``: DCG@k of all judged documents sorted by relevance.
- ``nonrel(t)``: number of judged documents (relevance ≥ 0) with relevance < t.
- ``npos(gain)``: number of judged documents with gain > 0 (npos).
- ``pos_gain(gain)``: Σ of the positive gains.
- ``pos_excess(gain)``: Σ of max(gain − 1, 0) (G's cost of the whole ideal list beyond one per rank).
- ``idcg_pos(gain)``: IDCG_npos, the DCG of the whole ideal list (log2 discount).
- ``rndcg_bounds(gain)``: number of ideal ranks b that end a run of equal positive gains.
- ``rndcg_bounds_inv(gain)``: Σ over those ranks of 1 / IDCG_b.

Scalar operations (``Fn``): ``div0(a, b)`` (a / b, 0 when b = 0), ``recip0(a)`` (1 / a, 0
when a is NULL), ``positive(a)`` (1 when a > 0 else 0), ``div(a, b)``, ``add``, ``sub``,
``mul``, ``min``, ``floor``, ``pow``.

>>> from rankwise.metric import parse_metric
>>> recipe(parse_metric("nDCG@10"), {})
Fn(op='div0', args=(RunAgg(op='dcg', args=(10, Gain(kind='linear', min_rel=0.0, table=()), 'log2', 2.0)), QrelsAgg(op='idcg', args=(10, Gain(kind='linear', min_rel=0.0, table=()), 'log2', 2.0))))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from rankwise.metric import Metric
from rankwise.spec import ParamValue


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


def parse_gain_table(text: str) -> tuple[tuple[float, float], ...]:
    """``"1=3,2=9,4=4.5"`` → ((1.0, 3.0), (2.0, 9.0), (4.0, 4.5)); ``""`` → ()."""
    if not text.strip():
        return ()
    pairs = []
    for item in text.split(","):
        level, _, gain = item.partition("=")
        pairs.append((float(level), float(gain)))
    return tuple(pairs)


Arg = int | float | str | bool | None | Gain


@dataclass(frozen=True)
class RunAgg:
    """A per-query aggregate over the ranked (retrieved) documents."""

    op: str
    args: tuple[Arg, ...] = ()


@dataclass(frozen=True)
class QrelsAgg:
    """A per-query aggregate over the query's judgments."""

    op: str
    args: tuple[Arg, ...] = ()


@dataclass(frozen=True)
class Const:
    value: float


@dataclass(frozen=True)
class Fn:
    """A scalar operation on other nodes."""

    op: str
    args: tuple[Node, ...]


Node = RunAgg | QrelsAgg | Const | Fn


def as_cutoff(value: Arg) -> int | None:
    """A recipe argument that is a cutoff (int or None)."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise TypeError(f"expected a cutoff, got {value!r}")


def as_float(value: Arg) -> float:
    """A recipe argument that is a number."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise TypeError(f"expected a number, got {value!r}")


def as_gain(value: Arg) -> Gain:
    """A recipe argument that is a :class:`Gain`."""
    if isinstance(value, Gain):
        return value
    raise TypeError(f"expected a Gain, got {value!r}")


def dcg_params(args: tuple[Arg, ...]) -> tuple[int | None, Gain, str, float]:
    """(k, gain, discount, base) of a dcg-like primitive."""
    k, gain, discount, base = args
    return as_cutoff(k), as_gain(gain), str(discount), as_float(base)


RUN_OPS: dict[str, int] = {
    "count": 0,
    "relret": 2,
    "dcg": 4,
    "cg": 2,
    "ideal_dcg_run": 4,
    "ap_sum": 2,
    "first_rel": 2,
    "relret_at_nrel": 2,
    "nonrel_judged": 1,
    "unjudged": 1,
    "bpref_sum": 1,
    "iprec": 2,
    "bing_sum": 1,
    "infap_sum": 1,
    "rankeff_sum": 1,
    "rbp_sum": 2,
    "unjudged_rbp_sum": 1,
    "err_sum": 2,
    "npos_ret": 1,
    "ndcg_rel_sum": 1,
    "rndcg_sum": 1,
    "rndcg_inv": 1,
    "g_sum": 1,
    "relstring": 1,
}
"""Run-side primitives and their number of arguments."""

QRELS_OPS: dict[str, int] = {
    "nrel": 1, "idcg": 4, "nonrel": 1, "npos": 1, "pos_gain": 1, "pos_excess": 1, "idcg_pos": 1,
    "rndcg_bounds": 1, "rndcg_bounds_inv": 1,
}
"""Qrels-side primitives and their number of arguments."""

FN_OPS: dict[str, int] = {
    "div0": 2, "recip0": 1, "positive": 1, "div": 2, "add": 2, "sub": 2, "mul": 2, "min": 2,
    "floor": 1, "pow": 2,
}
"""Scalar operations and their number of arguments."""

RUN_NULL_WHEN_EMPTY = frozenset({"first_rel"})
"""Run primitives whose value for a query with no ranked documents is NULL (the others are 0)."""
RUN_STRING_OPS = frozenset({"relstring"})
"""Run primitives whose value is text ('' for a query with no ranked documents)."""


def requires(node: RunAgg) -> tuple[QrelsAgg, ...]:
    """Qrels-side values a run primitive reads on every ranked row (joined per query)."""
    if node.op in ("relret_at_nrel", "iprec"):
        return (QrelsAgg("nrel", node.args[:1]),)
    if node.op == "bpref_sum":
        return (QrelsAgg("nrel", node.args), QrelsAgg("nonrel", node.args))
    if node.op == "rankeff_sum":
        return (QrelsAgg("nonrel", node.args),)
    if node.op == "ndcg_rel_sum":
        return (QrelsAgg("idcg_pos", node.args),)
    if node.op == "g_sum":
        return (QrelsAgg("pos_excess", node.args),)
    return ()


IDEAL_PREFIX_OPS = frozenset({"ndcg_rel_sum", "rndcg_sum", "rndcg_inv", "g_sum"})
"""Run primitives that read the ideal prefix of their query at each rank (a join on rank)."""

QRELS_PREFIX_OPS = frozenset({"rndcg_bounds", "rndcg_bounds_inv"})
"""Qrels primitives computed over the ideal prefix (its boundary flags)."""


def _threshold(p: Mapping[str, ParamValue]) -> float:
    return float(p["rel"])


def gain_of(p: Mapping[str, ParamValue]) -> Gain:
    """The :class:`Gain` of resolved DCG-family parameters."""
    return Gain(str(p["gain"]), float(p["rel"]), parse_gain_table(str(p["gains"])))


def _dcg_args(m: Metric, p: Mapping[str, ParamValue]) -> tuple[Arg, ...]:
    return (m.cutoff, gain_of(p), str(p["discount"]), float(p["base"]))


def _ideal(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    if p["ideal"] == "run":
        return RunAgg("ideal_dcg_run", _dcg_args(m, p))
    return QrelsAgg("idcg", _dcg_args(m, p))


def _ap(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    t = _threshold(p)
    return Fn("div0", (RunAgg("ap_sum", (t, m.cutoff)), QrelsAgg("nrel", (t,))))


def _relret(m: Metric, p: Mapping[str, ParamValue], k: int | None = None) -> Node:
    return RunAgg("relret", (_threshold(p), k))


def _nrel(p: Mapping[str, ParamValue]) -> Node:
    return QrelsAgg("nrel", (_threshold(p),))


def _add(*nodes: Node) -> Node:
    out = nodes[0]
    for n in nodes[1:]:
        out = Fn("add", (out, n))
    return out


def _mul(a: Node, b: Node) -> Node:
    return Fn("mul", (a, b))


def _fscore(precision: Node, recall: Node, weight: float) -> Node:
    """(w + 1)·P·R / (w·P + R), 0 when P = R = 0 (trec_eval set_F's form; w = 1: F1)."""
    num = _mul(Const(weight + 1.0), _mul(precision, recall))
    return Fn("div0", (num, _add(_mul(Const(weight), precision), recall)))


def _set_p(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    return Fn("div0", (_relret(m, p), RunAgg("count")))


def _set_r(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    return Fn("div0", (_relret(m, p), _nrel(p)))


def _iprec(t: float, level: float) -> Node:
    return RunAgg("iprec", (t, level))


ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def _levels(p: Mapping[str, ParamValue]) -> tuple[float, ...]:
    text = str(p["levels"]).strip()
    return tuple(float(x) for x in text.split(",")) if text else ELEVEN_POINTS


def _utility(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    relret, ret, nrel = _relret(m, p), RunAgg("count"), _nrel(p)
    nonrel_ret = Fn("sub", (ret, relret))
    rel_missed = Fn("sub", (nrel, relret))
    rest = Fn("sub", (_add(Const(float(p["docs"])), relret), _add(ret, nrel)))
    return _add(
        _mul(Const(float(p["a"])), relret),
        _mul(Const(float(p["b"])), nonrel_ret),
        _mul(Const(float(p["c"])), rel_missed),
        _mul(Const(float(p["d"])), rest),
    )


def _table_gain(p: Mapping[str, ParamValue]) -> Gain:
    """trec_eval's gain for G, ndcg_rel, Rndcg: the relevance level, or the table's value."""
    return Gain("linear", 0.0, parse_gain_table(str(p["gains"])))


def _ndcg_rel(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    g = _table_gain(p)
    npos = QrelsAgg("npos", (g,))
    missed = Fn("sub", (npos, RunAgg("npos_ret", (g,))))
    end = Fn("div0", (RunAgg("dcg", (None, g, "log2", 2.0)), QrelsAgg("idcg_pos", (g,))))
    return Fn("div0", (_add(RunAgg("ndcg_rel_sum", (g,)), _mul(missed, end)), npos))


def _rndcg(m: Metric, p: Mapping[str, ParamValue]) -> Node:
    g = _table_gain(p)
    dcg_n = RunAgg("dcg", (None, g, "log2", 2.0))
    # trec_eval adds nDCG at the end of the ranking only when two or more documents follow the
    # last ideal boundary (its loop has already consumed one)
    tail = Fn("positive", (Fn("sub", (RunAgg("count"), _add(QrelsAgg("npos", (g,)), Const(1.0)))),))
    beyond = Fn("sub", (QrelsAgg("rndcg_bounds_inv", (g,)), RunAgg("rndcg_inv", (g,))))
    total = _add(
        RunAgg("rndcg_sum", (g,)),
        _mul(dcg_n, beyond),
        _mul(tail, Fn("div0", (dcg_n, QrelsAgg("idcg_pos", (g,))))),
    )
    value = Fn("div0", (total, _add(QrelsAgg("rndcg_bounds", (g,)), tail)))
    return _mul(Fn("positive", (_nrel(p),)), value)


RELSTRING_DEFAULT_K = 10
"""Documents RelString shows without a cutoff (trec_eval's default)."""

Recipe = Callable[[Metric, Mapping[str, ParamValue]], Node]

RECIPES: dict[str, Recipe] = {
    "nDCG": lambda m, p: Fn("div0", (RunAgg("dcg", _dcg_args(m, p)), _ideal(m, p))),
    "DCG": lambda m, p: RunAgg("dcg", _dcg_args(m, p)),
    "IDCG": _ideal,
    "CG": lambda m, p: RunAgg("cg", (m.cutoff, gain_of(p))),
    "P": lambda m, p: Fn(
        "div", (RunAgg("relret", (_threshold(p), m.cutoff)), Const(float(m.cutoff or 1)))
    ),
    "R": lambda m, p: Fn(
        "div0", (RunAgg("relret", (_threshold(p), m.cutoff)), QrelsAgg("nrel", (_threshold(p),)))
    ),
    "Success": lambda m, p: Fn("positive", (RunAgg("relret", (_threshold(p), m.cutoff)),)),
    "AP": _ap,
    "GMAP": _ap,
    "RR": lambda m, p: Fn("recip0", (RunAgg("first_rel", (_threshold(p), m.cutoff)),)),
    "Rprec": lambda m, p: Fn(
        "div0", (RunAgg("relret_at_nrel", (_threshold(p), 1.0)), _nrel(p))
    ),
    "RprecMult": lambda m, p: Fn(
        "div0",
        (
            RunAgg("relret_at_nrel", (_threshold(p), float(p["mult"]))),
            Fn("floor", (_add(_mul(Const(float(p["mult"])), _nrel(p)), Const(0.9)),)),
        ),
    ),
    "Bpref": lambda m, p: Fn("div0", (RunAgg("bpref_sum", (_threshold(p),)), _nrel(p))),
    "GMBpref": lambda m, p: Fn("div0", (RunAgg("bpref_sum", (_threshold(p),)), _nrel(p))),
    "IPrec": lambda m, p: _iprec(_threshold(p), float(p["recall"])),
    "IPrec11": lambda m, p: Fn(
        "div",
        (_add(*(_iprec(_threshold(p), r) for r in _levels(p))), Const(float(len(_levels(p))))),
    ),
    "SetP": _set_p,
    "SetF": lambda m, p: _fscore(_set_p(m, p), _set_r(m, p), float(p["beta"])),
    "SetAP": lambda m, p: _mul(_set_p(m, p), _set_r(m, p)),
    "SetRelP": lambda m, p: Fn("div0", (_relret(m, p), Fn("min", (RunAgg("count"), _nrel(p))))),
    "RelP": lambda m, p: Fn(
        "div0", (_relret(m, p, m.cutoff), Fn("min", (Const(float(m.cutoff or 0)), _nrel(p))))
    ),
    "F1": lambda m, p: _fscore(
        Fn("div", (_relret(m, p, m.cutoff), Const(float(m.cutoff or 1)))),
        Fn("div0", (_relret(m, p, m.cutoff), _nrel(p))),
        1.0,
    ),
    "Utility": _utility,
    "InfAP": lambda m, p: Fn("div0", (RunAgg("infap_sum", (_threshold(p),)), _nrel(p))),
    "BinG": lambda m, p: Fn("div0", (RunAgg("bing_sum", (_threshold(p),)), _nrel(p))),
    "RankEff": lambda m, p: Fn("div0", (RunAgg("rankeff_sum", (_threshold(p),)), _nrel(p))),
    "RBP": lambda m, p: _mul(Const(1.0 - float(p["p"])), RunAgg("rbp_sum", (_threshold(p), float(p["p"])))),
    "RBPResid": lambda m, p: _add(
        _mul(Const(1.0 - float(p["p"])), RunAgg("unjudged_rbp_sum", (float(p["p"]),))),
        Fn("pow", (Const(float(p["p"])), RunAgg("count"))),
    ),
    "ERR": lambda m, p: RunAgg("err_sum", (m.cutoff, float(p["max_rel"]))),
    "NumNonRelJudgedRet": lambda m, p: RunAgg("nonrel_judged", (_threshold(p),)),
    "Unjudged": lambda m, p: Fn("div", (RunAgg("unjudged", (m.cutoff,)), Const(float(m.cutoff or 1)))),
    "Judged": lambda m, p: Fn(
        "sub", (Const(1.0), Fn("div", (RunAgg("unjudged", (m.cutoff,)), Const(float(m.cutoff or 1)))))
    ),
    "G": lambda m, p: Fn(
        "div0", (RunAgg("g_sum", (_table_gain(p),)), QrelsAgg("pos_gain", (_table_gain(p),)))
    ),
    "nDCGRel": _ndcg_rel,
    "RnDCG": _rndcg,
    "RelString": lambda m, p: RunAgg("relstring", (m.cutoff or RELSTRING_DEFAULT_K,)),
    "NumQ": lambda m, p: Const(1.0),
    "NumRet": lambda m, p: RunAgg("count"),
    "NumRel": lambda m, p: QrelsAgg("nrel", (_threshold(p),)),
    "NumRelRet": lambda m, p: RunAgg("relret", (_threshold(p), None)),
}


def recipe(metric: Metric, conventions: Mapping[str, ParamValue]) -> Node:
    """The formula tree of ``metric`` with its parameters resolved against ``conventions``."""
    return RECIPES[metric.spec.name](metric, metric.resolve(conventions))


def leaves(node: Node) -> list[RunAgg | QrelsAgg]:
    """The primitives a tree uses (depth first, with repeats)."""
    if isinstance(node, (RunAgg, QrelsAgg)):
        return [node]
    if isinstance(node, Fn):
        return [leaf for a in node.args for leaf in leaves(a)]
    return []
