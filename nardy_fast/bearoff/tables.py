"""Bear-off tables as the package's users see them (docs/rules.md, Bear-off tables): what an implementation's
builders return, the table objects over those arrays, and the race values computed from them. Written once
for both implementations.

A one-sided builder ``one_sided(semantics, checkers)`` returns :class:`OneSidedArrays` for the layouts
``0 .. layouts(checkers) - 1`` (:mod:`nardy_fast.bearoff.layouts`); a two-sided builder ``two_sided(semantics,
checkers)`` returns the (n, n) float64 array ``win[x, y]`` of the side to move holding layout ``x`` against
``y``, for both ``x`` and ``y`` below ``n = layouts(checkers)``. Both follow these recurrences, in which
``R(L, r)`` is the set of legal results of layout ``L`` for roll ``r`` (docs/rules.md; a result is a layout,
the empty one when the move bears off the last checker), ``w_r`` the roll's weight in :data:`ROLL_WEIGHTS`
(its terms added up in :data:`ROLL_ORDER`, then divided by 36, so that both builders produce the same
floats), and ``extra(r)`` whether the move earns an extra roll (six-one's 6-1, gulbar's double played in full;
never when the result is empty):

* all off: ``mean[0] = 0`` and ``dist[0] = [1, 0, ...]``; for ``L`` not empty, per roll the chosen result
  ``R*`` is the empty layout if it is in ``R(L, r)``, else the one of least ``mean`` (equal means: the lower
  id), and ``mean[L] = 1 + (sum_r w_r * c_r) / 36`` with ``c_r = 0`` for the empty result, else
  ``mean[R*] - 1`` after an extra roll (the turn goes on), else ``mean[R*]``. ``dist[L, n]`` (the probability of
  exactly ``n`` turns) is ``(sum_r w_r * d_r[n]) / 36`` with ``d_r`` = 1 at ``n = 1`` for the empty result,
  ``dist[R*, n]`` after an extra roll, else ``dist[R*, n - 1]``;
* the first checker off: the same with "the result holds fewer checkers than ``L``" in place of "the
  result is empty" (any such result ends the count, cost 0), and ``mean_first``/``dist_first`` in place of
  ``mean``/``dist``; the empty layout has ``mean_first[0] = 0``, ``dist_first[0] = [1, 0, ...]``;
* two-sided: ``win[0, y] = 1`` (the side to move has borne off all: it has won), ``win[x, 0] = 0`` for
  ``x`` not empty, else ``win[x, y] = (sum_r w_r * b_r) / 36`` with ``b_r`` the greatest over ``R`` in ``R(x, r)``
  of 1 for the empty result, ``win[R, y]`` after an extra roll, else ``1 - win[y, R]``;
* two-sided cubeful (money play, docs/rules.md, The doubling cube; GNU Backgammon's ``makebearoff``): ``C``,
  ``O`` and ``P``, the equity per unit of the cube of the side to move before its own cube action with the
  cube centred, its own and the opponent's, are 1 at ``x`` empty, -1 at ``y`` empty (``x`` not), else
  ``(sum_r w_r * b_r) / 36`` with ``b_r`` the greatest over ``R`` in ``R(x, r)`` (each of the three its own
  move) of 1 for the empty result, the same table's ``[R, y]`` after an extra roll (no double mid-turn),
  else ``-cube(C[y, R], P[y, R])`` for ``C``, ``-P[y, R]`` for ``O`` and ``-cube(O[y, R], P[y, R])`` for ``P``,
  where ``cube(nd, dt)`` is ``min(2 dt, 1)`` when ``2 dt >= nd`` and ``1 >= nd`` (the other side doubles, then
  we take or pass), else ``nd``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import NamedTuple, Union

import numpy as np
import numpy.typing as npt

from ..errors import NardyError, field_error, uninitialised_error
from ..inputs import boolean, items
from .layouts import MAX_CHECKERS, check_checkers, check_counts, layout_ids, layouts
from .semantics import MAX_TURNS, Semantics

__all__ = [
    "OneSidedArrays",
    "OneSidedKernel",
    "TwoSidedKernel",
    "CubefulKernel",
    "CUBE_STATES",
    "OneSided",
    "TwoSided",
    "CubefulTwoSided",
    "RaceProbabilities",
    "TWO_SIDED_CHECKERS",
]

#: The most checkers a side holds in a two-sided table.
TWO_SIDED_CHECKERS = 6

Floats = npt.NDArray[np.float64]
#: How far a computed probability may stray outside [0, 1], and a sum of them from 1 (rounding).
_TOLERANCE = 1e-9


class OneSidedArrays(NamedTuple):
    """What a one-sided builder returns, for the layouts ``0 .. n - 1``: ``mean`` (n,) and ``dist``
    (n, MAX_TURNS + 1) for bearing off all checkers, ``mean_first`` and ``dist_first`` for the first one
    (see the module docstring); ``dist[i, t]`` is the probability of exactly ``t`` turns."""

    mean: Floats
    dist: Floats
    mean_first: Floats
    dist_first: Floats


OneSidedKernel = Callable[[Semantics, int], OneSidedArrays]
TwoSidedKernel = Callable[[Semantics, int], Floats]
#: A cubeful two-sided builder: ``(3, n, n)`` float64, the centred, own and opponent planes.
CubefulKernel = Callable[[Semantics, int], Floats]

def _readonly(array: Floats) -> Floats:
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class RaceProbabilities:
    """The outcomes of a bear-off for the side to move (docs/rules.md, Bear-off tables): a single win, a win
    with mars, a single loss, a loss with mars (they add up to 1; koks cannot happen in a bear-off), and
    ``exact``: whether they come from the two-sided table (exact under optimal play by both sides) rather than
    from the one-sided tables."""

    win_single: float
    win_mars: float
    lose_single: float
    lose_mars: float
    exact: bool

    def __post_init__(self) -> None:
        # checked, so that win and equity are those of outcomes that can happen
        names = ("win_single", "win_mars", "lose_single", "lose_mars")
        for name in names:
            value = self.__dict__[name]
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise field_error(NardyError, name, "must be a real number", value)
            number = float(value)
            if not -_TOLERANCE <= number <= 1.0 + _TOLERANCE:  # NaN included
                raise field_error(NardyError, name, "must be a probability in [0, 1]", value)
            object.__setattr__(self, name, number)
        total = math.fsum(self.__dict__[name] for name in names)
        if not abs(total - 1.0) <= _TOLERANCE:
            problem = f"and the other three must add up to 1 (they add up to {total!r})"
            raise field_error(NardyError, "win_single", problem, self.win_single)
        exact = boolean(self.exact)
        if exact is None:
            raise field_error(NardyError, "exact", "must be True or False", self.exact)
        object.__setattr__(self, "exact", exact)

    def __getattr__(self, name: str) -> object:
        # only for attributes never set: an object made with __new__ alone
        if name in {f.name for f in fields(RaceProbabilities)}:
            raise uninitialised_error(type(self).__name__)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def win(self) -> float:
        """The probability that the side to move wins."""
        return self.win_single + self.win_mars

    @property
    def equity(self) -> float:
        """Points per game for the side to move: 1 a single game, 2 a mars, won minus lost."""
        return self.win_single + 2 * self.win_mars - self.lose_single - 2 * self.lose_mars

    def __repr__(self) -> str:
        return (
            f"RaceProbabilities(win_single={self.win_single!r}, win_mars={self.win_mars!r}, "
            f"lose_single={self.lose_single!r}, lose_mars={self.lose_mars!r}, exact={self.exact!r})"
        )


def _checked_source(semantics: object, implementation: object) -> tuple[Semantics, str]:
    """A table's ``semantics`` and the name of the ``implementation`` that built it, checked."""
    if not isinstance(semantics, Semantics):
        raise field_error(NardyError, "semantics", "must be a Semantics (bearoff.SEMANTICS)", semantics)
    if not isinstance(implementation, str):
        raise field_error(NardyError, "implementation", "must be the name of an implementation", implementation)
    return semantics, str.__str__(implementation)


