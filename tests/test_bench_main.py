"""The main job (``python -m nardy_fast bench``) and its measuring helpers."""

from __future__ import annotations

import numpy as np
import pytest

import nardy_fast
from nardy_fast import bench, corpus
from nardy_fast.__main__ import main
from nardy_fast.variants import VARIANTS


def test_bench_prints_every_variant_and_api(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--size", "20", "--reference-size", "3", "--repeats", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"implementation: {nardy_fast.IMPLEMENTATION}; corpus: 20 positions")
    for variant in VARIANTS:
        rows = [line for line in lines if line.split()[0] == variant]
        assert any("reference legal_moves" in line for line in rows), variant
        if nardy_fast.IMPLEMENTATION == "cython":
            assert any("x reference (same positions)" in line for line in rows), variant
            assert any("x 1 thread" in line for line in rows), variant


def test_speedup_is_the_median_of_ratios_within_repeats() -> None:
    fast = bench.Measure("fast", 10, 0, [1.0, 2.0, 10.0])
    slow = bench.Measure("slow", 10, 0, [4.0, 4.0, 10.0])
    # within repeats: 4x, 2x, 1x; the ratio of the medians would be 4 / 2 = 2x as well, but not in general
    assert fast.speedup(slow) == 2.0
    assert (
        bench.Measure("a", 10, 0, [1.0, 3.0, 3.0]).speedup(bench.Measure("b", 10, 0, [3.0, 3.0, 9.0])) == 3.0
    )


def test_cpu_ratio_is_the_median_of_per_position_ratios_within_repeats() -> None:
    # two threads on 10 positions spending 1.0, 1.2, 3.0 CPU seconds; one thread on 20 spending 2.0, 2.0, 2.0
    two = bench.Measure("two", 10, 0, [0.5, 0.6, 1.5], [1.0, 1.2, 3.0])
    one = bench.Measure("one", 20, 0, [2.0, 2.0, 2.0], [2.0, 2.0, 2.0])
    # per position: 0.1 / 0.1, 0.12 / 0.1, 0.3 / 0.1
    assert two.cpu_ratio(one) == pytest.approx(1.2)
    assert bench.Measure("wall", 5, 0, [1.0]).cpu_samples == [1.0]


@pytest.mark.parametrize("variant", ["short", "crazy"])
def test_balanced_split_covers_every_row_in_order_by_work(variant: str) -> None:
    """Every row in exactly one part, each part ascending; the parts' work (children plus one per row) within
    the heaviest row of each other, as the greedy split promises."""
    rows, rolls = corpus.load(variant)
    weights = np.diff(nardy_fast.batch_children(rows[:300], rolls[:300])[1]) + 1
    parts = bench.balanced_split(weights, 3)
    assert all((np.diff(part) > 0).all() for part in parts)
    assert sorted(np.concatenate(parts).tolist()) == list(range(len(weights)))
    loads = [int(weights[part].sum()) for part in parts]
    assert max(loads) - min(loads) <= weights.max()
    assert [len(r) for r, _ in bench.balanced_parts(rows[:300], rolls[:300], 3)] == [len(p) for p in parts]


def test_batched_on_threads_and_processes_counts_every_child() -> None:
    rows, rolls = corpus.load("short")
    rows, rolls = rows[:300], rolls[:300]
    plays = len(nardy_fast.batch_children(rows, rolls)[0])
    assert (
        bench.batched(rows, rolls)()
        == bench.batched(rows, rolls, 2)()
        == bench.batched(rows, rolls, 3)()
        == bench.in_processes(rows, rolls, 2)()
        == plays
    )
