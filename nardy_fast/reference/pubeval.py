"""The reference's pubeval (docs/rules.md, Evaluation): Tesauro's linear evaluator of short nardy, the twin of
``pubeval_evaluate`` in ``src_pyx/evaluators/pubeval.pxi``. The weights, the input encoding, the choice of weight set and
the map from score to outputs are in :mod:`nardy_fast.evaluation.pubeval` (read its docstring first); this
module reads a row the way that docstring says and adds the same doubles in the same order as the core.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import numpy.typing as npt

from ..board import to_mover
from ..evaluation.pubeval import CONTACT, RACE, WEIGHTS, bar_term, off_term, point_term, probabilities
from ..layout import unpack
from ..race import is_race

__all__ = ["pubeval_evaluate", "pubeval_score"]


def pubeval_score(row: npt.NDArray[np.int8], race: Optional[bool] = None) -> float:
    """Tesauro's score of a short nardy row (64,) for the side that is *not* to move, the side that has just
    moved: the race weights if the row is a race (docs/rules.md, Races and bear-off positions), else the
    contact weights; block by block from our point 24 down to our point 1, then their bar, then our checkers
    borne off. ``race`` chooses the weights instead, as Tesauro does by the position before the move (which
    the evaluator cannot see)."""
    state = unpack(row)
    we = "black" if state.turn == "white" else "white"
    side = to_mover(state.variant, we, state.board, state.bar, state.off)
    weights = WEIGHTS[RACE if (is_race(state) if race is None else race) else CONTACT]
    score = 0.0
    for block in range(24):
        point = 24 - block
        score += point_term(weights, block, side.x[point] - side.y[point])
    score += bar_term(weights, side.ybar)
    score += off_term(weights, side.xoff)
    return score


def pubeval_evaluate(row: npt.NDArray[np.int8], tables: object) -> tuple[float, float, float, float, float]:
    """The outputs of an unfinished short nardy row (64,) for its side to move: the logistic of minus the
    score of the side that has just moved over ``SCALE``, no mars, no koks. ``tables`` is ``None`` (the row's
    own weight set) or whether the position before the move was a race (its weight set, as Tesauro's program
    chooses: where the search values a position's children)."""
    return probabilities(pubeval_score(row, None if tables is None else bool(tables)))
