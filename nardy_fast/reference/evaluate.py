"""The reference's built-in evaluators (docs/rules.md, Evaluation): one twin per evaluator of the compiled
core (:mod:`nardy_fast.reference.race_eval`, :mod:`~nardy_fast.reference.pubeval`,
:mod:`~nardy_fast.reference.heuristic`, :mod:`~nardy_fast.reference.network`), the position classifier
``position_class`` and the composite ``"net"`` that dispatches by it, and the kernel that runs them over rows,
as the core's ``evaluate_rows`` does."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import cast

import numpy as np
import numpy.typing as npt

from .. import layout
from ..errors import NardyError
from ..evaluation.classes import BEAROFF, CONTACT, OVER, RACE, TWO_SIDED_CHECKERS
from ..evaluation.constants import CHECK_ONLY
from ..evaluation.outcomes import BUILTINS, terminal_probabilities

__all__ = ["evaluate_rows", "classify_rows", "position_class", "composite_evaluate"]

Twin = Callable[[npt.NDArray[np.int8], object], tuple[float, float, float, float, float]]
Batch = Callable[[npt.NDArray[np.int8], object], npt.NDArray[np.float64]]


def twin(kind: int) -> Callable[[npt.NDArray[np.int8], object], object]:
    """The twin of the built-in evaluator of ``kind``, named by its facts (``BUILTINS[kind].twin``: imported
    where first used, as those who evaluate need it): of one row, or of rows at once (its facts' ``batch``)."""
    module, function = BUILTINS[kind].twin.split(":")
    found: Callable[[npt.NDArray[np.int8], object], object] = getattr(import_module(f"{__package__}.{module}"), function)
    return found


def _values(kind: int, rows: npt.NDArray[np.int8], tables: object, out: npt.NDArray[np.float64]) -> int:
    """Unfinished checked ``rows`` valued by the twin of ``kind`` into ``out``: -1, or the index of the first
    row it cannot value (a one-row twin's ``ValueError``: the race evaluator's row in contact)."""
    evaluator = twin(kind)
    if BUILTINS[kind].batch:
        out[:] = cast(Batch, evaluator)(rows, tables)
        return -1
    for i, row in enumerate(rows):
        try:
            out[i] = cast(Twin, evaluator)(row, tables)
        except ValueError:
            return i
    return -1


def position_class(row: npt.NDArray[np.int8]) -> int:
    """The class of the checked ``row`` (64,) (:mod:`nardy_fast.evaluation.classes`, docs/rules.md, Evaluation,
    Position classes): over, a bear-off inside the exact two-sided tables, a race, or contact."""
    if int(row[layout.OFF]) == 15 or int(row[layout.OFF + 1]) == 15:
        return OVER
    one = row[None, :]
    if not bool(layout.is_race(one)[0]):
        return CONTACT
    small = 15 - int(row[layout.OFF]) <= TWO_SIDED_CHECKERS and 15 - int(row[layout.OFF + 1]) <= TWO_SIDED_CHECKERS
    if small and int(row[layout.NPENDING]) == 0 and bool(layout.is_bearoff(one)[0]):
        return BEAROFF
    return RACE


def composite_evaluate(rows: npt.NDArray[np.int8], tables: object, out: npt.NDArray[np.float64]) -> None:
    """The composite ``"net"`` (:mod:`nardy_fast.evaluation.composite`) of unfinished checked rows (n, 64) into
    ``out`` (n, 5): the race evaluator (``tables[0]``, exact in the bear-off class) for races and bear-offs,
    the built-in evaluator of kind ``tables[1]`` (its tables ``tables[2]``) in contact."""
    from .race_eval import race_evaluate

    race_tables, contact, contact_tables = cast(tuple[object, int, object], tables)
    contact_rows = []
    for i, row in enumerate(rows):
        if position_class(row) == CONTACT:
            contact_rows.append(i)
        else:
            out[i] = race_evaluate(row, race_tables)
    if not contact_rows:
        return
    index = np.array(contact_rows)
    values = np.empty((index.size, 5))
    _values(contact, rows[index], contact_tables, values)  # pubeval's tables are None there: a row's own weights
    out[index] = values


def composite_values(rows: npt.NDArray[np.int8], tables: object) -> npt.NDArray[np.float64]:
    """:func:`composite_evaluate` as a twin of rows at once (its facts' ``twin``): the values (n, 5)."""
    out = np.empty((len(rows), 5))
    composite_evaluate(rows, tables, out)
    return out


def evaluate_rows(rows: npt.NDArray[np.int8], kind: int, tables: object, out: npt.NDArray[np.float64]) -> int:
    """Evaluate checked rows (N, 64) with built-in evaluator ``kind`` into ``out`` (N, 5): -1, or the index
    of the first row the evaluator cannot value (the race evaluator's position in contact). With ``kind``
    ``CHECK_ONLY``, only the rows' checks: -1, or the first row :func:`~nardy_fast.layout.unpack` refuses."""
    if kind == CHECK_ONLY:
        for i, row in enumerate(rows):
            try:
                layout.unpack(row)
            except NardyError:
                return i
        return -1
    over = layout.is_over(rows)
    out[over] = terminal_probabilities(rows[over])
    live = np.flatnonzero(~over)
    if not live.size:
        return -1
    values = np.empty((live.size, 5))
    bad = _values(kind, rows[live], tables, values)
    if bad >= 0:
        return int(live[bad])
    out[live] = values
    return -1


def classify_rows(rows: npt.NDArray[np.int8], out: npt.NDArray[np.int8]) -> int:
    """The class of each row (N, 64) into ``out`` (N,) (:func:`position_class`), as the core's
    ``classify_rows``: -1, or the index of the first row :func:`~nardy_fast.layout.unpack` refuses."""
    for i, row in enumerate(rows):
        try:
            layout.unpack(row)
        except NardyError:
            return i
        out[i] = position_class(row)
    return -1
