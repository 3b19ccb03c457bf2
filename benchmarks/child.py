"""One benchmark configuration in its own process (``bench.py`` starts it; readable on its own).

    python benchmarks/child.py TOOL RUN QRELS OUT.json [--measures five|all_trec|popularity|JSON]
        [--memory-limit 2GB] [--query-chunks 10] [--calls N] [--sample QUERIES.json] [--train TRAIN]
        [--features FEATURES] [--side NAME=PATH ...] [--set-level] [--floor-steps STEP,...]

TOOL is a tool (``rankwise-polars``, ``rankwise-duckdb``, ``pytrec_eval``, ``ranx``,
``ir_measures``, ``floor``, ``floor-duckdb``, ``rankwise-spark``, ``rectools``) or one way of feeding a peer
(``pytrec_eval:pyarrow``, ``ranx:from_df``, ...: ``DICTS`` and the tools below); a bare peer name is the
fastest feeding measured (see benchmarks/README.md). End to end: from this module's first line
(the interpreter's start is not counted, the imports are) to the per-query values in the
tool's own result. "compute" is the part after the inputs are in the tool's own form.

With ``--train TRAIN`` (the training interactions, for ``--measures popularity``): rankwise
computes the popularity family at k=10 (``POPULARITY``, one call with ``train=``), the floors
also read TRAIN and join each item's popularity, and ``rectools`` computes its MeanInvUserFreq(10)
and AvgRecPopularity(10) per user (``MIUF@10``, ``ARP@10`` in the values file).

With ``--features FEATURES`` (the item features, for ``--measures feature_diversity``): rankwise
computes ``FEATURE_DIVERSITY`` (ILD with the cosine distance and ILS at k=10, one call with
``features=``), and the floors also read FEATURES and join each item's vector to the top 10 of
each query.

With ``--side NAME=PATH`` (repeated; ``bench.py --beyond``'s newer families, ``bench.FAMILIES``):
rankwise gets each as its keyword (``categories=``, ``groups=``, ``target=``, ``catalog=``,
``base_run=``, ``train=``, ``features=``) with the metrics of ``--measures`` (a JSON list), and
with ``--set-level`` evaluates with ``per_query=False`` (one row, written with the query id
``all``); the floors run the ``--floor-steps`` named (:data:`FLOOR_STEPS`) on each query's top 10;
``rectools`` computes the rectools metrics among the measures (``RECTOOLS``) from the same files.

With ``--calls N`` the inputs are read into memory first (pytrec_eval: its dicts; rankwise:
Polars DataFrames), then the tool is called N times after a warm-up, each call's CPU time
(``time.process_time``) and wall time recorded: the small-input measurement.

OUT.json gets the times, the peak RSS, and the path of a Parquet file of the per-query values
(``query_id`` and trec_eval's measure names), which ``bench.py`` checks against pytrec_eval's.
"""

from __future__ import annotations

import time

T0 = time.perf_counter()
C0 = time.process_time()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

# The five measures: rankwise's name -> trec_eval's printed name (pytrec_eval's key)
FIVE = {"nDCG@10": "ndcg_cut_10", "AP": "map", "RR": "recip_rank", "P@10": "P_10", "R@100": "recall_100"}
PYTREC_FIVE = {"ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100"}
POPULARITY = ["MIUF@10", "Surprisal@10", "ARP@10", "ARP(popularity='users')@10", "APLT@10", "ACLT@10",
              "UnseenShare@10", "EPC@10", "EFD@10"]
"""The popularity family at k=10 (``--measures popularity``): every metric of issue 35's list, one call."""
FEATURE_DIVERSITY = ["ILD(distance='cosine')@10", "ILS@10"]
"""The feature-diversity family at k=10 (``--measures feature_diversity``): issue 35's embeddings case."""
RECTOOLS = ("UserCoverage@10", "Serendipity@10", "CatalogCoverage@10")
"""The newer families' metrics rectools computes (``--side``): CoveredUsers(10), Serendipity(10),
CatalogCoverage(10, normalize=True) (set-level)."""
FLOOR_STEPS = ("relevance", "popularity", "catalog", "history", "pairs", "categories", "history_categories",
               "groups", "train_users", "base_run", "features")
"""What a floor of a newer family can join to the run's top 10 per query (``--floor-steps``;
:func:`floor_steps_tool`): the qrels' relevance (and each query's relevant documents by grade),
each item's training rows and users, the catalog's size, each listed item against the user's
training items, the 45 pairs of each list, each listed item's categories, the training items'
categories, each listed item's groups (and the target), each user's distinct training items,
the base run's top 10 against the run's, each listed item's vector and each training row's vector."""
RANX_FIVE = {"ndcg@10": "ndcg_cut_10", "map": "map", "mrr": "recip_rank", "precision@10": "P_10",
             "recall@100": "recall_100"}

