"""``nardy-fast cube``: the cube decision of a position's side to move, at money play or at a match score."""

from __future__ import annotations

import argparse
import re
import time

from .. import IMPLEMENTATION, Cube, Match, Position, evaluate
from ..cube import CubeDecision
from ..errors import NardyError, quote
from ..evaluation.outcomes import EVALUATORS, OUTPUTS
from ..evaluation.search import MAX_PLIES
from ..variants import VARIANTS
from .parser import (
    POSITION_FORMS,
    Parser,
    UsageError,
    check_network,
    errors_of,
    evaluator_of,
    integer,
    one_line,
    read_position,
)

__all__ = ["DESCRIPTION", "add_arguments", "cube_report", "run"]

DESCRIPTION = (
    "The cube decision of the side to move of a position: its cubeful equities of no double, double and\n"
    "take, and double and pass, the proper action in GNU Backgammon's words, its take point and cash point\n"
    "(chances of winning the game) and the cubeless outputs they come from. At money play the equities are\n"
    "points per unit of the current cube; with --match they are the side's chances of winning the match,\n"
    "and the action is taken on GNU Backgammon's normalised equities. --plies 0 applies Janowski's formulas\n"
    "to the evaluator's outputs with the cube efficiency of the position's class and variant (measured for\n"
    "the long family; crazy gulbar's not yet); --plies 1 and deeper search as GNU Backgammon does, the cube\n"
    "decisions taken at every level (docs/rules.md, The doubling cube; Cubeful search). The match equity\n"
    "table is the variant's (Kazaross-XG2 in short nardy; nardy-fast met). The position as for nardy-fast hint; with --variant alone, that variant's start."
)

#: The option that sets each field of the cube and the match.
_STATE_OPTIONS = {"match.score": "--score", "match.crawford": "--crawford", "match.length": "--match",
                  "match.jacoby": "--jacoby", "match.beavers": "--beavers", "cube.value": "--cube",
                  "cube.owner": "--owner"}
_PLIES = integer(0, MAX_PLIES)
_LENGTH = integer(1, 64)
_CUBE = integer(1, 4096)


def _score(text: str) -> tuple[int, int]:
    """An argparse ``type``: a score written ``W-B`` (White's points, Black's), as 2-4."""
    found = re.fullmatch(r"(\d{1,2})-(\d{1,2})", text)
    if found is None:
        raise argparse.ArgumentTypeError(f"must be White's and Black's points written W-B, as 2-4 (got {quote(text)})")
    return int(found[1]), int(found[2])


def add_arguments(parser: Parser) -> None:
    """The options of ``cube``."""
    parser.add_argument("position", metavar="POSITION", nargs="?", default=None, help=f"the position: {POSITION_FORMS}")
    parser.add_argument("--variant", choices=VARIANTS, default=None, metavar="V",
                        help=f"the variant: without POSITION its start position; with it, a check ({', '.join(VARIANTS)})")
    parser.add_argument("--match", type=_LENGTH, default=None, metavar="N",
                        help="a match to N points (default: money play)")
    parser.add_argument("--score", type=_score, default=None, metavar="W-B",
                        help="the match score, White's points and Black's, as 2-4 (default: 0-0)")
    parser.add_argument("--crawford", action="store_true", help="this game is the Crawford game")
    parser.add_argument("--jacoby", action="store_true", help="money play with the Jacoby rule")
    parser.add_argument("--beavers", action="store_true", help="money play with beavers")
    parser.add_argument("--cube", type=_CUBE, default=1, metavar="VALUE",
                        help="the cube's value, a power of two (default: %(default)s)")
    parser.add_argument("--owner", choices=("white", "black"), default=None,
                        help="the side that owns the cube (default: centred)")
    parser.add_argument("--plies", type=_PLIES, default=0, metavar="D",
                        help=f"how deep to search, 0..{MAX_PLIES} (default: %(default)s)")
    parser.add_argument("--evaluator", default="net", metavar="NAME|PATH",
                        help=f"the evaluator: one of {', '.join(EVALUATORS)}, or a weights file (.npz) of nardy-fast "
                        "train (default: %(default)s)")


def cube_report(decision: CubeDecision, money: bool) -> list[str]:
    """The lines of a decision: the three equities, the action, the points and the outputs."""
    unit = "equity" if money else "match winning chances"
    best = max(decision.no_double, min(decision.double_take, decision.double_pass))
    lines = [f"{'line':<16}  {unit:>21}  {'behind':>9}", "-" * 50]
    for name, value in (("no double", decision.no_double), ("double, take", decision.double_take),
                        ("double, pass", decision.double_pass)):
        behind = float(value) - float(best)
        lines.append(f"{name:<16}  {float(value):>+21.5f}  {behind:>+9.5f}")
    lines += ["", f"proper action: {decision.action}",
              f"take point: {float(decision.take_point):.4f}   cash point: {float(decision.cash_point):.4f}",
              "cubeless outputs: " + "  ".join(f"{name} {p:.4f}" for name, p in zip(OUTPUTS, decision.outputs))]
    return lines


def run(args: argparse.Namespace) -> int:
    """Run ``cube`` with the options of :func:`add_arguments`."""
    if args.position is None:
        if args.variant is None:
            raise UsageError("POSITION: required (or --variant for a variant's start position)")
        position = Position.start(args.variant)
        option = "--variant"
    else:
        position, _ = read_position(args.position, "POSITION", unfinished=True)
        option = "POSITION"
        if args.variant is not None and args.variant != position.variant:
            raise UsageError(f"--variant: the position is of {position.variant} nardy (got {quote(args.variant)})")
    if args.match is None and (args.score is not None or args.crawford):
        raise UsageError(f"{'--score' if args.score is not None else '--crawford'}: needs --match (money play has no score)")
    evaluator = evaluator_of(args.evaluator, "--evaluator")
    check_network(evaluator, position.variant, "--evaluator", args.evaluator)
    try:
        cube = Cube(args.cube, args.owner)
        match = Match(args.match, args.score or (0, 0), args.crawford, args.jacoby, args.beavers)
    except NardyError as error:
        # the library names the field (match.score); the command line names the option that set it
        field, _, problem = one_line(str(error)).partition(": ")
        raise UsageError(f"{_STATE_OPTIONS.get(field, '--match')}: {problem}") from None
    fields = {"evaluator": "--evaluator", "plies": "--plies", "rows": option}
    with errors_of(option, fields):
        evaluate(position, evaluator)  # the evaluator's own check of the position, before its children's
        started = time.perf_counter()
        decision = position.cube_decision(evaluator=evaluator, plies=args.plies, cube=cube, match=match)
    seconds = time.perf_counter() - started
    where = "money play" if match.length is None else (
        f"{match.length}-point match at {match.score[0]}-{match.score[1]}"
        f"{' (Crawford)' if match.crawford else ''}: White {match.away('white')}-away, Black {match.away('black')}-away")
    owner = "centred" if cube.owner is None else f"owned by {cube.owner.capitalize()}"
    print(f"cube decision of {position.to_text()!r}, {position.turn.capitalize()} on roll, {where}, cube {cube.value} "
          f"{owner}, evaluator {args.evaluator}, {args.plies}-ply, {1000 * seconds:,.1f} ms, "
          f"implementation {IMPLEMENTATION}")
    print()
    print("\n".join(cube_report(decision, match.length is None)))
    return 0
