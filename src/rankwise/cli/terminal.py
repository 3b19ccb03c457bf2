"""The command line's terminal: standard output and error, signals and exit codes.

Errors are one line on stderr and exit code 2 (``--debug`` shows the traceback); Ctrl-C exits
with 130 and SIGTERM with 143, and no output file is then left half-written: every file is
written to a temporary file beside it and renamed into place once complete
(:mod:`rankwise.outputs.files`). :func:`run` runs a command so.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from types import FrameType
from typing import TextIO

from rankwise import _start
from rankwise.errors import RankwiseError, RankwiseWarning, hint_style
from rankwise.outputs import progress
from rankwise.outputs.files import os_reason, visible

Command = Callable[[argparse.Namespace], int]
"""A command: given its parsed arguments, it does its work and gives its exit code."""


def progress_line(args: argparse.Namespace, message: str) -> None:
    """A status line on a terminal; nothing when stderr is piped or with --quiet."""
    if _shows_progress(args):
        say(f"rankwise: {message}")


def _shows_progress(args: argparse.Namespace) -> bool:
    """Progress is shown on a terminal's stderr only, and not with --quiet."""
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


def _displayed(command: Command, args: argparse.Namespace) -> int:
    """The command, with its progress shown live on a terminal (:mod:`rankwise.outputs.progress`)."""
    if not _shows_progress(args):
        return int(command(args))
    import shutil

    with progress.displayed(sys.stderr, width=shutil.get_terminal_size((100, 24)).columns - 1):
        return int(command(args))


class StdoutError(OSError):
    """Standard output could not be written (e.g. ``> /dev/full``)."""


def to_stdout(chunks: Iterable[str]) -> None:
    """Write to standard output; an OS fault (other than the reader leaving) is a
    :class:`StdoutError`."""
    try:
        for chunk in chunks:
            sys.stdout.write(chunk)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise StdoutError(exc.errno, exc.strerror) from exc


class _Terminated(SystemExit):
    """Raised by the SIGTERM handler of :func:`run`: unwinds the stack, so that a file being
    written is removed (its temporary file) rather than left half-written."""


_Handler = Callable[[int, FrameType | None], object] | int | None

_SIGNALS_SEEN: list[int] = []
"""The signals (SIGINT, SIGTERM) received while :func:`run` runs. An engine may turn the
exception a handler raises into its own error (DuckDB: "Query interrupted"); the command still
exits as interrupted (130) or terminated (143)."""


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    _SIGNALS_SEEN.append(signum)
    raise KeyboardInterrupt


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    _SIGNALS_SEEN.append(signum)
    raise _Terminated(128 + signum)


@contextlib.contextmanager
def _signals_unwind() -> Iterator[None]:
    """For the duration, SIGINT raises KeyboardInterrupt and SIGTERM :class:`_Terminated`,
    each noted in :data:`_SIGNALS_SEEN`; a signal the caller ignores stays ignored (the
    start-up's handler, :func:`rankwise._start.guard`, is replaced, and restored after). Main
    thread only (elsewhere Python lets no handler be set)."""
    wanted: list[tuple[signal.Signals, _Handler, tuple[_Handler, ...]]] = [
        (signal.SIGINT, _on_sigint, (signal.default_int_handler, _start.interrupted)),
        (signal.SIGTERM, _on_sigterm, (signal.SIG_DFL,)),
    ]
    previous: list[tuple[signal.Signals, _Handler]] = []
    _SIGNALS_SEEN.clear()
    try:
        for signum, ours, usual in wanted:
            if signal.getsignal(signum) in usual:
                previous.append((signum, signal.signal(signum, ours)))
    except ValueError:  # not the main thread
        pass
    try:
        yield
    finally:
        for signum, theirs in previous:
            signal.signal(signum, theirs)


