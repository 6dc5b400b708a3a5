"""Match records of the games a duel or a playout played (docs/rules.md, Match records of duels and playouts):
each game, or match, played again in the one Python game loop with its plies and cube actions logged, then
replayed through the rules into a :class:`~nardy_fast.records.MatchRecord`.

The games are the same as the duel's or playout's whichever loop played those (the compiled core's in C, or
the Python loop): every roll and random choice is a function of the seed and the game number, and both loops
make the same decisions on them (tests/test_cube_games_duel.py, tests/test_duel.py). A duel checks it all the
same: a record whose result differs from the one the duel reported is an error, never a record of another
game (a callable policy that keeps a state of its own can choose otherwise the second time).

Played again, a game costs what it cost in the Python loop, and a record holds a Python object per ply:
:data:`MAX_MATCH_RECORDS` bounds the records of one call. Any game or match of a larger duel is recorded by a
duel of its pair alone (``first_game`` the pair's number, ``games=2``), on the same dice.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import numpy.typing as npt

from . import layout
from .cube import Match
from .cube.state import SIDES
from .cubeloop import GAMES_PER_MATCH, CubeLockstep, play_cubeful
from .cubeplayouts import check_cube_playout
from .errors import NardyError, field_error
from .kernels import Kernels, PlayoutArgs, batch_search
from .lockstep import Lockstep, play, player_side
from .playouts import PlayoutOptions, check_playout
from .policies import Player
from .position import Position
from .records import GameRecord, MatchRecord, Replay, score_after
from .variants import is_default

__all__ = ["MAX_MATCH_RECORDS", "check_match_records", "checked_match_records", "duel_match_records", "playout_match_records", "results_of"]

#: The most match records one duel or playout returns (a record per game at money play, per match in a match).
MAX_MATCH_RECORDS = 1000

#: The options of a playout that its match records do not take.
_PLAYOUT_ONLY = ("threads", "batch", "trajectories", "truncate")

Ints = npt.NDArray[np.int64]
Mask = npt.NDArray[np.bool_]
#: A logged ply (the roll, (0, 0) for a pending list, and the row played to) or cube action (the side, the
#: action).
Logged = tuple[object, ...]
#: A game as logged: its start row, the match as it began (``None`` without the cube), its events, and the
#: winner (-1: given up) and points the loop gave it.
GameLog = tuple[npt.NDArray[np.int8], Optional[Match], list[Logged], int, int]


def check_match_records(value: object, count: int, field: str = "match_records") -> bool:
    """``value`` checked as a ``match_records`` option (True or False) for ``count`` games or matches: at
    most :data:`MAX_MATCH_RECORDS` of them are recorded."""
    if not isinstance(value, (bool, np.bool_)):
        raise field_error(NardyError, field, "must be True or False", value)
    if value and count > MAX_MATCH_RECORDS:
        problem = (f"records at most {MAX_MATCH_RECORDS} games or matches (one pair of a duel alone: its "
                   "first_game and games=2)")
        raise field_error(NardyError, field, problem, count)
    return bool(value)


def checked_match_records(records: object, count: int) -> tuple[MatchRecord, ...]:
    """A duel result's ``match_records`` checked: none, or one :class:`~nardy_fast.records.MatchRecord` for
    each of its ``count`` games or matches."""
    held = tuple(records) if isinstance(records, (tuple, list)) else None
    if held is None or (held and len(held) != count) or not all(isinstance(r, MatchRecord) for r in held):
        raise field_error(NardyError, "match_records", f"must be () or {count} MatchRecord values", records)
    return held


class _Logged(Lockstep):
    """The cubeless games of a batch, each ply logged per slot (one game a slot)."""

    __slots__ = ("log", "first")

    def __init__(self, args: PlayoutArgs, numbers: Ints, game_rolls: object, swap: Optional[Mask]) -> None:
        super().__init__(args, numbers, game_rolls, swap)  # type: ignore[arg-type]
        self.log: list[list[Logged]] = [[] for _ in numbers]
        self.first = self.rows.copy()

    def advance(self, active: Ints, chosen: npt.NDArray[np.int8], ended: Mask) -> None:
        for i, slot in enumerate(active.tolist()):
            self.log[slot].append((self.rolls[slot].copy(), chosen[i].copy()))
        super().advance(active, chosen, ended)


class _CubeLogged(CubeLockstep):
    """The cubeful games or matches of a batch, each ply and cube action logged per slot, each game of a
    match closed as it ends (the next one starts in the slot)."""

    __slots__ = ("log", "start", "began", "games")

    def __init__(self, args: PlayoutArgs, numbers: Ints, game_rolls: object, swap: Mask, match: Match) -> None:
        super().__init__(args, numbers, game_rolls, swap, match)  # type: ignore[arg-type]
        n = len(numbers)
        self.log: list[list[Logged]] = [[] for _ in range(n)]
        self.start = [self.rows[slot].copy() for slot in range(n)]
        self.began: list[Match] = [state[1] for state in self.states(np.arange(n, dtype=np.int64))]
        self.games: list[list[GameLog]] = [[] for _ in range(n)]

    def advance(self, active: Ints, chosen: npt.NDArray[np.int8], ended: Mask) -> None:
        for i, slot in enumerate(active.tolist()):
            self.log[slot].append((self.rolls[slot].copy(), chosen[i].copy()))
        super().advance(active, chosen, ended)

    def cube_phase(self, kernels: Kernels, players: tuple[Player, Player], slots: Ints) -> Ints:
        before = self.value[slots].copy()
        passed = super().cube_phase(kernels, players, slots)
        # the actions are read from what they did: a cube twice as high was taken, four times beavered
        dropped = set(passed.tolist())
        for i, slot in enumerate(slots.tolist()):
            side = SIDES[int(self.rows[slot, layout.TURN])]
            taker = SIDES[1 - SIDES.index(side)]
            grown = int(self.value[slot]) // int(before[i])
            answer = {2: "take", 4: "beaver"}.get(grown, "drop" if slot in dropped else None)
            if answer is not None:
                self.log[slot] += [(side, "double"), (taker, answer)]
        return passed

    def finish(self, slots: Ints, winners: Ints, points: Ints) -> None:
        for i, slot in enumerate(slots.tolist()):
            game = (self.start[slot], self.began[slot], self.log[slot], int(winners[i]), int(points[i]))
            self.games[slot].append(game)
            self.log[slot] = []
        super().finish(slots, winners, points)

    def restart(self, slots: Ints, numbers: Ints) -> None:
        super().restart(slots, numbers)
        matches = self.states(slots)  # the score and Crawford flag as the next game starts
        for i, slot in enumerate(slots.tolist()):
            self.start[slot] = self.rows[slot].copy()
            self.began[slot] = matches[i][1]


def _game_record(position_class: type[Position], number: int, log: GameLog, score: tuple[int, int]) -> GameRecord:
    """One logged game replayed through ``position_class``'s rules: each ply the legal move that reaches the
    row played, each cube action by the rules; the result the replay's, checked against the loop's."""
    start, match, events, winner, points = log
    replay = Replay(position_class.from_array(start), match)
    where = f"game {number}"
    for event in events:
        if isinstance(event[0], str):
            replay.cube_action(event[0], str(event[1]), where)
            continue
        roll, chosen = event
        assert isinstance(roll, np.ndarray) and isinstance(chosen, np.ndarray)
        dice = None if roll[0] == 0 else (int(roll[0]), int(roll[1]))
        child = position_class.from_array(chosen)
        move = next(move for move in replay.position.legal_moves(dice) if move.result == child)
        replay.play(dice, [(step.src, step.dst) for step in move.steps], str(move), where)
    record = replay.record(number, score, match)
    if (record.winner, record.points) != ((SIDES[winner], points) if winner >= 0 else (None, 0)):
        raise AssertionError(f"{where}: the replay ends otherwise than the game loop's game")  # a bug of ours
    return record


def _match_record(position_class: type[Position], logs: list[GameLog], names: tuple[str, str],
                  match: Optional[Match], tags: tuple[tuple[str, str], ...]) -> MatchRecord:
    """The record of one slot's games (a money game, or the games of a match) between ``names`` (White's,
    Black's)."""
    length = None if match is None else match.length
    score = (0, 0) if match is None or match.money else match.score
    games = []
    for number, log in enumerate(logs, 1):
        record = _game_record(position_class, number, log, score)
        games.append(record)
        score = score_after(score, record.winner, record.points, length)
    first = position_class.from_array(logs[0][0])
    flags = tuple(sorted((n, v) for n, v in first.flags.items() if not is_default(n, v)))
    return MatchRecord(players=names, length=length, games=tuple(games), variant=first.variant, flags=flags,
                       cube=match is not None, crawford=True, jacoby=bool(match and match.jacoby),
                       beavers=bool(match and match.beavers), tags=tags)


