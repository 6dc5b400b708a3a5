"""The outcome probabilities every evaluator returns, and what is derived from them (docs/rules.md,
Evaluation): written once, for every implementation and every evaluator.

An evaluator scores a position for its side to move with five probabilities, GNU Backgammon's order:
:data:`OUTPUTS`. They are nested: ``0 <= win_koks <= win_mars <= win <= 1`` and
``0 <= lose_koks <= lose_mars <= 1 - win``. A single win is ``win - win_mars``, a single loss
``1 - win - lose_mars``. Equity is cubeless: the points per game the side to move expects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
import numpy.typing as npt

from .. import layout
from ..errors import NardyError, field_error

__all__ = ["OUTPUTS", "EVALUATORS", "BUILTINS", "BuiltinFacts", "equity", "flipped", "check_probabilities", "terminal_probabilities"]

#: The five outputs of an evaluator, in its columns' order.
OUTPUTS = ("win", "win_mars", "win_koks", "lose_mars", "lose_koks")



@dataclass(frozen=True)
class BuiltinFacts:
    """What the code above the facts needs to know of one built-in evaluator, so that none of it tests the
    evaluator's name (:class:`~nardy_fast.evaluation.builtin.Builtin` reads these; each implementation's twin of
    it registers itself under its kind):

    - ``twin``: its reference twin, ``"module:function"`` of :mod:`nardy_fast.reference`, called with one row
      and the tables (``batch``: with the unfinished rows (n, 64) at once, returning their values (n, 5));
    - ``serves``: the variants it values (``None``: all);
    - ``races_only``: it values races and bear-offs only (a row in contact is an error);
    - ``by_parent``: it weighs a move by the position before it (given as its tables: whether that position
      was a race);
    - ``contact``: a built-in composite may value positions in contact with it;
    - ``composes``: it is the built-in composite (a part in contact, the race evaluator elsewhere);
    - ``network``: it values with a network (its own, or the one shipped for the row's variant);
    - ``tables``: ``"module:function"`` of :mod:`nardy_fast.evaluation` that makes what its kernels read for
      rows of one variant and flags, ``function(evaluator, kernels, rows, own)`` (``None``: nothing).
    """

    name: str
    twin: str
    batch: bool = False
    serves: Optional[tuple[str, ...]] = None
    races_only: bool = False
    by_parent: bool = False
    contact: bool = False
    composes: bool = False
    network: bool = False
    tables: Optional[str] = None


#: The built-in evaluators, in kind order: the one table of their facts (a new one is one entry here).
BUILTINS = (
    BuiltinFacts("race", "race_eval:race_evaluate", races_only=True, tables="race:tables_of"),
    BuiltinFacts("pubeval", "pubeval:pubeval_evaluate", serves=("short",), by_parent=True, contact=True),
    BuiltinFacts("heuristic", "heuristic:heuristic_evaluate", contact=True),
    # the composite serves what its part in contact serves: the shipped network's, all (CompositeBuiltin: its own)
    BuiltinFacts("net", "evaluate:composite_values", batch=True, composes=True, network=True, tables="composite:tables_of"),
    BuiltinFacts("network", "network:network_evaluate", batch=True, contact=True, network=True, tables="network:tables_of"),
)

#: The built-in evaluators, by name; a name's index is its kind in the compiled core. ``"net"`` is the composite
#: default (the shipped network in contact, the race evaluator in races and bear-offs: docs/rules.md,
#: Evaluation), ``"network"`` the shipped network alone.
EVALUATORS = tuple(facts.name for facts in BUILTINS)

Probabilities = npt.NDArray[np.float64]


def equity(probabilities: object) -> npt.NDArray[np.float64]:
    """Points per game (cubeless) of the side to move for probabilities (..., 5) in :data:`OUTPUTS` order:
    a win scores 1, a mars 2 and a koks 3, so ``2 * win - 1 + win_mars + win_koks - lose_mars - lose_koks``.
    One row (5,) gives one number (a NumPy float)."""
    p = check_probabilities(probabilities, "probabilities")
    result: npt.NDArray[np.float64] = 2.0 * p[..., 0] - 1.0 + p[..., 1] + p[..., 2] - p[..., 3] - p[..., 4]
    return result


def flipped(probabilities: object) -> Probabilities:
    """The same outcomes from the other side: its win is the first side's loss, and its mars and koks are the
    first side's losses with mars and koks (the turn passed between the two positions). ``probabilities``
    (..., 5) are checked as :func:`equity` checks them (a copy is read)."""
    p = check_probabilities(probabilities, "probabilities")
    out = np.empty_like(p)
    out[..., 0] = 1.0 - p[..., 0]
    out[..., 1] = p[..., 3]
    out[..., 2] = p[..., 4]
    out[..., 3] = p[..., 1]
    out[..., 4] = p[..., 2]
    return out


#: How far outside the nesting a computed probability may stray (rounding in a sum of products).
TOLERANCE = 1e-9


def check_probabilities(values: object, name: str, rows: int = -1) -> Probabilities:
    """``values`` as a float64 array (..., 5) of nested probabilities (see the module docstring), or a
    :class:`~nardy_fast.NardyError` naming ``name``: the wrong shape (with ``rows`` >= 0: not (rows, 5)), not
    real numbers, NaN, or values outside [0, 1] or not nested. The array is a copy of our own."""
    try:
        array = np.array(values)
    except (ValueError, TypeError):
        array = np.zeros(0, dtype=object)
    shape = f"({rows}, 5)" if rows >= 0 else "(..., 5)"
    if array.ndim < 1 or array.shape[-1] != 5 or (rows >= 0 and array.shape != (rows, 5)):
        raise field_error(NardyError, name, f"must be an array of shape {shape}", values)
    if array.dtype.kind not in "fiu":
        raise field_error(NardyError, name, "must hold real numbers (a float array)", values)
    p = array.astype(np.float64)
    if np.isnan(p).any():
        raise field_error(NardyError, name, "must not hold NaN", values)
    low, high = -TOLERANCE, 1.0 + TOLERANCE
    nested = (
        (p >= low).all(axis=-1)
        & (p <= high).all(axis=-1)
        & (p[..., 2] <= p[..., 1] + TOLERANCE)
        & (p[..., 1] <= p[..., 0] + TOLERANCE)
        & (p[..., 4] <= p[..., 3] + TOLERANCE)
        & (p[..., 3] <= 1.0 - p[..., 0] + TOLERANCE)
    )
    if not nested.all():
        where = np.unravel_index(int(np.argmin(nested)), nested.shape) if nested.ndim else ()
        problem = f"must be probabilities in [0, 1] with {OUTPUTS} nested (row {list(map(int, where))} is not)"
        raise field_error(NardyError, name, problem, values)
    return p


def terminal_probabilities(rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
    """The outcomes of finished games (n, 64) for their sides to move: certain (docs/rules.md, Game end and
    scoring)."""
    points = layout.points(rows)
    won = layout.winner(rows) == layout.turn(rows)
    mars, koks = (points >= 2).astype(np.float64), (points >= 3).astype(np.float64)
    out = np.zeros((len(rows), 5))
    out[:, 0] = won
    out[:, 1], out[:, 2] = np.where(won, mars, 0.0), np.where(won, koks, 0.0)
    out[:, 3], out[:, 4] = np.where(won, 0.0, mars), np.where(won, 0.0, koks)
    return out
