"""Exceptions raised for bad input.

Every error is a ``ValueError`` subclass whose message names the offending field and quotes the value, so
that a caller can tell what to fix without reading the library's source. Both implementations raise the same
class with the same message for the same input. A quoted value is cut to :data:`QUOTE_LIMIT` characters, the
field to :data:`FIELD_LIMIT` and the problem to :data:`PROBLEM_LIMIT`, so that a huge input gives a short
message wherever it appears: a field may be a name the user made up (an unknown rule flag's, an unknown
option's), a problem may repeat another library's message or a file's name.
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
    "FIELD_LIMIT",
    "PROBLEM_LIMIT",
    "cut",
    "quote",
    "field_error",
    "uninitialised_error",
]

#: The most characters of an input that an error message quotes.
QUOTE_LIMIT = 200
#: The most characters of a field's name that an error message gives.
FIELD_LIMIT = 100
#: The most characters of the problem that an error message states.
PROBLEM_LIMIT = 2 * QUOTE_LIMIT


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


def cut(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` cut to at most ``limit`` characters (``limit`` >= 10), its start and end kept around ``...``:
    the start says what the text is, the end often where it went wrong."""
    if len(text) <= limit:
        return text
    tail = limit // 4
    return f"{text[: limit - tail - 5]} ... {text[-tail:]}"


def quote(value: object) -> str:
    """``repr(value)``, cut to :data:`QUOTE_LIMIT` characters (its start and end kept)."""
    try:
        text = repr(value)
    except Exception:  # a hostile __repr__ must not replace the error being reported
        text = f"<{type(value).__name__} object>"
    return cut(text, QUOTE_LIMIT)


def _plain(text: object) -> str:
    """A field or problem as plain text: a ``str`` (a subclass read as its plain value, its own ``__str__``
    and ``__format__`` never called), anything else quoted."""
    return str.__str__(text) if isinstance(text, str) else quote(text)


def field_error(cls: type[NardyError], field: str, problem: str, value: object) -> NardyError:
    """Build ``cls`` with the house message format: ``<field>: <problem> (got <value!r>)``, each part cut
    (:data:`FIELD_LIMIT`, :data:`PROBLEM_LIMIT`, :data:`QUOTE_LIMIT`)."""
    return cls(f"{cut(_plain(field), FIELD_LIMIT)}: {cut(_plain(problem), PROBLEM_LIMIT)} (got {quote(value)})")


def uninitialised_error(kind: str) -> NardyError:
    """The error for an object made with ``__new__`` and never initialised."""
    return NardyError(f"{kind.lower()}: was not made by the package's constructors (got an uninitialised {kind})")
