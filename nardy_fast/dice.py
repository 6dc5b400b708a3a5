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
"""

from __future__ import annotations

from collections.abc import Iterator

from .errors import NardyError, field_error
from .inputs import integer

__all__ = ["START", "ROLL", "CHOICE", "mix", "word", "dice", "roll", "single_dice", "choice", "check_seed"]

_MASK = (1 << 64) - 1
START, ROLL, CHOICE = 1, 2, 3


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


def roll(seed: int, game: int, counter: int) -> tuple[int, int]:
    """The game's ``counter``-th roll of two dice, in the order drawn."""
    values = dice(seed, game, counter, ROLL)
    return (next(values), next(values))


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
    """A seed: an integer 0 <= seed < 2**64."""
    value = integer(seed)
    if value is None or not 0 <= value < 1 << 64:
        raise field_error(NardyError, field, "must be an integer 0 <= seed < 2**64", seed)
    return value
