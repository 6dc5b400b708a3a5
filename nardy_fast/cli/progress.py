"""The progress of a long command: a bar of one line on stderr (:class:`Progress`), the ``--progress``
option that asks for it, and the chunks the games are played in so that the bar moves and Ctrl-C is seen.
While the bar stands still (a crazy ladder's ply can take seconds in the core, much longer in the
reference), the line shows the work of the move searches meanwhile, so that a slow ply shows signs of life."""

from __future__ import annotations

import argparse
import math
import sys
import threading
import time
from collections.abc import Callable
from typing import IO, Optional, TypeVar, final

from .. import IMPLEMENTATION, implementations
from .parser import Parser

__all__ = ["Progress", "progress_option", "progress_stream", "in_chunks"]

_T = TypeVar("_T")

#: The games of the first chunk per thread, and the time a chunk aims at: short enough for the bar to move
#: and for Ctrl-C to be seen soon (the core holds no Python lock while it plays, but Python only acts on the
#: signal between chunks), long enough that the calls cost nothing.
_FIRST_CHUNK = 200
_CHUNK_SECONDS = 0.25

#: How often the line is redrawn while the work runs (its rate and time left change even when the bar does
#: not move), and how long the bar must stand still before the line shows the searches' work.
_TICK_SECONDS = 1.0
_STILL_SECONDS = 2.0

#: How fast the time left shown may follow the estimate from the rate so far: by a factor of at most
#: ``e ** (seconds / _STEADY_SECONDS)`` either way (besides counting down). perft's first moves take very
#: different times, so that the rate so far swings by 2x within seconds (85 h, then 173 h); damped, the time
#: left moves by about 5% a second and still catches up with a wrong first guess within a minute or two.
_STEADY_SECONDS = 20.0


def _duration(seconds: float) -> str:
    """``h:mm:ss`` (or ``m:ss``), ``?`` when unknown."""
    if not math.isfinite(seconds):
        return "?"
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _amount(count: int) -> str:
    """``count`` in three digits or fewer and a suffix: ``950``, ``41.0k``, ``3.4M``, ``1.2G``."""
    for scale, suffix in ((10**9, "G"), (10**6, "M"), (10**3, "k")):
        if count >= scale:
            return f"{count / scale:.1f}{suffix}"
    return str(count)


