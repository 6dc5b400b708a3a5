"""Exceptions raised for bad input.

Every error is a ``ValueError`` subclass whose message names the offending field and quotes the value, so
that a caller can tell what to fix without reading the library's source. Both implementations raise the same
class with the same message for the same input. A quoted value is cut to :data:`QUOTE_LIMIT` characters, so
that a huge input gives a short message.
"""

from __future__ import annotations

__all__ = [
    "NardyError",
    "InvalidPositionError",
    "InvalidNotationError",
    "InvalidDiceError",
    "IllegalMoveError",
    "SearchLimitError",
    "NardyWarning",
    "QUOTE_LIMIT",
    "quote",
    "field_error",
]

#: The most characters of an input that an error message quotes.
QUOTE_LIMIT = 200


class NardyError(ValueError):
    """Base class of every error this package raises for bad input."""


class InvalidPositionError(NardyError):
    """A position (board, counts, turn, flags, pending list) is not one the rules allow: 15 checkers a side on
    the board, the bar and off, a bar only in short nardy, no illegal block, a possible pending list."""


class InvalidNotationError(InvalidPositionError):
    """A position text (``Position.from_text``) is malformed."""


class InvalidDiceError(NardyError):
    """A roll is malformed, out of range, missing, or given together with a pending list."""


class IllegalMoveError(NardyError):
    """A move is malformed or not among the legal moves for the roll."""


class SearchLimitError(NardyError):
    """A move search needed more positions than its ``max_results`` allows."""


class NardyWarning(UserWarning):
    """A request the package carries out, though it is probably not what was meant (e.g. a stratified rollout
    whose games do not balance the first rolls)."""


def quote(value: object) -> str:
    """``repr(value)``, cut to :data:`QUOTE_LIMIT` characters (its start and end kept)."""
    try:
        text = repr(value)
    except Exception:  # a hostile __repr__ must not replace the error being reported
        text = f"<{type(value).__name__} object>"
    if len(text) <= QUOTE_LIMIT:
        return text
    tail = QUOTE_LIMIT // 4
    return f"{text[: QUOTE_LIMIT - tail - 5]} ... {text[-tail:]}"


def field_error(cls: type[NardyError], field: str, problem: str, value: object) -> NardyError:
    """Build ``cls`` with the house message format: ``<field>: <problem> (got <value!r>)``."""
    return cls(f"{field}: {problem} (got {quote(value)})")
