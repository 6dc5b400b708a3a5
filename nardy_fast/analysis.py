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
    from .cube import Cube, CubeDecision, Match, MatchEquityTable
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
        self, roll: Optional[Sequence[int]] = None, *, evaluator: object = "net", plies: int = 0,
        cube: Optional[Cube] = None, match: Optional[Match] = None, table: Optional[MatchEquityTable] = None,
    ) -> list[tuple[Move, float]]:
        """Every legal move for ``roll`` (``None`` for a pending list) ranked best first, as ``(move,
        equity)`` pairs: the equity (cubeless points per game for this position's side to move) of the
        position each move leads to, by ``evaluator`` (:func:`nardy_fast.evaluate`) searched ``plies`` deep.

        ``plies=0`` values each result by the evaluator; ``plies=1`` averages over the 21 rolls that follow
        (the opponent's, or this side's again after an extra roll; a transfer segment is played within its
        turn) the value of the best reply; ``plies=2`` searches one more level, through GNU Backgammon-style
        move filters (docs/rules.md, Evaluation and search): the moves a 2-ply hint cuts keep their 0-ply
        equity and follow the others. Ties keep ``legal_moves`` order. The compiled core searches built-in
        evaluators in C without the GIL.

        With ``cube`` or ``match`` (and ``table``, a match's equity table) the moves are ranked by their
        cubeful values instead (:meth:`cube_decision`'s search; docs/rules.md, Cubeful search): entries
        ``MoneyHint(move, equity)`` at money play, points per unit of the cube, or ``MatchHint(move, mwc)``
        in a match, the chances of winning the match (both unpack as pairs)."""
        if cube is not None or match is not None or table is not None:
            from .cubeful import cubeful_hint

            # MoneyHint and MatchHint are (move, value) pairs
            return cubeful_hint(kernels_of(self), self, roll, evaluator, plies, cube, match, table)  # type: ignore[arg-type, return-value]
        from .policies import hint_moves

        return hint_moves(kernels_of(self), self, roll, evaluator, plies)  # type: ignore[arg-type]

    def cube_decision(
        self, *, evaluator: object = None, plies: int = 0, cube: Optional[Cube] = None,
        match: Optional[Match] = None, table: Optional[MatchEquityTable] = None,
    ) -> CubeDecision:
        """The cube decision of this position's side to move (docs/rules.md, The doubling cube): its cubeful
        values of no double, double-take and double-pass (``no_double``, ``double_take``, ``double_pass``:
        points per unit of the current cube at money play, chances of winning the match under ``match``),
        the action in GNU Backgammon's words, the take and cash points and the cubeless outputs it came from
        (:class:`~nardy_fast.cube.CubeDecision`). ``evaluator`` as :func:`nardy_fast.evaluate` (``None``:
        ``"net"``); ``cube`` (default centred at 1) and ``match`` (default money play) as
        :class:`~nardy_fast.Cube` and :class:`~nardy_fast.Match`; ``table`` a match's equity table (default
        the variant's, :func:`~nardy_fast.cube.met.default_table`). ``plies=0`` applies Janowski's formulas to the evaluator's outputs with the cube
        efficiency of the position's class and variant; deeper, the cubeful search of GNU Backgammon
        (docs/rules.md, Cubeful search)."""
        from .cubeful import cube_decisions

        return cube_decisions(kernels_of(self), self, evaluator, cube, match, table, plies)


class AnalysedPosition(Position, Analysis):
    """The base of each implementation's ``Position`` (``nardy_fast.Position`` is one): the rules of the
    shared :class:`~nardy_fast.position.Position` and the engine's judgement of :class:`Analysis`."""

    __slots__ = ()
    __doc__ = Position.__doc__  # help() shows the shared documentation
    #: What the position's implementation supplies (:class:`~nardy_fast.kernels.Kernels`): its moves, tables,
    #: evaluators and games, which the engine's methods here use.
    kernels: ClassVar[Kernels]
