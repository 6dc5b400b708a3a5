"""The pure-Python reference implementation: the same API as the package, with the rules of RULES.md written
one function per rule (:mod:`nardy_fast.reference.rules`)."""

from __future__ import annotations

from typing import ClassVar

from ..batch import python_batch_children
from ..position import Engine, Move
from ..position import Position as _Position
from ..perft import perft
from .engine import legal_moves

__all__ = ["Position", "Move", "perft", "batch_children", "IMPLEMENTATION"]

IMPLEMENTATION = "python"


class Position(_Position):
    """A position whose moves come from the reference rules."""

    __slots__ = ()
    _engine: ClassVar[Engine] = staticmethod(legal_moves)  # type: ignore[assignment]


def batch_children(positions: object, rolls: object) -> tuple[object, object, object]:
    """:func:`nardy_fast.batch_children` computed by the reference rules."""
    return python_batch_children(positions, rolls, Position)
