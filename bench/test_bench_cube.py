"""Benchmarks of cube decisions (``pytest bench/test_bench_cube.py``; issue 43's targets: at least 100,000
positions/s through the batch path at 0 ply, under 20 ms a position at 1 ply in short nardy and 50 ms in long
nardy). Every member of a group does the same work; the ratios are printed at the end of the run
(``bench/conftest.py``). Nothing here asserts a time.

* ``cube_decisions``: the batch path at 0 ply over corpus rows of every variant, money play and a match,
  core and reference (a few thousand rows); the core's rate over a large batch is in
  ``extra_info["rows/s"]``.
* ``cube_decision 1-ply``: the 1-ply decision of middle-game positions of short and of long nardy (the
  positions of ``test_bench_evaluation.py``'s hints), core and reference; the core's mean over corpus
  positions of the variant is in ``extra_info["ms/position"]``.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

import nardy_fast
from nardy_fast import Match, corpus, layout, reference

core = pytest.importorskip("nardy_fast.core", reason="the compiled core is not built")

SMALL = 2_000  # rows the reference decides
LARGE = 200_000  # rows the core's rate is measured on
MIDDLE = {
    "short": "short w 1:-2,6:4,8:3,12:-4,13:4,17:-3,19:-4,21:2,23:-2,24:2 first=-",
    "long": "long w 1:1,3:2,5:1,7:-1,8:-2,10:-2,11:-2,12:-8,14:2,16:2,17:1,19:1,20:1,22:2,24:2 first=-",
}
MATCHES = {"money": Match(), "match": Match(7, (2, 4))}


def _rows(size: int, variants: tuple[str, ...] = nardy_fast.VARIANTS) -> np.ndarray:
    """Unfinished corpus rows of ``variants``, with no pending list and no bear-off (whose 15-checker tables
    the reference builds slowly: minutes), repeated to ``size``."""
    rows = np.concatenate([corpus.load(v)[0] for v in variants])
    rows = rows[~layout.is_over(rows) & (rows[:, layout.NPENDING] == 0) & ~layout.is_bearoff(rows)]
    return np.ascontiguousarray(np.resize(rows, (size, layout.WIDTH)))


@pytest.mark.parametrize("scoring", sorted(MATCHES))
@pytest.mark.parametrize("api", ["core cube_decisions", "reference cube_decisions"])
def test_cube_decisions(benchmark: BenchmarkFixture, scoring: str, api: str) -> None:
    match = MATCHES[scoring]
    rows = _rows(SMALL)
    record = core.IMPLEMENTATION_RECORD if api.startswith("core") else reference.IMPLEMENTATION_RECORD
    record.cube_decisions(rows, match=match)  # tables built before timing
    benchmark.group = f"cube_decisions 0-ply {scoring} ({SMALL:,} rows)"
    if api.startswith("core"):
        large = _rows(LARGE)
        record.cube_decisions(large, match=match)
        start = time.perf_counter()
        record.cube_decisions(large, match=match)
        benchmark.extra_info["rows/s"] = round(LARGE / (time.perf_counter() - start))
    found = benchmark(record.cube_decisions, rows, match=match)
    assert len(found.action) == SMALL


@pytest.mark.parametrize("variant", ["short", "long"])
@pytest.mark.parametrize("api", ["core 1-ply", "reference 1-ply"])
def test_cube_decision_one_ply(benchmark: BenchmarkFixture, variant: str, api: str) -> None:
    implementation = core if api.startswith("core") else reference
    position = implementation.Position.from_text(MIDDLE[variant])
    position.cube_decision(plies=1)  # tables built before timing
    benchmark.group = f"cube_decision {variant} 1-ply"
    if api.startswith("core"):
        sample = [implementation.Position.from_array(row) for row in _rows(40, (variant,))[::1]]
        for one in sample:
            one.cube_decision(plies=1)
        start = time.perf_counter()
        for one in sample:
            one.cube_decision(plies=1)
        benchmark.extra_info["ms/position"] = round(1000 * (time.perf_counter() - start) / len(sample), 2)
    found = benchmark.pedantic(position.cube_decision, kwargs={"plies": 1}, rounds=5)  # type: ignore[no-untyped-call]
    assert found.action
