"""The command line's parser and its errors: :class:`UsageError` (bad input, one line, exit status 2),
argparse's messages quoted again as the package quotes, the library's errors tied to the option that gave the
value, the integer options, and the options that several commands share."""

from __future__ import annotations

import argparse
import ast
import contextlib
import re
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import NoReturn, Optional, Union

from .. import Position, evaluate, ids
from ..analysis import AnalysedPosition as AnyPosition
from ..errors import QUOTE_LIMIT, NardyError, NardyWarning, quote
from ..evaluation.network import Network
from ..evaluation.outcomes import EVALUATORS
from ..evaluation.search import MAX_PLIES
from ..policies import Greedy
from ..turns import POLICIES
from ..variants import VARIANTS, flag_from_text

__all__ = [
    "UsageError",
    "one_line",
    "option_of",
    "Parser",
    "Formatter",
    "integer",
    "GAMES",
    "errors_of",
    "parse_position",
    "read_position",
    "POSITION_FORMS",
    "evaluator_of",
    "check_network",
    "play_options",
    "threads_option",
    "policy_of",
    "max_results_option",
    "flag_option",
    "flags_of",
]


class UsageError(Exception):
    """Bad input on the command line: ``main`` prints the message as one line and exits with status 2."""


def one_line(message: str) -> str:
    """``message`` on one line, every run of white space one space."""
    return " ".join(message.split())


def _requoted(text: str) -> str:
    """A value argparse quoted whole (its ``repr``), quoted again as this package quotes: cut to
    :data:`~nardy_fast.errors.QUOTE_LIMIT` characters."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        value = None
    return quote(value) if isinstance(value, str) else _cut(text)


def _cut(text: str) -> str:
    """Text of the command line that is not quoted, cut as :func:`~nardy_fast.errors.quote` cuts."""
    return quote(text)[1:-1] if len(text) > QUOTE_LIMIT else text


def option_of(text: str) -> str:
    """The option a command-line word names (``--x=value`` names ``--x``), cut when it is no real one."""
    return _cut(text.partition("=")[0])


def _argparse_message(message: str) -> str:
    """argparse's error messages in this program's form, ``<option>: <problem> (got <value>)``, every value
    given quoted through :func:`~nardy_fast.errors.quote` (argparse quotes them whole)."""
    message = one_line(message)
    patterns: list[tuple[str, Callable[[re.Match[str]], str]]] = [
        (
            r"argument (\S+): invalid choice: (.*) \(choose from (.*)\)",
            lambda m: f"{m[1]}: must be one of {m[3]} (got {_requoted(m[2])})",
        ),
        (
            r"argument (\S+): invalid (\w+) value: (.*)",
            lambda m: (
                f"{m[1]}: must be {'an integer' if m[2] == 'int' else f'a {m[2]}'} (got {_requoted(m[3])})"
            ),
        ),
        (r"argument (\S+): expected one argument", lambda m: f"{m[1]}: needs a value"),
        (r"argument (\S+): not allowed with argument (\S+)", lambda m: f"{m[1]}: not allowed with {m[2]}"),
        (
            r"argument (\S+): ignored explicit argument (.*)",
            lambda m: f"{m[1]}: takes no value (got {_requoted(m[2])})",
        ),
        (r"argument (\S+): (.*)", lambda m: f"{m[1]}: {m[2]}"),
        (
            r"ambiguous option: (.*) could match (.*)",
            lambda m: f"{option_of(m[1])}: ambiguous option, could be {m[2]} (got {quote(m[1])})",
        ),
        (r"the following arguments are required: (.*)", lambda m: f"{m[1]}: required"),
    ]
    for pattern, rewrite in patterns:
        match = re.fullmatch(pattern, message)
        if match:
            return rewrite(match)
    return _cut(message)


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors raise :class:`UsageError` (one line, no usage dump) instead of
    printing the usage and exiting; the subcommands' parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        """Raise :class:`UsageError` with argparse's ``message`` in this program's form."""
        raise UsageError(_argparse_message(message))


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions laid out as written (they are plain text with their own line breaks), option help
    wrapped, and a wider column for the option names."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=32, width=110)


#: Digits of the longest integer the command line reads: more than any bound needs (2**64 has 20), far fewer
#: than the 4,300 past which Python refuses to convert text to an integer.
_MAX_DIGITS = 100


def _integer_text(text: str) -> Optional[int]:
    """The integer a command-line word writes in ASCII digits (an optional sign, at most
    :data:`_MAX_DIGITS` digits), else ``None``: no spaces, underscores or other scripts' digits."""
    if re.fullmatch(rf"[+-]?[0-9]{{1,{_MAX_DIGITS}}}", text) is None:
        return None
    return int(text)


