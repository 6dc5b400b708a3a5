"""The reference's bear-off table builders (docs/rules.md, Bear-off tables): the recurrences of
:mod:`nardy_fast.bearoff.tables` written plainly, over the legal results that the reference move generator
itself gives for each layout and roll.

This module is the executable specification of the tables. It favours being checkable against the
recurrences over speed: the moves come from :class:`nardy_fast.reference.Position` (so the tables rest on the
same rules as every other reference answer, and not on the compiled core's dedicated bear-off generator), and
every sum is added up term by term in :data:`~nardy_fast.bearoff.semantics.ROLL_ORDER` and divided by 36 at
the end, as the compiled builders do, so that both produce the same floats.

A layout is a tuple of 6 counts on the mover's points 1..6 (its id: :mod:`nardy_fast.bearoff.layouts`).
The mover is White; the opponent is parked on its own point 1 with 14 checkers off, out of White's way (a
side's results in a bear-off do not depend on the opponent, docs/rules.md, Bearing off).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache

import numpy as np
import numpy.typing as npt

from ..bearoff.layouts import POINTS, all_layouts, check_checkers, check_counts
from ..bearoff.semantics import MAX_TURNS, ROLL_ORDER, ROLL_WEIGHTS, SEMANTICS, Semantics, semantics_of
from ..bearoff.tables import TWO_SIDED_CHECKERS, OneSidedArrays
from ..errors import NardyError, field_error

__all__ = ["variant_of", "results", "one_sided", "OneSidedRows", "two_sided", "two_sided_cubeful"]

Layout = tuple[int, ...]
Result = tuple[Layout, bool]
Floats = npt.NDArray[np.float64]

#: The variant and flags whose dice rules each table has (docs/rules.md, Bear-off tables): long and short
#: share a table, so its moves come from long nardy.

#: The board index of the opponent's checker: Black's point 1, White's 13 in the long family, whose variants
#: give every table its moves (docs/rules.md, The mover's numbering). It stands past any run White can make on
#: its points 1..6, so the block rule never forbids a bear-off move (docs/rules.md, Block rule).
_PARKED = 12

_EMPTY: Layout = (0,) * POINTS


def variant_of(semantics: Semantics) -> tuple[str, Mapping[str, object]]:
    """The variant and rule flags whose bear-off follows ``semantics`` (one of
    :data:`~nardy_fast.bearoff.semantics.SEMANTICS`)."""
    known = SEMANTICS.get(semantics.key) if isinstance(semantics, Semantics) else None
    if known is None or semantics_of(known.variant, known.flags) != semantics:
        raise field_error(NardyError, "semantics", f"must be one of the tables {tuple(SEMANTICS)}", semantics)
    return known.variant, known.flags


def _layout(counts: object) -> Layout:
    matrix, single = check_counts(counts, "counts", 15)
    if not single:
        raise field_error(NardyError, "counts", "must be one layout of 6 counts", counts)
    return tuple(int(c) for c in matrix[0])


def results(semantics: Semantics, counts: object, roll: tuple[int, int]) -> list[Result]:
    """The legal results of the bear-off layout ``counts`` (6 counts on the mover's points 1..6) for
    ``roll`` (docs/rules.md, Bear-off tables): one ``(result_counts, extra_roll)`` per legal move of the
    reference generator, ``result_counts`` the 6 counts left (all 0 when the move bears off the last
    checker) and ``extra_roll`` whether the move earns another roll. The empty layout has no results (the
    game is over)."""
    variant, flags = variant_of(semantics)
    return _results(variant, flags, _layout(counts), roll)


def _results(
    variant: str, flags: Mapping[str, object], layout: Layout, roll: tuple[int, int]
) -> list[Result]:
    checkers = sum(layout)
    if checkers == 0:
        return []
    board = [0] * 24
    board[:POINTS] = layout
    board[_PARKED] = -1
    # imported here: the reference package imports this module before its Position exists
    from . import Position

    position = Position.from_board(
        variant,
        board,
        turn="white",
        off=(15 - checkers, 14),
        first_roll=(False, False),
        **flags,  # type: ignore[arg-type]
    )
    found = []
    for move in position.legal_moves(roll):
        after = move.result
        left = _EMPTY if after.off[0] == 15 else tuple(after.board[:POINTS])
        found.append((left, move.extra_roll))
    return found


class _Moves:
    """The results of every (layout, roll) of a two-sided table, each asked of the generator once (a side's
    results do not depend on the other side)."""

    def __init__(self, semantics: Semantics) -> None:
        self.variant, self.flags = variant_of(semantics)
        self._cache: dict[Layout, list[list[Result]]] = {}

    def __call__(self, layout: Layout) -> list[list[Result]]:
        """The results of ``layout`` for each roll of ``ROLL_ORDER``."""
        found = self._cache.get(layout)
        if found is None:
            found = self._cache[layout] = _all_results(self.variant, self.flags, layout)
        return found


def _all_results(variant: str, flags: Mapping[str, object], layout: Layout) -> list[list[Result]]:
    return [_results(variant, flags, layout, roll) for roll in ROLL_ORDER]


def _pips(layout: Layout) -> int:
    return sum((point + 1) * count for point, count in enumerate(layout))


@cache
def _ids() -> Mapping[Layout, int]:
    return {tuple(int(c) for c in row): i for i, row in enumerate(all_layouts())}


#: What a one-sided recurrence needs of a result: its mean and its distribution of turns.
Lookup = Callable[[Layout], tuple[float, Floats]]


def _turns(layout: Layout, first: bool, options: list[list[Result]], lookup: Lookup) -> tuple[float, Floats]:
    """The mean and distribution of the turns of ``layout`` to bear off all checkers (``first``: the first
    one), given its results per roll (``options``) and the values of those results (``lookup``): the
    recurrences of :mod:`nardy_fast.bearoff.tables`.

    Per roll the mover plays the result that ends the count if there is one (cost 0: every checker off, or
    for ``first`` any checker off), else the result of least mean (the lower id on a tie); after an extra
    roll the turn goes on (cost: the result's mean less the turn it does not start), else the result needs
    its own turns. The terms are added up in ROLL_ORDER and divided by 36 at the end."""
    ids = _ids()
    size = sum(layout)
    total = 0.0
    spread = np.zeros(MAX_TURNS + 1)
    for weight, found in zip(ROLL_WEIGHTS, options):
        term = np.zeros(MAX_TURNS + 1)
        if any(sum(left) < size if first else left == _EMPTY for left, _ in found):
            cost = 0.0
            term[1] = 1.0
        else:
            scored = [(lookup(left), ids[left], extra) for left, extra in found]
            (mean, dist), _, extra = min(scored, key=lambda item: (item[0][0], item[1]))
            if extra:
                cost = mean - 1.0
                term[:] = dist
            else:
                cost = mean
                term[1:] = dist[:-1]
        total += weight * cost
        spread += weight * term
    return 1.0 + total / 36.0, spread / 36.0


def _start() -> tuple[float, Floats]:
    """The empty layout's mean and distribution: it needs no turn."""
    dist = np.zeros(MAX_TURNS + 1)
    dist[0] = 1.0
    return 0.0, dist


def one_sided(semantics: Semantics, checkers: int) -> OneSidedArrays:
    """The one-sided table of every layout of up to ``checkers`` checkers (docs/rules.md, Bear-off tables):
    the mean and distribution of the turns to bear off all checkers, and to bear off the first, under the
    play that minimises the expected number of turns (the recurrences of :mod:`nardy_fast.bearoff.tables`).
    Rows are in id order (:mod:`nardy_fast.bearoff.layouts`)."""
    number = check_checkers(checkers)
    variant, flags = variant_of(semantics)
    table = [tuple(int(c) for c in row) for row in all_layouts(number)]
    ids = _ids()
    n = len(table)
    mean, dist = np.zeros(n), np.zeros((n, MAX_TURNS + 1))
    mean_first, dist_first = np.zeros(n), np.zeros((n, MAX_TURNS + 1))
    mean[0], dist[0] = _start()
    mean_first[0], dist_first[0] = _start()

    def all_off(layout: Layout) -> tuple[float, Floats]:
        i = ids[layout]
        return float(mean[i]), dist[i]

    def first_off(layout: Layout) -> tuple[float, Floats]:
        i = ids[layout]
        return float(mean_first[i]), dist_first[i]

    # every result has fewer pips than its layout: taking layouts by pips, each result is known before use
    for layout in sorted(table[1:], key=_pips):
        i = ids[layout]
        options = _all_results(variant, flags, layout)
        mean[i], dist[i] = _turns(layout, False, options, all_off)
        mean_first[i], dist_first[i] = _turns(layout, True, options, first_off)
    return OneSidedArrays(mean, dist, mean_first, dist_first)


class OneSidedRows:
    """Rows of a one-sided table computed one layout at a time (docs/rules.md, Bear-off tables): the same
    values as :func:`one_sided`, reached by a memoised recursion over only the layouts a layout's results
    lead to, so that single layouts of many checkers can be checked without building the whole table (15
    checkers on the ace reach 16 layouts; the first checker off from a layout reaches only layouts of as many
    checkers)."""

    def __init__(self, semantics: Semantics) -> None:
        self.semantics = semantics
        self._variant, self._flags = variant_of(semantics)
        self._found: dict[tuple[Layout, bool], tuple[float, Floats]] = {
            (_EMPTY, False): _start(),
            (_EMPTY, True): _start(),
        }

    def all_off(self, counts: object) -> tuple[float, Floats]:
        """The mean and distribution (MAX_TURNS + 1 columns, column ``t`` = exactly ``t`` turns) of the turns
        to bear off every checker of ``counts``."""
        return self._row(_layout(counts), False)

    def first_off(self, counts: object) -> tuple[float, Floats]:
        """The same for bearing off the first checker."""
        return self._row(_layout(counts), True)

    def _row(self, layout: Layout, first: bool) -> tuple[float, Floats]:
        found = self._found.get((layout, first))
        if found is None:
            options = _all_results(self._variant, self._flags, layout)
            found = _turns(layout, first, options, lambda left: self._row(left, first))
            self._found[(layout, first)] = found
        return found


def two_sided(semantics: Semantics, checkers: int) -> Floats:
    """The two-sided table of every pair of layouts of up to ``checkers`` checkers (at most 6; docs/rules.md,
    Bear-off tables): ``win[x, y]``, the probability that the side to move, holding ``x``, wins against ``y``
    when both play to maximise it (the recurrence of :mod:`nardy_fast.bearoff.tables`). Rows and columns are
    in id order."""
    number = check_checkers(checkers, most=TWO_SIDED_CHECKERS)
    moves = _Moves(semantics)
    table = [tuple(int(c) for c in row) for row in all_layouts(number)]
    ids = {layout: i for i, layout in enumerate(table)}
    n = len(table)
    win = np.zeros((n, n))
    win[0, :] = 1.0  # the side to move has borne off all: it has won; win[x, 0] = 0 for the others
    pips = [_pips(layout) for layout in table]
    # every result of x has fewer pips than x: taking pairs by total pips, win[R, y] and win[y, R] are known
    pairs = sorted(
        ((x, y) for x in range(1, n) for y in range(1, n)), key=lambda pair: pips[pair[0]] + pips[pair[1]]
    )
    for x, y in pairs:
        total = 0.0
        options = moves(table[x])
        for roll_index, weight in enumerate(ROLL_WEIGHTS):
            best = 0.0
            for left, extra in options[roll_index]:
                j = ids[left]
                value = 1.0 if j == 0 else win[j, y] if extra else 1.0 - win[y, j]
                best = max(best, value)
            total += weight * best
        win[x, y] = total / 36.0
    return win


def _cube(no_double: float, double_take: float) -> float:
    """The side to roll's value per unit of the cube, doubling where that is worth more (GNU Backgammon's
    ``CubeEquity``): it doubles when the double-take line (``double_take`` per unit of the doubled cube, so
    twice that per unit of the cube before) and the pass (1) are both worth at least the no-double line; the
    other side then takes or passes, whichever costs it less."""
    if 2.0 * double_take >= no_double and 1.0 >= no_double:
        return min(2.0 * double_take, 1.0)
    return no_double


def two_sided_cubeful(semantics: Semantics, checkers: int) -> Floats:
    """The cubeful two-sided table of every pair of layouts of up to ``checkers`` checkers (at most 6;
    docs/rules.md, The doubling cube): ``values[k, x, y]``, the money equity per unit of the cube of the side
    to move, holding ``x`` against ``y``, before its own cube action, with the cube centred (``k = 0``), its
    own (1) or the opponent's (2), both sides playing and doubling to maximise it (the recurrence of
    :mod:`nardy_fast.bearoff.tables`). Rows and columns are in id order."""
    number = check_checkers(checkers, most=TWO_SIDED_CHECKERS)
    moves = _Moves(semantics)
    table = [tuple(int(c) for c in row) for row in all_layouts(number)]
    ids = {layout: i for i, layout in enumerate(table)}
    n = len(table)
    centred, own, theirs = (np.zeros((n, n)) for _ in range(3))
    for plane in (centred, own, theirs):
        plane[0, :] = 1.0  # the side to move has borne off all: it has won a single game
        plane[1:, 0] = -1.0  # the other side has: it has lost one
    pips = [_pips(layout) for layout in table]
    pairs = sorted(
        ((x, y) for x in range(1, n) for y in range(1, n)), key=lambda pair: pips[pair[0]] + pips[pair[1]]
    )
    for x, y in pairs:
        totals = [0.0, 0.0, 0.0]
        options = moves(table[x])
        for roll_index, weight in enumerate(ROLL_WEIGHTS):
            best = [-2.0, -2.0, -2.0]
            for left, extra in options[roll_index]:
                j = ids[left]
                if j == 0:
                    values = (1.0, 1.0, 1.0)
                elif extra:  # the same side rolls again with the cube as it was: no double mid-turn
                    values = (centred[j, y], own[j, y], theirs[j, y])
                else:
                    # the other side to roll (y against j): it may double a centred cube or its own; after
                    # its double and our take the cube is ours, so its double-take line is its theirs[y, j]
                    values = (-_cube(centred[y, j], theirs[y, j]), -theirs[y, j], -_cube(own[y, j], theirs[y, j]))
                best = [max(b, float(v)) for b, v in zip(best, values)]  # each cube state its own best move
            totals = [t + weight * b for t, b in zip(totals, best)]
        centred[x, y], own[x, y], theirs[x, y] = (t / 36.0 for t in totals)
    return np.stack([centred, own, theirs])