def _interrupted(exc: BaseException) -> int | None:
    """The exit code when a signal stopped the command (130 SIGINT, 143 SIGTERM), else None."""
    if isinstance(exc, _Terminated) or signal.SIGTERM in _SIGNALS_SEEN:
        return 128 + signal.SIGTERM
    if isinstance(exc, KeyboardInterrupt) or signal.SIGINT in _SIGNALS_SEEN:
        return 128 + signal.SIGINT
    return None


def _one_line(text: str) -> str:
    """A message on one line: its lines joined."""
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def _first_line(text: str) -> str:
    """The first non-empty line of a foreign message (engines append hints and plans)."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _os_message(exc: OSError) -> str:
    reason = os_reason(exc)
    names = [os.fspath(n) for n in (exc.filename, exc.filename2) if n is not None]
    return f"{' -> '.join(repr(n) for n in names)}: {reason}" if names else reason


def _warning_line(
    message: Warning | str, category: type[Warning], filename: str, lineno: int,
    file: TextIO | None = None, line: str | None = None,
) -> None:
    """Warnings (the engines' included) as one line each, not Python's two-line form."""
    text = _one_line(str(message))
    kind = "" if issubclass(category, RankwiseWarning) else f"{category.__name__}: "
    say(f"rankwise: warning: {kind}{text}")


def say(line: str) -> None:
    """One line on stderr (an id or a name in it shown :func:`~rankwise.outputs.files.visible`)."""
    progress.clear()  # the live status line, if one is shown, gives way
    with contextlib.suppress(Exception):
        print(visible(line), file=sys.stderr, flush=True)


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that Python's flush at exit, too, is quiet."""
    with contextlib.suppress(Exception):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _error_line(exc: Exception) -> str:
    """The one line of an error: rankwise's own message, an OS fault with its file, or (the
    last resort) the exception's type and the first line of its message."""
    if isinstance(exc, RankwiseError):
        return f"rankwise: error: {_one_line(str(exc))}"
    if isinstance(exc, StdoutError):
        return f"rankwise: error: cannot write to standard output: {_os_message(exc)}"
    if isinstance(exc, OSError):
        return f"rankwise: error: {_os_message(exc)}"
    detail = _first_line(str(exc))
    return f"rankwise: error: {type(exc).__name__}{': ' + detail if detail else ''} (run with --debug for the traceback)"


def run(
    argv: Sequence[str] | None, parse: Callable[[Sequence[str] | None], argparse.Namespace],
    pick: Callable[[argparse.Namespace], Command],
) -> int:
    """Parse the command line ``argv`` (None: the process's) with ``parse`` and run the command
    ``pick`` picks for the arguments, its warnings one line each, its hints naming the
    command line's flags and its progress shown on a terminal; the exit code.

    Exit codes: 0 done; 2 an error (one line on stderr, ``rankwise: error: ...``; usage errors
    too); 130 interrupted (Ctrl-C, SIGINT); 143 terminated (SIGTERM). No fault prints a
    traceback unless ``--debug`` is given. Output files are written whole or not at all.
    """
    debug = False
    with _signals_unwind(), warnings.catch_warnings():
        warnings.showwarning = _warning_line
        try:
            args = parse(argv)
            args.argv = list(sys.argv[1:] if argv is None else argv)  # the report's provenance names the command
            debug = bool(getattr(args, "debug", False))
            with hint_style("flags"):  # hints name the command line's flags
                code = _displayed(pick(args), args)
            to_stdout([])  # flushed here, so that a fault is reported here
            return code
        except BrokenPipeError:  # e.g. `rankwise metrics | head`: the reader left, stop quietly
            _silence_stdout()
            return 0
        except BaseException as exc:
            stopped = _interrupted(exc)
            if stopped is not None:
                if debug and not isinstance(exc, _Terminated):
                    raise
                say("rankwise: terminated" if stopped == 128 + signal.SIGTERM else "rankwise: interrupted")
                return stopped
            if debug or not isinstance(exc, Exception):  # SystemExit and the like pass
                raise
            if isinstance(exc, StdoutError):
                _silence_stdout()
            say(_error_line(exc))
            return 2
