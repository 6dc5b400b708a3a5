"""Exceptions raised for bad input.

Every error is a ``ValueError`` subclass whose message names the offending field and quotes the value, so
that a caller can tell what to fix without reading the library's source. Both implementations raise the same
class with the same message for the same input.
"""

from __future__ import annotations

__all__ = [
    "NardyError",
    "InvalidPositionError",
    "InvalidNotationError",
    "InvalidDiceError",
    "IllegalMoveError",
    "field_error",
]


class NardyError(ValueError):
    """Base class of every error this package raises for bad input."""


class InvalidPositionError(NardyError):
    """A position (board, counts, turn, flags, pending list) breaks a rule of RULES.md §1.3."""


class InvalidNotationError(InvalidPositionError):
    """A position text (``Position.from_text``) is malformed."""


class InvalidDiceError(NardyError):
    """A roll is malformed, out of range, missing, or given together with a pending list."""


class IllegalMoveError(NardyError):
    """A move is malformed or not among the legal moves for the roll."""


def field_error(cls: type[NardyError], field: str, problem: str, value: object) -> NardyError:
    """Build ``cls`` with the house message format: ``<field>: <problem> (got <value!r>)``."""
    return cls(f"{field}: {problem} (got {value!r})")
