"""The pure-Python reference implementation: the same API as the package, with the rules of docs/rules.md
written one function per rule (:mod:`nardy_fast.reference.rules`)."""

from __future__ import annotations

from typing import ClassVar

from ..batch import batch_api, python_kernel
from ..dice import game_rolls
from ..encodings import encode_api
from ..encodings import python_kernel as python_encoder
from ..perft import perft
from ..playouts import playout_api, python_playout
from ..position import Engine, Move
from ..position import Position as _Position
from ..rollouts import rollout_api
from .engine import legal_moves

__all__ = [
    "Position",
    "Move",
    "perft",
    "batch_children",
    "children",
    "encode",
    "playout",
    "rollout",
    "IMPLEMENTATION",
]

IMPLEMENTATION = "python"


class Position(_Position):
    """A position whose moves come from the reference rules."""

    __doc__ = _Position.__doc__  # help() shows the shared documentation, the same for both implementations

    __slots__ = ()
    _engine: ClassVar[Engine] = staticmethod(legal_moves)


batch_children, children = batch_api(python_kernel(Position))
encode = encode_api(python_encoder)
playout = playout_api(lambda args: python_playout(Position, args), batch_children, game_rolls)
rollout = rollout_api(playout)