Values = dict[str, dict[str, float]]  # trec_eval measure name -> query id -> value


# --- reading: each peer's candidate ways from the Parquet files to its input --------------


def dicts_pyarrow(path: str, value: str, cast: Callable[[Any], Any]) -> dict[str, dict[str, Any]]:
    """pyarrow's ``to_pylist`` of each column, a ``zip`` and ``setdefault`` per row."""
    import pyarrow.parquet as pq

    table = pq.read_table(path, columns=["query_id", "doc_id", value])
    out: dict[str, dict[str, Any]] = {}
    for q, d, v in zip(*(table.column(c).to_pylist() for c in ("query_id", "doc_id", value)), strict=True):
        out.setdefault(q, {})[d] = cast(v)
    return out


def dicts_polars(path: str, value: str, cast: Callable[[Any], Any]) -> dict[str, dict[str, Any]]:
    """Polars: one list of documents and one of values per query (a group-by), then one
    ``dict(zip(...))`` per query in Python: Python touches every row once, not three times."""
    import polars as pl

    dtype = pl.Int64 if cast is int else pl.Float64
    grouped = (
        scan(path)
        .select(pl.col("query_id").cast(pl.String), pl.col("doc_id").cast(pl.String), pl.col(value).cast(dtype))
        .group_by("query_id")
        .agg("doc_id", value)
        .collect()
    )
    return {q: dict(zip(d, v, strict=True)) for q, d, v in grouped.iter_rows()}


def dicts_polars_sorted(path: str, value: str, cast: Callable[[Any], Any]) -> dict[str, dict[str, Any]]:
    """As ``dicts_polars``, the rows sorted by query and value (descending) first: the dicts
    come in query order, each query's documents in score order."""
    import polars as pl

    dtype = pl.Int64 if cast is int else pl.Float64
    grouped = (
        scan(path)
        .select(pl.col("query_id").cast(pl.String), pl.col("doc_id").cast(pl.String), pl.col(value).cast(dtype))
        .sort(["query_id", value], descending=[False, True])
        .group_by("query_id", maintain_order=True)
        .agg("doc_id", value)
        .collect()
    )
    return {q: dict(zip(d, v, strict=True)) for q, d, v in grouped.iter_rows()}


def dicts_polars_rows(path: str, value: str, cast: Callable[[Any], Any]) -> dict[str, dict[str, Any]]:
    """Polars' ``iter_rows`` and ``setdefault`` per row."""
    import polars as pl

    out: dict[str, dict[str, Any]] = {}
    for q, d, v in pl.read_parquet(path, columns=["query_id", "doc_id", value]).iter_rows():
        out.setdefault(q, {})[d] = cast(v)
    return out


def dicts_pandas(path: str, value: str, cast: Callable[[Any], Any]) -> dict[str, dict[str, Any]]:
    """pandas: ``groupby`` and one ``dict(zip(...))`` per group."""
    import pandas as pd

    df = pd.read_parquet(path, columns=["query_id", "doc_id", value])
    return {q: dict(zip(g["doc_id"].tolist(), map(cast, g[value].tolist()), strict=True)) for q, g in df.groupby("query_id", sort=False)}


DICTS = {"pyarrow": dicts_pyarrow, "polars": dicts_polars, "polars_sorted": dicts_polars_sorted,
         "polars_rows": dicts_polars_rows, "pandas": dicts_pandas}


def pandas_frames(run: str, qrels: str) -> tuple[Any, Any]:
    """The run and the qrels as pandas DataFrames with object (str) id columns (ranx asserts
    object dtypes; pandas 3 reads strings as its ``str`` dtype)."""
    import pandas as pd

    run_df, qrels_df = pd.read_parquet(run), pd.read_parquet(qrels)
    for df in (run_df, qrels_df):
        df["query_id"] = df["query_id"].astype(object)
        df["doc_id"] = df["doc_id"].astype(object)
    qrels_df["relevance"] = qrels_df["relevance"].astype("int64")
    return run_df, qrels_df


# --- the tools ---------------------------------------------------------------------------


def pytrec_eval_tool(feed: str, run: str, qrels: str, measures: str, times: dict[str, float]) -> Values:
    import pytrec_eval

    run_d, qrels_d = DICTS[feed](run, "score", float), DICTS[feed](qrels, "relevance", int)
    times["t1"] = time.perf_counter()
    asked = pytrec_eval.supported_measures if measures == "all_trec" else PYTREC_FIVE
    result = pytrec_eval.RelevanceEvaluator(qrels_d, asked).evaluate(run_d)
    return pytrec_values(result)


def pytrec_values(result: dict[str, dict[str, float]]) -> Values:
    names = next(iter(result.values())).keys() if result else ()
    return {m: {q: v[m] for q, v in result.items()} for m in names if m != "runid"}


