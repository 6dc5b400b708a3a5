"""Move generation over many packed rows at once (:mod:`nardy_fast.layout`), without a Python object per
child: the checks and the reference's batch, shared by both implementations.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Optional, Protocol, TypeVar, cast

import numpy as np
import numpy.typing as npt

from .errors import InvalidDiceError, InvalidPositionError, NardyError, SearchLimitError, field_error
from .layout import WIDTH, Rows, pack, unpack

if TYPE_CHECKING:
    from .position import Position

__all__ = ["WIDTH", "pack", "unpack", "Kernel", "OneRow", "BatchResult", "as_array", "check_rows", "check_rolls", "explain", "python_kernel"]


def as_array(value: object, field: str, cls: type[NardyError], shape: str) -> npt.NDArray[np.generic]:
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


def check_rows(positions: object, field: str) -> Rows:
    """A C-contiguous ``int8`` matrix of positions that belongs to the call, without silent wrap-around of
    out-of-range values.

    The copy is made before any check: the caller's array may be changed by another thread meanwhile, or be the
    very buffer a result is written to, and the values checked must be the values used.
    """
    array = as_array(positions, field, NardyError, f"(N, {WIDTH})")
    if array.ndim == 1:
        array = array[None, :]
    if array.ndim != 2 or array.shape[1] != WIDTH or array.dtype.kind not in "iu":
        raise field_error(NardyError, field, f"must be an integer array of shape (N, {WIDTH})", array.shape)
    array = np.array(array, order="C", copy=True)
    if array.dtype != np.int8:
        if array.size and (array.min() < -128 or array.max() > 127):
            raise field_error(InvalidPositionError, field, "values must fit in int8", (array.min(), array.max()))
    return array.astype(np.int8, copy=False)


def check_rolls(rolls: object, count: int) -> Rows:
    """One roll for every row, or a roll per row: a C-contiguous ``int8`` array (1, 2) or (N, 2)."""
    array = as_array(rolls, "rolls", InvalidDiceError, f"({count}, 2)")
    if array.ndim == 1:
        array = array[None, :]
    if array.ndim != 2 or array.shape[1] != 2 or array.shape[0] not in (1, count) or array.dtype.kind not in "iu":
        raise field_error(InvalidDiceError, "rolls", f"must be (d1, d2) or an integer array of shape ({count}, 2)", rolls)
    if array.size and (array.min() < 0 or array.max() > 6):
        raise field_error(InvalidDiceError, "rolls", "die values must be 1..6 (0, 0 for a pending list)", rolls)
    return np.ascontiguousarray(array.astype(np.int8))


def explain(positions: Rows, rolls: Rows, index: int) -> NardyError:
    """The error for the row a kernel stopped at, ``index`` (a position, or its roll when ``index >= len(positions)``)."""
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


#: ``(children, offsets, keys)``: the CSR form of the children of a batch.
BatchResult = tuple[Rows, npt.NDArray[np.int64], npt.NDArray[np.uint64]]


class Kernel(Protocol):
    """An implementation's batch search over checked arrays (C-contiguous ``int8``, rolls one row or N).

    Returns ``(children, offsets, keys, bad, over)``: ``bad`` is -1, or the first row whose position failed
    its checks (``bad + N`` when it was its roll), or, with ``over``, whose search needed more than ``limit``
    positions after one number of steps (0: no limit).
    """

    def __call__(
        self, positions: Rows, rolls: Rows, limit: int
    ) -> tuple[Optional[Rows], Optional[npt.NDArray[np.int64]], Optional[npt.NDArray[np.uint64]], int, bool]:
        """The children of every row, or where the batch stopped."""
        ...


def python_kernel(position_class: type[Position], child_rows: ChildRows) -> Kernel:
    """The batch kernel of an implementation's ``Position`` class, one position object per row, whose
    children come from ``child_rows(position, roll, limit)``: each child's packed row and key, in the order of
    ``legal_moves``, ``SearchLimitError`` over ``limit``."""

    def kernel(
        positions: Rows, rolls: Rows, limit: int
    ) -> tuple[Optional[Rows], Optional[npt.NDArray[np.int64]], Optional[npt.NDArray[np.uint64]], int, bool]:
        offsets = np.zeros(len(positions) + 1, dtype=np.int64)
        rows = bytearray()  # the rows' bytes and the keys, with no object per result (ladders have millions)
        keys = array("Q")
        for index, row in enumerate(positions):
            try:
                position = position_class._trusted(unpack(row))
            except NardyError:
                return None, None, None, index, False
            d1, d2 = (int(v) for v in rolls[index if len(rolls) > 1 else 0])
            if (position.pending and (d1, d2) != (0, 0)) or (not position.pending and not (d1 and d2)):
                if not (position.is_over() and (d1, d2) == (0, 0)):  # a finished game: no moves, no dice
                    return None, None, None, index + len(positions), False
            if position.is_over():
                offsets[index + 1] = len(keys)
                continue
            try:
                for child, key in child_rows(position, None if (d1, d2) == (0, 0) else (d1, d2), limit):
                    rows += child
                    keys.append(key)
            except SearchLimitError:
                return None, None, None, index, True
            offsets[index + 1] = len(keys)
        children = np.frombuffer(rows, dtype=np.int8).reshape(len(keys), WIDTH)
        return children, offsets, np.frombuffer(keys, dtype=np.uint64), -1, False

    return kernel


#: A position's children for a roll (``None``: its pending list) under a search bound: each one's packed row
#: and Zobrist key.
ChildRows = Callable[["Position", Optional[tuple[int, int]], int], Iterable[tuple[bytes, int]]]


#: An implementation's shortcut for one row: its children, or ``None`` for anything it leaves to the batch
#: (a row or roll to be checked and explained, a search over its limit).
OneRow = Callable[[object, Optional[Sequence[int]], int], Optional[Rows]]

#: An implementation's own search of many positions over a built-in evaluator: ``values(rows, plies, kind,
#: tables, threads)``, value(row, plies) (n, 5) of checked rows for their sides to move
#: (:meth:`nardy_fast.evaluation.search.Search.values`, in C).
ValuesKernel = Callable[[Rows, int, int, object, int], npt.NDArray[np.float64]]


ArrayT = TypeVar("ArrayT", bound=npt.NDArray[np.generic])


def handed_out(array: ArrayT) -> ArrayT:
    """A copy of ``array`` for the policy, which the package never reads again (it keeps the original to
    itself): read-only over an immutable ``bytes`` object, so neither it nor any array in its ``base`` chain
    can be made writable. (An array that owns its data can always be made writable again, and memory behind
    ``__array_interface__`` can be written by anyone: what is handed out is therefore also never read back.)
    The children and offsets of unfinished games are at least 16 bytes, so ``tobytes`` makes a ``bytes``
    object of their own, never one of the interpreter's shared one-byte objects."""
    return cast(ArrayT, np.frombuffer(array.tobytes(), dtype=array.dtype).reshape(array.shape))
