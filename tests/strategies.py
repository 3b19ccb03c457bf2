"""Hypothesis strategies: random runs and qrels with ties, unjudged documents, graded and
negative relevance, queries without relevant documents and queries missing on either side."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

import polars as pl
from hypothesis import strategies as st

T = TypeVar("T")
QUERY_IDS = ["q1", "q2", "Q3", "q10", "301"]
DOC_IDS = ["d1", "d2", "D3", "d10", "d9", "a", "B", "zz", "doc-5", "Doc_6", "x1", "x2"]
SCORES = [0.0, 0.5, 1.0, 1.5, 2.0, -1.0]


@dataclass
class Case:
    run: dict[str, dict[str, float]]
    qrels: dict[str, dict[str, int]]

    def run_frame(self) -> pl.DataFrame:
        rows = [(q, d, s) for q, docs in self.run.items() for d, s in docs.items()]
        return pl.DataFrame(rows, schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}, orient="row")

    def qrels_frame(self) -> pl.DataFrame:
        rows = [(q, d, r) for q, docs in self.qrels.items() for d, r in docs.items()]
        return pl.DataFrame(rows, schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64}, orient="row")

    train: list[tuple[str, str]] = field(default_factory=lambda: [("q1", "d1")])
    """Training interactions (user, item), repeats kept, for the metrics that read them."""

    def train_frame(self) -> pl.DataFrame:
        return pl.DataFrame(self.train, schema={"query_id": pl.String, "doc_id": pl.String}, orient="row")

    features: dict[str, list[float]] = field(default_factory=lambda: {d: [1.0, 0.0] for d in DOC_IDS})
    """Item features (every document's vector, one length), for the metrics that read them."""

    base_run: dict[str, dict[str, float]] = field(default_factory=lambda: {"q1": {"d1": 1.0}})
    """A base run (query: {doc: score}), for the metrics that read it."""

    def base_run_frame(self) -> pl.DataFrame:
        rows = [(q, d, s) for q, docs in self.base_run.items() for d, s in docs.items()]
        return pl.DataFrame(rows, schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}, orient="row")

    categories: dict[str, list[str]] = field(default_factory=lambda: {"d1": ["g1"]})
    """Item categories (item: its categories, none, one or several), for the metrics that read them."""

    def categories_frame(self) -> pl.DataFrame:
        rows = [(d, c) for d, cats in self.categories.items() for c in cats]
        return pl.DataFrame(rows, schema={"doc_id": pl.String, "category": pl.String}, orient="row")

    catalog: list[str] = field(default_factory=lambda: list(DOC_IDS))
    """The catalog's items, for the per-query metrics that read its size (Serendipity)."""

    groups: dict[str, dict[str, float]] = field(default_factory=lambda: {"d1": {"g1": 1.0}})
    """Document groups (doc: {group: weight}), for the metrics that read them."""

    def groups_frame(self) -> pl.DataFrame:
        rows = [(d, g, w) for d, weights in self.groups.items() for g, w in weights.items()]
        return pl.DataFrame(rows, schema={"doc_id": pl.String, "group": pl.String, "weight": pl.Float64}, orient="row")


def judged_queries(run_queries: list[T], ids: list[T], max_size: int) -> st.SearchStrategy[list[T]]:
    """The judged queries: at least one of the run's (inputs that share no query are an error,
    tested on their own), and any others."""
    return st.tuples(st.sampled_from(run_queries), st.lists(st.sampled_from(ids), max_size=max_size - 1, unique=True)).map(
        lambda t: list(dict.fromkeys([t[0], *t[1]]))
    )


@st.composite
def cases(draw: st.DrawFn, max_docs: int = 12, nonnegative: bool = False) -> Case:
    """Random (run, qrels). ``nonnegative``: relevance 0..3 only, for pytrec-eval-terrier,
    whose trec_eval 9.x writes out of bounds on negative judgments (see test_reference.py)."""
    run_queries = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=4, unique=True))
    qrels_queries = draw(judged_queries(run_queries, QUERY_IDS, max_size=4))
    docs = DOC_IDS[:max_docs]
    score = st.one_of(st.sampled_from(SCORES), st.floats(-5, 5, allow_nan=False).map(lambda x: round(x, 3)))
    run = {
        q: draw(st.dictionaries(st.sampled_from(docs), score, min_size=1, max_size=len(docs)))
        for q in run_queries
    }
    qrels = {
        q: draw(st.dictionaries(st.sampled_from(docs), st.integers(0 if nonnegative else -1, 3), min_size=1, max_size=len(docs)))
        for q in qrels_queries
    }
    # training interactions: users among the queries and others, items among the documents and
    # others (never listed), repeats
    train = draw(st.lists(st.tuples(st.sampled_from([*QUERY_IDS, "u9"]), st.sampled_from([*docs, "t1", "t2"])), min_size=1, max_size=15))
    # item features: a vector of one drawn length for every document (zero vectors, repeats)
    size = draw(st.integers(1, 4))
    value = st.sampled_from([0.0, 1.0, 0.5, -1.0, 2.0])
    features = {d: draw(st.lists(value, min_size=size, max_size=size)) for d in docs}
    # base run: users among the queries and others, documents among the run's and others, ties
    base_users = draw(st.lists(st.sampled_from([*QUERY_IDS, "u9"]), min_size=1, max_size=4, unique=True))
    base_run = {
        u: draw(st.dictionaries(st.sampled_from([*docs, "t1"]), st.sampled_from(SCORES), min_size=1, max_size=6))
        for u in base_users
    }
    # item categories: 0 to 3 of four categories per document (some without one), and an item never listed
    category = st.lists(st.sampled_from(["g1", "g2", "g3", "g4"]), max_size=3, unique=True)
    categories = {d: draw(category) for d in [*docs, "t1"]}
    if not any(categories.values()):
        categories["t1"] = ["g1"]
    # the catalog: some documents and others (its size is what the per-query metrics read)
    catalog = draw(st.lists(st.sampled_from([*docs, "t1", "t2", "c1"]), min_size=1, max_size=8, unique=True))
    # document groups: some documents in none (unknown), some in two with weights, zero weights
    grouped = draw(st.lists(st.sampled_from([*docs, "t1"]), min_size=1, max_size=len(docs), unique=True))
    weight = st.sampled_from([1.0, 0.5, 0.25, 0.0, 2.0])
    groups = {d: draw(st.dictionaries(st.sampled_from(["g1", "g2", "g3"]), weight, min_size=1, max_size=2)) for d in grouped}
    return Case(run, qrels, train, features, base_run, categories, catalog, groups)


def frames_of(
    run_rows: list[tuple[str, str, float]], qrels_rows: list[tuple[str, str, int]]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The run and qrels frames of drawn rows (query, doc, score / relevance); qrels without any
    row get one judgment (q0, d0, 1): no judgment at all is an error of its own (tests/inputs)."""
    if not qrels_rows:
        qrels_rows = [("q0", "d0", 1)]
    run = pl.DataFrame(run_rows, schema=["query_id", "doc_id", "score"], orient="row")
    qrels = pl.DataFrame(qrels_rows, schema=["query_id", "doc_id", "relevance"], orient="row")
    return run, qrels
