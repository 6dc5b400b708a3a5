"""The ``bench`` command: its options (:func:`add_arguments`), the legend of its tables, and :func:`main`,
which checks its counts, prints the settings and runs the sections, each variant's rows as soon as they are
measured and each section's verdicts after its table."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Optional, cast

from .. import corpus
from ..errors import NardyError, field_error, quote
from ..inputs import choice, items
from ..variants import VARIANTS
from .games import (
    DEFAULT_GAMES,
    DEFAULT_GNUBG_GAMES,
    DEFAULT_REFERENCE_GAMES,
    games_plan,
    report_games,
    run_games,
)
from .harness import DEFAULT_REPEATS, Progress, Tracker, bounded, clock_text, stderr_progress
from .peers import GNUBG_INSTALL, gnubg_installed
from .positions import (
    DEFAULT_REFERENCE_SIZE,
    DEFAULT_SIZE,
    positions_header,
    positions_plan,
    positions_rows,
    run_positions,
)
from .verdicts import games_verdicts, positions_verdicts

__all__ = ["SECTIONS", "MAX_REPEATS", "MAX_GAMES", "LONG_RUN", "LEGEND", "add_arguments", "command", "main"]

#: The sections of the benchmark, in the order they run.
SECTIONS = ("positions", "games")
#: The bounds of :func:`main`'s counts (and the command's options): timed repeats, and games per
#: measurement (``playout``'s own bound).
MAX_REPEATS = 1000
MAX_GAMES = (1 << 31) - 1
#: The settings of ``--long``: the earlier defaults (the reference on every measured position, five times the
#: games, five repeats), about a minute on a quiet machine of two cores and several on a loaded one.
LONG_RUN = {"size": 1_000, "reference_size": None, "repeats": 5, "games": 20_000, "reference_games": 10}

LEGEND = """\
legend:
  on, games     the positions (games) a row measured; a ratio of positions compares rows on the same ones,
                a ratio of games compares games/s of whole random games from the start
  positions/s   positions whose legal moves were generated, per second
  plays/s       children (distinct legal results) produced per second
  games/s       whole games played to the end per second; plies/s: moves played per second
  ratio         the median, over the repeats, of the ratio within each repeat (both sides timed back to back)
  verdicts      one line per comparison: its target where the project states one; a two-thread ratio whose
                two-process control is under 1.5x was taken on a loaded machine and is not judged
  legal_moves   a Python Move object per child; children: one array per position; batch_children: one call
  2 threads     the same work split in two parts on two threads of one process
  2 processes   the same parts in two processes: how far this machine lets two workers scale right now
  CPU/position  the CPU time per position (CPU/game: per game) over one thread's: 1.00 = no extra work in
                parallel, whatever share of the cores the machine lends
  top 1%        the share of all children that come from the 1% of positions with the most children;
                where it is high, a few (ladder) positions dominate the variant's rates"""


