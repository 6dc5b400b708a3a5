"""Crazy gulbar's ladders against the other variants (docs/benchmarks.md, "Crazy ladders").

    python tools/ladder_bench.py              # cost per result on the embedded corpus, one thread, all variants
    python tools/ladder_bench.py --ladder     # and the 2-2 ladder of 3,382,462 results: time and peak memory
    python tools/ladder_bench.py --ladder --reference   # the reference too (minutes)

The cost per result is a run of ``batch_children`` over a variant's 10,000 corpus rows divided by its
results, ``--repeats`` runs of each, in blocks and then interleaved (``per_result``); the ladder runs in a
child process of its own, so that its peak resident memory (``ru_maxrss``) is its own.
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


def per_result(repeats: int, interleaved: bool) -> dict[str, dict[str, float]]:
    """Per variant, ns per result of ``batch_children`` on its corpus, core, one thread, over ``repeats`` runs
    of each: the fastest and the median run, and the process's user and system CPU time over the variant's
    runs. In blocks, a variant's runs follow one another, its data warm in the caches from the run before (a
    loop over one variant); ``interleaved``, in ``repeats`` rounds of every variant once, in an order that
    turns each round, each run follows another variant's, and against short there is also the median over
    the rounds of the ratio of the two runs of one round (``paired``: runs seconds apart, which the shared
    machine's drift between rounds leaves alone). The system time is page faults: of the output, when a
    batch's rows outgrow the core's spare buffers (128 MB), and of the search's workspace, when it outgrows
    what the core keeps of idle ones (128 MB)."""
    from nardy_fast import VARIANTS
    from nardy_fast._dispatch import implementations
    from nardy_fast.corpus import load

    core = implementations()["cython"]
    corpus = {variant: load(variant) for variant in VARIANTS}
    results = {variant: len(core.batch_children(*corpus[variant])[0]) for variant in VARIANTS}
    if interleaved:
        order = [VARIANTS[(r + k) % len(VARIANTS)] for r in range(repeats) for k in range(len(VARIANTS))]
    else:
        order = [variant for variant in VARIANTS for _ in range(repeats)]
    runs: dict[str, list[float]] = {variant: [] for variant in VARIANTS}
    user = dict.fromkeys(VARIANTS, 0.0)
    system = dict.fromkeys(VARIANTS, 0.0)
    for variant in order:
        before = resource.getrusage(resource.RUSAGE_SELF)
        start = time.perf_counter()
        core.batch_children(*corpus[variant])
        runs[variant].append((time.perf_counter() - start) * 1e9 / results[variant])
        after = resource.getrusage(resource.RUSAGE_SELF)
        user[variant] += (after.ru_utime - before.ru_utime) * 1e9 / results[variant] / repeats
        system[variant] += (after.ru_stime - before.ru_stime) * 1e9 / results[variant] / repeats
    costs = {}
    for variant in VARIANTS:
        costs[variant] = {
            "fastest": min(runs[variant]),
            "median": statistics.median(runs[variant]),
            "user": user[variant],
            "system": system[variant],
        }
        if interleaved:
            costs[variant]["paired"] = statistics.median(a / b for a, b in zip(runs[variant], runs["short"]))
    return costs


def report(costs: dict[str, dict[str, float]]) -> None:
    """One line a variant: its ns per result, and against short's."""
    short = costs["short"]
    for variant, cost in costs.items():
        paired = f" {cost['paired']:5.2f}x" if "paired" in cost else "       "
        print(
            f"{variant:7s} fastest {cost['fastest']:6.1f}  median {cost['median']:6.1f}   "
            f"{cost['fastest'] / short['fastest']:5.2f}x {cost['median'] / short['median']:5.2f}x{paired} short"
            f"   (CPU: user {cost['user']:6.1f}, system {cost['system']:5.1f})"
        )


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
    parser.add_argument("--repeats", type=int, default=9, help="runs of each variant in each order (9)")
    parser.add_argument("--ladder", action="store_true", help="time the 3,382,462-result ladder")
    parser.add_argument("--reference", action="store_true", help="the ladder in the reference too")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        ladder_child(args.child)
        return
    print(f"ns per result, {args.repeats} runs of each; against short: fastest / fastest, median / median")
    print("in blocks (each variant's runs one after another):")
    report(per_result(args.repeats, interleaved=False))
    print("interleaved (rounds of every variant), and the median of each round's own ratio:")
    report(per_result(args.repeats, interleaved=True))
    if args.ladder:
        for implementation in ("cython", "python") if args.reference else ("cython",):
            found = ladder(implementation)
            print(
                f"ladder {implementation}: {found['seconds']:.2f} s, {found['results']:,} results, "
                f"peak {found['peak_bytes'] / 2**30:.2f} GiB"
            )


if __name__ == "__main__":
    main()
