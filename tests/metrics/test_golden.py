"""Hand-computed golden values (../shared/MISSION.md worked examples and edge cases), one test
body on every engine."""

from __future__ import annotations

import math

import polars as pl
import pytest

import rankwise as rw
from tests.conftest import Evaluate

LOG2_3 = math.log2(3)


def ranked(rels: list[int | None], qrels: dict[str, int] | None = None, query: str = "q") -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run whose i-th document (score descending) has relevance rels[i] (None = unjudged);
    qrels hold those judgments plus any extra ``qrels`` documents not retrieved."""
    n = len(rels)
    run = pl.DataFrame({"query_id": [query] * n, "doc_id": [f"d{i:03d}" for i in range(n)], "score": [float(n - i) for i in range(n)]})
    judged = [(query, f"d{i:03d}", r) for i, r in enumerate(rels) if r is not None]
    judged += [(query, d, r) for d, r in (qrels or {}).items()]
    q = pl.DataFrame(judged, schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64}, orient="row")
    return run, q


def value(evaluate: Evaluate, rels: list[int | None], metric: str, qrels: dict[str, int] | None = None, **kw: object) -> float:
    run, q = ranked(rels, qrels)
    out = evaluate(q, run, [metric], **kw)
    assert out.height == 1
    return float(out[metric][0])


@pytest.mark.parametrize(
    ("rels", "expected"),
    [([1, 0], 1.0), ([0, 1], 0.6309297535714575)],
)
def test_usual_dcg_discount_is_not_off_by_one(evaluate: Evaluate, rels: list[int], expected: float) -> None:
    assert value(evaluate, rels, "DCG") == pytest.approx(expected, abs=1e-12)


def test_jarvelin_weighs_ranks_one_and_two_the_same(evaluate: Evaluate) -> None:
    assert value(evaluate, [1, 0], "DCG(discount='jarvelin')") == 1.0
    assert value(evaluate, [0, 1], "DCG(discount='jarvelin')") == 1.0
    # base 3: ranks 1, 2 undiscounted, rank 3 divided by log_3(3) = 1, rank 9 by 2
    assert value(evaluate, [0, 0, 0, 0, 0, 0, 0, 0, 1], "DCG(discount='jarvelin', base=3)") == pytest.approx(0.5, abs=1e-12)


def test_reciprocal_discount_divides_by_the_rank(evaluate: Evaluate) -> None:
    # relevances [1, 0, 2] at ranks 1, 2, 3; the ideal [2, 1, 0] is discounted the same way
    assert value(evaluate, [1, 0, 2], "DCG(discount='reciprocal')@3") == pytest.approx(1 / 1 + 0 / 2 + 2 / 3, abs=1e-12)
    assert value(evaluate, [1, 0, 2], "IDCG(discount='reciprocal')@3") == pytest.approx(2 / 1 + 1 / 2, abs=1e-12)
    assert value(evaluate, [1, 0, 2], "nDCG(discount='reciprocal')@3") == pytest.approx((5 / 3) / (5 / 2), abs=1e-12)
    # exponential gains [1, 0, 3]: (1 + 3/3) / (3 + 1/2) = 4/7
    assert value(evaluate, [1, 0, 2], "nDCG(discount='reciprocal', gain='exponential')@3") == pytest.approx(4 / 7, abs=1e-12)
    # cut at 2: DCG 1/1, IDCG 2/1 + 1/2
    assert value(evaluate, [1, 0, 2], "nDCG(discount='reciprocal')@2") == pytest.approx(1 / (5 / 2), abs=1e-12)


def test_reciprocal_discount_averaged_over_ties(evaluate: Evaluate) -> None:
    # d0 (relevance 0) and d1 (relevance 2) tie at ranks 1 and 2, d2 (relevance 1) is third:
    # the tied pair shares the mean of 1/1 and 1/2, so DCG = 2 · 3/4 + 1/3
    run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["d0", "d1", "d2"], "score": [2.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["d0", "d1", "d2"], "relevance": [0, 2, 1]})
    out = evaluate(qrels, run, ["DCG(discount='reciprocal', ties='average')@3"])
    assert out["DCG(discount='reciprocal', ties='average')@3"][0] == pytest.approx(2 * 3 / 4 + 1 / 3, abs=1e-12)


def test_idcg_at_4(evaluate: Evaluate) -> None:
    expected = 3 + 2 / LOG2_3 + 2 / 2 + 1 / math.log2(5)
    # MISSION.md quotes 5.69253 ("rounded"); the exact value 5.6925361 truncates to it
    assert abs(expected - 5.69253) < 1e-5
    got = value(evaluate, [0], "IDCG@4", qrels={"x1": 3, "x2": 2, "x3": 2, "x4": 1})
    assert got == pytest.approx(expected, abs=1e-12)


TEN = [5, 3, 3, 3, 3, 3, 0, 0, 0, 0]


@pytest.mark.parametrize(
    ("ranking", "jarvelin", "exponential"),
    [
        ([5, 3, 3, 3, 3, 3, 0, 0, 0, 0], 1.00, 1.00),
        ([3, 3, 3, 3, 3, 0, 0, 0, 0, 5], 0.88, 0.63),
        ([5, 0, 0, 0, 0, 3, 3, 3, 3, 3], 0.73, 0.89),
    ],
)
def test_mission_ten_document_table(evaluate: Evaluate, ranking: list[int], jarvelin: float, exponential: float) -> None:
    # every one of the ten documents is judged; the ideal comes from the same ten
    j = value(evaluate, ranking, "nDCG(discount='jarvelin', base=2)")
    e = value(evaluate, ranking, "nDCG(gain='exponential')")
    assert round(j, 2) == jarvelin
    assert round(e, 2) == exponential
    # and by hand, independently of the engines
    def dcg(rels: list[int], gain: str, disc: str) -> float:
        g = (lambda r: r) if gain == "linear" else (lambda r: 2**r - 1)
        d = (lambda i: max(1.0, math.log2(i))) if disc == "jarvelin" else (lambda i: math.log2(i + 1))
        return sum(g(r) / d(i) for i, r in enumerate(rels, start=1))
    ideal = sorted(TEN, reverse=True)
    assert j == pytest.approx(dcg(ranking, "linear", "jarvelin") / dcg(ideal, "linear", "jarvelin"), abs=1e-12)
    assert e == pytest.approx(dcg(ranking, "exp", "log2") / dcg(ideal, "exp", "log2"), abs=1e-12)


def test_ideal_from_run_overstates_when_relevant_documents_are_missed(evaluate: Evaluate) -> None:
    # retrieved [1, 0]; a relevance-3 document was never retrieved
    from_qrels = value(evaluate, [1, 0], "nDCG@2", qrels={"missed": 3})
    from_run = value(evaluate, [1, 0], "nDCG(ideal='run')@2", qrels={"missed": 3})
    assert from_run == 1.0
    assert from_qrels == pytest.approx(1 / (3 + 1 / LOG2_3), abs=1e-12)
    assert value(evaluate, [0, 1], "IDCG(ideal='run')", qrels={"missed": 3}) == 1.0


@pytest.mark.parametrize(
    ("metric", "rels", "expected"),
    [
        ("P@5", [1, 0, 1], 2 / 5),  # denominator k even when fewer were retrieved
        ("P@2", [1, 0, 1], 1 / 2),
        ("R@2", [1, 0, 1, 0], 1 / 2),
        ("R", [1, 0, 1, 0], 1.0),
        ("Success@1", [0, 1], 0.0),
        ("Success@2", [0, 1], 1.0),
        ("RR", [0, 0, 2], 1 / 3),
        ("RR@2", [0, 0, 2], 0.0),
        ("RR(rel=2)", [1, 2], 0.5),
        ("AP", [1, 0, 1], (1 + 2 / 3) / 2),
        ("AP@2", [1, 0, 1], 1 / 2),  # denominator: all relevant in the qrels
        ("Rprec", [0, 1, 1, 0], 1 / 2),
        ("CG@3", [3, None, 2, 5], 5.0),
        ("CG", [3, -1, 2], 5.0),  # negative relevance gains 0, as in trec_eval's nDCG
        ("DCG(gain='exponential')@2", [2, 1], 3 + 1 / LOG2_3),
        ("nDCG@1", [0, 2], 0.0),
        ("NumRet", [1, None, 0], 3.0),
        ("NumRel", [1, None, 0, 2], 2.0),
        ("NumRelRet", [1, None, 0, 2], 2.0),
        ("NumRel(rel=2)", [1, None, 0, 2], 1.0),
        ("NumQ", [0], 1.0),
        ("P@3", [None, None, 1], 1 / 3),
        ("P(judged_only=True)@1", [None, None, 1], 1.0),
    ],
)
def test_golden_values(evaluate: Evaluate, metric: str, rels: list[int | None], expected: float) -> None:
    assert value(evaluate, rels, metric) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("metric", ["nDCG", "nDCG@10", "AP", "RR", "R@10", "Rprec", "P@3", "GMAP", "Success@3"])
def test_query_with_nothing_relevant_scores_its_empty_value(evaluate: Evaluate, metric: str) -> None:
    spec = rw.parse_metric(metric).spec
    assert value(evaluate, [0, 0, None, -1], metric) == spec.empty_value == 0.0


def test_k_past_the_list_is_the_whole_list(evaluate: Evaluate) -> None:
    assert value(evaluate, [2, 0, 1], "nDCG@1000") == value(evaluate, [2, 0, 1], "nDCG")
    assert value(evaluate, [2, 0, 1], "AP@1000") == value(evaluate, [2, 0, 1], "AP")


def test_precision_over_the_retrieved_when_fewer_than_k_were(evaluate: Evaluate) -> None:
    # [1, 0, 1] retrieved, k = 5: trec_eval divides by k, denominator='retrieved' by min(5, 3)
    assert value(evaluate, [1, 0, 1], "P@5") == pytest.approx(2 / 5, abs=1e-12)
    assert value(evaluate, [1, 0, 1], "P(denominator='retrieved')@5") == pytest.approx(2 / 3, abs=1e-12)
    # k within the list: min(2, 3) = k, the same as P@2
    assert value(evaluate, [1, 0, 1], "P(denominator='retrieved')@2") == pytest.approx(1 / 2, abs=1e-12)
    # an unjudged document was retrieved all the same: 1 / min(5, 3)
    assert value(evaluate, [1, None, 0], "P(denominator='retrieved')@5") == pytest.approx(1 / 3, abs=1e-12)
    # nothing relevant: 0
    assert value(evaluate, [0, 0, None], "P(denominator='retrieved')@5") == 0.0


def test_precision_over_the_retrieved_of_a_query_that_retrieved_nothing(evaluate: Evaluate) -> None:
    # query e is judged but not in the run: scored 0 under missing='zero', as P@5 scores it
    run, qrels = ranked([1, 0, 1])
    qrels = pl.concat([qrels, pl.DataFrame({"query_id": ["e"], "doc_id": ["x"], "relevance": [1]})])
    out = evaluate(qrels, run, ["P@5", "P(denominator='retrieved')@5"], missing="zero").sort("query_id")
    assert out["query_id"].to_list() == ["e", "q"]
    assert out["P(denominator='retrieved')@5"].to_list() == pytest.approx([0.0, 2 / 3], abs=1e-12)
    assert out["P@5"].to_list() == pytest.approx([0.0, 2 / 5], abs=1e-12)


def test_conventions_max_rank_and_rel(evaluate: Evaluate) -> None:
    assert value(evaluate, [0, 0, 1], "NumRet", max_rank=2) == 2.0
    assert value(evaluate, [0, 0, 1], "RR", max_rank=2) == 0.0
    assert value(evaluate, [1, 2], "RR", rel=2) == 0.5
    assert value(evaluate, [1, 2], "RR(rel=1)", rel=2) == 1.0  # the metric's own parameter wins


@pytest.mark.parametrize(
    ("ties", "expected_rr"),
    [("trec_eval", 1 / 2), ("doc_asc", 1.0), ("optimistic", 1.0), ("pessimistic", 1 / 2)],
)
def test_tie_policies(evaluate: Evaluate, ties: str, expected_rr: float) -> None:
    run = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    assert evaluate(qrels, run, ["RR"], ties=ties)["RR"][0] == expected_rr


def test_gmap_forms() -> None:
    per_query = pl.DataFrame({"query_id": ["a", "b", "c"], "GMAP": [0.5, 0.0, 0.2], "GMAP(form='shifted', eps=0.01)": [0.5, 0.0, 0.2]})
    s = rw.summarize(per_query).row(0, named=True)
    assert s["GMAP"] == pytest.approx(math.exp((math.log(0.5) + math.log(1e-5) + math.log(0.2)) / 3), abs=1e-15)
    assert s["GMAP(form='shifted', eps=0.01)"] == pytest.approx((0.51 * 0.01 * 0.21) ** (1 / 3) - 0.01, abs=1e-15)


def test_summarize_sums_counts_and_means_the_rest(evaluate: Evaluate) -> None:
    run, q = ranked([1, 0, 1])
    run2, q2 = ranked([0, 1], query="r")
    out = evaluate(pl.concat([q, q2]), pl.concat([run, run2]), ["NumRet", "NumQ", "P@1"])
    assert rw.summarize(out).row(0, named=True) == {"NumRet": 5.0, "NumQ": 2.0, "P@1": 0.5}


def test_negative_relevance_follows_trec_eval_10(evaluate: Evaluate) -> None:
    """trec_eval 10 (form_res_rels.c, m_ndcg.c): a negative judgment is "in the pool but
    unjudged": never relevant, gain 0 in DCG and IDCG, still retrieved, and dropped by -J."""
    rels = [-1, 2, -2, 1]
    assert value(evaluate, rels, "NumRet") == 4.0
    assert value(evaluate, rels, "NumRel") == 2.0
    assert value(evaluate, rels, "DCG") == pytest.approx(2 / LOG2_3 + 1 / math.log2(5), abs=1e-12)
    assert value(evaluate, rels, "IDCG") == pytest.approx(2 + 1 / LOG2_3, abs=1e-12)
    assert value(evaluate, rels, "NumRet(judged_only=True)") == 2.0
    assert value(evaluate, rels, "P(judged_only=True)@1") == 1.0
    assert value(evaluate, rels, "AP", judged_only=True) == 1.0


