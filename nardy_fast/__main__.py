"""nardy-fast: the command line of the nardy_fast package.

Run it as nardy-fast (the console script the package installs) or as python -m nardy_fast: the same program.

Commands (nardy-fast COMMAND --help lists a command's options and says what it prints):
  bench     positions/s and plays/s of the pure-Python reference and the compiled core, per variant, on the
            embedded corpus, and games/s of whole games, with their ratios (the command run when none is
            given)
  perft     count the move paths of a given depth from the start of every variant or from a position;
            --divide splits the count by first move, --check compares the counts shipped with the package
  playout   play whole games with seeded dice and print a summary: wins by side, points, games given up,
            mean game length and speed
  rollout   play a position out many times and print the probability of each result, with its standard
            error, and the equity of the side to move
  corpus    rebuild the embedded benchmark corpus (seeded self-play)

Bad input prints one line on stderr, naming the option and quoting the value, and exits with status 2;
Ctrl-C exits with status 130. Positions are written as in the package, e.g. "long w 12:-15,24:15"
(docs/rules.md describes the text and the rules of every variant).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import difflib
import math
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, NoReturn, Optional, TypeVar, final

import numpy as np
import numpy.typing as npt

from . import IMPLEMENTATION, MAX_PERFT_DEPTH, VARIANTS, Position, bench, corpus, divide, perft
from ._dispatch import implementations, playout, rollout
from .errors import QUOTE_LIMIT, NardyError, quote
from .game import MAX_PLIES, OPENINGS, POLICIES
from .perft import perft_cases
from .position import Position as AnyPosition
from .rollouts import OUTCOMES, Rollout

__all__ = ["PROG", "main"]

#: The program's name in its help and its error messages.
PROG = "nardy-fast"
#: The exit status of bad input (argparse's) and of an interrupted run (128 + SIGINT, the shell's convention).
USAGE_STATUS = 2
INTERRUPTED_STATUS = 130

_T = TypeVar("_T")


class UsageError(Exception):
    """Bad input on the command line: ``main`` prints the message as one line and exits with status 2."""


# --- the parser ---------------------------------------------------------------------------------------------


def _one_line(message: str) -> str:
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


def _option_of(text: str) -> str:
    """The option a command-line word names (``--x=value`` names ``--x``), cut when it is no real one."""
    return _cut(text.partition("=")[0])


def _argparse_message(message: str) -> str:
    """argparse's error messages in this program's form, ``<option>: <problem> (got <value>)``, every value
    given quoted through :func:`~nardy_fast.errors.quote` (argparse quotes them whole)."""
    message = _one_line(message)
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
            lambda m: f"{_option_of(m[1])}: ambiguous option, could be {m[2]} (got {quote(m[1])})",
        ),
        (r"the following arguments are required: (.*)", lambda m: f"{m[1]}: required"),
    ]
    for pattern, rewrite in patterns:
        match = re.fullmatch(pattern, message)
        if match:
            return rewrite(match)
    return _cut(message)


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors raise :class:`UsageError` (one line, no usage dump) instead of
    printing the usage and exiting; the subcommands' parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(_argparse_message(message))


class _Formatter(argparse.RawDescriptionHelpFormatter):
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


def _integer(low: int, high: Optional[int] = None, span: str = "") -> Callable[[str], int]:
    """An argparse ``type``: an integer ``low..high`` (``high`` None: no upper bound), else an error that
    quotes the text given. ``span`` words the range when its bounds are unwieldy."""
    words = span or (f"{low}..{high}" if high is not None else f">= {low}")

    def integer(text: str) -> int:
        value = _integer_text(text)
        if value is None or value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be an integer {words} (got {quote(text)})")
        return value

    return integer


_DEPTH = _integer(0, MAX_PERFT_DEPTH)
_GAMES = _integer(1, (1 << 31) - 1, "1..2**31-1")
_THREADS = _integer(1, 1024)
_SEED = _integer(0, (1 << 64) - 1, "0..2**64-1")
#: Game numbers stay below 2**62 (``playout`` refuses more), so the last game G+N-1 must too.
_GAME_NUMBERS = 1 << 62
_FIRST_GAME = _integer(0, _GAME_NUMBERS - 1, "0..2**62-1")
_CORPUS_SIZE = _integer(1, corpus.MAX_SIZE, f"1..{corpus.MAX_SIZE:,}")
_COUNT = _integer(0)

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
}


def _library_message(error: NardyError, option: str) -> str:
    """A library error as ``<option>: <problem>``: its field replaced by the option that gave the value when
    the field is one the command line sets, else ``option`` put in front."""
    message = _one_line(str(error))
    match = re.fullmatch(r"(\w+)(?:\[\d+\])?: (.*)", message)
    if match and match[1] in _FIELD_OPTIONS:
        return f"{_FIELD_OPTIONS[match[1]]}: {match[2]}"
    return f"{option}: {message}"


@contextlib.contextmanager
def _errors_of(option: str) -> Iterator[None]:
    """Turn the library's errors for bad input into :class:`UsageError` naming ``option`` (or the option of
    the field the error names)."""
    try:
        yield
    except NardyError as error:
        raise UsageError(_library_message(error, option)) from None


def _position(text: str, option: str = "--position", *, unfinished: bool = False) -> AnyPosition:
    """``Position.from_text(text)``, its errors naming ``option`` and quoting the text; with ``unfinished``,
    a finished game is an error too."""
    quoted = quote(text)
    try:
        position = Position.from_text(text)
    except NardyError as error:
        message = _one_line(str(error))
        where = "" if quoted in message else f" (in {quoted})"
        raise UsageError(f"{option}: {message}{where}") from None
    if unfinished and position.is_over():
        raise UsageError(f"{option}: is a finished game (got {quoted})")
    return position


def _parser() -> tuple[_Parser, dict[str, _Parser]]:
    """The parser, and the parser of each command by name."""
    parser = _Parser(prog=PROG, description=__doc__, formatter_class=_Formatter)
    commands = parser.add_subparsers(
        dest="command", metavar="COMMAND", title="commands", help="one of the commands above"
    )
    subparsers: dict[str, _Parser] = {}

    def command(name: str, description: str) -> _Parser:
        # no help=: the module's description lists the commands, better than one line each
        sub: _Parser = commands.add_parser(name, description=description, formatter_class=_Formatter)
        subparsers[name] = sub
        return sub

    bench_parser = command(
        "bench",
        "Time legal-move generation of the pure-Python reference and the compiled core on the embedded corpus,\n"
        "per variant and API, and whole games (playouts, against GNU Backgammon's Python loop when gnubg-nn\n"
        "is installed); print positions/s, plays/s and games/s with the ratios between them (each figure the\n"
        "median of a few repeats) and a legend of every column. Progress goes to stderr.",
    )
    bench.add_arguments(bench_parser)

    perft_parser = command(
        "perft",
        "Count the move paths of a given depth (perft: every roll, every legal move, repeated depth times)\n"
        "and print, for each start, the count, the time taken and the nodes per second; --divide also prints\n"
        "the count below every first move. --check instead prints, for each count shipped with the package,\n"
        "ok or MISMATCH and the count found, and exits with status 1 on a mismatch.",
    )
    start = perft_parser.add_mutually_exclusive_group()
    start.add_argument(
        "--variant",
        choices=("all", *VARIANTS),
        default="all",
        help="count from the start of this variant, or of every one with all (default: %(default)s)",
    )
    start.add_argument("--position", metavar="TEXT", help="count from this position instead of a start")
    perft_parser.add_argument(
        "--depth",
        type=_DEPTH,
        default=2,
        metavar="N",
        help=f"plies (moves) deep to count, 0..{MAX_PERFT_DEPTH} (default: %(default)s)",
    )
    perft_parser.add_argument(
        "--divide", action="store_true", help="also print the count of every first move"
    )
    perft_parser.add_argument(
        "--check", action="store_true", help="check the counts shipped with the package instead"
    )
    perft_parser.add_argument(
        "--budget",
        type=_COUNT,
        default=5_000_000,
        metavar="NODES",
        help="with --check: only the counts of at most this many nodes (default: %(default)s)",
    )

    playout_parser = command(
        "playout",
        "Play whole games with seeded dice (game g's dice depend only on the seed and g, so a run is the same\n"
        "on every machine, thread count and implementation) and print a summary table: wins by side, the\n"
        "points of the wins (single, mars, koks), the games given up, the mean plies and turns, the wall time\n"
        "and the speed. A mars wins 2 points and a koks 3; in short nardy these are the gammon and the\n"
        "backgammon. The games are played in chunks, which give the same games as one run. A progress bar\n"
        "(games done, percent, games/s, time left) is drawn on stderr when it is a terminal, or with\n"
        "--progress.",
    )
    _start_options(playout_parser)
    playout_parser.add_argument(
        "--games", type=_GAMES, default=1000, metavar="N", help="games to play (default: %(default)s)"
    )
    playout_parser.add_argument(
        "--first-game",
        type=_FIRST_GAME,
        default=0,
        metavar="G",
        help="number of the first game: games G..G+N-1 are played, so that runs can share out the work of "
        "one (default: %(default)s)",
    )
    _play_options(playout_parser)
    playout_parser.add_argument(
        "--opening",
        choices=OPENINGS,
        default=None,
        help="with --variant: the starter rolls two fresh dice (fresh_roll, the default) or plays the two "
        "single dice that decided who starts (use_single_dice)",
    )
    _progress_option(playout_parser)

    rollout_parser = command(
        "rollout",
        "Play a position out many times with seeded dice and print the probability of each result (a single,\n"
        "mars or koks win for either side; a mars wins 2 points and a koks 3, in short nardy the gammon and\n"
        "the backgammon), the standard error of each, the games given up, and the equity of the side to move\n"
        "(points won per game, losses counted negative) with its standard error. By default the first two\n"
        "rolls cycle through all 36 x 36 ordered pairs (stratified), which lowers the error at the same\n"
        "number of games; a multiple of 1296 games covers every pair equally.",
    )
    rollout_parser.add_argument(
        "--position", metavar="TEXT", required=True, help="the position to roll out (required)"
    )
    rollout_parser.add_argument(
        "--games", type=_GAMES, default=1296, metavar="N", help="games to play (default: %(default)s)"
    )
    _play_options(rollout_parser)
    rollout_parser.add_argument(
        "--no-stratify",
        dest="stratify",
        action="store_false",
        help="draw the first two rolls at random like every other roll",
    )
    _progress_option(rollout_parser)

    corpus_parser = command(
        "corpus",
        "Rebuild the embedded benchmark corpus by seeded self-play (the same file on every machine), write\n"
        "it over nardy_fast/data/corpus.npz and print the path written.",
    )
    corpus_parser.add_argument(
        "--size",
        type=_CORPUS_SIZE,
        default=corpus.SIZE,
        metavar="N",
        help=f"positions per variant, at most {corpus.MAX_SIZE:,} (default: %(default)s)",
    )
    return parser, subparsers


def _start_options(parser: _Parser) -> None:
    start = parser.add_mutually_exclusive_group()
    start.add_argument(
        "--variant",
        choices=VARIANTS,
        default="long",
        help="start every game from this variant's start, who starts and the opening rolled (default: "
        "%(default)s)",
    )
    start.add_argument(
        "--position",
        metavar="TEXT",
        help="start every game from this position, the side to move rolling first",
    )


def _play_options(parser: _Parser) -> None:
    parser.add_argument(
        "--seed", type=_SEED, default=0, metavar="S", help="seed of the dice (default: %(default)s)"
    )
    parser.add_argument(
        "--policy",
        choices=POLICIES,
        default="random",
        help="how each move is chosen: random (seeded, uniform among the legal moves) or first (the first "
        "legal move) (default: %(default)s)",
    )
    parser.add_argument(
        "--threads",
        type=_THREADS,
        default=1,
        metavar="T",
        help="threads the compiled core plays on; the results never depend on it (default: %(default)s)",
    )


def _progress_option(parser: _Parser) -> None:
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="draw (or, with --no-progress, never draw) the progress bar on stderr (default: only when "
        "stderr is a terminal)",
    )


# --- progress -------------------------------------------------------------------------------------------------

#: The games of the first chunk per thread, and the time a chunk aims at: short enough for the bar to move
#: and for Ctrl-C to be seen soon (the core holds no Python lock while it plays, but Python only acts on the
#: signal between chunks), long enough that the calls cost nothing.
_FIRST_CHUNK = 200
_CHUNK_SECONDS = 0.25


def _duration(seconds: float) -> str:
    """``h:mm:ss`` (or ``m:ss``), ``?`` when unknown."""
    if not math.isfinite(seconds):
        return "?"
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


@final
class Progress:
    """A progress bar of one line on ``stream``, redrawn with a carriage return: games done of the total,
    percent, games/s and the time left. Used as a context manager, it ends its line when the work stops
    (finished, failed or interrupted), so that what follows starts on a line of its own."""

    def __init__(self, total: int, stream: Optional[IO[str]]) -> None:
        self.total = total
        self.stream = stream
        self.started = time.perf_counter()
        self._width = 0

    def update(self, done: int) -> None:
        """Redraw the line for ``done`` games played."""
        if self.stream is None:
            return
        elapsed = time.perf_counter() - self.started
        rate = done / elapsed if elapsed > 0 else math.inf
        left = (self.total - done) / rate if rate > 0 else math.inf
        line = (
            f"{done:,}/{self.total:,} games  {100 * done / self.total:5.1f}%  "
            f"{rate:,.0f} games/s  ETA {_duration(left)}"
        )
        self.stream.write("\r" + line.ljust(self._width))
        self.stream.flush()
        self._width = len(line)

    def __enter__(self) -> Progress:
        self.update(0)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.stream is not None:
            self.stream.write("\n")
            self.stream.flush()


def _progress_stream(wanted: Optional[bool]) -> Optional[IO[str]]:
    """stderr when the bar is wanted (``--progress``), or not refused (``--no-progress``) and stderr is a
    terminal; else None."""
    if wanted is None:
        wanted = sys.stderr.isatty()
    return sys.stderr if wanted else None


def _in_chunks(total: int, threads: int, play: Callable[[int, int], _T], progress: Progress) -> list[_T]:
    """``play(first, count)`` over consecutive chunks covering ``0..total-1``, their results in order. A
    chunk's size follows the speed measured so far, to last about :data:`_CHUNK_SECONDS`."""
    results = []
    done = 0
    size = _FIRST_CHUNK * threads
    while done < total:
        count = min(size, total - done)
        started = time.perf_counter()
        results.append(play(done, count))
        seconds = time.perf_counter() - started
        done += count
        progress.update(done)
        # at most four times larger each step: one fast chunk must not make the next one take minutes
        wanted = count * _CHUNK_SECONDS / seconds if seconds > 0 else 4 * count
        size = max(threads, min(4 * count, int(wanted)))
    return results


