"""The race evaluator's formula (docs/rules.md, Races and bear-off positions; Bear-off tables), written once
for both implementations: the values it gives, its constants, the kind of dice of a variant's races and its
error for a position in contact. Facts over the variants and the bear-off's dice alone, so that the core and
the reference stand on them and not on the engine, which builds the tables they read
(:mod:`nardy_fast.evaluation.race`). The evaluator itself is ``race_evaluate`` of the reference
(:mod:`nardy_fast.reference.race_eval`) and of the core (``src_pyx/evaluators/race_eval.pxi``), which compute the same
floats.

It values only races, for the side to move X against the opponent Y; any other position is refused
(:func:`not_a_race_error`).

**Bear-off tables.** In a bear-off position with no pending list, with ``(dist, dist_first, two_win)`` from
:func:`nardy_fast.evaluation.race.race_tables` holding ``k1`` checkers one-sided and ``k2 <= k1`` two-sided
(``two_win`` may be ``None``: ``k2 = 0``): when both sides have at most ``k2`` checkers left, the two-sided
table's exact ``win = two_win[x, y]`` and no mars; else, when both have at most ``k1``, the one-sided tables'
convolution of ``nardy_fast.bearoff.tables.race_outcomes``: ``win = sum_t dist[x, t] * P(T_y >= t)``,
``win_mars = sum_t dist[x, t] * P(T1_y >= t)`` when Y has all 15 checkers on the board, ``lose_mars = sum_t
dist[y, t] * P(T1_x >= t + 1)`` when X has (``T``: turns to bear off all, ``T1``: the first; the sums run
from the last turn down, then ``win`` is clipped to [0, 1] and the outputs nested). Koks cannot happen in a
bear-off. So with the full tables (15 and 6 checkers) the values are those of
``nardy_fast.bearoff.race_probabilities``. A bear-off with more checkers than the tables hold, or with a
pending list, is valued by the formula below (tables of few checkers, quick to build in the reference, still
serve every race).

**Formula** (every other race). Each side S is seen in its own numbering: ``c[m]`` checkers on its point
``m`` (1..24), ``n`` on the board, ``P = sum m * c[m]`` its pip count, ``n_out`` checkers outside its home
(above point 6). The constants depend on the dice (the bear-off table's key, :mod:`nardy_fast.bearoff.
semantics`), in the table below.

* Effective pip count (to bear off all): ``E = P + w0 + sum_{p=1..6} w_p * c[p] + w_out * n_out + t1 *
  max(c[1] - 3, 0) + t2 * max(c[2] - 3, 0)`` (0 when ``n = 0``); the wastage ``w`` and ``t`` fitted on the
  one-sided tables to ``mu * (mean turns - K)``; a checker outside home counts the mean wastage of a home
  point (``w_out``, where it lands being unknown). The stack terms ``t``: the checkers of a tall stack on
  point 1 or 2 leave one per die, which a wastage linear in the counts undercounts (by half a turn with 12
  on point 1); six-one's special step 24/1s builds such stacks (:data:`STACK`).
* To bear off the first checker (the mars question): ``E1 = sum_{m>6} c[m] * max(m - 6, q) + h + g_h``,
  ``h`` the lowest point held, at most 6; every checker still to come home takes a die of its own, worth
  ``q = 6/7`` of a mean die at least; ``g_h`` fitted on the tables' 15-checker layouts.
* Koks (short nardy): to leave the winner's home (own points 19..24), ``EK = sum_{m>18} c[m] * max(m - 18,
  q)``.
* A pending list of the side to move is part of its turn: its values are taken off X's ``E``, ``E1``, ``EK``.
* A side needs about ``E / mu + const`` turns, with variance ``v * E`` (renewal theory: ``v = f * s2 / mu^3``
  with ``s2`` the variance of the pips of a turn, ``f`` fitted on the tables), taken as normal. X, on roll,
  wins ties. With ``chance(d, A_, B_) = Phi(d / sqrt(v * (max(A_, 0) + max(B_, 0)) + 0.01))`` (``Phi`` the
  normal distribution function, computed as ``0.5 * erfc(-d / sqrt(2 * var))``):

  * ``win = chance((E_Y - E_X) / mu + 0.5, E_X, E_Y)``;
  * ``win_mars = chance((E1_Y - E_X) / mu + 0.5, E_X, E1_Y)`` when Y has borne off none, else 0;
  * ``win_koks = chance((EK_Y - E_X) / mu + 0.5, E_X, EK_Y)`` in short nardy when Y has borne off none and
    has a checker on its 19..24, else 0;
  * ``lose_mars = chance((E1_X - E_Y) / mu - 0.5, E_Y, E1_X)`` and ``lose_koks`` the same with ``EK_X``;
  * then nested: ``win_mars <= win``, ``win_koks <= win_mars``, ``lose_mars <= 1 - win``,
    ``lose_koks <= lose_mars``.

Constants (``mu``, ``s2``, ``die`` come from the dice; ``f``, ``w``, ``t``, ``g`` are fitted; ``q = 6/7 *
die`` and ``w_out`` the mean of ``w1..w6``):

==============  ========  ========  ========  ========  =============
constant        long      sixone    gulbar    crazy     crazy_ladder4
==============  ========  ========  ========  ========  =============
mu              8.1667    8.6471    9.8000    10.8889   15.9444
s2              18.4722   22.5260   61.0400   98.0432   478.0525
die             3.5000    3.5000    3.5000    3.8431    3.9861
f               0.59      0.66      0.74      0.87      0.93
w0              1.55      1.51      1.40      1.58      3.53
w1              1.39      1.41      1.40      1.93      2.07
w2              0.72      0.71      0.72      1.07      1.31
w3              0.75      0.75      0.76      0.90      1.04
w4              0.22      0.22      0.22      0.21      0.25
w5              0.01      0.01      0.01      -0.08     -0.05
w6              -0.13     -0.13     -0.13     -0.05     0.08
t1              1.13      1.11      1.14      1.09      0.96
t2              1.02      1.02      1.03      1.10      0.88
g1              2.12      2.20      0.89      0.06      -7.85
g2              1.11      1.18      -0.12     -0.95     -8.86
g3              0.11      0.19      -1.11     -1.94     -9.85
g4              -0.38     -0.27     -1.47     -2.24     -9.82
g5              -0.12     0.06      -1.52     -2.20     -9.29
g6              1.98      2.35      0.78      0.28      -5.20
==============  ========  ========  ========  ========  =============

The fit (one-sided tables of 15 checkers, the core's): ``w`` and ``t`` to ``mu * (mean turns - K)`` (``K``
the renewal offset ``(s2 + mu^2) / (2 mu^2)``, common to both sides) and ``g`` to the same of the first
checker, by least squares (``w`` and ``t``: ``python tools/race_stack_fit.py``); ``f`` minimising the
squared error of ``win`` against the tables' convolution over random pairs of bear-offs whose ``E`` differ by
less than 25 pips (the stack terms left ``f`` as it was). Root mean square errors there (``python
tools/race_stack_fit.py --errors``): ``win`` 0.05 in long nardy, 0.04 in six-one, 0.03 in gulbar and crazy
gulbar, 0.02 with ``ladder_per_value=4`` (without the stack terms 0.06, 0.05, 0.04, 0.04, 0.02);
``win_mars`` with Y holding 15 checkers and X at most 6, 0.05 (long) to 0.08 (``ladder_per_value=4``)
(without them 0.04 to 0.08). Beyond the bear-off
the constants are estimates: ``q`` agrees with a simulation of long nardy's dice bringing checkers home to
0.1 turns on average. A normal law suits the heavy-tailed dice of ``ladder_per_value=4`` (a 1-1 moves 84
pips) least: 15 checkers on points 1..3 against 15 on the 12-point win only 0.96 there. Long and short
nardy share the dice; the flags that do not change the dice of a race (docs/rules.md, Bear-off tables) do
not change the constants either; the ordinary doubles of ``normal_doubles_first_rolls`` are ignored (a race
comes long after a side's first rolls).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import NamedTuple, Optional

import numpy as np
import numpy.typing as npt

from .. import layout
from ..bearoff.semantics import ROLL_ORDER, SEMANTICS, Semantics, semantics_of
from ..errors import NardyError, field_error
from ..inputs import boolean, choice
from ..notation import format_position
from ..variants import SPECS, VARIANTS

__all__ = [
    "RaceConstants",
    "CONSTANTS",
    "KEYS",
    "CONTINUITY",
    "VARIANCE_FLOOR",
    "NC",
    "STACK",
    "key_of",
    "vector",
    "RaceTables",
    "not_a_race_error",
    "NOT_A_RACE",
]

#: Half a turn: the side to move wins ties.
CONTINUITY = 0.5
#: Variance (turns squared) added to every comparison, so that a side with nothing left to play still has
#: a finite chance.
VARIANCE_FLOOR = 0.01


def _dice(semantics: Semantics) -> tuple[float, float, float]:
    """The mean and variance of the pips of one turn (a roll and the extra rolls it earns, every die of a race
    played) and the mean pips of one die, under ``semantics`` (worked out exactly, then rounded once)."""
    mean = square = extra_mean = extra = dice = Fraction(0)
    for a, b in ROLL_ORDER:
        weight = Fraction(1 if a == b else 2, 36)
        if a != b:
            pips, count = a + b, 2
        elif semantics.ladder:
            pips, count = semantics.ladder * sum(range(a, 7)), semantics.ladder * (7 - a)
        else:
            pips, count = 4 * a, 4
        again = (semantics.extra_roll == "six_one" and (a, b) == (6, 1)) or (
            semantics.extra_roll == "full_double" and a == b
        )
        mean += weight * pips
        square += weight * pips * pips
        dice += weight * count
        if again:
            extra += weight
            extra_mean += weight * pips
    # a turn S = X + B * S' (S' another turn, B: X earned an extra roll): E[S] = E[X] / (1 - p), E[S^2] =
    # (E[X^2] + 2 E[X B] E[S]) / (1 - p)
    turn = mean / (1 - extra)
    turn_square = (square + 2 * extra_mean * turn) / (1 - extra)
    return float(turn), float(turn_square - turn * turn), float(mean / dice)


class RaceConstants(NamedTuple):
    """The constants of one kind of dice (the module docstring's table)."""

    mu: float
    s2: float
    die: float
    f: float
    waste: tuple[float, ...]  # w0, w1..w6
    first: tuple[float, ...]  # g1..g6
    stack: tuple[float, ...]  # t1, t2

    @property
    def q(self) -> float:
        """The least pips a checker still to come home costs the first-off question."""
        return 6.0 / 7.0 * self.die

    @property
    def w_out(self) -> float:
        """The wastage of a checker outside home: the mean of ``w1..w6``."""
        return sum(self.waste[1:]) / 6.0

    @property
    def v(self) -> float:
        """Variance of a side's turns per effective pip."""
        return self.f * self.s2 / (self.mu * self.mu * self.mu)


#: The stack terms count the checkers beyond this many on point 1 and on point 2.
STACK = 3

# fitted (see the module docstring; python tools/race_stack_fit.py): f, w0..w6, g1..g6, t1 t2
_FITTED: dict[str, tuple[float, tuple[float, ...], tuple[float, ...], tuple[float, ...]]] = {
    "long": (
        0.59, (1.55, 1.39, 0.72, 0.75, 0.22, 0.01, -0.13), (2.12, 1.11, 0.11, -0.38, -0.12, 1.98), (1.13, 1.02)
    ),
    "sixone": (
        0.66, (1.51, 1.41, 0.71, 0.75, 0.22, 0.01, -0.13), (2.20, 1.18, 0.19, -0.27, 0.06, 2.35), (1.11, 1.02)
    ),
    "gulbar": (
        0.74, (1.40, 1.40, 0.72, 0.76, 0.22, 0.01, -0.13), (0.89, -0.12, -1.11, -1.47, -1.52, 0.78), (1.14, 1.03)
    ),
    "crazy": (
        0.87, (1.58, 1.93, 1.07, 0.90, 0.21, -0.08, -0.05), (0.06, -0.95, -1.94, -2.24, -2.20, 0.28), (1.09, 1.10)
    ),
    "crazy_ladder4": (
        0.93,
        (3.53, 2.07, 1.31, 1.04, 0.25, -0.05, 0.08),
        (-7.85, -8.86, -9.85, -9.82, -9.29, -5.20),
        (0.96, 0.88),
    ),
}

#: The kinds of dice, in the order of the core's table.
KEYS: tuple[str, ...] = tuple(SEMANTICS)
#: The constants of each kind of dice.
CONSTANTS: Mapping[str, RaceConstants] = {
    key: RaceConstants(*_dice(SEMANTICS[key]), *_FITTED[key][:3], _FITTED[key][3]) for key in KEYS
}

#: The length of :func:`vector`.
NC = 19


def vector(key: str) -> tuple[float, ...]:
    """The constants of dice ``key`` (one of :data:`KEYS`) as both implementations read them: ``mu, v, q,
    w_out, w0..w6, g1..g6, t1, t2``."""
    known = choice(key, KEYS)
    if known is None:
        raise field_error(NardyError, "key", f"must be one of {KEYS}", key)
    c = CONSTANTS[known]
    return (c.mu, c.v, c.q, c.w_out, *c.waste, *c.first, *c.stack)


def key_of(variant: str, ladder4: bool) -> str:
    """The kind of dice of ``variant``'s races (``ladder4``: crazy gulbar's flag ``ladder_per_value=4``)."""
    name = choice(variant, VARIANTS)
    if name is None:
        raise field_error(NardyError, "variant", f"must be one of {VARIANTS}", variant)
    truth = boolean(ladder4)
    if truth is None:
        raise field_error(NardyError, "ladder4", "must be True or False", ladder4)
    flags = {"ladder_per_value": 4} if truth and SPECS[name].ladder else {}
    return semantics_of(name, flags).key


#: The tables the evaluator reads, ``(dist, dist_first, two_win)`` (the module docstring's bear-off tables).
RaceTables = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], Optional[npt.NDArray[np.float64]]]


#: What :func:`not_a_race_error` says: the race evaluator's problem with a position in contact.
NOT_A_RACE = (
    "is not a race: the race evaluator values races only (docs/rules.md, Races and bear-off positions)"
)


def not_a_race_error(row: npt.NDArray[np.int8], name: str = "rows") -> NardyError:
    """The race evaluator's error for a checked ``row`` in contact: naming ``name`` (the argument, or
    ``rows[i]``) and quoting the position's text."""
    return field_error(NardyError, name, NOT_A_RACE, format_position(layout.unpack(row)))
