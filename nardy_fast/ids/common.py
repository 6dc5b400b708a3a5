"""What the ID formats share: the base64 alphabets, GNU Backgammon's little-endian base64 keys, and the
checks of a text read and of the position it decodes to (layouts in :mod:`nardy_fast.ids`)."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Optional

from ..errors import InvalidNotationError, InvalidPositionError, NardyError, field_error
from ..inputs import boolean, items
from ..state import State, check_roll, make_state
from ..variants import START_BOARDS

#: Standard base64, the alphabet of GNU Backgammon's IDs.
BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
#: The URL-safe alphabet of RFC 4648 section 5, the compact ID's.
BASE64URL = BASE64[:62] + "-_"
#: The sides in the order the formats number them (0 White, 1 Black).
SIDES = ("white", "black")


def plain_text(field: str, value: object) -> str:
    """``value`` when it is a string, else an ``InvalidNotationError`` naming ``field``."""
    if not isinstance(value, str):
        raise field_error(InvalidNotationError, field, "must be a string", value)
    return str.__str__(value)  # a plain str: a subclass's own methods take no part in the parsing


def short_only(state: State, what: str) -> None:
    """Backgammon's formats describe short nardy positions only."""
    if state.variant != "short":
        raise field_error(
            NardyError, "variant", f"{what} exists for short nardy (backgammon) only", state.variant
        )


def check_dice(dice: object) -> Optional[tuple[int, int]]:
    """``None`` (not rolled) or a roll of two die values 1..6 (``InvalidDiceError`` naming ``dice``)."""
    return None if dice is None else check_roll(dice, ())


def first_roll_marks(
    first_roll: object, board: Sequence[int], bar: tuple[int, int], off: tuple[int, int]
) -> object:
    """The first-roll marks of a position read from a format without them: ``first_roll`` when given, else
    both to come on the start board and both played elsewhere (see :mod:`nardy_fast.ids`)."""
    if first_roll is not None:
        marks = items(first_roll)
        if marks is None or len(marks) != 2 or any(boolean(mark) is None for mark in marks):
            raise field_error(InvalidPositionError, "first_roll", "must be two booleans", first_roll)
        return first_roll
    start = tuple(board) == START_BOARDS["short"] and bar == off == (0, 0)
    return (start, start)


def borne_off(field: str, text: str, board: Sequence[int], bar: tuple[int, int]) -> tuple[int, int]:
    """Each side's borne-off count, 15 less its checkers on the board and the bar; an
    ``InvalidPositionError`` naming ``field`` when a side has more than 15."""
    off = []
    for side, name in enumerate(("White", "Black")):
        on_board = sum(c for c in board if c > 0) if side == 0 else -sum(c for c in board if c < 0)
        if on_board + bar[side] > 15:
            problem = f"{name} has {on_board} checkers on the board and {bar[side]} on the bar, more than 15"
            raise field_error(InvalidPositionError, field, problem, text)
        off.append(15 - on_board - bar[side])
    return (off[0], off[1])


def checked_state(field: str, text: str, *args: object) -> State:
    """``make_state(*args)``, its ``InvalidPositionError`` restated as one naming ``field`` and quoting
    ``text`` (the position the ID decodes to is impossible)."""
    try:
        return make_state(*args)  # type: ignore[arg-type]
    except InvalidPositionError as error:
        raise field_error(
            InvalidPositionError, field, f"decodes to no valid position: {error}", text
        ) from None


def base64_key(field: str, text: object, length: int, size: int) -> int:
    """The key of a GNU Backgammon ID: ``length`` characters of standard base64 holding ``size`` bytes, read
    as one little-endian integer (bit ``k`` of the key is bit ``k % 8`` of byte ``k // 8``)."""
    value = plain_text(field, text)
    if len(value) != length:
        raise field_error(
            InvalidNotationError, field, f"must have {length} characters, not {len(value)}", value
        )
    bad = next((char for char in value if char not in BASE64), None)
    if bad is not None:
        problem = f"has the character {bad!r}: only base64 characters A-Z a-z 0-9 + / are allowed"
        raise field_error(InvalidNotationError, field, problem, value)
    spare = 6 * length - 8 * size
    if BASE64.index(value[-1]) & ((1 << spare) - 1):
        problem = f"the last character carries {6 - spare} bits: its {spare} low bits must be zero"
        raise field_error(InvalidNotationError, field, problem, value)
    raw = base64.b64decode(value + "=" * (-length % 4), validate=True)
    return int.from_bytes(raw, "little")


def base64_text(key: int, size: int, length: int) -> str:
    """The ``length`` base64 characters of a little-endian key of ``size`` bytes (GNU Backgammon's IDs drop
    the ``=`` padding)."""
    return base64.b64encode(key.to_bytes(size, "little")).decode("ascii")[:length]