# --- the commands ---------------------------------------------------------------------------------------------


def _check_command(budget: int) -> int:
    """Run the shipped perft cases of at most ``budget`` nodes; on a mismatch print the divide of both
    implementations."""
    print(f"implementation: {IMPLEMENTATION}; counts of at most {budget:,} nodes")
    failures = 0
    for case in perft_cases(budget):
        position = Position.from_text(case.text)
        found = perft(position, case.depth)
        status = "ok" if found == case.count else "MISMATCH"
        print(
            f"{status:>8}  {case.text}  depth {case.depth}: expected {case.count} ({case.source}), found {found}"
        )
        if found != case.count:
            failures += 1
            mine = divide(position, case.depth)
            theirs = divide(implementations()["python"].Position.from_text(case.text), case.depth)
            for label in sorted(set(mine) | set(theirs)):
                if mine.get(label) != theirs.get(label):
                    print(f"          {label}: {mine.get(label)} (reference {theirs.get(label)})")
    return 1 if failures else 0


def _perft_command(args: argparse.Namespace) -> int:
    if args.check:
        return _check_command(args.budget)
    if args.position is not None:
        positions = [("position", _position(args.position))]
    else:
        names = VARIANTS if args.variant == "all" else (args.variant,)
        positions = [(name, Position.start(name)) for name in names]
    if args.divide and args.depth == 0:
        raise UsageError(f"--depth: must be at least 1 with --divide (got {quote(str(args.depth))})")
    print(f"implementation: {IMPLEMENTATION}")
    for name, position in positions:
        start = time.perf_counter()
        with _errors_of("--depth"):
            if args.divide:
                counts = divide(position, args.depth)
                for label, count in counts.items():
                    print(f"  {label}: {count}")
                nodes = sum(counts.values())
            else:
                nodes = perft(position, args.depth)
        seconds = time.perf_counter() - start
        rate = nodes / seconds if seconds > 0 else float("inf")
        print(f"{name:>8}  depth {args.depth}  perft {nodes:>10}  {seconds:8.3f} s  {rate:12,.0f} nodes/s")
    return 0


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.2f}%" if whole else "-"


