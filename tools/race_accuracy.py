"""How well the race evaluator ``"race"`` and the bare network ``"network"`` value races, against rollouts
(docs/benchmarks.md, The composite default against the bare network): the positions of the race class
(nardy_fast.evaluation.classes) of greedy ``"network"`` playouts whose side to move rolls, split into
bear-offs (valued by the race evaluator from the one-sided tables) and the other races (its formula); the
truth of each is a rollout of ``--rollouts`` stratified games with ``Greedy("net")``, truncated at the first
bear-off (scored there by the tables' race values, docs/rules.md, Bear-off tables).

Printed per subclass and evaluator: the mean error (bias) and the root mean square error of ``win`` and of
the cubeless equity, and the mean rollout standard error of the equity (the truth's own noise). With
``--by-lead`` the formula's positions are also split by the race lead of the side to move in turns.

    python tools/race_accuracy.py [--variant sixone] [--games 40] [--positions 200] [--rollouts 1296] [--by-lead] [--formula-only] [--save F.npz]
"""

from __future__ import annotations

import argparse

import numpy as np
import numpy.typing as npt

import nardy_fast
from nardy_fast import Greedy, Position
from nardy_fast.evaluation.classes import RACE, classify


def sample(variant: str, games: int, positions: int, formula: bool) -> npt.NDArray[np.int8]:
    """Up to ``positions`` race-class rows of ``games`` greedy playouts (seed 11), evenly spaced (``formula``:
    only those that are no bear-off)."""
    _, paths = nardy_fast.playout(variant, games, seed=11, policy=Greedy("network"), trajectories=True)
    wanted = (classify(paths.rows) == RACE) & (paths.rolls != 0).any(axis=1)
    if formula:
        wanted &= ~nardy_fast.layout.is_bearoff(paths.rows)
    index = np.flatnonzero(wanted)
    step = max(1, len(index) // positions)
    return paths.rows[index[::step][:positions]]


def truth(row: npt.NDArray[np.int8], games: int) -> tuple[float, float, float, float, float]:
    """win, win with mars or more, lose with mars or more and equity of the side to move of ``row`` by a
    truncated rollout, and the equity's standard error."""
    r = nardy_fast.rollout(Position.from_array(row), games, policy=Greedy("net"), truncate="bearoff")
    side = r.turn  # "white" or "black"
    other = "black" if side == "white" else "white"
    p = r.probabilities
    win = sum(p[f"{side}_{kind}"] for kind in ("single", "mars", "koks"))
    win_mars = p[f"{side}_mars"] + p[f"{side}_koks"]
    lose_mars = p[f"{other}_mars"] + p[f"{other}_koks"]
    return win, win_mars, lose_mars, float(r.equity), float(r.equity_stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="sixone")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--rollouts", type=int, default=1296)
    parser.add_argument("--by-lead", action="store_true")
    parser.add_argument("--formula-only", action="store_true", help="only the races that are no bear-off")
    parser.add_argument("--save", default="", help="an .npz file for the rows, the values and the truths")
    args = parser.parse_args()
    chosen = sample(args.variant, args.games, args.positions, args.formula_only)
    race = nardy_fast.evaluate(chosen, "race")
    network = nardy_fast.evaluate(chosen, "network")
    bearoff = nardy_fast.layout.is_bearoff(chosen)
    truths = np.array([truth(row, args.rollouts) for row in chosen])
    print(f"{args.variant}: {len(chosen)} race positions, rollouts of {args.rollouts} games")
    if args.save:
        np.savez(args.save, rows=chosen, race=race, network=network, truth=truths)
    print("| subclass | n | evaluator | win bias | win rms | win mars rms | lose mars rms | equity bias | equity rms "
          "| rollout stderr |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, mask in (("bear-off (tables)", bearoff), ("other race (formula)", ~bearoff)):
        if not mask.any():
            continue
        for name, values in (("race", race), ("network", network)):
            win_err = values[mask, 0] - truths[mask, 0]
            eq_err = nardy_fast.equity(values[mask]) - truths[mask, 3]
            wm = np.sqrt(((values[mask, 1] - truths[mask, 1]) ** 2).mean())
            lm = np.sqrt(((values[mask, 3] - truths[mask, 2]) ** 2).mean())
            print(
                f"| {label} | {int(mask.sum())} | {name} | {win_err.mean():+.4f} | {np.sqrt((win_err**2).mean()):.4f} "
                f"| {wm:.4f} | {lm:.4f} | {eq_err.mean():+.4f} | {np.sqrt((eq_err**2).mean()):.4f} "
                f"| {truths[mask, 4].mean():.4f} |"
            )
    if args.by_lead:
        # the lead in turns by the race evaluator's own reading: where its win is near 1/2 the play matters most
        mid = (~bearoff) & (np.abs(truths[:, 0] - 0.5) < 0.35)
        for name, values in (("race", race), ("network", network)):
            if not mid.any():
                break
            err = values[mid, 0] - truths[mid, 0]
            print(f"close races (truth win 0.15..0.85), {int(mid.sum())}: {name} win bias {err.mean():+.4f} "
                  f"rms {np.sqrt((err**2).mean()):.4f}")


if __name__ == "__main__":
    main()