class OneSided:
    """A one-sided bear-off table (docs/rules.md, Bear-off tables): for every layout of up to ``checkers``
    checkers on the mover's points 1..6, the distribution of the number of turns to bear off all of them, and
    of the turns to bear off the first, each under the play that minimises its expected number of turns.

    Every method takes ``counts``: the counts on points 1..6 of one layout (a sequence of 6 integers), or an
    (N, 6) integer array of layouts; it returns one value (one row) or an array of N. Counts that are negative,
    not six, not integers, or hold more than ``checkers`` checkers are a :class:`~nardy_fast.NardyError` naming
    ``counts``. Built by :func:`nardy_fast.bearoff.one_sided`; the arrays are read-only and shared by every
    thread."""

    def __init__(self, semantics: Semantics, checkers: int, arrays: OneSidedArrays, implementation: str) -> None:
        self.semantics, self.implementation = _checked_source(semantics, implementation)
        self.checkers = check_checkers(checkers)
        n = layouts(self.checkers)
        shapes = ((n,), (n, MAX_TURNS + 1), (n,), (n, MAX_TURNS + 1))
        given = items(arrays)
        if (
            given is None
            or len(given) != len(shapes)
            or not all(isinstance(a, np.ndarray) and a.dtype == np.float64 for a in given)
            or [a.shape for a in given if isinstance(a, np.ndarray)] != list(shapes)
        ):
            raise field_error(NardyError, "arrays", f"must be four float64 arrays of shapes {shapes}", arrays)
        checked = OneSidedArrays(*given)  # type: ignore[arg-type]
        if not all(np.isfinite(a).all() and (a >= 0.0).all() for a in checked):
            raise field_error(NardyError, "arrays", "must hold finite numbers >= 0 (turns and probabilities)", arrays)
        self.arrays = OneSidedArrays(*(_readonly(a) for a in checked))

    def __getattr__(self, name: str) -> object:
        # only for attributes never set: a table made with __new__ alone
        raise uninitialised_error(type(self).__name__)

    def __repr__(self) -> str:
        return f"<OneSided {self.semantics.key!r} table of up to {self.checkers} checkers ({self.implementation})>"

    @property
    def nbytes(self) -> int:
        """The memory the table's arrays take."""
        return sum(a.nbytes for a in self.arrays)

    def ids(self, counts: object) -> Union[int, npt.NDArray[np.int64]]:
        """The ids of the layouts (GNU Backgammon's bear-off ids; :mod:`nardy_fast.bearoff.layouts`)."""
        matrix, single = check_counts(counts, "counts", self.checkers)
        ids = layout_ids(matrix)
        return int(ids[0]) if single else ids

    def _rows(self, counts: object, array: Floats) -> Union[float, Floats]:
        matrix, single = check_counts(counts, "counts", self.checkers)
        out = array[layout_ids(matrix)]
        return (out[0] if out.ndim == 2 else float(out[0])) if single else out

    def expected_turns(self, counts: object) -> Union[float, Floats]:
        """The expected number of turns to bear off every checker (0 for the empty layout)."""
        return self._rows(counts, self.arrays.mean)

    def expected_turns_first(self, counts: object) -> Union[float, Floats]:
        """The expected number of turns to bear off the first checker (0 for the empty layout)."""
        return self._rows(counts, self.arrays.mean_first)

    def turns_distribution(self, counts: object) -> Floats:
        """The probability of bearing off every checker in exactly ``n`` turns, in column ``n - 1`` for ``n``
        1..32 (all zero for the empty layout, which needs none)."""
        found = self._rows(counts, self.arrays.dist)
        assert isinstance(found, np.ndarray)
        return found[..., 1:]

    def turns_distribution_first(self, counts: object) -> Floats:
        """The probability of bearing off the first checker in exactly ``n`` turns, column ``n - 1``."""
        found = self._rows(counts, self.arrays.dist_first)
        assert isinstance(found, np.ndarray)
        return found[..., 1:]

    def race_probabilities(self, x_counts: object, y_counts: object) -> npt.NDArray[np.float64]:
        """The outcomes of bear-offs for the side to move holding ``x_counts`` against ``y_counts`` (both on
        their own points 1..6), from this table alone: an (N, 4) array (one row of 4 for one pair) of the
        probabilities of a single win, a win with mars, a single loss and a loss with mars. The side to move
        wins when it needs no more turns than the opponent (it moves first); a side with all 15 checkers on
        the board loses a mars when the other finishes before its first checker is off."""
        x, x_single = check_counts(x_counts, "x_counts", self.checkers)
        y, y_single = check_counts(y_counts, "y_counts", self.checkers)
        if len(x) != len(y) and not (x_single or y_single):
            raise field_error(NardyError, "y_counts", f"must hold as many layouts as x_counts ({len(x)})", y_counts)
        both_empty = (x.sum(axis=1) == 0) & (y.sum(axis=1) == 0)
        if both_empty.any():
            raise field_error(NardyError, "x_counts", "and y_counts must not both be empty", x_counts)
        out = race_outcomes(self.arrays, layout_ids(x), x.sum(axis=1) == MAX_CHECKERS, layout_ids(y), y.sum(axis=1) == MAX_CHECKERS)
        return out[0] if x_single and y_single else out


