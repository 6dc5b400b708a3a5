"""``nardy-fast perft``: count the move paths of a given depth, by first move with ``--divide``, or check
the counts shipped with the package with ``--check``."""

from __future__ import annotations

import argparse
import time

from .. import IMPLEMENTATION, MAX_PERFT_DEPTH, VARIANTS, Position, divide, perft
from .._dispatch import implementations
from ..errors import quote
from ..perft import perft_cases
from .parser import Parser, UsageError, errors_of, integer, parse_position

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = (
    "Count the move paths of a given depth (perft: every roll, every legal move, repeated depth times)\n"
    "and print, for each start, the count, the time taken and the nodes per second; --divide also prints\n"
    "the count below every first move. --check instead prints, for each count shipped with the package,\n"
    "ok or MISMATCH and the count found, and exits with status 1 on a mismatch."
)

_DEPTH = integer(0, MAX_PERFT_DEPTH)
_COUNT = integer(0)


def add_arguments(parser: Parser) -> None:
    """The options of ``perft``."""
    start = parser.add_mutually_exclusive_group()
    start.add_argument(
        "--variant",
        choices=("all", *VARIANTS),
        default="all",
        help="count from the start of this variant, or of every one with all (default: %(default)s)",
    )
    start.add_argument("--position", metavar="TEXT", help="count from this position instead of a start")
    parser.add_argument(
        "--depth",
        type=_DEPTH,
        default=2,
        metavar="N",
        help=f"plies (moves) deep to count, 0..{MAX_PERFT_DEPTH} (default: %(default)s)",
    )
    parser.add_argument(
        "--divide", action="store_true", help="also print the count of every first move"
    )
    parser.add_argument(
        "--check", action="store_true", help="check the counts shipped with the package instead"
    )
    parser.add_argument(
        "--budget",
        type=_COUNT,
        default=5_000_000,
        metavar="NODES",
        help="with --check: only the counts of at most this many nodes (default: %(default)s)",
    )


def _check_command(budget: int) -> int:
    """Run the shipped perft cases of at most ``budget`` nodes; on a mismatch print the divide of both
    implementations."""
    print(f"implementation: {IMPLEMENTATION}; counts of at most {budget:,} nodes")
    failures = 0
    for case in perft_cases(budget):
        position = Position.from_text(case.text)
        found = perft(position, case.depth)
        status = "ok" if found == case.count else "MISMATCH"
        print(
            f"{status:>8}  {case.text}  depth {case.depth}: expected {case.count} ({case.source}), found {found}"
        )
        if found != case.count:
            failures += 1
            mine = divide(position, case.depth)
            theirs = divide(implementations()["python"].Position.from_text(case.text), case.depth)
            for label in sorted(set(mine) | set(theirs)):
                if mine.get(label) != theirs.get(label):
                    print(f"          {label}: {mine.get(label)} (reference {theirs.get(label)})")
    return 1 if failures else 0


def run(args: argparse.Namespace) -> int:
    """Run ``perft`` with the options of :func:`add_arguments`."""
    if args.check:
        return _check_command(args.budget)
    if args.position is not None:
        positions = [("position", parse_position(args.position))]
    else:
        names = VARIANTS if args.variant == "all" else (args.variant,)
        positions = [(name, Position.start(name)) for name in names]
    if args.divide and args.depth == 0:
        raise UsageError(f"--depth: must be at least 1 with --divide (got {quote(str(args.depth))})")
    print(f"implementation: {IMPLEMENTATION}")
    for name, position in positions:
        start = time.perf_counter()
        with errors_of("--depth"):
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
