"""Fair exposure: the side inputs ``groups=`` (document → group, or → {group: weight}: TREC Fair
Ranking's alignment vectors) and ``target=`` (the share of exposure each group should get: one
distribution, one per query, or a named default), read by :mod:`rankwise.inputs.groups`.

Each form is read to the same rows (written out by hand below); each fault is an error of
:mod:`rankwise.errors` naming the input, the column or the value; the command line's flags give
the same options as the Python keywords.
"""

from __future__ import annotations

import argparse
import json
import math
import re
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.cli.arguments import read_options
from rankwise.conventions import SIDE_INPUTS, Columns
from rankwise.errors import (
    ColumnTypeError,
    DuplicateDocumentError,
    EmptyInputError,
    InputReadError,
    InvalidParameterError,
    InvalidValueError,
    MissingColumnError,
    UnsupportedInputError,
)
from rankwise.inputs.columns import Reading
from rankwise.inputs.groups import GROUP, SHARE, WEIGHT, Target, read_groups, read_target
from tests.conftest import close_rows, run_on
from tests.strategies import Case, cases
from tests.tiers import examples

COLUMNS = Columns()
GROUP_ROWS = [("a", "g1", 1.0), ("b", "g1", 0.25), ("b", "g2", 0.75), ("c", "g2", 1.0)]
"""The rows every form of the groups below is read to: (doc, group, weight), sorted."""


def _groups_rows(obj: Any, **kw: Any) -> list[tuple[Any, ...]]:
    frame = read_groups(obj, COLUMNS, **kw)
    assert frame.columns == ["doc_id", GROUP, WEIGHT]
    assert frame.schema[GROUP] == pl.String and frame.schema[WEIGHT] == pl.Float64
    return frame.rows()


def _table(**columns: list[Any]) -> pl.DataFrame:
    return pl.DataFrame(columns)


TABLE = _table(doc_id=["a", "b", "b", "c"], group=["g1", "g1", "g2", "g2"], weight=[1.0, 0.25, 0.75, 1.0])


@pytest.mark.parametrize("form", [
    "dict", "rows", "records", "polars", "lazy", "pandas", "arrow", "duckdb", "parquet", "csv", "tsv",
])
def test_groups_in_every_form(form: str, tmp_path: Path) -> None:
    objs: dict[str, Any] = {
        "dict": {"a": "g1", "b": {"g1": 0.25, "g2": 0.75}, "c": ["g2"]},
        "rows": [("a", "g1"), ("b", "g1", 0.25), ("b", "g2", 0.75), ("c", "g2", 1)],
        "records": TABLE.to_dicts(),
        "polars": TABLE, "lazy": TABLE.lazy(), "pandas": TABLE.to_pandas(), "arrow": TABLE.to_arrow(),
    }
    if form == "duckdb":
        con = duckdb.connect()
        con.register("t", TABLE.to_arrow())
        objs["duckdb"] = con.sql("SELECT * FROM t")
    if form == "parquet":
        TABLE.write_parquet(tmp_path / "g.parquet")
        objs[form] = str(tmp_path / "g.parquet")
    if form in ("csv", "tsv"):
        TABLE.write_csv(tmp_path / f"g.{form}", separator="," if form == "csv" else "\t")
        objs[form] = tmp_path / f"g.{form}"
    assert _groups_rows(objs[form]) == GROUP_ROWS


def test_groups_without_weights_weigh_one_and_ids_are_text() -> None:
    rows = _groups_rows(pl.DataFrame({"doc_id": [1, 2], "group": [7, 8]}))
    assert rows == [(1, "7", 1.0), (2, "8", 1.0)]
    # a document in several groups (expeval's "g1|g2") counts fully in each
    assert _groups_rows({"d": ["x", "y"]}) == [("d", "x", 1.0), ("d", "y", 1.0)]


def test_groups_columns_by_keyword(tmp_path: Path) -> None:
    own = TABLE.rename({"doc_id": "page", "group": "gender", "weight": "w"})
    names = {"doc_id": "page", "group": "gender", "weight": "w"}
    assert _groups_rows(own, rename=names) == GROUP_ROWS
    own.write_csv(tmp_path / "g.csv")
    assert _groups_rows(tmp_path / "g.csv", rename=names) == GROUP_ROWS
    # the run's doc column name (doc_id=) is the groups' too
    frame = read_groups(TABLE.rename({"doc_id": "item"}), Columns(doc_id="item"))
    assert frame.columns[0] == "item" and frame.rows() == GROUP_ROWS


@pytest.mark.parametrize(("obj", "error", "words"), [
    ({}, EmptyInputError, "the document groups (groups=) are empty"),
    ([], EmptyInputError, "the document groups (groups=) are empty"),
    ({"a": {}}, EmptyInputError, "no document has a group"),
    ({"a": None}, InvalidValueError, "hold 1 NULL group(s)"),
    (_table(doc_id=["a", None], group=["x", "y"]), InvalidValueError, "hold 1 NULL document(s)"),
    ([("a", "x"), ("a", "x", 2)], DuplicateDocumentError, "give document 'a' group 'x' more than once"),
    ({"a": {"x": -1}}, InvalidValueError, "document 'a', group 'x' has the weight -1.0; a weight is a finite number ≥ 0"),
    ({"a": {"x": float("nan")}}, InvalidValueError, "document 'a', group 'x' has the weight nan"),
    ({"a": {"x": float("inf")}}, InvalidValueError, "has the weight inf"),
    ({"a": {"x": "heavy"}}, ColumnTypeError, "a weight must be a number, found 'heavy'"),
    (_table(doc_id=["a"], group=["x"], weight=["1"]), ColumnTypeError, "the column 'weight' must hold numbers"),
    (_table(doc_id=[1.5], group=["x"]), ColumnTypeError, "the column 'doc_id' must hold strings or integers"),
    (_table(doc=["a"], group=["x"]), MissingColumnError,
     "have no column 'doc_id' (its doc_id column). Did you mean 'doc'? (pass groups_columns={'doc_id': 'doc'})"),
    (_table(doc_id=["a"], grp=["x"]), MissingColumnError, "have no column 'group'"),
    ([1, 2], UnsupportedInputError, "pass rows (doc, group[, weight])"),
    (3.5, UnsupportedInputError, "cannot read the document groups (groups=) from builtins.float"),
])
def test_groups_faults_name_the_input_column_and_value(obj: Any, error: type[Exception], words: str) -> None:
    with pytest.raises(error) as info:
        read_groups(obj, COLUMNS)
    assert words in str(info.value)


def test_groups_file_faults(tmp_path: Path) -> None:
    with pytest.raises(InputReadError, match="no such file"):
        read_groups(tmp_path / "nope.csv", COLUMNS)
    (tmp_path / "g.json").write_text("{}")
    with pytest.raises(InputReadError, match="is not Parquet or CSV/TSV"):
        read_groups(tmp_path / "g.json", COLUMNS)


