"""Checking and normalising user input into a position state (RULES.md §1.3), shared by both implementations.

Validation lives here once so that both implementations reject the same input with the same exception class
and message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple, Optional, cast

from .errors import InvalidDiceError, InvalidPositionError, field_error
from .reference.rules import block_is_legal, to_mover
from .variants import LONG_FAMILY, VARIANTS, Flags, flag, normalize_flags

__all__ = ["State", "make_state", "check_roll"]


class State(NamedTuple):
    """A whole game state in White's numbering (the fields of ``Position``)."""

    variant: str
    turn: str
    board: tuple[int, ...]
    bar: tuple[int, int]
    off: tuple[int, int]
    first_roll: tuple[bool, bool]
    pending: tuple[int, ...]
    flags: Flags


def _int_pair(field: str, value: object, low: int, high: int) -> tuple[int, int]:
    if (
        not isinstance(value, (tuple, list))
        or len(value) != 2
        or any(type(v) is not int or not low <= v <= high for v in value)
    ):
        raise field_error(InvalidPositionError, field, f"must be two integers {low}..{high}", value)
    return (value[0], value[1])


def _board(value: object) -> tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or not hasattr(value, "__iter__"):
        raise field_error(InvalidPositionError, "board", "must be a sequence of 24 integers", value)
    board = tuple(value)
    if len(board) != 24:
        raise field_error(InvalidPositionError, "board", f"must have 24 points, not {len(board)}", value)
    for index, count in enumerate(board):
        if not isinstance(count, int) or isinstance(count, bool) or not -15 <= count <= 15:
            raise field_error(
                InvalidPositionError, f"board[{index}]", "must be an integer -15..15", count
            )
    return tuple(int(c) for c in board)


def _pending(variant: str, value: object, flags: Flags) -> tuple[int, ...]:
    """A pending transfer list (RULES §5.2, §1.8.1): a possible remainder of a gulbar/crazy roll."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise field_error(InvalidPositionError, "pending", "must be a sequence of die values", value)
    pending = tuple(value)
    if not pending:
        return ()
    if variant not in ("gulbar", "crazy"):
        raise field_error(InvalidPositionError, "pending", f"variant {variant!r} has no transfers", value)
    if any(type(v) is not int or not 1 <= v <= 6 for v in pending):
        raise field_error(InvalidPositionError, "pending", "values must be die values 1..6", value)
    if len(pending) == 2 and pending[0] != pending[1]:
        return (max(pending), min(pending))
    if len(pending) == 1:
        return pending
    if variant == "gulbar":
        if len(set(pending)) == 1 and len(pending) <= 4:
            return pending
        raise field_error(
            InvalidPositionError, "pending", "must be one value, two values or 2..4 equal values", value
        )
    per_value = cast(int, flag(flags, "ladder_per_value"))
    ladder_from_one = tuple(v for v in range(1, 7) for _ in range(per_value))
    if len(pending) <= len(ladder_from_one) and pending == ladder_from_one[-len(pending) :]:
        return pending
    raise field_error(
        InvalidPositionError,
        "pending",
        "must be one value, two different values or a suffix of a crazy ladder",
        value,
    )


def make_state(
    variant: object,
    board: object,
    turn: object,
    bar: object,
    off: object,
    first_roll: object,
    pending: object,
    flags: Mapping[str, object],
) -> State:
    """Check every field of a position (RULES §1.3 invariants) and return it normalised."""
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise field_error(InvalidPositionError, "variant", f"must be one of {VARIANTS}", variant)
    flag_values = normalize_flags(variant, flags)
    if turn not in ("white", "black") or not isinstance(turn, str):
        raise field_error(InvalidPositionError, "turn", "must be 'white' or 'black'", turn)
    cells = _board(board)
    bars = _int_pair("bar", bar, 0, 15)
    offs = _int_pair("off", off, 0, 15)
    if (
        not isinstance(first_roll, (tuple, list))
        or len(first_roll) != 2
        or any(type(v) is not bool for v in first_roll)
    ):
        raise field_error(InvalidPositionError, "first_roll", "must be two booleans", first_roll)
    if variant in LONG_FAMILY and bars != (0, 0):
        raise field_error(InvalidPositionError, "bar", f"variant {variant!r} has no bar", bar)
    for side, name in ((0, "White"), (1, "Black")):
        on_board = sum(c for c in cells if c > 0) if side == 0 else -sum(c for c in cells if c < 0)
        total = on_board + bars[side] + offs[side]
        if total != 15:
            raise field_error(
                InvalidPositionError,
                "board",
                f"{name} has {on_board} on the board, {bars[side]} on the bar and {offs[side]} off: "
                f"{total}, not 15",
                board,
            )
    if offs == (15, 15):
        raise field_error(InvalidPositionError, "off", "both sides cannot have borne off all", off)
    pend = _pending(variant, pending, flag_values)
    if pend and 15 in offs:
        raise field_error(InvalidPositionError, "pending", "must be empty once the game is over", pending)
    if variant in LONG_FAMILY:
        for side_name in ("white", "black"):
            view = to_mover(variant, side_name, cells, bars, offs)
            if not block_is_legal(view.x, view.y):
                raise field_error(
                    InvalidPositionError,
                    "board",
                    f"{side_name.capitalize()} holds an illegal block (6 points in a row with no opponent "
                    "checker past them, RULES §1.7 B)",
                    board,
                )
    first = (bool(first_roll[0]), bool(first_roll[1]))
    return State(variant, turn, cells, bars, offs, first, pend, flag_values)


def check_roll(dice: object, pending: tuple[int, ...]) -> Optional[tuple[int, int]]:
    """The roll to play: ``None`` for a pending transfer list, else two die values 1..6 (RULES §1.4)."""
    if pending:
        if dice is not None:
            raise field_error(
                InvalidDiceError, "dice", f"must be omitted while pending {pending!r} is to be played", dice
            )
        return None
    if dice is None:
        raise field_error(InvalidDiceError, "dice", "a roll of two dice is required", dice)
    if (
        not isinstance(dice, (tuple, list))
        or len(dice) != 2
        or any(type(v) is not int or not 1 <= v <= 6 for v in dice)
    ):
        raise field_error(InvalidDiceError, "dice", "must be two die values 1..6", dice)
    return (dice[0], dice[1])
