"""Tesauro's pubeval, the built-in evaluator ``"pubeval"`` of short nardy (docs/rules.md, Evaluation): its
published weights, its input encoding, which weights a position uses, and how its score becomes the five
outputs. Both implementations read these (the reference in :mod:`nardy_fast.reference.pubeval`, the compiled
core in ``src_pyx/evaluators/pubeval.pxi``, whose tables are built here at import).

**Source.** Gerald Tesauro's ``pubeval.c`` (IBM Research), "provided as a public service to the backgammon
programming community" and in the public domain: a linear evaluator, the field's yardstick, with one weight
vector for contact positions (``wc``) and one for races (``wr``), 122 weights each. The weights below are
those two vectors as published (five decimals). They were checked against GNU Backgammon's copy
(``gnubg_nn.pub_eval_score``, float32): on the whole short corpus and on random race and contact boards that
use every reachable weight, the scores agree to 1.5e-6 relative (``tests/test_pubeval.py``). Short nardy is
backgammon without the cube (docs/rules.md, The five games), so pubeval applies to it unchanged; it serves no
other variant.

**What is scored.** pubeval scores a position *after* a move, for the side that has just moved ("we":
Tesauro's "computer"); the higher, the better the move. An evaluator here values a row for its side to move,
whose opponent has just moved, so the score of a row is the score of the side that is *not* to move.

**Inputs** (:func:`point_inputs`), read in our own numbering (docs/rules.md, The mover's numbering; we move
from our point 24 towards point 1): for each of our points 24, 23, ..., 1 (block k is our point 24 - k),
five inputs from the count ``n`` on it, ours positive and theirs negative: ``[0]`` 1 if ``n == -1`` (a
blot of theirs), ``[1]`` 1 if ``n == 1`` (a blot of ours), ``[2]`` 1 if ``n >= 2``, ``[3]`` 1 if ``n == 3``,
``[4]`` ``(n - 3) / 2`` if ``n >= 4``; then input 120, their checkers on the bar / 2, and input 121, our
checkers borne off / 15. Their points of two or more and our own bar carry no input (Tesauro's choice).

**Weights.** The race weights when the row is a race (no contact: docs/rules.md, Races and bear-off positions
— no checker on either bar and every White checker on a lower White point than every Black checker), else the
contact weights. Tesauro chooses them by the position *before* the move, which an evaluator of the position
after it cannot see; GNU Backgammon's ``pub_eval_score`` also classifies the board it scores (and agrees with
this one everywhere), its ``pub_best_move`` the board before the move. The two choices differ only for the
moves that break contact.

**Score.** The dot product of the weights with the inputs, summed point by point (:func:`point_term`, each the
dot product of its five inputs in order), blocks 0..23 in order from 0.0, then the bar term, then the
borne-off term: both implementations add the same doubles in this order, so their scores and outputs are
bit-identical (the core adds precomputed terms, so no fused multiply-add can change a rounding).

**Outputs.** pubeval only ranks moves: its score is no probability. The evaluator maps the score ``s`` of the
side that has just moved monotonically onto the side to move's ``win = 1 / (1 + exp(s / SCALE))`` (the
logistic of ``-s / SCALE``, :data:`SCALE` = 8), a convention and not a calibrated probability, and reports no
mars or koks (``win_mars = win_koks = lose_mars = lose_koks = 0``; short nardy has no koks). The scale keeps
the ranking in doubles: with ``exp(s)`` itself, the ``1 - win`` of two moves whose scores both exceed about 30
in size round to one double, and a greedy player then loses 1.4% of ``gnubg_nn.pub_best_move``'s choices in
random games (measured); scores stay within -118..111 (contact) and -216..73 (race), the sums of each block's
extreme terms, so ``s / 8`` stays where ``exp`` separates them. So a greedy player that moves to the child
whose side to move has the lowest ``win`` moves to the child of highest pubeval score, as ``pub_best_move``
does, except where a move breaks contact (the weights, above): 1.7% of the positions with a choice in random
games have such a move, and a third of those get another move (0.6% of all). A finished game is valued by its
outcome and never reaches pubeval.
"""

