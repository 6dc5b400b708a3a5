"""The compiled implementation: ``Position`` with its moves, keys and perft, and the batch API, from the Cython
core (``nardy_fast._core``, built from ``src_pyx/``). Importing this module fails when the core is not built."""

from __future__ import annotations

from typing import ClassVar, Optional

from . import _core
from .batch import batch_api
from .perft import perft
from .position import Engine, Move
from .position import Position as _Position
from .state import State

__all__ = ["Position", "Move", "perft", "batch_children", "children", "IMPLEMENTATION"]

IMPLEMENTATION = "cython"


class Position(_Position):
    """A position whose moves, perft and keys come from the compiled core."""

    __slots__ = ("_packed",)
    _engine: ClassVar[Engine] = staticmethod(_core.engine)
    legal_moves = _core.legal_moves  # the common case checked in C (the shared docstring is set below)

    def _init(self, state: State, key: Optional[int], packed: Optional[bytes]) -> None:
        self._state = state
        self._key = _core.position_key(state) if key is None else key
        self._packed = packed

    def _perft(self, depth: int) -> int:
        return _core.perft(self._state, depth)


_core.legal_moves.__doc__ = _Position.legal_moves.__doc__
batch_children, children = batch_api(_core.batch_children, _core.children)
