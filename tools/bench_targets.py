"""The cost of a training's targets (docs/benchmarks.md, Trained networks, Speed): positions per second of
TD(lambda) targets and of search targets at 1 and 2 plies, on the positions of self-play games of a
variant's shipped network, one thread, by CPU time (the median of ``--rounds`` rounds), with the self-play
itself and a whole training iteration of those games (from the shipped weights; one round) for scale.
Measures; asserts nothing.

    python tools/bench_targets.py --variant short --games 200 --rounds 3
"""

from __future__ import annotations

import argparse
import functools
import statistics
import tempfile
import time
from collections.abc import Callable

import numpy as np

import nardy_fast
from nardy_fast import Greedy, Position
from nardy_fast.evaluation.evaluators import resolve_evaluator
from nardy_fast.evaluation.network import network_for
from nardy_fast.evaluation.search import Search
from nardy_fast.training import train
from nardy_fast.training.targets import lambda_returns, search_values


def cpu(work: Callable[[], object], rounds: int) -> float:
    """The median CPU seconds of ``rounds`` runs of ``work``."""
    times = []
    for _ in range(rounds):
        started = time.process_time()
        work()
        times.append(time.process_time() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="short")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--two-ply", type=int, default=100, help="positions the 2-ply targets are timed on")
    args = parser.parse_args()
    network = network_for(resolve_evaluator("network"), args.variant)  # type: ignore[arg-type]
    kernels = Position.kernels

    def play() -> object:
        return nardy_fast.playout(args.variant, args.games, seed=1, policy=Greedy(network), trajectories=True)

    seconds = cpu(play, args.rounds)
    _, trajectories = nardy_fast.playout(args.variant, args.games, seed=1, policy=Greedy(network), trajectories=True)
    rows = trajectories.rows
    n = len(rows)
    sample = rows[np.linspace(0, n - 1, min(n, args.two_ply)).astype(int)]
    timed = {
        "self-play (0-ply greedy games)": (seconds, n),
        "td targets (evaluate + lambda-returns)": (
            cpu(lambda: lambda_returns(trajectories, nardy_fast.evaluate(rows, network), 0.7), args.rounds),
            n,
        ),
        "search targets, 1 ply (the core's C search)": (
            cpu(lambda: search_values(kernels, rows, network, 1), args.rounds),
            n,
        ),
        "search targets, 1 ply (the shared NumPy Search)": (
            cpu(lambda: Search(kernels, network).values(rows, 1), args.rounds),
            n,
        ),
        "search targets, 2 plies (the core's C search)": (
            cpu(lambda: search_values(kernels, sample, network, 2), args.rounds),
            len(sample),
        ),
    }
    with tempfile.TemporaryDirectory() as directory:
        for targets in ("td", "search"):
            out = f"{directory}/{targets}.npz"
            options = {"batch": args.games, "eval_every": 0, "init": network, "targets": targets, "resume": False}
            iteration = functools.partial(train, args.variant, args.games, out=out, **options)
            timed[f"a whole training iteration, {targets} targets"] = (cpu(iteration, 1), n)
    print(f"{args.variant}: {args.games} games, {n:,} positions ({nardy_fast.IMPLEMENTATION}, one thread)")
    for name, (spent, count) in timed.items():
        print(f"  {name:<50} {count / spent:>12,.0f} positions/s  ({spent:.3f} s CPU for {count:,})")


if __name__ == "__main__":
    main()
