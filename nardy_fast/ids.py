"""Position IDs: GNU Backgammon's Position ID and Match ID and eXtreme Gammon's XGID for short nardy, and a
compact URL-safe ID of the whole state for every variant. Shared by both implementations
(``Position.gnubg_id``, ``Position.xgid``, ``Position.id`` and their ``from_*`` constructors wrap these).

Short nardy is backgammon without the doubling cube (docs/rules.md, The five games), so its positions travel
to and from backgammon programs. White (moving 24 → 1) is eXtreme Gammon's bottom player, from whose side
the XGID numbers the points as this package numbers them from White's, and so GNU Backgammon's player 1,
which its XGID importer makes of the bottom player (and which sits at the bottom of its boards); Black is
the top player, GNU Backgammon's player 0. The cube, score and match fields of these formats
mean nothing here: they are written with the values of a money game with a centred 1-cube, and ignored
(after their syntax is checked) when read. None of them carries the first-roll marks (no rule of short nardy
uses them, docs/rules.md, First-roll exception): readers take ``first_roll`` as an argument, and by default
infer "both to come" on the start board and "both played" elsewhere.

GNU Backgammon Position ID (``Position.gnubg_id``)
--------------------------------------------------

Ten bytes, written as 14 characters of standard base64 (``A-Z a-z 0-9 + /``, the last character carrying
2 bits). A bit string, stored least significant bit of the first byte first: for each of the two sides, for
its points 1..24 in its own numbering and then its bar, as many 1 bits as checkers there and a 0 bit; zeros
to 80 bits. Borne-off checkers are those missing from 15. The ID does not say who is to move.

The side *not* on roll is encoded first. GNU Backgammon's manual (Technical notes, "A technical description
of the Position ID") says the player on roll comes first, but its C code (``positionid.c``: ``PositionKey``
writes ``anBoard[0]`` first, and the player on roll is ``anBoard[1]`` in the program's boards; ``set.c``,
``SetXGID``, swaps the sides so that the one on roll is ``anBoard[1]`` before calling ``PositionID``),
``gnubg_nn.position_id`` (boards ``[opponent, player]``) and the manual's own example (the hypergammon
position ``ADAAAQAkIAAAAA`` with X on roll starts with O's checkers) all put the opponent first. The IDs
that programs exchange are the code's, so this module follows the code.

GNU Backgammon Match ID (``Position.gnubg_match_id``)
-----------------------------------------------------

Nine bytes, 12 characters of standard base64, the fields of :data:`MATCH_KEY` at the given bit offsets
(least significant bit first, as ``matchid.c`` writes them). Written: a centred 1-cube, no Crawford game, the
game playing (over once a side has borne off 15), the side to move as both the player on roll and the player
to decide, no double or resignation offered, the dice (0, 0 for "not rolled"), match length 0 (money), scores
0. Read: the player on roll and the dice.

XGID (``Position.xgid``)
------------------------

``XGID=<position>:<cube>:<cube owner>:<turn>:<dice>:<score bottom>:<score top>:<rules>:<match length>:<max
cube>``. The position is 26 characters: the top player's (Black's) bar, White's points 1..24, the bottom
player's (White's) bar; ``-`` for an empty point, ``A``..``P`` for 1..16 of the bottom player's checkers,
``a``..``p`` for the top player's. The turn is 1 for the bottom player, -1 for the top player; the dice are
``00`` before the roll, two digits after it, ``D``/``B``/``R`` during a cube action. Written: cube 0 (a
1-cube), centred (0), the turn, the dice, scores 0, rules 0 (no Jacoby, no beavers), match length 0 (money),
max cube 10 (eXtreme Gammon's usual value). Read: the position and the turn, mapped as GNU Backgammon's
importer maps them (``set.c``, ``SetXGID``), and the dice; the other fields are checked for form only.

Compact ID (``Position.id``, every variant)
--------------------------------------------

The whole state as a bit string, most significant bit first, padded with 0 bits to a multiple of 6 and
written 6 bits a character in the URL-safe base64 alphabet (``A-Z a-z 0-9 - _``, RFC 4648 section 5)
without ``=`` padding. The fields in order; a field whose condition does not hold is absent. The widths come
from the shared tables (:data:`~nardy_fast.variants.VARIANTS`, :data:`~nardy_fast.variants.FLAG_SPECS`,
:data:`~nardy_fast.variants.SPECS`, :data:`~nardy_fast.layout.COLUMNS`): a variant or flag added there
extends the layout (a new flag adds its bits to the IDs of the variants it applies to).

============  ====================================================  ===================================
field         bits                                                  present
============  ====================================================  ===================================
variant       :data:`VARIANT_BITS` (3): the index in ``VARIANTS``   always
turn          1: 0 White, 1 Black                                   always
first_roll    2: White's, then Black's; 1 = its first roll is to    always
              come
flags         for each flag of ``FLAG_SPECS`` that applies to the   each flag where it applies
              variant, in that table's order (block_check,
              ladder_per_value, first_roll_exception_doubles,
              sixone_extra_roll_requires_play,
              normal_doubles_first_rolls): 1 bit for a two-valued
              flag (``FlagSpec.bit`` not 0), set when the value is
              ``FlagSpec.other``; :data:`DIE_MASK_BITS` (6) for
              the die set first_roll_exception_doubles, bit d-1
              set for the double d-d (6-6 is written first)
rolls_played  2 × ``n.bit_length()``: White's, then Black's count   flag normal_doubles_first_rolls
                                                                    = n > 0
pending       :data:`PENDING_LENGTH_BITS` (5): the length; then     the variant has transfers
              :data:`DIE_BITS` (3) per value: the value 1..6        (``VariantSpec.transfers``)
bar           2 × :data:`COUNT_BITS` (4): White's, then Black's     the short family (short nardy)
board         for White's points 1..24: ``0`` when empty; else      always
              ``1``, the colour (0 White, 1 Black), count − 1
              ``1`` bits and a ``0``
============  ====================================================  ===================================

Borne-off checkers are not stored: each side has 15 less those on the board and the bar. The start of long
nardy is ``DWAA__8AC__w`` (12 characters); every ID has at most :data:`MAX_LENGTH` (29) characters. Each
state has exactly one ID: a reader rejects a text that is not the ID its state would be written as.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence
from math import ceil
from typing import NamedTuple, Optional, cast

import numpy as np
import numpy.typing as npt

from . import layout
from .errors import InvalidNotationError, InvalidPositionError, NardyError, field_error
from .inputs import boolean, choice, items
from .state import State, check_roll, make_state
from .variants import FLAG_BY_NAME, FLAG_SPECS, LONG_FAMILY, SPECS, START_BOARDS, VARIANTS, flag

__all__ = [
    "to_gnubg_id",
    "from_gnubg_id",
    "to_match_id",
    "read_match_id",
    "MatchFields",
    "MATCH_KEY",
    "to_xgid",
    "read_xgid",
    "XgidFields",
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

# --- shared pieces ------------------------------------------------------------------------------------------

_BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_BASE64URL = _BASE64[:62] + "-_"
_URL_VALUE = {char: value for value, char in enumerate(_BASE64URL)}
_SIDES = ("white", "black")


def _text(field: str, value: object) -> str:
    """``value`` when it is a string, else an ``InvalidNotationError`` naming ``field``."""
    if not isinstance(value, str):
        raise field_error(InvalidNotationError, field, "must be a string", value)
    return str.__str__(value)  # a plain str: a subclass's own methods take no part in the parsing


def _short_only(state: State, what: str) -> None:
    """Backgammon's formats describe short nardy positions only."""
    if state.variant != "short":
        raise field_error(
            NardyError, "variant", f"{what} exists for short nardy (backgammon) only", state.variant
        )


