"""Progress of long work (reading, query groups, runs, statistics, figures, the report,
writing), shown live on a terminal by the command line and silent everywhere else.

The library marks its steps with :func:`task`; nothing is shown unless a display is active
(:func:`displayed`, which ``rankwise`` opens on a terminal's stderr unless ``--quiet``). Tasks
nest (run 2/3, then query group 4/10 within it); the line shows each level, the elapsed time
and, once it means something, an estimate of the time left (:func:`time_left`). A task counts
steps (``runs 2/3``) or an amount read (``reading run.trec 41/218 MB``, ``unit="bytes"``;
``unit="rows"``); the line is drawn as a task begins and redrawn twice a second, so that a
step longer than half a second always shows, and it is erased whenever no task is open (no
line outlives the step it names).

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
>>> with displayed(out, width=60, live=False) as shown:
...     with task("reading run.trec", total=218_000_000, unit="bytes") as t:
...         t.at(41_000_000)
>>> shown.last
'rankwise: reading run.trec 41/218 MB · 0 s'
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Literal, TextIO, TypeVar

from rankwise.outputs.files import visible

T = TypeVar("T")

Unit = Literal["steps", "bytes", "rows"]
"""What a task counts: steps (runs, query groups; shown ``i/n``), or an amount read (bytes of
a file, rows)."""

Clock = Callable[[], float]
"""Seconds on a monotonic clock (:func:`time.monotonic`; a test gives its own)."""

MIN_PHASE_SECONDS = 2.0
"""No time left is estimated before a phase has run this long ..."""
MIN_FRACTION = 0.05
"""... nor before this fraction of it is done."""
SMOOTHING = 0.5
"""Weight of the new rate-based estimate against the previous estimate counted down."""


@dataclass
class Task:
    """One step of the work: ``done`` of ``total`` finished (``total`` None: not known), in
    ``unit``; ``started``: when it began, on the display's clock."""

    label: str
    total: int | None = None
    done: int = 0
    detail: str = ""
    unit: Unit = "steps"
    started: float = 0.0
    _display: Display | None = field(default=None, repr=False)

    def at(self, done: int, *, detail: str = "") -> None:
        """Steps: working on part ``done + 1`` (``done`` parts finished), e.g. ``detail`` = its
        name; an amount: ``done`` bytes or rows read so far."""
        self.done, self.detail = done, detail
        if self._display is not None:
            self._display.refresh(force=True)

    def describe(self) -> str:
        """The task as the line shows it: ``runs 2/3 (bm25)``, ``reading run.trec 41/218 MB``."""
        if self.unit == "steps":
            counted = f" {min(self.done + 1, self.total)}/{self.total}" if self.total else ""
        else:
            counted = " " + _amount(self.done, self.total, self.unit)
        # a label may hold a file's name, the detail a run's: a control character is shown, not obeyed
        return visible(self.label) + counted + (f" ({visible(self.detail)})" if self.detail else "")


_SIZES = ((1e9, "GB"), (1e6, "MB"), (1e3, "kB"), (1.0, "B"))


def _amount(done: int, total: int | None, unit: Unit) -> str:
    """``41/218 MB`` (both in the total's unit), ``41 MB`` (no total); ``1,200/5,000 rows``."""
    if unit == "rows":
        return f"{done:,}/{total:,} rows" if total else f"{done:,} rows"
    scale, name = next((s, n) for s, n in _SIZES if max(done, total or 0) >= s or s == 1.0)

    def shown(n: int) -> str:
        value = n / scale
        return f"{value:.1f}" if 0 < value < 10 and scale > 1.0 else f"{value:.0f}"

    return f"{shown(done)}/{shown(total)} {name}" if total else f"{shown(done)} {name}"


def _fraction(tasks: list[Task]) -> float | None:
    """The fraction of the phase (the first task, the outermost counted one) done, refined by
    the counted steps within it (a run's query groups); an amount read within a step (a
    file's bytes within a run) does not refine it, as its share of the step is not known."""
    if not tasks or not tasks[0].total:
        return None
    chain = [tasks[0]]
    for t in tasks[1:]:
        if t.unit != "steps" or not t.total or chain[-1].unit != "steps":
            break
        chain.append(t)
    fraction = 0.0
    for t in reversed(chain):
        assert t.total is not None
        fraction = min(1.0, (t.done + fraction) / t.total)
    return fraction


@dataclass(frozen=True)
class Estimate:
    """``seconds`` left as estimated at time ``at``."""

    at: float
    seconds: float


