"""The exceptions and warnings rankwise raises.

Every error names the problem, the offending value and, where there is a finite set of valid
values, lists them (with the closest match first). All errors subclass :class:`RankwiseError`
and also ``ValueError`` or ``TypeError`` so that generic handlers keep working.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import shlex
import sys
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from typing import Literal


class RankwiseError(Exception):
    """Base class of every exception rankwise raises on purpose."""


class UnknownMetricError(RankwiseError, ValueError):
    """A metric string names no known metric."""


class MetricSyntaxError(RankwiseError, ValueError):
    """A metric string cannot be parsed (e.g. ``nDCG@@10``)."""


class InvalidParameterError(RankwiseError, ValueError):
    """A metric parameter or convention has an unknown name, a wrong type or a value out of range."""


class ArgumentTypeError(InvalidParameterError, TypeError):
    """An argument of a public function has the wrong type (``alpha="0.05"``, ``tests=None``),
    or a keyword the function does not take was given; the message names the argument (and,
    for an unknown keyword, the closest one it takes). Also a ``TypeError``, as Python's own
    error for these is."""


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
        column: str = "column", kind: str | None = None, default: str | None = None,
    ) -> MissingColumnError:
        """``<what> has no <column> 'x'. Did you mean 'y'? Columns found: [...]``, the one
        wording of every missing-column error (``keyword``: the argument that names the column;
        ``kind``: the input, ``'run'`` or ``'qrels'``, for a hint naming that input's column
        alone, see :func:`pass_hint`; ``default``: the column's name when none is given, which,
        found, is the hint: see :func:`default_hint`).

        >>> MissingColumnError.from_missing("the run", "scor", ["query_id", "scores"], "score")
        MissingColumnError("the run has no column 'scor'. Did you mean 'scores'? (pass score='scores') Columns found: ['query_id', 'scores']")
        >>> MissingColumnError.from_missing("the run", "scor", ["query_id", "score"], "score", default="score")
        MissingColumnError("the run has no column 'scor'. Did you mean 'score'? (the default: leave out score='scor') Columns found: ['query_id', 'score']")
        """
        if keyword is not None and default is not None and default in found:
            hint = f" Did you mean {default!r}? ({default_hint(keyword, name, kind)})"
        else:
            hint = did_you_mean(name, found, keyword, kind)
        return cls(f"{what} has no {column} {name!r}.{hint} Columns found: {list(found)}")


class ColumnTypeError(RankwiseError, TypeError):
    """An input column has a data type rankwise cannot use (e.g. a string score)."""


class InvalidValueError(RankwiseError, ValueError):
    """An input holds values rankwise refuses: NULL/NaN ids or scores, NaN relevance."""


class EmptyQueryError(InvalidValueError):
    """A metric asked to refuse a query with nothing relevant (``empty='error'``, torchmetrics'
    ``empty_target_action='error'``) met one; the message names the metric and the first
    queries (:meth:`for_queries`). The SQL engines raise it from their ``error()`` (Spark's
    ``raise_error()``) with the same words, one query named (the ids as text, in quotes, as
    here)."""

    MARK = "has nothing relevant for"
    """The words every such message holds (how an engine's error is recognised as this one)."""
    SHOWN = 5
    """How many query ids a message names."""

    @classmethod
    def for_queries(cls, metric: str, queries: Sequence[object]) -> EmptyQueryError:
        """The error of ``metric`` (its label) for ``queries`` (the first :data:`SHOWN` named).

        >>> EmptyQueryError.for_queries("nDCG@10", ["q1", "q7"])
        EmptyQueryError("metric 'nDCG@10' has nothing relevant for queries 'q1', 'q7' (empty='error' refuses to score them)")
        """
        if all(q is None for q in queries):  # a metric expression: its group's id is not at hand
            return cls(f"metric '{metric}' has nothing relevant for a query (empty='error' refuses to score it)")
        shown = ", ".join(f"'{q}'" for q in queries[: cls.SHOWN])
        more = f" and {len(queries) - cls.SHOWN} more" if len(queries) > cls.SHOWN else ""
        which = "query" if len(queries) == 1 else "queries"
        them = "it" if len(queries) == 1 else "them"
        return cls(
            f"metric '{metric}' has nothing relevant for {which} {shown}{more} "
            f"(empty='error' refuses to score {them})"
        )


class LabelError(InvalidValueError):
    """A metric's ``labels`` rule (a library's own check on its labels: XGBoost's binary labels
    for map@n and pre@n, LightGBM's and XGBoost's integer grades for ndcg, scikit-learn's
    nonnegative ones for ndcg_score) met a judgment outside it; the message names the metric,
    the query, the label and the rule (:meth:`for_query`). The SQL engines raise it from their
    ``error()`` (Spark's ``raise_error()``) with the same words."""

    MARK = " has label "
    """The words every such message holds (how an engine's error is recognised as this one)."""

    @staticmethod
    def label_text(label: float) -> str:
        """A label as the messages write it: an integer without a decimal point (below 10^15,
        as every engine writes it alike), any other number as Python's ``repr``.

        >>> LabelError.label_text(31.0), LabelError.label_text(-1.0), LabelError.label_text(1.5)
        ('31', '-1', '1.5')
        """
        if label == int(label) and abs(label) < 1e15:
            return str(int(label))
        return repr(float(label))

    @classmethod
    def for_query(cls, metric: str, query: object, label: float, rule: str) -> LabelError:
        """The error of ``metric`` (its label) for ``query`` (None: a metric expression, whose
        group's id is not at hand), whose ``label`` is outside ``rule`` (what the library takes).

        >>> LabelError.for_query("nDCG@10", "q3", 31.0, "LightGBM's ndcg takes integer labels 0..30")
        LabelError("metric 'nDCG@10': query 'q3' has label 31; LightGBM's ndcg takes integer labels 0..30")
        """
        which = "a query" if query is None else f"query '{query}'"
        error = cls(f"metric '{metric}': {which}{cls.MARK}{cls.label_text(label)}; {rule}")
        error.parts = (metric, label, rule)
        return error

    parts: tuple[str, float, str] | None = None
    """The metric, the label and the rule it was made of by :meth:`for_query` (None: made from
    an engine's words)."""

    def naming(self, query: object) -> LabelError:
        """The same error naming ``query`` (an evaluation of one query under ids of its own, as
        :func:`rankwise.explain`'s cut rankings); itself when made from an engine's words."""
        return self if self.parts is None else LabelError.for_query(self.parts[0], query, *self.parts[1:])


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


class TieWarning(RankwiseWarning):
    """Under ``ties='expected'``: the order of tied documents could move a query's value of a
    metric by more than :data:`~rankwise.conventions.TIE_SPREAD_WARNING` (the value under
    ``ties='optimistic'`` less that under ``'pessimistic'``)."""


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn(message: str, category: type[Warning] = RankwiseWarning) -> None:
    """Warn, the warning pointing at the first caller outside rankwise's own files (the line of
    the user's program), however deep in rankwise it is issued and whichever public functions
    (and their argument checks) are on the way."""
    frame = sys._getframe(1)
    level = 2  # stacklevel 2: the caller of this function
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)