def _dice(dice: object) -> Optional[tuple[int, int]]:
    """``None`` (not rolled) or a roll of two die values 1..6 (``InvalidDiceError`` naming ``dice``)."""
    return None if dice is None else check_roll(dice, ())


def _first_roll(
    first_roll: object, board: Sequence[int], bar: tuple[int, int], off: tuple[int, int]
) -> object:
    """The first-roll marks of a position read from a format without them: ``first_roll`` when given, else
    both to come on the start board and both played elsewhere (see the module docstring)."""
    if first_roll is not None:
        marks = items(first_roll)
        if marks is None or len(marks) != 2 or any(boolean(mark) is None for mark in marks):
            raise field_error(InvalidPositionError, "first_roll", "must be two booleans", first_roll)
        return first_roll
    start = tuple(board) == START_BOARDS["short"] and bar == off == (0, 0)
    return (start, start)


def _off(field: str, text: str, board: Sequence[int], bar: tuple[int, int]) -> tuple[int, int]:
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


def _checked(field: str, text: str, *args: object) -> State:
    """``make_state(*args)``, its ``InvalidPositionError`` restated as one naming ``field`` and quoting
    ``text`` (the position the ID decodes to is impossible)."""
    try:
        return make_state(*args)  # type: ignore[arg-type]
    except InvalidPositionError as error:
        raise field_error(
            InvalidPositionError, field, f"decodes to no valid position: {error}", text
        ) from None


