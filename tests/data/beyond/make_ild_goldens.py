"""Write ``ild_goldens.json``: per-user values of the intra-list diversity / similarity metrics of issue 35,
computed by the libraries that define them (rexmex, recommenders, rectools), frozen for rankwise's tests.

Why frozen: rexmex's ``intra_list_similarity`` and recommenders' ``user_diversity`` need pandas < 3
(recommenders pins it; under pandas 3 its functions fail or change silently), and rectools'
``IntraListDiversity`` fails under pandas 3 with string item ids, while rankwise's environment has pandas 3.
So the values are computed once, in a separate environment, and committed with the cases; the tests read
the JSON and never import the libraries (rectools is also called live, with integer ids, in
tests/metrics/test_feature_diversity.py).

How to run (a virtual environment with pandas < 3 and the libraries; the values were written with Python
3.11, pandas 2.3.3, numpy 2.4.6, scikit-learn 1.8.0):

    python -m venv venv && . venv/bin/activate
    pip install "pandas<3" numpy scipy "scikit-learn<1.9"
    pip install --no-deps rexmex==0.1.3 recommenders==1.2.1 rectools==0.19.0
    pip install attrs pydantic typeguard                 # what `import rectools.metrics` needs
    python tests/data/beyond/make_ild_goldens.py [OUT.json]

The output is deterministic: running it twice writes the same bytes.

The library calls (inputs: the run as (user, item, score) rows, rank = order by descending score, the first
k of each list; features {item: vector}):

- rexmex: ``rexmex.metrics.ranking.intra_list_similarity([list], matrix)`` called once per user (it averages
  over the lists it is given), the items mapped to the matrix's rows;
- recommenders: ``python_evaluation.user_diversity(train_df, reco_df, item_feature_df=...,
  item_sim_measure='item_feature_vector')``, reco_df the first k rows of each list; train_df one row of a
  user absent from the run (the function refuses recommendations already in train_df and reads train_df
  only for co-occurrence similarity);
- rectools: ``IntraListDiversity(k, PairwiseHammingDistanceCalculator(features_df)).calc_per_user(reco)``.

The libraries are imported only when ``main`` runs, so importing this module (pytest's doctest collection
does) needs none of them.
"""

from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "ild_goldens.json"

# --------------------------------------------------------------------------------------------
# cases
# --------------------------------------------------------------------------------------------


def _run(lists: dict[Any, list[Any]]) -> list[list[Any]]:
    """(user, item, score) rows, scores n - r (strictly decreasing down each list)."""
    return [[u, i, float(len(items) - r)] for u, items in lists.items() for r, i in enumerate(items)]


def case_hand() -> dict[str, Any]:
    """Binary features of 4 dimensions; a list of 4 (k = 3 cuts it), one of 2, one of 1 item, one of
    two identical vectors."""
    features = {"A": [1, 0, 1, 0], "B": [1, 1, 0, 0], "C": [0, 0, 1, 1], "D": [1, 1, 1, 1], "E": [1, 0, 1, 0]}
    lists = {"u1": ["A", "B", "C", "D"], "u2": ["B", "D"], "u3": ["C"], "u4": ["A", "E"]}
    return {"name": "hand", "k": 3, "ids": "str", "features": features, "run": _run(lists)}


def case_random_binary() -> dict[str, Any]:
    """30 items of 8 binary features, 25 users with lists of 1 to 12 items, k = 5."""
    rng = random.Random(35)
    items = [f"i{n:02d}" for n in range(30)]
    features = {i: [rng.randint(0, 1) for _ in range(8)] for i in items}
    features["i00"] = [1] + [0] * 7  # never all zeros: recommenders divides by the norm
    for v in features.values():
        if not any(v):
            v[rng.randrange(8)] = 1
    lists = {f"u{n:02d}": rng.sample(items, rng.randint(1, 12)) for n in range(25)}
    return {"name": "random_binary", "k": 5, "ids": "str", "features": features, "run": _run(lists)}


