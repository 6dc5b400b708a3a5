"""Time two builds of the compiled core against each other in one process, on a corpus variant.

    python tools/compare_builds.py A/_core.cpython-311-x86_64-linux-gnu.so B/_core....so [--variant short]

Both builds run ``batch_children`` on the same positions, one after the other, in alternating order; the
paired ratio of each round (B's time over A's) cancels the drift of a shared machine that separate runs do
not, and its median and quartiles are printed. Instruction counts (see the README) are steadier still, but
they miss stalls: a change can add instructions and save time.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
import types
from typing import Any

import numpy as np

from nardy_fast import corpus


def load(tag: str, path: str) -> Any:
    """The extension module at ``path`` imported as ``<tag>._core``, beside the installed one."""
    package = types.ModuleType(tag)
    package.__path__ = []
    sys.modules[tag] = package
    spec = importlib.util.spec_from_file_location(f"{tag}._core", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="the first build's extension module file")
    parser.add_argument("b", help="the second build's extension module file")
    parser.add_argument("--variant", default="short")
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args(argv)
    a, b = load("build_a", args.a), load("build_b", args.b)
    rows, rolls = corpus.load(args.variant)
    if not np.array_equal(a.batch_children(rows, rolls)[0], b.batch_children(rows, rolls)[0]):
        print("the two builds give different children")
        return 1

    def timed(module: Any) -> float:
        start = time.perf_counter()
        module.batch_children(rows, rolls)
        return time.perf_counter() - start

    times_a, times_b, ratios = [], [], []
    for i in range(args.rounds):
        first, second = (a, b) if i % 2 else (b, a)
        t_first, t_second = timed(first), timed(second)
        t_a, t_b = (t_first, t_second) if first is a else (t_second, t_first)
        times_a.append(t_a)
        times_b.append(t_b)
        ratios.append(t_b / t_a)
    q1, _, q3 = statistics.quantiles(ratios)
    per = 1e9 / len(rows)
    print(
        f"A {statistics.median(times_a) * per:.0f} ns/position, B {statistics.median(times_b) * per:.0f} ns/position;"
        f" B/A paired: median {statistics.median(ratios):.3f}, quartiles {q1:.3f} to {q3:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
