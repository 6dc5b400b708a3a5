"""Duels with the doubling cube (docs/rules.md, Duels; The doubling cube; Match play): money sessions, where each
game is played with the cube and scores its points times the cube, and matches to a length, on duplicate
dice: pair ``k`` is played twice, ``a`` in seat 0 (White where it is a's) first, then seats swapped, on the
same dice (game by game within a match: :mod:`nardy_fast.cubeloop`). The compiled core plays them in its own
loop in C where it plays both players (built-in policies, and greedy players over built-in evaluators with
their cube strategies); otherwise, and in the reference always, the one Python game loop plays them over
the implementation's kernels. The games are the same, so both give the same results for the same seed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

import numpy as np
import numpy.typing as npt

from .cube import Match
from .cube.met import default_table
from .cubeloop import MATCH_NUMBERS, CubeLockstep, kernel_seats, play_cubeful, play_in_kernel
from .duelrecords import checked_match_records
from .errors import NardyError, field_error
from .kernels import PlayoutArgs, StopFlag, batch_search, on_threads, split_range
from .lockstep import player_side
from .policies import Player
from .records import MatchRecord

if TYPE_CHECKING:
    from .kernels import Kernels

__all__ = ["CubeDuelResult", "cube_duel", "session_match"]


@dataclass(frozen=True, eq=False)
class CubeDuelResult:
    """What a duel of ``a`` against ``b`` with the cube found. ``length`` is ``None`` for a money session, whose
    ``results`` are what ``a`` scored in each game (points times the cube, won minus lost); else the match
    length, and ``results`` are 1 for each match ``a`` won, 0 for one it lost, 0.5 for one left undecided
    (``2k`` with ``a`` in seat 0, ``2k + 1`` seats swapped, on the same dice)."""

    a: str
    b: str
    variant: str
    seed: int
    length: Optional[int]
    results: npt.NDArray[np.float64] = field(repr=False)
    #: The games (money) or matches as match records (``duel(..., match_records=True)``; empty without), in
    #: order.
    match_records: tuple[MatchRecord, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        values = np.array(self.results, dtype=np.float64)
        if values.ndim != 1 or len(values) < 2 or len(values) % 2:
            raise field_error(NardyError, "results", "must be an even number of values (pairs on duplicate dice)",
                              self.results)
        values.setflags(write=False)
        object.__setattr__(self, "results", values)
        object.__setattr__(self, "match_records", checked_match_records(self.match_records, len(values)))

    @property
    def games(self) -> int:
        """How many games (money) or matches were played."""
        return len(self.results)

    @property
    def ppg(self) -> float:
        """Points per game for ``a`` (money sessions; for matches, the share of matches won)."""
        return float(self.results.mean())

    @property
    def win_rate(self) -> float:
        """The share of games (money) or matches ``a`` won (an undecided match counting half)."""
        if self.length is None:
            return float((self.results > 0).mean())
        return float(self.results.mean())

    @property
    def stderr(self) -> float:
        """The standard error of :attr:`ppg` (money) or :attr:`win_rate` (matches) over the pairs, the
        independent samples (the two of a pair share their dice); 0 for a single pair."""
        pairs = self.results.reshape(-1, 2).mean(axis=1)
        if len(pairs) < 2:
            return 0.0
        return float(pairs.std(ddof=1) / np.sqrt(len(pairs)))

    def __str__(self) -> str:
        if self.length is None:
            return (f"{self.a} vs {self.b} ({self.variant}, money with the cube, {self.games} games, seed "
                    f"{self.seed}): {self.ppg:+.3f} ppg +- {self.stderr:.3f}")
        return (f"{self.a} vs {self.b} ({self.variant}, {self.games} matches to {self.length}, seed {self.seed}): "
                f"wins {self.win_rate:.1%} +- {self.stderr:.1%}")


def session_match(cube: object, match: object) -> Optional[Match]:
    """The match a duel's ``cube`` and ``match`` options ask for: ``None`` for a cubeless duel; money play
    for ``cube=True`` alone; a match to ``match`` points (an integer), or ``match`` itself (a
    :class:`~nardy_fast.Match`: money play with its options, or a match from its score)."""
    if not isinstance(cube, bool):
        raise field_error(NardyError, "cube", "must be True or False", cube)
    if match is None:
        return Match() if cube else None
    if isinstance(match, Match):
        return match
    if isinstance(match, bool) or not isinstance(match, (int, np.integer)):
        raise field_error(NardyError, "match", "must be None, a match length or a nardy_fast.Match", match)
    return Match(int(match))


def cube_duel(
    kernels: Kernels,
    players: tuple[Player, Player],
    args: PlayoutArgs,
    count: int,
    match: Match,
    progress: Optional[Callable[[int], None]] = None,
) -> CubeDuelResult:
    """``count`` games (money) or matches of ``players`` with the cube, ``args.batch`` pairs at a time, each
    batch's pairs split among ``args.threads`` threads."""
    if args.truncate or args.truncate_plies or args.trajectories:
        raise field_error(NardyError, "cube", "a duel with the cube plays whole games", True)
    if not match.money and args.first_game + count // 2 > MATCH_NUMBERS:
        raise field_error(NardyError, "first_game", "must be at most 2**54 - games // 2 for matches",
                          args.first_game)
    longest = default_table().size
    aware = any(getattr(player, "cube", None) == "janowski" for player in players)
    if aware and match.length is not None and match.length > longest:
        # refused before any game, not in the middle of the duel, where the first decision would fail
        raise field_error(NardyError, "match", f"a player deciding at the score needs a length up to {longest}",
                          match.length)
    results = np.zeros(count, dtype=np.float64)
    for begin in range(0, count // 2, args.batch):
        end = min(begin + args.batch, count // 2)
        parts = split_range(begin, end - begin, args.threads)

        def part(index: int, stop: StopFlag, parts: list[tuple[int, int]] = parts) -> None:
            first, last = parts[index]
            if last > first:
                _play(kernels, players, args, match, first, last, results, stop)

        on_threads(args.threads, part)
        if progress is not None:
            progress(2 * end)
    names = (repr(players[0]), repr(players[1]))
    variant = str(args.states[0].variant)
    return CubeDuelResult(names[0], names[1], variant, args.seed, match.length, results)


def _play(
    kernels: Kernels,
    players: tuple[Player, Player],
    args: PlayoutArgs,
    match: Match,
    first: int,
    last: int,
    results: npt.NDArray[np.float64],
    stop: StopFlag,
) -> None:
    """Pairs ``first`` up to ``last``: records ``2k`` (``a`` in seat 0) and ``2k + 1`` (seats swapped), in
    the kernels' own cubeful loop where they play both players, else in the Python loop."""
    index = np.arange(2 * first, 2 * last, dtype=np.int64)
    seated = kernel_seats(kernels, args, players)
    table = default_table(str(args.states[0].variant))
    if seated is not None and (match.length is None or match.length <= table.size):
        n = len(index)
        records = (index // 2 + args.first_game, index % 2 == 1, np.ones(n, dtype=np.int64),
                   np.full(n, -1, dtype=np.int8), np.zeros(n, dtype=bool))
        found = play_in_kernel(kernels, args, seated, match, table, records, False, stop)
        if found is not None:
            results[2 * first : 2 * last] = found.result
        return
    games = CubeLockstep(args, index // 2 + args.first_game, kernels.game_rolls, index % 2 == 1, match)
    sides = (player_side(kernels, players[0], args.seed), player_side(kernels, players[1], args.seed))
    if play_cubeful(games, sides, players, kernels, batch_search(kernels.batch_children), stop):
        results[2 * first : 2 * last] = games.result

