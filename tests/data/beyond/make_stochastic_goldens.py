"""Write ``stochastic_goldens.json``: per-query values of Diaz et al.'s expected exposure (``expeval``) of
stochastic runs (several sampled rankings per query), frozen for rankwise's tests of ``sample=`` (issue 35).

Why frozen: expeval is not on PyPI; it is a script in a GitHub repository. The values are computed once,
from the source as published, and committed with the cases; the tests read the JSON and import nothing of it.

Source (GitHub, at the commit named; no file edited): diazf/expeval @ 69ab070 (2022-07-14): ``data.py``
(``read_topfile``: one permutation per (query, sample), the second field of the run being the sample),
``exposure.py`` (``target``, ``expected``: a document's exposure averaged over the query's samples),
``permutation.py``, the ``Metric`` objects of ``metrics.py``, called as ``expeval.py``'s ``main`` calls them
(lines 34-41, 69-74, 96-110), at full precision (the script prints 6 decimals). ``main`` reads the same
rankings from a TREC file and its printed values are checked against these to 6 decimals.

How to run (the values were written with Python 3.11):

    git clone https://github.com/diazf/expeval   # and check out 69ab070
    EXPEVAL=<the clone> python tests/data/beyond/make_stochastic_goldens.py [OUT.json]

The output is deterministic: the script runs itself again with ``PYTHONHASHSEED=0`` (expeval sums EE-L
over a set, in the hash's order).

Each case holds the run as (query, sample, doc, score) rows (within a sample, distinct scores: the
sample's ranking, score descending) and the qrels as (query, doc, relevance) rows, and expeval's EE-D
(disparity), EE-R (relevance), EE-L (difference) per query for each setting ``{um}-p{p}-u{u}`` (with
``-U``: unnormalised), in the retrieval setting (no ``-C``: only relevance > 0 in the qrels). Every query
of the qrels with a relevant document has values (one the run lacks: the script's defaults), none the
run alone has.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "stochastic_goldens.json"
SEE = Path(os.environ.get("EXPEVAL", "/work/scratch/beyond/src/diazf+expeval"))
SETTINGS = (("gerr", 0.5, 0.5), ("rbp", 0.5, 0.5), ("gerr", 0.8, 0.3), ("rbp", 0.9, 0.5))
"""(um, p, u): expeval's default, rbp, and two others."""


def case_random(seed: int, ids: str, graded: bool) -> dict[str, Any]:
    """Seeded random data: 7 queries of 1-6 samples each, each sample a ranking of 1-10 documents drawn
    from the query's 12 (documents in some samples only), binary or graded qrels, a judged query the run
    lacks, a listed query without a relevant document."""
    rng = random.Random(seed)
    queries = [f"q{i}" if ids == "str" else i for i in range(1, 8)]
    run: list[list[Any]] = []
    qrels: list[list[Any]] = []
    for i, q in enumerate(queries):
        docs = [f"d{i}{j:02d}" if ids == "str" else 1000 * i + j for j in range(12)]
        judged = rng.sample(docs, rng.randint(2, 8))
        for d in judged:
            qrels.append([q, d, rng.choice([0, 1, 2, 3]) if graded else rng.choice([0, 1])])
        if i == 1:  # without a relevant document
            qrels = [r for r in qrels if r[0] != q] + [[q, d, 0] for d in judged]
        if i == 2:  # judged, not in the run
            continue
        for s in range(rng.randint(1, 6)):
            ranking = rng.sample(docs, rng.randint(1, 10))
            run += [[q, f"s{s}" if seed % 2 else s, d, float(len(ranking) - r)] for r, d in enumerate(ranking)]
    return {"name": f"random{seed}", "ids": ids, "run": run, "qrels": qrels}


