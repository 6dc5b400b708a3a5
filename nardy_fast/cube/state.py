"""The doubling cube's and the match's state (docs/rules.md, The doubling cube; Match play): plain frozen values,
checked when made, with what the later layers ask of them: who may double, how many points a finished game
scores, the score after it, and where the match stands (away counts, the Crawford game, post-Crawford).

The cube is optional in every variant: a game without it is a game whose cube stays at 1 and is never turned.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..errors import NardyError, field_error
from ..inputs import boolean, choice, integer, items
from ..variants import SPECS, VARIANTS

__all__ = ["SIDES", "MAX_CUBE", "Cube", "Match", "other", "game_points"]

#: The two sides, White first: a score is written in this order.
SIDES = ("white", "black")

#: The highest cube value: 2 to the 12th. No real game goes near it; a bound keeps every product exact.
MAX_CUBE = 4096

#: How a game ends, and its multiple of the cube (docs/rules.md, Game end and scoring).
RESULTS = {"single": 1, "mars": 2, "koks": 3}


def other(side: str) -> str:
    """The side that is not ``side``."""
    return "black" if side == "white" else "white"


def _side(value: object, field: str) -> str:
    name = choice(value, SIDES)
    if name is None:
        raise field_error(NardyError, field, f"must be one of {SIDES}", value)
    return name


def game_points(variant: object, result: object) -> int:
    """The points a game won by ``result`` (``"single"``, ``"mars"``, ``"koks"``) is worth on a 1-cube in
    ``variant``: 1, 2, and 3 for a koks where the variant scores koks (short nardy); a variant without koks
    refuses ``"koks"``."""
    name = choice(variant, VARIANTS)
    if name is None:
        raise field_error(NardyError, "variant", f"must be one of {VARIANTS}", variant)
    kind = choice(result, tuple(RESULTS))
    if kind is None:
        raise field_error(NardyError, "result", f"must be one of {tuple(RESULTS)}", result)
    if kind == "koks" and not SPECS[name].koks:
        raise field_error(NardyError, "result", f"{name} scores no koks (a mars is its largest win)", result)
    return RESULTS[kind]


@dataclass(frozen=True)
class Cube:
    """The doubling cube: its ``value`` (a power of two, 1 to :data:`MAX_CUBE`) and its ``owner`` (``None``
    while it is in the middle, else the side that took it and alone may turn it next)."""

    value: int = 1
    owner: Optional[str] = None

    def __post_init__(self) -> None:
        value = integer(self.value)
        if value is None or value < 1 or value > MAX_CUBE or value & (value - 1):
            raise field_error(NardyError, "cube.value", f"must be a power of two from 1 to {MAX_CUBE}", self.value)
        owner = None if self.owner is None else _side(self.owner, "cube.owner")
        if value == 1 and owner is not None:
            raise field_error(NardyError, "cube.owner", "a cube at 1 has not been turned and has no owner", owner)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "owner", owner)

    @property
    def centred(self) -> bool:
        """Whether the cube is in the middle (either side may double)."""
        return self.owner is None

    def available(self, side: object) -> bool:
        """Whether ``side`` has the cube to turn: it is centred or ``side`` owns it (the match may still forbid
        a double: :meth:`Match.may_double`)."""
        name = _side(side, "side")
        return self.owner is None or self.owner == name

    def doubled(self, by: object) -> Cube:
        """The cube after ``by`` doubles and the other side takes: twice the value, owned by the taker."""
        name = _side(by, "by")
        if not self.available(name):
            raise field_error(NardyError, "by", "the cube is owned by the other side", name)
        if self.value * 2 > MAX_CUBE:
            raise field_error(NardyError, "cube.value", f"cannot pass {MAX_CUBE}", self.value)
        return Cube(self.value * 2, other(name))


@dataclass(frozen=True)
class Match:
    """A match to ``length`` points (``None``: money play, a session without end) with ``score`` (White's and
    Black's points) and ``crawford`` (this game is the Crawford game: the first after a side reached
    ``length - 1``, played without the cube). Money play has two options: ``jacoby`` (a mars or koks counts
    single while the cube is centred) and ``beavers`` (a side doubled may redouble at once, keeping the cube)."""

    length: Optional[int] = None
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False

    def __post_init__(self) -> None:
        length = None if self.length is None else integer(self.length)
        if self.length is not None and (length is None or length < 1 or length > 64):
            raise field_error(NardyError, "match.length", "must be None (money play) or an integer 1 to 64",
                              self.length)
        pair = items(self.score)
        points = None if pair is None or len(pair) != 2 else tuple(integer(p) for p in pair)
        if points is None or any(p is None or p < 0 for p in points):
            raise field_error(NardyError, "match.score", "must be two integers >= 0 (White's, Black's)", self.score)
        score = (int(points[0]), int(points[1]))  # type: ignore[arg-type]
        flags = {}
        for name in ("crawford", "jacoby", "beavers"):
            flag = boolean(getattr(self, name))
            if flag is None:
                raise field_error(NardyError, f"match.{name}", "must be a bool", getattr(self, name))
            flags[name] = flag
        if length is None:
            if score != (0, 0) or flags["crawford"]:
                problem = "money play (length None) has no score and no Crawford game"
                raise field_error(NardyError, "match.score" if score != (0, 0) else "match.crawford", problem,
                                  self.score if score != (0, 0) else self.crawford)
        else:
            if max(score) >= length:
                raise field_error(NardyError, "match.score", f"must be below the length {length}: the match is over",
                                  self.score)
            if flags["jacoby"] or flags["beavers"]:
                name = "jacoby" if flags["jacoby"] else "beavers"
                raise field_error(NardyError, f"match.{name}", "is an option of money play only", True)
            if flags["crawford"] and (length - score[0], length - score[1]).count(1) != 1:
                problem = "the Crawford game needs exactly one side 1 point away"
                raise field_error(NardyError, "match.crawford", f"{problem} (score {score}, length {length})",
                                  self.crawford)
        object.__setattr__(self, "length", length)
        object.__setattr__(self, "score", score)
        for name, flag in flags.items():
            object.__setattr__(self, name, flag)

    @property
    def money(self) -> bool:
        """Whether this is money play (no length)."""
        return self.length is None

    def away(self, side: object) -> int:
        """The points ``side`` still needs to win the match (money play has none to count: an error)."""
        name = _side(side, "side")
        if self.length is None:
            raise field_error(NardyError, "match.length", "money play counts no points away", None)
        return self.length - self.score[SIDES.index(name)]

    @property
    def post_crawford(self) -> bool:
        """Whether this game comes after the Crawford game: a side is 1 away and this is not the Crawford game
        (at 1-away both, double match point, too)."""
        return self.length is not None and not self.crawford and 1 in (self.away("white"), self.away("black"))

    def cube_dead(self, cube: Cube, side: object) -> bool:
        """Whether doubling ``cube`` gains ``side`` nothing: it already wins the match on a win at this cube."""
        return self.length is not None and self.away(side) <= cube.value

    def may_double(self, cube: Cube, side: object) -> bool:
        """Whether ``side`` may double now (GNU Backgammon's rule): it has the cube, this is not the Crawford
        game, the cube is not dead for it, and it is not the 1-away leader after the Crawford game."""
        name = _side(side, "side")
        if not cube.available(name):
            return False
        if self.length is None:
            return True
        return not self.crawford and not self.cube_dead(cube, name) and not (
            self.post_crawford and self.away(name) == 1
        )

    def double(self, cube: Cube, by: object) -> Cube:
        """The cube after ``by`` doubles and the other side takes, or a :class:`~nardy_fast.NardyError` where
        :meth:`may_double` forbids the double (naming why: the Crawford game, the owner, a dead cube)."""
        name = _side(by, "by")
        if not isinstance(cube, Cube):
            raise field_error(NardyError, "cube", "must be a nardy_fast.Cube", cube)
        if self.length is not None and self.crawford:
            raise field_error(NardyError, "match.crawford", "nobody doubles in the Crawford game", True)
        if not self.may_double(cube, name):
            problem = "the cube is owned by the other side" if not cube.available(name) else (
                "the leader after the Crawford game has no use for the cube" if self.post_crawford
                and self.away(name) == 1 else "the cube is dead: a win at this cube already wins the match")
            raise field_error(NardyError, "by", problem, name)
        return cube.doubled(name)

    def points(self, variant: object, result: object, cube: Cube, *, dropped: bool = False) -> int:
        """The points the winner scores: the game's multiple (:func:`game_points`) times the cube, or the cube's
        value before it was turned when a double was dropped (``dropped``: ``cube`` is that value). A match
        adds no more than the winner needs (:meth:`scored`)."""
        points = cube.value if dropped else game_points(variant, result) * cube.value
        if self.jacoby and cube.centred and not dropped:
            points = cube.value
        return points

    def after(self, winner: object, points: int) -> Optional[Match]:
        """The match after ``winner`` scores ``points`` (capped at what it needs); ``None`` when that ends the
        match. The Crawford game follows the first game that brings a side to 1 away."""
        name = _side(winner, "winner")
        if self.length is None:
            return self
        gained = integer(points)
        if gained is None or gained < 1:
            raise field_error(NardyError, "points", "must be an integer >= 1", points)
        gained = min(gained, self.away(name))
        score = list(self.score)
        score[SIDES.index(name)] += gained
        if score[SIDES.index(name)] >= self.length:
            return None
        crawford = not self.post_crawford and not self.crawford and self.length - score[SIDES.index(name)] == 1
        return Match(self.length, (score[0], score[1]), crawford=crawford)

    def scored(self, winner: object, points: int) -> int:
        """The points ``winner`` adds to its score: ``points``, or what it needs to win the match if fewer."""
        name = _side(winner, "winner")
        return points if self.length is None else min(points, self.away(name))
