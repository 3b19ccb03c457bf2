"""Write ``given_tail_goldens.json``: Elliot's APLT and ACLT per user over a long tail the user
gives (rankwise's ``APLT(split='groups')``, ``ACLT(split='groups')``), frozen for rankwise's tests.

Elliot computes both over the set its ``Popularity`` object returns
(``elliot/evaluation/metrics/bias/aplt/aplt.py:50,72``, ``bias/aclt/aclt.py:50,69``:
``len(set(top k) & set(long_tail)) / len(top k)`` and the count alone); here that object is one
whose ``get_long_tail()`` returns the given tail: the items the case's groups put in the group
``tail`` with a weight above 0 (items in several groups, weights 0, items in no group, and items
of other groups). Everything else is Elliot's code, unedited (sisinflab/elliot @ fc27efed, its
``elliot.evaluation.metrics`` package imports only numpy, pandas and scipy).

How to run (any environment with numpy, pandas < 3 and scipy):

    git clone https://github.com/sisinflab/elliot && git -C elliot checkout fc27efed
    ELLIOT_SRC=$PWD/elliot python tests/data/beyond/make_given_tail_goldens.py [OUT.json]

The output is deterministic (seeded cases). Elliot divides by the list's length, so no case has a
user with an empty list (rankwise: NULL, tested by hand)."""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "given_tail_goldens.json"
ELLIOT_COMMIT = "fc27efedaddf4a57294db14b4bcaa5553a0015d2"


def case(name: str, seed: int, k: int, int_ids: bool) -> dict[str, Any]:
    """Random lists of 1 to 9 items over 14 items; each item in 'tail' half of the time, and in
    none, one or both of 'head' and 'x', with weights 0, 0.5 or 1 (a weight 0 is no membership)."""
    rng = random.Random(seed)
    items = [100 + i for i in range(14)] if int_ids else [f"d{i}" for i in range(14)]
    users = [1 + u for u in range(6)] if int_ids else [f"u{u}" for u in range(6)]
    run = []
    for u in users:
        listed = rng.sample(items, rng.randint(1, 9))
        run += [[u, d, float(len(listed) - r)] for r, d in enumerate(listed)]
    groups = []
    for d in items:
        if rng.random() < 0.5:
            groups.append([d, "tail", rng.choice([0.0, 0.5, 1.0, 1.0])])
        for g in rng.sample(["head", "x"], rng.choice([0, 1, 1, 2])):
            groups.append([d, g, rng.choice([0.0, 0.5, 1.0, 1.0])])
    return {"name": name, "k": k, "ids": "int" if int_ids else "str", "run": run, "groups": groups}


def elliot_values(c: dict[str, Any]) -> dict[str, dict[str, float]]:
    from elliot.evaluation.metrics import ACLT, APLT

    tail = [d for d, g, w in c["groups"] if g == "tail" and w > 0]
    recs: dict[Any, list[tuple[Any, float]]] = {}
    for u, d, s in c["run"]:
        recs.setdefault(u, []).append((d, s))
    recs = {u: sorted(r, key=lambda p: -p[1]) for u, r in recs.items()}
    objects = SimpleNamespace(cutoff=c["k"], pop=SimpleNamespace(get_long_tail=lambda: tail))
    out = {}
    for name, cls in (("elliot.APLT", APLT), ("elliot.ACLT", ACLT)):
        metric = cls(recs, None, None, objects)
        out[name] = {str(u): float(v) for u, v in metric.eval_user_metric().items()}
    return out


def main() -> None:
    sys.path.insert(0, os.environ["ELLIOT_SRC"])
    cases = [case("strings-k3", 1, 3, False), case("integers-k5", 2, 5, True), case("strings-k10", 3, 10, False),
             case("integers-k1", 4, 1, True)]
    for c in cases:
        c["values"] = elliot_values(c)
    doc = {
        "about": "Elliot APLT/ACLT per user over a given long tail (the items of group 'tail', weight > 0); "
        "tests/data/beyond/make_given_tail_goldens.py",
        "sources": {
            "elliot": f"sisinflab/elliot@{ELLIOT_COMMIT}: elliot/evaluation/metrics/bias/aplt/aplt.py:50,72 "
            "(len(set(top k) & set(long_tail)) / len(top k)); bias/aclt/aclt.py:50,69 (the count)",
        },
        "cases": cases,
    }
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    out.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
