"""Interleaving: rw.interleave checked by invariants and exact distributions (the reference
package draws from numpy's global generator, so its sequences cannot be matched), and
rw.interleaving_credit checked on both engines against the credits of Kato & Manabe's
``interleaving`` package frozen in tests/data/clicks/interleaving_cases.json (written by
tests/data/clicks/make_interleaving_cases.py from mpkato/interleaving @ 7907f7dd), against
scipy's binomtest for the sign test, and against hand-worked Δ_AB values."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from scipy import stats

import rankwise as rw

DATA = Path(__file__).resolve().parents[2] / "examples" / "data"
CASES = json.loads((Path(__file__).resolve().parents[1] / "data" / "clicks" / "interleaving_cases.json").read_text())
ENGINES = ["polars", "duckdb"]
A = ["a", "b", "c", "d"]
B = ["b", "e", "a", "f"]


def _run(lists: dict[str, list[str]]) -> pl.DataFrame:
    """A run frame from query → doc ids in rank order (scores descending, no ties)."""
    rows = [(q, d, float(len(docs) - i)) for q, docs in lists.items() for i, d in enumerate(docs)]
    return pl.DataFrame(rows, schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}, orient="row")


def _lists(shown: pl.DataFrame) -> dict[str, list[tuple[str, str]]]:
    """query → [(doc, team), ...] in rank order."""
    out: dict[str, list[tuple[str, str]]] = {}
    for q, _, d, t in shown.sort("query_id", "rank").iter_rows():
        out.setdefault(q, []).append((d, t))
    return out


# --------------------------------------------------------------------------- generation

def _example_runs(n: int) -> dict[str, pl.DataFrame]:
    a = pl.read_parquet(DATA / "run.parquet")
    b = pl.read_parquet(DATA / "run_b.parquet")
    c = a.with_columns(score=-pl.col("score"))
    return dict(list({"A": a, "B": b, "C": c}.items())[:n])


def _ranking(run: pl.DataFrame) -> dict[str, list[str]]:
    """query → docs as evaluate ranks them (score descending, ties by doc id descending)."""
    ordered = run.sort(["query_id", "score", "doc_id"], descending=[False, True, True])
    return {q: g["doc_id"].to_list() for (q,), g in ordered.group_by("query_id", maintain_order=True)}


@pytest.mark.parametrize("n_runs", [2, 3])
def test_team_draft_invariants(n_runs: int) -> None:
    runs = _example_runs(n_runs)
    ranked = {name: _ranking(run) for name, run in runs.items()}
    shown = rw.interleave(runs, method="team_draft", k=10, seed=3)
    lists = _lists(shown)
    assert len(lists) == 199
    for q, rows in lists.items():
        docs = [d for d, _ in rows]
        assert len(docs) == len(set(docs)) == 10
        seen: set[str] = set()
        sizes = Counter[str]()
        for d, t in rows:
            # the team's pick is its highest-ranked document not yet shown
            assert d == next(x for x in ranked[t][q] if x not in seen)
            # only a team with the fewest picks so far picks
            assert sizes[t] == min(sizes[name] for name in runs)
            seen.add(d)
            sizes[t] += 1
        assert max(sizes.values()) - min(sizes[name] for name in runs) <= 1


def test_balanced_prefix_property() -> None:
    runs = _example_runs(2)
    ranked = {name: _ranking(run) for name, run in runs.items()}
    shown = rw.interleave(runs, method="balanced", k=10, seed=5)
    for q, rows in _lists(shown).items():
        docs = [d for d, _ in rows]
        assert len(docs) == len(set(docs)) == 10
        a, b = ranked["A"][q], ranked["B"][q]
        for n in range(1, len(docs) + 1):
            prefix = set(docs[:n])
            # the top n is the top k_A of A and the top k_B of B, with |k_A - k_B| <= 1
            assert any(prefix == set(a[:ka]) | set(b[:kb])
                       for ka in range(n + 1) for kb in range(max(0, ka - 1), ka + 2))
        for d, t in rows:  # the team is a run that ranks the document
            assert d in ranked[t][q]


def test_interleave_is_seeded() -> None:
    runs = _example_runs(2)
    for method in ("team_draft", "balanced", "probabilistic"):
        first = rw.interleave(runs, method=method, seed=11)
        assert first.equals(rw.interleave(runs, method=method, seed=11))
        assert not first.equals(rw.interleave(runs, method=method, seed=12))


def _team_draft_exact(lists: list[list[str]], k: int) -> dict[tuple[tuple[str, int], ...], float]:
    """Every team-draft outcome and its probability, by enumerating the uniform choices among the
    teams with the fewest picks."""
    out: dict[tuple[tuple[str, int], ...], float] = {}

    def walk(prefix: tuple[tuple[str, int], ...], p: float) -> None:
        shown = {d for d, _ in prefix}
        left = [j for j, lst in enumerate(lists) if any(d not in shown for d in lst)]
        if len(prefix) == k or not left:
            out[prefix] = out.get(prefix, 0.0) + p
            return
        picks = Counter(t for _, t in prefix)
        fewest = min(picks[j] for j in left)
        choices = [j for j in left if picks[j] == fewest]
        for j in choices:
            doc = next(d for d in lists[j] if d not in shown)
            walk((*prefix, (doc, j)), p / len(choices))

    walk((), 1.0)
    return out


def _probabilistic_exact(lists: list[list[str]], k: int, tau: float) -> dict[tuple[tuple[str, int], ...], float]:
    """Every probabilistic-interleaving outcome (doc, drawing run) and its probability: a run with
    documents left drawn uniformly, a document with P ∝ 1/rank^τ among its documents not shown."""
    out: dict[tuple[tuple[str, int], ...], float] = {}

    def walk(prefix: tuple[tuple[str, int], ...], p: float) -> None:
        shown = {d for d, _ in prefix}
        left = [j for j, lst in enumerate(lists) if any(d not in shown for d in lst)]
        if len(prefix) == k or not left:
            out[prefix] = out.get(prefix, 0.0) + p
            return
        for j in left:
            weights = {d: (r + 1) ** -tau for r, d in enumerate(lists[j]) if d not in shown}
            total = sum(weights.values())
            for d, w in weights.items():
                walk((*prefix, (d, j)), p / len(left) * w / total)

    walk((), 1.0)
    return out


def _frequencies(method: str, lists: list[list[str]], k: int, n: int, seed: int, tau: float = 3.0) -> tuple[Counter[Any], int]:
    names = "ABC"[: len(lists)]
    runs = {name: _run({f"q{i:05d}": lst for i in range(n)}) for name, lst in zip(names, lists, strict=True)}
    shown = rw.interleave(runs, method=method, k=k, seed=seed, tau=tau)  # type: ignore[arg-type]
    counts = Counter(tuple((d, names.index(t)) for d, t in rows) for rows in _lists(shown).values())
    return counts, n


def _close(counts: Counter[Any], n: int, exact: dict[Any, float]) -> None:
    assert set(counts) <= set(exact)
    assert sum(exact.values()) == pytest.approx(1.0)
    for outcome, p in exact.items():
        f = counts.get(outcome, 0) / n
        assert abs(f - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-3, (outcome, f, p)


@pytest.mark.parametrize("lists", [[A, B], [A, B, ["c", "a", "b", "d"]]])
def test_team_draft_distribution(lists: list[list[str]]) -> None:
    counts, n = _frequencies("team_draft", lists, 4, 6000, seed=1)
    _close(counts, n, _team_draft_exact(lists, 4))


@pytest.mark.parametrize("lists", [[A, B], [A, B, ["c", "a", "b", "d"]]])
def test_probabilistic_distribution(lists: list[list[str]]) -> None:
    counts, n = _frequencies("probabilistic", lists, 3, 8000, seed=2)
    _close(counts, n, _probabilistic_exact(lists, 3, 3.0))


def test_probabilistic_distribution_tau() -> None:
    counts, n = _frequencies("probabilistic", [A, B], 2, 6000, seed=4, tau=1.0)
    _close(counts, n, _probabilistic_exact([A, B], 2, 1.0))


def test_balanced_distribution() -> None:
    counts, n = _frequencies("balanced", [A, B], 4, 4000, seed=3)
    a_first = (("a", 0), ("b", 1), ("e", 1), ("c", 0))
    b_first = (("b", 1), ("a", 0), ("e", 1), ("c", 0))
    assert set(counts) == {a_first, b_first}
    assert abs(counts[a_first] / n - 0.5) <= 5 * np.sqrt(0.25 / n)


# ------------------------------------------------------------------------------- credit

def _groups() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    by: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for case in CASES["cases"]:
        by.setdefault((case["method"], len(case["lists"])), []).append(case)
    for (method, n), cases in sorted(by.items()):
        yield f"{method}-{n}", cases


GROUPS = dict(_groups())


def _case_log(cases: list[dict[str, Any]]) -> tuple[pl.DataFrame, dict[str, pl.DataFrame]]:
    rows = []
    for i, case in enumerate(cases):
        team_of = {d: t for t, docs in case.get("teams", {}).items() for d in docs}
        rows += [(f"q{i:03d}", r + 1, d, team_of.get(d), int(r in case["clicks"])) for r, d in enumerate(case["shown"])]
    log = pl.DataFrame(rows, schema={"query_id": pl.String, "rank": pl.Int64, "doc_id": pl.String,
                                     "team": pl.String, "click": pl.Int64}, orient="row")
    names = list(cases[0]["lists"])
    runs = {name: _run({f"q{i:03d}": case["lists"][name] for i, case in enumerate(cases)}) for name in names}
    return log, runs


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("group", sorted(GROUPS))
def test_credit_equals_the_package(group: str, engine: str) -> None:
    cases = GROUPS[group]
    log, runs = _case_log(cases)
    method = cases[0]["method"]
    result = rw.interleaving_credit(log, method=method, runs=runs, engine=engine)  # type: ignore[arg-type]
    got = {row["query_id"]: row for row in result.impressions.iter_rows(named=True)}
    for i, case in enumerate(cases):
        row = got[f"q{i:03d}"]
        total = case.get("total", 1.0)  # probabilistic, 2 rankers: the package's value is unnormalised
        for name, score in case["scores"].items():
            assert row[name] == pytest.approx(score / total, abs=1e-12), (group, i, name)
        assert row["clicks"] == len(case["clicks"])


def test_probabilistic_two_rankers_is_normalised() -> None:
    """The package's two-ranker scores sum to less or more than 1 (unnormalised); ours are
    probabilities: P(A wins) + P(B wins) = 1 − P(tie) ≤ 1, and equal 1 with one click."""
    cases = GROUPS["probabilistic-2"]
    log, runs = _case_log(cases)
    result = rw.interleaving_credit(log, method="probabilistic", runs=runs)
    sums = result.impressions.select(s=pl.col("A") + pl.col("B"), c="clicks")
    assert (sums["s"] <= 1 + 1e-12).all()
    one = sums.filter(pl.col("c") == 1)["s"]
    assert one.len() > 0 and ((one - 1).abs() < 1e-12).all()
    assert any(abs(c["scores"]["A"] + c["scores"]["B"] - 1) > 1e-3 for c in cases if len(c["clicks"]) == 1)


def test_hand_worked_case_of_the_findings() -> None:
    """FINDINGS' hand cases: Balanced clicks at 1,3 → [1, 2]; at 0,2 → [2, 1]; probabilistic
    [a, b, e] with a click on b: normalised 0.445 / 0.555 (the package's 1.237 unnormalised sum)."""
    runs = {"A": _run({"x": A, "y": A}), "B": _run({"x": B, "y": B})}
    log = pl.DataFrame({"query_id": ["x"] * 4 + ["y"] * 4, "rank": [1, 2, 3, 4] * 2,
                        "doc_id": ["a", "b", "c", "e"] * 2, "click": [0, 1, 0, 1, 1, 0, 1, 0]})
    for engine in ENGINES:
        out = rw.interleaving_credit(log, method="balanced", runs=runs, engine=engine).impressions  # type: ignore[arg-type]
        assert out.select("A", "B").rows() == [(1.0, 2.0), (2.0, 1.0)]
        shown = pl.DataFrame({"query_id": "x", "rank": [1, 2, 3], "doc_id": ["a", "b", "e"], "click": [0, 1, 0]})
        out = rw.interleaving_credit(shown, method="probabilistic", runs=runs, engine=engine).impressions  # type: ignore[arg-type]
        assert out.row(0, named=True)["A"] == pytest.approx(0.445, abs=5e-4)
        assert out.row(0, named=True)["B"] == pytest.approx(0.555, abs=5e-4)


def _team_log(outcomes: list[tuple[int, int]]) -> pl.DataFrame:
    """One impression per (clicks on A's team, clicks on B's team), A's doc at rank 1, B's at 2, ..."""
    rows = []
    for i, (ca, cb) in enumerate(outcomes):
        for r in range(4):
            team = "A" if r % 2 == 0 else "B"
            clicked = (r // 2 < ca) if team == "A" else (r // 2 < cb)
            rows.append((f"i{i}", f"q{i}", r + 1, f"d{r}", team, int(clicked)))
    return pl.DataFrame(rows, schema=["impression_id", "query_id", "rank", "doc_id", "team", "click"], orient="row")


@pytest.mark.parametrize("engine", ENGINES)
def test_delta_wins_ties_losses_by_hand(engine: str) -> None:
    # A wins 3 (2-0, 1-0, 2-1), B wins 1 (0-1), one tie (1-1), one impression without clicks
    log = _team_log([(2, 0), (1, 0), (2, 1), (0, 1), (1, 1), (0, 0)])
    result = rw.interleaving_credit(log, impression="impression_id", engine=engine)  # type: ignore[arg-type]
    assert result.impressions["winner"].to_list() == ["A", "A", "A", "B", None, None]
    row = result.summary.row(0, named=True)
    assert (row["ranker_a"], row["ranker_b"], row["impressions"], row["wins_a"], row["ties"], row["wins_b"]) == ("A", "B", 5, 3, 1, 1)
    assert row["delta"] == pytest.approx((3 + 0.5) / 5 - 0.5)
    assert row["p_value"] == pytest.approx(stats.binomtest(3, 4, 0.5).pvalue)
    tie = rw.interleaving_credit(log, impression="impression_id", no_clicks="tie", engine=engine).summary.row(0, named=True)  # type: ignore[arg-type]
    assert (tie["impressions"], tie["ties"]) == (6, 2)
    assert tie["delta"] == pytest.approx((3 + 1) / 6 - 0.5)


def test_bootstrap_interval_is_the_percentile_interval_of_the_impressions() -> None:
    log = _team_log([(2, 0), (1, 0), (2, 1), (0, 1), (1, 1), (0, 0)])
    row = rw.interleaving_credit(log, impression="impression_id", resamples=2000, seed=7, level=0.9).summary.row(0, named=True)
    outcome = np.array([1.0, 1.0, 1.0, 0.0, 0.5])
    idx = np.random.default_rng(7).integers(0, 5, size=(2000, 5))
    low, high = np.quantile(outcome[idx].mean(axis=1) - 0.5, [0.05, 0.95])
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low), pytest.approx(high))
    again = rw.interleaving_credit(log, impression="impression_id", resamples=2000, seed=7, level=0.9).summary
    assert again.row(0, named=True) == row


