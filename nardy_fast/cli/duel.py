"""``nardy-fast duel``: play two players against each other on duplicate dice and print the points per game
of the first, with its standard error, its win rate and the count of each result."""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import Any, Optional

from .. import IMPLEMENTATION, VARIANTS, Position, duel, evaluate
from ..cubeduel import CubeDuelResult
from ..cubeplay import STRATEGIES
from ..duel import OUTCOMES, DuelResult
from ..errors import quote
from ..evaluation.outcomes import EVALUATORS
from ..evaluation.search import MAX_PLIES
from ..policies import Greedy
from ..turns import MAX_PLIES as MAX_GAME_PLIES
from ..turns import POLICIES
from .parser import (
    GAMES,
    Parser,
    UsageError,
    check_network,
    errors_of,
    evaluator_of,
    flag_option,
    flags_of,
    integer,
    threads_option,
)
from .progress import Progress, progress_option, progress_stream
from .rollout import cube_match, cube_options

__all__ = ["DESCRIPTION", "PLAYERS", "add_arguments", "duel_report", "run"]

DESCRIPTION = (
    "Play player A against player B on duplicate dice and print A's points per game (cubeless: a win\n"
    "scores 1, a mars 2, a koks 3, a loss as many against), its standard error, A's win rate and how many\n"
    "games ended in each result. The games come in pairs: both games of a pair have the same dice (who\n"
    "starts, every roll, every random choice), A plays White in the first and Black in the second, so the\n"
    "luck of the dice cancels within a pair and a player against itself scores exactly 0. A player is\n"
    "random (a seeded uniform choice among the legal moves), first (the first legal move), a built-in\n"
    "evaluator (net, the network shipped for each variant; heuristic for every variant; pubeval for short\n"
    "nardy) or a weights file (.npz) of nardy-fast train, which plays greedily: the best move by that\n"
    "evaluator, searched --plies-a (--plies-b) plies deep. A name wins over a file of that name (write\n"
    "./net for a file called net). A progress bar (games done, percent,\n"
    "games/s, time left) is drawn on stderr when it is a terminal, or with --progress. With --cube the\n"
    "games are money games with the doubling cube (points times the cube); with --match N, --games\n"
    "matches to N points are played (pairs of matches on duplicate dice) and A's match win rate is\n"
    "printed. An evaluator's player takes its cube actions by --cube-a (--cube-b): janowski (the cube\n"
    "decision at the match's score), money (ignores the score), threshold (wildbg's fixed thresholds)\n"
    "or never; random and first never double and always take."
)

#: What a player of the command line is named by: a policy's name or a built-in evaluator's (else it is the
#: path of a weights file).
PLAYERS = (*POLICIES, *EVALUATORS)

_PLIES = integer(0, MAX_PLIES)
_SEED = integer(0, (1 << 64) - 1, "0..2**64-1")
#: The pairs of games advanced together, by the deepest search of the two players: each batch is a step of
#: the progress bar, and a deeper search takes longer per game.
_BATCH = (100, 10, 2)


def add_arguments(parser: Parser) -> None:
    """The options of ``duel``."""
    for seat in ("A", "B"):
        parser.add_argument(
            seat.lower(),
            metavar=seat,
            help=f"player {seat}: one of {', '.join(PLAYERS)}, or a weights file (.npz)"
            + (" (the points per game are A's)" if seat == "A" else ""),
        )
    parser.add_argument(
        "--variant", choices=VARIANTS, default="long", help="the variant played (default: %(default)s)"
    )
    parser.add_argument(
        "--games",
        type=GAMES,
        default=2000,
        metavar="N",
        help="games to play, an even number: N/2 pairs on duplicate dice (default: %(default)s)",
    )
    parser.add_argument(
        "--seed", type=_SEED, default=0, metavar="S", help="seed of the dice (default: %(default)s)"
    )
    for seat in ("a", "b"):
        parser.add_argument(
            f"--plies-{seat}",
            type=_PLIES,
            default=None,
            metavar="D",
            help=f"how deep the evaluator of player {seat.upper()} searches, 0..{MAX_PLIES} (default: 0; "
            "only for an evaluator)",
        )
    cube_options(parser, "money games with the doubling cube", "play matches to N points, with the cube",
                 "the first game of each match is the Crawford game")
    for seat in ("a", "b"):
        parser.add_argument(
            f"--cube-{seat}", choices=STRATEGIES, default="janowski",
            help=f"the cube strategy of player {seat.upper()} (default: %(default)s)",
        )  # fmt: skip
    threads_option(parser)
    flag_option(parser)
    progress_option(parser)


def _player(
    name: str, plies: Optional[int], seat: str, variant: str, cube: str = "janowski"
) -> tuple[object, str]:
    """The policy of a player of the command line (a policy's name, an evaluator's, a weights file) and how
    the report names it."""
    if name in POLICIES:
        if plies is not None:
            raise UsageError(
                f"--plies-{seat.lower()}: applies to an evaluator, not to {name} (got {quote(str(plies))})"
            )
        return name, name
    evaluator = evaluator_of(name, seat, POLICIES)
    check_network(evaluator, variant, seat, name)
    depth = plies or 0
    strategy = "" if cube == "janowski" else f", cube {cube}"
    return Greedy(evaluator, plies=depth, cube=cube), f"{name} ({depth}-ply{strategy})"