def _recorded(kernels: Kernels, position_class: type[Position], players: tuple[Player, Player], args: PlayoutArgs,
              numbers: Ints, swap: Optional[Mask], match: Optional[Match]) -> list[MatchRecord]:
    """The records of games (money or cubeless) or matches ``numbers`` (their dice), ``players`` in seats 0
    and 1 (seats swapped where ``swap``), played again in the Python loop, ``args.batch`` slots at a time."""
    sides = tuple(player_side(kernels, player, args.seed) for player in players)
    if players[0] is players[1]:
        sides = (sides[0], sides[0])
    search = batch_search(kernels.batch_children)
    names = (repr(players[0]), repr(players[1]))
    out: list[MatchRecord] = []
    for begin in range(0, len(numbers), args.batch):
        part = slice(begin, begin + args.batch)
        flips = np.zeros(len(numbers[part]), dtype=bool) if swap is None else swap[part]
        logs: list[list[GameLog]]
        if match is None:
            games = _Logged(args, numbers[part].copy(), kernels.game_rolls, None if swap is None else flips)
            play(games, (sides[0], sides[1]), search, np.zeros(1, dtype=np.int32))
            found = games.records()
            logs = [[(games.first[i], None, games.log[i], int(found["winner"][i]) if found["winner"][i] in (0, 1)
                      else -1, int(found["points"][i]))] for i in range(len(flips))]
        else:
            cubeful = _CubeLogged(args, numbers[part].copy(), kernels.game_rolls, flips, match)
            play_cubeful(cubeful, (sides[0], sides[1]), players, kernels, search, np.zeros(1, dtype=np.int32))
            logs = cubeful.games
        for i, number in enumerate(numbers[part].tolist()):
            first = number * GAMES_PER_MATCH if match is not None and not match.money else number
            tags = (("Seed", str(args.seed)), ("Dice game", str(first)))
            who = (names[1], names[0]) if flips[i] else names
            out.append(_match_record(position_class, logs[i], who, match, tags))
    return out


