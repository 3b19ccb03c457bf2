"""Write ``popularity_goldens.json``: per-user values of the popularity / novelty metrics of issue 35,
computed by the libraries that define them (rectools, RePlay, RecBole, Elliot, LensKit), frozen for rankwise's tests.

Why frozen: every one of these libraries pins pandas < 3 (RePlay also polars < 2, pyarrow < 24,
scikit-learn < 1.9; RecBole needs torch; Elliot is not on PyPI), while rankwise's environment has
pandas 3. So the values are computed once, in a separate environment, and committed with the cases; the
tests read the JSON and never import the libraries.

How to run (a virtual environment with pandas < 3 and the libraries; the values were written with Python
3.11, pandas 2.3.3, polars 1.44.2, pyarrow 23.0.1, numpy 2.4.6, scipy 1.17.1):

    python -m venv venv && . venv/bin/activate
    pip install "pandas<3" "polars<2" "pyarrow<24" "scikit-learn<1.9" numpy scipy tqdm
    pip install --no-deps rectools==0.19.0 replay-rec==0.22.0 recbole==1.2.1
    pip install attrs pydantic typeguard                 # what `import rectools.metrics` needs
    pip install colorlog==4.7.2 texttable tensorboard    # recbole.utils imports them
    pip install torch --index-url https://download.pytorch.org/whl/cpu    # RecBole needs torch (CPU)
    pip install --no-deps lenskit==2025.8.1 && pip install lazy-loader structlog more-itertools humanize \
        prettytable xopen deepmerge pyzmq psutil pydantic    # LensKit's metrics (it pins pandas~=2.0)

    git clone https://github.com/sisinflab/elliot && git -C elliot checkout fc27efed
    ELLIOT_SRC=$PWD/elliot python tests/data/beyond/make_popularity_goldens.py [OUT.json]

(``--no-deps`` because the libraries' other declared dependencies -- implicit, ray, thop, lightning
... -- are not needed by the metrics and some do not install on current Python.) The output is
deterministic: running it twice writes the same bytes.

Elliot is used from its source tree (``ELLIOT_SRC``, unedited): its ``elliot.evaluation`` package
imports only numpy, pandas and scipy. Its metric classes get the objects Elliot's ``Evaluator`` builds
(``elliot/evaluation/evaluator.py:63-69``): cutoff, ``Relevance(test, 1)``, ``Popularity(data, 0.8)``
and ``data`` with ``train_dict``, ``items``, ``private_items``, ``transactions`` and ``sp_i_train``
(``elliot/dataset/dataset.py:199-219``); like the Evaluator (``evaluator.py:121``) only users with a
test (qrels) row are handed to the metrics. Elliot orders its items as ``list(set(...))`` (hash
order), which decides popularity ties; here the order is the first appearance in ``train``. It
matters only for the long tail under a tie at the head/tail boundary, so APLT/ACLT are recorded only
for cases without such a tie (the script checks it).

The library calls are the ones of the oracle wrappers written for the issue (inputs: the run as
(user, item, score) rows, rank = order by descending score; train (user, item) rows with duplicates
kept; qrels (user, item, rel)). The libraries are imported only when ``main`` runs
(``Libraries()``), so importing this module (pytest's doctest collection does) needs none of them.
"""

from __future__ import annotations

import json
import math
import os
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "popularity_goldens.json"
ELLIOT_COMMIT = "fc27efedaddf4a57294db14b4bcaa5553a0015d2"

# --------------------------------------------------------------------------------------------
# cases
# --------------------------------------------------------------------------------------------


def _descending(n: int, rng: random.Random | None = None) -> list[float]:
    """n strictly decreasing scores: n - r (r = 0-based rank), or distinct random ones."""
    if rng is None:
        return [float(n - r) for r in range(n)]
    return sorted((v / 1000.0 for v in rng.sample(range(1, 10000), n)), reverse=True)


def _run(lists: dict[Any, list[Any]], rng: random.Random | None = None) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for u, items in lists.items():
        rows += [[u, i, s] for i, s in zip(items, _descending(len(items), rng), strict=True)]
    return rows


