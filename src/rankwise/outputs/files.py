"""Writing output files whole or not at all.

Every file rankwise writes (``-o`` of ``eval``/``compare``/``explain``, Parquet results,
reports, figures) goes through :func:`atomic_path`: the content is written to a temporary
file beside the target (``.<name>.<random>.tmp``, in the same folder, so on the same file
system), flushed to disk, and renamed over the target (``os.replace``) only once complete. A
fault, Ctrl-C or SIGTERM (which the command line turns into ``SystemExit``) removes the
temporary file: the target is then either the previous file, untouched, or absent, never a
half-written one. The OS's faults become :class:`~rankwise.errors.OutputError` naming the
target (a missing folder, a directory in the way, a read-only file system, a full disk).

Targets that are not regular files (``/dev/stdout``, ``/dev/null``, a FIFO, ``/dev/full``)
are written in place: a device cannot be replaced, and renaming a file over ``/dev/null``
would break the system. Writing to ``/dev/full`` fails with "No space left on device".

>>> import os, shutil, tempfile
>>> folder = tempfile.mkdtemp()
>>> write_text_atomic(os.path.join(folder, "a.txt"), "hello\\n")
>>> sorted(os.listdir(folder))
['a.txt']
>>> write_text_atomic(os.path.join(folder, "missing", "a.txt"), "x")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
rankwise.errors.OutputError: cannot write '.../missing/a.txt': the folder '.../missing' does not exist
>>> shutil.rmtree(folder)

Text shown to people on a terminal (tables, progress, messages) goes through :func:`visible`:
a control character in an id or a run name (an escape sequence) is shown, not obeyed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from rankwise.errors import OutputError

_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold SIGINT/SIGTERM back for a few system calls (a rename, an unlink), so that an
    interrupt cannot fall between them; a signal sent meanwhile is delivered right after.

    Blocking the signals in this thread (``pthread_sigmask``) is not enough in a process with
    other threads (Polars' and DuckDB's workers): the kernel then hands the signal to one of
    them, and Python runs its handler in this thread at once. So, in the main thread, the
    Python handlers are also replaced for the duration by one that notes the signal, and the
    signals noted are raised again once the previous handlers are back."""
    mask = getattr(signal, "pthread_sigmask", None)
    held: list[int] = []
    replaced: dict[int, object] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in _SIGNALS:
            current = signal.getsignal(signum)
            if current is not None and current != signal.SIG_IGN:
                replaced[signum] = signal.signal(signum, lambda s, _frame: held.append(s))
    old = mask(signal.SIG_BLOCK, _SIGNALS) if mask is not None else None
    try:
        yield
    finally:
        if mask is not None and old is not None:
            mask(signal.SIG_SETMASK, old)
        for number, handler in replaced.items():
            signal.signal(number, handler)  # type: ignore[arg-type]
        for number in dict.fromkeys(held):
            signal.raise_signal(number)


def os_reason(exc: OSError) -> str:
    """An OS error's reason in words, lower-case ("no space left on device")."""
    if exc.errno == errno.ENOSPC:
        return "no space left on device"
    if exc.errno == errno.EFBIG:
        return "file too large (a file-size limit or a full disk)"
    if exc.strerror:
        return exc.strerror[0].lower() + exc.strerror[1:]
    return str(exc) or type(exc).__name__


def output_error(path: str | os.PathLike[str], exc: OSError) -> OutputError:
    """The :class:`OutputError` of an OS fault while writing ``path`` (the OS's error kept as
    ``__cause__`` by the caller's ``raise ... from``)."""
    text = os.fspath(path)
    parent = os.path.dirname(os.path.abspath(text))
    if exc.errno == errno.ENOENT:
        if not os.path.isdir(parent):
            return OutputError(f"cannot write {text!r}: the folder {parent!r} does not exist")
        return OutputError(f"cannot write {text!r}: no file can be created in {parent!r}")
    if exc.errno == errno.ENOTDIR:
        return OutputError(f"cannot write {text!r}: a part of its folder {parent!r} is not a folder")
    if exc.errno == errno.EISDIR or os.path.isdir(text):
        return OutputError(f"cannot write {text!r}: it is a directory")
    return OutputError(f"cannot write {text!r}: {os_reason(exc)}")


def _target(path: Path) -> Path:
    """The file to replace: a symbolic link's target (so that the link survives); a link to a
    device, pipe or socket (``/dev/stdout`` when standard output is a pipe) is written through
    as it is."""
    if not path.is_symlink():
        return path
    try:
        behind = path.stat()
    except OSError:
        behind = None
    if behind is not None and not stat.S_ISREG(behind.st_mode):
        return path
    return Path(os.path.realpath(path))


def _check_writable(shown: str, target: Path) -> os.stat_result | None:
    """The target's status (None when it does not exist yet), after refusing what cannot be
    written: a missing folder, a directory, a file without write permission."""
    parent = target.parent
    if not parent.is_dir():
        where = os.path.abspath(parent)
        if parent.exists():
            raise OutputError(f"cannot write {shown!r}: {where!r} is not a folder")
        raise OutputError(f"cannot write {shown!r}: the folder {where!r} does not exist")
    try:
        status = target.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise output_error(shown, exc) from exc
    if stat.S_ISDIR(status.st_mode):
        raise OutputError(f"cannot write {shown!r}: it is a directory")
    if stat.S_ISREG(status.st_mode) and not os.access(target, os.W_OK):
        raise OutputError(f"cannot write {shown!r}: permission denied (the file is read-only)")
    return status


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not every file system lets a folder be synced
        _fsync(folder)