@pytest.mark.parametrize("wins,losses", [(0, 1), (9, 1), (3, 3), (40, 57), (120, 80), (500, 560)])
def test_sign_test_equals_scipy_binomtest(wins: int, losses: int) -> None:
    from rankwise.comparison.statistics import sign_test_pvalue

    assert sign_test_pvalue(wins, losses) == pytest.approx(stats.binomtest(wins, wins + losses, 0.5).pvalue, rel=1e-9)


@pytest.mark.parametrize("engine", ENGINES)
def test_multileaving_preference_matrix(engine: str) -> None:
    runs = _example_runs(3)
    shown = rw.interleave(runs, method="team_draft", k=10, seed=0)
    clicks = (np.random.default_rng(1).random(shown.height) < 0.3).astype(int)
    log = shown.with_columns(click=pl.Series(clicks))
    result = rw.interleaving_credit(log, method="team_draft", runs=runs, engine=engine)  # type: ignore[arg-type]
    assert result.summary.select("ranker_a", "ranker_b").rows() == [("A", "B"), ("A", "C"), ("B", "C")]
    matrix = {row["ranker"]: row for row in result.preferences.iter_rows(named=True)}
    for row in result.summary.iter_rows(named=True):
        a, b = row["ranker_a"], row["ranker_b"]
        assert matrix[a][b] == pytest.approx(row["delta"]) and matrix[b][a] == pytest.approx(-row["delta"])
        # each pair's counts from the per-impression credits
        counted = result.impressions.filter(pl.col("clicks") > 0)
        assert row["wins_a"] == counted.filter(pl.col(a) > pl.col(b)).height
        assert row["wins_b"] == counted.filter(pl.col(a) < pl.col(b)).height
    assert all(matrix[name][name] is None for name in runs)


