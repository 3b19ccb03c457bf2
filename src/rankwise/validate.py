"""Input checks shared by every engine.

Each engine reports what it found (column types, counts of NULL/NaN values, one duplicated
pair) and the functions here turn that into one specific exception naming the column and the
value. The engines never decide what is an error on their own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from rankwise.conventions import Columns
from rankwise.errors import (
    SWAPPED,
    ColumnTypeError,
    DuplicateDocumentError,
    EmptyInputError,
    InvalidValueError,
    MissingColumnError,
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
            error = MissingColumnError.from_missing(f"the {kind}", name, list(found), keyword_name, kind=kind)
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
    duplicate: tuple[Any, Any] | None
    """One (query_id, doc_id) pair that occurs more than once, if any."""
    inf_value: int = 0
    """Infinite values of the score (allowed: they rank first or last) or relevance (refused)."""


Problem = Literal["null_doc", "null_value", "nan_value", "inf_value"]
"""A kind of bad row an engine can be asked to find an example query of."""


def check_profile(
    profile: DataProfile, kind: Kind, columns: Columns,
    example: Callable[[Problem], Any] | None = None,
) -> None:
    """Raise on an empty run, NULL ids, NULL/NaN scores or relevance, infinite relevance,
    duplicated documents. ``example(problem)`` (on the error path only) gives the id of a query
    holding such a row, named in the message."""

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
        q, d = profile.duplicate
        raise DuplicateDocumentError(
            f"the {kind} lists document {d!r} more than once for query {q!r} "
            f"(columns {columns.query_id!r}, {columns.doc_id!r}); each document may appear once per query"
        )


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
