"""Why did a query score what it did? :func:`explain` lays a query's ranking out rank by rank,
for any metric.

Each row is a rank of the query's ranking (as the metric ranks it: ties, ``max_rank`` and
``judged_only`` applied) with the document and its relevance, and then, for each primitive of
the metric's recipe (:mod:`rankwise.metrics.recipes`), its value over the ranking cut at that rank
(e.g. ``relret``, the relevant documents so far; ``dcg_gain``, the DCG so far; the values over
the judgments, such as ``nrel`` or ``idcg``, are the same on every row). ``value`` is the
metric's value had the ranking ended at that rank, and ``contribution`` what that rank added
to it. Where a primitive has a gain or a discount, the row's ``gain`` and ``discount`` are
shown; where it reads the ideal order, the ideal ranking stands beside the ranking
(``ideal_doc_id``, ``ideal_relevance``, ``ideal_gain``). The rows stop at the metric's cutoff (when it
is a rank: PartialAUC's and PAP's k counts non-relevant documents, and their rows go on).
For a C/W/L user model (INST, INSQ, BPM, SDCG, NERR8-11, U, TBG, IFT) each rank also shows its
``gain`` (cwl_eval's, in [0, 1]), ``examination`` (P_i, the chance the user reads it),
``continuation`` (C_i = P_{i+1} / P_i, the chance of going on to the next rank; empty where
P_i = 0 and at the model's ``depth``, where its padded ranking ends), with a cost column
(``cost=``) the rank's ``cost`` (c_i: EC = Σ W_i c_i; U, TBG, BPM and IFT's rate read it in
C_i), ``weight`` (W_i = P_i / ED) and ``expected_utility`` (W_i · g_i: its part of EU, the
parts summing to EU whatever ``value`` is shown).
The last row's ``value`` is the metric's value, as :func:`rankwise.evaluate` computes it, by
the same engine: an off-by-one discount is visible at a glance. (With ``ideal='run'`` the
ideal at a rank is that of the ranking cut there, and the ideal columns are the whole
ranking's.) The values at every rank come from evaluating the ranking cut at every rank: a
ranking of n documents costs about n²/2 rows of work (1,000 documents: a fraction of a second;
a cutoff bounds it).

>>> import polars as pl, rankwise as rw
>>> run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
>>> qrels = pl.DataFrame({"query_id": ["q"] * 2, "doc_id": ["b", "c"], "relevance": [1, 2]})
>>> table = rw.explain(qrels, run, "nDCG@3", "q")
>>> table.select("rank", "doc_id", "gain", pl.col("discount").round(4), "ideal_doc_id").rows()
[(1, 'a', 0.0, 1.0, 'c'), (2, 'b', 1.0, 1.585, 'b'), (3, 'c', 2.0, 2.0, None)]
>>> round(table["value"][-1], 6)
0.619906
>>> rw.explain(qrels, run, "bpref", "q").select("rank", "relevance", "bpref_sum", "nrel", "value").rows()
[(1, None, 0.0, 2.0, 0.0), (2, 1.0, 1.0, 2.0, 0.5), (3, 2.0, 2.0, 2.0, 1.0)]
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

import polars as pl

from rankwise._polars import primitives as prim
from rankwise._polars.columns import ORDER, RANK, REL, SUB, C, D, Q, S
from rankwise._polars.plan import output_plans
from rankwise._polars.prepare import (
    Prepared,
    checked_base_run,
    checked_features,
    checked_train,
    prepare,
)
from rankwise._polars.ranking import ranked, retrieved_judgments
from rankwise.conventions import (
    READ_KEYWORDS,
    Columns,
    Conventions,
    ReadOptions,
    Unpack,
    check_options,
    checked,
)
from rankwise.errors import EmptyQueryError, InvalidParameterError, LabelError, hint_style
from rankwise.evaluation.evaluate import basing, fairing, featuring, side_input, training
from rankwise.inputs.columns import Reading
from rankwise.inputs.faults import engine_faults
from rankwise.metrics.metric import Metric, make_metric
from rankwise.metrics.recipes import CWL_MEASURES, Output, outputs
from rankwise.names.presets import resolve
from rankwise.primitives import (
    BpmExamined,
    CwlCostExamined,
    CwlExamined,
    Gain,
    IdealRank,
    IftExamined,
    InstExamined,
    Primitive,
    leaves,
)


@checked
def explain(
    qrels: Any,
    run: Any,
    metric: str | Metric,
    query: Any,
    **options: Unpack[ReadOptions],
) -> pl.DataFrame:
    """The rank-by-rank table of one metric for one query (see the module docstring); the
    keyword ``options`` are those of :func:`rankwise.evaluate`
    (:class:`~rankwise.conventions.EvaluationOptions`, and each input's own column names:
    :class:`~rankwise.conventions.InputOptions`)."""
    check_options("explain", options, READ_KEYWORDS)
    found, options = cast(tuple[list[Metric], ReadOptions], resolve([metric], options))
    if len(found) != 1:
        raise InvalidParameterError(
            f"explain takes one metric; {metric!r} names {len(found)} "
            f"({', '.join(f.label for f in found[:5])}{', ...' if len(found) > 5 else ''})"
        )
    (m,) = found
    if m.spec.aggregate == "set":
        raise InvalidParameterError(
            f"{m.label} is one value per run (a set-level metric), computed from every user's list: it has no "
            "rank-by-rank value for one query; evaluate(..., per_query=False) gives it"
        )
    conv = Conventions.from_options(options)
    columns = Columns.from_options(options)
    (out,) = outputs([m], conv)
    reading = Reading.from_options(options)
    with hint_style("file_keywords"), engine_faults({"run": run, "qrels": qrels}):
        train = training(reading, [m], conv, columns)
        prep = prepare(
            reading.read(run, "run", columns), reading.read(qrels, "qrels", columns), columns,
            input_order=conv.ties == "input", train=train, features=featuring(reading, [m], conv, columns),
            base_run=basing(reading, [m], conv, columns),
            categories=side_input("categories", reading, [m], conv, columns),
            catalog=side_input("catalog", reading, [m], conv, columns),
            fair=fairing(reading, [m], conv, columns),
        )
        if prep.train is not None:
            prep = replace(prep, train=checked_train(prep.train, columns))
        prep = checked_base_run(checked_features(prep))
        rows = ranked(prep, conv, out.judged_only, docs=True, scores=True).filter(_is_query(query)).sort(RANK).collect()
        judged = prep.qrels.filter(_is_query(query)).collect()
        if judged.is_empty():
            in_run = prep.run.filter(_is_query(query)).select(pl.len()).collect().item() > 0
            if not in_run:
                raise InvalidParameterError(f"query {query!r} is neither in the run nor in the qrels")
            raise InvalidParameterError(
                f"query {query!r} has no judgments: evaluate() leaves it out, as trec_eval does, "
                "so it has no value to explain"
            )
        if conv.judgments == "retrieved":
            # the judgments of the documents the query's list holds; the values by depth then
            # read them as they are (each cut's list is shorter than the query's)
            listed = retrieved_judgments(prep, conv)
            judged, prep = listed.qrels.filter(_is_query(query)).collect(), listed
            if judged.is_empty():
                # none of them listed: still a judged query, with nothing judged in its list; a
                # judgment of no document and no relevance counts for nothing (no label either,
                # for a labels= check) and keeps the query among the judged ones
                judged = pl.DataFrame({Q: [rows[Q][0]], D: [None], REL: [None]}, schema=judged.schema)
        ranking = rows  # the whole ranking: the metric's value reads it (e.g. ideal='run')
        depth = m.cutoff if m.spec.cutoff_is_rank else None
        rows = rows.head(rows.height if depth is None else min(rows.height, depth))
        parts = _parts(out)
        user = _user_model(m, conv)
        try:
            values = _values_by_depth(out, parts, ranking, rows.height, judged, conv, prep, user)
        except EmptyQueryError:  # raised for the cut rankings (each a query of its own): this query
            raise EmptyQueryError.for_queries(m.label, [query]) from None
        except LabelError as refused:  # the same: a label outside the metric's labels rule
            raise refused.naming(query) from None
        if user:  # the chance of reading each rank, from the user model's sums (see _user_model)
            values = _user_model_columns(values, m, columns.cost is not None)
    table = rows.select(pl.col(RANK).alias("rank"), pl.col(D).alias("doc_id"), pl.col(REL).alias("relevance"))
    ideal = _ideal_table(parts, ranking, judged.drop_nulls(D))  # not the judgment of no document
    last = rows.height
    if ideal is not None:  # an ideal list longer than the ranking: its ranks follow
        last = max(last, min(ideal.height, depth or ideal.height))
    # an empty ranking (a query only in the qrels, a judged-only ranking of unjudged documents)
    # is rank 0
    first = 0 if rows.is_empty() else 1
    ranks = pl.int_range(first, last + 1, eager=True, dtype=pl.Int64).alias("rank").to_frame()
    table = ranks.join(table, on="rank", how="left").join(values, on="rank", how="left")
    # beyond the ranking the ranking's value stays (its own value, NULL too: not an earlier rank's)
    carried = pl.exclude("rank", "doc_id", "relevance", *USER_MODEL_COLUMNS)
    end = pl.col("rank") == rows.height  # rank 0 for an empty ranking
    table = table.with_columns(
        pl.when(pl.col("rank") > rows.height).then(carried.filter(end).first()).otherwise(carried).name.keep()
    )
    table = table.with_columns(_row_columns(parts, rows.height))
    if ideal is not None:
        table = table.join(ideal, on="rank", how="left")
    value = pl.col("value")
    if out.value_type == "float":
        table = table.with_columns((value - value.shift(1, fill_value=0.0)).alias("contribution"))
    return table.select(
        "rank", "doc_id", "relevance", pl.col("^gain$", "^discount$"), pl.exclude("rank", "doc_id", "relevance",
        "gain", "discount", "contribution", "value"), pl.col("^contribution$"), value,
    )


USER_MODEL_COLUMNS = ("examination", "continuation", "cost", "weight", "expected_utility")
"""The columns of a C/W/L user model's rows (the rank's own values: not carried past the ranking)."""
_EXAMINED = "__examined"
_DEPTH = "__expected_depth"


def _user_model(m: Metric, conv: Conventions) -> list[Output]:
    """For a C/W/L user model (cwl_eval's measures), the outputs that give the chance of
    reading each rank: Σ_{j≤i} P_j over the ranking cut at rank i (its examined sum), and the
    expected depth ED; none for other metrics."""
    if m.spec.name not in CWL_MEASURES:
        return []
    params = {**dict(m.params), "value": "ED"}
    (depth,) = outputs([make_metric(m.spec, params, m.cutoff)], conv)
    examined = next(
        leaf for leaf in leaves(depth.tree)
        if isinstance(leaf, (CwlExamined, CwlCostExamined, InstExamined, BpmExamined, IftExamined))
    )
    return [Output(_EXAMINED, examined), Output(_DEPTH, depth.tree)]


def _user_model_columns(values: pl.DataFrame, m: Metric, costs: bool = False) -> pl.DataFrame:
    """``examination`` P_i (the chance of reading rank i), ``continuation`` C_i = P_{i+1} / P_i
    (the chance of going on to the next rank), with ``costs`` (a cost column) ``cost`` c_i (the
    rank's cost: EC = Σ W_i c_i), ``weight`` W_i = P_i / ED and ``expected_utility`` W_i · g_i,
    the rank's part of EU (they sum to EU), from the examined sums of the cut rankings (the last
    one holding one more document of gain 0: cwl_eval's padding)."""
    p = m.resolve()
    examine = pl.col(_EXAMINED) - pl.col(_EXAMINED).shift(1, fill_value=0.0)
    nxt = pl.col("examination").shift(-1)
    gain = prim.cwl_gain(pl.col("__relevance"), float(p["min_rel"]), float(p["max_rel"]))
    ed = pl.col(_DEPTH).last()
    return (
        values.sort("rank")
        .with_columns(examine.alias("examination"))
        .with_columns(
            # at rank depth and beyond the padded ranking ends: no next rank
            pl.when((pl.col("examination") > 0) & (pl.col("rank") < int(p["depth"])))
            .then(nxt / pl.col("examination")).alias("continuation"),
            *([pl.col("__cost").alias("cost")] if costs else []),
            (pl.col("examination") / ed).alias("weight"),
            (pl.col("examination") / ed * gain).alias("expected_utility"),
            gain.alias("gain"),
        )
        .filter(pl.col("rank") != pl.col("rank").max())
        .drop(_EXAMINED, _DEPTH, "__relevance", "__cost")
    )


def _row_columns(parts: dict[str, Primitive], ranked_rows: int) -> list[pl.Expr]:
    """The gain and discount of each ranked row, where a primitive over the ranking has them
    (the first one's), on the ranked rows only."""
    run_side = [p for p in parts.values() if p.side == "run"]
    out = []
    in_ranking = pl.col("rank").is_between(1, ranked_rows)
    with_gain = next((p for p in run_side if isinstance(p.values().get("g"), Gain)), None)
    if with_gain is not None:
        g = with_gain.values()["g"]
        assert isinstance(g, Gain)
        out.append(pl.when(in_ranking).then(prim.gain(pl.col("relevance"), g)).alias("gain"))
    with_discount = next((p for p in run_side if "discount" in p.values()), None)
    if with_discount is not None:
        v = with_discount.values()
        disc = prim.discount_of(pl.col("rank"), str(v["discount"]), float(v["base"]))  # type: ignore[arg-type]
        out.append(pl.when(pl.col("rank") >= 1).then(disc).alias("discount"))
    return out


def _is_query(query: Any) -> pl.Expr:
    """Rows of the query: ids compared as text, so that "7" (from the command line) finds
    the integer query 7."""
    return pl.col(Q).cast(pl.String) == str(query)


def _parts(out: Output) -> dict[str, Primitive]:
    """The distinct primitives of the recipe, each under a column name: its binding name, or
    with its fields when two share one."""
    distinct = list(dict.fromkeys(leaves(out.tree)))
    by_name: dict[str, list[Primitive]] = {}
    for leaf in distinct:
        by_name.setdefault(leaf.binding(), []).append(leaf)
    named: dict[str, Primitive] = {}
    for leaf in distinct:
        name, same = leaf.binding(), by_name[leaf.binding()]
        if len(same) > 1:  # named by the fields that tell them apart
            differ = [k for k, v in leaf.values().items() if any(o.values()[k] != v for o in same)]
            name = f"{name}({', '.join(f'{k}={leaf.values()[k]!r}' for k in differ)})"
        named[name] = leaf
    return named


CUT_ROWS = 2_000_000
"""Rows (documents of the cut rankings plus their judgments) evaluated at once by
:func:`_values_by_depth`: a ranking of n documents cut at every rank is n(n + 1)/2 rows."""


def _values_by_depth(
    out: Output, parts: dict[str, Primitive], ranking: pl.DataFrame, depth: int, judged: pl.DataFrame,
    conv: Conventions, prep: Prepared, extra: list[Output] | None = None,
) -> pl.DataFrame:
    """The metric and each primitive over the ranking cut at each rank 1..depth: evaluations by
    the Polars engine of queries the i-th of which holds the top i documents and all the
    query's judgments, the last one the whole ranking (an empty ranking: rank 0), about
    :data:`CUT_ROWS` rows at a time. With ``extra`` outputs (a user model's) those are
    evaluated too, one more cut (rank depth + 1) holds the whole ranking and an unjudged
    document after it, and ``__relevance`` and ``__cost`` are each rank's relevance and cost."""
    n = ranking.height
    subtopics = None if prep.subtopics is None else prep.subtopics.filter(_is_query(judged[Q][0]))
    # the rows are ranked already (judged-only rankings too): no second cut; their scores (as
    # the ranking compared them) rank them again in the same order, and keep their ties (for
    # the metrics that read tie groups)
    by_depth = replace(conv, max_rank=None, missing="zero" if n == 0 else "ignore", judgments="all")
    columns = [Output(name, leaf, out.judged_only, leaf.value_type) for name, leaf in parts.items()]
    columns.append(replace(out, label="value"))
    columns += extra or []
    docs = ranking.select(pl.col(D), pl.col(RANK), pl.col(S), pl.col(C))
    # rank shown -> documents kept: i -> i, and the last rank shown -> the whole ranking
    upto = [*range(1, depth), n] if n else [0]
    shown = list(range(1, depth + 1)) if n else [0]
    if extra:
        # the user models read no tie group: the rank order as scores, the padding document last
        docs = docs.with_columns((-pl.col(RANK)).cast(pl.Float64).alias(S))
        # the padding document costs 1, as cwl_eval's padding does
        padding = pl.DataFrame(
            {D: [_padding_doc(docs)], RANK: [n + 1], S: [-float(n + 1)], C: [1.0]}, schema=docs.schema
        )
        docs = pl.concat([docs, padding])
        upto.append(n + 1)
        shown.append(shown[-1] + 1)
    found, start = [], 0
    while start < len(upto):
        stop, size = start, upto[start] + judged.height
        while stop + 1 < len(upto) and size + upto[stop + 1] + judged.height <= CUT_ROWS:
            stop += 1
            size += upto[stop] + judged.height
        cut = pl.DataFrame({"rank": shown[start : stop + 1], "upto": upto[start : stop + 1]}, schema={"rank": pl.Int64, "upto": pl.Int64})
        run = (
            docs.join(cut, how="cross").filter(pl.col(RANK) <= pl.col("upto"))
            .select(
                pl.col("rank").alias(Q), pl.col(D), pl.col(S), pl.col(C),
                # ties='input': the run's order among equal scores is the rank order
                *([pl.col(RANK).alias(ORDER)] if conv.ties == "input" else []),
            )
        )
        qrels = judged.select(D, REL).join(cut.select("rank"), how="cross").select(pl.col("rank").alias(Q), D, REL)
        cuts = replace(prep, run=run.lazy(), qrels=qrels.lazy(), query_dtype=pl.Int64(), subtopics=None)
        if prep.train is not None:  # the user's training items, for each cut ranking's query
            cuts.seen = prep.train.filter(_is_query(judged[Q][0])).select(D).join(
                cut.select(pl.col("rank").alias(Q)).lazy(), how="cross"
            )
        if prep.base_run is not None:  # the user's base list, for each cut ranking's query
            cuts.base_run = prep.base_run.filter(_is_query(judged[Q][0])).drop(Q).join(
                cut.select(pl.col("rank").alias(Q)).lazy(), how="cross"
            )
        if prep.target is not None and Q in prep.target.collect_schema().names():  # the query's target, for each cut
            cuts.target = prep.target.filter(_is_query(judged[Q][0])).drop(Q).join(
                cut.select(pl.col("rank").alias(Q)).lazy(), how="cross"
            )
        if subtopics is not None:  # subtopic qrels: each cut ranking's query holds them too
            cuts.subtopics = subtopics.join(cut.select("rank").lazy(), how="cross").select(
                pl.col("rank").alias(Q), D, SUB, REL
            )
        found.append(output_plans(cuts, columns, by_depth, Columns(query_id="rank")).result.collect())
        start = stop + 1
    values = pl.concat(found)
    if extra:
        rel = ranking.select(pl.col(RANK).alias("rank"), pl.col(REL).alias("__relevance"), pl.col(C).alias("__cost"))
        values = values.join(rel, on="rank", how="left")
    return values


def _padding_doc(docs: pl.DataFrame) -> object:
    """A document id not in the ranking (cwl_eval's padding: an unjudged document)."""
    ids = docs[D]
    if ids.dtype.is_integer():
        return int(ids.max() or 0) + 1  # type: ignore[arg-type]
    return max((str(x) for x in ids.to_list()), key=len, default="") + "\x00"  # longer than every id


def _ideal_table(parts: dict[str, Primitive], rows: pl.DataFrame, judged: pl.DataFrame) -> pl.DataFrame | None:
    """The ideal ranking beside the ranking, when a primitive reads the ideal order: of the
    judgments, or of the retrieved documents (``ideal='run'``)."""
    leaf = next(
        (p for p in parts.values() if any(isinstance(i, IdealRank) for i in p.inputs().values())), None
    )
    if leaf is None:
        return None
    gain = leaf.values()["g"]
    assert isinstance(gain, Gain)
    source = judged if leaf.side == "qrels" else rows
    return (
        source.select(pl.col(D).alias("ideal_doc_id"), pl.col(REL).alias("ideal_relevance"))
        .with_columns(prim.gain(pl.col("ideal_relevance"), gain).alias("ideal_gain"))
        .sort(["ideal_gain", "ideal_doc_id"], descending=[True, False])
        .with_row_index("rank", offset=1)
        .with_columns(pl.col("rank").cast(pl.Int64))
    )
