"""``nardy-fast rollout``: play a position out many times and print the probability of each result and the
equity of the side to move; with the cube (``--cube``, ``--match``), the cubeful values of no double and
double-take, the double-pass value and the proper action."""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from typing import Optional

from .. import IMPLEMENTATION, Cube, Match, rollout
from ..analysis import AnalysedPosition
from ..cuberollouts import CubefulRollout
from ..errors import NardyWarning, quote
from ..playouts import TRUNCATIONS
from ..rollouts import OUTCOMES, STRATA, Rollout
from ..turns import MAX_PLIES, POLICIES
from .parser import (
    GAMES,
    POSITION_FORMS,
    Parser,
    UsageError,
    errors_of,
    integer,
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
    "same number of games; a multiple of 1296 games covers every pair equally (another count is noted).\n"
    "With --cube (money play, a centred cube) or --match N --score A-B [--crawford] (a match to N points at\n"
    "White's A and Black's B, the cube centred), each game is played with the doubling cube, twice on the\n"
    "same dice: with no double before this roll, and with the cube doubled and taken; it prints both lines'\n"
    "cubeful values for the side to move (points per unit of the cube, or match winning chances), their\n"
    "standard errors, the double-pass value and the proper action. An evaluator's player takes its cube\n"
    "actions by Janowski's cube decision; random and first never double and always take."
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
    parser.add_argument(
        "--truncate-plies",
        type=integer(1, MAX_PLIES - 1),
        default=None,
        metavar="N",
        help="stop each game after N plies (at the first position after them whose side rolls) and score it "
        "by the --policy evaluator at 0 ply: a truncated rollout (only for an evaluator --policy)",
    )
    cube_options(parser, "money play with the doubling cube (centred)", "a match to N points, with the cube",
                 "this game is the Crawford game")
    progress_option(parser)


def cube_options(parser: argparse.ArgumentParser, cube: str, match: str, crawford: str) -> None:
    """The options of a command that plays with the cube (``--cube``, ``--jacoby``, ``--beavers``, ``--match
    N``, ``--score A-B``, ``--crawford``, read by :func:`cube_match`), with the command's own help for three of
    them."""
    parser.add_argument("--cube", action="store_true", help=cube)
    parser.add_argument("--jacoby", action="store_true", help="with --cube: the Jacoby rule (docs/rules.md, "
                        "The doubling cube): a mars or koks counts as a single win while the cube is centred")
    parser.add_argument("--beavers", action="store_true", help="with --cube: beavers, an immediate redouble "
                        "by the taker that keeps the cube")
    parser.add_argument("--match", type=integer(1, 64), default=None, metavar="N", help=match)
    parser.add_argument(
        "--score", default=None, metavar="A-B", help="with --match: White's and Black's points (default: 0-0)"
    )
    parser.add_argument("--crawford", action="store_true", help=f"with --match: {crawford}")


def cube_match(args: argparse.Namespace) -> Optional[Match]:
    """The match of ``--cube``/``--jacoby``/``--beavers``/``--match``/``--score``/``--crawford`` (``None``:
    cubeless games)."""
    for given, option in ((args.jacoby, "--jacoby"), (args.beavers, "--beavers")):
        if given and (args.match is not None or not args.cube):
            raise UsageError(f"{option}: money play only, needs --cube (and no --match)")
    if args.match is None:
        for given, option in ((args.score is not None, "--score"), (args.crawford, "--crawford")):
            if given:
                raise UsageError(f"{option}: needs --match N")
        return Match(jacoby=args.jacoby, beavers=args.beavers) if args.cube else None
    text = "0-0" if args.score is None else args.score
    parts = text.split("-")
    if len(parts) != 2 or not all(part.isascii() and part.isdigit() and len(part) < 4 for part in parts):
        raise UsageError(f"--score: must be White's and Black's points as A-B, such as 2-4 (got {quote(text)})")
    with errors_of("--crawford" if args.crawford else "--score"):
        return Match(args.match, (int(parts[0]), int(parts[1])), crawford=args.crawford)


def cube_report(result: CubefulRollout, seconds: float, policy: str = "random") -> list[str]:
    """The lines of a cubeful rollout played by ``policy``: both lines with their standard errors, the
    double-pass value and the proper action."""
    money = result.match.length is None
    unit = "points per unit of the cube" if money else "match winning chances"
    form = "{:+.5f}" if money else "{:.5f}"
    lines = [
        f"cubeful values for {result.turn} (to move), {unit}, {result.games:,} games each line "
        f"(both sides playing policy {policy}):",
        f"{'no double':<14} {form.format(result.no_double):>10}  std. error {result.no_double_stderr:.5f}",
    ]
    take, error, drop = result.double_take, result.double_take_stderr, result.double_pass
    if take is not None and error is not None and drop is not None:
        lines += [
            f"{'double, take':<14} {form.format(take):>10}  std. error {error:.5f} "
            f"(the difference from no double: {result.difference_stderr:.5f}, on the same dice)",
            f"{'double, pass':<14} {form.format(drop):>10}",
        ]
    else:
        lines.append(f"{'double':<14} not available to {result.turn}: only the no-double line is rolled out")
    rate = 2 * result.games / seconds if result.may_double and seconds > 0 else result.games / max(seconds, 1e-9)
    lines += [
        f"proper action: {result.action}",
        f"wall time {seconds:.3f} s, {rate:,.0f} games/s",
        "",
        "no double: the cube as given, not turned before this roll; double, take: turned to twice its value",
        "before the roll and owned by the other side; both on the same dice, game by game; double, pass: the",
        "cube's value won at once. "
        + ("A game scores its points times the cube, per unit of the cube as given."
           if money else "A game scores the chances of winning the match after it (the variant's table)."),
    ]
    return lines


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
            "truncated: games stopped early instead of being played out, each scored by a share of each outcome:",
            "with --truncate bearoff at their first bear-off position, by its race values (the bear-off tables);",
            "with --truncate-plies N after N plies, by the policy's evaluator at 0 ply; the games column counts",
            "only the games played to the end.",
        ]
    return lines