# -- target= ------------------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["dict", "rows", "polars", "pandas", "arrow", "csv"])
def test_one_target_in_every_form(form: str, tmp_path: Path) -> None:
    table = pl.DataFrame({"group": ["g2", "g1"], "share": [1.0, 3.0]})
    objs: dict[str, Any] = {
        "dict": {"g2": 1, "g1": 3}, "rows": [("g2", 1), ("g1", 3)], "polars": table,
        "pandas": table.to_pandas(), "arrow": table.to_arrow(),
    }
    if form == "csv":
        table.write_csv(tmp_path / "t.csv")
        objs[form] = str(tmp_path / "t.csv")
    target = read_target(objs[form], COLUMNS)
    assert not target.per_query and target.named is None and target.shares is not None
    # normalised to sum to 1 (as scipy's jensenshannon does with TREC's targets)
    assert target.shares.rows() == [("g1", 0.75), ("g2", 0.25)]
    assert target.shares.columns == [GROUP, SHARE]


@pytest.mark.parametrize("form", ["dict", "rows", "polars", "parquet", "renamed"])
def test_a_target_per_query_in_every_form(form: str, tmp_path: Path) -> None:
    table = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "group": ["x", "y", "x"], "share": [0.2, 0.6, 5.0]})
    objs: dict[str, Any] = {
        "dict": {"q1": {"x": 0.2, "y": 0.6}, "q2": {"x": 5}},
        "rows": [("q1", "x", 0.2), ("q1", "y", 0.6), ("q2", "x", 5)], "polars": table,
        "renamed": table.rename({"query_id": "topic", "group": "geo", "share": "p"}),
    }
    if form == "parquet":
        table.write_parquet(tmp_path / "t.parquet")
        objs[form] = tmp_path / "t.parquet"
    names = {"query_id": "topic", "group": "geo", "share": "p"} if form == "renamed" else None
    target = read_target(objs[form], COLUMNS, names)
    assert target.per_query and target.shares is not None
    assert target.shares.columns == ["query_id", GROUP, SHARE]
    assert target.shares.rows() == [("q1", "x", pytest.approx(0.25)), ("q1", "y", pytest.approx(0.75)), ("q2", "x", 1.0)]


@pytest.mark.parametrize("name", ["uniform", "relevant"])
def test_named_targets(name: str) -> None:
    assert read_target(name, COLUMNS) == Target(named=name)  # type: ignore[arg-type]
    assert read_target(Target(named=name), COLUMNS).named == name  # type: ignore[arg-type]


@pytest.mark.parametrize(("obj", "error", "words"), [
    ({}, EmptyInputError, "the target distribution (target=) is empty"),
    ({"q": {}}, EmptyInputError, "no query has a share"),
    ({"x": 0, "y": 0}, InvalidValueError, "the shares are all 0; a target needs a positive share"),
    ({"q1": {"x": 1}, "q2": {"x": 0}}, InvalidValueError, "the shares of query 'q2' are all 0"),
    ({"x": -0.5}, InvalidValueError, "group 'x' has the share -0.5; a share is a finite number ≥ 0"),
    ({"q": {"x": float("nan")}}, InvalidValueError, "query 'q', group 'x' has the share nan"),
    ({"x": None}, InvalidValueError, "has the share None"),
    ({"x": "half"}, ColumnTypeError, "a share must be a number, found 'half'"),
    ([("q", "x", 1), ("q", "x", 2)], DuplicateDocumentError, "gives query 'q' group 'x' more than once"),
    ({"q": {"x": 1}, "y": 1}, UnsupportedInputError, "a dict of both shares and dicts"),
    ("unifrom", InputReadError, "'unifrom' is neither a named target ('uniform', 'relevant') nor a file"),
    (pl.DataFrame({"group": ["x"], "shares": [1.0]}), MissingColumnError,
     "has no column 'share' (its share column). Did you mean 'shares'? (pass target_columns={'share': 'shares'})"),
    (pl.DataFrame({"group": ["x"], "share": ["1"]}), ColumnTypeError, "the column 'share' must hold numbers"),
    (pl.DataFrame({"query_id": [None], "group": ["x"], "share": [1.0]}), InvalidValueError, "holds 1 NULL query(s)"),
])
def test_target_faults_name_the_input_column_and_value(obj: Any, error: type[Exception], words: str) -> None:
    with pytest.raises(error) as info:
        read_target(obj, COLUMNS)
    assert words in str(info.value)


# -- the side inputs' declarations, Python's keywords and the command line's flags ----------------


def test_groups_and_target_are_declared_once() -> None:
    for keyword in ("groups", "target"):
        side = SIDE_INPUTS[keyword]
        assert side.options == (f"{keyword}_columns",) and side.flag == f"--{keyword}"
    reading = Reading.from_options({"groups": {"a": "x"}, "target": "uniform", "groups_columns": {"group": "g"}})
    assert reading.read_side("groups", COLUMNS) is None or reading.read_side("target", COLUMNS) == Target(named="uniform")
    assert Reading().read_side("groups", COLUMNS) is None and Reading().read_side("target", COLUMNS) is None


@pytest.mark.parametrize(("keyword", "mapping", "words"), [
    ("groups_columns", {"grp": "g"}, "groups_columns has no key 'grp' (did you mean 'group'?): its keys are "
     "['doc_id', 'group', 'weight'], each mapped to the groups' own name of that column, e.g. groups_columns={'group': 'x'}"),
    ("target_columns", {"shares": "p"}, "target_columns has no key 'shares' (did you mean 'share'?)"),
    ("target_columns", {"share": ""}, "target_columns['share'] must be a column name"),
])
def test_column_keywords_checked(keyword: str, mapping: dict[str, str], words: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        rw.evaluate({"q": {"a": 1.0}}, {"q": {"a": 1}}, ["P@1"], **{keyword: mapping})
    assert words in str(info.value)


def test_the_command_line_flags_give_the_python_keywords(tmp_path: Path) -> None:
    from rankwise.cli.arguments import build_parser

    args = build_parser().parse_args([
        "eval", "qrels", "run", "--groups", "g.csv", "--groups-doc-id-col", "page", "--groups-group-col", "geo",
        "--groups-weight-col", "w", "--target", "uniform", "--target-share-col", "p",
    ])
    options = read_options(args)
    assert options["groups"] == "g.csv" and options["target"] == "uniform"  # type: ignore[typeddict-item]
    assert options["groups_columns"] == {"doc_id": "page", "group": "geo", "weight": "w"}  # type: ignore[typeddict-item]
    assert options["target_columns"] == {"share": "p"}  # type: ignore[typeddict-item]
    assert isinstance(args, argparse.Namespace)


def test_frames_of_other_libraries_read_alike() -> None:
    arrow = pa.table({"doc_id": ["a"], "group": ["x"]})
    pandas = pd.DataFrame({"doc_id": ["a"], "group": ["x"]})
    assert read_groups(arrow, COLUMNS).rows() == read_groups(pandas, COLUMNS).rows() == [("a", "x", 1.0)]


# -- AWRF and nDCG_AWRF against TREC Fair Ranking's code (tests/data/beyond/fairness_goldens.json) --------

GOLDENS = json.loads((Path(__file__).parents[1] / "data" / "beyond" / "fairness_goldens.json").read_text())
TREC_ENGINES = ("polars", "polars-lazy", "duckdb", "to_sql")
TREC_TOLERANCE = 1e-6
"""TREC's code computes its discounts in float32 (``np.require(ranks, 'f4')``), rankwise in float64: 1e-6,
absolute or relative (the group exposures of Task 2 reach about 100)."""


def _case_frames(case: dict[str, Any]) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, Any]:
    """qrels, run, groups (doc_id, group, weight) and the target (a frame per query, or its name)."""
    ids = pl.Int64 if case["ids"] == "int" else pl.String
    run = pl.DataFrame(case["run"], schema={"query_id": ids, "doc_id": ids, "score": pl.Float64}, orient="row")
    qrels = pl.DataFrame(case["qrels"], schema={"query_id": ids, "doc_id": ids, "relevance": pl.Int64}, orient="row")
    groups = pl.DataFrame(case["groups"], schema={"doc_id": ids, "group": pl.String, "weight": pl.Float64}, orient="row")
    target = case["target"]
    if isinstance(target, dict):
        target = pl.DataFrame(
            [(q, g, s) for q, shares in target.items() for g, s in shares.items()],
            schema={"query_id": ids, "group": pl.String, "share": pl.Float64}, orient="row",
        )
    return qrels, run, groups, target


