"""Playouts, rollouts and perft over many machines with Dask (the optional extra ``dask``).

Each function takes a ``distributed.Client``, splits the work into shards, runs the package's own function on
the cluster's workers and combines the results in order. Game ``g``'s dice are a pure function of
``(seed, g)`` (:mod:`nardy_fast.dice`) and a shard is a contiguous range of game numbers (``first_game``), so
the totals are exactly those of one process with the same seed, whatever the number of shards or workers.
The workers import ``nardy_fast`` themselves: install the same version on every machine.

On one's own cluster (``dask scheduler`` on one machine, ``dask worker tcp://scheduler:8786`` on the others)::

    from distributed import Client
    import nardy_fast
    from nardy_fast import distributed as nd

    with Client("tcp://scheduler:8786") as client:
        records = nd.playout(client, "long", 1_000_000, seed=1, threads=4)
        print(records["points"].mean())
        print(nd.rollout(client, nardy_fast.Position.start("short"), 12_960, seed=1).equity)
        print(nd.rollout(client, nardy_fast.Position.start("short"), 12_960, seed=1, match=5).action)
        print(nd.perft(client, nardy_fast.Position.start("long"), 3))

A script that starts a ``LocalCluster`` must do so under ``if __name__ == "__main__":`` (its worker
processes are spawned, and they import the script's main module).

Every function checks its request as the local function does (the same errors), and ``client`` and
``shards`` too: a ``NardyError`` naming ``client`` for anything but an open synchronous ``Client``, naming
``shards`` for anything but ``None`` or an integer 1..:data:`MAX_SHARDS`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal, Optional, Union, overload

import numpy as np
import numpy.typing as npt

try:
    import distributed  # type: ignore[import-not-found, unused-ignore]  # absent where the extra is not installed
except ImportError as error:  # the package itself does not depend on Dask
    raise ImportError(
        "nardy_fast.distributed needs Dask's distributed scheduler (the dask extra): from a clone, "
        'pip install -e ".[dask]"; from a wheel, pip install "<the wheel file>[dask]" (or pip install '
        '"dask[distributed]")'
    ) from error

import nardy_fast

from .cube import Cube, Match
from .cubeduel import session_match
from .cubeplayouts import check_cube_playout
from .cuberollouts import CubefulRollout, cube_roll_out, cube_state
from .errors import NardyError, field_error
from .inputs import choice, integer
from .kernels import kernels_of
from .perft import check_depth
from .playouts import Played, PlayoutArgs, PlayoutOptions, Trajectories, check_playout, split_range
from .position import Position
from .rollouts import Rollout, check_position, roll_out, rollout_options, warn_unbalanced
from .truncation import truncation_evaluator

__all__ = ["SHARDS_PER_THREAD", "MAX_SHARDS", "default_shards", "playout", "rollout", "perft"]

#: Shards per worker thread when ``shards`` is not given: a few, so that a slow shard (long games, a busy
#: machine) does not hold up the end while the other threads idle.
SHARDS_PER_THREAD = 4
#: The most shards of one call (``shards`` and :func:`default_shards` alike): every shard is a task the
#: scheduler tracks, and more than this would spend longer scheduling than any cluster spends playing.
MAX_SHARDS = 1 << 16
#: The states of a ``Client`` that can no longer run anything.
_CLOSED = ("closing", "closed")
#: Starting rows larger than this (in bytes) go to the cluster once (``Client.scatter``), not with every shard.
_SCATTER_BYTES = 1 << 16

Records = npt.NDArray[np.void]


# --- the checks: the local functions' own, on the whole request, so that the messages are the same -----------


def _check_client(client: object) -> Any:
    """``client``, checked; typed ``Any`` because ``distributed`` annotates only part of its API."""
    if not isinstance(client, distributed.Client):
        raise field_error(NardyError, "client", "must be a distributed.Client", client)
    if client.asynchronous:
        raise field_error(NardyError, "client", "must be a synchronous Client (asynchronous=False)", client)
    if choice(client.status, _CLOSED) is not None:
        raise field_error(NardyError, "client", "is closed", client)
    return client


def _check_shards(shards: object) -> Optional[int]:
    if shards is None:
        return None
    count = integer(shards)
    if count is None or count < 1:
        raise field_error(NardyError, "shards", "must be a positive integer or None", shards)
    if count > MAX_SHARDS:
        raise field_error(NardyError, "shards", f"must be at most {MAX_SHARDS} (MAX_SHARDS)", shards)
    return count


def _checked_playout(start: object, games: object, seed: object, options: PlayoutOptions) -> PlayoutArgs:
    """``nardy_fast.playout``'s checks of the request, before any shard is sent."""
    return check_playout(start, games, seed, options)