def run(args: argparse.Namespace) -> int:
    """Run ``rollout`` with the options of :func:`add_arguments`."""
    position = parse_position(args.position, unfinished=True)
    policy, described = policy_of(args, position)
    match = cube_match(args)
    if match is not None and args.truncate:
        raise UsageError("--truncate: a rollout with the cube plays whole games")
    if match is not None and args.truncate_plies is not None:
        raise UsageError("--truncate-plies: a rollout with the cube plays whole games")
    if args.truncate_plies is not None and args.policy in POLICIES:
        raise UsageError(f"--truncate-plies: scores the stopped games by an evaluator --policy, not {args.policy}"
                         f" (got {quote(str(args.truncate_plies))})")
    print(
        f"rollout of {position.to_text()!r}: {args.games:,} games, seed {args.seed}, policy {described}, "
        f"{'stratified first two rolls' if args.stratify else 'no stratification'}, "
        f"{'truncated at the bear-off, ' if args.truncate else ''}"
        f"{f'truncated after {args.truncate_plies} plies, ' if args.truncate_plies else ''}"
        f"{_cube_words(match)}{args.threads} "
        f"thread{'s' if args.threads > 1 else ''}, implementation {IMPLEMENTATION}"
    )
    if args.stratify and args.games % STRATA:
        cycles = max(1, round(args.games / STRATA))
        print(
            f"note: {args.games:,} games are not a multiple of {STRATA:,} (the 36 x 36 pairs of first rolls), so"
            f" the stratified first rolls are not balanced: use --games {cycles * STRATA:,}, or --no-stratify"
        )
    sys.stdout.flush()

    if match is not None:
        return _cubeful(args, position, policy, described, match)

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
                truncate_plies=args.truncate_plies,
                max_results=args.max_results,
            )
        return part

    with Progress(args.games, progress_stream(args.progress)) as progress:
        parts = in_chunks(args.games, args.threads, play, progress)
    seconds = time.perf_counter() - progress.started
    print()
    print("\n".join(rollout_report(Rollout.combine(parts), seconds, described)))
    return 0


def _cube_words(match: Optional[Match]) -> str:
    if match is None:
        return ""
    if match.length is None:
        return "money play with the cube, "
    crawford = ", the Crawford game" if match.crawford else ""
    return f"a match to {match.length} at {match.score[0]}-{match.score[1]}{crawford}, "


def _cubeful(args: argparse.Namespace, position: AnalysedPosition, policy: object, described: str, match: Match) -> int:
    """The cubeful rollout of ``run``, in chunks as the cubeless one is (their trials combine exactly)."""

    def play(first: int, count: int) -> CubefulRollout:
        with errors_of("--position"), warnings.catch_warnings():
            warnings.simplefilter("ignore", NardyWarning)
            part = rollout(
                position,
                count,
                seed=args.seed,
                policy=policy,
                stratify=args.stratify,
                threads=args.threads,
                first_game=first,
                max_results=args.max_results,
                cube=Cube(),
                match=match,
            )
        assert isinstance(part, CubefulRollout)
        return part

    with Progress(args.games, progress_stream(args.progress)) as progress:
        parts = in_chunks(args.games, args.threads, play, progress)
    seconds = time.perf_counter() - progress.started
    print()
    print("\n".join(cube_report(CubefulRollout.combine(parts), seconds, described)))
    return 0
