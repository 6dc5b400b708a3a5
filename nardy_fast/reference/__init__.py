"""The pure-Python reference implementation: the same API as the package, with the rules of RULES.md written
one function per rule (:mod:`nardy_fast.reference.rules`)."""

from __future__ import annotations

from typing import ClassVar

from ..batch import batch_api, python_kernel
from ..game import playout_api, python_playout
from ..perft import perft
from ..position import Engine, Move
from ..position import Position as _Position
from .engine import legal_moves

__all__ = ["Position", "Move", "perft", "batch_children", "children", "playout", "IMPLEMENTATION"]

IMPLEMENTATION = "python"


class Position(_Position):
    """A position whose moves come from the reference rules."""

    __slots__ = ()
    _engine: ClassVar[Engine] = staticmethod(legal_moves)


batch_children, children = batch_api(python_kernel(Position))
playout = playout_api(lambda args: python_playout(Position, args))
