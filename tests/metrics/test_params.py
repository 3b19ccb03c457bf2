"""Every number a metric string carries is checked: parameters within the bounds their formula
needs (derived from the Param declarations, so a new parameter without bounds fails here),
cutoffs within the engines' Int64, ranx's ``rbp.95`` read as ranx means it, and no string
(however long, nested or odd) escapes the parser as anything but a rankwise error."""

from __future__ import annotations

import math
import re
import time
from decimal import Decimal

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.errors import RankwiseError
from rankwise.metrics.metric import MAX_LENGTH, Metric, make_metric
from rankwise.metrics.registry import SPECS
from rankwise.metrics.spec import LIMIT, MetricSpec, Param
from rankwise.names.parse import parse_metrics
from rankwise.names.trec_eval import FAMILIES, expand_family
from tests.conftest import Evaluate
from tests.tiers import examples

# Numeric parameters with no bound by nature: (spec name or "*" for every spec, param name).
UNBOUNDED: dict[tuple[str, str], str] = {
    # relevance thresholds are only compared with relevance values (never multiplied, summed or
    # logged), so any finite number is meaningful: rel=-1 counts judged-negative documents
    ("*", "rel"): "a threshold, only compared",
}

NUMERIC = [
    pytest.param(spec, p, id=f"{spec.name}.{p.name}") for spec in SPECS for p in spec.params if p.numeric
]


def _unbounded(spec: MetricSpec, p: Param) -> bool:
    return ("*", p.name) in UNBOUNDED or (spec.name, p.name) in UNBOUNDED


def _cutoff(spec: MetricSpec) -> int | None:
    return 10 if spec.cutoff == "required" else None


def _plain(x: float) -> str:
    """A float written without an exponent, exactly (what the list patterns accept)."""
    return format(Decimal(x), "f")


def _value(p: Param, x: float) -> object:
    """A parameter value carrying the number ``x``."""
    if p.numbers == "pairs":
        return f"1={_plain(x)}"
    if p.numbers == "numbers":
        return _plain(x)
    return int(x) if p.kind is int else x


def _bound_text(bound: float) -> str:
    return ("-2**62" if bound < 0 else "2**62") if abs(bound) == LIMIT else repr(bound)


def _edges(p: Param) -> list[tuple[float, float, float, bool]]:
    """(bound, just outside, just inside, whether the bound itself is valid) per declared bound."""
    out = []
    for bound, exclusive, outward in (
        (p.minimum, p.exclusive_min, -math.inf),
        (p.maximum, p.exclusive_max, math.inf),
    ):
        if bound is None:
            continue
        inward = -outward
        if p.kind is int:
            step = 1 if outward > 0 else -1
            outside = bound + step if not exclusive else bound
            inside = bound - step if exclusive else bound
        else:
            outside = bound if exclusive else math.nextafter(bound, outward)
            inside = math.nextafter(bound, inward) if exclusive else bound
        out.append((bound, outside, inside, not exclusive))
    return out


@pytest.mark.parametrize(("spec", "p"), NUMERIC)
def test_every_numeric_parameter_is_bounded_or_unbounded_by_nature(spec: MetricSpec, p: Param) -> None:
    assert p.bounds, f"{spec.name}.{p.name}: say why its bounds are what they are (Param.bounds)"
    if _unbounded(spec, p):
        assert p.minimum is None and p.maximum is None, f"{spec.name}.{p.name} is listed as unbounded"
        return
    assert p.minimum is not None and p.maximum is not None, (
        f"{spec.name}.{p.name} declares no {'lower' if p.minimum is None else 'upper'} bound: give "
        "it the bounds its formula needs (LIMIT when it has no natural ceiling), or list it in "
        "UNBOUNDED with the reason"
    )
    assert -LIMIT <= p.minimum < p.maximum <= LIMIT
    if p.kind is not str:
        default = p.default
        # a number, or one of the words a numeric parameter takes besides (AUC's empty='skip')
        assert isinstance(default, (int, float)) or default in (p.choices or ())
        make_metric(spec, {p.name: default}, _cutoff(spec))  # the default lies within


