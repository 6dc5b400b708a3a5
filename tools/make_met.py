"""Compute a match equity table for every variant from its mars and koks rates as the shipped networks play.

    python tools/make_met.py [--variant long ...|all] [--seed 43] [--se 0.003] [--pilot 2000] [--chunk 2000]
                             [--max-games 60000] [--threads 2] [--size 25] [--checkpoint FILE] [--out DIR]

For each variant: self-play games of the package's default player, ``Greedy("net", 0)`` in both seats
(``nardy_fast.playout``, the dice of ``--seed`` numbered from 0), played ``--chunk`` games at a time until the
standard error of each rate (mars, and koks where the variant scores it) is at most ``--se``, estimated from
the games so far once ``--pilot`` are played, or ``--max-games``. The stopping rule is a function of the
games alone, so a command and its seed always make the same table. Every chunk's counts go to the
checkpoint file (a JSON, by default ``met-checkpoint.json``): the same command run again resumes where it
stopped. Then each table (``nardy_fast.cube.mec_table`` of the rates as written, with the koks term) goes to
``--out`` (by default ``nardy_fast/data/met/``) as ``<variant>.txt``, under a header naming the command,
the seed, the date, the game counts, the rates and the time taken. Progress goes to stderr.

A rate is the share of decided games whose winner scored a mars (2 points) or a koks (3): with one player in
both seats every game is won by it, so the share is that of the games won and of the games lost alike, as
``mec`` takes it. Games given up after MAX_PLIES plies are counted and left out.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Optional

import numpy as np

import nardy_fast
from nardy_fast import VARIANTS, Greedy
from nardy_fast.cube import mec_table
from nardy_fast.cube.met import format_table
from nardy_fast.variants import SPECS

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "nardy_fast" / "data" / "met"
COUNTS = ("single", "mars", "koks", "unfinished")
#: How a header names each variant.
TITLES = {"long": "long nardy", "sixone": "six-one nardy", "short": "short nardy", "gulbar": "gulbar",
          "crazy": "crazy gulbar"}


def _rates(counts: dict[str, int]) -> tuple[float, float, float, float]:
    """The mars and koks rates of ``counts`` and their standard errors (binomial, over the decided games)."""
    decided = counts["single"] + counts["mars"] + counts["koks"]
    if decided == 0:
        return 0.0, 0.0, 1.0, 1.0
    mars, koks = counts["mars"] / decided, counts["koks"] / decided
    return mars, koks, math.sqrt(mars * (1 - mars) / decided), math.sqrt(koks * (1 - koks) / decided)


def _needed(counts: dict[str, int], koks: bool, args: argparse.Namespace) -> int:
    """How many games the rates measured so far need for their standard errors to reach ``--se``."""
    mars_rate, koks_rate, _, _ = _rates(counts)
    spread = max(mars_rate * (1 - mars_rate), koks_rate * (1 - koks_rate) if koks else 0.0)
    return int(max(args.pilot, min(args.max_games, math.ceil(spread / args.se**2))))


def measure(variant: str, args: argparse.Namespace, state: dict[str, dict[str, float]],
            save: Callable[[], None]) -> None:
    """Play ``variant``'s games chunk by chunk into ``state[variant]`` (resuming what it holds), saving after
    each chunk."""
    entry = state.setdefault(variant, {name: 0 for name in (*COUNTS, "games", "seconds")})
    koks = SPECS[variant].koks
    player = Greedy("net", 0)
    while True:
        counts = {name: int(entry[name]) for name in COUNTS}
        games = int(entry["games"])
        if games >= _needed(counts, koks, args) or games >= args.max_games:
            return
        chunk = min(args.chunk, args.max_games - games)
        began = time.perf_counter()
        records = nardy_fast.playout(variant, chunk, seed=args.seed, first_game=games, policy=player,
                                     threads=args.threads)
        points = np.asarray(records["points"])
        for name, value in zip(COUNTS, (1, 2, 3, 0)):
            entry[name] += int((points == value).sum())
        entry["games"] = games + chunk
        entry["seconds"] += time.perf_counter() - began
        mars, koks_rate, mars_se, koks_se = _rates({name: int(entry[name]) for name in COUNTS})
        print(f"{variant}: {entry['games']} games, mars {mars:.4f} ({mars_se:.4f}), koks {koks_rate:.4f} "
              f"({koks_se:.4f}), {entry['seconds']:.0f} s", file=sys.stderr)
        save()


def table_text(variant: str, entry: dict[str, float], args: argparse.Namespace, command: str) -> str:
    """The file of ``variant``'s table: its header, then the table of the rates as the header writes them."""
    counts = {name: int(entry[name]) for name in COUNTS}
    mars, koks, mars_se, koks_se = _rates(counts)
    # the table is computed from the rates as written, so that the file can be checked against them
    mars, koks = round(mars, 6), round(koks, 6)
    table = mec_table(mars, koks_rate=koks, size=args.size, name=variant)
    decided = counts["single"] + counts["mars"] + counts["koks"]
    header = [
        f"Match equity table for {TITLES.get(variant, variant)} ({variant}), computed by nardy-fast {nardy_fast.__version__} "
        "(docs/rules.md, Match play):",
        "nardy_fast.cube.mec_table(mars, koks_rate=koks) (Tornberg's mec as GNU Backgammon runs it, with its",
        "free-drop terms, and a koks term) of the mars and koks rates of self-play games of Greedy(\"net\", 0).",
        f"command: {command}",
        f"seed: {args.seed}; date: {datetime.date.today().isoformat()}; time: {entry['seconds']:.0f} s "
        f"on {args.threads} thread(s)",
        f"games: {counts['single'] + counts['mars'] + counts['koks'] + counts['unfinished']} "
        f"({decided} decided, {counts['unfinished']} given up); wins: single {counts['single']}, "
        f"mars {counts['mars']}, koks {counts['koks']}",
        f"rates: mars {mars:.6f} koks {koks:.6f}",
        f"standard errors: mars {mars_se:.6f} koks {koks_se:.6f}",
        "pre-crawford: row i, column j: the chances of winning the match of the side i + 1 away against j + 1",
        "away at the start of a game (a 1-away side's row or column: the Crawford game).",
        "post-crawford: entry i: the chances of the side i + 1 away against a 1-away leader after the Crawford game.",
    ]
    return format_table(table, header)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--variant", nargs="+", default=["all"], choices=[*VARIANTS, "all"])
    parser.add_argument("--seed", type=int, default=43)
    parser.add_argument("--se", type=float, default=0.003, help="the standard error to reach for each rate")
    parser.add_argument("--pilot", type=int, default=2000, help="games before the rates decide how many more")
    parser.add_argument("--chunk", type=int, default=2000, help="games between checkpoints")
    parser.add_argument("--max-games", type=int, default=60000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--size", type=int, default=25, help="the longest match of the tables")
    parser.add_argument("--checkpoint", type=Path, default=Path("met-checkpoint.json"))
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    if args.se <= 0 or min(args.pilot, args.chunk, args.max_games, args.threads, args.size) < 1:
        parser.error("--se, --pilot, --chunk, --max-games, --threads and --size must be positive")
    variants = list(VARIANTS) if "all" in args.variant else list(dict.fromkeys(args.variant))
    words = ["python", "tools/make_met.py", *(sys.argv[1:] if argv is None else argv)]
    command = " ".join(shlex.quote(word) for word in words)
    print(command, file=sys.stderr)

    # the checkpoint is only good for the same dice and the same stopping rule
    key = {"seed": args.seed, "se": args.se, "pilot": args.pilot, "chunk": args.chunk, "max_games": args.max_games}
    state: dict[str, dict[str, float]] = {}
    if args.checkpoint.exists():
        saved = json.loads(args.checkpoint.read_text(encoding="utf-8"))
        if saved.get("key") == key:
            state = saved["variants"]
        else:
            print(f"{args.checkpoint}: made with other options {saved.get('key')}; starting again", file=sys.stderr)

    def save() -> None:
        args.checkpoint.parent.mkdir(parents=True, exist_ok=True)
        temporary = args.checkpoint.with_name(args.checkpoint.name + ".tmp")
        temporary.write_text(json.dumps({"key": key, "variants": state}, indent=1), encoding="utf-8")
        os.replace(temporary, args.checkpoint)

    began = time.perf_counter()
    for variant in variants:
        measure(variant, args, state, save)
    args.out.mkdir(parents=True, exist_ok=True)
    for variant in variants:
        path = args.out / f"{variant}.txt"
        path.write_text(table_text(variant, state[variant], args, command), encoding="utf-8")
        entry = state[variant]
        print(f"{path}: {int(entry['games'])} games, {entry['seconds']:.0f} s", file=sys.stderr)
    print(f"seed {args.seed}; {time.perf_counter() - began:.0f} s in this run, "
          f"{sum(state[v]['seconds'] for v in variants):.0f} s of games in all", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
