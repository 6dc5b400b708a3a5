"""Duels against greedy playouts doing the same work (``pytest bench/test_bench_duel.py``; docs/benchmarks.md,
Duels in the game loop). Every member of a group plays the same moves, so the ratios printed at the end of
the run (``bench/conftest.py``, to the group's ``greedy playout``) are speed ratios. Nothing here asserts a
time.

A duel of ``Greedy(e)`` against itself on ``2 * PAIRS`` games plays each of the first ``PAIRS`` games of the
seed twice, once from each seat (duplicate dice): exactly the games of two playouts of ``PAIRS`` games with
``policy=Greedy(e)``, which is the ``greedy playout`` member. The members:

* ``greedy playout`` (and ``, 2 threads``): ``core.playout(variant, PAIRS, policy=Greedy(e))`` twice;
* ``duel`` (and ``, 2 threads``): ``core.duel(Greedy(e), Greedy(e), variant, 2 * PAIRS)``, the game loop in C
  with a policy per seat;
* ``duel, lock-step``: the same duel on the lock-step Python path that played every duel before the game
  loop took duels of built-in players over (still the path of callable policies and Python evaluators).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from nardy_fast import Greedy, bench
from nardy_fast.duel import lockstep_duel
from nardy_fast.evaluation.network import shipped_path
from nardy_fast.playouts import PlayoutOptions, check_playout
from nardy_fast.policies import resolve_policy

core = pytest.importorskip("nardy_fast.core", reason="the compiled core is not built")

PAIRS = 200  # games of each playout, pairs of each duel
ROUNDS = 5


def _lockstep(variant: str, policy: Greedy) -> Callable[[], object]:
    """The duel of ``policy`` against itself on the lock-step path (one batch of every pair)."""
    kernels = core.Position.kernels
    spec = resolve_policy(policy)
    args = check_playout(variant, PAIRS, bench.SEED, PlayoutOptions(batch=PAIRS))

    def run() -> object:
        points = np.zeros(2 * PAIRS, dtype=np.int8)
        lockstep_duel(kernels, (spec, spec), args, 0, 2 * PAIRS, points)
        return points

    return run


@pytest.mark.parametrize(("variant", "evaluator"), [("short", "net"), ("long", "heuristic")])
@pytest.mark.parametrize(
    "api", ["greedy playout", "greedy playout, 2 threads", "duel", "duel, 2 threads", "duel, lock-step"]
)
def test_duel_against_playouts(benchmark: BenchmarkFixture, variant: str, evaluator: str, api: str) -> None:
    if evaluator == "net" and not shipped_path(variant).exists():
        pytest.skip(f"no weights shipped for {variant}")
    policy = Greedy(evaluator)
    core.playout(variant, 2, seed=bench.SEED, policy=policy)  # the weights are loaded before timing
    threads = 2 if "2 threads" in api else 1

    def playouts() -> object:
        return [core.playout(variant, PAIRS, seed=bench.SEED, policy=policy, threads=threads) for _ in range(2)]

    def duel() -> object:
        return core.duel(policy, policy, variant, 2 * PAIRS, seed=bench.SEED, threads=threads)

    work = {"greedy playout": playouts, "duel": duel, "duel, lock-step": _lockstep(variant, policy)}
    benchmark.group = f"duel vs greedy playouts: {variant}, Greedy({evaluator!r}) 0-ply, {2 * PAIRS} games"
    benchmark.pedantic(work[api.removesuffix(", 2 threads")], rounds=ROUNDS)  # type: ignore[no-untyped-call]
