"""The document groups (``groups=``) and the target distribution over them (``target=``), which the
fair-exposure metrics read: each document's group, or its weights over several groups (TREC Fair
Ranking's alignment vectors; Diaz et al.'s expeval counts a document fully in each of its groups),
and the share of exposure each group should get.

**groups=** (document → group). The document is in the run's doc column's id space. Accepted as

- a dict ``{doc: group}`` (weight 1), ``{doc: [group, ...]}`` (weight 1 in each) or
  ``{doc: {group: weight}}``;
- rows ``(doc, group)`` or ``(doc, group, weight)``, or records (dicts);
- a table (a Polars DataFrame or LazyFrame, a pyarrow Table, a pandas DataFrame, a DuckDB
  relation, a path to Parquet or CSV/TSV files) with the document in the run's doc column, the
  group in ``group`` and, optionally, the weight in ``weight`` (1 without it);
  ``groups_columns={'doc_id': ..., 'group': ..., 'weight': ...}`` names them otherwise.

Checked as read: no row at all, a NULL document or group, a (document, group) pair given twice,
and a weight that is NULL, NaN, infinite or negative are errors naming the input, the column and
the value. Group ids are text (an integer group ``1`` is the group ``'1'``). A document without a
group is not an error here: each metric's definition says what it does with one.

**target=** (group → share). Accepted as a dict ``{group: share}`` (one distribution for every
query) or ``{query: {group: share}}`` (one per query); rows ``(group, share)`` or ``(query,
group, share)``; a table with ``group`` and ``share`` columns and, for a target per query, the
run's query column (``target_columns`` names them otherwise); or a named default:

- ``'uniform'``: every group of ``groups=`` gets the same share;
- ``'relevant'`` (the fair-exposure metrics' default, when no ``target=`` is given): each group
  of ``groups=`` in the proportion of the query's relevant documents' weights in it (relevance ≥
  the conventions' ``rel``; a group without one: 0); a query whose relevant documents have no
  group has no target.

Checked as read: no row, a NULL query or group, a (query, group) pair given twice, a share that is
NULL, NaN, infinite or negative, and a query whose shares are all 0 are errors. Shares are
normalised to sum to 1 per query (as scipy's ``jensenshannon``, which TREC Fair Ranking's AWRF
calls, normalises its arguments).

>>> from rankwise.conventions import Columns
>>> read_groups({"a": "g1", "b": {"g1": 0.5, "g2": 0.5}}, Columns()).rows()
[('a', 'g1', 1.0), ('b', 'g1', 0.5), ('b', 'g2', 0.5)]
>>> read_target({"g1": 3, "g2": 1}, Columns()).shares.rows()
[('g1', 0.75), ('g2', 0.25)]
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from rankwise.conventions import Columns
from rankwise.errors import (
    ColumnTypeError,
    DuplicateDocumentError,
    EmptyInputError,
    InputReadError,
    InvalidValueError,
    MissingColumnError,
    UnsupportedInputError,
    closest,
    pass_hint,
)
from rankwise.inputs.interactions import read_table

GROUPS = "the document groups (groups=)"
TARGET = "the target distribution (target=)"
GROUP = "__group"
"""The group column of what is read (text)."""
WEIGHT = "__weight"
"""The groups' weight column (a float)."""
SHARE = "__share"
"""The target's share column (a float; each query's shares sum to 1)."""
NamedTarget = Literal["uniform", "relevant"]
NAMED_TARGETS: tuple[NamedTarget, ...] = ("uniform", "relevant")
"""The named default targets (see the module)."""


