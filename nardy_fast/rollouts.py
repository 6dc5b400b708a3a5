"""Rollouts: how a position ends on average, over many games played from it with seeded dice.

A rollout plays ``games`` games from the position (``playout``) and counts each outcome: which side won, and
how (a single game, a mars or a koks; in short nardy these are backgammon's single game, gammon and
backgammon). With ``stratify=True`` the first two rolls of the games cycle through all 36 x 36 ordered pairs
of dice (:mod:`nardy_fast.dice`), so every 1,296 games see each pair exactly once: the luck of the first two
rolls, the largest part of a rollout's variance, then averages out exactly.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Optional, cast

import numpy as np
import numpy.typing as npt

from .errors import NardyError, NardyWarning, field_error
from .inputs import choice, integer, items
from .kernels import Kernels
from .playouts import GAMES_BOUND, TRUNCATED, PlayoutOptions, bound, check_playout, play, played
from .position import Position
from .truncation import OUTCOMES, stopped_outcomes, truncation_evaluator

__all__ = [
    "ROLLOUT_DOC",
    "OUTCOMES",
    "MAX_GAMES",
    "STRATA",
    "Rollout",
    "check_position",
    "check_progress",
    "rollout_options",
    "rollout_parts",
    "roll_out",
    "warn_unbalanced",
]

_SIDES = ("white", "black")
#: The stratified first two rolls of a rollout cycle through this many pairs (36 x 36): only whole cycles
#: balance them.
STRATA = 36 * 36
#: The most games a :class:`Rollout` counts, its counts and unfinished games together: far beyond any run
#: (one ``rollout`` plays fewer than 2**31), and a bound that keeps every figure a finite float.
MAX_GAMES = (1 << 63) - 1


def _stderr(total: float, squares: float, games: int) -> float:
    """The standard error of a mean of ``games`` values with sum ``total`` and sum of squares ``squares``:
    the sample standard deviation over the square root of ``games`` (NaN for one game)."""
    if games < 2:
        return math.nan
    mean = total / games
    variance = max(squares / games - mean * mean, 0.0) * games / (games - 1)
    return math.sqrt(variance / games)


@dataclass(frozen=True)
class Rollout:
    """The outcomes of the games of a rollout: ``counts`` (games per outcome, in :data:`OUTCOMES` order),
    ``unfinished`` (games given up: after :data:`~nardy_fast.game.MAX_PLIES` plies, or at a ply whose search
    was over ``max_results``, :data:`~nardy_fast.game.LIMITED`) and ``turn``, the side to
    move in the position rolled out. The probabilities and the equity follow from these counts alone, so
    rollouts of disjoint ranges of games (``first_game``) combine exactly (:meth:`combine`). A rollout counts
    at least one game and at most :data:`MAX_GAMES`; anything else is a :class:`~nardy_fast.NardyError`
    naming ``counts``, ``unfinished`` or ``turn``.

    A truncated rollout also counts the ``truncated`` games: with ``truncate="bearoff"`` each stopped at its
    first bear-off position and scored by that position's race values (docs/rules.md, Bear-off tables), with
    ``truncate_plies`` each stopped after that many plies and scored by the policy's evaluator at 0 ply.
    ``race`` holds the sums over them of the probability of each outcome, ``race_squares`` the sums
    of their squares and ``race_equity_squares`` the sum of the squared equities (for the side to move), from
    which the probabilities, the equity and their standard errors follow as for played games.

    The standard errors are those of independent games. Stratified games are not independent (their first two
    rolls are balanced), and their true error is smaller: the figures given are an upper bound then.
    """

    counts: tuple[int, ...]
    unfinished: int
    turn: str
    truncated: int = 0
    race: tuple[float, ...] = (0.0,) * len(OUTCOMES)
    race_squares: tuple[float, ...] = (0.0,) * len(OUTCOMES)
    race_equity_squares: float = 0.0

    def __post_init__(self) -> None:
        found = items(self.counts)
        counts = None if found is None or len(found) != len(OUTCOMES) else tuple(integer(c) for c in found)
        if counts is None or any(c is None or c < 0 for c in counts):
            raise field_error(NardyError, "counts", f"must be {len(OUTCOMES)} integers >= 0", self.counts)
        unfinished = integer(self.unfinished)
        if unfinished is None or unfinished < 0:
            raise field_error(NardyError, "unfinished", "must be an integer >= 0", self.unfinished)
        truncated = integer(self.truncated)
        if truncated is None or truncated < 0:
            raise field_error(NardyError, "truncated", "must be an integer >= 0", self.truncated)
        race = _sums(self.race, "race", truncated)
        race_squares = _sums(self.race_squares, "race_squares", truncated)
        room = 1e-9 * max(1, truncated)  # rounding in sums of many games
        if abs(math.fsum(race) - truncated) > room:
            problem = f"must add up to truncated ({truncated}): each stopped game's probabilities add up to 1"
            raise field_error(NardyError, "race", problem, self.race)
        if any(square > total + room for square, total in zip(race_squares, race)):
            problem = "must not exceed race, term by term (a probability's square is at most the probability)"
            raise field_error(NardyError, "race_squares", problem, self.race_squares)
        equity_squares = self.race_equity_squares
        if (
            not isinstance(equity_squares, (int, float, np.integer, np.floating))
            or isinstance(equity_squares, (bool, np.bool_))
            or not -room <= float(equity_squares) <= 9 * truncated + room
        ):
            problem = f"must be a finite number 0..{9 * truncated} (a stopped game scores at most 3 points)"
            raise field_error(NardyError, "race_equity_squares", problem, equity_squares)
        equity_squares = float(equity_squares)
        games = sum(cast("tuple[int, ...]", counts)) + unfinished + truncated
        if games == 0:
            # every figure of a rollout is a share of its games: with none, there is no result to give
            problem = "must count at least one game (with unfinished)"
            raise field_error(NardyError, "counts", problem, self.counts)
        if games > MAX_GAMES:
            problem = "must count at most 2**63 - 1 games (with unfinished)"
            raise field_error(NardyError, "counts", problem, self.counts)
        turn = choice(self.turn, _SIDES)
        if turn is None:
            raise field_error(NardyError, "turn", f"must be one of {_SIDES}", self.turn)
        # the checked values, as plain ints and str (the dataclass is frozen: set through object)
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "unfinished", unfinished)
        object.__setattr__(self, "turn", turn)
        object.__setattr__(self, "truncated", truncated)
        object.__setattr__(self, "race", race)
        object.__setattr__(self, "race_squares", race_squares)
        object.__setattr__(self, "race_equity_squares", equity_squares)  # checked above

    @classmethod
    def from_records(
        cls, records: npt.NDArray[np.void], turn: str, race: Optional[npt.NDArray[np.float64]] = None
    ) -> Rollout:
        """The rollout of ``playout`` records of games from a position with ``turn`` to move; ``race``: the
        probabilities of the outcomes (T, 6) of the games stopped (winner -2: at a bear-off, or after
        ``truncate_plies``), in record order."""
        winner, points = records["winner"], records["points"]
        counts = tuple(
            int(np.count_nonzero((winner == side) & (points == value)))
            for side in (0, 1)
            for value in (1, 2, 3)
        )
        stopped = int(np.count_nonzero(winner == TRUNCATED))
        if stopped and (race is None or len(race) != stopped):
            problem = f"must give the values of the {stopped} games stopped (winner -2)"
            raise field_error(NardyError, "race", problem, None if race is None else race.shape)
        # given up: after MAX_PLIES plies (-1), or at a ply over max_results (LIMITED)
        given_up = int(np.count_nonzero(winner < 0)) - stopped
        if race is None or not stopped:
            return cls(counts, given_up, turn)
        values = np.array([value for value, _ in cls._signed(turn)], dtype=np.float64)
        equity = race @ values
        return cls(
            counts,
            given_up,
            turn,
            stopped,
            tuple(float(v) for v in race.sum(axis=0)),
            tuple(float(v) for v in (race * race).sum(axis=0)),
            float(equity @ equity),
        )

    @classmethod
    def combine(cls, parts: Iterable[Rollout]) -> Rollout:
        """One rollout of all the games of ``parts`` (rollouts of the same position, of disjoint games)."""
        if isinstance(parts, (str, bytes)) or not isinstance(parts, Iterable):
            raise field_error(NardyError, "parts", "must be an iterable of rollouts", parts)
        found = list(parts)
        if not found:
            raise field_error(NardyError, "parts", "must be one or more rollouts of one side to move", found)
        for index, part in enumerate(found):
            if not isinstance(part, Rollout):
                raise field_error(NardyError, f"parts[{index}]", "must be a Rollout", part)
        if len({part.turn for part in found}) != 1:
            raise field_error(NardyError, "parts", "must be one or more rollouts of one side to move", found)
        counts = tuple(sum(column) for column in zip(*(part.counts for part in found)))
        return cls(
            counts,
            sum(part.unfinished for part in found),
            found[0].turn,
            sum(part.truncated for part in found),
            tuple(math.fsum(column) for column in zip(*(part.race for part in found))),
            tuple(math.fsum(column) for column in zip(*(part.race_squares for part in found))),
            math.fsum(part.race_equity_squares for part in found),
        )

    @property
    def games(self) -> int:
        """The games played (those stopped at a bear-off included)."""
        return sum(self.counts) + self.unfinished + self.truncated

    @property
    def probabilities(self) -> dict[str, float]:
        """The share of the games that ended in each outcome (a truncated game counts its race values)."""
        return {name: (count + race) / self.games for name, count, race in zip(OUTCOMES, self.counts, self.race)}

    @property
    def stderr(self) -> dict[str, float]:
        """The standard error of each probability (see the class docstring)."""
        return {
            name: _stderr(count + race, count + square, self.games)
            for name, count, race, square in zip(OUTCOMES, self.counts, self.race, self.race_squares)
        }

    @staticmethod
    def _signed(turn: str) -> list[tuple[int, str]]:
        """(points for the side to move ``turn``, outcome) per outcome."""
        sign = {side: 1 if side == turn else -1 for side in _SIDES}
        return [(sign[name.split("_")[0]] * (1 + i % 3), name) for i, name in enumerate(OUTCOMES)]

    @property
    def equity(self) -> float:
        """Points per game for the side to move: won minus lost (an unfinished game counts 0)."""
        values = [value for value, _ in self._signed(self.turn)]
        return sum(v * (c + r) for v, c, r in zip(values, self.counts, self.race)) / self.games

    @property
    def equity_stderr(self) -> float:
        """The standard error of :attr:`equity` (see the class docstring)."""
        values = [value for value, _ in self._signed(self.turn)]
        total = sum(v * (c + r) for v, c, r in zip(values, self.counts, self.race))
        squares = sum(v * v * c for v, c in zip(values, self.counts)) + self.race_equity_squares
        return _stderr(total, squares, self.games)

    def __str__(self) -> str:
        lines = [
            f"{self.games} games, {self.turn} to move; equity {self.equity:+.4f} ± {self.equity_stderr:.4f}"
        ]
        probabilities, errors = self.probabilities, self.stderr
        lines += [f"  {name:13} {probabilities[name]:.4f} ± {errors[name]:.4f}" for name in OUTCOMES]
        if self.truncated:
            lines.append(f"  truncated     {self.truncated} (stopped early, scored by their race or evaluator values)")
        if self.unfinished:
            lines.append(f"  unfinished    {self.unfinished}")
        return "\n".join(lines)


def _sums(value: object, name: str, most: int, length: int = len(OUTCOMES)) -> tuple[float, ...]:
    """Sums over truncated games: ``length`` finite numbers, each 0..``most`` (with room for rounding)."""
    found = items(value)
    kinds = (int, float, np.floating, np.integer)
    numbers = [] if found is None else [v for v in found if isinstance(v, kinds) and not isinstance(v, (bool, np.bool_))]
    if found is None or len(numbers) != len(found) or len(found) != length:
        raise field_error(NardyError, name, f"must be {length} finite numbers", value)
    floats = tuple(float(v) for v in numbers)
    if not all(math.isfinite(v) and -1e-9 <= v <= most * (1 + 1e-9) + 1e-9 for v in floats):
        raise field_error(NardyError, name, f"must be finite numbers 0..{most}", value)
    return floats


def check_position(position: object) -> Position:
    """The position of a rollout: an unfinished ``Position`` (the same check wherever a rollout is asked)."""
    if not isinstance(position, Position):
        raise field_error(NardyError, "position", "must be a Position", position)
    if position.is_over():
        raise field_error(NardyError, "position", "is a finished game", position.to_text())
    return position


def rollout_options(
    policy: object = "random",
    stratify: bool = True,
    threads: int = 1,
    first_game: int = 0,
    batch: int = 1000,
    truncate: Optional[str] = None,
    max_results: object = None,
    truncate_plies: object = None,
) -> PlayoutOptions:
    """The playout options of a rollout, from ``rollout``'s keyword arguments and their defaults (stratified
    rolls); an unknown keyword is a ``TypeError``, as for any function."""
    return PlayoutOptions(
        policy=policy,  # checked with the playout's options
        stratify=stratify,
        threads=threads,
        first_game=first_game,
        batch=batch,
        truncate=truncate,
        max_results=max_results,
        truncate_plies=truncate_plies,
    )


def warn_unbalanced(games: object, options: PlayoutOptions, stacklevel: int = 2) -> None:
    """Warn (:class:`~nardy_fast.NardyWarning`) when stratified rolls would not be balanced: ``games`` not a
    whole number of cycles of :data:`STRATA` pairs (each first roll then comes up unevenly often, and the
    rollout is biased towards some). A count the playout refuses is left to its error: no advice to use
    another count it refuses too."""
    count = integer(games)
    if options.stratify is True and count is not None and 0 < count < GAMES_BOUND and count % STRATA:
        cycles = max(1, round(count / STRATA))
        warnings.warn(
            f"games: {count:,} stratified games are not a multiple of {STRATA:,} (36 x 36 pairs of first rolls), "
            f"so the first rolls are not balanced: use {cycles * STRATA:,}, or stratify=False",
            NardyWarning,
            stacklevel=stacklevel,
        )


#: The docstring of the package's ``rollout`` (each implementation's, and the dispatcher's).
ROLLOUT_DOC = """Roll ``position`` out: play ``games`` games from it with seeded dice (``playout`` with the same
options; ``seed`` 0 unless given) and return the share of each outcome with its standard error, and
the equity of the side to move (:class:`Rollout`) when both sides play ``policy``: random moves by
default, so the figures are those of random play, not of good play. ``stratify=True`` (the default)
cycles the first two rolls through all 36 x 36 pairs of dice, which balances them only over a multiple
of 1,296 games: any other count warns (:class:`~nardy_fast.NardyWarning`, saying which). Rollouts of
the games ``first_game`` .. ``first_game + games - 1`` combine exactly (:meth:`Rollout.combine`).

