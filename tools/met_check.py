"""Check a variant's match equity table against cubeful match rollouts of the package itself (docs/rules.md,
Match play): for each score from 2- to 5-away on both sides, ``--matches`` matches from that score between two
copies of the same player (the default greedy player over the default evaluator at 0 ply, deciding its cube
actions at the score with the variant's table), on seeded dice; the share White (the side at ``away``) wins
is the rolled-out match winning chance, printed beside the table's entry with its standard error and the
difference in standard errors.

    python tools/met_check.py long --matches 4000 --seed 1

The players decide at the score with the very table they check: a table far from the truth would make them
err, and the rollout would show it.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import nardy_fast
from nardy_fast import Match
from nardy_fast.cube.met import default_table
from nardy_fast.cubeduel import CubeDuelResult
from nardy_fast.policies import Greedy


def rolled_out(variant: str, away: int, opponent_away: int, matches: int, seed: int, length: int) -> tuple[float, float]:
    """The share of ``matches`` matches White wins from ``away`` against ``opponent_away`` (of a match to
    ``length``), with its standard error. The duel plays each match twice on the same dice, seats swapped:
    with one player on both sides the two are the same match, so only the first of each pair is counted."""
    player = Greedy()
    start = Match(length, (length - away, length - opponent_away))
    result = nardy_fast.duel(player, player, variant, 2 * matches, seed=seed, match=start)
    assert isinstance(result, CubeDuelResult)
    white = np.asarray(result.results[0::2])
    share = float(white.mean())
    return share, math.sqrt(max(share * (1 - share), 1e-12) / len(white))


def main() -> None:
    """Parse the arguments, roll the scores out and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variant")
    parser.add_argument("--matches", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--aways", default="2-5", help="the range of away counts, both sides (default 2-5)")
    args = parser.parse_args()
    low, high = (int(part) for part in args.aways.split("-"))
    table = default_table(args.variant)
    length = high + 1
    began = time.time()
    print(f"# python tools/met_check.py {args.variant} --matches {args.matches} --seed {args.seed} --aways {args.aways}")
    print("| away | opponent away | table | rolled out | stderr | difference / stderr |")
    print("|---:|---:|---:|---:|---:|---:|")
    for away in range(low, high + 1):
        for opponent in range(low, high + 1):
            share, error = rolled_out(args.variant, away, opponent, args.matches, args.seed, length)
            entry = table.mwc(away, opponent)
            print(f"| {away} | {opponent} | {entry:.4f} | {share:.4f} | {error:.4f} | {(share - entry) / error:+.2f} |",
                  flush=True)
    print(f"# {time.time() - began:.0f} s")


if __name__ == "__main__":
    main()