def playout_summary(records: npt.NDArray[np.void], seconds: float) -> list[str]:
    """The summary table of ``playout`` records (one per game, ``nardy_fast.game.RECORD``) played in
    ``seconds``, with its legend, as lines."""
    games = len(records)
    winner = records["winner"]
    points = records["points"]
    header = f"{'result':<10} {'games':>12} {'%':>8} {'single':>12} {'mars':>12} {'koks':>12} {'points':>12}"
    lines = [header, "-" * len(header)]
    for side, name in enumerate(("white", "black")):
        won = winner == side
        kinds = [int(np.count_nonzero(won & (points == k))) for k in (1, 2, 3)]
        wins = int(np.count_nonzero(won))
        total_points = int(points[won].sum(dtype=np.int64))
        lines.append(
            f"{name + ' won':<10} {wins:>12,} {_percent(wins, games):>8} "
            + " ".join(f"{k:>12,}" for k in kinds)
            + f" {total_points:>12,}"
        )
    given_up = int(np.count_nonzero(winner == -1))
    lines.append(f"{'given up':<10} {given_up:>12,} {_percent(given_up, games):>8}")
    lines.append(f"{'all':<10} {games:>12,} {_percent(games, games):>8}")
    mean_plies = float(records["plies"].mean(dtype=np.float64)) if games else 0.0
    mean_turns = float(records["turns"].mean(dtype=np.float64)) if games else 0.0
    rate = games / seconds if seconds > 0 else math.inf
    lines += [
        "",
        f"mean plies {mean_plies:.2f}, mean turns {mean_turns:.2f} per game",
        f"wall time {seconds:.3f} s, {rate:,.0f} games/s",
        "",
        "games: games that ended so; %: their share of all games; single, mars, koks: wins worth 1, 2 and 3",
        "points (mars: the loser bore off nothing; koks, short nardy only: a mars with a loser's checker on the",
        "bar or in the winner's home; in short nardy these are the gammon and the backgammon); points: points",
        f"won; given up: games stopped after {MAX_PLIES:,} plies without a winner; plies: moves played,",
        "transfer segments included; turns: rolls played; wall time: the time taken to play the games.",
    ]
    return lines