def duel_report(result: DuelResult, seconds: float, names: tuple[str, str]) -> list[str]:
    """The table of a duel's ``result`` between the players ``names``, played in ``seconds``, with its
    legend, as lines."""
    counts = result.counts
    games = result.games
    header = f"{'result for A':<14} {'games':>12} {'%':>8}"
    lines = [header, "-" * len(header)]
    for outcome in OUTCOMES:
        name = "given up" if outcome == "unfinished" else outcome.replace("_", " ")
        lines.append(f"{name:<14} {counts[outcome]:>12,} {100 * counts[outcome] / games:>7.2f}%")
    lines.append(f"{'all':<14} {games:>12,} {100.0:>7.2f}%")
    rate = games / seconds if seconds > 0 else math.inf
    lines += [
        "",
        f"A = {names[0]}, B = {names[1]}",
        f"points per game for A: {result.ppg:+.3f}, std. error {result.stderr:.3f} (over {games // 2:,} pairs)",
        f"win rate of A: {100 * result.win_rate:.2f}%",
        f"wall time {seconds:.3f} s, {rate:,.0f} games/s",
        "",
        "win single, win mars, win koks: A won 1 point (single), 2 (mars: B bore off nothing) or 3 (koks,",
        "short nardy only); lose ...: B won so; in short nardy mars and koks are the gammon and the backgammon;",
        f"given up: games stopped after {MAX_GAME_PLIES:,} plies without a winner (0 points). Points per game:",
        "A's points won minus points lost, over all games, cubeless; its standard error is taken over the pairs",
        "of games (each pair shares its dice, so the pairs are the independent samples). A player named by an",
        "evaluator plays the first move of its hint (nardy_fast.Position.hint) at the plies shown.",
    ]
    return lines


def run(args: argparse.Namespace) -> int:
    """Run ``duel`` with the options of :func:`add_arguments`."""
    if args.games % 2:
        raise UsageError(
            f"--games: must be even: the games are pairs on the same dice, seats swapped (got {quote(str(args.games))})"
        )
    flags: dict[str, Any] = flags_of(args)  # rule flags only, checked by the library
    with errors_of("--flag"):
        start = Position.start(args.variant, **flags)
    players = []
    names = []
    seats = (("A", args.a, args.plies_a, args.cube_a), ("B", args.b, args.plies_b, args.cube_b))
    for seat, name, plies, strategy in seats:
        player, described = _player(name, plies, seat, args.variant, strategy)
        if isinstance(player, Greedy):
            # the evaluator's own check of the start (a variant it does not serve, a race evaluator out of a
            # race), named by the seat it would play
            with errors_of(seat, {"evaluator": seat, "rows": seat}):
                evaluate(start, player.evaluator)
        players.append(player)
        names.append(described)
    match = cube_match(args)
    unit = "games" if args.match is None else f"matches to {args.match}"
    deepest = max(p.plies if isinstance(p, Greedy) else 0 for p in players)
    print(
        f"duel: A = {names[0]} against B = {names[1]}, {args.variant}, {args.games:,} {unit} ({args.games // 2:,} "
        f"pairs on duplicate dice, seats swapped), seed {args.seed}, {args.threads} thread{'s' if args.threads > 1 else ''}, "
        f"implementation {IMPLEMENTATION}"
    )
    sys.stdout.flush()
    with Progress(args.games, progress_stream(args.progress)) as progress:
        with errors_of("--variant"):
            result = duel(
                players[0],
                players[1],
                args.variant,
                args.games,
                seed=args.seed,
                batch=_BATCH[deepest],
                threads=args.threads,
                progress=progress.update,
                match=match,
                **flags,
            )
    seconds = time.perf_counter() - progress.started
    print()
    if isinstance(result, CubeDuelResult):
        print("\n".join(cube_report(result, seconds, (names[0], names[1]))))
    else:
        print("\n".join(duel_report(result, seconds, (names[0], names[1]))))
    return 0


def cube_report(result: CubeDuelResult, seconds: float, names: tuple[str, str]) -> list[str]:
    """The lines of a duel with the cube: A's points per game (money) or match win rate, with its standard
    error over the pairs."""
    pairs = result.games // 2
    if result.length is None:
        lines = [f"points per game for A, with the cube: {result.ppg:+.3f}, std. error {result.stderr:.3f} "
                 f"(over {pairs:,} pairs of games)", f"games won by A: {100 * result.win_rate:.2f}%"]
    else:
        lines = [f"matches to {result.length} won by A: {100 * result.win_rate:.2f}%, std. error "
                 f"{100 * result.stderr:.2f}% (over {pairs:,} pairs of matches; an undecided match counts half)"]
    unit = "games" if result.length is None else "matches"
    rate = result.games / seconds if seconds > 0 else math.inf
    return [f"A = {names[0]}, B = {names[1]}", *lines, f"wall time {seconds:.3f} s, {rate:,.1f} {unit}/s"]
