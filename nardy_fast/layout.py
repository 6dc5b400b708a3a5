"""The packed row: a whole position in 64 ``int8`` values, the layout of the NumPy API and of the core's C
struct (which checks itself against :data:`COLUMNS` at import).

=========  ======================  =======================================================================
columns    name                    field
=========  ======================  =======================================================================
0..23      ``BOARD``               checkers on White's points 1..24, Black negative
24, 25     ``BAR``                 checkers on the bar (White, Black)
26, 27     ``OFF``                 checkers borne off (White, Black)
28         ``TURN``                the side to move: 0 White, 1 Black
29, 30     ``FIRST_ROLL``          first roll still to come (White, Black), 0 or 1
31         ``VARIANT``             the variant's index in ``VARIANTS``
32         ``FLAGS``               the bits of the two-valued rule flags (``FlagSpec.bit``): 1
                                   ``block_check=per_step``, 2 ``ladder_per_value=4``, 4
                                   ``sixone_extra_roll_requires_play=True``
33         ``EXCEPTION_DOUBLES``   ``first_roll_exception_doubles``: bit ``d-1`` for double ``d`` (0 where
                                   the flag does not apply)
34         ``NPENDING``            the length of ``pending``
35..58     ``PENDING``             ``pending``, then zeros (a two-value list higher first)
59, 60     ``ROLLS_PLAYED``        ``rolls_played`` (White, Black)
61..63     ``RESERVED``            zero
=========  ======================  =======================================================================

Every position has exactly one row, so rows can be compared, hashed and de-duplicated as bytes. The
column constants (``layout.OFF`` is 26, White's borne-off count) serve code that reads rows directly.
"""

from __future__ import annotations

from itertools import accumulate
from typing import cast

import numpy as np
import numpy.typing as npt

from .board import mover_point
from .errors import InvalidPositionError, field_error
from .state import State, make_state
from .variants import FLAG_BITS, FLAG_BY_NAME, FLAG_SPECS, VARIANT_SPECS, VARIANTS

__all__ = [
    "COLUMNS",
    "WIDTH",
    "BOARD",
    "BAR",
    "OFF",
    "TURN",
    "FIRST_ROLL",
    "VARIANT",
    "FLAGS",
    "EXCEPTION_DOUBLES",
    "NPENDING",
    "PENDING",
    "ROLLS_PLAYED",
    "RESERVED",
    "pack",
    "unpack",
    "turn",
    "winner",
    "is_over",
    "points",
    "is_race",
    "is_bearoff",
]

#: The fields of a row in order, ``(name, width)``.
COLUMNS: tuple[tuple[str, int], ...] = (
    ("BOARD", 24),
    ("BAR", 2),
    ("OFF", 2),
    ("TURN", 1),
    ("FIRST_ROLL", 2),
    ("VARIANT", 1),
    ("FLAGS", 1),
    ("EXCEPTION_DOUBLES", 1),
    ("NPENDING", 1),
    ("PENDING", 24),
    ("ROLLS_PLAYED", 2),
    ("RESERVED", 3),
)
_START = dict(zip((name for name, _ in COLUMNS), accumulate((width for _, width in COLUMNS), initial=0)))
WIDTH: int = sum(width for _, width in COLUMNS)
BOARD, BAR, OFF, TURN, FIRST_ROLL = (_START[n] for n in ("BOARD", "BAR", "OFF", "TURN", "FIRST_ROLL"))
VARIANT, FLAGS, EXCEPTION_DOUBLES = (_START[n] for n in ("VARIANT", "FLAGS", "EXCEPTION_DOUBLES"))
NPENDING, PENDING, ROLLS_PLAYED, RESERVED = (_START[n] for n in ("NPENDING", "PENDING", "ROLLS_PLAYED", "RESERVED"))

Rows = npt.NDArray[np.int8]


def pack(state: State) -> Rows:
    """The row of a state."""
    row = np.zeros(WIDTH, dtype=np.int8)
    row[BOARD : BOARD + 24] = state.board
    row[BAR : BAR + 2] = state.bar
    row[OFF : OFF + 2] = state.off
    row[TURN] = state.turn == "black"
    row[FIRST_ROLL : FIRST_ROLL + 2] = state.first_roll
    row[VARIANT] = VARIANTS.index(state.variant)
    for name, value in state.flags:
        spec = FLAG_BY_NAME[name]
        if spec.bit:
            row[FLAGS] |= spec.bit if value == spec.other else 0
        else:
            row[EXCEPTION_DOUBLES] = sum(1 << (d - 1) for d in cast("tuple[int, ...]", value))
    row[NPENDING] = len(state.pending)
    row[PENDING : PENDING + len(state.pending)] = state.pending
    row[ROLLS_PLAYED : ROLLS_PLAYED + 2] = state.rolls_played
    return row


