"""trec_eval's own expected outputs (../shared/conformance/trec_eval) reproduced to its 4
printed decimals, on every engine. Measure names are read by rankwise's own parser of
trec_eval's names; the measures rankwise does not compute yet are listed in NOT_YET."""

from __future__ import annotations

from pathlib import Path

import pytest

import rankwise as rw
from tests.conftest import Evaluate

NOT_YET: set[str] = set()  # trec_eval measures rankwise does not compute (none left)


_RESID = (
    "rbp_resid: Moffat & Zobel's residual includes p^d for the unseen tail; trec_eval prints 0 "
    "when no retrieved document is unjudged, so a query absent from the run (302 under -c) gets "
    "0 from trec_eval and 1 (= p^0: nothing is known) from rankwise"
)
_RBP = (
    "rbp with graded qrels: trec_eval 10's te_calc_rbp normalises gains with min/max variables it "
    "never initialises (the result depends on the compiler); rankwise computes Moffat & Zobel's "
    "binary RBP with relevance >= rel (here -l2)"
)
# (file, measure, query) -> (trec_eval's printed value, rankwise's value, reason)
KNOWN_DIFFERENCES: dict[tuple[str, str, str], tuple[float, float, str]] = {
    ("out.test.aqc", "rbp_resid", "302"): (0.0, 1.0, _RESID),
    ("out.test.aqc", "rbp_resid", "all"): (0.0220, 0.35529748688330126, _RESID),
    ("out.test.aqcM", "rbp_resid", "302"): (0.0, 1.0, _RESID),
    ("out.test.aqcM", "rbp_resid", "all"): (0.0220, 0.3553047549950627, _RESID),
    ("out.test.aql", "rbp", "301"): (0.0465, 9.95882012880246e-16, _RBP),
    ("out.test.aql", "rbp", "all"): (0.2769, 0.2613423995976549, _RBP),
}


def read_expected(path: Path) -> tuple[dict[tuple[str, str], float | str], set[str]]:
    """((measure, query) -> value) for the measures rankwise parses, and the others' names
    (relstring's values are text, printed in quotes)."""
    values: dict[tuple[str, str], float | str] = {}
    skipped: set[str] = set()
    for line in path.read_text().splitlines():
        measure, query, value = (f.strip() for f in line.split("\t"))
        if measure == "runid":  # the run's tag, not a measure (checked by the writer test)
            continue
        try:
            rw.parse_metrics([measure])
        except rw.RankwiseError:
            skipped.add(measure)
            continue
        values[(measure, query)] = value[1:-1] if value.startswith("'") else float(value)
    return values, skipped


CASES = {
    "out.test": ("qrels.test", "results.test", {}),
    "out.test.a": ("qrels.test", "results.test", {}),
    "out.test.aq": ("qrels.test", "results.test", {}),
    "out.test.aqc": ("qrels.test", "results.trunc", {"missing": "zero"}),
    "out.test.aqcM": ("qrels.test", "results.trunc", {"missing": "zero", "max_rank": 100}),
    "out.test.aql": ("qrels.rel_level", "results.test", {"rel": 2}),
    "out.test.meas_params": ("qrels.test", "results.test", {}),
}


@pytest.mark.parametrize("expected_file", sorted(CASES))
def test_trec_eval_outputs(evaluate: Evaluate, conformance: Path, expected_file: str) -> None:
    qrels_file, run_file, conventions = CASES[expected_file]
    expected, skipped = read_expected(conformance / expected_file)
    assert skipped <= NOT_YET, skipped - NOT_YET
    metrics = list(dict.fromkeys(name for name, _ in expected))
    per_query = evaluate(conformance / qrels_file, conformance / run_file, metrics, **conventions)
    assert per_query.columns == ["query_id", *metrics]
    summary = rw.summarize(per_query).row(0, named=True)
    rows = {row["query_id"]: row for row in per_query.iter_rows(named=True)}
    for (metric, query), value in expected.items():
        actual = summary[metric] if query == "all" else rows[query][metric]
        if isinstance(value, str):
            assert actual == value, (expected_file, metric, query, actual, value)
            continue
        known = KNOWN_DIFFERENCES.get((expected_file, metric, query))
        if known is not None:
            trec_value, rankwise_value, _reason = known
            assert value == trec_value and isinstance(actual, float)
            assert abs(actual - rankwise_value) <= 1e-9, (expected_file, metric, query, actual)
            continue
        assert abs(actual - value) <= 5e-5 + 1e-12, (expected_file, metric, query, actual, value)
    assert len(expected) >= 17


def test_every_query_of_aqc_is_output(conformance: Path) -> None:
    """-c: query 302 is missing from results.trunc and still appears, scored 0, NumRel kept."""
    out = rw.evaluate(conformance / "qrels.test", conformance / "results.trunc", ["AP", "NumRel"], missing="zero")
    assert out["query_id"].to_list() == ["301", "302", "303"]
    assert out.filter(query_id="302").row(0) == ("302", 0.0, 77.0)
    ignored = rw.evaluate(conformance / "qrels.test", conformance / "results.trunc", ["AP"])
    assert ignored["query_id"].to_list() == ["301", "303"]


@pytest.mark.parametrize(
    ("expected_file", "run_file", "conventions"),
    [
        ("out.test.aq", "results.test", {}),
        ("out.test.aqc", "results.trunc", {"missing": "zero"}),
        ("out.test.aqcM", "results.trunc", {"missing": "zero", "max_rank": 100}),
    ],
)
def test_all_trec_reproduces_trec_eval_q(
    conformance: Path, expected_file: str, run_file: str, conventions: dict[str, object]
) -> None:
    """`-m all_trec -q` text line for line: every measure, in trec_eval's order, its per-query
    lines (relstring's included) and `all` lines; only the KNOWN_DIFFERENCES lines differ."""
    from rankwise.cli.trec_writer import to_trec
    from rankwise.inputs.read import trec_runid

    per_query = rw.evaluate(conformance / "qrels.test", conformance / run_file, ["all_trec"], **conventions)  # type: ignore[arg-type]
    text = to_trec(per_query, runid=trec_runid(conformance / run_file))

    def key(line: str) -> tuple[str, str, str]:
        measure, query, _ = (f.strip() for f in line.split("\t"))
        return (expected_file, measure, query)

    expected = (conformance / expected_file).read_text().splitlines()
    assert len(text.splitlines()) == len(expected)
    for got, want in zip(text.splitlines(), expected, strict=True):
        if key(want) in KNOWN_DIFFERENCES:
            assert key(got) == key(want)
            continue
        assert got == want
