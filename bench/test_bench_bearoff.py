"""Benchmarks of the exact endgames (``pytest bench/test_bench_bearoff.py``; docs/benchmarks.md, issue 22).

* ``one-sided build``: each distinct one-sided table (long, sixone, gulbar, crazy, crazy_ladder4) built by
  the core's C kernel, called directly (``nardy_fast.core._one_sided``) so that every round builds the
  table again instead of finding the one the package keeps; its memory is in ``extra_info["nbytes"]``.
* ``two-sided build``: the 6 x 6 two-sided table of each semantics, the same way.
* ``lookups``: ``expected_turns``, ``expected_turns_first``, ``turns_distribution`` and ``ids`` of the long
  table over one (1,000,000, 6) batch of layouts, checks of the counts included.
* ``rollout``: a bear-off position and a race position rolled out plainly and with ``truncate="bearoff"``,
  the same games and seed; the equity and its standard error go to ``extra_info``.

The ratios are printed at the end of the run (``bench/conftest.py``). Nothing here asserts a time. Under
``--benchmark-disable`` each test runs its work once as a plain test, and the builds then make the tables of
up to 6 checkers only (a table of 15 takes seconds), to stay quick.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

import nardy_fast
from nardy_fast import Position, bearoff

core = pytest.importorskip("nardy_fast.core", reason="the compiled core is not built")

TABLES = list(bearoff.SEMANTICS)  # long, sixone, gulbar, crazy, crazy_ladder4
ROUNDS = 3  # timed builds per table: 1.5 to 3 s each (2026-12-01)
LOOKUPS = 1_000_000
#: 15 checkers a side in their homes (the one-sided tables score it, a mars possible), and a race with
#: checkers still outside both homes (a long-nardy race: every checker on its own points 1..12).
POSITIONS = {
    "bear-off position": "long w 2:3,3:3,4:3,5:3,6:3,13:-3,14:-3,15:-3,16:-3,17:-3 first=-",
    "race position": "long w 2:4,4:4,6:3,8:4,14:-4,16:-4,18:-3,20:-4 first=-",
}
GAMES = 12_960  # ten cycles of the stratified first two rolls
SEED = 1


def _checkers(benchmark: BenchmarkFixture) -> int:
    return 6 if benchmark.disabled else bearoff.MAX_CHECKERS


@pytest.mark.parametrize("table", TABLES)
def test_one_sided_build(benchmark: BenchmarkFixture, table: str) -> None:
    semantics = bearoff.SEMANTICS[table]
    checkers = _checkers(benchmark)
    bearoff.all_layouts(checkers)  # the layouts the kernel is given, made once per process
    benchmark.group = f"one-sided build ({checkers} checkers)"
    arrays = benchmark.pedantic(core._one_sided, args=(semantics, checkers), rounds=ROUNDS)  # type: ignore[no-untyped-call]
    benchmark.extra_info["nbytes"] = sum(a.nbytes for a in arrays)
    assert arrays.mean[0] == 0.0 and arrays.mean[1] == 1.0  # nothing to bear off; a checker on the ace


@pytest.mark.parametrize("table", TABLES)
def test_two_sided_build(benchmark: BenchmarkFixture, table: str) -> None:
    semantics = bearoff.SEMANTICS[table]
    checkers = bearoff.TWO_SIDED_CHECKERS
    bearoff.all_layouts(checkers)
    benchmark.group = f"two-sided build ({checkers} x {checkers} checkers)"
    win = benchmark.pedantic(core._two_sided, args=(semantics, checkers), rounds=ROUNDS)  # type: ignore[no-untyped-call]
    benchmark.extra_info["nbytes"] = win.nbytes
    assert win[0, 1] == 1.0 and win[1, 0] == 0.0  # the side with nothing left has won


@pytest.mark.parametrize("method", ["expected_turns", "expected_turns_first", "turns_distribution", "ids"])
def test_lookups(benchmark: BenchmarkFixture, method: str) -> None:
    table = bearoff.one_sided("long")
    rng = np.random.default_rng(SEED)
    picked = rng.integers(0, bearoff.LAYOUTS, LOOKUPS)
    counts = np.ascontiguousarray(bearoff.all_layouts()[picked], dtype=np.int64)
    lookup: Callable[[object], object] = getattr(table, method)
    benchmark.group = f"lookups of {LOOKUPS:,} layouts (long table, int64 counts)"
    found = benchmark(lookup, counts)
    assert isinstance(found, np.ndarray) and len(found) == LOOKUPS


@pytest.mark.parametrize("truncate", [None, "bearoff"], ids=["plain", "truncated"])
@pytest.mark.parametrize("position", list(POSITIONS))
def test_rollout(benchmark: BenchmarkFixture, position: str, truncate: str | None) -> None:
    start = Position.from_text(POSITIONS[position])
    assert start.is_race() and start.is_bearoff() == (position == "bear-off position")
    bearoff.one_sided(start.variant)  # the tables the truncated games are scored by, built before the timing
    bearoff.two_sided(start.variant)

    def work() -> nardy_fast.Rollout:
        return nardy_fast.rollout(start, GAMES, seed=SEED, truncate=truncate)

    benchmark.group = f"rollout of a {position} ({GAMES:,} games)"
    result = benchmark(work)
    assert result.games == GAMES
    benchmark.extra_info.update(
        games=GAMES, truncated=result.truncated, equity=result.equity, equity_stderr=result.equity_stderr
    )