def _flags_of(variant: str, bits: int, doubles: int) -> dict[str, object]:
    """The flag keywords of a row's flag columns (checked afterwards by ``make_state``)."""
    flags: dict[str, object] = {}
    for spec in FLAG_SPECS:
        if spec.bit and bits & spec.bit:
            flags[spec.name] = spec.other
        elif not spec.bit and (variant in spec.variants or doubles):
            flags[spec.name] = tuple(d for d in range(6, 0, -1) if doubles >> (d - 1) & 1)
    return flags


def unpack(row: object) -> State:
    """The checked state of a row; raises ``InvalidPositionError`` naming the field for a bad row."""
    array = np.asarray(row)
    if array.shape != (WIDTH,) or array.dtype.kind not in "iu":
        raise field_error(InvalidPositionError, "array", f"must be {WIDTH} integers", row)
    values = [int(v) for v in array]
    if not 0 <= values[VARIANT] < len(VARIANTS):
        raise field_error(
            InvalidPositionError, "variant", f"must be an index 0..{len(VARIANTS) - 1}", values[VARIANT]
        )
    variant = VARIANTS[values[VARIANT]]
    for column, name in ((TURN, "turn"), (FIRST_ROLL, "first_roll"), (FIRST_ROLL + 1, "first_roll")):
        if values[column] not in (0, 1):
            raise field_error(InvalidPositionError, name, "must be 0 or 1 in an array", values[column])
    if values[FLAGS] & ~FLAG_BITS:
        raise field_error(InvalidPositionError, "flags", "unknown flag bits", values[FLAGS])
    if not 0 <= values[EXCEPTION_DOUBLES] < 64:
        raise field_error(
            InvalidPositionError, "first_roll_exception_doubles", "must be a 6-bit mask", values[EXCEPTION_DOUBLES]
        )
    count = values[NPENDING]
    if not 0 <= count <= 24 or any(values[PENDING + count : ROLLS_PLAYED]) or any(values[RESERVED:WIDTH]):
        raise field_error(
            InvalidPositionError, "pending", "length and zero padding do not agree", values[NPENDING:ROLLS_PLAYED]
        )
    pending = tuple(values[PENDING : PENDING + count])
    if len(pending) == 2 and pending[0] < pending[1]:
        raise field_error(InvalidPositionError, "pending", "two different values must be stored higher first", pending)
    return make_state(
        variant,
        values[BOARD : BOARD + 24],
        "black" if values[TURN] else "white",
        tuple(values[BAR : BAR + 2]),
        tuple(values[OFF : OFF + 2]),
        (bool(values[FIRST_ROLL]), bool(values[FIRST_ROLL + 1])),
        pending,
        _flags_of(variant, values[FLAGS], values[EXCEPTION_DOUBLES]),
        tuple(values[ROLLS_PLAYED : ROLLS_PLAYED + 2]),
    )


# --- reading game facts from rows, vectorised (the same for both implementations: plain NumPy) ---------------


def _matrix(rows: object) -> npt.NDArray[np.int8]:
    shape = f"must be an integer array of shape (N, {WIDTH})"
    try:
        array = np.asarray(rows)
    except (ValueError, TypeError, OverflowError):  # ragged lists, objects NumPy cannot convert
        raise field_error(InvalidPositionError, "rows", shape, rows) from None
    if array.ndim == 1:
        array = array[None, :]
    if array.ndim != 2 or array.shape[1] != WIDTH or array.dtype.kind not in "iu":
        raise field_error(InvalidPositionError, "rows", shape, array.shape)
    # a value outside int8 would wrap round into another, valid-looking one
    if array.dtype != np.int8 and array.size and (array.min() < -128 or array.max() > 127):
        raise field_error(InvalidPositionError, "rows", "values must fit in int8", (array.min(), array.max()))
    return array.astype(np.int8, copy=False)


def turn(rows: object) -> npt.NDArray[np.int8]:
    """The side to move of each row: 0 White, 1 Black."""
    return _matrix(rows)[:, TURN].copy()


