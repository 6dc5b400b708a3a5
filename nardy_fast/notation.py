"""The one-line position text and the move text — parse and format, shared by both implementations.

Position text: ``<variant> <w|b> <board> [bar=W/B] [off=W/B] [first=wb|w|b|-] [pending=v,v,…] [played=W/B]
[flag=value …]``

* ``board`` lists the occupied points in White's numbering, ascending, as ``point:count`` with Black's counts
  negative (``12:-15,24:15``); ``-`` for an empty board.
* The keyed fields are written only when they differ from their defaults (no bar, none off, both first rolls
  still to come, no pending list, default flags), in the order above; a parser accepts them in any order.

Example: the long-nardy start is ``long w 12:-15,24:15``.

Move text: steps separated by spaces in the mover's own numbering, ``24/18``, ``bar/21``, ``6/off``, ``24/6s``
(six-one special), a trailing ``*`` marks a hit; ``24/18/14`` chains one checker, ``13/7(2)`` repeats a step,
``pass`` (or an empty text) is the empty move.
"""

from __future__ import annotations

import re
from itertools import pairwise

from .board import BAR, OFF, mover_point
from .errors import IllegalMoveError, InvalidNotationError, field_error, quote
from .state import State
from .variants import FLAG_SPECS, flag_from_text, flag_to_text, is_default

__all__ = ["format_position", "parse_position", "parse_move", "numbering_hint"]

_FIRST = {(True, True): "wb", (True, False): "w", (False, True): "b", (False, False): "-"}
_FIRST_BACK = {text: pair for pair, text in _FIRST.items()}


def format_position(state: State) -> str:
    """The canonical text of a state (round-trips through :func:`parse_position`)."""
    cells = ",".join(f"{i + 1}:{c}" for i, c in enumerate(state.board) if c) or "-"
    parts = [state.variant, state.turn[0], cells]
    if state.bar != (0, 0):
        parts.append(f"bar={state.bar[0]}/{state.bar[1]}")
    if state.off != (0, 0):
        parts.append(f"off={state.off[0]}/{state.off[1]}")
    if state.first_roll != (True, True):
        parts.append(f"first={_FIRST[state.first_roll]}")
    if state.pending:
        parts.append("pending=" + ",".join(map(str, state.pending)))
    if state.rolls_played != (0, 0):
        parts.append(f"played={state.rolls_played[0]}/{state.rolls_played[1]}")
    parts.extend(flag_to_text(name, value) for name, value in state.flags if not is_default(name, value))
    return " ".join(parts)


def _bad(text: str, problem: str) -> InvalidNotationError:
    return field_error(InvalidNotationError, "text", problem, text)  # type: ignore[return-value]


def _pair(text: str, key: str, value: str) -> tuple[int, int]:
    match = re.fullmatch(r"([0-9]{1,9})/([0-9]{1,9})", value)
    if match is None:
        raise _bad(text, f"{key} must be written as {key}=W/B")
    return (int(match[1]), int(match[2]))


def parse_position(text: object) -> dict[str, object]:
    """Split a position text into the keyword arguments of ``Position.from_board`` (unchecked values).

    Only the syntax is checked here; the values are checked by :func:`nardy_fast.state.make_state`.
    """
    if not isinstance(text, str):
        raise field_error(InvalidNotationError, "text", "must be a string", text)
    fields = text.split()
    if len(fields) < 3:
        raise _bad(text, "must start with '<variant> <w|b> <board>'")
    variant, turn, cells, *rest = fields
    if turn not in ("w", "b"):
        raise _bad(text, "the side to move must be 'w' or 'b'")
    board = [0] * 24
    if cells != "-":
        for cell in cells.split(","):
            match = re.fullmatch(r"([0-9]{1,9}):(-?[0-9]{1,9})", cell)
            if match is None or not 1 <= int(match[1]) <= 24 or int(match[2]) == 0:
                raise _bad(text, f"bad board entry {quote(cell)}, expected point:count with point 1..24")
            if board[int(match[1]) - 1]:
                raise _bad(text, f"point {match[1]} is listed twice")
            board[int(match[1]) - 1] = int(match[2])
    args: dict[str, object] = {"variant": variant, "board": board, "turn": "white" if turn == "w" else "black"}
    flags: dict[str, object] = {}
    flag_names = {spec.name for spec in FLAG_SPECS}
    seen: set[str] = set()
    for token in rest:
        key, sep, value = token.partition("=")
        if not sep or key in seen:
            raise _bad(text, f"bad or repeated field {quote(token)}")
        seen.add(key)
        if key in ("bar", "off"):
            args[key] = _pair(text, key, value)
        elif key == "played":
            args["rolls_played"] = _pair(text, key, value)
        elif key == "first":
            if value not in _FIRST_BACK:
                raise _bad(text, "first must be one of wb, w, b, -")
            args["first_roll"] = _FIRST_BACK[value]
        elif key == "pending":
            if re.fullmatch(r"[0-9](,[0-9])*", value) is None:
                raise _bad(text, "pending must be a comma-separated list of die values")
            args["pending"] = tuple(int(v) for v in value.split(","))
        elif key in flag_names:
            flags[key] = flag_from_text(key, value)
        else:
            raise _bad(text, f"unknown field {quote(key)}")
    args["flags"] = flags
    return args


_STEP_CHAIN = re.compile(r"(bar|[0-9]{1,2})((?:/(?:[0-9]{1,2}|off)s?\*?)+)(?:\(([0-9])\))?")


def numbering_hint(state: State, point: int) -> str:
    """For Black, whose numbering differs from the position text's: how its own ``point`` reads in White's
    numbering, so that a move written in White's numbers is recognised (empty for White, the bar, off)."""
    if state.turn == "white" or point in (BAR, OFF):
        return ""
    white = mover_point(state.variant, point)
    return (
        f" (moves use the mover's own numbering: Black's point {point} is White's {white}; "
        "see docs/rules.md, The mover's numbering pitfall)"
    )


def parse_move(text: object) -> list[tuple[int, int]]:
    """The ``(from, to)`` pairs of a move text, in the mover's numbering (bar = 25, off = 0)."""
    if not isinstance(text, str):
        raise field_error(IllegalMoveError, "move", "must be a Move or a move text", text)
    pairs: list[tuple[int, int]] = []
    if text.strip() in ("", "pass"):
        return pairs
    for token in text.split():
        match = _STEP_CHAIN.fullmatch(token)
        if match is None:
            raise field_error(IllegalMoveError, "move", f"cannot read step {quote(token)}", text)
        points = [25 if match[1] == "bar" else int(match[1])]
        for target in match[2].strip("/").split("/"):
            target = target.rstrip("*").rstrip("s")
            points.append(0 if target == "off" else int(target))
        if any(not 0 <= p <= 25 for p in points) or any(a <= b for a, b in pairwise(points)):
            raise field_error(IllegalMoveError, "move", f"step {quote(token)} does not move forward", text)
        chain = list(pairwise(points))
        pairs.extend(chain * int(match[3] or 1))
    return pairs
