"""Evaluation and search, written once for every implementation (docs/rules.md, Evaluation and search): the
five outcome probabilities and equity (:mod:`~nardy_fast.evaluation.outcomes`), the evaluators and how rows
reach them (:mod:`~nardy_fast.evaluation.evaluators`), the built-in evaluators' coefficients (``pubeval``,
``heuristic``, ``race_formula``), the position classes (:mod:`~nardy_fast.evaluation.classes`), the composite
evaluators (:mod:`~nardy_fast.evaluation.composite`) and the n-ply search (:mod:`~nardy_fast.evaluation.search`)."""

from __future__ import annotations

from .classes import CLASSES, classify
from .composite import Composite
from .outcomes import EVALUATORS, OUTPUTS, equity, flipped

__all__ = ["EVALUATORS", "OUTPUTS", "CLASSES", "Composite", "classify", "equity", "flipped"]