@pytest.mark.parametrize(
    ("metric", "rels", "qrels", "expected"),
    [
        # ERR (Chapelle et al. 2009): R = (2^g - 1) / 2^max; [0.75, 0, 0.25]
        ("ERR(max_rel=2)@3", [2, 0, 1], None, 0.75 + 0.25 / 3 * (1 - 0.75) * (1 - 0)),
        ("ERR(max_rel=2)@1", [2, 0, 1], None, 0.75),
        ("ERR(max_rel=1)", [5, None, -1], None, 0.5),  # grades clipped to [0, max_rel]
        # RBP (Moffat & Zobel 2008): (1 - p) Σ rel_i p^(i-1)
        ("RBP(p=0.5)", [1, 0, 1], None, 0.5 * (1 + 0.25)),
        ("RBP(p=0.5, rel=2)", [1, 2], None, 0.5 * 0.5),
        # residual: (1 - p) Σ_{unjudged} p^(i-1) + p^d
        ("RBPResid(p=0.5)", [1, None, 0], None, 0.5 * 0.5 + 0.5**3),
        # RankEff (Büttcher et al. 2007): N = 3 judged non-relevant (two retrieved, x unretrieved)
        ("RankEff", [0, 1, None, 0, 1], {"x": 0}, ((1 - 1 / 3) + (1 - 2 / 3)) / 2),
        ("RankEff", [None, 1], None, 1.0),  # N = 0: every relevant document counts fully
        # bpref (Buckley & Voorhees 2004) on the same data: min(N, R) = 2
        ("Bpref", [0, 1, None, 0, 1], {"x": 0}, ((1 - 1 / 2) + (1 - 2 / 2)) / 2),
        ("F1@2", [1, 0, 1], None, 0.5),
        ("F1@1", [1, 0, 1], None, 2 * 1 * 0.5 / 1.5),
        ("Judged@4", [1, None, 0], None, 0.75),  # beyond the list counts as judged (trec_eval unj)
        ("Unjudged@2", [1, None, 0], None, 0.5),
        ("BinG", [0, 1, 0, 1], None, (1 / LOG2_3 + 1 / 2) / 2),
        # infAP (Yilmaz & Aslam 2006): rank 5 has a = 1 relevant, n = 1 judged non-relevant and
        # u = 1 pooled-unjudged (-1) above: (1 + 3 (1 + eps) / (2 + 2 eps)) / 5 = 0.5
        ("InfAP", [1, -1, None, 0, 1], None, (1 + 0.5) / 2),
        ("SetF(beta=0.5)", [1, 0, 0, 0], {"x": 1}, 1.5 * 0.25 * 0.5 / (0.5 * 0.25 + 0.5)),
        ("Utility(a=2, b=-1)", [1, 0, 0], {"x": 1}, 2 * 1 - 1 * 2),
    ],
)
def test_golden_values_of_the_trec_eval_family_and_beyond(
    evaluate: Evaluate, metric: str, rels: list[int | None], qrels: dict[str, int] | None, expected: float
) -> None:
    assert value(evaluate, rels, metric, qrels=qrels) == pytest.approx(expected, abs=1e-12)


