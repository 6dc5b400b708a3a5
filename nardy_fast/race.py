"""Races and bear-off positions (docs/rules.md, Races and bear-off positions), shared by both
implementations: whether the two sides can never touch again, and whether both have every checker home.

:func:`is_race` and :func:`is_bearoff` read one checked state through the board seen by each side
(:func:`nardy_fast.board.to_mover`); :func:`race_rows` and :func:`bearoff_rows` answer the same questions for
many packed rows at once with NumPy (:func:`nardy_fast.layout.is_race`, :func:`nardy_fast.layout.is_bearoff`).
The two are written apart on purpose, so that the tests can hold each against the other.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from . import layout
from .board import to_mover
from .state import State
from .variants import SPECS

__all__ = ["is_race", "is_bearoff", "race_rows", "bearoff_rows"]


def is_race(state: State) -> bool:
    """Whether the sides can never touch again (docs/rules.md, Races and bear-off positions).

    Long family: every checker on the board stands on its own side's points 1..12 (each checker only ever
    moves to lower points of its side's numbering, and White's 1..12 are Black's 13..24). Short nardy: no
    checker on either bar and every White checker on a lower White point than every Black checker. A finished
    game is a race.
    """
    if 15 in state.off:
        return True
    white = to_mover(state.variant, "white", state.board, state.bar, state.off)
    if SPECS[state.variant].family == "long":
        black = to_mover(state.variant, "black", state.board, state.bar, state.off)
        return not any(white.x[13:25]) and not any(black.x[13:25])
    if any(state.bar):
        return False
    # in White's numbering: White's checkers are white.x, Black's are white.y
    highest_white = max((p for p in range(1, 25) if white.x[p]), default=0)
    lowest_black = min((p for p in range(1, 25) if white.y[p]), default=25)
    return highest_white < lowest_black


def is_bearoff(state: State) -> bool:
    """Whether every checker on the board stands on its side's home points 1..6 and none is on the bar
    (docs/rules.md, Races and bear-off positions); such a position is a race in every variant."""
    white = to_mover(state.variant, "white", state.board, state.bar, state.off)
    black = to_mover(state.variant, "black", state.board, state.bar, state.off)
    return not any(state.bar) and not any(white.x[7:25]) and not any(black.x[7:25])


def race_rows(rows: object) -> npt.NDArray[np.bool_]:
    """:func:`is_race` of each packed row of ``rows`` (N, 64), vectorised; a bad array raises
    :class:`~nardy_fast.InvalidPositionError` naming ``rows``."""
    return layout.is_race(rows)


def bearoff_rows(rows: object) -> npt.NDArray[np.bool_]:
    """:func:`is_bearoff` of each packed row of ``rows`` (N, 64), vectorised; a bad array raises
    :class:`~nardy_fast.InvalidPositionError` naming ``rows``."""
    return layout.is_bearoff(rows)