from __future__ import annotations

import math

__all__ = [
    "CONTACT_WEIGHTS",
    "RACE_WEIGHTS",
    "WEIGHTS",
    "CONTACT",
    "RACE",
    "INPUTS",
    "MAX_COUNT",
    "point_inputs",
    "point_term",
    "bar_term",
    "off_term",
    "SCALE",
    "probabilities",
    "POINT_TERMS",
    "BAR_TERMS",
    "OFF_TERMS",
]

#: Tesauro's ``wc``: the weights of contact positions, in input order.
CONTACT_WEIGHTS: tuple[float, ...] = (
    0.25696, -0.66937, -1.66135, -2.02487, -2.53398, -0.16092, -1.11725, -1.06654,
    -0.92830, -1.99558, -1.10388, -0.80802, 0.09856, -0.62086, -1.27999, -0.59220,
    -0.73667, 0.89032, -0.38933, -1.59847, -1.50197, -0.60966, 1.56166, -0.47389,
    -1.80390, -0.83425, -0.97741, -1.41371, 0.24500, 0.10970, -1.36476, -1.05572,
    1.15420, 0.11069, -0.38319, -0.74816, -0.59244, 0.81116, -0.39511, 0.11424,
    -0.73169, -0.56074, 1.09792, 0.15977, 0.13786, -1.18435, -0.43363, 1.06169,
    -0.21329, 0.04798, -0.94373, -0.22982, 1.22737, -0.13099, -0.06295, -0.75882,
    -0.13658, 1.78389, 0.30416, 0.36797, -0.69851, 0.13003, 1.23070, 0.40868,
    -0.21081, -0.64073, 0.31061, 1.59554, 0.65718, 0.25429, -0.80789, 0.08240,
    1.78964, 0.54304, 0.41174, -1.06161, 0.07851, 2.01451, 0.49786, 0.91936,
    -0.90750, 0.05941, 1.83120, 0.58722, 1.28777, -0.83711, -0.33248, 2.64983,
    0.52698, 0.82132, -0.58897, -1.18223, 3.35809, 0.62017, 0.57353, -0.07276,
    -0.36214, 4.37655, 0.45481, 0.21746, 0.10504, -0.61977, 3.54001, 0.04612,
    -0.18108, 0.63211, -0.87046, 2.47673, -0.48016, -1.27157, 0.86505, -1.11342,
    1.24612, -0.82385, -2.77082, 1.23606, -1.59529, 0.10438, -1.30206, -4.11520,
    5.62596, -2.75800,
)  # fmt: skip

#: Tesauro's ``wr``: the weights of races, in input order.
RACE_WEIGHTS: tuple[float, ...] = (
    0.00000, -0.17160, 0.27010, 0.29906, -0.08471, 0.00000, -1.40375, -1.05121,
    0.07217, -0.01351, 0.00000, -1.29506, -2.16183, 0.13246, -1.03508, 0.00000,
    -2.29847, -2.34631, 0.17253, 0.08302, 0.00000, -1.27266, -2.87401, -0.07456,
    -0.34240, 0.00000, -1.34640, -2.46556, -0.13022, -0.01591, 0.00000, 0.27448,
    0.60015, 0.48302, 0.25236, 0.00000, 0.39521, 0.68178, 0.05281, 0.09266,
    0.00000, 0.24855, -0.06844, -0.37646, 0.05685, 0.00000, 0.17405, 0.00430,
    0.74427, 0.00576, 0.00000, 0.12392, 0.31202, -0.91035, -0.16270, 0.00000,
    0.01418, -0.10839, -0.02781, -0.88035, 0.00000, 1.07274, 2.00366, 1.16242,
    0.22520, 0.00000, 0.85631, 1.06349, 1.49549, 0.18966, 0.00000, 0.37183,
    -0.50352, -0.14818, 0.12039, 0.00000, 0.13681, 0.13978, 1.11245, -0.12707,
    0.00000, -0.22082, 0.20178, -0.06285, -0.52728, 0.00000, -0.13597, -0.19412,
    -0.09308, -1.26062, 0.00000, 3.05454, 5.16874, 1.50680, 5.35000, 0.00000,
    2.19605, 3.85390, 0.88296, 2.30052, 0.00000, 0.92321, 1.08744, -0.11696,
    -0.78560, 0.00000, -0.09795, -0.83050, -1.09167, -4.94251, 0.00000, -1.00316,
    -3.66465, -2.56906, -9.67677, 0.00000, -2.77982, -7.26713, -3.40177, -12.32252,
    0.00000, 3.42040,
)  # fmt: skip

