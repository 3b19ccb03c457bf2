"""The metric-string parser: every documented form, case-insensitivity, round-tripping repr."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import rankwise as rw
from rankwise.metrics.families.shared import LABEL_RULES
from rankwise.metrics.registry import SPECS
from rankwise.metrics.spec import MetricSpec, Param


@pytest.mark.parametrize(
    ("text", "name", "params", "cutoff"),
    [
        ("nDCG@10", "nDCG", {}, 10),
        ("nDCG(gain='exponential')@10", "nDCG", {"gain": "exponential"}, 10),
        ("nDCG(discount='jarvelin', base=2)", "nDCG", {"discount": "jarvelin", "base": 2}, None),
        ("nDCG(ideal='run')@5", "nDCG", {"ideal": "run"}, 5),
        ("P(rel=2)@5", "P", {"rel": 2}, 5),
        ("AP", "AP", {}, None),
        ("AP@100", "AP", {}, 100),
        ("RR", "RR", {}, None),
        ("RR@10", "RR", {}, 10),
        ("R@100", "R", {}, 100),
        ("Rprec", "Rprec", {}, None),
        ("Success@5", "Success", {}, 5),
        ("CG@10", "CG", {}, 10),
        ("DCG@10", "DCG", {}, 10),
        ("IDCG@10", "IDCG", {}, 10),
        ("GMAP", "GMAP", {}, None),
        ("NumRet", "NumRet", {}, None),
        ("NumRel", "NumRel", {}, None),
        ("NumRelRet", "NumRelRet", {}, None),
        ("NumQ", "NumQ", {}, None),
        ("ndcg@10", "nDCG", {}, 10),
        ("NDCG_CUT@10", "nDCG", {}, 10),
        ("map", "AP", {}, None),
        ("mrr", "RR", {}, None),
        ("recip_rank", "RR", {}, None),
        ("hit_rate@5", "Success", {}, 5),
        ("AP(judged_only=True)", "AP", {"judged_only": True}, None),
        ("nDCG(GAIN='Exponential')@3", None, None, None),  # parameter names are exact
        (" nDCG @ 10 ", "nDCG", {}, 10),
        ("GMAP(form='shifted', eps=0.01)", "GMAP", {"form": "shifted", "eps": 0.01}, None),
        ("P(rel=-1)@3", "P", {"rel": -1}, 3),
    ],
)
def test_forms(text: str, name: str | None, params: dict[str, object] | None, cutoff: int | None) -> None:
    if name is None:
        with pytest.raises(rw.InvalidParameterError):
            rw.parse_metric(text)
        return
    m = rw.parse_metric(text)
    assert (m.name, dict(m.params), m.cutoff) == (name, params, cutoff)
    assert m.label == text  # the column is named by the string the user passed
    again = rw.parse_metric(repr(m))
    assert again == m and repr(again) == repr(m)


def test_choice_values_are_case_insensitive() -> None:
    assert rw.parse_metric("nDCG(gain='Exponential')").params == (("gain", "exponential"),)


def test_unknown_metric_lists_valid_names() -> None:
    with pytest.raises(rw.UnknownMetricError) as info:
        rw.parse_metric("precission@5")
    text = str(info.value)
    assert "Closest: precision" in text
    for spec in SPECS:
        assert spec.name in text


def _valid(p: Param, value: float) -> bool:
    low = p.minimum is None or (value > p.minimum if p.exclusive_min else value >= p.minimum)
    high = p.maximum is None or (value < p.maximum if p.exclusive_max else value <= p.maximum)
    return low and high


REFUSING = {("empty", "error"), *(("labels", rule) for rule in LABEL_RULES)}
"""Choices that make an evaluation fail on some data (a query with nothing relevant; a label a
library refuses): tested on their own (tests/metrics/test_empty.py, tests/metrics/test_labels.py),
never drawn for random data."""


def evaluable_choices(p: Param) -> list[str]:
    """A parameter's choices (a numeric parameter's words) that evaluate any data."""
    return [c for c in p.choices or () if (p.name, c) not in REFUSING]


def _param_values(spec: MetricSpec) -> st.SearchStrategy[dict[str, object]]:
    """Random valid values for each parameter of a spec, from its Param table."""
    options: dict[str, st.SearchStrategy[object]] = {}
    for p in spec.params:
        if p.choices and p.kind is int:  # numbers, or words (empty: 0, 1, 'skip')
            numbers: list[object] = [v for v in (-2, 0, 1, 3, 1000) if _valid(p, v)]
            options[p.name] = st.sampled_from(numbers + list(evaluable_choices(p)))
        elif p.choices:
            options[p.name] = st.sampled_from(evaluable_choices(p))
        elif p.kind is bool:
            options[p.name] = st.booleans()
        elif p.kind is str:  # free-form strings with a pattern: gain tables
            options[p.name] = st.sampled_from(
                ["", "0.25,0.5,0.75", "0.5"] if p.name == "levels" else ["", "1=3,2=9", "1=0.5,2=0.8,3=0.3", "0=1,3=-1"]
            )
        elif p.kind is int:
            options[p.name] = st.sampled_from([v for v in (-2, 0, 1, 3, 1000) if _valid(p, v)])
        else:
            values = [v for v in (-1, 0, 0.2, 0.5, 1, 1.5, 2, 2.5, 3, 10) if _valid(p, v)]
            if p.name == "recall":
                values = [v for v in values if v <= 1]
            options[p.name] = st.sampled_from(values)
    return st.fixed_dictionaries({}, optional=options)


PER_QUERY_SPECS = [s for s in SPECS if s.aggregate != "set"]
"""The specs with per-query values (not the set-level ones: one value per run)."""
SET_LEVEL_SPECS = [s for s in SPECS if s.aggregate == "set"]


@st.composite
def metrics(draw: st.DrawFn, level: str = "query") -> rw.Metric:
    """A registered metric with random parameters and cutoff: one with per-query values
    (``level='query'``), a set-level one (``'set'``) or any (``'any'``)."""
    spec = draw(st.sampled_from({"query": PER_QUERY_SPECS, "set": SET_LEVEL_SPECS, "any": SPECS}[level]))
    params = draw(_param_values(spec))
    cutoff = None
    needs = any(params.get(p.name) in p.needs_cutoff for p in spec.params)  # e.g. nDCG(ideal='k') needs @k
    if spec.cutoff == "required" or needs or (spec.cutoff == "optional" and draw(st.booleans())):
        cutoff = draw(st.integers(1, 1000))
    return rw.Metric(spec, tuple((p.name, params[p.name]) for p in spec.params if p.name in params), cutoff)  # type: ignore[misc]


@given(metrics("any"))
def test_repr_round_trips(metric: rw.Metric) -> None:
    parsed = rw.parse_metric(repr(metric))
    assert parsed == metric
    assert repr(parsed) == repr(metric)
