"""Race values of bear-off positions (docs/rules.md, Bear-off tables): of one position for its side to move,
and of many packed rows at once in the outcomes of a rollout.

Both read the tables of an implementation of the caller's choosing: exact from the two-sided table where both
sides have at most 6 checkers left, else from the one-sided tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from .. import layout
from ..board import mover_point, to_mover
from ..errors import NardyError, field_error
from ..kernels import kernels_of
from ..variants import VARIANTS
from .layouts import MAX_CHECKERS, layout_ids
from .store import one_sided_table, two_sided_cubeful_table, two_sided_table
from .tables import TWO_SIDED_CHECKERS, RaceProbabilities, race_outcomes

if TYPE_CHECKING:
    from ..kernels import Kernels
    from ..position import Position

__all__ = ["race_probabilities", "row_outcomes", "exact_cubeful"]


def race_probabilities(position: Position) -> RaceProbabilities:
    """The race values of a bear-off position for its side to move (docs/rules.md, Bear-off tables), from
    the tables of the position's own implementation: exact from the two-sided table when both sides have at
    most 6 checkers left, else from the one-sided tables. A position that is not a bear-off, or whose game
    is over, is a :class:`~nardy_fast.NardyError` naming ``position``."""
    kernels = kernels_of(position)  # a NardyError for anything but a Position
    if position.is_over():
        raise field_error(NardyError, "position", "is a finished game", position.to_text())
    if not position.is_bearoff():
        problem = "is not a bear-off (docs/rules.md, Races and bear-off positions)"
        raise field_error(NardyError, "position", problem, position.to_text())
    if position.pending:
        problem = "has a pending list to play first (race values are those of a side about to roll)"
        raise field_error(NardyError, "position", problem, position.to_text())
    st = position.state
    view = to_mover(st.variant, st.turn, st.board, st.bar, st.off)
    # the opponent's home points 1..6 in its own numbering (``view`` counts both sides on the mover's points)
    x, y = list(view.x[1:7]), [view.y[mover_point(st.variant, m)] for m in range(1, 7)]
    flags = dict(st.flags)
    # the smallest tables that hold both sides (a prefix of the larger ones: the reference builds them slowly)
    needed = max(sum(x), sum(y))
    if needed <= TWO_SIDED_CHECKERS:
        win = two_sided_table(kernels.name, kernels.two_sided, st.variant, needed, flags).win_probability(x, y)
        assert isinstance(win, float)
        return RaceProbabilities(win, 0.0, 1.0 - win, 0.0, True)
    table = one_sided_table(kernels.name, kernels.one_sided, st.variant, needed, False, flags)
    values = [float(v) for v in np.asarray(table.race_probabilities(x, y))]
    return RaceProbabilities(values[0], values[1], values[2], values[3], False)


def row_outcomes(
    kernels: Kernels, variant: str, flags: Mapping[str, object], rows: npt.NDArray[np.int8]
) -> npt.NDArray[np.float64]:
    """For bear-off rows (N, 64) of ``variant`` under ``flags``, unfinished, with no pending list, the probabilities of a rollout's
    six outcomes (:data:`nardy_fast.rollouts.OUTCOMES`: White's single win, mars, koks, then Black's), (N, 6),
    from ``kernels``'s tables."""
    board = rows[:, layout.BOARD : layout.BOARD + 24]
    white = np.maximum(board[:, 0:6], 0)
    black = np.maximum(-board[:, [mover_point(variant, m) - 1 for m in range(1, 7)]], 0)
    black_moves = rows[:, layout.TURN] == 1
    x = np.where(black_moves[:, None], black, white).astype(np.int64)
    y = np.where(black_moves[:, None], white, black).astype(np.int64)
    # games stopped at a bear-off share few pairs of layouts: each pair is valued once (a count is 0..15: the
    # twelve of a pair fit in 48 bits)
    digits = 16 ** np.arange(6, dtype=np.int64)
    _, first, inverse = np.unique((x @ digits) << 24 | (y @ digits), return_index=True, return_inverse=True)
    x, y = x[first], y[first]
    xi, yi = layout_ids(x), layout_ids(y)
    needed = int(max(x.sum(axis=1).max(), y.sum(axis=1).max()))
    table = one_sided_table(kernels.name, kernels.one_sided, variant, needed, False, flags)
    unique = race_outcomes(table.arrays, xi, x.sum(axis=1) == MAX_CHECKERS, yi, y.sum(axis=1) == MAX_CHECKERS)
    small = (x.sum(axis=1) <= TWO_SIDED_CHECKERS) & (y.sum(axis=1) <= TWO_SIDED_CHECKERS)
    if small.any():
        smaller = int(max(x[small].sum(axis=1).max(), y[small].sum(axis=1).max(), 1))
        win = two_sided_table(kernels.name, kernels.two_sided, variant, smaller, flags).win[xi[small], yi[small]]
        unique[small] = np.stack([win, np.zeros_like(win), 1.0 - win, np.zeros_like(win)], axis=1)
    mover = unique[inverse.reshape(-1)]
    # the mover's single win and mars, single loss and mars, as White's or Black's outcomes
    out = np.zeros((len(rows), 6))
    out[np.ix_(~black_moves, [0, 1, 3, 4])] = mover[~black_moves]
    out[np.ix_(black_moves, [3, 4, 0, 1])] = mover[black_moves]
    return out


