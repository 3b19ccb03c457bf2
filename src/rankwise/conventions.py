"""Evaluation conventions and column names: every choice explicit, defaults = trec_eval.

Every entry point (:func:`rankwise.evaluate`, :func:`rankwise.explain`, :func:`rankwise.to_sql`,
:func:`rankwise.compare`, ...) takes them as keyword arguments, typed once by
:class:`EvaluationOptions`; the defaults are those of :class:`Conventions` and :class:`Columns`.

>>> Conventions()
Conventions(ties='trec_eval', missing='ignore', max_rank=None, rel=1, judged_only=False, trec_eval='10', empty=0, judgments='all', samples='one')
>>> Conventions(ties="random")
Traceback (most recent call last):
...
rankwise.errors.InvalidParameterError: convention 'ties' must be one of ['trec_eval', 'doc_asc', 'optimistic', 'pessimistic', 'doc_desc_numeric', 'input', 'expected'], got 'random'
"""

from __future__ import annotations

import builtins
import functools
import inspect
import math
import numbers
import re
import reprlib
import sys
import types
from collections import abc
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    ForwardRef,
    Literal,
    ParamSpec,
    TypedDict,
    TypeVar,
    Union,
    cast,
    get_args,
    get_origin,
    is_typeddict,
)

from rankwise.errors import (
    ArgumentTypeError,
    InvalidParameterError,
    UnsafeIdentifierError,
    did_you_mean,
)

if sys.version_info >= (3, 11):
    from typing import Unpack
else:  # pragma: no cover - Python 3.10
    from typing_extensions import Unpack

__all__ = ["Unpack"]  # the entry points' **options are Unpack[EvaluationOptions], also at run time

if TYPE_CHECKING:
    from typing_extensions import Self

TieOrder = Literal["trec_eval", "doc_asc", "optimistic", "pessimistic", "doc_desc_numeric", "input"]
"""The tie policies that order documents of equal score (:data:`TIE_ORDERS`): every value of
:data:`TiePolicy` but ``expected``."""

TiePolicy = Literal["trec_eval", "doc_asc", "optimistic", "pessimistic", "doc_desc_numeric", "input", "expected"]
"""How documents with equal scores are ordered, or (``expected``) that no order is chosen.

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
- ``input``: score descending, then the run's own order: among equal scores, the document
  that comes first in the run as given ranks first (LightGBM's and XGBoost's stable sorts of
  a group's scores; Spark MLlib's ``RankingMetrics`` and rectools take each list in the order
  given). "As given" is each input's row order: a TREC, CSV or Parquet file's lines or rows
  (several files of a folder or glob: the files in name order, each file's rows in its
  order); a Polars DataFrame's rows (a LazyFrame: the order its scan yields, the files'
  order for a scan of files); a pandas DataFrame's or pyarrow Table's rows; a DuckDB
  relation's rows as its scan yields them (a table's insertion order: SQL tables have no
  other order); a dict of dicts' items and records in iteration order; the list form's
  lists in list order. In SQL (:func:`rankwise.to_sql`, ``rw_ranked``) the order is the
  scan's: DuckDB's ``row_number() OVER ()`` with ``preserve_insertion_order`` on (its
  default), Spark's ``monotonically_increasing_id()`` (the partitions in order, each in its
  rows' order: a DataFrame as read from files, not after a shuffle). Only this policy numbers
  the run's rows; the others read no row order.
- ``expected``: no order is chosen: each metric is its expected value over all orders of the
  documents of equal score, every order equally likely (McSherry & Najork, Computing
  information retrieval performance measures efficiently in the presence of tied scores,
  ECIR 2008; the tie-aware-retrieval-metrics package, Yang et al., ACL 2026): the sums over
  ranks (DCG, nDCG, CG, P, R, Hits, RelP) with each document's rank weight averaged over the
  ranks its tie group holds (scikit-learn's tie-averaged ``dcg_score``), RR and Success from
  the hypergeometric law of the first relevant rank, AP from TRM's closed form. A metric
  without one is refused, naming those that have one; :func:`rankwise.evaluate` warns when
  the ties could move a query's value by more than :data:`TIE_SPREAD_WARNING`. The range is
  the same evaluation with ``pessimistic`` (its least) and ``optimistic`` (its most).
"""

TieKey = Literal["score", "relevance", "doc_text", "doc", "input"]
"""A key of a tie order: the score, the relevance (unjudged: 0), the doc id compared as text
(integers as their decimal text), the doc id in its own type, the row's position in the run
as given (ascending: first given, first ranked)."""

TIE_ORDERS: dict[str, tuple[tuple[TieKey, bool], ...]] = {
    "trec_eval": (("score", True), ("doc_text", True)),
    "doc_asc": (("score", True), ("doc_text", False)),
    "optimistic": (("score", True), ("relevance", True), ("doc_text", True)),
    "pessimistic": (("score", True), ("relevance", False), ("doc_text", True)),
    "doc_desc_numeric": (("score", True), ("doc", True)),
    "input": (("score", True), ("input", False)),
}
"""Each tie policy's ranking order, as (key, descending) pairs: the one definition that the
Polars engine and the SQL compiler both render (``ties='expected'`` ranks as ``trec_eval``:
:attr:`Conventions.tie_order`)."""

TIE_SPREAD_WARNING = 0.05
"""Under ``ties='expected'``, :func:`rankwise.evaluate` warns when a query's value of a metric
under ``ties='optimistic'`` exceeds its value under ``'pessimistic'`` by more than this."""