def fair_on(engine: str, qrels: pl.DataFrame, run: pl.DataFrame, groups: Any, target: Any, metrics: list[str],
            **kw: Any) -> pl.DataFrame:
    """Evaluate through one engine's entry point; ``to_sql``: the statement run by DuckDB over
    registered tables (a target frame as a table, per query when it has the query column)."""
    if engine != "to_sql":
        return run_on(engine, qrels, run, metrics, groups=groups, target=target, **kw)
    con = rw.register(duckdb.connect())
    for name, frame in (("run", run), ("qrels", qrels), ("doc_groups", groups)):
        con.register(name, frame)
    named: dict[str, Any] = {"groups_columns": {"weight": "weight"}}
    if isinstance(target, pl.DataFrame):
        con.register("targets", target)
        named["target"] = "targets"
        if "query_id" in target.columns:
            named["target_columns"] = {"query_id": "query_id"}
    else:
        named["target"] = target
    return con.sql(rw.to_sql(metrics, groups="doc_groups", **named, **kw)).pl()


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", TREC_ENGINES)
@pytest.mark.parametrize("case", GOLDENS["cases"], ids=lambda c: c["name"])
def test_trec_fair_ranking_values(case: dict[str, Any], engine: str) -> None:
    """Every query TREC's code scores has its value (2021's qr_awrf and qr_ndcg, 2022's AWRFMetric;
    NaN as NULL); the queries it cannot score (no target: no relevant document with a group under
    'relevant') are NULL here."""
    qrels, run, groups, target = _case_frames(case)
    metrics = sorted(case["trec"])
    got = fair_on(engine, qrels, run, groups, target, metrics, missing="zero")
    ours = {str(row["query_id"]): row for row in got.iter_rows(named=True)}
    for metric in metrics:
        theirs = case["trec"][metric]
        for query in {str(q) for q, _, _ in case["run"]} & {str(q) for q, _, _ in case["qrels"]}:
            value, want = ours[query][metric], theirs.get(query)
            assert (value is None) == (want is None), (metric, query, value, want)
            if want is not None:
                assert value == pytest.approx(want, abs=TREC_TOLERANCE, rel=TREC_TOLERANCE), (metric, query)


def test_the_goldens_hold_the_edges() -> None:
    """What the goldens record of TREC's edges, as rankwise documents them: a ranking without a known
    group scores the uniform distribution's value in 2021 and NaN in 2022; a query without a relevant
    document has no nDCG (NaN); the ranks 1 and 2 share the discount 1."""
    hand = GOLDENS["cases"][0]["trec"]
    uniform = 1 - _jsd([0.5, 0.5], [0.3, 0.7])
    assert hand["AWRF@10"]["q2"] == pytest.approx(uniform, abs=1e-12)
    assert hand["AWRF(definition='trec2022')@10"]["q2"] is None
    no_relevant = GOLDENS["cases"][1]
    assert all(v is None for k, v in ((k, no_relevant["trec"][k]["q2"]) for k in no_relevant["trec"]) if "nDCG" in k)


def _jsd(p: list[float], q: list[float]) -> float:
    """The Jensen-Shannon divergence (natural log) of two distributions, written out."""
    m = [(a + b) / 2 for a, b in zip(p, q, strict=True)]
    kl = lambda x, y: sum(a * math.log(a / b) for a, b in zip(x, y, strict=True) if a > 0)  # noqa: E731
    return (kl(p, m) + kl(q, m)) / 2


# -- hand values at the edges ---------------------------------------------------------------------------

EDGE_RUN = pl.DataFrame({
    "query_id": ["q1", "q1", "q2", "q2", "q3", "q4", "q4", "q5", "q5"],
    "doc_id": ["a", "b", "u", "v", "m", "x", "a", "z", "b"],
    "score": [2.0, 1.0, 2.0, 1.0, 1.0, 2.0, 1.0, 2.0, 1.0],
})
EDGE_QRELS = pl.DataFrame({
    "query_id": ["q1", "q1", "q2", "q3", "q4", "q4", "q4", "q5", "q6"],
    "doc_id": ["a", "b", "u", "m", "a", "b", "c", "z", "a"],
    "relevance": [1, 1, 1, 2, 1, 1, 1, 0, 1],
})
EDGE_GROUPS = {"a": "g1", "b": "g2", "c": "g1", "m": {"g1": 0.25, "g2": 0.75}, "z": {"g1": 0.0}, "w": "g3"}
"""q1 lists a (g1), b (g2); q2 two unknown documents; q3 m alone (g1 0.25, g2 0.75); q4 x (unknown)
then a; q5 z (in g1 with weight 0: no exposure) then b; q6 nothing (missing='zero'). w, in g3, is
listed nowhere."""