def case_random_real() -> dict[str, Any]:
    """40 items of 5 real-valued features (negative values too), 20 users, k = 10 (beyond some lists)."""
    rng = random.Random(36)
    items = [f"x{n:02d}" for n in range(40)]
    features = {i: [round(rng.uniform(-2, 3), 3) for _ in range(5)] for i in items}
    lists = {f"v{n:02d}": rng.sample(items, rng.randint(2, 14)) for n in range(20)}
    return {"name": "random_real", "k": 10, "ids": "str", "features": features, "run": _run(lists)}


def case_zero_vector() -> dict[str, Any]:
    """An item whose vector is all zeros: sklearn's cosine (rexmex) is 0 against it; recommenders raises
    ZeroDivisionError (recorded in the case's errors)."""
    features = {"a": [0.0, 0.0, 0.0], "b": [1.0, 2.0, 0.0], "c": [0.5, 0.0, 1.0]}
    lists = {"w1": ["a", "b", "c"], "w2": ["b", "c"]}
    return {"name": "zero_vector", "k": 3, "ids": "str", "features": features, "run": _run(lists)}


def case_int_ids() -> dict[str, Any]:
    """Integer user and item ids."""
    rng = random.Random(37)
    items = list(range(100, 115))
    features = {i: [rng.choice([0, 1, 2]) for _ in range(6)] for i in items}
    for v in features.values():
        if not any(v):
            v[0] = 1
    lists = {u: rng.sample(items, rng.randint(1, 8)) for u in range(1, 11)}
    return {"name": "int_ids", "k": 4, "ids": "int", "features": features, "run": _run(lists)}


CASES = (case_hand, case_random_binary, case_random_real, case_zero_vector, case_int_ids)

# --------------------------------------------------------------------------------------------
# the libraries
# --------------------------------------------------------------------------------------------


def _lists(case: dict[str, Any]) -> dict[Any, list[Any]]:
    """Each user's items in rank order (descending score), cut at k."""
    out: dict[Any, list[tuple[float, Any]]] = {}
    for u, i, s in case["run"]:
        out.setdefault(u, []).append((s, i))
    return {u: [i for _, i in sorted(rows, key=lambda r: -r[0])][: case["k"]] for u, rows in out.items()}


def _value(x: Any) -> float | None:
    x = float(x)
    return None if math.isnan(x) else x


def compute(case: dict[str, Any]) -> dict[str, Any]:
    import warnings

    import numpy as np
    import pandas as pd
    from recommenders.evaluation import python_evaluation as pe
    from rectools import Columns
    from rectools.metrics import IntraListDiversity
    from rectools.metrics.distances import PairwiseHammingDistanceCalculator
    from rexmex.metrics import ranking as rk

    lists = _lists(case)
    features = case["features"]
    items = list(features)
    matrix = np.array([np.asarray(features[i], dtype=float) for i in items])
    row = {i: n for n, i in enumerate(items)}
    values: dict[str, dict[str, float | None]] = {}
    errors: dict[str, str] = {}

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's mean of an empty slice, recommenders' 0 / 0
        values["rexmex.intra_list_similarity"] = {
            str(u): _value(rk.intra_list_similarity([[row[i] for i in its]], matrix)) for u, its in lists.items()
        }
        reco = pd.DataFrame([(u, i) for u, its in lists.items() for i in its], columns=["userID", "itemID"])
        train = pd.DataFrame([("__train_only__", items[0])], columns=["userID", "itemID"])
        if case["ids"] == "int":
            train["userID"] = [-1]
        feats = pd.DataFrame({"itemID": items, "features": [np.asarray(features[i], dtype=float) for i in items]})
        for f in (pe._get_pairwise_items, pe._get_item_feature_similarity, pe._get_intralist_similarity,
                  pe.user_diversity):
            clear = getattr(f, "cache_clear", None)
            if clear:
                clear()
        try:
            df = pe.user_diversity(train, reco, item_feature_df=feats, item_sim_measure="item_feature_vector")
        except ZeroDivisionError as exc:  # a zero vector: its cosine divides by a zero norm
            errors["recommenders.user_diversity(item_feature_vector)"] = f"{type(exc).__name__}: {exc}"
        else:
            values["recommenders.user_diversity(item_feature_vector)"] = {
                str(u): _value(v) for u, v in zip(df["userID"], df["user_diversity"], strict=True)
            }
    reco_rt = pd.DataFrame(
        [(u, i, r) for u, its in lists.items() for r, i in enumerate(its, 1)],
        columns=[Columns.User, Columns.Item, Columns.Rank],
    )
    features_df = pd.DataFrame(matrix, index=pd.Index(items, name=Columns.Item))
    ild = IntraListDiversity(k=case["k"], distance_calculator=PairwiseHammingDistanceCalculator(features_df))
    per_user = ild.calc_per_user(reco_rt)
    values["rectools.IntraListDiversity(Hamming)"] = {str(u): _value(v) for u, v in per_user.items()}
    out = dict(case)
    out["values"] = values
    if errors:
        out["errors"] = errors
    return out


