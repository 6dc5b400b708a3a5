"""``nardy-fast playout``: play whole games with seeded dice and print a summary of their results."""

from __future__ import annotations

import argparse
import io
import json
import math
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Optional

import numpy as np
import numpy.typing as npt

from .. import IMPLEMENTATION, VARIANTS, Match, Position, playout
from ..errors import NardyError, cut, quote
from ..files import check_target, write_bytes, write_file
from ..inputs import choice
from ..playouts import PlayoutOptions
from ..turns import LIMITED, MAX_PLIES, OPENINGS, RECORD
from .parser import (
    GAMES,
    Parser,
    UsageError,
    errors_of,
    integer,
    max_results_option,
    one_line,
    parse_position,
    play_options,
    policy_of,
)
from .progress import Progress, in_chunks, progress_option, progress_stream
from .rollout import cube_match, cube_options

__all__ = ["DESCRIPTION", "OUT_FORMATS", "add_arguments", "playout_summary", "cube_summary", "cube_words", "write_records", "run"]

DESCRIPTION = (
    "Play whole games with seeded dice (game g's dice depend only on the seed and g, so a run is the same\n"
    "on every machine, thread count and implementation) and print a summary table: wins by side, the\n"
    "points of the wins (single, mars, koks), the games given up, the mean plies and turns, the wall time\n"
    "and the speed. A mars wins 2 points and a koks 3; in short nardy these are the gammon and the\n"
    "backgammon. The games are played in chunks, which give the same games as one run. A progress bar\n"
    "(games done, percent, games/s, time left) is drawn on stderr when it is a terminal, or with\n"
    "--progress. --out FILE also writes the record of every game (winner, points, plies, turns, start), in\n"
    "game order, as CSV, JSON or a NumPy .npy file, by the file's suffix. --policy also takes an evaluator,\n"
    "which plays greedily (the best move by it, searched --plies deep). With --cube (money play) or --match N\n"
    "--score A-B [--crawford] (whole matches to N points from that score), the games are played with the\n"
    "doubling cube, the policy taking the cube actions too (an evaluator's by Janowski's cube decision at the\n"
    "score; random and first never double and always take): the summary counts the points won (times the\n"
    "cube) or the matches won, and --out writes one record per game (winner, points, cube, plies) or per\n"
    "match (winner, white, black: the final score, games, plies)."
)

#: The formats ``--out`` writes, by the file's suffix.
OUT_FORMATS = (".csv", ".json", ".npy")

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
    play_options(parser, evaluators=True)
    max_results_option(parser)
    parser.add_argument(
        "--opening",
        choices=OPENINGS,
        default=None,
        help="with --variant: the starter rolls two fresh dice (fresh_roll, the default) or plays the two "
        "single dice that decided who starts (use_single_dice)",
    )
    parser.add_argument(
        "--out",
        type=_out_path,
        metavar="FILE",
        help="also write every game's record to FILE: .csv (a header line, then one line per game), .json (a"
        " list of one object per game) or .npy (the array of nardy_fast.game.RECORD, for numpy.load);"
        " columns winner (0 White, 1 Black, -1 given up, -3 too large for --max-results), points, plies, turns, start (0 White, 1 Black"
        " moved first), games in order from --first-game",
    )
    cube_options(parser, "money games with the doubling cube", "play whole matches to N points, with the cube",
                 "its first game is the Crawford game")
    progress_option(parser)


def _out_path(text: str) -> Path:
    """An argparse ``type``: a file name ending in one of :data:`OUT_FORMATS` in a folder that exists, checked
    before any game is played."""
    path = Path(text)
    if choice(path.suffix.lower(), OUT_FORMATS) is None:
        raise argparse.ArgumentTypeError(f"must end in .csv, .json or .npy (got {quote(text)})")
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"must be in a folder that exists (got {quote(text)})")
    try:
        check_target(path, "--out")  # a FIFO, device, symlink or too long a name, refused before any game
    except NardyError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("--out: ")) from None
    return path


