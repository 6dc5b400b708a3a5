"""The bench's harness: what a measurement is (:class:`Work`), what it produced (:class:`Count`), how it is
timed (:func:`timed`, medians of repeats interleaved across a section) and what came out (:class:`Measure`);
the progress reports (:class:`Tracker`: percent done and time left, redrawn while the work runs) and the
bounds every entry point checks its counts against."""

from __future__ import annotations

import contextlib
import math
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple, Optional, final

import numpy as np
import numpy.typing as npt

from ..errors import NardyError, field_error
from ..inputs import integer

__all__ = [
    "Rows",
    "Progress",
    "DEFAULT_REPEATS",
    "MIN_SECONDS",
    "SEED",
    "Count",
    "total",
    "Measure",
    "Work",
    "quiet",
    "stderr_progress",
    "TICK_SECONDS",
    "REDRAW_SECONDS",
    "clock_text",
    "Tracker",
    "stage",
    "timing_estimate",
    "timed_estimate",
    "timed",
    "bounded",
]

#: Packed positions (or their rolls), one a row, as the corpus and ``batch_children`` hold them.
Rows = npt.NDArray[np.int8]
#: Where a measurement reports what it is doing: called with one line of text at each step.
Progress = Callable[[str], None]
#: Timed repeats of every measurement by default: each figure is their median (``--long`` takes five).
DEFAULT_REPEATS = 3
#: A timing shorter than this repeats the work in a row, so that timer and scheduler noise stay small.
MIN_SECONDS = 0.05
#: The seed of the dice of every game the bench plays.
SEED = 2026


class Count(NamedTuple):
    """What one run of a measurement produced: ``items`` (positions searched or games played) and ``plays``
    (children generated or plies played)."""

    items: int
    plays: int


def total(counts: Sequence[Count]) -> Count:
    """The sum of ``counts``: what the parts of one piece of work produced together."""
    return Count(sum(c.items for c in counts), sum(c.plays for c in counts))


class Measure:
    """One timed measurement: items (positions or games) and plays (children or plies) per second, median
    over repeats; ``cpu_samples`` are the process's CPU seconds (all threads) in the same repeats. A sample is
    the seconds of one run of the work."""

    def __init__(
        self,
        label: str,
        positions: int,
        plays: int,
        samples: list[float],
        cpu_samples: Optional[list[float]] = None,
    ) -> None:
        self.label = label
        self.positions = positions
        self.plays = plays
        self.samples = samples
        self.cpu_samples = cpu_samples if cpu_samples is not None else samples
        self.seconds = statistics.median(samples)

    @property
    def positions_per_second(self) -> float:
        """Positions searched (or games played) per second."""
        return self.positions / self.seconds

    @property
    def plays_per_second(self) -> float:
        """Plays (children, or plies) per second."""
        return self.plays / self.seconds

    def speedup(self, other: Measure) -> float:
        """Items/s over ``other``'s: the median of the ratios within repeats."""
        return statistics.median(
            (self.positions / mine) / (other.positions / theirs)
            for mine, theirs in zip(self.samples, other.samples)
        )

    def cpu_ratio(self, other: Measure) -> float:
        """CPU time per item over ``other``'s, the median of the ratios within repeats: 1.0 for threads that
        do no more work together than one thread alone, whatever share of the cores the machine gives them."""
        return statistics.median(
            (mine / self.positions) / (theirs / other.positions)
            for mine, theirs in zip(self.cpu_samples, other.cpu_samples)
        )


class Work(NamedTuple):
    """A measurement to make: ``run`` does the work once and returns what it produced, which must be
    ``items`` positions or games (checked on every run)."""

    label: str
    run: Callable[[], Count]
    items: int
    #: run once, untimed, right before each timed run: for work on several cores, which a shared machine
    #: lends to other guests while they idle (one waking took milliseconds here)
    warm_up: bool = False
    #: the seconds one run is expected to take on a quiet machine (None: unknown, taken as
    #: :data:`MIN_SECONDS`), for the time left until the first run measures it
    estimate: Optional[float] = None


def quiet(message: str) -> None:
    """No progress report."""


def stderr_progress(message: str) -> None:
    """Progress on stderr: one line rewritten in place on a terminal, a line each elsewhere (logs)."""
    if sys.stderr.isatty():
        sys.stderr.write("\r\x1b[K" + message)
    else:
        sys.stderr.write(message + "\n")
    sys.stderr.flush()


def _checked(work: Work, count: Count) -> Count:
    if count.items != work.items:
        raise RuntimeError(f"{work.label}: claims {work.items} items but produced {count.items}")
    return count


def clock_text(seconds: float) -> str:
    """``m:ss`` (``h:mm:ss`` from an hour on)."""
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