def case_hand() -> dict[str, Any]:
    """3 run users, items A-H; train users u4, u5 only in train; duplicate rows (u1 A, u2 B);
    F, G, H never in train and only after rank k; head = {A, B, C} (users 5, 3, 2), tail = {D, E}."""
    train = [("u1", "A"), ("u1", "A"), ("u1", "B"), ("u1", "C"),
             ("u2", "A"), ("u2", "B"), ("u2", "B"), ("u2", "D"),
             ("u3", "A"), ("u3", "C"),
             ("u4", "A"), ("u4", "B"),
             ("u5", "A"), ("u5", "E")]
    lists = {"u1": ["D", "E", "A", "F"], "u2": ["C", "E", "B", "G"], "u3": ["B", "D", "E", "H"]}
    qrels = [("u1", "D", 1), ("u1", "A", 2), ("u1", "F", 1),
             ("u2", "C", 0), ("u2", "G", 1),
             ("u3", "B", 1), ("u3", "D", 0), ("u3", "H", 2)]
    return {"name": "hand", "ids": "str", "k": 3, "run": _run(lists),
            "train": [list(r) for r in train], "qrels": [list(r) for r in qrels],
            "about": "3 users, 8 items, lists of 4 cut at k=3; duplicate train rows; train-only users "
                     "u4, u5; F, G, H never in train (after rank k only); u2's only relevant item is "
                     "beyond k; rel 0 and rel 2 rows."}


RANDOM_SEED = 35


def case_random(seed: int = RANDOM_SEED) -> dict[str, Any]:
    """Seeded: 40 run users u01-u40, 30 items i01-i30 (i26-i30 never in train), 4 train-only users,
    6 run users without train rows, duplicate train rows, lists of 1-8 items at k=5."""
    rng = random.Random(seed)
    users = [f"u{n:02d}" for n in range(1, 41)]
    items = [f"i{n:02d}" for n in range(1, 31)]
    in_train = items[:25]
    weights = [1.0 / (n + 1) ** 0.8 for n in range(25)]
    no_train = set(rng.sample(users, 6))
    train: list[tuple[str, str]] = []
    train_users = [u for u in users if u not in no_train] + ["t1", "t2", "t3", "t4"]
    for u in train_users:
        chosen: list[str] = []
        for _ in range(rng.randint(1, 8)):
            i = rng.choices(in_train, weights)[0]
            if i not in chosen:
                chosen.append(i)
        train += [(u, i) for i in chosen]
    for i in in_train:  # every one of i01-i25 is in train
        if all(i != j for _, j in train):
            train.append((rng.choice(train_users), i))
    train += [rng.choice(train) for _ in range(25)]  # duplicate rows
    rng.shuffle(train)
    lists = {u: rng.sample(items, rng.randint(1, 8)) for u in users}
    qrels: list[tuple[str, str, int]] = []
    for u in users:
        judged = rng.sample(items, rng.randint(1, 4))
        qrels += [(u, i, rng.choice([0, 1, 1, 2])) for i in judged]
    # one user judged but with nothing relevant (Elliot's EPC/EFD skip it)
    qrels = [(u, i, 0 if u == "u40" else r) for u, i, r in qrels]
    return {"name": "random", "ids": "str", "k": 5, "run": _run(lists, rng),
            "train": [list(r) for r in train], "qrels": [list(r) for r in qrels],
            "about": f"random.Random({seed}): 40 run users, 30 items (i26-i30 never in train), "
                     "train-only users t1-t4, 6 run users without train rows, 25 duplicate train "
                     "rows, lists of 1-8 items at k=5 (some shorter than k), u40 judged with rel 0 only."}


def case_int_ids() -> dict[str, Any]:
    """Integer ids overlapping between users and items; user 6 has no train rows; lists of 5 at k=4."""
    train = [(1, 1), (1, 2), (1, 2), (1, 3), (2, 1), (2, 2), (2, 4), (3, 1), (3, 5),
             (4, 1), (4, 2), (4, 6), (4, 6), (5, 1), (5, 3), (7, 2), (7, 1)]
    lists = {1: [4, 5, 6, 1, 10], 2: [3, 5, 1, 2, 9], 3: [2, 6, 4, 3, 8],
             4: [5, 3, 4, 2, 7], 5: [6, 2, 4, 5, 1], 6: [1, 2, 3, 4, 5]}
    qrels = [(1, 4, 1), (1, 10, 1), (2, 5, 2), (2, 2, 0), (3, 6, 1), (3, 3, 1),
             (4, 7, 1), (5, 6, 1), (5, 1, 1), (6, 1, 1), (6, 9, 2)]
    return {"name": "int_ids", "ids": "int", "k": 4, "run": _run(lists),
            "train": [list(r) for r in train], "qrels": [list(r) for r in qrels],
            "about": "integer ids (user 1 and item 1 both exist); user 6 has no train rows, user 7 "
                     "only train; duplicate train rows; lists of 5 at k=4, items 7-10 never in train "
                     "and only at rank 5."}


