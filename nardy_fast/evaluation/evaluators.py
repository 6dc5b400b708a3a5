"""Which evaluators there are and how rows reach them, for every implementation (docs/rules.md, Evaluation).

An evaluator is a built-in one, named by a string of :data:`~nardy_fast.evaluation.outcomes.EVALUATORS`
(:class:`Builtin`: the implementation's own code, in C for the compiled core), or any object with an
``evaluate(rows)`` method: a NumPy, PyTorch or JAX model that takes packed rows (n, 64) ``int8`` (read-only
copies) and returns (n, 5) probabilities in :data:`~nardy_fast.evaluation.outcomes.OUTPUTS` order for each
row's side to move. :func:`evaluate_rows` is the one place both kinds are called: a finished game is never
shown to an evaluator (its outcome is known), and what a Python evaluator returns is checked. A
:class:`~nardy_fast.evaluation.composite.Composite` of parts that are not all built-in is dispatched here too,
each position class's rows given to its own part (:func:`composite_rows`).
"""

from __future__ import annotations

from typing import Optional, Union

import numpy as np
import numpy.typing as npt

from .. import layout
from ..batch import as_array, check_rows, handed_out
from ..errors import InvalidPositionError, NardyError, field_error
from ..kernels import EvaluateKernel, Kernels
from ..layout import WIDTH
from ..position import Position
from ..variants import VARIANTS
from .builtin import Builtin
from .classes import BEAROFF, CONTACT, RACE, classes_of
from .composite import Composite, Evaluator, resolve_evaluator
from .constants import CHECK_ONLY
from .outcomes import BUILTINS, check_probabilities, terminal_probabilities

__all__ = [
    "Builtin",
    "Evaluator",
    "EvaluatorLike",
    "EvaluateKernel",
    "resolve_evaluator",
    "evaluate",
    "evaluate_rows",
    "check_positions",
    "CHECK_ONLY",
    "terminal_probabilities",
    "tables_for",
    "served",
]

Rows = npt.NDArray[np.int8]
Floats = npt.NDArray[np.float64]

EvaluatorLike = Union[str, Builtin, Composite, Evaluator]

#: The variants each built-in evaluator serves (the rest: all; a :class:`~nardy_fast.evaluation.network.Network`
#: serves its own variant only): read from their facts.
SERVES = {facts.name: facts.serves for facts in BUILTINS if facts.serves is not None}


def served(evaluator: Builtin) -> Optional[tuple[str, ...]]:
    """The variants ``evaluator`` serves, ``None`` for all (a built-in composite: those of its part in
    contact): :meth:`Builtin.served`."""
    return evaluator.served()


def check_served(evaluator: Builtin, rows: Rows, races: bool = True) -> None:
    """A :class:`~nardy_fast.NardyError` for the first row of a variant ``evaluator`` does not serve, or (the
    race evaluator, with ``races``) the first unfinished row that is not a race."""
    serves = served(evaluator)
    if serves is not None:
        bad = np.flatnonzero(~np.isin(rows[:, layout.VARIANT], [VARIANTS.index(v) for v in serves]))
        if bad.size:
            i = int(bad[0])
            problem = f"evaluates {' and '.join(serves)} nardy only (rows[{i}] is {VARIANTS[rows[i, layout.VARIANT]]})"
            raise field_error(NardyError, "evaluator", problem, evaluator)
    if evaluator.facts.races_only and races:
        bad = np.flatnonzero(~layout.is_race(rows) & ~layout.is_over(rows))
        if bad.size:
            raise not_race(rows, int(bad[0]))


def not_race(rows: Rows, index: int) -> NardyError:
    """The race evaluator's error for a row in contact."""
    from .race import not_a_race_error

    return not_a_race_error(rows[index], f"rows[{index}]")


def tables_for(kernels: Kernels, evaluator: Builtin, rows: Rows, own: bool = False) -> object:
    """What the built-in ``evaluator`` reads for ``rows`` of one variant and flags: the race evaluator's
    bear-off tables from ``kernels``'s builders, a network's weights (``"network"``: those shipped for the
    rows' variant), the composite's ``(race tables, contact kind, contact tables)`` (``"net"``), else
    ``None``. The composite's race tables serve every position ``own`` rows are or (not ``own``: a hint or a
    game in ``kernels``'s own search) lead to; an implementation without a search of its own (the reference)
    values rows with their own tables as its search reaches them."""
    return evaluator.tables_for(kernels, rows, own)


def _groups(rows: Rows, context: npt.NDArray[np.int64]) -> list[Optional[npt.NDArray[np.int64]]]:
    """The indices of rows sharing variant, rule-flag columns and ``context`` (one set of tables each);
    ``[None]`` when all rows do (the common case: no copy of them is needed)."""
    columns = rows[:, [layout.VARIANT, layout.FLAGS]].astype(np.int64)
    keys = (columns[:, 0] * 256 + (columns[:, 1] & 0xFF)) * 4 + context + 1
    if (keys == keys[0]).all():
        return [None]
    _, inverse = np.unique(keys, return_inverse=True)
    inverse = inverse.reshape(-1)
    return [np.flatnonzero(inverse == g) for g in range(int(inverse.max()) + 1)]


