"""trec_eval's measure names, parsed into rankwise metrics.

Both forms trec_eval uses are accepted: the printed form (``P_10``, ``ndcg_cut_20``,
``iprec_at_recall_0.10``, ``Rprec_mult_0.20``, ``11pt_avg``) and the ``-m`` form with a
parameter list (``P.5,10,20``, ``ndcg_cut.10,20``, ``set_F.0.5``), which expands into one
metric per value, each labelled as trec_eval prints it. ``official`` expands to trec_eval's
default set, ``all_trec`` to every measure of trec_eval (as ``trec_eval -m all_trec``).

>>> [m.label for m in parse_trec("P.5,10")]
['P_5', 'P_10']
>>> parse_trec("iprec_at_recall_0.10")
[IPrec(recall=0.1)]
>>> parse_trec("map_cut_100")
[AP@100]

trec_eval 10's own parameter syntax for ``rbp`` and ``rbp_resid`` is a ``name=value`` pair,
printed after the measure's name; ``rbp.0.95`` (a bare value) is rankwise's shorthand for it,
labelled ``rbp`` as trec_eval labels the default. ``rbp.95`` is ranx's name (p = 0.95), not
trec_eval's, and is left to :mod:`rankwise.names.ranx`:

>>> [(m.label, m) for m in parse_trec("rbp.p=0.95") + parse_trec("rbp.0.95")]
[('rbp_p=0.95', RBP(p=0.95)), ('rbp', RBP(p=0.95))]
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from rankwise.errors import InvalidParameterError, UnknownMetricError
from rankwise.metrics.families import FAMILIES as METRIC_FAMILIES
from rankwise.metrics.family import TrecName
from rankwise.metrics.metric import Metric, check_length, make_metric
from rankwise.metrics.registry import get_spec
from rankwise.metrics.spec import shorten
from rankwise.names.ranx import is_ranx_rbp

Family = TrecName
"""One trec_eval measure (:class:`rankwise.metrics.family.TrecName`, declared by its family)."""


def _families() -> dict[str, TrecName]:
    """Every family's trec_eval names; a name two families declare is an error."""
    out: dict[str, TrecName] = {}
    for family in METRIC_FAMILIES:
        for name, trec in family.trec_eval.items():
            if name in out:
                raise RuntimeError(f"trec_eval measure {name!r} is declared twice")
            out[name] = trec
    return out


FAMILIES: dict[str, TrecName] = _families()
"""trec_eval's measures rankwise has, by name: what each reads as (from the metric families)."""

ALL_TREC: tuple[str, ...] = tuple(sorted(FAMILIES, key=lambda name: FAMILIES[name].place))
"""trec_eval's ``all_trec`` set, in the order it prints them (``trec_eval -m all_trec``): the
order of its table of measures (``measures.c``), in which it prints any measures it is given."""

OFFICIAL: tuple[str, ...] = tuple(name for name in ALL_TREC if FAMILIES[name].official)
"""trec_eval's default measures (what ``trec_eval qrels run`` prints), in its order."""

NICKNAMES: dict[str, tuple[str, ...]] = {"official": OFFICIAL, "all_trec": ALL_TREC}
"""trec_eval's names of measure sets that rankwise has; each includes ``runid``."""

_PRINTED = re.compile(r"^(?P<family>.+?)_(?P<value>\d+(?:\.\d+)?)$", re.ASCII)
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", re.ASCII)
"""A number as trec_eval's parameters write it (what C's atof reads, without nan and inf)."""
_CUTOFF = re.compile(r"[-+]?\d+(?:\.\d*)?", re.ASCII)
"""A cutoff: an integer, or a decimal that trec_eval truncates (``ndcg_cut.23.4`` is 23)."""


def _number(name: str, family: Family, item: str, text: str) -> int | float:
    """One value of a ``-m name.v1,v2`` list: an exact int for a cutoff, else a float."""
    if family.number == "cutoff":
        if not _CUTOFF.fullmatch(item):
            raise InvalidParameterError(
                f"metric {shorten(text)}: trec_eval's {name} takes integer cutoffs "
                f"(e.g. {name}.5,10), got {shorten(item, 40)}"
            )
        return int(item.partition(".")[0])  # trec_eval truncates: ndcg_cut.23.4 is ndcg_cut_23
    if not _NUMBER.fullmatch(item):
        raise InvalidParameterError(
            f"metric {shorten(text)}: trec_eval's {name} takes numbers, got {shorten(item, 40)}"
        )
    return float(item)  # may be inf (1e400): refused by the parameter's check


def _metric(name: str, family: Family, value: float | None) -> Metric:
    spec = get_spec(family.spec)
    if family.number == "none" or value is None:
        return replace(make_metric(spec, {}, None, name), source=name)
    if family.number == "cutoff":
        cutoff = value if isinstance(value, int) else int(value)  # the defaults are floats
        return make_metric(spec, {}, cutoff, f"{name}_{cutoff}")
    assert family.param is not None  # families with a parameter name it
    label = f"{name}_{family.fmt.format(value)}" if family.fmt != "{:g}" else f"{name}"
    return make_metric(spec, {family.param: value}, None, label)