def ranx_tool(feed: str, run: str, qrels: str, times: dict[str, float]) -> Values:
    from ranx import Qrels, Run, evaluate

    if feed == "from_df":
        run_df, qrels_df = pandas_frames(run, qrels)
        qrels_r = Qrels.from_df(qrels_df, q_id_col="query_id", doc_id_col="doc_id", score_col="relevance")
        run_r = Run.from_df(run_df, q_id_col="query_id", doc_id_col="doc_id", score_col="score")
    elif feed == "from_parquet":
        qrels_r = Qrels.from_parquet(qrels, q_id_col="query_id", doc_id_col="doc_id", score_col="relevance")
        run_r = Run.from_parquet(run, q_id_col="query_id", doc_id_col="doc_id", score_col="score")
    else:  # from_dict, the dicts built as for pytrec_eval by the feeder named after the colon
        qrels_r = Qrels.from_dict(DICTS[feed.removeprefix("from_dict_")](qrels, "relevance", int))
        run_r = Run.from_dict(DICTS[feed.removeprefix("from_dict_")](run, "score", float))
    times["t1"] = time.perf_counter()
    # the first call compiles ranx's numba functions: part of what a user pays in a new process
    evaluate(qrels_r, run_r, list(RANX_FIVE), return_mean=False)
    return {trec: {q: float(v) for q, v in run_r.scores[name].items()} for name, trec in RANX_FIVE.items()}


def ir_measures_tool(feed: str, run: str, qrels: str, times: dict[str, float]) -> Values:
    import ir_measures
    from ir_measures import AP, RR, P, R, nDCG

    names = {nDCG @ 10: "ndcg_cut_10", AP: "map", RR: "recip_rank", P @ 10: "P_10", R @ 100: "recall_100"}
    if feed == "pandas":  # DataFrames with ir_measures' column names: query_id, doc_id, score / relevance
        import pandas as pd

        run_in: Any = pd.read_parquet(run)
        qrels_in: Any = pd.read_parquet(qrels)
    else:  # dicts of dicts, as for pytrec_eval
        run_in, qrels_in = DICTS[feed](run, "score", float), DICTS[feed](qrels, "relevance", int)
    times["t1"] = time.perf_counter()
    values: Values = {m: {} for m in names.values()}
    for row in ir_measures.iter_calc(list(names), qrels_in, run_in):
        values[names[row.measure]][str(row.query_id)] = float(row.value)
    return values


def rankwise_tool(engine: str, run: Any, qrels: Any, measures: str, memory_limit: str, query_chunks: int,
                  train: str = "", features: str = "", side: dict[str, str] | None = None,
                  set_level: bool = False) -> Any:
    """``rw.evaluate`` on the paths themselves (and ``train=`` the training file's path,
    ``features=`` the item features' path, when given); its result (a Polars DataFrame) with the
    five measures' columns named as trec_eval prints them."""
    import rankwise as rw

    named: dict[str, Any] = {"five": list(FIVE), "all_trec": "all_trec", "popularity": POPULARITY,
                             "feature_diversity": FEATURE_DIVERSITY}
    asked: Any = named[measures] if measures in named else json.loads(measures)
    options: dict[str, Any] = {"train": train} if train else {}
    if features:
        options["features"] = features
    options.update(side or {})
    if set_level:
        options["per_query"] = False
    if engine == "duckdb" and memory_limit:
        options["duckdb_config"] = {"memory_limit": memory_limit}
    if engine == "polars" and query_chunks:
        options["query_chunks"] = query_chunks
    res = rw.evaluate(qrels, run, asked, engine=engine, **options)  # type: ignore[arg-type]
    if set_level:
        import polars as pl

        res = res.select(pl.lit("all").alias("query_id"), pl.all())
    return res.rename({k: v for k, v in FIVE.items() if k in res.columns})


def scan(path: str) -> Any:
    """A Polars scan of a Parquet file or of a folder of them."""
    import polars as pl

    return pl.scan_parquet(str(Path(path) / "*.parquet") if Path(path).is_dir() else path)


def floor_tool(run: str, qrels: str, train: str = "", features: str = "") -> None:
    """What any evaluation of these measures has to do: read both files, join the run to the
    qrels (keeping unjudged documents: ranks count them), and order each query's documents by
    score, then doc id (trec_eval's tie order) - per query, not a global sort. With ``train``
    also: read the training file, count each item's rows and distinct users, and join them to
    the run's items (what every popularity metric reads; the run's (user, item) pairs against
    the training's, which UnseenShare alone reads, are left out). With ``features`` also: read the
    item features and join each item's vector to the top 10 of each query (what ILD@10 reads,
    before any pair)."""
    import polars as pl

    rows = scan(run).join(scan(qrels), on=["query_id", "doc_id"], how="left")
    if features:
        ordered = rows.group_by("query_id").agg(
            pl.col("doc_id").sort_by(["score", "doc_id"], descending=[True, True]).head(10)
        )
        ordered.explode("doc_id").join(scan(features), on="doc_id", how="left").collect()
        return
    kept = [pl.col("relevance")]
    if train:
        popularity = scan(train).group_by("doc_id").agg(rows=pl.len(), users=pl.col("query_id").n_unique())
        rows = rows.join(popularity, on="doc_id", how="left")
        kept += [pl.col("rows"), pl.col("users")]
    floor_order(rows, kept).collect()


