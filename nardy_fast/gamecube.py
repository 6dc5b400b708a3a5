"""A game's doubling cube and match (docs/rules.md, The doubling cube; Match play): the cube actions of a
:class:`~nardy_fast.Game` with their checks, its result in points and the match score after it, and the
cube's part of the game's text record. Apart from :mod:`nardy_fast.game`, whose ``Game`` takes them in, so
that the game's module stays within its size.
"""

from __future__ import annotations

from typing import Optional

from .cube import MAX_CUBE, Cube, Match
from .cube.state import SIDES, other
from .errors import NardyError, field_error
from .position import Move, Position

__all__ = ["CUBE_ACTIONS", "CubeActions", "cube_header", "cube_settings", "CUBE_OPTIONS"]

#: A game's result by its multiple of the cube (docs/rules.md, Game end and scoring).
_RESULTS = {1: "single", 2: "mars", 3: "koks"}
#: The cube actions of a record's lines, each a method of :class:`CubeActions` (``pass``: :meth:`~CubeActions.
#: drop`).
CUBE_ACTIONS = ("double", "take", "pass", "beaver")
#: The options of a record's header that a game with the cube adds (``cube`` and ``match`` always).
CUBE_OPTIONS = frozenset({"cube", "match", "score", "crawford", "jacoby", "beavers"})


class CubeActions:
    """The cube and the match of a game, its cube actions and its result in points (a part of ``Game``)."""

    cubeful: bool
    cube: Cube
    first_cube: Cube
    match: Match
    offered: Optional[str]
    dropped: Optional[str]
    actions: list[tuple[int, str, str]]
    history: list[tuple[Optional[tuple[int, int]], Move]]
    roll: Optional[tuple[int, int]]
    opening: str

    def _cube_settings(self, cube: object, match: object) -> None:
        if cube is not None and not isinstance(cube, Cube):
            raise field_error(NardyError, "cube", "must be a nardy_fast.Cube or None", cube)
        if match is not None and not isinstance(match, Match):
            raise field_error(NardyError, "match", "must be a nardy_fast.Match or None", match)
        #: Whether the game is played with the cube (a cube or a match was given).
        self.cubeful = cube is not None or match is not None
        #: The cube now (``first_cube``: as the game began), and the match this game is part of (money play
        #: for a game without the cube).
        self.cube = self.first_cube = Cube() if cube is None else cube
        self.match = Match() if match is None else match
        #: The side whose double awaits its answer, and the side that passed one (ending the game).
        self.offered = None
        self.dropped = None
        #: The cube actions so far: (plies played before it, ``"w"`` or ``"b"``, one of CUBE_ACTIONS).
        self.actions = []

    @property
    def position(self) -> Position:
        """The position now (the game's own)."""
        raise NotImplementedError

    # --- the result ------------------------------------------------------------------------------------------

    def is_over(self) -> bool:
        """Whether a side has borne off all its checkers, or passed a double."""
        return self.dropped is not None or self.position.is_over()

    def winner(self) -> Optional[str]:
        """``"white"`` or ``"black"`` once the game is over (the doubler, when a double was passed)."""
        return other(self.dropped) if self.dropped is not None else self.position.winner()

    def points(self) -> int:
        """Points the winner scores (docs/rules.md, Game end and scoring), 0 while the game goes on: with the
        cube, the game's multiple times the cube (the cube's value before the double, for a double passed; a
        single game while the cube is centred, under the Jacoby rule), no more than the winner needs in a
        match."""
        if not self.cubeful:
            return self.position.points()
        winner = self.winner()
        if winner is None:
            return 0
        dropped = self.dropped is not None
        result = "single" if dropped else _RESULTS[self.position.points()]
        return self.match.scored(winner, self.match.points(self.position.variant, result, self.cube, dropped=dropped))

    def score(self) -> tuple[int, int]:
        """The match score (White's, Black's points): after this game once it is over, else before it (money
        play keeps no score: (0, 0))."""
        winner = self.winner()
        if winner is None or self.match.money:
            return self.match.score
        won = list(self.match.score)
        won[SIDES.index(winner)] += self.points()
        return (won[0], won[1])

    def next_match(self) -> Optional[Match]:
        """The match as its next game starts (the Crawford game after the first game that brings a side to 1
        away), ``None`` once this game has won the match; the same session at money play. Only once the game
        is over."""
        winner = self.winner()
        if winner is None:
            raise field_error(NardyError, "game", "is not over", self.position.to_text())
        return self.match.after(winner, self.points())

    # --- the cube actions --------------------------------------------------------------------------------------

    def turn_start(self) -> bool:
        """Whether the side to move is at the start of its turn: it has a roll to play and the last ply was the
        other side's (an extra roll or a transfer segment continues a turn); never before the game's first move
        from a variant's start, whose opening roll is already thrown."""
        if self.roll is None or self.is_over():
            return False
        if not self.history:
            return self.opening == "-"
        return self.history[-1][1].parent.turn != self.position.turn

    def may_double(self) -> bool:
        """Whether the side to move may double now: the game has the cube, no double awaits an answer, it is
        the start of that side's turn (:meth:`turn_start`) and the match allows it (:meth:`Match.may_double`:
        the cube available to it, not the Crawford game, a cube still alive)."""
        if not self.cubeful or self.offered is not None or not self.turn_start() or 2 * self.cube.value > MAX_CUBE:
            return False
        return self.match.may_double(self.cube, self.position.turn)

    def double(self) -> None:
        """The side to move doubles (:meth:`may_double`, else a :class:`~nardy_fast.NardyError` naming why);
        the other side answers next (:meth:`take`, :meth:`drop`, :meth:`beaver`)."""
        if not self.cubeful:
            raise field_error(NardyError, "cube", "this game is played without the cube", None)
        if self.is_over():
            raise field_error(NardyError, "cube", "the game is over", self.cube)
        if self.offered is not None:
            raise field_error(NardyError, "cube", "a double awaits its answer", self.offered)
        side = self.position.turn
        if not self.cube.available(side):
            raise field_error(NardyError, "cube.owner", "the cube is owned by the other side", self.cube.owner)
        if not self.turn_start():
            raise field_error(NardyError, "cube", "a side doubles at the start of its turn, before its roll", side)
        self.match.double(self.cube, side)  # the match's and the cube's checks: Crawford, owner, a dead cube
        self.offered = side
        self.actions.append((len(self.history), side[0], "double"))

    def take(self) -> None:
        """The side doubled takes: the cube doubles and is its own."""
        self._answer("take")

    def drop(self) -> None:
        """The side doubled passes: it loses the game for the cube's value before the double."""
        self._answer("pass")

    def beaver(self) -> None:
        """The side doubled takes and at once redoubles, keeping the cube (money play with beavers only)."""
        self._answer("beaver")

    def _answer(self, action: str) -> None:
        doubler = self.offered
        if doubler is None:
            raise field_error(NardyError, "cube", f"no double awaits an answer ({action})", self.cube)
        taker = other(doubler)
        if action == "take":
            self.cube = self.match.double(self.cube, doubler)
        elif action == "beaver":
            if not (self.match.money and self.match.beavers):
                raise field_error(NardyError, "match.beavers", "a beaver needs money play with beavers", False)
            self.cube = Cube(self.cube.value * 4, taker)
        else:
            self.dropped = taker
        self.offered = None
        self.actions.append((len(self.history), taker[0], action))

    def cube_lines(self, ply: int) -> list[str]:
        """The record's lines of the cube actions made after ``ply`` plies."""
        return [f"cube {side} {action}" for at, side, action in self.actions if at == ply]

    def end_line(self) -> list[str]:
        """The record's last line of a game with the cube once it is over: the winner, its points and the
        match score after the game (money play: no score)."""
        winner = self.winner()
        if not self.cubeful or winner is None:
            return []
        score = "" if self.match.money else " score={}-{}".format(*self.score())
        return [f"end {winner[0]} {self.points()}{score}"]


