"""Generate the bundled sample data (examples/data/run.parquet, qrels.parquet), seeded.

A search system's run over 200 queries (100 documents each, scores rounded so that some tie)
and graded judgments (0-3) for a pool of 40 documents per query, relevant documents tending
to score higher. Two queries have nothing relevant; one judged query is missing from the run.

    python examples/make_sample_data.py
"""

from __future__ import annotations

import random
from pathlib import Path

import polars as pl

SEED = 20261122
QUERIES = 200
DOCS_PER_QUERY = 100
POOL = 40


def generate(seed: int = SEED) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = random.Random(seed)
    run_rows: list[tuple[str, str, float]] = []
    qrels_rows: list[tuple[str, str, int]] = []
    for q in range(1, QUERIES + 1):
        qid = f"q{q:03d}"
        corpus = [f"doc{rng.randrange(1_000_000):06d}" for _ in range(DOCS_PER_QUERY * 3)]
        docs = list(dict.fromkeys(corpus))[: DOCS_PER_QUERY * 2]
        nothing_relevant = q in (17, 101)
        grades = {d: 0 if nothing_relevant else rng.choices([0, 1, 2, 3], weights=[70, 15, 10, 5])[0] for d in docs}
        pool = docs[:POOL]
        for d in pool:
            qrels_rows.append((qid, d, grades[d]))
        if q == 200:  # judged, but the system returned nothing for it
            continue
        scored = sorted(docs, key=lambda d: rng.gauss(grades[d] * 0.8, 1.0), reverse=True)
        for rank, d in enumerate(scored[:DOCS_PER_QUERY], start=1):
            run_rows.append((qid, d, round(20.0 - rank * 0.15 + rng.random() * 0.3, 1)))
    run = pl.DataFrame(run_rows, schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}, orient="row")
    qrels = pl.DataFrame(qrels_rows, schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64}, orient="row")
    return run, qrels


def main() -> None:
    out = Path(__file__).resolve().parent / "data"
    out.mkdir(exist_ok=True)
    run, qrels = generate()
    run.write_parquet(out / "run.parquet")
    qrels.write_parquet(out / "qrels.parquet")
    print(f"wrote {run.height} run rows and {qrels.height} judgments to {out}")


if __name__ == "__main__":
    main()
