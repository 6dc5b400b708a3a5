"""Playouts with a callable policy, for every implementation: the games of a batch advance one ply at a time
together, so that the policy sees all their children at once (one ``batch_children`` call and one Python
call per ply of a batch). Turns follow :mod:`nardy_fast.game`'s contract, as the built-in kernels' do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, Union

import numpy as np
import numpy.typing as npt

from . import layout
from .batch import handed_out
from .errors import SearchLimitError
from .kernels import GameRolls, PlayoutArgs, Records, StopFlag, Trajectories, on_threads
from .turns import LIMITED, MAX_PLIES, OPENINGS, RECORD, TRUNCATED, opening_roll, rolls_next, who_starts

__all__ = ["BatchChildren", "GameRolls", "first_rolls", "handed_out", "lockstep_playout", "gathered", "callable_playout"]

ArrayT = TypeVar("ArrayT", bound=npt.NDArray[np.generic])
Piece = tuple[npt.NDArray[np.int64], npt.NDArray[np.int8], npt.NDArray[np.int8]]

#: An implementation's ``batch_children`` (:meth:`nardy_fast.kernels.Kernels.batch_children`).
BatchChildren = Callable[..., tuple[npt.NDArray[np.int8], npt.NDArray[np.int64], npt.NDArray[np.uint64]]]


def first_rolls(
    args: PlayoutArgs, numbers: npt.NDArray[np.int64], game_rolls: GameRolls
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8], npt.NDArray[np.int64]]:
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


def _stops(rows: npt.NDArray[np.int8], truncate: bool) -> npt.NDArray[np.bool_]:
    """Where ``truncate="bearoff"`` stops a game: bear-off positions whose side to move rolls (one with a
    pending list plays it first); nowhere without ``truncate``, where the bear-off test, a fifth of a callable
    policy's playout, is not made."""
    if not truncate:
        return np.zeros(len(rows), dtype=bool)
    stops: npt.NDArray[np.bool_] = layout.is_bearoff(rows) & (rows[:, layout.NPENDING] == 0)
    return stops


def _over_limit(
    batch_children: BatchChildren, rows: npt.NDArray[np.int8], rolls: npt.NDArray[np.int8], limit: int
) -> npt.NDArray[np.bool_]:
    """Which of the rows' searches would hold more than ``limit`` positions after one number of steps."""
    over = np.zeros(len(rows), dtype=bool)
    for i in range(len(rows)):
        try:
            batch_children(rows[i : i + 1], rolls[i : i + 1], max_results=limit)
        except SearchLimitError:
            over[i] = True
    return over


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
    """Records ``first`` up to ``last`` of a playout with a callable policy, ``args.batch`` games at a time: at
    each ply one ``batch_children`` call for every unfinished game of the batch, one call of the policy with
    copies of all their children (:func:`handed_out`), then each game moves to its chosen child and draws its
    next roll (none after a finished game or before a transfer segment, as :class:`Game` does). Returns early,
    ``out`` part-filled, at the first ply that finds ``stop`` set (another thread of the playout failed)."""
    chooser = args.seats[0].chooser  # a playout's one policy: the same seat on both sides
    assert chooser is not None and not args.paired
    for begin in range(first, last, args.batch):
        end = min(begin + args.batch, last)
        numbers = np.arange(begin, end, dtype=np.int64) + args.first_game
        rows, rolls, drawn = first_rolls(args, numbers, game_rolls)
        plies = np.zeros(len(numbers), dtype=np.int32)
        turns = np.zeros(len(numbers), dtype=np.int32)
        # with truncate, a game stops at its first bear-off position (its start, maybe)
        active = np.flatnonzero(~_stops(rows, args.truncate))
        limited = np.zeros(len(numbers), dtype=bool)
        while active.size:
            if stop[0]:
                return
            try:
                children, offsets, _ = batch_children(rows[active], rolls[active], max_results=args.limit or None)
            except SearchLimitError:
                # a game whose ply is over max_results is given up there; the others play on
                over = _over_limit(batch_children, rows[active], rolls[active], args.limit)
                limited[active[over]] = True
                active = active[~over]
                continue
            if args.trajectories and not args.last_only:
                trajectory_parts.append((active + begin, rows[active], rolls[active]))
            choices = chooser(rows[active], children, offsets)
            chosen = children[offsets[:-1] + choices]
            turns[active] += rolls[active, 0] != 0
            plies[active] += 1
            rows[active] = chosen
            over = layout.is_over(chosen)
            rolling = active[rolls_next(chosen)]
            rolls[active] = 0
            rolls[rolling] = game_rolls(args.seed, numbers[rolling], drawn[rolling], args.stratify)
            drawn[rolling] += 1
            active = active[~over & ~_stops(chosen, args.truncate) & (plies[active] < MAX_PLIES)]
        if args.trajectories:
            trajectory_parts.append((np.arange(begin, end), rows.copy(), np.zeros_like(rolls)))
        part = out[begin:end]
        stopped = ~layout.is_over(rows) & _stops(rows, args.truncate)
        part["winner"] = np.where(limited, LIMITED, np.where(stopped, TRUNCATED, layout.winner(rows)))
        part["points"] = layout.points(rows)
        part["plies"] = plies
        part["turns"] = turns
        part["start"] = numbers % len(args.rows)


def gathered(
    games: int, parts: list[Piece]
) -> Trajectories:
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


def callable_playout(
    batch_children: BatchChildren, game_rolls: GameRolls, args: PlayoutArgs
) -> Union[Records, tuple[Records, Trajectories]]:
    """A playout with a callable policy: the threads each play a range of the games in lock-step batches; an
    exception in any of them (the policy's own, unchanged) is raised once all have stopped, and nothing is
    returned."""
    out = np.zeros(args.games, dtype=RECORD)
    pieces: list[list[Piece]] = [
        [] for _ in range(args.threads)
    ]

    def play(part: int, stop: StopFlag) -> None:
        first, last = args.parts()[part]
        lockstep_playout(batch_children, game_rolls, args, first, last, out, pieces[part], stop)

    on_threads(args.threads, play)
    if not args.trajectories:
        return out
    return out, gathered(args.games, [piece for part in pieces for piece in part])
