"""The public ``Position`` and ``Move`` types, shared by both implementations.

A ``Position`` is an immutable game state in White's numbering. The one thing an implementation supplies is
its move generator (:class:`Engine`): the reference subclasses ``Position`` with the pure-Python rules, the
core with the compiled ones, so validation, notation, hashing and errors are the same code for both.
"""

from __future__ import annotations

import copyreg
from collections.abc import Callable
from typing import ClassVar, Optional, TypeVar, Union

import numpy as np
import numpy.typing as npt

from . import layout, notation, race, zobrist
from .board import BAR, OFF, Side, Step, move_checker, points, to_mover, to_white
from .errors import IllegalMoveError, NardyError, field_error, uninitialised_error
from .formats import Formats
from .inputs import Bools, IntLike, Ints, choice
from .move import Engine, Move
from .state import State, check_limit, check_roll, check_state, make_state
from .variants import LONG_FAMILY, START_BOARDS, VARIANTS, FlagValue

__all__ = ["Position", "Move", "Engine", "Step", "ROLLS", "move_of", "position_of", "uninitialised_error"]

#: The 21 distinct rolls, higher die first.
ROLLS: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(6, 0, -1) for b in range(a, 0, -1))

P = TypeVar("P", bound="Position")


def move_of(parent: Position, roll: Optional[tuple[int, int]], result: Position) -> Move:
    """The legal move of ``parent`` for ``roll`` that reaches ``result`` (how moves are unpickled)."""
    if not isinstance(parent, Position) or not isinstance(result, Position):
        raise field_error(IllegalMoveError, "move", "must join two positions", (parent, result))
    for move in parent.legal_moves(roll):
        if move.result == result:
            return move
    raise field_error(IllegalMoveError, "move", "is not legal for its roll", (parent, roll, result))


def _reduced(move: Move) -> tuple[Callable[..., Move], tuple[object, ...]]:
    return (move_of, (move.parent, move.roll, move.result))


copyreg.pickle(Move, _reduced)  # a move pickles as its position, roll and result (copies too)


def position_of(cls: type[P], text: str) -> P:
    """``cls.from_text(text)`` (how positions are unpickled: the text is checked like any other)."""
    if not (isinstance(cls, type) and issubclass(cls, Position)):
        raise field_error(NardyError, "cls", "must be a Position class", cls)
    return cls.from_text(text)


