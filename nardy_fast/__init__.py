"""nardy_fast: exact, fast legal-move generation, whole games and hashing for the nardy family of games.

Five variants: ``"long"`` (long nardy), ``"sixone"`` (six-one nardy), ``"short"`` (short nardy, backgammon
without the cube), ``"gulbar"`` and ``"crazy"`` (crazy gulbar). Every rule, the board's two numberings and
the position and move texts are explained in ``docs/rules.md`` (in the source repository and the sdist).

A :class:`Position` is an immutable game state; :meth:`Position.legal_moves` gives one :class:`Move` per
distinct result, with canonical steps. Positions are written in White's numbering, moves in the mover's own
numbering (:func:`to_white` and :func:`to_own` convert a point):

>>> from nardy_fast import Position
>>> start = Position.start("long")                  # White to move, both first rolls to come
>>> [str(move) for move in start.legal_moves((6, 5))]
['24/18 18/13']
>>> black = start.play("24/18 18/13", (6, 5))      # a move text, or a Move
>>> black.to_text()
'long b 12:-15,13:1,24:14 first=b'
>>> [str(move) for move in black.legal_moves((6, 6))]   # Black's head is its own point 24 (White's 12)
['24/18 24/18']

A whole game with seeded dice (:class:`Game`), and many games at once (:func:`playout`, in C without the
GIL when the core is built; the dice of game ``g`` depend only on ``(seed, g)``):

>>> import nardy_fast
>>> game = nardy_fast.Game("short", seed=1)        # rolls who starts, then the opening roll
>>> while not game.is_over():
...     _ = game.play(game.legal_moves()[0])
>>> game.winner() in ("white", "black")
True
>>> records = nardy_fast.playout("long", 100, seed=7)
>>> records.dtype.names, len(records)
(('winner', 'points', 'plies', 'turns', 'start'), 100)
>>> nardy_fast.rollout(start, 36, seed=1, stratify=False).games   # win, mars and koks chances of the side to move
36

The public names are those of ``__all__``. :data:`IMPLEMENTATION` names the implementation behind
``Position`` (``"cython"`` when the compiled core is built, else ``"python"``; environment variable
``NARDY_FAST_IMPLEMENTATION=python|cython`` chooses); the pure-Python reference is always
:mod:`nardy_fast.reference`. Packed rows of 64 ``int8`` and the batch API: :mod:`nardy_fast.layout`,
:func:`children`, :func:`batch_children`. Seeded dice: :mod:`nardy_fast.dice`; game records:
:mod:`nardy_fast.game`; Zobrist keys: :mod:`nardy_fast.zobrist`; many machines: ``nardy_fast.distributed``
(imported on its own, with the ``dask`` extra). Every error for bad input is a :class:`NardyError`, a
``ValueError`` whose message names the field and quotes the value.
"""

from __future__ import annotations

from typing import Optional

from . import dice, game, layout, zobrist
from ._dispatch import *  # noqa: F403 - the implementation's names (see _dispatch.__all__)
from ._dispatch import __all__ as _dispatched
from .benchdb import BenchmarkDatabase, ClassErrors, measure
from .benchdb import read_database as read_benchmark
from .cube import Cube, Match, match_equity_table
from .duel import DuelResult
from .encodings import SCHEMES
from .errors import (
    IllegalMoveError,
    InvalidDiceError,
    InvalidNotationError,
    InvalidPositionError,
    NardyError,
    NardyWarning,
    SearchLimitError,
)
from .evaluation.network import Network
from .evaluation.outcomes import EVALUATORS, OUTPUTS, equity
from .game import Game
from .gameanalysis import analyse
from .gamerecords import match_record
from .layout import WIDTH
from .matchfiles import read_match, write_match
from .numbering import to_own, to_white
from .perft import MAX_PERFT_DEPTH, divide, perft
from .playouts import PlayoutOptions, Trajectories
from .policies import Greedy
from .position import ROLLS, Move, Step
from .records import GameRecord, MatchRecord
from .rollouts import Rollout
from .variants import VARIANTS

__all__ = [
    *_dispatched,
    "VARIANTS",
    "SCHEMES",
    "ROLLS",
    "Move",
    "Step",
    "to_white",
    "to_own",
    "perft",
    "divide",
    "MAX_PERFT_DEPTH",
    "WIDTH",
    "Game",
    "MatchRecord",
    "GameRecord",
    "match_record",
    "analyse",
    "read_match",
    "write_match",
    "Rollout",
    "BenchmarkDatabase",
    "read_benchmark",
    "benchmark_errors",
    "ClassErrors",
    "Trajectories",
    "PlayoutOptions",
    "Greedy",
    "Network",
    "DuelResult",
    "Cube",
    "Match",
    "match_equity_table",
    "equity",
    "EVALUATORS",
    "OUTPUTS",
    "NardyError",
    "InvalidPositionError",
    "InvalidNotationError",
    "InvalidDiceError",
    "IllegalMoveError",
    "SearchLimitError",
    "NardyWarning",
    # the public submodules (``reference`` comes with the dispatcher's names)
    "dice",
    "game",
    "layout",
    "zobrist",
]
__version__ = "0.1.0"


def benchmark_errors(
    database: object, evaluator: object = "net", plies: int = 0, held_out: Optional[bool] = None
) -> dict[str, ClassErrors]:
    """The error rate of ``evaluator`` searched ``plies`` deep on a rolled-out benchmark database (a
    :class:`BenchmarkDatabase` or the path of one: :func:`read_benchmark`), per position class and for ``"all"``:
    the count of positions, the mean equity lost per move x 1000 (the best candidate's rolled-out equity minus
    that of the candidate the evaluator picks; a pick outside the candidates loses as much as the worst) and its
    standard error over the positions. ``held_out`` ``True`` measures the held-out test set alone, ``False`` the
    rest, ``None`` every position. The moves are picked by :data:`Position`'s implementation
    (docs/benchmarks.md, Rolled-out benchmark databases)."""
    return measure(database, Position, evaluator, plies, held_out)  # noqa: F405 - the dispatcher's Position


def __dir__() -> list[str]:
    """The public names and the module's dunders: the shared modules the package imports for itself
    (``board``, ``state``, ...) stay importable but are not offered."""
    return sorted({*__all__, *(name for name in globals() if name.startswith("__"))})