_I2 = 2 + 1 / LOG2_3  # IDCG of the ideal gains [2, 1]


@pytest.mark.parametrize(
    ("metric", "rels", "qrels", "expected"),
    [
        # G: Σ g_i / log2(2 + C_i − S_i) / Σ ideal gains, C_i = Σ_{j≤i} max(g*_j, 1)
        ("G", [1, 2], None, (1 / LOG2_3 + 2 / 1) / 3),
        ("G", [0, 0, 1], {"x": 1}, (1 / 2) / 2),  # C_3 = 1 + 1 + 1 beyond the ideal list
        # a table giving level 0 a gain: judged non-relevant documents gain 1, unjudged ones 0
        ("G(gains='0=1')", [None, 0, 1], None, (1 / LOG2_3 + 1 / LOG2_3) / 2),
        # ndcg_rel: nDCG at each positive-gain document, IDCG_{min(i, npos)}; a missed one counts
        # nDCG at the end of the ranking. Ideal [2, 1, 1]: IDCG_1 = 2, IDCG_3 = 2.5 + 1/log2 3
        ("ndcg_rel", [2, 0, 1], {"x": 1}, (1 + 2 * 2.5 / (2.5 + 1 / LOG2_3)) / 3),
        # Rndcg: nDCG where the ideal gain changes (ranks 1 and 2 of the ideal [2, 1]); with
        # n = npos + 1 trec_eval adds no final level ...
        ("Rndcg", [1, 0, 2], None, (1 / 2 + 1 / _I2) / 2),
        # ... with n >= npos + 2 it adds DCG_n / IDCG_npos (DCG_4 = 1 + 2 / log2 5 ... rank 3: 2 / 2)
        ("Rndcg", [1, 0, 2, 0], None, (1 / 2 + 1 / _I2 + 2 / _I2) / 3),
        # levels beyond the retrieved depth use the DCG of the whole ranking
        ("Rndcg", [1], {"x": 2}, (1 / 2 + 1 / _I2) / 2),
        ("Rndcg(rel=2)", [1, 0], None, 0.0),  # nothing relevant at -l2: 0, as trec_eval
    ],
)
def test_golden_values_of_the_ideal_prefix_measures(
    evaluate: Evaluate, metric: str, rels: list[int | None], qrels: dict[str, int] | None, expected: float
) -> None:
    assert value(evaluate, rels, metric, qrels=qrels) == pytest.approx(expected, abs=1e-12)