def _playout_command(args: argparse.Namespace) -> int:
    start: object
    if args.position is not None:
        if args.opening is not None:
            raise UsageError(f"--opening: only applies with --variant (got {quote(args.opening)})")
        position = _position(args.position, unfinished=True)
        start, described = position, f"from {position.to_text()!r}"
        opening = OPENINGS[0]
    else:
        opening = args.opening or OPENINGS[0]
        start, described = args.variant, f"{args.variant} from the start, opening {opening}"
    last = args.first_game + args.games - 1
    if last >= _GAME_NUMBERS:
        raise UsageError(
            f"--first-game: must be below 2**62 - {args.games} (--games) (got {quote(str(args.first_game))})"
        )
    print(
        f"playout: games {args.first_game:,}..{last:,} ({args.games:,}) of {described}; seed {args.seed}, "
        f"policy {args.policy}, {args.threads} thread{'s' if args.threads > 1 else ''}, "
        f"implementation {IMPLEMENTATION}"
    )
    sys.stdout.flush()

    def play(first: int, count: int) -> npt.NDArray[np.void]:
        with _errors_of("--position" if args.position is not None else "--variant"):
            records: npt.NDArray[np.void] = playout(
                start,
                count,
                seed=args.seed,
                policy=args.policy,
                threads=args.threads,
                opening=opening,
                first_game=args.first_game + first,
            )
        return records

    with Progress(args.games, _progress_stream(args.progress)) as progress:
        parts = _in_chunks(args.games, args.threads, play, progress)
    seconds = time.perf_counter() - progress.started
    print()
    print("\n".join(playout_summary(np.concatenate(parts), seconds)))
    return 0


