"""Interleaving: two or more runs merged into one list per query, each position recorded with
the run ("team") credited for it, for an online experiment whose clicks then say which run users
prefer (:func:`rankwise.clicks.credit.interleaving_credit` analyses the log).

Methods (``method=``), each seeded with rankwise's own random generator
(``numpy.random.default_rng(seed)``, the queries taken in sorted order):

- ``team_draft`` (Radlinski, Kurup & Joachims, CIKM 2008; for more than two runs team-draft
  multileaving, Schuth et al., CIKM 2014): while fewer than ``k`` documents are shown, among the
  runs with the fewest picks so far (and documents left) one is drawn uniformly and adds its
  highest-ranked document not yet shown. Team sizes differ by at most one, each team's picks come
  in its run's order.
- ``balanced`` (Joachims 2003; two runs): a coin decides which run leads; pointers k_A, k_B walk
  down the runs, the run whose pointer is behind (the leader on a tie) adds the document at its
  pointer unless already shown. The list's top n always holds the top ⌈n/2⌉ of one run and the
  top ⌊n/2⌋ of the other (up to the shared documents). ``team`` is the run that added the document.
- ``probabilistic`` (Hofmann, Whiteson & de Rijke, CIKM 2011; for more than two runs, Schuth et
  al., SIGIR 2015): each run is a softmax over its list, P_j(d) ∝ 1/rank_j(d)^τ; at each position a
  run with documents left is drawn uniformly and samples a document from its softmax, and the
  document is removed from every run's softmax. ``team`` is the run that drew it; the analysis
  marginalises over every run that could have drawn it and needs the runs again.

Each run is ranked as :func:`rankwise.evaluate` ranks it (score descending, ties by the ``ties``
convention) over all its documents of the query. The reference implementation (Kato & Manabe's
``interleaving`` package, GitHub mpkato/interleaving) draws from numpy's global generator, so
its sequences cannot be matched: the tests check invariants and exact distributions.

>>> import polars as pl
>>> a = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c", "d"], "score": [4.0, 3, 2, 1]})
>>> b = pl.DataFrame({"query_id": "q", "doc_id": ["b", "e", "a", "f"], "score": [4.0, 3, 2, 1]})
>>> shown = interleave({"A": a, "B": b}, method="team_draft", k=4, seed=0)
>>> shown.columns
['query_id', 'rank', 'doc_id', 'team']
>>> sorted(shown["team"].value_counts()["count"].to_list())
[2, 2]
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast

import polars as pl

from rankwise._polars.ranking import ranked_documents
from rankwise.conventions import (
    Columns,
    Conventions,
    EvaluationOptions,
    Unpack,
    check_options,
    checked,
)
from rankwise.errors import InvalidParameterError, MissingExtraError, did_you_mean
from rankwise.inputs.run_names import check_run_names

Method = Literal["team_draft", "balanced", "probabilistic"]
METHODS: tuple[str, ...] = ("team_draft", "balanced", "probabilistic")
"""The interleaving methods, by the names ``method=`` takes."""

TWO_RUNS_ONLY: frozenset[str] = frozenset({"balanced"})
"""The methods defined for two runs only (the others multileave more)."""

INTERLEAVE_OPTIONS: frozenset[str] = frozenset({"ties", "trec_eval", "query_id", "doc_id", "score", "run_format"})
"""The keyword options :func:`interleave` takes (those of evaluate that bear on a ranking)."""


def numpy() -> Any:
    """numpy, or :class:`~rankwise.errors.MissingExtraError` naming the ``[stats]`` extra."""
    try:
        import numpy as np
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingExtraError("rankwise's interleaving needs numpy: pip install 'rankwise[stats]'") from exc
    return np


def check_method(method: object) -> Method:
    """``method`` one of :data:`METHODS`, or :class:`~rankwise.errors.InvalidParameterError`."""
    if method not in METHODS:
        raise InvalidParameterError(
            f"method must be one of {list(METHODS)}, got {method!r}.{did_you_mean(str(method), METHODS)}"
        )
    return cast(Method, method)


def run_names(runs: Any, method: str) -> tuple[list[str], list[Any]]:
    """The runs' names and the runs: a mapping's keys, else A, B, C, ... in the order given;
    at least two runs, exactly two for :data:`TWO_RUNS_ONLY`."""
    if isinstance(runs, Mapping):
        names, values = [str(name) for name in runs], list(runs.values())
        check_run_names(names)
    elif isinstance(runs, Sequence) and not isinstance(runs, (str, bytes)):
        values = list(runs)
        if len(values) > len(string.ascii_uppercase):
            raise InvalidParameterError(f"{len(values)} runs: name them, e.g. runs={{'bm25': run, ...}}")
        names = list(string.ascii_uppercase[: len(values)])
    else:
        raise InvalidParameterError(
            f"runs must be a list of runs or a mapping name -> run, got {type(runs).__name__}"
        )
    if len(values) < 2:
        raise InvalidParameterError(f"interleaving needs at least two runs, got {len(values)}")
    if method in TWO_RUNS_ONLY and len(values) != 2:
        raise InvalidParameterError(f"method {method!r} interleaves exactly two runs, got {len(values)}")
    return names, values


def ranked_lists(names: list[str], runs: list[Any], options: Mapping[str, Any]) -> pl.DataFrame:
    """One row per (query, run): ``__q``, ``run``, ``docs`` (the run's documents of the query in
    rank order, ranked as :func:`rankwise.evaluate` ranks them)."""
    columns = Columns.from_options(options)
    if options.get("ties") == "expected":
        raise InvalidParameterError("interleaving needs an order of the runs, and ties='expected' chooses none: give a tie order (ties='trec_eval', the default, or 'input', ...)")
    conv = Conventions.from_options(dict(options))
    fmt = options.get("run_format")
    frames = []
    for name, run in zip(names, runs, strict=True):
        ranked, _ = ranked_documents(run, columns, conv, fmt)
        frames.append(
            ranked.sort("__q", "rank").group_by("__q", maintain_order=True)
            .agg(pl.col("__d").alias("docs")).with_columns(run=pl.lit(name)).collect()
        )
    types = {frame.schema["docs"] for frame in frames}
    if len(types) > 1:
        raise InvalidParameterError(f"the runs' doc ids have different types ({sorted(map(str, types))}): give them one type")
    return pl.concat(frames)


def _team_draft(lists: list[list[Any]], k: int, rng: Any) -> list[tuple[Any, int]]:
    shown: set[Any] = set()
    out: list[tuple[Any, int]] = []
    picks = [0] * len(lists)
    pointer = [0] * len(lists)
    while len(out) < k:
        for j, lst in enumerate(lists):  # skip the documents already shown
            while pointer[j] < len(lst) and lst[pointer[j]] in shown:
                pointer[j] += 1
        left = [j for j, lst in enumerate(lists) if pointer[j] < len(lst)]
        if not left:
            break
        fewest = min(picks[j] for j in left)
        candidates = [j for j in left if picks[j] == fewest]
        team = candidates[int(rng.integers(len(candidates)))]
        doc = lists[team][pointer[team]]
        shown.add(doc)
        picks[team] += 1
        out.append((doc, team))
    return out


def _balanced(lists: list[list[Any]], k: int, rng: Any) -> list[tuple[Any, int]]:
    a, b = lists
    a_first = int(rng.integers(2)) == 0
    shown: set[Any] = set()
    out: list[tuple[Any, int]] = []
    ka = kb = 0
    while ka < len(a) and kb < len(b) and len(out) < k:
        if ka < kb or (ka == kb and a_first):
            if a[ka] not in shown:
                shown.add(a[ka])
                out.append((a[ka], 0))
            ka += 1
        else:
            if b[kb] not in shown:
                shown.add(b[kb])
                out.append((b[kb], 1))
            kb += 1
    return out


def _probabilistic(lists: list[list[Any]], k: int, rng: Any, tau: float) -> list[tuple[Any, int]]:
    np = numpy()
    weights = [np.arange(1, len(lst) + 1, dtype=np.float64) ** -tau for lst in lists]
    index = [{doc: i for i, doc in enumerate(lst)} for lst in lists]
    out: list[tuple[Any, int]] = []
    while len(out) < k:
        left = [j for j, w in enumerate(weights) if w.sum() > 0]
        if not left:
            break
        team = left[int(rng.integers(len(left)))]
        w = weights[team]
        i = int(rng.choice(w.size, p=w / w.sum()))
        doc = lists[team][i]
        out.append((doc, team))
        for j, where in enumerate(index):
            if doc in where:
                weights[j][where[doc]] = 0.0
    return out


@checked
def interleave(
    runs: Any,
    *,
    method: Method = "team_draft",
    k: int = 10,
    seed: int = 0,
    tau: float = 3.0,
    **options: Unpack[EvaluationOptions],
) -> pl.DataFrame:
    """The interleaved list of each query the runs share a ranking for: a Polars frame
    ``query_id``, ``rank`` (1 = top), ``doc_id``, ``team`` (the name of the run credited for
    the position; see the module for each method's rule), at most ``k`` rows per query.

    ``runs``: a mapping name → run (any input :func:`rankwise.evaluate` reads), or a list
    (named A, B, C, ...); two runs, or more for ``team_draft`` and ``probabilistic``
    (multileaving). ``seed``: the seed of ``numpy.random.default_rng``; the same seed and
    runs give the same lists. ``tau``: the probabilistic softmax's exponent, P_j(d) ∝
    1/rank_j(d)^τ (Hofmann et al. 2011 use τ = 3). ``options``: the ranking's conventions
    (``ties``, ``trec_eval``) and column names, as :func:`rankwise.evaluate` takes them.
    Queries missing from a run get that run's empty list (it contributes nothing there).

    >>> import polars as pl
    >>> a = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "score": [3.0, 2, 1]})
    >>> b = pl.DataFrame({"query_id": "q", "doc_id": ["b", "a", "c"], "score": [3.0, 2, 1]})
    >>> interleave([a, b], method="balanced", k=3, seed=1)["doc_id"].to_list()
    ['a', 'b', 'c']
    """
    check_options("interleave", options, INTERLEAVE_OPTIONS)
    method = check_method(method)
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidParameterError(f"k must be a whole number of at least 1, got {k!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidParameterError(f"seed must be a whole number of at least 0, got {seed!r}")
    if isinstance(tau, bool) or not isinstance(tau, (int, float)) or not tau >= 0:
        raise InvalidParameterError(f"tau must be a number of at least 0, got {tau!r}")
    names, values = run_names(runs, method)
    np = numpy()
    lists = ranked_lists(names, values, options)
    by_query: dict[Any, dict[str, list[Any]]] = {}
    for q, docs, run in lists.iter_rows():
        by_query.setdefault(q, {})[run] = docs
    rng = np.random.default_rng(seed)
    rows: list[tuple[Any, int, Any, str]] = []
    for q in sorted(by_query, key=str):
        per_run = [by_query[q].get(name, []) for name in names]
        if method == "team_draft":
            picked = _team_draft(per_run, k, rng)
        elif method == "balanced":
            picked = _balanced(per_run, k, rng)
        else:
            picked = _probabilistic(per_run, k, rng, float(tau))
        rows += [(q, r, doc, names[team]) for r, (doc, team) in enumerate(picked, start=1)]
    columns = Columns.from_options(options)
    return pl.DataFrame(
        rows, orient="row",
        schema={columns.query_id: lists.schema["__q"], "rank": pl.Int64,
                columns.doc_id: lists.schema["docs"].inner, "team": pl.String},  # type: ignore[attr-defined]
    )
