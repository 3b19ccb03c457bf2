"""Progress of long work (reading, query groups, runs, figures, the report), shown live on a
terminal by the command line and silent everywhere else.

The library marks its steps with :func:`task`; nothing is shown unless a display is active
(:func:`displayed`, which ``rankwise`` opens on a terminal's stderr unless ``--quiet``). Tasks
nest (run 2/3, then query group 4/10 within it); the line shows each level, the elapsed time
and, once a counted step is done, an estimate of the time left from the fraction done.

>>> with task("query groups", total=3) as t:  # no display: nothing is printed
...     for i in range(3):
...         t.at(i, detail=f"group {i}")
>>> import io
>>> out = io.StringIO()
>>> with displayed(out, width=60, live=False) as shown:
...     with task("runs", total=2) as t:
...         t.at(1, detail="bm25")
>>> shown.last
'rankwise: runs 2/2 (bm25) · 0 s'
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TextIO

from rankwise.outputs.files import visible


@dataclass
class Task:
    """One step of the work: ``done`` of ``total`` parts finished (``total`` None: uncounted)."""

    label: str
    total: int | None = None
    done: int = 0
    detail: str = ""
    _display: Display | None = field(default=None, repr=False)

    def at(self, done: int, *, detail: str = "") -> None:
        """Working on part ``done + 1`` (``done`` parts finished), e.g. ``detail`` = its name."""
        self.done, self.detail = done, detail
        if self._display is not None:
            self._display.refresh(force=True)

    def describe(self) -> str:
        counted = f" {min(self.done + 1, self.total)}/{self.total}" if self.total else ""
        # the detail is often a run's name: a control character in it is shown, not obeyed
        return self.label + counted + (f" ({visible(self.detail)})" if self.detail else "")


def _fraction(tasks: list[Task]) -> float | None:
    """The fraction of the outermost counted task done, refined by the counted tasks within it."""
    counted = [t for t in tasks if t.total]
    if not counted:
        return None
    fraction = 0.0
    for t in reversed(counted):
        assert t.total is not None
        fraction = min(1.0, (t.done + fraction) / t.total)
    return fraction


def _seconds(s: float) -> str:
    return f"{s:.0f} s" if s < 90 else f"{s / 60:.1f} min"


class Display:
    """A status line rewritten in place on ``stream`` (a terminal): ``rankwise: <tasks> ·
    <elapsed> [· about <left> left]``. With ``live``, a background thread redraws it twice a
    second so that the elapsed time moves during long steps."""

    def __init__(self, stream: TextIO, width: int, live: bool) -> None:
        self.stream, self.width = stream, width
        self.tasks: list[Task] = []
        self.started = time.monotonic()
        self.last = ""
        self._estimate: tuple[float, float] | None = None
        self._lock = threading.Lock()
        self._drawn = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tick, daemon=True) if live else None
        if self._thread is not None:
            self._thread.start()

    def _tick(self) -> None:
        while not self._stop.wait(0.5):
            self.refresh()

    def line(self, event: bool = False) -> str:
        """The status line; at an ``event`` (a step begun or ended) the time left is estimated
        again from the fraction done, and between events it counts down from that estimate
        (so it does not climb while one long step runs)."""
        now = time.monotonic()
        elapsed = now - self.started
        text = "rankwise: " + " · ".join(t.describe() for t in self.tasks) + f" · {_seconds(elapsed)}"
        if event:
            fraction = _fraction(self.tasks)
            known = fraction is not None and 0 < fraction < 1 and elapsed > 1
            self._estimate = (now, elapsed * (1 - fraction) / fraction) if known and fraction else None
        if self._estimate is not None:
            left = self._estimate[1] - (now - self._estimate[0])
            if left >= 1:
                text += f" · about {_seconds(left)} left"
        return text if len(text) <= self.width else text[: self.width - 1] + "…"

    def refresh(self, force: bool = False) -> None:
        with self._lock:
            now = time.monotonic()
            if not self.tasks or (not force and now - self._drawn < 0.1):
                return
            self.last = self.line(event=force)
            self._drawn = now
            with contextlib.suppress(Exception):
                self.stream.write("\r\x1b[2K" + self.last)
                self.stream.flush()

    def clear(self) -> None:
        """Erase the status line (before a warning is printed, and at the end)."""
        with self._lock, contextlib.suppress(Exception):
            self.stream.write("\r\x1b[2K")
            self.stream.flush()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.clear()


_DISPLAY: ContextVar[Display | None] = ContextVar("rankwise_progress", default=None)


@contextlib.contextmanager
def task(label: str, total: int | None = None) -> Iterator[Task]:
    """A step of the work, shown while it lasts when a display is active."""
    display = _DISPLAY.get()
    t = Task(label, total, _display=display)
    if display is None:
        yield t
        return
    display.tasks.append(t)
    display.refresh(force=True)
    try:
        yield t
    finally:
        display.tasks.remove(t)
        display.refresh(force=True)


@contextlib.contextmanager
def displayed(stream: TextIO, *, width: int = 100, live: bool = True) -> Iterator[Display]:
    """Show the progress of the work done inside on ``stream``; the line is erased at the end."""
    display = Display(stream, width, live)
    token = _DISPLAY.set(display)
    try:
        yield display
    finally:
        _DISPLAY.reset(token)
        display.close()


def clear() -> None:
    """Erase the status line, if one is shown (so that a message can be printed)."""
    display = _DISPLAY.get()
    if display is not None:
        display.clear()