def time_left(now: float, started: float, fraction: float | None, previous: Estimate | None) -> Estimate | None:
    """The time left in a phase begun at ``started`` with ``fraction`` of it done at ``now``,
    or None when an estimate would mean nothing.

    The rule: no estimate without a known total (``fraction`` None), before the phase has run
    :data:`MIN_PHASE_SECONDS` (2 s) or before :data:`MIN_FRACTION` (5 %) of it is done, nor
    once it is all done. The rate-based estimate is the phase's own mean rate so far applied to
    what remains, ``elapsed * (1 - fraction) / fraction`` (the phase's time only: what came
    before it never inflates it). It is smoothed with the ``previous`` estimate counted down to
    ``now`` (weight :data:`SMOOTHING`), so that one slow step does not make it leap, and it is
    never longer than the rate-based estimate itself (a quicker rate shows at once).

    >>> time_left(now=1.5, started=0.0, fraction=0.5, previous=None) is None  # too early
    True
    >>> time_left(now=10.0, started=0.0, fraction=0.04, previous=None) is None  # too little done
    True
    >>> time_left(now=10.0, started=0.0, fraction=0.5, previous=None)
    Estimate(at=10.0, seconds=10.0)
    >>> time_left(now=12.0, started=0.0, fraction=0.5, previous=Estimate(10.0, 10.0))  # 8 s counted down, 12 s by the rate
    Estimate(at=12.0, seconds=10.0)
    """
    if fraction is None or not MIN_FRACTION <= fraction < 1:
        return None
    elapsed = now - started
    if elapsed < MIN_PHASE_SECONDS:
        return None
    by_rate = elapsed * (1 - fraction) / fraction
    if previous is None:
        return Estimate(now, by_rate)
    counted_down = max(0.0, previous.seconds - (now - previous.at))
    return Estimate(now, min(by_rate, SMOOTHING * by_rate + (1 - SMOOTHING) * counted_down))


def _seconds(s: float) -> str:
    return f"{s:.0f} s" if s < 90 else f"{s / 60:.1f} min"


class Display:
    """A status line rewritten in place on ``stream`` (a terminal): ``rankwise: <tasks> ·
    <elapsed> [· about <left> left]``, erased whenever no task is open. With ``live``, a
    background thread redraws it twice a second so that the elapsed time moves during long
    steps. ``clock``: where the time comes from."""

    def __init__(self, stream: TextIO, width: int, live: bool, clock: Clock = time.monotonic) -> None:
        self.stream, self.width, self.clock = stream, width, clock
        self.tasks: list[Task] = []
        self.started = clock()
        self.last = ""
        """The last line drawn (kept once erased)."""
        self._shown = False
        self._estimate: tuple[Task, Estimate] | None = None
        self._done: tuple[Task, float] | None = None
        """The phase's fraction done, as far as it was seen."""
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
        """The status line; at an ``event`` (a step begun, advanced or ended) the time left in
        the phase (the outermost counted task) is estimated again (:func:`time_left`), and
        between events it counts down from that estimate (so it does not climb while one long
        step runs). A new phase starts with no estimate."""
        now = self.clock()
        text = "rankwise: " + " · ".join(t.describe() for t in self.tasks) + f" · {_seconds(now - self.started)}"
        counted = [i for i, t in enumerate(self.tasks) if t.total]
        phase = self.tasks[counted[0]] if counted else None
        if self._estimate is not None and self._estimate[0] is not phase:
            self._estimate = None
        if self._done is not None and self._done[0] is not phase:
            self._done = None
        if event and phase is not None:
            previous = self._estimate[1] if self._estimate is not None else None
            fraction = _fraction(self.tasks[counted[0]:])
            if fraction is not None:
                # never back: a step's counted parts (a run's query groups) ended, not undone
                fraction = max(fraction, self._done[1] if self._done is not None else 0.0)
                self._done = (phase, fraction)
            made = time_left(now, phase.started, fraction, previous)
            self._estimate = (phase, made) if made is not None else None
        if self._estimate is not None:
            estimate = self._estimate[1]
            left = estimate.seconds - (now - estimate.at)
            if left >= 1:
                text += f" · about {_seconds(left)} left"
        return text if len(text) <= self.width else text[: self.width - 1] + "…"

    def refresh(self, force: bool = False) -> None:
        """Redraw the line (``force``: at an event; else at most ten times a second); with no
        task open, erase it."""
        with self._lock:
            now = self.clock()
            if not self.tasks:
                self._estimate = None
                if self._shown:
                    self._erase()
                return
            if not force and now - self._drawn < 0.1:
                return
            self.last = self.line(event=force)
            self._drawn = now
            with contextlib.suppress(Exception):
                self.stream.write("\r\x1b[2K" + self.last)
                self.stream.flush()
                self._shown = True

    def _erase(self) -> None:
        with contextlib.suppress(Exception):
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
        self._shown = False

    def clear(self) -> None:
        """Erase the status line (before a warning is printed, and at the end)."""
        with self._lock:
            self._erase()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.clear()


_DISPLAY: ContextVar[Display | None] = ContextVar("rankwise_progress", default=None)


@contextlib.contextmanager
def task(label: str, total: int | None = None, *, unit: Unit = "steps") -> Iterator[Task]:
    """A step of the work, shown while it lasts when a display is active: ``total`` steps, or
    an amount of ``unit`` (bytes, rows) to read; None: not known."""
    display = _DISPLAY.get()
    t = Task(label, total, unit=unit, _display=display)
    if display is None:
        yield t
        return
    t.started = display.clock()
    display.tasks.append(t)
    display.refresh(force=True)
    try:
        yield t
    finally:
        display.tasks.remove(t)
        display.refresh(force=True)


def each(label: str, items: Iterable[T], total: int | None = None) -> Iterator[T]:
    """The ``items``, with a task ``label`` shown while they are gone through (``total``: how
    many there are, when known: shown ``i/n``); the task ends with the last item, or when the
    loop is left."""
    with task(label, total) as t:
        for i, item in enumerate(items):
            t.at(i)
            yield item


@contextlib.contextmanager
def displayed(
    stream: TextIO, *, width: int = 100, live: bool = True, clock: Clock = time.monotonic
) -> Iterator[Display]:
    """Show the progress of the work done inside on ``stream``; the line is erased at the end."""
    display = Display(stream, width, live, clock)
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
