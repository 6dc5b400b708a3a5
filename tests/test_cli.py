"""``python -m nardy_fast``: the bench and perft commands run and print what they promise."""

from __future__ import annotations

import pytest

import nardy_fast
from nardy_fast import bench
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
    assert bench.Measure("a", 10, 0, [1.0, 3.0, 3.0]).speedup(bench.Measure("b", 10, 0, [3.0, 3.0, 9.0])) == 3.0


def test_perft_check_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", "--check"]) == 0
    assert capsys.readouterr().out
