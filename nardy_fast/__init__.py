"""nardy_fast: exact, fast legal-move generation and hashing for the nardy family of games.

``Position`` and the batch API come from the implementation in use (:data:`IMPLEMENTATION`, chosen once in
:mod:`nardy_fast._dispatch`); the pure-Python reference is always available as :mod:`nardy_fast.reference`.
"""

from __future__ import annotations

from ._dispatch import *  # noqa: F403 - the implementation's names (see _dispatch.__all__)
from ._dispatch import __all__ as _dispatched
from .errors import (
    IllegalMoveError,
    InvalidDiceError,
    InvalidNotationError,
    InvalidPositionError,
    NardyError,
    SearchLimitError,
)
from .game import Game
from .layout import WIDTH
from .perft import MAX_PERFT_DEPTH, divide, perft
from .position import ROLLS, Move, Step
from .variants import VARIANTS

__all__ = [
    *_dispatched,
    "VARIANTS",
    "ROLLS",
    "Move",
    "Step",
    "perft",
    "divide",
    "MAX_PERFT_DEPTH",
    "WIDTH",
    "Game",
    "NardyError",
    "InvalidPositionError",
    "InvalidNotationError",
    "InvalidDiceError",
    "IllegalMoveError",
    "SearchLimitError",
]
__version__ = "0.1.0"