def test_gain_table_never_gives_unjudged_documents_a_gain(evaluate: Evaluate) -> None:
    """A table entry for level 0 gives judged non-relevant documents that gain; unjudged
    documents have no level and gain 0 (trec_eval's get_gain)."""
    assert value(evaluate, [None, 0, 1], "DCG(gains='0=1')") == pytest.approx(1 / LOG2_3 + 1 / 2, abs=1e-12)


def test_gain_table_sorts_the_ideal_by_gain(evaluate: Evaluate) -> None:
    """Gains less than 1 apart: trec_eval's comparator (int)(g1 - g2) calls them equal and
    builds its ideal in level order; rankwise sorts by gain. Levels 1, 2, 3 gain 0.5, 0.8, 0.3."""
    rels = [3, 1, 2]  # gains 0.3, 0.5, 0.8 in ranked order
    metric = "nDCG(gains='1=0.5,2=0.8,3=0.3')"
    dcg = 0.3 + 0.5 / LOG2_3 + 0.8 / 2
    idcg = 0.8 + 0.5 / LOG2_3 + 0.3 / 2
    assert value(evaluate, rels, metric) == pytest.approx(dcg / idcg, abs=1e-12)
    assert value(evaluate, rels, "IDCG(gains='1=0.5,2=0.8,3=0.3')") == pytest.approx(idcg, abs=1e-12)
    # levels not in the table gain their own value (trec_eval's rule): 2 keeps gain 2
    assert value(evaluate, [2, 1], "DCG(gains='1=5')") == pytest.approx(2 + 5 / LOG2_3, abs=1e-12)
    assert value(evaluate, [2, 1], "DCG(gains='1=5')@1") == 2.0


