"""ranx's metric names, parsed into rankwise metrics.

ranx writes ``name@k`` with lower-case names (``ndcg@10``, ``map@100``, ``mrr``,
``precision@10``, ``recall@100``, ``hit_rate@5``, ``hits@5``, ``r-precision``, ``bpref``,
``f1@10``, ``dcg@10``), ``ndcg_burges``/``dcg_burges`` for exponential gain, and a ``-lN``
suffix for the relevance level. Without ``@k``, ranx measures the whole retrieved list
(``precision`` is set precision, ``f1`` the set's F1). RBP's persistence follows a dot, as the
decimals of p (ranx reads ``rbp.95`` as p = float("0.95")), and ranx's RBP is graded (each
relevant document weighs its relevance):

>>> parse_ranx("rbp.95")
RBP(p=0.95, gain='graded')
>>> parse_ranx("precision")  # ranx: the whole retrieved list
SetP
>>> parse_ranx("ndcg_burges@10")
nDCG(gain='exponential')@10
>>> parse_ranx("precision@5-l2")
P(rel=2)@5
>>> parse_ranx("r-precision").name
'Rprec'
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rankwise.errors import InvalidParameterError, UnknownMetricError
from rankwise.metrics.families import FAMILIES
from rankwise.metrics.metric import Metric, check_length, make_metric
from rankwise.metrics.registry import get_spec
from rankwise.metrics.spec import ParamValue, shorten

_RANX = re.compile(r"^(?P<name>[a-z][a-z0-9_\-]*?)(?:@(?P<k>\d+))?(?:-l(?P<level>\d+))?$", re.ASCII)
_RBP = re.compile(r"^rbp\.(?P<decimals>\d+)(?:@(?P<k>\d+))?(?:-l(?P<level>\d+))?$", re.ASCII)
"""ranx's ``rbp.95`` (p = 0.95), with its ``-lN`` suffix; an ``@k`` is matched only to be
refused (ranx has no cutoff for RBP; rankwise's is written ``RBP(...)@k``)."""


def is_ranx_rbp(text: str) -> bool:
    """Whether ``text`` is ranx's ``rbp.NN`` (which trec_eval's parser must leave alone)."""
    return _RBP.match(text.strip()) is not None


_SPECIAL: dict[str, tuple[str, Mapping[str, ParamValue]]] = {
    name: named for family in FAMILIES for name, named in family.ranx_special.items()
}
"""ranx's names that are no name of the metric: name -> (metric, parameters) (from the families)."""
_WHOLE_LIST: dict[str, str] = {name: spec for family in FAMILIES for name, spec in family.ranx_whole_list.items()}
"""ranx's names that, without ``@k``, measure the whole retrieved list (k = its length)."""


def takes_precedence(text: str) -> bool:
    """Whether ``text`` is read as ranx's name before ir-measures syntax: ranx's whole-list
    ``precision`` and ``f1`` (lower case, no ``@k``), which ir-measures syntax would refuse for
    want of a cutoff."""
    m = _RANX.match(text.strip())
    return m is not None and m.group("k") is None and m.group("name") in _WHOLE_LIST


def parse_ranx(text: str) -> Metric:
    """Parse a ranx metric name; :class:`UnknownMetricError` if it is none."""
    check_length(text)
    rbp = _RBP.match(text.strip())
    m = rbp or _RANX.match(text.strip())
    if m is None:
        raise UnknownMetricError(f"{shorten(text)} is not a ranx metric name")
    params: dict[str, ParamValue]
    if rbp is not None:
        if rbp.group("k") is not None:
            raise InvalidParameterError(
                f"metric {shorten(text)}: ranx's rbp takes no cutoff (@k); for RBP to depth k "
                f"write RBP(p=0.{rbp.group('decimals')}, gain='graded')@{rbp.group('k')}"
            )
        # ranx weighs each relevant document by its relevance (graded RBP)
        spec, params = get_spec("RBP"), {"p": float("0." + rbp.group("decimals")), "gain": "graded"}
    else:
        name = m.group("name")
        spec_name, special = _SPECIAL.get(name, (name, {}))
        if m.group("k") is None and name in _WHOLE_LIST:
            spec_name = _WHOLE_LIST[name]
        spec, params = get_spec(spec_name), dict(special)
    if m.group("level") is not None:
        params["rel"] = int(m.group("level"))
    k = int(m.group("k")) if m.group("k") is not None else None
    return make_metric(spec, params, k, text)


RANX_NAMES: dict[str, str] = {spec: names for family in FAMILIES for spec, names in family.ranx.items()}
"""ranx's names of each rankwise spec (for listings; all accept the -lN suffix where a
relevance level applies), from the metric families."""
