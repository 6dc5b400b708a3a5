"""``nardy-fast bench``, the command run when none is given: the benchmark of :mod:`nardy_fast.bench`."""

from __future__ import annotations

import argparse

from .. import bench

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = (
    "Time legal-move generation of the pure-Python reference and the compiled core on the embedded corpus,\n"
    "per variant and API, and whole games (playouts, against GNU Backgammon's Python loop when gnubg-nn\n"
    "is installed: pip install gnubg-nn); print positions/s, plays/s and games/s with the ratios between\n"
    "them (each figure the median of a few repeats), a legend of every column, each variant's rows as soon\n"
    "as they are measured, and after each table one verdict line per comparison (its target, and whether a\n"
    "two-thread ratio was taken on a loaded machine). About a minute on a loaded machine of two cores, half\n"
    "that on a quiet one; --long for the longer run. Progress (percent done, time elapsed and left) goes to\n"
    "stderr, redrawn every second."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``bench``: those of :func:`nardy_fast.bench.add_arguments`."""
    bench.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Run ``bench`` with the options of :func:`add_arguments`."""
    return bench.command(args)
