"""``python -m nardy_fast bench``: positions/s and plays/s of each implementation and API on the embedded
corpus, side by side in one run, with ratios (and GNU Backgammon's generator when ``gnubg-nn`` is installed).

Each figure is the median of a few repeats. ``legal_moves`` (a Python object per child) runs on the first
``reference_size`` positions of each variant, for both implementations, because the reference is slow; the
array APIs and GNU Backgammon run on the whole corpus.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable
from typing import Optional

import numpy as np
import numpy.typing as npt

from . import batch, corpus, reference
from .position import Position
from .variants import VARIANTS

__all__ = ["Measure", "run", "gnubg_boards", "measure_gnubg", "main"]

Rows = npt.NDArray[np.int8]


class Measure:
    """One timed measurement: positions and plays (children) per second, median over repeats."""

    def __init__(self, label: str, positions: int, plays: int, seconds: list[float]) -> None:
        self.label = label
        self.positions = positions
        self.plays = plays
        self.seconds = statistics.median(seconds)

    @property
    def positions_per_second(self) -> float:
        """Positions searched per second."""
        return self.positions / self.seconds

    @property
    def plays_per_second(self) -> float:
        """Plays (children) generated per second."""
        return self.plays / self.seconds


def _timed(label: str, repeats: int, work: Callable[[], int], positions: int) -> Measure:
    seconds = []
    plays = 0
    for _ in range(repeats):
        start = time.perf_counter()
        plays = work()
        seconds.append(time.perf_counter() - start)
    return Measure(label, positions, plays, seconds)


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
    return lambda: sum(len(batch.children(r, d)) for r, d in zip(row_list, dice))


def batched(rows: Rows, rolls: Rows, threads: int = 1) -> Callable[[], int]:
    """``nardy_fast.batch_children`` over all rows, split across ``threads`` threads."""

    def work() -> int:
        if threads == 1:
            return len(batch.batch_children(rows, rolls)[0])
        parts = np.array_split(np.arange(len(rows)), threads)
        counts = [0] * threads

        def one(i: int) -> None:
            counts[i] = len(batch.batch_children(rows[parts[i]], rolls[parts[i]])[0])

        workers = [threading.Thread(target=one, args=(i,)) for i in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        return sum(counts)

    return work


def gnubg_boards(rows: Rows, rolls: Rows) -> list[tuple[list[list[int]], int, int]]:
    """Short-nardy rows as GNU Backgammon boards (``[opponent, player]``, 25 points each, bar last) with
    their rolls; rows with a pending list (none in short nardy) are skipped."""
    boards = []
    for row, roll in zip(rows, rolls):
        position = reference.Position.from_array(row)
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


def measure_gnubg(rows: Rows, rolls: Rows, repeats: int) -> Optional[Measure]:
    """GNU Backgammon's ``moves()`` through ``gnubg_nn`` on the same positions, if it is installed."""
    try:
        import gnubg_nn
    except ImportError:
        return None
    boards = gnubg_boards(rows, rolls)
    moves = gnubg_nn.moves
    return _timed("gnubg_nn.moves", repeats, lambda: sum(len(moves(b, d1, d2)) for b, d1, d2 in boards), len(boards))


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
        found = [
            _timed("reference legal_moves", repeats, per_call(reference.Position, rows[:small], rolls[:small]), small)
        ]
        if IMPLEMENTATION == "cython":
            found.append(
                _timed("core legal_moves", repeats, per_call(Position, rows[:small], rolls[:small]), small)
            )
            found.append(_timed("core children (per position)", repeats, per_array(rows, rolls), n))
            found.append(_timed("core batch_children", repeats, batched(rows, rolls), n))
            found.append(_timed("core batch_children, 2 threads", repeats, batched(rows, rolls, 2), n))
        if variant == "short":
            gnubg = measure_gnubg(rows, rolls, repeats)
            if gnubg is not None:
                found.append(gnubg)
        results[variant] = found
    return results


def report(results: dict[str, list[Measure]]) -> str:
    """A table of the measurements with the ratios the project's targets are stated in."""
    lines = [f"{'variant':8} {'api':34} {'positions/s':>13} {'plays/s':>13}  ratio"]
    for variant, found in results.items():
        by_label = {m.label: m for m in found}
        ref = by_label["reference legal_moves"].positions_per_second
        gnubg = by_label.get("gnubg_nn.moves")
        one_thread = by_label.get("core batch_children")
        for m in found:
            ratios = []
            if m.label == "core legal_moves":
                ratios.append(f"{m.positions_per_second / ref:,.0f}x reference (same positions)")
            if gnubg is not None and m.label.startswith("core") and m.positions == gnubg.positions:
                ratios.append(f"{m.positions_per_second / gnubg.positions_per_second:.2f}x gnubg")
            if m.label.endswith("2 threads") and one_thread is not None:
                ratios.append(f"{m.positions_per_second / one_thread.positions_per_second:.2f}x 1 thread")
            lines.append(
                f"{variant:8} {m.label:34} {m.positions_per_second:13,.0f} {m.plays_per_second:13,.0f}  "
                + ", ".join(ratios)
            )
    return "\n".join(lines)


def main(size: int = corpus.SIZE, reference_size: int = 200, repeats: int = 3) -> int:
    """Run and print the benchmark."""
    from . import IMPLEMENTATION

    print(f"implementation: {IMPLEMENTATION}; corpus: {size} positions per variant; medians of {repeats}")
    print(report(run(size=size, reference_size=reference_size, repeats=repeats)))
    return 0
