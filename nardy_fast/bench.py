"""``python -m nardy_fast bench``: positions/s and plays/s of each implementation and API on the embedded
corpus, side by side in one run, with ratios (and GNU Backgammon's generator when ``gnubg-nn`` is installed).

Each figure is the median of a few repeats. ``legal_moves`` (a Python object per child) runs on the first
``reference_size`` positions of each variant, for both implementations, because the reference is slow; the
array APIs and GNU Backgammon run on the whole corpus.

A repeat times every measurement of a variant once, one after the other, and a ratio is the median of the
ratios within repeats: on a shared machine whose speed drifts, the two sides of a ratio then see the same
conditions. Two threads can only be as fast as the cores the machine lends them at the time; the CPU time they
spend per position, against one thread's, says how much work running in parallel adds, and the same parts run
in two processes, which share nothing, say how fast the machine lets any two workers go.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import statistics
import time
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from typing import NamedTuple, Optional

import numpy as np
import numpy.typing as npt

from . import corpus
from ._dispatch import batch_children, children, implementations
from .position import Position
from .variants import VARIANTS

__all__ = [
    "Measure",
    "Work",
    "run",
    "report",
    "main",
    "per_call",
    "per_array",
    "batched",
    "in_processes",
    "balanced_parts",
    "balanced_split",
    "gnubg_boards",
    "gnubg_work",
]

Rows = npt.NDArray[np.int8]


class Measure:
    """One timed measurement: positions and plays (children) per second, median over repeats; ``cpu_samples``
    are the process's CPU seconds (all threads) in the same repeats."""

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
        """Positions searched per second."""
        return self.positions / self.seconds

    @property
    def plays_per_second(self) -> float:
        """Plays (children) generated per second."""
        return self.plays / self.seconds

    def speedup(self, other: Measure) -> float:
        """Positions/s over ``other``'s: the median of the ratios within repeats."""
        return statistics.median(
            (self.positions / mine) / (other.positions / theirs)
            for mine, theirs in zip(self.samples, other.samples)
        )

    def cpu_ratio(self, other: Measure) -> float:
        """CPU time per position over ``other``'s, the median of the ratios within repeats: 1.0 for threads that
        do no more work together than one thread alone, whatever share of the cores the machine gives them."""
        return statistics.median(
            (mine / self.positions) / (theirs / other.positions)
            for mine, theirs in zip(self.cpu_samples, other.cpu_samples)
        )


class Work(NamedTuple):
    """A measurement to make: ``run`` does the work and returns its number of plays."""

    label: str
    run: Callable[[], int]
    positions: int
    #: run once, untimed, right before each timed run: for work on several cores, which a shared machine
    #: lends to other guests while they idle (one waking took milliseconds here)
    warm_up: bool = False


def _timed(works: list[Work], repeats: int) -> list[Measure]:
    """Every work timed once per repeat, in turn."""
    samples: list[list[float]] = [[] for _ in works]
    cpu_samples: list[list[float]] = [[] for _ in works]
    plays = [0] * len(works)
    for _ in range(repeats):
        for i, work in enumerate(works):
            if work.warm_up:
                work.run()
            start, cpu_start = time.perf_counter(), time.process_time()
            plays[i] = work.run()
            samples[i].append(time.perf_counter() - start)
            cpu_samples[i].append(time.process_time() - cpu_start)
    return [
        Measure(work.label, work.positions, plays[i], samples[i], cpu_samples[i])
        for i, work in enumerate(works)
    ]


def _rolls_of(rolls: Rows) -> list[Optional[tuple[int, int]]]:
    return [None if r[0] == 0 else (int(r[0]), int(r[1])) for r in rolls]


def per_call(position_class: type[Position], rows: Rows, rolls: Rows) -> Callable[[], int]:
    """``legal_moves`` one position at a time, a Python object per child."""
    positions = [position_class.from_array(row) for row in rows]
    dice = _rolls_of(rolls)
    return lambda: sum(len(p.legal_moves(d)) for p, d in zip(positions, dice))