def _edge(metrics: list[str], engine: str, **kw: Any) -> dict[str, dict[str, Any]]:
    got = run_on(engine, EDGE_QRELS, EDGE_RUN, metrics, groups=kw.pop("groups", EDGE_GROUPS), missing="zero", **kw)
    return {m: dict(zip(got["query_id"].to_list(), got[m].to_list(), strict=True)) for m in metrics}


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ["polars", "polars-lazy", "duckdb"])
def test_awrf_hand_values(engine: str) -> None:
    """Each written out from the definition: a = the groups' shares of Σ_{i ≤ k} w_g(d_i) /
    log2(max(i, 2)), AWRF = 1 − JSD(a, t) (natural log)."""
    target = {"q1": {"g1": 0.5, "g2": 0.5}, "q2": {"g1": 0.3, "g2": 0.7}, "q3": {"g1": 0.25, "g2": 0.75},
              "q4": {"g1": 0.5, "g2": 0.5}, "q5": {"g1": 0.5, "g2": 0.5}}
    got = _edge(["AWRF@2", "AWRF@1", "AWRF(definition='trec2022')@2", "AWRF@10"], engine, target=target)
    # ranks 1 and 2 share the discount 1: a = (1/2, 1/2), the target itself
    assert got["AWRF@2"]["q1"] == 1.0
    # the top 1 holds g1 alone: JSD((1, 0), (1/2, 1/2)) = ln 2 − (3/4) ln(3/2) ... written out
    assert got["AWRF@1"]["q1"] == pytest.approx(1 - _jsd([1.0, 0.0], [0.5, 0.5]), abs=1e-15)
    # nothing known: 2021, the uniform distribution's value; 2022, none
    assert got["AWRF@2"]["q2"] == pytest.approx(1 - _jsd([0.5, 0.5], [0.3, 0.7]), abs=1e-15)
    assert got["AWRF(definition='trec2022')@2"]["q2"] is None
    # a document's weights over two groups are its distribution: the target's own
    assert got["AWRF@1"]["q3"] == pytest.approx(1.0, abs=1e-15)
    # an unknown document's rank adds nothing; a known one alone further down decides
    assert got["AWRF@2"]["q4"] == got["AWRF@1"]["q1"]
    assert got["AWRF@1"]["q4"] == pytest.approx(1 - _jsd([0.5, 0.5], [0.5, 0.5]), abs=1e-15)
    assert got["AWRF(definition='trec2022')@2"]["q4"] == got["AWRF@1"]["q1"]
    # a weight of 0 gives no exposure: z at rank 1 is as unknown
    assert got["AWRF@2"]["q5"] == pytest.approx(1 - _jsd([0.0, 1.0], [0.5, 0.5]), abs=1e-15)
    # a list shorter than k: its whole length
    assert got["AWRF@10"]["q1"] == got["AWRF@2"]["q1"]
    # no list (missing='zero') and no target: no value
    assert got["AWRF@2"]["q6"] is None


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_named_and_default_targets(engine: str) -> None:
    """'uniform': the same share for every group of groups= (g3 too, which no list holds);
    'relevant' (the default): each group's share of the query's relevant documents' weights,
    every group of groups= taking part (a group without one: share 0); a query whose relevant
    documents have no group has no target."""
    uniform = _edge(["AWRF@2"], engine, target="uniform")["AWRF@2"]
    assert uniform["q1"] == pytest.approx(1 - _jsd([0.5, 0.5, 0.0], [1 / 3] * 3), abs=1e-15)
    default = _edge(["AWRF@2"], engine)["AWRF@2"]
    assert default == _edge(["AWRF@2"], engine, target="relevant")["AWRF@2"]
    # q1: relevant a (g1), b (g2): (1/2, 1/2, 0), the exposure's own
    assert default["q1"] == pytest.approx(1.0, abs=1e-15)
    # q3: relevant m: (1/4, 3/4, 0), m's own weights
    assert default["q3"] == pytest.approx(1.0, abs=1e-15)
    # q4: relevant a, b, c: (2/3, 1/3, 0) against a alone (1, 0, 0)
    assert default["q4"] == pytest.approx(1 - _jsd([1.0, 0.0, 0.0], [2 / 3, 1 / 3, 0.0]), abs=1e-15)
    # q2: its relevant u has no group; q5: no relevant document: no target
    assert default["q2"] is None and default["q5"] is None


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_a_target_names_its_groups(engine: str) -> None:
    """A target's groups are the distribution's (TREC's alignment columns): a document's weight in
    another group counts for none; a query the per-query target leaves out has no value; shares
    are normalised."""
    got = _edge(["AWRF@2"], engine, target={"q1": {"g1": 2.0, "g3": 2.0}, "q3": {"g2": 1.0}})["AWRF@2"]
    # q1: b's g2 is not the target's: a = (1, 0) over (g1, g3) against (1/2, 1/2)
    assert got["q1"] == pytest.approx(1 - _jsd([1.0, 0.0], [0.5, 0.5]), abs=1e-15)
    # q3: m's g2 share alone: a = (1), the target
    assert got["q3"] == pytest.approx(1.0, abs=1e-15)
    assert got["q4"] is None


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_ndcg_awrf_hand_values(engine: str) -> None:
    """nDCG with TREC's discount 1/log2(max(i, 2)), binary gain, the ideal over every relevant
    document (retrieved or not), times AWRF; NULL without a relevant document (TREC: NaN)."""
    target = {q: {"g1": 0.5, "g2": 0.5} for q in ("q1", "q2", "q3", "q4", "q5")}
    got = _edge(["nDCG_AWRF@2", "AWRF@2", "nDCG_AWRF(rel=2)@2"], engine, target=target)
    # q1: a, b both relevant, both discounted by 1: nDCG 1
    assert got["nDCG_AWRF@2"]["q1"] == got["AWRF@2"]["q1"] == 1.0
    # q4: x, a with a, b, c relevant: nDCG@2 = (1/log2 2) / (1 + 1) = 1/2
    assert got["nDCG_AWRF@2"]["q4"] == pytest.approx(0.5 * got["AWRF@2"]["q4"], abs=1e-15)
    # q5: nothing relevant; rel=2: only q3's m is relevant
    assert got["nDCG_AWRF@2"]["q5"] is None
    assert got["nDCG_AWRF(rel=2)@2"]["q1"] is None
    assert got["nDCG_AWRF(rel=2)@2"]["q3"] == got["AWRF@2"]["q3"]


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_group_expected_exposure_hand_values(engine: str) -> None:
    """TREC 2021 Task 2 of one sequence: A_g = Σ w_g(d_i) / log2(max(i, 2)), t_g = share_g ×
    Σ_{i ≤ 50} 1 / log2(max(i, 2)); L = ‖A − t‖², D = ‖A‖², R = A·t."""
    available = 1 + sum(1 / math.log2(i) for i in range(2, 51))
    target = {"q1": {"g1": 0.5, "g2": 0.5}, "q2": {"g1": 0.3, "g2": 0.7}, "q4": {"g1": 0.5, "g2": 0.5}}
    got = _edge(["GroupEE_L", "GroupEE_D", "GroupEE_R", "GroupEE_D@1"], engine, target=target)
    # q1: a (g1) and b (g2) at ranks 1 and 2, both discounted by 1: A = (1, 1)
    t = [0.5 * available, 0.5 * available]
    assert got["GroupEE_D"]["q1"] == 2.0 and got["GroupEE_D@1"]["q1"] == 1.0
    assert got["GroupEE_R"]["q1"] == pytest.approx(t[0] + t[1], rel=1e-15)
    assert got["GroupEE_L"]["q1"] == pytest.approx((1 - t[0]) ** 2 + (1 - t[1]) ** 2, rel=1e-15)
    # q2: nothing known: A = 0, L = ‖t‖²
    assert got["GroupEE_L"]["q2"] == pytest.approx((0.3 * available) ** 2 + (0.7 * available) ** 2, rel=1e-15)
    assert got["GroupEE_D"]["q2"] == 0.0
    # q4: x unknown at rank 1, a (g1) at rank 2: A = (1, 0); q3 has no target: no value
    assert got["GroupEE_D"]["q4"] == 1.0 and got["GroupEE_D"]["q3"] is None


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ["polars", "polars-lazy", "duckdb"])
def test_trec2022_eel_hand_values(engine: str) -> None:
    """TREC 2022 Task 2's EEL (GroupEE_*(definition='trec2022')) of one sequence: A_g = Σ over the
    relevant documents (relevance ≥ rel) of w_g(d_i) / log2(max(i, 2)), t_g = share_g × Σ_{i ≤ 20}
    1 / log2(max(i, 2)); L = ‖A − t‖², D = ‖A‖², R = A·t."""
    available = 1 + sum(1 / math.log2(i) for i in range(2, 21))
    shares = {"g1": 0.4, "g2": 0.6}
    target = {q: shares for q in ("q1", "q3", "q4", "q5")}
    names = [f"GroupEE_{m}(definition='trec2022')" for m in "LDR"]
    got = _edge([*names, "GroupEE_D(definition='trec2022')@1"], engine, target=target)
    loss, disparity, relevance = names
    t = [0.4 * available, 0.6 * available]

    def want(a: list[float]) -> tuple[float, float, float]:
        return (sum((x - y) ** 2 for x, y in zip(a, t, strict=True)), sum(x * x for x in a),
                sum(x * y for x, y in zip(a, t, strict=True)))

    # q1: a (g1) and b (g2), both relevant, at ranks 1 and 2 (both discounted by 1): A = (1, 1)
    # q3: m alone (g1 0.25, g2 0.75), the single relevant page (TREC's script raises a TypeError there)
    # q4: x (unknown, unjudged) then a (relevant, g1): A = (1, 0)
    # q5: z (relevance 0) then b (unjudged): no relevant document listed, A = 0
    for query, a in (("q1", [1.0, 1.0]), ("q3", [0.25, 0.75]), ("q4", [1.0, 0.0]), ("q5", [0.0, 0.0])):
        wl, wd, wr = want(a)
        assert got[loss][query] == pytest.approx(wl, rel=1e-15), query
        assert got[disparity][query] == pytest.approx(wd, rel=1e-15, abs=0.0), query
        assert got[relevance][query] == pytest.approx(wr, rel=1e-15, abs=0.0), query
    assert got["GroupEE_D(definition='trec2022')@1"]["q1"] == 1.0
    assert got["GroupEE_D(definition='trec2022')@1"]["q4"] == 0.0
    # q2: no target (none given), q6: no list: no value
    assert got[loss]["q2"] is None and got[loss]["q6"] is None
    # 2021's Task 2 counts q5's b (g2) all the same
    assert _edge(["GroupEE_D"], engine, target=target)["GroupEE_D"]["q5"] == 1.0


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_trec2022_eel_reads_the_rel_convention(engine: str) -> None:
    """rel=2: only q3's m (relevance 2) is relevant; q1's a and b give no exposure."""
    available = 1 + sum(1 / math.log2(i) for i in range(2, 21))
    got = _edge(["GroupEE_L(definition='trec2022')"], engine, target={"g1": 0.5, "g2": 0.5}, rel=2)
    values = got["GroupEE_L(definition='trec2022')"]
    assert values["q1"] == pytest.approx(2 * (0.5 * available) ** 2, rel=1e-15)
    assert values["q3"] == pytest.approx((0.25 - 0.5 * available) ** 2 + (0.75 - 0.5 * available) ** 2, rel=1e-15)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