@pytest.mark.parametrize(
    ("metric", "expected"),
    [
        ("nDCG(rel=2)", (2 / LOG2_3) / (2 + 0)),  # relevance 1 gains nothing below rel=2
        ("ndcg@10-l2", (2 / LOG2_3) / 2),  # ranx's relevance-level suffix
        ("nDCG(dcg='exp-log2')", (3 / LOG2_3 + 1 / 2) / (3 + 1 / LOG2_3)),  # ir-measures' name
        ("nDCG", (2 / LOG2_3 + 1 / 2) / (2 + 1 / LOG2_3)),
    ],
)
def test_ndcg_relevance_floor_and_other_names(evaluate: Evaluate, metric: str, expected: float) -> None:
    assert value(evaluate, [0, 2, 1], metric) == pytest.approx(expected, abs=1e-12)
    # the rel convention (trec_eval -l) does not reach nDCG, as in trec_eval
    if metric == "nDCG":
        assert value(evaluate, [0, 2, 1], metric, rel=2) == pytest.approx(expected, abs=1e-12)


# Compat (Clarke, Vtyurina & Smucker 2021), by hand: RBO to depth D = max(n, R) of the run and
# the ideal (relevance > 0, by relevance, then in the run's order), X_d = #(run_{:d} ∩ ideal_{:d}),
# S = Σ_d p^(d−1) X_d / d; normalize=False divides S by Σ_{d≤D} p^(d−1), normalize=True by the
# ideal's own S (0 when nothing is relevant).
P95 = [0.95**i for i in range(4)]


