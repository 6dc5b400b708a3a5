"""nardy_fast: exact, fast legal-move generation and hashing for the nardy family of games.

``Position`` and ``perft`` come from the implementation in use (:data:`IMPLEMENTATION`); the pure-Python
reference is always available as :mod:`nardy_fast.reference`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from . import reference  # first: its import completes the cycle batch -> state -> reference.rules

# isort: split
from . import batch
from .batch import WIDTH, batch_children, children
from .errors import (
    IllegalMoveError,
    InvalidDiceError,
    InvalidNotationError,
    InvalidPositionError,
    NardyError,
    SearchLimitError,
)
from .perft import MAX_PERFT_DEPTH, divide, perft
from .position import ROLLS, Move, Step
from .variants import VARIANTS

__all__ = [
    "VARIANTS",
    "ROLLS",
    "IMPLEMENTATION",
    "Position",
    "Move",
    "Step",
    "perft",
    "divide",
    "MAX_PERFT_DEPTH",
    "children",
    "batch_children",
    "WIDTH",
    "reference",
    "NardyError",
    "InvalidPositionError",
    "InvalidNotationError",
    "InvalidDiceError",
    "IllegalMoveError",
    "SearchLimitError",
]
__version__ = "0.1.0"

_requested = os.environ.get("NARDY_FAST_IMPLEMENTATION", "")
if _requested not in ("", "python", "cython"):
    raise ImportError(f"NARDY_FAST_IMPLEMENTATION: must be 'python' or 'cython' (got {_requested!r})")
if TYPE_CHECKING:
    # Statically, the common base class of both implementations' ``Position``.
    from .position import Position
elif _requested == "python":
    Position = reference.Position
else:
    try:
        from . import core
    except ImportError:
        if _requested == "cython":
            raise
        Position = reference.Position
    else:
        Position = core.Position

#: The implementation behind ``Position``: ``"cython"`` when the core is built, else ``"python"``.
IMPLEMENTATION: str = "cython" if Position is not reference.Position else "python"
if IMPLEMENTATION == "cython":
    from . import _core

    batch.use_core(_core)