TrecEvalVersion = Literal["10", "9"]
"""The trec_eval whose numbers to reproduce (each difference: docs/conventions.md, "Both trec_eval versions").

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

EmptyPolicy = Literal[0, 1, "skip", "error"]
"""What a query with nothing relevant scores, for the metrics whose value there is a convention
(nDCG, AP, P, R, RR, Success, Rprec, RelP, RBP, PartialAUC, PAP: each metric's ``empty``
parameter defaults to it; AUC's own ``empty``, for a list of one class, is another parameter).
"Nothing relevant": no judgment of relevance >= the metric's ``rel`` (binary metrics), or an
ideal gain of 0 (nDCG: its IDCG, under its own ``ideal``).

- ``0``: the value 0 (trec_eval, ir-measures, ranx, XGBoost's ``ndcg@n-``/``map@n-``, CatBoost's
  MAP/PrecisionAt, torchmetrics ``empty_target_action='neg'``; the default).
- ``1``: the value 1 (LightGBM's ndcg and map, XGBoost's ndcg and map, CatBoost's NDCG and
  RecallAt, torchmetrics ``'pos'``).
- ``skip``: NULL, left out of that metric's mean; the query keeps its row (rectools, which
  leaves such users out; torchmetrics ``'skip'``).
- ``error``: the evaluation raises :class:`~rankwise.errors.EmptyQueryError` naming the metric
  and the first such queries (torchmetrics ``'error'``).

A query absent from the run (``missing='zero'``) ranks nothing: it keeps its value 0.
"""

Library = Literal[
    "trec_eval", "trec_eval9", "ir_measures", "ranx", "sklearn", "lightgbm", "xgboost", "catboost",
    "torchmetrics", "tensorflow_ranking", "spark_mllib", "rectools", "recbole", "lenskit", "elasticsearch",
]
"""A library whose numbers ``like=`` reproduces (each preset: :data:`rankwise.names.presets.PRESETS`)."""

TIE_POLICIES: tuple[str, ...] = get_args(TieOrder)
"""The tie policies that order documents (the keys of :data:`TIE_ORDERS`)."""
TIES: tuple[str, ...] = get_args(TiePolicy)
"""Every value of the ``ties`` convention: the orders and ``expected``."""

JudgmentsPolicy = Literal["all", "retrieved"]
"""Which judgments of a query an evaluation reads.

- ``all`` (trec_eval, ir-measures, ranx, Spark MLlib, rectools): every judgment of the query,
  retrieved or not: R, the ideal ranking, "nothing relevant" come from all of them.
- ``retrieved`` (LightGBM, XGBoost, CatBoost, scikit-learn, torchmetrics, TensorFlow Ranking:
  each sees only the scored list): for each query of the run, only the judgments of the
  documents its evaluated list holds, so that R (recall's denominator, AP's, R-precision's
  cutoff), the ideal (nDCG's, from the list's own labels), the non-relevant count and
  "nothing relevant" all come from the list. The list is the run's ranking cut at
  ``max_rank`` (trec_eval ``-M`` measures the run cut to its top N: a document below the cut
  counts as not retrieved, so its judgment goes too); a metric's own cutoff ``@k`` is not the
  list (LightGBM's ``ndcg@k`` cuts the ideal of the whole list at k). A run query whose
  judgments all go is still a judged query (its documents are judged 0 by the libraries:
  nothing relevant), not an unjudged one; judged queries absent from the run keep their
  judgments and follow ``missing`` as with ``all``.
"""

JUDGMENTS_POLICIES: tuple[str, ...] = get_args(JudgmentsPolicy)
SampleKeys = Literal["one", "keyed"]
"""What an evaluation's query ids are: ``one`` (each query one ranking: every evaluation a user
asks for), or ``keyed`` ((query, sample) keys of a stochastic run's rankings, of the bit layout
:data:`rankwise.primitives.SAMPLE_BITS`: only :func:`rankwise.evaluate`'s ``sample=`` evaluates
such keys, and sets it)."""
SAMPLE_KEYS: tuple[str, ...] = get_args(SampleKeys)
MISSING_POLICIES: tuple[str, ...] = get_args(MissingPolicy)
TREC_EVAL_VERSIONS: tuple[str, ...] = get_args(TrecEvalVersion)
EMPTY_POLICIES: tuple[int | str, ...] = get_args(EmptyPolicy)


LIMIT = 2**62
"""The largest magnitude of any number in a metric: cutoffs ``@k``, integer parameters and the
parameters without a natural ceiling. Beyond it a value cannot be held by the engines' Int64
(whose maximum is 2**63 − 1), and a product with a count of documents could overflow."""


class _FromOptions:
    """``from_options``: a dataclass of keyword options built from an entry point's keywords."""

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Self:
        """The fields among an entry point's keyword options (the others are ignored;
        :func:`check_options` refuses unknown ones); those not given take their defaults."""
        names = keyword_fields(cls)
        return cls(**{key: options[key] for key in names if key in options})


