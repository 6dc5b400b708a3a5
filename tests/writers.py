"""Another thread that changes an array over and over while a test's calls read it (the core reads rows without
the GIL): the writer, the loop of calls that waits until its work is seen, and the rows a writer may flip."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np
import numpy.typing as npt

from nardy_fast import layout

__all__ = ["writer", "for_a_while", "flippable"]


@contextmanager
def writer(change: Callable[[], None]) -> Iterator[None]:
    """``change()`` called over and over on another thread, with the interpreter switching threads often."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            change()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(30)
        sys.setswitchinterval(interval)
    assert not thread.is_alive()


def for_a_while(calls: int, seconds: float, seen: Callable[[], bool]) -> Iterator[int]:
    """At least ``calls`` calls, and on until ``seen()`` (the writer's work was observed), cut short after
    ``seconds``. Every hundredth call sleeps a little, so that the writer runs even when a loaded machine
    does not schedule its thread while this one holds the interpreter."""
    end = time.monotonic() + seconds
    call = 0
    while call < calls or not seen():
        if call and time.monotonic() > end:
            return
        if call % 100 == 99:
            time.sleep(1e-4)
        yield call
        call += 1


def flippable(rows: npt.NDArray[np.int8], every: int = 1) -> npt.NDArray[np.int8]:
    """Every ``every``-th of the rows of games in play with no pending list, contiguous: with its side to move
    flipped, each is still a valid position, of other moves (what the writers of the tests flip)."""
    live = rows[~layout.is_over(rows) & (rows[:, layout.NPENDING] == 0)]
    return np.ascontiguousarray(live[::every])
