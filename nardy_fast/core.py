"""The compiled implementation: ``Position`` with its moves, keys and perft, and the batch API, from the Cython
core (``nardy_fast._core``, built from ``src_pyx/``). Importing this module fails when the core is not built."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import ClassVar, Optional

import numpy as np
import numpy.typing as npt

from . import _core
from .batch import batch_api
from .game import RECORD, PlayoutArgs, playout_api
from .perft import perft
from .position import Engine, Move
from .position import Position as _Position
from .state import State

__all__ = ["Position", "Move", "perft", "batch_children", "children", "playout", "IMPLEMENTATION"]

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


def _playout(args: PlayoutArgs) -> npt.NDArray[np.void]:
    """The core's playout kernel: the games split into ``args.threads`` ranges, each played in C without the
    GIL (the calling thread takes the first range)."""
    columns = (
        np.zeros(args.games, dtype=np.int8),
        np.zeros(args.games, dtype=np.int8),
        np.zeros(args.games, dtype=np.int32),
        np.zeros(args.games, dtype=np.int32),
    )
    bounds = [args.games * i // args.threads for i in range(args.threads + 1)]

    def play(part: int) -> None:
        _core.playout_games(
            args.rows, args.from_start, args.games, args.seed, args.policy, args.opening,
            bounds[part], bounds[part + 1], *columns,
        )  # fmt: skip

    if args.threads == 1:
        play(0)
    else:
        with ThreadPoolExecutor(args.threads - 1) as pool:
            others = [pool.submit(play, part) for part in range(1, args.threads)]
            play(0)
            for other in others:
                other.result()
    out = np.zeros(args.games, dtype=RECORD)
    for name, column in zip(("winner", "points", "plies", "turns"), columns):
        out[name] = column
    out["start"] = np.arange(args.games) % len(args.rows)
    return out


playout = playout_api(_playout)