def case_k_exceeds() -> dict[str, Any]:
    """k = 10 beyond every list (all of 3 items)."""
    train = [("a", "x1"), ("a", "x2"), ("b", "x1"), ("b", "x3"), ("c", "x1"), ("c", "x2"),
             ("c", "x2"), ("d", "x3"), ("d", "x4")]
    lists = {"a": ["x3", "x4", "x1"], "b": ["x2", "x4", "x3"], "c": ["x4", "x3", "x1"]}
    qrels = [("a", "x4", 1), ("b", "x4", 1), ("b", "x2", 1), ("c", "x1", 0), ("c", "x3", 2)]
    return {"name": "k_exceeds", "ids": "str", "k": 10, "run": _run(lists),
            "train": [list(r) for r in train], "qrels": [list(r) for r in qrels],
            "about": "k=10, every list has 3 items (so RecBole's K=3 < k); duplicate row (c, x2); "
                     "train-only user d."}


def case_popularity_ties() -> dict[str, Any]:
    """Items with equal popularity, one tie at Elliot's head/tail boundary (APLT/ACLT left out)."""
    train = [("u1", "A"), ("u2", "A"), ("u3", "A"), ("u1", "B"), ("u2", "C"), ("u3", "D"),
             ("u3", "D"), ("u4", "D"), ("u4", "E"), ("u5", "E")]
    lists = {"u1": ["C", "D", "A"], "u2": ["B", "E", "D"], "u3": ["E", "D", "B"], "u4": ["A", "B", "C"]}
    qrels = [("u1", "C", 1), ("u2", "E", 1), ("u3", "B", 1), ("u3", "E", 1), ("u4", "B", 2)]
    return {"name": "popularity_ties", "ids": "str", "k": 2, "run": _run(lists),
            "train": [list(r) for r in train], "qrels": [list(r) for r in qrels],
            "about": "users per item A 3, D 2, E 2, B 1, C 1 (D has a duplicate row, so rows D 3, "
                     "E 2): D/E and B/C tie; Elliot's short head ends at B or C depending on its "
                     "(hash) item order, so APLT/ACLT are not recorded; lists of 3 at k=2."}


def case_single_train_user() -> dict[str, Any]:
    """One training user: log2(1) = 0 in RePlay's Surprisal denominator (NaN, recorded as null)."""
    train = [("u1", "A"), ("u1", "B"), ("u1", "B")]
    lists = {"u1": ["A", "C", "B"], "u2": ["B", "A", "C"], "u3": ["C", "D", "A"]}
    qrels = [("u1", "C", 1), ("u2", "A", 1), ("u3", "D", 1), ("u3", "C", 1)]
    return {"name": "single_train_user", "ids": "str", "k": 2, "run": _run(lists),
            "train": [list(r) for r in train], "qrels": [list(r) for r in qrels],
            "about": "train = one user (u1: A, B, B); C, D never in train; u3's top 2 are both "
                     "unseen; lists of 3 at k=2."}


def case_user_without_qrels() -> dict[str, Any]:
    """Run user u3 has no qrels row at all (Elliot's Evaluator drops it; the others score it)."""
    train = [("u1", "A"), ("u1", "B"), ("u1", "D"), ("u2", "A"), ("u2", "C"), ("u3", "A"),
             ("u3", "B"), ("u4", "A"), ("u4", "D"), ("u2", "A")]
    lists = {"u1": ["C", "D", "A", "B"], "u2": ["B", "A", "D", "C"], "u3": ["D", "C", "B", "A"]}
    qrels = [("u1", "D", 1), ("u1", "C", 2), ("u2", "B", 1)]
    return {"name": "user_without_qrels", "ids": "str", "k": 3, "run": _run(lists),
            "train": [list(r) for r in train], "qrels": [list(r) for r in qrels],
            "about": "u3 is in the run and in train but has no qrels row; u4 only in train; lists "
                     "of 4 at k=3. Elliot's Evaluator hands only users with a test row to the "
                     "metrics (evaluator.py:121), so every Elliot key lacks u3 (its metric classes "
                     "alone would score u3 in ARP/APLT/ACLT); rectools, RePlay and RecBole do not "
                     "read qrels and score u3."}


CASES = [case_hand, case_random, case_int_ids, case_k_exceeds, case_popularity_ties,
         case_single_train_user, case_user_without_qrels]


# --------------------------------------------------------------------------------------------
# inputs in the oracle convention
# --------------------------------------------------------------------------------------------


def ranked(run_rows: list[list[Any]]) -> dict[Any, list[tuple[Any, float]]]:
    """{user: [(item, score)] by descending score}, users in order of first appearance."""
    out: dict[Any, list[tuple[Any, float]]] = {}
    for u, i, s in run_rows:
        out.setdefault(u, []).append((i, float(s)))
    for u, lst in out.items():
        scores = [s for _, s in lst]
        assert len(set(scores)) == len(scores), f"tied scores for {u}"
        out[u] = sorted(lst, key=lambda t: -t[1])
    return out


