"""The turn contract and the facts of whole games (docs/rules.md, Who starts; What follows a move; Game end
and scoring): who starts, the opening roll, when the next roll comes, how long a game may run, and what a
playout records of each game. Facts over the dice and the packed rows alone: :class:`nardy_fast.game.Game`, the
lock-step games, the environments and the compiled core's game loop (games.pxi, whose twins have the same
names) all stand on this module.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import numpy.typing as npt

from . import dice, layout

__all__ = ["OPENINGS", "MAX_PLIES", "LIMITED", "TRUNCATED", "RECORD", "POLICIES", "who_starts", "opening_roll", "rolls_next"]

#: How the first roll is made (docs/rules.md, Who starts): the starter rolls two fresh dice,
#: or plays the two single dice that decided who starts.
OPENINGS = ("fresh_roll", "use_single_dice")
#: A game that has not ended after this many plies is given up (both sides can be stuck for ever).
MAX_PLIES = 10_000


# --- the turn contract (docs/rules.md, Who starts; What follows a move) ---------------------------------------


def who_starts(seed: int, game: int) -> tuple[int, int]:
    """The single dice that decide who starts game ``game`` of ``seed``, (White's, Black's): each side rolls
    one die (:func:`nardy_fast.dice.single_dice`), ties roll again; the higher die starts."""
    k = 0
    while True:
        white, black = dice.single_dice(seed, game, k)
        if white != black:
            return white, black
        k += 1


def opening_roll(singles: tuple[int, int], opening: str) -> Optional[tuple[int, int]]:
    """The starter's first roll under ``opening`` (one of :data:`OPENINGS`): the two single dice that decided
    who starts, higher first (``"use_single_dice"``), or ``None``: the starter rolls two fresh dice
    (``"fresh_roll"``)."""
    if opening == "use_single_dice":
        return max(singles), min(singles)
    return None


def rolls_next(rows: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """Whether the side to move of each position (packed rows (N, 64), or one row: an array of one) rolls the
    dice next: not
    when the game is over, nor before a transfer segment (a pending list is played with no roll; docs/rules.md,
    Gulbar transfers). An extra roll needs no rule here: the mover is still to move, with nothing pending."""
    matrix = np.asarray(rows).reshape(-1, layout.WIDTH)
    rolling: npt.NDArray[np.bool_] = ~layout.is_over(matrix) & (matrix[:, layout.NPENDING] == 0)
    return rolling


# --- what a playout records (nardy_fast.playouts plays them) ---------------------------------------------

#: The winner of a record whose game was given up at a ply whose search would have held more than the
#: playout's ``max_results`` positions after one number of steps (a crazy ladder's, in practice).
LIMITED = -3
#: The winner of a record whose game ``truncate`` stopped at a bear-off position.
TRUNCATED = -2
#: One record per game of :func:`playout`: the winner (0 White, 1 Black, -1 a game given up after
#: :data:`MAX_PLIES`, -2 a game stopped at a bear-off by ``truncate``, :data:`LIMITED` one given up at a ply
#: over ``max_results``), the points won, the plies (transfer segments included) and turns (rolls played), and the
#: index of the starting row (0 for a variant's start or a single position).
RECORD = np.dtype(
    [("winner", np.int8), ("points", np.int8), ("plies", np.int32), ("turns", np.int32), ("start", np.int32)]
)
#: The built-in policies: a uniform choice among the legal moves (seeded, :func:`nardy_fast.dice.choice`), or
#: the first legal move.
POLICIES = ("random", "first")
