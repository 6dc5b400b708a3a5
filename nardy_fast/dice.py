"""Seeded dice that any implementation can reproduce: every number a game draws is a pure function of
``(seed, game, counter)``, so results never depend on thread count, shard layout or platform.

The generator is SplitMix64's finaliser (Steele, Lea, Flood 2014) applied to a counter, published here so
that any language can rebuild it (all arithmetic modulo 2**64):

* ``mix(z)``: ``z += 0x9E3779B97F4A7C15; z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27;
  z *= 0x94D049BB133111EB; z ^= z >> 31`` (one step of SplitMix64 from state ``z``).
* ``word(seed, game, counter, stream, j) = mix(mix(mix(seed) ^ game) ^ (counter << 8 | stream << 4 | j))``,
  for ``0 <= game < 2**64``, ``0 <= counter < 2**56``, a stream (below) and a retry index ``j`` (0, 1, ...).
* Streams: :data:`START` (who starts: the ``counter``-th pair of single dice), :data:`ROLL` (the game's
  ``counter``-th roll of two dice), :data:`CHOICE` (the choice a policy makes at ply ``counter``).
* Dice from words: the bytes of ``word(.., j=0)``, lowest first, then of ``j=1`` and so on; a byte ``b < 252``
  gives the die ``b % 6 + 1``, a larger byte is skipped (so every value has probability exactly 1/6).
* A choice among ``n`` from words: the first ``word(.., j)`` below ``2**64 - 2**64 % n``, modulo ``n``.
* Stratified rolls (rollouts): when asked for, the first two rolls of game ``g`` are not drawn but cycle
  through all 36 x 36 ordered pairs of dice: roll ``k`` (0 or 1) is the pair number ``g // 36**k % 36``,
  pair ``i`` being the dice ``(i // 6 + 1, i % 6 + 1)``. Every 1,296 consecutive games then see each pair of
  opening rolls exactly once, which removes most of the luck of the first two rolls from an average.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

from .errors import NardyError, field_error
from .inputs import integer

__all__ = [
    "START",
    "ROLL",
    "CHOICE",
    "STRATA",
    "mix",
    "word",
    "dice",
    "roll",
    "game_rolls",
    "single_dice",
    "choice",
    "check_seed",
]

_MASK = (1 << 64) - 1
START, ROLL, CHOICE = 1, 2, 3
#: Stratified rolls per game: the first ``STRATA`` rolls cycle through the 36 ordered pairs of dice.
STRATA = 2


def mix(z: int) -> int:
    """One step of SplitMix64 from state ``z``: a bijection of 64-bit words."""
    z = (z + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def word(seed: int, game: int, counter: int, stream: int, j: int) -> int:
    """The ``j``-th 64-bit word of ``stream`` at ``counter`` of game ``game`` (see the module docstring)."""
    return mix(mix(mix(seed) ^ game) ^ ((counter << 8 | stream << 4 | j) & _MASK))


def dice(seed: int, game: int, counter: int, stream: int) -> Iterator[int]:
    """The die values of ``stream`` at ``counter``: unbiased, from the words' bytes in turn."""
    j = 0
    while True:
        w = word(seed, game, counter, stream, j)
        for shift in range(0, 64, 8):
            b = (w >> shift) & 0xFF
            if b < 252:
                yield b % 6 + 1
        j += 1


def roll(seed: int, game: int, counter: int, stratify: bool = False) -> tuple[int, int]:
    """The game's ``counter``-th roll of two dice, in the order drawn (stratified: see the module docstring)."""
    if stratify and counter < STRATA:
        pair = game // 36**counter % 36
        return (pair // 6 + 1, pair % 6 + 1)
    values = dice(seed, game, counter, ROLL)
    return (next(values), next(values))


def game_rolls(
    seed: int, games: npt.NDArray[np.int64], counters: npt.NDArray[np.int64], stratify: bool
) -> npt.NDArray[np.int8]:
    """:func:`roll` of many games at once: row ``i`` is roll ``counters[i]`` of game ``games[i]``, (N, 2)."""
    out = np.zeros((len(games), 2), dtype=np.int8)
    for i, (game, counter) in enumerate(zip(games.tolist(), counters.tolist())):
        out[i] = roll(seed, game, counter, stratify)
    return out


def single_dice(seed: int, game: int, counter: int) -> tuple[int, int]:
    """The ``counter``-th pair of single dice that decide who starts: (White's, Black's)."""
    values = dice(seed, game, counter, START)
    return (next(values), next(values))


def choice(seed: int, game: int, ply: int, n: int) -> int:
    """A uniform choice in ``range(n)`` (``n >= 1``) for ply ``ply``."""
    rem = (1 << 64) % n
    j = 0
    while True:
        w = word(seed, game, ply, CHOICE, j)
        if w < (1 << 64) - rem:
            return w % n
        j += 1


def check_seed(seed: object, field: str = "seed") -> int:
    """A seed (or a game number, named by ``field``): an integer 0 <= value < 2**64."""
    value = integer(seed)
    if value is None or not 0 <= value < 1 << 64:
        raise field_error(NardyError, field, f"must be an integer 0 <= {field} < 2**64", seed)
    return value