def keyword_fields(cls: type) -> tuple[str, ...]:
    """The fields of the dataclass ``cls`` that are keyword options (not those whose metadata
    says ``keyword=False``: set by the library itself, as :attr:`Conventions.samples`)."""
    return tuple(f.name for f in fields(cls) if f.metadata.get("keyword", True))  # type: ignore[arg-type]


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
    - ``empty``: what a query with nothing relevant scores, ``0``, ``1``, ``'skip'`` or
      ``'error'``, for every metric that has the ``empty`` parameter, unless the metric sets
      it: see :data:`EmptyPolicy`.
    - ``judgments``: ``'all'`` or ``'retrieved'`` (only the judgments of the documents each
      query's evaluated list holds, as the machine-learning libraries see them): see
      :data:`JudgmentsPolicy`.
    """

    ties: TiePolicy = "trec_eval"
    missing: MissingPolicy = "ignore"
    max_rank: int | None = None
    rel: float = 1
    judged_only: bool = False
    trec_eval: TrecEvalVersion = "10"
    empty: EmptyPolicy = 0
    judgments: JudgmentsPolicy = "all"
    samples: SampleKeys = field(default="one", metadata={"keyword": False})
    """What the query ids are (:data:`SampleKeys`): not a keyword option, set only by
    :func:`rankwise.evaluate`'s ``sample=`` when it evaluates a stochastic run's (query, sample)
    keys; the expected-exposure metrics' parameter ``samples`` takes it (EE_D, EE_L: each
    document's mean exposure over a query's samples)."""

    def __post_init__(self) -> None:
        if self.ties not in TIES:
            raise InvalidParameterError(
                f"convention 'ties' must be one of {list(TIES)}, got {self.ties!r}"
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
        if self.max_rank is not None and self.ties == "expected":
            raise InvalidParameterError(
                "convention 'max_rank' cannot be used with ties='expected': which of the documents "
                "tied across the cut max_rank keeps would depend on their order; cut the metrics "
                "at k instead (nDCG@k, P@k, ...), or ask for the range with ties='pessimistic' "
                "and ties='optimistic'"
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
        if isinstance(self.empty, bool) or self.empty not in EMPTY_POLICIES:
            raise InvalidParameterError(
                f"convention 'empty' must be one of {list(EMPTY_POLICIES)}, got {self.empty!r}"
            )

        if self.samples not in SAMPLE_KEYS:
            raise InvalidParameterError(f"convention 'samples' must be one of {list(SAMPLE_KEYS)}, got {self.samples!r}")
        if self.judgments not in JUDGMENTS_POLICIES:
            raise InvalidParameterError(
                f"convention 'judgments' must be one of {list(JUDGMENTS_POLICIES)}, got {self.judgments!r}"
            )

    @property
    def tie_order(self) -> TieOrder:
        """The order the ranking sorts by (a key of :data:`TIE_ORDERS`): the ``ties`` policy's,
        ``trec_eval``'s under ``ties='expected'``, whose values are the same whatever order
        breaks the ties."""
        return "trec_eval" if self.ties == "expected" else self.ties

    def as_params(self) -> dict[str, float | bool | str]:
        """The conventions that metric parameters can default to (``ties``: a metric's own
        ``ties`` parameter, 'expected' under ``ties='expected'``, else 'ranking')."""
        return {
            "rel": self.rel, "judged_only": self.judged_only, "trec_eval": self.trec_eval, "empty": self.empty,
            "ties": "expected" if self.ties == "expected" else "ranking", "samples": self.samples,
        }

    def as_options(self) -> ConventionOptions:
        """The conventions as keyword options, e.g. to pass them on to :func:`rankwise.evaluate`."""
        return cast(ConventionOptions, {key: getattr(self, key) for key in keyword_fields(type(self))})


@dataclass(frozen=True)
class Flag:
    """A convention's flag on the command line, the same on ``rankwise eval``, ``compare`` and
    ``explain`` (:mod:`rankwise.cli.arguments` adds it to each, and reads it back as the
    keyword option of its name). A flag that takes a value reads it as its
    :class:`Conventions` field's type: one of a literal's choices (checked as
    :class:`Conventions` checks it), else a number of the field's type."""

    names: tuple[str, ...]
    """Its option strings, trec_eval's letter first where trec_eval has the convention."""
    help: str
    """Its help (``%(default)s``: the convention's default)."""
    switch: object = None
    """For a flag that takes no value: the value it sets (absent: the convention's default)."""


CONVENTION_FLAGS: dict[str, Flag] = {
    "missing": Flag(("-c", "--complete"), "score queries missing from the run as 0 (trec_eval -c)", switch="zero"),
    "max_rank": Flag(("-M", "--max-rank"), "evaluate only the top N per query (trec_eval -M)"),
    "judged_only": Flag(("-J", "--judged-only"), "drop unjudged documents first (trec_eval -J)", switch=True),
    "rel": Flag(("-l", "--rel"), "relevance threshold of binary metrics (trec_eval -l)"),
    "ties": Flag(
        ("--ties",),
        "order of equal scores (default %(default)s: doc id descending, compared as text), or "
        "'expected': each metric's expected value over every order of the tied documents",
    ),
    "trec_eval": Flag(
        ("--trec-eval",),
        "the trec_eval to reproduce (default %(default)s; 9: trec_eval 9.0.8, pytrec_eval's: "
        "scores as 32-bit floats, interpolated precision's +0.9 rounding)",
    ),
    "empty": Flag(
        ("--empty",),
        "what a query with nothing relevant scores (default %(default)s, trec_eval's; 1: LightGBM's, "
        "XGBoost's ndcg/map; skip: left out of the mean; error: refused)",
    ),
    "judgments": Flag(
        ("--judgments",),
        "which judgments to read (default %(default)s; retrieved: only those of the documents each query's "
        "list holds, as LightGBM, XGBoost, CatBoost and torchmetrics see them)",
    ),
}
"""Each convention's flag on the command line, in the order the help lists them: the one
declaration :mod:`rankwise.cli.arguments` builds the flags from, so that a convention added to
:class:`Conventions` (and here) reaches ``eval``, ``compare`` and ``explain`` alike.

>>> sorted(CONVENTION_FLAGS) == sorted(CONVENTION_KEYWORDS)
True
"""


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
    sample: str | None = field(default=None, metadata={"keyword": False})
    """The run's sample column (a stochastic run: :func:`rankwise.evaluate`'s ``sample=``, which
    alone sets it): a TREC run file's second field (``Q0`` in a deterministic run; expeval's
    sample) is read under this name."""

    def __post_init__(self) -> None:
        for name in COLUMN_KEYWORDS:
            if name in ("subtopic", "cost") and getattr(self, name) is None:
                continue
            check_identifier(getattr(self, name), f"{name} column")

    def as_options(self) -> ColumnOptions:
        """The column names as keyword options, e.g. to pass them on to :func:`rankwise.evaluate`."""
        return cast(ColumnOptions, {key: getattr(self, key) for key in keyword_fields(type(self))})


