"""The reference twin of the built-in evaluator ``"heuristic"`` (docs/rules.md, Evaluation): the formula of
:mod:`nardy_fast.evaluation.heuristic`, written out over the board seen by each side in its own numbering
(docs/rules.md, The mover's numbering), with the rules it reads named where they enter: Head rule, Normal step
(what closes a point), Bar entry and hitting, Game end and scoring (mars and koks).

It computes the same floats as the compiled core's ``heuristic_evaluate``: the integer counts are exact and
every float operation is done in the order the shared module's docstring writes it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from .. import layout
from ..board import BAR, HEAD, mover_point, to_mover
from ..evaluation.heuristic import CLAMP, COEFFICIENTS, FEATURES, HITS
from ..variants import SPECS, VARIANTS

__all__ = ["heuristic_evaluate", "features", "Features"]


class Counts(NamedTuple):
    """A side's counts in its own numbering (the shared module's "Counts of a side")."""

    pips: int
    need: int
    back: int
    head: int


def counts(long_family: bool, own: Sequence[int], bar: int) -> Counts:
    """``own[p]``: the side's checkers on its point p = 1..24."""
    pips = sum(p * own[p] for p in range(1, 25)) + BAR * bar
    need = sum((p - 6) * own[p] for p in range(7, 25)) + 19 * bar
    back = sum((p - 18) * own[p] for p in range(19, 25)) + 7 * bar
    head = own[HEAD] if long_family else 0
    return Counts(pips, need, back, head)


def runs(hold: int, seen: Sequence[int], other: Sequence[int], other_bar: int) -> list[int]:
    """``run_1 .. run_5`` of a side's blocks against the other side: ``seen[b]`` is the side's count on the
    other's point b, ``other`` the other's counts in its own numbering. The blocks are the points
    ``1 <= b < rear`` where the side has ``hold`` checkers or more (Normal step: one closes a point in the long
    family, two in short nardy). A stretch of ``n`` consecutive blocks holds ``n - k + 1`` windows of ``k``."""
    rear = 25 if other_bar else max((b for b in range(1, 25) if other[b] > 0), default=0)
    stretches = []
    n = 0
    for b in range(1, 26):
        if b < rear and seen[b] >= hold:
            n += 1
        elif n:
            stretches.append(n)
            n = 0
    return [sum(max(0, n - k + 1) for n in stretches) for k in range(1, 6)]


def closed(own: Sequence[int], other_bar: int) -> int:
    """The side's held points of its home while the other has a checker on the bar (short nardy)."""
    return sum(1 for p in range(1, 7) if own[p] >= 2) if other_bar else 0


def best_shot(attacker: Sequence[int], attacker_bar: int, victim: Sequence[int], hit_base: int) -> int:
    """The largest ``HITS[mask] * stake`` over the victim's blots (Bar entry and hitting; both sides in their
    own numberings: the victim's point v is the attacker's 25 - v)."""
    sources = [BAR] if attacker_bar else [q for q in range(1, 25) if attacker[q] > 0]
    best = 0
    for v in range(1, 25):
        if victim[v] != 1:
            continue
        mask = 0
        for q in sources:
            d = q - (25 - v)
            if 1 <= d <= 12:
                mask |= 1 << (d - 1)
        best = max(best, HITS[mask] * (25 - v + hit_base))
    return best


def logistic(u: float) -> float:
    """``1 / (1 + exp(-u))`` with ``u`` clamped to [-CLAMP, CLAMP]."""
    return 1.0 / (1.0 + math.exp(-min(max(u, -CLAMP), CLAMP)))


class Features(NamedTuple):
    """Everything the score reads from a position, all integers: X (the side to move) and Y's counts, the
    runs of their blocks, ``closed``, the shots, X's pending pips and both sides' borne-off counts."""

    variant: str
    x: Counts
    y: Counts
    run_x: list[int]
    run_y: list[int]
    closed_x: int
    closed_y: int
    shots: int
    risk: int
    pending: int
    xoff: int
    yoff: int


