"""Generate the bundled sample data (examples/data/run.parquet, run_b.parquet, qrels.parquet), seeded.

A search system's run over 200 queries (100 documents each, scores rounded so that some tie)
and graded judgments (0-3) for a pool of 40 documents per query, relevant documents tending
to score higher. Two queries have nothing relevant; one judged query (q200) is missing from the
run, so trec_eval's ``num_q`` (and rankwise's) counts 199: a judged query the run lacks is left
out of the means unless ``-c`` (``missing='zero'``) scores it 0.

``run_b.parquet`` is a second system over the same queries and documents (q200 missing too),
modestly better: its scores follow the grades a little more closely, so that ``rankwise compare``
and the report can be tried on the bundled data at once. It is drawn from its own seed after
the first run, which stays as it was.

    python examples/make_sample_data.py
"""

from __future__ import annotations

import random
from pathlib import Path

import polars as pl

SEED = 20261122
SEED_B = SEED + 1
QUERIES = 200
DOCS_PER_QUERY = 100
POOL = 40
SIGNAL = 0.8  # how strongly the first run's scores follow the grades
SIGNAL_B = 1.0  # the second run's: a modestly better system

RUN_SCHEMA = {"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}


def _ranked(rng: random.Random, docs: list[str], grades: dict[str, int], signal: float) -> list[tuple[str, float]]:
    """The top DOCS_PER_QUERY of ``docs`` by a noisy score following the grades, each with a
    score decreasing with the rank, rounded so that some tie."""
    scored = sorted(docs, key=lambda d: rng.gauss(grades[d] * signal, 1.0), reverse=True)
    return [(d, round(20.0 - rank * 0.15 + rng.random() * 0.3, 1)) for rank, d in enumerate(scored[:DOCS_PER_QUERY], start=1)]


def generate_all(seed: int = SEED, seed_b: int = SEED_B) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The run, the second run and the qrels."""
    rng = random.Random(seed)
    run_rows: list[tuple[str, str, float]] = []
    qrels_rows: list[tuple[str, str, int]] = []
    queries: list[tuple[str, list[str], dict[str, int]]] = []
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
        queries.append((qid, docs, grades))
        run_rows.extend((qid, d, score) for d, score in _ranked(rng, docs, grades, SIGNAL))
    rng_b = random.Random(seed_b)
    run_b_rows = [(qid, d, score) for qid, docs, grades in queries for d, score in _ranked(rng_b, docs, grades, SIGNAL_B)]
    run = pl.DataFrame(run_rows, schema=RUN_SCHEMA, orient="row")
    run_b = pl.DataFrame(run_b_rows, schema=RUN_SCHEMA, orient="row")
    qrels = pl.DataFrame(qrels_rows, schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64}, orient="row")
    return run, run_b, qrels


def generate(seed: int = SEED) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The run and the qrels (as before the second run was added)."""
    run, _, qrels = generate_all(seed)
    return run, qrels


def main() -> None:
    out = Path(__file__).resolve().parent / "data"
    out.mkdir(exist_ok=True)
    run, run_b, qrels = generate_all()
    run.write_parquet(out / "run.parquet")
    run_b.write_parquet(out / "run_b.parquet")
    qrels.write_parquet(out / "qrels.parquet")
    print(f"wrote {run.height} + {run_b.height} run rows and {qrels.height} judgments to {out}")


if __name__ == "__main__":
    main()