def read_groups(obj: Any, columns: Columns, rename: Mapping[str, str] | None = None) -> pl.DataFrame:
    """The document groups, checked: one row per (document, group) with its weight, the document
    under ``columns.doc_id``, :data:`GROUP` (text) and :data:`WEIGHT`, sorted; ``rename``:
    ``groups_columns``, the input's own names of ``doc_id``, ``group`` and ``weight``."""
    d = columns.doc_id
    names = {"doc_id": d, "group": "group", "weight": "weight", **(rename or {})}
    if isinstance(obj, Mapping):
        frame = _from_dict(obj, d)
    else:
        table = read_table(obj, GROUPS, {"doc_id": names["doc_id"], "group": names["group"]}, keys=("doc_id", "group"))
        if table is None:
            table = _rows(obj, GROUPS, [names["doc_id"], names["group"], names["weight"]], "(doc, group[, weight])")
        frame = _columns(table.lazy().collect(), GROUPS, names, ("doc_id", "group"), "weight", "groups_columns")
        frame = frame.rename({names["doc_id"]: d, names["group"]: GROUP, names["weight"]: WEIGHT})
    _check(frame, GROUPS, [d], WEIGHT, "weight", "document")
    return frame.sort(d, GROUP)


@dataclass(frozen=True)
class Target:
    """The target distribution as read: ``shares`` (``columns.query_id`` when per query,
    :data:`GROUP`, :data:`SHARE`; each query's shares summing to 1), or ``named``, a named
    default (:data:`NAMED_TARGETS`) that the metric computes from ``groups=`` and the qrels."""

    shares: pl.DataFrame | None = None
    named: NamedTarget | None = None

    @property
    def per_query(self) -> bool:
        """Whether the shares are given per query (the frame has a query column)."""
        return self.shares is not None and self.shares.width == 3


def read_target(obj: Any, columns: Columns, rename: Mapping[str, str] | None = None) -> Target:
    """The target distribution, checked (see the module); ``rename``: ``target_columns``, the
    input's own names of ``query_id``, ``group`` and ``share``."""
    if isinstance(obj, Target):
        return obj
    q = columns.query_id
    if isinstance(obj, str) and obj in NAMED_TARGETS:
        return Target(named=obj)  # type: ignore[arg-type]
    names = {"query_id": q, "group": "group", "share": "share", **(rename or {})}
    keys: list[str] = [q]
    if isinstance(obj, Mapping):
        frame, keys = _target_dict(obj, q)
    else:
        if isinstance(obj, str) and not os.path.exists(obj) and not any(c in obj for c in "*?["):
            raise InputReadError(
                f"{TARGET}: {obj!r} is neither a named target ({', '.join(map(repr, NAMED_TARGETS))}) nor a file"
            )
        table = read_table(obj, TARGET, {"query_id": names["query_id"], "group": names["group"]}, keys=("group",))
        if table is None:
            table = _rows(obj, TARGET, [names["query_id"], names["group"], names["share"]], "([query, ]group, share)")
        frame = table.lazy().collect()
        if names["query_id"] not in frame.columns:
            keys = []
        frame = _columns(frame, TARGET, names, ("group", "share") if not keys else ("query_id", "group", "share"),
                         None, "target_columns")
        frame = frame.rename({names["query_id"]: q, names["group"]: GROUP, names["share"]: SHARE}, strict=False)
    _check(frame, TARGET, keys, SHARE, "share", "query" if keys else "")
    total = pl.col(SHARE).sum().over(keys) if keys else pl.col(SHARE).sum()
    zero = frame.filter(total == 0)
    if zero.height:
        whose = f" of query {zero[q][0]!r}" if keys else ""
        raise InvalidValueError(f"{TARGET}: the shares{whose} are all 0; a target needs a positive share")
    frame = frame.with_columns((pl.col(SHARE) / total).alias(SHARE)).select(*keys, GROUP, SHARE)
    return Target(shares=frame.sort(*keys, GROUP))


def _from_dict(obj: Mapping[Any, Any], d: str) -> pl.DataFrame:
    """``{doc: group | [group, ...] | {group: weight}}`` as (doc, group, weight) rows."""
    if not obj:
        raise EmptyInputError(f"{GROUPS} are empty: the dict holds no document")
    rows: list[tuple[Any, Any, Any]] = []
    for doc, value in obj.items():
        if isinstance(value, Mapping):
            rows += [(doc, g, w) for g, w in value.items()]
        elif isinstance(value, (list, tuple, set, frozenset)):
            rows += [(doc, g, 1.0) for g in value]
        else:
            rows.append((doc, value, 1.0))
    if not rows:
        raise EmptyInputError(f"{GROUPS} are empty: no document has a group")
    return _typed(pl.DataFrame(rows, schema=[d, GROUP, WEIGHT], orient="row", strict=False), GROUPS, d, WEIGHT, "weight")


