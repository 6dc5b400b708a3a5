"""The expert features of the ``"expert"`` encoding (:mod:`nardy_fast.encodings`; docs/rules.md, Built-in
evaluators): a few values of each side's game that a network with one hidden layer of rectified units cannot
add up from the raw point counts, after TD-Gammon's and GNU Backgammon's hand-made inputs.

Each side's features are computed in its own numbering (its checkers move from its point 24 to its point 1),
the side to move's first, then its opponent's: :data:`EXPERT_FIELDS` in order, :data:`PER_SIDE` a side.
"Held" means a point the other side may not land on: two checkers or more in short nardy, one in the long
family. Every value is an integer divided by its scale as one float32 division, in both implementations.

==============  =====  =======================================================================================
name            scale  meaning (for the side S; O its opponent)
==============  =====  =======================================================================================
``pips``        100    S's pip count: each checker's point number, 25 for a checker on the bar
``blots``       15     short nardy: S's lone checkers that some checker of O (or O's bar) is still behind
``shots``       36     short nardy: how many of the 36 rolls could hit a blot of S by distance alone (a die,
                       the sum of both, or 2 to 4 steps of a double equal to the distance from a checker of
                       O, the bar counting as S's point 0, to the blot); points in between and the bar's
                       priority are not looked at
``prime``       6      the longest run of adjacent points S holds along O's way (O's numbering)
``trapped``     6      the longest such run with a checker of O (or O's bar) behind it, still to pass it
``contact``     15     short nardy: S's checkers (the bar's included) with a checker of O still ahead of them
``mobility``    36     for each point S occupies (and its bar), how many of the dice 1..6 take a checker from
                       it to a point of the board O does not hold
==============  =====  =======================================================================================

The long family has no hitting and its sides do not meet head on: ``blots``, ``shots`` and ``contact`` are 0
there. The core's twin is ``encode_expert`` in ``src_pyx/expert.pxi``.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .board import mover_point
from .layout import BAR, BOARD, TURN, VARIANT, Rows
from .variants import VARIANT_SPECS, VARIANTS

__all__ = ["EXPERT_FIELDS", "PER_SIDE", "EXPERT_WIDTH", "MOVER_COLUMNS", "ROLL_MASKS", "ROLL_WEIGHTS", "expert_features"]

#: The features of a side, in order: ``(name, scale)`` (the module's table).
EXPERT_FIELDS: tuple[tuple[str, int], ...] = (
    ("pips", 100),
    ("blots", 15),
    ("shots", 36),
    ("prime", 6),
    ("trapped", 6),
    ("contact", 15),
    ("mobility", 36),
)
PER_SIDE = len(EXPERT_FIELDS)
#: The features of both sides.
EXPERT_WIDTH = 2 * PER_SIDE


def _mover_columns() -> npt.NDArray[np.intp]:
    """``[variant, colour, m - 1]``: the row column of the colour's point M m in its own numbering (docs/rules.md,
    The mover's numbering)."""
    table = np.zeros((len(VARIANTS), 2, 24), dtype=np.intp)
    for v, variant in enumerate(VARIANTS):
        for m in range(1, 25):
            table[v, 0, m - 1] = BOARD + m - 1
            table[v, 1, m - 1] = BOARD + mover_point(variant, m) - 1
    return table


#: The row column of each colour's own points, ``[variant, colour, m - 1]``.
MOVER_COLUMNS = _mover_columns()


