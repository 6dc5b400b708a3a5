"""Type stubs of the compiled core (``src_pyx/_core.pyx``)."""

from collections.abc import Sequence
from typing import Any, Optional

import numpy as np
import numpy.typing as npt

from .position import Position, Step
from .state import State

class Children:
    """The packed results of one ``legal_moves`` call."""

class Move:
    """A core move: the interface of ``nardy_fast.Move``, built lazily."""

    @property
    def parent(self) -> Position: ...
    @property
    def roll(self) -> Optional[tuple[int, int]]: ...
    @property
    def steps(self) -> tuple[Step, ...]: ...
    @property
    def result(self) -> Position: ...
    @property
    def remainder(self) -> tuple[int, ...]: ...
    @property
    def extra_roll(self) -> bool: ...

class Generator:
    """A reusable search workspace."""

def engine(position: Position, roll: Optional[tuple[int, int]]) -> list[Move]: ...
def legal_moves(position: Position, dice: Optional[Sequence[int]] = None) -> list[Move]: ...
def position_key(state: State) -> int: ...
def perft(state: State, depth: int) -> int: ...
def batch_children(
    positions: npt.NDArray[np.int8], rolls: npt.NDArray[np.int8]
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64], npt.NDArray[np.uint64], int]: ...
def children(position: Any, dice: Optional[Sequence[int]] = None) -> Optional[npt.NDArray[np.int8]]: ...
