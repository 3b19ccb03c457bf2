"""Time one ``rw.slate_estimate`` call on a generated slate log (issue 37), in its own process.

``python benchmarks/slate.py --make DIR`` writes DIR/slates.parquet (333,334 slates of 3 documents
drawn in a uniformly random order from 5 per query, 10,000 queries: 1,000,002 rows, seeded) and
DIR/run.parquet (a ranking of each query's 5 documents); ``python benchmarks/slate.py DIR ESTIMATOR
POLICY ENGINE`` (POLICY ``column``: the log's π_e column, ``run``: the run as the evaluation policy)
reads them and prints the seconds the call took (the reads excluded).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path


def main(argv: list[str]) -> None:
    import numpy as np
    import polars as pl

    import rankwise as rw

    if argv[0] == "--make":
        folder, n = Path(argv[1]), 333_334
        folder.mkdir(parents=True, exist_ok=True)
        rng = np.random.default_rng(0)
        q = rng.integers(0, 10_000, n)
        doc = (q[:, None] * 5 + np.argsort(rng.random((n, 5)), axis=1)[:, :3]).ravel()
        ranks = np.tile([1, 2, 3], n)
        pl.DataFrame({
            "slate": np.repeat(np.arange(n), 3), "query_id": np.repeat(q, 3), "doc_id": doc, "rank": ranks,
            "click": (rng.random(n * 3) < 0.5 / ranks).astype(np.int64), "pscore": 1 / 60, "pscore_item_position": 1 / 5,
            "pscore_cascade": np.tile([1 / 5, 1 / 20, 1 / 60], n), "evaluation_policy_pscore_item_position": rng.random(n * 3),
        }).write_parquet(folder / "slates.parquet")
        pl.DataFrame({"query_id": np.repeat(np.arange(10_000), 5), "doc_id": np.arange(50_000),
                      "score": rng.random(50_000)}).write_parquet(folder / "run.parquet")
        return
    folder, estimator, policy, engine = Path(argv[0]), *argv[1:4]
    log = pl.read_parquet(folder / "slates.parquet")
    run = pl.read_parquet(folder / "run.parquet") if policy == "run" else None
    start = time.perf_counter()
    rw.slate_estimate(log, run, estimator=estimator, impression="slate", engine=engine)
    print(f"{time.perf_counter() - start:.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
