"""Which implementation each ``Position`` class belongs to: filled by :class:`~nardy_fast.implementation.
Implementation` records as they are made, read by code that must use the tables or kernels of a position's
own implementation (its race values, say) without importing either implementation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import NardyError, field_error

if TYPE_CHECKING:
    from .implementation import Implementation
    from .position import Position

__all__ = ["register", "implementation_of"]

_BY_POSITION: dict[type[Position], Implementation] = {}


def register(record: Implementation) -> None:
    """Record ``record`` as the implementation of its ``Position`` class."""
    _BY_POSITION[record.Position] = record


def implementation_of(position: object) -> Implementation:
    """The implementation of ``position``: the one whose ``Position`` class its class is or derives from. Any
    other value is a :class:`~nardy_fast.NardyError` naming ``position``."""
    for cls in type(position).__mro__:
        if cls in _BY_POSITION:
            return _BY_POSITION[cls]
    raise field_error(NardyError, "position", "must be a Position of the reference or the core", position)
