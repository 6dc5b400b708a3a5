"""Cubeful rollouts (docs/rules.md, Rollouts with the cube): a position played out many times with the doubling
cube, as GNU Backgammon's cubeful rollouts do, in two lines on the same dice: **no double** (the cube as
given; the side on roll does not double before this roll, and every later cube action is its player's) and
**double, take** (the cube turned to twice its value and owned by the other side before the roll). Trial
``i`` of both lines is game number ``first_game + i`` of the seed, so the lines meet the same dice and their
difference is far less noisy than either. At money play a trial scores its points (times the cube) per unit
of the starting cube; in a match it scores the side on roll's chances of winning the match after that one
game, from the match equity table of the position's variant (:func:`~nardy_fast.cube.met.default_table`, as
the players' decisions read it), as GNU
Backgammon scores a match rollout. The compiled core plays them in its own loop in C where it plays the
player, else (and in the reference) the one Python game loop plays them (:mod:`nardy_fast.cubeloop`): the
same games, so both give the same numbers for the same seed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import numpy.typing as npt

from .cube import MAX_CUBE, SIDES, Cube, Match
from .cube.decision import proper_actions
from .cube.matchplay import Score
from .cube.met import MatchEquityTable, default_table
from .cube.state import other
from .cubeloop import CubeLockstep, kernel_seats, play_cubeful, play_in_kernel
from .errors import NardyError, field_error
from .kernels import GameRolls, Kernels, PlayoutArgs, StopFlag, batch_search, on_threads, split_range
from .lockstep import player_side
from .playouts import PlayoutOptions, check_playout
from .policies import Player, resolve_policy
from .position import Position
from .turns import rolls_next

__all__ = ["CubefulRollout", "cube_state", "cube_roll_out"]

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]
Mask = npt.NDArray[np.bool_]


def _mean_error(values: Floats) -> tuple[float, float]:
    """The mean of ``values`` and its standard error (independent trials; NaN for one)."""
    mean = float(values.mean())
    if len(values) < 2:
        return mean, math.nan
    return mean, float(values.std(ddof=1) / math.sqrt(len(values)))


@dataclass(frozen=True, eq=False)
class CubefulRollout:
    """A cubeful rollout of a position with ``turn`` to move, its ``cube`` and ``match`` as given: the value of
    each trial of the **no double** line (``no_double_trials``) and, where the side on roll may double now,
    of the **double, take** line (``double_take_trials``, else ``None``), in the same order (trial ``i`` of
    both on the same dice). A value is the side on roll's points per unit of the starting cube (money play)
    or its chances of winning the match. ``outputs`` are the shares of the no-double line's games won, won
    with a mars or more, with a koks, lost with a mars or more, with a koks (a pass counts as a single game),
    which choose among the actions' texts as the cubeless outputs do in
    :func:`~nardy_fast.cube.cube_decision`; a match's trials are scored by ``table``. The standard errors
    are those of independent trials: with the first two rolls stratified they are an upper bound."""

    turn: str
    cube: Cube
    match: Match
    no_double_trials: Floats = field(repr=False)
    double_take_trials: Optional[Floats] = field(repr=False)
    outputs: tuple[float, ...]
    table: MatchEquityTable = field(default_factory=default_table, repr=False)

    def __post_init__(self) -> None:
        if self.turn not in SIDES:
            raise field_error(NardyError, "turn", f"must be one of {SIDES}", self.turn)
        if not isinstance(self.cube, Cube):
            raise field_error(NardyError, "cube", "must be a nardy_fast.Cube", self.cube)
        if not isinstance(self.match, Match):
            raise field_error(NardyError, "match", "must be a nardy_fast.Match", self.match)
        lines = {"no_double_trials": self.no_double_trials, "double_take_trials": self.double_take_trials}
        for name, trials in lines.items():
            if trials is None and name == "double_take_trials":
                continue
            values = np.array(trials, dtype=np.float64)
            if values.ndim != 1 or not len(values) or len(values) != len(self.no_double_trials):
                problem = "must be one value per trial, as many in both lines (at least one)"
                raise field_error(NardyError, name, problem, trials)
            values.setflags(write=False)
            object.__setattr__(self, name, values)
        outputs = tuple(float(v) for v in self.outputs)
        if len(outputs) != 5 or not all(0.0 <= v <= 1.0 for v in outputs):
            raise field_error(NardyError, "outputs", "must be 5 shares 0..1", self.outputs)
        object.__setattr__(self, "outputs", outputs)

    @classmethod
    def combine(cls, parts: Sequence[CubefulRollout]) -> CubefulRollout:
        """One rollout of the trials of ``parts``: rollouts of the same position, cube and match, of disjoint
        ranges of games (``first_game``), in order."""
        found = list(parts)
        if not found or any(not isinstance(part, CubefulRollout) for part in found):
            raise field_error(NardyError, "parts", "must be one or more CubefulRollouts", parts)
        head = found[0]
        if any((p.turn, p.cube, p.match, p.may_double, p.table.name) != (head.turn, head.cube, head.match,
                                                                           head.may_double, head.table.name)
               for p in found):
            raise field_error(NardyError, "parts", "must be rollouts of one side to move, cube, match and table",
                              parts)
        total = sum(part.games for part in found)
        # each share is a count over the part's games: the counts recovered (round: games * share is within a
        # rounding of the count) and summed, so that the shares are exactly one rollout's of all the games
        counts = [sum(round(part.games * part.outputs[k]) for part in found) for k in range(5)]
        outputs = tuple(counts[k] / total for k in range(5))
        takes = [part.double_take_trials for part in found if part.double_take_trials is not None]
        return cls(head.turn, head.cube, head.match, np.concatenate([part.no_double_trials for part in found]),
                   np.concatenate(takes) if head.may_double else None, outputs, head.table)

    @property
    def games(self) -> int:
        """The trials of each line."""
        return len(self.no_double_trials)

    @property
    def may_double(self) -> bool:
        """Whether the side on roll may double (the double line was rolled out)."""
        return self.double_take_trials is not None

    @property
    def no_double(self) -> float:
        """The cubeful value of not doubling (points per unit of the cube, or match winning chances)."""
        return _mean_error(self.no_double_trials)[0]

    @property
    def no_double_stderr(self) -> float:
        """The standard error of :attr:`no_double`."""
        return _mean_error(self.no_double_trials)[1]

    @property
    def double_take(self) -> Optional[float]:
        """The cubeful value of doubling when the other side takes (``None`` where it may not double)."""
        return None if self.double_take_trials is None else _mean_error(self.double_take_trials)[0]

    @property
    def double_take_stderr(self) -> Optional[float]:
        """The standard error of :attr:`double_take`."""
        return None if self.double_take_trials is None else _mean_error(self.double_take_trials)[1]

    @property
    def difference_stderr(self) -> Optional[float]:
        """The standard error of ``double_take - no_double``, trial by trial on the same dice: what says
        whether the double gains, far smaller than either line's error."""
        if self.double_take_trials is None:
            return None
        return _mean_error(self.double_take_trials - self.no_double_trials)[1]

    @property
    def double_pass(self) -> Optional[float]:
        """The value of doubling when the other side passes: the cube's value won (1 per unit at money play;
        the match winning chances after winning it in a match); ``None`` where it may not double."""
        if self.double_take_trials is None:
            return None
        if self.match.length is None:
            return 1.0
        return self._score().mwc(0, won=self.cube.value)

    def _score(self) -> Score:
        me = self.turn
        return Score(self.table, self.match.away(me), self.match.away(other(me)),
                     self.match.crawford)

    @property
    def equities(self) -> Optional[Floats]:
        """The three lines as normalised money equity (their values at money play; under a match GNU
        Backgammon's ``mwc2eq`` at the current cube), on which the action is chosen; ``None`` without a double
        line."""
        take, dp = self.double_take, self.double_pass
        if take is None or dp is None:
            return None
        values = np.array([self.no_double, take, dp])
        if self.match.length is None:
            return values
        score = self._score()
        win, lose = score.mwc(0, won=self.cube.value), score.mwc(0, lost=self.cube.value)
        normalised: Floats = (2.0 * values - (win + lose)) / (win - lose)
        return normalised

    @property
    def action(self) -> str:
        """The proper action in GNU Backgammon's words (:data:`~nardy_fast.cube.ACTIONS`), from the lines'
        values as :func:`~nardy_fast.cube.cube_decision` chooses from its; where the side on roll may not
        double, its texts too: in a match with the cube not the other side's (the Crawford game, a dead cube)
        the dead-cube texts, else "Cube not available"."""
        e = self.equities
        if e is None:
            owner = "centred" if self.cube.owner is None else ("own" if self.cube.owner == self.turn else "other")
            if self.match.length is not None and owner != "other":
                return "Never double, take (dead cube)" if owner == "centred" else "Never redouble, take (dead cube)"
            return "Cube not available"
        p = np.array(self.outputs, dtype=np.float64)
        return proper_actions(e[None, :], p[None, :], self.cube.owner is None, self.match.length is None,
                              self.match.beavers, self.match.jacoby)[0]

    def __str__(self) -> str:
        unit = "points per unit of the cube" if self.match.length is None else "match winning chances"
        lines = [f"{self.games} trials, {self.turn} to move, cube {self.cube.value}"
                 f"{'' if self.cube.owner is None else ' owned by ' + self.cube.owner} ({unit})",
                 f"  no double     {self.no_double:+.4f} ± {self.no_double_stderr:.4f}"]
        if self.double_take is not None:
            lines += [f"  double, take  {self.double_take:+.4f} ± {self.double_take_stderr:.4f}",
                      f"  double, pass  {self.double_pass:+.4f}"]
        lines.append(f"  proper action: {self.action}")
        return "\n".join(lines)


