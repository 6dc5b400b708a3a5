"""Playouts with the doubling cube (docs/rules.md, Playouts with the cube; Match play): many self-play
games, the playout's policy in both seats, each played with the cube at money play (record ``i`` is game number
``first_game + i`` of the seed, on the cubeless playout's dice) or as a whole match from a score (record ``i`` is
match number ``first_game + i``, its game ``j`` numbered ``(first_game + i) * GAMES_PER_MATCH + j``, as a cubeful
duel numbers its matches). The compiled core plays them in its own loop in C where it plays the policy (built-in
policies, and greedy players over built-in evaluators with their cube strategies), else (and in the reference
always) the one Python game loop (:mod:`nardy_fast.cubeloop`): the same games, so both give the same records for
the same seed, on any number of threads.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .cube import Match
from .cube.met import default_table
from .cubeloop import MATCH_NUMBERS, CubeLockstep, kernel_seats, play_cubeful, play_in_kernel
from .errors import NardyError, field_error
from .kernels import GameRolls, Kernels, PlayoutArgs, Records, StopFlag, batch_search, on_threads, split_range
from .lockstep import player_side
from .playouts import PlayoutOptions, check_playout
from .policies import Player
from .turns import LIMITED, MAX_PLIES

__all__ = ["CUBE_RECORD", "MATCH_RECORD", "cube_playout", "check_cube_playout"]

Ints = npt.NDArray[np.int64]
Mask = npt.NDArray[np.bool_]

#: The record of a money game with the cube: the ``winner`` (0 White, 1 Black, -1 given up after
#: :data:`~nardy_fast.turns.MAX_PLIES` plies, :data:`~nardy_fast.turns.LIMITED` given up at a ply over
#: ``max_results``), the ``points`` it won (its multiple times the cube; a pass scores the cube's value before
#: the double; 0 for a game given up), the ``cube``'s value at its end, and its ``plies``. The points reach
#: 3 x 4096: wider than the cubeless record's int8.
CUBE_RECORD = np.dtype([("winner", np.int8), ("points", np.int32), ("cube", np.int32), ("plies", np.int32)])
#: The record of a whole match: its ``winner`` (0 White, 1 Black, -1 left undecided after
#: :data:`~nardy_fast.cubeloop.GAMES_PER_MATCH` games), the final score (``white``'s and ``black``'s points,
#: the winner's capped at the length), the ``games`` it took and the ``plies`` of all of them.
MATCH_RECORD = np.dtype(
    [("winner", np.int8), ("white", np.int16), ("black", np.int16), ("games", np.int32), ("plies", np.int32)]
)


class _Records(CubeLockstep):
    """The records of a cubeful playout in the Python loop: each slot's last game's ``winner`` and ``points``,
    and its games' ``count`` and plies (``total``), noted as each game ends (a match's next game starts over)."""

    __slots__ = ("winner", "points", "count", "total")

    def __init__(self, args: PlayoutArgs, numbers: Ints, game_rolls: GameRolls, match: Match) -> None:
        super().__init__(args, numbers, game_rolls, np.zeros(len(numbers), dtype=bool), match)
        n = len(numbers)
        self.winner = np.full(n, -1, dtype=np.int64)
        self.points = np.zeros(n, dtype=np.int64)
        self.count = np.zeros(n, dtype=np.int64)
        self.total = np.zeros(n, dtype=np.int64)

    def finish(self, slots: Ints, winners: Ints, points: Ints) -> None:
        self.winner[slots] = winners
        self.points[slots] = np.where(winners >= 0, points, 0)
        self.count[slots] += 1
        self.total[slots] += self.plies[slots]
        super().finish(slots, winners, points)


def _fill(out: Records, money: bool,
          columns: tuple[npt.NDArray[np.float64], Ints, Ints, Ints, Ints, Ints, Ints]) -> None:
    """``out``'s records from the columns both loops give: each record's result (seat 0's: White's), its last
    game's winner and points, the cube's value at the end, its plies, its games and its final score."""
    result, winner, points, value, plies, games, score = columns
    out["plies"] = plies
    if money:
        # given up: after MAX_PLIES plies, else at a ply over max_results (which stops a game short of them)
        out["winner"] = np.where((winner < 0) & (plies < MAX_PLIES), LIMITED, winner)
        out["points"] = np.where(winner >= 0, points, 0)
        out["cube"] = value
        return
    out["winner"] = np.where(result == 1.0, 0, np.where(result == 0.0, 1, -1))
    out["white"], out["black"] = score[:, 0], score[:, 1]
    out["games"] = games


def _play(kernels: Kernels, player: Player, args: PlayoutArgs, match: Match, first: int, last: int, out: Records,
          stop: StopFlag) -> None:
    """Records ``first`` up to ``last`` into ``out``: in the kernels' own cubeful loop where they play the
    policy, else in the Python loop."""
    numbers = np.arange(first, last, dtype=np.int64) + args.first_game
    n = len(numbers)
    seated = kernel_seats(kernels, args, (player, player))
    table = default_table(str(args.states[0].variant))
    if seated is not None and (match.length is None or match.length <= table.size):
        records = (numbers, np.zeros(n, dtype=bool), np.ones(n, dtype=np.int64), np.full(n, -1, dtype=np.int8),
                   np.zeros(n, dtype=bool))
        found = play_in_kernel(kernels, args, seated, match, table, records, False, stop)
        if found is not None:
            tally = found.tally
            _fill(out[first:last], match.money, (found.result, found.winner.astype(np.int64), found.points,
                                                  found.value, tally[:, 0], tally[:, 1], tally[:, 2:]))
        return
    games = _Records(args, numbers, kernels.game_rolls, match)
    side = player_side(kernels, player, args.seed)
    if play_cubeful(games, (side, side), (player, player), kernels, batch_search(kernels.batch_children), stop):
        _fill(out[first:last], match.money, (games.result, games.winner, games.points, games.value, games.total,
                                             games.count, games.score))


def check_cube_playout(args: PlayoutArgs, options: PlayoutOptions, match: Match) -> Player:
    """The player of a checked playout ``args`` with the cube under ``match``, or the error naming what a
    playout with the cube refuses: trajectories, truncation, match numbers past :data:`MATCH_NUMBERS`, and a
    match longer than the table a player deciding at the score reads."""
    if args.trajectories:
        raise field_error(NardyError, "trajectories", "a playout with the cube gives records only", True)
    if args.truncate:
        raise field_error(NardyError, "truncate", "a playout with the cube plays whole games", options.truncate)
    if args.truncate_plies:
        problem = "a playout with the cube plays whole games"
        raise field_error(NardyError, "truncate_plies", problem, options.truncate_plies)
    if not match.money and args.first_game + args.games > MATCH_NUMBERS:
        raise field_error(NardyError, "first_game", "must be at most 2**54 - games for matches", args.first_game)
    player = args.player
    assert isinstance(player, Player)
    longest = default_table(str(args.states[0].variant)).size
    if getattr(player, "cube", None) == "janowski" and match.length is not None and match.length > longest:
        # refused before any game, not at the first decision, which reads the table
        raise field_error(NardyError, "match", f"a player deciding at the score needs a length up to {longest}",
                          match.length)
    return player


def cube_playout(kernels: Kernels, start: object, games: object, seed: object, options: PlayoutOptions,
                 match: Match) -> Records:
    """:func:`nardy_fast.playout` with the cube (``match``: money play with its options, or a match from its
    score; :func:`~nardy_fast.cubeduel.session_match`): one :data:`CUBE_RECORD` per money game or one
    :data:`MATCH_RECORD` per match, ``options.batch`` records at a time, each batch split among
    ``options.threads`` threads."""
    args = check_playout(start, games, seed, options)
    player = check_cube_playout(args, options, match)
    out = np.zeros(args.games, dtype=CUBE_RECORD if match.money else MATCH_RECORD)
    for begin in range(0, args.games, args.batch):
        end = min(begin + args.batch, args.games)
        parts = split_range(begin, end - begin, args.threads)

        def part(index: int, stop: StopFlag, parts: list[tuple[int, int]] = parts) -> None:
            first, last = parts[index]
            if last > first:
                _play(kernels, player, args, match, first, last, out, stop)

        on_threads(args.threads, part)
    return out