def qrels_dict(rows: list[list[Any]]) -> dict[Any, dict[Any, int]]:
    out: dict[Any, dict[Any, int]] = {}
    for u, i, r in rows:
        out.setdefault(u, {})[i] = int(r)
    return out


def num(v: Any) -> float | None:
    """A library's value as a JSON number; NaN -> None."""
    f = float(v)
    return None if math.isnan(f) else f


def error_text(e: BaseException) -> str:
    return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}".rstrip(": ")


# --------------------------------------------------------------------------------------------
# Elliot's head / tail (80 % rule) and the tie check
# --------------------------------------------------------------------------------------------


def elliot_data(train: list[list[Any]]) -> Any:
    """What elliot/dataset/dataset.py:199-219 holds, items in first-appearance order."""
    from types import SimpleNamespace

    import numpy as np
    import scipy.sparse as sp

    train_dict: dict[Any, dict[Any, float]] = {}
    for u, i in train:
        train_dict.setdefault(u, {})[i] = 1.0
    items: list[Any] = []
    for _, i in train:
        if i not in items:
            items.append(i)
    users = list(train_dict)
    pu = {u: p for p, u in enumerate(users)}
    pi = {i: p for p, i in enumerate(items)}
    rc = [(pu[u], pi[i]) for u, its in train_dict.items() for i in its]
    m = sp.csr_matrix((np.ones(len(rc)), ([r for r, _ in rc], [c for _, c in rc])),
                      dtype="float32", shape=(len(users), len(items)))
    return SimpleNamespace(train_dict=train_dict, users=users, items=items, num_users=len(users),
                           num_items=len(items),
                           transactions=sum(len(v) for v in train_dict.values()),
                           private_items=dict(enumerate(items)), sp_i_train=m)


def boundary_tie(train: list[list[Any]], pop_ratio: float = 0.8) -> bool:
    """True when the last short-head item and the first long-tail item have the same popularity
    (distinct users), i.e. Elliot's long tail depends on its (hash) item order."""
    users: dict[Any, set[Any]] = {}
    for u, i in train:
        users.setdefault(i, set()).add(u)
    pops = sorted((len(v) for v in users.values()), reverse=True)
    limit = sum(pops) * pop_ratio
    for n, p in enumerate(pops):
        limit -= p
        if limit <= 0:
            return n + 1 < len(pops) and pops[n + 1] == p
    return False


# --------------------------------------------------------------------------------------------
# library calls (as in the oracle wrappers)
# --------------------------------------------------------------------------------------------


class NotRecordedError(Exception):
    """A case the library's input cannot express."""