@pytest.mark.parametrize(("spec", "p"), NUMERIC)
def test_bounds_are_enforced(spec: MetricSpec, p: Param) -> None:
    for bound, outside, inside, bound_valid in _edges(p):
        text = f"{spec.name}({p.name}=...)"
        with pytest.raises(rw.InvalidParameterError) as info:
            make_metric(spec, {p.name: _value(p, outside)}, _cutoff(spec), text)
        message = str(info.value)
        assert repr(p.name) in message
        if not (p.numbers == "numbers" and outside < 0):  # '-1e-300' is refused by the pattern
            assert _bound_text(bound) in message and "valid:" in message, message
        make_metric(spec, {p.name: _value(p, inside)}, _cutoff(spec), text)
        if bound_valid:
            make_metric(spec, {p.name: _value(p, bound)}, _cutoff(spec), text)


@pytest.mark.parametrize(("spec", "p"), NUMERIC)
def test_numbers_must_be_finite_and_representable(spec: MetricSpec, p: Param) -> None:
    if p.numbers is not None:
        bad: list[object] = [_value(p, 1.0).replace("1", "9" * 400, 1 if p.numbers == "numbers" else 2)]  # type: ignore[attr-defined]
    elif p.kind is float:
        bad = [math.nan, math.inf, -math.inf, 10**400, -(10**400)]
    else:
        bad = [LIMIT + 1, -(LIMIT + 1), 10**30, 10**400, 1.5, True]
    for value in bad:
        with pytest.raises(rw.InvalidParameterError, match=re.escape(repr(p.name))):
            make_metric(spec, {p.name: value}, _cutoff(spec))
    if _unbounded(spec, p):
        for value in (1e300, -1e300, 0, -1):
            make_metric(spec, {p.name: value}, _cutoff(spec))


@pytest.mark.parametrize("spec", [s for s in SPECS if s.cutoff != "none"], ids=lambda s: s.name)
def test_cutoffs_are_positive_and_at_most_2_62(spec: MetricSpec) -> None:
    assert rw.parse_metric(f"{spec.name}@1").cutoff == 1
    assert rw.parse_metric(f"{spec.name}@{LIMIT}").cutoff == LIMIT
    for bad, match in ((0, "positive integer"), (LIMIT + 1, r"at most 2\*\*62"), (10**30, r"at most 2\*\*62")):
        with pytest.raises(rw.InvalidParameterError, match=match):
            rw.parse_metric(f"{spec.name}@{bad}")


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_trec_eval_families_defaults_lie_within_the_bounds(name: str) -> None:
    assert expand_family(name)