#: Both weight sets, indexed by :data:`CONTACT` and :data:`RACE`.
WEIGHTS: tuple[tuple[float, ...], tuple[float, ...]] = (CONTACT_WEIGHTS, RACE_WEIGHTS)
CONTACT, RACE = 0, 1
#: The number of inputs (and of weights in a set): five per point, the bar, the borne-off checkers.
INPUTS = 122
#: The most checkers a side has: counts on a point run from -MAX_COUNT to MAX_COUNT.
MAX_COUNT = 15
_BAR_INPUT, _OFF_INPUT = 120, 121


def point_inputs(n: int) -> tuple[float, float, float, float, float]:
    """The five inputs of a point holding ``n`` checkers, ours positive, theirs negative (module
    docstring)."""
    return (
        1.0 if n == -1 else 0.0,
        1.0 if n == 1 else 0.0,
        1.0 if n >= 2 else 0.0,
        1.0 if n == 3 else 0.0,
        (n - 3) / 2.0 if n >= 4 else 0.0,
    )


def point_term(weights: tuple[float, ...], block: int, n: int) -> float:
    """The score of block ``block`` (our point ``24 - block``) holding ``n``: its five weights times its five
    inputs, added in order from 0.0."""
    term = 0.0
    for weight, value in zip(weights[5 * block : 5 * block + 5], point_inputs(n)):
        term += weight * value
    return term


def bar_term(weights: tuple[float, ...], their_bar: int) -> float:
    """The score of their checkers on the bar (input 120)."""
    return weights[_BAR_INPUT] * (their_bar / 2.0)


def off_term(weights: tuple[float, ...], our_off: int) -> float:
    """The score of our checkers borne off (input 121)."""
    return weights[_OFF_INPUT] * (our_off / 15.0)


#: The score per unit of the logistic's argument (a power of two: the division is exact).
SCALE = 8.0


def probabilities(score: float) -> tuple[float, float, float, float, float]:
    """The outputs, for the side to move, of a row whose side that has just moved scores ``score``: ``win``
    the logistic of ``-score / SCALE`` (a monotone convention: pubeval only ranks), no mars and no koks."""
    return (1.0 / (1.0 + math.exp(score / SCALE)), 0.0, 0.0, 0.0, 0.0)


#: ``POINT_TERMS[set][block][n + MAX_COUNT]``: :func:`point_term` of every block and count (the core's table).
POINT_TERMS: tuple[tuple[tuple[float, ...], ...], ...] = tuple(
    tuple(tuple(point_term(w, block, n) for n in range(-MAX_COUNT, MAX_COUNT + 1)) for block in range(24))
    for w in WEIGHTS
)
#: ``BAR_TERMS[set][bar]``, ``OFF_TERMS[set][off]``: :func:`bar_term` and :func:`off_term` of 0..15 checkers.
BAR_TERMS: tuple[tuple[float, ...], ...] = tuple(
    tuple(bar_term(w, c) for c in range(MAX_COUNT + 1)) for w in WEIGHTS
)
OFF_TERMS: tuple[tuple[float, ...], ...] = tuple(
    tuple(off_term(w, c) for c in range(MAX_COUNT + 1)) for w in WEIGHTS
)
