"""Write ``set_goldens.json``: set-level values (one number per run, not a mean of per-user values) of the
coverage, concentration, novelty, personalization and popularity-bias metrics of issue 35, computed by the
libraries that define them (rectools, RecBole, rexmex, Elliot, RePlay, recommenders, LensKit), frozen for
rankwise's tests.

Why frozen: recommenders pins pandas < 3 (under pandas 3 its aggregate functions raise ``KeyError: 0``),
LensKit pins pandas ~= 2.0 and needs torch, RePlay pins pandas < 3 / polars < 2, RecBole needs torch and
Elliot is not on PyPI, while rankwise's environment has pandas 3. So the values are computed once, in a
separate environment, and committed with the cases; the tests read the JSON and never import the libraries.

How to run (a virtual environment with pandas < 3 and the libraries; the values were written with Python
3.11, pandas 2.3.3, polars 1.44.2, pyarrow 23.0.1, numpy 2.4.6, scipy 1.17.1, scikit-learn 1.8.0):

    python -m venv venv && . venv/bin/activate
    pip install "pandas<3" "polars<2" "pyarrow<24" "scikit-learn<1.9" numpy scipy tqdm
    pip install --no-deps rectools==0.19.0 replay-rec==0.22.0 recbole==1.2.1 rexmex==0.1.3 recommenders==1.2.1
    pip install attrs pydantic typeguard                 # what `import rectools.metrics` needs
    pip install colorlog==4.7.2 texttable tensorboard    # recbole.utils imports them
    pip install torch --index-url https://download.pytorch.org/whl/cpu    # RecBole and LensKit need torch (CPU)
    pip install --no-deps lenskit==2025.8.1 && pip install lazy-loader structlog more-itertools humanize \
        prettytable xopen deepmerge pyzmq psutil pydantic    # LensKit's metrics (it pins pandas~=2.0)

    git clone https://github.com/sisinflab/elliot && git -C elliot checkout fc27efed
    ELLIOT_SRC=$PWD/elliot python tests/data/beyond/make_set_goldens.py [OUT.json]

(``--no-deps`` because the libraries' other declared dependencies are not needed by the metrics and some do
not install on current Python.) The output is deterministic: running it twice writes the same bytes.

How each library is called (every value below is the library's own code running, except the keys that start
with ``formula:``, which are computed here from the library's formula and cite it):

- rectools ``CatalogCoverage(k, normalize).calc(reco, catalog)``; reco = (user, item, rank) rows.
- RecBole: the metric classes (``ItemCoverage``, ``GiniIndex``, ``ShannonEntropy``) called with a
  ``DataStruct`` holding what RecBole's Collector puts there: ``rec.items`` = the (users x K) matrix of
  internal item ids (1..n in catalog order, then run items outside the catalog), ``data.num_items``. A RecBole
  run ranks every item for every user, so its matrix has exactly K items per user: the keys
  ``recbole.X(k=..)`` are recorded only when the lists cut at k all have the same length K >= 1 (they form the
  matrix, asked at k; RecBole reads ``matrix[:, :k]``, so with K < k it silently uses the K columns), else the
  case's ``errors`` say why. The keys
  ``recbole.X[one row](k=..)`` call the same class's ``calculate_metric`` with a 1 x N matrix: the top-k
  entries of all users concatenated into one row -- RecBole's code on every list as given (short and empty
  lists included); equal to the (users x k) value whenever that one exists (the script checks it).
  ``num_items`` = |catalog| and |catalog| + 1 (in RecBole's own pipeline ``data.num_items`` counts the
  ``[PAD]`` token id 0, ``recbole/data/dataset/dataset.py:1226-1247``).
- rexmex ``coverage.item_coverage((users, catalog), pairs)``, ``coverage.user_coverage((users, catalog),
  pairs)``; users = the run's users (with empty lists) and the qrels' users; pairs = the (user, item) of the
  first k of each list; both return ``round(., 3)``, so ``formula:rexmex...[unrounded]`` gives the same
  formula without the rounding. ``ranking.personalization([first k of each list])``, one list per run user in
  run order (an empty list is an all-zero row).
- Elliot (``ELLIOT_SRC``, unedited): the metric classes ``ItemCoverage``, ``UserCoverage``,
  ``UserCoverageAtN``, ``GiniIndex``, ``ShannonEntropy``, ``PopREO``, ``PopRSP`` with the objects Elliot's
  ``Evaluator`` builds (``elliot/evaluation/evaluator.py:63-69``): cutoff, ``Relevance(test, 1)``,
  ``Popularity(data, 0.8)``, ``num_items`` = the number of distinct training items and ``data`` with
  ``train_dict``, ``items``, ``private_items``, ``transactions``, ``sp_i_train``
  (``elliot/dataset/dataset.py:199-219``); like the Evaluator (``evaluator.py:121``) only users with a qrels
  row are handed to the metrics (every run user of these cases has one). ``eval()`` is the value (the
  Evaluator only rounds it for printing). Elliot orders its items ``list(set(...))`` (hash order), which
  decides popularity ties at the head/tail boundary; here the order is the first appearance in ``train``, and
  PopREO/PopRSP are recorded only for cases without such a tie (the script checks it).
- RePlay ``Coverage(k)(recommendations, train)`` with pandas frames (recommendations = (query_id, item_id,
  rating = n - rank)); the polars path is run too and must give the same value (else a note).
- recommenders ``python_evaluation.catalog_coverage / distributional_coverage / novelty(train_df, reco_df)``:
  no k; ``[cut at k]`` = reco_df holds the first k rows of each list, ``[full lists]`` = every row of the run.
- LensKit ``ListGini(k, items=pd.Series(catalog))`` and ``ExposureGini(k, items=pd.Series(catalog),
  weight=GeometricRankWeight(0.85))``: ``compute_list_data`` per list then ``global_aggregate`` (what
  LensKit's ``RunAnalysis`` does), lists as ``ItemList(item_ids=[...], ordered=True)``, every run user's list
  including empty ones; ``[empty lists left out]`` = the same without the empty lists (an empty list makes
  LensKit raise ``ArrowTypeError``).

The libraries are imported only when ``main`` runs (``Libraries()``), so importing this module (pytest's
doctest collection does) needs none of them.
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
OUT = HERE / "set_goldens.json"
ELLIOT_COMMIT = "fc27efedaddf4a57294db14b4bcaa5553a0015d2"
KS = (2, 5)

# --------------------------------------------------------------------------------------------
# cases: run = [[user, [items in rank order]], ...] (an empty list is a user with no rows)
# --------------------------------------------------------------------------------------------


def _case(name: str, ids: str, about: str, run: list[tuple[Any, list[Any]]], train: list[tuple[Any, Any]],
          catalog: list[Any], qrels: list[tuple[Any, Any, int]]) -> dict[str, Any]:
    return {"name": name, "ids": ids, "ks": list(KS), "about": about,
            "run": [[u, list(items)] for u, items in run], "train": [list(r) for r in train],
            "catalog": list(catalog), "qrels": [list(r) for r in qrels]}


def case_hand() -> dict[str, Any]:
    """4 users, catalog A-H; G, H only in the run; F only in train; u4's list (1 item) shorter than k."""
    train = [("u1", "A"), ("u1", "F"), ("u1", "A"),
             ("u2", "A"), ("u2", "B"), ("u2", "B"),
             ("u3", "A"), ("u3", "C"), ("u3", "F"),
             ("u4", "B"), ("u4", "D"), ("u4", "A")]
    run = [("u1", ["B", "C", "G", "D", "E", "H"]),
           ("u2", ["C", "G", "D", "E", "H"]),
           ("u3", ["B", "D", "G", "E", "H"]),
           ("u4", ["C"])]
    qrels = [("u1", "C", 1), ("u1", "E", 2), ("u1", "B", 0),
             ("u2", "D", 1), ("u2", "H", 1),
             ("u3", "B", 2), ("u3", "E", 1),
             ("u4", "C", 1), ("u4", "G", 1)]
    return _case("hand", "str",
                 "4 users, catalog A-H; train has duplicate rows (u1 A, u2 B); G, H never in train (run "
                 "only), F only in train; u4's list has 1 item (shorter than k = 2 and 5), the others 5-6; "
                 "no list holds an item of its user's training rows.",
                 run, train, list("ABCDEFGH"), qrels)


