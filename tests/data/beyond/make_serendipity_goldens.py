"""Write ``serendipity_goldens.json``: per-user values of rectools' ``CoveredUsers(k)`` and
``Serendipity(k)``, and of recommenders' ``user_serendipity`` and ``user_diversity`` (issue 35),
frozen for rankwise's tests.

Why frozen: the values are computed once, in the environment the other beyond-accuracy goldens come
from (pandas < 3, which the libraries pin; rankwise's has pandas 3), and committed with the cases, so
that the tests read the JSON and import no library (rectools also runs live in the tests where it is
installed).

How to run (the values were written with Python 3.11, rectools 0.19.0, recommenders 1.2.1, pandas 2.3.3,
numpy 2.4.6, scikit-learn 1.8.0):

    python -m venv venv && . venv/bin/activate
    pip install "pandas<3" numpy scipy attrs typeguard "scikit-learn<1.9"
    pip install --no-deps rectools==0.19.0 recommenders==1.2.1
    python tests/data/beyond/make_serendipity_goldens.py [OUT.json]

The output is deterministic: running it twice writes the same bytes.

Each case holds the run as (user, item, score) rows, the qrels as (user, item, relevance) rows, the
training interactions as (user, item) rows (repeats kept) and the catalog as a list of distinct items,
as rankwise reads them. The libraries are given each user's items in the order rankwise's default tie
policy makes of the rows (``ties='trec_eval'``: score descending, then item id descending as text) as
ranks 1, 2, ...; rectools' test interactions are the qrels' (user, item) pairs of relevance >= 1, its
previous interactions the training rows, its catalog the catalog. recommenders (no k: its lists are cut
at k here) gets the training rows as ``train_df``, each user's first k items as ``reco_df`` with a
``relevance`` column (1 for a judgment of relevance >= 1, else 0) or without one (its default: 1), and the
item features as ``item_feature_df``; it needs pandas < 3 (under pandas 3 its chained ``fillna`` is a no-op
and pairs that never co-occur are silently skipped), refuses listed items a user has in training (no case
lists one) and divides by zero on a zero vector (no case has one). The libraries are imported only when
``main`` runs, so importing this module (pytest's doctest collection does) needs none of it.
"""

from __future__ import annotations

import json
import random
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "serendipity_goldens.json"


def ranked(rows: list[list[Any]]) -> dict[Any, list[Any]]:
    """Each user's items in rankwise's ``ties='trec_eval'`` order: score descending, then item
    id descending as text (users in the order of their first row).

    >>> ranked([["u", "a", 1.0], ["u", "b", 1.0], ["u", "c", 2.0]])
    {'u': ['c', 'b', 'a']}
    """
    out: dict[Any, list[tuple[Any, float]]] = {}
    for user, item, score in rows:
        out.setdefault(user, []).append((item, float(score)))
    return {
        u: [i for i, _ in sorted(sorted(items, key=lambda x: str(x[0]), reverse=True), key=lambda x: -x[1])]
        for u, items in out.items()
    }


def case_hand() -> dict[str, Any]:
    """String ids, k = 3, a catalog of 8 items. Training rows: a 3 (u1, u2 twice: a repeat), b 2,
    c 2 (b and c tie: dense popularity rank 2), d 1 (rank 3); x, y, z, w never in training.
    u1: a list of four (the fourth beyond k), relevant b and x; u2: a list of two (shorter than
    k), relevant a (the most popular: p(r) − pu below 0); u3: no training rows, relevant z;
    u4: judged, nothing relevant (serendipity 0, not scored by CoveredUsers); u5: judged,
    relevant, no list (CoveredUsers 0); u6: a list and a relevant item, the list's first item a
    tie of rank 2."""
    run = [["u1", "b", 4.0], ["u1", "x", 3.0], ["u1", "d", 2.0], ["u1", "y", 1.0],
           ["u2", "a", 2.0], ["u2", "w", 1.0],
           ["u3", "z", 3.0], ["u3", "c", 2.0], ["u3", "a", 1.0],
           ["u4", "x", 2.0], ["u4", "b", 1.0],
           ["u6", "c", 3.0], ["u6", "d", 2.0], ["u6", "y", 1.0]]
    qrels = [["u1", "b", 1], ["u1", "x", 2], ["u1", "a", 0],
             ["u2", "a", 1], ["u2", "z", 1],
             ["u3", "z", 1],
             ["u4", "y", 0],
             ["u5", "a", 1],
             ["u6", "c", 1], ["u6", "y", 1]]
    train = [["u1", "a"], ["u2", "a"], ["u2", "a"], ["u1", "c"], ["u2", "b"], ["u7", "b"], ["u7", "c"],
             ["u8", "d"]]
    catalog = ["a", "b", "c", "d", "x", "y", "z", "w"]
    return {"name": "hand", "ids": "str", "k": 3, "run": run, "qrels": qrels, "train": train, "catalog": catalog,
            "about": "popularity ties (b, c), repeats in training (u2, a), items never in training (x, y, z, w), "
                     "a user without training (u3), nothing relevant (u4), a judged user without a list (u5), a "
                     "list shorter than k (u2), a list longer than k (u1)"}


