"""The input forms users start from, built into Polars column by column.

- a dict of dicts, pytrec_eval's and ranx's form: a run ``{query: {doc: score}}``, qrels
  ``{query: {doc: relevance}}``;
- a ranx ``Run`` or ``Qrels`` (read through its ``to_dict()``; ranx is never imported);
- records: any iterable (a list, a generator, ``ir_datasets``' ``qrels_iter()`` and
  ``scoreddocs_iter()``) of named tuples, dataclasses or dicts, whose fields name the columns
  (``GenericQrel(query_id, doc_id, relevance, iteration)``, ``GenericScoredDoc(query_id,
  doc_id, score)``);
- JSON files: ``.json`` holding the dict of dicts or a list of records, ``.jsonl`` a record a
  line (gzipped too).

A dict of dicts gives the configured column names; records and JSON records give their own
field names (renamed like a frame's columns by ``run_columns``/``qrels_columns``).

>>> import rankwise as rw
>>> from_mapping({"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 0.5}}, "run", rw.Columns()).rows()
[('q1', 'd1', 2.0), ('q1', 'd2', 1.0), ('q2', 'd3', 0.5)]
"""

from __future__ import annotations

import codecs
import dataclasses
import itertools
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

import polars as pl

from rankwise.conventions import Columns
from rankwise.errors import (
    DuplicateDocumentError,
    EmptyInputError,
    InputReadError,
    UnsupportedInputError,
)

Kind = Literal["run", "qrels"]

RECORDS_PER_FRAME = 100_000
"""Records turned into one frame at a time (an iterator is never held whole as Python objects)."""


def value_name(kind: Kind, columns: Columns) -> str:
    return columns.score if kind == "run" else columns.relevance


def _empty(kind: Kind, what: str) -> EmptyInputError:
    return EmptyInputError(f"the {kind} is empty: {what} holds no documents")


def from_mapping(obj: Mapping[Any, Any], kind: Kind, columns: Columns) -> pl.DataFrame:
    """A dict of dicts (``{query: {doc: value}}``) as a frame with the configured column names;
    no document at all is an :class:`~rankwise.errors.EmptyInputError`."""
    inner = list(obj.values())
    if not all(isinstance(v, Mapping) for v in inner):
        example = next(v for v in inner if not isinstance(v, Mapping))
        raise UnsupportedInputError(
            f"cannot read a {kind} from a dict whose values are not dicts (found "
            f"{type(example).__name__}): pass {{query: {{doc: "
            f"{'score' if kind == 'run' else 'relevance'}}}}}, as pytrec_eval and ranx take it"
        )
    counts = pl.Series("n", [len(v) for v in inner], dtype=pl.Int64)
    if int(counts.sum()) == 0:
        raise _empty(kind, "the dict")
    queries = (
        pl.DataFrame({"q": pl.Series(list(obj.keys()), strict=False), "n": counts})
        .filter(pl.col("n") > 0)
        .select(pl.col("q").repeat_by("n").explode())
        .to_series()
    )
    docs = pl.Series(list(itertools.chain.from_iterable(v.keys() for v in inner)), strict=False)
    values = pl.Series(list(itertools.chain.from_iterable(v.values() for v in inner)), strict=False)
    return pl.DataFrame({columns.query_id: queries, columns.doc_id: docs, value_name(kind, columns): values})


def is_ranx(obj: object) -> bool:
    """Whether ``obj`` is a ranx ``Run`` or ``Qrels`` (recognised without importing ranx)."""
    return type(obj).__module__.split(".")[0] == "ranx" and callable(getattr(obj, "to_dict", None))


def from_ranx(obj: Any, kind: Kind, columns: Columns) -> pl.DataFrame:
    """A ranx ``Run`` or ``Qrels``, through its dict of dicts."""
    return from_mapping(obj.to_dict(), kind, columns)


def _form(item: object) -> str | None:
    """Which kind of record ``item`` is: ``'dict'``, ``'named tuple'``, ``'dataclass'``, or None."""
    if isinstance(item, Mapping):
        return "dict"
    if isinstance(item, tuple) and hasattr(item, "_fields"):
        return "named tuple"
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        return "dataclass"
    return None


def _frame(chunk: list[Any], kind: Kind, form: str | None, start: int) -> pl.DataFrame:
    """One chunk of records of the kind ``form`` (the first record's), ``start`` records after
    the first; a record of another kind is an :class:`~rankwise.errors.InputReadError`
    naming it."""
    if form is None:
        raise UnsupportedInputError(
            f"cannot read a {kind} from an iterable of {type(chunk[0]).__name__}: its items must be named "
            "tuples (as ir_datasets' qrels_iter() and scoreddocs_iter() yield), dataclasses or dicts, "
            "with fields query_id, doc_id and " + ("score" if kind == "run" else "relevance")
        )
    for i, item in enumerate(chunk):
        if _form(item) != form:
            raise InputReadError(
                f"cannot read a {kind} from records of several kinds: the first is a {form}, record "
                f"{start + i + 1} of type {type(item).__name__!r}; every record must be of one kind (named "
                "tuples, dataclasses or dicts)"
            )
    if form == "dict":
        return pl.from_dicts(chunk, infer_schema_length=None)
    return pl.DataFrame(chunk, infer_schema_length=None)


