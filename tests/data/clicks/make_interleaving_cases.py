"""Freeze the credits of Kato & Manabe's ``interleaving`` package into interleaving_cases.json.

The package is not on PyPI (the registry's ``interleaving`` is a placeholder); it runs from its
GitHub source, mpkato/interleaving @ 7907f7dd61bfcad57ad602b5c93e601677025da7 (2018-10-15),
unedited, with numpy, scipy and pulp (its ``__init__`` imports ``roughly_optimized``, which
imports pulp). Run (paths of this machine's copy; any checkout of that commit will do):

    /work/scratch/venv-clicks/bin/python tests/data/clicks/make_interleaving_cases.py \
        /work/scratch/clicks/src/interleaving_repo > tests/data/clicks/interleaving_cases.json

Each case: the runs' lists (name → doc ids in rank order), the interleaved list the package
generated (numpy's global generator, seeded here), its teams (team draft), the clicked
positions (0-based, as the package takes them) and the package's ``compute_scores``:

- ``TeamDraft`` (2 and 3 rankers) and ``Balanced``: the credits as returned;
- ``Probabilistic`` with 2 rankers: the package returns Σ over the assignments where a ranker
  gets more clicks of Π_l P_{a_l}(d_l) — not normalised (no ½ per position, no division by
  P(list)); ``total`` is Σ over all assignments of that product (from its ``allocations``), so
  that score / total is Hofmann et al.'s normalised probability that the ranker wins;
- ``Probabilistic`` with 3 rankers (Schuth et al. 2015): the expected number of clicks credited
  to each ranker, normalised by the package; its sampling of assignments prunes nothing when
  n^(1/|L|) ≥ #rankers (n = 10^4, lists of at most 6 here), so the value is exact.
"""

import json
import subprocess
import sys

import numpy as np

TAU = 3.0
rng = np.random.default_rng(37)
POOL = [f"d{i}" for i in range(12)]


def lists(n_rankers, sizes):
    return {name: [str(d) for d in rng.choice(POOL, size=size, replace=False)]
            for name, size in zip("ABC"[:n_rankers], sizes, strict=True)}


def clicks_for(length):
    chance = rng.choice([0.0, 0.4, 0.7])
    return [i for i in range(length) if rng.random() < chance]


def main(repo: str) -> None:
    """Run the package from ``repo`` and print the cases as JSON."""
    sys.path.insert(0, repo)
    import interleaving as il

    commit = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip() \
        or "7907f7dd61bfcad57ad602b5c93e601677025da7"
    cases = []
    np.random.seed(2018)
    for i in range(60):
        kind = ["team_draft2", "team_draft3", "balanced", "probabilistic2", "probabilistic3"][i % 5]
        n = 3 if kind.endswith("3") else 2
        runs = lists(n, [int(s) for s in rng.integers(3, 7, size=n)])
        order = list(runs)
        ranked = [runs[name] for name in order]
        case = {"method": kind.rstrip("23"), "lists": runs, "tau": TAU}
        if kind.startswith("team_draft"):
            shown = il.TeamDraft(ranked).interleave()
            case["teams"] = {order[t]: sorted(v) for t, v in shown.teams.items()}
            clicks = clicks_for(len(shown))
            scores = il.TeamDraft.compute_scores(shown, clicks)
            case["scores"] = {order[t]: float(v) for t, v in scores.items()}
        elif kind == "balanced":
            shown = il.Balanced(ranked).interleave()
            clicks = clicks_for(len(shown))
            scores = il.Balanced.compute_scores(shown, clicks)
            case["scores"] = {order[t]: float(v) for t, v in enumerate(scores)}
        else:
            shown = il.Probabilistic(ranked, tau=TAU).interleave()
            clicks = clicks_for(len(shown))
            scores = il.Probabilistic.compute_scores(shown, clicks, tau=TAU)
            case["scores"] = {order[t]: float(scores[t]) for t in range(n)}
            if n == 2:
                case["total"] = float(sum(p for _, p in scores.allocations.values()))
        case["shown"] = list(shown)
        case["clicks"] = [int(c) for c in clicks]
        cases.append(case)

    json.dump({"source": f"mpkato/interleaving @ {commit}", "tau": TAU, "cases": cases}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
