"""Property tests: per-query values equal trec_eval's C code (pytrec-eval-terrier) to 1e-9 on
random runs and qrels, on every engine, for every metric trec_eval has.

pytrec-eval-terrier bundles trec_eval 9.x, whose form_res_rels.c increments
``rel_levels[rel]`` for negative judgments too: an out-of-bounds write that corrupts the
heap (later calls in the same process hang, and the query's num_ret reads 0). trec_eval 10
guards it (``if (qrels_ptr->rel >= 0)``). So the random qrels sent to it are non-negative;
negative relevance is checked against trec_eval 10's rules in test_golden.py.
"""

from __future__ import annotations

import math

import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ENGINES, run_on
from tests.strategies import Case, cases
from tests.tiers import examples

CUTS = (1, 3, 5, 20)
TREC_MEASURES = {
    "ndcg", "map", "recip_rank", "Rprec", "num_ret", "num_rel", "num_rel_ret", "gm_map",
    "ndcg_cut." + ",".join(map(str, CUTS)),
    "P." + ",".join(map(str, CUTS)),
    "recall." + ",".join(map(str, CUTS)),
    "map_cut." + ",".join(map(str, CUTS)),
    "success.1,5,10",
    "bpref", "set_P", "set_recall", "set_map", "set_F", "set_relative_P",
    "num_nonrel_judged_ret", "utility", "Rprec_mult", "binG", "infAP", "G", "ndcg_rel", "Rndcg",
    "relative_P." + ",".join(map(str, CUTS)),
}
# trec_eval names rankwise reads itself (its parser of trec_eval's names is under test too).
# Not here: iprec_at_recall and 11pt_avg, whose recall cutoffs trec_eval 9.x (bundled by
# pytrec-eval-terrier) rounds differently from trec_eval 10 (+0.9 and truncation vs lround);
# the conformance files check them against trec_eval 10.
TREC_NAMED = [
    "bpref", "set_P", "set_recall", "set_map", "set_F", "set_relative_P",
    "num_nonrel_judged_ret", "utility", "binG", "infAP", "G", "ndcg_rel", "Rndcg",
    *(f"Rprec_mult_{x:.2f}" for x in (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),
    *(f"relative_P_{k}" for k in CUTS),
]
# rankwise metric -> (trec_eval output name, transform of trec_eval's per-query value)
PAIRS: dict[str, tuple[str, object]] = {
    "nDCG": ("ndcg", None),
    "AP": ("map", None),
    "RR": ("recip_rank", None),
    "Rprec": ("Rprec", None),
    "NumRet": ("num_ret", None),
    "NumRel": ("num_rel", None),
    "NumRelRet": ("num_rel_ret", None),
    # trec_eval prints log(max(AP, 1e-5)) per query for gm_map; rankwise keeps AP per query
    "GMAP": ("gm_map", "exp"),
    **{f"nDCG@{k}": (f"ndcg_cut_{k}", None) for k in CUTS},
    **{f"P@{k}": (f"P_{k}", None) for k in CUTS},
    **{f"R@{k}": (f"recall_{k}", None) for k in CUTS},
    **{f"AP@{k}": (f"map_cut_{k}", None) for k in CUTS},
    **{f"Success@{k}": (f"success_{k}", None) for k in (1, 5, 10)},
    **{name: (name, None) for name in TREC_NAMED},
}


def trec(case: Case, rel: int, judged_only: bool) -> dict[str, dict[str, float]]:
    evaluator = pytrec_eval.RelevanceEvaluator(
        case.qrels, TREC_MEASURES, relevance_level=rel, judged_docs_only_flag=judged_only
    )
    return evaluator.evaluate(case.run)  # type: ignore[no-any-return]


def check(engine: str, case: Case, rel: int, judged_only: bool) -> None:
    expected = trec(case, rel, judged_only)
    got = run_on(engine, case.qrels_frame(), case.run_frame(), list(PAIRS), rel=rel, judged_only=judged_only)
    assert sorted(got["query_id"].to_list()) == sorted(expected), (got, expected)
    for row in got.iter_rows(named=True):
        ref = expected[row["query_id"]]
        for metric, (name, transform) in PAIRS.items():
            want = ref[name]
            value = row[metric]
            if transform == "exp":
                want, value = math.exp(want), max(value, 1e-5)
            assert abs(value - want) <= 1e-9, (metric, row["query_id"], value, want, case)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(nonnegative=True), rel=st.sampled_from([1, 2]), judged_only=st.booleans())
def test_matches_trec_eval(engine: str, case: Case, rel: int, judged_only: bool) -> None:
    check(engine, case, rel, judged_only)


@pytest.mark.parametrize("engine", ENGINES)
def test_all_scores_tied_follow_doc_id_descending(engine: str) -> None:
    docs = {d: 1.0 for d in ["a", "B", "b", "d10", "d9", "Z"]}
    case = Case({"q": docs}, {"q": {"a": 1, "Z": 2, "d9": 1}})
    check(engine, case, 1, False)
