"""Whole games (docs/rules.md, Who starts; Game end and scoring): who starts, the opening roll, seeded dice,
extra rolls and transfer segments, the end and the score, and a text record that replays. Written on the
public ``Position`` API, so it serves both implementations alike. The turn contract it follows and the facts of
a playout's records are :mod:`nardy_fast.turns`' (named here too, as ever).
"""

from __future__ import annotations

from typing import Optional, Union

from . import dice
from .cube import Cube, Match
from .errors import IllegalMoveError, NardyError, field_error
from .gamecube import CUBE_ACTIONS, CUBE_OPTIONS, CubeActions, cube_header, cube_settings
from .inputs import boolean, choice
from .position import Move, Position
from .turns import LIMITED, MAX_PLIES, OPENINGS, POLICIES, RECORD, opening_roll, rolls_next, who_starts
from .variants import VARIANTS

__all__ = [
    "OPENINGS", "MAX_PLIES", "LIMITED", "Game", "RECORD", "POLICIES", "CUBE_ACTIONS", "who_starts", "opening_roll",
    "rolls_next",
]  # fmt: skip

_HEADER = "# nardy_fast game"


def _position_class(position_class: Optional[type[Position]]) -> type[Position]:
    if position_class is None:
        import nardy_fast  # the package's Position (the shared layer names no implementation)

        return nardy_fast.Position
    if not (isinstance(position_class, type) and issubclass(position_class, Position)):
        raise field_error(NardyError, "position_class", "must be a Position class", position_class)
    return position_class


#: Digits of the largest seed or game number, 2**64 - 1.
_NUMBER_DIGITS = len(str((1 << 64) - 1))


def _header_number(options: dict[str, str], name: str) -> int:
    """The seed or the game number of a record's header: ASCII digits of a value 0 <= value < 2**64 (the
    length checked first: Python refuses to convert more than 4,300 digits)."""
    digits = options[name]
    if not (digits.isascii() and digits.isdigit()):
        raise field_error(NardyError, name, "must be written with the digits 0-9 in a record", digits)
    significant = digits.lstrip("0") or "0"
    if len(significant) > _NUMBER_DIGITS or int(significant) >> 64:
        raise field_error(NardyError, name, f"must be an integer 0 <= {name} < 2**64", digits)
    return int(significant)