class ConventionOptions(TypedDict, total=False):
    """The conventions as keyword arguments (``**options: Unpack[ConventionOptions]``); each
    is optional, its default and meaning those of the :class:`Conventions` field of its name."""

    ties: TiePolicy
    missing: MissingPolicy
    max_rank: int | None
    rel: float
    judged_only: bool
    trec_eval: TrecEvalVersion
    empty: EmptyPolicy
    judgments: JudgmentsPolicy


class ColumnOptions(TypedDict, total=False):
    """The column names as keyword arguments; each optional, its default that of the
    :class:`Columns` field of its name."""

    query_id: str
    doc_id: str
    score: str
    relevance: str
    subtopic: str | None
    cost: str | None


class PresetOptions(TypedDict, total=False):
    """``like``: evaluate each metric as a library computes its metric of the same name
    (:func:`rankwise.like` shows the explicit metric and conventions each stands for)."""

    like: Library | None


class EvaluationOptions(ConventionOptions, ColumnOptions, PresetOptions, total=False):
    """The keyword options shared by the entry points (:func:`rankwise.evaluate`,
    :func:`rankwise.explain`, :func:`rankwise.to_sql`, :func:`rankwise.evaluation.spark.evaluate`,
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
    - ``empty`` (default 0): what a query with nothing relevant scores, 0, 1, ``'skip'`` (left
      out of the mean) or ``'error'``: see :data:`EmptyPolicy`.
    - ``judgments`` (default ``'all'``): ``'retrieved'`` reads only the judgments of the
      documents each query's list holds (the machine-learning libraries' view): see
      :data:`JudgmentsPolicy`.
    - ``query_id``, ``doc_id``, ``score``, ``relevance``: the column names (defaults: the same
      words).
    - ``subtopic`` (default None): the qrels' subtopic column, for subtopic (diversity) qrels.
    - ``cost`` (default None): the run's cost column, each document's cost for the C/W/L
      measures' EC and ETC (cwl_eval's costs; absent: 1 each).
    - ``like`` (default None): a library (``'lightgbm'``, ``'xgboost'``, ``'catboost'``,
      ``'sklearn'``, ``'torchmetrics'``, ``'rectools'``, ``'spark_mllib'``, ...) whose value of each
      metric to give: its parameters and conventions (:data:`Library`; :func:`rankwise.like`).

    The keys are the fields of :class:`Conventions` and :class:`Columns`, where the defaults
    are defined:

    >>> CONVENTION_KEYWORDS == tuple(ConventionOptions.__annotations__)
    True
    >>> COLUMN_KEYWORDS == tuple(ColumnOptions.__annotations__)
    True
    >>> PRESET_KEYWORDS == tuple(PresetOptions.__annotations__)
    True
    >>> sorted(EvaluationOptions.__optional_keys__) == sorted(EVALUATION_KEYWORDS)
    True
    """


ColumnName = Annotated[str, "be a column name"]
"""A column's name, as an argument's type (its message says "must be a column name")."""


class InputOptions(TypedDict, total=False):
    """Each input's own column names, as keyword arguments of the entry points that read the
    inputs (:func:`rankwise.evaluate`, :func:`rankwise.explain`, :func:`rankwise.compare`,
    :func:`rankwise.comparison.paired`, :func:`rankwise.anova`); checked by
    :class:`rankwise.inputs.columns.Reading`.

    - ``run_columns``, ``qrels_columns``: a column's keyword (``query_id``, ``doc_id``, and
      ``score`` for the run, ``relevance`` for the qrels) mapped to that input's own name for
      it, e.g. ``run_columns={'query_id': 'qid'}``: the column is renamed as the input is read
      (the other input keeps ``query_id``). The keywords ``query_id=`` etc. name the columns of
      both inputs; ``run_columns``/``qrels_columns`` say where one input differs.
    - ``run_names``, ``qrels_names``: the column names of a CSV/TSV file without a header row,
      in order, e.g. ``run_names=['query_id', 'doc_id', 'score']`` (command line:
      ``--run-names query_id,doc_id,score``).
    - ``train``: the training interactions, (user, item) rows, which the popularity family's
      metrics read (MIUF, ARP, EPC, ...; :mod:`rankwise.inputs.interactions` lists the forms);
      ``train_columns``: their own names of the user and item columns, e.g.
      ``train_columns={'query_id': 'user_id', 'doc_id': 'item_id'}``.
    - ``features``: the item features, a vector of one fixed dimension per item (the item in the
      run's doc column), which the feature-diversity family reads (ILD, ILS;
      :mod:`rankwise.inputs.features` lists the forms); ``features_column``: the column of the
      vectors (lists or arrays), e.g. ``features_column='embedding'``.
    - ``base_run``: the base run, the baseline ranking (query, doc, score) each user's list is
      compared with, which the base-run family reads (Unexpectedness; any form the run takes,
      ranked by the run's conventions); ``base_run_columns``: its own names of the query, doc
      and score columns, e.g. ``base_run_columns={'score': 'base_score'}``.
    - ``catalog``: the items that could be recommended (a list, a Series, a table or a path), the
      denominator of catalog coverage and the items a Gini index spreads over
      (:mod:`rankwise.inputs.catalog`); ``catalog_column``: the table's column of the items.
    - ``categories``: the item categories, each item's categories (none, one or several), which
      the category family reads (:mod:`rankwise.inputs.categories` lists the forms);
      ``categories_columns``: its own names of the item and category columns, e.g.
      ``categories_columns={'doc_id': 'item_id', 'category': 'genre'}``.
    - ``groups``: the document groups, each document's group or its weights over several groups
      (TREC Fair Ranking's alignments), which the fair-exposure metrics read
      (:mod:`rankwise.inputs.groups` lists the forms); ``groups_columns``: its own names of the
      doc, group and weight columns, e.g. ``groups_columns={'group': 'gender'}``.
    - ``target``: the target distribution over the groups (one, or one per query), or a named
      default, ``'uniform'`` or ``'relevant'`` (:mod:`rankwise.inputs.groups`);
      ``target_columns``: its own names of the query, group and share columns.
    """

    run_columns: Mapping[str, ColumnName]
    qrels_columns: Mapping[str, ColumnName]
    run_names: Sequence[ColumnName]
    qrels_names: Sequence[ColumnName]
    train: Any
    train_columns: Mapping[str, ColumnName]
    features: Any
    features_column: ColumnName
    base_run: Any
    base_run_columns: Mapping[str, ColumnName]
    catalog: Any
    catalog_column: ColumnName
    categories: Any
    categories_columns: Mapping[str, ColumnName]
    groups: Any
    groups_columns: Mapping[str, ColumnName]
    target: Any
    target_columns: Mapping[str, ColumnName]


