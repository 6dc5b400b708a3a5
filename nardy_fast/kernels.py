"""What an implementation supplies, and the plain requests its kernels play: the one module the engine reads an
implementation through. The reference (``nardy_fast.reference``) and the compiled core (``nardy_fast.core``)
each make one :class:`Kernels` and hang it on their ``Position`` class (``Position.kernels``); the engine's
evaluators, search, policies, playouts, duels and rollouts take those kernels, never an assembled record.

A playout reaches a kernel as a :class:`PlayoutArgs`: checked rows and options, and a :class:`Seat` per side
(a built-in policy's index, or a built-in evaluator's greedy search, or a chooser the engine plays in
lock-step): plain values, no policy or evaluator object. The engine's Python game loop reads each ply's
children through a :class:`Ply` (every child made by ``batch_children``, or the reference's made only when
read).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Optional, Protocol, Union

import numpy as np
import numpy.typing as npt

from . import layout
from .batch import BatchResult, Kernel, OneRow, ValuesKernel, check_rolls, check_rows, explain
from .cubeargs import CubeArgs
from .encodings import EncodeKernel
from .errors import NardyError, SearchLimitError, field_error
from .layout import Rows
from .position import Position
from .segments import SegmentKernel, check_segments
from .state import State, check_limit, limit_error

if TYPE_CHECKING:
    # at run time the bear-off package would be imported whole, and its engine modules read these kernels
    from .bearoff.tables import CubefulKernel, OneSidedKernel, TwoSidedKernel

__all__ = [
    "Kernels", "kernels_named", "kernels_of", "HintKernel", "EvaluateKernel", "GameRolls", "PlayoutKernel",
    "CubeKernel", "Chooser", "Seat", "PlayoutArgs", "Trajectories", "Records", "Played", "StopFlag", "split_range",
    "on_threads", "Ply", "PlySearch", "BatchChildren", "Found", "batch_search", "ReplayKernel", "MoveLinesKernel",
]  # fmt: skip

Floats = npt.NDArray[np.float64]
Offsets = npt.NDArray[np.int64]
Records = npt.NDArray[np.void]

#: The stop flag of one playout, one int32 shared by its threads (the core's loop reads it without the GIL):
#: set when any of them fails or is interrupted, and then each of the others stops within a ply.
StopFlag = npt.NDArray[np.int32]

#: A chooser: ``chooser(rows, children, offsets) -> choices`` for the positions ``rows`` (n, 64) to move,
#: their children and offsets in CSR form; one index within each position's children.
Chooser = Callable[[npt.NDArray[np.int8], npt.NDArray[np.int8], npt.NDArray[np.int64]], npt.NDArray[np.int64]]

#: An implementation's seeded rolls of games (:func:`nardy_fast.dice.game_rolls`).
GameRolls = Callable[[int, npt.NDArray[np.int64], npt.NDArray[np.int64], bool], npt.NDArray[np.int8]]

#: The kernel of the built-in evaluators: ``evaluate(rows, kind, tables, out) -> bad`` values checked rows by
#: built-in evaluator ``kind`` into ``out`` (n, 5); with ``kind`` CHECK_ONLY it values nothing (``out`` is left
#: alone): -1, or the first row that is not a position the rules allow.
EvaluateKernel = Callable[[Rows, int, object, Floats], int]

#: An implementation's own search over a built-in evaluator: ``hint(row, d1, d2, plies, kind, tables)`` gives
#: the children of a checked row for its roll, their values from the row's side to move and the plies each
#: reached (:meth:`nardy_fast.evaluation.search.Search.hint`, in C).
HintKernel = Callable[[npt.NDArray[np.int8], int, int, int, int, object], tuple[Rows, Floats, npt.NDArray[np.int8]]]


def split_range(first: int, count: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` contiguous ranges ``(begin, end)`` covering ``first .. first + count - 1`` in order, their
    sizes differing by at most 1: how a playout's games go to threads, processes and shards."""
    bounds = [first + count * i // parts for i in range(parts + 1)]
    return [(bounds[i], bounds[i + 1]) for i in range(parts)]


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


class Trajectories(NamedTuple):
    """Every position of every game of a playout, in CSR form: the positions of game ``i`` (its ``i``-th record)
    are ``rows[offsets[i]:offsets[i + 1]]``, from its start (after who starts is decided) to its end, one per
    ply plus the last; ``rolls[j]`` is the roll played from ``rows[j]`` ((0, 0): a transfer segment, the last)."""

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


class Seat(NamedTuple):
    """One player of a game loop's games, as the kernels play it: ``policy``, a built-in policy's index in
    :data:`~nardy_fast.turns.POLICIES` (random, first), or -1 for a player the engine plays in lock-step by
    its ``chooser`` alone; or, with ``evaluator`` >= 0 (a built-in evaluator's kind, with the ``tables`` it
    reads), greedy: the first move of the hint's ranking at ``plies``. A greedy seat's ``chooser`` makes the
    same choices, for an implementation without a search of its own (the reference)."""

    policy: int = 0
    evaluator: int = -1
    plies: int = 0
    tables: object = None
    chooser: Optional[Chooser] = None


class PlayoutArgs(NamedTuple):
    """A checked playout, as its kernel plays it: the starting rows and their states, whether they are a
    variant's start (who starts and the opening are rolled), the options (openings by their index in
    :data:`~nardy_fast.turns.OPENINGS`, which the core reads), and the players: ``seats``, White's and
    Black's in every game, or with ``paired`` a duel's ``a`` and ``b`` (see :meth:`numbers`). ``player`` is
    the checked policy a playout was asked for (:mod:`nardy_fast.policies`), which the engine binds into
    ``seats``; no kernel reads it."""

    rows: npt.NDArray[np.int8]
    states: tuple[State, ...]
    from_start: bool
    games: int
    seed: int
    threads: int
    opening: int  # the index in OPENINGS
    first_game: int = 0
    stratify: bool = False
    batch: int = 1000
    trajectories: bool = False
    truncate: bool = False  # stop each game at its first bear-off position
    last_only: bool = False  # with trajectories: only the last position of each game
    limit: int = 0  # max_results of each ply's search, 0 for none: a game over it is given up (LIMITED)
    player: object = None
    seats: tuple[Seat, Seat] = (Seat(-1), Seat(-1))  # unbound: a kernel refuses them
    paired: bool = False  # a duel: record 2k with seats[0] as White, 2k + 1 with seats[0] as Black
    truncate_plies: int = 0  # stop each game after this many plies, at a position whose side rolls; 0: never

    @property
    def lockstep(self) -> bool:
        """Whether a seat is played by its chooser alone (in lock-step, not by the playout kernel)."""
        return self.seats[0].policy < 0 or self.seats[1].policy < 0

    def numbers(self) -> npt.NDArray[np.int64]:
        """The game number of each record: ``first_game + i``, in a duel ``first_game + i // 2``."""
        index = np.arange(self.games, dtype=np.int64)
        return (index // 2 if self.paired else index) + self.first_game

    def parts(self) -> list[tuple[int, int]]:
        """The ranges of record indices the threads play, one per thread (:func:`split_range`)."""
        return split_range(0, self.games, self.threads)


#: An implementation's kernel for seats it plays itself (built-in policies and evaluators): a checked playout.
PlayoutKernel = Callable[[PlayoutArgs], Played]

#: An implementation's kernel for cubeful games of seats it plays itself: ``cube_games(args, cube, first, last,
#: result, winner, points, value, tally, stop)`` plays records ``first`` up to ``last`` (the core's ``cube_games``).
CubeKernel = Callable[[PlayoutArgs, CubeArgs, int, int, Floats, npt.NDArray[np.int8], npt.NDArray[np.int64],
                       npt.NDArray[np.int64], npt.NDArray[np.int64], StopFlag], None]


# --- the search of a ply of a playout's games (nardy_fast.lockstep's loop reads its plies through these) ------

Mask = npt.NDArray[np.bool_]


class Ply(Protocol):
    """The children of a ply's positions as a search found them: ``over``, the positions whose search would
    hold more than the playout's ``max_results`` positions (``None`` for none; then nothing else is read)."""

    @property
    def over(self) -> Optional[Mask]:
        """The positions over ``max_results``, or ``None``."""
        ...

    def segments(self, which: Optional[Offsets], children: bool) -> tuple[Rows, Offsets]:
        """The children of positions ``which`` (every position: ``None``) and their CSR offsets; with
        ``children`` False the offsets alone are read (the children may be left unmade: an empty array)."""
        ...

    def chosen(self, picks: Offsets) -> Rows:
        """The chosen child of each position, ``picks[i]`` within its children."""
        ...


#: The search of one ply: ``search(rows, rolls, max_results)`` (0: no bound) for the positions of the games.
PlySearch = Callable[[Rows, Rows, int], Ply]
#: An implementation's :meth:`Kernels.batch_children`.
BatchChildren = Callable[..., BatchResult]
#: An implementation's replay of written moves (the core's ``replay_plies``, read by ``nardy_fast.matfast``),
#: each game's plies matched to their legal moves as :func:`nardy_fast.records.find_move` matches them.
ReplayKernel = Callable[[Rows, Offsets, Offsets, Rows, Rows, npt.NDArray[np.int8], Rows, npt.NDArray[np.uint16],
                         npt.NDArray[np.int8], Offsets], None]
#: An implementation's reading of ``.mat`` move lines of the common form (the core's ``read_move_lines``, its
#: twin ``nardy_fast.reference.matlines``), read by ``nardy_fast.matfast``: each line's kind, number, first ply
#: and run of two-ply lines, each ply's dice and written pairs, and the number of plies.
MoveLinesKernel = Callable[[bytes, int, npt.NDArray[np.int8], Offsets, Offsets, Offsets, Rows, npt.NDArray[np.int8],
                            Rows], int]


class Found:
    """A ply's children as a batch search made them, every one (:func:`batch_search`)."""

    __slots__ = ("children", "offsets", "over")

    def __init__(self, children: Rows, offsets: Offsets, over: Optional[Mask] = None) -> None:
        self.children: Rows = children
        self.offsets: Offsets = offsets
        self.over: Optional[Mask] = over

    def segments(self, which: Optional[Offsets], children: bool) -> tuple[Rows, Offsets]:  # noqa: D102 - Ply's
        if which is None:
            return self.children, self.offsets
        counts = np.diff(self.offsets)[which]
        sub = np.zeros(len(which) + 1, dtype=np.int64)
        sub[1:] = np.cumsum(counts)
        if not children:  # no copy of children that will not be read
            return self.children[:0], sub
        index = np.repeat(self.offsets[which] - sub[:-1], counts) + np.arange(sub[-1])
        return self.children[index], sub

    def chosen(self, picks: Offsets) -> Rows:  # noqa: D102 - Ply's
        chosen: Rows = self.children[self.offsets[:-1] + picks]
        return chosen


def _over_limit(batch_children: BatchChildren, rows: Rows, rolls: Rows, limit: int) -> Mask:
    """Which of the rows' searches would hold more than ``limit`` positions after one number of steps."""
    over = np.zeros(len(rows), dtype=bool)
    for i in range(len(rows)):
        try:
            batch_children(rows[i : i + 1], rolls[i : i + 1], max_results=limit)
        except SearchLimitError:
            over[i] = True
    return over


def batch_search(batch_children: BatchChildren) -> PlySearch:
    """The search of an implementation's ``batch_children``: one call per ply of a batch; a ply over
    ``max_results`` searched again position by position, to find which are over."""
    none = np.zeros((0, layout.WIDTH), dtype=np.int8)

    def search(rows: Rows, rolls: Rows, limit: int) -> Ply:
        try:
            children, offsets, _ = batch_children(rows, rolls, max_results=limit or None)
        except SearchLimitError:
            return Found(none, np.zeros(1, dtype=np.int64), _over_limit(batch_children, rows, rolls, limit))
        return Found(np.asarray(children), np.asarray(offsets))

    return search


_BY_NAME: dict[str, Kernels] = {}


@dataclass(frozen=True)
class Kernels:
    """What an implementation called ``name`` supplies: the batch search over checked rows (and optionally a
    shortcut for one row), the encoder, the playout of the seats it plays, its seeded rolls, its bear-off
    table builders (:mod:`nardy_fast.bearoff.tables`), the evaluator kernel, optionally its own n-ply search
    of the built-in evaluators (``hint``, ``values``), its own loop of cubeful games of the seats it plays
    (``cube_games``), replay of written moves (``replay``) and reading of ``.mat`` move lines (``move_lines``),
    and ``searched()``, the work its move searches did in this process (searches started and nodes expanded, in
    blocks of 4096: approximate, for a display of progress).
    :meth:`batch_children` and :meth:`segment_argmax` are those kernels with their checks and errors."""

    name: str
    batch: Kernel
    encode: EncodeKernel
    playout: PlayoutKernel
    game_rolls: GameRolls
    segment_argmax_kernel: SegmentKernel
    one_sided: OneSidedKernel
    two_sided: TwoSidedKernel
    two_sided_cubeful: CubefulKernel
    evaluate: EvaluateKernel
    searched: Callable[[], int]
    one_row: Optional[OneRow] = None
    hint: Optional[HintKernel] = None
    values: Optional[ValuesKernel] = None
    cube_games: Optional[CubeKernel] = None
    replay: Optional[ReplayKernel] = None
    move_lines: Optional[MoveLinesKernel] = None

    def __post_init__(self) -> None:
        _BY_NAME.setdefault(self.name, self)  # what a pickled bear-off table names: the implementation's own

    def segment_argmax(self, scores: object, offsets: object) -> Offsets:
        """:func:`nardy_fast.segment_argmax` over these kernels: the arrays copied, checked, then reduced."""
        values, ends = check_segments(scores, offsets)
        out = np.zeros(len(ends) - 1, dtype=np.int64)
        self.segment_argmax_kernel(values, ends, out)
        return out

    def batch_children(self, positions: object, rolls: object, *, max_results: Optional[int] = None) -> BatchResult:
        """:func:`nardy_fast.batch_children` over these kernels: the rows and rolls copied and checked, the
        batch searched, and the first row it stopped at explained."""
        limit = check_limit(max_results)
        matrix = check_rows(positions, "positions")
        roll_rows = check_rolls(rolls, len(matrix))
        children_rows, offsets, keys, bad, over = self.batch(matrix, roll_rows, limit)
        if over:
            error = limit_error(limit)
            raise type(error)(f"positions[{bad}]: {error}")
        if bad >= 0:
            raise explain(matrix, roll_rows, bad)
        return children_rows, offsets, keys  # type: ignore[return-value]

    def children(self, position: object, dice: Optional[Sequence[int]] = None, *, max_results: Optional[int] = None) -> Rows:
        """:func:`nardy_fast.children` over these kernels: the one-row shortcut where there is one."""
        if self.one_row is not None:
            found = self.one_row(position, dice, check_limit(max_results))
            if found is not None:
                return found
        roll = (0, 0) if dice is None else dice
        return self.batch_children(check_rows(position, "positions"), roll, max_results=max_results)[0]


def kernels_named(name: object) -> Kernels:
    """The kernels of the implementation called ``name`` (``"python"``, ``"cython"``), once it is imported."""
    for known, kernels in _BY_NAME.items():
        if type(name) is str and name == known:
            return kernels
    raise field_error(NardyError, "implementation", f"must be one of {sorted(_BY_NAME)}", name)


def kernels_of(position: object, name: str = "position") -> Kernels:
    """The kernels of ``position``'s implementation (its class's ``kernels``); anything but a ``Position`` of
    the reference or the core is a :class:`~nardy_fast.NardyError` naming ``name``."""
    found = getattr(type(position), "kernels", None) if isinstance(position, Position) else None
    if not isinstance(found, Kernels):
        raise field_error(NardyError, name, "must be a Position of the reference or the core", position)
    return found

