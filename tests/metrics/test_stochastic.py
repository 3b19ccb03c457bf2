"""Stochastic runs (``sample=``): several sampled rankings per query, each (query, sample) one ranking.

Diaz et al.'s expected exposure (EE_L, EE_D, EE_R) against expeval itself on seeded stochastic runs
(``tests/data/beyond/stochastic_goldens.json``, written by ``make_stochastic_goldens.py``): a document's
exposure is its mean over the query's samples, and EE_D (Σ ε̄²) and EE_L square it. Every other metric is
the mean over the query's samples (written out below); one sample per query is the deterministic run; the
paths that do not compute it refuse ``sample`` by name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.errors import ArgumentTypeError, InvalidParameterError, MissingColumnError
from tests.conftest import close_rows
from tests.tiers import examples

GOLDENS = json.loads((Path(__file__).parents[1] / "data" / "beyond" / "stochastic_goldens.json").read_text())
ENGINES = ("polars", "duckdb")


def _frames(case: dict[str, Any]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """qrels and the run (query, sample, doc, score) of a golden case."""
    ids = pl.Int64 if case["ids"] == "int" else pl.String
    samples = pl.String if isinstance(case["run"][0][1], str) else pl.Int64
    run = pl.DataFrame(case["run"], schema={"query_id": ids, "sample": samples, "doc_id": ids, "score": pl.Float64},
                       orient="row")
    qrels = pl.DataFrame(case["qrels"], schema={"query_id": ids, "doc_id": ids, "relevance": pl.Int64}, orient="row")
    return qrels, run


def _metric(name: str, label: str) -> str:
    """rankwise's metric for expeval's setting ``{um}-p{p}-u{u}[-U]``."""
    um, p, u, *unnormalised = label.split("-")
    return f"{name}(um='{um}', p={p[1:]}, u={u[1:]}, normalize={not unnormalised})"


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", GOLDENS["cases"], ids=lambda c: c["name"])
def test_expeval_values_of_stochastic_runs(case: dict[str, Any], engine: str) -> None:
    """Every query expeval scores that the run lists has its EE_D, EE_R, EE_L (1e-12); the listed query
    without a relevant document has none (NULL: expeval prints none); the judged query the run lacks
    is left out under missing='ignore' (the default, as for every metric)."""
    qrels, run = _frames(case)
    labels = sorted(case["expeval"])
    metrics = [_metric(name, label) for label in labels for name in ("EE_D", "EE_R", "EE_L")]
    got = rw.evaluate(qrels, run, metrics, sample="sample", engine=engine)  # type: ignore[arg-type]
    ours = {str(row["query_id"]): row for row in got.iter_rows(named=True)}
    listed = {str(q) for q, *_ in case["run"]}
    scored = set(case["expeval"][labels[0]])
    assert set(ours) == listed & {str(q) for q, _, _ in case["qrels"]}
    assert scored - listed and listed - scored  # the edges are there: a query lacking, one without a relevant doc
    for label in labels:
        for name in ("EE_D", "EE_R", "EE_L"):
            metric = _metric(name, label)
            for query, row in ours.items():
                want = case["expeval"][label].get(query)
                if want is None:
                    assert row[metric] is None, (metric, query)
                else:
                    assert row[metric] == pytest.approx(want[name], abs=1e-12, rel=1e-12), (metric, query)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", GOLDENS["cases"], ids=lambda c: c["name"])
def test_a_judged_query_the_run_lacks_under_missing_zero(case: dict[str, Any], engine: str) -> None:
    """missing='zero' (expeval scores every judged query with a relevant document): the judged query
    the run lacks has expeval's values (its defaults: EE_D's upper bound, EE_R's lower, EE_L's
    EE-R upper bound), the others the values of missing='ignore'."""
    qrels, run = _frames(case)
    labels = sorted(case["expeval"])
    metrics = [_metric(name, label) for label in labels for name in ("EE_D", "EE_R", "EE_L")]
    got = rw.evaluate(qrels, run, metrics, sample="sample", engine=engine, missing="zero")  # type: ignore[arg-type]
    ours = {str(row["query_id"]): row for row in got.iter_rows(named=True)}
    listed = {str(q) for q, *_ in case["run"]}
    lacking = {str(q) for q, _, _ in case["qrels"]} - listed
    assert lacking and set(ours) == {str(q) for q, _, _ in case["qrels"]}
    for label in labels:
        for name in ("EE_D", "EE_R", "EE_L"):
            metric = _metric(name, label)
            for query in lacking:
                want = case["expeval"][label].get(query)
                got_value = ours[query][metric]
                if want is None:  # no relevant document: no value
                    assert got_value is None, (metric, query)
                else:
                    assert got_value == pytest.approx(want[name], abs=1e-12, rel=1e-12), (metric, query)
    ignore = rw.evaluate(qrels, run, metrics, sample="sample", engine=engine)  # type: ignore[arg-type]
    assert close_rows(got.filter(pl.col("query_id").cast(pl.String).is_in(sorted(listed))).rows(), ignore.rows())


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
def test_the_keyed_switch_written_by_hand_changes_nothing(engine: str) -> None:
    """EE_D and EE_L's parameter samples= is set by evaluate(sample=) alone: written in a metric string,
    it counts for nothing (a deterministic run's values stay the deterministic values; a stochastic
    run's stay expeval's), on every entry point that resolves metrics under conventions."""
    one = RUN.filter(pl.col("sample") == 0).drop("sample")
    plain = ["EE_D(um='rbp')", "EE_L"]
    keyed = ["EE_D(um='rbp', samples='keyed')", "EE_L(samples='keyed')"]
    want = rw.evaluate(QRELS, one, plain, engine=engine)  # type: ignore[arg-type]
    got = rw.evaluate(QRELS, one, keyed, engine=engine)  # type: ignore[arg-type]
    assert close_rows(got.rows(), want.rows())
    stochastic = rw.evaluate(QRELS, RUN, plain, sample="sample", engine=engine)  # type: ignore[arg-type]
    written = rw.evaluate(QRELS, RUN, ["EE_D(um='rbp', samples='one')", "EE_L(samples='one')"], sample="sample",
                          engine=engine)  # type: ignore[arg-type]
    assert close_rows(written.rows(), stochastic.rows())
    with pytest.raises(InvalidParameterError, match="samples"):
        rw.evaluate(QRELS, one, ["EE_D(samples='many')"], engine=engine)  # type: ignore[arg-type]


def test_the_goldens_are_stochastic() -> None:
    """Several samples per query, their numbers differing, and documents ranked in some samples only."""
    for case in GOLDENS["cases"]:
        per_query: dict[Any, dict[Any, set[Any]]] = {}
        for q, s, d, _ in case["run"]:
            per_query.setdefault(q, {}).setdefault(s, set()).add(d)
        counts = {len(samples) for samples in per_query.values()}
        assert max(counts) > 1 and len(counts) > 1
        assert any(len(set.union(*s.values())) > len(set.intersection(*s.values())) for s in per_query.values())


RUN = pl.DataFrame({
    "query_id": ["q1"] * 6 + ["q2"] * 2,
    "sample": [0, 0, 0, 1, 1, 1, 0, 0],
    "doc_id": ["a", "b", "c", "b", "a", "c", "a", "x"],
    "score": [3.0, 2.0, 1.0, 3.0, 2.0, 1.0, 2.0, 1.0],
})
QRELS = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"], "relevance": [2, 1, 1]})
"""q1: two samples, a b c and b a c; q2: one, a x."""


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
def test_hand_values(engine: str) -> None:
    """rbp, p = 0.5: q1's mean exposures a = b = (1 + 0.5) / 2 = 0.75, c = 0.25: EE_D = 2 · 0.75² + 0.25²
    = 1.1875 (the mean of the samples' Σ ε², 1.3125, is not it); a (relevance 2) deserves 1, b 0.5: EE_R
    = 0.75 + 0.375, EE_L = 0.25² + 0.25² + 0.25²; P@1 the mean of 1 (a) and 1 (b)."""
    metrics = ["EE_D(um='rbp', normalize=False)", "EE_R(um='rbp', normalize=False)", "EE_L(um='rbp', normalize=False)",
               "P@1", "RR(rel=2)"]
    got = rw.evaluate(QRELS, RUN, metrics, sample="sample", engine=engine)  # type: ignore[arg-type]
    q1 = got.row(0, named=True)
    assert q1["query_id"] == "q1"
    assert q1[metrics[0]] == pytest.approx(1.1875, abs=1e-15)
    assert q1[metrics[1]] == pytest.approx(1.125, abs=1e-15)
    assert q1[metrics[2]] == pytest.approx(3 * 0.0625, abs=1e-15)
    assert q1["P@1"] == 1.0 and q1["RR(rel=2)"] == pytest.approx(0.75, abs=1e-15)


def _mean_over_samples(qrels: pl.DataFrame, run: pl.DataFrame, metrics: list[str], engine: str) -> dict[Any, list[Any]]:
    """Each query's mean over its samples of each metric's value on the sample alone (a deterministic
    run of its own), NULLs left out."""
    values: dict[Any, list[list[float]]] = {}
    for _, ranking in run.group_by("sample"):
        one = rw.evaluate(qrels, ranking.drop("sample"), metrics, engine=engine)  # type: ignore[arg-type]
        for row in one.iter_rows():
            values.setdefault(row[0], []).append(list(row[1:]))
    out = {}
    for query, rows in values.items():
        columns = [[v for v in column if v is not None] for column in zip(*rows, strict=True)]
        out[query] = [sum(c) / len(c) if c else None for c in columns]
    return out


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(25), deadline=None)
@given(
    data=st.data(),
    engine=st.sampled_from(ENGINES),
)
def test_every_other_metric_is_the_mean_over_the_samples(data: st.DataObject, engine: str) -> None:
    """Random stochastic runs: nDCG@3, AP, RR, P@2, EE_R (linear in the exposures) are each query's
    mean over its samples of their deterministic values; one sample per query is the deterministic run."""
    docs = [f"d{i}" for i in range(6)]
    rows = []
    for q in ("q1", "q2", "q3"):
        for s in range(data.draw(st.integers(1, 4))):
            ranking = data.draw(st.lists(st.sampled_from(docs), min_size=1, max_size=6, unique=True))
            rows += [(q, s, d, float(len(ranking) - i)) for i, d in enumerate(ranking)]
    run = pl.DataFrame(rows, schema=["query_id", "sample", "doc_id", "score"], orient="row")
    grades = data.draw(st.lists(st.integers(0, 3), min_size=len(docs), max_size=len(docs)))
    qrels = pl.DataFrame([(q, d, g) for q in ("q1", "q2", "q3") for d, g in zip(docs, grades, strict=True)],
                         schema=["query_id", "doc_id", "relevance"], orient="row")
    metrics = ["nDCG@3", "AP", "RR", "P@2", "EE_R(um='rbp')"]
    got = rw.evaluate(qrels, run, metrics, sample="sample", engine=engine)  # type: ignore[arg-type]
    want = _mean_over_samples(qrels, run, metrics, engine)
    for row in got.iter_rows():
        for value, expected, metric in zip(row[1:], want[row[0]], metrics, strict=True):
            assert (value is None) == (expected is None), (metric, row[0])
            if expected is not None:
                assert value == pytest.approx(expected, abs=1e-12), (metric, row[0])
    first = run.filter(pl.col("sample") == 0)
    every = ["EE_L", "EE_D(um='rbp', p=0.8)", *metrics]
    alone = rw.evaluate(qrels, first, every, sample="sample", engine=engine)  # type: ignore[arg-type]
    plain = rw.evaluate(qrels, first.drop("sample"), every, engine=engine)  # type: ignore[arg-type]
    assert close_rows(alone.rows(), plain.rows())


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
def test_segments_and_summary(engine: str) -> None:
    """by= with sample=: each (segment, query)'s samples apart; per_query=False: the means."""
    case = GOLDENS["cases"][1]
    qrels, run = _frames(case)
    run = run.with_columns(pl.when(pl.col("query_id") < "q4").then(pl.lit("x")).otherwise(pl.lit("y")).alias("seg"))
    metrics = ["EE_L", "EE_D", "nDCG@5"]
    whole = rw.evaluate(qrels, run, metrics, sample="sample", engine=engine)  # type: ignore[arg-type]
    by = rw.evaluate(qrels, run, metrics, sample="sample", by="seg", engine=engine)  # type: ignore[arg-type]
    assert close_rows(by.drop("seg").sort("query_id").rows(), whole.rows())
    summary = rw.evaluate(qrels, run, metrics, sample="sample", engine=engine, per_query=False)  # type: ignore[arg-type]
    assert close_rows(summary.rows(), rw.summarize(whole).rows())


def test_refusals_name_the_sample() -> None:
    """A sample column the run lacks, a key column, a set-level metric, query_chunks, more samples of a
    query than the keys' layout holds, and the entry points that do not compute stochastic runs: errors
    naming it."""
    with pytest.raises(MissingColumnError, match="the run has no sample column 'nope'"):
        rw.evaluate(QRELS, RUN, ["EE_L"], sample="nope")
    with pytest.raises(InvalidParameterError, match="sample column 'doc_id' is one of the run's key columns"):
        rw.evaluate(QRELS, RUN, ["EE_L"], sample="doc_id")
    with pytest.raises(InvalidParameterError, match=r"Gini@2 is one value per run .*sample='sample'"):
        rw.evaluate(QRELS, RUN, ["Gini@2"], sample="sample", per_query=False)
    with pytest.raises(InvalidParameterError, match=r"query_chunks .* samples \(sample=\)"):
        rw.evaluate(QRELS, RUN, ["EE_L"], sample="sample", query_chunks=2)
    with pytest.raises(InvalidParameterError, match="sample column 'sample' is also a segment column"):
        rw.evaluate(QRELS, RUN, ["EE_L"], sample="sample", by="sample")
    many = pl.DataFrame({"query_id": "q1", "sample": range(2**16), "doc_id": "a", "score": 1.0})
    with pytest.raises(InvalidParameterError, match=r"a query of 65536 samples \(sample='sample'\): at most 65535"):
        rw.evaluate(QRELS, many, ["EE_L"], sample="sample")
    for call in (
        lambda: rw.to_sql(["EE_L"], sample="sample"),
        lambda: rw.explain(QRELS, RUN, "EE_L", "q1", sample="sample"),
        lambda: rw.compare(QRELS, {"a": RUN, "b": RUN}, ["EE_L"], sample="sample"),
        lambda: rw.expr("EE_L", sample="sample"),
        lambda: RUN.lazy().ir.evaluate(QRELS, ["EE_L"], sample="sample"),
    ):
        with pytest.raises(ArgumentTypeError, match="unexpected keyword argument 'sample'"):
            call()


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
def test_the_command_line(tmp_path: Path) -> None:
    """--sample COLUMN gives evaluate()'s values; a sample column the run lacks is one line, exit 2."""
    from tests.cli.test_cli import cli

    run, qrels = tmp_path / "run.csv", tmp_path / "qrels.csv"
    RUN.write_csv(run)
    QRELS.write_csv(qrels)
    metrics = ["EE_L", "EE_D(um='rbp')", "nDCG"]
    out = cli("eval", str(qrels), str(run), *[f for m in metrics for f in ("-m", m)], "--sample", "sample", "-q",
              "--format", "csv")
    assert out.returncode == 0, out.stderr
    got = {r["query_id"]: r for r in pl.read_csv(out.stdout.encode()).iter_rows(named=True)}
    want = rw.evaluate(QRELS, RUN, metrics, sample="sample")
    for row in want.iter_rows(named=True):
        for m in metrics:
            assert got[row["query_id"]][m] == pytest.approx(row[m], abs=1e-12), m
    out = cli("eval", str(qrels), str(run), "-m", "EE_L", "--sample", "nope")
    assert out.returncode == 2 and out.stderr.startswith("rankwise: error: the run has no sample column 'nope'")


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ENGINES)
def test_a_trec_run_file_s_second_field_is_the_sample(tmp_path: Path, engine: str) -> None:
    """sample= (--sample) on a TREC run file: its second field (Q0 in a deterministic run) is read as the
    sample under the name given, as expeval reads it: the values of the same run given as a table;
    without sample= the field is ignored, as trec_eval ignores it."""
    from tests.cli.test_cli import cli

    run, qrels = tmp_path / "run.trec", tmp_path / "qrels.txt"
    run.write_text("".join(f"{q} {s} {d} {i} {v} tag\n" for i, (q, s, d, v) in enumerate(RUN.iter_rows())))
    qrels.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in QRELS.iter_rows()))
    metrics = ["EE_L", "EE_D(um='rbp')", "EE_R", "nDCG"]
    want = rw.evaluate(QRELS, RUN.with_columns(pl.col("sample").cast(pl.String)), metrics, sample="sample",
                       engine=engine)  # type: ignore[arg-type]
    got = rw.evaluate(str(qrels), str(run), metrics, sample="iter", engine=engine)  # type: ignore[arg-type]
    assert close_rows(got.rows(), want.rows())
    out = cli("eval", str(qrels), str(run), *[f for m in metrics for f in ("-m", m)], "--sample", "iter", "-q",
              "--format", "csv", "--engine", engine)
    assert out.returncode == 0, out.stderr
    assert close_rows(pl.read_csv(out.stdout.encode()).rows(), want.rows())