def _random_case(seed: int, ids: str) -> dict[str, Any]:
    """30 users, 60-item catalog, 300 training rows (popularity skew, repeats), lists of 0-10 items without
    the user's own training items, qrels of 1-4 judged items per user (rel 0-2)."""
    rng = random.Random(seed)
    if ids == "int":
        users: list[Any] = list(range(1, 31))
        items: list[Any] = list(range(101, 161))
    else:
        users = [f"u{n:02d}" for n in range(1, 31)]
        items = [f"i{n:02d}" for n in range(1, 61)]
    in_train = items[:45]  # 15 catalog items never in train
    weights = [1.0 / (n + 1) ** 1.1 for n in range(len(in_train))]
    train: list[tuple[Any, Any]] = [(u, rng.choices(in_train, weights)[0]) for u in users]  # every user
    while len(train) < 300:
        train.append((rng.choice(users), rng.choices(in_train, weights)[0]))
    rng.shuffle(train)
    seen: dict[Any, set[Any]] = {}
    for u, i in train:
        seen.setdefault(u, set()).add(i)
    run = []
    for u in users:
        pool = [i for i in items if i not in seen[u]]
        n = rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
        run.append((u, rng.sample(pool, n)))
    qrels: list[tuple[Any, Any, int]] = []
    for u in users:
        pool = [i for i in items if i not in seen[u]]
        qrels += [(u, i, rng.choice([0, 1, 1, 2])) for i in rng.sample(pool, rng.randint(1, 4))]
    n_rep = len(train) - len(set(train))
    return _case(f"random_{ids}_{seed}", ids,
                 f"random.Random({seed}): 30 users, 60-item catalog ({ids} ids; the last 15 never in "
                 f"train), 300 training rows drawn with weights 1/(n+1)^1.1 ({n_rep} repeated rows, every "
                 "user has some), lists of 0-10 items without the user's training items, 1-4 judged items "
                 "per user (rel 0, 1, 1, 2).",
                 run, train, items, qrels)