def rollout_report(result: Rollout, seconds: float) -> list[str]:
    """The table of a ``nardy_fast.rollout`` result with its legend, as lines."""
    games = result.games
    header = f"{'result':<14} {'games':>12} {'probability':>12} {'std. error':>12}"
    lines = [header, "-" * len(header)]
    for outcome, count in zip(OUTCOMES, result.counts):
        name = outcome.replace("_", " ")
        lines.append(
            f"{name:<14} {count:>12,} {result.probabilities[outcome]:>12.5f} {result.stderr[outcome]:>12.5f}"
        )
    lines.append(f"{'given up':<14} {result.unfinished:>12,}")
    lines.append(f"{'all':<14} {games:>12,}")
    rate = games / seconds if seconds > 0 else math.inf
    lines += [
        "",
        f"equity of {result.turn} (to move): {result.equity:+.5f} points per game, "
        f"std. error {result.equity_stderr:.5f}",
        f"wall time {seconds:.3f} s, {rate:,.0f} games/s",
        "",
        "white single, white mars, ...: White (Black) won 1 point (single), 2 (mars: the loser bore off",
        "nothing) or 3 (koks, short nardy only); in short nardy mars and koks are the gammon and the backgammon;",
        "probability: share of all games; std. error: its standard error for independent games (with the first",
        f"two rolls stratified, an upper bound); given up: games stopped after {MAX_PLIES:,} plies without a",
        "winner; equity: points won per game by the side to move, losses counted negative, a game given up 0.",
    ]
    return lines