def winner(rows: object) -> npt.NDArray[np.int8]:
    """The winner of each row: 0 White, 1 Black, -1 while the game goes on."""
    matrix = _matrix(rows)
    out = np.full(len(matrix), -1, dtype=np.int8)
    out[matrix[:, OFF] == 15] = 0
    out[matrix[:, OFF + 1] == 15] = 1
    return out


def is_over(rows: object) -> npt.NDArray[np.bool_]:
    """Whether each row's game is over (a side has borne off all 15)."""
    return winner(rows) >= 0


def points(rows: object) -> npt.NDArray[np.int8]:
    """The points the winner of each row scores (docs/rules.md, Game end and scoring): 1; mars 2 when the
    loser bore off none; koks 3 (where the variant has it) when that loser also has a checker on the bar or in
    the winner's home; 0 while the game goes on."""
    matrix = _matrix(rows).astype(np.int16)
    won = winner(matrix)
    loser = np.where(won == 1, 0, 1)
    index = np.arange(len(matrix))
    mars = matrix[index, OFF + loser] == 0
    # the winner's home in White's numbering: White's points 1..6 for White; Black's M1..M6 for Black, White's
    # 13..18 in the long family and 19..24 in short nardy (only short nardy has koks)
    black_home = matrix[:, BOARD + 18 : BOARD + 24]
    loser_in_home = np.where(won == 0, (matrix[:, BOARD : BOARD + 6] < 0).any(axis=1), (black_home > 0).any(axis=1))
    koks_variants = np.array([spec.koks for spec in VARIANT_SPECS])
    koks = koks_variants[np.clip(matrix[:, VARIANT], 0, len(VARIANT_SPECS) - 1)] & (
        (matrix[index, BAR + loser] > 0) | loser_in_home
    )
    out = np.where(mars, np.where(koks, 3, 2), 1).astype(np.int8)
    out[won < 0] = 0
    return out


# --- races and bear-off positions (docs/rules.md, Races and bear-off positions) -------------------------------

#: Whether each variant (by index) is of the long family.
_LONG = np.array([spec.family == "long" for spec in VARIANT_SPECS])
#: For each variant (by index), the board column of Black's own points 1..24.
_BLACK_COLUMNS = np.array([[mover_point(spec.name, m) - 1 for m in range(1, 25)] for spec in VARIANT_SPECS])


def _own_points(matrix: npt.NDArray[np.int8]) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """(N, 24) masks: White has a checker on White's point ``p`` (column ``p - 1``), Black one on Black's own
    point ``p``."""
    variant = matrix[:, VARIANT]
    bad = (variant < 0) | (variant >= len(VARIANTS))
    if bad.any():
        raise field_error(
            InvalidPositionError, "rows", f"the variant column must be an index 0..{len(VARIANTS) - 1}", variant[bad][0]
        )
    board = matrix[:, BOARD : BOARD + 24]
    return board > 0, np.take_along_axis(board, _BLACK_COLUMNS[variant], axis=1) < 0


def is_race(rows: object) -> npt.NDArray[np.bool_]:
    """Whether each row is a race, its sides never able to touch again (docs/rules.md, Races and bear-off
    positions): in the long family every checker on its side's own points 1..12; in short nardy both bars empty
    and every White checker on a lower White point than every Black checker; and every finished game."""
    matrix = _matrix(rows)
    white, black = _own_points(matrix)
    long_race = ~white[:, 12:].any(axis=1) & ~black[:, 12:].any(axis=1)
    board = matrix[:, BOARD : BOARD + 24]
    columns = np.arange(24)
    passed = np.where(board > 0, columns, -1).max(axis=1) < np.where(board < 0, columns, 24).min(axis=1)
    short_race = passed & (matrix[:, BAR : BAR + 2] == 0).all(axis=1)
    race: npt.NDArray[np.bool_] = np.where(_LONG[matrix[:, VARIANT]], long_race, short_race) | is_over(matrix)
    return race


def is_bearoff(rows: object) -> npt.NDArray[np.bool_]:
    """Whether each row is a bear-off position (docs/rules.md, Races and bear-off positions): every checker
    on the board on its side's own points 1..6, none on the bar."""
    matrix = _matrix(rows)
    white, black = _own_points(matrix)
    home: npt.NDArray[np.bool_] = (
        ~white[:, 6:].any(axis=1) & ~black[:, 6:].any(axis=1) & (matrix[:, BAR : BAR + 2] == 0).all(axis=1)
    )
    return home
