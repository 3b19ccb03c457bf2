"""Metric names in every scheme: ir-measures' syntax (:mod:`rankwise.metric`), trec_eval's
names (:mod:`rankwise.trec_names`) and ranx's (:mod:`rankwise.ranx_names`), tried in that
order by :func:`parse_metrics`, the parser every entry point uses.

>>> parse_metrics(["nDCG@10", "ndcg_cut_10", "hit_rate@5"])
[nDCG@10, nDCG@10, Success@5]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from rankwise.conventions import checked
from rankwise.errors import (
    InvalidParameterError,
    MetricSyntaxError,
    UnknownMetricError,
    without_hints,
)
from rankwise.metric import Metric, check_length, make_metric, parse_metric
from rankwise.ranx_names import parse_ranx
from rankwise.ranx_names import takes_precedence as ranx_first
from rankwise.registry import get_spec
from rankwise.spec import shorten
from rankwise.trec_names import parse_trec, takes_precedence

_NDEVAL = re.compile(r"(alpha-n?DCG|α-n?DCG|n?ERR-IA|P-IA|MAP-IA)(?:@(\d{1,19}))?", re.IGNORECASE)
"""ndeval's printed names with a hyphen (``alpha-nDCG@20``, ``ERR-IA@10``, ``MAP-IA``; its
others, ``NRBP``, ``nNRBP``, ``strec@k``, parse as they are)."""


NDEVAL_NAMES: dict[str, str] = {
    "alpha_DCG": "alpha-DCG@k", "alpha_nDCG": "alpha-nDCG@k", "ERR_IA": "ERR-IA@k", "nERR_IA": "nERR-IA@k",
    "NRBP": "NRBP", "nNRBP": "nNRBP", "AP_IA": "MAP-IA", "P_IA": "P-IA@k", "StRecall": "strec@k",
}
"""The names ndeval prints, by metric."""


IR_MEASURES_NAMES: dict[str, str] = {
    **{name: name for name in (
        "nDCG", "P", "R", "Success", "AP", "RR", "Accuracy", "Rprec", "Bpref", "IPrec", "SetP", "SetF", "SetAP",
        "SetRelP", "Judged", "RBP", "Compat", "ERR", "NumQ", "NumRet", "NumRel", "NumRelRet", "INST", "INSQ", "BPM",
        "SDCG", "NERR8", "NERR9", "NERR10", "NERR11", "alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP",
        "nNRBP", "AP_IA", "P_IA", "StRecall",
    )},
    "InfAP": "infAP",
}
"""The metrics ir-measures also has, by rankwise's name: its name for them (tests/test_cli.py
checks this against ir-measures' own registry). The others are written in its syntax too."""


def parse_ndeval(text: str) -> Metric:
    """An ndeval name, labelled as written.

    >>> parse_ndeval("alpha-nDCG@20"), parse_ndeval("MAP-IA").label
    (alpha_nDCG@20, 'MAP-IA')
    """
    found = _NDEVAL.fullmatch(text)
    if found is None:
        raise UnknownMetricError(f"not an ndeval measure name: {shorten(text)}")
    name, cutoff = found.groups()
    return make_metric(get_spec(name), {}, None if cutoff is None else int(cutoff), text)


def _parse_any(text: str | Metric) -> list[Metric]:
    """ir-measures syntax first; else trec_eval's names (which may expand to several), else
    ranx's; the error of the ir-measures parse is the one reported. A few names of trec_eval
    and ranx that ir-measures syntax would misread or refuse are read as theirs first."""
    if isinstance(text, Metric):
        return [parse_metric(text)]
    if not isinstance(text, str):
        raise InvalidParameterError(
            f"each metric must be a string (or a rankwise.Metric), got {type(text).__name__}: "
            f"{shorten(text)}"
        )
    check_length(text)
    if takes_precedence(text.strip()):
        return parse_trec(text.strip())
    if ranx_first(text):
        return [parse_ranx(text)]
    if _NDEVAL.fullmatch(text.strip()):
        return [parse_ndeval(text.strip())]
    for parse, misread in (
        (_ir_measures, (MetricSyntaxError, UnknownMetricError)),
        (_trec, (UnknownMetricError,)),
        (_ranx, (UnknownMetricError,)),
    ):
        found = _quietly(parse, text, misread)
        if found is not None:
            return found
    return _ir_measures(text)  # raises its error (with its hints)


def _quietly(
    parse: Callable[[str], list[Metric]], text: str, misread: tuple[type[Exception], ...]
) -> list[Metric] | None:
    """``parse(text)``, or None when it raises one of ``misread`` (the text is not in its
    naming scheme). Tried without the errors' hints (a fuzzy match over every name, about 1 ms
    each), which no one reads; any other error is raised as the parse raises it, hints
    included."""
    with without_hints():
        try:
            return parse(text)
        except misread:
            return None
        except Exception:  # raised again below, with its hints
            pass
    return parse(text)


def _ir_measures(text: str) -> list[Metric]:
    return [parse_metric(text)]


def _trec(text: str) -> list[Metric]:
    return parse_trec(text.strip())


def _ranx(text: str) -> list[Metric]:
    return [parse_ranx(text)]


@checked
def parse_metrics(metrics: str | Metric | Iterable[str | Metric]) -> list[Metric]:
    """Parse one metric or a list of them; duplicates (same label) are an error.

    Besides ir-measures syntax, trec_eval's names are accepted, and its ``-m`` lists expand:

    >>> [m.label for m in parse_metrics(["P.5,10", "iprec_at_recall_0.10", "11pt_avg"])]
    ['P_5', 'P_10', 'iprec_at_recall_0.10', '11pt_avg']
    """
    if isinstance(metrics, (str, Metric)):
        items: list[object] = [metrics]
    elif isinstance(metrics, (bytes, bytearray, memoryview)) or not isinstance(metrics, Iterable):
        raise InvalidParameterError(
            "metrics must be a string or a list of strings (e.g. ['nDCG@10', 'AP']), "
            f"got {type(metrics).__name__}: {shorten(metrics)}"
        )
    else:
        items = list(metrics)
    if not items:
        raise InvalidParameterError("no metrics requested: pass e.g. ['nDCG@10', 'AP']")
    parsed = [m for item in items for m in _parse_any(item)]  # type: ignore[arg-type]
    labels = [m.label for m in parsed]
    for label in labels:
        if labels.count(label) > 1:
            raise InvalidParameterError(f"metric {shorten(label)} is requested twice")
    return parsed
