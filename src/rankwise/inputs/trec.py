"""Reading TREC run and qrels text, exactly as trec_eval splits it, a block at a time.

The file (gunzipped on the fly if gzip) is read in blocks of a few megabytes cut at a line end;
each block is decoded, split and parsed by Polars, and only the parsed columns are kept, so the
memory held is that of the parsed rows plus one block (not the whole text and a Python string
per line).

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "run.trec"
>>> _ = path.write_text("q1 Q0 d1 1 2.5 tag\\r\\n\\nq1\\tQ0  d2 2 1 tag extra\\n")
>>> read_trec(path, "run", Columns()).rows()
[('q1', 'd1', 2.5), ('q1', 'd2', 1.0)]
"""

from __future__ import annotations

import contextlib
import gzip
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Literal

import polars as pl

from rankwise.conventions import Columns
from rankwise.errors import SWAPPED, InputReadError, pass_hint
from rankwise.outputs import progress

Kind = Literal["run", "qrels"]

BLOCK_SIZE = 8 << 20
"""Bytes read at a time (a block ends at its last line end; a longer line is read whole)."""


def decode_utf8(data: bytes, path: Path, first_line: int = 1) -> str:
    """``data`` as UTF-8 text; invalid UTF-8 is refused with an error naming the line (decoding
    it loosely could map two different ids to the same text). ``first_line``: the number of
    the line ``data`` starts with."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first_line + data.count(b"\n", 0, exc.start)
        raise InputReadError(
            f"{str(path)!r}, line {line}: not valid UTF-8 (byte {data[exc.start:exc.start + 1]!r}); "
            "rankwise reads TREC files as UTF-8 and will not guess, because decoding loosely could "
            "merge two different ids: convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)"
        ) from exc


@contextlib.contextmanager
def _opened(path: Path) -> Iterator[tuple[BinaryIO, BinaryIO]]:
    """The file's content (gunzipped on the fly if gzip) and the file itself, whose position
    is how many of its bytes are read."""
    with path.open("rb") as fh:
        gz = fh.read(2) == b"\x1f\x8b"
    with path.open("rb") as raw:
        if not gz:
            yield raw, raw
            return
        with gzip.GzipFile(fileobj=raw, mode="rb") as content:
            yield content, raw  # type: ignore[misc]


def blocks(path: Path, size: int = BLOCK_SIZE, read: Callable[[int], object] | None = None) -> Iterator[tuple[int, bytes]]:
    """The file's bytes in blocks of whole lines (the last may lack its ``\\n``), each with the
    number of its first line; ``read`` is told how many bytes of the file (gzipped: of the
    compressed file) are read once each block is dealt with."""
    line = 1
    rest = b""
    with _opened(path) as (fh, raw):
        while True:
            data = fh.read(size)
            if not data:
                break
            data = rest + data
            cut = data.rfind(b"\n") + 1
            if cut == 0:  # no line end yet: a line longer than a block
                rest = data
                continue
            rest = data[cut:]
            yield line, data[:cut]
            if read is not None:  # the block is dealt with
                read(raw.tell())
            line += data.count(b"\n", 0, cut)
    if rest:
        yield line, rest


def _fields(text: str, first_line: int) -> pl.DataFrame:
    """The non-blank lines of a block, each with its number and its fields (runs of ASCII
    spaces and tabs separate them; a ``\\r`` before the line end is dropped)."""
    lines = pl.Series("line", [text], dtype=pl.String).str.split("\n").explode()
    if text.endswith("\n"):
        lines = lines.head(lines.len() - 1)
    frame = lines.str.strip_suffix("\r").to_frame().with_row_index("__line", offset=first_line)
    line = pl.col("line")
    # one space between fields and none around them (the usual layout): a plain split is exact.
    # A tab is looked for in the text (one memchr); the spaces per line, in Polars (a fifth of
    # the time of four searches of the text in Python: 24 ms against 134 ms on 1M lines)
    single = "\t" not in text and not frame.select(
        (line.str.contains("  ", literal=True) | line.str.starts_with(" ") | line.str.ends_with(" ")).any()
    ).item()
    return frame.filter(line.str.strip_chars(" \t") != "").select(
        "__line", (line.str.split(" ") if single else line.str.extract_all(r"[^ \t]+")).alias("f")
    )


@dataclass
class _Scan:
    """What the blocks showed so far: the first problem of each kind, in the order trec_eval's
    reader would meet them (a short line, then a run given as qrels, then a bad value)."""

    path: Path
    kind: Kind
    short: tuple[int, str] | None = None
    all_four: bool = True
    """Every line of a run has exactly 4 fields (it looks like qrels)."""
    first: tuple[int, str] | None = None
    all_run_like: bool = True
    """Every line of qrels has 6 fields or more, the second 'Q0' (it looks like a run)."""
    bad: tuple[int, str] | None = None
    frames: list[pl.DataFrame] = field(default_factory=list)

    def check_shape(self, parts: pl.DataFrame) -> None:
        need = 6 if self.kind == "run" else 4
        lengths = parts["f"].list.len()
        if self.first is None and parts.height:
            self.first = (int(parts["__line"][0]), " ".join(parts["f"][0]))
        self.all_four = self.all_four and bool((lengths == 4).all())
        if self.kind == "qrels":
            self.all_run_like = self.all_run_like and bool(
                ((lengths >= 6) & (parts["f"].list.get(1, null_on_oob=True) == "Q0")).all()
            )
        if self.short is None:
            short = parts.filter(lengths < need)
            if short.height:
                self.short = (int(short["__line"][0]), " ".join(short["f"][0]))

    def raise_first(self) -> None:
        path, kind = self.path, self.kind
        if self.short is not None:
            need = 6 if kind == "run" else 4
            line, example = self.short
            qrels_like = kind == "run" and self.all_four
            raise InputReadError(
                f"{str(path)!r} is not a TREC {kind} file: expected at least {need} fields per line, "
                f"separated by spaces or tabs "
                f"({'qid Q0 doc rank score tag' if kind == 'run' else 'qid iter doc rel'}); "
                f"line {line} is {example!r}"
                + (f". It looks like TREC qrels (qid iter doc rel). {SWAPPED}" if qrels_like else "")
                + _csv_hint(example, kind)
            )
        if kind == "qrels" and self.first is not None and self.all_run_like:
            line, example = self.first
            raise InputReadError(
                f"{str(path)!r} looks like a TREC run (qid Q0 doc rank score tag), not qrels (qid iter doc rel): "
                f"line {line} is {example!r}. {SWAPPED}"
            )
        if self.bad is not None:
            line, text = self.bad
            raise InputReadError(
                f"{str(path)!r}, line {line}: the "
                f"{'score (5th)' if kind == 'run' else 'relevance (4th)'} field of a TREC {kind} line "
                f"must be a number, found {text!r}"
            )


def _csv_hint(line: str, kind: Kind) -> str:
    """A note when a line that is too short for TREC holds commas (a CSV file)."""
    if "," in line:
        return f": it looks like CSV: name the file .csv, or {pass_hint(f'{kind}_format', 'csv')}"
    return ""


def _parse(parts: pl.DataFrame, kind: Kind, columns: Columns) -> pl.DataFrame:
    f = pl.col("f")
    value_index, value_name = (4, columns.score) if kind == "run" else (3, columns.relevance)
    value = f.list.get(value_index)
    # subtopic qrels (ndeval's): the second field is the subtopic
    subtopic = [f.list.get(1).alias(columns.subtopic)] if kind == "qrels" and columns.subtopic else []
    # a stochastic run's (evaluate's sample=): the second field is the sample, as expeval reads it
    subtopic += [f.list.get(1).alias(columns.sample)] if kind == "run" and columns.sample else []
    return parts.select(
        "__line",
        f.list.get(0).alias(columns.query_id),
        *subtopic,
        f.list.get(2).alias(columns.doc_id),
        value.cast(pl.Float64, strict=False).alias(value_name),
        value.alias("__text"),
    )


def _compact(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with its own copy of its strings: the ids taken from a block's fields are views
    into the buffers of every field of the block (the rank, the score's text, the tag), which
    would be kept alive with them (on a 4M-line run, about 100 MB more at the peak)."""
    return pl.DataFrame(pl.from_arrow(frame.to_arrow(compat_level=pl.CompatLevel.oldest())))