def integer(low: int, high: Optional[int] = None, span: str = "") -> Callable[[str], int]:
    """An argparse ``type``: an integer ``low..high`` (``high`` None: no upper bound), else an error that
    quotes the text given. ``span`` words the range when its bounds are unwieldy."""
    words = span or (f"{low}..{high}" if high is not None else f">= {low}")

    def parse(text: str) -> int:
        value = _integer_text(text)
        if value is None or value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be an integer {words} (got {quote(text)})")
        return value

    return parse


#: The games of a run (``playout`` and ``rollout``).
GAMES = integer(1, (1 << 31) - 1, "1..2**31-1")
_THREADS = integer(1, 1024)
_SEED = integer(0, (1 << 64) - 1, "0..2**64-1")

#: The option of each argument the library names in its errors, so that its messages name the option.
_FIELD_OPTIONS = {
    "depth": "--depth",
    "games": "--games",
    "seed": "--seed",
    "threads": "--threads",
    "first_game": "--first-game",
    "policy": "--policy",
    "opening": "--opening",
    "stratify": "--no-stratify",
    "size": "--size",
    "plies": "--plies",
    "evaluator": "--evaluator",
    "match": "--match",
}


def _library_message(error: NardyError, option: str, fields: Optional[Mapping[str, str]] = None) -> str:
    """A library error as ``<option>: <problem>``: its field replaced by the option that gave the value when
    the field is one the command line sets (``fields``, else :data:`_FIELD_OPTIONS`), else ``option`` put in
    front."""
    known = _FIELD_OPTIONS if fields is None else fields
    message = one_line(str(error))
    match = re.fullmatch(r"(\w+)(?:\[\d+\])?: (.*)", message)
    if match and match[1] in known:
        return f"{known[match[1]]}: {match[2]}"
    return f"{option}: {message}"


@contextlib.contextmanager
def errors_of(option: str, fields: Optional[Mapping[str, str]] = None) -> Iterator[None]:
    """Turn the library's errors for bad input into :class:`UsageError` naming ``option`` (or the option of
    the field the error names: ``fields`` maps fields to options where a command's own differ from
    :data:`_FIELD_OPTIONS`)."""
    try:
        yield
    except NardyError as error:
        raise UsageError(_library_message(error, option, fields)) from None


#: The forms of a position the command line reads, for the help of the options that take one.
POSITION_FORMS = (
    'its text ("long w 12:-15,24:15"), its ID (position.id(), any variant), or for short nardy a GNU '
    "Backgammon Position ID (White to move) or ID:MatchID, or an XGID"
)
_GNUBG = re.compile(r"([A-Za-z0-9+/]{14})(?::(.*))?", re.DOTALL)
#: The package's ID: 5 characters at least (the variant, the turn, the first-roll marks and 24 empty points).
_COMPACT = re.compile(rf"[A-Za-z0-9_-]{{5,{ids.MAX_LENGTH}}}")

#: A position read, and the dice its form gives (None: none).
_Read = tuple[AnyPosition, Optional[tuple[int, int]]]


def _xgid(text: str) -> _Read:
    return Position.from_xgid(text), ids.read_xgid(text, warn=False).dice


