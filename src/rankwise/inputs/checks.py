"""Input checks shared by every engine.

Each engine reports what it found (column types, counts of NULL/NaN values, one duplicated
pair) and the functions here turn that into one specific exception naming the column and the
value. The engines never decide what is an error on their own.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from rankwise.conventions import Columns
from rankwise.errors import (
    SWAPPED,
    ColumnTypeError,
    DuplicateDocumentError,
    EmptyInputError,
    InvalidParameterError,
    InvalidValueError,
    MissingColumnError,
    RankwiseError,
    in_syntax,
    pass_hint,
    warn,
)

TypeClass = Literal["string", "integer", "float", "other"]
Kind = Literal["run", "qrels"]


def value_column(kind: Kind, columns: Columns) -> str:
    """The score column of a run, the relevance column of qrels."""
    return columns.score if kind == "run" else columns.relevance


def looks_swapped(kind: Kind, found: Mapping[str, TypeClass], columns: Columns) -> bool:
    """Whether a ``kind`` input lacking its value column holds the other kind's instead (a
    "run" with a relevance column and no score, or "qrels" with a score and no relevance)."""
    other = value_column("qrels" if kind == "run" else "run", columns)
    if value_column(kind, columns) in found or other not in found:
        return False
    # a run with labels and its scores under another name (e.g. 'prob') is not swapped qrels
    return kind == "qrels" or not any(t == "float" for c, t in found.items() if c != other)


def check_schema(found: Mapping[str, TypeClass], found_raw: Mapping[str, str], kind: Kind, columns: Columns) -> None:
    """Raise if a required column is missing or has an unusable type.

    ``found`` maps every column of the input to its type class, ``found_raw`` to the engine's
    own type name (shown in messages).
    """
    value = value_column(kind, columns)
    keyword = "score" if kind == "run" else "relevance"
    for name, keyword_name in ((columns.query_id, "query_id"), (columns.doc_id, "doc_id"), (value, keyword)):
        if name not in found:
            error = MissingColumnError.from_missing(
                f"the {kind}", name, list(found), keyword_name, kind=kind, default=getattr(Columns(), keyword_name)
            )
            if name == value and looks_swapped(kind, found, columns):
                error = MissingColumnError(f"{error} {SWAPPED}")
            raise error
    for name in (columns.query_id, columns.doc_id):
        if found[name] not in ("string", "integer"):
            raise ColumnTypeError(
                f"the {kind}'s id column {name!r} must hold strings or integers, "
                f"found type {found_raw[name]}"
            )
    if found[value] not in ("integer", "float"):
        raise ColumnTypeError(
            f"the {kind}'s {keyword} column {value!r} must be numeric, found type {found_raw[value]}"
        )
    subtopic = columns.subtopic
    if kind == "qrels" and subtopic is not None:
        if subtopic not in found:
            raise MissingColumnError.from_missing(f"the {kind}", subtopic, list(found), "subtopic")
        if found[subtopic] not in ("string", "integer"):
            raise ColumnTypeError(
                f"the qrels' subtopic column {subtopic!r} must hold strings or integers, "
                f"found type {found_raw[subtopic]}"
            )
    cost = columns.cost
    if kind == "run" and cost is not None:
        if cost not in found:
            raise MissingColumnError.from_missing(f"the {kind}", cost, list(found), "cost")
        if found[cost] not in ("integer", "float"):
            raise ColumnTypeError(f"the run's cost column {cost!r} must be numeric, found type {found_raw[cost]}")


COST_FAULT = "NULL, NaN, negative or infinite"
"""The cost values refused (a cost is a finite number ≥ 0)."""


def check_costs(bad: int, columns: Columns, example: object = None) -> None:
    """Raise on ``bad`` rows of the run whose cost is NULL, NaN, negative or infinite
    (``example``: the id of a query holding one, named in the message)."""
    if bad:
        where = "" if example is None else f" (e.g. in query {example!r})"
        raise InvalidValueError(
            f"the run's column {columns.cost!r} holds {bad} {COST_FAULT} cost value(s){where}; "
            "a cost must be a finite number >= 0"
        )


@dataclass(frozen=True)
class DataProfile:
    """What an engine counted in one input."""

    rows: int
    null_query: int
    null_doc: int
    null_value: int
    nan_value: int
    duplicate: tuple[Any, ...] | None
    """One (query_id, doc_id) pair that occurs more than once, if any; in subtopic qrels one
    (query_id, doc_id, subtopic) triple."""
    inf_value: int = 0
    """Infinite values of the score (allowed: they rank first or last) or relevance (refused)."""
    null_subtopic: int = 0
    """NULL subtopics (subtopic qrels, whose rows are checked as any qrels' rows are)."""


Problem = Literal["null_doc", "null_value", "nan_value", "inf_value", "null_subtopic"]
"""A kind of bad row an engine can be asked to find an example query of."""


SUBTOPIC_LIKE = ("subtopic", "intent", "aspect", "facet")
"""Words in a column's name that make it look like a subtopic column (:func:`subtopic_hint`)."""


def subtopic_hint(found: Iterable[str], diversity: Sequence[str], columns: Columns) -> str:
    """What a duplicated (query, doc) pair of the qrels adds to its error when the qrels hold a
    column named like a subtopic (``found``: their columns), ``subtopic`` is not given and
    diversity measures (``diversity``: their labels) are asked for: to pass ``subtopic``.

    >>> subtopic_hint(["query_id", "subtopic", "doc_id", "relevance"], ["alpha_nDCG@10"], Columns())
    "; the qrels have a column 'subtopic': to judge each document per subtopic, as alpha_nDCG@10 reads them, pass subtopic='subtopic'"
    """
    if not diversity or columns.subtopic is not None:
        return ""
    like = [c for c in found if any(word in c.lower() for word in SUBTOPIC_LIKE)]
    if not like:
        return ""
    return (
        f"; the qrels have a column {like[0]!r}: to judge each document per subtopic, as "
        f"{', '.join(diversity)} read{'s' if len(diversity) == 1 else ''} them, {pass_hint('subtopic', like[0])}"
    )


def check_profile(
    profile: DataProfile, kind: Kind, columns: Columns,
    example: Callable[[Problem], Any] | None = None, hint: str = "",
) -> None:
    """Raise on an empty run, NULL ids, NULL/NaN scores or relevance, infinite relevance,
    duplicated documents; in subtopic qrels (``columns.subtopic``, their rows a judgment per
    subtopic), NULL subtopics and a document judged twice for one subtopic.
    ``example(problem)`` (on the error path only) gives the id of a query holding such a row,
    named in the message; ``hint`` ends the message of a duplicated pair (:func:`subtopic_hint`)."""

    def where(problem: Problem) -> str:
        if example is None:
            return ""
        found = example(problem)
        return "" if found is None else f" (e.g. in query {found!r})"

    if profile.rows == 0:
        raise EmptyInputError(f"the {kind} is empty: it has no rows")
    value = value_column(kind, columns)
    if profile.null_query:
        raise InvalidValueError(
            f"the {kind}'s column {columns.query_id!r} holds {profile.null_query} NULL value(s); "
            "remove or fill them"
        )
    if profile.null_subtopic:
        raise InvalidValueError(
            f"the qrels' subtopic column {columns.subtopic!r} holds a NULL value in {profile.null_subtopic} "
            f"row(s){where('null_subtopic')}; remove or fill them"
        )
    problems: tuple[tuple[int, Problem, str, str], ...] = (
        (profile.null_doc, "null_doc", columns.doc_id, "NULL"),
        (profile.null_value, "null_value", value, "NULL"),
        (profile.nan_value, "nan_value", value, "NaN"),
        (profile.inf_value if kind == "qrels" else 0, "inf_value", value, "infinite"),
    )
    for count, problem, name, what in problems:
        if count:
            raise InvalidValueError(
                f"the {kind}'s column {name!r} holds {count} {what} value(s){where(problem)}; "
                + ("relevance must be a finite number" if problem == "inf_value" else "remove or fill them")
            )
    if profile.duplicate is not None:
        q, d, *subtopic = profile.duplicate
        if subtopic:
            raise DuplicateDocumentError(
                f"the qrels judge document {d!r} more than once for subtopic {subtopic[0]!r} of query {q!r} "
                f"(column {columns.subtopic!r}); each document may be judged once per subtopic of a query"
            )
        raise duplicate_error(kind, q, d, f"columns {columns.query_id!r}, {columns.doc_id!r}", hint)


def duplicate_error(kind: str, query: object, doc: object, where: str, hint: str = "") -> DuplicateDocumentError:
    """The error of a document listed twice for one query (``doc`` None: a query listed twice,
    as a key of a dict of dicts), ``where``: the columns or the file.

    >>> duplicate_error("run", "q1", "d1", "in 'run.json'")
    DuplicateDocumentError("the run lists document 'd1' more than once for query 'q1' (in 'run.json'); each document may appear once per query")
    """
    if doc is None:
        return DuplicateDocumentError(
            f"the {kind} lists query {query!r} more than once ({where}); each query may appear once{hint}"
        )
    return DuplicateDocumentError(
        f"the {kind} lists document {doc!r} more than once for query {query!r} ({where}); "
        f"each document may appear once per query{hint}"
    )


def check_train_schema(found: Mapping[str, TypeClass], found_raw: Mapping[str, str], columns: Columns) -> None:
    """Raise if the training interactions (``train=``: one row per (user, item) interaction, the
    user in the run's query column, the item in its doc column) lack an id column or hold one of
    an unusable type."""
    for name, keyword in ((columns.query_id, "query_id"), (columns.doc_id, "doc_id")):
        if name not in found:
            raise MissingColumnError.from_missing(
                "the training interactions (train=)", name, list(found), keyword, kind="train",
                default=getattr(Columns(), keyword),
            )
        if found[name] not in ("string", "integer"):
            raise ColumnTypeError(
                f"the training interactions' id column {name!r} must hold strings or integers, found type {found_raw[name]}"
            )


def check_train(rows: int, nulls: Mapping[str, int], columns: Columns) -> None:
    """The training interactions' data: no row at all, or NULL ids (``nulls``: by keyword,
    ``query_id`` and ``doc_id``), is an error naming the column."""
    if rows == 0:
        raise EmptyInputError("the training interactions (train=) are empty: no (user, item) row")
    for keyword, count in nulls.items():
        if count:
            name = getattr(columns, keyword)
            raise InvalidValueError(
                f"the training interactions (train=) hold {count} NULL value(s) in their "
                f"{'user' if keyword == 'query_id' else 'item'} column {name!r}"
            )


BASE_RUN_WORDS: tuple[tuple[str, str], ...] = (
    (r"\bthe run\b", "the base run"), (r"\ba run\b", "a base run"), (r"\brun_columns\b", "base_run_columns"),
    (r"--run-", "--base-run-"),
)
"""How the run's errors are said of the base run (:func:`base_run_named`)."""


@contextlib.contextmanager
def base_run_named() -> Iterator[None]:
    """Within the block the base run (``base_run=``) is read or checked by the run's own code
    (every form, every check of a run): an error it raises is raised again, of its class, naming
    the base run and its own options (``base_run_columns``, ``--base-run-...``) where it named the run.

    >>> with base_run_named():
    ...     raise EmptyInputError("the run is empty: it has no rows")
    Traceback (most recent call last):
    ...
    rankwise.errors.EmptyInputError: the base run is empty: it has no rows
    """
    try:
        yield
    except RankwiseError as error:
        text = str(error.args[0]) if len(error.args) == 1 else str(error)
        for pattern, words in BASE_RUN_WORDS:
            text = re.sub(pattern, words, text)
        if "base run" not in text:
            text = f"the base run (base_run=): {text}"
        raise type(error)(text) from error


def ids_as_strings(run: Mapping[str, TypeClass], qrels: Mapping[str, TypeClass], columns: Columns) -> tuple[bool, bool]:
    """Whether (query_id, doc_id) must be cast to strings because run and qrels disagree."""
    return (
        run[columns.query_id] != qrels[columns.query_id],
        run[columns.doc_id] != qrels[columns.doc_id],
    )


def warn_unjudged(count: int) -> None:
    """Warn that ``count`` run queries have no judgment at all (trec_eval leaves them out, as
    :func:`rankwise.evaluate` and :func:`rankwise.judged_frame` do); nothing when 0."""
    if count:
        warn(
            f"{count} run quer{'y has' if count == 1 else 'ies have'} no judgments in the qrels "
            f"and {'was' if count == 1 else 'were'} not scored (as in trec_eval)"
        )


NEAR_MISS_ROWS = 10_000
"""The run's first rows, read again to look for ids that would meet the judgments' once
loosened (:func:`warn_near_miss`): enough to tell a share below :data:`RARELY_JUDGED` from one
far above it (ids written another way are written so throughout a file), few enough that the
look costs under a millisecond (at 100,000 rows it was a tenth of a 50-query call on DuckDB)."""
RARELY_JUDGED = 0.1
"""Below this share of judged documents among those retrieved, an evaluation looks for ids
that differ from the judgments' only in spaces, letter case or leading zeros."""


@dataclass(frozen=True)
class Coverage:
    """How a run and its judgments met in one evaluation (every engine counts it)."""

    unjudged: int = 0
    """Run queries without any judgment (not scored, as in trec_eval)."""
    missing: int = 0
    """Judged queries the run does not have (left out, or scored 0 with ``missing='zero'``)."""
    retrieved: int = 0
    """Documents the run retrieved for the judged queries it has."""
    judged: int = 0
    """Of those, the judged ones (any relevance)."""
    segmented: bool = False
    """Evaluated per ``by=`` segment: a judged query the run lacks is in no segment, left out
    whatever ``missing`` says."""

    def rarely_judged(self) -> bool:
        """Whether the run's documents are almost never judged (:data:`RARELY_JUDGED`)."""
        return self.retrieved > 0 and self.judged < RARELY_JUDGED * self.retrieved

    def warn(self, missing: str) -> None:
        """Warn of unjudged run queries and of judged queries missing from the run."""
        warn_unjudged(self.unjudged)
        if self.missing:
            warn(missing_note(self.missing, "segments" if self.segmented else missing))


def missing_note(count: int, missing: str, run: str = "the run") -> str:
    """What became of ``count`` judged queries absent from ``run`` under the policy ``missing``."""
    what = f"{count} judged quer{'y is' if count == 1 else 'ies are'} not in {run}"
    zero = in_syntax("missing='zero'", "-c")
    if missing == "zero":
        return f"{what}: scored 0 ({zero}, as trec_eval -c)"
    if missing == "segments":
        return f"{what}: left out (a query the run lacks is in none of the by= segments, whatever missing= says)"
    return (
        f"{what}: left out of the scores and means (as trec_eval; "
        f"{zero} scores {'it' if count == 1 else 'them'} 0)"
    )


def _loose(e: pl.Expr) -> pl.Expr:
    """An id as text without surrounding spaces, in lower case, without leading zeros."""
    return e.cast(pl.String).str.strip_chars().str.to_lowercase().str.replace(r"^0+(\d)", "${1}")


def _loosens(e: pl.Expr) -> pl.Expr:
    """Whether :func:`_loose` may change a text id: a leading zero before a digit, or any
    character outside printable ASCII other than an upper-case letter (a space anywhere, an
    upper-case or a non-ASCII letter, ...). Where this is false, ``_loose`` returns the id as it
    is (tests/inputs/test_meeting.py checks it on every code point); it may be true of an id that
    ``_loose`` keeps (an inner space, a non-ASCII letter without case), which then costs the
    loosening only. One regular expression: half the cost of testing the spaces and the case
    (lower-casing every id) apart, 1.7 against 3.5 ms on 50,000 (query, document) pairs."""
    return e.str.contains(r"^0\d|[^\x21-\x40\x5B-\x7E]")


_LOOSENED = "after trimming spaces, folding case or dropping leading zeros"


def _examples(ids: pl.Series, n: int = 3) -> str:
    return ", ".join(repr(v) for v in ids.head(n).to_list()) + (", ..." if ids.len() > n else "")


def no_common_queries(run_ids: pl.Series, qrels_ids: pl.Series, columns: Columns) -> InvalidValueError:
    """The error of a run none of whose queries is judged, naming a few ids of each side (and how
    many would meet once loosened: spaces, letter case, leading zeros)."""
    frame = pl.DataFrame({"id": run_ids.cast(pl.String)})
    loose = frame.select(_loose(pl.col("id"))).join(
        pl.DataFrame({"id": qrels_ids.cast(pl.String)}).select(_loose(pl.col("id"))).unique(), on="id", how="semi"
    ).height
    near = f"; {loose} of the run's would match {_LOOSENED}" if loose else ""
    return InvalidValueError(
        f"no query of the run is judged: the run's query ids ({_examples(run_ids)}) and the qrels' "
        f"({_examples(qrels_ids)}) have none in common (column {columns.query_id!r}){near}; "
        "are these the judgments of this run?"
    )


def warn_near_miss(run: pl.DataFrame, qrels: pl.DataFrame, columns: Columns) -> None:
    """Warn when a sample of the run's (query, doc) pairs, almost never judged, would meet the
    judgments' far more often once loosened (:func:`_loose`); ``run`` and ``qrels``: their id
    columns as text."""
    keys = [columns.query_id, columns.doc_id]
    if run.height == 0:
        return
    flags = pl.collect_all(
        [frame.lazy().select(pl.any_horizontal(_loosens(pl.col(k)) for k in keys).any()) for frame in (run, qrels)]
    )
    if not any(flag.item() for flag in flags):
        return  # no id changes once loosened: as many pairs meet loosened as exactly, no warning
    exact = run.join(qrels.unique(), on=keys, how="semi").height
    loose_qrels = qrels.select(_loose(pl.col(k)) for k in keys).unique()
    loose = run.select(_loose(pl.col(k)) for k in keys).join(loose_qrels, on=keys, how="semi").height
    if loose >= 2 * exact and loose >= RARELY_JUDGED * run.height:
        warn(
            f"only {exact / run.height:.1%} of the run's documents are judged (of the first {run.height:,} rows), "
            f"but {loose / run.height:.0%} would be {_LOOSENED} "
            f"(columns {columns.query_id!r}, {columns.doc_id!r}): do both inputs write the ids the same way?",
        )


def check_alpha(alpha: object) -> None:
    """``alpha`` (an interval's level is 1 − alpha; a test's size) a number in (0, 1), or
    :class:`~rankwise.errors.InvalidParameterError` naming it."""
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise InvalidParameterError(f"alpha must be in (0, 1), got {alpha!r}")
