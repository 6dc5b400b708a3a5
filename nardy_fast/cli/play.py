"""``nardy-fast play``: a game or match against the built-in player in the terminal (docs/rules.md, Playing
against the engine); the session itself is :mod:`nardy_fast.cli.playsession`."""

from __future__ import annotations

import argparse
import secrets
import signal
import threading
import time
from pathlib import Path

from .. import Position, evaluate, write_match
from ..errors import NardyError, quote
from ..evaluation.outcomes import EVALUATORS
from ..evaluation.search import MAX_PLIES
from ..turns import OPENINGS
from ..variants import VARIANTS
from .parser import Parser, UsageError, check_network, errors_of, evaluator_of, integer, one_line
from .playsession import HELP, Session, Settings

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = (
    "Play against the built-in player in the terminal: the board drawn as text, your dice rolled by the\n"
    "program (--seed repeats them; --dice manual asks for every roll, to enter a game played at a table),\n"
    "your moves typed in the package's notation or picked from the numbered list of legal moves. With\n"
    "--match N (or --cube for money play) the cube is offered and answered; the engine doubles and answers\n"
    "by its Janowski cube decisions. When the match ends, or you quit (or input ends, or Ctrl-C), the match\n"
    "record is written as a .mat file (--out), ready for nardy-fast analyse.\n\n" + HELP
)


def add_arguments(parser: Parser) -> None:
    """The options of ``play``."""
    parser.add_argument("--variant", choices=VARIANTS, default="long", metavar="V",
                        help=f"the variant: {', '.join(VARIANTS)} (default: %(default)s)")
    parser.add_argument("--match", type=integer(1, 64), default=None, metavar="N",
                        help="a match to N points, with the cube and the Crawford rule")
    parser.add_argument("--cube", action="store_true", help="money play with the cube (default: no cube)")
    parser.add_argument("--jacoby", action="store_true", help="money play with the Jacoby rule (with --cube)")
    parser.add_argument("--beavers", action="store_true", help="money play with beavers (with --cube)")
    parser.add_argument("--side", choices=("white", "black"), default="white",
                        help="the colour you play (default: %(default)s)")
    parser.add_argument("--plies", type=integer(0, MAX_PLIES), default=0, metavar="K",
                        help=f"the engine's search depth, 0..{MAX_PLIES} (default: %(default)s)")
    parser.add_argument("--evaluator", default="net", metavar="NAME|PATH",
                        help=f"the engine's evaluator: one of {', '.join(EVALUATORS)} or a weights file "
                        "(default: %(default)s)")
    parser.add_argument("--seed", type=integer(0, (1 << 64) - 1, "0..2**64-1"), default=None, metavar="S",
                        help="seed of the dice (default: a random one, printed)")
    parser.add_argument("--dice", choices=("auto", "manual"), default="auto",
                        help="auto: the program rolls; manual: every roll typed, as 3-1 (default: %(default)s)")
    parser.add_argument("--opening", choices=OPENINGS, default=None,
                        help="the first roll of a game: the single dice that decided who starts "
                        "(use_single_dice, short nardy's default) or two fresh dice (fresh_roll, the "
                        "others' default)")
    parser.add_argument("--name", default="You", help="your name in the match record (default: %(default)s)")
    parser.add_argument("--out", metavar="FILE", default=None,
                        help="the match record's file (default: nardy-fast-play-DATE-TIME.mat here)")


def _settings(args: argparse.Namespace) -> Settings:
    """The session's settings from the options, checked."""
    if args.match is not None and (args.cube or args.jacoby or args.beavers):
        option = "--cube" if args.cube else "--jacoby" if args.jacoby else "--beavers"
        raise UsageError(f"{option}: is for money play, not with --match (a match has the cube)")
    if not args.cube and (args.jacoby or args.beavers):
        raise UsageError(f"{'--jacoby' if args.jacoby else '--beavers'}: needs --cube (money play with the cube)")
    if not args.name.strip() or len(args.name) > 40 or not args.name.isprintable():
        raise UsageError(f"--name: must be 1 to 40 printable characters (got {quote(args.name)})")
    evaluator = evaluator_of(args.evaluator, "--evaluator")
    check_network(evaluator, args.variant, "--evaluator", args.evaluator)
    with errors_of("--evaluator", {"evaluator": "--evaluator", "rows": "--variant"}):
        evaluate(Position.start(args.variant), evaluator)  # an evaluator that does not serve the variant
    seed = secrets.randbits(63) if args.seed is None else args.seed
    opening = args.opening or ("use_single_dice" if args.variant == "short" else "fresh_roll")
    return Settings(args.variant, args.side, args.match, args.cube, args.jacoby, args.beavers, evaluator,
                    args.plies, seed, args.dice == "manual", opening, args.name.strip())


def _write(session: Session, out: Path) -> None:
    record = session.record()
    if not record.games:
        print("Nothing played: no match record written.")
        return
    try:
        write_match(record, out)
    except OSError as error:
        raise UsageError(f"--out: {error.strerror or error} (got {quote(str(out))})") from None
    except NardyError as error:
        raise UsageError(f"--out: {one_line(str(error))}") from None
    print(f"Match record written to {out} (nardy-fast analyse {out} analyses it).")


def run(args: argparse.Namespace) -> int:
    """Run ``play`` with the options of :func:`add_arguments`."""
    settings = _settings(args)
    out = Path(args.out or time.strftime("nardy-fast-play-%Y%m%d-%H%M%S.mat"))
    if not out.parent.is_dir():
        raise UsageError(f"--out: no such directory (got {quote(str(out))})")
    cube = f"match to {settings.length}" if settings.length else "money play with the cube" if settings.cube else (
        "no cube")
    dice = "dice typed by you" if settings.manual else f"dice seed {settings.seed} (--seed repeats them)"
    print(f"{settings.variant} nardy, {cube}, you play {settings.side}; {dice}. Type help for the commands.")
    session = Session(settings, input, print)
    try:
        session.run()
    except KeyboardInterrupt:  # the record as far as it went, a second Ctrl-C held off while it is written
        main = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
        try:
            _write(session, out)
        finally:
            if main:
                signal.signal(signal.SIGINT, signal.SIG_DFL if previous is None else previous)
        raise
    _write(session, out)
    return 0