``truncate="bearoff"`` stops each game at its first bear-off position and scores it by that
position's race values (docs/rules.md, Bear-off tables) instead of playing it out: the random play of
the bear-off adds no noise and no error then, so the figures are those of the play before it, and the
games are shorter. ``truncate_plies=N`` (GNU Backgammon's truncated rollouts) stops each game once it
has played ``N`` plies, at the first position after them whose side to move is to roll, and scores it
by the policy's evaluator at 0 ply (the policy must be a :class:`~nardy_fast.Greedy`): the rollout
then measures ``N`` plies of play and the evaluator beyond them, at a fraction of the cost of whole
games; with ``truncate="bearoff"`` too, a game that reaches a bear-off first stops there, valued by the
tables. ``max_results``, as ``playout``'s, gives a game up at a ply whose search is over
it: one of the ``unfinished`` games, which score 0 (no bound unless you set one). ``progress``, as
``duel``'s, is called with the games done after each ``batch`` (the parts combine exactly).

With ``cube`` (a :class:`~nardy_fast.Cube`) or ``match`` (a :class:`~nardy_fast.Match` or a match
length), a cubeful rollout (docs/rules.md, Rollouts with the cube): each game is played with the cube
from the position with that cube and match (money play without ``match``; a centred cube without
``cube``), ``policy`` taking the cube actions too (a Greedy by its ``cube`` strategy, other policies
never double and always take), in two lines on the same dice, no double and double-take, and
returns a :class:`~nardy_fast.cuberollouts.CubefulRollout`: their values for the side to move (points
per unit of the cube, or match winning chances) with their standard errors, the double-pass value
and the proper action. Where the side to move may not double, only the no-double line is played."""


def check_progress(progress: object) -> Optional[Callable[[int], object]]:
    """``progress``, a callable or None (the same check as ``duel``'s), else a NardyError naming it."""
    if progress is not None and not callable(progress):
        raise field_error(NardyError, "progress", "must be callable or None", progress)
    return progress


def rollout_parts(
    roll_out: Callable[[object, object, object, PlayoutOptions], Rollout],
    position: object,
    games: object,
    seed: object,
    options: PlayoutOptions,
    progress: object = None,
) -> Rollout:
    """``roll_out(position, games, seed, options)`` (an implementation's ``roll_out``), with ``progress``
    called with the games done after each part of ``options.batch`` games: the parts are rollouts of
    consecutive games (``first_game`` moved on), which combine exactly into the one rollout a single call
    gives, so that a long rollout (a Greedy policy's, 1-ply and deeper) shows how far it is. Without
    ``progress``, one call."""
    report = check_progress(progress)
    if report is None:
        return roll_out(position, games, seed, options)
    count, batch, first = integer(games), integer(options.batch), integer(options.first_game)
    if count is None or batch is None or first is None or count < 1 or batch < 1:
        return roll_out(position, games, seed, options)  # its checks name what is wrong
    parts = []
    for begin in range(0, count, batch):
        size = min(batch, count - begin)
        parts.append(roll_out(position, size, seed, replace(options, first_game=first + begin)))
        report(begin + size)
    return Rollout.combine(parts)


def roll_out(kernels: Kernels, position: object, games: object, seed: object, options: PlayoutOptions) -> Rollout:
    """:func:`nardy_fast.rollout` with ``kernels`` and its options as one value (:func:`rollout_options`), and
    no warning: for a part of a rollout, whose games need not balance the rolls alone."""
    start = check_position(position)
    evaluator = truncation_evaluator(options)
    if options.truncate is None and evaluator is None:
        records = play(kernels, start, games, seed, options)
        assert isinstance(records, np.ndarray)
        return Rollout.from_records(records, start.turn)
    # the last position of each game is all a truncated rollout needs of its trajectories
    args = bound(kernels, check_playout(start, games, seed, options)._replace(trajectories=True, last_only=True))
    result = played(kernels, args)
    assert isinstance(result, tuple)
    records, finals = result
    stopped = finals.rows[records["winner"] == TRUNCATED]
    if not len(stopped):
        return Rollout.from_records(records, start.turn)
    return Rollout.from_records(records, start.turn, stopped_outcomes(kernels, start, options, evaluator, stopped))
