"""The command line's start-up: Ctrl-C while the ``rankwise`` command is still importing.

The ``rankwise`` script (``rankwise = "rankwise.cli:main"``) and ``python -m rankwise.cli``
import the package, Polars and the command's modules before :func:`rankwise.cli.commands.main` runs
and installs its signal handlers; Python's own handler would raise ``KeyboardInterrupt``
anywhere in those imports and print its traceback. :func:`guard`, the first thing
``import rankwise`` does, installs a handler that ends such a process at once, as interrupted
(exit 130, one line ``rankwise: interrupted``): nothing has been read or written yet. It acts
only when the process is the command (:func:`is_command`); a program that imports rankwise
keeps Python's ``KeyboardInterrupt``. Standard library only, imported before anything else.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from types import FrameType

_OPTIONS_WITH_VALUE = frozenset({"-X", "-W", "-Q"})
"""The interpreter's options that take the next argument as their value."""


def is_command(argv: list[str]) -> bool:
    """Whether the interpreter's command line ``argv`` (``sys.orig_argv``) runs the command:
    the ``rankwise`` script (its file named ``rankwise``, ``rankwise.exe`` or
    ``rankwise-script.py``) or ``-m rankwise.cli``.

    >>> is_command(["/usr/bin/python3", "/usr/local/bin/rankwise", "eval", "q", "r"])
    True
    >>> is_command(["python", "-X", "importtime", "-m", "rankwise.cli", "eval"])
    True
    >>> is_command(["python", "-c", "import rankwise"]), is_command(["python", "-m", "pytest"])
    (False, False)
    """
    args = iter(argv[1:])
    for arg in args:
        if arg == "-m":
            return next(args, None) == "rankwise.cli"
        if arg == "-c" or arg == "-":
            return False
        if arg in _OPTIONS_WITH_VALUE:
            next(args, None)
            continue
        if arg.startswith("-"):
            continue
        name = os.path.basename(arg)
        return name in ("rankwise", "rankwise.exe", "rankwise-script.py")
    return False


def interrupted(signum: int, frame: FrameType | None) -> None:
    """The start-up's SIGINT handler: say so on stderr and end the process with 128 + SIGINT
    (130) at once, without unwinding half-done imports."""
    try:
        os.write(2, b"rankwise: interrupted\n")
    finally:
        os._exit(128 + signum)


def guard() -> None:
    """Install :func:`interrupted` for SIGINT when this process is the ``rankwise`` command and
    SIGINT has Python's default handler (a caller that ignores SIGINT keeps ignoring it);
    :func:`rankwise.cli.terminal.run` (the command's main) replaces it while it runs and restores it when it returns."""
    argv = getattr(sys, "orig_argv", sys.argv)
    if is_command(list(argv)) and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        with contextlib.suppress(ValueError):  # not the main thread: Python allows no handler there
            signal.signal(signal.SIGINT, interrupted)
