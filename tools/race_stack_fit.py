"""The race evaluator's wastage refitted with a stack term (docs/benchmarks.md, The composite default against
the bare network): the least-squares fit of :mod:`nardy_fast.evaluation.race` (``w0..w6`` to ``mu * (mean
turns - K)`` over every layout of 1..15 checkers of the core's one-sided tables), with and without two more
columns, the checkers beyond ``--stack`` (3) on point 1 and on point 2. A linear wastage undercounts a tall
stack on the low points, whose checkers leave one per die; six-one's special step 24/1s builds such stacks
(docs/rules.md, Six-one special step), so its races hold them far more often than long nardy's.

Printed per kind of dice: the fitted constants, the root mean square error in pips of the mean turns with
and without the stack columns, and the mean error in turns of 15-checker layouts by the count on point 1.

    python tools/race_stack_fit.py [--stack 3]
"""

from __future__ import annotations

import argparse

import numpy as np
import numpy.typing as npt

import nardy_fast.bearoff as bearoff
from nardy_fast.evaluation.race import CONSTANTS, KEYS

#: A variant and rule flags whose races use each kind of dice.
SOURCES = {
    "long": ("long", {}),
    "sixone": ("sixone", {}),
    "gulbar": ("gulbar", {}),
    "crazy": ("crazy", {}),
    "crazy_ladder4": ("crazy", {"ladder_per_value": 4}),
}


def fit(key: str, stack: int, with_stack: bool) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The fitted ``w0..w6`` (and the two stack constants) of dice ``key``, and the residuals in pips."""
    variant, flags = SOURCES[key]
    table = bearoff.one_sided(variant, **flags)  # type: ignore[arg-type]
    counts = bearoff.all_layouts(15).astype(float)
    dist = np.asarray(table.arrays.dist)
    mean = (dist * np.arange(dist.shape[1])).sum(axis=1)
    c = CONSTANTS[key]
    offset = (c.s2 + c.mu * c.mu) / (2 * c.mu * c.mu)  # the renewal offset K, common to both sides
    used = counts.sum(axis=1) > 0
    pips = (counts * np.arange(1, 7)).sum(axis=1)
    columns = [np.ones(int(used.sum())), *counts[used].T]
    if with_stack:
        columns += [np.maximum(counts[used, 0] - stack, 0), np.maximum(counts[used, 1] - stack, 0)]
    x = np.column_stack(columns)
    y = (mean[used] - offset) * c.mu - pips[used]
    beta, *_ = np.linalg.lstsq(x, y, rcond=None)
    residual = np.zeros(len(counts))
    residual[used] = y - x @ beta
    return beta, residual


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stack", type=int, default=3)
    args = parser.parse_args()
    counts = bearoff.all_layouts(15)
    full = counts.sum(axis=1) == 15
    for key in KEYS:
        mu = CONSTANTS[key].mu
        plain, r0 = fit(key, args.stack, False)
        stacked, r1 = fit(key, args.stack, True)
        print(f"{key}: w0..w6 now {np.round(CONSTANTS[key].waste, 2).tolist()}, refit {np.round(plain, 2).tolist()}")
        print(f"  with stack: w0..w6 {np.round(stacked[:7], 2).tolist()}, t1 t2 {np.round(stacked[7:], 2).tolist()}, "
              f"w_out {stacked[1:7].mean():.2f}")
        print(f"  rms pips {np.sqrt((r0**2).mean()):.3f} -> {np.sqrt((r1**2).mean()):.3f}")
        line = []
        for k in (0, 3, 6, 9, 12, 15):
            s = full & (counts[:, 0] == k)
            line.append(f"c1={k}: {r0[s].mean() / mu:+.2f} -> {r1[s].mean() / mu:+.2f}")
        print("  15 checkers, mean error in turns: " + ", ".join(line))


if __name__ == "__main__":
    main()
