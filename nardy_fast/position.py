"""The public ``Position`` and ``Move`` types, shared by both implementations.

A ``Position`` is an immutable game state in White's numbering. The one thing an implementation supplies is
its move generator (:class:`Engine`): the reference subclasses ``Position`` with the pure-Python rules, the
core with the compiled ones, so validation, notation, hashing and errors are the same code for both.
"""

from __future__ import annotations

import copyreg
from abc import ABCMeta
from collections.abc import Callable
from typing import ClassVar, Optional, Protocol, TypeVar, Union

import numpy as np
import numpy.typing as npt

from . import layout, notation, zobrist
from .board import BAR, OFF, Side, Step, move_checker, to_mover, to_white
from .errors import IllegalMoveError, NardyError, field_error, uninitialised_error
from .formats import Formats
from .inputs import Bools, IntLike, Ints, choice
from .state import State, check_limit, check_roll, check_state, make_state
from .variants import LONG_FAMILY, START_BOARDS, VARIANTS
from .views import StateView

__all__ = ["Position", "Move", "Engine", "Step", "ROLLS", "move_of", "position_of", "uninitialised_error"]

#: The 21 distinct rolls, higher die first.
ROLLS: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(6, 0, -1) for b in range(a, 0, -1))

P = TypeVar("P", bound="Position")


class Engine(Protocol):
    """A move generator: all legal moves of ``position`` for ``roll`` (``None`` plays the pending list)."""

    def __call__(self, position: Position, roll: Optional[tuple[int, int]], limit: int) -> list[Move]:
        """The legal moves of ``position`` for ``roll`` (``None``: the pending list), one per distinct result;
        ``SearchLimitError`` when the search holds more than ``limit`` positions after one number of steps
        (0: no limit)."""
        ...


class Move(metaclass=ABCMeta):  # noqa: B024 - an ABC so that the core registers its Move
    """One legal move: its canonical steps (docs/rules.md, Canonical step order) and what follows it
    (docs/rules.md, What follows a move).

    Moves are equal when they were made for the same roll from equal positions and reach equal results. Only
    ``legal_moves`` makes them; a move pickles as its position, roll and result, and is found again among
    the legal moves when it is loaded.
    """

    # The compiled core's moves are registered as ``Move`` and build their steps and result on first access;
    # the attributes' docstrings are the core's properties' docstrings, word for word.
    __slots__ = {
        "steps": "The canonical step sequence, in the mover's own numbering.",
        "result": "The next position.",
        "remainder": (
            "The unplayed values passed to the opponent (gulbar, crazy; docs/rules.md, Gulbar transfers)."
        ),
        "extra_roll": (
            "Whether the same side rolls again (docs/rules.md, Six-one extra roll, Gulbar extra roll)."
        ),
        "roll": "The roll the move was made for; ``None`` for a pending transfer list.",
        "parent": "The position the move was made from.",
    }

    def __init__(
        self,
        parent: Position,
        roll: Optional[tuple[int, int]],
        steps: tuple[Step, ...],
        result: Position,
        remainder: tuple[int, ...],
        extra_roll: bool,
    ) -> None:
        self.parent = parent
        self.roll = roll
        self.steps = steps
        self.result = result
        self.remainder = remainder
        self.extra_roll = extra_roll

    def __getattr__(self, name: str) -> object:
        if name in Move.__slots__:
            raise uninitialised_error("Move")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __str__(self) -> str:
        return " ".join(map(str, self.steps)) or "pass"

    def __repr__(self) -> str:
        roll = "pending" if self.roll is None else f"{self.roll[0]}-{self.roll[1]}"
        return f"<Move {self} ({roll})>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Move):
            return NotImplemented
        return (self.parent, self.roll, self.result) == (other.parent, other.roll, other.result)

    def __hash__(self) -> int:
        return hash((self.parent, self.roll, self.result))


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


class Position(Formats, StateView):
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