def floor_order(rows: Any, kept: list[Any]) -> Any:
    """The floor's last step (a LazyFrame): each query's ``kept`` columns ordered by score, then
    doc id as trec_eval compares them (as text: integer ids are cast, a no-op for text ids)."""
    import polars as pl

    doc = pl.col("doc_id").cast(pl.String)
    return rows.group_by("query_id").agg(c.sort_by([pl.col("score"), doc], descending=[True, True]) for c in kept)


def floor_duckdb_tool(run: str, qrels: str, train: str = "", features: str = "") -> None:
    """:func:`floor_tool` in DuckDB, the way its SQL does it: both files read, the run joined
    to the qrels (left join), each query's rows numbered by score then doc id as text (trec_eval's
    tie order; a window partitioned by query: DuckDB's per-query order), into a temporary table. With ``train``
    also each item's training rows and distinct users (a GROUP BY of the training file) left
    joined on the item. With ``features`` also each item's vector (the item features' file) joined
    to the rows ranked in the top 10."""
    import duckdb

    def source(path: str) -> str:
        return f"read_parquet('{Path(path) / '*.parquet' if Path(path).is_dir() else path}')"

    popularity, joined = "", ""
    if train:
        popularity = ", p.n_rows, p.n_users"
        joined = (f" LEFT JOIN (SELECT doc_id, count(*) AS n_rows, count(DISTINCT query_id) AS n_users "
                  f"FROM {source(train)} GROUP BY doc_id) AS p ON r.doc_id = p.doc_id")
    con = duckdb.connect(config={"preserve_insertion_order": False})
    con.execute("SET enable_progress_bar = false")
    if features:
        con.execute(
            "CREATE TEMP TABLE ranked AS SELECT t.query_id, t.rnk, f.* FROM (SELECT * FROM (SELECT r.query_id, "
            "r.doc_id, row_number() OVER (PARTITION BY r.query_id ORDER BY r.score DESC, r.doc_id DESC) AS rnk "
            f"FROM {source(run)} AS r LEFT JOIN {source(qrels)} AS j ON r.query_id = j.query_id AND r.doc_id = "
            f"j.doc_id) AS x WHERE rnk <= 10) AS t LEFT JOIN {source(features)} AS f ON t.doc_id = f.doc_id"
        )
        con.close()
        return
    con.execute(f"CREATE TEMP TABLE ranked AS {floor_duckdb_sql(source(run), source(qrels), popularity, joined)}")
    con.close()


def floor_duckdb_sql(run: str, qrels: str, popularity: str = "", joined: str = "") -> str:
    """The DuckDB floor's statement on two FROM fragments: the left join and each query's rows
    numbered by score then doc id as text (trec_eval's tie order compares doc ids as text: integer
    ids are cast, a no-op for text ids, as :func:`floor_tool` does)."""
    return (
        f"SELECT r.query_id, j.relevance{popularity}, row_number() OVER "
        f"(PARTITION BY r.query_id ORDER BY r.score DESC, CAST(r.doc_id AS VARCHAR) DESC) AS rnk FROM {run} AS r "
        f"LEFT JOIN {qrels} AS j ON r.query_id = j.query_id AND r.doc_id = j.doc_id{joined}"
    )


