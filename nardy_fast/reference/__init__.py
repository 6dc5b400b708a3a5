"""The pure-Python reference implementation: the same API as the package, with the rules of RULES.md written
one function per rule (:mod:`nardy_fast.reference.rules`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Optional

from ..batch import python_batch_children
from ..perft import perft
from ..position import Engine, Move
from ..position import Position as _Position
from .engine import legal_moves

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..batch import Rows

__all__ = ["Position", "Move", "perft", "batch_children", "IMPLEMENTATION"]

IMPLEMENTATION = "python"


class Position(_Position):
    """A position whose moves come from the reference rules."""

    __slots__ = ()
    _engine: ClassVar[Engine] = staticmethod(legal_moves)


def batch_children(
    positions: object, rolls: object, *, max_results: Optional[int] = None
) -> tuple[Rows, npt.NDArray[np.int64], npt.NDArray[np.uint64]]:
    """:func:`nardy_fast.batch_children` computed by the reference rules."""
    return python_batch_children(positions, rolls, Position, max_results)
