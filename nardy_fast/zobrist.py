"""The published Zobrist key table, shared by both implementations.

A position's key is the XOR of one 64-bit key per feature of its state. The table is the output of
SplitMix64 started from :data:`SEED`, taken in the order below, so any implementation in any language can
rebuild it (``KEYS[i]`` is the ``i``-th output, counting from 0):

==============================  ======  ==================================================================
slice                           count   feature
==============================  ======  ==================================================================
``POINT`` + 30·i + j            720     White point ``i+1`` (i = 0..23) holds count ``c``, j = c+15 for
                                        c = −15..−1 and j = c+14 for c = 1..15 (negative = Black)
``BAR`` + 15·s + n−1            30      side ``s`` (0 White, 1 Black) has ``n`` = 1..15 on the bar
``OFF`` + 15·s + n−1            30      side ``s`` has borne off ``n`` = 1..15
``BLACK_TO_MOVE``               1       Black is to move
``FIRST_ROLL`` + s              2       side ``s`` still has its first roll
``PENDING`` + 6·k + v−1         144     the pending list's ``k``-th value (k = 0..23) is ``v``
``VARIANT`` + v                 5       the variant, ``v`` = its index in ``VARIANTS``
``PER_STEP``                    1       flag ``block_check = per_step``
``LADDER4``                     1       flag ``ladder_per_value = 4``
``EXCEPTION_DOUBLE`` + d−1      6       ``d`` is in flag ``first_roll_exception_doubles`` (where it applies)
``SIXONE_REQUIRES_PLAY``        1       flag ``sixone_extra_roll_requires_play = True``
``NORMAL_DOUBLES3``             1       flag ``normal_doubles_first_rolls = 3``
``ROLLS_PLAYED`` + 3·s + n−1    6       side ``s`` has played ``n`` = 1..3 rolls (under that flag)
``VARIANT_MORE`` + v − 5        11      the variant, for ``v`` = 5..15 (variants yet to come)
==============================  ======  ==================================================================

A zero count, an empty bar or off tray, and a default flag contribute nothing; a two-value pending list is
stored higher value first.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate
from typing import cast

from .variants import FLAG_BY_NAME, VARIANTS, Flags

__all__ = [
    "SEED",
    "SLOTS",
    "OFFSETS",
    "KEYS",
    "POINT",
    "BAR",
    "OFF",
    "BLACK_TO_MOVE",
    "FIRST_ROLL",
    "PENDING",
    "VARIANT",
    "PER_STEP",
    "LADDER4",
    "EXCEPTION_DOUBLE",
    "SIXONE_REQUIRES_PLAY",
    "NORMAL_DOUBLES3",
    "ROLLS_PLAYED",
    "VARIANT_MORE",
    "variant_slot",
    "splitmix64",
    "point_key",
    "position_key",
]

SEED = 0x6E61726479666173  # b"nardyfas"
_MASK = (1 << 64) - 1

#: The slots of the table in order, ``(name, count)``: a feature's keys start where the counts before it end.
#: Append-only: a new feature, variant or flag takes a slot at the end, so that no published key moves
#: (``tests/test_zobrist_table.py`` pins a digest of the keys and every slot's offset).
SLOTS: tuple[tuple[str, int], ...] = (
    ("point", 24 * 30),
    ("bar", 30),
    ("off", 30),
    ("black_to_move", 1),
    ("first_roll", 2),
    ("pending", 24 * 6),
    ("variant", 5),
    ("per_step", 1),
    ("ladder4", 1),
    ("exception_double", 6),
    ("sixone_requires_play", 1),
    ("normal_doubles3", 1),
    ("rolls_played", 2 * 3),
    # the variants after the first five, up to 16 in all
    ("variant_more", 11),
)
#: The offset of each slot in :data:`KEYS`.
OFFSETS: dict[str, int] = dict(zip((name for name, _ in SLOTS), accumulate((count for _, count in SLOTS), initial=0)))

POINT = OFFSETS["point"]
BAR = OFFSETS["bar"]
OFF = OFFSETS["off"]
BLACK_TO_MOVE = OFFSETS["black_to_move"]
FIRST_ROLL = OFFSETS["first_roll"]
PENDING = OFFSETS["pending"]
VARIANT = OFFSETS["variant"]
PER_STEP = OFFSETS["per_step"]
LADDER4 = OFFSETS["ladder4"]
EXCEPTION_DOUBLE = OFFSETS["exception_double"]
SIXONE_REQUIRES_PLAY = OFFSETS["sixone_requires_play"]
NORMAL_DOUBLES3 = OFFSETS["normal_doubles3"]
ROLLS_PLAYED = OFFSETS["rolls_played"]
VARIANT_MORE = OFFSETS["variant_more"]
_SIZE = sum(count for _, count in SLOTS)


def splitmix64(seed: int, count: int) -> list[int]:
    """The first ``count`` outputs of SplitMix64 (Steele, Lea, Flood 2014) from state ``seed``."""
    out = []
    state = seed & _MASK
    for _ in range(count):
        state = (state + 0x9E3779B97F4A7C15) & _MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        out.append(z ^ (z >> 31))
    return out


#: The key table, ``len(KEYS) == 941``; see the module docstring for its layout.
KEYS: tuple[int, ...] = tuple(splitmix64(SEED, _SIZE))


def variant_slot(index: int) -> int:
    """The place in :data:`KEYS` of the key of the variant with index ``index`` in ``VARIANTS``."""
    first = dict(SLOTS)["variant"]
    return VARIANT + index if index < first else VARIANT_MORE + index - first


def point_key(index: int, count: int) -> int:
    """The key of White point ``index+1`` holding ``count`` (signed) checkers; 0 for an empty point."""
    if count == 0:
        return 0
    return KEYS[POINT + 30 * index + (count + 15 if count < 0 else count + 14)]


def position_key(
    variant: str,
    turn: str,
    board: Sequence[int],
    bar: Sequence[int],
    off: Sequence[int],
    first_roll: Sequence[bool],
    pending: Sequence[int],
    flags: Flags,
    rolls_played: Sequence[int] = (0, 0),
) -> int:
    """The Zobrist key of a whole state, computed from scratch."""
    key = KEYS[variant_slot(VARIANTS.index(variant))]
    for index, count in enumerate(board):
        key ^= point_key(index, count)
    for side in (0, 1):
        if bar[side]:
            key ^= KEYS[BAR + 15 * side + bar[side] - 1]
        if off[side]:
            key ^= KEYS[OFF + 15 * side + off[side] - 1]
        if first_roll[side]:
            key ^= KEYS[FIRST_ROLL + side]
    if turn == "black":
        key ^= KEYS[BLACK_TO_MOVE]
    for k, value in enumerate(pending):
        key ^= KEYS[PENDING + 6 * k + value - 1]
    for side in (0, 1):
        if rolls_played[side]:
            key ^= KEYS[ROLLS_PLAYED + 3 * side + rolls_played[side] - 1]
    for name, flag_value in flags:
        spec = FLAG_BY_NAME[name]
        if spec.bit:
            if flag_value == spec.other:
                key ^= KEYS[OFFSETS[spec.key]]
        else:
            for die in cast("tuple[int, ...]", flag_value):
                key ^= KEYS[OFFSETS[spec.key] + die - 1]
    return key