def race_outcomes(
    arrays: OneSidedArrays,
    x: npt.NDArray[np.int64],
    x_full: npt.NDArray[np.bool_],
    y: npt.NDArray[np.int64],
    y_full: npt.NDArray[np.bool_],
) -> Floats:
    """(N, 4) single win, win with mars, single loss, loss with mars of ids ``x`` (to move) against ``y``;
    ``*_full``: the side has all 15 checkers on the board (only then can it lose a mars)."""
    px, py = arrays.dist[x], arrays.dist[y]
    # tail[t] = P(turns >= t)
    tail_y = np.cumsum(py[:, ::-1], axis=1)[:, ::-1]
    tail_first_y = np.cumsum(arrays.dist_first[y][:, ::-1], axis=1)[:, ::-1]
    win = (px * tail_y).sum(axis=1)
    win_mars = np.where(y_full, (px * tail_first_y).sum(axis=1), 0.0)
    # the opponent finishing on its turn m beats the mover's first checker when that needs m + 1 or more
    tail_first_x = np.cumsum(arrays.dist_first[x][:, ::-1], axis=1)[:, ::-1]
    later_x = np.concatenate([tail_first_x[:, 1:], np.zeros((len(x), 1))], axis=1)
    lose_mars = np.where(x_full, (py * later_x).sum(axis=1), 0.0)
    win = np.clip(win, 0.0, 1.0)
    lose = 1.0 - win
    return np.stack([win - win_mars, win_mars, lose - lose_mars, lose_mars], axis=1)