class Libraries:
    """Imports the libraries (inside the pinned environment) and calls them."""

    def __init__(self) -> None:
        import logging
        import warnings

        warnings.filterwarnings("ignore")
        logging.disable(logging.CRITICAL)
        src = os.environ.get("ELLIOT_SRC")
        if src and src not in sys.path:
            sys.path.insert(0, src)
        import importlib.metadata as md

        import pandas as pd
        import polars as pl
        import recbole.evaluator.collector as rb_collector
        import recbole.evaluator.metrics as rb_metrics
        import rectools
        import rectools.metrics as rt_metrics
        import replay.metrics as rp_metrics
        import replay.metrics.descriptors as rp_descriptors
        import torch
        from elliot.evaluation import metrics as el_metrics
        from elliot.evaluation.popularity_utils.popularity import Popularity
        from elliot.evaluation.relevance import Relevance

        self.pd, self.pl, self.torch = pd, pl, torch
        self.rt, self.rt_cols = rt_metrics, rectools.Columns
        self.rp, self.PerUser = rp_metrics, rp_descriptors.PerUser
        self.rb, self.DataStruct = rb_metrics, rb_collector.DataStruct
        self.el, self.Popularity, self.Relevance = el_metrics, Popularity, Relevance
        import lenskit.metrics as lk_metrics
        from lenskit.data import ItemList, from_interactions_df

        self.lk, self.ItemList, self.lk_dataset = lk_metrics, ItemList, from_interactions_df
        self.versions = {
            "rectools": md.version("rectools"), "replay": md.version("replay-rec"),
            "recbole": md.version("recbole"), "elliot": f"git {ELLIOT_COMMIT[:8]} (0.3.1)",
            "lenskit": md.version("lenskit"),
            "environment": {p: md.version(p) for p in
                            ("pandas", "polars", "pyarrow", "numpy", "scipy", "torch")}
            | {"python": sys.version.split()[0]},
        }

    # rectools: reco (user_id, item_id, rank); rectools reads only the rank
    def _rt_reco(self, run: dict[Any, list[tuple[Any, float]]]) -> Any:
        c = self.rt_cols
        rows = [(u, i, r) for u, lst in run.items() for r, (i, _) in enumerate(lst, 1)]
        return self.pd.DataFrame(rows, columns=[c.User, c.Item, c.Rank])

    def _rt_inter(self, train: list[list[Any]]) -> Any:
        c = self.rt_cols
        return self.pd.DataFrame([tuple(r) for r in train], columns=[c.User, c.Item])

    def rectools_miuf(self, run: Any, train: Any, k: int) -> dict[Any, Any]:
        s = self.rt.MeanInvUserFreq(k=k).calc_per_user(self._rt_reco(run), self._rt_inter(train))
        return dict(s.items())

    def rectools_arp(self, run: Any, train: Any, k: int, normalize: bool) -> dict[Any, Any]:
        s = self.rt.AvgRecPopularity(k=k, normalize=normalize).calc_per_user(
            self._rt_reco(run), self._rt_inter(train))
        return dict(s.items())

    # RePlay: recommendations (query_id, item_id, rating) -- RePlay orders by rating itself
    def _rp_frames(self, run: Any, train: Any, engine: str) -> tuple[Any, Any]:
        recs = self.pd.DataFrame([(u, i, s) for u, lst in run.items() for i, s in lst],
                                 columns=["query_id", "item_id", "rating"])
        tr = self.pd.DataFrame([tuple(r) for r in train], columns=["query_id", "item_id"])
        if engine == "polars":
            return self.pl.from_pandas(recs), self.pl.from_pandas(tr)
        return recs, tr

    def replay(self, metric: str, run: Any, train: Any, k: int, engine: str) -> dict[Any, Any]:
        cls = getattr(self.rp, metric)
        res = cls(k, mode=self.PerUser())(*self._rp_frames(run, train, engine))
        (per_user,) = res.values()
        return dict(per_user)

    # RecBole: the (users x K) top-K matrix and Counter of training item ids (rows)
    def recbole_average_popularity(self, run: Any, train: Any, k: int) -> dict[Any, Any]:
        catalog: list[Any] = []
        for i in [i for lst in run.values() for i, _ in lst] + [i for _, i in train]:
            if i not in catalog:
                catalog.append(i)
        ids = {i: n + 1 for n, i in enumerate(catalog)}
        users = list(run)
        lists = [[ids[i] for i, _ in run[u]] for u in users]
        if len({len(x) for x in lists}) != 1:
            raise NotRecordedError("lists of different lengths: RecBole's rec.items is a (users x K) "
                              "matrix, every user has exactly K items")
        ds = self.DataStruct()
        ds.set("rec.items", self.torch.tensor(lists, dtype=self.torch.int64))
        ds.set("data.count_items", Counter(ids[i] for _, i in train))
        m = self.rb.AveragePopularity({"topk": [k], "metric_decimal_place": 15})
        item_matrix, item_count = m.used_info(ds)
        vals = m.metric_info(m.get_pop(item_matrix, item_count))[:, k - 1]
        return dict(zip(users, vals, strict=True))

    def recbole_tail_percentage(self, run: Any, train: Any, k: int, tail_ratio: float) -> dict[Any, Any]:
        """RecBole's internal item ids in item-id order (a dataset remapped in sorted order): its
        tie order among equally interacted items, (count, internal id), is then item id order."""
        catalog = sorted({i for lst in run.values() for i, _ in lst} | {i for _, i in train})
        ids = {i: n + 1 for n, i in enumerate(catalog)}
        users = list(run)
        lists = [[ids[i] for i, _ in run[u]] for u in users]
        if len({len(x) for x in lists}) != 1:
            raise NotRecordedError("lists of different lengths: RecBole's rec.items is a (users x K) "
                              "matrix, every user has exactly K items")
        ds = self.DataStruct()
        ds.set("rec.items", self.torch.tensor(lists, dtype=self.torch.int64))
        ds.set("data.count_items", Counter(ids[i] for _, i in train))
        m = self.rb.TailPercentage({"topk": [k], "metric_decimal_place": 15, "tail_ratio": tail_ratio})
        item_matrix, count_items = m.used_info(ds)
        vals = m.metric_info(m.get_tail(item_matrix, count_items))[:, k - 1]
        return dict(zip(users, vals, strict=True))

    # LensKit: a Dataset refuses repeated (user, item) rows: built from the de-duplicated rows
    def lenskit_mean_pop_rank(self, run: Any, train: Any, k: int, count: str) -> dict[Any, Any]:
        rows = list(dict.fromkeys((u, i) for u, i in train))
        frame = self.pd.DataFrame(rows, columns=["user_id", "item_id"])
        metric = self.lk.MeanPopRank(self.lk_dataset(frame), k=k, count=count)
        return {u: metric.measure_list(self.ItemList([i for i, _ in lst], ordered=True), self.ItemList([]))
                for u, lst in run.items()}

    # Elliot: the metric classes with the Evaluator's objects; users without qrels dropped
    def elliot(self, name: str, run: Any, train: Any, qrels: Any, k: int) -> dict[Any, Any]:
        from types import SimpleNamespace

        data = elliot_data(train)
        objs = SimpleNamespace(cutoff=k, relevance=self.Relevance(qrels, 1),
                               pop=self.Popularity(data, 0.8), num_items=data.num_items,
                               data=data, additional_metrics={})
        recs = {u: list(lst) for u, lst in run.items() if qrels.get(u, [])}
        m = getattr(self.el, name)(recs, None, None, objs)
        return dict(m.eval_user_metric().items())


