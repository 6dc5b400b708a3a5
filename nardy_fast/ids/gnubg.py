"""GNU Backgammon's Position ID and Match ID of short nardy positions (layouts and the choice of players in
:mod:`nardy_fast.ids`)."""

from __future__ import annotations

from typing import NamedTuple, Optional, cast

from ..errors import InvalidNotationError, InvalidPositionError, field_error
from ..state import State, check_turn
from .common import (
    CubeFields,
    base64_key,
    base64_text,
    borne_off,
    check_dice,
    checked_state,
    first_roll_marks,
    short_only,
    warn_unkept,
)

__all__ = ["to_gnubg_id", "from_gnubg_id", "to_match_id", "read_match_id", "MatchFields", "MATCH_KEY"]


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
    """GNU Backgammon's 14-character Position ID of a short nardy state (the side not on roll first; see
    :mod:`nardy_fast.ids`); a ``NardyError`` naming ``variant`` for the other variants."""
    short_only(state, "GNU Backgammon's Position ID")
    white, black = _gnubg_sides(state)
    key, bit = 0, 0
    for side in (black, white) if state.turn == "white" else (white, black):
        for count in side:
            key |= ((1 << count) - 1) << bit
            bit += count + 1
    return base64_text(key, _POSITION_BYTES, _POSITION_LENGTH)


def from_gnubg_id(
    position_id: object,
    turn: object = None,
    match_id: object = None,
    first_roll: object = None,
    *,
    warn: bool = True,
) -> State:
    """The short nardy state of GNU Backgammon's Position ID ``position_id``, with ``turn`` to move (the ID
    does not say; default ``"white"``) or the player on roll of the Match ID ``match_id``. A Match ID's cube
    or score that the state cannot hold (:meth:`~nardy_fast.ids.CubeFields.unkept`) is a
    :class:`~nardy_fast.NardyWarning` naming ``match_id`` unless ``warn`` is false (a caller that keeps them
    from :func:`read_match_id`).

    Raises :class:`~nardy_fast.InvalidNotationError` naming ``position_id`` (or ``match_id``) for a malformed
    ID, :class:`~nardy_fast.InvalidPositionError` for an impossible position (more than 15 checkers a side,
    both sides on one point) or a ``turn`` that disagrees with ``match_id``.
    """
    side = None if turn is None else check_turn(turn)
    cube = CubeFields()
    if match_id is not None:
        on_roll, _, cube = read_match_id(match_id)
        if side is not None and side != on_roll:
            problem = f"disagrees with match_id, whose player on roll is {on_roll!r}"
            raise field_error(InvalidPositionError, "turn", problem, turn)
        side = on_roll
    side = side or "white"
    key = base64_key("position_id", position_id, _POSITION_LENGTH, _POSITION_BYTES)
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
    off = borne_off("position_id", text, board, bar)
    marks = first_roll_marks(first_roll, board, bar, off)
    state = checked_state("position_id", text, "short", board, side, bar, off, marks, (), {})
    if warn:
        warn_unkept("match_id", cast(str, match_id), cube)
    return state


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
#: GNU Backgammon's player number of each side (:mod:`nardy_fast.ids` says why White is player 1).
_PLAYER = {"white": 1, "black": 0}


class MatchFields(NamedTuple):
    """What a GNU Backgammon Match ID says about a short nardy position: the player on roll (White is GNU
    Backgammon's player 1), the dice (``None`` before the roll) and the cube and match fields, which a
    position does not hold (``cube``)."""

    turn: str
    dice: Optional[tuple[int, int]]
    cube: CubeFields = CubeFields()


def to_match_id(state: State, dice: object = None) -> str:
    """GNU Backgammon's 12-character Match ID of a short nardy state: a money game with a centred 1-cube,
    the side to move on roll with ``dice`` (``None``: not rolled yet)."""
    short_only(state, "GNU Backgammon's Match ID")
    roll = check_dice(dice)
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
    return base64_text(key, _MATCH_BYTES, _MATCH_LENGTH)


def read_match_id(match_id: object) -> MatchFields:
    """The player on roll, the dice and the cube and match fields of GNU Backgammon's Match ID ``match_id``
    (the game state and the player to decide follow from them); an :class:`~nardy_fast.InvalidNotationError`
    naming ``match_id`` when it is malformed."""
    key = base64_key("match_id", match_id, _MATCH_LENGTH, _MATCH_BYTES)
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
    if fields["cube_owner"] == 2:
        problem = "cube owner 2 must be 0 (player 0, Black), 1 (player 1, White) or 3 (centred)"
        raise field_error(InvalidNotationError, "match_id", problem, text)
    turn = "white" if fields["dice_owner"] == _PLAYER["white"] else "black"
    cube = CubeFields(
        value=1 << fields["cube"],
        owner={_PLAYER["white"]: "white", _PLAYER["black"]: "black"}.get(fields["cube_owner"]),
        offered=bool(fields["doubled"]),
        match_length=fields["match_length"],
        score=(fields[f"score{_PLAYER['white']}"], fields[f"score{_PLAYER['black']}"]),
        crawford=bool(fields["crawford"]),
        resigned=fields["resigned"],
    )
    return MatchFields(turn, None if dice == (0, 0) else dice, cube)