def expand_family(name: str, values: tuple[float, ...] | None = None) -> list[Metric]:
    """The metrics of trec_eval measure ``name`` with parameter ``values`` (default: its own)."""
    family = FAMILIES[name]
    if family.number == "none":
        return [_metric(name, family, None)]
    chosen = values if values is not None else family.defaults
    if family.bare_default and values is None:
        return [replace(_metric(name, family, v), source=name) for v in chosen]
    if not family.printed:
        return [replace(_metric(name, family, v), source=name) for v in chosen]
    return [_metric(name, family, v) for v in chosen]


_UTILITY = re.compile(r"^utility[._](?P<coefs>[^,]+,[^,]+,[^,]+,[^,]+)$")


def _utility(text: str) -> Metric | None:
    """``utility.2,-1,0,0`` (``-m`` form) or ``utility_2,-1,0,0`` (printed form)."""
    m = _UTILITY.match(text)
    if m is None:
        return None
    coefs = m.group("coefs").split(",")
    for v in coefs:
        if not _NUMBER.fullmatch(v):
            raise InvalidParameterError(
                f"metric {shorten(text)}: trec_eval's utility takes four numbers a,b,c,d "
                f"(e.g. utility.2,-1,0,0), got {shorten(v, 40)}"
            )
    a, b, c, d = (float(v) for v in coefs)
    label = "utility_" + m.group("coefs")
    return make_metric(get_spec("Utility"), {"a": a, "b": b, "c": c, "d": d}, None, label)


def takes_precedence(text: str) -> bool:
    """Whether ``text`` is read as trec_eval's measure before ir-measures syntax: the exact
    trec_eval names whose parameters are not printed (``rbp`` is RBP(p=0.9), trec_eval's
    default, where ir-measures' ``RBP`` defaults to p=0.8). Other names (``recall``, ``P``)
    keep their ir-measures meaning."""
    family = FAMILIES.get(text)
    return family is not None and family.number == "param" and not family.printed


def _names(takes: Callable[[TrecName], bool]) -> str:
    """The trec_eval names whose :class:`TrecName` ``takes`` says, as a regular expression's choice."""
    return "|".join(re.escape(name) for name, trec in FAMILIES.items() if takes(trec))


_GAIN_TABLE = re.compile(
    rf"^(?P<family>{_names(lambda trec: trec.gain_table)})[._](?P<table>-?\d+=[^,]+(?:,-?\d+=[^,]+)*)$", re.ASCII
)


def _ndcg_gains(text: str) -> Metric | None:
    """``ndcg.1=3,2=9`` (``-m`` form) or ``ndcg_1=3,2=9`` (printed form): a gain table for
    nDCG (and likewise for ndcg_rel, Rndcg and G)."""
    m = _GAIN_TABLE.match(text)
    if m is None:
        return None
    family = m.group("family")
    label = f"{family}_{m.group('table')}"
    return make_metric(get_spec(FAMILIES[family].spec), {"gains": m.group("table")}, None, label)


_ELEVEN = re.compile(r"^11pt_avg[._](?P<levels>\d*\.?\d+(?:,\d*\.?\d+)*)$", re.ASCII)


def _level(text: str) -> str:
    """A recall level written as Python writes it (``.25`` -> ``0.25``), kept as written when
    that would take an exponent (``.00001``) or is no finite number (the check reports it)."""
    shown = repr(float(text))
    return text if "e" in shown or "n" in shown else shown


def _eleven_levels(text: str) -> Metric | None:
    """``11pt_avg..25,.5,.75`` (``-m`` form) or ``11pt_avg_.25,.5,.75`` (printed form)."""
    m = _ELEVEN.match(text)
    if m is None:
        return None
    levels = ",".join(_level(x) for x in m.group("levels").split(","))
    return make_metric(get_spec("IPrec11"), {"levels": levels}, None, "11pt_avg_" + m.group("levels"))


_RBP_PAIR = re.compile(rf"^(?P<family>{_names(lambda trec: trec.pair)})[._]p=(?P<p>[^,]*)$", re.ASCII)


def _rbp_pair(text: str) -> Metric | None:
    """``rbp.p=0.95`` (trec_eval 10's ``-m`` form: name=value pairs) or ``rbp_p=0.95`` (as it
    prints it), and likewise for ``rbp_resid``."""
    m = _RBP_PAIR.match(text)
    if m is None:
        return None
    family, value = m.group("family"), m.group("p")
    if not _NUMBER.fullmatch(value):
        raise InvalidParameterError(
            f"metric {shorten(text)}: trec_eval's {family}.p= takes a number, got {shorten(value, 40)}"
        )
    spec = get_spec(FAMILIES[family].spec)
    return make_metric(spec, {"p": float(value)}, None, f"{family}_p={value}")


def _items(tail: str) -> list[str]:
    """The values of a ``-m name.v1,v2`` list (empty ones skipped, as trec_eval's atol reads)."""
    return [v for v in tail.split(",") if v != ""]


