"""The reference move generator: docs/rules.md applied to a ``Position`` (the executable specification)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Optional, cast

from .. import layout, zobrist
from ..position import Move, Position
from ..state import State, limit_error
from ..variants import flag
from .rules import (
    Candidate,
    Candidates,
    dice_list,
    extra_roll,
    head_limit,
    legal_candidates,
    plays_ladder,
    remainder,
    to_mover,
    to_white,
)

__all__ = ["legal_moves", "Moves", "child_rows", "follow"]


def legal_moves(position: Position, roll: Optional[tuple[int, int]], limit: int = 0) -> list[Move]:
    """All legal moves for ``roll``, or for the pending transfer list when ``roll`` is ``None``.

    The generator works in the mover's coordinates and attaches the next state to every result as
    docs/rules.md, What follows a move, prescribes. ``SearchLimitError`` when the search holds more than
    ``limit`` positions after one number of steps (0: no limit).
    """
    return list(Moves(position, roll, limit))


class Moves:
    """:func:`legal_moves` as a sequence whose moves are made only when read (the playouts pick one of a
    ladder's millions): the search is done, and ``SearchLimitError`` raised, when it is made."""

    def __init__(self, position: Position, roll: Optional[tuple[int, int]], limit: int = 0) -> None:
        self.position = position
        self.roll = roll
        self._candidates = _candidates(position.state, roll, limit, walk=True)

    def __len__(self) -> int:
        return len(self._candidates)

    def __getitem__(self, k: int) -> Move:
        candidate = self._candidates[k]
        result, rest, again = follow(self.position.state, self.roll, candidate)
        return Move(self.position, self.roll, candidate.steps, type(self.position)._trusted(result), rest, again)

    def __iter__(self) -> Iterator[Move]:
        return (self[k] for k in range(len(self)))


def child_rows(position: Position, roll: Optional[tuple[int, int]], limit: int = 0) -> Iterator[tuple[bytes, int]]:
    """The packed row (:mod:`nardy_fast.layout`) and Zobrist key of every child :func:`legal_moves` finds, in
    its order, with no object per child kept: the batch's path, where a crazy ladder has millions of them.
    The search is done (and ``SearchLimitError`` raised) before the first child is read."""
    st = position.state
    for candidate in _candidates(st, roll, limit, walk=False):
        result = follow(st, roll, candidate)[0]
        yield layout.pack(result).tobytes(), zobrist.position_key(*result)


def _candidates(st: State, roll: Optional[tuple[int, int]], limit: int, walk: bool) -> Candidates:
    """The search for the mover of ``st`` with ``roll`` (``None``: the pending list); ``walk``: whether the
    candidates carry their steps."""
    mover = 0 if st.turn == "white" else 1
    if roll is None:
        dice = st.pending
    else:
        counted = cast(int, flag(st.flags, "normal_doubles_first_rolls"))
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
    candidates = legal_candidates(st.variant, side, dice, heads, per_step, limit, walk)
    if candidates is None:
        raise limit_error(limit)
    return candidates


def follow(st: State, roll: Optional[tuple[int, int]], candidate: Candidate) -> tuple[State, tuple[int, ...], bool]:
    """The state after ``candidate`` (docs/rules.md, What follows a move), the values it transfers and whether
    the mover rolls again."""
    mover = 0 if st.turn == "white" else 1
    segment = roll is None
    counted = cast(int, flag(st.flags, "normal_doubles_first_rolls"))
    rest = remainder(st.variant, candidate, segment)
    again = extra_roll(st.variant, roll, candidate, bool(flag(st.flags, "sixone_extra_roll_requires_play")))
    board, bar, off = to_white(st.variant, st.turn, candidate.result)
    first = list(st.first_roll)
    played = list(st.rolls_played)
    if not segment:
        first[mover] = False  # every move for the mover's own roll clears it (What follows a move)
        played[mover] = min(counted, played[mover] + 1)  # and counts, up to the flag
    opponent = "black" if st.turn == "white" else "white"
    turn = opponent if candidate.result.xoff == 15 or not (again or segment) else st.turn
    result = State(st.variant, turn, board, bar, off, (first[0], first[1]), rest, st.flags, (played[0], played[1]))
    return result, rest, again
