"""Benchmarks of evaluation and search (``pytest bench/test_bench_evaluation.py``; docs/benchmarks.md,
issue 23). Every member of a group does the same work; the ratios are printed at the end of the run
(``bench/conftest.py``). Nothing here asserts a time.

* ``evaluate``: each built-in evaluator over the same rows, the core's C against the reference's twin (a few
  thousand rows: the reference is slow; races before their bear-off for the race evaluator, whose bear-off
  tables the reference builds slowly); the core's rate over a large batch is in ``extra_info["rows/s"]``.
* ``hint``: a 0-, 1- and 2-ply hint of a middle-game position of short and of long nardy, core and reference
  (the reference at 0 and 1 ply only).
* ``greedy games``: whole games of short nardy, both sides greedy: the core's ``playout`` with
  ``Greedy("heuristic")`` and with ``Greedy("pubeval")`` against the loop a Python program writes around GNU
  Backgammon's 0-ply net (``gnubg_nn.best_move(..., n=0)``), the same number of games.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

import nardy_fast
from nardy_fast import Greedy, bench, corpus, layout, reference

core = pytest.importorskip("nardy_fast.core", reason="the compiled core is not built")

SMALL = 2_000  # rows the reference evaluates
LARGE = 200_000  # rows the core's rate is measured on
GAMES = 200
#: middle-game positions: short nardy after a few moves each, long nardy with both heads half gone
MIDDLE = {
    "short": "short w 1:-2,6:4,8:3,12:-4,13:4,17:-3,19:-4,21:2,23:-2,24:2 first=-",
    "long": "long w 1:1,3:2,5:1,7:-1,8:-2,10:-2,11:-2,12:-8,14:2,16:2,17:1,19:1,20:1,22:2,24:2 first=-",
}
ROLL = (3, 1)


def _rows(evaluator: str, size: int) -> np.ndarray:
    """Corpus rows the evaluator serves (short nardy for pubeval, races for race, all variants else)."""
    if evaluator == "race":
        rows = np.concatenate([nardy_fast.playout(v, 200, seed=1, trajectories=True)[1].rows for v in ("long", "short")])
        # races before the bear-off: the reference would build its 15-checker bear-off tables (hours)
        rows = rows[layout.is_race(rows) & ~layout.is_bearoff(rows) & ~layout.is_over(rows)]
    elif evaluator == "pubeval":
        rows = corpus.load("short")[0]
    else:
        rows = np.concatenate([corpus.load(v)[0] for v in nardy_fast.VARIANTS])
    return np.ascontiguousarray(np.resize(rows, (size, layout.WIDTH)))


@pytest.mark.parametrize("evaluator", nardy_fast.EVALUATORS)
@pytest.mark.parametrize("api", ["core evaluate", "reference evaluate"])
def test_evaluate(benchmark: BenchmarkFixture, evaluator: str, api: str) -> None:
    rows = _rows(evaluator, SMALL)
    evaluate = core.evaluate if api == "core evaluate" else reference.evaluate
    evaluate(rows[:1], evaluator)  # tables built before timing
    benchmark.group = f"evaluate {evaluator} ({SMALL:,} rows)"
    if api == "core evaluate":
        large = _rows(evaluator, LARGE)
        start = time.perf_counter()
        core.evaluate(large, evaluator)
        benchmark.extra_info["rows/s"] = round(LARGE / (time.perf_counter() - start))
    values = benchmark(evaluate, rows, evaluator)
    assert values.shape == (SMALL, 5)


@pytest.mark.parametrize("variant", ["short", "long"])
@pytest.mark.parametrize("api", ["core 0-ply", "core 1-ply", "core 2-ply", "reference 0-ply", "reference 1-ply"])
def test_hint(benchmark: BenchmarkFixture, variant: str, api: str) -> None:
    implementation = core if api.startswith("core") else reference
    position = implementation.Position.from_text(MIDDLE[variant])
    plies = int(api.split()[1][0])
    benchmark.group = f"hint {variant} {plies}-ply (heuristic)"
    ranked = benchmark.pedantic(position.hint, args=(ROLL,), kwargs={"plies": plies}, rounds=3)  # type: ignore[no-untyped-call]
    benchmark.extra_info["moves"] = len(ranked)
    assert len(ranked) == len(position.legal_moves(ROLL))


@pytest.mark.parametrize("api", ["core Greedy(heuristic)", "core Greedy(pubeval)", "gnubg_nn 0-ply loop"])
def test_greedy_games(benchmark: BenchmarkFixture, api: str) -> None:
    """Greedy self-play of short nardy, one thread (target: the core at least 10x GNU Backgammon's loop)."""
    work: Callable[[], object]
    if api.startswith("gnubg"):
        pytest.importorskip("gnubg_nn", reason="gnubg-nn (extra 'peers') is not installed")
        work = bench.gnubg_greedy_games(GAMES)
    else:
        policy = Greedy(api[api.index("(") + 1 : -1])

        def greedy() -> object:
            return core.playout("short", GAMES, seed=bench.SEED, policy=policy)

        work = greedy

    benchmark.group = f"greedy games short ({GAMES}): core vs gnubg 0-ply"
    benchmark.pedantic(work, rounds=3)  # type: ignore[no-untyped-call]