def parse_trec(text: str) -> list[Metric]:
    """Parse a trec_eval measure name (printed or ``-m`` form) into metrics.

    Raises :class:`UnknownMetricError` when ``text`` is no trec_eval name rankwise has (ranx's
    ``rbp.95`` is none), :class:`~rankwise.errors.InvalidParameterError` when it is one with a
    value that is not a number or is out of range.
    """
    check_length(text)
    special = _utility(text) or _ndcg_gains(text) or _eleven_levels(text) or _rbp_pair(text)
    if special is not None:
        return [special]
    if text == "official":
        return [m for name in OFFICIAL for m in expand_family(name)]
    if text == "all_trec":
        return [m for name in ALL_TREC for m in expand_family(name)]
    if text in FAMILIES:
        return expand_family(text)
    if is_ranx_rbp(text):  # rbp.95: ranx's p = 0.95 (trec_eval itself refuses a bare value)
        raise UnknownMetricError(f"{shorten(text)} is ranx's name, not trec_eval's")
    if "." in text:
        head, _, tail = text.partition(".")
        if head in FAMILIES and tail:
            family = FAMILIES[head]
            items = _items(tail)
            if family.number != "none" and items:
                return expand_family(head, tuple(_number(head, family, v, text) for v in items))
            if family.number == "none" and items and all(_NUMBER.fullmatch(v) for v in items):
                return expand_family(head)  # as trec_eval: a measure without parameters ignores them
    m = _PRINTED.match(text)
    if m and m.group("family") in FAMILIES and FAMILIES[m.group("family")].number != "none":
        family = FAMILIES[m.group("family")]
        value = _number(m.group("family"), family, m.group("value"), text)
        metric = _metric(m.group("family"), family, value)
        return [replace(metric, source=text)]
    raise UnknownMetricError(f"{shorten(text)} is not a trec_eval measure name rankwise knows")


def trec_names_of(spec_name: str) -> list[str]:
    """trec_eval's measure names that map to a rankwise spec (for listings)."""
    return [name for name, family in FAMILIES.items() if family.spec == spec_name]


def _reads(text: str) -> bool:
    """Whether :func:`parse_trec` reads ``text`` (ranx's ``rbp.95`` it does not)."""
    try:
        parse_trec(text)
    except UnknownMetricError:
        return False
    return True


@dataclass(frozen=True)
class TrecEvalRequest:
    """What ``trec_eval -m ...`` computes and prints: its measures in the order it prints them
    (``num_q`` among them when it prints that line), and whether it prints the ``runid`` line."""

    metrics: list[str | Metric]
    runid: bool


def trec_eval_request(texts: list[str]) -> TrecEvalRequest:
    """The measures of ``-m`` options ``texts``, as trec_eval reads them (``--format trec``).

    When every text is one of trec_eval's ``-m`` forms (a set name as ``official``, a measure
    as ``P``, a measure with values as ``P.20,5``, or ``runid``), they are read as trec_eval
    reads them: each measure once, in trec_eval's order (:data:`ALL_TREC`), whatever the order
    of the options; a measure's values as given by its ``-m name.values`` option, in place of
    its default values (``-m all_trec -m relstring.20`` is ``relstring_20`` once), cutoffs in
    increasing order (``P.20,5`` is ``P_5`` then ``P_20``); ``runid`` printed only when asked
    for (by itself or by a set). Two different value lists for one measure (trec_eval would
    keep the first and ignore the other) are refused. Otherwise (a name of another scheme, as
    ``nDCG@10``, among them) the texts stay as given, ``runid`` left out; it is printed when
    asked for as above.

    >>> request = trec_eval_request(["P.20,5", "map"])
    >>> [m.label for m in request.metrics if isinstance(m, Metric)], request.runid
    (['map', 'P_5', 'P_20'], False)
    """
    marked: set[str] = set()
    values: dict[str, str] = {}
    runid = False
    foreign = False
    for text in texts:
        head, dot, tail = text.partition(".")
        if text in NICKNAMES:
            marked.update(NICKNAMES[text])
            runid = True
        elif text == "runid":
            runid = True
        elif head in FAMILIES and (not dot or _reads(text)):
            marked.add(head)
            if dot and values.setdefault(head, text) != text:
                raise InvalidParameterError(
                    f"-m {values[head]} and -m {text}: trec_eval reads one list of values a measure, "
                    f"the first, and would ignore -m {text}; give them in one: -m {values[head]},{tail}"
                )
        else:
            foreign = True
    if foreign:  # another scheme's name: the texts as given
        return TrecEvalRequest([t for t in texts if t != "runid"], runid)
    metrics: list[str | Metric] = []
    for name in (n for n in ALL_TREC if n in marked):
        family = FAMILIES[name]
        text = values.get(name, "")
        items = _items(text.partition(".")[2])
        if not text:
            metrics.extend(expand_family(name))
        elif family.ascending and items:
            metrics.extend(expand_family(name, tuple(sorted(_number(name, family, v, text) for v in items))))
        else:
            metrics.extend(parse_trec(text))
    if not metrics:
        raise InvalidParameterError("-m runid asks for no measure: add one to compute, e.g. -m runid -m map")
    return TrecEvalRequest(metrics, runid)
