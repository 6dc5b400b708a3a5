"""The reference's search of a playout's plies: each position's legal moves by the reference rules, made only
when read (a crazy ladder has millions of results, of which a built-in policy plays one). The games themselves
are played by the engine's one Python game loop (:mod:`nardy_fast.lockstep`), as every Python playout is:
``reference/__init__.py`` runs it over this search, the twin of the core's loop in C."""

from __future__ import annotations

from collections.abc import Callable
from typing import Optional

import numpy as np
import numpy.typing as npt

from .. import layout
from ..errors import NardyError, SearchLimitError, field_error
from ..kernels import PlayoutArgs
from ..position import Position
from .engine import Moves

__all__ = ["check_seats", "Moved", "moves_search"]

Rows = npt.NDArray[np.int8]
Offsets = npt.NDArray[np.int64]


def check_seats(args: PlayoutArgs) -> None:
    """A playout kernel plays built-in seats alone: a seat played by its chooser is refused."""
    for seat in args.seats:
        if seat.policy < 0 and seat.evaluator < 0:
            raise field_error(NardyError, "seat", "is played by its chooser in lock-step, not by the game loop", seat)


class Moved:
    """The legal moves of a ply's positions (a :class:`~nardy_fast.kernels.Ply`), each made only when read:
    the counts alone for a built-in policy, the children of the positions whose side reads them."""

    __slots__ = ("moves", "offsets", "over", "known")

    def __init__(
        self, position_class: type[Position], rows: Rows, rolls: Rows, limit: int, known: dict[bytes, Position]
    ) -> None:
        self.known = known
        self.moves: list[Optional[Moves]] = []
        over = np.zeros(len(rows), dtype=bool)
        for i, (row, roll) in enumerate(zip(rows, rolls)):
            position = known.get(row.tobytes())
            if position is None:
                position = position_class._trusted(layout.unpack(row))
            dice = None if roll[0] == 0 else (int(roll[0]), int(roll[1]))  # (0, 0): the pending list
            try:
                self.moves.append(Moves(position, dice, limit))
            except SearchLimitError:  # the game is given up at this ply
                over[i] = True
                self.moves.append(None)
        self.over: Optional[npt.NDArray[np.bool_]] = over if over.any() else None
        self.offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        self.offsets[1:] = np.cumsum([0 if moves is None else len(moves) for moves in self.moves])

    def segments(self, which: Optional[Offsets], children: bool) -> tuple[Rows, Offsets]:
        """The children of the positions ``which`` (``None``: all), made only when ``children`` are read."""
        if which is None:
            chosen, offsets = list(range(len(self.moves))), self.offsets
        else:
            chosen = [int(i) for i in which]
            offsets = np.zeros(len(chosen) + 1, dtype=np.int64)
            offsets[1:] = np.cumsum(np.diff(self.offsets)[which])
        if not children:
            return np.zeros((0, layout.WIDTH), dtype=np.int8), offsets
        made = [self._row(i, k) for i in chosen for k in range(self.offsets[i + 1] - self.offsets[i])]
        return np.array(made, dtype=np.int8).reshape(-1, layout.WIDTH), offsets

    def chosen(self, picks: Offsets) -> Rows:
        """The chosen child of each position, made (and kept for the next ply's search)."""
        made = [self._child(i, int(k)) for i, k in enumerate(picks)]
        rows = np.array([position.to_array() for position in made], dtype=np.int8).reshape(-1, layout.WIDTH)
        self.known.clear()  # another thread's batch may have put its own there: it finds them unpacked again
        self.known.update(zip((row.tobytes() for row in rows), made))
        return rows

    def _child(self, index: int, k: int) -> Position:
        moves = self.moves[index]
        assert moves is not None  # a position over max_results has no children read
        return moves[k].result

    def _row(self, index: int, k: int) -> Rows:
        return self._child(index, k).to_array()


def moves_search(position_class: type[Position]) -> Callable[[Rows, Rows, int], Moved]:
    """The search of a ply over ``position_class``'s legal moves, made only when read: ``search(rows, rolls,
    max_results)``."""

    known: dict[bytes, Position] = {}  # the positions the last ply moved to: not unpacked again from their rows

    def search(rows: Rows, rolls: Rows, limit: int) -> Moved:
        return Moved(position_class, rows, rolls, limit, known)

    return search
