"""The reference's playout kernel for the built-in policies: every game played through
:class:`~nardy_fast.game.Game` with the reference's positions, as a user would play it, each side by its seat
(a playout's one policy, or a duel's two players on duplicate dice): the twin of the core's C game loop."""

from __future__ import annotations

from collections.abc import Callable
from typing import Optional, Protocol, Union

import numpy as np
import numpy.typing as npt

from .. import dice, layout
from ..errors import NardyError, SearchLimitError, field_error
from ..game import Game
from ..kernels import PlayoutArgs, Records, Seat, Trajectories, kernels_of
from ..position import Move, Position
from ..turns import LIMITED, MAX_PLIES, OPENINGS, POLICIES, RECORD, TRUNCATED

__all__ = ["python_playout"]


def _finish(out: npt.NDArray[np.void], index: int, game: Game, start: int, truncated: bool, limited: bool) -> None:
    won = game.winner()
    out[index] = (
        LIMITED if limited else TRUNCATED if truncated else -1 if won is None else ("white", "black").index(won),
        game.points(),
        game.plies,
        game.turns,
        start,
    )


def _stops(position: Position) -> bool:
    """Where ``truncate="bearoff"`` stops a game: a bear-off position whose side to move rolls (one with a
    pending list plays it first)."""
    return position.is_bearoff() and not position.pending


def _pick(seat: Seat, seed: int, number: int, game: Game, moves: MoveList) -> int:
    """The move ``seat`` plays among ``moves`` in ``game`` (game ``number`` of ``seed``'s dice): a greedy
    seat's, the first of the position's hint (its chooser's); a seeded random one; or the first."""
    if seat.evaluator >= 0:
        assert seat.chooser is not None  # the engine binds a greedy seat with the chooser of its choices
        position = game.position
        rows = position.to_array()[None, :]
        children, offsets, _ = kernels_of(position).batch_children(rows, game.roll or (0, 0))
        assert len(children) == len(moves)
        return int(seat.chooser(rows, children, offsets)[0])
    if POLICIES[seat.policy] == "random":
        return dice.choice(seed, number, game.plies, len(moves))
    return 0


class MoveList(Protocol):
    """The legal moves of a ply, by number (a list, or :class:`~nardy_fast.reference.engine.Moves`)."""

    def __len__(self) -> int: ...

    def __getitem__(self, k: int) -> Move: ...


#: The legal moves of a position for a roll (``None``: its pending list) under a search bound (0: none).
MovesOf = Callable[[Position, Optional[tuple[int, int]], int], MoveList]


def all_moves(position: Position, roll: Optional[tuple[int, int]], limit: int) -> MoveList:
    """``position.legal_moves``: the moves of its own implementation."""
    return position.legal_moves(roll, max_results=limit or None)


def python_playout(
    position_class: type[Position], args: PlayoutArgs, moves_of: MovesOf = all_moves
) -> Union[Records, tuple[Records, Trajectories]]:
    """The built-in policies played through ``position_class`` objects and :class:`Game`, each ply's moves
    from ``moves_of``, each side by its seat (``args.seats``: in a duel, ``a`` is White in even records and
    Black in odd ones, a pair sharing game number ``first_game + k``)."""
    for seat in args.seats:
        if seat.policy < 0 and seat.evaluator < 0:
            raise field_error(NardyError, "seat", "is played by its chooser in lock-step, not by the game loop", seat)
    out = np.zeros(args.games, dtype=RECORD)
    starts = [position_class._trusted(state) for state in args.states]  # checked by check_playout
    players = args.seats
    numbers = args.numbers()
    rows: list[npt.NDArray[np.int8]] = []
    rolls: list[tuple[int, int]] = []
    lengths = np.zeros(args.games, dtype=np.int64)
    for i in range(args.games):
        number = int(numbers[i])
        swap = args.paired and i % 2 == 1
        seats = (players[1], players[0]) if swap else players  # by colour: White's, Black's
        index = number % len(starts)
        if args.from_start:
            game = Game.from_start(
                starts[0], seed=args.seed, game=number, opening=OPENINGS[args.opening], stratify=args.stratify
            )
        else:
            game = Game(starts[index], seed=args.seed, game=number, stratify=args.stratify)
        limited = False
        while not game.is_over() and game.plies < MAX_PLIES and not (args.truncate and _stops(game.position)):
            try:
                moves = moves_of(game.position, game.roll, args.limit)
            except SearchLimitError:
                limited = True  # the ply's search is over max_results: the game is given up here
                break
            pick = _pick(seats[game.position.turn == "black"], args.seed, number, game, moves)
            if args.trajectories and not args.last_only:
                rows.append(game.position.to_array())
                rolls.append(game.roll or (0, 0))
            game.play(moves[pick])
        if args.trajectories:
            rows.append(game.position.to_array())
            rolls.append((0, 0))
            lengths[i] = 1 if args.last_only else game.plies + 1
        truncated = args.truncate and not game.is_over() and _stops(game.position)
        _finish(out, i, game, index, truncated, limited)
    if not args.trajectories:
        return out
    return out, Trajectories(
        np.array(rows, dtype=np.int8).reshape(-1, layout.WIDTH),
        np.array(rolls, dtype=np.int8).reshape(-1, 2),
        np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
    )
