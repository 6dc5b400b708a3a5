"""A built-in evaluator as a value (docs/rules.md, Evaluation): its name, and its kind in the compiled core."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import NardyError, field_error, uninitialised_error
from ..inputs import choice
from .outcomes import EVALUATORS

__all__ = ["Builtin"]


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

    def __repr__(self) -> str:
        return repr(self.name)