class TwoSided:
    """A two-sided bear-off table (docs/rules.md, Bear-off tables): for both sides with up to ``checkers``
    (at most 6) checkers on their points 1..6, the exact probability that the side to move wins when both play
    to maximise it. Built by :func:`nardy_fast.bearoff.two_sided`; read-only, shared by every thread."""

    def __init__(self, semantics: Semantics, checkers: int, win: Floats, implementation: str) -> None:
        self.semantics, self.implementation = _checked_source(semantics, implementation)
        self.checkers = check_checkers(checkers, 1, TWO_SIDED_CHECKERS)
        n = layouts(self.checkers)
        if not isinstance(win, np.ndarray) or win.shape != (n, n) or win.dtype != np.float64:
            raise field_error(NardyError, "win", f"must be a float64 array of shape {(n, n)}", win)
        if not ((win >= 0.0) & (win <= 1.0)).all():  # NaN included
            raise field_error(NardyError, "win", "must hold probabilities in [0, 1]", win)
        self.win = _readonly(win)

    def __getattr__(self, name: str) -> object:
        # only for attributes never set: a table made with __new__ alone
        raise uninitialised_error(type(self).__name__)

    def __repr__(self) -> str:
        return f"<TwoSided {self.semantics.key!r} table of up to {self.checkers} checkers a side ({self.implementation})>"

    @property
    def nbytes(self) -> int:
        """The memory the table takes."""
        return self.win.nbytes

    def win_probability(self, x_counts: object, y_counts: object) -> Union[float, Floats]:
        """The probability that the side to move, holding ``x_counts``, wins against ``y_counts`` (each one
        layout of 6 counts, or (N, 6) arrays of equal length): 1 when ``x`` is empty (it has borne off all), 0
        when only ``y`` is. Bad counts, more than ``checkers`` checkers, or both empty: a
        :class:`~nardy_fast.NardyError` naming the argument."""
        xi, yi, single = pair_ids(x_counts, y_counts, self.checkers)
        out = self.win[xi, yi]
        return float(out[0]) if single else out