@pytest.mark.parametrize("method", ["team_draft", "balanced", "probabilistic"])
def test_engines_agree_on_the_example_data(method: str) -> None:
    runs = _example_runs(2)
    shown = rw.interleave(runs, method=method, k=10, seed=0)  # type: ignore[arg-type]
    log = shown.with_columns(click=pl.Series((np.random.default_rng(2).random(shown.height) < 0.4).astype(int)))
    p = rw.interleaving_credit(log, method=method, runs=runs, engine="polars")  # type: ignore[arg-type]
    d = rw.interleaving_credit(log, method=method, runs=runs, engine="duckdb")  # type: ignore[arg-type]
    assert p.impressions.select("query_id", "clicks", "winner").equals(d.impressions.select("query_id", "clicks", "winner"))
    assert np.allclose(p.impressions.select("A", "B").to_numpy(), d.impressions.select("A", "B").to_numpy(), atol=1e-12)
    assert p.summary.equals(d.summary)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_log_without_clicks_decides_nothing(engine: str) -> None:
    log = _team_log([(0, 0), (0, 0)])
    result = rw.interleaving_credit(log, impression="impression_id", engine=engine)  # type: ignore[arg-type]
    row = result.summary.row(0, named=True)
    assert (row["impressions"], row["wins_a"], row["ties"], row["wins_b"], row["p_value"]) == (0, 0, 0, 0, 1.0)
    assert row["delta"] is None and row["ci_low"] is None and row["ci_high"] is None
    assert result.impressions["winner"].null_count() == 2
    tie = rw.interleaving_credit(log, impression="impression_id", no_clicks="tie", engine=engine).summary.row(0, named=True)  # type: ignore[arg-type]
    assert (tie["impressions"], tie["ties"], tie["delta"]) == (2, 2, 0.0)


