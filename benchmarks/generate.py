"""Seeded benchmark data: a run, qrels and training interactions as Parquet files.

    python benchmarks/generate.py OUT_DIR --queries 100000 --docs 100 --judged 20 --tie-rate 0.1

Each query retrieves ``--docs`` documents with float32-representable scores (a fraction
``--tie-rate`` rounded so they tie) and has ``--judged`` judgments (graded 0-3, about half drawn from the retrieved
documents). Rows are shuffled unless ``--sorted``. Columns: query_id, doc_id (strings; int64 with
``--int-ids``),
score (float64); query_id, doc_id, relevance (int64). With ``--trec`` also run.trec and
qrels.trec, the same rows in TREC's text formats (``qid Q0 docno rank score tag``, sorted by
query then score as TREC runs are; ``qid 0 docno rel``).

Beside them train.parquet (a folder train/ with ``--files``): training interactions for the
popularity metrics (``train=``), ``--train-share`` of the run's row count (0.1: 1M rows beside
10M), columns query_id (the user: the run's query ids) and doc_id (the item: the run's doc id
space). Items are drawn Zipf-like (probability 1/rank, the ranks a seeded shuffle of the items,
so popularity has nothing to do with the id); a tenth of the users have no training row; the
rest draw uniformly; a twentieth of the rows are repeats of others (besides the repeats the
draw makes). Many of the items the run lists are never in training (most at 1M rows). The
training rows come from their own seeded generator: the run and qrels are the same with or
without them. With ``--files`` each file draws its own rows and its own popularity order (its
seed), as it does its run and qrels.

Beside them also features.parquet (a folder features/ with ``--files``): the item features for
the feature-diversity metrics (``features=``), one row per item of the run's doc id space
(doc_id, embedding: ``--dims`` float32 values, a list), drawn from their own seeded generator
(standard normal), so that nothing else changes with or without them.

Beside them the side inputs of the newer beyond-accuracy families, each from its own seeded stream
(nothing else changes with or without them), over the same doc id space (``docs`` x 7919 items):
categories.parquet (folder categories/; ``categories=``): (doc_id, category) rows, every item in 1 to 3
distinct categories of 20 (``c00``..``c19``, drawn uniformly); groups.parquet (folder groups/;
``groups=``): (doc_id, group, weight) rows, a tenth of the items in no group, the others in one of 5
groups (``g0``..``g4``, drawn with shares 0.4, 0.25, 0.15, 0.12, 0.08: unequal, so that exposure
parity has something to measure; weight 1) or, a quarter of them, in two (weight 0.5 each);
target.parquet (``target=``, one file also with ``--files``): (group, share), the same distribution
for every query, 0.2 each; catalog.parquet (folder catalog/; ``catalog=``): (doc_id), every item of
the doc id space; base_run.parquet (folder base_run/; ``base_run=``): a second run over the same
(query, doc) rows as the run, its scores drawn again (a fifth of each query's documents keep their
score plus a small shift, so that the two rankings overlap in part).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import polars as pl


def generate(out: Path, queries: int, docs: int, judged: int, tie_rate: float, sort: bool, seed: int,
             files: int = 1, int_ids: bool = False, trec: bool = False, train_share: float = 0.1,
             dims: int = 64) -> None:
    """Write run.parquet, qrels.parquet, train.parquet and features.parquet, or with ``files`` > 1
    the folders run/, qrels/, train/ and features/ of ``files`` Parquet files each (generated one
    file at a time: bounded memory)."""
    if files > 1:
        per = -(-queries // files)
        for i in range(files):
            first, count = i * per, min(per, queries - i * per)
            if count <= 0:
                break
            part = out / f"part-{i:03d}"
            _generate(part, first, count, docs, judged, tie_rate, sort, seed + i, int_ids)
            _train(part, first, count, docs, train_share, seed + i, int_ids)
            _features(part, docs, dims, seed, int_ids, share=(i, files))
            _side(part, docs, seed, int_ids, share=(i, files))
            _base_run(part, seed + i)
            for kind in ("run", "qrels", "train", "features", *SIDE):
                (out / kind).mkdir(parents=True, exist_ok=True)
                (part / f"{kind}.parquet").rename(out / kind / f"part-{i:03d}.parquet")
            part.rmdir()
        _target(out)
        return
    _generate(out, 0, queries, docs, judged, tie_rate, sort, seed, int_ids)
    _train(out, 0, queries, docs, train_share, seed, int_ids)
    _features(out, docs, dims, seed, int_ids)
    _side(out, docs, seed, int_ids)
    _base_run(out, seed)
    _target(out)
    if trec:
        write_trec(out)


def write_trec(out: Path) -> None:
    """run.trec and qrels.trec beside the Parquet files, the same rows (scores printed so that
    they read back as the same doubles)."""
    run = pl.read_parquet(out / "run.parquet").sort(["query_id", "score", "doc_id"], descending=[False, True, True])
    run = run.with_columns(rank=pl.int_range(1, pl.len() + 1).over("query_id"))
    line = pl.format("{} Q0 {} {} {} bench", "query_id", "doc_id", "rank", pl.col("score").cast(pl.String))
    (out / "run.trec").write_text("\n".join(run.select(line)[:, 0].to_list()) + "\n")
    qrels = pl.read_parquet(out / "qrels.parquet").sort(["query_id", "doc_id"])
    line = pl.format("{} 0 {} {}", "query_id", "doc_id", "relevance")
    (out / "qrels.trec").write_text("\n".join(qrels.select(line)[:, 0].to_list()) + "\n")


def _generate(out: Path, first: int, queries: int, docs: int, judged: int, tie_rate: float, sort: bool, seed: int,
              int_ids: bool = False) -> None:
    rng = np.random.default_rng(seed)
    n = queries * docs
    q = np.repeat(np.arange(first, first + queries, dtype=np.int64), docs)
    d = np.tile(np.arange(docs, dtype=np.int64), queries) * 7919 + rng.integers(0, 7919, n)
    # float32-representable scores: trec_eval 9.x (bundled by pytrec-eval-terrier) keeps
    # scores as float, trec_eval 10 and rankwise as double; scores closer than float32
    # precision would tie in one and not the other, and the correctness check would compare
    # two rankings
    score = rng.random(n).astype(np.float32).astype(np.float64)
    ties = rng.random(n) < tie_rate
    score[ties] = np.round(score[ties], 1).astype(np.float32).astype(np.float64)
    run = pl.DataFrame({"query_id": q, "doc_id": d, "score": score})
    # every step keeps its order: the same seed gives the same files
    run = run.unique(["query_id", "doc_id"], keep="first", maintain_order=True)
    order = rng.permutation(run.height) if not sort else np.arange(run.height)
    run = run[order]
    if sort:
        run = run.sort(["query_id", "score"], descending=[False, True])
    # judgments: half from the retrieved documents, half from elsewhere in the collection
    from_run = run.group_by("query_id", maintain_order=True).head(judged // 2).select("query_id", "doc_id")
    other = pl.DataFrame({
        "query_id": np.repeat(np.arange(first, first + queries, dtype=np.int64), judged - judged // 2),
        "doc_id": rng.integers(10**9, 2 * 10**9, queries * (judged - judged // 2)),
    })
    qrels = pl.concat([from_run, other]).unique(["query_id", "doc_id"], maintain_order=True)
    qrels = qrels.with_columns(relevance=pl.Series(rng.choice([0, 0, 1, 2, 3], qrels.height)))
    as_str = [] if int_ids else [pl.col("query_id").cast(pl.String), pl.col("doc_id").cast(pl.String)]
    out.mkdir(parents=True, exist_ok=True)
    run.with_columns(as_str).write_parquet(out / "run.parquet")
    qrels.with_columns(as_str).write_parquet(out / "qrels.parquet")


def _train(out: Path, first: int, queries: int, docs: int, share: float, seed: int, int_ids: bool = False) -> None:
    """train.parquet: ``share`` x queries x docs (user, item) rows over the run's ids (see the
    module's docstring)."""
    rng = np.random.default_rng([seed, 1])  # its own stream: run.parquet and qrels.parquet do not change
    rows = round(queries * docs * share)
    items = docs * 7919  # the run's doc ids: position * 7919 + [0, 7919)
    weight = 1.0 / np.arange(1, items + 1)
    by_rank = rng.permutation(items)  # the item of each popularity rank
    item = by_rank[rng.choice(items, rows, p=weight / weight.sum())]
    users = np.arange(first, first + queries, dtype=np.int64)
    active = users[rng.random(queries) >= 0.1]  # a tenth of the users without training rows
    user = rng.choice(active, rows)
    repeats = rng.random(rows) < 0.05  # a twentieth of the rows repeat an earlier (or any other) row
    source = rng.integers(0, rows, int(repeats.sum()))
    user[repeats], item[repeats] = user[source], item[source]
    train = pl.DataFrame({"query_id": user, "doc_id": item.astype(np.int64)})
    as_str = [] if int_ids else [pl.col("query_id").cast(pl.String), pl.col("doc_id").cast(pl.String)]
    out.mkdir(parents=True, exist_ok=True)
    train.with_columns(as_str).write_parquet(out / "train.parquet")


