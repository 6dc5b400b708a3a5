"""The compact URL-safe ID of the whole state, every variant, and its batch forms over packed rows (layout
in :mod:`nardy_fast.ids`)."""

from __future__ import annotations

from math import ceil
from typing import cast

import numpy as np
import numpy.typing as npt

from .. import layout
from ..errors import InvalidNotationError, InvalidPositionError, field_error
from ..inputs import items
from ..state import State
from ..variants import FLAG_BY_NAME, FLAG_SPECS, LONG_FAMILY, SPECS, VARIANTS, flag
from .common import BASE64URL, SIDES, borne_off, checked_state, plain_text

__all__ = [
    "to_id",
    "from_id",
    "to_ids",
    "from_ids",
    "VARIANT_BITS",
    "DIE_MASK_BITS",
    "PENDING_LENGTH_BITS",
    "DIE_BITS",
    "COUNT_BITS",
    "MAX_LENGTH",
]

Rows = npt.NDArray[np.int8]

_URL_VALUE = {char: value for value, char in enumerate(BASE64URL)}

#: Bits of the variant's index in ``VARIANTS``.
VARIANT_BITS: int = max(1, (len(VARIANTS) - 1).bit_length())
#: Bits of a set of die values, bit ``d - 1`` for ``d`` (as the packed row's ``EXCEPTION_DOUBLES`` column).
DIE_MASK_BITS: int = 6
#: Bits of a die value 1..6.
DIE_BITS: int = (6).bit_length()
#: Bits of the length of the pending list, up to the packed row's ``PENDING`` width.
PENDING_LENGTH_BITS: int = dict(layout.COLUMNS)["PENDING"].bit_length()
#: Bits of a checker count 0..15 (the bar).
COUNT_BITS: int = (15).bit_length()
_COUNTED = "normal_doubles_first_rolls"


def _flag_bits(spec_bit: int) -> int:
    return 1 if spec_bit else DIE_MASK_BITS


def _max_bits(variant: str) -> int:
    """The longest bit string of ``variant``: every field at its widest; the board with 24 occupied points
    and 30 checkers (24 presence bits, 24 colour bits, 30 count bits)."""
    spec = SPECS[variant]
    bits = VARIANT_BITS + 1 + 2
    bits += sum(_flag_bits(f.bit) for f in FLAG_SPECS if variant in f.variants)
    if variant in FLAG_BY_NAME[_COUNTED].variants:
        bits += 2 * cast(int, FLAG_BY_NAME[_COUNTED].other).bit_length()
    if spec.transfers:
        bits += PENDING_LENGTH_BITS + dict(layout.COLUMNS)["PENDING"] * DIE_BITS
    if variant not in LONG_FAMILY:
        bits += 2 * COUNT_BITS
    return bits + 24 + 24 + 30


#: The most characters an ID has (29: crazy nardy with every flag field and the longest pending list).
MAX_LENGTH: int = max(ceil(_max_bits(variant) / 6) for variant in VARIANTS)


def to_id(state: State) -> str:
    """The compact ID of a state (layout in :mod:`nardy_fast.ids`)."""
    value, size = 0, 0

    def put(width: int, number: int) -> None:
        nonlocal value, size
        value, size = value << width | number, size + width

    put(VARIANT_BITS, VARIANTS.index(state.variant))
    put(1, state.turn == "black")
    put(1, state.first_roll[0])
    put(1, state.first_roll[1])
    for name, setting in state.flags:
        spec = FLAG_BY_NAME[name]
        if spec.bit:
            put(1, setting == spec.other)
        else:
            put(DIE_MASK_BITS, sum(1 << (d - 1) for d in cast("tuple[int, ...]", setting)))
    counted = cast(int, flag(state.flags, _COUNTED))
    if counted:
        put(counted.bit_length(), state.rolls_played[0])
        put(counted.bit_length(), state.rolls_played[1])
    if SPECS[state.variant].transfers:
        put(PENDING_LENGTH_BITS, len(state.pending))
        for die in state.pending:
            put(DIE_BITS, die)
    if state.variant not in LONG_FAMILY:
        put(COUNT_BITS, state.bar[0])
        put(COUNT_BITS, state.bar[1])
    for count in state.board:
        if count:
            n = abs(count)
            # 1, the colour, n - 1 ones and a 0
            put(n + 2, (1 << (n + 1)) | (count < 0) << n | ((1 << (n - 1)) - 1) << 1)
        else:
            put(1, 0)
    pad = -size % 6
    value <<= pad
    length = (size + pad) // 6
    return "".join(BASE64URL[value >> (6 * (length - 1 - i)) & 63] for i in range(length))


class _Reader:
    """Reads the fields of a compact ID, most significant bit first."""

    def __init__(self, text: str, value: int, size: int) -> None:
        self.text, self.value, self.left = text, value, size

    def take(self, width: int, field: str) -> int:
        if width > self.left:
            raise field_error(InvalidNotationError, "id", f"ends inside its {field} field", self.text)
        self.left -= width
        return self.value >> self.left & ((1 << width) - 1)

    def ones(self, field: str) -> int:
        """The number of 1 bits from here to the next 0 bit, all of them and the 0 read."""
        zeros = ~self.value & ((1 << self.left) - 1)  # the unread bits, inverted: the first 0 is the top 1
        if not zeros:
            raise field_error(InvalidNotationError, "id", f"ends inside its {field} field", self.text)
        count = self.left - zeros.bit_length()
        self.left -= count + 1
        return count


