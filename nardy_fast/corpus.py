"""The embedded benchmark corpus: positions and rolls from seeded random self-play, for every variant.

The corpus ships as ``nardy_fast/data/corpus.npz`` (arrays ``<variant>_positions``, (N, 64) packed rows, and
``<variant>_rolls``, (N, 2), with (0, 0) for a position that plays its pending list). ``python -m nardy_fast
corpus`` rebuilds it; the seeds make it the same on every machine.
"""

from __future__ import annotations

import random
from importlib import resources
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from .batch import WIDTH
from .errors import NardyError, field_error
from .inputs import choice, integer
from .variants import VARIANTS

if TYPE_CHECKING:
    from .position import Position

__all__ = ["SIZE", "MAX_SIZE", "SEED", "self_play", "load", "build"]

SIZE = 10_000
#: The most positions per variant a corpus may hold (100 x the shipped size; 64 MB of rows a variant).
MAX_SIZE = 100 * SIZE
SEED = 20261129
Rows = npt.NDArray[np.int8]


def _check_size(size: object, field: str) -> int:
    value = integer(size)
    if value is None or not 0 <= value <= MAX_SIZE:
        raise field_error(NardyError, field, f"must be an integer 0 <= {field} <= {MAX_SIZE:,} (MAX_SIZE)", size)
    return value


def self_play(position_class: type[Position], variant: str, count: int, seed: int) -> tuple[Rows, Rows]:
    """``count`` (position, roll) pairs met in random games: uniform rolls, uniform choice among the legal
    moves, a new game from the start whenever one ends."""
    count = _check_size(count, "count")
    if choice(variant, VARIANTS) is None:
        raise field_error(NardyError, "variant", f"must be one of {VARIANTS}", variant)
    rng = random.Random(seed)
    rows = np.zeros((count, WIDTH), dtype=np.int8)
    rolls = np.zeros((count, 2), dtype=np.int8)
    position = position_class.start(variant)
    for index in range(count):
        if position.is_over():
            position = position_class.start(variant)
        roll = None if position.pending else (rng.randint(1, 6), rng.randint(1, 6))
        rows[index] = position.to_array()
        rolls[index] = roll or (0, 0)
        moves = position.legal_moves(roll)
        position = moves[rng.randrange(len(moves))].result
    return rows, rolls


def build(position_class: type[Position], size: int = SIZE) -> dict[str, Rows]:
    """The corpus arrays for every variant (seed ``SEED + variant index``)."""
    size = _check_size(size, "size")
    arrays: dict[str, Rows] = {}
    for index, variant in enumerate(VARIANTS):
        rows, rolls = self_play(position_class, variant, size, SEED + index)
        arrays[f"{variant}_positions"] = rows
        arrays[f"{variant}_rolls"] = rolls
    return arrays


def load(variant: str) -> tuple[Rows, Rows]:
    """The shipped (positions, rolls) of ``variant``."""
    with resources.files("nardy_fast").joinpath("data/corpus.npz").open("rb") as handle:
        data = np.load(handle)
        return data[f"{variant}_positions"], data[f"{variant}_rolls"]


