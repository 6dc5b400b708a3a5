"""The one Python game loop with the doubling cube and the match (docs/rules.md, The doubling cube; Match play):
:class:`CubeLockstep` is :class:`~nardy_fast.lockstep.Lockstep` with each game's cube (value, owner), its
match score and Crawford flag, and :func:`play_cubeful` advances them a ply at a time as
:func:`~nardy_fast.lockstep.play` does, with a cube phase before each ply: where the side to move is at the
start of its turn (as :meth:`nardy_fast.Game.may_double` has it) and may double, its player is asked
(:meth:`~nardy_fast.policies.Player.doubles`, one call per player for the games it is to move in), and the
other player answers each double (:meth:`~nardy_fast.policies.Player.responses`). A game passed ends there.

An implementation that has its own loop of cubeful games (:attr:`~nardy_fast.kernels.Kernels.cube_games`,
the compiled core's, in C without the GIL) plays the same games there when every player is one it plays
(:func:`kernel_seats`): a built-in policy, which never doubles and always takes, or a
:class:`~nardy_fast.policies.Greedy` over a built-in evaluator with its cube strategy; the same decisions on
the same dice (:func:`play_in_kernel`).

A slot of the batch holds a money game, or a whole match: when a game of a match ends, the score moves (capped
at what the winner needs), the next game starts in the same slot (the Crawford game after the first game
that brings a side to 1 away), until a side reaches the length. Game ``j`` of match pair ``k`` has the dice
of game number ``(first_game + k) * GAMES_PER_MATCH + j`` of the seed: both matches of a pair meet the same
dice game by game, seats swapped.
"""

from __future__ import annotations

from typing import NamedTuple, Optional

import numpy as np
import numpy.typing as npt

from . import layout
from .cube import MAX_CUBE, Cube, Match
from .cube.janowski import EFFICIENCIES
from .cube.met import MatchEquityTable
from .cube.players import STRATEGIES
from .cube.state import SIDES
from .cubeargs import CubeArgs
from .cubeplay import BEAVER, PASS, TAKE, CubeState
from .kernels import GameRolls, Kernels, PlayoutArgs, PlySearch, Seat, StopFlag
from .lockstep import Lockstep, Side, picks
from .policies import Greedy, Player
from .variants import VARIANTS

__all__ = ["GAMES_PER_MATCH", "MATCH_NUMBERS", "CubeLockstep", "play_cubeful", "KernelGames", "kernel_seats", "play_in_kernel"]

Ints = npt.NDArray[np.int64]
Mask = npt.NDArray[np.bool_]

#: The most games of one match: each game but one given up scores a point, and a match is at most 64 long;
#: a match still going after this many games (games given up) is left undecided.
GAMES_PER_MATCH = 256
#: Match numbers stay below this: game ``j`` of match ``m`` is number ``m * GAMES_PER_MATCH + j``, below
#: 2**62 as every game number.
MATCH_NUMBERS = 1 << 54


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


# --- the same games in an implementation's own cubeful loop -------------------------------------------------------


def _strategy(player: Player) -> Optional[int]:
    """The code of ``player``'s cube strategy where a kernel can play it: a player that keeps
    :class:`~nardy_fast.policies.Player`'s cube actions never doubles and always takes; a
    :class:`~nardy_fast.policies.Greedy` that keeps its own plays its ``cube`` strategy. ``None`` for cube
    actions of a player's own."""
    kind = type(player)
    if kind.doubles is Player.doubles and kind.responses is Player.responses:
        return STRATEGIES.index("never")
    if isinstance(player, Greedy) and kind.doubles is Greedy.doubles and kind.responses is Greedy.responses:
        return STRATEGIES.index(player.cube)
    return None


def kernel_seats(kernels: Kernels, args: PlayoutArgs,
                 players: tuple[Player, Player]) -> Optional[tuple[tuple[Seat, Seat], tuple[int, int]]]:
    """The seats and cube strategies of ``players`` (a and b) where ``kernels`` play their cubeful games in
    their own loop (each a seat of theirs, a strategy that evaluates with the seat's built-in evaluator),
    else ``None``: the Python loop plays them."""
    if kernels.cube_games is None:
        return None
    seats, codes = [], []
    for player in players:
        code = _strategy(player)
        if code is None:
            return None
        seat = player.seat(kernels, args.rows)
        if seat.policy < 0 or (code != STRATEGIES.index("never") and seat.evaluator < 0):
            return None
        seats.append(seat)
        codes.append(code)
    if players[0] is players[1]:
        seats[1] = seats[0]  # one player in both seats: one search for both
    return (seats[0], seats[1]), (codes[0], codes[1])


class KernelGames(NamedTuple):
    """What a kernel's cubeful games give, per record: ``result`` (as :attr:`CubeLockstep.result`), the
    ``winner`` of its last game (-1: given up), that game's ``points``, the cube's ``value`` at its end, and
    its ``tally`` (n, 4): the plies of all its games, how many games it played, and the final score (White's,
    Black's; 0-0 at money play), which a playout's records show."""

    result: npt.NDArray[np.float64]
    winner: npt.NDArray[np.int8]
    points: Ints
    value: Ints
    tally: Ints


def play_in_kernel(kernels: Kernels, args: PlayoutArgs, seated: tuple[tuple[Seat, Seat], tuple[int, int]],
                   match: Match, table: MatchEquityTable, records: tuple[Ints, Mask, Ints, npt.NDArray[np.int8], Mask],
                   single: bool, stop: StopFlag) -> Optional[KernelGames]:
    """The records (``numbers``, ``swap``, starting ``values`` and ``owners``, ``hold``: see
    :class:`~nardy_fast.cubeargs.CubeArgs`) played by the kernels' cubeful loop, as :func:`play_cubeful` plays
    them (``single``: a rollout's one game a record); ``None`` when ``stop`` was set."""
    assert kernels.cube_games is not None
    seats, strategies = seated
    numbers, swap, values, owners, hold = records
    money = match.length is None
    efficiencies = np.array([[e.contact[0], e.race_factor[0], e.race_coefficient[0], e.race_min[0], e.race_max[0],
                              e.bearoff] for e in (EFFICIENCIES[variant] for variant in VARIANTS)])
    cube = CubeArgs(numbers, swap, values, owners, hold, 0 if money else int(match.length or 0),
                    (0, 0) if money else match.score, match.crawford, match.jacoby, match.beavers, single,
                    1 if money or single else GAMES_PER_MATCH, strategies, table.pre, table.post, efficiencies)
    n = len(numbers)
    out = KernelGames(np.zeros(n), np.full(n, -1, dtype=np.int8), np.zeros(n, dtype=np.int64),
                      np.zeros(n, dtype=np.int64), np.zeros((n, 4), dtype=np.int64))
    kernels.cube_games(args._replace(seats=seats), cube, 0, n, *out, stop)
    return None if stop[0] else out
