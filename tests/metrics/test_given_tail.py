"""APLT and ACLT over a long tail the user gives (``split='groups'``): the items ``groups=`` puts in
the group ``tail`` (weight above 0), instead of Elliot's 80% rule over the training.

- ``tests/data/beyond/given_tail_goldens.json``: Elliot's own APLT and ACLT classes
  (sisinflab/elliot @ fc27efed, ``bias/aplt/aplt.py:72``, ``bias/aclt/aclt.py:69``) per user over
  that tail, on four seeded cases (string and integer ids, k from 1 to 10, items in several groups,
  weights 0, items in no group), computed by ``tests/data/beyond/make_given_tail_goldens.py``;
- hand values at the edges (a user with no list, an item in no group, a weight 0, a group named
  by a number);
- random cases against the definition written out; every entry point: both engines, the lazy
  namespace, ``to_sql`` in both dialects, Spark, ``by=`` segments, the command line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from tests.conftest import close_rows, run_on
from tests.strategies import Case, cases
from tests.tiers import examples

pytestmark = pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")  # u3: judged, not in the run

GOLDENS = json.loads((Path(__file__).parents[1] / "data" / "beyond" / "given_tail_goldens.json").read_text())
ENGINES = ("polars", "polars-lazy", "duckdb", "to_sql")


def _on(engine: str, qrels: pl.DataFrame, run: pl.DataFrame, groups: pl.DataFrame, metrics: list[str],
        **kw: Any) -> pl.DataFrame:
    """One engine's entry point; ``to_sql``: DuckDB's statement over registered tables (its weight
    column named: ``to_sql`` does not see the table, and reads a weight only when told)."""
    if engine != "to_sql":
        return run_on(engine, qrels, run, metrics, groups=groups, **kw)
    con = duckdb.connect()
    for name, frame in (("run", run), ("qrels", qrels), ("g", groups)):
        con.register(name, frame)
    return con.sql(rw.to_sql(metrics, groups="g", groups_columns={"weight": "weight"}, **kw)).pl()


def _case_frames(case: dict[str, Any]) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    ids = pl.Int64 if case["ids"] == "int" else pl.String
    run = pl.DataFrame(case["run"], schema={"query_id": ids, "doc_id": ids, "score": pl.Float64}, orient="row")
    # every user judged (Elliot scores the users it is handed)
    qrels = run.group_by("query_id").agg(pl.col("doc_id").first()).with_columns(relevance=pl.lit(1))
    groups = pl.DataFrame(case["groups"], schema={"doc_id": ids, "group": pl.String, "weight": pl.Float64}, orient="row")
    return qrels, run, groups


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", GOLDENS["cases"], ids=lambda c: c["name"])
def test_elliot_values_over_the_given_tail(case: dict[str, Any], engine: str) -> None:
    qrels, run, groups = _case_frames(case)
    k = case["k"]
    metrics = {"elliot.APLT": f"APLT(split='groups')@{k}", "elliot.ACLT": f"ACLT(split='groups')@{k}"}
    got = _on(engine, qrels, run, groups, list(metrics.values()))
    ours = {str(row["query_id"]): row for row in got.iter_rows(named=True)}
    for key, metric in metrics.items():
        theirs = case["values"][key]
        assert set(ours) == set(theirs)
        for user, want in theirs.items():
            assert ours[user][metric] == pytest.approx(want, abs=1e-12), (key, user)


QRELS = pl.DataFrame({"query_id": ["u1", "u2", "u3"], "doc_id": ["a", "c", "a"], "relevance": [1, 1, 1]})
RUN = pl.DataFrame({"query_id": ["u1"] * 4 + ["u2"] * 3, "doc_id": ["a", "b", "c", "d", "a", "e", "f"],
                    "score": [4.0, 3.0, 2.0, 1.0, 3.0, 2.0, 1.0]})
GROUPS = {"a": "head", "b": "tail", "c": "tail", "e": {"tail": 1.0, "x": 0.5}, "f": {"tail": 0.0, "head": 1.0}}
"""d is in no group (in neither the head nor the tail); f is in 'tail' with weight 0 (not in it)."""


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_hand_values(engine: str) -> None:
    """u1's top 3 a, b, c: b and c in the tail; u2's a, e, f: e alone (f's weight is 0); u3 has
    no list (missing='zero'): NULL, as for Elliot's rule."""
    metrics = ["APLT(split='groups')@3", "ACLT(split='groups')@3", "APLT(split='groups', tail='head')",
               "ACLT(split='groups', tail='x')", "APLT(split='groups', tail='nobody')@2"]
    got = rw.evaluate(QRELS, RUN, metrics, groups=GROUPS, engine=engine, missing="zero")
    assert got.rows() == [
        ("u1", 2 / 3, 2.0, 0.25, 0.0, 0.0),
        ("u2", 1 / 3, 1.0, 2 / 3, 1.0, 0.0),
        ("u3", None, None, None, None, None),
    ]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_groups_named_by_numbers_are_compared_as_text(engine: str) -> None:
    groups = pl.DataFrame({"doc_id": ["a", "b", "e"], "group": [1, 2, 2]})
    got = rw.evaluate(QRELS, RUN, ["ACLT(split='groups', tail='2')@3", "ACLT(split='groups', tail='1')@3"],
                      groups=groups, engine=engine)
    assert got.rows() == [("u1", 1.0, 1.0), ("u2", 1.0, 1.0)]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_the_split_reads_the_groups_and_not_the_training(engine: str) -> None:
    """split='groups' needs groups= (the error names it), not train=; the default split needs
    train=, not groups=."""
    with pytest.raises(rw.InvalidParameterError, match=r"APLT\(split='groups'\)@3 reads the document groups"):
        rw.evaluate(QRELS, RUN, ["APLT(split='groups')@3"], engine=engine)
    with pytest.raises(rw.InvalidParameterError, match=r"APLT@3 reads the training interactions"):
        rw.evaluate(QRELS, RUN, ["APLT@3"], groups=GROUPS, engine=engine)
    with pytest.raises(rw.InvalidParameterError, match="split"):
        rw.evaluate(QRELS, RUN, ["APLT(split='given')@3"], groups=GROUPS, engine=engine)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_segments(engine: str) -> None:
    """by=: each segment's value is that of the segment's run alone."""
    run = RUN.with_columns(device=pl.Series(["m", "m", "d", "d", "m", "m", "d"]))
    got = rw.evaluate(QRELS, run, ["ACLT(split='groups')"], groups=GROUPS, by="device", engine=engine)
    for device in ("m", "d"):
        alone = rw.evaluate(QRELS, run.filter(pl.col("device") == device).drop("device"), ["ACLT(split='groups')"],
                            groups=GROUPS, engine=engine)
        assert got.filter(pl.col("device") == device).drop("device").rows() == alone.rows()


def _by_definition(case: Case, group: str, k: int) -> dict[str, tuple[float, float]]:
    """APLT@k and ACLT@k written out: the top k by score descending, then doc id descending
    (trec_eval's order); the tail the documents with a weight above 0 in ``group``."""
    out = {}
    for query, docs in case.run.items():
        top = sorted(sorted(docs, reverse=True), key=lambda d: -docs[d])[:k]
        count = sum(1.0 for d in top if case.groups.get(d, {}).get(group, 0.0) > 0)
        out[query] = (count / len(top), count)
    return out


@settings(max_examples=examples(40), deadline=None)
@given(case=cases(), k=st.integers(1, 6), group=st.sampled_from(["g1", "g2", "g3"]),
       engine=st.sampled_from(["polars", "duckdb", "to_sql"]))
def test_random_data_against_the_definition(case: Case, k: int, group: str, engine: str) -> None:
    """Random runs with ties, documents in no group, in two, with weight 0."""
    metrics = [f"APLT(split='groups', tail='{group}')@{k}", f"ACLT(split='groups', tail='{group}')@{k}"]
    groups = pl.DataFrame([(d, g, w) for d, ws in case.groups.items() for g, w in ws.items()],
                          schema={"doc_id": pl.String, "group": pl.String, "weight": pl.Float64}, orient="row")
    got = _on(engine, case.qrels_frame(), case.run_frame(), groups, metrics)
    want = _by_definition(case, group, k)
    for query, aplt, aclt in got.iter_rows():
        assert (aplt, aclt) == (pytest.approx(want[query][0], abs=1e-12), want[query][1]), query


def test_to_sql_in_the_spark_dialect_spells_it() -> None:
    sql = rw.to_sql(["APLT(split='groups')@3"], dialect="spark", groups="g")
    assert "array_agg(CAST(grp AS STRING))" in sql and "array_contains(" in sql


def test_spark(spark: Any) -> None:
    groups = pl.DataFrame([(d, g, w) for d, ws in {"a": {"head": 1.0}, "b": {"tail": 1.0}, "c": {"tail": 1.0},
                                                    "e": {"tail": 1.0, "x": 0.5}, "f": {"tail": 0.0}}.items()
                           for g, w in ws.items()], schema=["doc_id", "group", "weight"], orient="row")

    def df(frame: pl.DataFrame) -> Any:
        return spark.createDataFrame(frame.to_pandas())

    metrics = ["APLT(split='groups')@3", "ACLT(split='groups')"]
    got = pl.from_pandas(rw.spark.evaluate(df(QRELS), df(RUN), metrics, groups=df(groups)).toPandas())
    want = rw.evaluate(QRELS, RUN, metrics, groups=groups)
    assert close_rows(got.sort("query_id").rows(), want.rows())


def test_command_line(tmp_path: Path) -> None:
    from tests.cli.test_cli import cli

    QRELS.write_parquet(tmp_path / "qrels.parquet")
    RUN.write_parquet(tmp_path / "run.parquet")
    pl.DataFrame({"item": ["a", "b", "c", "e"], "group": ["head", "tail", "tail", "tail"]}).write_csv(tmp_path / "g.csv")
    args = ("eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), "-m", "APLT(split='groups')@3")
    done = cli(*args, "--groups", str(tmp_path / "g.csv"), "--groups-doc-id-col", "item", "-q", "--format", "csv")
    assert done.returncode == 0, done.stderr
    got = {r["query_id"]: r["APLT(split='groups')@3"] for r in pl.read_csv(done.stdout.encode()).iter_rows(named=True)}
    assert got == {"u1": pytest.approx(2 / 3), "u2": pytest.approx(1 / 3)}
    missing = cli(*args)
    assert missing.returncode == 2
    assert missing.stderr.strip() == (
        "rankwise: error: APLT(split='groups')@3 reads the document groups, each document's group or its weights over "
        "groups: pass --groups FILE"
    )
    page = cli("metrics", "APLT")
    assert "the document groups: --groups FILE" in page.stdout and "the training interactions" in page.stdout
