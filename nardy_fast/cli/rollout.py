"""``nardy-fast rollout``: play a position out many times and print the probability of each result and the
equity of the side to move."""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings

from .. import IMPLEMENTATION, rollout
from ..errors import NardyWarning
from ..playouts import TRUNCATIONS
from ..rollouts import OUTCOMES, STRATA, Rollout
from ..turns import MAX_PLIES
from .parser import (
    GAMES,
    POSITION_FORMS,
    Parser,
    errors_of,
    max_results_option,
    parse_position,
    play_options,
    policy_of,
)
from .progress import Progress, in_chunks, progress_option, progress_stream

__all__ = ["DESCRIPTION", "add_arguments", "rollout_report", "run"]

DESCRIPTION = (
    "Play a position out many times with seeded dice and print the probability of each result (a single,\n"
    "mars or koks win for either side; a mars wins 2 points and a koks 3, in short nardy the gammon and\n"
    "the backgammon), the standard error of each, the games given up, and the equity of the side to move\n"
    "(points won per game, losses counted negative) with its standard error: the equity of the policy both\n"
    "sides play (--policy: random by default, whose equity is not the position's value under good play;\n"
    "net, heuristic, pubeval, race or a weights file (.npz) of nardy-fast train play the best move by that\n"
    "evaluator, searched --plies deep, slower but nearer good play). By default the\n"
    "first two rolls cycle through all 36 x 36 ordered pairs (stratified), which lowers the error at the\n"
    "same number of games; a multiple of 1296 games covers every pair equally (another count is noted)."
)


def add_arguments(parser: Parser) -> None:
    """The options of ``rollout``."""
    parser.add_argument(
        "--position", metavar="POSITION", required=True, help=f"the position to roll out (required): {POSITION_FORMS}"
    )
    parser.add_argument(
        "--games", type=GAMES, default=1296, metavar="N", help="games to play (default: %(default)s)"
    )
    play_options(parser, evaluators=True)
    max_results_option(parser)
    parser.add_argument(
        "--no-stratify",
        dest="stratify",
        action="store_false",
        help="draw the first two rolls at random like every other roll",
    )
    parser.add_argument(
        "--truncate",
        choices=TRUNCATIONS,
        default=None,
        help="stop each game at its first bear-off position and score it by its race values "
        "(docs/rules.md, Bear-off tables) instead of playing it out",
    )
    progress_option(parser)


def rollout_report(result: Rollout, seconds: float, policy: str = "random") -> list[str]:
    """The table of a ``nardy_fast.rollout`` result, played by ``policy``, with its legend, as lines."""
    games = result.games
    header = f"{'result':<14} {'games':>12} {'probability':>12} {'std. error':>12}"
    lines = [header, "-" * len(header)]
    for outcome, count in zip(OUTCOMES, result.counts):
        name = outcome.replace("_", " ")
        lines.append(
            f"{name:<14} {count:>12,} {result.probabilities[outcome]:>12.5f} {result.stderr[outcome]:>12.5f}"
        )
    if result.truncated:
        lines.append(f"{'truncated':<14} {result.truncated:>12,}")
    lines.append(f"{'given up':<14} {result.unfinished:>12,}")
    lines.append(f"{'all':<14} {games:>12,}")
    rate = games / seconds if seconds > 0 else math.inf
    lines += [
        "",
        f"equity of {result.turn} (to move): {result.equity:+.5f} points per game, "
        f"std. error {result.equity_stderr:.5f} (both sides playing policy {policy})",
        f"wall time {seconds:.3f} s, {rate:,.0f} games/s",
        "",
        "white single, white mars, ...: White (Black) won 1 point (single), 2 (mars: the loser bore off",
        "nothing) or 3 (koks, short nardy only); in short nardy mars and koks are the gammon and the backgammon;",
        "probability: share of all games; std. error: its standard error for independent games (with the first",
        f"two rolls stratified, an upper bound); given up: games stopped after {MAX_PLIES:,} plies without a",
        "winner, or at a ply whose search was over --max-results; equity: points won per game by the side to",
        "move, losses counted negative, a game given up 0, when both sides play the policy: the equity of that",
        "policy (random play by default; an evaluator's is nearer best play, as good as the evaluator).",
    ]
    if result.truncated:
        lines += [
            "with --truncate bearoff, truncated: games stopped at their first bear-off position, each scored by",
            "its race values (a share of each outcome, from the bear-off tables) instead of being played out;",
            "the games column counts only the games played to the end.",
        ]
    return lines


def run(args: argparse.Namespace) -> int:
    """Run ``rollout`` with the options of :func:`add_arguments`."""
    position = parse_position(args.position, unfinished=True)
    policy, described = policy_of(args, position)
    print(
        f"rollout of {position.to_text()!r}: {args.games:,} games, seed {args.seed}, policy {described}, "
        f"{'stratified first two rolls' if args.stratify else 'no stratification'}, "
        f"{'truncated at the bear-off, ' if args.truncate else ''}{args.threads} "
        f"thread{'s' if args.threads > 1 else ''}, implementation {IMPLEMENTATION}"
    )
    if args.stratify and args.games % STRATA:
        cycles = max(1, round(args.games / STRATA))
        print(
            f"note: {args.games:,} games are not a multiple of {STRATA:,} (the 36 x 36 pairs of first rolls), so"
            f" the stratified first rolls are not balanced: use --games {cycles * STRATA:,}, or --no-stratify"
        )
    sys.stdout.flush()

    def play(first: int, count: int) -> Rollout:
        # a chunk is a part of the games asked for: only their total is to be a multiple of STRATA (noted above)
        with errors_of("--position"), warnings.catch_warnings():
            warnings.simplefilter("ignore", NardyWarning)
            part: Rollout = rollout(
                position,
                count,
                seed=args.seed,
                policy=policy,
                stratify=args.stratify,
                threads=args.threads,
                first_game=first,
                truncate=args.truncate,
                max_results=args.max_results,
            )
        return part

    with Progress(args.games, progress_stream(args.progress)) as progress:
        parts = in_chunks(args.games, args.threads, play, progress)
    seconds = time.perf_counter() - progress.started
    print()
    print("\n".join(rollout_report(Rollout.combine(parts), seconds, described)))
    return 0