class ReadOptions(EvaluationOptions, InputOptions, total=False):
    """The keyword options of the entry points that read the inputs themselves:
    :class:`EvaluationOptions` and :class:`InputOptions`.

    >>> sorted(ReadOptions.__optional_keys__) == sorted(READ_KEYWORDS)
    True
    """


CONVENTION_KEYWORDS: tuple[str, ...] = keyword_fields(Conventions)
COLUMN_KEYWORDS: tuple[str, ...] = keyword_fields(Columns)
PRESET_KEYWORDS: tuple[str, ...] = ("like",)
EVALUATION_KEYWORDS: tuple[str, ...] = CONVENTION_KEYWORDS + COLUMN_KEYWORDS + PRESET_KEYWORDS


@dataclass(frozen=True)
class SideInput:
    """An input beyond the qrels and the run that some metrics read (``train=``, ``features=``,
    ``base_run=``), declared once: its keyword and its own options, its words in the errors of a
    metric that reads it when it is not given (Python's and the command line's) and on the
    metric pages, and the row columns of :mod:`rankwise.primitives` its values give (a metric
    reads the input when its tree holds a primitive reading one of them). Each is read only
    when a metric reads it (:func:`rankwise.evaluation.evaluate.side_input`)."""

    keyword: str
    """Its keyword argument (``train``); the command line's flag is ``--`` and it, dashed."""
    options: tuple[str, ...]
    """Its own options (``train_columns``: its names of the id columns)."""
    what: str
    """What it is, in the error of a metric that reads it without it."""
    python: str
    """How to pass it in Python."""
    command_line: str
    """How to pass it on the command line."""
    columns_of: str
    """The names of the tuples of :mod:`rankwise.primitives.core` that hold the row columns its
    values give (space-separated; ``""``: none), read when first asked (:attr:`row_columns`): the
    commands that do not evaluate import no primitive."""

    @property
    def row_columns(self) -> tuple[str, ...]:
        """The row columns (:data:`rankwise.primitives.core.Column`) its values give."""
        from rankwise.primitives import core

        return tuple(c for name in self.columns_of.split() for c in getattr(core, name))

    @property
    def flag(self) -> str:
        """Its command-line flag (``--base-run``)."""
        return "--" + self.keyword.replace("_", "-")

    @property
    def page(self) -> str:
        """Its line on a metric's page (``rankwise metrics NAME``: "reads: ...")."""
        return f"{self.what.split(',')[0]}: {self.flag} FILE ({self.keyword}= in Python)"


def _side_inputs() -> dict[str, SideInput]:
    return {side.keyword: side for side in (
        SideInput(
            "train", ("train_columns",), "the training interactions, the (user, item) rows the recommender learnt from",
            "pass train= (a frame, a path or a dict {user: [item, ...]})", "pass --train FILE",
            "TRAIN_COLUMNS TRAIN_PAIR_COLUMNS FEATURE_HISTORY_COLUMNS",
        ),
        SideInput(
            "features", ("features_column",), "the item features, a vector per item",
            "pass features= (a frame, a Parquet path or a dict {item: [number, ...]})", "pass --features FILE",
            "FEATURE_COLUMNS FEATURE_HISTORY_COLUMNS",
        ),
        SideInput(
            "base_run", ("base_run_columns",), "the base run, the baseline ranking each user's list is compared with",
            "pass base_run= (a run: a frame, a path or a dict {query: {doc: score}})", "pass --base-run FILE",
            "BASE_RUN_COLUMNS",
        ),
        # read by the set-level metrics whose catalog it is (SetPrimitive.side_inputs), and by the
        # per-query metrics reading its size (the row column ncatalog)
        SideInput(
            "catalog", ("catalog_column",), "the catalog, the items that could be recommended",
            "pass catalog= (a list of items, a frame or a path)", "pass --catalog FILE", "CATALOG_COLUMNS",
        ),
        SideInput(
            "categories", ("categories_columns",), "the item categories, the categories of each item",
            "pass categories= (a frame or a path of (item, category) rows, or a dict {item: category or [category, ...]})",
            "pass --categories FILE", "CATEGORY_COLUMNS",
        ),
        SideInput(
            "groups", ("groups_columns",), "the document groups, each document's group or its weights over groups",
            "pass groups= (a dict {doc: group} or {doc: {group: weight}}, rows (doc, group[, weight]), a frame or a "
            "path)", "pass --groups FILE", "FAIR_COLUMNS GROUP_COLUMNS",
        ),
        SideInput(
            "target", ("target_columns",), "the target distribution, the share of exposure each group should get",
            "pass target= (a dict {group: share} or {query: {group: share}}, rows, a frame, a path, or 'uniform' or "
            "'relevant')", "pass --target FILE (or uniform, relevant)", "",
        ),
    )}