def floor_steps_tool(run: str, qrels: str, steps: list[str], side: dict[str, str]) -> None:
    """The floor of a newer family (``--floor-steps``; :data:`FLOOR_STEPS`), in Polars: the run
    read and each query's top 10 by score then doc id (a per-query sort, as :func:`floor_tool`),
    with each rank, collected; then each step a join of those rows (or an aggregate of a side
    input) collected on its own."""
    import polars as pl

    q, d = "query_id", "doc_id"

    def top_of(path: str) -> pl.DataFrame:
        lists = scan(path).group_by(q).agg(pl.col(d).sort_by(["score", d], descending=[True, True]).head(10))
        ranked = lists.with_columns(rnk=pl.int_ranges(1, pl.col(d).list.len() + 1))
        return ranked.explode(d, "rnk").collect()

    top = top_of(run).lazy()
    train = scan(side["train"]).select(q, d) if "train" in side else None
    for step in steps:
        if step == "relevance":
            top.join(scan(qrels), on=[q, d], how="left").collect()
            scan(qrels).filter(pl.col("relevance") >= 1).group_by(q, "relevance").len().collect()
        elif step == "popularity" and train is not None:
            popularity = train.group_by(d).agg(rows=pl.len(), users=pl.col(q).n_unique())
            top.join(popularity, on=d, how="left").collect()
        elif step == "catalog":
            scan(side["catalog"]).select(pl.col(d).n_unique()).collect()
        elif step == "history" and train is not None:
            top.join(train.unique(), on=q).collect()
        elif step == "pairs":
            top.join(top, on=q).filter(pl.col("rnk") < pl.col("rnk_right")).collect()
        elif step == "categories":
            top.join(scan(side["categories"]), on=d, how="left").collect()
        elif step == "history_categories" and train is not None:
            train.join(scan(side["categories"]), on=d).group_by(q, "category").len().collect()
        elif step == "groups":
            top.join(scan(side["groups"]), on=d, how="left").collect()
            if "target" in side:
                scan(side["target"]).collect()
        elif step == "train_users" and train is not None:
            train.unique().group_by(q).len().collect()
        elif step == "base_run":
            top.join(top_of(side["base_run"]).lazy(), on=[q, d], how="left").collect()
        elif step == "features" and train is not None:
            top.join(scan(side["features"]), on=d, how="left").collect()
            train.join(scan(side["features"]), on=d, how="left").collect()
        else:
            raise SystemExit(f"floor step {step}: unknown, or its side input not given")


def floor_steps_duckdb_tool(run: str, qrels: str, steps: list[str], side: dict[str, str]) -> None:
    """:func:`floor_steps_tool` in DuckDB: each query's top 10 numbered by a window partitioned by
    query (score then doc id), into a temporary table; then each step a temporary table of its
    join or aggregate."""
    import duckdb

    def source(path: str) -> str:
        return f"read_parquet('{Path(path) / '*.parquet' if Path(path).is_dir() else path}')"

    def top_of(path: str) -> str:
        return (f"SELECT query_id, doc_id, rnk FROM (SELECT query_id, doc_id, row_number() OVER (PARTITION BY "
                f"query_id ORDER BY score DESC, doc_id DESC) AS rnk FROM {source(path)}) WHERE rnk <= 10")

    con = duckdb.connect(config={"preserve_insertion_order": False})
    con.execute("SET enable_progress_bar = false")
    con.execute(f"CREATE TEMP TABLE top AS {top_of(run)}")
    train = f"(SELECT query_id, doc_id FROM {source(side['train'])})" if "train" in side else ""
    statements = {
        "relevance": [f"SELECT t.*, j.relevance FROM top AS t LEFT JOIN {source(qrels)} AS j USING (query_id, doc_id)",
                      f"SELECT query_id, relevance, count(*) FROM {source(qrels)} WHERE relevance >= 1 GROUP BY ALL"],
        "popularity": [f"SELECT t.*, p.n_rows, p.n_users FROM top AS t LEFT JOIN (SELECT doc_id, count(*) AS n_rows, "
                       f"count(DISTINCT query_id) AS n_users FROM {train} GROUP BY doc_id) AS p USING (doc_id)"],
        "catalog": [f"SELECT count(DISTINCT doc_id) FROM {source(side.get('catalog', ''))}"],
        "history": [f"SELECT t.*, h.doc_id AS seen FROM top AS t JOIN (SELECT DISTINCT * FROM {train}) AS h "
                    "USING (query_id)"],
        "pairs": ["SELECT a.query_id, a.doc_id, b.doc_id AS other FROM top AS a JOIN top AS b "
                  "ON a.query_id = b.query_id AND a.rnk < b.rnk"],
        "categories": [f"SELECT t.*, c.category FROM top AS t LEFT JOIN {source(side.get('categories', ''))} AS c "
                       "USING (doc_id)"],
        "history_categories": [f"SELECT h.query_id, c.category, count(*) FROM {train} AS h JOIN "
                               f"{source(side.get('categories', ''))} AS c USING (doc_id) GROUP BY ALL"],
        "groups": [f"SELECT t.*, g.group, g.weight FROM top AS t LEFT JOIN {source(side.get('groups', ''))} AS g "
                   "USING (doc_id)", *([f"SELECT * FROM {source(side['target'])}"] if "target" in side else [])],
        "train_users": [f"SELECT query_id, count(*) FROM (SELECT DISTINCT * FROM {train}) GROUP BY query_id"],
        "base_run": [f"SELECT t.*, b.rnk AS base_rnk FROM top AS t LEFT JOIN ({top_of(side.get('base_run', ''))}) "
                     "AS b USING (query_id, doc_id)"],
        "features": [f"SELECT t.*, f.* EXCLUDE (doc_id) FROM top AS t LEFT JOIN {source(side.get('features', ''))} AS f "
                     "USING (doc_id)", f"SELECT h.*, f.* EXCLUDE (doc_id) FROM {train} AS h LEFT JOIN "
                     f"{source(side.get('features', ''))} AS f USING (doc_id)"],
    }
    for step in steps:
        for i, sql in enumerate(statements[step]):
            con.execute(f"CREATE TEMP TABLE {step}_{i} AS {sql}")
    con.close()