# the first three seeds of 1, 2, ... whose training rows have no popularity tie at Elliot's head/tail
# boundary (seeds 1, 4, 5 have one), so PopREO / PopRSP are recorded for every random case
RANDOM = ((2, "str"), (3, "int"), (6, "str"))


def case_single_item() -> dict[str, Any]:
    """Every user gets the same single item; the catalog is that item."""
    train = [("t1", "X"), ("t2", "X"), ("t2", "X")]
    run = [("u1", ["X"]), ("u2", ["X"]), ("u3", ["X"])]
    qrels = [("u1", "X", 1), ("u2", "X", 0), ("u3", "X", 1)]
    return _case("single_item", "str",
                 "catalog = [X]; every run user gets [X]; train = t1 X, t2 X, t2 X (train-only users: the "
                 "run users have no training rows, so recommenders does not refuse X as already seen).",
                 run, train, ["X"], qrels)


def case_one_user() -> dict[str, Any]:
    """One run user only."""
    train = [("u1", "A"), ("u1", "B"), ("u2", "A"), ("u2", "C"), ("u3", "A"), ("u3", "B")]
    run = [("u1", ["C", "D", "E"])]
    qrels = [("u1", "D", 1), ("u1", "E", 2)]
    return _case("one_user", "str",
                 "one run user (u1: C, D, E); train users u1-u3; catalog A-E.",
                 run, train, list("ABCDE"), qrels)


def case_empty_list() -> dict[str, Any]:
    """An empty list among others."""
    train = [("u1", "A"), ("u1", "B"), ("u2", "A"), ("u2", "C"), ("u3", "B"), ("u3", "D"),
             ("u3", "D")]
    run = [("u1", ["C", "D", "E"]), ("u2", []), ("u3", ["A", "C", "E"])]
    qrels = [("u1", "D", 1), ("u2", "B", 1), ("u3", "E", 1), ("u3", "A", 0)]
    return _case("empty_list", "str",
                 "u2 has an empty list (no run rows; it has qrels and train rows); u1, u3 three items "
                 "each; catalog A-F.",
                 run, train, list("ABCDEF"), qrels)


def case_outside_catalog() -> dict[str, Any]:
    """Items of the run outside the catalog."""
    train = [("u1", "A"), ("u1", "B"), ("u2", "A"), ("u2", "C"), ("u3", "A"), ("u3", "Z")]
    run = [("u1", ["C", "Y", "Z", "D"]), ("u2", ["B", "Y", "D", "E"]), ("u3", ["W", "B", "C", "E"])]
    qrels = [("u1", "Y", 1), ("u2", "D", 1), ("u3", "W", 2)]
    return _case("outside_catalog", "str",
                 "catalog A-E; the run also recommends W, Y (in neither catalog nor train) and Z (in train, "
                 "not in the catalog); lists of 4.",
                 run, train, list("ABCDE"), qrels)


def case_ties() -> dict[str, Any]:
    """Ties in the recommendation counts and in the training counts (none at Elliot's boundary)."""
    train = [("u1", "A"), ("u2", "A"), ("u3", "A"), ("u4", "A"),
             ("u1", "B"), ("u2", "B"), ("t1", "B"), ("t2", "B"),
             ("t3", "C"), ("t4", "D")]
    run = [("u1", ["C", "D", "E", "F", "G"]), ("u2", ["D", "C", "F", "E", "G"]),
           ("u3", ["B", "E", "C", "D", "H"]), ("u4", ["E", "B", "D", "C", "H"])]
    qrels = [("u1", "C", 1), ("u2", "F", 1), ("u3", "B", 1), ("u3", "H", 2), ("u4", "E", 1)]
    return _case("ties", "str",
                 "train: A, B four users each, C, D one each (ties inside Elliot's head and inside its "
                 "tail, none at the boundary: head A, B; tail C, D); run: lists of 5, at k = 2 B, C, D, E "
                 "twice each, at k = 5 C, D, E four times and B, F, G, H twice; catalog A-H.",
                 run, train, list("ABCDEFGH"), qrels)


def cases() -> list[dict[str, Any]]:
    return ([case_hand()] + [_random_case(s, ids) for s, ids in RANDOM]
            + [case_single_item(), case_one_user(), case_empty_list(), case_outside_catalog(), case_ties()])


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def num(v: Any) -> float | None:
    """A library's value as a JSON number; NaN -> None (infinity is kept out too)."""
    f = float(v)
    return None if math.isnan(f) or math.isinf(f) else f


