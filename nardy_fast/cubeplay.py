"""How players take their cube actions (docs/rules.md, The doubling cube; Match play): whether the side on roll
doubles, and whether the side doubled takes, passes or beavers, for a batch of positions at once, each with
its own cube and match. The strategies a :class:`~nardy_fast.policies.Greedy` may use:

* ``"janowski"``: the cube decision of :func:`nardy_fast.cube.cube_decision` from the evaluator's 0-ply
  outputs and the position's cube efficiency (:func:`nardy_fast.cubeful.efficiencies`, by its class and
  variant), at the match's score;
* ``"money"``: the same decision as if every game were a money game: a player that ignores the score;
* ``"threshold"``: wildbg's rule before its pull request 42: double when the doubler's cubeless equity is
  strictly between 0.4 and 0.6, take when it is below 0.5 (beyond 0.6 the doubler plays on: too good);
* ``"never"``: never double, always take (what a player without a cube strategy does).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Union

import numpy as np
import numpy.typing as npt

from . import layout
from .cube import SIDES, Cube, Match, cube_decision
from .cube.players import BEAVER, DOUBLE_WINDOW, PASS, RESPONSES, STRATEGIES, TAKE, TAKE_BELOW
from .cubeful import efficiencies
from .evaluation.evaluators import Builtin, Evaluator
from .evaluation.search import Search, equity_of
from .kernels import Kernels
from .variants import VARIANTS

__all__ = ["STRATEGIES", "RESPONSES", "PASS", "TAKE", "BEAVER", "DOUBLE_WINDOW", "TAKE_BELOW", "CubeState",
           "doubles", "responses", "is_double"]

Rows = npt.NDArray[np.int8]
Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]

#: A game's cube and match, as a player is asked about it.
CubeState = tuple[Cube, Match]


def is_double(action: str) -> bool:
    """Whether a proper action of :func:`~nardy_fast.cube.cube_decision` turns the cube (an optional double
    included: the doubler loses nothing by it)."""
    return action.startswith(("Double", "Redouble", "Optional"))


def _groups(rows: Rows, states: Sequence[CubeState], strategy: str) -> dict[tuple[Cube, Match, int], list[int]]:
    """The rows by their cube and match as the side on roll sees them (``strategy`` "money": money play at
    any score), turned so that it is White (its own cube White's, its score first), and by variant (whose
    match equity table a match reads): one :func:`~nardy_fast.cube.cube_decision` for each, as many rows
    share one."""
    groups: dict[tuple[Cube, Match, int], list[int]] = {}
    for i, (cube, match) in enumerate(states):
        black = bool(rows[i, layout.TURN])
        owner = cube.owner if cube.owner is None or not black else SIDES[cube.owner == "white"]
        seen = match if strategy == "janowski" or match.money else Match()
        if black and not seen.money:
            seen = Match(seen.length, (seen.score[1], seen.score[0]), crawford=seen.crawford)
        groups.setdefault((Cube(cube.value, owner), seen, int(rows[i, layout.VARIANT])), []).append(i)
    return groups


def _decisions(
    kernels: Kernels, evaluator: Union[Builtin, Evaluator], strategy: str, rows: Rows, states: Sequence[CubeState]
) -> tuple[Floats, npt.NDArray[np.bool_]]:
    """The normalised equities (n, 3: no double, double-take, double-pass) of the side on roll and whether it
    doubles, by ``strategy`` ("janowski" or "money")."""
    outputs = Search(kernels, evaluator).evaluate(rows)
    x = efficiencies(rows, 0)
    equities = np.zeros((len(rows), 3))
    double = np.zeros(len(rows), dtype=bool)
    for (cube, seen, variant), members in _groups(rows, states, strategy).items():
        index = np.array(members)
        decision = cube_decision(outputs[index], x[index], cube=cube, match=seen, side="white",
                                 variant=VARIANTS[variant])
        equities[index] = decision.equities.reshape(-1, 3)
        double[index] = [is_double(a) for a in decision.action]
    return equities, double


def doubles(
    kernels: Kernels, evaluator: Union[Builtin, Evaluator], strategy: str, rows: Rows, states: Sequence[CubeState]
) -> npt.NDArray[np.bool_]:
    """Whether the side on roll of each row doubles (its cube available to it, the match allowing it)."""
    if strategy == "never" or not len(rows):
        return np.zeros(len(rows), dtype=bool)
    if strategy == "threshold":
        equity = equity_of(Search(kernels, evaluator).evaluate(rows))
        low, high = DOUBLE_WINDOW
        window: npt.NDArray[np.bool_] = (equity > low) & (equity < high)
        return window
    return _decisions(kernels, evaluator, strategy, rows, states)[1]


def responses(
    kernels: Kernels, evaluator: Union[Builtin, Evaluator], strategy: str, rows: Rows, states: Sequence[CubeState]
) -> Ints:
    """How the side doubled answers the double of each row's side on roll (whose cube and match are
    ``states``): :data:`PASS`, :data:`TAKE` or, at money play with beavers, :data:`BEAVER` (where the doubler's
    equity after the take is below 0)."""
    if strategy == "never" or not len(rows):
        return np.full(len(rows), TAKE, dtype=np.int64)
    if strategy == "threshold":
        equity = equity_of(Search(kernels, evaluator).evaluate(rows))
        return np.where(equity < TAKE_BELOW, TAKE, PASS).astype(np.int64)
    equities = _decisions(kernels, evaluator, strategy, rows, states)[0]
    takes = equities[:, 1] <= equities[:, 2]  # taking leaves the doubler no more than passing would
    beavers = np.array([match.money and match.beavers for _, match in states], dtype=bool)
    out = np.where(takes, TAKE, PASS).astype(np.int64)
    out[takes & beavers & (equities[:, 1] < 0.0)] = BEAVER
    return out