def write_records(records: npt.NDArray[np.void], path: Path) -> None:
    """Write playout ``records`` (``nardy_fast.game.RECORD``, or a playout's with the cube) to ``path``, in
    the format of its suffix (:data:`OUT_FORMATS`): CSV with a header line, JSON as a list of objects, or
    NumPy's ``.npy``; whole or not at all, by the package's one writer (:mod:`nardy_fast.files`)."""
    suffix = path.suffix.lower()
    dtype = RECORD if records.dtype.names is None else records.dtype
    names = dtype.names or ()
    if suffix == ".npy":
        array = np.asarray(records, dtype=dtype)
        write_file(path, lambda file: np.save(file, array, allow_pickle=False), "--out")
        return
    if suffix == ".csv":
        columns = np.stack([records[name].astype(np.int64) for name in names], axis=1).reshape(-1, len(names))
        text = io.StringIO(newline="")
        np.savetxt(text, columns, fmt="%d", delimiter=",", header=",".join(names), comments="")
        data = text.getvalue()
    else:
        lists = [records[name].tolist() for name in names]
        data = json.dumps([dict(zip(names, values)) for values in zip(*lists)]) + "\n"
    write_bytes(path, data.encode("utf-8"), "--out")


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
    limited = int(np.count_nonzero(winner == LIMITED))
    if limited:
        lines.append(f"{'too large':<10} {limited:>12,} {_percent(limited, games):>8}")
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
    if limited:
        lines.append("too large: games given up at a ply whose search was over --max-results.")
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
        position = Position.start(args.variant)
    policy, named = policy_of(args, position)
    match = cube_match(args)
    unit = "games" if match is None or match.money else "matches"
    last = args.first_game + args.games - 1
    if last >= _GAME_NUMBERS:
        raise UsageError(
            f"--first-game: must be below 2**62 - {args.games} (--games) (got {quote(str(args.first_game))})"
        )
    print(
        f"playout: {unit} {args.first_game:,}..{last:,} ({args.games:,}) of {described}; {cube_words(match)}seed "
        f"{args.seed}, policy {named}, {args.threads} thread{'s' if args.threads > 1 else ''}, "
        f"implementation {IMPLEMENTATION}"
    )
    sys.stdout.flush()

    options = PlayoutOptions(policy=policy, threads=args.threads, opening=opening, max_results=args.max_results)

    def play(first: int, count: int) -> npt.NDArray[np.void]:
        chunk = replace(options, first_game=args.first_game + first)
        with errors_of("--position" if args.position is not None else "--variant"):
            records: npt.NDArray[np.void] = playout(start, count, seed=args.seed, match=match, **chunk.keywords())
        return records

    with Progress(args.games, progress_stream(args.progress)) as progress:
        parts = in_chunks(args.games, args.threads, play, progress)
    seconds = time.perf_counter() - progress.started
    records = np.concatenate(parts)
    print()
    summary = playout_summary if match is None else cube_summary
    print("\n".join(summary(records, seconds)))
    if args.out is not None:
        try:
            write_records(records, args.out)
        except OSError as error:
            reason = cut(one_line(str(error.strerror or error)))  # the error's text may repeat the path
            raise UsageError(f"--out: could not be written: {reason} (got {quote(str(args.out))})") from None
        print(f"\nwrote the records of {len(records):,} {unit} to {args.out}")
    return 0


def cube_words(match: Optional[Match]) -> str:
    """How the header names the games' cube and match (nothing for cubeless games)."""
    if match is None:
        return ""
    if match.money:
        return "money play with the cube, "
    crawford = ", the first game the Crawford game" if match.crawford else ""
    return f"matches to {match.length} from {match.score[0]}-{match.score[1]}{crawford}, "


def cube_summary(records: npt.NDArray[np.void], seconds: float) -> list[str]:
    """The summary of a playout's records with the cube (one per money game, or one per match), played in
    ``seconds``, with its legend, as lines."""
    count = len(records)
    winner = records["winner"]
    money = "cube" in (records.dtype.names or ())
    unit = "games" if money else "matches"
    header = f"{'result':<10} {unit:>12} {'%':>8}" + (f" {'points':>12}" if money else "")
    lines = [header, "-" * len(header)]
    for side, name in enumerate(("white", "black")):
        won = winner == side
        wins = int(np.count_nonzero(won))
        points = f" {int(records['points'][won].sum(dtype=np.int64)):>12,}" if money else ""
        lines.append(f"{name + ' won':<10} {wins:>12,} {_percent(wins, count):>8}{points}")
    rows = [("given up", -1), ("too large", LIMITED)] if money else [("undecided", -1)]
    for name, code in rows:
        found = int(np.count_nonzero(winner == code))
        if found or code == -1:
            lines.append(f"{name:<10} {found:>12,} {_percent(found, count):>8}")
    lines.append(f"{'all':<10} {count:>12,} {_percent(count, count):>8}")
    rate = count / seconds if seconds > 0 else math.inf
    lines.append("")
    if money:
        white = np.where(winner == 0, 1, np.where(winner == 1, -1, 0)) * records["points"].astype(np.int64)
        cube = records["cube"]
        lines.append(f"points per game for white: {float(white.mean()):+.3f}; cube at the end: mean "
                     f"{float(cube.mean()):.2f}, largest {int(cube.max())}")
    else:
        lines.append(f"games per match: mean {float(records['games'].mean()):.2f}")
    lines += [
        f"mean plies {float(records['plies'].mean()):.2f} per {unit[:-1] if money else 'match'}",
        f"wall time {seconds:.3f} s, {rate:,.1f} {unit}/s",
        "",
    ]
    if money:
        lines += [
            "points: points won, the game's multiple (1 single, 2 mars, 3 koks) times the cube's value; a",
            "double passed scores the cube's value before it. cube at the end: the cube's value as the game",
            f"ended. Given up: games stopped after {MAX_PLIES:,} plies without a winner (0 points).",
        ]
    else:
        lines += [
            "white won, black won: the matches each side won; undecided: matches still going after their",
            "largest number of games (games given up score nothing). games per match: the games each took.",
        ]
    if int(np.count_nonzero(winner == LIMITED)):
        lines.append("too large: games given up at a ply whose search was over --max-results.")
    return lines