def error_text(e: BaseException) -> str:
    text = str(e).splitlines()[0] if str(e) else ""
    return f"{type(e).__name__}: {text}".rstrip(": ")


class NotRecordedError(Exception):
    """A case the library's input cannot express."""


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


# --------------------------------------------------------------------------------------------
# library calls
# --------------------------------------------------------------------------------------------


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

        import lenskit.metrics as lk_metrics
        import pandas as pd
        import polars as pl
        import recbole.evaluator.collector as rb_collector
        import recbole.evaluator.metrics as rb_metrics
        import rectools
        import rectools.metrics as rt_metrics
        import replay.metrics as rp_metrics
        import torch
        from elliot.evaluation import metrics as el_metrics
        from elliot.evaluation.popularity_utils.popularity import Popularity
        from elliot.evaluation.relevance import Relevance
        from lenskit.data import ItemList
        from recommenders.evaluation import python_evaluation as rc_eval
        from rexmex.metrics import coverage as rx_coverage
        from rexmex.metrics import ranking as rx_ranking

        self.pd, self.pl, self.torch = pd, pl, torch
        self.rt, self.rt_cols = rt_metrics, rectools.Columns
        self.rp = rp_metrics
        self.rb, self.DataStruct = rb_metrics, rb_collector.DataStruct
        self.el, self.Popularity, self.Relevance = el_metrics, Popularity, Relevance
        self.lk, self.ItemList = lk_metrics, ItemList
        self.rc = rc_eval
        self.rx_cov, self.rx_rank = rx_coverage, rx_ranking
        self.versions = {
            "rectools": md.version("rectools"), "replay": md.version("replay-rec"),
            "recbole": md.version("recbole"), "elliot": f"git {ELLIOT_COMMIT[:8]} (0.3.1)",
            "lenskit": md.version("lenskit"), "rexmex": md.version("rexmex"),
            "recommenders": md.version("recommenders"),
            "environment": {p: md.version(p) for p in
                            ("pandas", "polars", "pyarrow", "numpy", "scipy", "scikit-learn", "torch")}
            | {"python": sys.version.split()[0]},
        }

    # rectools: reco (user_id, item_id, rank); a user with an empty list has no rows
    def rectools_catalog_coverage(self, run: dict[Any, list[Any]], catalog: list[Any], k: int,
                                  normalize: bool) -> float:
        c = self.rt_cols
        rows = [(u, i, r) for u, lst in run.items() for r, i in enumerate(lst, 1)]
        reco = self.pd.DataFrame(rows, columns=[c.User, c.Item, c.Rank])
        return float(self.rt.CatalogCoverage(k=k, normalize=normalize).calc(reco, catalog))

    # RecBole: a DataStruct with rec.items (a matrix of internal ids) and data.num_items
    @staticmethod
    def _recbole_ids(run: dict[Any, list[Any]], catalog: list[Any]) -> dict[Any, int]:
        order = list(catalog) + [i for lst in run.values() for i in lst if i not in catalog]
        return {i: n + 1 for n, i in enumerate(dict.fromkeys(order))}

    def recbole(self, name: str, run: dict[Any, list[Any]], catalog: list[Any], k: int,
                num_items: int | None, one_row: bool) -> float:
        ids = self._recbole_ids(run, catalog)
        if one_row:
            matrix = [[ids[i] for lst in run.values() for i in lst[:k]]]
            if not matrix[0]:
                raise NotRecordedError("no recommended item at all: RecBole's matrix would be empty")
            kk = len(matrix[0])
        else:
            lengths = Counter(min(len(lst), k) for lst in run.values())
            if len(lengths) > 1 or 0 in lengths:
                raise NotRecordedError(
                    f"the lists cut at k have different lengths ({dict(sorted(lengths.items()))} users of "
                    "each length): RecBole's rec.items is a (users x K) matrix, every user has K items")
            matrix = [[ids[i] for i in lst[:k]] for lst in run.values()]
            kk = k  # K < k: RecBole reads matrix[:, :k], i.e. all K columns
        ds = self.DataStruct()
        ds.set("rec.items", self.torch.tensor(matrix, dtype=self.torch.int64))
        if num_items is not None:
            ds.set("data.num_items", num_items)
        m = getattr(self.rb, name)({"topk": [kk], "metric_decimal_place": 15})
        return float(m.calculate_metric(ds)[f"{name.lower()}@{kk}"])

    # rexmex
    def rexmex_coverage(self, which: str, users: list[Any], catalog: list[Any],
                        run: dict[Any, list[Any]], k: int | None) -> float:
        pairs = [(u, i) for u, lst in run.items() for i in (lst if k is None else lst[:k])]
        return float(getattr(self.rx_cov, which)((list(users), list(catalog)), pairs))

    def rexmex_personalization(self, run: dict[Any, list[Any]], k: int) -> float:
        return float(self.rx_rank.personalization([lst[:k] for lst in run.values()]))

    # Elliot: the metric classes with the Evaluator's objects; users without qrels dropped
    def elliot(self, name: str, run: dict[Any, list[Any]], train: list[list[Any]],
               qrels: dict[Any, dict[Any, int]], k: int) -> float:
        from types import SimpleNamespace

        data = elliot_data(train)
        objs = SimpleNamespace(cutoff=k, relevance=self.Relevance(qrels, 1),
                               pop=self.Popularity(data, 0.8), num_items=data.num_items,
                               data=data, additional_metrics={})
        recs = {u: [(i, float(len(lst) - r)) for r, i in enumerate(lst)]
                for u, lst in run.items() if qrels.get(u, {})}
        return float(getattr(self.el, name)(recs, None, None, objs).eval())

    # RePlay: recommendations (query_id, item_id, rating); RePlay orders by rating itself
    def replay_coverage(self, run: dict[Any, list[Any]], train: list[list[Any]], k: int,
                        engine: str) -> float:
        recs = self.pd.DataFrame([(u, i, float(len(lst) - r)) for u, lst in run.items()
                                  for r, i in enumerate(lst)], columns=["query_id", "item_id", "rating"])
        tr = self.pd.DataFrame([tuple(r) for r in train], columns=["query_id", "item_id"])
        if engine == "polars":
            recs, tr = self.pl.from_pandas(recs), self.pl.from_pandas(tr)
        (v,) = self.rp.Coverage(k)(recs, tr).values()
        return float(v)

    # recommenders: train_df, reco_df (userID, itemID), no k
    def recommenders(self, name: str, run: dict[Any, list[Any]], train: list[list[Any]],
                     k: int | None) -> float:
        reco = self.pd.DataFrame([(u, i) for u, lst in run.items() for i in (lst if k is None else lst[:k])],
                                 columns=["userID", "itemID"])
        tr = self.pd.DataFrame([tuple(r) for r in train], columns=["userID", "itemID"])
        for f in (self.rc.historical_item_novelty,):  # lru_cache_df(maxsize=1) keyed on the frames
            clear = getattr(f, "cache_clear", None)
            if clear:
                clear()
        return float(getattr(self.rc, name)(tr, reco))

    # LensKit: DecomposedMetric -- compute_list_data per list, global_aggregate over the lists
    def lenskit(self, name: str, run: dict[Any, list[Any]], catalog: list[Any], k: int,
                drop_empty: bool) -> float:
        kw: dict[str, Any] = {"items": self.pd.Series(catalog)}
        if name == "ExposureGini":
            kw["weight"] = self.lk.GeometricRankWeight(0.85)
        metric = getattr(self.lk, name)(k, **kw)
        lists = [lst for lst in run.values() if lst or not drop_empty]
        data = [metric.compute_list_data(self.ItemList(item_ids=list(lst), ordered=True), self.ItemList([]))
                for lst in lists]
        return float(metric.global_aggregate(data))


