"""The race evaluator of the reference (docs/rules.md, Races and bear-off positions; Bear-off tables): the
values of a race for its side to move, exact from the bear-off tables where they apply, else from the formula
of :mod:`nardy_fast.evaluation.race_formula`, which also states both. The core's twin is ``race_evaluate`` in
``src_pyx/evaluators/race_eval.pxi``; both do the same float operations in the same order, so they give the same
floats (Python floats are C doubles; ``math.erfc`` and ``math.sqrt`` are the C library's)."""

from __future__ import annotations

import math
from typing import cast

import numpy as np
import numpy.typing as npt

from .. import layout
from ..bearoff.layouts import layouts
from ..board import mover_point
from ..evaluation.race_formula import (
    CONTINUITY,
    STACK,
    VARIANCE_FLOOR,
    RaceTables,
    key_of,
    not_a_race_error,
    vector,
)
from ..variants import FLAG_BY_NAME, SPECS, VARIANTS

__all__ = ["race_evaluate"]

Outcomes = tuple[float, float, float, float, float]


def _counts(row: npt.NDArray[np.int8], variant: str, side: int) -> list[int]:
    """``c[m]``: the checkers of ``side`` (0 White, 1 Black) on its own point ``m`` (1..24; ``c[0]`` is 0)."""
    sign = 1 if side == 0 else -1
    out = [0] * 25
    for m in range(1, 25):
        column = m - 1 if side == 0 else mover_point(variant, m) - 1
        value = sign * int(row[layout.BOARD + column])
        out[m] = max(0, value)
    return out


def _checkers_of(count: int) -> int:
    """The most checkers whose layouts all lie among ``count`` table rows (0 for none)."""
    k = 0
    while k < 15 and layouts(k + 1) <= count:
        k += 1
    return k if count >= 1 else -1


def _layout_id(c: list[int]) -> int:
    """The bear-off id of the counts ``c[1..6]`` (nardy_fast.bearoff.layouts), summed as the core does."""
    total = 0
    s = 0
    for k in range(5, -1, -1):
        s += c[k + 1]
        total += math.comb(5 - k + s, 6 - k)
    return total


def _one_sided(tables: RaceTables, x: int, x_full: bool, y: int, y_full: bool) -> tuple[float, float, float]:
    """win, win_mars, lose_mars by the one-sided convolution (tail sums from the last turn down)."""
    dist, first = tables[0], tables[1]
    turns = dist.shape[1]
    px, py = [float(v) for v in dist[x]], [float(v) for v in dist[y]]
    fx, fy = [float(v) for v in first[x]], [float(v) for v in first[y]]
    win = win_mars = lose_mars = 0.0
    tail_y = tail_first_y = later_x = 0.0  # P(T_y >= t), P(T1_y >= t), P(T1_x >= t + 1)
    for t in range(turns - 1, -1, -1):
        tail_y += py[t]
        tail_first_y += fy[t]
        win += px[t] * tail_y
        win_mars += px[t] * tail_first_y
        lose_mars += py[t] * later_x
        later_x += fx[t]
    win = min(max(win, 0.0), 1.0)
    return win, win_mars if y_full else 0.0, lose_mars if x_full else 0.0


class _Side:
    """What the formula needs of one side: ``E``, ``E1`` and ``EK`` (module docstring of
    :mod:`nardy_fast.evaluation.race_formula`), whether it has borne off none, whether it can still lose a
    koks."""

    def __init__(self, c: list[int], k: tuple[float, ...], koks: bool) -> None:
        q, w_out = k[2], k[3]
        n = 0
        pips = 0
        out = 0
        low = 0
        for m in range(1, 25):
            n += c[m]
            pips += m * c[m]
            if m > 6:
                out += c[m]
            if low == 0 and c[m]:
                low = m
        waste = k[4]
        for p in range(1, 7):
            waste += k[4 + p] * c[p]
        waste += w_out * out
        waste += k[17] * max(c[1] - STACK, 0)
        waste += k[18] * max(c[2] - STACK, 0)
        self.e = pips + waste if n else 0.0
        far = 0.0
        for m in range(7, 25):
            d = m - 6.0
            if d < q:
                d = q
            far += c[m] * d
        h = min(6, low)
        self.e1 = (far + h) + k[10 + h] if n else 0.0
        near = 0.0
        behind = 0
        for m in range(19, 25):
            d = m - 18.0
            if d < q:
                d = q
            near += c[m] * d
            behind += c[m]
        self.ek = near
        self.full = n == 15
        self.koks = koks and self.full and behind > 0


