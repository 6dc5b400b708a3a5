"""Playouts: many whole games with seeded dice, written once for every implementation.

:func:`playout_api` gives an implementation its ``playout`` from three parts of its own: a kernel that plays
the built-in policies (the core's loop in C; the reference's through :class:`~nardy_fast.game.Game`), its
``batch_children`` and its :func:`~nardy_fast.dice.game_rolls`. A callable policy is played here, by
:func:`lockstep_playout`, over the other two: the games of a batch advance one ply at a time together, so the
policy sees all their children at once.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any, Literal, NamedTuple, Optional, Protocol, TypeVar, Union, cast, overload

import numpy as np
import numpy.typing as npt

from . import dice, layout
from .batch import check_rows
from .errors import NardyError, field_error
from .game import MAX_PLIES, OPENINGS, POLICIES, RECORD, Game, _position_class
from .inputs import choice, integer
from .position import Position
from .variants import VARIANTS

__all__ = [
    "Policy",
    "Trajectories",
    "PlayoutArgs",
    "check_playout",
    "check_choices",
    "python_playout",
    "lockstep_playout",
    "PlayoutFunction",
    "playout_api",
    "StopFlag",
]

ArrayT = TypeVar("ArrayT", bound=npt.NDArray[Any])
Records = npt.NDArray[np.void]

#: A callable policy: ``policy(children, offsets) -> choices`` (see :func:`playout`).
Policy = Callable[[npt.NDArray[np.int8], npt.NDArray[np.int64]], object]

#: The stop flag of one playout, one int32 shared by its threads (the core's loop reads it without the GIL):
#: set when any of them fails or is interrupted, and then each of the others stops within a ply.
StopFlag = npt.NDArray[np.int32]


class Trajectories(NamedTuple):
    """Every position of every game of a playout, in CSR form: the positions of game ``i`` (its ``i``-th record)
    are ``rows[offsets[i]:offsets[i + 1]]``, from its start (after who starts is decided) to its end, one per
    ply plus the last; ``rolls[j]`` is the roll played from ``rows[j]`` ((0, 0) for a transfer segment and
    for the last position)."""

    rows: npt.NDArray[np.int8]
    rolls: npt.NDArray[np.int8]
    offsets: npt.NDArray[np.int64]


class PlayoutArgs(NamedTuple):
    """The checked arguments of a playout: the starting positions (rows), whether they are a variant's start
    (who starts and the opening are rolled), and the rest."""

    rows: npt.NDArray[np.int8]
    from_start: bool
    games: int
    seed: int
    policy: int  # the index in POLICIES, or -1 for ``callback``
    threads: int
    opening: int  # the index in OPENINGS
    first_game: int = 0
    stratify: bool = False
    batch: int = 1000
    trajectories: bool = False
    callback: Optional[Policy] = None

    def parts(self) -> list[tuple[int, int]]:
        """The ranges of record indices the threads play, one per thread, about equal in size."""
        bounds = [self.games * i // self.threads for i in range(self.threads + 1)]
        return [(bounds[i], bounds[i + 1]) for i in range(self.threads)]


def _boolean(value: object, field: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise field_error(NardyError, field, "must be True or False", value)
    return bool(value)


def check_playout(
    start: object,
    games: object,
    seed: object,
    policy: object,
    threads: object,
    opening: object,
    flags: dict[str, object],
    first_game: object = 0,
    stratify: object = False,
    batch: object = 1000,
    trajectories: object = False,
) -> PlayoutArgs:
    """Check the arguments of ``playout`` (the same checks and messages for every implementation)."""
    count = integer(games)
    if count is None or count < 1 or count >= 1 << 31:
        raise field_error(NardyError, "games", "must be a positive integer below 2**31", games)
    callback: Optional[Policy] = None
    name = choice(policy, POLICIES)
    if callable(policy) and not isinstance(policy, str):
        callback = policy
    elif name is None:
        raise field_error(NardyError, "policy", f"must be one of {POLICIES} or a callable", policy)
    workers = integer(threads)
    if workers is None or not 1 <= workers <= 1024:
        raise field_error(NardyError, "threads", "must be an integer 1..1024", threads)
    how = choice(opening, OPENINGS)
    if how is None:
        raise field_error(NardyError, "opening", f"must be one of {OPENINGS}", opening)
    first = integer(first_game)
    if first is None or not 0 <= first < (1 << 62) - count:
        raise field_error(
            NardyError, "first_game", "must be an integer 0 <= first_game < 2**62 - games", first_game
        )
    size = integer(batch)
    if size is None or not 1 <= size <= 1 << 20:
        raise field_error(NardyError, "batch", "must be an integer 1..2**20", batch)
    from_start = isinstance(start, str)
    if from_start:
        variant = choice(start, VARIANTS)
        if variant is None:
            raise field_error(
                NardyError, "start", f"must be a variant, a Position or rows, one of {VARIANTS}", start
            )
        rows = layout.pack(_position_class(None).start(variant, **flags).state)[None, :]
    else:
        if flags:
            raise field_error(NardyError, "flags", "are the positions' own when they are given", flags)
        if isinstance(start, Position):
            rows = start.to_array()[None, :]
        else:
            try:
                array = np.asarray(start)
            except (ValueError, TypeError):
                array = np.zeros(0)
            if (
                array.ndim != 2
                or array.shape[1] != layout.WIDTH
                or array.dtype.kind not in "iu"
                or not len(array)
            ):
                raise field_error(NardyError, "start", "must be a variant, a Position or rows (N, 64)", start)
            # a copy of our own (values that do not fit int8 refused, not wrapped): the core reads the rows
            # without the GIL, while another thread may change the caller's array; the checks below are made on
            # this copy, and only it is played
            rows = check_rows(array, "start")
        for index, row in enumerate(rows):
            try:
                state = layout.unpack(row)
            except NardyError as error:
                raise type(error)(f"start[{index}]: {error}") from None
            if 15 in state.off:
                raise field_error(NardyError, f"start[{index}]", "is a finished game", layout.unpack(row).off)
    return PlayoutArgs(
        rows,
        from_start,
        count,
        dice.check_seed(seed),
        -1 if name is None else POLICIES.index(name),
        workers,
        OPENINGS.index(how),
        first,
        _boolean(stratify, "stratify"),
        size,
        _boolean(trajectories, "trajectories"),
        callback,
    )


def check_choices(choices: object, counts: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """What a callable policy returned, checked: one integer per game, each ``0 <= c < count``. The checks are
    made on a copy, which alone is returned: the policy's own array may be changed meanwhile (by a thread it
    started, say), and a choice checked must be the choice played."""
    try:
        array = np.array(choices)
    except (ValueError, TypeError):
        array = np.zeros(0, dtype=object)
    if array.shape != counts.shape or array.dtype.kind not in "iu":
        raise field_error(
            NardyError,
            "policy",
            f"must return {len(counts)} integer choices, one per game (shape ({len(counts)},))",
            choices,
        )
    wrong = (array < 0) | (array >= counts)
    if wrong.any():
        i = int(np.argmax(wrong))
        raise field_error(
            NardyError,
            "policy",
            f"returned choice {int(array[i])} for a game with {int(counts[i])} moves (game {i} of the call)",
            choices,
        )
    return array.astype(np.int64, copy=False)


# --- the built-in policies, through Game (the reference's kernel) -----------------------------------------------


def _finish(out: npt.NDArray[np.void], index: int, game: Game, start: int) -> None:
    won = game.winner()
    out[index] = (
        -1 if won is None else ("white", "black").index(won),
        game.points(),
        game.plies,
        game.turns,
        start,
    )


def python_playout(
    position_class: type[Position], args: PlayoutArgs
) -> Union[npt.NDArray[np.void], tuple[npt.NDArray[np.void], Trajectories]]:
    """The built-in policies played through ``position_class`` objects and :class:`Game`."""
    out = np.zeros(args.games, dtype=RECORD)
    starts = [position_class._trusted(layout.unpack(row)) for row in args.rows]
    rows: list[npt.NDArray[np.int8]] = []
    rolls: list[tuple[int, int]] = []
    lengths = np.zeros(args.games, dtype=np.int64)
    for i in range(args.games):
        number = args.first_game + i
        index = number % len(starts)
        if args.from_start:
            game = Game(
                starts[0].variant,
                seed=args.seed,
                game=number,
                opening=OPENINGS[args.opening],
                stratify=args.stratify,
                position_class=position_class,
                **starts[0].flags,
            )
        else:
            game = Game(starts[index], seed=args.seed, game=number, stratify=args.stratify)
        while not game.is_over() and game.plies < MAX_PLIES:
            moves = game.legal_moves()
            pick = dice.choice(args.seed, number, game.plies, len(moves)) if args.policy == 0 else 0
            if args.trajectories:
                rows.append(game.position.to_array())
                rolls.append(game.roll or (0, 0))
            game.play(moves[pick])
        if args.trajectories:
            rows.append(game.position.to_array())
            rolls.append((0, 0))
            lengths[i] = game.plies + 1
        _finish(out, i, game, index)
    if not args.trajectories:
        return out
    return out, Trajectories(
        np.array(rows, dtype=np.int8).reshape(-1, layout.WIDTH),
        np.array(rolls, dtype=np.int8).reshape(-1, 2),
        np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
    )


# --- callable policies: games in lock-step ----------------------------------------------------------------------

BatchChildren = Callable[..., tuple[npt.NDArray[np.int8], npt.NDArray[np.int64], npt.NDArray[np.uint64]]]
GameRolls = Callable[[int, npt.NDArray[np.int64], npt.NDArray[np.int64], bool], npt.NDArray[np.int8]]


def _first_rolls(
    args: PlayoutArgs, numbers: npt.NDArray[np.int64], game_rolls: GameRolls
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8], npt.NDArray[np.int64]]:
    """The games' starting rows, their first rolls and how many rolls each has drawn, as :class:`Game` makes
    them: who starts and the opening for a variant's start; else the side to move rolls, unless it has a
    pending list to play."""
    rows = args.rows[numbers % len(args.rows)].copy()
    drawn = np.zeros(len(numbers), dtype=np.int64)
    if args.from_start:
        singles = np.array([_who_starts(args.seed, int(n)) for n in numbers], dtype=np.int8).reshape(-1, 2)
        rows[:, layout.TURN] = singles[:, 1] > singles[:, 0]
        if OPENINGS[args.opening] == "use_single_dice":
            return rows, np.sort(singles, axis=1)[:, ::-1].copy(), drawn
    rolls = np.zeros((len(numbers), 2), dtype=np.int8)
    rolling = rows[:, layout.NPENDING] == 0
    rolls[rolling] = game_rolls(args.seed, numbers[rolling], drawn[rolling], args.stratify)
    drawn[rolling] = 1
    return rows, rolls, drawn


def _who_starts(seed: int, number: int) -> tuple[int, int]:
    """The single dice that decided who starts game ``number``: (White's, Black's), ties rolled again."""
    k = 0
    while True:
        white, black = dice.single_dice(seed, number, k)
        if white != black:
            return white, black
        k += 1


def _handed_out(array: ArrayT) -> ArrayT:
    """A copy of ``array`` for the policy, which the package never reads again (it keeps the original to
    itself): read-only over an immutable ``bytes`` object, so neither it nor any array in its ``base`` chain
    can be made writable. (An array that owns its data can always be made writable again, and memory behind
    ``__array_interface__`` can be written by anyone: what is handed out is therefore also never read back.)
    The children and offsets of unfinished games are at least 16 bytes, so ``tobytes`` makes a ``bytes``
    object of their own, never one of the interpreter's shared one-byte objects."""
    return cast(ArrayT, np.frombuffer(array.tobytes(), dtype=array.dtype).reshape(array.shape))