def rectools_reco(run: str) -> Any:
    """The run as rectools' recommendations: pandas reads it, the columns renamed ``user_id`` /
    ``item_id``, each user's 1-based ``rank`` from the scores (score descending, then item id
    descending: trec_eval's tie order, rankwise's default ``ties``)."""
    import pandas as pd

    reco = pd.read_parquet(run, columns=["query_id", "doc_id", "score"]).rename(columns=RECTOOLS_NAMES)
    reco = reco.sort_values(["user_id", "score", "item_id"], ascending=[True, False, False])
    reco["rank"] = reco.groupby("user_id", sort=False).cumcount() + 1
    return reco


RECTOOLS_NAMES = {"query_id": "user_id", "doc_id": "item_id"}


def rectools_family_tool(run: str, qrels: str, asked: list[str], side: dict[str, str],
                         times: dict[str, float]) -> Values:
    """rectools on the newer families' metrics it has (:data:`RECTOOLS`) as a user runs it: the
    recommendations as :func:`rectools_reco`, the test interactions the qrels' rows of relevance
    >= 1, the previous interactions the training file, the catalog the catalog file's items; then
    ``CoveredUsers(10).calc_per_user``, ``Serendipity(10).calc_per_user`` and
    ``CatalogCoverage(10, normalize=True).calc`` (one value, under the query id ``all``)."""
    import pandas as pd
    from rectools.metrics import CatalogCoverage, CoveredUsers, Serendipity  # type: ignore[import-untyped]

    reco = rectools_reco(run)
    test = pd.read_parquet(qrels, columns=["query_id", "doc_id", "relevance"])
    interactions = test[test["relevance"] >= 1][["query_id", "doc_id"]].rename(columns=RECTOOLS_NAMES)
    prev = (pd.read_parquet(side["train"], columns=["query_id", "doc_id"]).rename(columns=RECTOOLS_NAMES)
            if "train" in side else None)
    catalog = pd.read_parquet(side["catalog"])["doc_id"].to_numpy() if "catalog" in side else None
    times["t1"] = time.perf_counter()
    values: Values = {}
    if "UserCoverage@10" in asked:
        per_user = CoveredUsers(10).calc_per_user(reco, interactions)
        values["UserCoverage@10"] = {str(u): float(v) for u, v in per_user.items()}
    if "Serendipity@10" in asked:
        per_user = Serendipity(10).calc_per_user(reco, interactions, prev, catalog)
        values["Serendipity@10"] = {str(u): float(v) for u, v in per_user.items()}
    if "CatalogCoverage@10" in asked:
        values["CatalogCoverage@10"] = {"all": float(CatalogCoverage(10, normalize=True).calc(reco, catalog))}
    return values


def rectools_tool(run: str, train: str, times: dict[str, float]) -> Values:
    """rectools as a user runs it: pandas reads the run and the training file, each user's
    1-based Rank comes from the scores (sorted by score descending, then item id descending:
    trec_eval's tie order, rankwise's default ``ties``), then ``MeanInvUserFreq(10)`` and
    ``AvgRecPopularity(10)`` with ``calc_per_user(reco, prev_interactions)``."""
    import pandas as pd
    from rectools.metrics import AvgRecPopularity, MeanInvUserFreq  # type: ignore[import-untyped]

    reco = rectools_reco(run)
    prev = pd.read_parquet(train, columns=["query_id", "doc_id"]).rename(columns=RECTOOLS_NAMES)
    times["t1"] = time.perf_counter()
    values: Values = {}
    for name, metric in (("MIUF@10", MeanInvUserFreq(10)), ("ARP@10", AvgRecPopularity(10))):
        per_user = metric.calc_per_user(reco, prev)
        values[name] = {str(u): float(v) for u, v in per_user.items()}
    return values


def spark_tool(run: str, qrels: str) -> Any:
    import warnings

    warnings.filterwarnings("ignore")
    from pyspark.sql import SparkSession

    from rankwise import spark as rws

    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.driver.memory", "8g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    res = rws.evaluate(spark.read.parquet(qrels), spark.read.parquet(run), list(FIVE)).toPandas()
    import polars as pl

    return pl.from_pandas(res).rename(FIVE)


