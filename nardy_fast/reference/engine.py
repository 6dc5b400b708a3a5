"""The reference move generator: docs/rules.md applied to a ``Position`` (the executable specification)."""

from __future__ import annotations

from typing import Optional, cast

from ..position import Move, Position
from ..state import State, limit_error
from ..variants import flag
from .rules import (
    dice_list,
    extra_roll,
    head_limit,
    legal_candidates,
    plays_ladder,
    remainder,
    to_mover,
    to_white,
)

__all__ = ["legal_moves"]


def legal_moves(position: Position, roll: Optional[tuple[int, int]], limit: int = 0) -> list[Move]:
    """All legal moves for ``roll``, or for the pending transfer list when ``roll`` is ``None``.

    The generator works in the mover's coordinates and attaches the next state to every result as
    docs/rules.md, What follows a move, prescribes. ``SearchLimitError`` when the search holds more than
    ``limit`` positions after one number of steps (0: no limit).
    """
    st = position.state
    mover = 0 if st.turn == "white" else 1
    segment = roll is None
    counted = cast(int, flag(st.flags, "normal_doubles_first_rolls"))
    if roll is None:
        dice = st.pending
    else:
        ladder = plays_ladder(st.variant, st.rolls_played[mover], counted)
        dice = dice_list(st.variant, roll, cast(int, flag(st.flags, "ladder_per_value")), ladder)
    heads = head_limit(
        st.variant,
        roll,
        st.first_roll[mover],
        flag(st.flags, "first_roll_exception_doubles"),  # type: ignore[arg-type]
    )
    per_step = flag(st.flags, "block_check") == "per_step"
    side = to_mover(st.variant, st.turn, st.board, st.bar, st.off)
    moves = []
    candidates = legal_candidates(st.variant, side, dice, heads, per_step, limit)
    if candidates is None:
        raise limit_error(limit)
    for candidate in candidates:
        rest = remainder(st.variant, candidate, segment)
        again = extra_roll(
            st.variant, roll, candidate, bool(flag(st.flags, "sixone_extra_roll_requires_play"))
        )
        board, bar, off = to_white(st.variant, st.turn, candidate.result)
        first = list(st.first_roll)
        played = list(st.rolls_played)
        if not segment:
            first[mover] = False  # every move for the mover's own roll clears it (What follows a move)
            played[mover] = min(counted, played[mover] + 1)  # and counts, up to the flag
        opponent = "black" if st.turn == "white" else "white"
        if candidate.result.xoff == 15 or not (again or segment):
            turn = opponent
        else:
            turn = st.turn
        result = State(
            st.variant, turn, board, bar, off, (first[0], first[1]), rest, st.flags, (played[0], played[1])
        )
        moves.append(
            Move(position, roll, candidate.steps, type(position)._trusted(result), rest, again)
        )
    return moves