def test_trec2022_eel_on_the_command_line_and_in_spark_sql(tmp_path: Path) -> None:
    """--groups with GroupEE_L(definition='trec2022') gives evaluate()'s values; to_sql's Spark
    dialect spells its macro out."""
    from tests.cli.test_cli import cli

    run, qrels, groups = tmp_path / "run.parquet", tmp_path / "qrels.parquet", tmp_path / "groups.csv"
    EDGE_RUN.write_parquet(run)
    EDGE_QRELS.write_parquet(qrels)
    pl.DataFrame([("a", "g1"), ("b", "g2"), ("c", "g1"), ("m", "g2")], schema=["doc_id", "group"], orient="row").write_csv(groups)
    metric = "GroupEE_L(definition='trec2022')"
    out = cli("eval", str(qrels), str(run), "-m", metric, "--groups", str(groups), "--target", "uniform", "-q",
              "--format", "csv")
    assert out.returncode == 0, out.stderr
    got = {r["query_id"]: r[metric] for r in pl.read_csv(out.stdout.encode()).iter_rows(named=True)}
    want = rw.evaluate(EDGE_QRELS, EDGE_RUN, [metric], groups=groups, target="uniform")
    assert want.height > 0
    for query, value in want.iter_rows():
        assert got[query] == pytest.approx(value, abs=1e-12), query
    sql = rw.to_sql([metric], dialect="spark", groups="g", target="uniform")
    assert "rw_trec_relevant_exposure" not in sql and "max_by(" in sql


EEL_CASES = [c for c in GOLDENS["cases"] if c["trec2022_eel"]]


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", TREC_ENGINES)
@pytest.mark.parametrize("case", EEL_CASES, ids=lambda c: c["name"])
def test_trec2022_eel_values(case: dict[str, Any], engine: str) -> None:
    """TREC 2022's EELMetric (only_rel=True, target_len=20) of every query it scores (two relevant
    documents or more): GroupEE_*(definition='trec2022')@k's values."""
    qrels, run, groups, target = _case_frames(case)
    metrics = sorted(case["trec2022_eel"])
    got = fair_on(engine, qrels, run, groups, target, metrics)
    ours = {str(row["query_id"]): row for row in got.iter_rows(named=True)}
    for metric in metrics:
        for query, want in case["trec2022_eel"][metric].items():
            assert ours[query][metric] == pytest.approx(want, abs=TREC_TOLERANCE, rel=TREC_TOLERANCE), (metric, query)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("case", EEL_CASES, ids=lambda c: c["name"])
def test_trec2022_eel_values_on_spark(spark: Any, case: dict[str, Any]) -> None:
    """rw.spark.evaluate: TREC 2022's EEL values."""
    qrels, run, groups, target = _case_frames(case)
    metrics = sorted(case["trec2022_eel"])

    def df(frame: pl.DataFrame) -> Any:
        return spark.createDataFrame(frame.to_pandas())

    result = rw.spark.evaluate(df(qrels), df(run), metrics, groups=df(groups),
                               target=df(target) if isinstance(target, pl.DataFrame) else target)
    ours = {str(row["query_id"]): row for row in pl.from_pandas(result.toPandas()).iter_rows(named=True)}
    for metric in metrics:
        for query, want in case["trec2022_eel"][metric].items():
            assert ours[query][metric] == pytest.approx(want, abs=TREC_TOLERANCE, rel=TREC_TOLERANCE), (metric, query)


# -- random data against the definition written out ---------------------------------------------------


def _awrf_by_hand(ranking: list[str], weights: dict[str, dict[str, float]], target: dict[str, float],
                  k: int, definition: str) -> float | None:
    """AWRF@k written out from TREC's definition (see the module's references)."""
    groups = sorted(target)
    total_share = sum(target.values())
    t = [target[g] / total_share for g in groups]
    a = [0.0] * len(groups)
    for i, d in enumerate(ranking[:k], 1):
        for j, g in enumerate(groups):
            a[j] += weights.get(d, {}).get(g, 0.0) / max(1.0, math.log2(i))
    s = sum(a)
    if s == 0:
        return 1 - _jsd([1 / len(groups)] * len(groups), t) if definition == "trec2021" else None
    return 1 - _jsd([x / s for x in a], t)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(case=cases(), k=st.integers(1, 6), definition=st.sampled_from(["trec2021", "trec2022"]),
       named=st.sampled_from(["uniform", "given"]), engine=st.sampled_from(["polars", "duckdb"]))
