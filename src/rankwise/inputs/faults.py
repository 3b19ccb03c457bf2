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
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from rankwise.errors import (
    EmptyQueryError,
    EngineError,
    EngineResourceError,
    InputReadError,
    InvalidValueError,
    LabelError,
    RankwiseError,
    in_syntax,
)
from rankwise.inputs.read import READ_FAULTS, read_reason

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


_MARKED: tuple[type[EmptyQueryError] | type[LabelError], ...] = (EmptyQueryError, LabelError)
"""The checks on the data raised by rankwise's own SQL whose errors have a class of their own,
each recognised by its words (``MARK``); any other is an :class:`~rankwise.errors.InvalidValueError`."""


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
        "out of memory" in text.lower() or "cannot allocate memory" in text.lower()  # ENOMEM
    ):
        return EngineResourceError(f"the engine ran out of memory evaluating ({where}): {text}. {_remedies()}")
    if "rankwise: " in text:  # an error() of rankwise's own SQL (a check on the data)
        message = text[text.index("rankwise: ") + len("rankwise: "):]
        marked = [cls for cls in _MARKED if cls.MARK in message]
        return (marked[0] if marked else InvalidValueError)(message)
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


def _remedies() -> str:
    """What to do when memory runs short, in the syntax of the interface in use."""
    limit = in_syntax("duckdb_config={'memory_limit': ...}", "--memory-limit")
    chunks = in_syntax("query_chunks", "--query-chunks")
    return (
        f"Raise the memory limit ({limit}), or on the Polars engine use {chunks} so that fewer "
        "queries are held at once"
    )


# -- the Polars engine's memory, checked before it starts ------------------------------------
#
# A Rust allocation failure aborts the process (Polars cannot raise it), so the Polars engine's
# need is estimated from the run's row count and compared, before it reads the rows, with what
# the process may still use. The estimate is fitted to measurements on the benchmark's shape
# (benchmarks/generate.py: string ids, 100 documents and 20 judgments a query; nDCG@10, AP, RR,
# P@10, R@100; 2 cores), the process started under a limit (``ulimit -v``, RLIMIT_AS): the
# smallest limit under which the evaluation completes was 1,075 MB for 100,000 run rows, 1,418
# MB for 1M and 1,818 MB for 5M, of which about 1.03-1.10 GB were in use when the check runs
# (Polars started: its threads' stacks and arenas), leaving a need of about 40, 318 and 715 MB
# (62, 293 and 725 MB when measured above a process started without a limit; the peak resident
# memory: 138, 289, 552 MB). Part of it grows with the rows held (the inputs), part with the
# rows of one query group (at most ROWS_PER_CHUNK, 500,000: the group-by's work), part is
# fixed. Other metrics (every trec_eval measure) and shapes need more: the check catches what is
# clearly too large, not every case.

_MB = 2**20
ADDRESS_NEED = (16 * _MB, 400, 110)
"""The address space the Polars engine needs beyond what it holds once started: fixed bytes,
bytes per row of one query group, bytes per row held (fitted to the measurements above)."""
RESIDENT_NEED = (108 * _MB, 227, 75)
"""The resident memory it needs, in the same terms."""
MARGIN = 1.1
"""The estimate is the fit times this (the measurements' spread)."""


def polars_need(held_rows: int, group_rows: int, need: tuple[int, int, int]) -> int:
    """The estimated bytes the Polars engine needs to hold ``held_rows`` run rows and evaluate
    them in query groups of ``group_rows``, from ``need`` (:data:`ADDRESS_NEED` or
    :data:`RESIDENT_NEED`).

    >>> round(polars_need(5_000_000, 500_000, ADDRESS_NEED) / 2**20)
    804
    """
    fixed, per_group_row, per_held_row = need
    return int(MARGIN * (fixed + per_group_row * group_rows + per_held_row * held_rows))


def _status_bytes(field: str) -> int | None:
    """A ``kB`` field of ``/proc/self/status`` (``VmSize``: the address space in use), in bytes."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return None


def _read_int(path: str) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        text = Path(path).read_text().split()[0]
        return None if text == "max" else int(text)
    return None


def _stat_bytes(path: Path, key: str) -> int:
    """A field of a cgroup's ``memory.stat`` (0 when it cannot be read)."""
    with contextlib.suppress(OSError, ValueError):
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    return 0


