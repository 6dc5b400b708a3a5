"""``nardy-fast bench``, the command run when none is given: the benchmark of :mod:`nardy_fast.bench`."""

from __future__ import annotations

import argparse

from .. import bench

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = (
    "Time legal-move generation of the pure-Python reference and the compiled core on the embedded corpus,\n"
    "per variant and API, and whole games (playouts, against GNU Backgammon's Python loop when gnubg-nn\n"
    "is installed); print positions/s, plays/s and games/s with the ratios between them (each figure the\n"
    "median of a few repeats) and a legend of every column. Progress goes to stderr."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``bench``: those of :func:`nardy_fast.bench.add_arguments`."""
    bench.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Run ``bench`` with the options of :func:`add_arguments`."""
    return bench.command(args)
