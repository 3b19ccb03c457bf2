"""Write ``category_goldens.json``: per-user values of RePlay's ``CategoricalDiversity@k``
(``replay.metrics.CategoricalDiversity``) and LensKit's ``entropy`` and ``rank_biased_entropy``
(``lenskit.metrics``), frozen for rankwise's tests of the category family (issue 35).

Why frozen: RePlay pins pandas < 3 (and polars < 2, pyarrow < 24, scikit-learn < 1.9), LensKit pins
pandas ~= 2.0 and needs torch, while rankwise's environment has pandas 3. So the values are computed
once, in a separate environment, and committed with the cases; the tests read the JSON and never
import either library.

How to run (the values were written with Python 3.11, replay-rec 0.22.0, lenskit 2025.8.1, pandas
2.3.3, polars 1.44.2, torch 2.13.0+cpu):

    python -m venv venv && . venv/bin/activate
    pip install "pandas<3" "polars<2" "pyarrow<24" "scikit-learn<1.9" numpy scipy
    pip install torch --index-url https://download.pytorch.org/whl/cpu
    pip install --no-deps replay-rec==0.22.0 lenskit==2025.8.1
    pip install lazy-loader structlog more-itertools humanize prettytable xopen deepmerge pyzmq psutil pydantic
    python tests/data/beyond/make_category_goldens.py [OUT.json]

The output is deterministic: running it twice writes the same bytes.

Each case holds the run as (user, item, score) rows and the item categories as (item, category)
rows, as rankwise reads them, and the users the qrels hold (a user without a list is scored with
``missing='zero'``: LensKit's entropy of an empty list, NaN, is null here). The libraries are given
each user's items in rankwise's default order (``ties='trec_eval'``: score descending, then item
id descending as text):

- RePlay's input is one category per recommendation row (query, category, rating): it is given
  each listed item's category with the rating n − rank, in the cases where every item has exactly
  one category (``replay`` values; both its pandas and its Polars paths). An item with several
  categories would be several rows, each taking a place of the k, and an item without one a NULL
  category, which RePlay counts as one more distinct value: neither is rankwise's definition, so
  those cases carry no RePlay value (the tests check them by hand).
- LensKit is given each list's item × category matrix, one 0/1 column per category of the whole
  input (sorted by name; an item without a category a row of zeros), with ``n=k``
  (``lenskit`` values: ``entropy``; ``lenskit_geometric``: ``rank_biased_entropy`` with its
  default ``GeometricRankWeight(0.85)``; ``lenskit_patience``: with ``GeometricRankWeight(p)`` for
  each p of ``PATIENCES``). The libraries are imported only when ``main`` runs, so
  importing this module (pytest's doctest collection does) needs none of them.
"""

from __future__ import annotations

import json
import math
import random
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "category_goldens.json"


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
    """String ids, one category per item, k = 3: a repeated category, a list shorter than k
    (over k all the same), a list of one item, a user without a list."""
    run = [["u1", "a", 5.0], ["u1", "b", 4.0], ["u1", "c", 3.0], ["u1", "d", 2.0],
           ["u2", "a", 3.0], ["u2", "e", 2.0],
           ["u3", "c", 1.0]]
    categories = [["a", "drama"], ["b", "drama"], ["c", "comedy"], ["d", "horror"], ["e", "news"]]
    return {"name": "hand", "ids": "str", "k": 3, "run": run, "categories": categories, "users": ["u1", "u2", "u3", "u4"],
            "about": "u1: drama twice in the top 3 (d, horror, beyond it); u2: two items, two categories "
                     "(over k = 3); u3: one item; u4: no list (null)"}


def _seeded(seed: int, ids: str, most: int, k: int) -> dict[str, Any]:
    """Seeded: 12 users with lists of 0-7 of 15 items (two without a list), each item with 0 to
    ``most`` of 6 categories (some items without one)."""
    rng = random.Random(seed)
    items: list[Any] = list(range(1, 16)) if ids == "int" else [f"i{n}" for n in range(1, 16)]
    names: list[Any] = list(range(10, 16)) if ids == "int" else ["action", "drama", "comedy", "horror", "news", "kids"]
    categories: list[list[Any]] = []
    for item in items:
        lo = 1 if most == 1 else 0
        for c in rng.sample(names, rng.randint(lo, most)):
            categories.append([item, c])
    users: list[Any] = list(range(1, 13)) if ids == "int" else [f"u{n}" for n in range(1, 13)]
    run: list[list[Any]] = []
    for u in users[:-2]:
        for i in rng.sample(items, rng.randint(1, 7)):
            run.append([u, i, float(rng.randint(1, 4))])
    return {"name": f"seeded_{seed}", "ids": ids, "k": k, "run": run, "categories": categories, "users": users,
            "about": f"seeded ({seed}): {ids} ids, lists of 1-7 items (scores 1-4: ties), 2 users without a list, "
                     f"each item with {'exactly 1' if most == 1 else f'0 to {most}'} of 6 categories"}


def case_multi_str() -> dict[str, Any]:
    return _seeded(351, "str", 3, 5)


