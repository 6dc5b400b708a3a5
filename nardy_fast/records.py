"""Match records (docs/rules.md, Match records): a match or money session as small immutable values, the games
of it, each ply's roll and steps, its cube actions and resignation, and a replay of them through the package's
rules, so that a record read from a file is a record of legal play or an error naming where it is not.

Unlike :meth:`nardy_fast.Game.from_record`, which replays a seeded game from its seed, a record carries its
rolls: a game played at a table, or by another program, loads too. The formats that read and write these
values live beside it (:mod:`nardy_fast.matchfiles`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Optional, Union

from .cube import Cube, Match
from .cube.state import SIDES, other
from .errors import IllegalMoveError, NardyError, field_error
from .gamecube import CubeActions
from .position import Move, Position, Step
from .variants import VARIANTS

__all__ = [
    "Ply", "CubeAction", "Resignation", "GameRecord", "MatchRecord", "Replay", "Event", "ACTIONS", "find_move",
    "score_after", "next_match", "variant_starts",
]  # fmt: skip

#: A record's cube actions (a pass of a double is ``"drop"``, as the file formats write it).
ACTIONS = ("double", "take", "drop", "beaver")


@dataclass(frozen=True)
class Ply:
    """One move of a game: the side that played it, its roll (``None`` for a transfer segment, the pending
    list played before the side's own roll: docs/rules.md, Gulbar transfers), its steps, canonical, in the
    mover's own numbering (empty for a pass), and for a transfer segment the pending list it played."""

    side: str
    roll: Optional[tuple[int, int]]
    steps: tuple[Step, ...]
    pending: tuple[int, ...] = ()

    @property
    def text(self) -> str:
        """The move in the package's move text (``"pass"`` for no step)."""
        return " ".join(map(str, self.steps)) or "pass"


@dataclass(frozen=True)
class CubeAction:
    """A cube action: ``side`` doubles, takes, drops (passes) or beavers (one of :data:`ACTIONS`)."""

    side: str
    action: str


@dataclass(frozen=True)
class Resignation:
    """``side`` resigned the game, the other side scoring ``points`` (the game unfinished on the board)."""

    side: str
    points: int


#: What happens in a game, in order.
Event = Union[Ply, CubeAction, Resignation]


def _checked_side(side: object, name: str) -> None:
    if side not in SIDES:
        raise field_error(NardyError, name, "must be 'white' or 'black'", side)


@dataclass(frozen=True)
class GameRecord:
    """One game of a match record: its number (1 for the first), its start (the position text before the first
    ply, the side to move first included), the score before it (White's, Black's: at money play the points won
    so far), the match as it began (``None`` for a game played without the cube), what happened in it
    (:data:`Event` values in order), and its result: the winner (``None`` for a game left unfinished) and the
    points the winner scored (the game's multiple times the cube, or a resignation's or a pass's points;
    not capped at what a match needs)."""

    number: int
    start: str
    score: tuple[int, int]
    match: Optional[Match]
    events: tuple[Event, ...]
    winner: Optional[str]
    points: int

    def __post_init__(self) -> None:
        if self.winner is not None:
            _checked_side(self.winner, "winner")
        for event in self.events:
            if not isinstance(event, (Ply, CubeAction, Resignation)):
                raise field_error(NardyError, "events", "must hold Ply, CubeAction and Resignation values", event)

    @property
    def variant(self) -> str:
        """The variant the game is played in (its start's)."""
        return self.start.split(" ", 1)[0]

    @property
    def plies(self) -> tuple[Ply, ...]:
        """The moves played, transfer segments included."""
        return tuple(event for event in self.events if isinstance(event, Ply))

    @property
    def cube_actions(self) -> tuple[CubeAction, ...]:
        """The cube actions, in order."""
        return tuple(event for event in self.events if isinstance(event, CubeAction))

    @property
    def crawford(self) -> bool:
        """Whether this is the Crawford game of a match (no cube in it)."""
        return self.match is not None and self.match.crawford

    def positions(self, position_class: Optional[type[Position]] = None) -> list[Position]:
        """The start and the position after every ply, replayed through the rules of ``position_class``'s
        implementation (the package's ``Position`` by default): an illegal ply, a cube action out of turn or a
        result otherwise than the game's raises a :class:`~nardy_fast.NardyError` naming the game and the ply."""
        replay = Replay(self.start, self.match, position_class)
        seen = [replay.position]
        for index, event in enumerate(self.events, 1):
            where = f"game {self.number}, event {index}"
            if isinstance(event, Ply):
                if event.side != replay.position.turn:
                    raise field_error(NardyError, where, f"is {replay.position.turn}'s turn", event.side)
                replay.play(event.roll, [(step.src, step.dst) for step in event.steps], event.text, where)
                seen.append(replay.position)
            elif isinstance(event, CubeAction):
                replay.cube_action(event.side, event.action, where)
            else:
                replay.resign(other(event.side), event.points, where)
        if (replay.winner(), replay.raw_points()) != (self.winner, self.points):
            problem = f"ends with {replay.winner()} scoring {replay.raw_points()}, not as recorded"
            raise field_error(NardyError, f"game {self.number}", problem, (self.winner, self.points))
        return seen


@dataclass(frozen=True)
class MatchRecord:
    """A match (``length`` points) or a money session (``length`` ``None``) between ``players`` (White's name,
    Black's) in ``variant`` with its rule ``flags`` (name and value pairs, as ``Position.flags`` without the
    defaults), its games in order, whether it is played with the cube and by which rules (the Crawford rule in
    a match; Jacoby and beavers at money play), and the header tags of its file (name and value pairs)."""

    players: tuple[str, str]
    length: Optional[int]
    games: tuple[GameRecord, ...]
    variant: str = "short"
    flags: tuple[tuple[str, object], ...] = ()
    cube: bool = True
    crawford: bool = True
    jacoby: bool = False
    beavers: bool = False
    tags: tuple[tuple[str, str], ...] = field(default=())

    def __post_init__(self) -> None:
        names = self.players
        if not (isinstance(names, tuple) and len(names) == 2 and all(isinstance(n, str) for n in names)):
            raise field_error(NardyError, "players", "must be two names (White's, Black's)", names)
        if self.length is not None and not (isinstance(self.length, int) and 1 <= self.length <= 64):
            raise field_error(NardyError, "length", "must be None (money play) or an integer 1 to 64", self.length)
        if self.variant not in VARIANTS:
            raise field_error(NardyError, "variant", f"must be one of {VARIANTS}", self.variant)
        if not all(isinstance(g, GameRecord) for g in self.games):
            raise field_error(NardyError, "games", "must hold GameRecord values", self.games)

    @property
    def money(self) -> bool:
        """Whether this is money play."""
        return self.length is None

    @property
    def score(self) -> tuple[int, int]:
        """The score after the last game: in a match each game adds no more than the winner needs."""
        if not self.games:
            return (0, 0)
        last = self.games[-1]
        return score_after(last.score, last.winner, last.points, self.length)

    def winner(self) -> Optional[str]:
        """The side that won the match (``None`` at money play or while it goes on)."""
        if self.length is None:
            return None
        for side, points in zip(SIDES, self.score):
            if points >= self.length:
                return side
        return None

    def positions(self, position_class: Optional[type[Position]] = None) -> Iterator[list[Position]]:
        """Each game's :meth:`GameRecord.positions`."""
        for game in self.games:
            yield game.positions(position_class)


def score_after(score: tuple[int, int], winner: Optional[str], points: int, length: Optional[int]) -> tuple[int, int]:
    """``score`` after ``winner`` scores ``points``: capped at the length in a match."""
    if winner is None:
        return score
    won = list(score)
    index = SIDES.index(winner)
    won[index] += points if length is None else min(points, length - score[index])
    return (won[0], won[1])


def find_move(position: Position, roll: Optional[tuple[int, int]], pairs: list[tuple[int, int]], text: str,
              where: str) -> Move:
    """The legal move of ``position`` for ``roll`` whose steps are ``pairs`` ((from, to) in the mover's
    numbering, in any order), or that reaches the same position (another split of the dice, chained steps):
    else an :class:`~nardy_fast.IllegalMoveError` naming ``where``."""
    try:
        legal = position.legal_moves(roll)
    except NardyError as error:
        raise field_error(IllegalMoveError, where, str(error), text) from None
    # the canonical order plays the highest point first, then the highest die (docs/rules.md, Canonical step
    # order): the text's steps in that order are most often the move's own, compared without sorting each
    ordered = sorted(pairs, key=lambda pair: (pair[0], pair[0] - pair[1]), reverse=True)
    count = len(ordered)
    src, dst = ordered[0] if ordered else (-1, -1)
    for move in legal:
        steps = move.steps
        if len(steps) == count and (not count or (steps[0][0] == src and steps[0][1] == dst)) and all(
            step[0] == a and step[1] == b for step, (a, b) in zip(steps, ordered)
        ):
            return move
    for move in legal:  # the same steps in another order (a bear-off or an entry played first)
        if sorted(step[:2] for step in move.steps) == sorted(ordered):
            return move
    try:  # the slow path, for a split of the dice other than the canonical one
        reached = position.play(" ".join(f"{a}/{b}" for a, b in pairs) or "pass", roll)
    except NardyError as error:
        raise field_error(IllegalMoveError, where, f"is not a legal move ({error})", text) from None
    return next(move for move in legal if move.result == reached)


class Replay(CubeActions):
    """A game replayed from a record's events: each ply's roll as recorded, the cube actions by the game's
    rules (:class:`~nardy_fast.gamecube.CubeActions`), a resignation, and the points the game scored."""

    def __init__(self, start: Union[str, Position], match: Optional[Match],
                 position_class: Optional[type[Position]] = None) -> None:
        if isinstance(start, Position):
            position_class = type(start)
        elif position_class is None:
            import nardy_fast  # the package's Position (the records name no implementation)

            position_class = nardy_fast.Position
        self._cube_settings(None if match is None else Cube(), match)
        self.opening = "record"  # the first roll is thrown with the game: nobody doubles before it
        self.roll = None
        self.history = []
        self.start = self.current = start if isinstance(start, Position) else position_class.from_text(start)
        self.resigned: Optional[tuple[str, int]] = None  # (winner, points) of a resignation
        self.events: list[Event] = []

    @property
    def position(self) -> Position:
        """The position now."""
        return self.current

    def turn_first(self, side: str) -> None:
        """Before the first move: ``side`` moves first (the start with that side to move)."""
        if self.history or self.actions:
            raise field_error(NardyError, "side", "moves first only before the game's first move", side)
        self.start = self.current = type(self.start)(self.start.state._replace(turn=side))

    def turn_start(self) -> bool:
        """As :meth:`CubeActions.turn_start`, the roll being the record's next (none before a pending list)."""
        position = self.position
        if self.is_over() or position.pending:
            return False
        if not self.history:  # a game from a position may open with a double: no opening roll was thrown
            return self.start.to_text() not in variant_starts(self.start) and not self.actions
        return self.history[-1][1].parent.turn != position.turn

    def is_over(self) -> bool:
        """Whether the game is over: borne off, a double passed, or resigned."""
        return self.resigned is not None or super().is_over()

    def winner(self) -> Optional[str]:
        """The winner once the game is over (a resignation's too)."""
        return self.resigned[0] if self.resigned is not None else super().winner()

    def raw_points(self) -> int:
        """The points the winner scored, not capped at what it needs in a match (0 while the game goes on)."""
        winner = self.winner()
        if winner is None:
            return 0
        if self.resigned is not None:
            return self.resigned[1]
        if not self.cubeful:
            return self.position.points()
        if self.dropped is not None:
            return self.cube.value
        result = {1: "single", 2: "mars", 3: "koks"}[self.position.points()]
        return self.match.points(self.position.variant, result, self.cube)

    def play(self, roll: Optional[tuple[int, int]], pairs: list[tuple[int, int]], text: str, where: str) -> Move:
        """Play the move of ``pairs`` for ``roll`` (``None``: the pending list)."""
        position = self.current
        if self.resigned is not None or self.dropped is not None or position.is_over():
            raise field_error(IllegalMoveError, where, "the game is over: no move follows", text)
        if self.offered is not None:
            raise field_error(NardyError, where, "a double awaits its answer", text)
        pending = position.pending
        if (roll is None) != bool(pending):
            problem = "a transfer segment needs a pending list" if roll is None else (
                f"the pending list {position.pending} is played before a roll")
            raise field_error(IllegalMoveError, where, problem, text)
        move = find_move(position, roll, pairs, text, where)
        self.history.append((roll, move))
        self.current = move.result
        self.events.append(Ply(position.turn, roll, tuple(move.steps), pending))
        return move

    def cube_action(self, side: str, action: str, where: str) -> None:
        """``side`` takes the cube action ``action`` (one of :data:`ACTIONS`), checked by the game's rules."""
        if action not in ACTIONS:
            raise field_error(NardyError, where, f"a cube action is one of {ACTIONS}", action)
        expected = self.position.turn if action == "double" else (None if self.offered is None else other(self.offered))
        if side != expected:
            raise field_error(NardyError, where, f"is no cube action of {side}'s now (out of turn)", action)
        try:
            {"double": self.double, "take": self.take, "drop": self.drop, "beaver": self.beaver}[action]()
        except NardyError as error:
            raise field_error(NardyError, where, f"{action}: {error}", action) from None
        self.events.append(CubeAction(side, action))

    def resign(self, winner: str, points: int, where: str) -> None:
        """The other side than ``winner`` resigns, ``winner`` scoring ``points``: a multiple the game could be
        won by (docs/rules.md, Game end and scoring) times the cube."""
        if self.is_over() or self.offered is not None:
            raise field_error(NardyError, where, "a game resigned must be unfinished, no double pending", points)
        multiples = (1, 2, 3) if self.position.variant == "short" else (1, 2)
        if points not in [k * self.cube.value for k in multiples]:
            raise field_error(NardyError, where, f"a resignation scores 1, 2 (3 in short nardy) times the cube "
                                                 f"({self.cube.value})", points)
        self.resigned = (winner, points)
        self.events.append(Resignation(other(winner), points))

    def record(self, number: int, score: tuple[int, int], match: Optional[Match]) -> GameRecord:
        """The game's record so far."""
        return GameRecord(number, self.start.to_text(), score, match, tuple(self.events), self.winner(),
                          self.raw_points())


def variant_starts(position: Position) -> tuple[str, str]:
    """The texts of ``position``'s variant's start (its flags') with White and with Black to move: where a game
    with an opening roll starts (docs/rules.md, Who starts)."""
    key = (type(position), position.variant, tuple(sorted(position.flags.items())))
    texts = _STARTS.get(key)
    if texts is None:
        text = type(position).start(position.variant, **position.flags).to_text()
        variant, _, rest = text.partition(" w ")
        texts = _STARTS[key] = (text, f"{variant} b {rest}")
    return texts


#: :func:`variant_starts` of the variants, flags and position classes seen.
_STARTS: dict[tuple[type[Position], str, tuple[tuple[str, object], ...]], tuple[str, str]] = {}


def next_match(match: Match, winner: str, points: int, crawford_rule: bool) -> Optional[Match]:
    """The match as the next game starts (``None`` once won), with or without the Crawford rule."""
    following = match.after(winner, points)
    if following is not None and following.crawford and not crawford_rule:
        return Match(following.length, following.score)
    return following