# --------------------------------------------------------------------------------------------
# formulas (only where a library rounds: the same formula unrounded)
# --------------------------------------------------------------------------------------------


def rexmex_unrounded(which: str, users: list[Any], catalog: list[Any], run: dict[Any, list[Any]],
                     k: int | None) -> float:
    """rexmex/metrics/coverage.py:28-32 (users) and 59-62 (items) without the round(., 3)."""
    pairs = [(u, i) for u, lst in run.items() for i in (lst if k is None else lst[:k])]
    if which == "user_coverage":
        possible, got = set(users), {u for u, _ in pairs}
    else:
        possible, got = set(catalog), {i for _, i in pairs}
    if not possible:
        raise ValueError("possible_users_items cannot hold empty lists!")
    return 1 - len(possible - got) / len(possible)


# --------------------------------------------------------------------------------------------
# keys and their sources
# --------------------------------------------------------------------------------------------

EL = "elliot/evaluation/metrics/"
SRC: dict[str, dict[str, str]] = {
    "rectools.CatalogCoverage": {
        "library": "rectools", "code": "rectools/metrics/catalog.py:42-64 (the value: 60-63)",
        "definition": "number of distinct items at rank <= k (items outside the catalog count too); "
                      "normalize=True: / len(catalog)"},
    "recbole.ItemCoverage": {
        "library": "recbole", "code": "recbole/evaluator/metrics.py:457-503 (get_coverage 492-503)",
        "definition": "len(np.unique(rec.items[:, :k])) / num_items (calculate_metric rounds to "
                      "metric_decimal_place decimals: 15 here)"},
    "recbole.GiniIndex": {
        "library": "recbole", "code": "recbole/evaluator/metrics.py:633-689 (get_gini 672-689)",
        "definition": "counts c of the recommended items ascending, idx = num_items - m + 1 .. num_items "
                      "(m = distinct recommended items): sum((2 idx - num_items - 1) c) / (entries x "
                      "num_items) -- the Gini of the counts padded with zeros to num_items items (rounded to 15 "
                      "decimals); with more distinct recommended items than num_items it goes negative"},
    "recbole.ShannonEntropy": {
        "library": "recbole", "code": "recbole/evaluator/metrics.py:576-630 (get_entropy 614-630)",
        "definition": "-sum p ln p over the recommended items (p = count / entries), divided by the number "
                      "of distinct recommended items (rounded to 15 decimals)"},
    "rexmex.item_coverage": {
        "library": "rexmex", "code": "rexmex/metrics/coverage.py:37-64 (value 59-64)",
        "definition": "round(1 - |catalog \\ recommended| / |catalog|, 3); items outside the catalog ignored"},
    "rexmex.user_coverage": {
        "library": "rexmex", "code": "rexmex/metrics/coverage.py:6-34 (value 28-34)",
        "definition": "round(1 - |users without a recommendation| / |users|, 3)"},
    "formula:rexmex.item_coverage[unrounded]": {
        "library": "rexmex", "code": "rexmex/metrics/coverage.py:59-62 (computed here without round)",
        "definition": "1 - |catalog \\ recommended| / |catalog|"},
    "formula:rexmex.user_coverage[unrounded]": {
        "library": "rexmex", "code": "rexmex/metrics/coverage.py:28-32 (computed here without round)",
        "definition": "1 - |users without a recommendation| / |users|"},
    "rexmex.personalization": {
        "library": "rexmex", "code": "rexmex/metrics/ranking.py:288-328",
        "definition": "1 - (sum of the cosine-similarity matrix of the one-hot lists - M) / (M (M - 1)), M = "
                      "number of lists (an all-zero row has cosine 0 with every list)"},
    "elliot.ItemCoverage": {
        "library": "elliot", "code": EL + "coverage/item_coverage/item_coverage.py:51-56",
        "definition": "number of distinct items in the first k of the lists (a count)"},
    "elliot.UserCoverage": {
        "library": "elliot", "code": EL + "coverage/user_coverage/user_coverage.py:51-56",
        "definition": "number of users with a non-empty list (a count; users = run users with qrels)"},
    "elliot.UserCoverageAtN": {
        "library": "elliot", "code": EL + "coverage/user_coverage/user_coverage_at_n.py:47-52",
        "definition": "number of users whose list has at least k items (a count)"},
    "elliot.GiniIndex": {
        "library": "elliot", "code": EL + "diversity/gini_index/gini_index.py:56-84 (value 69-84)",
        "definition": "1 - sum_j (2 (j + n - m + 1) - n - 1) (c_j / total) / (n - 1), j 0-based over the "
                      "ascending counts of the m recommended items, total = entries, n = number of "
                      "distinct TRAIN items = 1 - G n / (n - 1) (1 = equal); recommended items outside train "
                      "push it above 1; one train item: ZeroDivisionError"},
    "elliot.ShannonEntropy": {
        "library": "elliot", "code": EL + "diversity/shannon_entropy/shannon_entropy.py:57-83",
        "definition": "sum_i w_i (-log2(c_i / total)) / |users|, w_i = sum over the lists holding i of "
                      "1 / len(list@k); = H_2 when every list has the same length; an empty list counts in "
                      "|users|"},
    "elliot.PopREO": {
        "library": "elliot", "code": EL + "bias/pop_reo/pop_reo.py:71-99; "
                                          "elliot/evaluation/popularity_utils/popularity.py:25-53",
        "definition": "over users with a relevant (rel >= 1) qrels item: P_g = sum_u |set(top-k) & Rel_u & "
                      "g| / sum_u |(g & Rel_u) - H_u|, g = short head / long tail (80% rule over distinct "
                      "user-item pairs); std(P) / mean(P) (population std)"},
    "elliot.PopRSP": {
        "library": "elliot", "code": EL + "bias/pop_rsp/pop_rsp.py:68-95; "
                                          "elliot/evaluation/popularity_utils/popularity.py:25-53",
        "definition": "over all (qrels) users: P_g = sum_u |set(top-k) & g| / sum_u |g - H_u|; std(P) / "
                      "mean(P); a run user without training rows raises KeyError (self._train[u])"},
    "replay.Coverage": {
        "library": "replay", "code": "replay/metrics/coverage.py:175-189 (_dict_call; pandas frames are "
                                     "converted to dicts at 219-226; the polars path 141-158 computes the same)",
        "definition": "|distinct top-k items & distinct train items| / |distinct train items|"},
    "recommenders.catalog_coverage": {
        "library": "recommenders", "code": "recommenders/evaluation/python_evaluation.py:1645-1676",
        "definition": "distinct items of reco_df / distinct items of train_df (no k; can exceed 1)"},
    "recommenders.distributional_coverage": {
        "library": "recommenders", "code": "recommenders/evaluation/python_evaluation.py:1679-1717",
        "definition": "-sum p log2 p, p = rows of the item in reco_df / rows of reco_df (no k); refuses "
                      "reco rows already in train_df (python_evaluation.py:1040-1046)"},
    "recommenders.novelty": {
        "library": "recommenders", "code": "recommenders/evaluation/python_evaluation.py:1404-1440 "
                                           "(historical_item_novelty 1355-1401)",
        "definition": "sum over reco rows of -log2(rows(i) / |train rows|) [i in train] / |reco rows| (no k; "
                      "an item not in train adds 0 but counts in the denominator)"},
    "lenskit.ListGini": {
        "library": "lenskit", "code": "lenskit/metrics/ranking/_gini.py:48-82; lenskit/stats.py:22-62",
        "definition": "Gini (max(., 0)) of the number of lists each item appears in (first n), padded "
                      "with zeros to len(items) items; more distinct items than len(items) raises"},
    "lenskit.ExposureGini": {
        "library": "lenskit", "code": "lenskit/metrics/ranking/_gini.py:85-138; "
                                      "lenskit/metrics/ranking/_weighting.py:57-87; lenskit/stats.py:22-62",
        "definition": "Gini of sum over lists of 0.85^(rank-1) per item, padded with zeros to len(items) "
                      "items; the exposures are float32 (summed by pyarrow's group_by), so a float64 "
                      "computation of the same formula agrees to about 1e-8 (compare with a tolerance)"},
}


