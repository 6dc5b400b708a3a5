"""The composite default ``"net"`` against the bare shipped network ``"network"`` (docs/benchmarks.md, The
composite default against the bare network): a duel on duplicate dice at 0 ply in each variant, and how often
the two pick a different move in bear-offs (inside the exact two-sided tables) and in races.

The positions compared are those of greedy ``"network"`` playouts (``--games`` games, seed 11), each with the
roll its game played there: every one whose side to move rolls (no pending list) and whose class is bear-off
or race (nardy_fast.evaluation.classes) and that has more than one distinct move.

    python tools/composite_duel.py [--games-duel 2000] [--games 200] [--variants long,sixone,...]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import nardy_fast
from nardy_fast import Greedy, Position
from nardy_fast.evaluation.classes import BEAROFF, CLASSES, RACE, classify


def different_moves(variant: str, games: int) -> dict[str, tuple[int, int]]:
    """For the bear-off and race classes: (positions with a choice, positions where the two pick differently)."""
    _, paths = nardy_fast.playout(variant, games, seed=11, policy=Greedy("network"), trajectories=True)
    classes = classify(paths.rows)
    out: dict[str, tuple[int, int]] = {}
    for number in (BEAROFF, RACE):
        seen = differ = 0
        for j in np.flatnonzero(classes == number):
            row, roll = paths.rows[j], tuple(int(d) for d in paths.rolls[j])
            if roll == (0, 0):
                continue
            position = Position.from_array(row)
            composite = position.hint(roll, evaluator="net")
            if len(composite) < 2:
                continue
            seen += 1
            differ += composite[0][0] != position.hint(roll, evaluator="network")[0][0]
        out[CLASSES[number]] = (seen, differ)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games-duel", type=int, default=2000)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--variants", default=",".join(nardy_fast.VARIANTS))
    args = parser.parse_args()
    print(f"implementation {nardy_fast.IMPLEMENTATION}")
    print("| variant | ppg of \"net\" against \"network\" | stderr | seconds | bear-offs: differ / with a choice "
          "| races: differ / with a choice |")
    print("|---|---:|---:|---:|---:|---:|")
    for variant in args.variants.split(","):
        began = time.perf_counter()
        result = nardy_fast.duel(Greedy("net"), Greedy("network"), variant, args.games_duel, seed=2042)
        seconds = time.perf_counter() - began
        moves = different_moves(variant, args.games)
        (b_seen, b_differ), (r_seen, r_differ) = moves["bearoff"], moves["race"]
        print(
            f"| {variant} | {result.ppg:+.4f} | {result.stderr:.4f} | {seconds:.0f} | "
            f"{b_differ} / {b_seen} ({b_differ / max(b_seen, 1):.0%}) | {r_differ} / {r_seen} "
            f"({r_differ / max(r_seen, 1):.0%}) |",
            flush=True,
        )


if __name__ == "__main__":
    main()
