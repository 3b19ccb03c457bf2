"""Freeze Open Bandit Pipeline's slate estimators into slate_cases.json (and slate_sn_cases.json).

obp (Saito et al.; PyPI ``obp``) cannot be a test extra: 0.4.1 imports torch through
``obp/ope/estimators.py``, and 0.5.x requires Python < 3.11. So it runs in an environment of its
own, on seeded logs of a stochastic logging policy: per query five documents, a Plackett-Luce
logging policy (scores drawn per document) shows slates of three documents (four in one log, two
in another), clicks follow a position-based model; the evaluation policy is another Plackett-Luce policy, and
the deterministic new ranking (the run: each query's documents by the evaluation scores) a third,
with π_e ∈ {0, 1}. Each row gets every probability the estimators weigh by, computed exactly by
enumerating the ordered prefixes: the whole slate's (SIPS), the item-at-position marginal (IIPS),
the top-l prefix's (RIPS), for the logging and both evaluation policies.

``SlateStandardIPS``, ``SlateIndependentIPS`` and ``SlateRewardInteractionIPS`` of obp 0.4.1
(``obp/ope/estimators_slate.py``) — their ``estimate_policy_value`` and ``estimate_interval`` —
are run with:

    /work/scratch/venv-clicks/bin/python tests/data/clicks/make_slate_cases.py > tests/data/clicks/slate_cases.json

and the self-normalised ones (``SelfNormalizedSlate{Standard,Independent,RewardInteraction}IPS``,
only in obp's GitHub source st-tech/zr-obp @ 8cbd5fa4, ``version.py`` 0.5.5) with that source's
``obp`` directory on the path:

    PYTHONPATH=<zr-obp checkout> /work/scratch/venv-clicks/bin/python tests/data/clicks/make_slate_cases.py \\
        --self-normalized > tests/data/clicks/slate_sn_cases.json

Each case: the log's columns (slate_id, query_id, doc_id, rank (1 = top; obp's position is rank −
1), click, the probabilities), the run (query_id, doc_id, score), and per estimator and evaluation
policy (``stochastic``: the other Plackett-Luce policy; ``run``: the deterministic ranking) obp's
value, and (0.4.1 only) its bootstrap interval with ``random_state=seed``, 1000 resamples.
"""

import itertools
import json
import random
import sys


def _probabilities(scores: dict[str, float], slate: list[str], docs: list[str]) -> tuple[float, list[float], list[float]]:
    """A Plackett-Luce policy's probabilities of ``slate``: the whole slate's, each position's
    item-at-position marginal, each top-l prefix's."""

    def prefix(seq: tuple[str, ...]) -> float:
        p, left = 1.0, sum(scores[d] for d in docs)
        for d in seq:
            p *= scores[d] / left
            left -= scores[d]
        return p

    cascade = [prefix(tuple(slate[: pos + 1])) for pos in range(len(slate))]
    marginal = []
    for pos, doc in enumerate(slate):
        others = [d for d in docs if d != doc]
        marginal.append(sum(prefix((*head, doc)) for head in itertools.permutations(others, pos)))
    return cascade[-1], marginal, cascade


def main() -> None:
    # imported here: pytest's doctest collection imports this module, and obp is not installed beside rankwise
    import numpy as np
    import obp
    from obp.ope import SlateIndependentIPS, SlateRewardInteractionIPS, SlateStandardIPS

    sn = "--self-normalized" in sys.argv[1:]
    if sn:
        from obp.ope import (
            SelfNormalizedSlateIndependentIPS,
            SelfNormalizedSlateRewardInteractionIPS,
            SelfNormalizedSlateStandardIPS,
        )

        estimators = {"snsips": (SelfNormalizedSlateStandardIPS, "pscore"),
                      "sniips": (SelfNormalizedSlateIndependentIPS, "pscore_item_position"),
                      "snrips": (SelfNormalizedSlateRewardInteractionIPS, "pscore_cascade")}
    else:
        estimators = {"sips": (SlateStandardIPS, "pscore"), "iips": (SlateIndependentIPS, "pscore_item_position"),
                      "rips": (SlateRewardInteractionIPS, "pscore_cascade")}
    cases = []
    for seed, (length, slates) in enumerate([(3, 25), (3, 40), (4, 30), (2, 60)]):
        rng = random.Random(seed)
        rows, run = [], []
        for q in range(4):
            docs = [f"q{q}d{i}" for i in range(5)]
            behaviour = {d: 0.2 + rng.random() for d in docs}
            evaluation = {d: 0.2 + rng.random() ** 2 for d in docs}
            relevance = {d: rng.random() for d in docs}
            ranking = sorted(docs, key=lambda d: -evaluation[d])
            run += [{"query_id": f"q{q}", "doc_id": d, "score": float(len(docs) - i)} for i, d in enumerate(ranking)]
            for _ in range(slates):
                left, slate = docs[:], []
                for _ in range(length):  # the logging policy draws the slate
                    pick = rng.choices(left, weights=[behaviour[d] for d in left])[0]
                    slate.append(pick)
                    left.remove(pick)
                b = _probabilities(behaviour, slate, docs)
                e = _probabilities(evaluation, slate, docs)
                match = [float(ranking[pos] == d) for pos, d in enumerate(slate)]
                prefix = [float(all(match[: pos + 1])) for pos in range(length)]
                slate_id = len({row["slate_id"] for row in rows})
                for pos, d in enumerate(slate):
                    rows.append({
                        "slate_id": slate_id, "query_id": f"q{q}", "doc_id": d, "rank": pos + 1,
                        "click": int(rng.random() < relevance[d] / (pos + 1)),
                        "pscore": b[0], "pscore_item_position": b[1][pos], "pscore_cascade": b[2][pos],
                        "evaluation_policy_pscore": e[0], "evaluation_policy_pscore_item_position": e[1][pos],
                        "evaluation_policy_pscore_cascade": e[2][pos],
                        "run_pscore": prefix[-1], "run_pscore_item_position": match[pos], "run_pscore_cascade": prefix[pos],
                    })
        column = {key: np.array([row[key] for row in rows]) for key in rows[0]}
        expected: dict[str, dict[str, object]] = {}
        for name, (cls, kind) in estimators.items():
            for policy, prefix_ in (("stochastic", "evaluation_policy_"), ("run", "run_")):
                arguments = {"slate_id": column["slate_id"], "reward": column["click"],
                             "position": column["rank"] - 1, kind: column[kind],
                             f"evaluation_policy_{kind}": column[prefix_ + kind]}
                estimator = cls(len_list=length)
                got: dict[str, object] = {"value": float(estimator.estimate_policy_value(**arguments))}
                if not sn:
                    interval = estimator.estimate_interval(**arguments, alpha=0.05, n_bootstrap_samples=1000,
                                                           random_state=seed)
                    got["interval"] = {key: float(value) for key, value in interval.items()}
                expected[f"{name}/{policy}"] = got
        log = {key: [row[key] for row in rows] for key in rows[0]}
        cases.append({"seed": seed, "len_list": length, "log": log, "run": {k: [r[k] for r in run] for k in run[0]},
                      "expected": expected})
    source = f"obp {obp.__version__} ({'GitHub st-tech/zr-obp @ 8cbd5fa4' if sn else 'PyPI'}), numpy {np.__version__}"
    print(json.dumps({"source": source, "cases": cases}))


if __name__ == "__main__":
    main()
