"""Duels of built-in players against greedy playouts doing the same work, timed in turn in one process
(``python -m nardy_fast.bench.duels``; docs/benchmarks.md, Duels in the game loop).

A duel of ``Greedy(e)`` against itself on ``2 * pairs`` games plays each of the first ``pairs`` games of the
seed twice, once from each seat: the games of two playouts of ``pairs`` games with ``policy=Greedy(e)``. Each
repeat times every way once, one after the other, and a ratio is the median of the ratios within repeats
(both sides of a ratio then see the same load, on a machine shared with other work).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Optional

import numpy as np

from ..duel import lockstep_duel
from ..playouts import PlayoutOptions, check_playout
from ..policies import Greedy, resolve_policy
from .harness import SEED

__all__ = ["WAYS", "duel_works", "duel_speed", "main"]

#: The ways measured, the first the base of the ratios.
WAYS = ("greedy playout", "greedy playout, 2 threads", "duel", "duel, 2 threads", "duel, lock-step")


def duel_works(variant: str, evaluator: str, pairs: int, seed: int = SEED) -> dict[str, Callable[[], object]]:
    """Each of :data:`WAYS` as a call that plays the ``2 * pairs`` games of ``Greedy(evaluator)`` against itself
    (the compiled core's)."""
    from .. import core  # the compiled core is what is measured

    policy = Greedy(evaluator)
    spec = resolve_policy(policy)
    args = check_playout(variant, pairs, seed, PlayoutOptions(batch=pairs))

    def playouts(threads: int) -> object:
        return [core.playout(variant, pairs, seed=seed, policy=policy, threads=threads) for _ in range(2)]

    def lockstep() -> object:
        points = np.zeros(2 * pairs, dtype=np.int8)
        lockstep_duel(core.Position.kernels, (spec, spec), args, 0, 2 * pairs, points)
        return points

    def duel(threads: int) -> object:
        return core.duel(policy, policy, variant, 2 * pairs, seed=seed, threads=threads)

    return {
        "greedy playout": lambda: playouts(1),
        "greedy playout, 2 threads": lambda: playouts(2),
        "duel": lambda: duel(1),
        "duel, 2 threads": lambda: duel(2),
        "duel, lock-step": lockstep,
    }


def duel_speed(variant: str, evaluator: str, pairs: int = 200, repeats: int = 5) -> dict[str, tuple[float, float]]:
    """For each of :data:`WAYS`: its median seconds over ``repeats`` and its speed against the greedy playout
    (the median of the ratios within repeats)."""
    from .. import core

    works = duel_works(variant, evaluator, pairs)
    core.playout(variant, 2, seed=SEED, policy=Greedy(evaluator))  # the weights are loaded before the clock
    seconds: dict[str, list[float]] = {way: [] for way in WAYS}
    for _ in range(repeats):
        for way in WAYS:
            start = time.perf_counter()
            works[way]()
            seconds[way].append(time.perf_counter() - start)
    base = seconds[WAYS[0]]
    return {
        way: (statistics.median(times), statistics.median(b / t for b, t in zip(base, times)))
        for way, times in seconds.items()
    }


def main(argv: Optional[Sequence[str]] = None) -> None:
    """Print :func:`duel_speed` of each ``--case VARIANT:EVALUATOR``."""
    parser = argparse.ArgumentParser(prog="python -m nardy_fast.bench.duels", description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", help="VARIANT:EVALUATOR (default: short:net and long:heuristic)")
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args(argv)
    for case in options.case or ["short:net", "long:heuristic"]:
        variant, _, evaluator = case.partition(":")
        print(f"{variant}, Greedy({evaluator!r}) 0-ply, {2 * options.pairs} games, median of {options.repeats}:")
        for way, (median, ratio) in duel_speed(variant, evaluator, options.pairs, options.repeats).items():
            print(f"  {way:28} {median * 1000:8.1f} ms  {ratio:5.2f}x greedy playout")


if __name__ == "__main__":
    main()