def _turn(turn: object) -> str:
    side = choice(turn, _SIDES)
    if side is None:
        raise field_error(InvalidPositionError, "turn", "must be 'white' or 'black'", turn)
    return side


def _base64_key(field: str, text: object, length: int, size: int) -> int:
    """The key of a GNU Backgammon ID: ``length`` characters of standard base64 holding ``size`` bytes, read
    as one little-endian integer (bit ``k`` of the key is bit ``k % 8`` of byte ``k // 8``)."""
    value = _text(field, text)
    if len(value) != length:
        raise field_error(
            InvalidNotationError, field, f"must have {length} characters, not {len(value)}", value
        )
    bad = next((char for char in value if char not in _BASE64), None)
    if bad is not None:
        problem = f"has the character {bad!r}: only base64 characters A-Z a-z 0-9 + / are allowed"
        raise field_error(InvalidNotationError, field, problem, value)
    spare = 6 * length - 8 * size
    if _BASE64.index(value[-1]) & ((1 << spare) - 1):
        problem = f"the last character carries {6 - spare} bits: its {spare} low bits must be zero"
        raise field_error(InvalidNotationError, field, problem, value)
    raw = base64.b64decode(value + "=" * (-length % 4), validate=True)
    return int.from_bytes(raw, "little")


def _base64_text(key: int, size: int, length: int) -> str:
    """The ``length`` base64 characters of a little-endian key of ``size`` bytes (GNU Backgammon's IDs drop
    the ``=`` padding)."""
    return base64.b64encode(key.to_bytes(size, "little")).decode("ascii")[:length]


# --- GNU Backgammon Position ID -----------------------------------------------------------------------------

_POSITION_BYTES, _POSITION_LENGTH = 10, 14


def _gnubg_sides(state: State) -> tuple[list[int], list[int]]:
    """(White, Black), each 25 counts in its own numbering: points 1..24, then the bar. White's point ``p``
    is White's ``p``; Black's own point ``b`` is White's ``25 - b`` (docs/rules.md, The board and its
    numberings)."""
    white, black = [0] * 25, [0] * 25
    for index, count in enumerate(state.board):
        if count > 0:
            white[index] = count
        elif count < 0:
            black[23 - index] = -count
    white[24], black[24] = state.bar
    return white, black


def to_gnubg_id(state: State) -> str:
    """GNU Backgammon's 14-character Position ID of a short nardy state (the side not on roll first; see the
    module docstring); a ``NardyError`` naming ``variant`` for the other variants."""
    _short_only(state, "GNU Backgammon's Position ID")
    white, black = _gnubg_sides(state)
    key, bit = 0, 0
    for side in (black, white) if state.turn == "white" else (white, black):
        for count in side:
            key |= ((1 << count) - 1) << bit
            bit += count + 1
    return _base64_text(key, _POSITION_BYTES, _POSITION_LENGTH)


def from_gnubg_id(
    position_id: object, turn: object = None, match_id: object = None, first_roll: object = None
) -> State:
    """The short nardy state of GNU Backgammon's Position ID ``position_id``, with ``turn`` to move (the ID
    does not say; default ``"white"``) or the player on roll of the Match ID ``match_id``.

    Raises :class:`~nardy_fast.InvalidNotationError` naming ``position_id`` (or ``match_id``) for a malformed
    ID, :class:`~nardy_fast.InvalidPositionError` for an impossible position (more than 15 checkers a side,
    both sides on one point) or a ``turn`` that disagrees with ``match_id``.
    """
    if match_id is not None:
        on_roll = read_match_id(match_id).turn
        if turn is not None and turn != on_roll:
            problem = f"disagrees with match_id, whose player on roll is {on_roll!r}"
            raise field_error(InvalidPositionError, "turn", problem, turn)
        turn = on_roll
    side = _turn("white" if turn is None else turn)
    key = _base64_key("position_id", position_id, _POSITION_LENGTH, _POSITION_BYTES)
    text = cast(str, position_id)
    size = 8 * _POSITION_BYTES
    sides: list[list[int]] = []
    bit = 0
    for _ in range(2):
        counts = []
        for _ in range(25):
            count = 0
            while bit < size and key >> bit & 1:
                count, bit = count + 1, bit + 1
            if bit == size:
                raise field_error(InvalidPositionError, "position_id", "holds more than 30 checkers", text)
            counts.append(count)
            bit += 1
        sides.append(counts)
    if key >> bit:
        problem = "has 1 bits after the two sides' 50 counts (they must be zero)"
        raise field_error(InvalidNotationError, "position_id", problem, text)
    opponent, player = sides
    white, black = (player, opponent) if side == "white" else (opponent, player)
    board = [0] * 24
    for index in range(24):
        if white[index] and black[23 - index]:
            problem = f"puts both sides' checkers on White's point {index + 1}"
            raise field_error(InvalidPositionError, "position_id", problem, text)
        board[index] = white[index] - black[23 - index]
    bar = (white[24], black[24])
    off = _off("position_id", text, board, bar)
    return _checked(
        "position_id", text, "short", board, side, bar, off, _first_roll(first_roll, board, bar, off), (), {}
    )