def _count(low: int, high: int = MAX_GAMES) -> Callable[[str], int]:
    """An argparse ``type``: an integer ``low..high``, else an error that quotes the text given."""

    def parse(text: str) -> int:
        # ASCII digits only, and few enough that Python converts them (it refuses more than 4,300)
        value = int(text) if re.fullmatch(r"[+-]?[0-9]{1,100}", text) else None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be an integer {low}..{high} (got {quote(text)})")
        return value

    return parse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the ``bench`` command (defaults: about a minute on a loaded machine of two cores, half
    that on a quiet one, under 300 MB; ``--long`` for the longer run)."""
    parser.add_argument(
        "--long",
        action="store_true",
        help=f"the longer run: --size {LONG_RUN['size']:,}, the reference on all of them, --repeats"
        f" {LONG_RUN['repeats']}, --games {LONG_RUN['games']:,}, --reference-games {LONG_RUN['reference_games']}"
        " (about a minute on a quiet machine of two cores); the options given too take precedence",
    )
    parser.add_argument(
        "--size",
        metavar="N",
        type=_count(1, corpus.SIZE),
        default=None,
        help=f"corpus positions per variant, every API on the same ones (default {DEFAULT_SIZE:,}, at most"
        f" {corpus.SIZE:,}; crazy's whole corpus needs about 700 MB)",
    )
    parser.add_argument(
        "--reference-size",
        metavar="N",
        type=_count(1, corpus.SIZE),
        default=None,
        help=f"the reference's legal_moves on only the first N of those positions (default"
        f" {DEFAULT_REFERENCE_SIZE:,}, with --long all of them; the reference takes minutes on crazy's whole"
        " corpus)",
    )
    parser.add_argument(
        "--repeats",
        metavar="N",
        type=_count(1, MAX_REPEATS),
        default=None,
        help=f"timed repeats (default {DEFAULT_REPEATS})",
    )
    parser.add_argument(
        "--games",
        metavar="N",
        type=_count(1),
        default=None,
        help=f"games per measurement of the core's playouts (default {DEFAULT_GAMES:,})",
    )
    parser.add_argument(
        "--gnubg-games",
        metavar="N",
        type=_count(0),
        default=DEFAULT_GNUBG_GAMES,
        help=f"games of GNU Backgammon's Python loop (default {DEFAULT_GNUBG_GAMES:,}; 0 leaves it out)",
    )
    parser.add_argument(
        "--reference-games",
        metavar="N",
        type=_count(0),
        default=None,
        help=f"games of the reference's playouts, about 20 a second (default {DEFAULT_REFERENCE_GAMES}; 0 leaves"
        " them out)",
    )
    parser.add_argument(
        "--variant",
        metavar="VARIANT",
        action="append",
        choices=VARIANTS,
        help=f"measure the positions of this variant only, one of {', '.join(VARIANTS)} (repeat the option for"
        " several; default: all)",
    )
    parser.add_argument(
        "--section",
        metavar="SECTION",
        action="append",
        choices=SECTIONS,
        help="run this section only: positions (the move generators) or games (whole games); repeat the option"
        " for both (the default)",
    )


def _names(field: str, value: object, choices: tuple[str, ...]) -> tuple[str, ...]:
    """One or more names among ``choices`` given to :func:`main`, else a ``NardyError`` naming ``field``."""
    found = items(value)
    names = None if found is None else tuple(choice(name, choices) for name in found)
    if not names or any(name is None for name in names):
        raise field_error(NardyError, field, f"must be one or more of {choices}", value)
    return cast("tuple[str, ...]", names)


def _setting(args: argparse.Namespace, name: str, default: Optional[int]) -> Optional[int]:
    """An option's value: as given, else ``--long``'s, else the default."""
    given: Optional[int] = getattr(args, name)
    if given is not None:
        return given
    return LONG_RUN[name] if getattr(args, "long", False) else default


def command(args: argparse.Namespace) -> int:
    """Run the ``bench`` command with the options of :func:`add_arguments`."""
    return main(
        cast(int, _setting(args, "size", DEFAULT_SIZE)),
        _setting(args, "reference_size", DEFAULT_REFERENCE_SIZE),
        cast(int, _setting(args, "repeats", DEFAULT_REPEATS)),
        games=cast(int, _setting(args, "games", DEFAULT_GAMES)),
        gnubg_games_count=args.gnubg_games,
        reference_games=cast(int, _setting(args, "reference_games", DEFAULT_REFERENCE_GAMES)),
        variants=tuple(args.variant or VARIANTS),
        sections=tuple(args.section or SECTIONS),
    )


def _load() -> str:
    """The machine's load average over the last minute and its cores, when the system tells."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # not on Windows
        return ""
    return f"; load average {load:.2f} on {os.cpu_count() or '?'} cores"


