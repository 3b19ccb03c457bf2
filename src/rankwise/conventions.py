"""Evaluation conventions and column names: every choice explicit, defaults = trec_eval.

Every entry point (:func:`rankwise.evaluate`, :func:`rankwise.explain`, :func:`rankwise.to_sql`,
:func:`rankwise.compare`, ...) takes them as keyword arguments, typed once by
:class:`EvaluationOptions`; the defaults are those of :class:`Conventions` and :class:`Columns`.

>>> Conventions()
Conventions(ties='trec_eval', missing='ignore', max_rank=None, rel=1, judged_only=False, trec_eval='10')
>>> Conventions(ties="random")
Traceback (most recent call last):
...
rankwise.errors.InvalidParameterError: convention 'ties' must be one of ['trec_eval', 'doc_asc', 'optimistic', 'pessimistic', 'doc_desc_numeric'], got 'random'
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any, Literal, TypedDict, cast, get_args

from rankwise.errors import InvalidParameterError, UnsafeIdentifierError
from rankwise.spec import LIMIT

if sys.version_info >= (3, 11):
    from typing import Unpack
else:  # pragma: no cover - Python 3.10
    from typing_extensions import Unpack

__all__ = ["Unpack"]  # the entry points' **options are Unpack[EvaluationOptions], also at run time

if TYPE_CHECKING:
    from typing_extensions import Self

TiePolicy = Literal["trec_eval", "doc_asc", "optimistic", "pessimistic", "doc_desc_numeric"]
"""How documents with equal scores are ordered.

- ``trec_eval``: score descending, then doc_id descending compared as text, whatever the id
  column's type (trec_eval's ``strcmp`` rule; the default): among tied scores, integer doc id
  5 ranks above 48, and 48 above 100.
- ``doc_asc``: score descending, then doc_id ascending (as text).
- ``optimistic``: among equal scores, more relevant documents first (then doc_id descending,
  as text).
- ``pessimistic``: among equal scores, less relevant (and unjudged) documents first (then
  doc_id descending, as text).
- ``doc_desc_numeric``: score descending, then doc_id descending in the column's own type:
  integer ids by value (100 above 48 above 5), string ids as text.
"""

TieKey = Literal["score", "relevance", "doc_text", "doc"]
"""A key of a tie order: the score, the relevance (unjudged: 0), the doc id compared as text
(integers as their decimal text), the doc id in its own type."""

TIE_ORDERS: dict[str, tuple[tuple[TieKey, bool], ...]] = {
    "trec_eval": (("score", True), ("doc_text", True)),
    "doc_asc": (("score", True), ("doc_text", False)),
    "optimistic": (("score", True), ("relevance", True), ("doc_text", True)),
    "pessimistic": (("score", True), ("relevance", False), ("doc_text", True)),
    "doc_desc_numeric": (("score", True), ("doc", True)),
}
"""Each tie policy's ranking order, as (key, descending) pairs: the one definition that the
Polars engine and the SQL compiler both render."""

TrecEvalVersion = Literal["10", "9"]
"""The trec_eval whose numbers to reproduce (each difference: README, "Both trec_eval versions").

- ``10`` (trec_eval 10.0, 2026; the default): scores kept as doubles; interpolated precision's
  recall cutoff lround(x · R).
- ``9`` (trec_eval 9.0.8, as bundled by pytrec_eval and used by ranx, ir-measures and every
  paper before 2026): scores rounded to 32-bit floats before ranking (two scores closer than
  float precision tie, and the doc id breaks the tie); the recall cutoff floor(x · R + 0.9).
"""

MissingPolicy = Literal["ignore", "zero"]
"""Queries that have judgments but are absent from the run.

- ``ignore``: left out of the output (trec_eval 9's default, pytrec_eval; trec_eval 10 stops
  with an error instead).
- ``zero``: scored 0 on every run-dependent metric (trec_eval ``-c``).
"""

TIE_POLICIES: tuple[str, ...] = get_args(TiePolicy)
MISSING_POLICIES: tuple[str, ...] = get_args(MissingPolicy)
TREC_EVAL_VERSIONS: tuple[str, ...] = get_args(TrecEvalVersion)


class _FromOptions:
    """``from_options``: a dataclass of keyword options built from an entry point's keywords."""

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Self:
        """The fields among an entry point's keyword options (the others are ignored;
        :func:`check_options` refuses unknown ones); those not given take their defaults."""
        names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
        return cls(**{key: options[key] for key in names if key in options})