# --- GNU Backgammon Match ID --------------------------------------------------------------------------------

#: The fields of GNU Backgammon's match key, ``(name, first bit, width)``, as ``matchid.c`` (``MatchID``)
#: writes them.
MATCH_KEY: tuple[tuple[str, int, int], ...] = (
    ("cube", 0, 4),  # log2 of the cube value
    ("cube_owner", 4, 2),  # 0 player 0, 1 player 1, 3 centred
    ("dice_owner", 6, 1),  # the player on roll
    ("crawford", 7, 1),
    ("game_state", 8, 3),  # 0 none, 1 playing, 2 over, 3 resigned, 4 dropped
    ("turn_owner", 11, 1),  # the player to decide
    ("doubled", 12, 1),
    ("resigned", 13, 2),
    ("die1", 15, 3),  # 0 before the roll
    ("die2", 18, 3),
    ("match_length", 21, 15),  # 0 money
    ("score0", 36, 15),
    ("score1", 51, 15),
)
_MATCH_BYTES, _MATCH_LENGTH = 9, 12
_MATCH_BITS = sum(width for _, _, width in MATCH_KEY)
#: GNU Backgammon's player number of each side (the module docstring says why White is player 1).
_PLAYER = {"white": 1, "black": 0}


class MatchFields(NamedTuple):
    """What a GNU Backgammon Match ID says about a short nardy position: the player on roll (White is GNU
    Backgammon's player 1) and the dice, ``None`` before the roll."""

    turn: str
    dice: Optional[tuple[int, int]]


def to_match_id(state: State, dice: object = None) -> str:
    """GNU Backgammon's 12-character Match ID of a short nardy state: a money game with a centred 1-cube,
    the side to move on roll with ``dice`` (``None``: not rolled yet)."""
    _short_only(state, "GNU Backgammon's Match ID")
    roll = _dice(dice)
    player = _PLAYER[state.turn]
    values = {
        "cube_owner": 3,
        "dice_owner": player,
        "game_state": 2 if 15 in state.off else 1,
        "turn_owner": player,
        "die1": roll[0] if roll else 0,
        "die2": roll[1] if roll else 0,
    }
    key = 0
    for name, first, _ in MATCH_KEY:
        key |= values.get(name, 0) << first
    return _base64_text(key, _MATCH_BYTES, _MATCH_LENGTH)


def read_match_id(match_id: object) -> MatchFields:
    """The player on roll and the dice of GNU Backgammon's Match ID ``match_id`` (its cube, score and match
    fields are ignored); an :class:`~nardy_fast.InvalidNotationError` naming ``match_id`` when it is
    malformed."""
    key = _base64_key("match_id", match_id, _MATCH_LENGTH, _MATCH_BYTES)
    text = cast(str, match_id)
    if key >> _MATCH_BITS:
        raise field_error(
            InvalidNotationError, "match_id", f"bits after bit {_MATCH_BITS} must be zero", text
        )
    fields = {name: key >> first & ((1 << width) - 1) for name, first, width in MATCH_KEY}
    dice = (fields["die1"], fields["die2"])
    if not (dice == (0, 0) or (1 <= dice[0] <= 6 and 1 <= dice[1] <= 6)):
        problem = f"dice {dice} must be two die values 1..6, or 0 and 0 before the roll"
        raise field_error(InvalidNotationError, "match_id", problem, text)
    turn = "white" if fields["dice_owner"] == _PLAYER["white"] else "black"
    return MatchFields(turn, None if dice == (0, 0) else dice)


# --- XGID ---------------------------------------------------------------------------------------------------


class XgidFields(NamedTuple):
    """What an XGID says about a short nardy position: the state and the dice, ``None`` before the roll or
    during a cube action."""

    state: State
    dice: Optional[tuple[int, int]]


