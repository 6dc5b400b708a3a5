"""What a position's state says of itself, as methods of :class:`StateView`, a base of
:class:`nardy_fast.Position`: its fields (variant, side to move, board, ...) and the game's judgement (pips,
race and bear-off tests, the end, the winner and the points: docs/rules.md, Races and bear-off positions;
Game end and scoring). Written on the state alone, below the position and its moves.
"""

from __future__ import annotations

from typing import Optional

from . import race
from .board import BAR, Side, points, to_mover
from .state import State
from .variants import FlagValue

__all__ = ["StateView"]


class StateView:
    """The fields of a position's state and the game's judgement of it (its subclass supplies the state)."""

    __slots__ = ()
    _state: State

    # --- the state ---------------------------------------------------------------------------------------

    @property
    def variant(self) -> str:
        """One of ``VARIANTS``."""
        return self._state.variant

    @property
    def turn(self) -> str:
        """The side to move, ``"white"`` or ``"black"``."""
        return self._state.turn

    @property
    def board(self) -> tuple[int, ...]:
        """24 counts in White's numbering: ``board[i]`` is White's point ``i+1``, Black's checkers negative."""
        return self._state.board

    @property
    def bar(self) -> tuple[int, int]:
        """Checkers on the bar, (White, Black); always (0, 0) outside short nardy."""
        return self._state.bar

    @property
    def off(self) -> tuple[int, int]:
        """Checkers borne off, (White, Black)."""
        return self._state.off

    @property
    def first_roll(self) -> tuple[bool, bool]:
        """Whether (White, Black) still has its first roll to play (docs/rules.md, First-roll exception)."""
        return self._state.first_roll

    @property
    def pending(self) -> tuple[int, ...]:
        """Die values the side to move must play before rolling (gulbar/crazy transfer; docs/rules.md, Gulbar
        transfers)."""
        return self._state.pending

    @property
    def rolls_played(self) -> tuple[int, int]:
        """(White, Black) rolls played so far, counted up to flag ``normal_doubles_first_rolls`` (crazy: while a
        side's count is below it, its doubles play as four steps, not as a ladder; docs/rules.md, Rule
        flags)."""
        return self._state.rolls_played

    @property
    def flags(self) -> dict[str, FlagValue]:
        """The rule flags that apply to the variant, with their values (docs/rules.md, Rule flags)."""
        return dict(self._state.flags)

    @property
    def state(self) -> State:
        """All fields as one named tuple."""
        return self._state

    # --- the game ------------------------------------------------------------------------------------------

    def pips(self) -> tuple[int, int]:
        """(White, Black) pip counts, each in its own numbering; a checker on the bar counts 25."""
        st = self._state
        white = to_mover(st.variant, "white", st.board, st.bar, st.off)
        black = to_mover(st.variant, "black", st.board, st.bar, st.off)
        return (_pips(white), _pips(black))

    def is_race(self) -> bool:
        """Whether the sides can never touch again (docs/rules.md, Races and bear-off positions)."""
        return race.is_race(self._state)

    def is_bearoff(self) -> bool:
        """Whether every checker on the board is in its side's home and none on the bar (docs/rules.md, Races
        and bear-off positions)."""
        return race.is_bearoff(self._state)

    def is_over(self) -> bool:
        """Whether a side has borne off all 15 checkers."""
        return 15 in self._state.off

    def winner(self) -> Optional[str]:
        """``"white"`` or ``"black"`` once the game is over, else ``None``."""
        if not self.is_over():
            return None
        return "white" if self._state.off[0] == 15 else "black"

    def points(self) -> int:
        """Points the winner scores (docs/rules.md, Game end and scoring): 1, mars 2, koks 3 (short only); 0
        while the game goes on."""
        winner = self.winner()
        if winner is None:
            return 0
        st = self._state
        view = to_mover(st.variant, winner, st.board, st.bar, st.off)
        return points(st.variant, view.yoff, view.ybar, sum(view.y[1:7]))


def _pips(side: Side) -> int:
    return sum(m * side.x[m] for m in range(1, 25)) + BAR * side.xbar