@dataclass(frozen=True)
class Conventions(_FromOptions):
    """The conventions of one evaluation (keyword arguments of :func:`rankwise.evaluate`).

    - ``ties``: see :data:`TiePolicy`.
    - ``missing``: see :data:`MissingPolicy`.
    - ``max_rank``: keep only the top ``max_rank`` documents of each query (trec_eval ``-M``).
    - ``rel``: default relevance threshold of binary metrics (trec_eval ``-l``); a metric's own
      ``rel=`` parameter wins.
    - ``judged_only``: drop unjudged documents before ranking (trec_eval ``-J``) for every
      metric that has the ``judged_only`` parameter, unless the metric sets it.
    - ``trec_eval``: the trec_eval version to reproduce, ``'10'`` or ``'9'``: see
      :data:`TrecEvalVersion`.
    """

    ties: TiePolicy = "trec_eval"
    missing: MissingPolicy = "ignore"
    max_rank: int | None = None
    rel: float = 1
    judged_only: bool = False
    trec_eval: TrecEvalVersion = "10"

    def __post_init__(self) -> None:
        if self.ties not in TIE_POLICIES:
            raise InvalidParameterError(
                f"convention 'ties' must be one of {list(TIE_POLICIES)}, got {self.ties!r}"
            )
        if self.missing not in MISSING_POLICIES:
            raise InvalidParameterError(
                f"convention 'missing' must be one of {list(MISSING_POLICIES)}, got {self.missing!r}"
            )
        if self.max_rank is not None and (
            isinstance(self.max_rank, bool) or not isinstance(self.max_rank, int) or self.max_rank <= 0
        ):
            raise InvalidParameterError(
                f"convention 'max_rank' must be a positive integer or None, got {self.max_rank!r}"
            )
        if self.max_rank is not None and self.max_rank > LIMIT:
            raise InvalidParameterError(
                f"convention 'max_rank' must be at most {LIMIT} (2**62), got {self.max_rank!r}"
            )
        if isinstance(self.rel, bool) or not isinstance(self.rel, (int, float)) or not math.isfinite(self.rel):
            raise InvalidParameterError(f"convention 'rel' must be a finite number, got {self.rel!r}")
        if not isinstance(self.judged_only, bool):
            raise InvalidParameterError(
                f"convention 'judged_only' must be True or False, got {self.judged_only!r}"
            )
        if self.trec_eval not in TREC_EVAL_VERSIONS:
            raise InvalidParameterError(
                f"convention 'trec_eval' must be one of {list(TREC_EVAL_VERSIONS)}, got {self.trec_eval!r}"
            )

    def as_params(self) -> dict[str, float | bool | str]:
        """The conventions that metric parameters can default to."""
        return {"rel": self.rel, "judged_only": self.judged_only, "trec_eval": self.trec_eval}

    def as_options(self) -> ConventionOptions:
        """The conventions as keyword options, e.g. to pass them on to :func:`rankwise.evaluate`."""
        return cast(ConventionOptions, asdict(self))


_IDENTIFIER = re.compile(r"^[^\W\d][\w .\-]{0,127}$")
"""A letter (any alphabet) or '_', then letters, digits, '_', ' ', '.', '-'."""


def check_identifier(name: object, what: str) -> str:
    """Accept a column/table name only if it is a plain identifier-like string.

    >>> check_identifier("query_id", "query_id column")
    'query_id'
    >>> check_identifier("x'); DROP TABLE t; --", "table")
    Traceback (most recent call last):
    ...
    rankwise.errors.UnsafeIdentifierError: table name "x'); DROP TABLE t; --" is not allowed: use letters, digits, '_', ' ', '.', '-' (starting with a letter or '_'), at most 128 characters
    """
    if not isinstance(name, str) or not _IDENTIFIER.match(name):
        raise UnsafeIdentifierError(
            f"{what} name {name!r} is not allowed: use letters, digits, '_', ' ', '.', '-' "
            "(starting with a letter or '_'), at most 128 characters"
        )
    return name


def quote_identifier(name: str) -> str:
    """Double-quote an (already checked) identifier for SQL."""
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class Columns(_FromOptions):
    """Column names of the run and the qrels (keyword-overridable everywhere)."""

    query_id: str = "query_id"
    doc_id: str = "doc_id"
    score: str = "score"
    relevance: str = "relevance"
    subtopic: str | None = None
    """The qrels' subtopic (intent) column, if they judge documents per subtopic (ndeval's
    qrels; a TREC qrels file's second field). Diversity measures read the judgments per
    subtopic; every other measure reads a document's largest relevance over its subtopics."""
    cost: str | None = None
    """The run's cost column, if its documents cost the user different amounts (cwl_eval's
    cost of a document's element type): the C/W/L measures' EC and ETC read it (absent: every
    document costs 1, as does cwl_eval's padding beyond the ranking)."""

    def __post_init__(self) -> None:
        for field in COLUMN_KEYWORDS:
            if field in ("subtopic", "cost") and getattr(self, field) is None:
                continue
            check_identifier(getattr(self, field), f"{field} column")

    def as_options(self) -> ColumnOptions:
        """The column names as keyword options, e.g. to pass them on to :func:`rankwise.evaluate`."""
        return cast(ColumnOptions, asdict(self))


class ConventionOptions(TypedDict, total=False):
    """The conventions as keyword arguments (``**options: Unpack[ConventionOptions]``); each
    is optional, its default and meaning those of the :class:`Conventions` field of its name."""

    ties: TiePolicy
    missing: MissingPolicy
    max_rank: int | None
    rel: float
    judged_only: bool
    trec_eval: TrecEvalVersion