KEYS: dict[str, tuple[str, ...]] = {
    "run": ("query_id", "doc_id", "score"),
    "qrels": ("query_id", "doc_id", "relevance"),
    "train": ("query_id", "doc_id"),
    "base_run": ("query_id", "doc_id", "score"),
    "categories": ("doc_id", "category"),
    "groups": ("doc_id", "group", "weight"),
    "target": ("query_id", "group", "share"),
}
"""The column keywords each input's ``*_columns`` may rename (:class:`rankwise.inputs.columns.Reading`)."""

SIDE_INPUTS: dict[str, SideInput] = _side_inputs()
"""Every input beyond the qrels and the run that some metrics read, by keyword."""
INPUT_KEYWORDS: tuple[str, ...] = (
    "run_columns", "qrels_columns", "run_names", "qrels_names",
    *(keyword for side in SIDE_INPUTS.values() for keyword in (side.keyword, *side.options)),
)
READ_KEYWORDS: tuple[str, ...] = EVALUATION_KEYWORDS + INPUT_KEYWORDS


def check_options(
    function: str, options: Iterable[str], allowed: Collection[str] = EVALUATION_KEYWORDS,
    also: Collection[str] = (),
) -> None:
    """Refuse a keyword argument that ``function`` does not take, as Python does for a
    keyword missing from a signature, naming the closest one it takes (among ``allowed`` and
    ``also``, its other keywords); ``options``: the keywords given (or a mapping of them).

    >>> check_options("evaluate", {"ties": "doc_asc", "tie": "doc_asc"})
    Traceback (most recent call last):
    ...
    rankwise.errors.ArgumentTypeError: evaluate() got an unexpected keyword argument 'tie'. Did you mean 'ties'?
    """
    for key in options:
        if key not in allowed:
            raise ArgumentTypeError(
                f"{function}() got an unexpected keyword argument {key!r}.{did_you_mean(key, [*allowed, *also])}"
            )


# -- the arguments of the public functions, checked against their annotations -------------------

P = ParamSpec("P")
R = TypeVar("R")

PARSED_ARGUMENTS = frozenset({"metrics", "metric"})
"""Arguments that :func:`rankwise.names.parse.parse_metrics` reads and checks in its own words
(``metrics must be a string or a list of strings``, ``each metric must be a string``):
:func:`checked` leaves them to it."""


class _Unknown(type):
    """The metaclass of :class:`_Opaque`: any attribute, subscript or union of it is itself."""

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return cls

    def __getitem__(cls, item: object) -> Any:
        return cls


class _Opaque(metaclass=_Unknown):
    """An annotation naming what the module imports for type checking only (``pl.Expr`` where
    ``pl`` is such an import): any value passes."""


