"""Write ``exposure_parity_goldens.json``: FairRankTune's group-fairness values ``AWRF`` (Sapiezynski
et al.'s attention, *not* TREC Fair Ranking's AWRF) and ``EXP`` (exposure, Singh & Joachims), each
with every aggregation ("combo") it offers, frozen for rankwise's tests (issue 35).

Why frozen: FairRankTune 0.0.7 declares no dependency but imports pandas, whose pin the other
beyond-accuracy libraries share; the values are computed once in that environment and committed
with the cases; the tests read the JSON and never import FairRankTune.

How to run (the values were written with Python 3.11, FairRankTune 0.0.7, pandas 2.3.3, numpy 2.4.6):

    pip install "pandas<3" numpy scipy && pip install --no-deps fairranktune==0.0.7
    python tests/data/beyond/make_exposure_parity_goldens.py [OUT.json]

The output is deterministic. Each case holds the run as (user, item, score) rows, the groups as
{item: group} over the whole item universe (FairRankTune's group sizes count this dict), and the
lists as FairRankTune is given them: each user's items in rankwise's default order (score
descending, then item id descending as text), cut at k ("lists cut at k") — FairRankTune has no
cutoff. The library is imported only when ``main`` runs.
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
OUT = HERE / "exposure_parity_goldens.json"
COMBOS = ("MinMaxRatio", "MaxMinRatio", "MaxMinDiff", "MaxAbsDiff", "MeanAbsDev", "LTwo", "Variance")


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
    """Three groups over eight items (h never listed; group z holds only h), tied scores, a list
    of one item, k = 2 and 10 (beyond every list)."""
    run = [["u1", "a", 3.0], ["u1", "b", 2.0], ["u1", "c", 1.0],
           ["u2", "c", 2.0], ["u2", "d", 2.0], ["u2", "e", 1.0],
           ["u3", "f", 1.0], ["u4", "g", 4.0], ["u4", "a", 3.0], ["u4", "e", 2.0], ["u4", "b", 1.0]]
    groups = {"a": "x", "b": "x", "c": "y", "d": "x", "e": "y", "f": "y", "g": "x", "h": "z"}
    return {"name": "hand", "ids": "str", "run": run, "groups": groups, "ks": [2, 10]}


def case_random(seed: int, ids: str) -> dict[str, Any]:
    """30 users, 40 items in three groups of unequal sizes (the last items are never listed),
    lists of 1-10 items with scores on a coarse grid (ties)."""
    rng = random.Random(seed)
    items: list[Any] = list(range(1, 41)) if ids == "int" else [f"i{n:02d}" for n in range(1, 41)]
    users: list[Any] = list(range(101, 131)) if ids == "int" else [f"u{n:02d}" for n in range(1, 31)]
    groups = {item: ("g1", "g2", "g2", "g3", "g3", "g3")[rng.randrange(6)] for item in items}
    if ids == "int":
        groups = {item: {"g1": 1, "g2": 2, "g3": 3}[g] for item, g in groups.items()}
    listed = items[:34]
    weights = [1 / (n + 1) for n in range(len(listed))]
    run = []
    for user in users:
        chosen: list[Any] = []
        for _ in range(rng.randint(1, 10)):
            item = rng.choices(listed, weights)[0]
            if item not in chosen:
                chosen.append(item)
        run += [[user, item, float(rng.randint(0, 4))] for item in chosen]
    return {"name": f"random_{ids}_{seed}", "ids": ids, "run": run, "groups": groups, "ks": [3, 10]}


def case_one_group() -> dict[str, Any]:
    """Every item in one group: each combo of one value."""
    run = [["u1", "a", 2.0], ["u1", "b", 1.0], ["u2", "b", 1.0]]
    return {"name": "one_group", "ids": "str", "run": run, "groups": {"a": "x", "b": "x", "c": "x"}, "ks": [1, 10]}


def main(out: Path = OUT) -> None:
    import pandas as pd
    from FairRankTune.Metrics.AWRF import AWRF
    from FairRankTune.Metrics.EXP import EXP

    cases = [case_hand(), case_random(1, "str"), case_random(2, "int"), case_random(3, "str"), case_one_group()]
    for case in cases:
        lists = ranked(case["run"])
        case["values"] = {}
        case["errors"] = {}
        for k in case["ks"]:
            cut = {u: items[:k] for u, items in lists.items()}
            frame = pd.DataFrame({str(u): pd.Series(items, dtype=object) for u, items in cut.items()})
            calls: list[tuple[str, Any, tuple[Any, ...]]] = [
                *((f"AWRF(p={p},combo={combo})", AWRF, (frame, case["groups"], p, combo))
                  for combo in COMBOS for p in (0.5, 0.2)),
                *((f"EXP(combo={combo})", EXP, (frame, case["groups"], combo)) for combo in COMBOS),
            ]
            for name, function, arguments in calls:
                key = f"fairranktune.{name}[lists cut at k](k={k})"
                try:
                    value = float(function(*arguments)[0])
                    if math.isfinite(value):
                        case["values"][key] = value
                    else:  # a ratio over a group without exposure: JSON has no inf
                        case["values"][key] = None
                        case["errors"][key] = f"returned {value} (numpy's division by zero)"
                except Exception as exc:  # recorded, not hidden
                    case["errors"][key] = f"{type(exc).__name__}: {exc}"
    sources = {
        "fairranktune.AWRF": "FairRankTune/Metrics/AWRF.py:21-76 (attention 100 p (1 - p)^(r - 1) per rank r of each "
        "list, summed per group over the lists, divided by the group's items in item_group_dict; then the combo)",
        "fairranktune.EXP": "FairRankTune/Metrics/EXP.py:23-66, 195-201 (exposure 1 / log2(1 + r), summed per group over "
        "the lists, divided by the group's items in item_group_dict; then the combo)",
        "combos": "FairRankTune/Metrics/ComboUtil.py (MinMaxRatio min/max, MaxMinRatio max/min, MaxMinDiff max - min, "
        "MaxAbsDiff max |v - mean|, MeanAbsDev mean |v - mean|, LTwo the Euclidean norm, Variance np.var)",
    }
    doc = {
        "about": {
            "generator": "tests/data/beyond/make_exposure_parity_goldens.py (see its docstring)",
            "environment": {name: metadata.version(name) for name in ("fairranktune", "pandas", "numpy")},
        },
        "sources": sources,
        "cases": cases,
    }
    out.write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