def check_positions(kernels: Kernels, rows: Rows) -> Rows:
    """``rows`` (n, 64), once ``kernels``'s kernel found every one a position the rules allow; else the error
    of the first that is not, naming it (``rows[i]: ``) and the field at fault. The one gate of
    ``nardy_fast.evaluate``, for every evaluator and both implementations alike: no evaluator, built-in or
    the caller's, is shown a row that is no position (16 checkers, padding not zero, a variant column out of
    range), which one implementation would value and the other refuse."""
    bad = kernels.evaluate(rows, CHECK_ONLY, None, np.empty((len(rows), 5)))
    if bad < 0:
        return rows
    try:
        layout.unpack(rows[bad])
    except NardyError as error:
        raise type(error)(f"rows[{bad}]: {error}") from None
    # the kernel refused a row that unpack accepts: the two checks disagree, which their tests rule out
    raise field_error(InvalidPositionError, f"rows[{bad}]", "is not a position the rules allow", rows[bad].tolist())


def evaluate(kernels: Kernels, rows: object, evaluator: object) -> Floats:
    """:func:`nardy_fast.evaluate` with ``kernels``: the evaluator resolved, the rows copied and checked (one
    row or ``Position``: one vector of values), then valued."""
    checked = resolve_evaluator(evaluator)
    if isinstance(rows, Position):
        rows = rows.to_array()
    array = as_array(rows, "rows", NardyError, f"(N, {WIDTH})")
    values = evaluate_rows(kernels, check_positions(kernels, check_rows(array, "rows")), checked)
    return values[0] if array.ndim == 1 else values


def evaluate_rows(
    kernels: Kernels,
    rows: Rows,
    evaluator: Union[Builtin, Composite, Evaluator],
    parents: Optional[Rows] = None,
) -> Floats:
    """The values (n, 5) of checked rows (n, 64) for their sides to move by ``evaluator`` with ``kernels``'s
    kernels: finished games their outcome, the others the evaluator's. ``parents`` (n, 64), when the rows are
    children, are the positions they were moved from: pubeval weighs a move by the weight set of the position
    before it, as Tesauro's program does (:mod:`nardy_fast.evaluation.pubeval`)."""
    out = np.zeros((len(rows), 5))
    if not len(rows):
        return out
    if isinstance(evaluator, Builtin):
        # the kernels value finished games by their outcome, and report a row the evaluator cannot value
        check_served(evaluator, rows, races=False)
        context = np.full(len(rows), -1, dtype=np.int64)
        if evaluator.facts.by_parent and parents is not None:
            context = layout.is_race(parents).astype(np.int64)
        for group in _groups(rows, context):
            index = np.arange(len(rows)) if group is None else group
            part = np.ascontiguousarray(rows if group is None else rows[group])
            values = out if group is None else np.zeros((len(index), 5))
            if evaluator.facts.races_only and layout.is_bearoff(part).any():
                # a contact row is refused before the tables for the bear-offs are built (slowly, maybe)
                contact = np.flatnonzero(~layout.is_race(part) & ~layout.is_over(part))
                if contact.size:
                    raise not_race(rows, int(index[contact[0]]))
            tables = tables_for(kernels, evaluator, part, own=True) if context[index[0]] < 0 else bool(context[index[0]])
            bad = kernels.evaluate(part, evaluator.kind, tables, values)
            if bad >= 0:
                raise not_race(rows, int(index[bad]))
            if group is not None:
                out[group] = values
        return out
    if isinstance(evaluator, Composite):
        return composite_rows(kernels, rows, evaluator, parents)
    over = layout.is_over(rows)
    if over.any():
        out[over] = terminal_probabilities(rows[over])
    live = np.flatnonzero(~over)
    if not live.size:
        return out
    shown = handed_out(np.ascontiguousarray(rows[live]))
    out[live] = check_probabilities(evaluator.evaluate(shown), "evaluator", rows=len(live))
    return out


def composite_rows(kernels: Kernels, rows: Rows, composite: Composite, parents: Optional[Rows]) -> Floats:
    """The values (n, 5) of checked rows by ``composite``: each class's rows given to its own evaluator (one
    call each), a finished game valued by its outcome."""
    classes = classes_of(rows)
    out = terminal_probabilities(rows)  # replaced below wherever the game goes on
    for number, part in zip((BEAROFF, RACE, CONTACT), composite.parts()):
        index = np.flatnonzero(classes == number)
        if index.size:
            resolved = resolve_evaluator(part)
            before = None if parents is None else parents[index]
            out[index] = evaluate_rows(kernels, np.ascontiguousarray(rows[index]), resolved, before)
    return out