def test_trec_eval_sets_parse() -> None:
    assert len(parse_metrics(["official"])) > 10
    assert len(parse_metrics(["all_trec"])) > 50


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("RBP(p=1.5)", r"'p' must be < 1.0, got 1.5 \(valid: \(0, 1\)\)"),
        ("RBP(p=1)", r"'p' must be < 1.0, got 1 "),
        ("RBP(p=0)", r"'p' must be > 0.0, got 0 "),
        ("RBP(p=-0.5)", r"'p' must be > 0.0"),
        ("RBPResid(p=2)", r"'p' must be < 1.0"),
        ("RBP(p=1e400)", r"'p' must be a finite number, got inf"),
        ("RBP(p=" + "9" * 400 + ")", r"'p' must be a finite number"),
        ("IPrec(recall=1.01)", r"'recall' must be <= 1.0"),
        ("IPrec(recall=-0.1)", r"'recall' must be >= 0.0"),
        ("IPrec11(levels='0.5,1.5')", r"'levels' \(item '1.5'\) must be <= 1.0"),
        ("nDCG(discount='jarvelin', base=1)", r"'base' must be > 1.0, got 1"),
        ("nDCG(base=0.5)", r"'base' must be > 1.0"),
        ("ERR(max_rel=0)", r"'max_rel' must be > 0.0"),
        ("ERR(max_rel=1024)", r"'max_rel' must be <= 1023.0"),
        ("GMAP(eps=0)", r"'eps' must be > 0.0"),
        ("GMAP(eps=1.5)", r"'eps' must be <= 1.0"),
        ("GMBpref(form='shifted', eps=-1)", r"'eps' must be > 0.0"),
        ("SetF(beta=-1)", r"'beta' must be >= 0.0"),
        ("RprecMult(mult=0)", r"'mult' must be > 0.0"),
        ("Utility(docs=-1)", r"'docs' must be >= 0"),
        ("Utility(docs=4611686018427387905)", r"'docs' must be <= 2\*\*62, got 4611686018427387905 \(valid: \[0, 2\*\*62\]\)"),
        ("Utility(a=1e300)", r"'a' must be <= 2\*\*62"),
        ("Utility(b=-1e400)", r"'b' must be a finite number, got -inf"),
        ("nDCG(gains='1=" + "9" * 30 + "')", r"'gains' \(the gain of level '1'\) must be <= 2\*\*62"),
        ("nDCG(gains='1=" + "9" * 400 + "')", r"'gains' \(the gain of level '1'\) must be a finite number"),
        ("nDCG(gains='" + "9" * 400 + "=1')", r"'gains' \(level '9+.*\) must be a finite number"),
        ("nDCG@" + "9" * 30, r"cutoff k must be at most 2\*\*62"),
        ("nDCG@1e400", r"cutoff k must be a positive integer, got inf"),
        ("P.nan", r"trec_eval's P takes integer cutoffs"),
        ("P.inf", r"trec_eval's P takes integer cutoffs"),
        ("P.1e400", r"trec_eval's P takes integer cutoffs"),
        ("P.-5", r"cutoff k must be a positive integer, got -5"),
        ("P_" + "9" * 30, r"cutoff k must be at most 2\*\*62 \(the engines' Int64 range\), got 9{30}$"),
        ("P.5," + "9" * 30, r"cutoff k must be at most 2\*\*62"),
        ("ndcg_cut.1e400", r"trec_eval's ndcg_cut takes integer cutoffs"),
        ("iprec_at_recall.5", r"'recall' must be <= 1.0"),
        ("iprec_at_recall.nan", r"trec_eval's iprec_at_recall takes numbers"),
        ("Rprec_mult.1e400", r"'mult' must be a finite number"),
        ("Rprec_mult.-1", r"'mult' must be > 0.0"),
        ("set_F.-1", r"'beta' must be >= 0.0"),
        ("utility.nan,1,1,1", r"utility takes four numbers"),
        ("utility.1e400,1,1,1", r"'a' must be a finite number"),
        ("11pt_avg.5", r"'levels' \(item '5.0'\) must be <= 1.0"),
        ("11pt_avg." + "9" * 400, r"'levels' \(item '9+.*\) must be a finite number"),
        ("rbp.1.5", r"'p' must be < 1.0"),
        ("rbp.p=1.5", r"'p' must be < 1.0"),
        ("rbp.p=nan", r"rbp.p= takes a number"),
        ("rbp_resid.2", r"'p' must be < 1.0"),
        ("rbp.0", r"'p' must be > 0.0"),
        ("rbp.95@10", r"ranx's rbp takes no cutoff .*RBP\(p=0.95, gain='graded'\)@10"),
    ],
)
def test_out_of_range_values_are_named(text: str, match: str) -> None:
    with pytest.raises(rw.InvalidParameterError, match=match) as info:
        parse_metrics([text])
    assert len(str(info.value)) < 300


def test_a_metric_built_by_hand_is_checked_too() -> None:
    spec = rw.parse_metric("RBP").spec
    with pytest.raises(rw.InvalidParameterError, match=r"'p' must be < 1.0"):
        parse_metrics([Metric(spec, (("p", 1.5),))])
    with pytest.raises(rw.InvalidParameterError, match=r"at most 2\*\*62"):
        parse_metrics([Metric(rw.parse_metric("P@1").spec, (), 10**30)])