def results_of(records: list[MatchRecord], a_white: Mask) -> npt.NDArray[np.float64]:
    """What each record's result is for ``a`` (White where ``a_white``): its points won minus lost at money play
    or without the cube (0 for a game left unfinished), else 1 for a match it won, 0 for one it lost, 0.5 for
    one left undecided."""
    out = np.zeros(len(records), dtype=np.float64)
    for i, record in enumerate(records):
        mine = SIDES[0] if a_white[i] else SIDES[1]
        if record.length is None:
            game = record.games[-1]
            out[i] = 0.0 if game.winner is None else (game.points if game.winner == mine else -game.points)
        else:
            winner = record.winner()
            out[i] = 0.5 if winner is None else float(winner == mine)
    return out


def duel_match_records(kernels: Kernels, position_class: type[Position], players: tuple[Player, Player],
                       args: PlayoutArgs, count: int, match: Optional[Match],
                       results: npt.NDArray[np.generic]) -> tuple[MatchRecord, ...]:
    """The records of a duel's ``count`` games or matches (record ``2k`` has ``a`` in seat 0, ``2k + 1`` the
    seats swapped, on the dice of pair ``first_game + k``), checked against the ``results`` it reported."""
    index = np.arange(count, dtype=np.int64)
    swap: Mask = index % 2 == 1
    records = _recorded(kernels, position_class, players, args, index // 2 + args.first_game, swap, match)
    differ = np.flatnonzero(results_of(records, ~swap) != np.asarray(results, dtype=np.float64))
    if differ.size:
        problem = (f"game or match {int(differ[0])} played again differs from the duel's: the players must "
                   "choose by what they are shown alone")
        raise field_error(NardyError, "match_records", problem, True)
    return tuple(records)


def playout_match_records(kernels: Kernels, position_class: type[Position], start: object, games: object,
                          seed: object, options: PlayoutOptions, match: Optional[Match]) -> tuple[MatchRecord, ...]:
    """:func:`nardy_fast.playout_match_records`: the playout's checks (with the cube's, under ``match``), then
    record ``i`` of game or match ``first_game + i``, the playout's policy in both seats."""
    for name in _PLAYOUT_ONLY:
        if name in options.flags:  # else taken for a rule flag: say what it is
            problem = "is a playout's option: match records are whole games, played again in one thread"
            raise field_error(NardyError, name, problem, options.flags[name])
    args = check_playout(start, games, seed, options)
    player = args.player if match is None else check_cube_playout(args, options, match)
    assert isinstance(player, Player)
    if args.games > MAX_MATCH_RECORDS:
        raise field_error(NardyError, "games", f"must be at most {MAX_MATCH_RECORDS} for match records", games)
    numbers = np.arange(args.games, dtype=np.int64) + args.first_game
    return tuple(_recorded(kernels, position_class, (player, player), args, numbers, None, match))
