"""Benchmarks of game analysis (``pytest bench/test_bench_analysis.py``; issue 44's targets: a 7-point
long-nardy match analysed in under 1 s at 0 ply and under 10 s at 1 ply, on one core). The match is the first
of a seeded duel of the built-in network against itself (``duel(..., match=7, match_records=True)``, 0 ply,
Janowski's cube), analysed by ``nardy_fast.analyse`` with the core, on one thread (at 1 ply through GNU
Backgammon's analysis filter, the default, and over every move); its games, decisions and
the seconds a decision are in ``extra_info``. Nothing here asserts a time.
"""

from __future__ import annotations

from functools import cache

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

import nardy_fast
from nardy_fast import Greedy
from nardy_fast.records import MatchRecord

pytest.importorskip("nardy_fast.core", reason="the compiled core is not built")


@cache
def match() -> MatchRecord:
    """The 7-point long-nardy match the benchmark analyses."""
    result = nardy_fast.duel(Greedy(), Greedy(), "long", 2, seed=1, match=7, match_records=True)
    return result.match_records[0]


@pytest.mark.parametrize(("plies", "every"), [(0, False), (1, False), (1, True)],
                         ids=["0-ply", "1-ply", "1-ply-all-moves"])
def test_analyse(benchmark: BenchmarkFixture, plies: int, every: bool) -> None:
    record = match()
    nardy_fast.analyse(record, plies=0)  # tables and networks loaded before timing
    benchmark.group = "analyse a 7-point long-nardy match"
    options = {"plies": plies, **({"move_filter": None} if every else {})}
    found = benchmark.pedantic(nardy_fast.analyse, (record,), options,  # type: ignore[no-untyped-call]
                               rounds=3 if plies else 5)
    benchmark.extra_info["games"] = len(record.games)
    benchmark.extra_info["decisions"] = len(found.decisions)
    if benchmark.stats is not None:  # None when benchmarks are disabled (under xdist)
        benchmark.extra_info["ms/decision"] = round(1000 * benchmark.stats.stats.median / len(found.decisions), 3)
    assert found.decisions and record.length == 7