def exact_cubeful(kernels: Kernels, rows: npt.NDArray[np.int8]) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64]]:
    """Which of ``rows`` (checked, any variants) have exact money cubeful values, and those values: the rows of
    unfinished bear-offs whose side is about to roll (no pending list) with at most 6 checkers left a side,
    and for each its exact chance of winning and its money equities per unit of the cube (centred, own,
    opponent: :data:`~nardy_fast.bearoff.tables.CUBE_STATES`) from ``kernels``'s two-sided tables (docs/rules.md,
    The doubling cube); (N,) and (N, 4), zeros where there are none. Each group of rows of one table reads the
    smallest tables that hold it."""
    exact = layout.is_bearoff(rows) & ~layout.is_over(rows) & (rows[:, layout.NPENDING] == 0)
    few = MAX_CHECKERS - TWO_SIDED_CHECKERS  # the fewest borne off by a side with at most 6 left
    exact &= (rows[:, layout.OFF] >= few) & (rows[:, layout.OFF + 1] >= few)
    values = np.zeros((len(rows), 4))
    # rows of one variant and rule flags read one table (the flag columns pick it: ladder_per_value)
    columns = [layout.VARIANT, layout.FLAGS, layout.EXCEPTION_DOUBLES]
    keys = (rows[:, columns].astype(np.int64) & 0xFF) @ np.array([1 << 16, 1 << 8, 1])
    for key in np.unique(keys[exact]):
        at = np.flatnonzero(exact & (keys == key))
        flags = dict(layout.unpack(rows[at[0]]).flags)
        variant = VARIANTS[int(rows[at[0], layout.VARIANT])]
        board = rows[at, layout.BOARD : layout.BOARD + 24]
        white = np.maximum(board[:, 0:6], 0)
        black = np.maximum(-board[:, [mover_point(variant, m) - 1 for m in range(1, 7)]], 0)
        black_moves = (rows[at, layout.TURN] == 1)[:, None]
        x = layout_ids(np.where(black_moves, black, white).astype(np.int64))
        y = layout_ids(np.where(black_moves, white, black).astype(np.int64))
        needed = int(max(white.sum(axis=1).max(), black.sum(axis=1).max(), 1))
        win = two_sided_table(kernels.name, kernels.two_sided, variant, needed, flags).win
        table = two_sided_cubeful_table(kernels.name, kernels.two_sided_cubeful, variant, needed, flags)
        values[at, 0] = win[x, y]
        values[at, 1:] = table.values[:, x, y].T
    return exact, values