def case_random(name: str, seed: int, ids: str, k: int) -> dict[str, Any]:
    """Random users and items with a skewed popularity (training items drawn by weight 1/(j+1)), repeated
    training rows, users without training rows, items never in training, lists of 1 to 7 items (some
    shorter than k), qrels of relevance 0 to 2 over listed items
    and a few unlisted ones, judged users without a
    list. A user's list holds none of its own training items (recommenders refuses them)."""
    rng = random.Random(seed)
    n_items = rng.randint(12, 20)
    items: list[Any] = [f"i{j}" for j in range(n_items)]
    trained = items[: n_items - 4]
    weights = [1.0 / (j + 1) for j in range(len(trained))]
    train: list[list[Any]] = []
    for u in range(10):
        if u in (3, 7):  # no training rows
            continue
        for _ in range(rng.randint(1, 6)):
            train.append([f"u{u}", rng.choices(trained, weights)[0]])
    history = {u: {i for v, i in train if v == u} for u in {v for v, _ in train}}
    run: list[list[Any]] = []
    qrels: list[list[Any]] = []
    for u in range(12):
        user = f"u{u}"
        if u < 10:
            pool = [i for i in items if i not in history.get(user, set())]
            listed = rng.sample(pool, rng.randint(1, min(7, len(pool))))
            scores = rng.sample(range(1, 100), len(listed))
            run += [[user, item, float(s)] for item, s in zip(listed, scores, strict=True)]
            # most judgments on the listed items: serendipity weighs the relevant ones
            judged = rng.sample(listed, rng.randint(1, len(listed)))
            judged += rng.sample([i for i in items if i not in judged], rng.randint(0, 2))
        else:  # judged, without a list
            judged = rng.sample(items, 2)
        qrels += [[user, item, rng.choice([0, 1, 1, 2])] for item in judged]
    catalog = list(items)
    # features: a nonzero vector of 3 small integers per item (recommenders divides by zero on a zero vector)
    features = {}
    for item in items:
        vector = [float(rng.randint(0, 2)) for _ in range(3)]
        features[item] = vector if any(vector) else [1.0, 0.0, 0.0]
    if ids == "int":
        def num(x: str) -> int:
            return int(x[1:])

        run = [[num(u), num(i), s] for u, i, s in run]
        qrels = [[num(u), num(i), r] for u, i, r in qrels]
        train = [[num(u), num(i)] for u, i in train]
        catalog = [num(i) for i in catalog]
    return {"name": name, "ids": ids, "k": k, "run": run, "qrels": qrels, "train": train, "catalog": catalog,
            "features": [[num(i) if ids == "int" else i, v] for i, v in features.items()],
            "about": f"random (seed {seed}), {ids} ids, k = {k}"}


def case_cooccurrence() -> dict[str, Any]:
    """String ids, k = 2, for recommenders' similarities: u1 lists c, d (history a, b), u2 d, c (history a),
    u3 c without training (recommenders leaves it out), u4 a single item (no pair: recommenders' diversity
    leaves it out); a, c co-occur once (u5), b, c and b, d and c, d once (u6), a, d once (u7)."""
    run = [["u1", "c", 2.0], ["u1", "d", 1.0], ["u2", "d", 2.0], ["u2", "c", 1.0], ["u3", "c", 1.0], ["u4", "b", 1.0]]
    qrels = [["u1", "c", 1], ["u1", "d", 0], ["u2", "d", 1], ["u3", "c", 1], ["u4", "b", 1]]
    train = [["u1", "a"], ["u1", "b"], ["u2", "a"], ["u5", "a"], ["u5", "c"], ["u6", "b"], ["u6", "c"], ["u6", "d"],
             ["u7", "a"], ["u7", "d"]]
    features = [["a", [1.0, 0.0]], ["b", [0.0, 1.0]], ["c", [1.0, 1.0]], ["d", [0.0, 2.0]]]
    return {"name": "cooccurrence", "ids": "str", "k": 2, "run": run, "qrels": qrels, "train": train,
            "catalog": ["a", "b", "c", "d"], "features": features,
            "about": "hand-sized co-occurrence: a user without training (u3), a one-item list (u4)"}


