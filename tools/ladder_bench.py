"""Crazy gulbar's ladders against the other variants (docs/benchmarks.md, "Crazy ladders").

    python tools/ladder_bench.py              # cost per result on the embedded corpus, one thread, all variants
    python tools/ladder_bench.py --ladder     # and the 2-2 ladder of 3,382,462 results: time and peak memory
    python tools/ladder_bench.py --ladder --reference   # the reference too (minutes)

The cost per result is the median of ``--repeats`` runs of ``batch_children`` over each variant's 10,000
corpus rows, divided by the results; the ladder runs in a child process of its own, so that its peak resident
memory (``ru_maxrss``) is its own.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

#: The 2-2 ladder under ``ladder_per_value=4`` that the whole-game differential met (game 726 of seed 20261201,
#: random policy): 20 steps, 3,382,462 results (nardy_fast/data/perft.txt).
LADDER = "crazy b 1:12,7:-4,8:-1,11:-1,12:-1,14:-1,16:-3,17:-2,20:-1,24:-1 off=3/0 first=- ladder_per_value=4"
LADDER_ROLL = (2, 2)
LADDER_RESULTS = 3_382_462


def per_result(repeats: int) -> dict[str, tuple[float, float, float]]:
    """Per variant, ns per result of ``batch_children`` on its corpus, core, one thread: the median of the
    runs' wall-clock times, and the process's user and system CPU time over all runs. The system time is
    page faults: of the output, when a batch's rows outgrow the core's spare buffers (128 MB), and of the
    search's workspace, when it outgrows what the core keeps of idle ones (128 MB)."""
    from nardy_fast import VARIANTS
    from nardy_fast._dispatch import implementations
    from nardy_fast.corpus import load

    core = implementations()["cython"]
    costs = {}
    for variant in VARIANTS:
        rows, rolls = load(variant)
        results = len(core.batch_children(rows, rolls)[0])
        times = []
        before = resource.getrusage(resource.RUSAGE_SELF)
        for _ in range(repeats):
            start = time.perf_counter()
            core.batch_children(rows, rolls)
            times.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_SELF)
        scale = 1e9 / results / repeats
        costs[variant] = (
            statistics.median(times) * 1e9 / results,
            (after.ru_utime - before.ru_utime) * scale,
            (after.ru_stime - before.ru_stime) * scale,
        )
    return costs


def ladder_child(implementation: str) -> None:
    """Run in a child process: the ladder's children once; prints seconds, results and peak RSS as JSON."""
    from nardy_fast._dispatch import implementations

    impl = implementations()[implementation]
    position = impl.Position.from_text(LADDER)
    start = time.perf_counter()
    children = impl.children(position.to_array(), LADDER_ROLL)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"seconds": seconds, "results": len(children), "peak_bytes": peak}))


def ladder(implementation: str) -> dict[str, float]:
    """The ladder in a child process: its seconds, results and peak resident bytes."""
    out = subprocess.run(
        [sys.executable, __file__, "--child", implementation], check=True, capture_output=True, text=True
    ).stdout
    found: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    if found["results"] != LADDER_RESULTS:
        raise SystemExit(f"the ladder has {found['results']} results, not {LADDER_RESULTS}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--ladder", action="store_true", help="time the 3,382,462-result ladder")
    parser.add_argument("--reference", action="store_true", help="the ladder in the reference too")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        ladder_child(args.child)
        return
    costs = per_result(args.repeats)
    short = costs["short"]
    for variant, (wall, user, system) in costs.items():
        print(
            f"{variant:7s} {wall:8.1f} ns per result  {wall / short[0]:5.2f}x short"
            f"   (CPU: user {user:6.1f} ns, {user / short[1]:5.2f}x short; system {system:5.1f} ns)"
        )
    if args.ladder:
        for implementation in ("cython", "python") if args.reference else ("cython",):
            found = ladder(implementation)
            print(
                f"ladder {implementation}: {found['seconds']:.2f} s, {found['results']:,} results, "
                f"peak {found['peak_bytes'] / 2**30:.2f} GiB"
            )


if __name__ == "__main__":
    main()
