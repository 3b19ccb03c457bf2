"""The machine-learning libraries' own metric code, called on one query's list.

Every test that checks a convention against LightGBM, XGBoost or CatBoost calls them here: the
labels and scores of one query's list in its input order (an unjudged document: label 0, as the
libraries see it). None of them trains anything: each runs the library's metric code on scores
given as they are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any


def lightgbm(labels: Sequence[float], scores: Sequence[float], metric: str, k: int, **params: Any) -> float:
    """LightGBM's ``metric`` (``ndcg``, ``map``) at ``k``: a Dataset of one group whose
    init_score is the scores, an objective that grows nothing (``'none'``), so that
    ``eval_train`` runs LightGBM's metric code on the scores."""
    import lightgbm as lgb
    import numpy as np

    n = len(labels)
    data = lgb.Dataset(np.zeros((n, 1)), label=np.asarray(labels, dtype=float), group=[n],
                       init_score=np.asarray(scores, dtype=float), params={"verbose": -1}, free_raw_data=False)
    booster = lgb.Booster(params={"objective": "none", "metric": metric, "eval_at": [k], "verbose": -1,
                                  "num_threads": 1, **params}, train_set=data)
    ((_, _, value, _),) = booster.eval_train()
    return float(value)


def xgboost(labels: Sequence[float], scores: Sequence[float], metrics: str | list[str], **params: Any) -> dict[str, float]:
    """XGBoost's ``metrics`` (e.g. ``ndcg@3-``, ``map@5``, ``pre@2``): an untrained booster
    evaluating a DMatrix of one group whose predictions are the scores (``base_margin``); the
    values as XGBoost prints them (6 digits), by metric name."""
    import numpy as np
    import xgboost as xgb

    data = xgb.DMatrix(np.zeros((len(labels), 1)), label=np.asarray(labels, dtype=float),
                       base_margin=np.asarray(scores, dtype=float))
    data.set_group([len(labels)])
    booster = xgb.Booster({"objective": "rank:ndcg", "eval_metric": metrics, "nthread": 1, **params}, [data])
    printed = booster.eval(data, "q")
    found = {name: float(value) for name, value in re.findall(r"q-(\S+):(\S+)", printed)}
    assert found, printed
    return found


def catboost(labels: Sequence[float], scores: Sequence[float], metric: str) -> float:
    """CatBoost's ``metric`` (a description such as ``NDCG:top=3;type=Exp``) through
    ``catboost.utils.eval_metric`` on one group."""
    import numpy as np
    from catboost.utils import eval_metric

    (value,) = eval_metric(np.asarray(labels, dtype=float), np.asarray(scores, dtype=float), metric,
                           group_id=np.zeros(len(labels), dtype=np.int64), thread_count=1)
    return float(value)