def _remove(paths: Iterable[Path]) -> None:
    for p in paths:
        with contextlib.suppress(OSError):
            os.unlink(p)


@contextlib.contextmanager
def atomic_paths(paths: Sequence[str | os.PathLike[str]]) -> Iterator[list[Path]]:
    """Yield one temporary path per target (each in its target's folder); when the block ends
    without an exception, each is flushed to disk and renamed over its target, one after the
    other; on any exception (Ctrl-C and ``SystemExit`` included) every temporary file is
    removed and no target is touched. OS faults are raised as :class:`OutputError` naming the
    target. A target that is not a regular file (a device, a FIFO) is yielded as itself and
    written in place."""
    shown = [os.fspath(p) for p in paths]
    targets = [_target(Path(p)) for p in shown]
    statuses = [_check_writable(s, t) for s, t in zip(shown, targets, strict=True)]
    in_place = [st is not None and not stat.S_ISREG(st.st_mode) for st in statuses]
    temps: list[Path] = []  # the paths yielded, target by target
    import secrets  # here, not at the top: only a command writing a file needs it

    current = 0  # the target being worked on, for the error's message (-1: the caller's block)
    try:
        with _signals_deferred():
            for current, target in enumerate(targets):
                if in_place[current]:
                    temps.append(target)
                    continue
                tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
                flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
                temps.append(tmp)  # before it exists: whatever stops us then, it is removed
                os.close(os.open(tmp, flags, 0o666))
                status = statuses[current]
                if status is not None:  # keep the permissions of the file it replaces
                    os.chmod(tmp, stat.S_IMODE(status.st_mode))
        current = -1
        yield list(temps)
        for current, tmp in enumerate(temps):
            if not in_place[current]:
                _fsync(tmp)
        with _signals_deferred():
            for current, tmp in enumerate(temps):
                if not in_place[current]:
                    os.replace(tmp, targets[current])
            replaced = [t for t, place in zip(targets, in_place, strict=True) if not place]
            for folder in dict.fromkeys(t.parent for t in replaced):
                _fsync_folder(folder)
    except BaseException as exc:
        with _signals_deferred():
            _remove(t for t, place in zip(temps, in_place, strict=False) if not place)
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            at = current if current >= 0 else _guilty(exc, temps)
            raise output_error(shown[at], exc) from exc
        raise


def _guilty(exc: OSError, temps: list[Path]) -> int:
    """The index of the target an OS error raised by the caller's block is about."""
    for i, tmp in enumerate(temps):
        if exc.filename is not None and os.fspath(exc.filename) == os.fspath(tmp):
            return i
    return 0


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; renamed over ``path`` when the block completes,
    removed on any exception (see :func:`atomic_paths`)."""
    with atomic_paths([path]) as (tmp,):
        yield tmp


def write_text_atomic(path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` whole or not at all."""
    write_lines_atomic(path, [text], encoding=encoding)


def replace_marked(path: str | os.PathLike[str], name: str, text: str) -> None:
    """Replace what lies between the lines ``<!-- name:start -->`` and ``<!-- name:end -->`` of
    the file at ``path`` (a README's generated table) with ``text``, writing the file whole or not
    at all; an :class:`~rankwise.errors.OutputError` when the two markers are not both there
    (never a file cut short at a missing end)."""
    start, end = f"<!-- {name}:start -->\n", f"\n<!-- {name}:end -->"
    with open(path, encoding="utf-8") as fh:
        whole = fh.read()
    head, found, rest = whole.partition(start)
    _, ended, tail = ("\n" + rest).partition(end)
    if not found or not ended:
        raise OutputError(f"{os.fspath(path)}: the markers {start.strip()} and {end.strip()} are not both there")
    write_text_atomic(path, head + start + text + end + tail)


def write_lines_atomic(path: str | os.PathLike[str], chunks: Iterable[str], *, encoding: str = "utf-8") -> None:
    """Write the strings of ``chunks`` (written as they come, e.g. from a generator) one after
    the other to ``path``, whole or not at all."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding=encoding) as fh:
        for chunk in chunks:
            fh.write(chunk)


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all."""
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        fh.write(data)


def visible(text: str) -> str:
    r"""``text`` for a terminal: every character that is not printable (control characters such
    as ESC, line breaks and tabs, DEL, C1 controls, Unicode format characters such as the
    bidirectional overrides) written as Python's ``repr`` writes it, without the quotes; the
    rest, backslashes included, as it is. Machine formats (CSV, JSON, Parquet, TREC) keep the
    bytes: only what is shown to people is escaped.

    >>> print(visible("q1\x1b[31m red\u202e"))
    q1\x1b[31m red\u202e
    >>> visible("plain id")
    'plain id'
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
