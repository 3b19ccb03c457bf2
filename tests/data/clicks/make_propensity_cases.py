"""Freeze ultr-bias-toolkit's intervention-harvesting propensities into propensity_cases.json.

ultr-bias-toolkit 0.0.5 (Hager; PyPI ``ultr-bias-toolkit``, which pins pandas < 3 and imports torch
through ``intervention_harvesting/__init__.py``) runs in an environment of its own. Its
``PivotEstimator(pivot_rank)``, ``AdjacentChainEstimator`` and ``NaiveCtrEstimator``
(``bias/naive.py``: the click-through rate per rank over rank 1's, an estimate of θ on randomised
rankings only) (``bias/intervention_harvesting/
pivot.py``, ``adjacent_chain.py``, with ``util.build_intervention_sets``) are run on seeded click
logs in which each (query, document) is shown at several ranks (rankings shuffled per impression)
and clicks follow a position-based model (θ(r) = 1/r, relevance drawn per document). Run:

    /work/scratch/venv-clicks/bin/python tests/data/clicks/make_propensity_cases.py > tests/data/clicks/propensity_cases.json

Each case: the log's columns (query_id, doc_id, rank, click, impression) and each estimator's
(position, examination) rows as it returns them.
"""

import json
import random


def main() -> None:
    # imported here: pytest's doctest collection imports this module, and the toolkit is not installed beside rankwise
    import pandas as pd
    from ultr_bias_toolkit.bias.intervention_harvesting import (
        AdjacentChainEstimator,
        PivotEstimator,
    )
    from ultr_bias_toolkit.bias.naive import NaiveCtrEstimator

    cases = []
    for seed in range(4):
        rng = random.Random(seed)
        rows = []
        for q in range(6):
            docs = [f"q{q}d{i}" for i in range(5)]
            relevance = {d: rng.random() for d in docs}
            for i in range(60):
                order = docs[:]
                rng.shuffle(order)
                for r, d in enumerate(order, start=1):
                    click = int(rng.random() < relevance[d] / r)
                    rows.append({"query_id": f"q{q}", "doc_id": d, "rank": r, "click": click, "impression": f"q{q}-{i}"})
        frame = pd.DataFrame(rows).rename(columns={"rank": "position"})
        expected = {}
        for name, estimator in (("pivot1", PivotEstimator(1)), ("pivot2", PivotEstimator(2)),
                                ("adjacent", AdjacentChainEstimator()), ("randomized", NaiveCtrEstimator())):
            got = estimator(frame)
            expected[name] = [[int(p), float(e)] for p, e in zip(got["position"], got["examination"], strict=True)]
        log = {key: [row[key] for row in rows] for key in rows[0]}  # columns
        cases.append({"seed": seed, "log": log, "expected": expected})
    print(json.dumps({"source": "ultr-bias-toolkit 0.0.5 (PyPI), pandas " + pd.__version__, "cases": cases}))


if __name__ == "__main__":
    main()