def _rolls() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The 21 rolls' distance masks (bit ``d``: the roll reaches distance ``d`` with one checker) and weights
    out of 36."""
    masks, weights = [], []
    for a in range(1, 7):
        for b in range(a, 7):
            reach = {a * k for k in range(1, 5)} if a == b else {a, b, a + b}
            masks.append(sum(1 << d for d in reach))
            weights.append(1 if a == b else 2)
    return np.array(masks, dtype=np.int64), np.array(weights, dtype=np.int64)


ROLL_MASKS, ROLL_WEIGHTS = _rolls()
_SHORT = np.array([spec.family == "short" for spec in VARIANT_SPECS], dtype=bool)


def _scaled(values: npt.NDArray[np.int64], scale: int) -> npt.NDArray[np.float32]:
    out: npt.NDArray[np.float32] = values.astype(np.float32) / np.float32(scale)
    return out


def _view(rows: Rows, variant: npt.NDArray[np.intp], colour: npt.NDArray[np.intp]) -> tuple[npt.NDArray[np.int64], ...]:
    """The colour's checkers and the other colour's on the colour's points 1..24 in its own numbering (column
    ``q`` for point ``q``, column 0 empty)."""
    index = np.arange(len(rows))[:, None]
    sign = np.where(colour == 1, -1, 1)[:, None]
    seen = rows[index, MOVER_COLUMNS[variant, colour]].astype(np.int64) * sign
    zero = np.zeros((len(rows), 1), dtype=np.int64)
    return np.hstack([zero, np.maximum(seen, 0)]), np.hstack([zero, np.maximum(-seen, 0)])


def _side(rows: Rows, variant: npt.NDArray[np.intp], s: npt.NDArray[np.intp]) -> npt.NDArray[np.float32]:
    n = len(rows)
    index = np.arange(n)
    o = 1 - s
    short = _SHORT[variant]
    need = np.where(short, 2, 1)[:, None]
    own, theirs = _view(rows, variant, s)  # S's and O's checkers on S's points
    o_own, o_theirs = _view(rows, variant, o)  # O's and S's checkers on O's points
    bar_s = rows[index, BAR + s].astype(np.int64)
    bar_o = rows[index, BAR + o].astype(np.int64)
    points = np.arange(25, dtype=np.int64)
    out = np.zeros((n, PER_SIDE), dtype=np.int64)
    out[:, 0] = (own * points).sum(axis=1) + 25 * bar_s
    # O's checkers in S's numbering, its bar at 0; the rearmost of them (25: none)
    present = theirs > 0
    present[:, 0] = bar_o > 0
    rearmost = np.where(present.any(axis=1), present.argmax(axis=1), 25)[:, None]
    blot = own == 1
    blot[:, 0] = False
    reached = np.zeros(n, dtype=np.int64)
    for d in range(1, 25):
        hit = (blot[:, d:25] & present[:, 0 : 25 - d]).any(axis=1)
        reached |= hit.astype(np.int64) << d
    shots = (((reached[:, None] & ROLL_MASKS[None, :]) != 0) * ROLL_WEIGHTS[None, :]).sum(axis=1)
    contact = np.where(points[None, 1:] > rearmost, own[:, 1:], 0).sum(axis=1) + np.where(rearmost[:, 0] < 25, bar_s, 0)
    out[:, 1] = np.where(short, (blot & (points[None, :] > rearmost)).sum(axis=1), 0)
    out[:, 2] = np.where(short, shots, 0)
    out[:, 5] = np.where(short, contact, 0)
    # runs of points S holds along O's way, and whether O has a checker behind each (above it in O's numbering)
    held = o_theirs >= need
    top = np.where((o_own > 0).any(axis=1), 24 - np.argmax((o_own > 0)[:, ::-1], axis=1), 0)
    top = np.where(short & (bar_o > 0), 25, top)
    run = np.zeros(n, dtype=np.int64)
    for r in range(1, 25):
        run = np.where(held[:, r], run + 1, 0)
        out[:, 3] = np.maximum(out[:, 3], run)
        out[:, 4] = np.maximum(out[:, 4], np.where(top > r, run, 0))
    # mobility: the dice that move a checker of each occupied point (the bar at 25) to a point O does not hold
    occupied = np.hstack([own[:, :25] > 0, (bar_s > 0)[:, None]])
    open_point = theirs < need
    for d in range(1, 7):
        out[:, 6] += (occupied[:, d + 1 : 26] & open_point[:, 1 : 26 - d]).sum(axis=1)
    return np.stack([_scaled(out[:, k], scale) for k, (_, scale) in enumerate(EXPERT_FIELDS)], axis=1)


def expert_features(rows: Rows) -> npt.NDArray[np.float32]:
    """The expert features (N, :data:`EXPERT_WIDTH`) of checked int8 rows (N, 64): the side to move's, then
    its opponent's."""
    variant = rows[:, VARIANT].astype(np.intp)
    me = rows[:, TURN].astype(np.intp)
    return np.hstack([_side(rows, variant, me), _side(rows, variant, 1 - me)])
