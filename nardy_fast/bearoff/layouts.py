"""Bear-off layouts and their ids: every way to place 0..15 checkers on the mover's home points 1..6,
numbered in GNU Backgammon's bear-off order (docs/rules.md, Bear-off tables), and the checks of the counts
users give.

The order is the combinatorial number system over the layout's bit string: id 0 is the empty layout, then
the 6 layouts of one checker (point 1 first), then those of two, and so on, so the layouts of up to ``k``
checkers are exactly the ids below ``layouts(k)`` and a table of fewer checkers is a prefix of a larger one.
A layout with counts ``c[0..5]`` (points 1..6) has id ``sum(C(5 - k + S_k, 6 - k) for k in 0..5)`` where
``S_k = c[k] + ... + c[5]``.
"""

from __future__ import annotations

from functools import cache
from math import comb
from typing import Any, Optional

import numpy as np
import numpy.typing as npt

from ..errors import NardyError, field_error
from ..inputs import integer

__all__ = ["POINTS", "MAX_CHECKERS", "LAYOUTS", "layouts", "layout_ids", "all_layouts", "check_counts", "check_checkers"]

#: The home points a layout covers, and the most checkers it holds.
POINTS = 6
MAX_CHECKERS = 15
#: Every layout of 0..15 checkers (the empty one included).
LAYOUTS = comb(MAX_CHECKERS + POINTS, POINTS)

# C(n, r) for n <= 21, r <= 6: the terms of the id
_BINOMIAL = np.array([[comb(n, r) for r in range(POINTS + 1)] for n in range(MAX_CHECKERS + POINTS + 1)], np.int64)


def layouts(checkers: int) -> int:
    """The number of layouts of up to ``checkers`` checkers (an integer 0..15): the ids
    ``0 .. layouts(checkers) - 1``."""
    return comb(check_checkers(checkers) + POINTS, POINTS)


def layout_ids(counts: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The ids of checked layouts ``counts`` (N, 6) (see the module docstring)."""
    suffix = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1]  # S_k
    k = np.arange(POINTS)
    ids: npt.NDArray[np.int64] = _BINOMIAL[POINTS - 1 - k + suffix, POINTS - k].sum(axis=1)
    return ids


@cache
def _all_layouts() -> npt.NDArray[np.int8]:
    grid = np.zeros((1, 0), dtype=np.int64)  # every layout of the points so far, a point added at a time
    for _ in range(POINTS):
        room = MAX_CHECKERS - grid.sum(axis=1)
        grid = np.vstack([np.hstack([grid[room >= c], np.full((int((room >= c).sum()), 1), c)]) for c in range(MAX_CHECKERS + 1)])
    out = np.zeros((LAYOUTS, POINTS), dtype=np.int8)
    out[layout_ids(grid)] = grid
    out.setflags(write=False)
    return out


def all_layouts(checkers: int = MAX_CHECKERS) -> npt.NDArray[np.int8]:
    """Every layout of up to ``checkers`` checkers in id order, (layouts(checkers), 6) int8, read-only: row
    ``i`` holds the counts on points 1..6 of layout ``i``; ``checkers`` is an integer 0..15."""
    return _all_layouts()[: layouts(checkers)]


def check_checkers(checkers: object, least: int = 0, most: int = MAX_CHECKERS) -> int:
    """The ``checkers`` of a table: an integer least..most."""
    number = integer(checkers)
    if number is None or not least <= number <= most:
        raise field_error(NardyError, "checkers", f"must be an integer {least}..{most}", checkers)
    return number


def check_counts(counts: object, name: str, checkers: int) -> tuple[npt.NDArray[np.int64], bool]:
    """``counts`` checked: one layout (a sequence of 6 integers) or an (N, 6) integer array, each count >= 0 and
    the total at most ``checkers``. Returns an (N, 6) int64 copy and whether one layout was given."""
    array: Optional[npt.NDArray[Any]]
    try:
        array = np.array(counts)
    except Exception:
        array = None
    if array is not None and not isinstance(counts, np.ndarray) and array.dtype == object:
        array = None  # ragged, or of objects that are not numbers
    if array is not None and not isinstance(counts, np.ndarray) and array.size:
        # a bool is not a count (np.array would make True a 1 among ints)
        if any(isinstance(v, (bool, np.bool_)) for v in np.array(counts, dtype=object).ravel()):
            array = None
    if array is None or array.ndim not in (1, 2) or array.shape[-1] != POINTS or array.dtype.kind not in "iu":
        raise field_error(
            NardyError, name, "must be 6 integer counts on points 1..6, or an integer array of shape (N, 6)", counts
        )
    single = array.ndim == 1
    matrix = array.reshape(-1, POINTS)
    if (matrix < 0).any():
        raise field_error(NardyError, name, "must not hold a negative count", counts)
    if (matrix > checkers).any():
        raise field_error(NardyError, name, f"must hold at most {checkers} checkers in all", counts)
    wide = matrix.astype(np.int64)
    if (wide.sum(axis=1) > checkers).any():
        raise field_error(NardyError, name, f"must hold at most {checkers} checkers in all", counts)
    return wide, single