_XGID_NAMES = (
    "position",
    "cube",
    "cube owner",
    "turn",
    "dice",
    "score bottom",
    "score top",
    "rules",
    "match length",
    "max cube",
)
_XGID_FIELDS = {
    "cube": ("[0-9]{1,2}", "a cube's log2, 0.."),
    "cube owner": ("-1|0|1", "-1, 0 or 1"),
    "turn": ("-1|1", "1 (the bottom player, White) or -1 (the top player, Black)"),
    "dice": ("00|[1-6][1-6]|[DBR]", "00, two die values 1..6, D, B or R"),
    "score bottom": ("[0-9]{1,5}", "a score"),
    "score top": ("[0-9]{1,5}", "a score"),
    "rules": ("[0-9]", "a digit"),
    "match length": ("[0-9]{1,5}", "a match length (0: money)"),
    "max cube": ("[0-9]{1,2}", "a cube's log2"),
}


def _xgid_char(count: int) -> str:
    """An XGID point: ``-`` empty, ``A``.. for the bottom player's (White's) checkers, ``a``.. for the top
    player's (Black's)."""
    if count == 0:
        return "-"
    return chr(ord("A") + count - 1) if count > 0 else chr(ord("a") - count - 1)


def to_xgid(state: State, dice: object = None) -> str:
    """The XGID of a short nardy state, with ``dice`` rolled (``None``: not rolled yet); the cube and match
    fields are those of a money game with a centred 1-cube (see the module docstring)."""
    _short_only(state, "the XGID")
    roll = _dice(dice)
    chars = [_xgid_char(-state.bar[1]), *map(_xgid_char, state.board), _xgid_char(state.bar[0])]
    turn = "1" if state.turn == "white" else "-1"
    rolled = "00" if roll is None else f"{roll[0]}{roll[1]}"
    return f"XGID={''.join(chars)}:0:0:{turn}:{rolled}:0:0:0:0:10"


def _xgid_count(text: str, char: str) -> int:
    """The signed count of one XGID position character (White positive)."""
    if char == "-":
        return 0
    if "A" <= char <= "P":
        return ord(char) - ord("A") + 1
    if "a" <= char <= "p":
        return -(ord(char) - ord("a") + 1)
    problem = f"the position has the character {char!r}: only -, A..P and a..p are allowed"
    raise field_error(InvalidNotationError, "xgid", problem, text)


def read_xgid(xgid: object, first_roll: object = None) -> XgidFields:
    """The short nardy state and the dice of an XGID (``XGID=`` may be left out); its cube, score and match
    fields are checked for form and ignored.

    Raises :class:`~nardy_fast.InvalidNotationError` naming ``xgid`` for a malformed text,
    :class:`~nardy_fast.InvalidPositionError` naming ``xgid`` for an impossible position (more than 15
    checkers a side, on a point or on a bar).
    """
    text = _text("xgid", xgid)
    parts = text.removeprefix("XGID=").split(":")
    if len(parts) != len(_XGID_NAMES):
        names = ", ".join(_XGID_NAMES)
        problem = f"must have {len(_XGID_NAMES)} fields separated by ':' ({names}), not {len(parts)}"
        raise field_error(InvalidNotationError, "xgid", problem, text)
    fields = dict(zip(_XGID_NAMES, parts))
    for name, (pattern, meaning) in _XGID_FIELDS.items():
        if re.fullmatch(pattern, fields[name]) is None:
            raise field_error(InvalidNotationError, "xgid", f"field {name!r} must be {meaning}", text)
    position = fields["position"]
    if len(position) != 26:
        raise field_error(
            InvalidNotationError, "xgid", f"the position must have 26 characters, not {len(position)}", text
        )
    counts = [_xgid_count(text, char) for char in position]
    if counts[0] > 0 or counts[25] < 0:
        problem = (
            "the position's first character is the top player's bar (- or a..p), its last the bottom "
            "player's (- or A..P)"
        )
        raise field_error(InvalidNotationError, "xgid", problem, text)
    board, bar = counts[1:25], (counts[25], -counts[0])
    turn = "white" if fields["turn"] == "1" else "black"
    off = _off("xgid", text, board, bar)
    state = _checked(
        "xgid", text, "short", board, turn, bar, off, _first_roll(first_roll, board, bar, off), (), {}
    )
    dice = fields["dice"]
    return XgidFields(state, (int(dice[0]), int(dice[1])) if dice.isdigit() and dice != "00" else None)


# --- the compact ID -----------------------------------------------------------------------------------------

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
    """The compact ID of a state (layout in the module docstring)."""
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
    return "".join(_BASE64URL[value >> (6 * (length - 1 - i)) & 63] for i in range(length))


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
    value = _text("id", text)
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
    turn = _SIDES[read.take(1, "turn")]
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
    off = _off("id", value, board, bar)
    state = _checked("id", value, variant, board, turn, bar, off, first_roll, pending, flags, rolls_played)
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
