"""Duels: two policies or evaluators played against each other on duplicate dice (docs/rules.md,
Evaluation and search), for every implementation.

Game pair ``k`` is played twice on the dice of game number ``first_game + k`` of ``seed`` (who starts, every
roll and every random choice): first with ``a`` as White, then with ``a`` as Black. Each player meets the same
dice in both seats, so the luck of the dice cancels within a pair: a policy against itself scores exactly 0.

Two built-in players (``"random"``, ``"first"``, a :class:`~nardy_fast.policies.Greedy` with a built-in
evaluator, at any plies) play in the implementation's game loop, a policy per seat (the core's in C, without
the GIL, on ``threads`` threads; the reference's in the one Python game loop, :mod:`nardy_fast.lockstep`). A
callable policy or a Python evaluator plays in that Python loop over the implementation's ``batch_children``
(one call per ply of a batch, and one call of each player for the games it is to move in), the pairs of a
batch split among the threads. Both ways play the same games.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal, Optional, Union, overload

import numpy as np
import numpy.typing as npt

from .cube import Match
from .cubeduel import CubeDuelResult, cube_duel, session_match
from .dice import check_seed
from .duelrecords import check_match_records, checked_match_records, duel_match_records
from .errors import NardyError, field_error, uninitialised_error
from .inputs import choice, integer, items
from .kernels import PlayoutArgs, Records, Seat, StopFlag, batch_search, on_threads, split_range
from .lockstep import Lockstep, play, player_side
from .playouts import PlayoutOptions, check_playout
from .policies import Player, resolve_policy
from .position import Position
from .records import MatchRecord
from .variants import SPECS, VARIANTS

if TYPE_CHECKING:
    from .kernels import Kernels

__all__ = ["DuelResult", "duel", "OUTCOMES", "DUEL_DOC", "seat_of", "lockstep_duel"]

#: The outcome counts of a duel, for ``a``: its wins (single, mars, koks), its losses, and games given up.
OUTCOMES = ("win_single", "win_mars", "win_koks", "lose_single", "lose_mars", "lose_koks", "unfinished")


#: The most games of a duel (its ``games``, and the points of a :class:`DuelResult`).
MAX_GAMES = 1 << 31


def _checked_points(points: object, variant: str) -> npt.NDArray[np.int8]:
    """``points`` as a read-only int8 copy, or a :class:`~nardy_fast.NardyError` naming ``points``: a 1-D
    integer array or a sequence of integers (no bools), an even number of games (pairs on duplicate dice),
    each a score ``variant`` allows (up to 3 with koks, else 2, either sign; 0 for a game given up)."""
    top = 3 if SPECS[variant].koks else 2
    scores = f"must each be -{top}..{top} in {variant} nardy (a game's points, 0 for one given up)"
    values: Optional[npt.NDArray[np.int64]] = None
    if isinstance(points, np.ndarray):
        if points.ndim == 1 and points.dtype.kind in "iu":
            # compared in the array's own type: a cast first could wrap a huge score into range
            outside = points > top if points.dtype.kind == "u" else (points < -top) | (points > top)
            if outside.any():
                raise field_error(NardyError, "points", scores, points)
            values = points.astype(np.int64)
    else:
        given = items(points)
        numbers = [integer(v) for v in given] if given is not None else None
        if numbers is not None and all(n is not None for n in numbers):
            if any(not -top <= n <= top for n in numbers):  # type: ignore[operator]
                raise field_error(NardyError, "points", scores, points)
            values = np.array(numbers, dtype=np.int64)
    if values is None:
        raise field_error(NardyError, "points", "must be a sequence or 1-D array of integers (a game each)", points)
    if len(values) < 2 or len(values) % 2 or len(values) >= MAX_GAMES:
        problem = "must hold an even number of games below 2**31 (pairs on duplicate dice)"
        raise field_error(NardyError, "points", problem, points)
    out = values.astype(np.int8)
    out.setflags(write=False)
    return out


@dataclass(frozen=True, eq=False)
class DuelResult:
    """What a duel of ``a`` against ``b`` found: ``points`` (games,) int8, what ``a`` scored in each game (the
    points it won, minus the points it lost, 0 for a game given up after MAX_PLIES plies; game ``2k`` has
    ``a`` as White, ``2k + 1`` as Black, on the same dice). Every field is checked when a result is made
    (``points``: an even number of scores the variant allows, kept as a read-only copy), so that every
    figure below is one of those games'."""

    a: str
    b: str
    variant: str
    seed: int
    points: npt.NDArray[np.int8] = field(repr=False)
    #: The games as match records (``duel(..., match_records=True)``; empty without): one a game, in order.
    match_records: tuple[MatchRecord, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        for name in ("a", "b"):
            player = self.__dict__[name]
            if not isinstance(player, str):
                raise field_error(NardyError, name, "must be a string (the player's name)", player)
            object.__setattr__(self, name, str.__str__(player))
        variant = choice(self.variant, VARIANTS)
        if variant is None:
            raise field_error(NardyError, "variant", f"must be one of {VARIANTS}", self.variant)
        object.__setattr__(self, "variant", variant)
        object.__setattr__(self, "seed", check_seed(self.seed))
        object.__setattr__(self, "points", _checked_points(self.points, variant))
        object.__setattr__(self, "match_records", checked_match_records(self.match_records, len(self.points)))

    def __getattr__(self, name: str) -> object:
        # only for attributes never set: a result made with __new__ alone
        if name in self.__dataclass_fields__:
            raise uninitialised_error(type(self).__name__)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DuelResult):
            return NotImplemented
        same = (self.a, self.b, self.variant, self.seed) == (other.a, other.b, other.variant, other.seed)
        return same and np.array_equal(self.points, other.points) and self.match_records == other.match_records

    def __hash__(self) -> int:
        return hash((self.a, self.b, self.variant, self.seed, self.points.tobytes()))

    def __reduce__(self) -> tuple[object, ...]:
        # made again through the checks: the copy's points are read-only too
        return (DuelResult, (self.a, self.b, self.variant, self.seed, self.points, self.match_records))

    @property
    def games(self) -> int:
        """How many games were played."""
        return len(self.points)

    @property
    def ppg(self) -> float:
        """Points per game for ``a`` (cubeless)."""
        return float(self.points.mean())

    @property
    def stderr(self) -> float:
        """The standard error of :attr:`ppg`, over the pairs of games (each pair shares its dice, so the pairs
        are the independent samples); 0 for a single pair."""
        pairs = self.points.reshape(-1, 2).sum(axis=1, dtype=np.float64)
        if len(pairs) < 2:
            return 0.0
        return float(pairs.std(ddof=1) / np.sqrt(len(pairs)) / 2.0)

    @property
    def win_rate(self) -> float:
        """The share of the games ``a`` won."""
        return float((self.points > 0).mean())

    @property
    def counts(self) -> dict[str, int]:
        """How many games ended in each of :data:`OUTCOMES`, for ``a``."""
        p = self.points.astype(np.int64)
        values = (1, 2, 3, -1, -2, -3, 0)
        return {name: int((p == v).sum()) for name, v in zip(OUTCOMES, values)}

    def __str__(self) -> str:
        return (
            f"{self.a} vs {self.b} ({self.variant}, {self.games} games, seed {self.seed}): "
            f"{self.ppg:+.3f} ppg +- {self.stderr:.3f}, wins {self.win_rate:.1%}"
        )


