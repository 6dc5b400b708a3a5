"""``nardy-fast hint``: rank every legal move of a position for a roll by an evaluator's equity, best first."""

from __future__ import annotations

import argparse
import re
import time
from typing import Optional

from .. import IMPLEMENTATION, evaluate
from ..errors import quote
from ..evaluation.outcomes import EVALUATORS
from ..evaluation.search import MAX_PLIES
from .parser import (
    POSITION_FORMS,
    Parser,
    UsageError,
    check_network,
    errors_of,
    evaluator_of,
    integer,
    read_position,
)

__all__ = ["DESCRIPTION", "add_arguments", "hint_report", "run"]

DESCRIPTION = (
    "Rank every legal move of a position for a roll by an evaluator, best first, and print each with its\n"
    "equity: the points per game the side to move expects after the move, cubeless (a win scores 1, a mars\n"
    "2, a koks 3, a loss as many against), and how far it is behind the best. --plies 0 values each\n"
    "result by the evaluator; --plies 1 averages the best reply over the 21 rolls that follow (the\n"
    "opponent's, or the same side's after an extra roll); --plies 2 searches one more level for the best\n"
    "few moves (the others keep their 0-ply equity and follow them). A position with a pending list (a\n"
    "gulbar transfer) takes no roll. The evaluators: net (the network shipped for each variant, the\n"
    "default), heuristic (every variant), pubeval (short nardy), race (races only), or a weights file that\n"
    "nardy-fast train wrote; docs/rules.md, Evaluation and search, describes them. The position is its\n"
    "text, its ID, or for short nardy a GNU Backgammon Position ID (ID:MatchID for the side on roll and\n"
    "the dice) or an XGID, whose dice are the roll when ROLL is left out; a cube or match score in them is\n"
    "a warning (the equities are cubeless money play)."
)

_PLIES = integer(0, MAX_PLIES)
_TOP = integer(1)


def _roll(text: str) -> tuple[int, int]:
    """An argparse ``type``: a roll written ``D-D`` (``3-1``), each die 1..6."""
    match = re.fullmatch(r"([1-6])-([1-6])", text)
    if match is None:
        raise argparse.ArgumentTypeError(f"must be two dice 1..6 written D-D, as 3-1 (got {quote(text)})")
    return int(match[1]), int(match[2])


def add_arguments(parser: Parser) -> None:
    """The options of ``hint``."""
    parser.add_argument(
        "position", metavar="POSITION", nargs="?", default=None, help="the position: the same as --position"
    )
    parser.add_argument(
        "roll",
        metavar="ROLL",
        nargs="?",
        default=None,
        help="the roll to play, as 3-1; none for a position with a pending list, or whose XGID or Match ID "
        "gives the dice",
    )
    parser.add_argument(
        "--position", dest="position_option", metavar="POSITION", default=None, help=f"the position: {POSITION_FORMS}"
    )
    parser.add_argument(
        "--plies",
        type=_PLIES,
        default=0,
        metavar="D",
        help=f"how deep to search, 0..{MAX_PLIES} (default: %(default)s)",
    )
    parser.add_argument(
        "--evaluator",
        default="net",
        metavar="NAME|PATH",
        help=f"the evaluator that values the positions: one of {', '.join(EVALUATORS)} (net: the network "
        "shipped for the variant in contact and the race evaluator in races; network: that network alone), or "
        "a weights file (.npz) of nardy-fast train; a name wins over a file of that name, write ./net for the "
        "file (default: %(default)s)",
    )
    parser.add_argument(
        "--top", type=_TOP, default=None, metavar="N", help="print only the N best moves (default: all)"
    )


def hint_report(ranked: list[tuple[str, float]], top: Optional[int] = None) -> list[str]:
    """The table of a hint's ``ranked`` (move text, equity) pairs, the best ``top`` of them, as lines."""
    shown = ranked if top is None else ranked[:top]
    width = max([len("move"), *(len(text) for text, _ in shown)])
    header = f"{'rank':>5}  {'move':<{width}}  {'equity':>9}  {'behind':>9}"
    lines = [header, "-" * len(header)]
    best = ranked[0][1] if ranked else 0.0
    for rank, (text, equity) in enumerate(shown, 1):
        behind = f"{equity - best:+.5f}" if rank > 1 else ""
        lines.append(f"{rank:>5}  {text:<{width}}  {equity:>+9.5f}  {behind:>9}".rstrip())
    if len(shown) < len(ranked):
        lines.append(f"({len(ranked) - len(shown):,} more moves not shown)")
    return lines


def _position_and_roll(args: argparse.Namespace) -> tuple[str, str, Optional[str]]:
    """The position's text, the option that gave it, and the roll's text: ``--position`` leaves the one
    positional word to ROLL."""
    words = [word for word in (args.position, args.roll) if word is not None]
    if args.position_option is None:
        if not words:
            raise UsageError("--position: required (or the position as POSITION)")
        return words[0], "POSITION", args.roll
    if len(words) > 1:
        raise UsageError(f"POSITION: given twice, as POSITION and as --position (got {quote(words[0])})")
    return args.position_option, "--position", words[0] if words else None


def run(args: argparse.Namespace) -> int:
    """Run ``hint`` with the options of :func:`add_arguments`."""
    text, option, roll_text = _position_and_roll(args)
    try:
        roll = None if roll_text is None else _roll(roll_text)
    except argparse.ArgumentTypeError as error:
        raise UsageError(f"ROLL: {error}") from None
    position, dice = read_position(text, option, unfinished=True)
    if dice is not None and roll is not None and roll != dice:
        raise UsageError(f"ROLL: is not the roll the position gives, {dice[0]}-{dice[1]} (got {quote(roll_text)})")
    args.roll = roll or dice
    evaluator = evaluator_of(args.evaluator, "--evaluator")
    check_network(evaluator, position.variant, "--evaluator", args.evaluator)
    fields = {"dice": "ROLL", "evaluator": "--evaluator", "plies": "--plies", "rows": option}
    with errors_of(option, fields):
        # the evaluator's own check of the position itself (a variant it does not serve, a race evaluator
        # out of a race), before one of its children is blamed
        evaluate(position, evaluator)
    started = time.perf_counter()
    with errors_of(option, fields):
        ranked = position.hint(args.roll, evaluator=evaluator, plies=args.plies)
    seconds = time.perf_counter() - started
    to_play = (
        "pending " + ",".join(map(str, position.pending))
        if position.pending
        else f"roll {args.roll[0]}-{args.roll[1]}"
    )
    print(
        f"hint of {position.to_text()!r}, {to_play}, {position.turn.capitalize()} to move: {len(ranked):,} "
        f"move{'s' if len(ranked) != 1 else ''}, evaluator {args.evaluator}, {args.plies}-ply, "
        f"{1000 * seconds:,.1f} ms, implementation {IMPLEMENTATION}"
    )
    print()
    print("\n".join(hint_report([(str(move), equity) for move, equity in ranked], args.top)))
    print()
    depth = f"{args.plies} {'ply' if args.plies == 1 else 'plies'}"
    legend = [
        f"equity: the points per game {position.turn.capitalize()} (to move) expects after the move, cubeless (a win",
        f"1, a mars 2, a koks 3, losses negative), by the evaluator searched {depth} deep; behind: how far",
        "the move's equity is below the best one's. Moves are written in the mover's numbering (docs/rules.md).",
    ]
    if args.plies == 2:
        legend.append("At 2 plies the moves the first filter cuts keep their 0-ply equity and come last.")
    print("\n".join(legend))
    return 0