def pair_ids(x_counts: object, y_counts: object, checkers: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], bool]:
    """The layout ids of the pairs a two-sided table is asked about (``x_counts`` to move against
    ``y_counts``: one layout of 6 counts each, or (N, 6) arrays of equal length, at most ``checkers``
    checkers), and whether it was one pair; a :class:`~nardy_fast.NardyError` naming the argument for bad
    counts, unequal lengths or both sides empty."""
    x, x_single = check_counts(x_counts, "x_counts", checkers)
    y, y_single = check_counts(y_counts, "y_counts", checkers)
    if len(x) != len(y) and not (x_single or y_single):
        raise field_error(NardyError, "y_counts", f"must hold as many layouts as x_counts ({len(x)})", y_counts)
    xi, yi = np.broadcast_arrays(layout_ids(x), layout_ids(y))
    if ((xi == 0) & (yi == 0)).any():
        raise field_error(NardyError, "x_counts", "and y_counts must not both be empty", x_counts)
    return xi, yi, x_single and y_single


#: The cube states of a cubeful table's planes, as the side to move sees the cube.
CUBE_STATES = ("centred", "own", "opponent")


class CubefulTwoSided:
    """The exact money equities of two-sided bear-offs (docs/rules.md, The doubling cube): for both sides
    with up to ``checkers`` (at most 6) checkers on their points 1..6, the equity per unit of the cube of the
    side to move, before its own cube action, with the cube centred, its own or the opponent's (the planes
    of ``values``, in :data:`CUBE_STATES` order), both sides playing and doubling to maximise it. Built by
    :func:`nardy_fast.bearoff.two_sided_cubeful`; read-only, shared by every thread."""

    def __init__(self, semantics: Semantics, checkers: int, values: Floats, implementation: str) -> None:
        self.semantics, self.implementation = _checked_source(semantics, implementation)
        self.checkers = check_checkers(checkers, 1, TWO_SIDED_CHECKERS)
        n = layouts(self.checkers)
        if not isinstance(values, np.ndarray) or values.shape != (3, n, n) or values.dtype != np.float64:
            raise field_error(NardyError, "values", f"must be a float64 array of shape {(3, n, n)}", values)
        if not ((values >= -1.0) & (values <= 1.0)).all():  # NaN included
            raise field_error(NardyError, "values", "must hold equities in [-1, 1]", values)
        self.values = _readonly(values)

    def __getattr__(self, name: str) -> object:
        # only for attributes never set: a table made with __new__ alone
        raise uninitialised_error(type(self).__name__)

    def __repr__(self) -> str:
        return (f"<CubefulTwoSided {self.semantics.key!r} table of up to {self.checkers} checkers a side "
                f"({self.implementation})>")

    @property
    def nbytes(self) -> int:
        """The memory the table takes."""
        return self.values.nbytes

    def equities(self, x_counts: object, y_counts: object) -> Floats:
        """The equities (centred, own, opponent) of the side to move, holding ``x_counts``, against
        ``y_counts`` (each one layout of 6 counts, or (N, 6) arrays of equal length): (3,) for one pair, else
        (N, 3). Bad counts, more than ``checkers`` checkers, or both empty: a
        :class:`~nardy_fast.NardyError` naming the argument."""
        xi, yi, single = pair_ids(x_counts, y_counts, self.checkers)
        out: Floats = self.values[:, xi, yi].T
        return out[0] if single else out


assert MAX_CHECKERS == 15