def _target_dict(obj: Mapping[Any, Any], q: str) -> tuple[pl.DataFrame, list[str]]:
    """``{group: share}`` or ``{query: {group: share}}`` as rows, and the key columns."""
    if not obj:
        raise EmptyInputError(f"{TARGET} is empty: the dict holds no group")
    nested = [isinstance(v, Mapping) for v in obj.values()]
    if all(nested):
        rows = [(query, g, s) for query, shares in obj.items() for g, s in shares.items()]
        if not rows:
            raise EmptyInputError(f"{TARGET} is empty: no query has a share")
        frame = pl.DataFrame(rows, schema=[q, GROUP, SHARE], orient="row", strict=False)
        return _typed(frame, TARGET, q, SHARE, "share"), [q]
    if any(nested):
        raise UnsupportedInputError(
            f"cannot read {TARGET} from a dict of both shares and dicts: pass {{group: share}} (one target) or "
            "{query: {group: share}} (one per query)"
        )
    frame = pl.DataFrame([(g, s) for g, s in obj.items()], schema=[GROUP, SHARE], orient="row", strict=False)
    return _typed(frame, TARGET, None, SHARE, "share"), []


def _typed(frame: pl.DataFrame, what: str, key: str | None, value: str, word: str) -> pl.DataFrame:
    """A frame built from Python values with its group as text and its value as a float (a
    value that is not a number is an error naming it)."""
    if not frame.schema[value].is_numeric() and frame.schema[value] != pl.Null:
        bad = next(v for v in frame[value].to_list() if v is not None and not isinstance(v, (int, float)))
        raise ColumnTypeError(f"{what}: a {word} must be a number, found {bad!r}")
    if key is not None and frame.schema[key] not in (pl.String, pl.Null) and not frame.schema[key].is_integer():
        raise ColumnTypeError(f"{what}: ids must be strings or integers, found type {frame.schema[key]}")
    return frame.with_columns(pl.col(GROUP).cast(pl.String), pl.col(value).cast(pl.Float64))


def _rows(obj: Any, what: str, names: list[str], shape: str) -> pl.DataFrame:
    """An iterable of tuples or records as a frame (the tuples' columns ``names``, the first
    one left out of tuples one shorter)."""
    if isinstance(obj, (str, bytes)) or not isinstance(obj, Iterable):
        raise UnsupportedInputError(
            f"cannot read {what} from {type(obj).__module__}.{type(obj).__name__}: pass a dict, rows {shape}, a "
            "Polars DataFrame/LazyFrame, a pyarrow Table, a pandas DataFrame, a DuckDB relation or a path to "
            "Parquet or CSV/TSV files"
        )
    rows = list(obj)
    if not rows:
        raise EmptyInputError(f"{what} {_verb(what, 'are')} empty: the iterable holds no row")
    if all(isinstance(r, Mapping) for r in rows):
        return pl.DataFrame(rows, strict=False)
    if what == GROUPS:  # (doc, group) rows weigh 1
        rows = [(*r, 1.0) if isinstance(r, (tuple, list)) and len(r) == 2 else r for r in rows]
    sizes = {len(r) for r in rows if isinstance(r, (tuple, list))}
    if len(sizes) == 1 and len(rows) == sum(isinstance(r, (tuple, list)) for r in rows) and sizes <= {2, 3}:
        size = sizes.pop()
        schema = names[:size] if what == GROUPS else names[3 - size:]
        return pl.DataFrame(rows, schema=schema, orient="row", strict=False)
    raise UnsupportedInputError(f"cannot read {what} from an iterable of {type(rows[0]).__name__}: pass rows {shape}")