def cube_header(cube: Cube, match: Match) -> str:
    """The options a game with ``cube`` and ``match`` (as it began) adds to its record's header."""
    owner = "" if cube.owner is None else f":{cube.owner[0]}"
    parts = [f"cube={cube.value}{owner}", f"match={'money' if match.money else match.length}"]
    if not match.money:
        parts.append("score={}-{}".format(*match.score))
    parts += [f"{name}=1" for name in ("crawford", "jacoby", "beavers") if getattr(match, name)]
    return " " + " ".join(parts)


def _number(text: str, header: str) -> int:
    if not (text.isascii() and text.isdigit() and len(text) <= 5):
        raise field_error(NardyError, "record", "has a malformed cube or match in its header", header)
    return int(text)


def cube_settings(options: dict[str, str], header: str) -> tuple[Optional[Cube], Optional[Match]]:
    """The cube and match of a record's header options (both ``None`` for a game without the cube), checked
    as when they are made."""
    given = CUBE_OPTIONS & set(options)
    if not given:
        return None, None
    flags = {name: options[name] == "1" for name in ("crawford", "jacoby", "beavers") if name in options}
    if not {"cube", "match"} <= given or any(options[name] != "1" for name in flags):
        raise field_error(NardyError, "record", "has a malformed cube or match in its header", header)
    value, _, owner = options["cube"].partition(":")
    owners = {"": None, "w": "white", "b": "black"}
    if owner not in owners:
        raise field_error(NardyError, "record", "has a malformed cube or match in its header", header)
    cube = Cube(_number(value, header), owners[owner])
    if options["match"] == "money":
        if "score" in options:
            raise field_error(NardyError, "record", "has a score for money play in its header", header)
        return cube, Match(jacoby=flags.get("jacoby", False), beavers=flags.get("beavers", False),
                           crawford=flags.get("crawford", False))
    white, dash, black = options.get("score", "").partition("-")
    if not dash:
        raise field_error(NardyError, "record", "has a match without its score in its header", header)
    score = (_number(white, header), _number(black, header))
    return cube, Match(_number(options["match"], header), score, crawford=flags.get("crawford", False),
                       jacoby=flags.get("jacoby", False), beavers=flags.get("beavers", False))
