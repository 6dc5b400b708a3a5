"""The compiled implementation: ``Position`` with its moves, keys and perft, and the batch API, from the Cython
core (``nardy_fast._core``, built from ``src_pyx/``). Importing this module fails when the core is not built."""

from __future__ import annotations

from typing import ClassVar, Optional

import numpy as np
import numpy.typing as npt

from . import _core
from ._core import encode_rows  # an ImportError, not an AttributeError, for a core built before it
from .analysis import AnalysedPosition
from .bearoff.layouts import all_layouts
from .bearoff.semantics import MAX_TURNS, Semantics
from .bearoff.tables import OneSidedArrays
from .errors import InvalidPositionError, field_error
from .implementation import Implementation
from .kernels import Kernels, Played, PlayoutArgs, StopFlag, Trajectories, on_threads, split_range
from .perft import perft
from .position import Engine, Move
from .position import Position as _Position
from .state import State
from .turns import RECORD
from .vector import Games as _Games

__all__ = [
    "Position",
    "Move",
    "perft",
    "batch_children",
    "children",
    "encode",
    "playout",
    "playout_match_records",
    "rollout",
    "segment_argmax",
    "one_sided",
    "evaluate",
    "duel",
    "two_sided",
    "two_sided_cubeful",
    "Games",
    "IMPLEMENTATION",
]

IMPLEMENTATION = "cython"


class Position(AnalysedPosition):
    """A position whose moves, perft and keys come from the compiled core."""

    __doc__ = _Position.__doc__  # help() shows the shared documentation, the same for both implementations

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


def _playout(args: PlayoutArgs) -> Played:
    """The core's kernel for the built-in policies, a playout's or a duel's (a policy per seat): the games split
    into ``args.threads`` ranges, each played in C without the GIL (the calling thread takes the first range),
    each checking the playout's stop flag once per ply (a failure or Ctrl-C in one thread stops them all)."""
    winner, points = np.zeros(args.games, dtype=np.int8), np.zeros(args.games, dtype=np.int8)
    plies, turns = np.zeros(args.games, dtype=np.int32), np.zeros(args.games, dtype=np.int32)
    parts = args.parts()
    played: list[Optional[tuple[npt.NDArray[np.int8], npt.NDArray[np.int8]]]] = [None] * args.threads

    def play(part: int, stop: StopFlag) -> None:
        played[part] = _core.playout_games(args, *parts[part], winner, points, plies, turns, stop)

    on_threads(args.threads, play)
    out = np.zeros(args.games, dtype=RECORD)
    out["winner"], out["points"], out["plies"], out["turns"] = winner, points, plies, turns
    out["start"] = args.numbers() % len(args.rows)
    if not args.trajectories:
        return out
    pieces = []
    for (first, last), piece in zip(parts, played):
        assert piece is not None  # every part returned (an exception would have been raised)
        offsets = np.zeros(last - first + 1, dtype=np.int64)
        lengths = np.ones(last - first, np.int64) if args.last_only else plies[first:last].astype(np.int64) + 1
        offsets[1:] = np.cumsum(lengths)
        pieces.append(Trajectories(piece[0], piece[1], offsets))
    return out, Trajectories.concatenate(pieces)


def _hint(
    row: npt.NDArray[np.int8], d1: int, d2: int, plies: int, kind: int, tables: object
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64], npt.NDArray[np.int8]]:
    """The core's hint kernel: every legal move of a checked ``row`` for the roll ``d1-d2`` (0-0: its pending
    list) valued at ``plies`` by built-in evaluator ``kind``, searched in C without the GIL: ``(children,
    probabilities, plies_reached)`` in legal_moves order, the probabilities seen by the row's side to move."""
    return _core.hint_values(row, d1, d2, plies, kind, tables)


