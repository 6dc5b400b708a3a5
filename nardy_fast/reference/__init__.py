"""The pure-Python reference implementation: the same API as the package, with the rules of docs/rules.md
written one function per rule (:mod:`nardy_fast.reference.rules`)."""

from __future__ import annotations

from typing import ClassVar

from ..analysis import AnalysedPosition
from ..batch import python_kernel
from ..bearoff.semantics import Semantics
from ..bearoff.tables import Floats, OneSidedArrays
from ..dice import game_rolls
from ..encodings import python_kernel as python_encoder
from ..implementation import Implementation
from ..kernels import Kernels, Played, PlayoutArgs
from ..lockstep import seats_playout
from ..perft import perft
from ..position import Engine, Move
from ..position import Position as _Position
from ..segments import python_kernel as python_segments
from ..vector import Games as _Games
from .engine import child_rows, legal_moves
from .evaluate import evaluate_rows
from .levels import searched
from .matlines import read_move_lines
from .playout import check_seats, moves_search

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

IMPLEMENTATION = "python"


class Position(AnalysedPosition):
    """A position whose moves come from the reference rules."""

    __doc__ = _Position.__doc__  # help() shows the shared documentation, the same for both implementations

    __slots__ = ()
    _engine: ClassVar[Engine] = staticmethod(legal_moves)


def _playout(args: PlayoutArgs) -> Played:
    """The built-in seats played by the engine's one Python game loop (:func:`nardy_fast.lockstep.
    seats_playout`), each ply's moves by the reference rules, made only when picked: a ladder has millions."""
    check_seats(args)
    return seats_playout(_KERNELS, args, moves_search(Position))


def _one_sided(semantics: Semantics, checkers: int) -> OneSidedArrays:
    """A one-sided bear-off table by the reference's recursion over its own legal moves (slow)."""
    from .bearoff import one_sided  # the tables' module is read only by those who build one

    return one_sided(semantics, checkers)


def _two_sided(semantics: Semantics, checkers: int) -> Floats:
    """A two-sided bear-off table by the reference's recursion over its own legal moves (slow)."""
    from .bearoff import two_sided

    return two_sided(semantics, checkers)


def _two_sided_cubeful(semantics: Semantics, checkers: int) -> Floats:
    """The exact cubeful two-sided bear-off values by the reference's recursion (slow)."""
    from .bearoff import two_sided_cubeful

    return two_sided_cubeful(semantics, checkers)


_KERNELS = Kernels(
    name=IMPLEMENTATION,
    batch=python_kernel(Position, child_rows),
    encode=python_encoder,
    playout=_playout,
    game_rolls=game_rolls,
    segment_argmax_kernel=python_segments,
    one_sided=_one_sided,
    two_sided=_two_sided,
    two_sided_cubeful=_two_sided_cubeful,
    evaluate=evaluate_rows,
    searched=searched,
    move_lines=read_move_lines,
)


Position.kernels = _KERNELS


class Games(_Games):
    """Games stepped from outside, their children from the reference rules."""

    __doc__ = _Games.__doc__  # help() shows the shared documentation, the same for both implementations

    _kernels: ClassVar[Kernels] = _KERNELS


#: The reference's public objects (:class:`~nardy_fast.implementation.Implementation`).
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