_HINTS: ContextVar[bool] = ContextVar("rankwise_hints", default=True)


@contextlib.contextmanager
def without_hints() -> Iterator[None]:
    """Inside, :func:`closest` finds nothing: for errors that are caught and never shown (a
    parse tried in one naming scheme after another), whose hints would cost a fuzzy match
    over every name (about 1 ms each)."""
    token = _HINTS.set(False)
    try:
        yield
    finally:
        _HINTS.reset(token)


def closest(value: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """Return the valid choices closest to ``value`` (case-insensitive), best first (none
    inside :func:`without_hints`)."""
    if not _HINTS.get():
        return []
    options = list(dict.fromkeys(choices))
    by_lower: dict[str, str] = {}
    for option in options:
        by_lower.setdefault(option.lower(), option)
    found = difflib.get_close_matches(value.lower(), list(by_lower), n=n, cutoff=0.4)
    return [by_lower[f] for f in found]


def did_you_mean(value: str, choices: Iterable[str], keyword: str | None = None, kind: str | None = None) -> str:
    """A ``" Did you mean 'x'?"`` suffix (with ``keyword``, ``" (pass keyword='x')"`` after it,
    written as :func:`pass_hint` writes it), or an empty string when nothing is close."""
    best = closest(value, choices, n=1)
    if not best:
        return ""
    return f" Did you mean {best[0]!r}?" + (f" ({pass_hint(keyword, best[0], kind)})" if keyword else "")


HintStyle = Literal["keywords", "file_keywords", "flags"]
"""How a hint names an argument: ``keywords`` (Python keyword arguments, ``query_id='qid'``),
``file_keywords`` (the same, a column of one input as ``run_columns={'query_id': 'qid'}``: the
entry points that take them) or ``flags`` (the command line's, ``--run-query-id-col qid``)."""

_HINT_STYLE: ContextVar[HintStyle] = ContextVar("rankwise_hint_style", default="keywords")

COLUMN_FLAGS = ("query_id", "doc_id", "score", "relevance", "subtopic", "cost", "impression", "rank", "team", "click",
                "pscore", "evaluation_pscore", "propensity")
"""The column keywords, each with its flag ``--<name>-col`` on the command line (``impression`` to
``click``: an interleaving log's; ``pscore``, ``evaluation_pscore``: a slate log's probabilities;
``propensity``: a click log's θ per row)."""
FILE_COLUMNS = ("query_id", "doc_id")
"""The columns that both inputs have, each named per input (``run_columns``, ``qrels_columns``)."""


@contextlib.contextmanager
def hint_style(style: HintStyle) -> Iterator[None]:
    """Within the block, hints are written in ``style``; the command line's style (``flags``),
    once set, is kept by the entry points it calls."""
    if _HINT_STYLE.get() == "flags":
        yield
        return
    token = _HINT_STYLE.set(style)
    try:
        yield
    finally:
        _HINT_STYLE.reset(token)


def pass_hint(keyword: str, value: object, kind: str | None = None) -> str:
    """``pass <argument>``, in the syntax of the interface in use (:func:`hint_style`).

    ``keyword`` is the Python keyword; a column keyword (``query_id``, ``doc_id``) with the
    ``kind`` of input (``'run'``, ``'qrels'``) names that input's column alone.

    >>> pass_hint("query_id", "qid", "run")
    "pass query_id='qid'"
    >>> with hint_style("file_keywords"):
    ...     pass_hint("query_id", "qid", "run")
    "pass run_columns={'query_id': 'qid'}"
    >>> with hint_style("flags"):
    ...     pass_hint("query_id", "qid", "qrels"), pass_hint("run_names", ["query_id", "doc_id", "score"])
    ('pass --qrels-query-id-col qid', 'pass --run-names query_id,doc_id,score')
    """
    style = _HINT_STYLE.get()
    # the training interactions' columns are named by their own keyword in every interface
    per_file = keyword in FILE_COLUMNS and (kind == "train" or (kind in ("run", "qrels") and style != "keywords"))
    if style != "flags":
        if per_file:
            return f"pass {kind}_columns={ {keyword: value}!r}"
        return f"pass {keyword}={value!r}"
    if isinstance(value, Mapping):  # run_columns={...}: one flag a column
        prefix = keyword.removesuffix("columns")
        return "pass " + " ".join(_flag(f"{prefix}{k}", v).removeprefix("pass ") for k, v in value.items())
    return _flag(f"{kind}_{keyword}" if per_file else keyword, value)


def default_hint(keyword: str, value: object, kind: str | None = None) -> str:
    """The hint when an input lacks the column ``value`` named by ``keyword`` but has the
    column of the default name: name none (a column both inputs have, ``query_id`` or
    ``doc_id``: none for this input, ``value`` for the other alone, where the entry point
    takes one input's columns), in the syntax of the interface in use.

    >>> with hint_style("file_keywords"):
    ...     default_hint("query_id", "qid", "run")
    "the default: name no query_id column for the run; if 'qid' is the qrels', pass qrels_columns={'query_id': 'qid'} alone"
    >>> with hint_style("flags"):
    ...     default_hint("score", "scr", "run")
    'the default: leave out --score-col scr'
    """
    other = {"run": "qrels", "qrels": "run"}.get(kind or "")
    if other is not None and keyword in FILE_COLUMNS and _HINT_STYLE.get() != "keywords":
        owner = "the qrels'" if other == "qrels" else "the run's"
        return (
            f"the default: name no {keyword} column for the {kind}; "
            f"if {value!r} is {owner}, {pass_hint(keyword, value, other)} alone"
        )
    return "the default: leave out " + pass_hint(keyword, value).removeprefix("pass ")


def in_syntax(python: str, command_line: str) -> str:
    """``python`` or ``command_line``, whichever is the syntax of the interface in use.

    >>> in_syntax("query_chunks=10", "--query-chunks 10")
    'query_chunks=10'
    """
    return command_line if _HINT_STYLE.get() == "flags" else python


_COLUMN_OWNERS = ("run_", "qrels_", "train_", "base_run_", "groups_", "target_")
"""The inputs whose own column flags are ``--<input>-<column>-col``."""


def _flag(keyword: str, value: object) -> str:
    flag = "--" + keyword.replace("_", "-")
    owner = next((p for p in _COLUMN_OWNERS if keyword.startswith(p)), "")
    name = keyword.removeprefix(owner)
    if name in COLUMN_FLAGS or (owner in ("groups_", "target_") and name in ("group", "weight", "share")):
        flag += "-col"
    text = ",".join(str(v) for v in value) if isinstance(value, (list, tuple)) else str(value)
    return f"pass {flag} {shlex.quote(text)}"


class MissingExtraError(RankwiseError, ImportError):
    """An optional dependency (an extra: stats, plot, spark) is not installed."""