def _chunks(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    it = iter(items)
    while chunk := list(itertools.islice(it, size)):
        yield chunk


def from_records(items: Iterable[Any], kind: Kind) -> pl.DataFrame:
    """Records (named tuples, dataclasses or dicts, all of one kind) as a frame whose columns
    are their fields, built ``RECORDS_PER_FRAME`` at a time; no record is an
    :class:`~rankwise.errors.EmptyInputError`."""
    frames: list[pl.DataFrame] = []
    form: str | None = None
    start = 0
    for chunk in _chunks(items, RECORDS_PER_FRAME):
        if not frames:
            form = _form(chunk[0])
        frames.append(_frame(chunk, kind, form, start))
        start += len(chunk)
    if not frames:
        raise _empty(kind, f"the {type(items).__name__}")
    return frames[0] if len(frames) == 1 else pl.concat(frames, how="vertical_relaxed")


def is_records(obj: object) -> bool:
    """Whether ``obj`` may be an iterable of records (not text, bytes or a mapping)."""
    return isinstance(obj, Iterable) and not isinstance(obj, (str, bytes, bytearray, Mapping))


class _Repeated(dict[str, Any]):
    """A JSON object one of whose keys is repeated (``key``, the first): json keeps the last
    value of a repeated key, which would drop a document (or a query) silently."""

    key: str


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json's ``object_pairs_hook``: the object as a dict, marked :class:`_Repeated` when a key
    is repeated."""
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    repeated = _Repeated(obj)
    seen: set[str] = set()
    for key, _value in pairs:
        if key in seen:
            repeated.key = key
            break
        seen.add(key)
    return repeated


def _parse(data: bytes, path: Path, kind: Kind) -> Any:
    """A JSON document; a key repeated in a dict of dicts (a query, or a document of one query)
    is a :class:`~rankwise.errors.DuplicateDocumentError` naming it, in a record an
    :class:`~rankwise.errors.InputReadError`."""
    from rankwise.inputs.checks import duplicate_error

    parsed = json.loads(data, object_pairs_hook=_object)
    where = f"in {str(path)!r}"
    if isinstance(parsed, _Repeated):
        raise duplicate_error(kind, parsed.key, None, where)
    if isinstance(parsed, dict):
        for query, docs in parsed.items():
            if isinstance(docs, _Repeated):
                raise duplicate_error(kind, query, docs.key, where)
    elif isinstance(parsed, list):
        for i, record in enumerate(parsed):
            if isinstance(record, _Repeated):
                raise InputReadError(f"{str(path)!r}: record {i + 1} holds the key {record.key!r} twice")
    return parsed


def read_json(path: Path, data: bytes, kind: Kind, columns: Columns, lines: bool) -> pl.DataFrame:
    """A JSON file's rows (``data``: its gunzipped bytes, a UTF-8 byte-order mark ignored): a
    dict of dicts or a list of records (``.json``), or a record a line (``lines``, ``.jsonl``).
    A key repeated in a dict of dicts is a duplicate (:func:`_parse`); JSON nested too deeply
    for Python's parser is an :class:`~rankwise.errors.InputReadError`."""
    data = data.removeprefix(codecs.BOM_UTF8)
    try:
        if lines:
            frame = pl.read_ndjson(data, infer_schema_length=None) if data.strip() else pl.DataFrame()
        elif data.lstrip()[:1] == b"{":
            return from_mapping(_parse(data, path, kind), kind, columns)
        else:
            parsed = _parse(data, path, kind)
            if not isinstance(parsed, list):
                raise InputReadError(
                    f"{str(path)!r}: a JSON {kind} is a dict of dicts or a list of records, "
                    f"found a {type(parsed).__name__}"
                )
            if not parsed:
                raise _empty(kind, repr(str(path)))
            try:
                return from_records(parsed, kind)
            except UnsupportedInputError as exc:  # records of another or of several kinds
                raise type(exc)(f"{str(path)!r}: {exc}") from None
    except RecursionError as exc:
        raise InputReadError(f"{str(path)!r} is nested too deeply to read: a JSON {kind} is a dict of dicts or a list of records") from exc
    except (ValueError, pl.exceptions.ComputeError) as exc:
        if isinstance(exc, (InputReadError, EmptyInputError, UnsupportedInputError, DuplicateDocumentError)):
            raise
        raise InputReadError(f"{str(path)!r} is not valid JSON{' lines' if lines else ''}: {exc}") from exc
    if frame.height == 0:
        raise _empty(kind, repr(str(path)))
    return frame
