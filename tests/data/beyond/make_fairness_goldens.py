"""Write ``fairness_goldens.json``: per-query values of TREC Fair Ranking's AWRF and Task 1 score (2021 and
2022 evaluation code) and of Diaz et al.'s expected exposure (``expeval``), frozen for rankwise's tests
(issue 35, fair exposure).

Why frozen: none of the three is on PyPI; each is a script in a GitHub repository, and 2022's needs
xarray and pandas < 3. The values are computed once, from the sources as published, and committed with
the cases; the tests read the JSON and import none of them.

Sources (GitHub, each at the commit named; no file edited):

- fair-trec/trec2021-fair-public @ 5e2b1d0 (2022-02-07): ``metrics.py`` (``discount``, ``qr_ndcg``,
  ``qr_awrf``, ``Task1Metric``, ``Task2Metric``);
- fair-trec/trec2022-fair-public @ 6fd105f (2022-11-14): ``wptrec/metrics/awrf.py`` (``AWRFMetric``, one
  fairness dimension: the ``dimension`` object needs only ``page_align_df`` and ``page_align_xr``) and
  ``wptrec/metrics/eel.py`` (``EELMetric``, ``only_rel=True``, unnormalised: its normalisation is marked
  "CURRENTLY BROKEN, DO NOT USE");
- diazf/expeval @ 69ab070 (2022-07-14): ``exposure.py`` (``target``, ``expected``), ``permutation.py``,
  the ``Metric`` objects of ``metrics.py``, called as ``expeval.py``'s ``main`` calls them (lines 34-41,
  69-74, 96-110), at full precision (the script prints 6 decimals).

How to run (the values were written with Python 3.11, numpy 2.4.6, pandas 2.3.3, scipy 1.16, xarray):

    git clone https://github.com/fair-trec/trec2021-fair-public   # and check out 5e2b1d0
    git clone https://github.com/fair-trec/trec2022-fair-public   # 6fd105f
    git clone https://github.com/diazf/expeval                    # 69ab070
    FAIR_SOURCES=<the folder holding the three clones, named owner+repo> \\
        python tests/data/beyond/make_fairness_goldens.py [OUT.json]

The output is deterministic: running it twice writes the same bytes (the script runs itself again
with ``PYTHONHASHSEED=0``: expeval sums EE-L over a set, in the hash's order).

Each case holds the run as (query, doc, score) rows (distinct scores: one order), the qrels as
(query, doc, relevance) rows, the document groups as (doc, group, weight) rows and the target: a dict
per query ``{query: {group: share}}``, or ``'uniform'`` / ``'relevant'`` (rankwise's named targets,
computed here as rankwise defines them: the same share for every group of the groups; the groups'
shares among the query's relevant documents, relevance ≥ 1, over every group of the groups) and given
to the TREC code as its per-query target. A query whose target has no group (no relevant document
with a group) has no value. TREC's relevant documents are those of relevance ≥ 1. For each cutoff
k the run is cut to its top k and TREC's length (2021's ``tgt_n``, 2022's ``target_len``) is k, so
that nDCG's ideal is over min(k, R) documents, as rankwise's ``nDCG_AWRF@k``.

The library code is imported only when ``main`` runs, so importing this module (pytest's doctest
collection does) needs none of it.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import random
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "fairness_goldens.json"
SOURCES = Path(os.environ.get("FAIR_SOURCES", "/work/scratch/beyond/src"))
S21 = SOURCES / "fair-trec+trec2021-fair-public"
S22 = SOURCES / "fair-trec+trec2022-fair-public"
SEE = SOURCES / "diazf+expeval"
KS = (3, 10)
"""The cutoffs of every case."""


def ranked(rows: list[list[Any]]) -> dict[Any, list[Any]]:
    """Each query's docs by score descending (queries in the order of their first row).

    >>> ranked([["q", "a", 1.0], ["q", "b", 3.0], ["p", "c", 2.0]])
    {'q': ['b', 'a'], 'p': ['c']}
    """
    out: dict[Any, list[tuple[Any, float]]] = {}
    for q, d, s in rows:
        out.setdefault(q, []).append((d, float(s)))
    return {q: [d for d, _ in sorted(docs, key=lambda x: -x[1])] for q, docs in out.items()}


def targets(case: dict[str, Any]) -> dict[Any, dict[str, float]]:
    """Each query's target as rankwise defines it (see the module), shares summing to 1; a query
    without one left out.

    >>> targets({"target": "uniform", "groups": [["a", "x", 1.0], ["b", "y", 1.0]], "run": [["q", "a", 1.0]],
    ...          "qrels": []})
    {'q': {'x': 0.5, 'y': 0.5}}
    """
    groups = sorted({str(g) for _, g, _ in case["groups"]})
    queries = list(ranked(case["run"]))
    target = case["target"]
    if target == "uniform":
        return {q: {g: 1.0 / len(groups) for g in groups} for q in queries}
    if target == "relevant":
        out: dict[Any, dict[str, float]] = {}
        for q in queries:
            relevant = {d for qq, d, r in case["qrels"] if qq == q and r >= 1}
            w = {g: 0.0 for g in groups}
            for d, g, weight in case["groups"]:
                if d in relevant:
                    w[str(g)] += weight
            total = sum(w.values())
            if total > 0:
                out[q] = {g: v / total for g, v in w.items()}
        return out
    return {q: {g: s / sum(shares.values()) for g, s in shares.items()} for q, shares in target.items()}


def case_hand() -> dict[str, Any]:
    """The hand case of the findings (``cases/hand_cases.py``): ranking a, c, b, x with a, c, x in
    g1, b in g2; the relevant b, c; a target 0.5/0.5. A second query whose ranking is all unknown
    (2021: the uniform distribution's value; 2022: NaN), a third with a document in both groups
    (weights 0.25/0.75) and an unknown one."""
    return {
        "name": "hand", "ids": "str", "target": {"q1": {"g1": 0.5, "g2": 0.5}, "q2": {"g1": 0.3, "g2": 0.7},
                                                   "q3": {"g1": 0.6, "g2": 0.4}},
        "run": [["q1", "a", 4.0], ["q1", "c", 3.0], ["q1", "b", 2.0], ["q1", "x", 1.0],
                ["q2", "zz", 2.0], ["q2", "yy", 1.0],
                ["q3", "m", 3.0], ["q3", "zz", 2.0], ["q3", "a", 1.0]],
        "qrels": [["q1", "b", 1], ["q1", "c", 1], ["q2", "b", 1], ["q3", "m", 2], ["q3", "a", 1]],
        "groups": [["a", "g1", 1.0], ["b", "g2", 1.0], ["c", "g1", 1.0], ["d", "g2", 1.0], ["x", "g1", 1.0],
                   ["m", "g1", 0.25], ["m", "g2", 0.75]],
    }


def case_random(seed: int, ids: str, target: str) -> dict[str, Any]:
    """Seeded random data: 6 queries of 1-12 docs from 30 (lists shorter and longer than the cutoffs),
    docs in one or two groups of three (weights summing to 1) or in none (unknown), binary or graded
    qrels (seed parity), a judged query without a relevant document, distinct scores (rankwise leaves
    out a query without judgments, as trec_eval does)."""
    rng = random.Random(seed)
    docs = [f"d{i:02d}" if ids == "str" else 100 + i for i in range(30)]
    names = ["A", "B", "C"]
    groups: list[list[Any]] = []
    for d in docs:
        kind = rng.random()
        if kind < 0.15:
            continue  # unknown
        if kind < 0.4:
            a, b = rng.sample(names, 2)
            w = round(rng.uniform(0.1, 0.9), 3)
            groups += [[d, a, w], [d, b, round(1.0 - w, 3)]]
        else:
            groups.append([d, rng.choice(names), 1.0])
    queries = [f"q{i}" if ids == "str" else i for i in range(1, 7)]
    run, qrels = [], []
    for i, q in enumerate(queries):
        listed = rng.sample(docs, rng.randint(1, 12))
        scores = rng.sample(range(1, 100), len(listed))
        run += [[q, d, float(s)] for d, s in zip(listed, scores, strict=True)]
        if i == 1:  # judged, without a relevant document
            qrels += [[q, d, 0] for d in rng.sample(docs, 3)]
            continue
        for d in rng.sample(docs, rng.randint(1, 8)):
            qrels.append([q, d, rng.choice([0, 1]) if seed % 2 else rng.choice([0, 1, 2, 3])])
    case: dict[str, Any] = {"name": f"random{seed}", "ids": ids, "run": run, "qrels": qrels, "groups": groups}
    if target == "given":
        case["target"] = {q: {g: round(rng.uniform(0.05, 1.0), 3) for g in rng.sample(names, rng.randint(2, 3))}
                          for q in queries}
    else:
        case["target"] = target
    return case


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def trec_values(case: dict[str, Any]) -> tuple[dict[str, dict[str, float | None]], dict[str, dict[str, float]]]:
    """TREC's per-query values for each cutoff: ``AWRF(definition='trec2021')@k`` (``qr_awrf``),
    ``nDCG_AWRF(definition='trec2021')@k`` (``qr_ndcg(tgt_n=k)`` times it; at k = 1000,
    ``Task1Metric``'s Score), 2022's ``AWRFMetric(target_len=k)``'s AWRF and Score, and 2021's
    ``Task2Metric``'s EE-L, EE-D, EE-R of the top k as one sequence (``GroupEE_*@k``), and 2022's
    ``EELMetric``'s (``GroupEE_*(definition='trec2022')@k``, its ``target_len`` 20 whatever k; the second
    dict, as only some queries have them) for a
    query with two relevant documents or more (with one, ``qrels.loc[qid]`` is a row and the script
    raises a TypeError; with none, a KeyError), its page alignments holding every listed document (a
    document without a group: 0 in each; the script raises a KeyError on a relevant one it lacks)."""
    import numpy as np
    import pandas as pd
    import xarray as xr

    m21 = _load(S21 / "metrics.py", "trec21_metrics")
    if str(S22) not in sys.path:
        sys.path.insert(0, str(S22))
    from wptrec.metrics import AWRFMetric, EELMetric

    lists = ranked(case["run"])
    tg = targets(case)
    relevant = {q: [d for qq, d, r in case["qrels"] if qq == q and r >= 1] for q in lists}
    out: dict[str, dict[str, float | None]] = {}
    eels: dict[str, dict[str, float]] = {}
    for q, ranking in lists.items():
        if q not in tg:
            continue
        glist = sorted(tg[q])
        weights: dict[Any, dict[str, float]] = {}
        for d, g, w in case["groups"]:
            weights.setdefault(d, {})[str(g)] = w
        align = pd.DataFrame.from_dict(
            {d: {g: ws.get(g, 0.0) for g in glist} for d, ws in weights.items()}, orient="index"
        )[glist]
        qtgt = np.array([tg[q][g] for g in glist])
        for k in (*KS, 1000):
            top = ranking[:k]
            key = str(q)
            a21 = float(m21.qr_awrf(pd.Series(top, dtype=object), align, qtgt))
            out.setdefault(f"AWRF@{k}", {})[key] = a21
            rel = relevant[q]
            nd = float(m21.qr_ndcg(np.asarray(top, dtype=object), list(rel), k)) if rel else None
            out.setdefault(f"nDCG_AWRF@{k}", {})[key] = None if nd is None else nd * a21
            if k == 1000 and rel:
                met = m21.Task1Metric(pd.Series({q: list(rel)}), align,
                                      pd.DataFrame([pd.Series(tg[q])[glist]], index=[q]))
                assert abs(float(met(pd.Series(top, dtype=object, name=q))["Score"]) - nd * a21) < 1e-12
            seq = pd.DataFrame({"qid": q, "seq_no": 0, "page_id": pd.Series(top, dtype=object)})
            seq = seq.set_index("qid").loc[[q]].reset_index()
            seq.name = q
            task2 = m21.Task2Metric(None, align, None, pd.DataFrame([pd.Series(tg[q])[glist]], index=[q]))(seq)
            for measure in "LDR":
                out.setdefault(f"GroupEE_{measure}@{k}", {})[key] = float(task2[f"EE-{measure}"])
            pa = align.copy()
            pa.index.name = "page"
            dim = SimpleNamespace(
                page_align_df=pa, name="grp",
                page_align_xr=xr.DataArray(pa.values, coords=[pa.index, pd.Index(glist, name="grp")],
                                           dims=["page", "grp"]),
            )
            qt = xr.DataArray(np.array([qtgt]), coords=[pd.Index([q], name="topic_id"), pd.Index(glist, name="grp")],
                              dims=["topic_id", "grp"])
            met22 = AWRFMetric(pd.Series({q: list(rel) or ["__no_relevant__"]}), [dim], qt, target_len=max(k, 1))
            a22 = float(met22.qr_awrf(pd.Series(top, dtype=object), qt.loc[q]))
            out.setdefault(f"AWRF(definition='trec2022')@{k}", {})[key] = None if math.isnan(a22) else a22
            if len(rel) >= 2:
                listed = pa.reindex(sorted({*pa.index, *ranking}, key=str), fill_value=0.0)
                listed.index.name = "page"
                every = SimpleNamespace(
                    page_align_df=listed, name="grp",
                    page_align_xr=xr.DataArray(listed.values, coords=[listed.index, pd.Index(glist, name="grp")],
                                               dims=["page", "grp"]),
                )
                eel = EELMetric(pd.DataFrame({"topic_id": q, "page_id": rel}).set_index("topic_id"), [every], qt,
                                only_rel=True, target_len=20)
                seq22 = pd.DataFrame({"seq_no": 0, "page_id": pd.Series(top, dtype=object)})
                seq22.name = q
                ee22 = eel(seq22)
                for measure in "LDR":
                    eels.setdefault(f"GroupEE_{measure}(definition='trec2022')@{k}", {})[key] = float(ee22[f"EE-{measure}"])
            if rel:
                s22 = float(met22(pd.Series(top, dtype=object, name=q))["Score"])
                out.setdefault(f"nDCG_AWRF(definition='trec2022')@{k}", {})[key] = None if math.isnan(s22) else s22
            else:
                out.setdefault(f"nDCG_AWRF(definition='trec2022')@{k}", {})[key] = None
    return out, eels


def expeval_values(case: dict[str, Any]) -> dict[str, dict[str, dict[str, float]]]:
    """expeval's per-query EE-D (disparity), EE-R (relevance), EE-L (difference) of the run as one
    sample per query (a deterministic run), for ``um`` in rbp, gerr (p = u = 0.5), normalised (the
    script's default) and not (``-U``), in the retrieval setting (no ``-C``: only relevance > 0 in
    the qrels); every query of the qrels with a relevant document (a query the run lacks: the
    script's defaults), none the run alone has."""
    if str(SEE) not in sys.path:
        sys.path.insert(0, str(SEE))
    import exposure
    import permutation

    lists = ranked(case["run"])
    qrels: dict[Any, dict[Any, int]] = {}
    for q, d, r in case["qrels"]:
        if r > 0:
            qrels.setdefault(q, {})[d] = r
    out: dict[str, dict[str, dict[str, float]]] = {}
    for um in ("rbp", "gerr"):
        for normalize in (True, False):
            label = f"{um}{'' if normalize else '-U'}"
            for q, qr in qrels.items():
                _, disp, rel, diff = exposure.target(qr, um, 0.5, 0.5, False)
                if q in lists:
                    pm = permutation.Permutation()
                    for r, d in enumerate(lists[q], 1):
                        pm.add(r, d)
                    r_exp = exposure.expected({"0": pm}, qr, um, 0.5, 0.5)
                    disp.compute(r_exp), rel.compute(r_exp), diff.compute(r_exp)
                else:  # expeval.py:96-102
                    disp.value, rel.value, diff.value = disp.upperBound, rel.lowerBound, rel.upperBound
                out.setdefault(label, {})[str(q)] = {
                    "EE_D": disp.float(normalize), "EE_R": rel.float(normalize), "EE_L": diff.float(normalize),
                }
    return out


def main(out: Path = OUT) -> None:
    cases = [
        case_hand(),
        case_random(1, "str", "given"),
        case_random(2, "int", "relevant"),
        case_random(3, "str", "uniform"),
        case_random(4, "str", "relevant"),
        case_random(6, "int", "given"),
    ]
    for case in cases:
        case["trec"], case["trec2022_eel"] = trec_values(case)
        case["expeval"] = expeval_values(case)
    data = {
        "sources": {
            "trec2021": "fair-trec/trec2021-fair-public @ 5e2b1d0 metrics.py (discount :30-48, qr_ndcg :51-83, "
                        "qr_awrf :86-119, Task1Metric :122-172, qr_exposure and Task2Metric :175-306); discounts in "
                        "float32",
            "trec2022": "fair-trec/trec2022-fair-public @ 6fd105f wptrec/metrics/awrf.py (AWRFMetric :12-149: "
                        "unknown pages dropped with their discount; all unknown: NaN), wptrec/metrics/eel.py "
                        "(EELMetric :15-201, only_rel=True, target_len=20, unnormalised)",
            "expeval": "diazf/expeval @ 69ab070 exposure.py (target :66-111, expected :37-56), metrics.py "
                       "(bounds :6-139), expeval.py:main (a query without a run: :96-102)",
        },
        "cutoffs": [*KS, 1000],
        "cases": cases,
    }
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    if os.environ.get("PYTHONHASHSEED") != "0":
        # expeval's EE-L sums over a set of documents (metrics.py:82-139): its last bit follows
        # the string hash's seed; one seed, one output
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