def cube_state(cube: object, match: object) -> tuple[Cube, Match]:
    """A rollout's ``cube`` (a :class:`~nardy_fast.Cube`, ``None``: centred at 1) and ``match`` (a
    :class:`~nardy_fast.Match`, a match length, ``None``: money play), checked."""
    if cube is not None and not isinstance(cube, Cube):
        raise field_error(NardyError, "cube", "must be None or a nardy_fast.Cube", cube)
    if match is not None and not isinstance(match, Match):
        if isinstance(match, bool) or not isinstance(match, (int, np.integer)):
            raise field_error(NardyError, "match", "must be None, a match length or a nardy_fast.Match", match)
        match = Match(int(match))
    found = Match() if match is None else match
    longest = default_table().size
    if found.length is not None and found.length > longest:
        # a trial is scored by the table, as the players' decisions are: refused before any game
        raise field_error(NardyError, "match.length", f"the table covers matches up to {longest}", found.length)
    return Cube() if cube is None else cube, found


class _Lines(CubeLockstep):
    """The trials of both lines in one batch: each slot one game from the position with its own starting cube
    (``doubled``: the double-take line's), ended after that game and scored (:meth:`finish`); the no-double
    slots hold the cube before the first roll."""

    __slots__ = ("hold", "table", "winners", "multiple")

    def __init__(self, args: PlayoutArgs, numbers: Ints, game_rolls: GameRolls, cube: Cube, match: Match,
                 turn: int, doubled: Mask, table: MatchEquityTable) -> None:
        # money numbering (game i is number i): both lines on the cubeless rollout's dice, not a match's games
        super().__init__(args, numbers, game_rolls, np.zeros(len(numbers), dtype=bool), Match())
        self.match = match
        if match.length is not None:
            self.score[:] = match.score
            self.crawford[:] = match.crawford
        self.value[:] = cube.value
        self.owner[:] = -1 if cube.owner is None else SIDES.index(cube.owner)
        self.value[doubled] *= 2
        self.owner[doubled] = 1 - turn
        self.hold = ~doubled
        self.table = table
        self.winners = np.full(len(numbers), -1, dtype=np.int64)
        self.multiple = np.zeros(len(numbers), dtype=np.int64)

    def may_double(self, slots: Ints) -> Mask:
        """As a game's, but not at the first ply of the no-double line: that line is the cube held there."""
        may: Mask = super().may_double(slots) & ~(self.hold[slots] & (self.plies[slots] == 0))
        return may

    def finish(self, slots: Ints, winners: Ints, points: Ints) -> None:
        """Each trial ends with its game: ``result`` is White's points (money) or White's chances of winning
        the match after the game (a game given up: the chances before it)."""
        self.done[slots] = True
        self.winners[slots] = winners
        self.multiple[slots] = points // self.value[slots]
        length = self.match.length
        if length is None:
            self.result[slots] = np.where(winners >= 0, np.where(winners == 0, 1.0, -1.0) * points, 0.0)
            return
        for i, slot in enumerate(slots):
            white, black = (length - int(s) for s in self.score[slot])
            crawford = bool(self.crawford[slot])
            if winners[i] < 0:
                self.result[slot] = self.table.mwc(white, black, crawford)
            elif winners[i] == 0:
                self.result[slot] = self.table.after(white, black, crawford, won=int(points[i]))
            else:
                self.result[slot] = self.table.after(white, black, crawford, lost=int(points[i]))


