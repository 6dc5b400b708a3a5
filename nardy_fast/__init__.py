"""nardy_fast: exact, fast legal-move generation and hashing for the nardy family of games.

``Position`` and ``perft`` come from the implementation in use (:data:`IMPLEMENTATION`); the pure-Python
reference is always available as :mod:`nardy_fast.reference`.
"""

from __future__ import annotations

import os

from . import reference
from .errors import IllegalMoveError, InvalidDiceError, InvalidNotationError, InvalidPositionError, NardyError
from .perft import divide, perft
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
    "reference",
    "NardyError",
    "InvalidPositionError",
    "InvalidNotationError",
    "InvalidDiceError",
    "IllegalMoveError",
]
__version__ = "0.1.0"

_requested = os.environ.get("NARDY_FAST_IMPLEMENTATION", "")
if _requested not in ("", "python"):
    raise ImportError(
        f"NARDY_FAST_IMPLEMENTATION: must be 'python' (the only implementation built so far) "
        f"(got {_requested!r})"
    )

#: The implementation behind ``Position``: ``"python"`` until the compiled core exists.
IMPLEMENTATION = "python"
Position = reference.Position