# --------------------------------------------------------------------------------------------
# keys, sources
# --------------------------------------------------------------------------------------------

SOURCES: dict[str, dict[str, str]] = {
    "rectools.MeanInvUserFreq": {
        "library": "rectools", "call": "rectools.metrics.MeanInvUserFreq(k).calc_per_user(reco, prev_interactions)",
        "code": "rectools/metrics/novelty.py:88-128, 189-216",
        "definition": "mean over the user's present top-k items of -log2(users(i) / N), users(i) = distinct "
                      "train users of i, N = distinct train users; an item not in train counts as 1 user",
        "users": "every user of the run"},
    "replay.Surprisal": {
        "library": "replay-rec", "call": "replay.metrics.Surprisal(k, mode=PerUser())(recommendations, train) (pandas frames)",
        "code": "replay/metrics/surprisal.py:84-100 (weights), 180-189 (per user); polars path :124-136",
        "definition": "sum over the top-k of log2(N / users(i)) / log2(N), an item not in train weighs 1, "
                      "divided by k (not by the list's length); N = 1 gives 0/0 = NaN (recorded null)",
        "users": "every user of the run"},
    "rectools.AvgRecPopularity": {
        "library": "rectools", "call": "rectools.metrics.AvgRecPopularity(k).calc_per_user(reco, prev_interactions)",
        "code": "rectools/metrics/popularity.py:28-133 (per user: 101-130)",
        "definition": "mean over the present top-k items of rows(i) = number of train rows (duplicates "
                      "count); an item not in train 0",
        "users": "every user of the run"},
    "rectools.AvgRecPopularity(normalize=True)": {
        "library": "rectools", "call": "rectools.metrics.AvgRecPopularity(k, normalize=True).calc_per_user(...)",
        "code": "rectools/metrics/popularity.py:122 (value_counts(normalize=True))",
        "definition": "as AvgRecPopularity with rows(i) / (number of train rows)",
        "users": "every user of the run"},
    "recbole.AveragePopularity": {
        "library": "recbole", "call": "recbole.evaluator.metrics.AveragePopularity: metric_info(get_pop(rec.items, data.count_items))[:, k-1]",
        "code": "recbole/evaluator/metrics.py:506-573",
        "definition": "sum over ranks <= k of Counter(train rows)(i) / k; an item not in train 0. RecBole's "
                      "rec.items is a (users x K) matrix: only cases whose lists all have the same length "
                      "are representable (else the case's errors say so); K < k raises IndexError",
        "users": "every user of the run"},
    **{key: {
        "library": "recbole", "call": f"recbole.evaluator.metrics.TailPercentage(tail_ratio={ratio}): "
        "metric_info(get_tail(rec.items, data.count_items))[:, k-1]",
        "code": "recbole/evaluator/metrics.py:692-758",
        "definition": "share of the top-k in T: tail_ratio <= 1, the first max(int(m * tail_ratio), 1) of the m "
                      "training items sorted by (training rows, internal id), here internal ids in item-id order; "
                      "tail_ratio > 1: the items with at most tail_ratio rows; (users x K) matrix as "
                      "AveragePopularity",
        "users": "every user of the run"}
        for key, ratio in (("recbole.TailPercentage", 0.1), ("recbole.TailPercentage(tail_ratio=0.5)", 0.5),
                           ("recbole.TailPercentage(tail_ratio=2)", 2))},
    "lenskit.MeanPopRank[deduplicated train]": {
        "library": "lenskit", "call": "lenskit.metrics.MeanPopRank(from_interactions_df(train without repeated "
        "rows), k=k, count='users').measure_list(recs, [])",
        "code": "lenskit/metrics/ranking/_pop.py:19-84",
        "definition": "mean over the top-k of q(i), q = the average ascending rank of the item's distinct users "
                      "among the items with users > 0, over their number (1 = most popular); 0 for an item not in "
                      "train. LensKit refuses repeated (user, item) rows (DataError), so the training rows are "
                      "de-duplicated first; count='interactions' then equals count='users'",
        "users": "every user of the run (an empty list: NaN)"},
    "elliot.ARP": {
        "library": "elliot", "call": "elliot.evaluation.metrics.ARP(...).eval_user_metric()",
        "code": "elliot/evaluation/metrics/bias/arp/arp.py:57-83; popularity_utils/popularity.py:25-29",
        "definition": "sum over the top-k of users(i) (distinct train users) / len(top-k); an item not in "
                      "train raises KeyError (in an Elliot pipeline a model recommends train items only)",
        "users": "run users with a qrels row (Evaluator, elliot/evaluation/evaluator.py:121)"},
    "replay.Novelty": {
        "library": "replay-rec", "call": "replay.metrics.Novelty(k, mode=PerUser())(recommendations, train) (pandas frames)",
        "code": "replay/metrics/novelty.py:119-122 (users = list(train)), 142-146 (per user)",
        "definition": "1 - |top-k & user's train items| / len(top-k); 1.0 for a train user without a list",
        "users": "the TRAIN users (a train user absent from the run gets 1.0; a run user without train "
                 "rows is absent)"},
    "elliot.EPC": {
        "library": "elliot", "call": "elliot.evaluation.metrics.EPC(...).eval_user_metric(), Relevance(test, rel_threshold=1)",
        "code": "elliot/evaluation/metrics/novelty/EPC/epc.py:56-114; evaluation/relevance/relevance.py:49-55, 85-96",
        "definition": "sum_{r<k} rel(u,i_r) disc(r) (1 - users(i)/N) / sum_{r<k} disc(r), disc(r) = "
                      "1/log2(r+2) over the present items (0-based r), rel = [rel >= 1], an item not in "
                      "train has novelty 1, N = distinct train users",
        "users": "run users with a qrels row (evaluator.py:121) and at least one item with rel >= 1"},
    "elliot.EFD": {
        "library": "elliot", "call": "elliot.evaluation.metrics.EFD(...).eval_user_metric(), Relevance(test, rel_threshold=1)",
        "code": "elliot/evaluation/metrics/novelty/EFD/efd.py:56-116",
        "definition": "as EPC with novelty -log2(users(i) / sum_j users(j)); an item not in train gets the "
                      "maximum -log2(min_j users(j) / sum_j users(j))",
        "users": "run users with a qrels row (evaluator.py:121) and at least one item with rel >= 1"},
    "elliot.APLT": {
        "library": "elliot", "call": "elliot.evaluation.metrics.APLT(...).eval_user_metric(), Popularity(data, pop_ratio=0.8)",
        "code": "elliot/evaluation/metrics/bias/aplt/aplt.py:61-87; popularity_utils/popularity.py:37-53",
        "definition": "|set(top-k) & long tail| / len(top-k); short head = items by users(i) descending "
                      "until the running sum reaches 0.8 x distinct (user, item) pairs (the crossing item "
                      "in the head); long tail = the other train items. Recorded only without a "
                      "popularity tie at the head/tail boundary",
        "users": "run users with a qrels row (evaluator.py:121)"},
    "elliot.ACLT": {
        "library": "elliot", "call": "elliot.evaluation.metrics.ACLT(...).eval_user_metric(), Popularity(data, pop_ratio=0.8)",
        "code": "elliot/evaluation/metrics/bias/aclt/aclt.py:61-87; popularity_utils/popularity.py:37-53",
        "definition": "|set(top-k) & long tail| (a count), long tail as for APLT",
        "users": "run users with a qrels row (evaluator.py:121)"},
}


