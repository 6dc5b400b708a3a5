"""nardy-fast: the command line of the nardy_fast package.

Run it as nardy-fast (the console script the package installs) or as python -m nardy_fast: the same program.

Commands (nardy-fast COMMAND --help lists a command's options and says what it prints):
  bench     positions/s and plays/s of the pure-Python reference and the compiled core, per variant, on the
            embedded corpus, and games/s of whole games, with their ratios (the command run when none is
            given)
  perft     count the move paths of a given depth from the start of every variant or from a position;
            --divide splits the count by first move, --check compares the counts shipped with the package
  playout   play whole games with seeded dice and print a summary: wins by side, points, games given up,
            mean game length and speed; --out writes every game's record (CSV, JSON or .npy)
  rollout   play a position out many times and print the probability of each result, with its standard
            error, and the equity of the side to move
  duel      play two players (random, first or a built-in evaluator searching 0..2 plies) against each
            other on duplicate dice and print the first one's points per game, its standard error, win
            rate and results
  hint      rank every legal move of a position for a roll by an evaluator's equity, best first
  cube      the cube decision of a position's side to move (no double, double-take, double-pass), at
            money play or at a match score
  analyse   analyse a match file: each move's and cube decision's equity lost, marks, luck, error rates
  play      play against the built-in player in the terminal, with the cube in a match or money play;
            the match record is written as .mat for analyse
  met       print a match equity table: a variant's, computed from its network's mars and koks rates, or
            the published Kazaross-XG2
  train     train a network evaluator of a variant by self-play, with checkpoints it resumes from and
            its strength against heuristic as it goes, and save its weights
  corpus    rebuild the embedded benchmark corpus (seeded self-play)
  errors    an evaluator's error rate on a rolled-out benchmark database (equity lost per move x1000, per
            position class)

The evaluators of hint and duel: net, hint's default, is the neural network shipped with the package for each
variant (trained by self-play, as train does); heuristic a hand-made weighing of the board; pubeval Tesauro's
linear evaluator (short nardy only); race the pips and bear-off tables of a race (races only). docs/rules.md
(Evaluation) describes them.

The long commands (bench, perft, playout, rollout, duel, train) draw their progress on stderr: percent done and
time left. Bad input prints one line on stderr, naming the option and quoting the value, and exits with
status 2; Ctrl-C exits with status 130. Positions are written as in the package, e.g. "long w 12:-15,24:15"
(docs/rules.md describes the text and the rules of every variant). nardy-fast --version prints the version.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import os
import sys
from collections.abc import Sequence
from typing import Optional, Protocol

from .. import __version__
from ..errors import QUOTE_LIMIT, NardyError, cut, quote
from . import analyse, bench, corpus, cube, duel, errors, hint, met, perft, play, playout, rollout, train
from .parser import Formatter, Parser, UsageError, one_line, option_of

__all__ = ["PROG", "main"]

#: The program's name in its help and its error messages.
PROG = "nardy-fast"
#: The exit status of bad input (argparse's) and of an interrupted run (128 + SIGINT, the shell's convention).
USAGE_STATUS = 2
INTERRUPTED_STATUS = 130
#: The most characters of an error line's message: a few quoted values and the words around them. Every
#: value is quoted short where the message is made; this bounds what another library's message repeats (Dask's
#: of the address given to --scheduler, say) wherever it is passed on.
MESSAGE_LIMIT = 3 * QUOTE_LIMIT + 150


class _Command(Protocol):
    """A command's module: its description, its options and what it runs."""

    DESCRIPTION: str

    def add_arguments(self, parser: Parser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


#: The commands, in the order their help lists them.
_COMMANDS: dict[str, _Command] = {
    "bench": bench,
    "perft": perft,
    "playout": playout,
    "rollout": rollout,
    "duel": duel,
    "hint": hint,
    "cube": cube,
    "analyse": analyse,
    "play": play,
    "met": met,
    "train": train,
    "corpus": corpus,
    "errors": errors,
}


def _parser() -> tuple[Parser, dict[str, Parser]]:
    """The parser, and the parser of each command by name."""
    parser = Parser(prog=PROG, description=__doc__, formatter_class=Formatter)
    parser.add_argument(
        "--version", action="version", version=f"{PROG} {__version__}", help="print the version and exit"
    )
    commands = parser.add_subparsers(
        dest="command", metavar="COMMAND", title="commands", help="one of the commands above"
    )
    subparsers: dict[str, Parser] = {}
    for name, command in _COMMANDS.items():
        # no help=: the module's description lists the commands, better than one line each
        sub: Parser = commands.add_parser(name, description=command.DESCRIPTION, formatter_class=Formatter)
        command.add_arguments(sub)
        subparsers[name] = sub
    return parser, subparsers


def _unknown(extras: list[str], command: Optional[str], subparser: Optional[Parser]) -> UsageError:
    """The error for arguments no option took: the first unknown option named, with the nearest known one."""
    where = f" of {command}" if command else ""
    first = extras[0]
    if not first.startswith("-"):
        return UsageError(f"{command or PROG}: unexpected argument (got {quote(' '.join(extras))})")
    known = [o for a in (subparser._actions if subparser else []) for o in a.option_strings]
    near = difflib.get_close_matches(option_of(first), known, n=1)
    hint = f"; did you mean {near[0]}?" if near else ""
    return UsageError(f"{option_of(first)}: unknown option{where} (got {quote(first)}){hint}")


def _run(argv: Optional[Sequence[str]]) -> int:
    parser, subparsers = _parser()
    args, extras = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    if extras:
        raise _unknown(extras, args.command, subparsers.get(args.command))
    if args.command is None:
        args = parser.parse_args(["bench"])
    return _COMMANDS[args.command].run(args)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``nardy-fast`` and ``python -m nardy_fast``: run the command of ``argv`` (default
    ``sys.argv[1:]``) and return the exit status: 0 done, 1 a check failed, 2 bad input, 130 interrupted."""
    try:
        return _run(argv)
    except (UsageError, NardyError) as error:  # NardyError: a library check no command tied to an option
        sys.stdout.flush()
        print(f"{PROG}: error: {cut(one_line(str(error)), MESSAGE_LIMIT)}", file=sys.stderr)
        return USAGE_STATUS
    except KeyboardInterrupt:
        with contextlib.suppress(BrokenPipeError):
            sys.stdout.flush()
        print(f"{PROG}: interrupted", file=sys.stderr)
        return INTERRUPTED_STATUS
    except BrokenPipeError:
        # the reader of stdout left (``| head``): stop quietly, and keep Python's exit-time flush from
        # failing again on the closed pipe
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
