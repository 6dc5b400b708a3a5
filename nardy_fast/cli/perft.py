"""``nardy-fast perft``: count the move paths of a given depth, by first move with ``--divide``, or check
the counts shipped with the package with ``--check``."""

from __future__ import annotations

import argparse
import time
from typing import IO, Optional

from .. import IMPLEMENTATION, MAX_PERFT_DEPTH, VARIANTS, Position, divide, implementations, perft
from ..errors import quote
from ..perft import perft_cases
from ..position import Position as AnyPosition
from .parser import Parser, UsageError, errors_of, integer, parse_position
from .progress import Progress, progress_option, progress_stream

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = (
    "Count the move paths of a given depth (perft: every roll, every legal move, repeated depth times)\n"
    "and print, for each start, the count, the time taken and the nodes per second; --divide also prints\n"
    "the count below every first move, each as soon as it is counted. --check instead prints, for each\n"
    "count shipped with the package, ok or MISMATCH and the count found, and exits with status 1 on a\n"
    "mismatch (it prints the divide of a mismatch itself: --divide is refused with it). A progress bar\n"
    "(first moves counted, percent, time left) is drawn on stderr when it is a terminal, or with --progress."
)

_DEPTH = integer(0, MAX_PERFT_DEPTH)
#: Counts deeper than this (a second or more from a busy position) move the bar by their moves' counts.
_SPLIT_DEPTH = 3
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
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--divide", action="store_true", help="also print the count of every first move")
    how.add_argument(
        "--check",
        action="store_true",
        help="check the counts shipped with the package instead (not with --divide: a mismatch prints its"
        " divide by itself)",
    )
    parser.add_argument(
        "--budget",
        type=_COUNT,
        default=5_000_000,
        metavar="NODES",
        help="with --check: only the counts of at most this many nodes (default: %(default)s)",
    )
    progress_option(parser)


def _check_command(budget: int, stream: Optional[IO[str]]) -> int:
    """Run the shipped perft cases of at most ``budget`` nodes; on a mismatch print the divide of both
    implementations."""
    print(f"implementation: {IMPLEMENTATION}; counts of at most {budget:,} nodes", flush=True)
    failures = 0
    cases = perft_cases(budget)
    with Progress(len(cases), stream, "counts") as progress:
        for done, case in enumerate(cases, 1):
            position = Position.from_text(case.text)
            found = perft(position, case.depth)
            status = "ok" if found == case.count else "MISMATCH"
            progress.print(
                f"{status:>8}  {case.text}  depth {case.depth}: expected {case.count} ({case.source}),"
                f" found {found}"
            )
            if found != case.count:
                failures += 1
                mine = divide(position, case.depth)
                theirs = divide(implementations()["python"].Position.from_text(case.text), case.depth)
                for label in sorted(set(mine) | set(theirs)):
                    if mine.get(label) != theirs.get(label):
                        progress.print(f"          {label}: {mine.get(label)} (reference {theirs.get(label)})")
            progress.update(done)
    return 1 if failures else 0


def first_moves(position: AnyPosition) -> list[tuple[str, AnyPosition]]:
    """The first moves perft counts below, in :func:`nardy_fast.divide`'s order and with its labels
    (``"<roll> <move>"``, ``"pending <move>"``), each with the position it leads to."""
    found = []
    for roll in position._rolls():
        label = "pending" if roll is None else f"{roll[0]}-{roll[1]}"
        found += [(f"{label} {move}", move.result) for move in position.legal_moves(roll)]
    return found


def _split(position: AnyPosition, depth: int, start: float, share: float, progress: Progress) -> int:
    """perft of ``position``, the bar moved from ``start`` by ``share`` as it goes: a count deeper than
    :data:`_SPLIT_DEPTH` (seconds or more) is the sum of its moves' counts, each moving the bar by its part."""
    if depth <= _SPLIT_DEPTH:
        return perft(position, depth)
    moves = first_moves(position)
    total = 0
    for part, (_, result) in enumerate(moves):
        total += _split(result, depth - 1, start + share * part / len(moves), share / len(moves), progress)
        progress.update(start + share * (part + 1) / len(moves))
    return total


def _count(
    position: AnyPosition, depth: int, divided: bool, progress: Progress
) -> tuple[int, Optional[dict[str, int]]]:
    """perft of ``position`` (and its divide when ``divided``), one first move at a time when the bar is drawn
    or the divide printed, so that both move while a deep count runs."""
    if not divided and (progress.stream is None or depth == 0):
        return perft(position, depth), None
    moves = first_moves(position)
    progress.total = len(moves)
    progress.update(0)
    counts: dict[str, int] = {}
    for done, (label, result) in enumerate(moves):
        if progress.stream is None:
            counts[label] = perft(result, depth - 1)
        else:
            counts[label] = _split(result, depth - 1, done, 1.0, progress)
        if divided:
            progress.print(f"  {label}: {counts[label]}")
        progress.update(done + 1)
    return sum(counts.values()), counts


def run(args: argparse.Namespace) -> int:
    """Run ``perft`` with the options of :func:`add_arguments`."""
    if args.check:
        return _check_command(args.budget, progress_stream(args.progress))
    if args.position is not None:
        positions = [("position", parse_position(args.position))]
    else:
        names = VARIANTS if args.variant == "all" else (args.variant,)
        positions = [(name, Position.start(name)) for name in names]
    if args.divide and args.depth == 0:
        raise UsageError(f"--depth: must be at least 1 with --divide (got {quote(str(args.depth))})")
    print(f"implementation: {IMPLEMENTATION}", flush=True)
    stream = progress_stream(args.progress)
    for name, position in positions:
        start = time.perf_counter()
        with errors_of("--depth"), Progress(1, stream, "first moves") as progress:
            nodes, _ = _count(position, args.depth, args.divide, progress)
        seconds = time.perf_counter() - start
        rate = nodes / seconds if seconds > 0 else float("inf")
        print(
            f"{name:>8}  depth {args.depth}  perft {nodes:>10}  {seconds:8.3f} s  {rate:12,.0f} nodes/s",
            flush=True,
        )
    return 0