def _columns(
    frame: pl.DataFrame, what: str, names: Mapping[str, str], required: Sequence[str], optional: str | None,
    keyword: str,
) -> pl.DataFrame:
    """The frame's columns that ``names`` names (``required`` ones an error when absent, the
    ``optional`` weight 1 when absent), checked for their types: ids strings or integers, the
    value a number."""
    found = frame.columns
    for key in required:
        if names[key] not in found:
            best = closest(names[key], found, n=1)
            hint = f" Did you mean {best[0]!r}? ({pass_hint(keyword, {key: best[0]})})" if best else ""
            raise MissingColumnError(
                f"{what} {_verb(what, 'have')} no column {names[key]!r} (its {key} column).{hint} Columns found: {found}"
            )
    value = next(k for k in ("weight", "share") if k in names and (k in required or k == optional))
    selected = [names[k] for k in required if k != value]
    for name in selected:
        dtype = frame.schema[name]
        if not (dtype.is_integer() or dtype in (pl.String, pl.Categorical, pl.Null)):
            raise ColumnTypeError(f"{what}: the column {name!r} must hold strings or integers, found type {dtype}")
    if names[value] in found:
        if not frame.schema[names[value]].is_numeric():
            raise ColumnTypeError(
                f"{what}: the column {names[value]!r} must hold numbers ({value}s), found type {frame.schema[names[value]]}"
            )
        weight = pl.col(names[value]).cast(pl.Float64)
    else:
        weight = pl.lit(1.0)
    group = names["group"]
    out = frame.select(
        *[pl.col(n).cast(pl.String) if n == group or frame.schema[n] == pl.Categorical else pl.col(n)
          for n in selected],
        weight.alias(names[value]),
    )
    return out


def _check(frame: pl.DataFrame, what: str, keys: list[str], value: str, word: str, key_word: str) -> None:
    """No row, a NULL key or group, a pair given twice, a bad value: errors naming them."""
    if frame.height == 0:
        raise EmptyInputError(f"{what} {_verb(what, 'are')} empty: no row")
    for name in (*keys, GROUP):
        nulls = frame[name].null_count()
        if nulls:
            column = "group" if name == GROUP else key_word
            raise InvalidValueError(f"{what} {_verb(what, 'hold')} {nulls} NULL {column}(s)")
    twice = frame.filter(pl.struct(*keys, GROUP).is_duplicated())
    if twice.height:
        row = twice.row(0, named=True)
        whose = f"{key_word} {row[keys[0]]!r} " if keys else ""
        raise DuplicateDocumentError(f"{what} {_verb(what, 'give')} {whose}group {row[GROUP]!r} more than once")
    bad = frame.filter(pl.col(value).is_null() | ~pl.col(value).is_finite() | (pl.col(value) < 0))
    if bad.height:
        row = bad.row(0, named=True)
        whose = f"{key_word} {row[keys[0]]!r}, " if keys else ""
        raise InvalidValueError(
            f"{what}: {whose}group {row[GROUP]!r} has the {word} {row[value]!r}; a {word} is a finite number ≥ 0"
        )


def _verb(what: str, verb: str) -> str:
    """``verb`` agreeing with ``what``: the groups are plural, the target singular."""
    if what == GROUPS:
        return verb
    return {"are": "is", "have": "has"}.get(verb, verb + "s")


@dataclass(frozen=True)
class Fair:
    """The document groups and the target as an engine takes them: ``groups`` as
    :func:`read_groups` gives them, ``target`` the target's shares (``columns.query_id`` when per
    query, :data:`GROUP`, :data:`SHARE`) or None: each query's relevant documents' shares
    (``'relevant'``)."""

    groups: pl.DataFrame
    target: pl.DataFrame | None


def fair_inputs(groups: pl.DataFrame, target: Target | None) -> Fair:
    """The groups and the target an engine reads: a named ``'uniform'`` target as the same
    share for each group of ``groups``; no target (the default) or ``'relevant'`` as None."""
    if target is None or target.named == "relevant":
        return Fair(groups, None)
    if target.named == "uniform":
        names = groups.select(pl.col(GROUP).unique().sort())
        return Fair(groups, names.with_columns(pl.lit(1.0 / names.height).alias(SHARE)))
    return Fair(groups, target.shares)