@final
class Progress:
    """A progress bar of one line on ``stream``, redrawn with a carriage return: items (``unit``: games, or
    perft's first moves) done of the total, percent, items/s and the time left (from the rate so far, damped
    so that it moves steadily: :meth:`_steady`). Used as a context manager, it ends its line when the work
    stops (finished, failed or interrupted), so that what follows starts on a line of its own; :meth:`print`
    writes a line of results on stdout without breaking the bar.

    With a stream, a thread of its own redraws the line once a second (when its text changed) while the work
    runs; once the bar has stood still for two seconds (a slow ply), the line also says for how long and how
    much the move searches did meanwhile, by ``searched`` (the chosen implementation's count of positions
    searched, ``Kernels.searched``)."""

    def __init__(
        self,
        total: int,
        stream: Optional[IO[str]],
        unit: str = "games",
        searched: Optional[Callable[[], int]] = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.total = total
        self.stream = stream
        self.unit = unit
        self._clock = clock
        self.started = clock()
        self._width = 0
        self._line = ""
        self._done = 0.0
        chosen = implementations()[IMPLEMENTATION].IMPLEMENTATION_RECORD
        self._searched = chosen.kernels.searched if searched is None else searched
        # the time the bar last moved and the searches' count then
        self._moved = self.started
        self._mark = 0
        # the time left last shown and when: the next one moves from it by a bounded factor
        self._left = math.inf
        self._left_at = self.started
        # one drawer at a time: the ticker, update and print never write into each other's line
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._ticker: Optional[threading.Thread] = None

    def update(self, done: float) -> None:
        """Redraw the line for ``done`` items (a fraction for an item partly done)."""
        with self._lock:
            if done != self._done and self.stream is not None:
                self._moved, self._mark = self._clock(), self._searched()
            self._done = done
            self._draw()

    def _draw(self, always: bool = True) -> None:
        """Draw the line (unless ``always``, only if its text changed since it was last drawn)."""
        if self.stream is None:
            return
        done = self._done
        now = self._clock()
        elapsed = now - self.started
        rate = done / elapsed if elapsed > 0 else math.inf
        left = self._steady((self.total - done) / rate if rate > 0 else math.inf, done, now)
        percent = 100 * done / self.total if self.total else 100.0
        line = (
            f"{int(done):,}/{self.total:,} {self.unit}  {percent:5.1f}%  "
            f"{rate:,.0f} {self.unit}/s  ETA {_duration(left)}"
        )
        still = now - self._moved
        if still > _STILL_SECONDS:
            line += f"  | busy for {_duration(still)}: {_amount(self._searched() - self._mark)} positions searched"
        if not always and line == self._line:
            return
        self.stream.write("\r" + line.ljust(self._width))
        self.stream.flush()
        self._width, self._line = len(line), line

    def _steady(self, estimate: float, done: float, now: float) -> float:
        """The time left to show: ``estimate`` (from the rate so far) when none was shown yet, else the last
        shown, counted down, moved towards it by at most the factor :data:`_STEADY_SECONDS` allows."""
        if done >= self.total:
            shown = 0.0
        elif not math.isfinite(self._left) or not math.isfinite(estimate):
            shown = estimate
        else:
            since = max(0.0, now - self._left_at)
            bound = math.exp(since / _STEADY_SECONDS)
            # it may stand still (a count stuck on a slow ply) and grow from there, or count down and shrink
            shown = min(max(estimate, max(0.0, self._left - since) / bound), (self._left + since) * bound)
        self._left, self._left_at = shown, now
        return shown

    def print(self, text: str) -> None:
        """``text`` on stdout as a line of its own: the bar is wiped first and drawn again after it."""
        with self._lock:
            if self.stream is not None:
                self.stream.write("\r" + " " * self._width + "\r")
                self.stream.flush()
                self._width, self._line = 0, ""
            print(text, flush=True)
            self.update(self._done)

    def _tick(self) -> None:
        while not self._stop.wait(_TICK_SECONDS):
            with self._lock:
                self._draw(always=False)

    def __enter__(self) -> Progress:
        if self.stream is not None:
            self._mark = self._searched()
        self.update(0)
        if self.stream is not None:
            self._stop.clear()
            self._ticker = threading.Thread(target=self._tick, name="nardy_fast-progress", daemon=True)
            self._ticker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._ticker is not None:
            self._stop.set()
            self._ticker.join()
            self._ticker = None
        if self.stream is not None:
            with self._lock:
                self.stream.write("\n")
                self.stream.flush()


def progress_option(parser: Parser) -> None:
    """The ``--progress`` option (and ``--no-progress``)."""
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="draw (or, with --no-progress, never draw) the progress bar on stderr (default: only when "
        "stderr is a terminal)",
    )


def progress_stream(wanted: Optional[bool]) -> Optional[IO[str]]:
    """stderr when the bar is wanted (``--progress``), or not refused (``--no-progress``) and stderr is a
    terminal; else None."""
    if wanted is None:
        wanted = sys.stderr.isatty()
    return sys.stderr if wanted else None


def in_chunks(total: int, threads: int, play: Callable[[int, int], _T], progress: Progress) -> list[_T]:
    """``play(first, count)`` over consecutive chunks covering ``0..total-1``, their results in order. A
    chunk's size follows the speed measured so far, to last about :data:`_CHUNK_SECONDS`."""
    results = []
    done = 0
    size = _FIRST_CHUNK * threads
    while done < total:
        count = min(size, total - done)
        started = time.perf_counter()
        results.append(play(done, count))
        seconds = time.perf_counter() - started
        done += count
        progress.update(done)
        # at most four times larger each step: one fast chunk must not make the next one take minutes
        wanted = count * _CHUNK_SECONDS / seconds if seconds > 0 else 4 * count
        size = max(threads, min(4 * count, int(wanted)))
    return results
