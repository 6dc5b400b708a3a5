"""The one Python game loop, for every implementation: the games of a batch held in packed rows and advanced one
ply at a time together (:class:`Lockstep`), so that a policy sees all their children at once (one search and
one Python call per ply of a batch). A playout with a callable policy or a Python evaluator, a duel with one,
the reference's playout of the built-in policies (:func:`seats_playout`) and the games stepped from outside
(:class:`nardy_fast.vector.Games`, on whose steps the vector environment and its trainers stand) are all this
loop, driven by their choosers; the compiled core's loop in C (src_pyx/games.pxi, seats.pxi) is its twin.
Games with the doubling cube and matches are this loop too, their cube and match state carried beside each
game's row (:mod:`nardy_fast.cubeloop`, which the core plays in Python for now).
Turns follow :mod:`nardy_fast.game`'s contract (:mod:`nardy_fast.turns`), as the core's loop does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, Optional

import numpy as np
import numpy.typing as npt

from . import layout
from .batch import handed_out
from .kernels import (
    BatchChildren,
    Chooser,
    GameRolls,
    Kernels,
    Played,
    PlayoutArgs,
    Ply,
    PlySearch,
    Records,
    Seat,
    StopFlag,
    Trajectories,
    batch_search,
    on_threads,
)
from .policies import First, Player, Random, resolve_policy
from .turns import (
    LIMITED,
    MAX_PLIES,
    OPENINGS,
    POLICIES,
    RECORD,
    TRUNCATED,
    opening_roll,
    rolls_next,
    who_starts,
)

__all__ = [
    "BatchChildren",
    "GameRolls",
    "first_rolls",
    "bearoff_stops",
    "handed_out",
    "Lockstep",
    "Side",
    "chooser_side",
    "player_side",
    "seat_side",
    "picks",
    "play",
    "play_range",
    "lockstep_playout",
    "gathered",
    "callable_playout",
    "seats_playout",
]

Rows = npt.NDArray[np.int8]
Ints = npt.NDArray[np.int64]
Mask = npt.NDArray[np.bool_]
Piece = tuple[Ints, Rows, Rows]


def first_rolls(args: PlayoutArgs, numbers: Ints, game_rolls: GameRolls) -> tuple[Rows, Rows, Ints]:
    """The games' starting rows, their first rolls and how many rolls each has drawn, by the turn contract of
    :mod:`nardy_fast.game`: who starts and the opening for a variant's start; else the side to move rolls,
    unless it has a pending list to play."""
    rows = args.rows[numbers % len(args.rows)].copy()
    drawn = np.zeros(len(numbers), dtype=np.int64)
    rolls = np.zeros((len(numbers), 2), dtype=np.int8)
    if args.from_start:
        opening = OPENINGS[args.opening]
        for i, number in enumerate(numbers):
            singles = who_starts(args.seed, int(number))
            rows[i, layout.TURN] = singles[1] > singles[0]
            rolls[i] = opening_roll(singles, opening) or (0, 0)
    rolling = rolls_next(rows) & (rolls[:, 0] == 0)
    rolls[rolling] = game_rolls(args.seed, numbers[rolling], drawn[rolling], args.stratify)
    drawn[rolling] = 1
    return rows, rolls, drawn


def bearoff_stops(rows: Rows, truncate: bool) -> Mask:
    """Where ``truncate="bearoff"`` stops a game: bear-off positions whose side to move rolls (one with a
    pending list plays it first); nowhere without ``truncate``, where the bear-off test, a fifth of a callable
    policy's playout, is not made."""
    if not truncate:
        return np.zeros(len(rows), dtype=bool)
    stops: Mask = layout.is_bearoff(rows) & (rows[:, layout.NPENDING] == 0)
    return stops


def _cut(rows: Rows, plies: npt.NDArray[np.int32], most: int) -> Mask:
    """Where ``truncate_plies=most`` stops a game: after ``most`` plies (``plies`` played), at a position whose
    side to move rolls (a pending list is played first); nowhere when ``most`` is 0."""
    if not most:
        return np.zeros(len(rows), dtype=bool)
    cut: Mask = (plies >= most) & (rows[:, layout.NPENDING] == 0)
    return cut