def _rollout_command(args: argparse.Namespace) -> int:
    position = _position(args.position, unfinished=True)
    print(
        f"rollout of {position.to_text()!r}: {args.games:,} games, seed {args.seed}, policy {args.policy}, "
        f"{'stratified first two rolls' if args.stratify else 'no stratification'}, {args.threads} "
        f"thread{'s' if args.threads > 1 else ''}, implementation {IMPLEMENTATION}"
    )
    sys.stdout.flush()

    def play(first: int, count: int) -> Rollout:
        with _errors_of("--position"):
            part: Rollout = rollout(
                position,
                count,
                seed=args.seed,
                policy=args.policy,
                stratify=args.stratify,
                threads=args.threads,
                first_game=first,
            )
        return part

    with Progress(args.games, _progress_stream(args.progress)) as progress:
        parts = _in_chunks(args.games, args.threads, play, progress)
    seconds = time.perf_counter() - progress.started
    print()
    print("\n".join(rollout_report(Rollout.combine(parts), seconds)))
    return 0


def _corpus_command(args: argparse.Namespace) -> int:
    with _errors_of("--size"):
        arrays = corpus.build(Position, args.size)
    target = Path(__file__).parent / "data" / "corpus.npz"
    np.savez_compressed(target, **arrays)  # type: ignore[arg-type]
    print(f"wrote {target} ({args.size} positions per variant)")
    return 0


def _unknown(extras: list[str], command: Optional[str], subparser: Optional[_Parser]) -> UsageError:
    """The error for arguments no option took: the first unknown option named, with the nearest known one."""
    where = f" of {command}" if command else ""
    first = extras[0]
    if not first.startswith("-"):
        return UsageError(f"{command or PROG}: unexpected argument (got {quote(' '.join(extras))})")
    known = [o for a in (subparser._actions if subparser else []) for o in a.option_strings]
    near = difflib.get_close_matches(_option_of(first), known, n=1)
    hint = f"; did you mean {near[0]}?" if near else ""
    return UsageError(f"{_option_of(first)}: unknown option{where} (got {quote(first)}){hint}")


def _run(argv: Optional[Sequence[str]]) -> int:
    parser, subparsers = _parser()
    args, extras = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    if extras:
        raise _unknown(extras, args.command, subparsers.get(args.command))
    if args.command is None:
        args = parser.parse_args(["bench"])
    if args.command == "bench":
        return bench.command(args)
    if args.command == "corpus":
        return _corpus_command(args)
    if args.command == "playout":
        return _playout_command(args)
    if args.command == "rollout":
        return _rollout_command(args)
    return _perft_command(args)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``nardy-fast`` and ``python -m nardy_fast``: run the command of ``argv`` (default
    ``sys.argv[1:]``) and return the exit status: 0 done, 1 a check failed, 2 bad input, 130 interrupted."""
    try:
        return _run(argv)
    except UsageError as error:
        sys.stdout.flush()
        print(f"{PROG}: error: {_one_line(str(error))}", file=sys.stderr)
        return USAGE_STATUS
    except NardyError as error:  # a library check this module did not tie to an option
        sys.stdout.flush()
        print(f"{PROG}: error: {_one_line(str(error))}", file=sys.stderr)
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


if __name__ == "__main__":
    sys.exit(main())