COMPAT_GOLDEN: list[tuple[str, list[int | None], dict[str, int] | None, float]] = [
    # run d000 d001 d002 (unjudged / 0 / negative, 1, 2), ideal d002 d001: X = 0, 1, 2,
    # S = 0.5/2 + 0.25·2/3 = 5/12; Σ p^(d−1) = 1.75; the ideal's S = 1 + 0.5 + 0.25·2/3 = 5/3
    ("Compat(p=0.5)", [None, 1, 2], None, 1 / 4),
    ("Compat(p=0.5)", [0, 1, 2], None, 1 / 4),
    ("Compat(p=0.5)", [-1, 1, 2], None, 1 / 4),
    ("Compat(p=0.5, normalize=False)", [None, 1, 2], None, (5 / 12) / 1.75),
    # p = 1: S = 1/2 + 2/3, D = 3, the ideal's S = 1 + 1 + 2/3
    ("Compat(p=1)", [None, 1, 2], None, (7 / 6) / (8 / 3)),
    ("Compat(p=1, normalize=False)", [None, 1, 2], None, (7 / 6) / 3),
    # a run shorter than R: x (relevance 2) not retrieved leads the ideal: X = 0, 1, D = 2
    ("Compat(p=0.5)", [1], {"x": 2}, (0.5 / 2) / 1.5),
    ("Compat(p=0.5, normalize=False)", [1], {"x": 2}, (0.5 / 2) / 1.5),
    # the run is the ideal: 1; without normalising, the depths past R count against it
    ("Compat", [3, 2, 1], None, 1.0),
    ("Compat(normalize=False)", [3, 2, 1], None, 1.0),
    ("Compat", [2, 1, 0, None], None, 1.0),
    (
        "Compat(normalize=False)", [2, 1, 0, None], None,
        (P95[0] + P95[1] + P95[2] * 2 / 3 + P95[3] * 2 / 4) / sum(P95),
    ),
    # nothing relevant (judged 0, negative, unjudged; or not retrieved at all): 0
    ("Compat", [0, None, -1], None, 0.0),
    ("Compat(normalize=False)", [0, None, -1], None, 0.0),
    ("Compat", [0, None], {"x": 1}, 0.0),
]