def cases() -> list[dict[str, Any]]:
    """The hand case and three seeded random ones (one with integer ids)."""
    return [case_hand(), case_random("random1", 35, "str", 3), case_random("random2", 3500, "str", 5),
            case_random("random3", 350, "int", 4), case_cooccurrence()]


def values(case: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Each library's per-user values (users as text)."""
    import pandas as pd
    from rectools import metrics

    k = case["k"]
    run = ranked(case["run"])
    reco = pd.DataFrame([(u, i, r) for u, items in run.items() for r, i in enumerate(items, 1)],
                        columns=["user_id", "item_id", "rank"])
    interactions = pd.DataFrame([(u, i) for u, i, rel in case["qrels"] if rel >= 1], columns=["user_id", "item_id"])
    prev = pd.DataFrame(case["train"], columns=["user_id", "item_id"])

    def per_user(series: Any) -> dict[str, float]:
        return {str(u): float(v) for u, v in series.items()}

    out = {
        "rectools.CoveredUsers": per_user(metrics.CoveredUsers(k).calc_per_user(reco, interactions)),
        "rectools.Serendipity": per_user(metrics.Serendipity(k).calc_per_user(reco, interactions, prev,
                                                                               case["catalog"])),
    }
    if "features" in case:
        out.update(recommenders_values(case, run))
    return out


def recommenders_values(case: dict[str, Any], run: dict[Any, list[Any]]) -> dict[str, dict[str, float]]:
    """recommenders' per-user serendipity (co-occurrence with the qrels' relevance and with its default
    relevance 1; cosine of the features) and diversity (co-occurrence), on each user's first k items."""
    import numpy as np
    import pandas as pd
    from recommenders.evaluation import python_evaluation as pe

    k = case["k"]
    relevant = {(u, i) for u, i, rel in case["qrels"] if rel >= 1}
    reco = pd.DataFrame([(u, i) for u, items in run.items() for i in items[:k]], columns=["userID", "itemID"])
    train = pd.DataFrame(case["train"], columns=["userID", "itemID"])
    features = pd.DataFrame({"itemID": [i for i, _ in case["features"]],
                             "features": [np.asarray(v, dtype=float) for _, v in case["features"]]})
    with_relevance = reco.assign(relevance=[float((u, i) in relevant) for u, i in zip(reco["userID"], reco["itemID"],
                                                                                       strict=True)])

    def per_user(frame: Any, column: str) -> dict[str, float]:
        return {str(u): float(v) for u, v in zip(frame["userID"], frame[column], strict=True)}

    def clear() -> None:  # each function caches its last frames (lru_cache_df): computed afresh each time
        for name in ("_get_pairwise_items", "_get_cosine_similarity", "_get_cooccurrence_similarity",
                     "_get_item_feature_similarity", "_get_intralist_similarity", "user_diversity",
                     "user_item_serendipity", "user_serendipity"):
            function = getattr(pe, name)
            for f in (function, getattr(function, "__wrapped__", None)):
                if f is not None and hasattr(f, "cache_clear"):
                    f.cache_clear()

    out = {}
    clear()
    out["recommenders.user_serendipity"] = per_user(
        pe.user_serendipity(train, with_relevance, col_relevance="relevance"), "user_serendipity")
    clear()
    out["recommenders.user_serendipity(relevance=1)"] = per_user(pe.user_serendipity(train, reco), "user_serendipity")
    clear()
    out["recommenders.user_serendipity(item_feature_vector)"] = per_user(
        pe.user_serendipity(train, with_relevance, item_feature_df=features, item_sim_measure="item_feature_vector",
                            col_relevance="relevance"), "user_serendipity")
    clear()
    out["recommenders.user_diversity"] = per_user(pe.user_diversity(train, reco), "user_diversity")
    return out


def main(out: Path = OUT) -> None:
    done = []
    for case in cases():
        done.append({**case, "values": values(case)})
    versions = {name: metadata.version(name) for name in ("rectools", "recommenders", "pandas", "numpy", "scikit-learn")}
    doc = {
        "about": "rectools CoveredUsers(k) and Serendipity(k), recommenders user_serendipity and user_diversity per "
                 "user, written by make_serendipity_goldens.py",
        "versions": versions,
        "sources": {
            "rectools.CoveredUsers": "rectools/metrics/dq.py:205-266",
            "rectools.Serendipity": "rectools/metrics/serendipity.py:110-205",
            "recommenders.user_serendipity": "recommenders/evaluation/python_evaluation.py:1443-1641",
            "recommenders.user_diversity": "recommenders/evaluation/python_evaluation.py:1202-1352",
            "recommenders.co-occurrence": "recommenders/evaluation/python_evaluation.py:1109-1163",
        },
        "cases": done,
    }
    out.write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
