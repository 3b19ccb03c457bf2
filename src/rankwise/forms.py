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

import dataclasses
import itertools
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

import polars as pl

from rankwise.conventions import Columns
from rankwise.errors import EmptyInputError, InputReadError, UnsupportedInputError

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


def _frame(chunk: list[Any], kind: Kind) -> pl.DataFrame:
    first = chunk[0]
    if isinstance(first, Mapping):
        return pl.from_dicts(chunk, infer_schema_length=None)
    if (isinstance(first, tuple) and hasattr(first, "_fields")) or (
        dataclasses.is_dataclass(first) and not isinstance(first, type)
    ):
        return pl.DataFrame(chunk, infer_schema_length=None)
    raise UnsupportedInputError(
        f"cannot read a {kind} from an iterable of {type(first).__name__}: its items must be named "
        "tuples (as ir_datasets' qrels_iter() and scoreddocs_iter() yield), dataclasses or dicts, "
        "with fields query_id, doc_id and " + ("score" if kind == "run" else "relevance")
    )


def _chunks(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    it = iter(items)
    while chunk := list(itertools.islice(it, size)):
        yield chunk


def from_records(items: Iterable[Any], kind: Kind) -> pl.DataFrame:
    """Records (named tuples, dataclasses or dicts) as a frame whose columns are their fields,
    built ``RECORDS_PER_FRAME`` at a time; no record is an
    :class:`~rankwise.errors.EmptyInputError`."""
    frames = [_frame(chunk, kind) for chunk in _chunks(items, RECORDS_PER_FRAME)]
    if not frames:
        raise _empty(kind, f"the {type(items).__name__}")
    return frames[0] if len(frames) == 1 else pl.concat(frames, how="vertical_relaxed")


def is_records(obj: object) -> bool:
    """Whether ``obj`` may be an iterable of records (not text, bytes or a mapping)."""
    return isinstance(obj, Iterable) and not isinstance(obj, (str, bytes, bytearray, Mapping))


def read_json(path: Path, data: bytes, kind: Kind, columns: Columns, lines: bool) -> pl.DataFrame:
    """A JSON file's rows (``data``: its gunzipped bytes): a dict of dicts or a list of records
    (``.json``), or a record a line (``lines``, ``.jsonl``)."""
    try:
        if lines:
            frame = pl.read_ndjson(data, infer_schema_length=None) if data.strip() else pl.DataFrame()
        elif data.lstrip()[:1] == b"{":
            return from_mapping(json.loads(data), kind, columns)
        else:
            parsed = json.loads(data)
            if not isinstance(parsed, list):
                raise InputReadError(
                    f"{str(path)!r}: a JSON {kind} is a dict of dicts or a list of records, "
                    f"found a {type(parsed).__name__}"
                )
            if not parsed:
                raise _empty(kind, repr(str(path)))
            return from_records(parsed, kind)
    except (ValueError, pl.exceptions.ComputeError) as exc:
        if isinstance(exc, (InputReadError, EmptyInputError, UnsupportedInputError)):
            raise
        raise InputReadError(f"{str(path)!r} is not valid JSON{' lines' if lines else ''}: {exc}") from exc
    if frame.height == 0:
        raise _empty(kind, repr(str(path)))
    return frame