def test_random_data_against_the_definition(case: Case, k: int, definition: str, named: str, engine: str) -> None:
    """Random runs (ties broken as trec_eval breaks them), groups with zero and split weights and
    unknown documents, a uniform or a drawn target."""
    run, qrels = case.run_frame(), case.qrels_frame()
    names = sorted({g for w in case.groups.values() for g in w})
    target: Any = "uniform" if named == "uniform" else {g: float(i + 1) for i, g in enumerate(names)}
    metric = f"AWRF(definition='{definition}')@{k}"
    got = rw.evaluate(qrels, run, [metric], groups=case.groups, target=target, engine=engine)  # type: ignore[arg-type]
    shares = {g: 1.0 for g in names} if named == "uniform" else target
    for query, value in got.iter_rows():
        docs = case.run[query]
        ranking = sorted(sorted(docs, reverse=True), key=lambda d: -docs[d])  # score desc, then doc id desc
        want = _awrf_by_hand(ranking, case.groups, shares, k, definition)
        assert (value is None) == (want is None), (query, value, want)
        if want is not None:
            assert value == pytest.approx(want, abs=1e-12), (query, ranking)


# -- the command line, to_sql's checks, compare ----------------------------------------------------------


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
def test_the_command_line(tmp_path: Path) -> None:
    """--groups and --target files give evaluate()'s values; a metric reading the groups without
    --groups, and a faulty groups file, are one line naming them, exit 2."""
    from tests.cli.test_cli import cli

    run, qrels = tmp_path / "run.parquet", tmp_path / "qrels.parquet"
    EDGE_RUN.write_parquet(run)
    EDGE_QRELS.write_parquet(qrels)
    groups = tmp_path / "groups.csv"
    pl.DataFrame([(d, g, w) for d, ws in {"a": {"g1": 1.0}, "b": {"g2": 1.0}, "m": {"g1": 0.25, "g2": 0.75}}.items()
                  for g, w in ws.items()], schema=["page", "group", "weight"], orient="row").write_csv(groups)
    target = tmp_path / "target.csv"
    pl.DataFrame({"query_id": ["q1", "q1", "q3", "q3"], "group": ["g1", "g2", "g1", "g2"],
                  "p": [0.5, 0.5, 0.1, 0.9]}).write_csv(target)
    out = cli("eval", str(qrels), str(run), "-m", "AWRF@2", "-m", "nDCG_AWRF@2", "--groups", str(groups),
              "--groups-doc-id-col", "page", "--target", str(target), "--target-share-col", "p", "-q", "--format", "csv")
    assert out.returncode == 0, out.stderr
    got = pl.read_csv(out.stdout.encode())
    want = rw.evaluate(EDGE_QRELS, EDGE_RUN, ["AWRF@2", "nDCG_AWRF@2"], groups=groups, groups_columns={"doc_id": "page"},
                       target=target, target_columns={"share": "p"})
    rows = {r["query_id"]: r for r in got.iter_rows(named=True) if r["query_id"] != "all"}
    for row in want.iter_rows(named=True):
        for m in ("AWRF@2", "nDCG_AWRF@2"):
            assert (rows[row["query_id"]][m] is None) == (row[m] is None)
            if row[m] is not None:
                assert rows[row["query_id"]][m] == pytest.approx(row[m], abs=1e-12)
    out = cli("eval", str(qrels), str(run), "-m", "AWRF@2", "--groups", str(groups), "--groups-doc-id-col", "page",
              "--target", "uniform", "-q")
    assert out.returncode == 0, out.stderr
    out = cli("eval", str(qrels), str(run), "-m", "AWRF@2")
    assert out.returncode == 2 and out.stderr.strip().splitlines() == [
        "rankwise: error: AWRF@2 reads the document groups, each document's group or its weights over groups: "
        "pass --groups FILE"
    ]
    out = cli("eval", str(qrels), str(run), "-m", "AWRF@2", "--groups", str(groups))
    assert out.returncode == 2 and out.stderr.startswith(
        "rankwise: error: the document groups (groups=) have no column 'doc_id' (its doc_id column)."
    )
    out = cli("eval", str(qrels), str(run), "-m", "AWRF@2", "--groups", str(groups), "--groups-doc-id-col", "page",
              "--target", "unifrom")
    assert out.returncode == 2 and "'unifrom' is neither a named target" in out.stderr
    page = cli("metrics", "nDCG_AWRF")
    assert page.returncode == 0 and "reads:       the document groups: --groups FILE (groups= in Python)" in page.stdout


@pytest.mark.parametrize(("table", "target", "words"), [
    (pl.DataFrame({"doc_id": ["a", "a"], "group": ["g1", "g1"]}), None,
     "the document groups (groups=) give 1 (document, group) pair(s) more than once"),
    (pl.DataFrame({"doc_id": ["a", None], "group": ["g1", "g1"]}), None, "hold 1 NULL document(s)"),
    (pl.DataFrame({"doc_id": ["a"], "group": [None]}, schema={"doc_id": pl.String, "group": pl.String}), None,
     "hold 1 NULL group(s)"),
    (pl.DataFrame({"doc_id": ["a"], "group": ["g1"], "weight": [-1.0]}), None, "hold 1 weight(s) that are NULL, NaN"),
    (pl.DataFrame({"doc_id": ["a"], "group": ["g1"], "weight": [float("inf")]}), None, "infinite or negative"),
    (pl.DataFrame({"doc_id": ["a"], "group": ["g1"]}), pl.DataFrame({"group": ["g1"], "share": [0.0]}),
     "gives 1 query(s) shares that are all 0"),
    (pl.DataFrame({"doc_id": ["a"], "group": ["g1"]}), pl.DataFrame({"group": ["g1", "g1"], "share": [1.0, 1.0]}),
     "the target distribution (target=) gives 1 (query, group) pair(s) more than once"),
    (pl.DataFrame({"doc_id": ["a"], "group": ["g1"]}), pl.DataFrame({"group": ["g1"], "share": [float("nan")]}),
     "holds 1 share(s) that are NULL, NaN, infinite or negative"),
])
def test_to_sql_checks_the_groups_and_the_target(table: pl.DataFrame, target: pl.DataFrame | None, words: str) -> None:
    con = rw.register(duckdb.connect())
    con.register("run", EDGE_RUN)
    con.register("qrels", EDGE_QRELS)
    con.register("doc_groups", table)
    named: dict[str, Any] = {"groups_columns": {"weight": "weight"}} if "weight" in table.columns else {}
    if target is not None:
        con.register("targets", target)
        named["target"] = "targets"
    with pytest.raises(duckdb.Error, match=r"rankwise: .*" + re.escape(words)):
        con.sql(rw.to_sql(["AWRF@2"], groups="doc_groups", **named)).fetchall()
    # check=False: the statement runs as the rows are
    if target is None and "weight" not in table.columns:
        con.sql(rw.to_sql(["AWRF@2"], groups="doc_groups", check=False, **named)).fetchall()


def test_to_sql_refuses_the_metric_without_the_groups_table() -> None:
    with pytest.raises(InvalidParameterError, match=re.escape("AWRF@2 reads the document groups: pass groups= (the table's name)")):
        rw.to_sql(["AWRF@2"])