def read_trec(path: Path, kind: Kind, columns: Columns, block_size: int = BLOCK_SIZE) -> pl.DataFrame:
    """Read a TREC run (``qid Q0 doc rank score tag``) or qrels (``qid iter doc rel``) file,
    gzipped or not, exactly as trec_eval splits it.

    Lines end at ``\\n`` (a ``\\r`` before it is dropped); fields are separated by ASCII spaces
    and tabs only, so any other character (a non-breaking space, U+2028, U+0085, ...) is part of
    the id it appears in. Blank lines are skipped; anything after the sixth (run) or fourth
    (qrels) field is ignored, as trec_eval does. Ids are read as strings; the file must be
    UTF-8 (invalid bytes are refused, naming the line). With a ``subtopic`` column (subtopic
    qrels) the qrels' second field is the subtopic, as ndeval reads it; with a ``sample`` column (a
    stochastic run) the run's second field is the sample, as expeval reads it. The file is read
    ``block_size`` bytes at a time, its bytes read of its size shown as it goes
    (:func:`rankwise.outputs.progress.task`).
    """
    with progress.task(f"reading {path.name}", total=file_size(path), unit="bytes") as step:
        return _read_blocks(path, kind, columns, block_size, step.at)


def file_size(path: Path) -> int | None:
    """The file's size in bytes (None where the system does not say: 0 in /proc)."""
    try:
        return path.stat().st_size or None
    except OSError:
        return None


def _read_blocks(
    path: Path, kind: Kind, columns: Columns, block_size: int, read: Callable[[int], object]
) -> pl.DataFrame:
    """:func:`read_trec`, telling ``read`` how many bytes of the file are read as it goes."""
    scan = _Scan(path, kind)
    value_name = columns.score if kind == "run" else columns.relevance
    for first_line, data in blocks(path, block_size, read):
        parts = _fields(decode_utf8(data, path, first_line), first_line)
        scan.check_shape(parts)
        if scan.short is not None:
            # the rest is read only to tell whether every line looks like qrels
            if kind == "run" and scan.all_four:
                continue
            break
        parsed = _parse(parts, kind, columns)
        if scan.bad is None:
            bad = parsed.filter(pl.col(value_name).is_null())
            if bad.height:
                scan.bad = (int(bad["__line"][0]), str(bad["__text"][0]))
        if scan.bad is None:
            frame = parsed.drop("__line", "__text")
            if scan.frames:
                # a second block: the file is large, and each block's ids get their own copy
                # of their strings. A file of one block keeps its views: they hold at most
                # one block more, and copying them imports pyarrow (0.3-0.4 s of a command's start)
                if len(scan.frames) == 1:
                    scan.frames[0] = _compact(scan.frames[0])
                frame = _compact(frame)
            scan.frames.append(frame)
    scan.raise_first()
    if not scan.frames:
        return _parse(_fields("", 1), kind, columns).drop("__line", "__text")
    return pl.concat(scan.frames, rechunk=False)
