"""The bench's harness: what a measurement is (:class:`Work`), what it produced (:class:`Count`), how it is
timed (:func:`timed`, medians of repeats interleaved across a section) and what came out (:class:`Measure`);
the progress reports and the bounds every entry point checks its counts against."""

from __future__ import annotations

import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple, Optional

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
    "timed",
    "bounded",
]

#: Packed positions (or their rolls), one a row, as the corpus and ``batch_children`` hold them.
Rows = npt.NDArray[np.int8]
#: Where a measurement reports what it is doing: called with one line of text at each step.
Progress = Callable[[str], None]
#: Timed repeats of every measurement by default: each figure is their median.
DEFAULT_REPEATS = 5
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


def timed(works: Sequence[Work], repeats: int, progress: Progress = quiet, where: str = "") -> list[Measure]:
    """Every work timed once per repeat, in turn, after one untimed run each (it warms the caches and
    says how many runs in a row make a timing of at least :data:`MIN_SECONDS`)."""
    loops: list[int] = []
    plays = [0] * len(works)
    for i, work in enumerate(works):
        progress(f"{where}first run {i + 1}/{len(works)}: {work.label}")
        start = time.perf_counter()
        plays[i] = _checked(work, work.run()).plays
        seconds = time.perf_counter() - start
        loops.append(max(1, min(1000, math.ceil(MIN_SECONDS / max(seconds, 1e-9)))))
    samples: list[list[float]] = [[] for _ in works]
    cpu_samples: list[list[float]] = [[] for _ in works]
    for repeat in range(repeats):
        for i, work in enumerate(works):
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
