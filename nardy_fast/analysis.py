"""What the engine says of a position: its race values, evaluation and hints (docs/rules.md, Races and bear-off
positions; Evaluation and search). A base of each implementation's assembled ``Position`` class (beside the
shared ``nardy_fast.position.Position``, which knows the rules alone), so that the rules stand below the engine;
each method uses the position's own implementation (its tables and kernels)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, Optional

import numpy as np
import numpy.typing as npt

from .kernels import Kernels, kernels_of
from .position import Position

if TYPE_CHECKING:
    from .bearoff.tables import RaceProbabilities
    from .position import Move

__all__ = ["Analysis", "AnalysedPosition"]


class Analysis:
    """Race values, evaluation and hints of a position."""

    __slots__ = ()

    def race_probabilities(self) -> RaceProbabilities:
        """Single win, win with mars, single loss, loss with mars for the side to move in a bear-off
        (:func:`nardy_fast.bearoff.race_probabilities`: exact where both sides have at most 6 checkers)."""
        from .bearoff.values import race_probabilities

        return race_probabilities(self)  # type: ignore[arg-type]

    def evaluate(self, evaluator: object = "net") -> npt.NDArray[np.float64]:
        """This position's five outcome probabilities for its side to move by ``evaluator``
        (:func:`nardy_fast.evaluate`); :func:`nardy_fast.equity` of them is its points per game."""
        from .evaluation.evaluators import evaluate

        return evaluate(kernels_of(self), self, evaluator)

    def hint(
        self, roll: Optional[Sequence[int]] = None, *, evaluator: object = "net", plies: int = 0
    ) -> list[tuple[Move, float]]:
        """Every legal move for ``roll`` (``None`` for a pending list) ranked best first, as ``(move,
        equity)`` pairs: the equity (cubeless points per game for this position's side to move) of the
        position each move leads to, by ``evaluator`` (:func:`nardy_fast.evaluate`) searched ``plies`` deep.

        ``plies=0`` values each result by the evaluator; ``plies=1`` averages over the 21 rolls that follow
        (the opponent's, or this side's again after an extra roll; a transfer segment is played within its
        turn) the value of the best reply; ``plies=2`` searches one more level, through GNU Backgammon-style
        move filters (docs/rules.md, Evaluation and search): the moves a 2-ply hint cuts keep their 0-ply
        equity and follow the others. Ties keep ``legal_moves`` order. The compiled core searches built-in
        evaluators in C without the GIL."""
        from .policies import hint_moves

        return hint_moves(kernels_of(self), self, roll, evaluator, plies)  # type: ignore[arg-type]


class AnalysedPosition(Position, Analysis):
    """The base of each implementation's ``Position`` (``nardy_fast.Position`` is one): the rules of the
    shared :class:`~nardy_fast.position.Position` and the engine's judgement of :class:`Analysis`."""

    __slots__ = ()
    __doc__ = Position.__doc__  # help() shows the shared documentation
    #: What the position's implementation supplies (:class:`~nardy_fast.kernels.Kernels`): its moves, tables,
    #: evaluators and games, which the engine's methods here use.
    kernels: ClassVar[Kernels]