# ------------------------------------------------------------------------------- errors

LOG = pl.DataFrame({"query_id": ["q", "q"], "rank": [1, 2], "doc_id": ["a", "b"], "team": ["A", "B"], "click": [1, 0]})
RUNS = {"A": _run({"q": A}), "B": _run({"q": B})}


@pytest.mark.parametrize("call,error,words", [
    (lambda: rw.interleave(RUNS, method="team-draft"), rw.InvalidParameterError, "team_draft"),  # type: ignore[arg-type]
    (lambda: rw.interleave(RUNS, k=0), rw.InvalidParameterError, "k must be"),
    (lambda: rw.interleave([RUNS["A"]]), rw.InvalidParameterError, "at least two runs"),
    (lambda: rw.interleave({**RUNS, "C": RUNS["A"]}, method="balanced"), rw.InvalidParameterError, "exactly two"),
    (lambda: rw.interleaving_credit(LOG, method="tdi"), rw.InvalidParameterError, "method must be"),  # type: ignore[arg-type]
    (lambda: rw.interleaving_credit(LOG.drop("click")), rw.MissingColumnError, "'click'"),
    (lambda: rw.interleaving_credit(LOG, click="clicked"), rw.MissingColumnError, "'clicked'"),
    (lambda: rw.interleaving_credit(LOG, method="balanced"), rw.InvalidParameterError, "runs="),
    (lambda: rw.interleaving_credit(LOG.with_columns(team=pl.lit("A")), runs=RUNS | {"C": RUNS["A"]}).summary,
     None, None),
    (lambda: rw.interleaving_credit(LOG.with_columns(team=pl.Series(["A", "Z"]))), None, None),
    (lambda: rw.interleaving_credit(LOG.with_columns(team=pl.Series(["A", "Z"])), runs=RUNS), rw.InvalidValueError, "'Z'"),
    (lambda: rw.interleaving_credit(LOG.with_columns(doc_id=pl.Series(["a", None]), click=pl.Series([1, 1]))),
     rw.InvalidValueError, "a click on a doc not shown"),
    (lambda: rw.interleaving_credit(LOG.with_columns(click=pl.Series([2, 0]))), rw.InvalidValueError, "0 or 1"),
    (lambda: rw.interleaving_credit(LOG.with_columns(rank=pl.Series([1, 1]))), rw.DuplicateDocumentError, "twice"),
    (lambda: rw.interleaving_credit(LOG.with_columns(doc_id=pl.Series(["a", "zz"])), method="balanced", runs=RUNS),
     rw.InvalidValueError, "none of the runs"),
    (lambda: rw.interleaving_credit(LOG.with_columns(impression_id=pl.lit(1), query_id=pl.Series(["q", "r"])),
                                    impression="impression_id", method="balanced", runs=RUNS),
     rw.InvalidValueError, "several queries"),
    (lambda: rw.interleaving_credit(LOG, no_clicks="ignore"), rw.InvalidParameterError, "no_clicks"),  # type: ignore[arg-type]
    (lambda: rw.interleaving_credit(LOG, engine="spark"), rw.InvalidParameterError, "engine"),  # type: ignore[arg-type]
])
def test_errors(call: Any, error: type[Exception] | None, words: str | None) -> None:
    if error is None:  # the valid neighbours of the bad calls run
        call()
        return
    with pytest.raises(error, match=None) as caught:
        call()
    assert words in str(caught.value)