@pytest.mark.parametrize(("metric", "rels", "qrels", "expected"), COMPAT_GOLDEN)
def test_golden_values_of_compat(
    evaluate: Evaluate, metric: str, rels: list[int | None], qrels: dict[str, int] | None, expected: float
) -> None:
    assert value(evaluate, rels, metric, qrels=qrels) == pytest.approx(expected, abs=1e-12)


def test_compat_places_an_unretrieved_document_as_if_scored_0(evaluate: Evaluate) -> None:
    """As ir-measures: the ideal sorts by relevance, then by the run's score, 0 for a document
    the run does not hold; so a retrieved document of negative score falls behind an unretrieved
    one of the same relevance. Run [a], qrels a: 1, b: 1 (p = 0.5): with a scored +1 the ideal is
    a b (X = 1, 1: S = 1.25 of the ideal's 1.5); scored −1 it is b a (X = 0, 1: S = 0.25)."""
    qrels = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [1, 1]})
    for score, expected in ((1.0, 1.25 / 1.5), (-1.0, 0.25 / 1.5)):
        run = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [score]})
        got = evaluate(qrels, run, ["Compat(p=0.5)"])
        assert got["Compat(p=0.5)"][0] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("ties", rw.conventions.TIE_POLICIES)
def test_compat_ideal_follows_the_runs_order_among_ties(evaluate: Evaluate, ties: str) -> None:
    """Equal relevance and equal score: the ideal takes the run's order (whatever the tie
    policy), so a run holding exactly the relevant documents in relevance order scores 1."""
    run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [1.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "relevance": [2, 2, 2]})
    got = evaluate(qrels, run, ["Compat", "Compat(normalize=False)"], ties=ties)
    assert got.row(0)[1:] == pytest.approx((1.0, 1.0), abs=1e-12)


def _weights(k: int, discount: object = lambda i: math.log2(i + 1)) -> float:
    """Σ_{i≤k} 1 / discount(i), term by term."""
    return math.fsum(1 / discount(i) for i in range(1, k + 1))  # type: ignore[operator]


def test_ideal_k_is_k_documents_at_full_gain(evaluate: Evaluate) -> None:
    """nDCG(ideal='k')@k divides by k documents each at the highest gain the query's judgments
    hold (rectools' NDCG: its hand cases, /work/scratch/oracles FINDINGS, give the first two)."""
    # b relevant at rank 2, k = 3: (1/log2 3) / (1 + 1/log2 3 + 1/2) = 0.2960819109658653
    assert value(evaluate, [0, 1], "nDCG(ideal='k')@3") == pytest.approx((1 / LOG2_3) / (1 + 1 / LOG2_3 + 1 / 2), abs=1e-12)
    assert value(evaluate, [0, 1], "nDCG(ideal='k')@3") == pytest.approx(0.2960819109658653, abs=1e-12)
    # d at rank 4, k beyond the list of 4: still ten ones in the ideal (rectools: 0.09478836436955079)
    assert value(evaluate, [0, 0, 0, 1], "nDCG(ideal='k')@10") == pytest.approx((1 / math.log2(5)) / _weights(10), abs=1e-12)
    assert value(evaluate, [0, 0, 0, 1], "nDCG(ideal='k')@10") == pytest.approx(0.09478836436955079, abs=1e-12)
    # IDCG alone: k ones, whatever R (here R = 1)
    assert value(evaluate, [0, 1], "IDCG(ideal='k')@3") == pytest.approx(1 + 1 / LOG2_3 + 1 / 2, abs=1e-12)
    # the whole list relevant and k = its length: 1
    assert value(evaluate, [1, 1, 1], "nDCG(ideal='k')@3") == pytest.approx(1.0, abs=1e-12)
    # nothing relevant (judged 0, unjudged): the ideal is 0, nDCG 0
    assert value(evaluate, [0, None], "nDCG(ideal='k')@2") == 0.0