def family(key: str) -> str:
    """The SRC entry of a key: the name before its parameters / bracketed variant."""
    base = key.split("(")[0]
    if base.endswith("]") and not base.startswith("formula:"):
        base = base[: base.index("[")]
    return base


def keyed_calls(lib: Libraries, case: dict[str, Any]) -> list[tuple[str, Any, str]]:
    """(key, call, how) for every value of the case."""
    run: dict[Any, list[Any]] = {u: lst for u, lst in case["run"]}
    train, catalog = case["train"], case["catalog"]
    qrels: dict[Any, dict[Any, int]] = {}
    for u, i, r in case["qrels"]:
        qrels.setdefault(u, {})[i] = int(r)
    users = list(dict.fromkeys(list(run) + list(qrels)))
    nc = len(catalog)
    out: list[tuple[str, Any, str]] = []

    def add(key: str, call: Any, how: str) -> None:
        out.append((key, call, how))

    add("rexmex.user_coverage", lambda: lib.rexmex_coverage("user_coverage", users, catalog, run, None),
        "rexmex.metrics.coverage.user_coverage((users, catalog), pairs)")
    add("formula:rexmex.user_coverage[unrounded]",
        lambda: rexmex_unrounded("user_coverage", users, catalog, run, None), "formula")
    add("elliot.UserCoverage", lambda: lib.elliot("UserCoverage", run, train, qrels, 1),
        "elliot UserCoverage(...).eval()")
    for full in ("catalog_coverage", "distributional_coverage", "novelty"):
        add(f"recommenders.{full}[full lists]",
            lambda full=full: lib.recommenders(full, run, train, None),
            f"recommenders.evaluation.python_evaluation.{full}(train_df, reco_df of every run row)")
    for k in KS:
        for norm in (False, True):
            add(f"rectools.CatalogCoverage(k={k},normalize={norm})",
                lambda k=k, norm=norm: lib.rectools_catalog_coverage(run, catalog, k, norm),
                f"rectools.metrics.CatalogCoverage(k={k}, normalize={norm}).calc(reco, catalog)")
        for name in ("ItemCoverage", "GiniIndex", "ShannonEntropy"):
            sizes = [("", None)] if name == "ShannonEntropy" else [
                (f",num_items={nc}", nc), (f",num_items={nc + 1}[PAD]", nc + 1)]
            for label, n in sizes:
                for one_row in (False, True):
                    tag = "[one row]" if one_row else ""
                    add(f"recbole.{name}{tag}(k={k}{label})",
                        lambda name=name, k=k, n=n, one_row=one_row: lib.recbole(name, run, catalog, k, n, one_row),
                        f"recbole.evaluator.metrics.{name}(topk=[K]).calculate_metric(DataStruct"
                        f"(rec.items = {'1 x N row of every top-k entry' if one_row else 'users x k matrix'}"
                        f"{', data.num_items = ' + str(n) if n else ''}))")
        add(f"rexmex.item_coverage(k={k})",
            lambda k=k: lib.rexmex_coverage("item_coverage", users, catalog, run, k),
            "rexmex.metrics.coverage.item_coverage((users, catalog), pairs of the first k)")
        add(f"formula:rexmex.item_coverage[unrounded](k={k})",
            lambda k=k: rexmex_unrounded("item_coverage", users, catalog, run, k), "formula")
        for name in ("ItemCoverage", "UserCoverageAtN", "GiniIndex", "ShannonEntropy", "PopREO", "PopRSP"):
            add(f"elliot.{name}(k={k})", lambda name=name, k=k: lib.elliot(name, run, train, qrels, k),
                f"elliot {name}(recs, None, None, eval_objects(cutoff={k})).eval()")
        add(f"replay.Coverage(k={k})", lambda k=k: lib.replay_coverage(run, train, k, "pandas"),
            f"replay.metrics.Coverage({k})(recommendations, train) (pandas)")
        for cut in ("catalog_coverage", "distributional_coverage", "novelty"):
            add(f"recommenders.{cut}[cut at k](k={k})",
                lambda cut=cut, k=k: lib.recommenders(cut, run, train, k),
                f"recommenders.evaluation.python_evaluation.{cut}(train_df, reco_df of the first {k} rows "
                "of each list)")
        for name in ("ListGini", "ExposureGini"):
            w = ",weight=GeometricRankWeight(0.85)" if name == "ExposureGini" else ""
            for drop in (False, True):
                tag = "[empty lists left out]" if drop else ""
                add(f"lenskit.{name}{tag}(n={k},items=catalog{w})",
                    lambda name=name, k=k, drop=drop: lib.lenskit(name, run, catalog, k, drop),
                    f"lenskit.metrics.{name}({k}, items=pd.Series(catalog){w}): compute_list_data per "
                    "list, global_aggregate")
        add(f"rexmex.personalization(k={k})", lambda k=k: lib.rexmex_personalization(run, k),
            f"rexmex.metrics.ranking.personalization([first {k} of each list])")
    return out


