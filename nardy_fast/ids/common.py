"""What the ID formats share: the base64 alphabets, GNU Backgammon's little-endian base64 keys, and the
checks of a text read and of the position it decodes to (layouts in :mod:`nardy_fast.ids`)."""

from __future__ import annotations

import base64
import warnings
from collections.abc import Sequence
from typing import NamedTuple, Optional

from ..cube.state import Cube, Match
from ..errors import InvalidNotationError, InvalidPositionError, NardyError, NardyWarning, field_error
from ..inputs import boolean, items
from ..state import State, check_roll, make_state
from ..variants import START_BOARDS

#: Standard base64, the alphabet of GNU Backgammon's IDs.
BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
#: The URL-safe alphabet of RFC 4648 section 5, the compact ID's.
BASE64URL = BASE64[:62] + "-_"
#: The sides in the order the formats number them (0 White, 1 Black).
SIDES = ("white", "black")


class CubeFields(NamedTuple):
    """What an XGID or a GNU Backgammon Match ID says beyond the position: the cube's ``value`` (1, 2, 4, ...)
    and ``owner`` (``"white"``, ``"black"``, ``None`` centred), a double ``offered`` (and not yet taken), the
    ``match_length`` (0: a money game) and the ``score`` (White's, Black's), the ``crawford`` game, a
    resignation offered (``resigned``: the points offered, 0 none; Match ID only), and the XGID's money rules
    ``jacoby`` and ``beaver``. A position holds none of them (the cube and the match go beside it:
    :meth:`state`); the defaults are a money game with a centred 1-cube."""

    value: int = 1
    owner: Optional[str] = None
    offered: bool = False
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    resigned: int = 0
    jacoby: bool = False
    beaver: bool = False

    def state(self) -> tuple[Cube, Match]:
        """The cube and the match (or money session, with its Jacoby and beaver rules) these fields describe,
        as :meth:`nardy_fast.Position.cube_decision` and the other cube functions take them; a double offered
        and a resignation are not part of either."""
        cube = Cube(self.value, self.owner)
        if self.match_length:
            return cube, Match(self.match_length, self.score, crawford=self.crawford)
        return cube, Match(jacoby=self.jacoby, beavers=self.beaver)

    def unkept(self) -> list[str]:
        """What a position cannot hold of these fields, in words (none for a money game with a centred
        1-cube). The money rules are not listed: without a cube in play they change no cubeless equity."""
        found = []
        if self.value != 1 or self.owner is not None:
            found.append(f"a {self.value}-cube " + (f"owned by {self.owner.capitalize()}" if self.owner else "centred"))
        if self.offered:
            found.append("a double offered")
        if self.resigned:
            found.append(f"a resignation offered ({self.resigned} point{'s' if self.resigned > 1 else ''})")
        if self.match_length or self.score != (0, 0):
            found.append(f"a match to {self.match_length} at White {self.score[0]}, Black {self.score[1]}")
        if self.crawford:
            found.append("the Crawford game")
        return found


def warn_unkept(field: str, text: str, cube: CubeFields, stacklevel: int = 3) -> None:
    """A :class:`~nardy_fast.NardyWarning` naming ``field`` when ``cube`` holds what a position does not keep
    (:meth:`CubeFields.unkept`): the board read is right, the rest is not lost without a word."""
    unkept = cube.unkept()
    if unkept:
        problem = (
            f"says {'; '.join(unkept)}, which a position does not hold (it has no cube and no match score): "
            "only the board, the side to move and the dice are read; the cube and the match are the fields' "
            "state(), for cube decisions, and a cubeless equity is money play's"
        )
        warnings.warn(str(field_error(NardyError, field, problem, text)), NardyWarning, stacklevel=stacklevel + 1)


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