def lockstep_playout(
    batch_children: BatchChildren,
    game_rolls: GameRolls,
    args: PlayoutArgs,
    first: int,
    last: int,
    out: npt.NDArray[np.void],
    trajectory_parts: list[tuple[npt.NDArray[np.int64], npt.NDArray[np.int8], npt.NDArray[np.int8]]],
    stop: StopFlag,
) -> None:
    """Records ``first`` up to ``last`` of a playout with a callable policy, ``args.batch`` games at a time: at
    each ply one ``batch_children`` call for every unfinished game of the batch, one call of the policy with
    copies of all their children (:func:`_handed_out`), then each game moves to its chosen child and draws its
    next roll (none after a finished game or before a transfer segment, as :class:`Game` does). Returns early,
    ``out`` part-filled, at the first ply that finds ``stop`` set (another thread of the playout failed)."""
    assert args.callback is not None
    policy = args.callback
    for begin in range(first, last, args.batch):
        end = min(begin + args.batch, last)
        numbers = np.arange(begin, end, dtype=np.int64) + args.first_game
        rows, rolls, drawn = _first_rolls(args, numbers, game_rolls)
        plies = np.zeros(len(numbers), dtype=np.int32)
        turns = np.zeros(len(numbers), dtype=np.int32)
        active = np.arange(len(numbers))
        while active.size:
            if stop[0]:
                return
            if args.trajectories:
                trajectory_parts.append((active + begin, rows[active], rolls[active]))
            children, offsets, _ = batch_children(rows[active], rolls[active])
            counts = np.diff(offsets)
            choices = check_choices(policy(_handed_out(children), _handed_out(offsets)), counts)
            chosen = children[offsets[:-1] + choices]
            turns[active] += rolls[active, 0] != 0
            plies[active] += 1
            rows[active] = chosen
            over = layout.is_over(chosen)
            rolling = active[~over & (chosen[:, layout.NPENDING] == 0)]
            rolls[active] = 0
            rolls[rolling] = game_rolls(args.seed, numbers[rolling], drawn[rolling], args.stratify)
            drawn[rolling] += 1
            active = active[~over & (plies[active] < MAX_PLIES)]
        if args.trajectories:
            trajectory_parts.append((np.arange(begin, end), rows.copy(), np.zeros_like(rolls)))
        part = out[begin:end]
        part["winner"] = layout.winner(rows)
        part["points"] = layout.points(rows)
        part["plies"] = plies
        part["turns"] = turns
        part["start"] = numbers % len(args.rows)