def compute(lib: Libraries, case: dict[str, Any]) -> dict[str, Any]:
    """The values of every key for one case, and the libraries' refusals."""
    k = case["k"]
    run = ranked(case["run"])
    train = case["train"]
    qrels = qrels_dict(case["qrels"])
    tie = boundary_tie(train)
    calls: dict[str, Any] = {
        "rectools.MeanInvUserFreq": lambda: lib.rectools_miuf(run, train, k),
        "replay.Surprisal": lambda: lib.replay("Surprisal", run, train, k, "pandas"),
        "rectools.AvgRecPopularity": lambda: lib.rectools_arp(run, train, k, False),
        "rectools.AvgRecPopularity(normalize=True)": lambda: lib.rectools_arp(run, train, k, True),
        "recbole.AveragePopularity": lambda: lib.recbole_average_popularity(run, train, k),
        "recbole.TailPercentage": lambda: lib.recbole_tail_percentage(run, train, k, 0.1),
        "recbole.TailPercentage(tail_ratio=0.5)": lambda: lib.recbole_tail_percentage(run, train, k, 0.5),
        "recbole.TailPercentage(tail_ratio=2)": lambda: lib.recbole_tail_percentage(run, train, k, 2),
        "lenskit.MeanPopRank[deduplicated train]": lambda: lib.lenskit_mean_pop_rank(run, train, k, "users"),
        "elliot.ARP": lambda: lib.elliot("ARP", run, train, qrels, k),
        "replay.Novelty": lambda: lib.replay("Novelty", run, train, k, "pandas"),
        "elliot.EPC": lambda: lib.elliot("EPC", run, train, qrels, k),
        "elliot.EFD": lambda: lib.elliot("EFD", run, train, qrels, k),
        "elliot.APLT": lambda: lib.elliot("APLT", run, train, qrels, k),
        "elliot.ACLT": lambda: lib.elliot("ACLT", run, train, qrels, k),
    }
    values: dict[str, dict[str, float | None]] = {}
    errors: dict[str, str] = {}
    for key, call in calls.items():
        if key in ("elliot.APLT", "elliot.ACLT") and tie:
            errors[key] = ("not recorded: popularity tie at Elliot's head/tail boundary "
                           "(its tie order is hash order)")
            continue
        try:
            got = call()
        except NotRecordedError as e:
            errors[key] = f"not recorded: {e}"
            continue
        except Exception as e:
            errors[key] = error_text(e)
            continue
        values[key] = {str(u): num(v) for u, v in got.items()}
    # RePlay's polars path (recorded values: pandas input) must give the same users and values
    notes: list[str] = []
    for metric in ("Surprisal", "Novelty"):
        key = f"replay.{metric}"
        if key not in values:
            continue
        pol = {str(u): num(v) for u, v in lib.replay(metric, run, train, k, "polars").items()}
        pan = values[key]
        if set(pol) != set(pan) or any((pol[u] is None) != (pan[u] is None) for u in pan):
            values[f"{key}[polars]"] = pol
            notes.append(f"RePlay {metric}: the polars path scores other users or NaNs than the pandas path")
            continue
        diff = max((abs(pol[u] - v) for u, v in pan.items() if v is not None), default=0.0)  # type: ignore[operator]
        if diff > 0:
            notes.append(f"RePlay {metric}: the polars path gives the same users, values within "
                         f"{diff!r} of the pandas path (recorded)")
    out = {kk: case[kk] for kk in ("name", "ids", "k", "about", "run", "train", "qrels")}
    out["values"] = values
    if errors:
        out["errors"] = errors
    if notes:
        out["notes"] = notes
    out["elliot_boundary_tie"] = tie
    return out