@pytest.mark.slow  # about 35 s on DuckDB
def test_the_edges_compute_finite_numbers(engine: str, evaluate: Evaluate) -> None:
    """Every value at the edge of its range runs through every engine to a finite number."""
    run = pl.DataFrame({"query_id": ["q", "q", "q", "r"], "doc_id": ["a", "b", "c", "a"], "score": [3.0, 2.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q", "q", "r"], "doc_id": ["a", "c", "b"], "relevance": [1, 2, 1]})
    metrics = []
    for spec in SPECS:
        k = LIMIT if spec.cutoff != "none" else None
        metrics.append(make_metric(spec, {}, k, f"{spec.name}@{k}"))
        for p in spec.params:
            for i, (_, _, inside, _) in enumerate(_edges(p)):
                metrics.append(make_metric(spec, {p.name: _value(p, inside)}, k, f"{spec.name}.{p.name}.{i}"))
    # the training interactions and the item features, which the beyond-accuracy families read
    # (a with 98 users, b and c with 1 of the 100 pairs: popularity parity's short head and long tail
    # are both non-empty from a head of almost 0 to 0.99, and q has not trained its relevant a)
    train = pl.DataFrame({
        "query_id": ["q", "t", *(f"s{i}" for i in range(98))], "doc_id": ["b", "c", *(["a"] * 98)],
    })
    features = {"a": [1.0, 0.0], "b": [1.0, 1.0], "c": [0.0, 2.0]}
    base_run = {"q": {"c": 1.0, "a": 0.5}}  # and the base run
    categories = {"a": ["x", "y"], "b": "x", "c": []}  # and the item categories
    groups = {"a": "g1", "b": {"g1": 0.5, "g2": 0.5}}  # and the document groups (c unknown)
    per_query = [m for m in metrics if m.spec.aggregate != "set"]
    out = evaluate(qrels, run, per_query, train=train, features=features, base_run=base_run, categories=categories,
                   catalog=["a", "b", "c", "d"], groups=groups)
    # the set-level metrics: one value per run (the catalog: the documents and one more)
    sets = [m for m in metrics if m.spec.aggregate == "set"]
    engine_of = {"polars": "polars", "polars-lazy": "polars", "duckdb": "duckdb"}
    summary = rw.evaluate(qrels, run, sets, engine=engine_of.get(engine, "polars"), per_query=False, train=train,  # type: ignore[arg-type]
                          catalog=["a", "b", "c", "d"], groups=groups)
    for m in per_query:
        for value in out[m.label].to_list():
            assert not isinstance(value, float) or math.isfinite(value), (m, value)
    for m in sets:
        value = summary[m.label].item()
        assert value is not None and math.isfinite(value), (m, value)


# -- ranx's rbp.NN ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "p", "rel", "label"),
    [
        ("rbp.95", 0.95, None, "rbp.95"),  # ranx: the digits after the dot are the decimals of p
        ("rbp.8", 0.8, None, "rbp.8"),
        ("rbp.5", 0.5, None, "rbp.5"),
        ("rbp.05", 0.05, None, "rbp.05"),
        ("rbp.99", 0.99, None, "rbp.99"),
        ("rbp.95-l2", 0.95, 2, "rbp.95-l2"),  # ranx's relevance level suffix
        ("rbp", 0.9, None, "rbp"),  # trec_eval's name: its default p = 0.9
        ("rbp.0.95", 0.95, None, "rbp"),  # rankwise's shorthand of trec_eval's rbp.p=0.95
        ("rbp.p=0.95", 0.95, None, "rbp_p=0.95"),  # trec_eval 10's name=value form
        ("rbp_p=0.95", 0.95, None, "rbp_p=0.95"),  # ... as trec_eval prints it
        ("RBP(p=0.95)", 0.95, None, "RBP(p=0.95)"),  # ir-measures
        ("RBP", 0.8, None, "RBP"),  # ir-measures' default
    ],
)
def test_rbp_names(text: str, p: float, rel: int | None, label: str) -> None:
    (m,) = parse_metrics([text])
    assert m.name == "RBP" and m.resolve()["p"] == p and m.label == label
    assert m.resolve({"rel": 1})["rel"] == (rel if rel is not None else 1)


@pytest.mark.parametrize(
    ("text", "p", "label"),
    [("rbp_resid", 0.9, "rbp_resid"), ("rbp_resid.0.5", 0.5, "rbp_resid"), ("rbp_resid.p=0.5", 0.5, "rbp_resid_p=0.5")],
)
def test_rbp_resid_names(text: str, p: float, label: str) -> None:
    (m,) = parse_metrics([text])
    assert m.name == "RBPResid" and m.resolve()["p"] == p and m.label == label


def test_ranx_rbp_computes_rbp_with_its_p(evaluate: Evaluate) -> None:
    run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "c"], "relevance": [1, 1]})
    out = evaluate(qrels, run, ["rbp.95", "RBP(p=0.95)", "rbp.8", "rbp.p=0.8"])
    assert out.columns == ["query_id", "rbp.95", "RBP(p=0.95)", "rbp.8", "rbp_p=0.8"]
    row = out.row(0, named=True)
    assert row["rbp.95"] == pytest.approx(0.05 * (1 + 0.95**2))
    assert row["rbp.95"] == row["RBP(p=0.95)"] and row["rbp.8"] == row["rbp_p=0.8"]
    assert rw.summarize(out).columns == out.columns[1:]  # the columns are recognised by name


# -- strings that must not break the parser -------------------------------------------------------