class ColumnOptions(TypedDict, total=False):
    """The column names as keyword arguments; each optional, its default that of the
    :class:`Columns` field of its name."""

    query_id: str
    doc_id: str
    score: str
    relevance: str
    subtopic: str | None
    cost: str | None


class EvaluationOptions(ConventionOptions, ColumnOptions, total=False):
    """The keyword options shared by the entry points (:func:`rankwise.evaluate`,
    :func:`rankwise.explain`, :func:`rankwise.to_sql`, :func:`rankwise.spark.evaluate`,
    :func:`rankwise.compare`, the ``.ir`` namespaces): the conventions and the column names.

    - ``ties`` (default ``'trec_eval'``: score descending, then doc_id descending as text):
      see :data:`TiePolicy`.
    - ``missing`` (default ``'ignore'``; ``'zero'`` scores queries absent from the run as 0,
      trec_eval ``-c``): see :data:`MissingPolicy`.
    - ``max_rank`` (default None): only the top ``max_rank`` documents of each query
      (trec_eval ``-M``).
    - ``rel`` (default 1): relevance threshold of binary metrics (trec_eval ``-l``).
    - ``judged_only`` (default False): drop unjudged documents first (trec_eval ``-J``).
    - ``trec_eval`` (default ``'10'``): ``'9'`` reproduces trec_eval 9.0.8 (pytrec_eval):
      see :data:`TrecEvalVersion`.
    - ``query_id``, ``doc_id``, ``score``, ``relevance``: the column names (defaults: the same
      words).
    - ``subtopic`` (default None): the qrels' subtopic column, for subtopic (diversity) qrels.
    - ``cost`` (default None): the run's cost column, each document's cost for the C/W/L
      measures' EC and ETC (cwl_eval's costs; absent: 1 each).

    The keys are the fields of :class:`Conventions` and :class:`Columns`, where the defaults
    are defined:

    >>> CONVENTION_KEYWORDS == tuple(ConventionOptions.__annotations__)
    True
    >>> COLUMN_KEYWORDS == tuple(ColumnOptions.__annotations__)
    True
    >>> sorted(EvaluationOptions.__optional_keys__) == sorted(EVALUATION_KEYWORDS)
    True
    """


class InputOptions(TypedDict, total=False):
    """Each input's own column names, as keyword arguments of the entry points that read the
    inputs (:func:`rankwise.evaluate`, :func:`rankwise.explain`, :func:`rankwise.compare`,
    :func:`rankwise.comparison`, :func:`rankwise.anova`); checked by
    :class:`rankwise.reading.Reading`.

    - ``run_columns``, ``qrels_columns``: a column's keyword (``query_id``, ``doc_id``, and
      ``score`` for the run, ``relevance`` for the qrels) mapped to that input's own name for
      it, e.g. ``run_columns={'query_id': 'qid'}``: the column is renamed as the input is read
      (the other input keeps ``query_id``). The keywords ``query_id=`` etc. name the columns of
      both inputs; ``run_columns``/``qrels_columns`` say where one input differs.
    - ``run_names``, ``qrels_names``: the column names of a CSV/TSV file without a header row,
      in order, e.g. ``run_names=['query_id', 'doc_id', 'score']`` (command line:
      ``--run-names query_id,doc_id,score``).
    """

    run_columns: Mapping[str, str]
    qrels_columns: Mapping[str, str]
    run_names: Sequence[str]
    qrels_names: Sequence[str]


class ReadOptions(EvaluationOptions, InputOptions, total=False):
    """The keyword options of the entry points that read the inputs themselves:
    :class:`EvaluationOptions` and :class:`InputOptions`.

    >>> sorted(ReadOptions.__optional_keys__) == sorted(READ_KEYWORDS)
    True
    """


CONVENTION_KEYWORDS: tuple[str, ...] = tuple(f.name for f in fields(Conventions))
COLUMN_KEYWORDS: tuple[str, ...] = tuple(f.name for f in fields(Columns))
EVALUATION_KEYWORDS: tuple[str, ...] = CONVENTION_KEYWORDS + COLUMN_KEYWORDS
INPUT_KEYWORDS: tuple[str, ...] = ("run_columns", "qrels_columns", "run_names", "qrels_names")
READ_KEYWORDS: tuple[str, ...] = EVALUATION_KEYWORDS + INPUT_KEYWORDS


def check_options(
    function: str, options: Mapping[str, object], allowed: Collection[str] = EVALUATION_KEYWORDS
) -> None:
    """Refuse a keyword argument that ``function`` does not take, as Python does for a
    keyword missing from a signature.

    >>> check_options("evaluate", {"ties": "doc_asc", "tie": "doc_asc"})
    Traceback (most recent call last):
    ...
    TypeError: evaluate() got an unexpected keyword argument 'tie'
    """
    for key in options:
        if key not in allowed:
            raise TypeError(f"{function}() got an unexpected keyword argument {key!r}")
