"""eXtreme Gammon's XGID of short nardy positions (layout in :mod:`nardy_fast.ids`)."""

from __future__ import annotations

import re
from typing import NamedTuple, Optional

from ..errors import InvalidNotationError, field_error
from ..state import State
from .common import (
    CubeFields,
    borne_off,
    check_dice,
    checked_state,
    first_roll_marks,
    plain_text,
    short_only,
    warn_unkept,
)

__all__ = ["to_xgid", "read_xgid", "XgidFields"]


class XgidFields(NamedTuple):
    """What an XGID says about a short nardy position: the state, the dice (``None`` before the roll or
    during a cube action) and the cube, match and rules fields, which a position does not hold (``cube``)."""

    state: State
    dice: Optional[tuple[int, int]]
    cube: CubeFields = CubeFields()


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
    fields are those of a money game with a centred 1-cube (see :mod:`nardy_fast.ids`)."""
    short_only(state, "the XGID")
    roll = check_dice(dice)
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


def read_xgid(xgid: object, first_roll: object = None, *, warn: bool = True) -> XgidFields:
    """The short nardy state, the dice and the cube, score and match fields of an XGID (``XGID=`` may be left
    out). A cube or score the state cannot hold (:meth:`~nardy_fast.ids.CubeFields.unkept`) is a
    :class:`~nardy_fast.NardyWarning` naming ``xgid`` unless ``warn`` is false (a caller that keeps
    ``cube``); the rules field is read as eXtreme Gammon writes it: the Crawford game in a match, the Jacoby
    (1) and beaver (2) rules in a money game; the max cube is checked for form only.

    Raises :class:`~nardy_fast.InvalidNotationError` naming ``xgid`` for a malformed text,
    :class:`~nardy_fast.InvalidPositionError` naming ``xgid`` for an impossible position (more than 15
    checkers a side, on a point or on a bar).
    """
    text = plain_text("xgid", xgid)
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
    off = borne_off("xgid", text, board, bar)
    marks = first_roll_marks(first_roll, board, bar, off)
    state = checked_state("xgid", text, "short", board, turn, bar, off, marks, (), {})
    dice = fields["dice"]
    length, rules = int(fields["match length"]), int(fields["rules"])
    cube = CubeFields(
        value=1 << int(fields["cube"]),
        owner={"1": "white", "-1": "black"}.get(fields["cube owner"]),
        offered=dice in ("D", "B", "R"),
        match_length=length,
        score=(int(fields["score bottom"]), int(fields["score top"])),
        crawford=bool(length and rules & 1),
        jacoby=bool(not length and rules & 1),
        beaver=bool(not length and rules & 2),
    )
    if warn:
        warn_unkept("xgid", text, cube)
    return XgidFields(state, (int(dice[0]), int(dice[1])) if dice.isdigit() and dice != "00" else None, cube)
