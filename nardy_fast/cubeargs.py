"""What an implementation's own loop of cubeful games is given (:attr:`nardy_fast.kernels.Kernels.cube_games`):
a cubeful duel's or rollout's records and rules, in the form the compiled core's loop reads. The engine's
:mod:`nardy_fast.cubeloop` states the loop and builds these.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

__all__ = ["CubeArgs"]

Floats = npt.NDArray[np.float64]


class CubeArgs(NamedTuple):
    """The records and rules of a cubeful duel or rollout as a cube kernel plays them (the engine's
    :mod:`nardy_fast.cubeloop` states the loop): per record its game ``numbers`` (a match's pair: game ``j``
    of it is number ``numbers[i] * per_match + j``), whether ``a`` plays Black (``swap``), the starting cube
    (``values``, ``owners``: -1 centred, else the side) and whether the cube is held before the first ply
    (``hold``: a rollout's no-double line); the session (``length`` 0 for money play, the match's ``score`` and
    ``crawford`` flag, the money options), ``single`` for a rollout's one game a record, the seats' cube
    strategies (codes of :data:`~nardy_fast.cube.players.STRATEGIES`), the match equity table (``pre``,
    ``post``) and each variant's cube efficiencies at 0 ply (contact, race factor, race coefficient, race
    minimum and maximum, bear-off)."""

    numbers: npt.NDArray[np.int64]
    swap: npt.NDArray[np.bool_]
    values: npt.NDArray[np.int64]
    owners: npt.NDArray[np.int8]
    hold: npt.NDArray[np.bool_]
    length: int
    score: tuple[int, int]
    crawford: bool
    jacoby: bool
    beavers: bool
    single: bool
    per_match: int
    strategies: tuple[int, int]
    pre: Floats
    post: Floats
    efficiencies: Floats