def _gathered(cluster: Any, tasks: list[Any]) -> Any:
    """The results of ``tasks``; when the wait ends early (Ctrl-C, a failed shard), the shards not yet
    started are cancelled rather than left to run for nobody (Dask cannot stop one already running)."""
    try:
        return cluster.gather(tasks)
    except BaseException:
        cluster.cancel(tasks)
        raise


def default_shards(client: distributed.Client) -> int:
    """:data:`SHARDS_PER_THREAD` shards for each thread of ``client``'s workers now, at least 1 and at most
    :data:`MAX_SHARDS`."""
    threads: dict[str, int] = _check_client(client).nthreads()
    return min(MAX_SHARDS, max(1, SHARDS_PER_THREAD * sum(threads.values())))


# --- what the workers run (module-level functions: the workers import them by name) ----------------------------


def _playout_task(start: object, games: int, seed: int, options: PlayoutOptions, cube: bool = False,
                  match: Union[int, Match, None] = None) -> Played:
    played: Played = nardy_fast.playout(start, games, seed=seed, cube=cube, match=match,
                                        **options.keywords())
    return played


def _rollout_task(position: Position, games: int, seed: int, options: PlayoutOptions) -> Rollout:
    """``nardy_fast.rollout`` of these options, by the position's own implementation (no warning: a shard)."""
    return roll_out(kernels_of(position), position, games, seed, options)


def _cube_rollout_task(
    position: Position, games: int, seed: int, options: PlayoutOptions, cube: Cube, match: Match
) -> CubefulRollout:
    """``nardy_fast.rollout`` with ``cube`` and ``match``, by the position's own implementation."""
    return cube_roll_out(kernels_of(position), position, games, seed, options, cube, match)


def _perft_task(positions: list[Position], depth: int) -> int:
    return sum(nardy_fast.perft(position, depth) for position in positions)


# --- the public functions ---------------------------------------------------------------------------------


@overload
def playout(
    client: distributed.Client,
    start: object,
    games: int,
    *,
    seed: int = 0,
    shards: Optional[int] = None,
    trajectories: Literal[False] = False,
    cube: bool = False,
    match: Union[int, Match, None] = None,
    **options: Any,
) -> Records: ...


@overload
def playout(
    client: distributed.Client,
    start: object,
    games: int,
    *,
    seed: int = 0,
    shards: Optional[int] = None,
    trajectories: Literal[True],
    **options: Any,
) -> tuple[Records, Trajectories]: ...


def playout(
    client: distributed.Client,
    start: object,
    games: int,
    *,
    seed: int = 0,
    shards: Optional[int] = None,
    trajectories: bool = False,
    cube: bool = False,
    match: Union[int, Match, None] = None,
    **options: Any,
) -> Union[Records, tuple[Records, Trajectories]]:
    """``nardy_fast.playout(start, games, seed=seed, **options)`` run on ``client``'s workers in ``shards``
    contiguous ranges of games: the same :data:`~nardy_fast.game.RECORD` array, record for record (and with
    ``trajectories=True`` the same trajectories); with ``cube=True`` or ``match`` the same records of money
    games or matches with the cube (:mod:`nardy_fast.cubeplayouts`).

    ``options`` are those of :func:`nardy_fast.playout`: ``policy`` (a callable one must pickle),
    ``opening``, ``stratify``, ``first_game``, ``batch``, ``threads`` (per shard) and rule flags. ``shards``
    (at most :data:`MAX_SHARDS`) defaults to :func:`default_shards` and is never more than ``games``.
    """
    cluster = _check_client(client)
    asked = PlayoutOptions.of(trajectories=trajectories, **options)
    session = session_match(cube, match)
    args = _checked_playout(start, games, seed, asked)
    if session is not None:  # checked as nardy_fast.playout checks it, before any shard is sent
        check_cube_playout(args, asked, session)
    count = _check_shards(shards) or default_shards(cluster)
    sent: object = start
    if not args.from_start:  # the checked rows, compact int8; a Position travels as its row
        sent = args.rows
        if args.rows.nbytes > _SCATTER_BYTES:
            sent = cluster.scatter(args.rows, broadcast=False)
    tasks = [
        cluster.submit(_playout_task, sent, last - first, args.seed, replace(asked, first_game=first), cube, match,
                       pure=False)
        for first, last in split_range(args.first_game, args.games, min(count, args.games))
    ]
    parts: list[Any] = _gathered(cluster, tasks)
    if not args.trajectories:
        return np.concatenate(parts)
    return np.concatenate([records for records, _ in parts]), Trajectories.concatenate([t for _, t in parts])


