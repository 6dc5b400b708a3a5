"""Checking and normalising user input into a position state, shared by both implementations.

Validation lives here once so that both implementations reject the same input with the same exception class
and message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple, Optional, cast

from .board import block_is_legal, to_mover
from .errors import InvalidDiceError, InvalidPositionError, NardyError, SearchLimitError, field_error
from .inputs import boolean, choice, integer, items
from .variants import LONG_FAMILY, SPECS, VARIANTS, Flags, flag, normalize_flags

__all__ = ["State", "TURNS", "check_turn", "make_state", "start_state", "check_state", "check_roll", "check_limit", "limit_error"]


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
    #: (White, Black) rolls played, counted up to ``normal_doubles_first_rolls`` (docs/rules.md, Rule flags);
    #: (0, 0) where the flag is 0 or does not apply.
    rolls_played: tuple[int, int] = (0, 0)


def _ints(value: object, low: int, high: int) -> Optional[tuple[int, ...]]:
    """The items of a sequence of integers ``low..high``, else ``None``."""
    values = items(value)
    if values is None:
        return None
    ints = tuple(integer(v) for v in values)
    if any(v is None or not low <= v <= high for v in ints):
        return None
    return ints  # type: ignore[return-value]


def _int_pair(field: str, value: object, low: int, high: int) -> tuple[int, int]:
    pair = _ints(value, low, high)
    if pair is None or len(pair) != 2:
        raise field_error(InvalidPositionError, field, f"must be two integers {low}..{high}", value)
    return (pair[0], pair[1])


def _board(value: object) -> tuple[int, ...]:
    board = items(value)
    if board is None:
        raise field_error(InvalidPositionError, "board", "must be a sequence of 24 integers", value)
    if len(board) != 24:
        raise field_error(InvalidPositionError, "board", f"must have 24 points, not {len(board)}", value)
    cells = []
    for index, count in enumerate(board):
        number = integer(count)
        if number is None or not -15 <= number <= 15:
            raise field_error(InvalidPositionError, f"board[{index}]", "must be an integer -15..15", count)
        cells.append(number)
    return tuple(cells)


def _pending(variant: str, value: object, flags: Flags) -> tuple[int, ...]:
    """A pending transfer list (docs/rules.md, Gulbar transfers): a possible remainder of a gulbar/crazy
    roll."""
    if items(value) is None:
        raise field_error(InvalidPositionError, "pending", "must be a sequence of die values", value)
    if not items(value):
        return ()
    if not SPECS[variant].transfers:
        raise field_error(InvalidPositionError, "pending", f"variant {variant!r} has no transfers", value)
    values = _ints(value, 1, 6)
    if values is None:
        raise field_error(InvalidPositionError, "pending", "values must be die values 1..6", value)
    pending = values
    if len(pending) == 2 and pending[0] != pending[1]:
        return (max(pending), min(pending))
    if len(pending) == 1:
        return pending
    # what is left of a double of four steps: gulbar's, or crazy's while doubles are not ladders (flag
    # normal_doubles_first_rolls)
    normal = not SPECS[variant].ladder or flag(flags, "normal_doubles_first_rolls") != 0
    if normal and len(set(pending)) == 1 and len(pending) <= 4:
        return pending
    if not SPECS[variant].ladder:
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
        "must be one value, two different values, 2..4 equal values or a suffix of a crazy ladder"
        if normal
        else "must be one value, two different values or a suffix of a crazy ladder",
        value,
    )


#: The side to move's names: in full, or as the position text writes them (``w``, ``b``).
TURNS = {"white": "white", "black": "black", "w": "white", "b": "black"}


def check_turn(turn: object, field: str = "turn") -> str:
    """``"white"`` or ``"black"`` for one of :data:`TURNS` (a plain string), else an
    ``InvalidPositionError`` naming ``field``."""
    known = choice(turn, tuple(TURNS))
    if known is None:
        raise field_error(InvalidPositionError, field, "must be 'white' or 'black' (or 'w', 'b')", turn)
    return TURNS[known]


def make_state(
    variant: object,
    board: object,
    turn: object,
    bar: object,
    off: object,
    first_roll: object,
    pending: object,
    flags: Mapping[str, object],
    rolls_played: object = (0, 0),
) -> State:
    """Check every field of a position and return it normalised."""
    known_variant = choice(variant, VARIANTS)
    if known_variant is None:
        raise field_error(InvalidPositionError, "variant", f"must be one of {VARIANTS}", variant)
    variant = known_variant
    flag_values = normalize_flags(variant, flags)
    turn = check_turn(turn)
    cells = _board(board)
    bars = _int_pair("bar", bar, 0, 15)
    offs = _int_pair("off", off, 0, 15)
    firsts = items(first_roll)
    first = None if firsts is None else tuple(boolean(v) for v in firsts)
    if first is None or len(first) != 2 or None in first:
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
                    "checker past them; docs/rules.md, Block rule)",
                    board,
                )
    counted = cast(int, flag(flag_values, "normal_doubles_first_rolls"))
    played = _int_pair("rolls_played", rolls_played, 0, counted)
    return State(variant, turn, cells, bars, offs, (bool(first[0]), bool(first[1])), pend, flag_values, played)


def start_state(variant: str, flags: Mapping[str, object]) -> State:
    """The starting position of ``variant`` under ``flags`` (checked), from its table: White to move, both
    first rolls to come (docs/rules.md, The five games)."""
    return make_state(variant, SPECS[variant].start, "white", (0, 0), (0, 0), (True, True), (), flags)


def check_state(state: object) -> State:
    """A ``State`` given by a user (``Position(state)``), checked field by field as :func:`make_state` does."""
    if not isinstance(state, State):
        raise field_error(InvalidPositionError, "state", "must be a State (as Position.state gives)", state)
    pairs = items(state.flags)
    names = None if pairs is None else [items(pair) for pair in pairs]
    if names is None or any(pair is None or len(pair) != 2 or not isinstance(pair[0], str) for pair in names):
        raise field_error(InvalidPositionError, "flags", "must be (name, value) pairs", state.flags)
    # a flag's name as a plain str: a subclass's __str__, __eq__ or __hash__ takes no part
    flags: dict[str, object] = {str.__str__(pair[0]): pair[1] for pair in names}  # type: ignore[index]
    if len(flags) != len(names):
        raise field_error(InvalidPositionError, "flags", "must name each flag once", state.flags)
    return make_state(
        state.variant,
        state.board,
        state.turn,
        state.bar,
        state.off,
        state.first_roll,
        state.pending,
        flags,
        state.rolls_played,
    )


def check_roll(dice: object, pending: tuple[int, ...]) -> Optional[tuple[int, int]]:
    """The roll to play: ``None`` for a pending transfer list, else two die values 1..6 (docs/rules.md, Rolls
    and the dice list)."""
    if pending:
        if dice is not None:
            raise field_error(
                InvalidDiceError, "dice", f"must be omitted while pending {pending!r} is to be played", dice
            )
        return None
    if dice is None:
        raise field_error(InvalidDiceError, "dice", "a roll of two dice is required", dice)
    values = _ints(dice, 1, 6)
    if values is None or len(values) != 2:
        raise field_error(InvalidDiceError, "dice", "must be two die values 1..6", dice)
    return (values[0], values[1])


def check_limit(max_results: object) -> int:
    """``max_results`` of a move search: ``None`` (no limit, returned as 0) or a positive integer."""
    if max_results is None:
        return 0
    limit = integer(max_results)
    if limit is None or limit < 1:
        raise field_error(NardyError, "max_results", "must be a positive integer or None", max_results)
    return min(limit, 1 << 62)  # beyond any search, and within the core's 64-bit counts


def limit_error(limit: int) -> SearchLimitError:
    """The error of a search that needed more than ``limit`` positions reached by one number of steps."""
    return field_error(  # type: ignore[return-value]
        SearchLimitError, "max_results", "the search needs more positions after one number of steps", limit
    )
