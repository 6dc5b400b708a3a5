"""The public ``Position`` and ``Move`` types, shared by both implementations.

A ``Position`` is an immutable game state in White's numbering. The one thing an implementation supplies is
its move generator (:class:`Engine`): the reference subclasses ``Position`` with the pure-Python rules, the
core with the compiled ones, so validation, notation, hashing and errors are the same code for both.
"""

from __future__ import annotations

from abc import ABCMeta
from typing import ClassVar, Optional, Protocol, TypeVar, Union

import numpy as np
import numpy.typing as npt

from . import layout, notation, zobrist
from .board import BAR, OFF, Side, Step, move_checker, mover_point, points, to_mover, to_white
from .errors import IllegalMoveError, NardyError, field_error
from .inputs import Bools, IntLike, Ints, choice
from .state import State, check_limit, check_roll, check_state, make_state
from .variants import LONG_FAMILY, START_BOARDS, VARIANTS, FlagValue

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


def uninitialised_error(kind: str) -> NardyError:
    """The error for an object made with ``__new__`` and never initialised."""
    return NardyError(f"{kind.lower()}: was not made by the package's constructors (got an uninitialised {kind})")


def move_of(parent: Position, roll: Optional[tuple[int, int]], result: Position) -> Move:
    """The legal move of ``parent`` for ``roll`` that reaches ``result`` (how moves are unpickled)."""
    if not isinstance(parent, Position) or not isinstance(result, Position):
        raise field_error(IllegalMoveError, "move", "must join two positions", (parent, result))
    for move in parent.legal_moves(roll):
        if move.result == result:
            return move
    raise field_error(IllegalMoveError, "move", "is not legal for its roll", (parent, roll, result))


def position_of(cls: type[P], text: str) -> P:
    """``cls.from_text(text)`` (how positions are unpickled: the text is checked like any other)."""
    if not (isinstance(cls, type) and issubclass(cls, Position)):
        raise field_error(NardyError, "cls", "must be a Position class", cls)
    return cls.from_text(text)


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

    def __reduce__(self) -> tuple[object, ...]:
        return (move_of, (self.parent, self.roll, self.result))

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


class Position:
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
                raise field_error(IllegalMoveError, "move", problem + self._numbering_hint(src), text)
            if dst != OFF and side.y[dst] > (0 if st.variant in LONG_FAMILY else 1):
                problem = f"lands on the closed point {dst}"
                raise field_error(IllegalMoveError, "move", problem + self._numbering_hint(dst), text)
            side, _ = move_checker(st.variant, side, src, dst)
        return to_white(st.variant, st.turn, side)

    def _numbering_hint(self, point: int) -> str:
        """For Black, whose numbering differs from the position text's: how its own ``point`` reads in White's
        numbering, so that a move written in White's numbers is recognised (empty for White, the bar, off)."""
        if self._state.turn == "white" or point in (BAR, OFF):
            return ""
        white = mover_point(self._state.variant, point)
        return (
            f" (moves use the mover's own numbering: Black's point {point} is White's {white}; "
            "see docs/rules.md, The mover's numbering pitfall)"
        )

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

    # --- IDs (layouts in :mod:`nardy_fast.ids`) -----------------------------------------------------------
    # The ID and picture modules are imported when used: the central type depends on no output format.

    def id(self) -> str:
        """The compact URL-safe ID of the whole state (at most 29 characters, any variant); ``from_id`` reads
        it back exactly."""
        from . import ids

        return ids.to_id(self._state)

    @classmethod
    def from_id(cls: type[P], text: str) -> P:
        """A position from its compact ID (``position.id()``); raises :class:`~nardy_fast.InvalidNotationError`
        or :class:`~nardy_fast.InvalidPositionError` naming ``id`` for a malformed or impossible one."""
        from . import ids

        return cls._trusted(ids.from_id(text))

    def gnubg_id(self) -> str:
        """GNU Backgammon's 14-character Position ID (short nardy only). It carries the checkers only, not who
        is to move nor the first-roll marks: ``from_gnubg_id(pid, turn=p.turn, first_roll=p.first_roll)``
        gives ``p`` back exactly (``==``)."""
        from . import ids

        return ids.to_gnubg_id(self._state)

    def gnubg_match_id(self, dice: Optional[Ints] = None) -> str:
        """GNU Backgammon's 12-character Match ID for this short nardy position: the side to move on roll with
        ``dice`` (``None``: not rolled yet), in a money game with a centred 1-cube."""
        from . import ids

        return ids.to_match_id(self._state, dice)

    @classmethod
    def from_gnubg_id(
        cls: type[P],
        position_id: str,
        *,
        turn: Optional[str] = None,
        match_id: Optional[str] = None,
        first_roll: Optional[Bools] = None,
    ) -> P:
        """A short nardy position from GNU Backgammon's Position ID, ``turn`` to move (``"white"`` or
        ``"black"``, or ``"w"``, ``"b"``; default ``"white"``) or the player on roll of the Match ID
        ``match_id``. The IDs do not carry the first-roll marks: ``first_roll`` gives them, a (White, Black)
        pair of booleans as in :meth:`from_board`, and defaults to both to come on the start board and both
        played elsewhere. With both given as the position had them, the round trip is exact (``==``)."""
        from . import ids

        return cls._trusted(ids.from_gnubg_id(position_id, turn, match_id, first_roll))

    def xgid(self, dice: Optional[Ints] = None) -> str:
        """eXtreme Gammon's XGID of this short nardy position with ``dice`` rolled (``None``: not rolled yet);
        the cube and match fields are those of a money game with a centred 1-cube. It carries the checkers and
        the side to move, not the first-roll marks: ``from_xgid(x, first_roll=p.first_roll)`` gives ``p`` back
        exactly (``==``)."""
        from . import ids

        return ids.to_xgid(self._state, dice)

    @classmethod
    def from_xgid(cls: type[P], xgid: str, *, first_roll: Optional[Bools] = None) -> P:
        """A short nardy position from an XGID (its dice: :func:`nardy_fast.ids.read_xgid`). The XGID does not
        carry the first-roll marks: ``first_roll`` gives them, as in :meth:`from_gnubg_id` (default: both to
        come on the start board, both played elsewhere)."""
        from . import ids

        return cls._trusted(ids.read_xgid(xgid, first_roll).state)

    def __repr__(self) -> str:
        return f"Position.from_text({self.to_text()!r})"

    def __str__(self) -> str:
        """A text board of a few lines (White's numbering, as docs/rules.md draws boards); ``to_text()`` is
        the one-line text."""
        from . import svg

        return svg.text_board(self._state)

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