class Game(CubeActions):
    """A game with seeded dice: ``Game("long", seed=1)`` rolls for who starts and plays the opening per
    ``opening``; ``Game(position, seed=1)`` starts from any position, the side to move rolling first.

    The dice of game number ``game`` are a pure function of ``(seed, game)`` (:mod:`nardy_fast.dice`), so a
    game is the same on every machine and in every implementation; ``stratify=True`` makes its first two rolls
    the game number's pair of all 36 x 36 (as rollouts do). ``position_class`` picks the implementation
    (``nardy_fast.Position`` by default).

    With a ``cube`` (:class:`~nardy_fast.Cube`) or a ``match`` (:class:`~nardy_fast.Match`; money play by
    default) the game is played with the doubling cube (docs/rules.md, The doubling cube; Match play): the
    side to move may :meth:`double` at the start of its turn, before it plays its roll (the dice never depend
    on the cube), and the other side answers with :meth:`take`, :meth:`drop` or, at money play with beavers,
    :meth:`beaver`. Without either, the cube stays at 1 and no double is allowed: today's game and record.
    """

    def __init__(
        self,
        start: Union[str, Position] = "long",
        *,
        seed: int = 0,
        game: int = 0,
        opening: str = "fresh_roll",
        stratify: bool = False,
        position_class: Optional[type[Position]] = None,
        cube: Optional[Cube] = None,
        match: Optional[Match] = None,
        **flags: object,
    ) -> None:
        self._settings(seed, game, opening, stratify, cube, match)
        if isinstance(start, Position):
            if flags:
                raise field_error(
                    NardyError, "flags", "are the position's own when a game starts from one", flags
                )
            if start.is_over():
                raise field_error(NardyError, "start", "is a finished game", start.to_text())
            self.opening = "-"  # no opening: the side to move rolls (or plays its pending list)
            self.start = start
            self.roll: Optional[tuple[int, int]] = None if start.pending else self._draw()
            return
        variant = choice(start, VARIANTS)
        if variant is None:
            raise field_error(NardyError, "start", f"must be a Position or one of {VARIANTS}", start)
        self._open(_position_class(position_class).start(variant, **flags))

    def _settings(
        self, seed: object, game: object, opening: object, stratify: object, cube: object, match: object
    ) -> None:
        """The checked settings every game has, before its first position and roll."""
        self._cube_settings(cube, match)
        self.seed = dice.check_seed(seed)
        self.game = dice.check_seed(game, "game")
        stratified = boolean(stratify)
        if stratified is None:
            raise field_error(NardyError, "stratify", "must be True or False", stratify)
        #: Whether the first two rolls are the game number's pair of the 36 x 36 (:mod:`nardy_fast.dice`).
        self.stratify = stratified
        how = choice(opening, OPENINGS)
        if how is None:
            raise field_error(NardyError, "opening", f"must be one of {OPENINGS}", opening)
        #: How the first roll was made: one of :data:`OPENINGS`, or ``"-"`` for a game from a position.
        self.opening = how
        #: The (roll, move) of every ply so far; the roll is ``None`` for a transfer segment.
        self.history: list[tuple[Optional[tuple[int, int]], Move]] = []
        self._rolls = 0  # rolls drawn so far (the ROLL stream's counter)

    @classmethod
    def from_start(
        cls,
        position: Position,
        *,
        seed: int = 0,
        game: int = 0,
        opening: str = "fresh_roll",
        stratify: bool = False,
        cube: Optional[Cube] = None,
        match: Optional[Match] = None,
    ) -> Game:
        """``Game(position.variant, ...)`` from a starting position already made (its rule flags are the
        game's): who starts and the opening are rolled as there. ``position`` must be one where both first
        rolls are still to come and nothing is pending, as :meth:`Position.start` makes."""
        if not isinstance(position, Position):
            raise field_error(NardyError, "position", "must be a Position", position)
        state = position.state
        if state.first_roll != (True, True) or state.pending or position.is_over():
            raise field_error(
                NardyError, "position", "must be a starting position (both first rolls to come)", position.to_text()
            )
        made = cls.__new__(cls)
        made._settings(seed, game, opening, stratify, cube, match)
        made._open(position)
        return made

    def _open(self, first: Position) -> None:
        """Who starts and the opening roll (docs/rules.md, Who starts) from a starting position."""
        white, black = who_starts(self.seed, self.game)
        turn = "white" if white > black else "black"
        self.start = first if first.turn == turn else type(first)(first.state._replace(turn=turn))
        self.roll = opening_roll((white, black), self.opening) or self._draw()

    def _draw(self) -> tuple[int, int]:
        drawn = dice.roll(self.seed, self.game, self._rolls, self.stratify)
        self._rolls += 1
        return drawn

    # --- the game ----------------------------------------------------------------------------------------

    @property
    def position(self) -> Position:
        """The position now."""
        return self.history[-1][1].result if self.history else self.start

    def legal_moves(self) -> list[Move]:
        """The legal moves for the roll to play (:attr:`roll`; the pending list when it is ``None``)."""
        return self.position.legal_moves(self.roll)

    def play(self, move: Union[Move, str]) -> Position:
        """Play ``move`` (a :class:`Move` of :meth:`legal_moves` or a move text) and draw the next roll."""
        if self.is_over():
            shown = str(move) if isinstance(move, Move) else move  # only a Move's own str is trusted
            raise field_error(IllegalMoveError, "move", "the game is over", shown)
        if self.offered is not None:
            raise field_error(NardyError, "cube", "a double awaits its answer (take, drop or beaver)", self.offered)
        position = self.position
        if isinstance(move, Move) and move.parent is position and move.roll == self.roll:
            candidate = move  # a move of legal_moves(): legal as it stands
        else:
            reached = position.play(move, self.roll)  # IllegalMoveError when not legal for the roll
            candidate = next(m for m in position.legal_moves(self.roll) if m.result == reached)
        self.history.append((self.roll, candidate))
        after = candidate.result
        self.roll = self._draw() if rolls_next(after.to_array())[0] else None
        return after

    @property
    def plies(self) -> int:
        """Moves played so far, transfer segments included."""
        return len(self.history)

    @property
    def turns(self) -> int:
        """Rolls played so far (moves that were not transfer segments)."""
        return sum(roll is not None for roll, _ in self.history)

    # --- the record --------------------------------------------------------------------------------------

    def record(self) -> str:
        """The game as text, one line a ply (``<ply> <w|b> <roll|pending> <move>``) after a header line with
        the start, the seed, the game number and the opening; :meth:`from_record` replays it. A game with the
        cube adds its first cube and its match to the header (``cube=2:w match=7 score=2-4``, ``crawford=1``;
        ``match=money``, ``jacoby=1``, ``beavers=1``), a line for each cube action before the ply it precedes
        (``cube <w|b> <double|take|pass|beaver>``) and, once over, ``end <w|b> <points> score=<W>-<B>``."""
        stratified = " stratify=1" if self.stratify else ""
        cube = cube_header(self.first_cube, self.match) if self.cubeful else ""
        lines = [
            f"{_HEADER} seed={self.seed} game={self.game} opening={self.opening}{stratified}{cube}"
            f" | {self.start.to_text()}"
        ]
        for ply, (roll, move) in enumerate(self.history, 1):
            lines += self.cube_lines(ply - 1)
            side = move.parent.turn[0]
            label = "pending" if roll is None else f"{roll[0]}-{roll[1]}"
            lines.append(f"{ply} {side} {label} {move}")
        lines += self.cube_lines(len(self.history)) + self.end_line()
        return "\n".join(lines) + "\n"

    @classmethod
    def from_record(cls, text: str, position_class: Optional[type[Position]] = None) -> Game:
        """Replay a record of :meth:`record`: the same dice (from its seed and game number) and the same moves,
        each checked against its recorded side and roll."""
        if not isinstance(text, str) or not text.startswith(_HEADER):
            raise field_error(NardyError, "record", f"must start with {_HEADER!r}", text)
        text = str.__str__(text)  # a str subclass's own methods take no part in the parsing
        header, *plies = [line for line in text.splitlines() if line.strip()]
        fields, _, start_text = header[len(_HEADER) :].partition("|")
        pairs = [part.partition("=")[::2] for part in fields.split()]
        options = dict(pairs)
        if (
            len(options) != len(pairs)
            or set(options) - {"stratify"} - CUBE_OPTIONS != {"seed", "game", "opening"}
            or options.get("stratify", "1") != "1"
        ):
            raise field_error(NardyError, "record", "has a malformed header", header)
        seed, number = (_header_number(options, name) for name in ("seed", "game"))
        cube, match = cube_settings(options, header)
        start = _position_class(position_class).from_text(start_text.strip())
        stratify = "stratify" in options
        if options["opening"] == "-":
            replay = cls(start, seed=seed, game=number, stratify=stratify, cube=cube, match=match)
        else:
            replay = cls(
                start.variant,
                seed=seed,
                game=number,
                opening=options["opening"],
                stratify=stratify,
                position_class=type(start),
                cube=cube,
                match=match,
                **start.flags,
            )
            if replay.start != start:
                raise field_error(NardyError, "record", "does not start as its seed and opening do", header)
        ply = 0
        for line in plies:
            if replay.cubeful and replay._cube_line(line):
                continue
            ply += 1
            parts = line.split(" ", 3)
            expected = "pending" if replay.roll is None else f"{replay.roll[0]}-{replay.roll[1]}"
            if (
                len(parts) != 4
                or parts[0] != str(ply)
                or parts[1] != replay.position.turn[0]
                or parts[2] != expected
            ):
                raise field_error(
                    NardyError, "record", "has a ply that does not follow the game's dice", line
                )
            replay.play(parts[3])
        return replay

    def _cube_line(self, line: str) -> bool:
        """Whether ``line`` is a cube action or the end of a record of a game with the cube, played (or checked)
        if so; a :class:`~nardy_fast.NardyError` where it does not follow the game."""
        kind, _, rest = line.partition(" ")
        if kind == "end":
            if not self.is_over() or rest != self.end_line()[0][len("end ") :]:
                raise field_error(NardyError, "record", "ends otherwise than its game", line)
            return True
        if kind != "cube":
            return False
        side, _, action = rest.partition(" ")
        expected = self.position.turn[0] if action == "double" else "wb"[self.position.turn[0] == "w"]
        if action not in CUBE_ACTIONS or side != expected:
            raise field_error(NardyError, "record", "has a cube action that does not follow the game", line)
        {"double": self.double, "take": self.take, "pass": self.drop, "beaver": self.beaver}[action]()
        return True

    def __repr__(self) -> str:
        return f"<Game seed={self.seed} game={self.game} ply {self.plies}: {self.position.to_text()}>"
