"""Playouts, written once for every implementation: their options and checks, the records and trajectories
they return, how their games are split into ranges, and the threads they run on.

An implementation plays a checked playout (:class:`PlayoutArgs`) with its kernel for the built-in policies
(the core's loop in C; the reference's through :class:`~nardy_fast.game.Game`); a callable policy is played
by :mod:`nardy_fast.lockstep` over the implementation's ``batch_children``. Both split the games into
:func:`split_range` ranges, one per thread, run by :func:`on_threads`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Optional, Union

import numpy as np
import numpy.typing as npt

from . import dice, layout
from .batch import check_rows
from .errors import NardyError, field_error
from .inputs import boolean, choice, integer
from .policies import Greedy, Policy, check_choices, resolve_policy
from .position import Position
from .state import State, check_limit, start_state
from .turns import OPENINGS, POLICIES
from .variants import VARIANTS

__all__ = [
    "Policy",
    "Chooser",
    "StopFlag",
    "GAMES_BOUND",
    "Records",
    "Trajectories",
    "PlayoutOptions",
    "PlayoutArgs",
    "Seat",
    "PlayoutKernel",
    "Played",
    "TRUNCATIONS",
    "TRUNCATED",
    "MAX_THREADS",
    "MAX_BATCH",
    "split_range",
    "check_playout",
    "check_choices",
    "on_threads",
]

Records = npt.NDArray[np.void]


#: A policy of the registry that sees the positions too: ``chooser(rows, children, offsets) -> choices`` for
#: the positions ``rows`` (n, 64) to move, their children and offsets as a callable policy gets them.
Chooser = Callable[[npt.NDArray[np.int8], npt.NDArray[np.int8], npt.NDArray[np.int64]], npt.NDArray[np.int64]]

#: The stop flag of one playout, one int32 shared by its threads (the core's loop reads it without the GIL):
#: set when any of them fails or is interrupted, and then each of the others stops within a ply.
StopFlag = npt.NDArray[np.int32]

#: A playout's ``games`` are fewer than this (:func:`check_playout`), a rollout's too.
GAMES_BOUND = 1 << 31

#: What ``truncate`` may be: stop each game at its first bear-off position (docs/rules.md, Races and bear-off
#: positions).
TRUNCATIONS = ("bearoff",)
#: The winner of a record whose game ``truncate`` stopped (-1: given up after MAX_PLIES plies).
TRUNCATED = -2

#: The most threads one playout runs on, and the most games a callable policy sees at once.
MAX_THREADS = 1024
MAX_BATCH = 1 << 20


def split_range(first: int, count: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` contiguous ranges ``(begin, end)`` covering ``first .. first + count - 1`` in order, their
    sizes differing by at most 1: how a playout's games go to threads, processes and shards."""
    bounds = [first + count * i // parts for i in range(parts + 1)]
    return [(bounds[i], bounds[i + 1]) for i in range(parts)]


class Trajectories(NamedTuple):
    """Every position of every game of a playout, in CSR form: the positions of game ``i`` (its ``i``-th record)
    are ``rows[offsets[i]:offsets[i + 1]]``, from its start (after who starts is decided) to its end, one per
    ply plus the last; ``rolls[j]`` is the roll played from ``rows[j]`` ((0, 0) for a transfer segment and
    for the last position)."""

    rows: npt.NDArray[np.int8]
    rolls: npt.NDArray[np.int8]
    offsets: npt.NDArray[np.int64]

    def game_index(self) -> npt.NDArray[np.int64]:
        """For each row, the record its game has in the playout (``i`` for the rows of record ``i``; the game
        number is ``first_game + i``)."""
        return np.repeat(np.arange(len(self.offsets) - 1, dtype=np.int64), np.diff(self.offsets))

    def outcome(self) -> npt.NDArray[np.int8]:
        """For each row, what its side to move went on to score in that game: the points won (1, 2 a mars, 3
        a koks) when it won, minus the points lost when it lost, 0 for a game given up. The training label of
        the row, for the side to move."""
        last = self.rows[self.offsets[1:] - 1]  # every game has a row: its start
        counts = np.diff(self.offsets)
        winner = np.repeat(layout.winner(last), counts)
        points = np.repeat(layout.points(last), counts).astype(np.int8)
        sign = np.where(winner == layout.turn(self.rows), 1, -1).astype(np.int8)
        signed: npt.NDArray[np.int8] = np.where(winner >= 0, sign * points, 0).astype(np.int8)
        return signed

    @classmethod
    def concatenate(cls, parts: Sequence[Trajectories]) -> Trajectories:
        """The trajectories of consecutive ranges of games as those of one playout: each part's offsets
        shifted by the positions before it."""
        shifts = np.cumsum([0] + [len(part.rows) for part in parts])
        return cls(
            np.concatenate([part.rows for part in parts]).reshape(-1, layout.WIDTH),
            np.concatenate([part.rolls for part in parts]).reshape(-1, 2),
            np.concatenate([parts[0].offsets[:1]] + [p.offsets[1:] + s for p, s in zip(parts, shifts)]),
        )


#: What a playout returns: its records, or with ``trajectories`` its records and trajectories.
Played = Union[Records, tuple[Records, Trajectories]]


@dataclass(frozen=True)
class PlayoutOptions:
    """The options of a playout, as :func:`nardy_fast.playout` takes them (its docstring says what each
    means), as one value: what ``rollout``, the command line and :mod:`nardy_fast.distributed` hand on.
    Nothing is checked until a playout uses them (:func:`check_playout`). ``flags`` are the rule flags of a
    variant's start."""

    policy: object = "random"  # a policy of nardy_fast.policies
    threads: int = 1
    opening: str = "fresh_roll"
    first_game: int = 0
    stratify: bool = False
    batch: int = 1000
    trajectories: bool = False
    truncate: Optional[str] = None
    max_results: object = None
    flags: Mapping[str, object] = field(default_factory=dict)

    @classmethod
    def of(cls, **keywords: Any) -> PlayoutOptions:
        """The options of ``playout``'s keyword arguments: the named ones, and the rest as rule flags."""
        names = {f for f in cls.__dataclass_fields__ if f != "flags"}
        flags = {k: v for k, v in keywords.items() if k not in names}
        return cls(**{k: v for k, v in keywords.items() if k in names}, flags=flags)

    def keywords(self) -> dict[str, Any]:
        """``playout``'s keyword arguments for these options (the inverse of :meth:`of`)."""
        named = {f: getattr(self, f) for f in self.__dataclass_fields__ if f != "flags"}
        return {**named, **self.flags}


class Seat(NamedTuple):
    """One player of a game loop's games as the loops play it: ``policy``, a built-in policy's index in
    :data:`~nardy_fast.game.POLICIES` (random, first); or with ``evaluator`` >= 0 (a built-in evaluator's index
    in EVALUATORS, with the ``tables`` it reads) greedy, the first move of the hint's ranking at ``plies``.
    ``greedy`` is the :class:`Greedy` it was bound from (the reference searches with it)."""

    policy: int = 0
    evaluator: int = -1
    plies: int = 0
    tables: object = None
    greedy: Optional[Greedy] = None


class PlayoutArgs(NamedTuple):
    """The checked arguments of a playout: the starting rows and their states, whether they are a variant's
    start (who starts and the opening are rolled), and the rest (policies and openings by their index in
    :data:`~nardy_fast.game.POLICIES` and :data:`~nardy_fast.game.OPENINGS`, which the core reads)."""

    rows: npt.NDArray[np.int8]
    states: tuple[State, ...]
    from_start: bool
    games: int
    seed: int
    policy: int  # the index in POLICIES (0 for a Greedy), or -1 for ``callback``
    threads: int
    opening: int  # the index in OPENINGS
    first_game: int = 0
    stratify: bool = False
    batch: int = 1000
    trajectories: bool = False
    callback: Optional[Policy] = None
    truncate: bool = False  # stop each game at its first bear-off position
    last_only: bool = False  # with trajectories: only the last position of each game
    evaluator: int = -1  # a greedy policy's built-in evaluator (its index in EVALUATORS), or -1
    plies: int = 0  # ... and its search depth
    tables: object = None  # ... and the tables it reads (the race evaluator's, nardy_fast.evaluation.race)
    chooser: Optional[Chooser] = None  # a policy that sees the games' positions too (lock-step)
    greedy: Optional[Greedy] = None  # a Greedy policy, before its implementation binds it
    limit: int = 0  # max_results of each ply's search, 0 for none: a game over it is given up (LIMITED)
    duel: Optional[tuple[Seat, Seat]] = None  # a duel's players a and b (see seats)

    @property
    def seats(self) -> tuple[Seat, Seat]:
        """The players of the games: a duel's ``a`` and ``b``, record ``2k`` with ``a`` as White and ``2k + 1``
        with ``a`` as Black, both game number ``first_game + k`` (duplicate dice); else the playout's one
        policy, the same seat twice."""
        if self.duel is not None:
            return self.duel
        seat = Seat(self.policy, self.evaluator, self.plies, self.tables, self.greedy)
        return seat, seat

    def numbers(self) -> npt.NDArray[np.int64]:
        """The game number of each record: ``first_game + i``, in a duel ``first_game + i // 2``."""
        index = np.arange(self.games, dtype=np.int64)
        return (index // 2 if self.duel is not None else index) + self.first_game

    def parts(self) -> list[tuple[int, int]]:
        """The ranges of record indices the threads play, one per thread (:func:`split_range`)."""
        return split_range(0, self.games, self.threads)


#: An implementation's kernel for the built-in policies: a checked playout played.
PlayoutKernel = Callable[[PlayoutArgs], Played]


def _boolean(value: object, name: str) -> bool:
    checked = boolean(value)
    if checked is None:
        raise field_error(NardyError, name, "must be True or False", value)
    return checked


def _starts(start: object, flags: Mapping[str, object]) -> tuple[npt.NDArray[np.int8], tuple[State, ...], bool]:
    """The starting rows of a playout, each checked once, with their states: a variant's start from its table
    (its flags checked), a position's own row, or rows given (copied, then checked)."""
    if isinstance(start, str):
        variant = choice(start, VARIANTS)
        if variant is None:
            raise field_error(
                NardyError, "start", f"must be a variant, a Position or rows, one of {VARIANTS}", start
            )
        state = start_state(variant, flags)
        return layout.pack(state)[None, :], (state,), True
    if flags:
        raise field_error(NardyError, "flags", "are the positions' own when they are given", flags)
    if isinstance(start, Position):
        if start.is_over():
            raise field_error(NardyError, "start[0]", "is a finished game", start.state.off)
        return start.to_array()[None, :], (start.state,), False
    try:
        array = np.asarray(start)
    except (ValueError, TypeError):
        array = np.zeros(0)
    if array.ndim != 2 or array.shape[1] != layout.WIDTH or array.dtype.kind not in "iu" or not len(array):
        raise field_error(NardyError, "start", "must be a variant, a Position or rows (N, 64)", start)
    # a copy of our own (values that do not fit int8 refused, not wrapped): the core reads the rows without
    # the GIL, while another thread may change the caller's array; the checks are made on this copy, and only
    # it is played
    rows = check_rows(array, "start")
    states = []
    for index, row in enumerate(rows):
        try:
            state = layout.unpack(row)
        except NardyError as error:
            raise type(error)(f"start[{index}]: {error}") from None
        if 15 in state.off:
            raise field_error(NardyError, f"start[{index}]", "is a finished game", state.off)
        states.append(state)
    return rows, tuple(states), False


def check_playout(start: object, games: object, seed: object, options: PlayoutOptions) -> PlayoutArgs:
    """Check a playout's request (the same checks and messages for every implementation)."""
    count = integer(games)
    if count is None or count < 1 or count >= GAMES_BOUND:
        raise field_error(NardyError, "games", "must be a positive integer below 2**31", games)
    spec = resolve_policy(options.policy)
    workers = integer(options.threads)
    if workers is None or not 1 <= workers <= MAX_THREADS:
        raise field_error(NardyError, "threads", f"must be an integer 1..{MAX_THREADS}", options.threads)
    how = choice(options.opening, OPENINGS)
    if how is None:
        raise field_error(NardyError, "opening", f"must be one of {OPENINGS}", options.opening)
    first = integer(options.first_game)
    if first is None or not 0 <= first < (1 << 62) - count:
        raise field_error(
            NardyError, "first_game", "must be an integer 0 <= first_game < 2**62 - games", options.first_game
        )
    size = integer(options.batch)
    if size is None or not 1 <= size <= MAX_BATCH:
        raise field_error(NardyError, "batch", "must be an integer 1..2**20", options.batch)
    truncate = options.truncate is not None
    if truncate and choice(options.truncate, TRUNCATIONS) is None:
        raise field_error(NardyError, "truncate", f"must be None or one of {TRUNCATIONS}", options.truncate)
    rows, states, from_start = _starts(start, options.flags)
    return PlayoutArgs(
        rows,
        states,
        from_start,
        count,
        dice.check_seed(seed),
        POLICIES.index(spec.kind) if spec.kind in POLICIES else 0 if spec.greedy is not None else -1,
        workers,
        OPENINGS.index(how),
        first,
        _boolean(options.stratify, "stratify"),
        size,
        _boolean(options.trajectories, "trajectories"),
        spec.callback,
        truncate,
        greedy=spec.greedy,
        limit=check_limit(options.max_results),
    )


def on_threads(threads: int, play: Callable[[int, StopFlag], None]) -> None:
    """``play(0, stop)`` .. ``play(threads - 1, stop)`` at once, the calling thread taking part 0, all with
    one stop flag (:data:`StopFlag`). An exception in any part sets it, and so does one raised in the calling
    thread while it waits for the others (Ctrl-C: signals reach only the main thread), so that every part
    stops within a ply instead of playing its whole range. The calling thread's exception, else the first
    other part's, is raised once every part has returned: no thread of the playout outlives it."""
    stop: StopFlag = np.zeros(1, dtype=np.int32)

    def guarded(part: int) -> None:
        try:
            play(part, stop)
        except BaseException:
            stop[0] = 1
            raise

    if threads == 1:
        play(0, stop)
        return
    others: list[Future[None]] = []
    with ThreadPoolExecutor(threads - 1) as pool:  # its exit waits for every part
        try:
            others.extend(pool.submit(guarded, part) for part in range(1, threads))
            play(0, stop)
            wait(others)  # here, not in the pool's exit: Ctrl-C while waiting must set the flag too
        finally:
            # on the way out by an exception (part 0's, or Ctrl-C at any point here) the others stop within
            # a ply; on the way out after ``wait``, every part is done and the flag changes nothing
            stop[0] = 1
    for other in others:
        error = other.exception()
        if error is not None:
            raise error