@overload
def rollout(
    client: distributed.Client,
    position: Position,
    games: int = 1296,
    *,
    seed: int = 0,
    shards: Optional[int] = None,
    cube: None = None,
    match: None = None,
    **options: Any,
) -> Rollout: ...


@overload
def rollout(
    client: distributed.Client,
    position: Position,
    games: int = 1296,
    *,
    seed: int = 0,
    shards: Optional[int] = None,
    cube: Optional[Cube] = None,
    match: Union[int, Match, None] = None,
    **options: Any,
) -> Union[Rollout, CubefulRollout]: ...


def rollout(
    client: distributed.Client,
    position: Position,
    games: int = 1296,
    *,
    seed: int = 0,
    shards: Optional[int] = None,
    cube: Optional[Cube] = None,
    match: Union[int, Match, None] = None,
    **options: Any,
) -> Union[Rollout, CubefulRollout]:
    """``nardy_fast.rollout(position, games, seed=seed, cube=cube, match=match, **options)`` run on
    ``client``'s workers in ``shards`` contiguous ranges of games, combined with :meth:`Rollout.combine`
    (a cubeful rollout, with ``cube`` or ``match``: :meth:`CubefulRollout.combine`): the same counts, or the
    same trials of both lines, exactly.

    ``options`` are those of :func:`nardy_fast.rollout`: ``policy``, ``stratify``, ``first_game``, ``batch``,
    ``truncate``, ``truncate_plies``, ``max_results`` and ``threads`` (per shard). The stratified rolls follow the game numbers, so
    any split keeps them; so do a cubeful rollout's two lines, whose trial ``i`` is game ``first_game + i``.
    """
    cluster = _check_client(client)
    asked = rollout_options(**options)
    start = check_position(position)
    # checked as nardy_fast.rollout checks them, before any shard is sent
    state = cube_state(cube, match) if cube is not None or match is not None else None
    if state is not None and asked.truncate is not None:
        raise field_error(NardyError, "truncate", "a cubeful rollout plays whole games", asked.truncate)
    if state is not None and asked.truncate_plies is not None:
        raise field_error(NardyError, "truncate_plies", "a cubeful rollout plays whole games", asked.truncate_plies)
    if state is None:
        truncation_evaluator(asked)
    args = _checked_playout(start, games, seed, asked)
    warn_unbalanced(args.games, asked)
    count = _check_shards(shards) or default_shards(cluster)
    ranges = split_range(args.first_game, args.games, min(count, args.games))
    if state is not None:
        cubeful = [
            cluster.submit(_cube_rollout_task, position, last - first, args.seed, replace(asked, first_game=first),
                           *state, pure=False)
            for first, last in ranges
        ]
        return CubefulRollout.combine(_gathered(cluster, cubeful))
    tasks = [
        cluster.submit(_rollout_task, position, last - first, args.seed, replace(asked, first_game=first), pure=False)
        for first, last in ranges
    ]
    return Rollout.combine(_gathered(cluster, tasks))


def perft(client: distributed.Client, position: Position, depth: int, *, shards: Optional[int] = None) -> int:
    """``nardy_fast.perft(position, depth)`` counted on ``client``'s workers.

    The work is split at the root: every (roll, legal move) of ``position`` (its 21 rolls, or its pending list
    alone) is an item counting ``perft(move.result, depth - 1)``; the items are dealt round-robin into
    ``shards`` tasks (default :func:`default_shards`, never more than the items) and their counts summed.
    The positions travel as their text, each rebuilt by its own ``Position`` class.
    """
    cluster = _check_client(client)
    nardy_fast.perft(position, 0)  # the local checks of the position (a depth of 0 counts nothing)
    levels = check_depth(depth)
    count = _check_shards(shards) or default_shards(cluster)
    if levels == 0:
        return 1
    items = [move.result for roll in position._rolls() for move in position.legal_moves(roll)]
    if not items:  # a finished game
        return 0
    count = min(count, len(items))
    tasks = [cluster.submit(_perft_task, items[i::count], levels - 1, pure=False) for i in range(count)]
    counts: list[int] = _gathered(cluster, tasks)
    return sum(counts)