def from_id(text: object) -> State:
    """The state of a compact ID, checked as :meth:`Position.from_board` checks its arguments.

    Raises :class:`~nardy_fast.InvalidNotationError` naming ``id`` for a malformed ID (a character outside
    base64url, too short or too long, an unknown variant, a die value outside 1..6, bits after the board, an
    ID that is not its state's own) and :class:`~nardy_fast.InvalidPositionError` naming ``id`` for a
    well-formed one whose position the rules do not allow.
    """
    value = plain_text("id", text)
    if not 1 <= len(value) <= MAX_LENGTH:
        problem = f"must have 1..{MAX_LENGTH} characters, not {len(value)}"
        raise field_error(InvalidNotationError, "id", problem, value)
    number = 0
    for char in value:
        digit = _URL_VALUE.get(char)
        if digit is None:
            problem = f"has the character {char!r}: only base64url characters A-Z a-z 0-9 - _ are allowed"
            raise field_error(InvalidNotationError, "id", problem, value)
        number = number << 6 | digit
    read = _Reader(value, number, 6 * len(value))
    index = read.take(VARIANT_BITS, "variant")
    if index >= len(VARIANTS):
        raise field_error(InvalidNotationError, "id", f"has the unknown variant code {index}", value)
    variant = VARIANTS[index]
    turn = SIDES[read.take(1, "turn")]
    first_roll = (bool(read.take(1, "first_roll")), bool(read.take(1, "first_roll")))
    flags: dict[str, object] = {}
    for spec in FLAG_SPECS:
        if variant not in spec.variants:
            continue
        if spec.bit:
            flags[spec.name] = spec.other if read.take(1, spec.name) else spec.default
        else:
            mask = read.take(DIE_MASK_BITS, spec.name)
            flags[spec.name] = tuple(d for d in range(6, 0, -1) if mask >> (d - 1) & 1)
    counted = cast(int, flags.get(_COUNTED, 0))
    rolls_played = (0, 0)
    if counted:
        width = counted.bit_length()
        rolls_played = (read.take(width, "rolls_played"), read.take(width, "rolls_played"))
    pending: list[int] = []
    if SPECS[variant].transfers:
        for _ in range(read.take(PENDING_LENGTH_BITS, "pending")):
            die = read.take(DIE_BITS, "pending")
            if not 1 <= die <= 6:
                raise field_error(
                    InvalidNotationError, "id", f"has the pending value {die}, not a die value", value
                )
            pending.append(die)
    bar = (0, 0)
    if variant not in LONG_FAMILY:
        bar = (read.take(COUNT_BITS, "bar"), read.take(COUNT_BITS, "bar"))
    board = [0] * 24
    for point in range(24):
        if not read.take(1, "board"):
            continue
        sign = -1 if read.take(1, "board") else 1
        count = 1 + read.ones("board")
        if count > 15:
            problem = f"puts {count} checkers on White's point {point + 1}, more than 15"
            raise field_error(InvalidPositionError, "id", problem, value)
        board[point] = sign * count
    if read.left >= 6 or read.value & ((1 << read.left) - 1):
        raise field_error(
            InvalidNotationError, "id", "has bits after the board (only zero padding may follow)", value
        )
    off = borne_off("id", value, board, bar)
    state = checked_state(
        "id", value, variant, board, turn, bar, off, first_roll, pending, flags, rolls_played
    )
    if to_id(state) != value:
        problem = f"is not written as its position's ID {to_id(state)!r} (one ID per position)"
        raise field_error(InvalidNotationError, "id", problem, value)
    return state


def to_ids(rows: object) -> list[str]:
    """The compact IDs of packed rows ((N, 64) or one row of 64 integers; :mod:`nardy_fast.layout`), each
    row checked as ``Position.from_array`` checks it (an error names the row: ``rows[i]: ...``)."""
    matrix = np.asarray(rows)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    if matrix.ndim != 2 or matrix.shape[1] != layout.WIDTH or matrix.dtype.kind not in "iu":
        problem = f"must be an integer array of shape (N, {layout.WIDTH})"
        raise field_error(InvalidPositionError, "rows", problem, getattr(matrix, "shape", rows))
    out = []
    for index, row in enumerate(matrix):
        try:
            out.append(to_id(layout.unpack(row)))
        except InvalidPositionError as error:
            raise type(error)(f"rows[{index}]: {error}") from None
    return out


def from_ids(texts: object) -> Rows:
    """The packed rows ((N, 64) ``int8``) of a sequence of compact IDs, each checked as :func:`from_id` checks
    it (an error names the item: ``texts[i]: id: ...``)."""
    values = items(texts)
    if values is None:
        raise field_error(InvalidNotationError, "texts", "must be a sequence of IDs (not one string)", texts)
    out = np.zeros((len(values), layout.WIDTH), dtype=np.int8)
    for index, text in enumerate(values):
        try:
            out[index] = layout.pack(from_id(text))
        except InvalidPositionError as error:
            raise type(error)(f"texts[{index}]: {error}") from None
    return out