def dumps(doc: dict[str, Any]) -> str:
    """JSON with one line per run / train / qrels row (floats as repr: full precision)."""
    rows: list[str] = []

    def flat(case: dict[str, Any]) -> dict[str, Any]:
        out = dict(case)
        for field in ("run", "train", "qrels"):
            out[field] = []
            for row in case[field]:
                rows.append(json.dumps(row))
                out[field].append(f"@@{len(rows) - 1}@@")
        return out

    text = json.dumps({**doc, "cases": [flat(c) for c in doc["cases"]]}, indent=1, allow_nan=False)
    for n, row in enumerate(rows):
        text = text.replace(f'"@@{n}@@"', row, 1)
    return text + "\n"


def main(argv: list[str]) -> int:
    out_path = Path(argv[1]) if len(argv) > 1 else OUT
    lib = Libraries()
    cases = [compute(lib, make()) for make in CASES]
    by_lib = {
        "rectools": "rectools", "replay-rec": "replay", "recbole": "recbole", "elliot": "elliot", "lenskit": "lenskit",
    }
    sources = {key: {**src, "version": lib.versions[by_lib[src["library"]]]} for key, src in SOURCES.items()}
    doc = {
        "about": {
            "generator": "tests/data/beyond/make_popularity_goldens.py (see its docstring)",
            "environment": lib.versions["environment"],
            "elliot_source": f"https://github.com/sisinflab/elliot @ {ELLIOT_COMMIT}",
            "run": "rows (user, item, score); a user's rank order = descending score (no ties); "
                   "present items = the first k",
            "values": "values[key][str(user)] = the library's value (null for NaN) for exactly the "
                      "users the library returns, in its order; errors[key] = what a library raised "
                      "or why a key is not recorded for the case",
        },
        "cases": cases,
        "sources": sources,
    }
    out_path.write_text(dumps(doc))
    print(f"wrote {out_path}: {len(cases)} cases")
    for c in cases:
        print(f"  {c['name']}: {len(c['values'])} keys; errors: {c.get('errors', {})}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