DUEL_DOC = """Play ``a`` against ``b`` in ``games`` games (an even number) of ``variant`` (rule flags as keyword
arguments) on duplicate dice: each pair of games shares its dice (who starts, every roll, every random
choice: those of game ``first_game + k`` of ``seed``), with the seats swapped, so the luck of the dice
cancels within a pair and a policy against itself scores exactly 0. ``a`` and ``b`` are policies
(``"random"``, ``"first"``, a :class:`~nardy_fast.policies.Greedy`, a callable as for ``playout``) or
evaluators (a built-in's name, an object with ``evaluate(rows)``: its 0-ply ``Greedy``). Returns a
:class:`~nardy_fast.duel.DuelResult`: ``ppg`` (points per game for ``a``), its ``stderr`` over the
pairs, ``win_rate``, the outcome ``counts`` and each game's ``points``. ``progress(games_done)`` is
called after every ``batch`` pairs.

Two built-in players (policies, or ``Greedy`` with built-in evaluators, each its own evaluator and plies)
play in the compiled core's game loop in C without the GIL, on ``threads`` threads at once; a callable
policy or a Python evaluator plays in lock-step batches, each batch's pairs split among the ``threads``.
The points never depend on ``threads``, ``batch`` or the implementation. Ctrl-C stops a duel, every
thread of it, within a second or so.

With the doubling cube (docs/rules.md, The doubling cube; Match play): ``cube=True`` plays a money session,
each game with the cube (``match=nardy_fast.Match(jacoby=True, beavers=True)`` for its options), and
``match=7`` plays ``games`` matches to 7 points (pairs of matches on duplicate dice, game by game); the
players take cube actions by their strategies (:class:`~nardy_fast.policies.Greedy`'s ``cube``; other
policies never double and always take). They return a :class:`~nardy_fast.cubeduel.CubeDuelResult`: points
per game with the cube (``ppg``), or the match win rate (``win_rate``), with its ``stderr`` over the pairs.
The compiled core plays them in C, without the GIL, where it plays both players (:mod:`nardy_fast.cubeloop`
says which); the same games as the Python loop, which plays the others and the reference's."""


