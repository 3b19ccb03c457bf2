"""ranx's metric names, parsed into rankwise metrics.

ranx writes ``name@k`` with lower-case names (``ndcg@10``, ``map@100``, ``mrr``,
``precision@10``, ``recall@100``, ``hit_rate@5``, ``r-precision``, ``bpref``, ``f1@10``),
``ndcg_burges`` for exponential gain, and a ``-lN`` suffix for the relevance level.

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
from rankwise.metric import Metric, make_metric
from rankwise.registry import get_spec
from rankwise.spec import ParamValue

_RANX = re.compile(r"^(?P<name>[a-z_\-]+)(?:@(?P<k>\d+))?(?:-l(?P<level>\d+))?$")
_SPECIAL: dict[str, tuple[str, dict[str, ParamValue]]] = {
    "ndcg_burges": ("nDCG", {"gain": "exponential"}),
    "r-precision": ("Rprec", {}),
    "r_precision": ("Rprec", {}),
}


def parse_ranx(text: str) -> Metric:
    """Parse a ranx metric name; :class:`UnknownMetricError` if it is none."""
    m = _RANX.match(text.strip())
    if m is None:
        raise UnknownMetricError(f"{text!r} is not a ranx metric name")
    name = m.group("name")
    spec_name, params = _SPECIAL.get(name, (name, {}))
    spec = get_spec(spec_name)
    params = dict(params)
    if m.group("level") is not None:
        params["rel"] = int(m.group("level"))
    k = int(m.group("k")) if m.group("k") is not None else None
    return make_metric(spec, params, k, text)


RANX_NAMES: dict[str, str] = {
    "nDCG": "ndcg@k, ndcg_burges@k", "AP": "map, map@k", "RR": "mrr, mrr@k", "P": "precision@k",
    "R": "recall, recall@k", "Success": "hit_rate@k", "Rprec": "r-precision", "Bpref": "bpref",
    "F1": "f1@k",
}
"""ranx's names of each rankwise spec (for listings; all accept the -lN suffix where a
relevance level applies)."""