def end_to_end(tool: str, feed: str, run: str, qrels: str, a: argparse.Namespace) -> tuple[Values, Any, dict[str, float]]:
    times: dict[str, float] = {}
    values: Values = {}
    frame = None
    if tool.startswith("rankwise-") and tool != "rankwise-spark":
        times["t1"] = time.perf_counter()
        frame = rankwise_tool(tool.split("-")[1], run, qrels, a.measures, a.memory_limit, a.query_chunks, a.train,
                              a.features, side_inputs(a), a.set_level)
    elif tool == "rankwise-spark":
        times["t1"] = time.perf_counter()
        frame = spark_tool(run, qrels)
    elif tool == "pytrec_eval":
        values = pytrec_eval_tool(feed, run, qrels, a.measures, times)
    elif tool == "ranx":
        values = ranx_tool(feed, run, qrels, times)
    elif tool == "ir_measures":
        values = ir_measures_tool(feed, run, qrels, times)
    elif tool == "rectools" and a.side:
        values = rectools_family_tool(run, qrels, json.loads(a.measures), side_inputs(a), times)
    elif tool == "floor" and a.floor_steps:
        times["t1"] = time.perf_counter()
        floor_steps_tool(run, qrels, a.floor_steps.split(","), side_inputs(a))
    elif tool == "floor-duckdb" and a.floor_steps:
        times["t1"] = time.perf_counter()
        floor_steps_duckdb_tool(run, qrels, a.floor_steps.split(","), side_inputs(a))
    elif tool == "rectools":
        if not a.train:
            raise SystemExit("rectools needs --train (its metrics read the training interactions)")
        values = rectools_tool(run, a.train, times)
    elif tool == "floor":
        times["t1"] = time.perf_counter()
        floor_tool(run, qrels, a.train, a.features)
    elif tool == "floor-duckdb":
        times["t1"] = time.perf_counter()
        floor_duckdb_tool(run, qrels, a.train, a.features)
    else:
        raise SystemExit(f"unknown tool {tool}")
    return values, frame, times


def side_inputs(a: argparse.Namespace) -> dict[str, str]:
    """``--side NAME=PATH`` as {NAME: PATH}."""
    return dict(item.split("=", 1) for item in a.side)


def repeated_calls(tool: str, run: str, qrels: str, a: argparse.Namespace) -> tuple[Values, Any, list[float], list[float]]:
    """The small-input measurement: in-memory inputs, ``a.calls`` timed calls after a warm-up."""
    frame = None
    values: Values = {}
    if tool == "pytrec_eval":
        import pytrec_eval

        run_d, qrels_d = dicts_polars(run, "score", float), dicts_polars(qrels, "relevance", int)
        asked = pytrec_eval.supported_measures if a.measures == "all_trec" else PYTREC_FIVE

        def call() -> Any:  # a new qrels: the evaluator is built inside the call
            return pytrec_eval.RelevanceEvaluator(qrels_d, asked).evaluate(run_d)
    elif tool.startswith("rankwise-"):
        import polars as pl

        import rankwise as rw

        run_f, qrels_f = pl.read_parquet(run), pl.read_parquet(qrels)
        asked_rw: Any = list(FIVE) if a.measures == "five" else a.measures
        engine = tool.split("-")[1]

        def call() -> Any:
            return rw.evaluate(qrels_f, run_f, asked_rw, engine=engine)  # type: ignore[arg-type]
    elif tool == "floor":
        import polars as pl

        run_l, qrels_l = pl.read_parquet(run).lazy(), pl.read_parquet(qrels).lazy()

        def call() -> Any:  # the floor of one call: the join and each query's order, no measure
            return floor_order(run_l.join(qrels_l, on=["query_id", "doc_id"], how="left"),
                               [pl.col("relevance")]).collect()
    elif tool == "floor-duckdb":
        import duckdb
        import polars as pl

        run_f, qrels_f = pl.read_parquet(run), pl.read_parquet(qrels)
        db = duckdb.connect(config={"preserve_insertion_order": False})

        def call() -> Any:  # as rankwise's DuckDB engine does per call: a cursor of a database
            # opened once, the frames registered, the floor's statement into a temporary table
            con = db.cursor()
            con.register("run_f", run_f)
            con.register("qrels_f", qrels_f)
            con.execute(f"CREATE TEMP TABLE ranked AS {floor_duckdb_sql('run_f', 'qrels_f')}")
            con.close()
    else:
        raise SystemExit(f"--calls: {tool} is not measured on small inputs")
    for _ in range(a.warmup):
        out = call()
    cpu, wall = [], []
    for _ in range(a.calls):
        c, w = time.process_time(), time.perf_counter()
        out = call()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    if tool == "pytrec_eval":
        values = pytrec_values(out)
    elif tool.startswith("rankwise-"):
        frame = out.rename({k: v for k, v in FIVE.items() if k in out.columns})
    return values, frame, cpu, wall


