"""Write ``unexpectedness_goldens.json``: per-user values of RePlay's ``Unexpectedness@k``
(``replay.metrics.Unexpectedness``, issue 35), frozen for rankwise's tests.

Why frozen: RePlay pins pandas < 3 (and polars < 2, pyarrow < 24, scikit-learn < 1.9), while
rankwise's environment has pandas 3. So the values are computed once, in a separate environment, and
committed with the cases; the tests read the JSON and never import RePlay.

How to run (the values were written with Python 3.11, replay-rec 0.22.0, pandas 2.3.3, polars 1.44.2):

    python -m venv venv && . venv/bin/activate
    pip install "pandas<3" "polars<2" "pyarrow<24" "scikit-learn<1.9" numpy scipy
    pip install --no-deps replay-rec==0.22.0
    python tests/data/beyond/make_unexpectedness_goldens.py [OUT.json]

The output is deterministic: running it twice writes the same bytes.

Each case holds the run and the base run as (user, item, score) rows, as rankwise reads them. RePlay
orders each user's items by its ``rating`` column itself; it is given the order rankwise's default tie
policy (``ties='trec_eval'``: score descending, then item id descending, compared as text) makes of
the rows, as ratings n − rank (no ties left), so that a case with tied scores checks that rankwise
ranks the base run as it ranks the run. The library is imported only when ``main`` runs, so
importing this module (pytest's doctest collection does) needs none of it.
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
OUT = HERE / "unexpectedness_goldens.json"


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
    """String ids, k = 3: a partial overlap beyond the base's top k, a full overlap, a list
    shorter than k (RePlay divides by k), a run user without a base list, a base user without a
    list in the run."""
    run = [["u1", "a", 5.0], ["u1", "b", 4.0], ["u1", "c", 3.0], ["u1", "d", 2.0],
           ["u2", "a", 3.0], ["u2", "b", 2.0], ["u2", "c", 1.0],
           ["u3", "x", 1.0],
           ["u4", "a", 2.0], ["u4", "b", 1.0]]
    base = [["u1", "d", 9.0], ["u1", "a", 8.0], ["u1", "z", 7.0], ["u1", "b", 6.0],
            ["u2", "c", 1.0], ["u2", "b", 2.0], ["u2", "a", 3.0],
            ["u3", "x", 1.0], ["u3", "y", 2.0],
            ["b1", "a", 1.0]]
    return {"name": "hand", "ids": "str", "k": 3, "run": run, "base_run": base,
            "about": "u1: d is in both lists but beyond the run's top 3, b beyond the base's; u2: the same "
                     "three items in another order; u3: one item, shared (1 - 1/3); u4: no base list; b1: "
                     "no list in the run"}


def case_ties() -> dict[str, Any]:
    """Tied scores in both runs: the item id (descending, as text) decides which items make
    each top k."""
    run = [["u1", "a", 1.0], ["u1", "b", 1.0], ["u1", "c", 1.0], ["u1", "d", 0.5],
           ["u2", "p", 2.0], ["u2", "q", 2.0], ["u2", "r", 1.0]]
    base = [["u1", "a", 3.0], ["u1", "d", 3.0], ["u1", "b", 1.0], ["u1", "c", 1.0],
            ["u2", "q", 1.0], ["u2", "r", 1.0], ["u2", "p", 1.0]]
    return {"name": "ties", "ids": "str", "k": 2, "run": run, "base_run": base,
            "about": "u1: run top 2 = c, b (tie by id), base top 2 = d, a; u2: run top 2 = q, p, base top 2 "
                     "= r, q"}


def case_int_ids(seed: int = 35) -> dict[str, Any]:
    """Integer ids, seeded: 25 run users with lists of 1-8 items of 20, the base run's lists for
    20 of them and for 3 users not in the run; item ids 1-20 and 100 (a two-digit and a
    three-digit id tie: compared as text)."""
    rng = random.Random(seed)
    items = [*range(1, 21), 100]
    run: list[list[Any]] = []
    base: list[list[Any]] = []
    users = list(range(1, 26))
    for u in users:
        for i in rng.sample(items, rng.randint(1, 8)):
            run.append([u, i, float(rng.randint(1, 4))])
    for u in [*rng.sample(users, 20), 900, 901, 902]:
        for i in rng.sample(items, rng.randint(1, 8)):
            base.append([u, i, float(rng.randint(1, 4))])
    return {"name": "int_ids", "ids": "int", "k": 5, "run": run, "base_run": base,
            "about": "seeded (35): integer ids, scores 1-4 (many ties), 5 run users without a base list, "
                     "3 base users without a list in the run, lists shorter than k"}


CASES = (case_hand, case_ties, case_int_ids)


def replay_values(run: dict[Any, list[Any]], base: dict[Any, list[Any]], k: int) -> dict[str, float | None]:
    """RePlay's per-user values (pandas frames; ratings n − rank), keyed by the user as text."""
    import pandas as pd
    from replay.metrics import Unexpectedness
    from replay.metrics.descriptors import PerUser

    def frame(lists: dict[Any, list[Any]]) -> Any:
        rows = [(u, i, float(len(items) - r)) for u, items in lists.items() for r, i in enumerate(items)]
        return pd.DataFrame(rows, columns=["query_id", "item_id", "rating"])

    (per_user,) = Unexpectedness(k, mode=PerUser())(frame(run), frame(base)).values()
    return {str(u): None if math.isnan(float(v)) else float(v) for u, v in sorted(per_user.items(), key=lambda x: str(x[0]))}


def main(out: Path = OUT) -> None:
    cases = []
    for make in CASES:
        case = make()
        case["values"] = replay_values(ranked(case["run"]), ranked(case["base_run"]), case["k"])
        cases.append(case)
    doc = {
        "about": {
            "generator": "tests/data/beyond/make_unexpectedness_goldens.py (see its docstring)",
            "library": f"replay-rec {metadata.version('replay-rec')}: replay.metrics.Unexpectedness(k, mode=PerUser())"
                       "(recommendations, base_recommendations), pandas frames",
            "code": "replay/metrics/unexpectedness.py:153-156: 1 - |top-k ∩ base top-k| / k; a user missing "
                    "from either run scores 0",
            "environment": {name: metadata.version(name) for name in ("pandas", "polars", "numpy")},
            "order": "each user's items ranked by rankwise's ties='trec_eval' (score desc, item id desc as text), "
                     "given to RePlay as ratings n - rank",
            "values": "values[str(user)]: RePlay's value for every user it returns",
        },
        "cases": cases,
    }
    out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