def _gnubg(pid: str, match_id: Optional[str]) -> _Read:
    position = Position.from_gnubg_id(pid, match_id=match_id)
    return position, None if match_id is None else ids.read_match_id(match_id).dice


def _readings(text: str) -> list[Callable[[], _Read]]:
    """The readers ``text`` may be meant for, most likely first: its form tells (an XGID has ``XGID=`` or
    ten fields, a GNU Backgammon Position ID 14 characters of base64 and maybe ``:`` and a Match ID, the
    package's ID at most 29 of base64url); a text that looks like none is a position's text."""
    # a position's text first: its points are written with colons, nine of which would look like an XGID
    if text.partition(" ")[0] in VARIANTS:
        return [lambda: (Position.from_text(text), None)]
    if text.startswith("XGID=") or text.count(":") == 9:
        return [lambda: _xgid(text)]
    found: list[Callable[[], _Read]] = []
    gnubg = _GNUBG.fullmatch(text)
    if gnubg:
        found.append(lambda: _gnubg(gnubg[1], gnubg[2]))
    if _COMPACT.fullmatch(text):
        found.append(lambda: (Position.from_id(text), None))
    return found or [lambda: (Position.from_text(text), None)]


def read_position(
    text: str, option: str = "--position", *, unfinished: bool = False
) -> _Read:
    """The position ``text`` writes in any of :data:`POSITION_FORMS`, and the dice it gives (an XGID's or a
    Match ID's, else None); its errors name ``option`` and quote the text, and the NardyWarnings of its
    reading (a cube or a match score the position does not hold) are warning lines on stderr. With
    ``unfinished``, a finished game is an error too."""
    quoted = quote(text)
    errors: list[NardyError] = []
    for read in _readings(text):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", NardyWarning)
            try:
                position, dice = read()
            except NardyError as error:
                errors.append(error)
                continue
        for warning in caught:
            if issubclass(warning.category, NardyWarning):
                print(f"nardy-fast: warning: {option}: {one_line(str(warning.message))}", file=sys.stderr)
        if unfinished and position.is_over():
            raise UsageError(f"{option}: is a finished game (got {quoted})")
        return position, dice
    message = one_line(str(errors[0]))  # the likeliest form's error
    where = "" if quoted in message else f" (in {quoted})"
    raise UsageError(f"{option}: {message}{where}")


def parse_position(text: str, option: str = "--position", *, unfinished: bool = False) -> AnyPosition:
    """The position of :func:`read_position`, without its dice."""
    return read_position(text, option, unfinished=unfinished)[0]


def evaluator_of(text: str, option: str, also: tuple[str, ...] = ()) -> Union[str, Network]:
    """The evaluator a command-line word names: a built-in evaluator's name (or one of ``also``, the
    policies' names where a player is asked), else the network of the weights file at that path (as
    ``nardy-fast train`` writes it). A name wins over a file of that name: ``./net`` names the file."""
    if text in also or text in EVALUATORS:
        return text
    names = ", ".join(map(repr, (*also, *EVALUATORS)))
    try:
        return Network.load(text)
    except NardyError as error:
        message = one_line(str(error))
        if message.startswith("weights: no such file"):
            problem = f"must be one of {names} or a weights file (.npz): no such file"
            raise UsageError(f"{option}: {problem} (got {quote(text)})") from None
        raise UsageError(_library_message(error, option, {"weights": option})) from None


def check_network(evaluator: object, variant: str, option: str, text: str) -> None:
    """A network read from a file evaluates its own variant only: another is an error naming ``option``."""
    if isinstance(evaluator, Network) and evaluator.variant != variant:
        problem = f"is a network of {evaluator.variant} nardy, not of {variant} nardy"
        raise UsageError(f"{option}: {problem} (got {quote(text)})")


