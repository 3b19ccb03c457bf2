"""Derive the bundled data of prediction-powered inference (docs/ppi.md) from qrels.parquet, seeded.

``qrels_model.parquet``: a model's judgments of every judged (query, document) of qrels.parquet,
the grade (0-3) plus Gaussian noise (sd 0.8), rounded and kept in 0-3, as a noisy language-model
judge; ``qrels_human.parquet``: the judgments of qrels.parquet on a random sample of 40 of its 200
queries (the queries judged by people too).

    python examples/make_ppi_data.py
"""

from __future__ import annotations

import random
from pathlib import Path

import polars as pl

SEED = 20261128
HUMAN_QUERIES = 40
NOISE = 0.8
DATA = Path(__file__).resolve().parent / "data"


def main() -> None:
    """Write qrels_model.parquet and qrels_human.parquet beside qrels.parquet."""
    rng = random.Random(SEED)
    qrels = pl.read_parquet(DATA / "qrels.parquet").sort("query_id", "doc_id")
    noisy = [min(3, max(0, round(rel + rng.gauss(0, NOISE)))) for rel in qrels["relevance"].to_list()]
    qrels.with_columns(relevance=pl.Series(noisy, dtype=pl.Int64)).write_parquet(DATA / "qrels_model.parquet")
    queries = sorted(qrels["query_id"].unique().to_list())
    human = sorted(rng.sample(queries, HUMAN_QUERIES))
    qrels.filter(pl.col("query_id").is_in(human)).write_parquet(DATA / "qrels_human.parquet")


if __name__ == "__main__":
    main()