class Position(Formats):
    """An immutable nardy position: board, bar, borne-off counts, side to move, first-roll flags, pending
    transfer list and rule flags.

    Constructors:

    * ``Position.start(variant, **flags)``: the start of ``variant`` (one of ``VARIANTS``), rule flags as
      keyword arguments;
    * ``Position.from_text(text)``: from its one-line text (``position.to_text()``, ``repr`` pastes back);
    * ``Position.from_board(variant, board, *, turn="white", bar=(0, 0), off=(0, 0), first_roll=(True, True),
      pending=(), **flags)``: ``board[i]`` is the count on White's point ``i+1``, Black's negative (``turn``
      also ``"w"`` or ``"b"``);
    * ``Position.from_array(row)``: from a packed row of 64 ``int8`` (:mod:`nardy_fast.layout`);
    * ``Position(state)``: from a :class:`~nardy_fast.state.State`, e.g.
      ``position.state._replace(turn="black")``.

    Each checks its input and raises :class:`~nardy_fast.InvalidPositionError` naming the field.

    >>> p = Position.start("short")
    >>> p == Position.from_text(p.to_text()) == Position.from_array(p.to_array()) == Position(p.state)
    True
    >>> [str(m) for m in p.legal_moves((6, 5))][:2]
    ['24/18 18/13', '24/18 13/8']

    Then :meth:`legal_moves`, :meth:`play`, :meth:`is_over`, :meth:`winner`, :meth:`points`, :meth:`pips`,
    :attr:`zobrist`. Positions are in White's numbering, moves in the mover's own (docs/rules.md, The board
    and its numberings). ``print(position)`` shows a text board, :meth:`to_svg` draws one (Jupyter shows it).
    """

    __slots__ = ("_state", "_key")
    _engine: ClassVar[Engine]

    def __init__(self, state: State) -> None:
        """The position of ``state`` (e.g. ``position.state._replace(turn="black")``), checked field by field;
        raises :class:`~nardy_fast.InvalidPositionError` as :meth:`from_board` does."""
        self._init(check_state(state), None, None)

    def _init(self, state: State, key: Optional[int], packed: Optional[bytes]) -> None:
        """Fill the slots from a checked state (an implementation may keep more, e.g. its packed form)."""
        self._state = state
        self._key = key

    @classmethod
    def _trusted(cls: type[P], state: State, key: Optional[int] = None, packed: Optional[bytes] = None) -> P:
        """A position of a state that the package itself checked or derived: no check is repeated."""
        position = cls.__new__(cls)
        position._init(state, key, packed)
        return position

    def __getattr__(self, name: str) -> object:
        if name in ("_state", "_key", "_packed"):
            raise uninitialised_error("Position")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __reduce__(self) -> tuple[object, ...]:
        return (position_of, (type(self), self.to_text()))

    # --- construction ----------------------------------------------------------------------------------

    @classmethod
    def start(cls: type[P], variant: str, **flags: object) -> P:
        """The starting position of ``variant``, White to move, both first rolls to come."""
        name = choice(variant, VARIANTS)  # a plain str: a subclass's __hash__ or __eq__ takes no part
        board = START_BOARDS[name] if name is not None else ()
        return cls.from_board(variant if name is None else name, board, **flags)  # type: ignore[arg-type]

    @classmethod
    def from_board(
        cls: type[P],
        variant: str,
        board: Ints,
        *,
        turn: str = "white",
        bar: Ints = (0, 0),
        off: Ints = (0, 0),
        first_roll: Bools = (True, True),
        pending: Ints = (),
        rolls_played: Ints = (0, 0),
        **flags: object,
    ) -> P:
        """A position from White's board: ``board[i]`` = checkers on White's point ``i+1``, Black negative.

        ``turn`` is ``"white"`` or ``"black"`` (or ``"w"``, ``"b"``, as the position text writes them).
        ``bar``, ``off`` and ``first_roll`` are (White, Black) pairs; ``pending`` is the transfer list the side
        to move must play before rolling (gulbar, crazy). ``rolls_played`` counts each side's rolls played so
        far, up to ``normal_doubles_first_rolls`` (crazy; (0, 0) elsewhere). Rule flags are keyword arguments
        (docs/rules.md, Rule flags).
        Raises :class:`~nardy_fast.InvalidPositionError` naming the field for input that is no valid position.
        """
        return cls._trusted(make_state(variant, board, turn, bar, off, first_roll, pending, flags, rolls_played))

    @classmethod
    def from_text(cls: type[P], text: str) -> P:
        """A position from its one-line text (see :mod:`nardy_fast.notation`)."""
        args = notation.parse_position(text)
        flags = args.pop("flags")
        return cls.from_board(**args, **flags)  # type: ignore[arg-type]

    @classmethod
    def from_array(cls: type[P], array: object) -> P:
        """A position from its packed row of 64 ``int8`` (layout in :mod:`nardy_fast.layout`)."""
        return cls._trusted(layout.unpack(array))

    def to_array(self) -> npt.NDArray[np.int8]:
        """The packed row of 64 ``int8`` (layout in :mod:`nardy_fast.layout`)."""
        return layout.pack(self._state)

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

    # --- moves ---------------------------------------------------------------------------------------------

    def legal_moves(self, dice: Optional[Ints] = None, *, max_results: Optional[IntLike] = None) -> list[Move]:
        """Every legal move for ``dice``, one per distinct result, canonical steps (docs/rules.md,
        One move per result).

        ``dice`` is a roll ``(d1, d2)``; it must be omitted when :attr:`pending` is non-empty. A finished game
        has no legal moves; a side that cannot play gets one empty move.

        ``max_results`` bounds the search (crazy ladders can have millions of results): when it would hold
        more than ``max_results`` positions reached by the same number of steps, the call raises
        :class:`~nardy_fast.SearchLimitError`. The moves are such positions, so a call that returns has at
        most ``max_results`` of them.
        """
        over = self.is_over()
        # a finished game has no moves with or without a roll; a roll given is still checked
        roll = None if over and dice is None else check_roll(dice, self._state.pending)
        limit = check_limit(max_results)
        if over:
            return []
        return type(self)._engine(self, roll, limit)

    def play(self: P, move: Union[Move, str], dice: Optional[Ints] = None) -> P:
        """The position after ``move`` (a :class:`Move` or a move text) for ``dice``.

        A move text may give the steps in any order; it is matched by the position it reaches. Raises
        :class:`~nardy_fast.IllegalMoveError` when the move is not legal for the roll.
        """
        if isinstance(move, Move) and dice is None and move.parent == self:
            dice = move.roll
        legal = self.legal_moves(dice)
        if self.is_over():
            won = str(self.winner()).capitalize()
            raise field_error(IllegalMoveError, "move", f"the game is over ({won} has won): no move", str(move))
        roll = "the pending list" if dice is None else f"roll {check_roll(dice, ())!r}"
        if isinstance(move, Move):
            for candidate in legal:
                if candidate.result == move.result:
                    return candidate.result  # type: ignore[return-value]
            raise field_error(IllegalMoveError, "move", f"is not legal for {roll}", str(move))
        reached = self._after_steps(notation.parse_move(move), move)
        for candidate in legal:
            st = candidate.result._state
            if (st.board, st.bar, st.off) == reached:
                return candidate.result  # type: ignore[return-value]
        raise field_error(IllegalMoveError, "move", f"is not legal for {roll}", move)

    def _after_steps(
        self, pairs: list[tuple[int, int]], text: str
    ) -> tuple[tuple[int, ...], tuple[int, int], tuple[int, int]]:
        """Board, bar and off after moving checkers along ``pairs`` (mover's numbering), without rule checks."""
        st = self._state
        side: Side = to_mover(st.variant, st.turn, st.board, st.bar, st.off)
        for src, dst in pairs:
            if (src == BAR and side.xbar == 0) or (src != BAR and side.x[src] == 0):
                problem = f"has no checker to move from {src}"
                raise field_error(IllegalMoveError, "move", problem + notation.numbering_hint(self._state, src), text)
            if dst != OFF and side.y[dst] > (0 if st.variant in LONG_FAMILY else 1):
                problem = f"lands on the closed point {dst}"
                raise field_error(IllegalMoveError, "move", problem + notation.numbering_hint(self._state, dst), text)
            side, _ = move_checker(st.variant, side, src, dst)
        return to_white(st.variant, st.turn, side)

    def _rolls(self) -> list[Optional[tuple[int, int]]]:
        """The rolls perft tries: the 21 distinct rolls, or ``None`` alone for a pending list."""
        return [None] if self._state.pending else list(ROLLS)

    def _perft(self, depth: int) -> int:
        """perft of this position (:func:`nardy_fast.perft`, depth checked) through ``legal_moves``; an
        implementation may have a faster one."""
        if depth == 0:
            return 1
        total = 0
        for roll in self._rolls():
            moves = self.legal_moves(roll)
            total += len(moves) if depth == 1 else sum(move.result._perft(depth - 1) for move in moves)
        return total

    # --- identity ------------------------------------------------------------------------------------------

    @property
    def zobrist(self) -> int:
        """The 64-bit Zobrist key of the whole state (table in :mod:`nardy_fast.zobrist`)."""
        if self._key is None:
            self._key = zobrist.position_key(*self._state)
        return self._key

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self._state == other._state

    def __hash__(self) -> int:
        return hash(self.zobrist)

    def to_text(self) -> str:
        """The one-line text of the whole state; ``from_text`` reads it back exactly."""
        return notation.format_position(self._state)

    def __repr__(self) -> str:
        return f"Position.from_text({self.to_text()!r})"

    # --- pictures ------------------------------------------------------------------------------------------

    # size's default is svg.DEFAULT_SIZE, written out so that the signature needs no picture module
    def to_svg(self, *, move: Optional[Move] = None, flip: bool = False, size: int = 600) -> str:
        """An SVG picture of the position, ``size`` pixels wide, with an arrow for each step of ``move`` (one
        of this position's legal moves).

        White sits at the bottom, its points labelled in its numbering; ``flip=True`` puts Black at the
        bottom with Black's numbering (:mod:`nardy_fast.svg`). Raises :class:`~nardy_fast.NardyError` naming
        ``move``, ``flip`` or ``size`` for a move of another position, a non-boolean ``flip`` or a ``size``
        that is no integer 1..100000.
        """
        from . import svg

        steps = None
        if move is not None:
            if not isinstance(move, Move) or move.parent != self:
                raise field_error(NardyError, "move", "must be one of this position's legal moves", move)
            steps = move.steps
        return svg.svg(self._state, steps, flip, size)

    def _repr_svg_(self) -> str:
        """The picture Jupyter shows for a position."""
        return self.to_svg()

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
