"""Which implementation each ``Position`` class belongs to: filled by :class:`~nardy_fast.implementation.
Implementation` records as they are made, read by code that must use the tables or kernels of a position's
own implementation (its race values, say) without importing either implementation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import NardyError, field_error

if TYPE_CHECKING:
    from .implementation import Implementation
    from .position import Position

__all__ = ["register", "implementation_of", "implementation_named"]

_BY_POSITION: dict[type[Position], Implementation] = {}
_BY_NAME: dict[str, Implementation] = {}


def register(record: Implementation) -> None:
    """Record ``record`` as the implementation of its ``Position`` class."""
    _BY_POSITION[record.Position] = record
    _BY_NAME[record.name] = record


def implementation_named(name: object) -> Implementation:
    """The implementation called ``name`` (``"python"``, ``"cython"``), once it is imported."""
    for known, record in _BY_NAME.items():
        if type(name) is str and name == known:
            return record
    raise field_error(NardyError, "implementation", f"must be one of {sorted(_BY_NAME)}", name)


def implementation_of(position: object) -> Implementation:
    """The implementation of ``position``: the one whose ``Position`` class its class is or derives from. Any
    other value is a :class:`~nardy_fast.NardyError` naming ``position``."""
    for cls in type(position).__mro__:
        if cls in _BY_POSITION:
            return _BY_POSITION[cls]
    raise field_error(NardyError, "position", "must be a Position of the reference or the core", position)
