"""The engines' and the operating system's faults, as rankwise's own exceptions.

A fault no check foresaw (a Parquet page that fails to decode, a file that vanished or is
unreadable, DuckDB out of memory under ``memory_limit``) reaches the caller as a
:class:`~rankwise.errors.RankwiseError` naming the inputs, with the original exception as
``__cause__``: :class:`~rankwise.errors.InputReadError` for reading faults,
:class:`~rankwise.errors.EngineResourceError` for memory,
:class:`~rankwise.errors.EngineError` for the rest. An interrupted DuckDB query is a
``KeyboardInterrupt`` again, as the user pressed Ctrl-C.

>>> with engine_faults({"run": "run.parquet"}):
...     raise OSError(5, "Input/output error")
Traceback (most recent call last):
...
rankwise.errors.InputReadError: cannot read the inputs (run 'run.parquet'): Input/output error
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from typing import Any

from rankwise.errors import (
    EngineError,
    EngineResourceError,
    InputReadError,
    InvalidValueError,
    RankwiseError,
    in_syntax,
)
from rankwise.io import READ_FAULTS, read_reason

_POLARS_WHERE = "\n\nThis error occurred in the following expression"
"""What Polars adds to an exception raised inside an expression (it names the expression)."""

_READ_ERRORS = {
    # (module prefix, class name) of the engines' reading faults
    ("duckdb", "IOException"), ("duckdb", "InvalidInputException"),
    ("duckdb", "ConversionException"), ("_duckdb", "IOException"),
    ("_duckdb", "InvalidInputException"), ("_duckdb", "ConversionException"),
    ("polars", "ComputeError"), ("polars", "NoDataError"), ("polars", "SchemaError"),
    ("pyarrow", "ArrowInvalid"), ("pyarrow", "ArrowIOError"), ("pyarrow", "ArrowException"),
}


def _describe(inputs: Mapping[str, Any]) -> str:
    parts = []
    for kind, obj in inputs.items():
        if isinstance(obj, (str, os.PathLike)):
            parts.append(f"{kind} {os.fspath(obj)!r}")
        else:
            parts.append(f"{kind}: a {type(obj).__module__.split('.')[0]} {type(obj).__name__}")
    return ", ".join(parts)


def _classes(exc: BaseException) -> set[tuple[str, str]]:
    return {(c.__module__.split(".")[0], c.__name__) for c in type(exc).__mro__}


def translate(exc: Exception, inputs: Mapping[str, Any]) -> BaseException:
    """The rankwise exception (or ``KeyboardInterrupt``) for an engine's or the OS's fault."""
    names = _classes(exc)
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    where = _describe(inputs)
    if any(name == "InterruptException" for _, name in names):
        return KeyboardInterrupt()
    if isinstance(exc, MemoryError) or any(name == "OutOfMemoryException" for _, name in names) or (
        "out of memory" in text.lower()
    ):
        limit = in_syntax("duckdb_config={'memory_limit': ...}", "--memory-limit")
        chunks = in_syntax("query_chunks", "--query-chunks")
        return EngineResourceError(
            f"the engine ran out of memory evaluating ({where}): {text}. Raise the memory limit "
            f"({limit}), or on the Polars engine use {chunks} so that fewer queries are held at once"
        )
    if "rankwise: " in text:  # an error() of rankwise's own SQL (a check on the data)
        return InvalidValueError(text[text.index("rankwise: ") + len("rankwise: "):])
    if isinstance(exc, READ_FAULTS):
        return InputReadError(f"cannot read the inputs ({where}): {read_reason(exc)}")
    if names & _READ_ERRORS:
        return InputReadError(f"cannot read the inputs ({where}): {text}")
    return EngineError(f"the engine failed evaluating ({where}): {type(exc).__name__}: {text}")


@contextlib.contextmanager
def engine_faults(inputs: Mapping[str, Any]) -> Iterator[None]:
    """Re-raise the faults of the body as rankwise's exceptions (see :func:`translate`);
    rankwise's own exceptions pass unchanged."""
    try:
        yield
    except RankwiseError as exc:
        # raised inside a Polars expression (a Python function of a primitive), Polars adds
        # where: rankwise's message alone
        message = str(exc)
        if _POLARS_WHERE in message:
            raise type(exc)(message[: message.index(_POLARS_WHERE)]) from None
        raise
    except Exception as exc:
        raise translate(exc, inputs) from exc
