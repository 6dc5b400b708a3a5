"""The targets a network learns from its own games (docs/rules.md, Training), written once for every
implementation: TD(lambda) returns over trajectories (``targets="td"``), or each position's value by the
network's own search ``plies`` deep (``targets="search"``, :func:`search_values`).

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

A search target is ``value(s_t, plies)`` of the cubeless n-ply search (docs/rules.md, Evaluation and search)
with the network as its evaluator, for the side to move at ``s_t``: at 1 ply the mean over the 21 rolls of
the 0-ply value of the move the network would play, at 2 plies the same over the INNER filter's moves each
valued at 1 ply; a finished game's value is its outcome. The compiled core searches them in C
(``Kernels.values``), the reference with the shared :class:`~nardy_fast.evaluation.search.Search`, that
search's twin: the same targets in both implementations.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .. import layout
from ..evaluation.evaluators import check_served, tables_for
from ..evaluation.network import Network
from ..evaluation.outcomes import flipped
from ..evaluation.search import Search
from ..kernels import Kernels
from ..playouts import Trajectories

__all__ = ["TARGETS", "lambda_returns", "search_values"]

#: The kinds of targets: TD(lambda) returns, or the values of the network's own search.
TARGETS = ("td", "search")

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


def search_values(
    kernels: Kernels, rows: npt.NDArray[np.int8], network: Network, plies: int, threads: int = 1
) -> Floats:
    """``value(row, plies)`` (n, 5) of every row (positions of ``network``'s variant) for its side to move, by
    ``network`` searched ``plies`` deep (the module docstring): a finished row's is its outcome. By the
    implementation's own search when it has one (the core's, in C on ``threads`` threads), else by the
    shared one."""
    if not len(rows):
        return np.zeros((0, 5))
    check_served(network, rows)  # the error of the shared search's evaluator, before either search
    if kernels.values is not None:
        return kernels.values(rows, plies, network.kind, tables_for(kernels, network, rows), threads)
    return Search(kernels, network).values(np.ascontiguousarray(rows), plies)
