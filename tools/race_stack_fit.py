"""The race evaluator's wastage refitted with a stack term (docs/benchmarks.md, The composite default against
the bare network): the least-squares fit of :mod:`nardy_fast.evaluation.race_formula` (``w0..w6`` to ``mu * (mean
turns - K)`` over every layout of 1..15 checkers of the core's one-sided tables), with and without two more
columns, the checkers beyond ``--stack`` (3) on point 1 and on point 2. A linear wastage undercounts a tall
stack on the low points, whose checkers leave one per die; six-one's special step 24/1s builds such stacks
(docs/rules.md, Six-one special step), so its races hold them far more often than long nardy's.

Printed per kind of dice: the fitted constants, the root mean square error in pips of the mean turns with
and without the stack columns, and the mean error in turns of 15-checker layouts by the count on point 1.
With ``--errors``, also the formula's errors of the module docstring, for the shipped constants and for the
wastage fitted without the stack columns (the same ``f`` and ``g``): the root mean square error of ``win``
against the tables' convolution over random pairs of bear-offs whose ``E`` differ by less than 25 pips
(60,000 pairs, seed 1; with ``f`` and ``f`` +- 0.05, to see that ``f`` still fits), and of ``win_mars`` with
Y holding 15 checkers and X at most 6 (20,000 pairs).

    python tools/race_stack_fit.py [--stack 3] [--errors]
"""

from __future__ import annotations

import argparse
import math

import numpy as np
import numpy.typing as npt

import nardy_fast.bearoff as bearoff
from nardy_fast.evaluation.race_formula import CONSTANTS, CONTINUITY, KEYS, VARIANCE_FLOOR

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


def effective(waste: npt.ArrayLike, stack: npt.ArrayLike, depth: int) -> npt.NDArray[np.float64]:
    """``E`` of every bear-off layout (the module's formula; ``stack`` zeros: without the stack terms)."""
    counts = bearoff.all_layouts(15).astype(float)
    w, t = np.asarray(waste, dtype=float), np.asarray(stack, dtype=float)
    e = (counts * np.arange(1, 7)).sum(axis=1) + w[0] + counts @ w[1:]
    e += t[0] * np.maximum(counts[:, 0] - depth, 0) + t[1] * np.maximum(counts[:, 1] - depth, 0)
    return np.where(counts.sum(axis=1) > 0, e, 0.0)


def chance(d: npt.NDArray[np.float64], a: npt.NDArray[np.float64], b: npt.NDArray[np.float64], v: float) -> npt.NDArray[np.float64]:
    """The formula's normal chance (the module docstring's ``chance``)."""
    var = v * (np.maximum(a, 0) + np.maximum(b, 0)) + VARIANCE_FLOOR
    erfc = np.vectorize(math.erfc)
    return np.asarray(0.5 * erfc(-d / np.sqrt(2 * var)), dtype=float)


def errors(key: str, e: npt.NDArray[np.float64]) -> str:
    """The root mean square errors of ``win`` (with ``f`` - 0.05, ``f``, ``f`` + 0.05) and ``win_mars`` of the
    effective pips ``e`` against the one-sided tables of dice ``key``."""
    variant, flags = SOURCES[key]
    table = bearoff.one_sided(variant, **flags)  # type: ignore[arg-type]
    dist, first = np.asarray(table.arrays.dist), np.asarray(table.arrays.dist_first)
    tail = np.cumsum(dist[:, ::-1], axis=1)[:, ::-1]
    counts = bearoff.all_layouts(15)
    n = counts.sum(axis=1)
    c = CONSTANTS[key]
    rng = np.random.default_rng(1)
    x, y = rng.integers(1, len(counts), 400000), rng.integers(1, len(counts), 400000)
    keep = np.abs(e[x] - e[y]) < 25
    x, y = x[keep][:60000], y[keep][:60000]
    exact = (dist[x] * tail[y]).sum(axis=1).clip(0, 1)
    wins = []
    for f in (c.f - 0.05, c.f, c.f + 0.05):
        win = chance((e[y] - e[x]) / c.mu + CONTINUITY, e[x], e[y], f * c.s2 / c.mu**3)
        wins.append(f"{np.sqrt(((win - exact) ** 2).mean()):.4f}")
    # win_mars: Y with all 15 on the board (its E1 is h + g_h), X with at most 6
    y = rng.choice(np.flatnonzero(n == 15), 20000)
    x = rng.choice(np.flatnonzero((n >= 1) & (n <= 6)), 20000)
    exact_win = (dist[x] * tail[y]).sum(axis=1).clip(0, 1)
    exact_mars = np.minimum((dist[x] * np.cumsum(first[y][:, ::-1], axis=1)[:, ::-1]).sum(axis=1), exact_win)
    low = np.argmax(counts[y] > 0, axis=1) + 1
    e1 = low + np.asarray(c.first)[low - 1]
    win = chance((e[y] - e[x]) / c.mu + CONTINUITY, e[x], e[y], c.v)
    mars = np.minimum(chance((e1 - e[x]) / c.mu + CONTINUITY, e[x], e1, c.v), win)
    return f"win rms (f-0.05, f, f+0.05) {', '.join(wins)}; win_mars rms {np.sqrt(((mars - exact_mars) ** 2).mean()):.4f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stack", type=int, default=3)
    parser.add_argument("--errors", action="store_true", help="also the formula's win and win_mars errors")
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
        if args.errors:
            print(f"  shipped: {errors(key, effective(CONSTANTS[key].waste, CONSTANTS[key].stack, args.stack))}")
            without = effective(np.round(plain, 2), (0.0, 0.0), args.stack)
            print(f"  without the stack terms: {errors(key, without)}", flush=True)


if __name__ == "__main__":
    main()
