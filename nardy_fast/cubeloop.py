"""The one Python game loop with the doubling cube and the match (docs/rules.md, The doubling cube; Match play):
:class:`CubeLockstep` is :class:`~nardy_fast.lockstep.Lockstep` with each game's cube (value, owner), its
match score and Crawford flag, and :func:`play_cubeful` advances them a ply at a time as
:func:`~nardy_fast.lockstep.play` does, with a cube phase before each ply: where the side to move is at the
start of its turn (as :meth:`nardy_fast.Game.may_double` has it) and may double, its player is asked
(:meth:`~nardy_fast.policies.Player.doubles`, one call per player for the games it is to move in), and the
other player answers each double (:meth:`~nardy_fast.policies.Player.responses`). A game passed ends there.

A slot of the batch holds a money game, or a whole match: when a game of a match ends, the score moves (capped
at what the winner needs), the next game starts in the same slot (the Crawford game after the first game
that brings a side to 1 away), until a side reaches the length. Game ``j`` of match pair ``k`` has the dice
of game number ``(first_game + k) * GAMES_PER_MATCH + j`` of the seed: both matches of a pair meet the same
dice game by game, seats swapped.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from . import layout
from .cube import MAX_CUBE, Cube, Match
from .cube.state import SIDES
from .cubeplay import BEAVER, PASS, TAKE, CubeState
from .kernels import GameRolls, Kernels, PlayoutArgs, PlySearch, StopFlag
from .lockstep import Lockstep, Side, picks
from .policies import Player

__all__ = ["GAMES_PER_MATCH", "CubeLockstep", "play_cubeful"]

Ints = npt.NDArray[np.int64]
Mask = npt.NDArray[np.bool_]

#: The most games of one match: each game but one given up scores a point, and a match is at most 64 long;
#: a match still going after this many games (games given up) is left undecided.
GAMES_PER_MATCH = 256


class CubeLockstep(Lockstep):
    """The games of a batch with their cubes and matches (``match``: the session's, as the games start: money
    play or a match's length, score and options; every slot starts from it). Per slot: the cube's ``value``
    and ``owner`` (-1 centred, else the side), the side that moved ``last`` (-1 before the first ply), the
    match ``score`` (White's, Black's) and ``crawford`` flag, the game index ``played`` within the match, and
    once ``done`` the ``result``: a money game's points for the side in seat 0 (``a``), or 1 where it won the
    match, 0 where it lost, 0.5 for a match left undecided."""

    __slots__ = ("match", "base", "value", "owner", "last", "score", "crawford", "played", "done", "result")

    def __init__(self, args: PlayoutArgs, numbers: Ints, game_rolls: GameRolls, swap: Mask, match: Match) -> None:
        self.match = match
        #: The match pair of each slot (its games' numbers follow from it); the money games' own numbers.
        self.base = numbers.copy()
        first = numbers * GAMES_PER_MATCH if not match.money else numbers
        super().__init__(args, first.copy(), game_rolls, swap)
        n = len(numbers)
        self.value = np.ones(n, dtype=np.int64)
        self.owner = np.full(n, -1, dtype=np.int8)
        self.last = np.full(n, -1, dtype=np.int8)
        self.score = np.tile(np.array(match.score, dtype=np.int64), (n, 1))
        self.crawford = np.full(n, match.crawford, dtype=bool)
        self.played = np.zeros(n, dtype=np.int64)
        self.done = np.zeros(n, dtype=bool)
        self.result = np.zeros(n, dtype=np.float64)

    def advance(self, active: Ints, chosen: npt.NDArray[np.int8], ended: Mask) -> None:  # noqa: D102
        self.last[active] = self.rows[active, layout.TURN]
        super().advance(active, chosen, ended)

    # --- the cube ------------------------------------------------------------------------------------------------

    def may_double(self, slots: Ints) -> Mask:
        """Where the side to move in ``slots`` may double now (:meth:`nardy_fast.Game.may_double`)."""
        rows = self.rows[slots]
        side = rows[:, layout.TURN].astype(np.int64)
        first = self.plies[slots] == 0
        start = (self.rolls[slots, 0] != 0) & np.where(first, not self.args.from_start, self.last[slots] != side)
        owner = self.owner[slots]
        value = self.value[slots]
        may: Mask = start & ((owner == -1) | (owner == side)) & (2 * value <= MAX_CUBE)
        length = self.match.length
        if length is not None:
            index = np.arange(len(slots))
            away = length - self.score[slots]
            mine = away[index, side]
            post = ~self.crawford[slots] & (away == 1).any(axis=1)
            may &= ~self.crawford[slots] & (mine > value) & ~(post & (mine == 1))
        return may

    def states(self, slots: Ints) -> list[CubeState]:
        """The cube and the match of each game of ``slots``, as the players are asked about them."""
        out = []
        m = self.match
        for slot in slots:
            owner = None if self.owner[slot] < 0 else SIDES[self.owner[slot]]
            cube = Cube(int(self.value[slot]), owner)
            if m.money:
                out.append((cube, m))
            else:
                score = (int(self.score[slot, 0]), int(self.score[slot, 1]))
                out.append((cube, Match(m.length, score, crawford=bool(self.crawford[slot]))))
        return out

    def cube_phase(self, kernels: Kernels, players: tuple[Player, Player], slots: Ints) -> Ints:
        """The cube actions of the games ``slots`` at the start of a turn; returns the slots whose game ended
        by a pass (their side passed: ``owner`` set to the doubler, the points the cube's value before)."""
        at = slots[self.may_double(slots)]
        if not at.size:
            return at
        side = self.rows[at, layout.TURN].astype(np.int64)
        seat = side ^ self.swap[at] if self.swap is not None else side
        double = np.zeros(len(at), dtype=bool)
        answer = np.full(len(at), TAKE, dtype=np.int64)
        states = self.states(at)
        for k in (0, 1):
            mine = np.flatnonzero(seat == k)
            if mine.size:
                double[mine] = players[k].doubles(kernels, self.rows[at[mine]], [states[i] for i in mine])
        for k in (0, 1):
            asked = np.flatnonzero(double & (seat == 1 - k))  # the other seat answers
            if asked.size:
                answer[asked] = players[k].responses(kernels, self.rows[at[asked]], [states[i] for i in asked])
        beaver = double & (answer == BEAVER) & self.match.money & self.match.beavers & (4 * self.value[at] <= MAX_CUBE)
        take = double & ~beaver & (answer != PASS)
        self.value[at[take]] *= 2
        self.value[at[beaver]] *= 4
        self.owner[at[take | beaver]] = (1 - side[take | beaver]).astype(np.int8)
        passed: Ints = at[double & (answer == PASS)]
        return passed

    # --- the end of a game ---------------------------------------------------------------------------------------

    def finish(self, slots: Ints, winners: Ints, points: Ints) -> None:
        """The games of ``slots`` end, ``winners`` (-1: given up) scoring ``points`` (before any cap): a money
        game's result is set; a match's score moves, and it ends or its next game starts in the slot."""
        seat_a = np.zeros(len(slots), dtype=np.int64) if self.swap is None else self.swap[slots].astype(np.int64)
        sign = np.where(winners == seat_a, 1.0, -1.0)
        length = self.match.length
        if length is None:
            self.result[slots] = np.where(winners >= 0, sign * points, 0.0)
            self.done[slots] = True
            return
        again = []
        for i, slot in enumerate(slots):
            winner = int(winners[i])
            if winner >= 0:
                was_post = not self.crawford[slot] and bool((length - self.score[slot] == 1).any())
                was_crawford = bool(self.crawford[slot])
                self.score[slot, winner] = min(length, self.score[slot, winner] + int(points[i]))
                if self.score[slot, winner] >= length:
                    self.done[slot], self.result[slot] = True, float(winner == seat_a[i])
                    continue
                self.crawford[slot] = not was_post and not was_crawford and length - self.score[slot, winner] == 1
            self.played[slot] += 1
            if self.played[slot] >= GAMES_PER_MATCH:
                self.done[slot], self.result[slot] = True, 0.5
                continue
            again.append(slot)
        if again:
            restart = np.array(again, dtype=np.int64)
            self.restart(restart, self.base[restart] * GAMES_PER_MATCH + self.played[restart])
            self.value[restart], self.owner[restart], self.last[restart] = 1, -1, -1


def play_cubeful(
    games: CubeLockstep,
    sides: tuple[Side, Side],
    players: tuple[Player, Player],
    kernels: Kernels,
    search: PlySearch,
    stop: StopFlag,
) -> bool:
    """Every game (or match) of ``games`` played to its end, as :func:`~nardy_fast.lockstep.play` plays them,
    with a cube phase before each ply (:meth:`CubeLockstep.cube_phase`) and each ended game scored
    (:meth:`CubeLockstep.finish`). False, part-played, at the first ply that finds ``stop`` set."""
    args = games.args
    jacoby = games.match.jacoby
    while True:
        active = np.flatnonzero(~games.done)
        if not active.size:
            return True
        if stop[0]:
            return False
        passed = games.cube_phase(kernels, players, active)
        if passed.size:
            doubler = games.rows[passed, layout.TURN].astype(np.int64)
            games.finish(passed, doubler, games.value[passed].copy())
            continue  # the slots restarted (a match's next game) start with their own cube phase
        rows, rolls = games.rows[active], games.rolls[active]
        ply = search(rows, rolls, args.limit)
        if ply.over is not None:  # given up at this ply: no points
            given = active[ply.over]
            games.limited[given] = True
            games.finish(given, np.full(len(given), -1, dtype=np.int64), np.zeros(len(given), dtype=np.int64))
            continue
        chosen = ply.chosen(picks(games, active, rows, rolls, ply, sides))
        ended = games.ends(active, chosen)
        games.advance(active, chosen, ended)
        over = active[ended]
        if over.size:
            final = games.rows[over]
            finished = layout.is_over(final)
            winners = np.where(finished, layout.winner(final), -1).astype(np.int64)
            multiple = layout.points(final).astype(np.int64)
            if jacoby:
                multiple = np.where(games.owner[over] == -1, np.minimum(multiple, 1), multiple)
            games.finish(over, winners, multiple * games.value[over])