def _chance(d: float, a: float, b: float, v: float) -> float:
    """The normal chance that a difference of turns with mean ``d`` is positive, for sides of effective
    pips ``a`` and ``b``."""
    var = v * (max(0.0, a) + max(0.0, b)) + VARIANCE_FLOOR
    return 0.5 * math.erfc(-d / math.sqrt(2.0 * var))


def _formula(row: npt.NDArray[np.int8], variant: str, mover: list[int], other: list[int]) -> Outcomes:
    ladder4 = bool(int(row[layout.FLAGS]) & FLAG_BY_NAME["ladder_per_value"].bit)
    k = vector(key_of(variant, ladder4))
    mu, v = k[0], k[1]
    koks = SPECS[variant].koks
    x, y = _Side(mover, k, koks), _Side(other, k, koks)
    pending = 0
    for i in range(int(row[layout.NPENDING])):
        pending += int(row[layout.PENDING + i])
    ex, e1x, ekx = x.e - pending, x.e1 - pending, x.ek - pending
    win = _chance((y.e - ex) / mu + CONTINUITY, ex, y.e, v)
    win_mars = _chance((y.e1 - ex) / mu + CONTINUITY, ex, y.e1, v) if y.full else 0.0
    win_koks = _chance((y.ek - ex) / mu + CONTINUITY, ex, y.ek, v) if y.koks else 0.0
    lose_mars = _chance((e1x - y.e) / mu - CONTINUITY, y.e, e1x, v) if x.full else 0.0
    lose_koks = _chance((ekx - y.e) / mu - CONTINUITY, y.e, ekx, v) if x.koks else 0.0
    return _nested(win, win_mars, win_koks, lose_mars, lose_koks)


def _nested(win: float, win_mars: float, win_koks: float, lose_mars: float, lose_koks: float) -> Outcomes:
    win_mars = min(win, win_mars)
    win_koks = min(win_mars, win_koks)
    lose = 1.0 - win
    lose_mars = min(lose, lose_mars)
    lose_koks = min(lose_mars, lose_koks)
    return win, win_mars, win_koks, lose_mars, lose_koks


def race_evaluate(row: npt.NDArray[np.int8], tables: object) -> Outcomes:
    """The five outcome probabilities (nardy_fast.evaluation.OUTPUTS) of the checked, unfinished race
    ``row`` for its side to move, from ``tables`` (``(dist, dist_first, two_win)`` of the row's variant and
    flags, :func:`nardy_fast.evaluation.race.race_tables`; ``None``: the formula alone). A row that is not a
    race is a :class:`~nardy_fast.NardyError` naming ``rows``."""
    if not bool(layout.is_race(row)[0]):
        raise not_a_race_error(row)
    variant = VARIANTS[int(row[layout.VARIANT])]
    turn = int(row[layout.TURN])
    mover, other = _counts(row, variant, turn), _counts(row, variant, 1 - turn)
    nx, ny = sum(mover), sum(other)
    if tables is not None and int(row[layout.NPENDING]) == 0 and bool(layout.is_bearoff(row)[0]):
        tables = cast(RaceTables, tables)
        k1 = _checkers_of(tables[0].shape[0])
        two = tables[2]
        k2 = _checkers_of(two.shape[0]) if two is not None else -1
        x, y = _layout_id(mover), _layout_id(other)
        if nx <= k2 and ny <= k2:
            assert two is not None
            return _nested(float(two[x, y]), 0.0, 0.0, 0.0, 0.0)
        if nx <= k1 and ny <= k1:
            win, win_mars, lose_mars = _one_sided(tables, x, nx == 15, y, ny == 15)
            return _nested(win, win_mars, 0.0, lose_mars, 0.0)
    return _formula(row, variant, mover, other)