def seat_of(kernels: Kernels, args: PlayoutArgs, player: Player) -> Optional[Seat]:
    """``player`` as a seat of ``kernels``' game loop: a built-in policy, or a Greedy with a built-in
    evaluator (its tables; the evaluator checked against the start); ``None`` for a callable policy or a
    Python evaluator, which play in lock-step."""
    seat = player.seat(kernels, args.rows)
    return None if seat.policy < 0 else seat


@overload
def duel(
    kernels: Kernels, a: object, b: object, variant: str, games: object, *, seed: object = 0,
    first_game: object = 0, batch: object = 1000, threads: object = 1,
    progress: Optional[Callable[[int], None]] = None, flags: Optional[Mapping[str, object]] = None,
    cube: Literal[False] = False, match: None = None, match_records: bool = False,
    position_class: Optional[type[Position]] = None,
) -> DuelResult: ...
@overload
def duel(
    kernels: Kernels, a: object, b: object, variant: str, games: object, *, seed: object = 0,
    first_game: object = 0, batch: object = 1000, threads: object = 1,
    progress: Optional[Callable[[int], None]] = None, flags: Optional[Mapping[str, object]] = None,
    cube: bool = False, match: Union[int, Match, None] = None, match_records: bool = False,
    position_class: Optional[type[Position]] = None,
) -> Union[DuelResult, CubeDuelResult]: ...
def duel(
    kernels: Kernels,
    a: object,
    b: object,
    variant: str,
    games: object,
    *,
    seed: object = 0,
    first_game: object = 0,
    batch: object = 1000,
    threads: object = 1,
    progress: Optional[Callable[[int], None]] = None,
    flags: Optional[Mapping[str, object]] = None,
    cube: object = False,
    match: object = None,
    match_records: object = False,
    position_class: Optional[type[Position]] = None,
) -> Union[DuelResult, CubeDuelResult]:
    """:func:`nardy_fast.duel` with ``kernels``'s kernels."""
    count = integer(games)
    if count is None or count < 2 or count % 2 or count >= MAX_GAMES:
        raise field_error(NardyError, "games", "must be an even integer 2..2**31 (pairs on duplicate dice)", games)
    if choice(variant, VARIANTS) is None:
        raise field_error(NardyError, "variant", f"must be one of {VARIANTS}", variant)
    players = (resolve_policy(a, "a", evaluators=True), resolve_policy(b, "b", evaluators=True))
    options = PlayoutOptions(threads=threads, first_game=first_game, batch=batch, flags=dict(flags or {}))  # type: ignore[arg-type]
    args = check_playout(variant, count // 2, seed, options)
    if progress is not None and not callable(progress):
        raise field_error(NardyError, "progress", "must be callable or None", progress)
    session = session_match(cube, match)
    recording = check_match_records(match_records, count)
    if session is not None:
        found = cube_duel(kernels, players, args, count, session, progress)
        if not recording:
            return found
        records = duel_match_records(kernels, _position_class(position_class), players, args, count, session,
                                     found.results)
        return replace(found, match_records=records)
    seats = [seat_of(kernels, args, player) for player in players]
    if players[0] is players[1]:
        seats[1] = seats[0]  # one player in both seats: one search for both, as in a playout
    points = np.zeros(count, dtype=np.int8)
    for begin in range(0, count, 2 * args.batch):
        end = min(begin + 2 * args.batch, count)
        if seats[0] is not None and seats[1] is not None:
            _looped(kernels, args._replace(seats=(seats[0], seats[1]), paired=True), begin, end, points)
        else:
            lockstep_duel(kernels, players, args, begin, end, points)
        if progress is not None:
            progress(end)
    records = ()
    if recording:
        records = duel_match_records(kernels, _position_class(position_class), players, args, count, None, points)
    return DuelResult(repr(players[0]), repr(players[1]), str(variant), args.seed, points, records)


def _position_class(position_class: Optional[type[Position]]) -> type[Position]:
    """The rules a duel's records are replayed by: its implementation's ``Position`` (the package's by
    default)."""
    if position_class is not None:
        return position_class
    import nardy_fast  # the package's Position (the engine's modules name no implementation)

    return nardy_fast.Position


def _looped(kernels: Kernels, args: PlayoutArgs, begin: int, end: int, points: npt.NDArray[np.int8]) -> None:
    """Games ``begin`` up to ``end`` (even) of a duel of two seats (``args.seats``, paired) in ``kernels``'s game loop
    (its playout kernel), on ``args.threads`` threads: game ``g`` is pair ``g // 2``'s, ``a`` White in even
    games."""
    records = kernels.playout(args._replace(games=end - begin, first_game=args.first_game + begin // 2))
    assert isinstance(records, np.ndarray)
    points[begin:end] = _scores(records)


def _scores(records: Records) -> npt.NDArray[np.int8]:
    """What ``a`` scored in each game of consecutive pairs' records (``a`` White in the even ones): the points
    it won, minus those it lost, 0 for a game given up."""
    a_colour = np.arange(len(records), dtype=np.int64) % 2  # 0: a is White
    won = records["winner"].astype(np.int64)
    sign = np.where(won == a_colour, 1, -1).astype(np.int8)
    scores: npt.NDArray[np.int8] = np.where(won >= 0, sign * records["points"].astype(np.int8), 0).astype(np.int8)
    return scores


def lockstep_duel(
    kernels: Kernels,
    players: tuple[Player, Player],
    args: PlayoutArgs,
    begin: int,
    end: int,
    points: npt.NDArray[np.int8],
) -> None:
    """Games ``begin`` up to ``end`` (even) of a duel in lock-step, their pairs split among ``args.threads``
    threads (:func:`~nardy_fast.playouts.on_threads`: an exception or Ctrl-C in one stops the others within
    a ply)."""
    parts = split_range(begin // 2, (end - begin) // 2, args.threads)

    def part(index: int, stop: StopFlag) -> None:
        first, last = parts[index]
        if last > first:
            _play(kernels, players, args, 2 * first, 2 * last, points, stop)

    on_threads(args.threads, part)


def _play(
    kernels: Kernels,
    players: tuple[Player, Player],
    args: PlayoutArgs,
    begin: int,
    end: int,
    points: npt.NDArray[np.int8],
    stop: StopFlag,
) -> None:
    """Games ``begin`` up to ``end`` (even) of a duel in the one Python game loop (:func:`nardy_fast.lockstep.
    play`): game ``g`` is pair ``g // 2``'s, ``a`` White in even games; each player called for the games it is
    to move in. Returns early, ``points`` part-filled, at a ply that finds ``stop`` set."""
    games = Lockstep.of_records(args._replace(paired=True), begin, end, kernels.game_rolls)
    a, b = (player_side(kernels, player, args.seed) for player in players)
    if play(games, (a, b), batch_search(kernels.batch_children), stop):
        points[begin:end] = _scores(games.records())
