"""``nardy-fast errors``: an evaluator's error rate on a rolled-out benchmark database, per position class."""

from __future__ import annotations

import argparse
import math
import time

from .. import IMPLEMENTATION, benchmark_errors, read_benchmark
from ..evaluation.outcomes import EVALUATORS
from ..evaluation.search import MAX_PLIES
from .parser import Parser, check_network, errors_of, evaluator_of, integer

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = (
    "Print the error rate of an evaluator on a rolled-out benchmark database (tools/make_benchmark_db.py makes\n"
    "one; docs/benchmarks.md, Rolled-out benchmark databases): per position class and for all positions, the mean\n"
    "equity lost per move x 1000 (the best candidate's rolled-out equity minus that of the move the evaluator\n"
    "picks at --plies; a move outside the candidates loses as much as the worst one), the positions counted and\n"
    "the standard error of the mean over them (rollout noise apart)."
)

_PLIES = integer(0, MAX_PLIES)


def add_arguments(parser: Parser) -> None:
    """The options of ``errors``."""
    parser.add_argument("database", metavar="FILE", help="the database (.npz), or a variant's name for the one the "
                        "package ships (docs/benchmarks.md)")
    parser.add_argument("--evaluator", default="net", metavar="NAME|PATH",
                        help=f"the evaluator: one of {', '.join(EVALUATORS)}, or a weights file (.npz) of nardy-fast "
                        "train (default: %(default)s)")
    parser.add_argument("--plies", type=_PLIES, default=0, metavar="D",
                        help=f"how deep the evaluator searches, 0..{MAX_PLIES} (default: %(default)s)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--held-out", dest="held_out", action="store_const", const=True, default=None,
                       help="the held-out test set alone (default: every position)")
    group.add_argument("--training", dest="held_out", action="store_const", const=False,
                       help="the positions not held out alone")


def _number(value: float, digits: int) -> str:
    return "-" if math.isnan(value) else f"{value:.{digits}f}"


def run(args: argparse.Namespace) -> int:
    """Run ``errors`` with the options of :func:`add_arguments`."""
    database = read_benchmark(args.database, "FILE")
    evaluator = evaluator_of(args.evaluator, "--evaluator")
    check_network(evaluator, database.meta["variant"], "--evaluator", args.evaluator)
    started = time.perf_counter()
    with errors_of("FILE", {"evaluator": "--evaluator", "plies": "--plies"}):
        rates = benchmark_errors(database, evaluator, args.plies, args.held_out)
    seconds = time.perf_counter() - started
    which = {None: "all positions", True: "held-out positions", False: "positions not held out"}[args.held_out]
    print(f"error rate of {args.evaluator} at {args.plies}-ply on {args.database} ({database.meta['variant']} nardy, "
          f"{which}), {seconds:.1f} s, implementation {IMPLEMENTATION}")
    print(f"{'class':<8}  {'positions':>9}  {'loss x1000':>10}  {'stderr':>8}")
    for rate in rates.values():
        print(f"{rate.name:<8}  {rate.count:>9}  {_number(rate.loss, 2):>10}  {_number(rate.stderr, 2):>8}")
    return 0