SOURCES: dict[str, dict[str, str]] = {
    "rexmex.intra_list_similarity": {
        "library": "rexmex", "call": "rexmex.metrics.ranking.intra_list_similarity([user's top-k rows], matrix)",
        "code": "rexmex/metrics/ranking.py:258-285",
        "definition": "mean over the upper triangle of sklearn's cosine_similarity of the list's vectors (0 "
                      "against a zero vector); a list of one item: mean of nothing, NaN (recorded null)",
        "users": "every user of the run"},
    "recommenders.user_diversity(item_feature_vector)": {
        "library": "recommenders",
        "call": "recommenders.evaluation.python_evaluation.user_diversity(train_df, reco_df, item_feature_df, "
                "item_sim_measure='item_feature_vector')",
        "code": "recommenders/evaluation/python_evaluation.py:1166-1199 (_get_item_feature_similarity: "
                "float(f1·f2) / float(|f1| |f2|): ZeroDivisionError against a zero vector), 1247- (user_diversity)",
        "definition": "1 - mean cosine similarity over the distinct pairs of the user's top k; a user with one "
                      "item is absent",
        "users": "the users with at least 2 items"},
    "rectools.IntraListDiversity(Hamming)": {
        "library": "rectools",
        "call": "rectools.metrics.IntraListDiversity(k, PairwiseHammingDistanceCalculator(features_df))"
                ".calc_per_user(reco)",
        "code": "rectools/metrics/diversity.py:103-193, distances.py:59-86",
        "definition": "mean over the pairs of the top-k items of the count of differing features; a list of one "
                      "item 0",
        "users": "every user of the run"},
}


def main(argv: list[str]) -> int:
    import importlib.metadata as md
    import platform

    out_path = Path(argv[1]) if len(argv) > 1 else OUT
    cases = [compute(make()) for make in CASES]
    versions = {name: md.version(name) for name in ("rexmex", "recommenders", "rectools")}
    environment = f"Python {platform.python_version()}, " + ", ".join(
        f"{name} {md.version(name)}" for name in ("pandas", "numpy", "scikit-learn")
    )
    doc = {
        "about": {
            "generator": "tests/data/beyond/make_ild_goldens.py (see its docstring)",
            "environment": environment,
            "run": "rows (user, item, score); a user's rank order = descending score (no ties); the first k",
            "values": "values[key][str(user)] = the library's value (null for NaN) for exactly the users the "
                      "library returns",
        },
        "cases": cases,
        "sources": {key: {**src, "version": versions[src["library"]]} for key, src in SOURCES.items()},
    }
    out_path.write_text(json.dumps(doc, indent=1, allow_nan=False) + "\n")
    print(f"wrote {out_path}: {len(cases)} cases")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
