"""Positions as NumPy rows, and move generation over many of them at once without a Python object per child.

A position packs into 64 ``int8`` values (``WIDTH``), in this documented layout:

=========  =================================================================================================
columns    field
=========  =================================================================================================
0..23      ``board``: checkers on White's points 1..24, Black negative
24, 25     ``bar`` (White, Black)
26, 27     ``off`` (White, Black)
28         ``turn``: 0 White, 1 Black
29, 30     ``first_roll`` (White, Black), 0 or 1
31         ``variant``: its index in ``VARIANTS``
32         flag bits: 1 ``block_check=per_step``, 2 ``ladder_per_value=4``, 4 ``sixone_extra_roll_requires_play``
33         ``first_roll_exception_doubles``: bit ``d-1`` for double ``d`` (0 where the flag does not apply)
34         length of ``pending``
35..58     ``pending``, then zeros (a two-value list higher first)
59..63     zero
=========  =================================================================================================

Every position has exactly one row, so rows can be compared, hashed and de-duplicated as bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Optional, cast

import numpy as np
import numpy.typing as npt

from .errors import InvalidDiceError, InvalidPositionError, NardyError, SearchLimitError, field_error
from .state import State, check_limit, limit_error, make_state
from .variants import FLAG_SPECS, VARIANTS

if TYPE_CHECKING:
    from .position import Position

__all__ = ["WIDTH", "pack", "unpack", "children", "batch_children", "python_batch_children", "use_core"]

WIDTH = 64
_core: Optional[ModuleType] = None  # the compiled core when it serves the package (see use_core)
_FLAG_BITS = {("block_check", "per_step"): 1, ("ladder_per_value", 4): 2, ("sixone_extra_roll_requires_play", True): 4}
Rows = npt.NDArray[np.int8]


def pack(state: State) -> Rows:
    """The row of a state."""
    row = np.zeros(WIDTH, dtype=np.int8)
    row[0:24] = state.board
    row[24:26] = state.bar
    row[26:28] = state.off
    row[28] = state.turn == "black"
    row[29:31] = state.first_roll
    row[31] = VARIANTS.index(state.variant)
    for name, value in state.flags:
        if name == "first_roll_exception_doubles":
            row[33] = sum(1 << (d - 1) for d in cast("tuple[int, ...]", value))
        else:
            row[32] |= _FLAG_BITS.get((name, value), 0)
    row[34] = len(state.pending)
    row[35 : 35 + len(state.pending)] = state.pending
    return row


def _flags_of(variant: str, bits: int, doubles: int) -> dict[str, object]:
    flags: dict[str, object] = {}
    applies = {spec.name for spec in FLAG_SPECS if variant in spec.variants}
    for (name, value), bit in _FLAG_BITS.items():
        if bits & bit:
            flags[name] = value
    if "first_roll_exception_doubles" in applies or doubles:
        flags["first_roll_exception_doubles"] = tuple(d for d in range(6, 0, -1) if doubles >> (d - 1) & 1)
    return flags


def unpack(row: object) -> State:
    """The checked state of a row; raises ``InvalidPositionError`` naming the field for a bad row."""
    array = np.asarray(row)
    if array.shape != (WIDTH,) or array.dtype.kind not in "iu":
        raise field_error(InvalidPositionError, "array", f"must be {WIDTH} integers", row)
    values = [int(v) for v in array]
    if not 0 <= values[31] < len(VARIANTS):
        raise field_error(InvalidPositionError, "variant", f"must be an index 0..{len(VARIANTS) - 1}", values[31])
    variant = VARIANTS[values[31]]
    for column, name in ((28, "turn"), (29, "first_roll"), (30, "first_roll")):
        if values[column] not in (0, 1):
            raise field_error(InvalidPositionError, name, "must be 0 or 1 in an array", values[column])
    if values[32] & ~7:
        raise field_error(InvalidPositionError, "flags", "unknown flag bits", values[32])
    if not 0 <= values[33] < 64:
        raise field_error(InvalidPositionError, "first_roll_exception_doubles", "must be a 6-bit mask", values[33])
    count = values[34]
    if not 0 <= count <= 24 or any(values[35 + count : WIDTH]):
        raise field_error(InvalidPositionError, "pending", "length and zero padding do not agree", values[34:59])
    pending = tuple(values[35 : 35 + count])
    if len(pending) == 2 and pending[0] < pending[1]:
        raise field_error(InvalidPositionError, "pending", "two different values must be stored higher first", pending)
    return make_state(
        variant,
        values[0:24],
        "black" if values[28] else "white",
        tuple(values[24:26]),
        tuple(values[26:28]),
        (bool(values[29]), bool(values[30])),
        pending,
        _flags_of(variant, values[32], values[33]),
    )


def _array(value: object, field: str, cls: type[NardyError], shape: str) -> npt.NDArray[np.generic]:
    """``np.asarray(value)`` of an integer dtype, or ``cls`` naming ``field`` (ragged lists, objects, floats;
    a ``bool`` among Python numbers)."""
    try:
        array = np.asarray(value)
    except (ValueError, TypeError, OverflowError):
        array = None
    if array is None or array.dtype.kind not in "iu":
        raise field_error(cls, field, f"must be an integer array of shape {shape}", value)
    if not isinstance(value, np.ndarray) and any(
        isinstance(v, (bool, np.bool_)) for v in np.asarray(value, dtype=object).flat
    ):
        raise field_error(cls, field, "must hold integers, not booleans", value)
    return array


def _rows(positions: object, field: str) -> Rows:
    """A C-contiguous ``int8`` matrix of positions, without silent wrap-around of out-of-range values."""
    array = _array(positions, field, NardyError, f"(N, {WIDTH})")
    if array.ndim == 1:
        array = array[None, :]
    if array.ndim != 2 or array.shape[1] != WIDTH or array.dtype.kind not in "iu":
        raise field_error(NardyError, field, f"must be an integer array of shape (N, {WIDTH})", array.shape)
    if array.dtype != np.int8:
        if array.size and (array.min() < -128 or array.max() > 127):
            raise field_error(InvalidPositionError, field, "values must fit in int8", (array.min(), array.max()))
        array = array.astype(np.int8)
    return np.ascontiguousarray(array)


def _rolls(rolls: object, count: int) -> Rows:
    array = _array(rolls, "rolls", InvalidDiceError, f"({count}, 2)")
    if array.ndim == 1:
        array = array[None, :]
    if array.ndim != 2 or array.shape[1] != 2 or array.shape[0] not in (1, count) or array.dtype.kind not in "iu":
        raise field_error(InvalidDiceError, "rolls", f"must be (d1, d2) or an integer array of shape ({count}, 2)", rolls)
    if array.size and (array.min() < 0 or array.max() > 6):
        raise field_error(InvalidDiceError, "rolls", "die values must be 1..6 (0, 0 for a pending list)", rolls)
    return np.ascontiguousarray(array.astype(np.int8))


def _explain(positions: Rows, rolls: Rows, index: int) -> NardyError:
    """The error for row ``index`` (a position, or its roll when ``index >= len(positions)``)."""
    count = len(positions)
    row = index % count
    try:
        state = unpack(positions[row])
    except NardyError as error:
        return type(error)(f"positions[{row}]: {error}")
    roll = tuple(int(v) for v in rolls[row if len(rolls) > 1 else 0])
    if state.pending:
        return field_error(InvalidDiceError, f"rolls[{row}]", "must be (0, 0) for a position with a pending list", roll)
    return field_error(InvalidDiceError, f"rolls[{row}]", "must be two die values 1..6", roll)


def python_batch_children(
    positions: object, rolls: object, position_class: type[Position], max_results: Optional[int] = None
) -> tuple[Rows, npt.NDArray[np.int64], npt.NDArray[np.uint64]]:
    """``batch_children`` computed through ``position_class`` objects (the reference implementation)."""
    limit = check_limit(max_results)
    matrix = _rows(positions, "positions")
    roll_rows = _rolls(rolls, len(matrix))
    offsets = np.zeros(len(matrix) + 1, dtype=np.int64)
    rows: list[Rows] = []
    keys: list[int] = []
    for index, row in enumerate(matrix):
        try:
            position = position_class(unpack(row))
        except NardyError as error:
            raise type(error)(f"positions[{index}]: {error}") from None
        d1, d2 = (int(v) for v in roll_rows[index if len(roll_rows) > 1 else 0])
        if (position.pending and (d1, d2) != (0, 0)) or (not position.pending and not (d1 and d2)):
            raise _explain(matrix, roll_rows, index + len(matrix))
        try:
            moves = position.legal_moves(None if position.pending else (d1, d2), max_results=limit or None)
        except SearchLimitError as error:
            raise type(error)(f"positions[{index}]: {error}") from None
        for move in moves:
            rows.append(pack(move.result.state))
            keys.append(move.result.zobrist)
        offsets[index + 1] = len(rows)
    children = np.array(rows, dtype=np.int8).reshape(len(rows), WIDTH)
    return children, offsets, np.array(keys, dtype=np.uint64)


def use_core(core: Optional[ModuleType]) -> None:
    """Called once by the package: the compiled core serves the batch API, or ``None`` for the reference."""
    global _core
    _core = core


def batch_children(
    positions: object, rolls: object, *, max_results: Optional[int] = None
) -> tuple[Rows, npt.NDArray[np.int64], npt.NDArray[np.uint64]]:
    """All children of N positions, in CSR form, with no Python object per child.

    ``positions`` is an integer array (N, 64) of rows, ``rolls`` an array (N, 2), or one roll for all; a row
    whose position has a pending list takes the roll (0, 0). Returns ``(children, offsets, keys)``: the
    children of row ``i`` are ``children[offsets[i]:offsets[i+1]]`` (in ``legal_moves`` order) with their
    Zobrist keys in ``keys``. The compiled core releases the GIL while it works, so threads scale; it reads
    each row once, into memory of its own, so an array changed by another thread meanwhile gives the children
    of the rows as they were read, or an error, never a crash. ``max_results`` bounds each row's search as in
    ``Position.legal_moves`` (the error names the row).

    The core's ``children`` and ``keys`` are views of buffers with room to spare (24 rows per position, or a
    larger buffer an earlier call freed; room never written is not mapped in large outputs). Freed buffers, up
    to 64 MB of each kind, are kept for the next calls, whose pages then need no fault.
    """
    if _core is None:
        from . import Position

        return python_batch_children(positions, rolls, Position, max_results)
    limit = check_limit(max_results)
    matrix = _rows(positions, "positions")
    roll_rows = _rolls(rolls, len(matrix))
    children_rows, offsets, keys, bad, over = _core.batch_children(matrix, roll_rows, limit)
    if over:
        error = limit_error(limit)
        raise type(error)(f"positions[{bad}]: {error}")
    if bad >= 0:
        raise _explain(matrix, roll_rows, bad)
    return children_rows, offsets, keys


def children(position: object, dice: Optional[Sequence[int]] = None, *, max_results: Optional[int] = None) -> Rows:
    """The children of one position row for ``dice`` (omitted for a pending list), as one (k, 64) array;
    ``max_results`` as in ``Position.legal_moves``."""
    if _core is not None:
        found = _core.children(position, dice, check_limit(max_results))
        if found is not None:
            return found  # type: ignore[no-any-return]
    roll = (0, 0) if dice is None else dice
    row = _rows(position, "positions")
    return batch_children(row, roll, max_results=max_results)[0]