class Lockstep:
    """The games of a batch in packed rows, advanced one ply at a time together: their game numbers, rows, the
    rolls they play next ((0, 0) before a transfer segment and after the end), the rolls each has drawn, its
    plies and turns, and whether it was given up at a ply over ``max_results``; ``swap`` marks the games whose
    seats are swapped (a duel's odd records, where ``a`` is Black). The state is the caller's to read;
    :meth:`ends` and :meth:`advance` are the one place a ply is played."""

    __slots__ = ("args", "game_rolls", "numbers", "swap", "rows", "rolls", "drawn", "plies", "turns", "limited")

    def __init__(self, args: PlayoutArgs, numbers: Ints, game_rolls: GameRolls, swap: Optional[Mask] = None) -> None:
        self.args = args
        self.game_rolls = game_rolls
        self.numbers = numbers
        self.swap = swap
        self.rows, self.rolls, self.drawn = first_rolls(args, numbers, game_rolls)
        self.plies = np.zeros(len(numbers), dtype=np.int32)
        self.turns = np.zeros(len(numbers), dtype=np.int32)
        self.limited = np.zeros(len(numbers), dtype=bool)

    @classmethod
    def of_records(cls, args: PlayoutArgs, begin: int, end: int, game_rolls: GameRolls) -> Lockstep:
        """Records ``begin`` up to ``end`` of ``args``: game ``first_game + i`` for record ``i``; in a duel
        (``paired``) records ``2k`` and ``2k + 1`` share game ``first_game + k``, seats swapped in the odd one."""
        index = np.arange(begin, end, dtype=np.int64)
        if args.paired:
            return cls(args, index // 2 + args.first_game, game_rolls, index % 2 == 1)
        return cls(args, index + args.first_game, game_rolls)

    def restart(self, slots: Ints, numbers: Ints) -> None:
        """New games ``numbers`` from their starts, in ``slots``."""
        self.numbers[slots] = numbers
        self.rows[slots], self.rolls[slots], self.drawn[slots] = first_rolls(self.args, numbers, self.game_rolls)
        self.plies[slots] = 0
        self.turns[slots] = 0
        self.limited[slots] = False

    def ends(self, active: Ints, chosen: Rows) -> Mask:
        """Which of the games ``active`` end once they move to ``chosen``: over, at
        :data:`~nardy_fast.turns.MAX_PLIES` plies (given up), or stopped at a bear-off by ``truncate`` or after
        ``truncate_plies`` plies."""
        given_up = self.plies[active] + 1 >= MAX_PLIES
        cut = _cut(chosen, self.plies[active] + 1, self.args.truncate_plies)
        ended: Mask = layout.is_over(chosen) | given_up | bearoff_stops(chosen, self.args.truncate) | cut
        return ended

    def advance(self, active: Ints, chosen: Rows, ended: Mask) -> None:
        """The games ``active`` move to ``chosen`` (one child each), a ply played; those going on (not
        ``ended``) draw their next roll, none before a transfer segment (an extra roll leaves the same side to
        move with a fresh roll)."""
        self.turns[active] += self.rolls[active, 0] != 0
        self.plies[active] += 1
        self.rows[active] = chosen
        self.rolls[active] = 0
        rolling = active[rolls_next(chosen) & ~ended]
        args = self.args
        self.rolls[rolling] = self.game_rolls(args.seed, self.numbers[rolling], self.drawn[rolling], args.stratify)
        self.drawn[rolling] += 1

    def records(self, slots: Optional[Ints] = None) -> Records:
        """The :data:`~nardy_fast.turns.RECORD` of the games in ``slots`` (every game: ``None``) as they stand."""
        pick = slice(None) if slots is None else slots
        final = self.rows[pick]
        cut = _cut(final, self.plies[pick], self.args.truncate_plies)
        stopped = ~layout.is_over(final) & (bearoff_stops(final, self.args.truncate) | cut)
        out = np.zeros(len(final), dtype=RECORD)
        out["winner"] = np.where(self.limited[pick], LIMITED, np.where(stopped, TRUNCATED, layout.winner(final)))
        out["points"] = layout.points(final)
        out["plies"] = self.plies[pick]
        out["turns"] = self.turns[pick]
        out["start"] = self.numbers[pick] % len(self.args.rows)
        return out


# --- the sides: how each side picks ------------------------------------------------------------------------

#: ``pick(rows, children, offsets, numbers, plies, rolls) -> choices``: see :class:`Side`.
Pick = Callable[[Rows, Rows, Ints, Ints, Ints, Rows], Ints]


class Side(NamedTuple):
    """How one side of the games picks its moves: ``pick(rows, children, offsets, numbers, plies, rolls)``, the
    index of the chosen child of each position ``rows[i]`` among its ``children[offsets[i]:offsets[i + 1]]``,
    in game ``numbers[i]`` at ply ``plies[i]``, to play ``rolls[i]``. With ``children`` False it reads the
    counts of the children alone, so that a search making children only when read (the reference's) makes
    only the chosen ones."""

    pick: Pick
    children: bool = True


def chooser_side(chooser: Chooser) -> Side:
    """A side played by ``chooser(rows, children, offsets)`` (a seat's)."""

    def pick(rows: Rows, children: Rows, offsets: Ints, numbers: Ints, plies: Ints, rolls: Rows) -> Ints:
        return chooser(rows, children, offsets)

    return Side(pick)


def player_side(kernels: Kernels, player: Player, seed: int) -> Side:
    """A side played by ``player``'s :meth:`~nardy_fast.policies.Player.choose` over ``kernels``, with
    ``seed``'s dice (the built-in policies, ``"random"`` and ``"first"``, read the counts of the children
    alone)."""

    def pick(rows: Rows, found: Rows, offsets: Ints, numbers: Ints, plies: Ints, rolls: Rows) -> Ints:
        return player.choose(kernels, rows, found, offsets, numbers, plies, seed, rolls)

    return Side(pick, not isinstance(player, (Random, First)))


def seat_side(kernels: Kernels, seat: Seat, seed: int) -> Side:
    """How ``seat`` plays in this loop: by its chooser (a callable policy, a Python evaluator, a built-in
    evaluator's greedy choices), else as its built-in policy chooses, from the counts of the children."""
    if seat.policy < 0 or seat.evaluator >= 0:
        assert seat.chooser is not None  # the engine binds such seats with their chooser
        return chooser_side(seat.chooser)
    return player_side(kernels, resolve_policy(POLICIES[seat.policy]), seed)


def picks(games: Lockstep, active: Ints, rows: Rows, rolls: Rows, ply: Ply, sides: tuple[Side, Side]) -> Ints:
    """The choices of the games ``active``: one call of the side that plays them all, else one call of each
    side for the games it is to move in (White's seat 0, Black's seat 1; swapped where ``games.swap``)."""
    numbers = games.numbers[active]
    plies = games.plies[active].astype(np.int64)
    if sides[0] is sides[1]:
        children, offsets = ply.segments(None, sides[0].children)
        return sides[0].pick(rows, children, offsets, numbers, plies, rolls)
    seat = rows[:, layout.TURN] if games.swap is None else rows[:, layout.TURN] ^ games.swap[active]
    chosen = np.zeros(len(active), dtype=np.int64)
    for k, side in enumerate(sides):
        mine = np.flatnonzero(seat == k)
        if mine.size:
            children, offsets = ply.segments(mine, side.children)
            chosen[mine] = side.pick(rows[mine], children, offsets, numbers[mine], plies[mine], rolls[mine])
    return chosen


# --- the loop ------------------------------------------------------------------------------------------------


def play(
    games: Lockstep,
    sides: tuple[Side, Side],
    search: PlySearch,
    stop: StopFlag,
    pieces: Optional[list[Piece]] = None,
    base: int = 0,
) -> bool:
    """Every game of ``games`` played to its end: at each ply one ``search`` of every unfinished game, the
    sides' choices, then each game moves to its chosen child and draws its next roll. A game ends when over,
    at :data:`~nardy_fast.turns.MAX_PLIES` plies, at a ply whose search is over ``max_results`` (given up
    there) or, with ``truncate``, at its first bear-off position (its start, maybe), or with ``truncate_plies``
    after that many plies. With ``pieces``, the
    positions played and the last ones are appended (record indices ``base + slot``; the last alone with
    ``last_only``). False, the games part-played, at the first ply that finds ``stop`` set."""
    args = games.args
    active = np.flatnonzero(~bearoff_stops(games.rows, args.truncate))
    while active.size:
        if stop[0]:
            return False
        rows, rolls = games.rows[active], games.rolls[active]
        ply = search(rows, rolls, args.limit)
        over = ply.over
        if over is not None:  # given up at this ply; the others play on
            games.limited[active[over]] = True
            active = active[~over]
            continue
        if pieces is not None and not args.last_only:
            pieces.append((active + base, rows.copy(), rolls.copy()))  # apart from what the sides are handed
        chosen = ply.chosen(picks(games, active, rows, rolls, ply, sides))
        ended = games.ends(active, chosen)
        games.advance(active, chosen, ended)
        active = active[~ended]
    if pieces is not None:
        pieces.append((np.arange(len(games.rows), dtype=np.int64) + base, games.rows.copy(), np.zeros_like(games.rolls)))
    return True


def play_range(
    search: PlySearch,
    game_rolls: GameRolls,
    args: PlayoutArgs,
    sides: tuple[Side, Side],
    first: int,
    last: int,
    out: Records,
    pieces: list[Piece],
    stop: StopFlag,
) -> None:
    """Records ``first`` up to ``last`` of a playout, ``args.batch`` games at a time (:func:`play`), into
    ``out`` (and ``pieces`` with ``trajectories``). Returns early, ``out`` part-filled, at the first ply that
    finds ``stop`` set (another thread of the playout failed)."""
    for begin in range(first, last, args.batch):
        end = min(begin + args.batch, last)
        games = Lockstep.of_records(args, begin, end, game_rolls)
        if not play(games, sides, search, stop, pieces if args.trajectories else None, begin):
            return
        out[begin:end] = games.records()


def _seat_sides(args: PlayoutArgs, side_of: Callable[[Seat], Side]) -> tuple[Side, Side]:
    """The sides of ``args.seats``: one for a seat in both chairs (a playout's one policy: one call a ply)."""
    white = side_of(args.seats[0])
    return white, (white if args.seats[1] is args.seats[0] else side_of(args.seats[1]))


def _chooser_side(seat: Seat) -> Side:
    assert seat.chooser is not None  # a lock-step seat: bound with its chooser
    return chooser_side(seat.chooser)


def lockstep_playout(
    batch_children: BatchChildren,
    game_rolls: GameRolls,
    args: PlayoutArgs,
    first: int,
    last: int,
    out: npt.NDArray[np.void],
    trajectory_parts: list[Piece],
    stop: StopFlag,
) -> None:
    """Records ``first`` up to ``last`` of a playout with a callable policy (seats with choosers) over
    ``batch_children``: :func:`play_range`, the policy handed copies of the children (:func:`handed_out`)."""
    sides = _seat_sides(args, _chooser_side)
    play_range(batch_search(batch_children), game_rolls, args, sides, first, last, out, trajectory_parts, stop)


def gathered(games: int, parts: list[Piece]) -> Trajectories:
    """Trajectories from pieces (record indices, rows, rolls) appended ply by ply: sorted by record, stably,
    so each game's positions stay in the order played."""
    if not parts:
        return Trajectories(
            np.zeros((0, layout.WIDTH), np.int8), np.zeros((0, 2), np.int8), np.zeros(games + 1, np.int64)
        )
    index = np.concatenate([p[0] for p in parts])
    order = np.argsort(index, kind="stable")
    rows = np.concatenate([p[1] for p in parts])[order]
    rolls = np.concatenate([p[2] for p in parts])[order]
    offsets = np.zeros(games + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(np.bincount(index, minlength=games))
    return Trajectories(rows, rolls, offsets)


def _threaded(search: PlySearch, game_rolls: GameRolls, args: PlayoutArgs, sides: tuple[Side, Side]) -> Played:
    """A playout in this loop: the threads each play a range of the games in lock-step batches; an exception
    in any of them (a policy's own, unchanged) is raised once all have stopped, and nothing is returned."""
    out = np.zeros(args.games, dtype=RECORD)
    pieces: list[list[Piece]] = [[] for _ in range(args.threads)]

    def part(index: int, stop: StopFlag) -> None:
        first, last = args.parts()[index]
        play_range(search, game_rolls, args, sides, first, last, out, pieces[index], stop)

    on_threads(args.threads, part)
    if not args.trajectories:
        return out
    return out, gathered(args.games, [piece for part in pieces for piece in part])


def callable_playout(batch_children: BatchChildren, game_rolls: GameRolls, args: PlayoutArgs) -> Played:
    """A playout with a callable policy (seats with choosers) over ``batch_children``, on ``args.threads``
    threads (:func:`lockstep_playout`)."""
    sides = _seat_sides(args, _chooser_side)
    return _threaded(batch_search(batch_children), game_rolls, args, sides)


def seats_playout(kernels: Kernels, args: PlayoutArgs, search: Optional[PlySearch] = None) -> Played:
    """A playout of any seats in this loop (:func:`seat_side`: a built-in policy as it chooses, a built-in
    evaluator by its seat's chooser), each ply searched by ``search`` (by default ``kernels``'
    ``batch_children``): the reference's playout kernel, and the Python twin of the core's loop in C. In a
    duel (``paired``), ``seats[0]`` is White in even records and Black in odd ones."""
    sides = _seat_sides(args, lambda seat: seat_side(kernels, seat, args.seed))
    return _threaded(search or batch_search(kernels.batch_children), kernels.game_rolls, args, sides)
