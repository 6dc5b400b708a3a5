"""The reference's built-in evaluators (docs/rules.md, Evaluation): one twin per evaluator of the compiled
core (:mod:`nardy_fast.reference.race_eval`, :mod:`~nardy_fast.reference.pubeval`,
:mod:`~nardy_fast.reference.heuristic`, :mod:`~nardy_fast.reference.network`), and the kernel that runs them
over rows, as the core's ``evaluate_rows`` does."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from .. import layout
from ..errors import NardyError
from ..evaluation.evaluators import CHECK_ONLY, terminal_probabilities
from ..evaluation.outcomes import EVALUATORS

__all__ = ["evaluate_rows"]

Twin = Callable[[npt.NDArray[np.int8], object], tuple[float, float, float, float, float]]


def twin(name: str) -> Twin:
    """The twin of built-in evaluator ``name`` (imported by those who evaluate)."""
    if name == "race":
        from .race_eval import race_evaluate

        return race_evaluate
    if name == "pubeval":
        from .pubeval import pubeval_evaluate

        return pubeval_evaluate
    from .heuristic import heuristic_evaluate

    return heuristic_evaluate


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
    if EVALUATORS[kind] == "net":
        from .network import network_evaluate  # the network values many rows at once

        over = layout.is_over(rows)
        out[over] = terminal_probabilities(rows[over])
        if not over.all():
            out[~over] = network_evaluate(rows[~over], tables)
        return -1
    evaluator = twin(EVALUATORS[kind])
    for i, row in enumerate(rows):
        if layout.is_over(row[None, :])[0]:
            out[i] = terminal_probabilities(row[None, :])[0]
            continue
        try:
            out[i] = evaluator(row, tables)
        except ValueError:
            return i
    return -1