def case_multi_int() -> dict[str, Any]:
    return _seeded(352, "int", 3, 4)


def case_single_int() -> dict[str, Any]:
    return _seeded(353, "int", 1, 5)


CASES = (case_hand, case_multi_str, case_multi_int, case_single_int)


def _key(user: Any) -> str:
    return str(user)


def replay_values(lists: dict[Any, list[Any]], category: dict[Any, Any], k: int, engine: str) -> dict[str, float]:
    """RePlay's per-user values (ratings n − rank, each item its one category), keyed by the user as text."""
    import pandas as pd
    import polars as pl
    from replay.metrics import CategoricalDiversity
    from replay.metrics.descriptors import PerUser

    rows = [(u, category[i], float(len(items) - r)) for u, items in lists.items() for r, i in enumerate(items)]
    frame: Any = pd.DataFrame(rows, columns=["query_id", "category_id", "rating"])
    if engine == "polars":
        frame = pl.from_pandas(frame)
    (per_user,) = CategoricalDiversity(k, mode=PerUser())(frame).values()
    return {_key(u): float(v) for u, v in sorted(per_user.items(), key=lambda x: str(x[0]))}


PATIENCES = (0.3, 0.95)
"""The patiences other than LensKit's default 0.85 given to ``rank_biased_entropy``
(``GeometricRankWeight(patience)``): ``lenskit_patience[patience][user]``."""


def lenskit_values(
    lists: dict[Any, list[Any]], users: list[Any], categories: list[list[Any]], k: int, geometric: bool,
    patience: float = 0.85,
) -> dict[str, float | None]:
    """LensKit's entropy (or rank_biased_entropy, weighted by ``GeometricRankWeight(patience)``) of
    each user's list (empty: NaN, as null)."""
    import numpy as np
    from lenskit import metrics
    from lenskit.data import ItemList

    names = sorted({str(c) for _, c in categories})
    of: dict[Any, set[str]] = {}
    for item, c in categories:
        of.setdefault(item, set()).add(str(c))
    out: dict[str, float | None] = {}
    for u in users:
        items = lists.get(u, [])
        matrix = np.array([[1.0 if n in of.get(i, set()) else 0.0 for n in names] for i in items]).reshape(len(items), len(names))
        il = ItemList(item_ids=list(items), ordered=True)
        if geometric:
            value = metrics.rank_biased_entropy(il, matrix, weight=metrics.GeometricRankWeight(patience), n=k)
        else:
            value = metrics.entropy(il, matrix, n=k)
        out[_key(u)] = None if math.isnan(float(value)) else float(value)
    return out


def main(out: Path = OUT) -> None:
    cases = []
    for make in CASES:
        case = make()
        lists = ranked(case["run"])
        counts: dict[Any, int] = {}
        for item, _ in case["categories"]:
            counts[item] = counts.get(item, 0) + 1
        listed = {i for items in lists.values() for i in items}
        if all(counts.get(i, 0) == 1 for i in listed):
            category = {item: c for item, c in case["categories"]}
            case["replay"] = replay_values(lists, category, case["k"], "pandas")
            if replay_values(lists, category, case["k"], "polars") != case["replay"]:
                raise AssertionError(f"RePlay's pandas and Polars paths disagree on {case['name']}")
        case["lenskit"] = lenskit_values(lists, case["users"], case["categories"], case["k"], geometric=False)
        case["lenskit_geometric"] = lenskit_values(lists, case["users"], case["categories"], case["k"], geometric=True)
        case["lenskit_patience"] = {
            repr(patience): lenskit_values(lists, case["users"], case["categories"], case["k"], True, patience)
            for patience in PATIENCES
        }
        cases.append(case)
    doc = {
        "about": {
            "generator": "tests/data/beyond/make_category_goldens.py (see its docstring)",
            "library": f"replay-rec {metadata.version('replay-rec')}: replay.metrics.CategoricalDiversity(k, "
                       "mode=PerUser())(recommendations), pandas and polars frames (the same values); "
                       f"lenskit {metadata.version('lenskit')}: lenskit.metrics.entropy(items, matrix, n=k), "
                       "rank_biased_entropy(items, matrix, weight=GeometricRankWeight(patience), n=k), patience "
                       "0.85 (its default) and each of PATIENCES",
            "code": "replay/metrics/categorical_diversity.py:205-224: distinct categories of the top-k rows / k; "
                    "lenskit/metrics/ranking/_entropy.py:15-102: H2 of the matrix's column sums (+1e-6 each) "
                    "over the first n rows, rows weighted by 0.85^(r-1) for the rank-biased form, NaN for n = 0",
            "environment": {name: metadata.version(name) for name in ("pandas", "polars", "numpy", "torch")},
            "order": "each user's items ranked by rankwise's ties='trec_eval' (score desc, item id desc as text), "
                     "given to RePlay as ratings n - rank and to LensKit as an ordered ItemList",
            "values": "replay[str(user)] (cases where every listed item has one category), lenskit[str(user)], "
                      "lenskit_geometric[str(user)], lenskit_patience[repr(patience)][str(user)] (null: NaN, a user "
                      "without a list)",
        },
        "cases": cases,
    }
    out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
