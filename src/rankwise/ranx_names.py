"""ranx's metric names, parsed into rankwise metrics.

ranx writes ``name@k`` with lower-case names (``ndcg@10``, ``map@100``, ``mrr``,
``precision@10``, ``recall@100``, ``hit_rate@5``, ``r-precision``, ``bpref``, ``f1@10``),
``ndcg_burges`` for exponential gain, and a ``-lN`` suffix for the relevance level. RBP's
persistence follows a dot, as the decimals of p (ranx reads ``rbp.95`` as p = float("0.95")):

>>> parse_ranx("rbp.95")
RBP(p=0.95)
>>> parse_ranx("ndcg_burges@10")
nDCG(gain='exponential')@10
>>> parse_ranx("precision@5-l2")
P(rel=2)@5
>>> parse_ranx("r-precision").name
'Rprec'
"""

from __future__ import annotations

import re

from rankwise.errors import UnknownMetricError
from rankwise.metric import Metric, check_length, make_metric
from rankwise.registry import get_spec
from rankwise.spec import ParamValue, shorten

_RANX = re.compile(r"^(?P<name>[a-z_\-]+)(?:@(?P<k>\d+))?(?:-l(?P<level>\d+))?$", re.ASCII)
_RBP = re.compile(r"^rbp\.(?P<decimals>\d+)(?:@(?P<k>\d+))?(?:-l(?P<level>\d+))?$", re.ASCII)
"""ranx's ``rbp.95`` (p = 0.95), with its ``-lN`` suffix; an ``@k`` is matched only to be
refused with RBP's own message (ranx has no cutoff for RBP either)."""


def is_ranx_rbp(text: str) -> bool:
    """Whether ``text`` is ranx's ``rbp.NN`` (which trec_eval's parser must leave alone)."""
    return _RBP.match(text.strip()) is not None


_SPECIAL: dict[str, tuple[str, dict[str, ParamValue]]] = {
    "ndcg_burges": ("nDCG", {"gain": "exponential"}),
    "r-precision": ("Rprec", {}),
    "r_precision": ("Rprec", {}),
}


def parse_ranx(text: str) -> Metric:
    """Parse a ranx metric name; :class:`UnknownMetricError` if it is none."""
    check_length(text)
    rbp = _RBP.match(text.strip())
    m = rbp or _RANX.match(text.strip())
    if m is None:
        raise UnknownMetricError(f"{shorten(text)} is not a ranx metric name")
    params: dict[str, ParamValue]
    if rbp is not None:
        spec, params = get_spec("RBP"), {"p": float("0." + rbp.group("decimals"))}
    else:
        name = m.group("name")
        spec_name, special = _SPECIAL.get(name, (name, {}))
        spec, params = get_spec(spec_name), dict(special)
    if m.group("level") is not None:
        params["rel"] = int(m.group("level"))
    k = int(m.group("k")) if m.group("k") is not None else None
    return make_metric(spec, params, k, text)


RANX_NAMES: dict[str, str] = {
    "nDCG": "ndcg@k, ndcg_burges@k", "AP": "map, map@k", "RR": "mrr, mrr@k", "P": "precision@k",
    "R": "recall, recall@k", "Success": "hit_rate@k", "Rprec": "r-precision", "Bpref": "bpref",
    "F1": "f1@k", "RBP": "rbp.95 (p = 0.95; rbp.8: p = 0.8)",
}
"""ranx's names of each rankwise spec (for listings; all accept the -lN suffix where a
relevance level applies)."""
