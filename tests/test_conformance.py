"""trec_eval's own expected outputs (../shared/conformance/trec_eval) reproduced to its 4
printed decimals, on every engine, for the metrics rankwise implements."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import rankwise as rw
from tests.conftest import Evaluate

# trec_eval measure name -> rankwise metric string
_FIXED = {
    "num_ret": "NumRet",
    "num_rel": "NumRel",
    "num_rel_ret": "NumRelRet",
    "map": "AP",
    "gm_map": "GMAP",
    "Rprec": "Rprec",
    "recip_rank": "RR",
    "ndcg": "nDCG",
    "num_q": "NumQ",
}
_CUT = {"P": "P", "recall": "R", "ndcg_cut": "nDCG", "map_cut": "AP", "success": "Success"}


def to_rankwise(measure: str) -> str | None:
    if measure in _FIXED:
        return _FIXED[measure]
    m = re.fullmatch(r"([A-Za-z_]+?)_(\d+)", measure)
    if m and m.group(1) in _CUT:
        return f"{_CUT[m.group(1)]}@{m.group(2)}"
    return None


def read_expected(path: Path) -> dict[tuple[str, str], float]:
    out: dict[tuple[str, str], float] = {}
    for line in path.read_text().splitlines():
        measure, query, value = (f.strip() for f in line.split("\t"))
        name = to_rankwise(measure)
        if name is not None:
            out[(name, query)] = float(value)
    return out


CASES = {
    "out.test": ("qrels.test", "results.test", {}),
    "out.test.a": ("qrels.test", "results.test", {}),
    "out.test.aq": ("qrels.test", "results.test", {}),
    "out.test.aqc": ("qrels.test", "results.trunc", {"missing": "zero"}),
    "out.test.aqcM": ("qrels.test", "results.trunc", {"missing": "zero", "max_rank": 100}),
    "out.test.aql": ("qrels.rel_level", "results.test", {"rel": 2}),
}


@pytest.mark.parametrize("expected_file", sorted(CASES))
def test_trec_eval_outputs(evaluate: Evaluate, conformance: Path, expected_file: str) -> None:
    qrels_file, run_file, conventions = CASES[expected_file]
    expected = read_expected(conformance / expected_file)
    metrics = sorted({name for name, _ in expected})
    assert len(metrics) >= 15, metrics  # the official set at least
    per_query = evaluate(conformance / run_file, conformance / qrels_file, metrics, **conventions)
    summary = rw.summarize(per_query).row(0, named=True)
    got = {(m, str(q)): v for row in per_query.iter_rows(named=True) for q in [row["query_id"]] for m, v in row.items() if m != "query_id"}
    checked = 0
    for (metric, query), value in expected.items():
        actual = summary[metric] if query == "all" else got[(metric, query)]
        assert abs(actual - value) <= 5e-5 + 1e-12, (expected_file, metric, query, actual, value)
        checked += 1
    assert checked == len(expected)


def test_every_query_of_aqc_is_output(conformance: Path) -> None:
    """-c: query 302 is missing from results.trunc and still appears, scored 0, NumRel kept."""
    out = rw.evaluate(conformance / "results.trunc", conformance / "qrels.test", ["AP", "NumRel"], missing="zero")
    assert out["query_id"].to_list() == ["301", "302", "303"]
    assert out.filter(query_id="302").row(0) == ("302", 0.0, 77.0)
    ignored = rw.evaluate(conformance / "results.trunc", conformance / "qrels.test", ["AP"])
    assert ignored["query_id"].to_list() == ["301", "303"]