def test_ideal_k_on_graded_judgments_takes_the_top_grade(evaluate: Evaluate) -> None:
    # relevances [1, 0, 3], k = 4: full gain 3, so IDCG = 3 · Σ_{i≤4} 1/log2(i+1); DCG = 1 + 3/2
    assert value(evaluate, [1, 0, 3], "nDCG(ideal='k')@4") == pytest.approx((1 + 3 / 2) / (3 * _weights(4)), abs=1e-12)
    # the top grade of an unretrieved judged document counts: x has relevance 2, the list [1]
    assert value(evaluate, [1], "nDCG(ideal='k')@2", qrels={"x": 2}) == pytest.approx(1 / (2 * (1 + 1 / LOG2_3)), abs=1e-12)
    # exponential gain: relevances [1, 2] gain 1 and 3; IDCG@2 = 3 · (1 + 1/log2 3)
    assert value(evaluate, [1, 2], "nDCG(ideal='k', gain='exponential')@2") == pytest.approx(
        (1 + 3 / LOG2_3) / (3 * (1 + 1 / LOG2_3)), abs=1e-12
    )


def test_ideal_k_with_the_other_discounts(evaluate: Evaluate) -> None:
    # reciprocal: (1/2) / (1 + 1/2 + 1/3)
    assert value(evaluate, [0, 1], "nDCG(ideal='k', discount='reciprocal')@3") == pytest.approx((1 / 2) / (11 / 6), abs=1e-12)
    # jarvelin, base 2: rank 3 divided by log2 3; the ideal 1 + 1 + 1/log2 3
    assert value(evaluate, [0, 0, 1], "nDCG(ideal='k', discount='jarvelin')@3") == pytest.approx(
        (1 / LOG2_3) / (2 + 1 / LOG2_3), abs=1e-12
    )
    # base 3, k = 9: ranks 1 to 3 undiscounted, rank 9 divided by 2
    jarvelin3 = _weights(9, lambda i: max(1.0, math.log(i) / math.log(3)))
    assert value(evaluate, [1], "nDCG(ideal='k', discount='jarvelin', base=3)@9") == pytest.approx(1 / jarvelin3, abs=1e-12)


def test_ideal_k_beyond_the_exact_terms(evaluate: Evaluate) -> None:
    # k = 150000: the weights beyond rank 100000 are integrated (Euler–Maclaurin)
    assert value(evaluate, [1], "nDCG(ideal='k')@150000") == pytest.approx(1 / _weights(150_000), rel=1e-9)


def test_ap_over_k(evaluate: Evaluate) -> None:
    """AP(denominator='k')@k: the precisions at the relevant ranks ≤ k over k (rectools' MAP
    with divide_by_k: {a, c, z}, the ranking a b c d, k = 4 gives (1 + 2/3) / 4)."""
    rels: list[int | None] = [1, 0, 1, 0]
    assert value(evaluate, rels, "AP(denominator='k')@4", qrels={"z": 1}) == pytest.approx((1 + 2 / 3) / 4, abs=1e-12)
    assert value(evaluate, rels, "AP(denominator='k')@4", qrels={"z": 1}) == pytest.approx(0.41666666666666663, abs=1e-12)
    assert value(evaluate, rels, "AP(denominator='k')@1", qrels={"z": 1}) == pytest.approx(1.0, abs=1e-12)
    assert value(evaluate, rels, "AP(denominator='k')@10", qrels={"z": 1}) == pytest.approx((1 + 2 / 3) / 10, abs=1e-12)
    assert value(evaluate, [0, None], "AP(denominator='k')@2") == 0.0


@pytest.mark.parametrize("metric", ["nDCG(ideal='k')", "IDCG(ideal='k')", "AP(denominator='k')"])
def test_k_conventions_need_a_cutoff(metric: str) -> None:
    with pytest.raises(rw.errors.InvalidParameterError, match=r"needs a cutoff, e\.g\. .*@10"):
        rw.parse_metric(metric)
