"""A built-in evaluator as a value (docs/rules.md, Evaluation): its name, its kind in the implementations, and
what the engine asks of it, answered from its facts (:data:`~nardy_fast.evaluation.outcomes.BUILTINS`), so that
no engine module tests an evaluator's name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Optional, cast

import numpy as np
import numpy.typing as npt

from ..errors import NardyError, field_error, uninitialised_error
from ..inputs import choice
from .outcomes import BUILTINS, EVALUATORS, BuiltinFacts

if TYPE_CHECKING:
    from ..kernels import Kernels

__all__ = ["Builtin"]

Rows = npt.NDArray[np.int8]
TablesOf = Callable[["Builtin", "Kernels", Rows, bool], object]


@dataclass(frozen=True)
class Builtin:
    """A built-in evaluator: its ``name`` in :data:`EVALUATORS` (its ``kind`` is the index there). An unknown
    name is refused here, not where the evaluator is first used."""

    name: str

    def __post_init__(self) -> None:
        known = choice(self.name, EVALUATORS)
        if known is None:
            raise field_error(NardyError, "name", f"must be one of {EVALUATORS}", self.name)
        object.__setattr__(self, "name", known)  # a str subclass's own methods are never called again

    def __getattr__(self, name: str) -> object:
        # only for attributes never set: an object made with __new__ alone (its class's or a subclass's fields)
        if any(name in getattr(klass, "__annotations__", {}) for klass in type(self).__mro__):
            raise uninitialised_error(type(self).__name__)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def kind(self) -> int:
        """The index of the evaluator in EVALUATORS."""
        return EVALUATORS.index(self.name)

    @property
    def facts(self) -> BuiltinFacts:
        """The evaluator's facts (:class:`~nardy_fast.evaluation.outcomes.BuiltinFacts`)."""
        return BUILTINS[self.kind]

    def served(self) -> Optional[tuple[str, ...]]:
        """The variants the evaluator values, ``None`` for all."""
        return self.facts.serves

    def tables_for(self, kernels: Kernels, rows: Rows, own: bool = False) -> object:
        """What the evaluator's kernels read for ``rows`` of one variant and flags (``None``: nothing), made by
        the engine function its facts name: the race evaluator's bear-off tables from ``kernels``'s builders,
        a network's weights, the composite's ``(race tables, contact kind, contact tables)``. ``own``: see
        :func:`~nardy_fast.evaluation.evaluators.tables_for`."""
        where = self.facts.tables
        if where is None or not len(rows):
            return None
        module, function = where.split(":")
        # imported where first used: the modules that build tables stand on this one
        made = cast(TablesOf, getattr(import_module(f"{__package__}.{module}"), function))
        return made(self, kernels, rows, own)

    def __repr__(self) -> str:
        return repr(self.name)
