"""Measure the strength of the network evaluator on duplicate dice, and the speed of its greedy playouts.

    python tools/strength.py [--variant short ...|all] [--games 2000] [--seed 1] [--plies-games 400]
                             [--two-ply-games 100] [--speed-games 200] [--repeats 3] [--weights FILE]
                             [--baseline DIR] [--no-gnubg] [--markdown]

For each variant (``nardy_fast.bench.strength.strength_table``): the network at 0 ply against ``"random"``
and ``Greedy("heuristic")``; in short nardy also against ``Greedy("pubeval")`` and GNU Backgammon's 0-ply net
(``gnubg-nn``, when installed), and that net against pubeval and against the network at 1 ply
(``--plies-games``); with ``--baseline DIR``, against the network ``DIR/<variant>.npz`` (the networks shipped
before: ``bench/baseline``), composed with the race evaluator as ``"net"`` is; the network at 1 ply
(``--plies-games``) and at 2 ply (``--two-ply-games``) against itself at 0 ply. Every duel is ``nardy_fast.duel`` on the dice of
``--seed``: points per game for the first player, with the standard error over the pairs of games. Then
(``--speed-games``, 0 to skip) each variant's ``Greedy(net)`` playouts on one thread against GNU Backgammon's
0-ply self-play loop (of short nardy) in this process, with their ratio (the issue's target is short's).

The network is the one shipped for each variant (``"net"``), or ``--weights FILE`` (one variant: the file's,
composed with the race evaluator as ``"net"`` is). The table
goes to stdout (``--markdown``: for docs/benchmarks.md, under the exact command line), progress to stderr.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path
from typing import Optional

from nardy_fast import VARIANTS, NardyError
from nardy_fast.bench.strength import (
    DEFAULT_GAMES,
    DEFAULT_ONE_PLY_GAMES,
    DEFAULT_SPEED_GAMES,
    DEFAULT_TWO_PLY_GAMES,
    SpeedRow,
    StrengthRow,
    markdown_table,
    network_label,
    speed,
    strength_table,
    text_table,
)
from nardy_fast.evaluation.composite import Composite
from nardy_fast.evaluation.evaluators import EvaluatorLike
from nardy_fast.evaluation.network import Network


def _even(text: str) -> int:
    """A game count: an even integer, 0 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0 or value % 2:
        raise argparse.ArgumentTypeError(f"must be an even integer 0 or more (pairs on duplicate dice): {value}")
    return value


def _count(text: str) -> int:
    """A non-negative integer."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more: {value}")
    return value


def _progress(what: str, done: int, games: int, seconds: float) -> None:
    print(f"  {what}: {done:,}/{games:,} games, {seconds:.0f} s", file=sys.stderr, flush=True)


def parser() -> argparse.ArgumentParser:
    """The command's options."""
    out = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    out.add_argument("--variant", action="append", choices=(*VARIANTS, "all"), help="repeatable; default short")
    out.add_argument("--games", type=_even, default=DEFAULT_GAMES, help="games of each 0-ply duel")
    out.add_argument("--seed", type=int, default=1)
    out.add_argument("--plies-games", type=_even, default=DEFAULT_ONE_PLY_GAMES, help="games of 1-ply vs 0-ply")
    out.add_argument("--two-ply-games", type=_even, default=DEFAULT_TWO_PLY_GAMES, help="games of 2-ply vs 0-ply")
    out.add_argument("--speed-games", type=_count, default=DEFAULT_SPEED_GAMES, help="games of the speed figure; 0 skips it")
    out.add_argument("--repeats", type=int, default=3, help="runs of the speed figure (its median)")
    out.add_argument("--weights", help="a weights file (.npz) to measure instead of the shipped network")
    out.add_argument("--baseline", help="a directory of networks <variant>.npz the network also meets (bench/baseline)")
    out.add_argument("--no-gnubg", action="store_true", help="leave GNU Backgammon's duels out")
    out.add_argument("--markdown", action="store_true", help="a Markdown table for docs/benchmarks.md")
    return out


def main(argv: Optional[list[str]] = None) -> int:
    """Run the measurements and print the table."""
    args_list = sys.argv[1:] if argv is None else argv
    command = "python tools/strength.py " + shlex.join(args_list)
    options = parser().parse_args(args_list)
    variants = list(VARIANTS) if "all" in (options.variant or []) else list(dict.fromkeys(options.variant or ["short"]))
    net: EvaluatorLike = "net"
    try:
        if options.weights is not None:
            weights = Network.load(options.weights)
            if variants != [weights.variant]:
                parser().error(f"--weights: the file holds {weights.variant} weights; give --variant {weights.variant} alone")
            net = Composite(contact=weights)
        rows: list[StrengthRow] = []
        start = time.perf_counter()
        for variant in variants:
            print(f"{variant} ({network_label(net, variant)}):", file=sys.stderr, flush=True)
            baseline = None
            if options.baseline is not None:
                baseline = Composite(contact=Network.load(Path(options.baseline) / f"{variant}.npz"))
            rows += strength_table(
                variant,
                options.games,
                options.seed,
                net=net,
                one_ply_games=options.plies_games,
                two_ply_games=options.two_ply_games,
                gnubg=False if options.no_gnubg else None,
                baseline=baseline,
                progress=_progress,
            )
        speeds: list[SpeedRow] = []
        for variant in variants if options.speed_games else []:
            print(f"speed: {variant} Greedy(net) playouts against GNU Backgammon's 0-ply loop", file=sys.stderr, flush=True)
            gnubg = False if options.no_gnubg else None
            speeds.append(speed(variant, options.speed_games, options.seed, net=net, repeats=options.repeats, gnubg=gnubg))
        networks = [f"{v}: {network_label(net, v)}" for v in variants]
    except NardyError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"done in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    if options.markdown:
        print(markdown_table(rows, speeds, command=command, networks=networks))
    else:
        print(text_table(rows, speeds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
