"""Command line.

* ``python -m nardy_fast`` (= ``bench``): positions/s and plays/s of the reference and the core, per variant,
  on the embedded corpus, with their ratios.
* ``python -m nardy_fast perft``: move paths from the start of every variant or a given position, ``--divide``
  by first move, ``--check`` against the counts shipped with the package (derived by hand, counted by GNU
  Backgammon, or regression counts of the core; ``--budget`` bounds their size).
* ``python -m nardy_fast corpus``: rebuild the embedded corpus (seeded self-play).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from . import IMPLEMENTATION, VARIANTS, Position, bench, corpus, divide, perft
from ._dispatch import implementations
from .perft import perft_cases

__all__ = ["main"]


def _check_command(budget: int) -> int:
    """Run the shipped perft cases of at most ``budget`` nodes; on a mismatch print the divide of both
    implementations."""
    print(f"implementation: {IMPLEMENTATION}; counts of at most {budget:,} nodes")
    failures = 0
    for case in perft_cases(budget):
        position = Position.from_text(case.text)
        found = perft(position, case.depth)
        status = "ok" if found == case.count else "MISMATCH"
        print(f"{status:>8}  {case.text}  depth {case.depth}: expected {case.count} ({case.source}), found {found}")
        if found != case.count:
            failures += 1
            mine = divide(position, case.depth)
            theirs = divide(implementations()["python"].Position.from_text(case.text), case.depth)
            for label in sorted(set(mine) | set(theirs)):
                if mine.get(label) != theirs.get(label):
                    print(f"          {label}: {mine.get(label)} (reference {theirs.get(label)})")
    return 1 if failures else 0


def _perft_command(args: argparse.Namespace) -> int:
    if args.check:
        return _check_command(args.budget)
    if args.position:
        positions = [("position", Position.from_text(args.position))]
    else:
        names = VARIANTS if args.variant == "all" else (args.variant,)
        positions = [(name, Position.start(name)) for name in names]
    print(f"implementation: {IMPLEMENTATION}")
    for name, position in positions:
        start = time.perf_counter()
        if args.divide:
            counts = divide(position, args.depth)
            for label, count in counts.items():
                print(f"  {label}: {count}")
            nodes = sum(counts.values())
        else:
            nodes = perft(position, args.depth)
        seconds = time.perf_counter() - start
        rate = nodes / seconds if seconds > 0 else float("inf")
        print(f"{name:>8}  depth {args.depth}  perft {nodes:>10}  {seconds:8.3f} s  {rate:12,.0f} nodes/s")
    return 0


def _corpus_command(args: argparse.Namespace) -> int:
    import numpy as np

    arrays = corpus.build(Position, args.size)
    target = Path(__file__).parent / "data" / "corpus.npz"
    np.savez_compressed(target, **arrays)  # type: ignore[arg-type]
    print(f"wrote {target} ({args.size} positions per variant)")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m nardy_fast`` and the ``nardy-fast`` script."""
    parser = argparse.ArgumentParser(prog="python -m nardy_fast", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command")
    bench_parser = commands.add_parser("bench", help="benchmark both implementations (default command)")
    bench_parser.add_argument("--size", type=int, default=corpus.SIZE, help="corpus positions per variant")
    bench_parser.add_argument("--reference-size", type=int, default=200, help="positions for legal_moves")
    bench_parser.add_argument("--repeats", type=int, default=5)
    perft_parser = commands.add_parser("perft", help="count move paths")
    perft_parser.add_argument("--variant", choices=("all", *VARIANTS), default="all")
    perft_parser.add_argument("--depth", type=int, default=2)
    perft_parser.add_argument("--position", metavar="TEXT", help="a position text instead of the start")
    perft_parser.add_argument("--divide", action="store_true", help="print the count of every first move")
    perft_parser.add_argument("--check", action="store_true", help="check the shipped counts")
    perft_parser.add_argument(
        "--budget", type=int, default=5_000_000, help="with --check: only counts of at most this many nodes"
    )
    corpus_parser = commands.add_parser("corpus", help="rebuild the embedded benchmark corpus")
    corpus_parser.add_argument("--size", type=int, default=corpus.SIZE)
    args = parser.parse_args(argv)
    if args.command in (None, "bench"):
        if args.command is None:
            args = parser.parse_args(["bench"])
        return bench.main(args.size, args.reference_size, args.repeats)
    if args.command == "corpus":
        return _corpus_command(args)
    return _perft_command(args)


if __name__ == "__main__":
    sys.exit(main())