def compute(lib: Libraries, case: dict[str, Any], calls_seen: dict[str, str]) -> dict[str, Any]:
    """The values of every key for one case, and the libraries' refusals."""
    tie = boundary_tie(case["train"])
    values: dict[str, float | None] = {}
    errors: dict[str, str] = {}
    for key, call, how in keyed_calls(lib, case):
        calls_seen.setdefault(key, how)
        if key.startswith(("elliot.PopREO", "elliot.PopRSP")) and tie:
            errors[key] = ("not recorded: popularity tie at Elliot's head/tail boundary (its tie order is "
                           "hash order)")
            continue
        try:
            values[key] = num(call())
        except NotRecordedError as e:
            errors[key] = f"not recorded: {e}"
        except Exception as e:
            errors[key] = error_text(e)
    notes: list[str] = []
    # RecBole: the 1 x N row equals the users x k matrix wherever that one exists
    for key, v in values.items():
        if key.startswith("recbole.") and "[one row]" not in key:
            name, rest = key.split("(", 1)
            other = values.get(f"{name}[one row]({rest}")
            assert v is not None and other is not None and abs(v - other) < 1e-12, (case["name"], key)
    # RePlay's polars path must give the pandas value
    run = {u: lst for u, lst in case["run"]}
    for k in KS:
        key = f"replay.Coverage(k={k})"
        if key in values:
            pol = lib.replay_coverage(run, case["train"], k, "polars")
            if pol != values[key]:
                notes.append(f"{key}: the polars path gives {pol!r}")
    out = dict(case)
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
        for field in ("run", "train", "qrels", "catalog"):
            if field == "catalog":
                rows.append(json.dumps(case[field]))
                out[field] = f"@@{len(rows) - 1}@@"
                continue
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
    calls_seen: dict[str, str] = {}
    done = [compute(lib, c, calls_seen) for c in cases()]
    sources = {}
    for key, how in calls_seen.items():
        src = SRC[family(key)]
        sources[key] = {**src, "call": how, "version": lib.versions[src["library"]]}
    doc = {
        "about": {
            "generator": "tests/data/beyond/make_set_goldens.py (see its docstring)",
            "environment": lib.versions["environment"],
            "elliot_source": f"https://github.com/sisinflab/elliot @ {ELLIOT_COMMIT}",
            "run": "run = [[user, [items in rank order]], ...] in user order; as rows: (user, item, score = n - r) "
                   "with r the 0-based rank, n the list's length; a user with an empty list has no rows (it "
                   "has qrels rows). train = (user, item) rows, repeats kept. catalog = the items. qrels = "
                   "(user, item, rel), relevant = rel >= 1.",
            "values": "values[key] = the library's value (null for NaN) for the whole run; keys name library, "
                      "function and parameters; 'formula:' keys are computed by the script from the cited "
                      "formula; errors[key] = what the library raised, or why a key is not recorded",
            "sources": "sources[key] = where the formula is (file:line in the library at the recorded version), "
                       "the call made and what it computes",
        },
        "cases": done,
        "sources": sources,
    }
    out_path.write_text(dumps(doc))
    print(f"wrote {out_path}: {len(done)} cases")
    for c in done:
        print(f"  {c['name']}: {len(c['values'])} values; tie {c['elliot_boundary_tie']}; "
              f"errors: {json.dumps(c.get('errors', {}), indent=1)}; notes {c.get('notes')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
