"""Truncated rollouts (docs/rules.md, Truncated rollouts): how the games a rollout stops early are scored. A game
stopped at its first bear-off (``truncate="bearoff"``) by that position's race values from the exact tables; one
stopped after ``truncate_plies`` plies by the rollout policy's evaluator at 0 ply, which only a
:class:`~nardy_fast.Greedy` has. Either way as the probabilities of the six outcomes a rollout counts."""

from __future__ import annotations

from typing import Optional, Union

import numpy as np
import numpy.typing as npt

from . import layout
from .bearoff.values import row_outcomes
from .errors import NardyError, field_error
from .evaluation.evaluators import Builtin, Evaluator
from .evaluation.search import Search
from .kernels import Kernels
from .lockstep import bearoff_stops
from .playouts import PlayoutOptions
from .policies import Greedy, resolve_policy
from .position import Position

__all__ = ["OUTCOMES", "truncation_evaluator", "evaluated_outcomes", "stopped_outcomes"]

#: The outcomes a rollout counts, in the order of :attr:`Rollout.counts`: the winner and the points won (1 a
#: single game, 2 a mars, 3 a koks).
OUTCOMES = ("white_single", "white_mars", "white_koks", "black_single", "black_mars", "black_koks")


def truncation_evaluator(options: PlayoutOptions) -> Optional[Union[Builtin, Evaluator]]:
    """The evaluator that scores the games a rollout stops after ``truncate_plies`` plies: its policy's, a
    :class:`~nardy_fast.Greedy`'s (None without ``truncate_plies``); any other policy is a NardyError naming
    ``truncate_plies``, having no values to score a game with."""
    if options.truncate_plies is None:
        return None
    policy = resolve_policy(options.policy)  # the playout's own check, first
    if not isinstance(policy, Greedy):
        problem = "scores a stopped game by the policy's evaluator: the policy must be a Greedy"
        raise field_error(NardyError, "truncate_plies", problem, options.truncate_plies)
    return policy.resolved


def evaluated_outcomes(kernels: Kernels, evaluator: Union[Builtin, Evaluator], rows: npt.NDArray[np.int8]
                       ) -> npt.NDArray[np.float64]:
    """The probabilities of a rollout's six outcomes (:data:`OUTCOMES`), (N, 6), of unfinished ``rows`` (N, 64)
    with no pending list, by ``evaluator`` at 0 ply (its five outputs are the side to move's)."""
    values = Search(kernels, evaluator).evaluate(rows)
    win, win_mars, win_koks, lose_mars, lose_koks = values.T
    mover = np.stack([win - win_mars, win_mars - win_koks, win_koks,
                      1.0 - win - lose_mars, lose_mars - lose_koks, lose_koks], axis=1)
    mover = np.clip(mover, 0.0, 1.0)  # nested outputs: a difference is >= 0 but for rounding
    black = rows[:, layout.TURN] == 1
    out: npt.NDArray[np.float64] = mover.copy()
    out[black] = mover[black][:, [3, 4, 5, 0, 1, 2]]
    return out


def stopped_outcomes(kernels: Kernels, start: Position, options: PlayoutOptions,
                     evaluator: Optional[Union[Builtin, Evaluator]], stopped: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
    """The probabilities of the six outcomes (:data:`OUTCOMES`), (N, 6), of the last rows ``stopped`` of the
    games a rollout from ``start`` with ``options`` stopped (winner -2): a bear-off row, under
    ``truncate="bearoff"``, by the exact tables; any other, stopped after ``truncate_plies``, by ``evaluator``
    (:func:`truncation_evaluator`)."""
    exact = bearoff_stops(stopped, options.truncate is not None)
    out = np.zeros((len(stopped), len(OUTCOMES)))
    if exact.any():
        out[exact] = row_outcomes(kernels, start.variant, start.flags, stopped[exact])
    if not exact.all():
        assert evaluator is not None
        out[~exact] = evaluated_outcomes(kernels, evaluator, stopped[~exact])
    return out