def test_to_sql_spark_dialect_spells_it() -> None:
    sql = rw.to_sql(["AWRF@2", "nDCG_AWRF@5"], dialect="spark", groups="g", target="t", target_columns={"query_id": "q"})
    assert "max_by(" in sql and "raise_error(" in sql and "lambda" not in sql and "VARCHAR" not in sql


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
def test_compare_reads_the_groups() -> None:
    """compare passes groups= and target= to each run's evaluation: its means are evaluate()'s."""
    other = EDGE_RUN.with_columns(-pl.col("score"))
    got = rw.compare(EDGE_QRELS, {"a": EDGE_RUN, "b": other}, ["AWRF@1", "P@1"], groups=EDGE_GROUPS, target="uniform")
    row = got.filter(pl.col("metric") == "AWRF@1").row(0, named=True)
    a = rw.evaluate(EDGE_QRELS, EDGE_RUN, ["AWRF@1"], groups=EDGE_GROUPS, target="uniform")["AWRF@1"].mean()
    b = rw.evaluate(EDGE_QRELS, other, ["AWRF@1"], groups=EDGE_GROUPS, target="uniform")["AWRF@1"].mean()
    assert (row["baseline_mean"], row["mean"]) == (pytest.approx(a, abs=1e-12), pytest.approx(b, abs=1e-12))
    assert row["diff"] == pytest.approx(b - a, abs=1e-12) and row["diff"] != 0


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("case", GOLDENS["cases"], ids=lambda c: c["name"])
def test_trec_fair_ranking_values_on_spark(spark: Any, case: dict[str, Any]) -> None:
    """rw.spark.evaluate with DataFrames of the groups (their weight column read) and of the
    target (per query: its query column), or a named target: TREC's values."""
    qrels, run, groups, target = _case_frames(case)
    metrics = sorted(case["trec"])

    def df(frame: pl.DataFrame) -> Any:
        return spark.createDataFrame(frame.to_pandas())

    result = rw.spark.evaluate(df(qrels), df(run), metrics, groups=df(groups),
                               target=df(target) if isinstance(target, pl.DataFrame) else target)
    got = pl.from_pandas(result.toPandas())
    ours = {str(row["query_id"]): row for row in got.iter_rows(named=True)}
    for metric in metrics:
        for query, want in case["trec"][metric].items():
            if query not in ours:  # a query without judgments: left out
                continue
            value = ours[query][metric]
            value = None if value is None or (isinstance(value, float) and math.isnan(value)) else value
            assert (value is None) == (want is None), (metric, query, value, want)
            if want is not None:
                assert value == pytest.approx(want, abs=TREC_TOLERANCE, rel=TREC_TOLERANCE), (metric, query)


# -- expected exposure against expeval (its values frozen in the same goldens) ---------------------------

EE_ENGINES = ("polars", "polars-lazy", "duckdb", "to_sql", "expr")
EE_METRICS = {"EE_D": "EE_D", "EE_R": "EE_R", "EE_L": "EE_L"}


def _ee_label(measure: str, um: str) -> str:
    """The rankwise metric of expeval's run ``um`` (``rbp``, ``gerr``, ``-U``: not normalised)."""
    model, _, raw = um.partition("-")
    params = [f"um='{model}'"] + (["normalize=False"] if raw else [])
    return f"{measure}({', '.join(params)})"


def ee_on(engine: str, qrels: pl.DataFrame, run: pl.DataFrame, metrics: list[str]) -> pl.DataFrame:
    """Per-query values through one entry point (``missing='zero'``: expeval scores the queries the
    run lacks); ``expr``: the metric expressions over the judged frame (which holds no query the run
    lacks)."""
    if engine == "to_sql":
        con = rw.register(duckdb.connect())
        con.register("run", run)
        con.register("qrels", qrels)
        return con.sql(rw.to_sql(metrics, missing="zero")).pl()
    if engine == "expr":
        return rw.judged_frame(qrels, run).group_by("query_id").agg(*[rw.expr(m) for m in metrics])
    return run_on(engine, qrels, run, metrics, missing="zero")


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", EE_ENGINES)
@pytest.mark.parametrize("case", GOLDENS["cases"], ids=lambda c: c["name"])
def test_expeval_values(case: dict[str, Any], engine: str) -> None:
    """Every query expeval prints (a query of the judgments with a relevant document; one the run
    lacks with its defaults) has its value, for both browsing models, normalised or not; a query
    without a relevant document has none."""
    qrels, run, _, _ = _case_frames(case)
    metrics = [_ee_label(measure, um) for um in case["expeval"] for measure in EE_METRICS]
    got = ee_on(engine, qrels, run, metrics)
    ours = {str(row["query_id"]): row for row in got.iter_rows(named=True)}
    listed = {str(q) for q, _, _ in case["run"]}
    for um, per_query in case["expeval"].items():
        for measure in EE_METRICS:
            metric = _ee_label(measure, um)
            for query, row in ours.items():
                want = per_query.get(query, {}).get(measure)
                assert (row[metric] is None) == (want is None), (metric, query, row[metric], want)
                if want is not None:
                    assert row[metric] == pytest.approx(want, abs=1e-12), (metric, query)
            # every query expeval prints is scored (the expression API's frame: the run's queries only)
            wanted = set(per_query) if engine != "expr" else set(per_query) & listed
            assert wanted <= set(ours), (metric, wanted - set(ours))


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
def test_expeval_edges_by_hand() -> None:
    """The findings' hand case (expeval's values, cases/hand_cases.py): rbp, p = 0.5, the run d2, d1,
    d3, d4 with d3 of relevance 2 and d1 of 1: ε = (1, 1/2, 1/4, 1/8), ε* = (d3: 1, d1: 1/2)."""
    qrels = {"q": {"d1": 1, "d2": 0, "d3": 2, "d4": 0}, "q2": {"d1": 1}, "q3": {"d1": 2, "d2": 1}, "q4": {"d1": 0}}
    run = {"q": {"d2": 4.0, "d1": 3.0, "d3": 2.0, "d4": 1.0}, "q4": {"d1": 1.0}}
    m = ["EE_D(um='rbp', normalize=False)", "EE_R(um='rbp', normalize=False)", "EE_L(um='rbp', normalize=False)",
         "EE_D(um='rbp')", "EE_R(um='rbp')", "EE_L(um='rbp')", "EE_R(um='rbp')@1"]
    got = {r[0]: r[1:] for r in rw.evaluate(qrels, run, m, missing="zero").rows()}
    d, r, diff = 1 + 1 / 4 + 1 / 16 + 1 / 64, 1 * 1 / 4 + 1 / 2 * 1 / 2, (1 - 1 / 4) ** 2 + (1 / 2 - 1 / 2) ** 2 + 1 + 1 / 64
    assert got["q"][:3] == pytest.approx((d, r, diff), abs=1e-15)
    # normalised: D × (1 − p²); R over Σ ε*² = 5/4; L over Σ ε*² + 1/(1 − p)
    assert got["q"][3:6] == pytest.approx((d * 0.75, r / 1.25, diff / (1.25 + 2)), abs=1e-15)
    # @1: d2 alone (not relevant): R = 0
    assert got["q"][6] == 0.0
    # the run lacks q2 (one level) and q3: D its upper bound 4/3, R 0, L EE-R's upper bound (0 with one level)
    assert got["q2"][:3] == pytest.approx((4 / 3, 0.0, 0.0), abs=1e-15)
    assert got["q3"][:3] == pytest.approx((4 / 3, 0.0, 1 + 1 / 4), abs=1e-15)
    # normalised EE-R with one relevance level: 1, whatever the ranking
    assert got["q2"][4] == 1.0
    # q4 has no relevant document: no value
    assert all(v is None for v in got["q4"])


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_segments_chunks_and_explain_give_the_same_values(engine: str) -> None:
    """by= segments (each (segment, query) key its query's target), query_chunks, and explain's
    last row: evaluate()'s values."""
    target = {"q1": {"g1": 0.2, "g2": 0.8}, "q3": {"g1": 0.5, "g2": 0.5}, "q4": {"g1": 0.9, "g2": 0.1},
              "q5": {"g2": 1.0}, "q2": {"g1": 1.0}}
    metrics = ["AWRF@1", "nDCG_AWRF@2", "AWRF(definition='trec2022')@2", "EE_L", "EE_R(um='rbp')@1"]
    whole = rw.evaluate(EDGE_QRELS, EDGE_RUN, metrics, groups=EDGE_GROUPS, target=target, engine=engine)  # type: ignore[arg-type]
    segmented = EDGE_RUN.with_columns(pl.when(pl.col("query_id") < "q3").then(pl.lit("s1")).otherwise(pl.lit("s2")).alias("seg"))
    by = rw.evaluate(EDGE_QRELS, segmented, metrics, groups=EDGE_GROUPS, target=target, engine=engine, by="seg")  # type: ignore[arg-type]
    assert close_rows(by.drop("seg").sort("query_id").rows(), whole.sort("query_id").rows())
    if engine == "polars":
        chunked = rw.evaluate(EDGE_QRELS, EDGE_RUN, metrics, groups=EDGE_GROUPS, target=target, query_chunks=2)
        assert close_rows(chunked.sort("query_id").rows(), whole.sort("query_id").rows())
        for metric in metrics:
            for query, value in whole.select("query_id", metric).iter_rows():
                table = rw.explain(EDGE_QRELS, EDGE_RUN, metric, query, groups=EDGE_GROUPS, target=target)
                got = table["value"][-1]
                assert (got is None) == (value is None), (metric, query)
                if value is not None:
                    assert got == pytest.approx(value, abs=1e-12), (metric, query)


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_trec2022_eel_segments_chunks_and_explain(engine: str) -> None:
    """GroupEE_*(definition='trec2022') through by= segments, query_chunks and explain's last row:
    evaluate()'s values."""
    target = {"g1": 0.3, "g2": 0.7}
    metrics = ["GroupEE_L(definition='trec2022')", "GroupEE_R(definition='trec2022')@1"]
    whole = rw.evaluate(EDGE_QRELS, EDGE_RUN, metrics, groups=EDGE_GROUPS, target=target, engine=engine)  # type: ignore[arg-type]
    segmented = EDGE_RUN.with_columns(pl.when(pl.col("query_id") < "q3").then(pl.lit("s1")).otherwise(pl.lit("s2")).alias("seg"))
    by = rw.evaluate(EDGE_QRELS, segmented, metrics, groups=EDGE_GROUPS, target=target, engine=engine, by="seg")  # type: ignore[arg-type]
    assert close_rows(by.drop("seg").sort("query_id").rows(), whole.sort("query_id").rows())
    if engine == "polars":
        chunked = rw.evaluate(EDGE_QRELS, EDGE_RUN, metrics, groups=EDGE_GROUPS, target=target, query_chunks=2)
        assert close_rows(chunked.sort("query_id").rows(), whole.sort("query_id").rows())
        for metric in metrics:
            for query, value in whole.select("query_id", metric).iter_rows():
                got = rw.explain(EDGE_QRELS, EDGE_RUN, metric, query, groups=EDGE_GROUPS, target=target)["value"][-1]
                assert got == pytest.approx(value, abs=1e-12), (metric, query)