class _Names(dict[str, Any]):
    """The names an annotation is read with: the module's, the builtins, and :class:`_Opaque`
    for the rest."""

    def __init__(self, module: Mapping[str, Any]) -> None:
        super().__init__()
        self.module = module

    def __missing__(self, name: str) -> Any:
        if name in self.module:
            return self.module[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        return _Opaque


def _resolve(annotation: object, module: Mapping[str, Any]) -> Any:
    """An annotation as an object (a string, under ``from __future__ import annotations``, is
    read in the module's names); one that cannot be read passes any value."""
    if not isinstance(annotation, str):
        return annotation
    try:
        return eval(annotation, {"__builtins__": {}}, _Names(module))
    except Exception:
        return _Opaque


_CALLABLE: Any = abc.Callable
"""What ``get_origin`` gives for ``Callable[...]``."""
_SEQUENCES = (list, tuple, set, frozenset)
"""The collections whose items are checked (an iterator is not consumed to check it)."""


def _fault(value: object, hint: Any, where: str) -> str | None:
    """Why ``value`` (the argument ``where``, or an item of it: ``runs['a']``, ``tests[1]``)
    is not of the annotated type ``hint``, or None if it is. Numbers by kind: a whole number
    for ``int``, any real for ``float``, never a bool for either; a literal's values by type
    (which values is the function's own check); the items of lists, tuples, sets and
    mappings; an ``Annotated[type, "must ..."]`` says the requirement in its own words."""
    if _accepts(value, hint):
        return None
    origin, args = get_origin(hint), get_args(hint)
    if origin is Union or origin is types.UnionType:
        # a collection of the right kind, with a wrong item: that item
        for member in args:
            kind = get_origin(member)
            if isinstance(kind, type) and kind is not _CALLABLE and isinstance(value, kind):
                return _fault(value, member, where)
    if origin is Annotated:
        inner = _fault(value, args[0], where)
        words = next((a for a in args[1:] if isinstance(a, str)), None)
        if inner is not None and words is not None and inner.startswith(f"{where} must"):
            return f"{where} must {words}, got {_shown(value)}"
        return inner
    if isinstance(origin, type) and isinstance(value, abc.Mapping) and issubclass(origin, abc.Mapping) and len(args) == 2:
        for key, item in value.items():
            fault = _fault(key, args[0], f"{where} key {key!r}") or _fault(item, args[1], f"{where}[{key!r}]")
            if fault is not None:
                return fault
    if (
        isinstance(origin, type) and isinstance(value, _SEQUENCES) and issubclass(origin, abc.Iterable)
        and not issubclass(origin, abc.Mapping) and args
    ):
        for i, item in enumerate(value):
            fault = _fault(item, args[0] if origin is not tuple or args[-1] is Ellipsis else args[i], f"{where}[{i}]")
            if fault is not None:
                return fault
    return f"{where} must be {_noun(hint)}, got {_shown(value)}"


def _accepts(value: object, hint: Any) -> bool:
    """Whether ``value`` is of the annotated type ``hint`` (see :func:`_fault`)."""
    if hint is Any or hint is _Opaque or hint is object or isinstance(hint, TypeVar):
        return True
    if hint is None or hint is type(None):
        return value is None
    origin, args = get_origin(hint), get_args(hint)
    if origin is Union or origin is types.UnionType:
        return any(_accepts(value, a) for a in args)
    if origin is Literal:
        # a subclass too (numpy's str_ for a string); True is not an int choice
        return any(isinstance(value, type(a)) and (isinstance(a, bool) or not isinstance(value, bool)) for a in args)
    if origin is Annotated:
        return _accepts(value, args[0])
    if origin is not None and isinstance(origin, type):
        if origin is tuple and args and args[-1] is not Ellipsis:
            # a pair given as a list is a pair
            return (
                isinstance(value, abc.Sequence) and not isinstance(value, (str, bytes))
                and len(value) == len(args) and all(map(_accepts, value, args))
            )
        if issubclass(origin, abc.Mapping):
            return isinstance(value, abc.Mapping) and (
                len(args) != 2 or all(_accepts(k, args[0]) and _accepts(v, args[1]) for k, v in value.items())
            )
        if origin is _CALLABLE:
            return callable(value)
        # any collection of the items stands for a list of them (a tuple, a set, a numpy
        # array, a Polars Series); a string or a mapping is checked as itself (the function's
        # own check words its error)
        collection = (
            issubclass(origin, abc.Iterable) and isinstance(value, abc.Iterable)
            and not isinstance(value, (str, bytes, abc.Mapping))
        )
        if not collection and not isinstance(value, origin):
            return False
        if args and isinstance(value, _SEQUENCES) and issubclass(origin, abc.Iterable):
            return all(_accepts(item, args[0]) for item in value)
        return True
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, numbers.Real) and not isinstance(value, bool)
    if isinstance(hint, type):
        try:
            return isinstance(value, hint)
        except TypeError:  # a protocol that cannot be checked at run time
            return True
    return True


_NOUNS: dict[object, str] = {
    bool: "True or False", int: "a whole number", float: "a number", str: "a string",
    type(None): "None", None: "None",
}


def _noun(hint: Any) -> str:
    """``hint`` in words: ``a whole number or None``, ``a list of strings``, ``one of 't', 'wilcoxon'``."""
    if hint in _NOUNS:
        return _NOUNS[hint]
    origin, args = get_origin(hint), get_args(hint)
    if origin is Union or origin is types.UnionType:
        words = list(dict.fromkeys(_noun(a) for a in args))
        return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if origin is Annotated:
        return _noun(args[0])
    if isinstance(origin, type) and issubclass(origin, abc.Mapping):
        return "a dict" + (f" from {_plural(args[0])} to {_plural(args[1])}" if len(args) == 2 and args[1] is not Any else "")
    if origin is _CALLABLE:
        return "a function"
    if isinstance(origin, type) and issubclass(origin, abc.Iterable):
        return "a list" + (f" of {_plural(args[0])}" if args and args[0] is not Ellipsis else "")
    name = getattr(hint, "__name__", None) or str(hint)
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _plural(hint: Any) -> str:
    """The items of a list, in words: ``strings``, ``(a string or an Expr) values``."""
    noun = _noun(hint)
    if noun.startswith("a ") and " " not in noun[2:]:
        return noun[2:] + "s"
    return f"({noun}) values"


def _shown(value: object) -> str:
    """The type and, for Python's own values, a short repr of a value, for a message."""
    shown = type(value).__name__
    if type(value).__module__ == "builtins":
        shown += f" {reprlib.repr(value)}"
    return shown


@dataclass(frozen=True)
class _Signature:
    """What :func:`checked` reads once from a function: its signature, each argument's type
    (as a test, :func:`_test`) and the keywords its ``**options`` take (with their types)."""

    signature: inspect.Signature
    hints: Mapping[str, Any]
    options: str | None
    """The name of the ``**options`` parameter, if any."""
    option_hints: Mapping[str, Any] | None
    """The types of the keywords ``**options`` take (its ``Unpack[TypedDict]``); None: any."""
    positional: tuple[str, ...]
    """The arguments that may be passed by position, in order."""
    required: frozenset[str]
    """The arguments without a default."""
    varargs: bool
    """Whether the function takes ``*args``."""
    tests: Mapping[str, Callable[[object], bool]]
    """Each argument's (and keyword option's) type test; absent: any value."""


def _test(hint: Any) -> Callable[[object], bool] | None:
    """A quick test of a value against ``hint`` (None: any value passes), the same as
    :func:`_accepts`: a single ``isinstance`` for a class or a union of classes."""
    if _accepts(object(), hint):
        return None
    origin, args = get_origin(hint), get_args(hint)
    members = args if origin is Union or origin is types.UnionType else (hint,)
    plain = all(isinstance(m, type) and m not in (bool, int, float) for m in members)
    if plain:
        classes = tuple(members)
        return lambda value: isinstance(value, classes)
    return lambda value: _accepts(value, hint)