HOSTILE = [
    "x" * 100_000,
    "(" * 10_000 + "nDCG" + ")" * 10_000,
    "nDCG" + "@1" * 100_000,
    "[" * 5_000,
    "nDCG" + "@1" * 240,  # under the length limit, still nested
    "(" * 240 + "nDCG" + ")" * 240,
    "nDCG(gain=" + "-" * 480 + "1)",
    "nDCG(gain=" + "not " * 110 + "x)",
    "nDCG(" + "a=1," * 120 + ")",
    "P@" + "9" * 490,
    "P_" + "9" * 490,
    "nDCG\x00@10",
    "nDCG@10\n@10",
    "lambda: 0",
    "nDCG@1j",
    "nDCG(gain=b'x')",
    "nDCG(gain=None)",
    "nDCG(**{'gain': 1})",
    "nDCG(gain=(1, 2))",
    "nDCG@-1e400",
    "nDCG@" + "1" * 200 + ".5",
    "٣",
    "P@٣",
    "P_٣",
    "P.٣",
    "utility.١,1,1,1",
    "rbp.٩٥",
    "",
    " ",
    "@",
    "()",
    "P.",
    "P.,",
    "rbp.",
    "rbp.p=",
    "ndcg.1=",
    "11pt_avg.",
]


@pytest.mark.parametrize("text", HOSTILE, ids=lambda t: repr(t[:30]) + f"[{len(t)}]")
def test_hostile_strings_raise_short_rankwise_errors_quickly(text: str) -> None:
    start = time.perf_counter()
    try:
        parse_metrics([text])
    except (rw.MetricSyntaxError, rw.InvalidParameterError, rw.UnknownMetricError) as exc:
        # short apart from the list of valid names (which grows with the registry, not the input)
        assert len(str(exc).split(" Valid metrics: ")[0]) < 400, str(exc)[:1000]
        # the input's echo is bounded; an unknown name's message also lists every metric
        listing = len(", ".join(s.name for s in SPECS)) if isinstance(exc, rw.UnknownMetricError) else 0
        assert len(str(exc)) < 400 + listing, str(exc)[:1000]
        if len(text) > MAX_LENGTH:
            assert f"the limit is {MAX_LENGTH}" in str(exc)
    else:
        pytest.fail(f"{text[:50]!r} parsed")
    assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize(
    ("metrics", "match"),
    [
        (None, r"metrics must be a string or a list of strings.*got NoneType"),
        ([], r"no metrics requested"),
        ([None], r"each metric must be a string.*got NoneType"),
        ([1], r"each metric must be a string.*got int: 1"),
        (b"nDCG", r"metrics must be a string or a list of strings.*got bytes"),
        (1, r"metrics must be a string or a list of strings.*got int"),
        (["nDCG@10", None], r"each metric must be a string"),
    ],
)
def test_metrics_argument_of_the_wrong_kind(metrics: object, match: str) -> None:
    with pytest.raises(rw.InvalidParameterError, match=match):
        parse_metrics(metrics)  # type: ignore[arg-type]
    run = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    with pytest.raises(rw.InvalidParameterError, match=match):
        rw.evaluate(qrels, run, metrics)  # type: ignore[arg-type]


@settings(max_examples=examples(300), deadline=None)
@given(st.text())
def test_any_text_parses_or_raises_a_rankwise_error(text: str) -> None:
    try:
        parsed = parse_metrics(text)
    except RankwiseError:
        return
    assert parsed and all(isinstance(m, Metric) for m in parsed)


_PIECES = st.sampled_from(
    ["nDCG", "P", "RBP", "rbp", "ndcg_cut", "iprec_at_recall", "utility", "11pt_avg", "Rprec_mult",
     "ERR", "GMAP", "(", ")", "@", ".", "_", ",", "=", "p", "k", "gain", "'", "-", "e", "nan",
     "inf", "0", "1", "5", "9" * 20, ".95", "1e400", "-l2", "@10", "p=0.5", "rel=", "**", " "]
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_PIECES, max_size=12).map("".join))
def test_metric_like_text_parses_or_raises_a_rankwise_error(text: str) -> None:
    try:
        parsed = parse_metrics(text)
    except RankwiseError:
        return
    for m in parsed:  # whatever parses is valid: its numbers within their bounds
        assert parse_metrics([m]) == [m]
        assert m.cutoff is None or 1 <= m.cutoff <= LIMIT