def _gathered(
    games: int, parts: list[tuple[npt.NDArray[np.int64], npt.NDArray[np.int8], npt.NDArray[np.int8]]]
) -> Trajectories:
    """Trajectories from pieces (record indices, rows, rolls) appended ply by ply: sorted by record, stably,
    so each game's positions stay in the order played."""
    if not parts:
        return Trajectories(
            np.zeros((0, layout.WIDTH), np.int8), np.zeros((0, 2), np.int8), np.zeros(games + 1, np.int64)
        )
    index = np.concatenate([p[0] for p in parts])
    order = np.argsort(index, kind="stable")
    rows = np.concatenate([p[1] for p in parts])[order]
    rolls = np.concatenate([p[2] for p in parts])[order]
    offsets = np.zeros(games + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(np.bincount(index, minlength=games))
    return Trajectories(rows, rolls, offsets)


def callable_playout(
    batch_children: BatchChildren, game_rolls: GameRolls, args: PlayoutArgs
) -> Union[npt.NDArray[np.void], tuple[npt.NDArray[np.void], Trajectories]]:
    """A playout with a callable policy: the threads each play a range of the games in lock-step batches; an
    exception in any of them (the policy's own, unchanged) is raised once all have stopped, and nothing is
    returned."""
    out = np.zeros(args.games, dtype=RECORD)
    pieces: list[list[tuple[npt.NDArray[np.int64], npt.NDArray[np.int8], npt.NDArray[np.int8]]]] = [
        [] for _ in range(args.threads)
    ]

    def play(part: int, stop: StopFlag) -> None:
        first, last = args.parts()[part]
        lockstep_playout(batch_children, game_rolls, args, first, last, out, pieces[part], stop)

    _on_threads(args.threads, play)
    if not args.trajectories:
        return out
    return out, _gathered(args.games, [piece for part in pieces for piece in part])


def _on_threads(threads: int, play: Callable[[int, StopFlag], None]) -> None:
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


PlayoutKernel = Callable[
    [PlayoutArgs], Union[npt.NDArray[np.void], tuple[npt.NDArray[np.void], Trajectories]]
]


class PlayoutFunction(Protocol):
    """The type of ``playout``: records, or records and trajectories with ``trajectories=True``."""

    @overload
    def __call__(
        self,
        start: object,
        games: int,
        *,
        seed: int,
        policy: Union[str, Policy] = ...,
        threads: int = ...,
        opening: str = ...,
        first_game: int = ...,
        stratify: bool = ...,
        batch: int = ...,
        trajectories: Literal[False] = ...,
        **flags: object,
    ) -> Records: ...
    @overload
    def __call__(
        self,
        start: object,
        games: int,
        *,
        seed: int,
        policy: Union[str, Policy] = ...,
        threads: int = ...,
        opening: str = ...,
        first_game: int = ...,
        stratify: bool = ...,
        batch: int = ...,
        trajectories: Literal[True],
        **flags: object,
    ) -> tuple[Records, Trajectories]: ...


def playout_api(
    kernel: PlayoutKernel, batch_children: BatchChildren, game_rolls: GameRolls
) -> PlayoutFunction:
    """``playout`` over an implementation's parts: the checks and the documentation are these, for every
    implementation."""

    def playout(
        start: object,
        games: int,
        *,
        seed: int,
        policy: Union[str, Policy] = "random",
        threads: int = 1,
        opening: str = "fresh_roll",
        first_game: int = 0,
        stratify: bool = False,
        batch: int = 1000,
        trajectories: bool = False,
        **flags: object,
    ) -> Union[npt.NDArray[np.void], tuple[npt.NDArray[np.void], Trajectories]]:
        """Play ``games`` whole games with seeded dice and return one :data:`~nardy_fast.game.RECORD` per game
        (winner, points, plies, turns, start); with ``trajectories=True``, ``(records, trajectories)``.

        ``start`` is a variant name (each game rolls who starts and plays the opening per ``opening``, rule
        flags as keyword arguments), a ``Position``, or packed rows (game ``g`` starts from row ``g % N``; the
        side to move rolls first). The games are numbered ``first_game`` .. ``first_game + games - 1``, and the
        dice of game ``g`` are a pure function of ``(seed, g)`` (:mod:`nardy_fast.dice`): the records never
        depend on ``threads``, on the implementation, or on how the games are split into calls
        (``playout(s, 100, seed=1, first_game=50)`` is ``playout(s, 150, seed=1)[50:]``). ``stratify=True``
        makes the first two rolls of game ``g`` its pair of all 36 x 36 (the rollouts' variance reduction).

        ``policy`` chooses each move:

        * ``"random"``: a seeded uniform choice among the distinct legal results;
        * ``"first"``: the first in ``legal_moves`` order;
        * a callable ``policy(children, offsets) -> choices`` for models that score positions in bulk. The
          games are played ``batch`` at a time in lock-step: once per ply the policy gets the children of
          every unfinished game of the batch, ``children`` (M, 64) int8 rows in ``legal_moves`` order and
          ``offsets`` (n + 1,) int64 (the children of the ``i``-th unfinished game, in game order, are
          ``children[offsets[i]:offsets[i + 1]]``; both are read-only copies the package never reads again, so
          nothing a policy does to them changes a game), and returns ``n`` integers, the index of the chosen
          child within each game's (copied, then checked). Its cost is one ``batch_children`` call and one
          Python call per ply of a batch, so large batches amortise it. A policy may call back into the
          package; an exception it raises propagates unchanged and the playout returns nothing.

        The trajectories hold every position of every game (see :class:`Trajectories`): about 6 KB a game.
        A game still going after :data:`~nardy_fast.game.MAX_PLIES` plies is given up (winner -1). The
        compiled core plays the built-in policies in C without the GIL, ``threads`` at once; callable
        policies run on ``threads`` threads too, each its own range of games. An exception in any thread
        (Ctrl-C in the calling one) stops every thread within a ply, and is raised once they have all stopped.
        """
        args = check_playout(
            start, games, seed, policy, threads, opening, flags, first_game, stratify, batch, trajectories
        )
        if args.callback is not None:
            return callable_playout(batch_children, game_rolls, args)
        return kernel(args)

    return cast(PlayoutFunction, playout)