def _read_signature(function: Callable[..., Any]) -> _Signature:
    signature = inspect.signature(function)
    module = vars(sys.modules[function.__module__])
    hints: dict[str, Any] = {}
    options: str | None = None
    option_hints: dict[str, Any] | None = None
    positional: list[str] = []
    required: set[str] = set()
    for name, parameter in signature.parameters.items():
        hint = _resolve(parameter.annotation, module) if parameter.annotation is not parameter.empty else Any
        if parameter.kind is parameter.VAR_KEYWORD:
            options = name
            if get_origin(hint) is Unpack and is_typeddict(get_args(hint)[0]):
                typed = get_args(hint)[0]
                option_hints = {
                    key: _resolve(value, vars(sys.modules[home]))
                    for key, (value, home) in _typeddict_annotations(typed).items()
                }
        elif parameter.kind is not parameter.VAR_POSITIONAL:
            hints[name] = hint
            if parameter.kind is not parameter.KEYWORD_ONLY:
                positional.append(name)
            if parameter.default is parameter.empty:
                required.add(name)
    tests = {
        name: test for name, hint in {**(option_hints or {}), **hints}.items()
        if name not in PARSED_ARGUMENTS and (test := _test(hint)) is not None
    }
    varargs = any(p.kind is p.VAR_POSITIONAL for p in signature.parameters.values())
    return _Signature(signature, hints, options, option_hints, tuple(positional), frozenset(required), varargs, tests)


def _typeddict_annotations(typed: Any) -> dict[str, tuple[object, str]]:
    """The annotations of a TypedDict and of its bases, each with the name of the module that
    declared it, where it is read (a TypedDict of one module may extend another's: compare's
    options extend :class:`ReadOptions`)."""
    out: dict[str, tuple[object, str]] = {}
    for base in reversed(typed.__mro__):
        for key, value in getattr(base, "__annotations__", {}).items():
            if isinstance(value, ForwardRef):
                out[key] = (value.__forward_arg__, value.__forward_module__ or typed.__module__)
            else:
                out[key] = (value, typed.__module__)
    return out


OptionsCheck = Callable[[str, Mapping[str, object]], None]
"""A check of a function's keyword options (``**options``), given the function's name and
the options: it refuses, with its own reason, one the function does not take."""


def check_arguments(
    function: str, signature: _Signature, args: tuple[Any, ...], kwargs: Mapping[str, Any],
    options_check: OptionsCheck | None = None,
) -> None:
    """Refuse arguments of the wrong type, keywords the function does not take and missing
    arguments (see :func:`checked`; ``options_check``, if given, refuses some keyword options
    with its own reason first), naming the argument."""
    hints = signature.hints
    options = [k for k in kwargs if k not in hints]
    if options:
        if options_check is not None:
            options_check(function, {k: kwargs[k] for k in options})
        if signature.options is None:
            check_options(function, options, list(hints))
        elif signature.option_hints is not None:
            check_options(function, options, list(signature.option_hints), also=list(hints))
    given = dict(zip(signature.positional, args, strict=False))  # extra ones: *args, or refused below
    if (
        (len(args) > len(signature.positional) and not signature.varargs)
        or (given and any(k in given for k in kwargs))
        or any(k not in given and k not in kwargs for k in signature.required)
    ):
        try:  # Python's own words for what is missing or given twice
            signature.signature.bind(*args, **{k: v for k, v in kwargs.items() if k in hints})
        except TypeError as exc:
            raise ArgumentTypeError(f"{function}(): {exc}") from None
    tests = signature.tests
    for name, value in (*given.items(), *kwargs.items()):
        test = tests.get(name)
        if test is not None and not test(value):
            hint = hints[name] if name in hints else (signature.option_hints or {})[name]
            fault = _fault(value, hint, name)
            raise ArgumentTypeError(f"{fault} ({function}(..., {name}=...))")


def checked(function: Callable[P, R]) -> Callable[P, R]:
    """A public function whose arguments are checked against its annotations before it runs:
    an argument of the wrong type, or a keyword it does not take (with the closest one it
    takes), is an :class:`~rankwise.errors.ArgumentTypeError` naming it, never a raw
    ``TypeError`` from deep inside. Only the types are checked (``alpha`` a number, ``tests``
    a list of strings); the values (``0 < alpha < 1``, which tests) are the function's own
    checks. Annotations naming what the module imports for type checking only pass any value.

    >>> @checked
    ... def f(x: int, *, alpha: float = 0.05, tests: list[str] | None = None) -> None: ...
    >>> f(1, alpha="0.05")
    Traceback (most recent call last):
    ...
    rankwise.errors.ArgumentTypeError: alpha must be a number, got str '0.05' (f(..., alpha=...))
    >>> f(1, tests=["t", 2])
    Traceback (most recent call last):
    ...
    rankwise.errors.ArgumentTypeError: tests[1] must be a string, got int 2 (f(..., tests=...))
    >>> f(1, alfa=0.1)
    Traceback (most recent call last):
    ...
    rankwise.errors.ArgumentTypeError: f() got an unexpected keyword argument 'alfa'. Did you mean 'alpha'?
    """
    return checked_options(None)(function)


def checked_options(options_check: OptionsCheck | None) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """:func:`checked`, whose keyword options are first checked by ``options_check`` (which
    refuses some of them with its own reason) too."""

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        qualified = function.__qualname__
        name = function.__name__ if "<locals>" in qualified else qualified  # IRFrame.evaluate
        read: list[_Signature] = []  # read on the first call: the annotations' names exist by then

        @functools.wraps(function)
        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            if not read:
                read.append(_read_signature(function))
            check_arguments(name, read[0], args, kwargs, options_check)
            return function(*args, **kwargs)

        return call

    return decorate