def features(row: npt.NDArray[np.int8]) -> Features:
    """The features of the position ``row`` (a packed row of :mod:`nardy_fast.layout`)."""
    values = [int(v) for v in row.tolist()]
    variant = VARIANTS[values[layout.VARIANT]]
    long_family = SPECS[variant].family == "long"
    turn = "black" if values[layout.TURN] else "white"
    board = values[layout.BOARD : layout.BOARD + 24]
    side = to_mover(variant, turn, board, values[layout.BAR : layout.BAR + 2], values[layout.OFF : layout.OFF + 2])
    # each side on its own points, and on the other's: X's numbering is the mover's, Y's point b is X's
    # mover_point(b)
    x, y_seen = side.x, side.y
    y = [0] + [side.y[mover_point(variant, b)] for b in range(1, 25)] + [0]
    x_seen = [0] + [side.x[mover_point(variant, b)] for b in range(1, 25)] + [0]
    hold = 1 if long_family else 2
    closed_x = closed_y = shots = risk = 0
    if not long_family:
        closed_x, closed_y = closed(x, side.ybar), closed(y, side.xbar)
        hit_base = COEFFICIENTS[variant].hit_base
        shots, risk = best_shot(x, side.xbar, y, hit_base), best_shot(y, side.ybar, x, hit_base)
    return Features(
        variant,
        counts(long_family, x, side.xbar),
        counts(long_family, y, side.ybar),
        runs(hold, x_seen, y, side.ybar),
        runs(hold, y_seen, x, side.xbar),
        closed_x,
        closed_y,
        shots,
        risk,
        sum(values[layout.PENDING : layout.PENDING + values[layout.NPENDING]]),
        side.xoff,
        side.yoff,
    )


def structure(f: Features) -> dict[str, float]:
    """The value of each structure feature (:data:`~nardy_fast.evaluation.heuristic.FEATURES`)."""
    value = {"head": float(f.y.head - f.x.head)}
    for i in range(5):
        value[f"run{i + 1}"] = float(f.run_x[i] - f.run_y[i])
    value["bar_closed"] = float(f.closed_x - f.closed_y)
    value["shot"] = float(f.shots) / 36.0
    value["risk"] = float(f.risk) / 36.0
    return value


def heuristic_evaluate(row: npt.NDArray[np.int8], tables: object) -> tuple[float, float, float, float, float]:
    """The five outcome probabilities of the side to move of the unfinished position ``row`` (a packed row
    of :mod:`nardy_fast.layout`); ``tables`` is unused (None)."""
    f = features(row)
    k = COEFFICIENTS[f.variant]
    cx, cy = f.x, f.y

    lead = float(cy.pips - cx.pips) + k.tempo + k.pending * float(f.pending)
    race = k.race_weight * lead / math.sqrt(float(cx.pips + cy.pips) + k.race_base)
    value = structure(f)
    t = 0.0
    for name in FEATURES:
        t = t + getattr(k, name) * value[name]
    win = logistic(race + t)

    mars_x = logistic(
        k.mars_weight * (float(cy.need - cx.pips) + k.mars_offset + k.mars_tempo)
        / math.sqrt(float(cx.pips + cy.need) + k.mars_base)
        + k.mars_struct * t
    )
    mars_y = logistic(
        k.mars_weight * (float(cx.need - cy.pips) + k.mars_offset - k.mars_tempo)
        / math.sqrt(float(cy.pips + cx.need) + k.mars_base)
        - k.mars_struct * t
    )
    win_mars = min(win, mars_x) if f.yoff == 0 else 0.0
    lose_mars = min(1.0 - win, mars_y) if f.xoff == 0 else 0.0
    win_koks = lose_koks = 0.0
    koks = SPECS[f.variant].koks
    if koks and cy.back > 0:
        koks_x = logistic(
            k.koks_weight * (k.koks_scale * float(cy.back) - float(cx.pips) + k.koks_offset)
            / math.sqrt(float(cx.pips + cy.back) + k.koks_base)
            + k.koks_struct * t
        )
        win_koks = min(win_mars, koks_x)
    if koks and cx.back > 0:
        koks_y = logistic(
            k.koks_weight * (k.koks_scale * float(cx.back) - float(cy.pips) + k.koks_offset)
            / math.sqrt(float(cy.pips + cx.back) + k.koks_base)
            - k.koks_struct * t
        )
        lose_koks = min(lose_mars, koks_y)
    return (win, win_mars, win_koks, lose_mars, lose_koks)
