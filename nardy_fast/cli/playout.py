"""``nardy-fast playout``: play whole games with seeded dice and print a summary of their results."""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
import numpy.typing as npt

from .. import IMPLEMENTATION, VARIANTS
from .._dispatch import playout
from ..errors import quote
from ..game import MAX_PLIES, OPENINGS
from .parser import GAMES, Parser, UsageError, errors_of, integer, parse_position, play_options
from .progress import Progress, in_chunks, progress_option, progress_stream

__all__ = ["DESCRIPTION", "add_arguments", "playout_summary", "run"]

DESCRIPTION = (
    "Play whole games with seeded dice (game g's dice depend only on the seed and g, so a run is the same\n"
    "on every machine, thread count and implementation) and print a summary table: wins by side, the\n"
    "points of the wins (single, mars, koks), the games given up, the mean plies and turns, the wall time\n"
    "and the speed. A mars wins 2 points and a koks 3; in short nardy these are the gammon and the\n"
    "backgammon. The games are played in chunks, which give the same games as one run. A progress bar\n"
    "(games done, percent, games/s, time left) is drawn on stderr when it is a terminal, or with\n"
    "--progress."
)

#: Game numbers stay below 2**62 (``playout`` refuses more), so the last game G+N-1 must too.
_GAME_NUMBERS = 1 << 62
_FIRST_GAME = integer(0, _GAME_NUMBERS - 1, "0..2**62-1")


def _start_options(parser: Parser) -> None:
    """Where the games start: ``--variant`` or ``--position``."""
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


def add_arguments(parser: Parser) -> None:
    """The options of ``playout``."""
    _start_options(parser)
    parser.add_argument(
        "--games", type=GAMES, default=1000, metavar="N", help="games to play (default: %(default)s)"
    )
    parser.add_argument(
        "--first-game",
        type=_FIRST_GAME,
        default=0,
        metavar="G",
        help="number of the first game: games G..G+N-1 are played, so that runs can share out the work of "
        "one (default: %(default)s)",
    )
    play_options(parser)
    parser.add_argument(
        "--opening",
        choices=OPENINGS,
        default=None,
        help="with --variant: the starter rolls two fresh dice (fresh_roll, the default) or plays the two "
        "single dice that decided who starts (use_single_dice)",
    )
    progress_option(parser)


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


def run(args: argparse.Namespace) -> int:
    """Run ``playout`` with the options of :func:`add_arguments`."""
    start: object
    if args.position is not None:
        if args.opening is not None:
            raise UsageError(f"--opening: only applies with --variant (got {quote(args.opening)})")
        position = parse_position(args.position, unfinished=True)
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
        with errors_of("--position" if args.position is not None else "--variant"):
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

    with Progress(args.games, progress_stream(args.progress)) as progress:
        parts = in_chunks(args.games, args.threads, play, progress)
    seconds = time.perf_counter() - progress.started
    print()
    print("\n".join(playout_summary(np.concatenate(parts), seconds)))
    return 0
