"""The built-in evaluator ``"heuristic"`` (docs/rules.md, Evaluation): a hand-written scorer of every variant,
the baseline that trained evaluators must beat. This module holds its definition once for both
implementations: the features, every coefficient (:data:`COEFFICIENTS`, one row per variant) and the shot
table (:data:`HITS`). The twins are :func:`nardy_fast.reference.heuristic.heuristic_evaluate` and the compiled
core's ``heuristic_evaluate`` (``src_pyx/evaluators/heuristic.pxi``); they compute the same floats, in the order written
here.

**The view.** X is the side to move, Y the opponent. Every count of a side is taken in that side's own
numbering (docs/rules.md, The mover's numbering): ``c[p]`` checkers on its point p = 1..24 (24 is its head in
the long family), ``bar``, ``off``. So the values of a position do not depend on which colour is to move.

**Counts of a side** (integers):

* ``pips = sum(p * c[p]) + 25 * bar``: the pips it still has to travel;
* ``need = sum((p - 6) * c[p] for p > 6) + 19 * bar``: the pips before every checker is home, the least it
  must move before it may bear off its first checker (a mars is a side that never got there in time);
* ``back = sum((p - 18) * c[p] for p >= 19) + 7 * bar``: the pips before no checker of it is on the bar or
  in the opponent's home (short nardy's koks, docs/rules.md, Game end and scoring);
* ``head = c[24]`` in the long family (0 in short nardy): the head rule lets about one checker leave it per
  move (docs/rules.md, Head rule), so a full head is slow beyond its pips; in six-one a head checker may
  also jump home (Six-one special step), and there the weight comes out negative;
* ``held``: the points it holds, closed to the opponent (one checker in the long family, two in short nardy;
  docs/rules.md, Normal step), written in the *opponent's* numbering;
* ``rear``: the opponent's rearmost point in the opponent's numbering (25 for a checker on the bar, 0 for
  none). The points ``1 <= b < rear`` that the side holds are the ones the opponent still has to pass: its
  *blocks*. ``run_k`` is the number of ``b`` with ``b, b+1, ..., b+k-1`` all blocks (``run_1`` the number of
  blocks, ``run_2`` of adjacent pairs ..., a six-point prime counts twice in ``run_5``);
* ``closed``: short nardy, while the opponent has a checker on the bar, the points of the side's home
  (its 1..6) that it holds (the opponent enters there), else 0.

**Shots** (short nardy, integers). A blot is a point with exactly one checker. A side's sources are its
points and its bar (only the bar while a checker waits there: it must enter first). For a blot of the victim
on its own point ``v``, the attacker's distances to it are ``d = q - (25 - v)`` for its sources ``q`` (bar
25) in its numbering, ``1 <= d <= 12``; ``HITS[mask]`` is the number of the 36 rolls that hit some distance
of the mask (bit ``d - 1``; :func:`hitting_rolls`: a die, the sum of two, or 2, 3 or 4 steps of a double;
points in between are taken as open). The stake of a blot is what its owner loses when it is hit,
``(25 - v) + hit_base`` (the pips back to the bar, plus the tempo and the gammon chances). ``shots`` is the
largest ``HITS[mask] * stake`` over Y's blots with X attacking (X rolls next), ``risk`` the same over X's
blots with Y attacking (after X's move, which may mend them).

**Score** (``z``, a logit of X's win). With ``k`` = the variant's row of :data:`COEFFICIENTS`:

* race: ``lead = float(pips_Y - pips_X) + k.tempo + k.pending * float(sum of X's pending list)`` (the
  side to move is a roll ahead; a pending list is pips X plays first) and
  ``race = k.race_weight * lead / sqrt(float(pips_X + pips_Y) + k.race_base)``: the lead in standard
  deviations of the race. In a race each turn moves ``mu`` pips with variance ``s2`` (8.17 and 18.5 with four
  steps a double), a side with P pips needs about ``P / mu`` turns with variance ``P * s2 / mu**3``, and the
  normal law read as a logistic gives ``race_weight = 1.702 * sqrt(mu / s2)`` (1.13) and ``tempo = mu / 2``
  (4.1) for perfect play (see below for the table's values);
* structure: ``t = sum(k.<f> * value_f for f in FEATURES)``, accumulated in :data:`FEATURES` order from 0.0,
  with ``value_head = float(head_Y - head_X)``, ``value_run<k> = float(run_k(X) - run_k(Y))``,
  ``value_bar_closed = float(closed_X - closed_Y)``, ``value_shot = float(shots) / 36.0`` and
  ``value_risk = float(risk) / 36.0`` (the risk coefficient is negative);
* ``z = race + t``, ``win = logistic(z)`` with ``logistic(u) = 1.0 / (1.0 + exp(-min(max(u, -50.0),
  50.0)))`` (the clamp keeps ``exp`` finite; ``win`` stays in (0, 1)).

**Mars and koks.** A side is marsed when the other bears off all its checkers before it bears off one: X wins
with a mars when X's ``pips`` run out before Y's ``need`` does, the lose-side the same with the roles swapped
and the tempo against X. Koks (variants with ``VariantSpec.koks`` only, else 0) needs, on top of the mars, a
checker of the loser still on the bar or in the winner's home (``back`` pips not yet run; below, the
fitted ``koks_scale`` is slightly negative: a loser with checkers back is seldom caught there):

* ``mars_x = logistic(k.mars_weight * (float(need_Y - pips_X) + k.mars_offset + k.mars_tempo)
  / sqrt(float(pips_X + need_Y) + k.mars_base) + k.mars_struct * t)``;
* ``mars_y = logistic(k.mars_weight * (float(need_X - pips_Y) + k.mars_offset - k.mars_tempo)
  / sqrt(float(pips_Y + need_X) + k.mars_base) - k.mars_struct * t)``;
* ``koks_x = logistic(k.koks_weight * (k.koks_scale * float(back_Y) - float(pips_X) + k.koks_offset)
  / sqrt(float(pips_X + back_Y) + k.koks_base) + k.koks_struct * t)``, and ``koks_y`` with X and Y swapped
  and ``- k.koks_struct * t``;
* ``win_mars = min(win, mars_x)``, or 0.0 when Y has borne off a checker; ``lose_mars = min(1.0 - win,
  mars_y)``, or 0.0 when X has; ``win_koks = min(win_mars, koks_x)``, or 0.0 without koks in the variant or
  when ``back_Y == 0``; ``lose_koks = min(lose_mars, koks_y)``, or 0.0 likewise.

The minima keep the outputs nested and in [0, 1] (:mod:`nardy_fast.evaluation.outcomes`) whatever the
coefficients. Every integer count is exact; each float operation is written above in the order both twins
perform it.

**Where the numbers come from** (``tools/heuristic_duel.py``). The ratios of the structure weights were
tuned by duels of greedy 0-ply players on duplicate dice, then every logit's scale and offset was fitted to
the outcomes of the evaluator's own greedy games (logistic regressions of exactly the formulas above, with
``race_base``, ``mars_base``, ``koks_base`` and ``hit_base`` kept): the probabilities are calibrated for play
of that strength, which is why ``race_weight`` is about half the perfect race's value. Crazy gulbar, whose
ladders make games slow to generate, has a smaller fit. Outcomes reward what goes with winning rather than
what wins, so the weights of the structure are not fitted one by one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from ..errors import NardyError, field_error
from ..inputs import integer
from ..variants import VARIANTS

__all__ = ["FEATURES", "Coefficients", "COEFFICIENTS", "hitting_rolls", "HITS", "CLAMP"]

#: The structure features, in the order the score accumulates them (each has the coefficient of its name).
FEATURES = ("head", "run1", "run2", "run3", "run4", "run5", "bar_closed", "shot", "risk")

#: ``logistic`` clamps its argument to [-CLAMP, CLAMP].
CLAMP = 50.0


class Coefficients(NamedTuple):
    """One variant's coefficients (see the module docstring for where each enters). A feature that does not
    exist in a variant's family has coefficient 0.0 there (head, in short nardy; shots, in the long
    family)."""

    race_weight: float
    tempo: float
    race_base: float
    pending: float
    head: float
    run1: float
    run2: float
    run3: float
    run4: float
    run5: float
    bar_closed: float
    shot: float
    risk: float
    hit_base: int
    mars_weight: float
    mars_offset: float
    mars_tempo: float
    mars_base: float
    mars_struct: float
    koks_weight: float
    koks_scale: float
    koks_offset: float
    koks_base: float
    koks_struct: float


_LONG = Coefficients(
    race_weight=0.5551,
    tempo=2.2691,
    race_base=1.0,
    pending=1.0,
    head=0.3755,
    run1=0.0751,
    run2=0.0601,
    run3=0.059,
    run4=0.1179,
    run5=0.1768,
    bar_closed=0.0,
    shot=0.0,
    risk=0.0,
    hit_base=0,
    mars_weight=0.8269,
    mars_offset=-1.4893,
    mars_tempo=0.7148,
    mars_base=1.0,
    mars_struct=0.5933,
    koks_weight=0.0,
    koks_scale=0.0,
    koks_offset=0.0,
    koks_base=1.0,
    koks_struct=0.0,
)

_SIXONE = Coefficients(
    race_weight=0.6005,
    tempo=2.2157,
    race_base=1.0,
    pending=1.0,
    head=-0.082,
    run1=0.082,
    run2=0.0656,
    run3=0.0486,
    run4=0.0972,
    run5=0.1458,
    bar_closed=0.0,
    shot=0.0,
    risk=0.0,
    hit_base=0,
    mars_weight=0.6635,
    mars_offset=-8.715,
    mars_tempo=1.5309,
    mars_base=1.0,
    mars_struct=1.1628,
    koks_weight=0.0,
    koks_scale=0.0,
    koks_offset=0.0,
    koks_base=1.0,
    koks_struct=0.0,
)

_SHORT = Coefficients(
    race_weight=0.6592,
    tempo=2.021,
    race_base=1.0,
    pending=1.0,
    head=0.0,
    run1=0.0372,
    run2=0.0372,
    run3=0.0744,
    run4=0.1488,
    run5=0.2231,
    bar_closed=0.0744,
    shot=0.0483,
    risk=-0.0223,
    hit_base=8,
    mars_weight=0.451,
    mars_offset=-4.86,
    mars_tempo=1.9804,
    mars_base=1.0,
    mars_struct=0.3466,
    koks_weight=0.6264,
    koks_scale=-0.3686,
    koks_offset=-0.2984,
    koks_base=1.0,
    koks_struct=-0.0074,
)

_GULBAR = Coefficients(
    race_weight=0.289,
    tempo=2.979,
    race_base=1.0,
    pending=2.8202,
    head=0.1862,
    run1=0.0372,
    run2=0.0298,
    run3=0.0196,
    run4=0.0393,
    run5=0.0589,
    bar_closed=0.0,
    shot=0.0,
    risk=0.0,
    hit_base=0,
    mars_weight=0.5825,
    mars_offset=-1.8968,
    mars_tempo=1.3922,
    mars_base=1.0,
    mars_struct=0.6925,
    koks_weight=0.0,
    koks_scale=0.0,
    koks_offset=0.0,
    koks_base=1.0,
    koks_struct=0.0,
)

_CRAZY = Coefficients(
    race_weight=0.2903,
    tempo=2.7404,
    race_base=1.0,
    pending=1.3279,
    head=0.5,
    run1=0.1,
    run2=0.08,
    run3=0.0527,
    run4=0.1055,
    run5=0.1582,
    bar_closed=0.0,
    shot=0.0,
    risk=0.0,
    hit_base=0,
    mars_weight=0.3107,
    mars_offset=-5.4274,
    mars_tempo=2.679,
    mars_base=1.0,
    mars_struct=0.5832,
    koks_weight=0.0,
    koks_scale=0.0,
    koks_offset=0.0,
    koks_base=1.0,
    koks_struct=0.0,
)

#: Every variant's coefficients, by name.
COEFFICIENTS: Mapping[str, Coefficients] = {
    "long": _LONG,
    "sixone": _SIXONE,
    "short": _SHORT,
    "gulbar": _GULBAR,
    "crazy": _CRAZY,
}
assert set(COEFFICIENTS) == set(VARIANTS), "every variant needs its heuristic coefficients"


def hitting_rolls(mask: int) -> int:
    """How many of the 36 rolls hit at some distance of ``mask`` (bit ``d - 1`` for distance ``d`` = 1..12):
    a roll ``a-b`` hits at ``a``, ``b`` and ``a + b``, a double ``a-a`` at ``a``, ``2a``, ``3a`` and ``4a``
    (docs/rules.md, Rolls and the dice list; the points it passes on the way are taken as open). ``mask`` is
    an integer 0..4095."""
    bits = integer(mask)
    if bits is None or not 0 <= bits < 1 << 12:
        raise field_error(NardyError, "mask", "must be an integer 0..4095 (bit d - 1 for distance d = 1..12)", mask)
    count = 0
    for a in range(1, 7):
        for b in range(1, 7):
            reach = (a, 2 * a, 3 * a, 4 * a) if a == b else (a, b, a + b)
            if any(d <= 12 and bits >> (d - 1) & 1 for d in reach):
                count += 1
    return count


#: ``HITS[mask]`` = :func:`hitting_rolls` of every 12-bit mask.
HITS: tuple[int, ...] = tuple(hitting_rolls(mask) for mask in range(1 << 12))
