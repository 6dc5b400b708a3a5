"""What a truncated playout must return, from the plain playout of the same games: a game's dice and choices
depend only on ``(seed, game, ply)``, so a truncated game is the plain one cut at its first stop (winner -2,
points 0, plies up to it, turns the rolls played before it). Shared by the tests of ``truncate="bearoff"`` and
of ``truncate_plies``."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from nardy_fast.playouts import TRUNCATED, Trajectories

Rows = npt.NDArray[np.int8]
#: Where a game stops: ``stops(rows, plies)``, a game's rows and the plies played before each, a mask.
Stops = Callable[[Rows, npt.NDArray[np.int64]], npt.NDArray[np.bool_]]


def cut(records: npt.NDArray[np.void], played: Trajectories, stops: Stops) -> tuple[npt.NDArray[np.void], Trajectories]:
    """The plain playout's ``records`` and ``played`` trajectories, each game cut at its first row ``stops``
    marks."""
    expected = records.copy()
    rows, rolls, lengths = [], [], []
    for i, (begin, end) in enumerate(zip(played.offsets[:-1].tolist(), played.offsets[1:].tolist())):
        hits = np.flatnonzero(stops(played.rows[begin:end], np.arange(end - begin, dtype=np.int64)))
        if hits.size:
            k = int(hits[0])
            expected[i]["winner"] = TRUNCATED
            expected[i]["points"] = 0
            expected[i]["plies"] = k
            expected[i]["turns"] = int(np.count_nonzero(played.rolls[begin : begin + k, 0]))
            end = begin + k + 1
        rows.append(played.rows[begin:end])
        game_rolls = played.rolls[begin:end].copy()
        game_rolls[-1] = 0  # the last position of a game has no roll
        rolls.append(game_rolls)
        lengths.append(end - begin)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return expected, Trajectories(np.concatenate(rows), np.concatenate(rolls), offsets)