def _features(out: Path, docs: int, dims: int, seed: int, int_ids: bool = False,
              share: tuple[int, int] = (0, 1)) -> None:
    """features.parquet: a ``dims``-dimensional float32 vector (standard normal) for each item of
    the run's doc id space (``share`` = (i, n): the i-th of n consecutive slices of the items)."""
    rng = np.random.default_rng([seed, 2])  # its own stream: the other files do not change
    items = docs * 7919  # the run's doc ids: position * 7919 + [0, 7919)
    vectors = rng.standard_normal((items, dims), dtype=np.float32)
    per = -(-items // share[1])
    first, last = share[0] * per, min(items, (share[0] + 1) * per)
    doc = np.arange(first, last, dtype=np.int64)
    frame = pl.DataFrame({"doc_id": doc}).with_columns(
        pl.Series("embedding", vectors[first:last]).cast(pl.List(pl.Float32))
    )
    out.mkdir(parents=True, exist_ok=True)
    frame.with_columns([] if int_ids else [pl.col("doc_id").cast(pl.String)]).write_parquet(out / "features.parquet")


SIDE = ("categories", "groups", "catalog", "base_run")
"""The side inputs written per file with ``--files`` (target.parquet is one file)."""
GROUP_SHARES = (0.4, 0.25, 0.15, 0.12, 0.08)
"""The groups' shares of the items in a group (g0..g4)."""


def _side(out: Path, docs: int, seed: int, int_ids: bool = False, share: tuple[int, int] = (0, 1)) -> None:
    """categories.parquet, groups.parquet and catalog.parquet over the run's doc id space (the
    module's docstring; ``share`` as for :func:`_features`): each from its own seeded stream, drawn
    for every item so that a slice is the same whatever the number of files."""
    items = docs * 7919  # the run's doc ids: position * 7919 + [0, 7919)
    per = -(-items // share[1])
    first, last = share[0] * per, min(items, (share[0] + 1) * per)
    doc = np.arange(items, dtype=np.int64)
    rng = np.random.default_rng([seed, 3])
    count = rng.integers(1, 4, items)  # 1 to 3 categories an item
    drawn = np.argsort(rng.random((items, 20)), axis=1)[:, :3]  # 3 distinct categories, the first count kept
    keep = np.arange(3)[None, :] < count[:, None]
    categories = pl.DataFrame({"doc_id": np.repeat(doc, 3)[keep.ravel()],
                               "category": pl.Series(drawn.ravel()[keep.ravel()]).cast(pl.String).str.zfill(2)})
    categories = categories.with_columns(category=pl.lit("c") + pl.col("category"))
    rng = np.random.default_rng([seed, 4])
    grouped = rng.random(items) >= 0.1  # a tenth of the items in no group
    two = rng.random(items) < 0.25  # a quarter of the others in two groups
    first_g = rng.choice(5, items, p=GROUP_SHARES)
    second_g = (first_g + rng.integers(1, 5, items)) % 5  # another group
    one = grouped & ~two
    both = grouped & two
    groups = pl.DataFrame({
        "doc_id": np.concatenate([doc[one], doc[both], doc[both]]),
        "group": np.concatenate([first_g[one], first_g[both], second_g[both]]),
        "weight": np.concatenate([np.ones(one.sum()), np.full(both.sum(), 0.5), np.full(both.sum(), 0.5)]),
    }).with_columns(group=pl.lit("g") + pl.col("group").cast(pl.String)).sort("doc_id", "group")
    as_str = [] if int_ids else [pl.col("doc_id").cast(pl.String)]
    out.mkdir(parents=True, exist_ok=True)
    for name, frame in (("categories", categories), ("groups", groups), ("catalog", pl.DataFrame({"doc_id": doc}))):
        frame = frame.filter(pl.col("doc_id").is_between(first, last, closed="left"))
        frame.with_columns(as_str).write_parquet(out / f"{name}.parquet")


def _base_run(out: Path, seed: int) -> None:
    """base_run.parquet: the run's (query, doc) rows with new scores (the module's docstring),
    from its own seeded stream."""
    run = pl.read_parquet(out / "run.parquet")
    rng = np.random.default_rng([seed, 5])
    kept = rng.random(run.height) < 0.2
    score = np.where(kept, run["score"].to_numpy() + rng.normal(0, 0.01, run.height), rng.random(run.height))
    run.with_columns(score=pl.Series(score)).write_parquet(out / "base_run.parquet")


def _target(out: Path) -> None:
    """target.parquet: (group, share), the same share for each of the 5 groups."""
    pl.DataFrame({"group": [f"g{i}" for i in range(len(GROUP_SHARES))],
                  "share": [1 / len(GROUP_SHARES)] * len(GROUP_SHARES)}).write_parquet(out / "target.parquet")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out", type=Path)
    p.add_argument("--queries", type=int, default=100_000)
    p.add_argument("--docs", type=int, default=100)
    p.add_argument("--judged", type=int, default=20)
    p.add_argument("--tie-rate", type=float, default=0.1)
    p.add_argument("--sorted", action="store_true", help="write the run sorted by (query, score desc)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--files", type=int, default=1, help="write folders run/ and qrels/ of this many files")
    p.add_argument("--int-ids", action="store_true", help="keep query and doc ids as int64 (MS MARCO style)")
    p.add_argument("--trec", action="store_true", help="also write run.trec and qrels.trec (one file only)")
    p.add_argument("--train-share", type=float, default=0.1, help="training rows per run row (train.parquet)")
    p.add_argument("--dims", type=int, default=64, help="the item features' dimension (features.parquet)")
    a = p.parse_args()
    if a.trec and a.files > 1:
        p.error("--trec writes one run file and one qrels file: not with --files")
    generate(a.out, a.queries, a.docs, a.judged, a.tie_rate, a.sorted, a.seed, a.files, a.int_ids, a.trec,
             a.train_share, a.dims)


if __name__ == "__main__":
    main()
