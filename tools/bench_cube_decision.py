"""Benchmark of the cube layer's batch path (issue 43's target: 100,000 cube decisions a second at 0 ply):
``nardy_fast.cube.cube_decision`` on n rows of random nested outputs, at money play and at a 7-point match
score, the median of several runs and the rows a second it gives.

Usage: ``python tools/bench_cube_decision.py [ROWS] [REPEATS]`` (default 100000 rows, 7 repeats).
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from nardy_fast.cube import Cube, Match, cube_decision


def outputs(n: int, seed: int = 1) -> np.ndarray:
    """``n`` rows of nested probabilities: win, then shares of it for mars and koks, likewise for losses."""
    rng = np.random.default_rng(seed)
    win = rng.uniform(0.0, 1.0, n)
    win_mars = win * rng.uniform(0.0, 0.4, n)
    lose_mars = (1.0 - win) * rng.uniform(0.0, 0.4, n)
    return np.stack([win, win_mars, win_mars * rng.uniform(0.0, 0.1, n), lose_mars,
                     lose_mars * rng.uniform(0.0, 0.1, n)], axis=1)


def main(argv: list[str]) -> None:
    rows = int(argv[1]) if len(argv) > 1 else 100_000
    repeats = int(argv[2]) if len(argv) > 2 else 7
    p = outputs(rows)
    for label, cube, match in (("money, centred", Cube(), Match()), ("money, owned 2", Cube(2, "white"), Match()),
                               ("7-point 2-4", Cube(), Match(7, (2, 4))),
                               ("7-point 4-2, owned 2", Cube(2, "white"), Match(7, (4, 2)))):
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            cube_decision(p, 0.76, cube=cube, match=match)
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        print(f"{label:24s} {rows} rows: median {median * 1000:8.1f} ms, {rows / median:12,.0f} rows/s")


if __name__ == "__main__":
    main(sys.argv)
