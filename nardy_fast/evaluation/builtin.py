"""A built-in evaluator as a value (docs/rules.md, Evaluation): its name, and its kind in the compiled core."""

from __future__ import annotations

from dataclasses import dataclass

from .outcomes import EVALUATORS

__all__ = ["Builtin"]


@dataclass(frozen=True)
class Builtin:
    """A built-in evaluator: its ``name`` in :data:`EVALUATORS` (its ``kind`` is the index there)."""

    name: str

    @property
    def kind(self) -> int:
        """The index of the evaluator in EVALUATORS."""
        return EVALUATORS.index(self.name)

    def __repr__(self) -> str:
        return repr(self.name)