def _values(
    rows: npt.NDArray[np.int8], plies: int, kind: int, tables: object, threads: int
) -> npt.NDArray[np.float64]:
    """The core's kernel of many positions' values: value(row, plies) of checked ``rows`` by built-in
    evaluator ``kind``, searched in C without the GIL, the rows split into ``threads`` ranges (the calling
    thread takes the first; a failure or Ctrl-C in one stops the others before their next row). The rows are
    copied first: another thread may change the caller's array while the search reads it."""
    owned = np.array(rows, dtype=np.int8, order="C", copy=True)
    out = np.zeros((len(owned), 5))
    parts = split_range(0, len(owned), threads)
    bad = [-1] * threads

    def run(part: int, stop: StopFlag) -> None:
        first, last = parts[part]
        found = _core.search_values(owned[first:last], plies, kind, tables, out[first:last], stop)
        bad[part] = -1 if found < 0 else first + found

    on_threads(threads, run)
    failed = [b for b in bad if b >= 0]
    if failed:
        row = owned[failed[0]]
        raise field_error(InvalidPositionError, f"rows[{failed[0]}]", "is not a valid position", bytes(row))
    return out


def _one_sided(semantics: Semantics, checkers: int) -> OneSidedArrays:
    """A one-sided bear-off table built in C (seconds; without the GIL)."""
    layouts = np.ascontiguousarray(all_layouts(checkers))
    n = len(layouts)
    arrays = OneSidedArrays(np.zeros(n), np.zeros((n, MAX_TURNS + 1)), np.zeros(n), np.zeros((n, MAX_TURNS + 1)))
    _core.bearoff_one_sided(layouts, semantics.extra_roll, semantics.ladder, *arrays)
    return arrays


def _two_sided(semantics: Semantics, checkers: int) -> npt.NDArray[np.float64]:
    """A two-sided bear-off table built in C (without the GIL)."""
    layouts = np.ascontiguousarray(all_layouts(checkers))
    win = np.zeros((len(layouts), len(layouts)))
    _core.bearoff_two_sided(layouts, semantics.extra_roll, semantics.ladder, win)
    return win


def _two_sided_cubeful(semantics: Semantics, checkers: int) -> npt.NDArray[np.float64]:
    """The exact cubeful two-sided bear-off values built in C (without the GIL)."""
    layouts = np.ascontiguousarray(all_layouts(checkers))
    values = np.zeros((3, len(layouts), len(layouts)))
    _core.bearoff_two_sided_cubeful(layouts, semantics.extra_roll, semantics.ladder, values)
    return values


_KERNELS = Kernels(
    name=IMPLEMENTATION,
    batch=_core.batch_children,
    encode=encode_rows,
    playout=_playout,
    game_rolls=_core.game_rolls,
    segment_argmax_kernel=_core.segment_argmax_rows,
    one_sided=_one_sided,
    two_sided=_two_sided,
    two_sided_cubeful=_two_sided_cubeful,
    one_row=_core.children,
    evaluate=_core.evaluate_rows,
    searched=_core.searched,
    hint=_hint,
    values=_values,
    cube_games=_core.cube_games,
    replay=_core.replay_plies,
    move_lines=_core.read_move_lines,
)


Position.kernels = _KERNELS


class Games(_Games):
    """Games stepped from outside, their children from the compiled core (searched without the GIL)."""

    __doc__ = _Games.__doc__  # help() shows the shared documentation, the same for both implementations

    _kernels: ClassVar[Kernels] = _KERNELS


#: The core's public objects (:class:`~nardy_fast.implementation.Implementation`).
IMPLEMENTATION_RECORD = Implementation(IMPLEMENTATION, Position, _KERNELS, Games)
batch_children = IMPLEMENTATION_RECORD.batch_children
children = IMPLEMENTATION_RECORD.children
encode = IMPLEMENTATION_RECORD.encode
playout = IMPLEMENTATION_RECORD.playout
playout_match_records = IMPLEMENTATION_RECORD.playout_match_records
rollout = IMPLEMENTATION_RECORD.rollout
segment_argmax = IMPLEMENTATION_RECORD.segment_argmax
evaluate = IMPLEMENTATION_RECORD.evaluate
duel = IMPLEMENTATION_RECORD.duel
one_sided = IMPLEMENTATION_RECORD.one_sided
two_sided = IMPLEMENTATION_RECORD.two_sided
two_sided_cubeful = IMPLEMENTATION_RECORD.two_sided_cubeful