def per_array(rows: Rows, rolls: Rows) -> Callable[[], int]:
    """``nardy_fast.children`` one packed row at a time, one array per position."""
    dice = _rolls_of(rolls)
    row_list = list(rows)
    return lambda: sum(len(children(r, d)) for r, d in zip(row_list, dice))


def batched(rows: Rows, rolls: Rows, threads: int = 1) -> Callable[[], int]:
    """``nardy_fast.batch_children`` over all rows; with ``threads`` > 1, over parts of about equal work
    (``balanced_parts``) at once: the calling thread takes one, the threads of a pool the others. The parts and
    the pool are made before timing, as a program that runs batches on threads keeps its threads."""
    if threads == 1:
        return lambda: len(batch_children(rows, rolls)[0])
    first, *others = balanced_parts(rows, rolls, threads)
    pool = ThreadPoolExecutor(threads - 1, thread_name_prefix="nardy_fast-bench")

    def one(part: tuple[Rows, Rows]) -> int:
        return len(batch_children(*part)[0])

    def work() -> int:
        running = [pool.submit(one, part) for part in others]
        return one(first) + sum(future.result() for future in running)

    weakref.finalize(work, pool.shutdown)
    return work


def in_processes(rows: Rows, rolls: Rows, count: int = 2) -> Callable[[], int]:
    """The control of ``batched(rows, rolls, count)``: the same parts at once in ``count`` processes, the calling
    one and others started before timing (each sent its part once, then only a word per call). Processes share
    no memory, lock or interpreter, so threads that scale as far as they do lose nothing to each other."""
    first, *others = balanced_parts(rows, rolls, count)
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

    def work() -> int:
        for connection in connections:
            connection.send(True)
        return len(batch_children(*first)[0]) + sum(
            int(connection.recv()) for connection in connections
        )

    def stop() -> None:
        for connection, worker in zip(connections, workers):
            with contextlib.suppress(OSError):  # a worker that died has nothing to stop
                connection.send(False)
            worker.join()

    work()  # untimed: the workers import the package
    weakref.finalize(work, stop)
    return work


def _part_server(connection: Connection, part: tuple[Rows, Rows]) -> None:
    """A worker of ``in_processes``: the children of its part each time it is sent True, until sent False."""
    while connection.recv():
        connection.send(len(batch_children(*part)[0]))


def balanced_parts(rows: Rows, rolls: Rows, count: int) -> list[tuple[Rows, Rows]]:
    """``count`` parts of the rows of about equal work (``balanced_split``), the work of a row taken as its
    number of children plus one (counted by one batch call). Equal numbers of rows would not do: a crazy ladder
    can have 400,000 children, a bear-off two."""
    weights = np.diff(batch_children(rows, rolls)[1]) + 1
    parts = balanced_split(weights, count)
    return [(np.ascontiguousarray(rows[part]), np.ascontiguousarray(rolls[part])) for part in parts]


def balanced_split(weights: npt.NDArray[np.int64], count: int) -> list[npt.NDArray[np.intp]]:
    """The indices of ``weights`` in ``count`` ascending parts: each index in turn, heaviest first, goes to the
    part with the least weight so far (so the parts' weights differ by at most the largest weight)."""
    loads = [0] * count
    members: list[list[int]] = [[] for _ in range(count)]
    for index in np.argsort(-weights, kind="stable"):
        lightest = loads.index(min(loads))
        members[lightest].append(int(index))
        loads[lightest] += int(weights[index])
    return [np.sort(np.array(m, dtype=np.intp)) for m in members]


def gnubg_boards(rows: Rows, rolls: Rows) -> list[tuple[list[list[int]], int, int]]:
    """Short-nardy rows as GNU Backgammon boards (``[opponent, player]``, 25 points each, bar last) with
    their rolls; rows with a pending list (none in short nardy) are skipped."""
    boards = []
    for row, roll in zip(rows, rolls):
        position = implementations()["python"].Position.from_array(row)
        player, opponent = [0] * 25, [0] * 25
        for index, count in enumerate(position.board):
            point = index + 1 if position.turn == "white" else 24 - index
            mine = count > 0 if position.turn == "white" else count < 0
            if mine:
                player[point - 1] = abs(count)
            elif count:
                opponent[24 - point] = abs(count)
        me = 0 if position.turn == "white" else 1
        player[24], opponent[24] = position.bar[me], position.bar[1 - me]
        boards.append(([opponent, player], int(roll[0]), int(roll[1])))
    return boards


