"""The bench's parallel measurements: the same work split in parts of about equal work
(:func:`balanced_parts`), run on the threads of one process (:func:`batched`) or, as the control that shares
nothing, in as many processes (:func:`in_processes`, :func:`parts_in_processes`); and the ratios their rows
print against one thread."""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from typing import Optional

import numpy as np
import numpy.typing as npt

from .. import batch_children
from .harness import Count, Measure, Rows, bounded, total

__all__ = [
    "MAX_PARTS",
    "PROCESS_START_SECONDS",
    "batched",
    "in_processes",
    "parts_in_processes",
    "balanced_parts",
    "balanced_split",
    "parallel_ratios",
]

#: The most parts the parallel measurements split their work in (threads, or processes started): far more
#: than the two they measure, few enough that no machine is swamped.
MAX_PARTS = 64
#: About the seconds :func:`parts_in_processes` takes to start a worker on a quiet machine (a fresh
#: interpreter imports NumPy and the package): for the time left of the progress line.
PROCESS_START_SECONDS = 0.6


def _batch_count(rows: Rows, rolls: Rows) -> Count:
    return Count(len(rows), len(batch_children(rows, rolls)[0]))


def batched(rows: Rows, rolls: Rows, threads: int = 1) -> Callable[[], Count]:
    """``nardy_fast.batch_children`` over all rows; with ``threads`` > 1, over parts of about equal work
    (``balanced_parts``) at once: the calling thread takes one, the threads of a pool the others. The parts and
    the pool are made before timing, as a program that runs batches on threads keeps its threads. ``threads``
    is 1..:data:`MAX_PARTS`."""
    threads = bounded("threads", threads, 1, MAX_PARTS)
    if threads == 1:
        return lambda: _batch_count(rows, rolls)
    first, *others = balanced_parts(rows, rolls, threads)
    pool = ThreadPoolExecutor(threads - 1, thread_name_prefix="nardy_fast-bench")

    def work() -> Count:
        running = [pool.submit(_batch_count, *part) for part in others]
        return total([_batch_count(*first)] + [future.result() for future in running])

    weakref.finalize(work, pool.shutdown)
    return work


def in_processes(rows: Rows, rolls: Rows, count: int = 2) -> Callable[[], Count]:
    """The control of ``batched(rows, rolls, count)``: the same parts at once in ``count`` processes."""
    return parts_in_processes(
        [functools.partial(_batch_count, *part) for part in balanced_parts(rows, rolls, count)]
    )


def parts_in_processes(parts: Sequence[Callable[[], Count]]) -> Callable[[], Count]:
    """The parts at once in as many processes, the calling one and others started before timing (each sent
    its part once, then only a word per call). Processes share no memory, lock or interpreter, so threads
    that scale as far as they do lose nothing to each other."""
    first, *others = parts
    context = multiprocessing.get_context("spawn")  # no fork of a process that runs threads
    connections: list[Connection] = []
    workers = []
    for part in others:
        mine, theirs = context.Pipe()
        worker = context.Process(target=_part_server, args=(theirs, part), daemon=True)
        worker.start()
        theirs.close()  # the worker's end: if it dies, ``recv`` here ends instead of waiting for ever
        connections.append(mine)
        workers.append(worker)

    def work() -> Count:
        for connection in connections:
            connection.send(True)
        return total([first()] + [Count(*connection.recv()) for connection in connections])

    def stop() -> None:
        for connection, worker in zip(connections, workers):
            with contextlib.suppress(OSError):  # a worker that died has nothing to stop
                connection.send(False)
            worker.join()

    work()  # untimed: the workers import the package
    weakref.finalize(work, stop)
    return work


def _part_server(connection: Connection, part: Callable[[], Count]) -> None:
    """A worker of ``parts_in_processes``: runs its part each time it is sent True, until sent False."""
    while connection.recv():
        connection.send(tuple(part()))


def balanced_parts(rows: Rows, rolls: Rows, count: int) -> list[tuple[Rows, Rows]]:
    """``count`` parts of the rows of about equal work (``balanced_split``), the work of a row taken as its
    number of children plus one (counted by one batch call). Equal numbers of rows would not do: a crazy ladder
    can have 400,000 children, a bear-off two."""
    weights = np.diff(batch_children(rows, rolls)[1]) + 1
    parts = balanced_split(weights, count)
    return [(np.ascontiguousarray(rows[part]), np.ascontiguousarray(rolls[part])) for part in parts]


def balanced_split(weights: npt.NDArray[np.int64], count: int) -> list[npt.NDArray[np.intp]]:
    """The indices of ``weights`` in ``count`` ascending parts: each index in turn, heaviest first, goes to the
    part with the least weight so far (so the parts' weights differ by at most the largest weight).
    ``count`` is 1..:data:`MAX_PARTS`."""
    count = bounded("count", count, 1, MAX_PARTS)
    loads = [0] * count
    members: list[list[int]] = [[] for _ in range(count)]
    for index in np.argsort(-weights, kind="stable"):
        lightest = loads.index(min(loads))
        members[lightest].append(int(index))
        loads[lightest] += int(weights[index])
    return [np.sort(np.array(m, dtype=np.intp)) for m in members]


def parallel_ratios(m: Measure, one: Optional[Measure], unit: str) -> list[str]:
    """The ratios a table prints for ``m`` when it is a parallel measurement (two threads or two processes)
    of the work ``one`` did on one thread; none otherwise. ``unit`` names an item (position, game)."""
    if one is None:
        return []
    if m.label.endswith("2 threads"):
        return [f"{m.speedup(one):.2f}x 1 thread (CPU/{unit} {m.cpu_ratio(one):.2f})"]
    if m.label.endswith("2 processes"):
        return [f"{m.speedup(one):.2f}x 1 thread: the machine's own limit for two workers now"]
    return []