def cube_roll_out(
    kernels: Kernels,
    position: Position,
    games: object,
    seed: object,
    options: PlayoutOptions,
    cube: Cube,
    match: Match,
    progress: Optional[Callable[[int], object]] = None,
) -> CubefulRollout:
    """:func:`nardy_fast.rollout` with ``cube`` and ``match`` (checked by :func:`cube_state`): both lines,
    ``options.batch`` trials of each at a time, each batch split among ``options.threads`` threads."""
    if options.truncate is not None:
        raise field_error(NardyError, "truncate", "a cubeful rollout plays whole games", options.truncate)
    if options.truncate_plies is not None:
        raise field_error(NardyError, "truncate_plies", "a cubeful rollout plays whole games", options.truncate_plies)
    args = check_playout(position, games, seed, options)
    player = resolve_policy(options.policy, "policy", evaluators=True)
    turn = SIDES.index(position.turn)
    start = bool(rolls_next(position.to_array())[0])
    doubles = start and match.may_double(cube, position.turn) and 2 * cube.value <= MAX_CUBE
    lines = 2 if doubles else 1
    count = args.games
    values = np.zeros((lines, count), dtype=np.float64)
    ends = np.zeros((2, count), dtype=np.int64)  # the no-double line's winners and multiples
    for begin in range(0, count, args.batch):
        end = min(begin + args.batch, count)
        parts = split_range(begin, end - begin, args.threads)

        def part(index: int, stop: StopFlag, parts: list[tuple[int, int]] = parts) -> None:
            first, last = parts[index]
            if last > first:
                _play(kernels, player, args, (cube, match, turn, lines), position.variant, first, last, values, ends,
                      stop)

        on_threads(args.threads, part)
        if progress is not None:
            progress(end)
    winners, multiple = ends
    won, lost = winners == turn, winners == 1 - turn
    outputs = tuple(float(np.count_nonzero(mask) / count) for mask in (
        won, won & (multiple >= 2), won & (multiple >= 3), lost & (multiple >= 2), lost & (multiple >= 3)))
    return CubefulRollout(position.turn, cube, match, values[0], values[1] if doubles else None, outputs,
                          default_table(position.variant))