def gnubg_work(rows: Rows, rolls: Rows) -> Optional[Work]:
    """GNU Backgammon's ``moves()`` through ``gnubg_nn`` on the same positions, if it is installed."""
    try:
        import gnubg_nn
    except ImportError:
        return None
    boards = gnubg_boards(rows, rolls)
    moves = gnubg_nn.moves
    return Work("gnubg_nn.moves", lambda: sum(len(moves(b, d1, d2)) for b, d1, d2 in boards), len(boards))


def run(
    variants: tuple[str, ...] = VARIANTS, size: int = corpus.SIZE, reference_size: int = 200, repeats: int = 3
) -> dict[str, list[Measure]]:
    """Every measurement, per variant."""
    from . import IMPLEMENTATION, Position

    results: dict[str, list[Measure]] = {}
    for variant in variants:
        rows, rolls = corpus.load(variant)
        rows, rolls = rows[:size], rolls[:size]
        n, small = len(rows), min(reference_size, len(rows))
        works = [
            Work("reference legal_moves", per_call(implementations()["python"].Position, rows[:small], rolls[:small]), small)
        ]
        if IMPLEMENTATION == "cython":
            works += [
                Work("core legal_moves", per_call(Position, rows[:small], rolls[:small]), small),
                Work("core children (per position)", per_array(rows, rolls), n),
                Work("core batch_children", batched(rows, rolls), n),
                Work("core batch_children, 2 threads", batched(rows, rolls, 2), n, warm_up=True),
                Work("core batch_children, 2 processes", in_processes(rows, rolls, 2), n, warm_up=True),
            ]
        gnubg = gnubg_work(rows, rolls) if variant == "short" else None
        if gnubg is not None:
            works.append(gnubg)
        results[variant] = _timed(works, repeats)
    return results


def report(results: dict[str, list[Measure]]) -> str:
    """A table of the measurements with the ratios the project's targets are stated in."""
    lines = [f"{'variant':8} {'api':34} {'positions/s':>13} {'plays/s':>13}  ratio"]
    for variant, found in results.items():
        by_label = {m.label: m for m in found}
        ref = by_label["reference legal_moves"]
        gnubg = by_label.get("gnubg_nn.moves")
        one_thread = by_label.get("core batch_children")
        for m in found:
            ratios = []
            if m.label == "core legal_moves":
                ratios.append(f"{m.speedup(ref):,.0f}x reference (same positions)")
            if gnubg is not None and m.label.startswith("core") and m.positions == gnubg.positions:
                ratios.append(f"{m.speedup(gnubg):.2f}x gnubg")
            if m.label.endswith("2 threads") and one_thread is not None:
                ratios.append(
                    f"{m.speedup(one_thread):.2f}x 1 thread (CPU time per position {m.cpu_ratio(one_thread):.2f}x)"
                )
            if m.label.endswith("2 processes") and one_thread is not None:
                ratios.append(f"{m.speedup(one_thread):.2f}x 1 thread (the machine's own limit for two)")
            lines.append(
                f"{variant:8} {m.label:34} {m.positions_per_second:13,.0f} {m.plays_per_second:13,.0f}  "
                + ", ".join(ratios)
            )
    return "\n".join(lines)


def main(size: int = corpus.SIZE, reference_size: int = 200, repeats: int = 5) -> int:
    """Run and print the benchmark."""
    from . import IMPLEMENTATION

    print(
        f"implementation: {IMPLEMENTATION}; corpus: {size} positions per variant; medians of {repeats} repeats"
        " (ratios: medians of the ratios within repeats)"
    )
    print(report(run(size=size, reference_size=reference_size, repeats=repeats)))
    return 0