def _ee_by_hand(ranking: list[str] | None, judged: dict[str, int], um: str, p: float, u: float,
                normalize: bool) -> dict[str, float] | None:
    """expeval's EE-D, EE-R, EE-L written out (retrieval setting; ``ranking`` None: the run lacks the query)."""
    relevant = {d: r for d, r in judged.items() if r > 0}
    if not relevant:
        return None
    pp = p if um == "rbp" else p * (1 - u)
    levels = sorted(set(relevant.values()), reverse=True)
    target, above = {}, 0
    for level in levels:
        docs = [d for d, r in relevant.items() if r == level]
        m = len(docs)
        for d in docs:
            target[d] = (pp ** above - pp ** (above + m)) / (m * (1 - pp))
        above += m
    t2 = sum(t * t for t in target.values())
    d_upper = 1 / (1 - p * p)
    l_upper = t2 + 1 / (1 - (p if um == "rbp" else p * u))
    r_upper = t2 if len(levels) > 1 else 0.0
    if ranking is None:
        d, r, loss = d_upper, 0.0, r_upper
    else:
        exposure, seen = {}, 0
        for i, doc in enumerate(ranking):
            exposure[doc] = p ** i * ((1 - u) ** seen if um == "gerr" else 1.0)
            seen += doc in relevant
        d = sum(e * e for e in exposure.values())
        r = sum(target[doc] * e for doc, e in exposure.items() if doc in target)
        loss = sum((target.get(doc, 0.0) - exposure.get(doc, 0.0)) ** 2 for doc in {*target, *exposure})
    if normalize:
        d, r, loss = d / d_upper, (r / r_upper if r_upper else 1.0), loss / l_upper
    return {"EE_D": d, "EE_R": r, "EE_L": loss}


@pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")
@settings(max_examples=examples(40), deadline=None)
@given(case=cases(), um=st.sampled_from(["rbp", "gerr"]), p=st.sampled_from([0.5, 0.8, 0.3]),
       u=st.sampled_from([0.5, 0.0, 0.9]), normalize=st.booleans(), engine=st.sampled_from(["polars", "duckdb"]))
def test_expected_exposure_against_the_definition(case: Case, um: str, p: float, u: float, normalize: bool,
                                                  engine: str) -> None:
    """Random runs (ties broken as trec_eval breaks them), graded and negative judgments, queries the
    run lacks (missing='zero'), queries without a relevant document."""
    run, qrels = case.run_frame(), case.qrels_frame()
    params = f"um='{um}', p={p}, u={u}, normalize={normalize}"
    metrics = [f"{m}({params})" for m in ("EE_D", "EE_R", "EE_L")]
    got = rw.evaluate(qrels, run, metrics, missing="zero", engine=engine)  # type: ignore[arg-type]
    for row in got.iter_rows(named=True):
        query = row["query_id"]
        docs = case.run.get(query)
        ranking = None if docs is None else sorted(sorted(docs, reverse=True), key=lambda d: -docs[d])
        want = _ee_by_hand(ranking, case.qrels[query], um, p, u, normalize)
        for m, label in zip(("EE_D", "EE_R", "EE_L"), metrics, strict=True):
            if want is None:
                assert row[label] is None, (label, query)
            else:
                assert row[label] == pytest.approx(want[m], abs=1e-12), (label, query, ranking)