def main(
    size: int = DEFAULT_SIZE,
    reference_size: Optional[int] = DEFAULT_REFERENCE_SIZE,
    repeats: int = DEFAULT_REPEATS,
    *,
    games: int = DEFAULT_GAMES,
    gnubg_games_count: int = DEFAULT_GNUBG_GAMES,
    reference_games: int = DEFAULT_REFERENCE_GAMES,
    variants: Sequence[str] = VARIANTS,
    sections: Sequence[str] = SECTIONS,
    progress: Progress = stderr_progress,
) -> int:
    """Run the benchmark: print its settings and legend, then each variant's rows of the positions table as
    soon as they are measured, the games table when its section ends, and each section's verdicts (one line
    per comparison, :mod:`nardy_fast.bench.verdicts`); the progress goes to ``progress`` as one line
    (percent done, time elapsed and left, the step), redrawn at least every second.

    The counts are bounded as the command's options are: ``size`` and ``reference_size`` 1..``corpus.SIZE``
    (``reference_size`` ``None``: all ``size``), ``repeats`` 1..:data:`MAX_REPEATS`, ``games``
    1..:data:`MAX_GAMES` (with one game, the two-process control is left out, and the report says so),
    ``gnubg_games_count`` and ``reference_games`` 0..:data:`MAX_GAMES`; ``variants`` and ``sections`` are one
    or more names of ``VARIANTS`` and :data:`SECTIONS`. Anything else is a ``NardyError`` naming the
    argument."""
    from .. import IMPLEMENTATION

    size = bounded("size", size, 1, corpus.SIZE)
    if reference_size is not None:
        reference_size = bounded("reference_size", reference_size, 1, corpus.SIZE)
    repeats = bounded("repeats", repeats, 1, MAX_REPEATS)
    games = bounded("games", games, 1, MAX_GAMES)
    gnubg_games_count = bounded("gnubg_games_count", gnubg_games_count, 0, MAX_GAMES)
    reference_games = bounded("reference_games", reference_games, 0, MAX_GAMES)
    variants = _names("variants", variants, VARIANTS)
    sections = _names("sections", sections, SECTIONS)
    if not callable(progress):
        raise field_error(NardyError, "progress", "must be a callable taking a message", progress)
    reference = size if reference_size is None else min(reference_size, size)
    tracker = Tracker(progress)
    plan = []
    if "positions" in sections:
        plan += positions_plan(variants, size, reference, repeats)
    if "games" in sections:
        plan += games_plan(games, gnubg_games_count, reference_games, repeats)
    tracker.plan(plan)
    gnubg = "gnubg-nn installed" if gnubg_installed() else f"not installed ({GNUBG_INSTALL} adds it)"
    print(
        f"nardy_fast bench: implementation {IMPLEMENTATION}; {size:,} corpus positions per variant (reference"
        f" legal_moves on the first {reference:,}); {games:,} games per playout; medians of {repeats} repeats;"
        f" GNU Backgammon: {gnubg}{_load()}; about {clock_text(sum(s for _, s in plan))} on a quiet machine"
    )
    print(LEGEND, flush=True)
    with tracker:
        if "positions" in sections:
            tracker.emit("\n" + positions_header())
            results = run_positions(
                variants, size, reference, repeats, tracker, report=lambda r: tracker.emit(positions_rows(r))
            )
            tracker("bench positions: done")
            verdicts = positions_verdicts(results, gnubg_wanted="short" in variants)
            if verdicts:
                tracker.emit("\nverdicts, positions:\n" + "\n".join("  " + line for line in verdicts))
        if "games" in sections:
            measures = run_games(games, gnubg_games_count, reference_games, repeats, tracker)
            tracker("bench games: done")
            tracker.emit("\n" + report_games(measures))
            verdicts = games_verdicts(measures, gnubg_games_count)
            if verdicts and measures:
                tracker.emit("\nverdicts, games:\n" + "\n".join("  " + line for line in verdicts))
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    return 0