def _play(
    kernels: Kernels,
    player: Player,
    args: PlayoutArgs,
    state: tuple[Cube, Match, int, int],
    variant: str,
    first: int,
    last: int,
    values: Floats,
    ends: Ints,
    stop: StopFlag,
) -> None:
    """Trials ``first`` up to ``last`` of every line, in one batch: their values (the side on roll's, per unit
    of the starting cube) into ``values``, the no-double games' winners and multiples into ``ends``."""
    cube, match, turn, lines = state
    size = last - first
    numbers = np.tile(np.arange(first, last, dtype=np.int64) + args.first_game, lines)
    doubled = np.repeat(np.arange(lines) == 1, size)
    table = default_table(variant)
    games = _Lines(args, numbers, kernels.game_rolls, cube, match, turn, doubled, table)
    seated = kernel_seats(kernels, args, (player, player))
    if seated is not None and (match.length is None or match.length <= table.size):
        records = (numbers, np.zeros(len(numbers), dtype=bool), games.value.copy(), games.owner.copy(), games.hold)
        found = play_in_kernel(kernels, args, seated, match, table, records, True, stop)
        if found is None:
            return
        games.value[:] = found.value
        games.finish(np.arange(len(numbers)), found.winner.astype(np.int64), found.points)
    else:
        side = player_side(kernels, player, args.seed)
        if not play_cubeful(games, (side, side), (player, player), kernels, batch_search(kernels.batch_children),
                            stop):
            return
    white = games.result.reshape(lines, size)
    if match.length is None:
        values[:, first:last] = (white if turn == 0 else -white) / cube.value
    else:
        values[:, first:last] = white if turn == 0 else 1.0 - white
    ends[0, first:last] = games.winners[:size]
    ends[1, first:last] = games.multiple[:size]
