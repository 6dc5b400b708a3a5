"""The targets a network learns from its own games: TD(lambda) returns over trajectories (docs/rules.md,
Training), written once for every implementation.

A game's positions ``s_0 .. s_T`` (a :class:`~nardy_fast.playouts.Trajectories` game: one per ply plus the
last) are valued by the network for their sides to move, ``V(s_t)``; the last one is the game's outcome when
it finished (the seam values a finished game by its result), else the network's value. The target of
``s_t`` is the lambda-return, taken from the side to move at ``s_t``::

    G_T = V(s_T)
    G_t = (1 - lambda) * V'(s_{t+1}) + lambda * G'_{t+1}

where ``'`` is the value seen from the other side (:func:`~nardy_fast.evaluation.outcomes.flipped`) when
the turn passed between ``s_t`` and ``s_{t+1}`` and the value itself when it did not (a pending list, an
extra roll). ``lambda = 0`` is TD(0) (each position learns its successor's value), ``lambda = 1`` Monte
Carlo (each learns the game's result).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .. import layout
from ..evaluation.outcomes import flipped
from ..playouts import Trajectories

__all__ = ["lambda_returns"]

Floats = npt.NDArray[np.float64]


def lambda_returns(trajectories: Trajectories, values: Floats, lam: float) -> Floats:
    """The lambda-returns (n, 5) of every row of ``trajectories`` given their values (n, 5) for their sides
    to move (the module docstring); a game's last row's return is its value."""
    rows, offsets = trajectories.rows, trajectories.offsets
    n = len(rows)
    returns = np.array(values, dtype=np.float64, copy=True)
    if n == 0:
        return returns
    last = offsets[1:] - 1
    # how many rows after each row its game has: the recursion runs from each game's end backwards
    after = np.repeat(last, np.diff(offsets)) - np.arange(n)
    turn = layout.turn(rows)
    passes = np.zeros(n, dtype=bool)
    passes[:-1] = turn[:-1] != turn[1:]
    order = np.argsort(after, kind="stable")
    bounds = np.searchsorted(after[order], np.arange(int(after.max()) + 2))
    for d in range(1, int(after.max()) + 1):
        at = order[bounds[d] : bounds[d + 1]]
        nxt = at + 1
        following = np.where(passes[at][:, None], flipped(values[nxt]), values[nxt])
        ahead = np.where(passes[at][:, None], flipped(returns[nxt]), returns[nxt])
        returns[at] = (1.0 - lam) * following + lam * ahead
    return returns