def address_room() -> tuple[int, int] | None:
    """The address space this process may still take under its limit (``ulimit -v``,
    ``RLIMIT_AS``) and that limit, in bytes; None without a limit (or where it is not known)."""
    if sys.platform == "win32":
        return None
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    used = _status_bytes("VmSize")
    if soft == resource.RLIM_INFINITY or used is None:
        return None
    return soft - used, soft


def _cgroup_room(proc: Path = Path("/proc/self/cgroup"), mount: Path = Path("/sys/fs/cgroup")) -> tuple[int, int] | None:
    """The memory this process's cgroup may still take and its limit, in bytes (cgroup v2's
    ``memory.max`` and ``memory.current``, v1's ``memory.limit_in_bytes`` and
    ``memory.usage_in_bytes``, the usage without the page cache it holds, ``memory.stat``'s
    ``file`` / ``total_cache``: the kernel reclaims it; the cgroup's own folder, else the
    mount's root, as a container sees it); None without a limit."""
    with contextlib.suppress(OSError, ValueError):
        for line in proc.read_text().splitlines():
            hierarchy, controllers, path = line.split(":", 2)
            if hierarchy == "0" and controllers == "":
                root, files, cache = mount, ("memory.max", "memory.current"), "file"
            elif "memory" in controllers.split(","):
                root = mount / "memory"
                files, cache = ("memory.limit_in_bytes", "memory.usage_in_bytes"), "total_cache"
            else:
                continue
            for folder in (root / path.lstrip("/"), root):
                limit, used = (_read_int(str(folder / f)) for f in files)
                if limit is not None and used is not None and limit < 2**60:  # v1: no limit is ~2**63
                    # the usage counts the page cache, which the kernel gives back when asked
                    return limit - max(used - _stat_bytes(folder / "memory.stat", cache), 0), limit
    return None


def resident_room() -> tuple[int, str] | None:
    """The memory this process may still fill and what bounds it (the system's available
    memory and free swap, ``MemAvailable`` + ``SwapFree``, or its cgroup's limit), in bytes;
    None if not known."""
    rooms: list[tuple[int, str]] = []
    with contextlib.suppress(OSError, ValueError, StopIteration):
        fields = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
        free = sum(int(fields[k].split()[0]) * 1024 for k in ("MemAvailable", "SwapFree") if k in fields)
        if "MemAvailable" in fields:
            rooms.append((free, "the memory available on the system (MemAvailable and SwapFree)"))
    cgroup = _cgroup_room()
    if cgroup is not None:
        rooms.append((cgroup[0], f"the cgroup's memory limit of {_gb(cgroup[1])}"))
    return min(rooms) if rooms else None


def _gb(n: float) -> str:
    return f"{n / 2**30:.2f} GB"


def check_polars_memory(held_rows: int, group_rows: int) -> None:
    """Raise :class:`~rankwise.errors.EngineResourceError` before the Polars engine holds
    ``held_rows`` run rows at once and evaluates them in query groups of ``group_rows``, when
    the estimated need (:func:`polars_need`) exceeds what the process may still use: the room
    under its address-space limit, or the memory available; the message names the need, the
    limit and the remedies."""
    address, resident = address_room(), resident_room()
    need_address = polars_need(held_rows, group_rows, ADDRESS_NEED)
    need_resident = polars_need(held_rows, group_rows, RESIDENT_NEED)
    short = None
    if address is not None and need_address > address[0]:
        short = (
            f"about {_gb(need_address)} of address space, and the process's limit (ulimit -v, RLIMIT_AS) "
            f"of {_gb(address[1])} leaves {_gb(max(address[0], 0))}"
        )
    elif resident is not None and need_resident > resident[0]:
        short = f"about {_gb(need_resident)} of memory, and {resident[1]} leaves {_gb(max(resident[0], 0))}"
    if short is not None:
        chunks = in_syntax("query_chunks=10", "--query-chunks 10")
        duckdb = in_syntax("engine='duckdb', duckdb_config={'memory_limit': '1GB'}", "--engine duckdb --memory-limit 1GB")
        raise EngineResourceError(
            f"not enough memory to evaluate {held_rows:,} run rows at once on the Polars engine: it needs "
            f"{short}. Raise the limit, or use {chunks} so that only about a tenth of the rows is held "
            f"at once, or the DuckDB engine under a memory limit ({duckdb}), which spills to disk"
        )
