"""The exceptions and warnings rankwise raises.

Every error names the problem, the offending value and, where there is a finite set of valid
values, lists them (with the closest match first). All errors subclass :class:`RankwiseError`
and also ``ValueError`` or ``TypeError`` so that generic handlers keep working.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence


class RankwiseError(Exception):
    """Base class of every exception rankwise raises on purpose."""


class UnknownMetricError(RankwiseError, ValueError):
    """A metric string names no known metric."""


class MetricSyntaxError(RankwiseError, ValueError):
    """A metric string cannot be parsed (e.g. ``nDCG@@10``)."""


class InvalidParameterError(RankwiseError, ValueError):
    """A metric parameter or convention has an unknown name, a wrong type or a value out of range."""


SWAPPED = (
    "The arguments look swapped: the judgments come first, then the run "
    "(as in trec_eval, ir-measures, ranx and pytrec_eval)."
)
"""Said when a run looks like qrels (a relevance column, no score) or qrels like a run."""


class MissingColumnError(RankwiseError, ValueError):
    """A required input column is absent."""

    @classmethod
    def from_missing(
        cls, what: str, name: str, found: Sequence[str], keyword: str | None = None,
        column: str = "column",
    ) -> MissingColumnError:
        """``<what> has no <column> 'x'. Did you mean 'y'? Columns found: [...]``, the one
        wording of every missing-column error (``keyword``: the argument that names the column).

        >>> MissingColumnError.from_missing("the run", "scor", ["query_id", "score"], "score")
        MissingColumnError("the run has no column 'scor'. Did you mean 'score'? (pass score='score') Columns found: ['query_id', 'score']")
        """
        hint = did_you_mean(name, found, keyword)
        return cls(f"{what} has no {column} {name!r}.{hint} Columns found: {list(found)}")


class ColumnTypeError(RankwiseError, TypeError):
    """An input column has a data type rankwise cannot use (e.g. a string score)."""


class InvalidValueError(RankwiseError, ValueError):
    """An input holds values rankwise refuses: NULL/NaN ids or scores, NaN relevance."""


class DuplicateDocumentError(RankwiseError, ValueError):
    """The same document appears twice for one query in a run or in qrels."""


class EmptyInputError(RankwiseError, ValueError):
    """The run (or the qrels) has no rows."""


class UnsupportedInputError(RankwiseError, TypeError):
    """An input object or file is of a kind rankwise cannot read."""


class UnsafeIdentifierError(RankwiseError, ValueError):
    """A table or column name would not be safe to place in SQL."""


class InputReadError(UnsupportedInputError, ValueError):
    """An input file or folder cannot be read: missing, unreadable, corrupt, truncated, not in
    the format it claims, or a folder mixing formats. The engine's or the OS's own error is kept
    as ``__cause__``."""


class OutputError(RankwiseError, OSError):
    """An output (``-o`` file, report, figure) cannot be written: a missing folder, a read-only
    file system, a full disk, a directory in the way. Nothing is left half-written."""


class EngineResourceError(RankwiseError, MemoryError):
    """The engine ran out of memory (e.g. DuckDB under ``memory_limit``); the engine's error is
    kept as ``__cause__``."""


class EngineError(RankwiseError, RuntimeError):
    """An engine (Polars, DuckDB, Spark) failed on the data in a way no check foresaw; the
    engine's error is kept as ``__cause__``."""


class RankwiseWarning(UserWarning):
    """Something the user should know about the data, e.g. run queries without judgments."""


def closest(value: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """Return the valid choices closest to ``value`` (case-insensitive), best first."""
    options = list(dict.fromkeys(choices))
    by_lower: dict[str, str] = {}
    for option in options:
        by_lower.setdefault(option.lower(), option)
    found = difflib.get_close_matches(value.lower(), list(by_lower), n=n, cutoff=0.4)
    return [by_lower[f] for f in found]


def did_you_mean(value: str, choices: Iterable[str], keyword: str | None = None) -> str:
    """A ``" Did you mean 'x'?"`` suffix (with ``keyword``, ``" (pass keyword='x')"`` after it),
    or an empty string when nothing is close."""
    best = closest(value, choices, n=1)
    if not best:
        return ""
    return f" Did you mean {best[0]!r}?" + (f" (pass {keyword}={best[0]!r})" if keyword else "")


class MissingExtraError(RankwiseError, ImportError):
    """An optional dependency (an extra: stats, plot, spark) is not installed."""