def write_values(values: Values, frame: Any, path: Path, sample: set[str] | None) -> None:
    """The per-query values as Parquet: query_id (text) and one column per measure."""
    import polars as pl

    if frame is None:
        if not values:
            return
        queries = sorted(next(iter(values.values())))
        frame = pl.DataFrame({"query_id": queries, **{m: [v.get(q) for q in queries] for m, v in values.items()}},
                             strict=False)
    frame = frame.with_columns(pl.col("query_id").cast(pl.String))
    if sample is not None:
        frame = frame.filter(pl.col("query_id").is_in(sorted(sample)))
    frame.write_parquet(path)


def own_peak_mb() -> float:
    """This process's peak resident memory: its ``VmHWM`` (Linux), which starts anew with the
    process's image. Not ``getrusage``'s ``ru_maxrss``: Linux carries that over from the parent
    through fork and exec, so a child of a ``bench.py`` that had grown to 387 MB reported at least
    387 MB whatever it held itself (``ru_maxrss`` where there is no ``/proc``)."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return next((int(line.split()[1]) / 1024 for line in status.splitlines() if line.startswith("VmHWM:")),
                resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def descendants_peak_mb(pid: int | None = None) -> float:
    """The peak resident memory of this process's live descendants (each one's ``VmHWM``,
    summed): Spark's JVM, which PySpark starts as a child and which holds the evaluation's
    memory (the driver's own RSS alone says nothing of it). 0 for the in-process tools."""
    total = 0.0
    for task in Path(f"/proc/{pid or os.getpid()}/task").glob("*/children"):
        for child in task.read_text().split():
            try:
                status = Path(f"/proc/{child}/status").read_text()
            except OSError:  # it ended meanwhile
                continue
            total += next((int(line.split()[1]) / 1024 for line in status.splitlines() if line.startswith("VmHWM:")), 0.0)
            total += descendants_peak_mb(int(child))
    return total


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("tool", help="tool, or tool:feeding (e.g. pytrec_eval:pyarrow)")
    p.add_argument("run")
    p.add_argument("qrels")
    p.add_argument("out", type=Path)
    p.add_argument("--measures", default="five", help="five, all_trec, popularity, feature_diversity, or rankwise "
                   "metrics as a JSON list")
    p.add_argument("--memory-limit", default="")
    p.add_argument("--query-chunks", type=int, default=0)
    p.add_argument("--calls", type=int, default=0, help="small inputs: time this many in-process calls")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--sample", type=Path, default=None, help="keep only these queries' values (a JSON list)")
    p.add_argument("--train", default="", help="the training interactions (rankwise's train=, the floors, rectools)")
    p.add_argument("--features", default="", help="the item features (rankwise's features=, the floors)")
    p.add_argument("--side", action="append", default=[], help="a side input NAME=PATH, rankwise's keyword "
                   "(categories, groups, target, catalog, base_run, train, features); repeated")
    p.add_argument("--set-level", action="store_true", help="rankwise: per_query=False (set-level metrics)")
    p.add_argument("--floor-steps", default="", help=f"the floors: these steps, comma-separated ({FLOOR_STEPS})")
    a = p.parse_args()
    tool, _, feed = a.tool.partition(":")
    feed = feed or {"pytrec_eval": "polars", "ranx": "from_dict_polars", "ir_measures": "polars"}.get(tool, "")
    sample = set(json.loads(a.sample.read_text())) if a.sample else None
    if sample is not None and tool == "pytrec_eval":  # the reference on a sample of the queries
        import tempfile

        import polars as pl
        tmp = Path(tempfile.mkdtemp())
        for name, path in (("run", a.run), ("qrels", a.qrels)):
            (scan(path).filter(pl.col("query_id").cast(pl.String).is_in(sorted(sample)))
             .collect().write_parquet(tmp / f"{name}.parquet"))
        a.run, a.qrels = str(tmp / "run.parquet"), str(tmp / "qrels.parquet")
    report: dict[str, Any] = {"tool": a.tool}
    if a.calls:
        values, frame, cpu, wall = repeated_calls(tool, a.run, a.qrels, a)
        report.update(calls_cpu=cpu, calls_wall=wall)
    else:
        values, frame, times = end_to_end(tool, feed, a.run, a.qrels, a)
        end = time.perf_counter()
        report.update(total=end - T0, cpu=time.process_time() - C0, compute=end - times.get("t1", T0))
    report["rss_mb"] = own_peak_mb() + descendants_peak_mb()
    values_path = a.out.with_suffix(".values.parquet")
    values_path.unlink(missing_ok=True)
    write_values(values, frame, values_path, sample)
    if values_path.exists():
        report["values"] = str(values_path)
    a.out.write_text(json.dumps(report))


if __name__ == "__main__":
    main()