def _samples(case: dict[str, Any]) -> dict[Any, dict[Any, list[Any]]]:
    """{query: {sample: the ranking}}, score descending."""
    out: dict[Any, dict[Any, list[tuple[Any, float]]]] = {}
    for q, s, d, score in case["run"]:
        out.setdefault(q, {}).setdefault(s, []).append((d, score))
    return {q: {s: [d for d, _ in sorted(rows, key=lambda x: -x[1])] for s, rows in by.items()} for q, by in out.items()}


def expeval_values(case: dict[str, Any]) -> dict[str, dict[str, dict[str, float]]]:
    """expeval's per-query EE-D, EE-R, EE-L for each setting, normalised and not."""
    if str(SEE) not in sys.path:
        sys.path.insert(0, str(SEE))
    import exposure
    import permutation

    samples = _samples(case)
    qrels: dict[Any, dict[Any, int]] = {}
    for q, d, r in case["qrels"]:
        if r > 0:
            qrels.setdefault(q, {})[d] = r
    out: dict[str, dict[str, dict[str, float]]] = {}
    for um, p, u in SETTINGS:
        for normalize in (True, False):
            label = f"{um}-p{p}-u{u}{'' if normalize else '-U'}"
            for q, qr in qrels.items():
                _, disp, rel, diff = exposure.target(qr, um, p, u, False)
                if q in samples:
                    perms = {}
                    for s, ranking in samples[q].items():
                        pm = permutation.Permutation()
                        for r, d in enumerate(ranking, 1):
                            pm.add(r, d)
                        perms[str(s)] = pm
                    r_exp = exposure.expected(perms, qr, um, p, u)
                    disp.compute(r_exp), rel.compute(r_exp), diff.compute(r_exp)
                else:  # expeval.py:96-102
                    disp.value, rel.value, diff.value = disp.upperBound, rel.lowerBound, rel.upperBound
                out.setdefault(label, {})[str(q)] = {
                    "EE_D": disp.float(normalize), "EE_R": rel.float(normalize), "EE_L": diff.float(normalize),
                }
    return out


def check_script(case: dict[str, Any], values: dict[str, dict[str, dict[str, float]]]) -> None:
    """expeval.py itself, reading the TREC files (``qid sample did rank score``), prints the same values
    to 6 decimals."""
    samples = _samples(case)
    names = {"disparity": "EE_D", "relevance": "EE_R", "difference": "EE_L"}
    with tempfile.TemporaryDirectory() as folder:
        qf, tf = Path(folder) / "qrels", Path(folder) / "top"
        qf.write_text("".join(f"{q} {d} {r}\n" for q, d, r in case["qrels"]))
        tf.write_text("".join(f"{q} {s} {d} {r} {len(rk) - r} run\n" for q, by in samples.items()
                              for s, rk in by.items() for r, d in enumerate(rk, 1)))
        for um, p, u in SETTINGS:
            for normalize in (True, False):
                label = f"{um}-p{p}-u{u}{'' if normalize else '-U'}"
                args = [sys.executable, str(SEE / "expeval.py"), "-u", um, "-p", str(p), "-r", str(u),
                        *([] if normalize else ["-U"]), str(qf), str(tf)]
                printed = subprocess.run(args, cwd=SEE, capture_output=True, text=True, check=True).stdout
                for line in printed.splitlines():
                    name, q, v = line.split("\t")
                    assert abs(values[label][q][names[name]] - float(v)) <= 5e-7, (label, q, name)


def main(out: Path = OUT) -> None:
    cases = [case_random(1, "str", False), case_random(2, "str", True), case_random(3, "int", True),
             case_random(4, "int", False)]
    for case in cases:
        case["expeval"] = expeval_values(case)
        check_script(case, case["expeval"])
    data = {
        "source": "diazf/expeval @ 69ab070 data.py (read_topfile :47-66: one permutation per (query, sample)), "
                  "exposure.py (target :66-111, expected :37-56: the mean over the samples), metrics.py (bounds "
                  ":6-139), expeval.py:main (a query without a run: :96-102)",
        "settings": [list(s) for s in SETTINGS],
        "cases": cases,
    }
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
