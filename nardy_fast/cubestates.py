"""The cube states of a cubeful search as arrays (docs/rules.md, Cubeful search): a state is a cube value and
an owner code per row and slot, and the rows of a batch may each have their own cube."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Union

import numpy as np
import numpy.typing as npt

from .cube.state import SIDES, Cube

__all__ = ["CENTRED", "MoveCube", "cube_rows", "groups", "owner_code", "state_of", "subset"]

Ints = npt.NDArray[np.int64]

#: An owner code: the cube in the middle (else a side's index in :data:`SIDES`).
CENTRED = -1
#: The cube the moves of a search are chosen under (GNU Backgammon's ``pciMove``): one for every row, or each
#: row's own, as arrays of cube values and owner codes.
MoveCube = Union[Cube, tuple[Ints, Ints]]


def state_of(cube: MoveCube, n: int) -> tuple[Ints, Ints]:
    """One state (n, 1) a row: ``cube``, or each row's."""
    if not isinstance(cube, Cube):
        return cube[0].reshape(n, 1).astype(np.int64), cube[1].reshape(n, 1).astype(np.int64)
    owner = owner_code(cube)
    return np.full((n, 1), cube.value, dtype=np.int64), np.full((n, 1), owner, dtype=np.int64)


def owner_code(cube: Cube) -> int:
    """The owner code of ``cube``: :data:`CENTRED` or its owner's index in :data:`SIDES`."""
    return CENTRED if cube.owner is None else SIDES.index(cube.owner)


def cube_rows(cubes: Sequence[Cube]) -> tuple[Ints, Ints]:
    """Each row's cube as a :data:`MoveCube`."""
    return (np.array([c.value for c in cubes], dtype=np.int64),
            np.array([owner_code(c) for c in cubes], dtype=np.int64))


def subset(move: MoveCube, index: Ints) -> MoveCube:
    """The move cube of the rows ``index``."""
    return move if isinstance(move, Cube) else (move[0][index], move[1][index])


def groups(values: Ints, owners: Ints, movers: Ints,
            rolling: npt.NDArray[np.bool_]) -> list[tuple[tuple[int, int, int], tuple[Ints, Ints]]]:
    """The (row, slot) places of each distinct (cube value, owner, side to move), among rolling rows: a few
    kinds among many places, so each is found by a comparison rather than by sorting the places."""
    keys = (values * 4 + (owners + 1)) * 2 + movers[:, None]
    keys = np.where(rolling[:, None] & (values > 0), keys, -1)
    found = []
    for key in np.unique(keys):
        if key < 0:
            continue
        i, j = np.nonzero(keys == key)
        me, rest = int(key) % 2, int(key) // 2
        found.append(((rest // 4, rest % 4 - 1, me), (i.astype(np.int64), j.astype(np.int64))))
    return found