#: How often the ticking thread looks at the progress line, and how long after its last redraw it draws it
#: again (it shows the seconds elapsed, so it moves every second even while one long measurement runs).
TICK_SECONDS = 0.25
REDRAW_SECONDS = 1.0 - TICK_SECONDS
#: The bounds of the factor that scales the estimates of the stages to come by how fast the stages done went
#: against theirs: one odd stage must not make the time left absurd.
_FACTOR_BOUNDS = (0.2, 10.0)


@final
class Tracker:
    """The progress of a whole run as one line handed to ``write`` (e.g. :func:`stderr_progress`): percent
    done, time elapsed, time left and the current step, ``[ 37% 0:22, about 0:38 left] <step>``.

    The run is planned as stages (:meth:`plan`: a name and the seconds it is expected to take on a quiet
    machine); :meth:`begin` and :meth:`end` mark one, :meth:`expect` refines the seconds left in the current
    one (``timed`` does, from the runs it has measured), and the stages to come are scaled by how much slower
    or faster than expected the stages done went. Calling the tracker with a message starts a new step
    (``Progress``'s signature, so it goes wherever a progress callable does). As a context manager it redraws
    the line every :data:`TICK_SECONDS` from a thread of its own (only when the text changed, so at most
    about once a second), and :meth:`emit` prints results to stdout between the redraws."""

    def __init__(
        self,
        write: Progress = stderr_progress,
        interval: float = TICK_SECONDS,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._write = write
        self._interval = interval
        self._clock = clock
        self._lock = threading.RLock()
        self._started = clock()
        self._planned: dict[str, float] = {}
        self._done_expected = 0.0
        self._done_seconds = 0.0
        self._stage: Optional[str] = None
        self._stage_started = self._started
        self._expected: Optional[tuple[float, float]] = None  # (seconds left in the stage, as of this time)
        self._message = ""
        self._percent = 0.0  # the most shown: the percent never goes back
        self._last = ""
        self._drawn = -math.inf
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None

    def plan(self, stages: Sequence[tuple[str, float]]) -> None:
        """Add stages to come: ``(name, seconds expected on a quiet machine)``."""
        with self._lock:
            for name, seconds in stages:
                self._planned[name] = max(0.0, float(seconds))

    def begin(self, name: str) -> None:
        """Stage ``name`` starts (one that was not planned is expected to take no time)."""
        with self._lock:
            self._stage = name
            self._stage_started = self._clock()
            self._expected = None

    def end(self) -> None:
        """The current stage is done: its time against its estimate scales the stages to come."""
        with self._lock:
            if self._stage is not None:
                self._done_expected += self._planned.pop(self._stage, 0.0)
                self._done_seconds += self._clock() - self._stage_started
            self._stage, self._expected = None, None

    def expect(self, seconds: float) -> None:
        """The current stage has about ``seconds`` left, as measured so far."""
        with self._lock:
            self._expected = (max(0.0, seconds), self._clock())

    def factor(self) -> float:
        """How much longer than expected the stages done took (1.0 before any is done)."""
        with self._lock:
            if self._done_expected <= 0:
                return 1.0
            low, high = _FACTOR_BOUNDS
            return min(high, max(low, self._done_seconds / self._done_expected))

    def left(self) -> float:
        """The seconds left: the current stage's, then those of the stages to come."""
        with self._lock:
            now, factor = self._clock(), self.factor()
            if self._expected is not None:
                seconds, since = self._expected
                current = max(0.0, seconds - (now - since))
            elif self._stage is not None:
                expected = self._planned.get(self._stage, 0.0) * factor
                current = max(0.0, expected - (now - self._stage_started))
            else:
                current = 0.0
            coming = sum(s for name, s in self._planned.items() if name != self._stage) * factor
            return current + coming

    def line(self) -> str:
        """The progress line now (its percent the most it has been: the time left may grow, the percent
        stands still meanwhile)."""
        with self._lock:
            elapsed = self._clock() - self._started
            left = self.left()
            # never 100% before the end: the last estimate may be short; never less than shown before: a
            # stage's runs may measure more time left than its plan said (61% then 59% read as a fault)
            percent = min(99.0, 100 * elapsed / (elapsed + left)) if elapsed + left > 0 else 0.0
            percent = self._percent = max(self._percent, percent)
            return f"[{percent:3.0f}% {clock_text(elapsed)}, about {clock_text(left)} left] {self._message}"

    def __call__(self, message: str) -> None:
        """A new step: ``message`` says what runs now; the line is redrawn at once."""
        with self._lock:
            self._message = message
            self._draw(force=True)

    def tick(self) -> None:
        """Redraw the line if its text changed and it was last drawn :data:`REDRAW_SECONDS` ago or more (the
        ticking thread calls it, so the line moves every second and a log gets a line a second)."""
        with self._lock:
            if self._clock() - self._drawn >= REDRAW_SECONDS:
                self._draw(force=False)

    def _draw(self, force: bool) -> None:
        text = self.line()
        if force or text != self._last:
            self._last = text
            self._drawn = self._clock()
            self._write(text)

    def emit(self, text: str) -> None:
        """Print ``text`` on stdout, not in the middle of a redraw of the progress line."""
        with self._lock:
            if sys.stderr.isatty() and self._write is stderr_progress:
                sys.stderr.write("\r\x1b[K")  # the line is drawn again at the next tick
                sys.stderr.flush()
                self._last = ""
            print(text, flush=True)

    def _ticking(self) -> None:
        while not self._stop.wait(self._interval):
            self.tick()

    def __enter__(self) -> Tracker:
        self._stop.clear()
        self._thread = threading.Thread(target=self._ticking, name="nardy_fast-bench-progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None


@contextlib.contextmanager
def stage(progress: Progress, name: str) -> Iterator[None]:
    """Mark stage ``name`` when ``progress`` is a :class:`Tracker` (any other progress callable has none)."""
    if not isinstance(progress, Tracker):
        yield
        return
    progress.begin(name)
    try:
        yield
    finally:
        progress.end()


def timing_estimate(estimate: Optional[float], warm_up: bool = False) -> float:
    """The seconds one timed run of a work is expected to take before it was measured (``estimate`` one
    run's, ``None`` unknown): at least :data:`MIN_SECONDS` (short work runs in a row), and its warm-up run."""
    seconds = MIN_SECONDS if estimate is None else estimate
    return max(MIN_SECONDS, seconds) + (seconds if warm_up else 0.0)


def timed_estimate(runs: Sequence[tuple[Optional[float], bool]], repeats: int) -> float:
    """The seconds :func:`timed` is expected to take on works of these ``(estimate, warm_up)`` on a quiet
    machine: each one's first run, then its timed runs."""
    first = sum(MIN_SECONDS if estimate is None else estimate for estimate, _ in runs)
    return first + repeats * sum(timing_estimate(estimate, warm_up) for estimate, warm_up in runs)


def timed(works: Sequence[Work], repeats: int, progress: Progress = quiet, where: str = "") -> list[Measure]:
    """Every work timed once per repeat, in turn, after one untimed run each (it warms the caches and
    says how many runs in a row make a timing of at least :data:`MIN_SECONDS`). A :class:`Tracker` as
    ``progress`` is told the seconds left as the runs measure them."""
    tracker = progress if isinstance(progress, Tracker) else None
    firsts = [MIN_SECONDS if w.estimate is None else w.estimate for w in works]
    timings = [timing_estimate(w.estimate, w.warm_up) for w in works]

    def expect(first_runs_done: int, timings_done: int) -> None:
        if tracker is not None:
            left = sum(firsts[first_runs_done:])
            left += sum(timings[i % len(works)] for i in range(timings_done, repeats * len(works)))
            tracker.expect(left)

    loops: list[int] = []
    plays = [0] * len(works)
    for i, work in enumerate(works):
        expect(i, 0)
        progress(f"{where}first run {i + 1}/{len(works)}: {work.label}")
        start = time.perf_counter()
        plays[i] = _checked(work, work.run()).plays
        seconds = time.perf_counter() - start
        loops.append(max(1, min(1000, math.ceil(MIN_SECONDS / max(seconds, 1e-9)))))
        timings[i] = loops[i] * seconds + (seconds if work.warm_up else 0.0)
    samples: list[list[float]] = [[] for _ in works]
    cpu_samples: list[list[float]] = [[] for _ in works]
    for repeat in range(repeats):
        for i, work in enumerate(works):
            expect(len(works), repeat * len(works) + i)
            progress(f"{where}repeat {repeat + 1}/{repeats}, {i + 1}/{len(works)}: {work.label}")
            if work.warm_up:
                work.run()
            start, cpu_start = time.perf_counter(), time.process_time()
            for _ in range(loops[i]):
                count = work.run()
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
            plays[i] = _checked(work, count).plays
            samples[i].append(seconds / loops[i])
            cpu_samples[i].append(cpu / loops[i])
    expect(len(works), repeats * len(works))
    return [
        Measure(work.label, work.items, plays[i], samples[i], cpu_samples[i]) for i, work in enumerate(works)
    ]


def bounded(field: str, value: object, low: int, high: int) -> int:
    """An integer ``low..high`` given to an entry point of the bench (``main``, the parallel measurements),
    else a ``NardyError`` naming ``field``."""
    number = integer(value)
    if number is None or not low <= number <= high:
        raise field_error(NardyError, field, f"must be an integer {low}..{high}", value)
    return number