def play_options(parser: Parser, evaluators: bool = False) -> None:
    """The options of how games are played: ``--seed``, ``--policy`` and ``--threads``; with ``evaluators``,
    ``--policy`` also takes an evaluator or a weights file, searched ``--plies`` deep (:func:`policy_of`)."""
    parser.add_argument(
        "--seed", type=_SEED, default=0, metavar="S", help="seed of the dice (default: %(default)s)"
    )
    if evaluators:
        parser.add_argument(
            "--policy",
            default="random",
            metavar="POLICY",
            help="how each move is chosen: random (seeded, uniform among the legal moves), first (the first "
            f"legal move), an evaluator ({', '.join(EVALUATORS)}; net: the network shipped for the variant in "
            "contact, the race evaluator in races; network: that network alone) or "
            "a weights file (.npz) of nardy-fast train, which plays the best move by that evaluator searched "
            "--plies deep; a name wins over a file of that name (default: %(default)s)",
        )
        parser.add_argument(
            "--plies",
            type=integer(0, MAX_PLIES),
            default=None,
            metavar="K",
            help=f"how deep an evaluator --policy searches, 0..{MAX_PLIES} (default: 0; only for an evaluator)",
        )
    else:
        parser.add_argument(
            "--policy",
            choices=POLICIES,
            default="random",
            help="how each move is chosen: random (seeded, uniform among the legal moves) or first (the first "
            "legal move) (default: %(default)s)",
        )
    threads_option(parser)


def threads_option(parser: argparse.ArgumentParser) -> None:
    """``--threads``: the threads games are played on, which never change their results."""
    parser.add_argument(
        "--threads",
        type=_THREADS,
        default=1,
        metavar="T",
        help="threads the compiled core plays on; the results never depend on it (default: %(default)s)",
    )


def policy_of(args: argparse.Namespace, start: AnyPosition) -> tuple[object, str]:
    """The policy ``--policy`` and ``--plies`` (:func:`play_options` with evaluators) name, for games from
    ``start``, and how a report names it: a policy's name, or a Greedy of an evaluator or a weights file."""
    if args.policy in POLICIES:
        if args.plies is not None:
            raise UsageError(f"--plies: applies to an evaluator, not to {args.policy} (got {quote(str(args.plies))})")
        return args.policy, args.policy
    evaluator = evaluator_of(args.policy, "--policy", POLICIES)
    check_network(evaluator, start.variant, "--policy", args.policy)
    with errors_of("--policy", {"evaluator": "--policy", "rows": "--policy"}):
        # the evaluator's own check of the start (a variant it does not serve, a race evaluator out of a race)
        # before the games blame one of its children
        evaluate(start, evaluator)
    depth = args.plies or 0
    return Greedy(evaluator, plies=depth), f"{args.policy} ({depth}-ply)"


def max_results_option(parser: Parser) -> None:
    """``--max-results``: the bound of each ply's search in the games played (``max_results``)."""
    parser.add_argument(
        "--max-results",
        type=integer(1),
        default=None,
        metavar="N",
        help="give a game up at a ply whose search would hold more than N positions after one number of "
        "steps (a crazy ladder's can hold millions; default: no bound)",
    )


def _rule_flag(text: str) -> tuple[str, object]:
    """An argparse ``type``: ``NAME=VALUE``, a rule flag as the position text writes it, as its name and the
    value it reads (checked for the variant later, by the library)."""
    name, equals, value = text.partition("=")
    if not equals or re.fullmatch(r"\w+", name) is None:
        raise argparse.ArgumentTypeError(
            f"must be NAME=VALUE, a rule flag as the position text writes it (got {quote(text)})"
        )
    return name, flag_from_text(name, value)


def flag_option(parser: Parser) -> None:
    """The ``--flag NAME=VALUE`` option (repeated for several flags): the rule flags of the variant."""
    parser.add_argument(
        "--flag",
        type=_rule_flag,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule flag of the variant as the position text writes it, e.g. ladder_per_value=4 or "
        "block_check=per_step (docs/rules.md, Rule flags); repeat it for several flags (default: none)",
    )


def flags_of(args: argparse.Namespace) -> dict[str, object]:
    """The rule flags ``--flag`` gave, by name (a flag given twice: its last value)."""
    return dict(args.flag)
